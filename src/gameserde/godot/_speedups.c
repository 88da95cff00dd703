/*
 * Optional C twin of the hot path of the Godot Variant codec (gameserde.godot).
 *
 * The pure-Python reader (decoder.make_reader) and writer (encoder.make_writer) are the
 * reference; this module only makes the common types fast and must give exactly the same
 * values and bytes.  It handles inline: Nil, bool, int, float, String, Vector2/3/4,
 * Vector2i/3i/4i, Quaternion, Color, untyped Array and Dictionary, PackedByteArray and
 * PackedStringArray.  Every other value is handed to a Python fallback (the reference
 * reader/writer, for that one value), and whenever anything goes wrong -- truncated input,
 * an unknown id, bad UTF-8, too deep, a value the engine cannot store -- it raises
 * `Unsupported` (or lets the Python exception through) and the Python glue
 * (gameserde/godot/_accel.py) runs the reference over the whole input, which then raises
 * the exact DecodeError/EncodeError.  So this file never formats an error message.
 *
 * Safety rules: every length is checked against the bytes left before memory is touched
 * (positions are signed and may pass the end only the way the reference allows, after a
 * PackedByteArray whose pad is missing); C recursion stops at C_DEPTH_CAP, past which values
 * go to the Python fallback.  Helpers shared with the binary-resource twin
 * (resource/_speedups.c) live in _variant_common.h.
 *
 * Speed (the values are the same as the reference's, only made more cheaply):
 * - the cyclic GC is paused while decoding (everything built is new and acyclic);
 * - decoded math values hold only numbers and are immutable, so they are left out of the
 *   cyclic GC, as CPython does for such plain tuples;
 * - short ASCII strings are made once and shared (str is immutable): string_cache;
 * - the commonest values of Arrays and Dictionaries are read inline (dec_item);
 * - a Dictionary whose keys are all str is built here as a dict; at the first key of any
 *   other type the pairs go to the reference build_dictionary, which decides between dict
 *   and Dictionary.
 */

#include "_variant_common.h"
#include <math.h>

#define API_VERSION 1

/* gameserde.godot.types.VariantType numbering (Godot 4.3+). */
enum {
    VT_NIL = 0, VT_BOOL = 1, VT_INT = 2, VT_FLOAT = 3, VT_STRING = 4, VT_VECTOR2 = 5,
    VT_VECTOR2I = 6, VT_VECTOR3 = 9, VT_VECTOR3I = 10, VT_VECTOR4 = 12, VT_VECTOR4I = 13,
    VT_QUATERNION = 15, VT_COLOR = 20, VT_PACKED_STRING_ARRAY = 34, VT_DICTIONARY = 27,
    VT_ARRAY = 28, VT_PACKED_BYTE_ARRAY = 29, VT_COUNT = 39
};

#define FLAG_64 (1u << 16)
#define C_DEPTH_CAP 1500 /* deeper values are left to the (stackless) Python reference */

/* Decoder flags (argument `flags` of decode). */
#define DF_TYPED 1      /* profile.typed_containers */
#define DF_MATH64 2     /* profile.math_flag64 */
#define DF_SURROGATES 4 /* profile.allow_surrogates */

/* Encoder flags (argument `flags` of encode). */
#define EF_DOUBLE 1     /* double_precision */
#define EF_SURROGATES 2 /* profile.allow_surrogates */
#define EF_PSA_NUL 4    /* profile.string_array_nul */

/* Set by configure(): the value classes of gameserde.godot.types and build_dictionary. */
static struct {
    PyTypeObject *vec2, *vec2i, *vec3, *vec3i, *vec4, *vec4i, *quat, *color;
    PyTypeObject *psa;
    PyObject *build_dictionary;
    int ready;
} G;

/* ========================================================================================= */
/* Decoder                                                                                   */
/* ========================================================================================= */

typedef struct {
    const unsigned char *buf;
    Py_ssize_t end;
    const unsigned char *vt; /* Variant type of each wire id */
    Py_ssize_t n_types;
    uint32_t mask;
    int flags;
    long max_depth;
    PyObject *get_reader; /* borrowed: () -> read_value of the reference over the same buf */
    PyObject *reader;     /* owned, made on first use */
} Dec;

static PyObject *dec_value(Dec *d, Py_ssize_t *ppos, long depth, int is_key);

/* Hand the value whose header is at `hpos` to the reference reader. */
static PyObject *
dec_fallback(Dec *d, Py_ssize_t hpos, Py_ssize_t *ppos, long depth)
{
    if (d->reader == NULL) {
        d->reader = PyObject_CallNoArgs(d->get_reader);
        if (d->reader == NULL)
            return NULL;
    }
    PyObject *args[2];
    args[0] = PyLong_FromSsize_t(hpos);
    args[1] = PyLong_FromLong(depth);
    PyObject *res = NULL;
    if (args[0] != NULL && args[1] != NULL)
        res = PyObject_Vectorcall(d->reader, args, 2, NULL);
    Py_XDECREF(args[0]);
    Py_XDECREF(args[1]);
    if (res == NULL)
        return NULL;
    if (!PyTuple_CheckExact(res) || PyTuple_GET_SIZE(res) != 2 ||
        !PyLong_CheckExact(PyTuple_GET_ITEM(res, 1))) {
        Py_DECREF(res);
        return bail();
    }
    Py_ssize_t next = PyLong_AsSsize_t(PyTuple_GET_ITEM(res, 1));
    if (next == -1 && PyErr_Occurred()) {
        Py_DECREF(res);
        return NULL;
    }
    PyObject *value = PyTuple_GET_ITEM(res, 0);
    Py_INCREF(value);
    Py_DECREF(res);
    *ppos = next;
    return value;
}

/* The reference's read_string: i32 length, bytes, pad required; cut at the first NUL, one
 * leading BOM dropped; strict UTF-8 (or surrogatepass). */
static PyObject *
dec_string(Dec *d, Py_ssize_t *ppos, int is_key)
{
    Py_ssize_t pos = *ppos;
    if (d->end - pos < 4)
        return bail();
    int32_t n = (int32_t)ld_u32(d->buf + pos);
    Py_ssize_t start = pos + 4;
    int64_t padded = ((int64_t)n + 3) & ~(int64_t)3;
    if (n < 0 || padded > (int64_t)(d->end - start))
        return bail();
    const unsigned char *raw = d->buf + start;
    Py_ssize_t len = n;
    PyObject *s;

    if (n <= SHORT_MAX) {
        uint64_t words[SHORT_MAX / 8];
        int ascii;
        size_t hash;
        len = scan_short(raw, n, words, &ascii, &hash);
        if (ascii) { /* ASCII text has no BOM */
            s = short_ascii(raw, len, words, hash, is_key);
            if (s != NULL)
                *ppos = start + (Py_ssize_t)padded;
            return s;
        }
    }
    else {
        const unsigned char *nul = memchr(raw, 0, (size_t)len);
        if (nul != NULL)
            len = nul - raw;
    }
    if (len >= 3 && raw[0] == 0xEF && raw[1] == 0xBB && raw[2] == 0xBF) {
        raw += 3;
        len -= 3;
    }
    s = PyUnicode_DecodeUTF8((const char *)raw, len,
                             (d->flags & DF_SURROGATES) ? "surrogatepass" : NULL);
    if (s == NULL)
        return NULL;
    *ppos = start + (Py_ssize_t)padded;
    return s;
}

/* n real components: f32, or f64 when `wide`. The bytes were checked by the caller. */
static PyObject *
dec_reals(PyTypeObject *cls, const unsigned char *p, int n, int wide)
{
    PyObject *items[4];
    for (int i = 0; i < n; i++) {
        double x = wide ? PyFloat_Unpack8((const char *)p + 8 * i, 1)
                        : PyFloat_Unpack4((const char *)p + 4 * i, 1);
        if (x == -1.0 && PyErr_Occurred())
            items[i] = NULL;
        else
            items[i] = PyFloat_FromDouble(x);
        if (items[i] == NULL) {
            for (int j = 0; j < i; j++)
                Py_DECREF(items[j]);
            return NULL;
        }
    }
    return make_tuple(cls, items, n);
}

static PyObject *
dec_ints(PyTypeObject *cls, const unsigned char *p, int n)
{
    PyObject *items[4];
    for (int i = 0; i < n; i++) {
        items[i] = PyLong_FromLong((long)(int32_t)ld_u32(p + 4 * i));
        if (items[i] == NULL) {
            for (int j = 0; j < i; j++)
                Py_DECREF(items[j]);
            return NULL;
        }
    }
    return make_tuple(cls, items, n);
}

/* dec_value, with the commonest values of Arrays and Dictionaries read inline. */
static inline PyObject *
dec_item(Dec *d, Py_ssize_t *ppos, long depth, int is_key)
{
    const Py_ssize_t hpos = *ppos;
    if (depth <= d->max_depth && d->end - hpos >= 8) {
        const unsigned char *p = d->buf + hpos;
        const uint32_t h = ld_u32(p);
        const uint32_t tid = h & d->mask;
        if ((Py_ssize_t)tid < d->n_types) {
            switch (d->vt[tid]) {
            case VT_STRING:
                *ppos = hpos + 4;
                return dec_string(d, ppos, is_key);
            case VT_INT:
                if (h & FLAG_64)
                    break;
                *ppos = hpos + 8;
                return PyLong_FromLong((long)(int32_t)ld_u32(p + 4));
            case VT_FLOAT: {
                if (h & FLAG_64)
                    break;
                double x = PyFloat_Unpack4((const char *)p + 4, 1);
                if (x == -1.0 && PyErr_Occurred())
                    return NULL;
                *ppos = hpos + 8;
                return PyFloat_FromDouble(x);
            }
            case VT_BOOL:
                *ppos = hpos + 8;
                return PyBool_FromLong(ld_u32(p + 4) != 0);
            default:
                break;
            }
        }
    }
    return dec_value(d, ppos, depth, is_key);
}

