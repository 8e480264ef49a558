"""``mcp-handbook publish``: two doctrine versions deployed to a gh-pages branch, served and browsed.

A copy of this checkout (its tracked and new files) becomes a git repository whose remote is a local bare
repository; today's version is published, then a test bump of the version, each with ``--push``. The
branch the remote holds is then served as GitHub Pages would serve it (a plain HTTP server on 127.0.0.1,
started and stopped by its PID) and both versions are browsed in Chromium with Material's version selector.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from axe_helpers import axe_source, blocking_violations

from mcp_handbook.publish import is_newest

BUMP = "9.9.9-test"
GIT_ENV = {"GIT_AUTHOR_NAME": "Handbook Test", "GIT_AUTHOR_EMAIL": "test@handbook.invalid",
           "GIT_COMMITTER_NAME": "Handbook Test", "GIT_COMMITTER_EMAIL": "test@handbook.invalid"}


def test_latest_moves_only_to_a_version_at_least_every_deployed_one() -> None:
    assert is_newest("1.3.0", [])
    assert is_newest("1.3.0", ["1.2.0", "1.3.0"])
    assert is_newest("1.10.0", ["1.9.0"])  # by version, not by text
    assert not is_newest("1.3.0", ["9.9.9-test", "1.2.0"])  # an older version redeployed keeps latest where it is


def _git(*args: str, cwd: Path) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, **GIT_ENV}, check=False)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


def _copy_checkout(project_root: Path, into: Path) -> None:
    """The project's tracked files and files not yet added (as they are in the working tree), not ignored ones."""
    if not (project_root / ".git").exists():
        pytest.skip("the project is not a git checkout")
    listed = _git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=project_root)
    for name in filter(None, listed.split("\0")):
        source = project_root / name
        if source.is_file() and not name.startswith(".tools"):
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)


def _publish(project: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "mcp_handbook.cli", "publish", "--push", "--remote", "origin"], cwd=project,
                          capture_output=True, text=True, timeout=600, env={**os.environ, **GIT_ENV, "NO_MKDOCS_2_WARNING": "1"}, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory, project_root: Path) -> tuple[Path, str]:
    """A bare remote whose gh-pages holds today's version and the test bump, and today's version."""
    tmp = tmp_path_factory.mktemp("publish")
    remote, project = tmp / "remote.git", tmp / "handbook"
    _git("init", "--quiet", "--bare", str(remote), cwd=tmp)
    project.mkdir()
    _copy_checkout(project_root, project)
    _git("init", "--quiet", "-b", "main", cwd=project)
    _git("add", "-A", cwd=project)
    _git("commit", "--quiet", "-m", "the handbook as it is", cwd=project)
    _git("remote", "add", "origin", str(remote), cwd=project)
    handbook_yml = project / "content" / "handbook.yml"
    today = re.search(r'^version: "([^"]+)"', handbook_yml.read_text(encoding="utf-8"), re.M)[1]
    assert f"doctrine {today} deployed" in _publish(project)
    handbook_yml.write_text(handbook_yml.read_text(encoding="utf-8").replace(f'version: "{today}"', f'version: "{BUMP}"'), encoding="utf-8")
    _git("commit", "--quiet", "-am", "a test bump of the doctrine version", cwd=project)
    assert f"doctrine {BUMP} deployed" in _publish(project)
    return remote, today


slow = pytest.mark.slow
"""Every test here but the first builds, publishes or browses."""


@slow
def test_the_branch_holds_both_versions_their_list_and_latest_on_the_newest(published: tuple[Path, str]) -> None:
    remote, today = published
    top = {line.split("\t")[1]: line.split()[0] for line in _git("ls-tree", "gh-pages", cwd=remote).splitlines()}
    assert {today, BUMP, "latest", "versions.json", "index.html"} <= set(top)
    assert top["latest"] == "120000" and _git("cat-file", "-p", "gh-pages:latest", cwd=remote) == BUMP  # a link to the newest
    versions = json.loads(_git("show", "gh-pages:versions.json", cwd=remote))
    assert [(v["version"], v["aliases"]) for v in versions] == [(BUMP, ["latest"]), (today, [])]
    assert "latest/" in _git("show", "gh-pages:index.html", cwd=remote)  # the root sends readers to latest
    for version in (today, BUMP):  # each version's own site, with its downloads and its own published address
        assert _git("ls-tree", "--name-only", f"gh-pages:{version}/downloads", cwd=remote).split(), version
        home = _git("show", f"gh-pages:{version}/index.html", cwd=remote)
        assert f'<link rel="canonical" href="https://mcp-handbook.github.io/handbook/{version}/"' in home


@pytest.fixture(scope="module")
def served(published: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The remote's gh-pages tree (its ``latest`` link kept) served by ``python -m http.server`` on 127.0.0.1."""
    remote, _ = published
    tree = tmp_path_factory.mktemp("gh-pages")
    archive = subprocess.run(["git", "archive", "--format=tar", "gh-pages"], cwd=remote, capture_output=True, timeout=120, check=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(tree, filter="tar")
    assert (tree / "latest").is_symlink()
    server = subprocess.Popen([sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", str(tree)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        first = server.stdout.readline()  # "Serving HTTP on 127.0.0.1 port N (http://127.0.0.1:N/) ..."
        port = re.search(r"port (\d+)", first)
        assert port, f"http.server said {first!r}"
        yield f"http://127.0.0.1:{port[1]}/"
    finally:
        server.terminate()  # by its own PID
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


def _switch_version(page: Any, to: str) -> None:
    """Open Material's version selector (it unfolds while the pointer is over it) and pick ``to``."""
    page.locator(".md-version").hover()
    link = page.locator(".md-version__list a.md-version__link", has_text=re.compile(rf"^\s*{re.escape(to)}\s*$"))
    link.wait_for(state="visible", timeout=10_000)
    with page.expect_navigation(timeout=20_000):
        link.click()
    page.wait_for_load_state("load")


@slow
def test_both_versions_are_browsed_with_the_version_selector(
    served: str, published: tuple[Path, str], browser: Any, screenshot_dir: Path
) -> None:
    _, today = published
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("console", lambda m: errors.append(f"{page.url}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
        page.goto(served)  # the root sends readers to the newest
        page.wait_for_url(re.compile(r"/latest/$"), timeout=10_000)
        current = page.locator(".md-version__current")
        current.wait_for(state="visible", timeout=10_000)  # the selector fills itself from ../versions.json
        assert current.inner_text().strip() == BUMP
        page.goto(served + f"{BUMP}/overview/")
        assert page.locator("article h1").count() == 1
        _switch_version(page, today)
        assert urlsplit(page.url).path.startswith(f"/{today}/"), page.url
        assert page.locator("article h1").count() == 1 and page.locator(".md-version__current").inner_text().strip() == today
        page.screenshot(path=str(screenshot_dir / "publish-version-selector.png"))
        _switch_version(page, BUMP)
        assert urlsplit(page.url).path.startswith(f"/{BUMP}/"), page.url
        assert page.locator("article h1").count() == 1 and page.locator(".md-version__current").inner_text().strip() == BUMP
        page.locator(".md-version").hover()
        page.screenshot(path=str(screenshot_dir / "publish-version-selector-open.png"))
        problems = blocking_violations(page, axe_source())
        assert not problems, "the published page, version selector open:\n" + "\n".join(problems)
    finally:
        context.close()
    assert not errors, "console errors:\n" + "\n".join(errors)
