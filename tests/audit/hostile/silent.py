"""Never answers: reads stdin (or, with --no-read, not even that) until it is killed."""

import os
import sys
import time

import tiny

tiny.record_pid(os.getpid())
if "--no-read" in sys.argv:
    time.sleep(3600)
for _line in sys.stdin:
    pass
time.sleep(3600)
