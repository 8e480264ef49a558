"""Logs the arguments of every tools/call to stderr. It hides the values of its own environment (the canary is
one of them) and, with ``--redact-keys``, also replaces every value under a secret-looking key, at any depth.
Without ``--redact-keys`` a secret the client sends that is not in its environment is logged as it came.
Otherwise it is the tiny server."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import tiny

SECRET_WORDS = ("token", "secret", "password", "authorization")
ENV_VALUES = [v for v in os.environ.values() if len(v) >= 8]


def by_key(value):
    if isinstance(value, dict):
        return {k: "<REDACTED>" if any(w in str(k).lower() for w in SECRET_WORDS) else by_key(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [by_key(v) for v in value]
    return value


def log_call(name, arguments: dict) -> dict:
    shown = by_key(arguments) if "--redact-keys" in sys.argv else arguments
    line = json.dumps({"event": "tools/call", "tool": name, "arguments": shown})
    for value in ENV_VALUES:
        line = line.replace(value, "<ENV>")
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
    return {"content": [{"type": "text", "text": "ok"}]}


tiny.serve_tools(log_call)
