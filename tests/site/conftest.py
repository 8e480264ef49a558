"""The built site, served on 127.0.0.1, and a real browser (Debian's Chromium driven by Playwright).

The site is built once per session into a temporary folder; the server is a
thread in this process, stopped at the end; each browser test gets a fresh
context that records console errors and any request that would leave
127.0.0.1 (this machine has no route out, so such a request fails; the
record is what the tests assert on).
"""

from __future__ import annotations

import functools
import http.server
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from mcp_handbook import load_corpus
from mcp_handbook.cli import build_site
from mcp_handbook.model import Corpus


def _root_conftest() -> Any:
    """tests/conftest.py, for ``require_tool``: test folders are not packages, so import it by path."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("hb_root_conftest", Path(__file__).resolve().parents[1] / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


require_tool = _root_conftest().require_tool

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
]
LOCAL_SCHEMES = ("blob", "data", "about")


@pytest.fixture(scope="session")
def corpus(project_root: Path) -> Corpus:
    return load_corpus(project_root)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory, project_root: Path) -> Path:
    """The real handbook, built strictly once for the whole session."""
    site = tmp_path_factory.mktemp("built") / "site"
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    build_site(project_root, site)
    return site


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    """The built site served by a thread on 127.0.0.1 (port chosen by the OS); shut down after the session."""
    handler = functools.partial(_QuietHandler, directory=str(built_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="hb-site-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    require_tool(CHROMIUM, "the browser tests drive Debian's Chromium")
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@dataclass
class Visit:
    """A browser context plus what it saw: console errors, page errors, requests that were not local."""

    context: Any
    page: Any
    base: str
    errors: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)

    def open(self, path: str) -> Any:
        self.page.goto(self.base + path)
        return self.page

    def assert_clean(self) -> None:
        assert not self.errors, "console errors:\n" + "\n".join(self.errors)
        assert not self.foreign, "requests leaving 127.0.0.1:\n" + "\n".join(self.foreign)


def _watch(context: Any, base: str) -> Visit:
    page = context.new_page()
    visit = Visit(context, page, base)
    host = urlsplit(base).netloc

    def seen(request: Any) -> None:
        parts = urlsplit(request.url)
        if parts.scheme not in LOCAL_SCHEMES and parts.netloc != host:
            visit.foreign.append(request.url)

    context.on("request", seen)  # every request of every page and worker in the context
    page.on("console", lambda m: visit.errors.append(f"{page.url}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: visit.errors.append(f"{page.url}: {e}"))
    return visit


@pytest.fixture
def new_visit(browser: Any, site_url: str) -> Iterator[Any]:
    """A factory of fresh browser contexts (no shared localStorage); all closed after the test."""
    contexts: list[Any] = []

    def make() -> Visit:
        context = browser.new_context(accept_downloads=True, viewport={"width": 1400, "height": 1000})
        contexts.append(context)
        return _watch(context, site_url)

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def visit(new_visit: Any) -> Visit:
    return new_visit()


@pytest.fixture(scope="session")
def screenshot_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: $HB_SCREENSHOTS when set (to look at them), else a temporary folder."""
    chosen = os.environ.get("HB_SCREENSHOTS")
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder
