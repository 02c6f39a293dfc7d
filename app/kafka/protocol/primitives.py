"""The primitive types of Kafka's wire protocol, as the generated message codecs use them.

Everything is big-endian. Writers append to a ``bytearray`` (a message is encoded into one
buffer, its frame's size prefix included); readers take a ``memoryview`` and an offset and
return ``(value, next offset)``, so that a decoder threads one integer through a message and
nothing is copied but what must become a Python object. ``records`` come back as ``memoryview``
slices of the answer: no copy, no parsing.

The two length encodings:

- classic (non-flexible versions): strings have an int16 length, bytes and arrays an int32 one;
  -1 is null.
- compact (flexible versions): an unsigned varint of the length plus one; 0 is null.

Flexible versions end every structure with tagged fields: an unsigned varint count, then for
each an unsigned varint tag, an unsigned varint size and that many bytes.

Varints are little-endian groups of seven bits, the high bit set on every byte but the last;
signed ones (``varint``, ``varlong``) are zigzag-encoded first, so that small negative numbers
stay short. No I/O here.
"""

from __future__ import annotations

import struct
import uuid

from app.kafka.protocol.errors import DecodeError

INT8 = struct.Struct(">b")
INT16 = struct.Struct(">h")
INT32 = struct.Struct(">i")
INT64 = struct.Struct(">q")
UINT16 = struct.Struct(">H")
UINT32 = struct.Struct(">I")
FLOAT64 = struct.Struct(">d")
BOOL = struct.Struct(">?")

ZERO_UUID = uuid.UUID(int=0)

_pack_i16 = INT16.pack
_pack_i32 = INT32.pack
_unpack_i16 = INT16.unpack_from
_unpack_i32 = INT32.unpack_from
_unpack_u32 = UINT32.unpack_from

_UVARINT32_MAX = 0xFFFFFFFF
_UVARINT64_MAX = 0xFFFFFFFFFFFFFFFF
_INT32_MIN = -(1 << 31)
_INT32_MAX = (1 << 31) - 1
_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


# -- varints ------------------------------------------------------------------------------------


def write_unsigned_varint(b: bytearray, n: int) -> None:
    if n < 0 or n > _UVARINT64_MAX:
        raise ValueError(f"an unsigned varint holds 0 to 2**64 - 1, not {n}")
    while n >= 0x80:
        b.append((n & 0x7F) | 0x80)
        n >>= 7
    b.append(n)


def _read_uvarint(buf: memoryview, pos: int, limit: int) -> tuple[int, int]:
    n = 0
    shift = 0
    end = len(buf)
    while True:
        if pos >= end:
            raise DecodeError("a varint runs past the end of the message")
        byte = buf[pos]
        pos += 1
        n |= (byte & 0x7F) << shift
        if byte < 0x80:
            if n > limit:
                raise DecodeError("a varint is longer than its type allows")
            return n, pos
        shift += 7
        if shift > 63:
            raise DecodeError("a varint is longer than its type allows")


def read_unsigned_varint(buf: memoryview, pos: int) -> tuple[int, int]:
    """An unsigned varint of at most 32 bits (lengths, counts, tags)."""
    byte = buf[pos]
    if byte < 0x80:  # one byte: nearly every length and count
        return byte, pos + 1
    return _read_uvarint(buf, pos, _UVARINT32_MAX)


def read_unsigned_varlong(buf: memoryview, pos: int) -> tuple[int, int]:
    return _read_uvarint(buf, pos, _UVARINT64_MAX)


def write_varint(b: bytearray, n: int) -> None:
    """A signed 32-bit varint, zigzag-encoded."""
    if n < _INT32_MIN or n > _INT32_MAX:
        raise ValueError(f"a varint holds a 32-bit integer, not {n}")
    write_unsigned_varint(b, ((n << 1) ^ (n >> 31)) & _UVARINT32_MAX)


def read_varint(buf: memoryview, pos: int) -> tuple[int, int]:
    z, pos = read_unsigned_varint(buf, pos)
    return (z >> 1) ^ -(z & 1), pos


def write_varlong(b: bytearray, n: int) -> None:
    """A signed 64-bit varint, zigzag-encoded."""
    if n < _INT64_MIN or n > _INT64_MAX:
        raise ValueError(f"a varlong holds a 64-bit integer, not {n}")
    write_unsigned_varint(b, ((n << 1) ^ (n >> 63)) & _UVARINT64_MAX)


def read_varlong(buf: memoryview, pos: int) -> tuple[int, int]:
    z, pos = read_unsigned_varlong(buf, pos)
    return (z >> 1) ^ -(z & 1), pos


# -- lengths ------------------------------------------------------------------------------------


