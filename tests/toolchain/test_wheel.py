"""The release people install: a wheel built from this tree works in a fresh virtual environment, outside any
checkout.

Built the way a release is (``python -m build``: an sdist, then the wheel from the sdist, each in an isolated
build environment), from a copy of the files git tracks here (the working tree's versions, without anything
untracked and without ``.git``), then installed with its dependencies into a virtual environment that sees no
other site-packages (a dependency missing from the wheel's metadata would fail here, not on a user's machine).
From an empty folder, with no ``PYTHONPATH``, the installed tool prints its version, audits the reference server
it carries and a third-party server, exports a worksheet and reports on what the audit wrote.

Needs the package index (pip fetches ``build``, setuptools and the dependencies): skipped when it is unreachable
on a developer machine, failed in CI.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest
import yaml
from handbook_testing import ROOT

pytestmark = pytest.mark.slow  # builds, installs and audits: about two minutes

THIRD_PARTY = ("-m", "mcp_server_time", "--local-timezone", "UTC")
"""mcp-server-time (a test extra), run by this test's own interpreter: the installed tool audits it from outside."""
THIRD_PARTY_RULES = ("TRN-001", "TRN-002", "TOOL-005", "ERR-001", "SEC-001")
"""A few rules for the third-party server: its full audit is tests/audit/test_real_server.py's; here it shows that
the installed probes reach a server the handbook did not write (the reference server's audit here is full)."""


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)


def _clean_env(tmp: Path) -> dict[str, str]:
    """This environment without what would let the checkout leak in (PYTHONPATH) or share caches."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(XDG_CACHE_HOME=str(tmp / "cache"), PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


def _pip(python: Path, args: list[str], cwd: Path, env: dict[str, str]) -> None:
    done = _run([str(python), "-m", "pip", "install", "-q", *args], cwd, env)
    if done.returncode != 0:
        message = f"pip install {' '.join(args)} failed (the package index is needed):\n{done.stdout}\n{done.stderr}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message[:2000])


def _tracked_copy(dest: Path) -> Path:
    """The files git tracks, as they are in the working tree: what a clean clone with these edits holds."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60).stdout
    for name in names.decode("utf-8").split("\0"):
        if name and (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    return dest


def _python(folder: Path) -> Path:
    venv.create(folder, with_pip=True, clear=True)  # no system site-packages: only what the wheel asks for
    return folder / "bin" / "python"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("release")
    env = _clean_env(tmp)
    source = _tracked_copy(tmp / "source")
    builder = _python(tmp / "builder")
    _pip(builder, ["build"], tmp, env)
    done = _run([str(builder), "-m", "build", "-o", str(tmp / "dist"), str(source)], tmp, env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    wheel, = (tmp / "dist").glob("*.whl")
    sdist, = (tmp / "dist").glob("*.tar.gz")
    python = _python(tmp / "fresh")
    _pip(python, [str(wheel)], tmp, env)
    empty = tmp / "empty"
    empty.mkdir()
    return {"wheel": wheel, "sdist": sdist, "python": python, "bin": python.parent, "empty": empty, "tmp": tmp}


def _doctrine_version() -> str:
    return str(yaml.safe_load((ROOT / "content" / "handbook.yml").read_text(encoding="utf-8"))["version"])


def test_the_wheel_and_sdist_carry_the_doctrine_and_its_version(built: dict[str, Path]) -> None:
    version = _doctrine_version()
    assert built["wheel"].name == f"mcp_handbook-{version}-py3-none-any.whl"
    with zipfile.ZipFile(built["wheel"]) as wheel:
        names = set(wheel.namelist())
    rules = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "content" / "rules").rglob("*.md"))
    assert rules and {f"mcp_handbook/doctrine/{r}" for r in rules} <= names
    assert {"mcp_handbook/doctrine/content/handbook.yml", "mcp_handbook/doctrine/snippets/evidence.json",
            "mcp_handbook/doctrine/COMMIT", "reference_server/__main__.py",
            "mcp_handbook/export/worksheet.schema.json"} <= names
    with tarfile.open(built["sdist"]) as sdist:
        members = {m.name.split("/", 1)[1] for m in sdist.getmembers() if "/" in m.name}
    assert {"content/handbook.yml", "snippets/evidence.json", "setup.py", "DOCTRINE_COMMIT", *rules} <= members


def test_the_installed_tool_works_from_an_empty_folder(built: dict[str, Path]) -> None:
    here, tool, env = built["empty"], str(built["bin"] / "mcp-handbook"), _clean_env(built["tmp"])
    version = _doctrine_version()

    done = _run([tool, "--version"], here, env, 60)
    assert done.stdout.strip() == f"mcp-handbook {version} (doctrine {version}: installed with the tool)", done.stderr

    reference = [str(built["python"]), "-m", "reference_server", "--workspace", "{workspace}"]
    done = _run([tool, "audit", "-o", "reference.json", "--", *reference], here, env)
    assert done.returncode == 0, done.stdout + done.stderr
    sheet = json.loads((here / "reference.json").read_text(encoding="utf-8"))
    statuses = {item["status"] for item in sheet["items"] if item["check"] == "automated"}
    assert "Pass" in statuses and "Fail" not in statuses and "" not in statuses, statuses
    assert sheet["doctrine_version"] == version and sheet["commit"], sheet["commit"]

    rules = [arg for rule in THIRD_PARTY_RULES for arg in ("--rule", rule)]
    done = _run([tool, "audit", "-o", "time.md", *rules, "--", sys.executable, *THIRD_PARTY], here, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "TRN-002 FAIL" in done.stdout  # the SDK reads a line of any length: no frame cap (tests/audit/test_real_server.py)

    done = _run([tool, "export", "worksheet", "-o", "blank.csv"], here, env, 120)
    assert done.returncode == 0 and f"doctrine {version}" in done.stdout, done.stdout + done.stderr
    done = _run([tool, "report", "reference.json"], here, env, 120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"doctrine {version}" in done.stdout and "no HIGH item of the baseline profile failed" in done.stdout
    done = _run([tool, "report", "blank.csv"], here, env, 120)
    assert done.returncode == 0 and "Unfilled" in done.stdout, done.stdout + done.stderr
    assert sorted(p.name for p in here.iterdir()) == ["blank.csv", "reference.json", "time.md"]  # nothing else written
