"""The seam's push session: one share-group member fed over one WebSocket, with a credit
window (docs/semantics.md#push-sessions).

Used by ``app/api/routes/consume.py``, which opens it with ``ShareGroups.open_push``
(embedded: ``app.share.push.PushSession``). On Kafka the
session is a member of the group run by the gateway that accepted the socket:
ShareGroupHeartbeat while it lives, ShareFetch in ``record_limit`` mode for the room in the
window, renew acknowledgements at half the lock (docs/kafka.md, "Push over WebSocket").

Whatever ends the socket ends the session (``close``): its member leaves and its records are
released (the embedded engine lowers their delivery count by one; Kafka
raises it by one). ``acknowledge`` and ``renew`` answer once their
changes are durable, as the HTTP acknowledge does; ``next_batch`` waits for records.
"""

from __future__ import annotations

from typing import Protocol

from app.clock import Clock
from app.engine.share import ShareGroups
from app.errors import SluiceError
from app.share.coordinator import AckRequest, FetchAnswer, PartitionKey
from app.share.membership import Member
from app.share.session_state import SessionState


class BatchesUnread(Exception):
    """``next_batch`` could not read the stored batches of the records it just put in the
    window. Not a ``SluiceError``: the socket's push loop, after its own checks, ends as for
    an unexpected error (1011)."""


class PushSession(Protocol):
    @property
    def share(self) -> ShareGroups:
        """The share groups it consumes from (the socket asks ``stopping`` of them)."""
        ...

    @property
    def group_id(self) -> str: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def state(self) -> SessionState:
        """Which frames the socket takes now (``app.share.session_state.FRAMES``)."""
        ...

    @property
    def credits(self) -> int: ...

    @property
    def auto_renew(self) -> bool: ...

    async def subscribe(
        self, topics: list[str], member_id: str | None, credits: int, auto_renew: bool
    ) -> Member:
        """Join (or take over ``member_id``, the principal's own) with a window of
        ``credits``. Raises ``UNKNOWN_MEMBER_ID``, ``GROUP_MAX_SIZE_REACHED``."""
        ...

    async def acknowledge(self, acks: AckRequest) -> list[tuple[PartitionKey, SluiceError | None]]:
        """As the HTTP acknowledge, for records this session holds; reopens the window.
        Raises ``UNKNOWN_MEMBER_ID`` (the member is gone: the socket calls ``lost``)."""
        ...

    async def next_batch(self, batches: bool = ...) -> FetchAnswer | None:
        """Records for the room in the window, once some come (None: nothing to send now,
        the session paused or ended); with ``batches`` (a socket of ``format=batches``), the
        answer's ``batches`` are the stored batches that hold them (the embedded engine
        reads them once the records are in the window, not while the server stops; on Kafka
        the ShareFetch answer carries them). Raises ``UNKNOWN_MEMBER_ID``,
        ``KAFKA_STORAGE_ERROR``, and ``BatchesUnread`` when the batches could not be read."""
        ...

    async def renew(self) -> list[tuple[PartitionKey, SluiceError | None]]:
        """Renew every lock the session holds (``auto_renew``)."""
        ...

    def check(self) -> None:
        """Look at the records whose locks are due: those expired or acknowledged elsewhere
        leave the window."""
        ...

    async def close(self) -> None:
        """The socket ended: the member leaves, its records are released."""
        ...

    async def pause(self) -> None:
        """After a passing failure: wait a little before the next ``next_batch``."""
        ...

    def grant(self, n: int) -> None:
        """A ``credit`` frame: widen the window by ``n`` (up to the server's limit)."""
        ...

    def lost(self) -> None:
        """The member is gone from under the session: back to subscribe."""
        ...

    async def wait_due(self) -> None:
        """Return when the next lock deadline may have moved or come."""
        ...

    def next_due(self) -> int | None:
        """The next lock deadline (ms since the epoch), None while nothing is held."""
        ...
