/*
 * Optional C twin of the hot path of the Variant encoding of binary resource files
 * (gameserde.godot.resource.binary_variant: resource_format_binary.cpp).
 *
 * The pure-Python VariantReader and VariantWriter are the reference; this module only makes
 * the common types fast and must give exactly the same values, bytes and bookkeeping.  It
 * handles inline, for little-endian files: NIL, BOOL, INT, FLOAT, STRING, VECTOR2, VECTOR3,
 * COLOR, VECTOR2I, VECTOR3I, ARRAY, DICTIONARY, PACKED_BYTE_ARRAY, PACKED_STRING_ARRAY,
 * INT64 and DOUBLE (the writer: Vector2i/3i only for Godot 4 formats, exact str/list/dict
 * only).  Every other value (Objects, NodePaths, StringNames, the other math types, packed
 * arrays, typed containers, subclasses) goes to a Python fallback: the reference, for that one
 * value.  Whenever anything goes wrong -- truncated input, an unknown id, bad UTF-8, too
 * deep, an int out of range -- it raises `Unsupported` (or lets the Python exception through)
 * and the glue (gameserde/godot/resource/_accel.py) restores the reader's or writer's state
 * and runs the reference over the whole value, which then gives the result or the exact
 * DecodeError/EncodeError.  So this file never formats an error message.
 *
 * The bookkeeping is the reference's: every int, float, None (NIL or a null Object) counts
 * one `choice`, in file order, and the reader notes in `overrides` (choice number -> tag) an
 * INT64 holding an int32 value, an INT where the file's version writes INT64, a DOUBLE that
 * float32 holds, a NaN stored as FLOAT; the writer follows those tags as the reference does.
 * The count travels to and from the fallback with each value it is handed.
 *
 * Safety rules: every length is checked against the bytes left before memory is touched;
 * nesting is capped at the reference's MAX_DEPTH (past it: Unsupported, and the reference
 * raises its error).  The cyclic GC is paused while reading (everything built is new and
 * acyclic).  Helpers common with the other Godot twin live in ../_variant_common.h.
 */

#include "../_variant_common.h"
#include <math.h>

#define API_VERSION 1

/* The saver's VARIANT_* ids (binary_variant.py). */
enum {
    V_NIL = 1, V_BOOL = 2, V_INT = 3, V_FLOAT = 4, V_STRING = 5, V_VECTOR2 = 10,
    V_VECTOR3 = 12, V_COLOR = 20, V_OBJECT = 24, V_DICTIONARY = 26, V_ARRAY = 30,
    V_PACKED_BYTE = 31, V_PACKED_STRING = 34, V_INT64 = 40, V_DOUBLE = 41, V_VECTOR2I = 45,
    V_VECTOR3I = 47
};

#define COUNT_MASK 0x7FFFFFFFu /* an Array's or Dictionary's count; bit 31 once meant shared */
#define OBJECT_EMPTY 0

/* Flags of read() and write(). */
#define F_REAL64 1        /* real_t is double (FORMAT_FLAG_REAL_T_IS_DOUBLE) */
#define F_ALWAYS_INT64 2  /* Godot 3.0/3.1: every int was written as INT64 */
#define F_GODOT4 4        /* format >= 4: Godot 4's types may be written */

/* Override tags, by index in configure()'s tuple. */
enum { TAG_INT64, TAG_INT32, TAG_DOUBLE, TAG_FLOAT, TAG_OBJECT, N_TAGS };

/* Set by configure(). */
static struct {
    PyTypeObject *vec2, *vec2i, *vec3, *vec3i, *color, *psa;
    PyObject *build_dictionary;
    PyObject *read_one;  /* (reader, pos, depth, choice) -> (value, end, choice) */
    PyObject *write_one; /* (writer, value, depth, choice) -> (bytearray, choice) */
    PyObject *tags[N_TAGS];
    long max_depth;
    int ready;
} G;

/* The saver's test: float f = x; (double)f == x, as struct's round trip (False for NaN and
 * past the float32 range). */
