/*
 * Optional C twin of the O3DE JSON text layer (gameserde/o3de/text.py), loaded by _accel.py.
 *
 * The pure-Python text.parse and text.write are the reference: this module only makes the
 * common case fast and gives exactly the same values and text.  parse(text, trailing_commas,
 * stop_when_done, skip_bom, JsonObject) reads str or bytes (text.parse_root: the value and
 * the offset of the first ignored text; bytes that are not UTF-8 as surrogateescape); write(value, JsonObject, Mapping) writes PrettyWriter text.
 * On anything but the common case (any syntax error, a lone surrogate, a
 * number rapidjson refuses, nesting past MAX_DEPTH, NaN, an integer out of range, a value of
 * another type, subclasses included) parse returns NotImplemented and write None, and the
 * reference runs over the whole input, giving the result or the exact error.  So this file
 * never formats an error.  Numbers follow gameserde/o3de/_numbers.py (read_integer,
 * read_double: rapidjson 1.1's normal precision; double_text: Grisu2, Prettify), in plain
 * IEEE double arithmetic (no fused multiply-add).  Every read is checked against the end of
 * the input, C recursion is bounded by MAX_DEPTH, time is linear in the input.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#define API_VERSION 2
#define MAX_DEPTH 256 /* text.MAX_DEPTH */

static double pow10_table[309]; /* the doubles nearest to 1e0 .. 1e308 */

/* ------------------------------------------------------------------------------------------
 * Reading numbers (_numbers.read_integer, read_double) */

typedef struct {
    int minus, exp_minus;
    const char *start, *end; /* the token */
    const char *whole, *whole_end, *frac, *frac_end, *exp, *exp_end; /* frac, exp: or NULL */
} Number;

#define DIGIT(c) ((unsigned)((c) - '0'))
#define MAX_SAFE ((UINT64_C(1) << 53) - 1)
#define BIG_LIMIT 1.7976931348623157e307 /* DBL_MAX / 10 */

/* read_double: 0 with *out set, or -1 where rapidjson refuses the number */
static int read_double(const Number *n, double *out)
{
    const char *s;
    uint64_t i64 = 0, limit = n->minus ? (UINT64_C(1) << 63) : UINT64_MAX;
    int64_t significant, exp_frac = 0, exp = 0, p;
    int exact = 1; /* the integer part stayed in 64 bits (Python's d is None) */
    double d = 0.0;

    if (n->end - n->start <= 16 && n->exp == NULL && n->frac != NULL) {
        /* at most 15 digits over 10^k, k <= 15: both exact, one correctly rounded division */
        uint64_t m = 0;
        for (s = n->whole; s < n->whole_end; s++)
            m = m * 10 + DIGIT(*s);
        for (s = n->frac; s < n->frac_end; s++)
            m = m * 10 + DIGIT(*s);
        d = (double)m / pow10_table[n->frac_end - n->frac];
        *out = n->minus ? -d : d;
        return 0;
    }
    for (s = n->whole; s < n->whole_end && i64 <= (limit - DIGIT(*s)) / 10; s++)
        i64 = i64 * 10 + DIGIT(*s);
    significant = (s - n->whole) - 1;
    if (s < n->whole_end) {
        exact = 0;
        d = (double)i64;
        for (; s < n->whole_end; s++) {
            if (d >= BIG_LIMIT)
                return -1;
            d = d * 10 + DIGIT(*s);
        }
    }
    if (n->frac != NULL) {
        s = n->frac;
        if (exact) {
            if (i64 == 0)
                while (s < n->frac_end && *s == '0')
                    s++;
            while (s < n->frac_end && i64 <= MAX_SAFE) {
                i64 = i64 * 10 + DIGIT(*s);
                s++;
                if (i64)
                    significant++;
            }
            d = (double)i64;
            exp_frac = -(int64_t)(s - n->frac);
            exact = 0;
        }
        for (; s < n->frac_end && significant < 17; s++) {
            d = d * 10.0 + DIGIT(*s);
            exp_frac--;
            if (d > 0.0)
                significant++;
        }
    }
    if (exact)
        d = (double)i64;
    if (n->exp != NULL) {
        s = n->exp;
        while (s < n->exp_end && *s == '0')
            s++;
        if (n->exp_minus) {
            for (; s < n->exp_end; s++) {
                exp = exp * 10 + DIGIT(*s);
                if (exp >= 214748364)
                    break;
            }
            exp = -exp;
        }
        else {
            if (n->exp_end - s > 10)
                return -1;
            for (; s < n->exp_end; s++)
                exp = exp * 10 + DIGIT(*s);
            if (exp > 308 - exp_frac)
                return -1;
        }
    }
    p = exp + exp_frac;
    if (p > 308)
        return -1;
    if (p < -308) { /* StrtodNormalPrecision: two steps */
        d /= pow10_table[308];
        p += 308;
    }
    d = p < -308 ? 0.0 : p >= 0 ? d * pow10_table[p] : d / pow10_table[-p];
    if (!isfinite(d))
        return -1;
    *out = n->minus ? -d : d;
    return 0;
}

