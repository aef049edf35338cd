"""How a sim's results read on the page: the twin of content/assets/sim/format.js.

The build writes the prerendered summary with `display`; the live widget rewrites it with
format.js. Both must give the same text for every value (a test compares them over
thousands of numbers), so that the table does not change when Python takes over.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

SIGNIFICANT = 4  # digits a result keeps, beyond those of its integer part
FIXED = range(-3, 16)  # exponents n (value = 0.digits x 10^n) written out, not as 1.2e-5


def display(value: Any) -> str:
    """A result value as the page shows it, character for character what format.js shows.

    A number keeps every digit of its integer part and at most 4 significant digits in all
    (12,346; 592.5; 1.993; 0.006416), commas between thousands, and is written as 1.235e-5
    below 0.0001 and from 10^15 on. Both languages round the shortest round-trip digits (the
    text of JavaScript's String(number), which `_js_number` reproduces) as decimal text, half
    up, so the prerendered table and the live one compare as text.
    """
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    digits, n = _shortest(abs(value))
    if n not in FIXED:
        digits, n = _round(digits, n, SIGNIFICANT)
        mantissa = f"{digits[0]}.{digits[1:]}" if len(digits) > 1 else digits
        return f"{sign}{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"
    digits, n = _round(digits, n, max(SIGNIFICANT, n))
    whole = digits[:n].ljust(n, "0") if n > 0 else "0"
    fraction = digits[n:] if n > 0 else "0" * -n + digits
    return f"{sign}{int(whole):,}" + (f".{fraction}" if fraction else "")


def exact(number: float) -> str:
    """A number exactly as JavaScript's String() writes it: for control values, which the
    widget reads back and compares with what the reader types."""
    return _js_number(number)


def _shortest(number: float) -> tuple[str, int]:
    """(digits, n) with number = 0.digits x 10^n, from the text JavaScript writes for it."""
    mantissa, _, exponent = _js_number(number).partition("e")
    whole, _, fraction = mantissa.partition(".")
    every = whole + fraction
    lead = len(every) - len(every.lstrip("0"))
    return every[lead:].rstrip("0"), len(whole) + int(exponent or 0) - lead


def _round(digits: str, n: int, keep: int) -> tuple[str, int]:
    """`digits` rounded half up to `keep` digits; n grows by one when 99.. becomes 100.."""
    if len(digits) <= keep:
        return digits, n
    head = digits[:keep]
    if digits[keep] >= "5":
        up = str(int(head) + 1)
        n += len(up) > len(head)
        head = up
    return head.rstrip("0"), n


def _js_number(number: float) -> str:
    """ECMAScript Number::toString(10) for a finite number."""
    if number == 0:
        return "0"
    sign = "-" if number < 0 else ""
    _, digit_tuple, exponent = Decimal(repr(abs(float(number)))).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    k = len(digits)
    n = k + int(exponent)  # the value is 0.digits x 10^n
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = f"{digits[:n]}.{digits[n:]}"
    elif -6 < n <= 0:
        body = "0." + "0" * -n + digits
    else:
        mantissa = digits[0] + (f".{digits[1:]}" if k > 1 else "")
        body = f"{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"
    return sign + body
