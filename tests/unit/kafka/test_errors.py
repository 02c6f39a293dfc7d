"""Kafka's error codes as the table gives them, and the exception for a code."""

from __future__ import annotations

import pytest

from app.errors import ErrorCode
from app.kafka.protocol import errors


@pytest.mark.parametrize(
    ("code", "name", "retriable"),
    [
        (-1, "UNKNOWN_SERVER_ERROR", False),
        (0, "NONE", False),
        (3, "UNKNOWN_TOPIC_OR_PARTITION", True),
        (6, "NOT_LEADER_OR_FOLLOWER", True),
        (14, "COORDINATOR_LOAD_IN_PROGRESS", True),
        (16, "NOT_COORDINATOR", True),
        (25, "UNKNOWN_MEMBER_ID", False),
        (35, "UNSUPPORTED_VERSION", False),
        (47, "INVALID_PRODUCER_EPOCH", False),
        (51, "CONCURRENT_TRANSACTIONS", True),
        (58, "SASL_AUTHENTICATION_FAILED", False),
        (90, "PRODUCER_FENCED", False),
        (110, "FENCED_MEMBER_EPOCH", False),
        (121, "INVALID_RECORD_STATE", False),
        (122, "SHARE_SESSION_NOT_FOUND", True),
        (123, "INVALID_SHARE_SESSION_EPOCH", True),
        (133, "SHARE_SESSION_LIMIT_REACHED", True),
    ],
)
def test_well_known_codes(code: int, name: str, retriable: bool) -> None:
    assert errors.error_info(code) == errors.ErrorInfo(code, name, retriable)
    assert errors.CODES_BY_NAME[name] == code


def test_the_table_is_dense_from_minus_one_and_names_are_unique() -> None:
    codes = sorted(errors.ERRORS)
    assert codes == list(range(-1, codes[-1] + 1))
    assert len(errors.CODES_BY_NAME) == len(errors.ERRORS)


def test_a_code_from_a_later_release_is_named_and_not_retriable() -> None:
    assert errors.error_info(9999) == errors.ErrorInfo(9999, "UNKNOWN_ERROR_9999", False)


# our codes whose Kafka condition Kafka names otherwise
RENAMED = {
    "INVALID_TOPIC": "INVALID_TOPIC_EXCEPTION",
    "UNAUTHENTICATED": "SASL_AUTHENTICATION_FAILED",
    "PENDING_TRANSACTION": "UNSTABLE_OFFSET_COMMIT",
    "RECORD_TOO_LARGE": "MESSAGE_TOO_LARGE",
    "INTERNAL": "UNKNOWN_SERVER_ERROR",
}


def test_the_kafka_codes_of_our_own_errors_are_kafkas_codes_for_the_same_condition() -> None:
    checked = 0
    for code in ErrorCode:
        if code.kafka_code is not None:
            assert errors.error_name(code.kafka_code) == RENAMED.get(code.name, code.name)
            checked += 1
    assert checked > 20


def test_a_broker_error_says_its_name_and_retriability() -> None:
    e = errors.BrokerError(16, "moved")
    assert (e.code, e.name, e.retriable) == (16, "NOT_COORDINATOR", True)
    assert str(e) == "NOT_COORDINATOR (16): moved"
