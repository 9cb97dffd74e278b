/*
 * test_long_operations.c: progress and cancellation of the long operations (issue 40:
 * include/quire.h, "Long operations"): flattening, annotations exported and imported in a
 * format (JSON, Instant comments, XFDF), search over a document and the text of a
 * document; and quire_build_info. Each operation's progress is checked to rise to
 * done == total, and a cancel at the first call to leave the document as it was and to
 * write nothing.
 *
 * The file is examples/sample.pdf (PDFium's annots.pdf: 2 pages, annotations on both);
 * nothing is saved.
 */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef QUIRE_SAMPLE_PDF /* the Makefile passes $(ROOT)/examples/sample.pdf */
#define QUIRE_SAMPLE_PDF "../../examples/sample.pdf"
#endif

/* What a progress callback saw: its calls, whether `done` ever went down or past
 * `total` or `total` changed, the last call, and the call at which to cancel (0: never). */
struct progress_log {
    int calls;
    int bad;
    uint64_t last_done, total;
    int cancel_at;
};

static int record_progress(uint64_t done, uint64_t total, void *payload) {
    struct progress_log *log = payload;
    if (log->calls > 0 && (done < log->last_done || total != log->total)) log->bad = 1;
    if (done > total) log->bad = 1;
    log->calls++;
    log->last_done = done;
    log->total = total;
    return log->cancel_at > 0 && log->calls >= log->cancel_at;
}

/* The log ends at done == total after at least one call, and never went wrong. */
#define CHECK_PROGRESS_COMPLETE(log)           \
    do {                                       \
        CHECK((log).calls >= 1);               \
        CHECK(!(log).bad);                     \
        CHECK((log).last_done == (log).total); \
    } while (0)

/* Whether the `size` bytes at `data` hold `needle`. */
static int holds(const unsigned char *data, size_t size, const char *needle) {
    size_t n = strlen(needle), i;
    for (i = 0; data && i + n <= size; i++)
        if (memcmp(data + i, needle, n) == 0) return 1;
    return 0;
}

static quire_document *open_sample(void) {
    quire_document *doc = NULL;
    CHECK_STATUS(quire_document_open(&doc, QUIRE_SAMPLE_PDF, NULL), QUIRE_OK);
    return doc;
}

static int32_t annotations_on(quire_document *doc, int32_t page) {
    int32_t n = -1;
    CHECK_STATUS(quire_page_annotation_count(&n, doc, page), QUIRE_OK);
    return n;
}

static int32_t unsaved(quire_document *doc) {
    int32_t n = -1;
    CHECK_STATUS(quire_document_has_unsaved_changes(&n, doc), QUIRE_OK);
    return n;
}

