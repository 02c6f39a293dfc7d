"""What app/kafka/share.py decides without a broker: the records and batches of a ShareFetch
answer kept to the acquired ranges, the contract's ranges, Kafka's acknowledgement batches
(renewals apart), a release with a delay refused, the session epochs, a record_limit fetch's
records shared among the leaders."""

from __future__ import annotations

import pytest

from app.kafka.cluster import Cluster
from app.kafka.protocol.messages import ShareFetchResponse
from app.kafka.share import (
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


def test_records_kept_to_the_acquired_ranges_with_their_counts() -> None:
    data = batch(0, 3) + batch(3, 3) + batch(6, 2)
    ranges = [
        ShareFetchResponse.AcquiredRecords(first_offset=1, last_offset=2, delivery_count=1),
        ShareFetchResponse.AcquiredRecords(first_offset=4, last_offset=4, delivery_count=3),
    ]
    records, batches = acquired_records(data, ranges)
    assert [(r.offset, r.value, n) for r, n in records] == [
        (1, b"v1", 1),
        (2, b"v2", 1),
        (4, b"v4", 3),
    ]
    # the batches holding them, byte for byte; the last batch holds none
    assert batches == [batch(0, 3), batch(3, 3)]
    assert ranges_of("t", 0, records) == [
        AcquiredRange("t", 0, 1, 2, 1),
        AcquiredRange("t", 0, 4, 4, 3),
    ]


def test_a_batch_inside_one_range_and_one_across_two_take_each_records_count() -> None:
    data = batch(0, 3) + batch(3, 3)
    ranges = [
        ShareFetchResponse.AcquiredRecords(first_offset=0, last_offset=3, delivery_count=1),
        ShareFetchResponse.AcquiredRecords(first_offset=4, last_offset=5, delivery_count=2),
    ]
    records, batches = acquired_records(data, ranges)
    assert [(r.offset, n) for r, n in records] == [(0, 1), (1, 1), (2, 1), (3, 1), (4, 2), (5, 2)]
    assert batches == [batch(0, 3), batch(3, 3)]
    assert ranges_of("t", 0, records) == [
        AcquiredRange("t", 0, 0, 3, 1),
        AcquiredRange("t", 0, 4, 5, 2),
    ]
    assert ranges_of("t", 0, []) == []
    # a gap ends a range even with the same count
    gapped = [(r, n) for r, n in records if r.offset != 2]
    assert ranges_of("t", 0, gapped)[:2] == [
        AcquiredRange("t", 0, 0, 1, 1),
        AcquiredRange("t", 0, 3, 3, 1),
    ]


def test_a_batch_cut_short_is_left_out() -> None:
    whole = batch(0, 2)
    ranges = [ShareFetchResponse.AcquiredRecords(first_offset=0, last_offset=3, delivery_count=1)]
    records, batches = acquired_records(whole + batch(2, 2)[:-5], ranges)
    assert [r.offset for r, _ in records] == [0, 1] and batches == [whole]


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
