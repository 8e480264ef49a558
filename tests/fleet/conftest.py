"""The browser the site's tests drive (Debian's Chromium under Playwright), shared with tests/site: test folders
are not packages, so its conftest is imported by path and only its session browser and page watcher are reused."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def _site_conftest() -> Any:
    spec = importlib.util.spec_from_file_location("hb_site_conftest", Path(__file__).resolve().parents[1] / "site" / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


_site = _site_conftest()
browser = _site.browser


@pytest.fixture
def watch() -> Callable[[Any, str], Any]:
    """``watch(context, base)``: a page of ``context`` whose console errors and requests leaving ``base`` are kept."""
    return _site._watch
