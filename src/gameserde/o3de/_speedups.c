/*
 * Optional C twin of the O3DE JSON text layer (gameserde.o3de.text: parse and write).
 *
 * The pure-Python text.parse and text.write are the reference; this module only makes the
 * common case fast and must give exactly the same values and text.  parse(text,
 * trailing_commas, JsonObject) reads str or bytes into the values text.parse returns (a
 * JsonObject, the class passed in, for an object that repeats a member name); write(value,
 * JsonObject, Mapping) gives the text text.write gives.  Whenever anything is not the common
 * case -- any syntax error, invalid UTF-8 in bytes input (also in comments or after a NUL),
 * a \u escape of half a surrogate pair, a number rapidjson refuses, nesting past MAX_DEPTH;
 * in writing NaN, infinities, integers outside int64 and uint64, lone surrogates, names that
 * are not str, subclasses of str, int, float, list or tuple, values of unknown types --
 * parse returns NotImplemented and write returns None, and the reference runs over the whole
 * input, which gives the result or raises the exact error.  So this file never formats an
 * error.
 *
 * Numbers are ported from gameserde/o3de/_numbers.py: read_integer and read_double
 * (rapidjson 1.1's normal-precision reading, not always correctly rounded) and double_text
 * (Grisu2 and Prettify).  The double arithmetic must be plain IEEE: no fused multiply-add.
 *
 * Safety: every read is checked against the end of the input; C recursion is bounded by
 * MAX_DEPTH; time is linear in the input (a number's digits past what matters are skipped
 * once).
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

#define API_VERSION 1
#define MAX_DEPTH 256 /* text.MAX_DEPTH */

static double pow10_table[309]; /* the doubles nearest to 1e0 .. 1e308 */

/* ------------------------------------------------------------------------------------------
 * Reading numbers (_numbers.read_integer, read_double) */

typedef struct {
    int minus, has_frac, has_exp, exp_minus;
    const char *start, *end;      /* the token */
    const char *whole, *whole_end;
    const char *frac, *frac_end;
    const char *exp, *exp_end;
} Number;

#define DIGIT(c) ((unsigned)((c) - '0'))
#define MAX_SAFE ((UINT64_C(1) << 53) - 1)
#define BIG_LIMIT 1.7976931348623157e307 /* DBL_MAX / 10 */

static double fast_path(double d, int64_t p)
{
    if (p < -308)
        return 0.0;
    if (p >= 0)
        return d * pow10_table[p];
    return d / pow10_table[-p];
}

