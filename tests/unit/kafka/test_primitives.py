"""The wire primitives: edge values, round trips, and byte strings as the protocol defines
them."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest

from app.kafka.protocol import primitives as p
from app.kafka.protocol.errors import DecodeError

Writer = Callable[[bytearray, Any], None]
Reader = Callable[[memoryview, int], tuple[Any, int]]


def _round(write: Writer, read: Reader, value: Any) -> bytes:
    buf = bytearray(b"\xaa")  # something before: readers take an offset
    write(buf, value)
    buf += b"\xbb"  # and something after: readers stop at their end
    got, end = read(memoryview(bytes(buf)), 1)
    assert got == value
    assert end == len(buf) - 1
    return bytes(buf[1:-1])


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        (0, b"\x00"),
        (1, b"\x01"),
        (127, b"\x7f"),
        (128, b"\x80\x01"),
        (300, b"\xac\x02"),
        (16383, b"\xff\x7f"),
        (16384, b"\x80\x80\x01"),
        (2**32 - 1, b"\xff\xff\xff\xff\x0f"),
    ],
)
def test_unsigned_varints_are_groups_of_seven_bits_low_first(value: int, encoded: bytes) -> None:
    assert _round(p.write_unsigned_varint, p.read_unsigned_varint, value) == encoded


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        (0, b"\x00"),
        (-1, b"\x01"),
        (1, b"\x02"),
        (-2, b"\x03"),
        (63, b"\x7e"),
        (-64, b"\x7f"),
        (64, b"\x80\x01"),
        (2**31 - 1, b"\xfe\xff\xff\xff\x0f"),
        (-(2**31), b"\xff\xff\xff\xff\x0f"),
    ],
)
def test_varints_are_zigzag_encoded(value: int, encoded: bytes) -> None:
    assert _round(p.write_varint, p.read_varint, value) == encoded


@pytest.mark.parametrize("value", [0, -1, 1, 2**31, -(2**31) - 1, 2**63 - 1, -(2**63)])
def test_varlongs_round_trip_over_the_whole_64_bit_range(value: int) -> None:
    encoded = _round(p.write_varlong, p.read_varlong, value)
    assert len(encoded) <= 10


def test_varlong_edges_have_the_known_encodings() -> None:
    buf = bytearray()
    p.write_varlong(buf, 2**63 - 1)
    assert bytes(buf) == b"\xfe" + b"\xff" * 8 + b"\x01"
    buf = bytearray()
    p.write_varlong(buf, -(2**63))
    assert bytes(buf) == b"\xff" * 9 + b"\x01"


@pytest.mark.parametrize(
    ("write", "value"),
    [
        (p.write_varint, 2**31),
        (p.write_varint, -(2**31) - 1),
        (p.write_varlong, 2**63),
        (p.write_unsigned_varint, -1),
    ],
)
def test_varints_out_of_range_are_refused(write: Writer, value: int) -> None:
    with pytest.raises(ValueError):
        write(bytearray(), value)


def test_a_varint_longer_than_its_type_or_cut_short_is_refused() -> None:
    with pytest.raises(DecodeError):
        p.read_unsigned_varint(memoryview(b"\xff\xff\xff\xff\x1f"), 0)  # 2**32 and more
    with pytest.raises(DecodeError):
        p.read_unsigned_varlong(memoryview(b"\xff" * 11), 0)
    with pytest.raises(DecodeError):
        p.read_unsigned_varint(memoryview(b"\x80\x80"), 0)


@pytest.mark.parametrize(
    ("struct", "value", "encoded"),
    [
        (p.INT8, -128, b"\x80"),
        (p.INT16, -32768, b"\x80\x00"),
        (p.INT32, -(2**31), b"\x80\x00\x00\x00"),
        (p.INT64, 2**63 - 1, b"\x7f\xff\xff\xff\xff\xff\xff\xff"),
        (p.UINT16, 65535, b"\xff\xff"),
        (p.UINT32, 2**32 - 1, b"\xff\xff\xff\xff"),
        (p.FLOAT64, 1.5, b"\x3f\xf8\x00\x00\x00\x00\x00\x00"),
        (p.BOOL, True, b"\x01"),
    ],
)
def test_fixed_size_numbers_are_big_endian(struct: Any, value: Any, encoded: bytes) -> None:
    assert struct.pack(value) == encoded
    assert struct.unpack_from(memoryview(encoded), 0) == (value,)


def test_strings_classic_and_compact() -> None:
    assert _round(p.write_string, p.read_string, "abc") == b"\x00\x03abc"
    assert _round(p.write_compact_string, p.read_compact_string, "abc") == b"\x04abc"
    assert _round(p.write_string, p.read_string, "") == b"\x00\x00"
    assert _round(p.write_compact_string, p.read_compact_string, "") == b"\x01"
    # lengths count UTF-8 bytes, not characters
    assert _round(p.write_compact_string, p.read_compact_string, "é") == b"\x03\xc3\xa9"


def test_a_compact_length_of_128_and_more_takes_two_bytes() -> None:
    text = "x" * 127  # length + 1 = 128
    assert _round(p.write_compact_string, p.read_compact_string, text)[:2] == b"\x80\x01"


def test_null_strings() -> None:
    assert _round(p.write_nullable_string, p.read_nullable_string, None) == b"\xff\xff"
    assert _round(p.write_compact_nullable_string, p.read_compact_nullable_string, None) == b"\0"
    with pytest.raises(DecodeError, match="not nullable"):
        p.read_string(memoryview(b"\xff\xff"), 0)
    with pytest.raises(DecodeError, match="not nullable"):
        p.read_compact_string(memoryview(b"\x00"), 0)


def test_a_string_longer_than_an_int16_length_is_refused() -> None:
    with pytest.raises(ValueError):
        p.write_string(bytearray(), "x" * 32768)


def test_a_string_running_past_the_end_or_not_utf8_is_refused() -> None:
    with pytest.raises(DecodeError, match="past the end"):
        p.read_string(memoryview(b"\x00\x05abc"), 0)
    with pytest.raises(DecodeError, match="past the end"):
        p.read_compact_string(memoryview(b"\x06abc"), 0)
    with pytest.raises(DecodeError, match="UTF-8"):
        p.read_compact_string(memoryview(b"\x02\xff"), 0)


def test_bytes_classic_and_compact() -> None:
    assert _round(p.write_bytes, p.read_bytes, b"\x00\x01") == b"\x00\x00\x00\x02\x00\x01"
    assert _round(p.write_compact_bytes, p.read_compact_bytes, b"\x00\x01") == b"\x03\x00\x01"
    assert _round(p.write_nullable_bytes, p.read_nullable_bytes, None) == b"\xff\xff\xff\xff"
    assert _round(p.write_compact_nullable_bytes, p.read_compact_nullable_bytes, None) == b"\0"


def test_records_are_slices_of_the_buffer_not_copies() -> None:
    data = bytearray(b"\x04abc\x00")
    view = memoryview(data)
    records, end = p.read_compact_records(view, 0)
    assert end == 4
    assert records.obj is data  # a view of the answer itself
    data[1] = ord("z")
    assert bytes(records) == b"zbc"
    classic, _ = p.read_nullable_records(memoryview(b"\xff\xff\xff\xff"), 0)
    assert classic is None


def test_uuids_are_their_16_bytes() -> None:
    u = uuid.UUID("0123456789abcdef0123456789abcdef")
    assert _round(p.write_uuid, p.read_uuid, u) == bytes.fromhex("0123456789abcdef" * 2)
    assert _round(p.write_uuid, p.read_uuid, p.ZERO_UUID) == bytes(16)


def test_array_lengths() -> None:
    buf = bytearray()
    p.write_array_length(buf, 3)
    p.write_array_length(buf, None)
    p.write_compact_array_length(buf, 3)
    p.write_compact_array_length(buf, None)
    p.write_compact_array_length(buf, 200)
    assert bytes(buf) == b"\x00\x00\x00\x03\xff\xff\xff\xff\x04\x00\xc9\x01"
    view = memoryview(bytes(buf) + bytes(200))
    assert p.read_array_length(view, 0) == (3, 4)
    assert p.read_array_length(view, 4) == (-1, 8)
    assert p.read_compact_array_length(view, 8) == (3, 9)
    assert p.read_compact_array_length(view, 9) == (-1, 10)
    assert p.read_compact_array_length(view, 10) == (200, 12)


def test_an_array_longer_than_the_rest_of_the_message_is_refused_before_any_allocation() -> None:
    with pytest.raises(DecodeError, match="impossible"):
        p.read_array_length(memoryview(b"\x7f\xff\xff\xff\x00"), 0)
    with pytest.raises(DecodeError, match="impossible"):
        p.read_compact_array_length(memoryview(b"\x05\x00"), 0)
    with pytest.raises(DecodeError, match="impossible"):
        p.read_array_length(memoryview(b"\xff\xff\xff\xfe"), 0)  # -2


def test_number_arrays_in_one_struct_call() -> None:
    buf = bytearray()
    p.write_number_array(buf, "i", [1, -1, 2**31 - 1])
    assert bytes(buf) == b"\x00\x00\x00\x01\xff\xff\xff\xff\x7f\xff\xff\xff"
    assert p.read_number_array(memoryview(bytes(buf)), 0, 3, "i", 4) == ([1, -1, 2**31 - 1], 12)
    with pytest.raises(DecodeError):
        p.read_number_array(memoryview(bytes(buf)), 4, 3, "i", 4)


def test_tagged_fields_are_count_then_tag_size_value() -> None:
    buf = bytearray()
    p.write_tagged_fields(buf, [(0, b"\x01"), (300, b"ab")])
    assert bytes(buf) == b"\x02\x00\x01\x01\xac\x02\x02ab"
    fields, end = p.read_tagged_fields(memoryview(bytes(buf)), 0)
    assert {tag: bytes(v) for tag, v in fields.items()} == {0: b"\x01", 300: b"ab"}
    assert end == len(buf)
    assert p.skip_tagged_fields(memoryview(bytes(buf) + b"\xee"), 0) == len(buf)
    assert p.read_tag_header(memoryview(b"\x05\x02xy"), 0) == (5, 2, 4)
    with pytest.raises(DecodeError):
        p.skip_tagged_fields(memoryview(b"\x01\x00\x05ab"), 0)