def _span(buf: memoryview, pos: int, n: int) -> int:
    """The end of ``n`` bytes from ``pos``, checked against the end of the message."""
    end = pos + n
    if end > len(buf):
        raise DecodeError(f"a field of {n} bytes at {pos} runs past the end of the message")
    return end


def write_array_length(b: bytearray, n: int | None) -> None:
    """A classic array's length: int32, -1 for null."""
    b += _pack_i32(-1 if n is None else n)


def write_compact_array_length(b: bytearray, n: int | None) -> None:
    """A compact array's length: unsigned varint of n + 1, 0 for null."""
    if n is None:
        b.append(0)
    elif n < 0x7F:
        b.append(n + 1)
    else:
        write_unsigned_varint(b, n + 1)


def read_array_length(buf: memoryview, pos: int) -> tuple[int, int]:
    """A classic array's length, -1 for null; a length the rest of the message cannot hold
    (every element takes a byte at least) is refused before anything is allocated for it."""
    (n,) = _unpack_i32(buf, pos)
    pos += 4
    if n < -1 or n > len(buf) - pos:
        raise DecodeError(f"an array length of {n} at {pos - 4} is impossible here")
    return n, pos


def read_compact_array_length(buf: memoryview, pos: int) -> tuple[int, int]:
    """A compact array's length, -1 for null; checked as ``read_array_length``."""
    n = buf[pos]
    if n < 0x80:
        pos += 1
    else:
        n, pos = _read_uvarint(buf, pos, _UVARINT32_MAX)
    n -= 1
    if n > len(buf) - pos:
        raise DecodeError(f"an array length of {n} at {pos} is impossible here")
    return n, pos


# -- strings ------------------------------------------------------------------------------------


def write_string(b: bytearray, s: str) -> None:
    data = s.encode()
    if len(data) > 0x7FFF:
        raise ValueError(f"a string of {len(data)} bytes is longer than an int16 length allows")
    b += _pack_i16(len(data))
    b += data


def write_nullable_string(b: bytearray, s: str | None) -> None:
    if s is None:
        b += b"\xff\xff"
    else:
        write_string(b, s)


def write_compact_string(b: bytearray, s: str) -> None:
    data = s.encode()
    n = len(data) + 1
    if n < 0x80:
        b.append(n)
    else:
        write_unsigned_varint(b, n)
    b += data


def write_compact_nullable_string(b: bytearray, s: str | None) -> None:
    if s is None:
        b.append(0)
    else:
        write_compact_string(b, s)


def _text(buf: memoryview, pos: int, end: int) -> str:
    try:
        return str(buf[pos:end], "utf-8")
    except UnicodeDecodeError as e:
        raise DecodeError(f"a string at {pos} is not UTF-8") from e


def read_nullable_string(buf: memoryview, pos: int) -> tuple[str | None, int]:
    (n,) = _unpack_i16(buf, pos)
    pos += 2
    if n < 0:
        if n == -1:
            return None, pos
        raise DecodeError(f"a string length of {n} at {pos - 2}")
    end = _span(buf, pos, n)
    return _text(buf, pos, end), end


def read_string(buf: memoryview, pos: int) -> tuple[str, int]:
    s, end = read_nullable_string(buf, pos)
    if s is None:
        raise DecodeError(f"a null string at {pos} where the field is not nullable")
    return s, end


def read_compact_nullable_string(buf: memoryview, pos: int) -> tuple[str | None, int]:
    n = buf[pos]
    if n < 0x80:
        pos += 1
    else:
        n, pos = _read_uvarint(buf, pos, _UVARINT32_MAX)
    if n == 0:
        return None, pos
    end = _span(buf, pos, n - 1)
    return _text(buf, pos, end), end


def read_compact_string(buf: memoryview, pos: int) -> tuple[str, int]:
    s, end = read_compact_nullable_string(buf, pos)
    if s is None:
        raise DecodeError(f"a null string at {pos} where the field is not nullable")
    return s, end


# -- bytes and records --------------------------------------------------------------------------
# Bytes fields decode to ``bytes`` (small: SASL tokens, assignments); records fields decode to a
# ``memoryview`` of the answer itself, since they are the bulk of a fetch and go on as they are.

Buffer = bytes | bytearray | memoryview


def write_bytes(b: bytearray, data: Buffer) -> None:
    b += _pack_i32(len(data))
    b += data


def write_nullable_bytes(b: bytearray, data: Buffer | None) -> None:
    if data is None:
        b += b"\xff\xff\xff\xff"
    else:
        b += _pack_i32(len(data))
        b += data


def write_compact_bytes(b: bytearray, data: Buffer) -> None:
    n = len(data) + 1
    if n < 0x80:
        b.append(n)
    else:
        write_unsigned_varint(b, n)
    b += data


