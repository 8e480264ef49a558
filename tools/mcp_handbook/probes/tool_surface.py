"""Probes for the tool surface rules (being written; see base.py for the probe API)."""

from __future__ import annotations

from .base import Probe

PROBES: tuple[Probe, ...] = ()
