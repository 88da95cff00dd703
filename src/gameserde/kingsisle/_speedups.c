/*
 * Optional C twin of the KingsIsle ObjectProperty serializer (gameserde.kingsisle.serializer).
 *
 * The pure-Python Serializer is the reference; this module only makes the common case fast
 * and must give exactly the same bytes and values.  It reads and writes the body of a stream
 * (the root object); the framing stays in Python.  A Program holds, per class of the type list,
 * the properties one (mode, property mask) includes, in id order, with their leaf kinds,
 * compiled by gameserde/kingsisle/_accel.py.  Whenever anything is not the common case -- an
 * enum given by name, or read as a name that is no option (or, for bit flags, not ASCII), a
 * value of an unexpected Python type or out of range, an unknown type or property hash (but
 * where skip_unknown_types skips it), a size that does not add up, truncated input, a null
 * root, nesting at the recursion limit -- decode and encode return None and the reference
 * runs over the whole input, which gives the result or raises the exact error.  So this file
 * never formats an error.
 *
 * Padding: the bits an alignment skips are noted in the object being read when they are not
 * all zero ({n: bits} for its n-th alignment that skipped bits, in the KiObject's padding
 * slot), and written back from there, as the reference does.
 *
 * Safety: every read is checked against the bits left; a list is allocated only when its
 * length times the fewest bits an element takes fits in the bits left; C recursion is bounded
 * by the limit the glue passes (at most MAX_C_DEPTH).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define API_VERSION 4
#define MAX_C_DEPTH 1000

/* serializer flags the body depends on */
#define COMPACT_LENGTH_PREFIXES 2
#define HUMAN_READABLE_ENUMS 4
#define FORBID_DELTA_ENCODE 16

#define FAIL 1 /* give up (the reference decides), or a Python error to clear */

enum { L_BOOL, L_INT, L_FLOAT, L_DOUBLE, L_STRING, L_WSTRING, L_ENUM, L_STRUCT, L_OBJECT,
       L_OTHER };

typedef struct {
    int kind, bits, is_signed, aligned;
} Leaf;

typedef struct {
    PyObject *name;     /* interned str */
    uint32_t hash;
    int delta, list;
    int matchable;      /* deep records of this hash are this property's */
    Leaf leaf;
    Leaf comp;          /* a leaf struct's components */
    int nkeys, matrix;  /* a Matrix3x3 has three keys, each a list of three components */
    PyObject *keys[4];  /* interned str, in wire order */
    /* an enum's options, for HUMAN_READABLE_ENUMS (NULL for other kinds) */
    int bit_flags;
    PyObject *by_name;      /* dict: UTF-8 name (bytes) -> value (int) */
    PyObject *by_value;     /* dict: value (int) -> the first name of it (bytes, or None) */
    Py_ssize_t noptions;    /* every option in type-list order, for bit flags */
    uint32_t *option_values;
    PyObject **option_names; /* bytes, or None for a name that is not UTF-8 */
} Prop;

typedef struct {
    uint32_t hash;
    PyObject *name;     /* the class name (KiObject.type_name) */
    PyObject *hash_obj; /* the type hash as an int (KiObject.type_hash) */
    PyObject *known;    /* frozenset of every property name of the class */
    Py_ssize_t nprops;
    Prop *props;
} Class;

typedef struct {
    PyObject_HEAD
    int shallow;
    Py_ssize_t nclasses;
    Class *classes;
    uint32_t table_mask;
    Py_ssize_t *table;  /* open addressing by type hash: class index, or -1 */
    PyTypeObject *kiobject;
    Py_ssize_t name_offset, hash_offset; /* KiObject's type_name and type_hash slots */
    Py_ssize_t padding_offset, zlib_offset, trailing_offset; /* and its padding, zlib_data
                                                              * and trailing slots */
    PyObject *empty_args;
} Program;

static const Class *
find_class(const Program *p, uint32_t hash)
{
    uint32_t i = (hash * 2654435761u) & p->table_mask;
    for (;;) {
        Py_ssize_t k = p->table[i];
        if (k < 0)
            return NULL;
        if (p->classes[k].hash == hash)
            return &p->classes[k];
        i = (i + 1) & p->table_mask;
    }
}

