"""Fixtures for the browser tests of ``inspect``'s HTML pages: a headless Chromium (Debian's
``chromium``, driven by Playwright's sync API), one per test module in each test process
(pytest-xdist runs several; see :func:`browser`), and per test a fresh page whose console
errors, uncaught exceptions, dialogs and requests are logged.

``GAMESERDE_CHROMIUM`` names the browser binary (default: ``chromium`` on PATH). Without
the browser or Playwright the tests fail on CI (``CI=true``) and are skipped elsewhere.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NoReturn

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page, Request

CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic")


def _missing(message: str) -> NoReturn:
    if os.environ.get("CI") == "true":
        pytest.fail(message + " (CI=true: failing instead of skipping)", pytrace=False)
    pytest.skip(message)


@dataclass
class PageLog:
    """What a page did: its console's error messages, its uncaught exceptions, the dialogs
    it opened (``alert: text``; each is dismissed) and the URL of every request."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions and dialogs, one line each (none on a sound
        page)."""
        return ([f"console error: {m}" for m in self.console_errors]
                + [f"uncaught: {e}" for e in self.page_errors]
                + [f"dialog {d}" for d in self.dialogs])

    def on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.console_errors.append(message.text)

    def on_page_error(self, error: Exception) -> None:
        self.page_errors.append(str(error))

    def on_dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def on_request(self, request: Request) -> None:
        self.requests.append(request.url)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Headless Chromium, one per test module and process. Not for the whole session:
    Playwright's sync API keeps an asyncio loop running while it is started, and the other
    tests a process runs (``asyncio.run``) need it stopped."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright (the pin playwright==1.65.2 of gameserde's test extra) is not "
                 "installed; the browser tests of inspect's HTML pages need it")
    given = os.environ.get("GAMESERDE_CHROMIUM")
    if given and not (os.path.isfile(given) and os.access(given, os.X_OK)):
        _missing(f"GAMESERDE_CHROMIUM names {given!r}, which is not an executable file; the "
                 "browser tests of inspect's HTML pages need a Chromium binary")
    executable = given or shutil.which("chromium")
    if executable is None:
        _missing("chromium (Debian package chromium, or GAMESERDE_CHROMIUM naming a Chromium "
                 "binary) is not on PATH; the browser tests of inspect's HTML pages need it")
    playwright = sync_playwright().start()
    try:
        chromium = playwright.chromium.launch(executable_path=executable, headless=True,
                                              args=list(CHROMIUM_ARGS))
        yield chromium
        chromium.close()
    finally:
        playwright.stop()


@pytest.fixture
def page_log() -> PageLog:
    """The log of the test's :func:`page`."""
    return PageLog()


@pytest.fixture
def page(browser: Browser, page_log: PageLog) -> Iterator[Page]:
    """A new page (in a context of its own, 1280x800) logging into :func:`page_log`."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        new = context.new_page()
        new.on("console", page_log.on_console)
        new.on("pageerror", page_log.on_page_error)
        new.on("dialog", page_log.on_dialog)
        new.on("request", page_log.on_request)
        yield new
    finally:
        context.close()
