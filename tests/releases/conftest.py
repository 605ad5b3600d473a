"""Fixtures of the releases tests: the real SMTP server and Celery workers (tests/live_services.py) for the stats
and outage tests, the v1.24 world the page tests read (`release`, tests/releases/release_pages.py), and the
hand-made schedule samples."""

from pathlib import Path

import pytest

from tests.live_services import celery_worker, smtp_mailbox, smtp_server  # noqa: F401 - fixtures
from tests.releases.release_pages import release  # noqa: F401 - fixture


@pytest.fixture
def hand_made_schedules(tmp_path):
    """The hand-made README samples (tests/releases/data/schedules/release-1.N.md) laid out as sig-release does,
    release-1.N/README.md, so the importer discovers them; kept flat in the repository so that nothing in it looks
    like a copy of an upstream README."""
    folder = tmp_path / "hand-made-releases"
    for sample in sorted((Path(__file__).parent / "data" / "schedules").glob("release-*.md")):
        release_dir = folder / sample.stem
        release_dir.mkdir(parents=True)
        (release_dir / "README.md").write_text(sample.read_text())
    return folder
