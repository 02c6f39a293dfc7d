"""The error tree and the one table of error codes.

Every failure a client can see is a ``SluiceError`` carrying an ``ErrorCode``. The code decides
the HTTP status, whether the same request may succeed later unchanged (``retriable``) and, where
Kafka has the same condition, Kafka's numeric code::

    SluiceError
    ├── InvalidRequest            (INVALID_REQUEST, INVALID_CONFIG, INVALID_TOPIC, …)
    │   └── Unsupported           (UNSUPPORTED_ON_KAFKA_BACKEND, with what is missing)
    ├── NotFound                  (UNKNOWN_TOPIC_OR_PARTITION, …)
    ├── Conflict                  (TOPIC_ALREADY_EXISTS, OFFSET_OUT_OF_RANGE, …)
    ├── TooLarge                  (REQUEST_TOO_LARGE, RECORD_TOO_LARGE, REQUEST_TOO_COMPLEX)
    └── Unavailable               (NOT_READY, …)
        ├── StorageError          (KAFKA_STORAGE_ERROR: the disk refused a write)
        └── Throttled             (THROTTLING_QUOTA_EXCEEDED, with its throttle time)

Foreign errors are mapped at the boundaries only: ``OSError`` by the storage engine
(``app.storage``) and ``sqlite3.Error`` by the metadata database (``app.metadata.db``), both to
``StorageError``; nothing above them catches either, and routers never invent codes.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class _Code:
    status: int
    retriable: bool
    kafka_code: int | None
    message: str


class ErrorCode(enum.Enum):
    """Stable error codes: clients switch on the name."""

    # 400 Bad Request
    INVALID_REQUEST = _Code(400, False, 42, "the request is malformed")
    INVALID_CONFIG = _Code(400, False, 40, "the configuration is invalid")
    INVALID_TOPIC = _Code(400, False, 17, "the topic name is invalid")
    INVALID_PARTITIONS = _Code(400, False, 37, "the number of partitions is invalid")
    INVALID_TIMESTAMP = _Code(400, False, 32, "the timestamp is invalid")
    CORRUPT_MESSAGE = _Code(
        400, False, 2, "a record batch is corrupt: its CRC, length or record framing"
    )
    INVALID_RECORD = _Code(
        400, False, 87, "a record batch breaks a rule: offsets, timestamps, attributes, producer"
    )
    UNSUPPORTED_COMPRESSION_TYPE = _Code(
        400, False, 76, "the record batch's compression is not supported"
    )
    UNKNOWN_PRODUCER_ID = _Code(400, False, None, "the server never issued this producer id")
    INVALID_TRANSACTION_TIMEOUT = _Code(
        400, False, 50, "the transaction timeout is outside the server's bounds"
    )
    UNSUPPORTED_ON_KAFKA_BACKEND = _Code(
        400, False, None, "the Kafka backend does not have this; nothing of the request was applied"
    )

    # 401 Unauthorized
    UNAUTHENTICATED = _Code(401, False, 58, "missing or invalid credentials")

    # 403 Forbidden: the key is valid but its principal lacks an ACL (Kafka's names and codes)
    TOPIC_AUTHORIZATION_FAILED = _Code(403, False, 29, "not authorized to access the topic")
    GROUP_AUTHORIZATION_FAILED = _Code(403, False, 30, "not authorized to access the group")
    CLUSTER_AUTHORIZATION_FAILED = _Code(403, False, 31, "not authorized on the cluster")
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED = _Code(
        403, False, 53, "not authorized to use the transactional id"
    )
    # 403 Forbidden: a server without keys refuses what a browser might send for a page of
    # another site (app/security/cross_site.py)
    ORIGIN_NOT_ALLOWED = _Code(
        403, False, None, "a page of another site may not change anything on this server"
    )
    HOST_NOT_ALLOWED = _Code(403, False, None, "the server does not answer to this host name")

    # 404 Not Found
    NOT_FOUND = _Code(404, False, None, "no such resource")
    UNKNOWN_TOPIC_OR_PARTITION = _Code(404, False, 3, "the topic or partition does not exist")
    UNKNOWN_MEMBER_ID = _Code(404, False, 25, "the member is not in the group")
    GROUP_ID_NOT_FOUND = _Code(404, False, 69, "the group does not exist")

    # 405 Method Not Allowed
    METHOD_NOT_ALLOWED = _Code(405, False, None, "method not allowed on this resource")

    # 408 Request Timeout
    REQUEST_TIMEOUT = _Code(
        408,
        True,
        None,
        "the request's headers or body did not arrive in time; the connection closes",
    )

    # 409 Conflict
    TOPIC_ALREADY_EXISTS = _Code(409, False, 36, "the topic already exists")
    OFFSET_OUT_OF_RANGE = _Code(409, False, 1, "the offset is outside the log")
    IDEMPOTENCY_KEY_REUSED = _Code(
        409, False, None, "the idempotency key was used with a different request"
    )
    TOPIC_DELETION_IN_PROGRESS = _Code(409, True, None, "the topic is being deleted")
    OUT_OF_ORDER_SEQUENCE_NUMBER = _Code(409, False, 45, "the batch's sequence is out of order")
    INVALID_PRODUCER_EPOCH = _Code(
        409, False, 47, "the producer epoch is stale: abort the transaction and re-initialise"
    )
    INVALID_TXN_STATE = _Code(409, False, 48, "the transaction is in the wrong state")
    INVALID_PRODUCER_ID_MAPPING = _Code(
        409, False, 49, "the producer id does not belong to this transactional id"
    )
    CONCURRENT_TRANSACTIONS = _Code(
        409, True, 51, "another change of this transaction is in progress; retry"
    )
    PRODUCER_FENCED = _Code(409, False, 90, "a newer producer instance owns this transactional id")
    TRANSACTION_TIMED_OUT = _Code(
        409,
        True,
        None,
        "the server aborted the transaction after its timeout; re-initialise with the current "
        "producer id and epoch and start over",
    )
    INVALID_RECORD_STATE = _Code(
        409, False, 121, "the records are not acquired by this member (or the lock expired)"
    )
    ILLEGAL_GENERATION = _Code(409, False, 22, "the member epoch (generation) is not current")
    STALE_MEMBER_EPOCH = _Code(409, False, 113, "the member epoch is stale")
    FENCED_MEMBER_EPOCH = _Code(409, False, 110, "the member epoch is fenced; rejoin with 0")
    FENCED_INSTANCE_ID = _Code(409, False, 82, "the static instance id belongs to another member")
    UNRELEASED_INSTANCE_ID = _Code(
        409, False, 111, "the static instance id is held by a live member"
    )
    NON_EMPTY_GROUP = _Code(409, False, 68, "the group has members")
    PENDING_TRANSACTION = _Code(409, True, 88, "offsets of an undecided transaction are pending")

    # 413 Content Too Large
    REQUEST_TOO_LARGE = _Code(413, False, None, "the request is too large")
    RECORD_TOO_LARGE = _Code(413, False, 10, "a record is larger than the limit")
    # A body within the byte limit whose JSON holds more values, or nests deeper, than the
    # server parses. 413 as REQUEST_TOO_LARGE, since the request is well formed and only its
    # size, counted in values rather than bytes, is refused (sent again unchanged it fails
    # again; split or flattened it passes); a code of its own, so that a client can tell which
    # limit it met.
    REQUEST_TOO_COMPLEX = _Code(
        413, False, None, "the body holds more JSON values, or nests deeper, than the limit"
    )

    # 415 Unsupported Media Type
    UNSUPPORTED_MEDIA_TYPE = _Code(415, False, None, "the body's Content-Type is not taken here")

    # 429 Too Many Requests
    TOO_MANY_REQUESTS = _Code(429, True, None, "too many requests")
    THROTTLING_QUOTA_EXCEEDED = _Code(
        429, True, 89, "the principal's byte-rate quota is exceeded; retry after Retry-After"
    )
    GROUP_MAX_SIZE_REACHED = _Code(429, False, 81, "the group has reached its member limit")

    # 431 Request Header Fields Too Large
    REQUEST_HEADER_FIELDS_TOO_LARGE = _Code(
        431, False, None, "the request's headers are too large or too many"
    )

    # 500 Internal Server Error
    INTERNAL = _Code(500, True, -1, "internal error")

    # 503 Service Unavailable
    NOT_READY = _Code(503, True, None, "the server is starting or stopping")
    GROUPS_UNAVAILABLE = _Code(503, False, None, "consumer groups are not available on this server")
    # SLUICE_BACKEND=kafka: a leader being elected, too few in-sync replicas, no broker answering
    CLUSTER_UNAVAILABLE = _Code(
        503, True, None, "the Kafka cluster cannot take the request now (a broker is away); retry"
    )

    # 507 Insufficient Storage
    KAFKA_STORAGE_ERROR = _Code(
        507, True, 56, "the disk refused the write (full or failing); retry later"
    )

    @property
    def status(self) -> int:
        return self.value.status

    @property
    def retriable(self) -> bool:
        return self.value.retriable

    @property
    def kafka_code(self) -> int | None:
        return self.value.kafka_code


class SluiceError(Exception):
    """Base of every error a client can see. Every class of the tree is built the same way:
    ``(code, message)``, the message defaulting to the code's own."""

    def __init__(self, code: ErrorCode, message: str | None = None) -> None:
        self.code = code
        self.message = message or code.value.message
        super().__init__(f"{code.name}: {self.message}")

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "code": self.code.name,
            "message": self.message,
            "retriable": self.code.retriable,
        }
        if self.code.kafka_code is not None:
            body["kafka_code"] = self.code.kafka_code
        return body


