"""Bad invocations are refused before any server starts: one line naming the place, exit 2, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
from audit_helpers import hostile

from mcp_handbook.cli import main


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("-o", "{out}/a.md"), "no server command"),
        (("-o", "{out}/a.md", "--", "hb-no-such-server-program"), "hb-no-such-server-program: no such program"),
        (("-o", "{out}/a.txt", "--", *hostile("tiny")), "{out}/a.txt: cannot tell the format"),
        (("-o", "{out}", "--", *hostile("tiny")), "{out}: is a folder"),
        (("-o", "{out}/a.md", "--rule", "NOPE-999", "--", *hostile("tiny")), "--rule NOPE-999: no automated rule"),
    ],
    ids=["no-command", "no-such-program", "unknown-format", "output-is-a-folder", "unknown-rule"],
)
def test_a_bad_invocation_is_refused_before_any_server_starts(
    args, expected: str, project_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["--root", str(project_root), "audit", *(a.format(out=tmp_path) for a in args)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert expected.format(out=tmp_path) in err
    assert list(tmp_path.iterdir()) == []
