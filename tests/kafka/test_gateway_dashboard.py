"""The dashboard in headless Chromium against a gateway (``SLUICE_BACKEND=kafka``) on the native
broker: the page takes the key, goes live from the gateway's event feed and lists a topic
created over HTTP; a share group's member shows no time last seen (Kafka keeps none) and its
partition's window is marked from its start offset only (Kafka shows no end), not as an end
the page made up."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect, sync_playwright

from tests.conftest import ServerProcess
from tests.e2e.browser import launch
from tests.kafka.native import TIMEOUT
from tests.kafka.test_gateway_http import PRINCIPAL, api_key
from tests.kafka.test_gateway_share import fetch_until, new_group, new_topic
from tests.kafka_cluster import KafkaCluster

pytestmark = pytest.mark.kafka

expect.set_options(timeout=int(TIMEOUT * 1000))


@pytest.fixture
def gateway(
    kafka_cluster: KafkaCluster,
    server_factory: Callable[..., ServerProcess],
    tmp_path: Path,
) -> Iterator[tuple[ServerProcess, httpx.Client, str]]:
    key = api_key(kafka_cluster.bootstrap)
    server = server_factory(
        data_dir=tmp_path / "unused",
        SLUICE_BACKEND="kafka",
        SLUICE_KAFKA_BOOTSTRAP=kafka_cluster.bootstrap,
        SLUICE_SUPER_USERS=PRINCIPAL,
    )
    server.start(timeout=60)
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=server.url, timeout=TIMEOUT, headers=headers) as client:
        yield server, client, key
    assert server.stop() == 0


def test_the_dashboard_goes_live_on_the_gateway(
    kafka_cluster: KafkaCluster, gateway: tuple[ServerProcess, httpx.Client, str]
) -> None:
    server, http, key = gateway
    topic = new_topic(http, [f"r{i}" for i in range(5)])
    group = new_group(kafka_cluster.bootstrap)
    joined = http.post(
        f"/v1/share-groups/{group}/heartbeat",
        json={"member_id": None, "member_epoch": 0, "subscribed_topics": [topic]},
    )
    assert joined.status_code == 200, joined.text
    member = joined.json()["member_id"]
    fetch_until(http, group, member, 1)  # Kafka starts the share partition at the earliest
    # Kafka describes the share partition once its state is saved, a moment after the first
    # fetch (more than the page's 30 s once, on a loaded machine): the page is asked to show
    # it only once the gateway describes it
    deadline = time.monotonic() + 2 * TIMEOUT
    while not any(
        (p["topic"], p["partition"]) == (topic, 0)
        for p in http.get(f"/v1/share-groups/{group}").json().get("partitions", [])
    ):
        assert time.monotonic() < deadline, "Kafka never described the share partition"
        time.sleep(0.2)

    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(server.url + "/")
            page.fill("#auth-key", key)
            page.click("#auth-submit")
            expect(page.locator("#feed-status")).to_have_attribute("data-state", "live")
            expect(page.locator("#topics-body")).to_contain_text(topic)

            shown = page.locator(f'article.share-group[data-group="{group}"]')
            row = shown.locator(f'.member[data-member="{member}"]')
            expect(row).to_be_visible()
            expect(row.locator(".member-seen")).to_have_count(0)
            part = shown.locator(f'.share-partition[data-topic="{topic}"][data-partition="0"]')
            expect(part.locator(".mark.spso")).to_have_text("SPSO 0")
            expect(part.locator(".mark.log-end")).to_have_text("+5 to 5")
            assert errors == [], "the page threw"
        finally:
            browser.close()
