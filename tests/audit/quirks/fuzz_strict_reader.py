"""Handles every tool argument well, but its frame reader is strict and silent, as the official Python SDK's
is: a line that is not JSON, or whose JSON holds a lone surrogate (pydantic's parser rejects ``\\ud800``), gets
no answer at all, only a line on stderr. Otherwise it is the tiny server."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import tiny


def lone_surrogate(value) -> bool:
    if isinstance(value, str):
        return any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    if isinstance(value, dict):
        return any(lone_surrogate(k) or lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(lone_surrogate(v) for v in value)
    return False


for line in sys.stdin:
    try:
        message = json.loads(line)
        if lone_surrogate(message):
            raise ValueError("lone leading surrogate in hex escape")
    except ValueError as exc:
        sys.stderr.write(f"Failed to parse JSON-RPC message: {exc}\n")
        continue
    reply = tiny.answer(message) if isinstance(message, dict) else None
    if reply is not None:
        tiny.write(reply)
