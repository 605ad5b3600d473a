"""The sigs.yaml parser (community/importers/sigs_yaml.py): examples from the real file's shapes, old and new, and
properties on arbitrary input. No database."""

import datetime

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from community.importers.sigs_yaml import (
    SigsFile,
    mailing_list_address,
    parse_day,
    parse_frequency,
    parse_sigs,
    parse_time,
    parse_tz,
)
from core.importing import ImportFailure

CURRENT = """\
sigs:
  - dir: sig-node
    name: Node
    mission_statement: >
      The Node SIG focuses on the components that control the interactions between pods and host resources.
    label: node
    leadership:
      chairs:
        - github: mrunalp
          name: Mrunal Patel
          company: Red Hat
          email: mpatel@redhat.com
      tech_leads:
        - github: dchen1107
          name: Dawn Chen
          email: dawnchen@google.com
      emeritus_leads:
        - github: derekwaynecarr
          name: Derek Carr
    meetings:
      - description: Regular SIG Meeting
        day: Tuesday
        time: "10:00"
        tz: PT (Pacific Time)
        frequency: weekly
        url: https://zoom.us/j/4799874685
        archive_url: https://docs.google.com/document/d/1Ne57gvidMEWXR70OxxnRkYquAoMpt56o75oZtg-OeBg/edit
        recordings_url: https://www.youtube.com/playlist?list=PL69nYSiGNLP1wJPj5DYWXjiArF-MJ5fNG
    contact:
      slack: sig-node
      mailing_list: https://groups.google.com/a/kubernetes.io/g/sig-node
workinggroups:
  - dir: wg-batch
    name: Batch
    meetings:
      - description: Regular WG Meeting (EMEA)
        day: Thursday
        time: "14:00"
        tz: CET (Central European Time)
        frequency: biweekly starting Thursday June 25th, 2020
    contact:
      mailing_list: https://groups.google.com/g/wg-batch
usergroups: []
committees:
  - dir: committee-steering
    name: Steering
    contact:
      mailing_list: steering@kubernetes.io
"""

#: The 2017 shape: no dir, `leads:`, meetings with `utc:`/`pst:` and the links on the group.
OLD_2017 = """\
sigs:
  - name: Cluster Lifecycle
    mission_statement: Cluster tooling.
    leads:
      - name: Luke Marsden
        github: lukemarsden
        company: Weave
      - name: TBD
        github: TBD
    meetings:
      - day: Tuesday
        utc: "16:00"
        frequency: weekly
      - day: Wednesday
        pst: "9:00"
        frequency: biweekly
    meeting_url: https://zoom.us/j/166836624
    meeting_archive_url: https://docs.google.com/document/d/1deJYPIF4LmhGjDVaqrswErIrV7mtwJgovtLnPCDxP7U/edit
    contact:
      slack: "#sig-cluster-lifecycle"
      mailing_list: https://groups.google.com/forum/#!forum/kubernetes-sig-cluster-lifecycle
workinggroups:
  - name: Resource Management
    leads:
      - github: vishh
    meetings:
      - day: Tuesday
        time: "11:00"
"""


def parse(text: str) -> SigsFile:
    return parse_sigs(text, source="sigs.yaml")


def test_current_format_reads_every_field():
    result = parse(CURRENT)
    node, batch, steering = result.groups
    assert (node.slug, node.kind, node.name, node.label) == ("sig-node", "sig", "Node", "node")
    assert node.mission.startswith("The Node SIG focuses")
    assert (node.mailing_list, node.mailing_list_url) == (
        "sig-node@kubernetes.io",
        "https://groups.google.com/a/kubernetes.io/g/sig-node",
    )
    assert node.slack_channel == "sig-node"
    assert [(c.github, c.name, c.email) for c in node.chairs] == [("mrunalp", "Mrunal Patel", "mpatel@redhat.com")]
    assert [c.github for c in node.tech_leads] == ["dchen1107"]  # emeritus leads are not leaders
    (meeting,) = node.meetings
    assert (meeting.day, meeting.time, meeting.tz, meeting.frequency) == (
        1,
        datetime.time(10),
        "America/Los_Angeles",
        "weekly",
    )
    assert meeting.archive_url.startswith("https://docs.google.com/") and meeting.recordings_url
    assert (batch.kind, batch.label, batch.mailing_list) == ("wg", "batch", "wg-batch@googlegroups.com")
    (emea,) = batch.meetings
    assert (emea.tz, emea.frequency, emea.anchor_date) == ("Europe/Berlin", "biweekly", datetime.date(2020, 6, 25))
    assert (steering.kind, steering.mailing_list, steering.mailing_list_url) == (
        "committee",
        "steering@kubernetes.io",
        "",
    )
    assert result.skipped == () and result.warnings == ()