/* read_integer, or read_double for an integer past int64 and uint64 */
static PyObject *number_value(const Number *n)
{
    double d;

    if (n->frac == NULL && n->exp == NULL && n->whole_end - n->whole <= 20) {
        uint64_t v = 0;
        const char *s = n->whole;
        for (; s < n->whole_end && v <= (UINT64_MAX - DIGIT(*s)) / 10; s++)
            v = v * 10 + DIGIT(*s);
        if (s == n->whole_end && !n->minus)
            return PyLong_FromUnsignedLongLong(v);
        if (s == n->whole_end && v <= (UINT64_C(1) << 63))
            return PyLong_FromLongLong(v == (UINT64_C(1) << 63) ? INT64_MIN : -(int64_t)v);
    }
    if (read_double(n, &d) < 0)
        return NULL;
    return PyFloat_FromDouble(d);
}

/* ------------------------------------------------------------------------------------------
 * Writing doubles (_numbers.double_text: Grisu2, then Prettify) */

/* the significands of 10^(8i - 348) (rounded to nearest), binary exponent in floor_shift */
static const uint64_t cached_powers[87] = {
    0xfa8fd5a0081c0288, 0xbaaee17fa23ebf76, 0x8b16fb203055ac76, 0xcf42894a5dce35ea,
    0x9a6bb0aa55653b2d, 0xe61acf033d1a45df, 0xab70fe17c79ac6ca, 0xff77b1fcbebcdc4f,
    0xbe5691ef416bd60c, 0x8dd01fad907ffc3c, 0xd3515c2831559a83, 0x9d71ac8fada6c9b5,
    0xea9c227723ee8bcb, 0xaecc49914078536d, 0x823c12795db6ce57, 0xc21094364dfb5637,
    0x9096ea6f3848984f, 0xd77485cb25823ac7, 0xa086cfcd97bf97f4, 0xef340a98172aace5,
    0xb23867fb2a35b28e, 0x84c8d4dfd2c63f3b, 0xc5dd44271ad3cdba, 0x936b9fcebb25c996,
    0xdbac6c247d62a584, 0xa3ab66580d5fdaf6, 0xf3e2f893dec3f126, 0xb5b5ada8aaff80b8,
    0x87625f056c7c4a8b, 0xc9bcff6034c13053, 0x964e858c91ba2655, 0xdff9772470297ebd,
    0xa6dfbd9fb8e5b88f, 0xf8a95fcf88747d94, 0xb94470938fa89bcf, 0x8a08f0f8bf0f156b,
    0xcdb02555653131b6, 0x993fe2c6d07b7fac, 0xe45c10c42a2b3b06, 0xaa242499697392d3,
    0xfd87b5f28300ca0e, 0xbce5086492111aeb, 0x8cbccc096f5088cc, 0xd1b71758e219652c,
    0x9c40000000000000, 0xe8d4a51000000000, 0xad78ebc5ac620000, 0x813f3978f8940984,
    0xc097ce7bc90715b3, 0x8f7e32ce7bea5c70, 0xd5d238a4abe98068, 0x9f4f2726179a2245,
    0xed63a231d4c4fb27, 0xb0de65388cc8ada8, 0x83c7088e1aab65db, 0xc45d1df942711d9a,
    0x924d692ca61be758, 0xda01ee641a708dea, 0xa26da3999aef774a, 0xf209787bb47d6b85,
    0xb454e4a179dd1877, 0x865b86925b9bc5c2, 0xc83553c5c8965d3d, 0x952ab45cfa97a0b3,
    0xde469fbd99a05fe3, 0xa59bc234db398c25, 0xf6c69a72a3989f5c, 0xb7dcbf5354e9bece,
    0x88fcf317f22241e2, 0xcc20ce9bd35c78a5, 0x98165af37b2153df, 0xe2a0b5dc971f303a,
    0xa8d9d1535ce3b396, 0xfb9b7cd9a4a7443c, 0xbb764c4ca7a44410, 0x8bab8eefb6409c1a,
    0xd01fef10a657842c, 0x9b10a4e5e9913129, 0xe7109bfba19c0c9d, 0xac2820d9623bf429,
    0x80444b5e7aa7cf85, 0xbf21e44003acdd2d, 0x8e679c2f5e44ff8f, 0xd433179d9c8cb841,
    0x9e19db92b4e31ba9, 0xeb96bf6ebadf77d9, 0xaf87023b9bf0ee6b,
};

