"""Upstream-shaped git remotes built by the tests: a work tree that commits and pushes to a bare repository, which
sigtracker fetches over file:// (SIGTRACKER_UPSTREAM_ALLOW_FILE)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


class Remote:
    """`commit({path: text, bytes or None})` writes (None deletes) and pushes master to the bare repository."""

    def __init__(self, root: Path):
        self.work = Path(root) / "work"
        self.bare = Path(root) / "remote.git"
        self.work.mkdir(parents=True)
        self.git("init", "-q", "-b", "master")
        self.git("config", "user.name", "Test")
        self.git("config", "user.email", "test@example.com")
        self.git("config", "commit.gpgsign", "false")
        subprocess.run(["git", "init", "-q", "--bare", "-b", "master", str(self.bare)], check=True)
        self.when = 1_700_000_000

    @property
    def url(self) -> str:
        return f"file://{self.bare}"

    def git(self, *args: str, cwd: Path | None = None) -> str:
        date = f"@{self.when} +0000" if hasattr(self, "when") else "@1700000000 +0000"
        env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
        done = subprocess.run(
            ["git", "-C", str(cwd or self.work), *args], env=env, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    def commit(self, files: dict[str, str | bytes | None], *, message: str = "change", force: bool = False) -> str:
        self.when += 3600
        for path, content in files.items():
            target = self.work / path
            if content is None:
                self.git("rm", "-r", "-q", "--", path)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content)
            self.git("add", "--", path)
        self.git("commit", "-q", "--allow-empty", "-m", message)
        self.git("push", "-q", *(["--force"] if force else []), str(self.bare), "master:master")
        return self.head

    @property
    def head(self) -> str:
        return self.git("rev-parse", "HEAD")

    def reset(self, commit: str) -> None:
        """Move the work tree back (the next commit pushed with force=True rewrites the remote's history)."""
        self.git("reset", "-q", "--hard", commit)
