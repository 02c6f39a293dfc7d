"""Kafka's error codes as the contract's (docs/api.md#error-codes): the one table the Kafka
backend answers a broker's error through.

Most of Kafka's errors have a code of the same name in ``app.errors.ErrorCode`` (its
``kafka_code`` column). A few are answered under another of the contract's codes, where the
contract names the same condition differently (``MESSAGE_TOO_LARGE`` is ``RECORD_TOO_LARGE``).
``DUPLICATE_SEQUENCE_NUMBER`` is no error: a batch the broker already holds is answered as
written, at its first offsets, as the embedded engine answers a retry.

Kafka's errors the contract has no code for are in ``UNMAPPED``: they are answered as
``INTERNAL`` (500, retriable) with Kafka's name in the message, until the contract gives them a
code of their own. The cluster retries the ones that mean its metadata is stale
(NOT_LEADER_OR_FOLLOWER and the like) before any reaches this table.
"""

from __future__ import annotations

from app.errors import (
    Conflict,
    ErrorCode,
    InvalidRequest,
    NotFound,
    SluiceError,
    StorageError,
    Throttled,
    TooLarge,
    Unavailable,
)
from app.kafka.protocol.errors import BrokerError, ProtocolError, error_name

DUPLICATE_SEQUENCE_NUMBER = 46

# Kafka's code → the contract's code. Kafka's names are in the comments where they differ.
KAFKA_TO_SLUICE: dict[int, ErrorCode] = {
    1: ErrorCode.OFFSET_OUT_OF_RANGE,
    2: ErrorCode.CORRUPT_MESSAGE,
    3: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    10: ErrorCode.RECORD_TOO_LARGE,  # MESSAGE_TOO_LARGE: a batch over max.message.bytes
    17: ErrorCode.INVALID_TOPIC,  # INVALID_TOPIC_EXCEPTION: e.g. a produce to an internal topic
    18: ErrorCode.REQUEST_TOO_LARGE,  # RECORD_LIST_TOO_LARGE: a batch over the segment size
    21: ErrorCode.INVALID_REQUEST,  # INVALID_REQUIRED_ACKS
    22: ErrorCode.ILLEGAL_GENERATION,
    25: ErrorCode.UNKNOWN_MEMBER_ID,
    29: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
    30: ErrorCode.GROUP_AUTHORIZATION_FAILED,
    31: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
    32: ErrorCode.INVALID_TIMESTAMP,
    36: ErrorCode.TOPIC_ALREADY_EXISTS,
    37: ErrorCode.INVALID_PARTITIONS,
    40: ErrorCode.INVALID_CONFIG,
    42: ErrorCode.INVALID_REQUEST,
    45: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
    47: ErrorCode.INVALID_PRODUCER_EPOCH,
    48: ErrorCode.INVALID_TXN_STATE,
    49: ErrorCode.INVALID_PRODUCER_ID_MAPPING,
    50: ErrorCode.INVALID_TRANSACTION_TIMEOUT,
    51: ErrorCode.CONCURRENT_TRANSACTIONS,
    53: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
    56: ErrorCode.KAFKA_STORAGE_ERROR,
    58: ErrorCode.UNAUTHENTICATED,  # SASL_AUTHENTICATION_FAILED: the gateway's own credentials
    # UNKNOWN_PRODUCER_ID: the partition keeps no state of the producer id (its records were
    # deleted, or it was never used there); the contract's code says the id is not known
    59: ErrorCode.UNKNOWN_PRODUCER_ID,
    68: ErrorCode.NON_EMPTY_GROUP,
    69: ErrorCode.GROUP_ID_NOT_FOUND,
    76: ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
    81: ErrorCode.GROUP_MAX_SIZE_REACHED,
    82: ErrorCode.FENCED_INSTANCE_ID,
    # GROUP_SUBSCRIBED_TO_TOPIC: an offset delete of a topic a member is subscribed to
    86: ErrorCode.NON_EMPTY_GROUP,
    87: ErrorCode.INVALID_RECORD,
    88: ErrorCode.PENDING_TRANSACTION,  # UNSTABLE_OFFSET_COMMIT
    89: ErrorCode.THROTTLING_QUOTA_EXCEEDED,
    90: ErrorCode.PRODUCER_FENCED,
    100: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,  # UNKNOWN_TOPIC_ID: the topic went since
    110: ErrorCode.FENCED_MEMBER_EPOCH,
    111: ErrorCode.UNRELEASED_INSTANCE_ID,
    113: ErrorCode.STALE_MEMBER_EPOCH,
    121: ErrorCode.INVALID_RECORD_STATE,
}

