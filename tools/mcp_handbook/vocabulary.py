"""What the toolchain proves with, read once from the probes and the reference server, as plain data.

``lint`` takes this as a value, so parsing and linting the doctrine for the site or an export never
imports the probes or the server; ``check``, the pytest plugin, ``evidence`` and ``audit`` pass it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from .lint import Vocabulary
from .seams import TOOL_SEAM

if TYPE_CHECKING:
    from .probes.registry import Probe


@functools.cache
def toolchain_vocabulary() -> Vocabulary:
    from reference_server.seams import SEAMS

    from . import probes
    from .probes import PROBES
    from .promises import PRELUDES, PROMISES, load_all
    from .promises.languages import LANGUAGE_CHECKS

    load_all()
    return Vocabulary(
        probes={name: frozenset(p.reasons) for name, p in PROBES.items()},
        seams=frozenset(SEAMS) | {TOOL_SEAM},
        promises=frozenset(PROMISES),
        preludes=frozenset(PRELUDES),
        languages=frozenset(LANGUAGE_CHECKS) | {"python"},
        modules=_probe_modules(PROBES, Path(probes.__file__).resolve().parent),
    )


def _probe_modules(registered: Mapping[str, Probe], package: Path) -> dict[str, str]:
    """Each probe's module relative to the ``probes`` package (``security/ssrf.py``); one registered from elsewhere
    (a test's) has no place in the naming scheme and is left out."""
    modules = {}
    for name, registered_probe in registered.items():
        path = Path(registered_probe.source_file).resolve()
        if path.is_relative_to(package):
            modules[name] = path.relative_to(package).as_posix()
    return modules
