"""The Kafka backend's topic config mapping (app/kafka/topics.py) and how its reads cut a Fetch
answer (app/kafka/reads.py), without a broker: the batches are built by the repository's own
encoder as a broker would answer them."""

from __future__ import annotations

import struct

import google_crc32c
import pytest
from aiokafka.record.default_records import DefaultRecordBatchBuilder

from app.errors import CorruptRecordError, ErrorCode, SluiceError
from app.kafka.protocol.messages import FetchResponse
from app.kafka.reads import Batches, cut_batches, cut_records, parse_at
from app.kafka.topics import CONFIG_NAMES, contract_config, kafka_configs
from app.storage.record import (
    CONTROL_FLAG,
    TRANSACTIONAL_FLAG,
    Record,
    encode_batch,
    marker_record,
    read_header,
)
from app.topics import TOPIC_CONFIG

T0 = 1_767_225_600_000


def test_every_contract_key_has_its_kafka_name() -> None:
    assert set(CONFIG_NAMES) == set(TOPIC_CONFIG)
    assert kafka_configs(
        {
            "retention_ms": -1,
            "retention_bytes": 1 << 30,
            "segment_bytes": 1 << 20,
            "segment_ms": 600_000,
            "index_interval_bytes": 4096,
            "max_message_bytes": 2048,
        }
    ) == {
        "retention.ms": "-1",
        "retention.bytes": "1073741824",
        "segment.bytes": "1048576",
        "segment.ms": "600000",
        "index.interval.bytes": "4096",
        "max.message.bytes": "2048",
    }


def test_null_is_kafkas_default() -> None:
    assert kafka_configs({"retention_ms": None}) == {"retention.ms": None}


@pytest.mark.parametrize(
    "config",
    [{"cleanup_policy": 1}, {"retention.ms": 1}, {"retention_ms": True}, {"segment_ms": "1"}],
)
def test_a_key_or_value_the_contract_does_not_have_is_invalid_config(
    config: dict[str, int | None],
) -> None:
    with pytest.raises(SluiceError) as refused:
        kafka_configs(config)
    assert refused.value.code is ErrorCode.INVALID_CONFIG


def test_kafkas_configs_back_as_the_contracts_keys() -> None:
    assert contract_config(
        [
            ("retention.ms", "3600000"),
            ("max.message.bytes", "2048"),
            ("cleanup.policy", "delete"),  # not the contract's
            ("segment.ms", None),
            ("segment.bytes", "lots"),
        ]
    ) == {"retention_ms": 3_600_000, "max_message_bytes": 2048}


def test_at_is_parsed_as_the_embedded_engine_parses_it() -> None:
    assert (parse_at("earliest"), parse_at("latest"), parse_at(str(T0))) == (-2, -1, T0)
    for at, code in (
        ("-1", ErrorCode.INVALID_TIMESTAMP),
        ("soon", ErrorCode.INVALID_REQUEST),
        ("1" * 19, ErrorCode.INVALID_REQUEST),
    ):
        with pytest.raises(SluiceError) as bad:
            parse_at(at)
        assert bad.value.code is code


def records(n: int, value: bytes) -> list[Record]:
    return [Record(T0 + i, None, value, []) for i in range(n)]


def txn(base: int, pid: int, n: int, value: bytes) -> bytes:
    return encode_batch(
        base,
        records(n, value),
        producer_id=pid,
        producer_epoch=0,
        base_sequence=0,
        attributes=TRANSACTIONAL_FLAG,
    )


def marker(base: int, pid: int, commit: bool) -> bytes:
    return encode_batch(
        base,
        [marker_record(commit, T0)],
        producer_id=pid,
        producer_epoch=0,
        attributes=TRANSACTIONAL_FLAG | CONTROL_FLAG,
    )


# offsets 0-1: producer 7, aborted; 2-3: producer 8, committed; 4: 7's abort marker;
# 5-6: producer 7 again, committed; 7: 8's commit marker; 8: 7's commit marker; 9: plain
ANSWER = b"".join(
    [
        txn(0, 7, 2, b"aborted"),
        txn(2, 8, 2, b"eight"),
        marker(4, 7, commit=False),
        txn(5, 7, 2, b"seven"),
        marker(7, 8, commit=True),
        marker(8, 7, commit=True),
        encode_batch(9, records(1, b"plain")),
    ]
)
ABORTED = [FetchResponse.AbortedTransaction(producer_id=7, first_offset=0)]