/* read_double: 0 with *out set, or -1 where rapidjson refuses the number */
static int read_double(const Number *n, double *out)
{
    const char *s;
    uint64_t i64 = 0, limit = n->minus ? (UINT64_C(1) << 63) : UINT64_MAX;
    int64_t significant, exp_frac = 0, exp = 0, p;
    int exact = 1; /* the integer part stayed in 64 bits (Python's d is None) */
    double d = 0.0;

    if (n->end - n->start <= 16 && !n->has_exp && n->has_frac) {
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
    for (s = n->whole; s < n->whole_end; s++) {
        unsigned dig = DIGIT(*s);
        if (i64 > (limit - dig) / 10)
            break;
        i64 = i64 * 10 + dig;
    }
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
    if (n->has_frac) {
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
    if (n->has_exp) {
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
    d = p < -308 ? fast_path(fast_path(d, -308), p + 308) : fast_path(d, p);
    if (!isfinite(d))
        return -1;
    *out = n->minus ? -d : d;
    return 0;
}

/* read_integer, or read_double for an integer past int64 and uint64 */
static PyObject *number_value(const Number *n)
{
    double d;
    Py_ssize_t digits = n->whole_end - n->whole;

    if (!n->has_frac && !n->has_exp && digits <= 20) {
        uint64_t v = 0;
        const char *s;
        int fits = 1;
        for (s = n->whole; s < n->whole_end; s++) {
            unsigned dig = DIGIT(*s);
            if (v > (UINT64_MAX - dig) / 10) {
                fits = 0;
                break;
            }
            v = v * 10 + dig;
        }
        if (fits && !n->minus)
            return PyLong_FromUnsignedLongLong(v);
        if (fits && v <= (UINT64_C(1) << 63))
            return PyLong_FromLongLong(v == (UINT64_C(1) << 63) ? INT64_MIN : -(int64_t)v);
    }
    if (read_double(n, &d) < 0)
        return NULL;
    return PyFloat_FromDouble(d);
}

/* ------------------------------------------------------------------------------------------
 * Writing doubles (_numbers.double_text: Grisu2, then Prettify) */

static const struct { uint64_t f; int e; } cached_powers[87] = {
    {0xfa8fd5a0081c0288ull, -1220}, {0xbaaee17fa23ebf76ull, -1193}, {0x8b16fb203055ac76ull, -1166},
    {0xcf42894a5dce35eaull, -1140}, {0x9a6bb0aa55653b2dull, -1113}, {0xe61acf033d1a45dfull, -1087},
    {0xab70fe17c79ac6caull, -1060}, {0xff77b1fcbebcdc4full, -1034}, {0xbe5691ef416bd60cull, -1007},
    {0x8dd01fad907ffc3cull, -980}, {0xd3515c2831559a83ull, -954}, {0x9d71ac8fada6c9b5ull, -927},
    {0xea9c227723ee8bcbull, -901}, {0xaecc49914078536dull, -874}, {0x823c12795db6ce57ull, -847},
    {0xc21094364dfb5637ull, -821}, {0x9096ea6f3848984full, -794}, {0xd77485cb25823ac7ull, -768},
    {0xa086cfcd97bf97f4ull, -741}, {0xef340a98172aace5ull, -715}, {0xb23867fb2a35b28eull, -688},
    {0x84c8d4dfd2c63f3bull, -661}, {0xc5dd44271ad3cdbaull, -635}, {0x936b9fcebb25c996ull, -608},
    {0xdbac6c247d62a584ull, -582}, {0xa3ab66580d5fdaf6ull, -555}, {0xf3e2f893dec3f126ull, -529},
    {0xb5b5ada8aaff80b8ull, -502}, {0x87625f056c7c4a8bull, -475}, {0xc9bcff6034c13053ull, -449},
    {0x964e858c91ba2655ull, -422}, {0xdff9772470297ebdull, -396}, {0xa6dfbd9fb8e5b88full, -369},
    {0xf8a95fcf88747d94ull, -343}, {0xb94470938fa89bcfull, -316}, {0x8a08f0f8bf0f156bull, -289},
    {0xcdb02555653131b6ull, -263}, {0x993fe2c6d07b7facull, -236}, {0xe45c10c42a2b3b06ull, -210},
    {0xaa242499697392d3ull, -183}, {0xfd87b5f28300ca0eull, -157}, {0xbce5086492111aebull, -130},
    {0x8cbccc096f5088ccull, -103}, {0xd1b71758e219652cull, -77}, {0x9c40000000000000ull, -50},
    {0xe8d4a51000000000ull, -24}, {0xad78ebc5ac620000ull, 3}, {0x813f3978f8940984ull, 30},
    {0xc097ce7bc90715b3ull, 56}, {0x8f7e32ce7bea5c70ull, 83}, {0xd5d238a4abe98068ull, 109},
    {0x9f4f2726179a2245ull, 136}, {0xed63a231d4c4fb27ull, 162}, {0xb0de65388cc8ada8ull, 189},
    {0x83c7088e1aab65dbull, 216}, {0xc45d1df942711d9aull, 242}, {0x924d692ca61be758ull, 269},
    {0xda01ee641a708deaull, 295}, {0xa26da3999aef774aull, 322}, {0xf209787bb47d6b85ull, 348},
    {0xb454e4a179dd1877ull, 375}, {0x865b86925b9bc5c2ull, 402}, {0xc83553c5c8965d3dull, 428},
    {0x952ab45cfa97a0b3ull, 455}, {0xde469fbd99a05fe3ull, 481}, {0xa59bc234db398c25ull, 508},
    {0xf6c69a72a3989f5cull, 534}, {0xb7dcbf5354e9beceull, 561}, {0x88fcf317f22241e2ull, 588},
    {0xcc20ce9bd35c78a5ull, 614}, {0x98165af37b2153dfull, 641}, {0xe2a0b5dc971f303aull, 667},
    {0xa8d9d1535ce3b396ull, 694}, {0xfb9b7cd9a4a7443cull, 720}, {0xbb764c4ca7a44410ull, 747},
    {0x8bab8eefb6409c1aull, 774}, {0xd01fef10a657842cull, 800}, {0x9b10a4e5e9913129ull, 827},
    {0xe7109bfba19c0c9dull, 853}, {0xac2820d9623bf429ull, 880}, {0x80444b5e7aa7cf85ull, 907},
    {0xbf21e44003acdd2dull, 933}, {0x8e679c2f5e44ff8full, 960}, {0xd433179d9c8cb841ull, 986},
    {0x9e19db92b4e31ba9ull, 1013}, {0xeb96bf6ebadf77d9ull, 1039}, {0xaf87023b9bf0ee6bull, 1066},
};

static const uint32_t pow10_int[10] = {
    1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};

/* DiyFp::operator*: the high 64 bits of the product, rounded by bit 63 */
static uint64_t multiply(uint64_t a, uint64_t b)
{
    uint64_t a_hi = a >> 32, a_lo = a & 0xFFFFFFFFu, b_hi = b >> 32, b_lo = b & 0xFFFFFFFFu;
    uint64_t hl = a_hi * b_lo, lh = a_lo * b_hi, ll = a_lo * b_lo;
    uint64_t mid = (ll >> 32) + (hl & 0xFFFFFFFFu) + (lh & 0xFFFFFFFFu);
    uint64_t high = a_hi * b_hi + (hl >> 32) + (lh >> 32) + (mid >> 32);
    return high + ((mid >> 31) & 1); /* bit 63 of the product is bit 31 of mid */
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
    uint64_t bits, f, pf, mf, cf, wf, wpf, wmf, delta, one_f, wp_w, p2;
    uint32_t p1;
    int e, pe, me, shift, k, big_k, kappa, len = 0, one_shift;
    int64_t t;

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
    t = (int64_t)(61 + pe) * 78913;
    k = 355 - (int)(t >= 0 ? t >> 18 : -((-t + (1 << 18) - 1) >> 18));
    if (k < 0 || k / 8 >= 87)
        return -1;
    big_k = 348 - (k & ~7);
    cf = cached_powers[k / 8].f;
    shift = 64 - bit_length(f);
    wf = multiply(f << shift, cf);
    wpf = multiply(pf, cf);
    one_shift = -(pe + cached_powers[k / 8].e + 64);
    wmf = multiply(mf, cf) + 1;
    if (wpf == 0 || wpf - 1 < wmf || one_shift <= 0 || one_shift >= 64)
        return -1;
    wpf -= 1;
    delta = wpf - wmf;
    /* DigitGen */
    one_f = UINT64_C(1) << one_shift;
    wp_w = wpf - wf;
    p1 = (uint32_t)((wpf >> one_shift) & 0xFFFFFFFFu);
    p2 = wpf & (one_f - 1);
    kappa = 1;
    while (kappa < 9 && p1 >= pow10_int[kappa])
        kappa++;
    while (kappa > 0) {
        uint32_t d = p1 / pow10_int[kappa - 1];
        uint64_t tmp;
        p1 %= pow10_int[kappa - 1];
        if (d > 9 || len >= 23)
            return -1;
        if (d || len)
            buf[len++] = (char)('0' + d);
        kappa--;
        tmp = ((uint64_t)p1 << one_shift) + p2;
        if (tmp <= delta) {
            if (len == 0)
                return -1;
            grisu_round(buf, len, delta, tmp, (uint64_t)pow10_int[kappa] << one_shift, wp_w);
            *length = len;
            *k_out = big_k + kappa;
            return 0;
        }
    }
    for (;;) {
        uint64_t d;
        p2 *= 10;
        delta *= 10;
        d = p2 >> one_shift;
        if (d > 9 || len >= 23 || kappa < -40)
            return -1;
        if (d || len)
            buf[len++] = (char)('0' + d);
        p2 &= one_f - 1;
        kappa--;
        if (p2 < delta) {
            if (len == 0)
                return -1;
            grisu_round(buf, len, delta, p2, one_f, -kappa < 9 ? wp_w * pow10_int[-kappa] : 0);
            *length = len;
            *k_out = big_k + kappa;
            return 0;
        }
    }
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

/* _numbers.double_text */
static int put_double(Writer *w, double value)
{
    char digits[24], out[48];
    int length, k, kk, n = 0, i;

    if (!isfinite(value))
        return -1;
    if (value == 0.0)
        return signbit(value) ? put(w, "-0.0", 4) : put(w, "0.0", 3);
    if (value < 0) {
        out[n++] = '-';
        value = -value;
    }
    if (value < 9007199254740992.0 && value == floor(value)) {
        if (put(w, out, n) < 0 || put_unsigned(w, (uint64_t)value, 0) < 0)
            return -1;
        return put(w, ".0", 2);
    }
    if (grisu2(value, digits, &length, &k) < 0)
        return -1;
    kk = length + k; /* Prettify */
    if (k >= 0 && kk <= 21) {
        memcpy(out + n, digits, length);
        n += length;
        for (i = 0; i < k; i++)
            out[n++] = '0';
        out[n++] = '.';
        out[n++] = '0';
        return put(w, out, n);
    }
    if (0 < kk && kk <= 21) {
        memcpy(out + n, digits, kk);
        n += kk;
        out[n++] = '.';
        memcpy(out + n, digits + kk, length - kk);
        return put(w, out, n + length - kk);
    }
    if (-6 < kk && kk <= 0) {
        out[n++] = '0';
        out[n++] = '.';
        for (i = 0; i < -kk; i++)
            out[n++] = '0';
        memcpy(out + n, digits, length);
        return put(w, out, n + length);
    }
    out[n++] = digits[0];
    if (length > 1) {
        out[n++] = '.';
        memcpy(out + n, digits + 1, length - 1);
        n += length - 1;
    }
    n += snprintf(out + n, sizeof out - n, "e%d", kk - 1);
    return put(w, out, n);
}

/* text._string: json's escaping with upper-case \u00XX */
static int put_string(Writer *w, PyObject *s)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *p, *end, *run;
    Py_ssize_t size;

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
        char esc[6];
        int n = 2;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        if (put(w, (const char *)run, p - run) < 0)
            return -1;
        run = p + 1;
        esc[0] = '\\';
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        default:
            memcpy(esc + 1, "u00", 3);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            n = 6;
        }
        if (put(w, esc, n) < 0)
            return -1;
    }
    if (put(w, (const char *)run, p - run) < 0)
        return -1;
    return put(w, "\"", 1);
}

static int write_value(Writer *w, PyObject *v, int depth);

/* the members of an object: (name, value) pairs, each an exact str and a value */
static int write_members(Writer *w, PyObject *pairs, int depth)
{
    Py_ssize_t i;

    if (!PyList_CheckExact(pairs))
        return -1;
    if (PyList_GET_SIZE(pairs) == 0)
        return put(w, "{}", 2);
    if (depth >= MAX_DEPTH || put(w, "{", 1) < 0)
        return -1;
    for (i = 0; i < PyList_GET_SIZE(pairs); i++) {
        PyObject *pair = PyList_GET_ITEM(pairs, i);
        int r;
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2
                || !PyUnicode_CheckExact(PyTuple_GET_ITEM(pair, 0)))
            return -1;
        Py_INCREF(pair);
        r = newline(w, ",", i ? 1 : 0, depth + 1) < 0
            || put_string(w, PyTuple_GET_ITEM(pair, 0)) < 0 || put(w, ": ", 2) < 0
            || write_value(w, PyTuple_GET_ITEM(pair, 1), depth + 1) < 0;
        Py_DECREF(pair);
        if (r)
            return -1;
    }
    if (newline(w, "", 0, depth) < 0)
        return -1;
    return put(w, "}", 1);
}

