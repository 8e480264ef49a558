"""Probes not yet moved into a gate package: each module keeps a ``PROBES`` tuple (temporary)."""
