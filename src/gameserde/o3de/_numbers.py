"""Numbers as O3DE's rapidjson reads and writes them.

Reading (``Document::Parse`` without ``kParseFullPrecisionFlag``, as
``JsonSerializationUtils::ReadJsonString`` calls it): an integer token that fits int64 (with a
sign) or uint64 stays an integer; a longer one, or any token with a fraction or an exponent, is
a double built the way rapidjson builds it: at most 17 significant digits accumulated (the
first ones exactly in a 64-bit integer, later ones in double arithmetic, further ones dropped),
then one multiplication or division by a power of ten from its table. That is not always the
correctly rounded double (``float(text)``), and the engine is what we follow.

Writing (``Writer::Double``): Grisu2 digits (Loitsch 2010, as in rapidjson's ``dtoa.h``: the
narrowed boundary interval, 64-bit cached powers of ten, the same rounding of the products),
then rapidjson's ``Prettify`` layout. Grisu2 gives the shortest digits for most doubles and
round-trip-exact (by correct rounding) digits for all of them. The engine's rapidjson is a
later revision than the 1.1.0 release: when the last digit falls 9 to 19 places into the
fraction, it still moves that digit to the closer of the candidates (``GrisuRound`` with the
bound scaled by 10^9 .. 10^19), where 1.1.0 leaves it (``-10.387897491455078``, not 1.1.0's
``...079``; the numbers in the engine's own .prefab and .material files say so).
"""

from __future__ import annotations

import math
import re
import struct

__all__ = ["NumberError", "double_text", "read_double", "read_integer"]

_M64 = (1 << 64) - 1
_POW10_INT = tuple(10 ** i for i in range(10))
_TABLE_POW10 = tuple(float(f"1e{i}") for i in range(309))
"""rapidjson's ``Pow10`` table: the doubles nearest to 1e0 .. 1e308."""

_MAX_SAFE = (1 << 53) - 1
_UINT64_MAX = (1 << 64) - 1
_BIG_LIMIT = 1.7976931348623157e307
"""``DBL_MAX / 10``: an integer part that reaches it with digits left is too big."""

_NUMBER = re.compile(r"(-?)(\d+)(?:\.(\d+))?(?:[eE]([-+]?)(\d+))?")


class NumberError(ValueError):
    """A number token rapidjson refuses (too big for a double)."""


def read_integer(token: str) -> int | float:
    """The value of a JSON integer token (no fraction, no exponent): an int when it fits
    int64 (negative) or uint64, else the double rapidjson makes of it."""
    if len(token) < 19:
        return int(token)
    digits = token.lstrip("-")
    if len(digits) <= 20:
        value = int(token)
        if -(1 << 63) <= value <= _UINT64_MAX:
            return value
    return read_double(token)


def read_double(token: str) -> float:
    """The double rapidjson's normal-precision reader makes of a JSON number token.

    Raises :class:`NumberError` where rapidjson reports ``kParseErrorNumberTooBig`` (an
    integer part past ``DBL_MAX / 10`` with digits left, a positive exponent past 308 less the
    fraction digits) or where the result is not finite."""
    if len(token) <= 16 and "e" not in token and "E" not in token and "." in token:
        return float(token)  # at most 15 digits over 10^k, k <= 15: rapidjson's fast path
    match = _NUMBER.fullmatch(token)
    if match is None:
        raise NumberError(f"{token[:40]!r} is not a JSON number")
    minus, whole, frac, exp_sign, exp_digits = match.groups()
    d, i64, significant = _integer_part(whole, bool(minus))
    exp_frac = 0
    if frac is not None:
        if d is None:
            d, exp_frac, significant, frac = _fraction_exact(i64, frac, significant)
        for ch in frac:
            if significant >= 17:
                break
            d = d * 10.0 + (ord(ch) - 48)
            exp_frac -= 1
            if d > 0.0:
                significant += 1
    if d is None:
        d = float(i64)
    exp = 0
    if exp_digits is not None:
        exp = _exponent(exp_digits, exp_sign == "-", exp_frac)
    value = _scale(d, exp + exp_frac)
    if not math.isfinite(value):
        raise NumberError("the number is too big for a double")
    return -value if minus else value


