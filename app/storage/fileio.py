"""The file layer: every write, fsync and truncate of the storage engine's files goes through
this module, so that a test can make the disk fail in ways a real filesystem will not on
demand (EIO, a failed fsync, a write that stored some bytes and then failed).

``write``, ``fsync`` and ``ftruncate`` are the ``os`` functions themselves until a ``Fault`` is
installed, so the seam costs the produce path nothing: callers look up ``fileio.write`` as they
would ``os.write``. ``install`` replaces them with wrappers that count calls and fail the chosen
one; ``remove`` puts the ``os`` functions back.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

write: Callable[[int, Any], int] = os.write
fsync: Callable[[int], None] = os.fsync
ftruncate: Callable[[int, int], None] = os.ftruncate


@dataclass(slots=True)
class Fault:
    """Fail the ``nth`` call (1-based) of ``op`` on files whose path ends with ``suffix``, and
    every later one while ``sticky``.

    ``op`` is ``"write"``, ``"fsync"`` or ``"ftruncate"``; ``error`` an ``errno`` value. With
    ``partial`` a failing write first stores that many bytes (a torn write), then raises; with
    ``short`` too it returns that count instead of raising (a short write).
    ``calls`` and ``failures`` count the matching calls seen and failed.
    """

    op: str
    error: int = errno.ENOSPC
    nth: int = 1
    sticky: bool = False
    partial: int = 0
    short: bool = False
    suffix: str = ""
    calls: int = 0
    failures: int = 0

    def _hit(self, fd: int) -> bool:
        if self.suffix and not os.readlink(f"/proc/self/fd/{fd}").endswith(self.suffix):
            return False
        self.calls += 1
        if self.calls == self.nth or (self.sticky and self.calls > self.nth):
            self.failures += 1
            return True
        return False

    def _raise(self) -> None:
        raise OSError(self.error, f"{os.strerror(self.error)} (injected)")


def install(*faults: Fault) -> None:
    """Route the file layer through ``faults`` (at most one per operation)."""
    global write, fsync, ftruncate
    remove()
    for fault in faults:
        if fault.op == "write":
            write = _failing_write(fault)
        elif fault.op == "fsync":
            fsync = _failing_fsync(fault)
        elif fault.op == "ftruncate":
            ftruncate = _failing_ftruncate(fault)
        else:
            raise ValueError(f"unknown file operation {fault.op!r}")


def _failing_write(fault: Fault) -> Callable[[int, Any], int]:
    def failing_write(fd: int, data: Any, /) -> int:
        if fault._hit(fd):
            if fault.short:  # stores the first bytes and says so, as a full disk may
                return os.write(fd, memoryview(data)[: fault.partial])
            if fault.partial:
                os.write(fd, memoryview(data)[: fault.partial])
            fault._raise()
        return os.write(fd, data)

    return failing_write


def _failing_fsync(fault: Fault) -> Callable[[int], None]:
    def failing_fsync(fd: int, /) -> None:
        if fault._hit(fd):
            fault._raise()
        os.fsync(fd)

    return failing_fsync


def _failing_ftruncate(fault: Fault) -> Callable[[int, int], None]:
    def failing_ftruncate(fd: int, length: int, /) -> None:
        if fault._hit(fd):
            fault._raise()
        os.ftruncate(fd, length)

    return failing_ftruncate


def remove() -> None:
    """Back to the plain ``os`` functions."""
    global write, fsync, ftruncate
    write, fsync, ftruncate = os.write, os.fsync, os.ftruncate
