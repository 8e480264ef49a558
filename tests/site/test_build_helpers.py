"""The build's helper processes change how fast the site is made, never what is made.

prelex (code blocks lexed ahead) and templates_ahead (theme templates
compiled ahead) each hand the build a table; here each table is checked to
give exactly what the build would have made on its own, to be used for
every block and template it covers, and to be ignored when it does not fit.
The last test builds the whole site both ways and compares every byte.
"""

from __future__ import annotations

import filecmp
import os
import subprocess
import sys
from pathlib import Path

import jinja2
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name

from mcp_handbook.forked import NO_FORK_ENV
from mcp_handbook.site.prelex import LEXER_OPTIONS, code_blocks, lex_code_blocks, served_from
from mcp_handbook.site.templates_ahead import compile_theme_templates, environment_fingerprint, serve_compiled


def _html(language: str, code: str) -> str:
    return highlight(code, get_lexer_by_name(language, **LEXER_OPTIONS), HtmlFormatter())


def test_every_code_block_is_served_from_the_table_with_the_same_html(project_root: Path) -> None:
    blocks = list(code_blocks(project_root / "content"))
    assert len(blocks) > 150 and any(lang == "python" for lang, _ in blocks)
    expected = [_html(lang, code) for lang, code in blocks]
    table = lex_code_blocks(project_root / "content")
    with served_from(lambda: table) as counts:
        got = [_html(lang, code) for lang, code in blocks]
    assert got == expected
    assert counts == {"served": len(blocks), "lexed": 0}


def test_text_the_table_lacks_is_lexed_as_before_and_the_patch_is_undone(project_root: Path) -> None:
    from pygments.lexer import Lexer

    original = Lexer.get_tokens
    code = "def not_in_the_content():\n    return 'x'\n"
    expected = _html("python", code)
    with served_from(lambda: lex_code_blocks(project_root / "content")) as counts:
        html = _html("python", code)
    assert counts == {"served": 0, "lexed": 1} and html == expected
    assert Lexer.get_tokens is original


def test_a_python_fence_inside_a_list_is_dedented_as_superfences_does(tmp_path: Path) -> None:
    (tmp_path / "page.md").write_text("1. step\n\n    ```python\n    if x:\n        y()\n    ```\n", encoding="utf-8")
    assert list(code_blocks(tmp_path)) == [("python", "if x:\n    y()")]


def _theme_env(project_root: Path) -> jinja2.Environment:
    from mkdocs.config import load_config

    return load_config(str(project_root / "mkdocs.yml")).theme.get_env()


def test_templates_compiled_ahead_render_the_same_and_are_used(project_root: Path) -> None:
    compiled = compile_theme_templates(project_root / "mkdocs.yml")
    env = _theme_env(project_root)
    cache = serve_compiled(env, lambda: compiled)
    assert cache is not None
    fresh = _theme_env(project_root)
    names = ("main.html", "base.html", "partials/nav-item.html", "partials/header.html")
    for name in names:
        served, compiled_here = env.get_template(name), fresh.get_template(name)
        assert served.root_render_func.__code__ == compiled_here.root_render_func.__code__, name
        assert served.blocks.keys() == compiled_here.blocks.keys(), name
    assert cache.served >= len(names) and fresh.bytecode_cache is None


def test_compiled_templates_are_refused_when_the_environment_differs(project_root: Path) -> None:
    compiled = compile_theme_templates(project_root / "mkdocs.yml")
    env = _theme_env(project_root)
    env.filters["url"] = lambda value: value  # a plugin changed how a filter is called (mkdocs' takes the context)
    assert environment_fingerprint(env) != compiled[0]
    assert serve_compiled(env, lambda: compiled) is None and env.bytecode_cache is None


def test_the_site_is_the_same_byte_for_byte_with_and_without_the_helpers(project_root: Path, tmp_path: Path) -> None:
    sites = {}
    for name, no_fork in (("forked", "0"), ("one-process", "1")):
        sites[name] = tmp_path / name
        subprocess.run(
            [sys.executable, "-m", "mcp_handbook.cli", "--root", str(project_root), "build", "--site-dir", str(sites[name])],
            check=True, capture_output=True, timeout=240,
            env={**os.environ, NO_FORK_ENV: no_fork, "SOURCE_DATE_EPOCH": "1764460800"},  # one date for both builds
        )
    differences: list[str] = []

    def compare(cmp: filecmp.dircmp, where: str = "") -> None:
        differences.extend(f"{where}{n}" for n in (*cmp.left_only, *cmp.right_only, *cmp.diff_files, *cmp.funny_files))
        for sub, nested in cmp.subdirs.items():
            compare(nested, f"{where}{sub}/")

    filecmp.clear_cache()
    compare(filecmp.dircmp(sites["forked"], sites["one-process"], ignore=[]))
    assert differences == []
    assert sum(1 for _ in sites["forked"].rglob("*.html")) > 100
