"""The data directory and its exclusive lock: one server per directory. The directory and
everything in it are the server's user's alone (``app.storage.modes``)."""

from __future__ import annotations

import fcntl
import logging
import os

from app.storage import modes

log = logging.getLogger("sluice.datadir")


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

    def create(self) -> None:
        """Create the directory (0700) unless it exists; its parents, outside it, get the
        usual permissions."""
        os.makedirs(self.path, modes.DIR_MODE, exist_ok=True)

    def lock(self) -> None:
        """Create the directory and take its lock; raise DataDirLocked if another holds it.
        Then take away the access of other users to what an older release left readable."""
        self.create()
        fd = os.open(os.path.join(self.path, ".lock"), os.O_RDWR | os.O_CREAT, modes.FILE_MODE)
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
        changed, refused = modes.tighten(self.path)
        if changed:
            log.warning(
                "data directory %s: took group and other users' access away from %d files and "
                "directories (the server keeps directories 0700 and files 0600)",
                self.path,
                changed,
            )
        if refused:
            log.warning(
                "data directory %s: %d files or directories of another user stay readable by "
                "others, such as %s",
                self.path,
                len(refused),
                refused[0],
            )

    def unlock(self) -> None:
        if self._lock_fd >= 0:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = -1