/* The rest of a Dictionary, `left` entries, whose first key `key` (stolen) is not a str
 * while the keys before it were (those entries are in `dict`, stolen): every pair goes to
 * the reference build_dictionary, which decides between dict and Dictionary.  The entries
 * so far are given as `dict` holds them -- a repeated str key once, with its last value --
 * which gives build_dictionary's answer for the pairs as read: a repeated str key is one
 * entry there too, at its first place, with its last value. */
static PyObject *
dec_mixed_dict(Dec *d, PyObject *dict, PyObject *key, Py_ssize_t *ppos, long depth,
               Py_ssize_t left)
{
    PyObject *res = NULL, *pairs = pairs_of_dict(dict);
    if (pairs == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < left; i++) {
        if (key == NULL && (key = dec_item(d, ppos, depth + 1, 1)) == NULL)
            goto done;
        PyObject *value = dec_item(d, ppos, depth + 1, 0);
        if (value == NULL)
            goto done;
        int rc = append_pair(pairs, key, value);
        key = NULL;
        if (rc < 0)
            goto done;
    }
    res = PyObject_CallOneArg(G.build_dictionary, pairs);
done:
    Py_XDECREF(key);
    Py_XDECREF(pairs);
    Py_DECREF(dict);
    return res;
}

/* The rest of a Dictionary, `left` entries, the first of whose keys (`key`, stolen) was
 * read; `dict` (stolen) holds the entries before, all with str keys.  Entries with str keys
 * go into the dict one at a time: a repeated key keeps its first place and takes its last
 * value there, as in the dict the reference's build_dictionary makes.  At a key of another
 * type: dec_mixed_dict. */
static PyObject *
dec_dict_rest(Dec *d, PyObject *dict, PyObject *key, Py_ssize_t *ppos, long depth,
              Py_ssize_t left)
{
    for (Py_ssize_t i = 0; i < left; i++) {
        if (key == NULL && (key = dec_item(d, ppos, depth + 1, 1)) == NULL)
            goto fail;
        if (!PyUnicode_CheckExact(key))
            return dec_mixed_dict(d, dict, key, ppos, depth, left - i);
        PyObject *value = dec_item(d, ppos, depth + 1, 0);
        if (value == NULL)
            goto fail;
        int rc = PyDict_SetItem(dict, key, value);
        Py_DECREF(key);
        Py_DECREF(value);
        key = NULL;
        if (rc < 0)
            goto fail;
    }
    return dict;
fail:
    Py_XDECREF(key);
    Py_DECREF(dict);
    return NULL;
}

