"""Parse ``content/`` once into a :class:`~mcp_handbook.model.Corpus`.

Problems become :class:`~mcp_handbook.model.Diagnostic` values carrying ``path:line``; parsing never raises on bad content.
"""

from __future__ import annotations

import re
import functools
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import yaml
from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

from .fields import FIELDS, FIELDS_BY_NAME, basis_problems, cites_spec_without_revision, retirement_problems
from .model import Corpus, Diagnostic, Gate, Location, Rule, Snippet
from .naming import placeholder_diagnostic, placeholders

RULES_DIR = "rules"
HANDBOOK_FILE = "handbook.yml"
SNIPPET_KINDS = {"wrong": "wrong", "correct": "correct"}
FENCE_OPTIONS = {"seam", "title", "expect", "raises", "promise", "needs", "norun", "same-as"}
EXAMPLE_OPTIONS = {"title", "promise", "needs", "norun"}
"""What a block that is neither WRONG nor CORRECT may say in its fence."""
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: the same results, many times faster


@functools.cache
def _markdown() -> MarkdownIt:
    """One parser for every file: building it (rules, plugins) costs more than parsing a rule.

    It parses blocks only. The model needs the inline tokens of a paragraph only to check its links, so
    :func:`_inline_links` parses the inline content of the few paragraphs that can hold one (123 of 2,758
    in the handbook's 133 rules): markdown-it then takes 0.26 s for them instead of 0.46 s."""
    return MarkdownIt("commonmark").use(front_matter_plugin).disable("inline")


def _inline_links(tok: Any, env: dict) -> list:
    """The inline tokens of a block's content when it may hold a link or an image (both start with ``[``);
    ``env`` carries the file's link reference definitions from the block parse."""
    if "[" not in tok.content:
        return []
    if not tok.children:
        tok.children = []
        _markdown().inline.parse(tok.content, _markdown(), env, tok.children)
    return tok.children


@dataclass(slots=True)
class _Sink:
    """Collects diagnostics for one file."""

    path: str
    items: list[Diagnostic] = field(default_factory=list)

    def add(self, line: int, code: str, message: str, hint: str = "") -> None:
        self.items.append(Diagnostic(Location(self.path, line), code, message, hint))


def _key_lines(text: str, first_line: int) -> dict[str, int]:
    """Map each top-level YAML key to the file line it stands on."""
    try:
        return _node_key_lines(yaml.compose(text, Loader=YAML_LOADER), first_line)
    except yaml.YAMLError:
        return {}


def _node_key_lines(node: Any, first_line: int) -> dict[str, int]:
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {k.value: first_line + k.start_mark.line for k, _ in node.value if isinstance(k, yaml.ScalarNode)}


def _load_front_matter(text: str, first_line: int, sink: _Sink) -> tuple[dict[str, Any] | None, dict[str, int]]:
    loader = YAML_LOADER(text)
    try:  # one parse gives both the data and, from its node tree, the line of each key
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = first_line + mark.line if mark is not None else first_line
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        sink.add(line, "HB003", f"front matter is not valid YAML: {problem}", "check indentation and quoting on this line")
        return None, {}
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        sink.add(first_line, "HB004", "front matter must be a mapping of fields", "write `key: value` lines between the --- fences")
        return None, {}
    return data, _node_key_lines(node, first_line)


def _check_fields(data: dict[str, Any], lines: dict[str, int], fm_line: int, sink: _Sink) -> None:
    for key in data:
        if key not in FIELDS_BY_NAME:
            known = ", ".join(f.name for f in FIELDS)
            sink.add(lines.get(key, fm_line), "HB010", f"unknown front-matter field {key!r}", f"known fields: {known}")
    for spec in FIELDS:
        if spec.name not in data:
            if spec.required:
                sink.add(fm_line, "HB011", f"missing required field {spec.name!r}", f"add `{spec.name}:` ({spec.help})")
            continue
        problem = spec.check(data[spec.name], data)
        if problem:
            sink.add(lines.get(spec.name, fm_line), "HB012", f"field {spec.name!r} {problem}", spec.help)
    if data.get("scope") == "stack" and not data.get("stack"):
        sink.add(lines.get("scope", fm_line), "HB013", "scope is stack but no stack label is given",
                 "add `stack: LABEL` (e.g. Python, stateful-backends)")
    if data.get("stack") and data.get("scope") != "stack":
        sink.add(lines.get("stack", fm_line), "HB013", "a stack label is given but scope is not stack", "set `scope: stack` or remove `stack:`")
    for key, problem, hint in basis_problems(data):
        sink.add(lines.get(key, fm_line), "HB015", problem, hint)


