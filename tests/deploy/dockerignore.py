"""`.dockerignore` as the image builders read it (moby's patternmatcher, which docker, podman and buildah share):
patterns are cleaned paths relative to the context; `*` and `?` stay inside one path segment, `**` spans any
number of them; `!` re-includes; the last pattern that matches a path decides; a path is also left out when one of
its parent directories is. No container runtime runs here, so the tests check the context with this instead."""

import posixpath
import re
from pathlib import Path


def _regex(pattern: str) -> re.Pattern:
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                raise ValueError(f".dockerignore: unterminated character class in {pattern!r}")
            body = pattern[i + 1 : end]
            out.append("[" + ("^" + body[1:] if body.startswith("^") else body) + "]")
            i = end + 1
            continue
        elif char == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out) + r"\Z")


def parse(text: str) -> list[tuple[bool, re.Pattern]]:
    """(excludes, regex) per pattern line, in order; comments and blank lines dropped."""
    rules = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        include = line.startswith("!")
        pattern = posixpath.normpath(line.removeprefix("!").strip()).lstrip("/")
        rules.append((not include, _regex(pattern)))
    return rules


def is_excluded(rules: list[tuple[bool, re.Pattern]], path: str) -> bool:
    """Whether the build context leaves out `path` (relative, with forward slashes)."""
    parts = path.split("/")
    candidates = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    excluded = False
    for excludes, regex in rules:
        if any(regex.match(candidate) for candidate in candidates):
            excluded = excludes
    return excluded


def load(root: Path) -> list[tuple[bool, re.Pattern]]:
    return parse((root / ".dockerignore").read_text())
