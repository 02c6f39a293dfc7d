"""The one table of Kafka's error codes as the contract's (app/kafka/errors_map.py): each code
of the contract that names a Kafka code is reached from it, the renamed ones are the few the
table says, the ones the contract lacks are INTERNAL with Kafka's name, and a duplicate is no
error at all."""

from __future__ import annotations

import pytest

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
from app.kafka.errors_map import (
    DUPLICATE_SEQUENCE_NUMBER,
    KAFKA_TO_SLUICE,
    UNAVAILABLE,
    UNMAPPED,
    from_protocol,
    sluice_code,
    to_sluice,
)
from app.kafka.protocol.errors import (
    ConnectionClosedError,
    DecodeError,
    RequestTimeoutError,
    error_name,
)

# Kafka codes answered under a contract code of another Kafka code, or of none
RENAMED = {
    18: ErrorCode.REQUEST_TOO_LARGE,  # RECORD_LIST_TOO_LARGE
    21: ErrorCode.INVALID_REQUEST,  # INVALID_REQUIRED_ACKS
    59: ErrorCode.UNKNOWN_PRODUCER_ID,
    86: ErrorCode.NON_EMPTY_GROUP,  # GROUP_SUBSCRIBED_TO_TOPIC
    100: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,  # UNKNOWN_TOPIC_ID
}


def test_every_contract_code_with_a_kafka_code_is_reached_from_it() -> None:
    for code in ErrorCode:
        k = code.kafka_code
        if k is None or k == -1:  # INTERNAL's -1 is Kafka's UNKNOWN_SERVER_ERROR, unmapped
            continue
        assert KAFKA_TO_SLUICE.get(k) is code, (code.name, k)


def test_the_table_keeps_kafka_s_names_except_where_it_says() -> None:
    for k, code in KAFKA_TO_SLUICE.items():
        if k in RENAMED:
            assert code is RENAMED[k]
            continue
        assert code.kafka_code == k, (error_name(k), code.name)


@pytest.mark.parametrize(
    ("kafka", "code"),
    [
        ("OUT_OF_ORDER_SEQUENCE_NUMBER", ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER),
        ("INVALID_PRODUCER_EPOCH", ErrorCode.INVALID_PRODUCER_EPOCH),
        ("PRODUCER_FENCED", ErrorCode.PRODUCER_FENCED),
        ("CORRUPT_MESSAGE", ErrorCode.CORRUPT_MESSAGE),
        ("INVALID_RECORD", ErrorCode.INVALID_RECORD),
        ("MESSAGE_TOO_LARGE", ErrorCode.RECORD_TOO_LARGE),
        ("RECORD_LIST_TOO_LARGE", ErrorCode.REQUEST_TOO_LARGE),
        ("UNKNOWN_TOPIC_OR_PARTITION", ErrorCode.UNKNOWN_TOPIC_OR_PARTITION),
        ("UNKNOWN_TOPIC_ID", ErrorCode.UNKNOWN_TOPIC_OR_PARTITION),
        ("TOPIC_AUTHORIZATION_FAILED", ErrorCode.TOPIC_AUTHORIZATION_FAILED),
        ("TRANSACTIONAL_ID_AUTHORIZATION_FAILED", ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED),
        ("INVALID_TXN_STATE", ErrorCode.INVALID_TXN_STATE),
        ("CONCURRENT_TRANSACTIONS", ErrorCode.CONCURRENT_TRANSACTIONS),
        ("UNSUPPORTED_COMPRESSION_TYPE", ErrorCode.UNSUPPORTED_COMPRESSION_TYPE),
        ("KAFKA_STORAGE_ERROR", ErrorCode.KAFKA_STORAGE_ERROR),
        ("INVALID_TIMESTAMP", ErrorCode.INVALID_TIMESTAMP),
    ],
)
def test_produce_errors_by_kafka_s_name(kafka: str, code: ErrorCode) -> None:
    (k,) = [k for k in range(-1, 200) if error_name(k) == kafka]
    assert sluice_code(k) is code


