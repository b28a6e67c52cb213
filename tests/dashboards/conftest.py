"""The headless browser the page tests read the demo site with (Debian's chromium and chromedriver)."""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")


@pytest.fixture(scope="session")
def browser():
    if not (CHROMIUM and CHROMEDRIVER):
        if os.environ.get("CI"):
            pytest.fail("CI needs chromium and chromium-driver (Debian packages); make test installs them")
        pytest.skip("chromium or chromedriver not installed (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1400,1000",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def open_page(browser, path, *, charts: bool = False) -> None:
    """Load a page and wait until it is the one shown (a click before may still be navigating)."""
    from selenium.webdriver.support.ui import WebDriverWait  # as the browser fixture: only with selenium

    browser.get(path.as_uri())
    WebDriverWait(browser, 20).until(
        lambda b: b.current_url == path.as_uri() and b.execute_script("return document.readyState") == "complete"
    )
    if charts:  # vega-embed draws asynchronously: wait until each chart has its menu
        browser.execute_async_script(
            """const done = arguments[arguments.length - 1]; const start = Date.now();
            (function wait() { const c = document.querySelectorAll('div.chart').length;
              const m = document.querySelectorAll('div.chart .vega-actions').length;
              if (m >= c || Date.now() - start > 20000) done(); else setTimeout(wait, 100); })();"""
        )
