"""Hand-made fleet results for the merge and scorecard tests: a few rules whose counts are easy to check by eye."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp_handbook.fleet.entry import Entry
from mcp_handbook.fleet.result import FORMAT, FORMAT_VERSION, write

RULES = (("TRN-001", "transport", "high"), ("SEC-001", "security", "high"), ("SEC-002", "security", "medium"),
         ("ERR-001", "errors", "low"), ("TRN-002", "transport", "medium"))
"""Real rule ids (so the corpus links them), in the order every hand-made result lists them."""


def verdict(rule_id: str, status: str, *, na: str = "", inherited: bool = False) -> dict[str, Any]:
    gate, severity = next((g, s) for r, g, s in RULES if r == rule_id)
    return {"id": rule_id, "gate": gate, "severity": severity, "basis": "spec-must", "status": status, "na": na,
            "inherited": inherited, "summary": f"{rule_id}: {status}"}


def result(name: str, version: str = "1.0.0", *, state: str = "audited", why: str = "", rules: list[dict] | None = None,
           how: str = "npm", doctrine: str = "1.5.0", tool: str = "1.5.0") -> dict[str, Any]:
    """One result in result.py's format (as ``from_audit`` / ``not_run`` write it), for a made-up server."""
    entry = Entry(name=name, version=version, how=how, package=f"{how}:{name}@{version}", source="servers.json")
    return {
        "format": FORMAT, "format_version": FORMAT_VERSION, "key": entry.key, "entry": entry.to_json(),
        "doctrine_version": doctrine, "tool_version": tool, "commit": "abc", "sandbox": "none", "state": state,
        "why": why, "server_name": name if state == "audited" else "", "server_version": version, "sdk": "",
        "exit_code": 0 if state == "audited" else None, "seconds": 3.5, "killed": [], "rules": rules or [],
    }


ALL_KINDS = [
    verdict("TRN-001", "FAIL"),                          # HIGH, the server's own
    verdict("SEC-001", "FAIL", inherited=True),          # HIGH, the SDK's default
    verdict("SEC-002", "N/A", na="not checked"),
    verdict("ERR-001", "N/A", na="does not apply"),
    verdict("TRN-002", "PASS"),
]
"""One verdict of every kind: letters F I U N P."""


def fleet(folder: Path) -> list[Path]:
    """Three servers in two shard folders: one with every kind of verdict, one all PASS, one not audited."""
    return [
        write(folder / "shard-0", result("io.example/every-kind", rules=ALL_KINDS)),
        write(folder / "shard-1", result("io.example/clean", "2.0.0", rules=[verdict(r, "PASS") for r, _, _ in RULES])),
        write(folder / "shard-1", result("io.example/needs-uvx", how="pypi", state="not audited",
                                         why="needs uvx or pipx to run a PyPI package")),
    ]