def _parse_fence_info(info: str) -> tuple[str, str | None, dict[str, str], str | None]:
    """Split ``python wrong seam=x title="..."`` into language, kind, options, error."""
    try:
        words = shlex.split(info)
    except ValueError as exc:
        return "", None, {}, f"fence info string cannot be split: {exc}"
    if not words:
        return "", "example", {}, None
    language, kind, options = words[0].lower(), None, {}
    for word in words[1:]:
        if word.lower() in SNIPPET_KINDS and kind is None:
            kind = SNIPPET_KINDS[word.lower()]
        elif "=" in word:
            key, _, value = word.partition("=")
            options[key] = value
        elif kind is None:
            return language, "example", {}, None  # some other fence annotation: an example, run with defaults
    known = FENCE_OPTIONS if kind else EXAMPLE_OPTIONS
    unknown = sorted(set(options) - known)
    error = f"unknown fence option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}" if unknown else None
    return language, kind or "example", options, error


def _names(value: str) -> tuple[str, ...]:
    """A fence option's comma-separated list (``expect=a,b``)."""
    return tuple(r.strip() for r in value.split(",") if r.strip())


def _block(rule_id: str, kind: str, index: int, language: str, tok: Any, line: int, rel: str, options: dict[str, str],
           seam: str | None) -> Snippet:
    return Snippet(rule_id=rule_id, kind=kind, index=index, language=language, code=tok.content,  # type: ignore[arg-type]
                   location=Location(rel, line, tok.map[1]), code_line=line + 1, seam=seam, title=options.get("title", ""),
                   promise=options.get("promise", ""), needs=_names(options.get("needs", "")), norun=options.get("norun", ""))


def _heading_text(tokens: list, index: int) -> str:
    return tokens[index + 1].content.strip() if index + 1 < len(tokens) else ""


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _content_dir(path: Path) -> Path:
    """The content folder a rule file sits in (the parent of its ``rules/``), resolved."""
    return next((p.parent for p in path.parents if p.name == RULES_DIR), path.parent).resolve()


def _check_links(tok: Any, env: dict, path: Path, content: Path, sink: _Sink) -> None:
    """HB042: a relative link in a rule must name a file under content/ that exists
    (the site build would fail on it later, without the line)."""
    line = tok.map[0] + 1
    for child in _inline_links(tok, env):
        if child.type in ("softbreak", "hardbreak"):
            line += 1
        href = str(child.attrGet("href") or child.attrGet("src") or "") if child.type in ("link_open", "image") else ""
        target = unquote(href.split("#", 1)[0].split("?", 1)[0])
        if not target or _SCHEME.match(href) or href.startswith("/"):
            continue
        resolved = (path.parent / target).resolve()
        if not resolved.is_relative_to(content):
            sink.add(line, "HB042", f"link {href!r} leaves content/, so the site cannot serve it",
                     "link a page under content/, or use a full https:// address")
        elif not resolved.exists():
            sink.add(line, "HB042", f"link {href!r} points to a file that does not exist",
                     "fix the path; it is relative to this file, e.g. ../security/path-containment.md")


