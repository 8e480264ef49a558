"""What the audited server can do, read from its tool list: the first thing a person deciding to run it needs.

A server whose purpose is running shell commands, code or SQL passes most rules and exits 0; that is no reason
to run it unguarded. Each power is a plain function over one tool (its name, description, schema and
annotations) that says why the tool has it, or None; the recognisers are the probes' own (``code_params`` of
SEC-010, ``url_param`` of the fetch probes, ``PATH_PARAMS``), so the summary and the probes agree on what a
parameter is. What is read is the server's own description of itself, not observed behaviour.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..probes.schemas import code_params
from ..probes.security.ssrf import url_param
from ..probes.support import PATH_PARAMS, PROGRAM_PARAMS, properties, string_params

COMMAND_WORDS = re.compile(r"\b(?:shell|bash|terminal|(?:run|execute|exec)s?\s+(?:a\s+|the\s+)?(?:shell\s+)?"
                           r"(?:commands?|process(?:es)?|programs?))\b", re.I)
"""What a tool's name or description says when it runs commands."""
ENVIRONMENT_NAME = re.compile(
    r"(?:^|[-_.\s])(?:env|environ|environment[-_\s]?var(?:iable)?s?|env[-_\s]?vars?)(?:$|[-_.\s])", re.I)
"""A tool name that says it handles the process environment (``get-env``, ``print_environ``, ``list_env_vars``); not
``list_environments`` (deployment environments)."""
ENVIRONMENT_WORDS = re.compile(r"\benvironment\s+variables?\b|\benv\s+vars?\b|\bprocess\.env\b|\bos\.environ\b", re.I)
"""What a tool's description says when it reads or returns the process environment, where a server's secrets live."""
DATA_URI_ONLY = re.compile(r"\bdata:?\s*URIs?\b", re.I)
URL_WORDS = re.compile(r"\b(?:URL|https?|web|fetch|download)", re.I)
WRITE_WORDS = re.compile(r"^(?:write|create|delete|remove|update|edit|move|rename|append|insert|put|set|save|upload|send)(?:_|$)", re.I)
"""Name prefixes of tools that change something (``write_file``, ``delete_entity``)."""


def _said(tool: dict[str, Any]) -> str:
    return " ".join(str(tool.get(k) or "") for k in ("name", "title", "description")).replace("_", " ")


def _runs_commands(tool: dict[str, Any]) -> str | None:
    params = [p for p in string_params(tool, PROGRAM_PARAMS)] + [p for p in code_params(tool) if p.lower() in ("command", "cmd")]
    if params:
        return f"parameter {params[0]!r}"
    if COMMAND_WORDS.search(_said(tool)):
        return "its description"
    return None


def _evaluates_code(tool: dict[str, Any]) -> str | None:
    params = [p for p in code_params(tool) if p.lower() not in ("command", "cmd")]
    return f"parameter {params[0]!r}" if params else None


def _reads_paths(tool: dict[str, Any]) -> str | None:
    params = string_params(tool, PATH_PARAMS)
    return f"parameter {params[0]!r}" if params else None


def _fetches_urls(tool: dict[str, Any]) -> str | None:
    """A URL parameter by name, or by ``format: uri`` unless its description takes only inline ``data:`` URIs
    (an image passed as a data URI is not fetched from anywhere)."""
    param = url_param(tool)
    if not param:
        return None
    said = str(properties(tool).get(param, {}).get("description") or "")
    if DATA_URI_ONLY.search(said) and not URL_WORDS.search(said.replace("URI", "")):
        return None
    return f"parameter {param!r}"


def _reads_environment(tool: dict[str, Any]) -> str | None:
    """A tool that shows the process environment hands the model every secret the server was started with (the
    everything server's ``get-env``): the most dangerous read-only tool there is."""
    if ENVIRONMENT_NAME.search(str(tool.get("name") or "")):
        return "its name"
    if ENVIRONMENT_WORDS.search(" ".join(str(tool.get(k) or "") for k in ("title", "description"))):
        return "its description"
    return None


def _writes(tool: dict[str, Any]) -> str | None:
    hints = tool.get("annotations")
    hints = hints if isinstance(hints, dict) else {}
    if hints.get("destructiveHint") is True and hints.get("readOnlyHint") is not True:
        return "annotated destructive"
    if hints.get("readOnlyHint") is False:
        return "annotated not read-only"
    if WRITE_WORDS.match(str(tool.get("name") or "")):
        return "its name"
    return None


POWERS: tuple[tuple[str, Callable[[dict[str, Any]], str | None]], ...] = (
    ("runs commands", _runs_commands),
    ("evaluates code or SQL", _evaluates_code),
    ("reads the process environment (where its secrets are)", _reads_environment),
    ("reads or writes the file-system paths it is given", _reads_paths),
    ("fetches URLs it is given", _fetches_urls),
    ("changes state (writes, deletes, sends)", _writes),
)
"""Powers in the order they are named, most dangerous first."""


def powers(tools: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    """Each power some tool has, with the tools that have it (``name (why)``), in :data:`POWERS` order."""
    found = []
    for label, check in POWERS:
        having = [f"{tool.get('name')} ({why})" for tool in tools if isinstance(tool, dict) and (why := check(tool))]
        if having:
            found.append((label, having))
    return found


def powers_line(tools: list[dict[str, Any]], listed: bool) -> str:
    """One line for the top of a summary: what the server can do, by the tools' own account."""
    if not listed:
        return "can do: unknown (tools/list was not answered)"
    found = powers(tools)
    if not found:
        return f"can do: nothing dangerous its {len(tools)} tool(s) declare (no command, code, environment, path, URL or write)"
    parts = [f"{label}: {', '.join(having[:3])}{' …' if len(having) > 3 else ''}" for label, having in found]
    return "can do (by its tools' names, descriptions, schemas and annotations): " + "; ".join(parts)
