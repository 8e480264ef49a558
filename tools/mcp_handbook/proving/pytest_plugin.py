"""pytest collects the doctrine: every rule file under ``content/rules`` becomes tests.

Shaped like pytest's own doctest plugin: ``pytest_collect_file`` returns a
``RuleFile`` whose ``collect()`` yields one item per runnable snippet (named
``RULE-ID:wrong1``), plus one item that fails with the file's diagnostics
when the file does not lint. Items report the markdown ``path:line``.

Each proof is a test item proved in its own ``runtest``, on the one runner every set of proofs uses
(:class:`~mcp_handbook.proving.pool.Prover`): proofs start real server processes and mostly wait, so when the
first proof's ``runtest`` begins, the proofs still to come in this process are offered to the runner, which
proves a few at a time (longest first) while each item waits for its own. ``-x`` stops the run and the runner
starts nothing more; ``--durations`` shows each proof's own seconds; a per-test timeout interrupts the wait of
the item it applies to. Nothing is weakened to save time: each item still runs its own server with its own probe.

Under pytest-xdist every proof is in one ``xdist_group``, and ``-n N`` without a ``--dist`` mode gets ``--dist
loadgroup`` added to its arguments (``pytest_load_initial_conftests``), so one worker gets every proof and proves
them a few at a time while the others run the rest of the suite. The controller tells each worker whether proofs
are grouped (``pytest_configure_node``); with a ``--dist`` mode that ignores groups, each worker proves the items
it is given one at a time (correct, only slower).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .. import load_corpus
from ..model import Corpus, Diagnostic, Rule, Snippet
from ..promises.run import BlockVerdict, judge_block, runs_elsewhere
from . import block_passes, evidence
from .pool import Prover
from .verify import Verdict, verify

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

CORPUS_KEY = pytest.StashKey[Corpus]()
PROVER_KEY = pytest.StashKey["Prover[ProofItem, Any]"]()
GROUPED = "mcp_handbook_proofs_grouped"
"""The key, in an xdist worker's ``workerinput``, that says whether this run sends every proof to one worker."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("handbook_content", "folder holding the doctrine (rules under <folder>/rules)", default="content")
    group = parser.getgroup("mcp-handbook")
    group.addoption("--handbook-workers", type=int, default=0,
                    help="servers proved at once (default: mcp_handbook.proving.pool.worker_count, 4 per core, at most 8)")


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
                run.add_marker(pytest.mark.xdist_group(PROOF_GROUP))
                if run.key in _block_passes(self.config):
                    run.add_marker(pytest.mark.slow)  # passed for exactly these inputs: the quick loop leaves it out
                yield run
        if rule.check != "automated":
            return
        for snippet in rule.snippets:
            if snippet.language == "python" and snippet.seam:
                item = SnippetItem.from_parent(self, name=f"{rule.id}:{snippet.kind}{snippet.index}", rule=rule, snippet=snippet)
                item.add_marker(pytest.mark.xdist_group(PROOF_GROUP))
                if _recorded_and_current(self.config, corpus, rule, snippet):
                    item.add_marker(pytest.mark.slow)
                    item.current = True
                yield item


RECORDED_KEY = pytest.StashKey[tuple[dict[str, dict[str, Any]], dict[str, str]]]()
PASSES_KEY = pytest.StashKey[set[str]]()
PASSED_NOW_KEY = pytest.StashKey[list[str]]()


def _block_passes(config: pytest.Config) -> set[str]:
    """The blocks that passed before for exactly their inputs (:mod:`.block_passes`), read once a session."""
    if PASSES_KEY not in config.stash:
        config.stash[PASSES_KEY] = block_passes.load()
    return config.stash[PASSES_KEY]


