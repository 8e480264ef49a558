"""One ``server.json`` package or remote turned into an :class:`~.entry.Entry`: the command a host would run, the
environment it would set, the secrets it would take, or what it needs before it can run here.

A package runs as the registry's clients run it: npm with ``npx -y NAME@VERSION``, PyPI with ``uvx NAME==VERSION``
(``pipx run`` when uv is missing), an OCI image with ``docker run -i --rm`` (only when a container runtime
answers). Runtime arguments go to the runner, package arguments after the package. MCP bundles and NuGet packages
are not run by the fleet: their entries say what they would need.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field as dataclass_field
from typing import Any

from .entry import HOW, Entry


class RegistryError(ValueError):
    """Input that is not a server.json (or list, or export): the message names the file, the index and the field."""


@dataclass
class Context:
    environ: Mapping[str, str]
    which: Callable[[str], str | None] = shutil.which
    containers: dict[str, bool] = dataclass_field(default_factory=dict)
    """Which container runtimes answered ``info``, asked once per read."""


ALIASES = {
    "registryType": ("registry_type", "registry_name"), "runtimeHint": ("runtime_hint",),
    "runtimeArguments": ("runtime_arguments",), "packageArguments": ("package_arguments",),
    "environmentVariables": ("environment_variables",), "isRequired": ("is_required",),
    "isSecret": ("is_secret",), "isRepeated": ("is_repeated",), "valueHint": ("value_hint",),
    "identifier": ("name",), "type": ("transport_type",),
}
"""Older spellings of a field, read when the current one is absent (see :mod:`.registry`)."""

PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_.-]+)\}")
PYPI_RUNNERS = ("uvx", "pipx")
CONTAINER_RUNTIMES = ("docker", "podman")
TRANSPORTS = ("stdio", "streamable-http", "sse")


def field(obj: dict[str, Any], name: str, where: str) -> Any:
    if name in obj:
        return obj[name]
    for alias in ALIASES.get(name, ()):
        if alias in obj:
            return obj[alias]
    return None


def text(obj: dict[str, Any], name: str, where: str, *, required: bool = False) -> str:
    value = field(obj, name, where)
    if value is None or (value == "" and not required):
        if required:
            raise RegistryError(f'{where}: no "{name}"')
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise RegistryError(f'{where}: "{name}" is not a string')
    if required and not str(value).strip():
        raise RegistryError(f'{where}: "{name}" is empty')
    return str(value)


def flag(obj: dict[str, Any], name: str, where: str) -> bool:
    value = field(obj, name, where)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise RegistryError(f'{where}: "{name}" is not true or false')
    return value


def items(obj: dict[str, Any], name: str, where: str) -> list[dict[str, Any]]:
    value = field(obj, name, where)
    if value is None:
        return []
    if not isinstance(value, list):
        raise RegistryError(f'{where}: "{name}" is not a list')
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise RegistryError(f"{where}: {name}[{i}]: not a JSON object")
    return value


class Needs(Exception):
    """Something this entry needs that the machine does not have; becomes the entry's ``needs``."""


def _fill(value: str, variables: Mapping[str, str]) -> str:
    """``{name}`` replaced by its variable; an unknown name stays as written, as the schema says."""
    return PLACEHOLDER.sub(lambda m: variables.get(m.group(1), m.group(0)), value)


def _input_value(item: dict[str, Any], where: str) -> str | None:
    """An input's value (or default), its ``{variables}`` filled from the input's own ``variables`` map; None when
    it has neither. A required variable with no value or default cannot be filled here: :class:`Needs`."""
    value = text(item, "value", where) or text(item, "default", where)
    if not value:
        return None
    declared = field(item, "variables", where) or {}
    if not isinstance(declared, dict):
        raise RegistryError(f'{where}: "variables" is not an object')
    variables: dict[str, str] = {}
    for key, var in declared.items():
        if not isinstance(var, dict):
            raise RegistryError(f"{where}: variables.{key}: not a JSON object")
        filled = text(var, "value", f"{where}: variables.{key}") or text(var, "default", f"{where}: variables.{key}")
        if filled:
            variables[key] = filled
        elif flag(var, "isRequired", f"{where}: variables.{key}") and "{" + key + "}" in value:
            raise Needs(f"needs a value for {{{key}}}")
    return _fill(value, variables)


FOLDER_WORDS = re.compile(r"dir|folder|root|repositor|workspace", re.I)
"""Words that make a ``filepath`` argument the folder the server works in (``allowed_directory``, ``--repository``)."""