static uint32_t
float32_bits(double d)
{
    if (isnan(d)) {
        uint64_t bits;
        memcpy(&bits, &d, 8);
        uint32_t payload = (uint32_t)(bits >> 29) & 0x7fffff;
        return (uint32_t)(bits >> 32 & 0x80000000u) | 0x7f800000u
               | (payload ? payload : 0x400000u);
    }
    float f = (float)d;
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
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

/* ------------------------------------------------------------------------------------------
 * Reading.  Positions are in bits; bits are taken LSB first.  Functions return a new
 * reference, or NULL to give up (a Python error may be set; the caller clears it). */

typedef struct {
    const unsigned char *buf;
    uint64_t pos, end;
    int flags, limit;
    PyObject *skipped; /* skip_unknown_types (deep mode): a list to note what is skipped in */
    uint64_t aligns;   /* alignments that skipped bits in the object being read */
    PyObject *pads;    /* its padding: a dict, or NULL while all skipped bits were zero */
    int failed;        /* noting padding failed (no memory) */
} R;

#define LEFT(r) ((r)->end - (r)->pos)

/* Skipped bits that are not all zero, noted as the reference's BitReader does. */
static void
note_pad(R *r, unsigned bits)
{
    if (r->pads == NULL && (r->pads = PyDict_New()) == NULL) {
        r->failed = 1;
        return;
    }
    PyObject *key = PyLong_FromUnsignedLongLong(r->aligns);
    PyObject *value = PyLong_FromLong((long)bits);
    if (key == NULL || value == NULL || PyDict_SetItem(r->pads, key, value) < 0)
        r->failed = 1;
    Py_XDECREF(key);
    Py_XDECREF(value);
}

static inline void
r_align(R *r)
{
    uint64_t pos = r->pos;
    if (pos & 7) {
        r->pos = (pos | 7) + 1; /* never past end: end is a whole byte */
        r->aligns++;
        unsigned bits = (unsigned)r->buf[pos >> 3] >> (pos & 7);
        if (bits)
            note_pad(r, bits);
    }
}

static inline uint64_t
load_le(const unsigned char *p, int nbytes)
{
    uint64_t v = 0;
    for (int i = nbytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static inline int
r_bits(R *r, int n, uint64_t *out)
{
    if (LEFT(r) < (uint64_t)n)
        return FAIL;
    uint64_t pos = r->pos;
    if ((pos & 7) == 0 && (n & 7) == 0) {
        *out = load_le(r->buf + (pos >> 3), n >> 3);
        r->pos = pos + (uint64_t)n;
        return 0;
    }
    uint64_t v = 0;
    int got = 0;
    while (got < n) {
        int shift = (int)(pos & 7), take = 8 - shift;
        if (take > n - got)
            take = n - got;
        v |= (uint64_t)((r->buf[pos >> 3] >> shift) & ((1u << take) - 1)) << got;
        got += take;
        pos += (uint64_t)take;
    }
    r->pos = pos;
    *out = v;
    return 0;
}

/* align, then a u32 */
static inline int
r_u32(R *r, uint32_t *out)
{
    r_align(r);
    if (LEFT(r) < 32)
        return FAIL;
    *out = (uint32_t)load_le(r->buf + (r->pos >> 3), 4);
    r->pos += 32;
    return 0;
}

static int
r_length(R *r, int container, uint64_t *n)
{
    if (r->flags & COMPACT_LENGTH_PREFIXES) {
        uint64_t big;
        if (r_bits(r, 1, &big))
            return FAIL;
        return r_bits(r, big ? 31 : 7, n);
    }
    r_align(r);
    return r_bits(r, container ? 32 : 16, n);
}

/* A std::string's bytes: where they are and how many (an empty one is not aligned). */
static int
r_string(R *r, const char **p, uint64_t *n)
{
    if (r_length(r, 0, n))
        return FAIL;
    if (*n == 0)
        return 0;
    r_align(r);
    if (LEFT(r) / 8 < *n)
        return FAIL;
    *p = (const char *)r->buf + (r->pos >> 3);
    r->pos += 8 * *n;
    return 0;
}

/* A scalar leaf: bool, integer, float, string, integer enum. */
static PyObject *
dec_scalar(R *r, const Leaf *l)
{
    uint64_t v;
    switch (l->kind) {
    case L_BOOL:
        if (r_bits(r, 1, &v))
            return NULL;
        return Py_NewRef(v ? Py_True : Py_False);
    case L_INT:
        if (l->aligned)
            r_align(r);
        if (r_bits(r, l->bits, &v))
            return NULL;
        if (l->is_signed) {
            if (l->bits < 64 && (v >> (l->bits - 1)) & 1)
                v |= ~(uint64_t)0 << l->bits;
            return PyLong_FromLongLong((long long)v);
        }
        return PyLong_FromUnsignedLongLong(v);
    case L_FLOAT:
        r_align(r);
        if (r_bits(r, 32, &v))
            return NULL;
        return PyFloat_FromDouble(float_from_bits((uint32_t)v));
    case L_DOUBLE: {
        r_align(r);
        if (r_bits(r, 64, &v))
            return NULL;
        double d;
        memcpy(&d, &v, 8);
        return PyFloat_FromDouble(d);
    }
    case L_STRING: {
        const char *p = NULL;
        if (r_string(r, &p, &v))
            return NULL;
        return PyBytes_FromStringAndSize(p, (Py_ssize_t)v);
    }
    case L_WSTRING: {
        if (r_length(r, 0, &v))
            return NULL;
        if (v == 0)
            return PyUnicode_New(0, 0);
        r_align(r);
        if (LEFT(r) / 16 < v)
            return NULL;
        const char *p = (const char *)r->buf + (r->pos >> 3);
        r->pos += v * 16;
        int order = -1;
        return PyUnicode_DecodeUTF16(p, (Py_ssize_t)(2 * v), "surrogatepass", &order);
    }
    case L_ENUM:
        r_align(r);
        if (r_bits(r, 32, &v))
            return NULL;
        return PyLong_FromUnsignedLong((unsigned long)v);
    default:
        return NULL;
    }
}

static inline int
dict_put(PyObject *d, PyObject *key, PyObject *value)
{
    int r = PyDict_SetItem(d, key, value);
    Py_DECREF(value);
    return r;
}

/* A leaf struct: aligned once, its components contiguous in wire order. */
static PyObject *
dec_struct(R *r, const Prop *f)
{
    r_align(r);
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    for (int k = 0; k < f->nkeys; k++) {
        PyObject *v;
        if (f->matrix) {
            v = PyList_New(3);
            for (Py_ssize_t j = 0; v != NULL && j < 3; j++) {
                PyObject *c = dec_scalar(r, &f->comp);
                if (c == NULL)
                    Py_CLEAR(v);
                else
                    PyList_SET_ITEM(v, j, c);
            }
        } else {
            v = dec_scalar(r, &f->comp);
        }
        if (v == NULL || dict_put(d, f->keys[k], v) < 0) {
            Py_DECREF(d);
            return NULL;
        }
    }
    return d;
}

/* The value of an option name (str.isspace's ASCII characters) */
static inline int
is_space(unsigned char c)
{
    return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
}

static PyObject *
option_value(const Prop *f, const char *name, Py_ssize_t n, uint64_t *value)
{
    PyObject *key = PyBytes_FromStringAndSize(name, n);
    if (key == NULL)
        return NULL;
    PyObject *found = PyDict_GetItemWithError(f->by_name, key);
    Py_DECREF(key);
    if (found == NULL)
        return NULL;
    *value |= PyLong_AsUnsignedLong(found); /* a u32 the glue put there */
    return found;
}

/* An enum under HUMAN_READABLE_ENUMS: a std::string of its option name, or of option names
 * joined by '|' (blanks around them ignored, "" is 0) for bit flags. */
static PyObject *
dec_enum_text(R *r, const Prop *f)
{
    const char *p = NULL;
    uint64_t n, value = 0;
    if (r_string(r, &p, &n))
        return NULL;
    if (!f->bit_flags) {
        PyObject *found = option_value(f, p, (Py_ssize_t)n, &value);
        return found == NULL ? NULL : Py_NewRef(found);
    }
    for (uint64_t i = 0; i < n; i++)
        if ((unsigned char)p[i] >= 0x80) /* blanks beyond ASCII: the reference decides */
            return NULL;
    uint64_t start = 0;
    while (start <= n) {
        uint64_t stop = start;
        while (stop < n && p[stop] != '|')
            stop++;
        uint64_t a = start, b = stop;
        while (a < b && is_space((unsigned char)p[a]))
            a++;
        while (b > a && is_space((unsigned char)p[b - 1]))
            b--;
        if (b > a && option_value(f, p + a, (Py_ssize_t)(b - a), &value) == NULL)
            return NULL;
        start = stop + 1;
    }
    return PyLong_FromUnsignedLongLong(value);
}

static PyObject *dec_object(const Program *p, R *r, int depth);
static int dec_properties(const Program *p, R *r, const Class *c, PyObject *obj, int depth);

static inline PyObject *
dec_value(const Program *p, R *r, const Prop *f, int depth)
{
    switch (f->leaf.kind) {
    case L_STRUCT:
        return dec_struct(r, f);
    case L_ENUM:
        if (r->flags & HUMAN_READABLE_ENUMS)
            return dec_enum_text(r, f);
        return dec_scalar(r, &f->leaf);
    case L_OBJECT:
        return dec_object(p, r, depth + 1);
    default:
        return dec_scalar(r, &f->leaf);
    }
}

/* The fewest bits one element of the property's kind takes. */
static uint64_t
min_bits(const Prop *f, int flags)
{
    switch (f->leaf.kind) {
    case L_BOOL:
    case L_INT:
        return (uint64_t)f->leaf.bits;
    case L_ENUM: /* under HUMAN_READABLE_ENUMS a name, a string */
        if (!(flags & HUMAN_READABLE_ENUMS))
            return 32;
        return flags & COMPACT_LENGTH_PREFIXES ? 8 : 16;
    case L_STRING:
    case L_WSTRING:
        return flags & COMPACT_LENGTH_PREFIXES ? 8 : 16;
    case L_DOUBLE:
        return 64;
    case L_STRUCT:
        return (uint64_t)(f->comp.kind == L_INT ? f->comp.bits : 32)
               * (uint64_t)(f->matrix ? 9 : f->nkeys);
    default:
        return 32;
    }
}

static PyObject *
dec_list(const Program *p, R *r, const Prop *f, int depth)
{
    uint64_t n;
    if (r_length(r, 1, &n) || depth + 1 >= r->limit || n > LEFT(r) / min_bits(f, r->flags))
        return NULL;
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (list == NULL)
        return NULL;
    const Leaf *l = &f->leaf;
    if (n && (l->kind == L_FLOAT || (l->kind == L_INT && l->aligned))) {
        /* whole-byte numbers: aligned once, then contiguous */
        int bytes = l->kind == L_FLOAT ? 4 : l->bits >> 3;
        r_align(r);
        if (LEFT(r) / 8 / (uint64_t)bytes < n) {
            Py_DECREF(list);
            return NULL;
        }
        const unsigned char *q = r->buf + (r->pos >> 3);
        r->pos += n * (uint64_t)bytes * 8;
        for (Py_ssize_t i = 0; i < (Py_ssize_t)n; i++, q += bytes) {
            uint64_t v = load_le(q, bytes);
            PyObject *item;
            if (l->kind == L_FLOAT)
                item = PyFloat_FromDouble(float_from_bits((uint32_t)v));
            else if (l->is_signed && bytes < 8)
                item = PyLong_FromLongLong(
                    (long long)((v ^ ((uint64_t)1 << (l->bits - 1)))
                                - ((uint64_t)1 << (l->bits - 1))));
            else if (l->is_signed)
                item = PyLong_FromLongLong((long long)v);
            else
                item = PyLong_FromUnsignedLongLong(v);
            if (item == NULL) {
                Py_DECREF(list);
                return NULL;
            }
            PyList_SET_ITEM(list, i, item);
        }
        return list;
    }
    for (Py_ssize_t i = 0; i < (Py_ssize_t)n; i++) {
        PyObject *item = dec_value(p, r, f, depth + 1);
        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, item);
    }
    return list;
}

static inline PyObject *
dec_property(const Program *p, R *r, const Prop *f, int depth)
{
    return f->list ? dec_list(p, r, f, depth) : dec_value(p, r, f, depth);
}

/* A KiObject of class c, made as dict's constructor makes it (no __init__ to run). */
static PyObject *
new_object(const Program *p, const Class *c)
{
    PyObject *obj = PyDict_Type.tp_new(p->kiobject, p->empty_args, NULL);
    if (obj == NULL)
        return NULL;
    *(PyObject **)((char *)obj + p->name_offset) = Py_NewRef(c->name);
    *(PyObject **)((char *)obj + p->hash_offset) = Py_NewRef(c->hash_obj);
    *(PyObject **)((char *)obj + p->padding_offset) = Py_NewRef(Py_None);
    *(PyObject **)((char *)obj + p->zlib_offset) = Py_NewRef(Py_None);
    *(PyObject **)((char *)obj + p->trailing_offset) = Py_NewRef(Py_None);
    return obj;
}

static PyObject *s_type, *s_property; /* interned "type" and "property" */

/* (byte offset, "type" or "property", hash) noted in the skipped list */
static int
note_skipped(R *r, PyObject *kind, uint32_t hash)
{
    PyObject *note = Py_BuildValue("(KOk)", (unsigned long long)(r->pos >> 3), kind,
                                   (unsigned long)hash);
    if (note == NULL)
        return FAIL;
    int rc = PyList_Append(r->skipped, note);
    Py_DECREF(note);
    return rc < 0 ? FAIL : 0;
}

static int
skip(R *r, uint64_t bits)
{
    if (bits > LEFT(r))
        return FAIL;
    r->pos += bits;
    return 0;
}

static PyObject *
dec_object(const Program *p, R *r, int depth)
{
    uint32_t type_hash;
    if (depth >= r->limit || r_u32(r, &type_hash))
        return NULL;
    if (type_hash == 0)
        return Py_NewRef(Py_None);
    const Class *c = find_class(p, type_hash);
    if (c == NULL) {
        uint32_t object_bits;
        if (r->skipped == NULL || note_skipped(r, s_type, type_hash)
                || r_u32(r, &object_bits) || skip(r, object_bits > 32 ? object_bits - 32 : 0))
            return NULL;
        return Py_NewRef(Py_None);
    }
    PyObject *obj = new_object(p, c);
    if (obj == NULL)
        return NULL;
    /* the object's own alignments are counted apart */
    uint64_t outer_aligns = r->aligns;
    PyObject *outer_pads = r->pads;
    r->aligns = 0;
    r->pads = NULL;
    if (dec_properties(p, r, c, obj, depth))
        goto fail;
    if (depth == 0)
        r_align(r); /* the root's last byte */
    if (r->failed)
        goto fail;
    if (r->pads != NULL) {
        PyObject **slot = (PyObject **)((char *)obj + p->padding_offset);
        Py_SETREF(*slot, r->pads);
    }
    r->aligns = outer_aligns;
    r->pads = outer_pads;
    return obj;
fail:
    Py_XDECREF(r->pads);
    r->aligns = outer_aligns;
    r->pads = outer_pads;
    Py_DECREF(obj);
    return NULL;
}

/* The properties of an object of class c, read into obj: 0, or FAIL. */
static int
dec_properties(const Program *p, R *r, const Class *c, PyObject *obj, int depth)
{
    if (p->shallow) {
        for (Py_ssize_t k = 0; k < c->nprops; k++) {
            const Prop *f = &c->props[k];
            if (f->delta) {
                uint64_t present;
                if (r_bits(r, 1, &present))
                    return FAIL;
                if (!present) {
                    if (r->flags & FORBID_DELTA_ENCODE)
                        return FAIL;
                    continue;
                }
            }
            PyObject *v = dec_property(p, r, f, depth);
            if (v == NULL || dict_put(obj, f->name, v) < 0)
                return FAIL;
        }
        return 0;
    }
    uint32_t object_bits;
    if (r_u32(r, &object_bits))
        return FAIL;
    uint64_t remaining = object_bits > 32 ? object_bits - 32 : 0;
    Py_ssize_t next = 0;
    while (remaining) {
        uint64_t before = r->pos;
        uint32_t record_bits, prop_hash;
        if (r_u32(r, &record_bits) || r_u32(r, &prop_hash))
            return FAIL;
        const Prop *f = NULL;
        if (next < c->nprops && c->props[next].hash == prop_hash && c->props[next].matchable)
            f = &c->props[next];
        for (Py_ssize_t k = 0; f == NULL && k < c->nprops; k++)
            if (c->props[k].hash == prop_hash && c->props[k].matchable)
                f = &c->props[k];
        if (f == NULL) {
            if (r->skipped == NULL || record_bits < r->pos - before
                    || note_skipped(r, s_property, prop_hash)
                    || skip(r, record_bits - (r->pos - before)))
                return FAIL;
        } else {
            next = f - c->props + 1;
            PyObject *v = dec_property(p, r, f, depth);
            if (v == NULL || dict_put(obj, f->name, v) < 0)
                return FAIL;
        }
        if (r->pos - before != record_bits || record_bits > remaining)
            return FAIL;
        remaining -= record_bits;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * Writing.  Functions return 0, or FAIL to give up (a Python error may be set; the caller
 * clears it).  Padding bits are the ones the object being written kept, else zero. */

typedef struct {
    unsigned char *buf;
    Py_ssize_t len, cap;
    uint64_t acc; /* the pending bits of the unfinished last byte */
    int nbits;    /* how many (0..7) */
    int flags, limit;
    uint64_t aligns; /* alignments that wrote padding bits in the object being written */
    PyObject *pads;  /* its padding (a dict), or NULL */
} W;

static int
w_reserve(W *w, Py_ssize_t n)
{
    if (w->len + n <= w->cap)
        return 0;
    Py_ssize_t cap = w->cap ? w->cap : 1024;
    while (cap < w->len + n) {
        if (cap > PY_SSIZE_T_MAX / 2)
            return FAIL;
        cap *= 2;
    }
    unsigned char *b = PyMem_Realloc(w->buf, (size_t)cap);
    if (b == NULL)
        return FAIL;
    w->buf = b;
    w->cap = cap;
    return 0;
}

/* the low n bits of v (v < 2**n, n <= 32) */
static inline int
w_bits(W *w, uint64_t v, int n)
{
    if (w_reserve(w, 5))
        return FAIL;
    if (w->nbits == 0 && (n & 7) == 0) {
        for (int i = 0; i < n; i += 8)
            w->buf[w->len++] = (unsigned char)(v >> i);
        return 0;
    }
    uint64_t acc = w->acc | v << w->nbits;
    int total = w->nbits + n;
    while (total >= 8) {
        w->buf[w->len++] = (unsigned char)acc;
        acc >>= 8;
        total -= 8;
    }
    w->acc = acc;
    w->nbits = total;
    return 0;
}

/* The padding bits kept for the object's n-th alignment that writes `width` bits: an int
 * that fits them, else none (0); FAIL for a value that is no exact int (the reference
 * decides). */
static int
pad_bits(PyObject *pads, uint64_t n, int width, uint64_t *out)
{
    *out = 0;
    PyObject *key = PyLong_FromUnsignedLongLong(n);
    if (key == NULL)
        return FAIL;
    PyObject *v = PyDict_GetItemWithError(pads, key);
    Py_DECREF(key);
    if (v == NULL)
        return PyErr_Occurred() ? FAIL : 0;
    if (!PyLong_CheckExact(v))
        return FAIL;
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred())
        return FAIL;
    if (!overflow && x >= 0 && x < (1LL << width))
        *out = (uint64_t)x;
    return 0;
}

static inline int
w_align(W *w)
{
    if (w->nbits == 0)
        return 0;
    if (w_reserve(w, 1))
        return FAIL;
    w->aligns++;
    if (w->pads != NULL) {
        uint64_t pad;
        if (pad_bits(w->pads, w->aligns, 8 - w->nbits, &pad))
            return FAIL;
        w->acc |= pad << w->nbits;
    }
    w->buf[w->len++] = (unsigned char)w->acc;
    w->acc = 0;
    w->nbits = 0;
    return 0;
}

static inline int
w_bits64(W *w, uint64_t v, int n)
{
    if (n <= 32)
        return w_bits(w, v, n);
    return w_bits(w, v & 0xffffffffu, 32) || w_bits(w, v >> 32, n - 32);
}

static int
w_raw(W *w, const void *data, Py_ssize_t n)
{
    if (w_align(w) || w_reserve(w, n))
        return FAIL;
    memcpy(w->buf + w->len, data, (size_t)n);
    w->len += n;
    return 0;
}

static inline uint64_t
w_position(const W *w)
{
    return 8 * (uint64_t)w->len + (uint64_t)w->nbits;
}

static void
w_patch(W *w, Py_ssize_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        w->buf[at + i] = (unsigned char)(v >> (8 * i));
}

static int
w_length(W *w, uint64_t n, int container)
{
    if (w->flags & COMPACT_LENGTH_PREFIXES) {
        if (n < 128)
            return w_bits(w, 0, 1) || w_bits(w, n, 7);
        if (n >> 31)
            return FAIL;
        return w_bits(w, 1, 1) || w_bits(w, n, 31);
    }
    if (n >> (container ? 32 : 16))
        return FAIL;
    return w_align(w) || w_bits(w, n, container ? 32 : 16);
}

static int
w_string(W *w, const char *p, Py_ssize_t n)
{
    if (w_length(w, (uint64_t)n, 0))
        return FAIL;
    return n ? w_raw(w, p, n) : 0;
}

/* An exact int within the leaf's range, as its low bits. */
static int
int_bits(PyObject *v, int bits, int is_signed, uint64_t *out)
{
    if (!PyLong_CheckExact(v))
        return FAIL;
    if (bits == 64 && !is_signed) {
        unsigned long long u = PyLong_AsUnsignedLongLong(v);
        if (u == (unsigned long long)-1 && PyErr_Occurred())
            return FAIL;
        *out = u;
        return 0;
    }
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow || (x == -1 && PyErr_Occurred()))
        return FAIL;
    if (is_signed && bits < 64) {
        long long half = (long long)1 << (bits - 1);
        if (x < -half || x >= half)
            return FAIL;
    } else if (!is_signed && (x < 0 || (bits < 63 && x >> bits))) {
        return FAIL;
    }
    *out = (uint64_t)x & (bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1);
    return 0;
}

static int
number(PyObject *v, double *out)
{
    if (PyFloat_CheckExact(v)) {
        *out = PyFloat_AS_DOUBLE(v);
        return 0;
    }
    if (!PyLong_CheckExact(v))
        return FAIL;
    *out = PyLong_AsDouble(v);
    return *out == -1.0 && PyErr_Occurred() ? FAIL : 0;
}

static int
enc_scalar(W *w, const Leaf *l, PyObject *v)
{
    uint64_t u;
    double d;
    switch (l->kind) {
    case L_BOOL:
        if (v != Py_True && v != Py_False)
            return FAIL;
        return w_bits(w, v == Py_True, 1);
    case L_INT:
        if (int_bits(v, l->bits, l->is_signed, &u) || (l->aligned && w_align(w)))
            return FAIL;
        return w_bits64(w, u, l->bits);
    case L_FLOAT:
        if (number(v, &d) || w_align(w))
            return FAIL;
        return w_bits(w, float32_bits(d), 32);
    case L_DOUBLE:
        if (number(v, &d) || w_align(w))
            return FAIL;
        memcpy(&u, &d, 8);
        return w_bits64(w, u, 64);
    case L_STRING: {
        const char *p;
        Py_ssize_t n;
        if (PyUnicode_CheckExact(v)) {
            p = PyUnicode_AsUTF8AndSize(v, &n);
            if (p == NULL)
                return FAIL;
        } else if (PyBytes_Check(v)) {
            p = PyBytes_AS_STRING(v);
            n = PyBytes_GET_SIZE(v);
        } else if (PyByteArray_Check(v)) {
            p = PyByteArray_AS_STRING(v);
            n = PyByteArray_GET_SIZE(v);
        } else {
            return FAIL;
        }
        return w_string(w, p, n);
    }
    case L_WSTRING: {
        if (!PyUnicode_CheckExact(v))
            return FAIL;
        Py_ssize_t n = PyUnicode_GET_LENGTH(v), units = n;
        int kind = PyUnicode_KIND(v);
        const void *data = PyUnicode_DATA(v);
        if (kind == PyUnicode_4BYTE_KIND)
            for (Py_ssize_t i = 0; i < n; i++)
                units += PyUnicode_READ(kind, data, i) >= 0x10000;
        if (w_length(w, (uint64_t)units, 0))
            return FAIL;
        if (units == 0)
            return 0;
        if (w_align(w) || w_reserve(w, 2 * units))
            return FAIL;
        unsigned char *q = w->buf + w->len;
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            if (c >= 0x10000) {
                Py_UCS4 hi = 0xd800 | ((c - 0x10000) >> 10), lo = 0xdc00 | (c & 0x3ff);
                *q++ = (unsigned char)hi;
                *q++ = (unsigned char)(hi >> 8);
                c = lo;
            }
            *q++ = (unsigned char)c;
            *q++ = (unsigned char)(c >> 8);
        }
        w->len += 2 * units;
        return 0;
    }
    case L_ENUM:
        if (int_bits(v, 32, 0, &u) || w_align(w))
            return FAIL;
        return w_bits(w, u, 32);
    default:
        return FAIL;
    }
}

static int
enc_struct(W *w, const Prop *f, PyObject *v)
{
    if (!PyDict_CheckExact(v) || PyDict_GET_SIZE(v) != f->nkeys)
        return FAIL;
    PyObject *parts[4];
    int n = 0, rc = 0;
    for (; n < f->nkeys; n++) {
        parts[n] = PyDict_GetItemWithError(v, f->keys[n]);
        if (parts[n] == NULL)
            break;
        Py_INCREF(parts[n]);
        if (f->matrix && !((PyList_CheckExact(parts[n]) || PyTuple_CheckExact(parts[n]))
                           && Py_SIZE(parts[n]) == 3)) {
            n++;
            rc = FAIL;
            break;
        }
    }
    if (n < f->nkeys || rc || w_align(w))
        rc = FAIL;
    for (int k = 0; !rc && k < n; k++) {
        if (!f->matrix) {
            rc = enc_scalar(w, &f->comp, parts[k]);
            continue;
        }
        for (Py_ssize_t j = 0; !rc && j < 3; j++) {
            if (Py_SIZE(parts[k]) != 3) { /* changed while writing */
                rc = FAIL;
                break;
            }
            PyObject *c = Py_NewRef(PySequence_Fast_GET_ITEM(parts[k], j));
            rc = enc_scalar(w, &f->comp, c);
            Py_DECREF(c);
        }
    }
    for (int k = 0; k < n; k++)
        Py_DECREF(parts[k]);
    return rc;
}

/* An integer enum value as its option name, or for bit flags the names of every option
 * sharing a bit with it, in type-list order, joined by '|'. */
static int
enc_enum_text(W *w, const Prop *f, PyObject *v)
{
    uint64_t u;
    if (int_bits(v, 32, 0, &u))
        return FAIL;
    if (!f->bit_flags) {
        PyObject *key = PyLong_FromUnsignedLongLong(u);
        if (key == NULL)
            return FAIL;
        PyObject *name = PyDict_GetItemWithError(f->by_value, key);
        Py_DECREF(key);
        if (name == NULL || !PyBytes_Check(name))
            return FAIL;
        return w_string(w, PyBytes_AS_STRING(name), PyBytes_GET_SIZE(name));
    }
    Py_ssize_t total = 0, count = 0;
    for (Py_ssize_t i = 0; i < f->noptions; i++) {
        if (!(f->option_values[i] & u))
            continue;
        if (!PyBytes_Check(f->option_names[i]))
            return FAIL;
        total += PyBytes_GET_SIZE(f->option_names[i]) + (count++ > 0);
    }
    if (w_length(w, (uint64_t)total, 0) || (total && (w_align(w) || w_reserve(w, total))))
        return FAIL;
    count = 0;
    for (Py_ssize_t i = 0; i < f->noptions; i++) {
        if (!(f->option_values[i] & u))
            continue;
        if (count++ > 0)
            w->buf[w->len++] = '|';
        Py_ssize_t n = PyBytes_GET_SIZE(f->option_names[i]);
        memcpy(w->buf + w->len, PyBytes_AS_STRING(f->option_names[i]), (size_t)n);
        w->len += n;
    }
    return 0;
}

static int enc_object(const Program *p, W *w, PyObject *obj, int depth);
static int enc_properties(const Program *p, W *w, const Class *c, PyObject *obj, int depth);

static inline int
enc_value(const Program *p, W *w, const Prop *f, PyObject *v, int depth)
{
    switch (f->leaf.kind) {
    case L_STRUCT:
        return enc_struct(w, f, v);
    case L_ENUM:
        if (w->flags & HUMAN_READABLE_ENUMS)
            return enc_enum_text(w, f, v);
        return enc_scalar(w, &f->leaf, v);
    case L_OBJECT:
        return enc_object(p, w, v, depth + 1);
    default:
        return enc_scalar(w, &f->leaf, v);
    }
}

static int
enc_property(const Program *p, W *w, const Prop *f, PyObject *v, int depth)
{
    if (!f->list)
        return enc_value(p, w, f, v, depth);
    if (!PyList_CheckExact(v) && !PyTuple_CheckExact(v))
        return FAIL;
    Py_ssize_t n = Py_SIZE(v);
    if (w_length(w, (uint64_t)n, 1))
        return FAIL;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (Py_SIZE(v) != n) /* changed while writing */
            return FAIL;
        PyObject *item = Py_NewRef(PySequence_Fast_GET_ITEM(v, i));
        int rc = enc_value(p, w, f, item, depth + 1);
        Py_DECREF(item);
        if (rc)
            return FAIL;
    }
    return 0;
}

