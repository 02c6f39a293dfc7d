"""Headless Chromium for the browser tests: the system's Chromium (``make test`` installs it),
started so that it never reaches beyond loopback."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager

from playwright.sync_api import Browser, sync_playwright

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextmanager
def chromium() -> Iterator[Browser]:
    path = shutil.which("chromium")
    assert path, "chromium is missing: `make test` installs it (system-deps)"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
