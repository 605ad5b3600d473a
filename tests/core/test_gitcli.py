"""core.gitcli: git run on hostile repositories runs nothing they name, prompts for nothing, stops on time, and
never loads a blob over the limit."""

import socket
import threading
import time

import pytest

from core import gitcli
from tests.core.git_hostile import add_signed_commit, arm_config, marker_script, plain_git
from tests.keps.git_repos import EnhancementsRepo


@pytest.fixture
def repo(tmp_path):
    repo = EnhancementsRepo(tmp_path / "repo")
    repo.commit({"a.txt": "small\n"}, date="2021-01-01T10:00:00Z")
    return repo


def test_signed_commit_with_armed_config_runs_no_program(repo, tmp_path):
    marker = tmp_path / "ran"
    program = marker_script(tmp_path, marker)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    marker_script(hooks, marker, name="reference-transaction")
    sha = add_signed_commit(repo.root)
    arm_config(repo.root, program, hooks)
    # The control: git as a careless caller runs it, so the repository really is armed.
    plain_git(repo.root, "log", "-1", "--format=%H")
    assert marker.exists()
    marker.unlink()

    out = gitcli.git(repo.root, "log", "--no-show-signature", "--format=%H %G?", "-1")
    assert out.decode().split()[0] == sha
    gitcli.git(repo.root, "log", "-p", "--format=%H", "--end-of-options", "HEAD")
    gitcli.git(repo.root, "update-ref", "refs/heads/other", sha)  # a ref update would run reference-transaction
    assert not marker.exists()


def test_inherited_git_variables_are_not_honoured(repo, tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "nowhere"))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'core.pager'='sh -c \"touch /tmp/x\"'")
    assert gitcli.git(repo.root, "rev-parse", "--verify", "--end-of-options", "HEAD").strip()


def test_failure_names_the_command(repo):
    with pytest.raises(gitcli.GitError, match="git rev-parse failed"):
        gitcli.git(repo.root, "rev-parse", "--verify", "--end-of-options", "no-such-branch")


def test_a_callers_setting_applies_and_cannot_undo_a_safe_one(repo, tmp_path):
    def value(key, config):
        return gitcli.git(repo.root, "config", "--get", key, config=config).decode().strip()

    assert value("fetch.unpacklimit", [("fetch.unpackLimit", "1")]) == "1"
    assert value("core.hookspath", [("core.hooksPath", str(tmp_path))]) == "/dev/null"
    assert value("protocol.file.allow", [("protocol.file.allow", "always")]) == "never"


def test_file_protocol_only_when_allowed(repo, tmp_path):
    target = tmp_path / "copy"
    with pytest.raises(gitcli.GitError, match="not allowed"):
        gitcli.git(None, "clone", "-q", "--bare", "--", f"file://{repo.root}", str(target))
    gitcli.git(None, "clone", "-q", "--bare", "--", f"file://{repo.root}", str(target), allow_file=True)
    assert (target / "HEAD").exists()


def test_ext_transport_never(tmp_path):
    marker = tmp_path / "ran"
    with pytest.raises(gitcli.GitError):
        gitcli.git(None, "clone", "--", f"ext::sh -c touch% {marker}", str(tmp_path / "x"), allow_file=True)
    assert not marker.exists()


def test_a_silent_remote_is_stopped_at_the_time_limit(tmp_path):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    held = []
    threading.Thread(target=lambda: held.append(server.accept()), daemon=True).start()
    port = server.getsockname()[1]
    started = time.monotonic()
    with pytest.raises(gitcli.GitTimeout, match="longer than 1 s"):
        gitcli.git(None, "ls-remote", "--", f"https://127.0.0.1:{port}/repo.git", timeout=1)
    assert time.monotonic() - started < 5
    server.close()


def test_output_past_the_bound_is_stopped(repo):
    repo.commit({"b.txt": "x" * 10_000}, date="2021-01-02T10:00:00Z")
    with pytest.raises(gitcli.GitOutputTooLarge, match="more than 1000 bytes"):
        gitcli.git(repo.root, "log", "-p", max_output=1000)


def test_blobs_over_the_limit_are_refused_and_the_rest_streamed(repo):
    repo.commit({"big.txt": "y" * 2_000_000, "small.txt": "hello\n"}, date="2021-01-02T10:00:00Z")
    big = plain_git(repo.root, "rev-parse", "HEAD:big.txt").decode().strip()
    small = plain_git(repo.root, "rev-parse", "HEAD:small.txt").decode().strip()
    tree = plain_git(repo.root, "rev-parse", "HEAD^{tree}").decode().strip()
    missing = "0" * 40
    reads = list(gitcli.blobs_read(repo.root, [small, big, missing, tree, small], max_bytes=1_000_000))
    assert [r.content for r in reads] == [b"hello\n", None, None, None, b"hello\n"]
    assert reads[1].size == 2_000_000 and "over the 1000000-byte limit" in reads[1].refused
    assert "missing" in reads[2].refused and "a tree, not a file" in reads[3].refused


def test_blob_names_must_be_object_names(repo):
    with pytest.raises(gitcli.GitError, match="not an object name"):
        list(gitcli.blobs_read(repo.root, ["HEAD:a.txt"], max_bytes=10))
