/*
 * gameserde.flatbuffers._json_speedups: the optional C reader of flatc's JSON dialect behind
 * gameserde.flatbuffers.from_json() (see _accel.py).
 *
 * The pure-Python parser (_json_parse.py) is the reference. parse(text, strict, Bare,
 * Escaped) reads the common subset of documents into the values the C encoder takes (dicts
 * in document order, lists, str, the reference's Escaped strings), with bare tokens already
 * typed where that cannot change a result:
 *
 *   - a decimal integer token ([+-]?[0-9]+, not a negative zero, at most 40 digits) becomes
 *     an int: the reference's encoder takes int(token) for integer fields and float(token)
 *     for float fields, which is what the encoders do with the int (both round correctly);
 *   - any other decimal number ([+-]?([0-9]+.?[0-9]*|.[0-9]+)([eE][+-]?[0-9]+)?) becomes a
 *     float, correctly rounded as float(token) is (integer fields give it up, where the
 *     reference rejects the token);
 *   - identifiers (true, false, enum names, nan, -inf ...) and hexadecimal integers become
 *     instances of the reference's Bare str subclass, exactly as the reference returns
 *     them: the C encoder only looks such a token up in a field's names or reads it as a
 *     number or float name, anything else gives up.
 *
 * A string constant is a str when it is plain printable ASCII without escapes, else an
 * Escaped (the reference's rule: flatc takes only plain ASCII strings for scalars).
 *
 * Give-up rule: parse() returns None as soon as the document is outside the subset it
 * mirrors exactly -- any syntax error (the reference reports it), an object the reference
 * returns as an Irregular (a key given twice, a "$schema" key, a null or "null" value), a
 * null anywhere, a conversion function (rad(180)), a hexadecimal float or a "0x" without
 * digits, depth over 64, a NUL anywhere, a raw control character, a lone surrogate or
 * invalid UTF-8 in a string (the reference reports it or, with allow_non_utf8, keeps bytes),
 * a /// comment after something else on its line, an unterminated comment, any C-API
 * failure -- and never raises for a document. The caller then runs the reference. No
 * Python code runs during a parse.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_DEPTH 64
#define MAX_INT_DIGITS 40
#define KEY_CACHE 1024 /* distinct short keys remembered per parse (a power of two) */
#define KEY_MAX 64     /* longer keys are not cached */

/* character classes */
enum { C_WS = 1, C_HEX = 2, C_IDSTART = 4, C_IDREST = 8, C_DIGIT = 16 };
static uint8_t cls[256];

typedef struct {
    uint32_t hash, len;
    PyObject *key; /* a new reference, or NULL */
} KeyEntry;

typedef struct {
    const uint8_t *s;
    size_t n, i;
    int strict, seen_newline;
    PyObject *bare, *escaped;
    PyObject *bare_true, *bare_false;
    PyObject **stack; /* values of the open arrays */
    size_t nstack, capstack;
    uint8_t *scratch; /* a string with escapes, unescaped */
    size_t capscratch;
    KeyEntry keys[KEY_CACHE];
} Parser;

static PyObject *value(Parser *p, int depth);

/* White space and comments, as the reference's (?:[ \t\r\n]+|//[^\n\r]*|/\*.*?\*\/)*:
 * -1 for an unterminated block comment, or a /// comment with no line feed before it since
 * the previous token (p->seen_newline: at the start of the document without a byte order
 * mark); block and // comments do not count as line feeds. */
static int ws(Parser *p)
{
    const uint8_t *s = p->s;
    size_t i = p->i, n = p->n;
    int seen_newline = p->seen_newline;
    p->seen_newline = 0;
    for (;;) {
        while (i < n && (cls[s[i]] & C_WS)) {
            seen_newline |= s[i] == '\n';
            i++;
        }
        if (i + 1 < n && s[i] == '/') {
            if (s[i + 1] == '/') {
                if (i + 2 < n && s[i + 2] == '/' && !seen_newline)
                    return -1;
                i += 2;
                while (i < n && s[i] != '\n' && s[i] != '\r')
                    i++;
                continue;
            }
            if (s[i + 1] == '*') {
                size_t j = i + 2;
                for (;;) {
                    const uint8_t *star = memchr(s + j, '*', n - j);
                    if (star == NULL || (size_t)(star - s) + 1 >= n)
                        return -1;
                    j = (size_t)(star - s);
                    if (s[j + 1] == '/')
                        break;
                    j++;
                }
                i = j + 2;
                continue;
            }
        }
        break;
    }
    p->i = i;
    return 0;
}

