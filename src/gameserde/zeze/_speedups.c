/*
 * Optional C twin of the Zeze bean codec (gameserde.zeze.codec).
 *
 * The pure-Python encoder and decoder (_encode.py, _decode.py) are the reference; this module
 * only makes the common case fast and must give exactly the same bytes and values.  A Program
 * holds the plans of the beans that are all plain (one layer, no decimal, no beankey keys;
 * as dicts, or dataclasses with __slots__), compiled by gameserde/zeze/_accel.py.  Whenever
 * anything is not the common case -- a value of an unexpected Python type, an out-of-range
 * number, a string with lone surrogates, extra keys (other than transient fields) or kept
 * unknown fields, an unknown field id or a wire type that needs Java's conversions on
 * decode, a layer tag, truncated input, nesting past max_depth, absent fields whose defaults
 * would overrun the max_expansion budget -- decode returns None and a Codec calls its reference, which runs over the whole input
 * and gives the result or raises the exact error.  So this file never formats an error.
 *
 * Safety: every read is checked against the bytes left; counts are never used to allocate;
 * C recursion is bounded by max_depth (the glue never passes more than MAX_C_DEPTH).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define API_VERSION 3
#define MAX_C_DEPTH 2000
#define UNLIMITED ((int64_t)1 << 62) /* gameserde._expansion.UNLIMITED */

enum { K_BOOL, K_INT, K_FLOAT, K_DOUBLE, K_STRING, K_BINARY, K_LIST, K_SET, K_MAP, K_BEAN,
       K_VECTOR, K_VECTORINT, K_DYNAMIC };

enum { W_INTEGER, W_FLOAT, W_DOUBLE, W_BYTES, W_LIST, W_MAP, W_BEAN, W_DYNAMIC, W_VECTOR2,
       W_VECTOR2INT, W_VECTOR3, W_VECTOR3INT, W_VECTOR4 };

typedef struct {
    int64_t type_id;
    int bean;
    PyObject *name; /* the bean's full name */
} Member;

typedef struct {
    int kind, wire, bits, elem, key, value, bean;
    PyObject *zero; /* the shared zero value of an immutable kind, else NULL */
    Py_ssize_t nmembers; /* a dynamic's beans */
    Member *members;
} TypeSpec;

typedef struct {
    int id, type;
    PyObject *name;    /* interned str */
    PyObject *deflt;   /* what a dict that leaves the field out holds */
    int64_t cost;      /* the values decoding builds when the field is absent */
} FieldSpec;

typedef struct {
    Py_ssize_t nfields;
    FieldSpec *fields;
    PyTypeObject *cls;   /* the bean's dataclass (with __slots__), or NULL */
    Py_ssize_t *offsets; /* where each field's slot sits in an instance of cls */
    PyObject *transient; /* a tuple of the names of its transient fields: a dict may hold
                            them, encoding ignores them */
} BeanSpec;

typedef struct {
    PyObject_HEAD
    Py_ssize_t ntypes, nbeans;
    TypeSpec *types;
    BeanSpec *beans;
    PyObject *decode_java; /* gameserde.zeze._javastr.decode_java, for malformed UTF-8 */
    PyTypeObject *dynamic; /* gameserde.zeze.values.Dynamic */
} Program;

/* ------------------------------------------------------------------------------------------
 * Writing */

typedef struct {
    unsigned char *buf;
    Py_ssize_t len, cap;
} Out;

static int
out_reserve(Out *o, Py_ssize_t n)
{
    if (o->len + n <= o->cap)
        return 0;
    Py_ssize_t cap = o->cap ? o->cap : 256;
    while (cap < o->len + n) {
        if (cap > PY_SSIZE_T_MAX / 2)
            return -1;
        cap *= 2;
    }
    unsigned char *p = PyMem_Realloc(o->buf, (size_t)cap);
    if (p == NULL)
        return -1;
    o->buf = p;
    o->cap = cap;
    return 0;
}

static inline int
out_byte(Out *o, unsigned v)
{
    if (o->len >= o->cap && out_reserve(o, 1) < 0)
        return -1;
    o->buf[o->len++] = (unsigned char)v;
    return 0;
}

static int
out_raw(Out *o, const void *p, Py_ssize_t n)
{
    if (out_reserve(o, n) < 0)
        return -1;
    memcpy(o->buf + o->len, p, (size_t)n);
    o->len += n;
    return 0;
}

/* Java WriteLong. */
static inline int
out_long(Out *o, int64_t v)
{
    if (o->cap - o->len < 9 && out_reserve(o, 9) < 0)
        return -1;
    unsigned char *p = o->buf + o->len;
    if ((uint64_t)v + 0x40 < 0x80) {
        p[0] = (unsigned char)v;
        o->len += 1;
        return 0;
    }
    if ((uint64_t)v + 0x2000 < 0x4000) {
        uint64_t u = v >= 0 ? (uint64_t)v + 0x4000 : (uint64_t)v - 0x4000;
        p[0] = (unsigned char)(u >> 8);
        p[1] = (unsigned char)u;
        o->len += 2;
        return 0;
    }
    uint64_t m = v >= 0 ? (uint64_t)v : ~(uint64_t)v; /* the magnitude bits to hold */
    int n = m < 0x100000 ? 3 : m < 0x8000000 ? 4 : m < 0x400000000ULL ? 5
            : m < 0x20000000000ULL ? 6 : m < 0x1000000000000ULL ? 7
            : m < 0x80000000000000ULL ? 8 : 9;
    if (n <= 8) {
        uint64_t mark = (((uint64_t)1 << (n - 1)) - 1) << (7 * n);
        uint64_t u = v >= 0 ? (uint64_t)v + mark : (uint64_t)v - mark;
        for (int i = n - 1; i >= 0; i--, u >>= 8)
            p[i] = (unsigned char)u;
        o->len += n;
        return 0;
    }
    uint64_t u = (uint64_t)v ^ ((uint64_t)1 << 63);
    p[0] = v >= 0 ? 0x7f : 0x80;
    for (int i = 8; i >= 1; i--, u >>= 8)
        p[i] = (unsigned char)u;
    o->len += 9;
    return 0;
}

/* Java WriteUInt of a non-negative value below 2^32. */
static int
out_uint(Out *o, uint32_t v)
{
    if (v < 0x80)
        return out_byte(o, v);
    unsigned char b[5];
    int n;
    if (v < 0x4000) {
        b[0] = (unsigned char)(0x80 | v >> 8); b[1] = (unsigned char)v; n = 2;
    } else if (v < 0x200000) {
        b[0] = (unsigned char)(0xc0 | v >> 16); b[1] = (unsigned char)(v >> 8);
        b[2] = (unsigned char)v; n = 3;
    } else if (v < 0x10000000) {
        b[0] = (unsigned char)(0xe0 | v >> 24); b[1] = (unsigned char)(v >> 16);
        b[2] = (unsigned char)(v >> 8); b[3] = (unsigned char)v; n = 4;
    } else {
        b[0] = 0xf0; b[1] = (unsigned char)(v >> 24); b[2] = (unsigned char)(v >> 16);
        b[3] = (unsigned char)(v >> 8); b[4] = (unsigned char)v; n = 5;
    }
    return out_raw(o, b, n);
}

