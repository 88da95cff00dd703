/*
 * gameserde.flatbuffers._encoder_speedups: the optional C encoder behind
 * gameserde.flatbuffers.encode() (see _accel.py and _encoder_program.py).
 *
 * The pure-Python encoder (encoder.py on builder.py's Builder(flatc_compatible=True)) is the
 * reference. This module replays the same algorithm for the common subset of dict values and
 * produces exactly the same bytes.
 *
 * Program
 * -------
 * compile(spec) turns the tuples built by _encoder_program.compile_spec into C arrays kept in
 * a capsule (the spec tuple itself is kept alive: every dict/str pointer below is borrowed
 * from it):
 *
 *   program = (tables, structs, unions, root_table_index)
 *   table   = (index {name: field index}, nslots, fields, order, required, has_union)
 *   field   = (kind, slot, scalar, optional, default, names, ref, vkind, keyed, union_field,
 *              shared, force_align, type_fields, text)
 *   struct  = (size, align, sfields, index {name: sfield index})
 *   sfield  = (offset, scalar or -1, struct ref or -1, array length or 0, elem size, names,
 *              text)
 *   union   = (names {name: tag}, ((tag, kind, ref), ...))
 *
 * kind/vkind: K_GIVEUP, K_INT, K_FLOAT, K_STRING, K_STRUCT, K_TABLE, K_VECTOR, K_UNION;
 * scalar: SC_I8 ... SC_F64 (the struct formats b B h H i I q Q f d); names: enum names
 * accepted for an integer (None: no names); text: what a string given for an integer may be
 * (TEXT_INT: a number; TEXT_ENUM: also a name or bit flags; TEXT_BOOL: also true/false;
 * TEXT_HASH: only a JSON bare token not starting with a letter or '_'); default: None (optional scalar or out of range:
 * always written) or the field's default; keyed: vector of keyed tables/structs (1: give up
 * for 2+ elements, 2: give up for 1+); shared: (shared) strings, deduplicated by content;
 * force_align: a vector's force_align (0: none); type_fields: for a union value, the indices
 * of the table's _type fields of the same union by descending id (see JSON rules).
 *
 * Encoding
 * --------
 * encode(program, value, file_identifier, size_prefixed) builds into a private growable
 * back-to-front buffer ("off" = bytes written so far = the handle of the last object), with
 * the Builder's operations (prep/alignment, minalign, strings, vectors, start/end of tables
 * with the vtable deduplication, finish). A table's children are created in the dict's key
 * order, then its fields are added in the plan's order, skipping scalars equal to their
 * default.
 *
 * Give-up rule
 * ------------
 * Every function returns 0 or GIVE_UP. encode() returns None as soon as anything is outside
 * the subset it mirrors exactly -- any type other than the exact ones the reference uses
 * unchanged (dict, list/tuple, str, bytes, int, bool, float), an unknown key, a value the
 * reference would reject or convert by parsing text, a K_GIVEUP field, depth > MAX_DEPTH,
 * a buffer near 2 GiB, any C-API failure (the error is cleared) -- and never raises for a
 * value: the caller then runs the reference, which gives the bytes or the exact error.
 * No Python code runs during a walk (only exact builtin types are touched and all dict keys
 * are exact str), so the borrowed references stay valid.
 *
 * JSON rules
 * ----------
 * encode(..., (Bare, Escaped)) with the reference parser's classes encodes a document read
 * by _json_speedups.parse for from_json(), with the reference's JSON rules: an Escaped string
 * is only a string (never a scalar), a Bare token is
 * looked up in an integer's names (enum values; true/false of a bool) or read as a
 * hexadecimal integer (the reference hashes a Bare token for a hash field only when it
 * starts with a letter or '_'), or is one of the float names (nan, inf ...), and a union value
 * takes its tag from the _type field of the same union with the highest id among those
 * parsed before it in the same table, else from its own _type if that is the very next key
 * and the value holds no bare identifier (the reference's look-ahead cannot skip one).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define GIVE_UP (-1)
#define MAX_DEPTH 64
#define MAX_BUFFER ((size_t)0x7FFF0000) /* well below the reference's 2 GiB limit */

enum { K_GIVEUP, K_INT, K_FLOAT, K_STRING, K_STRUCT, K_TABLE, K_VECTOR, K_UNION };
enum { SC_I8, SC_U8, SC_I16, SC_U16, SC_I32, SC_U32, SC_I64, SC_U64, SC_F32, SC_F64, SC_N };
enum { TEXT_INT, TEXT_ENUM, TEXT_BOOL, TEXT_HASH };

static const uint8_t SC_SIZE[SC_N] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
static const int64_t SC_MIN[SC_U64] = {-128, 0, -32768, 0, INT32_MIN, 0, INT64_MIN};
static const int64_t SC_MAX[SC_U64] = {127, 255, 32767, 65535, INT32_MAX, UINT32_MAX,
                                       INT64_MAX};

/* ------------------------------------------------------------------------------------------
 * The program
 */

typedef struct {
    uint8_t kind, sc, vkind, optional, has_default, keyed, shared, text;
    uint32_t slot, force_align;
    int32_t ref;            /* struct, table or union index (vectors: the element's) */
    uint32_t *type_fields;  /* K_UNION: the table's _type fields of the same union */
    uint32_t ntype_fields;
    uint64_t def_bits;      /* integer default, two's complement */
    double def_float;
    PyObject *names;        /* dict name -> int, or NULL */
    PyObject *union_field;  /* the union's _type key (K_UNION) */
} Field;

typedef struct {
    uint32_t offset, count, elem_size; /* count 0: not an array */
    int32_t sc;                        /* scalar code, or -1 for a struct */
    int32_t ref;                       /* struct index */
    PyObject *names;
    uint8_t text;
} SField;

typedef struct {
    uint32_t size, align, nfields;
    SField *fields;
    PyObject *index;
} Struct;

typedef struct {
    uint8_t kind; /* 0: no member with this tag, else K_STRING/K_STRUCT/K_TABLE */
    int32_t ref;
} Member;

typedef struct {
    PyObject *names;
    Member members[256];
} Union;

typedef struct {
    PyObject *index;
    uint32_t nslots, nfields, norder, nrequired;
    int has_union;
    Field *fields;
    uint32_t *order, *required;
} Table;

typedef struct {
    PyObject *spec;
    Table *tables;
    Struct *structs;
    Union *unions;
    uint32_t ntables, nstructs, nunions, root, max_slots;
} Program;

#define CAPSULE_NAME "gameserde.flatbuffers._encoder_speedups.Program"

static void program_free(Program *p)
{
    uint32_t i;
    if (p == NULL)
        return;
    if (p->tables != NULL) {
        for (i = 0; i < p->ntables; i++) {
            uint32_t k;
            if (p->tables[i].fields != NULL)
                for (k = 0; k < p->tables[i].nfields; k++)
                    PyMem_Free(p->tables[i].fields[k].type_fields);
            PyMem_Free(p->tables[i].fields);
            PyMem_Free(p->tables[i].order);
            PyMem_Free(p->tables[i].required);
        }
    }
    if (p->structs != NULL) {
        for (i = 0; i < p->nstructs; i++)
            PyMem_Free(p->structs[i].fields);
    }
    PyMem_Free(p->tables);
    PyMem_Free(p->structs);
    PyMem_Free(p->unions);
    Py_XDECREF(p->spec);
    PyMem_Free(p);
}

static void capsule_destructor(PyObject *capsule)
{
    program_free((Program *)PyCapsule_GetPointer(capsule, CAPSULE_NAME));
}

/* -- compiling the spec (errors raise: the spec is ours, not a user value) --------------- */

static PyObject *spec_tuple(PyObject *o, Py_ssize_t n, const char *what)
{
    if (!PyTuple_Check(o) || (n >= 0 && PyTuple_GET_SIZE(o) != n)) {
        PyErr_Format(PyExc_ValueError, "bad encoder program: %s", what);
        return NULL;
    }
    return o;
}

static int spec_long(PyObject *o, long lo, long hi, long *out, const char *what)
{
    long v;
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_ValueError, "bad encoder program: %s", what);
        return -1;
    }
    v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "bad encoder program: %s out of range", what);
        return -1;
    }
    *out = v;
    return 0;
}

static int spec_dict_or_none(PyObject *o, PyObject **out, const char *what)
{
    if (o == Py_None) {
        *out = NULL;
        return 0;
    }
    if (!PyDict_CheckExact(o)) {
        PyErr_Format(PyExc_ValueError, "bad encoder program: %s", what);
        return -1;
    }
    *out = o;
    return 0;
}

static int compile_default(Field *f, PyObject *d)
{
    f->has_default = 0;
    if (d == Py_None)
        return 0;
    f->has_default = 1;
    if (f->kind == K_FLOAT) {
        if (!PyFloat_Check(d)) {
            PyErr_SetString(PyExc_ValueError, "bad encoder program: float default");
            return -1;
        }
        f->def_float = PyFloat_AS_DOUBLE(d);
        return 0;
    }
    if (!PyLong_Check(d)) {
        PyErr_SetString(PyExc_ValueError, "bad encoder program: integer default");
        return -1;
    }
    if (f->sc == SC_U64) {
        f->def_bits = PyLong_AsUnsignedLongLong(d);
    } else {
        f->def_bits = (uint64_t)PyLong_AsLongLong(d);
    }
    return PyErr_Occurred() ? -1 : 0;
}

