"""A shard's workers: bounded in number, each server's result written whatever its worker did (hung, crashed),
and a hung worker stopped by its own process group."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from handbook_testing import ROOT
from mcp_handbook import load_corpus
from mcp_handbook.fleet import result
from mcp_handbook.fleet.entry import Entry
from mcp_handbook.fleet.run import run_shard, worker_limit

FAKE_WORKER = r'''
import json, os, sys, time
folder = sys.argv[sys.argv.index("-o") + 1]
entry = json.load(sys.stdin)
mode = entry["name"].split("-")[0]
log = os.environ["FAKE_LOG"]
with open(log, "a") as f:
    f.write(f"start {time.monotonic()} {os.getpid()}\n")
if mode == "hang":
    with open(log + ".pids", "a") as f:
        f.write(f"{os.getpid()}\n")
    time.sleep(600)
if mode == "crash":
    print("worker: the sandbox exploded", file=sys.stderr)
    sys.exit(1)
time.sleep(0.6)
data = {"format": "mcp-handbook-fleet-result", "format_version": 1, "key": entry["key"], "entry": entry,
        "doctrine_version": "x", "tool_version": "x", "commit": "x", "sandbox": "none", "state": "audited",
        "why": "", "server_name": "s", "server_version": "1", "sdk": "", "exit_code": 0, "seconds": 0.6,
        "killed": [], "rules": [{"id": "TRN-001", "gate": "transport", "severity": "high", "status": "PASS",
                                 "na": "", "inherited": False, "summary": ""}]}
open(os.path.join(folder, entry["key"] + ".json"), "w").write(json.dumps(data))
with open(log, "a") as f:
    f.write(f"end {time.monotonic()} {os.getpid()}\n")
'''


def entry(name: str) -> Entry:
    return Entry(name=name, version="1", how="command", package=f"command:{name}", source="t.json", command=("x",))


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(ROOT)


def fake_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], Path]:
    script = tmp_path / "fake_worker.py"
    script.write_text(FAKE_WORKER)
    log = tmp_path / "log.txt"
    monkeypatch.setenv("FAKE_LOG", str(log))
    return [sys.executable, str(script)], log


@pytest.mark.slow
def test_no_more_workers_than_asked_run_at_once(corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    argv, log = fake_worker(tmp_path, monkeypatch)
    servers = [entry(f"ok-{n}") for n in range(5)]
    written = run_shard(corpus, servers, tmp_path / "results", workers=2, worker_argv=argv, limit=60, say=lambda _: None)
    assert sorted(p.name for p in written) == sorted(f"{e.key}.json" for e in servers)
    running, most = 0, 0
    events = sorted((float(t), kind) for kind, t, _ in (line.split() for line in log.read_text().splitlines()))
    for _, kind in events:
        running += 1 if kind == "start" else -1
        most = max(most, running)
    assert most == 2


@pytest.mark.slow
def test_a_hung_or_crashed_worker_still_gives_a_result(corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    argv, log = fake_worker(tmp_path, monkeypatch)
    folder = tmp_path / "results"
    folder.mkdir()
    hung, crashed, fine = entry("hang-1"), entry("crash-1"), entry("ok-1")
    (folder / f"{crashed.key}.json").write_text("{}")  # an older run's file must not pass for this run's
    began = time.monotonic()
    lines: list[str] = []
    run_shard(corpus, [hung, crashed, fine], folder, workers=3, worker_argv=argv, limit=2, say=lines.append)
    assert time.monotonic() - began < 30
    got = {e.key: result.read(folder / f"{e.key}.json") for e in (hung, crashed, fine)}
    assert got[hung.key]["state"] == "auditor failed"
    assert "longer than 2 s" in got[hung.key]["why"]
    assert got[crashed.key]["state"] == "auditor failed"
    assert got[crashed.key]["why"] == "worker: the sandbox exploded"
    assert got[fine.key]["state"] == "audited"
    assert len(lines) == 3 and all(line.startswith("[") for line in lines)
    for pid in map(int, Path(f"{log}.pids").read_text().split()):
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # the hung worker was stopped, not left behind


def test_worker_counts_out_of_range_are_refused() -> None:
    assert worker_limit(2) == 2
    for bad in (0, -1, 17):
        with pytest.raises(ValueError, match=f"--workers {bad}"):
            worker_limit(bad)


def test_a_result_file_is_checked_and_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "mcp-handbook-fleet-result", "format_version": 1}))
    with pytest.raises(result.ResultError, match=r"bad\.json: malformed result"):
        result.read(bad)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"format": "mcp-handbook-worksheet"}))
    with pytest.raises(result.ResultError, match=r"other\.json: not a fleet result"):
        result.read(other)
