/*
 * test_api.c: the C API of libquire, function by function, on real PDF files from the
 * shared corpus.
 *
 * Usage: test_api [-v] [-l] [-s SUITE[::TEST]]... CORPUS_DIR [SYNC_FIXTURES_DIR]
 *   (the Makefile passes $(ROOT)/../shared/corpus, and out/sync, where sync_fixtures.py has
 *   written the keys and tokens of the sync tests: without it they fail, saying so; -l lists
 *   the tests, -s picks suites or tests: test_support.h)
 *
 * Every expected value below comes from somewhere other than Quire, and says where:
 *  - "manifest" is a row of CORPUS_DIR/manifest.jsonl (page counts, annotations per page,
 *    PDF versions, encryption, repair) where the peers (pdfium, pikepdf, mupdf) agree;
 *  - "pypdfium2" and "pikepdf" were run on the file (pypdfium2 5.15, pikepdf 10.17):
 *    PdfPage.get_mediabox/get_cropbox/get_bleedbox/get_trimbox/get_artbox/get_rotation,
 *    PdfDocument.get_metadata_dict, pikepdf's Page.mediabox/.cropbox/.../.Rotate and
 *    docinfo;
 *  - "the file" means the bytes of the file, quoted in the comment (for orders and raw
 *    values that the peers do not report, such as the order of /Info entries);
 *  - "the header" is include/quire.h: the contract (status codes, the length-query pattern,
 *    defaults).
 *
 * This file holds main() and the suite of the 0.1 interface ("basics"); each other file
 * test_*.c holds one suite (test_support.h lists them), all linked into the same program.
 * The framework (CHECK*, which count checks, and the runner, which names each test) is in
 * test_support.c; the last line is `N passed, M failed`, and the exit status is non-zero
 * if any check failed.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_support.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum string_kind { S_WARNING, S_METADATA_KEY, S_METADATA };

static int get_string_raw(enum string_kind kind, char *buf, size_t size, size_t *len,
                          quire_document *doc, int32_t index, const char *key) {
    switch (kind) {
    case S_WARNING: return quire_document_warning(buf, size, len, doc, index);
    case S_METADATA_KEY: return quire_document_metadata_key(buf, size, len, doc, index);
    default: return quire_document_metadata(buf, size, len, doc, key);
    }
}

/* Reads one string through the length-query pattern; returns a malloc'd, NUL-terminated
 * copy (the caller frees it) and its length in *len_out, or NULL after a failed check. */
static char *fetch(enum string_kind kind, quire_document *doc, int32_t index, const char *key,
                   size_t *len_out) {
    size_t len = (size_t)-1, len2 = (size_t)-1;
    char *buf;
    int status;
    quire_clear_error();
    status = get_string_raw(kind, NULL, 0, &len, doc, index, key);
    check_query_status(status, __FILE__, __LINE__);
    if (status != QUIRE_OK) return NULL;
    report(len != (size_t)-1 && len < 100000000u, __FILE__, __LINE__,
           "the length query set *out_len to %zu", len);
    if (len == (size_t)-1 || len >= 100000000u) return NULL;
    buf = malloc(len + 1);
    if (!buf) return NULL;
    status = get_string_raw(kind, buf, len + 1, &len2, doc, index, key);
    report(status == QUIRE_OK, __FILE__, __LINE__, "reading %zu + 1 bytes returned %d: %s", len,
           status, quire_last_error_message());
    report(len2 == len, __FILE__, __LINE__, "*out_len is %zu, the query said %zu", len2, len);
    if (status != QUIRE_OK || len2 != len) {
        free(buf);
        return NULL;
    }
    report(buf[len] == '\0', __FILE__, __LINE__, "no NUL after the string");
    if (len_out) *len_out = len;
    return buf;
}

#define CHECK_FETCH(kind, doc, index, key, expected)                                              \
    do {                                                                                          \
        size_t l_ = 0;                                                                            \
        char *s_ = fetch((kind), (doc), (index), (key), &l_);                                     \
        report(s_ != NULL && l_ == strlen(expected) && memcmp(s_, (expected), l_) == 0, __FILE__, \
               __LINE__, "%s is \"%s\", expected \"%s\"", #kind "(" #index ", " #key ")",         \
               s_ ? s_ : "(failed)", (expected));                                                 \
        free(s_);                                                                                 \
    } while (0)

static const quire_box all_boxes[] = {QUIRE_BOX_MEDIA, QUIRE_BOX_CROP, QUIRE_BOX_BLEED,
                                      QUIRE_BOX_TRIM, QUIRE_BOX_ART};

/* ---- versions, status strings, errors ------------------------------------------------- */

static void test_version(void) {
    const char *v = quire_version();
    int major = -1, minor = -1, patch = -1;
    CHECK(v != NULL);
    CHECK_STR(v, QUIRE_VERSION_STRING);
    CHECK(v == quire_version()); /* a static string */
    CHECK_INT(quire_version_number(), QUIRE_VERSION_NUMBER);
    CHECK(v != NULL && sscanf(v, "%d.%d.%d", &major, &minor, &patch) == 3);
    CHECK_INT(major, QUIRE_VERSION_MAJOR);
    CHECK_INT(minor, QUIRE_VERSION_MINOR);
    CHECK_INT(patch, QUIRE_VERSION_PATCH);
    CHECK_INT(quire_version_number(), major * 1000000 + minor * 1000 + patch);
    CHECK_INT(quire_last_error_code(), QUIRE_OK); /* nothing failed yet on this thread */
    CHECK_STR(quire_last_error_message(), "");
}

