"""Answers initialize and tools/list, then nothing else: every other request waits for ever (a tarpit).

Each probe would wait out its own timeout on the same silence and call it a FAIL of its own rule.
"""

import tiny

original = tiny.answer


def answer(message: dict) -> dict | None:
    return original(message) if message.get("method") in ("initialize", "tools/list") else None


tiny.answer = answer
tiny.serve()
