"""Small durable files beside the segments (checkpoint, log start, producer snapshot).

A small file is written whole to a temporary name and renamed over the old one, so a reader
finds the old or the new content, never a mix; with ``sync`` the data and the directory entry
are fsynced. Fixed-size records carry a CRC so that a torn or foreign file reads as absent.
"""

from __future__ import annotations

import contextlib
import errno
import os
import struct
import zlib

from app.storage import fileio, modes


def write_small_file(path: str, data: bytes, *, sync: bool) -> None:
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, modes.FILE_MODE)
    try:
        if (written := fileio.write(fd, data)) != len(data):
            raise OSError(errno.ENOSPC, f"short write ({written} of {len(data)} bytes)")
        if sync:
            fileio.fsync(fd)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)  # a full disk must not keep a half-written copy
        raise
    finally:
        os.close(fd)
    os.replace(tmp, path)
    if sync:
        fsync_directory(os.path.dirname(path) or ".")


def fsync_directory(path: str) -> None:
    """Make created, renamed or removed entries of a directory durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        fileio.fsync(fd)
    finally:
        os.close(fd)


def pack_checked(s: struct.Struct, *values: int) -> bytes:
    body = s.pack(*values)
    return body + struct.pack("<I", zlib.crc32(body))


def unpack_checked(s: struct.Struct, data: bytes) -> tuple[int, ...] | None:
    if len(data) != s.size + 4:
        return None
    body, (crc,) = data[: s.size], struct.unpack("<I", data[s.size :])
    return s.unpack(body) if zlib.crc32(body) == crc else None


def read_file(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None
