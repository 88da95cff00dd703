/*
 * Optional C twin of gameserde.flatbuffers.reader.decode(): a whole buffer to dicts and lists.
 *
 * The pure-Python decode() (reader._decode_table and friends) is the reference; this module
 * must return exactly what it returns, for every buffer it accepts.  The give-up rule: on
 * ANY problem -- an offset or length out of bounds, a vtable past the end, tables nested
 * deeper than MAX_DEPTH, a field the program marks OP_GIVEUP (64-bit offsets, flexbuffer
 * fields, float16) being present, a union vector shorter in tags than in values, a buffer
 * that is not a contiguous bytes-like object -- decode() returns None without raising, and
 * the Python caller runs the reference over the whole buffer, which produces the result or
 * raises the exact DecodeError.  So this file never formats an error message.  The only
 * exception it lets through is MemoryError.
 *
 * Program format.  gameserde/flatbuffers/_reader_program.py lowers the reader's plans (one
 * schema, one root type) into plain tuples, and compile() turns them into a C Program kept in
 * a capsule (cached on the reader's _Compiled object):
 *
 *   (root, tables, structs, unions)
 *   root:    index into tables
 *   tables:  tuple of tables; a table is a tuple of its non-deprecated fields, in the
 *            reference's order: (name, slot, op, a, b, has_default, default)
 *              slot         the vtable offset of the field (4, 6, ...)
 *              op, a, b     what to read when present (see the OP_ list below)
 *              has_default  with defaults=True an absent field gives `default` (scalars)
 *   structs: tuple of structs: (size, fields), field = (name, offset, op, a, b), op SOP_
 *   unions:  tuple of unions: a tuple of members (tag, kind, index), kind U_
 *
 * Scalar codes (SC_) name the wire types; each reads exactly as the reference's struct
 * format (bool: any non-zero byte is True; float32 widened to double; float16 unpacked).
 *
 * Safety rules: every position is a uint64_t computed from at most a few 32-bit values, so
 * nothing overflows; each read is checked against the end of the current buffer (a nested
 * flatbuffer is its own buffer) before the bytes are touched; a vector's byte size is
 * checked before anything is allocated for it.  The cyclic GC is paused while decoding:
 * everything built is new and acyclic, so a collection could free none of it.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define API_VERSION 1
#define MAX_DEPTH 64 /* tables nested deeper: give up (the reference decides) */
#define CAPSULE_NAME "gameserde.flatbuffers._reader_speedups.Program"

/* Scalar codes (the reference's struct formats: ? b B h H i I q Q e f d). */
enum { SC_BOOL, SC_I8, SC_U8, SC_I16, SC_U16, SC_I32, SC_U32, SC_I64, SC_U64, SC_F16, SC_F32,
       SC_F64, SC_COUNT };
static const uint8_t sc_size[SC_COUNT] = {1, 1, 1, 2, 2, 4, 4, 8, 8, 2, 4, 8};

/* Table field ops: a, b as noted. */
enum {
    OP_SCALAR,     /* a: scalar code */
    OP_STRING,
    OP_STRUCT,     /* a: struct index */
    OP_TABLE,      /* a: table index */
    OP_NESTED,     /* a: table index of the nested root (a [ubyte] holding a flatbuffer) */
    OP_UNION,      /* a: union index, b: vtable slot of the _type field */
    OP_VEC_SCALAR, /* a: scalar code */
    OP_VEC_STRING,
    OP_VEC_STRUCT, /* a: struct index */
    OP_VEC_TABLE,  /* a: table index */
    OP_VEC_UNION,  /* a: union index, b: vtable slot of the _type vector */
    OP_GIVEUP,     /* not handled here: give up when present */
    OP_COUNT
};

/* Struct field ops. */
enum {
    SOP_SCALAR,       /* a: scalar code */
    SOP_STRUCT,       /* a: struct index */
    SOP_ARRAY_SCALAR, /* a: scalar code, b: length */
    SOP_ARRAY_STRUCT, /* a: struct index, b: length */
    SOP_COUNT
};

