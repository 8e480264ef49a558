"""The seam table object itself, in a module with no imports.

Why separate: implementation modules need the table at call time (a seam may
call another seam through it) and ``seams.py`` needs them to fill it; holding
the dict here breaks the import cycle without a per-call import statement.
``reference_server.seams`` fills it on import and re-exports it as ``SEAMS``.
"""
from __future__ import annotations

SEAMS: dict = {}
