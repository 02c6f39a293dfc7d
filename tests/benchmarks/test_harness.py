"""benchmarks/_harness.py: the CPU of a server made of several processes, from /proc."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import _harness as h
from benchmarks._loadgen import process_cpu_seconds


def test_tree_cpu_counts_a_child_that_ended_and_was_reaped() -> None:
    """A server's connection process that ended in the middle of a measurement still counts:
    its parent has reaped it, and its CPU is in the parent's cutime."""
    burn = "sum(i * i for i in range(3_000_000))"
    script = f'{sys.executable} -c "{burn}"; echo reaped; read line; exit 0'
    with subprocess.Popen(
        ["sh", "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as shell:
        assert shell.stdin is not None and shell.stdout is not None
        # the shell echoes once its child has ended and it has waited for it
        assert shell.stdout.readline() == "reaped\n"
        assert process_cpu_seconds(shell.pid) < 0.05  # the shell's own time is next to nothing
        assert h.tree_cpu_seconds(shell.pid) >= 0.05  # the child's is counted with it
        shell.stdin.close()
        assert shell.wait(30) == 0


def test_a_server_is_stopped_with_its_own_signal(tmp_path: Path) -> None:
    """A server whose clean shutdown comes on SIGINT (SIGTERM would end it uncleanly) is
    stopped with SIGINT, and exits 0."""
    waits = (
        "import signal; signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}); "
        "print('waiting', flush=True); signal.sigwait({signal.SIGINT})"
    )
    log = tmp_path / "server.log"
    server = h.ServerProcess(
        [sys.executable, "-c", waits],
        port=0,
        log_path=log,
        name="waiter",
        stop_signal=signal.SIGINT,
    )
    server.start()
    try:
        deadline = time.monotonic() + 60
        while "waiting" not in (log.read_text() if log.exists() else ""):
            assert time.monotonic() < deadline, "the server never said it waits"
            server.check_alive()
        server.stop(timeout=30)
        assert server.returncode() == 0
    finally:
        server.kill()