static const uint32_t pow10_int[10] = {
    1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};
/* 10^0 .. 10^19: the engine's rapidjson scales the fraction's rounding bound by these (the
   1.1.0 release stopped at 10^8 and skipped the rounding beyond, see _numbers._digit_gen) */
static const uint64_t pow10_u64[20] = {
    UINT64_C(1), UINT64_C(10), UINT64_C(100), UINT64_C(1000), UINT64_C(10000),
    UINT64_C(100000), UINT64_C(1000000), UINT64_C(10000000), UINT64_C(100000000),
    UINT64_C(1000000000), UINT64_C(10000000000), UINT64_C(100000000000),
    UINT64_C(1000000000000), UINT64_C(10000000000000), UINT64_C(100000000000000),
    UINT64_C(1000000000000000), UINT64_C(10000000000000000), UINT64_C(100000000000000000),
    UINT64_C(1000000000000000000), UINT64_C(10000000000000000000)};

/* DiyFp::operator*: the high 64 bits of the product, rounded by bit 63 */
static uint64_t multiply(uint64_t a, uint64_t b)
{
    uint64_t a_hi = a >> 32, a_lo = a & 0xFFFFFFFFu, b_hi = b >> 32, b_lo = b & 0xFFFFFFFFu;
    uint64_t hl = a_hi * b_lo, lh = a_lo * b_hi, ll = a_lo * b_lo;
    uint64_t mid = (ll >> 32) + (hl & 0xFFFFFFFFu) + (lh & 0xFFFFFFFFu);
    uint64_t high = a_hi * b_hi + (hl >> 32) + (lh >> 32) + (mid >> 32);
    return high + ((mid >> 31) & 1); /* bit 63 of the product is bit 31 of mid */
}

/* t >> bits, rounded down also for a negative t */
static int floor_shift(int64_t t, int bits)
{
    return (int)(t >= 0 ? t >> bits : -((-t + ((int64_t)1 << bits) - 1) >> bits));
}

static int bit_length(uint64_t v)
{
    int n = 0;
    while (v) {
        n++;
        v >>= 1;
    }
    return n;
}

/* GrisuRound: move the last digit down while that brings it closer to the value */
static void grisu_round(char *buf, int len, uint64_t delta, uint64_t rest, uint64_t ten_kappa,
                        uint64_t wp_w)
{
    while (rest < wp_w && delta - rest >= ten_kappa
           && (rest + ten_kappa < wp_w || wp_w - rest > rest + ten_kappa - wp_w)) {
        buf[len - 1]--;
        rest += ten_kappa;
    }
}

/* the digits (into buf, at least 24 bytes) and decimal exponent of a positive finite
   double; -1 for a case the port does not expect (the reference decides) */
