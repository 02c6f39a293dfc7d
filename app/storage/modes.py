"""The permissions of what the server and its commands create in the data directory: every
directory 0700 and every file 0600, so that other local users read neither the records nor
the metadata (key hashes, ACLs, offsets).

The modes are given where each file and directory is created (``os.open`` and ``os.mkdir``
with a mode), not by changing the process umask: the umask is the whole process's, and
several servers may run in one process (the tests do). A umask can only take bits away, so
the modes hold whatever the umask is.

``tighten`` brings a directory made by an older release (0755 directories, 0644 files) to
these modes at start.
"""

from __future__ import annotations

import os
import stat

DIR_MODE = 0o700
FILE_MODE = 0o600
_OTHERS = 0o077  # the group's and other users' bits


def make_dirs(path: str) -> None:
    """Create ``path`` and its missing parents, each with ``DIR_MODE`` (``os.makedirs`` gives
    its mode to the last directory only). For directories inside the data directory."""
    if os.path.isdir(path):
        return
    parent = os.path.dirname(os.path.abspath(path))
    if parent != path:
        make_dirs(parent)
    try:
        os.mkdir(path, DIR_MODE)
    except FileExistsError:
        if not os.path.isdir(path):
            raise


def create_file(path: str) -> None:
    """Create ``path``, empty, with ``FILE_MODE`` unless it exists (for a file another library
    opens afterwards, such as SQLite's database: SQLite gives its -wal and -shm files the
    database file's permissions)."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE))


def tighten(root: str) -> tuple[int, list[str]]:
    """Take the group's and other users' access away from ``root`` and everything under it
    (symbolic links are left alone); answers how many files and directories changed, and
    those that could not be (another user's: the server still starts)."""
    changed = 0
    refused: list[str] = []

    def private(path: str) -> None:
        nonlocal changed
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode) or not st.st_mode & _OTHERS:
            return
        try:
            os.chmod(path, stat.S_IMODE(st.st_mode) & ~_OTHERS)
        except PermissionError:
            refused.append(path)
            return
        changed += 1

    private(root)
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            private(os.path.join(directory, name))
    return changed, refused
