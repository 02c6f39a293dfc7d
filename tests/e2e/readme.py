"""Runs the examples of the READMEs as written, section by section, against a real server.

A section is the text under a heading (``#``, ``##`` or ``###``) up to the next heading; each
runs on its own empty server process, its blocks in the order a reader meets them:

- ``console`` blocks hold ``$ command`` lines, each followed by the output the README shows. A
  command runs through bash with its standard error joined to its output (as a terminal shows
  both), the test environment's ``sluice`` and ``python`` first on PATH, ``SLUICE_URL`` set to
  the server, and ``localhost:8080`` swapped for the server's address. Output the README shows as
  JSON is compared as JSON (a record ``timestamp`` is the server's clock: any positive integer
  on both sides), any other output as text.
- ``python`` blocks run as programs (``python example.py``), ``js`` blocks as ES modules in Node
  with the client installed as ``sluice-client``; a ``js`` block that uses ``location`` is code
  for a page of the server and runs on one in headless Chromium (what it logs is its output). A
  ``text`` block right after one of these is what it prints; without one it must print nothing.
- A block that says it runs until Ctrl-C, and a page's code, which runs until the page closes,
  keep running while the console blocks after them run, as in a second terminal. Their output
  must be complete before the next Python or JavaScript block starts or the section ends; they
  are then interrupted (SIGINT, or the page closed) once the server holds no acquired record, so
  that what they acknowledged is applied, as it would be by the time a reader stops them.
- ``sh`` blocks run as bash scripts (``set -e``) in an empty directory; the README shows no
  output for them, so theirs is not compared.

Every block of the READMEs either runs so or is listed with its reason in ``NOT_RUN`` of
tests/e2e/test_readme.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import httpx
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.conftest import ROOT, ServerProcess


def _default_sigint() -> None:
    """In the child before it starts: SIGINT back to its default disposition."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


READMES = ("README.md", "clients/python/README.md", "clients/js/README.md")
PROGRAMS = ("python", "js")  # run as programs; a ``text`` block after one is its output
EXAMPLES = ("console", "sh", *PROGRAMS)  # the blocks that are examples to run
LISTINGS = ("", "text")  # a listing (a layout, a program's output), not a program
DEADLINE_S = 30.0


@dataclass(frozen=True)
class Block:
    file: str  # relative to the repository
    heading: str  # the section's heading line, e.g. "## A five-minute tour"
    language: str
    code: str
    line: int  # of the opening fence
    output: str | None = None  # a program's shown output (the ``text`` block after it)

    @property
    def first_line(self) -> str:
        return self.code.strip("\n").split("\n", 1)[0]

    def named(self, file: str, heading: str, start: str) -> bool:
        """Whether this is the block that NOT_RUN names: its file, section and how its first
        line starts."""
        return (self.file, self.heading) == (file, heading) and self.first_line.startswith(start)

    @property
    def in_browser(self) -> bool:
        return self.language == "js" and re.search(r"\blocation\.", self.code) is not None

    @property
    def until_interrupted(self) -> bool:
        return self.in_browser or "Ctrl-C" in self.code

    def where(self) -> str:
        return f"{self.file}:{self.line} ({self.heading})"


def blocks(file: str) -> list[Block]:
    """Every fenced block of a Markdown file, with its section; a ``text`` block right after a
    program is attached to it as its output (and not listed itself)."""
    lines = (ROOT / file).read_text().split("\n")
    found: list[Block] = []
    heading = lines[0]
    i = 0
    while i < len(lines):
        line = lines[i]
        if re.match(r"#{1,3} ", line):
            heading = line
        fence = re.match(r"(\s*)```(\w*)\s*$", line)
        if fence is None:
            i += 1
            continue
        indent, language = fence.groups()
        start, i = i, i + 1
        code = []
        while not lines[i].strip().startswith("```"):
            code.append(lines[i][len(indent) :])
            i += 1
        i += 1
        text = "\n".join(code) + "\n"
        previous = found[-1] if found else None
        if (
            language == "text"
            and previous is not None
            and previous.language in PROGRAMS
            and previous.heading == heading
            and previous.output is None
        ):
            found[-1] = Block(file, heading, previous.language, previous.code, previous.line, text)
            continue
        found.append(Block(file, heading, language, text, start + 1))
    return found


def sections(file: str, runnable: Callable[[Block], bool]) -> dict[str, list[Block]]:
    """The blocks to run of each section of ``file`` that has any, in order."""
    out: dict[str, list[Block]] = {}
    for b in blocks(file):
        if runnable(b):
            out.setdefault(b.heading, []).append(b)
    return out