static int grisu2(double value, char *buf, int *length, int *k_out)
{
    uint64_t bits, f, pf, mf, cf, wf, wpf, wmf, delta, one_f, wp_w, p2, rest;
    uint32_t p1;
    int e, pe, me, shift, k, big_k, kappa, len = 0, one_shift, integral;

    memcpy(&bits, &value, 8);
    f = bits & ((UINT64_C(1) << 52) - 1);
    if ((bits >> 52) & 0x7FF) {
        f += UINT64_C(1) << 52;
        e = (int)((bits >> 52) & 0x7FF) - 1075;
    }
    else
        e = -1074;
    pf = (f << 1) + 1;
    pe = e - 1;
    shift = 54 - bit_length(pf);
    pf <<= shift + 10;
    pe -= shift + 10;
    if (f == UINT64_C(1) << 52) {
        mf = (f << 2) - 1;
        me = e - 2;
    }
    else {
        mf = (f << 1) - 1;
        me = e - 1;
    }
    if (me - pe < 0 || me - pe > 63 || ((mf << (me - pe)) >> (me - pe)) != mf)
        return -1;
    mf <<= me - pe;
    k = 355 - floor_shift((int64_t)(61 + pe) * 78913, 18);
    if (k < 0 || k / 8 >= 87)
        return -1;
    big_k = 348 - (k & ~7);
    cf = cached_powers[k / 8];
    shift = 64 - bit_length(f);
    wf = multiply(f << shift, cf);
    wpf = multiply(pf, cf);
    one_shift = -(pe + floor_shift((int64_t)(k / 8 * 8 - 348) * 1741647, 19) - 63 + 64);
    wmf = multiply(mf, cf) + 1;
    if (wpf == 0 || wpf - 1 < wmf || one_shift <= 0 || one_shift >= 64)
        return -1;
    wpf -= 1;
    delta = wpf - wmf;
    /* DigitGen: the digits of the integral part (p1), then of the fraction (p2) */
    one_f = UINT64_C(1) << one_shift;
    wp_w = wpf - wf;
    p1 = (uint32_t)((wpf >> one_shift) & 0xFFFFFFFFu);
    p2 = wpf & (one_f - 1);
    kappa = 1;
    while (kappa < 9 && p1 >= pow10_int[kappa])
        kappa++;
    do {
        uint64_t d;
        integral = kappa > 0;
        if (integral) {
            d = p1 / pow10_int[kappa - 1];
            p1 %= pow10_int[kappa - 1];
        }
        else {
            p2 *= 10;
            delta *= 10;
            d = p2 >> one_shift;
            p2 &= one_f - 1;
        }
        if (d > 9 || len >= 23 || kappa < -40)
            return -1;
        if (d || len)
            buf[len++] = (char)('0' + d);
        kappa--;
        rest = integral ? ((uint64_t)p1 << one_shift) + p2 : p2;
    } while (integral ? rest > delta : rest >= delta);
    if (len == 0)
        return -1;
    if (integral)
        grisu_round(buf, len, delta, rest, (uint64_t)pow10_int[kappa] << one_shift, wp_w);
    else
        grisu_round(buf, len, delta, rest, one_f, -kappa < 20 ? wp_w * pow10_u64[-kappa] : 0);
    *length = len;
    *k_out = big_k + kappa;
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * Writing (text.write) */

typedef struct {
    char *buf;
    Py_ssize_t len, cap;
    int ascii;
    PyObject *json_object, *mapping;
} Writer;

static int reserve(Writer *w, Py_ssize_t n)
{
    if (w->len + n > w->cap) {
        Py_ssize_t cap = w->cap * 2 > w->len + n ? w->cap * 2 : w->len + n + 4096;
        char *buf = PyMem_Realloc(w->buf, cap);
        if (buf == NULL)
            return -1;
        w->buf = buf;
        w->cap = cap;
    }
    return 0;
}

static int put(Writer *w, const char *s, Py_ssize_t n)
{
    if (n == 0)
        return 0;
    if (reserve(w, n) < 0)
        return -1;
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    return 0;
}

/* a line break and the indentation of depth */
static int newline(Writer *w, const char *before, Py_ssize_t n, int depth)
{
    if (reserve(w, n + 1 + 4 * (Py_ssize_t)depth) < 0)
        return -1;
    memcpy(w->buf + w->len, before, n);
    w->buf[w->len + n] = '\n';
    memset(w->buf + w->len + n + 1, ' ', 4 * (size_t)depth);
    w->len += n + 1 + 4 * (Py_ssize_t)depth;
    return 0;
}

static int put_unsigned(Writer *w, uint64_t v, int minus)
{
    char tmp[24];
    int i = 24;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (minus)
        tmp[--i] = '-';
    return put(w, tmp + i, 24 - i);
}

#define ZEROS "000000000000000000000" /* at most 21 in Prettify */

/* _numbers.double_text */
static int put_double(Writer *w, double value)
{
    char digits[24], out[64];
    int length, k, kk, n = 0;

    if (!isfinite(value))
        return -1;
    if (value == 0.0)
        return signbit(value) ? put(w, "-0.0", 4) : put(w, "0.0", 3);
    if (value < 0) {
        out[n++] = '-';
        value = -value;
    }
    if (value < 9007199254740992.0 && value == floor(value))
        return put_unsigned(w, (uint64_t)value, n) < 0 ? -1 : put(w, ".0", 2);
    if (grisu2(value, digits, &length, &k) < 0)
        return -1;
    kk = length + k; /* Prettify */
    if (k >= 0 && kk <= 21)
        n += snprintf(out + n, sizeof out - n, "%.*s%.*s.0", length, digits, k, ZEROS);
    else if (0 < kk && kk <= 21)
        n += snprintf(out + n, sizeof out - n, "%.*s.%.*s", kk, digits, length - kk, digits + kk);
    else if (-6 < kk && kk <= 0)
        n += snprintf(out + n, sizeof out - n, "0.%.*s%.*s", -kk, ZEROS, length, digits);
    else if (length == 1)
        n += snprintf(out + n, sizeof out - n, "%ce%d", digits[0], kk - 1);
    else
        n += snprintf(out + n, sizeof out - n, "%c.%.*se%d", digits[0], length - 1, digits + 1,
                      kk - 1);
    return put(w, out, n);
}

#define SHORT_ESCAPES "\"\"\\\\\nn\rr\tt\bb\ff" /* each character, then its escape's letter */

/* text._string: json's escaping with upper-case \u00XX */
static int put_string(Writer *w, PyObject *s)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *p, *end, *run;
    Py_ssize_t size;

#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(s) < 0)
        return -1;
#endif
    if (PyUnicode_IS_ASCII(s)) {
        p = PyUnicode_1BYTE_DATA(s);
        size = PyUnicode_GET_LENGTH(s);
    }
    else {
        p = (const unsigned char *)PyUnicode_AsUTF8AndSize(s, &size);
        if (p == NULL) /* a lone surrogate */
            return -1;
        w->ascii = 0;
    }
    end = p + size;
    if (reserve(w, size + 2) < 0)
        return -1;
    w->buf[w->len++] = '"';
    for (run = p; p < end; p++) {
        unsigned char c = *p;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        const char *pair = c ? strchr(SHORT_ESCAPES, c) : NULL;
        char esc[6] = {'\\', pair ? pair[1] : 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        if (put(w, (const char *)run, p - run) < 0 || put(w, esc, pair ? 2 : 6) < 0)
            return -1;
        run = p + 1;
    }
    if (put(w, (const char *)run, p - run) < 0)
        return -1;
    return put(w, "\"", 1);
}

static int write_value(Writer *w, PyObject *v, int depth);

/* the elements of an array (a list or tuple), or the members of an object (a list of
   (name, value) tuples, each name an exact str) */
static int write_items(Writer *w, PyObject *items, int object, int depth)
{
    const char *brackets = object ? "{}" : "[]";
    Py_ssize_t i;

    if (PySequence_Fast_GET_SIZE(items) == 0)
        return put(w, brackets, 2);
    if (depth >= MAX_DEPTH || put(w, brackets, 1) < 0)
        return -1;
    for (i = 0; i < PySequence_Fast_GET_SIZE(items); i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(items, i), *value = item;
        int r;
        if (object) {
            if (!PyTuple_CheckExact(item) || PyTuple_GET_SIZE(item) != 2
                    || !PyUnicode_CheckExact(PyTuple_GET_ITEM(item, 0)))
                return -1;
            value = PyTuple_GET_ITEM(item, 1);
        }
        Py_INCREF(item);
        r = newline(w, ",", i ? 1 : 0, depth + 1) < 0
            || (object && (put_string(w, PyTuple_GET_ITEM(item, 0)) < 0 || put(w, ": ", 2) < 0))
            || write_value(w, value, depth + 1) < 0;
        Py_DECREF(item);
        if (r)
            return -1;
    }
    if (newline(w, "", 0, depth) < 0)
        return -1;
    return put(w, brackets + 1, 1);
}

/* an object: a dict's items, a JsonObject's pairs, another mapping's items() */
static int write_object(Writer *w, PyObject *v, int depth)
{
    PyObject *items, *pairs;
    int r;

    if (PyDict_CheckExact(v))
        pairs = PyDict_Items(v);
    else {
        if (PyObject_TypeCheck(v, (PyTypeObject *)w->json_object))
            items = PyObject_GetAttrString(v, "pairs");
        else
            items = PyObject_CallMethod(v, "items", NULL);
        if (items == NULL)
            return -1;
        pairs = PySequence_List(items);
        Py_DECREF(items);
    }
    if (pairs == NULL)
        return -1;
    r = write_items(w, pairs, 1, depth);
    Py_DECREF(pairs);
    return r;
}

static int write_value(Writer *w, PyObject *v, int depth)
{
    if (v == Py_None)
        return put(w, "null", 4);
    if (v == Py_True)
        return put(w, "true", 4);
    if (v == Py_False)
        return put(w, "false", 5);
    if (PyUnicode_CheckExact(v))
        return put_string(w, v);
    if (PyLong_CheckExact(v)) {
        int overflow;
        long long i = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow > 0) {
            unsigned long long u = PyLong_AsUnsignedLongLong(v);
            return u == (unsigned long long)-1 && PyErr_Occurred() ? -1 : put_unsigned(w, u, 0);
        }
        if (overflow < 0 || (i == -1 && PyErr_Occurred()))
            return -1;
        return put_unsigned(w, i < 0 ? 0 - (uint64_t)i : (uint64_t)i, i < 0);
    }
    if (PyFloat_CheckExact(v))
        return put_double(w, PyFloat_AS_DOUBLE(v));
    if (PyDict_CheckExact(v))
        return write_object(w, v, depth);
    if (PyList_CheckExact(v) || PyTuple_CheckExact(v))
        return write_items(w, v, 0, depth);
    if (PyUnicode_Check(v) || PyLong_Check(v) || PyFloat_Check(v))
        return -1;
    return PyObject_IsInstance(v, w->mapping) == 1 ? write_object(w, v, depth) : -1;
}

