"""``find_rules``: the rules that match every filter given, a bounded page at a time.

The filters are the worksheet export's (gate, profile, severity) plus a threat id and free text, so an agent asks
the server the questions a reviewer asks the site. A page holds at most :data:`MAX_LIMIT` rules; the cursor that
continues it is tied to the query it came from, so a cursor from another query is refused, not silently reused.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..fields import in_profile
from ..model import Corpus, Rule

DEFAULT_LIMIT = 10
MAX_LIMIT = 50
MAX_TEXT = 200


class SearchError(ValueError):
    """A query that cannot be answered: the message names the argument and what it may be."""


@dataclass(frozen=True, slots=True)
class Query:
    text: str = ""
    gate: str = ""
    profile: str = ""
    threat: str = ""
    severity: str = ""

    def key(self) -> str:
        """A short digest of the query, written into its cursors."""
        raw = json.dumps([self.text.lower(), self.gate, self.profile, self.threat.upper(), self.severity])
        return hashlib.sha256(raw.encode()).hexdigest()[:12]


def _words(text: str) -> list[str]:
    return [w for w in re.split(r"[^a-z0-9-]+", text.lower()) if w]


def _score(rule: Rule, words: Sequence[str]) -> int:
    """0 when a word is missing from the rule's id, title, summary and prose; else higher for id and title hits."""
    head = f"{rule.id} {rule.title}".lower()
    rest = f"{rule.summary} {rule.body}".lower()
    score = 0
    for word in words:
        if word in head:
            score += 3
        elif word in rest:
            score += 1
        else:
            return 0
    return score


def _kept(rule: Rule, query: Query) -> bool:
    return ((not query.gate or rule.gate == query.gate)
            and (not query.profile or in_profile(rule.basis, query.profile))
            and (not query.severity or rule.severity == query.severity)
            and (not query.threat or query.threat.upper() in rule.threats))


def matching(corpus: Corpus, query: Query) -> list[Rule]:
    """Every rule that passes the filters, best text match first, else in checklist order."""
    if len(query.text) > MAX_TEXT:
        raise SearchError(f"text: {len(query.text)} characters; at most {MAX_TEXT}")
    if query.gate and corpus.gate(query.gate) is None:
        raise SearchError(f"gate: unknown {query.gate!r}; one of {', '.join(g.key for g in corpus.gates)}")
    kept = [r for r in corpus.rules if _kept(r, query)]
    words = _words(query.text)
    if not words:
        return kept
    scored = [(_score(r, words), i, r) for i, r in enumerate(kept)]
    return [r for score, _, r in sorted(scored, key=lambda t: (-t[0], t[1])) if score]


def encode_cursor(query: Query, offset: int) -> str:
    return base64.urlsafe_b64encode(f"{query.key()}:{offset}".encode()).decode().rstrip("=")


def decode_cursor(query: Query, cursor: str) -> int:
    """The offset a cursor continues from; SearchError when it was not issued for this query."""
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        key, offset = text.split(":")
        start = int(offset)
    except (ValueError, UnicodeDecodeError):
        raise SearchError("cursor: not a cursor this server issued (pass the next_cursor of the previous page, or "
                          "leave it out to start again)") from None
    if key != query.key() or start < 0:
        raise SearchError("cursor: issued for another query; send the same text and filters as the page it came "
                          "from, or leave it out to start again")
    return start


def page(corpus: Corpus, query: Query, *, limit: int = DEFAULT_LIMIT, cursor: str = "") -> tuple[list[Rule], int, str]:
    """One page of matches: the rules, how many match in all, and the cursor of the next page ("" at the end)."""
    if not 1 <= limit <= MAX_LIMIT:
        raise SearchError(f"limit: {limit}; between 1 and {MAX_LIMIT}")
    found = matching(corpus, query)
    start = decode_cursor(query, cursor) if cursor else 0
    end = start + limit
    return found[start:end], len(found), encode_cursor(query, end) if end < len(found) else ""
