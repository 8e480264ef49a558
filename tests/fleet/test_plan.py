"""Shards are deterministic, balanced, complete, and a wrong shard argument says what to give instead."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest

from mcp_handbook.fleet.entry import Entry
from mcp_handbook.fleet.plan import PlanError, make_plan, parse_shard, read_plan, shard_entries


def entries(count: int) -> list[Entry]:
    return [Entry(name=f"io.github.example/server-{n:03d}", version="1.0.0", how="npm",
                  package=f"npm:server-{n:03d}@1.0.0", source=f"servers/{n:03d}.json",
                  command=("npx", "-y", f"server-{n:03d}@1.0.0")) for n in range(count)]


def keys_of(plan: dict, shard: int) -> list[str]:
    return [e.key for e in shard_entries(plan, shard, plan["shards"])]


def test_the_same_servers_give_the_same_plan_in_any_order() -> None:
    servers = entries(23)
    shuffled = servers[:]
    random.Random(7).shuffle(shuffled)
    assert make_plan(servers, 4) == make_plan(shuffled, 4)


def test_every_server_is_in_exactly_one_shard_and_shards_are_even() -> None:
    servers = entries(23)
    plan = make_plan(servers, 4)
    shards = [keys_of(plan, n) for n in range(1, 5)]
    assert sorted(k for shard in shards for k in shard) == sorted(e.key for e in servers)
    assert max(map(len, shards)) - min(map(len, shards)) <= 1


def test_timings_deal_the_slowest_servers_apart_and_run_them_first() -> None:
    servers = entries(6)
    slow = {servers[4].key: 100.0, servers[5].key: 90.0}  # the last keys: key order would run them last
    plan = make_plan(servers, 2, timings=slow)
    placed = {e["key"]: e["shard"] for e in plan["entries"]}
    assert placed[servers[4].key] != placed[servers[5].key]
    light = placed[servers[5].key]  # the four quick ones all go beside the lighter of the two
    assert sum(1 for e in servers[:4] if placed[e.key] == light) == 4
    assert keys_of(plan, light)[0] == servers[5].key, "a shard runs its longest first"
    assert keys_of(plan, placed[servers[4].key]) == [servers[4].key]


def test_equal_keys_are_planned_once_the_first_kept() -> None:
    first, *rest = entries(3)
    again = dataclasses.replace(first, source="elsewhere.json")
    plan = make_plan([first, *rest, again], 2)
    rows = [e for e in plan["entries"] if e["key"] == first.key]
    assert len(rows) == 1 and rows[0]["source"] == first.source


@pytest.mark.parametrize(("text", "expected"), [("1/4", (1, 4)), (" 4/4 ", (4, 4)), ("12/12", (12, 12))])
def test_shard_arguments(text: str, expected: tuple[int, int]) -> None:
    assert parse_shard(text) == expected


@pytest.mark.parametrize(("text", "says"), [("0/4", "I/N"), ("5/4", "does not exist"), ("2", "I/N"), ("a/b", "I/N")])
def test_bad_shard_arguments_say_what_to_give(text: str, says: str) -> None:
    with pytest.raises(PlanError, match=says):
        parse_shard(text)


def test_a_shard_of_another_count_is_refused_naming_the_plan() -> None:
    plan = make_plan(entries(5), 3)
    with pytest.raises(PlanError, match=r"plan.json has 3 shard\(s\); run 1/3 \.\.\. 3/3"):
        shard_entries(plan, 1, 4, where="plan.json")


def test_a_plan_file_round_trips_and_garbage_is_named(tmp_path: Path) -> None:
    plan = make_plan(entries(5), 2)
    good = tmp_path / "plan.json"
    good.write_text(json.dumps(plan))
    assert read_plan(good) == plan
    assert [e.key for e in shard_entries(read_plan(good), 1, 2)] == keys_of(plan, 1)
    bad = tmp_path / "other.json"
    bad.write_text('{"servers": []}')
    with pytest.raises(PlanError, match=r"other\.json: not a fleet plan"):
        read_plan(bad)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000)
    with pytest.raises(PlanError, match=r"deep\.json: not JSON"):
        read_plan(deep)


def test_shard_counts_out_of_range_are_refused() -> None:
    with pytest.raises(PlanError, match="--shards 0"):
        make_plan(entries(2), 0)
