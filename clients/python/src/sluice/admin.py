"""Topics and their configuration (the start of the admin surface): ``Admin`` for ``Sluice``,
``AsyncAdmin`` for ``AsyncSluice``; each method is one ``Call``, built once in ``calls``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from sluice._core import Call, as_object, nothing

if TYPE_CHECKING:
    from sluice.client import AsyncSluice, Sluice


def _topics(body: Any) -> list[dict[str, Any]]:
    return list(body["topics"])


class calls:
    @staticmethod
    def create_topic(
        name: str, partitions: int = 1, config: dict[str, int] | None = None
    ) -> Call[dict[str, Any]]:
        body: dict[str, Any] = {"name": name, "partitions": partitions}
        if config:
            body["config"] = config
        return Call("POST", "/v1/topics", as_object, json=body)

    @staticmethod
    def list_topics() -> Call[list[dict[str, Any]]]:
        return Call("GET", "/v1/topics", _topics, safe=True)

    @staticmethod
    def describe_topic(name: str) -> Call[dict[str, Any]]:
        return Call("GET", f"/v1/topics/{quote(name, safe='')}", as_object, safe=True)

    @staticmethod
    def alter_topic(
        name: str, *, partitions: int | None = None, config: dict[str, int | None] | None = None
    ) -> Call[dict[str, Any]]:
        body: dict[str, Any] = {}
        if partitions is not None:
            body["partitions"] = partitions
        if config is not None:
            body["config"] = config
        return Call("PATCH", f"/v1/topics/{quote(name, safe='')}", as_object, json=body, safe=True)

    @staticmethod
    def delete_topic(name: str) -> Call[None]:
        return Call("DELETE", f"/v1/topics/{quote(name, safe='')}", nothing, safe=True)


class Admin:
    def __init__(self, client: Sluice) -> None:
        self._c = client

    def create_topic(
        self, name: str, partitions: int = 1, config: dict[str, int] | None = None
    ) -> dict[str, Any]:
        return self._c.run(calls.create_topic(name, partitions, config))

    def list_topics(self) -> list[dict[str, Any]]:
        return self._c.run(calls.list_topics())

    def describe_topic(self, name: str) -> dict[str, Any]:
        return self._c.run(calls.describe_topic(name))

    def alter_topic(
        self,
        name: str,
        *,
        partitions: int | None = None,
        config: dict[str, int | None] | None = None,
    ) -> dict[str, Any]:
        return self._c.run(calls.alter_topic(name, partitions=partitions, config=config))

    def delete_topic(self, name: str) -> None:
        self._c.run(calls.delete_topic(name))


class AsyncAdmin:
    def __init__(self, client: AsyncSluice) -> None:
        self._c = client

    async def create_topic(
        self, name: str, partitions: int = 1, config: dict[str, int] | None = None
    ) -> dict[str, Any]:
        return await self._c.run(calls.create_topic(name, partitions, config))

    async def list_topics(self) -> list[dict[str, Any]]:
        return await self._c.run(calls.list_topics())

    async def describe_topic(self, name: str) -> dict[str, Any]:
        return await self._c.run(calls.describe_topic(name))

    async def alter_topic(
        self,
        name: str,
        *,
        partitions: int | None = None,
        config: dict[str, int | None] | None = None,
    ) -> dict[str, Any]:
        return await self._c.run(calls.alter_topic(name, partitions=partitions, config=config))

    async def delete_topic(self, name: str) -> None:
        await self._c.run(calls.delete_topic(name))
