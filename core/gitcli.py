"""Running the git CLI on repositories that are untrusted input: what a clone's files, config or remote say never
makes git run a program, prompt, page, or read without bound.

Every call made here (see docs/security-git.md for the guarantee in plain words):

- starts git with an environment built from scratch: no inherited `GIT_*` variable (`GIT_DIR`,
  `GIT_CONFIG_PARAMETERS`, `GIT_EXEC_PATH`, ... of whoever started the process), `GIT_CONFIG_NOSYSTEM=1` and
  `GIT_CONFIG_GLOBAL=/dev/null` (no system or user config), no terminal prompt (`GIT_TERMINAL_PROMPT=0`, empty
  askpass programs, ssh in batch mode), no pager, no editor, no replace refs, protocols limited to those allowed
  (`GIT_ALLOW_PROTOCOL`: https and ssh, file only when the caller allows it, never `ext::` or `fd::`);
- overrides with `-c` every key of the repository's own config (`.git/config`, which git always reads) that can
  name a program or a hook on the commands used here (`SAFE_CONFIG`), and passes `--no-pager`;
- reads history with `--no-show-signature` and never asks for a signature check, so no gpg program runs;
- puts `--end-of-options` or `--` before revisions, URLs and paths the caller passes;
- kills the whole process group when the call's time limit passes (`GitTimeout`) or its output grows past the
  caller's bound (`GitOutputTooLarge`);
- reads blobs by asking their sizes first (`cat-file --batch-check`) and streams only those within the limit, one
  at a time (`blobs_read`).

Knows no domain: callers name the repository, the arguments and the limits.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DEFAULT_TIMEOUT",
    "SAFE_CONFIG",
    "BlobRead",
    "GitError",
    "GitOutputTooLarge",
    "GitTimeout",
    "blobs_read",
    "git",
    "git_env",
    "is_sha",
]

#: Seconds a git call may take unless the caller says otherwise (a fetch of kubernetes/enhancements takes ~1 min
#: the first time; callers of network commands pass their own).
DEFAULT_TIMEOUT = 120.0
#: Bytes of output kept by default (the full `git log --raw` of kubernetes/enhancements is ~10 MB).
DEFAULT_MAX_OUTPUT = 256 * 1024 * 1024
#: Bytes of stderr kept for the error message (the tail).
STDERR_TAIL = 16 * 1024
_CHUNK = 64 * 1024

#: Config keys a repository's own `.git/config` could set to run a program or change what is read, each
#: overridden on every call. `credential.helper=` empties the helper list; the gpg programs are harmless `false`
#: although nothing here asks for a signature check; hooks point at /dev/null (no hook runs: checkout's
#: post-checkout, fetch's reference-transaction); `core.symlinks=false` checks symlinks out as small files holding
#: the link text, so no checkout ever makes a link on disk.
SAFE_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.hooksPath", "/dev/null"),
    ("core.fsmonitor", "false"),
    ("core.pager", "cat"),
    ("core.editor", "false"),
    ("core.askPass", ""),
    ("core.sshCommand", "ssh -o BatchMode=yes"),
    ("core.gitProxy", ""),
    ("core.symlinks", "false"),
    ("core.quotePath", "false"),
    ("core.alternateRefsCommand", "false"),
    ("credential.helper", ""),
    ("log.showSignature", "false"),
    ("gpg.program", "false"),
    ("gpg.openpgp.program", "false"),
    ("gpg.x509.program", "false"),
    ("gpg.ssh.program", "false"),
    ("diff.external", ""),
    ("sequence.editor", "false"),
    ("protocol.allow", "never"),
    ("protocol.https.allow", "always"),
    ("protocol.ssh.allow", "always"),
    ("submodule.recurse", "false"),
    ("fetch.recurseSubmodules", "false"),
)

#: Environment variables passed through from the process (network reach and ssh agent); every other one, and
#: every `GIT_*` one, is left out.
_PASSED_ENV = (
    "PATH",
    "HOME",
    "TMPDIR",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "SSH_AUTH_SOCK",
)

_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


class GitError(Exception):
    """A git call that failed; the message names the command and git's last line of error."""


class GitTimeout(GitError):
    """A git call still running when its time limit passed; it was killed."""


class GitOutputTooLarge(GitError):
    """A git call whose output grew past the caller's bound; it was killed."""


