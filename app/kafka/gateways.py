"""The gateways of one cluster (docs/kafka.md#several-gateways): each gateway's id and the
address other gateways reach it at, kept in the compacted topic ``__sluice_gateways``, which
every gateway reads from the start and then follows.

A gateway chooses its id when it starts (6 hex digits, another if a gateway announced in the
topic has it), and announces it: one record, the id as the record key and, as the value (JSON),
its advertised URL (``SLUICE_GATEWAY_ADVERTISED_URL``) and when it started. The share-group
member ids it chooses carry that id (``app.kafka.share_members``), so that any gateway can tell
which one holds a member and forward the member's requests there (``app.kafka.forward``); an id
is forwarded only to an address announced here, never to one a client names.

A gateway that stops writes a tombstone for its id. One that is killed leaves its record: a
forward to it fails to connect and is answered ``UNKNOWN_MEMBER_ID``, and the next gateway
that starts at the same address removes the record, since the address is its own now.
"""

from __future__ import annotations

import json
import logging
import secrets
import socket
from typing import Any

from app.clock import Clock
from app.config import Settings
from app.kafka.cluster import Cluster
from app.kafka.follower import Follower, ensure_compacted_topic
from app.kafka.produce import KafkaProduce
from app.storage.record import Record

log = logging.getLogger("sluice.kafka.gateways")

TOPIC = "__sluice_gateways"
PARTITION = 0
ID_HEX = 6  # hex digits of a gateway id: short, since a share member id has 36 characters
WILDCARDS = frozenset({"", "0.0.0.0", "::", "[::]"})


def new_gateway_id() -> str:
    return secrets.token_hex(ID_HEX // 2)


def advertised_url(settings: Settings) -> str:
    """The address other gateways reach this one at: the setting, else the host and port it
    serves on (the machine's name for a wildcard host)."""
    if settings.gateway_advertised_url:
        return settings.gateway_advertised_url.rstrip("/")
    host = settings.host
    if host in WILDCARDS:
        host = socket.getfqdn()
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"  # an IPv6 address
    scheme = "https" if settings.tls_certfile else "http"
    return f"{scheme}://{host}:{settings.port}"


class Gateways:
    """This gateway's id and the announced gateways of the cluster (``cluster`` started).
    ``await start()`` before serving (it creates the topic when missing, reads it to its end
    and announces this gateway), ``close()`` after (it withdraws the announcement)."""

    def __init__(
        self, cluster: Cluster, clock: Clock, url: str, *, replication_factor: int = -1
    ) -> None:
        self.cluster = cluster
        self.clock = clock
        self.url = url
        self.id = new_gateway_id()
        self.replication_factor = replication_factor
        # gateway id → its advertised URL, as the topic holds them
        self.announced: dict[str, str] = {}
        self._writer = KafkaProduce(cluster, Settings())
        self._follower = Follower(cluster, clock, TOPIC, PARTITION, self._take)
        self._announced = False

    def url_of(self, gateway_id: str) -> str | None:
        """The address of another announced gateway; None for this one or an unknown id."""
        if gateway_id == self.id:
            return None
        return self.announced.get(gateway_id)

    async def start(self) -> None:
        await ensure_compacted_topic(self.cluster, TOPIC, self.replication_factor)
        await self._follower.start()
        await self._follower.sync()
        while self.id in self.announced:
            self.id = new_gateway_id()
        # gateways announced at this address are gone (killed): it is this one's now
        for gateway_id, url in list(self.announced.items()):
            if url == self.url:
                await self._write(gateway_id.encode(), None)
        value = {"url": self.url, "started_ms": self.clock.now_ms()}
        await self._write(self.id.encode(), json.dumps(value, separators=(",", ":")).encode())
        self._announced = True
        log.info("gateway %s announced at %s", self.id, self.url)

    async def sync(self) -> None:
        """Wait until every record the topic held when called is applied."""
        await self._follower.sync()

    async def close(self) -> None:
        try:
            if self._announced:
                self._announced = False
                await self._write(self.id.encode(), None)
        except Exception:
            # the record stays: other gateways find this address closed, as after a kill
            log.warning("withdrawing gateway %s failed", self.id, exc_info=True)
        finally:
            await self._follower.close()

    def _take(self, key: bytes | None, value: bytes | None) -> None:
        if key is None:
            return
        gateway_id = key.decode("latin-1")
        if value is None:
            self.announced.pop(gateway_id, None)
            return
        try:
            v: dict[str, Any] = json.loads(value)
            url = v["url"]
            if not isinstance(url, str) or not url.startswith(("http://", "https://")):
                raise ValueError(url)
        except (ValueError, KeyError, TypeError):
            log.warning("record %r of %s is not a gateway's; left out", key, TOPIC)
            return
        self.announced[gateway_id] = url.rstrip("/")

    async def _write(self, key: bytes, value: bytes | None) -> None:
        """One record (a tombstone for None), acknowledged by all in-sync replicas, then read
        back."""
        (produced,) = await self._writer.produce_records(
            TOPIC, [(PARTITION, Record(self.clock.now_ms(), key, value))]
        )
        await self._follower.applied(produced.offset)
