"""The fleet workflow's own `run:` steps, run here as its matrix would run them: plan, every shard in a folder of
its own (as each job has its own checkout), the results gathered as the artifact download gathers them, merge; then
a second merge against the first, with a change injected, shows that change."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from handbook_testing import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "fleet.yml"
AUDIT_ARGS = "--rule TRN-001 --rule ERR-001 --no-sdk-baseline --timeout 60"


def step(job: str, step_id: str) -> str:
    jobs = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]
    script = next(s["run"] for s in jobs[job]["steps"] if s.get("id") == step_id)
    assert "${{" not in script, "a step the test runs reads its inputs from env:, as here"
    return script


def checkout(folder: Path) -> Path:
    """A folder that looks like the repository to `mcp-handbook` (it finds the handbook from the current folder)."""
    folder.mkdir(parents=True)
    (folder / "mkdocs.yml").symlink_to(ROOT / "mkdocs.yml")
    (folder / "content").symlink_to(ROOT / "content")
    return folder


def bash(script: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env={**os.environ, **env}, capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def servers(folder: Path) -> Path:
    folder.mkdir()
    python = sys.executable
    (folder / "plain.json").write_text(json.dumps([
        {"name": "reference", "version": "1.0.0",
         "command": [python, "-m", "reference_server", "--workspace", "{workspace}"]},
        {"name": "gone-at-once", "version": "0.1.0", "command": [python, "-c", "import sys; sys.exit(3)"]},
    ]))
    (folder / "needs-secret.json").write_text(json.dumps({
        "name": "io.github.example/needs-a-token", "version": "2.0.0", "description": "needs a token",
        "packages": [{"registryType": "npm", "identifier": "@example/needs-a-token", "version": "2.0.0",
                      "transport": {"type": "stdio"},
                      "environmentVariables": [{"name": "EXAMPLE_TOKEN_FOR_TEST", "isRequired": True,
                                                "isSecret": True}]}],
    }))
    return folder


@pytest.mark.slow
def test_the_workflow_steps_plan_run_every_shard_and_merge(tmp_path: Path) -> None:
    sources = servers(tmp_path / "servers")
    env = {"FLEET_SOURCES": str(sources), "FLEET_SHARDS": "2", "FLEET_AUDIT_ARGS": AUDIT_ARGS}
    planner = checkout(tmp_path / "plan-job")
    output = tmp_path / "github-output"
    bash(step("plan", "plan"), planner, GITHUB_OUTPUT=str(output), **env)
    matrix = json.loads(output.read_text().split("matrix=", 1)[1])
    assert matrix == ["1/2", "2/2"]

    gathered = tmp_path / "merge-job" / "results"
    gathered.mkdir(parents=True)
    for n, shard in enumerate(matrix):
        job = checkout(tmp_path / f"shard-job-{n}")
        shutil.copy(planner / "fleet-plan.json", job)  # the plan artifact, downloaded
        bash(step("shard", "shard"), job, SHARD=shard, **env)
        for result in (job / "results").glob("*.json"):  # upload, then download with merge-multiple
            shutil.copy(result, gathered)
    results = {json.loads(p.read_text())["entry"]["name"]: json.loads(p.read_text()) for p in gathered.glob("*.json")}
    assert results["reference"]["state"] == "audited"
    assert {r["id"]: r["status"] for r in results["reference"]["rules"]} == {"TRN-001": "PASS", "ERR-001": "PASS"}
    assert results["gone-at-once"]["state"] == "no answer"
    assert results["io.github.example/needs-a-token"]["state"] == "not audited"
    assert "EXAMPLE_TOKEN_FOR_TEST" in results["io.github.example/needs-a-token"]["why"]

    merger = gathered.parent
    merger.joinpath("mkdocs.yml").symlink_to(ROOT / "mkdocs.yml")
    merger.joinpath("content").symlink_to(ROOT / "content")
    bash(step("merge", "merge"), merger)
    first = json.loads((merger / "scorecard" / "scorecard.json").read_text())
    assert len(first["rows"]) == 3
    assert (merger / "scorecard" / "index.html").is_file() and (merger / "scorecard" / "scorecard.csv").is_file()

    # a week later: the reference server's TRN-001 now fails and its version moved on
    shutil.copy(merger / "scorecard" / "scorecard.json", merger / "previous.json")
    path = next(p for p in gathered.glob("*.json") if json.loads(p.read_text())["entry"]["name"] == "reference")
    changed = json.loads(path.read_text())
    changed["server_version"] = changed["entry"]["version"] = "1.0.1"
    for rule in changed["rules"]:
        if rule["id"] == "TRN-001":
            rule["status"] = "FAIL"
    path.write_text(json.dumps(changed))
    bash(step("merge", "merge"), merger)
    diff_text = (merger / "scorecard" / "diff.json").read_text()
    assert "TRN-001" in diff_text and "1.0.1" in diff_text
    assert "TRN-001" in (merger / "scorecard" / "index.html").read_text()
