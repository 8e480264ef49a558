"""Every fleet result read once, in a stable order, into one scorecard: a row per server, the rules listed once.

A fleet can be ten thousand servers, so results are streamed: each file is read, reduced to its row at once and
dropped; memory grows with the scorecard alone (a few hundred bytes a server), never with the results. The rule
verdicts of a row are one letter per rule (:data:`LETTERS`) in the scorecard's rule order, so two scorecards can be
compared rule by rule (:func:`.scorecard.diff`) without keeping any result's text.

Results of several doctrine or tool versions may be merged together; the scorecard counts each version, and says
``mixed_versions`` rather than hiding it. Two results of one server are refused, naming both files: a merge that
silently kept one would report whichever shard happened to be read last. A file that is not a result stops the
merge, naming it (:class:`~.result.ResultError`): a results folder with a stranger in it is worth a look before
a scorecard is published.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..audit.plan import NOT_CHECKED
from ..audit.server_text import clean
from .result import ResultError, read

if TYPE_CHECKING:
    from ..model import Corpus

FORMAT, FORMAT_VERSION = "mcp-handbook-fleet-scorecard", 1
STATUSES = ("PASS", "FAIL", "N/A", "not checked")
"""The columns of every count: N/A here is "does not apply"; a rule the audit could not judge is "not checked"."""
LETTERS = {"PASS": "P", "FAIL": "F", "inherited": "I", "N/A": "N", "not checked": "U", "absent": "."}
"""One letter per rule in a row's ``verdicts``: P pass, F fail (the server's own), I fail inherited from the SDK's
default, N does not apply, U not checked (unjudged), ``.`` absent (the result has no verdict for the rule: not
audited, or an older doctrine). Letters and a dot only, so a spreadsheet never reads the string as a formula."""
FAILED = frozenset("FI")
SEVERITY_ORDER = ("high", "medium", "low")
TEXT_LIMIT, NAME_LIMIT = 300, 200
MAX_WORDS = 20_000
"""Rule spellings remembered by one merge (:func:`_place`)."""


def result_files(paths: Iterable[Path]) -> Iterator[Path]:
    """Each file given, and every ``*.json`` under each folder given (recursively, sorted by path within a folder),
    yielded one at a time: a folder of ten thousand results is never listed whole."""
    for path in paths:
        if not path.is_dir():
            yield path
            continue
        for top, dirs, files in os.walk(path):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".json"):
                    yield Path(top) / name


def new_card(corpus: Corpus | None = None) -> dict[str, Any]:
    """An empty scorecard. With ``corpus``, the rules it knows link to their published pages: ``site`` is the root
    above the versions and each rule's ``page`` its path below one (the page shows each row's own version)."""
    return {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        "site": corpus.site if corpus is not None else "",
        "doctrine_versions": {}, "tool_versions": {}, "mixed_versions": False,
        "statuses": list(STATUSES), "letters": dict(LETTERS),
        "gates": [], "severities": [], "rules": [], "states": {}, "rows": [],
        "_index": {}, "_pages": _pages(corpus), "_words": {},
    }


def _pages(corpus: Corpus | None) -> dict[str, str]:
    if corpus is None:
        return {}
    return {r.id: r.path.removeprefix("content/").removesuffix(".md") + "/" for r in corpus.rules}


def merge_results(paths: Iterable[Path], *, corpus: Corpus | None = None) -> dict[str, Any]:
    """The scorecard of every result under ``paths`` (files or folders), each read once and kept only as its row.

    Raises :class:`~.result.ResultError` naming the file for a file that is not a result, and naming both files
    for two results of one server (the same ``key``)."""
    given = list(paths)
    card = new_card(corpus)
    seen: set[str] = set()
    for path in result_files(given):
        data = read(path)
        key = _text(data["key"], NAME_LIMIT)
        if key in seen:
            raise ResultError(f"{path}: a second result for server {key!r}; the first is {_first(given, key)}. "
                              "One server, one result: remove one of the two files (an older run's?) and merge again")
        seen.add(key)
        add_result(card, data, key)
    return finish(card)


def _first(paths: list[Path], key: str) -> Path | None:
    """The first file holding ``key``, found again only when a second one turns up: the merge keeps keys, not paths."""
    for path in result_files(paths):
        if _text(read(path)["key"], NAME_LIMIT) == key:
            return path
    return None


def add_result(card: dict[str, Any], data: dict[str, Any], key: str) -> None:
    """Reduce one result (read by :func:`~.result.read`) to its row, and count it."""
    doctrine, tool = _word(data["doctrine_version"]), _word(data["tool_version"])
    _count(card["doctrine_versions"], doctrine)
    _count(card["tool_versions"], tool)
    _count(card["states"], data["state"])
    card["rows"].append(_row(card, data, key, doctrine, tool))


def _row(card: dict[str, Any], data: dict[str, Any], key: str, doctrine: str, tool: str) -> dict[str, Any]:
    entry = data["entry"]
    exit_code = data.get("exit_code")
    seconds = data.get("seconds")
    row: dict[str, Any] = {
        "key": key, "name": _text(entry.get("name"), NAME_LIMIT), "version": _text(entry.get("version"), NAME_LIMIT),
        "package": _text(entry.get("package"), TEXT_LIMIT), "how": _word(entry.get("how")),
        "state": sys.intern(data["state"]), "why": _text(data.get("why"), TEXT_LIMIT),
        "server_name": _text(data.get("server_name"), NAME_LIMIT),
        "server_version": _text(data.get("server_version"), NAME_LIMIT), "sdk": _word(data.get("sdk")),
        "exit_code": exit_code if isinstance(exit_code, int) and not isinstance(exit_code, bool) else None,
        "seconds": float(seconds) if isinstance(seconds, int | float) and not isinstance(seconds, bool) else None,
        "sandbox": _word(data.get("sandbox")), "doctrine_version": doctrine, "tool_version": tool,
    }
    row.update(_verdicts(card, data["rules"]))
    return row


def _verdicts(card: dict[str, Any], rules: list[dict[str, Any]]) -> dict[str, Any]:
    """The counts, the HIGH failures and the letters of one result's rules (each rule id counted once)."""
    gates: dict[str, list[int]] = {}
    severities: dict[str, list[int]] = {}
    own: list[str] = []
    inherited: list[str] = []
    letters: dict[int, str] = {}
    known = card["_words"]
    for rule in rules:
        said = (rule["id"], rule.get("gate"), rule.get("severity"))
        place = known.get(said) if isinstance(said[1], str) and isinstance(said[2], str) else None
        if place is None:
            place = _place(card, rule)
        position, rule_id, gate, severity = place
        if position in letters:
            continue
        column, letter = _judged(rule)
        letters[position] = letter
        gates.setdefault(gate, [0, 0, 0, 0])[column] += 1
        severities.setdefault(severity, [0, 0, 0, 0])[column] += 1
        if letter in FAILED and severity == "high":
            (inherited if letter == "I" else own).append(rule_id)
    verdicts = "".join(letters.get(n, LETTERS["absent"]) for n in range(len(card["rules"])))
    not_checked = sum(counts[3] for counts in gates.values())
    return {"gates": gates, "severities": severities, "high_fails": own, "high_inherited": inherited,
            "not_checked": not_checked, "verdicts": verdicts}


