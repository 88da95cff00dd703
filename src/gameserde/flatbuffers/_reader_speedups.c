/*
 * Optional C twin of gameserde.flatbuffers.decoder.decode(): a whole buffer to dicts and lists;
 * and of the lazy view()'s attribute access (see "View getters" below, which has its own
 * give-up rule: it calls the reference getter instead of returning None).
 *
 * The pure-Python decode() (decoder._decode_table and friends) is the reference; this module
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
 *              has_default  0, or 1: with defaults=True an absent field gives `default`
 *                           (scalars), or 2: it always does (a scalar key, as flatc prints)
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
 *
 * Expansion budget (gameserde/flatbuffers/_budget.py): offsets may be shared, so decode()
 * counts, as the reference does, the bytes the value reproduces at every reference -- 4 per
 * table plus the inline size of its present fields, 4 plus the characters of each string,
 * 4 plus length x element size of each vector, a union struct member's size, 8 per nested
 * flatbuffer -- and gives up when the count passes the limit it is given (the reference then
 * raises the error).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
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
    uint8_t always;    /* the default is given even with defaults=False */
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
            long has_default;
            if (int_in(fd[5], 0, 2, &has_default, "has_default") < 0)
                return -1;
            if (has_default) {
                Py_INCREF(fd[6]);
                f->dflt = fd[6];
                f->always = has_default == 2;
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
    int64_t left; /* the expansion budget left: give up below 0 */
} Ctx;

/* Take n bytes from the expansion budget: true when it ran out (give up). */
static inline int
spend(Ctx *c, uint64_t n)
{
    c->left -= (int64_t)n;
    return c->left < 0;
}

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

/* dec_string() within the expansion budget: 4 bytes and the string's characters. */
static PyObject *
dec_string_counted(Ctx *c, Buf buf, uint64_t p)
{
    PyObject *s = dec_string(buf, p);
    if (s != NULL && spend(c, 4 + (uint64_t)PyUnicode_GET_LENGTH(s)))
        Py_CLEAR(s);
    return s;
}

static PyObject *dec_table(Ctx *c, Buf buf, uint64_t t, const Table *tab, int depth);

/* A union member referenced from p, `tag` giving its type. */
static PyObject *
dec_member(Ctx *c, Buf buf, uint64_t p, const UnionDef *u, unsigned tag, int depth)
{
    int kind = u->kind[tag];
    if (kind == U_NONE)
        Py_RETURN_NONE;
    if (kind == U_STRING)
        return dec_string_counted(c, buf, p);
    if (p + 4 > buf.len)
        return NULL;
    uint64_t target = p + ld_u32(buf.b + p);
    if (kind == U_TABLE)
        return dec_table(c, buf, target, &c->prog->tables[u->index[tag]], depth + 1);
    const Struct *s = &c->prog->structs[u->index[tag]];
    if (target + s->size > buf.len || spend(c, s->size))
        return NULL;
    return dec_struct(c->prog, s, buf.b + target);
}

