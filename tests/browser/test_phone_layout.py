"""Every public page on a 390-px phone in headless Chromium: the page never scrolls sideways,
wide tables become cards with their key column first, charts fit and their labels do not overlap, agenda titles
show their Markdown formatted. With `make demo`'s data (the curated fixtures, stats computed).

Screenshots of every page are kept in test-artifacts/phone/ (SIGTRACKER_ARTIFACTS overrides the folder; it is
git-ignored) for a person to look at; the run prints the folder.
"""

import datetime
import os
import re
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import URLPattern, URLResolver, get_resolver

from tests.factories import AgendaItemFactory, KepFactory, MeetingFactory

pytestmark = [pytest.mark.browser]

PHONE = {"width": 390, "height": 844}
ARTIFACTS = Path(os.environ.get("SIGTRACKER_ARTIFACTS") or Path(__file__).resolve().parents[2] / "test-artifacts")
SHOTS = ARTIFACTS / "phone"
#: Not pages of the public site: the admin has its own layout; the JSON API, the health check are not HTML.
SKIPPED_PREFIXES = ("admin/", "api/", "healthz", "favicon.ico")
MARKDOWN_TITLE = "~~done~~ `GRPCContainerProbe` to GA, see https://github.com/kubernetes/kubernetes/pull/107734"


def public_routes(resolver=None, prefix=""):
    for entry in (resolver or get_resolver()).url_patterns:
        route = prefix + str(entry.pattern)
        if route.startswith(SKIPPED_PREFIXES):
            continue
        if isinstance(entry, URLResolver):
            yield from public_routes(entry, route)
        elif isinstance(entry, URLPattern):
            yield route


def build_site():
    """The demo's data, stats computed, and a meeting whose agenda titles are typed as people type them."""
    from devdata.fixtures import FIXTURE_FILES
    from releases.services.stats import release_stats_compute

    call_command("loaddata", *FIXTURE_FILES, verbosity=0)
    release_stats_compute()
    meeting = MeetingFactory(
        sig__slug="sig-phone", date=datetime.date(2022, 12, 20), open_prs=230, prs_created=31, prs_merged=25
    )
    AgendaItemFactory(meeting=meeting, order=1, title=MARKDOWN_TITLE).keps.add(KepFactory(number=99001))
    AgendaItemFactory(
        meeting=meeting,
        order=2,
        title="A_very_long_identifier_without_spaces_" * 4 + " https://example.org/" + "x" * 120,
        body="`code` and https://example.org/" + "y" * 200,
    )
    return {
        "version": "1.24",
        "number": "2727",
        "slug": "dra",
        "sig": "sig-phone",
        "sig_slug": "sig-phone",
        "date": "2022-12-20",
    }


ARGUMENT = re.compile(r"<(?:[^>:]+:)?([^>]+)>|\(\?P<([^>]+)>[^)]*\)")


def urls(values):
    """The URL of every route, its arguments filled from `values`; routes with other arguments (an e-mail
    confirmation key) are left out."""
    found = []
    for route in sorted(set(public_routes())):
        route = route.replace("^", "").replace("$", "")
        names = [a or b for a, b in ARGUMENT.findall(route)]
        if any(name not in values for name in names):
            continue
        found.append("/" + ARGUMENT.sub(lambda m: values[m.group(1) or m.group(2)], route))
    # Pages that are a state of another: search results, a filtered list, a 404.
    return [*found, "/meetings/?q=GRPCContainerProbe", "/keps/?stage=beta", "/releases/9.99/"]


def shot_name(url):
    return re.sub(r"[^A-Za-z0-9.-]+", "_", url.strip("/")) or "home"


def test_every_public_page_fits_a_phone(browser, live_server, transactional_db, capsys):
    values = build_site()
    shutil.rmtree(SHOTS, ignore_errors=True)  # only this run's pages
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport=PHONE, device_scale_factor=1)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    too_wide, checked = [], []
    for url in urls(values):
        answer = page.request.get(live_server.url + url)
        if answer.status == 405 or "text/html" not in answer.headers.get("content-type", ""):
            continue  # calendar feeds, CSV, and the forms' POST-only actions
        page.goto(live_server.url + url)
        checked.append(url)
        width = page.evaluate("document.documentElement.scrollWidth")
        page.screenshot(path=str(SHOTS / f"{shot_name(url)}.png"), full_page=True)
        if width > PHONE["width"]:
            too_wide.append(f"{url}: {width} px")
    context.close()
    with capsys.disabled():
        print(f"\nphone screenshots ({len(checked)} pages at 390 px): {SHOTS}")
    assert not too_wide, f"pages wider than a 390-px phone: {too_wide}"
    assert not errors
    # Every kind of page was seen, not only the lists.
    for expected in ("/", "/releases/1.24/", "/keps/2727/", "/design-groups/dra/", "/meetings/sig-phone/2022-12-20/"):
        assert expected in checked


@pytest.fixture
def phone(browser, live_server, transactional_db):
    build_site()
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    yield page
    assert not page.errors
    context.close()


