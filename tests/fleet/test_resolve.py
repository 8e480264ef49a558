"""After installing, the fleet audits the program the runner would start: found by asking the runner (npx, uvx)
with a command that exits at once, and the runner's own command kept when it will not say."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from mcp_handbook.fleet.entry import Entry
from mcp_handbook.fleet.resolve import resolve


def runner(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def env_with(folder: Path) -> dict[str, str]:
    return {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}


def npm_entry(*args: str) -> Entry:
    return Entry(name="io.github.example/weather", version="1.0.2", how="npm", package="npm:@example/weather@1.0.2",
                 source="s.json", command=("npx", "-y", "@example/weather@1.0.2", *args))


def test_an_npm_package_resolves_to_node_and_its_bin_script(tmp_path: Path) -> None:
    cache = tmp_path / "_npx" / "abc" / "node_modules"
    package = cache / "@example" / "weather"
    (package / "dist").mkdir(parents=True)
    (package / "dist" / "index.js").write_text("#!/usr/bin/env node\n")
    (package / "package.json").write_text(json.dumps({"name": "@example/weather", "bin": {"weather": "dist/index.js"}}))
    (cache / ".bin").mkdir()
    tools = tmp_path / "bin"
    tools.mkdir()
    # npx runs the command after -- with the package's .bin first on PATH, as the real one does
    runner(tools, "npx", f'[ "$3" = "@example/weather@1.0.2" ] || exit 9; PATH="{cache / ".bin"}:$PATH"; shift 4; exec "$@"')
    runner(tools, "node", 'printf "%s" "$PATH"')
    resolved = resolve(npm_entry("--verbose"), environ=env_with(tools))
    assert resolved == (str(tools / "node"), str(package / "dist" / "index.js"), "--verbose")


def test_a_pypi_package_resolves_to_its_console_script(tmp_path: Path) -> None:
    prefix = tmp_path / "archive" / "env"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "bin" / "weather-mcp").write_text("#!/bin/sh\n")
    tools = tmp_path / "bin"
    tools.mkdir()
    runner(tools, "uvx", f'[ "$2" = "weather-mcp==1.0" ] || exit 9; echo {prefix}')
    entry = Entry(name="n", version="1.0", how="pypi", package="pypi:weather-mcp==1.0", source="s",
                  command=("uvx", "weather-mcp==1.0", "stdio"))
    assert resolve(entry, environ=env_with(tools)) == (str(prefix / "bin" / "weather-mcp"), "stdio")


def test_a_runner_that_will_not_say_keeps_the_runners_command(tmp_path: Path) -> None:
    tools = tmp_path / "bin"
    tools.mkdir()
    runner(tools, "npx", "echo 'npm error offline' >&2; exit 1")
    assert resolve(npm_entry(), environ=env_with(tools)) == ()
    runner(tools, "npx", "echo /nowhere/node_modules/.bin")  # says a folder with no such package in it
    assert resolve(npm_entry(), environ=env_with(tools)) == ()
    command = Entry(name="n", version="", how="command", package="python3 server.py", source="s",
                    command=("python3", "server.py"))
    assert resolve(command, environ=env_with(tools)) == ()
