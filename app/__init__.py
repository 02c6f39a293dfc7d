"""Sluice: Kafka's queue and exactly-once semantics over plain HTTP.

Layers, each importing only the ones below it: ``api`` (routers and wire) → ``runtime`` (the
composition root) → ``feed`` (the dashboards' event feed, reading the layers below) → the
coordinators (``transactions``, ``groups``, ``share``) and the services (``producers``,
``reads``, ``retention``) → ``topics``, ``flusher`` → ``metadata`` (SQLite) and ``storage``
(the log engine) → ``errors``, ``config``, ``clock``.

Conventions used throughout:

- State changes are synchronous; an operation that must be durable is ``prepare`` (validate and
  stage, turning concurrent callers away) → await the write → ``complete`` (install), or
  ``abort_pending`` / ``rollback`` when the write fails. Never read, await, then write on the
  stale read.
- Context managers that hold a change open across a write are named ``staging_*`` (a change
  joining a transaction) and ``ending_*`` (a transaction's end applied to a participant).
- Background loops are ``run_*`` methods, started and restarted by the ``Supervisor``.
- Every service answers ``statistics()`` with counts for the metrics page and the dashboard.
- State machines live in their own modules as tables of allowed previous states, with no I/O.
- Errors are ``SluiceError`` subclasses carrying an ``ErrorCode`` (``app.errors``); foreign
  errors are mapped where they arise (storage, metadata) and nowhere else.
"""

__version__ = "0.1.0"
