/*
 * Helpers shared by the C twins of the two Godot Variant encodings: gameserde/godot/_speedups.c
 * (marshalls.cpp, var_to_bytes) and gameserde/godot/resource/_speedups.c (binary resource
 * files).  Each includes this file once; everything here is static to that module.
 *
 * - Unsupported and bail(): the one way a twin gives up, after which its Python glue runs the
 *   pure-Python reference over the whole input (which then gives the result or the error);
 * - little-endian loads (ld_u32, ld_u64) and stores into a growing output (OutBuf, put_*);
 * - the short-string cache (scan_short, short_ascii) and math NamedTuples (make_tuple);
 * - utf8_of and real_of, the writers' views of a str and of a real component;
 * - pairs_of_dict, for a Dictionary whose keys turn out not to be all str.
 */

#ifndef GAMESERDE_VARIANT_COMMON_H
#define GAMESERDE_VARIANT_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define SHORT_MAX 32            /* strings up to this many bytes may be cached */
#define KEY_CACHE_SIZE 256      /* slots for Dictionary keys; a power of two */
#define VALUE_CACHE_SIZE 512    /* slots for other strings; a power of two */

static PyObject *Unsupported; /* raised to make the Python glue run the reference */

static inline void *
bail(void)
{
    PyErr_SetNone(Unsupported);
    return NULL;
}

static inline uint32_t
ld_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static inline uint64_t
ld_u64(const unsigned char *p)
{
    return (uint64_t)ld_u32(p) | ((uint64_t)ld_u32(p + 4) << 32);
}

/* Short ASCII strings made so far, shared by every later equal one (str is immutable, so
 * sharing only saves memory, and for dictionary keys the hashing): Dictionary keys in the
 * first KEY_CACHE_SIZE slots, other strings in the rest.  Each slot keeps its string's bytes
 * as whole words, so that a lookup compares a few words.  Module state, kept for the life
 * of the process (at most a few tens of KB): the GIL is held from a lookup to the update
 * of its slot. */
typedef struct {
    PyObject *str; /* owned, or NULL */
    Py_ssize_t len;
    uint64_t words[SHORT_MAX / 8]; /* the bytes, zero-filled to whole words */
} CachedString;

static CachedString string_cache[KEY_CACHE_SIZE + VALUE_CACHE_SIZE];

/* Index (0-7) of the lowest byte flagged 0x80 in `x` (not 0). */
static inline int
lowest_flagged_byte(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x) >> 3;
#else
    int k = 0;
    while (!(x & 0x80)) {
        x >>= 8;
        k++;
    }
    return k;
#endif
}

/* The first `n` (<= SHORT_MAX) bytes at `raw`, up to the first NUL: their count (returned),
 * whether they are all ASCII, a hash of them, and the bytes as little-endian words (zero
 * past the end).  The caller checked that the string's padded storage, a multiple of 4
 * bytes, is in the buffer: a tail is read as 4 or 8 bytes and what lies past `n` is masked
 * off.  A word's first zero byte is the lowest one flagged by the classic zero-byte test
 * (its false positives only ever sit above a true zero). */
static inline Py_ssize_t
scan_short(const unsigned char *raw, Py_ssize_t n, uint64_t *words, int *ascii, size_t *hash)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t any = 0, h = 0;
    Py_ssize_t len = n;
    for (Py_ssize_t at = 0; at < n; at += 8) {
        Py_ssize_t rem = n - at;
        uint64_t w = rem > 4 ? ld_u64(raw + at) : (uint64_t)ld_u32(raw + at);
        uint64_t zero = (w - ones) & ~w & highs;
        if (rem < 8) {
            uint64_t valid = ((uint64_t)1 << (8 * rem)) - 1;
            w &= valid;
            zero &= valid;
        }
        if (zero) {
            int k = lowest_flagged_byte(zero);
            w &= k ? ~(uint64_t)0 >> (64 - 8 * k) : 0;
            len = at + k;
        }
        words[at >> 3] = w;
        any |= w;
        h = (h ^ w) * 0x9E3779B97F4A7C15ull;
        if (zero)
            break;
    }
    *ascii = !(any & highs);
    *hash = (size_t)((h ^ (uint64_t)len) >> 29);
    return len;
}

/* The str of the `len` ASCII bytes at `raw` (`words` as scan_short gave them). */
static inline PyObject *
short_ascii(const unsigned char *raw, Py_ssize_t len, const uint64_t *words, size_t hash,
            int is_key)
{
    CachedString *c = is_key ? &string_cache[hash & (KEY_CACHE_SIZE - 1)]
                             : &string_cache[KEY_CACHE_SIZE + (hash & (VALUE_CACHE_SIZE - 1))];
    int nwords = (int)((len + 7) >> 3), i;
    if (c->str != NULL && c->len == len) {
        for (i = 0; i < nwords && c->words[i] == words[i]; i++)
            ;
        if (i == nwords) {
            Py_INCREF(c->str);
            return c->str;
        }
    }
    PyObject *s = PyUnicode_New(len, 127);
    if (s == NULL)
        return NULL;
    if (len)
        memcpy(PyUnicode_1BYTE_DATA(s), raw, (size_t)len);
    PyObject *old = c->str;
    Py_INCREF(s);
    c->str = s;
    c->len = len;
    for (i = 0; i < nwords; i++)
        c->words[i] = words[i];
    Py_XDECREF(old);
    return s;
}

