"""How much CPU the handbook's strict site build takes, against a plain mkdocs build of the same pages.

    python benchmarks/bench_site.py [--runs N] [--rules N] [--root DIR] [--cli N] [--instructions]

The bar (issue 18): the strict build takes at most 1.5x the CPU time of a
plain mkdocs build of the same pages with highlighted code.

"handbook" is what `mcp-handbook build` does: a strict mkdocs build with the
macros pluglet and the mcp-handbook plugin (the corpus parsed once, rule pages rendered with
labelled blocks and proofs, gate, tag and threat pages generated, the
worksheet page), plus the downloads. It is measured twice: with warm caches
(the parsed corpus and the highlighted code blocks from an earlier build, the
usual case) and with cold caches (an empty cache folder each time, as on a
fresh machine). The "floor" is mkdocs with the same theme, search and tags
plugins but neither macros nor the handbook's plugin, over a copy of the pages whose
WRONG/CORRECT fences are ordinary code fences and whose generated pages are
written out as files: the same pages, highlighted, with nothing of the
handbook's own.

This machine is shared and noisy, so the measure is built to survive it:
every build runs in this one process into a fresh temporary folder; one build
of each kind is a discarded warm-up; then each round runs one build of each
kind back to back (the order rotates from round to round) and gives one ratio
per kind, handbook CPU over floor CPU of the same round. A busy moment then
hits both sides of a ratio alike. The median of those per-round ratios is
the figure; its quartiles and range show how far noise moved it. CPU is
process time plus that of the children the build waited for (its git
calls), never wall time. Hardware instruction counts would be steadier, but
`perf stat -e instructions` is "not supported" on this virtual machine.

``--instructions`` settles what noise leaves open: it counts the instructions of
one build of each kind under valgrind's cachegrind, which reads the same on a
busy machine as on an idle one, at about 20 times the time. Each kind runs in
two processes of its own, one with a warm-up build and one with the warm-up and
the counted build; the difference is the build.

``--rules N`` measures a doctrine of another size: a copy of the handbook whose
rules are repeated under new ids up to N, or, below today's count, whose last
rules (those no other page links to or lists as related) are left out. The copy
is not a git checkout, so its build has no change history to read.
``--cli N`` adds N cold `mcp-handbook build` runs in new processes, for the
end-to-end figure with imports.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from mcp_handbook.model import Corpus
from mcp_handbook.site.generated import generated_pages

ROOT = Path(__file__).resolve().parents[1]
BAR = 1.5
"""The issue's bar: handbook CPU at most this many times the floor's."""


def handbook_build(root: Path, site_dir: Path) -> None:
    from mcp_handbook.cli import build_site

    build_site(root, site_dir)


def plain_build(root: Path, site_dir: Path) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    config = load_config(
        str(root / "mkdocs.yml"), site_dir=str(site_dir), strict=False, plugins=["search", "tags"], hooks=[],
    )
    build(config)


def scaled_copy(dest: Path, rules: int, root: Path = ROOT) -> Path:
    """A copy of the handbook with ``rules`` rules: repeated under new ids, or trimmed (see :func:`trim_rules`)."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("mkdocs.yml", "content", "snippets", "site_overrides"):
        (shutil.copytree if (root / name).is_dir() else shutil.copy)(root / name, dest / name)
    originals = sorted((dest / "content" / "rules").rglob("*.md"))
    originals = [p for p in originals if p.name != "index.md"]
    if rules < len(originals):
        trim_rules(dest, len(originals) - rules)
        return dest
    for n in range(rules - len(originals)):
        src = originals[n % len(originals)]
        text = re.sub(r"^id: .*$", f"id: BEN-{n + 1:03d}", src.read_text(encoding="utf-8"), count=1, flags=re.M)
        text = re.sub(r"^title: (.*)$", lambda m, n=n: f"title: {retitled(m.group(1), n + 1)}", text, count=1, flags=re.M)
        src.with_name(f"{src.stem}-copy{n + 1}.md").write_text(text, encoding="utf-8")
    return dest


def retitled(value: str, n: int) -> str:
    """A YAML title value with " (copy N)" added inside its quotes, when it is quoted."""
    quoted = re.fullmatch(r"""(["'])(.*)\1\s*""", value)
    return f"{quoted.group(1)}{quoted.group(2)} (copy {n}){quoted.group(1)}" if quoted else f"{value} (copy {n})"


