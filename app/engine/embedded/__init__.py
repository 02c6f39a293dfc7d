"""The embedded engine behind the seam (``app.engine``): the server's own log, SQLite
metadata and data directory.

Today's objects, built by ``app.runtime.Broker``, implement most of the seam's protocols as
they are (``tests/unit/engine`` checks each, statically and by signature); this package holds
what the seam needs that no object of today implements: the state the event feed shows
(``feed.EmbeddedFeedState``, the ``Broker``'s ``feed_state``), the topics as the face asks for
them (``topics.EmbeddedTopics``), and every interface under the seam's names
(``engine.EmbeddedEngine``, the ``Broker``'s ``engine``, which ``app.api.deps.engine_of``
gives the routes moved onto the seam, docs/engine.md).
"""