def serves_folder(arg: dict[str, Any]) -> bool:
    """A package argument naming the folder the server serves: the fleet gives it ``{workspace}``, each probe's
    fresh folder, so the audit knows the root (path rules are otherwise *not checked: root unknown*) and nothing the
    probes plant lands in a folder of the machine's."""
    words = " ".join(str(arg.get(k, "")) for k in ("valueHint", "value_hint", "name", "description"))
    return str(arg.get("format", "")).lower() == "filepath" and bool(FOLDER_WORDS.search(words))


def _arguments(args: list[dict[str, Any]], where: str, known: dict[str, str], *, package: bool = False) -> list[str]:
    """The argv words of ``runtimeArguments`` or ``packageArguments``; each value also lands in ``known`` under its
    valueHint or flag name, for the transport URL's template. A package argument that names the folder the server
    serves (:func:`serves_folder`) gets ``{workspace}``, whatever its default, and is given even when optional."""
    argv: list[str] = []
    for i, arg in enumerate(args):
        at = f"{where}[{i}]"
        kind = text(arg, "type", at) or ("named" if "name" in arg else "positional")
        if kind not in ("positional", "named"):
            raise RegistryError(f'{at}: "type" is "{kind}", not "positional" or "named"')
        label = text(arg, "valueHint", at) if kind == "positional" else text(arg, "name", at, required=True)
        value = "{workspace}" if package and serves_folder(arg) else _input_value(arg, at)
        if value is None:
            if flag(arg, "isRequired", at):
                raise Needs(f'needs a value for the argument "{label or i}"')
            continue
        argv += [value] if kind == "positional" else [label, value]
        if label:
            known[label] = known[label.lstrip("-")] = value
    return argv


def _environment(variables: list[dict[str, Any]], where: str, environ: Mapping[str, str],
                 known: dict[str, str]) -> tuple[list[tuple[str, str]], list[str]]:
    """Values the entry sets, and the names of the secrets it requires. A secret's value is never read into the
    entry: the worker that audits it takes it from its own environment, and reads "not audited: needs the secret"
    when it is not there (the plan is often made on another machine than the one holding the secrets). An optional
    secret is left out: the server is audited as a host without it would run it."""
    env: list[tuple[str, str]] = []
    secrets: list[str] = []
    for i, var in enumerate(variables):
        at = f"{where}[{i}]"
        name = text(var, "name", at, required=True)
        if flag(var, "isSecret", at):
            if flag(var, "isRequired", at):
                secrets.append(name)
            continue
        value = _input_value(var, at)
        if value is None and name in environ:
            value = environ[name]
        if value is None:
            if flag(var, "isRequired", at):
                raise Needs(f"needs the variable {name}")
            continue
        env.append((name, value))
        known[name] = value
    return env, secrets


def _container_runtime(context: Context) -> str | None:
    """The first container runtime that is installed and answers ``info`` (a daemon that is down does not)."""
    for runtime in CONTAINER_RUNTIMES:
        if runtime not in context.containers:
            path = context.which(runtime)
            ok = False
            if path:
                try:
                    ok = subprocess.run([path, "info"], capture_output=True, timeout=15).returncode == 0
                except (OSError, subprocess.TimeoutExpired):
                    ok = False
            context.containers[runtime] = ok
        if context.containers[runtime]:
            return runtime
    return None


def _oci_image(identifier: str, version: str) -> str:
    """The image reference: the identifier carries its tag since 2025-10-11; before, the version was the tag."""
    last = identifier.rsplit("/", 1)[-1]
    return identifier if ":" in last or "@" in identifier or not version else f"{identifier}:{version}"


def package_label(kind: str, identifier: str, version: str) -> str:
    """How a person names the package: ``npm:@scope/pkg@1.2.3``, ``pypi:pkg==1.2.3``, ``oci:image:tag``."""
    if kind == "oci":
        return f"oci:{_oci_image(identifier, version)}"
    joiner = "==" if kind == "pypi" else "@"
    return f"{kind}:{identifier}{joiner}{version}" if version else f"{kind}:{identifier}"