static inline int
out_tag(Out *o, int last, int id, int wire)
{
    int delta = id - last;
    if (delta < 15)
        return out_byte(o, (unsigned)(delta << 4 | wire));
    if (out_byte(o, 0xf0u | (unsigned)wire) < 0)
        return -1;
    return out_uint(o, (uint32_t)(delta - 15));
}

static uint32_t
float32_bits(double d)
{
    if (isnan(d)) {
        uint64_t bits;
        memcpy(&bits, &d, 8);
        uint32_t payload = (uint32_t)(bits >> 29) & 0x7fffff;
        return (uint32_t)(bits >> 32 & 0x80000000u) | 0x7f800000u | (payload ? payload : 0x400000u);
    }
    float f = (float)d;
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static int
out_float(Out *o, double d)
{
    uint32_t u = float32_bits(d);
    unsigned char b[4] = {(unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16),
                          (unsigned char)(u >> 24)};
    return out_raw(o, b, 4);
}

static int
out_double(Out *o, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    unsigned char b[8];
    for (int i = 0; i < 8; i++, u >>= 8)
        b[i] = (unsigned char)u;
    return out_raw(o, b, 8);
}

/* ------------------------------------------------------------------------------------------
 * Encoding.  Each function returns 0, or 1 to give up (the reference decides), or -1 on a
 * Python error (memory). */

#define GIVE_UP 1

static int enc_bean(Program *p, int bean, PyObject *value, Out *o, int depth, int max_depth);

static inline int
as_int(PyObject *v, int bits, int64_t *out)
{
    if (!PyLong_CheckExact(v))
        return GIVE_UP;
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow || (x == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return GIVE_UP;
    }
    if (bits < 64) {
        long long limit = 1LL << (bits - 1);
        if (x < -limit || x >= limit)
            return GIVE_UP;
    }
    *out = x;
    return 0;
}

static int
as_double(PyObject *v, double *out)
{
    if (PyFloat_CheckExact(v)) {
        *out = PyFloat_AS_DOUBLE(v);
        return 0;
    }
    if (PyLong_CheckExact(v)) {
        double d = PyLong_AsDouble(v);
        if (d == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return GIVE_UP;
        }
        *out = d;
        return 0;
    }
    return GIVE_UP;
}

static int
vector_items(PyObject *v, int n, PyObject ***items)
{
    if (!(PyTuple_CheckExact(v) || PyList_CheckExact(v)) || PySequence_Fast_GET_SIZE(v) != n)
        return GIVE_UP;
    *items = PySequence_Fast_ITEMS(v);
    return 0;
}

/* Whether a field holding v is written (0: no, 2: yes), or GIVE_UP. */
static int
present(Program *p, TypeSpec *t, PyObject *v)
{
    int64_t i;
    double d;
    PyObject **items;
    int r;
    switch (t->kind) {
    case K_BOOL:
        if (v == Py_True) return 2;
        if (v == Py_False) return 0;
        return GIVE_UP;
    case K_INT:
        if ((r = as_int(v, t->bits, &i))) return r;
        return i != 0 ? 2 : 0;
    case K_FLOAT:
    case K_DOUBLE:
        if ((r = as_double(v, &d))) return r;
        return d != 0 ? 2 : 0;
    case K_STRING:
        if (!PyUnicode_CheckExact(v)) return GIVE_UP;
        return PyUnicode_GET_LENGTH(v) ? 2 : 0;
    case K_BINARY:
        if (!PyBytes_CheckExact(v)) return GIVE_UP;
        return PyBytes_GET_SIZE(v) ? 2 : 0;
    case K_VECTOR:
        if ((r = vector_items(v, t->bits, &items))) return r;
        r = 0;
        for (int k = 0; k < t->bits; k++) {
            int e = as_double(items[k], &d);
            if (e) return e;
            if (d != 0) r = 2;
        }
        return r;
    case K_VECTORINT:
        if ((r = vector_items(v, t->bits, &items))) return r;
        r = 0;
        for (int k = 0; k < t->bits; k++) {
            int e = as_int(items[k], 32, &i);
            if (e) return e;
            if (i != 0) r = 2;
        }
        return r;
    }
    (void)p;
    return GIVE_UP;
}

/* The bean a dynamic value holds: *member NULL for the EmptyBean. Gives up on anything but
 * None, Dynamic(None, {}, 0|None) and Dynamic(full name, dict, its TypeId or None). */
static int
dyn_resolve(Program *p, TypeSpec *t, PyObject *v, Member **member, PyObject **value)
{
    *member = NULL;
    if (v == Py_None)
        return 0;
    if (Py_TYPE(v) != p->dynamic || PyTuple_GET_SIZE(v) != 3)
        return GIVE_UP;
    PyObject *bean = PyTuple_GET_ITEM(v, 0), *val = PyTuple_GET_ITEM(v, 1),
             *tid = PyTuple_GET_ITEM(v, 2);
    if (bean == Py_None) {
        int empty = val == Py_None || (PyDict_CheckExact(val) && PyDict_GET_SIZE(val) == 0);
        int zero = tid == Py_None || (PyLong_CheckExact(tid) && PyLong_AsLongLong(tid) == 0);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return GIVE_UP;
        }
        return empty && zero ? 0 : GIVE_UP;
    }
    if (!PyUnicode_CheckExact(bean) || !PyDict_CheckExact(val))
        return GIVE_UP;
    for (Py_ssize_t k = 0; k < t->nmembers; k++) {
        Member *m = &t->members[k];
        if (m->name == bean || PyUnicode_Compare(m->name, bean) == 0) {
            if (tid != Py_None) {
                int overflow;
                long long x = PyLong_CheckExact(tid)
                    ? PyLong_AsLongLongAndOverflow(tid, &overflow) : 0;
                if (!PyLong_CheckExact(tid) || overflow || x != m->type_id) {
                    PyErr_Clear();
                    return GIVE_UP;
                }
            }
            *member = m;
            *value = val;
            return 0;
        }
    }
    PyErr_Clear();
    return GIVE_UP; /* a short name, or not one of the dynamic's beans */
}

