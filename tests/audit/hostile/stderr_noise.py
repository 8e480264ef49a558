"""An ordinary server (tiny) that also writes to stderr without pause, as a debug logger left on might."""

import sys
import threading

import tiny


def chatter() -> None:
    line = b"DEBUG: polling the cache, nothing new " + b"." * 80 + b"\n"
    while True:
        sys.stderr.buffer.write(line * 64)
        sys.stderr.buffer.flush()


threading.Thread(target=chatter, daemon=True).start()
tiny.serve()
