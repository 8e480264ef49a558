"""Completes the handshake like an ordinary server, then floods stdout with log lines, forever."""

import os
import sys

import tiny

original = tiny.answer


def answer(message: dict) -> dict | None:
    reply = original(message)
    if message.get("method") == "notifications/initialized":
        tiny.record_pid(os.getpid())
        junk = b"DEBUG: handshake done, " + b"x" * 200 + b"\n"
        out = sys.stdout.buffer
        while True:
            out.write(junk * 256)
    return reply


tiny.answer = answer
tiny.serve()