static PyObject *py_write(PyObject *self, PyObject *args)
{
    Writer w = {NULL, 0, 0, 1, NULL, NULL};
    PyObject *value, *out = NULL;

    if (!PyArg_ParseTuple(args, "OOO:write", &value, &w.json_object, &w.mapping))
        return NULL;
    if (!PyType_Check(w.json_object))
        return PyErr_Format(PyExc_TypeError, "write() needs the JsonObject class");
    if (write_value(&w, value, 0) == 0) {
        if (w.ascii) {
            out = PyUnicode_New(w.len, 127);
            if (out != NULL)
                memcpy(PyUnicode_1BYTE_DATA(out), w.buf, w.len);
        }
        else
            out = PyUnicode_DecodeUTF8(w.buf, w.len, NULL);
    }
    PyMem_Free(w.buf);
    if (out == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return out;
}

/* ------------------------------------------------------------------------------------------
 * Reading (text.parse) */

typedef struct {
    const char *p, *end; /* end: the first NUL, or the end of the input */
    int trailing;
    PyObject *memo;      /* member names already made, to share them */
    PyObject *json_object;
    char *scratch;       /* unescaped strings */
    Py_ssize_t scratch_size;
} Parser;

#define IS_SPACE(c) ((c) == ' ' || (c) == '\n' || (c) == '\r' || (c) == '\t')

/* skip whitespace and comments; -1 for an unterminated block comment */
static int skip_space(Parser *ps)
{
    const char *p = ps->p, *end = ps->end, *q;

    for (;;) {
        while (p < end && IS_SPACE(*p))
            p++;
        if (end - p < 2 || p[0] != '/' || (p[1] != '/' && p[1] != '*'))
            break;
        if (p[1] == '/') {
            for (q = p + 2; q < end && *q != '\n'; q++)
                ;
        }
        else {
            for (q = p + 2; q + 1 < end && (q[0] != '*' || q[1] != '/'); q++)
                ;
            if (q + 1 >= end)
                return -1;
            q += 2;
        }
        p = q;
    }
    ps->p = p;
    return 0;
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v << 4 | (unsigned)d;
    }
    *out = v;
    return 0;
}

