"""Floods stdout with garbage, forever, whatever it is sent."""

import os
import sys

import tiny

tiny.record_pid(os.getpid())
junk = b"DEBUG: " + b"x" * 4089 + b"\n"
out = sys.stdout.buffer
while True:
    out.write(junk * 64)
