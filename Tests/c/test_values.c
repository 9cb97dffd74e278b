/*
 * test_values.c: the low-level values of the 0.2 interface: the trailer and indirect
 * objects of real files, resolving, every getter on every type (a wrong type gives
 * QUIRE_EINVAL), dictionary keys and lookups, printing and parsing PDF syntax (round trips,
 * parse errors, trailing garbage, limits), and stream data, decoded and raw, with the
 * length-query pattern.
 *
 * Sources of expected values: "the file" (its bytes, quoted), "pikepdf" (10.17: Pdf.trailer,
 * get_object, Stream.read_bytes / read_raw_bytes), "manifest", and "the header"; for the
 * values parsed from literal syntax, ISO 32000-2 §7.3 (what the syntax means).
 */
#define _POSIX_C_SOURCE 200809L

#include "test_support.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANNOTS "pdfium/testing/resources/annots.pdf"
#define ROTATION "pdfbox/pdfbox/src/test/resources/input/rotation.pdf"
#define ENC_R2 "qpdf/qpdf/qtest/qpdf/enc-R2,V1,U=view,O=master.pdf"
#define ENC_R6 "qpdf/qpdf/qtest/qpdf/enc-XI-R6,V5,U=view,O=master.pdf"
#define HYBRID "qpdf/qpdf/qtest/qpdf/hybrid-xref.pdf"

/* Lookups as checks: the value (owned by the caller), or NULL after a failed check. */
static quire_value *dict_get(const quire_value *dict, const char *key) {
    quire_value *v = NULL;
    int status = quire_value_dict_get(&v, dict, key);
    report(status == QUIRE_OK && v != NULL, __FILE__, __LINE__,
           "quire_value_dict_get(%s) returned %d: %s", key, status, quire_last_error_message());
    return status == QUIRE_OK ? v : NULL;
}

static quire_value *array_get(const quire_value *array, int32_t i) {
    quire_value *v = NULL;
    int status = quire_value_array_get(&v, array, i);
    report(status == QUIRE_OK && v != NULL, __FILE__, __LINE__,
           "quire_value_array_get(%d) returned %d: %s", (int)i, status,
           quire_last_error_message());
    return status == QUIRE_OK ? v : NULL;
}

static quire_value *object(quire_document *doc, int32_t number) {
    quire_value *v = NULL;
    int status = quire_document_object(&v, doc, number);
    report(status == QUIRE_OK && v != NULL, __FILE__, __LINE__,
           "quire_document_object(%d) returned %d: %s", (int)number, status,
           quire_last_error_message());
    return status == QUIRE_OK ? v : NULL;
}

static void check_reference(const quire_value *v, int32_t number, int32_t generation,
                            int line) {
    int32_t n = -7, g = -7;
    int status = quire_value_reference(&n, &g, v);
    report(status == QUIRE_OK && n == number && g == generation, __FILE__, line,
           "reference is %d %d R (status %d), expected %d %d R", (int)n, (int)g, status,
           (int)number, (int)generation);
}

static void check_integer(const quire_value *v, int64_t expected, int line) {
    int64_t got = -7;
    int status = quire_value_integer(&got, v);
    report(status == QUIRE_OK && got == expected, __FILE__, line,
           "integer is %lld (status %d), expected %lld", (long long)got, status,
           (long long)expected);
}

/* ---- the trailer and objects of annots.pdf -------------------------------------------------- */

