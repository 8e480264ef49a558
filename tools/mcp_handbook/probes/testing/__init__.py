"""Probes for the testing rules: what a server's own test suite should have found, shown from outside."""