def test_2017_format_builds_the_slug_and_reads_leads_and_utc_times():
    result = parse(OLD_2017)
    lifecycle, resource = result.groups
    assert (lifecycle.slug, lifecycle.label) == ("sig-cluster-lifecycle", "cluster-lifecycle")
    assert [c.github for c in lifecycle.chairs] == ["lukemarsden"]  # TBD dropped
    assert lifecycle.mailing_list == "kubernetes-sig-cluster-lifecycle@googlegroups.com"
    assert lifecycle.slack_channel == "sig-cluster-lifecycle"
    utc, pacific = lifecycle.meetings
    assert (utc.day, utc.time, utc.tz, utc.frequency) == (1, datetime.time(16), "UTC", "weekly")
    assert (pacific.time, pacific.tz, pacific.frequency) == (datetime.time(9), "America/Los_Angeles", "biweekly")
    assert utc.url == "https://zoom.us/j/166836624" and utc.archive_url.startswith("https://docs.google.com/")
    assert resource.slug == "wg-resource-management" and resource.kind == "wg"
    (no_zone,) = resource.meetings
    assert no_zone.time == datetime.time(11) and no_zone.tz == ""
    assert any("tz: missing" in warning for warning in result.warnings)


@pytest.mark.parametrize(
    ("raw", "address"),
    [
        ("https://groups.google.com/forum/#!forum/kubernetes-sig-node", "kubernetes-sig-node@googlegroups.com"),
        ("https://groups.google.com/g/kubernetes-sig-node", "kubernetes-sig-node@googlegroups.com"),
        ("https://groups.google.com/a/kubernetes.io/g/sig-node", "sig-node@kubernetes.io"),
        ("https://groups.google.com/d/forum/kubernetes-sig-apps", "kubernetes-sig-apps@googlegroups.com"),
        ("https://groups.google.com/a/kubernetes.io/forum/#!forum/steering", "steering@kubernetes.io"),
        ("mailto:steering@kubernetes.io", "steering@kubernetes.io"),
    ],
)
def test_mailing_list_address_from_every_google_groups_shape(raw, address):
    found, page, warning = mailing_list_address(raw)
    assert found == address and warning is None
    assert page == ("" if "@" in raw else raw)


def test_mailing_list_that_is_no_group_keeps_the_link_and_warns():
    assert mailing_list_address("https://lists.example.org/sig")[:2] == ("", "https://lists.example.org/sig")
    assert mailing_list_address("https://lists.example.org/sig")[2]


@pytest.mark.parametrize(
    ("raw", "zone"),
    [
        ("PT (Pacific Time)", "America/Los_Angeles"),
        ("UTC", "UTC"),
        ("CET (Central European Time)", "Europe/Berlin"),
        ("ET", "America/New_York"),
        ("Eastern Time (ET)", "America/New_York"),
        ("EST (Eastern Time)", "America/New_York"),
        ("IST", "Asia/Kolkata"),
        ("Poland", "Europe/Warsaw"),
        ("Asia/Tokyo", "Asia/Tokyo"),
        ("Mars Standard Time", None),
        ("", None),
    ],
)
def test_time_zones_map_to_iana(raw, zone):
    assert parse_tz(raw) == zone


def test_unknown_time_zone_is_left_empty_with_a_warning():
    result = parse("sigs:\n- dir: sig-x\n  meetings:\n  - day: Monday\n    time: '9:00'\n    tz: Mars Time\n")
    assert result.groups[0].meetings[0].tz == ""
    assert result.warnings == ("sigs.yaml: sigs[0].meetings[0].tz: unknown time zone 'Mars Time'; left empty",)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("9:00", datetime.time(9)),
        ("09:30", datetime.time(9, 30)),
        ("2PM", datetime.time(14)),
        ("12 am", datetime.time(0)),
    ],
)
def test_times(raw, expected):
    assert parse_time(raw)[0] == expected


@pytest.mark.parametrize(
    ("frequency", "day", "expected"),
    [
        ("weekly", "Tuesday", ("weekly", None, None)),
        ("bi-weekly", "Tuesday", ("biweekly", None, None)),
        ("biweekly starting Tuesday Feb 11, 2025", "Tuesday", ("biweekly", None, datetime.date(2025, 2, 11))),
        ("biweekly 2019 start date: Jan. 11th", "Friday", ("biweekly", None, datetime.date(2019, 1, 11))),
        ("", "Tuesday (starting September 10th 2024)", ("", None, datetime.date(2024, 9, 10))),
        ("monthly - third Tuesday", "Tuesday", ("monthly", 3, None)),
        ("First Wednesday of the month", "Wednesday", ("monthly", 1, None)),
        ("monthly - last Wednesday every month", "Wednesday", ("monthly", -1, None)),
        ("", "first Wednesday", ("monthly", 1, None)),
        ("every four weeks", "Wednesday", ("other", None, None)),
        ("", "Tuesday", ("", None, None)),
    ],
)
def test_frequencies(frequency, day, expected):
    assert parse_frequency(frequency, day_text=day) == expected


