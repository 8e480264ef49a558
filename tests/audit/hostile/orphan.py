"""Serves correctly, but first starts a helper in a session of its own (setsid) that holds the server's stdout
open and ignores SIGTERM: killing the server's process group does not reach it, and stdout never ends."""

import signal
import subprocess
import sys

import tiny

helper = subprocess.Popen(
    [sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(3600)"],
    start_new_session=True, stdin=subprocess.DEVNULL,  # stdout and stderr: the server's own pipes
)
tiny.record_pid(helper.pid)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
tiny.serve()