static int
fits_float32(double x)
{
    char b[4];
    if (PyFloat_Pack4(x, b, 1) < 0) {
        PyErr_Clear();
        return 0;
    }
    double back = PyFloat_Unpack4(b, 1);
    if (back == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    return back == x;
}

/* ========================================================================================= */
/* Reader                                                                                    */
/* ========================================================================================= */

typedef struct {
    const unsigned char *buf;
    Py_ssize_t end;
    int flags;
    long long choice;    /* choices counted so far (the reader's `choice`) */
    PyObject *overrides; /* borrowed dict: choice number -> tag */
    PyObject *reader;    /* borrowed: the VariantReader, for the fallback */
} Rd;

static PyObject *rd_value(Rd *r, Py_ssize_t *ppos, long depth, int is_key);

/* Note `tag` for the choice just counted, as VariantReader.note does. */
static int
rd_note(Rd *r, int tag)
{
    PyObject *k = PyLong_FromLongLong(r->choice - 1);
    if (k == NULL)
        return -1;
    int rc = PyDict_SetItem(r->overrides, k, G.tags[tag]);
    Py_DECREF(k);
    return rc;
}

/* Hand the value whose header is at `hpos` to the reference reader. */
static PyObject *
rd_fallback(Rd *r, Py_ssize_t hpos, Py_ssize_t *ppos, long depth)
{
    PyObject *res = PyObject_CallFunction(G.read_one, "OnlL", r->reader, hpos, depth,
                                          r->choice);
    if (res == NULL)
        return NULL;
    if (!PyTuple_CheckExact(res) || PyTuple_GET_SIZE(res) != 3) {
        Py_DECREF(res);
        return bail();
    }
    Py_ssize_t next = PyLong_AsSsize_t(PyTuple_GET_ITEM(res, 1));
    long long choice = PyLong_AsLongLong(PyTuple_GET_ITEM(res, 2));
    if (PyErr_Occurred()) {
        Py_DECREF(res);
        return NULL;
    }
    PyObject *value = PyTuple_GET_ITEM(res, 0);
    Py_INCREF(value);
    Py_DECREF(res);
    r->choice = choice;
    *ppos = next;
    return value;
}

/* VariantReader.string: u32 length (counting the closing NUL), the bytes, no padding; the
 * text ends at its first NUL and is strict UTF-8. */
static PyObject *
rd_string(Rd *r, Py_ssize_t *ppos, int is_key)
{
    Py_ssize_t start = *ppos + 4;
    if (r->end - *ppos < 4)
        return bail();
    uint32_t n = ld_u32(r->buf + *ppos);
    if ((int64_t)n > (int64_t)(r->end - start))
        return bail();
    const unsigned char *raw = r->buf + start;
    Py_ssize_t len = (Py_ssize_t)n;
    PyObject *s;
    /* scan_short reads up to the next multiple of 4 bytes: only where they are there. */
    if (len <= SHORT_MAX && ((len + 3) & ~(Py_ssize_t)3) <= r->end - start) {
        uint64_t words[SHORT_MAX / 8];
        int ascii;
        size_t hash;
        Py_ssize_t cut = scan_short(raw, len, words, &ascii, &hash);
        if (ascii) {
            s = short_ascii(raw, cut, words, hash, is_key);
            if (s != NULL)
                *ppos = start + len;
            return s;
        }
    }
    const unsigned char *nul = len ? memchr(raw, 0, (size_t)len) : NULL;
    s = PyUnicode_DecodeUTF8((const char *)raw, nul != NULL ? nul - raw : len, NULL);
    if (s != NULL)
        *ppos = start + len;
    return s;
}

/* n real_t components (f32, or f64 with F_REAL64; Color always f32) as a NamedTuple. */
static PyObject *
rd_reals(Rd *r, PyTypeObject *cls, Py_ssize_t *ppos, int n, int wide)
{
    Py_ssize_t size = (Py_ssize_t)n * (wide ? 8 : 4);
    if (r->end - *ppos < size)
        return bail();
    const char *p = (const char *)r->buf + *ppos;
    PyObject *items[4];
    for (int i = 0; i < n; i++) {
        double x = wide ? PyFloat_Unpack8(p + 8 * i, 1) : PyFloat_Unpack4(p + 4 * i, 1);
        items[i] = (x == -1.0 && PyErr_Occurred()) ? NULL : PyFloat_FromDouble(x);
        if (items[i] == NULL) {
            for (int j = 0; j < i; j++)
                Py_DECREF(items[j]);
            return NULL;
        }
    }
    *ppos += size;
    return make_tuple(cls, items, n);
}

static PyObject *
rd_ints(Rd *r, PyTypeObject *cls, Py_ssize_t *ppos, int n)
{
    if (r->end - *ppos < 4 * n)
        return bail();
    PyObject *items[3];
    for (int i = 0; i < n; i++) {
        items[i] = PyLong_FromLong((long)(int32_t)ld_u32(r->buf + *ppos + 4 * i));
        if (items[i] == NULL) {
            for (int j = 0; j < i; j++)
                Py_DECREF(items[j]);
            return NULL;
        }
    }
    *ppos += 4 * n;
    return make_tuple(cls, items, n);
}

/* The pairs of a Dictionary from its first key that is not a str on: `dict` (stolen) holds
 * the entries before, `key` (stolen) is that key, `left` entries remain from it.  All of them
 * go to the reference build_dictionary, which decides between dict and Dictionary (given
 * the earlier entries as the dict holds them -- a repeated str key once, at its first place,
 * with its last value -- it decides as it would for the pairs as read). */
static PyObject *
rd_mixed_dict(Rd *r, PyObject *dict, PyObject *key, Py_ssize_t *ppos, long depth,
              uint32_t left)
{
    PyObject *res = NULL, *pairs = pairs_of_dict(dict);
    if (pairs == NULL)
        goto done;
    for (uint32_t i = 0; i < left; i++) {
        if (key == NULL && (key = rd_value(r, ppos, depth, 1)) == NULL)
            goto done;
        PyObject *value = rd_value(r, ppos, depth, 0);
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

/* A Dictionary of `count` entries, its items at `depth`: a dict while every key is a str
 * (a repeated key keeps its first place and takes its last value, as dict(pairs) does). */
static PyObject *
rd_dict(Rd *r, Py_ssize_t *ppos, long depth, uint32_t count)
{
    PyObject *dict = PyDict_New();
    if (dict == NULL)
        return NULL;
    for (uint32_t i = 0; i < count; i++) {
        PyObject *key = rd_value(r, ppos, depth, 1);
        if (key == NULL)
            goto fail;
        if (!PyUnicode_CheckExact(key))
            return rd_mixed_dict(r, dict, key, ppos, depth, count - i);
        PyObject *value = rd_value(r, ppos, depth, 0);
        if (value == NULL) {
            Py_DECREF(key);
            goto fail;
        }
        int rc = PyDict_SetItem(dict, key, value);
        Py_DECREF(key);
        Py_DECREF(value);
        if (rc < 0)
            goto fail;
    }
    return dict;
fail:
    Py_DECREF(dict);
    return NULL;
}

/* The u32 count at *ppos of items taking at least `size` bytes each, checked against the
 * bytes left after it (VariantReader.count); -1 (no error set) when it does not fit. */
static int64_t
rd_count(Rd *r, Py_ssize_t *ppos, uint32_t mask, int64_t size)
{
    if (r->end - *ppos < 4)
        return -1;
    int64_t n = ld_u32(r->buf + *ppos) & mask;
    *ppos += 4;
    if (n * size > (int64_t)(r->end - *ppos))
        return -1;
    return n;
}

static PyObject *
rd_value(Rd *r, Py_ssize_t *ppos, long depth, int is_key)
{
    const Py_ssize_t hpos = *ppos;
    if (r->end - hpos < 4)
        return bail();
    const uint32_t tid = ld_u32(r->buf + hpos);
    Py_ssize_t pos = hpos + 4;
    const unsigned char *p = r->buf + pos;
    const Py_ssize_t left = r->end - pos;
    PyObject *res;
    int64_t n;

    switch (tid) {
    case V_STRING:
        res = rd_string(r, &pos, is_key);
        break;
    case V_INT:
        if (left < 4)
            return bail();
        r->choice++;
        if ((r->flags & F_ALWAYS_INT64) && rd_note(r, TAG_INT32) < 0)
            return NULL;
        res = PyLong_FromLong((long)(int32_t)ld_u32(p));
        pos += 4;
        break;
    case V_FLOAT: {
        int wide = r->flags & F_REAL64;
        if (left < (wide ? 8 : 4))
            return bail();
        double x = wide ? PyFloat_Unpack8((const char *)p, 1)
                        : PyFloat_Unpack4((const char *)p, 1);
        if (x == -1.0 && PyErr_Occurred())
            return NULL;
        r->choice++;
        if (isnan(x) && rd_note(r, TAG_FLOAT) < 0)
            return NULL;
        res = PyFloat_FromDouble(x);
        pos += wide ? 8 : 4;
        break;
    }
    case V_NIL:
        r->choice++;
        res = Py_NewRef(Py_None);
        break;
    case V_BOOL:
        if (left < 4)
            return bail();
        res = PyBool_FromLong(ld_u32(p) != 0);
        pos += 4;
        break;
    case V_VECTOR2:
        res = rd_reals(r, G.vec2, &pos, 2, r->flags & F_REAL64);
        break;
    case V_VECTOR3:
        res = rd_reals(r, G.vec3, &pos, 3, r->flags & F_REAL64);
        break;
    case V_COLOR:
        res = rd_reals(r, G.color, &pos, 4, 0);
        break;
    case V_VECTOR2I:
        res = rd_ints(r, G.vec2i, &pos, 2);
        break;
    case V_VECTOR3I:
        res = rd_ints(r, G.vec3i, &pos, 3);
        break;
    case V_ARRAY:
    case V_DICTIONARY:
        if (depth >= G.max_depth)
            return bail();
        if ((n = rd_count(r, &pos, COUNT_MASK, tid == V_ARRAY ? 4 : 8)) < 0)
            return bail();
        if (tid == V_DICTIONARY) {
            res = rd_dict(r, &pos, depth + 1, (uint32_t)n);
            break;
        }
        res = PyList_New((Py_ssize_t)n);
        for (Py_ssize_t i = 0; res != NULL && i < (Py_ssize_t)n; i++) {
            PyObject *item = rd_value(r, &pos, depth + 1, 0);
            if (item == NULL)
                Py_CLEAR(res);
            else
                PyList_SET_ITEM(res, i, item);
        }
        break;
    case V_PACKED_BYTE:
        if ((n = rd_count(r, &pos, 0xFFFFFFFFu, 1)) < 0)
            return bail();
        res = PyBytes_FromStringAndSize((const char *)r->buf + pos, (Py_ssize_t)n);
        /* the pad may be missing at the end of the data */
        pos = Py_MIN(pos + (((Py_ssize_t)n + 3) & ~(Py_ssize_t)3), r->end);
        break;
    case V_PACKED_STRING:
        if ((n = rd_count(r, &pos, 0xFFFFFFFFu, 4)) < 0)
            return bail();
        res = PyObject_CallNoArgs((PyObject *)G.psa);
        for (int64_t i = 0; res != NULL && i < n; i++) {
            PyObject *s = rd_string(r, &pos, 0);
            if (s == NULL || PyList_Append(res, s) < 0)
                Py_CLEAR(res);
            Py_XDECREF(s);
        }
        break;
    case V_INT64: {
        if (left < 8)
            return bail();
        int64_t x = (int64_t)ld_u64(p);
        r->choice++;
        if (x >= INT32_MIN && x <= INT32_MAX && !(r->flags & F_ALWAYS_INT64) &&
            rd_note(r, TAG_INT64) < 0)
            return NULL;
        res = PyLong_FromLongLong((long long)x);
        pos += 8;
        break;
    }
    case V_DOUBLE: {
        if (left < 8)
            return bail();
        double x = PyFloat_Unpack8((const char *)p, 1);
        if (x == -1.0 && PyErr_Occurred())
            return NULL;
        r->choice++;
        if (fits_float32(x) && rd_note(r, TAG_DOUBLE) < 0)
            return NULL;
        res = PyFloat_FromDouble(x);
        pos += 8;
        break;
    }
    default:
        return rd_fallback(r, hpos, ppos, depth);
    }
    if (res != NULL)
        *ppos = pos;
    return res;
}

PyDoc_STRVAR(read_doc,
"read(buf, pos, reader, choice, flags, overrides) -> (value, end, choice)\n\n"
"Read the Variant at `pos` of the little-endian resource stream `buf` as the top-level\n"
"VariantReader.value does, counting choices from `choice` and noting tags in `overrides`.\n"
"`flags`: real_t double (1), always INT64 (2). `reader` is handed to the fallback\n"
"read_one. Raises Unsupported (or whatever the fallback raised) on any problem; the caller\n"
"then restores its state and runs the reference.");

static PyObject *
sp_read(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6 || !G.ready || !PyDict_CheckExact(args[5]))
        return bail();
    Py_ssize_t pos = PyLong_AsSsize_t(args[1]);
    long long choice = PyLong_AsLongLong(args[3]);
    long flags = PyLong_AsLong(args[4]);
    if (PyErr_Occurred())
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    Rd r = {view.buf, view.len, (int)flags, choice, args[5], args[2]};
    PyObject *result = NULL;
    if (pos >= 0 && pos <= r.end) {
        /* Everything made here is new and acyclic: a collection in the middle could free
         * none of it and would only traverse it (and all else alive) again and again. */
        int gc_was_enabled = PyGC_Disable();
        PyObject *value = rd_value(&r, &pos, 0, 0);
        if (gc_was_enabled)
            PyGC_Enable();
        if (value != NULL)
            result = Py_BuildValue("(NnL)", value, pos, r.choice);
    }
    else
        bail();
    PyBuffer_Release(&view);
    return result;
}

/* ========================================================================================= */
/* Writer                                                                                    */
/* ========================================================================================= */

typedef struct {
    OutBuf out;
    int flags;
    long long choice;    /* the writer's `choice` */
    PyObject *overrides; /* borrowed dict: choice number -> tag */
    PyObject *writer;    /* borrowed: the VariantWriter, for the fallback */
} Wr;

static int wr_value(Wr *w, PyObject *v, long depth);

/* Count a choice; 1 when `overrides` tags it `tag` (-1: no tag asked), else 0 (-1 on error). */
static int
wr_choice(Wr *w, int tag)
{
    long long c = w->choice++;
    if (tag < 0 || PyDict_GET_SIZE(w->overrides) == 0)
        return 0;
    PyObject *k = PyLong_FromLongLong(c);
    if (k == NULL)
        return -1;
    PyObject *t = PyDict_GetItemWithError(w->overrides, k);
    Py_DECREF(k);
    if (t == NULL)
        return PyErr_Occurred() ? -1 : 0;
    return PyObject_RichCompareBool(t, G.tags[tag], Py_EQ);
}

/* The reference writer, for one value; appends its bytes. */
static int
wr_fallback(Wr *w, PyObject *v, long depth)
{
    PyObject *res = PyObject_CallFunction(G.write_one, "OOlL", w->writer, v, depth,
                                          w->choice);
    if (res == NULL)
        return -1;
    if (!PyTuple_CheckExact(res) || PyTuple_GET_SIZE(res) != 2 ||
        !PyByteArray_CheckExact(PyTuple_GET_ITEM(res, 0))) {
        Py_DECREF(res);
        bail();
        return -1;
    }
    long long choice = PyLong_AsLongLong(PyTuple_GET_ITEM(res, 1));
    PyObject *data = PyTuple_GET_ITEM(res, 0);
    Py_ssize_t n = PyByteArray_GET_SIZE(data);
    int rc = (choice == -1 && PyErr_Occurred()) ? -1 : out_reserve(&w->out, n);
    if (rc == 0) {
        put_raw(&w->out, PyByteArray_AS_STRING(data), n);
        w->choice = choice;
    }
    Py_DECREF(res);
    return rc;
}

/* VariantWriter.string: u32 length with the closing NUL, UTF-8 (surrogatepass), NUL. */
static int
wr_string(Wr *w, PyObject *s)
{
    const char *data;
    Py_ssize_t n;
    PyObject *owner;
    if (utf8_of(s, 1, &data, &n, &owner) < 0)
        return -1;
    int rc = n < 0xFFFFFFFFll ? out_reserve(&w->out, n + 5) : (bail(), -1);
    if (rc == 0) {
        put_u32(&w->out, (uint32_t)(n + 1));
        put_raw(&w->out, data, n);
        w->out.buf[w->out.len++] = 0;
    }
    Py_XDECREF(owner);
    return rc;
}

/* Vector2/3 (real_t) and Color (f32) of exact floats or ints; 1: leave it to the fallback. */
static int
wr_reals(Wr *w, PyObject *v, uint32_t tid, int wide)
{
    Py_ssize_t n = PyTuple_GET_SIZE(v);
    double x[4];
    if (n > 4)
        return 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (real_of(PyTuple_GET_ITEM(v, i), &x[i]) < 0)
            return 1;
    }
    if (out_reserve(&w->out, 4 + 8 * n) < 0)
        return -1;
    Py_ssize_t start = w->out.len;
    put_u32(&w->out, tid);
    for (Py_ssize_t i = 0; i < n; i++) {
        char *p = w->out.buf + w->out.len;
        if ((wide ? PyFloat_Pack8(x[i], p, 1) : PyFloat_Pack4(x[i], p, 1)) < 0) {
            PyErr_Clear(); /* past the float32 range: the reference decides */
            w->out.len = start;
            return 1;
        }
        w->out.len += wide ? 8 : 4;
    }
    return 0;
}

/* Vector2i/3i of exact ints in the int32 range; 1: leave it to the fallback. */
static int
wr_ints(Wr *w, PyObject *v, uint32_t tid)
{
    Py_ssize_t n = PyTuple_GET_SIZE(v);
    int32_t c[3];
    if (n > 3)
        return 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyTuple_GET_ITEM(v, i);
        int overflow;
        long long x = PyLong_CheckExact(item) ? PyLong_AsLongLongAndOverflow(item, &overflow)
                                              : (overflow = 1, 0);
        if (overflow || x < INT32_MIN || x > INT32_MAX)
            return 1;
        c[i] = (int32_t)x;
    }
    if (out_reserve(&w->out, 4 + 4 * n) < 0)
        return -1;
    put_u32(&w->out, tid);
    for (Py_ssize_t i = 0; i < n; i++)
        put_u32(&w->out, (uint32_t)c[i]);
    return 0;
}