/* A table field's vector (ops OP_VEC_*); vt/vs for a union vector's _type vector. */
static PyObject *
dec_vector(Ctx *c, Buf buf, uint64_t t, uint64_t vt, unsigned vs, const Field *f,
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
    if (spend(c, 4 + n * esize))
        return NULL;
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
            x = dec_string_counted(c, buf, q);
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
dec_table(Ctx *c, Buf buf, uint64_t t, const Table *tab, int depth)
{
    if (depth > MAX_DEPTH || spend(c, 4))
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
            if ((c->defaults || f->always) && f->dflt != NULL &&
                PyDict_SetItem(out, f->name, f->dflt) < 0)
                goto fail;
            continue;
        }
        uint64_t p = (uint64_t)t + o;
        PyObject *v = NULL;
        /* the field's inline bytes (for OP_GIVEUP: nothing is read) */
        uint64_t wire = f->op == OP_SCALAR ? sc_size[f->a]
                        : f->op == OP_STRUCT ? prog->structs[f->a].size : 4;
        if (spend(c, wire))
            goto fail;
        switch (f->op) {
        case OP_SCALAR:
            if (p + sc_size[f->a] <= buf.len)
                v = scalar(f->a, b + p);
            break;
        case OP_STRING:
            v = dec_string_counted(c, buf, p);
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
            if (vec_header(buf, p, 1, &d, &n) == 0 && n >= 4 && !spend(c, 8)) {
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
"decode(program, buf, size_prefixed, defaults, limit) -> dict | None\n\n"
"The root table of buf decoded as the reference decode() does, or None: give up (run the\n"
"reference), also when the value reproduces more than limit bytes (the expansion budget).\n"
"Raises only MemoryError.");

static PyObject *
rs_decode(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "decode() takes 5 arguments");
        return NULL;
    }
    const Program *prog = PyCapsule_GetPointer(args[0], CAPSULE_NAME);
    if (prog == NULL)
        return NULL;
    int size_prefixed = PyObject_IsTrue(args[2]);
    int defaults = PyObject_IsTrue(args[3]);
    if (size_prefixed < 0 || defaults < 0)
        return NULL;
    long long limit = PyLong_AsLongLong(args[4]);
    if (limit == -1 && PyErr_Occurred())
        return NULL;
    if (limit < 0) {
        PyErr_SetString(PyExc_ValueError, "decode(): the limit must not be negative");
        return NULL;
    }
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
    Ctx c = {prog, defaults, (int64_t)limit};
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
/* View getters                                                                              */
/* ========================================================================================= */

/*
 * The C twin of the lazy view()'s attribute access.  _view_plans._table_plan puts a Getter (a
 * descriptor made by getter()) in a view class in place of the reference's
 * `property(getter)` for scalar, string, struct, table, vector (not of unions) and union
 * fields; vector elements get an ElemInfo (made by elem(), kept in _Elem.fast); and
 * setup_views() gives C __iter__/__len__/__getitem__ methods that _view_plans puts on
 * VectorView.
 * They read the instance slots the reference reads (_b, _t, _vt, _vs of a TableView; _b, _d,
 * _n, _el of a VectorView: their offsets come from the classes' member descriptors), and
 * create objects of the very classes the reference creates, with the same slots.
 *
 * Give-up rule, per call: when _accel.ENABLED is not true, or on anything unusual -- a slot
 * holding something unexpected, a memoryview that is released or not 1-D bytes, a read out of
 * bounds, a class not built yet, a union member that is not a table, any error but
 * MemoryError -- they call the reference (the property's getter, or VectorView's original
 * method), which returns the value or raises the exact error.  Buffer memory is pinned with
 * PyObject_GetBuffer for the duration of each call (a finalizer run by an allocation cannot
 * release it).  Vectors of scalars and of flat structs longer than ITER_LIST_MAX keep the
 * reference's lazy iterator; other iterations build the list up front (as the reference does
 * for tables) and fall back to the reference's iterator if an element cannot be read.
 */

#define ITER_LIST_MAX 65536
#define SLOT(o, off) (*(PyObject **)((char *)(o) + (off)))

/* Getter kinds (_view_plans: G_*), element kinds (_view_classes: SCALAR, STRUCT, STRING, TABLE). */
enum { G_SCALAR, G_STRING, G_STRUCT, G_TABLE, G_VECTOR, G_UNION, G_COUNT };
enum { E_SCALAR = 0, E_STRUCT = 1, E_STRING = 2, E_TABLE = 3 };

/* Set by setup_views(). */
static PyObject *v_flags;   /* _accel.__dict__ (ENABLED is read per call) */
static PyObject *v_enabled; /* "ENABLED" */
static PyObject *v_cls_str; /* "cls" */
static PyTypeObject *v_table, *v_lazy, *v_vector, *v_elem;
static PyObject *v_iter_ref, *v_len_ref, *v_getitem_ref; /* VectorView's reference methods */
static Py_ssize_t tb_b, tb_t, tb_vt, tb_vs, tb_par, tb_step; /* TableView slots */
static Py_ssize_t ls_b, ls_p;                                 /* LazyStructView slots */
static Py_ssize_t vv_b, vv_d, vv_n, vv_el, vv_par, vv_step, vv_aux; /* VectorView slots */
static Py_ssize_t el_fast;                                    /* _Elem.fast */

static int
views_enabled(void)
{
    PyObject *v = PyDict_GetItemWithError(v_flags, v_enabled);
    if (v == Py_True)
        return 1;
    if (v == NULL || v == Py_False)
        return PyErr_Occurred() ? -1 : 0;
    return PyObject_IsTrue(v);
}

/* The reference's answer: ref(obj) or ref(obj, arg); an exception other than MemoryError
 * pending from the C attempt is dropped first. */
static PyObject *
give_up(PyObject *ref, PyObject *obj, PyObject *arg)
{
    if (PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_MemoryError))
            return NULL;
        PyErr_Clear();
    }
    if (arg == NULL)
        return PyObject_CallOneArg(ref, obj);
    PyObject *args[2] = {obj, arg};
    return PyObject_Vectorcall(ref, args, 2, NULL);
}

/* A memoryview of bytes (format B, 1-D, contiguous), pinned. */
typedef struct {
    Py_buffer view; /* our export: view.obj holds the memoryview */
    PyObject *mv;
    const unsigned char *b;
    uint64_t len;
} Pin;

static int
pin(PyObject *mv, Pin *p)
{
    if (mv == NULL || !PyMemoryView_Check(mv))
        return -1;
    /* fails (ValueError) for a released memoryview, (BufferError) for a non-contiguous one */
    if (PyObject_GetBuffer(mv, &p->view, PyBUF_FORMAT | PyBUF_ND) < 0)
        return -1;
    if (p->view.ndim != 1 || p->view.itemsize != 1 || p->view.format == NULL ||
        strcmp(p->view.format, "B") != 0 || p->view.len < 0) {
        PyBuffer_Release(&p->view);
        return -1;
    }
    p->mv = mv;
    p->b = p->view.buf;
    p->len = (uint64_t)p->view.len;
    return 0;
}

/* A slot holding an int >= 0 (an exact int, as the reference stores). */
static int
slot_int(PyObject *o, Py_ssize_t off, uint64_t *out)
{
    PyObject *v = SLOT(o, off);
    if (v == NULL || !PyLong_CheckExact(v))
        return -1;
    long long x = PyLong_AsLongLong(v);
    if (x < 0)
        return -1; /* OverflowError or negative */
    *out = (uint64_t)x;
    return 0;
}

/* A finished view class: a subclass of TableView other than TableView itself (a plan being
 * built still holds TableView). */
static int
is_view_class(PyObject *c)
{
    return PyType_Check(c) && (PyTypeObject *)c != v_table &&
           PyType_IsSubtype((PyTypeObject *)c, v_table);
}

/* The class `resolve()` gives, cached in *cache once final; NULL: give up. */
static PyTypeObject *
resolved(PyTypeObject **cache, PyObject *resolve)
{
    if (*cache != NULL)
        return *cache;
    PyObject *c = PyObject_CallNoArgs(resolve);
    if (c == NULL)
        return NULL;
    if (!is_view_class(c)) {
        Py_DECREF(c);
        return NULL;
    }
    *cache = (PyTypeObject *)c;
    return *cache;
}

