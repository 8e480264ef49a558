"""The scorecard written (JSON, CSV, page), read back, and compared with a previous one."""

from __future__ import annotations

import copy
import csv
import io
import json
import re
from pathlib import Path

import pytest
from fleet_helpers import ALL_KINDS, RULES, fleet, result, verdict

from mcp_handbook.fleet import scorecard as scorecard_module
from mcp_handbook.fleet.merge import merge_results
from mcp_handbook.fleet.result import write
from mcp_handbook.fleet.scorecard import ScorecardError, csv_columns, diff, read_scorecard, to_csv, write_scorecard
from mcp_handbook.fleet.scorecard_page import page_html

HOSTILE_NAME = '<script>alert("name")</script>'
HOSTILE_WHY = "</td><img src=x onerror=alert(1)>"


def card_of(folder: Path) -> dict:
    fleet(folder)
    return merge_results([folder])


def test_the_scorecard_files_are_written_and_read_back(tmp_path: Path) -> None:
    card = card_of(tmp_path / "results")
    written = write_scorecard(card, tmp_path / "out")
    assert sorted(p.name for p in written) == ["index.html", "scorecard.csv", "scorecard.json"]
    assert read_scorecard(tmp_path / "out" / "scorecard.json") == json.loads(json.dumps(card))
    text = (tmp_path / "out" / "scorecard.json").read_text()
    assert text.count("\n") > len(card["rows"]), "one server a line, so a text diff reads per server"


def test_the_diff_names_a_rule_gone_to_fail_a_version_bump_and_a_new_server(tmp_path: Path) -> None:
    previous = card_of(tmp_path / "before")
    now = tmp_path / "now"
    fleet(now)
    clean_file = next(now.glob("shard-1/io.example_clean*.json"))
    clean_file.unlink()  # the clean server is now 2.1.0 and fails SEC-002
    rules = [verdict(r, "FAIL" if r == "SEC-002" else "PASS") for r, _, _ in RULES]
    write(now / "shard-1", result("io.example/clean", "2.1.0", rules=rules))
    write(now / "shard-2", result("io.example/brand-new", rules=[verdict("TRN-001", "PASS")]))
    changes = diff(previous, merge_results([now]))
    assert [s["name"] for s in changes["new"]] == ["io.example/brand-new"] and changes["gone"] == []
    assert len(changes["changed"]) == 1, "the unchanged servers are not listed"
    change = changes["changed"][0]
    assert change["name"] == "io.example/clean" and change["version"] == ["2.0.0", "2.1.0"] and change["state"] is None
    assert change["worse"] == ["SEC-002"] and change["better"] == [] and change["unchecked"] == []
    assert changes["totals"] == {"new": 1, "gone": 0, "changed": 1, "better": 0, "worse": 1, "unchecked": 0}


def test_the_diff_names_better_unchecked_gone_and_a_state_change(tmp_path: Path) -> None:
    previous = card_of(tmp_path / "before")
    current = copy.deepcopy(previous)
    rows = {r["name"]: r for r in current["rows"]}
    rows["io.example/every-kind"]["verdicts"] = "PIUNU"  # TRN-001 F->P, TRN-002 P->U
    rows["io.example/needs-uvx"]["state"] = "no answer"
    current["rows"].remove(rows["io.example/clean"])
    changes = diff(previous, current)
    assert [s["name"] for s in changes["gone"]] == ["io.example/clean"]
    got = {c["name"]: c for c in changes["changed"]}
    assert got["io.example/every-kind"]["better"] == ["TRN-001"] and got["io.example/every-kind"]["unchecked"] == ["TRN-002"]
    assert got["io.example/needs-uvx"]["state"] == ["not audited", "no answer"]


def test_with_a_previous_scorecard_the_diff_is_written_and_shown(tmp_path: Path) -> None:
    previous = card_of(tmp_path / "before")
    current = copy.deepcopy(previous)
    current["rows"][0]["verdicts"] = "FIUNF"
    written = write_scorecard(current, tmp_path / "out", previous=previous)
    assert (tmp_path / "out" / "diff.json") in written
    assert json.loads((tmp_path / "out" / "diff.json").read_text())["totals"]["worse"] == 1
    page = (tmp_path / "out" / "index.html").read_text()
    assert "Changes since the previous scorecard" in page and "✗ <code>TRN-002</code>" in page
    write_scorecard(current, tmp_path / "out")  # merged again into the same folder, with no previous this time
    assert not (tmp_path / "out" / "diff.json").exists(), "the older diff must not pass for this merge's"


