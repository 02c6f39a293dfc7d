"""The connector's requests: one blocking HTTP client per Spark task or driver step.

Created lazily where it is used (a driver step, a task) and never pickled. A sink task sends
its partitions' record batches from a few threads at once through the same client (a pool of
connections, safe to share between threads). An error answer
raises the Python client's class for its code (``sluice.errors``); a call is tried again on a
retriable code and on a connection that failed before the request left. ``safe`` calls
(reads, and writes the server recognises when repeated: produce with sequences, a commit of
several transactions, acknowledging an acquisition) are also tried again after a lost answer.
"""

from __future__ import annotations

import random
import time
from typing import Any

import httpx
import orjson
from sluice.errors import error_from, is_retriable

from sluice_spark.options import Options

_JSON = {"Content-Type": "application/json"}


class Connection:
    def __init__(self, opts: Options) -> None:
        self.opts = opts
        self._client: httpx.Client | None = None

    @property
    def client(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(
                base_url=self.opts.url,
                headers=self.opts.http_headers,
                timeout=self.opts.request_timeout_ms / 1000,
            )
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def call(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: dict[str, Any] | None = None,
        safe: bool = True,
        raw: bool = False,
        content: bytes | None = None,
        content_type: str | None = None,
    ) -> Any:
        """The decoded JSON answer (None for 204), or with ``raw`` its bytes. The body is
        ``json`` encoded, or ``content`` as it is with its ``content_type``."""
        headers = _JSON
        if json is not None:
            content = orjson.dumps(json)
        elif content is not None and content_type is not None:
            headers = {"Content-Type": content_type}
        delay = 0.05
        for attempt in range(self.opts.retries + 1):
            last = attempt == self.opts.retries
            try:
                r = self.client.request(
                    method,
                    path,
                    content=content,
                    params=params,
                    headers=headers if content is not None else None,
                )
            except (httpx.ConnectError, httpx.ConnectTimeout):
                if last:
                    raise
            except httpx.TransportError:
                if last or not safe:
                    raise
            else:
                if r.status_code < 400:
                    if raw:
                        return r.content
                    return orjson.loads(r.content) if r.content else None
                try:
                    body = orjson.loads(r.content)
                except orjson.JSONDecodeError:
                    body = None
                err = error_from(r.status_code, body)
                if last or not is_retriable(err):
                    raise err
                if err.throttle_time_ms:
                    delay = max(delay, err.throttle_time_ms / 1000)
            time.sleep(min(delay, 2.0) * (0.5 + random.random() / 2))
            delay *= 2
        raise AssertionError("unreachable")

    def get(self, path: str, **params: Any) -> Any:
        return self.call("GET", path, params=params or None)

    def get_bytes(self, path: str, **params: Any) -> bytes:
        body: bytes = self.call("GET", path, params=params or None, raw=True)
        return body

    def post(self, path: str, body: Any, *, safe: bool = True) -> Any:
        return self.call("POST", path, json=body, safe=safe)

    def post_bytes(
        self, path: str, body: bytes, content_type: str, *, params: dict[str, Any] | None = None
    ) -> Any:
        """POST ``body`` as it is; the call is safe (a produce of sequenced batches)."""
        return self.call("POST", path, params=params, content=body, content_type=content_type)
