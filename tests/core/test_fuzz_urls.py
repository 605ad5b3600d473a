"""Every public page fuzzed over its query parameters and URL arguments: never a 500.

The pages are discovered from the URL configuration, so a new page is covered without a new test. Each answer
must be a 200 (empty or clamped result), a redirect, a 400 or a 404.
"""

import datetime
import re
import string
from urllib.parse import quote

import django_filters
import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.factories import (
    AgendaItemFactory,
    DesignGroupFactory,
    FeatureGateFactory,
    KepFactory,
    MeetingFactory,
    MilestoneFactory,
    PrrApprovalFactory,
    RetroItemFactory,
    TrackedEnhancementFactory,
)

SKIPPED_PREFIXES = ("admin/",)
# Any answer but a server error: 401/403 (sign-in and private pages), 405 (POST-only endpoints), 429 (the API's
# rate limit) are the client's to handle.
ALLOWED = {200, 301, 302, 303, 304, 400, 401, 403, 404, 405, 429}


def _public_patterns(resolver=None, prefix=""):
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern)
        if route.startswith(SKIPPED_PREFIXES):
            continue
        if isinstance(entry, URLResolver):
            yield from _public_patterns(entry, route)
        elif isinstance(entry, URLPattern):
            yield route, entry


PATTERNS = sorted({route: entry for route, entry in _public_patterns()}.items())


@pytest.fixture
def data(db):
    tracked = TrackedEnhancementFactory(release__version="1.24")
    MilestoneFactory(release=tracked.release)
    RetroItemFactory(retrospective__release=tracked.release, category="action_item", status="open")
    FeatureGateFactory(kep=tracked.kep)
    PrrApprovalFactory(kep=tracked.kep)
    group = DesignGroupFactory(slug="dra")
    group.keps.add(tracked.kep, KepFactory(stage="beta"))
    meeting = MeetingFactory(date=datetime.date(2022, 4, 26))
    AgendaItemFactory(meeting=meeting, title="perma beta <script>alert(1)</script>").keps.add(tracked.kep)
    return {
        "version": "1.24",
        "number": str(tracked.kep.number),
        "slug": "dra",
        "sig": meeting.sig.slug,
        "date": "2022-04-26",
        # Arguments of the API's detail routes, sign-in and unsubscribe links: real-looking, not real.
        "pk": str(tracked.pk),
        "kind": "digest",
        "token": "not-a-token",
        "secret": "not-a-secret",
        "key": "not-a-key",
        "uidb36": "1",
    }


JUNK = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=string.printable, min_size=200, max_size=2000),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.sampled_from(
        [
            "",
            "0",
            "-1",
            "99999999999999999999999",
            "1e309",
            "NaN",
            "2022-02-30",
            "2022-13-45",
            "9999-12-31",
            "<script>alert(1)</script>",
            '" onerror="alert(1)',
            "javascript:alert(1)",
            "' OR 1=1 --",
            "%00",
            "\x00",
            "🦄" * 50,
            "a" * 10000,
            "csv",
            "xlsx",
            "-number",
            "title,-number",
        ]
    ),
    st.sampled_from(["²", "①", "٢٧٢٧", "𝟐𝟕𝟐𝟕", "KEP-²", "#①", "1.24\x00", "-" * 33, "!" * 40, "|" * 40, "<->" * 20]),
)
KNOWN_KEYS = [
    "q", "page", "per_page", "sort", "_export", "sig", "owning_sig", "participating_sig", "stage", "status",
    "type", "target_stage", "author", "approver", "prr_approver", "design_group", "release", "year", "presenter",
    "kep", "n", "min_releases", "cancelled", "date", "version",
]  # fmt: skip
PARAMS = st.dictionaries(
    st.one_of(st.sampled_from(KNOWN_KEYS), st.text(alphabet=string.ascii_letters + "_[]", min_size=1, max_size=12)),
    JUNK,
    max_size=5,
)


def _fill_route(route: str, values: dict, junk: str | None = None) -> str:
    """The URL of a route with each `<converter:name>` (or regex group `(?P<name>…)`, as DRF and allauth write
    theirs) replaced by a valid value, or by `junk` for all of them."""

    def value(match):
        return junk if junk is not None else values.get(match.group(1), "1")

    route = re.sub(r"\(\?P<(\w+)>(?:[^()]|\([^()]*\))*\)", value, route)
    route = route.replace("^", "").replace("$", "").replace("\\.", ".").replace("/?", "/")
    return "/" + re.sub(r"<(?:[^>:]+:)?([^>]+)>", value, route)