def is_sha(text: str) -> bool:
    """Whether `text` is a full object name (SHA-1 or SHA-256), safe to pass where an option could be."""
    return bool(_SHA.fullmatch(text))


def git_env(*, allow_file: bool = False) -> dict[str, str]:
    """The environment every git call gets (see the module docstring)."""
    env = {name: os.environ[name] for name in _PASSED_ENV if name in os.environ}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update(
        {
            "LC_ALL": "C",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": "/dev/null",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_ASKPASS": "",
            "SSH_ASKPASS": "",
            "GIT_SSH_COMMAND": "ssh -o BatchMode=yes",
            "GIT_PAGER": "cat",
            "PAGER": "cat",
            "GIT_EDITOR": "false",
            "GIT_NO_REPLACE_OBJECTS": "1",
            "GIT_OPTIONAL_LOCKS": "0",
            "GIT_PROTOCOL_FROM_USER": "0",
            "GIT_ALLOW_PROTOCOL": "https:ssh" + (":file" if allow_file else ""),
        }
    )
    return env


def _command(
    repo: Path | None, args: Sequence[str], *, allow_file: bool, config: Sequence[tuple[str, str]] = ()
) -> list[str]:
    command = ["git", "--no-pager"]
    if repo is not None:
        command += ["-C", str(repo)]
    # The caller's settings first: the safe ones, given after, win over any of the same key.
    config = (
        *config,
        *SAFE_CONFIG,
        ("protocol.file.allow", "always") if allow_file else ("protocol.file.allow", "never"),
    )
    for key, value in config:
        command += ["-c", f"{key}={value}"]
    return command + list(args)


class _Process:
    """A git process in its own process group, killed whole at its deadline; stderr's tail kept by a thread."""

    def __init__(
        self, command: list[str], *, name: str, timeout: float, allow_file: bool, stdin_lines: Iterable[bytes] | None
    ):
        self.command = command
        self.name = name
        self.timeout = timeout
        self.timed_out = False
        self.stderr_tail = b""
        try:
            self.proc = subprocess.Popen(
                command,
                stdin=subprocess.PIPE if stdin_lines is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=git_env(allow_file=allow_file),
                start_new_session=True,
            )
        except FileNotFoundError as exc:
            raise GitError("the git command is not installed") from exc
        self.timer = threading.Timer(timeout, self._expire)
        self.timer.daemon = True
        self.timer.start()
        self.threads = [threading.Thread(target=self._read_stderr, daemon=True)]
        if stdin_lines is not None:
            self.threads.append(threading.Thread(target=self._write_stdin, args=(stdin_lines,), daemon=True))
        for thread in self.threads:
            thread.start()

    def _expire(self) -> None:
        self.timed_out = True
        self.kill()

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def _read_stderr(self) -> None:
        while chunk := self.proc.stderr.read(_CHUNK):
            self.stderr_tail = (self.stderr_tail + chunk)[-STDERR_TAIL:]

    def _write_stdin(self, lines: Iterable[bytes]) -> None:
        try:
            for line in lines:
                self.proc.stdin.write(line)
            self.proc.stdin.close()
        except (BrokenPipeError, ValueError, OSError):
            pass  # git died or was killed: its exit status says why

    def finish(self, *, check: bool = True) -> int:
        """Wait for the exit; raise GitTimeout / GitError (naming the command) when it failed and `check`."""
        try:
            code = self.proc.wait()
        finally:
            self.timer.cancel()
            for thread in self.threads:
                thread.join(timeout=5)
            for stream in (self.proc.stdout, self.proc.stdin):
                if stream is not None:
                    try:
                        stream.close()
                    except OSError:
                        pass
        name = self.name
        if self.timed_out:
            raise GitTimeout(f"{name} took longer than {self.timeout:.0f} s and was stopped")
        if code != 0 and check:
            lines = self.stderr_tail.decode(errors="replace").strip().splitlines()
            raise GitError(f"{name} failed: {lines[-1] if lines else f'exit status {code}'}")
        return code


