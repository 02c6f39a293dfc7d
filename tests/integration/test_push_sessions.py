"""Push sessions in process: the socket endpoint over ASGI (frames, the window, errors, the end
of the session) and ``PushSession`` itself on a clock that moves only when told (lock
deadlines, expiry noticed, auto-renew, a renew that meets a record acknowledged elsewhere)."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from app.clock import FakeClock
from app.config import Settings
from app.errors import ErrorCode, InvalidRequest, StorageError
from app.share.coordinator import AckRequest
from app.share.partition import AckBatch, AckType
from app.share.push import PushSession, _offsets, _runs
from app.share.session_state import SessionState
from tests.integration.conftest import Served, running
from tests.integration.helpers import create_topic, produce
from tests.integration.share_helpers import ack_item, ack_ok, expire, group, settle, view
from tests.integration.test_txn_share_acks import txn_ack
from tests.integration.txn_helpers import end_txn, init_producer
from tests.integration.ws_client import AsgiSocket, Closed


@pytest.fixture
async def app_on_clock(
    settings_factory: Callable[..., Settings], clock: FakeClock
) -> AsyncIterator[Served]:
    async with running(settings_factory(ws_max_frame_bytes=1024), clock) as s:
        await create_topic(s.client, "t", 2)
        r = await s.client.patch(
            "/v1/share-groups/g/config",
            json={"auto_offset_reset": "earliest", "record_lock_duration_ms": 10_000},
        )
        assert r.status_code == 200
        yield s


def values(n: int, partition: int = 0) -> list[dict[str, Any]]:
    return [{"value": f"v{i}", "partition": partition} for i in range(n)]


def acks(records: list[dict[str, Any]], kind: str = "accept") -> list[dict[str, Any]]:
    return [ack_item(r["offset"], r["offset"], kind, r["topic"], r["partition"]) for r in records]


async def records(ws: AsgiSocket, n: int) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = []
    while len(got) < n:
        frame = await ws.receive()
        if frame["type"] == "ack_result":
            continue
        assert frame["type"] == "records", frame
        got.extend(frame["records"])
    assert len(got) == n
    return got


async def test_socket_window_acks_credits_and_release_on_close(app_on_clock: Served) -> None:
    s = app_on_clock
    async with AsgiSocket(s.app, "/v1/share-groups/g/consume") as ws:
        await ws.send({"type": "subscribe", "topics": ["t"], "credits": 3, "encoding": "utf8"})
        sub = await ws.receive()
        assert sub["type"] == "subscribed" and sub["credits"] == 3 and not sub["auto_renew"]
        await produce(s.client, "t", values(5))
        first = await records(ws, 3)
        assert [r["offset"] for r in first] == [0, 1, 2]
        await ws.nothing()
        await ws.send({"type": "ack", "acknowledgements": acks(first[:2]), "id": 7})
        got: list[dict[str, Any]] = []
        result: dict[str, Any] | None = None
        while result is None or len(got) < 2:
            frame = await ws.receive()
            if frame["type"] == "ack_result":
                result = frame
            else:
                got.extend(frame["records"])
        assert result["id"] == 7 and result["results"][0]["error"] is None
        assert [r["offset"] for r in got] == [3, 4]
        await ws.send({"type": "credit", "n": 10})
        await produce(s.client, "t", values(2, partition=1))
        assert {(r["partition"], r["offset"]) for r in await records(ws, 2)} == {(1, 0), (1, 1)}
        member = sub["member_id"]
        assert [m["member_id"] for m in (await group(s.client, "g"))["members"]] == [member]
    # the socket ended: the member left, its records released with the count lowered
    await settle(s.broker)
    assert (await group(s.client, "g"))["members"] == []
    v = await view(s.client, "g")
    assert [(r["offset"], r["state"], r["delivery_count"]) for r in v["records"]] == [
        (2, "available", 0),
        (3, "available", 0),
        (4, "available", 0),
    ]


async def test_socket_errors(app_on_clock: Served) -> None:
    s = app_on_clock
    async with AsgiSocket(s.app, "/v1/share-groups/g/consume") as ws:
        for bad, code in [
            ("{", "INVALID_REQUEST"),
            ('"subscribe"', "INVALID_REQUEST"),
            ('{"type": null}', "INVALID_REQUEST"),
            ('{"type": "credit", "n": 5}', "INVALID_REQUEST"),
            ('{"type": "subscribe", "topics": ["t"], "auto_renew": "yes"}', "INVALID_REQUEST"),
            ('{"type": "subscribe", "topics": "t"}', "INVALID_REQUEST"),
            ('{"type": "subscribe", "topics": ["bad name"]}', "INVALID_TOPIC"),
            ('{"type": "subscribe", "topics": ["t"], "member_id": "nobody"}', "UNKNOWN_MEMBER_ID"),
        ]:
            await ws.send(bad)
            frame = await ws.receive()
            assert frame["type"] == "error" and frame["error"]["code"] == code, (bad, frame)
        await ws.send({"type": "subscribe", "topics": ["t"]})
        assert (await ws.receive())["type"] == "subscribed"
        wrongs: list[dict[str, Any]] = [
            {"type": "ack"},
            {"type": "ack", "acknowledgements": [], "id": [1]},
            {"type": "ack", "acknowledgements": {}},
        ]
        for wrong in wrongs:
            await ws.send(wrong)
            assert (await ws.receive())["error"]["code"] == "INVALID_REQUEST", wrong
        # numbers a double does not hold, an id beyond 64 bits (which no answer could echo)
        for raw in (
            '{"type": "ack", "acknowledgements": [], "id": 18446744073709551616}',
            '{"type": "ack", "acknowledgements": [], "id": ' + "9" * 400 + "}",
            '{"type": "ack", "acknowledgements": [], "id": 1e400}',
            '{"type": "ack", "acknowledgements": [], "padding": ' + "9" * 400 + "}",
        ):
            await ws.send(raw)
            assert (await ws.receive())["error"]["code"] == "INVALID_REQUEST", raw
        await ws.send({"type": "ack", "acknowledgements": [ack_item(3, 1, "accept")]})
        (res,) = (await ws.receive())["results"]
        assert res["error"]["code"] == "INVALID_REQUEST"
        await ws.send("x" * 2000)
        with pytest.raises(Closed) as closed:
            await ws.receive()
        assert closed.value.code == 1009
    assert (await group(s.client, "g"))["members"] == []


async def test_invalid_group_name_is_refused(app_on_clock: Served) -> None:
    async with AsgiSocket(app_on_clock.app, "/v1/share-groups/no%20pe/consume") as ws:
        frame = await ws.receive()
        assert frame["type"] == "error"
        with pytest.raises(Closed) as closed:
            await ws.receive()
        assert closed.value.code == 1008


async def test_a_second_session_cannot_take_a_pushed_member(app_on_clock: Served) -> None:
    s = app_on_clock
    async with AsgiSocket(s.app, "/v1/share-groups/g/consume") as ws:
        await ws.send({"type": "subscribe", "topics": ["t"]})
        member = (await ws.receive())["member_id"]
        async with AsgiSocket(s.app, "/v1/share-groups/g/consume") as other:
            await other.send({"type": "subscribe", "topics": ["t"], "member_id": member})
            assert (await other.receive())["error"]["code"] == "INVALID_REQUEST"
        # the refused socket's end does not take the member away
        assert [m["member_id"] for m in (await group(s.client, "g"))["members"]] == [member]


# -- PushSession on the fake clock ------------------------------------------------------------


async def session_with(s: Served, clock: FakeClock, n: int, **kw: Any) -> PushSession:
    session = PushSession(s.broker.share, "g", clock, max_credits=50, principal=None)
    await session.subscribe(["t"], None, kw.pop("credits", 10), kw.pop("auto_renew", False))
    await produce(s.client, "t", values(n))
    answer = await session.next_batch()
    assert answer is not None
    return session


async def test_next_batch_answers_the_stored_batches_when_asked(
    app_on_clock: Served, clock: FakeClock
) -> None:
    s = app_on_clock
    session = s.broker.engine.share.open_push("g", 50, None)
    await session.subscribe(["t"], None, 10, False)
    await produce(s.client, "t", values(3))
    answer = await session.next_batch(True)
    assert answer is not None and len(answer.acquired) == 1
    stored = s.broker.share.acquired_batches("g", answer.acquired)
    assert answer.batches == stored and stored[0][:2] == ("t", 0) and stored[0][2]
    await produce(s.client, "t", values(2))
    answer = await session.next_batch()  # not asked: none read
    assert answer is not None and answer.acquired and answer.batches == []
    await session.close()


async def test_expired_locks_leave_the_window(app_on_clock: Served, clock: FakeClock) -> None:
    s = app_on_clock
    session = await session_with(s, clock, 4)
    assert session.out == 4 and session.free == 6
    assert session.next_due() == clock.now_ms() + 10_000 + 50
    session.check()  # nothing expired yet
    assert session.out == 4
    clock.advance(10_001)
    await expire(s.broker)
    session.check()
    assert session.out == 0 and session.free == 10 and session.deadline is None
    assert session.next_due() is None
    await session.close()
    assert session.state is SessionState.CLOSED


async def test_auto_renew_renews_everything_at_half_lock(
    app_on_clock: Served, clock: FakeClock
) -> None:
    s = app_on_clock
    session = await session_with(s, clock, 3, auto_renew=True)
    start = clock.now_ms()
    assert session.next_due() == start + 5_000
    clock.advance(6_000)
    results = await session.renew()
    assert [err for _, err in results] == [None]
    assert session.deadline == start + 6_000 + 10_000
    clock.advance(9_000)  # past the first lock: renewed, nothing expires
    await expire(s.broker)
    v = await view(s.client, "g")
    assert [(r["state"], r["delivery_count"]) for r in v["records"]] == [("acquired", 1)] * 3
    await session.close()


async def test_renew_skips_a_record_acknowledged_elsewhere(
    app_on_clock: Served, clock: FakeClock
) -> None:
    s = app_on_clock
    session = await session_with(s, clock, 3, auto_renew=True)
    assert session.member is not None
    member = session.member.member_id
    # the same member acknowledges offset 1 over HTTP: the session still counts it out
    await ack_ok(s.client, "g", member, ack_item(1, 1, "accept"))
    assert session.out == 3
    results = await session.renew()
    assert [err for _, err in results] == [None]
    assert session.out == 2 and session.held == {("t", 0): {0: 1, 2: 1}}
    await session.close()


async def test_a_failed_acknowledgement_gives_the_records_back(
    app_on_clock: Served, clock: FakeClock
) -> None:
    s = app_on_clock
    session = await session_with(s, clock, 2, credits=2)
    bad: AckRequest = {("t", 0): [AckBatch(0, 1, [AckType.ACCEPT], delivery_count=9)]}
    ((_, err),) = await session.acknowledge(bad)
    assert err is not None and err.code.name == "INVALID_RECORD_STATE"
    assert session.out == 2 and session.free == 0
    session.lost()
    assert session.state is SessionState.CONNECTED and session.out == 0
    await session.close()


def test_offsets_and_runs() -> None:
    held = {5: 1, 6: 1, 9: 2, 1_000_000: 1}
    huge = AckBatch(0, 2**40, [AckType.ACCEPT])
    assert list(_offsets(huge, held)) == [5, 6, 9, 1_000_000]
    mixed = AckBatch(
        5, 9, [AckType.ACCEPT, AckType.RENEW, AckType.ACCEPT, AckType.ACCEPT, AckType.REJECT]
    )
    assert list(_offsets(mixed, held)) == [5, 9]
    assert list(_offsets(AckBatch(0, 10, [AckType.RENEW]), held)) == []
    assert list(_runs(held)) == [(5, 6), (9, 9), (1_000_000, 1_000_000)]
    assert list(_runs({})) == []


def random_frame(rng: random.Random) -> str:
    """A frame a careless or hostile client might send: valid, malformed or nonsense."""
    item = {
        "topic": rng.choice(["t", "u", "", 5]),
        "partition": rng.choice([0, 1, -1, 2**40, "0"]),
        "first_offset": rng.choice([0, 1, 3, -5, 2**62]),
        "last_offset": rng.choice([0, 2, 4, 1, 2**63]),
        "type": rng.choice(["accept", "release", "reject", "renew", "nope", None]),
    }
    if rng.random() < 0.3:
        item["delay_ms"] = rng.choice([0, 10, -1, "x"])
    frames: list[Any] = [
        {"type": "subscribe", "topics": rng.choice([["t"], ["t", "u"], [], ["missing"], "t"])}
        | rng.choice([{}, {"credits": rng.choice([1, 5, 0, -3, 10**9, "9"])}])
        | rng.choice([{}, {"auto_renew": rng.choice([True, False, 1])}])
        | rng.choice([{}, {"member_id": rng.choice([None, "ghost", "", 7])}]),
        {"type": "ack", "acknowledgements": [item] * rng.randint(0, 3)},
        {"type": "ack", "acknowledgements": item},
        {"type": "credit", "n": rng.choice([1, 3, 0, -1, None, 2**70])},
        {"type": rng.choice(["", "records", "close", None, 3])},
        rng.choice([[], "x", 1, None, {"acknowledgements": []}]),
    ]
    if rng.random() < 0.1:
        return rng.choice(["{", "", "\x00", "[" * 50])
    return json.dumps(rng.choice(frames))


async def test_no_input_leaves_records_acquired(app_on_clock: Served) -> None:
    """Seeded random frames on many sockets: whatever they send, once each socket ends the
    group has no member and no record stays acquired."""
    s = app_on_clock
    await create_topic(s.client, "u")
    await produce(s.client, "t", values(30))
    await produce(s.client, "t", values(30, partition=1))
    for seed in range(40):
        rng = random.Random(seed)
        async with AsgiSocket(s.app, "/v1/share-groups/g/consume") as ws:
            for _ in range(rng.randint(1, 12)):
                await ws.send(random_frame(rng))
                try:
                    await ws.receive(timeout=0.05)
                except TimeoutError:
                    pass
                except Closed:
                    break
        await settle(s.broker)
        described = await group(s.client, "g")
        assert described["members"] == [], seed
        assert all(p["acquired"] == 0 for p in described["partitions"]), (seed, described)


async def test_a_topic_created_after_subscribe_is_consumed(app_on_clock: Served) -> None:
    s = app_on_clock
    async with AsgiSocket(s.app, "/v1/share-groups/g/consume") as ws:
        await ws.send({"type": "subscribe", "topics": ["later"]})
        assert (await ws.receive())["type"] == "subscribed"
        await ws.nothing(0.1)  # nothing to poll yet, and the loop is not spinning: we got here
        await create_topic(s.client, "later")
        await produce(s.client, "later", values(2))
        got = await records(ws, 2)
        assert [(r["topic"], r["offset"]) for r in got] == [("later", 0), ("later", 1)]


async def test_a_failed_poll_is_reported_and_the_session_goes_on(app_on_clock: Served) -> None:
    """The share state write fails while the session initialises its partitions (standing in
    for a full disk): an error frame, and the session keeps pushing once writes work again."""
    s = app_on_clock
    store = s.broker.share.store

    async def lost_write(*args: object) -> list[bool]:
        raise StorageError(ErrorCode.KAFKA_STORAGE_ERROR, "the disk is full")

    store.write = lost_write  # type: ignore[method-assign,assignment]
    async with AsgiSocket(s.app, "/v1/share-groups/g/consume") as ws:
        await ws.send({"type": "subscribe", "topics": ["t"]})
        assert (await ws.receive())["type"] == "subscribed"
        frame = await ws.receive()
        assert frame["type"] == "error" and frame["error"]["code"] == "KAFKA_STORAGE_ERROR"
        assert frame["error"]["retriable"] is True
        del store.write
        await produce(s.client, "t", values(2))
        got = await records(ws, 2)
        assert [r["offset"] for r in got] == [0, 1]


async def test_a_record_delivered_again_to_the_same_session_counts_once(
    app_on_clock: Served, clock: FakeClock
) -> None:
    """Its lock expired and the session's own poll took it again before the session looked at
    its deadline: the window counts it once (it used to count it twice and, after a few such
    redeliveries, stop pushing for good)."""
    s = app_on_clock
    session = await session_with(s, clock, 1, credits=3)
    for delivery in (2, 3, 4):
        clock.advance(10_001)
        await expire(s.broker)
        answer = await session.next_batch()
        assert answer is not None and answer.records[0].records[0][1] == delivery
        assert session.out == 1 and session.free == 2
        session.check()
        assert session.out == 1
    ((_, err),) = await session.acknowledge({("t", 0): [AckBatch(0, 0, [AckType.ACCEPT])]})
    assert err is None and session.out == 0 and session.free == 3
    await session.close()


async def test_records_acknowledged_in_a_transaction_leave_the_window(
    app_on_clock: Served, clock: FakeClock
) -> None:
    s = app_on_clock
    session = await session_with(s, clock, 2, credits=2, auto_renew=True)
    assert session.member is not None and session.free == 0
    pid, epoch = await init_producer(s.client, transactional_id="tx")
    r = await txn_ack(
        s, pid, epoch, session.member.member_id, ack_item(0, 1, "accept"), tid="tx", group="g"
    )
    assert r.status_code == 200 and all(x["error"] is None for x in r.json()["results"])
    clock.advance(6_000)  # half the lock: the renew finds them held by the transaction
    await session.renew()
    assert session.out == 0 and session.free == 2 and session.next_due() is None
    assert (await end_txn(s.client, "tx", pid, epoch)).status_code == 200
    await produce(s.client, "t", values(2))
    assert await session.next_batch() is not None  # the window is open: more come
    assert session.out == 2
    await session.close()


async def test_auto_renew_needs_renew_enabled_and_a_refused_renew_backs_off(
    app_on_clock: Served, clock: FakeClock
) -> None:
    s = app_on_clock
    session = await session_with(s, clock, 2, credits=5, auto_renew=True)
    r = await s.client.patch("/v1/share-groups/g/config", json={"renew_enabled": False})
    assert r.status_code == 200
    clock.advance(6_000)  # half the lock: due, and the group now refuses renews
    results = await session.renew()
    assert [err.code.name for _, err in results if err is not None] == ["INVALID_REQUEST"]
    due = session.next_due()
    assert due is not None and due >= clock.now_ms() + 1000  # a tenth of the lock, not 5 ms
    await session.close()
    # a new session may not ask for auto_renew on that group at all
    other = PushSession(s.broker.share, "g", clock, max_credits=50, principal=None)
    with pytest.raises(InvalidRequest) as refused:
        await other.subscribe(["t"], None, 10, True)
    assert "renew is disabled" in refused.value.message


async def test_an_allowed_origin_may_open_a_socket(
    settings_factory: Callable[..., Settings],
) -> None:
    settings = settings_factory(ws_allowed_origins="https://ops.example.com/, http://other")
    async with running(settings) as s:
        async with AsgiSocket(s.app, "/v1/events", origin="https://OPS.example.com") as ws:
            assert (await ws.receive())["type"] == "snapshot"
        with pytest.raises(Closed):
            await AsgiSocket(s.app, "/v1/events", origin="https://else.example").__aenter__()


async def test_a_page_of_another_site_cannot_open_a_socket(app_on_clock: Served) -> None:
    for path in ("/v1/share-groups/g/consume", "/v1/events"):
        ws = AsgiSocket(app_on_clock.app, path, origin="http://evil.example")
        with pytest.raises(Closed) as refused:
            await ws.__aenter__()
        assert refused.value.code == 1008
    assert (await group(app_on_clock.client, "g"))["members"] == []


async def test_the_server_stopping_closes_every_push_socket_with_1001(
    app_on_clock: Served,
) -> None:
    s = app_on_clock
    async with (
        AsgiSocket(s.app, "/v1/share-groups/g/consume") as idle,
        AsgiSocket(s.app, "/v1/share-groups/g/consume") as pushing,
    ):
        await pushing.send({"type": "subscribe", "topics": ["t"], "credits": 1})
        assert (await pushing.receive())["type"] == "subscribed"
        await produce(s.client, "t", values(3))
        await records(pushing, 1)  # its window is full: no poll to end
        s.broker.begin_shutdown()
        for ws in (idle, pushing):
            with pytest.raises(Closed) as closed:
                await ws.receive()
            assert closed.value.code == 1001


async def test_an_ack_refused_as_a_whole_is_answered_with_its_id(app_on_clock: Served) -> None:
    s = app_on_clock
    async with AsgiSocket(s.app, "/v1/share-groups/g/consume") as ws:
        await ws.send({"type": "subscribe", "topics": ["t"], "credits": 1})
        member = (await ws.receive())["member_id"]
        r = await s.client.delete(f"/v1/share-groups/g/members/{member}")
        assert r.status_code == 204  # removed from under the session
        await ws.send({"type": "ack", "acknowledgements": [ack_item(0, 0, "accept")], "id": "a9"})
        frame = await ws.receive()
        assert frame["type"] == "error" and frame["id"] == "a9"
        assert frame["error"]["code"] == "UNKNOWN_MEMBER_ID"
        await ws.send({"type": "subscribe", "topics": ["t"]})  # back before subscribe
        assert (await ws.receive())["type"] == "subscribed"
