"""The time zones the release team quotes deadlines in, and the end of a freeze day in them."""

import datetime
import zoneinfo

UTC = datetime.UTC
#: "PT", "PST", "PDT" and "Pacific" in the schedules: US Pacific time as the date has it.
PACIFIC = zoneinfo.ZoneInfo("America/Los_Angeles")
#: Anywhere on Earth: a deadline "AoE" has passed only once it has passed in the last time zone, UTC−12.
AOE = datetime.timezone(datetime.timedelta(hours=-12), "AoE")


def end_of_day_pacific(at: datetime.datetime, *, all_day: bool = False) -> datetime.datetime:
    """The end of `at`'s day in US Pacific time, as an aware instant: "at the end of freeze day" in schedules.

    An all-day milestone stores midnight UTC of its date (`Milestone.at`): its day is that date, not the
    Pacific day of that instant (the evening before)."""
    day = (at.astimezone(UTC).date() if all_day else at.astimezone(PACIFIC).date()) + datetime.timedelta(days=1)
    return datetime.datetime.combine(day, datetime.time(), tzinfo=PACIFIC)
