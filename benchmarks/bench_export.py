"""How long exporting and reporting take, on the real doctrine and on a 64-rule copy of it.

    python benchmarks/bench_export.py [--runs 5]

Prints medians. "export all" is ``write_downloads`` (worksheet md, csv, json,
xlsx, rules.json, the skill zip) plus parsing the content; "report" is reading
a filled worksheet, checking it against the doctrine (parsed again) and
rendering the findings, i.e. everything ``mcp-handbook report FILE`` does
after start-up. The last lines time the console commands end to end, start-up
included. Bars from issue 6: export all under 2 s, report under 1 s.
"""

from __future__ import annotations

import argparse
import re
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


def median_seconds(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def grown_copy(dest: Path, target: int) -> Path:
    """The handbook copied to ``dest`` with its rule files repeated under fresh ids until ``target`` rules."""
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
    return dest


def fill_csv(path: Path) -> None:
    """Mark every third item Fail, the rest Pass, the last one unfilled."""
    lines = path.read_text().splitlines()
    header = lines[0].split(",")
    status = header.index("status")
    out = [lines[0]]
    for i, line in enumerate(lines[1:]):
        cells = next(__import__("csv").reader([line]))
        cells[status] = "" if i == len(lines) - 2 else ("Fail" if i % 3 == 0 else "Pass")
        out.append(",".join(f'"{c}"' if ("," in c or '"' in c) else c for c in cells))
    path.write_text("\n".join(out) + "\n")


def bench(root: Path, label: str, runs: int, work: Path) -> None:
    corpus = load_corpus(root)
    downloads = work / f"downloads-{label}"
    export_s = median_seconds(lambda: write_downloads(load_corpus(root), downloads), runs)
    filled = work / f"filled-{label}.csv"
    shutil.copy(downloads / "worksheet.csv", filled)
    fill_csv(filled)
    xlsx = downloads / "worksheet.xlsx"

    def report(path: Path) -> str:
        result = make_report(path, root=root, current=load_corpus(root))
        assert not isinstance(result, list), [str(p) for p in result]
        return render_text(result)

    report_csv_s = median_seconds(lambda: report(filled), runs)
    report_xlsx_s = median_seconds(lambda: report(xlsx), runs)
    parse_s = median_seconds(lambda: load_corpus(root), runs)
    print(f"{label}: {len(corpus.rules)} rules")
    print(f"  parse content (load_corpus)            {parse_s * 1000:7.0f} ms")
    print(f"  export all six downloads (incl. parse) {export_s * 1000:7.0f} ms   bar 2000 ms")
    print(f"  report filled CSV   (incl. parse)      {report_csv_s * 1000:7.0f} ms   bar 1000 ms")
    print(f"  report blank XLSX   (incl. parse)      {report_xlsx_s * 1000:7.0f} ms   bar 1000 ms")
    cli = [sys.executable, "-m", "mcp_handbook.cli", "--root", str(root)]
    cli_export = median_seconds(lambda: subprocess.run([*cli, "export", "worksheet", "-o", str(work / "cli.xlsx")], capture_output=True, check=True), runs)
    cli_report = median_seconds(lambda: subprocess.run([*cli, "report", str(filled)], capture_output=True), runs)
    print(f"  console: export worksheet xlsx          {cli_export * 1000:7.0f} ms   (interpreter start-up included)")
    print(f"  console: report filled CSV              {cli_report * 1000:7.0f} ms   (interpreter start-up included)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="hb-bench-") as tmp:
        work = Path(tmp)
        bench(ROOT, "real doctrine", args.runs, work)
        bench(grown_copy(work / "grown", TARGET_RULES), f"{TARGET_RULES}-rule copy", args.runs, work)


if __name__ == "__main__":
    main()
