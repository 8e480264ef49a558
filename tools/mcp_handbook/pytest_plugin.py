"""pytest collects the doctrine: every rule file under ``content/rules`` becomes tests.

Shaped like pytest's own doctest plugin: ``pytest_collect_file`` returns a
``RuleFile`` whose ``collect()`` yields one item per runnable snippet (named
``RULE-ID:wrong1``), plus one item that fails with the file's diagnostics
when the file does not lint. Items report the markdown ``path:line``.

Proofs start real server processes, so once collection is done every
selected snippet is started on a small thread pool; each item then waits for
its own verdict. Nothing is weakened to save time: each item still runs its
own server with its own probe.

Under pytest-xdist (``-n N``, which then distributes by group unless ``--dist`` says otherwise) every proof is in
one xdist group, so one worker proves them all on its pool while the others run the rest of the suite; that
worker starts its pool when the first proof reaches it. With a ``--dist`` mode that ignores groups, each proof
is run where it lands, one at a time (correct, only slower).
"""

from __future__ import annotations

import os
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from . import evidence, load_corpus, proof_times
from .model import Corpus, Diagnostic, Rule, Snippet
from .promises.run import BlockVerdict, judge_block, runs_elsewhere
from .verify import Verdict, verify

CORPUS_KEY = pytest.StashKey[Corpus]()
POOL_KEY = pytest.StashKey[ThreadPoolExecutor]()
TIMES_KEY = pytest.StashKey[dict[str, float]]()
WORKERS_PER_CORE = 4
"""Proofs run at once per core. A proof mostly waits (on its server's answers, or out a deadline a WRONG block
lets pass), so fewer leave the cores idle. On 2 cores (load about 5, one run each), 247 blocks took 55 s with
4 workers, 43 s with 6 and 45 s with 8; once a server start cost a third less CPU, 8 took 23.7 and 27.5 s
against 30.5 and 28.1 s with 6 (quiet machine, alternating runs)."""
MAX_WORKERS = 8


def default_workers() -> int:
    """How many proofs run at once unless ``--handbook-workers`` says: four per core, at most eight."""
    return min(MAX_WORKERS, WORKERS_PER_CORE * (os.cpu_count() or 1))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("handbook_content", "folder holding the doctrine (rules under <folder>/rules)", default="content")
    group = parser.getgroup("mcp-handbook")
    group.addoption("--handbook-workers", type=int, default=0, help="servers proved at once (default: 4 per core, at most 8)")


def _corpus(config: pytest.Config) -> Corpus:
    if CORPUS_KEY not in config.stash:
        config.stash[CORPUS_KEY] = load_corpus(config.rootpath, content_dir=config.getini("handbook_content"), proving=True)
    return config.stash[CORPUS_KEY]


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    config = parent.config
    rules_dir = (config.rootpath / config.getini("handbook_content") / "rules").resolve()
    if file_path.suffix == ".md" and file_path.resolve().is_relative_to(rules_dir):
        return RuleFile.from_parent(parent, path=file_path)
    return None


class RuleFile(pytest.File):
    def collect(self) -> Any:
        corpus = _corpus(self.config)
        rel = self.path.resolve().relative_to(corpus.root).as_posix()
        problems = [d for d in corpus.diagnostics if d.location.path == rel]
        if problems:
            yield LintItem.from_parent(self, name="lint", diagnostics=problems)
        rule = next((r for r in corpus.rules if r.path == rel), None)
        if rule is None:
            return
        for block in rule.blocks:
            if not runs_elsewhere(rule, block):
                run = BlockItem.from_parent(self, name=f"{rule.id}:{block.kind}{block.index}:run", rule=rule, block=block)
                if _proofs_grouped(self.config):
                    run.add_marker(pytest.mark.xdist_group(PROOF_GROUP))
                yield run
        if rule.check != "automated":
            return
        for snippet in rule.snippets:
            if snippet.language == "python" and snippet.seam:
                item = SnippetItem.from_parent(self, name=f"{rule.id}:{snippet.kind}{snippet.index}", rule=rule, snippet=snippet)
                if _proofs_grouped(self.config):
                    item.add_marker(pytest.mark.xdist_group(PROOF_GROUP))
                if _recorded_and_current(self.config, corpus, rule, snippet):
                    item.add_marker(pytest.mark.slow)
                    item.current = True
                yield item


RECORDED_KEY = pytest.StashKey[tuple[dict[str, dict[str, Any]], dict[str, bytes]]]()