/* PackedStringArray of exact str; 1: leave it to the fallback. */
static int
wr_strings(Wr *w, PyObject *v)
{
    Py_ssize_t count = PyList_GET_SIZE(v);
    if (count > INT32_MAX)
        return 1;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (!PyUnicode_CheckExact(PyList_GET_ITEM(v, i)))
            return 1;
    }
    if (out_reserve(&w->out, 8) < 0)
        return -1;
    put_u32(&w->out, V_PACKED_STRING);
    put_u32(&w->out, (uint32_t)count);
    for (Py_ssize_t i = 0; i < count; i++) {
        if (PyList_GET_SIZE(v) != count) { /* changed under us: the reference decides */
            bail();
            return -1;
        }
        if (wr_string(w, PyList_GET_ITEM(v, i)) < 0)
            return -1;
    }
    return 0;
}

static int
wr_int(Wr *w, PyObject *v)
{
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred())
        return -1;
    int tagged = wr_choice(w, (w->flags & F_ALWAYS_INT64) ? TAG_INT32 : TAG_INT64);
    if (tagged < 0)
        return -1;
    int wide = (w->flags & F_ALWAYS_INT64) ? !tagged : tagged;
    if (overflow) { /* beyond 64 bits: EncodeError in the reference */
        bail();
        return -1;
    }
    if (out_reserve(&w->out, 12) < 0)
        return -1;
    if (x >= INT32_MIN && x <= INT32_MAX && !wide) {
        put_u32(&w->out, V_INT);
        put_u32(&w->out, (uint32_t)(int32_t)x);
    }
    else {
        put_u32(&w->out, V_INT64);
        put_u64(&w->out, (uint64_t)x);
    }
    return 0;
}