static PyObject *
dec_value(Dec *d, Py_ssize_t *ppos, long depth, int is_key)
{
    const Py_ssize_t hpos = *ppos;
    if (depth > d->max_depth)
        return bail();
    if (d->end - hpos < 4)
        return bail();
    const uint32_t h = ld_u32(d->buf + hpos);
    const uint32_t tid = h & d->mask;
    if ((Py_ssize_t)tid >= d->n_types)
        return bail();
    Py_ssize_t pos = hpos + 4;
    const unsigned char *p = d->buf + pos;
    const Py_ssize_t left = d->end - pos;
    const int vt = d->vt[tid];
    PyObject *res;

    switch (vt) {
    case VT_NIL:
        *ppos = pos;
        Py_RETURN_NONE;
    case VT_BOOL:
        if (left < 4)
            return bail();
        *ppos = pos + 4;
        return PyBool_FromLong(ld_u32(p) != 0);
    case VT_INT:
        if (h & FLAG_64) {
            if (left < 8)
                return bail();
            *ppos = pos + 8;
            return PyLong_FromLongLong((long long)(int64_t)ld_u64(p));
        }
        if (left < 4)
            return bail();
        *ppos = pos + 4;
        return PyLong_FromLong((long)(int32_t)ld_u32(p));
    case VT_FLOAT: {
        double x;
        if (h & FLAG_64) {
            if (left < 8)
                return bail();
            x = PyFloat_Unpack8((const char *)p, 1);
            pos += 8;
        }
        else {
            if (left < 4)
                return bail();
            x = PyFloat_Unpack4((const char *)p, 1);
            pos += 4;
        }
        if (x == -1.0 && PyErr_Occurred())
            return NULL;
        *ppos = pos;
        return PyFloat_FromDouble(x);
    }
    case VT_STRING:
        *ppos = pos;
        res = dec_string(d, ppos, is_key);
        if (res == NULL)
            *ppos = hpos;
        return res;
    case VT_VECTOR2:
    case VT_VECTOR3:
    case VT_VECTOR4:
    case VT_QUATERNION:
    case VT_COLOR: {
        PyTypeObject *cls;
        int n;
        switch (vt) {
        case VT_VECTOR2: cls = G.vec2; n = 2; break;
        case VT_VECTOR3: cls = G.vec3; n = 3; break;
        case VT_VECTOR4: cls = G.vec4; n = 4; break;
        case VT_QUATERNION: cls = G.quat; n = 4; break;
        default: cls = G.color; n = 4; break;
        }
        int wide = vt != VT_COLOR && (d->flags & DF_MATH64) && (h & FLAG_64);
        Py_ssize_t size = (Py_ssize_t)n * (wide ? 8 : 4);
        if (left < size)
            return bail();
        res = dec_reals(cls, p, n, wide);
        if (res != NULL)
            *ppos = pos + size;
        return res;
    }
    case VT_VECTOR2I:
    case VT_VECTOR3I:
    case VT_VECTOR4I: {
        PyTypeObject *cls = vt == VT_VECTOR2I ? G.vec2i : vt == VT_VECTOR3I ? G.vec3i : G.vec4i;
        int n = vt == VT_VECTOR2I ? 2 : vt == VT_VECTOR3I ? 3 : 4;
        if (left < 4 * n)
            return bail();
        res = dec_ints(cls, p, n);
        if (res != NULL)
            *ppos = pos + 4 * n;
        return res;
    }
    case VT_ARRAY: {
        if (((d->flags & DF_TYPED) && ((h >> 16) & 3)) || depth >= C_DEPTH_CAP)
            return dec_fallback(d, hpos, ppos, depth);
        if (left < 4)
            return bail();
        Py_ssize_t count = (Py_ssize_t)(ld_u32(p) & 0x7FFFFFFFu);
        pos += 4;
        /* Every element takes at least a 4-byte header: the reference would fail. */
        if (count > (d->end - pos) / 4)
            return bail();
        PyObject *list = PyList_New(count);
        if (list == NULL)
            return NULL;
        for (Py_ssize_t i = 0; i < count; i++) {
            PyObject *item = dec_item(d, &pos, depth + 1, 0);
            if (item == NULL) {
                Py_DECREF(list);
                return NULL;
            }
            PyList_SET_ITEM(list, i, item);
        }
        *ppos = pos;
        return list;
    }
    case VT_DICTIONARY: {
        if (((d->flags & DF_TYPED) && ((h >> 16) & 15)) || depth >= C_DEPTH_CAP)
            return dec_fallback(d, hpos, ppos, depth);
        if (left < 4)
            return bail();
        Py_ssize_t count = (Py_ssize_t)(ld_u32(p) & 0x7FFFFFFFu);
        pos += 4;
        if (count > (d->end - pos) / 8) /* a key and a value: two headers at least */
            return bail();
#if PY_VERSION_HEX < 0x030D0000
        res = count ? _PyDict_NewPresized(count) : PyDict_New();
#else
        res = PyDict_New();
#endif
        if (res != NULL && (res = dec_dict_rest(d, res, NULL, &pos, depth, count)) != NULL)
            *ppos = pos;
        return res;
    }
    case VT_PACKED_BYTE_ARRAY: {
        if (left < 4)
            return bail();
        int32_t count = (int32_t)ld_u32(p);
        pos += 4;
        if (count < 0 || (Py_ssize_t)count > d->end - pos)
            return bail();
        res = PyBytes_FromStringAndSize((const char *)d->buf + pos, count);
        if (res != NULL) /* the pad may be missing at the end of the buffer */
            *ppos = pos + (((Py_ssize_t)count + 3) & ~(Py_ssize_t)3);
        return res;
    }
    case VT_PACKED_STRING_ARRAY: {
        if (left < 4)
            return bail();
        int32_t count = (int32_t)ld_u32(p);
        pos += 4;
        if (count > 0 && (Py_ssize_t)count > (d->end - pos) / 4)
            return bail();
        PyObject *out = PyObject_CallNoArgs((PyObject *)G.psa);
        if (out == NULL)
            return NULL;
        for (int32_t i = 0; i < count; i++) {
            PyObject *s = dec_string(d, &pos, 0);
            if (s == NULL || PyList_Append(out, s) < 0) {
                Py_XDECREF(s);
                Py_DECREF(out);
                return NULL;
            }
            Py_DECREF(s);
        }
        *ppos = pos;
        return out;
    }
    default:
        return dec_fallback(d, hpos, ppos, depth);
    }
}

PyDoc_STRVAR(decode_doc,
"decode(buf, offset, types, mask, flags, max_depth, get_reader) -> (value, end)\n\n"
"Decode the Variant at `offset` of the byte buffer `buf`. `types` (bytes) gives the\n"
"VariantType of each wire id, `mask` extracts the id from a header, `flags` holds the\n"
"profile's typed-container (1), 64-bit-math (2) and surrogate (4) bits. `get_reader()`\n"
"returns the reference read_value(pos, depth) over the same buffer, used for the types\n"
"this module leaves to Python. Raises Unsupported (or whatever the fallback raised)\n"
"on any problem; the caller then runs the reference decoder.");