def _recorded_and_current(config: pytest.Config, corpus: Corpus, rule: Rule, snippet: Snippet) -> bool:
    """Whether ``snippets/evidence.json`` holds a passing proof of exactly this block: the same code, options, seam,
    probe, and meaning of every source file the proof runs (:func:`.evidence.dependency_fingerprint`). Proving it again is then marked ``slow``: the
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
        self.current = False
        """Whether ``snippets/evidence.json`` records a passing proof for exactly this block (then marked ``slow``)."""

    @property
    def proof_name(self) -> str:
        return self.snippet.name

    def prove(self) -> Verdict:
        return verify(self.snippet, self.rule)

    def runtest(self) -> None:
        verdict = proved(self)
        if not verdict.ok:
            raise SnippetFailure(verdict)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
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
        self.key = block_passes.block_key(rule, block)

    @property
    def proof_name(self) -> str:
        return f"{self.block.name}:run"

    def prove(self) -> BlockVerdict:
        return judge_block(self.rule, self.block)

    def runtest(self) -> None:
        if self.block.norun:
            pytest.skip(f"not runnable: {self.block.norun}")
        verdict = proved(self)
        if not verdict.ok:
            raise BlockFailure(verdict)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if not isinstance(excinfo.value, BlockFailure):
            return super().repr_failure(excinfo)
        return explain_block(excinfo.value.args[0], self.rule)

    def reportinfo(self) -> tuple[Path, int, str]:
        b = self.block
        how = f"promise {b.promise}" if b.promise else "run" if b.language == "python" else f"{b.language} check"
        return self.path, b.location.line - 1, f"{self.rule.id} {b.kind.upper()} {b.index} ({how})"


def explain_block(verdict: BlockVerdict, rule: Rule) -> str:
    """The failure message of a block no probe proves: where, what went wrong, and the code with line numbers."""
    b = verdict.block
    promise = f", promise {b.promise}" if b.promise else ""
    lines = [f"{b.location.path}:{b.location.line}: {rule.id} {b.kind.upper()} block {b.index} ({b.language}{promise})",
             *(f"  {line}" for line in verdict.message.splitlines()[:40]), "  code:"]
    lines.extend(f"  {b.code_line + offset:>5} | {text}" for offset, text in enumerate(b.code.rstrip("\n").splitlines()))
    return "\n".join(lines)


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
"""The xdist group of every proof: one worker gets them all, so one runner proves them a few at a time."""

ProofItem = SnippetItem | BlockItem


def _asks_for_workers(args: list[str]) -> bool:
    return any(a == "-n" or (a.startswith("-n") and a[2:3] not in ("", "-")) or a.startswith("--numprocesses")
               for a in args)


def _names_a_dist_mode(args: list[str]) -> bool:
    return any(a.startswith("--dist") or a == "-d" for a in args)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """``-n N`` alone distributes by group (``--dist loadgroup``), so every proof goes to one worker's runner; a
    ``--dist`` the command line or ``addopts`` names is left as it is."""
    if _asks_for_workers(args) and not _names_a_dist_mode(args):
        args[:] = [*args, "--dist", "loadgroup"]


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist's controller, for each worker: tell it whether every proof comes to one worker (``--dist
    loadgroup``), so that worker may prove the ones still to come while it waits for one."""
    node.workerinput[GROUPED] = node.config.getoption("dist", "no") == "loadgroup"


def _proofs_together(config: pytest.Config) -> bool:
    """Whether every selected proof runs in this process: always without xdist, and on a worker of a run that
    groups them."""
    workerinput = getattr(config, "workerinput", None)
    return workerinput is None or bool(workerinput.get(GROUPED, False))


def _prover(session: pytest.Session) -> Prover[ProofItem, Any]:
    """This session's runner (made by the first proof that runs), with every proof still to come in this process
    offered to it when they all run here."""
    config = session.config
    if PROVER_KEY not in config.stash:
        prover: Prover[ProofItem, Any] = Prover(lambda item: item.prove(), name=lambda item: item.proof_name,
                                                workers=config.getoption("--handbook-workers"), thread_name="hb-verify")
        config.stash[PROVER_KEY] = prover
        if _proofs_together(config):
            prover.offer(i for i in session.items if isinstance(i, (SnippetItem, BlockItem))
                         and not (isinstance(i, BlockItem) and i.block.norun))
    return config.stash[PROVER_KEY]


def proved(item: ProofItem) -> Any:
    """The item's verdict, from the session's runner (started now if it has not started yet)."""
    return _prover(item.session).result(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A proof's call reports the seconds the proof itself took (what ``--durations`` lists), not the time its
    item waited for a proof that ran while earlier items were waited for."""
    report = yield
    if call.when == "call" and report.passed and isinstance(item, BlockItem) and not item.block.norun:
        item.config.stash.setdefault(PASSED_NOW_KEY, []).append(item.key)
    prover = item.config.stash.get(PROVER_KEY, None)
    if call.when == "call" and prover is not None and isinstance(item, (SnippetItem, BlockItem)):
        report.duration = prover.seconds.get(item.proof_name, report.duration)
    return report


DESELECTED_KEY = pytest.StashKey[list[bool]]()


def pytest_deselected(items: list[pytest.Item]) -> None:
    for item in items:
        if isinstance(item, BlockItem) and item.key not in _block_passes(item.config):
            continue  # a block that never passed here has nothing to be current against: left out by -k "not run"
        current = isinstance(item, BlockItem) or (isinstance(item, SnippetItem) and item.current)
        item.config.stash.setdefault(DESELECTED_KEY, []).append(current)


def _only_current_proofs_left_out(config: pytest.Config) -> bool:
    """Whether ``-m`` (and no ``-k``) left out every item, and each was a proof recorded as current: the quick
    loop over the content alone, with nothing changed. That is a success with nothing to do, not a run
    that found no tests (pytest's exit 5)."""
    left_out = config.stash.get(DESELECTED_KEY, [])
    return (bool(left_out) and all(left_out) and bool(config.getoption("markexpr"))
            and config.getoption("keyword") in ("", "not run"))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    passed: list[str] = session.config.stash.get(PASSED_NOW_KEY, [])
    block_passes.remember(passed)
    if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and _only_current_proofs_left_out(session.config):
        session.exitstatus = pytest.ExitCode.OK
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(
                "every proof selected here is recorded as current in snippets/evidence.json, and every block passed "
                "before for the same inputs: nothing to prove again (run without -m to prove them anyway)"
            )
    prover = session.config.stash.get(PROVER_KEY, None)
    if prover is not None:
        prover.close()  # what -x or a stop left unstarted is dropped; the times are kept for the next run's order
