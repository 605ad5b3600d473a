"""Small kubernetes/enhancements-shaped git repositories, built by the tests with scripted, dated commits."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


class EnhancementsRepo:
    """`git init` at `root`; `commit({path: text or None}, date=...)` writes (None deletes) and commits on master."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "master")
        self.git("config", "user.name", "Test")
        self.git("config", "user.email", "test@example.com")
        self.git("config", "commit.gpgsign", "false")

    def git(self, *args: str, date: str = "2021-01-01T12:00:00+00:00") -> str:
        env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
        done = subprocess.run(["git", "-C", str(self.root), *args], env=env, capture_output=True, text=True, check=True)
        return done.stdout.strip()

    def commit(self, files: dict[str, str | None], *, date: str, message: str = "change") -> str:
        for path, text in files.items():
            target = self.root / path
            if text is None:
                self.git("rm", "-q", path)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
            self.git("add", path)
        self.git("commit", "-q", "--allow-empty", "-m", message, date=date)
        return self.git("rev-parse", "HEAD")


def kep_yaml(
    number: int | str | None,
    *,
    stage: str = "alpha",
    latest: str = "",
    status: str = "implementable",
    milestones: dict[str, str] | None = None,
    extra: str = "",
) -> str:
    """A kep.yaml as upstream writes it; values are written as given (quote them in the argument if wanted)."""
    lines = ["title: A KEP"]
    if number is not None:
        lines.append(f"kep-number: {number}")
    lines += ["owning-sig: sig-node", f"status: {status}", f"stage: {stage}"]
    if latest:
        lines.append(f"latest-milestone: {latest}")
    if milestones:
        lines.append("milestone:")
        lines += [f"  {key}: {value}" for key, value in milestones.items()]
    if extra:
        lines.append(extra)
    return "\n".join(lines) + "\n"
