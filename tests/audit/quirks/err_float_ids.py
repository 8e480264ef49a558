"""Reads every JSON number as an IEEE 754 double, as JavaScript's JSON.parse does, and writes integral values
back as integers: ids within +-(2^53 - 1) come back exactly, larger ones come back rounded.

Otherwise it is the tiny server: correct, but for the limit JSON itself sets (RFC 8259 section 6).
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import tiny


def as_written(value):
    """What a JavaScript server writes for a value it holds: an integral double as an integer."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: as_written(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_written(v) for v in value]
    return value


for line in sys.stdin:
    try:
        message = json.loads(line, parse_int=float)
    except ValueError:
        tiny.write({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
        continue
    reply = tiny.answer(message) if isinstance(message, dict) else None
    if reply is not None:
        tiny.write(as_written(reply))
