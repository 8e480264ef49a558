"""A contributor's pull request, end to end in a temporary repository: every mistake
gets its precise ``path:line`` message, and ``diff`` says what the change does and
which release it calls for."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from mcp_handbook.contrib.versioning import next_version

from .conftest import NEW_RULE_PATH, Checkout, make_checkout

pytestmark = pytest.mark.slow  # a contributor's checkout, proofs and git history

pytest_plugins = ["pytester"]


def base_version(checkout: Checkout) -> str:
    return str(yaml.safe_load((checkout.path / "content" / "handbook.yml").read_text())["version"])


def retire(checkout: Checkout, entry: str) -> int:
    """Add one entry under ``retired:``; return the line it stands on."""
    path = checkout.path / "content" / "handbook.yml"
    text = re.sub(r"^retired: \[\]$", "retired:", path.read_text(), flags=re.M)
    key = re.search(r"^retired:\n", text, re.M)
    path.write_text(f"{text[: key.end()]}  - {entry}\n{text[key.end() :]}")
    return text[: key.start()].count("\n") + 2


def add_rule(checkout: Checkout, text: str, *, tag: str | None = None) -> None:
    checkout.write(NEW_RULE_PATH, text)
    assert checkout.cli("snippets").returncode == 0
    if tag:
        checkout.commit(f"add {tag}")
        checkout.git("tag", tag)


def test_a_new_rule_lints_clean_once_its_snippets_are_written_and_diff_drafts_a_minor_release(checkout: Checkout, new_rule: str) -> None:
    before = checkout.check_lines()
    checkout.write(NEW_RULE_PATH, new_rule)
    assert checkout.check_lines() - before == {
        "snippets/XMP-001/correct1.py:1: HB050 missing (hint: run `mcp-handbook snippets`)",
        "snippets/XMP-001/wrong1.py:1: HB050 missing (hint: run `mcp-handbook snippets`)",
    }
    assert checkout.cli("snippets").returncode == 0
    assert checkout.check_lines() == before

    version = base_version(checkout)
    minor = next_version(version, "minor")
    text = checkout.cli("diff", "base").stdout
    assert text.startswith(f"doctrine {version} -> {minor} suggested (minor), comparing base with the working tree\n")
    assert f'{NEW_RULE_PATH}:1: added XMP-001 "Refuse a path argument that leaves the workspace before touching the disk" [minor]' in text
    draft = checkout.cli("diff", "base", "--changelog").stdout
    assert draft.startswith(f"## {minor} - 2027-01-01\n\nMinor release (1 added).\n\n### Added\n\n- XMP-001 Refuse a path argument")


def test_each_contributor_mistake_is_reported_at_its_path_and_line(checkout: Checkout, new_rule: str) -> None:
    add_rule(checkout, new_rule)
    before = checkout.check_lines()
    checkout.write("content/rules/security/second-example.md", new_rule.replace("title: Refuse", "title: Also refuse"))
    retire(checkout, '{id: XMP-002, retired_in: "0.1.0", replaced_by: XMP-001}')
    checkout.write("content/rules/security/reuse.md", new_rule.replace("id: XMP-001", "id: XMP-002"))
    checkout.write("content/rules/security/scope.md", new_rule.replace("id: XMP-001", "id: XMP-003").replace("scope: universal", "scope: everywhere"))
    result = checkout.cli_process("check")
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    new = {line for line in set(result.stdout.splitlines()) - before if " HB050 " not in line}
    assert new == {
        "content/rules/security/second-example.md:2: HB020 id XMP-001 is already used by "
        "content/rules/security/path-containment.md (hint: pick the next free id in this area)",
        "content/rules/security/reuse.md:2: HB021 id XMP-002 was retired in 0.1.0 and may never be reused "
        "(hint: pick a new id; the retired rule was replaced by XMP-001)",
        "content/rules/security/scope.md:4: HB012 field 'scope' must be one of universal, opinionated, stack, "
        "not 'everywhere' (hint: universal | opinionated | stack)",
        *(f"content/rules/security/{slug}.md:10: HB039 probe 'path_containment' is not named after its rule's file ({slug}.md) "
          f"(hint: rename it '{slug.replace('-', '_')}' (its @probe name and `probe:` here), or give the reason in NAMED_APART "
          "(tools/mcp_handbook/naming.py))" for slug in ("second-example", "reuse", "scope")),
    }


def test_breaking_the_new_rules_correct_block_fails_its_proof_at_the_markdown_line(
    pytester: pytest.Pytester, project_root: Path, new_rule: str
) -> None:
    checkout = make_checkout(pytester.path, project_root)
    checkout.write(NEW_RULE_PATH, new_rule)
    pytester.runpytest_subprocess(NEW_RULE_PATH, "-q").assert_outcomes(passed=2)

    wrong = re.search(r"```python wrong[^\n]*\n(.*?)```", new_rule, re.S).group(1)
    correct = re.search(r"(```python correct[^\n]*\n)(.*?)```", new_rule, re.S)
    checkout.write(NEW_RULE_PATH, new_rule[: correct.start(2)] + wrong + new_rule[correct.end(2) :])
    fence_line = new_rule[: correct.start(1)].count("\n") + 1
    result = pytester.runpytest_subprocess(NEW_RULE_PATH, "-q")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert f"{NEW_RULE_PATH}:{fence_line}: XMP-001 CORRECT block 1 (seam resolve_path, probe path_containment)" in out
    assert "expected the probe to PASS, it said FAIL" in out


@pytest.mark.parametrize(
    ("old", "new", "level", "detail"),
    [
        ("severity: medium", "severity: high", "major", "severity medium -> high (raised to high: findings now block)"),
        ("severity: medium", "severity: low", "minor", "severity medium -> low (lowered)"),
        ("scope: universal", "scope: opinionated", "minor", "scope: universal -> opinionated (scope changed)"),
        ("A path from tool arguments is untrusted.", "Every path a model sends is untrusted.", "patch", "prose changed"),
        ("return workspace / user_path", "return workspace.joinpath(user_path)", "patch", "code: wrong1 changed"),
    ],
    ids=["severity-raised-to-high", "severity-lowered", "scope", "prose", "code"],
)
def test_diff_names_the_changed_rule_and_the_release_it_calls_for(
    checkout: Checkout, new_rule: str, old: str, new: str, level: str, detail: str
) -> None:
    add_rule(checkout, new_rule, tag="with-rule")
    checkout.write(NEW_RULE_PATH, new_rule.replace(old, new))
    version = base_version(checkout)
    text = checkout.cli("diff", "with-rule").stdout
    assert (f'{NEW_RULE_PATH}:1: changed XMP-001 "Refuse a path argument that leaves the workspace before touching '
            f'the disk" [{level}]\n    {detail}\n') in text
    assert text.startswith(f"doctrine {version} -> {next_version(version, level)} suggested ({level})")
    draft = checkout.cli("diff", "with-rule", "--changelog").stdout
    assert draft.startswith(f"## {next_version(version, level)} - 2027-01-01\n") and detail in draft


def test_the_pull_request_description_calls_out_severity_and_scope_in_bold(checkout: Checkout, new_rule: str) -> None:
    add_rule(checkout, new_rule, tag="with-rule")
    checkout.write(NEW_RULE_PATH, new_rule.replace("severity: medium", "severity: high").replace("scope: universal", "scope: opinionated"))
    checkout.commit("raise XMP-001")
    major = next_version(base_version(checkout), "major")
    md = checkout.cli("diff", "with-rule", "HEAD", "--format", "markdown").stdout
    assert f"**Suggested release: {major}** (major; base {base_version(checkout)}), comparing `with-rule` with `HEAD`." in md
    assert (
        "| changed | **XMP-001** Refuse a path argument that leaves the workspace before touching the disk | "
        "**scope: universal -> opinionated (scope changed)**; **severity medium -> high (raised to high: findings now block)** | **major** |"
    ) in md
    assert "| added | **XMP-001**" in checkout.cli("diff", "base", "with-rule", "--format", "markdown").stdout


def test_retiring_a_rule_needs_a_registry_entry_and_calls_for_a_major_release(checkout: Checkout, new_rule: str) -> None:
    add_rule(checkout, new_rule, tag="with-rule")
    before = checkout.check_lines()
    major = next_version(base_version(checkout), "major")
    (checkout.path / NEW_RULE_PATH).unlink()
    assert checkout.cli("snippets").returncode == 0

    handbook = (checkout.path / "content" / "handbook.yml").read_text()
    retired_key_line = handbook[: handbook.index("\nretired:")].count("\n") + 2
    gone = checkout.check_lines() - before
    assert gone == {
        f"content/handbook.yml:{retired_key_line}: HB024 rule XMP-001 ({NEW_RULE_PATH} at HEAD) is gone but not retired; ids are never reused "
        f'(hint: restore the rule, or add `- {{id: XMP-001, retired_in: "{major}", replaced_by: NEW-ID}}` under `retired:`)'
    }
    text = checkout.cli("diff", "with-rule").stdout
    assert 'content/handbook.yml:1: removed XMP-001 "Refuse a path argument that leaves the workspace before touching the disk" [major]' in text
    assert (
        "content/handbook.yml:1: note XMP-001 was removed without retirement; ids are never reused "
        f'(hint: add `- {{id: XMP-001, retired_in: "{major}", replaced_by: NEW-ID}}` under `retired:` (or `replaced_by: null` with `reason:`))\n'
    ) in text

    entry_line = retire(checkout, f'{{id: XMP-001, retired_in: "{major}", replaced_by: null, reason: "folded into SEC-001"}}')
    assert checkout.check_lines() == before
    text = checkout.cli("diff", "with-rule").stdout
    assert f'content/handbook.yml:{entry_line}: retired XMP-001 "Refuse a path argument' in text
    assert f"    retired in {major}, replaced by nothing (folded into SEC-001)\n" in text
    draft = checkout.cli("diff", "with-rule", "--changelog").stdout
    assert draft.startswith(f"## {major} - 2027-01-01\n\nMajor release (1 retired).\n\n### Retired\n\n- XMP-001 Refuse a path argument")

    checkout.commit("retire XMP-001")
    assert checkout.check_lines() == before  # the deletion is in history now, and registered


def test_the_drafted_entry_goes_below_the_changelog_marker_or_nothing_is_written(checkout: Checkout, new_rule: str) -> None:
    add_rule(checkout, new_rule)
    changelog = checkout.path / "CHANGELOG.md"
    minor = next_version(base_version(checkout), "minor")
    result = checkout.cli("diff", "base", "--write-changelog")
    assert result.returncode == 0, result.stderr
    text = changelog.read_text()
    marker = "<!-- mcp-handbook: new entries go below this line -->\n\n"
    assert f"{marker}## {minor} - 2027-01-01\n" in text
    assert text.index(f"## {minor} - 2027-01-01") < text.index(f"## {base_version(checkout)} - ")

    changelog.write_text("# Changelog\n\nno marker here\n")
    result = checkout.cli("diff", "base", "--write-changelog")
    assert result.returncode == 2 and "has no line" in result.stderr and "Traceback" not in result.stderr
    assert changelog.read_text() == "# Changelog\n\nno marker here\n"


def test_diff_against_a_ref_git_cannot_read_is_a_usage_error(checkout: Checkout) -> None:
    result = checkout.cli_process("diff", "no-such-ref")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("mcp-handbook: cannot read the doctrine at 'no-such-ref'") and "Traceback" not in result.stderr


def test_a_rule_that_no_longer_parses_is_reported_as_such_not_as_removed(checkout: Checkout, new_rule: str) -> None:
    add_rule(checkout, new_rule, tag="with-rule")
    before = checkout.check_lines()
    checkout.write(NEW_RULE_PATH, new_rule.replace("title: Refuse a path", 'title: "Refuse a path'))
    new = checkout.check_lines() - before
    assert [(ln.split(":")[0], ln.split(" ")[1]) for ln in new if " HB050 " not in ln] == [(NEW_RULE_PATH, "HB003")]  # no HB024
    text = checkout.cli("diff", "with-rule").stdout
    assert "removed XMP-001" not in text
    assert f"{NEW_RULE_PATH}:1: note XMP-001 was not compared: the file does not parse (hint: run `mcp-handbook check`)" in text


def test_a_yaml_mistake_never_leads_to_deleting_the_rules_snippets(checkout: Checkout, new_rule: str) -> None:
    add_rule(checkout, new_rule, tag="with-rule")
    snippets = sorted((checkout.path / "snippets" / "XMP-001").glob("*.py"))
    assert snippets
    checkout.write(NEW_RULE_PATH, new_rule.replace("title: Refuse a path", 'title: "Refuse a path'))
    lines = checkout.check_lines()
    assert not any("snippets/XMP-001/" in ln for ln in lines), lines  # no hint to run `snippets` for them
    assert checkout.cli("snippets").returncode == 0
    assert sorted((checkout.path / "snippets" / "XMP-001").glob("*.py")) == snippets


def test_a_code_only_change_is_not_called_a_prose_change(checkout: Checkout, new_rule: str) -> None:
    add_rule(checkout, new_rule, tag="with-rule")
    checkout.write(NEW_RULE_PATH, new_rule.replace("return workspace / user_path", "return workspace.joinpath(user_path)"))
    text = checkout.cli("diff", "with-rule").stdout
    assert "    code: wrong1 changed\n" in text and "prose changed" not in text


def test_a_retired_id_whose_rule_is_still_there_is_an_error_in_the_diff(checkout: Checkout, new_rule: str) -> None:
    add_rule(checkout, new_rule, tag="with-rule")
    line = retire(checkout, '{id: XMP-001, retired_in: "9.0.0", replaced_by: null, reason: "oops"}')
    text = checkout.cli("diff", "with-rule").stdout
    assert f"content/handbook.yml:{line}: note error: XMP-001 is retired but its rule is still at {NEW_RULE_PATH}" in text
    assert "the rule was already gone" not in text
    assert any(" HB021 " in ln for ln in checkout.check_lines())


def test_the_pull_request_description_carries_the_changelog_draft(checkout: Checkout, new_rule: str) -> None:
    add_rule(checkout, new_rule)
    md = checkout.cli("diff", "base", "--format", "markdown").stdout
    minor = next_version(base_version(checkout), "minor")
    assert "| added | **XMP-001**" in md
    assert "<details><summary>CHANGELOG.md entry, drafted" in md and f"## {minor} - 2027-01-01" in md.split("<details>", 1)[1]
