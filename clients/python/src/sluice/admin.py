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


def _p(name: str) -> str:
    return quote(name, safe="")


def _list_of(key: str) -> Any:
    def read(body: Any) -> list[dict[str, Any]]:
        return list(body[key])

    return read


class more_calls:
    """Groups, share groups and transactions (the calls behind the CLI's commands)."""

    @staticmethod
    def list_groups() -> Call[list[dict[str, Any]]]:
        return Call("GET", "/v1/groups", _list_of("groups"), safe=True)

    @staticmethod
    def describe_group(group_id: str) -> Call[dict[str, Any]]:
        return Call("GET", f"/v1/groups/{_p(group_id)}", as_object, safe=True)

    @staticmethod
    def group_offsets(group_id: str, topic: str | None = None) -> Call[list[dict[str, Any]]]:
        params = None if topic is None else {"topic": topic}
        return Call(
            "GET",
            f"/v1/groups/{_p(group_id)}/offsets",
            _list_of("offsets"),
            params=params,
            safe=True,
        )

    @staticmethod
    def delete_group(group_id: str) -> Call[None]:
        return Call("DELETE", f"/v1/groups/{_p(group_id)}", nothing, safe=True)

    @staticmethod
    def list_share_groups() -> Call[list[dict[str, Any]]]:
        return Call("GET", "/v1/share-groups", _list_of("share_groups"), safe=True)

    @staticmethod
    def describe_share_group(group_id: str) -> Call[dict[str, Any]]:
        return Call("GET", f"/v1/share-groups/{_p(group_id)}", as_object, safe=True)

    @staticmethod
    def alter_share_group_config(group_id: str, changes: dict[str, Any]) -> Call[dict[str, Any]]:
        return Call(
            "PATCH", f"/v1/share-groups/{_p(group_id)}/config", as_object, json=changes, safe=True
        )

    @staticmethod
    def reset_share_group_offsets(
        group_id: str, targets: list[dict[str, Any]], *, dry_run: bool = False
    ) -> Call[dict[str, Any]]:
        """``targets``: ``{"topic", "partitions": [..] | None, "to": "earliest" | "latest" |
        {"timestamp": ms} | {"offset": n}}`` each."""
        body = {"topics": targets, "dry_run": dry_run}
        return Call("POST", f"/v1/share-groups/{_p(group_id)}/offsets", as_object, json=body)

    @staticmethod
    def delete_share_group_offsets(group_id: str, topic: str) -> Call[None]:
        path = f"/v1/share-groups/{_p(group_id)}/offsets"
        return Call("DELETE", path, nothing, params={"topic": topic}, safe=True)

    @staticmethod
    def delete_share_group(group_id: str) -> Call[None]:
        return Call("DELETE", f"/v1/share-groups/{_p(group_id)}", nothing, safe=True)

    @staticmethod
    def list_transactions(state: str | None = None) -> Call[list[dict[str, Any]]]:
        params = None if state is None else {"state": state}
        return Call("GET", "/v1/transactions", _list_of("transactions"), params=params, safe=True)

    @staticmethod
    def describe_transaction(transactional_id: str) -> Call[dict[str, Any]]:
        return Call("GET", f"/v1/transactions/{_p(transactional_id)}", as_object, safe=True)


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

    def list_groups(self) -> list[dict[str, Any]]:
        return self._c.run(more_calls.list_groups())

    def describe_group(self, group_id: str) -> dict[str, Any]:
        return self._c.run(more_calls.describe_group(group_id))

    def group_offsets(self, group_id: str, topic: str | None = None) -> list[dict[str, Any]]:
        return self._c.run(more_calls.group_offsets(group_id, topic))

    def delete_group(self, group_id: str) -> None:
        return self._c.run(more_calls.delete_group(group_id))

    def list_share_groups(self) -> list[dict[str, Any]]:
        return self._c.run(more_calls.list_share_groups())

    def describe_share_group(self, group_id: str) -> dict[str, Any]:
        return self._c.run(more_calls.describe_share_group(group_id))

    def alter_share_group_config(self, group_id: str, changes: dict[str, Any]) -> dict[str, Any]:
        return self._c.run(more_calls.alter_share_group_config(group_id, changes))

    def reset_share_group_offsets(
        self, group_id: str, targets: list[dict[str, Any]], *, dry_run: bool = False
    ) -> dict[str, Any]:
        return self._c.run(more_calls.reset_share_group_offsets(group_id, targets, dry_run=dry_run))

    def delete_share_group_offsets(self, group_id: str, topic: str) -> None:
        return self._c.run(more_calls.delete_share_group_offsets(group_id, topic))

    def delete_share_group(self, group_id: str) -> None:
        return self._c.run(more_calls.delete_share_group(group_id))

    def list_transactions(self, state: str | None = None) -> list[dict[str, Any]]:
        return self._c.run(more_calls.list_transactions(state))

    def describe_transaction(self, transactional_id: str) -> dict[str, Any]:
        return self._c.run(more_calls.describe_transaction(transactional_id))


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

    async def list_groups(self) -> list[dict[str, Any]]:
        return await self._c.run(more_calls.list_groups())

    async def describe_group(self, group_id: str) -> dict[str, Any]:
        return await self._c.run(more_calls.describe_group(group_id))

    async def group_offsets(self, group_id: str, topic: str | None = None) -> list[dict[str, Any]]:
        return await self._c.run(more_calls.group_offsets(group_id, topic))

    async def delete_group(self, group_id: str) -> None:
        return await self._c.run(more_calls.delete_group(group_id))

    async def list_share_groups(self) -> list[dict[str, Any]]:
        return await self._c.run(more_calls.list_share_groups())

    async def describe_share_group(self, group_id: str) -> dict[str, Any]:
        return await self._c.run(more_calls.describe_share_group(group_id))

    async def alter_share_group_config(
        self, group_id: str, changes: dict[str, Any]
    ) -> dict[str, Any]:
        return await self._c.run(more_calls.alter_share_group_config(group_id, changes))

    async def reset_share_group_offsets(
        self, group_id: str, targets: list[dict[str, Any]], *, dry_run: bool = False
    ) -> dict[str, Any]:
        return await self._c.run(
            more_calls.reset_share_group_offsets(group_id, targets, dry_run=dry_run)
        )

    async def delete_share_group_offsets(self, group_id: str, topic: str) -> None:
        return await self._c.run(more_calls.delete_share_group_offsets(group_id, topic))

    async def delete_share_group(self, group_id: str) -> None:
        return await self._c.run(more_calls.delete_share_group(group_id))

    async def list_transactions(self, state: str | None = None) -> list[dict[str, Any]]:
        return await self._c.run(more_calls.list_transactions(state))

    async def describe_transaction(self, transactional_id: str) -> dict[str, Any]:
        return await self._c.run(more_calls.describe_transaction(transactional_id))
