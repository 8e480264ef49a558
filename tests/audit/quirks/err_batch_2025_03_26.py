"""Speaks only 2025-03-26, the one revision that requires a server to receive JSON-RPC batches, and serves
them: an array of requests gets an array of their answers. Every other malformed or hostile line gets the
one error JSON-RPC 2.0 prescribes (id null when none could be read), and serving goes on.
Otherwise it is the tiny server."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import tiny

VERSION = "2025-03-26"


def error(rid, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


def valid_id(value) -> bool:
    return type(value) is str or type(value) is int or (type(value) is float and abs(value) != float("inf"))


def one(message) -> dict | None:
    if type(message) is not dict:
        return error(None, -32600, "Invalid Request")
    rid = message.get("id")
    echo = rid if valid_id(rid) else None
    if message.get("jsonrpc") != "2.0" or type(message.get("method")) is not str:
        return error(echo, -32600, "Invalid Request")
    if "id" in message and echo is None:
        return error(None, -32600, "Invalid Request: bad id")
    if "params" in message and type(message["params"]) is not dict:
        return error(echo, -32602, "Invalid params") if "id" in message else None
    reply = tiny.answer(message)
    if reply is not None and message["method"] == "initialize":
        reply["result"]["protocolVersion"] = VERSION
    return reply


def line_answer(raw: bytes):
    try:
        message = json.loads(raw.decode("utf-8").lstrip("\ufeff"))
    except (ValueError, RecursionError):
        return error(None, -32700, "Parse error")
    if type(message) is list:
        if not message:
            return error(None, -32600, "Invalid Request: empty batch")
        answers = [a for a in (one(m) for m in message) if a is not None]  # a batch, served (2025-03-26)
        return answers or None
    return one(message)


for raw in sys.stdin.buffer:
    reply = line_answer(raw.rstrip(b"\r\n"))
    if reply is not None:
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