/* A new view (class cls) of the table at t: the reference's _mk_table checks; NULL: give up. */
static PyObject *
new_table(PyTypeObject *cls, const Pin *pin, uint64_t t, PyObject *par, PyObject *step)
{
    const unsigned char *b = pin->b;
    uint64_t len = pin->len;
    if (t + 4 > len)
        return NULL;
    int64_t vt = (int64_t)t - (int32_t)ld_u32(b + t);
    if (vt < 0 || (uint64_t)vt + 2 > len)
        return NULL;
    unsigned vs = ld_u16(b + vt);
    if ((uint64_t)vt + vs + (vs & 1) > len)
        return NULL;
    PyObject *pt = PyLong_FromUnsignedLongLong(t);
    PyObject *pvt = PyLong_FromLongLong(vt);
    PyObject *pvs = PyLong_FromLong((long)vs);
    PyObject *o = NULL;
    if (pt != NULL && pvt != NULL && pvs != NULL)
        o = cls->tp_alloc(cls, 0);
    if (o == NULL) {
        Py_XDECREF(pt);
        Py_XDECREF(pvt);
        Py_XDECREF(pvs);
        return NULL;
    }
    SLOT(o, tb_b) = Py_NewRef(pin->mv);
    SLOT(o, tb_t) = pt;
    SLOT(o, tb_vt) = pvt;
    SLOT(o, tb_vs) = pvs;
    SLOT(o, tb_par) = Py_NewRef(par);
    SLOT(o, tb_step) = Py_NewRef(step);
    return o;
}

/* How to make a struct: a FlatStructView subclass (flat: its scalar fields) or a
 * LazyStructView subclass.  Parsed from (cls, size, flat, ((offset, code), ...)). */
typedef struct {
    PyTypeObject *cls; /* owned */
    uint32_t size;
    int flat;
    Py_ssize_t n;
    uint32_t *off;
    uint8_t *code;
} Shape;

static void
shape_free(Shape *s)
{
    Py_CLEAR(s->cls);
    PyMem_Free(s->off);
    PyMem_Free(s->code);
    s->off = NULL;
    s->code = NULL;
    s->n = 0;
}

static int
shape_parse(Shape *s, PyObject *spec)
{
    PyObject *const *it = tuple_items(spec, 4, "struct shape");
    long size;
    if (it == NULL || !PyType_Check(it[0]) ||
        int_in(it[1], 1, 1L << 24, &size, "struct size") < 0)
        return -1;
    int flat = PyObject_IsTrue(it[2]);
    if (flat < 0)
        return -1;
    PyTypeObject *cls = (PyTypeObject *)it[0];
    if (flat ? !PyType_IsSubtype(cls, &PyTuple_Type) : !PyType_IsSubtype(cls, v_lazy))
        return bad_program("struct class");
    PyObject *const *fi = tuple_items(it[3], -1, "struct fields");
    if (fi == NULL)
        return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(it[3]);
    if (flat && n == 0)
        return bad_program("flat struct without fields");
    s->off = PyMem_Calloc(n ? (size_t)n : 1, sizeof(uint32_t));
    s->code = PyMem_Calloc(n ? (size_t)n : 1, 1);
    if (s->off == NULL || s->code == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *const *fd = tuple_items(fi[k], 2, "struct field");
        long off, code;
        if (fd == NULL || int_in(fd[0], 0, size, &off, "field offset") < 0 ||
            int_in(fd[1], 0, SC_COUNT - 1, &code, "scalar code") < 0)
            return -1;
        if (off + sc_size[code] > size)
            return bad_program("struct field past the struct's end");
        s->off[k] = (uint32_t)off;
        s->code[k] = (uint8_t)code;
    }
    s->n = n;
    s->size = (uint32_t)size;
    s->flat = flat;
    s->cls = (PyTypeObject *)Py_NewRef(cls);
    return 0;
}

/* The struct at p (the caller checked p + size <= len). */
static PyObject *
new_struct(const Shape *sh, const Pin *pin, uint64_t p)
{
    PyTypeObject *cls = sh->cls;
    if (sh->flat) {
        PyObject *o = cls->tp_alloc(cls, sh->n);
        if (o == NULL)
            return NULL;
        for (Py_ssize_t k = 0; k < sh->n; k++) {
            PyObject *x = scalar(sh->code[k], pin->b + p + sh->off[k]);
            if (x == NULL) {
                Py_DECREF(o);
                return NULL;
            }
            PyTuple_SET_ITEM(o, k, x);
        }
        return o;
    }
    PyObject *pp = PyLong_FromUnsignedLongLong(p);
    if (pp == NULL)
        return NULL;
    PyObject *o = cls->tp_alloc(cls, 0);
    if (o == NULL) {
        Py_DECREF(pp);
        return NULL;
    }
    SLOT(o, ls_b) = Py_NewRef(pin->mv);
    SLOT(o, ls_p) = pp;
    return o;
}

/* A new VectorView (the reference's _make_vector). */
static PyObject *
new_vector(const Pin *pin, uint64_t d, uint64_t n, PyObject *el, PyObject *par, PyObject *step)
{
    PyObject *pd = PyLong_FromUnsignedLongLong(d);
    PyObject *pn = PyLong_FromUnsignedLongLong(n);
    PyObject *o = NULL;
    if (pd != NULL && pn != NULL)
        o = v_vector->tp_alloc(v_vector, 0);
    if (o == NULL) {
        Py_XDECREF(pd);
        Py_XDECREF(pn);
        return NULL;
    }
    SLOT(o, vv_b) = Py_NewRef(pin->mv);
    SLOT(o, vv_d) = pd;
    SLOT(o, vv_n) = pn;
    SLOT(o, vv_el) = Py_NewRef(el);
    SLOT(o, vv_par) = Py_NewRef(par);
    SLOT(o, vv_step) = Py_NewRef(step);
    SLOT(o, vv_aux) = Py_NewRef(Py_None);
    return o;
}

