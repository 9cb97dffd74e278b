/*
 * test_editing.c: editing (set, add, delete objects and dictionary entries, unsaved
 * changes, error cases) and saving (to a path, atomically, in a temporary directory; through
 * a write callback; incremental and full, with and without object streams; encrypted and
 * repaired files), each checked by reopening what was written.
 *
 * Sources of expected values: "the file" (its bytes), "manifest", "pikepdf" (10.17),
 * "pypdfium2" (5.15), and "the header" (include/quire.h), which defines what an edit and a
 * save do; the values written by a test are the test's own, read back after reopening.
 * Every file is written under a directory made by mkdtemp in /tmp and removed at the end.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_support.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ANNOTS "pdfium/testing/resources/annots.pdf"
#define BOOKMARKS "pdfium/testing/resources/bookmarks.pdf"
#define HYBRID "qpdf/qpdf/qtest/qpdf/hybrid-xref.pdf"
#define QPDF(name) "qpdf/qpdf/qtest/qpdf/" name

/* ---- helpers --------------------------------------------------------------------------------- */

/* Both quire_document_save and quire_document_save_to_callback take NULL options for an
 * incremental save (the header); the callback's calls pass the options, to use them too. */
static const quire_save_options incremental = QUIRE_SAVE_OPTIONS_INIT;

/* The callback, through the header's typedef. */
static const quire_write_fn writer = sink_write;

static int32_t has_unsaved(quire_document *doc) {
    int32_t v = -1;
    int status = quire_document_has_unsaved_changes(&v, doc);
    report(status == QUIRE_OK, __FILE__, __LINE__, "quire_document_has_unsaved_changes: %d %s",
           status, quire_last_error_message());
    return v;
}

/* quire_document_set_dict_value with a value parsed from `syntax` (NULL: a NULL value). */
static int set_key(quire_document *doc, int32_t number, const char *key, const char *syntax) {
    quire_value *v = syntax ? parse_value(syntax) : NULL;
    int status;
    if (syntax && !v) return QUIRE_EFORMAT;
    status = quire_document_set_dict_value(doc, number, key, v);
    quire_value_free(v);
    return status;
}

/* The PDF syntax of entry `key` of object `number` (malloc'd), or NULL if it is missing. */
static char *key_pdf(quire_document *doc, int32_t number, const char *key) {
    quire_value *obj = NULL, *v = NULL;
    char *text = NULL;
    if (quire_document_object(&obj, doc, number) != QUIRE_OK) {
        report(0, __FILE__, __LINE__, "quire_document_object(%d): %s", (int)number,
               quire_last_error_message());
        return NULL;
    }
    if (quire_value_dict_get(&v, obj, key) == QUIRE_OK) {
        text = fetch_text(T_VALUE_TO_PDF, NULL, v, 0, NULL);
        quire_value_free(v);
    }
    quire_value_free(obj);
    return text;
}

/* Entry `key` of object `number`, printed, is `expected` (NULL: the key is missing). */
static void check_key_at(quire_document *doc, int32_t number, const char *key, const char *expected,
                         int line) {
    char *text = key_pdf(doc, number, key);
    if (expected)
        report(text && strcmp(text, expected) == 0, __FILE__, line,
               "object %d /%s is %s, expected %s", (int)number, key, text ? text : "(missing)",
               expected);
    else
        report(text == NULL, __FILE__, line, "object %d /%s is %s, expected it missing",
               (int)number, key, text);
    free(text);
}
#define CHECK_KEY(doc, number, key, expected) \
    check_key_at((doc), (number), (key), (expected), __LINE__)

/* The object number of a reference in the trailer (/Root, /Info, /Encrypt), or -1. */
static int32_t trailer_ref(quire_document *doc, const char *key) {
    quire_value *t = NULL, *v = NULL;
    int32_t number = -1, generation = -1;
    if (quire_document_trailer(&t, doc) == QUIRE_OK && quire_value_dict_get(&v, t, key) == QUIRE_OK)
        quire_value_reference(&number, &generation, v);
    report(number > 0, __FILE__, __LINE__, "the trailer has no /%s reference", key);
    quire_value_free(v);
    quire_value_free(t);
    return number;
}

static int save_to_sink(quire_document *doc, quire_save_mode mode, int32_t object_streams,
                        struct byte_sink *sink) {
    quire_save_options options = QUIRE_SAVE_OPTIONS_INIT;
    options.mode = mode;
    options.object_streams = object_streams;
    return quire_document_save_to_callback(doc, &options, sink_write, sink);
}

static quire_document *reopen_sink(const struct byte_sink *sink, const char *password, int line) {
    quire_document *doc = NULL;
    quire_open_options options = QUIRE_OPEN_OPTIONS_INIT;
    int status;
    options.password = password;
    status = quire_document_open_memory(&doc, sink->data, sink->size, &options);
    report(status == QUIRE_OK, __FILE__, line, "reopening %zu saved bytes: %d (%s): %s", sink->size,
           status, quire_status_string(status), quire_last_error_message());
    return status == QUIRE_OK ? doc : NULL;
}

static quire_document *reopen_path(const char *path, const char *password, int line) {
    quire_document *doc = NULL;
    quire_open_options options = QUIRE_OPEN_OPTIONS_INIT;
    int status;
    options.password = password;
    status = quire_document_open(&doc, path, &options);
    report(status == QUIRE_OK, __FILE__, line, "reopening %s: %d (%s): %s", path, status,
           quire_status_string(status), quire_last_error_message());
    return status == QUIRE_OK ? doc : NULL;
}

static int32_t int_of(int (*fn)(int32_t *, quire_document *), quire_document *doc) {
    int32_t v = -1;
    int status = fn(&v, doc);
    report(status == QUIRE_OK, __FILE__, __LINE__, "status %d: %s", status,
           quire_last_error_message());
    return v;
}

/* quire_document_xref_form, as a check; (quire_xref_form)-1 on failure. */
static quire_xref_form xref_form_of(quire_document *doc) {
    quire_xref_form form = (quire_xref_form)-1;
    int status = quire_document_xref_form(&form, doc);
    report(status == QUIRE_OK, __FILE__, __LINE__, "quire_document_xref_form: status %d: %s",
           status, quire_last_error_message());
    return form;
}

static long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* An incremental save keeps the original bytes and appends a small update (the header). The
 * update of a few changed objects, a cross-reference section and a trailer stays well under
 * 4 KiB. */