/* Whether the object has a key that is no property of its class. */
static int
has_unknown_key(const Class *c, PyObject *obj)
{
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(obj, &pos, &key, &value)) {
        Py_INCREF(key);
        int known = PySet_Contains(c->known, key);
        Py_DECREF(key);
        if (known != 1)
            return 1;
    }
    return 0;
}

static int
enc_object(const Program *p, W *w, PyObject *obj, int depth)
{
    if (depth >= w->limit || w_align(w))
        return FAIL;
    if (obj == Py_None)
        return w_bits(w, 0, 32);
    if (!Py_IS_TYPE(obj, p->kiobject))
        return FAIL;
    PyObject *hash_obj = *(PyObject **)((char *)obj + p->hash_offset);
    uint64_t type_hash;
    if (hash_obj == NULL || int_bits(hash_obj, 32, 0, &type_hash))
        return FAIL;
    const Class *c = find_class(p, (uint32_t)type_hash);
    if (c == NULL || w_bits(w, type_hash, 32))
        return FAIL;
    PyObject *pads = *(PyObject **)((char *)obj + p->padding_offset);
    if (pads == NULL || pads == Py_None)
        pads = NULL;
    else if (PyDict_CheckExact(pads))
        Py_INCREF(pads);
    else
        return FAIL;
    /* the object's own alignments are counted apart */
    uint64_t outer_aligns = w->aligns;
    PyObject *outer_pads = w->pads;
    w->aligns = 0;
    w->pads = pads;
    int rc = enc_properties(p, w, c, obj, depth) || (depth == 0 && w_align(w));
    w->aligns = outer_aligns;
    w->pads = outer_pads;
    Py_XDECREF(pads);
    return rc;
}

