"""How many tokens a text costs an agent that loads it: the skill's budgets are held in these.

With ``bpe-openai`` installed (a test extra: its Rust core carries the encodings, so it counts offline), texts are
counted with the ``cl100k_base`` encoding: a real BPE tokenizer, though not the one every model uses (Claude's own
is not published for offline use), so a count is a close proxy, not the number a given model bills. Without it,
the count is an estimate: characters / 4, rounded up, the usual rule of thumb for English prose (code and tables
run a little denser). :func:`method` says which one a count came from, and every report of a count names it.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable

ENCODING = "cl100k_base"
CHARS_PER_TOKEN = 4


@functools.cache
def _encoder() -> Callable[[str], list[int]] | None:
    with warnings.catch_warnings():  # it reads its encodings with importlib.resources.open_binary, deprecated
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            import bpe_openai
        except ImportError:
            return None
        encode = bpe_openai.get_encoding(ENCODING).encode
        encode("loaded")  # any data still read lazily is read here, with the warning silenced
    return encode


def estimate(text: str) -> int:
    """Characters / 4, rounded up: the documented estimate."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def count_tokens(text: str) -> int:
    """Tokens of ``text``: counted with :data:`ENCODING` when a tokenizer is installed, else :func:`estimate`."""
    encode = _encoder()
    return len(encode(text)) if encode is not None else estimate(text)


def method() -> str:
    """Which count :func:`count_tokens` gives here, in words."""
    if _encoder() is not None:
        return f"{ENCODING} (bpe-openai tokenizer)"
    return f"estimate: characters / {CHARS_PER_TOKEN}, rounded up (no tokenizer installed: pip install bpe-openai)"
