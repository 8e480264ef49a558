"""The OWASP MCP Top 10 as this handbook maps its rules to it: one table of the ten categories.

A rule names the weaknesses it prevents in ``threats:``: CWE ids and the ids of this list. The list is
in beta and its order may change, so the ids are read against the version and date pinned here. Each
category says what it is, in the handbook's own words, and what a server author cannot address: the
part that belongs to the host or client, the registry, the user or the operator. The site's threats
page, the exports and ``check`` all read this table; none keeps its own list.

Nothing here imports the model (``fields`` imports this module), so any reader may use it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import Rule

LIST_NAME = "OWASP MCP Top 10"
LIST_STATUS = "beta"
LIST_READ_ON = "2026-12-03"
"""The day the list was read for this mapping; a later reading may renumber or rename it (MCP06 was renamed on
2026-01-12, from "Prompt Injection via Contextual Payloads" to "Intent Flow Subversion")."""
OWASP_MCP_TOP10 = f"{LIST_NAME} ({LIST_STATUS}, as read {LIST_READ_ON})"
"""The list the ``MCPnn`` ids refer to, as every page and export names it."""
CWE_ID = re.compile(r"^CWE-([1-9]\d{0,4})$")


@dataclass(frozen=True, slots=True)
class ThreatCategory:
    """One category of the OWASP MCP Top 10."""

    id: str
    """``MCP01`` to ``MCP10``."""
    name: str
    """The category's name in the list."""
    description: str
    """What goes wrong, in one plain sentence (the handbook's words, not the list's)."""
    beyond_server: str
    """What a server author cannot address: the part the host or client, the registry, the user or the operator owns."""

    @property
    def anchor(self) -> str:
        """The category's anchor on the threats page (``mcp05``)."""
        return self.id.lower()


CATEGORIES: tuple[ThreatCategory, ...] = (
    ThreatCategory(
        "MCP01", "Token mismanagement and secret exposure",
        "Keys and tokens leak through tool results, logs, error messages or the model's context, or are kept "
        "longer and shared wider than the work needs.",
        "Where the host keeps the user's tokens and launch settings, what the client and its logs do with what the "
        "server returned, and how the operator stores and rotates secrets.",
    ),
    ThreatCategory(
        "MCP02", "Privilege escalation via scope creep",
        "A server holds more permission than its tools need, through broad scopes, an all-powerful service account "
        "or tools added over time, so one misuse reaches far.",
        "Which scopes the authorization server grants and the user consents to, and what the operator lets the "
        "server's account and host do.",
    ),
    ThreatCategory(
        "MCP03", "Tool poisoning",
        "Tool names, descriptions, schemas or results carry instructions aimed at the model, change after the "
        "user approved them, or steer how the model uses another server's tools (tool shadowing), so the model "
        "works for someone other than the user.",
        "A malicious server's author follows no rule, so only the host (showing definitions, pinning them, asking "
        "again when they change) and the registry (screening what it lists) can stop it.",
    ),
    ThreatCategory(
        "MCP04", "Software supply chain attacks and dependency tampering",
        "The server, or a package it depends on, is replaced, typosquatted or altered somewhere between its author "
        "and the machine that runs it.",
        "How a registry vets packages and guards names, which exact version the user installs and pins, and when "
        "the operator updates.",
    ),
    ThreatCategory(
        "MCP05", "Command injection and execution",
        "Tool arguments reach a shell, an interpreter, a query or the file system unchecked, so a caller runs code "
        "or touches files the tool never meant to allow.",
        "The sandbox around the server's process (a container, a separate user, a network policy), which the host "
        "or operator sets up to limit the damage when a check fails.",
    ),
    ThreatCategory(
        "MCP06", "Intent flow subversion",
        "Content the model retrieves through a server (web pages, files, mail, tickets, tool results) holds "
        "instructions that turn the agent from the user's goal to an attacker's, often while it still seems to do "
        "what the user asked.",
        "How far the model and the host trust tool output, whether the host checks each planned call against the "
        "user's goal and asks the user before acting; a server can mark and bound such content and limit its own "
        "reach, not stop a model from reading it.",
    ),
    ThreatCategory(
        "MCP07", "Insufficient authentication and authorization",
        "The server serves callers it cannot identify, takes a session id or a passed-through token as proof of "
        "identity, or does not check per user and per object what a caller may touch.",
        "How the authorization server issues tokens, how the client runs the OAuth flow, and who can reach the "
        "server on the network, which the operator decides.",
    ),
    ThreatCategory(
        "MCP08", "Lack of audit and telemetry",
        "Nothing records which tool was called, by whom, with what and to what effect, so misuse goes unseen and "
        "an incident cannot be traced.",
        "Collecting, keeping and watching the records is the operator's job; the host's record of what the model "
        "asked for is the client's.",
    ),
    ThreatCategory(
        "MCP09", "Shadow MCP servers",
        "Servers run inside an organisation without anyone knowing or approving them, often with default settings, "
        "broad access and no updates.",
        "Almost all of it: inventory, approval and network control belong to the organisation's operators and to "
        "the hosts its users run. A server author can only make a server easy to identify and safe by default.",
    ),
    ThreatCategory(
        "MCP10", "Context injection and over-sharing",
        "A server puts more into the model's context than the task needs (other users' data, secrets, whole "
        "records), or lets one session see another's state, so data reaches people and tools it should not.",
        "What the host keeps in its context and passes on to other servers, and what the user chooses to share.",
    ),
)
"""The ten categories in the list's order."""
CATEGORY_BY_ID: dict[str, ThreatCategory] = {c.id: c for c in CATEGORIES}


