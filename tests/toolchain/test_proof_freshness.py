"""A recorded proof's key follows what the proof runs: its probe's imports and the reference server's, by meaning.

Each test edits a copy of the toolchain and the reference server (never the checkout) and compares every probe's
dependency fingerprint before and after: a comment or a docstring stales nothing, while a change to code stales
exactly the proofs whose probe module imports it, directly or through other modules.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_handbook import load_corpus
from mcp_handbook.proving import depends, evidence


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The toolchain and the reference server copied once, and the evidence module pointed at the copies."""
    skip = shutil.ignore_patterns("__pycache__")
    folder = tmp_path_factory.mktemp("tools")
    shutil.copytree(evidence.PACKAGE, folder / "mcp_handbook", ignore=skip)
    shutil.copytree(evidence.server_folder(), folder / "reference_server", ignore=skip)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(evidence, "PACKAGE", folder / "mcp_handbook")
        patch.setattr(evidence, "server_folder", lambda: folder / "reference_server")
        yield folder / "mcp_handbook"


@pytest.fixture
def copy(pristine: Path) -> Iterator[Path]:
    """The copied package; each file a test changes is put back afterwards (only those are read again)."""
    files = [*pristine.rglob("*.py"), *(pristine.parent / "reference_server").rglob("*.py")]
    texts = {path: path.read_bytes() for path in files}
    yield pristine
    for path, data in texts.items():
        if path.read_bytes() != data:
            path.write_bytes(data)


@pytest.fixture(scope="module")
def probe_files(project_root: Path) -> dict[str, list[str]]:
    """Each probe file that proves a block, with the probes it defines (every one of them proves a block)."""
    corpus = load_corpus(project_root)
    files: dict[str, list[str]] = {}
    for name in sorted({rule.probe for rule, _ in evidence.provable_snippets(corpus)}):
        files.setdefault(evidence.probe_file(name), []).append(name)
    return files


def _fingerprints(files: dict[str, list[str]]) -> dict[str, str]:
    return {source: evidence.dependency_fingerprint(source) for source in files}


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path}: {old!r} not found (the test needs updating)"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _importers(files: dict[str, list[str]], module: str) -> set[str]:
    """The probe files whose proofs run ``module`` (relative to the package), from the imports alone."""
    return {source for source in files if evidence.PACKAGE / module in evidence.depends_on(source)}


def test_a_comment_or_docstring_in_a_shared_probe_module_stales_no_proof(copy: Path, probe_files) -> None:
    before = _fingerprints(probe_files)
    support = copy / "probes" / "support.py"
    text = support.read_text(encoding="utf-8")
    body = text.index("\nfrom __future__")
    support.write_text(text[:body] + "\n# a comment a maintainer added\n" + text[body:].replace('"""', '"""Edited. ', 1)
                       .replace("\n\n\n", "\n\n\n# and another\n\n", 1), encoding="utf-8")
    assert depends.reading(support, copy.parent).meaning  # the file still reads
    assert _fingerprints(probe_files) == before


def test_a_generic_reasons_text_stales_the_proofs_that_import_it(copy: Path, probe_files) -> None:
    before = _fingerprints(probe_files)
    importers = _importers(probe_files, "reasons.py")
    assert importers, "no probe reaches reasons.py: the closure lost the support module"
    _edit(copy / "reasons.py", '"the server did not answer in time"', '"the server did not answer within the wait"')
    after = _fingerprints(probe_files)
    assert {s for s in probe_files if after[s] != before[s]} == importers


def test_a_probes_own_reason_stales_its_proofs_alone(copy: Path, probe_files) -> None:
    before = _fingerprints(probe_files)
    source = "probes/errors/echo_request_ids.py"
    assert probe_files[source] == ["echo_request_ids"]
    _edit(copy / source, '"an answer carries an id no request used"', '"an answer carries an id nobody sent"')
    after = _fingerprints(probe_files)
    assert [s for s in probe_files if after[s] != before[s]] == [source]


def test_a_gate_helper_stales_exactly_the_probes_that_import_it(copy: Path, probe_files) -> None:
    helper = "probes/security/_common.py"
    importers = _importers(probe_files, helper)
    assert importers and len(importers) < len(probe_files)
    before = _fingerprints(probe_files)
    with (copy / helper).open("a", encoding="utf-8") as f:
        f.write("\nEDITED = 1\n")
    after = _fingerprints(probe_files)
    assert {s for s in probe_files if after[s] != before[s]} == importers


def test_a_reference_server_change_stales_every_proof_and_its_comment_none(copy: Path, probe_files) -> None:
    before = _fingerprints(probe_files)
    tools = copy.parent / "reference_server" / "tool_defs.py"
    _edit(tools, "\nfrom __future__", "\n# a comment\nfrom __future__")
    assert _fingerprints(probe_files) == before
    text = tools.read_text(encoding="utf-8")
    start = text.index('"description": "') + len('"description": "')
    tools.write_text(text[:start] + "Edited. " + text[start:], encoding="utf-8")
    after = _fingerprints(probe_files)
    assert all(after[s] != before[s] for s in probe_files)


def test_the_closure_follows_lazy_imports_and_skips_type_checking_ones(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "def load():\n    from . import heavy\n",
        "heavy.py": "",
        "start.py": "from typing import TYPE_CHECKING\nfrom .sub import leaf\nif TYPE_CHECKING:\n    from . import typed\n"
                    "def later():\n    from .lazy import thing\n",
        "sub/__init__.py": "", "sub/leaf.py": "from .. import shared\n", "shared.py": "", "lazy.py": "thing = 1\n",
        "typed.py": "",
    }
    for name, text in files.items():
        (package / name).write_text(text, encoding="utf-8")
    found = {p.relative_to(package).as_posix() for p in depends.closure([package / "start.py"], package)}
    # the package's __init__ is passed through (its function's import of heavy never runs on the way)
    assert found == {"__init__.py", "start.py", "sub/__init__.py", "sub/leaf.py", "shared.py", "lazy.py"}