def parse_rule_file(path: Path, rel: str) -> tuple[Rule | None, list[Diagnostic]]:
    """Parse one rule file; return the rule (None if unusable) and its diagnostics."""
    sink = _Sink(rel)
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        sink.add(raw[: exc.start].count(b"\n") + 1, "HB001", f"file is not UTF-8 ({exc.reason} at byte {exc.start})", "save the file as UTF-8")
        return None, sink.items
    for line, asks in placeholders(text):
        sink.items.append(placeholder_diagnostic(rel, line, asks))
    env: dict = {}
    tokens = _markdown().parse(text, env)
    fm = next((t for t in tokens if t.type == "front_matter"), None)
    if fm is None or fm.map is None or fm.map[0] != 0:
        sink.add(1, "HB002", "rule file has no YAML front matter", "start the file with a --- block holding id, title, scope, ...")
        return None, sink.items
    fm_line = fm.map[0] + 2  # first line inside the opening ---
    data, key_lines = _load_front_matter(fm.content, fm_line, sink)
    if data is None:
        return None, sink.items
    _check_fields(data, key_lines, fm_line, sink)
    body_line = fm.map[1] + 1
    snippets: list[Snippet] = []
    sections: list[str] = []
    counts = {"wrong": 0, "correct": 0}
    examples: list[Snippet] = []
    rule_id = str(data.get("id", "?"))
    spec_cited_at = 0
    content = _content_dir(path)
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.tag == "h2":
            sections.append(_heading_text(tokens, i))
        if tok.type == "inline" and tok.map is not None:
            _check_links(tok, env, path, content, sink)
            if sections and sections[-1] == "References" and not spec_cited_at and cites_spec_without_revision(tok.content):
                spec_cited_at = tok.map[0] + 1
        if tok.type != "fence" or tok.map is None:
            continue
        language, kind, options, error = _parse_fence_info(tok.info)
        line = tok.map[0] + 1
        if error:
            sink.add(line, "HB035", error, 'write e.g. ```python wrong seam=resolve_path title="prefix check"')
        if kind is None:
            continue  # the fence's info string could not be read: HB035 says so
        if kind == "example":
            examples.append(_block(rule_id, "example", len(examples) + 1, language, tok, line, rel, options, None))
            continue
        counts[kind] += 1
        if options.get("same-as") and tok.content.strip():
            sink.add(line, "HB044", f"a block with same-as={options['same-as']} takes its code from there, but this fence holds code",
                     "leave the fence empty: the one source is the block it names")
        snippets.append(Snippet(
            rule_id=rule_id,
            kind=kind,  # type: ignore[arg-type]
            index=counts[kind],
            language=language,
            code=tok.content,
            location=Location(rel, line, tok.map[1]),
            code_line=line + 1,
            seam=(options.get("seam") or data.get("seam") or None) if language == "python" else None,
            title=options.get("title", ""),
            expect=_names(options.get("expect", "")),
            raises=_names(options.get("raises", "")),
            promise=options.get("promise", ""),
            needs=_names(options.get("needs", "")),
            norun=options.get("norun", ""),
            same_as=options.get("same-as", ""),
        ))
    if spec_cited_at and not data.get("spec"):
        sink.add(spec_cited_at, "HB014", "a protocol rule (its References cite the MCP specification) names no "
                 "revision: no `spec:`, none in the citation",
                 "add `spec: REVISION page#section` to the front matter, e.g. spec: 2025-11-25 basic/transports#stdio")
    if sink.items and any(d.code in {"HB011", "HB012"} and "'id'" in d.message for d in sink.items):
        return None, sink.items
    qualifiers = tuple(q for q in data.get("qualifiers") or () if isinstance(q, dict))
    rule = Rule(
        id=rule_id,
        title=str(data.get("title", "")),
        scope=str(data.get("scope", "")),
        severity=str(data.get("severity", "")),
        gate=str(data.get("gate", "")),
        check=str(data.get("check", "")),
        location=Location(rel, 1),
        body=text.split("\n", fm.map[1])[-1] if fm.map[1] else text,
        body_line=body_line,
        stack=str(data.get("stack") or ""),
        basis=str(data.get("basis") or ""),
        threats=tuple(str(t) for t in data.get("threats") or () if isinstance(data.get("threats"), list)),
        qualifiers=qualifiers,
        probe=str(data.get("probe") or ""),
        seam=str(data.get("seam") or ""),
        spec=str(data.get("spec") or ""),
        since=str(data.get("since") or ""),
        summary=str(data.get("summary") or ""),
        fix=" ".join(str(data.get("fix") or "").split()),
        related=tuple(data.get("related") or ()),
        changelog=tuple(c for c in data.get("changelog") or () if isinstance(c, dict)) if isinstance(data.get("changelog"), list) else (),
        snippets=tuple(snippets),
        examples=tuple(examples),
        quotes=tuple(q for q in data.get("quote") or () if isinstance(q, dict)) if isinstance(data.get("quote"), list) else (),
        attack=str(data.get("attack") or ""),
        clauses=tuple(c for c in data.get("clauses") or () if isinstance(c, dict)) if isinstance(data.get("clauses"), list) else (),
        sections=tuple(sections),
        field_lines=tuple(key_lines.items()),
    )
    return rule, sink.items


def _load_handbook(root: Path, content: Path) -> tuple[str, tuple[Gate, ...], tuple[dict, ...], list[Diagnostic], str]:
    path = content / HANDBOOK_FILE
    rel = path.relative_to(root).as_posix()
    sink = _Sink(rel)
    if not path.is_file():
        sink.add(1, "HB005", f"{HANDBOOK_FILE} is missing", "it declares the doctrine version and the gates")
        return "0.0.0", (), (), sink.items, ""
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=YAML_LOADER) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        mark = getattr(exc, "problem_mark", None)
        sink.add(mark.line + 1 if mark else 1, "HB003", f"{HANDBOOK_FILE} is not valid YAML: {exc}")
        return "0.0.0", (), (), sink.items, ""
    lines = _key_lines(path.read_text(encoding="utf-8"), 1)
    gates = []
    for order, g in enumerate(data.get("gates") or (), start=1):
        if not isinstance(g, dict) or not g.get("key") or not g.get("title"):
            sink.add(lines.get("gates", 1), "HB006", f"gate #{order} needs key and title", "write `- {key: transport, title: Transport}`")
            continue
        gates.append(Gate(key=str(g["key"]), title=str(g["title"]), order=order, summary=str(g.get("summary", ""))))
    version = str(data.get("version", ""))
    if not version:
        sink.add(1, "HB006", f"{HANDBOOK_FILE} has no version", "add `version: 'X.Y.Z'`")
    retired = _retired_entries(path.read_text(encoding="utf-8"), data.get("retired"), lines.get("retired", 1), sink)
    site = str(data.get("site") or "")
    if site and not re.fullmatch(r"https://[^\s/]+(/[^\s]*)?/", site):
        sink.add(lines.get("site", 1), "HB006", f"`site: {site}` is not an https URL ending in /",
                 "write the published handbook's root, such as `site: https://example.org/handbook/`")
        site = ""
    return version or "0.0.0", tuple(gates), retired, sink.items, site


