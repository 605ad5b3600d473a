"""Parsers of a release directory's other files: exceptions.yaml, features.csv, release-team.md (pure, no DB)."""

import datetime
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from core.importing import ImportFailure
from releases.choices import EnhancementType, ExceptionDecision, Freeze, ReleaseRoleKind, TargetStage
from releases.importers.exceptions_yaml import decision_from_status, parse_exceptions, parse_issue
from releases.importers.features_csv import assignees, parse_features, sig_slug
from releases.importers.roster import Member, parse_roster, role_kind

DATA = Path(__file__).parent / "data" / "release_files"


@pytest.fixture
def releases_dir(upstream_dir):
    return upstream_dir / "sig-release" / "releases"


# --- exceptions.yaml ------------------------------------------------------------------------------------


def counts(parsed):
    return Counter((r.freeze, r.decision) for r in parsed.requests)


def test_bare_list_of_1_16_takes_the_freeze_from_each_group_heading(releases_dir):
    parsed = parse_exceptions((releases_dir / "release-1.16" / "exceptions.yaml").read_text())
    assert parsed.problems == [] and parsed.warnings == []
    assert counts(parsed) == {
        (Freeze.ENHANCEMENTS, ExceptionDecision.APPROVED): 2,
        (Freeze.ENHANCEMENTS, ExceptionDecision.REJECTED): 1,
        (Freeze.CODE, ExceptionDecision.APPROVED): 1,
    }
    denied = parsed.requests[0]
    assert (denied.kep_number, denied.line, denied.pull_requests) == (1186, 5, ())  # the bare "-" PR is dropped
    assert denied.requested == datetime.date(2019, 7, 31)
    assert parsed.requests[1].pull_requests == (
        "https://github.com/kubernetes/enhancements/pull/1180",
        "https://github.com/kubernetes/kubernetes/pull/80353",
    )


def test_mapping_by_freeze_of_1_25_and_1_35(releases_dir):
    parsed = parse_exceptions((releases_dir / "release-1.25" / "exceptions.yaml").read_text())
    assert parsed.problems == []
    assert counts(parsed) == {
        (Freeze.ENHANCEMENTS, ExceptionDecision.APPROVED): 1,
        (Freeze.CODE, ExceptionDecision.APPROVED): 7,
        (Freeze.CODE, ExceptionDecision.REJECTED): 5,
    }
    # The review date typed a year early is kept as written.
    gluster_in_place = next(r for r in parsed.requests if r.kep_number == 1287)
    assert gluster_in_place.reviewed == datetime.date(2021, 8, 3)
    parsed = parse_exceptions((releases_dir / "release-1.35" / "exceptions.yaml").read_text())
    assert counts(parsed)[(Freeze.DOCS, ExceptionDecision.APPROVED)] == 1
    assert counts(parsed)[(Freeze.CODE, ExceptionDecision.REJECTED)] == 6  # "rejected"
    assert len(parsed.requests) == 16
    # One KEP asking for two freezes in one release: two requests.
    assert [r.freeze for r in parsed.requests if r.kep_number == 5471] == [Freeze.CODE, Freeze.DOCS]


def test_trailing_comma_is_dropped_with_a_warning_and_features_repo_urls_are_keps():
    parsed = parse_exceptions((DATA / "trailing_comma.yaml").read_text())
    assert parsed.problems == []
    assert [(w.line, w.message) for w in parsed.warnings] == [(15, "trailing comma after a quoted value: dropped")]
    first, second = parsed.requests
    assert (first.kep_number, first.requested, first.decision) == (688, datetime.date(2020, 1, 30), "approved")
    assert (second.kep_number, second.issue_url) == (43, "https://github.com/kubernetes/features/issues/43")
    assert second.thread_url.endswith("/bbb") and second.decision == ExceptionDecision.REJECTED


def test_stray_character_line_repeated_request_kk_issue_and_broken_entry():
    parsed = parse_exceptions((DATA / "stray_character.yaml").read_text())
    # The entry that is not YAML is named by its line; every other entry is read.
    assert [(p.line, p.message) for p in parsed.problems] == [(25, "request not read: not a date: '[2019-11-14'")]
    kk, denied, again, reverted = parsed.requests
    assert kk.kep_number is None and kk.issue_url == "https://github.com/kubernetes/kubernetes/issues/85000"
    assert kk.freeze == Freeze.CODE
    assert (denied.kep_number, denied.decision, denied.ordinal) == (693, ExceptionDecision.REJECTED, 0)
    assert (again.kep_number, again.decision, again.ordinal) == (693, ExceptionDecision.APPROVED, 1)
    assert denied.key != again.key
    assert reverted.decision == ExceptionDecision.REVERTED


