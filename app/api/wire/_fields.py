"""The field kit: the checks every body parser of this package is built on.

Each check takes a raw JSON value and ``where``, the field's path in the body (``offsets[3]
.partition``), and returns the value typed or raises ``InvalidRequest`` naming ``where``. The
error code is ``INVALID_REQUEST`` unless the caller passes the more specific one its endpoint
documents (``INVALID_PARTITIONS``, ``INVALID_CONFIG``, …). A JSON null reads as absent: a
required field that is null is refused as missing, and ``optional`` turns any check into one
that lets null through.

A JSON boolean is never an integer here, although Python's ``bool`` is an ``int``: ``true``
would otherwise be taken as partition 1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

from app.errors import ErrorCode, InvalidRequest
from app.topics import is_valid_name

MAX_INT32 = 2**31 - 1
MAX_INT64 = 2**63 - 1
MEMBER_ID_MAX_CHARS = 255

_P = ParamSpec("_P")
_T = TypeVar("_T")


def _refuse(value: Any, where: str, expected: str, code: ErrorCode) -> InvalidRequest:
    if value is None:
        return InvalidRequest(code, f"{where}: required, {expected}")
    return InvalidRequest(code, f"{where}: expected {expected}")


def _sized(kind: str, unit: str, lo: int, hi: int | None) -> str:
    """``a string of 1 to 5 characters``, ``a non-empty list``…: a length rule in words."""
    if hi is None:
        return {0: f"a {kind}", 1: f"a non-empty {kind}"}.get(
            lo, f"a {kind} of at least {lo} {unit}"
        )
    if lo == 0:
        return f"a {kind} of at most {hi} {unit}"
    return f"a {kind} of {lo} to {hi} {unit}"


def optional(
    check: Callable[Concatenate[Any, _P], _T], value: Any, *args: _P.args, **kwargs: _P.kwargs
) -> _T | None:
    """None for an absent or null field, else ``check(value, …)``."""
    return None if value is None else check(value, *args, **kwargs)


def default(value: Any, fallback: _T) -> Any:
    """``value``, or ``fallback`` when it is absent or null."""
    return fallback if value is None else value


def integral(value: Any) -> Any:
    """A number with a zero fraction (``3.0``, ``1e2``) as the integer it is, to JSON Schema
    and so to the OpenAPI document; any other value as it is."""
    if type(value) is float and value.is_integer() and abs(value) < 2**63:
        return int(value)
    return value


def integer(
    value: Any,
    where: str,
    lo: int | None = None,
    hi: int | None = None,
    *,
    clamp: bool = False,
    code: ErrorCode = ErrorCode.INVALID_REQUEST,
) -> int:
    """An integer (never a boolean) within ``[lo, hi]``; a bound left None is that of a 64-bit
    integer, the widest any field takes. With ``clamp`` a value above ``hi`` is taken as ``hi``
    (limits the server may lower)."""
    lo = -(2**63) if lo is None else lo
    hi = MAX_INT64 if hi is None else hi
    # ``type(...) is int`` refuses bool (a subclass) in the same test; JSON parsers give
    # exactly int, so no other subclass reaches here. A number with a zero fraction (``3.0``,
    # ``1e2``) is an integer to JSON Schema, and so to the OpenAPI document: taken as one.
    value = integral(value)
    if type(value) is int:
        if (lo is None or value >= lo) and (hi is None or value <= hi):
            return value
        if clamp and hi is not None and value > hi and (lo is None or hi >= lo):
            return hi
    if hi == MAX_INT64:
        expected = "an integer" if lo == -(2**63) else f"an integer ≥ {lo}"
    else:
        expected = f"an integer from {lo} to {hi}"
    raise _refuse(value, where, expected, code)


def string(
    value: Any,
    where: str,
    min_len: int = 1,
    max_len: int | None = None,
    *,
    code: ErrorCode = ErrorCode.INVALID_REQUEST,
) -> str:
    """A string of ``min_len`` to ``max_len`` characters (no upper bound when None)."""
    if (
        isinstance(value, str)
        and len(value) >= min_len
        and (max_len is None or len(value) <= max_len)
    ):
        return value
    raise _refuse(value, where, _sized("string", "characters", min_len, max_len), code)


def member_id(value: Any, where: str = "member_id") -> str:
    """A member id: 1 to 255 characters, any (the server issues them, clients may choose)."""
    return string(value, where, 1, MEMBER_ID_MAX_CHARS)


def name(value: Any, where: str, *, code: ErrorCode = ErrorCode.INVALID_REQUEST) -> str:
    """A topic, group or transactional id name (the rule is ``app.topics.is_valid_name``)."""
    if isinstance(value, str) and is_valid_name(value):
        return value
    raise _refuse(value, where, "a name of 1-249 characters of [A-Za-z0-9._-], not . or ..", code)


def array(
    value: Any,
    where: str,
    *,
    min_items: int = 0,
    max_items: int | None = None,
    code: ErrorCode = ErrorCode.INVALID_REQUEST,
) -> list[Any]:
    """A JSON array of ``min_items`` to ``max_items`` items (items unchecked)."""
    if (
        isinstance(value, list)
        and len(value) >= min_items
        and (max_items is None or len(value) <= max_items)
    ):
        return value
    raise _refuse(value, where, _sized("list", "items", min_items, max_items), code)


def names(
    value: Any,
    where: str,
    *,
    max_items: int,
    code: ErrorCode = ErrorCode.INVALID_REQUEST,
) -> list[str]:
    """A list of at most ``max_items`` names, each checked by ``name``."""
    return [
        name(n, f"{where}[{i}]", code=code)
        for i, n in enumerate(array(value, where, max_items=max_items, code=code))
    ]


def obj(
    value: Any,
    where: str,
    expected: str = "an object",
    *,
    code: ErrorCode = ErrorCode.INVALID_REQUEST,
) -> dict[str, Any]:
    """A JSON object; ``expected`` describes its shape in the error."""
    if isinstance(value, dict):
        return value
    raise _refuse(value, where, expected, code)
