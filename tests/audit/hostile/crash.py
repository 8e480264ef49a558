"""Crashes at start, the way a missing dependency does."""

import sys

sys.stderr.write("Traceback (most recent call last):\n  File \"server.py\", line 1\nModuleNotFoundError: No module named 'fastmcp_extras'\n")
sys.exit(1)
