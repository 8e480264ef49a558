"""The probe registry: every check that proves a rule over a real pipe.

A probe is a plain function ``(Target) -> Finding``. Each module below keeps a
``PROBES`` tuple; this table is the union. The verifier runs them against the
reference server with a snippet mounted; the auditor runs them against any
stdio server.
"""

from __future__ import annotations

from . import errors, framing, lifecycle, paths, security, tool_surface
from .base import Finding, Probe, Target

MODULES = (framing, paths, lifecycle, tool_surface, errors, security)
PROBES: dict[str, Probe] = {p.name: p for module in MODULES for p in module.PROBES}

__all__ = ["PROBES", "Finding", "Probe", "Target"]