/* ----------------------------------------------------------------------------------------- */
/* ElemInfo: how to read one vector element (kept in _Elem.fast)                              */

typedef struct {
    PyObject_HEAD
    PyObject *resolve;  /* E_TABLE: callable giving the element class */
    PyTypeObject *cls;  /* E_TABLE: its result once final */
    Shape shape;        /* E_STRUCT */
    uint32_t size;
    uint8_t kind, code; /* code: E_SCALAR */
} ElemInfo;

static int
elem_traverse(PyObject *self, visitproc visit, void *arg)
{
    ElemInfo *e = (ElemInfo *)self;
    Py_VISIT(e->resolve);
    Py_VISIT(e->cls);
    Py_VISIT(e->shape.cls);
    return 0;
}

static int
elem_clear(PyObject *self)
{
    ElemInfo *e = (ElemInfo *)self;
    Py_CLEAR(e->resolve);
    Py_CLEAR(e->cls);
    Py_CLEAR(e->shape.cls);
    return 0;
}

static void
elem_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    elem_clear(self);
    shape_free(&((ElemInfo *)self)->shape);
    Py_TYPE(self)->tp_free(self);
}

static PyTypeObject ElemInfo_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gameserde.flatbuffers._reader_speedups.ElemInfo",
    .tp_basicsize = sizeof(ElemInfo),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "How the C vector methods read one element (see elem()).",
    .tp_traverse = elem_traverse,
    .tp_clear = elem_clear,
    .tp_dealloc = elem_dealloc,
};

static int
views_ready(void)
{
    if (v_flags == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "setup_views() was not called");
        return 0;
    }
    return 1;
}

PyDoc_STRVAR(elem_doc,
"elem(kind, size, code, extra) -> ElemInfo\n\n"
"How to read a vector element of reader kind SCALAR (code: scalar code), STRING, STRUCT\n"
"(extra: (cls, size, flat, ((offset, code), ...))) or TABLE (extra: a callable giving the\n"
"element class). ValueError if malformed.");

static PyObject *
rs_elem(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "elem() takes 4 arguments");
        return NULL;
    }
    if (!views_ready())
        return NULL;
    long kind, size, code = 0;
    if (int_in(args[0], E_SCALAR, E_TABLE, &kind, "element kind") < 0 ||
        int_in(args[1], 1, 1L << 24, &size, "element size") < 0)
        return NULL;
    ElemInfo *e = PyObject_GC_New(ElemInfo, &ElemInfo_Type);
    if (e == NULL)
        return NULL;
    e->resolve = NULL;
    e->cls = NULL;
    memset(&e->shape, 0, sizeof(Shape));
    e->kind = (uint8_t)kind;
    e->size = (uint32_t)size;
    e->code = 0;
    PyObject_GC_Track(e);
    switch (kind) {
    case E_SCALAR:
        if (int_in(args[2], 0, SC_COUNT - 1, &code, "scalar code") < 0)
            goto fail;
        if (sc_size[code] != size) {
            bad_program("scalar element size");
            goto fail;
        }
        e->code = (uint8_t)code;
        break;
    case E_STRUCT:
        if (shape_parse(&e->shape, args[3]) < 0)
            goto fail;
        if (e->shape.size != (uint32_t)size) {
            bad_program("struct element size");
            goto fail;
        }
        break;
    default: /* E_STRING, E_TABLE: an offset */
        if (size != 4) {
            bad_program("offset element size");
            goto fail;
        }
        if (kind == E_TABLE) {
            if (!PyCallable_Check(args[3])) {
                bad_program("table resolver");
                goto fail;
            }
            e->resolve = Py_NewRef(args[3]);
        }
    }
    return (PyObject *)e;
fail:
    Py_DECREF(e);
    return NULL;
}

/* Element i of a vector with data at d (bounds checked by the caller); cls for E_TABLE. */
static PyObject *
elem_at(const ElemInfo *e, PyTypeObject *cls, const Pin *pin, uint64_t d, uint64_t i,
        PyObject *vec)
{
    uint64_t q = d + i * e->size;
    switch (e->kind) {
    case E_SCALAR:
        return scalar(e->code, pin->b + q);
    case E_STRING: {
        Buf buf = {pin->b, pin->len};
        return dec_string(buf, q);
    }
    case E_STRUCT:
        return new_struct(&e->shape, pin, q);
    default: {
        PyObject *step = PyLong_FromUnsignedLongLong(i);
        if (step == NULL)
            return NULL;
        PyObject *r = new_table(cls, pin, q + ld_u32(pin->b + q), vec, step);
        Py_DECREF(step);
        return r;
    }
    }
}

/* ----------------------------------------------------------------------------------------- */
/* Getter: the descriptor of one table field                                                  */

typedef struct {
    PyObject_HEAD
    PyObject *prop;    /* the reference property: its setter and __set_name__ */
    PyObject *fget;    /* the reference getter: runs on give-up */
    PyObject *name;    /* the field's name: the step of what it creates */
    PyObject *dflt;    /* absent: this (scalars, strings), None or a new [] (vectors) */
    PyObject *extra;   /* G_TABLE: resolver; G_VECTOR: the _Elem; G_UNION: {tag: plan|None} */
    PyTypeObject *cls; /* G_TABLE: the resolved class */
    Shape shape;       /* G_STRUCT */
    uint32_t esize;    /* G_VECTOR: element size */
    uint16_t slot, type_slot;
    uint8_t kind, code;
} Getter;