static int compile_field(const Program *p, Field *f, PyObject *spec)
{
    long kind, slot, sc, ref, vkind, keyed, force_align, text;
    if (spec_tuple(spec, 14, "field") == NULL)
        return -1;
    if (spec_long(PyTuple_GET_ITEM(spec, 0), K_GIVEUP, K_UNION, &kind, "field kind") < 0
        || spec_long(PyTuple_GET_ITEM(spec, 1), 0, 65535, &slot, "slot") < 0
        || spec_long(PyTuple_GET_ITEM(spec, 2), 0, SC_N - 1, &sc, "scalar") < 0
        || spec_long(PyTuple_GET_ITEM(spec, 6), -1, INT32_MAX, &ref, "ref") < 0
        || spec_long(PyTuple_GET_ITEM(spec, 7), K_GIVEUP, K_UNION, &vkind, "vkind") < 0
        || spec_long(PyTuple_GET_ITEM(spec, 8), 0, 2, &keyed, "keyed") < 0
        || spec_long(PyTuple_GET_ITEM(spec, 11), 0, 32, &force_align, "force_align") < 0
        || spec_long(PyTuple_GET_ITEM(spec, 13), TEXT_INT, TEXT_HASH, &text, "text") < 0)
        return -1;
    if (force_align & (force_align - 1)) {
        PyErr_SetString(PyExc_ValueError, "bad encoder program: force_align");
        return -1;
    }
    f->force_align = (uint32_t)force_align;
    f->shared = (uint8_t)PyObject_IsTrue(PyTuple_GET_ITEM(spec, 10));
    f->kind = (uint8_t)kind;
    f->slot = (uint32_t)slot;
    f->sc = (uint8_t)sc;
    f->ref = (int32_t)ref;
    f->vkind = (uint8_t)vkind;
    f->keyed = (uint8_t)keyed;
    f->text = (uint8_t)text;
    f->optional = (uint8_t)PyObject_IsTrue(PyTuple_GET_ITEM(spec, 3));
    if (spec_dict_or_none(PyTuple_GET_ITEM(spec, 5), &f->names, "names") < 0)
        return -1;
    f->union_field = PyTuple_GET_ITEM(spec, 9);
    if (kind == K_INT || kind == K_FLOAT) {
        if ((kind == K_FLOAT) != (sc >= SC_F32)) {
            PyErr_SetString(PyExc_ValueError, "bad encoder program: scalar kind");
            return -1;
        }
        if (compile_default(f, PyTuple_GET_ITEM(spec, 4)) < 0)
            return -1;
    }
    if (kind == K_UNION && (!PyUnicode_CheckExact(f->union_field)
                            || ref < 0 || (uint32_t)ref >= p->nunions)) {
        PyErr_SetString(PyExc_ValueError, "bad encoder program: union field");
        return -1;
    }
    if ((kind == K_STRUCT || (kind == K_VECTOR && vkind == K_STRUCT))
        && (ref < 0 || (uint32_t)ref >= p->nstructs)) {
        PyErr_SetString(PyExc_ValueError, "bad encoder program: struct ref");
        return -1;
    }
    if ((kind == K_TABLE || (kind == K_VECTOR && vkind == K_TABLE))
        && (ref < 0 || (uint32_t)ref >= p->ntables)) {
        PyErr_SetString(PyExc_ValueError, "bad encoder program: table ref");
        return -1;
    }
    if (kind == K_VECTOR && (vkind == K_INT || vkind == K_FLOAT)
        && (vkind == K_FLOAT) != (sc >= SC_F32)) {
        PyErr_SetString(PyExc_ValueError, "bad encoder program: vector scalar kind");
        return -1;
    }
    return 0;
}

