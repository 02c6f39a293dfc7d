"""Share groups (KIP-932): queues over topics, with per-record acknowledgement.

The kernel has no I/O: ``record_state`` (``RecordState`` and its table of valid previous
states) and ``partition`` (``SharePartition``, the in-flight window of one group and partition).
Around it: ``membership`` (``ShareGroup``, ``Member``, ``Membership``), ``coordinator``
(``ShareGroupCoordinator``: fetch, acknowledge, timers, applying the state writer's rounds),
``polls`` (``LongPolls``), ``writer`` (``StateWriter``: the group commit of share state),
``dead_letters`` (``DeadLetters``), ``timers`` (``DeadlineHeap``), ``group_config``
(``GroupConfig``), ``admin`` (``ShareGroupAdmin``), ``acquisitions`` (``Acquisitions``: fetches
by acquisition id, and their index ``AcquisitionBook``) and ``txn`` (``ShareTxnParticipant``,
the share groups' side of transactions). The SQL is ``app.metadata.share_store``.

Naming conventions, the same as in ``app.transactions``:

- A durable change is staged, made durable, then applied: the partition's staging methods
  (``acknowledge``, ``hold_txn``, ``end_txn``, ``expire_lock``, ``release_member``) answer a
  ``Staged`` whose runs are marked pending; ``complete`` applies it once it is durable,
  ``rollback`` forgets it when the write failed. Nobody else moves a pending run meanwhile.
- ``staging_*`` / ``ending_*``: async context managers through which a participant's change
  joins a transaction's own SQLite commit; they yield a write, completed inside the context.
- ``run_*``: a background loop, run and restarted by the server (``run_writer``,
  ``run_timers``, ``run_sessions``).
- ``statistics()``: the counters the server reports, cheap to read at any time.
"""