static int write_dict(Writer *w, PyObject *v, int depth)
{
    Py_ssize_t pos = 0, n = 0;
    PyObject *name, *item;

    if (PyDict_GET_SIZE(v) == 0)
        return put(w, "{}", 2);
    if (depth >= MAX_DEPTH || put(w, "{", 1) < 0)
        return -1;
    while (PyDict_Next(v, &pos, &name, &item)) {
        int r;
        if (!PyUnicode_CheckExact(name))
            return -1;
        Py_INCREF(name);
        Py_INCREF(item);
        r = newline(w, ",", n++ ? 1 : 0, depth + 1) < 0 || put_string(w, name) < 0
            || put(w, ": ", 2) < 0 || write_value(w, item, depth + 1) < 0;
        Py_DECREF(name);
        Py_DECREF(item);
        if (r)
            return -1;
    }
    if (newline(w, "", 0, depth) < 0)
        return -1;
    return put(w, "}", 1);
}

static int write_array(Writer *w, PyObject *v, int depth)
{
    Py_ssize_t i;

    if (PySequence_Fast_GET_SIZE(v) == 0)
        return put(w, "[]", 2);
    if (depth >= MAX_DEPTH || put(w, "[", 1) < 0)
        return -1;
    for (i = 0; i < PySequence_Fast_GET_SIZE(v); i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(v, i);
        int r;
        Py_INCREF(item);
        r = newline(w, ",", i ? 1 : 0, depth + 1) < 0 || write_value(w, item, depth + 1) < 0;
        Py_DECREF(item);
        if (r)
            return -1;
    }
    if (newline(w, "", 0, depth) < 0)
        return -1;
    return put(w, "]", 1);
}

