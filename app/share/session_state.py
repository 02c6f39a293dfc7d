"""The state of a push session (one WebSocket on ``/v1/share-groups/{g}/consume``) and the one
table of its legal moves, with the client frames each state takes.

``CONNECTED`` (the socket is open, no member yet) ``→ SUBSCRIBED`` on a ``subscribe`` frame that
joined or resumed a member; ``SUBSCRIBED → CONNECTED`` when the member is gone from under the
session (removed by a leave on another connection, or its group deleted): the client may
subscribe again. Either ``→ CLOSED`` when the socket closes; ``CLOSED`` is terminal. The table
lists, per state, the states it may be reached from (``app.states``).
"""

from __future__ import annotations

import enum


class SessionState(enum.Enum):
    CONNECTED = "connected"
    SUBSCRIBED = "subscribed"
    CLOSED = "closed"


# target state → the states it may be reached from
VALID_PREVIOUS: dict[SessionState, frozenset[SessionState]] = {
    # the member is gone: subscribe again
    SessionState.CONNECTED: frozenset({SessionState.SUBSCRIBED}),
    SessionState.SUBSCRIBED: frozenset({SessionState.CONNECTED}),
    SessionState.CLOSED: frozenset({SessionState.CONNECTED, SessionState.SUBSCRIBED}),
}

# the client frames each state takes; any other frame is answered with an error frame
FRAMES: dict[SessionState, frozenset[str]] = {
    SessionState.CONNECTED: frozenset({"subscribe"}),
    SessionState.SUBSCRIBED: frozenset({"ack", "credit"}),
    SessionState.CLOSED: frozenset(),
}
