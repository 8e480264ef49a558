"""Whose FAIL is it: the author's, or the SDK's default? Compare with a minimal server built on the same SDK.

About four FAILs per server (a frame cap, malformed-line answers, signal handling, inherited descriptors) are
the defaults of the official SDK the server is built on, identical on every server built on it; listed with
the author's own they bury what the author wrote. So after an audit the auditor tells which SDK the server
runs on (:func:`detect`), audits the smallest server that SDK builds (``baselines/``, run with the server's
own interpreter or beside its own copy of the SDK) for the rules that failed only, and marks a FAIL whose
reason and observed behaviour (:func:`behaviour`) the minimal server shares as inherited
(:class:`~.plan.Inherited`). The minimal server's verdicts are kept per SDK, version and doctrine version in the
user's cache folder, so the next audit of any server on that SDK pays nothing.

An inherited FAIL stays a FAIL, in the worksheet and for the gate: the host gets the default all the same.
Where the rule's own *When to deviate* clearly covers keeping the default (:data:`DEVIATIONS`), the finding
is N/A, *does not apply*, with the probe's FAIL kept as evidence.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from ..model import Corpus
from ..parse_cache import cache_dir
from ..probes.support import not_applicable
from .plan import DOES_NOT_APPLY, NOT_CHECKED, AuditResult, Inherited, RuleFinding
from .sdk_detect import Sdk, detect

BASELINES = Path(__file__).with_name("baselines")
"""The minimal servers, one per official SDK."""
CACHE_FOLDER = "sdk-baselines"
SUMMARY_KEPT = 400
"""Characters of a minimal server's FAIL summary kept in the cache, and compared (:func:`behaviour`)."""
BASELINE_SECONDS = 120.0
"""The minimal server's audit budget: a few probes, on a server that does nothing."""
Audit = Callable[..., AuditResult]
"""How the minimal server is audited: ``run_audit(corpus, argv, options=..., probes=...)``."""
AUTHORED_GATES = frozenset({"tool-definitions", "agent-ux"})
"""Gates whose rules judge what the author writes per tool (names, descriptions, schemas, titles, results): never
attributed to the SDK, even where the SDK derived a schema from a type hint, since the minimal server's own tool
would fail them only for what its own author left out."""


# -- the minimal server's verdicts -----------------------------------------------------------------------------

def _command(sdk: Sdk, folder: Path) -> list[str]:
    """The minimal server's command. The TypeScript one runs beside a link to the audited server's own SDK, so
    node resolves that copy (and the SDK's own dependencies from where it really is)."""
    if sdk.key == "python":
        return [sdk.runner, str(BASELINES / "python_sdk.py")]
    link = folder / "node_modules" / "@modelcontextprotocol" / "sdk"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(sdk.home, target_is_directory=True)
    shutil.copy(BASELINES / "typescript_sdk.mjs", folder / "server.mjs")
    return [sdk.runner, str(folder / "server.mjs")]


def _cache_file(sdk: Sdk, corpus: Corpus) -> Path | None:
    folder = cache_dir()
    if folder is None:
        return None
    safe = re.sub(r"[^\w.+-]", "_", f"{sdk.key}-{sdk.version}-doctrine-{corpus.version}-probes-{_probes_digest()}")
    return folder / CACHE_FOLDER / f"{safe}.json"


@functools.cache
def _probes_digest() -> str:
    """A short hash of the probes' and this module's sources: a probe changed between two releases of the same
    doctrine version (a checkout being worked on) must not be compared with verdicts its old self gave."""
    digest = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for path in sorted([*(here.parent / "probes").rglob("*.py"), *here.glob("*.py"), *BASELINES.glob("*")]):
        if not path.is_file():
            continue
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def _load(path: Path | None) -> dict[str, dict[str, str]]:
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8")[:2_000_000])
    except (OSError, ValueError):
        return {}
    rules = data.get("rules") if isinstance(data, dict) else None
    if not isinstance(rules, dict):
        return {}
    return {k: v for k, v in rules.items() if isinstance(v, dict) and all(isinstance(v.get(f), str) for f in ("status", "reason", "summary"))}


def _save(path: Path | None, sdk: Sdk, rules: Mapping[str, Mapping[str, str]]) -> None:
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=".baseline-", suffix=".json", delete=False,
                                         encoding="utf-8") as tmp:
            json.dump({"sdk": sdk.describe(), "rules": dict(rules)}, tmp, sort_keys=True, indent=1)
        os.replace(tmp.name, path)
    except OSError:
        pass  # an unwritable cache only costs the next audit the same few seconds


