"""C's ``strtoll``/``strtoull`` (base 0) and ``strtod`` in the C locale, and ``printf("%f")``.

Each parse returns the value, the number of characters consumed (0 = no conversion) and
whether ``errno`` would be ``ERANGE``. Time is linear in the text: only the characters of the
number are looked at once, and a 10^5-digit number is handled without building a 10^5-digit
integer more than once.
"""

from __future__ import annotations

import math
import re

__all__ = ["format_f", "strtod", "strtoll", "strtoull"]

_SPACE = " \t\n\v\f\r"
_INT = re.compile(r"[ \t\n\v\f\r]*([+-]?)(0[xX](?=[0-9a-fA-F])|0?)")
_DIGITS = {16: re.compile(r"[0-9a-fA-F]*"), 8: re.compile(r"[0-7]*"), 10: re.compile(r"[0-9]*")}
_FLOAT = re.compile(
    r"[ \t\n\v\f\r]*"
    r"([+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
    r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
    r"|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN](?:\([0-9A-Za-z_]*\))?))")
_LIMIT = 1 << 64


def _parse_int(text: str) -> tuple[int, int, bool]:
    """Magnitude with sign, characters consumed, and whether |value| >= 2^64."""
    head = _INT.match(text)
    assert head is not None
    sign, prefix = head.group(1), head.group(2)
    if prefix.lower() == "0x":
        base = 16
    elif prefix == "0":
        base = 8
    else:
        base = 10
    digits_match = _DIGITS[base].match(text, head.end())
    assert digits_match is not None
    digits = digits_match.group()
    if not digits and prefix != "0":
        return 0, 0, False
    digits = digits.lstrip("0")
    huge = len(digits) > 64
    magnitude = 0 if huge or not digits else int(digits, base)
    if magnitude >= _LIMIT:
        huge = True
    value = -magnitude if sign == "-" else magnitude
    return value, digits_match.end(), huge


def strtoll(text: str) -> tuple[int, int, bool]:
    """``strtoll(text, &end, 0)``: value, characters consumed, ERANGE."""
    value, used, huge = _parse_int(text)
    if huge or value > (1 << 63) - 1:
        negative = text.lstrip(_SPACE).startswith("-")
        return (-(1 << 63) if negative else (1 << 63) - 1), used, True
    if value < -(1 << 63):
        return -(1 << 63), used, True
    return value, used, False


def strtoull(text: str) -> tuple[int, int, bool]:
    """``strtoull(text, &end, 0)``: a leading ``-`` negates modulo 2^64, as C does."""
    value, used, huge = _parse_int(text)
    if huge:
        return _LIMIT - 1, used, True
    return value % _LIMIT, used, False


def strtod(text: str) -> tuple[float, int, bool]:
    """``strtod(text, &end)`` in the C locale: decimal and hex floats, ``inf``, ``nan``;
    ERANGE on overflow and on underflow to a denormal or zero."""
    match = _FLOAT.match(text)
    if match is None:
        return 0.0, 0, False
    number = match.group(1)
    lowered = number.lower().lstrip("+-")
    negative = number.startswith("-")
    if lowered.startswith(("inf", "nan")):
        value = math.inf if lowered.startswith("inf") else math.nan
        return (-value if negative else value), match.end(), False
    value = _hex_float(lowered) if lowered.startswith("0x") else _decimal(lowered)
    if math.isinf(value):
        return (-value if negative else value), match.end(), True
    erange = (value == 0.0 and _nonzero(lowered)) or 0.0 < value < 2.2250738585072014e-308
    return (-value if negative else value), match.end(), bool(erange)


def _decimal(text: str) -> float:
    mantissa, _, exponent = text.partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    exp = (int(exponent) if exponent else 0) - len(frac)
    if not digits:
        return 0.0
    exp += len(digits)
    if exp > 400:
        return math.inf
    if exp < -400:
        return 0.0
    return float(f"0.{digits[:800]}e{exp}") if len(digits) > 800 else float(f"0.{digits}e{exp}")


def _nonzero(text: str) -> bool:
    mantissa = text.split("e")[0].split("p")[0]
    return any(c not in "0.x" for c in mantissa)


def _hex_float(text: str) -> float:
    body = text[2:]
    mantissa, _, exponent = body.partition("p")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0") or "0"
    exp = (int(exponent) if exponent else 0) - 4 * len(frac)
    if len(digits) > 300 or exp > 5000:
        return math.inf if digits != "0" and exp > -5000 else 0.0
    try:
        return math.ldexp(float(int(digits, 16)), exp) if exp > -5000 else 0.0
    except OverflowError:
        return math.inf


def format_f(value: float) -> str:
    """``printf("%f", value)``: six decimals, ``inf``/``nan`` as C prints them."""
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    if math.isinf(value):
        return "-inf" if value < 0 else "inf"
    return f"{value:.6f}"