def console_steps(block: Block) -> list[tuple[str, str]]:
    """(command, expected output) of each ``$`` line of a console block."""
    lines = block.code.strip("\n").split("\n")
    steps: list[tuple[str, str]] = []
    i = 0
    while i < len(lines):
        assert lines[i].startswith("$ "), f"{block.where()}: unexpected line {lines[i]!r}"
        command = lines[i][2:]
        output = []
        i += 1
        while i < len(lines) and not lines[i].startswith("$ "):
            output.append(lines[i])
            i += 1
        steps.append((command, "\n".join(output)))
    return steps


# -- comparing output ---------------------------------------------------------------------------


def masked(value: Any) -> Any:
    """The JSON with every record ``timestamp`` replaced by a marker, checked to be an int."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k == "timestamp" and isinstance(v, int) and v > 0:
                out[k] = "<timestamp>"
            else:
                out[k] = masked(v)
        return out
    if isinstance(value, list):
        return [masked(v) for v in value]
    return value


def _json(text: str) -> list[Any] | None:
    """The output as JSON documents: the whole of it, or one a line; None if it is not JSON."""
    try:
        return [json.loads(text)]
    except ValueError:
        pass
    try:
        return [json.loads(line) for line in text.split("\n") if line.strip()]
    except ValueError:
        return None


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").split("\n")] if text.strip() else []


def same_output(shown: str, printed: str) -> bool:
    expected = _json(shown) if shown.strip() else None
    if expected is not None:
        got = _json(printed)
        return got is not None and masked(got) == masked(expected)
    return _lines(printed) == _lines(shown)


# -- running ------------------------------------------------------------------------------------


def _address(code: str, server: ServerProcess) -> str:
    return code.replace("localhost:8080", f"127.0.0.1:{server.port}").replace(
        "127.0.0.1:8080", f"127.0.0.1:{server.port}"
    )


def environment(server: ServerProcess) -> dict[str, str]:
    env = {
        **os.environ,
        "SLUICE_URL": server.url,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONUNBUFFERED": "1",  # a program's output as it prints it, as in a terminal
    }
    env.pop("SLUICE_API_KEY", None)
    return env


class Running(Protocol):
    """A block left running (a consumer until Ctrl-C, a page until it closes)."""

    block: Block

    def printed(self) -> str: ...
    def wait_for(self, n_lines: int, deadline: float) -> None: ...
    def interrupt(self) -> None: ...
    def errors(self) -> str: ...


@dataclass
class Program:
    """A program running in the background; its output gathered by a thread as it comes."""

    block: Block
    proc: subprocess.Popen[str]
    out: list[str] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)

    def __post_init__(self) -> None:
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self.changed:
                self.out.append(line)
                self.changed.notify_all()
        with self.changed:
            self.out.append("")  # the end
            self.changed.notify_all()

    def printed(self) -> str:
        with self.changed:
            return "".join(self.out)

    def wait_for(self, n_lines: int, deadline: float) -> None:
        with self.changed:
            self.changed.wait_for(
                lambda: (
                    sum(1 for x in self.out if x.endswith("\n")) >= n_lines or self.out[-1:] == [""]
                ),
                timeout=max(0.0, deadline - time.monotonic()),
            )

    def interrupt(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)  # what Ctrl-C sends
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
                raise AssertionError(f"{self.block.where()}: Ctrl-C did not end it") from None

    def errors(self) -> str:
        """Its standard error, once it ended."""
        assert self.proc.stderr is not None
        return "" if self.proc.poll() is None else self.proc.stderr.read()

    def close(self) -> None:
        """Killed if it still runs; its pipes closed once its output is read to the end."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        self.reader.join(10)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


@dataclass
class Page:
    """A block of page code running on a page of the server; what it logs is its output."""

    block: Block
    page: Any  # playwright's Page

    def printed(self) -> str:
        return "".join(f"{line}\n" for line in self.page.evaluate("window.__logged"))

    def wait_for(self, n_lines: int, deadline: float) -> None:
        timeout_ms = max(1.0, (deadline - time.monotonic()) * 1000)
        with contextlib.suppress(PlaywrightTimeout):  # the comparison reports what was logged
            self.page.wait_for_function(
                "n => window.__logged.length >= n", arg=n_lines, timeout=timeout_ms
            )

    def interrupt(self) -> None:
        self.page.close()

    def errors(self) -> str:
        return ""


