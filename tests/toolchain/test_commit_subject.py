"""The commit-msg hook keeps subjects to 72 characters (rule pages and `diff` print them whole)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from handbook_testing import ROOT

HOOK = ROOT / ".ci" / "commit-subject"


def hook(tmp_path: Path, message: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "COMMIT_EDITMSG"
    path.write_text(message)
    return subprocess.run(["bash", str(HOOK), str(path)], capture_output=True, text=True, check=False, timeout=30)


def test_a_subject_of_72_characters_passes_and_73_is_refused(tmp_path: Path) -> None:
    assert hook(tmp_path, "x" * 72 + "\n\n" + "a body may be as long as it needs " * 10).returncode == 0
    refused = hook(tmp_path, "x" * 73 + "\n")
    assert refused.returncode == 1 and "73 characters" in refused.stderr


def test_pre_commit_runs_the_hook_at_commit_msg() -> None:
    config = (ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert "entry: bash .ci/commit-subject" in config and "stages: [commit-msg]" in config
