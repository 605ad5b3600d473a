"""The importers' shared reader (`core.importing.read_text`) on files that are not what they seem.

Only regular files are read, never more than the limit plus one byte; anything else is one skip line.
"""

import io
import os
import socket
import tempfile
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from core.importing import ImportFailure, read_text
from meetings.models import Meeting
from tests.special_files import fifo_with_a_writer

posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and devices need a POSIX system")
NOTES = "# SIG Node meeting notes\n\n## Jan 4, 2022\n\n- PR flow: 10 opened, 8 merged\n"


@posix_only
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    with fifo_with_a_writer(tmp_path / "kep.yaml", "title: from the FIFO\n") as fifo:
        with pytest.raises(ImportFailure) as failure:
            read_text(fifo)
    assert str(failure.value) == f"{fifo}: not a regular file (a FIFO); not read"


@posix_only
def test_a_symlink_to_a_device_is_refused_unread(tmp_path):
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    link = tmp_path / "kep.yaml"
    link.symlink_to("/dev/zero")
    with pytest.raises(ImportFailure) as failure:
        read_text(link)
    assert str(failure.value) == f"{link}: not a regular file (a character device); not read"


@posix_only
def test_a_socket_and_a_folder_are_refused(tmp_path):
    # Socket paths are limited to ~100 bytes: a short folder of its own, not tmp_path.
    with tempfile.TemporaryDirectory(dir="/tmp") as short:
        path = Path(short) / "s"
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(str(path))
            with pytest.raises(ImportFailure, match=r"not a regular file \(a socket\)"):
                read_text(path)
    with pytest.raises(ImportFailure, match=r"not a regular file \(a folder\)"):
        read_text(tmp_path)


def test_the_read_is_bounded_whatever_the_size_says():
    """Files in /proc report a size of 0 and hold more: the reader stops at the limit instead of trusting it."""
    proc = Path("/proc/self/status")
    if not proc.exists() or os.stat(proc).st_size != 0:
        pytest.skip("needs Linux's /proc, whose files report size 0")
    with pytest.raises(ImportFailure) as failure:
        read_text(proc, max_bytes=16)
    assert str(failure.value) == f"{proc}: file too large (over 16 bytes, the limit)"
    assert "Name:" in read_text(proc)  # under the limit, read as usual


def test_a_regular_file_and_a_symlink_to_one_are_read(tmp_path):
    target = tmp_path / "real.yaml"
    target.write_bytes(b"\xef\xbb\xbftitle: ok\n")
    link = tmp_path / "kep.yaml"
    link.symlink_to(target)
    assert read_text(target) == read_text(link) == "title: ok\n"
    assert read_text(target, max_bytes=13) == "title: ok\n"  # exactly at the limit (13 bytes, BOM included)
    with pytest.raises(ImportFailure, match="file too large"):
        read_text(target, max_bytes=12)


@posix_only
@pytest.mark.django_db
def test_import_meeting_notes_skips_a_fifo_with_one_line(tmp_path):
    folder = tmp_path / "sig-node"
    folder.mkdir()
    (folder / "meeting-notes-2022.md").write_text(NOTES)
    out, err = io.StringIO(), io.StringIO()
    with fifo_with_a_writer(folder / "meeting-notes-2023.md", NOTES.replace("2022", "2023")) as fifo:
        with pytest.raises(CommandError) as error:
            call_command(
                "import_meeting_notes", str(folder / "meeting-notes-2022.md"), str(fifo), stdout=out, stderr=err
            )
    assert error.value.returncode == 1
    assert err.getvalue().splitlines() == [f"skipped: {fifo}: not a regular file (a FIFO); not read"]
    assert list(Meeting.objects.values_list("date__year", flat=True)) == [2022]
