"""The data directory and its exclusive lock: one server per directory."""

from __future__ import annotations

import fcntl
import os


class DataDirLocked(RuntimeError):
    pass


class DataDir:
    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)
        self.logs = os.path.join(self.path, "logs")
        self.metadata = os.path.join(self.path, "metadata.db")
        self._lock_fd = -1

    @property
    def locked(self) -> bool:
        return self._lock_fd >= 0

    def lock(self) -> None:
        """Create the directory and take its lock; raise DataDirLocked if another holds it."""
        os.makedirs(self.path, exist_ok=True)
        fd = os.open(os.path.join(self.path, ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise DataDirLocked(
                f"the data directory {self.path} is in use by another Sluice server "
                f"(pid {holder}); stop it or choose another --data-dir"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._lock_fd = fd

    def unlock(self) -> None:
        if self._lock_fd >= 0:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = -1
