"""How long merging fleet results takes, and how much memory it holds, for 1,000 and 10,000 servers in one run.

    python benchmarks/bench_fleet_merge.py [--servers 10000] [--seed 29] [--browser]

Writes synthetic but realistic results (result.py's format, 80 rules in 8 gates each, states and verdicts drawn
with a fixed seed) into a temporary folder as ten shards, merges one shard and then all of them, and removes the
folder at the end. Each merge is timed once without tracing, then run again under tracemalloc for its peak; the
scorecard the merge returns is still held when tracing stops, so "held" is the scorecard's own size and
"peak - held" is what reading cost on top: it should stay nearly constant (the set of keys read is all that grows
beside the scorecard). The scorecard's JSON size and the time to write scorecard.json, .csv and index.html (with a
diff against a changed copy) are printed too. Wall and CPU time are both printed: on a shared machine the CPU time
is what the merge costs; compare the two sizes within one run. With ``--browser`` the page is opened from file://
in Chromium headless (Playwright driving Debian's /usr/bin/chromium with the site tests' flags): time to the load
event, and to sort by a column and to filter by state, each until the next frame is drawn.
Bar from issue 29: 10,000 servers merged in under 10 s.
"""

from __future__ import annotations

import argparse
import copy
import random
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from mcp_handbook.fleet.entry import Entry
from mcp_handbook.fleet.merge import merge_results
from mcp_handbook.fleet.result import FORMAT, FORMAT_VERSION, write
from mcp_handbook.fleet.scorecard import to_json, write_scorecard

GATES = ("tool-definitions", "errors", "security", "auth", "transport", "operations", "agent-ux", "testing")
SEVERITIES = ("high", "medium", "low")
SHARDS = 10
SUMMARY = "probe read {n} tool definitions; every inputSchema names its required fields and types ({k} checked)"


def rule_table(count: int = 80) -> list[dict[str, str]]:
    """80 rules spread over the eight gates, a third HIGH, as the doctrine's are."""
    return [{"id": f"{GATES[n % len(GATES)][:3].upper()}-{n:03d}", "gate": GATES[n % len(GATES)],
             "severity": SEVERITIES[n % 3], "basis": "spec-must" if n % 4 == 0 else "practice"} for n in range(count)]


def verdict(rng: random.Random, rule: dict[str, str], sdk_fails: set[str]) -> dict[str, Any]:
    roll = rng.random()
    status, na = ("PASS", "") if roll < 0.55 else ("FAIL", "") if roll < 0.67 else \
        ("N/A", "does not apply") if roll < 0.87 else ("N/A", "not checked")
    return {**rule, "status": status, "na": na, "inherited": status == "FAIL" and rule["id"] in sdk_fails,
            "summary": SUMMARY.format(n=rng.randint(1, 40), k=rng.randint(1, 9))}


def synthetic_result(n: int, rng: random.Random, rules: list[dict[str, str]]) -> dict[str, Any]:
    """One server's result: mostly audited, some not answering, some not audited for a missing runtime."""
    how = rng.choice(("npm", "pypi", "oci", "remote"))
    name = f"io.github.owner{n % 997}/server-{n}"
    version = f"{rng.randint(0, 3)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}"
    entry = Entry(name=name, version=version, how=how, package=f"{how}:server-{n}@{version}",
                  source=f"registry/servers-{n // 100}.json#{n % 100}", title=f"Server {n}")
    roll = rng.random()
    state = "audited" if roll < 0.8 else "no answer" if roll < 0.88 else "not audited" if roll < 0.97 else "auditor failed"
    sdk_fails = {r["id"] for r in rng.sample(rules, 4)}
    data: dict[str, Any] = {
        "format": FORMAT, "format_version": FORMAT_VERSION, "key": entry.key, "entry": entry.to_json(),
        "doctrine_version": "1.5.0", "tool_version": "1.5.0", "commit": "0123456789ab", "sandbox": "bwrap",
        "state": state, "why": "", "server_name": "", "server_version": "", "sdk": "", "exit_code": None,
        "seconds": 0.0, "killed": [], "rules": [],
    }
    if state == "not audited":
        data["why"] = "needs uvx or pipx to run a PyPI package" if how == "pypi" else "needs docker to run a container image"
        return data
    data.update({"server_name": name.rsplit("/", 1)[-1], "server_version": version,
                 "sdk": rng.choice(("python mcp 1.9", "typescript sdk 1.12", "")), "exit_code": rng.choice((0, 0, 1, -15)),
                 "seconds": round(rng.uniform(2, 90), 1)})
    if state == "auditor failed":
        data["why"] = "the auditor ran out of time after 600 s"
    else:
        data["rules"] = [verdict(rng, r, sdk_fails) for r in rules]
        if state == "no answer":
            data["why"] = "the server exited before answering initialize (exit code 1)"
    return data


