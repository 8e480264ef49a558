"""The verifier tells a wrong snippet from a broken one."""

from __future__ import annotations

import ast
import dataclasses
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from mcp_handbook import load_corpus
from mcp_handbook.proving import verify as verify_module
from mcp_handbook.model import Location, Snippet
from mcp_handbook.probes.support import Finding
from mcp_handbook.probes import PROBES
from mcp_handbook.proving.verify import verify


def _tool_snippet(project_root: Path):
    corpus = load_corpus(project_root)
    for rule in corpus.rules:
        for snippet in rule.snippets:
            # a probe that calls tools runs the handler (a static probe only reads tools/list)
            if rule.check == "automated" and PROBES[rule.probe].calls_tools and snippet.seam == "tool" \
                    and snippet.kind == "correct" and "def handle(arguments, ctx):" in snippet.code:
                return rule, snippet
    raise AssertionError("no CORRECT block mounted at seam=tool with a plain handle()")


def test_a_tool_block_whose_handler_hits_a_name_error_is_broken_not_passing(project_root: Path) -> None:
    rule, snippet = _tool_snippet(project_root)
    broken_code = snippet.code.replace("def handle(arguments, ctx):", "def handle(arguments, ctx):\n    undefined_name_hb", 1)
    verdict = verify(dataclasses.replace(snippet, code=broken_code), rule)
    assert not verdict.ok
    assert "NameError" in verdict.broken, (verdict.broken, verdict.finding)


def test_the_same_tool_block_unchanged_passes(project_root: Path) -> None:
    rule, snippet = _tool_snippet(project_root)
    verdict = verify(snippet, rule)
    assert verdict.ok, (verdict.broken, verdict.finding)


def test_a_block_the_probe_never_reaches_is_broken_not_proved(project_root: Path) -> None:
    """A verdict about code the server never ran is about the server: the block is broken, whatever the probe said."""
    corpus = load_corpus(project_root)
    rule = next(r for r in corpus.rules if r.probe == "stdout_jsonrpc_only")
    correct = next(s for s in rule.snippets if s.kind == "correct")
    unreached = dataclasses.replace(
        correct, seam="child_env",
        code="from reference_server.safety import child_env as _served\n\n\n"
             "def child_env(*args, **kwargs):\n    return _served(*args, **kwargs)\n",
    )
    reached = verify(unreached, dataclasses.replace(rule, probe="child_env_allowlist"))
    assert reached.ok, (reached.broken, reached.finding)  # the same block where a probe does call it: proved
    verdict = verify(unreached, rule)
    assert not verdict.ok
    assert "never ran this block's code" in verdict.broken, (verdict.broken, verdict.finding)


def test_a_legacy_era_rule_is_proved_against_a_legacy_only_server(project_root: Path) -> None:
    """TRN-007's CORRECT block answers server/discover with -32601. The dual-era reference server answers
    server/discover itself, so the block's branch would never run; a legacy-era rule is proved against
    ``--legacy-only``, and silencing that branch must then make the CORRECT block fail."""
    corpus = load_corpus(project_root)
    rule = corpus.rule("TRN-007")
    assert rule is not None
    assert "legacy-era" in rule.conditions
    correct = next(s for s in rule.snippets if s.kind == "correct")
    branch = '        hint = f" ({LEGACY_HINT})" if method == "server/discover" else ""\n'
    assert branch in correct.code
    silent = ('        if method == "server/discover":  # say nothing, as the WRONG block does\n'
              '            from reference_server.calls import DEFERRED\n'
              '            return {"jsonrpc": "2.0", "id": message["id"], "result": DEFERRED}\n')
    silenced = correct.code.replace(branch, silent + branch)
    assert verify(correct, rule).ok
    verdict = verify(dataclasses.replace(correct, code=silenced), rule)
    assert not verdict.ok and verdict.finding is not None and verdict.finding.status == "FAIL", (verdict.broken, verdict.finding)


def _passing_run(name: str, status: str = "PASS") -> verify_module._Run:
    return verify_module._Run(Finding(status, name), (), (0,), True)