def _integer_part(whole: str, minus: bool) -> tuple[float | None, int, int]:
    """(the double if the integer part left the 64-bit range, else None; the exact integer;
    rapidjson's count of significant digits after the first)."""
    limit = (1 << 63) if minus else _UINT64_MAX
    if len(whole) <= 20:
        value = int(whole)
        if value <= limit:
            return None, value, len(whole) - 1
    # the longest prefix that stays in range, then double arithmetic for the rest
    n = 0
    value = 0
    while n < len(whole) and value * 10 + (ord(whole[n]) - 48) <= limit:
        value = value * 10 + (ord(whole[n]) - 48)
        n += 1
    d = float(value)
    for ch in whole[n:]:
        if d >= _BIG_LIMIT:
            raise NumberError("the number is too big for a double")
        d = d * 10 + (ord(ch) - 48)
    return d, value, n - 1


def _fraction_exact(i64: int, frac: str, significant: int) -> tuple[float, int, int, str]:
    """The fraction digits rapidjson still adds in its 64-bit integer (while it is at most
    2^53 - 1): (the double, the exponent adjustment, significant digits, digits left)."""
    n = 0
    if i64 == 0:
        zeros = len(frac) - len(frac.lstrip("0"))
        n = zeros
    while n < len(frac) and i64 <= _MAX_SAFE:
        i64 = i64 * 10 + (ord(frac[n]) - 48)
        n += 1
        if i64:
            significant += 1
    return float(i64), -n, significant, frac[n:]


def _exponent(digits: str, negative: bool, exp_frac: int) -> int:
    """The exponent as rapidjson accumulates it (a negative one stops growing once it
    reaches 214748364; a positive one past ``308 - exp_frac`` is too big)."""
    digits = digits.lstrip("0") or "0"
    if negative:
        value = 0
        for ch in digits:
            value = value * 10 + (ord(ch) - 48)
            if value >= 214748364:
                break
        return -value
    if len(digits) > 10 or int(digits) > 308 - exp_frac:
        raise NumberError("the number's exponent is too big for a double")
    return int(digits)


def _fast_path(d: float, p: int) -> float:
    if p < -308:
        return 0.0
    if p >= 0:
        return d * _TABLE_POW10[p]
    return d / _TABLE_POW10[-p]


def _scale(d: float, p: int) -> float:
    """``StrtodNormalPrecision``."""
    if p < -308:
        return _fast_path(_fast_path(d, -308), p + 308)
    return _fast_path(d, p)


# ---------------------------------------------------------------------------------------------
# Writing: Grisu2 and Prettify

def _cached_power(index: int) -> tuple[int, int]:
    """10^(8 * index - 348) as a 64-bit significand (rounded to nearest) and a binary
    exponent: the entries of Grisu's table of cached powers."""
    k = 8 * index - 348
    if k >= 0:
        exact_num, exact_den = 10 ** k, 1
    else:
        exact_num, exact_den = 1, 10 ** -k
    # find e with 2^63 <= 10^k / 2^e < 2^64
    e = (exact_num.bit_length() - exact_den.bit_length()) - 64
    while True:
        if e >= 0:
            num, den = exact_num, exact_den << e
        else:
            num, den = exact_num << -e, exact_den
        f, rem = divmod(num, den)
        if f >= 1 << 64:
            e += 1
        elif f < 1 << 63:
            e -= 1
        else:
            break
    if 2 * rem >= den:
        f += 1
    return f, e


_CACHED_POWERS = tuple(_cached_power(i) for i in range(87))


def _multiply(af: int, ae: int, bf: int, be: int) -> tuple[int, int]:
    """``DiyFp::operator*``: the high 64 bits of the product, rounded by bit 63."""
    p = af * bf
    return ((p >> 64) + ((p >> 63) & 1)) & _M64, ae + be + 64