def _retired_entries(text: str, raw: Any, key_line: int, sink: _Sink) -> tuple[dict, ...]:
    """The ``retired:`` registry, each entry with the ``line`` it starts on in handbook.yml (HB023)."""
    if raw is None or raw == []:
        return ()
    if not isinstance(raw, list):
        sink.add(key_line, "HB023", "`retired:` must be a list of entries",
                 "write `retired: []` or one `- {id: ..., retired_in: ..., replaced_by: ...}` per line")
        return ()
    node = yaml.compose(text, Loader=YAML_LOADER)
    pairs = node.value if node is not None else []
    items: list[yaml.Node] = next((v.value for k, v in pairs if k.value == "retired" and isinstance(v, yaml.SequenceNode)), [])
    entries = []
    for index, item in enumerate(raw):
        line = items[index].start_mark.line + 1 if index < len(items) else key_line
        if not isinstance(item, dict):
            sink.add(line, "HB023", f"retired entry #{index + 1} is not a mapping",
                     "write `- {id: SEC-004, retired_in: \"0.3.0\", replaced_by: SEC-009}`")
            continue
        for problem, hint in retirement_problems(item):
            sink.add(line, "HB023", f"retired entry {item.get('id', f'#{index + 1}')}: {problem}", hint)
        entries.append({**item, "line": line})
    return tuple(entries)


def block_ref(snippet: Snippet) -> str:
    """How a ``same-as=`` option names a block: ``SEC-021:correct1``."""
    return f"{snippet.rule_id}:{snippet.kind}{snippet.index}"


def shared_source(blocks: dict[str, Snippet], snippet: Snippet) -> Snippet | str:
    """The block whose code a ``same-as=`` block shows and proves, or why there is none (``check`` says it: HB039)."""
    source = blocks.get(snippet.same_as)
    if source is None:
        return f"same-as={snippet.same_as} names no WRONG or CORRECT block (write RULE-ID:correctN or RULE-ID:wrongN)"
    if source.same_as:
        return f"same-as={snippet.same_as} names a block that is itself same-as={source.same_as}: name that one"
    if source.language != snippet.language:
        return f"same-as={snippet.same_as} names a {source.language} block, and this one is {snippet.language}"
    return source


def _with_shared_code(rules: list[Rule]) -> list[Rule]:
    """Each ``same-as=`` block given the code of the block it names, so the site shows it and the proof proves it
    from one source; a reference that resolves to nothing leaves the block empty (``check`` reports it)."""
    blocks = {block_ref(s): s for r in rules for s in r.snippets}
    out = []
    for rule in rules:
        shared = [s for s in rule.snippets if s.same_as]
        if not shared:
            out.append(rule)
            continue
        filled = {s.name: replace(s, code=source.code) for s in shared
                  if isinstance(source := shared_source(blocks, s), Snippet)}
        out.append(replace(rule, snippets=tuple(filled.get(s.name, s) for s in rule.snippets)))
    return out


def parse_content(root: Path, *, content_dir: str = "content") -> Corpus:
    """Parse every rule under ``root/content/rules`` plus ``handbook.yml``; no linting."""
    root = root.resolve()
    content = root / content_dir
    version, gates, retired, diagnostics, site = _load_handbook(root, content)
    rules: list[Rule] = []
    for path in sorted((content / RULES_DIR).rglob("*.md")):
        rule, found = parse_rule_file(path, path.relative_to(root).as_posix())
        diagnostics.extend(found)
        if rule is not None:
            rules.append(rule)
    rules = _with_shared_code(rules)
    order = {g.key: g.order for g in gates}
    rules.sort(key=lambda r: (order.get(r.gate, len(order) + 1), r.id, r.path))
    return Corpus(root=root, version=version, rules=tuple(rules), gates=gates, diagnostics=tuple(diagnostics), retired=retired,
                  site=site)
