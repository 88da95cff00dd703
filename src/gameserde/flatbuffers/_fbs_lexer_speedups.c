/*
 * gameserde.flatbuffers._fbs_lexer_speedups: the optional C tokenizer behind the .fbs
 * schema parser (see _accel.py and _fbs_lexer.py).
 *
 * _fbs_lexer.Lexer (pure Python) is the reference. This module's LexerBase holds the same
 * state in C members (src, end, allow_non_utf8, cursor, prev_cursor, line, line_start, token,
 * attribute, doc_comment, trivial_ascii) and implements next() for what makes up most of a
 * schema: blanks and new lines, // and documentation comments, block comments, identifiers,
 * plain decimal integers, one-character tokens and the end of the input. For a string
 * constant or anything else (other numbers, signs, dots, illegal characters) it calls the
 * reference's own _string or _other method, which reads and sets the same members:
 * _fbs_lexer derives a class from both LexerBase and the reference Lexer, so there is one
 * implementation of the hard parts and every state the parser can observe is the
 * reference's.
 *
 * Errors raise the class's `error` attribute (the reference's LexError) with the
 * reference's message and state. A src that is not 1-byte text (the reference decodes
 * schemas as latin-1, so it always is) makes next() call the reference's next.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>

#define TOKEN_EOF 256
#define TOKEN_INTEGER 258
#define TOKEN_IDENT 260

typedef struct {
    PyObject_HEAD
    PyObject *src;
    Py_ssize_t end, cursor, prev_cursor, line, line_start;
    int token;
    char allow_non_utf8, trivial_ascii;
    PyObject *attribute;
    PyObject *doc_comment;
} LexerObject;

static PyObject *empty; /* "" */
static uint8_t ident_start[256], ident_rest[256], single[256];

static int raise_error(LexerObject *self, const char *message)
{
    PyObject *cls = PyObject_GetAttrString((PyObject *)self, "error");
    if (cls != NULL) {
        PyObject *exc = PyObject_CallFunction(cls, "s", message);
        if (exc != NULL) {
            PyErr_SetObject(cls, exc);
            Py_DECREF(exc);
        }
        Py_DECREF(cls);
    }
    return -1;
}

static PyObject *lexer_next(LexerObject *self, PyObject *Py_UNUSED(ignored))
{
    const Py_UCS1 *s;
    Py_ssize_t n, cursor, start;
    int seen_newline;
    PyObject *doc;
    if (!PyUnicode_CheckExact(self->src) || PyUnicode_KIND(self->src) != PyUnicode_1BYTE_KIND)
        return PyObject_CallMethod((PyObject *)self, "reference_next", NULL);
    s = PyUnicode_1BYTE_DATA(self->src);
    n = PyUnicode_GET_LENGTH(self->src);
#define AT(i) ((i) < n ? s[i] : 0)
    doc = PyList_New(0);
    if (doc == NULL)
        return NULL;
    Py_SETREF(self->doc_comment, doc);
    cursor = self->prev_cursor = self->cursor;
    seen_newline = cursor == 0;
    Py_INCREF(empty);
    Py_SETREF(self->attribute, empty);
    self->trivial_ascii = 1;
    for (;;) {
        Py_UCS1 c = AT(cursor);
        while (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            cursor++;
            if (c == '\n') {
                self->line++;
                self->line_start = cursor;
                seen_newline = 1;
            }
            c = AT(cursor);
        }
        if (ident_start[c]) {
            PyObject *ident;
            start = cursor;
            while (ident_rest[AT(cursor)])
                cursor++;
            ident = PyUnicode_Substring(self->src, start, cursor);
            if (ident == NULL)
                return NULL;
            Py_SETREF(self->attribute, ident);
            self->cursor = cursor;
            self->token = TOKEN_IDENT;
            Py_RETURN_NONE;
        }
        if ((c >= '0' && c <= '9')
            || ((c == '+' || c == '-') && AT(cursor + 1) >= '0' && AT(cursor + 1) <= '9')) {
            /* a plain decimal integer ([+-]?[0-9]+ not followed by '.', 'e' or 'E', not 0x):
             * what _other makes of it; anything else goes to _other */
            Py_ssize_t k = c <= '9' && c >= '0' ? cursor : cursor + 1, end = k;
            while (AT(end) >= '0' && AT(end) <= '9')
                end++;
            if (!(AT(k) == '0' && (AT(k + 1) == 'x' || AT(k + 1) == 'X'))
                && AT(end) != '.' && AT(end) != 'e' && AT(end) != 'E') {
                PyObject *number = PyUnicode_Substring(self->src, cursor, end);
                if (number == NULL)
                    return NULL;
                Py_SETREF(self->attribute, number);
                self->cursor = end;
                self->token = TOKEN_INTEGER;
                Py_RETURN_NONE;
            }
        }
        cursor++;
        self->token = c;
        if (single[c]) {
            self->cursor = cursor;
            Py_RETURN_NONE;
        }
        if (c == '/') {
            Py_UCS1 next = AT(cursor);
            if (next == '/') {
                start = cursor + 1;
                cursor = start;
                while ((c = AT(cursor)) != 0 && c != '\n' && c != '\r')
                    cursor++;
                if (AT(start) == '/') { /* a documentation comment */
                    PyObject *line;
                    if (!seen_newline) {
                        self->cursor = cursor;
                        raise_error(self, "a documentation comment should be on a line on "
                                          "its own");
                        return NULL;
                    }
                    line = PyUnicode_Substring(self->src, start + 1, cursor);
                    if (line == NULL || PyList_Append(self->doc_comment, line) < 0) {
                        Py_XDECREF(line);
                        return NULL;
                    }
                    Py_DECREF(line);
                }
                continue;
            }
            if (next == '*') {
                cursor++;
                while (AT(cursor) != '*' || AT(cursor + 1) != '/') {
                    if (AT(cursor) == '\n') {
                        /* flatc marks the new line before stepping over the '\n' */
                        self->line_start = cursor;
                        self->line++;
                    }
                    if (AT(cursor) == 0 && cursor >= self->end) {
                        self->cursor = cursor;
                        raise_error(self, "end of file in comment");
                        return NULL;
                    }
                    cursor++;
                }
                cursor += 2;
                continue;
            }
        }
        self->cursor = cursor;
        if (c == 0) {
            self->cursor = cursor - 1;
            self->token = TOKEN_EOF;
            Py_RETURN_NONE;
        }
        if (c == '"' || c == '\'')
            return PyObject_CallMethod((PyObject *)self, "_string", "C", (int)c);
        return PyObject_CallMethod((PyObject *)self, "_other", "C", (int)c);
    }
#undef AT
}

