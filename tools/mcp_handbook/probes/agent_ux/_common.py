"""What the agent-ux probes that call tools share (the schema helpers they use live in
``tool_definitions/_common.py``, with the probes that judge schemas)."""

from __future__ import annotations

from ..support import PATH_PARAMS as _SHARED_PATH_PARAMS

PATH_PARAMS = (*_SHARED_PATH_PARAMS, "folder")
"""Parameter names that take a path: the shared vocabulary plus ``folder``, which listing tools use."""