static void check_incremental(const unsigned char *saved, size_t saved_size,
                              const unsigned char *original, size_t original_size, const char *what,
                              int line) {
    report(saved_size > original_size && memcmp(saved, original, original_size) == 0, __FILE__,
           line, "%s: the %zu saved bytes do not begin with the %zu original ones", what,
           saved_size, original_size);
    report(saved_size > original_size && saved_size - original_size < 4096, __FILE__, line,
           "%s: the update is %ld bytes", what, (long)saved_size - (long)original_size);
}

static int contains(const unsigned char *data, size_t size, const char *needle) {
    size_t n = strlen(needle), i;
    for (i = 0; i + n <= size; i++)
        if (memcmp(data + i, needle, n) == 0) return 1;
    return 0;
}

static int ends_with_eof(const unsigned char *data, size_t size) {
    size_t end = size;
    while (end > 0 && (data[end - 1] == '\n' || data[end - 1] == '\r' || data[end - 1] == ' '))
        end--;
    return end >= 5 && memcmp(data + end - 5, "%%EOF", 5) == 0;
}

/* ---- editing ------------------------------------------------------------------------------------ */

static void test_edit(void) {
    quire_document *doc;
    quire_value *v = NULL, *stream6 = NULL;
    int32_t n = -1, m = -1, count = -1, before = -1;
    /* annots.pdf: objects 1 to 26, /Size 27; 1 is the catalog << /Type /Catalog /Pages 2 0 R
     * /AcroForm << ... >> >> (the file). */
    doc = open_corpus(ANNOTS, NULL);
    if (!doc) return;
    CHECK_INT(has_unsaved(doc), 0);

    /* Set, replace and remove a dictionary entry; the change is visible through
     * quire_document_object ("with unsaved changes", the header). */
    CHECK_STATUS(set_key(doc, 1, "QuireTest", "(hello)"), QUIRE_OK);
    CHECK_INT(has_unsaved(doc), 1);
    CHECK_KEY(doc, 1, "QuireTest", "(hello)");
    CHECK_KEY(doc, 1, "Type", "/Catalog");
    CHECK_STATUS(set_key(doc, 1, "QuireTest", "[1 2]"), QUIRE_OK);
    CHECK_KEY(doc, 1, "QuireTest", "[1 2]");
    CHECK_STATUS(quire_document_object(&v, doc, 1), QUIRE_OK);
    if (v) {
        CHECK_STATUS(quire_value_count(&count, v), QUIRE_OK);
        CHECK_INT(count, 4);
    }
    quire_value_free(v);
    v = NULL;
    /* A NULL value and a null value both remove the key (the header). */
    CHECK_STATUS(set_key(doc, 1, "QuireTest", NULL), QUIRE_OK);
    CHECK_KEY(doc, 1, "QuireTest", NULL);
    CHECK_STATUS(set_key(doc, 1, "QuireTest", "42"), QUIRE_OK);
    CHECK_STATUS(set_key(doc, 1, "QuireTest", "null"), QUIRE_OK);
    CHECK_KEY(doc, 1, "QuireTest", NULL);
    /* Removing a key that is not there is not an error. */
    CHECK_STATUS(set_key(doc, 1, "NoSuchKey", NULL), QUIRE_OK);
    /* A stream object's dictionary can be edited too (the header: "dictionary or stream"). */
    CHECK_STATUS(set_key(doc, 5, "QuireTest", "/Yes"), QUIRE_OK);
    CHECK_KEY(doc, 5, "QuireTest", "/Yes");

    /* add_object: a new number past the 26 in use, counted by quire_document_object_count
     * ("plus objects added since opening", the header: 27 + 1). */
    before = -1;
    CHECK_STATUS(quire_document_object_count(&before, doc), QUIRE_OK);
    v = parse_value("<< /Quire 1 >>");
    CHECK_STATUS(quire_document_add_object(&n, doc, v), QUIRE_OK);
    quire_value_free(v);
    v = NULL;
    report(n >= 27, __FILE__, __LINE__, "the new object is number %d, in use already", (int)n);
    CHECK_STATUS(quire_document_object_count(&count, doc), QUIRE_OK);
    CHECK_INT(count, before + 1);
    CHECK_KEY(doc, n, "Quire", "1");
    /* The value was copied: freeing it changed nothing (checked above, after the free). */

    /* set_object replaces an object entirely; a stream value keeps its data (the header). */
    v = parse_value("[1 2 3]");
    CHECK_STATUS(quire_document_set_object(doc, n, v), QUIRE_OK);
    quire_value_free(v);
    v = NULL;
    CHECK_STATUS(quire_document_object(&v, doc, n), QUIRE_OK);
    if (v) {
        CHECK_INT(value_type(v), QUIRE_VALUE_ARRAY);
        CHECK_STATUS(quire_value_count(&count, v), QUIRE_OK);
        CHECK_INT(count, 3);
    }
    quire_value_free(v);
    v = NULL;
    CHECK_STATUS(quire_document_object(&stream6, doc, 6), QUIRE_OK);
    if (stream6) {
        size_t len6 = 0;
        char *data6 = fetch_text(T_STREAM_RAW, doc, stream6, 0, &len6);
        CHECK_STATUS(quire_document_set_object(doc, n, stream6), QUIRE_OK);
        CHECK_STATUS(quire_document_object(&v, doc, n), QUIRE_OK);
        if (v && data6) {
            CHECK_INT(value_type(v), QUIRE_VALUE_STREAM);
            CHECK_BYTES(T_STREAM_RAW, doc, v, 0, data6, len6);
        }
        quire_value_free(v);
        v = NULL;
        free(data6);
    }
    quire_value_free(stream6);

    /* add_stream: the dictionary and the data are copied; no filter, so decoded == raw. */
    v = parse_value("<< /Quire (s) >>");
    CHECK_STATUS(quire_document_add_stream(&m, doc, v, "hello stream", 12), QUIRE_OK);
    quire_value_free(v);
    v = NULL;
    report(m > n, __FILE__, __LINE__, "add_stream gave %d after %d", (int)m, (int)n);
    CHECK_STATUS(quire_document_object(&v, doc, m), QUIRE_OK);
    if (v) {
        CHECK_INT(value_type(v), QUIRE_VALUE_STREAM);
        CHECK_TEXT(T_STREAM_RAW, doc, v, 0, "hello stream");
        CHECK_TEXT(T_STREAM_DECODED, doc, v, 0, "hello stream");
    }
    quire_value_free(v);
    v = NULL;
    CHECK_KEY(doc, m, "Quire", "(s)");
    /* NULL dictionary (an empty one) and no data. */
    {
        int32_t e = -1;
        CHECK_STATUS(quire_document_add_stream(&e, doc, NULL, NULL, 0), QUIRE_OK);
        CHECK_STATUS(quire_document_object(&v, doc, e), QUIRE_OK);
        if (v) {
            CHECK_INT(value_type(v), QUIRE_VALUE_STREAM);
            CHECK_TEXT(T_STREAM_RAW, doc, v, 0, "");
        }
        quire_value_free(v);
        v = NULL;
    }

    /* delete_object: the object reads as null, and so do references to it (the header). */
    CHECK_STATUS(quire_document_delete_object(doc, m), QUIRE_OK);
    CHECK_STATUS(quire_document_object(&v, doc, m), QUIRE_OK);
    if (v) CHECK_INT(value_type(v), QUIRE_VALUE_NULL);
    quire_value_free(v);
    v = NULL;
    {
        char ref[32];
        quire_value *r, *resolved = NULL;
        snprintf(ref, sizeof ref, "%d 0 R", (int)m);
        r = parse_value(ref);
        if (r) CHECK_STATUS(quire_document_resolve(&resolved, doc, r), QUIRE_OK);
        if (resolved) CHECK_INT(value_type(resolved), QUIRE_VALUE_NULL);
        quire_value_free(resolved);
        quire_value_free(r);
        /* A deleted object is no longer in use: QUIRE_ERANGE for it now. */
        CHECK_STATUS(quire_document_delete_object(doc, m), QUIRE_ERANGE);
    }

    /* A cycle of references resolves to null (the header): a new object a (null), b = a
     * reference to a, then a = a reference to b. */
    {
        int32_t a = -1, b = -1;
        char ref[32];
        quire_value *null_value = parse_value("null"), *ra = NULL, *rb = NULL, *res = NULL;
        CHECK_STATUS(quire_document_add_object(&a, doc, null_value), QUIRE_OK);
        snprintf(ref, sizeof ref, "%d 0 R", (int)a);
        ra = parse_value(ref);
        CHECK_STATUS(quire_document_add_object(&b, doc, ra), QUIRE_OK);
        snprintf(ref, sizeof ref, "%d 0 R", (int)b);
        rb = parse_value(ref);
        CHECK_STATUS(quire_document_set_object(doc, a, rb), QUIRE_OK);
        if (ra) CHECK_STATUS(quire_document_resolve(&res, doc, ra), QUIRE_OK);
        if (res) CHECK_INT(value_type(res), QUIRE_VALUE_NULL);
        quire_value_free(res);
        quire_value_free(rb);
        quire_value_free(ra);
        quire_value_free(null_value);
    }
    CHECK_INT(has_unsaved(doc), 1);
    /* Closing with unsaved changes discards them without complaint. */
    quire_document_close(doc);
}

