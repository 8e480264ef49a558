"""Recorded proofs (snippets/evidence.json): current for the committed blocks, detected stale when a block
changes, re-recorded without a byte of noise, and never shown on a page as if current when they are not."""

from __future__ import annotations

import difflib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_handbook import load_corpus
from mcp_handbook.proving import evidence
from mcp_handbook.model import Corpus, Rule, Snippet
from mcp_handbook.probes import Finding
from mcp_handbook.site.proofs import proof_panel
from mcp_handbook.site.state import SiteData
from mcp_handbook.proving.verify import Verdict

pytestmark = pytest.mark.slow  # recording proofs again


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcp_handbook.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.fixture
def handbook(tmp_path: Path, project_root: Path) -> Path:
    """A copy of the real handbook to change freely."""
    dest = tmp_path / "hb"
    dest.mkdir()
    for name in ("mkdocs.yml", "content", "snippets"):
        src = project_root / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, dest / name)
    return dest


def _proved_block(corpus: Corpus) -> tuple[Rule, Snippet]:
    return next((r, s) for r in corpus.rules for s in r.snippets if evidence.provable(r, s) and s.kind == "wrong")


def test_committed_proofs_are_current_for_every_block(project_root: Path) -> None:
    state = evidence.check(load_corpus(project_root))
    assert state.fresh, "\n".join(state.lines())


def test_editing_a_block_makes_its_proof_stale_at_its_line_until_recorded_again(handbook: Path) -> None:
    rule, block = _proved_block(load_corpus(handbook))
    path = handbook / rule.path
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[block.code_line - 1] += "  # edited"
    path.write_text("\n".join(lines), encoding="utf-8")

    stale = cli("evidence", "--check", cwd=handbook)
    assert stale.returncode == 1
    assert f"{rule.path}:{block.location.line}: {rule.id} WRONG block {block.index}: its recorded proof is for other code" in stale.stdout

    recorded = cli("evidence", "-k", rule.id, cwd=handbook)
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    assert rule.path not in cli("evidence", "--check", cwd=handbook).stdout


def test_recording_every_proof_again_changes_no_byte(handbook: Path) -> None:
    """No ports, process ids, temporary paths, nonces or timings in what is recorded: the committed file,
    recorded in another session, is what a fresh recording of every proof writes, byte for byte."""
    before = (handbook / evidence.EVIDENCE_FILE).read_bytes()
    result = cli("evidence", "--all", cwd=handbook)
    assert result.returncode == 0, result.stdout + result.stderr
    after = (handbook / evidence.EVIDENCE_FILE).read_bytes()
    changed = difflib.unified_diff(before.decode().splitlines(), after.decode().splitlines(), "committed", "recorded now",
                                   lineterm="", n=6)
    assert after == before and "unchanged" in result.stdout, result.stdout + "\n".join(changed)


def test_an_entry_for_a_removed_block_is_reported(handbook: Path) -> None:
    data = json.loads((handbook / evidence.EVIDENCE_FILE).read_text(encoding="utf-8"))
    data["snippets"]["XXX-999.wrong1"] = {"key": "sha256:0"}
    (handbook / evidence.EVIDENCE_FILE).write_text(json.dumps(data), encoding="utf-8")
    result = cli("evidence", "--check", cwd=handbook)
    assert result.returncode == 1 and "snippets/evidence.json: XXX-999.wrong1 no longer matches any block" in result.stdout


def test_a_broken_evidence_file_is_named_with_its_line(handbook: Path) -> None:
    path = handbook / evidence.EVIDENCE_FILE
    path.write_text('{\n "snippets": {\n  "X": [1,,]\n }\n}\n', encoding="utf-8")
    result = cli("evidence", "--check", cwd=handbook)
    assert result.returncode == 1 and result.stdout.startswith(f"{evidence.EVIDENCE_FILE}:3: not valid JSON")
    assert "Traceback" not in result.stderr


