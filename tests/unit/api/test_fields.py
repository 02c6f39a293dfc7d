"""The field kit: what each check takes, what it refuses, and the error it refuses with."""

from __future__ import annotations

from typing import Any

import pytest

from app.api.wire import _fields as f
from app.errors import ErrorCode, InvalidRequest


def refused(call: Any, *args: Any, **kwargs: Any) -> InvalidRequest:
    with pytest.raises(InvalidRequest) as info:
        call(*args, **kwargs)
    return info.value


# -- integer ------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, 1, 5, 10])
def test_integer_takes_the_bounds_and_between(value: int) -> None:
    assert f.integer(value, "n", 0, 10) == value


@pytest.mark.parametrize("value", [-1, 11, 2**64])
def test_integer_refuses_out_of_bounds(value: int) -> None:
    err = refused(f.integer, value, "offsets[2].partition", 0, 10)
    assert err.code is ErrorCode.INVALID_REQUEST
    assert err.message == "offsets[2].partition: expected an integer from 0 to 10"


@pytest.mark.parametrize("value", [True, False, 1.25, 0.5, float("nan"), "1", [1], {"n": 1}])
def test_integer_refuses_what_is_not_an_integer(value: Any) -> None:
    # True would otherwise pass as 1: bool is an int subclass
    err = refused(f.integer, value, "n", 0, 10)
    assert err.message == "n: expected an integer from 0 to 10"


def test_integer_says_required_for_null() -> None:
    assert refused(f.integer, None, "n", 0, 10).message == "n: required, an integer from 0 to 10"


def test_an_open_bound_is_that_of_a_64_bit_integer() -> None:
    # as the OpenAPI document states for every integer: a schema-valid 2**70 was refused
    # (read as a float) while 2**63 was taken, where the document promised neither
    assert f.integer(-(2**63), "n") == -(2**63)
    assert f.integer(2**63 - 1, "n", -1) == 2**63 - 1
    assert refused(f.integer, 2**63, "n").message == "n: expected an integer"
    assert refused(f.integer, -(2**63) - 1, "n", hi=3).message.startswith(
        "n: expected an integer from"
    )
    assert refused(f.integer, -2, "n", -1).message == "n: expected an integer ≥ -1"
    assert (
        refused(f.integer, 4, "n", hi=3).message == f"n: expected an integer from {-(2**63)} to 3"
    )
    assert refused(f.integer, True, "n").message == "n: expected an integer"


def test_integer_clamps_only_above() -> None:
    assert f.integer(10_000, "max_records", 1, 500, clamp=True) == 500
    assert f.integer(500, "max_records", 1, 500, clamp=True) == 500
    assert f.integer(7, "max_records", 1, 500, clamp=True) == 7
    # below the floor is still an error, and so is a wrong type
    refused(f.integer, 0, "max_records", 1, 500, clamp=True)
    refused(f.integer, True, "max_records", 1, 500, clamp=True)
    refused(f.integer, 10.5, "max_records", 1, 500, clamp=True)


def test_integer_carries_the_endpoint_code() -> None:
    err = refused(f.integer, "3", "partitions", code=ErrorCode.INVALID_PARTITIONS)
    assert err.code is ErrorCode.INVALID_PARTITIONS


# -- optional -----------------------------------------------------------------------------------


def test_optional_lets_null_through_and_checks_the_rest() -> None:
    assert f.optional(f.integer, None, "n", 0, 10) is None
    assert f.optional(f.integer, 3, "n", 0, 10) == 3
    assert f.optional(f.integer, 0, "n", 0, 10) == 0  # falsy but present
    assert refused(f.optional, f.integer, 11, "n", 0, 10).message == (
        "n: expected an integer from 0 to 10"
    )
    err = refused(f.optional, f.integer, False, "n", code=ErrorCode.INVALID_CONFIG)
    assert err.code is ErrorCode.INVALID_CONFIG


# -- strings, member ids ------------------------------------------------------------------------