def test_entries_out_of_line_wordy_dates_template_entries_and_prose_in_pull_requests():
    parsed = parse_exceptions((DATA / "out_of_line.yaml").read_text())
    assert [(r.kep_number, r.requested, r.reviewed, r.decision, r.pull_requests) for r in parsed.requests] == [
        (670, datetime.date(2019, 1, 30), datetime.date(2019, 1, 30), ExceptionDecision.APPROVED, ()),
        (
            213,
            datetime.date(2019, 2, 1),
            datetime.date(2019, 2, 4),
            ExceptionDecision.APPROVED,
            ("https://github.com/kubernetes/kubernetes/pull/73007",),
        ),
        (
            750,
            datetime.date(2019, 1, 30),
            datetime.date(2019, 1, 31),
            ExceptionDecision.APPROVED,
            ("https://github.com/kubernetes/kubernetes/issues/72651",),
        ),
        (757, datetime.date(2019, 1, 30), None, ExceptionDecision.APPROVED, ()),
    ]
    assert parsed.problems == []
    assert [(w.line, w.message) for w in parsed.warnings] == [
        (5, "an empty entry (the file's template): skipped"),
        (23, "pull request is not a link: 'Will open after KEP merged'; not kept"),
    ]


def test_requests_without_dates_of_2018():
    text = (
        "# Exceptions to code freeze requested in 1.10\n\n"
        '- name: "x"\n  issue: "https://github.com/kubernetes/features/issues/213"\n  status: "reverted"\n'
    )
    (request,) = parse_exceptions(text).requests
    assert (request.kep_number, request.requested, request.decision) == (213, None, ExceptionDecision.REVERTED)


def test_an_entry_before_any_freeze_heading_is_a_problem_not_a_guess():
    parsed = parse_exceptions("- name: x\n  issue: 1\n  date_requested: 2020-01-01\n")
    assert parsed.requests == [] and [p.line for p in parsed.problems] == [1]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1186, (1186, "https://github.com/kubernetes/enhancements/issues/1186")),
        ("#1186", (1186, "https://github.com/kubernetes/enhancements/issues/1186")),
        (
            "https://github.com/kubernetes/enhancements/issues/2238",
            (2238, "https://github.com/kubernetes/enhancements/issues/2238"),
        ),
        ("https://github.com/kubernetes/features/issues/43", (43, "https://github.com/kubernetes/features/issues/43")),
        ("https://github.com/kubernetes/kubernetes/pull/9", (None, "https://github.com/kubernetes/kubernetes/pull/9")),
    ],
)
def test_issue_shapes(value, expected):
    assert parse_issue(value) == expected


@given(
    hs.sampled_from(["Approved", "approved", "APPROVED", "Denied", "rejected", "Removed", "reverted", ""]),
    hs.booleans(),
)
def test_decision_ignores_case_and_padding(word, pad):
    text = f"  {word.swapcase()}  " if pad else word
    assert decision_from_status(text) == decision_from_status(word.lower())


@given(hs.dates(min_value=datetime.date(2016, 1, 1), max_value=datetime.date(2030, 12, 31)), hs.booleans())
def test_dates_with_or_without_zero_padding(day, padded):
    written = day.isoformat() if padded else f"{day.year}-{day.month}-{day.day}"
    text = f"codeFreeze:\n- name: x\n  issue: 5\n  date_requested: {written}\n  status: approved\n"
    assert parse_exceptions(text).requests[0].requested == day


# --- features.csv ---------------------------------------------------------------------------------------


def test_sheet_of_1_4(releases_dir):
    sheet = parse_features((releases_dir / "release-1.4" / "features.csv").read_text())
    assert sheet.header_line == 1 and len(sheet.features) == 28
    first = sheet.features[0]
    assert (first.number, first.stage, first.sig_slug, first.assignees) == (
        62,
        TargetStage.ALPHA,
        "sig-scheduling",
        ("davidopp", "piosz"),
    )
    assert [f.name for f in sheet.features if f.number is None] == ["Simplified turn up", "Google ContainerVM Image"]
    assert {f.sig_slug for f in sheet.features} >= {"sig-cluster-lifecycle", "sig-api-machinery", "sig-ui"}