/* Union member kinds (U_NONE: a tag the schema does not know, read as None). */
enum { U_NONE, U_TABLE, U_STRUCT, U_STRING };

typedef struct {
    PyObject *name;    /* owned */
    PyObject *dflt;    /* owned, NULL: no default */
    uint16_t slot, b;
    uint8_t op;
    int32_t a;
} Field;

typedef struct {
    Py_ssize_t n;
    Field *f;
} Table;

typedef struct {
    PyObject *name; /* owned */
    uint32_t off, b;
    uint8_t op;
    int32_t a;
} SField;

typedef struct {
    uint32_t size;
    Py_ssize_t n;
    SField *f;
} Struct;

typedef struct {
    uint8_t kind[256];
    int32_t index[256];
} UnionDef;

typedef struct {
    int32_t root;
    Py_ssize_t n_tables, n_structs, n_unions;
    Table *tables;
    Struct *structs;
    UnionDef *unions;
} Program;

/* ========================================================================================= */
/* Program                                                                                   */
/* ========================================================================================= */

static void
program_free(Program *p)
{
    if (p == NULL)
        return;
    if (p->tables != NULL) {
        for (Py_ssize_t i = 0; i < p->n_tables; i++) {
            Table *t = &p->tables[i];
            for (Py_ssize_t k = 0; t->f != NULL && k < t->n; k++) {
                Py_XDECREF(t->f[k].name);
                Py_XDECREF(t->f[k].dflt);
            }
            PyMem_Free(t->f);
        }
        PyMem_Free(p->tables);
    }
    if (p->structs != NULL) {
        for (Py_ssize_t i = 0; i < p->n_structs; i++) {
            Struct *s = &p->structs[i];
            for (Py_ssize_t k = 0; s->f != NULL && k < s->n; k++)
                Py_XDECREF(s->f[k].name);
            PyMem_Free(s->f);
        }
        PyMem_Free(p->structs);
    }
    PyMem_Free(p->unions);
    PyMem_Free(p);
}

static void
capsule_free(PyObject *capsule)
{
    program_free((Program *)PyCapsule_GetPointer(capsule, CAPSULE_NAME));
}

static int
bad_program(const char *what)
{
    PyErr_Format(PyExc_ValueError, "compile(): malformed program (%s)", what);
    return -1;
}

/* The items of `obj`, a tuple of `n` items (n < 0: any length); NULL with ValueError. */
static PyObject *const *
tuple_items(PyObject *obj, Py_ssize_t n, const char *what)
{
    if (!PyTuple_Check(obj) || (n >= 0 && PyTuple_GET_SIZE(obj) != n)) {
        bad_program(what);
        return NULL;
    }
    return &PyTuple_GET_ITEM(obj, 0);
}

/* An int in [lo, hi] into *out; -1 with ValueError otherwise. */
static int
int_in(PyObject *obj, long lo, long hi, long *out, const char *what)
{
    if (!PyLong_Check(obj))
        return bad_program(what);
    long v = PyLong_AsLong(obj);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return bad_program(what);
    }
    if (v < lo || v > hi)
        return bad_program(what);
    *out = v;
    return 0;
}