/* An element, written in full. */
static int
enc_element(Program *p, TypeSpec *t, PyObject *v, Out *o, int depth, int max_depth)
{
    int64_t i;
    double d;
    int r;
    PyObject **items;
    switch (t->kind) {
    case K_BOOL:
        if (v != Py_True && v != Py_False) return GIVE_UP;
        return out_byte(o, v == Py_True);
    case K_INT:
        if ((r = as_int(v, t->bits, &i))) return r;
        return out_long(o, i);
    case K_FLOAT:
        if ((r = as_double(v, &d))) return r;
        return out_float(o, d);
    case K_DOUBLE:
        if ((r = as_double(v, &d))) return r;
        return out_double(o, d);
    case K_STRING: {
        if (!PyUnicode_CheckExact(v)) return GIVE_UP;
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(v, &n);
        if (s == NULL) { /* lone surrogates: the reference writes them */
            PyErr_Clear();
            return GIVE_UP;
        }
        if (n > 0xffffffffLL) return GIVE_UP;
        if (out_uint(o, (uint32_t)n) < 0) return -1;
        return out_raw(o, s, n);
    }
    case K_BINARY:
        if (!PyBytes_CheckExact(v) || PyBytes_GET_SIZE(v) > 0xffffffffLL) return GIVE_UP;
        if (out_uint(o, (uint32_t)PyBytes_GET_SIZE(v)) < 0) return -1;
        return out_raw(o, PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v));
    case K_VECTOR:
        if ((r = vector_items(v, t->bits, &items))) return r;
        for (int k = 0; k < t->bits; k++) {
            if ((r = as_double(items[k], &d))) return r;
            if (out_float(o, d) < 0) return -1;
        }
        return 0;
    case K_VECTORINT:
        if ((r = vector_items(v, t->bits, &items))) return r;
        for (int k = 0; k < t->bits; k++) {
            if ((r = as_int(items[k], 32, &i))) return r;
            if (out_long(o, i) < 0) return -1;
        }
        return 0;
    case K_BEAN:
        return enc_bean(p, t->bean, v, o, depth + 1, max_depth);
    case K_DYNAMIC: {
        Member *m;
        PyObject *val;
        if ((r = dyn_resolve(p, t, v, &m, &val))) return r;
        if (m == NULL)
            return out_long(o, 0) < 0 ? -1 : out_byte(o, 0);
        if (out_long(o, m->type_id) < 0) return -1;
        return enc_bean(p, m->bean, val, o, depth + 1, max_depth);
    }
    }
    return GIVE_UP;
}

static int
enc_list(Program *p, TypeSpec *t, PyObject *v, Out *o, int depth, int max_depth)
{
    TypeSpec *et = &p->types[t->elem];
    Py_ssize_t n = PySequence_Fast_GET_SIZE(v);
    PyObject **items = PySequence_Fast_ITEMS(v);
    if (n < 15) {
        if (out_byte(o, (unsigned)(n << 4 | et->wire)) < 0) return -1;
    } else {
        if (n - 15 > 0xffffffffLL) return GIVE_UP;
        if (out_byte(o, 0xf0u | (unsigned)et->wire) < 0) return -1;
        if (out_uint(o, (uint32_t)(n - 15)) < 0) return -1;
    }
    if (et->kind == K_INT) { /* the commonest list, without the element dispatch */
        for (Py_ssize_t k = 0; k < n; k++) {
            int64_t i;
            int r = as_int(items[k], et->bits, &i);
            if (r) return r;
            if (out_long(o, i) < 0) return -1;
        }
        return 0;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        int r = enc_element(p, et, items[k], o, depth, max_depth);
        if (r) return r;
    }
    return 0;
}

/* A set given as a list or tuple: written as it is when its elements are distinct. */
static int
distinct(PyObject *seq)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 2) return 0;
    PyObject *seen = PySet_New(seq);
    if (seen == NULL) {
        PyErr_Clear();
        return GIVE_UP;
    }
    Py_ssize_t size = PySet_GET_SIZE(seen);
    Py_DECREF(seen);
    return size == n ? 0 : GIVE_UP;
}

static int
enc_field(Program *p, FieldSpec *f, PyObject *v, Out *o, int *last, int depth, int max_depth)
{
    TypeSpec *t = &p->types[f->type];
    int r;
    switch (t->kind) {
    case K_BEAN: {
        Py_ssize_t mark = o->len;
        if (out_tag(o, *last, f->id, W_BEAN) < 0) return -1;
        Py_ssize_t body = o->len;
        if ((r = enc_bean(p, t->bean, v, o, depth + 1, max_depth))) return r;
        if (o->len - body == 1)
            o->len = mark;
        else
            *last = f->id;
        return 0;
    }
    case K_LIST:
    case K_SET: {
        PyObject *seq;
        if (PyList_CheckExact(v) || PyTuple_CheckExact(v)) {
            if (t->kind == K_SET && (r = distinct(v))) return r;
            seq = Py_NewRef(v);
        } else if (t->kind == K_SET && (PySet_CheckExact(v) || PyFrozenSet_CheckExact(v))) {
            seq = PySequence_List(v);
            if (seq == NULL) return -1;
        } else {
            return GIVE_UP;
        }
        if (PySequence_Fast_GET_SIZE(seq) == 0) {
            Py_DECREF(seq);
            return 0;
        }
        r = out_tag(o, *last, f->id, W_LIST);
        if (r == 0) r = enc_list(p, t, seq, o, depth, max_depth);
        Py_DECREF(seq);
        if (r == 0) *last = f->id;
        return r;
    }
    case K_DYNAMIC: {
        Member *m;
        PyObject *val;
        if ((r = dyn_resolve(p, t, v, &m, &val))) return r;
        if (m == NULL) return 0; /* the EmptyBean is left out */
        if (out_tag(o, *last, f->id, W_DYNAMIC) < 0 || out_long(o, m->type_id) < 0) return -1;
        *last = f->id;
        return enc_bean(p, m->bean, val, o, depth + 1, max_depth);
    }
    case K_MAP: {
        if (!PyDict_CheckExact(v)) return GIVE_UP;
        Py_ssize_t n = PyDict_GET_SIZE(v);
        if (n == 0) return 0;
        if (n > 0xffffffffLL) return GIVE_UP;
        TypeSpec *kt = &p->types[t->key], *vt = &p->types[t->value];
        if (out_tag(o, *last, f->id, W_MAP) < 0) return -1;
        if (out_byte(o, (unsigned)(kt->wire << 4 | vt->wire)) < 0) return -1;
        if (out_uint(o, (uint32_t)n) < 0) return -1;
        Py_ssize_t pos = 0;
        PyObject *k, *x;
        while (PyDict_Next(v, &pos, &k, &x)) {
            if ((r = enc_element(p, kt, k, o, depth, max_depth))) return r;
            if ((r = enc_element(p, vt, x, o, depth, max_depth))) return r;
        }
        *last = f->id;
        return 0;
    }
    }
    int64_t i;
    double d;
    switch (t->kind) {
    case K_INT:
        if ((r = as_int(v, t->bits, &i))) return r;
        if (i == 0) return 0;
        if (out_tag(o, *last, f->id, W_INTEGER) < 0) return -1;
        *last = f->id;
        return out_long(o, i);
    case K_FLOAT:
    case K_DOUBLE:
        if ((r = as_double(v, &d))) return r;
        if (d == 0) return 0;
        if (out_tag(o, *last, f->id, t->wire) < 0) return -1;
        *last = f->id;
        return t->kind == K_FLOAT ? out_float(o, d) : out_double(o, d);
    }
    r = present(p, t, v);
    if (r != 2) return r;
    if (out_tag(o, *last, f->id, t->wire) < 0) return -1;
    *last = f->id;
    return enc_element(p, t, v, o, depth, max_depth);
}

/* A bean given as an instance of its dataclass: its slots, in field order. */
static int
enc_instance(Program *p, BeanSpec *b, PyObject *value, Out *o, int depth, int max_depth)
{
    int last = 0;
    for (Py_ssize_t k = 0; k < b->nfields; k++) {
        PyObject *v = *(PyObject **)((char *)value + b->offsets[k]);
        if (v == NULL)
            return GIVE_UP; /* an unset slot: the reference says so */
        int r = enc_field(p, &b->fields[k], v, o, &last, depth, max_depth);
        if (r) return r;
    }
    return out_byte(o, 0);
}