/* A math NamedTuple: tuple.__new__(cls, items), which is what cls._make does. Steals. */
static inline PyObject *
make_tuple(PyTypeObject *cls, PyObject **items, int n)
{
    PyObject *o = cls->tp_alloc(cls, n);
    if (o == NULL) {
        for (int i = 0; i < n; i++)
            Py_DECREF(items[i]);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        PyTuple_SET_ITEM(o, i, items[i]);
    /* Immutable and holding only numbers, it can never be part of a cycle: leave it out of
     * the cyclic GC, as CPython does with such plain tuples. */
    PyObject_GC_UnTrack(o);
    return o;
}

/* ========================================================================================= */
/* Output                                                                                    */
/* ========================================================================================= */

/* The bytes written so far: PyMem memory, grown by doubling; put_* callers reserve first. */
typedef struct {
    char *buf;
    Py_ssize_t len, cap;
} OutBuf;

static inline int
out_grow(OutBuf *o, Py_ssize_t more)
{
    Py_ssize_t cap = o->cap ? o->cap : 4096;
    while (cap - o->len < more) {
        if (cap > PY_SSIZE_T_MAX / 2) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    char *b = PyMem_Realloc(o->buf, (size_t)cap);
    if (b == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    o->buf = b;
    o->cap = cap;
    return 0;
}

static inline int
out_reserve(OutBuf *o, Py_ssize_t more)
{
    if (o->cap - o->len >= more)
        return 0;
    return out_grow(o, more);
}

/* Callers reserve first. */
static inline void
put_u32(OutBuf *o, uint32_t v)
{
    unsigned char *p = (unsigned char *)o->buf + o->len;
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
    o->len += 4;
}

static inline void
put_u64(OutBuf *o, uint64_t v)
{
    put_u32(o, (uint32_t)v);
    put_u32(o, (uint32_t)(v >> 32));
}

static inline void
put_raw(OutBuf *o, const void *p, Py_ssize_t n)
{
    if (n)
        memcpy(o->buf + o->len, p, (size_t)n);
    o->len += n;
}

static inline void
put_pad(OutBuf *o, Py_ssize_t n)
{
    int pad = (int)((4 - (n & 3)) & 3);
    for (int i = 0; i < pad; i++)
        o->buf[o->len++] = 0;
}

/* UTF-8 of a str (strict, or surrogatepass); *owner keeps the bytes alive when set. */
static inline int
utf8_of(PyObject *s, int surrogates, const char **data, Py_ssize_t *n, PyObject **owner)
{
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(s) < 0)
        return -1;
#endif
    *owner = NULL;
    if (PyUnicode_IS_ASCII(s)) {
        *data = (const char *)PyUnicode_1BYTE_DATA(s);
        *n = PyUnicode_GET_LENGTH(s);
        return 0;
    }
    PyObject *b = surrogates ? PyUnicode_AsEncodedString(s, "utf-8", "surrogatepass")
                             : PyUnicode_AsUTF8String(s);
    if (b == NULL)
        return -1;
    if (!PyBytes_Check(b)) {
        Py_DECREF(b);
        bail();
        return -1;
    }
    *owner = b;
    *data = PyBytes_AS_STRING(b);
    *n = PyBytes_GET_SIZE(b);
    return 0;
}

/* A component as struct's 'f'/'d' would take it: exact float or int only (else -1 with no
 * error: let the reference handle the value). */
static inline int
real_of(PyObject *c, double *x)
{
    if (PyFloat_CheckExact(c)) {
        *x = PyFloat_AS_DOUBLE(c);
        return 0;
    }
    if (PyLong_CheckExact(c)) {
        *x = PyLong_AsDouble(c);
        if (*x == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return -1;
        }
        return 0;
    }
    return -1;
}

/* The entries of `dict` as a list of (key, value) pairs, in its order. */
static inline PyObject *
pairs_of_dict(PyObject *dict)
{
    PyObject *pairs = PyList_New(0);
    if (pairs == NULL)
        return NULL;
    Py_ssize_t it = 0;
    PyObject *k, *v;
    while (PyDict_Next(dict, &it, &k, &v)) {
        PyObject *pair = PyTuple_Pack(2, k, v);
        if (pair == NULL || PyList_Append(pairs, pair) < 0) {
            Py_XDECREF(pair);
            Py_DECREF(pairs);
            return NULL;
        }
        Py_DECREF(pair);
    }
    return pairs;
}

/* Append the pair (key, value) to the list `pairs`; steals both. */
static inline int
append_pair(PyObject *pairs, PyObject *key, PyObject *value)
{
    PyObject *pair = PyTuple_New(2);
    if (pair == NULL) {
        Py_DECREF(key);
        Py_DECREF(value);
        return -1;
    }
    PyTuple_SET_ITEM(pair, 0, key);
    PyTuple_SET_ITEM(pair, 1, value);
    int rc = PyList_Append(pairs, pair);
    Py_DECREF(pair);
    return rc;
}

#endif
