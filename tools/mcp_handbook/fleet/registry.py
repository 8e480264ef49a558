"""MCP Registry ``server.json`` input read into :class:`~.entry.Entry` objects, one per way to run a server.

A source is a ``server.json`` file, a folder of them (every ``*.json`` below it, sorted), a JSON list of them, or a
registry API export saved to disk: ``{"servers": [{"server": {...}, "_meta": {...}}, ...], "metadata": {...}}``,
or the older flat form where each item of ``servers`` is the server itself. A plain command is accepted too, as an
object ``{"command": [argv...], "name"?, "version"?, "audit_args"?, "network"?}`` in a list or a file of its own.

Field names are the schema's camelCase (2025-09-16 onward). The snake_case names the schema used before that date
(``registry_type``, ``registry_base_url``, ``runtime_hint``, ``runtime_arguments``, ``package_arguments``,
``environment_variables``, ``is_required``, ``is_secret``, ``is_repeated``, ``value_hint``, ``file_sha256``,
``transport_type`` on a remote, ``version_detail.version`` on the server) are read as well, as the schema's own
changelog lists them, and so are ``registry_name`` and a package's ``name`` from the drafts before 2025-07-09.
``registryBaseUrl`` is not passed on: a host runs a package from the registry it is configured for, and so does
the fleet.

Each package runs the way a host runs it (:mod:`.launch`); a package or remote that cannot run on this machine
becomes an entry whose ``needs`` says why, so the scorecard lists it as "not audited" instead of losing it. Only
input that is not a ``server.json`` at all raises :class:`RegistryError`, naming the file, the index and the field.

``network`` is off unless the entry declares it. The schema has no field for it, so the fleet reads its own
convention: ``"network": true`` in the server's ``_meta["io.modelcontextprotocol.registry/publisher-provided"]``
(the namespace the schema reserves for what a publisher adds). A remote always has the network.

Two sources that give the same key (same name, version and package) are one server: the first one read is kept and
later ones are dropped, so a folder and an export that overlap audit each server once.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import bounded_json
from .entry import Entry
from .launch import Context, RegistryError, field, flag, items, package_entry, remote_entry, text

__all__ = ["MAX_SOURCE_BYTES", "RegistryError", "read_entries"]

MAX_SOURCE_BYTES = 64_000_000
"""The largest source file read: a whole registry export is a few megabytes; past this it is not one."""

PUBLISHER = "io.modelcontextprotocol.registry/publisher-provided"


def read_entries(sources: Sequence[Path], *, environ: Mapping[str, str] | None = None,
                 which: Callable[[str], str | None] = shutil.which) -> list[Entry]:
    """Every entry the sources describe, in source order, each key once (the first wins).

    ``environ`` is where secrets would come from at run time (only their names are kept); ``which`` finds runners
    (``npx``, ``uvx``, ``docker``...), so a test can take one away."""
    env = os.environ if environ is None else environ
    context = Context(environ=env, which=which)
    entries: list[Entry] = []
    seen: set[str] = set()
    for path in _files(sources):
        for where, item in _items_of(path):
            for entry in _entries_of(item, where, context):
                if entry.key not in seen:
                    seen.add(entry.key)
                    entries.append(entry)
    return entries


def _files(sources: Sequence[Path]) -> Iterator[Path]:
    for source in sources:
        path = Path(source)
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*.json") if p.is_file())
        elif path.is_file():
            yield path
        else:
            raise RegistryError(f"{path}: no such file or folder")


def _load(path: Path) -> Any:
    try:
        with path.open("rb") as f:
            data = f.read(MAX_SOURCE_BYTES + 1)
    except OSError as e:
        raise RegistryError(f"{path}: cannot read: {e.strerror or e}") from None
    if len(data) > MAX_SOURCE_BYTES:
        raise RegistryError(f"{path}: larger than {MAX_SOURCE_BYTES:,} bytes, not a server.json source")
    try:
        return bounded_json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:
        raise RegistryError(f"{path}: not JSON: {e}") from None


def _items_of(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each server (or plain command) in one file, with where it is: ``file``, ``file: [3]``, ``file: servers[3]``."""
    data = _load(path)
    if isinstance(data, dict) and "servers" in data and "name" not in data:
        servers = data["servers"]
        if not isinstance(servers, list):
            raise RegistryError(f'{path}: "servers" is not a list')
        listed = [(f"{path}: servers[{i}]", item) for i, item in enumerate(servers)]
    elif isinstance(data, list):
        listed = [(f"{path}: [{i}]", item) for i, item in enumerate(data)]
    elif isinstance(data, dict):
        listed = [(str(path), data)]
    else:
        raise RegistryError(f"{path}: not a server.json (a JSON object), a list of them or a registry export")
    for where, item in listed:
        if not isinstance(item, dict):
            raise RegistryError(f"{where}: not a JSON object")
        yield where, item


def _entries_of(item: dict[str, Any], where: str, context: Context) -> list[Entry]:
    if "command" in item:
        return [_command_entry(item, where, context)]
    server, wrapper_meta = item, dict[str, Any]()
    if isinstance(item.get("server"), dict):  # an API export's item: {"server": {...}, "_meta": {...}}
        server = item["server"]
        wrapper_meta = item["_meta"] if isinstance(item.get("_meta"), dict) else {}
    name = text(server, "name", where, required=True)
    version = text(server, "version", where)
    if not version and isinstance(server.get("version_detail"), dict):
        version = text(server["version_detail"], "version", f"{where}: version_detail")
    title = text(server, "title", where)
    network = _declares_network(server, wrapper_meta, where)
    entries = [package_entry(package, f"{where}: packages[{i}]", context, name=name, version=version,
                             title=title, source=where, network=network)
               for i, package in enumerate(items(server, "packages", where))]
    entries += [remote_entry(remote, f"{where}: remotes[{i}]", context, name=name, version=version, title=title,
                             source=where)
                for i, remote in enumerate(items(server, "remotes", where))]
    if not entries:
        raise RegistryError(f'{where}: no "packages" and no "remotes": nothing to run')
    return entries


def _declares_network(server: dict[str, Any], wrapper_meta: dict[str, Any], where: str) -> bool:
    """The fleet's convention: ``"network": true`` in the publisher-provided ``_meta`` (of the server, or of an
    export's wrapper, where some exports move it)."""
    found = [meta[PUBLISHER] for meta in (server.get("_meta"), wrapper_meta)
             if isinstance(meta, dict) and isinstance(meta.get(PUBLISHER), dict)]
    return any(flag(provided, "network", f"{where}: _meta.{PUBLISHER}") for provided in found)


def _command_entry(item: dict[str, Any], where: str, context: Context) -> Entry:
    command = field(item, "command", where)
    if not isinstance(command, list) or not command or not all(isinstance(a, str) and a for a in command):
        raise RegistryError(f'{where}: "command" is not a non-empty list of strings')
    audit_args = item.get("audit_args", [])
    if not isinstance(audit_args, list) or not all(isinstance(a, str) for a in audit_args):
        raise RegistryError(f'{where}: "audit_args" is not a list of strings')
    program = command[0]
    found = context.which(program) or (os.sep in program and os.access(program, os.X_OK))
    return Entry(
        name=text(item, "name", where) or Path(program).name, version=text(item, "version", where), how="command",
        package=shlex.join(command), source=where, command=tuple(command), audit_args=tuple(audit_args),
        network=flag(item, "network", where), needs="" if found else f"needs {program}, which is not found here")
