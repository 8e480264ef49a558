"""The doctrine as it was: load the corpus at a git ref, and compare two corpora.

Used by ``diff`` (what a pull request changes) and by ``report`` (what changed
since the doctrine version a worksheet was filled against).
"""

from __future__ import annotations

import io
import json
import re
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from . import git
from .model import Corpus, Diagnostic, Location, Rule
from .parse import RULES_DIR, parse_content, parse_rule_file

COMPARED_FIELDS = (
    "title", "scope", "stack", "basis", "threats", "severity", "gate", "check", "probe", "seam", "spec", "summary", "qualifiers",
    "related", "since",
)


class HistoryError(Exception):
    """A git ref or version that cannot be read."""


def _git(root: Path, *args: str) -> bytes:
    try:
        return git.read(root, *args)
    except git.GitError as exc:
        raise HistoryError(str(exc)) from exc


def load_corpus_at(root: Path, ref: str, *, content_dir: str = "content") -> Corpus:
    """Parse ``content/`` as it is at git ``ref`` (a commit, branch or tag)."""
    data = _git(root, "archive", "--format=tar", ref, "--", content_dir)
    with tempfile.TemporaryDirectory(prefix="hb-history-") as tmp:
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(tmp, filter="data")
        corpus = parse_content(Path(tmp), content_dir=content_dir)
    return corpus


def _evidence_at(root: Path, ref: str | None) -> dict[str, dict]:
    """The recorded proofs at git ``ref`` (None: the working tree); empty when there are none."""
    try:
        raw = (root / "snippets" / "evidence.json").read_bytes() if ref is None else _git(root, "show", f"{ref}:snippets/evidence.json")
        entries = json.loads(raw).get("snippets")
    except (OSError, ValueError, HistoryError, AttributeError):
        return {}
    return {k: v for k, v in entries.items() if isinstance(v, dict)} if isinstance(entries, dict) else {}


def proof_changes(root: Path, base: str, head: str | None) -> dict[str, tuple[str, ...]]:
    """Per rule id, what changed in how it is proved: its probe's module, and what its recorded proofs say."""
    old, new = _evidence_at(root, base), _evidence_at(root, head)
    found: dict[str, list[str]] = {}
    try:
        changed_files = set(_git(root, "diff", "--name-only", base, *([head] if head else []), "--",
                                 "tools/mcp_handbook/probes").decode().split())
    except HistoryError:
        changed_files = set()
    for name in sorted(set(old) | set(new)):
        rule_id, block = name.split(".", 1)
        before, after = old.get(name, {}), new.get(name, {})
        probe_file = str(after.get("probe_file", ""))
        if probe_file and f"tools/mcp_handbook/{probe_file}" in changed_files:
            found.setdefault(rule_id, []).append(f"probe changed ({probe_file})")
        if before and after and (before.get("ok"), before.get("reason")) != (after.get("ok"), after.get("reason")):
            was = f"{'proved' if before.get('ok') else 'not proved'}{', ' + before['reason'] if before.get('reason') else ''}"
            now = f"{'proved' if after.get('ok') else 'not proved'}{', ' + after['reason'] if after.get('reason') else ''}"
            found.setdefault(rule_id, []).append(f"{block} proof: {was} -> {now}")
    return {k: tuple(dict.fromkeys(v)) for k, v in found.items()}


def commit_of_version(root: Path, version: str, *, content_dir: str = "content") -> str | None:
    """The newest commit whose ``handbook.yml`` declares ``version``, or None."""
    try:
        out = _git(root, "log", "--format=%H", "-G", f"version: *[\"']?{version}[\"']?", "--", f"{content_dir}/handbook.yml")
    except HistoryError:
        return None
    commits = out.decode().split()
    return commits[0] if commits else None


@dataclass(frozen=True, slots=True)
class RuleChange:
    """How one rule differs between two corpora."""

    id: str
    fields: tuple[tuple[str, str, str], ...] = ()
    """(field, old value, new value) for each front-matter field that changed."""
    code_changed: bool = False
    """A WRONG or CORRECT block's code changed."""
    body_changed: bool = False
    """The prose changed."""
    blocks: tuple[str, ...] = ()
    """What happened to the blocks, e.g. ``correct1 changed``, ``wrong2 added``."""

    def field(self, name: str) -> tuple[str, str] | None:
        return next(((old, new) for f, old, new in self.fields if f == name), None)


@dataclass(frozen=True, slots=True)
class Changes:
    """Rules added, changed and retired from one corpus to another."""

    old_version: str
    new_version: str
    added: tuple[Rule, ...] = ()
    changed: tuple[RuleChange, ...] = ()
    removed: tuple[Rule, ...] = ()
    retired: tuple[dict, ...] = field(default=())

    @property
    def empty(self) -> bool:
        return not (self.added or self.changed or self.removed or self.retired)