static void test_status_strings(void) {
    static const int codes[] = {
        QUIRE_OK,      QUIRE_EINVAL,    QUIRE_ENOMEM,       QUIRE_EIO,       QUIRE_ENOTFOUND,
        QUIRE_EFORMAT, QUIRE_EPASSWORD, QUIRE_EUNSUPPORTED, QUIRE_ELIMIT,    QUIRE_ERANGE,
        QUIRE_EBUFS,   QUIRE_EUSER,     QUIRE_ESTATE,       QUIRE_EINTERNAL, QUIRE_EDISABLED,
        QUIRE_EBUSY,   QUIRE_ESTALE,    QUIRE_EEXIST,       QUIRE_EVERSION,  QUIRE_EAUTH,
        QUIRE_ENETWORK};
    static const int unknown[] = {1, 2, -21, -100, 42, INT_MIN, INT_MAX};
    const size_t n = sizeof codes / sizeof codes[0];
    size_t i, j;
    for (i = 0; i < n; i++) {
        const char *s = quire_status_string(codes[i]);
        report(s != NULL && s[0] != '\0' && strcmp(s, "unknown status") != 0, __FILE__, __LINE__,
               "quire_status_string(%d) is \"%s\"", codes[i], s ? s : "(null)");
        CHECK(s == quire_status_string(codes[i])); /* static */
        for (j = 0; j < i; j++) {
            const char *t = quire_status_string(codes[j]);
            report(s && t && strcmp(s, t) != 0, __FILE__, __LINE__,
                   "codes %d and %d have the same string \"%s\"", codes[i], codes[j],
                   s ? s : "(null)");
        }
    }
    /* The header's own example. */
    CHECK_STR(quire_status_string(QUIRE_EINVAL), "invalid argument");
    for (i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        CHECK_STR(quire_status_string(unknown[i]), "unknown status");
    CHECK_INT(quire_last_error_code(), QUIRE_OK); /* status strings record no error */
}

static void test_last_error(void) {
    quire_document *doc = NULL;
    int32_t count = -1;
    const char *msg;
    char saved[1024];
    quire_clear_error();
    CHECK_INT(quire_last_error_code(), QUIRE_OK);
    CHECK_STR(quire_last_error_message(), "");

    CHECK_STATUS(quire_document_open(&doc, corpus("no/such/file.pdf"), NULL), QUIRE_ENOTFOUND);
    CHECK(doc == NULL);
    msg = quire_last_error_message();
    snprintf(saved, sizeof saved, "%s", msg ? msg : "");
    CHECK(saved[0] != '\0');

    /* Successful calls do not clear it (the header). */
    doc = open_corpus("pdfium/testing/resources/annots.pdf", NULL);
    CHECK_STATUS(quire_document_page_count(&count, doc), QUIRE_OK);
    CHECK_INT(count, 2);
    CHECK_INT(quire_last_error_code(), QUIRE_ENOTFOUND);
    CHECK_STR(quire_last_error_message(), saved);
    CHECK(quire_version() != NULL);
    CHECK_INT(quire_last_error_code(), QUIRE_ENOTFOUND);

    /* A later failure replaces it. */
    CHECK_STATUS(quire_document_page_count(NULL, doc), QUIRE_EINVAL);
    CHECK_INT(quire_last_error_code(), QUIRE_EINVAL);

    quire_clear_error();
    CHECK_INT(quire_last_error_code(), QUIRE_OK);
    CHECK_STR(quire_last_error_message(), "");
    quire_clear_error(); /* twice is fine */
    CHECK_INT(quire_last_error_code(), QUIRE_OK);
    quire_document_close(doc);
    quire_document_close(NULL); /* a no-op */
    CHECK_INT(quire_last_error_code(), QUIRE_OK);
}

/* ---- the last error is per thread -------------------------------------------------------- */

struct thread_result {
    int initial_code;
    char initial_message[256];
    int status;
    int code_after;
    char message_after[1024];
    int cleared_code;
};

static void *error_thread(void *arg) {
    struct thread_result *r = arg;
    quire_document *doc = NULL;
    const char *m;
    r->initial_code = quire_last_error_code();
    m = quire_last_error_message();
    snprintf(r->initial_message, sizeof r->initial_message, "%s", m ? m : "(null)");
    r->status = quire_document_open(&doc, corpus("no/such/thread-file.pdf"), NULL);
    r->code_after = quire_last_error_code();
    m = quire_last_error_message();
    snprintf(r->message_after, sizeof r->message_after, "%s", m ? m : "(null)");
    quire_clear_error();
    r->cleared_code = quire_last_error_code();
    return NULL;
}

static void test_last_error_per_thread(void) {
    pthread_t t;
    struct thread_result r;
    char saved[1024];
    const char *m;
    memset(&r, 0, sizeof r);

    CHECK_STATUS(quire_document_page_count(NULL, NULL), QUIRE_EINVAL);
    m = quire_last_error_message();
    snprintf(saved, sizeof saved, "%s", m ? m : "");

    CHECK_INT(pthread_create(&t, NULL, error_thread, &r), 0);
    CHECK_INT(pthread_join(t, NULL), 0);

    /* The new thread started clean, got its own error, and cleared only its own. */
    CHECK_INT(r.initial_code, QUIRE_OK);
    CHECK_STR(r.initial_message, "");
    CHECK_INT(r.status, QUIRE_ENOTFOUND);
    CHECK_INT(r.code_after, QUIRE_ENOTFOUND);
    CHECK(r.message_after[0] != '\0' && strcmp(r.message_after, saved) != 0);
    CHECK_INT(r.cleared_code, QUIRE_OK);

    /* This thread's error is unchanged. */
    CHECK_INT(quire_last_error_code(), QUIRE_EINVAL);
    CHECK_STR(quire_last_error_message(), saved);
    quire_clear_error();
}

/* Different documents on different threads in parallel (the header allows it). */
struct parallel_job {
    const char *path;
    int32_t expected_pages;
    int failures;
};

static void *parallel_thread(void *arg) {
    struct parallel_job *job = arg;
    int i;
    for (i = 0; i < 10; i++) {
        quire_document *doc = NULL;
        int32_t pages = -1, p;
        if (quire_document_open(&doc, job->path, NULL) != QUIRE_OK) {
            job->failures++;
            continue;
        }
        if (quire_document_page_count(&pages, doc) != QUIRE_OK || pages != job->expected_pages)
            job->failures++;
        for (p = 0; p < pages; p++) {
            quire_rect r;
            int32_t rot, n;
            if (quire_page_box(&r, doc, p, QUIRE_BOX_CROP) != QUIRE_OK ||
                quire_page_rotation(&rot, doc, p) != QUIRE_OK ||
                quire_page_annotation_count(&n, doc, p) != QUIRE_OK)
                job->failures++;
        }
        if (quire_document_page_count(NULL, doc) != QUIRE_EINVAL ||
            quire_last_error_code() != QUIRE_EINVAL)
            job->failures++;
        quire_document_close(doc);
    }
    return NULL;
}

static void test_parallel_documents(void) {
    pthread_t t[2];
    struct parallel_job jobs[2];
    int i;
    /* Page counts: manifest (9 and 2, all peers). */
    jobs[0].path = corpus("qpdf/qpdf/qtest/qpdf/manual-appearances.pdf");
    jobs[0].expected_pages = 9;
    jobs[1].path = corpus("pdfium/testing/resources/annots.pdf");
    jobs[1].expected_pages = 2;
    for (i = 0; i < 2; i++) {
        jobs[i].failures = 0;
        CHECK_INT(pthread_create(&t[i], NULL, parallel_thread, &jobs[i]), 0);
    }
    for (i = 0; i < 2; i++) {
        CHECK_INT(pthread_join(t[i], NULL), 0);
        CHECK_INT(jobs[i].failures, 0);
    }
}

/* ---- opening: errors -------------------------------------------------------------------- */

static char *write_temp(const unsigned char *data, size_t size) {
    static char names[4][64];
    static int next;
    char *name = names[next++ % 4];
    int fd;
    snprintf(name, sizeof names[0], "/tmp/quire-test-api-XXXXXX");
    fd = mkstemp(name);
    if (fd < 0) return NULL;
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return NULL;
    }
    close(fd);
    return name;
}

