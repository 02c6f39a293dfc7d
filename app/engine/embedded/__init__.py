"""The embedded engine behind the seam (``app.engine``): the server's own log, SQLite
metadata and data directory.

Today's objects, built by ``app.runtime.Broker``, implement the seam's protocols as they are
(``tests/unit/engine`` checks each, statically and by signature); this package holds what the
seam needs that no object of today implements yet: the state the event feed shows
(``feed.EmbeddedFeedState``). Nothing here is used by the server yet (docs/engine.md).
"""
