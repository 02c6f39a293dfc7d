"""The dashboard in headless Chromium against a real server process: the page goes live from
the feed, follows what HTTP clients do without a reload, shows record bytes safely, and its two
actions (dead-letter redrive, share offset reset) go through their confirmation and change the
server as they say.

One browser and one server for the module, a fresh browser context (empty storage, its own
page) per test; each test uses its own topics and groups. Every request the page makes is
recorded and must stay on loopback. Waiting is always for a condition, with a deadline.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import shutil
import struct
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import (
    Browser,
    ConsoleMessage,
    Locator,
    Page,
    Response,
    expect,
    sync_playwright,
)

from app import __version__
from tests.conftest import ROOT, ServerProcess, free_port
from tests.e2e import dashboard_scene
from tests.e2e.browser import launch

pytestmark = pytest.mark.slow

# the feed sends an event every 250 ms and a rate sample every second; a condition that holds
# is seen within a few seconds even on a loaded machine
expect.set_options(timeout=15_000)
WAIT_MS = 15_000

SCREENSHOT = ROOT / "build" / "screenshots" / "dashboard.png"
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


@dataclass
class Dashboard:
    """A page on the dashboard, with what it asked for and what it said."""

    page: Page
    url: str
    requests: list[str] = field(default_factory=list)
    console: list[ConsoleMessage] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def open(self) -> Page:
        self.page.goto(self.url + "/")
        expect(self.page.locator("#feed-status")).to_have_attribute("data-state", "live")
        # a mark that only survives if the page is never loaded again
        self.page.evaluate("window.__sameDocument = true")
        return self.page

    def assert_not_reloaded(self) -> None:
        assert self.page.evaluate("window.__sameDocument === true"), "the page was reloaded"

    def console_errors(self) -> list[str]:
        return [m.text for m in self.console if m.type == "error"] + self.errors


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as pw:
        b = launch(pw)
        yield b
        b.close()


@pytest.fixture(scope="module")
def live_server(
    tmp_path_factory: pytest.TempPathFactory, backend_env: dict[str, str]
) -> Iterator[ServerProcess]:
    env = {**os.environ, **backend_env}  # a gateway in the gateway pass
    s = ServerProcess(tmp_path_factory.mktemp("dashboard") / "data", free_port(), env)
    s.start()
    yield s
    assert s.stop() == 0, s.logs()


@pytest.fixture
def api(live_server: ServerProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_server.url, timeout=30) as c:
        yield c


@contextlib.contextmanager
def open_dashboard(browser: Browser, url: str) -> Iterator[Dashboard]:
    """A fresh context and page; on leaving, every request it made must have stayed on
    loopback and the page must not have thrown."""
    context = browser.new_context(viewport=dashboard_scene.VIEWPORT, timezone_id="UTC")
    page = context.new_page()
    d = Dashboard(page, url)
    context.on("request", lambda r: d.requests.append(r.url))
    page.on("websocket", lambda ws: d.requests.append(ws.url))
    page.on("console", lambda m: d.console.append(m))
    page.on("pageerror", lambda e: d.errors.append(f"uncaught: {e}"))
    try:
        yield d
    finally:
        context.close()
    outside = [u for u in d.requests if urlsplit(u).hostname not in LOOPBACK]
    assert outside == [], "requests that left loopback"
    assert d.errors == [], "the page threw"


@pytest.fixture
def dash(browser: Browser, live_server: ServerProcess) -> Iterator[Dashboard]:
    with open_dashboard(browser, live_server.url) as d:
        yield d


def ok(r: httpx.Response) -> Any:
    assert r.is_success, f"{r.request.method} {r.request.url}: {r.status_code} {r.text}"
    return r.json() if r.content else None


def create_topic(api: httpx.Client, name: str, partitions: int = 1) -> None:
    ok(api.post("/v1/topics", json={"name": name, "partitions": partitions}))


def window_states(page: Page, group: str, topic: str, partition: int) -> dict[int, str]:
    """Offset → state as the window bar of a share partition draws it (from its runs)."""
    states: dict[str, str] = page.evaluate(
        """([group, topic, partition]) => {
            const row = document.querySelector(
                `article.share-group[data-group="${group}"] ` +
                `.share-partition[data-topic="${topic}"][data-partition="${partition}"]`);
            const out = {};
            if (!row) return out;
            for (const r of row.querySelectorAll("rect.run")) {
                for (let o = Number(r.dataset.first); o <= Number(r.dataset.last); o++) {
                    out[o] = r.dataset.state;
                }
            }
            return out;
        }""",
        [group, topic, partition],
    )
    return {int(k): v for k, v in states.items()}


def wait_for_window(
    page: Page, group: str, topic: str, partition: int, expected: dict[int, str]
) -> None:
    try:
        page.wait_for_function(
            """([group, topic, partition, expected]) => {
                const row = document.querySelector(
                    `article.share-group[data-group="${group}"] ` +
                    `.share-partition[data-topic="${topic}"][data-partition="${partition}"]`);
                if (!row) return false;
                const seen = {};
                for (const r of row.querySelectorAll("rect.run")) {
                    for (let o = Number(r.dataset.first); o <= Number(r.dataset.last); o++) {
                        seen[o] = r.dataset.state;
                    }
                }
                return Object.entries(expected).every(([o, st]) => seen[o] === st);
            }""",
            arg=[group, topic, partition, {str(k): v for k, v in expected.items()}],
            timeout=WAIT_MS,
        )
    except Exception:
        actual = window_states(page, group, topic, partition)
        raise AssertionError(f"window of {group} {topic}/{partition}: {actual}") from None


def tip_value(page: Page, label: str) -> Locator:
    """The value of a row of the tooltip."""
    return page.locator(f'#tooltip dt:text-is("{label}") + dd')


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


# --- the page -------------------------------------------------------------------------------


def test_the_page_goes_live_without_errors_and_stays_on_loopback(
    dash: Dashboard, api: httpx.Client
) -> None:
    create_topic(api, "greetings", 2)
    page = dash.open()
    expect(page.locator("#server-version")).to_have_text(f"v{__version__}")
    expect(page.locator("#uptime")).to_have_text(re.compile(r"^\d+ s$|^\d+m \d{2}s$"))
    expect(page.locator('#topics-body tbody[data-topic="greetings"] tr')).to_have_count(2)
    expect(page.locator("#throughput-chart svg.chart")).to_be_visible()
    for panel in ("throughput", "share-groups", "topics", "transactions", "groups"):
        expect(page.locator(f"#panel-{panel}")).to_be_visible()

    assert dash.console_errors() == []
    hosts = {urlsplit(u).hostname for u in dash.requests}
    assert hosts == {"127.0.0.1"}, dash.requests
    paths = {urlsplit(u).path for u in dash.requests}
    assert {"/", "/dashboard/main.js", "/dashboard/app.css", "/v1/events"} <= paths
    assert any(u.startswith("ws://127.0.0.1:") for u in dash.requests), dash.requests


def test_produced_records_move_the_offsets_and_the_rate_charts_without_reload(
    dash: Dashboard, api: httpx.Client
) -> None:
    create_topic(api, "metrics", 2)
    page = dash.open()
    row = page.locator('#topics-body tbody[data-topic="metrics"] tr[data-partition="1"]')
    expect(row.locator("td.hw")).to_have_text("0")
    spark = page.locator('#topics-body tbody[data-topic="metrics"] svg.spark')
    expect(spark).to_have_attribute("data-peak", "0")

    ok(
        api.post(
            "/v1/topics/metrics/records",
            json={"records": [{"value": f"m{i}", "partition": 1} for i in range(40)]},
        )
    )
    expect(row.locator("td.hw")).to_have_text("40")
    expect(row.locator("td.lso")).to_have_text("40")
    expect(
        page.locator('#topics-body tbody[data-topic="metrics"] tr[data-partition="0"] td.hw')
    ).to_have_text("0")
    # the second closes, its sample reaches the topic's chart and the server-wide one
    page.wait_for_function(
        """() => {
            const s = document.querySelector('#topics-body tbody[data-topic="metrics"] svg.spark');
            return s && Number(s.dataset.peak) > 0 && s.querySelector("path.line") !== null;
        }""",
        timeout=WAIT_MS,
    )
    page.wait_for_function(
        """() => {
            const c = document.querySelector("#throughput-chart svg.chart");
            return c && Number(c.dataset.max) >= 1 &&
                c.querySelector('path.line[data-series="produce"]') !== null;
        }""",
        timeout=WAIT_MS,
    )
    dash.assert_not_reloaded()


@pytest.mark.embedded_only("share_record_counts")
def test_share_acquisitions_show_as_acquired_then_acknowledged(
    dash: Dashboard, api: httpx.Client
) -> None:
    create_topic(api, "tasks")
    ok(
        api.post(
            "/v1/topics/tasks/records", json={"records": [{"value": f"t{i}"} for i in range(10)]}
        )
    )
    ok(api.patch("/v1/share-groups/painters/config", json={"auto_offset_reset": "earliest"}))
    page = dash.open()

    got = ok(
        api.post(
            "/v1/share-groups/painters/fetch",
            json={
                "member_id": None,
                "subscribed_topics": ["tasks"],
                "max_records": 10,
                "acquire_mode": "record_limit",
            },
        )
    )
    member = got["member_id"]
    assert [(a["first_offset"], a["last_offset"]) for a in got["acquired"]] == [(0, 9)]
    wait_for_window(page, "painters", "tasks", 0, dict.fromkeys(range(10), "acquired"))
    group = page.locator('article.share-group[data-group="painters"]')
    expect(group.locator(f'.member[data-member="{member}"]')).to_be_visible()
    part = group.locator('.share-partition[data-topic="tasks"][data-partition="0"]')
    expect(part.locator('[data-stat="acquired"] .stat-value')).to_have_text("10")

    # the tooltip of a run: its delivery count, owner and the time left on its lock
    part.locator("rect.run.acquired").first.hover()
    tip = page.locator("#tooltip")
    expect(tip).to_be_visible()
    expect(tip.locator(".tip-title")).to_have_text("tasks/0 · offsets 0–9")
    expect(tip_value(page, "state")).to_have_text("acquired")
    expect(tip_value(page, "delivery count")).to_have_text("1")
    expect(tip_value(page, "member")).to_have_text(member)
    expect(tip_value(page, "lock")).to_have_text(re.compile(r"^expires in (\d+ s|\d+m \d{2}s)$"))

    # acknowledge the later half: the window start stays at 0, so both halves stay in view
    ok(
        api.post(
            "/v1/share-groups/painters/acknowledge",
            json={
                "member_id": member,
                "acknowledgements": [
                    {
                        "topic": "tasks",
                        "partition": 0,
                        "first_offset": 5,
                        "last_offset": 9,
                        "type": "accept",
                    }
                ],
            },
        )
    )
    wait_for_window(
        page,
        "painters",
        "tasks",
        0,
        {**dict.fromkeys(range(5), "acquired"), **dict.fromkeys(range(5, 10), "acknowledged")},
    )
    expect(part.locator('[data-stat="acquired"] .stat-value')).to_have_text("5")
    expect(part.locator('[data-stat="acknowledged"] .stat-value')).to_have_text("5")
    expect(part).to_have_attribute("data-start", "0")
    dash.assert_not_reloaded()


@pytest.mark.embedded_only("read_segment_end")
def test_the_record_browser_shows_text_as_text_and_binary_as_hex(
    dash: Dashboard, api: httpx.Client
) -> None:
    create_topic(api, "browse")
    markup = '<img src="x" onerror="window.__injected = 1"><b>bold</b>'
    binary = b"\x00\xff\x10<script>\x1b[31m"
    ok(
        api.post(
            "/v1/topics/browse/records",
            json={
                "records": [
                    {
                        "key": "k-text",
                        "value": markup,
                        "headers": [{"key": "trace", "value": "abc-123"}],
                        "timestamp": 1_700_000_000_000,
                    }
                ]
            },
        )
    )
    ok(
        api.post(
            "/v1/topics/browse/records",
            json={
                "encoding": "base64",
                "records": [
                    {
                        "key": None,
                        "value": base64.b64encode(binary).decode(),
                        "headers": [
                            {"key": "raw", "value": base64.b64encode(b"\xc3\x28").decode()}
                        ],
                    }
                ],
            },
        )
    )
    page = dash.open()
    expect(page.locator('#rb-topic option[value="browse"]')).to_have_count(1)
    page.select_option("#rb-topic", "browse")
    page.select_option("#rb-partition", "0")
    page.fill("#rb-offset", "0")
    page.click("#rb-read")

    text_row = page.locator('#rb-results tr[data-offset="0"]')
    binary_row = page.locator('#rb-results tr[data-offset="1"]')
    expect(text_row.locator("td.value .content")).to_have_text(markup)
    expect(text_row.locator("td.value .bytes")).to_have_attribute("data-kind", "text")
    expect(text_row.locator("td.key .content")).to_have_text("k-text")
    expect(text_row.locator("td.ts")).to_have_text("2023-11-14 22:13:20.000")
    expect(text_row.locator("td.hdrs li")).to_have_text("trace" + "abc-123")

    expect(binary_row.locator("td.value .bytes")).to_have_attribute("data-kind", "hex")
    expect(binary_row.locator("td.value .content")).to_have_text(
        " ".join(f"{b:02x}" for b in binary)
    )
    expect(binary_row.locator("td.value .enc")).to_have_text(f"hex · {len(binary)} B")
    expect(binary_row.locator("td.key .bytes")).to_have_attribute("data-kind", "null")
    expect(binary_row.locator("td.hdrs .header-value .content")).to_have_text("c3 28")

    # the markup stayed text: no element was made from it and its handler never ran
    assert page.locator("#rb-results img, #rb-results b").count() == 0
    assert page.evaluate("window.__injected") is None
    expect(page.locator("#rb-meta")).to_contain_text("browse/0 · offsets 0–1")


# --- actions ---------------------------------------------------------------------------------


def _dead_letters(api: httpx.Client) -> str:
    """Three records of work/1 rejected by a member of the group loaders: copied to work.dlq."""
    create_topic(api, "work", 2)
    create_topic(api, "work.dlq")
    ok(
        api.patch(
            "/v1/share-groups/loaders/config",
            json={"auto_offset_reset": "earliest", "dead_letter_topic": "work.dlq"},
        )
    )
    ok(
        api.post(
            "/v1/topics/work/records",
            json={
                "records": [
                    {
                        "key": f"job-{i}",
                        "value": f"load file {i}",
                        "partition": 1,
                        "headers": [{"key": "origin", "value": f"batch-{i}"}],
                    }
                    for i in range(3)
                ]
            },
        )
    )
    got = ok(
        api.post(
            "/v1/share-groups/loaders/fetch",
            json={"member_id": None, "subscribed_topics": ["work"], "max_records": 10},
        )
    )
    member = str(got["member_id"])
    ok(
        api.post(
            "/v1/share-groups/loaders/acknowledge",
            json={
                "member_id": member,
                "acknowledgements": [
                    {
                        "topic": "work",
                        "partition": 1,
                        "first_offset": 0,
                        "last_offset": 2,
                        "type": "reject",
                    }
                ],
            },
        )
    )
    ends = ok(api.get("/v1/topics/work.dlq/partitions/0/offsets", params={"at": "latest"}))
    assert ends["offset"] == 3
    return member


def _high_watermark(api: httpx.Client, topic: str, partition: int) -> int:
    answer = ok(api.get(f"/v1/topics/{topic}/partitions/{partition}/offsets"))
    return int(answer["offset"])


@pytest.mark.embedded_only("dead_letter_topic_name")
def test_dead_letters_are_redriven_once_after_confirmation(
    dash: Dashboard, api: httpx.Client
) -> None:
    _dead_letters(api)
    page = dash.open()
    expect(page.locator('#dlq-group option[value="loaders"]')).to_have_count(1)
    page.select_option("#dlq-group", "loaders")
    page.click("#dlq-load")
    rows = page.locator("#dlq-results tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0).locator("td.source")).to_have_text("work/1@0")
    expect(rows.nth(0)).to_contain_text("rejected")
    expect(rows.nth(2).locator("td.value .content")).to_have_text("load file 2")

    rows.nth(0).locator("input[type=checkbox]").check()
    rows.nth(2).locator("input[type=checkbox]").check()
    expect(page.locator("#dlq-redrive")).to_have_text("Redrive 2…")

    # cancelling the confirmation produces nothing
    page.click("#dlq-redrive")
    dialog = page.locator("dialog#confirm")
    expect(dialog).to_be_visible()
    page.click("#confirm-cancel")
    expect(dialog).to_be_hidden()
    assert _high_watermark(api, "work", 1) == 3

    # the confirmation says what goes where, under which key
    page.click("#dlq-redrive")
    expect(dialog).to_be_visible()
    plan = dialog.locator("table.plan tbody tr")
    expect(plan).to_have_count(2)
    expect(plan.nth(0)).to_contain_text("work / partition 1")
    expect(plan.nth(0)).to_have_attribute("data-key", "redrive:work.dlq:0:0")
    expect(plan.nth(1)).to_have_attribute("data-key", "redrive:work.dlq:0:2")
    page.click("#confirm-ok")
    expect(dialog).to_be_hidden()
    expect(rows.nth(0).locator("td.outcome")).to_have_text("→ work/1@3")
    expect(rows.nth(2).locator("td.outcome")).to_have_text("→ work/1@4")

    back = ok(api.get("/v1/topics/work/partitions/1/records", params={"offset": 3}))["records"]
    assert [(r["key"], r["value"], r["headers"]) for r in back] == [
        ("job-0", "load file 0", [{"key": "origin", "value": "batch-0"}]),
        ("job-2", "load file 2", [{"key": "origin", "value": "batch-2"}]),
    ]

    # the same redrive again (a double click, a retry): the keys answer the first produce
    rows.nth(0).locator("input[type=checkbox]").check()
    rows.nth(2).locator("input[type=checkbox]").check()
    page.click("#dlq-redrive")

    def last_redrive(r: Response) -> bool:
        return r.request.method == "POST" and r.url.endswith("/v1/topics/work/records")

    with page.expect_response(
        lambda r: (
            last_redrive(r) and r.request.headers.get("idempotency-key") == "redrive:work.dlq:0:2"
        )
    ) as again:
        page.click("#confirm-ok")
    (answer,) = again.value.json()["offsets"]
    assert (answer["partition"], answer["offset"]) == (1, 4)
    expect(page.locator("#dlq-meta")).to_have_text("redriven 2 of 2")
    expect(rows.nth(0).locator("td.outcome")).to_have_text("→ work/1@3")
    expect(rows.nth(2).locator("td.outcome")).to_have_text("→ work/1@4")
    assert _high_watermark(api, "work", 1) == 5


@pytest.mark.embedded_only("share_start_offset")
def test_share_offset_reset_previews_refuses_a_live_group_and_applies_on_confirmation(
    dash: Dashboard, api: httpx.Client
) -> None:
    create_topic(api, "ledger")
    ok(
        api.post(
            "/v1/topics/ledger/records", json={"records": [{"value": f"l{i}"} for i in range(20)]}
        )
    )
    ok(api.patch("/v1/share-groups/auditors/config", json={"auto_offset_reset": "earliest"}))
    ok(
        api.post(
            "/v1/share-groups/auditors/heartbeat",
            json={"member_id": "auditor-1", "member_epoch": 0, "subscribed_topics": ["ledger"]},
        )
    )
    got = ok(
        api.post(
            "/v1/share-groups/auditors/fetch",
            json={
                "member_id": "auditor-1",
                "subscribed_topics": ["ledger"],
                "max_records": 5,
                "acquire_mode": "record_limit",
            },
        )
    )
    ok(
        api.post(
            "/v1/share-groups/auditors/acknowledge",
            json={
                "member_id": got["member_id"],
                "acknowledgements": [
                    {
                        "topic": "ledger",
                        "partition": 0,
                        "first_offset": 0,
                        "last_offset": 4,
                        "type": "accept",
                    }
                ],
            },
        )
    )
    page = dash.open()
    expect(page.locator('#reset-group option[value="auditors"]')).to_have_count(1)
    page.select_option("#reset-group", "auditors")
    expect(page.locator('#reset-topic option[value="ledger"]')).to_have_count(1)
    page.select_option("#reset-topic", "ledger")
    page.select_option("#reset-to", "offset")
    page.fill("#reset-value", "15")

    # a member is still in the group: the preview is refused, and the page says why
    page.click("#reset-preview")
    error = page.locator("#reset-results .error")
    expect(error).to_have_attribute("data-code", "NON_EMPTY_GROUP")
    expect(error.locator(".error-code")).to_have_text("NON_EMPTY_GROUP")
    expect(error.locator(".error-hint")).to_contain_text("auditor-1")
    expect(page.locator("#reset-apply")).to_be_disabled()

    ok(api.delete("/v1/share-groups/auditors/members/auditor-1"))
    expect(page.locator('article.share-group[data-group="auditors"] .members.none')).to_be_visible()

    page.click("#reset-preview")
    row = page.locator('#reset-results tr[data-topic="ledger"][data-partition="0"]')
    expect(row.locator("td.before")).to_have_text("5")
    expect(row.locator("td.after")).to_have_text("15")
    expect(row.locator("td.delta")).to_have_text("+10")
    expect(page.locator("#reset-results .plan")).to_contain_text("Nothing has changed yet")
    described = ok(api.get("/v1/share-groups/auditors"))
    assert [(p["topic"], p["start_offset"]) for p in described["partitions"]] == [("ledger", 5)]

    page.click("#reset-apply")
    dialog = page.locator("dialog#confirm")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("offset 15")
    page.click("#confirm-ok")
    expect(page.locator("#reset-results .plan.done")).to_be_visible()
    described = ok(api.get("/v1/share-groups/auditors"))
    assert [(p["topic"], p["start_offset"]) for p in described["partitions"]] == [("ledger", 15)]
    expect(
        page.locator(
            'article.share-group[data-group="auditors"] '
            '.share-partition[data-topic="ledger"][data-partition="0"]'
        )
    ).to_have_attribute("data-start", "15")


# --- the feed connection and the picture -----------------------------------------------------


def test_the_feed_reconnects_after_the_server_restarts(
    browser: Browser, server: ServerProcess
) -> None:
    with open_dashboard(browser, server.url) as d:
        page = d.open()
        assert server.stop() == 0
        expect(page.locator("#feed-status")).to_have_attribute("data-state", "reconnecting")
        expect(page.locator("#feed-status-label")).to_contain_text("reconnecting in")
        server.start()
        create = httpx.post(server.url + "/v1/topics", json={"name": "after-restart"})
        assert create.status_code == 201, create.text
        expect(page.locator("#feed-status")).to_have_attribute("data-state", "live")
        expect(page.locator('#topics-body tbody[data-topic="after-restart"]')).to_be_visible()
        d.assert_not_reloaded()


@pytest.mark.embedded_only("dead_letter_topic_name")
def test_a_screenshot_of_the_scene_is_written(browser: Browser, server: ServerProcess) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        scene = dashboard_scene.set_scene(c)
    traffic = dashboard_scene.Traffic(server.url, scene)
    traffic.start()
    try:
        with open_dashboard(browser, server.url) as d:
            page = d.open()
            dashboard_scene.wait_until_drawn(page)
            # a few seconds of traffic in the charts
            page.wait_for_function(
                "() => Number(document.querySelector('#throughput-chart svg')?.dataset.points)"
                " >= 3",
                timeout=WAIT_MS,
            )
            SCREENSHOT.unlink(missing_ok=True)
            dashboard_scene.photograph(page, SCREENSHOT)
    finally:
        traffic.stop()
    assert png_size(SCREENSHOT) == (1440, 900)


# the throughput chart's y axis at peaks from idle to huge: what niceCeil makes of each and the
# labels the axis shows for it, computed by the dashboard's own module in Node
AXIS_PEAKS = [0, 0.2, 1, 1.5, 2, 2.5, 3, 7, 12, 999, 1234, 25_000, 1_200_000, 3e9, 4.2e13]


def test_rate_chart_axis_ticks_are_distinct_and_exact_at_any_peak() -> None:
    node = shutil.which("node")
    assert node is not None, "node is not installed: `make system-deps` installs it"
    charts = (ROOT / "app" / "dashboard" / "charts.js").as_uri()
    script = (
        f'import {{ niceCeil, axisTicks }} from "{charts}";\n'
        f"const peaks = {json.dumps(AXIS_PEAKS)};\n"
        "console.log(JSON.stringify(peaks.map((p) => axisTicks(niceCeil(p)))));\n"
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    scale = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
    for peak, ticks in zip(AXIS_PEAKS, json.loads(done.stdout), strict=True):
        labels = [t["label"] for t in ticks]
        assert len(set(labels)) == 3, (peak, labels)  # idle once read "0, 1, 1"
        assert ticks[-1]["value"] >= peak, (peak, ticks)
        for t in ticks:  # each label says its value exactly: 0.5, 1.25, 12.5k, not 1, 1, 13k
            m = re.fullmatch(r"(\d[\d,]*(?:\.\d+)?)([kMGT]?)", t["label"])
            assert m is not None, (peak, t)
            shown = float(m[1].replace(",", "")) * scale[m[2]]
            assert shown == pytest.approx(t["value"], rel=1e-9), (peak, t)
        assert len(labels[-1]) <= 6, (peak, labels)  # fits the 40 pixels left of the plot
