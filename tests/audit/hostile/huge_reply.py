"""An ordinary server (tiny), except that its first error reply in each session is one line of 300 MB
(a stack of debug data in ``error.data``), written in pieces so the server itself stays small."""

import json
import sys

import tiny

SIZE = 300 * 1024 * 1024
original = tiny.answer
sent = []


def answer(message: dict) -> dict | None:
    reply = original(message)
    if reply is None or "error" not in reply or sent:
        return reply
    sent.append(True)
    out = sys.stdout.buffer
    head = json.dumps({**reply, "error": {**reply["error"], "data": ""}})[:-3]  # up to the opening quote of data
    out.write(head.encode())
    piece = b"x" * (1024 * 1024)
    for _ in range(SIZE // len(piece)):
        out.write(piece)
    out.write(b'"}}\n')
    out.flush()
    return None


tiny.answer = answer
tiny.serve()
