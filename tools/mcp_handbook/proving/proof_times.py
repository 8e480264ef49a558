"""How long each proof took last time, kept only to start the longest first.

A proof mostly waits (out a deadline a WRONG block lets pass, or on its server), and the pool runs a few at a
time: started in file order, a six-second proof that happens to come last is the whole run's tail. The seconds
of the last run are kept in the user's cache folder beside the parsed corpus (never in the checkout) and read
for one thing, the order proofs are started in. A block without a time (new, renamed, or a first run) starts
first. Nothing else depends on them: no verdict, no report, no recorded evidence.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterable
from typing import TypeVar

from ..parse_cache import cache_dir

FILE = "proof-seconds.json"
T = TypeVar("T")


def load() -> dict[str, float]:
    """The seconds each proof took when last run, by block name (``RULE-ID.wrong1``); empty when none are kept."""
    folder = cache_dir()
    if folder is None:
        return {}
    try:
        data = json.loads((folder / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: float(v) for k, v in data.items() if isinstance(k, str) and isinstance(v, (int, float))}


def longest_first(items: Iterable[T], seconds: dict[str, float], *, name: Callable[[T], str]) -> list[T]:
    """``items`` with those never timed first, then by the seconds they took, longest first (ties keep their order)."""
    return sorted(items, key=lambda item: -seconds.get(name(item), float("inf")))


def save(new: dict[str, float]) -> None:
    """Merge this run's seconds into the kept ones, written atomically; a folder that cannot be written is ignored."""
    folder = cache_dir()
    if folder is None or not new:
        return
    merged = {**load(), **new}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=folder, prefix=".proof-seconds-", suffix=".json", delete=False,
                                         encoding="utf-8") as tmp:
            json.dump(merged, tmp, sort_keys=True, indent=0)
        os.replace(tmp.name, folder / FILE)
    except OSError:
        try:
            os.unlink(tmp.name)
        except (OSError, UnboundLocalError):
            pass