/* an object that is not an exact dict: a JsonObject's pairs, another mapping's items() */
static int write_mapping(Writer *w, PyObject *v, int depth)
{
    PyObject *items, *pairs;
    int r;

    if (PyObject_TypeCheck(v, (PyTypeObject *)w->json_object))
        items = PyObject_GetAttrString(v, "pairs");
    else
        items = PyObject_CallMethod(v, "items", NULL);
    if (items == NULL)
        return -1;
    pairs = PySequence_List(items);
    Py_DECREF(items);
    if (pairs == NULL)
        return -1;
    r = write_members(w, pairs, depth);
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
        return write_dict(w, v, depth);
    if (PyList_CheckExact(v) || PyTuple_CheckExact(v))
        return write_array(w, v, depth);
    if (PyUnicode_Check(v) || PyLong_Check(v) || PyFloat_Check(v))
        return -1;
    switch (PyObject_IsInstance(v, w->mapping)) {
    case 1:
        return write_mapping(w, v, depth);
    default:
        return -1;
    }
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
    int trailing, from_bytes;
    PyObject *memo;      /* member names already made, to share them */
    PyObject *json_object;
    char *scratch;       /* unescaped strings */
    Py_ssize_t scratch_size;
} Parser;

#define IS_SPACE(c) ((c) == ' ' || (c) == '\n' || (c) == '\r' || (c) == '\t')