def test_sheet_of_1_12_finds_its_header_below_the_key_dates(releases_dir):
    sheet = parse_features((releases_dir / "release-1.12" / "features.csv").read_text())
    assert sheet.header_line == 10 and len(sheet.features) == 38
    first = sheet.features[0]
    assert (first.number, first.name, first.stage, first.type, first.status_text) == (
        115,
        "Easier installation through componentconfig",
        TargetStage.ALPHA,
        EnhancementType.NET_NEW,
        "Tracked",
    )
    assert first.assignees == ("jbeda", "sttts", "luxas", "thockin")
    assert sheet.features[-1].name == "SCTP support for Services, Pod, Endpoint, and NetworkPolicy"


def test_header_row_below_summary_rows():
    sheet = parse_features((DATA / "summary_first.csv").read_text())
    assert sheet.header_line == 5
    numbered, unnumbered = sheet.features
    assert (numbered.number, numbered.name, numbered.assignees) == (12, "Some feature, with comma", ("alice", "bob"))
    assert (unnumbered.number, unnumbered.sig_slug, unnumbered.assignees) == (
        None,
        "sig-cluster-lifecycle",
        ("carol", "dave"),
    )


def test_sheet_of_2016_names_its_features_item_and_its_sigs_without_prefix():
    text = (
        "Item,Stage,Status,SIG,Proposal link,Dev Lead,Assignee\n"
        "Init Containers,Alpha,Merged,Node,https://github.com/kubernetes/kubernetes/pull/23666,clayton,dchen1107\n"
        "Reapers (Cascading Deletion),Alpha,Merged,API ,,caesarxuchao,lavalamp\n"
    )
    sheet = parse_features(text)
    assert [(f.name, f.sig_slug, f.assignees, f.status_text, f.number) for f in sheet.features] == [
        ("Init Containers", "sig-node", ("dchen1107",), "Merged", None),
        ("Reapers (Cascading Deletion)", "sig-api", ("lavalamp",), "Merged", None),
    ]


def test_a_cell_of_several_lines_and_handles_joined_by_ampersand():
    text = (
        "Feature Name,Stage,SIG,Assignee,k8s.io Docs PR\n"
        'Storage,Alpha,SIG-Storage,feiskyer&JiangtianLi,"https://github.com/kubernetes/website/pull/1\n'
        'https://github.com/kubernetes/website/pull/2"\n'
        "Next,Beta,SIG-API-machinery,@msau42 @vishh,\n"
    )
    first, second = parse_features(text).features
    assert first.line == 2
    assert (first.assignees, first.docs_url) == (
        ("feiskyer", "JiangtianLi"),
        "https://github.com/kubernetes/website/pull/1",
    )
    assert (second.line, second.sig_slug, second.assignees) == (4, "sig-api-machinery", ("msau42", "vishh"))


def test_a_sheet_without_header_is_refused():
    with pytest.raises(ImportFailure, match="no header row"):
        parse_features("Alpha,10\nBeta,3\n")


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("SIG-Node", "sig-node"),
        ("node", "sig-node"),
        ("sig-node", "sig-node"),
        ("SIG-ClusterLifecycle", "sig-cluster-lifecycle"),
        ("SIG-API-Machinery", "sig-api-machinery"),
        ("", ""),
    ],
)
def test_sig_spellings(text, slug):
    assert sig_slug(text) == slug


@given(
    hs.lists(hs.from_regex(r"[a-z][a-z0-9]{1,10}", fullmatch=True), min_size=1, max_size=4, unique=True),
    hs.sampled_from([", ", " / ", " ", ",@"]),
    hs.booleans(),
)
def test_assignees_any_separator_with_or_without_at(handles, separator, at):
    handles = [h for h in handles if h not in {"and", "tbd", "na", "none", "tba", "unassigned"}]
    text = separator.join(("@" if at else "") + h for h in handles)
    assert assignees(text) == tuple(handles)


# --- release-team.md ------------------------------------------------------------------------------------


def team(roster):
    return {(r.role, m.handle, m.is_shadow) for r in roster.roles for m in r.members}


def test_roster_of_1_9_pre_1_20_table(releases_dir):
    roster = parse_roster((releases_dir / "release-1.9" / "release_team.md").read_text())
    assert len(roster.roles) == 11 and roster.warnings == []
    assert (ReleaseRoleKind.ENHANCEMENTS, "idvoretskyi", False) in team(roster)
    # The link's handle, not the second "/@jdetiber".
    assert (ReleaseRoleKind.SIGNAL, "detiber", True) in team(roster)
    assert [r.label for r in roster.roles if r.role == ReleaseRoleKind.OTHER] == [
        "Secondary",
        "Test Infra",
        "Patch Release Manager",
    ]


