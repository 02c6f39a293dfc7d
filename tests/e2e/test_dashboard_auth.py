"""The dashboard against a server that requires API keys, in headless Chromium: it asks for a
key, says clearly when one is refused, keeps the accepted one in the tab's session storage
(sent as Bearer on fetches and as the feed socket's subprotocol, never in a URL), and asks
again when its key is revoked under it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import Browser, expect, sync_playwright

from tests.conftest import ServerProcess, free_port
from tests.e2e import dashboard_scene
from tests.e2e.browser import launch

pytestmark = pytest.mark.slow

expect.set_options(timeout=15_000)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as pw:
        b = launch(pw)
        yield b
        b.close()


@pytest.fixture(scope="module")
def keyed_server(
    tmp_path_factory: pytest.TempPathFactory, backend_env: dict[str, str]
) -> Iterator[ServerProcess]:
    # super-users: this test is about keys in the browser; ACLs are tested on their own (a
    # gateway in the gateway pass)
    env = {**os.environ, **backend_env, "SLUICE_SUPER_USERS": "admin,viewer"}
    s = ServerProcess(tmp_path_factory.mktemp("keyed") / "data", free_port(), env)
    s.start()
    yield s
    assert s.stop() == 0, s.logs()


def test_the_dashboard_asks_for_a_key_and_asks_again_when_it_is_revoked(
    browser: Browser, keyed_server: ServerProcess
) -> None:
    with httpx.Client(base_url=keyed_server.url, timeout=30) as anon:
        admin_key = anon.post("/v1/admin/keys", json={"principal": "admin"}).json()["key"]
    with httpx.Client(
        base_url=keyed_server.url, timeout=30, headers={"Authorization": f"Bearer {admin_key}"}
    ) as api:
        viewer = api.post("/v1/admin/keys", json={"principal": "viewer"}).json()
        assert api.post("/v1/topics", json={"name": "secret-topic"}).status_code == 201

        context = browser.new_context(viewport=dashboard_scene.VIEWPORT, timezone_id="UTC")
        page = context.new_page()
        urls: list[str] = []
        errors: list[str] = []
        page.on("websocket", lambda ws: urls.append(ws.url))
        context.on("request", lambda r: urls.append(r.url))
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            page.goto(keyed_server.url + "/")
            form = page.locator("#auth")
            expect(form).to_be_visible()
            expect(page.locator("#auth-message")).to_have_text("This server requires an API key.")
            expect(page.locator("#topics-body")).not_to_contain_text("secret-topic")

            page.fill("#auth-key", "sk_not_a_real_key")
            page.click("#auth-submit")
            expect(page.locator("#auth-message")).to_have_text(
                "That key was refused: it is unknown or revoked."
            )
            expect(form).to_be_visible()

            page.fill("#auth-key", viewer["key"])
            page.click("#auth-submit")
            expect(form).to_be_hidden()
            expect(page.locator("#feed-status")).to_have_attribute("data-state", "live")
            expect(page.locator("#auth-who")).to_have_text("viewer")
            expect(page.locator("#topics-body")).to_contain_text("secret-topic")
            stored = page.evaluate("sessionStorage.getItem('sluice.apiKey')")
            assert stored == viewer["key"]
            # fetches carry the key (the API module the panels use)
            topics = page.evaluate(
                "import('/dashboard/api.js').then((m) => m.call('GET', 'v1/topics'))"
            )
            assert topics == {"topics": [{"name": "secret-topic", "partitions": 1}]}

            # the same tab keeps its key across a reload: no form
            page.reload()
            expect(page.locator("#feed-status")).to_have_attribute("data-state", "live")
            expect(form).to_be_hidden()

            # revoked under it: the feed is closed (1008) and the page asks again
            assert api.delete(f"/v1/admin/keys/{viewer['key_id']}").status_code == 204
            expect(form).to_be_visible()
            expect(page.locator("#auth-message")).to_have_text(
                "The key was refused (revoked?). Enter another one."
            )
            page.fill("#auth-key", admin_key)
            page.click("#auth-submit")
            expect(form).to_be_hidden()
            expect(page.locator("#auth-who")).to_have_text("admin")
            expect(page.locator("#feed-status")).to_have_attribute("data-state", "live")
        finally:
            context.close()
    assert errors == []
    assert not [u for u in urls if viewer["key"] in u or admin_key in u], "a key in a URL"
    assert {urlsplit(u).hostname for u in urls} == {"127.0.0.1"}
