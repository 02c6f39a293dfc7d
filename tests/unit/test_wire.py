"""The fast produce path must give exactly what the general record parser gives: the same
records, or the same error."""

from __future__ import annotations

import base64
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.api.wire import records as wire
from app.api.wire.body import integral
from app.errors import SluiceError

b64_text = st.binary(max_size=20).map(lambda b: base64.b64encode(b).decode())
text = st.one_of(st.none(), st.text(max_size=20), b64_text, st.sampled_from(["QR==", "QQ=", "Q"]))
plain = st.fixed_dictionaries(
    {}, optional={"key": text, "value": text, "partition": st.integers(0, 2**31 - 1)}
)
odd: st.SearchStrategy[Any] = st.one_of(
    st.fixed_dictionaries({"value": st.integers()}),
    st.fixed_dictionaries({"key": st.integers(), "value": text}),
    st.fixed_dictionaries({"value": text, "headers": st.just([])}),
    st.fixed_dictionaries({"value": text, "timestamp": st.integers(0, 10)}),
    st.fixed_dictionaries({"value": text, "encoding": st.sampled_from(wire.ENCODINGS)}),
    # json values: nested, beyond 64 bits, beyond a double
    st.fixed_dictionaries(
        {
            "key": st.one_of(st.lists(st.integers(), max_size=3), st.just(2**70)),
            "value": st.one_of(
                st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
                st.just(10**400),
                st.just([-(2**64)]),
            ),
        }
    ),
)


def _outcome(call: Any) -> Any:
    try:
        return call()
    except SluiceError as exc:
        return (exc.code, exc.message)


@pytest.mark.parametrize("encoding", ["utf8", "base64", "json"])
@settings(max_examples=300, deadline=None)
@given(records=st.lists(st.one_of(plain, odd), min_size=1, max_size=8))
def test_fast_path_equals_the_general_path(encoding: str, records: list[Any]) -> None:
    declared = msgspec.convert(records, list[wire.WireRecord])
    fast = _outcome(lambda: wire.parse_records(declared, encoding, 7, 1 << 20))
    general = _outcome(
        lambda: [
            wire.parse_record(r, f"records[{i}]", encoding, 7, 1 << 20)
            for i, r in enumerate(declared)
        ]
    )
    assert fast == general


def test_oversized_records_are_refused_on_the_fast_path_too() -> None:
    for value, encoding in (("x" * 100, "utf8"), ("eHh4" * 25, "base64"), ("x" * 100, "json")):
        declared = [wire.WireRecord(value=value)]
        with pytest.raises(SluiceError) as err:
            wire.parse_records(declared, encoding, 1, 64)
        assert err.value.code.name == "RECORD_TOO_LARGE"


def test_an_integral_number_is_an_integer_as_json_schema_says() -> None:
    assert integral(3.0) == 3 and type(integral(1e2)) is int
    for other in (0.5, True, "3", float("inf"), 1e300):
        assert integral(other) is other