static PyObject *
sp_decode(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7)
        return bail();
    if (!G.ready) {
        PyErr_SetString(PyExc_RuntimeError, "_speedups.configure() was not called");
        return NULL;
    }
    Py_ssize_t offset = PyLong_AsSsize_t(args[1]);
    if (offset == -1 && PyErr_Occurred())
        return NULL;
    if (!PyBytes_CheckExact(args[2]))
        return bail();
    unsigned long mask = PyLong_AsUnsignedLong(args[3]);
    if (mask == (unsigned long)-1 && PyErr_Occurred())
        return NULL;
    long flags = PyLong_AsLong(args[4]);
    if (flags == -1 && PyErr_Occurred())
        return NULL;
    long max_depth = PyLong_AsLong(args[5]);
    if (max_depth == -1 && PyErr_Occurred())
        return NULL;

    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    Dec d;
    memset(&d, 0, sizeof d);
    d.buf = view.buf;
    d.end = view.len;
    d.vt = (const unsigned char *)PyBytes_AS_STRING(args[2]);
    d.n_types = PyBytes_GET_SIZE(args[2]);
    d.mask = (uint32_t)mask;
    d.flags = (int)flags;
    d.max_depth = max_depth;
    d.get_reader = args[6];

    PyObject *result = NULL;
    for (Py_ssize_t i = 0; i < d.n_types; i++) {
        if (d.vt[i] >= VT_COUNT)
            goto done;
    }
    if (mask > 0xFFFFFFFFul || offset < 0 || offset > d.end || max_depth < 0) {
        bail();
        goto done;
    }
    Py_ssize_t pos = offset;
    /* The values made here are new and acyclic: a collection in the middle of the decode
     * cannot free any of them and would only traverse them (and everything else alive)
     * again and again. Pause the cyclic GC for the call, as msgpack advises its users. */
    int gc_was_enabled = PyGC_Disable();
    PyObject *value = dec_value(&d, &pos, 0, 0);
    if (gc_was_enabled)
        PyGC_Enable();
    if (value != NULL) {
        result = Py_BuildValue("(Nn)", value, pos);
    }
done:
    if (result == NULL && !PyErr_Occurred())
        bail();
    Py_XDECREF(d.reader);
    PyBuffer_Release(&view);
    return result;
}

/* ========================================================================================= */
/* Encoder                                                                                   */
/* ========================================================================================= */

typedef struct {
    OutBuf out;
    long wire[VT_COUNT]; /* wire id of each Variant type, -1 when the profile lacks it */
    int flags;
    long max_depth;
    PyObject *get_writer; /* borrowed: () -> write_one(value, depth) -> bytearray */
    PyObject *writer;     /* owned, made on first use */
} Enc;

static int enc_value(Enc *e, PyObject *v, long depth);

/* The reference writer, for one value; appends its bytes. */
static int
enc_fallback(Enc *e, PyObject *v, long depth)
{
    if (e->writer == NULL) {
        e->writer = PyObject_CallNoArgs(e->get_writer);
        if (e->writer == NULL)
            return -1;
    }
    PyObject *args[2];
    args[0] = v;
    args[1] = PyLong_FromLong(depth);
    if (args[1] == NULL)
        return -1;
    PyObject *res = PyObject_Vectorcall(e->writer, args, 2, NULL);
    Py_DECREF(args[1]);
    if (res == NULL)
        return -1;
    if (!PyByteArray_CheckExact(res)) {
        Py_DECREF(res);
        bail();
        return -1;
    }
    Py_ssize_t n = PyByteArray_GET_SIZE(res);
    int rc = out_reserve(&e->out, n);
    if (rc == 0)
        put_raw(&e->out, PyByteArray_AS_STRING(res), n);
    Py_DECREF(res);
    return rc;
}

/* put_string of the reference: u32 length, bytes, zero pad. */
static int
enc_string(Enc *e, uint32_t header, PyObject *s)
{
    const char *data;
    Py_ssize_t n;
    PyObject *owner;
    if (utf8_of(s, e->flags & EF_SURROGATES, &data, &n, &owner) < 0)
        return -1;
    if (n > 0xFFFFFFFFll) {
        Py_XDECREF(owner);
        bail();
        return -1;
    }
    if (out_reserve(&e->out, n + 12) < 0) {
        Py_XDECREF(owner);
        return -1;
    }
    put_u32(&e->out, header);
    put_u32(&e->out, (uint32_t)n);
    put_raw(&e->out, data, n);
    put_pad(&e->out, n);
    Py_XDECREF(owner);
    return 0;
}

/* Vector2/3/4, Quaternion (real_t: f32, or f64 with the flag) and Color (always f32).
 * Returns 1 when the value must go to the fallback instead. */
