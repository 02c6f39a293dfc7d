"""A small synchronous client for the exactly-once scenarios: producers, transactions, groups.

It speaks the HTTP API of docs/api.md and nothing else, as a service without a Kafka client
would: every non-2xx answer becomes ``ApiError`` carrying the stable error code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, retriable: bool) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.retriable = retriable


def _check(r: httpx.Response) -> Any:
    if r.status_code >= 300:
        try:
            err = r.json()["error"]
        except Exception:
            raise AssertionError(f"{r.status_code} without an error body: {r.text}") from None
        raise ApiError(r.status_code, err["code"], err["message"], err["retriable"])
    return r.json() if r.content else None


@dataclass
class Api:
    url: str
    timeout: float = 30
    client: httpx.Client = field(init=False)

    def __post_init__(self) -> None:
        self.client = httpx.Client(base_url=self.url, timeout=self.timeout)

    def close(self) -> None:
        self.client.close()

    def get(self, path: str, **params: Any) -> Any:
        return _check(self.client.get(path, params=params))

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return _check(self.client.post(path, json=body))

    # -- topics and plain records -------------------------------------------------------------

    def create_topic(self, name: str, partitions: int = 1) -> None:
        self.post("/v1/topics", {"name": name, "partitions": partitions})

    def produce(
        self, topic: str, records: list[dict[str, Any]], idempotency_key: str | None = None
    ) -> list[dict[str, Any]]:
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        r = self.client.post(
            f"/v1/topics/{topic}/records", json={"records": records}, headers=headers
        )
        return list(_check(r)["offsets"])

    def read(
        self,
        topic: str,
        partition: int,
        offset: int,
        *,
        committed: bool = False,
        max_records: int = 500,
    ) -> dict[str, Any]:
        return dict(
            self.get(
                f"/v1/topics/{topic}/partitions/{partition}/records",
                offset=offset,
                max_records=max_records,
                isolation_level="read_committed" if committed else "read_uncommitted",
            )
        )

    def read_all(
        self, topic: str, partition: int, *, committed: bool = True
    ) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        offset = 0
        while True:
            page = self.read(topic, partition, offset, committed=committed, max_records=10_000)
            out += page["records"]
            end = page["last_stable_offset"] if committed else page["high_watermark"]
            if page["next_offset"] >= end or not page["records"]:
                return out
            offset = page["next_offset"]

    # -- producers and transactions -----------------------------------------------------------

    def init_producer(
        self,
        transactional_id: str | None,
        timeout_ms: int = 60_000,
        producer_id: int | None = None,
        producer_epoch: int | None = None,
    ) -> tuple[int, int]:
        body = {
            "transactional_id": transactional_id,
            "transaction_timeout_ms": timeout_ms,
            "producer_id": producer_id,
            "producer_epoch": producer_epoch,
        }
        got = self.post("/v1/producers", body)
        return int(got["producer_id"]), int(got["producer_epoch"])

    def txn_produce(
        self,
        tid: str,
        pid: int,
        epoch: int,
        topic: str,
        partition: int,
        base_sequence: int,
        records: list[dict[str, Any]],
    ) -> int:
        """One transactional batch; raises ApiError for a request-level or a per-batch error."""
        got = self.post(
            "/v1/produce",
            {
                "producer_id": pid,
                "producer_epoch": epoch,
                "transactional_id": tid,
                "batches": [
                    {
                        "topic": topic,
                        "partition": partition,
                        "base_sequence": base_sequence,
                        "records": records,
                    }
                ],
            },
        )
        (batch,) = got["batches"]
        if batch.get("error"):
            e = batch["error"]
            raise ApiError(409, e["code"], e["message"], e["retriable"])
        return int(batch["base_offset"])

    def send_offsets(
        self,
        tid: str,
        pid: int,
        epoch: int,
        group: str,
        member_id: str | None,
        member_epoch: int,
        offsets: dict[tuple[str, int], int],
    ) -> None:
        self.post(
            f"/v1/transactions/{tid}/offsets",
            {
                "producer_id": pid,
                "producer_epoch": epoch,
                "group_id": group,
                "member_id": member_id,
                "member_epoch": member_epoch,
                "group_instance_id": None,
                "offsets": [
                    {"topic": t, "partition": p, "offset": o, "metadata": None}
                    for (t, p), o in offsets.items()
                ],
            },
        )

    def commit(self, tid: str, pid: int, epoch: int) -> tuple[int, int]:
        got = self.post(
            f"/v1/transactions/{tid}/commit", {"producer_id": pid, "producer_epoch": epoch}
        )
        return int(got["producer_id"]), int(got["producer_epoch"])

    def abort(self, tid: str, pid: int, epoch: int) -> tuple[int, int]:
        got = self.post(
            f"/v1/transactions/{tid}/abort", {"producer_id": pid, "producer_epoch": epoch}
        )
        return int(got["producer_id"]), int(got["producer_epoch"])

    # -- consumer groups ----------------------------------------------------------------------

    def heartbeat(
        self, group: str, member_id: str | None, member_epoch: int, topics: list[str]
    ) -> dict[str, Any]:
        return dict(
            self.post(
                f"/v1/groups/{group}/heartbeat",
                {
                    "member_id": member_id,
                    "member_epoch": member_epoch,
                    "group_instance_id": None,
                    "subscribed_topics": topics,
                    "rebalance_timeout_ms": 10_000,
                },
            )
        )

    def committed(
        self, group: str, topic: str, *, require_stable: bool
    ) -> dict[int, dict[str, Any]]:
        """partition → {"offset", "error"} of the group's committed offsets for a topic."""
        got = self.get(
            f"/v1/groups/{group}/offsets",
            topic=topic,
            require_stable="true" if require_stable else "false",
        )
        return {o["partition"]: o for o in got["offsets"] if o["topic"] == topic}


def owned(assignment: list[dict[str, Any]], topic: str) -> set[int]:
    return {p for a in assignment if a["topic"] == topic for p in a["partitions"]}