static int lexer_traverse(LexerObject *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(self->src);
    Py_VISIT(self->attribute);
    Py_VISIT(self->doc_comment);
    return 0;
}

static int lexer_clear(LexerObject *self)
{
    Py_CLEAR(self->src);
    Py_CLEAR(self->attribute);
    Py_CLEAR(self->doc_comment);
    return 0;
}

static void lexer_dealloc(LexerObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    lexer_clear(self);
    tp->tp_free((PyObject *)self);
    Py_DECREF(tp);
}

static PyMethodDef lexer_methods[] = {
    {"next", (PyCFunction)lexer_next, METH_NOARGS,
     "Read the next token into token/attribute (flatc Parser::Next)."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef lexer_members[] = {
    {"src", T_OBJECT_EX, offsetof(LexerObject, src), 0, NULL},
    {"end", T_PYSSIZET, offsetof(LexerObject, end), 0, NULL},
    {"allow_non_utf8", T_BOOL, offsetof(LexerObject, allow_non_utf8), 0, NULL},
    {"cursor", T_PYSSIZET, offsetof(LexerObject, cursor), 0, NULL},
    {"prev_cursor", T_PYSSIZET, offsetof(LexerObject, prev_cursor), 0, NULL},
    {"line", T_PYSSIZET, offsetof(LexerObject, line), 0, NULL},
    {"line_start", T_PYSSIZET, offsetof(LexerObject, line_start), 0, NULL},
    {"token", T_INT, offsetof(LexerObject, token), 0, NULL},
    {"attribute", T_OBJECT_EX, offsetof(LexerObject, attribute), 0, NULL},
    {"doc_comment", T_OBJECT_EX, offsetof(LexerObject, doc_comment), 0, NULL},
    {"trivial_ascii", T_BOOL, offsetof(LexerObject, trivial_ascii), 0, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot lexer_slots[] = {
    {Py_tp_doc, "The state of the .fbs tokenizer, with next() in C (see the module)."},
    {Py_tp_methods, lexer_methods},
    {Py_tp_members, lexer_members},
    {Py_tp_traverse, lexer_traverse},
    {Py_tp_clear, lexer_clear},
    {Py_tp_dealloc, lexer_dealloc},
    {0, NULL},
};

static PyType_Spec lexer_spec = {
    "gameserde.flatbuffers._fbs_lexer_speedups.LexerBase",
    sizeof(LexerObject),
    0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    lexer_slots,
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "gameserde.flatbuffers._fbs_lexer_speedups",
    "The optional C tokenizer of .fbs schemas (see _accel.py).",
    -1,
    NULL,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__fbs_lexer_speedups(void)
{
    PyObject *m, *type;
    int c;
    for (c = 0; c < 256; c++) {
        int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        ident_start[c] = (uint8_t)alpha;
        ident_rest[c] = (uint8_t)(alpha || (c >= '0' && c <= '9'));
        single[c] = c != 0 && strchr("{}()[]<>,:;=", c) != NULL;
    }
    if (empty == NULL && (empty = PyUnicode_FromString("")) == NULL)
        return NULL;
    m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    type = PyType_FromSpec(&lexer_spec);
    if (type == NULL || PyModule_AddObject(m, "LexerBase", type) < 0
        || PyModule_AddIntConstant(m, "API_VERSION", 1) < 0) {
        Py_XDECREF(type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
