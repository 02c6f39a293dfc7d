"""API keys on the Kafka backend (docs/kafka.md#security): kept in the compacted topic
``__sluice_keys``, which every gateway reads from the start and then follows.

Each key is one record, its key id as the record key and its row as the value (JSON: the
principal, the salt and ``sha256(salt || secret)`` in hex, the description, the creation and
revocation times), exactly what ``app.security.keys`` keeps in its table: never the key
itself. Revoking writes the row again with its revocation time; compaction keeps the last
record of each key. One more record, under ``ws-token-secret`` (a key id never has a ``-``),
holds the secret that WebSocket tokens are signed with, so that a token issued by one gateway
opens a socket on any (``app.kafka.ws_tokens``); the first gateway that finds none writes one.

``KafkaKeys`` is the embedded ``KeyStore`` with the topic in place of the table: the hot path
(``authenticate_header``, ``authenticate``, ``active``), what is remembered of verified keys
and the sockets closed when their key is revoked are that class's own, unchanged. A follower
task long-polls the topic on a connection of its own (a broker answers one connection's
requests in order: a long poll would hold up the gateway's other requests behind it) and
applies each record as it comes, so a key created or revoked through another gateway holds
here within about a second. A change made here is answered once this gateway has read it back
from the topic, so it never applies a change out of the topic's order.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

from app.clock import Clock, SystemClock
from app.config import Settings
from app.errors import ErrorCode, NotFound, SluiceError
from app.kafka.cluster import Cluster
from app.kafka.follower import Follower, ensure_compacted_topic
from app.kafka.produce import KafkaProduce
from app.metadata.db import Database
from app.security.keys import (
    REMEMBERED_KEYS,
    SALT_BYTES,
    KeyRow,
    KeyStore,
    check_description,
    check_principal,
    digest,
    new_key,
)
from app.storage.record import Record

log = logging.getLogger("sluice.kafka.keys")

TOPIC = "__sluice_keys"
PARTITION = 0  # one partition: one order of every change
TOKEN_SECRET = b"ws-token-secret"  # the record key of the WebSocket tokens' secret
TOKEN_SECRET_BYTES = 32

T = TypeVar("T")


def encode_row(row: KeyRow) -> bytes:
    return json.dumps(
        {
            "principal": row.principal,
            "salt": row.salt.hex(),
            "hash": row.hash.hex(),
            "description": row.description,
            "created_ms": row.created_ms,
            "revoked_ms": row.revoked_ms,
        },
        separators=(",", ":"),
    ).encode()


def decode_row(key_id: str, value: bytes) -> KeyRow:
    v: dict[str, Any] = json.loads(value)
    return KeyRow(
        key_id,
        v["principal"],
        bytes.fromhex(v["salt"]),
        bytes.fromhex(v["hash"]),
        v["description"],
        v["created_ms"],
        v["revoked_ms"],
    )


class KafkaKeys(KeyStore):
    """The seam's ``Keys`` on a Kafka cluster (``cluster`` started). ``await start()`` before
    serving (it creates the topic when missing and reads it to its end); ``close()`` after."""

    def __init__(
        self,
        cluster: Cluster,
        clock: Clock,
        *,
        remember: int = REMEMBERED_KEYS,
        replication_factor: int = -1,
    ) -> None:
        # the embedded store's database is never used: every member that reads or writes it
        # (load, create, revoke, watch, reload_if_changed) is this class's own
        super().__init__(cast(Database, None), clock, remember)
        self.cluster = cluster
        self.replication_factor = replication_factor
        self._writer = KafkaProduce(cluster, Settings())
        self._table: dict[str, KeyRow] = {}
        self._secret: bytes | None = None
        self._follower = Follower(
            cluster, clock, TOPIC, PARTITION, self._take, on_applied=self._on_applied
        )
        # notified whenever records were applied: what waits for a change to be read back
        self.changed = self._follower.changed

    @property
    def next_offset(self) -> int:
        """The offset of the next record to apply."""
        offset: int = self._follower.next_offset
        return offset

    @property
    def token_secret(self) -> bytes:
        """The secret WebSocket tokens are signed with, the same on every gateway."""
        if self._secret is None:
            raise SluiceError(ErrorCode.INTERNAL, "the keys are not loaded yet")
        return self._secret

    # --- starting and stopping ---

    async def start(self) -> None:
        await ensure_compacted_topic(self.cluster, TOPIC, self.replication_factor)
        await self._follower.start()
        await self.sync()
        if self._secret is None:
            await self._write(TOKEN_SECRET, os.urandom(TOKEN_SECRET_BYTES).hex().encode())
        self._loaded_all()

    async def close(self) -> None:
        await self._follower.close()

    # --- following the topic ---

    def _on_applied(self) -> None:
        if self._secret is not None:
            self._loaded_all()

    def _take(self, key: bytes | None, value: bytes | None) -> None:
        if key is None:
            return
        if key == TOKEN_SECRET:
            if value is not None:
                self._secret = bytes.fromhex(value.decode())
            return
        key_id = key.decode("latin-1")
        if value is None:
            self._table.pop(key_id, None)
            return
        try:
            self._table[key_id] = decode_row(key_id, value)
        except (ValueError, KeyError, TypeError):
            # not a row this module wrote: no key is made of it, and the rest still applies
            log.warning("record %r of %s is not a key's row; left out", key, TOPIC)

    def _loaded_all(self) -> None:
        """Hand what the topic holds to the embedded store's hot path (which keeps what it
        verified unless the rows changed, and closes the sockets of revoked keys)."""
        self._apply(sorted(self._table.values(), key=lambda r: (r.created_ms, r.key_id)))

    async def sync(self) -> None:
        """Wait until every record the topic held when called is applied."""
        await self._follower.sync()

    async def _write(self, key: bytes, value: bytes) -> None:
        """One record, acknowledged by all in-sync replicas, then read back."""
        (produced,) = await self._writer.produce_records(
            TOPIC, [(PARTITION, Record(self.clock.now_ms(), key, value))]
        )
        await self._follower.applied(produced.offset)

    # --- the seam's changes ---

    async def load(self) -> None:
        """Read the topic to its end (what a start does)."""
        await self.sync()

    async def create(self, principal: str, description: str = "") -> tuple[KeyRow, str]:
        name, text = check_principal(principal), check_description(description)
        key_id, secret, key = new_key()
        salt = os.urandom(SALT_BYTES)
        row = KeyRow(key_id, name, salt, digest(salt, secret), text, self.clock.now_ms(), None)
        await self._write(key_id.encode(), encode_row(row))
        return row, key

    async def revoke(self, key_id: str) -> None:
        """Revoke a key; revoking twice keeps the first time. Raises ``NOT_FOUND``."""
        await self.sync()  # a key created through another gateway a moment ago is found
        row = self._table.get(key_id)
        if row is None:
            raise NotFound(ErrorCode.NOT_FOUND, f"no API key {key_id!r}")
        if row.revoked_ms is None:
            revoked = KeyRow(
                row.key_id,
                row.principal,
                row.salt,
                row.hash,
                row.description,
                row.created_ms,
                self.clock.now_ms(),
            )
            await self._write(key_id.encode(), encode_row(revoked))

    async def watch(self) -> None:
        """Nothing to watch: the follower started by ``start`` applies every change."""
        await asyncio.Event().wait()

    async def reload_if_changed(self) -> bool:
        before = self.next_offset
        await self.sync()
        return self.next_offset != before


async def on_cluster(settings: Settings, fn: Callable[[KafkaKeys], Awaitable[T]]) -> T:
    """``fn`` on the keys of the settings' cluster, read to their end, outside a gateway: the
    keys command and the start-up check of a gateway on an address other than loopback."""
    from app.kafka.credentials import cluster_for

    cluster = cluster_for(settings, "sluice-keys")
    await cluster.start()
    try:
        keys = KafkaKeys(cluster, SystemClock())
        await keys.start()
        try:
            return await fn(keys)
        finally:
            await keys.close()
    finally:
        await cluster.close()


async def cluster_has_keys(settings: Settings) -> bool:
    """Whether the cluster holds an API key (revoked ones count: keys stay required)."""

    async def any_key(keys: KafkaKeys) -> bool:
        return bool(keys.list())

    return await on_cluster(settings, any_key)