static int
wr_float(Wr *w, double x)
{
    /* FLOAT when float32 holds it unless tagged DOUBLE, a NaN when tagged FLOAT. */
    int fits = fits_float32(x);
    int tagged = wr_choice(w, isnan(x) ? TAG_FLOAT : fits ? TAG_DOUBLE : -1);
    if (tagged < 0 || out_reserve(&w->out, 12) < 0)
        return -1;
    char *p = w->out.buf + w->out.len + 4;
    int wide = w->flags & F_REAL64;
    if ((fits && !tagged) || (isnan(x) && tagged)) {
        put_u32(&w->out, V_FLOAT);
        if ((wide ? PyFloat_Pack8(x, p, 1) : PyFloat_Pack4(x, p, 1)) < 0)
            return -1;
        w->out.len += wide ? 8 : 4;
    }
    else {
        put_u32(&w->out, V_DOUBLE);
        if (PyFloat_Pack8(x, p, 1) < 0)
            return -1;
        w->out.len += 8;
    }
    return 0;
}

/* An exact list (Array) or dict (Dictionary), its items at depth + 1. */
static int
wr_container(Wr *w, PyObject *v, int is_list, long depth)
{
    Py_ssize_t n = is_list ? PyList_GET_SIZE(v) : PyDict_GET_SIZE(v);
    if (depth >= G.max_depth || n > INT32_MAX) { /* the reference's error */
        bail();
        return -1;
    }
    if (out_reserve(&w->out, 8) < 0)
        return -1;
    put_u32(&w->out, is_list ? V_ARRAY : V_DICTIONARY);
    put_u32(&w->out, (uint32_t)n);
    int rc = 0;
    if (is_list) {
        for (Py_ssize_t i = 0; rc == 0 && i < n; i++) {
            if (PyList_GET_SIZE(v) != n) { /* changed under us: the reference decides */
                bail();
                return -1;
            }
            PyObject *item = Py_NewRef(PyList_GET_ITEM(v, i));
            rc = wr_value(w, item, depth + 1);
            Py_DECREF(item);
        }
        return rc;
    }
    Py_ssize_t i = 0;
    PyObject *key, *item;
    while (rc == 0 && PyDict_Next(v, &i, &key, &item)) {
        Py_INCREF(key);
        Py_INCREF(item);
        rc = wr_value(w, key, depth + 1);
        if (rc == 0)
            rc = wr_value(w, item, depth + 1);
        Py_DECREF(key);
        Py_DECREF(item);
        if (rc == 0 && PyDict_GET_SIZE(v) != n) { /* changed under us */
            bail();
            return -1;
        }
    }
    return rc;
}