static void test_trailer_and_objects(void) {
    quire_document *doc;
    quire_value *trailer = NULL, *root = NULL, *size = NULL, *catalog = NULL, *v = NULL;
    quire_value *page = NULL, *annots = NULL, *sentinel = (quire_value *)&doc;
    int32_t n = -1, i;
    double d = 0;
    g_test = "values: annots.pdf trailer and objects";
    doc = open_corpus(ANNOTS, NULL);
    if (!doc) return;

    /* trailer << /Root 1 0 R /Size 27 >> (the file; pikepdf: trailer keys /Root /Size). */
    CHECK_STATUS(quire_document_trailer(&trailer, doc), QUIRE_OK);
    if (!trailer) {
        quire_document_close(doc);
        return;
    }
    CHECK_INT(value_type(trailer), QUIRE_VALUE_DICTIONARY);
    CHECK_STATUS(quire_value_count(&n, trailer), QUIRE_OK);
    CHECK_INT(n, 2);
    CHECK_TEXT(T_DICT_KEY, NULL, trailer, 0, "Root");
    CHECK_TEXT(T_DICT_KEY, NULL, trailer, 1, "Size");
    CHECK_LENGTH_QUERY(T_DICT_KEY, NULL, trailer, 0);
    {
        char buf[8];
        size_t len = 99;
        CHECK_STATUS(quire_value_dict_key(buf, sizeof buf, &len, trailer, 2), QUIRE_ERANGE);
        CHECK_STATUS(quire_value_dict_key(buf, sizeof buf, &len, trailer, -1), QUIRE_ERANGE);
        CHECK_STATUS(quire_value_dict_key(buf, sizeof buf, &len, trailer, INT32_MAX),
                     QUIRE_ERANGE);
        CHECK_INT(len, 99);
    }
    root = dict_get(trailer, "Root");
    size = dict_get(trailer, "Size");
    if (root) {
        CHECK_INT(value_type(root), QUIRE_VALUE_REFERENCE);
        check_reference(root, 1, 0, __LINE__);
    }
    if (size) {
        CHECK_INT(value_type(size), QUIRE_VALUE_INTEGER);
        check_integer(size, 27, __LINE__);
        CHECK_STATUS(quire_value_number(&d, size), QUIRE_OK);
        CHECK(d == 27.0);
    }
    /* Keys are without the slash and case-sensitive; missing ones: QUIRE_ENOTFOUND, *out
     * untouched. */
    v = sentinel;
    CHECK_STATUS(quire_value_dict_get(&v, trailer, "Info"), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_value_dict_get(&v, trailer, "/Root"), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_value_dict_get(&v, trailer, "root"), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_value_dict_get(&v, trailer, ""), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_value_dict_get(&v, trailer, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_value_dict_get(NULL, trailer, "Root"), QUIRE_EINVAL);
    CHECK_STATUS(quire_value_dict_get(&v, NULL, "Root"), QUIRE_EINVAL);
    CHECK(v == sentinel);

    /* 1 0 obj << /Type /Catalog /Pages 2 0 R /AcroForm << ... >> >> (the file). */
    if (root) {
        CHECK_STATUS(quire_document_resolve(&catalog, doc, root), QUIRE_OK);
        if (catalog) {
            quire_value *type = dict_get(catalog, "Type");
            quire_value *pages = dict_get(catalog, "Pages");
            CHECK_INT(value_type(catalog), QUIRE_VALUE_DICTIONARY);
            CHECK_STATUS(quire_value_count(&n, catalog), QUIRE_OK);
            CHECK_INT(n, 3);
            if (type) {
                CHECK_INT(value_type(type), QUIRE_VALUE_NAME);
                CHECK_TEXT(T_VALUE_BYTES, NULL, type, 0, "Catalog");
            }
            if (pages) check_reference(pages, 2, 0, __LINE__);
            quire_value_free(type);
            quire_value_free(pages);
        }
    }

    /* 3 0 obj << /Type /Page /Parent 2 0 R /Contents 5 0 R /Annots [15 0 R ... 23 0 R] >>
     * (the file; manifest annots_per_page "0": 9). Elements are not resolved. */
    page = object(doc, 3);
    if (page) {
        CHECK_INT(value_type(page), QUIRE_VALUE_DICTIONARY);
        annots = dict_get(page, "Annots");
    }
    if (annots) {
        CHECK_INT(value_type(annots), QUIRE_VALUE_ARRAY);
        CHECK_STATUS(quire_value_count(&n, annots), QUIRE_OK);
        CHECK_INT(n, 9);
        for (i = 0; i < 9 && i < n; i++) {
            quire_value *e = array_get(annots, i);
            if (e) check_reference(e, 15 + i, 0, __LINE__);
            quire_value_free(e);
        }
        v = sentinel;
        CHECK_STATUS(quire_value_array_get(&v, annots, 9), QUIRE_ERANGE);
        CHECK_STATUS(quire_value_array_get(&v, annots, -1), QUIRE_ERANGE);
        CHECK_STATUS(quire_value_array_get(&v, annots, INT32_MIN), QUIRE_ERANGE);
        CHECK_STATUS(quire_value_array_get(NULL, annots, 0), QUIRE_EINVAL);
        CHECK(v == sentinel);
    }

    /* Object 0 is the free head of the list, 27 is past /Size: "a free or missing object is
     * a null value" (the header). A negative number: QUIRE_ERANGE. */
    v = object(doc, 0);
    if (v) CHECK_INT(value_type(v), QUIRE_VALUE_NULL);
    quire_value_free(v);
    v = object(doc, 27);
    if (v) CHECK_INT(value_type(v), QUIRE_VALUE_NULL);
    quire_value_free(v);
    v = sentinel;
    CHECK_STATUS(quire_document_object(&v, doc, -1), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_object(&v, doc, INT32_MIN), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_object(NULL, doc, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_object(&v, NULL, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_trailer(NULL, doc), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_trailer(&v, NULL), QUIRE_EINVAL);
    CHECK(v == sentinel);
    {
        /* Far past the highest object: missing (null), or past max_objects (QUIRE_ELIMIT);
         * both are in the header. */
        int status = quire_document_object(&v, doc, INT32_MAX);
        report(status == QUIRE_OK || status == QUIRE_ELIMIT, __FILE__, __LINE__,
               "quire_document_object(INT32_MAX) returned %d", status);
        if (status == QUIRE_OK) {
            CHECK_INT(value_type(v), QUIRE_VALUE_NULL);
            quire_value_free(v);
        }
    }

    /* 5 0 obj << /Length 486 >> stream (the file): a stream; count and keys are those of its
     * dictionary; its PDF syntax is its dictionary (the header). */
    v = object(doc, 5);
    if (v) {
        quire_value *len_value = dict_get(v, "Length");
        quire_value *reparsed = NULL;
        char *text;
        CHECK_INT(value_type(v), QUIRE_VALUE_STREAM);
        CHECK_STATUS(quire_value_count(&n, v), QUIRE_OK);
        CHECK_INT(n, 1);
        CHECK_TEXT(T_DICT_KEY, NULL, v, 0, "Length");
        if (len_value) check_integer(len_value, 486, __LINE__);
        quire_value_free(len_value);
        text = fetch_text(T_VALUE_TO_PDF, NULL, v, 0, NULL);
        if (text) {
            CHECK_STATUS(quire_value_parse(&reparsed, text, strlen(text)), QUIRE_OK);
            if (reparsed) {
                CHECK_INT(value_type(reparsed), QUIRE_VALUE_DICTIONARY);
                CHECK_STATUS(quire_value_count(&n, reparsed), QUIRE_OK);
                CHECK_INT(n, 1);
            }
            quire_value_free(reparsed);
        }
        free(text);
        quire_value_free(v);
    }

    /* resolve: a non-reference is copied; a missing object is null; NULL arguments. */
    if (size) {
        quire_value *copy = NULL;
        CHECK_STATUS(quire_document_resolve(&copy, doc, size), QUIRE_OK);
        if (copy) check_integer(copy, 27, __LINE__);
        quire_value_free(copy);
    }
    {
        quire_value *ref = parse_value("999 0 R"), *r = NULL;
        if (ref) {
            CHECK_STATUS(quire_document_resolve(&r, doc, ref), QUIRE_OK);
            if (r) CHECK_INT(value_type(r), QUIRE_VALUE_NULL);
            quire_value_free(r);
            v = sentinel;
            CHECK_STATUS(quire_document_resolve(NULL, doc, ref), QUIRE_EINVAL);
            CHECK_STATUS(quire_document_resolve(&v, NULL, ref), QUIRE_EINVAL);
            CHECK_STATUS(quire_document_resolve(&v, doc, NULL), QUIRE_EINVAL);
            CHECK(v == sentinel);
        }
        quire_value_free(ref);
    }

    /* Values are copies, independent of the document's lifetime (the header): still
     * readable after it is closed. */
    quire_document_close(doc);
    CHECK_INT(value_type(trailer), QUIRE_VALUE_DICTIONARY);
    CHECK_TEXT(T_DICT_KEY, NULL, trailer, 1, "Size");
    if (annots) {
        quire_value *e = array_get(annots, 8);
        if (e) check_reference(e, 23, 0, __LINE__);
        quire_value_free(e);
    }
    if (root) check_reference(root, 1, 0, __LINE__);

    quire_value_free(annots);
    quire_value_free(page);
    quire_value_free(catalog);
    quire_value_free(size);
    quire_value_free(root);
    quire_value_free(trailer);
    quire_value_free(NULL); /* a no-op (the header) */
}

/* ---- every getter on every type -------------------------------------------------------------- */

enum getter { G_BOOL, G_INTEGER, G_NUMBER, G_REFERENCE, G_BYTES, G_TEXT, G_COUNT,
              G_ARRAY_GET, G_DICT_KEY, G_DICT_GET, N_GETTERS };
static const char *const getter_names[N_GETTERS] = {
    "quire_value_bool",  "quire_value_integer", "quire_value_number",    "quire_value_reference",
    "quire_value_bytes", "quire_value_text",    "quire_value_count",     "quire_value_array_get",
    "quire_value_dict_key", "quire_value_dict_get"};

/* Which types each getter accepts (the header's doc comment of each). */
static int getter_accepts(enum getter g, quire_value_kind type) {
    switch (g) {
    case G_BOOL: return type == QUIRE_VALUE_BOOL;
    case G_INTEGER: return type == QUIRE_VALUE_INTEGER;
    case G_NUMBER: return type == QUIRE_VALUE_INTEGER || type == QUIRE_VALUE_REAL;
    case G_REFERENCE: return type == QUIRE_VALUE_REFERENCE;
    case G_BYTES: return type == QUIRE_VALUE_STRING || type == QUIRE_VALUE_NAME;
    case G_TEXT: return type == QUIRE_VALUE_STRING;
    case G_COUNT:
        return type == QUIRE_VALUE_ARRAY || type == QUIRE_VALUE_DICTIONARY ||
               type == QUIRE_VALUE_STREAM;
    case G_ARRAY_GET: return type == QUIRE_VALUE_ARRAY;
    case G_DICT_KEY:
    case G_DICT_GET: return type == QUIRE_VALUE_DICTIONARY || type == QUIRE_VALUE_STREAM;
    default: return 0;
    }
}

/* Calls getter g on v (index 0, key "A"); the scratch out-parameters start as 0x5A bytes.
 * Returns the status; *touched says whether an out-parameter or the buffer changed. */
union out_scratch {
    int32_t i32;
    int64_t i64;
    double d;
    unsigned char bytes[16];
};

static int call_getter(enum getter g, const quire_value *v, int *touched) {
    union out_scratch out, out2;
    char buf[64], before[64];
    size_t len;
    int status;
    quire_value *got = NULL;
    memset(&out, 0x5a, sizeof out);
    memset(&out2, 0x5a, sizeof out2);
    memset(buf, 0x5a, sizeof buf);
    memset(before, 0x5a, sizeof before);
    len = 0x5a5a5a5au;
    switch (g) {
    case G_BOOL: status = quire_value_bool(&out.i32, v); break;
    case G_INTEGER: status = quire_value_integer(&out.i64, v); break;
    case G_NUMBER: status = quire_value_number(&out.d, v); break;
    case G_REFERENCE: status = quire_value_reference(&out.i32, &out2.i32, v); break;
    case G_BYTES: status = quire_value_bytes(buf, sizeof buf, &len, v); break;
    case G_TEXT: status = quire_value_text(buf, sizeof buf, &len, v); break;
    case G_COUNT: status = quire_value_count(&out.i32, v); break;
    case G_ARRAY_GET: status = quire_value_array_get(&got, v, 0); break;
    case G_DICT_KEY: status = quire_value_dict_key(buf, sizeof buf, &len, v, 0); break;
    default: status = quire_value_dict_get(&got, v, "A"); break;
    }
    *touched = memcmp(out.bytes, before, sizeof out.bytes) != 0 ||
               memcmp(out2.bytes, before, sizeof out2.bytes) != 0 ||
               memcmp(buf, before, sizeof buf) != 0 || len != 0x5a5a5a5au || got != NULL;
    quire_value_free(got);
    return status;
}

struct sample {
    const char *syntax;
    quire_value_kind type;
};

/* Each value type, written in PDF syntax (ISO 32000-2 §7.3). Every sample that a getter
 * accepts has index 0 and key "A" where that matters, so that acceptance means QUIRE_OK. */
static const struct sample samples[] = {
    {"null", QUIRE_VALUE_NULL},
    {"true", QUIRE_VALUE_BOOL},
    {"false", QUIRE_VALUE_BOOL},
    {"42", QUIRE_VALUE_INTEGER},
    {"-17", QUIRE_VALUE_INTEGER},
    {"9999999999", QUIRE_VALUE_INTEGER},
    {"3.5", QUIRE_VALUE_REAL},
    {"-.5", QUIRE_VALUE_REAL},
    {"(Hello)", QUIRE_VALUE_STRING},
    {"<FEFF00E9>", QUIRE_VALUE_STRING},
    {"/Name", QUIRE_VALUE_NAME},
    {"[1 (x) /N]", QUIRE_VALUE_ARRAY},
    {"<< /A 1 /B [2] >>", QUIRE_VALUE_DICTIONARY},
    {"12 0 R", QUIRE_VALUE_REFERENCE},
};

static void test_getters_by_type(void) {
    size_t i;
    g_test = "values: getters by type";
    for (i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        quire_value *v = parse_value(samples[i].syntax);
        int g;
        if (!v) continue;
        report(value_type(v) == samples[i].type, __FILE__, __LINE__,
               "%s has type 0x%x, expected 0x%x", samples[i].syntax, (unsigned)value_type(v),
               (unsigned)samples[i].type);
        for (g = 0; g < N_GETTERS; g++) {
            int touched = 0;
            int status;
            quire_clear_error();
            status = call_getter((enum getter)g, v, &touched);
            if (getter_accepts((enum getter)g, samples[i].type)) {
                report(status == QUIRE_OK, __FILE__, __LINE__, "%s(%s) returned %d (%s): %s",
                       getter_names[g], samples[i].syntax, status, quire_status_string(status),
                       quire_last_error_message());
            } else {
                /* A value of another type: QUIRE_EINVAL (the header), recorded, and the
                 * out-parameters untouched. */
                report(status == QUIRE_EINVAL, __FILE__, __LINE__,
                       "%s(%s) on the wrong type returned %d (%s), expected QUIRE_EINVAL",
                       getter_names[g], samples[i].syntax, status, quire_status_string(status));
                report(status != QUIRE_EINVAL || quire_last_error_code() == QUIRE_EINVAL,
                       __FILE__, __LINE__, "%s(%s): error not recorded", getter_names[g],
                       samples[i].syntax);
                report(!touched, __FILE__, __LINE__, "%s(%s) failed but wrote its outputs",
                       getter_names[g], samples[i].syntax);
            }
        }
        quire_value_free(v);
    }
    /* NULL value or out: QUIRE_EINVAL. */
    {
        int32_t i32 = -7;
        quire_value_kind kind = (quire_value_kind)0x7777;
        int64_t i64 = -7;
        double d = -7;
        size_t len = 99;
        char buf[4];
        quire_value *v = parse_value("42");
        CHECK_STATUS(quire_value_get_kind(NULL, v), QUIRE_EINVAL);
        CHECK_STATUS(quire_value_get_kind(&kind, NULL), QUIRE_EINVAL);
        CHECK_STATUS(quire_value_bool(&i32, NULL), QUIRE_EINVAL);
        CHECK_STATUS(quire_value_integer(NULL, v), QUIRE_EINVAL);
        CHECK_STATUS(quire_value_integer(&i64, NULL), QUIRE_EINVAL);
        CHECK_STATUS(quire_value_number(NULL, v), QUIRE_EINVAL);
        CHECK_STATUS(quire_value_number(&d, NULL), QUIRE_EINVAL);
        CHECK_STATUS(quire_value_reference(&i32, NULL, v), QUIRE_EINVAL);
        CHECK_STATUS(quire_value_count(&i32, NULL), QUIRE_EINVAL);
        CHECK_STATUS(quire_value_bytes(buf, sizeof buf, &len, NULL), QUIRE_EINVAL);
        CHECK_STATUS(quire_value_text(buf, sizeof buf, &len, NULL), QUIRE_EINVAL);
        CHECK_STATUS(quire_value_to_pdf(buf, sizeof buf, &len, NULL), QUIRE_EINVAL);
        CHECK_STATUS(quire_value_to_pdf(buf, sizeof buf, NULL, v), QUIRE_EINVAL);
        CHECK_INT(i32, -7);
        CHECK_INT(kind, 0x7777);
        CHECK(i64 == -7 && d == -7);
        CHECK_INT(len, 99);
        quire_value_free(v);
    }
}

/* ---- what each getter returns ------------------------------------------------------------------ */

static void test_getter_values(void) {
    quire_value *v;
    int32_t i32 = -7, n = -7;
    double d = 0;
    g_test = "values: getter results";

    v = parse_value("true");
    if (v) {
        CHECK_STATUS(quire_value_bool(&i32, v), QUIRE_OK);
        CHECK_INT(i32, 1);
    }
    quire_value_free(v);
    v = parse_value("false");
    if (v) {
        CHECK_STATUS(quire_value_bool(&i32, v), QUIRE_OK);
        CHECK_INT(i32, 0);
    }
    quire_value_free(v);

    v = parse_value("-17");
    if (v) {
        check_integer(v, -17, __LINE__);
        CHECK_STATUS(quire_value_number(&d, v), QUIRE_OK);
        CHECK(d == -17.0);
    }
    quire_value_free(v);
    /* Integers are 64-bit (the header's int64_t). */
    v = parse_value("9999999999");
    if (v) check_integer(v, 9999999999LL, __LINE__);
    quire_value_free(v);
    v = parse_value("3.5");
    if (v) {
        CHECK_STATUS(quire_value_number(&d, v), QUIRE_OK);
        CHECK(d == 3.5);
    }
    quire_value_free(v);
    /* A leading point and a sign (ISO 32000-2 §7.3.3: "-.002" is a real). */
    v = parse_value("-.5");
    if (v) {
        CHECK_STATUS(quire_value_number(&d, v), QUIRE_OK);
        CHECK(d == -0.5);
    }
    quire_value_free(v);

    /* Literal and hexadecimal strings; bytes are raw, text is decoded (the header). */
    v = parse_value("(Hello)");
    if (v) {
        CHECK_TEXT(T_VALUE_BYTES, NULL, v, 0, "Hello");
        CHECK_TEXT(T_VALUE_TEXT, NULL, v, 0, "Hello");
        CHECK_LENGTH_QUERY(T_VALUE_BYTES, NULL, v, 0);
        CHECK_LENGTH_QUERY(T_VALUE_TEXT, NULL, v, 0);
    }
    quire_value_free(v);
    /* UTF-16BE with a byte order mark: U+00E9 (ISO 32000-2 §7.9.2.2). */
    v = parse_value("<FEFF00E9>");
    if (v) {
        CHECK_BYTES(T_VALUE_BYTES, NULL, v, 0, "\xfe\xff\x00\xe9", 4);
        CHECK_TEXT(T_VALUE_TEXT, NULL, v, 0, "\xc3\xa9");
    }
    quire_value_free(v);
    /* PDFDocEncoding: octal \351 is 0xE9, U+00E9 (ISO 32000-2 Annex D). */
    v = parse_value("(caf\\351)");
    if (v) {
        CHECK_BYTES(T_VALUE_BYTES, NULL, v, 0, "caf\xe9", 4);
        CHECK_TEXT(T_VALUE_TEXT, NULL, v, 0, "caf\xc3\xa9");
    }
    quire_value_free(v);
    /* Binary-safe: \000 is a NUL byte inside the string; escapes \( \) \\ (§7.3.4.2). */
    v = parse_value("(a\\000b\\(\\)\\\\)");
    if (v) CHECK_BYTES(T_VALUE_BYTES, NULL, v, 0, "a\0b()\\", 6);
    quire_value_free(v);
    /* An empty string: length 0, a 1-byte buffer holds it. */
    v = parse_value("()");
    if (v) {
        char buf[4] = {'Z', 'Z', 'Z', 'Z'};
        size_t len = 99;
        CHECK_STATUS(quire_value_bytes(buf, 1, &len, v), QUIRE_OK);
        CHECK_INT(len, 0);
        CHECK(buf[0] == '\0' && buf[1] == 'Z');
    }
    quire_value_free(v);

    /* Names: the bytes without the slash; #20 is a space (§7.3.5). */
    v = parse_value("/Name");
    if (v) CHECK_TEXT(T_VALUE_BYTES, NULL, v, 0, "Name");
    quire_value_free(v);
    v = parse_value("/A#20B");
    if (v) CHECK_TEXT(T_VALUE_BYTES, NULL, v, 0, "A B");
    quire_value_free(v);

    /* Arrays: elements in order, with their types. */
    v = parse_value("[1 (x) /N [true] << >> 4 0 R]");
    if (v) {
        static const quire_value_kind types[] = {QUIRE_VALUE_INTEGER, QUIRE_VALUE_STRING,
                                                 QUIRE_VALUE_NAME, QUIRE_VALUE_ARRAY,
                                                 QUIRE_VALUE_DICTIONARY, QUIRE_VALUE_REFERENCE};
        int32_t i;
        CHECK_STATUS(quire_value_count(&n, v), QUIRE_OK);
        CHECK_INT(n, 6);
        for (i = 0; i < 6 && i < n; i++) {
            quire_value *e = array_get(v, i);
            if (e) report(value_type(e) == types[i], __FILE__, __LINE__,
                          "element %d has type 0x%x, expected 0x%x", (int)i,
                          (unsigned)value_type(e), (unsigned)types[i]);
            if (e && i == 5) check_reference(e, 4, 0, __LINE__);
            quire_value_free(e);
        }
    }
    quire_value_free(v);
    v = parse_value("[]");
    if (v) {
        quire_value *e = NULL;
        CHECK_STATUS(quire_value_count(&n, v), QUIRE_OK);
        CHECK_INT(n, 0);
        CHECK_STATUS(quire_value_array_get(&e, v, 0), QUIRE_ERANGE);
        CHECK(e == NULL);
    }
    quire_value_free(v);

    /* Dictionaries: keys in written order, lookups not resolved. */
    v = parse_value("<< /Zeta 1 /Alpha [2 3] /Mid << /Inner (x) >> /R 7 1 R >>");
    if (v) {
        quire_value *e;
        CHECK_STATUS(quire_value_count(&n, v), QUIRE_OK);
        CHECK_INT(n, 4);
        CHECK_TEXT(T_DICT_KEY, NULL, v, 0, "Zeta");
        CHECK_TEXT(T_DICT_KEY, NULL, v, 1, "Alpha");
        CHECK_TEXT(T_DICT_KEY, NULL, v, 2, "Mid");
        CHECK_TEXT(T_DICT_KEY, NULL, v, 3, "R");
        e = dict_get(v, "Alpha");
        if (e) {
            CHECK_STATUS(quire_value_count(&n, e), QUIRE_OK);
            CHECK_INT(n, 2);
        }
        quire_value_free(e);
        e = dict_get(v, "Mid");
        if (e) {
            quire_value *inner = dict_get(e, "Inner");
            if (inner) CHECK_TEXT(T_VALUE_TEXT, NULL, inner, 0, "x");
            quire_value_free(inner);
        }
        quire_value_free(e);
        e = dict_get(v, "R");
        if (e) check_reference(e, 7, 1, __LINE__);
        quire_value_free(e);
    }
    quire_value_free(v);
    v = parse_value("<<>>");
    if (v) {
        CHECK_STATUS(quire_value_count(&n, v), QUIRE_OK);
        CHECK_INT(n, 0);
    }
    quire_value_free(v);
}

/* ---- parsing: errors, trailing garbage, the length argument, limits ------------------------ */

static void test_parse(void) {
    /* Not one complete value (the header: QUIRE_EFORMAT). */
    static const char *const bad[] = {
        "",            /* nothing */
        "  \n ",       /* only white space */
        "[1 2",        /* unterminated array */
        "<< /A 1",     /* unterminated dictionary */
        "(open",       /* unterminated string */
        "<4142",       /* unterminated hex string */
        "]",           /* a closing delimiter alone */
        ">>",
        "<4G>",        /* not a hex digit */
        "<< 1 2 >>",   /* a key that is not a name */
        "<< /A >>",    /* a key without a value */
        "42 43",       /* trailing garbage: a second value */
        "/A /B",
        "[1] ]",
        "(x) garbage",
        "<< /A 1 >> >>",
        "12 0",        /* two integers, not a reference */
        "R",
        "endobj",
        "1 0 obj 2 endobj",
    };
    size_t i;
    quire_value *v, *sentinel = (quire_value *)&i;
    int32_t n = -1;
    g_test = "values: parsing";
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int status;
        v = sentinel;
        quire_clear_error();
        status = quire_value_parse(&v, bad[i], strlen(bad[i]));
        report(status == QUIRE_EFORMAT, __FILE__, __LINE__,
               "quire_value_parse(\"%s\") returned %d (%s), expected QUIRE_EFORMAT", bad[i],
               status, quire_status_string(status));
        report(status != QUIRE_EFORMAT || (quire_last_error_code() == QUIRE_EFORMAT &&
                                          quire_last_error_message()[0] != '\0'),
               __FILE__, __LINE__, "quire_value_parse(\"%s\"): error not recorded", bad[i]);
        report(status == QUIRE_OK || v == sentinel, __FILE__, __LINE__,
               "quire_value_parse(\"%s\") failed but wrote *out", bad[i]);
        if (status == QUIRE_OK && v != sentinel) quire_value_free(v);
    }

    /* White space around one value is not garbage. */
    v = parse_value(" \t\r\n42\n ");
    if (v) check_integer(v, 42, __LINE__);
    quire_value_free(v);

    /* `length` is honoured: only the first 5 bytes, "[1 2]", are read. */
    v = NULL;
    CHECK_STATUS(quire_value_parse(&v, "[1 2] garbage", 5), QUIRE_OK);
    if (v) {
        CHECK_STATUS(quire_value_count(&n, v), QUIRE_OK);
        CHECK_INT(n, 2);
    }
    quire_value_free(v);
    /* ... and the bytes need no NUL: a NUL byte inside a literal string is data. */
    v = NULL;
    CHECK_STATUS(quire_value_parse(&v, "(a\0b)", 5), QUIRE_OK);
    if (v) CHECK_BYTES(T_VALUE_BYTES, NULL, v, 0, "a\0b", 3);
    quire_value_free(v);
    /* A prefix that cuts a value short. */
    v = sentinel;
    CHECK_STATUS(quire_value_parse(&v, "[1 2]", 4), QUIRE_EFORMAT);
    CHECK_STATUS(quire_value_parse(&v, "42", 0), QUIRE_EFORMAT);

    /* NULL arguments: QUIRE_EINVAL (the header). */
    CHECK_STATUS(quire_value_parse(NULL, "42", 2), QUIRE_EINVAL);
    CHECK_STATUS(quire_value_parse(&v, NULL, 2), QUIRE_EINVAL);
    CHECK_STATUS(quire_value_parse(&v, NULL, 0), QUIRE_EINVAL);
    CHECK(v == sentinel);

    /* Nesting: 100 levels parse; 5000 levels exceed the nesting limit (default 256, the
     * header), QUIRE_ELIMIT. */
    {
        char *deep = malloc(10001);
        int k;
        if (deep) {
            for (k = 0; k < 100; k++) deep[k] = '[';
            for (k = 0; k < 100; k++) deep[100 + k] = ']';
            v = NULL;
            CHECK_STATUS(quire_value_parse(&v, deep, 200), QUIRE_OK);
            quire_value_free(v);
            for (k = 0; k < 5000; k++) deep[k] = '[';
            for (k = 0; k < 5000; k++) deep[5000 + k] = ']';
            v = sentinel;
            CHECK_STATUS(quire_value_parse(&v, deep, 10000), QUIRE_ELIMIT);
            CHECK(v == sentinel);
            free(deep);
        }
    }
}

/* ---- printing and parsing round trips ----------------------------------------------------------- */

/* to_pdf, parse the text, to_pdf again: the same text and type. */
static void check_round_trip(const quire_value *v, const char *what) {
    char *text = fetch_text(T_VALUE_TO_PDF, NULL, v, 0, NULL);
    char *again = NULL;
    quire_value *reparsed = NULL;
    int status;
    if (!text) return;
    status = quire_value_parse(&reparsed, text, strlen(text));
    report(status == QUIRE_OK, __FILE__, __LINE__, "%s: its PDF syntax \"%.200s\" does not parse: %s",
           what, text, quire_last_error_message());
    if (reparsed) {
        quire_value_kind t1 = value_type(v), t2 = value_type(reparsed);
        again = fetch_text(T_VALUE_TO_PDF, NULL, reparsed, 0, NULL);
        report(t1 == t2 || (t1 == QUIRE_VALUE_STREAM && t2 == QUIRE_VALUE_DICTIONARY), __FILE__,
               __LINE__, "%s: type 0x%x became 0x%x", what, (unsigned)t1, (unsigned)t2);
        report(again && strcmp(again, text) == 0, __FILE__, __LINE__,
               "%s: \"%.200s\" printed again is \"%.200s\"", what, text, again ? again : "(failed)");
    }
    quire_value_free(reparsed);
    free(again);
    free(text);
}

static void test_round_trips(void) {
    static const char *const syntax[] = {
        "null", "true", "false", "0", "-17", "9999999999", "3.5", "-.5", "0.1", "123456.789",
        "(Hello)", "(a\\000b\\(\\)\\\\\\r\\n)", "<00FF0A0D28295C>", "<FEFF00E9>", "()",
        "/Name", "/A#20B", "/#23#2F", "[]", "[1 (x) /N [true] << >> 4 0 R]", "<<>>",
        "<< /Zeta 1 /Alpha [2 3] /Mid << /Inner (x) >> /R 7 1 R >>", "12 0 R",
        "<< /Type /Page /MediaBox [0 0 612 792] >>"};
    size_t i;
    g_test = "values: round trips";
    for (i = 0; i < sizeof syntax / sizeof syntax[0]; i++) {
        quire_value *v = parse_value(syntax[i]);
        if (v) check_round_trip(v, syntax[i]);
        quire_value_free(v);
    }
    /* The bytes survive printing: binary strings come back byte for byte. */
    {
        static const char binary[] = "\x00\xff\n\r()\\";
        quire_value *v = parse_value("<00FF0A0D28295C>");
        char *text = v ? fetch_text(T_VALUE_TO_PDF, NULL, v, 0, NULL) : NULL;
        quire_value *back = NULL;
        if (text) CHECK_STATUS(quire_value_parse(&back, text, strlen(text)), QUIRE_OK);
        if (back) CHECK_BYTES(T_VALUE_BYTES, NULL, back, 0, binary, 7);
        quire_value_free(back);
        free(text);
        quire_value_free(v);
    }
    /* Numbers keep their value: 0.1 and 123456.789 print and parse to the same double. */
    {
        static const double numbers[] = {0.1, 123456.789, -0.5};
        static const char *const texts[] = {"0.1", "123456.789", "-.5"};
        for (i = 0; i < 3; i++) {
            quire_value *v = parse_value(texts[i]);
            char *text = v ? fetch_text(T_VALUE_TO_PDF, NULL, v, 0, NULL) : NULL;
            quire_value *back = NULL;
            double d = 0;
            if (text) CHECK_STATUS(quire_value_parse(&back, text, strlen(text)), QUIRE_OK);
            if (back) {
                CHECK_STATUS(quire_value_number(&d, back), QUIRE_OK);
                report(d == numbers[i], __FILE__, __LINE__, "%s printed as %s reads %.17g",
                       texts[i], text, d);
            }
            quire_value_free(back);
            free(text);
            quire_value_free(v);
        }
    }
    /* Every object of two real files (objects of every type, from tables and object
     * streams), and the trailer. */
    {
        static const char *const files[] = {ANNOTS, HYBRID};
        size_t f;
        for (f = 0; f < 2; f++) {
            quire_document *doc = open_corpus(files[f], NULL);
            int32_t count = 0, k;
            quire_value *t = NULL;
            char what[256];
            if (!doc) continue;
            CHECK_STATUS(quire_document_object_count(&count, doc), QUIRE_OK);
            for (k = 1; k < count; k++) {
                quire_value *v = NULL;
                if (quire_document_object(&v, doc, k) != QUIRE_OK) {
                    report(0, __FILE__, __LINE__, "%s: object %d: %s", files[f], (int)k,
                           quire_last_error_message());
                    continue;
                }
                snprintf(what, sizeof what, "%s object %d", files[f], (int)k);
                check_round_trip(v, what);
                quire_value_free(v);
            }
            CHECK_STATUS(quire_document_trailer(&t, doc), QUIRE_OK);
            if (t) {
                check_round_trip(t, "trailer");
                CHECK_LENGTH_QUERY(T_VALUE_TO_PDF, NULL, t, 0);
            }
            quire_value_free(t);
            quire_document_close(doc);
        }
    }
}

/* ---- stream data ------------------------------------------------------------------------------ */

/* The stream of object `number`, or NULL after a failed check. */
static quire_value *stream_object(quire_document *doc, int32_t number) {
    quire_value *v = object(doc, number);
    if (v && value_type(v) != QUIRE_VALUE_STREAM) {
        report(0, __FILE__, __LINE__, "object %d is not a stream", (int)number);
        quire_value_free(v);
        return NULL;
    }
    return v;
}

static void check_stream_hash(quire_document *doc, const quire_value *s, enum text_fn form,
                              size_t size, uint64_t hash, int line) {
    size_t len = 0;
    char *data = fetch_text_at(form, doc, s, 0, &len, __FILE__, line);
    report(data && len == size && fnv1a64(data, len) == hash, __FILE__, line,
           "stream data: %zu bytes with FNV-1a 0x%016llx, expected %zu bytes with 0x%016llx",
           len, data ? (unsigned long long)fnv1a64(data, len) : 0ull, size,
           (unsigned long long)hash);
    free(data);
}

static void test_stream_data(void) {
    /* enc-R2 and enc-XI-R6 (user password "view"), object 2: << /Length 52 (80 in the AES
     * file) /Filter /FlateDecode >>; pikepdf read_raw_bytes: the same 52 decrypted bytes in
     * both (FNV-1a 0x0c51f763dc164476); read_bytes: the 46 bytes below. */
    static const char potato[] = "BT\n  /F1 24 Tf\n  72 720 Td\n  (Potato 1) Tj\nET\n";
    static const char *const encrypted[] = {ENC_R2, ENC_R6};
    quire_document *doc;
    quire_value *s, *dict;
    size_t f, len = 99;
    char buf[16];
    g_test = "values: stream data";

    /* rotation.pdf, "3 0 obj\r<</Length 178/Filter/FlateDecode>>stream\r\n" (the file): raw,
     * the 178 bytes at offset 2167 of the file (pikepdf read_raw_bytes, found there); decoded,
     * 232 bytes with FNV-1a 0xd8c1ab14366d0c75 that begin "/GS1 gs\nBT\n" (pikepdf
     * read_bytes). */
    doc = open_corpus(ROTATION, NULL);
    if (doc && (s = stream_object(doc, 3)) != NULL) {
        size_t fsize = 0;
        unsigned char *file = read_file(corpus(ROTATION), &fsize);
        char *raw = fetch_text(T_STREAM_RAW, doc, s, 0, &len);
        char *decoded;
        report(raw && file && len == 178 && fsize > 2167 + 178 &&
                   memcmp(raw, file + 2167, 178) == 0,
               __FILE__, __LINE__, "raw stream data: %zu bytes, not the file's 178 at 2167", len);
        free(raw);
        free(file);
        check_stream_hash(doc, s, T_STREAM_DECODED, 232, 0xd8c1ab14366d0c75u, __LINE__);
        decoded = fetch_text(T_STREAM_DECODED, doc, s, 0, &len);
        CHECK(decoded && strncmp(decoded, "/GS1 gs\nBT\n", 11) == 0);
        free(decoded);
        CHECK_LENGTH_QUERY(T_STREAM_DECODED, doc, s, 0);
        CHECK_LENGTH_QUERY(T_STREAM_RAW, doc, s, 0);

        /* Bad forms, NULL arguments, a value that is not a stream: QUIRE_EINVAL. A form is
         * one of the two quire_stream_form values: past them, 0 and 1 (the forms' numbers
         * before 0.5), -1, and a constant of another family (each family has its own range:
         * the header) are refused. */
        len = 99;
        CHECK_STATUS(quire_document_stream_data(buf, sizeof buf, &len, doc, s,
                                                (quire_stream_form)(QUIRE_STREAM_RAW + 1)),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_document_stream_data(buf, sizeof buf, &len, doc, s, (quire_stream_form)2),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_document_stream_data(buf, sizeof buf, &len, doc, s, (quire_stream_form)0),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_document_stream_data(buf, sizeof buf, &len, doc, s, (quire_stream_form)1),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_document_stream_data(buf, sizeof buf, &len, doc, s, (quire_stream_form)-1),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_document_stream_data(buf, sizeof buf, &len, doc, s,
                                                (quire_stream_form)QUIRE_SAVE_FULL),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_document_stream_data(buf, sizeof buf, &len, doc, s,
                                                (quire_stream_form)QUIRE_VALUE_STREAM),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_document_stream_data(buf, sizeof buf, &len, NULL, s, QUIRE_STREAM_DECODED),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_document_stream_data(buf, sizeof buf, &len, doc, NULL, QUIRE_STREAM_DECODED),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_document_stream_data(buf, sizeof buf, NULL, doc, s, QUIRE_STREAM_DECODED),
                     QUIRE_EINVAL);
        dict = object(doc, 1);
        if (dict) {
            CHECK_STATUS(quire_document_stream_data(NULL, 0, &len, doc, dict, QUIRE_STREAM_RAW),
                         QUIRE_EINVAL);
        }
        quire_value_free(dict);
        CHECK_INT(len, 99);
        quire_value_free(s);
    }
    quire_document_close(doc);

    /* A decode limit: max_stream_bytes 100 < 232 decoded bytes: QUIRE_ELIMIT (the header). */
    {
        quire_open_options options = QUIRE_OPEN_OPTIONS_INIT;
        doc = NULL;
        options.max_stream_bytes = 100;
        CHECK_STATUS(quire_document_open(&doc, corpus(ROTATION), &options), QUIRE_OK);
        if (doc && (s = stream_object(doc, 3)) != NULL) {
            len = 99;
            CHECK_STATUS(
                quire_document_stream_data(NULL, 0, &len, doc, s, QUIRE_STREAM_DECODED),
                QUIRE_ELIMIT);
            CHECK_INT(len, 99);
            quire_value_free(s);
        }
        quire_document_close(doc);
    }

    /* Encrypted files: raw data is decrypted (the header), decoded data is the text. */
    for (f = 0; f < 2; f++) {
        doc = open_corpus(encrypted[f], "view");
        if (doc && (s = stream_object(doc, 2)) != NULL) {
            check_stream_hash(doc, s, T_STREAM_RAW, 52, 0x0c51f763dc164476u, __LINE__);
            CHECK_TEXT(T_STREAM_DECODED, doc, s, 0, potato);
            quire_value_free(s);
        }
        quire_document_close(doc);
    }

    /* An unknown filter: QUIRE_EUNSUPPORTED decoded; raw gives the bytes as stored. The
     * stream is added to annots.pdf through quire_document_add_stream. */
    doc = open_corpus(ANNOTS, NULL);
    if (doc) {
        quire_value *d = parse_value("<< /Filter /QuireNoSuchFilter >>");
        int32_t number = -1;
        CHECK_STATUS(quire_document_add_stream(&number, doc, d, "abc\0def", 7), QUIRE_OK);
        if (number > 0 && (s = stream_object(doc, number)) != NULL) {
            len = 99;
            CHECK_STATUS(quire_document_stream_data(NULL, 0, &len, doc, s, QUIRE_STREAM_DECODED),
                         QUIRE_EUNSUPPORTED);
            CHECK_INT(len, 99);
            CHECK_BYTES(T_STREAM_RAW, doc, s, 0, "abc\0def", 7);
            quire_value_free(s);
        }
        quire_value_free(d);
        quire_document_close(doc);
    }
}

void run_value_tests(void) {
    test_trailer_and_objects();
    test_getters_by_type();
    test_getter_values();
    test_parse();
    test_round_trips();
    test_stream_data();
}
