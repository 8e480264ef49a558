"""Probes of the tool-definitions gate: what tools/list declares about each tool, and what its results keep."""
