"""The scan of JSON text before it is parsed counts exactly the values (and keys; an empty
array or object twice) and the nesting that the parser builds, whatever the strings hold
(brackets, commas, colons, quotes, backslashes), and never less than the parser would build
before the first error of a body that is not valid JSON."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.api.wire.bounded_json import check
from app.errors import ErrorCode, SluiceError

# strings full of what the scan must not take for structure
tricky = st.text(alphabet=st.sampled_from('[]{},:"\\/ aé\n\t\x00\u2028😀'), max_size=12)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**63), 2**64 - 1), st.floats(allow_nan=False), tricky
)
documents: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(tricky, inner, max_size=5)
    ),
    max_leaves=60,
)


def values(v: Any) -> int:
    """What the parser builds: every value, and every key of an object; what the scan counts
    (an empty array or object twice)."""
    if isinstance(v, list):
        return 1 + (sum(values(x) for x in v) if v else 1)
    if isinstance(v, dict):
        return 1 + (sum(1 + values(x) for x in v.values()) if v else 1)
    return 1


def depth(v: Any) -> int:
    if isinstance(v, list):
        return 1 + max((depth(x) for x in v), default=0)
    if isinstance(v, dict):
        return 1 + max((depth(x) for x in v.values()), default=0)
    return 0


def code_of(raw: bytes, max_values: int, max_depth: int) -> str | None:
    try:
        check(raw, max_values, max_depth)
    except SluiceError as exc:
        return exc.code.name
    return None


@settings(max_examples=500, deadline=None)
@given(doc=documents, indent=st.booleans())
def test_the_count_and_the_depth_are_the_parsers(doc: Any, indent: bool) -> None:
    raw = orjson.dumps(doc, option=orjson.OPT_INDENT_2 if indent else 0)
    n, d = values(doc), depth(doc)
    assert code_of(raw, n, max(d, 1)) is None
    if n > 1:
        assert code_of(raw, n - 1, 200) == "REQUEST_TOO_COMPLEX", raw
    if d > 1:
        assert code_of(raw, 10**9, d - 1) == "REQUEST_TOO_COMPLEX", raw


@pytest.mark.parametrize(
    "raw",
    [
        rb'["\"[[[", "\\", "\\\"]]]", "\u0022[", "a\\\\\"{"]',
        b'{"[": "]", "{": {"}": [",", ":"]}, "\\"": ["\\\\"]}',
        b'  [ [ ] , { } , [ { "a" : [ ] } ] ]  ',
        b'"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["',
    ],
)
def test_hand_written_strings(raw: bytes) -> None:
    doc = orjson.loads(raw)
    assert code_of(raw, values(doc), max(depth(doc), 1)) is None
    if values(doc) > 1:
        assert code_of(raw, values(doc) - 1, 200) == "REQUEST_TOO_COMPLEX"


def test_a_body_that_is_not_json_is_counted_up_to_its_first_error() -> None:
    """The parser builds everything before the first error: the scan counts it (and within
    the bounds, leaves the error to the parser, or finds the brackets unmatched)."""
    valid = b"[" + b"[]," * 1000
    for tail in (b"", b"x", b'"', b'"]]]', b"\\", b"]]]]"):
        assert code_of(valid + tail, 1999, 200) == "REQUEST_TOO_COMPLEX", tail
        assert code_of(valid + tail, 2002, 200) in (None, "INVALID_REQUEST"), tail


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b"[" * 5000, ErrorCode.INVALID_REQUEST),  # never closed
        (b"[" * 100_000, ErrorCode.REQUEST_TOO_COMPLEX),  # and 100,000 values begun
        (b"[[]" * 40 + b"]" * 5000, ErrorCode.INVALID_REQUEST),
        # too few opened to nest too deep: left to the parser, which stops at the first extra
        (b"[]" + b"]" * 5000, None),
        (b"[" * 65 + b"]" * 65, ErrorCode.REQUEST_TOO_COMPLEX),
        (b'{"a":' * 65 + b"1" + b"}" * 65, ErrorCode.REQUEST_TOO_COMPLEX),
        (b"[" + b"[]," * 10_000 + b"[]]", ErrorCode.REQUEST_TOO_COMPLEX),
        (b"[" + b'"",' * 10_000 + b'""]', ErrorCode.REQUEST_TOO_COMPLEX),
        (b"[" + b'",",' * 10_000 + b'","]', ErrorCode.REQUEST_TOO_COMPLEX),
        (b'{"a":' + b"[0," * 60 + b"0" + b"]" * 60 + b"}", None),
        (b'["' + b"[{,:" * 50_000 + b'"]', None),  # one string of 200,000 brackets
    ],
)
def test_bounds(raw: bytes, code: ErrorCode | None) -> None:
    assert code_of(raw, 10_000, 64) == (None if code is None else code.name)


def test_the_strings_are_dropped_a_slice_at_a_time() -> None:
    """Strings that cross the slices of the split, with and without structure in them."""
    items = [("[" * (i % 7)) + "x" * (i * 7919 % 70_000) for i in range(40)]
    raw = orjson.dumps(items)
    assert len(raw) > 4 * 64 * 1024
    assert code_of(raw, 41, 1) is None
    assert code_of(raw, 40, 1) == "REQUEST_TOO_COMPLEX"
