"""What an audit is asked to do and what it found: plain values shared by the engine, worksheet and summary."""

from __future__ import annotations

from dataclasses import dataclass

from ..fields import SEVERITIES, in_profile
from ..model import Rule
from ..probes.support import Finding
from .preflight import ServerFacts

STATUSES = ("FAIL", "PASS", "N/A")
"""A probe's verdicts, in the order a summary shows them."""
DOES_NOT_APPLY, NOT_CHECKED = "does not apply", "not checked"
"""The two N/As, never to be blurred: the rule's condition does not hold for this server, or the
probe could not see (a not-checked rule is never reported as safe)."""


WITHHELD_EXIT = 3
"""The audit's exit code when no HIGH rule of the gate failed but some were not checked under ``--no-tool-calls``
(2 is a usage error): a CI gate fails on it unless told that a partial audit is enough."""


@dataclass(frozen=True, slots=True)
class AuditOptions:
    """How long the audit may take and what it may do to the server."""

    timeout: float = 300.0
    """Seconds for the whole audit; probes still running then are stopped, the rest are not started."""
    probe_timeout: float = 30.0
    """Seconds one probe may take (at least four answer waits)."""
    wait: float = 5.0
    """Seconds a probe waits for one answer (longer for a server that is slow to start)."""
    jobs: int = 0
    """Probes run at once; 0 means two per core, at most eight."""
    allow_tool_calls: frozenset[str] | None = frozenset()
    """Tools that are not read-only but may be called with adversarial arguments; None means every tool."""
    rules: frozenset[str] | None = None
    """Only these rule ids (None: every automated rule)."""
    roots: tuple[str, ...] = ()
    """The folders the server serves (``--root``); a relative one is resolved in the server's working directory,
    the fresh workspace each probe gets. Empty, and no ``{workspace}`` in the command: the root is unknown."""
    tool_calls: bool = True
    """False (``--no-tool-calls``): no probe calls any tool, read-only or not."""
    gate: str = "baseline"
    """The review profile whose HIGH failures set exit 1: ``spec``, ``baseline`` or ``full``."""
    url: str | None = None
    """The Streamable HTTP endpoint of a running server to audit (``--url``) instead of a command."""
    headers: tuple[tuple[str, str], ...] = ()
    """Headers sent with every HTTP request (``--header``, a bearer token, say); never written to the worksheet."""
    sdk_baseline: bool = True
    """Compare each FAIL with a minimal server built on the SDK the server uses (:mod:`.sdk_baseline`), so the SDK's
    defaults are told apart from what the author wrote; False (``--no-sdk-baseline``) skips that audit."""
    era: str = "auto"
    """The era the probes speak (``--era``): ``auto`` (the handshake when the server answers ``initialize``, else
    2026-07-28), ``handshake`` or ``2026-07-28``, to audit a dual-era server in each era in turn."""


@dataclass(frozen=True, slots=True)
class RuleFinding:
    """One automated rule and what its probe found."""

    rule: Rule
    probe: str
    finding: Finding
    seconds: float
    na: str = ""
    """For an N/A finding: :data:`DOES_NOT_APPLY` or :data:`NOT_CHECKED`."""


@dataclass(frozen=True, slots=True)
class Inherited:
    """A FAIL the server shares, for the same reason, with a minimal server built on the same SDK: the SDK's default."""

    rule_id: str
    sdk: str
    """The SDK and its version, as a person names them: ``the official Python SDK (mcp) 2.3.0``."""
    baseline: str
    """What the minimal server's probe said (its FAIL's summary)."""
    override: str = ""
    """What the author overrides to keep the rule anyway: the rule's ``fix:`` line."""
    deviation: str = ""
    """Why the rule's *When to deviate* covers keeping this default, when it clearly does: the finding is then N/A,
    *does not apply*, with the probe's FAIL kept as evidence; "" when it does not."""


@dataclass(frozen=True, slots=True)
class AuditResult:
    """Everything one audit found, in corpus order."""

    command: tuple[str, ...]
    facts: ServerFacts
    findings: tuple[RuleFinding, ...]
    canary: tuple[str, ...]
    """Where the canary secret came back (``probe: stream of server process N: excerpt``)."""
    seconds: float
    options: AuditOptions
    stopped: str = ""
    """Why the audit stopped judging the server (its stdout flooded, or carried JSON nested too deep): the rules that
    needed its stdout are N/A, not checked, with this cause; "" when nothing stopped it."""
    unread: tuple[str, ...] = ()
    """What the server wrote that could not be read at all (a line longer than the auditor reads), each once; the
    probes that met it are N/A, not checked, with that cause."""
    killed: tuple[str, ...] = ()
    """Processes the server left running outside its process group that the auditor had to kill, described."""
    sdk: str = ""
    """The SDK the server is built on, with its version, when the auditor could tell (:mod:`.sdk_baseline`)."""
    inherited: tuple[Inherited, ...] = ()
    """FAILs that are the SDK's defaults (still FAILs, for the gate too: the host gets them all the same)."""
    baseline_note: str = ""
    """Why the SDK comparison was not made or not complete, in one sentence; "" when it was (or was not asked)."""
    starts: tuple[tuple[str, int], ...] = ()
    """Server processes the audit started, by what for (``preflight``, ``shared``, a probe's name, ``sdk baseline``
    for the minimal server's own audit): on a server slow to start, where its time goes."""

    def started(self) -> int:
        """Server processes the audit started in all (none when the server was reached by URL)."""
        return sum(n for _, n in self.starts)

    def inherited_from(self, rule_id: str) -> Inherited | None:
        return next((i for i in self.inherited if i.rule_id == rule_id), None)

    def own_failures(self) -> list[RuleFinding]:
        """The failures the author owns: every FAIL that is not an SDK default, most severe first."""
        return [f for f in self.failures() if self.inherited_from(f.rule.id) is None]

    def counts(self) -> dict[str, dict[str, int]]:
        table = {sev: {s: 0 for s in STATUSES} for sev in SEVERITIES}
        for f in self.findings:
            table.setdefault(f.rule.severity, {s: 0 for s in STATUSES})[f.finding.status] += 1
        return table

    def failures(self) -> list[RuleFinding]:
        order = {sev: i for i, sev in enumerate(SEVERITIES)}
        return sorted((f for f in self.findings if f.finding.status == "FAIL"), key=lambda f: order.get(f.rule.severity, 9))

    def gating(self) -> list[RuleFinding]:
        """HIGH failures of rules in the gate's profile: what sets the exit code."""
        return [f for f in self.failures() if f.rule.severity == "high" and in_profile(f.rule.basis, self.options.gate)]

    def not_checked(self) -> list[RuleFinding]:
        return [f for f in self.findings if f.na == NOT_CHECKED]

    def withheld(self) -> list[RuleFinding]:
        """HIGH rules of the gate's profile left not checked because the audit was told to do nothing on the server's
        side (``--no-tool-calls``): nothing is known of them, so they cannot count as passed."""
        if self.options.tool_calls:
            return []
        return [f for f in self.not_checked() if f.rule.severity == "high" and in_profile(f.rule.basis, self.options.gate)]

    @property
    def exit_code(self) -> int:
        """1 when a HIGH rule of the gate's profile failed (the same gate as ``mcp-handbook report``), or when the
        server could not be audited at all (it never completed the handshake) or to the end (:attr:`stopped`); else
        :data:`WITHHELD_EXIT` when HIGH rules of the profile were :meth:`withheld`; else 0."""
        if self.gating() or not self.facts.answered or self.stopped:
            return 1
        return WITHHELD_EXIT if self.withheld() else 0
