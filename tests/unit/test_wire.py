"""The fast produce parser must give exactly what the general parser gives, or step aside."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.api.wire import records as wire
from app.errors import InvalidRequest

b64_text = st.binary(max_size=20).map(lambda b: base64.b64encode(b).decode())
text = st.one_of(st.none(), st.text(max_size=20), b64_text, st.sampled_from(["QR==", "QQ=", "Q"]))
plain = st.fixed_dictionaries(
    {}, optional={"key": text, "value": text, "partition": st.integers(0, 2**31 - 1)}
)
odd: st.SearchStrategy[Any] = st.one_of(
    st.fixed_dictionaries({"value": st.integers()}),
    st.fixed_dictionaries(
        {
            "partition": st.one_of(
                st.booleans(), st.integers(-5, -1), st.just(2**31), st.text(max_size=3)
            )
        }
    ),
    st.fixed_dictionaries({"value": text, "headers": st.just([])}),
    st.fixed_dictionaries({"value": text, "timestamp": st.integers(0, 10)}),
    st.lists(st.integers(), max_size=2),
)


@pytest.mark.parametrize("encoding", ["utf8", "base64"])
@settings(max_examples=300, deadline=None)
@given(records=st.lists(st.one_of(plain, odd), min_size=1, max_size=8))
def test_fast_path_equals_the_general_path(encoding: str, records: list[Any]) -> None:
    fast = wire._parse_plain(records, encoding == "base64", 7, 1 << 20)
    try:
        general = [wire.parse_record(r, i, encoding, 7, 1 << 20) for i, r in enumerate(records)]
    except InvalidRequest:
        assert fast is None  # the general path gives the precise error
        return
    if fast is not None:
        assert fast == general
    else:
        assert any(not isinstance(r, dict) or not wire._PLAIN_KEYS.issuperset(r) for r in records)


def test_oversized_records_leave_the_fast_path() -> None:
    assert wire._parse_plain([{"value": "x" * 100}], False, 1, 64) is None
    assert wire._parse_plain([{"value": "eHh4" * 25}], True, 1, 64) is None


def test_an_integral_number_is_an_integer_as_json_schema_says() -> None:
    from app.api.wire._fields import integer
    from app.errors import SluiceError

    assert integer(3.0, "n", 0, 10) == 3 and type(integer(1e2, "n", 0, 1000)) is int
    for bad in (0.5, True, "3", float("inf"), 1e300):
        with pytest.raises(SluiceError):
            integer(bad, "n", 0, 10**400)