class InvalidRequest(SluiceError):
    """400: the request itself is wrong; sending it again changes nothing."""


class Unsupported(InvalidRequest):
    """400 UNSUPPORTED_ON_KAFKA_BACKEND: the request needs something the Kafka backend does not
    have, refused before anything is applied. ``unsupported`` is the stable name of what is
    missing (docs/kafka.md#errors), answered in the error body for clients to switch on."""

    def __init__(self, unsupported: str, message: str) -> None:
        super().__init__(ErrorCode.UNSUPPORTED_ON_KAFKA_BACKEND, message)
        self.unsupported = unsupported

    def to_dict(self) -> dict[str, Any]:
        body = super().to_dict()
        body["unsupported"] = self.unsupported
        return body


class NotFound(SluiceError):
    """404: the resource named does not exist."""


class Conflict(SluiceError):
    """409: the request is well formed but the state of the resource refuses it."""


class TooLarge(SluiceError):
    """413: a body or a record over its limit."""


class Unavailable(SluiceError):
    """429, 503 and the like: the server cannot serve it now."""


class StorageError(Unavailable):
    """The disk refused a write, read or fsync (``OSError``), mapped where it happens."""

    @classmethod
    def of(cls, what: str, exc: BaseException) -> StorageError:
        return cls(ErrorCode.KAFKA_STORAGE_ERROR, f"{what} failed: {reason(exc)}")