static int
getter_traverse(PyObject *self, visitproc visit, void *arg)
{
    Getter *g = (Getter *)self;
    Py_VISIT(g->prop);
    Py_VISIT(g->fget);
    Py_VISIT(g->name);
    Py_VISIT(g->dflt);
    Py_VISIT(g->extra);
    Py_VISIT(g->cls);
    Py_VISIT(g->shape.cls);
    return 0;
}

static int
getter_clear(PyObject *self)
{
    Getter *g = (Getter *)self;
    Py_CLEAR(g->prop);
    Py_CLEAR(g->fget);
    Py_CLEAR(g->name);
    Py_CLEAR(g->dflt);
    Py_CLEAR(g->extra);
    Py_CLEAR(g->cls);
    Py_CLEAR(g->shape.cls);
    return 0;
}

static void
getter_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    getter_clear(self);
    shape_free(&((Getter *)self)->shape);
    Py_TYPE(self)->tp_free(self);
}

/* The table's state: its slots, its buffer pinned; -1: give up (nothing pinned). */
typedef struct {
    Pin pin;
    uint64_t t, vt, vs;
} TState;

static int
tstate(PyObject *obj, TState *s)
{
    if (!PyObject_TypeCheck(obj, v_table) || slot_int(obj, tb_t, &s->t) < 0 ||
        slot_int(obj, tb_vt, &s->vt) < 0 || slot_int(obj, tb_vs, &s->vs) < 0 ||
        pin(SLOT(obj, tb_b), &s->pin) < 0)
        return -1;
    /* as the reference leaves them (anything else: it decides) */
    if (s->t > s->pin.len || s->vt > s->pin.len || s->vs > 0xffff) {
        PyBuffer_Release(&s->pin.view);
        return -1;
    }
    return 0;
}

/* The offset of the field in vtable slot `slot` (0: absent); -1: give up. */
static inline int64_t
field_at(const TState *s, unsigned slot)
{
    if (slot >= s->vs)
        return 0;
    uint64_t at = s->vt + slot;
    if (at + 2 > s->pin.len)
        return -1;
    return ld_u16(s->pin.b + at);
}

/* The value of a present field at p; NULL: give up. */
static PyObject *
getter_present(Getter *g, PyObject *obj, const TState *s, uint64_t p)
{
    const unsigned char *b = s->pin.b;
    uint64_t len = s->pin.len;
    switch (g->kind) {
    case G_SCALAR:
        return p + sc_size[g->code] <= len ? scalar(g->code, b + p) : NULL;
    case G_STRING: {
        Buf buf = {b, len};
        return dec_string(buf, p);
    }
    case G_STRUCT:
        return p + g->shape.size <= len ? new_struct(&g->shape, &s->pin, p) : NULL;
    case G_TABLE: {
        PyTypeObject *cls = resolved(&g->cls, g->extra);
        if (cls == NULL || p + 4 > len)
            return NULL;
        return new_table(cls, &s->pin, p + ld_u32(b + p), obj, g->name);
    }
    case G_VECTOR: {
        uint64_t d, n;
        Buf buf = {b, len};
        if (vec_header(buf, p, g->esize, &d, &n) < 0)
            return NULL;
        return new_vector(&s->pin, d, n, g->extra, obj, g->name);
    }
    default: { /* G_UNION */
        int64_t to = field_at(s, g->type_slot);
        if (to < 0)
            return NULL;
        unsigned tag = 0;
        if (to) {
            if (s->t + (uint64_t)to >= len)
                return NULL;
            tag = b[s->t + (uint64_t)to];
        }
        PyObject *key = PyLong_FromLong((long)tag);
        if (key == NULL)
            return NULL;
        PyObject *m = PyDict_GetItemWithError(g->extra, key);
        Py_DECREF(key);
        if (m == NULL)
            return PyErr_Occurred() ? NULL : Py_NewRef(Py_None); /* unknown tag: None */
        if (m == Py_None || p + 4 > len)
            return NULL; /* a struct or string member: the reference reads it */
        Py_INCREF(m);
        PyObject *cls = PyObject_GetAttr(m, v_cls_str);
        Py_DECREF(m);
        if (cls == NULL)
            return NULL;
        PyObject *r = NULL;
        if (is_view_class(cls))
            r = new_table((PyTypeObject *)cls, &s->pin, p + ld_u32(b + p), obj, g->name);
        Py_DECREF(cls);
        return r;
    }
    }
}

static PyObject *
getter_get(PyObject *self, PyObject *obj, PyObject *type)
{
    (void)type;
    Getter *g = (Getter *)self;
    if (obj == NULL || obj == Py_None)
        return Py_NewRef(self);
    int on = views_enabled();
    if (on <= 0)
        return on < 0 ? NULL : PyObject_CallOneArg(g->fget, obj);
    TState s;
    if (tstate(obj, &s) < 0)
        return give_up(g->fget, obj, NULL);
    PyObject *r = NULL;
    int64_t o = field_at(&s, g->slot);
    if (o > 0)
        r = getter_present(g, obj, &s, s.t + (uint64_t)o);
    else if (o == 0)
        r = g->kind == G_SCALAR || g->kind == G_STRING ? Py_NewRef(g->dflt)
            : g->kind == G_VECTOR && g->dflt != Py_None ? PyList_New(0)
            : Py_NewRef(Py_None);
    PyBuffer_Release(&s.pin.view);
    return r != NULL ? r : give_up(g->fget, obj, NULL);
}

static int
getter_set(PyObject *self, PyObject *obj, PyObject *value)
{
    PyObject *prop = ((Getter *)self)->prop;
    return Py_TYPE(prop)->tp_descr_set(prop, obj, value);
}

static PyObject *
getter_set_name(PyObject *self, PyObject *args)
{
    PyObject *method = PyObject_GetAttrString(((Getter *)self)->prop, "__set_name__");
    if (method == NULL)
        return NULL;
    PyObject *r = PyObject_Call(method, args, NULL);
    Py_DECREF(method);
    return r;
}

