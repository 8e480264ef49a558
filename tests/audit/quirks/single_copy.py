"""Like mcp-server-duckdb on one database file: the first copy started in a folder locks a file there, and a second
copy started beside it exits at once ("database is locked"). Alone, it is the tiny server, which negotiates correctly."""

import fcntl
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import tiny

lock = open("hb-single-copy.lock", "w")  # noqa: SIM115 - held for the life of the process, on purpose
try:
    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
except OSError:
    print("another copy holds hb-single-copy.lock: exiting", file=sys.stderr, flush=True)
    sys.exit(1)
tiny.serve()