def test_a_control_that_fails_under_load_is_run_once_more_with_a_longer_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three OPS-001 proofs once failed together in a full run with a core kept busy: their shared control had not
    passed, the reference server slower to start than the wait. The control's verdict is the second run's, with
    three times the wait; a control that fails both times is still reported."""
    waits: list[float] = []

    def slow_then_fine(probe_name, seam_args, *, timeout, smoke_tool=None, prefix=()):
        waits.append(timeout)
        return _passing_run(probe_name, "PASS" if timeout > 5.0 or probe_name == "hb-fine" else "FAIL")

    monkeypatch.setattr(verify_module, "_run_probe", slow_then_fine)
    monkeypatch.setattr(verify_module, "_baselines", {})
    assert verify_module.baseline("hb-loaded", timeout=5.0).finding.status == "PASS"
    assert waits == [5.0, 5.0 * verify_module.LOADED_WAIT]
    waits.clear()
    assert verify_module.baseline("hb-fine", timeout=5.0).finding.status == "PASS" and waits == [5.0]

    monkeypatch.setattr(verify_module, "_run_probe", lambda name, args, **kw: waits.append(kw["timeout"]) or
                        _passing_run(name, "FAIL"))
    waits.clear()
    assert verify_module.baseline("hb-broken", timeout=5.0).finding.status == "FAIL" and len(waits) == 2


def test_controls_of_different_probes_run_at_once_and_each_runs_once(monkeypatch) -> None:
    """The control run is cached per probe and server arguments. Two threads that need the controls of two
    different probes run them side by side (a barrier both must reach), and two threads that need the same
    control share one run."""
    import threading

    from mcp_handbook.proving import verify as verifier

    both_running = threading.Barrier(2, timeout=3)
    runs: list[str] = []

    def fake_run(probe_name, seam_args, *, timeout, smoke_tool=None, prefix=()):
        runs.append(probe_name)
        if probe_name.startswith("hb-test-parallel"):
            both_running.wait()  # raises BrokenBarrierError when the other control cannot start meanwhile
        return _passing_run(probe_name)

    monkeypatch.setattr(verifier, "_run_probe", fake_run)
    monkeypatch.setattr(verifier, "_baselines", {})
    got: dict[str, object] = {}

    def control(name: str, slot: str) -> None:
        try:
            got[slot] = verifier.baseline(name)
        except threading.BrokenBarrierError as exc:
            got[slot] = exc

    threads = [threading.Thread(target=control, args=("hb-test-parallel-a", "a")),
               threading.Thread(target=control, args=("hb-test-parallel-b", "b"))]
    threads += [threading.Thread(target=control, args=("hb-test-shared", f"shared{i}")) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert got["a"] == _passing_run("hb-test-parallel-a") and got["b"] == _passing_run("hb-test-parallel-b"), got
    assert [got[f"shared{i}"] for i in range(4)] == [_passing_run("hb-test-shared")] * 4
    assert sorted(runs) == ["hb-test-parallel-a", "hb-test-parallel-b", "hb-test-shared"]


def test_proofs_on_a_thread_pool_never_parse_python_at_the_same_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """CPython 3.11 fails two parses that overlap in time, now and then (python/cpython#106905): the verifier's
    parse of a tool block takes a lock. The stand-in parse holds the GIL-free window open, so without the lock
    eight threads overlap every time."""
    inside, most, guard = [0], [0], threading.Lock()
    real_parse = ast.parse

    def slow_parse(source: str, *args: object, **kwargs: object) -> ast.Module:
        with guard:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.01)
        try:
            return real_parse(source, *args, **kwargs)
        finally:
            with guard:
                inside[0] -= 1

    monkeypatch.setattr(verify_module.ast, "parse", slow_parse)
    block = Snippet(rule_id="TOOL-000", kind="correct", index=1, language="python", code='TOOL = {"name": "echo"}\n',
                    location=Location("content/rules/x.md", 1), code_line=2, seam="tool")
    with ThreadPoolExecutor(8) as pool:
        names = list(pool.map(lambda _: verify_module.tool_name(block), range(32)))
    assert names == ["echo"] * 32
    assert most[0] == 1, f"{most[0]} parses ran at once"


def test_a_correct_block_is_run_again_with_a_longer_wait_and_a_wrong_block_is_not(project_root: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A CORRECT block whose first run does not pass gets a second run with LOADED_WAIT times the wait; its verdict
    is the second run's. A WRONG block's FAIL is never run again (load cannot make a WRONG block keep its rule)."""
    rule, correct = _tool_snippet(project_root)
    wrong = next(s for s in rule.snippets if s.kind == "wrong")
    seam_waits: list[float] = []

    def fake_run(probe_name, seam_args, *, timeout, smoke_tool=None, prefix=()):
        if "--seam" not in seam_args:
            return _passing_run(probe_name)  # the control
        seam_waits.append(timeout)
        status = "PASS" if timeout > 5.0 else "FAIL"
        return dataclasses.replace(_passing_run(probe_name, status), seams_called=frozenset({correct.seam, wrong.seam}))

    monkeypatch.setattr(verify_module, "_run_probe", fake_run)
    monkeypatch.setattr(verify_module, "_baselines", {})
    monkeypatch.setattr(verify_module, "isolation_problem", lambda prefix: "")
    verdict = verify(correct, rule, timeout=5.0)
    assert verdict.ok and seam_waits == [5.0, 5.0 * verify_module.LOADED_WAIT], (verdict.broken, seam_waits)
    seam_waits.clear()
    verify(wrong, rule, timeout=5.0)
    assert seam_waits == [5.0]
