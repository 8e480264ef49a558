"""One naming scheme: rule file ``<gate>/<slug>.md``, probe ``<slug>`` with ``_``, module
``probes/<gate folder>/<probe>.py``; ``naming.NAMED_APART`` is the one place a difference is explained (HB039)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from mcp_handbook import load_corpus, naming
from mcp_handbook.model import Corpus
from mcp_handbook.naming import NAMED_APART, gate_folder, naming_scheme, probe_name
from mcp_handbook.probes import PROBES
from mcp_handbook.vocabulary import toolchain_vocabulary


@pytest.fixture(scope="module")
def corpus(project_root: Path) -> Corpus:
    return load_corpus(project_root)


@pytest.fixture
def no_exceptions(monkeypatch: pytest.MonkeyPatch) -> None:
    """A one-rule corpus does not hold the probes the real table explains: start from an empty table."""
    monkeypatch.setattr(naming, "NAMED_APART", {})


def _one_rule(corpus: Corpus, rule_id: str, **changes: object) -> Corpus:
    rule = next(r for r in corpus.rules if r.id == rule_id)
    return replace(corpus, rules=(replace(rule, **changes),))


def _codes(found) -> list[tuple[str, str, str]]:
    return [(d.code, d.location.path, d.message) for d in found]


def test_the_doctrine_follows_the_scheme_or_says_why_not(corpus: Corpus) -> None:
    assert _codes(naming_scheme(corpus, toolchain_vocabulary().modules)) == []


def test_every_registered_probe_of_the_package_is_named_for_its_rule_or_explained(corpus: Corpus) -> None:
    """No probe without a rule hides outside the check: each of the package's probes proves a rule."""
    proved = {r.probe for r in corpus.rules if r.probe}
    assert set(toolchain_vocabulary().modules) <= proved


def test_a_probe_not_named_after_its_rule_file_is_hb039_with_the_name_to_use(corpus: Corpus, no_exceptions: None) -> None:
    modules = {"canary_check": "security/canary_check.py"}
    found = list(naming_scheme(_one_rule(corpus, "SEC-009", probe="canary_check"), modules))
    assert [d.code for d in found] == ["HB039"]
    assert found[0].location.path == "content/rules/security/no-secret-in-output.md"
    assert "'no_secret_in_output'" in found[0].hint and naming.NAMING_FILE in found[0].hint


def test_a_module_not_named_after_its_probe_is_hb039(corpus: Corpus, no_exceptions: None) -> None:
    found = list(naming_scheme(_one_rule(corpus, "SEC-009"), {"no_secret_in_output": "security/secret_output.py"}))
    assert [d.code for d in found] == ["HB039"] and "probes/security/secret_output.py" in found[0].message


def test_a_probe_outside_its_gates_folder_is_hb039_even_when_explained(corpus: Corpus, no_exceptions: None,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Folder and gate are one mapping (``gate_folder``), with no exception."""
    found = list(naming_scheme(_one_rule(corpus, "UX-015"), {"output_budget": "errors/output_budget.py"}))
    assert [d.code for d in found] == ["HB039"] and "probes/agent_ux/" in found[0].hint
    monkeypatch.setattr(naming, "NAMED_APART", {"budget": "a family"})
    found = list(naming_scheme(_one_rule(corpus, "UX-015", probe="budget"), {"budget": "errors/budget.py"}))
    assert [d.code for d in found] == ["HB039"] and "outside probes/agent_ux/" in found[0].message


def test_an_entry_of_named_apart_explains_a_difference(corpus: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(naming, "NAMED_APART", {"canary_check": "one probe for two rules"})
    assert list(naming_scheme(_one_rule(corpus, "SEC-009", probe="canary_check"), {"canary_check": "security/x.py"})) == []


def test_an_entry_that_explains_nothing_is_hb039_at_the_table(corpus: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(naming, "NAMED_APART", {"no_secret_in_output": "stale", "gone_probe": "stale"})
    found = list(naming_scheme(_one_rule(corpus, "SEC-009"), {"no_secret_in_output": "security/no_secret_in_output.py"}))
    assert [(d.code, d.location.path) for d in found] == [("HB039", naming.NAMING_FILE)] * 2
    assert "no probe of that name" in found[0].message and "already share one name" in found[1].message


def test_another_doctrine_does_not_judge_the_table(corpus: Corpus) -> None:
    """A handbook that proves none of the explained probes (a fixture, a fork with rules of its own) gets no HB039
    for entries about the rules it does not have."""
    assert list(naming_scheme(_one_rule(corpus, "SEC-009"), toolchain_vocabulary().modules)) == []


def test_check_reports_hb039_for_a_misnamed_probe(tmp_path: Path, project_root: Path) -> None:
    """Through ``load_corpus(proving=True)``, as ``mcp-handbook check`` runs it."""
    import shutil

    root = tmp_path / "hb"
    shutil.copytree(project_root / "content", root / "content")
    shutil.copy(project_root / "mkdocs.yml", root / "mkdocs.yml")
    rule = root / "content/rules/errors/echo-request-ids.md"
    rule.rename(rule.with_name("echo-ids.md"))
    found = [d for d in load_corpus(root, proving=True).diagnostics if d.code == "HB039"]
    assert [(d.location.path, d.location.line > 1) for d in found] == [("content/rules/errors/echo-ids.md", True)]


def test_gate_folders_and_probe_names() -> None:
    assert gate_folder("agent-ux") == "agent_ux" and gate_folder("security") == "security"
    assert probe_name("no-secret-in-output") == "no_secret_in_output"


def test_every_probe_package_is_the_folder_of_a_gate(corpus: Corpus) -> None:
    package = Path(PROBES["no_secret_in_output"].source_file).parents[1]
    folders = {p.name for p in package.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert folders == {gate_folder(g.key) for g in corpus.gates} & folders
    assert folders <= {gate_folder(g.key) for g in corpus.gates}


def test_every_explained_probe_names_its_module_first() -> None:
    """Each reason starts with the module the family shares, so a reader finds it from the table."""
    for name, reason in NAMED_APART.items():
        module = reason.split(":", 1)[0]
        assert Path(PROBES[name].source_file).as_posix().endswith(f"probes/{module}"), (name, module)
