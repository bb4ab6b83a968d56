"""``--smoke``: the smallest run of a bench script, so that a script that no longer runs is found
by the Test command (``tests/test_benches.py`` runs every script's smoke in a child process).

A smoke run goes through the script's code at a size that takes seconds; it checks nothing but
that the script ends without an error, and the figures it prints mean nothing. Each script
names its own smoke size (``parse_args(parser, beats=1, ...)``: the defaults ``--smoke`` puts in
place; an option given on the command line still wins)."""

from __future__ import annotations

import argparse
from typing import Any

HELP = "the smallest run (seconds; for the Test command: its figures mean nothing)"


def parse_args(
    parser: argparse.ArgumentParser, argv: list[str] | None = None, **small: Any
) -> argparse.Namespace:
    """``parser``'s arguments with ``--smoke`` added; with it, ``small`` are the defaults."""
    parser.add_argument("--smoke", action="store_true", help=HELP)
    args = parser.parse_args(argv)
    if args.smoke:
        parser.set_defaults(**small)
        args = parser.parse_args(argv)
    return args