/* The properties of obj, an object of class c: 0, or FAIL. */
static int
enc_properties(const Program *p, W *w, const Class *c, PyObject *obj, int depth)
{
    Py_ssize_t size_at = w->len, found = 0;
    uint64_t start = w_position(w);
    if (!p->shallow && w_bits(w, 0, 32))
        return FAIL;
    for (Py_ssize_t k = 0; k < c->nprops; k++) {
        const Prop *f = &c->props[k];
        PyObject *v = PyDict_GetItemWithError(obj, f->name);
        if (v == NULL) {
            if (PyErr_Occurred() || !f->delta || w->flags & FORBID_DELTA_ENCODE)
                return FAIL;
            if (p->shallow && w_bits(w, 0, 1))
                return FAIL;
            continue;
        }
        found++;
        Py_INCREF(v);
        int rc;
        if (p->shallow) {
            rc = (f->delta && w_bits(w, 1, 1)) || enc_property(p, w, f, v, depth);
        } else {
            uint64_t before = w_position(w); /* the padding before a record is its own */
            rc = w_align(w);
            Py_ssize_t record_at = w->len;
            rc = rc || w_bits(w, 0, 32) || w_bits(w, f->hash, 32)
                 || enc_property(p, w, f, v, depth) || (w_position(w) - before) >> 32;
            if (!rc)
                w_patch(w, record_at, (uint32_t)(w_position(w) - before));
        }
        Py_DECREF(v);
        if (rc)
            return FAIL;
    }
    if (!p->shallow) {
        if ((w_position(w) - start) >> 32)
            return FAIL;
        w_patch(w, size_at, (uint32_t)(w_position(w) - start));
    }
    if (found != PyDict_GET_SIZE(obj) && has_unknown_key(c, obj))
        return FAIL;
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * The Program type and the module functions. */

static void
program_dealloc(Program *self)
{
    for (Py_ssize_t k = 0; k < self->nclasses; k++) {
        Class *c = &self->classes[k];
        for (Py_ssize_t j = 0; j < c->nprops; j++) {
            Py_XDECREF(c->props[j].name);
            Prop *f = &c->props[j];
            for (int i = 0; i < 4; i++)
                Py_XDECREF(f->keys[i]);
            Py_XDECREF(f->by_name);
            Py_XDECREF(f->by_value);
            for (Py_ssize_t i = 0; f->option_names != NULL && i < f->noptions; i++)
                Py_XDECREF(f->option_names[i]);
            PyMem_Free(f->option_names);
            PyMem_Free(f->option_values);
        }
        PyMem_Free(c->props);
        Py_XDECREF(c->name);
        Py_XDECREF(c->hash_obj);
        Py_XDECREF(c->known);
    }
    PyMem_Free(self->classes);
    PyMem_Free(self->table);
    Py_XDECREF(self->kiobject);
    Py_XDECREF(self->empty_args);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int
malformed(const char *what)
{
    PyErr_Format(PyExc_ValueError, "a Program %s is malformed", what);
    return -1;
}

static int
parse_leaf(PyObject *t, Leaf *l)
{
    if (!PyArg_ParseTuple(t, "iiii", &l->kind, &l->bits, &l->is_signed, &l->aligned))
        return -1;
    int whole = l->bits == 8 || l->bits == 16 || l->bits == 32 || l->bits == 64;
    if (l->kind < L_BOOL || l->kind > L_OTHER || (l->kind == L_BOOL && l->bits != 1)
            || (l->kind == L_INT && (l->bits < 2 || l->bits > 64 || (l->aligned && !whole))))
        return malformed("leaf");
    return 0;
}

/* (bit flags, {name: value}, {value: name}, ((value, name), ...)) with names as UTF-8 bytes
 * (None where a name is not UTF-8) and values u32 */
static int
parse_enum(PyObject *t, Prop *f)
{
    PyObject *by_name, *by_value, *options;
    if (!PyArg_ParseTuple(t, "pO!O!O!", &f->bit_flags, &PyDict_Type, &by_name, &PyDict_Type,
                          &by_value, &PyTuple_Type, &options))
        return -1;
    f->by_name = Py_NewRef(by_name);
    f->by_value = Py_NewRef(by_value);
    Py_ssize_t n = PyTuple_GET_SIZE(options);
    f->option_values = PyMem_Calloc((size_t)(n ? n : 1), sizeof(uint32_t));
    f->option_names = PyMem_Calloc((size_t)(n ? n : 1), sizeof(PyObject *));
    if (f->option_values == NULL || f->option_names == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned long value;
        PyObject *name;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(options, i), "kO", &value, &name))
            return -1;
        f->option_values[i] = (uint32_t)value;
        f->option_names[i] = Py_NewRef(name);
        f->noptions = i + 1;
    }
    return 0;
}

