"""What the sync and async clients share: settings, requests as values, answers to values.

A ``Call`` is one HTTP request and how to read its answer; ``Sluice`` runs it with httpx's
``Client``, ``AsyncSluice`` with its ``AsyncClient``, both through ``attempts``: the same retry
schedule, for the same errors. Nothing here does I/O.
"""

from __future__ import annotations

import json
import os
import random
from binascii import a2b_base64, b2a_base64
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

import httpx

from sluice.errors import SluiceError, error_from, is_retriable

DEFAULT_URL = "http://127.0.0.1:8080"


def unbase64(v: str | None) -> bytes | None:
    """A base64 field of an answer as bytes (null stays None)."""
    return None if v is None else a2b_base64(v)


def base64_text(v: bytes | None) -> str | None:
    """Bytes as a base64 field of a request (None stays null)."""
    return None if v is None else b2a_base64(v, newline=False).decode("ascii")


def _std_encode(body: Any) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


try:  # the ``fast`` extra: the same JSON, several times faster to write and read
    import orjson

    def encode(body: Any) -> bytes:
        try:
            return orjson.dumps(body)
        except orjson.JSONEncodeError:  # an integer beyond 64 bits: the standard library's
            return _std_encode(body)

    def decode(data: bytes) -> Any:
        return orjson.loads(data)

except ImportError:  # pragma: no cover - the tests run with orjson installed
    encode = _std_encode

    def decode(data: bytes) -> Any:
        return json.loads(data)


JSON_HEADERS = {"content-type": "application/json"}

Wire = Literal["batches", "json"]
WIRES = ("batches", "json")


@dataclass(frozen=True, slots=True)
class Settings:
    """``url`` defaults to ``SLUICE_URL`` (else http://127.0.0.1:8080), ``api_key`` to
    ``SLUICE_API_KEY``; ``retries`` is how many times a retriable error (or a request that
    never reached the server) is tried again, with exponential back-off from ``backoff`` s.
    ``wire``: how records travel, as Kafka's record batches (``batches``, the default: encoded
    once, read without JSON) or as JSON records (``json``)."""

    url: str = ""
    api_key: str | None = None
    timeout: float = 30.0
    retries: int = 5
    backoff: float = 0.1
    max_backoff: float = 5.0
    wire: Wire = "batches"

    @classmethod
    def of(
        cls,
        url: str | None = None,
        api_key: str | None = None,
        timeout: float = 30.0,
        retries: int = 5,
        backoff: float = 0.1,
        wire: Wire = "batches",
    ) -> Settings:
        if wire not in WIRES:
            raise ValueError(f"wire: {wire!r}, expected one of {', '.join(WIRES)}")
        return cls(
            (url or os.environ.get("SLUICE_URL") or DEFAULT_URL).rstrip("/"),
            api_key if api_key is not None else os.environ.get("SLUICE_API_KEY") or None,
            timeout,
            retries,
            backoff,
            wire=wire,
        )

    def headers(self) -> dict[str, str]:
        h = {"user-agent": "sluice-python/0.1"}
        if self.api_key:
            h["authorization"] = f"Bearer {self.api_key}"
        return h


T = TypeVar("T")


def as_object(body: Any) -> dict[str, Any]:
    return dict(body)


def nothing(body: Any) -> None:
    return None


@dataclass(frozen=True, slots=True)
class Call(Generic[T]):
    """One request: ``read`` turns a successful answer's JSON (None for 204) into the result,
    or its bytes when ``binary``. The body is ``json``, or ``content`` as it is (its media type
    in ``headers``): a retry sends the same bytes. ``safe``: sending it twice does no harm, so a
    request whose answer was lost is retried."""

    method: str
    path: str
    read: Callable[[Any], T]
    json: Any = None
    params: dict[str, Any] | None = None
    safe: bool = False
    headers: dict[str, str] = field(default_factory=dict)
    # retriable codes this call must not retry itself (a transaction that timed out needs a
    # new epoch first: the caller's loop retries, after the producer recovered)
    final: frozenset[str] = frozenset()
    content: bytes | None = None
    binary: bool = False


def answer(call: Call[T], response: httpx.Response) -> T:
    """The result of a call from its answer; raises the error an error answer names."""
    if response.status_code >= 400:
        try:
            body = decode(response.content)
        except ValueError:
            body = None
        raise error_from(response.status_code, body)
    if call.binary:
        return call.read(response.content)
    if response.status_code == 204 or not response.content:
        return call.read(None)
    return call.read(decode(response.content))


def request_args(call: Call[Any]) -> dict[str, Any]:
    """httpx's arguments for ``call``: the body written once, by ``encode``."""
    if call.content is not None:
        return {"content": call.content, "params": call.params, "headers": call.headers}
    if call.json is None:
        return {"params": call.params, "headers": call.headers}
    return {
        "content": encode(call.json),
        "params": call.params,
        "headers": {**JSON_HEADERS, **call.headers},
    }


def attempts(settings: Settings, call: Call[Any]) -> Iterator[float]:
    """The waits (s) before each attempt: 0, then a jittered exponential back-off; ``retry``
    decides whether a failure takes the next one."""
    yield 0.0
    delay = settings.backoff
    for _ in range(settings.retries):
        yield min(delay, settings.max_backoff) * (0.5 + random.random() / 2)
        delay *= 2


def retry_after(error: BaseException, call: Call[Any]) -> float | None:
    """Whether a failed attempt is tried again: None if not, else the least wait the server
    asked for (Retry-After, as throttle_time_ms) or 0."""
    if isinstance(error, SluiceError):
        if not is_retriable(error) or error.code in call.final:
            return None
        return (error.throttle_time_ms or 0) / 1000
    if isinstance(error, httpx.ConnectError | httpx.ConnectTimeout):
        return 0.0  # never reached the server
    if isinstance(error, httpx.TransportError) and call.safe:
        return 0.0  # the answer was lost; sending again is harmless
    return None
