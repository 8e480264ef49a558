"""Which tool calls the auditor lets through: the last line of defence against being the incident.

Probes are asked to call only tools that :meth:`Target.may_call` allows, but
the auditor does not take that on trust: every frame a probe writes to a
server under audit passes :meth:`ToolCallGuard.check` first. A ``tools/call``
is written only for a tool the user named, or one every listing seen says is
``readOnlyHint: true`` (the preflight's, and the session's own, since a server
may list differently later). A name nobody listed (a probe asking for
``no_such_tool`` to see the error) has nothing behind it to harm, so it goes
through, unless the server never listed its tools at all: then nothing but
the user's names does.

``--no-tool-calls`` means no server-side action of any kind, not only no
``tools/call``: every request that runs the server's own handler code beyond
the handshake, ``ping``, the listings and ``logging/setLevel`` is refused
(:data:`ACTING_METHODS`: ``prompts/get``, ``resources/read``,
``completion/complete``, subscriptions). A prompt is code too: mcp-server-commands
renders its ``run_command`` prompt by running ``/bin/sh -c`` on the argument.

Without ``--no-tool-calls`` the guard still keeps ``prompts/get`` away from a
listed prompt that looks like it runs something (:func:`acting_prompt`: it
speaks of running commands, shell, scripts, code or SQL, or takes a ``command``,
``code``, ``sql``... argument), unless the user named it with
``--allow-tool-calls`` or allowed everything. Prompts carry no ``readOnlyHint``,
so what they say of themselves is all there is to go on; a prompt that only
fills a template loses nothing by it, and one that runs the model's text as a
command line is exactly what an auditor must not set off with a missing
argument.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


ACTING_METHODS = ("tools/call", "prompts/get", "resources/read", "completion/complete", "resources/subscribe",
                  "resources/unsubscribe")
"""Requests that run the server's own handler code on the probe's input: none is sent under ``--no-tool-calls``.
Left through: the handshake, ``ping``, the ``*/list`` requests, ``logging/setLevel``, notifications, and names no
server defines (a probe's made-up method runs nothing)."""

ACTING_WORDS = re.compile(r"\b(?:run|runs|running|exec|execs|execute|executes|executing|shell|bash|zsh|sh|command|commands|"
                          r"cmd|script|scripts|eval|evaluate|evaluates|sql|terminal)\b", re.I)
"""What a prompt's name, title or description says when rendering it may run something."""
ACTING_ARGUMENTS = frozenset({"code", "script", "statement", "expression", "sql", "command", "cmd", "program",
                              "executable", "binary", "command_line", "commandline", "shell_command", "cmdline"})
"""Argument names that carry a command line or code, whatever the prompt says of itself."""


def acting_prompt(prompt: Mapping[str, Any]) -> bool:
    """True when a listed prompt looks like rendering it runs a command, a script, code or SQL (see the module
    docstring): its words, or an argument named like a command or code."""
    said = " ".join(str(prompt.get(k) or "") for k in ("name", "title", "description")).replace("_", " ").replace("-", " ")
    arguments = prompt.get("arguments")
    names = {str(a.get("name", "")).lower() for a in arguments if isinstance(a, dict)} if isinstance(arguments, list) else set()
    return bool(ACTING_WORDS.search(said)) or bool(names & ACTING_ARGUMENTS)


def listed_prompts(values: Iterable[Any]) -> dict[str, bool]:
    """Prompt name -> looks like it acts (:func:`acting_prompt`), from every ``prompts/list`` result among ``values``."""
    seen: dict[str, bool] = {}
    for value in values:
        result = value.get("result") if isinstance(value, dict) else None
        prompts = result.get("prompts") if isinstance(result, dict) else None
        for prompt in prompts if isinstance(prompts, list) else ():
            if isinstance(prompt, dict) and isinstance(prompt.get("name"), str):
                seen[prompt["name"]] = seen.get(prompt["name"], False) or acting_prompt(prompt)
    return seen


def may_get_prompt(prompt: Mapping[str, Any], allow: frozenset[str] | None, *, calls: bool = True) -> bool:
    """Whether a probe may ask ``prompts/get`` for this listed prompt: never under ``--no-tool-calls``; always
    when every call is allowed or the user named it; otherwise only when it does not look like it acts."""
    if not calls:
        return False
    return allow is None or prompt.get("name") in allow or not acting_prompt(prompt)


class BlockedToolCall(Exception):
    """A probe tried a request the auditor does not make (a tool call, or under ``--no-tool-calls`` any request in
    :data:`ACTING_METHODS`); the frame was not sent."""

    def __init__(self, tool: str, why: str = "not annotated readOnlyHint: true and not named with --allow-tool-calls") -> None:
        super().__init__(f"blocked a call to {tool!r}: {why}")
        self.tool = tool


def read_only(tool: Mapping[str, Any]) -> bool:
    """The spec's own test: ``annotations.readOnlyHint`` is true (its default is false)."""
    annotations = tool.get("annotations")
    return isinstance(annotations, dict) and annotations.get("readOnlyHint") is True


def listed_tools(values: Iterable[Any]) -> dict[str, bool]:
    """Tool name -> read-only, from every ``tools/list`` result among ``values`` (false if any says so)."""
    seen: dict[str, bool] = {}
    for value in values:
        result = value.get("result") if isinstance(value, dict) else None
        tools = result.get("tools") if isinstance(result, dict) else None
        for tool in tools if isinstance(tools, list) else ():
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                seen[tool["name"]] = seen.get(tool["name"], True) and read_only(tool)
    return seen


@dataclass(slots=True)
class ToolCallGuard:
    """The user's allowances plus what the preflight learnt about the server's tools."""

    allow: frozenset[str] | None
    """Names the user allowed; None means every tool (only for servers the user owns)."""
    known: dict[str, bool] = field(default_factory=dict)
    """The preflight's tools/list: name -> read-only."""
    listed: bool = False
    """The preflight saw the tool list; when false, unknown names are not called either."""
    blocked: list[str] = field(default_factory=list)
    """Every tool name a probe tried to call and was refused, in order."""
    calls: bool = True
    """False (``--no-tool-calls``): no ``tools/call`` frame is written at all, whatever the tool."""

    @classmethod
    def for_tools(cls, tools: Iterable[dict[str, Any]], *, allow: frozenset[str] | None, listed: bool = True,
                  calls: bool = True) -> ToolCallGuard:
        return cls(allow=allow, known=listed_tools([{"result": {"tools": list(tools)}}]), listed=listed, calls=calls)

    def permits(self, name: str, seen: Mapping[str, bool]) -> bool:
        if not self.calls:
            return False
        if self.allow is None or name in self.allow:
            return True
        flags = [where[name] for where in (self.known, seen) if name in where]
        if flags:
            return all(flags)
        return self.listed or bool(seen)

    def permits_method(self, method: str) -> bool:
        """Whether a request of this method may be written at all (``--no-tool-calls`` refuses every acting one)."""
        return self.calls or method not in ACTING_METHODS

    def check(self, data: bytes, *, seen: Mapping[str, bool] | None = None,
              prompts: Mapping[str, bool] | None = None) -> None:
        """Raise :class:`BlockedToolCall` when ``data`` holds a request the guard does not permit.

        ``seen`` is what the session's own ``tools/list`` answers said, ``prompts`` its ``prompts/list`` answers
        (:func:`listed_prompts`). The method names are looked for as bytes, so a frame that is not JSON (a lenient
        server might still read it) is refused too.
        """
        if not self.calls:
            method = next((m for m in ACTING_METHODS if m.encode() in data), None)
            if method is not None:
                self.blocked.append(method)
                raise BlockedToolCall(method, "the audit runs with --no-tool-calls, which sends no request that runs "
                                              "the server's own code")
        if self.allow is not None and b"prompts/get" in data:
            prompt = self._acting_prompt_in(data, prompts or {})
            if prompt is not None:
                self.blocked.append(f"prompt {prompt}")
                raise BlockedToolCall(f"prompt {prompt}", "a prompt that looks like it runs commands or code; name it "
                                                          "with --allow-tool-calls")
        if self.allow is None or b"tools/call" not in data:
            return
        for line in data.split(b"\n"):
            if b"tools/call" in line:
                tool = self._refused_in(line, seen or {})
                if tool is not None:
                    self.blocked.append(tool)
                    raise BlockedToolCall(tool)

    def _refused_in(self, line: bytes, seen: Mapping[str, bool]) -> str | None:
        try:
            value = json.loads(line)
        except ValueError:
            # Not JSON: a lenient server might still make sense of it, so look for the names themselves.
            if not (self.listed or seen):
                return "(a tool of a server whose tools are unknown)"
            names = sorted({*self.known, *seen})
            return next((n for n in names if not self.permits(n, seen) and json.dumps(n).encode() in line), None)
        for message in value if isinstance(value, list) else [value]:
            if isinstance(message, dict) and message.get("method") == "tools/call":
                params = message.get("params")
                name = params.get("name") if isinstance(params, dict) else None
                if isinstance(name, str) and not self.permits(name, seen):
                    return name
        return None

    def _acting_prompt_in(self, data: bytes, prompts: Mapping[str, bool]) -> str | None:
        """The first prompt ``data`` asks for that looks like it acts and the user did not name (a name listed
        nowhere has nothing behind it, as with tools)."""
        assert self.allow is not None
        acting = sorted(name for name, acts in prompts.items() if acts and name not in self.allow)
        return next((name for name in acting if json.dumps(name).encode() in data), None)
