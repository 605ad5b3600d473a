"""An upstream repository's clone in SIGTRACKER_UPSTREAM_DIR, kept through `core.gitcli` only.

The clone is made with `git init` + `git fetch` (one code path for the first run and the next ones): its config is
the one git writes, never the remote's, and every call runs under the safe runner's rules (no hooks, no program
named by config, no prompt, a time limit, symlinks checked out as plain files). The fetched head is kept as
`refs/remotes/upstream/head`; the working tree is checked out at the commit being imported, on a local `master`,
the branch the KEP history import reads.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from django.conf import settings

from core import gitcli

HEAD_REF = "refs/remotes/upstream/head"
#: Seconds a local git call may take (diff, ls-tree, checkout of a large tree).
LOCAL_TIMEOUT = 300.0


def _sha(text: bytes) -> str:
    sha = text.decode(errors="replace").strip()
    if not gitcli.is_sha(sha):
        raise gitcli.GitError(f"git answered {sha[:80]!r} where a commit was expected")
    return sha


def _stale_locks_remove(git_dir: Path) -> None:
    """Lock files a git killed at its time limit (or with its worker) left behind; without this every later run
    would fail on them. Safe: refreshes hold the advisory lock, so no other git works in this clone."""
    for lock in [*git_dir.glob("*.lock"), *(git_dir / "refs").rglob("*.lock")]:
        if lock.is_file() and not lock.is_symlink():
            lock.unlink()


class Fetched(NamedTuple):
    """The commit a fetch brought, with its committer date."""

    commit: str
    committed_at: datetime


def repository_fetch(*, checkout: Path, url: str) -> Fetched:
    """Fetch the remote's default branch into the clone at `checkout` (made on first use); the commit fetched."""
    allow_file = settings.SIGTRACKER_UPSTREAM_ALLOW_FILE
    if not (checkout / ".git").is_dir():
        checkout.mkdir(parents=True, exist_ok=True)
        gitcli.git(None, "init", "-q", "--template=", "-b", "master", "--", str(checkout), timeout=LOCAL_TIMEOUT)
    _stale_locks_remove(checkout / ".git")
    gitcli.git(
        checkout,
        "fetch",
        "-q",
        "--no-tags",
        "--force",
        "--no-recurse-submodules",
        "--",
        url,
        f"+HEAD:{HEAD_REF}",
        timeout=settings.SIGTRACKER_UPSTREAM_GIT_TIMEOUT,
        allow_file=allow_file,
        # Each fetch's pack is kept as it came, never unpacked into one loose file per object: an hourly fetch of
        # a few commits takes half the time. Git's automatic maintenance gathers the packs when they pile up, in
        # the fetch itself (not detached): nothing works in the clone once the call returns, and the fetch's time
        # limit covers it.
        config=[("fetch.unpackLimit", "1"), ("gc.autoDetach", "false")],
    )
    # One call for the commit and its date (`log` peels the ref to a commit, as `rev-parse ^{commit}` would).
    text = gitcli.git(checkout, "log", "-1", "--no-show-signature", "--format=%H %cI", "--end-of-options", HEAD_REF)
    sha, _, date = text.decode(errors="replace").strip().partition(" ")
    try:
        return Fetched(_sha(sha.encode()), datetime.fromisoformat(date))
    except ValueError as exc:
        raise gitcli.GitError(f"git log answered {date[:80]!r} where a commit date was expected") from exc


def is_ancestor(*, checkout: Path, older: str, newer: str) -> bool:
    """Whether `older` is in `newer`'s history (False too when the clone does not have it at all)."""
    if not (gitcli.is_sha(older) and gitcli.is_sha(newer)):
        return False
    try:
        gitcli.git(checkout, "merge-base", "--is-ancestor", older, newer, timeout=LOCAL_TIMEOUT)
    except gitcli.GitTimeout:
        raise
    except gitcli.GitError:
        return False
    return True


def _paths(output: bytes) -> list[str]:
    return [path.decode("utf-8", "replace") for path in output.split(b"\0") if path]


def changed_paths(*, checkout: Path, since: str, head: str) -> list[str]:
    """Paths added, modified or deleted between two commits (renames as a delete and an add)."""
    return _paths(
        gitcli.git(
            checkout,
            "diff",
            "--name-only",
            "-z",
            "--no-renames",
            "--no-ext-diff",
            "--no-textconv",
            "--end-of-options",
            since,
            head,
            timeout=LOCAL_TIMEOUT,
        )
    )


def all_paths(*, checkout: Path, head: str) -> list[str]:
    return _paths(
        gitcli.git(
            checkout,
            "ls-tree",
            "-r",
            "-z",
            "--name-only",
            "--full-tree",
            "--end-of-options",
            head,
            timeout=LOCAL_TIMEOUT,
        )
    )


def checked_out_paths(*, checkout: Path, folder: str) -> list[str]:
    """The files of the working tree under `folder`, relative to the checkout, from the index (which the working
    tree equals after `repository_checkout`): no walk of the folders. Names are decoded as the file system's
    (`os.fsdecode`), so each is the path `os.walk` would give."""
    output = gitcli.git(checkout, "ls-files", "-z", "--", f"{folder}/", timeout=LOCAL_TIMEOUT)
    return [os.fsdecode(path) for path in output.split(b"\0") if path]


def repository_checkout(*, checkout: Path, commit: str) -> None:
    """The working tree exactly at `commit` (local `master` moved there), nothing left over from earlier runs."""
    gitcli.git(
        checkout, "checkout", "-q", "--force", "--no-recurse-submodules", "-B", "master", commit, timeout=LOCAL_TIMEOUT
    )
    gitcli.git(checkout, "clean", "-q", "-f", "-f", "-d", "-x", timeout=LOCAL_TIMEOUT)