def test_read_committed_leaves_out_the_aborted_transactions_batches_and_the_markers() -> None:
    got = cut_records(Batches(ANSWER, ABORTED), 0, 100, 1 << 20)
    assert [(r.offset, r.value) for r in got.records] == [
        (2, b"eight"),
        (3, b"eight"),
        (5, b"seven"),
        (6, b"seven"),
        (9, b"plain"),
    ]
    assert got.next_offset == 10
    # read_uncommitted: no aborted transactions listed, only the markers left out
    everything = cut_records(Batches(ANSWER, None), 0, 100, 1 << 20)
    assert [r.offset for r in everything.records] == [0, 1, 2, 3, 5, 6, 9]


def test_batches_are_whole_and_cut_to_max_records() -> None:
    whole = cut_batches(Batches(ANSWER, ABORTED), 0, 100, 1 << 20)
    assert [len(b) for b in whole.batches] == [
        len(txn(2, 8, 2, b"eight")),
        len(txn(5, 7, 2, b"seven")),
        len(encode_batch(9, records(1, b"plain"))),
    ]
    assert whole.batches[0] == txn(2, 8, 2, b"eight")
    assert (whole.next_offset, whole.records) == (10, 5)
    # from inside a batch, two records asked: that batch (its first record below the offset)
    # and the next
    cut = cut_batches(Batches(ANSWER, ABORTED), 3, 2, 1 << 20)
    assert cut.batches == [txn(2, 8, 2, b"eight"), txn(5, 7, 2, b"seven")]
    assert (cut.next_offset, cut.records) == (7, 3)


def test_a_batch_cut_short_by_the_answers_size_is_left_for_the_next_read() -> None:
    short = ANSWER[: len(ANSWER) - 5]
    got = cut_records(Batches(short, ABORTED), 0, 100, 1 << 20)
    assert [r.offset for r in got.records] == [2, 3, 5, 6]
    assert got.next_offset == 9
    assert cut_batches(Batches(short, ABORTED), 0, 100, 1 << 20).next_offset == 9


def test_max_bytes_answers_at_least_one_record() -> None:
    got = cut_records(Batches(ANSWER, None), 0, 100, 1)
    assert [r.offset for r in got.records] == [0]
    assert got.next_offset == 1
    assert len(cut_batches(Batches(ANSWER, None), 0, 100, 1).batches) == 1


def _thinned(base: int, offsets: list[int], last_delta: int) -> bytes:
    """A batch as Kafka's compaction leaves one: its last offset kept, records at ``offsets``
    only (none at all: a producer's last batch kept for its sequence)."""
    builder = DefaultRecordBatchBuilder(2, 0, 0, 7, 0, 0, 1 << 20)
    for o in offsets:
        builder.append(o, 1_767_225_600_000 + o, b"k", b"v%d" % (base + o), [])
    data = bytearray(builder.build())
    struct.pack_into(">q", data, 0, base)  # outside the CRC
    struct.pack_into(">i", data, 23, last_delta)  # inside it: the CRC is computed again
    struct.pack_into(">I", data, 17, google_crc32c.value(bytes(data[21:])))
    return bytes(data)


def test_batches_that_compaction_thinned_are_read_and_read_past() -> None:
    # offsets 0-3 with 1 and 2 compacted away, 4-6 with none left, then 7
    answer = _thinned(0, [0, 3], 3) + _thinned(4, [], 2) + _thinned(7, [0], 0)
    got = cut_records(Batches(answer, None), 0, 100, 1 << 20)
    assert [(r.offset, r.value) for r in got.records] == [(0, b"v0"), (3, b"v3"), (7, b"v7")]
    assert got.next_offset == 8
    # a read that ends with a thinned batch moves past its last offset, not only its last record
    first = cut_records(Batches(_thinned(0, [0, 1], 5), None), 0, 100, 1 << 20)
    assert [r.offset for r in first.records] == [0, 1] and first.next_offset == 6
    # cut at two records: the next read starts after the second
    two = cut_records(Batches(answer, None), 0, 2, 1 << 20)
    assert [r.offset for r in two.records] == [0, 3] and two.next_offset == 4
    assert cut_batches(Batches(answer, None), 0, 100, 1 << 20).next_offset == 8
    # a batch a client sent is still refused when its count does not match its offsets
    with pytest.raises(CorruptRecordError, match="record count"):
        read_header(_thinned(0, [0, 3], 3))