def trim_rules(root: Path, count: int) -> None:
    """Delete the last ``count`` rules (checklist order; never one that handbook.yml names) of the copy at ``root``,
    and what pointed at them: their ids
    in other rules' ``related:`` lists, and links to their pages (the link text stays), so the copy still lints."""
    from mcp_handbook import load_corpus

    declared = (root / "content" / "handbook.yml").read_text(encoding="utf-8")  # a retired id's replacement stays
    kept_for_yml = [rule for rule in load_corpus(root).rules if rule.id not in declared]
    if count > len(kept_for_yml):
        raise SystemExit(f"bench_site: at most {len(kept_for_yml)} rules can be left out of this copy")
    gone = kept_for_yml[len(kept_for_yml) - count:]
    ids = {rule.id for rule in gone}
    names = "|".join(re.escape((root / rule.path).name) for rule in gone)
    link = re.compile(rf"\[([^\]]*)\]\((?:[^)\s]*/)?(?:{names})(?:#[^)\s]*)?\)")
    for rule in gone:
        (root / rule.path).unlink()
    for page in (root / "content").rglob("*.md"):
        text = page.read_text(encoding="utf-8")
        kept = re.sub(
            r"^related: \[(.*)\]$",
            lambda m: "related: [" + ", ".join(i for i in (x.strip() for x in m.group(1).split(",")) if i and i not in ids) + "]",
            text, count=1, flags=re.M,
        )
        kept = link.sub(r"\1", kept)
        if kept != text:
            page.write_text(kept, encoding="utf-8")


FENCE_INFO = re.compile(r"^(\s*(?:`{3,}|~{3,})\w+)\s+(?:wrong|correct)\b.*$", re.M)


