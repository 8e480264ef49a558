"""How long the handbook's strict site build takes, against a plain mkdocs build of the same pages.

    python benchmarks/bench_site.py [--runs N] [--rules N]

"handbook" is what `mcp-handbook build` does: a strict mkdocs build with the
macros pluglet and the hooks (the corpus parsed once, rule pages rendered with
labelled blocks and proofs, gate and tag pages generated, the worksheet page),
plus the downloads. "plain" is mkdocs with the same theme, docs_dir, search and
tags plugins but neither macros nor hooks: the floor for these pages. Plain
mkdocs does not take ```python wrong title="..."``` for a code block, so it
renders those blocks as text; "plain, code highlighted" is the same build with
the fences reduced to ```python, the fairer floor. All run
in this process, each into a fresh temporary folder; medians are printed with
their ratio. Then `mcp-handbook build` cold, in a new process, N times, each
time also with MCP_HANDBOOK_NO_FORK=1 (no helper processes: the lexing, the
template compiling and the downloads all in the one process), for the
end-to-end figure and what the helpers buy. CPU figures include the helper
processes. The bar is a full-doctrine strict build under 5 s.

``--rules N`` builds a copy of the handbook whose rules are repeated (with
new ids) up to N, to measure a doctrine larger than the one checked in.
"""

from __future__ import annotations

import argparse
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
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOOKS = Path("tools/mcp_handbook/site/hooks.py")


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


def scaled_copy(dest: Path, rules: int) -> Path:
    """A copy of the handbook with its rule files repeated under new ids until there are ``rules``."""
    for name in ("mkdocs.yml", "content", "snippets", "site_overrides"):
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy)(ROOT / name, dest / name)
    (dest / HOOKS).parent.mkdir(parents=True)
    shutil.copy(ROOT / HOOKS, dest / HOOKS)
    originals = sorted((dest / "content" / "rules").rglob("*.md"))
    for n in range(max(0, rules - len(originals))):
        src = originals[n % len(originals)]
        text = re.sub(r"^id: .*$", f"id: BEN-{n + 1:03d}", src.read_text(encoding="utf-8"), count=1, flags=re.M)
        text = re.sub(r"^title: (.*)$", rf"title: \1 (copy {n + 1})", text, count=1, flags=re.M)
        src.with_name(f"{src.stem}-copy{n + 1}.md").write_text(text, encoding="utf-8")
    return dest


FENCE_INFO = re.compile(r"^(\s*(?:`{3,}|~{3,})\w+)\s+(?:wrong|correct)\b.*$", re.M)


def fences_as_code(root: Path, dest: Path) -> Path:
    """A copy of ``root`` whose WRONG/CORRECT fences are ordinary code fences."""
    for name in ("mkdocs.yml", "content", "site_overrides"):
        (shutil.copytree if (root / name).is_dir() else shutil.copy)(root / name, dest / name)
    for path in (dest / "content" / "rules").rglob("*.md"):
        path.write_text(FENCE_INFO.sub(r"\1", path.read_text(encoding="utf-8")), encoding="utf-8")
    return dest


def timed(fn: Callable[[Path, Path], None], root: Path, runs: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds of each run, CPU counting the build's forked children too."""
    wall, cpu = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="hb-bench-site-") as tmp:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start, start_cpu = time.perf_counter(), time.process_time()
            fn(root, Path(tmp) / "site")
            wall.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            children = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            cpu.append(time.process_time() - start_cpu + children)
    return wall, cpu


def cold_cli_builds(root: Path, runs: int) -> dict[str, tuple[list[float], list[float]]]:
    """Wall and CPU seconds of `mcp-handbook build` in a new process, with its forked helpers and
    without them (MCP_HANDBOOK_NO_FORK=1: everything in one process), interleaved run by run."""
    results: dict[str, tuple[list[float], list[float]]] = {"forked": ([], []), "one process": ([], [])}
    for _ in range(runs):
        for name, no_fork in (("forked", "0"), ("one process", "1")):
            with tempfile.TemporaryDirectory(prefix="hb-bench-cli-") as tmp:
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                subprocess.run(
                    [sys.executable, "-m", "mcp_handbook.cli", "--root", str(root), "build", "--site-dir", str(Path(tmp) / "site")],
                    check=True, capture_output=True, timeout=300, env={**os.environ, "MCP_HANDBOOK_NO_FORK": no_fork},
                )
                results[name][0].append(time.perf_counter() - start)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                results[name][1].append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="builds of each kind (default 5)")
    ap.add_argument("--rules", type=int, default=0, help="repeat the rules (new ids) up to this many in a copy")
    args = ap.parse_args()
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    logging.getLogger("mkdocs").setLevel(logging.ERROR)  # the plain build warns about the unrendered macro pages

    from mcp_handbook import load_corpus

    with tempfile.TemporaryDirectory(prefix="hb-bench-root-") as tmp:
        root = scaled_copy(Path(tmp), args.rules) if args.rules else ROOT
        corpus = load_corpus(root)
        if corpus.diagnostics:
            print("\n".join(str(d) for d in corpus.diagnostics), file=sys.stderr)
            print("bench_site: the content does not lint; nothing measured", file=sys.stderr)
            return 1
        timed(plain_build, root, 1)  # warm imports and caches for both
        handbook = timed(handbook_build, root, args.runs)
        plain = timed(plain_build, root, args.runs)
        with tempfile.TemporaryDirectory(prefix="hb-bench-code-") as code_tmp:
            coded = timed(plain_build, fences_as_code(root, Path(code_tmp)), args.runs)
        cold = cold_cli_builds(root, args.runs)
    print(f"pages: {len(corpus.rules)} rules in {len(corpus.gates)} gates, doctrine {corpus.version}; {args.runs} runs each; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    rows = (
        ("handbook build (strict, macros + hooks + downloads)", handbook),
        ("plain mkdocs build (no macros, no hooks)", plain),
        ("plain mkdocs build, code highlighted", coded),
    )
    for name, (wall, cpu) in rows:
        print(f"{name:<52} wall median {statistics.median(wall):.2f} s (min {min(wall):.2f})   cpu median {statistics.median(cpu):.2f} s")
    for name, (wall, cpu) in rows[1:]:
        print(f"ratio handbook / {name.removeprefix('plain mkdocs build').strip(' ,') or 'plain'}: "
              f"wall {statistics.median(handbook[0]) / statistics.median(wall):.2f}x, "
              f"cpu {statistics.median(handbook[1]) / statistics.median(cpu):.2f}x")
    for name, (wall, cpu) in cold.items():
        print(f"cold `mcp-handbook build`, new process, {name:<12} wall median {statistics.median(wall):.2f} s "
              f"(min {min(wall):.2f})   cpu median {statistics.median(cpu):.2f} s")
    print(f"ratio cold one process / forked: wall {statistics.median(cold['one process'][0]) / statistics.median(cold['forked'][0]):.2f}x"
          "   (bar: a strict build under 5 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