static PyMethodDef getter_methods[] = {
    {"__set_name__", getter_set_name, METH_VARARGS, "Passed on to the reference property."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef getter_members[] = {
    {"fget", T_OBJECT, offsetof(Getter, fget), READONLY, "The reference getter."},
    {"property", T_OBJECT, offsetof(Getter, prop), READONLY, "The reference property."},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject Getter_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gameserde.flatbuffers._reader_speedups.Getter",
    .tp_basicsize = sizeof(Getter),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "A view field read in C, the reference property's getter on give-up.",
    .tp_traverse = getter_traverse,
    .tp_clear = getter_clear,
    .tp_dealloc = getter_dealloc,
    .tp_descr_get = getter_get,
    .tp_descr_set = getter_set,
    .tp_methods = getter_methods,
    .tp_members = getter_members,
};

PyDoc_STRVAR(getter_doc,
"getter(prop, kind, slot, name, default, a, b) -> Getter\n\n"
"The descriptor of a table field of kind G_SCALAR (a: scalar code), G_STRING, G_STRUCT\n"
"(a: (cls, size, flat, ((offset, code), ...))), G_TABLE (a: a callable giving the class),\n"
"G_VECTOR (a: the _Elem, b: its size) or G_UNION (a: {tag: table plan or None}, b: the\n"
"vtable slot of the _type field). prop is the reference property. ValueError if malformed.");

static PyObject *
rs_getter(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "getter() takes 7 arguments");
        return NULL;
    }
    if (!views_ready())
        return NULL;
    PyObject *prop = args[0];
    long kind, slot, code = 0, b = 0;
    if (int_in(args[1], 0, G_COUNT - 1, &kind, "getter kind") < 0 ||
        int_in(args[2], 4, 0xfffe, &slot, "slot") < 0)
        return NULL;
    if (!PyUnicode_Check(args[3]))
        return PyErr_Format(PyExc_ValueError, "compile(): malformed program (field name)");
    if (Py_TYPE(prop)->tp_descr_set == NULL)
        return PyErr_Format(PyExc_ValueError, "compile(): malformed program (property)");
    PyObject *fget = PyObject_GetAttrString(prop, "fget");
    if (fget == NULL)
        return NULL;
    if (!PyCallable_Check(fget)) {
        Py_DECREF(fget);
        return PyErr_Format(PyExc_ValueError, "compile(): malformed program (getter)");
    }
    Getter *g = PyObject_GC_New(Getter, &Getter_Type);
    if (g == NULL) {
        Py_DECREF(fget);
        return NULL;
    }
    g->prop = Py_NewRef(prop);
    g->fget = fget;
    g->name = Py_NewRef(args[3]);
    g->dflt = Py_NewRef(args[4]);
    g->extra = NULL;
    g->cls = NULL;
    memset(&g->shape, 0, sizeof(Shape));
    g->esize = 0;
    g->slot = (uint16_t)slot;
    g->type_slot = 0;
    g->kind = (uint8_t)kind;
    g->code = 0;
    PyObject_GC_Track(g);
    switch (kind) {
    case G_SCALAR:
        if (int_in(args[5], 0, SC_COUNT - 1, &code, "scalar code") < 0)
            goto fail;
        g->code = (uint8_t)code;
        break;
    case G_STRING:
        break;
    case G_STRUCT:
        if (shape_parse(&g->shape, args[5]) < 0)
            goto fail;
        break;
    case G_TABLE:
        if (!PyCallable_Check(args[5])) {
            bad_program("table resolver");
            goto fail;
        }
        g->extra = Py_NewRef(args[5]);
        break;
    case G_VECTOR:
        if (!PyObject_TypeCheck(args[5], v_elem)) {
            bad_program("vector element");
            goto fail;
        }
        if (int_in(args[6], 1, 1L << 24, &b, "element size") < 0)
            goto fail;
        g->extra = Py_NewRef(args[5]);
        g->esize = (uint32_t)b;
        break;
    default: /* G_UNION */
        if (!PyDict_Check(args[5])) {
            bad_program("union members");
            goto fail;
        }
        if (int_in(args[6], 4, 0xfffe, &b, "type slot") < 0)
            goto fail;
        g->extra = Py_NewRef(args[5]);
        g->type_slot = (uint16_t)b;
        break;
    }
    return (PyObject *)g;
fail:
    Py_DECREF(g);
    return NULL;
}

/* ----------------------------------------------------------------------------------------- */
/* VectorView methods                                                                         */

/* The vector's state: its slots, its element info (a new reference), its buffer pinned and
 * the data inside it; -1: give up (nothing held). */
typedef struct {
    Pin pin;
    uint64_t d, n;
    ElemInfo *e;
} VState;

static int
vstate(PyObject *self, VState *s)
{
    if (slot_int(self, vv_d, &s->d) < 0 || slot_int(self, vv_n, &s->n) < 0)
        return -1;
    PyObject *el = SLOT(self, vv_el);
    if (el == NULL || !PyObject_TypeCheck(el, v_elem))
        return -1;
    PyObject *fast = SLOT(el, el_fast);
    if (fast == NULL || !Py_IS_TYPE(fast, &ElemInfo_Type))
        return -1;
    if (pin(SLOT(self, vv_b), &s->pin) < 0)
        return -1;
    s->e = (ElemInfo *)Py_NewRef(fast);
    uint64_t len = s->pin.len;
    if (s->d > len || s->n > (len - s->d) / s->e->size) {
        Py_DECREF(s->e);
        PyBuffer_Release(&s->pin.view);
        return -1;
    }
    return 0;
}

