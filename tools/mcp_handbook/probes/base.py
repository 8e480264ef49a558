"""Temporary: what the probes in ``legacy/`` import, until each moves into a gate package.

New probes import from ``support`` and register with ``registry.probe``; this module only keeps the
old ``failed(summary, *evidence)`` signature (no reason) working for the modules not yet moved.
"""

from __future__ import annotations

from .registry import Probe, ProbeFn
from .support import (
    Finding, Target, WireTimeout, call_tool, compact, list_tools, not_applicable, passed, refused, result_text,
    string_params,
)


def failed(summary: str, *evidence: str) -> Finding:
    return Finding("FAIL", summary, tuple(evidence))


__all__ = [
    "Finding", "Target", "Probe", "ProbeFn", "passed", "failed", "not_applicable", "compact",
    "list_tools", "call_tool", "result_text", "refused", "string_params", "WireTimeout",
]
