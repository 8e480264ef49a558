"""SEC-024: no instructions aimed at the model in visible text of a tool's definition (tool poisoning).

A tool's name, title, description, annotations and schemas reach the model as trusted context on every turn. Text
there that tells the model to drop its instructions, to keep something from the user, or to fetch a secret that has
nothing to do with the tool is a prompt injection the server ships itself: the published tool-poisoning attacks
work this way. This is a mechanical check and catches the blunt cases only. It reads every string of every listed
tool (keys too) and fails on four kinds of phrase, each quoted in the finding with its JSON path:

* ``override_instructions``: "ignore (all) previous/prior/above/your instructions (rules, prompts)", "disregard the
  system prompt", "forget your instructions", "you are now a ...", "new instructions:";
* ``concealment_from_user``: "do not tell/inform/mention/notify ... the user", "without telling/asking the user",
  "hide this from the user", "the user must not know" (not "never show the token to the user": keeping a secret
  from view is not hiding what the tool does);
* ``model_markup``: tags that address the model as a higher authority: ``<IMPORTANT>``, ``<SYSTEM>``,
  ``<instructions>``, ``<secret>``, ``<hidden>``, ``<admin>``, chat-template tokens (``[INST]``, ``<|im_start|>``);
* ``secret_request``: a verb that asks for content (read, cat, open, include, send, pass, attach, upload, paste)
  within one sentence of a location that holds credentials outside any workspace (``~/.ssh``, ``id_rsa``,
  ``.aws/credentials``, ``/etc/passwd``, ``/etc/shadow``, ``.netrc``, an MCP client's own configuration file).

Fair to third-party servers: ordinary advice ("use list_directory first", "do not use it for source files") matches
none of these; a tool whose own job is one of those files (an SSH key manager) can match ``secret_request`` and is
for a reviewer to judge (the rule's Pitfalls say so). Wording that avoids every pattern passes: a reviewer still reads
the descriptions (TOOL-007).
"""

from __future__ import annotations

import re
from typing import Any

from ..judging import Problem, judge_each_tool
from ..registry import probe
from ..support import Finding, Target, tool_name
from .hidden_text_in_tools import FIELDS, strings

REASONS = {
    "override_instructions": "a tool's definition tells the model to ignore or replace its instructions",
    "concealment_from_user": "a tool's definition tells the model to keep something from the user",
    "model_markup": "a tool's definition holds markup that addresses the model as an authority (<IMPORTANT>, <SYSTEM>, "
                    "chat-template tokens)",
    "secret_request": "a tool's definition asks the model to read or pass on credentials or files outside the workspace",
}

_SENTENCE = r"[^.!?\n]"
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("override_instructions", re.compile(
        r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|of\s+)*"
        r"(?:(?:previous|prior|preceding|above|earlier|other|existing|original|your|safety)\s+)+"
        r"(?:instructions?|prompts?|rules|guidelines|directions)\b"
        r"|\b(?:ignore|disregard|forget|override|bypass)\s+(?:the\s+|your\s+)?system\s+prompt\b"
        r"|\byou\s+are\s+now\s+(?:a|an)\b|\bnew\s+instructions?\s*:", re.I)),
    ("concealment_from_user", re.compile(
        r"\b(?:do\s+not|don't|never|must\s+not)\s+(?:tell|inform|mention|notify|alert|let)\b"
        + _SENTENCE + r"{0,40}?\buser\b"
        r"|\bwithout\s+(?:telling|informing|asking|notifying|alerting|showing)\s+(?:the\s+)?user\b"
        r"|\b(?:hide|conceal|keep)\s+(?:this|it|that)" + _SENTENCE + r"{0,20}?\bfrom\s+(?:the\s+)?user\b"
        r"|\bthe\s+user\s+(?:must|should)\s+(?:not|never)\s+(?:know|see|be\s+told|notice)\b", re.I)),
    ("model_markup", re.compile(
        r"</?\s*(?:important|system|instructions?|secret|hidden|admin|prompt)\s*>|\[/?INST\]|<\|im_(?:start|end)\|>",
        re.I)),
    ("secret_request", re.compile(
        r"\b(?:read|cat|open|include|send|pass|attach|upload|paste|copy|provide|forward)\b" + _SENTENCE + r"{0,80}?"
        r"(?:~/\.ssh|\bid_(?:rsa|ed25519|ecdsa)\b|\.aws/credentials|/etc/(?:passwd|shadow)|\.netrc\b"
        r"|claude_desktop_config\.json|\.cursor/mcp\.json|\bmcp\.json\b)", re.I)),
)
"""Each reason's phrase pattern; the first match of each is quoted."""


def directives_in(text: str) -> list[tuple[str, str]]:
    """``(reason, matched text)`` for each kind of directive found in ``text`` (first match of each kind)."""
    found = []
    for reason, pattern in PATTERNS:
        match = pattern.search(text)
        if match:
            found.append((reason, match.group(0)))
    return found


def _problems(tool: dict[str, Any]) -> list[Problem]:
    name = tool_name(tool)
    problems: list[Problem] = []
    for field in FIELDS:
        for where, text in strings(tool.get(field), f"{name}.{field}"):
            for reason, matched in directives_in(text):
                problems.append((reason, f"{where}: {reason}: matched {matched[:120]!r}"))
    return problems


@probe("no_model_directives_in_tools", "no instructions aimed at the model in tool definitions (blunt cases)",
       reasons=REASONS, over_http=True, shares_session=True)
def no_model_directives_in_tools(target: Target) -> Finding:
    """Every string of every listed tool: no override, concealment, authority markup or request for secrets."""
    return judge_each_tool(target, _problems, reasons=REASONS,
                           kept="hold no override, concealment, authority markup or request for secrets",
                           broken="hold instructions aimed at the model")