def write_fleet(folder: Path, servers: int, seed: int) -> None:
    rng = random.Random(seed)
    rules = rule_table()
    for n in range(servers):
        shard = folder / f"shard-{n * SHARDS // servers:02d}"
        shard.mkdir(parents=True, exist_ok=True)
        write(shard, synthetic_result(n, rng, rules))


def measure(paths: list[Path]) -> tuple[float, float, int, int, dict[str, Any]]:
    """Wall and CPU seconds (untraced), peak and held bytes (traced), and the scorecard."""
    start, cpu = time.perf_counter(), time.process_time()
    merge_results(paths)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    tracemalloc.start()
    card = merge_results(paths)
    held, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, cpu, peak, held, card


def changed_copy(card: dict[str, Any]) -> dict[str, Any]:
    """The same scorecard with a version bumped and a rule turned to FAIL in every hundredth row: a previous run."""
    before = copy.deepcopy(card)
    for row in before["rows"][::100]:
        row["version"] += "-old"
        row["verdicts"] = "P" + row["verdicts"][1:]
    return before


CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
ACT_AND_DRAW = """async (act) => {
  const start = performance.now();
  if (act === "sort") document.querySelector('button[data-sort="high"]').click();
  else { const s = document.querySelector('select[data-hb-filter="state"]'); s.value = "no answer";
         s.dispatchEvent(new Event("change", {bubbles: true})); }
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  return performance.now() - start;
}"""


def browser_times(page_file: Path) -> None:
    """The page's load, sort and filter times in Chromium headless, at a desktop width."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            start = time.perf_counter()
            page.goto(page_file.as_uri(), wait_until="load", timeout=120_000)
            wall = time.perf_counter() - start
            nav = page.evaluate("() => { const n = performance.getEntriesByType('navigation')[0];"
                                " return [n.domContentLoadedEventEnd, n.loadEventEnd]; }")
            rows = page.evaluate("() => document.querySelectorAll('#hb-card tbody tr').length")
            sort, filter_ = page.evaluate(ACT_AND_DRAW, "sort"), page.evaluate(ACT_AND_DRAW, "filter")
            print(f"chromium: {rows} rows; DOMContentLoaded {nav[0] / 1000:.2f} s, load {nav[1] / 1000:.2f} s "
                  f"(goto returned after {wall:.2f} s); sort {sort / 1000:.2f} s, filter {filter_ / 1000:.2f} s")
        finally:
            browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--browser", action="store_true", help="also time the page in Chromium headless")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="hb-fleet-bench-"))
    try:
        start = time.perf_counter()
        write_fleet(root / "results", args.servers, args.seed)
        print(f"wrote {args.servers} results in {time.perf_counter() - start:.1f} s")
        figures = []
        for label, paths in (("one shard", [root / "results" / "shard-00"]), ("all", [root / "results"])):
            seconds, cpu, peak, held, card = measure(paths)
            size = len(to_json(card).encode())
            servers = len(card["rows"])
            figures.append((servers, cpu, peak, held))
            print(f"merge {label:9} {servers:6} servers: {seconds:6.2f} s, CPU {cpu:5.2f} s ({servers / cpu:5.0f}/s); peak {peak / 1e6:6.1f} MB, "
                  f"scorecard held {held / 1e6:6.1f} MB ({held / servers:5.0f} B/server), peak - held {(peak - held) / 1e6:5.2f} MB; "
                  f"scorecard.json {size / 1e6:5.1f} MB")
        (small, s_small, p_small, h_small), (big, s_big, p_big, h_big) = figures
        print(f"ratio {big}/{small} servers = {big / small:.1f}: CPU time x{s_big / s_small:.1f}, peak x{p_big / p_small:.1f}, "
              f"held x{h_big / h_small:.1f}, peak - held x{(p_big - h_big) / max(1, p_small - h_small):.1f}")
        previous = changed_copy(card)
        start = time.perf_counter()
        written = write_scorecard(card, root / "scorecard", previous=previous)
        print(f"write scorecard ({big} servers, with a diff): {time.perf_counter() - start:.2f} s; "
              + ", ".join(f"{p.name} {p.stat().st_size / 1e6:.1f} MB" for p in written))
        if args.browser:
            browser_times(root / "scorecard" / "index.html")
        return 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
