"""Probes for the error-contract rules: one answer per request, tool failures as results, protocol error codes, malformed messages, ids."""