/* (name, hash, delta, list, matchable, leaf, extra) with leaf = (kind, bits, signed, aligned)
 * and extra = (component leaf, keys, matrix) for a leaf struct, an enum's options (see
 * parse_enum) for an enum, else None */
static int
parse_prop(PyObject *t, Prop *f)
{
    PyObject *name, *leaf, *st;
    unsigned long hash;
    if (!PyArg_ParseTuple(t, "UkpppOO", &name, &hash, &f->delta, &f->list, &f->matchable,
                          &leaf, &st))
        return -1;
    f->name = Py_NewRef(name);
    PyUnicode_InternInPlace(&f->name);
    f->hash = (uint32_t)hash;
    if (parse_leaf(leaf, &f->leaf) < 0)
        return -1;
    if (f->leaf.kind == L_ENUM)
        return parse_enum(st, f);
    if (f->leaf.kind != L_STRUCT)
        return st == Py_None ? 0 : malformed("property");
    PyObject *comp, *keys;
    if (!PyArg_ParseTuple(st, "OO!p", &comp, &PyTuple_Type, &keys, &f->matrix)
            || parse_leaf(comp, &f->comp) < 0)
        return -1;
    f->nkeys = (int)PyTuple_GET_SIZE(keys);
    if (f->nkeys < 1 || f->nkeys > 4 || (f->matrix && f->nkeys != 3)
            || (f->comp.kind != L_INT && f->comp.kind != L_FLOAT)
            || (f->comp.kind == L_INT && !f->comp.aligned))
        return malformed("leaf struct");
    for (int i = 0; i < f->nkeys; i++) {
        PyObject *key = PyTuple_GET_ITEM(keys, i);
        if (!PyUnicode_CheckExact(key))
            return malformed("leaf struct");
        f->keys[i] = Py_NewRef(key);
        PyUnicode_InternInPlace(&f->keys[i]);
    }
    return 0;
}

