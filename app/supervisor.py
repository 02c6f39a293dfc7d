"""Supervisor: the server's named background loops, restarted when they fail, stopped together.

A loop that raises is logged with its name and restarted after a second, so a bug in one
sweeper never dies silently nor takes the server down; a loop that returns is done. ``stop``
cancels every loop and waits for them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger("sluice")

Loop = Callable[[], Awaitable[None]]


class Supervisor:
    def __init__(self, restart_delay_s: float = 1.0) -> None:
        self.restart_delay_s = restart_delay_s
        self._tasks: list[asyncio.Task[None]] = []

    def spawn(self, name: str, loop: Loop) -> None:
        async def supervised() -> None:
            while True:
                try:
                    await loop()
                    return
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception(
                        "background task %s failed; restarting it in %g s",
                        name,
                        self.restart_delay_s,
                    )
                    await asyncio.sleep(self.restart_delay_s)

        self._tasks.append(asyncio.create_task(supervised(), name=f"sluice-{name}"))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
