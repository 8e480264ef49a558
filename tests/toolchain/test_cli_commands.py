"""The CLI imports only the module a command needs, so its table of command modules must be exact."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys

import pytest

from mcp_handbook.cli import COMMAND_MODULES, parser, requested_command


@pytest.mark.parametrize("module_name", sorted(COMMAND_MODULES))
def test_each_command_module_registers_exactly_the_commands_the_table_lists(module_name: str) -> None:
    registered: list[str] = []
    sub = argparse.ArgumentParser().add_subparsers()

    def add(name, fn, help_text):  # the same signature parser() hands to register()
        registered.append(name)
        return sub.add_parser(name)

    importlib.import_module(module_name).register(add)
    assert tuple(registered) == COMMAND_MODULES[module_name]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [(["build"], "build"), (["--root", "x", "audit", "-o", "a.md"], "audit"), (["--root", "report"], None),
     (["--help"], None), ([], None)],
)
def test_the_requested_command_is_the_first_word_after_the_options(argv: list[str], expected: str | None) -> None:
    assert requested_command(argv) == expected


def test_every_command_is_reachable_from_the_full_parser() -> None:
    choices = set(parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    assert {name for names in COMMAND_MODULES.values() for name in names} <= choices
    assert {"check", "snippets", "build", "serve", "verify"} <= choices


def test_building_does_not_import_the_probes() -> None:
    code = ("import sys; from mcp_handbook.cli import parser; parser('build'); "
            "print(sorted(m for m in sys.modules if m.startswith(('mcp_handbook.probes', 'mcp_handbook.audit'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_loading_the_doctrine_for_the_site_or_an_export_imports_no_verification_code(project_root) -> None:
    code = (f"import sys; from mcp_handbook import load_corpus; load_corpus({str(project_root)!r}); "
            "import mcp_handbook.export, mcp_handbook.site.state; "
            "print(sorted(m for m in sys.modules if m.startswith(('mcp_handbook.probes', 'mcp_handbook.proving.verify', 'reference_server'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_usage_lists_every_command_whichever_is_asked_for() -> None:
    everything = {name for names in COMMAND_MODULES.values() for name in names} | {"check", "snippets", "build", "serve", "verify"}
    for command in ("check", "build", "audit", None):
        assert set(parser(command)._subparsers._group_actions[0].choices) == everything, command  # type: ignore[union-attr]


def test_version_names_the_tool_and_the_doctrine_of_this_checkout(project_root) -> None:
    import yaml

    from mcp_handbook import __version__

    doctrine = yaml.safe_load((project_root / "content" / "handbook.yml").read_text(encoding="utf-8"))["version"]
    done = subprocess.run([sys.executable, "-m", "mcp_handbook.cli", "--version"], cwd=project_root, capture_output=True,
                          text=True, timeout=60, check=True)
    assert done.stdout.strip() == f"mcp-handbook {__version__} (doctrine {doctrine}: {project_root})"


def test_outside_a_checkout_the_installed_doctrine_is_used_and_a_checkout_wins(tmp_path, project_root, monkeypatch) -> None:
    from mcp_handbook import cli, installed

    packaged = tmp_path / "site-packages" / "mcp_handbook" / "doctrine"
    (packaged / "content").mkdir(parents=True)
    (packaged / "content" / "handbook.yml").write_text('version: "9.8.7"\n', encoding="utf-8")
    (packaged / "COMMIT").write_text("abc1234\n", encoding="utf-8")
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(empty)
    with pytest.raises(cli.UsageError, match="carries no doctrine of its own"):
        cli.doctrine_root(argparse.Namespace(root=None))
    monkeypatch.setattr(installed, "PACKAGED_DOCTRINE", packaged)
    assert cli.doctrine_root(argparse.Namespace(root=None)) == packaged
    assert "(doctrine 9.8.7: installed with the tool)" in cli.version_text(None)
    from mcp_handbook.export.worksheet import git_commit

    assert git_commit(packaged) == "abc1234"
    monkeypatch.chdir(project_root / "content")
    assert cli.doctrine_root(argparse.Namespace(root=None)) == project_root