/* a string with escapes, from s (after the quote) to the closing quote at end */
static PyObject *unescape(Parser *ps, const char *s, const char *end)
{
    char *out;
    unsigned cp, low;
    int n, i;

    if (end - s > ps->scratch_size) {
        char *grown = PyMem_Realloc(ps->scratch, end - s);
        if (grown == NULL)
            return NULL;
        ps->scratch = grown;
        ps->scratch_size = end - s;
    }
    out = ps->scratch;
    while (s < end) {
        if (*s != '\\') {
            *out++ = *s++;
            continue;
        }
        switch (s[1]) { /* the scan made sure a character follows */
        case '"': case '\\': case '/': *out++ = s[1]; s += 2; continue;
        case 'b': *out++ = '\b'; s += 2; continue;
        case 'f': *out++ = '\f'; s += 2; continue;
        case 'n': *out++ = '\n'; s += 2; continue;
        case 'r': *out++ = '\r'; s += 2; continue;
        case 't': *out++ = '\t'; s += 2; continue;
        case 'u': break;
        default: return NULL;
        }
        if (end - s < 6 || hex4(s + 2, &cp) < 0)
            return NULL;
        s += 6;
        if (cp >= 0xDC00 && cp <= 0xDFFF)
            return NULL;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (end - s < 6 || s[0] != '\\' || s[1] != 'u' || hex4(s + 2, &low) < 0
                    || low < 0xDC00 || low > 0xDFFF)
                return NULL;
            s += 6;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
        for (i = n - 1; i > 0; i--, cp >>= 6)
            out[i] = (char)(0x80 | (cp & 0x3F));
        out[0] = (char)("\0\0\xC0\xE0\xF0"[n] | cp);
        out += n;
    }
    return PyUnicode_DecodeUTF8(ps->scratch, out - ps->scratch, "surrogateescape");
}

static PyObject *parse_string(Parser *ps)
{
    const char *s = ps->p + 1, *q = s;
    int escapes = 0, ascii = 1;
    PyObject *out;

    for (;;) {
        unsigned char c;
        if (q >= ps->end)
            return NULL;
        c = (unsigned char)*q;
        if (c == '"')
            break;
        if (c < 0x20)
            return NULL;
        if (c == '\\') {
            if (q + 1 >= ps->end)
                return NULL;
            escapes = 1;
            q += 2;
            continue;
        }
        ascii &= c < 0x80;
        q++;
    }
    ps->p = q + 1;
    if (escapes)
        return unescape(ps, s, q);
    if (!ascii)
        return PyUnicode_DecodeUTF8(s, q - s, "surrogateescape");
    out = PyUnicode_New(q - s, 127);
    if (out != NULL)
        memcpy(PyUnicode_1BYTE_DATA(out), s, q - s);
    return out;
}

