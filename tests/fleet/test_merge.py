"""Merging fleet results: counts, HIGH failures (own and the SDK's), not-checked rules, states, the rule letters,
and a clear refusal for two results of one server or a file that is not a result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fleet_helpers import ALL_KINDS, RULES, fleet, result, verdict

from mcp_handbook import load_corpus
from mcp_handbook.fleet import merge as merge_module
from mcp_handbook.fleet.entry import Entry
from mcp_handbook.fleet.merge import LETTERS, merge_results, result_files
from mcp_handbook.fleet.result import ResultError, not_run, write


def by_name(card: dict) -> dict[str, dict]:
    return {row["name"]: row for row in card["rows"]}


def test_a_merge_counts_every_kind_of_verdict_per_gate_and_severity(tmp_path: Path) -> None:
    fleet(tmp_path)
    card = merge_results([tmp_path])
    assert [r["id"] for r in card["rules"]] == [r for r, _, _ in RULES], "each rule once, in the results' order"
    assert card["gates"] == ["transport", "security", "errors"]
    assert card["severities"] == ["high", "medium", "low"]
    row = by_name(card)["io.example/every-kind"]
    # columns: PASS, FAIL, N/A (does not apply), not checked
    assert row["gates"] == {"transport": [1, 1, 0, 0], "security": [0, 1, 0, 1], "errors": [0, 0, 1, 0]}
    assert row["severities"] == {"high": [0, 2, 0, 0], "medium": [1, 0, 0, 1], "low": [0, 0, 1, 0]}
    assert row["high_fails"] == ["TRN-001"] and row["high_inherited"] == ["SEC-001"], "the SDK's default kept apart"
    assert row["not_checked"] == 1
    assert row["verdicts"] == "FIUNP"
    clean = by_name(card)["io.example/clean"]
    assert clean["verdicts"] == "PPPPP" and clean["high_fails"] == [] and clean["version"] == "2.0.0"


def test_a_server_not_audited_is_a_row_with_its_reason_and_no_verdicts(tmp_path: Path) -> None:
    fleet(tmp_path)
    card = merge_results([tmp_path])
    row = by_name(card)["io.example/needs-uvx"]
    assert (row["state"], row["why"], row["how"]) == ("not audited", "needs uvx or pipx to run a PyPI package", "pypi")
    assert row["verdicts"] == LETTERS["absent"] * len(RULES) and row["gates"] == {} and row["exit_code"] is None
    assert card["states"] == {"audited": 2, "not audited": 1}


def test_folders_are_read_recursively_in_path_order_and_only_json(tmp_path: Path) -> None:
    written = fleet(tmp_path)
    (tmp_path / "shard-1" / "notes.txt").write_text("not a result")
    assert list(result_files([tmp_path])) == sorted(written)
    assert [r["key"] for r in merge_results([tmp_path])["rows"]] == [json.loads(p.read_text())["key"] for p in sorted(written)]


def test_a_rule_first_seen_in_a_later_result_pads_earlier_rows_as_absent(tmp_path: Path) -> None:
    write(tmp_path / "a", result("io.example/a", rules=[verdict("TRN-001", "PASS")]))
    write(tmp_path / "b", result("io.example/b", rules=[verdict("SEC-001", "FAIL"), verdict("TRN-001", "FAIL")]))
    card = merge_results([tmp_path / "a", tmp_path / "b"])
    assert [r["id"] for r in card["rules"]] == ["TRN-001", "SEC-001"]
    assert [r["verdicts"] for r in card["rows"]] == ["P.", "FF"], "letters follow the scorecard's order, not the file's"


def test_results_of_several_versions_are_reported_not_hidden(tmp_path: Path) -> None:
    write(tmp_path, result("io.example/a", rules=[verdict("TRN-001", "PASS")]))
    write(tmp_path, result("io.example/b", rules=[verdict("TRN-001", "PASS")], doctrine="1.4.0", tool="1.4.2"))
    card = merge_results([tmp_path])
    assert card["doctrine_versions"] == {"1.5.0": 1, "1.4.0": 1} and card["tool_versions"] == {"1.5.0": 1, "1.4.2": 1}
    assert card["mixed_versions"] is True
    assert merge_results([tmp_path / f"{result('io.example/a')['key']}.json"])["mixed_versions"] is False


def test_two_results_of_one_server_are_refused_naming_both_files(tmp_path: Path) -> None:
    first = write(tmp_path / "run-1", result("io.example/twice", rules=[verdict("TRN-001", "PASS")]))
    second = write(tmp_path / "run-2", result("io.example/twice", rules=[verdict("TRN-001", "FAIL")]))
    with pytest.raises(ResultError) as caught:
        merge_results([tmp_path])
    message = str(caught.value)
    assert str(first) in message and str(second) in message and "io.example_twice" in message


@pytest.mark.parametrize(("text", "said"), [
    (b"{not json", "not JSON"),
    (b'{"format": "something-else"}', "not a fleet result"),
    (json.dumps({**result("io.example/x"), "rules": [{"id": "TRN-001", "status": "MAYBE"}]}).encode(), r"rules\[0\]"),
], ids=["not-json", "not-a-result", "bad-verdict"])
def test_a_bad_file_stops_the_merge_naming_it(tmp_path: Path, text: bytes, said: str) -> None:
    fleet(tmp_path)
    bad = tmp_path / "shard-1" / "zz-stranger.json"
    bad.write_bytes(text)
    with pytest.raises(ResultError, match=said) as caught:
        merge_results([tmp_path])
    assert str(caught.value).startswith(str(bad))


def test_server_text_is_cleaned_and_bounded(tmp_path: Path) -> None:
    hostile = result("io.example/h", rules=[verdict("TRN-001", "PASS")])
    hostile.update({"why": "\x1b[31mred\x00" + "x" * 5000, "server_name": "n" * 5000, "sdk": 42, "seconds": "soon"})
    write(tmp_path, hostile)
    row = merge_results([tmp_path])["rows"][0]
    assert row["why"].startswith("\\x1b[31mred\\x00") and len(row["why"]) == merge_module.TEXT_LIMIT
    assert len(row["server_name"]) == merge_module.NAME_LIMIT and row["sdk"] == "" and row["seconds"] is None


def test_the_merge_reads_one_result_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each result is reduced to its row before the next file is opened: the merge never holds the list."""
    fleet(tmp_path)
    events: list[str] = []
    real_read, real_add = merge_module.read, merge_module.add_result

    def read(path: Path) -> dict:
        events.append("read")
        return real_read(path)

    def add(card: dict, data: dict, key: str) -> None:
        events.append("row")
        real_add(card, data, key)

    monkeypatch.setattr(merge_module, "read", read)
    monkeypatch.setattr(merge_module, "add_result", add)
    merge_results(iter([tmp_path]))
    assert events == ["read", "row"] * 3


def test_a_real_not_run_result_and_the_corpus_pages(tmp_path: Path, project_root: Path) -> None:
    corpus = load_corpus(project_root)
    entry = Entry(name="io.example/docker-only", version="1", how="oci", package="oci:example:1", source="s.json")
    write(tmp_path, not_run(entry, corpus, state="not audited", why="needs docker", tool_version="1.5.0", sandbox="none"))
    write(tmp_path, result("io.example/every-kind", rules=ALL_KINDS))
    card = merge_results([tmp_path], corpus=corpus)
    assert card["site"] == corpus.site
    page = {r["id"]: r["page"] for r in card["rules"]}["TRN-001"]
    rule = corpus.rule("TRN-001")
    assert rule is not None and corpus.page_url(rule) == f"{corpus.site}{corpus.version}/{page}"
    assert by_name(card)["io.example/docker-only"]["why"] == "needs docker"
