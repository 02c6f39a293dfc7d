"""The ``sluice`` command line's parsing and help, without a server: the global options in every
position, and help that reads as plain text."""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest
from sluice import cli


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command path of the parser: (), ("topics",), ("topics", "list"), …"""
    found = [path]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found += _commands(child, (*path, name))
    return found


COMMANDS = _commands(cli._parser())


def test_every_command_is_found() -> None:
    assert ("topics", "list") in COMMANDS and ("share-groups",) in COMMANDS
    assert len(COMMANDS) == 11  # sluice, its 6 commands, the 4 actions of topics


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(("sluice", *p)))
def test_help_reads_as_plain_text(path: tuple[str, ...]) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as done:
        cli.main([*path, "--help"])
    assert done.value.code == 0
    text = out.getvalue()
    assert text.startswith("usage: sluice")
    assert "`" not in text, text  # reStructuredText markup, once shown as ``sluice``


GLOBAL = ["--url", "http://example.test:1", "--api-key", "k-1", "--output", "json"]


@pytest.mark.parametrize(
    "argv",
    [
        [*GLOBAL, "topics", "list"],  # before the command
        ["topics", *GLOBAL, "list"],  # between the command and its action
        ["topics", "list", *GLOBAL],  # at the end
        [
            "--url",
            "http://example.test:1",
            "topics",
            "--api-key",
            "k-1",
            "list",
            "--output",
            "json",
        ],
        [*GLOBAL, "consume", "orders", "--partition", "1"],
        ["consume", *GLOBAL, "orders", "--partition", "1"],  # before the command's arguments
        ["consume", "orders", *GLOBAL, "--partition", "1"],  # among them
        ["consume", "orders", "--partition", "1", *GLOBAL],
        ["share-groups", "--list", *GLOBAL],
        ["groups", *GLOBAL, "--list"],
        ["transactions", "--list", *GLOBAL],
        ["produce", "orders", *GLOBAL],
    ],
    ids=lambda argv: " ".join(argv),
)
def test_global_options_go_anywhere(argv: list[str]) -> None:
    args = cli._parser().parse_args(argv)
    assert (args.url, args.api_key, args.output) == ("http://example.test:1", "k-1", "json")


def test_global_options_keep_their_defaults_and_the_last_one_given_counts() -> None:
    args = cli._parser().parse_args(["topics", "list"])
    assert (args.url, args.api_key, args.output) == (None, None, "text")
    args = cli._parser().parse_args(["--output", "json", "topics", "list", "--output", "text"])
    assert args.output == "text"
    with pytest.raises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
        cli._parser().parse_args(["topics", "list", "--output", "yaml"])


def test_share_group_offsets_show_an_unknown_lag_as_a_dash(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A gateway on Kafka answers a null lag where Kafka gives none; the table shows ``-``
    there, as Kafka's own tool does, not ``None``."""
    described = {
        "partitions": [
            {"topic": "orders", "partition": 0, "start_offset": 4, "lag": None},
            {"topic": "orders", "partition": 1, "start_offset": 2, "lag": 7},
        ]
    }
    cli._print_offsets("workers", described, verbose=False)
    lines = [line.split() for line in capsys.readouterr().out.strip().splitlines()]
    assert lines == [
        ["GROUP", "TOPIC", "PARTITION", "START-OFFSET", "LAG"],
        ["workers", "orders", "0", "4", "-"],
        ["workers", "orders", "1", "2", "7"],
    ]
