"""Lex the content's code blocks in a second process while the build starts, and serve mkdocs from that.

Why: pygments' lexers are the largest single cost of the site build (about
0.6 s of lexing for some 230 blocks and 4,000 lines of Python), and the work
needs nothing but the markdown files. :func:`lex_code_blocks` runs in a
forked child (see :mod:`mcp_handbook.forked`) from the first moment of the
build, while this process parses the corpus and starts mkdocs; then
:func:`served_from` lets the highlighter take each block's tokens from the
child's table instead of lexing again.

Safe by construction: a token list is used only for the same lexer class,
the same options and the very same text, so the highlighted HTML is
byte-for-byte what pygments makes on its own (``tests/site`` checks this for
every block); anything the table lacks, or a child that failed, is simply
lexed here as before. That is also why the fences are found with a regular
expression rather than the corpus's markdown-it parse: the child runs beside
that parse, not after it, and also reads pages that hold no rule; a fence it
reads differently only costs a lexing here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pygments import token as pygments_token
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<lang>[\w+#.-]+)[^\n]*\n(?P<code>.*?)^(?P=indent)(?P=fence)[ \t]*$",
    re.M | re.S,
)
LEXER_OPTIONS = {"stripnl": True}
"""What pymdownx.highlight hands every block lexer (its ``stripnl`` default, as mkdocs.yml leaves it)."""

Key = tuple[str, tuple[tuple[str, Any], ...], str]
Tokens = list[tuple[int, str]]
Table = tuple[list[tuple[str, ...]], dict[Key, Tokens]]
"""The child's answer: the token types used, then each block's tokens as (type index, text)."""


def _key(lexer: Lexer, text: str) -> Key:
    return type(lexer).__qualname__, tuple(sorted(lexer.options.items(), key=lambda kv: kv[0])), text


def code_blocks(content: Path) -> Iterator[tuple[str, str]]:
    """(language, code) of every fenced block in the content's markdown, as superfences hands it on."""
    for path in sorted(content.rglob("*.md")):
        for m in FENCE.finditer(path.read_text(encoding="utf-8")):
            indent = len(m["indent"])
            lines = m["code"].split("\n")[:-1]
            yield m["lang"], "\n".join(line[indent:] if not line[:indent].strip() else line.lstrip() for line in lines)


def lex_code_blocks(content: Path) -> Table:
    """Lex every block once; the table is plain tuples and strings, cheap to send between processes."""
    types: dict[tuple[str, ...], int] = {}
    table: dict[Key, Tokens] = {}
    lexers: dict[str, Lexer] = {}
    for language, code in code_blocks(content):
        if language not in lexers:
            try:
                lexers[language] = get_lexer_by_name(language, **LEXER_OPTIONS)
            except ClassNotFound:
                continue
        lexer = lexers[language]
        if lexer.filters:
            continue
        key = _key(lexer, code)
        if key not in table:
            table[key] = [(types.setdefault(tuple(ttype), len(types)), value) for ttype, value in lexer.get_tokens(code)]
    return list(types), table


@functools.lru_cache(maxsize=None)
def _token_type(names: tuple[str, ...]) -> Any:
    return functools.reduce(getattr, names, pygments_token.Token)  # the pygments singleton itself


@contextmanager
def served_from(answer: Callable[[], Table]) -> Iterator[dict[str, int]]:
    """Within the block, lexers take their tokens from ``answer()`` (called once, on first use).

    Yields counters (``served``, ``lexed``) so tests can see the table was used.
    """
    original = Lexer.get_tokens
    counts = {"served": 0, "lexed": 0}
    memo: dict[Key, list[tuple[Any, str]]] = {}
    loaded: list[bool] = []

    def load() -> None:
        loaded.append(True)
        Lexer.get_tokens = original  # type: ignore[method-assign]  # answer() may lex here (no child)
        try:
            types, table = answer()
        finally:
            Lexer.get_tokens = get_tokens  # type: ignore[method-assign]
        resolved = [_token_type(names) for names in types]
        memo.update({key: [(resolved[i], value) for i, value in tokens] for key, tokens in table.items()})

    def get_tokens(self: Lexer, text: str, unfiltered: bool = False) -> Any:
        if not self.filters:  # the child's lexers have none either
            if not loaded:
                load()
            tokens = memo.get(_key(self, text))
            if tokens is not None:
                counts["served"] += 1
                return iter(tokens)
        counts["lexed"] += 1
        return original(self, text, unfiltered)

    Lexer.get_tokens = get_tokens  # type: ignore[method-assign]
    try:
        yield counts
    finally:
        Lexer.get_tokens = original  # type: ignore[method-assign]