# A wide net of random queries, 12 a page: the text that once broke pages is sent on every run by the tests below,
# so more examples here only repeat them at random (25 took 56 s of the suite's 950 s of test time).
@pytest.mark.parametrize("route,entry", PATTERNS, ids=[route or "/" for route, _ in PATTERNS])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(params=PARAMS)
def test_query_parameters_never_cause_a_server_error(data, route, entry, params):
    url = _fill_route(route, data)
    client = Client(raise_request_exception=False)
    response = client.get(url, params)
    assert response.status_code in ALLOWED, (url, params, response.status_code)


@pytest.mark.parametrize(
    "route,entry",
    [(r, e) for r, e in PATTERNS if e.pattern.converters],
    ids=[r for r, e in PATTERNS if e.pattern.converters],
)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.one_of(st.text(alphabet=string.ascii_letters + string.digits + "-._~%", min_size=1, max_size=60)))
def test_url_arguments_never_cause_a_server_error(data, route, entry, value):
    url = _fill_route(route, data, junk=value)
    response = Client(raise_request_exception=False).get(url)
    assert response.status_code in ALLOWED, (url, response.status_code)


# Text that once gave anonymous 500s on PostgreSQL, tried on every page, always.
HOSTILE_TEXT = {
    "superscript digit": "²",
    "circled digit": "①",
    "KEP and a superscript": "KEP-²",
    "Arabic-Indic digits": "٢٧٢٧",
    "NUL": "\x00",
    "NUL inside": "1.24\x00",
    "33 dashes": "-" * 33,
    "dashes and spaces": "- " * 200,
    "negations": "!" * 300,
    "or runs": "or " * 500,
    "pipes and ampersands": "| & " * 300,
    "phrase operators": "<->" * 300,
    "quotes": '"' * 301,
    "15k-word phrase": '"' + "word " * 15_000 + '"',
    "15k words": "kubelet " * 15_000,
    "100k-digit number": "9" * 100_000,
    "100k-digit KEP": "KEP-" + "9" * 100_000,
}
HOSTILE_URL_ARGS = {"NUL": "%00", "NUL after a version": "1.24%00", "superscript digit": "%C2%B2", "two NULs": "%00%00"}


# Each filter a page reads gets every hostile string on its own: one invalid filter makes the whole FilterSet
# invalid, so sent together the others would never be applied. Fixed-choice filters (a status, a stage, yes/no;
# not a SIG or a release, which are looked up) refuse any value not on their list before anything reads it, so
# they are left to the sweep below, with the
# arguments views read beside their FilterSet, which do not mask each other: a list page's paging, sort and export
# (core.views.PublicListView), the API's cursor paging (api.pagination) and `format`, the dashboard's SIG
# (releases.views), where sign-in sends you next (allauth).
FIXED_CHOICE_FILTERS = (django_filters.ChoiceFilter, django_filters.BooleanFilter)
OTHER_ARGUMENTS = ("page", "per_page", "sort", "_export", "cursor", "page_size", "format", "sig", "next")
# Text longer than the request line gunicorn accepts by default (4,094 bytes) goes in the sweep only to the keys
# some code parses: in a key nothing reads, text is only carried into the page's links, which quote any text
# alike, and thirty copies of 100 kB in every link took two thirds of the sweep's time (42 of 59 s, 3 Dec 2026).
LONGEST_TO_EVERY_KEY = 4094
# What the sweep sends: the four keys the search-text incidents came through, every key the hypothesis test above
# tries, and the other arguments.
SWEEP_KEYS = tuple(dict.fromkeys(("q", "kep", "sig", "presenter", *KNOWN_KEYS, *OTHER_ARGUMENTS)))


def _filters(entry) -> dict:
    view = getattr(entry.callback, "view_class", None) or getattr(entry.callback, "cls", None)
    filterset = getattr(view, "filterset_class", None)
    return {} if filterset is None else filterset.base_filters


def _parses_free_text(f) -> bool:
    return isinstance(f, django_filters.ModelChoiceFilter) or not isinstance(f, FIXED_CHOICE_FILTERS)


def filters_read(entry) -> tuple[str, ...]:
    """The filters of a route's FilterSet (views and API alike) that parse more than a fixed list of choices."""
    return tuple(name for name, f in _filters(entry).items() if _parses_free_text(f))