static int
enc_bean(Program *p, int bean, PyObject *value, Out *o, int depth, int max_depth)
{
    BeanSpec *b = &p->beans[bean];
    if (depth > max_depth)
        return GIVE_UP;
    if (!PyDict_CheckExact(value))
        return b->cls != NULL && Py_TYPE(value) == b->cls
            ? enc_instance(p, b, value, o, depth, max_depth) : GIVE_UP;
    Py_ssize_t found = 0, pos = 0;
    int last = 0, in_order = 1;
    for (Py_ssize_t k = 0; k < b->nfields; k++) {
        FieldSpec *f = &b->fields[k];
        PyObject *v = NULL;
        if (in_order) { /* a dict whose keys come in field order needs no hashing */
            Py_ssize_t before = pos;
            PyObject *key, *item;
            if (PyDict_Next(value, &pos, &key, &item) && key == f->name) {
                v = item;
            } else {
                in_order = 0;
                pos = before;
            }
        }
        if (v == NULL)
            v = PyDict_GetItemWithError(value, f->name);
        if (v == NULL) {
            if (PyErr_Occurred()) return -1;
            v = f->deflt;
        } else {
            found++;
        }
        int r = enc_field(p, f, v, o, &last, depth, max_depth);
        if (r) return r;
    }
    for (Py_ssize_t k = 0; found < PyDict_GET_SIZE(value)
                           && k < PyTuple_GET_SIZE(b->transient); k++) {
        int has = PyDict_Contains(value, PyTuple_GET_ITEM(b->transient, k));
        if (has < 0) return -1;
        found += has;
    }
    if (found != PyDict_GET_SIZE(value)) /* extra keys or kept unknown fields */
        return GIVE_UP;
    return out_byte(o, 0);
}

/* ------------------------------------------------------------------------------------------
 * Decoding.  Functions return a new reference, or NULL with no Python error set to give up
 * (the reference decides), or NULL with an error set (memory). */

typedef struct {
    const unsigned char *buf;
    Py_ssize_t pos, end;
    int classes; /* make dataclass instances where the bean has one */
    int64_t budget; /* the default values the decode may still build (max_expansion) */
} In;

#define NEED(in, n) ((in)->end - (in)->pos >= (n))

static int
in_byte(In *in, int *out)
{
    if (!NEED(in, 1)) return GIVE_UP;
    *out = in->buf[in->pos++];
    return 0;
}

static int in_long_slow(In *in, int64_t *out);

/* Java ReadLong: one-byte values inline, the rest in in_long_slow. */
static inline int
in_long(In *in, int64_t *out)
{
    if (in->pos < in->end) {
        unsigned h = in->buf[in->pos];
        if (h < 0x40 || h >= 0xc0) {
            in->pos++;
            *out = (int64_t)(int8_t)(unsigned char)h;
            return 0;
        }
    }
    return in_long_slow(in, out);
}

static int
in_long_slow(In *in, int64_t *out)
{
    if (!NEED(in, 1)) return GIVE_UP;
    const unsigned char *p = in->buf + in->pos;
    unsigned h = p[0];
    if (h < 0x40 || h >= 0xc0) {
        in->pos++;
        *out = (int64_t)(int8_t)(unsigned char)h;
        return 0;
    }
    int negative = h >= 0x80;
    unsigned bits = negative ? (~h & 0xff) : h;
    int n = 1;
    while (n < 8 && (bits & (0x40u >> (n - 1))))
        n++;
    if (n < 8) {
        if (!NEED(in, n)) return GIVE_UP;
        uint64_t u = 0;
        for (int i = 0; i < n; i++)
            u = u << 8 | p[i];
        uint64_t mark = (((uint64_t)1 << (n - 1)) - 1) << (7 * n);
        if (negative) {
            uint64_t full = (uint64_t)1 << (8 * n);
            *out = (int64_t)u - (int64_t)(full - mark);
        } else {
            *out = (int64_t)(u - mark);
        }
        in->pos += n;
        return 0;
    }
    /* 0x7f / 0x80: 8 or 9 bytes, decided by the top bit of the next byte */
    if (!NEED(in, 8)) return GIVE_UP;
    uint64_t r = 0;
    for (int i = 1; i < 8; i++)
        r = r << 8 | p[i];
    const uint64_t top = (uint64_t)1 << 55;
    if (h == 0x7f) {
        if (r < top) {
            *out = (int64_t)r;
            in->pos += 8;
            return 0;
        }
        if (!NEED(in, 9)) return GIVE_UP;
        *out = (int64_t)(((r - top) << 8) + p[8]);
        in->pos += 9;
        return 0;
    }
    if (r >= top) {
        *out = (int64_t)(r - ((uint64_t)1 << 56));
        in->pos += 8;
        return 0;
    }
    if (!NEED(in, 9)) return GIVE_UP;
    *out = (int64_t)(((r + top) << 8) + p[8]);
    in->pos += 9;
    return 0;
}

/* Java ReadUInt (a signed 32-bit int). */
static int
in_uint(In *in, int32_t *out)
{
    if (!NEED(in, 1)) return GIVE_UP;
    const unsigned char *p = in->buf + in->pos;
    unsigned h = p[0];
    int n, mask;
    if (h < 0x80) { in->pos++; *out = (int32_t)h; return 0; }
    if (h < 0xc0) { n = 2; mask = 0x3f; }
    else if (h < 0xe0) { n = 3; mask = 0x1f; }
    else if (h < 0xf0) { n = 4; mask = 0x0f; }
    else if (h < 0xf8) { n = 5; mask = 0x07; }
    else if (h < 0xfc) { n = 6; mask = 0x03; }
    else if (h < 0xfe) { n = 7; mask = 0x01; }
    else if (h == 0xfe) { n = 8; mask = 0; }
    else { n = 9; mask = 0; }
    if (!NEED(in, n)) return GIVE_UP;
    uint64_t u = h & (unsigned)mask;
    for (int i = 1; i < n; i++)
        u = u << 8 | p[i];
    in->pos += n;
    *out = (int32_t)(uint32_t)u;
    return 0;
}

static double
float_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    if (f != f) {
        uint64_t bits = (uint64_t)(u & 0x80000000u) << 32 | (uint64_t)0x7ff << 52
                        | (uint64_t)(u & 0x7fffff) << 29;
        double d;
        memcpy(&d, &bits, 8);
        return d;
    }
    return (double)f;
}

static int
in_float(In *in, double *out)
{
    if (!NEED(in, 4)) return GIVE_UP;
    const unsigned char *p = in->buf + in->pos;
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    in->pos += 4;
    *out = float_from_bits(u);
    return 0;
}

static int
in_double(In *in, double *out)
{
    if (!NEED(in, 8)) return GIVE_UP;
    uint64_t u = 0;
    for (int i = 7; i >= 0; i--)
        u = u << 8 | in->buf[in->pos + i];
    in->pos += 8;
    memcpy(out, &u, 8);
    return 0;
}

