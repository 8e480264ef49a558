"""Definitions (as served by tools/list) of the default tools.

Why kept apart from the handlers: a definition is the tool's contract with the
model. Each says what the tool does, when to use it, when not to, and its
side effects; every property is described, bounded and closed with
``additionalProperties: false``; all four annotations are set on purpose.
"""
from __future__ import annotations

from reference_server.registry import tool_annotations

_PATH = {"type": "string", "minLength": 1, "maxLength": 4096,
         "description": "Path relative to the workspace root, e.g. \"docs/intro.md\". "
                        "Must stay inside the workspace: no '..' escapes, no absolute paths elsewhere."}

DEFINITIONS = {
    "read_file": {
        "name": "read_file",
        "title": "Read a workspace file",
        "description": "Return the text of one file inside the workspace (UTF-8; invalid bytes shown as U+FFFD). "
                       "Use it when you know the path. Do not use it for directories (use list_directory) or to "
                       "find files by content (use search_files). No side effects; reads at most max_bytes.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "path": _PATH,
                "max_bytes": {"type": "integer", "minimum": 1, "maximum": 1048576, "default": 65536,
                              "description": "Read at most this many bytes (1 to 1048576, default 65536), "
                                             "e.g. 4096 for a quick look."},
            },
            "required": ["path"],
            "additionalProperties": False,
        },
        "annotations": tool_annotations(title="Read a workspace file", read_only=True, destructive=False,
                                        idempotent=True, open_world=False),
    },
    "list_directory": {
        "name": "list_directory",
        "title": "List a workspace directory",
        "description": "List the entries of one directory inside the workspace, sorted by name; directories end "
                       "with '/'. Use it to discover paths before read_file. Not recursive (use search_files to "
                       "find content). When more entries remain, the result gives a cursor for the next page. "
                       "No side effects.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "path": {**_PATH, "default": ".", "description": "Directory relative to the workspace root, "
                         "e.g. \"docs\"; default \".\" (the root)."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 100,
                          "description": "Entries per page (1 to 500, default 100), e.g. 50."},
                "cursor": {"type": "string", "minLength": 1, "maxLength": 256,
                           "description": "Opaque cursor copied unchanged from the previous result; omit it "
                                          "for the first page."},
            },
            "additionalProperties": False,
        },
        "annotations": tool_annotations(title="List a workspace directory", read_only=True, destructive=False,
                                        idempotent=True, open_world=False),
    },
    "search_files": {
        "name": "search_files",
        "title": "Search workspace files for text",
        "description": "Find lines containing a literal, case-sensitive string in text files under a workspace "
                       "directory (no regular expressions; binary files, symlinks and files over 1 MiB are "
                       "skipped). Use it to locate where something is mentioned, then read_file for context. "
                       "Not for listing files (use list_directory). Returns structured matches; no side effects.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": 200,
                          "description": "Literal text to look for, e.g. \"TODO\" (1 to 200 characters)."},
                "path": {**_PATH, "default": ".", "description": "Directory to search, relative to the "
                         "workspace root, e.g. \"src\"; default \".\"."},
                "max_results": {"type": "integer", "minimum": 1, "maximum": 200, "default": 50,
                                "description": "Stop after this many matching lines (1 to 200, default 50)."},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "matches": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}, "line": {"type": "integer", "minimum": 1},
                                   "text": {"type": "string"}},
                    "required": ["path", "line", "text"], "additionalProperties": False}},
                "truncated": {"type": "boolean"},
                "files_scanned": {"type": "integer", "minimum": 0},
            },
            "required": ["matches", "truncated", "files_scanned"],
            "additionalProperties": False,
        },
        "annotations": tool_annotations(title="Search workspace files for text", read_only=True, destructive=False,
                                        idempotent=True, open_world=False),
    },
    "append_note": {
        "name": "append_note",
        "title": "Append a note to notes.md",
        "description": "Append one markdown entry (a '## title' heading, a UTC timestamp and the text) to notes.md "
                       "in the workspace root, creating the file if needed. Use it to record a finding the user "
                       "asked you to keep. Side effect: the file grows; earlier notes are never changed. Calling it "
                       "twice adds two entries (a retried request id is recognised and not applied twice).",
        "inputSchema": {
            "type": "object",
            "properties": {
                "title": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[^\\r\\n]+$",
                          "description": "One-line heading, e.g. \"Build fails on Python 3.13\" (1 to 200 "
                                         "characters, no line breaks)."},
                "text": {"type": "string", "minLength": 1, "maxLength": 10000,
                         "description": "Markdown body of the note, e.g. \"The wheel needs setuptools>=68.\" "
                                        "(1 to 10000 characters)."},
            },
            "required": ["title", "text"],
            "additionalProperties": False,
        },
        "annotations": tool_annotations(title="Append a note to notes.md", read_only=False, destructive=False,
                                        idempotent=False, open_world=False),
    },
    "run_command": {
        "name": "run_command",
        "title": "Run an allow-listed command",
        "description": "Run one read-only program from a fixed allow-list (ls, wc, head, grep, printenv) in the "
                       "workspace, without a shell, with a minimal environment and a timeout; returns the exit "
                       "code, stdout and stderr (each capped at 256 KiB). Use it for quick counts or listings the "
                       "other tools do not cover. Arguments are passed verbatim (no globbing, no pipes); paths must "
                       "stay inside the workspace. No side effects.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "program": {"type": "string", "enum": ["ls", "wc", "head", "grep", "printenv"],
                            "description": "Program to run, e.g. \"wc\"."},
                "args": {"type": "array", "maxItems": 16, "default": [],
                         "items": {"type": "string", "maxLength": 256, "pattern": "^[^\\u0000]*$"},
                         "description": "Arguments, each a separate string, e.g. [\"-l\", \"notes.md\"] "
                                        "(at most 16, each at most 256 characters)."},
                "timeout_seconds": {"type": "number", "minimum": 1, "maximum": 30, "default": 10,
                                    "description": "Kill the program after this many seconds (1 to 30, default "
                                                   "10)."},
            },
            "required": ["program"],
            "additionalProperties": False,
        },
        "annotations": tool_annotations(title="Run an allow-listed command", read_only=True, destructive=False,
                                        idempotent=True, open_world=False),
    },
}
