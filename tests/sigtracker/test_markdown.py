"""Markdown notes are rendered, and whatever is hostile in them comes out inert."""

import pytest
from django.template import Context, Template

from sigtracker.markdown import render_markdown


def test_renders_markdown():
    html = render_markdown("**KEP-2727** graduates\n\n- alpha\n- beta\n\n`code`")
    assert "<strong>KEP-2727</strong>" in html
    assert "<li>alpha</li>" in html
    assert "<code>code</code>" in html


def test_empty_input_gives_empty_string():
    assert render_markdown("") == ""
    assert render_markdown(None) == ""


def test_script_removed_with_its_content():
    html = render_markdown("before <script>alert('x')</script> after")
    assert "<script" not in html
    assert "alert" not in html
    assert "before" in html and "after" in html


@pytest.mark.parametrize(
    "hostile",
    [
        '<img src="x" onerror="alert(1)">',
        '<a href="https://k8s.io" onclick="alert(1)">k</a>',
        '<p onmouseover="alert(1)">hover</p>',
        '<svg onload="alert(1)"></svg>',
        '<body onload="alert(1)">',
    ],
)
def test_event_handlers_removed(hostile):
    html = render_markdown(hostile)
    assert "alert" not in html
    assert "on" + "error" not in html and "onclick" not in html and "onload" not in html


@pytest.mark.parametrize(
    "link",
    [
        "[click](javascript:alert(1))",
        '<a href="javascript:alert(1)">click</a>',
        '<a href="JaVaScRiPt:alert(1)">click</a>',
        '<a href="vbscript:msgbox(1)">click</a>',
        '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">click</a>',
    ],
)
def test_dangerous_link_schemes_dropped(link):
    html = render_markdown(link)
    assert "click" in html
    assert "href" not in html


def test_data_url_images_dropped():
    html = render_markdown("![pixel](data:image/png;base64,iVBORw0KGgo=) <img src='data:image/svg+xml,<svg/>'>")
    assert "data:" not in html


def test_style_and_iframes_removed():
    html = render_markdown('<p style="position:fixed">x</p><style>body{}</style><iframe src="https://evil"></iframe>')
    assert "style" not in html
    assert "iframe" not in html
    assert "body{}" not in html


def test_web_links_kept_with_rel_noopener_nofollow():
    html = render_markdown("[the KEP](https://github.com/kubernetes/enhancements/issues/2727) <mailto:sig@k8s.io>")
    assert 'href="https://github.com/kubernetes/enhancements/issues/2727"' in html
    assert 'rel="noopener nofollow"' in html
    assert 'href="mailto:sig@k8s.io"' in html


def test_raw_html_entities_stay_escaped_in_code():
    html = render_markdown("```\n<script>alert(1)</script>\n```")
    assert "&lt;script&gt;" in html
    assert "<script>" not in html


def test_template_filter():
    rendered = Template("{% load sigtracker_tags %}{{ body|markdown }}").render(
        Context({"body": "*hi* <img src=x onerror=alert(1)>"})
    )
    assert "<em>hi</em>" in rendered
    assert "onerror" not in rendered