static int
enc_reals(Enc *e, PyObject *v, int vt, int n)
{
    long wid = e->wire[vt];
    if (wid < 0 || PyTuple_GET_SIZE(v) != n)
        return 1;
    int wide = vt != VT_COLOR && (e->flags & EF_DOUBLE);
    double x[4];
    for (int i = 0; i < n; i++) {
        if (real_of(PyTuple_GET_ITEM(v, i), &x[i]) < 0)
            return 1;
    }
    if (out_reserve(&e->out, 4 + 8 * n) < 0)
        return -1;
    Py_ssize_t start = e->out.len;
    put_u32(&e->out, (uint32_t)wid | (wide ? FLAG_64 : 0));
    for (int i = 0; i < n; i++) {
        if (wide) {
            if (PyFloat_Pack8(x[i], e->out.buf + e->out.len, 1) < 0)
                goto fail;
            e->out.len += 8;
        }
        else {
            if (PyFloat_Pack4(x[i], e->out.buf + e->out.len, 1) < 0) {
                /* Past the float32 range: `float f = x` stores an infinity (_real32) -- for
                 * a float; struct refuses such an int, so the reference decides then. */
                if (!PyErr_ExceptionMatches(PyExc_OverflowError))
                    goto fail;
                if (!PyFloat_CheckExact(PyTuple_GET_ITEM(v, i))) {
                    PyErr_Clear();
                    e->out.len = start;
                    return 1;
                }
                PyErr_Clear();
                if (PyFloat_Pack4(copysign(Py_HUGE_VAL, x[i]), e->out.buf + e->out.len, 1) < 0)
                    goto fail;
            }
            e->out.len += 4;
        }
    }
    return 0;
fail:
    e->out.len = start;
    PyErr_Clear();
    bail();
    return -1;
}

static int
enc_ints(Enc *e, PyObject *v, int vt, int n)
{
    long wid = e->wire[vt];
    if (wid < 0 || PyTuple_GET_SIZE(v) != n)
        return 1;
    int32_t c[4];
    for (int i = 0; i < n; i++) {
        PyObject *item = PyTuple_GET_ITEM(v, i);
        if (!PyLong_CheckExact(item))
            return 1;
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(item, &overflow);
        if (overflow || x < INT32_MIN || x > INT32_MAX)
            return 1;
        c[i] = (int32_t)x;
    }
    if (out_reserve(&e->out, 4 + 4 * n) < 0)
        return -1;
    put_u32(&e->out, (uint32_t)wid);
    for (int i = 0; i < n; i++)
        put_u32(&e->out, (uint32_t)c[i]);
    return 0;
}

/* PackedStringArray of exact str: u32 count, then per string u32 (len + nul), bytes, NUL
 * (engines), zero pad.  Returns 1 when the value must go to the fallback instead. */
static int
enc_strings(Enc *e, PyObject *v)
{
    long wid = e->wire[VT_PACKED_STRING_ARRAY];
    Py_ssize_t count = PyList_GET_SIZE(v);
    if (wid < 0 || count > 0xFFFFFFFFll)
        return 1;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (!PyUnicode_CheckExact(PyList_GET_ITEM(v, i)))
            return 1;
    }
    int nul = (e->flags & EF_PSA_NUL) ? 1 : 0;
    Py_ssize_t start = e->out.len;
    if (out_reserve(&e->out, 8) < 0)
        return -1;
    put_u32(&e->out, (uint32_t)wid);
    put_u32(&e->out, (uint32_t)count);
    for (Py_ssize_t i = 0; i < count; i++) {
        const char *data;
        Py_ssize_t n;
        PyObject *owner;
        if (utf8_of(PyList_GET_ITEM(v, i), e->flags & EF_SURROGATES, &data, &n, &owner) < 0)
            goto fail;
        Py_ssize_t total = n + nul;
        if (total > 0xFFFFFFFFll || out_reserve(&e->out, total + 8) < 0) {
            Py_XDECREF(owner);
            goto fail;
        }
        put_u32(&e->out, (uint32_t)total);
        put_raw(&e->out, data, n);
        if (nul)
            e->out.buf[e->out.len++] = 0;
        put_pad(&e->out, total);
        Py_XDECREF(owner);
    }
    return 0;
fail:
    e->out.len = start;
    if (!PyErr_Occurred())
        bail();
    return -1;
}