static PyObject *dec_bean(Program *p, int bean, In *in, int depth, int max_depth);

static PyObject *
give_up(void)
{
    return NULL;
}

/* Short ASCII strings are made once and shared (str is immutable): map keys and names
 * repeat from one bean to the next. Direct-mapped, keyed by a hash of the bytes. */
#define SHORT_MAX 24
#define CACHE_SIZE 512
static PyObject *string_cache[CACHE_SIZE];

static PyObject *
short_ascii(const char *s, Py_ssize_t n)
{
    uint32_t h = 2166136261u;
    for (Py_ssize_t i = 0; i < n; i++) {
        if ((unsigned char)s[i] >= 0x80)
            return NULL;
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    }
    PyObject **slot = &string_cache[(h ^ (uint32_t)n) & (CACHE_SIZE - 1)];
    PyObject *hit = *slot;
    if (hit != NULL && PyUnicode_GET_LENGTH(hit) == n
            && memcmp(PyUnicode_DATA(hit), s, (size_t)n) == 0)
        return Py_NewRef(hit);
    PyObject *text = PyUnicode_New(n, 127);
    if (text == NULL)
        return NULL;
    memcpy(PyUnicode_DATA(text), s, (size_t)n);
    Py_XSETREF(*slot, Py_NewRef(text));
    return text;
}

static PyObject *
dec_text(Program *p, In *in, int binary)
{
    int32_t n;
    if (in_uint(in, &n) || n < 0 || !NEED(in, n)) return give_up();
    const char *s = (const char *)in->buf + in->pos;
    in->pos += n;
    if (binary)
        return PyBytes_FromStringAndSize(s, n);
    if (n <= SHORT_MAX) {
        PyObject *cached = short_ascii(s, n);
        if (cached != NULL || PyErr_Occurred())
            return cached;
    }
    PyObject *text = PyUnicode_DecodeUTF8(s, n, NULL);
    if (text == NULL && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
        PyErr_Clear();
        PyObject *raw = PyBytes_FromStringAndSize(s, n);
        if (raw == NULL) return NULL;
        text = PyObject_CallOneArg(p->decode_java, raw);
        Py_DECREF(raw);
    }
    return text;
}

static PyObject *
new_dynamic(Program *p, PyObject *bean, PyObject *value, int64_t type_id)
{
    PyObject *tid = PyLong_FromLongLong(type_id);
    PyObject *d = tid ? p->dynamic->tp_alloc(p->dynamic, 3) : NULL;
    if (d == NULL) {
        Py_XDECREF(tid);
        Py_DECREF(value);
        return NULL;
    }
    PyTuple_SET_ITEM(d, 0, Py_NewRef(bean));
    PyTuple_SET_ITEM(d, 1, value);
    PyTuple_SET_ITEM(d, 2, tid);
    return d;
}

static PyObject *
zero_of(Program *p, TypeSpec *t, int depth)
{
    if (t->zero != NULL)
        return Py_NewRef(t->zero);
    switch (t->kind) {
    case K_DYNAMIC: {
        PyObject *empty = PyDict_New();
        return empty ? new_dynamic(p, Py_None, empty, 0) : NULL;
    }
    case K_LIST:
    case K_SET:
        return PyList_New(0);
    case K_MAP:
        return PyDict_New();
    case K_BEAN: { /* as Java's constructor makes it: fields hold their default= */
        if (depth > MAX_C_DEPTH) return give_up();
        BeanSpec *b = &p->beans[t->bean];
        PyObject *d = PyDict_New();
        if (d == NULL) return NULL;
        for (Py_ssize_t k = 0; k < b->nfields; k++) {
            TypeSpec *ft = &p->types[b->fields[k].type];
            PyObject *z = ft->zero != NULL ? Py_NewRef(b->fields[k].deflt)
                                           : zero_of(p, ft, depth + 1);
            if (z == NULL || PyDict_SetItem(d, b->fields[k].name, z) < 0) {
                Py_XDECREF(z);
                Py_DECREF(d);
                return NULL;
            }
            Py_DECREF(z);
        }
        return d;
    }
    }
    return give_up();
}

