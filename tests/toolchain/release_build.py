"""Building the release once per test session, as the release workflow does, for the tests that install it.

``python -m build`` (an sdist, then the wheel from the sdist, each in an isolated build environment) runs in a
virtual environment of its own, on a copy of the files git tracks here (the working tree's versions, without
anything untracked and without ``.git``). Needs the package index (pip fetches ``build``, setuptools and the
tool's dependencies): skipped when it is unreachable on a developer machine, failed in CI.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import venv
from pathlib import Path

import pytest
from handbook_testing import ROOT


def run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)


def clean_env(tmp: Path) -> dict[str, str]:
    """This environment without what would let the checkout leak in (PYTHONPATH) or share caches."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(XDG_CACHE_HOME=str(tmp / "cache"), PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


def pip_install(python: Path, args: list[str], cwd: Path, env: dict[str, str]) -> None:
    done = run([str(python), "-m", "pip", "install", "-q", *args], cwd, env)
    if done.returncode != 0:
        index_needed(f"pip install {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")


def index_needed(message: str) -> None:
    message = f"{message[-3000:]}\n(the package index is needed)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def fresh_python(folder: Path) -> Path:
    """A new virtual environment that sees no other site-packages: only what is installed into it."""
    venv.create(folder, with_pip=True, clear=True)
    return folder / "bin" / "python"


def tracked_copy(dest: Path) -> Path:
    """The files git tracks, as they are in the working tree: what a clean clone with these edits holds."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60).stdout
    for name in names.decode("utf-8").split("\0"):
        if name and (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    return dest


def build_release(tmp: Path) -> dict[str, Path]:
    """The sdist and wheel ``python -m build`` makes from the tracked files."""
    env = clean_env(tmp)
    source = tracked_copy(tmp / "source")
    builder = fresh_python(tmp / "builder")
    pip_install(builder, ["build"], tmp, env)
    done = run([str(builder), "-m", "build", "-o", str(tmp / "dist"), str(source)], tmp, env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return built_dist(tmp / "dist")


def built_dist(folder: Path) -> dict[str, Path]:
    """The one wheel and the one sdist in ``folder``."""
    wheels, sdists = sorted(folder.glob("*.whl")), sorted(folder.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, f"{folder}: expected one wheel and one sdist, found {wheels + sdists}"
    return {"wheel": wheels[0].resolve(), "sdist": sdists[0].resolve()}