/* skip whitespace and comments; -1 for an unterminated block comment, or a comment of bytes
   input holding non-ASCII bytes (the reference checks their UTF-8) */
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
        if (ps->from_bytes)
            for (; p < q; p++)
                if ((unsigned char)*p >= 0x80)
                    return -1;
        p = q;
    }
    ps->p = p;
    return 0;
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    int i;
    for (i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

/* a string with escapes, from s (after the quote) to the closing quote at end */
static PyObject *unescape(Parser *ps, const char *s, const char *end)
{
    char *out;
    unsigned cp, low;

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
        if (cp < 0x80)
            *out++ = (char)cp;
        else if (cp < 0x800) {
            *out++ = (char)(0xC0 | (cp >> 6));
            *out++ = (char)(0x80 | (cp & 0x3F));
        }
        else if (cp < 0x10000) {
            *out++ = (char)(0xE0 | (cp >> 12));
            *out++ = (char)(0x80 | ((cp >> 6) & 0x3F));
            *out++ = (char)(0x80 | (cp & 0x3F));
        }
        else {
            *out++ = (char)(0xF0 | (cp >> 18));
            *out++ = (char)(0x80 | ((cp >> 12) & 0x3F));
            *out++ = (char)(0x80 | ((cp >> 6) & 0x3F));
            *out++ = (char)(0x80 | (cp & 0x3F));
        }
    }
    return PyUnicode_DecodeUTF8(ps->scratch, out - ps->scratch, NULL);
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
        return PyUnicode_DecodeUTF8(s, q - s, NULL);
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
        n.has_frac = 1;
        n.frac = ++p;
        while (p < end && DIGIT(*p) < 10)
            p++;
        if (p == n.frac)
            return NULL;
        n.frac_end = p;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        n.has_exp = 1;
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

static PyObject *parse_array(Parser *ps, int depth)
{
    PyObject *list, *item;

    if (depth > MAX_DEPTH || (list = PyList_New(0)) == NULL)
        return NULL;
    ps->p++;
    if (skip_space(ps) < 0)
        goto fail;
    if (ps->p < ps->end && *ps->p == ']') {
        ps->p++;
        return list;
    }
    for (;;) {
        if ((item = parse_value(ps, depth)) == NULL)
            goto fail;
        if (PyList_Append(list, item) < 0) {
            Py_DECREF(item);
            goto fail;
        }
        Py_DECREF(item);
        if (skip_space(ps) < 0 || ps->p >= ps->end)
            goto fail;
        if (*ps->p == ']') {
            ps->p++;
            return list;
        }
        if (*ps->p++ != ',' || skip_space(ps) < 0)
            goto fail;
        if (ps->trailing && ps->p < ps->end && *ps->p == ']') {
            ps->p++;
            return list;
        }
    }
fail:
    Py_DECREF(list);
    return NULL;
}

/* an object; a JsonObject of every pair once a name repeats */
static PyObject *parse_object(Parser *ps, int depth)
{
    PyObject *dict, *pairs = NULL, *name = NULL, *value = NULL, *out;

    if (depth > MAX_DEPTH || (dict = PyDict_New()) == NULL)
        return NULL;
    ps->p++;
    if (skip_space(ps) < 0)
        goto fail;
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
        return dict;
    }
    for (;;) {
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
        if (skip_space(ps) < 0 || ps->p >= ps->end)
            goto fail;
        if (*ps->p == '}')
            break;
        if (*ps->p++ != ',' || skip_space(ps) < 0)
            goto fail;
        if (ps->trailing && ps->p < ps->end && *ps->p == '}')
            break;
    }
    ps->p++;
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
        if (ps->end - p >= 4 && memcmp(p, "null", 4) == 0) {
            ps->p += 4;
            Py_RETURN_NONE;
        }
        return NULL;
    case 't':
        if (ps->end - p >= 4 && memcmp(p, "true", 4) == 0) {
            ps->p += 4;
            Py_RETURN_TRUE;
        }
        return NULL;
    case 'f':
        if (ps->end - p >= 5 && memcmp(p, "false", 5) == 0) {
            ps->p += 5;
            Py_RETURN_FALSE;
        }
        return NULL;
    default:
        return parse_number(ps);
    }
}