def _text(value: object) -> str:
    if value in (None, "", ()):
        return ""
    if isinstance(value, tuple):
        return "; ".join(_text(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {v}" for k, v in value.items())
    return str(value)


def _block_changes(old: Rule, new: Rule) -> tuple[str, ...]:
    before = {s.name.split(".", 1)[1]: s.code for s in old.snippets}
    after = {s.name.split(".", 1)[1]: s.code for s in new.snippets}
    return tuple(
        f"{name} {'added' if name not in before else 'removed' if name not in after else 'changed'}"
        for name in sorted(set(before) | set(after))
        if before.get(name) != after.get(name)
    )


def prose(rule: Rule) -> str:
    """The rule's body without its WRONG/CORRECT blocks: a code-only change leaves it as it is."""
    lines = rule.body.split("\n")
    for s in rule.snippets:
        first, last = s.location.line - rule.body_line, (s.location.end_line or s.location.line) - rule.body_line
        lines[max(first, 0): last + 1] = [""] * (last + 1 - max(first, 0))
    return "\n".join(line for line in lines if line.strip())


def compare_rules(old: Rule, new: Rule) -> RuleChange | None:
    fields = tuple(
        (name, _text(getattr(old, name)), _text(getattr(new, name)))
        for name in COMPARED_FIELDS
        if getattr(old, name) != getattr(new, name)
    )
    blocks = _block_changes(old, new)
    body_changed = prose(old) != prose(new)
    if not (fields or blocks or body_changed):
        return None
    return RuleChange(new.id, fields, bool(blocks), body_changed, blocks)


def diff_corpora(old: Corpus, new: Corpus) -> Changes:
    old_rules = {r.id: r for r in old.rules}
    new_rules = {r.id: r for r in new.rules}
    old_retired = {str(r.get("id")) for r in old.retired}
    return Changes(
        old_version=old.version,
        new_version=new.version,
        added=tuple(new_rules[i] for i in sorted(set(new_rules) - set(old_rules))),
        changed=tuple(c for i in sorted(set(old_rules) & set(new_rules)) if (c := compare_rules(old_rules[i], new_rules[i]))),
        removed=tuple(old_rules[i] for i in sorted(set(old_rules) - set(new_rules))),
        retired=tuple(r for r in new.retired if str(r.get("id")) not in old_retired),
    )


def deleted_rule_ids(root: Path, *, content_dir: str = "content") -> dict[str, str]:
    """Every id a rule file deleted anywhere in the history of HEAD had: id -> the deleting commit.

    Cheap: one ``git log`` for the deletions and one ``git cat-file --batch`` for
    the files as they were just before; each is read by the one rule parser.
    """
    log = _git(root, "log", "--diff-filter=D", "--no-renames", "--relative", "--name-only", "--format=>%H", "--", f"{content_dir}/{RULES_DIR}")
    wanted, commit = [], ""
    for line in log.decode().splitlines():
        if line.startswith(">"):
            commit = line[1:]
        elif line.endswith(".md"):
            wanted.append((commit, line))
    if not wanted:
        return {}
    batch = "".join(f"{c}^:./{p}\n" for c, p in wanted).encode()
    out = git.run(root, "cat-file", "--batch", stdin=batch).stdout
    found: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="hb-deleted-") as tmp:
        for (commit, path), blob in zip(wanted, _batch_blobs(out)):
            copy = Path(tmp) / "rules" / "x.md"
            copy.parent.mkdir(exist_ok=True)
            copy.write_bytes(blob)
            rule, _ = parse_rule_file(copy, path)
            if rule is not None:
                found.setdefault(rule.id, commit[:12])
    return found


def _batch_blobs(out: bytes) -> list[bytes]:
    """Split ``git cat-file --batch`` output into contents (empty for a missing object)."""
    blobs, at = [], 0
    while at < len(out):
        header_end = out.index(b"\n", at)
        header = out[at:header_end].split()
        if len(header) < 3:  # "<name> missing"
            blobs.append(b"")
            at = header_end + 1
            continue
        size = int(header[2])
        blobs.append(out[header_end + 1 : header_end + 1 + size])
        at = header_end + 1 + size + 1
    return blobs


def _retired_line(corpus: Corpus, content_dir: str) -> int:
    """The line of ``retired:`` in handbook.yml, where a missing entry belongs."""
    path = corpus.root / content_dir / "handbook.yml"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return 1
    match = re.search(r"^retired:", text, re.M)
    return text[: match.start()].count("\n") + 1 if match else 1


def unretired_removals(corpus: Corpus, *, base: str | None = None, content_dir: str = "content") -> tuple[Diagnostic, ...]:
    """HB024: ids that existed at ``base`` (default HEAD) or in any deleted rule
    file of the history, and are gone now without an entry in ``retired:``.

    Outside a git repository, or with no commit yet, there is no history and
    nothing to report; an explicit ``base`` that git cannot read raises HistoryError.
    """
    try:
        old = load_corpus_at(corpus.root, base or "HEAD", content_dir=content_dir)
        before = {r.id: r.path for r in old.rules}
        deleted = deleted_rule_ids(corpus.root, content_dir=content_dir)
    except HistoryError:
        if base:
            raise
        return ()
    present = {r.id for r in corpus.rules} | {str(e.get("id")) for e in corpus.retired}
    present |= {i for i, p in before.items() if p in corpus.unparsed_paths()}
    where = {**{i: f"deleted in {c}" for i, c in deleted.items()}, **{i: f"{p} at {base or 'HEAD'}" for i, p in before.items()}}
    path, line = f"{content_dir}/handbook.yml", _retired_line(corpus, content_dir)
    major = old.version.split(".", 1)[0]
    retired_in = f"{int(major) + 1}.0.0" if major.isdigit() else "X.Y.Z"  # a retirement is a major change
    return tuple(
        Diagnostic(
            Location(path, line), "HB024",
            f"rule {rule_id} ({where[rule_id]}) is gone but not retired; ids are never reused",
            f"restore the rule, or add `- {{id: {rule_id}, retired_in: \"{retired_in}\", replaced_by: NEW-ID}}` under `retired:`",
        )
        for rule_id in sorted(set(where) - present)
    )