static int
enc_value(Enc *e, PyObject *v, long depth)
{
    if (depth > e->max_depth) {
        bail();
        return -1;
    }
    PyTypeObject *t = Py_TYPE(v);
    long wid;
    int rc;

    if (t == &PyUnicode_Type) {
        wid = e->wire[VT_STRING];
        if (wid < 0)
            return enc_fallback(e, v, depth);
        return enc_string(e, (uint32_t)wid, v);
    }
    if (t == &PyLong_Type) {
        wid = e->wire[VT_INT];
        if (wid < 0)
            return enc_fallback(e, v, depth);
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (x == -1 && PyErr_Occurred())
            return -1;
        if (overflow) { /* outside int64: EncodeError in the reference */
            bail();
            return -1;
        }
        if (out_reserve(&e->out, 12) < 0)
            return -1;
        if (x >= INT32_MIN && x <= INT32_MAX) {
            put_u32(&e->out, (uint32_t)wid);
            put_u32(&e->out, (uint32_t)(int32_t)x);
        }
        else {
            put_u32(&e->out, (uint32_t)wid | FLAG_64);
            put_u64(&e->out, (uint64_t)x);
        }
        return 0;
    }
    if (t == &PyFloat_Type) {
        wid = e->wire[VT_FLOAT];
        if (wid < 0)
            return enc_fallback(e, v, depth);
        double x = PyFloat_AS_DOUBLE(v);
        if (out_reserve(&e->out, 12) < 0)
            return -1;
        char *p = e->out.buf + e->out.len + 4;
        /* is_float32: struct's f32 round trip equals the value (an overflow says no). */
        int is32 = 0;
        if (PyFloat_Pack4(x, p, 1) == 0) {
            double back = PyFloat_Unpack4(p, 1);
            if (back == -1.0 && PyErr_Occurred())
                return -1;
            is32 = back == x;
        }
        else
            PyErr_Clear();
        if (is32) {
            put_u32(&e->out, (uint32_t)wid);
            e->out.len += 4;
        }
        else {
            put_u32(&e->out, (uint32_t)wid | FLAG_64);
            if (PyFloat_Pack8(x, e->out.buf + e->out.len, 1) < 0)
                return -1;
            e->out.len += 8;
        }
        return 0;
    }
    if (t == &PyDict_Type) {
        wid = e->wire[VT_DICTIONARY];
        Py_ssize_t n = PyDict_GET_SIZE(v);
        if (wid < 0 || depth >= C_DEPTH_CAP || n > 0xFFFFFFFFll)
            return enc_fallback(e, v, depth);
        if (out_reserve(&e->out, 8) < 0)
            return -1;
        put_u32(&e->out, (uint32_t)wid);
        put_u32(&e->out, (uint32_t)n);
        Py_ssize_t i = 0;
        PyObject *key, *value;
        while (PyDict_Next(v, &i, &key, &value)) {
            Py_INCREF(key);
            Py_INCREF(value);
            rc = enc_value(e, key, depth + 1);
            if (rc == 0)
                rc = enc_value(e, value, depth + 1);
            Py_DECREF(key);
            Py_DECREF(value);
            if (rc < 0)
                return -1;
            if (PyDict_GET_SIZE(v) != n) { /* changed under us: the reference decides */
                bail();
                return -1;
            }
        }
        return 0;
    }
    if (t == &PyList_Type || t == &PyTuple_Type) {
        wid = e->wire[VT_ARRAY];
        Py_ssize_t n = Py_SIZE(v);
        if (wid < 0 || depth >= C_DEPTH_CAP || n > 0xFFFFFFFFll)
            return enc_fallback(e, v, depth);
        if (out_reserve(&e->out, 8) < 0)
            return -1;
        put_u32(&e->out, (uint32_t)wid);
        put_u32(&e->out, (uint32_t)n);
        for (Py_ssize_t i = 0; i < n; i++) {
            if (Py_SIZE(v) != n) { /* a list changed under us */
                bail();
                return -1;
            }
            PyObject *item = t == &PyList_Type ? PyList_GET_ITEM(v, i) : PyTuple_GET_ITEM(v, i);
            Py_INCREF(item);
            rc = enc_value(e, item, depth + 1);
            Py_DECREF(item);
            if (rc < 0)
                return -1;
        }
        return 0;
    }
    if (v == Py_None) {
        wid = e->wire[VT_NIL];
        if (wid < 0)
            return enc_fallback(e, v, depth);
        if (out_reserve(&e->out, 4) < 0)
            return -1;
        put_u32(&e->out, (uint32_t)wid);
        return 0;
    }
    if (t == &PyBool_Type) {
        wid = e->wire[VT_BOOL];
        if (wid < 0)
            return enc_fallback(e, v, depth);
        if (out_reserve(&e->out, 8) < 0)
            return -1;
        put_u32(&e->out, (uint32_t)wid);
        put_u32(&e->out, v == Py_True ? 1 : 0);
        return 0;
    }
    if (t == &PyBytes_Type || t == &PyByteArray_Type) {
        wid = e->wire[VT_PACKED_BYTE_ARRAY];
        Py_ssize_t n = t == &PyBytes_Type ? PyBytes_GET_SIZE(v) : PyByteArray_GET_SIZE(v);
        if (wid < 0 || n > 0xFFFFFFFFll)
            return enc_fallback(e, v, depth);
        if (out_reserve(&e->out, n + 12) < 0)
            return -1;
        put_u32(&e->out, (uint32_t)wid);
        put_u32(&e->out, (uint32_t)n);
        put_raw(&e->out, t == &PyBytes_Type ? PyBytes_AS_STRING(v) : PyByteArray_AS_STRING(v), n);
        put_pad(&e->out, n);
        return 0;
    }
    rc = 1;
    if (t == G.vec3)
        rc = enc_reals(e, v, VT_VECTOR3, 3);
    else if (t == G.vec2)
        rc = enc_reals(e, v, VT_VECTOR2, 2);
    else if (t == G.vec4)
        rc = enc_reals(e, v, VT_VECTOR4, 4);
    else if (t == G.quat)
        rc = enc_reals(e, v, VT_QUATERNION, 4);
    else if (t == G.color)
        rc = enc_reals(e, v, VT_COLOR, 4);
    else if (t == G.vec2i)
        rc = enc_ints(e, v, VT_VECTOR2I, 2);
    else if (t == G.vec3i)
        rc = enc_ints(e, v, VT_VECTOR3I, 3);
    else if (t == G.vec4i)
        rc = enc_ints(e, v, VT_VECTOR4I, 4);
    else if (t == G.psa)
        rc = enc_strings(e, v);
    if (rc <= 0)
        return rc;
    return enc_fallback(e, v, depth);
}

