"""Quantities with units, as editors write them in the catalogue: "3.35 TB/s", "989 TFLOP/s".

The schemas hold the patterns that say which spellings are allowed (so an editor's YAML
language server flags a bad unit as it is typed); this module turns an allowed spelling into
a number in base units: bytes, bytes per second, FLOP per second, or a plain count. Decimal
prefixes are the datasheets' (1 GB = 10^9 bytes); KiB, MiB and GiB are binary. A network
rate in bits per second ("400 Gb/s") becomes bytes per second.
"""

from __future__ import annotations

import re

# unit -> factor to the base unit of its kind
UNITS: dict[str, dict[str, float]] = {
    "bytes": {"B": 1.0, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
              "KiB": 2.0**10, "MiB": 2.0**20, "GiB": 2.0**30},
    "bytes_per_s": {"B/s": 1.0, "KB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9, "TB/s": 1e12,
                    "Gb/s": 1e9 / 8, "Tb/s": 1e12 / 8},
    "flops": {"GFLOP/s": 1e9, "TFLOP/s": 1e12, "PFLOP/s": 1e15},
    "params": {"M": 1e6, "B": 1e9, "T": 1e12},
}

# A parameter count is written without a space ("8B", "30.5B"), as model cards do.
_SPACED = re.compile(r"([0-9]+(?:\.[0-9]+)?) (\S+)")
_COUNT = re.compile(r"([0-9]+(?:\.[0-9]+)?)([MBT])")


def pattern(kind: str) -> str:
    """The regular expression the schema uses for a quantity of this kind."""
    units = "|".join(re.escape(unit) for unit in UNITS[kind])
    if kind == "params":
        return f"^[0-9]+(\\.[0-9]+)?({units})$"
    return f"^[0-9]+(\\.[0-9]+)? ({units})$"


def parse(text: str, kind: str) -> float:
    """The value of `text` (already matched by `pattern(kind)`) in base units."""
    match = (_COUNT if kind == "params" else _SPACED).fullmatch(text)
    if match is None or match.group(2) not in UNITS[kind]:
        raise ValueError(f"{text!r} is not a quantity of kind {kind!r}")
    return float(match.group(1)) * UNITS[kind][match.group(2)]
