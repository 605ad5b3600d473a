"""Headless Chromium (Debian's `chromium`) driven by Playwright against Django's live server.

Playwright's own browser download is not used: the tests launch /usr/bin/chromium. Without it the
browser tests skip on a laptop and fail in CI (SIGTRACKER_REQUIRE_SERVICES=1).
"""

import os
import shutil

import pytest

from tests.conftest import require_service

CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
# Playwright's sync API runs an event loop in this thread; Django must allow the ORM calls tests make around it.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="session")
def browser():
    require_service(bool(CHROMIUM), "Debian's chromium is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - a dev dependency
        require_service(False, "playwright is not installed")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser, live_server):
    """A fresh browser page; `page.goto(live_server.url + "/releases/")`. Collects page errors and dialogs."""
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.errors = []
    page.dialogs = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))

    def on_dialog(dialog):
        page.dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    yield page
    context.close()