def baseline_verdicts(corpus: Corpus, sdk: Sdk, rule_ids: frozenset[str], result: AuditResult,
                      probes: Mapping | None = None, *, audit: Audit) -> tuple[dict[str, dict[str, str]], str, int]:
    """The minimal server's verdict on each of ``rule_ids`` (``status``, ``reason``, ``summary``), from the cache or
    from an audit of the rules not cached yet; a note when that audit could not judge it; and how many server
    processes that audit started (0 from the cache)."""
    path = _cache_file(sdk, corpus)
    known = _load(path)
    missing = frozenset(rule_ids) - set(known)
    if not missing:
        return known, "", 0
    options = replace(result.options, rules=missing, sdk_baseline=False, roots=(), url=None, headers=(),
                      allow_tool_calls=frozenset(), timeout=min(result.options.timeout, BASELINE_SECONDS))
    with tempfile.TemporaryDirectory(prefix="hb-sdk-baseline-") as tmp:
        seen = audit(corpus, _command(sdk, Path(tmp)), options=options, probes=probes)
    if not seen.facts.answered or seen.stopped:
        return known, f"the minimal server on {sdk.describe()} could not be audited: {seen.facts.describe()}", seen.started()
    fresh = {f.rule.id: {"status": f.finding.status, "reason": f.finding.reason, "summary": f.finding.summary[:SUMMARY_KEPT]}
             for f in seen.findings if f.na != NOT_CHECKED or _settled(f, seen)}
    known.update(fresh)
    _save(path, sdk, known)
    return known, "", seen.started()


TRANSIENT = ("no verdict:", "not run:")
"""How a not-checked finding begins when the probe was stopped or never started (the clock, not the server)."""


def _settled(found: RuleFinding, seen: AuditResult) -> bool:
    """Whether a not-checked verdict of the minimal server is its own and will be the same next time, so it is kept
    in the cache (else every audit of a server failing that rule audits the minimal server again, for nothing: a
    not-checked verdict is never a shared FAIL). Not kept: a probe stopped or not run, and anything under
    ``--no-tool-calls``, which the cache's name does not carry."""
    return seen.options.tool_calls and not found.finding.summary.startswith(TRANSIENT)


# -- deviations the rules themselves allow ------------------------------------------------------------------------

def _sdk_reader_kept(result: AuditResult, sdk: Sdk) -> str:
    return (f"TRN-002's When to deviate: a server built on an official SDK may keep the SDK's stdio reader and leave "
            f"the limit to the host that starts it ({sdk.describe()} reads whole lines)")


def _quick_read_only(result: AuditResult, sdk: Sdk) -> str:
    facts = result.facts
    tools = facts.tools if facts.tools_listed else []
    read_only = tools and all(isinstance(t.get("annotations"), dict) and t["annotations"].get("readOnlyHint") is True
                              for t in tools)
    eof = next((f for f in result.findings if f.rule.id == "OPS-002"), None)
    if not read_only or eof is None or eof.finding.status != "PASS":
        return ""
    own = next((f for f in result.findings if f.rule.id == "OPS-001"), None)
    if own is not None and (own.finding.reason == "no_exit" or "still running" in " ".join(own.finding.evidence)):
        return ""  # a default action ends the process; one that survives a signal kept no default
    return (f"OPS-001's When to deviate: all {len(tools)} tool(s) are annotated read-only (the server's own claim) "
            "and it exits on stdin EOF (OPS-002 passed), so it may keep the default signal actions")


DEVIATIONS: dict[str, Callable[[AuditResult, Sdk], str]] = {
    "TRN-002": _sdk_reader_kept,
    "OPS-001": _quick_read_only,
}
"""Rules whose *When to deviate* names keeping an SDK's or the runtime's default, with the check that the server is
the one it describes: the reason in words, or "" when it is not clearly so."""


# -- the comparison --------------------------------------------------------------------------------------------

NUMBER = re.compile(r"-?\d[\d,_.]*")
QUOTED = re.compile(r"'[^'\n]{0,200}'|\"[^\"\n]{0,200}\"|`[^`\n]{0,200}`")
KEPT_VALUES = frozenset({"code", "isError", "type"})
"""JSON keys whose values are the behaviour itself (an error code, an error flag, a content type), not its wording."""


