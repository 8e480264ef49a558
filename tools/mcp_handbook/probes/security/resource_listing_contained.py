"""SEC-019: ``resources/list`` names only files inside the served root: it never follows a symlink out of it.

A listing is the first thing a client shows the user and the model, and every name in it invites a read. A
server that walks its root following symlinks lists the files of wherever a link points (a home folder, a
mounted secret store), their names and sizes out before any read is refused. The probe plants a symlink in
the root pointing to a folder beside it that holds a uniquely named file, and reads every page of the
listing; the name must not appear. A file planted in the root must appear, or the server does not list its
files and the rule is not checked.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from ..registry import probe
from ..support import Finding, Target, compact, failed, not_applicable, passed, served_root
from ._resources import list_all, resources_session

OUTSIDE_NAME = "hb-outside-listed.txt"


@probe("resource_listing_contained", "resources/list never follows a symlink out of the root", reasons={
    "lists_outside_root": "resources/list named a file that lies outside the served root (reached through a symlink)",
}, shares_session=True)
def resource_listing_contained(target: Target) -> Finding:
    """Plant a link out of the root and a file inside; list every page; the outside file must not be named."""
    session = resources_session(target, reads=False)
    root = served_root(target)
    scratch = target.workspace.parent if root == target.workspace else target.workspace
    if scratch.resolve().is_relative_to(root.resolve()):
        return not_applicable(f"not checked: the probe's scratch folder {scratch} lies inside the served root "
                              f"{root}, so no folder outside the root can be planted")
    own = root.parent == scratch
    tag = "" if own else f"hb-audit-{secrets.token_hex(4)}-"
    outside_dir = scratch / f"{tag}hb-listing-outside"
    inside, link = root / f"{tag}hb-listed-inside.txt", root / f"{tag}hb-listing-link"
    made: list[Path] = []
    try:
        outside_dir.mkdir(exist_ok=True)
        made.append(outside_dir)
        (outside_dir / OUTSIDE_NAME).write_text("hb-outside\n")
        made.insert(0, outside_dir / OUTSIDE_NAME)
        inside.write_text("hb-inside\n")
        made.append(inside)
        if not link.is_symlink():
            os.symlink(outside_dir, link)
            made.append(link)
        listed = list_all(session, target, "resources/list", "resources")
        names = [f"{entry.get('uri')} {entry.get('name')}" for entry in listed]
        outside = [compact(entry, 160) for entry, text in zip(listed, names) if OUTSIDE_NAME in text]
        if outside:
            return failed("lists_outside_root", f"resources/list named {len(outside)} file(s) outside the root, "
                          f"through the symlink {link.name}", *outside[:4])
        if not any(inside.name in text for text in names):
            return not_applicable(f"not checked: resources/list does not name the file {inside.name} planted in "
                                  f"the root ({len(listed)} resource(s) listed), so it does not list the root's files")
        return passed(f"{len(listed)} resource(s) listed, the planted inside file among them, nothing through the "
                      f"symlink {link.name}", *[compact(entry, 120) for entry in listed[:6]])
    finally:
        for path in made:
            try:
                path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()
            except OSError:
                pass