def test_day_reads_the_first_weekday_word():
    assert parse_day("Thursdays (starting February 15th 2024)") == (3, None)
    assert parse_day("third Wednesday") == (2, 3)
    assert parse_day("someday") == (None, None)


def test_group_problems_skip_only_that_group_naming_its_place():
    text = (
        "sigs:\n- dir: sig-a\n- name: ''\n- dir: sig-a\n- dir: sig-b\n  leadership: chairs\n- just text\n"
        "- dir: 'Not A Slug!'\nworkinggroups: nope\n"
    )
    result = parse(text)
    assert [g.slug for g in result.groups] == ["sig-a"]
    assert [f.field for f in result.skipped] == [
        "sigs[1].dir",
        "sigs[2]",
        "sigs[3].leadership",
        "sigs[4]",
        "sigs[5].dir",
        "workinggroups",
    ]
    assert all("\n" not in str(f) and str(f).startswith("sigs.yaml: ") for f in result.skipped)


def test_malformed_meeting_is_dropped_with_a_warning_and_the_group_kept():
    result = parse("sigs:\n- dir: sig-a\n  meetings:\n  - just text\n  - day: Monday\n    time: [1]\n")
    assert result.groups[0].slug == "sig-a" and result.groups[0].meetings == ()
    assert len(result.warnings) == 2


@pytest.mark.parametrize("text", ["", "just: a mapping\n", "- a list\n", "sigs: [\n"])
def test_files_that_are_no_sigs_yaml_fail_whole(text):
    with pytest.raises(ImportFailure):
        parse(text)


def test_shared_copy_parses_without_skips(upstream_dir):
    result = parse((upstream_dir / "community" / "sigs.yaml").read_text())
    slugs = {g.slug for g in result.groups}
    assert {"sig-node", "sig-api-machinery", "sig-scheduling", "wg-batch", "committee-steering"} <= slugs
    assert result.skipped == ()
    assert all(g.mailing_list or g.kind == "committee" for g in result.groups)
    zones = {m.tz for g in result.groups for m in g.meetings if m.time is not None}
    assert "" not in zones and "America/Los_Angeles" in zones


# -- properties -----------------------------------------------------------------------------------------


def _only_result_or_import_failure(text: str) -> None:
    try:
        result = parse(text)
    except ImportFailure as failure:
        assert "\n" not in str(failure)
        return
    assert isinstance(result, SigsFile)
    assert all(g.slug and len(g.slug) <= 64 for g in result.groups)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_random_text_gives_groups_or_import_failure(text):
    _only_result_or_import_failure(text)


_SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=20) | st.floats(allow_nan=False)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
_GROUP_KEYS = ["dir", "name", "label", "mission_statement", "leadership", "leads", "meetings", "contact", "meeting_url"]
_MEETING_KEYS = ["day", "time", "tz", "frequency", "utc", "pst", "url", "archive_url", "description"]
_GROUPS = st.dictionaries(
    st.sampled_from(_GROUP_KEYS),
    _VALUES
    | st.lists(st.dictionaries(st.sampled_from(_MEETING_KEYS), _VALUES | st.text(max_size=40), max_size=5), max_size=3)
    | st.dictionaries(st.sampled_from(["chairs", "tech_leads", "mailing_list", "slack"]), _VALUES, max_size=3),
    max_size=6,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(st.sampled_from(["sigs", "workinggroups", "committees", "usergroups"]), st.lists(_GROUPS | _VALUES))
)
def test_random_structures_give_groups_or_import_failure(mapping):
    _only_result_or_import_failure(yaml.safe_dump(mapping))


_LINES = CURRENT.splitlines(keepends=True) + OLD_2017.splitlines(keepends=True)[1:]
_FRAGMENTS = ["- ", ": ", "{", "[", '"', "'", "&a ", "*a", "? ", "\t", "  ", "null", "~", "<<: ", "!!binary "]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_sigs_yaml_gives_groups_or_import_failure(data):
    lines = list(_LINES)
    for _ in range(data.draw(st.integers(1, 6))):
        index = data.draw(st.integers(0, len(lines) - 1))
        action = data.draw(st.sampled_from(["insert", "delete", "duplicate", "truncate"]))
        line = lines[index]
        if action == "insert":
            at = data.draw(st.integers(0, len(line)))
            lines[index] = line[:at] + data.draw(st.sampled_from(_FRAGMENTS)) + line[at:]
        elif action == "delete":
            del lines[index]
        elif action == "duplicate":
            lines.insert(index, line)
        else:
            lines[index] = line[: data.draw(st.integers(0, len(line)))]
        if not lines:
            break
    _only_result_or_import_failure("".join(lines))