def test_wide_tables_become_cards_with_the_key_column_first(phone, live_server):
    for url, key in (
        ("/releases/", "Merge rate"),
        ("/releases/1.24/enhancements/", "Status"),
        ("/keps/", "Stage"),
    ):
        phone.goto(live_server.url + url)
        table = phone.locator(".table-wrap table.cards").first
        assert table.is_visible(), f"{url}: the table is not shown as cards on a phone"
        wrap = phone.locator(".table-wrap").first.bounding_box()
        assert table.bounding_box()["width"] <= wrap["width"] + 1
        row = table.locator("tbody tr").first
        cells = row.locator("td, th")
        labels = [cells.nth(i).get_attribute("data-label") for i in range(cells.count())]
        boxes = [cells.nth(i).bounding_box() for i in range(cells.count())]
        visible = [(labels[i], boxes[i]) for i in range(len(labels)) if boxes[i] and boxes[i]["height"] > 0]
        reading_order = [label for label, _ in sorted(visible, key=lambda item: (item[1]["y"], item[1]["x"]))]
        # The row's name comes first, then its key column, before every other column.
        assert reading_order[0] == labels[0], f"{url}: {reading_order}"
        assert key in reading_order[1:3] and reading_order.index(key) < reading_order.index(
            "Title" if "Title" in labels else labels[1]
        ), f"{url}: {reading_order}"
        shot = SHOTS / f"cards-{shot_name(url)}.png"
        SHOTS.mkdir(parents=True, exist_ok=True)
        table.screenshot(path=str(shot))
    # On a wide screen the same table stays a table, its columns in their usual order.
    phone.set_viewport_size({"width": 1280, "height": 900})
    phone.goto(live_server.url + "/releases/")
    assert phone.locator("table.cards").count() == 0
    assert phone.locator("table.data-table thead th", has_text="Merge rate").is_visible()


def test_charts_fit_the_phone_and_their_labels_do_not_overlap(phone, live_server):
    for url in ("/releases/", "/meetings/"):
        for scheme in ("light", "dark"):
            phone.emulate_media(color_scheme=scheme)
            phone.goto(live_server.url + url)
            svg = phone.locator("figure.chart svg")
            box = svg.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], f"{url}: the chart is cut off"
            texts = phone.evaluate(
                """svg => [...svg.querySelectorAll('text')]
                     .filter(t => getComputedStyle(t).display !== 'none')
                     .map(t => { const r = t.getBoundingClientRect();
                                 return [t.textContent, r.left, r.top, r.right, r.bottom]; })""",
                svg.element_handle(),
            )
            for i, (a, *ra) in enumerate(texts):
                assert ra[0] >= box["x"] - 1 and ra[2] <= box["x"] + box["width"] + 1, f"{url}: {a!r} sticks out"
                for b, *rb in texts[i + 1 :]:
                    apart = ra[2] <= rb[0] or rb[2] <= ra[0] or ra[3] <= rb[1] or rb[3] <= ra[1]
                    assert apart, f"{url} ({scheme}): {a!r} overlaps {b!r}"
            # Text on a phone is readable: at least 9 CSS pixels high.
            sizes = phone.evaluate(
                "svg => [...svg.querySelectorAll('text.tick')].map(t => t.getBoundingClientRect().height)"
                ".filter(h => h)",
                svg.element_handle(),
            )
            assert min(sizes) >= 9
            # Colours come from the stylesheet's palette, which changes in dark mode.
            fill = phone.evaluate("svg => getComputedStyle(svg.querySelector('.bar')).fill", svg.element_handle())
            expected = {"light": "rgb(11, 92, 173)", "dark": "rgb(88, 166, 255)"}[scheme]
            assert fill == expected, (url, scheme, fill)
            phone.locator("figure.chart").screenshot(path=str(SHOTS / f"chart-{shot_name(url)}-{scheme}.png"))
    phone.goto(live_server.url + "/releases/")
    no_data = phone.locator("figure.chart svg text.no-data")
    assert no_data.count() >= 1 and no_data.first.is_visible() and no_data.first.text_content() == "no data"


def test_agenda_titles_show_their_markdown(phone, live_server):
    phone.goto(live_server.url + "/meetings/sig-phone/2022-12-20/")
    title = phone.locator("ol.agenda h3").first
    assert title.locator("del").inner_text() == "done"
    assert title.locator("code").inner_text() == "GRPCContainerProbe"
    link = title.locator("a")
    assert link.get_attribute("href") == "https://github.com/kubernetes/kubernetes/pull/107734"
    assert link.get_attribute("rel") == "nofollow noopener"
    assert "`" not in title.inner_text() and "~~" not in title.inner_text()
    phone.goto(live_server.url + "/keps/99001/")
    mention = phone.locator("li", has_text="GRPCContainerProbe").first
    assert mention.locator("code").inner_text() == "GRPCContainerProbe"


def test_favicon(phone, live_server):
    phone.goto(live_server.url + "/")
    href = phone.locator('link[rel="icon"]').get_attribute("href")
    assert phone.request.get(live_server.url + href).headers["content-type"].startswith("image/svg+xml")
    response = phone.request.get(live_server.url + "/favicon.ico")
    assert response.ok and response.headers["content-type"].startswith("image/svg+xml")
