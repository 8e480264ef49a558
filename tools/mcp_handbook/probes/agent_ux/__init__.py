"""Probes of the agent-ux gate: whether tools, their errors and their results serve the model that calls them."""
