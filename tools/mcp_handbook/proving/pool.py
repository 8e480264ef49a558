"""One runner for every set of proofs, and one rule for how many run at once.

pytest (each proof a test item), ``mcp-handbook evidence`` and the suite's audits of the WRONG blocks all prove a
set of blocks the same way: a :class:`Prover` starts at most :func:`worker_count` of them at once, the longest
first by the seconds each took last time (:mod:`.proof_times`), and a caller waits for the one it
needs, which goes to the head of the queue. Never more than the worker count run at once; a proof is started only
once it is offered or asked for, and whatever has not started when the prover closes is dropped, so a run stopped
early (pytest's ``-x``) starts nothing more.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from typing import Generic, TypeVar

from . import proof_times

PROOFS_PER_CORE = 4
"""Proofs run at once per core. A proof mostly waits (on its server's answers, or out a deadline a WRONG block
lets pass), so fewer leave the cores idle. On 2 cores (load about 5, one run each), 247 blocks took 55 s with
4 workers, 43 s with 6 and 45 s with 8; once a server start cost a third less CPU, 8 took 23.7 and 27.5 s
against 30.5 and 28.1 s with 6 (quiet machine, alternating runs)."""
AUDIT_SERVERS_PER_CORE = 2
"""Servers an audit runs at once per core: a server under audit may cost far more CPU than the reference server."""
MAX_WORKERS = 8

J = TypeVar("J")
R = TypeVar("R")


def worker_count(requested: int = 0, *, per_core: int = PROOFS_PER_CORE) -> int:
    """How many proofs (or audited servers) run at once: ``requested`` when positive, else ``per_core`` per core,
    at most :data:`MAX_WORKERS`."""
    if requested > 0:
        return requested
    return max(1, min(MAX_WORKERS, per_core * (os.cpu_count() or 1)))


class Prover(Generic[J, R]):
    """Proves jobs on a few threads: ``run(job)`` for each, the longest first, at most ``workers`` at once.

    ``name(job)`` names a job, uniquely: a job is offered, asked for and timed by its name (``RULE-ID.wrong1``);
    ``keep_times`` saves this run's seconds
    for the next run's order when the prover closes."""

    def __init__(self, run: Callable[[J], R], *, name: Callable[[J], str], workers: int = 0,
                 keep_times: bool = True, thread_name: str = "hb-prove") -> None:
        self._run, self._name, self._keep = run, name, keep_times
        self._workers = worker_count(workers)
        self._thread_name = thread_name
        self._lock = threading.Lock()
        self._queue: list[J] = []
        self._futures: dict[str, Future[R]] = {}
        """Each job offered or asked for, by name."""
        self._running = 0
        self._closed = False
        self._before = proof_times.load()
        self.seconds: dict[str, float] = {}
        """How long each finished job took, by name."""

    def offer(self, jobs: Iterable[J]) -> None:
        """Queue ``jobs`` (those not queued yet), longest first, and start as many as there is room for."""
        with self._lock:
            new = [job for job in jobs if self._name(job) not in self._futures]
            for job in new:
                self._futures[self._name(job)] = Future()
            self._queue = proof_times.longest_first([*self._queue, *new], self._before, name=self._name)
        self._fill()

    def result(self, job: J, timeout: float | None = None) -> R:
        """The job's result: moved to the head of the queue if it has not started (offered or not), then waited for."""
        with self._lock:
            name = self._name(job)
            future = self._futures.setdefault(name, Future())
            if not (future.running() or future.done()):
                self._queue = [job, *(queued for queued in self._queue if self._name(queued) != name)]
        self._fill()
        return future.result(timeout)

    def close(self) -> None:
        """Drop what has not started, wait for what has, and keep the seconds for the next run's order."""
        with self._lock:
            self._closed = True
            dropped, self._queue = self._queue, []
        for job in dropped:
            self._futures[self._name(job)].cancel()
        for future in list(self._futures.values()):
            if future.running():
                future.exception()  # waits; a failure is its caller's to report
        if self._keep:
            proof_times.save(self.seconds)

    def __enter__(self) -> Prover[J, R]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _fill(self) -> None:
        while True:
            with self._lock:
                if self._closed or not self._queue or self._running >= self._workers:
                    return
                job = self._queue.pop(0)
                future = self._futures[self._name(job)]
                future.set_running_or_notify_cancel()
                self._running += 1
            self._start(job, future)

    def _start(self, job: J, future: Future[R]) -> None:
        def work() -> None:
            began = time.monotonic()
            try:
                future.set_result(self._run(job))
            except BaseException as exc:  # noqa: BLE001 - handed to whoever waits for the job
                future.set_exception(exc)
            finally:
                self.seconds[self._name(job)] = round(time.monotonic() - began, 2)
                with self._lock:
                    self._running -= 1
                self._fill()

        threading.Thread(target=work, name=f"{self._thread_name}-{self._name(job)}", daemon=True).start()


def prove(jobs: Iterable[J], run: Callable[[J], R], *, name: Callable[[J], str], workers: int = 0,
          keep_times: bool = True) -> list[R]:
    """Every job's result, in the order of ``jobs``, run on one :class:`Prover`."""
    todo = list(jobs)
    with Prover(run, name=name, workers=workers, keep_times=keep_times) as prover:
        prover.offer(todo)
        return [prover.result(job) for job in todo]
