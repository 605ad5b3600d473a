"""Fixtures of the releases tests: the real SMTP server and Celery workers (tests/live_services.py) for the stats
and outage tests, and the hand-made schedule samples."""

from pathlib import Path

import pytest

from tests.live_services import celery_worker, smtp_mailbox, smtp_server  # noqa: F401 - fixtures


@pytest.fixture
def hand_made_schedules(tmp_path):
    """The hand-made README samples (tests/releases/data/schedules/release-1.N.md) laid out as sig-release does,
    release-1.N/README.md, so the importer discovers them; kept flat in the repository so that nothing in it looks
    like a copy of an upstream README."""
    folder = tmp_path / "hand-made-releases"
    for sample in sorted((Path(__file__).parent / "data" / "schedules").glob("release-*.md")):
        release = folder / sample.stem
        release.mkdir(parents=True)
        (release / "README.md").write_text(sample.read_text())
    return folder
