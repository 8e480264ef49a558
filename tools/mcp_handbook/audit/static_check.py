"""The static checks of a tool definition: every probe of the tool-definitions and agent-UX gates that needs only
the ``tools/list`` entry, run on that entry with no server at all.

An author (or an agent) writing a tool wants the auditor's verdict on its definition before there is a server to
audit. The probes already judge a listing: :func:`~mcp_handbook.probes.support.tools_of` returns the listing kept
on the :class:`~mcp_handbook.probes.support.Target`, so a target that carries the given listing and refuses to start
a server runs each probe exactly as an audit does, with the same rule ids, reasons and sentences. A probe registered
``calls_tools`` (it calls the tool to judge its result, its error or what it writes) is not run: its rule is reported
as *needs a running server*, never guessed at. Should any other probe still ask for a server session, the attempt
is stopped and its rule is reported the same way, so a verdict here never rests on a server that was not there.

The skill's ``scripts/check_tool.py`` and the handbook's MCP server both call :func:`check_tool_definition`.
"""

from __future__ import annotations

import copy
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..model import Corpus, Rule
from ..probes.findings import Status

STATIC_GATES = ("tool-definitions", "agent-ux")
"""The gates whose probes judge tool definitions."""
NEEDS_SERVER = "needs a running server"
"""The summary's opening for a rule whose probe wanted more than the listing."""


class NeedsLiveServer(BaseException):
    """Raised when a probe asks for a server session. A BaseException, so no probe's own ``except Exception`` (a
    schema that fails to compile, say) can mistake it for a verdict."""


@dataclass(frozen=True, slots=True)
class StaticFinding:
    """One rule's verdict on a tool listing, as an audit would report it."""

    rule_id: str
    title: str
    probe: str
    status: Status
    """PASS, FAIL or N/A (a probe that did not apply, or one that needs a running server: see ``static``)."""
    reason: str
    """For a FAIL: the probe's reason code, the one an audit reports."""
    summary: str
    evidence: tuple[str, ...]
    fix: str
    """What to change when it fails (the rule's ``fix``)."""
    static: bool
    """False when the probe needs a running server and was not run."""

    def as_dict(self) -> dict[str, Any]:
        return {"rule": self.rule_id, "title": self.title, "probe": self.probe, "status": self.status,
                "reason": self.reason, "summary": self.summary, "evidence": list(self.evidence), "fix": self.fix,
                "static": self.static}


def _listing_only_target(tools: list[dict[str, Any]], workspace: Path):
    """A :class:`Target` that already holds ``tools`` as its listing and raises :class:`NeedsLiveServer` instead of
    starting or connecting to a server."""
    from ..probes.support import Target

    class ListingOnly(Target):
        __slots__ = ()

        def start(self, **_: Any):
            raise NeedsLiveServer("start")

        def connect(self, *_: Any, **__: Any):
            raise NeedsLiveServer("connect")

    return ListingOnly(argv=[], workspace=workspace, env={}, canary="", allow_tool_calls=None, timeout=1.0,
                       listing=copy.deepcopy(tools))


def static_rules(corpus: Corpus) -> list[Rule]:
    """The automated rules of :data:`STATIC_GATES`, in the corpus's order."""
    return [r for r in corpus.rules if r.gate in STATIC_GATES and r.check == "automated" and r.probe]


def listing_only(rule: Rule) -> bool:
    """Whether ``rule`` is judged here from the listing alone: a static-gate rule whose registered probe does not call
    tools (the skill's index names these as the ones ``scripts/check_tool.py`` checks)."""
    from ..probes import PROBES

    probe = PROBES.get(rule.probe)
    return rule.gate in STATIC_GATES and rule.check == "automated" and probe is not None and not probe.calls_tools


def _validated(tools: Any) -> list[dict[str, Any]]:
    if not isinstance(tools, list):
        raise ValueError(f"a tool listing is a JSON array of tool objects, not {type(tools).__name__}")
    for index, tool in enumerate(tools):
        if not isinstance(tool, dict):
            raise ValueError(f"tools[{index}]: a tool definition is a JSON object, not {type(tool).__name__}")
    return tools


def check_tool_listing(tools: Sequence[dict[str, Any]], corpus: Corpus | None = None) -> list[StaticFinding]:
    """Every static rule's verdict on a whole ``tools/list`` result (``tools``: its ``tools`` array). Rules that look
    across tools (unique names, the count of tools) are judged here as an audit judges them."""
    from ..probes import PROBES

    listing = _validated(list(tools) if isinstance(tools, (list, tuple)) else tools)
    corpus = corpus if corpus is not None else default_corpus()
    findings: list[StaticFinding] = []
    with tempfile.TemporaryDirectory(prefix="mcp-handbook-static-") as folder:
        verdicts: dict[str, tuple[Status, str, str, tuple[str, ...], bool]] = {}
        for rule in static_rules(corpus):
            probe = PROBES.get(rule.probe)
            if probe is None:
                raise ValueError(f"{rule.path}: probe {rule.probe!r} is not registered")
            if rule.probe not in verdicts:
                verdicts[rule.probe] = _needs_server(probe) if probe.calls_tools else _run(probe, listing, Path(folder))
            status, reason, summary, evidence, static = verdicts[rule.probe]
            findings.append(StaticFinding(rule.id, rule.title, rule.probe, status, reason, summary, evidence, rule.fix, static))
    return findings


def _needs_server(probe: Any) -> tuple[Status, str, str, tuple[str, ...], bool]:
    return "N/A", "", f"{NEEDS_SERVER}: probe {probe.name} checks that {probe.title}; audit a server to judge it", (), False


def _run(probe: Any, listing: list[dict[str, Any]], workspace: Path) -> tuple[Status, str, str, tuple[str, ...], bool]:
    target = _listing_only_target(listing, workspace)
    try:
        finding = probe.run(target)
    except NeedsLiveServer:
        return _needs_server(probe)
    return finding.status, finding.reason, finding.summary, finding.evidence, True


def check_tool_definition(tool: dict[str, Any], corpus: Corpus | None = None) -> list[StaticFinding]:
    """Every static rule's verdict on one tool definition (one entry of ``tools/list``), as an audit of a server
    that lists only this tool would report it."""
    if not isinstance(tool, dict):
        raise ValueError(f"a tool definition is a JSON object (one entry of tools/list), not {type(tool).__name__}")
    return check_tool_listing([tool], corpus)


def default_corpus() -> Corpus:
    """The doctrine the installed tool carries, else the checkout this module runs from."""
    from .. import load_corpus
    from ..installed import packaged_root

    root = packaged_root() or Path(__file__).resolve().parents[3]
    return load_corpus(root)
