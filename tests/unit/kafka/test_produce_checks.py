"""What the Kafka backend's produce (app/kafka/produce.py) refuses before anything is sent: the
embedded engine's checks of a client's batches, the rules of the producer fields that need no
state, the request's record count and its acks. The cluster here is closed: a request that got
as far as sending would fail with a closed connection, not with the code asserted."""

from __future__ import annotations

import struct
from collections.abc import AsyncIterator

import google_crc32c
import pytest

from app.config import Settings
from app.errors import ErrorCode, SluiceError
from app.kafka.cluster import Cluster
from app.kafka.produce import KafkaProduce
from app.storage.record import TRANSACTIONAL_FLAG, Record, encode_batch

T0 = 1_767_225_600_000
RECORDS = [Record(T0, b"k", b"v"), Record(T0 + 1, None, b"w")]


@pytest.fixture
async def produce() -> AsyncIterator[KafkaProduce]:
    cluster = Cluster("127.0.0.1:9")
    await cluster.close()
    yield KafkaProduce(cluster, Settings(max_records_per_request=3))


def plain() -> bytes:
    return encode_batch(0, RECORDS)


def producer(**fields: int) -> bytes:
    return encode_batch(
        0,
        RECORDS,
        **{"producer_id": 7, "producer_epoch": 0, "base_sequence": 0, **fields},
    )


async def refused(produce: KafkaProduce, body: bytes, tid: str | None = None) -> SluiceError:
    with pytest.raises(SluiceError) as error:
        await produce.produce_batches("orders", 0, body, tid)
    return error.value


async def test_the_embedded_checks_of_a_batch_come_first(produce: KafkaProduce) -> None:
    crc = bytearray(plain())
    crc[-1] ^= 1
    assert (await refused(produce, bytes(crc))).code is ErrorCode.CORRUPT_MESSAGE
    compressed = bytearray(plain())
    compressed[22] |= 0x01  # the attributes' low byte: gzip, the CRC made anew
    struct.pack_into(">I", compressed, 17, google_crc32c.value(bytes(compressed[21:])))
    error = await refused(produce, bytes(compressed))
    assert error.code is ErrorCode.UNSUPPORTED_COMPRESSION_TYPE
    assert (await refused(produce, b"")).code is ErrorCode.INVALID_REQUEST


async def test_the_record_count_of_the_request_is_bounded(produce: KafkaProduce) -> None:
    error = await refused(produce, plain() + plain())  # 4 records, the limit 3
    assert error.code is ErrorCode.REQUEST_TOO_LARGE


@pytest.mark.parametrize(
    ("body", "tid", "why"),
    [
        (encode_batch(0, RECORDS, producer_epoch=0), None, "epoch and base sequence are -1"),
        (encode_batch(0, RECORDS, attributes=TRANSACTIONAL_FLAG), None, "needs a producer id"),
        (encode_batch(0, RECORDS), "t1", "takes a transactional producer's batch"),
        (producer(attributes=TRANSACTIONAL_FLAG), None, "needs the request's transactional_id"),
        (producer(), "t1", "takes transactional batches"),
        (encode_batch(0, RECORDS[:1], producer_id=7, producer_epoch=0, base_sequence=0) * 2,
         None, "one batch for a partition"),
    ],
)  # fmt: skip
async def test_producer_fields_that_need_no_state(
    produce: KafkaProduce, body: bytes, tid: str | None, why: str
) -> None:
    error = await refused(produce, body, tid)
    assert error.code is ErrorCode.INVALID_RECORD
    assert why in error.message


async def test_acks_are_all_one_or_none(produce: KafkaProduce) -> None:
    error = await refused_acks(produce, 2)
    assert error.code is ErrorCode.INVALID_REQUEST


async def refused_acks(produce: KafkaProduce, acks: int) -> SluiceError:
    with pytest.raises(SluiceError) as error:
        await produce.produce_batches("orders", 0, plain(), None, acks)
    return error.value


async def test_json_records_need_a_producer_id_for_sequences(produce: KafkaProduce) -> None:
    with pytest.raises(SluiceError) as error:
        await produce.produce_records(
            "orders", [(0, RECORDS[0])], base_sequences={0: 0}, transactional_id="t1"
        )
    assert error.value.code is ErrorCode.INVALID_REQUEST
