"""Answers a tools/call whose arguments do not fit the schema as a FastMCP server on the official Python SDK
does: an isError result carrying ``str()`` of pydantic's ValidationError, type tags, input value and help link
included. Otherwise it is the tiny server."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import tiny

original = tiny.answer


def dump(name: str, arguments: dict) -> str:
    value = arguments.get("path")
    if value is None:
        problem = f"Field required [type=missing, input_value={arguments!r}, input_type=dict]"
        link = "missing"
    else:
        problem = f"Input should be a valid string [type=string_type, input_value={value!r}, input_type={type(value).__name__}]"
        link = "string_type"
    return (f"Error executing tool {name}: 1 validation error for {name}Arguments\npath\n  {problem}\n"
            f"    For further information visit https://errors.pydantic.dev/2.13/v/{link}")


def answer(message: dict) -> dict | None:
    params = message.get("params") or {}
    arguments = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
    if message.get("method") == "tools/call" and "id" in message and not isinstance(arguments.get("path"), str):
        text = dump(str(params.get("name")), arguments)
        return {"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text", "text": text}], "isError": True}}
    return original(message)


tiny.answer = answer
tiny.serve()