/* A value whose wire type is exactly the declared type's. */
static PyObject *
dec_value(Program *p, TypeSpec *t, In *in, int depth, int max_depth)
{
    int64_t i;
    double d;
    switch (t->kind) {
    case K_BOOL:
        if (in_long(in, &i)) return give_up();
        return PyBool_FromLong(i != 0);
    case K_INT:
        if (in_long(in, &i)) return give_up();
        if (t->bits == 8) i = (int8_t)(uint8_t)i;
        else if (t->bits == 16) i = (int16_t)(uint16_t)i;
        else if (t->bits == 32) i = (int32_t)(uint32_t)i;
        return PyLong_FromLongLong(i);
    case K_FLOAT:
        if (in_float(in, &d)) return give_up();
        return PyFloat_FromDouble(d);
    case K_DOUBLE:
        if (in_double(in, &d)) return give_up();
        return PyFloat_FromDouble(d);
    case K_STRING:
        return dec_text(p, in, 0);
    case K_BINARY:
        return dec_text(p, in, 1);
    case K_VECTOR:
    case K_VECTORINT: {
        PyObject *tuple = PyTuple_New(t->bits);
        if (tuple == NULL) return NULL;
        for (int k = 0; k < t->bits; k++) {
            PyObject *c = NULL;
            if (t->kind == K_VECTOR) {
                if (in_float(in, &d) == 0) c = PyFloat_FromDouble(d);
            } else if (in_long(in, &i) == 0) {
                c = PyLong_FromLongLong((int32_t)(uint32_t)i);
            }
            if (c == NULL) {
                Py_DECREF(tuple);
                return NULL;
            }
            PyTuple_SET_ITEM(tuple, k, c);
        }
        return tuple;
    }
    case K_BEAN:
        return dec_bean(p, t->bean, in, depth + 1, max_depth);
    case K_DYNAMIC: {
        if (in_long(in, &i)) return give_up();
        if (i == 0) { /* the EmptyBean: only an empty body here, others are skipped there */
            int end;
            if (in_byte(in, &end) || end != 0) return give_up();
            return zero_of(p, t, depth);
        }
        for (Py_ssize_t k = 0; k < t->nmembers; k++) {
            Member *m = &t->members[k];
            if (m->type_id == i) {
                PyObject *value = dec_bean(p, m->bean, in, depth + 1, max_depth);
                return value ? new_dynamic(p, m->name, value, i) : NULL;
            }
        }
        return give_up(); /* an unknown TypeId: the reference raises */
    }
    case K_LIST:
    case K_SET: {
        if (depth >= max_depth) return give_up();
        int header;
        if (in_byte(in, &header)) return give_up();
        TypeSpec *et = &p->types[t->elem];
        if ((header & 0xf) != et->wire) return give_up();
        int64_t n = header >> 4;
        if (n == 15) {
            int32_t more;
            if (in_uint(in, &more)) return give_up();
            n = (int32_t)(uint32_t)(15u + (uint32_t)more);
            if (n < 0) n = 0;
        }
        if (t->kind == K_LIST && et->kind == K_INT) {
            /* each element takes at least one byte: the list is no longer than the input */
            if (n > in->end - in->pos) return give_up();
            PyObject *list = PyList_New((Py_ssize_t)n);
            if (list == NULL) return NULL;
            for (int64_t k = 0; k < n; k++) {
                int64_t x;
                if (in_long(in, &x)) {
                    Py_DECREF(list);
                    return give_up();
                }
                if (et->bits == 8) x = (int8_t)(uint8_t)x;
                else if (et->bits == 16) x = (int16_t)(uint16_t)x;
                else if (et->bits == 32) x = (int32_t)(uint32_t)x;
                PyObject *item = PyLong_FromLongLong(x);
                if (item == NULL) {
                    Py_DECREF(list);
                    return NULL;
                }
                PyList_SET_ITEM(list, (Py_ssize_t)k, item);
            }
            return list;
        }
        PyObject *list = PyList_New(0);
        PyObject *seen = t->kind == K_SET ? PySet_New(NULL) : NULL;
        if (list == NULL || (t->kind == K_SET && seen == NULL)) {
            Py_XDECREF(list);
            Py_XDECREF(seen);
            return NULL;
        }
        for (int64_t k = 0; k < n; k++) {
            PyObject *e = dec_value(p, et, in, depth + 1, max_depth);
            int r = e == NULL ? -1 : 0;
            if (r == 0 && seen != NULL) {
                int has = PySet_Contains(seen, e);
                if (has < 0 || (has == 0 && PySet_Add(seen, e) < 0))
                    r = -1;
                else if (has) {
                    Py_DECREF(e);
                    continue;
                }
            }
            if (r == 0)
                r = PyList_Append(list, e);
            Py_XDECREF(e);
            if (r < 0) {
                Py_DECREF(list);
                Py_XDECREF(seen);
                if (PyErr_Occurred() && PyErr_ExceptionMatches(PyExc_TypeError))
                    PyErr_Clear(); /* unhashable: the reference decides */
                return NULL;
            }
        }
        Py_XDECREF(seen);
        return list;
    }
    case K_MAP: {
        if (depth >= max_depth) return give_up();
        int types;
        int32_t n;
        if (in_byte(in, &types) || in_uint(in, &n)) return give_up();
        TypeSpec *kt = &p->types[t->key], *vt = &p->types[t->value];
        if ((types >> 4) != kt->wire || (types & 0xf) != vt->wire) return give_up();
        /* each entry takes at least two bytes */
        PyObject *dict = _PyDict_NewPresized(n > 0 && n <= (in->end - in->pos) / 2 ? n : 0);
        if (dict == NULL) return NULL;
        for (int32_t k = 0; k < n; k++) {
            PyObject *key = dec_value(p, kt, in, depth + 1, max_depth);
            PyObject *x = key ? dec_value(p, vt, in, depth + 1, max_depth) : NULL;
            int r = (key && x) ? PyDict_SetItem(dict, key, x) : -1;
            Py_XDECREF(key);
            Py_XDECREF(x);
            if (r < 0) {
                Py_DECREF(dict);
                if (PyErr_Occurred() && PyErr_ExceptionMatches(PyExc_TypeError))
                    PyErr_Clear();
                return NULL;
            }
        }
        return dict;
    }
    }
    return give_up();
}

static inline int
tag_size(In *in, int tag, int32_t *delta)
{
    int d = tag >> 4;
    if (d < 15) {
        *delta = d;
        return 0;
    }
    int32_t more;
    if (in_uint(in, &more)) return GIVE_UP;
    *delta = (int32_t)(15u + (uint32_t)more);
    return 0;
}

static PyObject *
make_bean(Program *p, BeanSpec *b, PyObject **vals, int classes)
{
    if (classes && b->cls != NULL) {
        PyObject *obj = b->cls->tp_alloc(b->cls, 0);
        if (obj == NULL) return NULL;
        for (Py_ssize_t k = 0; k < b->nfields; k++) {
            PyObject *v = vals[k];
            vals[k] = NULL;
            if (p->types[b->fields[k].type].kind == K_SET) { /* a dataclass holds a set */
                PyObject *set = PySet_New(v);
                Py_DECREF(v);
                if (set == NULL) {
                    Py_DECREF(obj);
                    return NULL;
                }
                v = set;
            }
            *(PyObject **)((char *)obj + b->offsets[k]) = v;
        }
        return obj;
    }
    PyObject *d = _PyDict_NewPresized(b->nfields);
    if (d == NULL) return NULL;
    for (Py_ssize_t k = 0; k < b->nfields; k++) {
        if (PyDict_SetItem(d, b->fields[k].name, vals[k]) < 0) {
            Py_DECREF(d);
            return NULL;
        }
    }
    return d;
}

#define STACK_FIELDS 32

static PyObject *
dec_bean(Program *p, int bean, In *in, int depth, int max_depth)
{
    if (depth > max_depth) return give_up();
    BeanSpec *b = &p->beans[bean];
    PyObject *stack[STACK_FIELDS];
    PyObject **vals = b->nfields <= STACK_FIELDS ? stack
                      : PyMem_Calloc((size_t)b->nfields, sizeof(PyObject *));
    if (vals == NULL) return PyErr_NoMemory();
    int classes = in->classes && b->cls != NULL;
    PyObject *result = NULL;
    Py_ssize_t done = 0;
    int t;
    int32_t i, delta;
    if (in_byte(in, &t) || tag_size(in, t, &delta)) goto end;
    i = delta;
    for (; done < b->nfields; done++) {
        FieldSpec *f = &b->fields[done];
        TypeSpec *ft = &p->types[f->type];
        PyObject *v;
        if (t > 1 && i < f->id)
            goto end; /* an unknown field: the reference keeps it */
        if (i == f->id) {
            if ((t & 0xf) != ft->wire) goto end; /* Java converts: the reference does */
            v = dec_value(p, ft, in, depth, max_depth);
            if (v == NULL) goto end;
            if (in_byte(in, &t) || tag_size(in, t, &delta)) {
                Py_DECREF(v);
                goto end;
            }
            i = (int32_t)((uint32_t)i + (uint32_t)delta);
        } else {
            if (classes && ft->kind == K_BEAN) goto end; /* the reference constructs it */
            if (f->cost > in->budget) goto end; /* over max_expansion: the reference raises */
            in->budget -= f->cost;
            v = zero_of(p, ft, depth);
            if (v == NULL) goto end;
        }
        vals[done] = v;
    }
    if (t == 0) /* else unknown fields after the last known one, or a layer tag */
        result = make_bean(p, b, vals, classes);
end:
    for (Py_ssize_t k = 0; k < done; k++)
        Py_XDECREF(vals[k]);
    if (vals != stack)
        PyMem_Free(vals);
    return result;
}

/* ------------------------------------------------------------------------------------------
 * The Program type and the module functions. */

