"""The probe registry: every check that proves a rule over a real pipe.

A probe is a plain function ``(Target) -> Finding`` in a module of the gate package it serves
(``transport/``, ``agent_ux/``, ...: :func:`mcp_handbook.naming.gate_folder`), registered with
``@probe(name, title, reasons={...})`` under its rule's name (:mod:`mcp_handbook.naming`).
Importing this package imports every module below it, so a new probe module is found without
editing any list. ``support.py`` holds what probes share.
"""

from __future__ import annotations

import importlib
import pkgutil

from .registry import PROBES, Probe, probe
from .support import Finding, Target


def _import_all() -> None:
    for info in pkgutil.walk_packages(__path__, prefix=f"{__name__}."):
        importlib.import_module(info.name)


_import_all()

__all__ = ["PROBES", "Finding", "Probe", "Target", "probe"]
