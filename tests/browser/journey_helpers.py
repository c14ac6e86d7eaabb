"""Helpers for the new-user journey: watching the browser console and reading downloads."""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.factories import PASSWORD


@dataclass
class ConsoleWatch:
    """Collects what a developer would see in the console: JS errors and CSP violations.

    Chromium reports a CSP violation as a console error ("Refused to execute ... because it
    violates the following Content Security Policy directive"); uncaught exceptions arrive as
    page errors. The browser's own favicon probe 404s on every site without one, which is not
    the page's doing, so that one is left out.
    """

    problems: list[str] = field(default_factory=list)
    warnings: bool = False  # count console warnings as problems too

    # A request that a newer one replaces (hx-sync="this:replace": Enter pressed while the
    # typed search is still on its way) is aborted by design, and htmx reports every abort as
    # two console errors, "htmx:afterRequest" then "htmx:sendAbort". Only that pair is left
    # out: a failed request ("htmx:sendError") still counts.
    ABORTED = "console error: htmx:sendAbort"
    ABORT_PRELUDE = "console error: htmx:afterRequest"

    def attach(self, page) -> ConsoleWatch:
        page.on("console", self._on_console)
        page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        return self

    def _on_console(self, message) -> None:
        text = message.text
        about_csp = "content security policy" in text.lower()
        if message.type == "error" and "favicon" in message.location.get("url", ""):
            return
        if message.type == "error" or about_csp or (self.warnings and message.type == "warning"):
            problem = f"console {message.type}: {text}"
            if problem.startswith(self.ABORTED):
                if self.problems and self.problems[-1].startswith(self.ABORT_PRELUDE):
                    self.problems.pop()
                return
            self.problems.append(problem)


def download_text(page, link) -> tuple[str, str]:
    """Click a download link as a person would; return the suggested file name and its text."""
    with page.expect_download() as info:
        link.click()
    download = info.value
    return download.suggested_filename, download.path().read_text(encoding="utf-8")


def log_in(page, live_server, username: str) -> None:
    """Log in through the login page's form, as a member does; lands on the list page."""
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")


# A phone's screen, in CSS pixels (the `phone` fixture's viewport).
PHONE = {"width": 390, "height": 844}


def overflow(page) -> int:
    """How many pixels the page is wider than the phone's screen (0: no sideways scrolling).

    Against the screen's width, not innerWidth: a phone widens its layout viewport to a page
    wider than the screen (and shows it zoomed out), so innerWidth grows with the overflow."""
    return page.evaluate("document.documentElement.scrollWidth") - PHONE["width"]