/* (hash, name, known names, [property]) */
static int
parse_class(PyObject *t, Class *c)
{
    PyObject *name, *known, *props;
    unsigned long hash;
    if (!PyArg_ParseTuple(t, "kUO!O!", &hash, &name, &PyFrozenSet_Type, &known, &PyList_Type,
                          &props))
        return -1;
    if (hash == 0 || hash > 0xffffffffUL)
        return malformed("class hash");
    c->hash = (uint32_t)hash;
    c->name = Py_NewRef(name);
    c->known = Py_NewRef(known);
    c->hash_obj = PyLong_FromUnsignedLong(hash);
    if (c->hash_obj == NULL)
        return -1;
    Py_ssize_t n = PyList_GET_SIZE(props);
    c->props = PyMem_Calloc((size_t)(n ? n : 1), sizeof(Prop));
    if (c->props == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t j = 0; j < n; j++) {
        c->nprops = j + 1;
        if (parse_prop(PyList_GET_ITEM(props, j), &c->props[j]) < 0)
            return -1;
    }
    return 0;
}

/* An object slot of the KiObject class, from its member descriptor. */
static int
slot_offset(PyObject *cls, PyObject *descriptor, Py_ssize_t *offset)
{
    if (!Py_IS_TYPE(descriptor, &PyMemberDescr_Type)
            || ((PyMemberDescrObject *)descriptor)->d_common.d_type != (PyTypeObject *)cls
            || ((PyMemberDescrObject *)descriptor)->d_member->type != T_OBJECT_EX) {
        PyErr_SetString(PyExc_TypeError, "a KiObject attribute is not an object slot");
        return -1;
    }
    *offset = ((PyMemberDescrObject *)descriptor)->d_member->offset;
    return 0;
}

