"""One server a fleet audits: what it is, where it was read, how it runs, or what it needs before it can."""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, field
from typing import Any

HOW = ("npm", "pypi", "oci", "nuget", "mcpb", "remote", "command")
"""How an entry runs: a package of one of the registry's types (nuget and mcpb are read but not run yet), a remote
endpoint, or a plain command."""


@dataclass(frozen=True, slots=True)
class Entry:
    """A server to audit, planned: everything a worker needs, and nothing secret (secrets are named, never kept)."""

    name: str
    """The registry's name (``io.github.owner/server``), or the command's first word for a plain command."""
    version: str
    """The version the entry judges: the package's version, or "" when the entry does not say."""
    how: str
    """One of :data:`HOW`."""
    package: str
    """What runs, as a person names it: ``npm:@scope/pkg@1.2.3``, ``pypi:pkg==1.2.3``, ``oci:image:tag``, the URL."""
    source: str
    """Where the entry was read: the file, and the index inside it when the file holds several."""
    title: str = ""
    transport: str = "stdio"
    """``stdio``, ``streamable-http`` or ``sse`` (as server.json names them)."""
    command: tuple[str, ...] = ()
    """The argv a host would run (stdio, or a local HTTP server the worker starts); empty for a remote."""
    url: str = ""
    """The endpoint to audit over HTTP (a remote, or a local HTTP server once started)."""
    env: tuple[tuple[str, str], ...] = ()
    """Environment values the entry sets (defaults and fixed values; never a secret)."""
    secrets: tuple[str, ...] = ()
    """Names of secret variables taken from the worker's environment at run time, never written anywhere."""
    network: bool = False
    """The server declares it needs the network; a sandbox then leaves it on."""
    needs: str = ""
    """Why it cannot be audited here ("needs uvx or pipx to run a PyPI package"); "" when it can."""
    audit_args: tuple[str, ...] = field(default=())
    """Extra ``mcp-handbook audit`` options for this entry (``--no-tool-calls``, ``--root``...)."""
    resolved: tuple[str, ...] = ()
    """The program the runner would start and its arguments, found once the package is installed
    (:mod:`.resolve`): what the audit runs instead of ``command``; empty before that, or when the runner would not
    say."""

    @property
    def key(self) -> str:
        """A stable, file-name-safe key: the name and version, readable, with a short hash of what runs so two ways
        to run one server never share a result file."""
        return entry_key(self.name, self.version, self.package)

    def to_json(self) -> dict[str, Any]:
        """As JSON reads it back (lists, not tuples), so a plan compares equal to the plan file it was written to."""
        data: dict[str, Any] = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}
        data["env"] = [list(pair) for pair in self.env]
        data["key"] = self.key
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Entry:
        known = {f for f in cls.__dataclass_fields__}
        values = {k: v for k, v in data.items() if k in known}
        for name in ("command", "secrets", "audit_args", "resolved"):
            values[name] = tuple(values.get(name, ()))
        values["env"] = tuple((str(k), str(v)) for k, v in values.get("env", ()))
        return cls(**values)


UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def entry_key(name: str, version: str, package: str) -> str:
    readable = UNSAFE.sub("_", f"{name}@{version}" if version else name).strip("_")[:80] or "server"
    digest = hashlib.sha256(package.encode()).hexdigest()[:8]
    return f"{readable}-{digest}"