def _shape(value: object, key: str = "") -> object:
    """A JSON value as what it does: keys, error codes and flags kept; ids, texts and counts reduced to their type."""
    if isinstance(value, dict):
        return {k: _shape(v, k) for k, v in sorted(value.items()) if k not in ("id", "jsonrpc")}
    if isinstance(value, list):
        return [_shape(v) for v in value[:1]]
    if key in KEPT_VALUES or isinstance(value, bool) or value is None:
        return value
    return type(value).__name__


def _render(shape: object) -> str:
    """A :func:`_shape` written out without quotes, so nothing of it is taken for a quoted text."""
    if isinstance(shape, dict):
        return "{" + ",".join(f"{k}:{_render(v)}" for k, v in shape.items()) + "}"
    if isinstance(shape, list):
        return "[" + ",".join(_render(v) for v in shape) + "]"
    return json.dumps(shape) if not isinstance(shape, str) else shape


def _plain(text: str) -> str:
    return NUMBER.sub("#", QUOTED.sub("…", text))


def behaviour(summary: str) -> str:
    """What a FAIL's summary says the server did, without what differs between two servers doing the same thing:
    ids, names, counts, descriptor numbers and quoted texts go; each JSON answer quoted keeps its keys, error codes
    and flags (:func:`_shape`). Two summaries of one reason that still differ describe different behaviour: a
    rendered result where the SDK answers an error (ERR-015: mcp-server-duckdb's own ``handle_get_prompt`` renders
    any name, while the SDK's minimal server fails with code 0)."""
    text, decoder, out, at = summary[:SUMMARY_KEPT], json.JSONDecoder(), [], 0
    while (start := text.find("{", at)) != -1:
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            out.append(_plain(text[at:start + 1]))
            at = start + 1
            continue
        out += [_plain(text[at:start]), _render(_shape(value))]
        at = end
    return " ".join("".join([*out, _plain(text[at:])]).split())


def _same_behaviour(found: RuleFinding, base: Mapping[str, str]) -> bool:
    """The minimal server failed the rule for the same reason, and by what it was seen to do."""
    return (base.get("status") == "FAIL" and base.get("reason") == found.finding.reason
            and behaviour(base.get("summary", "")) == behaviour(found.finding.summary))


def _deviated(found: RuleFinding, why: str) -> RuleFinding:
    finding = found.finding
    return replace(found, na=DOES_NOT_APPLY, finding=not_applicable(
        f"does not apply: {why}; the probe said FAIL, kept as evidence: {finding.summary}", *finding.evidence))


def attribute(corpus: Corpus, result: AuditResult, probes: Mapping | None = None, *, audit: Audit) -> AuditResult:
    """The result with each FAIL the SDK's minimal server shares, for the same reason and behaviour, marked inherited (and N/A where
    the rule's deviation covers it). Unchanged when nothing failed, the server was reached by URL, the SDK cannot
    be told, or the comparison was not asked for. ``audit`` is the engine's ``run_audit``, which calls this at its
    end: passed in, not imported, so the engine stays the one module that imports the other."""
    failures = [f for f in result.findings if f.finding.status == "FAIL" and f.rule.gate not in AUTHORED_GATES]
    if not result.options.sdk_baseline or not failures or not result.facts.answered or result.options.url:
        return result
    sdk = detect(result.command)
    if sdk is None:
        return result
    try:
        verdicts, note, spawned = baseline_verdicts(corpus, sdk, frozenset(f.rule.id for f in failures), result, probes,
                                           audit=audit)
    except OSError as exc:
        return replace(result, sdk=sdk.describe(), baseline_note=f"the minimal server on {sdk.describe()} could not be run: {exc}")
    inherited, findings = [], []
    for found in result.findings:
        base = verdicts.get(found.rule.id, {})
        shared = (found.finding.status == "FAIL" and found.rule.gate not in AUTHORED_GATES
                  and _same_behaviour(found, base))
        if not shared:
            findings.append(found)
            continue
        deviate = DEVIATIONS.get(found.rule.id)
        why = deviate(result, sdk) if deviate else ""
        inherited.append(Inherited(found.rule.id, sdk.describe(), base.get("summary", ""), found.rule.fix, why))
        findings.append(_deviated(found, why) if why else found)
    starts = (*result.starts, ("sdk baseline", spawned)) if spawned else result.starts
    return replace(result, findings=tuple(findings), sdk=sdk.describe(), inherited=tuple(inherited), baseline_note=note,
                   starts=starts)
