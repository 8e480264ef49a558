"""Floods stdout with empty lines: no bytes of content, but a line object each for a naive reader."""

import sys

while True:
    sys.stdout.buffer.write(b"\n" * 65536)