static int
compile_structs(Program *p, PyObject *structs)
{
    PyObject *const *items = tuple_items(structs, -1, "structs");
    if (items == NULL)
        return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(structs);
    p->structs = PyMem_Calloc(n ? (size_t)n : 1, sizeof(Struct));
    if (p->structs == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    p->n_structs = n;
    /* sizes first: a struct's fields may hold structs listed after it */
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *const *sd = tuple_items(items[i], 2, "struct");
        long size;
        if (sd == NULL || int_in(sd[0], 1, 1L << 24, &size, "struct size") < 0)
            return -1;
        p->structs[i].size = (uint32_t)size;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Struct *s = &p->structs[i];
        PyObject *fields = PyTuple_GET_ITEM(items[i], 1);
        PyObject *const *fi = tuple_items(fields, -1, "struct fields");
        if (fi == NULL)
            return -1;
        Py_ssize_t nf = PyTuple_GET_SIZE(fields);
        s->f = PyMem_Calloc(nf ? (size_t)nf : 1, sizeof(SField));
        if (s->f == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        s->n = nf;
        for (Py_ssize_t k = 0; k < nf; k++) {
            SField *f = &s->f[k];
            PyObject *const *fd = tuple_items(fi[k], 5, "struct field");
            long off, op, a, b;
            if (fd == NULL || !PyUnicode_Check(fd[0]))
                return bad_program("struct field name");
            Py_INCREF(fd[0]);
            f->name = fd[0];
            if (int_in(fd[1], 0, s->size, &off, "struct field offset") < 0 ||
                int_in(fd[2], 0, SOP_COUNT - 1, &op, "struct field op") < 0 ||
                int_in(fd[4], 0, 1L << 24, &b, "array length") < 0)
                return -1;
            uint64_t span;
            if (op == SOP_SCALAR || op == SOP_ARRAY_SCALAR) {
                if (int_in(fd[3], 0, SC_COUNT - 1, &a, "scalar code") < 0)
                    return -1;
                span = sc_size[a];
            } else {
                if (int_in(fd[3], 0, (long)n - 1, &a, "struct index") < 0)
                    return -1;
                span = p->structs[a].size;
            }
            if (op == SOP_ARRAY_SCALAR || op == SOP_ARRAY_STRUCT)
                span *= (uint64_t)b;
            if ((uint64_t)off + span > s->size)
                return bad_program("struct field past the struct's end");
            f->off = (uint32_t)off;
            f->op = (uint8_t)op;
            f->a = (int32_t)a;
            f->b = (uint32_t)b;
        }
    }
    return 0;
}

static int
compile_unions(Program *p, PyObject *unions, Py_ssize_t n_tables)
{
    PyObject *const *items = tuple_items(unions, -1, "unions");
    if (items == NULL)
        return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(unions);
    p->unions = PyMem_Calloc(n ? (size_t)n : 1, sizeof(UnionDef));
    if (p->unions == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    p->n_unions = n;
    for (Py_ssize_t i = 0; i < n; i++) {
        UnionDef *u = &p->unions[i];
        PyObject *const *mi = tuple_items(items[i], -1, "union");
        if (mi == NULL)
            return -1;
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(items[i]); k++) {
            PyObject *const *md = tuple_items(mi[k], 3, "union member");
            long tag, kind, index = 0;
            if (md == NULL || int_in(md[0], 1, 255, &tag, "union tag") < 0 ||
                int_in(md[1], U_TABLE, U_STRING, &kind, "union member kind") < 0)
                return -1;
            if (kind == U_TABLE &&
                int_in(md[2], 0, (long)n_tables - 1, &index, "union table") < 0)
                return -1;
            if (kind == U_STRUCT &&
                int_in(md[2], 0, (long)p->n_structs - 1, &index, "union struct") < 0)
                return -1;
            u->kind[tag] = (uint8_t)kind;
            u->index[tag] = (int32_t)index;
        }
    }
    return 0;
}

static int
compile_tables(Program *p, PyObject *tables)
{
    PyObject *const *items = tuple_items(tables, -1, "tables");
    if (items == NULL)
        return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(tables);
    p->tables = PyMem_Calloc(n ? (size_t)n : 1, sizeof(Table));
    if (p->tables == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    p->n_tables = n;
    for (Py_ssize_t i = 0; i < n; i++) {
        Table *t = &p->tables[i];
        PyObject *const *fi = tuple_items(items[i], -1, "table");
        if (fi == NULL)
            return -1;
        Py_ssize_t nf = PyTuple_GET_SIZE(items[i]);
        t->f = PyMem_Calloc(nf ? (size_t)nf : 1, sizeof(Field));
        if (t->f == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        t->n = nf;
        for (Py_ssize_t k = 0; k < nf; k++) {
            Field *f = &t->f[k];
            PyObject *const *fd = tuple_items(fi[k], 7, "table field");
            long slot, op, a = 0, b = 0;
            if (fd == NULL || !PyUnicode_Check(fd[0]))
                return bad_program("table field name");
            Py_INCREF(fd[0]);
            f->name = fd[0];
            int has_default = PyObject_IsTrue(fd[5]);
            if (has_default < 0)
                return -1;
            if (has_default) {
                Py_INCREF(fd[6]);
                f->dflt = fd[6];
            }
            if (int_in(fd[1], 4, 0xfffe, &slot, "slot") < 0 ||
                int_in(fd[2], 0, OP_COUNT - 1, &op, "op") < 0)
                return -1;
            switch (op) {
            case OP_SCALAR:
            case OP_VEC_SCALAR:
                if (int_in(fd[3], 0, SC_COUNT - 1, &a, "scalar code") < 0)
                    return -1;
                break;
            case OP_STRUCT:
            case OP_VEC_STRUCT:
                if (int_in(fd[3], 0, (long)p->n_structs - 1, &a, "struct index") < 0)
                    return -1;
                break;
            case OP_TABLE:
            case OP_NESTED:
            case OP_VEC_TABLE:
                if (int_in(fd[3], 0, (long)n - 1, &a, "table index") < 0)
                    return -1;
                break;
            case OP_UNION:
            case OP_VEC_UNION:
                if (int_in(fd[3], 0, (long)p->n_unions - 1, &a, "union index") < 0 ||
                    int_in(fd[4], 4, 0xfffe, &b, "type slot") < 0)
                    return -1;
                break;
            default:
                break;
            }
            f->slot = (uint16_t)slot;
            f->op = (uint8_t)op;
            f->a = (int32_t)a;
            f->b = (uint16_t)b;
        }
    }
    return 0;
}

PyDoc_STRVAR(compile_doc,
"compile(program) -> capsule\n\n"
"Compile a program (root, tables, structs, unions) of plain tuples, as made by\n"
"gameserde.flatbuffers._reader_program, for decode(). ValueError if malformed.");

static PyObject *
rs_compile(PyObject *module, PyObject *arg)
{
    (void)module;
    PyObject *const *top = tuple_items(arg, 4, "top level");
    if (top == NULL)
        return NULL;
    Program *p = PyMem_Calloc(1, sizeof(Program));
    if (p == NULL)
        return PyErr_NoMemory();
    long root;
    Py_ssize_t n_tables = PyTuple_Check(top[1]) ? PyTuple_GET_SIZE(top[1]) : 0;
    if (compile_structs(p, top[2]) < 0 || compile_unions(p, top[3], n_tables) < 0 ||
        compile_tables(p, top[1]) < 0 ||
        int_in(top[0], 0, (long)p->n_tables - 1, &root, "root") < 0) {
        program_free(p);
        return NULL;
    }
    p->root = (int32_t)root;
    PyObject *capsule = PyCapsule_New(p, CAPSULE_NAME, capsule_free);
    if (capsule == NULL)
        program_free(p);
    return capsule;
}

/* ========================================================================================= */
/* Decoder                                                                                   */
/* ========================================================================================= */

/* Every decoding function returns a new reference, or NULL: with an exception set (only
 * MemoryError is expected) or without one, which means "give up". */

typedef struct {
    const Program *prog;
    int defaults;
} Ctx;

typedef struct {
    const unsigned char *b; /* the current buffer (a nested flatbuffer is its own) */
    uint64_t len;
} Buf;

static inline uint16_t
ld_u16(const unsigned char *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
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

/* The scalar at p (bounds checked by the caller). */
static PyObject *
scalar(int code, const unsigned char *p)
{
    switch (code) {
    case SC_BOOL:
        return PyBool_FromLong(p[0] != 0);
    case SC_I8:
        return PyLong_FromLong((int8_t)p[0]);
    case SC_U8:
        return PyLong_FromLong(p[0]);
    case SC_I16:
        return PyLong_FromLong((int16_t)ld_u16(p));
    case SC_U16:
        return PyLong_FromLong(ld_u16(p));
    case SC_I32:
        return PyLong_FromLong((int32_t)ld_u32(p));
    case SC_U32:
        return PyLong_FromUnsignedLong(ld_u32(p));
    case SC_I64:
        return PyLong_FromLongLong((long long)(int64_t)ld_u64(p));
    case SC_U64:
        return PyLong_FromUnsignedLongLong(ld_u64(p));
    case SC_F16: {
        double d = PyFloat_Unpack2((const char *)p, 1);
        if (d == -1.0 && PyErr_Occurred())
            return NULL;
        return PyFloat_FromDouble(d);
    }
    case SC_F32: {
        /* as struct '<f' and memoryview 'f' read it on a little-endian IEEE host */
        float f;
        memcpy(&f, p, 4);
        return PyFloat_FromDouble((double)f);
    }
    default: {
        double d;
        memcpy(&d, p, 8);
        return PyFloat_FromDouble(d);
    }
    }
}

/* Set d[name] = v, stealing v. */
static int
put(PyObject *d, PyObject *name, PyObject *v)
{
    int rc = PyDict_SetItem(d, name, v);
    Py_DECREF(v);
    return rc;
}

static PyObject *
dec_struct(const Program *prog, const Struct *s, const unsigned char *p)
{
    PyObject *out = PyDict_New();
    if (out == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < s->n; k++) {
        const SField *f = &s->f[k];
        const unsigned char *q = p + f->off;
        PyObject *v;
        switch (f->op) {
        case SOP_SCALAR:
            v = scalar(f->a, q);
            break;
        case SOP_STRUCT:
            v = dec_struct(prog, &prog->structs[f->a], q);
            break;
        case SOP_ARRAY_SCALAR: {
            unsigned size = sc_size[f->a];
            v = PyList_New(f->b);
            for (uint32_t i = 0; v != NULL && i < f->b; i++) {
                PyObject *x = scalar(f->a, q + (size_t)i * size);
                if (x == NULL)
                    Py_CLEAR(v);
                else
                    PyList_SET_ITEM(v, i, x);
            }
            break;
        }
        default: { /* SOP_ARRAY_STRUCT */
            const Struct *sub = &prog->structs[f->a];
            v = PyList_New(f->b);
            for (uint32_t i = 0; v != NULL && i < f->b; i++) {
                PyObject *x = dec_struct(prog, sub, q + (size_t)i * sub->size);
                if (x == NULL)
                    Py_CLEAR(v);
                else
                    PyList_SET_ITEM(v, i, x);
            }
            break;
        }
        }
        if (v == NULL || put(out, f->name, v) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

/* The string referenced from p (the reference's _read_str: invalid UTF-8 kept with
 * surrogateescape). */
static PyObject *
dec_string(Buf buf, uint64_t p)
{
    if (p + 4 > buf.len)
        return NULL;
    uint64_t s = p + ld_u32(buf.b + p);
    if (s + 4 > buf.len)
        return NULL;
    uint64_t n = ld_u32(buf.b + s);
    if (s + 4 + n > buf.len)
        return NULL;
    return PyUnicode_DecodeUTF8((const char *)buf.b + s + 4, (Py_ssize_t)n, "surrogateescape");
}

/* The vector referenced from p: its data start and length; -1 when out of bounds. */
static int
vec_header(Buf buf, uint64_t p, uint64_t esize, uint64_t *d, uint64_t *n)
{
    if (p + 4 > buf.len)
        return -1;
    uint64_t s = p + ld_u32(buf.b + p);
    if (s + 4 > buf.len)
        return -1;
    uint64_t k = ld_u32(buf.b + s);
    if (s + 4 + k * esize > buf.len)
        return -1;
    *d = s + 4;
    *n = k;
    return 0;
}

static PyObject *dec_table(const Ctx *c, Buf buf, uint64_t t, const Table *tab, int depth);

/* A union member referenced from p, `tag` giving its type. */
static PyObject *
dec_member(const Ctx *c, Buf buf, uint64_t p, const UnionDef *u, unsigned tag, int depth)
{
    int kind = u->kind[tag];
    if (kind == U_NONE)
        Py_RETURN_NONE;
    if (kind == U_STRING)
        return dec_string(buf, p);
    if (p + 4 > buf.len)
        return NULL;
    uint64_t target = p + ld_u32(buf.b + p);
    if (kind == U_TABLE)
        return dec_table(c, buf, target, &c->prog->tables[u->index[tag]], depth + 1);
    const Struct *s = &c->prog->structs[u->index[tag]];
    if (target + s->size > buf.len)
        return NULL;
    return dec_struct(c->prog, s, buf.b + target);
}

/* A table field's vector (ops OP_VEC_*); vt/vs for a union vector's _type vector. */
static PyObject *
dec_vector(const Ctx *c, Buf buf, uint64_t t, uint64_t vt, unsigned vs, const Field *f,
           uint64_t p, int depth)
{
    const Program *prog = c->prog;
    uint64_t esize;
    switch (f->op) {
    case OP_VEC_SCALAR:
        esize = sc_size[f->a];
        break;
    case OP_VEC_STRUCT:
        esize = prog->structs[f->a].size;
        break;
    default:
        esize = 4;
    }
    uint64_t d, n;
    if (vec_header(buf, p, esize, &d, &n) < 0)
        return NULL;
    /* the union vector's tags: all must be there */
    uint64_t td = 0;
    if (f->op == OP_VEC_UNION) {
        unsigned to = f->b < vs ? ld_u16(buf.b + vt + f->b) : 0;
        uint64_t tn = 0;
        if (to && vec_header(buf, t + to, 1, &td, &tn) < 0)
            return NULL;
        if (tn < n)
            return NULL;
    }
    /* n * esize <= len was checked: the list is at most 8 pointers per buffer byte */
    PyObject *out = PyList_New((Py_ssize_t)n);
    if (out == NULL)
        return NULL;
    const unsigned char *b = buf.b;
    for (uint64_t i = 0; i < n; i++) {
        PyObject *x;
        uint64_t q = d + i * esize;
        switch (f->op) {
        case OP_VEC_SCALAR:
            x = scalar(f->a, b + q);
            break;
        case OP_VEC_STRING:
            x = dec_string(buf, q);
            break;
        case OP_VEC_STRUCT:
            x = dec_struct(prog, &prog->structs[f->a], b + q);
            break;
        case OP_VEC_TABLE:
            x = dec_table(c, buf, q + ld_u32(b + q), &prog->tables[f->a], depth + 1);
            break;
        default: /* OP_VEC_UNION */
            x = dec_member(c, buf, q, &prog->unions[f->a], b[td + i], depth);
            break;
        }
        if (x == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, (Py_ssize_t)i, x);
    }
    return out;
}

/* The table at t (the reference's _mk_table checks, then _decode_table). */
static PyObject *
dec_table(const Ctx *c, Buf buf, uint64_t t, const Table *tab, int depth)
{
    if (depth > MAX_DEPTH)
        return NULL;
    const unsigned char *b = buf.b;
    if (t + 4 > buf.len)
        return NULL;
    int64_t vt = (int64_t)t - (int32_t)ld_u32(b + t);
    if (vt < 0 || (uint64_t)vt + 2 > buf.len)
        return NULL;
    unsigned vs = ld_u16(b + vt);
    if ((uint64_t)vt + vs + (vs & 1) > buf.len)
        return NULL;
    const Program *prog = c->prog;
    PyObject *out = PyDict_New();
    if (out == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < tab->n; k++) {
        const Field *f = &tab->f[k];
        /* slot < vs: the two bytes lie inside the vtable (checked above, odd vs padded) */
        unsigned o = f->slot < vs ? ld_u16(b + vt + f->slot) : 0;
        if (o == 0) {
            if (c->defaults && f->dflt != NULL && PyDict_SetItem(out, f->name, f->dflt) < 0)
                goto fail;
            continue;
        }
        uint64_t p = (uint64_t)t + o;
        PyObject *v = NULL;
        switch (f->op) {
        case OP_SCALAR:
            if (p + sc_size[f->a] <= buf.len)
                v = scalar(f->a, b + p);
            break;
        case OP_STRING:
            v = dec_string(buf, p);
            break;
        case OP_STRUCT: {
            const Struct *s = &prog->structs[f->a];
            if (p + s->size <= buf.len)
                v = dec_struct(prog, s, b + p);
            break;
        }
        case OP_TABLE:
            if (p + 4 <= buf.len)
                v = dec_table(c, buf, p + ld_u32(b + p), &prog->tables[f->a], depth + 1);
            break;
        case OP_NESTED: {
            uint64_t d, n;
            if (vec_header(buf, p, 1, &d, &n) == 0 && n >= 4) {
                Buf inner = {b + d, n};
                v = dec_table(c, inner, ld_u32(inner.b), &prog->tables[f->a], depth + 1);
            }
            break;
        }
        case OP_UNION: {
            unsigned to = f->b < vs ? ld_u16(b + vt + f->b) : 0;
            if (to == 0)
                v = dec_member(c, buf, p, &prog->unions[f->a], 0, depth);
            else if ((uint64_t)t + to < buf.len)
                v = dec_member(c, buf, p, &prog->unions[f->a], b[t + to], depth);
            break;
        }
        case OP_VEC_SCALAR:
        case OP_VEC_STRING:
        case OP_VEC_STRUCT:
        case OP_VEC_TABLE:
        case OP_VEC_UNION:
            v = dec_vector(c, buf, t, (uint64_t)vt, vs, f, p, depth);
            break;
        default: /* OP_GIVEUP */
            break;
        }
        if (v == NULL || put(out, f->name, v) < 0)
            goto fail;
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

PyDoc_STRVAR(decode_doc,
"decode(program, buf, size_prefixed, defaults) -> dict | None\n\n"
"The root table of buf decoded as the reference decode() does, or None: give up (run the\n"
"reference). Raises only MemoryError.");

static PyObject *
rs_decode(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "decode() takes 4 arguments");
        return NULL;
    }
    const Program *prog = PyCapsule_GetPointer(args[0], CAPSULE_NAME);
    if (prog == NULL)
        return NULL;
    int size_prefixed = PyObject_IsTrue(args[2]);
    int defaults = PyObject_IsTrue(args[3]);
    if (size_prefixed < 0 || defaults < 0)
        return NULL;
#if PY_BIG_ENDIAN
    Py_RETURN_NONE; /* the scalar readers assume a little-endian host */
#endif
    Py_buffer view;
    if (PyObject_GetBuffer(args[1], &view, PyBUF_SIMPLE) < 0) {
        PyErr_Clear(); /* not a contiguous bytes-like object: the reference decides */
        Py_RETURN_NONE;
    }
    Buf buf = {view.buf, (uint64_t)view.len};
    PyObject *result = NULL;
    uint64_t start = 0;
    if (size_prefixed) {
        if (buf.len < 4 || (uint64_t)ld_u32(buf.b) + 4 > buf.len)
            goto done;
        start = 4;
    }
    if (start + 4 > buf.len)
        goto done;
    Ctx c = {prog, defaults};
    int gc_was_enabled = PyGC_Disable();
    result = dec_table(&c, buf, start + ld_u32(buf.b + start), &prog->tables[prog->root], 0);
    if (gc_was_enabled)
        PyGC_Enable();
done:
    PyBuffer_Release(&view);
    if (result != NULL)
        return result;
    if (PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_MemoryError))
            PyErr_Clear(); /* anything else: give up too */
        else
            return NULL;
    }
    Py_RETURN_NONE;
}

/* ========================================================================================= */
/* Module                                                                                    */
/* ========================================================================================= */

static PyMethodDef methods[] = {
    {"compile", (PyCFunction)rs_compile, METH_O, compile_doc},
    {"decode", (PyCFunction)(void (*)(void))rs_decode, METH_FASTCALL, decode_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT,
    "gameserde.flatbuffers._reader_speedups",
    "Optional C accelerator of gameserde.flatbuffers.reader.decode(); see _accel.py.",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC
PyInit__reader_speedups(void)
{
    PyObject *m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    if (PyModule_AddIntConstant(m, "API_VERSION", API_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
