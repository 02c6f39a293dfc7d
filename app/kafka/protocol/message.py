"""What every generated message has: its versions, and encoding and decoding at one of them.

A message class of ``messages`` (generated) is a dataclass of its fields across all its
versions, with a table of encoder and decoder functions, one for each version. A field that a
version lacks is not written at that version and takes its default when read; writing a
message at a version that cannot carry one of its fields' values fails, unless Kafka's
definition marks that field as one whose value may be dropped (``ignorable``).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Generic, Self, TypeVar

from app.kafka.protocol.errors import DecodeError, UnsupportedVersionError

Encoder = Callable[[Any, bytearray], None]
Decoder = Callable[[memoryview, int], tuple[Any, int]]

# A field as Kafka's definition gives it: its type ("int32", "string", "[]int32", "[]FetchTopic"
# for an array of structures, "LeaderIdAndEpoch" for one structure), the versions that carry
# it, the versions where it may be null, and its tag when it is a tagged field. Versions are in
# the definitions' notation: "3", "1-4", "2+", "none".
FieldSpec = tuple[str, str, str, int | None]


def in_versions(spec: str, version: int) -> bool:
    """Whether ``version`` is in a version range written as the definitions write them."""
    if spec == "none":
        return False
    if spec.endswith("+"):
        return version >= int(spec[:-1])
    lo, _, hi = spec.partition("-")
    return int(lo) <= version <= int(hi or lo)


class Struct:
    """A message, or a structure inside one: a dataclass of fields, each described in
    ``FIELDS``."""

    __slots__ = ()

    FIELDS: ClassVar[dict[str, FieldSpec]]

    @classmethod
    def carries(cls, attr: str, version: int) -> bool:
        """Whether ``version`` of the message has the field ``attr`` at all."""
        return in_versions(cls.FIELDS[attr][1], version)

    @classmethod
    def nullable(cls, attr: str, version: int) -> bool:
        return in_versions(cls.FIELDS[attr][2], version)


class Message(Struct):
    """A request, a response or a header."""

    __slots__ = ()

    NAME: ClassVar[str]
    MIN_VERSION: ClassVar[int]
    MAX_VERSION: ClassVar[int]
    # the highest version Kafka's definition calls stable: MAX_VERSION unless the latest one is
    # still being designed (a broker offers it only when told to)
    MAX_STABLE_VERSION: ClassVar[int]
    # the first flexible version (compact lengths, tagged fields), or None
    FIRST_FLEXIBLE_VERSION: ClassVar[int | None]
    ENCODERS: ClassVar[Mapping[int, Encoder]]
    DECODERS: ClassVar[Mapping[int, Decoder]]

    @classmethod
    def is_flexible(cls, version: int) -> bool:
        first = cls.FIRST_FLEXIBLE_VERSION
        return first is not None and version >= first

    @classmethod
    def check_version(cls, version: int) -> None:
        if version not in cls.ENCODERS:
            raise UnsupportedVersionError(
                f"{cls.NAME} has versions {cls.MIN_VERSION} to {cls.MAX_VERSION}, not {version}"
            )

    def encode_into(self, buf: bytearray, version: int) -> None:
        """Append the message at ``version`` to ``buf``."""
        encoder = self.ENCODERS.get(version)
        if encoder is None:
            self.check_version(version)
        else:
            encoder(self, buf)

    def encode(self, version: int) -> bytearray:
        buf = bytearray()
        self.encode_into(buf, version)
        return buf

    @classmethod
    def decode_from(cls, buf: memoryview, pos: int, version: int) -> tuple[Self, int]:
        """The message at ``pos`` of ``buf`` and the offset after it."""
        decoder = cls.DECODERS.get(version)
        if decoder is None:
            cls.check_version(version)
            raise AssertionError("unreachable")
        try:
            message, end = decoder(buf, pos)
        except (struct.error, IndexError, ValueError) as e:
            # cut short (struct, index), or a value no field can hold (ValueError)
            raise DecodeError(f"{cls.NAME} v{version}: {e}") from e
        return message, end

    @classmethod
    def decode(cls, data: bytes | bytearray | memoryview, version: int) -> Self:
        """The message that is all of ``data``. Records fields are slices of ``data``."""
        buf = data if isinstance(data, memoryview) else memoryview(data)
        message, end = cls.decode_from(buf, 0, version)
        if end != len(buf):
            raise DecodeError(f"{cls.NAME} v{version}: {len(buf) - end} bytes left over")
        return message


class Response(Message):
    __slots__ = ()

    API_KEY: ClassVar[int]


R = TypeVar("R", bound=Response)


class Request(Message, Generic[R]):
    """A request, typed by its response."""

    __slots__ = ()

    API_KEY: ClassVar[int]
    RESPONSE: ClassVar[type[Response]]

    def decode_response(self, data: memoryview, version: int) -> R:
        """This request's response at ``version``, from all of ``data``."""
        raise NotImplementedError


class Header(Message):
    __slots__ = ()
