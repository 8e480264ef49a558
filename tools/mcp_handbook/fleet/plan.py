"""Deterministic shards: the same servers and shard count give the same plan on any machine, in any order read.

A plan is a JSON file every shard job reads (``fleet plan`` writes it once; a CI matrix or a batch system hands
``--shard i/N`` to each job). Servers are dealt longest first onto the lightest shard, by the seconds a previous
scorecard measured for them when one is given (``--timings``), else one unit each, which deals the sorted keys round
robin. Ties go by key, so nothing depends on the order the sources were read in.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import bounded_json
from .entry import Entry

FORMAT, FORMAT_VERSION = "mcp-handbook-fleet-plan", 1
MAX_SHARDS = 1000
SHARD = re.compile(r"^([1-9][0-9]*)/([1-9][0-9]*)$")


class PlanError(ValueError):
    """A plan or shard argument that cannot be used, said with what to give instead."""


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` -> ``(2, 4)``: the second of four shards, counted from 1 (as a CI matrix counts them)."""
    match = SHARD.match(text.strip())
    if not match:
        raise PlanError(f"--shard {text!r}: write it as I/N, the I-th of N shards counted from 1 (1/4 ... 4/4)")
    index, count = int(match.group(1)), int(match.group(2))
    if index > count:
        raise PlanError(f"--shard {text}: shard {index} of {count} does not exist (1/{count} ... {count}/{count})")
    return index, count


def make_plan(entries: Sequence[Entry], shards: int, *, timings: Mapping[str, float] | None = None) -> dict[str, Any]:
    """Every entry placed on one of ``shards`` shards (1-based), balanced by expected seconds."""
    if not 1 <= shards <= MAX_SHARDS:
        raise PlanError(f"--shards {shards}: give 1 to {MAX_SHARDS}")
    timings = timings or {}
    weight = {e.key: max(float(timings.get(e.key, 1.0)), 0.0) for e in entries}
    loads = [(0.0, n) for n in range(1, shards + 1)]  # (seconds so far, shard): the lightest pops first, ties by number
    placed: dict[str, int] = {}
    for entry in sorted(entries, key=lambda e: (-weight[e.key], e.key)):
        if entry.key in placed:
            continue
        load, shard = heapq.heappop(loads)
        placed[entry.key] = shard
        heapq.heappush(loads, (load + weight[entry.key], shard))
    unique = {e.key: e for e in reversed(entries)}  # the first of equal keys wins, as the registry reader keeps it
    rows = [{**unique[key].to_json(), "shard": placed[key], "expected_seconds": weight[key] if timings else None}
            for key in sorted(unique)]
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "shards": shards, "entries": rows}


def read_plan(path: Path) -> dict[str, Any]:
    try:
        data = bounded_json.loads(path.read_bytes(), max_depth=16)
    except OSError as exc:
        raise PlanError(f"{path}: cannot read the plan: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise PlanError(f"{path}: not JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("format_version") != FORMAT_VERSION:
        raise PlanError(f"{path}: not a fleet plan written by `mcp-handbook fleet plan` (format {FORMAT} "
                        f"version {FORMAT_VERSION})")
    if not isinstance(data.get("shards"), int) or not isinstance(data.get("entries"), list):
        raise PlanError(f"{path}: malformed plan (shards and entries)")
    return data


def shard_entries(plan: dict[str, Any], index: int, count: int, *, where: str = "the plan") -> list[Entry]:
    """The entries of shard ``index`` of ``count``, the longest expected first (so the last audit to start is a
    short one, and workers finish together); the count must be the plan's own (a matrix built for another plan
    would skip or repeat servers)."""
    if count != plan["shards"]:
        raise PlanError(f"--shard {index}/{count}: {where} has {plan['shards']} shard(s); run 1/{plan['shards']} ... "
                        f"{plan['shards']}/{plan['shards']}")
    chosen: list[tuple[float, Entry]] = []
    for n, row in enumerate(plan["entries"]):
        if not isinstance(row, dict) or not isinstance(row.get("shard"), int):
            raise PlanError(f"{where}: entries[{n}] has no shard")
        if row["shard"] == index:
            expected = row.get("expected_seconds")
            try:
                chosen.append((float(expected) if isinstance(expected, (int, float)) else 0.0, Entry.from_json(row)))
            except (TypeError, ValueError) as exc:
                raise PlanError(f"{where}: entries[{n}]: {exc}") from None
    return [entry for _, entry in sorted(chosen, key=lambda pair: (-pair[0], pair[1].key))]
