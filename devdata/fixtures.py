"""Where the curated fixtures live and in which order they load."""

from pathlib import Path

FIXTURE_DIR = Path(__file__).resolve().parent.parent / "fixtures"

#: Load order matters: rows refer to earlier files by natural key.
FIXTURE_FILES = [
    str(FIXTURE_DIR / name)
    for name in (
        "sigs_people.yaml",
        "keps.yaml",
        "design_groups.yaml",
        "releases.yaml",
        "tracked_enhancements.yaml",
        "retrospectives.yaml",
        "meetings.yaml",
    )
]


def fixtures_loaded() -> bool:
    """The demo database counts as loaded once it holds any release."""
    from releases.models import Release

    return Release.objects.exists()
