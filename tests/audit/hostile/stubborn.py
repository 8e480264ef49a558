"""Ignores SIGTERM and stdin EOF, and leaves a child process behind: only SIGKILL of the group ends it."""

import signal
import subprocess
import sys
import time

import tiny

signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen([sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(3600)"])
tiny.record_pid(child.pid)
tiny.serve()
time.sleep(3600)
