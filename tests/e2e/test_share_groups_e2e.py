"""Share groups against a real ``python -m app serve`` process: a consumer joins by fetching,
a long poll is woken by a produce from another client, acknowledgements, a reject copied to the
dead-letter topic, the per-record view, and the state after a clean restart."""

from __future__ import annotations

import threading

import httpx
import pytest

from tests.conftest import ServerProcess

pytestmark = pytest.mark.slow


@pytest.mark.embedded_only("dead_letter_topic_name", "share_record_view", "share_start_offset")
def test_share_group_end_to_end(server: ServerProcess) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        for name, n in (("orders", 2), ("orders.dlq", 1)):
            assert c.post("/v1/topics", json={"name": name, "partitions": n}).status_code == 201
        r = c.patch(
            "/v1/share-groups/billing/config",
            json={"dead_letter_topic": "orders.dlq", "auto_offset_reset": "earliest"},
        )
        assert r.status_code == 200 and r.json()["dead_letter_topic"] == "orders.dlq"

        got: dict[str, object] = {}

        def long_poll() -> None:
            with httpx.Client(base_url=server.url, timeout=30) as c2:
                got["answer"] = c2.post(
                    "/v1/share-groups/billing/fetch",
                    json={
                        "member_id": None,
                        "subscribed_topics": ["orders"],
                        "max_wait_ms": 20_000,
                    },
                ).json()

        t = threading.Thread(target=long_poll)
        t.start()
        # the poller joins the group first; then the records arrive
        for _ in range(500):
            if c.get("/v1/share-groups/billing").json()["members"]:
                break
            threading.Event().wait(0.01)
        r = c.post(
            "/v1/topics/orders/records",
            json={
                "records": [
                    {"key": "a", "value": "ok", "partition": 1},
                    {"key": "b", "value": "poison", "partition": 1},
                ]
            },
        )
        assert r.status_code == 200
        t.join(30)
        answer = got["answer"]
        assert isinstance(answer, dict)
        member = answer["member_id"]
        assert [(x["offset"], x["value"], x["delivery_count"]) for x in answer["records"]] == [
            (0, "ok", 1),
            (1, "poison", 1),
        ]
        r = c.post(
            "/v1/share-groups/billing/acknowledge",
            json={
                "member_id": member,
                "acknowledgements": [
                    {
                        "topic": "orders",
                        "partition": 1,
                        "first_offset": 0,
                        "last_offset": 1,
                        "types": ["accept", "reject"],
                    }
                ],
            },
        )
        assert r.json() == {"results": [{"topic": "orders", "partition": 1, "error": None}]}
        dlq = c.get("/v1/topics/orders.dlq/partitions/0/records").json()["records"]
        assert [(x["key"], x["value"]) for x in dlq] == [("b", "poison")]
        assert {h["key"]: h["value"] for h in dlq[0]["headers"]}["sluice.dlq.reason"] == (
            "rejected"
        )
        view = c.get("/v1/share-groups/billing/partitions/orders/1/records").json()
        assert view == {"start_offset": 2, "end_offset": 2, "records": []}
        assert c.delete(f"/v1/share-groups/billing/members/{member}").status_code == 204
    assert server.stop() == 0
    server.start()
    with httpx.Client(base_url=server.url, timeout=30) as c:
        d = c.get("/v1/share-groups/billing").json()
        assert d["state"] == "Empty"
        assert d["config"]["dead_letter_topic"] == "orders.dlq"
        assert [(p["partition"], p["start_offset"], p["lag"]) for p in d["partitions"]] == [
            (0, 0, 0),
            (1, 2, 0),
        ]