def category(threat: str) -> ThreatCategory | None:
    """The category an ``MCPnn`` id names, or None (a CWE id, or an id the pinned list does not have)."""
    return CATEGORY_BY_ID.get(threat)


def is_category_id(threat: str) -> bool:
    """Whether ``threat`` is written as an OWASP MCP Top 10 id (``MCP`` and two digits), known or not."""
    return bool(re.fullmatch(r"MCP\d\d", threat))


def cwe_number(threat: str) -> int | None:
    """22 for ``CWE-22``; None for anything else."""
    match = CWE_ID.match(threat)
    return int(match.group(1)) if match else None


def cwe_address(threat: str) -> str:
    """Where MITRE describes a CWE, without the scheme (shown as text: the site loads and links nothing outside)."""
    number = cwe_number(threat)
    return f"cwe.mitre.org/data/definitions/{number}.html" if number is not None else ""


def cwe_anchor(threat: str) -> str:
    """The CWE's anchor in the threats page's CWE index (``cwe-22``)."""
    return threat.lower()


def threat_label(threat: str) -> str:
    """``MCP05 Command injection and execution`` for a category id, the id itself for a CWE."""
    found = category(threat)
    return f"{found.id} {found.name}" if found else threat


def rules_by_category(rules: Iterable[Rule]) -> dict[str, list[Rule]]:
    """Every category id (in the list's order) with the rules that name it, in the order given."""
    found: dict[str, list[Rule]] = {c.id: [] for c in CATEGORIES}
    for rule in rules:
        for threat in dict.fromkeys(rule.threats):
            if threat in found:
                found[threat].append(rule)
    return found


def rules_by_cwe(rules: Iterable[Rule]) -> dict[str, list[Rule]]:
    """Every CWE id a rule names (by number) with those rules, in the order given."""
    found: dict[str, list[Rule]] = {}
    for rule in rules:
        for threat in dict.fromkeys(rule.threats):
            if cwe_number(threat) is not None:
                found.setdefault(threat, []).append(rule)
    return dict(sorted(found.items(), key=lambda item: cwe_number(item[0]) or 0))


def unaddressed(rules: Sequence[Rule]) -> list[ThreatCategory]:
    """The categories no rule names: information for the reader, never an error."""
    by_category = rules_by_category(rules)
    return [c for c in CATEGORIES if not by_category[c.id]]


def ids_hint() -> str:
    """The known ids with their names, for a diagnostic's hint."""
    return "; ".join(f"{c.id} {c.name}" for c in CATEGORIES)