def test_scrub_removes_what_differs_between_runs() -> None:
    import tempfile

    raw = (f"{tempfile.gettempdir()}/hb-verify-a1b2_c3/ws/x hb-canary-0123456789abcdef at 2026-01-02T03:04:05.678Z "
           "12345678-1234-1234-1234-123456789abc")
    assert evidence.scrub(raw) == "$TMP/ws/x hb-canary-… at <time> <uuid>"
    assert evidence.scrub("<<< \udcff\ud800 not UTF-8") == "<<< \\udcff\\ud800 not UTF-8"  # kept visible, still writable


def test_a_stale_proof_is_flagged_on_the_page_never_shown_as_current(handbook: Path) -> None:
    corpus = load_corpus(handbook)
    rule, block = _proved_block(corpus)
    proofs = evidence.load(handbook)
    proofs[block.name] = {**proofs[block.name], "key": "sha256:old"}
    panel = proof_panel(SiteData(corpus=corpus, proofs=proofs), rule, block)
    assert "Proof out of date" in panel and "Proved" not in panel and "<pre>" not in panel
    del proofs[block.name]
    assert "No recorded proof" in proof_panel(SiteData(corpus=corpus, proofs=proofs), rule, block)


def test_a_failed_proof_is_recorded_and_shown_as_not_proved(handbook: Path) -> None:
    corpus = load_corpus(handbook)
    rule, block = _proved_block(corpus)

    def wrong_passes(snippet: Snippet, r: Rule) -> Verdict:
        expected = "FAIL" if snippet.kind == "wrong" else "PASS"
        return Verdict(snippet, expected, Finding("PASS", "nothing escaped", (">>> x", "<<< y")))

    entries, verdicts = evidence.record(corpus, rule_ids=[rule.id], verifier=wrong_passes)
    assert [v.ok for v in verdicts if v.snippet.kind == "wrong"] == [False] * len(rule.snippets_of("wrong"))
    assert entries[block.name]["ok"] is False and entries[block.name]["status"] == "PASS"
    panel = proof_panel(SiteData(corpus=corpus, proofs=entries), rule, block)
    assert "✗ Not proved" in panel and re.search(r"expected probe .* to say <strong>FAIL</strong>, it said <strong>PASS</strong>", panel)


def test_a_change_to_the_reference_server_makes_every_proof_stale(handbook: Path, tmp_path: Path, monkeypatch) -> None:
    server = evidence.server_folder()
    copy = tmp_path / "reference_server"
    shutil.copytree(server, copy, ignore=shutil.ignore_patterns("__pycache__"))
    corpus = load_corpus(handbook)
    before = evidence.check(corpus)
    monkeypatch.setattr(evidence, "server_folder", lambda: copy)
    assert evidence.check(corpus) == before  # the same files: the same keys
    tools = copy / "tool_defs.py"  # a tool definition: its description
    text = tools.read_text(encoding="utf-8")
    tools.write_text(text.replace('"description": "', '"description": "Edited. ', 1), encoding="utf-8")
    state = evidence.check(corpus)
    assert not state.fresh and len(state.stale) == len(evidence.provable_snippets(corpus)), state.lines()[:3]
    assert "its recorded proof is for other code, seam, probe or reference server" in state.stale[0]


def test_what_a_proof_depends_on_is_its_probes_imports_and_the_verifiers() -> None:
    """Code a probe runs (the support module, a gate's ``_common.py``, the wire) is in its proofs' keys, found from
    the imports; another probe's module is not (tests/toolchain/test_proof_freshness.py edits them)."""
    files = {path.relative_to(evidence.PACKAGE).as_posix() for path in evidence.depends_on("probes/errors/echo_request_ids.py")
             if path.is_relative_to(evidence.PACKAGE)}
    for needed in ("probes/support.py", "probes/registry.py", "probes/errors/echo_request_ids.py", "reasons.py", "wire.py",
                   "proving/verify.py"):
        assert needed in files, needed
    assert "probes/security/hidden_text_in_tools.py" not in files and "probes/security/_common.py" not in files
    server = evidence.server_folder()
    assert server / "tool_defs.py" in evidence.depends_on("probes/errors/echo_request_ids.py")


