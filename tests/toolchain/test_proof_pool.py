"""How many proofs run at once, and the one runner that runs them (pytest, `evidence` and the audits of WRONG blocks)."""

from __future__ import annotations

import threading
import time

import pytest
from mcp_handbook.proving import pool


@pytest.mark.parametrize("cores, workers", [(None, 4), (1, 4), (2, 8), (3, 8), (16, 8)])
def test_four_proofs_per_core_at_most_eight(monkeypatch: pytest.MonkeyPatch, cores: int | None, workers: int) -> None:
    monkeypatch.setattr(pool.os, "cpu_count", lambda: cores)
    assert pool.worker_count() == workers
    assert pool.worker_count(3) == 3  # asked for: taken as asked


@pytest.mark.parametrize("cores, servers", [(None, 2), (1, 2), (2, 4), (4, 8), (16, 8)])
def test_an_audit_runs_two_servers_per_core(monkeypatch: pytest.MonkeyPatch, cores: int | None, servers: int) -> None:
    monkeypatch.setattr(pool.os, "cpu_count", lambda: cores)
    assert pool.worker_count(per_core=pool.AUDIT_SERVERS_PER_CORE) == servers


def _counting(seconds: float):
    lock, running, most = threading.Lock(), [0], [0]

    def run(job: str) -> str:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(seconds)
        with lock:
            running[0] -= 1
        return job.upper()

    return run, most


def test_prove_returns_every_result_in_order_a_few_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pool.proof_times, "load", lambda: {"b": 9.0, "a": 1.0})
    run, most = _counting(0.02)
    jobs = [chr(ord("a") + i) for i in range(12)]
    assert pool.prove(jobs, run, name=str, workers=3, keep_times=False) == [j.upper() for j in jobs]
    assert most[0] <= 3


def test_closing_drops_what_has_not_started() -> None:
    """pytest's ``-x``: the session ends, the runner closes, and no proof offered but not started runs."""
    started: list[str] = []

    def run(job: str) -> str:
        started.append(job)
        time.sleep(0.05)
        return job

    prover = pool.Prover(run, name=str, workers=1, keep_times=False)
    prover.offer(["a", "b", "c", "d"])
    assert prover.result("a") == "a"
    prover.close()
    assert len(started) <= 2 and "d" not in started  # "a", and perhaps "b" which started as "a" ended


def test_a_job_asked_for_starts_ahead_of_the_queue() -> None:
    run, _ = _counting(0.01)
    prover = pool.Prover(run, name=str, workers=1, keep_times=False)
    with prover:
        assert prover.result("z") == "Z"  # never offered: run for the caller at once
        assert "z" in prover.seconds