# Kafka's errors a produce (or the transaction calls around it, or a share session) can answer
# for which the contract has no code yet: answered as INTERNAL, Kafka's name in the message.
UNMAPPED: frozenset[int] = frozenset(
    {
        -1,  # UNKNOWN_SERVER_ERROR
        5,  # LEADER_NOT_AVAILABLE, after the cluster's retries
        6,  # NOT_LEADER_OR_FOLLOWER, after the cluster's retries
        7,  # REQUEST_TIMED_OUT: acks=all not met within the request's timeout
        13,  # NETWORK_EXCEPTION
        15,  # COORDINATOR_NOT_AVAILABLE, after the cluster's retries
        16,  # NOT_COORDINATOR, after the cluster's retries
        19,  # NOT_ENOUGH_REPLICAS: fewer in-sync replicas than min.insync.replicas
        20,  # NOT_ENOUGH_REPLICAS_AFTER_APPEND
        35,  # UNSUPPORTED_VERSION
        74,  # FENCED_LEADER_EPOCH, after the cluster's retries
        75,  # UNKNOWN_LEADER_EPOCH, after the cluster's retries
        120,  # TRANSACTION_ABORTABLE (KIP-890): proposed in docs/kafka.md, not in the table
        # a member's share session the broker no longer holds at that epoch (the member's next
        # fetch opens a new one, app/kafka/share.py), or one session too many on the broker
        122,  # SHARE_SESSION_NOT_FOUND
        123,  # INVALID_SHARE_SESSION_EPOCH
        133,  # SHARE_SESSION_LIMIT_REACHED
    }
)

_CLASS_BY_STATUS: dict[int, type[SluiceError]] = {
    400: InvalidRequest,
    404: NotFound,
    409: Conflict,
    413: TooLarge,
    503: Unavailable,
    507: StorageError,
}


def sluice_code(kafka_code: int) -> ErrorCode:
    """The contract's code for Kafka's ``kafka_code`` (INTERNAL for one it has none for)."""
    return KAFKA_TO_SLUICE.get(kafka_code, ErrorCode.INTERNAL)


def to_sluice(
    kafka_code: int, message: str | None = None, what: str = "", throttle_ms: int = 0
) -> SluiceError:
    """The error a client sees for Kafka's ``kafka_code``, with Kafka's name and message, and
    ``what`` (the partition or the request) in front of them; ``throttle_ms`` is the answer's
    throttle time, for THROTTLING_QUOTA_EXCEEDED."""
    code = sluice_code(kafka_code)
    detail = error_name(kafka_code) + (f": {message}" if message else "")
    text = f"{what}: {detail}" if what else detail
    if code is ErrorCode.INTERNAL:
        text = f"the Kafka cluster answered {text}"
    if code is ErrorCode.THROTTLING_QUOTA_EXCEEDED:
        return Throttled(throttle_ms, text)
    return _CLASS_BY_STATUS.get(code.status, SluiceError)(code, text)


def from_protocol(exc: ProtocolError) -> SluiceError:
    """The error a client sees when the gateway's exchange with a broker failed: a broker's
    error code as ``to_sluice`` answers it; a connection that closed, a request that timed out
    or an answer that could not be read as ``INTERNAL`` (500, retriable), saying so."""
    if isinstance(exc, BrokerError):
        return to_sluice(exc.code, exc.message)
    return SluiceError(
        ErrorCode.INTERNAL,
        f"the exchange with the Kafka cluster failed: {type(exc).__name__}: {exc}",
    )
