"""What app/kafka/share.py decides without a broker: the records and batches of a ShareFetch
answer kept to the acquired ranges, the contract's ranges, Kafka's acknowledgement batches
(renewals apart), a release with a delay refused, the session epochs, a record_limit fetch's
records shared among the leaders."""

from __future__ import annotations

import struct

import pytest
from aiokafka.record.default_records import DefaultRecordBatchBuilder

from app.kafka.cluster import Cluster
from app.kafka.protocol.messages import ShareFetchResponse
from app.kafka.share import (
    Acquired,
    KafkaMember,
    KafkaShareGroups,
    acquired_records,
    next_epoch,
    ranges_of,
    share_records,
    wire_batches,
)
from app.kafka.transactions import KafkaUnsupported
from app.share.coordinator import AcquiredRange
from app.share.partition import AckBatch, AckType
from app.storage.record import Record, encode_batch

T0 = 1_767_225_600_000


def batch(base: int, n: int) -> bytes:
    return encode_batch(base, [Record(T0 + i, None, f"v{base + i}".encode(), []) for i in range(n)])


def gapped(base: int, offsets: list[int]) -> bytes:
    """A batch whose records are not every offset from its first to its last, as compaction
    leaves one."""
    builder = DefaultRecordBatchBuilder(2, 0, 0, -1, -1, -1, 1 << 20)
    for o in offsets:
        builder.append(o, T0 + o, None, f"v{base + o}".encode(), [])
    data = bytearray(builder.build())
    struct.pack_into(">q", data, 0, base)  # the base offset: outside the CRC
    return bytes(data)


def both(data: bytes, ranges: list[ShareFetchResponse.AcquiredRecords]) -> Acquired:
    """``acquired_records`` decoding the records, checked against the same without: the same
    runs and batches, no records."""
    got = acquired_records(data, ranges)
    bare = acquired_records(data, ranges, decode=False)
    assert bare == Acquired([], got.runs, got.batches)
    return got


def test_records_kept_to_the_acquired_ranges_with_their_counts() -> None:
    data = batch(0, 3) + batch(3, 3) + batch(6, 2)
    ranges = [
        ShareFetchResponse.AcquiredRecords(first_offset=1, last_offset=2, delivery_count=1),
        ShareFetchResponse.AcquiredRecords(first_offset=4, last_offset=4, delivery_count=3),
    ]
    got = both(data, ranges)
    assert [(r.offset, r.value, n) for r, n in got.records] == [
        (1, b"v1", 1),
        (2, b"v2", 1),
        (4, b"v4", 3),
    ]
    # the batches holding them, byte for byte; the last batch holds none
    assert got.batches == [batch(0, 3), batch(3, 3)]
    assert got.runs == [(1, 2, 1), (4, 4, 3)]
    assert ranges_of("t", 0, got.runs) == [
        AcquiredRange("t", 0, 1, 2, 1),
        AcquiredRange("t", 0, 4, 4, 3),
    ]


def test_a_batch_inside_one_range_and_one_across_two_take_each_records_count() -> None:
    data = batch(0, 3) + batch(3, 3)
    ranges = [
        ShareFetchResponse.AcquiredRecords(first_offset=0, last_offset=3, delivery_count=1),
        ShareFetchResponse.AcquiredRecords(first_offset=4, last_offset=5, delivery_count=2),
    ]
    got = both(data, ranges)
    assert [(r.offset, n) for r, n in got.records] == [
        (0, 1),
        (1, 1),
        (2, 1),
        (3, 1),
        (4, 2),
        (5, 2),
    ]
    assert got.batches == [batch(0, 3), batch(3, 3)]
    # runs in a row with one count are one range
    assert got.runs == [(0, 3, 1), (4, 5, 2)]
    assert ranges_of("t", 0, []) == []


def test_the_offsets_a_thinned_batch_lacks_are_not_acquired() -> None:
    # offsets 10, 11 and 13: 12 was compacted away; one range covers all, another ends at 11
    for ranges, runs in (
        ([(10, 13, 1)], [(10, 11, 1), (13, 13, 1)]),
        ([(10, 11, 2), (12, 20, 1)], [(10, 11, 2), (13, 13, 1)]),
    ):
        acquired = [
            ShareFetchResponse.AcquiredRecords(first_offset=f, last_offset=t, delivery_count=c)
            for f, t, c in ranges
        ]
        got = both(gapped(10, [0, 1, 3]), acquired)
        assert [r.offset for r, _ in got.records] == [10, 11, 13]
        assert got.runs == runs


def test_a_batch_cut_short_is_left_out() -> None:
    whole = batch(0, 2)
    ranges = [ShareFetchResponse.AcquiredRecords(first_offset=0, last_offset=3, delivery_count=1)]
    got = both(whole + batch(2, 2)[:-5], ranges)
    assert [r.offset for r, _ in got.records] == [0, 1] and got.batches == [whole]
    assert got.runs == [(0, 1, 1)]


def test_acknowledgements_one_type_each_renewals_apart() -> None:
    kinds = [AckType.ACCEPT, AckType.ACCEPT, AckType.RENEW, AckType.REJECT]
    settle, renew = wire_batches([AckBatch(10, 13, kinds), AckBatch(20, 21, [AckType.RELEASE])])
    assert [(b.first_offset, b.last_offset, b.acknowledge_types) for b in settle] == [
        (10, 11, [1]),
        (13, 13, [3]),
        (20, 21, [2]),
    ]
    assert [(b.first_offset, b.last_offset, b.acknowledge_types) for b in renew] == [(12, 12, [4])]


def test_session_epochs_wrap_to_1() -> None:
    assert next_epoch(0) == 1 and next_epoch(7) == 8 and next_epoch(2**31 - 1) == 1


async def test_release_with_a_delay_is_refused_before_anything_is_sent() -> None:
    groups = KafkaShareGroups(Cluster("127.0.0.1:1"))  # never started: nothing can be sent
    groups.members[("g", "m")] = KafkaMember("g", "m", 1, ["t"])
    acks = {("t", 0): [AckBatch(0, 1, [AckType.RELEASE], delay_ms=1000)]}
    with pytest.raises(KafkaUnsupported) as refused:
        await groups.acknowledge("g", "m", acks)
    assert refused.value.unsupported == "release_delay"
    with pytest.raises(KafkaUnsupported):
        await groups.fetch("g", "m", max_records=1, max_wait_ms=0, max_bytes=1, acks=acks)


def test_a_record_limit_fetch_shares_its_records_among_the_leaders() -> None:
    assert share_records(7, [1, 2, 3], 0) == {1: 3, 2: 2, 3: 2}
    assert share_records(1, [1, 2, 3], 0) == {1: 1, 2: 0, 3: 0}
    # each leader gets its turn when there are fewer records than leaders
    assert share_records(1, [1, 2, 3], 1) == {2: 1, 3: 0, 1: 0}
    assert share_records(2, [1, 2, 3], 5) == {3: 1, 1: 1, 2: 0}
    assert sum(share_records(10_000, [4, 5], 3).values()) == 10_000
