"""TxnRecovery: the transaction coordinator's start (the embedded engine's; on Kafka the
cluster's transaction coordinator recovers its transactions itself).

At start the coordinator's transactions and the owners of their producer ids are loaded from
the metadata (``load``); once the marker writer runs, every end interrupted after its decision
is finished (``recover``, through the ``TxnEnder``: markers again, the participants' endings,
Complete*), and the records of a transaction that reached a log while its decision did not
reach the metadata are settled: kept in the current epoch's open transaction, or aborted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from app.metadata.txn_store import TransactionStore
from app.transactions.ending import TxnEnder, TxnLog
from app.transactions.state import TxnMetadata, TxnState, TxnTransit

log = logging.getLogger("sluice.transactions")

_S = TxnState
_IDLE = (_S.EMPTY, _S.COMPLETE_COMMIT, _S.COMPLETE_ABORT)


class TxnRecovery:
    def __init__(
        self,
        store: TransactionStore,
        txn_log: TxnLog,
        ender: TxnEnder,
        txns: dict[str, TxnMetadata],
        owners: dict[int, str],
        ongoing: Callable[[TxnMetadata, frozenset[tuple[str, int]]], TxnTransit],
    ) -> None:
        self.store = store
        self.log = txn_log
        self.ender = ender
        self.txns = txns  # the coordinator's, by transactional id
        self.owners = owners  # the coordinator's: producer id → its transactional id
        # the coordinator's transit of an open transaction on these partitions
        self.ongoing = ongoing

    async def load(self) -> None:
        """The transactions and the owners of their producer ids, from the metadata."""
        for r in await self.store.load_all():
            self.txns[r.transactional_id] = TxnMetadata(
                r.transactional_id,
                r.producer_id,
                r.producer_epoch,
                r.timeout_ms,
                TxnState(r.state),
                r.last_producer_id,
                r.last_epoch,
                r.timed_out_epoch,
                frozenset(r.partitions),
                frozenset(r.groups),
                r.start_ms,
                r.updated_ms,
                frozenset(r.share_groups),
            )
            for pid in (r.producer_id, r.last_producer_id):
                if pid >= 0:
                    self.owners[pid] = r.transactional_id

    async def recover(self) -> int:
        """Finish every transaction found in a Prepare* state (markers again, completion)."""
        n = 0
        for tm in list(self.txns.values()):
            if tm.state in (_S.PREPARE_COMMIT, _S.PREPARE_ABORT):
                log.info("recovery: finishing %s of %r", tm.state.value, tm.transactional_id)
                await self.ender.finish(tm)
                n += 1
        await self._adopt_open_transactions()
        return n

    async def _adopt_open_transactions(self) -> None:
        """Records of a transaction that reached a log while its decision did not reach the
        metadata (a commit in one request stopped in between): the current epoch of a
        transactional id keeps them in its transaction, open (a retry of the request finds
        them by sequence; the timeout aborts them otherwise); records of any other epoch or
        producer id are aborted."""
        by_pid = {tm.producer_id: tm for tm in self.txns.values()}
        for pid, epochs in sorted(self.log.open_transactions().items()):
            tm = by_pid.get(pid)
            rejoin: frozenset[tuple[str, int]] = frozenset()
            if tm is not None and (tm.state in _IDLE or tm.state is _S.ONGOING):
                rejoin = frozenset(tp for tp, e in epochs.items() if e == tm.producer_epoch)
            if tm is not None and rejoin - tm.partitions:
                log.info(
                    "recovery: %d partitions of %r rejoin its open transaction",
                    len(rejoin - tm.partitions),
                    tm.transactional_id,
                )
                await self.ender.persist(tm, self.ongoing(tm, tm.partitions | rejoin))
            for epoch in sorted({e for tp, e in epochs.items() if tp not in rejoin}):
                stray = [tp for tp, e in epochs.items() if e == epoch and tp not in rejoin]
                log.info(
                    "recovery: aborting the open records of producer %d epoch %d on %d "
                    "partitions (no transaction of that epoch holds them)",
                    pid,
                    epoch,
                    len(stray),
                )
                await self.log.append_markers(pid, epoch, False, stray)
