"""The area parsers built on the kit: the typed values they hand on, and which fault of a body
with several is the one reported (the order the fields were always checked in)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from app.api.wire import groups, share, topics, txn
from app.config import Settings
from app.errors import ErrorCode, InvalidRequest, SluiceError
from app.groups.group import OffsetCommit
from app.share.partition import AckType

S = Settings(default_partitions=3, max_partitions=10, max_read_records=500, max_wait_ms=0)


def j(body: Any) -> bytes:
    return orjson.dumps(body)


def code_of(parse: Any, body: Any, s: Settings = S) -> ErrorCode:
    with pytest.raises(SluiceError) as info:
        parse(j(body), s)
    return info.value.code


# -- topics -------------------------------------------------------------------------------------


def test_create_defaults_and_typed_values() -> None:
    new = topics.parse_create(j({"name": "orders"}), S)
    assert new == topics.NewTopic("orders", 3, {})
    new = topics.parse_create(
        j({"name": "o", "partitions": 2, "config": {"retention_ms": -1, "segment_bytes": None}}), S
    )
    assert new == topics.NewTopic("o", 2, {"retention_ms": -1})
    # a null count is an absent one, as every null field is (it was refused)
    assert topics.parse_create(j({"name": "o", "partitions": None}), S).partitions == 3


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, ErrorCode.INVALID_TOPIC),
        ({"name": "bad name", "partitions": 0}, ErrorCode.INVALID_TOPIC),
        ({"name": "t", "partitions": True}, ErrorCode.INVALID_PARTITIONS),
        ({"name": "t", "partitions": 11}, ErrorCode.INVALID_PARTITIONS),
        ({"name": "t", "partitions": 0, "config": {"nope": "x"}}, ErrorCode.INVALID_PARTITIONS),
        ({"name": "t", "config": []}, ErrorCode.INVALID_CONFIG),
        ({"name": "t", "config": {"retention_ms": True}}, ErrorCode.INVALID_CONFIG),
        ({"name": "t", "config": {"segment_bytes": 1}}, ErrorCode.INVALID_CONFIG),
        ({"name": "t", "config": {"nope": 1}}, ErrorCode.INVALID_CONFIG),
    ],
)
def test_create_refuses_with_the_first_fault(body: dict[str, Any], code: ErrorCode) -> None:
    assert code_of(topics.parse_create, body) is code


def test_patch_keeps_null_config_values_for_the_registry_to_merge() -> None:
    assert topics.parse_patch(j({}), S) == topics.TopicChange(None, None)
    change = topics.parse_patch(j({"partitions": 4, "config": {"retention_ms": None}}), S)
    assert change == topics.TopicChange(4, {"retention_ms": None})
    assert code_of(topics.parse_patch, {"partitions": 0}) is ErrorCode.INVALID_PARTITIONS
    assert code_of(topics.parse_patch, {"config": {"x": 1}}) is ErrorCode.INVALID_CONFIG


def test_delete_records_has_floors_and_the_ceilings_of_the_types() -> None:
    body = {
        "partitions": [
            {"partition": 2**31 - 1, "before_offset": -1},
            {"partition": 0, "before_offset": 2**63 - 1},
        ]
    }
    assert topics.parse_delete_records(j(body), S) == [(2**31 - 1, -1), (0, 2**63 - 1)]
    bad: dict[str, Any]
    for bad in (
        {},
        {"partitions": []},
        {"partitions": [5]},
        {"partitions": [{"partition": -1, "before_offset": 0}]},
        {"partitions": [{"partition": 0, "before_offset": -2}]},
        {"partitions": [{"partition": 0, "before_offset": False}]},
        {"partitions": [{"partition": 2**31, "before_offset": 0}]},
        {"partitions": [{"partition": 0, "before_offset": 2**63}]},
    ):
        assert code_of(topics.parse_delete_records, bad) is ErrorCode.INVALID_REQUEST


# -- consumer groups ----------------------------------------------------------------------------


def test_heartbeat_becomes_the_domain_request() -> None:
    req = groups.parse_heartbeat(
        j(
            {
                "member_id": None,
                "member_epoch": 0,
                "subscribed_topics": ["a", "b"],
                "rebalance_timeout_ms": 5000,
                "owned_partitions": [{"topic": "a", "partitions": [1, 0]}],
            }
        ),
        S,
    )
    assert (req.member_id, req.member_epoch, req.instance_id) == (None, 0, None)
    assert req.subscribed == ["a", "b"] and req.rebalance_timeout_ms == 5000
    assert req.owned == frozenset({("a", 0), ("a", 1)})


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"member_epoch": None},
        {"member_epoch": -3},
        {"member_epoch": True},
        {"member_epoch": 0, "member_id": ""},
        {"member_epoch": 0, "group_instance_id": "a b"},
        {"member_epoch": 0, "subscribed_topics": "a"},
        {"member_epoch": 0, "subscribed_topics": ["a"] * 10_001},
        {"member_epoch": 0, "rebalance_timeout_ms": 999},
        {"member_epoch": 0, "owned_partitions": [{"topic": "a"}]},
        {"member_epoch": 0, "owned_partitions": [{"topic": "a", "partitions": [-1]}]},
    ],
)
def test_heartbeat_refuses(body: dict[str, Any]) -> None:
    assert code_of(groups.parse_heartbeat, body) is ErrorCode.INVALID_REQUEST


def test_group_bodies_refuse_dot_names_as_every_body_does() -> None:
    # they took . and .., which the OpenAPI document's one name rule refuses
    for dots in (".", ".."):
        body = {"member_epoch": 0, "subscribed_topics": [dots]}
        assert code_of(groups.parse_heartbeat, body) is ErrorCode.INVALID_REQUEST


def test_commit_becomes_offset_commits() -> None:
    req = groups.parse_commit(
        j(
            {
                "offsets": [
                    {"topic": "t", "partition": 1, "offset": 5},
                    {"topic": "t", "partition": 0, "offset": 0, "metadata": "m"},
                ]
            }
        ),
        S,
    )
    assert req == groups.CommitRequest(
        None, -1, [OffsetCommit("t", 1, 5), OffsetCommit("t", 0, 0, "m")]
    )
    # a member must say its epoch; a simple commit may say -1 only
    with pytest.raises(InvalidRequest, match="member_epoch is required"):
        groups.parse_commit(
            j({"member_id": "m", "offsets": [{"topic": "t", "partition": 0, "offset": 0}]}), S
        )
    assert code_of(groups.parse_commit, {"member_epoch": -2, "offsets": []}) is (
        ErrorCode.INVALID_REQUEST
    )
    too_long = {"offsets": [{"topic": "t", "partition": 0, "offset": 0, "metadata": "m" * 4097}]}
    assert code_of(groups.parse_commit, too_long) is ErrorCode.INVALID_REQUEST


# -- transactions -------------------------------------------------------------------------------


def test_txn_offsets_default_epoch_and_offset_commits() -> None:
    req = txn.parse_offsets(
        j(
            {
                "producer_id": 4,
                "producer_epoch": 0,
                "group_id": "g",
                "offsets": [{"topic": "t", "partition": 0, "offset": 9}],
            }
        ),
        S,
    )
    assert req == txn.TxnOffsets(4, 0, "g", None, -1, None, [OffsetCommit("t", 0, 9)])


def test_init_producer_timeout_type_has_its_own_code() -> None:
    assert txn.parse_init(b"", S) == txn.InitProducerRequest()
    assert txn.parse_init(j({}), S).transaction_timeout_ms == txn.DEFAULT_TXN_TIMEOUT_MS
    assert code_of(txn.parse_init, {"transaction_timeout_ms": "1"}) is (
        ErrorCode.INVALID_TRANSACTION_TIMEOUT
    )
    assert code_of(txn.parse_init, {"transaction_timeout_ms": True}) is (
        ErrorCode.INVALID_TRANSACTION_TIMEOUT
    )
    # the bounds are the coordinator's: any integer passes the wire
    assert txn.parse_init(j({"transaction_timeout_ms": -5}), S).transaction_timeout_ms == -5


# -- share groups -------------------------------------------------------------------------------


def test_share_bodies_read_nulls_as_absent_and_refuse_non_string_topics() -> None:
    # a null is an absent field, as everywhere (these two were refused, which the OpenAPI
    # document did not say)
    assert share.parse_heartbeat(j({"member_epoch": None}), S).member_epoch == 0
    assert share.parse_heartbeat(j({}), S).member_epoch == 0
    fetch = {"member_id": "m", "acquire_mode": None}
    assert not share.parse_fetch(j(fetch), S).record_limit
    assert not share.parse_fetch(j({"member_id": "m"}), S).record_limit
    bad: list[Any]
    for bad in ([1], [None], ["t", 2]):
        body: dict[str, Any] = {"member_epoch": 0, "subscribed_topics": bad}
        assert code_of(share.parse_heartbeat, body) is ErrorCode.INVALID_REQUEST
    body = {"member_epoch": 0, "subscribed_topics": ["no/slash"]}
    assert code_of(share.parse_heartbeat, body) is ErrorCode.INVALID_TOPIC


def test_a_fetch_by_acquisition_id() -> None:
    fetch = share.parse_fetch(j({"acquisition_id": "run1:0:0", "subscribed_topics": ["t"]}), S)
    assert (fetch.acquisition_id, fetch.member_id, fetch.subscribed_topics) == (
        "run1:0:0",
        None,
        ["t"],
    )
    assert share.parse_fetch(j({"member_id": "m"}), S).acquisition_id is None
    for body in (
        {"acquisition_id": "a", "member_id": "m", "subscribed_topics": ["t"]},
        {"acquisition_id": "a"},
        {"acquisition_id": "", "subscribed_topics": ["t"]},
        {"acquisition_id": "a", "subscribed_topics": ["t"], "acknowledgements": [{}]},
    ):
        assert code_of(share.parse_fetch, body) is ErrorCode.INVALID_REQUEST


def test_acknowledging_acquisitions() -> None:
    got = share.parse_acquisitions_ack(j({"acquisition_ids": ["a", "b"]}), S)
    assert got == share.AcquisitionsAcknowledge(["a", "b"], None, AckType.ACCEPT)
    got = share.parse_acquisitions_ack(j({"prefix": "run1:", "type": "reject"}), S)
    assert got == share.AcquisitionsAcknowledge(None, "run1:", AckType.REJECT)
    for body in ({}, {"acquisition_ids": [], "prefix": "a"}, {"prefix": "a", "type": "renew"}):
        assert code_of(share.parse_acquisitions_ack, body) is ErrorCode.INVALID_REQUEST