static void
program_dealloc(Program *self)
{
    for (Py_ssize_t k = 0; k < self->ntypes; k++) {
        Py_XDECREF(self->types[k].zero);
        for (Py_ssize_t j = 0; j < self->types[k].nmembers; j++)
            Py_XDECREF(self->types[k].members[j].name);
        PyMem_Free(self->types[k].members);
    }
    for (Py_ssize_t k = 0; k < self->nbeans; k++) {
        for (Py_ssize_t j = 0; j < self->beans[k].nfields; j++) {
            Py_XDECREF(self->beans[k].fields[j].name);
            Py_XDECREF(self->beans[k].fields[j].deflt);
        }
        PyMem_Free(self->beans[k].fields);
        Py_XDECREF(self->beans[k].cls);
        Py_XDECREF(self->beans[k].transient);
        PyMem_Free(self->beans[k].offsets);
    }
    PyMem_Free(self->types);
    PyMem_Free(self->beans);
    Py_XDECREF(self->decode_java);
    Py_XDECREF(self->dynamic);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int
check_index(Py_ssize_t value, Py_ssize_t limit)
{
    if (value < -1 || value >= limit) {
        PyErr_SetString(PyExc_ValueError, "a Program index is out of range");
        return -1;
    }
    return 0;
}

/* A bean's dataclass and the offsets of its slots, from the slots' member descriptors (one
 * per field, in field order): each must be an object slot of cls. */
static int
set_slots(BeanSpec *b, PyObject *cls, PyObject *slots)
{
    if (!PyType_Check(cls) || !PyTuple_Check(slots) || PyTuple_GET_SIZE(slots) != b->nfields) {
        PyErr_SetString(PyExc_TypeError, "a Program bean's class needs one slot per field");
        return -1;
    }
    b->offsets = PyMem_Calloc((size_t)(b->nfields ? b->nfields : 1), sizeof(Py_ssize_t));
    if (b->offsets == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t j = 0; j < b->nfields; j++) {
        PyObject *d = PyTuple_GET_ITEM(slots, j);
        if (!Py_IS_TYPE(d, &PyMemberDescr_Type)
                || ((PyMemberDescrObject *)d)->d_common.d_type != (PyTypeObject *)cls
                || ((PyMemberDescrObject *)d)->d_member->type != T_OBJECT_EX) {
            PyErr_SetString(PyExc_TypeError, "a Program bean's slot is not an object slot");
            return -1;
        }
        b->offsets[j] = ((PyMemberDescrObject *)d)->d_member->offset;
    }
    b->cls = (PyTypeObject *)Py_NewRef(cls);
    return 0;
}

/* Program(types, beans, decode_java, dynamic): types = [(kind, wire, bits, elem, key, value,
 * bean, zero or None, members)], members = [(type_id, bean, name)] for a dynamic, else ();
 * beans = [([(id, name, type, default, cost)], dataclass or None, its fields' slot
 * descriptors or None, the names of its transient fields)]; dynamic = the class
 * gameserde.zeze.Dynamic. */
static PyObject *
program_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *types, *beans, *decode_java, *dynamic;
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "Program takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O!O!OO!", &PyList_Type, &types, &PyList_Type, &beans,
                          &decode_java, &PyType_Type, &dynamic))
        return NULL;
    if (!PyType_IsSubtype((PyTypeObject *)dynamic, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "the Dynamic class must be a tuple");
        return NULL;
    }
    Program *self = (Program *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    self->decode_java = Py_NewRef(decode_java);
    self->dynamic = (PyTypeObject *)Py_NewRef(dynamic);
    Py_ssize_t nt = PyList_GET_SIZE(types), nb = PyList_GET_SIZE(beans);
    self->types = PyMem_Calloc((size_t)(nt ? nt : 1), sizeof(TypeSpec));
    self->beans = PyMem_Calloc((size_t)(nb ? nb : 1), sizeof(BeanSpec));
    if (self->types == NULL || self->beans == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t k = 0; k < nt; k++) {
        TypeSpec *t = &self->types[k];
        PyObject *zero, *members;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(types, k), "iiiiiiiOO!", &t->kind, &t->wire,
                              &t->bits, &t->elem, &t->key, &t->value, &t->bean, &zero,
                              &PyTuple_Type, &members)) {
            Py_DECREF(self);
            return NULL;
        }
        self->ntypes = k + 1;
        t->zero = zero == Py_None ? NULL : Py_NewRef(zero);
        Py_ssize_t nm = PyTuple_GET_SIZE(members);
        t->members = PyMem_Calloc((size_t)(nm ? nm : 1), sizeof(Member));
        if (t->members == NULL) {
            Py_DECREF(self);
            return PyErr_NoMemory();
        }
        for (Py_ssize_t j = 0; j < nm; j++) {
            Member *m = &t->members[j];
            long long type_id;
            PyObject *name;
            if (!PyArg_ParseTuple(PyTuple_GET_ITEM(members, j), "LiU", &type_id, &m->bean,
                                  &name)) {
                Py_DECREF(self);
                return NULL;
            }
            m->type_id = type_id;
            m->name = Py_NewRef(name);
            t->nmembers = j + 1;
            if (m->bean < 0 || m->bean >= nb) {
                PyErr_SetString(PyExc_ValueError, "a Program dynamic's bean is out of range");
                Py_DECREF(self);
                return NULL;
            }
        }
        if (check_index(t->elem, nt) || check_index(t->key, nt) || check_index(t->value, nt)
                || check_index(t->bean, nb) || t->kind < K_BOOL || t->kind > K_DYNAMIC
                || t->wire < 0 || t->wire > 12 || t->bits < 0 || t->bits > 64) {
            PyErr_SetString(PyExc_ValueError, "a Program type is malformed");
            Py_DECREF(self);
            return NULL;
        }
    }
    for (Py_ssize_t k = 0; k < nb; k++) {
        PyObject *fields, *cls, *slots, *transient;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(beans, k), "O!OOO!", &PyList_Type, &fields, &cls,
                              &slots, &PyTuple_Type, &transient)) {
            Py_DECREF(self);
            return NULL;
        }
        BeanSpec *b = &self->beans[k];
        b->transient = Py_NewRef(transient);
        Py_ssize_t nf = PyList_GET_SIZE(fields);
        b->fields = PyMem_Calloc((size_t)(nf ? nf : 1), sizeof(FieldSpec));
        if (b->fields == NULL) {
            Py_DECREF(self);
            return PyErr_NoMemory();
        }
        self->nbeans = k + 1;
        for (Py_ssize_t j = 0; j < nf; j++) {
            FieldSpec *f = &b->fields[j];
            PyObject *name, *deflt;
            long long cost;
            if (!PyArg_ParseTuple(PyList_GET_ITEM(fields, j), "iUiOL", &f->id, &name, &f->type,
                                  &deflt, &cost)) {
                Py_DECREF(self);
                return NULL;
            }
            b->nfields = j + 1;
            f->name = Py_NewRef(name);
            PyUnicode_InternInPlace(&f->name);
            f->deflt = Py_NewRef(deflt);
            f->cost = cost;
            if (f->type < 0 || f->type >= nt || cost < 0) {
                PyErr_SetString(PyExc_ValueError, "a Program field's type is out of range");
                Py_DECREF(self);
                return NULL;
            }
        }
        if (cls != Py_None && set_slots(b, cls, slots) < 0) {
            Py_DECREF(self);
            return NULL;
        }
    }
    return (PyObject *)self;
}

