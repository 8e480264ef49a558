"""Proving blocks: one runner for every caller, one worker policy, and what a recorded proof depends on.

``pool`` proves a set of blocks a few at a time (pytest, ``mcp-handbook evidence`` and the audit's checks of the
WRONG blocks all use it); ``depends`` computes which source files a proof reads and hashes their meaning, so a
recorded proof goes stale when, and only when, code it runs changes.
"""
