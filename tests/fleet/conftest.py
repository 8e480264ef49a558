"""The browser the site's tests drive (Debian's Chromium under Playwright), shared with tests/site: test folders
are not packages, so its conftest is imported by path and its page watcher and the axe-core check are reused."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from handbook_testing import require_tool


def _site_module(name: str, file: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parents[1] / "site" / file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


_site = _site_module("hb_site_conftest", "conftest.py")
_axe = _site_module("hb_site_axe_helpers", "axe_helpers.py")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """The site's browser, but closed with this module: a sync Playwright left running in the main thread until
    the session ends makes every later asyncio test of a serial run fail ("another loop is running"), and the
    site's own session browser refuse to start."""
    require_tool(_site.CHROMIUM, "the browser tests drive Debian's Chromium")
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=_site.CHROMIUM, headless=True, args=_site.CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def axe_violations() -> Callable[[Any], list[str]]:
    """``axe_violations(page)``: axe-core's serious and critical WCAG A/AA violations (skips when axe is missing)."""
    source = _axe.axe_source()
    return lambda page: _axe.blocking_violations(page, source)


@pytest.fixture
def watch() -> Callable[[Any, str], Any]:
    """``watch(context, base)``: a page of ``context`` whose console errors and requests leaving ``base`` are kept."""
    return _site._watch