def test_a_recorded_proof_that_did_not_hold_fails_the_check(handbook: Path) -> None:
    corpus = load_corpus(handbook)
    rule, block = _proved_block(corpus)
    entries = evidence.load(handbook)
    key = evidence.evidence_key(rule, block, evidence.probe_file(rule.probe))  # current: only ``ok`` is wrong
    entries[block.name] = {**entries[block.name], "key": key, "ok": False, "status": "PASS", "broken": ""}
    state = evidence.check(corpus, entries)
    assert state.failing == (f"{block.location.path}:{block.location.line}: {rule.id} WRONG block {block.index}: its recorded proof did not hold "
                             "(expected FAIL, the probe said PASS); fix the block, then run `mcp-handbook evidence`",)
    assert not state.fresh


def test_a_transcript_names_no_path_of_the_machine_that_recorded_or_built_it(handbook: Path) -> None:
    """Temporary folders and the checkout read as placeholders (<workspace>, <temp>, <checkout>) on the page."""
    corpus = load_corpus(handbook)
    rule, block = _proved_block(corpus)
    machine_lines = (
        f">>> read {handbook}/content/notes.md",  # the checkout the site is built from
        "<<< served /tmp/hb-verify-x1y2/ws/secret.txt",  # a temporary folder, as another machine recorded it
        "err opened /var/folders/ab/cd1234/T/hb-run-9/ws-evil/secret.txt",  # macOS's temporary folders
    )

    def fails_with_paths(snippet: Snippet, r: Rule) -> Verdict:
        expected = "FAIL" if snippet.kind == "wrong" else "PASS"
        return Verdict(snippet, expected, Finding(expected, "served from $TMP/ws", machine_lines, reason="served_outside_root"))

    entries, _ = evidence.record(corpus, rule_ids=[rule.id], verifier=fails_with_paths)
    # as another machine may have recorded them (this one's scrub already turned its own temp folder into $TMP)
    entries[block.name]["evidence"] = [*machine_lines, "$TMP/ws/a and $TMP/srv/b"]
    panel = proof_panel(SiteData(corpus=corpus, proofs=entries), rule, block)
    assert "<pre>" in panel
    for machine_path in (str(handbook), "/tmp/", "/var/folders", "$TMP"):
        assert machine_path not in panel, machine_path
    assert "&lt;checkout&gt;/content/notes.md" in panel and "&lt;workspace&gt;/a" in panel and "&lt;server-code&gt;/b" in panel
    assert "&lt;temp&gt;/ws/secret.txt" in panel and "&lt;temp&gt;/ws-evil/secret.txt" in panel


def test_recording_a_rules_proofs_runs_its_other_blocks_too(handbook: Path) -> None:
    """One command for a contributor: ``evidence -k RULE`` proves the blocks a probe proves (recorded) and runs the
    rule's other blocks, naming the line of one that fails, as ``pytest`` on the rule's file would."""
    path = handbook / "content" / "rules" / "transport" / "choose-the-transport.md"
    text = path.read_text(encoding="utf-8")
    fence = re.search(r"```python correct[^\n]*\n", text)
    line = text[: fence.start()].count("\n") + 1
    path.write_text(text[: fence.end()] + 'raise RuntimeError("an edit that breaks the block")\n' + text[fence.end():],
                    encoding="utf-8")
    result = cli("evidence", "-k", "TRN-003", cwd=handbook)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"content/rules/transport/choose-the-transport.md:{line}: TRN-003 CORRECT block 1" in result.stdout
    assert "other blocks of the same rules: 2 run or checked, 1 failed" in result.stdout