def test_rosters_of_1_24_and_1_35(releases_dir):
    roster = parse_roster((releases_dir / "release-1.24" / "release-team.md").read_text())
    enhancements = next(r for r in roster.roles if r.role == ReleaseRoleKind.ENHANCEMENTS)
    assert [(m.handle, m.is_shadow) for m in enhancements.members][:2] == [("gracenng", False), ("rhockenbury", True)]
    assert len(enhancements.members) == 5 and enhancements.members[0].name == "Grace Nguyen"
    roster = parse_roster((releases_dir / "release-1.35" / "release-team.md").read_text())
    enhancements = next(r for r in roster.roles if r.role == ReleaseRoleKind.ENHANCEMENTS)
    # A row without its closing pipe, a link text without "@", ", Slack:" instead of " / Slack:".
    assert [m.handle for m in enhancements.members] == [
        "rayandas",
        "chanieljdan",
        "aibarbetta",
        "fykaa",
        "whtssub",
        "jmickey",
    ]
    assert sum(len(r.members) for r in roster.roles) == 34  # 5 + 6 + 5 + 7 + 6 + 5


def test_roster_of_2016_with_names_and_bare_ids():
    text = (
        "|  **Role** | **Name** | **GitHub/Slack ID** |\n|  ------ | ------ | ------ |\n"
        "|  Lead | Dan Gillespie | ethernetdan |\n|  Secondary |Caleb Miles\t  | calebamiles |\n"
        "|  Features | Ihor Dvoretskyi | idvoretskyi |\n|  Automatic upgrade | Steve Kriss | steve_k |\n"
    )
    roster = parse_roster(text)
    assert [(r.role, r.label, r.members) for r in roster.roles] == [
        (ReleaseRoleKind.LEAD, "Lead", (Member("ethernetdan", "Dan Gillespie", False),)),
        (ReleaseRoleKind.OTHER, "Secondary", (Member("calebamiles", "Caleb Miles", False),)),
        (ReleaseRoleKind.ENHANCEMENTS, "Features", (Member("idvoretskyi", "Ihor Dvoretskyi", False),)),
        (ReleaseRoleKind.OTHER, "Automatic upgrade", (Member("steve_k", "Steve Kriss", False),)),
    ]


def test_roster_in_list_layout():
    roster = parse_roster((DATA / "roster_list.md").read_text())
    assert team(roster) == {
        (ReleaseRoleKind.LEAD, "AishSundar", False),
        (ReleaseRoleKind.LEAD, "tpepper", True),
        (ReleaseRoleKind.LEAD, "jdumars", True),
        (ReleaseRoleKind.ENHANCEMENTS, "kacole2", False),
        (ReleaseRoleKind.ENHANCEMENTS, "claurence", True),
        (ReleaseRoleKind.SIGNAL, "alejandrox1", False),
    }


def test_a_file_without_roles_is_refused():
    with pytest.raises(ImportFailure, match="no release team roles"):
        parse_roster("# Team\n\nTo be announced.\n")


@pytest.mark.parametrize(
    ("label", "kind"),
    [
        ("Lead", "lead"),
        ("Release Team Lead", "lead"),
        ("Features", "enhancements"),
        ("Release Signal", "signal"),
        ("Bugs", "bug_triage"),
        ("Marketing coordinator", "communications"),
        ("Release Notes", "release_notes"),
        ("Emeritus Adviser", "other"),
    ],
)
def test_role_names(label, kind):
    assert role_kind(label) == kind


_request = hs.fixed_dictionaries(
    {
        "freeze": hs.sampled_from([Freeze.ENHANCEMENTS, Freeze.CODE, Freeze.DOCS]),
        "number": hs.integers(min_value=1, max_value=99999),
        "day": hs.dates(min_value=datetime.date(2018, 1, 1), max_value=datetime.date(2030, 12, 31)),
        "status": hs.sampled_from(["Approved", "approved", "Denied", "rejected", "Removed", "reverted", ""]),
        "quoted": hs.booleans(),
        "name": hs.text(alphabet="abcdefghijklm :-", min_size=1, max_size=30).map(str.strip).filter(bool),
    }
)


