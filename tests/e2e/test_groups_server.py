"""Consumer groups against a real ``python -m app serve`` process.

The session timeout is 1000 ms in these servers' environment, so a silent member is removed by
the server's own sweeper in real time; the test polls (bounded) until it sees the effect.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.conftest import GATEWAY, ServerProcess

pytestmark = pytest.mark.slow

ServerFactory = Callable[..., ServerProcess]
GROUP_ENV = {
    "SLUICE_GROUP_SESSION_TIMEOUT_MS": "1000",
    "SLUICE_GROUP_HEARTBEAT_INTERVAL_MS": "1000",
}


def heartbeat(c: httpx.Client, member: str, epoch: int, **body: Any) -> httpx.Response:
    body = {"member_id": member, "member_epoch": epoch, **body}
    if epoch == 0:
        body.setdefault("subscribed_topics", ["orders"])
    return c.post("/v1/groups/workers/heartbeat", json=body)


def ok(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code == 200, r.text
    return dict(r.json())


def owned(answer: dict[str, Any]) -> list[int]:
    return [p for a in answer["assignment"] for p in a["partitions"]]


def test_a_silent_member_loses_its_partitions_and_its_late_commit(
    server_factory: ServerFactory, group_session_timeout: Callable[[str, int], None]
) -> None:
    server = server_factory(**GROUP_ENV)
    server.start()
    for group in ("workers", "lonely"):  # on a gateway, the groups' own timeouts
        group_session_timeout(group, 1000)
    with httpx.Client(base_url=server.url, timeout=10) as c:
        assert c.post("/v1/topics", json={"name": "orders", "partitions": 4}).status_code == 201
        a = ok(heartbeat(c, "a", 0))
        b = ok(heartbeat(c, "b", 0))
        # both heartbeat until the split is done (a revokes, then b receives)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            a = ok(heartbeat(c, "a", a["member_epoch"]))
            b = ok(heartbeat(c, "b", b["member_epoch"]))
            if owned(a) and owned(b) and len(owned(a)) + len(owned(b)) == 4:
                break
        assert sorted(owned(a) + owned(b)) == [0, 1, 2, 3]
        assert set(owned(a)).isdisjoint(owned(b)) and len(owned(b)) == 2
        b_epoch = b["member_epoch"]
        r = c.post(
            "/v1/groups/workers/offsets",
            json={
                "member_id": "b",
                "member_epoch": b_epoch,
                "offsets": [{"topic": "orders", "partition": p, "offset": 1} for p in owned(b)],
            },
        )
        assert r.status_code == 200 and all(o["error"] is None for o in r.json()["offsets"])
        # b falls silent and is removed (a's heartbeats see its session is over)
        deadline = time.monotonic() + 15
        members = ["a", "b"]
        while time.monotonic() < deadline and members != ["a"]:
            time.sleep(0.1)
            a = ok(heartbeat(c, "a", a["member_epoch"]))
            members = [m["member_id"] for m in c.get("/v1/groups/workers").json()["members"]]
        assert members == ["a"]
        # a keeps heartbeating until it owns everything
        while time.monotonic() < deadline and len(owned(a)) < 4:
            time.sleep(0.1)
            a = ok(heartbeat(c, "a", a["member_epoch"]))
        assert owned(a) == [0, 1, 2, 3]
        assert a["member_epoch"] > b_epoch
        late = c.post(
            "/v1/groups/workers/offsets",
            json={
                "member_id": "b",
                "member_epoch": b_epoch,
                "offsets": [{"topic": "orders", "partition": owned(b)[0], "offset": 99}],
            },
        )
        assert late.status_code in (404, 409), late.text
        assert late.json()["error"]["code"] in ("UNKNOWN_MEMBER_ID", "STALE_MEMBER_EPOCH")
        r = heartbeat(c, "b", b_epoch)
        assert r.status_code == 404 and r.json()["error"]["code"] == "UNKNOWN_MEMBER_ID"
        offsets = c.get("/v1/groups/workers/offsets").json()["offsets"]
        assert {o["partition"]: o["offset"] for o in offsets} == {p: 1 for p in owned(b)}
        d = c.get("/v1/groups/workers").json()
        assert [m["member_id"] for m in d["members"]] == ["a"]
        # with nobody else heartbeating, the server's own sweeper removes a silent member
        lonely = c.post(
            "/v1/groups/lonely/heartbeat", json={"member_epoch": 0, "subscribed_topics": ["orders"]}
        )
        assert lonely.status_code == 200
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            d = c.get("/v1/groups/lonely").json()  # describing never expires anyone
            if not d["members"]:
                break
            time.sleep(0.1)
        assert d["state"] == "Empty" and d["members"] == []
        # the removal is a new group epoch; Kafka's coordinator has counted one more epoch
        # than the embedded engine by then
        assert d["group_epoch"] == (3 if GATEWAY else 2)
    assert server.stop() == 0


def test_committed_offsets_and_membership_survive_kill_9(server_factory: ServerFactory) -> None:
    server = server_factory()  # default session timeout: the member outlives the restart
    server.start()
    expected: dict[str, dict[tuple[str, int], int]] = {}
    with httpx.Client(base_url=server.url, timeout=10) as c:
        for topic in ("orders", "audit"):
            assert c.post("/v1/topics", json={"name": topic, "partitions": 3}).status_code == 201
        for i in range(60):
            group = f"g{i % 4}"
            topic = ("orders", "audit")[i % 2]
            partition = i % 3
            r = c.post(
                f"/v1/groups/{group}/offsets",
                json={
                    "offsets": [
                        {
                            "topic": topic,
                            "partition": partition,
                            "offset": i * 10,
                            "metadata": f"commit {i}",
                        }
                    ]
                },
            )
            assert r.status_code == 200 and r.json()["offsets"][0]["error"] is None, r.text
            expected.setdefault(group, {})[(topic, partition)] = i * 10
        joined = ok(heartbeat(c, "m", 0))
        assert owned(joined) == [0, 1, 2]
        r = c.post(
            "/v1/groups/workers/offsets",
            json={
                "member_id": "m",
                "member_epoch": joined["member_epoch"],
                "offsets": [{"topic": "orders", "partition": 2, "offset": 7}],
            },
        )
        assert r.status_code == 200 and r.json()["offsets"][0]["error"] is None
        expected["workers"] = {("orders", 2): 7}
        before = c.get("/v1/groups/workers").json()
    server.kill()
    server.start()
    with httpx.Client(base_url=server.url, timeout=10) as c:
        for group, want in expected.items():
            got = c.get(f"/v1/groups/{group}/offsets").json()["offsets"]
            assert {(o["topic"], o["partition"]): o["offset"] for o in got} == want
            assert all(o["metadata"].startswith("commit ") for o in got if group != "workers")
        assert sorted(g["group_id"] for g in c.get("/v1/groups").json()["groups"]) == [
            "g0",
            "g1",
            "g2",
            "g3",
            "workers",
        ]
        assert c.get("/v1/groups/workers").json() == before
        assert ok(heartbeat(c, "m", joined["member_epoch"])) == joined
        # the member leaves: on a gateway it would otherwise outlive the test by Kafka's
        # session timeout, and its group could not be deleted until then
        assert ok(heartbeat(c, "m", -1))["member_epoch"] == -1
    assert server.stop() == 0
