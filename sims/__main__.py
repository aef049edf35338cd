"""Command line: `python -m sims --list` and `python -m sims <module> [--<input> <value> ...]`.

Prints a sim's result as one JSON object. A bad input exits with status 2 and a message
that names the input and its allowed range (the same message the page shows).
"""

from __future__ import annotations

import argparse
import json
import sys

from sims import load, sim_names
from sims.contract import validate


def _list() -> int:
    for name in sim_names():
        print(f"{name:18} {load(name).TITLE}")
    return 0


def _sim_parser(name: str) -> argparse.ArgumentParser:
    module = load(name)
    parser = argparse.ArgumentParser(prog=f"python -m sims {name}", description=module.TITLE)
    for spec in module.INPUTS:
        parser.add_argument(
            f"--{spec.name}",
            metavar="VALUE",
            help=f"{spec.label}: {spec.allowed()} (default {spec.default})",
        )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        print("usage: python -m sims --list | python -m sims <module> [--<input> <value> ...]")
        return 0 if args else 2
    if args[0] == "--list":
        return _list()
    name, rest = args[0], args[1:]
    try:
        module = load(name)
    except LookupError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    given = {k: v for k, v in vars(_sim_parser(name).parse_args(rest)).items() if v is not None}
    try:
        validate(module.INPUTS, given)
        result = module.simulate(**given)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    json.dump(result, sys.stdout, sort_keys=False)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
