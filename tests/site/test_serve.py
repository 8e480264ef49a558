"""The README's main command, `mcp-handbook serve`: it builds the site and serves it on 127.0.0.1 only."""

from __future__ import annotations

import pytest

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

pytestmark = pytest.mark.slow  # a site build served on loopback


def test_serve_builds_and_serves_the_handbook_on_loopback(tmp_path: Path, project_root: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcp_handbook.cli", "--root", str(project_root), "serve", "--port", "0", "--site-dir", str(tmp_path / "site")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: lines.put(proc.stdout.readline()), daemon=True).start()
    try:
        try:
            line = lines.get(timeout=120)  # the build comes first; never wait without a deadline
        except queue.Empty:
            line = ""
        found = re.search(r"http://(127\.0\.0\.1):(\d+)/", line)
        assert found, f"no address printed within 120 s: {line!r} (exit code {proc.poll()})"
        base = found.group(0)
        for path, marker in (("", "Doctrine version"), ("worksheet/", 'id="hb-worksheet"'), ("downloads/worksheet.csv", "id,title")):
            with urllib.request.urlopen(base + path, timeout=10) as response:
                assert response.status == 200 and marker in response.read().decode("utf-8"), path
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # the server and anything it started, by its process group
        proc.wait(timeout=10)
        proc.stdout.close()
        proc.stderr.close()
