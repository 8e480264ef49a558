"""benchmarks/bench_site.py: how it pairs builds and sums up their ratios, and the copies it measures at other
doctrine sizes (``--rules 90`` leaves rules out, ``--rules 360`` repeats them; both must still lint)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_handbook import load_corpus

ROOT = Path(__file__).resolve().parents[2]


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("bench_site", ROOT / "benchmarks" / "bench_site.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_site"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


bench = _bench()


def _noop(root: Path, site: Path) -> None:
    pass


def test_rounds_discard_a_warm_up_of_each_kind_and_rotate_the_order() -> None:
    kinds = [bench.Kind(name, _noop, Path(".")) for name in ("floor", "warm", "cold")]
    calls: list[str] = []

    def run(kind: Any) -> tuple[float, float]:
        calls.append(kind.label)
        return 1.0, float(len(calls))  # cpu = the call's position, so each result can be traced to its call

    results = bench.rounds(kinds, 3, run=run)
    assert calls[:3] == ["floor", "warm", "cold"], "one warm-up build of each kind"
    assert calls[3:] == ["floor", "warm", "cold", "warm", "cold", "floor", "cold", "floor", "warm"]
    assert [[cpu for _, cpu in r] for r in results] == [[4, 5, 6], [9, 7, 8], [11, 12, 10]], "kept in kinds order"


def test_the_ratio_is_taken_per_round_and_summed_up_with_its_spread() -> None:
    results = [[(0, 2.0), (0, 3.0)], [(0, 4.0), (0, 5.0)], [(0, 1.0), (0, 2.0)], [(0, 2.0), (0, 2.0)]]
    ratios = bench.pair_ratios(results, 1, 0)
    assert ratios == [1.5, 1.25, 2.0, 1.0]
    s = bench.spread(ratios)
    assert (s.median, s.low, s.high) == (1.375, 1.0, 2.0)
    assert s.low_quartile == pytest.approx(1.1875) and s.high_quartile == pytest.approx(1.625)
    assert bench.spread([1.2]) == bench.Spread(1.2, 1.2, 1.2, 1.2, 1.2)
    with pytest.raises(ValueError):
        bench.spread([])


def test_the_report_says_whether_the_median_ratio_meets_the_bar() -> None:
    kinds = [bench.Kind("floor", _noop, Path(".")), bench.Kind("handbook", _noop, Path("."))]
    lines = bench.report(kinds, [[(1, 2.0), (1, 2.8)], [(1, 2.0), (1, 3.2)], [(1, 2.0), (1, 2.9)]], floor=0)
    assert any(line.strip().startswith("handbook") and "1.45x" in line and "meets the bar" in line for line in lines)
    lines = bench.report(kinds, [[(1, 2.0), (1, 3.2)]], floor=0)
    assert any("1.60x" in line and "over the bar" in line for line in lines)


@pytest.mark.parametrize("rules", [90, pytest.param(360, marks=pytest.mark.slow)])
def test_a_copy_of_another_size_has_that_many_rules_and_still_lints(tmp_path: Path, rules: int) -> None:
    today = len(load_corpus(ROOT).rules)
    assert rules != today, "the test needs a size other than today's"
    corpus = load_corpus(bench.scaled_copy(tmp_path / "copy", rules, ROOT))
    assert [str(d) for d in corpus.diagnostics] == []
    assert len(corpus.rules) == rules
    assert "- mcp-handbook" in (tmp_path / "copy" / "mkdocs.yml").read_text(encoding="utf-8"), "the copy builds with the handbook's plugin"


def test_leaving_rules_out_drops_the_links_and_related_entries_that_named_them(tmp_path: Path) -> None:
    copy = bench.scaled_copy(tmp_path / "copy", 40, ROOT)
    corpus = load_corpus(copy)
    ids = {r.id for r in corpus.rules}
    assert all(other in ids for r in corpus.rules for other in r.related)
    gone = {r.id for r in load_corpus(ROOT).rules} - ids
    assert len(gone) == len(load_corpus(ROOT).rules) - 40
    declared = (copy / "content" / "handbook.yml").read_text(encoding="utf-8")
    assert not any(rule_id in declared for rule_id in gone), "a rule handbook.yml names is never left out"


def test_instruction_counts_are_read_from_cachegrind_and_reported_against_the_floor() -> None:
    stderr = "==12405== \n==12405== I   refs:      2,175,491,851\n"
    assert int(bench.REFS.search(stderr).group(1).replace(",", "")) == 2_175_491_851
    kinds = [bench.Kind(name, _noop, Path(".")) for name in ("floor", "warm", "cold")]
    lines = bench.report_instructions(kinds, [4_000_000_000, 5_000_000_000, 6_400_000_000])
    assert lines[1].split()[-2:] == ["4.00", "billion"]
    assert lines[-2].split()[-4:] == ["1.25x", "meets", "the", "bar"]
    assert lines[-1].split()[-4:] == ["1.60x", "over", "the", "bar"]