def fences_as_code(root: Path, dest: Path, corpus: Corpus) -> Path:
    """A copy of ``root`` whose WRONG/CORRECT fences are ordinary code fences, with the pages the
    handbook generates (gate, tag and threat pages) written out as files, so the plain build has the same pages."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("mkdocs.yml", "content", "site_overrides"):
        (shutil.copytree if (root / name).is_dir() else shutil.copy)(root / name, dest / name)
    for path in (dest / "content" / "rules").rglob("*.md"):
        path.write_text(FENCE_INFO.sub(r"\1", path.read_text(encoding="utf-8")), encoding="utf-8")
    for src, markdown in generated_pages(corpus).items():
        page = dest / "content" / src
        if not page.exists():
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(markdown, encoding="utf-8")
    return dest


def cpu_seconds() -> float:
    """CPU time of this process and of the children it has waited for (a build's git calls)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


@dataclass(frozen=True)
class Kind:
    """One kind of build: what runs, over which root, with which cache folder (None: keep the environment's)."""

    label: str
    build: Callable[[Path, Path], None]
    root: Path
    cache_home: Callable[[], Path] | None = None


def timed(kind: Kind) -> tuple[float, float]:
    """Wall and CPU seconds of one build of ``kind`` into a fresh temporary folder."""
    with tempfile.TemporaryDirectory(prefix="hb-bench-site-") as tmp:
        saved = os.environ.get("XDG_CACHE_HOME")
        if kind.cache_home is not None:
            os.environ["XDG_CACHE_HOME"] = str(kind.cache_home())
        try:
            gc.collect()  # garbage of the last build is not charged to this one
            start, start_cpu = time.perf_counter(), cpu_seconds()
            kind.build(kind.root, Path(tmp) / "site")
            return time.perf_counter() - start, cpu_seconds() - start_cpu
        finally:
            if saved is None:
                os.environ.pop("XDG_CACHE_HOME", None)
            else:
                os.environ["XDG_CACHE_HOME"] = saved


def rounds(kinds: Sequence[Kind], runs: int, *, run: Callable[[Kind], tuple[float, float]] = timed) -> list[list[tuple[float, float]]]:
    """One discarded warm-up build of each kind, then ``runs`` rounds of one build of each kind; the order
    rotates each round so no kind always runs right after the same other. Result: per round, per kind
    (in ``kinds`` order), (wall, cpu)."""
    for kind in kinds:
        run(kind)
    results = []
    for n in range(runs):
        order = [(n + i) % len(kinds) for i in range(len(kinds))]
        measured = {i: run(kinds[i]) for i in order}
        results.append([measured[i] for i in range(len(kinds))])
    return results


@dataclass(frozen=True)
class Spread:
    """The median of some values with their quartiles and range."""

    median: float
    low_quartile: float
    high_quartile: float
    low: float
    high: float


def spread(values: Sequence[float]) -> Spread:
    if not values:
        raise ValueError("no values to summarise")
    quartiles = statistics.quantiles(values, n=4, method="inclusive") if len(values) > 1 else [values[0]] * 3
    return Spread(statistics.median(values), quartiles[0], quartiles[2], min(values), max(values))


def pair_ratios(results: Sequence[Sequence[tuple[float, float]]], kind: int, floor: int) -> list[float]:
    """Per round, the CPU of ``kind`` over the CPU of ``floor`` in that same round."""
    return [r[kind][1] / r[floor][1] for r in results]


def cold_cli_build(root: Path) -> tuple[float, float]:
    """Wall and CPU seconds of `mcp-handbook build` in a new process with an empty cache folder."""
    with tempfile.TemporaryDirectory(prefix="hb-bench-cli-") as tmp:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "mcp_handbook.cli", "--root", str(root), "build", "--site-dir", str(Path(tmp) / "site")],
            check=True, capture_output=True, timeout=300, env={**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "cache")},
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.perf_counter() - start, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def report(kinds: Sequence[Kind], results: Sequence[Sequence[tuple[float, float]]], floor: int) -> list[str]:
    """The lines printed: each kind's CPU and wall per build, then each handbook kind's per-round ratio."""
    width = max(len(k.label) for k in kinds)
    lines = ["CPU seconds per build (process and children), median [min to max]; wall median:"]
    for i, kind in enumerate(kinds):
        cpu = spread([r[i][1] for r in results])
        wall = statistics.median(r[i][0] for r in results)
        lines.append(f"  {kind.label:<{width}}  cpu {cpu.median:6.2f} s [{cpu.low:.2f} to {cpu.high:.2f}]   wall {wall:6.2f} s")
    lines.append(f"handbook CPU / floor CPU of the same round: median, quartiles, range (bar: at most {BAR}x):")
    for i, kind in enumerate(kinds):
        if i == floor:
            continue
        s = spread(pair_ratios(results, i, floor))
        verdict = "meets the bar" if s.median <= BAR else "over the bar"
        lines.append(
            f"  {kind.label:<{width}}  {s.median:.2f}x   quartiles {s.low_quartile:.2f}x to {s.high_quartile:.2f}x   "
            f"range {s.low:.2f}x to {s.high:.2f}x   {verdict}"
        )
    return lines


def make_kinds(work: Path, root: Path, coded_root: Path) -> list[Kind]:
    """The floor first, then the handbook build with warm caches (one folder kept from build to build) and with
    cold caches (a new empty folder for each build)."""
    (work / "warm-cache").mkdir(exist_ok=True)
    cold_count = iter(range(10**6))
    return [
        Kind("floor: plain mkdocs, same pages, code highlighted", plain_build, coded_root),
        Kind("handbook build, warm caches", handbook_build, root, lambda: work / "warm-cache"),
        Kind("handbook build, cold caches", handbook_build, root, lambda: work / f"cold-cache-{os.getpid()}-{next(cold_count)}"),
    ]


VALGRIND = ("valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null")
"""Counts the instructions a process runs, the same on a busy machine as on an idle one (about 20x slower)."""
REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def one_kind(work: Path, root: Path, coded_root: Path, kind: int, builds: int) -> None:
    """What each process of ``--instructions`` runs: a discarded warm-up build of one kind, then ``builds`` more."""
    chosen = make_kinds(work, root, coded_root)[kind]
    for _ in range(1 + builds):
        timed(chosen)


