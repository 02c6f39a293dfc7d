"""The Dockerfile and its build context read as the image builder reads them, so that tests can
check the image's layout without a container engine.

- ``instructions`` splits the Dockerfile into (keyword, arguments), joining continued lines.
- ``context`` is the set of files the builder is given: every file under the directory less
  what ``.dockerignore`` keeps out. Patterns are matched as the builder matches them: relative
  to the context's root (``data`` is the top-level ``data`` only), ``*`` and ``?`` within one
  path component, ``**`` across any number of them, a pattern that matches a directory keeps
  out everything under it, ``!`` lets a path back in, and the last matching line wins.
- ``lay_out`` performs the COPY lines into a directory that stands for the image's root:
  sources come from the context, a directory's contents are copied into the destination, and
  links are copied as links (COPY does not follow them).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path


def instructions(dockerfile: Path) -> list[tuple[str, str]]:
    """(KEYWORD, arguments) of every instruction, comments dropped, continued lines joined."""
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in dockerfile.read_text().splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if pending and line.startswith("#"):
            continue  # a comment inside a continued instruction
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        full = (pending + line).strip()
        pending = ""
        keyword, _, args = full.partition(" ")
        out.append((keyword.upper(), args.strip()))
    assert not pending, "the Dockerfile ends inside a continued line"
    return out


@dataclass(frozen=True)
class Copy:
    sources: tuple[str, ...]
    destination: str


def copies(dockerfile: Path) -> list[Copy]:
    """The COPY lines from the build context (no --from, which copies from another stage)."""
    found = []
    for keyword, args in instructions(dockerfile):
        if keyword != "COPY":
            continue
        words = shlex.split(args)
        assert not any(w.startswith("--from") for w in words), "COPY --from is not laid out here"
        words = [w for w in words if not w.startswith("--")]
        found.append(Copy(tuple(words[:-1]), words[-1]))
    return found


@dataclass(frozen=True)
class _Pattern:
    regex: re.Pattern[str]
    exclusion: bool  # a "!" line: lets matching paths back in
    text: str


def _compile(pattern: str) -> re.Pattern[str]:
    out = ""
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out += "(.*/)?"
            i += 3
            continue
        if pattern.startswith("**", i):
            out += ".*"
            i += 2
            continue
        if c == "*":
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif c == "[":
            end = pattern.index("]", i)
            out += pattern[i : end + 1]
            i = end
        elif c == "\\" and i + 1 < len(pattern):
            i += 1
            out += re.escape(pattern[i])
        else:
            out += re.escape(c)
        i += 1
    return re.compile(out + r"\Z")


def ignore_patterns(ignore_file: Path) -> list[_Pattern]:
    patterns: list[_Pattern] = []
    if not ignore_file.exists():
        return patterns
    for raw in ignore_file.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        exclusion = line.startswith("!")
        text = os.path.normpath(line[1:].strip() if exclusion else line).lstrip("/")
        patterns.append(_Pattern(_compile(text), exclusion, text))
    return patterns


def ignored(path: str, patterns: list[_Pattern]) -> bool:
    """Whether the builder keeps ``path`` (relative, with ``/``) out of the context."""
    parts = path.split("/")
    prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    result = False
    for p in patterns:
        if any(p.regex.match(prefix) for prefix in prefixes):
            result = not p.exclusion
    return result


def context(root: Path, ignore_file: Path | None = None) -> set[str]:
    """Every file (or link) of the build context of ``root``, relative, with ``/``."""
    patterns = ignore_patterns(ignore_file or root / ".dockerignore")
    exclusions = [p for p in patterns if p.exclusion]
    found: set[str] = set()
    for directory, dirs, files in os.walk(root):
        rel = Path(directory).relative_to(root).as_posix()
        base = "" if rel == "." else rel + "/"
        # a directory kept out whole is not walked, unless a "!" line could let something under
        # it back in (the builder takes the same shortcut)
        dirs[:] = [
            d
            for d in dirs
            if not ignored(base + d, patterns)
            or any(_may_reach_under(base + d, p.text) for p in exclusions)
        ]
        for name in files + [d for d in dirs if (Path(directory) / d).is_symlink()]:
            if not ignored(base + name, patterns):
                found.add(base + name)
    return found


def _may_reach_under(directory: str, pattern: str) -> bool:
    """Whether ``pattern`` could match a path below ``directory`` (erring towards yes)."""
    dparts, pparts = directory.split("/"), pattern.split("/")
    for n, d in enumerate(dparts):
        if n >= len(pparts) or pparts[n] == "**" or "**" in pparts[n]:
            return True
        if not _compile(pparts[n]).match(d):
            return False
    return True


def lay_out(root: Path, image_root: Path, dockerfile: Path | None = None) -> list[Path]:
    """Perform the Dockerfile's COPY lines from the build context of ``root`` into
    ``image_root`` (the image's ``/``); returns the destinations."""
    dockerfile = dockerfile or root / "Dockerfile"
    files = context(root)
    made = []
    for copy in copies(dockerfile):
        dest = image_root / copy.destination.lstrip("/")
        into_directory = copy.destination.endswith("/") or len(copy.sources) > 1
        for source in copy.sources:
            under = [f for f in sorted(files) if f == source or f.startswith(source + "/")]
            assert under, f"COPY {source}: not in the build context"
            if under == [source] and not (root / source).is_dir():
                target = dest / Path(source).name if into_directory else dest
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(root / source, target, follow_symlinks=False)
                made.append(target)
                continue
            for f in under:  # a directory: its contents go into the destination
                target = dest / Path(f).relative_to(source)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(root / f, target, follow_symlinks=False)
            made.append(dest)
    return made
