"""``mcp-handbook publish``: deploy this doctrine version's site to a ``gh-pages`` branch with mike.

Each doctrine version keeps its own site in a folder named by its version (``1.3.0/``), so a worksheet stamped
with an older version still has pages to point at; ``latest/`` is an alias of the newest version, the root of
the branch sends readers to ``latest/``, and ``versions.json`` feeds Material's version selector. The site is
built by the handbook's own strict build (with the downloads), into a temporary folder that mike commits; no
network is needed unless ``--push`` names a remote that is elsewhere.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from . import git
from .command import EXIT_OK, UsageError, handbook_root

LATEST = "latest"


@dataclass(frozen=True)
class Published:
    version: str
    aliases: tuple[str, ...]
    """``("latest",)`` when this version is the newest on the branch, else nothing (an older version redeployed)."""
    changed: bool
    """False when the branch already held exactly this site."""
    pushed: bool


@contextlib.contextmanager
def _inside(folder: Path) -> Iterator[None]:
    """mike runs git in the current directory: run it in the handbook's repository, then come back."""
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def _git(*args: str) -> subprocess.CompletedProcess[bytes]:
    return git.run(None, *args, timeout=120)


def _fetch_published(remote: str, branch: str) -> None:
    """Bring the remote's ``branch`` into ``remote/branch`` (when it has one), so this deploy adds to what is
    published instead of replacing it; mike then moves the local branch up to it, or refuses if they diverged."""
    from mike import git_utils

    found = _git("ls-remote", "--exit-code", remote, f"refs/heads/{branch}")
    if found.returncode == 2:  # the remote has no such branch yet: the first publication
        return
    if found.returncode != 0:
        raise UsageError(f"cannot read remote {remote!r}: {found.stderr.decode(errors='replace').strip()}")
    fetched = _git("fetch", "--quiet", remote, f"+refs/heads/{branch}:refs/remotes/{remote}/{branch}")
    if fetched.returncode != 0:
        raise UsageError(f"cannot fetch {remote}/{branch}: {fetched.stderr.decode(errors='replace').strip()}")
    try:
        git_utils.update_from_upstream(remote, branch)
    except (git_utils.GitBranchDiverged, git_utils.GitRevUnrelated) as exc:
        raise UsageError(f"{exc} (the local {branch!r} branch holds deploys the remote does not: delete it or push it first)") from None


def is_newest(version: str, deployed: list[str]) -> bool:
    """Whether ``version`` is at least every version already on the branch (mike's own version order)."""
    from verspec.loose import LooseVersion

    return all(LooseVersion(version) >= LooseVersion(other) for other in deployed)


def deployed_versions(branch: str) -> list[str]:
    from mike import commands

    return [str(info.version) for info in commands.list_versions(branch)]


def publish(root: Path, *, branch: str = "gh-pages", remote: str = "origin", push: bool = False) -> Published:
    """Build this version's site and commit it to ``branch`` under ``<version>/``; move ``latest`` to it and make
    ``latest`` the default when it is the newest version there; push when asked."""
    from mike import commands, git_utils

    from . import load_corpus
    from .site_build import build_site

    corpus = load_corpus(root)
    with _inside(root):
        if _git("rev-parse", "--verify", "--quiet", "HEAD").returncode != 0:
            raise UsageError(f"{root} is not a git repository with a commit: mike records which commit it deployed")
        if push:
            _fetch_published(remote, branch)
        newest = is_newest(corpus.version, deployed_versions(branch))
        aliases = (LATEST,) if newest else ()
        changed = True
        with tempfile.TemporaryDirectory(prefix="hb-publish-") as scratch:
            site_dir = Path(scratch) / "site"
            cfg = {"site_dir": str(site_dir), "use_directory_urls": True}  # all mike reads of the mkdocs config
            try:
                with commands.deploy(cfg, corpus.version, aliases=list(aliases), update_aliases=True, branch=branch):
                    build_site(root, site_dir, versioned=True)
            except git_utils.GitEmptyCommit:
                changed = False
        if newest:
            with contextlib.suppress(git_utils.GitEmptyCommit):  # already the default
                commands.set_default(LATEST, branch=branch)
        if push:
            try:
                git_utils.push_branch(remote, branch)
            except git_utils.GitError as exc:
                raise UsageError(f"cannot push {branch!r} to {remote!r}: {exc}") from None
    return Published(corpus.version, aliases, changed, push)


def cmd_publish(args: argparse.Namespace) -> int:
    done = publish(handbook_root(args), branch=args.branch, remote=args.remote, push=args.push)
    alias = f" as {', '.join(done.aliases)}" if done.aliases else " (an older version: latest stays where it is)"
    state = "deployed" if done.changed else "already deployed, unchanged,"
    where = f", pushed to {args.remote}" if done.pushed else f" (not pushed: `git push {args.remote} {args.branch}` or --push)"
    print(f"doctrine {done.version} {state} to branch {args.branch!r} under {done.version}/{alias}{where}")
    return EXIT_OK


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    p = add("publish", cmd_publish, "deploy this doctrine version's site to the gh-pages branch (mike), latest alias on the newest")
    p.add_argument("--branch", default="gh-pages", help="the branch the published sites live on (default: gh-pages)")
    p.add_argument("--remote", default="origin", help="the remote to fetch it from and push it to (default: origin)")
    p.add_argument("--push", action="store_true", help="fetch the remote's branch first, then push the deploy to it")
