"""What the web tests share: the browser fixtures (Debian's headless Chromium driven by
Selenium through Debian's chromedriver: nothing is downloaded), and what every suite shares
(Tests/support/quire_testing): its pytest hooks (the header names the package and library
under test; a missing peer is the one rule's skip, but this suite's browser is never
skipped: the fixture fails, saying what to install)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterator, List

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

from quire_testing.plugin import pytest_report_header, pytest_runtest_call, pytest_runtest_setup  # noqa: E402,F401

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
except ImportError:  # pragma: no cover - reported by the fixtures, as a failure
    webdriver = None  # type: ignore[assignment]


def _chromium() -> Any:
    """A new headless Chromium session, its console logged (for the page's errors)."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    if webdriver is None:
        missing.append("the Python package selenium")
    if missing:
        pytest.fail(
            "the browser test needs %s: run scripts/install-deps.sh test (as root), which installs "
            "Debian's chromium and chromium-driver and selenium from PyPI" % ", ".join(missing)
        )
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,1100",
        "--force-device-scale-factor=1",
        "--disable-extensions",
        "--no-first-run",
        "--disable-background-networking",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the page's console, for its errors
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


@pytest.fixture
def browser() -> Iterator[Any]:
    """One Chromium session."""
    driver = _chromium()
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def browsers() -> Iterator[Callable[[], Any]]:
    """Opens Chromium sessions on demand (one per user of a multi-user test); all are closed
    at the end."""
    opened: List[Any] = []

    def open_one() -> Any:
        opened.append(_chromium())
        return opened[-1]

    try:
        yield open_one
    finally:
        for driver in opened:
            driver.quit()
