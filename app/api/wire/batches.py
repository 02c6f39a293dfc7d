"""Record batches on the wire (docs/api.md#batches): the media types, the envelope of an answer
of batches, and a partition in a path.

The envelope, little-endian for its own fields::

    "SLRB"  version (1 byte, 1)  3 bytes reserved (0)
    u64 length of the head JSON, the head JSON, zeros up to a multiple of 8 bytes
    then the record batches, one after the other, as the log stores them (big-endian, Kafka's)
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

import orjson

from app.errors import ErrorCode, InvalidRequest, SluiceError

MAGIC = b"SLRB\x01\x00\x00\x00"
REQUEST_MEDIA_TYPE = "application/vnd.sluice.record-batch"  # a produce body
MEDIA_TYPE = "application/vnd.sluice.batches"  # an answer: the envelope
_PAD = b"\x00" * 8
_U64 = struct.Struct("<Q")
MAX_PARTITION = 2**31 - 1


def envelope(head: dict[str, Any], batches: Sequence[bytes | memoryview]) -> bytes:
    """The body of an answer of ``batches``, described by ``head``."""
    meta = orjson.dumps(head)
    return b"".join((MAGIC, _U64.pack(len(meta)), meta, _PAD[: -len(meta) % 8], *batches))


def check_media_type(content_type: str | None) -> None:
    """A produce body of batches must say so (415 ``UNSUPPORTED_MEDIA_TYPE`` otherwise)."""
    given = (content_type or "").split(";", 1)[0].strip().lower()
    if given != REQUEST_MEDIA_TYPE:
        raise SluiceError(
            ErrorCode.UNSUPPORTED_MEDIA_TYPE,
            f"Content-Type {given or 'none'!r}: record batches are sent as {REQUEST_MEDIA_TYPE}",
        )


def path_partition(value: str) -> int:
    """A partition number from a path (the hot endpoints take their path as text)."""
    if value.isdigit() and len(value) <= 10 and int(value) <= MAX_PARTITION:
        return int(value)
    raise InvalidRequest(
        ErrorCode.INVALID_REQUEST, f"partition: expected an integer from 0 to {MAX_PARTITION}"
    )