def _recorded_and_current(config: pytest.Config, corpus: Corpus, rule: Rule, snippet: Snippet) -> bool:
    """Whether ``snippets/evidence.json`` holds a passing proof of exactly this block: the same code, options, seam,
    probe source, shared probe and verdict code and reference server. Proving it again is then marked ``slow``: the
    quick loop (``-m "not slow"``) proves what a change touched, and a full run proves everything."""
    if RECORDED_KEY not in config.stash:
        config.stash[RECORDED_KEY] = (evidence.load(corpus.root), {})
    entries, sources = config.stash[RECORDED_KEY]
    entry, current = evidence.current_entry(rule, snippet, entries, sources=sources)
    return current and entry is not None and entry.get("ok") is True


class LintError(Exception):
    pass


class LintItem(pytest.Item):
    def __init__(self, *, diagnostics: list[Diagnostic], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.diagnostics = diagnostics

    def runtest(self) -> None:
        raise LintError()

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        return "\n".join(str(d) for d in self.diagnostics)

    def reportinfo(self) -> tuple[Path, int, str]:
        first = self.diagnostics[0].location.line
        return self.path, first - 1, f"lint {self.path.name}"


class SnippetFailure(Exception):
    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict)
        self.verdict = verdict


class SnippetItem(pytest.Item):
    def __init__(self, *, rule: Rule, snippet: Snippet, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rule = rule
        self.snippet = snippet
        self.future: Future[Verdict] | None = None
        self.current = False
        """Whether ``snippets/evidence.json`` records a passing proof for exactly this block (then marked ``slow``)."""

    def start(self, pool: ThreadPoolExecutor, seconds: dict[str, float]) -> None:
        def timed() -> Verdict:
            began = time.monotonic()
            verdict = verify(self.snippet, self.rule)
            seconds[self.snippet.name] = round(time.monotonic() - began, 2)
            return verdict

        self.future = pool.submit(timed)

    def runtest(self) -> None:
        if self.future is None and _proofs_grouped(self.config):
            start_proofs(self.session)  # this worker was given the proof group: all of it
        verdict = self.future.result() if self.future is not None else verify(self.snippet, self.rule)
        if not verdict.ok:
            raise SnippetFailure(verdict)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if not isinstance(excinfo.value, SnippetFailure):
            return super().repr_failure(excinfo)
        return explain(excinfo.value.verdict, self.rule)

    def reportinfo(self) -> tuple[Path, int, str]:
        s = self.snippet
        return self.path, s.location.line - 1, f"{self.rule.id} {s.kind.upper()} {s.index} (probe {self.rule.probe}, seam {s.seam})"


class BlockFailure(Exception):
    pass


class BlockItem(pytest.Item):
    """A block no probe proves: run in a process of its own (Python), against its promise when it names one, or
    checked by its language's tool; a block marked ``norun=`` is skipped with its reason."""

    def __init__(self, *, rule: Rule, block: Snippet, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rule = rule
        self.block = block
        self.future: Future[BlockVerdict] | None = None

    def start(self, pool: ThreadPoolExecutor, seconds: dict[str, float]) -> None:
        def timed() -> BlockVerdict:
            verdict = judge_block(self.rule, self.block)
            seconds[_item_name(self)] = verdict.seconds
            return verdict

        if not self.block.norun:
            self.future = pool.submit(timed)

    def runtest(self) -> None:
        if self.block.norun:
            pytest.skip(f"not runnable: {self.block.norun}")
        if self.future is None and _proofs_grouped(self.config):
            start_proofs(self.session)
        verdict = self.future.result() if self.future is not None else judge_block(self.rule, self.block)
        if not verdict.ok:
            raise BlockFailure(verdict)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if not isinstance(excinfo.value, BlockFailure):
            return super().repr_failure(excinfo)
        verdict: BlockVerdict = excinfo.value.args[0]
        b = verdict.block
        promise = f", promise {b.promise}" if b.promise else ""
        lines = [f"{b.location.path}:{b.location.line}: {self.rule.id} {b.kind.upper()} block {b.index} ({b.language}{promise})",
                 *(f"  {line}" for line in verdict.message.splitlines()[:40]), "  code:"]
        lines.extend(f"  {b.code_line + offset:>5} | {text}" for offset, text in enumerate(b.code.rstrip("\n").splitlines()))
        return "\n".join(lines)

    def reportinfo(self) -> tuple[Path, int, str]:
        b = self.block
        how = f"promise {b.promise}" if b.promise else "run" if b.language == "python" else f"{b.language} check"
        return self.path, b.location.line - 1, f"{self.rule.id} {b.kind.upper()} {b.index} ({how})"


def explain(verdict: Verdict, rule: Rule) -> str:
    """The failure message: where, what was expected, what happened, and the code with line numbers."""
    s = verdict.snippet
    head = f"{s.location.path}:{s.location.line}: {rule.id} {s.kind.upper()} block {s.index} (seam {s.seam}, probe {rule.probe})"
    lines = [head]
    if verdict.broken:
        lines.append(f"  the snippet is broken, not {s.kind}: {verdict.broken}")
        if verdict.finding is not None:
            lines.extend(f"    {e}" for e in verdict.finding.evidence[:12])
    elif verdict.finding is None:
        lines.append("  the probe did not run")
    else:
        f = verdict.finding
        lines.append(f"  expected the probe to {verdict.expected}, it said {f.status}: {f.summary}")
        lines.extend(f"    {e}" for e in f.evidence[:12])
    lines.append("  code:")
    for offset, text in enumerate(s.code.rstrip("\n").splitlines()):
        lines.append(f"  {s.code_line + offset:>5} | {text}")
    if verdict.stderr_tail:
        lines.append("  server stderr (last lines):")
        lines.extend(f"    {ln[:240]}" for ln in verdict.stderr_tail)
    return "\n".join(lines)


PROOF_GROUP = "handbook-proofs"
"""The xdist group of every proof: one worker gets them all, so one pool runs them all at once."""


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """``-n N`` without a ``--dist`` mode distributes by group (before pytest-xdist picks ``load``), so the proofs stay
    together on one worker's pool."""
    if getattr(config.option, "numprocesses", None) and getattr(config.option, "dist", "no") == "no":
        config.option.dist = "loadgroup"


def _xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _proofs_grouped(config: pytest.Config) -> bool:
    """Whether this xdist worker is given every proof at once (``--dist loadgroup``; xdist sets ``loadgroup``
    on a worker's options, whose ``dist`` reads ``no``)."""
    return _xdist_worker(config) and bool(getattr(config.option, "loadgroup", False))


def _item_name(item: pytest.Item) -> str:
    return item.snippet.name if isinstance(item, SnippetItem) else f"{item.block.name}:run"


def start_proofs(session: pytest.Session) -> None:
    """Start every selected proof on one thread pool (once per session; nothing when fewer than two)."""
    if POOL_KEY in session.config.stash:
        return
    items = [i for i in session.items if isinstance(i, (SnippetItem, BlockItem)) and i.future is None]
    if len(items) < 2:
        return
    workers = session.config.getoption("--handbook-workers") or default_workers()
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="hb-verify")
    session.config.stash[POOL_KEY] = pool
    before = proof_times.load()
    session.config.stash[TIMES_KEY] = seconds = {}
    for item in proof_times.longest_first(items, before, name=_item_name):
        item.start(pool, seconds)


def pytest_collection_finish(session: pytest.Session) -> None:
    if not _xdist_worker(session.config):
        start_proofs(session)


DESELECTED_KEY = pytest.StashKey[list[bool]]()


def pytest_deselected(items: list[pytest.Item]) -> None:
    for item in items:
        if isinstance(item, BlockItem):
            continue  # a block no probe proves has no record to be current against: left out by -k "not run" alone
        item.config.stash.setdefault(DESELECTED_KEY, []).append(isinstance(item, SnippetItem) and item.current)


def _only_current_proofs_left_out(config: pytest.Config) -> bool:
    """Whether ``-m`` (and no ``-k``) left out every item, and each was a proof recorded as current: the quick
    loop over the content alone, with nothing changed. That is a success with nothing to do, not a run
    that found no tests (pytest's exit 5)."""
    left_out = config.stash.get(DESELECTED_KEY, [])
    return (bool(left_out) and all(left_out) and bool(config.option.markexpr)
            and config.option.keyword in ("", "not run"))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and _only_current_proofs_left_out(session.config):
        session.exitstatus = pytest.ExitCode.OK
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(
                "every proof selected here is recorded as current in snippets/evidence.json: nothing to prove again "
                "(run without -m to prove them anyway)"
            )
    pool = session.config.stash.get(POOL_KEY, None)
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)
        proof_times.save(session.config.stash.get(TIMES_KEY, {}))