static int
wr_value(Wr *w, PyObject *v, long depth)
{
    PyTypeObject *t = Py_TYPE(v);
    int rc;

    if (t == &PyUnicode_Type) {
        if (out_reserve(&w->out, 4) < 0)
            return -1;
        put_u32(&w->out, V_STRING);
        return wr_string(w, v);
    }
    if (t == &PyLong_Type)
        return wr_int(w, v);
    if (t == &PyFloat_Type)
        return wr_float(w, PyFloat_AS_DOUBLE(v));
    if (t == &PyBool_Type || v == Py_None) {
        if (out_reserve(&w->out, 8) < 0)
            return -1;
        if (t == &PyBool_Type) {
            put_u32(&w->out, V_BOOL);
            put_u32(&w->out, v == Py_True);
            return 0;
        }
        if ((rc = wr_choice(w, TAG_OBJECT)) < 0)
            return -1;
        put_u32(&w->out, rc ? V_OBJECT : V_NIL);
        if (rc)
            put_u32(&w->out, OBJECT_EMPTY);
        return 0;
    }
    if (t == &PyList_Type || t == &PyDict_Type)
        return wr_container(w, v, t == &PyList_Type, depth);
    if (t == &PyBytes_Type || t == &PyByteArray_Type) {
        Py_ssize_t n = Py_SIZE(v);
        if (n > INT32_MAX) {
            bail();
            return -1;
        }
        if (out_reserve(&w->out, n + 12) < 0)
            return -1;
        put_u32(&w->out, V_PACKED_BYTE);
        put_u32(&w->out, (uint32_t)n);
        put_raw(&w->out, t == &PyBytes_Type ? PyBytes_AS_STRING(v) : PyByteArray_AS_STRING(v),
                n);
        put_pad(&w->out, n);
        return 0;
    }
    rc = 1;
    if (t == G.vec3)
        rc = wr_reals(w, v, V_VECTOR3, w->flags & F_REAL64);
    else if (t == G.vec2)
        rc = wr_reals(w, v, V_VECTOR2, w->flags & F_REAL64);
    else if (t == G.color)
        rc = wr_reals(w, v, V_COLOR, 0);
    else if (t == G.vec2i && (w->flags & F_GODOT4))
        rc = wr_ints(w, v, V_VECTOR2I);
    else if (t == G.vec3i && (w->flags & F_GODOT4))
        rc = wr_ints(w, v, V_VECTOR3I);
    else if (t == G.psa)
        rc = wr_strings(w, v);
    if (rc <= 0)
        return rc;
    return wr_fallback(w, v, depth);
}

