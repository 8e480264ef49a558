"""``same-as=RULE-ID:correctN``: a block that is the same code as another rule's is written once. Its fence is empty,
the parser gives it the named block's code, so the site shows that code and the proof proves it in this rule too;
``mcp-handbook check`` refuses a name that leads nowhere (HB044)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from mcp_handbook import load_corpus
from mcp_handbook.cli import main
from mcp_handbook.site.rule_page import body_with_blocks

RULE = """---
id: {id}
title: A rule whose blocks are under test
scope: universal
basis: practice
severity: low
gate: transport
check: manual
since: "1.3.0"
---

Text.

```python wrong norun="a sketch"
x = 1
```

{correct}

## Why it matters

x

## How it is verified

x

## References

- none
"""

SOURCE = '```python correct norun="a sketch"\nlimit = 10\nread = min(limit, 4)\n```'


def _corpus(tmp_path: Path, shared: str):
    """TRN-098 holds the code; TRN-099's CORRECT block is ``shared``."""
    rules = tmp_path / "content" / "rules" / "transport"
    rules.mkdir(parents=True, exist_ok=True)
    (tmp_path / "content" / "handbook.yml").write_text('version: "1.3.0"\ngates: [{key: transport, title: T}]\n')
    (rules / "a.md").write_text(RULE.format(id="TRN-098", correct=SOURCE))
    (rules / "b.md").write_text(RULE.format(id="TRN-099", correct=shared))
    return load_corpus(tmp_path)


def _hb039(corpus) -> list[str]:
    """What ``check`` says about same-as= (``load_corpus`` has linted the corpus)."""
    return [f"{d.location.path}:{d.location.line}: {d.message}" for d in corpus.diagnostics if d.code == "HB044"]


def test_an_empty_fence_with_same_as_takes_the_named_blocks_code(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, '```python correct norun="a sketch" same-as=TRN-098:correct1\n```')
    blocks = {s.name: s for s in corpus.snippets}
    shared = blocks["TRN-099.correct1"]
    assert shared.code == blocks["TRN-098.correct1"].code == "limit = 10\nread = min(limit, 4)\n"
    assert shared.same_as == "TRN-098:correct1" and shared.location.path.endswith("b.md")
    assert _hb039(corpus) == []


def test_the_site_shows_the_shared_code_in_the_rule_that_names_it(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, '```python correct norun="a sketch" same-as=TRN-098:correct1\n```')
    (rule,) = [r for r in corpus.rules if r.id == "TRN-099"]
    page = body_with_blocks(rule, None)
    assert "limit = 10\nread = min(limit, 4)\n```" in page


def test_a_name_that_leads_nowhere_fails_check_at_the_fence(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, '```python correct norun="a sketch" same-as=TRN-098:correct2\n```')
    (problem,) = _hb039(corpus)
    assert problem.startswith("content/rules/transport/b.md:18: TRN-099.correct1: same-as=TRN-098:correct2 names no")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--root", str(tmp_path), "check"]) == 1
    assert "b.md:18: HB044" in out.getvalue()


def test_a_chain_a_language_mismatch_and_a_fence_with_code_are_refused(tmp_path: Path) -> None:
    _corpus(tmp_path / "chain", '```python correct norun="a sketch" same-as=TRN-098:correct1\n```')
    rules = tmp_path / "chain" / "content" / "rules" / "transport"
    (rules / "c.md").write_text(RULE.format(id="TRN-097", correct='```python correct same-as=TRN-099:correct1\n```'))
    (chained,) = _hb039(load_corpus(tmp_path / "chain"))
    assert "c.md:18: TRN-097.correct1: same-as=TRN-099:correct1 names a block that is itself same-as=TRN-098" in chained
    other_language = _corpus(tmp_path / "lang", '```sh correct norun="a sketch" same-as=TRN-098:correct1\n```')
    assert any("names a python block, and this one is sh" in p for p in _hb039(other_language))
    with_code = _corpus(tmp_path / "code", '```python correct norun="a sketch" same-as=TRN-098:correct1\nx = 2\n```')
    assert any(d.code == "HB044" and "this fence holds code" in d.message for d in with_code.diagnostics)


def test_sec_022_and_sec_023_show_and_prove_sec_021s_correct_block(project_root: Path) -> None:
    corpus = load_corpus(project_root)
    blocks = {s.name: s for s in corpus.snippets}
    source = blocks["SEC-021.correct1"]
    assert source.same_as == "" and len(source.code.splitlines()) > 40
    by_id = {r.id: r for r in corpus.rules}
    for rule_id in ("SEC-022", "SEC-023"):
        shared = blocks[f"{rule_id}.correct1"]
        assert (shared.same_as, shared.code, shared.seam) == ("SEC-021:correct1", source.code, source.seam)
        assert source.code.rstrip("\n") in body_with_blocks(by_id[rule_id], None)