def _runner(kind: str, hint: str, context: Context) -> list[str]:
    """The runner's argv up to the runtime arguments (the package spec follows them)."""
    if kind == "npm":
        if not context.which("npx"):
            raise Needs("needs npx to run an npm package")
        return ["npx", "-y"]
    if kind == "pypi":
        runners = [hint, *PYPI_RUNNERS] if hint in PYPI_RUNNERS else list(PYPI_RUNNERS)
        runner = next((r for r in runners if context.which(r)), None)
        if runner is None:
            raise Needs("needs uvx or pipx to run a PyPI package")
        return [runner] if runner == "uvx" else [runner, "run"]
    if kind == "oci":
        runtime = _container_runtime(context)
        if runtime is None:
            raise Needs("needs docker (a container runtime that answers) to run an OCI image")
        return [runtime, "run", "-i", "--rm"]
    if kind == "nuget":
        raise Needs("needs dnx (.NET 10) to run a NuGet package, which the fleet does not audit yet")
    if kind == "mcpb":
        raise Needs("needs an MCP bundle (mcpb) host, which the fleet does not audit yet")
    raise Needs(f'needs a runner for registry type "{kind}", which the fleet does not know')


def package_entry(package: dict[str, Any], where: str, context: Context, *, name: str, version: str, title: str,
                  source: str, network: bool) -> Entry:
    """One package: the command a host would run, or the entry's ``needs``."""
    kind = text(package, "registryType", where, required=True).lower()
    identifier = text(package, "identifier", where, required=True)
    pinned = text(package, "version", where)
    transport: dict[str, Any] = package.get("transport") or {}
    if not isinstance(transport, dict):
        raise RegistryError(f'{where}: "transport" is not an object')
    transport_type = text(transport, "type", f"{where}: transport") or "stdio"
    if transport_type not in TRANSPORTS:
        raise RegistryError(f'{where}: transport: "type" is "{transport_type}", not one of {", ".join(TRANSPORTS)}')
    label = package_label(kind, identifier, pinned)
    if transport_type != "stdio":  # one package may be offered over stdio and over HTTP: two entries, two keys
        label += f" ({transport_type})"
    base = {"name": name, "version": pinned or version, "how": kind if kind in HOW else "command",
            "package": label, "title": title, "source": source, "transport": transport_type, "network": network}
    try:
        known: dict[str, str] = {}
        env, secrets = _environment(items(package, "environmentVariables", where),
                                    f"{where}: environmentVariables", context.environ, known)
        runtime_args = _arguments(items(package, "runtimeArguments", where), f"{where}: runtimeArguments", known)
        package_args = _arguments(items(package, "packageArguments", where), f"{where}: packageArguments", known,
                                  package=True)
        runner = _runner(kind, text(package, "runtimeHint", where), context)
    except Needs as e:
        return Entry(needs=str(e), **base)  # type: ignore[arg-type]
    if kind == "oci":  # the container sees only the variables named with -e
        runtime_args = [word for n in [n for n, _ in env] + secrets for word in ("-e", n)] + runtime_args
    spec = package_label(kind, identifier, pinned).split(":", 1)[1]
    command = [*runner, *runtime_args, spec, *package_args]
    url = _fill(text(transport, "url", f"{where}: transport"), known) if transport_type != "stdio" else ""
    return Entry(command=tuple(command), url=url, env=tuple(env), secrets=tuple(secrets),
                 **base)  # type: ignore[arg-type]


def remote_entry(remote: dict[str, Any], where: str, context: Context, *, name: str, version: str, title: str,
                 source: str) -> Entry:
    """A remote endpoint: audited over HTTP, always with the network. Its headers cannot be sent by the auditor
    yet, so a remote that requires one (a token, mostly) needs it."""
    kind = text(remote, "type", where, required=True)
    if kind not in TRANSPORTS[1:]:
        raise RegistryError(f'{where}: "type" is "{kind}", not streamable-http or sse')
    url = text(remote, "url", where, required=True)
    base = {"name": name, "version": version, "how": "remote", "package": url, "title": title, "source": source,
            "transport": kind, "network": True}
    try:
        for i, header in enumerate(items(remote, "headers", where)):
            at = f"{where}: headers[{i}]"
            header_name = text(header, "name", at, required=True)
            secret = flag(header, "isSecret", at)
            if flag(header, "isRequired", at) and (secret or _input_value(header, at) is None):
                raise Needs(f"needs the {'secret ' if secret else ''}header {header_name}")
        url = _input_value({"value": url, "variables": field(remote, "variables", where) or {}}, where) or url
    except Needs as e:
        return Entry(needs=str(e), **base)  # type: ignore[arg-type]
    return Entry(url=url, **base)  # type: ignore[arg-type]
