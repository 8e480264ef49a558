"""Answers initialize and tools/list, then closes its stdout and lives on, reading stdin and answering nothing."""

import os
import sys

import tiny

original = tiny.answer


def answer(message: dict) -> dict | None:
    reply = original(message)
    if message.get("method") == "tools/list":
        tiny.write(reply)
        sys.stdout.close()
        os.close(1)
        return None
    return reply if message.get("method") == "initialize" else None


tiny.answer = answer
tiny.serve()
