"""TxnTimeouts: the transaction coordinator's sweeper (the embedded engine's; on Kafka the
cluster's transaction coordinator times transactions out itself).

Every ``SLUICE_TXN_TIMEOUT_CHECK_INTERVAL_MS`` it aborts the open transactions past their
timeout (KIP-588: the aborted epoch is recorded, docs/semantics.md#kip-588-timeouts), finishes
the ends whose markers failed earlier, forgets the transactional ids idle past
``SLUICE_TRANSACTIONAL_ID_EXPIRATION_MS`` (→ Dead, their row deleted), and deletes the expired
idempotency keys of ``commit_all`` once a minute. It shares the coordinator's transactions and
owners of producer ids, and ends transactions through the coordinator's ``TxnEnder``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging

from app.clock import Clock
from app.config import Settings
from app.errors import SluiceError
from app.metadata.txn_store import TransactionStore
from app.transactions.ending import TxnEnder
from app.transactions.state import TxnMetadata, TxnState

log = logging.getLogger("sluice.transactions")

_S = TxnState
_IDLE = (_S.EMPTY, _S.COMPLETE_COMMIT, _S.COMPLETE_ABORT)
COMMIT_KEY_EXPIRY_INTERVAL_MS = 60_000  # the sweeper deletes expired commit keys this often


class TxnTimeouts:
    def __init__(
        self,
        store: TransactionStore,
        clock: Clock,
        settings: Settings,
        txns: dict[str, TxnMetadata],
        owners: dict[int, str],
        ender: TxnEnder,
    ) -> None:
        self.store = store
        self.clock = clock
        self.settings = settings
        self.txns = txns  # the coordinator's, by transactional id
        self.owners = owners  # the coordinator's: producer id → its transactional id
        self.ender = ender
        self._next_key_expiry_ms = 0  # when the sweeper next deletes expired commit keys

    async def abort_timed_out(self) -> int:
        """Abort every open transaction past its timeout; finish interrupted ends; forget ids
        idle past the transactional-id expiration. Answers how many transactions were
        aborted."""
        now = self.clock.now_ms()
        idle_before = now - self.settings.transactional_id_expiration_ms
        n = 0
        for tm in list(self.txns.values()):
            if tm.pending is not None or tm.transactional_id in self.ender.finishing:
                continue
            try:
                if tm.state is _S.ONGOING and now > tm.start_ms + tm.timeout_ms:
                    log.info(
                        "aborting transaction %r: open for %d ms, timeout %d ms",
                        tm.transactional_id,
                        now - tm.start_ms,
                        tm.timeout_ms,
                    )
                    await self.ender.end(tm, commit=False, timed_out=True)
                    n += 1
                elif tm.state in (_S.PREPARE_COMMIT, _S.PREPARE_ABORT):
                    await self.ender.finish(tm)  # an end whose markers failed earlier
                elif tm.state in _IDLE and tm.updated_ms < idle_before:
                    await self.expire(tm)
            except SluiceError as exc:
                log.warning("transaction %r: %s; will retry", tm.transactional_id, exc)
        if now >= self._next_key_expiry_ms:
            self._next_key_expiry_ms = now + COMMIT_KEY_EXPIRY_INTERVAL_MS
            try:
                await self.store.expire_commit_keys(now - self.settings.txn_commit_key_retention_ms)
            except SluiceError as exc:
                log.warning("commit-all idempotency keys: %s; will retry", exc)
        return n

    async def run(self) -> None:
        """The sweeper: ``abort_timed_out`` every ``txn_timeout_check_interval_ms``."""
        while True:
            await asyncio.sleep(self.settings.txn_timeout_check_interval_ms / 1000)
            await self.abort_timed_out()

    async def expire(self, tm: TxnMetadata) -> None:
        """Forget an idle transactional id (→ Dead): its row is deleted durably."""
        transit = tm.prepare(
            dataclasses.replace(tm.transit(), state=_S.DEAD, updated_ms=self.clock.now_ms())
        )
        try:
            await self.store.delete(tm.transactional_id)
        except BaseException:
            tm.abort_pending()
            raise
        tm.complete(transit)
        del self.txns[tm.transactional_id]
        for pid in (tm.producer_id, tm.last_producer_id):
            if self.owners.get(pid) == tm.transactional_id:
                del self.owners[pid]
        log.info("transactional id %r expired", tm.transactional_id)
