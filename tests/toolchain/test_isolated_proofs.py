"""Proofs whose WRONG blocks listen beyond loopback (TRN-019) run the reference server in a private network
namespace, and are never run without one; the probe judges the addresses the server listens on."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import ClassVar

import pytest
from mcp_handbook import load_corpus
from mcp_handbook.proving import server_options as seams
from mcp_handbook.proving import evidence, verify
from mcp_handbook.model import Rule
from mcp_handbook.probes import PROBES, Target
from mcp_handbook.probes.transport.http_listen_on_loopback import is_loopback
from mcp_handbook.proving.server_options import server_args, server_prefix

RULE = "TRN-019"


def _rules(root: Path) -> dict[str, Rule]:
    return {r.id: r for r in load_corpus(root).rules}


def test_only_the_loopback_rule_is_proved_in_a_network_namespace(project_root: Path) -> None:
    rules = _rules(project_root)
    assert server_prefix(rules[RULE]) == ["unshare", "--net", "--"]
    assert server_args(rules[RULE]) == ["--http", "localhost:0"]  # the host a user would type
    assert server_prefix(rules["TRN-012"]) == [] and server_args(rules["TRN-012"]) == ["--http", "127.0.0.1:0"]
    assert server_prefix(rules["TRN-004"]) == []


class _RecordingTarget(Target):
    started: ClassVar[list[list[str]]] = []

    def start(self, **kwargs):  # type: ignore[override]
        _RecordingTarget.started.append(list(self.argv))
        return super().start(**kwargs)


def test_a_wrong_block_runs_inside_the_namespace_and_fails_for_the_rules_reason(
    project_root: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    if verify.isolation_problem(("unshare", "--net", "--")):
        pytest.skip("this machine cannot make a network namespace")
    rule = _rules(project_root)[RULE]
    monkeypatch.setattr(verify, "Target", _RecordingTarget)
    monkeypatch.setattr(verify, "_baselines", {})
    _RecordingTarget.started.clear()
    wrong = rule.snippets_of("wrong")[0]
    verdict = verify.verify(wrong, rule)
    assert verdict.ok, (verdict.broken, verdict.finding)
    assert verdict.reason == "listens_beyond_loopback"
    assert "listens on tcp 0.0.0.0:PORT" in verdict.finding.evidence
    assert _RecordingTarget.started and all(argv[:3] == ["unshare", "--net", "--"] for argv in _RecordingTarget.started)
    assert all(argv[3] == sys.executable for argv in _RecordingTarget.started)


@pytest.mark.parametrize(
    ("prefix", "words"),
    [(["false", "--"], "`false -- true` exited 1"), (["hb-no-such-unshare", "--net", "--"], "could not run")],
    ids=["refused", "missing"],
)
def test_a_proof_that_cannot_be_isolated_is_reported_broken_and_not_run(
    project_root: Path, monkeypatch: pytest.MonkeyPatch, prefix: list[str], words: str,
) -> None:
    rule = _rules(project_root)[RULE]
    monkeypatch.setattr(seams, "NETWORK_ISOLATION", prefix)

    def must_not_run(*args, **kwargs):
        raise AssertionError("a proof that needs a network namespace was run without one")

    monkeypatch.setattr(verify, "_run_probe", must_not_run)
    monkeypatch.setattr(verify, "_baselines", {})
    for snippet in rule.snippets:
        verdict = verify.verify(snippet, rule)
        assert not verdict.ok and verdict.finding is None
        assert verdict.broken.startswith("cannot isolate the network to run this proof safely: "), verdict.broken
        assert words in verdict.broken


def test_the_recorded_proofs_key_names_the_namespace(project_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rule = _rules(project_root)[RULE]
    snippet = rule.snippets[0]
    source = evidence.probe_file(rule.probe)
    isolated = evidence.evidence_key(rule, snippet, source)
    monkeypatch.setattr(seams, "NETWORK_ISOLATION", [])
    assert evidence.evidence_key(rule, snippet, source) != isolated


@pytest.mark.parametrize(
    ("address", "loopback"),
    [
        ("127.0.0.1:8000", True),
        ("127.5.6.7:8000", True),
        ("[0000:0000:0000:0000:0000:0000:0000:0001]:8000", True),  # ::1
        ("[0000:0000:0000:0000:0000:ffff:7f00:0001]:8000", True),  # ::ffff:127.0.0.1
        ("0.0.0.0:8000", False),
        ("[0000:0000:0000:0000:0000:0000:0000:0000]:8000", False),  # ::
        ("192.168.1.20:8000", False),
        ("[0000:0000:0000:0000:0000:ffff:0a00:0005]:8000", False),  # ::ffff:10.0.0.5
    ],
)
def test_listening_addresses_are_judged_loopback_or_not(address: str, loopback: bool) -> None:
    assert is_loopback(address) is loopback


def test_over_stdio_the_rule_does_not_apply(tmp_path: Path) -> None:
    target = Target(argv=[sys.executable, "-c", "pass"], workspace=tmp_path, env={}, canary="c", transport="stdio")
    finding = PROBES["http_listen_on_loopback"].run(target)
    assert finding.status == "N/A" and finding.summary.startswith("does not apply:")
    assert target.sessions == []
