"""Agenda titles as typed in the notes: `code`, ~~done~~, **bold**, *em*, links and bare URLs render; hostile
input stays inert text."""

import datetime
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.markdown_inline import MAX_INLINE_CHARS, render_inline_markdown
from tests.factories import AgendaItemFactory, KepFactory, MeetingFactory

TAG = re.compile(r"<(/?)([a-zA-Z0-9]+)([^>]*)>")


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("`kubelet --cgroup-driver` default", "<code>kubelet --cgroup-driver</code> default"),
        ("``a `tick` inside``", "<code>a `tick` inside</code>"),
        ("~~done~~ swap beta", "<del>done</del> swap beta"),
        ("**KEP-2727** graduates", "<strong>KEP-2727</strong> graduates"),
        ("*maybe* 1.25", "<em>maybe</em> 1.25"),
        ("snake_case_name and 2*3*4", "snake_case_name and 2*3*4"),
        (
            "[gRPC probes](https://github.com/kubernetes/enhancements/issues/2727)",
            '<a href="https://github.com/kubernetes/enhancements/issues/2727" rel="nofollow noopener">gRPC probes</a>',
        ),
        (
            "see https://k8s.io/docs/concepts/.",
            'see <a href="https://k8s.io/docs/concepts/" rel="nofollow noopener">https://k8s.io/docs/concepts/</a>.',
        ),
        (
            "(PR https://github.com/kubernetes/kubernetes/pull/107734)",
            '(PR <a href="https://github.com/kubernetes/kubernetes/pull/107734" rel="nofollow noopener">'
            "https://github.com/kubernetes/kubernetes/pull/107734</a>)",
        ),
        ("1. not a list, # not a heading", "1. not a list, # not a heading"),
        ("a < b && c > d", "a &lt; b &amp;&amp; c &gt; d"),
        ("`<b>` is shown as code", "<code>&lt;b&gt;</code> is shown as code"),
        ("", ""),
    ],
)
def test_inline_markdown(text, html):
    assert render_inline_markdown(text) == html


@pytest.mark.parametrize(
    "hostile",
    [
        '<script>alert("xss")</script>',
        '<img src=x onerror="alert(1)">',
        "[click](javascript:alert(1))",
        "[click](JaVaScRiPt:alert%281%29)",
        '<a href="javascript:alert(2)">or me</a>',
        '[x](https://example.org/" onmouseover="alert(3))',
        "`</code><script>alert(4)</script>`",
        '**<svg onload="alert(5)">**',
        "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "javascript:alert(6)",
    ],
)
def test_hostile_titles_stay_inert(hostile):
    html = render_inline_markdown(hostile)
    assert_inert(html)


def assert_inert(html):
    for closing, name, attrs in TAG.findall(html):
        assert name in {"code", "del", "s", "strong", "em", "a"}, html
        if name == "a" and not closing:
            assert re.fullmatch(r' href="(https?://|mailto:)[^"]*" rel="nofollow noopener"', attrs), html
        elif not closing:
            assert attrs == "", html


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("`~*_[]()<>\"' :/.=&ajvscriphtonerolmx\n")) | st.characters(),
        max_size=200,
    )
)
def test_any_title_renders_to_allowed_tags_only(text):
    assert_inert(render_inline_markdown(text))
    assert_inert(render_inline_markdown(text, links=False))


def test_without_links_inside_a_link():
    html = render_inline_markdown("`x` [docs](https://k8s.io) https://k8s.io", links=False)
    assert html == "<code>x</code> docs https://k8s.io"


def test_a_long_pasted_title_is_shown_whole_and_formatted_at_its_start():
    text = "`code` " + "word " * 1000 + "`late`"
    html = render_inline_markdown(text)
    assert html.startswith("<code>code</code> word") and html.endswith("`late`")
    assert len(text) > MAX_INLINE_CHARS


def test_nested_formatting_is_bounded():
    text = "**" * 200 + "x" + "**" * 200
    assert "x" in render_inline_markdown(text)


@pytest.mark.django_db
def test_meeting_page_and_kep_page_render_agenda_titles(client):
    kep = KepFactory(number=2727)
    meeting = MeetingFactory(sig__slug="sig-node", date=datetime.date(2022, 3, 1))
    item = AgendaItemFactory(
        meeting=meeting,
        order=1,
        title="~~done~~ `GRPCContainerProbe` to GA, see https://github.com/kubernetes/kubernetes/pull/107734",
    )
    item.keps.add(kep)
    AgendaItemFactory(meeting=meeting, order=2, title='<img src=x onerror="alert(1)"> [x](javascript:alert(2))')
    html = client.get("/meetings/sig-node/2022-03-01/").content.decode()
    assert "<h3><del>done</del> <code>GRPCContainerProbe</code> to GA, see <a href=" in html
    assert 'rel="nofollow noopener">https://github.com/kubernetes/kubernetes/pull/107734</a></h3>' in html
    assert "&lt;img src=x onerror=" in html and "[x](javascript:alert(2))" in html
    assert "<img src=x" not in html and 'href="javascript' not in html
    kep_html = client.get("/keps/2727/").content.decode()
    assert "— <del>done</del> <code>GRPCContainerProbe</code>" in kep_html
    search = client.get("/meetings/", {"q": "GRPCContainerProbe"}).content.decode()
    assert "<del>done</del> <code>GRPCContainerProbe</code> to GA, see https://github.com" in search
