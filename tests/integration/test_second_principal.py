"""Every route, walked by a second principal against what the first one made
(docs/security.md#ownership).

``ann`` and ``ben`` have the same ACLs. ``ann`` makes what a principal makes: a consumer-group
member (with its assignment), a share-group member holding records, an acquisition by id
holding records, an idempotent producer id with its sequences. Then ``ben`` asks every route of
the app (generated from its route list, WebSockets included) with a request that names ``ann``'s
things: her member ids and epochs, her acquisition id, her producer id, acknowledgements of the
records she holds. After each request nothing of ``ann``'s has changed (her members, what they
and her acquisition hold, with their delivery counts), ``ben`` has read none of the records she
holds through a share fetch, and no answer shows her acquisition id or her producer id; at the
end ``ann``'s members, acquisition and producer carry on as if ``ben`` had never been there.

What a principal may read by its ACLs stays readable: the records of a topic by offset (READ on
the topic), and who holds what in a group's descriptions (DESCRIBE on the group: member ids,
and the owner of each record in the per-record view, as Kafka's DescribeGroups shows members;
knowing them lets no other principal act as them). A route without a
request here fails the test: a new endpoint is walked too.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from app.security import permissions
from app.storage import record
from app.storage.record import Record

from .acl_world import Headers, World, route_keys, start_world

ACQ = "ann-acquisition-7"  # an id that nothing else in the world contains


@dataclass
class Anns:
    """What ann made."""

    who: Headers
    member: str  # her consumer-group member, in cg
    epoch: int
    share_member: str  # her share-group member, in sq
    share_epoch: int
    pid: int  # her idempotent producer id
    next_sequence: int
    held: set[tuple[str, int, int]]  # (topic, partition, offset) her member and acquisition hold


SAME_ACLS = (
    ("TOPIC", "orders", "READ"),
    ("TOPIC", "orders", "WRITE"),
    ("GROUP", "cg", "READ"),
    ("GROUP", "sq", "READ"),
)


ROUTE_KEYS = route_keys()


@pytest.fixture(scope="module")
def walk() -> Iterator[tuple[World, Anns, Headers]]:
    with tempfile.TemporaryDirectory() as d:
        for w in start_world(Path(d)):
            w.admin("PATCH", "/v1/share-groups/sq/config", {"auto_offset_reset": "earliest"})
            w.admin(
                "POST",
                "/v1/topics/orders/records",
                {"records": [{"value": f"r{i}", "partition": i % 2} for i in range(8)]},
            )
            ann, ben = w.principal("ann"), w.principal("ben")
            for who in (ann, ben):
                for grant in SAME_ACLS:
                    w.grant(who, *grant)
                # transactional ids are guarded by their ACL alone: each has its own
                w.grant(who, "TRANSACTIONAL_ID", f"tx-{w.name_of(who)}", "WRITE")
            yield w, _anns_things(w, ann), ben


def _anns_things(w: World, ann: Headers) -> Anns:
    joined = w.call(
        ann, "POST", "/v1/groups/cg/heartbeat", {"member_epoch": 0, "subscribed_topics": ["orders"]}
    ).json()
    assert joined["assignment"], joined
    got = w.call(
        ann,
        "POST",
        "/v1/share-groups/sq/fetch",
        {"subscribed_topics": ["orders"], "max_records": 2, "acquire_mode": "record_limit"},
    ).json()
    share_member = got["member_id"]
    beat = {"member_id": share_member, "member_epoch": 0, "subscribed_topics": ["orders"]}
    share_epoch = w.call(ann, "POST", "/v1/share-groups/sq/heartbeat", beat).json()["member_epoch"]
    acq = w.call(
        ann,
        "POST",
        "/v1/share-groups/sq/fetch",
        {
            "acquisition_id": ACQ,
            "subscribed_topics": ["orders"],
            "max_records": 2,
            "record_limit": True,
        },
    ).json()
    held = {
        (r["topic"], r["partition"], off)
        for answer in (got, acq)
        for r in answer["acquired"]
        for off in range(r["first_offset"], r["last_offset"] + 1)
    }
    assert got["acquired"] and acq["acquired"], (got, acq)
    pid = w.call(ann, "POST", "/v1/producers", {}).json()["producer_id"]
    assert _produce(w, ann, pid, 0, 0).json()["batches"][0]["error"] is None
    return Anns(
        ann, joined["member_id"], joined["member_epoch"], share_member, share_epoch, pid, 1, held
    )


def _produce(w: World, who: Headers, pid: int, epoch: int, seq: int) -> Any:
    batch = {"topic": "orders", "partition": 0, "base_sequence": seq, "records": [{"value": "p"}]}
    return w.call(
        who,
        "POST",
        "/v1/produce",
        {"producer_id": pid, "producer_epoch": epoch, "batches": [batch]},
    )


def _acks(a: Anns, kind: str) -> list[dict[str, Any]]:
    return [
        {"topic": t, "partition": p, "first_offset": o, "last_offset": o, "type": kind}
        for t, p, o in sorted(a.held)
    ]


def requests(a: Anns) -> dict[str, tuple[str, Any, dict[str, Any]]]:
    """Every non-public route: (path, body, query), naming ann's things wherever the route
    takes them."""
    producer = {"producer_id": a.pid, "producer_epoch": 0}
    batch = {
        "topic": "orders",
        "partition": 0,
        "base_sequence": a.next_sequence,
        "records": [{"value": "b"}],
    }
    share_ack = {
        "group_id": "sq",
        "member_id": a.share_member,
        "acknowledgements": _acks(a, "reject"),
    }
    offsets = {
        "group_id": "cg",
        "member_id": a.member,
        "member_epoch": a.epoch,
        "offsets": [{"topic": "orders", "partition": 0, "offset": 5}],
    }
    return {
        "GET /metrics": ("/metrics", None, {}),
        "POST /v1/topics": ("/v1/topics", {"name": "orders"}, {}),
        "GET /v1/topics": ("/v1/topics", None, {}),
        "GET /v1/topics/{topic}": ("/v1/topics/orders", None, {}),
        "PATCH /v1/topics/{topic}": ("/v1/topics/orders", {"config": {"retention_ms": 1}}, {}),
        "DELETE /v1/topics/{topic}": ("/v1/topics/orders", None, {}),
        "POST /v1/topics/{topic}/delete-records": (
            "/v1/topics/orders/delete-records",
            {"partitions": [{"partition": 0, "before_offset": 8}]},
            {},
        ),
        "POST /v1/topics/{topic}/records": ("/v1/topics/orders/records", {"records": [{}]}, {}),
        "GET /v1/topics/{topic}/partitions/{partition}/records": (
            "/v1/topics/orders/partitions/0/records",
            None,
            {},
        ),
        "GET /v1/topics/{topic}/partitions/{partition}/offsets": (
            "/v1/topics/orders/partitions/0/offsets",
            None,
            {},
        ),
        "POST /v1/producers": ("/v1/producers", producer, {}),
        "POST /v1/produce": ("/v1/produce", {**producer, "batches": [batch]}, {}),
        "POST /v1/topics/{topic}/partitions/{partition}/batches": (
            "/v1/topics/orders/partitions/0/batches",
            record.encode_batch(
                0,
                [Record(1, None, b"b")],
                producer_id=a.pid,
                producer_epoch=0,
                base_sequence=a.next_sequence,
            ),
            {},
        ),
        "POST /v1/transactions/{tid}/commit": (
            "/v1/transactions/tx-ben/commit",
            {
                **producer,
                "batches": [batch],
                "group_offsets": [offsets],
                "share_acknowledgements": [share_ack],
            },
            {},
        ),
        "POST /v1/transactions/{tid}/abort": ("/v1/transactions/tx-ben/abort", producer, {}),
        "POST /v1/transactions/{tid}/offsets": (
            "/v1/transactions/tx-ben/offsets",
            {**producer, **offsets},
            {},
        ),
        "POST /v1/transactions/{tid}/acknowledgements": (
            "/v1/transactions/tx-ben/acknowledgements",
            {**producer, **share_ack},
            {},
        ),
        "GET /v1/transactions": ("/v1/transactions", None, {}),
        "GET /v1/transactions/{tid}": ("/v1/transactions/tx-ben", None, {}),
        "POST /v1/transactions:commit-all": (
            "/v1/transactions:commit-all",
            {"transactions": [{"transactional_id": "tx-ben", **producer}]},
            {},
        ),
        "POST /v1/transactions:abort-prefix": (
            "/v1/transactions:abort-prefix",
            {"prefix": "tx"},
            {},
        ),
        "POST /v1/groups/{group_id}/heartbeat": (
            "/v1/groups/cg/heartbeat",
            {"member_id": a.member, "member_epoch": -1},
            {},
        ),
        "POST /v1/groups/{group_id}/offsets": ("/v1/groups/cg/offsets", offsets, {}),
        "GET /v1/groups/{group_id}/offsets": ("/v1/groups/cg/offsets", None, {}),
        "DELETE /v1/groups/{group_id}/offsets": (
            "/v1/groups/cg/offsets",
            None,
            {"topic": "orders"},
        ),
        "GET /v1/groups": ("/v1/groups", None, {}),
        "GET /v1/groups/{group_id}": ("/v1/groups/cg", None, {}),
        "DELETE /v1/groups/{group_id}": ("/v1/groups/cg", None, {}),
        "POST /v1/share-groups/{group_id}/heartbeat": (
            "/v1/share-groups/sq/heartbeat",
            {"member_id": a.share_member, "member_epoch": -1},
            {},
        ),
        "DELETE /v1/share-groups/{group_id}/members/{member_id}": (
            f"/v1/share-groups/sq/members/{a.share_member}",
            None,
            {},
        ),
        "POST /v1/share-groups/{group_id}/fetch": (
            "/v1/share-groups/sq/fetch",
            {"acquisition_id": ACQ, "subscribed_topics": [], "held_only": True},
            {},
        ),
        "POST /v1/share-groups/{group_id}/acknowledge": (
            "/v1/share-groups/sq/acknowledge",
            {"member_id": a.share_member, "acknowledgements": _acks(a, "reject")},
            {},
        ),
        "POST /v1/share-groups/{group_id}/acquisitions/acknowledge": (
            "/v1/share-groups/sq/acquisitions/acknowledge",
            {"prefix": "ann", "type": "reject"},
            {},
        ),
        "GET /v1/share-groups/{group_id}/acquisitions": (
            "/v1/share-groups/sq/acquisitions",
            None,
            {},
        ),
        "PATCH /v1/share-groups/{group_id}/config": (
            "/v1/share-groups/sq/config",
            {"record_lock_duration_ms": 15_000},
            {},
        ),
        "GET /v1/share-groups": ("/v1/share-groups", None, {}),
        "GET /v1/share-groups/{group_id}": ("/v1/share-groups/sq", None, {}),
        "GET /v1/share-groups/{group_id}/partitions/{topic}/{partition}/records": (
            "/v1/share-groups/sq/partitions/orders/0/records",
            None,
            {},
        ),
        "POST /v1/share-groups/{group_id}/offsets": (
            "/v1/share-groups/sq/offsets",
            {"topics": [{"topic": "orders", "at": "latest"}]},
            {},
        ),
        "DELETE /v1/share-groups/{group_id}/offsets": (
            "/v1/share-groups/sq/offsets",
            None,
            {"topic": "orders"},
        ),
        "DELETE /v1/share-groups/{group_id}": ("/v1/share-groups/sq", None, {}),
        "GET /v1/auth/whoami": ("/v1/auth/whoami", None, {}),
        "POST /v1/auth/ws-token": ("/v1/auth/ws-token", None, {}),
        "POST /v1/admin/acls": ("/v1/admin/acls", {}, {}),
        "GET /v1/admin/acls": ("/v1/admin/acls", None, {"principal": "ann"}),
        "DELETE /v1/admin/acls": ("/v1/admin/acls", None, {"principal": "ann"}),
        "POST /v1/admin/keys": ("/v1/admin/keys", {"principal": "ann"}, {}),
        "GET /v1/admin/keys": ("/v1/admin/keys", None, {}),
        "DELETE /v1/admin/keys/{key_id}": ("/v1/admin/keys/nope", None, {}),
        "GET /v1/admin/quotas": ("/v1/admin/quotas", None, {}),
        "PUT /v1/admin/quotas/{principal}": (
            "/v1/admin/quotas/ann",
            {"producer_byte_rate": 1},
            {},
        ),
        "DELETE /v1/admin/quotas/{principal}": ("/v1/admin/quotas/ann", None, {}),
    }


def anns_state(w: World, a: Anns) -> dict[str, Any]:
    """What ann made, as the admin sees it: her members (epochs, assignments), and the state,
    owner and delivery count of every record she holds."""
    group = w.admin("GET", "/v1/groups/cg")
    share = w.admin("GET", "/v1/share-groups/sq")
    records = {}
    for p in (0, 1):
        view = w.admin("GET", f"/v1/share-groups/sq/partitions/orders/{p}/records")["records"]
        for r in view:
            if ("orders", p, r["offset"]) in a.held:
                records[(p, r["offset"])] = (r["state"], r["member_id"], r["delivery_count"])
    return {
        "member": [m for m in group["members"] if m["member_id"] == a.member],
        "share_member": [m for m in share["members"] if m["member_id"] == a.share_member],
        "records": records,
    }


def _fetched(answer: Any) -> set[tuple[str, int, int]]:
    records = answer.get("records") if isinstance(answer, dict) else None
    if not isinstance(records, list):
        return set()
    return {
        (r["topic"], r["partition"], r["offset"])
        for r in records
        if isinstance(r, dict) and "topic" in r and "offset" in r
    }


# the descriptions that show who holds what (DESCRIBE on the group)
DESCRIPTIONS = {
    "GET /v1/share-groups/{group_id}",
    "GET /v1/share-groups/{group_id}/partitions/{topic}/{partition}/records",
}


def _leaks(text: str, a: Anns, asked: str = "") -> list[str]:
    """What of ann's an answer shows: her acquisition id (unless the request named it itself,
    and the answer only echoes it), her producer id."""
    found = []
    if ACQ in text and ACQ not in asked:
        found.append("her acquisition id")
    if re.search(rf'"producer_id":\s*{a.pid}\b', text):
        found.append("her producer id")
    return found


@pytest.mark.parametrize("key", ROUTE_KEYS)
def test_a_second_principal_reads_changes_and_observes_nothing_of_the_firsts(
    walk: tuple[World, Anns, Headers], key: str
) -> None:
    w, a, ben = walk
    method, path = key.split(" ", 1)
    need = permissions.need_of(method, path)
    assert need is not None
    if need.access == "public":
        return
    before = anns_state(w, a)
    if key == "WS /v1/events":
        with w.socket(ben, "/v1/events") as ws:
            snapshot = ws.receive_text()
        assert json.loads(snapshot)["type"] == "snapshot"
        # the feed describes the share groups too: who holds each run of records
        assert _leaks(snapshot.replace(f"acquisition:ann/{ACQ}", ""), a) == [], snapshot
    elif key == "WS /v1/share-groups/{group_id}/consume":
        with w.socket(ben, "/v1/share-groups/sq/consume") as ws:
            ws.send_json({"type": "subscribe", "topics": ["orders"], "member_id": a.share_member})
            frame = ws.receive_json()
        assert frame["type"] == "error", frame
        assert frame["error"]["code"] == "UNKNOWN_MEMBER_ID", frame
    else:
        case = requests(a).get(key)
        assert case is not None, f"{key}: no request here: say how a second principal tries it"
        where, body, query = case
        r = w.call(ben, method, where, body, query)
        assert r.status_code < 500, (key, r.status_code, r.text)
        shown = r.text if key not in DESCRIPTIONS else r.text.replace(f"acquisition:ann/{ACQ}", "")
        asked = body.hex() if isinstance(body, bytes) else json.dumps(body)
        assert _leaks(shown, a, asked) == [], (key, r.text)
        # records of the topic by offset are ben's to read (READ on the topic); a share fetch
        # must not hand him what ann holds
        json_answer = r.headers.get("content-type", "").startswith("application/json")
        if json_answer and r.content and ("/share-groups/" in where or "/transactions" in where):
            assert not _fetched(r.json()) & a.held, (key, r.text)
    assert anns_state(w, a) == before, key


def test_after_the_walk_anns_things_carry_on(walk: tuple[World, Anns, Headers]) -> None:
    """Runs last in the module (pytest keeps file order): her producer is not fenced and its
    sequence unchanged, her members heartbeat at their epochs, her acquisition answers what it
    held."""
    w, a, _ = walk
    r = _produce(w, a.who, a.pid, 0, a.next_sequence)
    assert r.json()["batches"][0]["error"] is None, r.text
    beat = {"member_id": a.member, "member_epoch": a.epoch}
    assert w.call(a.who, "POST", "/v1/groups/cg/heartbeat", beat).status_code == 200
    share_beat = {"member_id": a.share_member, "member_epoch": a.share_epoch}
    assert w.call(a.who, "POST", "/v1/share-groups/sq/heartbeat", share_beat).status_code == 200
    replay = {"acquisition_id": ACQ, "subscribed_topics": [], "held_only": True}
    got = w.call(a.who, "POST", "/v1/share-groups/sq/fetch", replay).json()
    assert _fetched(got) and _fetched(got) <= a.held, got
