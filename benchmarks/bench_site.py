"""How long the handbook's strict site build takes, against a plain mkdocs build of the same pages.

    python benchmarks/bench_site.py [--runs N] [--rules N]

"handbook" is what `mcp-handbook build` does: a strict mkdocs build with the
macros pluglet and the hooks (the corpus parsed once, rule pages rendered with
labelled blocks and proofs, gate and tag pages generated, the worksheet page),
plus the downloads. "plain" is mkdocs with the same theme, docs_dir, search and
tags plugins but neither macros nor hooks: the floor for the hand-written pages. Plain
mkdocs does not take ```python wrong title="..."``` for a code block, so it
renders those blocks as text; "plain, code highlighted" is the same build with
the fences reduced to ```python and the generated gate and tag pages written
out as files: the same pages, the fairer floor. All run
in this process, each into a fresh temporary folder, interleaved run by run;
medians are printed with their ratio. Then `mcp-handbook build` cold, in a new
process, N times, for the end-to-end figure. The bar: the strict build takes at
most 1.5x the CPU of the plain build with highlighted code.

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

from mcp_handbook.model import Corpus
from mcp_handbook.site.generated import generated_pages

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
        text = re.sub(r"^title: (.*)$", lambda m: f"title: {retitled(m.group(1), n + 1)}", text, count=1, flags=re.M)
        src.with_name(f"{src.stem}-copy{n + 1}.md").write_text(text, encoding="utf-8")
    return dest


def retitled(value: str, n: int) -> str:
    """A YAML title value with " (copy N)" added inside its quotes, when it is quoted."""
    quoted = re.fullmatch(r"""(["'])(.*)\1\s*""", value)
    return f"{quoted.group(1)}{quoted.group(2)} (copy {n}){quoted.group(1)}" if quoted else f"{value} (copy {n})"


FENCE_INFO = re.compile(r"^(\s*(?:`{3,}|~{3,})\w+)\s+(?:wrong|correct)\b.*$", re.M)


def fences_as_code(root: Path, dest: Path, corpus: Corpus) -> Path:
    """A copy of ``root`` whose WRONG/CORRECT fences are ordinary code fences, with the pages the
    handbook generates (gate and tag pages) written out as files, so the plain build has the same pages."""
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


def timed(fn: Callable[[Path, Path], None], root: Path) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one run."""
    with tempfile.TemporaryDirectory(prefix="hb-bench-site-") as tmp:
        start, start_cpu = time.perf_counter(), time.process_time()
        fn(root, Path(tmp) / "site")
        return time.perf_counter() - start, time.process_time() - start_cpu


def cold_cli_build(root: Path) -> tuple[float, float]:
    """Wall and CPU seconds of `mcp-handbook build` in a new process."""
    with tempfile.TemporaryDirectory(prefix="hb-bench-cli-") as tmp:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "mcp_handbook.cli", "--root", str(root), "build", "--site-dir", str(Path(tmp) / "site")],
            check=True, capture_output=True, timeout=300,
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.perf_counter() - start, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


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
        with tempfile.TemporaryDirectory(prefix="hb-bench-code-") as code_tmp:
            coded_root = fences_as_code(root, Path(code_tmp), corpus)
            timed(plain_build, root)  # warm imports and caches for all
            kinds = {"handbook": (handbook_build, root), "plain": (plain_build, root), "coded": (plain_build, coded_root)}
            runs: dict[str, list[tuple[float, float]]] = {k: [] for k in (*kinds, "cold")}
            for _ in range(args.runs):  # interleaved, so a busy moment hits every kind alike
                for name, (fn, where) in kinds.items():
                    runs[name].append(timed(fn, where))
                runs["cold"].append(cold_cli_build(root))
    print(f"pages: {len(corpus.rules)} rules in {len(corpus.gates)} gates, doctrine {corpus.version}; {args.runs} runs each; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    labels = {
        "handbook": "handbook build (strict, macros + hooks + downloads)",
        "plain": "plain mkdocs build (no macros, no hooks)",
        "coded": "plain mkdocs build, code highlighted",
        "cold": "cold `mcp-handbook build`, new process",
    }
    median = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in runs.items()}
    for name, label in labels.items():
        wall, cpu = median[name]
        print(f"{label:<52} wall median {wall:.2f} s (min {min(w for w, _ in runs[name]):.2f})   cpu median {cpu:.2f} s")
    for name in ("plain", "coded"):
        print(f"ratio handbook / {labels[name].removeprefix('plain mkdocs build').strip(' ,') or 'plain'}: "
              f"wall {median['handbook'][0] / median[name][0]:.2f}x, cpu {median['handbook'][1] / median[name][1]:.2f}x"
              + ("   (bar: cpu at most 1.5x)" if name == "coded" else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
