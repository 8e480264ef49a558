"""The fleet's sandbox keeps the network off unless an entry needs it, and says what it is in one line; preparing
installs with the network on, reports why it could not, and never waits past its time."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcp_handbook.fleet import sandbox
from mcp_handbook.fleet.entry import Entry
from mcp_handbook.fleet.prepare import install_command, prepare

BWRAP = sandbox.available() == "bubblewrap"
needs_bwrap = pytest.mark.skipif(not BWRAP, reason="bubblewrap is not installed or cannot make a sandbox here")

CONNECT = """
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5).close()
except OSError as e:
    print("refused", type(e).__name__); sys.exit(3)
print("connected")
"""


def test_without_bubblewrap_the_command_runs_as_it_is() -> None:
    assert sandbox.available(which=lambda name: None) == "none"
    argv, description = sandbox.wrap(["srv", "--flag"], network=False, kind="none")
    assert argv == ["srv", "--flag"] and description.startswith("none: ")
    with pytest.raises(ValueError, match="unknown sandbox"):
        sandbox.wrap(["srv"], network=False, kind="firejail")


@needs_bwrap
@pytest.mark.parametrize("network", [False, True])
def test_the_network_is_off_unless_the_entry_needs_it(network: bool) -> None:
    with socket.socket() as server:  # opened outside the sandbox, on loopback
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        argv, description = sandbox.wrap([sys.executable, "-c", CONNECT, str(port)], network=network, kind="bubblewrap")
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert description == f"bubblewrap, network {'on' if network else 'off'}"
    if network:
        assert done.returncode == 0 and "connected" in done.stdout, done.stderr
    else:
        assert done.returncode == 3 and "refused" in done.stdout, done.stderr


@needs_bwrap
def test_the_machine_is_read_only_but_tmp_and_the_workdir(tmp_path: Path) -> None:
    script = ("import pathlib, sys\n"
              "for p in sys.argv[1:]:\n"
              "    try:\n        pathlib.Path(p).write_text('x'); print(p, 'written')\n"
              "    except OSError as e:\n        print(p, 'refused', e.errno)\n")
    outside = Path.cwd() / f"fleet-sandbox-probe-{os.getpid()}"
    argv, _ = sandbox.wrap([sys.executable, "-c", script, "/tmp/inside", str(tmp_path / "work"), str(outside)],
                           network=False, kind="bubblewrap", workdir=tmp_path)
    out = subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout
    assert "/tmp/inside written" in out and f"{tmp_path / 'work'} written" in out
    assert f"{outside} refused" in out and not outside.exists()
    assert (tmp_path / "work").read_text() == "x" and not Path("/tmp/inside").exists()


def fake_runner(tmp_path: Path, name: str, body: str) -> dict[str, str]:
    """A PATH whose ``name`` is a shell script: prepare runs it in place of the real installer."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / name
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(0o755)
    return {"PATH": f"{bin_dir}:{os.environ.get('PATH', '')}", "HOME": str(tmp_path)}


NPM_ENTRY = Entry(name="io.github.example/weather", version="1.0.2", how="npm",
                  package="npm:@example/weather@1.0.2", source="s.json",
                  command=("npx", "-y", "@example/weather@1.0.2", "/srv"))


def test_install_commands_fill_the_cache_the_run_reads() -> None:
    assert install_command(NPM_ENTRY) == ["npx", "-y", "--package", "@example/weather@1.0.2", "--", "true"]
    uv = Entry(name="n", version="1", how="pypi", package="pypi:weather-mcp==1", source="s",
               command=("uvx", "weather-mcp==1"))
    assert install_command(uv) == ["uvx", "--from", "weather-mcp==1", "python", "-c", "pass"]
    remote = Entry(name="n", version="1", how="remote", package="https://x.invalid/mcp", source="s",
                   url="https://x.invalid/mcp")
    assert install_command(remote) is None and prepare(remote, timeout=5, environ={}) == ""


def test_prepare_runs_the_installer_and_reports_its_last_error_line(tmp_path: Path) -> None:
    record = tmp_path / "args"
    ok = fake_runner(tmp_path, "npx", f'echo "$@" > {record}')
    assert prepare(NPM_ENTRY, timeout=30, environ=ok) == ""
    assert record.read_text().split() == ["-y", "--package", "@example/weather@1.0.2", "--", "true"]
    bad = fake_runner(tmp_path, "npx", "echo progress >&2; echo 'npm error 404 Not Found: @example/weather' >&2; exit 1")
    why = prepare(NPM_ENTRY, timeout=30, environ=bad)
    assert why == "installing npm:@example/weather@1.0.2 failed (exit 1): npm error 404 Not Found: @example/weather"


def test_prepare_stops_an_installer_that_outlives_its_time(tmp_path: Path) -> None:
    marker = tmp_path / "child-alive"
    slow = fake_runner(tmp_path, "npx", f"(sleep 30; touch {marker}) & sleep 30")
    started = time.monotonic()
    why = prepare(NPM_ENTRY, timeout=1, environ=slow)
    assert why == "installing npm:@example/weather@1.0.2 took longer than 1 s"
    assert time.monotonic() - started < 15
    needy = Entry(name="n", version="1", how="npm", package="npm:x@1", source="s", needs="needs npx to run an npm "
                  "package")
    assert prepare(needy, timeout=1, environ=slow) == "needs npx to run an npm package"


@needs_bwrap
@pytest.mark.slow
def test_a_prepared_npm_package_runs_offline_in_the_sandbox(tmp_path: Path) -> None:
    """The real thing: prepare (network on) and then the same spec run with the network off; a tiny package that
    the npm registry serves (this test needs the registry, so it is slow)."""
    entry = Entry(name="is-number", version="7.0.0", how="npm", package="npm:is-number@7.0.0", source="t",
                  command=("npx", "-y", "is-number@7.0.0"))
    why = prepare(entry, timeout=180, environ=os.environ)
    if why:
        pytest.skip(f"the registry cannot be reached here: {why}")
    argv, _ = sandbox.wrap(["npx", "-y", "--package", "is-number@7.0.0", "--", "node", "-e", "1"], network=False,
                           kind="bubblewrap")
    started = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < 30  # offline from the cache, not a minute of registry retries
