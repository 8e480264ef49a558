"""Like mcp-server-commands: a prompt whose rendering runs the model's text as a command line, plus resources and
completions whose handlers are server code too. Every handler that acts appends its method to the ``--tripwire``
file, so a test can prove the auditor never set one off. The ``greet`` prompt only fills a template (and checks its
argument: -32602 when it is missing). Otherwise it is the tiny server."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import tiny

original = tiny.answer
PROMPTS = [
    {"name": "run_command", "description": "Include command output in the prompt.",
     "arguments": [{"name": "command", "required": True}]},
    {"name": "greet", "description": "A greeting for someone.", "arguments": [{"name": "name", "required": True}]},
]
RESOURCES = [{"uri": "file:///notes.txt", "name": "notes.txt", "mimeType": "text/plain"}]


def trip(what: str) -> None:
    with open(tiny.option("--tripwire"), "a") as f:
        f.write(what + "\n")


def rendered(params: dict) -> dict:
    name, arguments = params.get("name"), params.get("arguments") or {}
    if name == "run_command":
        trip(f"prompts/get run_command {arguments.get('command')!r}")  # /bin/sh -c undefined, in the real server
        return {"result": {"messages": [{"role": "user", "content": {"type": "text", "text": "output"}}]}}
    if name == "greet" and isinstance(arguments.get("name"), str):
        return {"result": {"messages": [{"role": "user", "content": {"type": "text", "text": f"Hello {arguments['name']}"}}]}}
    return {"error": {"code": -32602, "message": "Invalid params: unknown prompt or missing argument"}}


def answer(message: dict) -> dict | None:
    method, rid, params = message.get("method"), message.get("id"), message.get("params") or {}
    if rid is None:
        return None
    if method == "initialize":
        caps = {"tools": {}, "prompts": {}, "resources": {}, "completions": {}}
        return {"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": "2025-11-25", "capabilities": caps,
                                                         "serverInfo": {"name": "acting-prompts", "version": "0"}}}
    if method == "prompts/list":
        return {"jsonrpc": "2.0", "id": rid, "result": {"prompts": PROMPTS}}
    if method == "prompts/get":
        return {"jsonrpc": "2.0", "id": rid, **rendered(params)}
    if method == "resources/list":
        return {"jsonrpc": "2.0", "id": rid, "result": {"resources": RESOURCES}}
    if method == "resources/templates/list":
        return {"jsonrpc": "2.0", "id": rid, "result": {"resourceTemplates": []}}
    if method in ("resources/read", "completion/complete"):
        trip(method)
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32002, "message": "Resource not found"}}
    return original(message)


tiny.answer = answer
tiny.serve()