class SectionRun:
    """One section's blocks against one server, in order."""

    def __init__(self, server: ServerProcess, workdir: Path, stack: ExitStack) -> None:
        self.server = server
        self.workdir = workdir
        self.stack = stack
        self.env = environment(server)
        self.running: list[Running] = []
        self._browser: Any = None

    def run(self, block: Block) -> None:
        if block.language in PROGRAMS:
            self.finish_running()
        if block.language == "console":
            for command, shown in console_steps(block):
                self.console(block, command, shown)
        elif block.language == "sh":
            self.sh(block)
        elif block.in_browser:
            self.running.append(self.open_page(block))
        else:
            self.program(block)

    def console(self, block: Block, command: str, shown: str) -> None:
        done = subprocess.run(
            ["bash", "-c", _address(command, self.server)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=self.env,
            cwd=self.workdir,
            timeout=60,
        )
        assert done.returncode == 0, f"{block.where()}\n$ {command}\n{done.stdout}"
        assert same_output(shown, done.stdout), (
            f"{block.where()}\n$ {command}\nthe README shows:\n{shown}\nit printed:\n{done.stdout}"
        )

    def sh(self, block: Block) -> None:
        done = subprocess.run(
            ["bash", "-e", "-c", _address(block.code, self.server)],
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.workdir,
            timeout=120,
        )
        assert done.returncode == 0, f"{block.where()}\n{block.code}\n{done.stdout}{done.stderr}"

    def _command(self, block: Block) -> list[str]:
        code = _address(block.code, self.server)
        if block.language == "python":
            script = self.workdir / "example.py"
            script.write_text(code)
            return [sys.executable, str(script)]
        node = shutil.which("node")
        assert node is not None, "node is not installed: `make system-deps` installs it"
        modules = self.workdir / "node_modules"
        if not modules.exists():
            modules.mkdir()
            (modules / "sluice-client").symlink_to(ROOT / "clients" / "js")
        script = self.workdir / "example.mjs"
        script.write_text(code)
        return [node, str(script)]

    def program(self, block: Block) -> None:
        shown = block.output or ""
        if block.until_interrupted:
            proc = subprocess.Popen(
                self._command(block),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=self.env,
                cwd=self.workdir,
                # Ctrl-C as a terminal delivers it: a test run started in the background of a
                # shell ignores SIGINT, and a program inherits that (it then ran on after it)
                preexec_fn=_default_sigint,
            )
            program = Program(block, proc)
            self.stack.callback(program.close)
            self.running.append(program)
            return
        done = subprocess.run(
            self._command(block),
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.workdir,
            timeout=90,
        )
        assert done.returncode == 0 and done.stderr == "", f"{block.where()}\n{done.stderr}"
        assert same_output(shown, done.stdout), (
            f"{block.where()}\nthe README shows:\n{shown}\nit printed:\n{done.stdout}"
        )

    def open_page(self, block: Block) -> Page:
        if self._browser is None:
            from tests.e2e.browser import chromium

            self._browser = self.stack.enter_context(chromium())
        page = self._browser.new_page()
        page.goto(self.server.url + "/healthz")  # a page of the server: location is the server
        page.evaluate(
            """() => {
                window.__logged = [];
                console.log = (...args) => window.__logged.push(args.join(" "));
            }"""
        )
        page.evaluate(f"() => {{ {block.code} }}")
        return Page(block, page)

    def finish_running(self) -> None:
        """Wait for the output of what runs, then stop it once nothing is left acquired."""
        for r in self.running:
            shown = r.block.output or ""
            deadline = time.monotonic() + DEADLINE_S
            r.wait_for(len(_lines(shown)), deadline)
            printed = r.printed()
            if not same_output(shown, printed):
                r.interrupt()
                raise AssertionError(
                    f"{r.block.where()}\nthe README shows:\n{shown}\nit printed:\n{printed}"
                    f"\n{r.errors()}"
                )
            self.wait_until_nothing_is_acquired(deadline)
            r.interrupt()
        self.running = []

    def wait_until_nothing_is_acquired(self, deadline: float) -> None:
        with httpx.Client(base_url=self.server.url, timeout=10) as c:
            while True:
                groups = c.get("/v1/share-groups").json()["share_groups"]
                held = sum(
                    p["acquired"]
                    for g in groups
                    for p in c.get(f"/v1/share-groups/{g['group_id']}").json()["partitions"]
                )
                if held == 0:
                    return
                assert time.monotonic() < deadline, f"{held} records still acquired"
                time.sleep(0.05)


@contextmanager
def section_run(server: ServerProcess, workdir: Path) -> Iterator[SectionRun]:
    with ExitStack() as stack:
        run = SectionRun(server, workdir, stack)
        yield run
        run.finish_running()


def run_section(server: ServerProcess, workdir: Path, section: list[Block]) -> None:
    with section_run(server, workdir) as run:
        for block in section:
            run.run(block)