def reason(exc: BaseException) -> str:
    """Why ``exc`` happened, fit for an answer: an ``OSError``'s errno and message without
    the file names it carries (where the data directory is stays out of every answer; the
    server's log names the files)."""
    if isinstance(exc, OSError) and exc.strerror:
        return f"[Errno {exc.errno}] {exc.strerror}" if exc.errno else exc.strerror
    return str(exc)


class Throttled(Unavailable):
    """429 THROTTLING_QUOTA_EXCEEDED: the principal is over a byte-rate quota for another
    ``throttle_ms`` milliseconds (answered as ``Retry-After`` in whole seconds, rounded up, and
    exactly as ``throttle_time_ms`` in the error body)."""

    def __init__(self, throttle_ms: int, message: str | None = None) -> None:
        super().__init__(ErrorCode.THROTTLING_QUOTA_EXCEEDED, message)
        self.throttle_ms = throttle_ms

    @property
    def retry_after_s(self) -> int:
        return max(1, -(-self.throttle_ms // 1000))

    def to_dict(self) -> dict[str, Any]:
        body = super().to_dict()
        body["throttle_time_ms"] = self.throttle_ms
        return body


class CorruptRecordError(Exception):
    """Bytes in a log segment that are not a valid record batch (bad CRC, length or format).

    Internal to storage and recovery: never reaches a client.
    """

    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.reason = message
        self.position = position
