"""What a principal made belongs to it (docs/security.md#ownership): acquisitions by id,
consumer-group and share-group members, idempotent producer ids. A second principal with the
same ACLs, naming what the first made, is answered as if it did not exist, and changes nothing
of it."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.exceptions import StarletteDeprecationWarning

from app.config import Settings
from app.main import create_app

from .acl_world import ADMIN, Headers, World, start_world
from .helpers import LoopbackClient

with warnings.catch_warnings():
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from starlette.testclient import TestClient


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    yield from start_world(tmp_path)


def error(r: Any) -> tuple[int, str]:
    return r.status_code, r.json()["error"]["code"]


def twins(w: World, *grants: tuple[str, str, str]) -> tuple[Headers, Headers]:
    """Two principals with the same ACLs."""
    pair = w.principal("ann"), w.principal("ben")
    for who in pair:
        for rtype, name, op in grants:
            w.grant(who, rtype, name, op)
    return pair


def fill(w: World, topic: str, n: int) -> None:
    w.admin("POST", f"/v1/topics/{topic}/records", {"records": [{"value": "v"}] * n})


# -- acquisitions by id ------------------------------------------------------------------------


def test_an_acquisition_is_its_principals_own(world: World) -> None:
    w = world
    w.admin("POST", "/v1/topics", {"name": "jobs", "partitions": 1})
    w.admin("PATCH", "/v1/share-groups/q/config", {"auto_offset_reset": "earliest"})
    ann, ben = twins(w, ("GROUP", "q", "READ"), ("TOPIC", "jobs", "READ"))
    fill(w, "jobs", 3)
    body = {"acquisition_id": "run:1", "subscribed_topics": ["jobs"], "max_records": 3}
    mine = w.call(ann, "POST", "/v1/share-groups/q/fetch", body).json()
    assert [r["offset"] for r in mine["records"]] == [0, 1, 2]
    # the same id from another principal names another acquisition: it acquires anew and sees
    # nothing of ann's, by fetch, replay, listing or acknowledgement
    fill(w, "jobs", 2)
    theirs = w.call(ben, "POST", "/v1/share-groups/q/fetch", body).json()
    assert [r["offset"] for r in theirs["records"]] == [3, 4]
    replay = {"acquisition_id": "run:1", "subscribed_topics": [], "held_only": True}
    again = w.call(ben, "POST", "/v1/share-groups/q/fetch", replay).json()
    assert [r["offset"] for r in again["records"]] == [3, 4]
    listed = w.call(ben, "GET", "/v1/share-groups/q/acquisitions").json()
    assert [(a["acquisition_id"], a["records"]) for a in listed["acquisitions"]] == [("run:1", 2)]
    rejected = w.call(
        ben,
        "POST",
        "/v1/share-groups/q/acquisitions/acknowledge",
        {"prefix": "run:", "type": "reject"},
    ).json()
    assert rejected["acknowledged"] == 2  # ben's own two, not ann's three
    # ann's records are untouched: still held by her acquisition, with their delivery count
    again = w.call(ann, "POST", "/v1/share-groups/q/fetch", replay).json()
    assert [(r["offset"], r["delivery_count"]) for r in again["records"]] == [
        (0, 1),
        (1, 1),
        (2, 1),
    ]
    states = w.admin("GET", "/v1/share-groups/q/partitions/jobs/0/records")["records"]
    assert [s["state"] for s in states] == ["acquired"] * 3 + ["archived"] * 2
    assert {s["member_id"] for s in states[:3]} == {"acquisition:ann/run:1"}
    # a listing by an id ann has, and an acknowledgement by those ids, find nothing for ben
    ids = {"acquisition_ids": ["run:1"], "type": "reject"}
    r = w.call(ben, "POST", "/v1/share-groups/q/acquisitions/acknowledge", ids).json()
    assert r == {"acknowledged": 0, "acquisitions": []}
    assert w.call(ben, "GET", "/v1/share-groups/q/acquisitions").json()["acquisitions"] == []


def test_a_replay_answers_records_only_while_the_caller_may_read_their_topics(
    world: World,
) -> None:
    w = world
    w.admin("POST", "/v1/topics", {"name": "jobs", "partitions": 1})
    w.admin("PATCH", "/v1/share-groups/q/config", {"auto_offset_reset": "earliest"})
    ann = w.principal("ann")
    w.grant(ann, "GROUP", "q", "READ")
    w.grant(ann, "TOPIC", "jobs", "READ")
    fill(w, "jobs", 2)
    body = {"acquisition_id": "a", "subscribed_topics": ["jobs"]}
    assert len(w.call(ann, "POST", "/v1/share-groups/q/fetch", body).json()["records"]) == 2
    w.revoke(ann, "TOPIC", "jobs", "READ")
    w.grant(ann, "TOPIC", "jobs", "DESCRIBE")
    # an empty subscription, or held_only, asks for no topic: the held records' topics are
    # checked all the same
    for replay in (
        {"acquisition_id": "a", "subscribed_topics": []},
        {"acquisition_id": "a", "subscribed_topics": [], "held_only": True},
    ):
        r = w.call(ann, "POST", "/v1/share-groups/q/fetch", replay)
        assert error(r) == (403, "TOPIC_AUTHORIZATION_FAILED"), r.text
    # acknowledging them needs READ too; the listing shows what DESCRIBE lets it see
    ack = {"prefix": "a", "type": "accept"}
    r = w.call(ann, "POST", "/v1/share-groups/q/acquisitions/acknowledge", ack)
    assert error(r) == (403, "TOPIC_AUTHORIZATION_FAILED")
    listed = w.call(ann, "GET", "/v1/share-groups/q/acquisitions").json()
    assert [a["acquisition_id"] for a in listed["acquisitions"]] == ["a"]
    w.revoke(ann, "TOPIC", "jobs", "DESCRIBE")
    assert w.call(ann, "GET", "/v1/share-groups/q/acquisitions").json()["acquisitions"] == []
    w.grant(ann, "TOPIC", "jobs", "READ")
    r = w.call(ann, "POST", "/v1/share-groups/q/acquisitions/acknowledge", ack)
    assert r.json()["acknowledged"] == 2, r.text


# -- members ---------------------------------------------------------------------------------


def test_a_consumer_group_member_is_its_principals_own(world: World) -> None:
    w = world
    w.admin("POST", "/v1/topics", {"name": "secret", "partitions": 1})
    ann, ben = twins(w, ("GROUP", "cg", "READ"), ("TOPIC", "orders", "READ"))
    w.grant(ann, "TOPIC", "secret", "READ")
    joined = w.call(
        ann,
        "POST",
        "/v1/groups/cg/heartbeat",
        {"member_epoch": 0, "subscribed_topics": ["orders", "secret"], "group_instance_id": "i1"},
    ).json()
    mid, epoch = joined["member_id"], joined["member_epoch"]
    # ben, with READ on the group, cannot heartbeat as ann's member (which would answer her
    # assignment, "secret" included), make it leave, or commit as it
    for member_epoch in (epoch, -1):
        beat = {"member_id": mid, "member_epoch": member_epoch}
        r = w.call(ben, "POST", "/v1/groups/cg/heartbeat", beat)
        assert error(r) == (404, "UNKNOWN_MEMBER_ID"), r.text
        assert "secret" not in r.text
    commit = {
        "member_id": mid,
        "member_epoch": epoch,
        "offsets": [{"topic": "orders", "partition": 0, "offset": 1}],
    }
    assert error(w.call(ben, "POST", "/v1/groups/cg/offsets", commit)) == (
        404,
        "UNKNOWN_MEMBER_ID",
    )
    # nor join with its member id, or take over its static instance while it is away
    rejoin = {"member_id": mid, "member_epoch": 0, "subscribed_topics": ["orders"]}
    assert error(w.call(ben, "POST", "/v1/groups/cg/heartbeat", rejoin))[0] == 400
    away = {"member_id": mid, "member_epoch": -2, "group_instance_id": "i1"}
    assert w.call(ann, "POST", "/v1/groups/cg/heartbeat", away).status_code == 200
    takeover = {"member_epoch": 0, "subscribed_topics": ["orders"], "group_instance_id": "i1"}
    r = w.call(ben, "POST", "/v1/groups/cg/heartbeat", takeover)
    assert error(r) == (409, "UNRELEASED_INSTANCE_ID"), r.text
    # ann's member is still there, and still hers
    group = w.admin("GET", "/v1/groups/cg")
    assert [m["member_id"] for m in group["members"]] == [mid]
    back = {"member_epoch": 0, "subscribed_topics": ["orders"], "group_instance_id": "i1"}
    assert w.call(ann, "POST", "/v1/groups/cg/heartbeat", back).status_code == 200


def test_a_share_group_member_is_its_principals_own(world: World) -> None:
    w = world
    w.admin("PATCH", "/v1/share-groups/sq/config", {"auto_offset_reset": "earliest"})
    ann, ben = twins(w, ("GROUP", "sq", "READ"), ("TOPIC", "orders", "READ"))
    got = w.call(ann, "POST", "/v1/share-groups/sq/fetch", {"subscribed_topics": ["orders"]})
    mid = got.json()["member_id"]
    held = got.json()["acquired"]
    assert held
    epoch = w.call(
        ann,
        "POST",
        "/v1/share-groups/sq/heartbeat",
        {"member_id": mid, "member_epoch": 0, "subscribed_topics": ["orders"]},
    ).json()["member_epoch"]
    unknown = (404, "UNKNOWN_MEMBER_ID")
    for member_epoch in (epoch, -1):
        beat = {"member_id": mid, "member_epoch": member_epoch}
        assert error(w.call(ben, "POST", "/v1/share-groups/sq/heartbeat", beat)) == unknown
    join = {"member_id": mid, "member_epoch": 0, "subscribed_topics": ["orders"]}
    assert error(w.call(ben, "POST", "/v1/share-groups/sq/heartbeat", join))[0] == 400
    assert error(w.call(ben, "POST", "/v1/share-groups/sq/fetch", {"member_id": mid})) == unknown
    first = held[0]
    ack = {
        "member_id": mid,
        "acknowledgements": [
            {
                "topic": first["topic"],
                "partition": first["partition"],
                "first_offset": first["first_offset"],
                "last_offset": first["last_offset"],
                "type": "reject",
            }
        ],
    }
    assert error(w.call(ben, "POST", "/v1/share-groups/sq/acknowledge", ack)) == unknown
    assert error(w.call(ben, "DELETE", f"/v1/share-groups/sq/members/{mid}")) == unknown
    with w.socket(ben, "/v1/share-groups/sq/consume") as ws:
        ws.send_json({"type": "subscribe", "topics": ["orders"], "member_id": mid})
        frame = ws.receive_json()
        assert frame["type"] == "error" and frame["error"]["code"] == "UNKNOWN_MEMBER_ID"
    # ann's member still holds its records, and acknowledges them itself
    group = w.admin("GET", "/v1/share-groups/sq")
    assert [m["member_id"] for m in group["members"]] == [mid]
    ack["acknowledgements"][0]["type"] = "accept"
    r = w.call(ann, "POST", "/v1/share-groups/sq/acknowledge", ack).json()
    assert [x["error"] for x in r["results"]] == [None]


def test_transactional_offsets_and_acknowledgements_name_only_the_callers_members(
    world: World,
) -> None:
    w = world
    w.admin("PATCH", "/v1/share-groups/sq/config", {"auto_offset_reset": "earliest"})
    grants = [("GROUP", g, "READ") for g in ("sq", "cg")]
    ann, ben = twins(w, *grants, ("TOPIC", "orders", "READ"))
    for who in (ann, ben):
        w.grant(who, "TRANSACTIONAL_ID", f"tx-{w.name_of(who)}", "WRITE")
    share = w.call(ann, "POST", "/v1/share-groups/sq/fetch", {"subscribed_topics": ["orders"]})
    smid, held = share.json()["member_id"], share.json()["acquired"][0]
    cg = w.call(
        ann, "POST", "/v1/groups/cg/heartbeat", {"member_epoch": 0, "subscribed_topics": ["orders"]}
    ).json()
    tx = w.call(ben, "POST", "/v1/producers", {"transactional_id": "tx-ben"}).json()
    producer = {"producer_id": tx["producer_id"], "producer_epoch": tx["producer_epoch"]}
    acks = {
        **producer,
        "group_id": "sq",
        "member_id": smid,
        "acknowledgements": [
            {
                "topic": "orders",
                "partition": held["partition"],
                "first_offset": held["first_offset"],
                "last_offset": held["last_offset"],
                "type": "accept",
            }
        ],
    }
    r = w.call(ben, "POST", "/v1/transactions/tx-ben/acknowledgements", acks)
    assert error(r) == (404, "UNKNOWN_MEMBER_ID"), r.text
    offsets = {
        **producer,
        "group_id": "cg",
        "member_id": cg["member_id"],
        "member_epoch": cg["member_epoch"],
        "offsets": [{"topic": "orders", "partition": 0, "offset": 2}],
    }
    r = w.call(ben, "POST", "/v1/transactions/tx-ben/offsets", offsets)
    assert error(r) == (404, "UNKNOWN_MEMBER_ID"), r.text
    commit = {
        **producer,
        "share_acknowledgements": [
            {k: acks[k] for k in ("group_id", "member_id", "acknowledgements")}
        ],
    }
    r = w.call(ben, "POST", "/v1/transactions/tx-ben/commit", commit)
    assert error(r) == (404, "UNKNOWN_MEMBER_ID"), r.text
    # group by group: the owner check of the consumer group's member comes before the READ
    # check of a later share group the caller may not read
    mixed: dict[str, Any] = {
        **producer,
        "group_offsets": [
            {k: offsets[k] for k in ("group_id", "member_id", "member_epoch", "offsets")}
        ],
        "share_acknowledgements": [{**commit["share_acknowledgements"][0], "group_id": "sq-x"}],
    }
    r = w.call(ben, "POST", "/v1/transactions/tx-ben/commit", mixed)
    assert error(r) == (404, "UNKNOWN_MEMBER_ID"), r.text
    del mixed["group_offsets"]
    r = w.call(ben, "POST", "/v1/transactions/tx-ben/commit", mixed)
    assert error(r) == (403, "GROUP_AUTHORIZATION_FAILED"), r.text
    states = w.admin("GET", f"/v1/share-groups/sq/partitions/orders/{held['partition']}/records")
    assert {s["state"] for s in states["records"]} == {"acquired"}


# -- producer ids ------------------------------------------------------------------------------


def produce(w: World, who: Headers, pid: int, epoch: int, seq: int) -> Any:
    body = {
        "producer_id": pid,
        "producer_epoch": epoch,
        "batches": [
            {"topic": "orders", "partition": 0, "base_sequence": seq, "records": [{"value": "x"}]}
        ],
    }
    return w.call(who, "POST", "/v1/produce", body)


def test_an_idempotent_producer_id_is_used_only_by_its_principal(tmp_path: Path) -> None:
    worlds = start_world(tmp_path)
    w = next(worlds)
    ann, ben = twins(w, ("TOPIC", "orders", "WRITE"))
    pid = w.call(ann, "POST", "/v1/producers", {}).json()["producer_id"]
    assert produce(w, ann, pid, 0, 0).json()["batches"][0]["error"] is None
    unknown = (400, "UNKNOWN_PRODUCER_ID")
    # ben can neither produce with ann's id, at any epoch (which would fence her producer),
    # nor have it handed over with the next epoch
    for epoch in (0, 5, 32766):
        assert error(produce(w, ben, pid, epoch, 0)) == unknown
    bump = {"producer_id": pid, "producer_epoch": 0}
    assert error(w.call(ben, "POST", "/v1/producers", bump)) == unknown
    # ann's producer carries on, sequence and epoch untouched; she may raise her own epoch
    assert produce(w, ann, pid, 0, 1).json()["batches"][0]["error"] is None
    assert w.call(ann, "POST", "/v1/producers", bump).json() == {
        "producer_id": pid,
        "producer_epoch": 1,
    }
    keys = dict(w.keys)
    next(worlds, None)  # the server stops

    # a restart forgets nothing of whose the id is
    app = create_app(Settings(data_dir=str(tmp_path / "data"), super_users=ADMIN))
    with TestClient(app) as client:
        again = World(client, keys=keys)
        ann, ben = again.principal("ann"), again.principal("ben")
        assert error(produce(again, ben, pid, 1, 0)) == unknown
        assert produce(again, ann, pid, 1, 0).json()["batches"][0]["error"] is None


def test_a_transactional_producer_id_belongs_to_its_transactional_id(world: World) -> None:
    """Whoever may WRITE the transactional id may use its producer id, as in Kafka; without the
    transactional id, the id is nobody's to produce with."""
    w = world
    ann, ben = twins(w, ("TOPIC", "orders", "WRITE"), ("TRANSACTIONAL_ID", "shared", "WRITE"))
    tx = w.call(ann, "POST", "/v1/producers", {"transactional_id": "shared"}).json()
    bumped = w.call(ben, "POST", "/v1/producers", {"transactional_id": "shared"}).json()
    assert bumped == {"producer_id": tx["producer_id"], "producer_epoch": tx["producer_epoch"] + 1}
    r = produce(w, ben, bumped["producer_id"], bumped["producer_epoch"], 0)
    assert error(r) == (400, "UNKNOWN_PRODUCER_ID")
    assert "shared" not in r.text


def test_members_and_producer_ids_keep_working_without_keys(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=str(tmp_path / "data")))
    with LoopbackClient(app) as client:
        client.post("/v1/topics", json={"name": "t", "partitions": 1})
        pid = client.post("/v1/producers", json={}).json()["producer_id"]
        batch = {"topic": "t", "partition": 0, "base_sequence": 0, "records": [{"value": "x"}]}
        body = {"producer_id": pid, "producer_epoch": 0, "batches": [batch]}
        assert client.post("/v1/produce", json=body).json()["batches"][0]["error"] is None
        joined = client.post(
            "/v1/groups/g/heartbeat", json={"member_epoch": 0, "subscribed_topics": ["t"]}
        ).json()
        beat = {"member_id": joined["member_id"], "member_epoch": joined["member_epoch"]}
        assert client.post("/v1/groups/g/heartbeat", json=beat).status_code == 200
