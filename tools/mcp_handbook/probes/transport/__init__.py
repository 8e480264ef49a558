"""Probes for the transport rules: stdio framing, frame size, version negotiation, discovery, _meta and sockets."""
