"""The verifier tells a wrong snippet from a broken one."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from mcp_handbook import load_corpus
from mcp_handbook.probes import PROBES
from mcp_handbook.verify import verify


def _tool_snippet(project_root: Path):
    corpus = load_corpus(project_root)
    for rule in corpus.rules:
        for snippet in rule.snippets:
            # a probe that calls tools runs the handler (a static probe only reads tools/list)
            if rule.check == "automated" and PROBES[rule.probe].calls_tools and snippet.seam == "tool" \
                    and snippet.kind == "correct" and "def handle(arguments, ctx):" in snippet.code:
                return rule, snippet
    raise AssertionError("no CORRECT block mounted at seam=tool with a plain handle()")


def test_a_tool_block_whose_handler_hits_a_name_error_is_broken_not_passing(project_root: Path) -> None:
    rule, snippet = _tool_snippet(project_root)
    broken_code = snippet.code.replace("def handle(arguments, ctx):", "def handle(arguments, ctx):\n    undefined_name_hb", 1)
    verdict = verify(dataclasses.replace(snippet, code=broken_code), rule)
    assert not verdict.ok
    assert "NameError" in verdict.broken, (verdict.broken, verdict.finding)


def test_the_same_tool_block_unchanged_passes(project_root: Path) -> None:
    rule, snippet = _tool_snippet(project_root)
    verdict = verify(snippet, rule)
    assert verdict.ok, (verdict.broken, verdict.finding)
