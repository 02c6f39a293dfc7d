"""The exceptions of the Sluice client: one class per error code of the server,
generated from its error table (``clients/python/gen_errors.py``; do not edit by hand).

Every class derives from ``SluiceError`` through the class of its HTTP status
(``BadRequestError``, ``ConflictError``, …), and carries ``code``, ``status``, ``retriable``
and ``kafka_code``. ``error_from(status, body)`` builds the one an answer names.
"""

from __future__ import annotations

from typing import Any, ClassVar


class SluiceError(Exception):
    """An error answer of the server (or, ``code`` empty, one the client could not read)."""

    code: ClassVar[str] = ""
    status: ClassVar[int] = 0
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = None

    def __init__(
        self, message: str = "", *, status: int | None = None, throttle_time_ms: int | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.http_status = self.status if status is None else status
        self.throttle_time_ms = throttle_time_ms

    def __str__(self) -> str:
        return f"{self.code or self.http_status}: {self.message}"


class UnknownServerError(SluiceError):
    """An error answer whose code this client does not know (a newer server)."""

    def __init__(
        self,
        message: str = "",
        *,
        code: str = "",
        status: int | None = None,
        retriable: bool = False,
        throttle_time_ms: int | None = None,
    ) -> None:
        super().__init__(message, status=status, throttle_time_ms=throttle_time_ms)
        self.unknown_code = code
        self.is_retriable = retriable


class BadRequestError(SluiceError):
    status: ClassVar[int] = 400


class AuthenticationError(SluiceError):
    status: ClassVar[int] = 401


class AuthorizationError(SluiceError):
    status: ClassVar[int] = 403


class NotFoundError(SluiceError):
    status: ClassVar[int] = 404
    """no such resource"""

    code: ClassVar[str] = "NOT_FOUND"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = None


class MethodNotAllowedError(SluiceError):
    status: ClassVar[int] = 405
    """method not allowed on this resource"""

    code: ClassVar[str] = "METHOD_NOT_ALLOWED"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = None


class RequestTimeoutError(SluiceError):
    status: ClassVar[int] = 408
    """the request's headers or body did not arrive in time; the connection closes"""

    code: ClassVar[str] = "REQUEST_TIMEOUT"
    retriable: ClassVar[bool] = True
    kafka_code: ClassVar[int | None] = None


class ConflictError(SluiceError):
    status: ClassVar[int] = 409


class TooLargeError(SluiceError):
    status: ClassVar[int] = 413


class UnsupportedMediaTypeError(SluiceError):
    status: ClassVar[int] = 415
    """the body's Content-Type is not taken here"""

    code: ClassVar[str] = "UNSUPPORTED_MEDIA_TYPE"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = None


class ThrottledError(SluiceError):
    status: ClassVar[int] = 429


class HeadersTooLargeError(SluiceError):
    status: ClassVar[int] = 431


class InternalServerError(SluiceError):
    status: ClassVar[int] = 500


class UnavailableError(SluiceError):
    status: ClassVar[int] = 503


class StorageError(SluiceError):
    status: ClassVar[int] = 507


class InvalidRequestError(BadRequestError):
    """the request is malformed"""

    code: ClassVar[str] = "INVALID_REQUEST"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 42


class InvalidConfigError(BadRequestError):
    """the configuration is invalid"""

    code: ClassVar[str] = "INVALID_CONFIG"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 40


class InvalidTopicError(BadRequestError):
    """the topic name is invalid"""

    code: ClassVar[str] = "INVALID_TOPIC"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 17


class InvalidPartitionsError(BadRequestError):
    """the number of partitions is invalid"""

    code: ClassVar[str] = "INVALID_PARTITIONS"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 37


class InvalidTimestampError(BadRequestError):
    """the timestamp is invalid"""

    code: ClassVar[str] = "INVALID_TIMESTAMP"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 32


class CorruptMessageError(BadRequestError):
    """a record batch is corrupt: its CRC, length or record framing"""

    code: ClassVar[str] = "CORRUPT_MESSAGE"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 2


class InvalidRecordError(BadRequestError):
    """a record batch breaks a rule: offsets, timestamps, attributes, producer"""

    code: ClassVar[str] = "INVALID_RECORD"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 87


class UnsupportedCompressionTypeError(BadRequestError):
    """the record batch's compression is not supported"""

    code: ClassVar[str] = "UNSUPPORTED_COMPRESSION_TYPE"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 76


class UnknownProducerIdError(BadRequestError):
    """the server never issued this producer id"""

    code: ClassVar[str] = "UNKNOWN_PRODUCER_ID"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = None


class InvalidTransactionTimeoutError(BadRequestError):
    """the transaction timeout is outside the server's bounds"""

    code: ClassVar[str] = "INVALID_TRANSACTION_TIMEOUT"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 50


class UnsupportedOnKafkaBackendError(BadRequestError):
    """the Kafka backend does not have this; nothing of the request was applied"""

    code: ClassVar[str] = "UNSUPPORTED_ON_KAFKA_BACKEND"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = None


class UnauthenticatedError(AuthenticationError):
    """missing or invalid credentials"""

    code: ClassVar[str] = "UNAUTHENTICATED"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 58


class TopicAuthorizationFailedError(AuthorizationError):
    """not authorized to access the topic"""

    code: ClassVar[str] = "TOPIC_AUTHORIZATION_FAILED"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 29


class GroupAuthorizationFailedError(AuthorizationError):
    """not authorized to access the group"""

    code: ClassVar[str] = "GROUP_AUTHORIZATION_FAILED"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 30


class ClusterAuthorizationFailedError(AuthorizationError):
    """not authorized on the cluster"""

    code: ClassVar[str] = "CLUSTER_AUTHORIZATION_FAILED"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 31


class TransactionalIdAuthorizationFailedError(AuthorizationError):
    """not authorized to use the transactional id"""

    code: ClassVar[str] = "TRANSACTIONAL_ID_AUTHORIZATION_FAILED"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 53


class OriginNotAllowedError(AuthorizationError):
    """a page of another site may not change anything on this server"""

    code: ClassVar[str] = "ORIGIN_NOT_ALLOWED"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = None


class HostNotAllowedError(AuthorizationError):
    """the server does not answer to this host name"""

    code: ClassVar[str] = "HOST_NOT_ALLOWED"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = None


class UnknownTopicOrPartitionError(NotFoundError):
    """the topic or partition does not exist"""

    code: ClassVar[str] = "UNKNOWN_TOPIC_OR_PARTITION"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 3


class UnknownMemberIdError(NotFoundError):
    """the member is not in the group"""

    code: ClassVar[str] = "UNKNOWN_MEMBER_ID"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 25


class GroupIdNotFoundError(NotFoundError):
    """the group does not exist"""

    code: ClassVar[str] = "GROUP_ID_NOT_FOUND"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 69


class TopicAlreadyExistsError(ConflictError):
    """the topic already exists"""

    code: ClassVar[str] = "TOPIC_ALREADY_EXISTS"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 36


class OffsetOutOfRangeError(ConflictError):
    """the offset is outside the log"""

    code: ClassVar[str] = "OFFSET_OUT_OF_RANGE"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 1


class IdempotencyKeyReusedError(ConflictError):
    """the idempotency key was used with a different request"""

    code: ClassVar[str] = "IDEMPOTENCY_KEY_REUSED"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = None


class TopicDeletionInProgressError(ConflictError):
    """the topic is being deleted"""

    code: ClassVar[str] = "TOPIC_DELETION_IN_PROGRESS"
    retriable: ClassVar[bool] = True
    kafka_code: ClassVar[int | None] = None


class OutOfOrderSequenceNumberError(ConflictError):
    """the batch's sequence is out of order"""

    code: ClassVar[str] = "OUT_OF_ORDER_SEQUENCE_NUMBER"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 45


class InvalidProducerEpochError(ConflictError):
    """the producer epoch is stale: abort the transaction and re-initialise"""

    code: ClassVar[str] = "INVALID_PRODUCER_EPOCH"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 47


class InvalidTxnStateError(ConflictError):
    """the transaction is in the wrong state"""

    code: ClassVar[str] = "INVALID_TXN_STATE"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 48


class InvalidProducerIdMappingError(ConflictError):
    """the producer id does not belong to this transactional id"""

    code: ClassVar[str] = "INVALID_PRODUCER_ID_MAPPING"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 49


class ConcurrentTransactionsError(ConflictError):
    """another change of this transaction is in progress; retry"""

    code: ClassVar[str] = "CONCURRENT_TRANSACTIONS"
    retriable: ClassVar[bool] = True
    kafka_code: ClassVar[int | None] = 51


class ProducerFencedError(ConflictError):
    """a newer producer instance owns this transactional id"""

    code: ClassVar[str] = "PRODUCER_FENCED"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 90


class TransactionTimedOutError(ConflictError):
    """the server aborted the transaction after its timeout; re-initialise with the current
    producer id and epoch and start over"""

    code: ClassVar[str] = "TRANSACTION_TIMED_OUT"
    retriable: ClassVar[bool] = True
    kafka_code: ClassVar[int | None] = None


class InvalidRecordStateError(ConflictError):
    """the records are not acquired by this member (or the lock expired)"""

    code: ClassVar[str] = "INVALID_RECORD_STATE"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 121


class IllegalGenerationError(ConflictError):
    """the member epoch (generation) is not current"""

    code: ClassVar[str] = "ILLEGAL_GENERATION"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 22


class StaleMemberEpochError(ConflictError):
    """the member epoch is stale"""

    code: ClassVar[str] = "STALE_MEMBER_EPOCH"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 113


class FencedMemberEpochError(ConflictError):
    """the member epoch is fenced; rejoin with 0"""

    code: ClassVar[str] = "FENCED_MEMBER_EPOCH"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 110


class FencedInstanceIdError(ConflictError):
    """the static instance id belongs to another member"""

    code: ClassVar[str] = "FENCED_INSTANCE_ID"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 82


class UnreleasedInstanceIdError(ConflictError):
    """the static instance id is held by a live member"""

    code: ClassVar[str] = "UNRELEASED_INSTANCE_ID"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 111


class NonEmptyGroupError(ConflictError):
    """the group has members"""

    code: ClassVar[str] = "NON_EMPTY_GROUP"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 68


class PendingTransactionError(ConflictError):
    """offsets of an undecided transaction are pending"""

    code: ClassVar[str] = "PENDING_TRANSACTION"
    retriable: ClassVar[bool] = True
    kafka_code: ClassVar[int | None] = 88


class RequestTooLargeError(TooLargeError):
    """the request is too large"""

    code: ClassVar[str] = "REQUEST_TOO_LARGE"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = None


class RecordTooLargeError(TooLargeError):
    """a record is larger than the limit"""

    code: ClassVar[str] = "RECORD_TOO_LARGE"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 10


class RequestTooComplexError(TooLargeError):
    """the body holds more JSON values, or nests deeper, than the limit"""

    code: ClassVar[str] = "REQUEST_TOO_COMPLEX"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = None


class TooManyRequestsError(ThrottledError):
    """too many requests"""

    code: ClassVar[str] = "TOO_MANY_REQUESTS"
    retriable: ClassVar[bool] = True
    kafka_code: ClassVar[int | None] = None


class ThrottlingQuotaExceededError(ThrottledError):
    """the principal's byte-rate quota is exceeded; retry after Retry-After"""

    code: ClassVar[str] = "THROTTLING_QUOTA_EXCEEDED"
    retriable: ClassVar[bool] = True
    kafka_code: ClassVar[int | None] = 89


class GroupMaxSizeReachedError(ThrottledError):
    """the group has reached its member limit"""

    code: ClassVar[str] = "GROUP_MAX_SIZE_REACHED"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = 81


class RequestHeaderFieldsTooLargeError(HeadersTooLargeError):
    """the request's headers are too large or too many"""

    code: ClassVar[str] = "REQUEST_HEADER_FIELDS_TOO_LARGE"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = None


class InternalError(InternalServerError):
    """internal error"""

    code: ClassVar[str] = "INTERNAL"
    retriable: ClassVar[bool] = True
    kafka_code: ClassVar[int | None] = -1


class NotReadyError(UnavailableError):
    """the server is starting or stopping"""

    code: ClassVar[str] = "NOT_READY"
    retriable: ClassVar[bool] = True
    kafka_code: ClassVar[int | None] = None


class GroupsUnavailableError(UnavailableError):
    """consumer groups are not available on this server"""

    code: ClassVar[str] = "GROUPS_UNAVAILABLE"
    retriable: ClassVar[bool] = False
    kafka_code: ClassVar[int | None] = None


class ClusterUnavailableError(UnavailableError):
    """the Kafka cluster cannot take the request now (a broker is away); retry"""

    code: ClassVar[str] = "CLUSTER_UNAVAILABLE"
    retriable: ClassVar[bool] = True
    kafka_code: ClassVar[int | None] = None


class KafkaStorageErrorError(StorageError):
    """the disk refused the write (full or failing); retry later"""

    code: ClassVar[str] = "KAFKA_STORAGE_ERROR"
    retriable: ClassVar[bool] = True
    kafka_code: ClassVar[int | None] = 56


ERRORS: dict[str, type[SluiceError]] = {
    "INVALID_REQUEST": InvalidRequestError,
    "INVALID_CONFIG": InvalidConfigError,
    "INVALID_TOPIC": InvalidTopicError,
    "INVALID_PARTITIONS": InvalidPartitionsError,
    "INVALID_TIMESTAMP": InvalidTimestampError,
    "CORRUPT_MESSAGE": CorruptMessageError,
    "INVALID_RECORD": InvalidRecordError,
    "UNSUPPORTED_COMPRESSION_TYPE": UnsupportedCompressionTypeError,
    "UNKNOWN_PRODUCER_ID": UnknownProducerIdError,
    "INVALID_TRANSACTION_TIMEOUT": InvalidTransactionTimeoutError,
    "UNSUPPORTED_ON_KAFKA_BACKEND": UnsupportedOnKafkaBackendError,
    "UNAUTHENTICATED": UnauthenticatedError,
    "TOPIC_AUTHORIZATION_FAILED": TopicAuthorizationFailedError,
    "GROUP_AUTHORIZATION_FAILED": GroupAuthorizationFailedError,
    "CLUSTER_AUTHORIZATION_FAILED": ClusterAuthorizationFailedError,
    "TRANSACTIONAL_ID_AUTHORIZATION_FAILED": TransactionalIdAuthorizationFailedError,
    "ORIGIN_NOT_ALLOWED": OriginNotAllowedError,
    "HOST_NOT_ALLOWED": HostNotAllowedError,
    "NOT_FOUND": NotFoundError,
    "UNKNOWN_TOPIC_OR_PARTITION": UnknownTopicOrPartitionError,
    "UNKNOWN_MEMBER_ID": UnknownMemberIdError,
    "GROUP_ID_NOT_FOUND": GroupIdNotFoundError,
    "METHOD_NOT_ALLOWED": MethodNotAllowedError,
    "REQUEST_TIMEOUT": RequestTimeoutError,
    "TOPIC_ALREADY_EXISTS": TopicAlreadyExistsError,
    "OFFSET_OUT_OF_RANGE": OffsetOutOfRangeError,
    "IDEMPOTENCY_KEY_REUSED": IdempotencyKeyReusedError,
    "TOPIC_DELETION_IN_PROGRESS": TopicDeletionInProgressError,
    "OUT_OF_ORDER_SEQUENCE_NUMBER": OutOfOrderSequenceNumberError,
    "INVALID_PRODUCER_EPOCH": InvalidProducerEpochError,
    "INVALID_TXN_STATE": InvalidTxnStateError,
    "INVALID_PRODUCER_ID_MAPPING": InvalidProducerIdMappingError,
    "CONCURRENT_TRANSACTIONS": ConcurrentTransactionsError,
    "PRODUCER_FENCED": ProducerFencedError,
    "TRANSACTION_TIMED_OUT": TransactionTimedOutError,
    "INVALID_RECORD_STATE": InvalidRecordStateError,
    "ILLEGAL_GENERATION": IllegalGenerationError,
    "STALE_MEMBER_EPOCH": StaleMemberEpochError,
    "FENCED_MEMBER_EPOCH": FencedMemberEpochError,
    "FENCED_INSTANCE_ID": FencedInstanceIdError,
    "UNRELEASED_INSTANCE_ID": UnreleasedInstanceIdError,
    "NON_EMPTY_GROUP": NonEmptyGroupError,
    "PENDING_TRANSACTION": PendingTransactionError,
    "REQUEST_TOO_LARGE": RequestTooLargeError,
    "RECORD_TOO_LARGE": RecordTooLargeError,
    "REQUEST_TOO_COMPLEX": RequestTooComplexError,
    "UNSUPPORTED_MEDIA_TYPE": UnsupportedMediaTypeError,
    "TOO_MANY_REQUESTS": TooManyRequestsError,
    "THROTTLING_QUOTA_EXCEEDED": ThrottlingQuotaExceededError,
    "GROUP_MAX_SIZE_REACHED": GroupMaxSizeReachedError,
    "REQUEST_HEADER_FIELDS_TOO_LARGE": RequestHeaderFieldsTooLargeError,
    "INTERNAL": InternalError,
    "NOT_READY": NotReadyError,
    "GROUPS_UNAVAILABLE": GroupsUnavailableError,
    "CLUSTER_UNAVAILABLE": ClusterUnavailableError,
    "KAFKA_STORAGE_ERROR": KafkaStorageErrorError,
}


def error_from(status: int, body: Any) -> SluiceError:
    """The exception an error answer names (``{"error": {"code", "message", …}}``)."""
    detail = body.get("error") if isinstance(body, dict) else None
    if not isinstance(detail, dict):
        return UnknownServerError(f"HTTP {status}", status=status, retriable=status >= 500)
    code = str(detail.get("code", ""))
    message = str(detail.get("message", ""))
    throttle = detail.get("throttle_time_ms")
    throttle = throttle if isinstance(throttle, int) else None
    cls = ERRORS.get(code)
    if cls is None:
        return UnknownServerError(
            message,
            code=code,
            status=status,
            retriable=bool(detail.get("retriable")),
            throttle_time_ms=throttle,
        )
    return cls(message, status=status, throttle_time_ms=throttle)


def raise_first(items: Any) -> None:
    """Raise the first error of an answer's per-item results (items with an ``error``)."""
    for item in items:
        if item.get("error") is not None:
            raise error_from(200, {"error": item["error"]})


def is_retriable(error: BaseException) -> bool:
    if isinstance(error, UnknownServerError):
        return error.is_retriable
    return isinstance(error, SluiceError) and error.retriable
