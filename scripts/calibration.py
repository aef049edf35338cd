"""`make calibration`: the physics against published measurements, per category, on the
training points and on the held-out ones; `make fit`: fit the kernel profiles, then the
engines' overheads, to the training points alone and write them (content/catalogue/kernels/,
content/catalogue/engines/).

    python scripts/calibration.py           # the table (under a minute)
    python scripts/calibration.py --fit     # refit and rewrite the profiles, then the table
    python scripts/calibration.py --check   # exit 1 if the profiles are not what a fit gives
"""

from __future__ import annotations

import argparse
import sys

from calibrate.harness import Harness
from calibrate.report import table
from ridgepoint.base.layout import repository


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", action="store_true", help="refit and rewrite the profiles")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if the profiles are not what a fit gives")
    args = parser.parse_args(argv)
    layout = repository()
    harness = Harness(layout)
    if args.fit or args.check:
        from calibrate.engines import refit_engines  # scipy: needed only to fit
        from calibrate.profiles import refit

        changed = refit(harness, layout, write=args.fit)
        if args.fit:  # the served runs are priced on the kernel profiles just written
            harness = Harness(layout)
        changed += refit_engines(harness, layout, write=args.fit)
        if args.check:
            if changed:
                print("these kernel and engine profiles are not what a fit of the training "
                      "set gives: "
                      + ", ".join(changed) + " (run make fit)", file=sys.stderr)
                return 1
            return 0
        harness = Harness(layout)
    print(table(harness))
    return 0


if __name__ == "__main__":
    sys.exit(main())
