"""server.json input read into fleet entries: every shape the registry writes, each package run the way a host runs
it, secrets named and never kept, what cannot run here saying what it needs, and bad input refused by name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_handbook.fleet.entry import Entry
from mcp_handbook.fleet.registry import RegistryError, read_entries

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "fleet" / "servers"
RUNNERS = {"npx": "/usr/bin/npx", "uvx": "/usr/bin/uvx", "pipx": "/usr/bin/pipx"}


def which_of(*names: str):
    return lambda name: RUNNERS.get(name) if name in names else None


ALL = which_of("npx", "uvx", "pipx")


def server(name: str = "io.github.example/weather", **extra: Any) -> dict[str, Any]:
    return {"name": name, "description": "Weather", "version": "1.0.2", **extra}


NPM = {"registryType": "npm", "identifier": "@example/weather", "version": "1.0.2", "transport": {"type": "stdio"}}


def write(tmp: Path, name: str, data: Any) -> Path:
    path = tmp / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def read(tmp: Path, data: Any, *, environ: dict[str, str] | None = None, which=ALL) -> list[Entry]:
    return read_entries([write(tmp, "server.json", data)], environ=environ or {}, which=which)


def test_npm_package_runs_with_npx_runtime_then_package_arguments(tmp_path: Path) -> None:
    package = dict(NPM, runtimeHint="npx",
                   runtimeArguments=[{"type": "named", "name": "--node-options", "value": "--max-old-space-size=256"}],
                   packageArguments=[{"type": "positional", "valueHint": "dir", "default": "/srv"},
                                     {"type": "named", "name": "--mode", "value": "{mode}",
                                      "variables": {"mode": {"default": "fast"}}},
                                     {"type": "named", "name": "--optional"}])
    (entry,) = read(tmp_path, server(packages=[package]))
    assert entry.command == ("npx", "-y", "--node-options", "--max-old-space-size=256", "@example/weather@1.0.2",
                             "/srv", "--mode", "fast")
    assert (entry.how, entry.package, entry.version, entry.needs) == ("npm", "npm:@example/weather@1.0.2", "1.0.2", "")
    assert entry.source.endswith("server.json") and not entry.network


def test_pypi_prefers_uvx_and_falls_back_to_pipx(tmp_path: Path) -> None:
    data = server(packages=[{"registryType": "pypi", "identifier": "weather-mcp", "version": "0.5.0",
                             "transport": {"type": "stdio"}}])
    (uv,) = read(tmp_path, data)
    (pipx,) = read(tmp_path, data, which=which_of("pipx"))
    (none,) = read(tmp_path, data, which=which_of("npx"))
    assert uv.command == ("uvx", "weather-mcp==0.5.0") and uv.package == "pypi:weather-mcp==0.5.0"
    assert pipx.command == ("pipx", "run", "weather-mcp==0.5.0")
    assert (none.command, none.needs) == ((), "needs uvx or pipx to run a PyPI package")


def test_a_missing_runtime_is_a_need_not_an_error(tmp_path: Path) -> None:
    (entry,) = read(tmp_path, server(packages=[NPM]), which=which_of("uvx"))
    assert entry.needs == "needs npx to run an npm package" and entry.command == ()
    oci = {"registryType": "oci", "identifier": "ghcr.io/example/weather:1.0.2", "transport": {"type": "stdio"}}
    bundle = {"registryType": "mcpb", "identifier": "https://example.invalid/w.mcpb", "transport": {"type": "stdio"}}
    docker, mcpb = read(tmp_path, server(packages=[oci, bundle]), which=which_of("npx"))
    assert docker.needs.startswith("needs docker") and docker.package == "oci:ghcr.io/example/weather:1.0.2"
    assert mcpb.needs.startswith("needs an MCP bundle") and mcpb.how == "mcpb"


def test_secrets_are_named_never_kept(tmp_path: Path) -> None:
    package = dict(NPM, environmentVariables=[
        {"name": "WEATHER_API_KEY", "isRequired": True, "isSecret": True},
        {"name": "WEATHER_UNITS", "default": "celsius"},
        {"name": "OPTIONAL_TOKEN", "isSecret": True}])
    data = server(packages=[package])
    (ready,) = read(tmp_path, data, environ={"WEATHER_API_KEY": "sk-live-0123456789"})
    assert ready.secrets == ("WEATHER_API_KEY",) and ready.env == (("WEATHER_UNITS", "celsius"),)
    assert "sk-live-0123456789" not in json.dumps(ready.to_json())
    assert Entry.from_json(ready.to_json()) == ready
    (planned_elsewhere,) = read(tmp_path, data)  # the plan job need not hold the secret: the worker checks it
    assert planned_elsewhere == ready and not planned_elsewhere.needs


def test_a_required_argument_without_value_is_a_need(tmp_path: Path) -> None:
    package = dict(NPM, packageArguments=[{"type": "positional", "valueHint": "database_name", "isRequired": True}])
    (entry,) = read(tmp_path, server(packages=[package]))
    assert entry.needs == 'needs a value for the argument "database_name"'


def test_network_is_declared_in_publisher_meta_or_by_a_remote(tmp_path: Path) -> None:
    meta = {"io.modelcontextprotocol.registry/publisher-provided": {"network": True}}
    remote = {"type": "streamable-http", "url": "https://{tenant}.example.invalid/mcp",
              "variables": {"tenant": {"default": "acme"}}}
    local, far = read(tmp_path, server(packages=[NPM], remotes=[remote], _meta=meta))
    assert local.network and far.network and far.how == "remote"
    assert far.url == "https://acme.example.invalid/mcp" and far.command == ()
    (plain,) = read(tmp_path, server(packages=[NPM]))
    assert not plain.network


def test_a_remote_that_requires_a_secret_header_needs_it(tmp_path: Path) -> None:
    remote = {"type": "sse", "url": "https://example.invalid/sse",
              "headers": [{"name": "X-API-Key", "isRequired": True, "isSecret": True}]}
    (entry,) = read(tmp_path, server(remotes=[remote]))
    assert entry.needs == "needs the secret header X-API-Key" and entry.transport == "sse"


def test_a_local_http_package_keeps_its_command_and_url_template(tmp_path: Path) -> None:
    http = dict(NPM, packageArguments=[{"type": "named", "name": "--port", "valueHint": "port"}],
                transport={"type": "streamable-http", "url": "http://localhost:{port}/mcp"})
    stdio, local = read(tmp_path, server(packages=[NPM, http]))
    assert local.command == ("npx", "-y", "@example/weather@1.0.2") and local.url == "http://localhost:{port}/mcp"
    assert local.transport == "streamable-http" and local.key != stdio.key


def test_registry_export_both_forms_and_older_field_names(tmp_path: Path) -> None:
    snake = {"name": "io.github.example/old", "description": "Old", "version_detail": {"version": "0.9.0"},
             "packages": [{"registry_type": "pypi", "identifier": "old-mcp", "version": "0.9.0",
                           "environment_variables": [{"name": "OLD_KEY", "is_required": True, "is_secret": True}],
                           "package_arguments": [{"type": "positional", "value_hint": "dir", "default": "/x"}]}],
             "remotes": [{"transport_type": "sse", "url": "https://example.invalid/sse"}]}
    current = {"servers": [{"server": server(packages=[NPM]),
                            "_meta": {"io.modelcontextprotocol.registry/official": {"isLatest": True}}}],
               "metadata": {"count": 1, "nextCursor": "x"}}
    flat = {"servers": [snake], "metadata": {"count": 1, "next_cursor": None}}
    a = write(tmp_path, "a/export.json", current)
    b = write(tmp_path, "b/flat.json", flat)
    entries = read_entries([a, b], environ={}, which=ALL)
    assert [e.how for e in entries] == ["npm", "pypi", "remote"]
    assert entries[0].source == f"{a}: servers[0]"
    assert entries[1].version == "0.9.0" and entries[1].secrets == ("OLD_KEY",) and not entries[1].needs
    assert entries[2].transport == "sse"


def test_a_folder_is_read_sorted_and_duplicates_keep_the_first(tmp_path: Path) -> None:
    write(tmp_path, "servers/b.json", server(packages=[NPM]))
    write(tmp_path, "servers/nested/a.json", server(packages=[NPM]))
    write(tmp_path, "servers/notes.txt", {"not": "read"})
    write(tmp_path, "list.json", [server(packages=[NPM]),
                                  {"command": ["python3", "-m", "srv"], "audit_args": ["--no-tool-calls"]}])
    entries = read_entries([tmp_path / "servers", tmp_path / "list.json"], environ={}, which=lambda n: "/x/" + n)
    assert len(entries) == 2
    assert entries[0].source == str(tmp_path / "servers" / "b.json")
    assert entries[1].how == "command" and entries[1].command == ("python3", "-m", "srv")
    assert entries[1].audit_args == ("--no-tool-calls",) and entries[1].name == "python3"
    (missing,) = read(tmp_path, {"command": ["no-such-program-here"]}, which=lambda n: None)
    assert missing.needs.startswith("needs no-such-program-here")


@pytest.mark.parametrize(("data", "message"), [
    ("{not json", "server.json: not JSON"),
    ([1], "server.json: [0]: not a JSON object"),
    (server(packages=[NPM, {"registryType": "npm", "version": "1"}]), 'server.json: packages[1]: no "identifier"'),
    ({"servers": [{"server": server(packages=[{"identifier": "x"}])}]},
     'server.json: servers[0]: packages[0]: no "registryType"'),
    (server(packages=[dict(NPM, packageArguments=[{"type": "flag"}])]),
     'server.json: packages[0]: packageArguments[0]: "type" is "flag"'),
    (server(packages=[dict(NPM, environmentVariables=[{"isSecret": True}])]),
     'server.json: packages[0]: environmentVariables[0]: no "name"'),
    (server(packages="npx"), 'server.json: "packages" is not a list'),
    ({"description": "no name", "packages": [NPM]}, 'server.json: no "name"'),
    (server(), 'server.json: no "packages" and no "remotes"'),
    ({"command": []}, 'server.json: "command" is not a non-empty list'),
    (server(packages=[NPM], _meta={"io.modelcontextprotocol.registry/publisher-provided": {"network": "yes"}}),
     '"network" is not true or false'),
    ("[" * 100_000, "server.json: not JSON"),
])
def test_bad_input_names_file_index_and_field(tmp_path: Path, data: Any, message: str) -> None:
    path = tmp_path / "server.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    with pytest.raises(RegistryError) as caught:
        read_entries([path], environ={}, which=ALL)
    assert str(caught.value).startswith(str(tmp_path)) and message in str(caught.value)


def test_a_missing_source_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(RegistryError, match="no such file or folder"):
        read_entries([tmp_path / "absent.json"], environ={}, which=ALL)


def test_the_benchmark_servers_read_as_runnable_commands() -> None:
    entries = {e.name.rsplit("/", 1)[-1]: e for e in read_entries([BENCHMARK], environ={}, which=ALL)}
    assert len(entries) >= 11
    assert entries["server-filesystem"].command[-1] == "{workspace}"
    assert entries["server-git"].command[-2:] == ("--repository", "{workspace}")
    assert entries["mcp-server-duckdb"].command[-2:] == ("--db-path", "/tmp/fleet-duckdb.db"), "a file, not a folder"
    assert entries["server-fetch"].network and not entries["server-time"].network
    assert entries["server-github"].secrets == ("GITHUB_PERSONAL_ACCESS_TOKEN",)
    assert entries["github-mcp-server"].how == "remote" and entries["github-mcp-server"].needs
    assert entries["excel-mcp-server"].command == ("uvx", "excel-mcp-server==2.2.2", "stdio")
    runnable = [e for e in entries.values() if not e.needs]
    assert len(runnable) >= 9 and all(e.command for e in runnable)


def test_the_folder_a_server_serves_becomes_each_probes_workspace(tmp_path: Path) -> None:
    folder = {"type": "positional", "valueHint": "allowed_directory", "format": "filepath", "isRequired": True}
    repo = {"type": "named", "name": "--repository", "description": "Git repository", "format": "filepath"}
    database = {"type": "named", "name": "--db", "description": "the database file", "format": "filepath",
                "default": "/var/db.sqlite"}
    plain = {"type": "named", "name": "--root-level", "description": "log level at the root", "default": "info"}
    (entry,) = read(tmp_path, server(packages=[dict(NPM, packageArguments=[folder, repo, database, plain])]))
    assert entry.command[-7:] == ("{workspace}", "--repository", "{workspace}", "--db", "/var/db.sqlite",
                                  "--root-level", "info")
    assert not entry.needs, "a required folder with no default is the workspace, not a need"
