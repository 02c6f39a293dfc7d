"""Headless Chromium for the dashboard tests and its screenshot: the machine's own ``chromium``
(Debian's package), never a browser a test tool downloads, started with the flags that keep it
from reaching outside this machine (no background networking, component updates or sync) and
with an empty profile each time."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager

from playwright.sync_api import Browser, Playwright, sync_playwright

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    path = shutil.which("chromium")
    if path is None:
        raise RuntimeError("chromium is not installed: `make system-deps` installs it")
    return path


def launch(playwright: Playwright) -> Browser:
    """A headless Chromium; Playwright gives each launch a fresh, empty user data dir."""
    return playwright.chromium.launch(
        executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS
    )


@contextmanager
def chromium() -> Iterator[Browser]:
    """A headless Chromium for the length of the block."""
    with sync_playwright() as p:
        browser = launch(p)
        try:
            yield browser
        finally:
            browser.close()