static void
vstate_release(VState *s)
{
    Py_DECREF(s->e);
    PyBuffer_Release(&s->pin.view);
}

static PyObject *
vec_iter(PyObject *self, PyObject *unused)
{
    (void)unused;
    int on = views_enabled();
    if (on <= 0)
        return on < 0 ? NULL : PyObject_CallOneArg(v_iter_ref, self);
    VState s;
    if (vstate(self, &s) < 0)
        return give_up(v_iter_ref, self, NULL);
    const ElemInfo *e = s.e;
    PyObject *list = NULL;
    PyTypeObject *cls = NULL;
    if ((e->kind == E_SCALAR || (e->kind == E_STRUCT && e->shape.flat)) &&
        s.n > ITER_LIST_MAX)
        goto done; /* the reference's lazy iterator */
    if (e->kind == E_SCALAR && e->code == SC_F16)
        goto done; /* the reference's memoryview cannot cast to 'e': it decides */
    if (e->kind == E_TABLE && (cls = resolved(&s.e->cls, e->resolve)) == NULL)
        goto done;
    /* n * size <= len was checked: at most 8 pointers per buffer byte */
    list = PyList_New((Py_ssize_t)s.n);
    for (uint64_t i = 0; list != NULL && i < s.n; i++) {
        PyObject *x = elem_at(e, cls, &s.pin, s.d, i, self);
        if (x == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, x);
    }
done:
    vstate_release(&s);
    if (list == NULL)
        return give_up(v_iter_ref, self, NULL);
    PyObject *it = PyObject_GetIter(list);
    Py_DECREF(list);
    return it;
}

static PyObject *
vec_len(PyObject *self, PyObject *unused)
{
    (void)unused;
    int on = views_enabled();
    if (on < 0)
        return NULL;
    PyObject *n = SLOT(self, vv_n);
    if (!on || n == NULL)
        return PyObject_CallOneArg(v_len_ref, self);
    return Py_NewRef(n);
}

static PyObject *
vec_getitem(PyObject *self, PyObject *index)
{
    int on = views_enabled();
    if (on <= 0 || !PyLong_CheckExact(index))
        return on < 0 ? NULL : give_up(v_getitem_ref, self, index);
    VState s;
    if (vstate(self, &s) < 0)
        return give_up(v_getitem_ref, self, index);
    PyObject *r = NULL;
    PyTypeObject *cls = NULL;
    long long i = PyLong_AsLongLong(index);
    if (i == -1 && PyErr_Occurred())
        goto done;
    if (i < 0)
        i += (long long)s.n;
    if (i < 0 || (uint64_t)i >= s.n)
        goto done; /* the reference raises IndexError */
    if (s.e->kind == E_TABLE && (cls = resolved(&s.e->cls, s.e->resolve)) == NULL)
        goto done;
    r = elem_at(s.e, cls, &s.pin, s.d, (uint64_t)i, self);
done:
    vstate_release(&s);
    return r != NULL ? r : give_up(v_getitem_ref, self, index);
}

static PyMethodDef vector_methods[] = {
    {"__iter__", vec_iter, METH_NOARGS, "Implement iter(self)."},
    {"__len__", vec_len, METH_NOARGS, "Return len(self)."},
    {"__getitem__", vec_getitem, METH_O, "Return self[index]."},
};

/* ----------------------------------------------------------------------------------------- */
/* root: view()'s root table                                                                  */

PyDoc_STRVAR(root_doc,
"root(cls, buf, size_prefixed) -> view | None\n\n"
"The root table of buf (bytes, bytearray or a 1-D memoryview of format B) as a view of\n"
"class cls, as view() makes it, or None: give up (run the reference). Raises only\n"
"MemoryError.");

static PyObject *
rs_root(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "root() takes 3 arguments");
        return NULL;
    }
    if (!views_ready())
        return NULL;
    PyObject *cls = args[0], *buf = args[1], *mv = NULL, *r = NULL;
    int on = views_enabled();
    int size_prefixed = PyObject_IsTrue(args[2]);
    if (on <= 0 || size_prefixed < 0 || !is_view_class(cls))
        goto done;
    if (PyBytes_CheckExact(buf) || PyByteArray_CheckExact(buf))
        mv = PyMemoryView_FromObject(buf); /* format B, 1-D: as the reference's _as_view */
    else if (PyMemoryView_Check(buf))
        mv = Py_NewRef(buf); /* pin() takes only format B, 1-D: the reference uses it as is */
    if (mv == NULL)
        goto done;
    Pin p;
    if (pin(mv, &p) < 0)
        goto done;
    uint64_t start = 0;
    if (size_prefixed) {
        if (p.len < 4 || (uint64_t)ld_u32(p.b) + 4 > p.len)
            goto release;
        start = 4;
    }
    if (start + 4 <= p.len)
        r = new_table((PyTypeObject *)cls, &p, start + ld_u32(p.b + start), Py_None, Py_None);
release:
    PyBuffer_Release(&p.view);
done:
    Py_XDECREF(mv);
    if (r == NULL && PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_MemoryError))
            return NULL;
        PyErr_Clear();
    }
    return r != NULL ? r : Py_NewRef(Py_None);
}

/* ----------------------------------------------------------------------------------------- */
/* setup_views                                                                                */

