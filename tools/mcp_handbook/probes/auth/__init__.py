"""Probes for the auth rules: how a server holds and asks for credentials."""
