"""Answers initialize correctly, then every other request under an id it was never sent (the asked id, plus "x").

No answer can be matched to its request: a client sees only silence and stray answers.
"""

import tiny

original = tiny.answer


def answer(message: dict) -> dict | None:
    reply = original(message)
    if reply is None or message.get("method") == "initialize":
        return reply
    return {**reply, "id": f"{reply['id']}x"}


tiny.answer = answer
tiny.serve()
