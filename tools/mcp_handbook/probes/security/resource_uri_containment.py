"""SEC-017: ``resources/read`` never serves a file outside the served root, nor a URI of a scheme it does not serve.

A resource URI is untrusted input, like a tool's path argument, and it has two more ways in: percent-encoding
(``%2e%2e`` is ``..`` once decoded, so a check made before decoding sees nothing) and the scheme. The probe
plants a marker outside the root (a sibling folder sharing the root's name as a prefix, a file beside the root,
a symlink inside the root pointing out), finds the server's URI for a file it planted inside, and reads URIs
built on that base that climb out; none may be served, and no answer may show the marker. A URI of a scheme
nobody serves must not be read as a file either, and the inside file must still be served.

A server may serve only some kinds of file (Markdown notes, workbooks). The probe plants files of the kinds the
server already lists or its templates name (:mod:`._file_kinds`), plain text last, and aims the escapes at files
of the kind it found served. A listed file the server will not read is *not checked*, unless the refusal is
the one the escapes get: then it treats the inside as outside.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from urllib.parse import quote

from ..registry import probe
from ..support import Finding, Target, WireSession, WireTimeout, compact, failed, not_applicable, passed, served_root
from ._common import refusal_words
from ._file_kinds import FileKind, kinds_listed
from ._resources import contents_of, find_planted, list_all, read, resources_session

INSIDE_TEXT = "hb-inside-ok"


def _plant(root: Path, scratch: Path, kinds: list[FileKind]) -> tuple[str, dict[str, dict[str, str]], list[Path]]:
    """The marker, the planted names of each kind, by suffix (inside file, link, sibling secret, outside file),
    and what was made (to remove)."""
    own = root.parent == scratch
    marker = "hb-outside-marker-7f3a"  # fixed: recorded evidence must be the same bytes on every run
    tag = "" if own else f"hb-audit-{secrets.token_hex(4)}-"
    sibling = scratch / (f"{root.name}-evil" if own else "hb-evil")
    made: list[Path] = []
    if not sibling.exists():
        sibling.mkdir()
        made.append(sibling)
    link = root / f"{tag}link_out"
    names: dict[str, dict[str, str]] = {}
    for kind in kinds:
        secret, outside, inside = sibling / f"secret{kind.suffix}", scratch / f"hb-outside{kind.suffix}", root / f"{tag}inside{kind.suffix}"
        kind.write(secret, marker)
        made.insert(0, secret)
        kind.write(outside, marker)
        made.append(outside)
        kind.write(inside, INSIDE_TEXT)
        made.append(inside)
        names[kind.suffix] = {"inside": inside.name, "link": link.name, "secret": os.path.relpath(secret, root),
                              "outside": str(outside), "sibling_secret": str(secret), "file": secret.name}
    if not link.is_symlink():
        os.symlink(sibling, link)
        made.append(link)
    return marker, names, made


def _remove(made: list[Path]) -> None:
    for path in made:
        try:
            path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()
        except OSError:
            pass


def _attacks(base: str, names: dict[str, str]) -> list[tuple[str, str]]:
    """(URI, what it tries), each of which must be refused."""
    up = quote(names["secret"])  # ../ws-evil/secret.txt
    return [
        (base + up, "dot-dot traversal"),
        (base + up.replace("..", "%2e%2e"), "percent-encoded dots"),
        (base + up.replace("/", "%2F"), "percent-encoded slashes"),
        (base + quote(names["link"]) + "/" + quote(names["file"]), "a symlink inside the root pointing out"),
        ("file://" + quote(names["outside"]), "an absolute file URI outside the root"),
        ("file://" + quote(names["sibling_secret"]), "an absolute URI in the sibling sharing the root's prefix"),
        (base + "../" * 12 + "etc/passwd", "climbing past the file-system root"),
    ]


@probe("resource_uri_containment", "resources/read refuses URIs outside the root and schemes it does not serve", reasons={
    "served_outside_root": "a resources/read of a URI outside the served root (dot-dot, percent-encoded dots or "
                           "slashes, a symlink out, an absolute path) returned contents or showed the outside marker",
    "served_other_scheme": "a URI of a scheme the server does not serve was read as a file inside the root",
    "refuses_inside_uris": "the server refuses the URI of a file inside the root that it lists itself, in the words "
                           "it refuses escapes with",
    "read_unanswered": "an escape attempt was neither refused nor answered within the timeout",
}, shares_session=True)
def resource_uri_containment(target: Target) -> Finding:
    """Read escaping URIs built on the server's own URI for a planted file; none may be served."""
    session = resources_session(target)
    root = served_root(target)
    scratch = target.workspace.parent if root == target.workspace else target.workspace
    if scratch.resolve().is_relative_to(root.resolve()):
        return not_applicable(f"not checked: the probe's scratch folder {scratch} lies inside the served root "
                              f"{root}, so no file outside the root can be planted")
    kinds = _kinds_served(session, target)
    marker, by_suffix, made = _plant(root, scratch, kinds)
    try:
        planted = [(by_suffix[k.suffix]["inside"], INSIDE_TEXT.encode()) for k in kinds]
        found, base, evidence = find_planted(session, target, root, planted)
        if base is None:
            return not_applicable("not checked: the server serves no file: resource the probe could plant (the "
                                  "planted file is not listed and no file: template reaches it)", *evidence)
        names = next(n for n in by_suffix.values() if n["inside"] == found)
        inside_uri = base + quote(names["inside"])
        inside = read(session, inside_uri, timeout=target.timeout)
        shown_inside = f"{inside_uri} -> {compact(inside, 160)}"
        served, shown, unanswered, refusals = [], [shown_inside], [], set()
        for uri, what in _attacks(base, names):
            try:
                answer = read(session, uri, timeout=target.timeout)
            except WireTimeout as exc:
                unanswered.append(f"{uri} ({what}): no answer ({exc})")
                continue
            leaked = marker in compact(answer, 100_000) or bool(contents_of(answer))
            line = f"{uri} ({what}) -> {'SERVED' if leaked else 'refused'}: {compact(answer, 160)}"
            shown.append(line)
            if leaked:
                served.append(line)
            else:
                refusals.add(refusal_words(answer, uri))
        if served:
            return failed("served_outside_root", f"{len(served)} URI(s) outside the root were served", *served[:6])
        if not any(INSIDE_TEXT in str(c.get("text", "")) or c.get("blob") for c in contents_of(inside)):
            if refusal_words(inside, inside_uri) in refusals:
                return failed("refuses_inside_uris", "the server refuses a file inside the root that it lists itself, "
                              "in the words it refuses escapes with: containment that rejects everything is not "
                              "containment", shown_inside, *evidence, *shown[1:4])
            return not_applicable(f"not checked: the server names {names['inside']} but does not serve it (it may "
                                  "serve only other kinds of file), so its refusals of the escapes prove nothing",
                                  shown_inside, *evidence, *shown[1:4])
        other = "hb-unserved" + base[len("file"):] + quote(names["inside"])
        try:
            answer = read(session, other, timeout=target.timeout)
        except WireTimeout as exc:
            unanswered.append(f"{other}: no answer ({exc})")
        else:
            line = f"{other} (a scheme nobody serves) -> {compact(answer, 160)}"
            shown.append(line)
            if INSIDE_TEXT in compact(answer, 100_000):
                return failed("served_other_scheme", "a URI of a scheme the server does not serve was read as a "
                              "file inside the root", line)
        if unanswered:
            return failed("read_unanswered", f"{len(unanswered)} escape attempt(s) got no answer: neither refused "
                          "nor served", *unanswered[:6])
        return passed(f"{len(shown) - 1} escaping or foreign URIs refused; the inside file is served", *shown[:10])
    finally:
        _remove(made)


def _kinds_served(session: WireSession, target: Target) -> list[FileKind]:
    """The kinds of file the server already lists, or its templates name, plain text last (at most three: each
    is planted inside and outside the root)."""
    listed = list_all(session, target, "resources/list", "resources")
    templates = list_all(session, target, "resources/templates/list", "resourceTemplates")
    uris = [str(entry.get("uri")) for entry in listed if isinstance(entry.get("uri"), str)]
    mimes = [str(entry.get("mimeType") or "") + " " + str(entry.get("uriTemplate") or "") for entry in templates]
    kinds = kinds_listed(uris, mimes)
    return [*kinds[:2], kinds[-1]] if len(kinds) > 3 else kinds