def git(
    repo: Path | None,
    *args: str,
    timeout: float = DEFAULT_TIMEOUT,
    max_output: int = DEFAULT_MAX_OUTPUT,
    stdin: bytes | None = None,
    allow_file: bool = False,
    check: bool = True,
    config: Sequence[tuple[str, str]] = (),
) -> bytes:
    """The standard output of `git -C repo args` (see the module docstring for what every call is kept from);
    `config`: (key, value) settings of the caller's own for this call, never one that `SAFE_CONFIG` sets.

    Raises GitError when git exits non-zero (with `check`), GitTimeout after `timeout` seconds, GitOutputTooLarge
    past `max_output` bytes. Callers put `--end-of-options` or `--` before anything that came from outside."""
    name = f"git {args[0]}" if args else "git"
    process = _Process(
        _command(repo, args, allow_file=allow_file, config=config),
        name=name,
        timeout=timeout,
        allow_file=allow_file,
        stdin_lines=None if stdin is None else [stdin],
    )
    chunks: list[bytes] = []
    size = 0
    try:
        while chunk := process.proc.stdout.read(_CHUNK):
            size += len(chunk)
            if size > max_output:
                raise GitOutputTooLarge(f"{name} wrote more than {max_output} bytes and was stopped")
            chunks.append(chunk)
    except BaseException:
        process.kill()
        process.finish(check=False)
        raise
    code = process.finish(check=check)
    if code != 0 and not check:
        return b""
    return b"".join(chunks)


@dataclass(frozen=True)
class BlobRead:
    """One object asked for: its content when it is a blob within the limit; else `refused` says why."""

    sha: str
    size: int | None
    content: bytes | None
    refused: str = ""


def _read_exactly(stream, size: int) -> bytes:
    parts: list[bytes] = []
    left = size
    while left:
        chunk = stream.read(min(left, _CHUNK * 16))
        if not chunk:
            raise GitError("git cat-file ended in the middle of a blob")
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def blobs_read(
    repo: Path, shas: Sequence[str], *, max_bytes: int, timeout: float = DEFAULT_TIMEOUT
) -> Iterator[BlobRead]:
    """Each of `shas`, in order: blobs up to `max_bytes` with their content, streamed one at a time from one
    `git cat-file --batch`; larger ones, missing ones and non-blobs with `content=None` and a reason, never read.

    Sizes come first from `git cat-file --batch-check`, so an object over the limit is never loaded. Only full
    object names are accepted (GitError otherwise): a line of the batch input cannot be an option or a revision
    expression."""
    for sha in shas:
        if not is_sha(sha):
            raise GitError(f"not an object name: {sha[:80]!r}")
    if not shas:
        return
    listing = git(
        repo,
        "cat-file",
        "--batch-check",
        stdin=("\n".join(shas) + "\n").encode(),
        timeout=timeout,
        max_output=128 * (len(shas) + 1),
    ).splitlines()
    if len(listing) != len(shas):
        raise GitError(f"git cat-file --batch-check answered {len(listing)} lines for {len(shas)} objects")
    sizes: dict[str, tuple[int | None, str]] = {}
    for sha, line in zip(shas, listing, strict=True):
        words = line.decode(errors="replace").split()
        if len(words) != 3 or words[0] != sha:
            sizes[sha] = (None, "missing from the repository (a shallow or partial clone?)")
        elif words[1] != "blob":
            sizes[sha] = (None, f"a {words[1]}, not a file")
        elif int(words[2]) > max_bytes:
            sizes[sha] = (int(words[2]), f"{int(words[2])} bytes, over the {max_bytes}-byte limit: not read")
        else:
            sizes[sha] = (int(words[2]), "")
    wanted = [sha for sha in shas if not sizes[sha][1]]
    process = (
        _Process(
            _command(repo, ["cat-file", "--batch"], allow_file=False),
            name="git cat-file",
            timeout=timeout,
            allow_file=False,
            stdin_lines=(f"{sha}\n".encode() for sha in wanted),
        )
        if wanted
        else None
    )
    try:
        for sha in shas:
            size, refused = sizes[sha]
            if refused:
                yield BlobRead(sha=sha, size=size, content=None, refused=refused)
                continue
            header = process.proc.stdout.readline(256).split()
            if len(header) != 3 or header[0].decode() != sha or int(header[2]) != size:
                process.kill()
                raise GitError(f"git cat-file --batch answered {header!r} for {sha}")
            content = _read_exactly(process.proc.stdout, size)
            process.proc.stdout.read(1)  # the newline after each object
            yield BlobRead(sha=sha, size=size, content=content)
    except BaseException:
        if process is not None:
            process.kill()
            process.finish(check=False)
        raise
    if process is not None:
        process.finish()
