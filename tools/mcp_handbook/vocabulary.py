"""What the toolchain proves with, read once from the probes and the reference server, as plain data.

``lint`` takes this as a value, so parsing and linting the doctrine for the site or an export never
imports the probes or the server; ``check``, the pytest plugin, ``evidence`` and ``audit`` pass it.
"""

from __future__ import annotations

import functools

from .lint import Vocabulary
from .seams import TOOL_SEAM


@functools.cache
def toolchain_vocabulary() -> Vocabulary:
    from reference_server.seams import SEAMS

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
    )
