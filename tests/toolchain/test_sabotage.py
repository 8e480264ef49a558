"""A WRONG block that fails by crashing proves nothing: insert an ordinary bug at the top of every
WRONG block's function and the verifier must call each one broken.

The set is generated from the doctrine (every automated rule's WRONG blocks, whatever is added
later), and the bugs are the everyday kind: an attribute typo, a missing dict key, ``int("x")``.
"""

from __future__ import annotations

import ast
import dataclasses
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from mcp_handbook import load_corpus
from mcp_handbook.proving.evidence import provable_snippets
from mcp_handbook.model import Rule, Snippet
from mcp_handbook.seams import TOOL_SEAM
from mcp_handbook.proving.verify import Verdict, verify

pytestmark = pytest.mark.slow  # a proof run per WRONG block

BUGS = ('"".uppr()', '{}["missing_key"]', 'int("x")')
"""One line each, valid anywhere in a function body, each raising at once (AttributeError, KeyError, ValueError)."""


def sabotaged(snippet: Snippet, bug: str) -> Snippet:
    """The block with ``bug`` as the first statement of the function the seam calls (``handle`` for a tool)."""
    target = "handle" if snippet.seam == TOOL_SEAM else snippet.seam
    tree = ast.parse(snippet.code)
    function = next(n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == target)
    first = function.body[0]
    lines = snippet.code.split("\n")
    lines.insert(first.lineno - 1, " " * first.col_offset + bug + "  # sabotage")
    return dataclasses.replace(snippet, code="\n".join(lines))


def _wrong_blocks(root: Path) -> list[tuple[Rule, Snippet]]:
    return [(r, s) for r, s in provable_snippets(load_corpus(root)) if s.kind == "wrong"]


@pytest.fixture(scope="module")
def verdicts(project_root: Path) -> list[tuple[Snippet, Verdict]]:
    jobs = [(rule, sabotaged(s, BUGS[i % len(BUGS)])) for i, (rule, s) in enumerate(_wrong_blocks(project_root))]
    with ThreadPoolExecutor(max_workers=4, thread_name_prefix="hb-sabotage") as pool:
        found = list(pool.map(lambda job: verify(job[1], job[0]), jobs))
    return [(snippet, verdict) for (_rule, snippet), verdict in zip(jobs, found)]


def test_the_sabotage_reaches_every_wrong_block_of_every_automated_rule(project_root: Path, verdicts) -> None:
    corpus = load_corpus(project_root)
    automated = {r.id for r in corpus.rules if r.check == "automated"}
    assert {s.rule_id for s, _ in verdicts} == automated
    assert all("# sabotage" in s.code for s, _ in verdicts)


def test_every_wrong_block_with_an_ordinary_bug_inserted_is_broken_not_proved(verdicts) -> None:
    proved = [f"{s.location} {s.name}: {v.finding.status if v.finding else '-'} {v.reason}" for s, v in verdicts if not v.broken]
    assert proved == [], f"{len(proved)} of {len(verdicts)} sabotaged WRONG blocks still count as proved:\n" + "\n".join(proved)
    assert not any(v.ok for _, v in verdicts)
