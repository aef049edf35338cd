"""What one GPU-hour costs: the catalogue's cited on-demand prices, or the reader's own.

Prices are catalogue content (content/catalogue/gpus/<key>.yaml, `price`: a public
on-demand list price with its source, row and date, or why none was found). A reader may
give their own (`--price h100=2.5,b200=6`): list prices are a starting point, not what a
contract costs. A GPU without either is ruled out with the reason, never priced by a guess.
"""

from __future__ import annotations

import math

from sims.kit.contract import InputError
from sims.physics import GPUS, Gpu


def parse_prices(text: str, name: str = "price") -> dict[str, float]:
    """`gpu=USD,gpu=USD` as {gpu key: dollars per GPU-hour}; InputError naming `name` for a
    malformed pair, an unknown GPU, or a price that is not above zero."""
    prices: dict[str, float] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep:
            raise InputError(name, f"expected GPU=USD pairs such as h100=2.5,b200=6, got "
                                   f"{part!r}")
        if key not in GPUS:
            raise InputError(name, f"expected a GPU of the catalogue ({', '.join(GPUS)}), "
                                   f"got {key!r}")
        try:
            price = float(value)
        except ValueError:
            raise InputError(name, f"expected a price in US dollars per GPU-hour for {key}, "
                                   f"got {value.strip()!r}") from None
        if not math.isfinite(price) or price <= 0:
            raise InputError(name, f"expected a price above 0 US dollars per GPU-hour for "
                                   f"{key}, got {value.strip()}: a GPU-hour is never free")
        prices[key] = price
    return prices


def price_of(gpu: Gpu, given: dict[str, float | None]) -> float | None:
    """The reader's price for `gpu` if given (None: the reader took it away), else the
    catalogue's; None if neither."""
    return given.get(gpu.key, gpu.price_per_gpu_hour)


def price_source(gpu: Gpu, given: dict[str, float | None]) -> str:
    """Where the price used comes from, in a sentence."""
    if gpu.key in given:
        price = given[gpu.key]
        return (f"{price:g} USD/h, given by the reader" if price is not None
                else "the reader set no price for it")
    return gpu.price_note or "no price"
