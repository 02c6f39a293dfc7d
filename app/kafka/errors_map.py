"""Kafka's error codes as the contract's (docs/api.md#error-codes): the one table the Kafka
backend answers a broker's error through.

Most of Kafka's errors have a code of the same name in ``app.errors.ErrorCode`` (its
``kafka_code`` column). A few are answered under another of the contract's codes, where the
contract names the same condition differently (``MESSAGE_TOO_LARGE`` is ``RECORD_TOO_LARGE``).
``DUPLICATE_SEQUENCE_NUMBER`` is no error: a batch the broker already holds is answered as
written, at its first offsets, as the embedded engine answers a retry.

Kafka's errors that say a broker is away (a leader being elected, too few in-sync replicas, a
coordinator moving) are in ``UNAVAILABLE``: 503 ``CLUSTER_UNAVAILABLE``, retriable, as is an
exchange with a broker that failed (its connection closed, or the request timed out). The
cluster retries the ones that mean its metadata is stale (NOT_LEADER_OR_FOLLOWER and the like)
before any reaches this table. The few others the contract has no code for are in
``UNMAPPED``: answered as ``INTERNAL`` (500, retriable) with Kafka's name in the message.
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
from app.kafka.protocol.errors import (
    BrokerError,
    ConnectionClosedError,
    ProtocolError,
    RequestTimeoutError,
    error_name,
)

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

# Kafka's errors that say the cluster cannot take the request now, after the cluster's own
# retries (a leader being elected or moved, too few in-sync replicas, a coordinator loading or
# moving): 503 CLUSTER_UNAVAILABLE, retriable, Kafka's name in the message. A client retries
# as it would a 503 of the embedded server; with producer ids and sequences, a retry of a
# write that did happen is answered as a duplicate.
UNAVAILABLE: frozenset[int] = frozenset(
    {
        5,  # LEADER_NOT_AVAILABLE
        6,  # NOT_LEADER_OR_FOLLOWER
        7,  # REQUEST_TIMED_OUT: acks=all not met within the request's timeout
        13,  # NETWORK_EXCEPTION
        14,  # COORDINATOR_LOAD_IN_PROGRESS
        15,  # COORDINATOR_NOT_AVAILABLE
        16,  # NOT_COORDINATOR
        19,  # NOT_ENOUGH_REPLICAS: fewer in-sync replicas than min.insync.replicas
        20,  # NOT_ENOUGH_REPLICAS_AFTER_APPEND
        74,  # FENCED_LEADER_EPOCH
        75,  # UNKNOWN_LEADER_EPOCH
    }
)

# Kafka's errors a produce (or the transaction calls around it, or a share session) can answer
# for which the contract has no code yet: answered as INTERNAL, Kafka's name in the message.
UNMAPPED: frozenset[int] = frozenset(
    {
        -1,  # UNKNOWN_SERVER_ERROR
        35,  # UNSUPPORTED_VERSION
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
    if kafka_code in UNAVAILABLE:
        return ErrorCode.CLUSTER_UNAVAILABLE
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
    error code as ``to_sluice`` answers it; a connection that closed (no broker answered, or a
    login the broker refused) or a request that timed out as ``CLUSTER_UNAVAILABLE`` (503,
    retriable); an answer that could not be read as ``INTERNAL`` (500, retriable), saying so."""
    if isinstance(exc, BrokerError):
        return to_sluice(exc.code, exc.message)
    if isinstance(exc, ConnectionClosedError | RequestTimeoutError):
        return Unavailable(
            ErrorCode.CLUSTER_UNAVAILABLE,
            f"no answer from the Kafka cluster: {type(exc).__name__}: {exc}",
        )
    return SluiceError(
        ErrorCode.INTERNAL,
        f"the exchange with the Kafka cluster failed: {type(exc).__name__}: {exc}",
    )
