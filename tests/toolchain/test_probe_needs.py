"""A probe declares what its proofs need of the reference server in ``@probe(...)``; ``server_options.server_args``
and ``server_options.server_prefix`` read those declarations and the rule's conditions, and keep no list of probe names."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from mcp_handbook import load_corpus
from mcp_handbook.proving import server_options as seams
from mcp_handbook.model import Rule
from mcp_handbook.probes import PROBES, probe
from mcp_handbook.probes.registry import Probe
from mcp_handbook.probes.support import passed
from reference_server.cli import UsageError, parse_args


@pytest.fixture(scope="module")
def rules(project_root: Path) -> dict[str, Rule]:
    return {r.id: r for r in load_corpus(project_root).rules}


@pytest.fixture
def scratch_probe():
    """Register probes for one test, and take them out of the registry again."""
    names: list[str] = []

    def register(name: str, **needs: object) -> Probe:
        probe(name, "a scratch probe", reasons={"scratch": "never"}, **needs)(lambda target: passed("ok"))  # type: ignore[arg-type]
        names.append(name)
        return PROBES[name]

    yield register
    for name in names:
        PROBES.pop(name, None)


def test_every_declared_server_option_is_one_the_reference_server_accepts() -> None:
    declared = {option for p in PROBES.values() for option in p.server_options}
    assert declared, "no probe declares a server option: the progress probes do"
    for option in declared:
        try:
            parse_args([option])
        except UsageError as exc:
            pytest.fail(f"a probe declares {option!r}, which the reference server refuses: {exc}")


def test_the_progress_probes_get_the_progress_tool_from_their_declaration(rules: dict[str, Rule]) -> None:
    for rule_id in ("OPS-013", "OPS-014"):
        assert PROBES[rules[rule_id].probe].server_options == ("--progress-tool",)
        assert seams.server_args(rules[rule_id]) == ["--progress-tool"]


def test_a_new_probe_gets_what_it_declares_and_nothing_else(rules: dict[str, Rule], scratch_probe) -> None:
    scratch_probe("scratch_progress", server_options=("--progress-tool",))
    scratch_probe("scratch_isolated", isolated_network=True)
    scratch_probe("scratch_plain")
    stdio, http = rules["TRN-004"], rules["TRN-012"]  # a rule with no condition that changes the server, an http one
    assert seams.server_args(replace(stdio, probe="scratch_progress")) == ["--progress-tool"]
    assert seams.server_args(replace(stdio, probe="scratch_plain")) == []
    assert seams.server_prefix(replace(stdio, probe="scratch_plain")) == []
    assert seams.server_prefix(replace(http, probe="scratch_isolated")) == list(seams.NETWORK_ISOLATION)
    assert seams.server_args(replace(http, probe="scratch_isolated")) == seams.DEFAULT_HOST_ARGS
    assert seams.server_args(replace(http, probe="scratch_plain")) == seams.HTTP_ARGS


def test_a_rule_without_a_known_probe_gets_what_its_conditions_give(rules: dict[str, Rule]) -> None:
    assert seams.server_args(replace(rules["TRN-014"], probe="no_such_probe")) == ["--legacy-only", *seams.HTTP_ARGS]
    assert seams.server_prefix(replace(rules["TRN-019"], probe="")) == []


@pytest.mark.parametrize("bad", ["--progress-tool", ("progress-tool",), ("--ok", 3)])
def test_a_malformed_server_option_declaration_is_refused_naming_the_probe(bad: object) -> None:
    with pytest.raises(ValueError, match="probe scratch_bad: server_options"):
        probe("scratch_bad", "t", reasons={"r": "m"}, server_options=bad)  # type: ignore[arg-type]
    assert "scratch_bad" not in PROBES


def test_server_options_name_no_probe() -> None:
    """The name sets are gone: what a probe needs is read from its registration."""
    source = Path(seams.__file__).read_text(encoding="utf-8")
    assert not [name for name in PROBES if f'"{name}"' in source]