/* Program(shallow, classes, KiObject, its type_name, type_hash, padding, zlib_data and
 * trailing slots) */
static PyObject *
program_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    int shallow;
    PyObject *classes, *kiobject, *name_slot, *hash_slot, *padding_slot, *zlib_slot;
    PyObject *trailing_slot;
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "Program takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "pO!O!OOOOO", &shallow, &PyList_Type, &classes, &PyType_Type,
                          &kiobject, &name_slot, &hash_slot, &padding_slot, &zlib_slot,
                          &trailing_slot))
        return NULL;
    PyTypeObject *ki = (PyTypeObject *)kiobject;
    if (!PyType_IsSubtype(ki, &PyDict_Type) || ki->tp_new != PyDict_Type.tp_new) {
        PyErr_SetString(PyExc_TypeError, "KiObject must be a dict subclass made by dict's "
                                         "constructor");
        return NULL;
    }
    Program *self = (Program *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->shallow = shallow;
    self->kiobject = (PyTypeObject *)Py_NewRef(kiobject);
    self->empty_args = PyTuple_New(0);
    Py_ssize_t n = PyList_GET_SIZE(classes);
    uint32_t size = 8;
    while (size < 2 * (uint64_t)n && size < 0x80000000u)
        size *= 2;
    self->classes = PyMem_Calloc((size_t)(n ? n : 1), sizeof(Class));
    self->table = PyMem_Malloc(size * sizeof(Py_ssize_t));
    if (self->empty_args == NULL || self->classes == NULL || self->table == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    self->table_mask = size - 1;
    for (uint32_t i = 0; i < size; i++)
        self->table[i] = -1;
    if (slot_offset(kiobject, name_slot, &self->name_offset) < 0
            || slot_offset(kiobject, hash_slot, &self->hash_offset) < 0
            || slot_offset(kiobject, padding_slot, &self->padding_offset) < 0
            || slot_offset(kiobject, zlib_slot, &self->zlib_offset) < 0
            || slot_offset(kiobject, trailing_slot, &self->trailing_offset) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        self->nclasses = k + 1;
        Class *c = &self->classes[k];
        if (parse_class(PyList_GET_ITEM(classes, k), c) < 0
                || (find_class(self, c->hash) != NULL && malformed("class list") < 0)) {
            Py_DECREF(self);
            return NULL;
        }
        uint32_t i = (c->hash * 2654435761u) & self->table_mask;
        while (self->table[i] >= 0)
            i = (i + 1) & self->table_mask;
        self->table[i] = k;
    }
    return (PyObject *)self;
}

static PyTypeObject ProgramType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gameserde.kingsisle._speedups.Program",
    .tp_basicsize = sizeof(Program),
    .tp_dealloc = (destructor)program_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A type list's classes and their properties in one mode, compiled for the C "
              "serializer.",
    .tp_new = program_new,
};

