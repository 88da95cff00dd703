"""The browser fixtures themselves: a page runs its script, reports what went wrong, and a
Content-Security-Policy of ``default-src 'none'`` keeps an inline script from running (the
HTML pages of ``inspect`` rely on Chromium enforcing it)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from tests.htmlmap.conftest import PageLog


def test_page_runs_its_script(page: Page, page_log: PageLog) -> None:
    page.set_content('<p id="out">before</p>'
                     '<script>document.getElementById("out").textContent = "after";</script>')
    assert page.text_content("#out") == "after"
    assert page_log.problems() == []


def test_page_log_records_errors_and_dialogs(page: Page, page_log: PageLog) -> None:
    page.set_content('<script>console.error("logged"); alert("hello");</script>'
                     '<script>throw new Error("thrown");</script>')
    page.wait_for_function("true")
    assert page_log.console_errors == ["logged"]
    assert page_log.dialogs == ["alert: hello"]
    assert len(page_log.page_errors) == 1 and "thrown" in page_log.page_errors[0]


def test_content_security_policy_blocks_inline_script(page: Page, page_log: PageLog,
                                                      tmp_path: Path) -> None:
    html = tmp_path / "csp.html"
    html.write_text('<!DOCTYPE html><html><head><meta charset="utf-8">'
                    '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'">'
                    '</head><body><p id="out">untouched</p>'
                    '<script>document.getElementById("out").textContent = "ran";'
                    'window.__ran = true;</script></body></html>', encoding="utf-8")
    page.goto(html.as_uri())
    assert page.text_content("#out") == "untouched"
    assert page.evaluate("window.__ran === undefined")
    assert html.as_uri() in page_log.requests
    assert any("Content Security Policy" in m for m in page_log.console_errors)
