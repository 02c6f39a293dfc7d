"""Per-principal quotas on the Kafka backend (docs/kafka.md#security): Kafka's client quotas,
read with DescribeClientQuotas and changed with AlterClientQuotas, on the entity
``user=<principal>`` (``producer_byte_rate``, ``consumer_byte_rate``); the seam's
``QuotaAdmin`` over them (``app.engine.admin``).

Kafka throttles the connection's principal, which is the gateway's own, so the quotas are not
Kafka's to enforce here: the gateway reads them and hands them to the face's meters
(``app.security.quotas.Quotas``), which measure and refuse each HTTP principal as the embedded
server does. The defaults are the default user's quotas (the entity ``user`` with no name); a
kind the default user has none of keeps the gateway's own default
(``SLUICE_QUOTA_PRODUCER_BYTE_RATE`` and ``SLUICE_QUOTA_CONSUMER_BYTE_RATE``, which ``Quotas``
was made with).

Only entities of the user alone are the contract's: quotas of a client id, or of a user and a
client id together, are Kafka's own clients' and are neither listed nor changed. Kafka keeps no
time of a change: a row's ``updated_ms`` is when this gateway first saw its values.

A change made here is applied to the meters when it returns; one made elsewhere (another
gateway, a native admin client) within about a second: ``run_reload`` describes the quotas again
once a second.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from app.clock import Clock
from app.errors import ErrorCode, NotFound, SluiceError
from app.kafka.cluster import Cluster
from app.kafka.errors_map import to_sluice
from app.kafka.protocol.errors import NONE, ProtocolError
from app.kafka.protocol.messages import (
    AlterClientQuotasRequest,
    DescribeClientQuotasRequest,
)
from app.security.quota_admin import validate_override, validate_principal
from app.security.quota_store import QuotaRow
from app.security.quotas import FETCH, PRODUCE, Override, Quotas

log = logging.getLogger("sluice.kafka.quotas")

RELOAD_S = 1.0
SETTLE_TIMEOUT_S = 10.0  # how long a change may take to be described by the broker asked
USER = "user"  # Kafka's entity type of a user principal
PRODUCER_BYTE_RATE = "producer_byte_rate"
CONSUMER_BYTE_RATE = "consumer_byte_rate"
# DescribeClientQuotas' match types
MATCH_DEFAULT = 1  # the default entity (no name)
MATCH_SPECIFIED = 2  # every named entity

Described = tuple[dict[str, Override], Override]  # every user's own quotas, the default user's


def override_of(values: dict[str, float]) -> Override:
    produce = values.get(PRODUCER_BYTE_RATE)
    fetch = values.get(CONSUMER_BYTE_RATE)
    return Override(
        None if produce is None else int(produce), None if fetch is None else int(fetch)
    )


def ops_of(override: Override) -> list[AlterClientQuotasRequest.OpData]:
    """The AlterClientQuotas operations that give an entity exactly ``override`` (a kind
    left None is removed: it takes the default)."""
    return [
        AlterClientQuotasRequest.OpData(key=key, value=float(rate or 0), remove=rate is None)
        for key, rate in (
            (PRODUCER_BYTE_RATE, override.producer_byte_rate),
            (CONSUMER_BYTE_RATE, override.consumer_byte_rate),
        )
    ]


class KafkaQuotaAdmin:
    """The seam's ``QuotaAdmin`` on a Kafka cluster (``cluster`` started), applied to
    ``quotas``: ``load`` once before serving, then ``run_reload`` beside the server."""

    def __init__(
        self, cluster: Cluster, quotas: Quotas, clock: Clock, reload_s: float = RELOAD_S
    ) -> None:
        self.cluster = cluster
        self.quotas = quotas
        self.clock = clock
        self.reload_s = reload_s
        self.gateway_defaults = dict(quotas.defaults)  # the settings' defaults
        self.rows: dict[str, QuotaRow] = {}
        self.default_override = Override()
        self._changes = 0  # changes of this gateway's; a reload that overlapped one is dropped
        # notified whenever other quotas were applied to the meters
        self.changed = asyncio.Condition()

    # -- reading ---------------------------------------------------------------------------

    async def _describe(self, match_type: int) -> dict[str | None, Override]:
        conn = await self.cluster.any_connection()
        answer = await conn.send(
            DescribeClientQuotasRequest(
                components=[
                    DescribeClientQuotasRequest.ComponentData(
                        entity_type=USER, match_type=match_type, match=None
                    )
                ],
                strict=True,  # the user alone, not a user with a client id
            )
        )
        if answer.error_code != NONE:
            raise to_sluice(answer.error_code, answer.error_message, "DescribeClientQuotas")
        out: dict[str | None, Override] = {}
        for entry in answer.entries or []:
            if [e.entity_type for e in entry.entity] != [USER]:
                continue
            values = {v.key: v.value for v in entry.values}
            override = override_of(values)
            if override != Override():
                out[entry.entity[0].entity_name] = override
        return out

    async def describe(self) -> Described:
        """Every user's own quotas and the default user's, asked now."""
        named, default = await asyncio.gather(
            self._describe(MATCH_SPECIFIED), self._describe(MATCH_DEFAULT)
        )
        users = {name: o for name, o in named.items() if name is not None}
        return users, default.get(None, Override())

    async def _apply(self, described: Described) -> bool:
        users, default = described
        rows = {name: self._row(name, override) for name, override in sorted(users.items())}
        if rows == self.rows and default == self.default_override:
            return False
        self.rows = rows
        self.default_override = default
        self.quotas.defaults = {
            kind: (rate if rate is not None else self.gateway_defaults[kind])
            for kind, rate in (
                (PRODUCE, default.producer_byte_rate),
                (FETCH, default.consumer_byte_rate),
            )
        }
        self.quotas.configure({r.principal: r.override for r in rows.values()})
        async with self.changed:
            self.changed.notify_all()
        return True

    def _row(self, principal: str, override: Override) -> QuotaRow:
        seen = self.rows.get(principal)
        if seen is not None and seen.override == override:
            return seen
        return QuotaRow(principal, override, self.clock.now_ms())

    async def load(self) -> None:
        await self._apply(await self.describe())

    def list(self) -> list[QuotaRow]:
        return sorted(self.rows.values(), key=lambda r: r.principal)

    def defaults(self) -> dict[str, int]:
        """The quotas of a principal without its own, by kind (0: unlimited): the default
        user's, else the gateway's setting."""
        return dict(self.quotas.defaults)

    # -- changing --------------------------------------------------------------------------

    async def _alter(self, name: str | None, override: Override) -> None:
        conn = await self.cluster.any_connection()
        answer = await conn.send(
            AlterClientQuotasRequest(
                entries=[
                    AlterClientQuotasRequest.EntryData(
                        entity=[AlterClientQuotasRequest.EntityData(USER, name)],
                        ops=ops_of(override),
                    )
                ]
            )
        )
        for entry in answer.entries:
            if entry.error_code != NONE:
                raise to_sluice(entry.error_code, entry.error_message, "AlterClientQuotas")

    async def set(self, principal: str, override: Override) -> QuotaRow:
        """Give ``principal`` its own quotas (a kind left None takes the default)."""
        validate_principal(principal)
        validate_override(override)
        await self._alter(principal, override)
        await self._settle(lambda d: d[0].get(principal) == override)
        return self.rows[principal]

    async def set_defaults(self, override: Override) -> None:
        """The default user's quotas (a kind left None: the gateway's setting)."""
        if override != Override():
            validate_override(override)
        await self._alter(None, override)
        await self._settle(lambda d: d[1] == override)

    async def remove(self, principal: str) -> None:
        """Back to the defaults; 404 NOT_FOUND when ``principal`` has no quotas of its own."""
        validate_principal(principal)
        users, _ = await self.describe()
        if principal not in users:
            raise NotFound(ErrorCode.NOT_FOUND, f"principal {principal!r} has no quotas of its own")
        await self._alter(principal, Override())
        await self._settle(lambda d: principal not in d[0])

    async def _settle(self, done: Callable[[Described], bool]) -> None:
        """Describe until the change shows (the broker asked applies the controller's record a
        moment after the controller answered), then apply it to the meters."""
        deadline = asyncio.get_running_loop().time() + SETTLE_TIMEOUT_S
        while True:
            described = await self.describe()
            if done(described):
                self._changes += 1
                await self._apply(described)
                return
            if asyncio.get_running_loop().time() >= deadline:
                raise SluiceError(
                    ErrorCode.INTERNAL,
                    "the Kafka cluster took the quota change but has not shown it yet",
                )
            await asyncio.sleep(self.cluster.retry_backoff)

    async def reload(self) -> bool:
        """Describe the quotas again; whether they had changed."""
        changes = self._changes
        described = await self.describe()
        if changes != self._changes:
            return False  # it may have read the cluster before this gateway's change
        changed = await self._apply(described)
        if changed:
            log.info("quotas reloaded: %d principals with their own quotas", len(self.rows))
        return changed

    async def run_reload(self) -> None:
        """Describe the quotas again every ``reload_s``; one that fails (the broker went or
        moved) leaves the meters as they were until the next."""
        while True:
            await asyncio.sleep(self.reload_s)
            try:
                await self.reload()
            except (SluiceError, ProtocolError):
                log.warning("describing the quotas failed; the quotas stay", exc_info=True)
