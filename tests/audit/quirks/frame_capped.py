"""Reads stdin in chunks and refuses any line longer than ``--cap BYTES`` with -32600 (id null), draining it
without holding it; ``--cap 0`` reads lines of any length whole. Otherwise it is the tiny server."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import tiny

CAP = int(tiny.option("--cap") or 0)


def frames(stream):
    """Each line, or None for one longer than CAP (drained, never held)."""
    buffer, over = bytearray(), False
    while chunk := stream.read1(65536):
        start = 0
        while True:
            newline = chunk.find(b"\n", start)
            end = len(chunk) if newline < 0 else newline
            if not over:
                buffer += chunk[start:end]
                if CAP and len(buffer) > CAP:
                    buffer.clear()
                    over = True
            if newline < 0:
                break
            yield None if over else bytes(buffer)
            buffer.clear()
            over = False
            start = newline + 1


for frame in frames(sys.stdin.buffer):
    if frame is None:
        tiny.write({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": f"Frame longer than {CAP} bytes"}})
        continue
    try:
        message = json.loads(frame)
    except ValueError:
        tiny.write({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
        continue
    reply = tiny.answer(message) if isinstance(message, dict) else None
    if reply is not None:
        tiny.write(reply)
