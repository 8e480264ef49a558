"""The pytest plugin's former import path, for an install made before it moved to :mod:`.proving.pytest_plugin`.

Such an install's ``pytest11`` entry point names this module until ``pip install -e .`` is run again; it gets the
plugin itself (the same module object, so it is registered once, whichever name loads it).
"""

import sys

from .proving import pytest_plugin

sys.modules[__name__] = pytest_plugin