@given(hs.lists(_request, min_size=1, max_size=8), hs.booleans(), hs.booleans())
def test_any_file_in_either_shape_gives_back_every_request(requests, mapping, stray_lines):
    """Written as a bare list under headings (to 1.18) or as a mapping by freeze (1.19-), with or without stray
    invisible lines between entries: every request comes back, in order, with its freeze, KEP, date and decision."""
    keys = {Freeze.ENHANCEMENTS: "enhancementFreeze", Freeze.CODE: "codeFreeze", Freeze.DOCS: "docsFreeze"}
    headings = {Freeze.ENHANCEMENTS: "Enhancements Freeze", Freeze.CODE: "Code Freeze", Freeze.DOCS: "Docs Freeze"}
    ordered = sorted(requests, key=lambda r: [Freeze.ENHANCEMENTS, Freeze.CODE, Freeze.DOCS].index(r["freeze"]))
    lines, current = ["# Exception requests in 1.30"], None
    for request in ordered:
        if request["freeze"] != current:
            current = request["freeze"]
            lines.append(f"# {headings[current]} exceptions requested in 1.30")
            if mapping:
                lines.append(f"{keys[current]}:")
        quote = '"' if request["quoted"] else ""
        # A plain YAML scalar cannot hold ": " or start with "-": upstream quotes such names.
        plain = re.fullmatch(r"[a-m][a-m ]*", request["name"])
        name_quote = quote if plain else '"'
        lines += [
            f"- name: {name_quote}{request['name']}{name_quote}",
            f"  issue: {request['number']}",
            f"  date_requested: {quote}{request['day'].isoformat()}{quote}",
            "  pull_requests:",
            "  -",
            f"  status: {quote}{request['status']}{quote}",
        ]
        lines.append("\u200b" if stray_lines else "")
    parsed = parse_exceptions("\n".join(lines) + "\n")
    assert parsed.problems == []
    got = [(r.freeze, r.kep_number, r.requested, r.decision, r.name) for r in parsed.requests]
    want = [
        (r["freeze"], r["number"], r["day"], decision_from_status(r["status"]), " ".join(r["name"].split()))
        for r in ordered
    ]
    assert got == want
    assert len({r.key for r in parsed.requests}) == len(parsed.requests)


# -- shapes of 1.3, 1.7/1.8, 1.19 and 1.20 (issue: every importer exits 0 on the upstream as it is) ---------------

EXCEPTIONS_1_19 = """\
# Enhancement Freeze Exceptions Requested in 1.19

enhancementFreeze:
- name: "Configure FQDN as Hostname for Pods"
  issue: 1797
  date_requested: 2020-05-20
  date_reviewed: 2020-05-21
  thread: https://groups.google.com/g/kubernetes-release-team/c/1xiCWxchTEk
  pull_requests:
  - https://github.com/kubernetes/enhancements/pull/1792
  status: Approved
- name: "Speed up recursive SELinux label change"
  issue: 1710
  date_requested: 2020-05-20
  date_reviewed: 2020-05-22
  thread: https://groups.google.com/g/kubernetes-release-team/c/TufU2Jc85nQ
  pull-requests:
  - https://github.com/kubernetes/enhancements/pull/1621
  status: Approved
- name: "SCTP support for Services, Pod, Endpoint, and NetworkPolicy"
  issue: 614
  date_requested: 2020-06-02
  date_reviewed: 2020-06-10
  pull-requests:
  - https://github.com/kubernetes/kubernetes/pull/88932
  - https://github.com/kubernetes/kubernetes/pull/88196
  status: Approved

# Code Freeze Exceptions Requested in 1.19

codeFreeze:
- name: "Disable AcceleratorUsage Metrics"
  issue: 1867
  date_requested: 2020-07-09
  date_reviewed: 2020-07-22
  pull-requests:
  - https://github.com/kubernetes/kubernetes/pull/91930
  status: Approved
"""


def test_exceptions_of_1_19_spell_pull_requests_with_a_hyphen_at_the_keys_indentation():
    """The file is valid YAML (the items sit at the key's own indentation); five of its six requests write
    `pull-requests:`: every request is read, with its PRs, and nothing is reported."""
    parsed = parse_exceptions(EXCEPTIONS_1_19)
    assert (parsed.problems, parsed.warnings) == ([], [])
    assert [(r.kep_number, r.freeze, len(r.pull_requests)) for r in parsed.requests] == [
        (1797, Freeze.ENHANCEMENTS, 1),
        (1710, Freeze.ENHANCEMENTS, 1),
        (614, Freeze.ENHANCEMENTS, 2),
        (1867, Freeze.CODE, 1),
    ]


