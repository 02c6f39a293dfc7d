"""``Sluice`` and ``AsyncSluice``: one connection pool each, the same names and methods, the
async twin's methods awaited (as httpx has ``Client`` and ``AsyncClient``)."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType
from typing import TYPE_CHECKING, Literal, Self, TypeVar

import httpx

from sluice._core import Call, Settings, Wire, answer, attempts, request_args, retry_after

if TYPE_CHECKING:
    from sluice.consumer import AsyncShareConsumer, ShareConsumer
    from sluice.groups import AsyncConsumer, Consumer
    from sluice.producer import AsyncProducer, Producer
    from sluice.transactions import AsyncTransactionalProducer, TransactionalProducer

T = TypeVar("T")


class Sluice:
    """A client of one Sluice server.

    ``url`` (default ``SLUICE_URL``, else http://127.0.0.1:8080), ``api_key`` (default
    ``SLUICE_API_KEY``; needed once the server has keys), ``timeout`` per request in seconds,
    ``retries`` of retriable errors with exponential back-off from ``backoff`` seconds;
    ``wire`` how records travel: ``"batches"`` (Kafka's record batches, the default) or
    ``"json"``."""

    def __init__(
        self,
        url: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        retries: int = 5,
        backoff: float = 0.1,
        wire: Wire = "batches",
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        from sluice.admin import Admin

        self.settings = Settings.of(url, api_key, timeout, retries, backoff, wire)
        self._pool: ThreadPoolExecutor | None = None
        self._http = httpx.Client(
            base_url=self.settings.url,
            headers=self.settings.headers(),
            timeout=timeout,
            transport=transport,
        )
        self.admin = Admin(self)

    def run(self, call: Call[T]) -> T:
        """Send ``call``, retrying what may be retried; its result, or the error it ends with."""
        last: BaseException | None = None
        for wait in attempts(self.settings, call):
            if wait:
                time.sleep(wait)
            try:
                response = self._http.request(call.method, call.path, **request_args(call))
                return answer(call, response)
            except Exception as exc:
                least = retry_after(exc, call)
                if least is None:
                    raise
                last = exc
                if least:
                    time.sleep(least)
        assert last is not None
        raise last  # every attempt failed with an error worth retrying

    def run_all(self, calls: list[Call[T]]) -> list[T | BaseException]:
        """Send ``calls`` side by side (a producer's batches of several partitions, one request
        each); the result or the error of each, in order."""
        if len(calls) == 1:
            try:
                return [self.run(calls[0])]
            except Exception as exc:
                return [exc]
        if self._pool is None:
            self._pool = ThreadPoolExecutor(8, thread_name_prefix="sluice-send")
        futures = [self._pool.submit(self.run, call) for call in calls]
        out: list[T | BaseException] = []
        for f in futures:
            error = f.exception()
            out.append(f.result() if error is None else error)
        return out

    def producer(self, *, linger: float = 0.005, max_batch: int = 500) -> Producer:
        from sluice.producer import Producer

        return Producer(self, linger=linger, max_batch=max_batch)

    def consumer(
        self,
        group_id: str,
        *,
        auto_offset_reset: Literal["earliest", "latest"] = "latest",
        max_records: int = 500,
    ) -> Consumer:
        """A consumer-group member (``subscribe`` joins)."""
        from sluice.groups import Consumer

        return Consumer(
            self, group_id, auto_offset_reset=auto_offset_reset, max_records=max_records
        )

    def share_consumer(
        self,
        group_id: str,
        *,
        max_records: int = 500,
        acknowledgement_mode: Literal["implicit", "explicit"] = "implicit",
        acquire_mode: Literal["batch_optimized", "record_limit"] = "batch_optimized",
        push: bool = False,
        credits: int = 100,
        auto_renew: bool = False,
    ) -> ShareConsumer:
        """A share-group consumer; ``push`` takes records over the WebSocket."""
        from sluice.consumer import ShareConsumer

        return ShareConsumer(
            self,
            group_id,
            max_records=max_records,
            acknowledgement_mode=acknowledgement_mode,
            acquire_mode=acquire_mode,
            push=push,
            credits=credits,
            auto_renew=auto_renew,
        )

    def transactional_producer(
        self, transactional_id: str, *, transaction_timeout_ms: int = 60_000, max_batch: int = 500
    ) -> TransactionalProducer:
        """A ``TransactionalProducer``, initialised (the transactional id is taken)."""
        from sluice.transactions import TransactionalProducer

        producer = TransactionalProducer(
            self,
            transactional_id,
            transaction_timeout_ms=transaction_timeout_ms,
            max_batch=max_batch,
        )
        producer.init()
        return producer

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class AsyncSluice:
    """``Sluice``'s twin for asyncio: the same arguments, every method awaited."""

    def __init__(
        self,
        url: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        retries: int = 5,
        backoff: float = 0.1,
        wire: Wire = "batches",
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        from sluice.admin import AsyncAdmin

        self.settings = Settings.of(url, api_key, timeout, retries, backoff, wire)
        self._http = httpx.AsyncClient(
            base_url=self.settings.url,
            headers=self.settings.headers(),
            timeout=timeout,
            transport=transport,
        )
        self.admin = AsyncAdmin(self)

    async def run(self, call: Call[T]) -> T:
        last: BaseException | None = None
        for wait in attempts(self.settings, call):
            if wait:
                await asyncio.sleep(wait)
            try:
                response = await self._http.request(call.method, call.path, **request_args(call))
                return answer(call, response)
            except Exception as exc:
                least = retry_after(exc, call)
                if least is None:
                    raise
                last = exc
                if least:
                    await asyncio.sleep(least)
        assert last is not None
        raise last  # every attempt failed with an error worth retrying

    async def run_all(self, calls: list[Call[T]]) -> list[T | BaseException]:
        """As ``Sluice.run_all``: the calls at once, the result or the error of each."""
        if len(calls) == 1:
            try:
                one: T = await self.run(calls[0])
            except Exception as exc:
                return [exc]
            return [one]
        return await asyncio.gather(*(self.run(c) for c in calls), return_exceptions=True)

    def producer(self, *, linger: float = 0.005, max_batch: int = 500) -> AsyncProducer:
        from sluice.producer import AsyncProducer

        return AsyncProducer(self, linger=linger, max_batch=max_batch)

    def consumer(
        self,
        group_id: str,
        *,
        auto_offset_reset: Literal["earliest", "latest"] = "latest",
        max_records: int = 500,
    ) -> AsyncConsumer:
        """A consumer-group member (``await subscribe`` joins)."""
        from sluice.groups import AsyncConsumer

        return AsyncConsumer(
            self, group_id, auto_offset_reset=auto_offset_reset, max_records=max_records
        )

    def share_consumer(
        self,
        group_id: str,
        *,
        max_records: int = 500,
        acknowledgement_mode: Literal["implicit", "explicit"] = "implicit",
        acquire_mode: Literal["batch_optimized", "record_limit"] = "batch_optimized",
        push: bool = False,
        credits: int = 100,
        auto_renew: bool = False,
    ) -> AsyncShareConsumer:
        from sluice.consumer import AsyncShareConsumer

        return AsyncShareConsumer(
            self,
            group_id,
            max_records=max_records,
            acknowledgement_mode=acknowledgement_mode,
            acquire_mode=acquire_mode,
            push=push,
            credits=credits,
            auto_renew=auto_renew,
        )

    async def transactional_producer(
        self, transactional_id: str, *, transaction_timeout_ms: int = 60_000, max_batch: int = 500
    ) -> AsyncTransactionalProducer:
        from sluice.transactions import AsyncTransactionalProducer

        producer = AsyncTransactionalProducer(
            self,
            transactional_id,
            transaction_timeout_ms=transaction_timeout_ms,
            max_batch=max_batch,
        )
        await producer.init()
        return producer

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