static PyTypeObject ProgramType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gameserde.zeze._speedups.Program",
    .tp_basicsize = sizeof(Program),
    .tp_dealloc = (destructor)program_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The plans of a schema's plain beans, compiled for the C codec.",
    .tp_new = program_new,
};

static int
bean_arg(PyObject *program, int bean, int max_depth)
{
    if (!PyObject_TypeCheck(program, &ProgramType)) {
        PyErr_SetString(PyExc_TypeError, "expected a Program");
        return -1;
    }
    if (bean < 0 || bean >= ((Program *)program)->nbeans || max_depth < 0
            || max_depth > MAX_C_DEPTH) {
        PyErr_SetString(PyExc_ValueError, "bean index or max_depth out of range");
        return -1;
    }
    return 0;
}

/* decode(program, bean, data, offset, max_depth, budget) -> (value, end), or None; budget:
 * the default values the decode may build. */
static PyObject *
zeze_decode(PyObject *module, PyObject *args)
{
    PyObject *program;
    Py_buffer view;
    Py_ssize_t offset;
    int bean, max_depth;
    long long budget;
    (void)module;
    if (!PyArg_ParseTuple(args, "Oiy*niL", &program, &bean, &view, &offset, &max_depth,
                          &budget))
        return NULL;
    if (bean_arg(program, bean, max_depth) < 0 || offset < 0 || offset > view.len) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "offset out of range");
        PyBuffer_Release(&view);
        return NULL;
    }
    In in = {view.buf, offset, view.len, 0, budget};
    int gc = PyGC_Disable();
    PyObject *value = dec_bean((Program *)program, bean, &in, 0, max_depth);
    if (gc)
        PyGC_Enable();
    PyBuffer_Release(&view);
    if (value == NULL)
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    PyObject *result = Py_BuildValue("(Nn)", value, in.pos);
    return result;
}

/* ------------------------------------------------------------------------------------------
 * Codec: one bean's encode and decode as methods, falling back to Python callables (the
 * reference) whenever the C code gives up, so a call costs one C method call. */

typedef struct {
    PyObject_HEAD
    Program *program;
    int bean, max_depth;
    PyObject *encode_reference, *decode_reference;
    Out scratch; /* kept between calls; unused while busy (a nested call allocates) */
    int busy;
    int classes;
    double factor;  /* max_expansion, or -1 for no limit */
    int64_t slack;  /* the default values allowed whatever the input's size */
} Codec;

static void
codec_dealloc(Codec *self)
{
    Py_XDECREF(self->program);
    Py_XDECREF(self->encode_reference);
    Py_XDECREF(self->decode_reference);
    PyMem_Free(self->scratch.buf);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Codec(program, bean, max_depth, encode_reference, decode_reference, classes, factor, slack):
 * decoding builds at most floor(factor * len(data)) + slack default values (factor < 0: no
 * limit), as gameserde._expansion.expansion_limit computes. */
static PyObject *
codec_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *program, *enc, *dec;
    int bean, max_depth, classes;
    double factor;
    long long slack;
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "Codec takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OiiOOpdL", &program, &bean, &max_depth, &enc, &dec, &classes,
                          &factor, &slack)
            || bean_arg(program, bean, max_depth) < 0)
        return NULL;
    if (slack < 0 || slack >= UNLIMITED) {
        PyErr_SetString(PyExc_ValueError, "the Codec's slack is out of range");
        return NULL;
    }
    Codec *self = (Codec *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    self->classes = classes;
    self->program = (Program *)Py_NewRef(program);
    self->bean = bean;
    self->max_depth = max_depth;
    self->encode_reference = Py_NewRef(enc);
    self->decode_reference = Py_NewRef(dec);
    self->factor = factor;
    self->slack = slack;
    return (PyObject *)self;
}

/* The default values a decode of size bytes may build (expansion_limit's arithmetic). */
static int64_t
codec_budget(Codec *self, Py_ssize_t size)
{
    if (!(self->factor >= 0))
        return UNLIMITED;
    double product = self->factor * (double)size;
    if (product + (double)self->slack >= (double)UNLIMITED)
        return UNLIMITED;
    return (int64_t)floor(product) + self->slack;
}

static PyObject *
codec_encode(Codec *self, PyObject *value)
{
    Out fresh = {NULL, 0, 0};
    int own = !self->busy;
    Out *o = own ? &self->scratch : &fresh;
    o->len = 0;
    self->busy = 1;
    int r = enc_bean(self->program, self->bean, value, o, 0, self->max_depth);
    if (own)
        self->busy = 0;
    PyObject *result;
    if (r < 0)
        result = NULL;
    else if (r == GIVE_UP)
        result = NULL;
    else
        result = PyBytes_FromStringAndSize((const char *)o->buf, o->len);
    PyMem_Free(fresh.buf);
    if (own && self->scratch.cap > 65536) { /* do not keep a big buffer alive */
        PyMem_Free(self->scratch.buf);
        self->scratch.buf = NULL;
        self->scratch.cap = 0;
    }
    if (r == GIVE_UP)
        return PyObject_CallOneArg(self->encode_reference, value);
    return result;
}

static PyObject *
codec_decode(Codec *self, PyObject *data)
{
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    In in = {view.buf, 0, view.len, self->classes, codec_budget(self, view.len)};
    int gc = PyGC_Disable();
    PyObject *value = dec_bean(self->program, self->bean, &in, 0, self->max_depth);
    if (gc)
        PyGC_Enable();
    PyBuffer_Release(&view);
    if (value != NULL && in.pos == in.end)
        return value;
    if (value == NULL && PyErr_Occurred())
        return NULL;
    Py_XDECREF(value); /* bytes after the bean, or given up: the reference decides */
    return PyObject_CallOneArg(self->decode_reference, data);
}

static PyMethodDef codec_methods[] = {
    {"encode", (PyCFunction)codec_encode, METH_O, "encode(value) -> bytes"},
    {"decode", (PyCFunction)codec_decode, METH_O, "decode(data) -> value"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CodecType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gameserde.zeze._speedups.Codec",
    .tp_basicsize = sizeof(Codec),
    .tp_dealloc = (destructor)codec_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One bean's C encode and decode, with the reference as the fallback.",
    .tp_methods = codec_methods,
    .tp_new = codec_new,
};

static PyMethodDef methods[] = {
    {"decode", zeze_decode, METH_VARARGS,
     "decode(program, bean, data, offset, max_depth, budget) -> (value, end), or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "gameserde.zeze._speedups",
    "Optional C twin of the Zeze bean codec (see gameserde/zeze/_accel.py).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    if (PyType_Ready(&ProgramType) < 0 || PyType_Ready(&CodecType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    if (PyModule_AddIntConstant(m, "API_VERSION", API_VERSION) < 0
            || PyModule_AddIntConstant(m, "MAX_C_DEPTH", MAX_C_DEPTH) < 0
            || PyModule_AddObjectRef(m, "Program", (PyObject *)&ProgramType) < 0
            || PyModule_AddObjectRef(m, "Codec", (PyObject *)&CodecType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