def test_string_lengths() -> None:
    assert f.string("a", "s", 1, 3) == "a"
    assert f.string("abc", "s", 1, 3) == "abc"
    assert f.string("", "s", 0) == ""
    assert refused(f.string, "", "s", 1, 3).message == "s: expected a string of 1 to 3 characters"
    assert refused(f.string, "abcd", "s", 1, 3).message == (
        "s: expected a string of 1 to 3 characters"
    )
    assert refused(f.string, "abcd", "s", 0, 3).message == (
        "s: expected a string of at most 3 characters"
    )
    assert refused(f.string, "", "s").message == "s: expected a non-empty string"
    assert refused(f.string, "a", "s", 2).message == "s: expected a string of at least 2 characters"
    assert refused(f.string, 5, "s", 0).message == "s: expected a string"
    assert refused(f.string, None, "s", 0).message == "s: required, a string"


def test_member_id() -> None:
    assert f.member_id("m" * 255) == "m" * 255
    assert f.member_id("any chars / ok") == "any chars / ok"
    for bad in ("", "m" * 256, 7, True, ["m"]):
        assert refused(f.member_id, bad).message.startswith(
            "member_id: expected a string of 1 to 255 characters"
        )
    assert f.optional(f.member_id, None) is None


# -- names --------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["a", "orders.v2", "A-b_c.9", "x" * 249, "..."])
def test_name_takes_the_name_characters(value: str) -> None:
    assert f.name(value, "topic") == value


@pytest.mark.parametrize(
    "value", ["", "x" * 250, "no spaces", "ümlaut", "a/b", ".", "..", None, 5, True, ["a"]]
)
def test_name_refuses(value: Any) -> None:
    err = refused(f.name, value, "group_id")
    assert err.code is ErrorCode.INVALID_REQUEST
    assert err.message.startswith("group_id: ")


def test_name_code() -> None:
    assert refused(f.name, "a b", "name", code=ErrorCode.INVALID_TOPIC).code is (
        ErrorCode.INVALID_TOPIC
    )


# -- lists --------------------------------------------------------------------------------------


def test_array_sizes() -> None:
    assert f.array([], "xs") == []
    assert f.array([1, "a"], "xs", min_items=1) == [1, "a"]
    assert refused(f.array, [], "xs", min_items=1).message == "xs: expected a non-empty list"
    assert refused(f.array, [1, 2, 3], "xs", max_items=2).message == (
        "xs: expected a list of at most 2 items"
    )
    assert refused(f.array, [], "xs", min_items=1, max_items=2).message == (
        "xs: expected a list of 1 to 2 items"
    )
    assert refused(f.array, {"a": 1}, "xs").message == "xs: expected a list"
    assert refused(f.array, "ab", "xs").message == "xs: expected a list"
    assert refused(f.array, None, "xs").message == "xs: required, a list"


def test_names_checks_the_list_and_each_name() -> None:
    assert f.names(["a", "b"], "subscribed_topics", max_items=2) == ["a", "b"]
    assert f.names([], "subscribed_topics", max_items=2) == []
    err = refused(f.names, ["a", "b", "c"], "subscribed_topics", max_items=2)
    assert err.message == "subscribed_topics: expected a list of at most 2 items"
    err = refused(f.names, ["a", "b c"], "subscribed_topics", max_items=5)
    assert err.message.startswith("subscribed_topics[1]: expected a name")
    refused(f.names, ["a", 1], "subscribed_topics", max_items=5)
    refused(f.names, "a", "subscribed_topics", max_items=5)


# -- objects ------------------------------------------------------------------------------------


def test_obj() -> None:
    assert f.obj({"a": 1}, "o") == {"a": 1}
    assert refused(f.obj, [1], "offsets[0]").message == "offsets[0]: expected an object"
    assert refused(f.obj, "x", "h", '{"key": string}').message == 'h: expected {"key": string}'
    assert refused(f.obj, 3, "config", code=ErrorCode.INVALID_CONFIG).code is (
        ErrorCode.INVALID_CONFIG
    )
