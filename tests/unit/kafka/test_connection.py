"""One broker connection against a broker of the tests' own on a real loopback socket: versions
chosen from ApiVersions, headers by flexible version, many requests in flight answered in order,
and every way the connection ends failing the requests in flight with a clear error."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from app.kafka.connection import ApiRange, BrokerConnection, choose_versions
from app.kafka.protocol.errors import (
    UNSUPPORTED_VERSION,
    ConnectionClosedError,
    RequestTimeoutError,
    UnsupportedVersionError,
)
from app.kafka.protocol.messages import (
    ApiVersionsResponse,
    FetchRequest,
    FetchResponse,
    FindCoordinatorRequest,
    FindCoordinatorResponse,
    MetadataRequest,
    MetadataResponse,
    ProduceRequest,
    SaslHandshakeRequest,
    SaslHandshakeResponse,
)
from tests.unit.kafka.fake_broker import WAIT, FakeBroker


@pytest.fixture
async def broker() -> AsyncIterator[FakeBroker]:
    b = await FakeBroker().start()
    yield b
    await b.stop()


async def connect(broker: FakeBroker) -> BrokerConnection:
    return await BrokerConnection.open("127.0.0.1", broker.port, client_id="unit")


def metadata_answer(cluster_id: str) -> MetadataResponse:
    return MetadataResponse(cluster_id=cluster_id, controller_id=1)


async def test_versions_are_the_highest_both_sides_take(broker: FakeBroker) -> None:
    broker.api_versions = {
        18: (0, 5),
        3: (0, 11),  # the broker stops below the codec's highest
        10: (0, 99),  # the broker goes past the codec's highest
        0: (0, 8),  # only versions older than the codec's oldest (9)
    }
    conn = await connect(broker)
    try:
        assert conn.versions[MetadataRequest.API_KEY] == 11
        assert conn.versions[FindCoordinatorRequest.API_KEY] == 6
        assert ProduceRequest.API_KEY not in conn.versions
        with pytest.raises(UnsupportedVersionError, match="ProduceRequest"):
            await conn.send(ProduceRequest(acks=-1))
    finally:
        await conn.close()


def test_a_version_still_being_designed_is_not_chosen() -> None:
    # InitProducerId's highest generated version (6) is not yet stable in 4.4
    chosen = choose_versions({22: ApiRange(22, 0, 6)})
    assert chosen == {22: 5}


async def test_an_older_broker_answering_api_versions_at_version_0_is_asked_again(
    broker: FakeBroker,
) -> None:
    broker.answer_api_versions = False
    opening = asyncio.ensure_future(connect(broker))
    first = await broker.next()
    assert (first.api_key, first.version) == (18, 5)
    # the broker takes ApiVersions up to 3 only: it answers at version 0 with its versions
    old = ApiVersionsResponse(
        error_code=UNSUPPORTED_VERSION,
        api_keys=[ApiVersionsResponse.ApiVersion(api_key=18, min_version=0, max_version=3)],
    )
    broker.answer(first, old, version=0, header_version=0)
    second = await broker.next()
    assert (second.api_key, second.version) == (18, 3)
    broker.api_versions = {18: (0, 3), 3: (0, 12)}
    broker.answer(second, broker.versions_answer())
    conn = await opening
    try:
        assert conn.versions == {18: 3, 3: 12}
    finally:
        await conn.close()


async def test_many_requests_in_flight_are_answered_in_order(broker: FakeBroker) -> None:
    conn = await connect(broker)
    try:
        sends = [asyncio.ensure_future(conn.send(MetadataRequest(topics=None))) for _ in range(20)]
        received = [await broker.next() for _ in sends]
        # all twenty were on the wire before any answer
        assert conn.in_flight == 20
        assert len({r.correlation_id for r in received}) == 20
        assert {r.client_id for r in received} == {"unit"}
        for i, r in enumerate(received):
            broker.answer(r, metadata_answer(f"c{i}"))
        answers = await asyncio.gather(*sends)
        assert [a.cluster_id for a in answers] == [f"c{i}" for i in range(20)]
        assert conn.in_flight == 0
    finally:
        await conn.close()


async def test_answers_are_read_however_the_bytes_arrive(broker: FakeBroker) -> None:
    """Answers cut anywhere, several in one write, and one far larger than a socket read: each
    is matched to its request whole."""
    conn = await connect(broker)
    try:
        sends = [asyncio.ensure_future(conn.send(MetadataRequest(topics=None))) for _ in range(4)]
        received = [await broker.next() for _ in sends]
        big = "x" * (3 << 20)  # read from the socket in many parts
        frames = b"".join(
            broker.frame(r, metadata_answer(big if i == 2 else f"c{i}"))
            for i, r in enumerate(received)
        )
        # the first answer in pieces of 3 bytes, then the rest in one write
        first = len(broker.frame(received[0], metadata_answer("c0")))
        for at in range(0, first, 3):
            broker.write(frames[at : min(at + 3, first)])
            await asyncio.sleep(0.001)
        broker.write(frames[first:])
        answers = await asyncio.gather(*sends)
        assert [a.cluster_id for a in answers] == ["c0", "c1", big, "c3"]
        # an answer whose records are kept as views of its bytes, read in many parts, then
        # another on the same buffer
        records = bytes(range(256)) * (8 << 10)
        fetches = [asyncio.ensure_future(conn.send(FetchRequest())) for _ in range(2)]
        for i in range(2):
            partition = FetchResponse.PartitionData(partition_index=i, records=records)
            topic = FetchResponse.FetchableTopicResponse(topic="t", partitions=[partition])
            broker.answer(await broker.next(), FetchResponse(responses=[topic]))
        for i, fetched in enumerate(await asyncio.gather(*fetches)):
            (part,) = fetched.responses[0].partitions
            assert part.partition_index == i and bytes(part.records or b"") == records
        assert conn.in_flight == 0 and not conn.closed
    finally:
        await conn.close()


async def test_a_caller_that_gives_up_leaves_the_answers_in_line(broker: FakeBroker) -> None:
    """A request whose caller is cancelled stays in flight: its answer is read and dropped,
    and the next request gets its own."""
    conn = await connect(broker)
    try:
        gone = asyncio.ensure_future(conn.send(MetadataRequest(topics=None)))
        first = await broker.next()
        gone.cancel()
        with pytest.raises(asyncio.CancelledError):
            await gone
        kept = asyncio.ensure_future(conn.send(MetadataRequest(topics=None)))
        second = await broker.next()
        assert conn.in_flight == 2
        broker.answer(first, metadata_answer("dropped"))
        broker.answer(second, metadata_answer("kept"))
        assert (await kept).cluster_id == "kept"
        assert conn.in_flight == 0 and not conn.closed
    finally:
        await conn.close()


async def test_headers_follow_the_flexible_versions(broker: FakeBroker) -> None:
    conn = await connect(broker)
    try:
        flexible = asyncio.ensure_future(conn.send(FindCoordinatorRequest(coordinator_keys=["g"])))
        got = await broker.next()
        assert (got.version, got.header_version) == (6, 2)
        broker.answer(got, FindCoordinatorResponse(throttle_time_ms=7))
        assert (await flexible).throttle_time_ms == 7

        # SaslHandshake has no flexible version: request header 1, response header 0
        classic = asyncio.ensure_future(conn.send(SaslHandshakeRequest(mechanism="PLAIN")))
        got = await broker.next()
        assert (got.version, got.header_version) == (1, 1)
        broker.answer(got, SaslHandshakeResponse(mechanisms=["PLAIN"]), header_version=0)
        assert (await classic).mechanisms == ["PLAIN"]
    finally:
        await conn.close()


async def test_a_broker_that_closes_fails_every_request_in_flight_and_every_later_one(
    broker: FakeBroker,
) -> None:
    conn = await connect(broker)
    sends = [asyncio.ensure_future(conn.send(MetadataRequest(topics=None))) for _ in range(3)]
    for _ in sends:
        await broker.next()
    broker.drop()
    for s in sends:
        with pytest.raises(ConnectionClosedError, match="closed the connection"):
            await s
    assert conn.closed
    with pytest.raises(ConnectionClosedError):
        await conn.send(MetadataRequest(topics=None))
    await conn.close()


async def test_an_answer_out_of_order_ends_the_connection(broker: FakeBroker) -> None:
    conn = await connect(broker)
    sends = [asyncio.ensure_future(conn.send(MetadataRequest(topics=None))) for _ in range(2)]
    _, second = [await broker.next() for _ in sends]
    broker.answer(second, metadata_answer("late"))
    for s in sends:
        with pytest.raises(ConnectionClosedError, match="correlation id"):
            await s
    assert conn.closed
    await conn.close()


async def test_an_answer_that_does_not_decode_fails_only_its_request(broker: FakeBroker) -> None:
    conn = await connect(broker)
    try:
        bad = asyncio.ensure_future(conn.send(MetadataRequest(topics=None)))
        good = asyncio.ensure_future(conn.send(MetadataRequest(topics=None)))
        first, second = await broker.next(), await broker.next()
        # a whole frame whose body is cut short: header v1 (correlation id, no tags), one byte
        broker.write(b"\x00\x00\x00\x06" + first.correlation_id.to_bytes(4, "big") + b"\x00\x01")
        broker.answer(second, metadata_answer("ok"))
        with pytest.raises(Exception, match="MetadataResponse"):
            await bad
        assert (await good).cluster_id == "ok"
        assert not conn.closed
    finally:
        await conn.close()


async def test_a_request_with_no_answer_in_time_times_out_and_ends_the_connection(
    broker: FakeBroker,
) -> None:
    conn = await connect(broker)
    other = asyncio.ensure_future(conn.send(MetadataRequest(topics=None), timeout=WAIT))
    await broker.next()
    with pytest.raises(RequestTimeoutError, match=r"no answer within 0\.05 s"):
        await conn.send(FindCoordinatorRequest(coordinator_keys=["g"]), timeout=0.05)
    # the answers that follow could belong to either request: the connection is done with
    with pytest.raises(ConnectionClosedError):
        await other
    assert conn.closed
    await conn.close()


async def test_close_fails_the_requests_in_flight(broker: FakeBroker) -> None:
    conn = await connect(broker)
    pending = asyncio.ensure_future(conn.send(MetadataRequest(topics=None)))
    await broker.next()
    await conn.close()
    with pytest.raises(ConnectionClosedError, match="closed"):
        await pending
    with pytest.raises(ConnectionClosedError):
        await conn.send(MetadataRequest(topics=None))


async def test_a_produce_with_acks_0_gets_no_answer_and_the_next_request_still_matches(
    broker: FakeBroker,
) -> None:
    conn = await connect(broker)
    try:
        with pytest.raises(ValueError, match="acks=0"):
            await conn.send(ProduceRequest(acks=0))
        await conn.send_no_response(ProduceRequest(acks=0))
        produced = await broker.next()
        assert produced.api_key == ProduceRequest.API_KEY
        assert conn.in_flight == 0
        meta = asyncio.ensure_future(conn.send(MetadataRequest(topics=None)))
        broker.answer(await broker.next(), metadata_answer("after"))
        assert (await meta).cluster_id == "after"
    finally:
        await conn.close()


async def test_a_broker_that_is_not_there_is_a_clear_error(broker: FakeBroker) -> None:
    port = broker.port
    await broker.stop()
    with pytest.raises(ConnectionClosedError, match=f"could not connect to 127.0.0.1:{port}"):
        await BrokerConnection.open("127.0.0.1", port)
