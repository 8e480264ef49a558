"""Prompts: two workspace prompts, and the conformance suite's fixtures.

Why arguments are a seam: a prompt's arguments come from the user (or a model
filling a slash command) and end up in the text a model reads. They are
checked against the prompt's declared arguments before anything is rendered
(2025-11-25 server/prompts: servers SHOULD validate prompt arguments; a missing
required argument is -32602), so a prompt is never rendered with a blank where
a required value belongs. ``review_file`` embeds a workspace file, read through
the same ``resolve_resource`` containment as ``resources/read``.
"""
from __future__ import annotations

from reference_server.errors import INVALID_PARAMS, ProtocolError
from reference_server.resources import file_uri, page
from reference_server.seam_call import call as call_seam

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from reference_server.resources import Resources

MAX_ARGUMENT_CHARS = 10_000


def _text(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "content": {"type": "text", "text": text}}


def _invalid(message: str) -> ProtocolError:
    return ProtocolError(INVALID_PARAMS, f"Invalid params: {message}")


def prompt_arguments(prompt: dict[str, Any], arguments: Any) -> dict[str, str]:
    """Seam: the arguments of one ``prompts/get``, checked against the prompt's declared ``arguments``.

    Returns the arguments given (only declared names, string values). Raises ``ProtocolError(-32602)`` naming
    every problem: not an object, an undeclared name, a value that is not a string or is too long, a required
    argument missing.
    """
    if arguments is None:
        arguments = {}
    if type(arguments) is not dict:
        raise _invalid("params.arguments must be an object of strings, one per argument prompts/list shows")
    declared = {arg["name"]: arg for arg in prompt.get("arguments") or []}
    problems = []
    for name, value in arguments.items():
        if name not in declared:
            problems.append(f"{name[:60]!r} is not an argument of this prompt")
        elif type(value) is not str:
            problems.append(f"{name!r} must be a string")
        elif len(value) > MAX_ARGUMENT_CHARS:
            problems.append(f"{name!r} is longer than {MAX_ARGUMENT_CHARS} characters")
    missing = [name for name, arg in declared.items() if arg.get("required") and name not in arguments]
    if missing:
        problems.append("missing required argument(s) " + ", ".join(repr(name) for name in missing))
    if problems:
        known = ", ".join(declared) or "none"
        raise _invalid(f"prompt {prompt['name']!r}: " + "; ".join(problems) + f" (its arguments: {known})")
    return dict(arguments)


class Prompts:
    """prompts/list and prompts/get for one server instance."""

    def __init__(self, resources: Resources, *, page_size: int) -> None:
        self.resources = resources
        self.page_size = page_size
        self.prompts: dict[str, tuple[dict[str, Any], Callable[[dict[str, str]], dict[str, Any]]]] = {}
        """name -> (its definition as listed, a function rendering the GetPromptResult from checked arguments)"""
        self.add({"name": "review_file", "title": "Review a file",
                  "description": "Ask for a review of one workspace file, embedded in the prompt.",
                  "arguments": [
                      {"name": "path", "description": "Path relative to the workspace root, e.g. docs/guide.md.",
                       "required": True},
                      {"name": "focus", "description": "What to look at first, e.g. error handling.",
                       "required": False}]},
                 self._review_file)
        self.add({"name": "find_in_workspace", "title": "Find something in the workspace",
                  "description": "Ask the model to search the workspace with the tools and report what it finds.",
                  "arguments": [{"name": "query", "description": "What to look for, e.g. TODO.", "required": True}]},
                 _find_in_workspace)

    def add(self, definition: dict[str, Any], render: Callable[[dict[str, str]], dict[str, Any]]) -> None:
        self.prompts[definition["name"]] = (definition, render)

    def list_prompts(self, message: dict[str, Any]) -> dict[str, Any]:
        listing = [self.prompts[name][0] for name in sorted(self.prompts)]
        return page(listing, "prompts", message, nonce=self.resources.nonce[:-1] + "p", page_size=self.page_size)

    def get_prompt(self, message: dict[str, Any]) -> dict[str, Any]:
        params = message.get("params") or {}
        name = params.get("name")
        if type(name) is not str:
            raise _invalid("prompts/get needs params.name, a prompt name from prompts/list")
        found = self.prompts.get(name)
        if found is None:
            raise _invalid(f"unknown prompt {name[:100]!r}; prompts/list shows the prompts")
        definition, render = found
        arguments = call_seam("prompt_arguments", definition, params.get("arguments"))
        return render(arguments)

    def _review_file(self, arguments: dict[str, str]) -> dict[str, Any]:
        path = arguments["path"]
        uri = file_uri(path.lstrip("/"))
        try:
            embedded = self.resources.contents(uri)
        except ProtocolError as exc:
            raise _invalid(f"argument 'path': {exc.message.removeprefix('Invalid params: ')}") from None
        focus = arguments.get("focus")
        ask = f"Review the file {path}. Point out bugs, unclear parts and missing tests"
        ask += f", looking first at {focus}." if focus else "."
        embed = {"role": "user", "content": {"type": "resource", "resource": embedded}}
        return {"description": f"Review of {path}", "messages": [_text("user", ask), embed]}

    # -- conformance fixtures -----------------------------------------------------------------------------
    def add_conformance_fixtures(self) -> None:
        """The prompts @modelcontextprotocol/conformance 0.1.16 gets (its scenario sources)."""
        from reference_server.fixtures import PNG_1X1_RED

        def fixture(name: str, description: str, *required: str) -> dict[str, Any]:
            return {"name": name, "description": description + " (conformance fixture)",
                    "arguments": [{"name": arg, "description": f"The {arg} value.", "required": True}
                                  for arg in required]}

        self.add(fixture("test_simple_prompt", "A prompt without arguments."),
                 lambda _a: {"messages": [_text("user", "This is a simple prompt for testing.")]})
        self.add(fixture("test_prompt_with_arguments", "A prompt with two required arguments.", "arg1", "arg2"),
                 lambda a: {"messages": [_text("user", f"Prompt with arguments: arg1='{a['arg1']}', "
                                                       f"arg2='{a['arg2']}'")]})
        self.add(fixture("test_prompt_with_embedded_resource", "A prompt embedding a resource.", "resourceUri"),
                 lambda a: {"messages": [
                     {"role": "user", "content": {"type": "resource", "resource": {
                         "uri": a["resourceUri"], "mimeType": "text/plain",
                         "text": "Embedded resource content for testing."}}},
                     _text("user", "Please process the embedded resource above.")]})
        self.add(fixture("test_prompt_with_image", "A prompt with an image."),
                 lambda _a: {"messages": [
                     {"role": "user", "content": {"type": "image", "data": PNG_1X1_RED, "mimeType": "image/png"}},
                     _text("user", "Please analyze the image above.")]})


def _find_in_workspace(arguments: dict[str, str]) -> dict[str, Any]:
    query = arguments["query"]
    return {"description": "Search the workspace",
            "messages": [_text("user", f"Find {query!r} in the workspace: use search_files, then read_file on the "
                                       "best matches, and report each place with its path and line.")]}