static PyObject *parse_number(Parser *ps)
{
    Number n;
    const char *p = ps->p, *end = ps->end;

    memset(&n, 0, sizeof n);
    n.start = p;
    if (*p == '-') {
        n.minus = 1;
        p++;
    }
    n.whole = p;
    if (p < end && *p == '0')
        p++;
    else if (p < end && *p >= '1' && *p <= '9')
        while (p < end && DIGIT(*p) < 10)
            p++;
    else
        return NULL;
    n.whole_end = p;
    if (p < end && *p == '.') {
        n.frac = ++p;
        while (p < end && DIGIT(*p) < 10)
            p++;
        if (p == n.frac)
            return NULL;
        n.frac_end = p;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            n.exp_minus = *p++ == '-';
        n.exp = p;
        while (p < end && DIGIT(*p) < 10)
            p++;
        if (p == n.exp)
            return NULL;
        n.exp_end = p;
    }
    n.end = ps->p = p;
    return number_value(&n);
}

static PyObject *parse_value(Parser *ps, int depth);

/* after an item of an array or object: 0 when another item follows (after the comma), 1
   after the closing bracket, -1 for anything else */
static int next_item(Parser *ps, char close)
{
    if (skip_space(ps) < 0 || ps->p >= ps->end)
        return -1;
    if (*ps->p == close) {
        ps->p++;
        return 1;
    }
    if (*ps->p++ != ',' || skip_space(ps) < 0)
        return -1;
    if (ps->trailing && ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return 1;
    }
    return 0;
}

static PyObject *literal(Parser *ps, const char *word, PyObject *value)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return NULL;
    ps->p += n;
    return Py_NewRef(value);
}

static PyObject *parse_array(Parser *ps, int depth)
{
    PyObject *list, *item;
    int more;

    if (depth > MAX_DEPTH || (list = PyList_New(0)) == NULL)
        return NULL;
    ps->p++;
    if (skip_space(ps) < 0)
        goto fail;
    if (ps->p < ps->end && *ps->p == ']') {
        ps->p++;
        return list;
    }
    do {
        int r;
        if ((item = parse_value(ps, depth)) == NULL)
            goto fail;
        r = PyList_Append(list, item);
        Py_DECREF(item);
        if (r < 0)
            goto fail;
    } while ((more = next_item(ps, ']')) == 0);
    if (more > 0)
        return list;
fail:
    Py_DECREF(list);
    return NULL;
}

/* an object; a JsonObject of every pair once a name repeats */
static PyObject *parse_object(Parser *ps, int depth)
{
    PyObject *dict, *pairs = NULL, *name = NULL, *value = NULL, *out;
    int more;

    if (depth > MAX_DEPTH || (dict = PyDict_New()) == NULL)
        return NULL;
    ps->p++;
    if (skip_space(ps) < 0)
        goto fail;
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
        return dict;
    }
    do {
        PyObject *shared;
        if (ps->p >= ps->end || *ps->p != '"' || (name = parse_string(ps)) == NULL)
            goto fail;
        shared = PyDict_SetDefault(ps->memo, name, name);
        if (shared == NULL)
            goto fail;
        Py_INCREF(shared);
        Py_SETREF(name, shared);
        if (skip_space(ps) < 0 || ps->p >= ps->end || *ps->p++ != ':' || skip_space(ps) < 0)
            goto fail;
        if ((value = parse_value(ps, depth)) == NULL)
            goto fail;
        if (pairs == NULL) {
            Py_ssize_t size = PyDict_GET_SIZE(dict);
            if (PyDict_SetDefault(dict, name, value) == NULL)
                goto fail;
            if (PyDict_GET_SIZE(dict) == size && (pairs = PyDict_Items(dict)) == NULL)
                goto fail;
        }
        if (pairs != NULL) {
            PyObject *pair = PyTuple_Pack(2, name, value);
            if (pair == NULL || PyList_Append(pairs, pair) < 0) {
                Py_XDECREF(pair);
                goto fail;
            }
            Py_DECREF(pair);
        }
        Py_CLEAR(name);
        Py_CLEAR(value);
    } while ((more = next_item(ps, '}')) == 0);
    if (more < 0)
        goto fail;
    if (pairs == NULL)
        return dict;
    out = PyObject_CallOneArg(ps->json_object, pairs);
    Py_DECREF(pairs);
    Py_DECREF(dict);
    return out;
fail:
    Py_XDECREF(name);
    Py_XDECREF(value);
    Py_XDECREF(pairs);
    Py_DECREF(dict);
    return NULL;
}

