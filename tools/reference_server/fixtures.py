"""Fixture tools for the official conformance suite (``--conformance-fixtures``).

Why: ``@modelcontextprotocol/conformance`` scenarios call tools with fixed
names and check fixed shapes (read from its scenario sources, v0.1.16). Only
tools this server can honour are here: ``test_sampling`` and
``test_elicitation*`` need server-to-client requests, which this server does
not make, so those scenarios are expected failures. The fixture resources and
prompts are in ``resources.py`` and ``prompts.py``.
"""
from __future__ import annotations

import time

from reference_server.registry import ToolEntry, tool_annotations
from reference_server.results import text_result

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from reference_server.registry import Context

PNG_1X1_RED = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
WAV_SILENCE = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA"
_NO_ARGS = {"type": "object", "additionalProperties": False}


def _define(name: str, description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    title = name.replace("_", " ").capitalize()
    return {"name": name, "title": title, "description": description + " Conformance fixture; no side effects.",
            "inputSchema": schema or _NO_ARGS,
            "annotations": tool_annotations(title=title, read_only=True, destructive=False, idempotent=True,
                                            open_world=False)}


def _simple_text(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    return text_result("This is a simple text response for testing.")


def _image(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    return {"content": [{"type": "image", "data": PNG_1X1_RED, "mimeType": "image/png"}]}


def _audio(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    return {"content": [{"type": "audio", "data": WAV_SILENCE, "mimeType": "audio/wav"}]}


def _embedded(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    return {"content": [{"type": "resource", "resource": {
        "uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content."}}]}


def _mixed(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    return {"content": [
        {"type": "text", "text": "Multiple content types test:"},
        {"type": "image", "data": PNG_1X1_RED, "mimeType": "image/png"},
        {"type": "resource", "resource": {"uri": "test://mixed-content-resource", "mimeType": "application/json",
                                          "text": '{"test":"data","value":123}'}},
    ]}


def _logging(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    for index, message in enumerate(("Tool execution started", "Tool processing data", "Tool execution completed")):
        if index:
            time.sleep(0.05)
        ctx.log("info", message)
    return text_result("Tool with logging executed successfully")


def _error(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    # A deliberate, safe message: returned as a result rather than raised, so the text is exactly the fixture's.
    return text_result("This tool intentionally returns an error for testing", is_error=True)


def _progress(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    for index, value in enumerate((0, 50, 100)):
        if index:
            time.sleep(0.05)
        ctx.progress(value, 100)
    return text_result("Tool with progress executed successfully")


def _schema_2020_12(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    return text_result(f"Received fields: {', '.join(sorted(args)) or 'none'}")


SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": False,
}

_FIXTURES: list[tuple[str, str, Callable[..., dict[str, Any]], bool, dict[str, Any] | None]] = [
    ("test_simple_text", "Return one fixed text block.", _simple_text, False, None),
    ("test_image_content", "Return a 1x1 red PNG image block.", _image, False, None),
    ("test_audio_content", "Return a short silent WAV audio block.", _audio, False, None),
    ("test_embedded_resource", "Return an embedded text resource.", _embedded, False, None),
    ("test_multiple_content_types", "Return text, image and resource blocks.", _mixed, False, None),
    ("test_tool_with_logging", "Send three info log notifications 50 ms apart.", _logging, True, None),
    ("test_error_handling", "Always return an isError result.", _error, False, None),
    ("test_tool_with_progress", "Send progress 0, 50, 100 of 100 when given a progressToken.", _progress, True, None),
    ("json_schema_2020_12_tool", "Accept arguments described with JSON Schema 2020-12 features.",
     _schema_2020_12, False, SCHEMA_2020_12),
]


def conformance_tools() -> list[ToolEntry]:
    return [ToolEntry(_define(name, text, schema), fn, blocking=blocking)
            for name, text, fn, blocking, schema in _FIXTURES]
