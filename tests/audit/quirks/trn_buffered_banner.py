"""A Python server that prints a banner with ``print()`` and writes its messages through its own writer on
``sys.stdout.buffer``, as the official SDK's stdio transport does: under block buffering the banner waits in
``sys.stdout`` until the interpreter exits, and this server is slow to exit at EOF (it cleans up for three seconds),
so a client that stops it with SIGTERM never sees the banner. A host that runs it unbuffered (``PYTHONUNBUFFERED=1``,
common in container images) gets the banner first, where it breaks the framing. Otherwise it is the tiny server."""

import io
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import tiny

print("Starting buffered-banner server v1 ...")
messages = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", write_through=True)


def write(message: dict, *, pad: int = 0) -> None:
    messages.write(json.dumps(message) + "\n")
    messages.flush()


tiny.write = write
tiny.serve()
time.sleep(3)  # cleanup at EOF, longer than a client's grace before SIGTERM
