"""The scene of the dashboard's screenshot, on a fresh server: topics with traffic, a share
group whose windows hold every record state, a consumer group with lag, open transactions.

``python -m tests.e2e.dashboard_scene`` (``make screenshot``) starts a server in a temporary
directory, sets the scene, keeps traffic flowing for a while so the rate charts have a shape,
and photographs the page at 1440x900 into ``docs/dashboard.png``. The browser tests photograph
a shorter version of the same scene on every run (``build/screenshots/dashboard.png``).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, ViewportSize, expect, sync_playwright

from tests.conftest import ROOT, ServerProcess, free_port
from tests.e2e.browser import launch

VIEWPORT: ViewportSize = {"width": 1440, "height": 900}

TOPICS = {"orders": 3, "payments": 2, "jobs": 2, "jobs.dlq": 1, "audit": 1, "transfers": 3}
SHARE_GROUP = "thumbnails"
SECOND_SHARE_GROUP = "fraud-check"
CONSUMER_GROUP = "billing"


def _ok(r: httpx.Response) -> Any:
    assert r.is_success, f"{r.request.method} {r.request.url}: {r.status_code} {r.text}"
    return r.json() if r.content else None


def _produce(c: httpx.Client, topic: str, records: list[dict[str, Any]]) -> None:
    _ok(c.post(f"/v1/topics/{topic}/records", json={"records": records}))


def _work(
    c: httpx.Client,
    group: str,
    member: str,
    n: int,
    *,
    keep: int,
    rng: random.Random,
    accept_first: int = 50,
) -> None:
    """One fetch of ``n`` records by ``member``; all but the last ``keep`` of each acquired range
    acknowledged: the first ``accept_first`` accepted, the rest mostly accepted, some released,
    a few rejected."""
    got = _ok(
        c.post(
            f"/v1/share-groups/{group}/fetch",
            json={"member_id": member, "max_records": n, "acquire_mode": "record_limit"},
        )
    )
    acks = []
    for run in got["acquired"]:
        first, last = run["first_offset"], run["last_offset"]
        done = last - first + 1 - keep
        if done <= 0:
            continue
        types = [
            "accept"
            if i < accept_first and run["delivery_count"] == 1
            else rng.choices(["accept", "release", "reject"], [72, 20, 8])[0]
            for i in range(done)
        ]
        acks.append(
            {
                "topic": run["topic"],
                "partition": run["partition"],
                "first_offset": first,
                "last_offset": first + done - 1,
                "types": types,
            }
        )
    if acks:
        result = _ok(
            c.post(
                f"/v1/share-groups/{group}/acknowledge",
                json={"member_id": member, "acknowledgements": acks},
            )
        )
        assert all(r["error"] is None for r in result["results"]), result


@dataclass
class Scene:
    """The members the traffic keeps alive, with their epochs."""

    share_members: dict[str, int] = field(default_factory=dict)
    second_members: dict[str, int] = field(default_factory=dict)
    consumer: tuple[str, int] = ("", 0)
    committed: list[int] = field(default_factory=list)  # the consumer group's, per partition


def set_scene(c: httpx.Client) -> Scene:
    """Everything but the traffic: after this the page has something in every panel."""
    scene = Scene()
    for name, partitions in TOPICS.items():
        _ok(c.post("/v1/topics", json={"name": name, "partitions": partitions}))
    rng = random.Random(7)
    for p in (0, 1):
        _produce(
            c,
            "jobs",
            [
                {"key": f"img-{p}-{i}", "value": f"resize img-{p}-{i} to 640x480", "partition": p}
                for i in range(400)
            ],
        )
    _ok(
        c.patch(
            f"/v1/share-groups/{SHARE_GROUP}/config",
            json={
                "auto_offset_reset": "earliest",
                "dead_letter_topic": "jobs.dlq",
                "delivery_count_limit": 3,
                "record_lock_duration_ms": 600_000,
            },
        )
    )
    share = f"/v1/share-groups/{SHARE_GROUP}"
    for member in ("resizer-1", "resizer-2", "resizer-3"):
        joined = _ok(
            c.post(
                share + "/heartbeat",
                json={"member_id": member, "member_epoch": 0, "subscribed_topics": ["jobs"]},
            )
        )
        scene.share_members[member] = joined["member_epoch"]
    # resizer-1 works through the first records of each partition: most accepted (the first
    # ones, so the window start moves), some released, a few rejected; the last stay acquired
    _work(c, SHARE_GROUP, "resizer-1", 150, keep=18, rng=rng)
    _work(c, SHARE_GROUP, "resizer-1", 120, keep=12, rng=rng)
    # the others take released records again (delivery count 2) and new ones, and hold them
    _work(c, SHARE_GROUP, "resizer-2", 22, keep=22, rng=rng)
    _work(c, SHARE_GROUP, "resizer-3", 30, keep=30, rng=rng)

    # a second share group, on transfers: a stretch worked through, the rest not fetched yet
    _produce(
        c,
        "transfers",
        [
            {"key": f"account-{i % 97}", "value": f"transfer {i}", "partition": i % 3}
            for i in range(360)
        ],
    )
    _ok(
        c.patch(
            f"/v1/share-groups/{SECOND_SHARE_GROUP}/config",
            json={"auto_offset_reset": "earliest", "record_lock_duration_ms": 600_000},
        )
    )
    joined = _ok(
        c.post(
            f"/v1/share-groups/{SECOND_SHARE_GROUP}/heartbeat",
            json={"member_id": "scorer-1", "member_epoch": 0, "subscribed_topics": ["transfers"]},
        )
    )
    scene.second_members["scorer-1"] = joined["member_epoch"]
    for n in (90, 70, 100):
        _work(c, SECOND_SHARE_GROUP, "scorer-1", n, keep=8, rng=rng, accept_first=40)

    # a consumer group a little behind on orders (the traffic keeps it reading and committing)
    _produce(
        c,
        "orders",
        [{"key": f"customer-{rng.randrange(500)}", "value": f"order {i}"} for i in range(900)],
    )
    hb = _ok(
        c.post(
            f"/v1/groups/{CONSUMER_GROUP}/heartbeat",
            json={"member_id": "invoicer-1", "member_epoch": 0, "subscribed_topics": ["orders"]},
        )
    )
    hb = _ok(
        c.post(
            f"/v1/groups/{CONSUMER_GROUP}/heartbeat",
            json={"member_id": hb["member_id"], "member_epoch": hb["member_epoch"]},
        )
    )
    ends = [
        _ok(c.get(f"/v1/topics/orders/partitions/{p}/offsets", params={"at": "latest"}))["offset"]
        for p in range(TOPICS["orders"])
    ]
    scene.committed = [max(0, end - lag) for end, lag in zip(ends, (12, 240, 57), strict=True)]
    _ok(
        c.post(
            f"/v1/groups/{CONSUMER_GROUP}/offsets",
            json={
                "member_id": hb["member_id"],
                "member_epoch": hb["member_epoch"],
                "offsets": [
                    {"topic": "orders", "partition": p, "offset": offset}
                    for p, offset in enumerate(scene.committed)
                ],
            },
        )
    )

    # open transactions, with different times left
    for tid, timeout, parts in (("ledger-writer", 900_000, [0, 1]), ("settlement", 240_000, [1])):
        pid = _ok(
            c.post(
                "/v1/producers",
                json={"transactional_id": tid, "transaction_timeout_ms": timeout},
            )
        )
        _ok(
            c.post(
                "/v1/produce",
                json={
                    **pid,
                    "transactional_id": tid,
                    "batches": [
                        {
                            "topic": "payments",
                            "partition": p,
                            "base_sequence": 0,
                            "records": [
                                {"key": f"tx-{i}", "value": f"amount {i}"} for i in range(5)
                            ],
                        }
                        for p in parts
                    ],
                },
            )
        )
    scene.consumer = (hb["member_id"], hb["member_epoch"])
    return scene


class Traffic(threading.Thread):
    """Produces to orders and audit at a rate that drifts, has the consumer group read orders
    about as fast and commit, and keeps the members of the scene's groups alive, until
    stopped."""

    def __init__(self, url: str, scene: Scene) -> None:
        super().__init__(name="dashboard-traffic", daemon=True)
        self.url = url
        self.scene = scene
        self.stop_event = threading.Event()
        self.error: BaseException | None = None

    def stop(self) -> None:
        self.stop_event.set()
        self.join(10)
        if self.error is not None:
            raise self.error

    def run(self) -> None:
        try:
            self._run()
        except BaseException as exc:  # reported by stop()
            self.error = exc

    def _run(self) -> None:
        rng = random.Random(11)
        started = time.monotonic()
        beats = 0.0
        with httpx.Client(base_url=self.url, timeout=10) as c:
            while not self.stop_event.is_set():
                t = time.monotonic() - started
                n = int(60 + 40 * math.sin(t / 14) + rng.randrange(25))
                _produce(
                    c,
                    "orders",
                    [{"key": f"customer-{rng.randrange(500)}", "value": f"order at {t:.1f}"}] * n,
                )
                _produce(c, "audit", [{"value": f"audit {t:.1f}"}] * (n // 4 + 3))
                self._consume(c, n // 3 - 3 + rng.randrange(8))
                if t - beats > 3:
                    beats = t
                    self._heartbeats(c)
                self.stop_event.wait(0.2)

    def _consume(self, c: httpx.Client, per_partition: int) -> None:
        """The consumer group reads on from its committed offsets, and commits."""
        committed = self.scene.committed
        for p, offset in enumerate(committed):
            got = _ok(
                c.get(
                    f"/v1/topics/orders/partitions/{p}/records",
                    params={"offset": offset, "max_records": max(1, per_partition)},
                )
            )
            committed[p] = got["next_offset"]
        member_id, epoch = self.scene.consumer
        _ok(
            c.post(
                f"/v1/groups/{CONSUMER_GROUP}/offsets",
                json={
                    "member_id": member_id,
                    "member_epoch": epoch,
                    "offsets": [
                        {"topic": "orders", "partition": p, "offset": o}
                        for p, o in enumerate(committed)
                    ],
                },
            )
        )

    def _heartbeats(self, c: httpx.Client) -> None:
        for group, members in (
            (SHARE_GROUP, self.scene.share_members),
            (SECOND_SHARE_GROUP, self.scene.second_members),
        ):
            for member, epoch in members.items():
                members[member] = _ok(
                    c.post(
                        f"/v1/share-groups/{group}/heartbeat",
                        json={"member_id": member, "member_epoch": epoch},
                    )
                )["member_epoch"]
        member_id, epoch = self.scene.consumer
        answer = _ok(
            c.post(
                f"/v1/groups/{CONSUMER_GROUP}/heartbeat",
                json={"member_id": member_id, "member_epoch": epoch},
            )
        )
        self.scene.consumer = (member_id, answer["member_epoch"])


def wait_until_drawn(page: Page) -> None:
    """The feed is live and every live panel has drawn the scene."""
    expect(page.locator("#feed-status")).to_have_attribute("data-state", "live", timeout=15_000)
    expect(page.locator(f'article.share-group[data-group="{SHARE_GROUP}"]')).to_be_visible()
    expect(page.locator(f'article.group[data-group="{CONSUMER_GROUP}"]')).to_be_visible()
    expect(page.locator("#transactions-body tr[data-tid]")).to_have_count(2)
    expect(page.locator("#throughput-chart svg path.line.produce")).to_have_count(1)


def photograph(page: Page, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    page.mouse.move(0, 0)
    page.screenshot(path=str(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "dashboard.png")
    parser.add_argument(
        "--seconds", type=float, default=120, help="traffic before the picture is taken"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sluice-scene-") as tmp:
        server = ServerProcess(Path(tmp) / "data", free_port(), dict(os.environ))
        server.start()
        try:
            with httpx.Client(base_url=server.url, timeout=30) as c:
                scene = set_scene(c)
            traffic = Traffic(server.url, scene)
            traffic.start()
            try:
                with sync_playwright() as pw:
                    browser = launch(pw)
                    page = browser.new_page(viewport=VIEWPORT)
                    page.goto(server.url + "/")
                    wait_until_drawn(page)
                    time.sleep(args.seconds)  # the traffic draws the charts: wall time is the point
                    photograph(page, args.out)
                    browser.close()
            finally:
                traffic.stop()
        finally:
            server.stop()
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
