"""Probes for the operations rules: shutdown, capabilities, tools/list paging, instructions and logs."""
