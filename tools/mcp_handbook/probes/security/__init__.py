"""Probes for the security rules: child processes, inherited descriptors, secrets, code evaluation and file paths."""
