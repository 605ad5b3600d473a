"""A visitor's text: KEP numbers parsed from ASCII digits only, full-text search bounded for PostgreSQL."""

import pytest
from django.db import connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.text import MAX_SEARCH_WORDS, bound_search_text, parse_kep_number


@pytest.mark.parametrize(
    "text,number",
    [("2727", 2727), ("KEP-2727", 2727), ("kep2727", 2727), ("#2727", 2727), (" KEP-#42 ", 42), ("0042", 42)],
)
def test_kep_numbers_as_people_write_them(text, number):
    assert parse_kep_number(text) == number


@pytest.mark.parametrize("text", ["²", "①", "٢٧٢٧", "𝟐𝟕𝟐𝟕", "KEP-²", "9" * 100_000, "1234567890", "", "KEP-", "27 27"])
def test_not_a_kep_number(text):
    assert parse_kep_number(text) is None


@given(st.text())
def test_parse_kep_number_never_raises(text):
    number = parse_kep_number(text)
    assert number is None or 0 <= number < 10**9


def test_search_text_keeps_what_a_search_box_sends():
    assert bound_search_text('perma beta -swap "beta blockers" or gRPC') == 'perma beta -swap " beta blockers " or gRPC'
    assert bound_search_text("---swap") == "-swap"


@pytest.mark.parametrize("text", ["-" * 33, "- " * 200, "!!! ||| <-> &&", "\x00", "   "])
def test_search_text_of_operators_only_is_empty(text):
    assert bound_search_text(text) == ""


def test_search_text_bounded_in_words():
    assert len(bound_search_text('"' + "word " * 15_000 + '"').split()) <= MAX_SEARCH_WORDS + 1


HOSTILE_SEARCH = st.one_of(
    st.text(),
    st.text(alphabet='-!|&<>()"*:\\ ab1', max_size=400),
    st.lists(st.sampled_from(["-", "--", "or", "and", '"', "!", "<->", "a", "b-c", "|", "(", ")"]), max_size=200).map(
        " ".join
    ),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=HOSTILE_SEARCH)
def test_bounded_search_text_is_always_a_valid_websearch_query(postgres_only, text):
    with connection.cursor() as cursor:
        cursor.execute("SELECT websearch_to_tsquery('english', %s)", [bound_search_text(text)])


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    ["/releases/%00/", "/api/v1/tracked-enhancements/?release=%00", "/api/v1/tracked-enhancements/?release=1.24%00",
     "/keps/?q=%00", "/releases/?x%00=1"],
)  # fmt: skip
def test_a_nul_in_a_path_or_a_query_parameter_is_a_400_not_a_database_error(client, url):
    response = client.get(url)
    assert response.status_code == 400 and b"NUL" in response.content


@pytest.mark.django_db
def test_filter_text_longer_than_the_bound_is_the_fields_error_on_a_page_and_a_400_in_the_api(client):
    from core.filters import MAX_FILTER_TEXT_CHARS

    too_long = "kubelet " * (MAX_FILTER_TEXT_CHARS // 8 + 1)
    page = client.get("/keps/", {"q": too_long})
    assert page.status_code == 200
    assert f"at most {MAX_FILTER_TEXT_CHARS} characters" in page.content.decode()

    api = client.get("/api/v1/keps/", {"q": too_long})
    assert api.status_code == 400
    assert "q" in api.json()

    assert client.get("/api/v1/keps/", {"q": "kubelet " * (MAX_FILTER_TEXT_CHARS // 8)}).status_code == 200


@pytest.mark.django_db
def test_a_sort_naming_no_column_is_dropped_and_a_known_one_kept(client, recwarn):
    page = client.get("/keps/feature-gates/", {"sort": "a.b.c,-name"})
    assert page.status_code == 200
    assert not [w for w in recwarn if "accessor" in str(w.message)]
    # The known column still sorts: the page links its header to reverse the order it was given.
    assert "sort=name" in page.content.decode()
