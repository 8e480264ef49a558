"""What the tool-definitions probes share beyond :mod:`..judging` and :mod:`..schemas`: the annotation hints."""

HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
"""The behaviour hints of ToolAnnotations."""