ROSTER_1_7 = """\
|  **Role** | **Name** (**GitHub/Slack ID**)  | **Shadow Name(s) (GitHub/Slack ID), ...**
|  ------ | ------ | ------ |
|  Lead | Dawn Chen (dchen1107) | Maru Newby (marun) |
|  Secondary | Caleb Miles (calebamiles)| |
|  Features |Ihor Dvoretskyi (idvoretskyi) | |
|  Test Infra | Sen Lu (krzyzacy) | | |
|  Upgrade Testing / CI Signal| Eric Chiang (ericchiang) | |
|  Docs | Steve Perry (steveperry-53) | Zach Corleissen (zcorleissen) |
"""


def test_roster_of_1_7_and_1_8_names_bare_handles_in_parentheses():
    roster = parse_roster(ROSTER_1_7)
    assert roster.warnings == []
    assert [(r.role, [(m.handle, m.name, m.is_shadow) for m in r.members]) for r in roster.roles] == [
        (ReleaseRoleKind.LEAD, [("dchen1107", "Dawn Chen", False), ("marun", "Maru Newby", True)]),
        (ReleaseRoleKind.OTHER, [("calebamiles", "Caleb Miles", False)]),
        (ReleaseRoleKind.ENHANCEMENTS, [("idvoretskyi", "Ihor Dvoretskyi", False)]),
        (ReleaseRoleKind.OTHER, [("krzyzacy", "Sen Lu", False)]),
        (ReleaseRoleKind.SIGNAL, [("ericchiang", "Eric Chiang", False)]),
        (ReleaseRoleKind.DOCS, [("steveperry-53", "Steve Perry", False), ("zcorleissen", "Zach Corleissen", True)]),
    ]


def test_a_roster_that_only_says_it_moved_names_the_file():
    from releases.importers.roster import RosterMoved

    text = "# MOVED to https://github.com/kubernetes/sig-release/blob/master/releases/release-1.20/release_team.md\n"
    with pytest.raises(RosterMoved) as moved:
        parse_roster(text)
    assert (moved.value.target, moved.value.line) == ("release_team.md", 1)


def test_sheet_of_1_3_has_fourteen_features_though_wc_counts_thirteen_rows():
    """v1.3's features.csv (CRLF, no newline after its last row) lists 14 features: `wc -l` counts 14 line ends,
    the header's among them, which reads as 13. Every row is a feature, the last one too."""
    header = "Item,Stage,Status,SIG,Proposal link,Dev Lead,Assignee,Entity,Docs,Docs ETA,PRs"
    rows = [
        f"Feature {n},Alpha,Merged,Node,https://github.com/kubernetes/kubernetes/pull/{n},a,b,Google,N/A,-,-"
        for n in range(14)
    ]
    text = "\r\n".join([header, *rows])
    assert text.count("\n") == 14
    assert len(parse_features(text).features) == 14


def test_a_sheet_records_shipped_only_where_its_status_says_so():
    """1.11's sheet marks 10 features "Planned" and 14 "In Progress", beside an empty "Merged" column: tracked,
    none recorded as shipped. 1.3's "Merged" is shipped; a "Merged" column saying yes is too."""
    text = (
        "Maintainer(s):,,,,\n ,,, ,\n"
        "Feature Name,Feature Status,Stage Status,Stage,SIG,Merged\n"
        "213: Provide RunAsGroup,Planned,Graduating,Alpha,node,\n"
        "265: IPVS,In Progress,Graduating,Stable,network,\n"
        "279: Limit node access,Tracked,Graduating,Beta,auth,\n"
        "281: Dynamic Kubelet Configuration,In Progress,Graduating,Beta,node,yes\n"
        "284: Resizing PVs,Merged,Graduating,Beta,storage,\n"
        "285: Not this one,Not merged,Graduating,Beta,storage,\n"
    )
    sheet = parse_features(text)
    assert sheet.has_status
    assert [(f.number, f.shipped) for f in sheet.features] == [
        (213, None),
        (265, None),
        (279, None),
        (281, True),
        (284, True),
        (285, None),
    ]
    assert not parse_features("Feature name,Stage,SIG\nThing,Alpha,SIG-Node\n").has_status
