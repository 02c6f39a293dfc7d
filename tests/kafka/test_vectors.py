"""The saved native batch of tests/vectors, without a broker: its bytes, its JSON description
and the records of tests/kafka/native.py say the same thing, so that a codec test may take any
of them as the truth. (The tests marked kafka check that a broker still writes these bytes.)"""

from __future__ import annotations

import json

from tests.kafka.batch import parse_segment
from tests.kafka.native import RECORDS, VECTOR_BIN, VECTOR_JSON, NativeRecord, describe


def test_the_saved_batch_its_description_and_its_records_agree() -> None:
    (batch,) = parse_segment(VECTOR_BIN.read_bytes())
    assert batch.crc == batch.computed_crc()
    assert (batch.magic, batch.base_offset, batch.partition_leader_epoch) == (2, 0, 0)
    assert [
        NativeRecord(r.key, r.value, r.headers, batch.base_timestamp + r.timestamp_delta)
        for r in batch.records
    ] == list(RECORDS)
    saved = json.loads(VECTOR_JSON.read_text())
    described = describe(batch, RECORDS)
    # written_by names the versions that wrote the files, which the records do not determine
    assert {k: v for k, v in described.items() if k != "written_by"} == {
        k: v for k, v in saved.items() if k != "written_by"
    }
    assert saved["written_by"]["kafka_broker"] == "4.4.0"


def test_a_changed_byte_breaks_the_saved_batchs_crc() -> None:
    raw = bytearray(VECTOR_BIN.read_bytes())
    raw[-1] ^= 0x01  # the last header's empty value read as null: well formed, CRC covered
    (batch,) = parse_segment(bytes(raw))
    assert batch.crc != batch.computed_crc()