static void test_open_errors(void) {
    static const unsigned char garbage[] = "\x89PNG\r\n\x1a\n this is not a PDF at all \x00\xff";
    static const char header_only[] = "%PDF-1.7\n%%EOF\n";
    const char *annots = corpus("pdfium/testing/resources/annots.pdf");
    quire_document *doc = NULL;
    quire_document *sentinel = (quire_document *)&doc; /* any non-NULL value to watch */
    quire_open_options options = QUIRE_OPEN_OPTIONS_INIT;
    char *tmp;
    unsigned char *bytes;
    size_t size = 0;

    /* NULL arguments: QUIRE_EINVAL (the header), *out untouched. */
    CHECK_STATUS(quire_document_open(NULL, annots, NULL), QUIRE_EINVAL);
    doc = sentinel;
    CHECK_STATUS(quire_document_open(&doc, NULL, NULL), QUIRE_EINVAL);
    CHECK(doc == sentinel);
    CHECK_STATUS(quire_document_open_memory(NULL, "%PDF", 4, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_open_memory(&doc, NULL, 10, NULL), QUIRE_EINVAL);
    CHECK(doc == sentinel);
    /* NULL data with size 0 is QUIRE_EFORMAT (the header). */
    CHECK_STATUS(quire_document_open_memory(&doc, NULL, 0, NULL), QUIRE_EFORMAT);
    CHECK(doc == sentinel);

    /* A missing file, a directory, a file that is not a PDF. */
    CHECK_STATUS(quire_document_open(&doc, corpus("no/such/dir/missing.pdf"), NULL),
                 QUIRE_ENOTFOUND);
    CHECK(doc == sentinel);
    CHECK_STATUS(quire_document_open(&doc, "", NULL), QUIRE_ENOTFOUND);
    /* Reading a directory fails in read(2) with EISDIR: "the operating system failed a
     * read" (QUIRE_EIO). */
    CHECK_STATUS(quire_document_open(&doc, g_corpus, NULL), QUIRE_EIO);
    CHECK(doc == sentinel);
    CHECK_STATUS(quire_document_open(&doc, corpus("manifest.jsonl"), NULL), QUIRE_EFORMAT);
    CHECK(doc == sentinel);

    /* Garbage bytes, in memory and in a file; an empty file; a header and nothing else. */
    CHECK_STATUS(quire_document_open_memory(&doc, garbage, sizeof garbage - 1, NULL),
                 QUIRE_EFORMAT);
    CHECK(doc == sentinel);
    tmp = write_temp(garbage, sizeof garbage - 1);
    CHECK(tmp != NULL);
    if (tmp) {
        CHECK_STATUS(quire_document_open(&doc, tmp, NULL), QUIRE_EFORMAT);
        unlink(tmp);
    }
    tmp = write_temp(NULL, 0);
    CHECK(tmp != NULL);
    if (tmp) {
        CHECK_STATUS(quire_document_open(&doc, tmp, NULL), QUIRE_EFORMAT);
        unlink(tmp);
    }
    CHECK_STATUS(quire_document_open_memory(&doc, header_only, sizeof header_only - 1, NULL),
                 QUIRE_EFORMAT);
    CHECK_STATUS(quire_document_open_memory(&doc, garbage, 0, NULL), QUIRE_EFORMAT);
    CHECK(doc == sentinel);

    /* Options with a version the library does not know: version 0 is QUIRE_EINVAL; a
     * version newer than the library's is QUIRE_EVERSION (the header). */
    bytes = read_file(annots, &size);
    CHECK(bytes != NULL);
    options.version = 0;
    CHECK_STATUS(quire_document_open(&doc, annots, &options), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_open_memory(&doc, bytes, size, &options), QUIRE_EINVAL);
    options.version = QUIRE_OPEN_OPTIONS_VERSION + 1;
    CHECK_STATUS(quire_document_open(&doc, annots, &options), QUIRE_EVERSION);
    CHECK_STATUS(quire_document_open_memory(&doc, bytes, size, &options), QUIRE_EVERSION);
    options.version = 999;
    CHECK_STATUS(quire_document_open(&doc, annots, &options), QUIRE_EVERSION);
    CHECK_STATUS(quire_document_open_memory(&doc, bytes, size, &options), QUIRE_EVERSION);
    options.version = UINT32_MAX;
    CHECK_STATUS(quire_document_open(&doc, annots, &options), QUIRE_EVERSION);
    CHECK(doc == sentinel);

    /* The current version, with and without explicit defaults, opens. */
    options.version = QUIRE_OPEN_OPTIONS_VERSION;
    doc = NULL;
    CHECK_STATUS(quire_document_open(&doc, annots, &options), QUIRE_OK);
    CHECK(doc != NULL);
    quire_document_close(doc);
    doc = NULL;
    CHECK_STATUS(quire_document_open_memory(&doc, bytes, size, &options), QUIRE_OK);
    CHECK(doc != NULL);
    quire_document_close(doc);
    free(bytes);
}

/* ---- annots.pdf: pages, annotations, every box, rotation, from a path and from memory ---- */

static void check_annots_doc(quire_document *doc) {
    int32_t v = -1, major = -1, minor = -1, p;
    size_t len = 12345;
    char buf[16];
    quire_rect r;
    size_t b;

    /* manifest: page_count 2 and annots_per_page {"0": 9, "1": 3} (pdfium, pikepdf, mupdf,
     * 12 in total); pdf_version "1.7" (all peers); is_encrypted false; mupdf is_repaired
     * false, pikepdf xref_reconstructed false, 0 warnings (pikepdf, mupdf). */
    CHECK_STATUS(quire_document_page_count(&v, doc), QUIRE_OK);
    CHECK_INT(v, 2);
    CHECK_STATUS(quire_page_annotation_count(&v, doc, 0), QUIRE_OK);
    CHECK_INT(v, 9);
    CHECK_STATUS(quire_page_annotation_count(&v, doc, 1), QUIRE_OK);
    CHECK_INT(v, 3);
    CHECK_STATUS(quire_document_pdf_version(&major, &minor, doc), QUIRE_OK);
    CHECK_INT(major, 1);
    CHECK_INT(minor, 7);
    CHECK_STATUS(quire_document_is_encrypted(&v, doc), QUIRE_OK);
    CHECK_INT(v, 0);
    CHECK_STATUS(quire_document_is_repaired(&v, doc), QUIRE_OK);
    CHECK_INT(v, 0);
    CHECK_STATUS(quire_document_warning_count(&v, doc), QUIRE_OK);
    CHECK_INT(v, 0);
    CHECK_STATUS(quire_document_warning(buf, sizeof buf, &len, doc, 0), QUIRE_ERANGE);
    CHECK_INT(len, 12345);

    /* No /Info in the trailer (pikepdf: trailer has no /Info; pypdfium2 metadata {}). */
    CHECK_STATUS(quire_document_metadata_count(&v, doc), QUIRE_OK);
    CHECK_INT(v, 0);
    CHECK_STATUS(quire_document_metadata_key(buf, sizeof buf, &len, doc, 0), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_metadata(buf, sizeof buf, &len, doc, "Title"), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_metadata(NULL, 0, &len, doc, "Producer"), QUIRE_ENOTFOUND);

    /* Both pages: /MediaBox and /CropBox [0 0 612 792], no bleed, trim or art box, so all
     * five are [0 0 612 792] (pypdfium2 get_*box, pikepdf); no /Rotate: 0 (pypdfium2
     * get_rotation, pikepdf). */
    for (p = 0; p < 2; p++) {
        for (b = 0; b < sizeof all_boxes / sizeof all_boxes[0]; b++) {
            memset(&r, 0xff, sizeof r);
            CHECK_STATUS(quire_page_box(&r, doc, p, all_boxes[b]), QUIRE_OK);
            CHECK_RECT(r, 0, 0, 612, 792);
        }
        CHECK_STATUS(quire_page_rotation(&v, doc, p), QUIRE_OK);
        CHECK_INT(v, 0);
    }
}

static void check_null_arguments(quire_document *doc) {
    int32_t v = -7, w = -7;
    quire_rect r, before;
    size_t len = 777;
    char buf[64];
    memset(&r, 0x5a, sizeof r);
    before = r;
    memset(buf, 'Z', sizeof buf);

    /* NULL out or doc: QUIRE_EINVAL, with a message; the out-parameter untouched. */
    CHECK_STATUS(quire_document_page_count(NULL, doc), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_page_count(&v, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_pdf_version(NULL, &w, doc), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_pdf_version(&v, NULL, doc), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_pdf_version(&v, &w, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_is_encrypted(NULL, doc), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_is_encrypted(&v, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_is_repaired(NULL, doc), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_is_repaired(&v, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_warning_count(NULL, doc), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_warning_count(&v, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_warning(buf, sizeof buf, &len, NULL, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_warning(buf, sizeof buf, NULL, doc, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_metadata_count(NULL, doc), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_metadata_count(&v, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_metadata_key(buf, sizeof buf, &len, NULL, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_metadata_key(buf, sizeof buf, NULL, doc, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_metadata(buf, sizeof buf, &len, NULL, "Title"), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_metadata(buf, sizeof buf, NULL, doc, "Title"), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_metadata(buf, sizeof buf, &len, doc, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_box(NULL, doc, 0, QUIRE_BOX_MEDIA), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_box(&r, NULL, 0, QUIRE_BOX_MEDIA), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_rotation(NULL, doc, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_rotation(&v, NULL, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_annotation_count(NULL, doc, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_annotation_count(&v, NULL, 0), QUIRE_EINVAL);
    /* A NULL buffer with a non-zero size cannot be written. */
    CHECK(quire_document_metadata_key(NULL, 10, &len, doc, 0) < 0);
    CHECK_INT(v, -7);
    CHECK_INT(w, -7);
    CHECK(memcmp(&r, &before, sizeof r) == 0);
    CHECK_INT(len, 777);
    CHECK(buf[0] == 'Z' && buf[sizeof buf - 1] == 'Z');
}

static void check_ranges(quire_document *doc, int32_t pages) {
    static const int32_t bad_pages[] = {-1, INT32_MIN, INT32_MAX};
    /* Not a quire_box: numbers (-1, 5, 100, the extremes; 0, the media box's number before
     * 0.5), the one past the art box, and constants of other families, which their own
     * ranges make detectable (the header). */
    static const quire_box bad_boxes[] = {(quire_box)-1,
                                          (quire_box)5,
                                          (quire_box)100,
                                          (quire_box)INT32_MIN,
                                          (quire_box)INT32_MAX,
                                          (quire_box)0,
                                          (quire_box)(QUIRE_BOX_ART + 1),
                                          (quire_box)QUIRE_ANNOT_OPACITY,
                                          (quire_box)QUIRE_STREAM_DECODED,
                                          (quire_box)QUIRE_XREF_TABLE};
    int32_t v = -7;
    quire_rect r, before;
    size_t i;
    memset(&r, 0x5a, sizeof r);
    before = r;
    /* Out-of-range page indices: QUIRE_ERANGE (the header). */
    CHECK_STATUS(quire_page_box(&r, doc, pages, QUIRE_BOX_MEDIA), QUIRE_ERANGE);
    CHECK_STATUS(quire_page_rotation(&v, doc, pages), QUIRE_ERANGE);
    CHECK_STATUS(quire_page_annotation_count(&v, doc, pages), QUIRE_ERANGE);
    for (i = 0; i < sizeof bad_pages / sizeof bad_pages[0]; i++) {
        CHECK_STATUS(quire_page_box(&r, doc, bad_pages[i], QUIRE_BOX_CROP), QUIRE_ERANGE);
        CHECK_STATUS(quire_page_rotation(&v, doc, bad_pages[i]), QUIRE_ERANGE);
        CHECK_STATUS(quire_page_annotation_count(&v, doc, bad_pages[i]), QUIRE_ERANGE);
    }
    /* Unknown box values: QUIRE_EINVAL (the header). */
    for (i = 0; i < sizeof bad_boxes / sizeof bad_boxes[0]; i++)
        CHECK_STATUS(quire_page_box(&r, doc, 0, bad_boxes[i]), QUIRE_EINVAL);
    CHECK_INT(v, -7);
    CHECK(memcmp(&r, &before, sizeof r) == 0);
}

static void test_annots(void) {
    const char *path = corpus("pdfium/testing/resources/annots.pdf");
    quire_document *doc;
    unsigned char *bytes;
    size_t size = 0;
    test_step("annots.pdf from a path");
    doc = open_corpus("pdfium/testing/resources/annots.pdf", NULL);
    if (doc) {
        check_annots_doc(doc);
        check_null_arguments(doc);
        check_ranges(doc, 2);
        quire_document_close(doc);
    }

    test_step("annots.pdf from memory");
    bytes = read_file(path, &size);
    CHECK(bytes != NULL);
    CHECK_INT(size, 5745); /* manifest: size */
    doc = NULL;
    if (bytes) {
        CHECK_STATUS(quire_document_open_memory(&doc, bytes, size, NULL), QUIRE_OK);
        /* The bytes are copied during the call (the header): free and scribble them. */
        memset(bytes, 0, size);
        free(bytes);
    }
    if (doc) {
        check_annots_doc(doc);
        check_ranges(doc, 2);
        quire_document_close(doc);
    }
}

/* ---- a document served by a read callback (quire_document_open_callback) ------------ */

/* The host's side: bytes in memory, a count of the bytes asked for, a failure switch, and
 * whether release was called. */
struct served {
    unsigned char *bytes;
    size_t size;
    size_t asked;
    unsigned reads;
    int fail_from; /* the read calls from this one on fail (-1: none) */
    int released;
};

static int served_read(void *payload, uint64_t offset, void *buffer, size_t length) {
    struct served *s = payload;
    s->reads++;
    if (s->fail_from >= 0 && s->reads > (unsigned)s->fail_from) return 5;
    if (offset > s->size || length > s->size - offset) return 7; /* never asked past the size */
    memcpy(buffer, s->bytes + offset, length);
    s->asked += length;
    return 0;
}

static void served_release(void *payload) { ((struct served *)payload)->released++; }

static void test_open_callback(void) {
    const char *path = corpus("pdfium/testing/resources/annots.pdf");
    struct served s = {NULL, 0, 0, 0, -1, 0};
    quire_file_access access = QUIRE_FILE_ACCESS_INIT;
    quire_file_access initialised;
    quire_document *doc = NULL;
    test_step("annots.pdf from a read callback");
    s.bytes = read_file(path, &s.size);
    CHECK(s.bytes != NULL);
    if (!s.bytes) return;
    CHECK_STATUS(quire_file_access_init(&initialised, QUIRE_FILE_ACCESS_VERSION), QUIRE_OK);
    CHECK(initialised.version == QUIRE_FILE_ACCESS_VERSION && initialised.size == 0 &&
          initialised.read == NULL);
    CHECK_STATUS(quire_file_access_init(NULL, QUIRE_FILE_ACCESS_VERSION), QUIRE_EINVAL);
    CHECK_STATUS(quire_file_access_init(&initialised, QUIRE_FILE_ACCESS_VERSION + 1),
                 QUIRE_EVERSION);

    access.size = s.size;
    access.read = served_read;
    access.release = served_release;
    access.payload = &s;
    CHECK_STATUS(quire_document_open_callback(&doc, &access, NULL), QUIRE_OK);
    CHECK_INT(s.released, 0);
    if (doc) {
        check_annots_doc(doc);
        check_ranges(doc, 2);
        quire_document_close(doc);
    }
    CHECK_INT(s.released, 1); /* once everything is released */
    CHECK(s.asked <= s.size); /* each byte asked for once at most */

    /* Arguments: NULL access or read, a bad version, a size past 2^63. */
    test_step("open callback errors");
    s.released = 0;
    CHECK_STATUS(quire_document_open_callback(&doc, NULL, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_open_callback(NULL, &access, NULL), QUIRE_EINVAL);
    access.read = NULL;
    CHECK_STATUS(quire_document_open_callback(&doc, &access, NULL), QUIRE_EINVAL);
    CHECK_INT(s.released, 1); /* a failed open releases the payload */
    access.read = served_read;
    access.size = (uint64_t)1 << 63;
    CHECK_STATUS(quire_document_open_callback(&doc, &access, NULL), QUIRE_EINVAL);
    CHECK_INT(s.released, 2);
    access.size = (uint64_t)1 << 62; /* fits, but no system has the address space */
    CHECK_STATUS(quire_document_open_callback(&doc, &access, NULL), QUIRE_EINVAL);
    CHECK_INT(s.released, 3);
    access.size = s.size;
    access.version = 0;
    CHECK_STATUS(quire_document_open_callback(&doc, &access, NULL), QUIRE_EINVAL);
    access.version = QUIRE_FILE_ACCESS_VERSION + 1;
    CHECK_STATUS(quire_document_open_callback(&doc, &access, NULL), QUIRE_EVERSION);
    CHECK_INT(s.released, 3); /* a refused version: the struct was not read */
    access.version = QUIRE_FILE_ACCESS_VERSION;

    /* A read that fails during the open: QUIRE_EIO, with the callback's status in the
     * message; the payload released. */
    s.fail_from = 0;
    s.reads = 0;
    doc = NULL;
    CHECK_STATUS(quire_document_open_callback(&doc, &access, NULL), QUIRE_EIO);
    CHECK(doc == NULL);
    CHECK(strstr(quire_last_error_message(), "read callback") != NULL);
    CHECK_INT(s.released, 4);

    /* No bytes at all: not a PDF. */
    s.fail_from = -1;
    access.size = 0;
    CHECK_STATUS(quire_document_open_callback(&doc, &access, NULL), QUIRE_EFORMAT);
    CHECK_INT(s.released, 5);
    free(s.bytes);
}

/* ---- boxes2.pdf: inheritance and the defaults of every box ---------------------------- */

static void test_boxes(void) {
    /* qpdf's boxes2.pdf: 5 pages (manifest); the /Pages node has /MediaBox [0 0 612 792],
     * inherited by pages 1, 2 and 5. Page 2: /CropBox [10 20 582 752]; page 3: the same
     * /CropBox and its own /MediaBox; page 4: /BleedBox [20 40 552 712], /CropBox 24 0 R
     * (an indirect reference to [10 20 582 752]), /TrimBox [30 60 522 672]; page 5:
     * /ArtBox [25 50 527 722], /TrimBox [30 60 522 672] (the file). Expected boxes, with
     * the defaults applied (crop = media, bleed/trim/art = crop): pypdfium2 get_*box and
     * pikepdf .mediabox/.cropbox/.bleedbox/.trimbox/.artbox agree on every value. */
    static const double expected[5][5][4] = {
        {{0, 0, 612, 792}, {0, 0, 612, 792}, {0, 0, 612, 792}, {0, 0, 612, 792}, {0, 0, 612, 792}},
        {{0, 0, 612, 792},
         {10, 20, 582, 752},
         {10, 20, 582, 752},
         {10, 20, 582, 752},
         {10, 20, 582, 752}},
        {{0, 0, 612, 792},
         {10, 20, 582, 752},
         {10, 20, 582, 752},
         {10, 20, 582, 752},
         {10, 20, 582, 752}},
        {{0, 0, 612, 792},
         {10, 20, 582, 752},
         {20, 40, 552, 712},
         {30, 60, 522, 672},
         {10, 20, 582, 752}},
        {{0, 0, 612, 792},
         {0, 0, 612, 792},
         {0, 0, 612, 792},
         {30, 60, 522, 672},
         {25, 50, 527, 722}},
    };
    quire_document *doc;
    int32_t pages = -1, p, v;
    size_t b;
    test_step("boxes2.pdf");
    doc = open_corpus("qpdf/qpdf/qtest/qpdf/boxes2.pdf", NULL);
    if (!doc) return;
    CHECK_STATUS(quire_document_page_count(&pages, doc), QUIRE_OK);
    CHECK_INT(pages, 5);
    for (p = 0; p < 5 && p < pages; p++) {
        for (b = 0; b < 5; b++) {
            quire_rect r;
            memset(&r, 0, sizeof r);
            CHECK_STATUS(quire_page_box(&r, doc, p, all_boxes[b]), QUIRE_OK);
            report(near(r.left, expected[p][b][0]) && near(r.bottom, expected[p][b][1]) &&
                       near(r.right, expected[p][b][2]) && near(r.top, expected[p][b][3]),
                   __FILE__, __LINE__, "page %d box 0x%x is [%g %g %g %g], expected [%g %g %g %g]",
                   (int)p, (unsigned)all_boxes[b], r.left, r.bottom, r.right, r.top,
                   expected[p][b][0], expected[p][b][1], expected[p][b][2], expected[p][b][3]);
        }
        CHECK_STATUS(quire_page_rotation(&v, doc, p), QUIRE_OK);
        CHECK_INT(v, 0); /* no /Rotate anywhere (the file); pypdfium2: 0 */
        CHECK_STATUS(quire_page_annotation_count(&v, doc, p), QUIRE_OK);
        CHECK_INT(v, 0); /* manifest: annots_total 0 */
    }
    /* manifest: pdf_version 1.3 (all peers), not damaged, no warnings (pikepdf, mupdf). */
    CHECK_STATUS(quire_document_pdf_version(&p, &v, doc), QUIRE_OK);
    CHECK_INT(p, 1);
    CHECK_INT(v, 3);
    CHECK_STATUS(quire_document_warning_count(&v, doc), QUIRE_OK);
    CHECK_INT(v, 0);
    /* No /Info (pikepdf: the trailer has /ID /Root /Size only). */
    CHECK_STATUS(quire_document_metadata_count(&v, doc), QUIRE_OK);
    CHECK_INT(v, 0);
    check_ranges(doc, 5);
    quire_document_close(doc);

    /* Decimal coordinates: JPXTestGrey.pdf's page has /MediaBox, /CropBox, /BleedBox and
     * /TrimBox [0.0 0.0 595.28 841.89] and /ArtBox [91.0254 654.881 421.506 761.201]
     * (pikepdf, exact; pypdfium2 the same as floats). */
    test_step("JPXTestGrey.pdf boxes");
    doc = open_corpus("pdfbox/tools/src/test/resources/input/ImageIOUtil/JPXTestGrey.pdf", NULL);
    if (!doc) return;
    for (b = 0; b < 4; b++) {
        quire_rect r;
        memset(&r, 0, sizeof r);
        CHECK_STATUS(quire_page_box(&r, doc, 0, all_boxes[b]), QUIRE_OK);
        CHECK_RECT(r, 0.0, 0.0, 595.28, 841.89);
    }
    {
        quire_rect r;
        memset(&r, 0, sizeof r);
        CHECK_STATUS(quire_page_box(&r, doc, 0, QUIRE_BOX_ART), QUIRE_OK);
        CHECK_RECT(r, 91.0254, 654.881, 421.506, 761.201);
    }
    quire_document_close(doc);
}

/* ---- manual-appearances.pdf: rotation ------------------------------------------------- */

static void test_rotation(void) {
    /* 9 pages (manifest); /Rotate per page: none, 90, none, 90, 180, 90, none, 270, none
     * (the file; pikepdf .Rotate and pypdfium2 get_rotation: 0 90 0 90 180 90 0 270 0).
     * Only /MediaBox [0 0 612 792] on each page: every box is that (pypdfium2, pikepdf).
     * 3 annotations on every page (manifest annots_per_page, all peers). */
    static const int32_t rotation[9] = {0, 90, 0, 90, 180, 90, 0, 270, 0};
    quire_document *doc;
    int32_t pages = -1, p, v, major = 0, minor = 0;
    size_t b;
    doc = open_corpus("qpdf/qpdf/qtest/qpdf/manual-appearances.pdf", NULL);
    if (!doc) return;
    CHECK_STATUS(quire_document_page_count(&pages, doc), QUIRE_OK);
    CHECK_INT(pages, 9);
    for (p = 0; p < 9 && p < pages; p++) {
        v = -1;
        CHECK_STATUS(quire_page_rotation(&v, doc, p), QUIRE_OK);
        report(v == rotation[p], __FILE__, __LINE__, "page %d rotation is %d, expected %d", (int)p,
               (int)v, (int)rotation[p]);
        for (b = 0; b < 5; b++) {
            quire_rect r;
            memset(&r, 0, sizeof r);
            CHECK_STATUS(quire_page_box(&r, doc, p, all_boxes[b]), QUIRE_OK);
            CHECK_RECT(r, 0, 0, 612, 792);
        }
        CHECK_STATUS(quire_page_annotation_count(&v, doc, p), QUIRE_OK);
        CHECK_INT(v, 3);
    }
    CHECK_STATUS(quire_document_pdf_version(&major, &minor, doc), QUIRE_OK);
    CHECK_INT(major, 1); /* manifest: 1.5 */
    CHECK_INT(minor, 5);
    /* /Info 2 0 R: << /CreationDate (D:20181224113354-05'00') /Creator <feff0057...>
     * /Producer <feff004c...> >> (the file): UTF-16BE strings, decoded by pypdfium2 and
     * pikepdf to "Writer" and "LibreOffice 6.1". Keys in file order. */
    CHECK_STATUS(quire_document_metadata_count(&v, doc), QUIRE_OK);
    CHECK_INT(v, 3);
    CHECK_FETCH(S_METADATA_KEY, doc, 0, NULL, "CreationDate");
    CHECK_FETCH(S_METADATA_KEY, doc, 1, NULL, "Creator");
    CHECK_FETCH(S_METADATA_KEY, doc, 2, NULL, "Producer");
    CHECK_FETCH(S_METADATA, doc, 0, "CreationDate", "D:20181224113354-05'00'");
    CHECK_FETCH(S_METADATA, doc, 0, "Creator", "Writer");
    CHECK_FETCH(S_METADATA, doc, 0, "Producer", "LibreOffice 6.1");
    check_ranges(doc, 9);
    quire_document_close(doc);
}

/* ---- rotation.pdf: metadata and the length-query pattern ------------------------------ */

static void test_metadata(void) {
    /* pdfbox's rotation.pdf, /Info 8 0 R (the file):
     *   <</CreationDate(D:20080915112205-04'00')/Author(brianc)
     *     /Creator(PScript5.dll Version 5.2.2)/Producer(Acrobat Distiller 8.1.0 \(Windows\))
     *     /ModDate(D:20080915112205-04'00')/Title(Microsoft Word - Document1)>>
     * Values: pypdfium2 get_metadata_dict and pikepdf docinfo agree, e.g. Producer
     * "Acrobat Distiller 8.1.0 (Windows)" (33 bytes, the escaped parentheses decoded). */
    static const char *const keys[6] = {"CreationDate", "Author",  "Creator",
                                        "Producer",     "ModDate", "Title"};
    static const char *const values[6] = {
        "D:20080915112205-04'00'",    "brianc",
        "PScript5.dll Version 5.2.2", "Acrobat Distiller 8.1.0 (Windows)",
        "D:20080915112205-04'00'",    "Microsoft Word - Document1"};
    const char *producer = "Acrobat Distiller 8.1.0 (Windows)";
    const size_t plen = strlen(producer);
    quire_document *doc;
    int32_t count = -1, v, i;
    char buf[128], before[128];
    size_t len;
    int status;
    doc = open_corpus("pdfbox/pdfbox/src/test/resources/input/rotation.pdf", NULL);
    if (!doc) return;

    CHECK_STATUS(quire_document_metadata_count(&count, doc), QUIRE_OK);
    CHECK_INT(count, 6);
    for (i = 0; i < 6; i++) {
        CHECK_FETCH(S_METADATA_KEY, doc, i, NULL, keys[i]);
        CHECK_FETCH(S_METADATA, doc, 0, keys[i], values[i]);
    }

    /* The length query: NULL/0 gives the length. */
    len = 0;
    status = quire_document_metadata(NULL, 0, &len, doc, "Producer");
    check_query_status(status, __FILE__, __LINE__);
    CHECK_INT(len, plen);

    /* Too small by one (no room for the NUL): QUIRE_EBUFS, *out_len set, the buffer
     * untouched byte for byte. */
    memset(buf, 'Z', sizeof buf);
    memcpy(before, buf, sizeof buf);
    len = 0;
    CHECK_STATUS(quire_document_metadata(buf, plen, &len, doc, "Producer"), QUIRE_EBUFS);
    CHECK_INT(len, plen);
    CHECK(memcmp(buf, before, sizeof buf) == 0);
    len = 0;
    CHECK_STATUS(quire_document_metadata(buf, 1, &len, doc, "Producer"), QUIRE_EBUFS);
    CHECK_INT(len, plen);
    CHECK(memcmp(buf, before, sizeof buf) == 0);
    len = 0;
    CHECK_STATUS(quire_document_metadata(buf, 0, &len, doc, "Producer"), QUIRE_EBUFS);
    CHECK_INT(len, plen);
    CHECK(memcmp(buf, before, sizeof buf) == 0);

    /* Exactly *out_len + 1: the string and a NUL, nothing written after. */
    len = 0;
    CHECK_STATUS(quire_document_metadata(buf, plen + 1, &len, doc, "Producer"), QUIRE_OK);
    CHECK_INT(len, plen);
    CHECK(memcmp(buf, producer, plen) == 0);
    CHECK(buf[plen] == '\0');
    CHECK(memcmp(buf + plen + 1, before + plen + 1, sizeof buf - plen - 1) == 0);
    /* A larger buffer works too. */
    memset(buf, 'Z', sizeof buf);
    len = 0;
    CHECK_STATUS(quire_document_metadata(buf, sizeof buf, &len, doc, "Producer"), QUIRE_OK);
    CHECK_INT(len, plen);
    CHECK_STR(buf, producer);

    /* The same pattern for keys: "CreationDate" is 12 bytes. */
    memset(buf, 'Z', sizeof buf);
    memcpy(before, buf, sizeof buf);
    len = 0;
    status = quire_document_metadata_key(NULL, 0, &len, doc, 0);
    check_query_status(status, __FILE__, __LINE__);
    CHECK_INT(len, 12);
    CHECK_STATUS(quire_document_metadata_key(buf, 12, &len, doc, 0), QUIRE_EBUFS);
    CHECK_INT(len, 12);
    CHECK(memcmp(buf, before, sizeof buf) == 0);
    CHECK_STATUS(quire_document_metadata_key(buf, 13, &len, doc, 0), QUIRE_OK);
    CHECK_STR(buf, "CreationDate");
    CHECK(buf[13] == 'Z');

    /* Keys are case-sensitive and written without the slash; unset keys: ENOTFOUND. */
    len = 99;
    CHECK_STATUS(quire_document_metadata(buf, sizeof buf, &len, doc, "title"), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_metadata(buf, sizeof buf, &len, doc, "/Title"), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_metadata(buf, sizeof buf, &len, doc, "Subject"), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_metadata(buf, sizeof buf, &len, doc, ""), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_metadata(NULL, 0, &len, doc, "Keywords"), QUIRE_ENOTFOUND);
    CHECK_INT(len, 99);
    /* Index out of range: ERANGE. */
    CHECK_STATUS(quire_document_metadata_key(buf, sizeof buf, &len, doc, 6), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_metadata_key(buf, sizeof buf, &len, doc, -1), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_metadata_key(buf, sizeof buf, &len, doc, INT32_MAX), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_metadata_key(buf, sizeof buf, &len, doc, INT32_MIN), QUIRE_ERANGE);
    CHECK_INT(len, 99);

    /* Pages: 2 (manifest); /Rotate 0 and 90; /MediaBox and /CropBox [0 0 612 792] (the
     * file; pypdfium2 get_rotation 0 and 90, pikepdf). Version 1.4 (manifest). */
    CHECK_STATUS(quire_document_page_count(&v, doc), QUIRE_OK);
    CHECK_INT(v, 2);
    CHECK_STATUS(quire_page_rotation(&v, doc, 0), QUIRE_OK);
    CHECK_INT(v, 0);
    CHECK_STATUS(quire_page_rotation(&v, doc, 1), QUIRE_OK);
    CHECK_INT(v, 90);
    {
        quire_rect r;
        CHECK_STATUS(quire_page_box(&r, doc, 1, QUIRE_BOX_TRIM), QUIRE_OK);
        CHECK_RECT(r, 0, 0, 612, 792);
    }
    CHECK_STATUS(quire_document_pdf_version(&v, &i, doc), QUIRE_OK);
    CHECK_INT(v, 1);
    CHECK_INT(i, 4);
    CHECK_STATUS(quire_document_is_encrypted(&v, doc), QUIRE_OK);
    CHECK_INT(v, 0);
    quire_document_close(doc);
}

static void test_metadata_encodings(void) {
    quire_document *doc;
    int32_t v = -1;

    /* pdfium's utf-8.pdf: /Producer (\357\273\277Man\303\274ally Created) (the file): a
     * UTF-8 string with a byte order mark; pypdfium2 and pikepdf: "Manüally Created". */
    doc = open_corpus("pdfium/testing/resources/utf-8.pdf", NULL);
    if (doc) {
        CHECK_STATUS(quire_document_metadata_count(&v, doc), QUIRE_OK);
        CHECK_INT(v, 1);
        CHECK_FETCH(S_METADATA, doc, 0, "Producer",
                    "Man\xc3\xbc"
                    "ally Created");
        quire_document_close(doc);
    }

    /* pdfminer's sampleOneByteIdentityEncode.pdf: /Producer(iTextSharp\x92 5.4.4 \xa92000-
     * 2013 1T3XT BVBA \(internet access GmbH; licensed version\)) (the file), in
     * PDFDocEncoding, where 0x92 is U+2122 TRADE MARK SIGN and 0xA9 U+00A9; pypdfium2 and
     * pikepdf decode it to the string below. Then /CreationDate and /ModDate. */
    doc = open_corpus("pdfminer/samples/sampleOneByteIdentityEncode.pdf", NULL);
    if (doc) {
        CHECK_STATUS(quire_document_metadata_count(&v, doc), QUIRE_OK);
        CHECK_INT(v, 3);
        CHECK_FETCH(S_METADATA, doc, 0, "Producer",
                    "iTextSharp\xe2\x84\xa2 5.4.4 \xc2\xa9"
                    "2000-2013 1T3XT BVBA (internet "
                    "access GmbH; licensed version)");
        CHECK_FETCH(S_METADATA, doc, 0, "CreationDate", "D:20160630145301+02'00'");
        CHECK_FETCH(S_METADATA_KEY, doc, 0, NULL, "Producer");
        CHECK_FETCH(S_METADATA_KEY, doc, 2, NULL, "ModDate");
        quire_document_close(doc);
    }

    /* pypdf's reportlab-inline-image.pdf, /Info 5 0 R (the file):
     *   /Author (anonymous) /CreationDate (D:20220415133024-01'00') /Creator (ReportLab PDF
     *   Library - www.reportlab.com) /Keywords () /ModDate (D:20220415133024-01'00')
     *   /Producer (ReportLab PDF Library - www.reportlab.com) /Subject (unspecified)
     *   /Title (untitled) /Trapped /False
     * Nine entries: eight text strings (one empty) and a name, all counted (the header). */
    doc = open_corpus("pypdf/resources/reportlab-inline-image.pdf", NULL);
    if (doc) {
        static const char *const keys[9] = {"Author",   "CreationDate", "Creator",
                                            "Keywords", "ModDate",      "Producer",
                                            "Subject",  "Title",        "Trapped"};
        int32_t i;
        size_t len = 99;
        char buf[8];
        char *trapped;
        CHECK_STATUS(quire_document_metadata_count(&v, doc), QUIRE_OK);
        CHECK_INT(v, 9);
        for (i = 0; i < 9; i++) CHECK_FETCH(S_METADATA_KEY, doc, i, NULL, keys[i]);
        CHECK_FETCH(S_METADATA, doc, 0, "Author", "anonymous");
        CHECK_FETCH(S_METADATA, doc, 0, "Title", "untitled");
        /* The empty string: length 0, a buffer of 1 byte holds it. */
        CHECK_FETCH(S_METADATA, doc, 0, "Keywords", "");
        memset(buf, 'Z', sizeof buf);
        CHECK_STATUS(quire_document_metadata(buf, 1, &len, doc, "Keywords"), QUIRE_OK);
        CHECK_INT(len, 0);
        CHECK(buf[0] == '\0' && buf[1] == 'Z');
        /* A name comes back without its slash, as the header says. */
        trapped = fetch(S_METADATA, doc, 0, "Trapped", NULL);
        report(trapped && strcmp(trapped, "False") == 0, __FILE__, __LINE__,
               "Trapped is \"%s\", expected False", trapped ? trapped : "(failed)");
        free(trapped);
        quire_document_close(doc);
    }
}

/* ---- versions from the catalog -------------------------------------------------------- */

static void test_pdf_version(void) {
    quire_document *doc;
    int32_t major = -1, minor = -1;
    /* Header %PDF-1.3 (manifest raw.header_version), catalog /Version /1.4 (manifest
     * pikepdf catalog_version): the later one, 1.4 (pdfium and mupdf say 1.4; pikepdf
     * reports the header's 1.3). */
    doc = open_corpus("pdfbox/pdfbox/src/test/resources/input/PDFBOX-3044-010197-p5-ligatures.pdf",
                      NULL);
    if (doc) {
        CHECK_STATUS(quire_document_pdf_version(&major, &minor, doc), QUIRE_OK);
        CHECK_INT(major, 1);
        CHECK_INT(minor, 4);
        quire_document_close(doc);
    }
    /* Header %PDF-1.7, catalog /Version /1.6 (the file; manifest raw.header_version 1.7):
     * an earlier catalog version does not lower it (the header, ISO 32000-2 7.2.2), so 1.7,
     * as pikepdf says (pdfium and mupdf report the catalog's 1.6). */
    doc = open_corpus("pdfium/testing/resources/version_in_catalog.pdf", NULL);
    if (doc) {
        CHECK_STATUS(quire_document_pdf_version(&major, &minor, doc), QUIRE_OK);
        CHECK_INT(major, 1);
        CHECK_INT(minor, 7);
        quire_document_close(doc);
    }
}

/* ---- bad3.pdf: a damaged file that opens repaired, with warnings ---------------------- */

static void test_repaired(void) {
    quire_document *doc;
    int32_t v = -1, count = -1, i;
    char buf[4], before[4];
    size_t len;
    /* qpdf's bad3.pdf: startxref points where there is no xref (manifest raw.startxref_target
     * "bad-offset"); pikepdf xref_reconstructed true with 4 warnings, mupdf is_repaired true
     * with 5; 1 page, version 1.3 (all peers). */
    doc = open_corpus("qpdf/qpdf/qtest/qpdf/bad3.pdf", NULL);
    if (!doc) return;
    CHECK_STATUS(quire_document_is_repaired(&v, doc), QUIRE_OK);
    CHECK_INT(v, 1);
    CHECK_STATUS(quire_document_page_count(&v, doc), QUIRE_OK);
    CHECK_INT(v, 1);
    CHECK_STATUS(quire_document_pdf_version(&v, &i, doc), QUIRE_OK);
    CHECK_INT(v, 1);
    CHECK_INT(i, 3);
    CHECK_STATUS(quire_document_is_encrypted(&v, doc), QUIRE_OK);
    CHECK_INT(v, 0);
    CHECK_STATUS(quire_document_warning_count(&count, doc), QUIRE_OK);
    report(count >= 1, __FILE__, __LINE__, "a repaired file has %d warnings", (int)count);
    for (i = 0; i < count && i < 100; i++) {
        char *w = fetch(S_WARNING, doc, i, NULL, &len);
        report(w != NULL && len > 0 && strlen(w) == len, __FILE__, __LINE__, "warning %d is \"%s\"",
               (int)i, w ? w : "(failed)");
        free(w);
    }
    if (count >= 1) {
        /* The length-query pattern on a warning (every warning is longer than 3 bytes). */
        memset(buf, 'Z', sizeof buf);
        memcpy(before, buf, sizeof buf);
        len = 0;
        CHECK_STATUS(quire_document_warning(buf, sizeof buf, &len, doc, 0), QUIRE_EBUFS);
        CHECK(len >= sizeof buf);
        CHECK(memcmp(buf, before, sizeof buf) == 0);
    }
    len = 99;
    CHECK_STATUS(quire_document_warning(buf, sizeof buf, &len, doc, count), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_warning(buf, sizeof buf, &len, doc, -1), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_warning(buf, sizeof buf, &len, doc, INT32_MIN), QUIRE_ERANGE);
    CHECK_INT(len, 99);
    {
        /* Its page: /MediaBox [0 0 612 792] (pypdfium2, pikepdf). */
        quire_rect r;
        CHECK_STATUS(quire_page_box(&r, doc, 0, QUIRE_BOX_ART), QUIRE_OK);
        CHECK_RECT(r, 0, 0, 612, 792);
    }
    quire_document_close(doc);
}

/* ---- encrypted files ------------------------------------------------------------------- */

static void test_encrypted(void) {
    const char *rel = "qpdf/qpdf/qtest/qpdf/enc-R2,V1,U=view,O=master.pdf";
    quire_document *doc = NULL;
    quire_open_options options = QUIRE_OPEN_OPTIONS_INIT;
    int32_t v = -1;
    /* User password "view", owner password "master" (the file name; the corpus README).
     * Without a password or with a wrong one, pikepdf ("invalid password") and pypdfium2
     * ("Incorrect password error") refuse it: QUIRE_EPASSWORD. With either password both
     * open it: 30 pages, encrypted, version 1.4, /Info with /ModDate and /CreationDate,
     * CreationDate "D:20031010180432-03'00'" after decryption (RC4, 40-bit). */
    CHECK_STATUS(quire_document_open(&doc, corpus(rel), NULL), QUIRE_EPASSWORD);
    CHECK(doc == NULL);
    quire_document_close(doc); /* in case it opened after all */
    doc = NULL;
    options.password = "wrong";
    CHECK_STATUS(quire_document_open(&doc, corpus(rel), &options), QUIRE_EPASSWORD);
    CHECK(doc == NULL);
    quire_document_close(doc);

    doc = open_corpus(rel, "view");
    if (doc) {
        CHECK_STATUS(quire_document_is_encrypted(&v, doc), QUIRE_OK);
        CHECK_INT(v, 1);
        CHECK_STATUS(quire_document_page_count(&v, doc), QUIRE_OK);
        CHECK_INT(v, 30);
        CHECK_STATUS(quire_document_metadata_count(&v, doc), QUIRE_OK);
        CHECK_INT(v, 2);
        CHECK_FETCH(S_METADATA, doc, 0, "CreationDate", "D:20031010180432-03'00'");
        CHECK_FETCH(S_METADATA, doc, 0, "ModDate", "D:20031010180940-03'00'");
        quire_document_close(doc);
    }
    doc = open_corpus(rel, "master");
    if (doc) {
        CHECK_STATUS(quire_document_is_encrypted(&v, doc), QUIRE_OK);
        CHECK_INT(v, 1);
        CHECK_STATUS(quire_document_page_count(&v, doc), QUIRE_OK);
        CHECK_INT(v, 30);
        quire_document_close(doc);
    }

    /* enc-R2,V1,O=master.pdf has an empty user password: it opens without one (manifest:
     * all peers open it; is_encrypted true; 30 pages; version 1.4). */
    doc = open_corpus("qpdf/qpdf/qtest/qpdf/enc-R2,V1,O=master.pdf", NULL);
    if (doc) {
        int32_t major = 0, minor = 0;
        CHECK_STATUS(quire_document_is_encrypted(&v, doc), QUIRE_OK);
        CHECK_INT(v, 1);
        CHECK_STATUS(quire_document_page_count(&v, doc), QUIRE_OK);
        CHECK_INT(v, 30);
        CHECK_STATUS(quire_document_pdf_version(&major, &minor, doc), QUIRE_OK);
        CHECK_INT(major, 1);
        CHECK_INT(minor, 4);
        quire_document_close(doc);
    }
}

static const struct test_case basics_tests[] = {
    {"version", test_version},
    {"status_strings", test_status_strings},
    {"last_error", test_last_error},
    {"last_error_per_thread", test_last_error_per_thread},
    {"open_errors", test_open_errors},
    {"annots", test_annots},
    {"open_callback", test_open_callback},
    {"boxes", test_boxes},
    {"rotation", test_rotation},
    {"metadata", test_metadata},
    {"metadata_encodings", test_metadata_encodings},
    {"pdf_version", test_pdf_version},
    {"repaired", test_repaired},
    {"encrypted", test_encrypted},
    {"parallel_documents", test_parallel_documents},
    {NULL, NULL}};

const struct test_suite basics_suite = {"basics", NULL, NULL, basics_tests};

/* Every suite, in the order they run. */
static const struct test_suite *const suites[] = {
    &basics_suite,
    &structure_suite, /* the 0.2 interface: test_structure.c, test_values.c, test_editing.c */
    &values_suite,
    &editing_suite,
    &annotations_suite,     /* the 0.3 interface: annotations, replies, review states */
    &forms_suite,           /* forms, flattening and XFDF */
    &bookmarks_suite,       /* the 0.4 interface: bookmarks and their providers */
    &checkpoints_suite,     /* crash recovery of unsaved changes */
    &versions_suite,        /* the versioned structs, each version in guarded memory */
    &sync_suite,            /* the sync service's request handler */
    &client_suite,          /* the sync client's C API without a server */
    &tools_suite,           /* the tool manager */
    &text_suite,            /* text: extraction, search, selection, markup from text */
    &long_operations_suite, /* progress and cancellation of the long operations, build info */
    &pages_suite,           /* page operations and encryption */
    &signatures_suite,      /* digital signatures: signing and validation */
    NULL};

int main(int argc, char **argv) {
    struct stat st;
    int status = test_options(&argc, argv, suites);
    if (status >= 0) return status;
    if (argc != 2 && argc != 3) {
        fprintf(stderr,
                "usage: %s [-v] [-l] [-s SUITE[::TEST]]... CORPUS_DIR [SYNC_FIXTURES_DIR]\n"
                "  (test_support.h: -l lists the tests, -s picks suites or tests by name or "
                "pattern)\n",
                argv[0]);
        return 2;
    }
    g_corpus = argv[1];
    g_sync_fixtures = argc == 3 ? argv[2] : NULL; /* sync_fixtures.py's keys and tokens */
    if (stat(corpus("manifest.jsonl"), &st) != 0) {
        fprintf(stderr, "test_api: %s is not the corpus (no manifest.jsonl): %s\n", g_corpus,
                strerror(errno));
        return 2;
    }
    run_test_suites(suites);
    printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
