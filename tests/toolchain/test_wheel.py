"""The release people install: a wheel built from this tree works in a fresh virtual environment, outside any
checkout.

Built the way a release is (tests/toolchain/release_build.py: ``python -m build`` on the files git tracks), then
installed with its dependencies into a virtual environment that sees no other site-packages (a dependency missing
from the wheel's metadata would fail here, not on a user's machine).
From an empty folder, with no ``PYTHONPATH``, the installed tool prints its version, audits the reference server
it carries and a third-party server, exports a worksheet and reports on what the audit wrote.

Needs the package index (pip fetches ``build``, setuptools and the dependencies): skipped when it is unreachable
on a developer machine, failed in CI.
"""

from __future__ import annotations

import json
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
import yaml
from handbook_testing import ROOT
from release_build import clean_env, fresh_python, pip_install, run

pytestmark = pytest.mark.slow  # builds, installs and audits: about two minutes

THIRD_PARTY = ("-m", "mcp_server_time", "--local-timezone", "UTC")
"""mcp-server-time (a test extra), run by this test's own interpreter: the installed tool audits it from outside."""
THIRD_PARTY_RULES = ("TRN-001", "TRN-002", "TOOL-005", "ERR-001", "SEC-001")
"""A few rules for the third-party server: its full audit is tests/audit/test_real_server.py's; here it shows that
the installed probes reach a server the handbook did not write (the reference server's audit here is full)."""


@pytest.fixture(scope="module")
def built(release: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("installed")
    python = fresh_python(tmp / "fresh")
    pip_install(python, [str(release["wheel"])], tmp, clean_env(tmp))
    empty = tmp / "empty"
    empty.mkdir()
    return {**release, "python": python, "bin": python.parent, "empty": empty, "tmp": tmp}


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
            "mcp_handbook/export/worksheet.schema.json", "mcp_handbook/export/skill/scripts/check_tool.py",
            "mcp_handbook/export/skill/scripts/audit_server.sh"} <= names
    with tarfile.open(built["sdist"]) as sdist:
        members = {m.name.split("/", 1)[1] for m in sdist.getmembers() if "/" in m.name}
    assert {"content/handbook.yml", "snippets/evidence.json", "setup.py", "DOCTRINE_COMMIT", *rules} <= members


def test_the_installed_tool_works_from_an_empty_folder(built: dict[str, Path]) -> None:
    here, tool, env = built["empty"], str(built["bin"] / "mcp-handbook"), clean_env(built["tmp"])
    version = _doctrine_version()

    done = run([tool, "--version"], here, env, 60)
    assert done.stdout.strip() == f"mcp-handbook {version} (doctrine {version}: installed with the tool)", done.stderr

    reference = [str(built["python"]), "-m", "reference_server", "--workspace", "{workspace}"]
    done = run([tool, "audit", "-o", "reference.json", "--", *reference], here, env)
    assert done.returncode == 0, done.stdout + done.stderr
    sheet = json.loads((here / "reference.json").read_text(encoding="utf-8"))
    statuses = {item["status"] for item in sheet["items"] if item["check"] == "automated"}
    assert "Pass" in statuses and "Fail" not in statuses and "" not in statuses, statuses
    assert sheet["doctrine_version"] == version and sheet["commit"], sheet["commit"]

    rules = [arg for rule in THIRD_PARTY_RULES for arg in ("--rule", rule)]
    done = run([tool, "audit", "-o", "time.md", *rules, "--", sys.executable, *THIRD_PARTY], here, env)
    assert done.returncode == 0, done.stdout + done.stderr
    # the SDK reads a line of any length (no frame cap), which TRN-002 lets a server on an official SDK keep
    assert "allowed by the rule: TRN-002 N/A" in done.stdout, done.stdout

    done = run([tool, "export", "worksheet", "-o", "blank.csv"], here, env, 120)
    assert done.returncode == 0 and f"doctrine {version}" in done.stdout, done.stdout + done.stderr
    done = run([tool, "report", "reference.json"], here, env, 120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"doctrine {version}" in done.stdout and "no HIGH item of the baseline profile failed" in done.stdout
    done = run([tool, "report", "blank.csv"], here, env, 120)
    assert done.returncode == 0 and "Unfilled" in done.stdout, done.stdout + done.stderr
    assert sorted(p.name for p in here.iterdir()) == ["blank.csv", "reference.json", "time.md"]  # nothing else written