PyDoc_STRVAR(encode_doc,
"encode(value, wire_ids, flags, max_depth, get_writer) -> bytes\n\n"
"Encode `value`. `wire_ids` (tuple) gives the wire id of each VariantType, -1 when the\n"
"profile lacks it; `flags` holds double_precision (1), the profile's surrogate (2) and\n"
"PackedStringArray-NUL (4) bits. `get_writer()` returns write_one(value, depth) that\n"
"encodes one value with the reference writer and returns a bytearray of its bytes.\n"
"Raises Unsupported (or whatever the fallback raised) on any problem; the caller then\n"
"runs the reference encoder.");

static PyObject *
sp_encode(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5)
        return bail();
    if (!G.ready) {
        PyErr_SetString(PyExc_RuntimeError, "_speedups.configure() was not called");
        return NULL;
    }
    Enc e;
    memset(&e, 0, sizeof e);
    PyObject *ids = args[1];
    if (!PyTuple_CheckExact(ids) || PyTuple_GET_SIZE(ids) != VT_COUNT)
        return bail();
    for (int i = 0; i < VT_COUNT; i++) {
        e.wire[i] = PyLong_AsLong(PyTuple_GET_ITEM(ids, i));
        if (e.wire[i] == -1 && PyErr_Occurred())
            return NULL;
        if (e.wire[i] > 0xFFFF)
            return bail();
    }
    long flags = PyLong_AsLong(args[2]);
    if (flags == -1 && PyErr_Occurred())
        return NULL;
    e.flags = (int)flags;
    e.max_depth = PyLong_AsLong(args[3]);
    if (e.max_depth == -1 && PyErr_Occurred())
        return NULL;
    e.get_writer = args[4];

    PyObject *result = NULL;
    if (e.max_depth >= 0 && enc_value(&e, args[0], 0) == 0)
        result = PyBytes_FromStringAndSize(e.out.buf, e.out.len);
    else if (!PyErr_Occurred())
        bail();
    PyMem_Free(e.out.buf);
    Py_XDECREF(e.writer);
    return result;
}

/* ========================================================================================= */
/* Module                                                                                    */
/* ========================================================================================= */

PyDoc_STRVAR(configure_doc,
"configure(Vector2, Vector2i, Vector3, Vector3i, Vector4, Vector4i, Quaternion, Color,\n"
"          PackedStringArray, build_dictionary)\n\n"
"Give the module the value classes it builds and the reference build_dictionary.");

static PyObject *
sp_configure(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 10) {
        PyErr_SetString(PyExc_TypeError, "configure() takes 10 arguments");
        return NULL;
    }
    for (int i = 0; i < 9; i++) {
        PyObject *c = args[i];
        if (!PyType_Check(c)) {
            PyErr_SetString(PyExc_TypeError, "configure(): classes expected");
            return NULL;
        }
        PyTypeObject *t = (PyTypeObject *)c;
        PyTypeObject *base = i < 8 ? &PyTuple_Type : &PyList_Type;
        /* The math classes must be plain tuple subclasses without a __dict__, so that
         * tp_alloc plus the items is exactly tuple.__new__(cls, items). */
        if (!PyType_IsSubtype(t, base) || t == base || (i < 8 && t->tp_dictoffset != 0)) {
            PyErr_SetString(PyExc_TypeError, "configure(): unexpected value class");
            return NULL;
        }
    }
    if (!PyCallable_Check(args[9])) {
        PyErr_SetString(PyExc_TypeError, "configure(): build_dictionary must be callable");
        return NULL;
    }
    PyTypeObject **slots[9] = {&G.vec2, &G.vec2i, &G.vec3, &G.vec3i, &G.vec4, &G.vec4i,
                               &G.quat, &G.color, &G.psa};
    for (int i = 0; i < 9; i++) {
        Py_INCREF(args[i]);
        Py_XSETREF(*slots[i], (PyTypeObject *)args[i]);
    }
    Py_INCREF(args[9]);
    Py_XSETREF(G.build_dictionary, args[9]);
    G.ready = 1;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"decode", (PyCFunction)(void (*)(void))sp_decode, METH_FASTCALL, decode_doc},
    {"encode", (PyCFunction)(void (*)(void))sp_encode, METH_FASTCALL, encode_doc},
    {"configure", (PyCFunction)(void (*)(void))sp_configure, METH_FASTCALL, configure_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT,
    "gameserde.godot._speedups",
    "Optional C accelerator of the Godot Variant codec; see gameserde/godot/_accel.py.",
    -1,
    methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    PyObject *m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    Unsupported = PyErr_NewException("gameserde.godot._speedups.Unsupported", NULL, NULL);
    if (Unsupported == NULL || PyModule_AddObjectRef(m, "Unsupported", Unsupported) < 0 ||
        PyModule_AddIntConstant(m, "API_VERSION", API_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
