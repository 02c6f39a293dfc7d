"""The body kit: a declaration decoded, and msgspec's refusals in the wire's words (the field's
path, then what it must be), with the code the body gives the field."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

import msgspec
import orjson
import pytest
from msgspec import Meta

from app.api.wire import body as kit
from app.config import Settings
from app.errors import ErrorCode, InvalidRequest, SluiceError

SETTINGS = Settings()


class Item(kit.Part):
    partition: kit.Partition
    name: kit.Name | None = None


class Sample(kit.Body, kw_only=True):
    codes: ClassVar[dict[str, ErrorCode]] = {"topic": ErrorCode.INVALID_TOPIC}
    rule_codes: ClassVar[dict[str, ErrorCode]] = {"names[]": ErrorCode.INVALID_TOPIC}

    items: Annotated[list[Item], Meta(min_length=1)]
    topic: kit.Name | None = None
    names: list[kit.Name] | None = None
    size: kit.Nullable[Annotated[int, Meta(ge=1, le=10)]] = 5
    member_id: kit.MemberId | None = None
    big: kit.Int64 | None = None
    label: Annotated[str, Meta(min_length=1, max_length=3)] | None = None


def decode(body: Any) -> Sample:
    return kit.decode(orjson.dumps(body), Sample, SETTINGS)


def refused(body: Any) -> InvalidRequest:
    with pytest.raises(InvalidRequest) as info:
        decode(body)
    return info.value


def test_a_body_decodes_and_a_null_reads_as_absent() -> None:
    b = decode({"items": [{"partition": 3}], "size": None})
    assert b.items == [Item(partition=3)] and b.size == 5
    assert decode({"items": [{"partition": 3}], "size": 7}).size == 7


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "items: required, a non-empty list"),
        ({"items": None}, "items: required, a non-empty list"),
        ({"items": []}, "items: expected a non-empty list"),
        ({"items": [5]}, "items[0]: expected an object"),
        ({"items": [{}]}, "items[0].partition: required, an integer from 0 to 2147483647"),
        (
            {"items": [{"partition": -1}]},
            "items[0].partition: expected an integer from 0 to 2147483647",
        ),
        (
            {"items": [{"partition": True}]},
            "items[0].partition: expected an integer from 0 to 2147483647",
        ),
        (
            {"items": [{"partition": 0.5}]},
            "items[0].partition: expected an integer from 0 to 2147483647",
        ),
        ({"items": [{"partition": 0, "name": "a b"}]}, "items[0].name: expected " + kit.NAME_WORDS),
        ({"items": [{"partition": 0}], "size": 11}, "size: expected an integer from 1 to 10"),
        (
            {"items": [{"partition": 0}], "member_id": ""},
            "member_id: expected a string of 1 to 255 characters",
        ),
        (
            {"items": [{"partition": 0}], "label": "abcd"},
            "label: expected a string of 1 to 3 characters",
        ),
        ({"items": [{"partition": 0}], "big": 2**63}, "big: expected an integer"),
        ([], "the body must be a JSON object"),
    ],
)
def test_refusals_name_the_field_and_what_it_must_be(body: Any, message: str) -> None:
    err = refused(body)
    assert (err.code, err.message) == (ErrorCode.INVALID_REQUEST, message)


def test_a_number_with_a_zero_fraction_is_the_integer() -> None:
    b = kit.decode(b'{"items": [{"partition": 3.0}], "size": 1e1}', Sample, SETTINGS)
    assert b.items[0].partition == 3 and type(b.size) is int and b.size == 10
    assert refused({"items": [{"partition": 3.5}]}).message.startswith("items[0].partition:")


def test_a_name_never_ends_with_a_newline() -> None:
    # msgspec checks patterns with Python's re, whose $ also matches before a final newline
    assert refused({"items": [{"partition": 0, "name": "orders\n"}]}).message.startswith(
        "items[0].name:"
    )
    assert refused({"items": [{"partition": 0}], "topic": ".."}).code is ErrorCode.INVALID_TOPIC


def test_codes_by_field_and_by_rule() -> None:
    assert refused({"items": [{"partition": 0}], "topic": 5}).code is ErrorCode.INVALID_TOPIC
    # a name breaking the rule takes the field's code; a value of the wrong type does not
    assert refused({"items": [{"partition": 0}], "names": ["a/b"]}).code is ErrorCode.INVALID_TOPIC
    assert refused({"items": [{"partition": 0}], "names": [5]}).code is ErrorCode.INVALID_REQUEST


def test_unknown_fields_of_a_closed_body() -> None:
    class Closed(kit.Body, forbid_unknown_fields=True):
        a: int | None = None
        b: int | None = None

    with pytest.raises(InvalidRequest) as info:
        kit.decode(b'{"a": 1, "c": 2}', Closed, SETTINGS)
    assert info.value.message == "unknown field 'c'; the body takes a, b"


def test_empty_malformed_and_too_complex_bodies() -> None:
    for raw in (b"", b"  ", b"{nope", b"\xff"):
        with pytest.raises(InvalidRequest):
            kit.decode(raw, Sample, SETTINGS)
    assert kit.decode(b"", kit.Body, SETTINGS, optional=True) == kit.Body()
    with pytest.raises(SluiceError) as err:
        kit.decode(b'{"items": ' + b"[" * 100 + b"]" * 100 + b"}", Sample, SETTINGS)
    assert err.value.code is ErrorCode.REQUEST_TOO_COMPLEX


def test_a_body_part_keeps_no_default_restoring() -> None:
    # the records of a produce request are Parts: no call per record
    assert "__post_init__" not in vars(kit.Part)
    assert msgspec.convert({"partition": 1}, Item).name is None


def test_fields_the_body_does_not_declare_are_skipped_and_still_read_as_json() -> None:
    b = kit.decode(
        b'{"items": [{"partition": 1, "x": [1, "a"]}], "y": {"z": null}}', Sample, SETTINGS
    )
    assert b.items == [Item(partition=1)] and b.size == 5
    for extra in (b"1e400", b"-1e400", b"9" * 400, b'"\xff\xfe"', b'{"\xff": 1}'):
        for raw in (
            b'{"items": [{"partition": 1}], "extra": ' + extra + b"}",
            b'{"items": [{"partition": 1, "extra": ' + extra + b"}]}",
            b'{"extra": ' + extra + b', "items": [{"partition": 1}]}',
        ):
            with pytest.raises(InvalidRequest) as info:
                kit.decode(raw, Sample, SETTINGS)
            assert info.value.code is ErrorCode.INVALID_REQUEST, raw
            assert info.value.message.startswith("the body is not valid JSON"), raw


def test_what_follows_a_fault_is_read_as_json_before_the_fault_is_named() -> None:
    for raw in (
        b'{"items": [], "extra": 1e400}',
        b'{"items": [{"partition": -1}], "topic": "\xff"}',
        b'{"size": 1.0, "items": [{"partition": 1}], "extra": ' + b"9" * 400 + b"}",
    ):
        with pytest.raises(InvalidRequest) as info:
            kit.decode(raw, Sample, SETTINGS)
        assert info.value.message.startswith("the body is not valid JSON"), raw


def test_a_body_decoded_equals_its_declaration_of_the_same_values() -> None:
    b = decode({"items": [{"partition": 3}], "topic": "t"})
    assert (
        b == Sample(items=[Item(partition=3)], topic="t")
        and Sample(items=[Item(partition=3)], topic="t") == b
    )
    assert b != Sample(items=[Item(partition=4)], topic="t")
    assert isinstance(b, Sample) and isinstance(b.items[0], Item)