def keys_parsed_beside(entry) -> tuple[str, ...]:
    """The keys of the sweep some code of the route parses: its fixed-choice filters and the other arguments."""
    fixed = (name for name, f in _filters(entry).items() if not _parses_free_text(f))
    return tuple(dict.fromkeys((*fixed, *OTHER_ARGUMENTS)))


def url_argument_names(route: str) -> list[str]:
    return re.findall(r"\(\?P<(\w+)>", route) + re.findall(r"<(?:[^>:]+:)?([^>]+)>", route)


TARGETED = [(route, entry, key) for route, entry in PATTERNS for key in filters_read(entry)]
CONVERTED = [(route, entry, name) for route, entry in PATTERNS for name in url_argument_names(route)]


def _assert_never_a_server_error(requests):
    """Sends every (url, params, label) and lists each answer outside ALLOWED, so one failure hides no other."""
    client = Client(raise_request_exception=False)
    failures = []
    for url, params, label in requests:
        status = client.get(url, params).status_code
        if status not in ALLOWED:
            failures.append((label, url[:80], sorted(params), status))
    assert not failures, failures


@pytest.mark.parametrize("route,entry,key", TARGETED, ids=[f"{route or '/'}?{key}" for route, _, key in TARGETED])
def test_hostile_text_in_each_parameter_a_page_reads_never_causes_a_server_error(data, route, entry, key):
    url = _fill_route(route, data)
    _assert_never_a_server_error((url, {key: text}, label) for label, text in HOSTILE_TEXT.items())


@pytest.mark.parametrize("route,entry,name", CONVERTED, ids=[f"{route}<{name}>" for route, _, name in CONVERTED])
def test_hostile_text_in_each_url_argument_never_causes_a_server_error(data, route, entry, name):
    requests = (
        (_fill_route(route, {**data, name: quote(text, safe="")}), {}, label) for label, text in HOSTILE_TEXT.items()
    )
    _assert_never_a_server_error(requests)


@pytest.mark.parametrize("route,entry", PATTERNS, ids=[route or "/" for route, _ in PATTERNS])
def test_hostile_text_in_every_other_parameter_never_causes_a_server_error(data, route, entry):
    """The sweep: each string once, in every other key at the same time: the arguments views read beside their
    FilterSet, fixed-choice filters, what reads the whole query string (middleware, templates that carry the
    filters into links), and keys a page does not read at all."""
    url = _fill_route(route, data)
    read = filters_read(entry)
    rest = [key for key in SWEEP_KEYS if key not in read]
    parsed = [key for key in keys_parsed_beside(entry) if key not in read]
    _assert_never_a_server_error(
        (url, dict.fromkeys(rest if len(text) <= LONGEST_TO_EVERY_KEY else parsed, text), label)
        for label, text in HOSTILE_TEXT.items()
    )


def test_the_filters_each_page_reads_are_found():
    """The targeted tests above only mean something if discovery finds what pages read."""
    reads = {route: set(filters_read(entry)) for route, entry in PATTERNS}
    assert {"q", "author", "approver", "prr_approver", "owning_sig", "release"} <= reads["keps/"]
    assert {"q", "presenter", "kep", "sig"} <= reads["meetings/"] and "cancelled" not in reads["meetings/"]
    assert {"q", "release", "sig"} <= reads["api/v1/^tracked-enhancements/$"] and reads["healthz"] == set()
    assert {"version", "number", "slug", "token", "date"} <= {name for _, _, name in CONVERTED}


@pytest.mark.parametrize("value", HOSTILE_URL_ARGS.values(), ids=HOSTILE_URL_ARGS.keys())
@pytest.mark.parametrize(
    "route,entry",
    [(r, e) for r, e in PATTERNS if e.pattern.converters],
    ids=[r for r, e in PATTERNS if e.pattern.converters],
)
def test_hostile_url_arguments_are_not_found(data, route, entry, value):
    url = _fill_route(route, data, junk=value)
    response = Client(raise_request_exception=False).get(url)
    # A page that needs a signed-in person sends anonymous visitors to sign in before it reads its arguments.
    to_sign_in = response.status_code == 302 and response["Location"].startswith(("/accounts/login/", "/admin/login/"))
    assert response.status_code in {400, 404} or to_sign_in, (url, response.status_code)


def test_every_public_page_is_covered():
    routes = {route for route, _ in PATTERNS}
    # The fuzzing above only means something if it reaches the pages; fail loudly if discovery breaks.
    assert {"releases/", "keps/", "meetings/"} <= routes, routes