/* The offset of the __slots__ member `name` of type (an object slot). */
static int
member_offset(PyTypeObject *type, const char *name, Py_ssize_t *out)
{
    PyObject *d = PyDict_GetItemString(type->tp_dict, name);
    if (d == NULL || !PyObject_TypeCheck(d, &PyMemberDescr_Type) ||
        PyDescr_TYPE(d) != type) {
        PyErr_Format(PyExc_ValueError, "setup_views(): %s.%s is not a slot", type->tp_name,
                     name);
        return -1;
    }
    PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
    if (m->type != T_OBJECT_EX || (m->flags & READONLY) ||
        m->offset < (Py_ssize_t)sizeof(PyObject) ||
        m->offset + (Py_ssize_t)sizeof(PyObject *) > type->tp_basicsize) {
        PyErr_Format(PyExc_ValueError, "setup_views(): %s.%s is not an object slot",
                     type->tp_name, name);
        return -1;
    }
    *out = m->offset;
    return 0;
}

PyDoc_STRVAR(setup_views_doc,
"setup_views(flags, TableView, LazyStructView, VectorView, _Elem, iter, len, getitem)\n"
"    -> (__iter__, __len__, __getitem__)\n\n"
"Prepare getter() and elem(): flags is _accel.__dict__ (ENABLED is read on each call), the\n"
"classes give the slot offsets, iter/len/getitem are VectorView's reference methods. Returns\n"
"the C methods to put on VectorView. ValueError if a class does not have the expected slots.");

static PyObject *
rs_setup_views(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "setup_views() takes 8 arguments");
        return NULL;
    }
#if PY_BIG_ENDIAN
    return PyErr_Format(PyExc_ValueError, "setup_views(): the readers assume little-endian");
#endif
    if (!PyDict_Check(args[0]))
        return PyErr_Format(PyExc_ValueError, "setup_views(): flags is not a dict");
    for (int k = 1; k < 5; k++)
        if (!PyType_Check(args[k]) || ((PyTypeObject *)args[k])->tp_itemsize != 0)
            return PyErr_Format(PyExc_ValueError, "setup_views(): not a class");
    for (int k = 5; k < 8; k++)
        if (!PyCallable_Check(args[k]))
            return PyErr_Format(PyExc_ValueError, "setup_views(): not callable");
    PyTypeObject *table = (PyTypeObject *)args[1], *lazy = (PyTypeObject *)args[2],
                 *vector = (PyTypeObject *)args[3], *elem = (PyTypeObject *)args[4];
    if (member_offset(table, "_b", &tb_b) < 0 || member_offset(table, "_t", &tb_t) < 0 ||
        member_offset(table, "_vt", &tb_vt) < 0 || member_offset(table, "_vs", &tb_vs) < 0 ||
        member_offset(table, "_par", &tb_par) < 0 ||
        member_offset(table, "_step", &tb_step) < 0 || member_offset(lazy, "_b", &ls_b) < 0 ||
        member_offset(lazy, "_p", &ls_p) < 0 || member_offset(vector, "_b", &vv_b) < 0 ||
        member_offset(vector, "_d", &vv_d) < 0 || member_offset(vector, "_n", &vv_n) < 0 ||
        member_offset(vector, "_el", &vv_el) < 0 || member_offset(vector, "_par", &vv_par) < 0 ||
        member_offset(vector, "_step", &vv_step) < 0 ||
        member_offset(vector, "_aux", &vv_aux) < 0 || member_offset(elem, "fast", &el_fast) < 0)
        return NULL;
    PyObject *methods = PyTuple_New(3);
    if (methods == NULL)
        return NULL;
    for (int k = 0; k < 3; k++) {
        PyObject *m = PyDescr_NewMethod(vector, &vector_methods[k]);
        if (m == NULL) {
            Py_DECREF(methods);
            return NULL;
        }
        PyTuple_SET_ITEM(methods, k, m);
    }
    if (v_enabled == NULL && (v_enabled = PyUnicode_InternFromString("ENABLED")) == NULL)
        goto fail;
    if (v_cls_str == NULL && (v_cls_str = PyUnicode_InternFromString("cls")) == NULL)
        goto fail;
    Py_XSETREF(v_flags, Py_NewRef(args[0]));
    Py_XSETREF(v_table, (PyTypeObject *)Py_NewRef(table));
    Py_XSETREF(v_lazy, (PyTypeObject *)Py_NewRef(lazy));
    Py_XSETREF(v_vector, (PyTypeObject *)Py_NewRef(vector));
    Py_XSETREF(v_elem, (PyTypeObject *)Py_NewRef(elem));
    Py_XSETREF(v_iter_ref, Py_NewRef(args[5]));
    Py_XSETREF(v_len_ref, Py_NewRef(args[6]));
    Py_XSETREF(v_getitem_ref, Py_NewRef(args[7]));
    return methods;
fail:
    Py_DECREF(methods);
    return NULL;
}

/* ========================================================================================= */
/* Module                                                                                    */
/* ========================================================================================= */

static PyMethodDef methods[] = {
    {"compile", (PyCFunction)rs_compile, METH_O, compile_doc},
    {"decode", (PyCFunction)(void (*)(void))rs_decode, METH_FASTCALL, decode_doc},
    {"setup_views", (PyCFunction)(void (*)(void))rs_setup_views, METH_FASTCALL,
     setup_views_doc},
    {"getter", (PyCFunction)(void (*)(void))rs_getter, METH_FASTCALL, getter_doc},
    {"elem", (PyCFunction)(void (*)(void))rs_elem, METH_FASTCALL, elem_doc},
    {"root", (PyCFunction)(void (*)(void))rs_root, METH_FASTCALL, root_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT,
    "gameserde.flatbuffers._reader_speedups",
    "Optional C accelerator of gameserde.flatbuffers' decode() and view(); see _accel.py.",
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
    if (PyType_Ready(&Getter_Type) < 0 || PyType_Ready(&ElemInfo_Type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    if (PyModule_AddIntConstant(m, "API_VERSION", API_VERSION) < 0 ||
        PyModule_AddIntConstant(m, "ITER_LIST_MAX", ITER_LIST_MAX) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