def write_compact_nullable_bytes(b: bytearray, data: Buffer | None) -> None:
    if data is None:
        b.append(0)
    else:
        write_compact_bytes(b, data)


def read_nullable_records(buf: memoryview, pos: int) -> tuple[memoryview | None, int]:
    (n,) = _unpack_i32(buf, pos)
    pos += 4
    if n < 0:
        if n == -1:
            return None, pos
        raise DecodeError(f"a length of {n} at {pos - 4}")
    end = _span(buf, pos, n)
    return buf[pos:end], end


def read_compact_nullable_records(buf: memoryview, pos: int) -> tuple[memoryview | None, int]:
    n = buf[pos]
    if n < 0x80:
        pos += 1
    else:
        n, pos = _read_uvarint(buf, pos, _UVARINT32_MAX)
    if n == 0:
        return None, pos
    end = _span(buf, pos, n - 1)
    return buf[pos:end], end


def read_records(buf: memoryview, pos: int) -> tuple[memoryview, int]:
    data, end = read_nullable_records(buf, pos)
    if data is None:
        raise DecodeError(f"null bytes at {pos} where the field is not nullable")
    return data, end


def read_compact_records(buf: memoryview, pos: int) -> tuple[memoryview, int]:
    data, end = read_compact_nullable_records(buf, pos)
    if data is None:
        raise DecodeError(f"null bytes at {pos} where the field is not nullable")
    return data, end


def read_nullable_bytes(buf: memoryview, pos: int) -> tuple[bytes | None, int]:
    data, end = read_nullable_records(buf, pos)
    return (None if data is None else data.tobytes()), end


def read_bytes(buf: memoryview, pos: int) -> tuple[bytes, int]:
    data, end = read_records(buf, pos)
    return data.tobytes(), end


def read_compact_nullable_bytes(buf: memoryview, pos: int) -> tuple[bytes | None, int]:
    data, end = read_compact_nullable_records(buf, pos)
    return (None if data is None else data.tobytes()), end


def read_compact_bytes(buf: memoryview, pos: int) -> tuple[bytes, int]:
    data, end = read_compact_records(buf, pos)
    return data.tobytes(), end


# -- uuids --------------------------------------------------------------------------------------


def write_uuid(b: bytearray, u: uuid.UUID) -> None:
    b += u.bytes


def read_uuid(buf: memoryview, pos: int) -> tuple[uuid.UUID, int]:
    end = _span(buf, pos, 16)
    return uuid.UUID(bytes=buf[pos:end].tobytes()), end


# -- arrays of fixed-size numbers ---------------------------------------------------------------
# One struct call for the whole array: ``code`` is the struct format letter of one element.


def write_number_array(b: bytearray, code: str, values: list[int]) -> None:
    b += struct.pack(f">{len(values)}{code}", *values)


def read_number_array(
    buf: memoryview, pos: int, n: int, code: str, size: int
) -> tuple[list[int], int]:
    end = _span(buf, pos, n * size)
    return list(struct.unpack_from(f">{n}{code}", buf, pos)), end


# -- tagged fields ------------------------------------------------------------------------------


def write_tagged_fields(b: bytearray, fields: list[tuple[int, Buffer]]) -> None:
    """Tagged fields, given as (tag, encoded value) in ascending tag order."""
    write_unsigned_varint(b, len(fields))
    for tag, data in fields:
        write_unsigned_varint(b, tag)
        write_unsigned_varint(b, len(data))
        b += data


def read_tagged_fields(buf: memoryview, pos: int) -> tuple[dict[int, memoryview], int]:
    """Every tagged field, as tag → its encoded value."""
    count, pos = read_unsigned_varint(buf, pos)
    fields: dict[int, memoryview] = {}
    for _ in range(count):
        tag, pos = read_unsigned_varint(buf, pos)
        size, pos = read_unsigned_varint(buf, pos)
        end = _span(buf, pos, size)
        fields[tag] = buf[pos:end]
        pos = end
    return fields, pos


def skip_tagged_fields(buf: memoryview, pos: int) -> int:
    """Past the tagged fields of a structure that has none this code knows."""
    count, pos = read_unsigned_varint(buf, pos)
    for _ in range(count):
        _, pos = read_unsigned_varint(buf, pos)
        size, pos = read_unsigned_varint(buf, pos)
        pos = _span(buf, pos, size)
    return pos


def read_tag_header(buf: memoryview, pos: int) -> tuple[int, int, int]:
    """One tagged field's tag and the end of its value: ``(tag, value start, value end)``."""
    tag, pos = read_unsigned_varint(buf, pos)
    size, pos = read_unsigned_varint(buf, pos)
    return tag, pos, _span(buf, pos, size)