def test_csv_cells_a_spreadsheet_would_run_are_quoted_and_numbers_stay_numbers(tmp_path: Path) -> None:
    for name in ("=HYPERLINK(\"http://evil\",\"x\")", "@SUM(A1)", "+1+2", "-2+3"):
        write(tmp_path, {**result(name, rules=ALL_KINDS), "exit_code": -15, "why": "\tcmd|' /C calc'!A0"})
    card = merge_results([tmp_path])
    rows = list(csv.reader(io.StringIO(to_csv(card))))
    header, body = rows[0], rows[1:]
    assert header == csv_columns(card)
    names = [r[header.index("name")] for r in body]
    assert all(n.startswith("'") for n in names), names
    assert {r[header.index("why")] for r in body} == {"'\tcmd|' /C calc'!A0"}
    assert {r[header.index("exit_code")] for r in body} == {"-15"}, "a number is not text to quote"
    assert {r[header.index("verdicts")] for r in body} == {"FIUNP"}
    assert {r[header.index("security FAIL")] for r in body} == {"1"}


def test_the_page_escapes_hostile_server_text_everywhere(tmp_path: Path) -> None:
    hostile = result(HOSTILE_NAME, HOSTILE_NAME, rules=[{**verdict("TRN-001", "FAIL"), "id": '"><b>id</b>'}],
                     state="no answer", why=HOSTILE_WHY)
    write(tmp_path / "results", {**hostile, "server_name": HOSTILE_NAME, "doctrine_version": '"><i>v'})
    card = merge_results([tmp_path / "results"])
    card["site"] = "https://example.org/handbook/"
    card["rules"][0]["page"] = "rules/x/y/"
    page = page_html(card, diff(card, card))
    assert "<script>alert" not in page and "<img" not in page and "<b>id" not in page and "<i>v" not in page
    assert "&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;" in page
    assert page.count("<script>") == 1, "only the page's own script"
    assert 'href="https://example.org/handbook/%22%3E%3Ci%3Ev/rules/x/y/"' in page, "the version is quoted in links"


def test_the_page_links_high_failures_to_their_rule_pages_and_greys_not_audited(tmp_path: Path) -> None:
    card = card_of(tmp_path)
    card["site"] = "https://example.org/handbook/"
    for rule in card["rules"]:
        rule["page"] = f"rules/{rule['gate']}/{rule['id'].lower()}/"
    page = page_html(card)
    assert re.search(r'<a href="https://example.org/handbook/1.5.0/rules/transport/trn-001/"><code>TRN-001</code></a>', page)
    assert re.search(r'from the SDK: <a href="[^"]+sec-001/"><code>SEC-001</code>', page)
    assert re.search(r'<tr data-state="not audited" data-fails="" class="hb-dim">.*needs uvx or pipx', page)
    assert "http://" not in page.replace("http://www.w3.org", ""), "nothing fetched: the page stands alone"
    assert "<link" not in page and "src=" not in page


def test_a_javascript_site_is_never_a_link(tmp_path: Path) -> None:
    card = card_of(tmp_path)
    card["site"] = "javascript:alert(1)//"
    card["rules"][0]["page"] = "rules/x/"
    assert "javascript:" not in page_html(card)


@pytest.mark.parametrize(("text", "said"), [
    ("{", "not JSON"),
    ('{"format": "mcp-handbook-fleet-result"}', "not a fleet scorecard"),
    ('{"format": "mcp-handbook-fleet-scorecard", "format_version": 2}', "format_version 2"),
    ('{"format": "mcp-handbook-fleet-scorecard", "format_version": 1, "rules": [{"id": "A"}], '
     '"rows": [{"key": "k", "verdicts": "PP"}]}', r"rows\[0\]"),
], ids=["not-json", "other-format", "newer", "letters-disagree"])
def test_a_bad_scorecard_is_refused_naming_it(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "scorecard.json"
    path.write_text(text)
    with pytest.raises(ScorecardError, match=said) as caught:
        read_scorecard(path)
    assert str(caught.value).startswith(str(path))


def test_an_oversized_scorecard_is_refused_before_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "scorecard.json"
    path.write_text("[" + "0," * 100 + "0]")
    monkeypatch.setattr(scorecard_module, "MAX_SCORECARD_BYTES", 50)
    with pytest.raises(ScorecardError, match="larger than any fleet scorecard"):
        read_scorecard(path)