@pytest.mark.parametrize(
    ("kafka", "cls", "status"),
    [
        (45, Conflict, 409),  # OUT_OF_ORDER_SEQUENCE_NUMBER
        (2, InvalidRequest, 400),  # CORRUPT_MESSAGE
        (3, NotFound, 404),  # UNKNOWN_TOPIC_OR_PARTITION
        (10, TooLarge, 413),  # MESSAGE_TOO_LARGE
        (56, StorageError, 507),  # KAFKA_STORAGE_ERROR
        (29, SluiceError, 403),  # TOPIC_AUTHORIZATION_FAILED
    ],
)
def test_the_error_is_of_the_class_of_its_status(
    kafka: int, cls: type[SluiceError], status: int
) -> None:
    error = to_sluice(kafka, "the broker's message", "orders-0")
    assert type(error) is cls
    assert error.code.status == status
    assert error.message == f"orders-0: {error_name(kafka)}: the broker's message"


def test_a_broker_away_is_a_retriable_503_with_kafka_s_name() -> None:
    """A leader being elected, too few in-sync replicas, a coordinator moving: what clients
    meet while a broker fails over is retriable, never a 500."""
    assert not UNAVAILABLE & KAFKA_TO_SLUICE.keys() and not UNAVAILABLE & UNMAPPED
    names = {error_name(k) for k in UNAVAILABLE}
    assert {
        "LEADER_NOT_AVAILABLE",
        "NOT_LEADER_OR_FOLLOWER",
        "NOT_ENOUGH_REPLICAS",
        "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
        "REQUEST_TIMED_OUT",
        "COORDINATOR_NOT_AVAILABLE",
        "NOT_COORDINATOR",
    } <= names
    for k in UNAVAILABLE:
        error = to_sluice(k, None, "orders-0")
        assert type(error) is Unavailable
        assert (error.code, error.code.status, error.code.retriable) == (
            ErrorCode.CLUSTER_UNAVAILABLE,
            503,
            True,
        )
        assert error.message == f"orders-0: {error_name(k)}"


def test_no_answer_from_the_cluster_is_a_retriable_503_and_a_garbled_one_internal() -> None:
    closed = from_protocol(ConnectionClosedError("no broker answered: 127.0.0.1:9 refused"))
    timed_out = from_protocol(RequestTimeoutError("Produce timed out after 30 s"))
    for error in (closed, timed_out):
        assert type(error) is Unavailable and error.code is ErrorCode.CLUSTER_UNAVAILABLE
    assert "no broker answered" in closed.message
    assert from_protocol(DecodeError("truncated")).code is ErrorCode.INTERNAL


def test_codes_the_contract_lacks_are_internal_with_kafka_s_name() -> None:
    assert not UNMAPPED & KAFKA_TO_SLUICE.keys()
    names = {error_name(k) for k in UNMAPPED}
    assert {"TRANSACTION_ABORTABLE", "UNKNOWN_SERVER_ERROR"} <= names
    for k in UNMAPPED:
        error = to_sluice(k, None, "orders-0")
        assert error.code is ErrorCode.INTERNAL
        assert error.message == f"the Kafka cluster answered orders-0: {error_name(k)}"
    # a code of a later release than the table knows
    assert to_sluice(999).code is ErrorCode.INTERNAL


def test_a_quota_refusal_carries_the_answer_s_throttle_time() -> None:
    error = to_sluice(89, None, "orders-0", throttle_ms=2_500)
    assert isinstance(error, Throttled)
    assert (error.code, error.throttle_ms, error.retry_after_s) == (
        ErrorCode.THROTTLING_QUOTA_EXCEEDED,
        2_500,
        3,
    )


def test_a_duplicate_is_no_error() -> None:
    assert error_name(DUPLICATE_SEQUENCE_NUMBER) == "DUPLICATE_SEQUENCE_NUMBER"
    assert DUPLICATE_SEQUENCE_NUMBER not in KAFKA_TO_SLUICE
    assert DUPLICATE_SEQUENCE_NUMBER not in UNMAPPED