static int
limit_arg(PyObject *program, int limit)
{
    if (!PyObject_TypeCheck(program, &ProgramType)) {
        PyErr_SetString(PyExc_TypeError, "expected a Program");
        return -1;
    }
    if (limit < 0 || limit > MAX_C_DEPTH) {
        PyErr_SetString(PyExc_ValueError, "the recursion limit is out of range");
        return -1;
    }
    return 0;
}

/* decode(program, body, flags, limit, skipped) -> (the root KiObject, the byte it ends
 * before), or None; skipped is a list to note skipped unknown types and properties in
 * (skip_unknown_types), or None to give up on them */
static PyObject *
ki_decode(PyObject *module, PyObject *args)
{
    PyObject *program, *skipped;
    Py_buffer view;
    int flags, limit;
    (void)module;
    if (!PyArg_ParseTuple(args, "Oy*iiO", &program, &view, &flags, &limit, &skipped))
        return NULL;
    if (limit_arg(program, limit) < 0 || (skipped != Py_None && !PyList_Check(skipped))) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "skipped must be a list or None");
        PyBuffer_Release(&view);
        return NULL;
    }
    R r = {view.buf, 0, 8 * (uint64_t)view.len, flags, limit,
           skipped == Py_None ? NULL : skipped, 0, NULL, 0};
    int gc = PyGC_Disable();
    PyObject *root = dec_object((Program *)program, &r, 0);
    if (gc)
        PyGC_Enable();
    PyBuffer_Release(&view);
    if (root == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (root == Py_None) /* a null root: the reference reports it */
        return root;
    PyObject *end = PyLong_FromUnsignedLongLong(r.pos >> 3); /* aligned by the root */
    PyObject *result = end == NULL ? NULL : PyTuple_Pack(2, root, end);
    Py_XDECREF(end);
    Py_DECREF(root);
    if (result == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return result;
}

/* encode(program, root, flags, limit) -> the body's bytes, or None */
static PyObject *
ki_encode(PyObject *module, PyObject *args)
{
    PyObject *program, *root;
    int flags, limit;
    (void)module;
    if (!PyArg_ParseTuple(args, "OOii", &program, &root, &flags, &limit)
            || limit_arg(program, limit) < 0)
        return NULL;
    W w = {NULL, 0, 0, 0, 0, flags, limit, 0, NULL};
    PyObject *result = NULL;
    if (root != Py_None && !enc_object((Program *)program, &w, root, 0) && !w_align(&w))
        result = PyBytes_FromStringAndSize((const char *)w.buf, w.len);
    PyMem_Free(w.buf);
    if (result == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return result;
}

static PyMethodDef methods[] = {
    {"decode", ki_decode, METH_VARARGS,
     "decode(program, body, flags, limit, skipped) -> (the root KiObject, the byte it ends "
     "before), or None"},
    {"encode", ki_encode, METH_VARARGS,
     "encode(program, root, flags, limit) -> the body's bytes, or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "gameserde.kingsisle._speedups",
    "Optional C twin of the ObjectProperty serializer (see gameserde/kingsisle/_accel.py).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    if (PyType_Ready(&ProgramType) < 0)
        return NULL;
    s_type = PyUnicode_InternFromString("type");
    s_property = PyUnicode_InternFromString("property");
    if (s_type == NULL || s_property == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    if (PyModule_AddIntConstant(m, "API_VERSION", API_VERSION) < 0
            || PyModule_AddIntConstant(m, "MAX_C_DEPTH", MAX_C_DEPTH) < 0
            || PyModule_AddObjectRef(m, "Program", (PyObject *)&ProgramType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