PyDoc_STRVAR(write_doc,
"write(value, writer, choice, flags, overrides) -> (bytes, choice)\n\n"
"The encoding of `value` as the top-level VariantWriter.value writes it, counting choices\n"
"from `choice` and following the tags of `overrides`. `flags`: real_t double (1), always\n"
"INT64 (2), Godot 4 format (4). `writer` is handed to the fallback write_one. Raises\n"
"Unsupported (or whatever the fallback raised) on any problem; the caller then runs the\n"
"reference.");

static PyObject *
sp_write(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5 || !G.ready || !PyDict_CheckExact(args[4]))
        return bail();
    long long choice = PyLong_AsLongLong(args[2]);
    long flags = PyLong_AsLong(args[3]);
    if (PyErr_Occurred())
        return NULL;
    Wr w = {{NULL, 0, 0}, (int)flags, choice, args[4], args[1]};
    PyObject *result = NULL;
    if (wr_value(&w, args[0], 0) == 0)
        result = Py_BuildValue("(y#L)", w.out.buf ? w.out.buf : "", w.out.len, w.choice);
    PyMem_Free(w.out.buf);
    return result;
}

/* ========================================================================================= */
/* Module                                                                                    */
/* ========================================================================================= */

PyDoc_STRVAR(configure_doc,
"configure(Vector2, Vector2i, Vector3, Vector3i, Color, PackedStringArray,\n"
"          build_dictionary, read_one, write_one, tags, max_depth)\n\n"
"Give the module the value classes it builds, the reference build_dictionary, the\n"
"fallbacks, the override tags (INT64, INT32, DOUBLE, FLOAT, OBJECT) and MAX_DEPTH.");

