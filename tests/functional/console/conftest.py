"""Fixtures of the console's browser tests: Debian's Chromium driven by Playwright.

One browser per test module (each test opens its own context: its own
cookies).  Chromium is Debian's package (``make test-console`` installs it:
``tools/ensure-chromium.sh``); Playwright's own browser download does not
work here, so it is started from ``/usr/bin/chromium``.  Without either, the
tests are skipped saying why, or fail under ``make test-console``
(``HEARTH_REQUIRE_BROWSER=1``).

Screenshots of the main pages are taken by the tests into ``screenshots``'s
directory: a temporary one, or ``docs/images/console`` when
``HEARTH_CONSOLE_SCREENSHOTS=docs`` (``make console-screenshots``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]
DOCS_IMAGES = Path(__file__).resolve().parents[3] / "docs" / "images" / "console"


def _missing(message: str) -> None:
    """Skip the browser tests, or fail them under make test-console (HEARTH_REQUIRE_BROWSER=1)."""
    if os.environ.get("HEARTH_REQUIRE_BROWSER") == "1":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """A headless Chromium for the module's tests (a fresh profile)."""
    if not shutil.which(CHROMIUM):
        _missing(f"{CHROMIUM} is missing (make test-console installs Debian's chromium)")
    try:
        from playwright import sync_api
    except ImportError as error:
        _missing(f"Playwright for Python is missing ({error}): make venv installs it")
    with sync_api.sync_playwright() as playwright:
        # Playwright gives the browser a fresh profile directory of its own
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory) -> Path:
    """Return where the tests put their screenshots (the docs' images on request)."""
    if os.environ.get("HEARTH_CONSOLE_SCREENSHOTS") == "docs":
        DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
        return DOCS_IMAGES
    return tmp_path_factory.mktemp("console-screenshots")
