"""Every ``package-data`` pattern of pyproject.toml matches a file: a pattern that matches nothing (as ``data/*`` of
a folder that never existed did) says the wheel carries something it does not."""

from __future__ import annotations

import tomllib

from handbook_testing import ROOT


def test_every_package_data_pattern_matches_a_file() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    where = ROOT / config["packages"]["find"]["where"][0]
    empty = [f"{package}: {pattern}" for package, patterns in config["package-data"].items() for pattern in patterns
             if not any(p.is_file() for p in (where / package.replace(".", "/")).glob(pattern))]
    assert empty == []
