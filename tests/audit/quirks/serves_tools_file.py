"""Lists exactly the tools in the JSON file named by ``--tools`` (an array of tool definitions), so a test can audit
a server serving a given tool definition and compare the verdicts with the static checks of that definition."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "hostile"))
import tiny

tiny.TOOLS = json.loads(Path(tiny.option("--tools") or "tools.json").read_text())
tiny.serve()
