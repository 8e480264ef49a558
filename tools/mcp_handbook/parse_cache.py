"""The parsed content, kept on disk by the hash of everything it was parsed from.

Parsing ``content/`` (markdown-it over every rule, YAML, link checks) is most of what the toolchain does
before any reader starts: about a third of a second for 90 rules, paid again by every build, export and
check. :func:`parse_cached` returns the same :class:`~.model.Corpus` as :func:`~.parse.parse_content`,
from a file named by a hash of every file under ``content/`` (names and bytes), the parser's own sources
and the versions of the libraries it parses with. Any change to any of them is another hash, so a cached
corpus is never stale; a cache that cannot be read or written is ignored (the content is parsed).

The files live in the user's cache folder (``$XDG_CACHE_HOME/mcp-handbook``, else ``~/.cache/mcp-handbook``),
never in the checkout, so a cloned repository cannot bring a pickle with it. ``MCP_HANDBOOK_CACHE=off``
turns it off; the newest :data:`KEEP` files are kept.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import sys
import tempfile
from pathlib import Path

from .model import Corpus
from .parse import RULES_DIR, parse_content

KEEP = 16
"""Cached corpora kept (tests make many copies of the handbook; each is its own entry)."""
PARSER_SOURCES = ("parse.py", "model.py", "fields.py", "parse_cache.py")
"""The code a parsed corpus depends on, beside the content itself."""


def _sources_digest() -> bytes:
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in PARSER_SOURCES:
        digest.update((package / name).read_bytes() + b"\0")
    return digest.digest()


RUNNING_SOURCES = _sources_digest()
"""The parser's sources as this process loaded them (read once, at import, right after the modules themselves).
Reading them again at each parse would key a corpus that this process's older code parsed under the newer
files' hash, if they were edited while it ran (a long test run did exactly that)."""


def cache_dir() -> Path | None:
    if os.environ.get("MCP_HANDBOOK_CACHE", "").lower() in ("off", "0", "no"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mcp-handbook"


def content_key(root: Path, content_dir: str) -> str:
    """A hash of everything ``parse_content(root)`` reads, and of the code that reads it. Where the checkout is
    is not part of it (nothing parsed depends on it but :attr:`Corpus.root`, set on reading): a copy of the
    handbook with the same files is the same entry."""
    import markdown_it
    import yaml

    digest = hashlib.sha256()
    for part in (content_dir, sys.version, markdown_it.__version__, yaml.__version__, RULES_DIR):
        digest.update(part.encode("utf-8") + b"\0")
    digest.update(RUNNING_SOURCES)
    content = root / content_dir
    for path in sorted(content.rglob("*")):  # folders too: a link may name one, and the link check asks if it exists
        name = path.relative_to(root).as_posix().encode("utf-8")
        if path.is_symlink():  # where a link leads decides whether a relative link "leaves content/"
            name += b"\0->" + os.fsencode(os.readlink(path))
        digest.update(name + (b"\0" + path.read_bytes() if path.is_file() else b"/") + b"\0")
    return digest.hexdigest()


def parse_cached(root: Path, *, content_dir: str = "content") -> Corpus:
    """:func:`~.parse.parse_content`, or its result from the last parse of exactly these files."""
    root = root.resolve()
    folder = cache_dir()
    if folder is None or not (root / content_dir).is_dir():
        return parse_content(root, content_dir=content_dir)
    try:
        key = content_key(root, content_dir)
    except OSError:  # a file vanished or cannot be read: the parser reports it properly
        return parse_content(root, content_dir=content_dir)
    path = folder / f"corpus-{key}.pickle"
    try:
        with path.open("rb") as f:
            corpus = pickle.load(f)
        if isinstance(corpus, Corpus):
            os.utime(path)  # recently used: kept when older entries are pruned
            return corpus if corpus.root == root else dataclasses.replace(corpus, root=root)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError):
        pass
    corpus = parse_content(root, content_dir=content_dir)
    _store(folder, path, corpus)
    return corpus


def _store(folder: Path, path: Path, corpus: Corpus) -> None:
    """Write atomically (a reader never sees half a file), then keep only the newest :data:`KEEP` entries."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".corpus-", delete=False) as tmp:
            pickle.dump(corpus, tmp, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp.name, path)
        entries = sorted(folder.glob("corpus-*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[KEEP:]:
            old.unlink(missing_ok=True)
    except OSError:
        try:
            os.unlink(tmp.name)
        except (OSError, UnboundLocalError):
            pass
