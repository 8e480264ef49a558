"""What several security probes share: masking the canary in evidence, what a tool call shows the model,
pipelined calls, finding a tool that runs a program (and one that makes a child print its environment), and
reading the environments of the children a server starts from outside (:mod:`._children`).

Evidence never shows the canary itself: :func:`mask` and :func:`show` replace it with ``<CANARY>``.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ._children import Child as Child, ChildWatch as ChildWatch  # re-exported for the child-process probes
from ._children import proc_available
from ..schemas import QUERY_LANGUAGE, code_params, schema_valid_arguments
from ..support import (
    ARGS_PARAMS, PATH_PARAMS, PROGRAM_PARAMS, SAMPLE_FILE, ProbeAbort, Target, WireSession, WireTimeout, call_tool, compact,
    failed, fill_arguments, init_git_repository, not_applicable, properties, refused, schema_type, show,
    string_params,
)

ENV_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")


def shown_text(response: dict[str, Any]) -> str:
    """What a tools/call response shows the model: text blocks, structured content, the error."""
    if "error" in response:
        return json.dumps(response["error"], ensure_ascii=False)
    result = response.get("result") or {}
    parts = [str(c.get("text", "")) for c in result.get("content") or [] if isinstance(c, dict)]
    if "structuredContent" in result:
        parts.append(json.dumps(result["structuredContent"], ensure_ascii=False))
    return "\n".join(parts)


_PATH_LIKE = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.-]*:)?/[^\s'\"`,;()]*|[^\s'\"`,;()]*/[^\s'\"`,;()]*")
"""An absolute path, a URI, or anything with a slash in it: what a refusal says *about*, not what it says."""


BOUNDARY_WORDS = re.compile(r"\b(?:outside|escap\w*|travers\w*|denied|forbidden|restricted|beyond|"
                            r"not (?:allowed|permitted|within|under|inside))\b", re.IGNORECASE)
"""Words with which a refusal says a path or URI lies past the boundary (rather than being of the wrong type,
missing, or malformed)."""


def refusal_words(response: dict[str, Any], sent: str) -> str:
    """What a refusal says with the path or URI it was about taken out (as sent, quoted, escaped, or any other
    path it shows), so the refusals of two different paths compare equal when they say the same thing: a tool
    that tells ``inside.txt`` what it tells ``../ws-evil/secret.txt`` treats the inside path as an escape."""
    error = response.get("error")
    text = str(error.get("message", "")) if isinstance(error, dict) else shown_text(response)
    for spelled in {sent, repr(sent)[1:-1], json.dumps(sent)[1:-1]}:
        if len(spelled) > 1:  # "." would take every full stop with it
            text = text.replace(spelled, "\u2026")
    return " ".join(_PATH_LIKE.sub("\u2026", text).split())


def pipeline(session: WireSession, calls: list[tuple[str, dict[str, Any]]], *, timeout: float
             ) -> list[tuple[str, dict[str, Any], dict[str, Any] | None]]:
    """Send every tools/call at once, then collect the answers (None for no answer) before one deadline."""
    sent = []
    for name, arguments in calls:
        rid = session.new_id()
        session.send({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
        sent.append((rid, name, arguments))
    deadline = time.monotonic() + timeout
    out: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = []
    for rid, name, arguments in sent:
        try:
            response: dict[str, Any] | None = session.wait_for_id(rid, timeout=max(deadline - time.monotonic(), 0.05))
        except WireTimeout:
            response = None
        out.append((name, arguments, response))
    return out


def program_tools(target: Target, tools: list[dict[str, Any]]
                  ) -> Iterator[tuple[dict[str, Any], str, str | None, list[Any] | None]]:
    """Callable tools that run a program: (tool, program param, argument-list param or None, allowed programs or None)."""
    for tool in tools:
        if not target.may_call(tool):
            continue
        props = properties(tool)
        prog = next((p for p in PROGRAM_PARAMS if p in props and schema_type(props[p]) == "string"), None)
        if prog is None:
            continue
        args = next((a for a in ARGS_PARAMS if a in props and schema_type(props[a]) == "array"), None)
        choices = props[prog].get("enum")
        yield tool, prog, args, list(choices) if isinstance(choices, list) else None


def env_call(target: Target, tools: list[dict[str, Any]]) -> tuple[str, dict[str, Any]] | None:
    """A call that makes a child print its whole environment (printenv or env), if the server offers one."""
    for tool, prog, args, choices in program_tools(target, tools):
        for name in ("printenv", "env"):
            if choices is None or name in choices:
                extra: dict[str, list[str]] = {args: []} if args else {}
                return tool["name"], fill_arguments(tool, {prog: name, **extra})
    return None


def parse_env(text: str) -> dict[str, str]:
    """``NAME=value`` lines of a printed environment (the first value of each name)."""
    env: dict[str, str] = {}
    for line in text.splitlines():
        m = ENV_LINE.match(line)
        if m:
            env.setdefault(m.group(1), m.group(2))
    return env


def child_environment(target: Target, session: WireSession, tools: list[dict[str, Any]]
                      ) -> tuple[dict[str, str], str, list[str]]:
    """Run the environment-printing call; return (parsed environment, raw text, evidence).

    Aborts N/A when the server offers no such call or refuses it, and with ``no_answer`` when the call is not
    answered (printing an environment does not block: the silence is not what the child-environment rules judge)."""
    call = env_call(target, tools)
    if call is None:
        raise ProbeAbort(not_applicable(
            "no callable tool runs a program that prints its environment (a program/command parameter allowing "
            "printenv or env); review the code that builds child environments by hand"))
    name, arguments = call
    try:
        response = call_tool(session, name, arguments, timeout=target.timeout)
    except WireTimeout as exc:
        raise ProbeAbort(failed("no_answer", f"{name}({compact(arguments, 80)}) did not answer: {exc}",
                                *session.transcript(limit=8))) from None
    text = shown_text(response)
    evidence = [f"{name}({compact(arguments, 80)}) -> {show(response, target, 400)}"]
    if refused(response) and not parse_env(text):
        raise ProbeAbort(not_applicable(f"{name} refused to run {arguments}; no child environment to inspect", *evidence))
    return parse_env(text), text, evidence


# -- arguments a tool accepts, so that it really does its work ------------------------------------------------

FOLDER_PARAMS = frozenset({"repo_path", "repository", "repo", "dir", "directory", "folder", "root", "cwd",
                           "working_dir", "workdir", "project", "project_path"})
"""Path parameters that take a folder; the others (``path``, ``file`` ...) get :data:`SAMPLE_FILE`."""


def prepare_root(target: Target) -> Path | None:
    """Make the served folder one a tool does real work in: a plain file, and, when ``git`` is on the server's
    ``PATH``, a git repository with one commit (a git tool refuses a folder that is not one, before it starts
    anything). Only a folder inside the probe's own workspace is touched (a ``--root`` elsewhere is the user's);
    None when the root is unknown."""
    root = target.root
    if root is None:
        return None
    inside = root.resolve() == target.workspace.resolve() or target.workspace.resolve() in root.resolve().parents
    if inside and root.is_dir():
        (root / SAMPLE_FILE).write_text("notes the audit planted\n")
        init_git_repository(root, target.env.get("PATH", ""))
    return root


def ordinary_arguments(target: Target, tool: dict[str, Any], root: Path | None) -> dict[str, Any] | None:
    """Schema-valid arguments for an ordinary call, with every path parameter inside the served folder (the folder
    itself for a folder parameter, :data:`SAMPLE_FILE` for the others): a tool given a path it refuses starts
    nothing. Without a known root, the schema's own values."""
    if root is None:
        return schema_valid_arguments(tool)
    paths = {name: str(root if name.lower() in FOLDER_PARAMS else root / SAMPLE_FILE)
             for name in string_params(tool, [*PATH_PARAMS, *FOLDER_PARAMS])}
    return schema_valid_arguments(tool, **paths) or schema_valid_arguments(tool)


