"""Transactions: the coordinator, its state machine and its participants.

``state`` holds ``TxnState``, its table of valid previous states and ``TxnMetadata``;
``coordinator`` the ``TransactionCoordinator`` (InitProducerId, partitions joining, commit and
abort, fencing), which hands the rest to ``ending`` (``TxnEnder``: the end of a transaction
from its decision on), ``timeouts`` (``TxnTimeouts``: the sweeper) and ``recovery``
(``TxnRecovery``: the start); ``work`` the values of requests and answers; ``participants`` the
seams through which consumer groups (offsets) and share groups (acknowledgements) take part.

Naming conventions, the same as in ``app.share``:

- ``prepare`` / ``complete`` / ``abort_pending``: a change is staged (``prepare`` validates the
  transition and sets ``pending``, so that concurrent callers get CONCURRENT_TRANSACTIONS), made
  durable, then applied (``complete``), or forgotten when the write failed (``abort_pending``).
- ``staging_*`` / ``ending_*``: a participant's async context managers; each yields a
  ``TxnWrite`` whose ``write`` runs inside the coordinator's SQLite transaction and whose
  ``complete`` installs the change once that is durable, still inside the context.
- ``run_*``: a background loop, run and restarted by the server.
- ``statistics()``: the counters the server reports, cheap to read at any time.
"""