static void test_edit_errors(void) {
    quire_document *doc;
    quire_value *v = parse_value("<< /Quire 1 >>"), *i42 = parse_value("42");
    int32_t n = -7;
    doc = open_corpus(ANNOTS, NULL);
    if (!doc || !v || !i42) {
        quire_document_close(doc);
        quire_value_free(v);
        quire_value_free(i42);
        return;
    }
    /* The header's error cases, each leaving the document unchanged. */
    CHECK_STATUS(quire_document_set_object(NULL, 3, v), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_set_object(doc, 3, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_set_object(doc, 0, v), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_set_object(doc, 27, v), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_set_object(doc, 1000, v), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_set_object(doc, -1, v), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_set_object(doc, INT32_MAX, v), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_set_dict_value(NULL, 1, "K", v), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_set_dict_value(doc, 1, NULL, v), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_set_dict_value(doc, 1000, "K", v), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_set_dict_value(doc, -1, "K", v), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_add_object(NULL, doc, v), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_add_object(&n, NULL, v), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_add_object(&n, doc, NULL), QUIRE_EINVAL);
    /* add_stream: the dictionary must be a dictionary; NULL data only with size 0. */
    CHECK_STATUS(quire_document_add_stream(&n, doc, i42, "x", 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_add_stream(&n, doc, NULL, NULL, 5), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_add_stream(NULL, doc, v, "x", 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_add_stream(&n, NULL, v, "x", 1), QUIRE_EINVAL);
    /* A size past any buffer (a negative ssize_t cast to size_t): refused, not a trap. */
    CHECK_STATUS(quire_document_add_stream(&n, doc, v, "x", SIZE_MAX), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_add_stream(&n, doc, v, "x", (size_t)1 << 63), QUIRE_EINVAL);
    {
        quire_document *none = NULL;
        CHECK_STATUS(quire_document_open_memory(&none, "x", SIZE_MAX, NULL), QUIRE_EINVAL);
        CHECK(none == NULL);
    }
    /* delete: object 0, the catalog (trailer /Root 1 0 R, the file): QUIRE_EINVAL; a number
     * not in use: QUIRE_ERANGE. */
    CHECK_STATUS(quire_document_delete_object(NULL, 3), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_delete_object(doc, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_delete_object(doc, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_delete_object(doc, 1000), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_delete_object(doc, -5), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_has_unsaved_changes(NULL, doc), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_has_unsaved_changes(&n, NULL), QUIRE_EINVAL);
    CHECK_INT(n, -7);
    CHECK_INT(has_unsaved(doc), 0);
    CHECK_KEY(doc, 3, "Type", "/Page");
    quire_document_close(doc);

    /* set_dict_value on an object that is not a dictionary or stream: object-stream.pdf's
     * object 5 is [/PDF /Text] (pikepdf; it sits in an object stream). */
    doc = open_corpus(QPDF("object-stream.pdf"), NULL);
    if (doc) {
        CHECK_STATUS(quire_document_set_dict_value(doc, 5, "K", v), QUIRE_EINVAL);
        CHECK_INT(has_unsaved(doc), 0);
        quire_document_close(doc);
    }

    /* The /Encrypt dictionary cannot be replaced or deleted (the header). */
    doc = open_corpus(QPDF("enc-R2,V1,U=view,O=master.pdf"), "view");
    if (doc) {
        int32_t enc = trailer_ref(doc, "Encrypt");
        if (enc > 0) {
            CHECK_STATUS(quire_document_set_object(doc, enc, v), QUIRE_EINVAL);
            CHECK_STATUS(quire_document_delete_object(doc, enc), QUIRE_EINVAL);
        }
        CHECK_INT(has_unsaved(doc), 0);
        quire_document_close(doc);
    }

    /* max_objects is the "highest object number accepted" (the header). annots.pdf's highest
     * object is 26 ("xref 0 27", the file), so with a limit of 26 it opens, and a new object
     * (27) is past the limit: QUIRE_ELIMIT. With a limit of 27, one object can be added. */
    {
        quire_open_options options = QUIRE_OPEN_OPTIONS_INIT;
        doc = NULL;
        options.max_objects = 26;
        CHECK_STATUS(quire_document_open(&doc, corpus(ANNOTS), &options), QUIRE_OK);
        if (doc) {
            n = -7;
            CHECK_STATUS(quire_document_add_object(&n, doc, v), QUIRE_ELIMIT);
            CHECK_STATUS(quire_document_add_stream(&n, doc, NULL, "x", 1), QUIRE_ELIMIT);
            CHECK_INT(n, -7);
            quire_document_close(doc);
        }
        doc = NULL;
        options.max_objects = 27;
        CHECK_STATUS(quire_document_open(&doc, corpus(ANNOTS), &options), QUIRE_OK);
        if (doc) {
            n = -7;
            CHECK_STATUS(quire_document_add_object(&n, doc, v), QUIRE_OK);
            CHECK_INT(n, 27);
            n = -7;
            CHECK_STATUS(quire_document_add_object(&n, doc, v), QUIRE_ELIMIT);
            CHECK_STATUS(quire_document_add_stream(&n, doc, NULL, "x", 1), QUIRE_ELIMIT);
            CHECK_INT(n, -7);
            quire_document_close(doc);
        }
    }
    quire_value_free(v);
    quire_value_free(i42);
}

/* ---- saving to a path ---------------------------------------------------------------------------- */

static void test_save_path(void) {
    const char *dir;
    quire_document *doc, *re;
    unsigned char *original, *saved, *saved2;
    size_t original_size = 0, saved_size = 0, saved2_size = 0;
    quire_save_options options = QUIRE_SAVE_OPTIONS_INIT;
    dir = make_temp_dir();
    original = read_file(corpus(ANNOTS), &original_size);
    doc = open_corpus(ANNOTS, NULL);
    if (!dir || !original || !doc) {
        free(original);
        quire_document_close(doc);
        remove_temp_dir(dir);
        return;
    }

    CHECK_STATUS(set_key(doc, 1, "QuireTest", "(hello)"), QUIRE_OK);
    /* Options NULL: an incremental save. Atomic: only the file is left in the directory (no
     * temporary file); afterwards there are no unsaved changes (the header). */
    CHECK_STATUS(quire_document_save(doc, NULL, join_path(dir, "out.pdf")), QUIRE_OK);
    CHECK_INT(count_dir_entries(dir), 1);
    CHECK_INT(has_unsaved(doc), 0);
    saved = read_file(join_path(dir, "out.pdf"), &saved_size);
    if (saved) check_incremental(saved, saved_size, original, original_size, "out.pdf", __LINE__);
    re = reopen_path(join_path(dir, "out.pdf"), NULL, __LINE__);
    if (re) {
        int32_t v = -1;
        CHECK_KEY(re, 1, "QuireTest", "(hello)");
        /* Everything else is as before: 2 pages, 9 and 3 annotations (manifest), no repair. */
        CHECK_INT(int_of(quire_document_page_count, re), 2);
        CHECK_STATUS(quire_page_annotation_count(&v, re, 0), QUIRE_OK);
        CHECK_INT(v, 9);
        CHECK_STATUS(quire_page_annotation_count(&v, re, 1), QUIRE_OK);
        CHECK_INT(v, 3);
        CHECK_INT(int_of(quire_document_is_repaired, re), 0);
        CHECK_INT(int_of(quire_document_warning_count, re), 0);
        CHECK_INT(int_of(quire_document_has_unsaved_changes, re), 0);
        quire_document_close(re);
    }

    /* The document continues from the saved file: the next incremental save appends to
     * what was written (the header). */
    CHECK_STATUS(set_key(doc, 1, "QuireTest2", "2"), QUIRE_OK);
    CHECK_INT(has_unsaved(doc), 1);
    options.mode = QUIRE_SAVE_INCREMENTAL;
    CHECK_STATUS(quire_document_save(doc, &options, join_path(dir, "out2.pdf")), QUIRE_OK);
    CHECK_INT(count_dir_entries(dir), 2);
    saved2 = read_file(join_path(dir, "out2.pdf"), &saved2_size);
    if (saved && saved2)
        check_incremental(saved2, saved2_size, saved, saved_size, "out2.pdf", __LINE__);
    re = reopen_path(join_path(dir, "out2.pdf"), NULL, __LINE__);
    if (re) {
        CHECK_KEY(re, 1, "QuireTest", "(hello)");
        CHECK_KEY(re, 1, "QuireTest2", "2");
        quire_document_close(re);
    }
    free(saved2);

    /* A directory that does not exist: QUIRE_EIO, nothing created (the header: "path is
     * unchanged"). */
    CHECK_STATUS(set_key(doc, 1, "QuireTest3", "3"), QUIRE_OK);
    CHECK_STATUS(quire_document_save(doc, NULL, join_path(dir, "missing/out.pdf")), QUIRE_EIO);
    CHECK(!path_exists(join_path(dir, "missing")));
    CHECK_INT(count_dir_entries(dir), 2);
    /* A path that is a directory: the rename fails, QUIRE_EIO; the directory is still there
     * and empty, and no temporary file is left beside it. */
    CHECK_INT(mkdir(join_path(dir, "sub"), 0700), 0);
    CHECK_STATUS(quire_document_save(doc, NULL, join_path(dir, "sub")), QUIRE_EIO);
    CHECK_INT(count_dir_entries(join_path(dir, "sub")), 0);
    CHECK_INT(count_dir_entries(dir), 3);
    /* Replacing an existing file: out.pdf is now the newer revision, still one file. */
    CHECK_STATUS(quire_document_save(doc, NULL, join_path(dir, "out.pdf")), QUIRE_OK);
    CHECK_INT(count_dir_entries(dir), 3);
    report(file_size(join_path(dir, "out.pdf")) > (long)saved2_size, __FILE__, __LINE__,
           "out.pdf was not replaced by the newer revision");
    re = reopen_path(join_path(dir, "out.pdf"), NULL, __LINE__);
    if (re) {
        CHECK_KEY(re, 1, "QuireTest3", "3");
        quire_document_close(re);
    }

    /* Bad arguments: QUIRE_EINVAL, nothing written. */
    CHECK_STATUS(set_key(doc, 1, "QuireTest4", "4"), QUIRE_OK);
    CHECK_STATUS(quire_document_save(NULL, NULL, join_path(dir, "bad.pdf")), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_save(doc, NULL, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_save(doc, &options, NULL), QUIRE_EINVAL);
    /* Version 0: QUIRE_EINVAL; a version newer than the library's: QUIRE_EVERSION (the
     * header). */
    options.version = 0;
    CHECK_STATUS(quire_document_save(doc, &options, join_path(dir, "bad.pdf")), QUIRE_EINVAL);
    options.version = QUIRE_SAVE_OPTIONS_VERSION + 1;
    CHECK_STATUS(quire_document_save(doc, &options, join_path(dir, "bad.pdf")), QUIRE_EVERSION);
    options.version = 999;
    CHECK_STATUS(quire_document_save(doc, &options, join_path(dir, "bad.pdf")), QUIRE_EVERSION);
    options.version = QUIRE_SAVE_OPTIONS_VERSION;
    /* A mode that is not a quire_save_mode: past the two, 0 and 1 (the modes' numbers
     * before 0.5), -1, and constants of other families (their own ranges). */
    options.mode = (quire_save_mode)(QUIRE_SAVE_FULL + 1);
    CHECK_STATUS(quire_document_save(doc, &options, join_path(dir, "bad.pdf")), QUIRE_EINVAL);
    options.mode = (quire_save_mode)2;
    CHECK_STATUS(quire_document_save(doc, &options, join_path(dir, "bad.pdf")), QUIRE_EINVAL);
    options.mode = (quire_save_mode)0;
    CHECK_STATUS(quire_document_save(doc, &options, join_path(dir, "bad.pdf")), QUIRE_EINVAL);
    options.mode = (quire_save_mode)1;
    CHECK_STATUS(quire_document_save(doc, &options, join_path(dir, "bad.pdf")), QUIRE_EINVAL);
    options.mode = (quire_save_mode)-1;
    CHECK_STATUS(quire_document_save(doc, &options, join_path(dir, "bad.pdf")), QUIRE_EINVAL);
    options.mode = (quire_save_mode)QUIRE_STREAM_RAW;
    CHECK_STATUS(quire_document_save(doc, &options, join_path(dir, "bad.pdf")), QUIRE_EINVAL);
    options.mode = (quire_save_mode)QUIRE_CHECKPOINT_MANUAL;
    CHECK_STATUS(quire_document_save(doc, &options, join_path(dir, "bad.pdf")), QUIRE_EINVAL);
    CHECK(!path_exists(join_path(dir, "bad.pdf")));
    CHECK_INT(count_dir_entries(dir), 3);
    CHECK_INT(has_unsaved(doc), 1);
    quire_document_close(doc);
    free(saved);

    /* Saving over the file the document was opened from (the header allows it). */
    {
        const char *copy = join_path(dir, "copy.pdf");
        FILE *f = fopen(copy, "wb");
        CHECK(f != NULL);
        if (f) {
            CHECK(fwrite(original, 1, original_size, f) == original_size);
            fclose(f);
        }
        doc = reopen_path(copy, NULL, __LINE__);
        if (doc) {
            CHECK_STATUS(set_key(doc, 3, "QuireTest", "(page)"), QUIRE_OK);
            CHECK_STATUS(quire_document_save(doc, NULL, copy), QUIRE_OK);
            CHECK_INT(count_dir_entries(dir), 4);
            /* The open document still reads (from the saved bytes). */
            CHECK_KEY(doc, 3, "QuireTest", "(page)");
            CHECK_INT(int_of(quire_document_page_count, doc), 2);
            quire_document_close(doc);
            re = reopen_path(copy, NULL, __LINE__);
            if (re) {
                CHECK_KEY(re, 3, "QuireTest", "(page)");
                quire_document_close(re);
            }
        }
    }
    free(original);
    remove_temp_dir(dir);
    CHECK(!path_exists(dir));
}

/* ---- saving through a callback ------------------------------------------------------------------- */

/* QUIRE_SAVE_APPEND_IN_PLACE (issue 17): the update alone, appended to the document's own
 * file (same inode, every earlier byte kept); refused for another path, for a file changed
 * since it was read, and through a callback. */
static void test_save_append_in_place(void) {
    const char *dir, *path;
    quire_document *doc, *re;
    unsigned char *original, *saved = NULL, *changed;
    size_t original_size = 0, saved_size = 0, changed_size = 0;
    struct stat before, after;
    struct byte_sink sink = {0};
    FILE *f;
    quire_save_options options = QUIRE_SAVE_OPTIONS_INIT;
    dir = make_temp_dir();
    original = read_file(corpus(ANNOTS), &original_size);
    if (!dir || !original) {
        free(original);
        remove_temp_dir(dir);
        return;
    }
    path = join_path(dir, "in.pdf");
    f = fopen(path, "wb");
    CHECK(f != NULL && fwrite(original, 1, original_size, f) == original_size);
    if (f) fclose(f);
    doc = reopen_path(path, NULL, __LINE__);
    if (!doc) {
        free(original);
        remove_temp_dir(dir);
        return;
    }
    options.mode = QUIRE_SAVE_APPEND_IN_PLACE;
    /* Nothing to append: nothing written. */
    CHECK_STATUS(quire_document_save(doc, &options, path), QUIRE_OK);
    CHECK_INT((int)file_size(path), (int)original_size);
    CHECK_STATUS(set_key(doc, 1, "QuireInPlace", "(appended)"), QUIRE_OK);
    CHECK_INT(stat(path, &before), 0);
    /* Another path than the document's file; through a callback. */
    CHECK_STATUS(quire_document_save(doc, &options, join_path(dir, "other.pdf")), QUIRE_EINVAL);
    CHECK(!path_exists(join_path(dir, "other.pdf")));
    CHECK_STATUS(quire_document_save_to_callback(doc, &options, sink_write, &sink), QUIRE_EINVAL);
    CHECK_INT((int)sink.size, 0);
    CHECK_STATUS(quire_document_save(doc, &options, path), QUIRE_OK);
    CHECK_INT(has_unsaved(doc), 0);
    CHECK_INT(stat(path, &after), 0);
    CHECK(before.st_ino == after.st_ino);
    CHECK_INT(count_dir_entries(dir), 1);
    saved = read_file(path, &saved_size);
    if (saved) {
        report(saved_size > original_size && memcmp(saved, original, original_size) == 0, __FILE__,
               __LINE__, "the appended file does not begin with the original bytes");
        report(saved_size - original_size < 8192, __FILE__, __LINE__, "the update is %zu bytes",
               saved_size - original_size);
        CHECK(ends_with_eof(saved, saved_size));
    }
    re = reopen_path(path, NULL, __LINE__);
    if (re) {
        CHECK_KEY(re, 1, "QuireInPlace", "(appended)");
        CHECK_INT(int_of(quire_document_is_repaired, re), 0);
        quire_document_close(re);
    }
    /* Another program appends to the file: the next append in place is stale, and writes
     * nothing. */
    f = fopen(path, "ab");
    CHECK(f != NULL && fputs("% another program\n", f) >= 0);
    if (f) fclose(f);
    CHECK_STATUS(set_key(doc, 1, "QuireInPlace2", "2"), QUIRE_OK);
    CHECK_STATUS(quire_document_save(doc, &options, path), QUIRE_ESTALE);
    changed = read_file(path, &changed_size);
    CHECK_INT((int)changed_size, (int)saved_size + 18);
    CHECK_INT(has_unsaved(doc), 1);
    free(changed);
    free(sink.data);
    free(saved);
    free(original);
    quire_document_close(doc);
    remove_temp_dir(dir);
}

static void test_save_callback(void) {
    quire_document *doc, *re;
    unsigned char *original;
    size_t original_size = 0;
    struct byte_sink sink, sink2;
    int status;
    memset(&sink, 0, sizeof sink);
    memset(&sink2, 0, sizeof sink2);
    original = read_file(corpus(ANNOTS), &original_size);
    doc = open_corpus(ANNOTS, NULL);
    if (!original || !doc) {
        free(original);
        quire_document_close(doc);
        return;
    }
    CHECK_STATUS(set_key(doc, 1, "QuireTest", "(callback)"), QUIRE_OK);

    /* Incremental: the pieces are the whole file, the original bytes then the update (the
     * header). */
    CHECK_STATUS(quire_document_save_to_callback(doc, &incremental, writer, &sink), QUIRE_OK);
    CHECK(sink.calls >= 1);
    CHECK(!sink.bad_payload);
    CHECK_INT(sink.other_thread, 0); /* "called ... on the calling thread" (the header) */
    check_incremental(sink.data, sink.size, original, original_size, "callback", __LINE__);
    CHECK(ends_with_eof(sink.data, sink.size));
    CHECK_INT(has_unsaved(doc), 0);
    re = reopen_sink(&sink, NULL, __LINE__);
    if (re) {
        CHECK_KEY(re, 1, "QuireTest", "(callback)");
        CHECK_INT(int_of(quire_document_page_count, re), 2);
        quire_document_close(re);
    }

    /* A callback that returns non-zero aborts the save: QUIRE_EUSER, and the document keeps
     * its unsaved changes (the header); at the first call and at the last one. */
    CHECK_STATUS(set_key(doc, 1, "QuireTest2", "(second)"), QUIRE_OK);
    sink2.fail_at_call = 1;
    CHECK_STATUS(quire_document_save_to_callback(doc, &incremental, writer, &sink2), QUIRE_EUSER);
    CHECK_INT(sink2.calls, 1);
    CHECK_INT(has_unsaved(doc), 1);
    sink_free(&sink2);
    if (sink.calls > 1) {
        sink2.fail_at_call = sink.calls;
        CHECK_STATUS(quire_document_save_to_callback(doc, &incremental, writer, &sink2),
                     QUIRE_EUSER);
        CHECK_INT(has_unsaved(doc), 1);
        sink_free(&sink2);
    }
    /* Bad arguments: QUIRE_EINVAL, and the callback is not called. */
    CHECK_STATUS(quire_document_save_to_callback(doc, &incremental, NULL, &sink2), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_save_to_callback(NULL, &incremental, writer, &sink2), QUIRE_EINVAL);
    {
        quire_save_options options = QUIRE_SAVE_OPTIONS_INIT;
        options.version = 0;
        CHECK_STATUS(quire_document_save_to_callback(doc, &options, sink_write, &sink2),
                     QUIRE_EINVAL);
        options.version = QUIRE_SAVE_OPTIONS_VERSION + 1;
        CHECK_STATUS(quire_document_save_to_callback(doc, &options, sink_write, &sink2),
                     QUIRE_EVERSION);
        options.version = QUIRE_SAVE_OPTIONS_VERSION;
        options.mode = (quire_save_mode)7;
        CHECK_STATUS(quire_document_save_to_callback(doc, &options, sink_write, &sink2),
                     QUIRE_EINVAL);
        options.mode = (quire_save_mode)QUIRE_BOX_CROP;
        CHECK_STATUS(quire_document_save_to_callback(doc, &options, sink_write, &sink2),
                     QUIRE_EINVAL);
    }
    CHECK_INT(sink2.calls, 0);
    CHECK_INT(has_unsaved(doc), 1);

    /* After the aborted saves a save succeeds, with both edits; it continues from the
     * previous save's bytes. */
    status = quire_document_save_to_callback(doc, &incremental, writer, &sink2);
    check_status(status, QUIRE_OK, "the save after the aborted ones", __FILE__, __LINE__);
    if (status == QUIRE_OK)
        check_incremental(sink2.data, sink2.size, sink.data, sink.size, "second callback save",
                          __LINE__);
    re = status == QUIRE_OK ? reopen_sink(&sink2, NULL, __LINE__) : NULL;
    if (re) {
        CHECK_KEY(re, 1, "QuireTest", "(callback)");
        CHECK_KEY(re, 1, "QuireTest2", "(second)");
        quire_document_close(re);
    }
    sink_free(&sink2);
    sink_free(&sink);
    free(original);
    quire_document_close(doc);
}

/* ---- full saves, object streams, linearization -------------------------------------------------- */

static void test_save_full(void) {
    quire_document *doc, *re;
    struct byte_sink sink;
    int32_t root;
    int32_t object_streams;
    /* hybrid-xref.pdf: 30 pages, 11 outline items (manifest, all peers), objects in an object
     * stream (manifest pikepdf objstm_objects 13). */
    for (object_streams = 0; object_streams <= 1; object_streams++) {
        doc = open_corpus(HYBRID, NULL);
        if (!doc) return;
        memset(&sink, 0, sizeof sink);
        root = trailer_ref(doc, "Root");
        CHECK_STATUS(set_key(doc, root, "QuireTest", "(full)"), QUIRE_OK);
        CHECK_STATUS(save_to_sink(doc, QUIRE_SAVE_FULL, object_streams, &sink), QUIRE_OK);
        CHECK_INT(has_unsaved(doc), 0);
        CHECK(sink.size > 8 && memcmp(sink.data, "%PDF-", 5) == 0);
        CHECK(ends_with_eof(sink.data, sink.size));
        re = reopen_sink(&sink, NULL, __LINE__);
        if (re) {
            int32_t v = -1;
            int32_t new_root = trailer_ref(re, "Root");
            /* A full save renumbers (the header), so the catalog is found through /Root. */
            CHECK_KEY(re, new_root, "QuireTest", "(full)");
            CHECK_INT(int_of(quire_document_page_count, re), 30);
            CHECK_INT(int_of(quire_document_outline_count, re), 11);
            CHECK_INT(int_of(quire_document_is_repaired, re), 0);
            /* object_streams 1: object streams with a cross-reference stream; 0: a classic
             * table (the header). */
            CHECK_INT(xref_form_of(re), object_streams ? QUIRE_XREF_STREAM : QUIRE_XREF_TABLE);
            /* The outline still leads to the same pages (item 0 -> page 5, item 10 -> page
             * 15: pypdfium2 on the original). */
            CHECK_STATUS(quire_document_outline_item(NULL, NULL, NULL, NULL, NULL, &v, re, 0),
                         QUIRE_OK);
            CHECK_INT(v, 5);
            CHECK_STATUS(quire_document_outline_item(NULL, NULL, NULL, NULL, NULL, &v, re, 10),
                         QUIRE_OK);
            CHECK_INT(v, 15);
            quire_document_close(re);
        }
        sink_free(&sink);
        quire_document_close(doc);
    }

    /* lin1.pdf is linearized (manifest pikepdf.is_linearized, qpdf_check.linearized). "Saving
     * incrementally keeps the flag's object, a full save drops linearization" (the header);
     * either way the result is no longer linearized: an update appended to a linearized file
     * makes its /L wrong (ISO 32000-2 Annex F), and pikepdf's is_linearized and qpdf --check
     * ("File is not linearized") say so of Quire's incremental and full saves of this file
     * (checked on files written with quire_document_save). */
    doc = open_corpus(QPDF("lin1.pdf"), NULL);
    if (doc) {
        memset(&sink, 0, sizeof sink);
        root = trailer_ref(doc, "Root");
        CHECK_STATUS(set_key(doc, root, "QuireTest", "1"), QUIRE_OK);
        CHECK_STATUS(save_to_sink(doc, QUIRE_SAVE_INCREMENTAL, 0, &sink), QUIRE_OK);
        re = reopen_sink(&sink, NULL, __LINE__);
        if (re) {
            CHECK_INT(int_of(quire_document_is_linearized, re), 0);
            CHECK_INT(int_of(quire_document_page_count, re), 30);
            quire_document_close(re);
        }
        /* The linearization dictionary is still the first object of the file (kept). */
        CHECK(contains(sink.data, sink.size < 1024 ? sink.size : 1024, "/Linearized"));
        sink_free(&sink);
        CHECK_STATUS(set_key(doc, root, "QuireTest", "2"), QUIRE_OK);
        CHECK_STATUS(save_to_sink(doc, QUIRE_SAVE_FULL, 0, &sink), QUIRE_OK);
        re = reopen_sink(&sink, NULL, __LINE__);
        if (re) {
            CHECK_INT(int_of(quire_document_is_linearized, re), 0);
            CHECK_INT(int_of(quire_document_page_count, re), 30);
            CHECK_KEY(re, trailer_ref(re, "Root"), "QuireTest", "2");
            quire_document_close(re);
        }
        sink_free(&sink);
        quire_document_close(doc);
    }
}

/* ---- encrypted and repaired files ------------------------------------------------------------------ */

struct encrypted_save_case {
    const char *path;
    const char *password;
    quire_save_mode mode;
    quire_encryption_method method;
    int32_t revision;
};

static void test_save_encrypted(void) {
    /* Methods and revisions: pikepdf (see test_structure.c). */
    static const struct encrypted_save_case cases[] = {
        {QPDF("enc-R2,V1,U=view,O=master.pdf"), "view", QUIRE_SAVE_INCREMENTAL,
         QUIRE_ENCRYPTION_RC4_40, 2},
        {QPDF("enc-R2,V1,U=view,O=master.pdf"), "view", QUIRE_SAVE_FULL, QUIRE_ENCRYPTION_RC4_40,
         2},
        {QPDF("V4-aes.pdf"), NULL, QUIRE_SAVE_INCREMENTAL, QUIRE_ENCRYPTION_AES_128, 4},
        {QPDF("enc-XI-R6,V5,U=view,O=master.pdf"), "view", QUIRE_SAVE_INCREMENTAL,
         QUIRE_ENCRYPTION_AES_256, 6},
        {QPDF("enc-XI-R6,V5,U=view,O=master.pdf"), "view", QUIRE_SAVE_FULL,
         QUIRE_ENCRYPTION_AES_256, 6},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct encrypted_save_case *c = &cases[i];
        quire_document *doc = open_corpus(c->path, c->password), *re = NULL;
        struct byte_sink sink;
        int32_t info;
        memset(&sink, 0, sizeof sink);
        if (!doc) continue;
        /* Every one of these files has /Info (pikepdf: trailer keys include /Info). */
        info = trailer_ref(doc, "Info");
        if (info > 0) CHECK_STATUS(set_key(doc, info, "Title", "(QuireSecretTitle)"), QUIRE_OK);
        CHECK_STATUS(save_to_sink(doc, c->mode, 0, &sink), QUIRE_OK);
        /* It stays encrypted with its own key and password (the header): the new string is
         * not in the file in clear, a password is needed, and it decrypts to the text. */
        report(!contains(sink.data, sink.size, "QuireSecretTitle"), __FILE__, __LINE__,
               "%s (mode 0x%x): the new title is in the saved file in clear", c->path,
               (unsigned)c->mode);
        if (c->password) {
            quire_document *none = NULL;
            int status = quire_document_open_memory(&none, sink.data, sink.size, NULL);
            report(status == QUIRE_EPASSWORD, __FILE__, __LINE__,
                   "%s (mode 0x%x): reopened without a password: %d", c->path, (unsigned)c->mode,
                   status);
            quire_document_close(status == QUIRE_OK ? none : NULL);
        }
        if (sink.size) re = reopen_sink(&sink, c->password, __LINE__);
        if (re) {
            quire_encryption_method method = (quire_encryption_method)-1;
            int32_t revision = -1;
            size_t len = 0;
            char buf[64] = "";
            CHECK_INT(int_of(quire_document_is_encrypted, re), 1);
            CHECK_STATUS(quire_document_encryption(&method, &revision, NULL, NULL, re), QUIRE_OK);
            report(method == c->method && revision == c->revision, __FILE__, __LINE__,
                   "%s (mode 0x%x): saved with method 0x%x revision %d, expected 0x%x %d", c->path,
                   (unsigned)c->mode, (unsigned)method, (int)revision, (unsigned)c->method,
                   (int)c->revision);
            CHECK_STATUS(quire_document_metadata(buf, sizeof buf, &len, re, "Title"), QUIRE_OK);
            CHECK_STR(buf, "QuireSecretTitle");
            CHECK_INT(int_of(quire_document_page_count, re), 30);
            quire_document_close(re);
        }
        sink_free(&sink);
        quire_document_close(doc);
    }
}

static void test_save_repaired(void) {
    quire_document *doc, *re;
    struct byte_sink sink;
    /* bad3.pdf: the cross-reference was rebuilt (see test_api.c). An incremental save would
     * append to an xref that does not exist: QUIRE_EUNSUPPORTED (the header); a full save
     * writes a new, clean file. */
    doc = open_corpus(QPDF("bad3.pdf"), NULL);
    if (!doc) return;
    memset(&sink, 0, sizeof sink);
    CHECK_STATUS(set_key(doc, 1, "QuireTest", "(repaired)"), QUIRE_OK);
    CHECK_STATUS(quire_document_save_to_callback(doc, &incremental, writer, &sink),
                 QUIRE_EUNSUPPORTED);
    sink_free(&sink);
    {
        const char *dir = make_temp_dir();
        if (dir) {
            CHECK_STATUS(quire_document_save(doc, NULL, join_path(dir, "inc.pdf")),
                         QUIRE_EUNSUPPORTED);
            CHECK_INT(count_dir_entries(dir), 0);
            remove_temp_dir(dir);
        }
    }
    CHECK_STATUS(save_to_sink(doc, QUIRE_SAVE_FULL, 0, &sink), QUIRE_OK);
    re = reopen_sink(&sink, NULL, __LINE__);
    if (re) {
        CHECK_INT(int_of(quire_document_is_repaired, re), 0);
        CHECK_INT(xref_form_of(re), QUIRE_XREF_TABLE);
        CHECK_INT(int_of(quire_document_page_count, re), 1);
        CHECK_KEY(re, trailer_ref(re, "Root"), "QuireTest", "(repaired)");
        quire_document_close(re);
    }
    sink_free(&sink);
    quire_document_close(doc);
}

/* ---- outline actions written with the value API ------------------------------------------------- */

static void test_outline_actions(void) {
    /* bookmarks.pdf's items are objects 9 to 14 (the file; see test_structure.c). Their
     * destinations are replaced by actions of each kind the header names, saved, and read
     * back: the action kinds and targets are as the header defines them for what was
     * written (ISO 32000-2 §12.6.4: /F of GoToR and Launch, /N of Named, /S otherwise). */
    quire_document *doc, *re;
    struct byte_sink sink;
    doc = open_corpus(BOOKMARKS, NULL);
    if (!doc) return;
    memset(&sink, 0, sizeof sink);
    CHECK_STATUS(set_key(doc, 9, "Dest", NULL), QUIRE_OK);
    CHECK_STATUS(set_key(doc, 9, "A", "<< /S /Named /N /NextPage >>"), QUIRE_OK);
    CHECK_STATUS(set_key(doc, 11, "Dest", NULL), QUIRE_OK);
    CHECK_STATUS(set_key(doc, 11, "A", "<< /S /GoToR /F (other.pdf) /D [2 /Fit] >>"), QUIRE_OK);
    CHECK_STATUS(set_key(doc, 12, "Dest", NULL), QUIRE_OK);
    CHECK_STATUS(set_key(doc, 13, "Dest", NULL), QUIRE_OK);
    CHECK_STATUS(set_key(doc, 13, "A", "<< /S /Launch /F (app.exe) >>"), QUIRE_OK);
    CHECK_STATUS(set_key(doc, 14, "Dest", NULL), QUIRE_OK);
    CHECK_STATUS(set_key(doc, 14, "A", "<< /S /JavaScript /JS (app.alert\\(1\\)) >>"), QUIRE_OK);
    CHECK_STATUS(quire_document_save_to_callback(doc, &incremental, writer, &sink), QUIRE_OK);
    re = reopen_sink(&sink, NULL, __LINE__);
    if (re) {
        static const struct {
            quire_action_type action;
            int32_t page;
            const char *target;
        } expected[6] = {
            {QUIRE_ACTION_NAMED, -1, "NextPage"},
            {QUIRE_ACTION_URI, -1, "https://theplay.test"},
            /* GoToR: /D [2 /Fit] names page 2 (0-based) of the other file (§12.6.4.3). */
            {QUIRE_ACTION_GOTOR, 2, "other.pdf"},
            {QUIRE_ACTION_NONE, -1, NULL},
            {QUIRE_ACTION_LAUNCH, -1, "app.exe"},
            {QUIRE_ACTION_OTHER, -1, "JavaScript"},
        };
        int32_t count = -1, i;
        CHECK_STATUS(quire_document_outline_count(&count, re), QUIRE_OK);
        CHECK_INT(count, 6);
        for (i = 0; i < 6 && i < count; i++) {
            quire_action_type action = (quire_action_type)0x7777;
            int32_t page = -7;
            CHECK_STATUS(quire_document_outline_item(NULL, NULL, NULL, NULL, &action, &page, re, i),
                         QUIRE_OK);
            report(action == expected[i].action, __FILE__, __LINE__,
                   "item %d: action 0x%x, expected 0x%x", (int)i, (unsigned)action,
                   (unsigned)expected[i].action);
            if (expected[i].action == QUIRE_ACTION_GOTOR)
                report(page == expected[i].page, __FILE__, __LINE__,
                       "item %d: page %d, expected %d", (int)i, (int)page, (int)expected[i].page);
            if (expected[i].target) {
                CHECK_TEXT(T_OUTLINE_TARGET, re, NULL, i, expected[i].target);
            } else {
                size_t len = 99;
                CHECK_STATUS(quire_document_outline_target(NULL, 0, &len, re, i), QUIRE_ENOTFOUND);
            }
        }
        /* The structure is unchanged: item 3 still has 2 children and is closed. */
        {
            int32_t children = -1, is_open = -1;
            CHECK_STATUS(
                quire_document_outline_item(NULL, NULL, &children, &is_open, NULL, NULL, re, 3),
                QUIRE_OK);
            CHECK_INT(children, 2);
            CHECK_INT(is_open, 0);
        }
        quire_document_close(re);
    }
    sink_free(&sink);
    quire_document_close(doc);
}

/* The save callbacks are "called ... on the calling thread" (the header): this one. */
static int editing_setup(void) {
    sink_expect_thread();
    return 0;
}

static const struct test_case editing_tests[] = {
    {"edit", test_edit},
    {"edit_errors", test_edit_errors},
    {"save_path", test_save_path},
    {"save_append_in_place", test_save_append_in_place},
    {"save_callback", test_save_callback},
    {"save_full", test_save_full},
    {"save_encrypted", test_save_encrypted},
    {"save_repaired", test_save_repaired},
    {"outline_actions", test_outline_actions},
    {NULL, NULL}};

const struct test_suite editing_suite = {"editing", editing_setup, NULL, editing_tests};