static int grow(void **ptr, size_t *cap, size_t need, size_t elem)
{
    size_t ncap = *cap ? *cap : 64;
    void *np;
    while (ncap < need) {
        if (ncap > ((size_t)1 << 40) / elem)
            return -1;
        ncap *= 2;
    }
    np = PyMem_Realloc(*ptr, ncap * elem);
    if (np == NULL)
        return -1;
    *ptr = np;
    *cap = ncap;
    return 0;
}

/* -- strings ---------------------------------------------------------------------------- */

static int hex_value(uint8_t c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* n hex digits at s[i, i+n) (all inside the input), or -1. */
static long hex_digits(const Parser *p, size_t i, int n)
{
    long v = 0;
    int k;
    if (i + (size_t)n > p->n)
        return -1;
    for (k = 0; k < n; k++) {
        int h = hex_value(p->s[i + (size_t)k]);
        if (h < 0)
            return -1;
        v = (v << 4) | h;
    }
    return v;
}

static int put_utf8(Parser *p, size_t *len, uint32_t cp)
{
    uint8_t *o;
    if (*len + 4 > p->capscratch
        && grow((void **)&p->scratch, &p->capscratch, *len + 4, 1) < 0)
        return -1;
    o = p->scratch + *len;
    if (cp < 0x80) {
        o[0] = (uint8_t)cp;
        *len += 1;
    } else if (cp < 0x800) {
        o[0] = (uint8_t)(0xC0 | (cp >> 6));
        o[1] = (uint8_t)(0x80 | (cp & 0x3F));
        *len += 2;
    } else if (cp < 0x10000) {
        o[0] = (uint8_t)(0xE0 | (cp >> 12));
        o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (uint8_t)(0x80 | (cp & 0x3F));
        *len += 3;
    } else {
        o[0] = (uint8_t)(0xF0 | (cp >> 18));
        o[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
        o[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        o[3] = (uint8_t)(0x80 | (cp & 0x3F));
        *len += 4;
    }
    return 0;
}

/* The string constant at p->i (a '"' or '\''): its bytes unescaped into p->scratch, or (no
 * escapes) found in place. Sets *start and *len (into the input or the scratch), and
 * *plain when it is printable ASCII without escapes (the reference's str; else Escaped). */
static int string_bytes(Parser *p, const uint8_t **start, size_t *len, int *plain)
{
    const uint8_t *s = p->s;
    uint8_t quote = s[p->i];
    size_t i = p->i + 1, n = p->n, j = i, out = 0;
    int escaped = 0, high_bytes = 0;
    for (;;) {
        while (j < n && s[j] != quote && s[j] != '\\' && s[j] >= 0x20) {
            high_bytes |= s[j] >= 0x7F;
            j++;
        }
        if (j >= n || s[j] < 0x20)
            return -1; /* the reference: illegal character in string constant */
        if (escaped || s[j] == '\\') {
            if (out + (j - i) > p->capscratch
                && grow((void **)&p->scratch, &p->capscratch, out + (j - i), 1) < 0)
                return -1;
            memcpy(p->scratch + out, s + i, j - i);
            out += j - i;
        }
        if (s[j] == quote)
            break;
        escaped = 1;
        if (j + 1 >= n)
            return -1;
        switch (s[j + 1]) {
        case '"': case '\'': case '\\': case '/': {
            uint8_t c = s[j + 1];
            if (put_utf8(p, &out, c) < 0)
                return -1;
            i = j + 2;
            break;
        }
        case 'b': case 'f': case 'n': case 'r': case 't': {
            uint8_t e = s[j + 1];
            uint32_t c = e == 'b' ? '\b' : e == 'f' ? '\f' : e == 'n' ? '\n'
                                             : e == 'r' ? '\r' : '\t';
            if (put_utf8(p, &out, c) < 0)
                return -1;
            i = j + 2;
            break;
        }
        case 'x': {
            long v = hex_digits(p, j + 2, 2);
            if (v < 0)
                return -1;
            /* a raw byte: the final UTF-8 check decides */
            if (out + 1 > p->capscratch
                && grow((void **)&p->scratch, &p->capscratch, out + 1, 1) < 0)
                return -1;
            p->scratch[out++] = (uint8_t)v;
            i = j + 4;
            break;
        }
        case 'u': {
            long v = hex_digits(p, j + 2, 4), lo;
            i = j + 6;
            if (v < 0)
                return -1;
            if (v >= 0xD800 && v < 0xDC00 && i + 1 < n && s[i] == '\\' && s[i + 1] == 'u'
                && (lo = hex_digits(p, i + 2, 4)) >= 0xDC00 && lo < 0xE000) {
                v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
                i += 6;
            }
            if (v >= 0xD800 && v < 0xE000)
                return -1; /* an unpaired surrogate: the reference reports it */
            if (put_utf8(p, &out, (uint32_t)v) < 0)
                return -1;
            break;
        }
        default:
            return -1;
        }
        j = i;
    }
    if (escaped) {
        *start = p->scratch;
        *len = out;
    } else {
        *start = s + i;
        *len = j - i;
    }
    *plain = !escaped && !high_bytes;
    p->i = j + 1;
    return 0;
}

static PyObject *string(Parser *p)
{
    const uint8_t *start;
    size_t len;
    int plain;
    PyObject *text, *r;
    if (string_bytes(p, &start, &len, &plain) < 0)
        return NULL;
    text = PyUnicode_DecodeUTF8((const char *)start, (Py_ssize_t)len, NULL);
    if (text == NULL || plain) {
        if (plain && len == 4 && memcmp(start, "null", 4) == 0)
            Py_CLEAR(text); /* "null": an Irregular object for the reference */
        return text;
    }
    r = PyObject_CallOneArg(p->escaped, text);
    Py_DECREF(text);
    if (r != NULL && Py_TYPE(r) != (PyTypeObject *)p->escaped)
        Py_CLEAR(r);
    return r;
}

/* A key (quoted or an identifier), through the per-parse cache of short keys: repeated keys
 * are one interned object, which makes the encoder's lookups by identity. */
static PyObject *key_object(Parser *p, const uint8_t *start, size_t len)
{
    uint32_t h = 2166136261u;
    size_t k, slot;
    PyObject *key;
    if (len > KEY_MAX) {
        return PyUnicode_DecodeUTF8((const char *)start, (Py_ssize_t)len, NULL);
    }
    for (k = 0; k < len; k++)
        h = (h ^ start[k]) * 16777619u;
    slot = h & (KEY_CACHE - 1);
    for (k = 0; k < 8; k++) {
        KeyEntry *e = &p->keys[(slot + k) & (KEY_CACHE - 1)];
        if (e->key == NULL) {
            key = PyUnicode_DecodeUTF8((const char *)start, (Py_ssize_t)len, NULL);
            if (key == NULL)
                return NULL;
            PyUnicode_InternInPlace(&key);
            Py_INCREF(key);
            e->key = key;
            e->hash = h;
            e->len = (uint32_t)len;
            return key;
        }
        if (e->hash == h && e->len == len
            && memcmp(PyUnicode_AsUTF8(e->key), start, len) == 0) {
            Py_INCREF(e->key);
            return e->key;
        }
    }
    key = PyUnicode_DecodeUTF8((const char *)start, (Py_ssize_t)len, NULL);
    if (key != NULL)
        PyUnicode_InternInPlace(&key);
    return key;
}

/* -- bare tokens -------------------------------------------------------------------------- */

static PyObject *bare_token(Parser *p, const uint8_t *t, size_t len)
{
    PyObject *str, *r;
    if (len == 4 && memcmp(t, "true", 4) == 0 && p->bare_true != NULL) {
        Py_INCREF(p->bare_true);
        return p->bare_true;
    }
    if (len == 5 && memcmp(t, "false", 5) == 0 && p->bare_false != NULL) {
        Py_INCREF(p->bare_false);
        return p->bare_false;
    }
    str = PyUnicode_FromStringAndSize((const char *)t, (Py_ssize_t)len);
    if (str == NULL)
        return NULL;
    r = PyObject_CallOneArg(p->bare, str);
    Py_DECREF(str);
    if (r != NULL && Py_TYPE(r) != (PyTypeObject *)p->bare) {
        Py_DECREF(r);
        return NULL;
    }
    return r;
}

/* A decimal integer token: an int, or NULL without an error when the token is not one that
 * is safe to type (see the header). */
static PyObject *int_token(const uint8_t *t, size_t len)
{
    size_t k = 0, ndigits;
    int neg = 0, nonzero = 0;
    if (t[0] == '+' || t[0] == '-') {
        neg = t[0] == '-';
        k = 1;
    }
    ndigits = len - k;
    if (ndigits == 0 || ndigits > MAX_INT_DIGITS)
        return NULL;
    for (size_t m = k; m < len; m++) {
        if (!(cls[t[m]] & C_DIGIT))
            return NULL;
        nonzero |= t[m] != '0';
    }
    if (neg && !nonzero)
        return NULL; /* -0: float("-0") is -0.0, int("-0") is 0 */
    if (ndigits <= 18) {
        long long v = 0;
        for (size_t m = k; m < len; m++)
            v = v * 10 + (t[m] - '0');
        return PyLong_FromLongLong(neg ? -v : v);
    } else {
        char buf[MAX_INT_DIGITS + 2];
        memcpy(buf, t, len);
        buf[len] = 0;
        return PyLong_FromString(buf, NULL, 10);
    }
}

static PyObject *float_token(const uint8_t *t, size_t len)
{
    char small[128], *buf = small, *end;
    double d;
    PyObject *r = NULL;
    if (len >= sizeof(small)) {
        buf = PyMem_Malloc(len + 1);
        if (buf == NULL)
            return NULL;
    }
    memcpy(buf, t, len);
    buf[len] = 0;
    d = PyOS_string_to_double(buf, &end, NULL);
    if (!(d == -1.0 && PyErr_Occurred()) && end == buf + len)
        r = PyFloat_FromDouble(d);
    if (buf != small)
        PyMem_Free(buf);
    return r;
}

static size_t digits(const uint8_t *s, size_t i, size_t n, int class)
{
    while (i < n && (cls[s[i]] & class))
        i++;
    return i;
}

/* A bare token where the reference's _BARE matches: [+-]? then an identifier (not followed by
 * "(": a conversion function), 0x and hexadecimal digits (no "." or exponent: hexadecimal
 * floats), or a decimal number; the token ends where that match ends. */
static PyObject *token(Parser *p)
{
    const uint8_t *s = p->s;
    size_t start = p->i, i = start, n = p->n, len;
    PyObject *r;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    if (i >= n)
        return NULL;
    if (cls[s[i]] & C_IDSTART) {
        i = digits(s, i, n, C_IDREST);
        if (i < n && s[i] == '(')
            return NULL;
        len = i - start;
        p->i = i;
        if (len == 4 && memcmp(s + start, "null", 4) == 0)
            return NULL; /* null: an Irregular object for the reference */
        return bare_token(p, s + start, len);
    }
    if (s[i] == '0' && i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        size_t j = digits(s, i + 2, n, C_HEX);
        if (j == i + 2 || (j < n && (s[j] == '.' || s[j] == 'p' || s[j] == 'P')))
            return NULL;
        p->i = j;
        return bare_token(p, s + start, j - start);
    }
    if (cls[s[i]] & C_DIGIT) {
        i = digits(s, i, n, C_DIGIT);
        if (i < n && s[i] == '.')
            i = digits(s, i + 1, n, C_DIGIT);
    } else if (s[i] == '.' && i + 1 < n && (cls[s[i + 1]] & C_DIGIT)) {
        i = digits(s, i + 1, n, C_DIGIT);
    } else {
        return NULL; /* the reference: cannot parse value starting with ... */
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < n && (s[j] == '+' || s[j] == '-'))
            j++;
        if (j < n && (cls[s[j]] & C_DIGIT))
            i = digits(s, j, n, C_DIGIT);
    }
    len = i - start;
    p->i = i;
    r = int_token(s + start, len);
    if (r != NULL || PyErr_Occurred())
        return r;
    return float_token(s + start, len);
}

/* -- containers ----------------------------------------------------------------------------- */

static PyObject *object(Parser *p, int depth)
{
    PyObject *d = PyDict_New(), *key = NULL, *v;
    const uint8_t *s = p->s;
    if (d == NULL)
        return NULL;
    p->i++;
    for (;;) {
        if (ws(p) < 0 || p->i >= p->n)
            goto fail;
        if (s[p->i] == '}') {
            if (p->strict && PyDict_GET_SIZE(d))
                goto fail; /* a trailing comma */
            p->i++;
            return d;
        }
        if (s[p->i] == '"' || s[p->i] == '\'') {
            const uint8_t *start;
            size_t len;
            int plain;
            if (string_bytes(p, &start, &len, &plain) < 0
                || (len == 7 && memcmp(start, "$schema", 7) == 0))
                goto fail; /* "$schema": an Irregular object for the reference */
            key = key_object(p, start, len);
        } else {
            size_t j = p->i;
            if (p->strict || !(cls[s[j]] & C_IDSTART))
                goto fail;
            while (j < p->n && (cls[s[j]] & C_IDREST))
                j++;
            key = key_object(p, s + p->i, j - p->i);
            p->i = j;
        }
        if (key == NULL || ws(p) < 0 || p->i >= p->n || s[p->i] != ':')
            goto fail;
        p->i++;
        v = value(p, depth);
        if (v == NULL)
            goto fail;
        if (PyDict_Contains(d, key) != 0 || PyDict_SetItem(d, key, v) < 0) {
            Py_DECREF(v);
            goto fail; /* a key given twice: the reference reports it */
        }
        Py_DECREF(v);
        Py_CLEAR(key);
        if (ws(p) < 0 || p->i >= p->n)
            goto fail;
        if (s[p->i] == ',') {
            p->i++;
            continue;
        }
        if (s[p->i] == '}') {
            p->i++;
            return d;
        }
        goto fail;
    }
fail:
    Py_XDECREF(key);
    Py_DECREF(d);
    return NULL;
}

static PyObject *array(Parser *p, int depth)
{
    size_t mark = p->nstack, k;
    const uint8_t *s = p->s;
    PyObject *list, *v;
    p->i++;
    for (;;) {
        if (ws(p) < 0 || p->i >= p->n)
            goto fail;
        if (s[p->i] == ']') {
            if (p->strict && p->nstack > mark)
                goto fail; /* a trailing comma */
            p->i++;
            break;
        }
        v = value(p, depth);
        if (v == NULL)
            goto fail;
        if (p->nstack == p->capstack
            && grow((void **)&p->stack, &p->capstack, p->nstack + 1, sizeof(PyObject *)) < 0) {
            Py_DECREF(v);
            goto fail;
        }
        p->stack[p->nstack++] = v;
        if (ws(p) < 0 || p->i >= p->n)
            goto fail;
        if (s[p->i] == ',') {
            p->i++;
            continue;
        }
        if (s[p->i] == ']') {
            p->i++;
            break;
        }
        goto fail;
    }
    list = PyList_New((Py_ssize_t)(p->nstack - mark));
    if (list == NULL)
        goto fail;
    for (k = mark; k < p->nstack; k++)
        PyList_SET_ITEM(list, (Py_ssize_t)(k - mark), p->stack[k]); /* steals */
    p->nstack = mark;
    return list;
fail:
    for (k = mark; k < p->nstack; k++)
        Py_DECREF(p->stack[k]);
    p->nstack = mark;
    return NULL;
}

static PyObject *value(Parser *p, int depth)
{
    uint8_t c;
    if (depth > MAX_DEPTH || ws(p) < 0 || p->i >= p->n)
        return NULL;
    c = p->s[p->i];
    if (c == '{')
        return object(p, depth + 1);
    if (c == '[')
        return array(p, depth + 1);
    if (c == '"' || c == '\'')
        return string(p);
    return token(p);
}

/* parse(text, strict, Bare, Escaped) -> the document's root object, or None (gave up) */
static PyObject *mod_parse(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Parser *p;
    PyObject *text, *result = NULL;
    const char *data;
    Py_ssize_t n;
    size_t k;
    (void)module;
    if (nargs != 4 || !PyType_Check(args[2]) || !PyType_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "parse(text, strict, Bare, Escaped)");
        return NULL;
    }
    text = args[0];
    if (PyBytes_CheckExact(text)) {
        data = PyBytes_AS_STRING(text);
        n = PyBytes_GET_SIZE(text);
    } else if (PyUnicode_CheckExact(text)) {
        data = PyUnicode_AsUTF8AndSize(text, &n);
        if (data == NULL) { /* lone surrogates: the reference decides */
            PyErr_Clear();
            Py_RETURN_NONE;
        }
    } else {
        Py_RETURN_NONE;
    }
    if (memchr(data, 0, (size_t)n) != NULL) /* the reference refuses a NUL */
        Py_RETURN_NONE;
    p = PyMem_Calloc(1, sizeof(Parser));
    if (p == NULL)
        return PyErr_NoMemory();
    p->s = (const uint8_t *)data;
    p->n = (size_t)n;
    p->strict = PyObject_IsTrue(args[1]) > 0;
    p->bare = args[2];
    p->escaped = args[3];
    p->bare_true = bare_token(p, (const uint8_t *)"true", 4);
    p->bare_false = bare_token(p, (const uint8_t *)"false", 5);
    if (p->n >= 3 && memcmp(p->s, "\xEF\xBB\xBF", 3) == 0)
        p->i = 3;
    p->seen_newline = p->i == 0; /* a /// comment may start the document (no byte order mark) */
    Py_INCREF(text); /* the buffer stays alive (no Python code runs, but be safe) */
    if (p->bare_true != NULL && p->bare_false != NULL && ws(p) == 0 && p->i < p->n
        && p->s[p->i] == '{') {
        result = value(p, 0);
        if (result != NULL && (ws(p) < 0 || p->i != p->n))
            Py_CLEAR(result);
    }
    Py_DECREF(text);
    for (k = 0; k < KEY_CACHE; k++)
        Py_XDECREF(p->keys[k].key);
    Py_XDECREF(p->bare_true);
    Py_XDECREF(p->bare_false);
    PyMem_Free(p->stack);
    PyMem_Free(p->scratch);
    PyMem_Free(p);
    if (result == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return result;
}

static PyMethodDef methods[] = {
    {"parse", (PyCFunction)(void (*)(void))mod_parse, METH_FASTCALL,
     "parse(text, strict, Bare, Escaped) -> the root object of a flatc JSON document, or None "
     "when the document is outside what this parser mirrors exactly."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "gameserde.flatbuffers._json_speedups",
    "The optional C reader of flatc's JSON dialect (see _accel.py).",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__json_speedups(void)
{
    PyObject *m;
    int c;
    for (c = 0; c < 256; c++) {
        uint8_t k = 0;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            k |= C_WS;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
            k |= C_IDSTART | C_IDREST;
        if (c >= '0' && c <= '9')
            k |= C_DIGIT | C_IDREST | C_HEX;
        if ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))
            k |= C_HEX;
        cls[c] = k;
    }
    m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    if (PyModule_AddIntConstant(m, "API_VERSION", 1) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
