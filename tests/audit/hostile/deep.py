"""Answers initialize correctly, then answers every other request with JSON nested 200,000 arrays deep.

A parser that recurses (Python's ``json`` does) meets its recursion limit on that line; a reader that lets
the error escape dies, and every later answer goes unread.
"""

import sys

import tiny

DEPTH = 200_000
original = tiny.answer


def answer(message: dict) -> dict | None:
    reply = original(message)
    if reply is None or message.get("method") == "initialize":
        return reply
    rid = tiny.json.dumps(reply["id"])
    sys.stdout.write('{"jsonrpc":"2.0","id":' + rid + ',"result":{"deep":' + "[" * DEPTH + "]" * DEPTH + "}}\n")
    sys.stdout.flush()
    return None


tiny.answer = answer
tiny.serve()
