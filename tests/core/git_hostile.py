"""Git repositories that try to make whoever reads them run something: a config naming programs, signed commits,
hooks. Built by the tests with the real git CLI."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def plain_git(root: Path, *args: str, input: bytes | None = None) -> bytes:
    """git as a careless caller would run it (the repository's config honoured), for building and for controls."""
    env = {**os.environ, "GIT_AUTHOR_DATE": "2021-01-01T12:00:00Z", "GIT_COMMITTER_DATE": "2021-01-01T12:00:00Z"}
    done = subprocess.run(["git", "-C", str(root), *args], input=input, env=env, capture_output=True, check=True)
    return done.stdout


def marker_script(folder: Path, marker: Path, name: str = "evil") -> Path:
    """An executable that, when anything runs it, writes `marker` (and fails, as a broken gpg would)."""
    script = folder / name
    script.write_text(f"#!/bin/sh\necho ran >> {marker}\ncat > /dev/null\nexit 1\n")
    script.chmod(0o755)
    return script


def add_signed_commit(root: Path, *, files: dict[str, str] | None = None, message: str = "signed change") -> str:
    """A commit on master writing `files`, carrying a `gpgsig` header (a signature nobody can check: what matters is
    that a reader honouring log.showSignature would hand it to gpg.program)."""
    for path, text in (files or {}).items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
        plain_git(root, "add", "--", path)
    tree = plain_git(root, "write-tree").decode().strip()
    parent = plain_git(root, "rev-parse", "HEAD").decode().strip()
    body = (
        f"tree {tree}\nparent {parent}\n"
        "author Test <test@example.com> 1609502400 +0000\ncommitter Test <test@example.com> 1609502400 +0000\n"
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n =abcd\n -----END PGP SIGNATURE-----\n"
        f"\n{message}\n"
    )
    sha = plain_git(root, "hash-object", "-t", "commit", "-w", "--stdin", input=body.encode()).decode().strip()
    plain_git(root, "update-ref", "refs/heads/master", sha)
    return sha


def arm_config(root: Path, program: Path, hooks: Path | None = None) -> None:
    """The repository's own .git/config names `program` wherever git could run one on a read."""
    for key, value in [
        ("log.showSignature", "true"),
        ("gpg.program", str(program)),
        ("gpg.openpgp.program", str(program)),
        ("core.pager", str(program)),
        ("core.fsmonitor", str(program)),
        ("diff.external", str(program)),
        ("credential.helper", f"!{program}"),
    ]:
        plain_git(root, "config", key, value)
    if hooks is not None:
        plain_git(root, "config", "core.hooksPath", str(hooks))