def _grisu2(value: float) -> tuple[str, int]:
    """Digits and decimal exponent (value ~= digits * 10^k) of a positive finite double."""
    bits = struct.unpack("<Q", struct.pack("<d", value))[0]
    biased = (bits >> 52) & 0x7FF
    f = bits & ((1 << 52) - 1)
    if biased:
        f += 1 << 52
        e = biased - 1075
    else:
        e = -1074
    # NormalizedBoundaries
    pf, pe = (f << 1) + 1, e - 1
    shift = 54 - pf.bit_length()
    pf, pe = pf << (shift + 10), pe - shift - 10
    if f == 1 << 52:
        mf, me = (f << 2) - 1, e - 2
    else:
        mf, me = (f << 1) - 1, e - 1
    mf <<= me - pe
    # GetCachedPower
    k = 355 - (((61 + pe) * 78913) >> 18)
    big_k = 348 - (k & ~7)
    cf, ce = _CACHED_POWERS[k // 8]
    shift = 64 - f.bit_length()
    wf, _ = _multiply(f << shift, e - shift, cf, ce)
    wpf, wpe = _multiply(pf, pe, cf, ce)
    wmf, _ = _multiply(mf, pe, cf, ce)
    wmf += 1
    wpf -= 1
    return _digit_gen(wf, wpf, wpe, wpf - wmf, big_k)


def _digit_gen(wf: int, mpf: int, mpe: int, delta: int, big_k: int) -> tuple[str, int]:
    one_shift = -mpe
    one_f = 1 << one_shift
    wp_w = (mpf - wf) & _M64
    p1 = (mpf >> one_shift) & 0xFFFFFFFF
    p2 = mpf & (one_f - 1)
    kappa = min(len(str(p1)), 9)
    buf: list[int] = []
    while kappa > 0:
        div = _POW10_INT[kappa - 1]
        d, p1 = divmod(p1, div)
        if d or buf:
            buf.append(d)
        kappa -= 1
        tmp = (p1 << one_shift) + p2
        if tmp <= delta:
            _round(buf, delta, tmp, _POW10_INT[kappa] << one_shift, wp_w)
            return "".join(map(str, buf)), big_k + kappa
    while True:
        p2 = (p2 * 10) & _M64
        delta = (delta * 10) & _M64
        d = p2 >> one_shift
        if d or buf:
            buf.append(d)
        p2 &= one_f - 1
        kappa -= 1
        if p2 < delta:
            index = -kappa
            scale = 10 ** index if index < 20 else 0
            _round(buf, delta, p2, one_f, (wp_w * scale) & _M64)
            return "".join(map(str, buf)), big_k + kappa


def _round(buf: list[int], delta: int, rest: int, ten_kappa: int, wp_w: int) -> None:
    """``GrisuRound``: move the last digit down while that brings it closer to the value."""
    while (rest < wp_w and ((delta - rest) & _M64) >= ten_kappa
           and (((rest + ten_kappa) & _M64) < wp_w
                or ((wp_w - rest) & _M64) > ((rest + ten_kappa - wp_w) & _M64))):
        buf[-1] -= 1
        rest = (rest + ten_kappa) & _M64


def double_text(value: float) -> str:
    """The text rapidjson's ``Writer::Double`` prints for a finite double (``4.0``,
    ``0.000001``, ``1e21``, ``1.234e-7``, ``-0.0``). Raises ``ValueError`` for NaN and
    infinities, which the writer refuses."""
    if value != value or value in (math.inf, -math.inf):
        raise ValueError("NaN and infinities cannot be written")
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    sign = ""
    if value < 0:
        sign, value = "-", -value
    if value < 9007199254740992.0 and value.is_integer():
        return f"{sign}{int(value)}.0"  # Grisu2 gives the integer's own digits here
    digits, k = _grisu2(value)
    return sign + _prettify(digits, k)


def _prettify(digits: str, k: int) -> str:
    """rapidjson's ``Prettify`` with the default 324 decimal places."""
    length = len(digits)
    kk = length + k
    if k >= 0 and kk <= 21:
        return digits + "0" * k + ".0"
    if 0 < kk <= 21:
        return digits[:kk] + "." + digits[kk:]
    if -6 < kk <= 0:
        return "0." + "0" * -kk + digits
    if length == 1:
        return f"{digits}e{kk - 1}"
    return f"{digits[0]}.{digits[1:]}e{kk - 1}"
