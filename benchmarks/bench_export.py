"""How long exporting and reporting take, on the real doctrine (grown to 64 rules if smaller).

    python benchmarks/bench_export.py [--runs 5]

Runs on a private git copy of the handbook, so other people's commits do not
change what is measured. Prints medians of wall time and of CPU time (this
machine is shared and noisy; CPU time is what the code costs). "parse" is ``load_corpus``, which
every command pays once; "export all" is ``write_downloads`` (worksheet md,
csv, json, xlsx, rules.json, the skill zip); "report" is reading a filled
worksheet, checking it against the doctrine and rendering the findings. The
console lines time the commands end to end, start-up included (CPU = the
child's user+system time). Bars from issue 6: export all under 2 s, report
under 1 s.
"""

from __future__ import annotations

import argparse
import csv
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

from mcp_handbook import load_corpus
from mcp_handbook.export import write_downloads
from mcp_handbook.report import make_report, render_text

ROOT = Path(__file__).resolve().parents[1]
TARGET_RULES = 64


def medians(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median wall and CPU seconds of ``fn`` (CPU includes child processes it waited for)."""
    walls, cpus = [], []
    for _ in range(runs):
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu, wall = time.process_time(), time.perf_counter()
        fn()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu + (after.ru_utime - children.ru_utime) + (after.ru_stime - children.ru_stime))
    return statistics.median(walls), statistics.median(cpus)


def line(label: str, figures: tuple[float, float], bar: str = "") -> None:
    wall, cpu = figures
    print(f"  {label:<44} wall {wall * 1000:6.0f} ms   cpu {cpu * 1000:6.0f} ms   {bar}")


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "-c", "commit.gpgsign=false", *args],
                   cwd=root, capture_output=True, check=True, timeout=60)


def handbook_copy(dest: Path, target: int) -> Path:
    """The handbook copied to ``dest`` as a one-commit git repository, its rule files repeated
    under fresh ids until it has at least ``target`` rules; nobody else commits there."""
    dest.mkdir(parents=True)
    for name in ("mkdocs.yml", "content"):
        src = ROOT / name
        shutil.copytree(src, dest / name) if src.is_dir() else shutil.copy(src, dest / name)
    originals = sorted((dest / "content" / "rules").rglob("*.md"))
    n = 0
    while len(list((dest / "content" / "rules").rglob("*.md"))) < target and originals:
        source = originals[n % len(originals)]
        n += 1
        text = re.sub(r"^id: .*$", f"id: BEN-{n:03d}", source.read_text(), count=1, flags=re.M)
        text = re.sub(r"^related: .*$", "", text, flags=re.M)
        (source.parent / f"bench-{n:03d}.md").write_text(text)
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "doctrine as copied")
    return dest


def change_one_rule(root: Path) -> None:
    """Commit a severity change, so a report must load the worksheet's commit and diff."""
    rule = sorted((root / "content" / "rules").rglob("*.md"))[0]
    text = rule.read_text()
    rule.write_text(re.sub(r"^severity: (\w+)$", lambda m: "severity: " + ("low" if m.group(1) != "low" else "high"), text, count=1, flags=re.M))
    git(root, "commit", "-q", "-am", "change one rule")


def fill_csv(path: Path) -> None:
    """Mark every third item Fail, the rest Pass, the last one unfilled."""
    lines = path.read_text().splitlines()
    header = lines[0].split(",")
    status = header.index("status")
    out = [lines[0]]
    for i, line in enumerate(lines[1:]):
        cells = next(csv.reader([line]))
        cells[status] = "" if i == len(lines) - 2 else ("Fail" if i % 3 == 0 else "Pass")
        out.append(",".join(f'"{c}"' if ("," in c or '"' in c) else c for c in cells))
    path.write_text("\n".join(out) + "\n")


def bench(root: Path, runs: int, work: Path) -> None:
    corpus = load_corpus(root)
    downloads = work / "downloads"
    write_downloads(corpus, downloads)
    filled = work / "filled.csv"
    shutil.copy(downloads / "worksheet.csv", filled)
    fill_csv(filled)

    def report(path: Path, current) -> str:
        result = make_report(path, root=root, current=current)
        assert not isinstance(result, list), [str(p) for p in result]
        return render_text(result)

    print(f"{len(corpus.rules)} rules (the real doctrine, grown to {TARGET_RULES} if smaller), doctrine {corpus.version}")
    line("parse (load_corpus)", medians(lambda: load_corpus(root), runs))
    line("export all six downloads, parsed corpus", medians(lambda: write_downloads(corpus, downloads), runs))
    line("export all six downloads incl. parse", medians(lambda: write_downloads(load_corpus(root), downloads), runs), "bar 2000 ms")
    line("report filled CSV, parsed corpus", medians(lambda: report(filled, corpus), runs))
    line("report filled CSV incl. parse", medians(lambda: report(filled, load_corpus(root)), runs), "bar 1000 ms")
    line("report blank XLSX incl. parse", medians(lambda: report(downloads / "worksheet.xlsx", load_corpus(root)), runs), "bar 1000 ms")
    cli = [sys.executable, "-m", "mcp_handbook.cli", "--root", str(root)]
    line("console: export worksheet -o x.xlsx",
         medians(lambda: subprocess.run([*cli, "export", "worksheet", "-o", str(work / "x.xlsx")], capture_output=True,
                                        check=True), runs))
    line("console: report filled.csv", medians(lambda: subprocess.run([*cli, "report", str(filled)], capture_output=True), runs))
    change_one_rule(root)
    print("after a commit that changes one rule (the report loads the worksheet's commit and diffs):")
    line("report filled CSV incl. both parses", medians(lambda: report(filled, load_corpus(root)), runs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="hb-bench-") as tmp:
        work = Path(tmp)
        bench(handbook_copy(work / "hb", TARGET_RULES), args.runs, work)


if __name__ == "__main__":
    main()