def instructions(work: Path, root: Path, coded_root: Path, count: int) -> list[int]:
    """Instructions of one build of each kind: a process that runs the warm-up and one build, less one that runs
    the warm-up alone (the imports, the setup and the first build's one-time costs cancel). One process runs at
    once per core; each kind's pair gives one figure. Child processes (the build's git calls) are not counted."""
    python = os.path.realpath(sys.executable)  # the interpreter itself, not a launcher script valgrind would trace
    timed(make_kinds(work, root, coded_root)[1])  # fill the warm caches first: both warm processes then find them full

    def refs(kind: int, builds: int) -> int:
        argv = [*VALGRIND, python, str(Path(__file__).resolve()), "--one-kind", str(kind), "--builds", str(builds),
                "--work", str(work), "--root", str(root), "--coded-root", str(coded_root)]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=3600, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
        found = REFS.search(done.stderr)
        if done.returncode != 0 or found is None:
            raise SystemExit(f"bench_site: the counted build of kind {kind} failed (exit {done.returncode}):\n"
                             f"{done.stderr[-2000:]}")
        return int(found.group(1).replace(",", ""))

    jobs = [(kind, builds) for kind in range(count) for builds in (0, 1)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        counted = dict(zip(jobs, pool.map(lambda job: refs(*job), jobs)))
    return [counted[(kind, 1)] - counted[(kind, 0)] for kind in range(count)]


def report_instructions(kinds: Sequence[Kind], counts: Sequence[int]) -> list[str]:
    width = max(len(k.label) for k in kinds)
    lines = ["instructions per build (cachegrind; the build's own process, not its git calls):"]
    lines += [f"  {kind.label:<{width}}  {n / 1e9:7.2f} billion" for kind, n in zip(kinds, counts)]
    lines.append(f"handbook instructions / floor instructions (bar: at most {BAR}x):")
    for kind, n in list(zip(kinds, counts))[1:]:
        ratio = n / counts[0]
        lines.append(f"  {kind.label:<{width}}  {ratio:.2f}x   {'meets the bar' if ratio <= BAR else 'over the bar'}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=10, help="measured rounds, one build of each kind per round (default 10)")
    ap.add_argument("--rules", type=int, default=0, help="measure a copy with this many rules (repeated or trimmed)")
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    ap.add_argument("--cli", type=int, default=0, help="also time this many cold `mcp-handbook build` processes")
    ap.add_argument("--instructions", action="store_true",
                    help="count each kind's instructions under valgrind instead of timing rounds "
                         "(slow, but the same under load)")
    ap.add_argument("--one-kind", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--builds", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--coded-root", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.runs < 1 or args.rules < 0 or args.cli < 0:
        ap.error("--runs must be at least 1; --rules and --cli at least 0")
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    logging.getLogger("mkdocs").setLevel(logging.ERROR)  # the floor warns about the unrendered macro pages
    if args.one_kind is not None:
        one_kind(args.work, args.root, args.coded_root, args.one_kind, args.builds)
        return 0
    if args.instructions and shutil.which(VALGRIND[0]) is None:
        ap.error("--instructions needs valgrind (apt-get install valgrind)")

    from mcp_handbook import load_corpus

    with tempfile.TemporaryDirectory(prefix="hb-bench-root-") as tmp:
        work = Path(tmp)
        root = scaled_copy(work / "root", args.rules, args.root.resolve()) if args.rules else args.root.resolve()
        corpus = load_corpus(root)
        if corpus.diagnostics:
            print("\n".join(str(d) for d in corpus.diagnostics), file=sys.stderr)
            print("bench_site: the content does not lint; nothing measured", file=sys.stderr)
            return 1
        coded_root = fences_as_code(root, work / "coded", corpus)
        kinds = make_kinds(work, root, coded_root)
        if args.instructions:
            counts = instructions(work, root, coded_root, len(kinds))
        else:
            results = rounds(kinds, args.runs)
        cli = [cold_cli_build(root) for _ in range(args.cli)]
    how = ("one counted build of each kind, after a warm-up, in processes of its own" if args.instructions else
           f"{args.runs} rounds after a warm-up; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"pages: {len(corpus.rules)} rules in {len(corpus.gates)} gates, doctrine {corpus.version}; {how}")
    print("\n".join(report_instructions(kinds, counts) if args.instructions else report(kinds, results, floor=0)))
    if cli:
        print(f"cold `mcp-handbook build` in a new process ({len(cli)}x): cpu median {statistics.median(c for _, c in cli):.2f} s, "
              f"wall median {statistics.median(w for w, _ in cli):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
