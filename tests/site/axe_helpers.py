"""axe-core in a page: the serious and critical WCAG 2 A/AA violations a reader would meet.

axe-core is the npm package `.ci/install-tools` installs beside the other Node tools; HB_AXE_JS names another
copy of ``axe.min.js``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from handbook_testing import ROOT, require_tool

AXE_JS = Path(os.environ.get("HB_AXE_JS") or ROOT / ".tools" / "node" / "node_modules" / "axe-core" / "axe.min.js")
WCAG_A_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
BLOCKING = {"serious", "critical"}


def axe_source() -> str:
    return require_tool(AXE_JS, "the accessibility checks run axe-core in the browser").read_text(encoding="utf-8")


def blocking_violations(page: Any, source: str) -> list[str]:
    """axe's serious and critical WCAG A/AA violations on the page as it is now, one line per failing element."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=source)
    found = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})", WCAG_A_AA)
    return [
        f"{v['id']} ({v['impact']}): {node['target']} — {node['failureSummary'].splitlines()[-1].strip()}"
        for v in found["violations"] if v["impact"] in BLOCKING for node in v["nodes"]
    ]
