"""Compile the theme's Jinja templates in a second process, and let the build load them compiled.

Why: every mkdocs build makes a new Jinja environment and compiles the
theme's templates again, about 0.35 s of this build, all before the first
page is written. The templates need nothing from the content, so a forked
child (see :mod:`mcp_handbook.forked`) compiles them while this process reads
the pages, and hands back Jinja's own bytecode-cache entries.
:func:`serve_compiled` puts them behind the build's environment as a
``jinja2.BytecodeCache``.

Safe by construction: Jinja itself checks each entry against the template's
source checksum and its own version tag, and the whole table is used only
when the child's environment was configured like the build's (extensions,
autoescape, delimiters, and each filter's and test's calling convention,
which shape the generated code). Anything else is compiled here as usual.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import jinja2
from jinja2 import meta

from .state import config_file

ENTRY_TEMPLATES = ("main.html", "404.html", "sitemap.xml")
"""What mkdocs renders directly; every template they reach by a literal name is compiled."""

Compiled = tuple[str, dict[str, bytes]]
"""(environment fingerprint, bytecode by Jinja bucket key)."""


def environment_fingerprint(env: jinja2.Environment) -> str:
    """What, besides the source, decides the code Jinja generates for a template."""
    parts = [
        repr(sorted(env.extensions)), repr(env.autoescape), repr(env.optimized), repr(env.finalize is None),
        repr((env.block_start_string, env.block_end_string, env.variable_start_string, env.variable_end_string,
              env.comment_start_string, env.comment_end_string, env.line_statement_prefix, env.line_comment_prefix,
              env.trim_blocks, env.lstrip_blocks, env.newline_sequence, env.keep_trailing_newline)),
    ]
    for kind, table in (("filter", env.filters), ("test", env.tests)):
        parts += [f"{kind}:{name}:{jinja2.utils._PassArg.from_obj(fn)}" for name, fn in sorted(table.items())]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


class _Table(jinja2.BytecodeCache):
    """An in-memory bytecode cache: records what is compiled, serves what it was given."""

    def __init__(self, table: dict[str, bytes] | None = None) -> None:
        self.table: dict[str, bytes] = dict(table or {})
        self.served = 0

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        data = self.table.get(bucket.key)
        if data is not None:
            bucket.bytecode_from_string(data)  # Jinja drops it on a version or checksum mismatch
            self.served += bucket.code is not None

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.table[bucket.key] = bucket.bytecode_to_string()


def _reachable(env: jinja2.Environment, entries: tuple[str, ...]) -> list[str]:
    seen: list[str] = []
    todo = list(entries)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        try:
            source, _, _ = env.loader.get_source(env, name)  # type: ignore[union-attr]
            todo += [n for n in meta.find_referenced_templates(env.parse(source)) if n]
        except jinja2.TemplateError:
            continue
        seen.append(name)
    return seen


def compile_theme_templates(config_file: Path) -> Compiled:
    """In the child: load the config, make the theme's environment, compile every reachable template."""
    from mkdocs.config import load_config

    logging.getLogger("mkdocs").setLevel(logging.ERROR)  # the build itself reports config problems
    env = load_config(str(config_file)).theme.get_env()
    table = _Table()
    env.bytecode_cache = table
    for name in _reachable(env, ENTRY_TEMPLATES):
        try:
            env.get_template(name)
        except jinja2.TemplateError:
            continue  # e.g. needs a filter only a plugin adds: the build compiles it itself
    return environment_fingerprint(env), table.table


def serve_compiled(env: jinja2.Environment, answer: Callable[[], Compiled]) -> _Table | None:
    """Put the child's templates behind ``env`` when its configuration matches; return the cache used."""
    if env.bytecode_cache is not None:
        return None  # somebody configured one: leave it
    fingerprint, table = answer()
    if fingerprint != environment_fingerprint(env):
        return None
    cache = _Table(table)
    env.bytecode_cache = cache
    return cache


_PENDING: dict[Path, Callable[[], Compiled]] = {}


@contextmanager
def compiled_for(path: Path, answer: Callable[[], Compiled]) -> Iterator[None]:
    """Within the block, a build of the mkdocs.yml at ``path`` takes its compiled templates from ``answer()``."""
    key = path.resolve()
    _PENDING[key] = answer
    try:
        yield
    finally:
        _PENDING.pop(key, None)


def use_compiled(env: jinja2.Environment, config: Any) -> jinja2.Environment:
    """The ``on_env`` hook's work: serve the templates compiled for this build, if any were."""
    answer = _PENDING.pop(config_file(config), None)
    if answer is not None:
        serve_compiled(env, answer)
    return env