static PyObject *parse_value(Parser *ps, int depth)
{
    const char *p = ps->p;

    if (p >= ps->end)
        return NULL;
    switch (*p) {
    case '"':
        return parse_string(ps);
    case '{':
        return parse_object(ps, depth + 1);
    case '[':
        return parse_array(ps, depth + 1);
    case 'n':
        return literal(ps, "null", Py_None);
    case 't':
        return literal(ps, "true", Py_True);
    case 'f':
        return literal(ps, "false", Py_False);
    default:
        return parse_number(ps);
    }
}

/* the offset of p in the input's units: bytes, or the characters of a str (whose UTF-8 the
   parser reads) */
static Py_ssize_t units(const char *start, const char *p, int from_bytes)
{
    Py_ssize_t n = 0;
    if (from_bytes)
        return p - start;
    for (; start < p; start++)
        n += ((unsigned char)*start & 0xC0) != 0x80;
    return n;
}

/* past whitespace and complete comments, without failing (text.py's _IGNORABLE) */
static const char *skip_ignorable(const char *p, const char *end)
{
    const char *q;
    for (;;) {
        while (p < end && IS_SPACE(*p))
            p++;
        if (end - p < 2 || p[0] != '/' || (p[1] != '/' && p[1] != '*'))
            return p;
        if (p[1] == '/') {
            for (q = p + 2; q < end && *q != '\n'; q++)
                ;
        }
        else {
            for (q = p + 2; q + 1 < end && (q[0] != '*' || q[1] != '/'); q++)
                ;
            if (q + 1 >= end)
                return p;
            q += 2;
        }
        p = q;
    }
}

static PyObject *py_parse(PyObject *self, PyObject *args)
{
    Parser ps;
    PyObject *text, *value = NULL, *out = NULL;
    const char *start, *nul;
    Py_ssize_t size;
    int trailing, stop_when_done, skip_bom, from_bytes = 0;

    memset(&ps, 0, sizeof ps);
    if (!PyArg_ParseTuple(args, "OpppO:parse", &text, &trailing, &stop_when_done, &skip_bom,
                          &ps.json_object))
        return NULL;
    ps.trailing = trailing;
    if (PyBytes_CheckExact(text)) {
        start = PyBytes_AS_STRING(text);
        size = PyBytes_GET_SIZE(text);
        from_bytes = 1;
    }
    else if (PyUnicode_CheckExact(text)) {
        if ((start = PyUnicode_AsUTF8AndSize(text, &size)) == NULL) /* lone surrogates */
            goto done;
    }
    else
        goto done;
    ps.end = start + size;
    nul = memchr(start, 0, size);
    if (nul != NULL)
        ps.end = nul;
    ps.p = start;
    if (skip_bom && ps.end - start >= 3 && memcmp(start, "\xEF\xBB\xBF", 3) == 0)
        ps.p += 3;
    if ((ps.memo = PyDict_New()) == NULL || skip_space(&ps) < 0)
        goto done;
    value = parse_value(&ps, 0);
    if (value == NULL)
        goto done;
    if (stop_when_done) /* a number cut short ("1.", "1e") failed in parse_number */
        ps.p = skip_ignorable(ps.p, ps.end);
    else if (skip_space(&ps) < 0 || ps.p != ps.end)
        Py_CLEAR(value);
    if (value != NULL) {
        if (ps.p < start + size)
            out = Py_BuildValue("(On)", value, units(start, ps.p, from_bytes));
        else
            out = PyTuple_Pack(2, value, Py_None);
    }
done:
    Py_XDECREF(value);
    Py_XDECREF(ps.memo);
    PyMem_Free(ps.scratch);
    if (out == NULL) {
        PyErr_Clear();
        Py_RETURN_NOTIMPLEMENTED;
    }
    return out;
}

/* ------------------------------------------------------------------------------------------ */

static PyMethodDef methods[] = {
    {"parse", py_parse, METH_VARARGS,
     "parse(text, trailing_commas, stop_when_done, skip_bom, JsonObject): text.parse_root's "
     "(value, ignored), or NotImplemented"},
    {"write", py_write, METH_VARARGS,
     "write(value, JsonObject, Mapping): text.write's text, or None"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "gameserde.o3de._speedups",
    "C twin of gameserde.o3de.text (parse and write).", -1, methods};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    PyObject *m;
    int i;
    char token[8];

    for (i = 0; i <= 308; i++) {
        snprintf(token, sizeof token, "1e%d", i);
        pow10_table[i] = PyOS_string_to_double(token, NULL, NULL);
        if (pow10_table[i] == -1.0 && PyErr_Occurred())
            return NULL;
    }
    m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    if (PyModule_AddIntConstant(m, "API_VERSION", API_VERSION) < 0
            || PyModule_AddIntConstant(m, "MAX_DEPTH", MAX_DEPTH) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
