"""The PATH stand-ins SEC-003's probe puts in front of a server: each records the environment a child really
started with and then runs the real program under exactly that environment, however briefly it runs."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from mcp_handbook.probes.security._shims import PathShims

SERVER_PATH = "/usr/bin:/bin"
pytestmark = pytest.mark.skipif(shutil.which("env", path=SERVER_PATH) is None, reason="needs env on /usr/bin:/bin")


def test_a_stand_in_records_the_child_environment_and_runs_the_real_program_unchanged() -> None:
    given = {b"X_SECRET": b"two\nlines \xff", b"ONLY": b"1"}  # no LANG: the stand-in must add no locale variable
    with PathShims(SERVER_PATH, names=("env",)) as shims:
        given[b"PATH"] = shims.path.encode()
        mark = shims.mark()
        out = subprocess.run(["env", "-0"], env=given, capture_output=True, timeout=20, check=True).stdout
        records = shims.since(mark)
    seen = dict(entry.split(b"=", 1) for entry in out.split(b"\0") if entry)
    assert seen == given  # the real env ran, with exactly the environment the parent gave
    assert [r.argv for r in records] == [("env", "-0")]
    assert records[0].environ["X_SECRET"] == "two\nlines \udcff" and "LC_CTYPE" not in records[0].environ


def test_a_name_the_server_path_lacks_gets_no_stand_in_and_the_folder_goes_away() -> None:
    with PathShims(SERVER_PATH, names=("env", "hb-no-such-program")) as shims:
        assert shims.names == ["env"]
        folder = shims.home
    assert not folder.exists()


def test_programs_named_in_tool_descriptions_get_stand_ins() -> None:
    with PathShims(SERVER_PATH, names=()) as shims:
        shims.add_mentioned([{"name": "repo_log", "description": "Runs `env` in the repository and greps nothing."}])
        assert shims.names == ["env"]
        mark = shims.mark()
        subprocess.run(["sh", "-c", "env >/dev/null"], env={"PATH": shims.path, "K": "v"}, timeout=20, check=True)
        assert [r.environ.get("K") for r in shims.since(mark)] == ["v"]


def test_only_what_was_started_after_the_mark_is_returned() -> None:
    with PathShims(SERVER_PATH, names=("env",)) as shims:
        subprocess.run(["env"], env={"PATH": shims.path}, capture_output=True, timeout=20, check=True)
        mark = shims.mark()
        assert shims.since(mark) == []
        assert os.path.getsize(shims.log) == mark > 0
