"""What every toolchain reader may know of the reference server without loading it or any probe: the tool seam.
How the server is started to prove a rule is :mod:`.proving.server_options`, which reads the probes."""

from __future__ import annotations

TOOL_SEAM = "tool"
"""The seam that adds a tool: the snippet defines ``TOOL`` and ``handle``."""