static PyObject *
sp_configure(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 11 || !PyTuple_CheckExact(args[9]) || PyTuple_GET_SIZE(args[9]) != N_TAGS) {
        PyErr_SetString(PyExc_TypeError, "configure(): unexpected arguments");
        return NULL;
    }
    for (int i = 0; i < 6; i++) {
        PyTypeObject *t = (PyTypeObject *)args[i];
        PyTypeObject *base = i < 5 ? &PyTuple_Type : &PyList_Type;
        /* The math classes must be plain tuple subclasses without a __dict__, so that
         * tp_alloc plus the items is exactly tuple.__new__(cls, items). */
        if (!PyType_Check(args[i]) || !PyType_IsSubtype(t, base) || t == base ||
            (i < 5 && t->tp_dictoffset != 0)) {
            PyErr_SetString(PyExc_TypeError, "configure(): unexpected value class");
            return NULL;
        }
    }
    long max_depth = PyLong_AsLong(args[10]);
    if (max_depth == -1 && PyErr_Occurred())
        return NULL;
    PyTypeObject **slots[6] = {&G.vec2, &G.vec2i, &G.vec3, &G.vec3i, &G.color, &G.psa};
    for (int i = 0; i < 6; i++)
        Py_XSETREF(*slots[i], (PyTypeObject *)Py_NewRef(args[i]));
    Py_XSETREF(G.build_dictionary, Py_NewRef(args[6]));
    Py_XSETREF(G.read_one, Py_NewRef(args[7]));
    Py_XSETREF(G.write_one, Py_NewRef(args[8]));
    for (int i = 0; i < N_TAGS; i++)
        Py_XSETREF(G.tags[i], Py_NewRef(PyTuple_GET_ITEM(args[9], i)));
    G.max_depth = max_depth;
    G.ready = 1;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"read", (PyCFunction)(void (*)(void))sp_read, METH_FASTCALL, read_doc},
    {"write", (PyCFunction)(void (*)(void))sp_write, METH_FASTCALL, write_doc},
    {"configure", (PyCFunction)(void (*)(void))sp_configure, METH_FASTCALL, configure_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT,
    "gameserde.godot.resource._speedups",
    "Optional C accelerator of binary resource Variants; see "
    "gameserde/godot/resource/_accel.py.",
    -1,
    methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    PyObject *m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    Unsupported = PyErr_NewException("gameserde.godot.resource._speedups.Unsupported", NULL,
                                     NULL);
    if (Unsupported == NULL || PyModule_AddObjectRef(m, "Unsupported", Unsupported) < 0 ||
        PyModule_AddIntConstant(m, "API_VERSION", API_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