static int compile_indices(PyObject *spec, uint32_t bound, uint32_t **out, uint32_t *n)
{
    Py_ssize_t i, len;
    long v;
    if (spec_tuple(spec, -1, "index list") == NULL)
        return -1;
    len = PyTuple_GET_SIZE(spec);
    *out = PyMem_Calloc((size_t)len + 1, sizeof(uint32_t));
    if (*out == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *n = (uint32_t)len;
    for (i = 0; i < len; i++) {
        if (spec_long(PyTuple_GET_ITEM(spec, i), 0, (long)bound - 1, &v, "index") < 0)
            return -1;
        (*out)[i] = (uint32_t)v;
    }
    return 0;
}

static int compile_table(Program *p, Table *t, PyObject *spec)
{
    PyObject *fields;
    Py_ssize_t i, n;
    long nslots;
    if (spec_tuple(spec, 6, "table") == NULL)
        return -1;
    if (!PyDict_CheckExact(PyTuple_GET_ITEM(spec, 0))) {
        PyErr_SetString(PyExc_ValueError, "bad encoder program: table index");
        return -1;
    }
    t->index = PyTuple_GET_ITEM(spec, 0);
    if (spec_long(PyTuple_GET_ITEM(spec, 1), 0, 65535, &nslots, "nslots") < 0)
        return -1;
    t->nslots = (uint32_t)nslots;
    if (t->nslots > p->max_slots)
        p->max_slots = t->nslots;
    fields = spec_tuple(PyTuple_GET_ITEM(spec, 2), -1, "fields");
    if (fields == NULL)
        return -1;
    n = PyTuple_GET_SIZE(fields);
    t->fields = PyMem_Calloc((size_t)n + 1, sizeof(Field));
    if (t->fields == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    t->nfields = (uint32_t)n;
    for (i = 0; i < n; i++) {
        if (compile_field(p, &t->fields[i], PyTuple_GET_ITEM(fields, i)) < 0)
            return -1;
        if (t->fields[i].slot >= t->nslots) {
            PyErr_SetString(PyExc_ValueError, "bad encoder program: slot out of range");
            return -1;
        }
    }
    for (i = 0; i < n; i++) {
        Field *f = &t->fields[i];
        uint32_t k;
        if (compile_indices(PyTuple_GET_ITEM(PyTuple_GET_ITEM(fields, i), 12), t->nfields,
                            &f->type_fields, &f->ntype_fields) < 0)
            return -1;
        for (k = 0; k < f->ntype_fields; k++) {
            if (f->kind != K_UNION || t->fields[f->type_fields[k]].kind != K_INT) {
                PyErr_SetString(PyExc_ValueError, "bad encoder program: type_fields");
                return -1;
            }
        }
    }
    if (compile_indices(PyTuple_GET_ITEM(spec, 3), t->nfields, &t->order, &t->norder) < 0
        || compile_indices(PyTuple_GET_ITEM(spec, 4), t->nfields, &t->required,
                           &t->nrequired) < 0)
        return -1;
    t->has_union = PyObject_IsTrue(PyTuple_GET_ITEM(spec, 5));
    return 0;
}

static int compile_struct(Program *p, Struct *s, PyObject *spec)
{
    PyObject *fields;
    Py_ssize_t i, n;
    long size, align, v;
    if (spec_tuple(spec, 4, "struct") == NULL)
        return -1;
    if (spec_long(PyTuple_GET_ITEM(spec, 0), 1, 1 << 24, &size, "struct size") < 0
        || spec_long(PyTuple_GET_ITEM(spec, 1), 1, 256, &align, "struct align") < 0)
        return -1;
    if (align & (align - 1)) {
        PyErr_SetString(PyExc_ValueError, "bad encoder program: struct align");
        return -1;
    }
    s->size = (uint32_t)size;
    s->align = (uint32_t)align;
    if (!PyDict_CheckExact(PyTuple_GET_ITEM(spec, 3))) {
        PyErr_SetString(PyExc_ValueError, "bad encoder program: struct index");
        return -1;
    }
    s->index = PyTuple_GET_ITEM(spec, 3);
    fields = spec_tuple(PyTuple_GET_ITEM(spec, 2), -1, "struct fields");
    if (fields == NULL)
        return -1;
    n = PyTuple_GET_SIZE(fields);
    s->fields = PyMem_Calloc((size_t)n + 1, sizeof(SField));
    if (s->fields == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    s->nfields = (uint32_t)n;
    for (i = 0; i < n; i++) {
        SField *f = &s->fields[i];
        PyObject *fs = spec_tuple(PyTuple_GET_ITEM(fields, i), 7, "struct field");
        if (fs == NULL)
            return -1;
        if (spec_long(PyTuple_GET_ITEM(fs, 0), 0, size - 1, &v, "offset") < 0)
            return -1;
        f->offset = (uint32_t)v;
        if (spec_long(PyTuple_GET_ITEM(fs, 1), -1, SC_N - 1, &v, "struct scalar") < 0)
            return -1;
        f->sc = (int32_t)v;
        if (spec_long(PyTuple_GET_ITEM(fs, 2), -1, (long)p->nstructs - 1, &v, "sref") < 0)
            return -1;
        f->ref = (int32_t)v;
        if (spec_long(PyTuple_GET_ITEM(fs, 3), 0, size, &v, "array length") < 0)
            return -1;
        f->count = (uint32_t)v;
        if (spec_long(PyTuple_GET_ITEM(fs, 4), 1, size, &v, "element size") < 0)
            return -1;
        f->elem_size = (uint32_t)v;
        if (spec_dict_or_none(PyTuple_GET_ITEM(fs, 5), &f->names, "struct names") < 0)
            return -1;
        if (spec_long(PyTuple_GET_ITEM(fs, 6), TEXT_INT, TEXT_HASH, &v, "struct text") < 0)
            return -1;
        f->text = (uint8_t)v;
        if ((f->sc < 0) == (f->ref < 0)
            || (f->sc >= 0 && f->elem_size != SC_SIZE[f->sc])
            || (uint64_t)f->offset + (uint64_t)f->elem_size * (f->count ? f->count : 1)
                   > (uint64_t)size) {
            PyErr_SetString(PyExc_ValueError, "bad encoder program: struct field layout");
            return -1;
        }
    }
    return 0;
}

static int compile_union(Program *p, Union *u, PyObject *spec)
{
    PyObject *members;
    Py_ssize_t i, n;
    long tag, kind, ref;
    if (spec_tuple(spec, 2, "union") == NULL)
        return -1;
    if (spec_dict_or_none(PyTuple_GET_ITEM(spec, 0), &u->names, "union names") < 0)
        return -1;
    members = spec_tuple(PyTuple_GET_ITEM(spec, 1), -1, "union members");
    if (members == NULL)
        return -1;
    n = PyTuple_GET_SIZE(members);
    for (i = 0; i < n; i++) {
        PyObject *m = spec_tuple(PyTuple_GET_ITEM(members, i), 3, "union member");
        if (m == NULL
            || spec_long(PyTuple_GET_ITEM(m, 0), 0, 255, &tag, "tag") < 0
            || spec_long(PyTuple_GET_ITEM(m, 1), K_STRING, K_TABLE, &kind, "member") < 0
            || spec_long(PyTuple_GET_ITEM(m, 2), -1, INT32_MAX, &ref, "member ref") < 0)
            return -1;
        if ((kind == K_STRUCT && (ref < 0 || (uint32_t)ref >= p->nstructs))
            || (kind == K_TABLE && (ref < 0 || (uint32_t)ref >= p->ntables))) {
            PyErr_SetString(PyExc_ValueError, "bad encoder program: member ref");
            return -1;
        }
        u->members[tag].kind = (uint8_t)kind;
        u->members[tag].ref = (int32_t)ref;
    }
    return 0;
}

static PyObject *mod_compile(PyObject *module, PyObject *spec)
{
    PyObject *tables, *structs, *unions, *capsule;
    Program *p;
    Py_ssize_t i;
    long root;
    (void)module;
    if (spec_tuple(spec, 4, "program") == NULL)
        return NULL;
    tables = spec_tuple(PyTuple_GET_ITEM(spec, 0), -1, "tables");
    structs = spec_tuple(PyTuple_GET_ITEM(spec, 1), -1, "structs");
    unions = spec_tuple(PyTuple_GET_ITEM(spec, 2), -1, "unions");
    if (tables == NULL || structs == NULL || unions == NULL)
        return NULL;
    p = PyMem_Calloc(1, sizeof(Program));
    if (p == NULL)
        return PyErr_NoMemory();
    Py_INCREF(spec);
    p->spec = spec;
    p->ntables = (uint32_t)PyTuple_GET_SIZE(tables);
    p->nstructs = (uint32_t)PyTuple_GET_SIZE(structs);
    p->nunions = (uint32_t)PyTuple_GET_SIZE(unions);
    p->tables = PyMem_Calloc((size_t)p->ntables + 1, sizeof(Table));
    p->structs = PyMem_Calloc((size_t)p->nstructs + 1, sizeof(Struct));
    p->unions = PyMem_Calloc((size_t)p->nunions + 1, sizeof(Union));
    if (p->tables == NULL || p->structs == NULL || p->unions == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    /* every array is allocated above, so references may point anywhere (checked) */
    for (i = 0; i < (Py_ssize_t)p->nstructs; i++)
        if (compile_struct(p, &p->structs[i], PyTuple_GET_ITEM(structs, i)) < 0)
            goto fail;
    for (i = 0; i < (Py_ssize_t)p->nunions; i++)
        if (compile_union(p, &p->unions[i], PyTuple_GET_ITEM(unions, i)) < 0)
            goto fail;
    for (i = 0; i < (Py_ssize_t)p->ntables; i++)
        if (compile_table(p, &p->tables[i], PyTuple_GET_ITEM(tables, i)) < 0)
            goto fail;
    if (spec_long(PyTuple_GET_ITEM(spec, 3), 0, (long)p->ntables - 1, &root, "root") < 0)
        goto fail;
    p->root = (uint32_t)root;
    capsule = PyCapsule_New(p, CAPSULE_NAME, capsule_destructor);
    if (capsule == NULL)
        goto fail;
    return capsule;
fail:
    program_free(p);
    return NULL;
}

/* ------------------------------------------------------------------------------------------
 * The encoding context: the buffer, and stacks for pending field values, packed structs and
 * vector element handles (indexed, never pointed into: they may move when they grow).
 */

typedef struct {
    uint8_t set;
    uint64_t bits;  /* K_INT: two's complement; K_FLOAT: the double's bits */
    double d;
    size_t ref;     /* an object's handle, or a packed struct's arena position */
} Val;

typedef struct {
    uint32_t hash, off;
} SetEntry;

/* Objects written earlier (vtables, shared strings) by content hash: open addressing on
 * handles, 0 = empty. */
typedef struct {
    SetEntry *e;
    size_t cap, count;
} OffsetSet;

typedef struct {
    const Program *p;
    uint8_t *buf;
    size_t cap, off; /* the data is buf[cap - off, cap) */
    size_t minalign;
    Val *vals;
    size_t nvals, capvals;
    uint8_t *arena;
    size_t narena, caparena;
    uint32_t *handles;
    size_t nhandles, caphandles;
    uint32_t *vt;      /* the open table's field distances (0: unset) */
    uint16_t *vtbytes; /* scratch for the vtable being written */
    size_t vtslots;    /* the capacity of vt (vtbytes: + 2) */
    OffsetSet vtables; /* every vtable written */
    OffsetSet shared;  /* every (shared) string written */
    int depth;
} Ctx;

static int grow(void **ptr, size_t *cap, size_t need, size_t elem)
{
    size_t ncap = *cap ? *cap : 16;
    void *np;
    while (ncap < need) {
        if (ncap > MAX_BUFFER)
            return GIVE_UP;
        ncap *= 2;
    }
    np = PyMem_Realloc(*ptr, ncap * elem);
    if (np == NULL)
        return GIVE_UP;
    *ptr = np;
    *cap = ncap;
    return 0;
}

/* -- the buffer: the Builder's raw operations --------------------------------------------- */

static inline uint8_t *head(Ctx *c)
{
    return c->buf + c->cap - c->off;
}

/* Make room for n more bytes in front of the head (the data moves to the new end). */
static int reserve(Ctx *c, size_t n)
{
    size_t ncap;
    uint8_t *nb;
    if (c->cap - c->off >= n)
        return 0;
    if (n > MAX_BUFFER || c->off + n > MAX_BUFFER)
        return GIVE_UP;
    ncap = c->cap ? c->cap : 256;
    while (ncap < c->off + n)
        ncap *= 2;
    nb = PyMem_Malloc(ncap);
    if (nb == NULL)
        return GIVE_UP;
    if (c->off)
        memcpy(nb + ncap - c->off, head(c), c->off);
    PyMem_Free(c->buf);
    c->buf = nb;
    c->cap = ncap;
    return 0;
}

/* Claim n bytes (uninitialised) in front of the head; returns their start or NULL. */
static uint8_t *claim(Ctx *c, size_t n)
{
    if (reserve(c, n) < 0)
        return NULL;
    c->off += n;
    return head(c);
}

static int pad(Ctx *c, size_t n)
{
    uint8_t *p;
    if (n == 0)
        return 0;
    p = claim(c, n);
    if (p == NULL)
        return GIVE_UP;
    memset(p, 0, n);
    return 0;
}

/* Builder.prep: zero padding so that a value aligned to `align` can follow `additional`
 * more bytes; records the alignment in minalign. */
static int prep(Ctx *c, size_t align, size_t additional)
{
    if (align <= 1)
        return 0;
    if (align > c->minalign)
        c->minalign = align;
    return pad(c, (0 - (c->off + additional)) & (align - 1));
}

static void put_le(uint8_t *p, uint64_t x, int size)
{
    int i;
    for (i = 0; i < size; i++)
        p[i] = (uint8_t)(x >> (8 * i));
}

static int put_u32(Ctx *c, uint32_t x)
{
    uint8_t *p = claim(c, 4);
    if (p == NULL)
        return GIVE_UP;
    put_le(p, x, 4);
    return 0;
}

/* The little-endian bits of a converted scalar (floats: the float32/float64 pattern). */
static uint64_t scalar_bits(int sc, const Val *v)
{
    if (sc == SC_F32) {
        float f = (float)v->d;
        uint32_t b;
        memcpy(&b, &f, 4);
        return b;
    }
    if (sc == SC_F64) {
        uint64_t b;
        memcpy(&b, &v->d, 8);
        return b;
    }
    return v->bits;
}

/* Builder.prepend_<type>: align to the size, then the value. */
static int push_scalar(Ctx *c, int sc, const Val *v)
{
    size_t size = SC_SIZE[sc];
    uint8_t *p;
    if (pad(c, (0 - c->off) & (size - 1)) < 0)
        return GIVE_UP;
    p = claim(c, size);
    if (p == NULL)
        return GIVE_UP;
    put_le(p, scalar_bits(sc, v), (int)size);
    if (size > c->minalign)
        c->minalign = size;
    return 0;
}

/* Builder.prepend_uoffset_relative: align 4, then the distance to the object `target`. */
static int push_uoffset(Ctx *c, size_t target)
{
    if (pad(c, (0 - c->off) & 3) < 0 || reserve(c, 4) < 0)
        return GIVE_UP;
    if (c->minalign < 4)
        c->minalign = 4;
    return put_u32(c, (uint32_t)(c->off + 4 - target));
}

/* -- sets of objects already written --------------------------------------------------- */

static uint32_t fnv1a(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h ? h : 1;
}

/* The handle of an object in `s` whose content is bytes[0, n), or 0. A string's content
 * follows its uint32 length; a vtable's starts with its uint16 size in bytes. */
static size_t set_find(const Ctx *c, const OffsetSet *s, int strings, const uint8_t *bytes,
                       size_t n, uint32_t h)
{
    size_t i;
    if (s->cap == 0)
        return 0;
    for (i = h & (s->cap - 1); s->e[i].off; i = (i + 1) & (s->cap - 1)) {
        const uint8_t *q;
        size_t len;
        if (s->e[i].hash != h)
            continue;
        q = c->buf + c->cap - s->e[i].off;
        if (strings) {
            len = (size_t)q[0] | ((size_t)q[1] << 8) | ((size_t)q[2] << 16)
                  | ((size_t)q[3] << 24);
            q += 4;
        } else {
            len = (size_t)q[0] | ((size_t)q[1] << 8);
        }
        if (len == n && memcmp(q, bytes, n) == 0)
            return s->e[i].off;
    }
    return 0;
}

static int set_add(OffsetSet *s, uint32_t h, size_t off)
{
    size_t i, j;
    if (2 * (s->count + 1) > s->cap) {
        size_t ncap = s->cap ? 2 * s->cap : 64;
        SetEntry *ne = PyMem_Calloc(ncap, sizeof(SetEntry));
        if (ne == NULL)
            return GIVE_UP;
        for (j = 0; j < s->cap; j++) {
            if (s->e[j].off) {
                for (i = s->e[j].hash & (ncap - 1); ne[i].off; i = (i + 1) & (ncap - 1))
                    ;
                ne[i] = s->e[j];
            }
        }
        PyMem_Free(s->e);
        s->e = ne;
        s->cap = ncap;
    }
    for (i = h & (s->cap - 1); s->e[i].off; i = (i + 1) & (s->cap - 1))
        ;
    s->e[i].hash = h;
    s->e[i].off = (uint32_t)off;
    s->count++;
    return 0;
}

/* -- scalar conversion: exactly the Python types the reference stores unchanged, and text
 * where it is a plain number or name --------------------------------------------------- */

/* The reference parser's Bare and Escaped classes while a JSON document is encoded (see
 * JSON rules), else NULL (calls never nest: the GIL is held and a walk runs no Python
 * code). */
static PyObject *json_bare, *json_escaped;

/* A str (or a JSON document's Bare token) as plain ASCII without spaces or control
 * characters, so that the reference's strip() leaves it as it is; NULL otherwise. */
static const char *plain_text(PyObject *v, Py_ssize_t *n)
{
    const char *s;
    Py_ssize_t i;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(v) < 0) {
        PyErr_Clear();
        return NULL;
    }
#endif
    if (!PyUnicode_IS_ASCII(v))
        return NULL;
    s = (const char *)PyUnicode_DATA(v);
    *n = PyUnicode_GET_LENGTH(v);
    for (i = 0; i < *n; i++)
        if ((unsigned char)s[i] <= ' ' || s[i] == 127)
            return NULL;
    return *n ? s : NULL;
}

static int digit_value(char c, int base)
{
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
    return d < base ? d : -1;
}

/* [+-]?[0-9]+ or [+-]?0[xX][0-9a-fA-F]+ (the reference's int(t, 10) and int(t, 16)) whose
 * magnitude fits 64 bits. */
static int number_text(const char *s, Py_ssize_t n, int *negative, uint64_t *magnitude)
{
    Py_ssize_t i = 0;
    uint64_t m = 0;
    int base = 10;
    *negative = s[0] == '-';
    if (s[0] == '-' || s[0] == '+')
        i = 1;
    if (n - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        base = 16;
        i += 2;
    }
    if (i == n)
        return GIVE_UP;
    for (; i < n; i++) {
        int d = digit_value(s[i], base);
        if (d < 0 || m > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            return GIVE_UP;
        m = m * (uint64_t)base + (uint64_t)d;
    }
    *magnitude = m;
    return 0;
}

/* The range check of the reference's converter, on a sign and magnitude. */
static int int_in_range(int sc, int negative, uint64_t m, uint64_t *out)
{
    if (negative && m != 0) {
        if (sc == SC_U64 || m > (uint64_t)INT64_MAX + 1
            || (int64_t)(0 - m) < SC_MIN[sc])
            return GIVE_UP;
        *out = 0 - m;
        return 0;
    }
    if (sc != SC_U64 && m > (uint64_t)SC_MAX[sc])
        return GIVE_UP;
    *out = m;
    return 0;
}

static int int_object(int sc, PyObject *v, uint64_t *out)
{
    long long x;
    int overflow;
    x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow == 0 && x == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return GIVE_UP;
    }
    if (sc == SC_U64) {
        if (overflow > 0) {
            unsigned long long u = PyLong_AsUnsignedLongLong(v);
            if (u == (unsigned long long)-1 && PyErr_Occurred()) {
                PyErr_Clear();
                return GIVE_UP;
            }
            *out = u;
            return 0;
        }
        if (overflow < 0 || x < 0)
            return GIVE_UP;
        *out = (uint64_t)x;
        return 0;
    }
    if (overflow != 0 || x < SC_MIN[sc] || x > SC_MAX[sc])
        return GIVE_UP;
    *out = (uint64_t)x;
    return 0;
}

/* Bit flags "A B C" (single spaces, every word one of the enum's names): the names' values
 * or'ed, as the reference does. */
static int flags_text(int sc, PyObject *names, const char *s, Py_ssize_t n, uint64_t *out)
{
    Py_ssize_t i = 0, j;
    int64_t total = 0;
    while (i <= n) {
        PyObject *word, *found;
        long long x;
        int overflow;
        for (j = i; j < n && s[j] != ' '; j++)
            ;
        word = PyUnicode_FromStringAndSize(s + i, j - i);
        if (word == NULL) {
            PyErr_Clear();
            return GIVE_UP;
        }
        found = PyDict_GetItemWithError(names, word);
        Py_DECREF(word);
        if (found == NULL || !PyLong_CheckExact(found)) {
            PyErr_Clear();
            return GIVE_UP;
        }
        x = PyLong_AsLongLongAndOverflow(found, &overflow);
        if (overflow || (x == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return GIVE_UP;
        }
        total |= x;
        i = j + 1;
    }
    return int_in_range(sc, total < 0, total < 0 ? 0 - (uint64_t)total : (uint64_t)total, out);
}

/* Text for an integer (text mode of the field, see the spec), as the reference converts it:
 * a name, bit flags, true/false of a bool, a decimal or hexadecimal number; GIVE_UP for
 * anything else (qualified names, floats, hash fields' strings, text with spaces...). */
static int text_int(int sc, PyObject *names, int text, PyObject *v, int bare, uint64_t *out)
{
    Py_ssize_t n;
    const char *s;
    int negative;
    uint64_t m;
    if (names != NULL) {
        /* the reference's names.get(v) (a Bare token: str's own hash and comparison) */
        PyObject *found = PyDict_GetItemWithError(names, v);
        if (found != NULL)
            return PyLong_CheckExact(found) ? int_object(sc, found, out) : GIVE_UP;
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return GIVE_UP;
        }
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(v) < 0) {
        PyErr_Clear();
        return GIVE_UP;
    }
#endif
    if (text == TEXT_ENUM && names != NULL && PyUnicode_IS_ASCII(v)) {
        s = (const char *)PyUnicode_DATA(v);
        n = PyUnicode_GET_LENGTH(v);
        if (n > 2 && s[0] != ' ' && s[n - 1] != ' ' && memchr(s, ' ', (size_t)n) != NULL)
            return flags_text(sc, names, s, n, out);
    }
    s = plain_text(v, &n);
    if (s == NULL)
        return GIVE_UP;
    if (text == TEXT_HASH && (!bare || s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z')
                              || (s[0] >= 'A' && s[0] <= 'Z')))
        return GIVE_UP; /* the reference hashes it */
    if (text == TEXT_BOOL && (strcmp(s, "true") == 0 || strcmp(s, "false") == 0)) {
        *out = s[0] == 't';
        return 0;
    }
    if (number_text(s, n, &negative, &m) < 0)
        return GIVE_UP;
    return int_in_range(sc, negative, m, out);
}

static int conv_int(int sc, PyObject *names, int text, PyObject *v, uint64_t *out)
{
    int bare;
    if (PyLong_CheckExact(v))
        return int_object(sc, v, out);
    if (PyBool_Check(v)) { /* the reference: int(v) */
        *out = v == Py_True;
        return 0;
    }
    bare = json_bare != NULL && Py_TYPE(v) == (PyTypeObject *)json_bare;
    if (bare || PyUnicode_CheckExact(v))
        return text_int(sc, names, text, v, bare, out);
    return GIVE_UP;
}

/* [+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)? over all of s */
static int is_float_text(const char *s, Py_ssize_t n)
{
    Py_ssize_t k = 0, before = 0, after = 0, exp = 0;
    if (k < n && (s[k] == '+' || s[k] == '-'))
        k++;
    for (; k < n && s[k] >= '0' && s[k] <= '9'; k++)
        before++;
    if (k < n && s[k] == '.')
        for (k++; k < n && s[k] >= '0' && s[k] <= '9'; k++)
            after++;
    if (before == 0 && after == 0)
        return 0;
    if (k < n && (s[k] == 'e' || s[k] == 'E')) {
        k++;
        if (k < n && (s[k] == '+' || s[k] == '-'))
            k++;
        for (; k < n && s[k] >= '0' && s[k] <= '9'; k++)
            exp++;
        if (exp == 0)
            return 0;
    }
    return k == n;
}

/* Text for a float, as the reference's _parse_float_text: nan, inf or infinity (with an
 * optional sign, in any case; every NaN is math.nan), or a decimal number (float(t),
 * correctly rounded); GIVE_UP for anything else (hexadecimal floats...). */
static int text_float(PyObject *v, double *out)
{
    static const char *const names[] = {"nan", "+nan", "-nan", "inf", "+inf", "-inf",
                                        "infinity", "+infinity", "-infinity"};
    char low[10];
    Py_ssize_t n, i;
    const char *s = plain_text(v, &n);
    if (s == NULL)
        return GIVE_UP;
    if (is_float_text(s, n)) {
        char *end;
        double d = PyOS_string_to_double(s, &end, NULL); /* s is NUL-terminated */
        if ((d == -1.0 && PyErr_Occurred()) || end != s + n) {
            PyErr_Clear();
            return GIVE_UP;
        }
        *out = d;
        return 0;
    }
    if (n > 9)
        return GIVE_UP;
    for (i = 0; i < n; i++)
        low[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
    low[n] = 0;
    for (i = 0; i < 9; i++) {
        if (strcmp(low, names[i]) == 0) {
            if (i < 3) {
                uint64_t bits = 0x7FF8000000000000ull; /* math.nan */
                memcpy(out, &bits, 8);
            } else {
                *out = i == 5 || i == 8 ? -Py_HUGE_VAL : Py_HUGE_VAL;
            }
            return 0;
        }
    }
    return GIVE_UP;
}

static int conv_float(int sc, PyObject *v, double *out)
{
    double d;
    if (PyFloat_CheckExact(v)) {
        d = PyFloat_AS_DOUBLE(v);
    } else if (PyLong_CheckExact(v)) {
        d = PyLong_AsDouble(v);
        if (d == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return GIVE_UP;
        }
    } else if (PyUnicode_CheckExact(v)
               || (json_bare != NULL && Py_TYPE(v) == (PyTypeObject *)json_bare)) {
        if (text_float(v, &d) < 0)
            return GIVE_UP;
    } else {
        return GIVE_UP;
    }
    /* the reference's f32(): struct '<f' round trip, overflow -> infinity, as this cast */
    *out = sc == SC_F32 ? (double)(float)d : d;
    return 0;
}

static int conv_scalar(int sc, PyObject *names, int text, PyObject *v, Val *out)
{
    if (sc >= SC_F32)
        return conv_float(sc, v, &out->d);
    return conv_int(sc, names, text, v, &out->bits);
}

/* -- strings -------------------------------------------------------------------------------- */

/* The UTF-8 length of an exact str (GIVE_UP on lone surrogates, which the reference
 * rejects). */
static int utf8_length(PyObject *s, size_t *out)
{
    Py_ssize_t i, n;
    int kind;
    const void *data;
    size_t len = 0;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(s) < 0) {
        PyErr_Clear();
        return GIVE_UP;
    }
#endif
    n = PyUnicode_GET_LENGTH(s);
    if (PyUnicode_IS_ASCII(s)) {
        *out = (size_t)n;
        return 0;
    }
    kind = PyUnicode_KIND(s);
    data = PyUnicode_DATA(s);
    for (i = 0; i < n; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (ch < 0x80)
            len += 1;
        else if (ch < 0x800)
            len += 2;
        else if (ch >= 0xD800 && ch <= 0xDFFF)
            return GIVE_UP;
        else if (ch < 0x10000)
            len += 3;
        else
            len += 4;
    }
    *out = len;
    return 0;
}

static void utf8_write(PyObject *s, uint8_t *p)
{
    Py_ssize_t i, n = PyUnicode_GET_LENGTH(s);
    int kind;
    const void *data;
    if (PyUnicode_IS_ASCII(s)) {
        memcpy(p, PyUnicode_DATA(s), (size_t)n);
        return;
    }
    kind = PyUnicode_KIND(s);
    data = PyUnicode_DATA(s);
    for (i = 0; i < n; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (ch < 0x80) {
            *p++ = (uint8_t)ch;
        } else if (ch < 0x800) {
            *p++ = (uint8_t)(0xC0 | (ch >> 6));
            *p++ = (uint8_t)(0x80 | (ch & 0x3F));
        } else if (ch < 0x10000) {
            *p++ = (uint8_t)(0xE0 | (ch >> 12));
            *p++ = (uint8_t)(0x80 | ((ch >> 6) & 0x3F));
            *p++ = (uint8_t)(0x80 | (ch & 0x3F));
        } else {
            *p++ = (uint8_t)(0xF0 | (ch >> 18));
            *p++ = (uint8_t)(0x80 | ((ch >> 12) & 0x3F));
            *p++ = (uint8_t)(0x80 | ((ch >> 6) & 0x3F));
            *p++ = (uint8_t)(0x80 | (ch & 0x3F));
        }
    }
}

/* Builder.create_string: str (UTF-8), bytes or bytearray; NUL-terminated, 4-aligned. */
static int push_string(Ctx *c, PyObject *v, size_t *out)
{
    size_t n, pad_n;
    const uint8_t *bytes = NULL;
    uint8_t *p;
    if (PyUnicode_CheckExact(v)
        || (json_escaped != NULL && Py_TYPE(v) == (PyTypeObject *)json_escaped)) {
        if (utf8_length(v, &n) < 0)
            return GIVE_UP;
    } else if (PyBytes_CheckExact(v)) {
        n = (size_t)PyBytes_GET_SIZE(v);
        bytes = (const uint8_t *)PyBytes_AS_STRING(v);
    } else if (PyByteArray_CheckExact(v)) {
        n = (size_t)PyByteArray_GET_SIZE(v);
        bytes = (const uint8_t *)PyByteArray_AS_STRING(v);
    } else {
        return GIVE_UP;
    }
    if (n > MAX_BUFFER)
        return GIVE_UP;
    pad_n = (0 - (c->off + n + 1)) & 3;
    p = claim(c, pad_n + n + 5);
    if (p == NULL)
        return GIVE_UP;
    put_le(p, (uint32_t)n, 4);
    if (bytes != NULL)
        memcpy(p + 4, bytes, n);
    else
        utf8_write(v, p + 4);
    memset(p + 4 + n, 0, 1 + pad_n);
    if (c->minalign < 4)
        c->minalign = 4;
    *out = c->off;
    return 0;
}

/* Builder.create_shared_string: a string with the same bytes as an earlier (shared) string
 * is not written again (the reference keys its dict by the UTF-8 bytes). */
static int push_shared_string(Ctx *c, PyObject *v, size_t *out)
{
    size_t before = c->off, n, found;
    const uint8_t *q;
    uint32_t h;
    if (push_string(c, v, out) < 0)
        return GIVE_UP;
    q = head(c);
    n = (size_t)q[0] | ((size_t)q[1] << 8) | ((size_t)q[2] << 16) | ((size_t)q[3] << 24);
    h = fnv1a(q + 4, n);
    found = set_find(c, &c->shared, 1, q + 4, n, h);
    if (found) {
        c->off = before; /* drop the copy (only its own padding came with it) */
        *out = found;
        return 0;
    }
    return set_add(&c->shared, h, *out);
}

static int push_field_string(Ctx *c, const Field *f, PyObject *v, size_t *out)
{
    return f->shared ? push_shared_string(c, v, out) : push_string(c, v, out);
}

/* -- structs -------------------------------------------------------------------------------- */

static int pack_struct(const Program *p, const Struct *s, PyObject *v, uint8_t *out);

static int pack_leaf(const Program *p, const SField *f, PyObject *v, uint8_t *out)
{
    Val x;
    if (f->sc < 0)
        return pack_struct(p, &p->structs[f->ref], v, out);
    if (conv_scalar(f->sc, f->names, f->text, v, &x) < 0)
        return GIVE_UP;
    put_le(out, scalar_bits(f->sc, &x), SC_SIZE[f->sc]);
    return 0;
}

/* A struct given as an exact dict with exactly its fields, into zeroed `out`. */
static int pack_struct(const Program *p, const Struct *s, PyObject *v, uint8_t *out)
{
    Py_ssize_t pos = 0;
    PyObject *k, *x, *ix;
    if (!PyDict_CheckExact(v) || PyDict_GET_SIZE(v) != (Py_ssize_t)s->nfields)
        return GIVE_UP;
    while (PyDict_Next(v, &pos, &k, &x)) {
        const SField *f;
        long i;
        if (!PyUnicode_CheckExact(k))
            return GIVE_UP;
        ix = PyDict_GetItemWithError(s->index, k);
        if (ix == NULL) {
            PyErr_Clear();
            return GIVE_UP;
        }
        i = PyLong_AsLong(ix);
        if (i < 0 || (uint32_t)i >= s->nfields) {
            PyErr_Clear();
            return GIVE_UP;
        }
        f = &s->fields[i];
        if (f->count == 0) {
            if (pack_leaf(p, f, x, out + f->offset) < 0)
                return GIVE_UP;
        } else {
            Py_ssize_t j;
            if (!(PyList_CheckExact(x) || PyTuple_CheckExact(x))
                || PySequence_Fast_GET_SIZE(x) != (Py_ssize_t)f->count)
                return GIVE_UP;
            for (j = 0; j < (Py_ssize_t)f->count; j++)
                if (pack_leaf(p, f, PySequence_Fast_GET_ITEM(x, j),
                              out + f->offset + (size_t)j * f->elem_size) < 0)
                    return GIVE_UP;
        }
    }
    return 0;
}

/* A struct packed into the arena (a table field's struct waits there for its slot). */
static int arena_struct(Ctx *c, const Struct *s, PyObject *v, size_t *pos)
{
    if (c->narena + s->size > c->caparena
        && grow((void **)&c->arena, &c->caparena, c->narena + s->size, 1) < 0)
        return GIVE_UP;
    memset(c->arena + c->narena, 0, s->size);
    if (pack_struct(c->p, s, v, c->arena + c->narena) < 0)
        return GIVE_UP;
    *pos = c->narena;
    c->narena += s->size;
    return 0;
}

/* Builder.prepend_raw(packed struct, align). */
static int push_struct_bytes(Ctx *c, const Struct *s, const uint8_t *data)
{
    uint8_t *p;
    if (prep(c, s->align, s->size) < 0)
        return GIVE_UP;
    p = claim(c, s->size);
    if (p == NULL)
        return GIVE_UP;
    memcpy(p, data, s->size);
    return 0;
}

/* -- vectors -------------------------------------------------------------------------------- */

/* Builder._start_vector + room for the body: returns the body's start (zeroed) or NULL. */
static uint8_t *vector_body(Ctx *c, size_t total, size_t align)
{
    uint8_t *p;
    if (pad(c, (0 - (c->off + total)) & 3) < 0)
        return NULL;
    if (c->minalign < 4)
        c->minalign = 4;
    if (align > 4 && total && prep(c, align, total) < 0)
        return NULL;
    p = claim(c, total);
    if (p != NULL && total)
        memset(p, 0, total);
    return p;
}

/* Builder.force_vector_alignment (a vector's force_align), right before the vector. */
static int force_align(Ctx *c, const Field *f, size_t n, size_t total)
{
    if (f->force_align > 1 && n && total)
        return prep(c, f->force_align, total);
    return 0;
}

static int vector_end(Ctx *c, size_t n, size_t *out)
{
    if (put_u32(c, (uint32_t)n) < 0)
        return GIVE_UP;
    *out = c->off;
    return 0;
}

static int vector_scalars(Ctx *c, const Field *f, PyObject *v, size_t *out)
{
    size_t size = SC_SIZE[f->sc], n, i;
    uint8_t *p;
    if (size == 1 && (PyBytes_CheckExact(v) || PyByteArray_CheckExact(v))) {
        n = (size_t)(PyBytes_CheckExact(v) ? PyBytes_GET_SIZE(v) : PyByteArray_GET_SIZE(v));
        if (n > MAX_BUFFER || force_align(c, f, n, n) < 0
            || (p = vector_body(c, n, 1)) == NULL)
            return GIVE_UP;
        if (n)
            memcpy(p, PyBytes_CheckExact(v) ? PyBytes_AS_STRING(v)
                                            : PyByteArray_AS_STRING(v), n);
        return vector_end(c, n, out);
    }
    if (!PyList_CheckExact(v) && !PyTuple_CheckExact(v))
        return GIVE_UP;
    n = (size_t)PySequence_Fast_GET_SIZE(v);
    if (n > MAX_BUFFER / size || force_align(c, f, n, n * size) < 0
        || (p = vector_body(c, n * size, size)) == NULL)
        return GIVE_UP;
    for (i = 0; i < n; i++) {
        Val x;
        if (conv_scalar(f->sc, f->names, f->text, PySequence_Fast_GET_ITEM(v, i), &x) < 0)
            return GIVE_UP;
        put_le(p + i * size, scalar_bits(f->sc, &x), (int)size);
    }
    return vector_end(c, n, out);
}

static int vector_structs(Ctx *c, const Field *f, PyObject *v, size_t *out)
{
    const Struct *s = &c->p->structs[f->ref];
    size_t n, i;
    uint8_t *p;
    if (!PyList_CheckExact(v) && !PyTuple_CheckExact(v))
        return GIVE_UP;
    n = (size_t)PySequence_Fast_GET_SIZE(v);
    if (f->keyed && n > 1) /* the reference sorts by the key */
        return GIVE_UP;
    if (n && prep(c, s->align, 0) < 0) /* flatc's parse leaves this padding */
        return GIVE_UP;
    if (n > MAX_BUFFER / s->size || force_align(c, f, n, n * s->size) < 0
        || (p = vector_body(c, n * s->size, s->align)) == NULL)
        return GIVE_UP;
    for (i = 0; i < n; i++)
        if (pack_struct(c->p, s, PySequence_Fast_GET_ITEM(v, i), p + i * s->size) < 0)
            return GIVE_UP;
    return vector_end(c, n, out);
}

static int push_handle(Ctx *c, size_t h)
{
    if (c->nhandles == c->caphandles
        && grow((void **)&c->handles, &c->caphandles, c->nhandles + 1, sizeof(uint32_t)) < 0)
        return GIVE_UP;
    c->handles[c->nhandles++] = (uint32_t)h;
    return 0;
}

/* The vector of uoffsets to the handles pushed since `mark`. */
static int vector_offsets(Ctx *c, const Field *f, size_t mark, size_t *out)
{
    size_t n = c->nhandles - mark, j, top;
    uint8_t *p;
    if (force_align(c, f, n, 4 * n) < 0 || (p = vector_body(c, 4 * n, 4)) == NULL)
        return GIVE_UP;
    top = c->off; /* element j starts `top - 4j` bytes from the end */
    for (j = 0; j < n; j++)
        put_le(p + 4 * j, (uint32_t)(top - 4 * j - c->handles[mark + j]), 4);
    c->nhandles = mark;
    return vector_end(c, n, out);
}

static int build_table(Ctx *c, const Table *t, PyObject *value, size_t *out);

static int vector_objects(Ctx *c, const Field *f, PyObject *v, size_t *out)
{
    size_t mark = c->nhandles, n, i, h;
    if (!PyList_CheckExact(v) && !PyTuple_CheckExact(v))
        return GIVE_UP;
    n = (size_t)PySequence_Fast_GET_SIZE(v);
    if (n > MAX_BUFFER / 4 || (f->keyed == 1 && n > 1) || (f->keyed == 2 && n > 0))
        return GIVE_UP; /* the reference sorts by the key (or rejects a struct key) */
    for (i = 0; i < n; i++) {
        PyObject *x = PySequence_Fast_GET_ITEM(v, i);
        if (f->vkind == K_STRING) {
            if (push_field_string(c, f, x, &h) < 0)
                return GIVE_UP;
        } else if (build_table(c, &c->p->tables[f->ref], x, &h) < 0) {
            return GIVE_UP;
        }
        if (push_handle(c, h) < 0)
            return GIVE_UP;
    }
    return vector_offsets(c, f, mark, out);
}

static int build_vector(Ctx *c, const Field *f, PyObject *v, size_t *out)
{
    switch (f->vkind) {
    case K_INT:
    case K_FLOAT:
        return vector_scalars(c, f, v, out);
    case K_STRUCT:
        return vector_structs(c, f, v, out);
    case K_STRING:
    case K_TABLE:
        return vector_objects(c, f, v, out);
    default:
        return GIVE_UP;
    }
}

/* -- unions --------------------------------------------------------------------------------- */

/* The tag of a union value: the raw _type value of the same table (an int, or a name). */
static int union_tag(const Union *u, PyObject *tag_value, long *tag)
{
    uint64_t bits;
    if (PyLong_CheckExact(tag_value)) {
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(tag_value, &overflow);
        if (overflow || x < 0 || x > 255) {
            PyErr_Clear();
            return GIVE_UP;
        }
        *tag = (long)x;
        return 0;
    }
    if (conv_int(SC_U8, u->names, TEXT_ENUM, tag_value, &bits) < 0)
        return GIVE_UP;
    *tag = (long)bits;
    return 0;
}

/* Whether a JSON value holds a bare identifier the reference cannot skip over when it looks
 * ahead for a union's _type (anything but true, false, inf, -inf, +inf and numbers). */
static int has_bare_identifier(PyObject *v)
{
    if (Py_TYPE(v) == (PyTypeObject *)json_bare) {
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(v, &n);
        if (s == NULL) {
            PyErr_Clear();
            return 1;
        }
        if (strcmp(s, "true") == 0 || strcmp(s, "false") == 0 || strcmp(s, "inf") == 0
            || strcmp(s, "-inf") == 0 || strcmp(s, "+inf") == 0)
            return 0;
        if (s[0] == '+' || s[0] == '-')
            s++;
        return !((s[0] >= '0' && s[0] <= '9') || s[0] == '.');
    }
    if (PyDict_CheckExact(v)) {
        Py_ssize_t pos = 0;
        PyObject *k, *x;
        while (PyDict_Next(v, &pos, &k, &x))
            if (has_bare_identifier(x))
                return 1;
    } else if (PyList_CheckExact(v)) {
        Py_ssize_t i;
        for (i = 0; i < PyList_GET_SIZE(v); i++)
            if (has_bare_identifier(PyList_GET_ITEM(v, i)))
                return 1;
    }
    return 0;
}

/* A union value; `base`: the table's first value in c->vals; `next`: the position of the
 * table's next key (for PyDict_Next). */
static int build_union(Ctx *c, const Field *f, PyObject *table_value, size_t base,
                       Py_ssize_t next, PyObject *v, size_t *out)
{
    const Union *u = &c->p->unions[f->ref];
    const Member *m;
    PyObject *tag_value;
    long tag;
    if (json_bare != NULL) { /* a _type field parsed before it, else the next key */
        const Val *t = NULL;
        uint32_t k;
        for (k = 0; k < f->ntype_fields && t == NULL; k++)
            if (c->vals[base + f->type_fields[k]].set)
                t = &c->vals[base + f->type_fields[k]];
        if (t != NULL) {
            if (t->bits > 255)
                return GIVE_UP;
            tag = (long)t->bits;
        } else {
            PyObject *key;
            if (!PyDict_Next(table_value, &next, &key, &tag_value)
                || PyUnicode_Compare(key, f->union_field) != 0 || has_bare_identifier(v)
                || union_tag(u, tag_value, &tag) < 0) {
                PyErr_Clear();
                return GIVE_UP;
            }
        }
    } else {
        /* all keys of table_value are exact str (checked by build_table): no Python runs */
        tag_value = PyDict_GetItemWithError(table_value, f->union_field);
        if (tag_value == NULL) {
            PyErr_Clear();
            return GIVE_UP;
        }
        if (union_tag(u, tag_value, &tag) < 0)
            return GIVE_UP;
    }
    m = &u->members[tag];
    switch (m->kind) {
    case K_STRING:
        return push_string(c, v, out);
    case K_TABLE:
        return build_table(c, &c->p->tables[m->ref], v, out);
    case K_STRUCT: {
        const Struct *s = &c->p->structs[m->ref];
        uint8_t *p;
        if (prep(c, s->align, 0) < 0 || prep(c, s->align, s->size) < 0)
            return GIVE_UP;
        p = claim(c, s->size);
        if (p == NULL)
            return GIVE_UP;
        memset(p, 0, s->size);
        if (pack_struct(c->p, s, v, p) < 0)
            return GIVE_UP;
        *out = c->off;
        return 0;
    }
    default:
        return GIVE_UP; /* NONE or an unknown tag: the reference raises */
    }
}

/* -- tables --------------------------------------------------------------------------------- */

/* One value of the dict: converted (scalars) or created now (strings, vectors, tables,
 * unions; structs are packed and written when their slot is added). */
static int build_field(Ctx *c, const Field *f, PyObject *table_value, Py_ssize_t next,
                       PyObject *v, size_t base, size_t vi)
{
    Val x = {1, 0, 0.0, 0};
    switch (f->kind) {
    case K_INT:
    case K_FLOAT:
        if (conv_scalar(f->sc, f->names, f->text, v, &x) < 0)
            return GIVE_UP;
        break;
    case K_STRING:
        if (push_field_string(c, f, v, &x.ref) < 0)
            return GIVE_UP;
        break;
    case K_STRUCT: {
        const Struct *s = &c->p->structs[f->ref];
        if (prep(c, s->align, 0) < 0 || arena_struct(c, s, v, &x.ref) < 0)
            return GIVE_UP;
        break;
    }
    case K_TABLE:
        if (build_table(c, &c->p->tables[f->ref], v, &x.ref) < 0)
            return GIVE_UP;
        break;
    case K_VECTOR:
        if (build_vector(c, f, v, &x.ref) < 0)
            return GIVE_UP;
        break;
    case K_UNION:
        if (build_union(c, f, table_value, base, next, v, &x.ref) < 0)
            return GIVE_UP;
        break;
    default:
        return GIVE_UP;
    }
    c->vals[vi] = x;
    return 0;
}

/* Add one set field to the open table (started at `start`). */
static int add_slot(Ctx *c, const Field *f, const Val *x, size_t start)
{
    switch (f->kind) {
    case K_INT:
        if (f->has_default && x->bits == f->def_bits)
            return 0;
        if (push_scalar(c, f->sc, x) < 0)
            return GIVE_UP;
        break;
    case K_FLOAT:
        if (f->has_default && x->d == f->def_float) /* NaN != NaN: written, as in Python */
            return 0;
        if (push_scalar(c, f->sc, x) < 0)
            return GIVE_UP;
        break;
    case K_STRUCT:
        if (push_struct_bytes(c, &c->p->structs[f->ref], c->arena + x->ref) < 0)
            return GIVE_UP;
        break;
    default:
        if (push_uoffset(c, x->ref) < 0)
            return GIVE_UP;
    }
    c->vt[f->slot] = (uint32_t)(c->off - start);
    return 0;
}

/* Builder.end_object: the soffset, then the vtable unless an identical one exists. */
static int end_table(Ctx *c, uint32_t nslots, size_t start, size_t *out)
{
    size_t obj, size, n = nslots, i, nbytes, found;
    uint8_t *bytes = (uint8_t *)c->vtbytes;
    uint32_t h;
    int32_t soffset;
    if (pad(c, (0 - c->off) & 3) < 0 || claim(c, 4) == NULL)
        return GIVE_UP;
    obj = c->off;
    size = obj - start;
    while (n && c->vt[n - 1] == 0)
        n--;
    nbytes = 2 * n + 4;
    if (size > 0xFFFF || nbytes > 0xFFFF)
        return GIVE_UP; /* the reference: table too large for 16-bit vtable offsets */
    put_le(bytes, nbytes, 2);
    put_le(bytes + 2, size, 2);
    for (i = 0; i < n; i++)
        put_le(bytes + 4 + 2 * i, c->vt[i] ? size - c->vt[i] : 0, 2);
    h = fnv1a(bytes, nbytes);
    found = set_find(c, &c->vtables, 0, bytes, nbytes, h);
    if (found) {
        soffset = (int32_t)((int64_t)found - (int64_t)obj);
    } else {
        uint8_t *p = claim(c, nbytes);
        if (p == NULL)
            return GIVE_UP;
        memcpy(p, bytes, nbytes);
        if (set_add(&c->vtables, h, c->off) < 0)
            return GIVE_UP;
        soffset = (int32_t)nbytes;
    }
    put_le(c->buf + c->cap - obj, (uint32_t)soffset, 4);
    if (c->minalign < 4)
        c->minalign = 4;
    *out = obj;
    return 0;
}

/* A table given as an exact dict: its children in key order, then its fields in the plan's
 * order, then the vtable. */
static int build_table(Ctx *c, const Table *t, PyObject *value, size_t *out)
{
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    size_t base = c->nvals, arena_mark = c->narena, start, i;
    int rc = GIVE_UP;
    if (!PyDict_CheckExact(value) || c->depth >= MAX_DEPTH)
        return GIVE_UP;
    if (t->has_union) { /* build_union looks up the _type key: all keys must be exact str */
        while (PyDict_Next(value, &pos, &k, &v))
            if (!PyUnicode_CheckExact(k))
                return GIVE_UP;
        pos = 0;
    }
    if (base + t->nfields > c->capvals
        && grow((void **)&c->vals, &c->capvals, base + t->nfields, sizeof(Val)) < 0)
        return GIVE_UP;
    if (t->nfields)
        memset(c->vals + base, 0, t->nfields * sizeof(Val));
    c->nvals = base + t->nfields;
    c->depth++;
    while (PyDict_Next(value, &pos, &k, &v)) {
        PyObject *ix;
        long fi;
        const Field *f;
        if (!PyUnicode_CheckExact(k))
            goto done;
        ix = PyDict_GetItemWithError(t->index, k);
        if (ix == NULL) { /* an unknown key (or "$schema"): the reference decides */
            PyErr_Clear();
            goto done;
        }
        fi = PyLong_AsLong(ix);
        if (fi < 0 || (uint32_t)fi >= t->nfields) {
            PyErr_Clear();
            goto done;
        }
        f = &t->fields[fi];
        if (v == Py_None) { /* the reference skips None, except for plain scalars */
            if (f->kind == K_GIVEUP || ((f->kind == K_INT || f->kind == K_FLOAT)
                                        && !f->optional))
                goto done;
            continue;
        }
        if (build_field(c, f, value, pos, v, base, base + (size_t)fi) < 0)
            goto done;
    }
    for (i = 0; i < t->nrequired; i++)
        if (!c->vals[base + t->required[i]].set)
            goto done;
    start = c->off;
    memset(c->vt, 0, t->nslots * sizeof(uint32_t));
    for (i = 0; i < t->norder; i++) {
        const Val *x = &c->vals[base + t->order[i]];
        if (x->set && add_slot(c, &t->fields[t->order[i]], x, start) < 0)
            goto done;
    }
    rc = end_table(c, t->nslots, start, out);
done:
    c->depth--;
    c->nvals = base;
    c->narena = arena_mark;
    return rc;
}

/* -- finish --------------------------------------------------------------------------------- */

/* The file identifier as 4 bytes; 1 if there is none; GIVE_UP if the reference would
 * reject it (or convert it in a way not mirrored here). */
static int file_identifier(PyObject *o, uint8_t ident[4])
{
    if (o == Py_None)
        return 1;
    if (PyBytes_CheckExact(o) && PyBytes_GET_SIZE(o) == 4) {
        memcpy(ident, PyBytes_AS_STRING(o), 4);
        return 0;
    }
    if (PyUnicode_CheckExact(o)) {
        size_t n;
        if (utf8_length(o, &n) < 0 || n != 4)
            return GIVE_UP;
        utf8_write(o, ident);
        return 0;
    }
    return GIVE_UP;
}

/* Builder.finish / finish_size_prefixed. */
static int finish(Ctx *c, size_t root, const uint8_t *ident, int size_prefixed)
{
    size_t prep_size = 4 + (ident ? 4 : 0) + (size_prefixed ? 4 : 0);
    if (prep(c, c->minalign, prep_size) < 0)
        return GIVE_UP;
    if (ident != NULL) {
        uint8_t *p;
        if (prep(c, 4, 4) < 0 || (p = claim(c, 4)) == NULL)
            return GIVE_UP;
        memcpy(p, ident, 4);
    }
    if (push_uoffset(c, root) < 0)
        return GIVE_UP;
    if (size_prefixed) {
        Val x = {1, 0, 0.0, 0};
        x.bits = c->off;
        if (push_scalar(c, SC_I32, &x) < 0)
            return GIVE_UP;
    }
    return 0;
}

static void ctx_free(Ctx *c)
{
    PyMem_Free(c->buf);
    PyMem_Free(c->vals);
    PyMem_Free(c->arena);
    PyMem_Free(c->handles);
    PyMem_Free(c->vt);
    PyMem_Free(c->vtbytes);
    PyMem_Free(c->vtables.e);
    PyMem_Free(c->shared.e);
}

/* The allocations of the last call, reused by the next one (calls never nest: the GIL is
 * held and a walk runs no Python code); big ones are freed instead. */
static Ctx spare;

static void clear_set(OffsetSet *s)
{
    if (s->count) {
        memset(s->e, 0, s->cap * sizeof(SetEntry));
        s->count = 0;
    }
}

static int ctx_init(Ctx *c, const Program *p)
{
    *c = spare;
    memset(&spare, 0, sizeof(spare));
    c->p = p;
    c->off = c->nvals = c->narena = c->nhandles = 0;
    c->depth = 0;
    c->minalign = 1;
    clear_set(&c->vtables);
    clear_set(&c->shared);
    if (c->vtslots < (size_t)p->max_slots + 1) {
        PyMem_Free(c->vt);
        PyMem_Free(c->vtbytes);
        c->vtslots = (size_t)p->max_slots + 1;
        c->vt = PyMem_Malloc(c->vtslots * sizeof(uint32_t));
        c->vtbytes = PyMem_Malloc((c->vtslots + 2) * sizeof(uint16_t));
        if (c->vt == NULL || c->vtbytes == NULL)
            return GIVE_UP;
    }
    return reserve(c, 512);
}

static void ctx_release(Ctx *c)
{
    if (spare.buf == NULL && c->cap <= (1 << 16) && c->capvals <= 4096
        && c->caparena <= (1 << 16) && c->caphandles <= (1 << 14) && c->vtables.cap <= 1024
        && c->shared.cap <= 1024 && c->vtslots <= 4096) {
        spare = *c;
        spare.p = NULL;
        return;
    }
    ctx_free(c);
}

/* encode(program, value, file_identifier, size_prefixed[, (Bare, Escaped)]) -> bytes, or
 * None (gave up); with the reference parser's classes (not None), the JSON rules. */
static PyObject *mod_encode(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    const Program *p;
    Ctx c;
    uint8_t ident[4];
    int has_ident, size_prefixed;
    size_t root;
    PyObject *result = NULL;
    (void)module;
    if (nargs != 4 && nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "encode() takes 4 or 5 arguments");
        return NULL;
    }
    if (nargs == 5 && args[4] != Py_None
        && !(PyTuple_Check(args[4]) && PyTuple_GET_SIZE(args[4]) == 2
             && PyType_Check(PyTuple_GET_ITEM(args[4], 0))
             && PyType_Check(PyTuple_GET_ITEM(args[4], 1)))) {
        PyErr_SetString(PyExc_TypeError, "encode(): the JSON classes must be (Bare, Escaped)");
        return NULL;
    }
    p = PyCapsule_GetPointer(args[0], CAPSULE_NAME);
    if (p == NULL)
        return NULL;
    size_prefixed = PyObject_IsTrue(args[3]);
    if (size_prefixed < 0)
        return NULL;
    has_ident = file_identifier(args[2], ident);
    if (has_ident < 0 || !PyDict_CheckExact(args[1]))
        Py_RETURN_NONE;
    if (nargs == 5 && args[4] != Py_None) {
        json_bare = PyTuple_GET_ITEM(args[4], 0);
        json_escaped = PyTuple_GET_ITEM(args[4], 1);
    }
    if (ctx_init(&c, p) == 0 && build_table(&c, &p->tables[p->root], args[1], &root) == 0
        && finish(&c, root, has_ident == 0 ? ident : NULL, size_prefixed) == 0)
        result = PyBytes_FromStringAndSize((const char *)head(&c), (Py_ssize_t)c.off);
    json_bare = json_escaped = NULL;
    ctx_release(&c);
    if (result == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return result;
}

/* ------------------------------------------------------------------------------------------ */

static PyMethodDef methods[] = {
    {"compile", (PyCFunction)mod_compile, METH_O,
     "compile(spec) -> program: the C form of an encoder program spec "
     "(see _encoder_program.py)."},
    {"encode", (PyCFunction)(void (*)(void))mod_encode, METH_FASTCALL,
     "encode(program, value, file_identifier, size_prefixed[, (Bare, Escaped)]) -> bytes, "
     "or None when the value is outside what the C encoder mirrors exactly; with the JSON "
     "parser's classes, the JSON rules."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "gameserde.flatbuffers._encoder_speedups",
    "The optional C encoder of gameserde.flatbuffers (see _accel.py).",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__encoder_speedups(void)
{
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    if (PyModule_AddIntConstant(m, "API_VERSION", 1) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