static void test_options_init(void) {
    quire_flatten_options flatten;
    quire_export_options exporting;
    quire_import_options importing;
    quire_text_options text;
    memset(&flatten, 0xAB, sizeof flatten);
    CHECK_STATUS(quire_flatten_options_init(&flatten, QUIRE_FLATTEN_OPTIONS_VERSION), QUIRE_OK);
    CHECK(flatten.version == QUIRE_FLATTEN_OPTIONS_VERSION && flatten.subtypes == NULL &&
          flatten.keep_links == 1 && flatten.progress == NULL && flatten.progress_payload == NULL);
    CHECK_STATUS(quire_flatten_options_init(&flatten, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_flatten_options_init(&flatten, QUIRE_FLATTEN_OPTIONS_VERSION + 1),
                 QUIRE_EVERSION);
    CHECK_STATUS(quire_flatten_options_init(NULL, 1), QUIRE_EINVAL);
    memset(&exporting, 0xAB, sizeof exporting);
    CHECK_STATUS(quire_export_options_init(&exporting, QUIRE_EXPORT_OPTIONS_VERSION), QUIRE_OK);
    CHECK(exporting.format == QUIRE_FORMAT_JSON && exporting.page_index == -1 &&
          exporting.progress == NULL);
    CHECK_STATUS(quire_export_options_init(&exporting, 2), QUIRE_EVERSION);
    memset(&importing, 0xAB, sizeof importing);
    CHECK_STATUS(quire_import_options_init(&importing, QUIRE_IMPORT_OPTIONS_VERSION), QUIRE_OK);
    CHECK(importing.format == QUIRE_FORMAT_JSON && importing.progress == NULL);
    CHECK_STATUS(quire_import_options_init(&importing, 0), QUIRE_EINVAL);
    memset(&text, 0xAB, sizeof text);
    CHECK_STATUS(quire_text_options_init(&text, QUIRE_TEXT_OPTIONS_VERSION), QUIRE_OK);
    CHECK(text.progress == NULL && text.progress_payload == NULL);
    CHECK_STATUS(quire_text_options_init(&text, 9), QUIRE_EVERSION);
}

static void test_flatten(void) {
    quire_document *doc = open_sample();
    quire_flatten_options options = QUIRE_FLATTEN_OPTIONS_INIT;
    struct progress_log log = {0, 0, 0, 0, 1};
    int32_t drawn = -1, before0, before1;
    if (!doc) return;
    before0 = annotations_on(doc, 0);
    before1 = annotations_on(doc, 1);
    CHECK(before0 > 0);

    /* Cancelled at the first call: QUIRE_EUSER naming the cancel, and nothing changed. */
    options.progress = record_progress;
    options.progress_payload = &log;
    CHECK_STATUS(quire_document_flatten(&drawn, doc, &options), QUIRE_EUSER);
    CHECK(strstr(quire_last_error_message(), "cancelled") != NULL);
    CHECK_INT(log.calls, 1);
    CHECK_INT(annotations_on(doc, 0), before0);
    CHECK_INT(annotations_on(doc, 1), before1);
    CHECK_INT(unsaved(doc), 0);

    /* Cancelled on the last page: still nothing changed (all or nothing). */
    memset(&log, 0, sizeof log);
    log.cancel_at = 3; /* (0, 2), (1, 2), then cancel at (2, 2) */
    CHECK_STATUS(quire_document_flatten(&drawn, doc, &options), QUIRE_EUSER);
    CHECK_INT(log.total, 2);
    CHECK_INT(annotations_on(doc, 0), before0);
    CHECK_INT(unsaved(doc), 0);

    /* To the end: a step per page. */
    memset(&log, 0, sizeof log);
    options.subtypes = NULL;
    CHECK_STATUS(quire_document_flatten(&drawn, doc, &options), QUIRE_OK);
    CHECK_PROGRESS_COMPLETE(log);
    CHECK_INT(log.total, 2);
    CHECK(drawn >= 1);
    CHECK_INT(unsaved(doc), 1);
    quire_document_close(doc);

    /* NULL options: the defaults. */
    doc = open_sample();
    if (!doc) return;
    CHECK_STATUS(quire_document_flatten(NULL, doc, NULL), QUIRE_OK);
    options.version = QUIRE_FLATTEN_OPTIONS_VERSION + 1;
    CHECK_STATUS(quire_document_flatten(NULL, doc, &options), QUIRE_EVERSION);
    quire_document_close(doc);
}

/* The length-query export of JSON, for comparing. */
static char *json_by_query(quire_document *doc, int instant, size_t *len) {
    char *json;
    *len = 0;
    if (instant) {
        CHECK_STATUS(quire_document_export_annotations_json_instant_comments(NULL, 0, len, doc, -1),
                     QUIRE_OK);
    } else {
        CHECK_STATUS(quire_document_export_annotations_json(NULL, 0, len, doc, -1), QUIRE_OK);
    }
    json = malloc(*len + 1);
    if (!json) return NULL;
    if (instant) {
        CHECK_STATUS(
            quire_document_export_annotations_json_instant_comments(json, *len + 1, len, doc, -1),
            QUIRE_OK);
    } else {
        CHECK_STATUS(quire_document_export_annotations_json(json, *len + 1, len, doc, -1),
                     QUIRE_OK);
    }
    return json;
}

static void test_export(void) {
    quire_document *doc = open_sample();
    quire_export_options options = QUIRE_EXPORT_OPTIONS_INIT;
    struct progress_log log = {0, 0, 0, 0, 0};
    struct byte_sink sink = {NULL, 0, 0, 0, 0, 0, 0};
    size_t len = 0;
    char *expected;
    if (!doc) return;

    /* JSON, whole: the same bytes as the length-query export, with progress to the end
     * (two steps per page). */
    options.progress = record_progress;
    options.progress_payload = &log;
    sink_expect_thread();
    CHECK_STATUS(quire_document_export_annotations(doc, &options, sink_write, &sink), QUIRE_OK);
    CHECK_PROGRESS_COMPLETE(log);
    CHECK_INT(log.total, 4);
    expected = json_by_query(doc, 0, &len);
    CHECK(expected && sink.size == len && memcmp(sink.data, expected, len) == 0);
    CHECK(!sink.bad_payload && !sink.other_thread);
    free(expected);
    sink_free(&sink);

    /* Instant comments, and one page. */
    options.format = QUIRE_FORMAT_JSON_INSTANT_COMMENTS;
    CHECK_STATUS(quire_document_export_annotations(doc, &options, sink_write, &sink), QUIRE_OK);
    expected = json_by_query(doc, 1, &len);
    CHECK(expected && sink.size == len && memcmp(sink.data, expected, len) == 0);
    free(expected);
    sink_free(&sink);
    options.format = QUIRE_FORMAT_JSON;
    options.page_index = 1;
    CHECK_STATUS(quire_document_export_annotations(doc, &options, sink_write, &sink), QUIRE_OK);
    CHECK(holds(sink.data, sink.size, "\"pageIndex\" : 1"));
    sink_free(&sink);
    options.page_index = 2;
    CHECK_STATUS(quire_document_export_annotations(doc, &options, sink_write, &sink), QUIRE_ERANGE);
    options.page_index = -2;
    CHECK_STATUS(quire_document_export_annotations(doc, &options, sink_write, &sink), QUIRE_ERANGE);

    /* XFDF: the same bytes as quire_document_export_xfdf; a page is refused. */
    options.format = QUIRE_FORMAT_XFDF;
    options.page_index = -1;
    CHECK_STATUS(quire_document_export_annotations(doc, &options, sink_write, &sink), QUIRE_OK);
    CHECK_STATUS(quire_document_export_xfdf(NULL, 0, &len, doc), QUIRE_OK);
    expected = malloc(len + 1);
    if (expected) {
        CHECK_STATUS(quire_document_export_xfdf(expected, len + 1, &len, doc), QUIRE_OK);
        CHECK(sink.size == len && memcmp(sink.data, expected, len) == 0);
        free(expected);
    }
    sink_free(&sink);
    options.page_index = 0;
    CHECK_STATUS(quire_document_export_annotations(doc, &options, sink_write, &sink), QUIRE_EINVAL);

    /* A cancel writes nothing; a write callback that stops is QUIRE_EUSER. */
    options.page_index = -1;
    memset(&log, 0, sizeof log);
    log.cancel_at = 2;
    CHECK_STATUS(quire_document_export_annotations(doc, &options, sink_write, &sink), QUIRE_EUSER);
    CHECK_INT(sink.calls, 0);
    options.progress = NULL;
    sink.fail_at_call = 1;
    CHECK_STATUS(quire_document_export_annotations(doc, &options, sink_write, &sink), QUIRE_EUSER);
    sink_free(&sink);

    /* Bad arguments. */
    options.format = (quire_annotation_format)0x3803;
    CHECK_STATUS(quire_document_export_annotations(doc, &options, sink_write, &sink), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_export_annotations(doc, NULL, NULL, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_export_annotations(NULL, NULL, sink_write, &sink), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_export_annotations(doc, NULL, sink_write, &sink), QUIRE_OK);
    sink_free(&sink);
    quire_document_close(doc);
}

static void test_import(void) {
    quire_document *doc = open_sample(), *target;
    quire_import_options options = QUIRE_IMPORT_OPTIONS_INIT;
    struct progress_log log = {0, 0, 0, 0, 1};
    struct byte_sink json = {NULL, 0, 0, 0, 0, 0, 0}, xfdf = {NULL, 0, 0, 0, 0, 0, 0};
    quire_export_options exporting = QUIRE_EXPORT_OPTIONS_INIT;
    quire_rect rect = {100, 100, 120, 120};
    quire_annotation *note = NULL;
    int32_t count = -1, before;
    if (!doc) return;
    /* A new note, exported as JSON and XFDF, goes into a fresh copy of the file. */
    CHECK_STATUS(quire_annotation_new(&note, "Text", 0, &rect), QUIRE_OK);
    CHECK_STATUS(quire_annotation_set_string(note, QUIRE_ANNOT_CONTENTS, "from the export"),
                 QUIRE_OK);
    CHECK_STATUS(quire_annotation_set_string(note, QUIRE_ANNOT_UNIQUE_NAME, "long-operations-note"),
                 QUIRE_OK);
    CHECK_STATUS(quire_document_add_annotation(doc, note), QUIRE_OK);
    quire_annotation_free(note);
    CHECK_STATUS(quire_document_export_annotations(doc, &exporting, sink_write, &json), QUIRE_OK);
    exporting.format = QUIRE_FORMAT_XFDF;
    CHECK_STATUS(quire_document_export_annotations(doc, &exporting, sink_write, &xfdf), QUIRE_OK);
    quire_document_close(doc);

    target = open_sample();
    if (!target) return;
    before = annotations_on(target, 0);
    /* Cancelled at the first step: nothing imported. */
    options.progress = record_progress;
    options.progress_payload = &log;
    CHECK_STATUS(quire_document_import_annotations(&count, target, &options, json.data, json.size),
                 QUIRE_EUSER);
    CHECK_INT(annotations_on(target, 0), before);
    CHECK_INT(unsaved(target), 0);
    /* Cancelled at the last step, after every record was applied: still nothing. */
    memset(&log, 0, sizeof log);
    CHECK_STATUS(quire_document_import_annotations(&count, target, &options, json.data, json.size),
                 QUIRE_OK);
    CHECK_PROGRESS_COMPLETE(log);
    quire_document_close(target);
    target = open_sample();
    if (!target) return;
    log.cancel_at = log.calls;
    log.calls = 0;
    CHECK_STATUS(quire_document_import_annotations(&count, target, &options, json.data, json.size),
                 QUIRE_EUSER);
    CHECK_INT(annotations_on(target, 0), before);
    CHECK_INT(unsaved(target), 0);

    /* To the end: the note is there once. */
    memset(&log, 0, sizeof log);
    count = -1;
    CHECK_STATUS(quire_document_import_annotations(&count, target, &options, json.data, json.size),
                 QUIRE_OK);
    CHECK_PROGRESS_COMPLETE(log);
    CHECK(count >= 1);
    CHECK_INT(annotations_on(target, 0), before + 1);
    quire_document_close(target);

    /* XFDF, with its own steps; NULL options is JSON, so XFDF bytes are a format error. */
    target = open_sample();
    if (!target) return;
    options.format = QUIRE_FORMAT_XFDF;
    memset(&log, 0, sizeof log);
    CHECK_STATUS(quire_document_import_annotations(&count, target, &options, xfdf.data, xfdf.size),
                 QUIRE_OK);
    CHECK_PROGRESS_COMPLETE(log);
    CHECK(annotations_on(target, 0) >=
          before + 1); /* (annotations without /NM come in as new ones) */
    CHECK_STATUS(quire_document_import_annotations(NULL, target, NULL, xfdf.data, xfdf.size),
                 QUIRE_EFORMAT);
    options.format = QUIRE_FORMAT_JSON_INSTANT_COMMENTS;
    CHECK_STATUS(quire_document_import_annotations(NULL, target, &options, json.data, json.size),
                 QUIRE_EINVAL);
    options.format = QUIRE_FORMAT_XFDF;
    CHECK_STATUS(quire_document_import_annotations(NULL, target, &options, NULL, 3), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_import_annotations(NULL, target, &options, "<x/>", (size_t)-1),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_document_import_annotations(NULL, NULL, &options, "<x/>", 4), QUIRE_EINVAL);
    quire_document_close(target);
    sink_free(&json);
    sink_free(&xfdf);
}

static void test_search_and_text(void) {
    quire_document *doc = open_sample();
    quire_text_search_options search = QUIRE_TEXT_SEARCH_OPTIONS_INIT;
    quire_text_options options = QUIRE_TEXT_OPTIONS_INIT;
    quire_text_search_options *v1;
    quire_text_match_list *list = NULL;
    quire_text_page *page = NULL;
    struct progress_log log = {0, 0, 0, 0, 0};
    struct byte_sink sink = {NULL, 0, 0, 0, 0, 0, 0};
    size_t len = 0;
    char *first;
    if (!doc) return;

    /* Search: a step per page; a cancel gives no list. */
    search.progress = record_progress;
    search.progress_payload = &log;
    CHECK_STATUS(quire_document_search_text(&list, doc, "e", &search, -1), QUIRE_OK);
    CHECK_PROGRESS_COMPLETE(log);
    CHECK_INT(log.total, 2);
    quire_text_match_list_free(list);
    list = NULL;
    memset(&log, 0, sizeof log);
    CHECK_STATUS(quire_document_search_text(&list, doc, "e", &search, 1), QUIRE_OK);
    CHECK_PROGRESS_COMPLETE(log);
    CHECK_INT(log.total, 1);
    quire_text_match_list_free(list);
    list = NULL;
    memset(&log, 0, sizeof log);
    log.cancel_at = 1;
    CHECK_STATUS(quire_document_search_text(&list, doc, "e", &search, -1), QUIRE_EUSER);
    CHECK(list == NULL);
    /* A version 1 struct (16 bytes, up to a guard page) is read as it is. */
    v1 = guarded_alloc(16);
    if (v1) {
        v1->version = 1;
        CHECK_STATUS(quire_document_search_text(&list, doc, "e", v1, -1), QUIRE_OK);
        quire_text_match_list_free(list);
        list = NULL;
        guarded_free(v1, 16);
    }

    /* The text of the document: the pages' texts, each followed by a form feed. */
    options.progress = record_progress;
    options.progress_payload = &log;
    memset(&log, 0, sizeof log);
    CHECK_STATUS(quire_document_text(doc, &options, sink_write, &sink), QUIRE_OK);
    CHECK_PROGRESS_COMPLETE(log);
    CHECK_INT(log.total, 2);
    CHECK(sink.size >= 2 && sink.data[sink.size - 1] == '\f');
    CHECK_STATUS(quire_page_text_load(&page, doc, 0), QUIRE_OK);
    CHECK_STATUS(quire_text_page_text(NULL, 0, &len, page), QUIRE_OK);
    first = malloc(len + 1);
    if (first && sink.size > len) {
        CHECK_STATUS(quire_text_page_text(first, len + 1, &len, page), QUIRE_OK);
        CHECK(memcmp(sink.data, first, len) == 0 && sink.data[len] == '\f');
    }
    free(first);
    quire_text_page_free(page);
    sink_free(&sink);
    memset(&log, 0, sizeof log);
    log.cancel_at = 2;
    CHECK_STATUS(quire_document_text(doc, &options, sink_write, &sink), QUIRE_EUSER);
    CHECK_INT(sink.calls, 0);
    CHECK_STATUS(quire_document_text(doc, NULL, sink_write, &sink), QUIRE_OK);
    sink_free(&sink);
    CHECK_STATUS(quire_document_text(doc, NULL, NULL, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_text(NULL, NULL, sink_write, &sink), QUIRE_EINVAL);
    quire_document_close(doc);
}

static void test_build_info(void) {
    size_t len = 0;
    char *info;
    char expected[64];
    CHECK_STATUS(quire_build_info(NULL, 0, &len), QUIRE_OK);
    CHECK(len > 0);
    info = malloc(len + 1);
    if (!info) return;
    CHECK_STATUS(quire_build_info(info, len + 1, &len), QUIRE_OK);
    snprintf(expected, sizeof expected, "\"version\": \"%s\"", QUIRE_VERSION_STRING);
    CHECK(strstr(info, expected) != NULL);
    CHECK(strstr(info, "\"soname\": \"libquire.so.") != NULL);
    CHECK(strstr(info, "\"sync_service\": true") != NULL);
    CHECK(strstr(info, "\"checkpoint_directory\"") != NULL);
    CHECK_STATUS(quire_build_info(info, 1, &len), QUIRE_EBUFS);
    CHECK_STATUS(quire_build_info(info, len + 1, NULL), QUIRE_EINVAL);
    free(info);
}

/* Issue 40: the README's save example passed the path where the options go. The call fails
 * with QUIRE_EVERSION, and the message says that this is likely no struct at all (the
 * path's bytes read as a version) rather than only "newer than this library". */
static void test_wrong_argument_message(void) {
    quire_document *doc = open_sample();
    const void *path = "out.pdf";
    if (!doc) return;
    CHECK_STATUS(quire_document_save(doc, (const quire_save_options *)path, "out.pdf"),
                 QUIRE_EVERSION);
    CHECK(strstr(quire_last_error_message(), "\"out.\"") != NULL);
    CHECK(strstr(quire_last_error_message(), "arguments' order") != NULL);
    CHECK(!path_exists("out.pdf"));
    quire_document_close(doc);
}

static const struct test_case long_operations_tests[] = {
    {"options_init", test_options_init},
    {"flatten", test_flatten},
    {"export", test_export},
    {"import", test_import},
    {"search_and_text", test_search_and_text},
    {"build_info", test_build_info},
    {"wrong_argument_message", test_wrong_argument_message},
    {NULL, NULL}};

const struct test_suite long_operations_suite = {"long_operations", NULL, NULL,
                                                 long_operations_tests};