def not_allowed(target: Target, tools: list[dict[str, Any]]) -> list[str]:
    """Names of the listed tools the probe may not call (not annotated read-only, and not allowed by the user)."""
    return [t["name"] for t in tools if isinstance(t.get("name"), str) and not target.may_call(t)]


def how_to_allow(names: list[str]) -> str:
    """Tools the probe was not allowed to call, and the option that allows them."""
    shown = " ".join(names[:8]) + (" ..." if len(names) > 8 else "")
    return f"{', '.join(names[:8])}{' ...' if len(names) > 8 else ''} (not annotated read-only: allow with --allow-tool-calls {shown})"


def around(text: str, needle: str, target: Target, width: int = 200) -> str:
    """The part of ``text`` around the first ``needle`` (masked, as evidence is), so a long answer shows where."""
    at = text.find(needle)
    if at < 0 or len(text) <= width:
        return show(text, target, width)
    start = max(0, at - width // 2)
    return ("…" if start else "") + show(text[start:], target, width)


# -- asking a tool that evaluates code, SQL or shell for the process environment ---------------------------------

_PY_ENV = '"\\n".join(k + "=" + v for k, v in __import__("os").environ.items())'
ENVIRONMENT_ASKS: dict[str, tuple[str, ...]] = {
    "shell": ("env",),
    "python": (_PY_ENV, f"print({_PY_ENV})"),  # an expression (eval), then a statement that shows (exec)
    "javascript": ("JSON.stringify(process.env)", "console.log(JSON.stringify(process.env))"),
    "sql": (
        "SELECT content FROM read_text('/proc/self/environ')",  # DuckDB: runs inside the server's own process
        "SELECT readfile('/proc/self/environ')",  # SQLite with the fileio functions (the sqlite3 shell's)
        "SELECT pg_read_file('/proc/self/environ')",  # PostgreSQL (the database server's process; superuser)
        "SELECT LOAD_FILE('/proc/self/environ')",  # MySQL, MariaDB (the database server's process; FILE privilege)
    ),
}
"""How to ask each language for the environment of the process that runs it. SQL has no portable way: an engine
that reads files can read ``/proc/self/environ`` on Linux, which is the server's own environment when the engine
runs inside the server (DuckDB, SQLite) and the database server's otherwise."""
_SHELL_WORDS = re.compile(r"\b(?:shell|bash|zsh|terminal|command[ -]line|run (?:a |the )?command)\b", re.I)
_PYTHON_WORDS = re.compile(r"\bpython\b", re.I)
_JS_WORDS = re.compile(r"\b(?:javascript|node(?:\.js)?|js|typescript|deno)\b", re.I)


def code_languages(tool: dict[str, Any], param: str) -> list[str]:
    """The languages a parameter that carries code is written in, from its name and what the tool says of it:
    a SQL or query-language tool, a shell command, Python, JavaScript; code of no stated language is asked as both
    Python and JavaScript."""
    prop = properties(tool).get(param) or {}
    said = " ".join(str(x) for x in (tool.get("name"), tool.get("title"), tool.get("description"),
                                     prop.get("description")) if isinstance(x, str)).replace("_", " ")
    name = param.lower()
    found = []
    if name in ("sql", "query") or (name == "statement" and QUERY_LANGUAGE.search(said)):
        found.append("sql")
    if name in ("command", "cmd") or _SHELL_WORDS.search(said):
        found.append("shell")
    if _PYTHON_WORDS.search(said):
        found.append("python")
    if _JS_WORDS.search(said):
        found.append("javascript")
    if not found:
        found = ["sql"] if name == "statement" else ["python", "javascript"]
    return found


def runs_code(tool: dict[str, Any]) -> bool:
    """True for a tool that evaluates code, SQL or shell, or runs a program the caller names."""
    props = properties(tool)
    return bool(code_params(tool)) or any(p in props and schema_type(props[p]) == "string" for p in PROGRAM_PARAMS)


def environment_asks(target: Target, tools: list[dict[str, Any]], *, limit: int = 12
                     ) -> list[tuple[str, dict[str, Any], str]]:
    """``(tool, arguments, language)`` for every callable tool that evaluates code, SQL or shell: each of its code
    parameters asked, in its own language, to show the process environment (at most ``limit`` calls)."""
    asks = []
    for tool in tools:
        if not target.may_call(tool):
            continue
        for param in code_params(tool)[:1]:
            for language in code_languages(tool, param):
                for text in ENVIRONMENT_ASKS[language]:
                    if "/proc/" in text and not proc_available():
                        continue
                    asks.append((tool["name"], fill_arguments(tool, **{param: text}), language))
    return asks[:limit]