def _place(card: dict[str, Any], rule: dict[str, Any]) -> tuple[int, str, str, str]:
    """A rule as a result names it (id, gate, severity), cleaned, with its position: worked out once per merge, then
    remembered (the same eighty rules come back in every result), up to a bound (a hostile result may vary them)."""
    rule_id, gate, severity = _word(rule["id"]), _word(rule.get("gate")), _word(rule.get("severity"))
    place = (_position(card, rule_id, rule), rule_id, gate, severity)
    said = (rule["id"], rule.get("gate"), rule.get("severity"))
    if len(card["_words"]) < MAX_WORDS and isinstance(said[1], str) and isinstance(said[2], str):
        card["_words"][said] = place
    return place


def _judged(rule: dict[str, Any]) -> tuple[int, str]:
    """The count column (index in :data:`STATUSES`) and the letter of one rule verdict."""
    status = rule["status"]
    if status == "PASS":
        return 0, LETTERS["PASS"]
    if status == "FAIL":
        return 1, LETTERS["inherited"] if rule.get("inherited") is True else LETTERS["FAIL"]
    if rule.get("na") == NOT_CHECKED:
        return 3, LETTERS["not checked"]
    return 2, LETTERS["N/A"]  # "does not apply", or an N/A that does not say (an older result): it was judged



def _position(card: dict[str, Any], rule_id: str, rule: dict[str, Any]) -> int:
    """The rule's place in the scorecard's order; a rule seen first now is appended (earlier rows stay prefixes,
    padded with the absent letter by :func:`finish`). Gate and severity are the first result's that names it."""
    index = card["_index"]
    position = index.get(rule_id)
    if position is None:
        position = index[rule_id] = len(card["rules"])
        gate, severity = _word(rule.get("gate")), _word(rule.get("severity"))
        card["rules"].append({"id": rule_id, "gate": gate, "severity": severity,
                              "page": card["_pages"].get(rule_id, "")})
        if gate not in card["gates"]:
            card["gates"].append(gate)
        if severity not in card["severities"]:
            card["severities"].append(severity)
    return position


def finish(card: dict[str, Any]) -> dict[str, Any]:
    """Pad every row's letters to the full rule order, order the severities, and drop the merge's own indexes."""
    width = len(card["rules"])
    for row in card["rows"]:
        row["verdicts"] = row["verdicts"].ljust(width, LETTERS["absent"])
    known = [s for s in SEVERITY_ORDER if s in card["severities"]]
    card["severities"] = known + [s for s in card["severities"] if s not in known]
    card["mixed_versions"] = len(card["doctrine_versions"]) > 1 or len(card["tool_versions"]) > 1
    card.pop("_index", None)
    card.pop("_pages", None)
    card.pop("_words", None)
    return card


def _count(counts: dict[str, int], value: str) -> None:
    counts[value] = counts.get(value, 0) + 1


def _text(value: object, limit: int) -> str:
    """Text a result carries (a server chose some of it): a string, control characters shown, bounded."""
    return clean(value)[:limit] if isinstance(value, str) else ""


def _word(value: object) -> str:
    """A short repeated value (a gate, a version, an SDK): bounded, and interned so ten thousand rows share it."""
    return sys.intern(clean(value)[:80]) if isinstance(value, str) else ""
