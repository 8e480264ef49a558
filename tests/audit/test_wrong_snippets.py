"""The auditor and the verifier agree: every WRONG snippet, mounted into the reference server, fails its rule's audit.

Each snippet is audited the way a reviewer audits a server (the same engine,
preflight and containment), for its own rule only, so the whole set stays
fast; the audits run a few at a time and each test waits for its own.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from audit_helpers import REFERENCE, serving_http
from mcp_handbook import load_corpus
from mcp_handbook.audit import AuditOptions, AuditResult, run_audit
from mcp_handbook.model import Rule, Snippet
from mcp_handbook.probes import PROBES
from mcp_handbook.proving.pool import AUDIT_SERVERS_PER_CORE, Prover, worker_count
from mcp_handbook.proving.verify import snippet_source
from mcp_handbook.proving.server_options import server_args, server_prefix

pytestmark = pytest.mark.slow  # an audit per WRONG block

ROOT = Path(__file__).resolve().parents[2]
CORPUS = load_corpus(ROOT)
OPTIONS = dict(allow_tool_calls=None, jobs=1, timeout=90.0)
"""The reference server is ours: every tool may be called, as the verifier calls them."""


def _wrong_snippets() -> list:
    drafts = {d.location.path for d in CORPUS.diagnostics}  # a rule that does not lint is the linter's business
    return [
        pytest.param(rule, snippet, id=snippet.name)
        for rule in CORPUS.rules
        if rule.check == "automated" and rule.probe in PROBES and rule.path not in drafts
        # a rule proved only in a private network namespace (its WRONG blocks listen beyond loopback) is never
        # started here: an audit by URL cannot see where a server listens (it says N/A, not checked: see
        # test_audit_http), and starting the block outside the namespace would listen on every interface
        and not server_prefix(rule)
        for snippet in rule.snippets_of("wrong")
        if snippet.language == "python" and snippet.seam
    ]


def _audit(rule: Rule, snippet: Snippet) -> AuditResult:
    with tempfile.TemporaryDirectory(prefix="hb-audit-snippet-") as tmp:
        path = Path(tmp) / f"snippet_{snippet.name.replace('-', '_').replace('.', '_')}.py"
        path.write_text(snippet_source(snippet), encoding="utf-8")
        # started as the verifier starts it for this rule (an extra tool, a legacy-only server, HTTP)
        command = [*REFERENCE, "--seam", f"{snippet.seam}={path}", *server_args(rule)]
        if "http" in rule.conditions:  # audited by URL, as a reviewer audits a running HTTP server
            argv = [arg.replace("{workspace}", tmp) for arg in command]
            with serving_http(argv, cwd=Path(tmp)) as url:
                return run_audit(CORPUS, [], options=AuditOptions(rules=frozenset({rule.id}), url=url, **OPTIONS))
        return run_audit(CORPUS, command, options=AuditOptions(rules=frozenset({rule.id}), **OPTIONS))


@pytest.fixture(scope="module")
def audits(request: pytest.FixtureRequest) -> Iterator[Prover[tuple[Rule, Snippet], AuditResult]]:
    """Offer the audit of every selected snippet to one runner; each test then waits for its own (the runner and
    worker rule every proof uses, at the rate for audited servers)."""
    selected = [(item.callspec.params["rule"], item.callspec.params["snippet"]) for item in request.session.items
                if getattr(item, "originalname", "") == "test_a_wrong_snippet_fails_its_rules_audit"]
    with Prover(lambda job: _audit(*job), name=lambda job: job[1].name, keep_times=False,
                workers=worker_count(per_core=AUDIT_SERVERS_PER_CORE)) as prover:
        prover.offer(selected)
        yield prover


@pytest.mark.parametrize(("rule", "snippet"), _wrong_snippets())
def test_a_wrong_snippet_fails_its_rules_audit(rule: Rule, snippet: Snippet, audits) -> None:
    result = audits.result((rule, snippet), timeout=180)
    [found] = [f for f in result.findings if f.rule.id == rule.id]
    assert found.finding.status == "FAIL", (
        f"{snippet.location}: {snippet.name} mounted at {snippet.seam}: the audit said {found.finding.status}, "
        f"the verifier says FAIL: {found.finding.summary}\n" + "\n".join(found.finding.evidence[:8])
    )
