"""A Streamable HTTP server's session ids are visible ASCII, never repeat, and are too long and too random to guess.

A handshake-era server MAY hand out an ``Mcp-Session-Id`` with the ``initialize`` answer; the id MUST be
visible ASCII and SHOULD be globally unique and cryptographically secure (2025-11-25 Streamable HTTP,
session management). Whoever guesses a live id can speak inside that session. The probe opens a few sessions
and judges the ids it gets: visible ASCII, all different, at least 128 bits by the alphabet they use, and
not near copies of each other (a counter, a clock, a time-based UUID). Randomness that is merely derived from
the clock (a hash of the time) cannot be seen from outside.
"""

from __future__ import annotations

import itertools
import math
import re
import string

from ..http import endpoint, initialize_message, row, send
from ..registry import probe
from ..support import Finding, Target, failed, not_applicable, passed

SESSIONS = 3
MIN_BITS = 128
MAX_SHARED = 0.5
"""Two random ids agree in few positions (one in 16 for hex); ids that agree in more than half are not random."""
UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
ALPHABETS = (  # (characters, size), smallest first: an id's alphabet is the first that holds all its characters
    (set(string.digits), 10),
    (set(string.digits + "abcdef"), 16),
    (set(string.digits + "ABCDEF"), 16),
    (set(string.digits + string.ascii_lowercase), 36),
    (set(string.digits + string.ascii_uppercase), 36),
    (set(string.digits + string.ascii_letters), 62),
    (set(string.digits + string.ascii_letters + "-_"), 64),
    (set(string.digits + string.ascii_letters + "+/="), 64),
)


def estimated_bits(ids: list[str]) -> float:
    """What the ids could hold at most: their length times the bits of the smallest alphabet that spells them
    (a UUID's hyphens do not count)."""
    bare = [i.replace("-", "") if UUID.match(i) else i for i in ids]
    used = set("".join(bare))
    size = next((n for chars, n in ALPHABETS if used <= chars), 94)
    return min(len(i) for i in bare) * math.log2(size)


def shared_fraction(a: str, b: str) -> float:
    """The fraction of positions at which two ids have the same character."""
    same = sum(x == y for x, y in zip(a, b))
    return same / max(len(a), len(b))


def _visible_ascii(value: str) -> bool:
    return bool(value) and all(0x21 <= ord(c) <= 0x7E for c in value)


@probe("http_session_ids_unguessable", "session ids are visible ASCII, unique and unguessable",
       over_http=True, reasons={"session_id_not_visible_ascii": "a session id holds a character outside visible ASCII (0x21 to 0x7E)",
                "session_id_repeated": "two sessions got the same id",
                "session_id_short": f"a session id holds fewer than {MIN_BITS} bits by its length and alphabet",
                "session_id_predictable": "consecutive session ids are near copies of each other (a counter, a clock, "
                                          "a time-based UUID)"})
def http_session_ids_unguessable(target: Target) -> Finding:
    point = endpoint(target)
    ids: list[str] = []
    evidence: list[str] = []
    for n in range(SESSIONS):
        answer = send(target, point, initialize_message(n + 1))
        evidence.append(row(point, "initialize", {}, answer))
        session_id = answer.headers.get("mcp-session-id")
        if session_id is None:
            return not_applicable("the server issued no Mcp-Session-Id with its initialize answer "
                                  f"(HTTP {answer.status}): it keeps no sessions to judge", *evidence)
        ids.append(session_id)
    evidence.append(f"ids seen: {len(ids)}, lengths {', '.join(str(len(i)) for i in ids)}")
    bad = next((i for i in ids if not _visible_ascii(i)), None)
    if bad is not None:
        return failed("session_id_not_visible_ascii", "a session id holds a character outside visible ASCII "
                      "(0x21 to 0x7E)",
                      *evidence)
    if len(set(ids)) < len(ids):
        return failed("session_id_repeated", f"{len(ids)} sessions got only {len(set(ids))} distinct id(s): "
                      "a client can land in another client's session", *evidence)
    bits = estimated_bits(ids)
    if bits < MIN_BITS:
        return failed("session_id_short", f"session ids of {len(ids[0])} characters hold at most {bits:.0f} bits, fewer than "
                      f"{MIN_BITS}: they can be guessed", *evidence)
    worst = max(shared_fraction(a, b) for a, b in itertools.pairwise(ids))
    if worst > MAX_SHARED:
        return failed("session_id_predictable", "consecutive session ids agree in more than half of their "
                      "positions: each is guessable from the last", *evidence)
    return passed(f"{len(ids)} sessions got distinct visible-ASCII ids of at least {MIN_BITS} bits, "
                  "no two consecutive ones alike in more than half of their positions", *evidence)