static PyObject *py_parse(PyObject *self, PyObject *args)
{
    Parser ps;
    PyObject *text, *value = NULL;
    const char *start, *nul;
    Py_ssize_t size;
    int trailing;

    memset(&ps, 0, sizeof ps);
    if (!PyArg_ParseTuple(args, "OpO:parse", &text, &trailing, &ps.json_object))
        return NULL;
    ps.trailing = trailing;
    if (PyBytes_CheckExact(text)) {
        start = PyBytes_AS_STRING(text);
        size = PyBytes_GET_SIZE(text);
        ps.from_bytes = 1;
    }
    else if (PyUnicode_CheckExact(text)) {
        if ((start = PyUnicode_AsUTF8AndSize(text, &size)) == NULL) /* lone surrogates */
            goto done;
    }
    else
        goto done;
    ps.end = start + size;
    nul = memchr(start, 0, size);
    if (nul != NULL) {
        const char *q;
        for (q = nul; ps.from_bytes && q < ps.end; q++)
            if ((unsigned char)*q >= 0x80) /* the reference checks their UTF-8 */
                goto done;
        ps.end = nul;
    }
    ps.p = start;
    if (ps.end - start >= 3 && memcmp(start, "\xEF\xBB\xBF", 3) == 0)
        ps.p += 3;
    if ((ps.memo = PyDict_New()) == NULL || skip_space(&ps) < 0)
        goto done;
    value = parse_value(&ps, 0);
    if (value != NULL && (skip_space(&ps) < 0 || ps.p != ps.end))
        Py_CLEAR(value);
done:
    Py_XDECREF(ps.memo);
    PyMem_Free(ps.scratch);
    if (value == NULL) {
        PyErr_Clear();
        Py_RETURN_NOTIMPLEMENTED;
    }
    return value;
}

/* ------------------------------------------------------------------------------------------ */

static PyMethodDef methods[] = {
    {"parse", py_parse, METH_VARARGS,
     "parse(text, trailing_commas, JsonObject): text.parse's value, or NotImplemented"},
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
