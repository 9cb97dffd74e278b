/*
 * test_annotations.c: the 0.3 interface of include/quire.h, "Annotations, replies and review
 * states": reading the annotations of real files, creating every creatable subtype, updating
 * and deleting, replies and state replies, comments and review summaries, the rules of
 * set_in_reply_to and of states, the replies switch, search, and every error path.
 *
 * Linked into out/test_api with the other test files (test_support.h has the framework).
 * Every expected value says where it comes from:
 *  - "pikepdf" / "pypdfium2": the peer library was run on the file (pikepdf 10.17: the page's
 *    /Annots, each dictionary's entries and object numbers; pypdfium2 5.15 on PDFium
 *    159.0.8149: FPDFPage_GetAnnotCount, FPDFAnnot_GetSubtype, FPDFAnnot_GetStringValue of
 *    /T, /Contents and /State, FPDFAnnot_GetLinkedAnnot(IRT));
 *  - "manifest": CORPUS_DIR/manifest.jsonl, the peers' consensus (annots_irt_majority,
 *    annots_state_majority, annots_total_majority);
 *  - "the header": include/quire.h, the contract;
 *  - "set above": what the test wrote itself, read back after a save and a reopen.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_support.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANNOTS_PDF "pdfium/testing/resources/annots.pdf"
#define CARET_PDF "pdfannots/tests/caret.pdf"
#define XFDF_DIR "itext/forms/src/test/resources/com/itextpdf/forms/XfdfReaderTest/"
#define IN_REPLY_TO_PDF XFDF_DIR "cmp_xfdfInReplyTo.pdf"
#define ARROW_PDF XFDF_DIR "xfdfAnnotationArrow.pdf"
#define BOOKMARKS_PDF "pdfium/testing/resources/bookmarks.pdf"

/* ---- helpers: fields through the length-query pattern ------------------------------------ */

/* Which string getter: quire_annotation_string(field), or quire_annotation_subtype (a value
 * of no constant family: the families' ranges are 0x0100 to 0x10FF). */
#define SUBTYPE_FIELD ((quire_annot_string_field)0x7FFF)

static int call_astr(char *buf, size_t size, size_t *len, const quire_annotation *a,
                     quire_annot_string_field field) {
    if (field == SUBTYPE_FIELD) return quire_annotation_subtype(buf, size, len, a);
    return quire_annotation_string(buf, size, len, a, field);
}

/* A string field through the length-query pattern (the NULL/0 query, then exactly
 * *out_len + 1 bytes): a malloc'd copy, or NULL with *status the failing status. */
static char *astr_at(const quire_annotation *a, quire_annot_string_field field, int *status,
                     const char *file, int line) {
    size_t len = (size_t)-1, len2 = (size_t)-1;
    char *buf;
    int st;
    st = call_astr(NULL, 0, &len, a, field);
    if (status) *status = st;
    if (st != QUIRE_OK) return NULL;
    report(len < 1000000u, file, line, "field %d: the length query set *out_len to %zu", (int)field,
           len);
    if (len >= 1000000u) return NULL;
    buf = malloc(len + 2);
    if (!buf) return NULL;
    buf[len + 1] = 'Z';
    st = call_astr(buf, len + 1, &len2, a, field);
    report(st == QUIRE_OK && len2 == len, file, line,
           "field %d: reading %zu + 1 bytes returned %d, *out_len %zu: %s", (int)field, len, st,
           len2, quire_last_error_message());
    if (st != QUIRE_OK || len2 != len) {
        if (status) *status = st == QUIRE_OK ? QUIRE_EINTERNAL : st;
        free(buf);
        return NULL;
    }
    report(buf[len] == '\0' && buf[len + 1] == 'Z', file, line,
           "field %d: no NUL after the string, or a byte written past it", (int)field);
    return buf;
}

static void check_astr_at(const quire_annotation *a, quire_annot_string_field field,
                          const char *expected, const char *what, const char *file, int line) {
    int status = 0;
    char *s = astr_at(a, field, &status, file, line);
    report(s != NULL && strcmp(s, expected) == 0, file, line,
           "%s is \"%s\" (status %d %s), expected \"%s\"", what, s ? s : "(failed)", status,
           s ? "" : quire_last_error_message(), expected);
    free(s);
}
#define CHECK_ASTR(a, field, expected) \
    check_astr_at((a), (field), (expected), #field " of " #a, __FILE__, __LINE__)
#define CHECK_SUBTYPE(a, expected) \
    check_astr_at((a), SUBTYPE_FIELD, (expected), "the subtype of " #a, __FILE__, __LINE__)

/* The field is not set: QUIRE_ENOTFOUND (the header), *out_len untouched. */
static void check_astr_missing_at(const quire_annotation *a, quire_annot_string_field field,
                                  const char *what, const char *file, int line) {
    size_t len = 4242;
    char buf[8] = "ZZZZZZZ";
    int status = call_astr(NULL, 0, &len, a, field);
    report(status == QUIRE_ENOTFOUND && len == 4242, file, line,
           "%s: the query returned %d (%s), *out_len %zu; expected QUIRE_ENOTFOUND, untouched",
           what, status, quire_status_string(status), len);
    status = call_astr(buf, sizeof buf, &len, a, field);
    report(status == QUIRE_ENOTFOUND && len == 4242 && memcmp(buf, "ZZZZZZZ", 8) == 0, file, line,
           "%s: reading returned %d, expected QUIRE_ENOTFOUND, buffer untouched", what, status);
    if (status == QUIRE_ENOTFOUND)
        report(quire_last_error_code() == QUIRE_ENOTFOUND && quire_last_error_message()[0], file,
               line, "%s: QUIRE_ENOTFOUND without the last error", what);
}
#define CHECK_ASTR_MISSING(a, field) \
    check_astr_missing_at((a), (field), #field " of " #a, __FILE__, __LINE__)

/* The whole length-query protocol on a non-empty string field (as check_length_query in
 * test_support.c does for the 0.2 functions). */
static void check_astr_protocol_at(const quire_annotation *a, quire_annot_string_field field,
                                   const char *file, int line) {
    size_t len = 0, len2, cap, sizes[3];
    char *expected, *buf, *before;
    int status, k;
    expected = astr_at(a, field, &status, file, line);
    report(expected != NULL && expected[0] != '\0', file, line,
           "field %d: a non-empty string is needed (status %d)", (int)field, status);
    if (!expected || !expected[0]) {
        free(expected);
        return;
    }
    len = strlen(expected);
    cap = len + 16;
    buf = malloc(cap);
    before = malloc(cap);
    if (!buf || !before) {
        free(buf);
        free(before);
        free(expected);
        return;
    }
    memset(buf, 'Z', cap);
    memcpy(before, buf, cap);
    sizes[0] = 0;
    sizes[1] = 1;
    sizes[2] = len;
    for (k = 0; k < 3; k++) {
        len2 = 12345;
        status = call_astr(buf, sizes[k], &len2, a, field);
        report(status == QUIRE_EBUFS && len2 == len && memcmp(buf, before, cap) == 0, file, line,
               "field %d, buffer of %zu for %zu + 1: status %d, *out_len %zu, buffer %s",
               (int)field, sizes[k], len, status, len2,
               memcmp(buf, before, cap) == 0 ? "untouched" : "WRITTEN");
        report(status != QUIRE_EBUFS || quire_last_error_code() == QUIRE_EBUFS, file, line,
               "field %d: QUIRE_EBUFS not recorded as the last error", (int)field);
    }
    status = call_astr(buf, len + 1, &len2, a, field);
    report(status == QUIRE_OK && len2 == len && memcmp(buf, expected, len + 1) == 0 &&
               memcmp(buf + len + 1, before + len + 1, cap - len - 1) == 0,
           file, line, "field %d: exactly *out_len + 1 bytes: status %d", (int)field, status);
    memset(buf, 'Z', cap);
    status = call_astr(buf, cap, &len2, a, field);
    report(status == QUIRE_OK && len2 == len && strcmp(buf, expected) == 0 && buf[len + 1] == 'Z',
           file, line, "field %d: a larger buffer: status %d", (int)field, status);
    memset(buf, 'Z', cap);
    status = call_astr(buf, cap, NULL, a, field);
    report(status == QUIRE_EINVAL && memcmp(buf, before, cap) == 0, file, line,
           "field %d: NULL out_len returned %d", (int)field, status);
    len2 = 777;
    status = call_astr(NULL, 5, &len2, a, field);
    report(status == QUIRE_EINVAL && len2 == 777, file, line,
           "field %d: NULL buf with buf_size 5 returned %d, *out_len %zu", (int)field, status,
           len2);
    free(buf);
    free(before);
    free(expected);
}
#define CHECK_ASTR_PROTOCOL(a, field) check_astr_protocol_at((a), (field), __FILE__, __LINE__)

/* ---- helpers: numbers, colours, points -------------------------------------------------- */

static void check_anum_at(const quire_annotation *a, quire_annot_number_field field,
                          double expected, const char *what, const char *file, int line) {
    double v = -12345.0;
    int status = quire_annotation_number(&v, a, field);
    report(status == QUIRE_OK && near(v, expected), file, line,
           "%s is %g (status %d %s), expected %g", what, v, status,
           status ? quire_last_error_message() : "", expected);
}
#define CHECK_ANUM(a, field, expected) \
    check_anum_at((a), (field), (expected), #field " of " #a, __FILE__, __LINE__)

/* The colour is exactly `n` components equal to `expected`, read through the length-query
 * pattern for numbers (as the point lists below): the NULL/0 query, a buffer one too small
 * (QUIRE_EBUFS, the count set, nothing written), exactly n, and 8 (the header: 4 always
 * suffices; nothing is written past n). */
static void check_color_at(const quire_annotation *a, quire_annot_color_field which, size_t n,
                           const double *expected, const char *what, const char *file, int line) {
    double c[8];
    size_t count = 9999, k;
    int status, ok;
    status = quire_annotation_color(NULL, 0, &count, a, which);
    report(status == QUIRE_OK && count == n, file, line,
           "%s: the count query returned %d (%s), count %zu, expected %zu", what, status,
           status ? quire_last_error_message() : "", count, n);
    if (status != QUIRE_OK) return;
    if (n > 0) {
        for (k = 0; k < 8; k++) c[k] = -9;
        count = 0;
        status = quire_annotation_color(c, n - 1, &count, a, which);
        ok = status == QUIRE_EBUFS && count == n;
        for (k = 0; ok && k < 8; k++) ok = c[k] == -9;
        report(ok, file, line, "%s: room for %zu of %zu components: status %d, count %zu%s", what,
               n - 1, n, status, count, ok ? "" : " (or the buffer was written)");
    }
    for (k = 0; k < 8; k++) c[k] = -9;
    count = 9999;
    status = quire_annotation_color(c, n, &count, a, which);
    ok = status == QUIRE_OK && count == n;
    for (k = 0; ok && k < n; k++) ok = near(c[k], expected[k]);
    for (k = n; ok && k < 8; k++) ok = c[k] == -9; /* nothing written past the count */
    report(ok, file, line, "%s: room for exactly %zu: status %d, count %zu, [%g %g %g %g]", what, n,
           status, count, c[0], c[1], c[2], c[3]);
    for (k = 0; k < 8; k++) c[k] = -9;
    count = 9999;
    status = quire_annotation_color(c, 8, &count, a, which);
    ok = status == QUIRE_OK && count == n;
    for (k = 0; ok && k < n; k++) ok = near(c[k], expected[k]);
    for (k = n; ok && k < 8; k++) ok = c[k] == -9;
    report(ok, file, line, "%s: room for 8: status %d, %zu components [%g %g %g %g], expected %zu",
           what, status, count, c[0], c[1], c[2], c[3], n);
}
#define CHECK_COLOR(a, which, n, ...)                                                \
    do {                                                                             \
        static const double e_[] = {__VA_ARGS__};                                    \
        check_color_at((a), (which), (n), e_, #which " of " #a, __FILE__, __LINE__); \
    } while (0)

/* kind: a QUIRE_ANNOT_* point list (quire_annot_points_field), or INK_STROKE(k) for ink
 * stroke k (past every constant family's range). */
#define INK_STROKE(k) (0x10000 + (k))

static int call_points(double *buf, size_t cap, size_t *count, const quire_annotation *a,
                       int32_t kind) {
    if (kind >= 0x10000) return quire_annotation_ink_stroke(buf, cap, count, a, kind - 0x10000);
    return quire_annotation_points(buf, cap, count, a, (quire_annot_points_field)kind);
}

/* The point list is exactly `n` numbers equal to `expected`, read through the length-query
 * pattern for numbers: the NULL/0 query, a buffer one too small (QUIRE_EBUFS, the count
 * set, nothing written), exactly n, and a larger one (nothing written past n). */
static void check_points_at(const quire_annotation *a, int32_t kind, size_t n,
                            const double *expected, const char *what, const char *file, int line) {
    double buf[80];
    size_t count = 9999, k;
    int status, ok;
    status = call_points(NULL, 0, &count, a, kind);
    report(status == QUIRE_OK && count == n, file, line,
           "%s: the count query returned %d (%s), count %zu, expected %zu", what, status,
           status ? quire_last_error_message() : "", count, n);
    if (status != QUIRE_OK || n + 8 > sizeof buf / sizeof buf[0]) return;
    if (n > 0) {
        for (k = 0; k < 80; k++) buf[k] = -777;
        count = 0;
        status = call_points(buf, n - 1, &count, a, kind);
        ok = status == QUIRE_EBUFS && count == n;
        for (k = 0; ok && k < 80; k++) ok = buf[k] == -777;
        report(ok, file, line, "%s: room for %zu of %zu numbers: status %d, count %zu%s", what,
               n - 1, n, status, count, ok ? "" : " (or the buffer was written)");
    }
    for (k = 0; k < 80; k++) buf[k] = -777;
    count = 9999;
    status = call_points(buf, n, &count, a, kind);
    ok = status == QUIRE_OK && count == n;
    for (k = 0; ok && k < n; k++) ok = near(buf[k], expected[k]);
    for (k = n; ok && k < 80; k++) ok = buf[k] == -777;
    report(ok, file, line, "%s: room for exactly %zu: status %d, count %zu, [%g %g %g %g ...]",
           what, n, status, count, buf[0], buf[1], buf[2], buf[3]);
    for (k = 0; k < 80; k++) buf[k] = -777;
    status = call_points(buf, n + 5, &count, a, kind);
    ok = status == QUIRE_OK && count == n;
    for (k = n; ok && k < 80; k++) ok = buf[k] == -777;
    report(ok, file, line, "%s: room for %zu more: status %d, count %zu", what, (size_t)5, status,
           count);
}
#define CHECK_POINTS(a, kind, n, ...)                                               \
    do {                                                                            \
        static const double e_[] = {__VA_ARGS__};                                   \
        check_points_at((a), (kind), (n), e_, #kind " of " #a, __FILE__, __LINE__); \
    } while (0)
#define CHECK_NO_POINTS(a, kind) \
    check_points_at((a), (kind), 0, NULL, #kind " of " #a, __FILE__, __LINE__)

/* ---- helpers: handles ------------------------------------------------------------------- */

static int32_t annot_id(const quire_annotation *a) {
    int32_t id = -1;
    if (!a) return -1;
    if (quire_annotation_id(&id, a) != QUIRE_OK) return -1;
    return id;
}

static int32_t annot_page(const quire_annotation *a) {
    int32_t p = -1;
    if (!a || quire_annotation_page_index(&p, a) != QUIRE_OK) return -1;
    return p;
}

static int32_t is_reply(const quire_annotation *a) {
    int32_t v = -1;
    if (!a || quire_annotation_is_reply(&v, a) != QUIRE_OK) return -1;
    return v;
}

static int32_t reply_target(const quire_annotation *a) {
    int32_t v = -1;
    if (!a || quire_annotation_in_reply_to(&v, a) != QUIRE_OK) return -1;
    return v;
}

static quire_annotation *page_annot_at(quire_document *doc, int32_t page, int32_t index,
                                       const char *file, int line) {
    quire_annotation *a = NULL;
    int status = quire_page_annotation(&a, doc, page, index);
    report(status == QUIRE_OK && a != NULL, file, line,
           "quire_page_annotation(page %d, %d) returned %d: %s", (int)page, (int)index, status,
           quire_last_error_message());
    return status == QUIRE_OK ? a : NULL;
}
#define page_annot(doc, page, index) page_annot_at((doc), (page), (index), __FILE__, __LINE__)

static quire_annotation *doc_annot_at(quire_document *doc, int32_t number, const char *file,
                                      int line) {
    quire_annotation *a = NULL;
    int status = quire_document_annotation(&a, doc, number);
    report(status == QUIRE_OK && a != NULL, file, line,
           "quire_document_annotation(%d) returned %d: %s", (int)number, status,
           quire_last_error_message());
    return status == QUIRE_OK ? a : NULL;
}
#define doc_annot(doc, number) doc_annot_at((doc), (number), __FILE__, __LINE__)

static int32_t page_count_of(quire_document *doc, int32_t page) {
    int32_t n = -1;
    if (quire_page_annotation_count(&n, doc, page) != QUIRE_OK) return -1;
    return n;
}

static int32_t list_count(const quire_annotation_list *list) {
    int32_t n = -1;
    if (!list || quire_annotation_list_count(&n, list) != QUIRE_OK) return -1;
    return n;
}

/* The object numbers of a list's annotations, as "n,n,n" (for one readable check). */
static const char *list_ids(const quire_annotation_list *list) {
    static char text[4][512];
    static int next;
    char *t = text[next++ % 4];
    int32_t n = list_count(list), k;
    size_t used = 0;
    t[0] = '\0';
    if (n < 0) return "(no list)";
    for (k = 0; k < n && used + 16 < sizeof text[0]; k++) {
        quire_annotation *a = NULL;
        int32_t id = -1;
        if (quire_annotation_list_get(&a, list, k) == QUIRE_OK) id = annot_id(a);
        quire_annotation_free(a);
        used += (size_t)snprintf(t + used, sizeof text[0] - used, "%s%d", k ? "," : "", (int)id);
    }
    return t;
}

/* The given string field of each annotation of a list, joined with '|'. */
static const char *list_fields(const quire_annotation_list *list, quire_annot_string_field field) {
    static char text[4][1024];
    static int next;
    char *t = text[next++ % 4];
    int32_t n = list_count(list), k;
    size_t used = 0;
    t[0] = '\0';
    if (n < 0) return "(no list)";
    for (k = 0; k < n && used + 64 < sizeof text[0]; k++) {
        quire_annotation *a = NULL;
        char buf[256] = "?";
        size_t len;
        if (quire_annotation_list_get(&a, list, k) == QUIRE_OK &&
            quire_annotation_string(buf, sizeof buf, &len, a, field) != QUIRE_OK)
            snprintf(buf, sizeof buf, "-");
        quire_annotation_free(a);
        used += (size_t)snprintf(t + used, sizeof text[0] - used, "%s%s", k ? "|" : "", buf);
    }
    return t;
}

/* Saves `doc` incrementally into memory through the callback and opens the bytes again. The
 * output must begin with `original` (the file's bytes before the changes). */
static quire_document *save_and_reopen_at(quire_document *doc, const unsigned char *original,
                                          size_t original_size, const char *file, int line) {
    struct byte_sink sink;
    quire_document *again = NULL;
    int status;
    memset(&sink, 0, sizeof sink);
    status = quire_document_save_to_callback(doc, NULL, sink_write, &sink);
    report(status == QUIRE_OK && sink.size > original_size, file, line,
           "save_to_callback returned %d (%zu bytes): %s", status, sink.size,
           quire_last_error_message());
    if (original)
        report(sink.size >= original_size && memcmp(sink.data, original, original_size) == 0, file,
               line, "the incremental save does not begin with the original bytes");
    if (status == QUIRE_OK) {
        status = quire_document_open_memory(&again, sink.data, sink.size, NULL);
        report(status == QUIRE_OK && again, file, line, "reopening the saved bytes returned %d: %s",
               status, quire_last_error_message());
    }
    sink_free(&sink);
    return status == QUIRE_OK ? again : NULL;
}
#define save_and_reopen(doc, original, size) \
    save_and_reopen_at((doc), (original), (size), __FILE__, __LINE__)

/* A new annotation, as a check. */
static quire_annotation *new_annot_at(const char *subtype, int32_t page, double l, double b,
                                      double r, double t, const char *file, int line) {
    quire_rect rect;
    quire_annotation *a = NULL;
    int status;
    rect.left = l;
    rect.bottom = b;
    rect.right = r;
    rect.top = t;
    status = quire_annotation_new(&a, subtype, page, &rect);
    report(status == QUIRE_OK && a, file, line, "quire_annotation_new(%s) returned %d: %s", subtype,
           status, quire_last_error_message());
    return status == QUIRE_OK ? a : NULL;
}
#define new_annot(subtype, page, l, b, r, t) \
    new_annot_at((subtype), (page), (l), (b), (r), (t), __FILE__, __LINE__)

/* Adds a reply, as a check; returns its object number (or -1). */
static int32_t reply_at(quire_document *doc, int32_t target, const char *author,
                        const char *contents, const char *file, int line) {
    quire_annotation *r = NULL;
    int32_t id;
    int status = quire_document_add_reply(&r, doc, target, author, contents);
    report(status == QUIRE_OK && r, file, line, "add_reply(%d, %s) returned %d: %s", (int)target,
           contents, status, quire_last_error_message());
    id = annot_id(r);
    quire_annotation_free(r);
    return id;
}
#define add_reply(doc, target, author, contents) \
    reply_at((doc), (target), (author), (contents), __FILE__, __LINE__)

static int32_t state_at(quire_document *doc, int32_t target, const char *author, const char *model,
                        const char *state, const char *file, int line) {
    quire_annotation *r = NULL;
    int32_t id;
    int status = quire_document_add_state_reply(&r, doc, target, author, model, state);
    report(status == QUIRE_OK && r, file, line, "add_state_reply(%d, %s, %s/%s) returned %d: %s",
           (int)target, author ? author : "NULL", model, state, status, quire_last_error_message());
    id = annot_id(r);
    quire_annotation_free(r);
    return id;
}
#define add_state(doc, target, author, model, state) \
    state_at((doc), (target), (author), (model), (state), __FILE__, __LINE__)

/* Sets the creation date of annotation `number` and writes it back (as a check). */
static void set_date_at(quire_document *doc, int32_t number, const char *date, const char *file,
                        int line) {
    quire_annotation *a = NULL;
    int status = quire_document_annotation(&a, doc, number);
    if (status == QUIRE_OK)
        status = quire_annotation_set_string(a, QUIRE_ANNOT_CREATION_DATE, date);
    if (status == QUIRE_OK) status = quire_document_update_annotation(doc, a);
    report(status == QUIRE_OK, file, line, "setting the creation date of %d to %s: %d: %s",
           (int)number, date, status, quire_last_error_message());
    quire_annotation_free(a);
}
#define set_date(doc, number, date) set_date_at((doc), (number), (date), __FILE__, __LINE__)

/* A UUID as Quire makes them (the header: "a UUID for new ones"): 8-4-4-4-12 hex digits. */
static int looks_like_uuid(const char *s) {
    static const int groups[5] = {8, 4, 4, 4, 12};
    int g, k;
    if (!s) return 0;
    for (g = 0; g < 5; g++) {
        for (k = 0; k < groups[g]; k++, s++)
            if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') || (*s >= 'A' && *s <= 'F')))
                return 0;
        if (g < 4 && *s++ != '-') return 0;
    }
    return *s == '\0';
}

/* A PDF date as the header writes it: D:YYYYMMDDHHmmSS then Z or +HH'mm' (or nothing). */
static int looks_like_pdf_date(const char *s) {
    int k;
    if (!s || strncmp(s, "D:", 2) != 0) return 0;
    for (k = 2; k < 16; k++)
        if (s[k] < '0' || s[k] > '9') return 0;
    return s[16] == '\0' || strcmp(s + 16, "Z") == 0 ||
           ((s[16] == '+' || s[16] == '-') && strlen(s) >= 22);
}

/* ---- reading: annots.pdf ------------------------------------------------------------------- */

static void test_read_annots_pdf(void) {
    /* pikepdf: page 1's /Annots [15 16 17 18 19 20 21 22 23], page 2's [15 16 26] (objects
     * 15 and 16 are on both pages); subtypes from pikepdf, and pypdfium2's FPDFAnnot_GetSubtype
     * agrees (2 Link, 9 Highlight, 16 Popup, 20 Widget, 5 Square). */
    static const int32_t ids0[9] = {15, 16, 17, 18, 19, 20, 21, 22, 23};
    static const char *const subtypes0[9] = {
        "Link", "Link", "Link", "Link", "Highlight", "Highlight", "Popup", "Highlight", "Widget"};
    quire_document *doc = open_corpus(ANNOTS_PDF, NULL);
    quire_annotation *a;
    int32_t k;
    quire_rect r;
    if (!doc) return;
    /* manifest: annots_per_page {"0": 9, "1": 3}. */
    CHECK_INT(page_count_of(doc, 0), 9);
    CHECK_INT(page_count_of(doc, 1), 3);
    for (k = 0; k < 9; k++) {
        a = page_annot(doc, 0, k);
        CHECK_INT(annot_id(a), ids0[k]);
        CHECK_INT(annot_page(a), 0);
        CHECK_SUBTYPE(a, subtypes0[k]);
        CHECK_INT(is_reply(a), 0);
        quire_annotation_free(a);
    }

    /* 15: /Link /Rect [69 633 542 653] /F 4 /BS << /W 0 >>, no /Contents, /T, /NM, /C, /CA
     * (pikepdf); pypdfium2 /T "" and /Contents "". */
    a = page_annot(doc, 0, 0);
    if (a) {
        CHECK_STATUS(quire_annotation_rect(&r, a), QUIRE_OK);
        CHECK_RECT(r, 69, 633, 542, 653);
        CHECK_ANUM(a, QUIRE_ANNOT_FLAGS, 4);
        CHECK_ANUM(a, QUIRE_ANNOT_BORDER_WIDTH, 0);
        CHECK_ANUM(a, QUIRE_ANNOT_OPACITY, 1); /* no /CA: ISO 32000-2 Table 170's default */
        CHECK_ASTR_MISSING(a, QUIRE_ANNOT_CONTENTS);
        CHECK_ASTR_MISSING(a, QUIRE_ANNOT_AUTHOR);
        CHECK_ASTR_MISSING(a, QUIRE_ANNOT_UNIQUE_NAME);
        CHECK_ASTR_MISSING(a, QUIRE_ANNOT_CREATION_DATE);
        CHECK_ASTR_MISSING(a, QUIRE_ANNOT_MODIFICATION_DATE);
        CHECK_ASTR_MISSING(a, QUIRE_ANNOT_STATE);
        CHECK_ASTR_MISSING(a, QUIRE_ANNOT_STATE_MODEL);
        CHECK_ASTR_MISSING(a, QUIRE_ANNOT_REPLY_TYPE);
        CHECK_ASTR_MISSING(a, QUIRE_ANNOT_CUSTOM_DATA);
        CHECK_COLOR(a, QUIRE_ANNOT_COLOR, 0, 0);
        CHECK_COLOR(a, QUIRE_ANNOT_INTERIOR_COLOR, 0, 0);
        CHECK_NO_POINTS(a, QUIRE_ANNOT_QUAD_POINTS);
        CHECK_NO_POINTS(a, QUIRE_ANNOT_LINE);
        CHECK_NO_POINTS(a, QUIRE_ANNOT_VERTICES);
        CHECK_STATUS(quire_annotation_ink_stroke_count(&k, a), QUIRE_OK);
        CHECK_INT(k, 0);
        CHECK_STATUS(quire_annotation_in_reply_to(&k, a), QUIRE_ENOTFOUND);
        {
            double v = 99;
            CHECK_STATUS(quire_annotation_number(&v, a, QUIRE_ANNOT_FONT_SIZE), QUIRE_ENOTFOUND);
            CHECK(v == 99);
        }
        quire_annotation_free(a);
    }
    /* 18: /Link with /QuadPoints [83 453 178 453 83 440 178 440] (pikepdf). */
    a = page_annot(doc, 0, 3);
    CHECK_POINTS(a, QUIRE_ANNOT_QUAD_POINTS, 8, 83, 453, 178, 453, 83, 440, 178, 440);
    quire_annotation_free(a);
    /* 19: /Highlight /NM (Highlight-1) /Rect [293 530 349 542] /C [1 0.90196 0]
     * /QuadPoints [293 542 349 542 293 530 349 530] /F 4 (pikepdf). */
    a = page_annot(doc, 0, 4);
    if (a) {
        CHECK_ASTR(a, QUIRE_ANNOT_UNIQUE_NAME, "Highlight-1");
        CHECK_ASTR_PROTOCOL(a, QUIRE_ANNOT_UNIQUE_NAME);
        CHECK_STATUS(quire_annotation_rect(&r, a), QUIRE_OK);
        CHECK_RECT(r, 293, 530, 349, 542);
        CHECK_COLOR(a, QUIRE_ANNOT_COLOR, 3, 1, 0.90196, 0);
        CHECK_POINTS(a, QUIRE_ANNOT_QUAD_POINTS, 8, 293, 542, 349, 542, 293, 530, 349, 530);
        quire_annotation_free(a);
    }
    /* 22: /Highlight /Contents (Text Note) /NM (Highlight-With-Popup-1) /Popup 21 0 R
     * /C [0.14902 0.90196 0] (pikepdf; pypdfium2 /Contents "Text Note"). By number too. */
    a = doc_annot(doc, 22);
    if (a) {
        CHECK_INT(annot_id(a), 22);
        CHECK_INT(annot_page(a), 0);
        CHECK_SUBTYPE(a, "Highlight");
        CHECK_ASTR(a, QUIRE_ANNOT_CONTENTS, "Text Note");
        CHECK_ASTR_PROTOCOL(a, QUIRE_ANNOT_CONTENTS);
        CHECK_ASTR(a, QUIRE_ANNOT_UNIQUE_NAME, "Highlight-With-Popup-1");
        CHECK_COLOR(a, QUIRE_ANNOT_COLOR, 3, 0.14902, 0.90196, 0);
        quire_annotation_free(a);
    }
    /* 23: /Widget /T (Combo1) /DA (0 0 0 rg /F1 12 Tf) (pikepdf; pypdfium2 /T "Combo1"): a
     * widget's /T is its form field's name, not an author, so the author is not set (the
     * header; issue 40: "Widget #23 by Combo1"); the font size is the Tf operand, 12. */
    a = page_annot(doc, 0, 8);
    if (a) {
        CHECK_ASTR_MISSING(a, QUIRE_ANNOT_AUTHOR);
        CHECK_ASTR(a, QUIRE_ANNOT_DEFAULT_APPEARANCE, "0 0 0 rg /F1 12 Tf");
        CHECK_ANUM(a, QUIRE_ANNOT_FONT_SIZE, 12);
        CHECK_ANUM(a, QUIRE_ANNOT_FLAGS, 0); /* no /F */
        CHECK_ASTR_PROTOCOL(a, SUBTYPE_FIELD);
        quire_annotation_free(a);
    }
    /* Page 2's 26: /Square /Rect [50 100 60 120] /C [1 0 0] /F 4 /Border [0 0 2] (pikepdf):
     * no /BS, so the border width is /Border's third element (the header: /BS /W). */
    a = page_annot(doc, 1, 2);
    if (a) {
        CHECK_INT(annot_id(a), 26);
        CHECK_INT(annot_page(a), 1);
        CHECK_SUBTYPE(a, "Square");
        CHECK_ANUM(a, QUIRE_ANNOT_BORDER_WIDTH, 2);
        CHECK_COLOR(a, QUIRE_ANNOT_COLOR, 3, 1, 0, 0);
        quire_annotation_free(a);
    }

    /* Not annotations: object 1 (pikepdf: the catalog), 0, negative, past the end. */
    a = NULL;
    CHECK_STATUS(quire_document_annotation(&a, doc, 1), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_annotation(&a, doc, 0), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_annotation(&a, doc, -1), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_annotation(&a, doc, 99999), QUIRE_ENOTFOUND);
    CHECK(a == NULL);
    /* Indices out of range: QUIRE_ERANGE (the header: page or index). */
    CHECK_STATUS(quire_page_annotation(&a, doc, 0, 9), QUIRE_ERANGE);
    CHECK_STATUS(quire_page_annotation(&a, doc, 0, -1), QUIRE_ERANGE);
    CHECK_STATUS(quire_page_annotation(&a, doc, 2, 0), QUIRE_ERANGE);
    CHECK_STATUS(quire_page_annotation(&a, doc, -1, 0), QUIRE_ERANGE);
    CHECK_STATUS(quire_page_annotation(&a, doc, INT32_MAX, 0), QUIRE_ERANGE);
    CHECK(a == NULL);

    /* An annotation is a snapshot owned by the caller: it outlives its document. */
    a = page_annot(doc, 0, 7);
    quire_document_close(doc);
    if (a) {
        CHECK_INT(annot_id(a), 22);
        CHECK_ASTR(a, QUIRE_ANNOT_CONTENTS, "Text Note");
        CHECK_POINTS(a, QUIRE_ANNOT_QUAD_POINTS, 8, 149, 487, 191, 487, 149, 476, 191, 476);
        quire_annotation_free(a);
    }
}

/* ---- reading: replies and states of real files ----------------------------------------------- */

static void test_read_caret_pdf(void) {
    quire_document *doc = open_corpus(CARET_PDF, NULL);
    quire_annotation *a;
    quire_annotation_list *list = NULL;
    int32_t k, replies = 0;
    if (!doc) return;
    /* manifest: 10 annotations, annots_irt_majority 1, annots_state_majority 0. pikepdf:
     * /Annots [26 27 28 29 30 31 32 33 34 35]; 26 is a /StrikeOut with /IRT 28 0 R and
     * /RT /Group, /T (Suyash Mahar), /Subj (Cross-Out), /CreationDate
     * (D:20240625182216-07'00'); 28 is a /Caret, /Contents (Google Chrome). pypdfium2: 26 has
     * a linked IRT annotation, subtypes 12 (StrikeOut) and 14 (Caret), the same /T and
     * /Contents. */
    CHECK_INT(page_count_of(doc, 0), 10);
    for (k = 0; k < 10; k++) {
        a = page_annot(doc, 0, k);
        CHECK_INT(annot_id(a), 26 + k);
        if (is_reply(a) == 1) replies++;
        quire_annotation_free(a);
    }
    CHECK_INT(replies, 1);
    a = doc_annot(doc, 26);
    if (a) {
        CHECK_SUBTYPE(a, "StrikeOut");
        CHECK_INT(is_reply(a), 1);
        CHECK_INT(reply_target(a), 28);
        CHECK_ASTR(a, QUIRE_ANNOT_REPLY_TYPE, "Group");
        CHECK_ASTR(a, QUIRE_ANNOT_AUTHOR, "Suyash Mahar");
        CHECK_ASTR(a, QUIRE_ANNOT_SUBJECT, "Cross-Out");
        CHECK_ASTR(a, QUIRE_ANNOT_UNIQUE_NAME, "925291f8-b845-49a8-8f4c-220806de6520");
        CHECK_ASTR(a, QUIRE_ANNOT_CREATION_DATE, "D:20240625182216-07'00'");
        CHECK_ASTR(a, QUIRE_ANNOT_MODIFICATION_DATE, "D:20240625182229-07'00'");
        CHECK_ASTR_MISSING(a, QUIRE_ANNOT_CONTENTS);
        CHECK_ASTR_MISSING(a, QUIRE_ANNOT_STATE);
        CHECK_COLOR(a, QUIRE_ANNOT_COLOR, 3, 0.0745087, 0.450974, 0.909805);
        CHECK_POINTS(a, QUIRE_ANNOT_QUAD_POINTS, 8, 251.456, 640.896, 373.491, 640.896, 251.456,
                     624.554, 373.491, 624.554);
        quire_annotation_free(a);
    }
    a = doc_annot(doc, 28);
    if (a) {
        CHECK_SUBTYPE(a, "Caret"); /* any subtype reads (the header) */
        CHECK_INT(is_reply(a), 0);
        CHECK_ASTR(a, QUIRE_ANNOT_CONTENTS, "Google Chrome");
        CHECK_ASTR(a, QUIRE_ANNOT_SUBJECT, "Inserted Text");
        quire_annotation_free(a);
    }
    /* 30: /Highlight /CA 0.399994 (pikepdf). */
    a = doc_annot(doc, 30);
    CHECK_ANUM(a, QUIRE_ANNOT_OPACITY, 0.399994);
    quire_annotation_free(a);

    /* The comments of 28: itself, then the annotation grouped with it, 26 (not a state
     * reply; the header's "every text reply below it"). No state replies. */
    CHECK_STATUS(quire_document_comments(&list, doc, 28), QUIRE_OK);
    CHECK_STR(list_ids(list), "28,26");
    quire_annotation_list_free(list);
    {
        quire_annotation_list *current = NULL, *history = NULL;
        CHECK_STATUS(quire_document_review_summary(&current, &history, doc, 28), QUIRE_OK);
        CHECK_INT(list_count(current), 0);
        CHECK_INT(list_count(history), 0);
        quire_annotation_list_free(current);
        quire_annotation_list_free(history);
    }

    /* Search, ignoring case, in page order (pypdfium2's /Contents: "Google Chrome",
     * "Test Comment" (30), "testing" (34)). */
    list = NULL;
    CHECK_STATUS(quire_document_search_annotations(&list, doc, "GOOGLE"), QUIRE_OK);
    CHECK_STR(list_ids(list), "28");
    quire_annotation_list_free(list);
    list = NULL;
    CHECK_STATUS(quire_document_search_annotations(&list, doc, "tEsT"), QUIRE_OK);
    CHECK_STR(list_ids(list), "30,34");
    CHECK_STR(list_fields(list, QUIRE_ANNOT_CONTENTS), "Test Comment|testing");
    quire_annotation_list_free(list);
    list = NULL;
    CHECK_STATUS(quire_document_search_annotations(&list, doc, "no such words"), QUIRE_OK);
    CHECK_INT(list_count(list), 0);
    quire_annotation_list_free(list);
    quire_document_close(doc);
}

static void test_read_states(void) {
    quire_document *doc;
    quire_annotation *a;
    quire_annotation_list *current = NULL, *history = NULL, *list = NULL;
    int32_t n, k, replies, states;

    /* iText's cmp_xfdfInReplyTo.pdf. manifest: 5 annotations, annots_irt_majority 1,
     * annots_state_majority 2. pikepdf: /Annots [28 29 30 31 40]; 40 is a /Text with
     * /IRT 30 0 R, /State (Marked) /StateModel (Marked), /RT /reply (not a name the
     * standard knows: R or Group), /T (Text), no /Contents; 28 has /State (Marked)
     * /StateModel (Marked) without /IRT, /T (Alex), /Contents (Marked set by Alex);
     * 30 is the /Highlight (Annotation 1). pypdfium2: /State "Marked" on 28 and 40, 40
     * links an IRT annotation. */
    doc = open_corpus(IN_REPLY_TO_PDF, NULL);
    if (doc) {
        CHECK_INT(page_count_of(doc, 0), 5);
        a = doc_annot(doc, 40);
        if (a) {
            CHECK_INT(is_reply(a), 1);
            CHECK_INT(reply_target(a), 30);
            CHECK_ASTR(a, QUIRE_ANNOT_STATE, "Marked");
            CHECK_ASTR(a, QUIRE_ANNOT_STATE_MODEL, "Marked");
            CHECK_ASTR(a, QUIRE_ANNOT_AUTHOR, "Text");
            CHECK_ASTR(a, QUIRE_ANNOT_ICON, "Paragraph");
            /* /RT /reply is no reply type of the standard: read as the default, R. */
            CHECK_ASTR(a, QUIRE_ANNOT_REPLY_TYPE, "R");
            CHECK_ASTR_MISSING(a, QUIRE_ANNOT_CONTENTS);
            quire_annotation_free(a);
        }
        a = doc_annot(doc, 28);
        if (a) {
            CHECK_INT(is_reply(a), 0);
            CHECK_ASTR(a, QUIRE_ANNOT_STATE, "Marked"); /* a state on a non-reply reads too */
            CHECK_ASTR(a, QUIRE_ANNOT_CONTENTS, "Marked set by Alex");
            CHECK_ASTR(a, QUIRE_ANNOT_ICON, "Comment");
            CHECK_ANUM(a, QUIRE_ANNOT_FLAGS, 30);
            quire_annotation_free(a);
        }
        /* The comments of 30: itself only (40 is a state reply). Its review: 40. */
        CHECK_STATUS(quire_document_comments(&list, doc, 30), QUIRE_OK);
        CHECK_STR(list_ids(list), "30");
        quire_annotation_list_free(list);
        list = NULL;
        CHECK_STATUS(quire_document_review_summary(&current, &history, doc, 30), QUIRE_OK);
        CHECK_STR(list_ids(current), "40");
        CHECK_STR(list_ids(history), "40");
        quire_annotation_list_free(current);
        quire_annotation_list_free(history);
        current = history = NULL;
        quire_document_close(doc);
    }

    /* iText's xfdfAnnotationArrow.pdf. manifest: 28 annotations, annots_irt_majority 6,
     * annots_state_majority 13 (pikepdf's state values: Marked:Marked 3, Review:Accepted 4,
     * Review:Completed 4, Review:None 2). pikepdf: 158 /IRT 154 (Completed, D:20190603160514),
     * 162 /IRT 158 (None, D:20190603160516), 144 /IRT 128 (Accepted); all by /T (Alex). */
    doc = open_corpus(ARROW_PDF, NULL);
    if (doc) {
        CHECK_STATUS(quire_page_annotation_count(&n, doc, 0), QUIRE_OK);
        CHECK_INT(n, 28);
        replies = states = 0;
        for (k = 0; k < n; k++) {
            size_t len;
            a = page_annot(doc, 0, k);
            if (is_reply(a) == 1) replies++;
            if (a && quire_annotation_string(NULL, 0, &len, a, QUIRE_ANNOT_STATE) == QUIRE_OK)
                states++;
            quire_annotation_free(a);
        }
        CHECK_INT(replies, 6);
        CHECK_INT(states, 13);
        /* 154's thread: 158 replies to it, 162 to 158 (nested): both state replies, oldest
         * first; Alex's latest is 162 (None). */
        CHECK_STATUS(quire_document_review_summary(&current, &history, doc, 154), QUIRE_OK);
        CHECK_STR(list_ids(history), "158,162");
        CHECK_STR(list_fields(history, QUIRE_ANNOT_STATE), "Completed|None");
        CHECK_STR(list_ids(current), "162");
        quire_annotation_list_free(current);
        quire_annotation_list_free(history);
        current = history = NULL;
        /* Either out-pointer may be NULL (the header). */
        CHECK_STATUS(quire_document_review_summary(NULL, &history, doc, 128), QUIRE_OK);
        CHECK_STR(list_ids(history), "144");
        quire_annotation_list_free(history);
        history = NULL;
        CHECK_STATUS(quire_document_review_summary(&current, NULL, doc, 128), QUIRE_OK);
        CHECK_STR(list_ids(current), "144");
        CHECK_STR(list_fields(current, QUIRE_ANNOT_AUTHOR), "Alex");
        quire_annotation_list_free(current);
        current = NULL;
        CHECK_STATUS(quire_document_review_summary(NULL, NULL, doc, 128), QUIRE_OK);
        CHECK_STATUS(quire_document_comments(&list, doc, 154), QUIRE_OK);
        CHECK_STR(list_ids(list), "154");
        quire_annotation_list_free(list);
        list = NULL;
        /* Search: "Completed set by Alex" on 154, 156, 158, 160 (pikepdf), any case. */
        CHECK_STATUS(quire_document_search_annotations(&list, doc, "completed SET"), QUIRE_OK);
        CHECK_STR(list_ids(list), "154,156,158,160");
        quire_annotation_list_free(list);
        quire_document_close(doc);
    }
}

/* ---- creating every creatable subtype --------------------------------------------------------- */

/* What the test sets on each of the 13 subtypes the header lists, and reads back after a
 * save and a reopen. */
struct created {
    const char *subtype;
    int32_t id;
    char name[64];
};

static const double QUADS[16] = {100, 700, 200, 700, 100, 680, 200, 680,
                                 100, 670, 150, 670, 100, 650, 150, 650};
static const double INK1[6] = {300, 300, 320.5, 340.25, 360, 310};
static const double INK2[2] = {400, 400};
static const double LINE[4] = {100, 100, 250, 175.5};
static const double VERTS[8] = {300, 100, 350, 200, 400, 100, 450, 150};

/* Sets the fields common to all, and the geometry of the subtype. */
static void fill_annotation(quire_annotation *a, const char *subtype, int index) {
    char text[128];
    static const double rgb[3] = {0.25, 0.5, 1};
    snprintf(text, sizeof text,
             "Contents of %s: Gr\xc3\xbc\xc3\x9f"
             "e \xe2\x9c\x93",
             subtype);
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_CONTENTS, text), QUIRE_OK);
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_AUTHOR, "Ada Lovelace"), QUIRE_OK);
    snprintf(text, sizeof text, "Subject %d", index);
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_SUBJECT, text), QUIRE_OK);
    CHECK_STATUS(
        quire_annotation_set_string(a, QUIRE_ANNOT_CREATION_DATE, "D:20240102030405+01'00'"),
        QUIRE_OK);
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_CUSTOM_DATA, "{\"k\": [1, \"x\"]}"),
                 QUIRE_OK);
    CHECK_STATUS(quire_annotation_set_color(a, QUIRE_ANNOT_COLOR, rgb, 3), QUIRE_OK);
    CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_OPACITY, 0.75), QUIRE_OK);
    CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_FLAGS, 4 + 16), QUIRE_OK);
    if (strcmp(subtype, "Text") == 0) {
        CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_ICON, "Help"), QUIRE_OK);
    } else if (strcmp(subtype, "FreeText") == 0) {
        CHECK_STATUS(
            quire_annotation_set_string(a, QUIRE_ANNOT_DEFAULT_APPEARANCE, "/Helv 14 Tf 0 0 1 rg"),
            QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_BORDER_WIDTH, 1.5), QUIRE_OK);
    } else if (strcmp(subtype, "Line") == 0) {
        static const double blue[3] = {0, 0, 1};
        CHECK_STATUS(quire_annotation_set_points(a, QUIRE_ANNOT_LINE, LINE, 4), QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_LINE_START, "OpenArrow"), QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_LINE_END, "ClosedArrow"), QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_color(a, QUIRE_ANNOT_INTERIOR_COLOR, blue, 3), QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_BORDER_WIDTH, 2), QUIRE_OK);
    } else if (strcmp(subtype, "Square") == 0) {
        static const double gray[1] = {0.5};
        CHECK_STATUS(quire_annotation_set_color(a, QUIRE_ANNOT_INTERIOR_COLOR, gray, 1), QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_BORDER_WIDTH, 3), QUIRE_OK);
    } else if (strcmp(subtype, "Circle") == 0) {
        static const double cmyk[4] = {0, 0.5, 0.25, 0.125};
        CHECK_STATUS(quire_annotation_set_color(a, QUIRE_ANNOT_INTERIOR_COLOR, cmyk, 4), QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_BORDER_WIDTH, 0), QUIRE_OK);
    } else if (strcmp(subtype, "Polygon") == 0) {
        CHECK_STATUS(quire_annotation_set_points(a, QUIRE_ANNOT_VERTICES, VERTS, 6), QUIRE_OK);
    } else if (strcmp(subtype, "PolyLine") == 0) {
        CHECK_STATUS(quire_annotation_set_points(a, QUIRE_ANNOT_VERTICES, VERTS, 8), QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_LINE_END, "Butt"), QUIRE_OK);
    } else if (strcmp(subtype, "Ink") == 0) {
        CHECK_STATUS(quire_annotation_add_ink_stroke(a, INK1, 6), QUIRE_OK);
        CHECK_STATUS(quire_annotation_add_ink_stroke(a, INK2, 2), QUIRE_OK);
    } else if (strcmp(subtype, "Stamp") == 0) {
        CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_ICON, "Approved"), QUIRE_OK);
    } else if (strcmp(subtype, "Highlight") == 0) {
        CHECK_STATUS(quire_annotation_set_points(a, QUIRE_ANNOT_QUAD_POINTS, QUADS, 16), QUIRE_OK);
    } else { /* Underline, Squiggly, StrikeOut */
        CHECK_STATUS(quire_annotation_set_points(a, QUIRE_ANNOT_QUAD_POINTS, QUADS, 8), QUIRE_OK);
    }
}

/* Reads back everything fill_annotation set (the "set above" values). */
static void check_filled(const quire_annotation *a, const char *subtype, int index, int32_t id,
                         const char *name) {
    char text[128];
    quire_rect r;
    int32_t n = -1;
    CHECK_INT(annot_id(a), id);
    CHECK_INT(annot_page(a), 1);
    CHECK_SUBTYPE(a, subtype);
    CHECK_STATUS(quire_annotation_rect(&r, a), QUIRE_OK);
    CHECK_RECT(r, 100 + index, 100, 400 + index, 700.5);
    snprintf(text, sizeof text,
             "Contents of %s: Gr\xc3\xbc\xc3\x9f"
             "e \xe2\x9c\x93",
             subtype);
    CHECK_ASTR(a, QUIRE_ANNOT_CONTENTS, text);
    CHECK_ASTR(a, QUIRE_ANNOT_AUTHOR, "Ada Lovelace");
    snprintf(text, sizeof text, "Subject %d", index);
    CHECK_ASTR(a, QUIRE_ANNOT_SUBJECT, text);
    CHECK_ASTR(a, QUIRE_ANNOT_UNIQUE_NAME, name);
    CHECK_ASTR(a, QUIRE_ANNOT_CREATION_DATE, "D:20240102030405+01'00'");
    CHECK_ASTR(a, QUIRE_ANNOT_CUSTOM_DATA, "{\"k\": [1, \"x\"]}");
    CHECK_ASTR_MISSING(a, QUIRE_ANNOT_STATE);
    CHECK_ASTR_MISSING(a, QUIRE_ANNOT_STATE_MODEL);
    CHECK_ASTR_MISSING(a, QUIRE_ANNOT_REPLY_TYPE);
    CHECK_INT(is_reply(a), 0);
    CHECK_COLOR(a, QUIRE_ANNOT_COLOR, 3, 0.25, 0.5, 1);
    CHECK_ANUM(a, QUIRE_ANNOT_OPACITY, 0.75);
    CHECK_ANUM(a, QUIRE_ANNOT_FLAGS, 20);
    {
        /* The modification date is set on add (the header), as a PDF date. */
        int status;
        char *m = astr_at(a, QUIRE_ANNOT_MODIFICATION_DATE, &status, __FILE__, __LINE__);
        report(looks_like_pdf_date(m), __FILE__, __LINE__, "%s: modification date \"%s\"", subtype,
               m ? m : "(none)");
        free(m);
    }
    if (strcmp(subtype, "Text") == 0) {
        CHECK_ASTR(a, QUIRE_ANNOT_ICON, "Help");
    } else if (strcmp(subtype, "FreeText") == 0) {
        CHECK_ASTR(a, QUIRE_ANNOT_DEFAULT_APPEARANCE, "/Helv 14 Tf 0 0 1 rg");
        CHECK_ANUM(a, QUIRE_ANNOT_FONT_SIZE, 14);
        CHECK_ANUM(a, QUIRE_ANNOT_BORDER_WIDTH, 1.5);
    } else if (strcmp(subtype, "Line") == 0) {
        CHECK_POINTS(a, QUIRE_ANNOT_LINE, 4, 100, 100, 250, 175.5);
        CHECK_ASTR(a, QUIRE_ANNOT_LINE_START, "OpenArrow");
        CHECK_ASTR(a, QUIRE_ANNOT_LINE_END, "ClosedArrow");
        CHECK_COLOR(a, QUIRE_ANNOT_INTERIOR_COLOR, 3, 0, 0, 1);
        CHECK_ANUM(a, QUIRE_ANNOT_BORDER_WIDTH, 2);
    } else if (strcmp(subtype, "Square") == 0) {
        CHECK_COLOR(a, QUIRE_ANNOT_INTERIOR_COLOR, 1, 0.5);
        CHECK_ANUM(a, QUIRE_ANNOT_BORDER_WIDTH, 3);
    } else if (strcmp(subtype, "Circle") == 0) {
        CHECK_COLOR(a, QUIRE_ANNOT_INTERIOR_COLOR, 4, 0, 0.5, 0.25, 0.125);
        CHECK_ANUM(a, QUIRE_ANNOT_BORDER_WIDTH, 0);
    } else if (strcmp(subtype, "Polygon") == 0) {
        CHECK_POINTS(a, QUIRE_ANNOT_VERTICES, 6, 300, 100, 350, 200, 400, 100);
    } else if (strcmp(subtype, "PolyLine") == 0) {
        CHECK_POINTS(a, QUIRE_ANNOT_VERTICES, 8, 300, 100, 350, 200, 400, 100, 450, 150);
        /* Only the second ending was set: the first reads as None (ISO 32000-2 Table 179's
         * default, which /LE must hold in its place). */
        CHECK_ASTR(a, QUIRE_ANNOT_LINE_START, "None");
        CHECK_ASTR(a, QUIRE_ANNOT_LINE_END, "Butt");
    } else if (strcmp(subtype, "Ink") == 0) {
        CHECK_STATUS(quire_annotation_ink_stroke_count(&n, a), QUIRE_OK);
        CHECK_INT(n, 2);
        CHECK_POINTS(a, INK_STROKE(0), 6, 300, 300, 320.5, 340.25, 360, 310);
        CHECK_POINTS(a, INK_STROKE(1), 2, 400, 400);
    } else if (strcmp(subtype, "Stamp") == 0) {
        CHECK_ASTR(a, QUIRE_ANNOT_ICON, "Approved");
    } else if (strcmp(subtype, "Highlight") == 0) {
        CHECK_POINTS(a, QUIRE_ANNOT_QUAD_POINTS, 16, 100, 700, 200, 700, 100, 680, 200, 680, 100,
                     670, 150, 670, 100, 650, 150, 650);
    } else {
        CHECK_POINTS(a, QUIRE_ANNOT_QUAD_POINTS, 8, 100, 700, 200, 700, 100, 680, 200, 680);
    }
    if (strcmp(subtype, "Ink") != 0) {
        CHECK_STATUS(quire_annotation_ink_stroke_count(&n, a), QUIRE_OK);
        CHECK_INT(n, 0);
    }
}

static void test_create_subtypes(void) {
    static const char *const subtypes[13] = {
        "Text",      "FreeText",  "Line",     "Square",    "Circle", "Polygon", "PolyLine",
        "Highlight", "Underline", "Squiggly", "StrikeOut", "Ink",    "Stamp"};
    struct created made[13];
    unsigned char *original;
    size_t size = 0;
    quire_document *doc = NULL, *again;
    int k;
    int32_t changed = -1;
    original = read_file(corpus(ANNOTS_PDF), &size);
    CHECK(original != NULL);
    if (!original) return;
    CHECK_STATUS(quire_document_open_memory(&doc, original, size, NULL), QUIRE_OK);
    if (!doc) {
        free(original);
        return;
    }
    memset(made, 0, sizeof made);
    for (k = 0; k < 13; k++) {
        quire_annotation *a = new_annot(subtypes[k], 1, 100 + k, 700.5, 400 + k, 100);
        int status = 0;
        char *name;
        made[k].subtype = subtypes[k];
        if (!a) continue;
        /* Not in a document yet: no id (the header). The rectangle is normalised. */
        CHECK_STATUS(quire_annotation_id(&made[k].id, a), QUIRE_ENOTFOUND);
        CHECK_INT(annot_page(a), 1);
        CHECK_SUBTYPE(a, subtypes[k]);
        fill_annotation(a, subtypes[k], k);
        CHECK_STATUS(quire_document_add_annotation(doc, a), QUIRE_OK);
        /* On success the annotation is what was stored: its id, a UUID /NM, the dates. */
        made[k].id = annot_id(a);
        report(made[k].id > 0, __FILE__, __LINE__, "%s: id %d after add", subtypes[k],
               (int)made[k].id);
        name = astr_at(a, QUIRE_ANNOT_UNIQUE_NAME, &status, __FILE__, __LINE__);
        report(looks_like_uuid(name), __FILE__, __LINE__, "%s: /NM \"%s\" is not a UUID",
               subtypes[k], name ? name : "(none)");
        if (name) snprintf(made[k].name, sizeof made[k].name, "%s", name);
        free(name);
        check_filled(a, subtypes[k], k, made[k].id, made[k].name);
        quire_annotation_free(a);
    }
    CHECK_STATUS(quire_document_has_unsaved_changes(&changed, doc), QUIRE_OK);
    CHECK_INT(changed, 1);
    /* Page 2 had 3 annotations (manifest); the 13 come after them, in order. */
    CHECK_INT(page_count_of(doc, 1), 16);
    CHECK_INT(page_count_of(doc, 0), 9);
    for (k = 0; k < 13 && k < 99; k++) {
        int l;
        for (l = 0; l < k; l++)
            report(strcmp(made[k].name, made[l].name) != 0 && made[k].id != made[l].id, __FILE__,
                   __LINE__, "%s and %s have the same /NM or id", made[k].subtype, made[l].subtype);
    }

    again = save_and_reopen(doc, original, size);
    quire_document_close(doc);
    if (again) {
        CHECK_INT(page_count_of(again, 1), 16);
        for (k = 0; k < 13; k++) {
            quire_annotation *a = page_annot(again, 1, 3 + k);
            quire_annotation *b = doc_annot(again, made[k].id);
            check_filled(a, made[k].subtype, k, made[k].id, made[k].name);
            check_filled(b, made[k].subtype, k, made[k].id, made[k].name);
            quire_annotation_free(a);
            quire_annotation_free(b);
        }
        /* The annotations that were there are unchanged (pikepdf: 26 is the Square). */
        {
            quire_annotation *a = page_annot(again, 1, 2);
            CHECK_INT(annot_id(a), 26);
            CHECK_SUBTYPE(a, "Square");
            quire_annotation_free(a);
        }
        quire_document_close(again);
    }
    free(original);
}

/* ---- update and delete -------------------------------------------------------------------- */

/* The type of indirect object `number` (QUIRE_VALUE_NULL when it was deleted). */
static quire_value_kind object_type(quire_document *doc, int32_t number) {
    quire_value *v = NULL;
    quire_value_kind t = (quire_value_kind)-1;
    if (quire_document_object(&v, doc, number) == QUIRE_OK) quire_value_get_kind(&t, v);
    quire_value_free(v);
    return t;
}

/* Whether the dictionary that is object `number` has `key`. */
static int object_has_key(quire_document *doc, int32_t number, const char *key) {
    quire_value *v = NULL, *e = NULL;
    int has = 0;
    if (quire_document_object(&v, doc, number) == QUIRE_OK &&
        quire_value_dict_get(&e, v, key) == QUIRE_OK)
        has = 1;
    quire_value_free(e);
    quire_value_free(v);
    return has;
}

static void test_update_and_delete(void) {
    unsigned char *original;
    size_t size = 0;
    quire_document *doc = NULL, *again;
    quire_annotation *a;
    quire_rect r;
    static const double green[3] = {0, 1, 0};
    int32_t id = -1;
    original = read_file(corpus(ANNOTS_PDF), &size);
    if (!original) return;
    CHECK_STATUS(quire_document_open_memory(&doc, original, size, NULL), QUIRE_OK);
    if (!doc) {
        free(original);
        return;
    }

    /* Update 22 (pikepdf: /Highlight /Contents (Text Note) /Popup 21 0 R, no /T, no /M):
     * new contents, author, colour and rectangle. Entries the model does not change stay
     * (the header): /Popup. */
    a = doc_annot(doc, 22);
    if (a) {
        char *m;
        int status;
        r.left = 140;
        r.bottom = 470;
        r.right = 200;
        r.top = 490;
        CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_CONTENTS, "Changed note"),
                     QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_AUTHOR, "Bob"), QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_color(a, QUIRE_ANNOT_COLOR, green, 3), QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_rect(a, &r), QUIRE_OK);
        /* A setter changes only the caller's copy: the document still has the old text. */
        {
            quire_annotation *b = doc_annot(doc, 22);
            CHECK_ASTR(b, QUIRE_ANNOT_CONTENTS, "Text Note");
            quire_annotation_free(b);
        }
        CHECK_STATUS(quire_document_update_annotation(doc, a), QUIRE_OK);
        m = astr_at(a, QUIRE_ANNOT_MODIFICATION_DATE, &status, __FILE__, __LINE__);
        report(looks_like_pdf_date(m), __FILE__, __LINE__,
               "after an update, the modification date is \"%s\"", m ? m : "(none)");
        free(m);
        CHECK_STATUS(quire_document_update_annotation(doc, a), QUIRE_OK); /* twice is fine */
        quire_annotation_free(a);
    }
    CHECK(object_has_key(doc, 22, "Popup"));
    CHECK_INT(page_count_of(doc, 0), 9);

    /* A new annotation, then a change to it. */
    a = new_annot("Square", 0, 10, 10, 50, 50);
    if (a) {
        CHECK_STATUS(quire_document_add_annotation(doc, a), QUIRE_OK);
        id = annot_id(a);
        CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_BORDER_WIDTH, 4.25), QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_CONTENTS, NULL), QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_SUBJECT, "Box"), QUIRE_OK);
        CHECK_STATUS(quire_document_update_annotation(doc, a), QUIRE_OK);
        quire_annotation_free(a);
    }
    CHECK_INT(page_count_of(doc, 0), 10);

    again = save_and_reopen(doc, original, size);
    quire_document_close(doc);
    doc = again;
    if (!doc) {
        free(original);
        return;
    }
    a = doc_annot(doc, 22);
    if (a) {
        CHECK_ASTR(a, QUIRE_ANNOT_CONTENTS, "Changed note");
        CHECK_ASTR(a, QUIRE_ANNOT_AUTHOR, "Bob");
        CHECK_ASTR(a, QUIRE_ANNOT_UNIQUE_NAME, "Highlight-With-Popup-1"); /* kept */
        CHECK_COLOR(a, QUIRE_ANNOT_COLOR, 3, 0, 1, 0);
        CHECK_STATUS(quire_annotation_rect(&r, a), QUIRE_OK);
        CHECK_RECT(r, 140, 470, 200, 490);
        CHECK_POINTS(a, QUIRE_ANNOT_QUAD_POINTS, 8, 149, 487, 191, 487, 149, 476, 191, 476);
        quire_annotation_free(a);
    }
    CHECK(object_has_key(doc, 22, "Popup"));
    a = doc_annot(doc, id);
    if (a) {
        CHECK_ANUM(a, QUIRE_ANNOT_BORDER_WIDTH, 4.25);
        CHECK_ASTR_MISSING(a, QUIRE_ANNOT_CONTENTS); /* cleared with NULL */
        CHECK_ASTR(a, QUIRE_ANNOT_SUBJECT, "Box");
        quire_annotation_free(a);
    }

    /* An entry the model cannot read is kept by an update that does not change it: 19's
     * /CreationDate set (with the value API) to a text string that is no PDF date. The
     * annotation reads without it (QUIRE_ENOTFOUND); a change of the contents only must not
     * delete it (the header: "other entries are kept"; the caller did not set that field). */
    {
        quire_value *v = parse_value("(last Monday)");
        CHECK_STATUS(quire_document_set_dict_value(doc, 19, "CreationDate", v), QUIRE_OK);
        quire_value_free(v);
        a = doc_annot(doc, 19);
        CHECK_ASTR_MISSING(a, QUIRE_ANNOT_CREATION_DATE);
        CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_CONTENTS, "only this changed"),
                     QUIRE_OK);
        CHECK_STATUS(quire_document_update_annotation(doc, a), QUIRE_OK);
        quire_annotation_free(a);
        report(object_has_key(doc, 19, "CreationDate"), __FILE__, __LINE__,
               "updating 19's contents deleted its /CreationDate (last Monday)");
    }

    /* Delete 22: it and its popup 21 leave page 1's /Annots and the document (the header). */
    CHECK_STATUS(quire_document_delete_annotation(doc, 22), QUIRE_OK);
    CHECK_INT(page_count_of(doc, 0), 8);
    CHECK_INT(object_type(doc, 22), QUIRE_VALUE_NULL);
    CHECK_INT(object_type(doc, 21), QUIRE_VALUE_NULL);
    a = NULL;
    CHECK_STATUS(quire_document_annotation(&a, doc, 22), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_annotation(&a, doc, 21), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_delete_annotation(doc, 22), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_delete_annotation(doc, id), QUIRE_OK);
    CHECK_INT(page_count_of(doc, 0), 7);
    /* Deleting what is not an annotation: the catalog (object 1), 0, -1 (the header). */
    CHECK_STATUS(quire_document_delete_annotation(doc, 1), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_delete_annotation(doc, 0), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_delete_annotation(doc, -1), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_delete_annotation(NULL, 19), QUIRE_EINVAL);

    /* The update of a deleted annotation: QUIRE_ENOTFOUND (the header: not in the
     * document); of one never added, too. */
    a = new_annot("Circle", 0, 1, 1, 2, 2);
    CHECK_STATUS(quire_document_update_annotation(doc, a), QUIRE_ENOTFOUND);
    quire_annotation_free(a);

    again = save_and_reopen(doc, NULL, 0);
    quire_document_close(doc);
    doc = again;
    if (doc) {
        /* pikepdf's order without 21 and 22: 15 16 17 18 19 20 23. */
        static const int32_t left[7] = {15, 16, 17, 18, 19, 20, 23};
        int32_t k;
        CHECK_INT(page_count_of(doc, 0), 7);
        for (k = 0; k < 7; k++) {
            a = page_annot(doc, 0, k);
            CHECK_INT(annot_id(a), left[k]);
            quire_annotation_free(a);
        }
        CHECK_INT(page_count_of(doc, 1), 3);
        quire_document_close(doc);
    }
    free(original);
}

/* Adding a copy of an annotation read from the document (the value API allows it: read,
 * then add). The header: add makes "a new object with a unique name (/NM)", and delete
 * removes "annotation `number` and its popup", which must not be another annotation's. */
static void test_add_copy(void) {
    quire_document *doc = open_corpus(ANNOTS_PDF, NULL);
    quire_annotation *a;
    int32_t copy19 = -1, copy22 = -1;
    if (!doc) return;
    /* 19 has /NM (Highlight-1); 22 has /NM (Highlight-With-Popup-1) and /Popup 21 0 R, and
     * 21 is in page 1's /Annots too (pikepdf). */
    a = doc_annot(doc, 19);
    if (a) {
        CHECK_STATUS(quire_document_add_annotation(doc, a), QUIRE_OK);
        copy19 = annot_id(a);
        CHECK(copy19 > 0 && copy19 != 19);
        /* A new object, with a name of its own. */
        {
            int status;
            char *name = astr_at(a, QUIRE_ANNOT_UNIQUE_NAME, &status, __FILE__, __LINE__);
            report(name && strcmp(name, "Highlight-1") != 0, __FILE__, __LINE__,
                   "the copy of 19 has /NM \"%s\", the name of 19: not unique",
                   name ? name : "(none)");
            free(name);
        }
        quire_annotation_free(a);
    }
    a = doc_annot(doc, 22);
    if (a) {
        CHECK_STATUS(quire_document_add_annotation(doc, a), QUIRE_OK);
        copy22 = annot_id(a);
        quire_annotation_free(a);
    }
    CHECK_INT(page_count_of(doc, 0), 11);
    /* Deleting the copy of 22 leaves 22 and its popup as they were. */
    CHECK_STATUS(quire_document_delete_annotation(doc, copy22), QUIRE_OK);
    CHECK_INT(page_count_of(doc, 0), 10);
    CHECK_INT(object_type(doc, 21), QUIRE_VALUE_DICTIONARY);
    CHECK_STATUS(quire_document_delete_annotation(doc, copy19), QUIRE_OK);
    a = doc_annot(doc, 19); /* the original is still there */
    CHECK_ASTR(a, QUIRE_ANNOT_UNIQUE_NAME, "Highlight-1");
    quire_annotation_free(a);
    quire_document_close(doc);
}

/* ---- replies, comments and review summaries ---------------------------------------------------- */

/* Adds a note (a Text annotation) on page `page`; returns its object number. */
static int32_t add_note(quire_document *doc, int32_t page, const char *author,
                        const char *contents) {
    quire_annotation *a = new_annot("Text", page, 100, 700, 120, 720);
    int32_t id = -1;
    if (!a) return -1;
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_AUTHOR, author), QUIRE_OK);
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_CONTENTS, contents), QUIRE_OK);
    CHECK_STATUS(quire_document_add_annotation(doc, a), QUIRE_OK);
    id = annot_id(a);
    quire_annotation_free(a);
    return id;
}

static void check_comments_at(quire_document *doc, int32_t number, const char *ids,
                              const char *file, int line) {
    quire_annotation_list *list = NULL;
    int status = quire_document_comments(&list, doc, number);
    const char *got = list_ids(list);
    report(status == QUIRE_OK && strcmp(got, ids) == 0, file, line,
           "comments of %d: status %d, [%s], expected [%s]", (int)number, status, got, ids);
    quire_annotation_list_free(list);
}
#define CHECK_COMMENTS(doc, number, ids) \
    check_comments_at((doc), (number), (ids), __FILE__, __LINE__)

static void check_review_at(quire_document *doc, int32_t number, const char *current_ids,
                            const char *history_ids, const char *file, int line) {
    quire_annotation_list *current = NULL, *history = NULL;
    int status = quire_document_review_summary(&current, &history, doc, number);
    const char *c = list_ids(current), *h = list_ids(history);
    report(status == QUIRE_OK && strcmp(c, current_ids) == 0 && strcmp(h, history_ids) == 0, file,
           line, "review of %d: status %d, current [%s] history [%s], expected [%s] [%s]",
           (int)number, status, c, h, current_ids, history_ids);
    quire_annotation_list_free(current);
    quire_annotation_list_free(history);
}
#define CHECK_REVIEW(doc, number, current, history) \
    check_review_at((doc), (number), (current), (history), __FILE__, __LINE__)

/* "n,n,n" from numbers. */
static const char *ids(int n, ...) {
    static char text[4][256];
    static int next;
    char *t = text[next++ % 4];
    size_t used = 0;
    va_list ap;
    int k;
    t[0] = '\0';
    va_start(ap, n);
    for (k = 0; k < n; k++)
        used += (size_t)snprintf(t + used, sizeof text[0] - used, "%s%d", k ? "," : "",
                                 va_arg(ap, int));
    va_end(ap);
    return t;
}

static void test_replies_and_threads(void) {
    unsigned char *original;
    size_t size = 0;
    quire_document *doc = NULL, *again;
    quire_annotation *a = NULL;
    int32_t note, r1, r2, r3, dee = -1, s_ada1, s_bob, s_ada2, s_cy;
    original = read_file(corpus(ANNOTS_PDF), &size);
    if (!original) return;
    CHECK_STATUS(quire_document_open_memory(&doc, original, size, NULL), QUIRE_OK);
    if (!doc) {
        free(original);
        return;
    }
    note = add_note(doc, 0, "Ada", "Please check this paragraph");
    r1 = add_reply(doc, note, "Bob", "Done: first reply");
    r2 = add_reply(doc, note, NULL, "Second reply, no author"); /* NULL author: none */
    r3 = add_reply(doc, r1, "Cy", "A nested reply");

    /* A text reply: a Text annotation on the same page, replying (/IRT) to its target,
     * /RT R (the header's "R" (reply)), its author and contents. */
    a = doc_annot(doc, r1);
    if (a) {
        CHECK_SUBTYPE(a, "Text");
        CHECK_INT(annot_page(a), 0);
        CHECK_INT(is_reply(a), 1);
        CHECK_INT(reply_target(a), note);
        CHECK_ASTR(a, QUIRE_ANNOT_REPLY_TYPE, "R");
        CHECK_ASTR(a, QUIRE_ANNOT_AUTHOR, "Bob");
        CHECK_ASTR(a, QUIRE_ANNOT_CONTENTS, "Done: first reply");
        CHECK_ASTR_MISSING(a, QUIRE_ANNOT_STATE);
        quire_annotation_free(a);
    }
    a = doc_annot(doc, r2);
    CHECK_ASTR_MISSING(a, QUIRE_ANNOT_AUTHOR);
    quire_annotation_free(a);
    a = doc_annot(doc, r3);
    CHECK_INT(reply_target(a), r1);
    quire_annotation_free(a);
    /* add_reply's out may be NULL (the header). */
    CHECK_STATUS(quire_document_add_reply(NULL, doc, r3, "Dee", "out is NULL"), QUIRE_OK);
    {
        /* That reply is the last annotation of page 1 (appended to /Annots). */
        int32_t n = page_count_of(doc, 0);
        a = page_annot(doc, 0, n - 1);
        CHECK_ASTR(a, QUIRE_ANNOT_CONTENTS, "out is NULL");
        CHECK_INT(reply_target(a), r3);
        dee = annot_id(a);
        quire_annotation_free(a);
    }

    /* Comments: the annotation, then every text reply below it by creation date. With
     * explicit dates (set above): r1 10:03, r2 10:01 (written as 11:01 at +01'00'), r3
     * 10:02, Dee's reply 10:04; the note itself comes first whatever its date. */
    set_date(doc, note, "D:20250101000000Z");
    set_date(doc, r1, "D:20240101100300Z");
    set_date(doc, r2, "D:20240101110100+01'00'");
    set_date(doc, r3, "D:20240101100200Z");
    set_date(doc, dee, "D:20240101100400Z");
    CHECK_COMMENTS(doc, note, ids(5, note, r2, r3, r1, dee));
    /* The comments of a reply: itself and its own replies (nested flattened). */
    CHECK_COMMENTS(doc, r1, ids(3, r1, r3, dee));
    /* Moving r2 later by an update reorders them. */
    set_date(doc, r2, "D:20240101100500Z");
    CHECK_COMMENTS(doc, note, ids(5, note, r3, r1, dee, r2));
    /* Ties keep the thread's order (r1 before its reply r3, stable). */
    set_date(doc, r3, "D:20240101100300Z");
    CHECK_COMMENTS(doc, note, ids(5, note, r1, r3, dee, r2));

    /* Review states from two authors: Ada Accepted, Bob Rejected, Ada Completed (dates set
     * above, in that order); Cy marks the nested reply r1. State replies are not comments. */
    s_ada1 = add_state(doc, note, "Ada", "Review", "Accepted");
    s_bob = add_state(doc, note, "Bob", "Review", "Rejected");
    s_ada2 = add_state(doc, note, "Ada", "Review", "Completed");
    s_cy = add_state(doc, r1, "Cy", "Marked", "Marked");
    set_date(doc, s_ada1, "D:20240102090000Z");
    set_date(doc, s_bob, "D:20240102091000Z");
    set_date(doc, s_ada2, "D:20240102092000Z");
    set_date(doc, s_cy, "D:20240102093000Z");
    a = doc_annot(doc, s_bob);
    if (a) {
        CHECK_INT(is_reply(a), 1);
        CHECK_INT(reply_target(a), note);
        CHECK_ASTR(a, QUIRE_ANNOT_STATE, "Rejected");
        CHECK_ASTR(a, QUIRE_ANNOT_STATE_MODEL, "Review");
        CHECK_ASTR(a, QUIRE_ANNOT_AUTHOR, "Bob");
        CHECK_ASTR(a, QUIRE_ANNOT_REPLY_TYPE, "R");
        quire_annotation_free(a);
    }
    CHECK_COMMENTS(doc, note, ids(5, note, r1, r3, dee, r2));
    /* Current: each author's latest, authors in order of first appearance (Ada, Bob, then
     * Cy, whose state reply is below r1, so below the note too); history: every state reply
     * below the note, oldest first. */
    CHECK_REVIEW(doc, note, ids(3, s_ada2, s_bob, s_cy), ids(4, s_ada1, s_bob, s_ada2, s_cy));
    CHECK_REVIEW(doc, r1, ids(1, s_cy), ids(1, s_cy));
    CHECK_REVIEW(doc, r2, "", "");
    /* Bob's state earlier than Ada's first: Bob now appears first. */
    set_date(doc, s_bob, "D:20240102080000Z");
    CHECK_REVIEW(doc, note, ids(3, s_bob, s_ada2, s_cy), ids(4, s_bob, s_ada1, s_ada2, s_cy));
    {
        quire_annotation_list *current = NULL;
        CHECK_STATUS(quire_document_review_summary(&current, NULL, doc, note), QUIRE_OK);
        CHECK_STR(list_fields(current, QUIRE_ANNOT_STATE), "Rejected|Completed|Marked");
        CHECK_STR(list_fields(current, QUIRE_ANNOT_AUTHOR), "Bob|Ada|Cy");
        quire_annotation_list_free(current);
    }

    /* Saved and reopened: the same threads (object numbers survive an incremental save). */
    again = save_and_reopen(doc, original, size);
    if (again) {
        CHECK_COMMENTS(again, note, ids(5, note, r1, r3, dee, r2));
        CHECK_REVIEW(again, note, ids(3, s_bob, s_ada2, s_cy), ids(4, s_bob, s_ada1, s_ada2, s_cy));
        a = doc_annot(again, s_ada2);
        CHECK_ASTR(a, QUIRE_ANNOT_STATE, "Completed");
        CHECK_ASTR(a, QUIRE_ANNOT_CREATION_DATE, "D:20240102092000Z");
        quire_annotation_free(a);
        quire_document_close(again);
    }

    /* The items of a list stay valid after the list is freed (the header). */
    {
        quire_annotation_list *list = NULL;
        CHECK_STATUS(quire_document_comments(&list, doc, note), QUIRE_OK);
        a = NULL;
        CHECK_STATUS(quire_annotation_list_get(&a, list, 0), QUIRE_OK);
        quire_annotation_list_free(list);
        CHECK_INT(annot_id(a), note);
        CHECK_ASTR(a, QUIRE_ANNOT_CONTENTS, "Please check this paragraph");
        quire_annotation_free(a);
    }

    /* Deleting the note: its replies' /IRT now names a free object, which reads as null
     * (as qpdf and MuPDF read it), but they stay replies to its id (links are ids: issue
     * 30): is_reply is 1, and in_reply_to has no object to give. */
    CHECK_STATUS(quire_document_delete_annotation(doc, note), QUIRE_OK);
    a = doc_annot(doc, r1);
    CHECK_INT(is_reply(a), 1);
    {
        int32_t target = 0;
        char id[64];
        CHECK_STATUS(quire_annotation_in_reply_to(&target, a), QUIRE_ENOTFOUND);
        CHECK(strstr(quire_last_error_message(), "not in the document") != NULL);
        /* The parent's id (its /NM, or its object number when it had none). */
        CHECK_STATUS(quire_annotation_string(id, sizeof id, NULL, a, QUIRE_ANNOT_IN_REPLY_TO_ID),
                     QUIRE_EINVAL);
        {
            size_t n = 0;
            CHECK_STATUS(quire_annotation_string(id, sizeof id, &n, a, QUIRE_ANNOT_IN_REPLY_TO_ID),
                         QUIRE_OK);
            CHECK(n > 0);
        }
        CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_IN_REPLY_TO_ID, "x"), QUIRE_EINVAL);
    }
    quire_annotation_free(a);
    a = doc_annot(doc, r3);
    CHECK_INT(reply_target(a), r1); /* r3 still replies to r1 */
    quire_annotation_free(a);
    quire_document_close(doc);
    free(original);
}

/* ---- set_in_reply_to ---------------------------------------------------------------------------- */

static void test_set_in_reply_to(void) {
    quire_document *doc = open_corpus(ANNOTS_PDF, NULL);
    quire_annotation *a;
    int32_t state;
    if (!doc) return;
    /* pikepdf: 19, 20 and 22 are Highlights on page 1; 26 is the Square on page 2. */
    /* Another page: QUIRE_EINVAL (the header). */
    CHECK_STATUS(quire_document_set_in_reply_to(doc, 19, 26), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_set_in_reply_to(doc, 26, 19), QUIRE_EINVAL);
    /* Itself: a cycle. */
    CHECK_STATUS(quire_document_set_in_reply_to(doc, 19, 19), QUIRE_EINVAL);
    /* 19 replies to 20; then 20 to 19 would be a cycle; 22 to 19, then 20 to 22: a cycle of
     * three. */
    CHECK_STATUS(quire_document_set_in_reply_to(doc, 19, 20), QUIRE_OK);
    a = doc_annot(doc, 19);
    CHECK_INT(is_reply(a), 1);
    CHECK_INT(reply_target(a), 20);
    quire_annotation_free(a);
    CHECK_STATUS(quire_document_set_in_reply_to(doc, 20, 19), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_set_in_reply_to(doc, 22, 19), QUIRE_OK);
    CHECK_STATUS(quire_document_set_in_reply_to(doc, 20, 22), QUIRE_EINVAL);
    a = doc_annot(doc, 20);
    CHECK_INT(is_reply(a), 0); /* the failed calls changed nothing */
    quire_annotation_free(a);
    CHECK_COMMENTS(doc, 20, "20,19,22");
    /* Re-targeting: 22 to 20 directly. */
    CHECK_STATUS(quire_document_set_in_reply_to(doc, 22, 20), QUIRE_OK);
    a = doc_annot(doc, 22);
    CHECK_INT(reply_target(a), 20);
    quire_annotation_free(a);
    /* Targets and numbers that are not annotations: QUIRE_ENOTFOUND. */
    CHECK_STATUS(quire_document_set_in_reply_to(doc, 19, 99999), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_set_in_reply_to(doc, 19, 1), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_set_in_reply_to(doc, 19, 0), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_set_in_reply_to(doc, 19, -2), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_set_in_reply_to(doc, 99999, 19), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_set_in_reply_to(doc, -1, 19), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_set_in_reply_to(NULL, 19, 20), QUIRE_EINVAL);
    /* -1: no longer a reply, and the state cleared with it (the header). */
    state = add_state(doc, 20, "Ada", "Review", "Accepted");
    CHECK_STATUS(quire_document_set_in_reply_to(doc, state, -1), QUIRE_OK);
    a = doc_annot(doc, state);
    if (a) {
        CHECK_INT(is_reply(a), 0);
        CHECK_STATUS(quire_annotation_in_reply_to(&state, a), QUIRE_ENOTFOUND);
        CHECK_ASTR_MISSING(a, QUIRE_ANNOT_STATE);
        CHECK_ASTR_MISSING(a, QUIRE_ANNOT_STATE_MODEL);
        CHECK_ASTR_MISSING(a, QUIRE_ANNOT_REPLY_TYPE);
        quire_annotation_free(a);
    }
    CHECK_STATUS(quire_document_set_in_reply_to(doc, 19, -1), QUIRE_OK);
    CHECK_STATUS(quire_document_set_in_reply_to(doc, 19, -1), QUIRE_OK); /* already none */
    a = doc_annot(doc, 19);
    CHECK_INT(is_reply(a), 0);
    quire_annotation_free(a);
    CHECK_COMMENTS(doc, 20, "20,22");
    /* Saved and reopened. */
    {
        quire_document *again = save_and_reopen(doc, NULL, 0);
        if (again) {
            a = doc_annot(again, 22);
            CHECK_INT(reply_target(a), 20);
            quire_annotation_free(a);
            a = doc_annot(again, 19);
            CHECK_INT(is_reply(a), 0);
            quire_annotation_free(a);
            quire_document_close(again);
        }
    }
    quire_document_close(doc);
}

/* ---- states and their models ---------------------------------------------------------------------- */

static void test_state_rules(void) {
    static const char *const review[5] = {"Accepted", "Rejected", "Cancelled", "Completed", "None"};
    static const char *const marked[2] = {"Marked", "Unmarked"};
    quire_document *doc = open_corpus(ANNOTS_PDF, NULL);
    quire_annotation *a, *r;
    int32_t note, reply, k, out = -1, states[7];
    if (!doc) return;
    note = add_note(doc, 0, "Ada", "A note to review");
    /* Every state of both models (the header: Marked: Marked, Unmarked; Review: Accepted,
     * Rejected, Cancelled, Completed, None). */
    for (k = 0; k < 5; k++)
        CHECK((states[k] = add_state(doc, note, "Ada", "Review", review[k])) > 0);
    for (k = 0; k < 2; k++)
        CHECK((states[5 + k] = add_state(doc, note, "Ada", "Marked", marked[k])) > 0);
    /* A state of another model, an unknown model, case, empty and NULL: QUIRE_EINVAL. */
    r = NULL;
    CHECK_STATUS(quire_document_add_state_reply(&r, doc, note, "Ada", "Marked", "Accepted"),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_document_add_state_reply(&r, doc, note, "Ada", "Review", "Marked"),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_document_add_state_reply(&r, doc, note, "Ada", "review", "Accepted"),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_document_add_state_reply(&r, doc, note, "Ada", "Review", "accepted"),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_document_add_state_reply(&r, doc, note, "Ada", "Other", "Accepted"),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_document_add_state_reply(&r, doc, note, "Ada", "", ""), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_add_state_reply(&r, doc, note, "Ada", NULL, "Accepted"),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_document_add_state_reply(&r, doc, note, "Ada", "Review", NULL),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_document_add_state_reply(&r, doc, 99999, "Ada", "Review", "Accepted"),
                 QUIRE_ENOTFOUND);
    CHECK(r == NULL);

    /* A state without its model, or a model without a state, on add: QUIRE_EINVAL. */
    a = new_annot("Text", 0, 1, 1, 20, 20);
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_STATE, "Accepted"), QUIRE_OK);
    CHECK_STATUS(quire_document_add_annotation(doc, a), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_id(&out, a), QUIRE_ENOTFOUND); /* not added */
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_STATE, NULL), QUIRE_OK);
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_STATE_MODEL, "Review"), QUIRE_OK);
    CHECK_STATUS(quire_document_add_annotation(doc, a), QUIRE_EINVAL);
    /* A Review state with the Marked model: QUIRE_EINVAL. */
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_STATE_MODEL, "Marked"), QUIRE_OK);
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_STATE, "Accepted"), QUIRE_OK);
    CHECK_STATUS(quire_document_add_annotation(doc, a), QUIRE_EINVAL);
    /* The setters take any text: the pair is checked when written (the header). */
    CHECK_ASTR(a, QUIRE_ANNOT_STATE, "Accepted");
    CHECK_ASTR(a, QUIRE_ANNOT_STATE_MODEL, "Marked");
    /* Clearing both: it adds. */
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_STATE, NULL), QUIRE_OK);
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_STATE_MODEL, NULL), QUIRE_OK);
    CHECK_STATUS(quire_document_add_annotation(doc, a), QUIRE_OK);
    quire_annotation_free(a);

    /* On update, of a text reply: the same rules. */
    reply = add_reply(doc, note, "Bob", "a text reply");
    r = doc_annot(doc, reply);
    if (r) {
        CHECK_STATUS(quire_annotation_set_string(r, QUIRE_ANNOT_STATE, "Accepted"), QUIRE_OK);
        CHECK_STATUS(quire_document_update_annotation(doc, r), QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_string(r, QUIRE_ANNOT_STATE_MODEL, "Marked"), QUIRE_OK);
        CHECK_STATUS(quire_document_update_annotation(doc, r), QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_string(r, QUIRE_ANNOT_STATE, NULL), QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_string(r, QUIRE_ANNOT_STATE_MODEL, "Review"), QUIRE_OK);
        CHECK_STATUS(quire_document_update_annotation(doc, r), QUIRE_EINVAL);
        /* The document kept the reply as it was. */
        a = doc_annot(doc, reply);
        CHECK_ASTR_MISSING(a, QUIRE_ANNOT_STATE);
        CHECK_ASTR_MISSING(a, QUIRE_ANNOT_STATE_MODEL);
        quire_annotation_free(a);
        /* A valid pair turns the text reply into a state reply: it leaves the comments and
         * enters the review summary. */
        CHECK_STATUS(quire_annotation_set_string(r, QUIRE_ANNOT_STATE, "Rejected"), QUIRE_OK);
        CHECK_STATUS(quire_document_update_annotation(doc, r), QUIRE_OK);
        CHECK_ASTR(r, QUIRE_ANNOT_STATE, "Rejected");
        quire_annotation_free(r);
    }
    CHECK_COMMENTS(doc, note, ids(1, note));
    {
        quire_annotation_list *current = NULL, *history = NULL;
        CHECK_STATUS(quire_document_review_summary(&current, &history, doc, note), QUIRE_OK);
        /* Ada's seven (added first: by date, or on ties in thread order), then Bob's; Ada's
         * latest is the last she added, Unmarked. */
        CHECK_INT(list_count(history), 8);
        CHECK_STR(list_ids(current), ids(2, states[6], reply));
        CHECK_STR(list_fields(current, QUIRE_ANNOT_STATE), "Unmarked|Rejected");
        quire_annotation_list_free(current);
        quire_annotation_list_free(history);
    }
    quire_document_close(doc);
}

/* ---- the replies switch ------------------------------------------------------------------------- */

static void test_replies_switch(void) {
    quire_document *doc = open_corpus(ANNOTS_PDF, NULL);
    quire_annotation *a, *out = NULL;
    quire_annotation_list *list = NULL;
    int32_t note, reply, state, enabled = -1, copy_id = -1;
    if (!doc) return;
    note = add_note(doc, 0, "Ada", "switch note");
    reply = add_reply(doc, note, "Bob", "before the switch");
    state = add_state(doc, note, "Bob", "Review", "Accepted");
    /* On by default (the header). */
    CHECK_STATUS(quire_document_replies_enabled(&enabled, doc), QUIRE_OK);
    CHECK_INT(enabled, 1);
    CHECK_STATUS(quire_document_set_replies_enabled(doc, 0), QUIRE_OK);
    CHECK_STATUS(quire_document_replies_enabled(&enabled, doc), QUIRE_OK);
    CHECK_INT(enabled, 0);

    /* Off: the calls that create or change replies and states give QUIRE_EDISABLED. */
    CHECK_STATUS(quire_document_add_reply(&out, doc, note, "Cy", "refused"), QUIRE_EDISABLED);
    CHECK_STATUS(quire_document_add_state_reply(&out, doc, note, "Cy", "Review", "Rejected"),
                 QUIRE_EDISABLED);
    CHECK(out == NULL);
    CHECK_STATUS(quire_document_set_in_reply_to(doc, 19, note), QUIRE_EDISABLED);
    CHECK_STATUS(quire_document_set_in_reply_to(doc, reply, -1), QUIRE_EDISABLED);
    a = doc_annot(doc, state);
    if (a) {
        /* A change of the state: refused. */
        CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_STATE, "Completed"), QUIRE_OK);
        CHECK_STATUS(quire_document_update_annotation(doc, a), QUIRE_EDISABLED);
        quire_annotation_free(a);
    }
    a = doc_annot(doc, reply);
    if (a) {
        /* A change of the reply type: refused; a change of the text of a reply: allowed. */
        CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_REPLY_TYPE, "Group"), QUIRE_OK);
        CHECK_STATUS(quire_document_update_annotation(doc, a), QUIRE_EDISABLED);
        CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_REPLY_TYPE, "R"), QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_CONTENTS, "edited while off"),
                     QUIRE_OK);
        CHECK_STATUS(quire_document_update_annotation(doc, a), QUIRE_OK);
        /* Adding a copy of a reply creates a reply: refused. */
        CHECK_STATUS(quire_document_add_annotation(doc, a), QUIRE_EDISABLED);
        quire_annotation_free(a);
    }
    /* Annotations that are not replies still add. */
    a = new_annot("Square", 0, 5, 5, 15, 15);
    CHECK_STATUS(quire_document_add_annotation(doc, a), QUIRE_OK);
    quire_annotation_free(a);
    /* Reading works: is_reply, in_reply_to, comments, review summary, search. */
    a = doc_annot(doc, reply);
    CHECK_INT(is_reply(a), 1);
    CHECK_INT(reply_target(a), note);
    CHECK_ASTR(a, QUIRE_ANNOT_CONTENTS, "edited while off");
    quire_annotation_free(a);
    CHECK_COMMENTS(doc, note, ids(2, note, reply));
    CHECK_REVIEW(doc, note, ids(1, state), ids(1, state));
    CHECK_STATUS(quire_document_search_annotations(&list, doc, "WHILE OFF"), QUIRE_OK);
    CHECK_STR(list_ids(list), ids(1, reply));
    quire_annotation_list_free(list);
    list = NULL;
    a = doc_annot(doc, state);
    CHECK_ASTR(a, QUIRE_ANNOT_STATE, "Accepted"); /* the refused update changed nothing */
    quire_annotation_free(a);

    /* On again: the same calls work. Any non-zero value is on. */
    CHECK_STATUS(quire_document_set_replies_enabled(doc, 1), QUIRE_OK);
    CHECK_STATUS(quire_document_replies_enabled(&enabled, doc), QUIRE_OK);
    CHECK_INT(enabled, 1);
    CHECK(add_reply(doc, note, "Cy", "after the switch") > 0);
    a = doc_annot(doc, reply);
    if (a) {
        CHECK_STATUS(quire_document_add_annotation(doc, a), QUIRE_OK); /* a copy of a reply */
        copy_id = annot_id(a);
        CHECK(copy_id > 0 && copy_id != reply);
        CHECK_INT(reply_target(a), note);
        quire_annotation_free(a);
    }
    CHECK_STATUS(quire_document_set_in_reply_to(doc, reply, -1), QUIRE_OK);

    /* The switch belongs to the open document: a reopened one is on. */
    {
        quire_document *again;
        CHECK_STATUS(quire_document_set_replies_enabled(doc, 0), QUIRE_OK);
        again = save_and_reopen(doc, NULL, 0);
        if (again) {
            CHECK_STATUS(quire_document_replies_enabled(&enabled, again), QUIRE_OK);
            CHECK_INT(enabled, 1);
            quire_document_close(again);
        }
    }
    CHECK_STATUS(quire_document_set_replies_enabled(NULL, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_replies_enabled(NULL, doc), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_replies_enabled(&enabled, NULL), QUIRE_EINVAL);
    quire_document_close(doc);
}

/* ---- search ------------------------------------------------------------------------------------ */

static void test_search(void) {
    quire_document *doc = open_corpus(ANNOTS_PDF, NULL);
    quire_annotation_list *list = NULL;
    quire_annotation *a;
    int32_t first, second, reply;
    if (!doc) return;
    /* One note on page 2, then one on page 1: results come in page order. Case is ignored
     * beyond ASCII (U+00DC/U+00FC, U+00C9/U+00E9). */
    second = add_note(doc, 1, "Bob",
                      "Second page: \xc3\x9c"
                      "BER caf\xc3\x89 needle");
    first = add_note(doc, 0, "Ada",
                     "First page: \xc3\xbc"
                     "ber Caf\xc3\xa9 NEEDLE");
    reply = add_reply(doc, first, "Cy", "a reply with a needle in it");
    CHECK_STATUS(quire_document_search_annotations(&list, doc, "needle"), QUIRE_OK);
    CHECK_STR(list_ids(list), ids(3, first, reply, second));
    quire_annotation_list_free(list);
    list = NULL;
    CHECK_STATUS(quire_document_search_annotations(&list, doc,
                                                   "\xc3\x9c"
                                                   "ber"),
                 QUIRE_OK);
    CHECK_STR(list_ids(list), ids(2, first, second));
    quire_annotation_list_free(list);
    list = NULL;
    CHECK_STATUS(quire_document_search_annotations(&list, doc, "CAF\xc3\x89"), QUIRE_OK);
    CHECK_STR(list_ids(list), ids(2, first, second));
    quire_annotation_list_free(list);
    list = NULL;
    /* annots.pdf's own: only 22 has /Contents, "Text Note" (pikepdf, pypdfium2). */
    CHECK_STATUS(quire_document_search_annotations(&list, doc, "text note"), QUIRE_OK);
    CHECK_STR(list_ids(list), "22");
    if (list) {
        CHECK_STATUS(quire_annotation_list_get(&a, list, 0), QUIRE_OK);
        CHECK_INT(annot_page(a), 0);
        quire_annotation_free(a);
        a = NULL;
        CHECK_STATUS(quire_annotation_list_get(&a, list, 1), QUIRE_ERANGE);
        CHECK_STATUS(quire_annotation_list_get(&a, list, -1), QUIRE_ERANGE);
        CHECK(a == NULL);
    }
    quire_annotation_list_free(list);
    list = NULL;
    /* Nothing matches: an empty list, not an error. */
    CHECK_STATUS(quire_document_search_annotations(&list, doc, "zzzz"), QUIRE_OK);
    CHECK_INT(list_count(list), 0);
    quire_annotation_list_free(list);
    list = NULL;
    CHECK_STATUS(quire_document_search_annotations(NULL, doc, "x"), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_search_annotations(&list, NULL, "x"), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_search_annotations(&list, doc, NULL), QUIRE_EINVAL);
    CHECK(list == NULL);
    quire_document_close(doc);
}

/* ---- error paths ------------------------------------------------------------------------------ */

static void test_errors(void) {
    quire_document *doc = open_corpus(ANNOTS_PDF, NULL);
    quire_annotation *a = NULL, *sentinel = (quire_annotation *)&a, *out;
    quire_annotation_list *list = NULL, *lsentinel = (quire_annotation_list *)&list, *lout;
    quire_rect r = {0, 0, 10, 10}, rout;
    double d = 7, nums[16], c4[4] = {-9, -9, -9, -9};
    static const double finite[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    double with_nan[4] = {1, 2, 3, 4}, with_inf[4] = {1, 2, 3, 4};
    char buf[32];
    size_t len = 99, count = 99;
    int32_t v = -5, w = -5;
    if (!doc) return;
    with_nan[1] = NAN;
    with_inf[3] = -INFINITY;

    /* quire_annotation_new: NULL out, subtype or rect; a negative page; a rect that is not
     * finite (QUIRE_EINVAL; out untouched). */
    out = sentinel;
    CHECK_STATUS(quire_annotation_new(NULL, "Text", 0, &r), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_new(&out, NULL, 0, &r), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_new(&out, "Text", 0, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_new(&out, "Text", -1, &r), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_new(&out, "Text", INT32_MIN, &r), QUIRE_EINVAL);
    r.left = NAN;
    CHECK_STATUS(quire_annotation_new(&out, "Text", 0, &r), QUIRE_EINVAL);
    r.left = 0;
    r.top = INFINITY;
    CHECK_STATUS(quire_annotation_new(&out, "Text", 0, &r), QUIRE_EINVAL);
    r.top = 10;
    CHECK(out == sentinel);

    /* Adding: a page out of range (QUIRE_ERANGE), a subtype Quire does not create
     * (QUIRE_EUNSUPPORTED), NULL arguments (QUIRE_EINVAL). */
    a = new_annot("Square", 2, 0, 0, 10, 10);
    CHECK_STATUS(quire_document_add_annotation(doc, a), QUIRE_ERANGE);
    quire_annotation_free(a);
    a = new_annot("Link", 0, 0, 0, 10, 10);
    CHECK_STATUS(quire_document_add_annotation(doc, a), QUIRE_EUNSUPPORTED);
    quire_annotation_free(a);
    a = new_annot("Popup", 0, 0, 0, 10, 10);
    CHECK_STATUS(quire_document_add_annotation(doc, a), QUIRE_EUNSUPPORTED);
    quire_annotation_free(a);
    a = new_annot("text", 0, 0, 0, 10, 10); /* names are case-sensitive */
    CHECK_STATUS(quire_document_add_annotation(doc, a), QUIRE_EUNSUPPORTED);
    CHECK_STATUS(quire_document_add_annotation(NULL, a), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_add_annotation(doc, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_update_annotation(NULL, a), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_update_annotation(doc, NULL), QUIRE_EINVAL);
    quire_annotation_free(a);
    CHECK_INT(page_count_of(doc, 0), 9); /* nothing was added */
    /* Moving an annotation to another page by update: QUIRE_EINVAL (its page cannot change;
     * quire_annotation_new fixes it). The annotation keeps its page: there is no setter. */

    /* Reading: NULL arguments. */
    a = page_annot(doc, 0, 4); /* 19, the Highlight (pikepdf) */
    if (!a) {
        quire_document_close(doc);
        return;
    }
    out = sentinel;
    CHECK_STATUS(quire_page_annotation(NULL, doc, 0, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_annotation(&out, NULL, 0, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_annotation(NULL, doc, 19), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_annotation(&out, NULL, 19), QUIRE_EINVAL);
    CHECK(out == sentinel);
    CHECK_STATUS(quire_annotation_id(NULL, a), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_id(&v, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_page_index(NULL, a), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_page_index(&v, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_rect(NULL, a), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_rect(&rout, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_rect(NULL, &r), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_rect(a, NULL), QUIRE_EINVAL);
    r.bottom = NAN;
    CHECK_STATUS(quire_annotation_set_rect(a, &r), QUIRE_EINVAL);
    r.bottom = -INFINITY;
    CHECK_STATUS(quire_annotation_set_rect(a, &r), QUIRE_EINVAL);
    r.bottom = 0;
    CHECK_STATUS(quire_annotation_rect(&rout, a), QUIRE_OK);
    CHECK_RECT(rout, 293, 530, 349, 542); /* unchanged by the refused setters (pikepdf) */
    CHECK_STATUS(quire_annotation_subtype(buf, sizeof buf, &len, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_subtype(buf, sizeof buf, NULL, a), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_subtype(NULL, 4, &len, a), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_string(buf, sizeof buf, &len, NULL, QUIRE_ANNOT_UNIQUE_NAME),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_is_reply(NULL, a), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_is_reply(&v, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_in_reply_to(NULL, a), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_in_reply_to(&v, NULL), QUIRE_EINVAL);
    CHECK_INT(len, 99);
    CHECK_INT(v, -5);

    /* Unknown fields: QUIRE_EINVAL, for every getter and setter (the header). Each family
     * has its own range (the header): past its last constant, 0 (a valid field of each
     * family before 0.5), numbers far outside, and -- what the ranges make detectable at
     * run time, for callers that pass plain integers, such as bindings -- a constant of
     * another family, cast. */
    {
        static const quire_annot_string_field bad_strings[] = {
            (quire_annot_string_field)-1,
            (quire_annot_string_field)14,
            (quire_annot_string_field)100,
            (quire_annot_string_field)INT32_MIN,
            (quire_annot_string_field)INT32_MAX,
            (quire_annot_string_field)0,
            (quire_annot_string_field)(QUIRE_ANNOT_DEFAULT_STYLE + 1),
            (quire_annot_string_field)QUIRE_ANNOT_OPACITY,
            (quire_annot_string_field)QUIRE_ANNOT_COLOR,
            (quire_annot_string_field)QUIRE_ANNOT_QUAD_POINTS,
            (quire_annot_string_field)QUIRE_BOX_MEDIA};
        static const quire_annot_number_field bad_numbers[] = {
            (quire_annot_number_field)-1,
            (quire_annot_number_field)4,
            (quire_annot_number_field)INT32_MAX,
            (quire_annot_number_field)0,
            (quire_annot_number_field)(QUIRE_ANNOT_CAPTION + 1),
            (quire_annot_number_field)QUIRE_ANNOT_CONTENTS,
            (quire_annot_number_field)QUIRE_ANNOT_COLOR,
            (quire_annot_number_field)QUIRE_ANNOT_LINE};
        static const quire_annot_color_field bad_colors[] = {
            (quire_annot_color_field)-1,
            (quire_annot_color_field)2,
            (quire_annot_color_field)INT32_MIN,
            (quire_annot_color_field)0,
            (quire_annot_color_field)(QUIRE_ANNOT_INTERIOR_COLOR + 1),
            (quire_annot_color_field)QUIRE_ANNOT_OPACITY,
            (quire_annot_color_field)QUIRE_ANNOT_AUTHOR,
            (quire_annot_color_field)QUIRE_ANNOT_QUAD_POINTS};
        static const quire_annot_points_field bad_points[] = {
            (quire_annot_points_field)-1,
            (quire_annot_points_field)3,
            (quire_annot_points_field)INT32_MAX,
            (quire_annot_points_field)0,
            (quire_annot_points_field)(QUIRE_ANNOT_CAPTION_OFFSET + 1),
            (quire_annot_points_field)QUIRE_ANNOT_COLOR,
            (quire_annot_points_field)QUIRE_ANNOT_INTERIOR_COLOR,
            (quire_annot_points_field)QUIRE_ANNOT_BORDER_WIDTH};
        size_t j;
        for (j = 0; j < sizeof bad_strings / sizeof bad_strings[0]; j++) {
            CHECK_STATUS(quire_annotation_string(buf, sizeof buf, &len, a, bad_strings[j]),
                         QUIRE_EINVAL);
            CHECK_STATUS(quire_annotation_string(NULL, 0, &len, a, bad_strings[j]), QUIRE_EINVAL);
            CHECK_STATUS(quire_annotation_set_string(a, bad_strings[j], "x"), QUIRE_EINVAL);
            CHECK_STATUS(quire_annotation_set_string(a, bad_strings[j], NULL), QUIRE_EINVAL);
        }
        for (j = 0; j < sizeof bad_numbers / sizeof bad_numbers[0]; j++) {
            CHECK_STATUS(quire_annotation_number(&d, a, bad_numbers[j]), QUIRE_EINVAL);
            CHECK_STATUS(quire_annotation_set_number(a, bad_numbers[j], 1), QUIRE_EINVAL);
        }
        for (j = 0; j < sizeof bad_colors / sizeof bad_colors[0]; j++) {
            CHECK_STATUS(quire_annotation_color(c4, 4, &count, a, bad_colors[j]), QUIRE_EINVAL);
            CHECK_STATUS(quire_annotation_color(NULL, 0, &count, a, bad_colors[j]), QUIRE_EINVAL);
            CHECK_STATUS(quire_annotation_set_color(a, bad_colors[j], finite, 1), QUIRE_EINVAL);
            CHECK_STATUS(quire_annotation_set_color(a, bad_colors[j], NULL, 0), QUIRE_EINVAL);
        }
        for (j = 0; j < sizeof bad_points / sizeof bad_points[0]; j++) {
            CHECK_STATUS(quire_annotation_points(nums, 16, &count, a, bad_points[j]), QUIRE_EINVAL);
            CHECK_STATUS(quire_annotation_set_points(a, bad_points[j], finite, 4), QUIRE_EINVAL);
        }
        CHECK_INT(len, 99);
        CHECK_INT(count, 99);
        CHECK(d == 7);
        CHECK(c4[0] == -9 && c4[3] == -9);
        /* Nothing changed: the fields of each family read as before. */
        CHECK_ASTR(a, QUIRE_ANNOT_UNIQUE_NAME, "Highlight-1");
        CHECK_ANUM(a, QUIRE_ANNOT_OPACITY, 1);
        CHECK_COLOR(a, QUIRE_ANNOT_COLOR, 3, 1, 0.90196, 0); /* pikepdf */
        CHECK_POINTS(a, QUIRE_ANNOT_QUAD_POINTS, 8, 293, 542, 349, 542, 293, 530, 349, 530);
    }

    /* Numbers: out of range, read-only, not finite (QUIRE_EINVAL); the value is unchanged. */
    CHECK_STATUS(quire_annotation_number(NULL, a, QUIRE_ANNOT_OPACITY), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_number(&d, NULL, QUIRE_ANNOT_OPACITY), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_number(NULL, QUIRE_ANNOT_OPACITY, 0.5), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_OPACITY, 1.5), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_OPACITY, -0.01), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_OPACITY, NAN), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_BORDER_WIDTH, -1), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_BORDER_WIDTH, INFINITY), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_FLAGS, 4.5), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_FLAGS, -4), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_FLAGS, 4294967296.0), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_FLAGS, -INFINITY), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_FONT_SIZE, 12), QUIRE_EINVAL);
    CHECK_ANUM(a, QUIRE_ANNOT_OPACITY, 1);
    CHECK_ANUM(a, QUIRE_ANNOT_FLAGS, 4);
    CHECK_STATUS(quire_annotation_number(&d, a, QUIRE_ANNOT_BORDER_WIDTH), QUIRE_ENOTFOUND);
    CHECK(d == 7);
    /* The edges are in range. */
    CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_OPACITY, 0), QUIRE_OK);
    CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_OPACITY, 1), QUIRE_OK);
    CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_FLAGS, 4294967295.0), QUIRE_OK);
    CHECK_ANUM(a, QUIRE_ANNOT_FLAGS, 4294967295.0);
    CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_FLAGS, 4), QUIRE_OK);

    /* Reading a colour through the length-query pattern for numbers (the header): NULL
     * out_count, a NULL buffer with a capacity, NULL annotation (QUIRE_EINVAL, nothing
     * written); a buffer too small (QUIRE_EBUFS with the count, the buffer untouched); the
     * NULL/0 query gives the count. */
    count = 99;
    CHECK_STATUS(quire_annotation_color(c4, 4, NULL, a, QUIRE_ANNOT_COLOR), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_color(NULL, 4, &count, a, QUIRE_ANNOT_COLOR), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_color(c4, 4, &count, NULL, QUIRE_ANNOT_COLOR), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_color(NULL, 0, NULL, a, QUIRE_ANNOT_COLOR), QUIRE_EINVAL);
    CHECK_INT(count, 99);
    CHECK(c4[0] == -9 && c4[1] == -9 && c4[2] == -9 && c4[3] == -9);
    CHECK_STATUS(quire_annotation_color(c4, 2, &count, a, QUIRE_ANNOT_COLOR), QUIRE_EBUFS);
    CHECK_INT(count, 3);
    CHECK(c4[0] == -9 && c4[1] == -9 && c4[2] == -9 && c4[3] == -9);
    count = 99;
    CHECK_STATUS(quire_annotation_color(c4, 0, &count, a, QUIRE_ANNOT_COLOR), QUIRE_EBUFS);
    CHECK_INT(count, 3);
    count = 99;
    CHECK_STATUS(quire_annotation_color(NULL, 0, &count, a, QUIRE_ANNOT_COLOR), QUIRE_OK);
    CHECK_INT(count, 3);
    /* An unset colour: a count of 0 (QUIRE_OK), also into a buffer of capacity 0. */
    count = 99;
    CHECK_STATUS(quire_annotation_color(NULL, 0, &count, a, QUIRE_ANNOT_INTERIOR_COLOR), QUIRE_OK);
    CHECK_INT(count, 0);
    count = 99;
    CHECK_STATUS(quire_annotation_color(c4, 0, &count, a, QUIRE_ANNOT_INTERIOR_COLOR), QUIRE_OK);
    CHECK_INT(count, 0);
    CHECK(c4[0] == -9);

    /* Colours: 2 or 5 components, huge counts, components outside 0..1 or not finite,
     * NULL with a count (QUIRE_EINVAL); the colour is unchanged. */
    CHECK_STATUS(quire_annotation_set_color(NULL, QUIRE_ANNOT_COLOR, finite, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_color(a, QUIRE_ANNOT_COLOR, finite, 2), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_color(a, QUIRE_ANNOT_COLOR, finite, 5), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_color(a, QUIRE_ANNOT_COLOR, finite, (size_t)-1),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_color(a, QUIRE_ANNOT_COLOR, finite, INT32_MAX), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_color(a, QUIRE_ANNOT_COLOR, NULL, SIZE_MAX), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_color(a, QUIRE_ANNOT_COLOR, finite, 3),
                 QUIRE_EINVAL); /* 2, 3 > 1 */
    CHECK_STATUS(quire_annotation_set_color(a, QUIRE_ANNOT_COLOR, with_nan, 3), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_color(a, QUIRE_ANNOT_INTERIOR_COLOR, with_inf, 4),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_color(a, QUIRE_ANNOT_COLOR, NULL, 3), QUIRE_EINVAL);
    {
        static const double negative[1] = {-0.5};
        CHECK_STATUS(quire_annotation_set_color(a, QUIRE_ANNOT_COLOR, negative, 1), QUIRE_EINVAL);
    }
    CHECK_COLOR(a, QUIRE_ANNOT_COLOR, 3, 1, 0.90196, 0); /* pikepdf */
    /* 0 clears it, with or without a pointer. */
    CHECK_STATUS(quire_annotation_set_color(a, QUIRE_ANNOT_COLOR, NULL, 0), QUIRE_OK);
    CHECK_COLOR(a, QUIRE_ANNOT_COLOR, 0, 0);
    CHECK_STATUS(quire_annotation_set_color(a, QUIRE_ANNOT_INTERIOR_COLOR, finite, 1), QUIRE_OK);
    CHECK_COLOR(a, QUIRE_ANNOT_INTERIOR_COLOR, 1, 1);
    CHECK_STATUS(quire_annotation_set_color(a, QUIRE_ANNOT_INTERIOR_COLOR, finite, 0), QUIRE_OK);
    CHECK_COLOR(a, QUIRE_ANNOT_INTERIOR_COLOR, 0, 0);

    /* Points: odd counts, quad points not in eights, a line not of 4, numbers that are not
     * finite, NULL with a count (QUIRE_EINVAL); the list is unchanged. */
    CHECK_STATUS(quire_annotation_set_points(NULL, QUIRE_ANNOT_VERTICES, finite, 4), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_points(a, QUIRE_ANNOT_VERTICES, finite, 3), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_points(a, QUIRE_ANNOT_VERTICES, finite, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_points(a, QUIRE_ANNOT_QUAD_POINTS, finite, 7), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_points(a, QUIRE_ANNOT_QUAD_POINTS, finite, 4), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_points(a, QUIRE_ANNOT_QUAD_POINTS, finite, 6), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_points(a, QUIRE_ANNOT_LINE, finite, 2), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_points(a, QUIRE_ANNOT_LINE, finite, 6), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_points(a, QUIRE_ANNOT_LINE, finite, 8), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_points(a, QUIRE_ANNOT_LINE, with_nan, 4), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_points(a, QUIRE_ANNOT_VERTICES, with_inf, 4), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_points(a, QUIRE_ANNOT_VERTICES, NULL, 2), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_points(a, QUIRE_ANNOT_VERTICES, NULL, SIZE_MAX),
                 QUIRE_EINVAL);
    CHECK_POINTS(a, QUIRE_ANNOT_QUAD_POINTS, 8, 293, 542, 349, 542, 293, 530, 349, 530);
    CHECK_NO_POINTS(a, QUIRE_ANNOT_VERTICES);
    CHECK_NO_POINTS(a, QUIRE_ANNOT_LINE);
    /* Reading numbers: NULL count, NULL buffer with a capacity (QUIRE_EINVAL); too small
     * (QUIRE_EBUFS, with the count) is in CHECK_POINTS. */
    count = 99;
    CHECK_STATUS(quire_annotation_points(nums, 16, NULL, a, QUIRE_ANNOT_QUAD_POINTS), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_points(NULL, 8, &count, a, QUIRE_ANNOT_QUAD_POINTS),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_points(nums, 16, &count, NULL, QUIRE_ANNOT_QUAD_POINTS),
                 QUIRE_EINVAL);
    CHECK_INT(count, 99);
    CHECK_STATUS(quire_annotation_points(nums, 0, &count, a, QUIRE_ANNOT_QUAD_POINTS), QUIRE_EBUFS);
    CHECK_INT(count, 8);
    /* 0 clears a list (the header), with or without a pointer. */
    CHECK_STATUS(quire_annotation_set_points(a, QUIRE_ANNOT_QUAD_POINTS, NULL, 0), QUIRE_OK);
    CHECK_NO_POINTS(a, QUIRE_ANNOT_QUAD_POINTS);
    CHECK_STATUS(quire_annotation_set_points(a, QUIRE_ANNOT_VERTICES, finite, 8), QUIRE_OK);
    CHECK_STATUS(quire_annotation_set_points(a, QUIRE_ANNOT_VERTICES, finite, 0), QUIRE_OK);
    CHECK_NO_POINTS(a, QUIRE_ANNOT_VERTICES);

    /* Ink strokes: the same rules; a stroke out of range is QUIRE_ERANGE. */
    CHECK_STATUS(quire_annotation_ink_stroke_count(NULL, a), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_ink_stroke_count(&v, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_add_ink_stroke(NULL, finite, 2), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_add_ink_stroke(a, finite, 3), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_add_ink_stroke(a, with_nan, 4), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_add_ink_stroke(a, with_inf, 4), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_add_ink_stroke(a, NULL, 4), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_ink_stroke_count(&v, a), QUIRE_OK);
    CHECK_INT(v, 0);
    CHECK_STATUS(quire_annotation_ink_stroke(nums, 16, &count, a, 0), QUIRE_ERANGE);
    CHECK_STATUS(quire_annotation_add_ink_stroke(a, finite, 8), QUIRE_OK);
    CHECK_STATUS(quire_annotation_add_ink_stroke(a, finite, 4), QUIRE_OK);
    CHECK_STATUS(quire_annotation_ink_stroke_count(&v, a), QUIRE_OK);
    CHECK_INT(v, 2);
    CHECK_POINTS(a, INK_STROKE(0), 8, 1, 2, 3, 4, 5, 6, 7, 8);
    CHECK_POINTS(a, INK_STROKE(1), 4, 1, 2, 3, 4);
    count = 99;
    CHECK_STATUS(quire_annotation_ink_stroke(nums, 16, &count, a, 2), QUIRE_ERANGE);
    CHECK_STATUS(quire_annotation_ink_stroke(nums, 16, &count, a, -1), QUIRE_ERANGE);
    CHECK_STATUS(quire_annotation_ink_stroke(nums, 16, NULL, a, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_ink_stroke(NULL, 3, &count, a, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_ink_stroke(nums, 16, &count, NULL, 0), QUIRE_EINVAL);
    CHECK_INT(count, 99);
    /* NULL and 0 remove all strokes (the header). */
    CHECK_STATUS(quire_annotation_add_ink_stroke(a, NULL, 0), QUIRE_OK);
    CHECK_STATUS(quire_annotation_ink_stroke_count(&v, a), QUIRE_OK);
    CHECK_INT(v, 0);

    /* Strings: malformed dates and reply types (QUIRE_EINVAL); the field is unchanged. */
    CHECK_STATUS(quire_annotation_set_string(NULL, QUIRE_ANNOT_CONTENTS, "x"), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_CREATION_DATE, "yesterday"),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_CREATION_DATE, ""), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_MODIFICATION_DATE, "D:"), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_REPLY_TYPE, "reply"), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_REPLY_TYPE, "r"), QUIRE_EINVAL);
    CHECK_ASTR_MISSING(a, QUIRE_ANNOT_CREATION_DATE);
    CHECK_ASTR_MISSING(a, QUIRE_ANNOT_REPLY_TYPE);
    /* Dates in another form than the header's D:YYYYMMDDHHmmSSOHH'mm are malformed too: an
     * ISO 8601 date, a month 13, text after the date. */
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_CREATION_DATE, "2024-06-15"),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_CREATION_DATE, "D:20241315000000Z"),
                 QUIRE_EINVAL);
    CHECK_STATUS(
        quire_annotation_set_string(a, QUIRE_ANNOT_CREATION_DATE, "D:20240615120000Z and more"),
        QUIRE_EINVAL);
    /* A date without its optional parts is a PDF date (ISO 32000-2 §7.9.4). */
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_CREATION_DATE, "D:2024"), QUIRE_OK);
    CHECK_STATUS(quire_annotation_set_string(a, QUIRE_ANNOT_CREATION_DATE, NULL), QUIRE_OK);
    CHECK_ASTR_MISSING(a, QUIRE_ANNOT_CREATION_DATE);

    /* The string length-query pattern: a NULL buffer with a size, NULL out_len. */
    len = 99;
    CHECK_STATUS(quire_annotation_string(NULL, 3, &len, a, QUIRE_ANNOT_UNIQUE_NAME), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_string(buf, sizeof buf, NULL, a, QUIRE_ANNOT_UNIQUE_NAME),
                 QUIRE_EINVAL);
    CHECK_INT(len, 99);
    CHECK_STATUS(quire_annotation_string(buf, 5, &len, a, QUIRE_ANNOT_UNIQUE_NAME), QUIRE_EBUFS);
    CHECK_INT(len, 11); /* "Highlight-1" (pikepdf) */
    quire_annotation_free(a);

    /* Document operations: NULL arguments; numbers that are not annotations. */
    out = sentinel;
    CHECK_STATUS(quire_document_add_reply(&out, NULL, 19, "a", "b"), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_add_reply(&out, doc, 19, "a", NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_add_reply(&out, doc, 99999, "a", "b"), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_add_reply(&out, doc, 0, "a", "b"), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_add_reply(&out, doc, -1, "a", "b"), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_add_state_reply(&out, NULL, 19, "a", "Review", "Accepted"),
                 QUIRE_EINVAL);
    CHECK(out == sentinel);
    lout = lsentinel;
    CHECK_STATUS(quire_document_comments(NULL, doc, 19), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_comments(&lout, NULL, 19), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_comments(&lout, doc, 99999), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_comments(&lout, doc, 1), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_review_summary(&lout, &lout, NULL, 19), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_review_summary(&lout, NULL, doc, 99999), QUIRE_ENOTFOUND);
    CHECK(lout == lsentinel);

    /* Lists: NULL arguments, indices out of range. */
    CHECK_STATUS(quire_document_comments(&list, doc, 22), QUIRE_OK);
    out = sentinel;
    CHECK_STATUS(quire_annotation_list_count(NULL, list), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_list_count(&w, NULL), QUIRE_EINVAL);
    CHECK_INT(w, -5);
    CHECK_STATUS(quire_annotation_list_get(NULL, list, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_list_get(&out, NULL, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_annotation_list_get(&out, list, 1), QUIRE_ERANGE);
    CHECK_STATUS(quire_annotation_list_get(&out, list, -1), QUIRE_ERANGE);
    CHECK_STATUS(quire_annotation_list_get(&out, list, INT32_MIN), QUIRE_ERANGE);
    CHECK(out == sentinel);
    quire_annotation_list_free(list);

    /* NULL is a no-op for both frees (the header). */
    quire_annotation_free(NULL);
    quire_annotation_list_free(NULL);
    quire_document_close(doc);
}

/* ---- annotation JSON (quire_document_export_annotations_json / _import_) ------------------ */

/* The JSON of page `page` (-1: all), through the length-query pattern, malloc'd. */
static char *export_at(quire_document *doc, int32_t page, size_t *len_out, const char *file,
                       int line) {
    size_t len = 0, len2 = 0;
    char *buf;
    int status = quire_document_export_annotations_json(NULL, 0, &len, doc, page);
    report(status == QUIRE_OK && len > 0, file, line, "export(page %d): the query returned %d: %s",
           (int)page, status, quire_last_error_message());
    if (status != QUIRE_OK || !(buf = malloc(len + 2))) return NULL;
    buf[len + 1] = 'Z';
    status = quire_document_export_annotations_json(buf, len + 1, &len2, doc, page);
    report(status == QUIRE_OK && len2 == len && buf[len] == '\0' && buf[len + 1] == 'Z', file, line,
           "export(page %d) into %zu + 1 bytes: status %d, *out_len %zu", (int)page, len, status,
           len2);
    if (status != QUIRE_OK) {
        free(buf);
        return NULL;
    }
    if (len_out) *len_out = len;
    return buf;
}
#define export_json(doc, page, len) export_at((doc), (page), (len), __FILE__, __LINE__)

static void test_json(void) {
    unsigned char *original;
    size_t size = 0, len = 0, len2 = 0;
    quire_document *doc = NULL, *other = NULL;
    char *json, *again, small[8];
    int32_t note, reply, state, count = -1, found = -1, k, n;
    original = read_file(corpus(ANNOTS_PDF), &size);
    if (!original) return;
    CHECK_STATUS(quire_document_open_memory(&doc, original, size, NULL), QUIRE_OK);
    CHECK_STATUS(quire_document_open_memory(&other, original, size, NULL), QUIRE_OK);
    if (!doc || !other) {
        quire_document_close(doc);
        quire_document_close(other);
        free(original);
        return;
    }
    /* A thread on page 2: a note, a reply, a state reply. */
    note = add_note(doc, 1, "Ada", "JSON note");
    reply = add_reply(doc, note, "Bob", "JSON reply");
    state = add_state(doc, note, "Bob", "Review", "Accepted");
    json = export_json(doc, 1, &len);
    if (json) {
        /* Instant JSON's marker (docs/annotation-json.md); deterministic (the header). */
        CHECK(strstr(json, "\"https:\\/\\/pspdfkit.com\\/instant-json\\/v1\"") != NULL ||
              strstr(json, "\"https://pspdfkit.com/instant-json/v1\"") != NULL);
        CHECK(strstr(json, "JSON reply") != NULL);
        again = export_json(doc, 1, &len2);
        CHECK(again && len2 == len && memcmp(again, json, len) == 0);
        free(again);
        /* Too small: QUIRE_EBUFS, *out_len set, the buffer untouched. */
        memset(small, 'Z', sizeof small);
        len2 = 0;
        CHECK_STATUS(quire_document_export_annotations_json(small, sizeof small, &len2, doc, 1),
                     QUIRE_EBUFS);
        CHECK_INT(len2, len);
        CHECK(memcmp(small, "ZZZZZZZZ", 8) == 0);
        /* With Instant comments: the plain reply is a comment of its root, the state reply
         * stays a record (a comment has no state); the length-query pattern as above. */
        len2 = 0;
        CHECK_STATUS(
            quire_document_export_annotations_json_instant_comments(NULL, 0, &len2, doc, 1),
            QUIRE_OK);
        again = len2 > 0 ? malloc(len2 + 1) : NULL;
        if (again) {
            size_t len3 = 0;
            CHECK_STATUS(quire_document_export_annotations_json_instant_comments(again, len2 + 1,
                                                                                 &len3, doc, 1),
                         QUIRE_OK);
            CHECK_INT(len3, len2);
            CHECK(strstr(again, "\"comments\"") != NULL);
            CHECK(strstr(again, "\"pspdfkit/comment\"") != NULL ||
                  strstr(again, "\"pspdfkit\\/comment\"") != NULL);
            CHECK(strstr(again, "\"isCommentThreadRoot\" : true") != NULL);
            CHECK(strstr(again, "JSON reply") != NULL && strstr(again, "Accepted") != NULL);
            free(again);
        }
        CHECK_STATUS(quire_document_export_annotations_json_instant_comments(NULL, 0, NULL, doc, 1),
                     QUIRE_EINVAL);

        /* Into a copy of the file as it was: the page's JSON holds its 3 annotations of the
         * file (15, 16, 26: no /NM, pikepdf; exported with their object numbers as "id" and
         * "pdfObjectId") and the thread. The file's 3 match the copy's by object (the same
         * page and subtype, no /NM: docs/annotation-json.md, "Matching") and are updated in
         * place; the thread's 3 names are not on the copy's page, so they are created (the
         * header: "any other is created"), the thread intact: 3 + 3 on the page. */
        CHECK_STATUS(quire_document_import_annotations_json(&count, other, json, len), QUIRE_OK);
        CHECK_INT(count, 6);
        CHECK_INT(page_count_of(other, 1), 6);
        n = page_count_of(other, 1);
        for (k = 0; k < n; k++) {
            quire_annotation *a = page_annot(other, 1, k);
            char buf[64];
            size_t l;
            if (a &&
                quire_annotation_string(buf, sizeof buf, &l, a, QUIRE_ANNOT_CONTENTS) == QUIRE_OK &&
                strcmp(buf, "JSON note") == 0)
                found = annot_id(a);
            quire_annotation_free(a);
        }
        CHECK(found > 0);
        {
            quire_annotation_list *current = NULL;
            CHECK_STATUS(quire_document_review_summary(&current, NULL, other, found), QUIRE_OK);
            CHECK_STR(list_fields(current, QUIRE_ANNOT_STATE), "Accepted");
            CHECK_STR(list_fields(current, QUIRE_ANNOT_AUTHOR), "Bob");
            quire_annotation_list_free(current);
            CHECK_STATUS(quire_document_comments(&current, other, found), QUIRE_OK);
            CHECK_STR(list_fields(current, QUIRE_ANNOT_CONTENTS), "JSON note|JSON reply");
            quire_annotation_list_free(current);
        }
        /* Again: the names (/NM) are on the page now, so they are updated, not added. */
        CHECK_STATUS(quire_document_import_annotations_json(NULL, other, json, len), QUIRE_OK);
        CHECK_INT(page_count_of(other, 1), 6);

        /* Replies while replies are off: QUIRE_EDISABLED, and nothing imported. */
        {
            quire_document *third = NULL;
            CHECK_STATUS(quire_document_open_memory(&third, original, size, NULL), QUIRE_OK);
            CHECK_STATUS(quire_document_set_replies_enabled(third, 0), QUIRE_OK);
            CHECK_STATUS(quire_document_import_annotations_json(&count, third, json, len),
                         QUIRE_EDISABLED);
            CHECK_INT(page_count_of(third, 1), 3);
            quire_document_close(third);
        }
        free(json);
    }
    (void)reply;
    (void)state;

    /* All pages (-1): both pages' annotations; a page out of range: QUIRE_ERANGE. */
    json = export_json(doc, -1, &len);
    CHECK(json && strstr(json, "JSON note") != NULL);
    free(json);
    len = 99;
    CHECK_STATUS(quire_document_export_annotations_json(NULL, 0, &len, doc, 2), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_export_annotations_json(NULL, 0, &len, doc, -2), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_export_annotations_json(NULL, 0, &len, NULL, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_export_annotations_json(NULL, 0, NULL, doc, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_export_annotations_json(NULL, 4, &len, doc, 0), QUIRE_EINVAL);
    CHECK_INT(len, 99);

    /* Malformed JSON, or not annotation JSON: QUIRE_EFORMAT, nothing imported; NULL
     * arguments: QUIRE_EINVAL. */
    count = -7;
    CHECK_STATUS(quire_document_import_annotations_json(&count, other, "{", 1), QUIRE_EFORMAT);
    CHECK_STATUS(quire_document_import_annotations_json(&count, other, "[]", 2), QUIRE_EFORMAT);
    CHECK_STATUS(quire_document_import_annotations_json(&count, other, "", 0), QUIRE_EFORMAT);
    CHECK_STATUS(quire_document_import_annotations_json(
                     &count, other, "{\"annotations\": [{\"type\": \"pspdfkit/nonsense\"}]}", 47),
                 QUIRE_EFORMAT);
    CHECK_STATUS(quire_document_import_annotations_json(&count, other, NULL, 3), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_import_annotations_json(&count, NULL, "{}", 2), QUIRE_EINVAL);
    CHECK_INT(count, -7);
    CHECK_INT(page_count_of(other, 1), 6);
    quire_document_close(other);
    quire_document_close(doc);
    free(original);

    /* A real file's export imports into a copy of it: cmp_xfdfInReplyTo.pdf (5 annotations,
     * manifest), whose 28 has /State (Marked) without /IRT (pikepdf) and reads as such. */
    doc = open_corpus(IN_REPLY_TO_PDF, NULL);
    other = open_corpus(IN_REPLY_TO_PDF, NULL);
    json = doc ? export_json(doc, -1, &len) : NULL;
    if (json && other) {
        count = -1;
        CHECK_STATUS(quire_document_import_annotations_json(&count, other, json, len), QUIRE_OK);
    }
    free(json);
    quire_document_close(other);
    quire_document_close(doc);
}

/* ---- bulk reads (quire_page_annotation_infos, quire_annotation_list_infos) ------------------ */

/* One info against what the per-field functions give for the same annotation. */
static void check_info_matches(const quire_annotation_info *info, const quire_annotation *a,
                               const char *base, size_t len) {
    char buf[4096];
    size_t n = 0;
    quire_rect r;
    int32_t v = 0;
    double flags = 0;
    struct {
        const char *s;
        size_t len;
        quire_annot_string_field field;
    } strings[] = {
        {info->contents, info->contents_len, QUIRE_ANNOT_CONTENTS},
        {info->author, info->author_len, QUIRE_ANNOT_AUTHOR},
        {info->name, info->name_len, QUIRE_ANNOT_UNIQUE_NAME},
        {info->creation_date, info->creation_date_len, QUIRE_ANNOT_CREATION_DATE},
        {info->modification_date, info->modification_date_len, QUIRE_ANNOT_MODIFICATION_DATE},
        {info->state, info->state_len, QUIRE_ANNOT_STATE},
        {info->state_model, info->state_model_len, QUIRE_ANNOT_STATE_MODEL},
        {info->in_reply_to_id, info->in_reply_to_id_len, QUIRE_ANNOT_IN_REPLY_TO_ID},
    };
    size_t k;
    CHECK_INT(info->version, QUIRE_ANNOTATION_INFO_VERSION);
    CHECK_INT(info->object_number, annot_id(a) > 0 ? annot_id(a) : 0);
    CHECK_STATUS(quire_annotation_page_index(&v, a), QUIRE_OK);
    CHECK_INT(info->page_index, v);
    CHECK_INT(info->in_reply_to, is_reply(a) == 1 ? reply_target(a) : 0);
    CHECK_STATUS(quire_annotation_number(&flags, a, QUIRE_ANNOT_FLAGS), QUIRE_OK);
    CHECK_INT(info->flags, (int32_t)flags);
    CHECK_STATUS(quire_annotation_rect(&r, a), QUIRE_OK);
    CHECK(info->rect.left == r.left && info->rect.bottom == r.bottom &&
          info->rect.right == r.right && info->rect.top == r.top);
    CHECK_STATUS(quire_annotation_subtype(buf, sizeof buf, &n, a), QUIRE_OK);
    CHECK(info->subtype != NULL && info->subtype_len == n && memcmp(info->subtype, buf, n) == 0 &&
          info->subtype[n] == '\0');
    CHECK(info->subtype >= base && info->subtype + info->subtype_len < base + len);
    for (k = 0; k < sizeof strings / sizeof strings[0]; k++) {
        int status = quire_annotation_string(buf, sizeof buf, &n, a, strings[k].field);
        if (status == QUIRE_ENOTFOUND) {
            CHECK(strings[k].s == NULL && strings[k].len == 0);
        } else {
            CHECK_INT(status, QUIRE_OK);
            /* Binary-safe: the length, then the bytes, then the NUL, inside the buffer. */
            CHECK(strings[k].s != NULL && strings[k].len == n &&
                  memcmp(strings[k].s, buf, n) == 0 && strings[k].s[n] == '\0');
            CHECK(strings[k].s >= base && strings[k].s + strings[k].len < base + len);
        }
    }
}

static void test_bulk_infos(void) {
    quire_document *doc = open_corpus(CARET_PDF, NULL);
    quire_document *empty = open_corpus(BOOKMARKS_PDF, NULL);
    quire_annotation_list *list = NULL;
    quire_annotation_info **items;
    size_t len = 0, len2 = 0, rounded;
    int32_t count = -1, k;
    unsigned char *buf, *guarded;
    if (!doc || !empty) {
        quire_document_close(doc);
        quire_document_close(empty);
        return;
    }
    /* The length query: caret.pdf's page has 10 annotations (manifest; pikepdf /Annots). */
    CHECK_STATUS(
        quire_page_annotation_infos(NULL, 0, &len, &count, doc, 0, QUIRE_ANNOTATION_INFO_VERSION),
        QUIRE_OK);
    CHECK_INT(count, 10);
    CHECK(len >= 11 * sizeof(void *) + 10 * sizeof(quire_annotation_info));
    buf = malloc(len + 9);
    if (!buf) {
        quire_document_close(doc);
        quire_document_close(empty);
        return;
    }
    /* Too small by one byte (no room for the NUL after the block): QUIRE_EBUFS with the
     * size, and the buffer and the count untouched. */
    memset(buf, 0xAB, len + 9);
    count = -1;
    CHECK_STATUS(
        quire_page_annotation_infos(buf, len, &len2, &count, doc, 0, QUIRE_ANNOTATION_INFO_VERSION),
        QUIRE_EBUFS);
    CHECK_INT(len2, len);
    CHECK_INT(count, -1);
    for (k = 0; k < (int32_t)len + 9; k++)
        if (buf[k] != 0xAB) break;
    CHECK_INT(k, (int32_t)len + 9);
    /* Not aligned for a pointer: refused (malloc's memory is aligned). */
    CHECK_STATUS(quire_page_annotation_infos(buf + 1, len, &len2, &count, doc, 0,
                                             QUIRE_ANNOTATION_INFO_VERSION),
                 QUIRE_EINVAL);
    /* The arguments and the version. */
    CHECK_STATUS(quire_page_annotation_infos(buf, len, NULL, &count, doc, 0, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_annotation_infos(buf, len, &len2, NULL, doc, 0, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_annotation_infos(buf, len, &len2, &count, NULL, 0, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_annotation_infos(NULL, 5, &len2, &count, doc, 0, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_annotation_infos(buf, len, &len2, &count, doc, 0, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_annotation_infos(buf, len, &len2, &count, doc, 0,
                                             QUIRE_ANNOTATION_INFO_VERSION + 1),
                 QUIRE_EVERSION);
    CHECK_STATUS(quire_page_annotation_infos(buf, len, &len2, &count, doc, 1, 1), QUIRE_ERANGE);
    CHECK_STATUS(quire_page_annotation_infos(buf, len, &len2, &count, doc, -1, 1), QUIRE_ERANGE);
    /* Version 1 (before in_reply_to_id): smaller structs, each of version 1's size. */
    {
        size_t len1 = 0;
        int32_t count1 = 0;
        CHECK_STATUS(quire_page_annotation_infos(NULL, 0, &len1, &count1, doc, 0, 1), QUIRE_OK);
        CHECK(len1 < len &&
              len - len1 == (size_t)count1 * (sizeof(quire_annotation_info) -
                                              offsetof(quire_annotation_info, in_reply_to_id)));
        CHECK_STATUS(quire_page_annotation_infos(buf, len1 + 1, &len2, &count1, doc, 0, 1),
                     QUIRE_OK);
        items = (quire_annotation_info **)(void *)buf;
        CHECK_INT(items[0]->version, 1);
        CHECK((size_t)((const unsigned char *)items[1] - (const unsigned char *)items[0]) ==
              offsetof(quire_annotation_info, in_reply_to_id));
    }

    /* The exact size: every info equals what the per-field functions read, and every
     * pointer points inside the buffer. Object numbers 26..35, 26 a StrikeOut replying to
     * 28 with /F 4 and /Rect [246.582 623.533 378.365 641.918] (pikepdf). */
    memset(buf, 0xAB, len + 9);
    CHECK_STATUS(quire_page_annotation_infos(buf, len + 1, &len2, &count, doc, 0,
                                             QUIRE_ANNOTATION_INFO_VERSION),
                 QUIRE_OK);
    CHECK_INT(len2, len);
    CHECK_INT(count, 10);
    CHECK_INT(buf[len], 0); /* the NUL after the block, then nothing */
    for (k = (int32_t)len + 1; k < (int32_t)len + 9; k++) CHECK_INT(buf[k], 0xAB);
    items = (quire_annotation_info **)(void *)buf;
    for (k = 0; k < count; k++) {
        quire_annotation *a = page_annot(doc, 0, k);
        CHECK((const unsigned char *)items[k] >= buf &&
              (const unsigned char *)(items[k] + 1) <= buf + len);
        if (a) check_info_matches(items[k], a, (const char *)buf, len);
        CHECK_INT(items[k]->object_number, 26 + k);
        quire_annotation_free(a);
    }
    CHECK_STR(items[0]->subtype, "StrikeOut");
    CHECK_INT(items[0]->in_reply_to, 28);
    CHECK_INT(items[0]->flags, 4);
    CHECK(near(items[0]->rect.left, 246.582) && near(items[0]->rect.top, 641.918));
    CHECK_STR(items[0]->author, "Suyash Mahar");
    CHECK_STR(items[0]->name, "925291f8-b845-49a8-8f4c-220806de6520");
    CHECK_STR(items[0]->creation_date, "D:20240625182216-07'00'");
    CHECK_STR(items[0]->modification_date, "D:20240625182229-07'00'");
    CHECK(items[0]->contents == NULL && items[0]->state == NULL && items[0]->state_model == NULL);
    CHECK_STR(items[1]->subtype, "Popup");
    CHECK_INT(items[1]->flags, 28); /* pikepdf: /F 28 */
    CHECK_STR(items[2]->contents, "Google Chrome");
    CHECK_INT(items[2]->in_reply_to, 0);

    CHECK(items[10] == NULL); /* the NULL after the pointers */

    /* A page without annotations (bookmarks.pdf: no /Annots, pikepdf): a count of 0 and
     * room for the NULL alone, which a buffer of 0 bytes lacks. */
    count = -1;
    len2 = 99;
    CHECK_STATUS(quire_page_annotation_infos(NULL, 0, &len2, &count, empty, 0, 1), QUIRE_OK);
    CHECK_INT(count, 0);
    CHECK_INT(len2, sizeof(void *));
    CHECK_STATUS(quire_page_annotation_infos(buf, sizeof(void *), &len2, &count, empty, 1, 1),
                 QUIRE_EBUFS);
    memset(buf, 0xAB, sizeof(void *) + 1);
    CHECK_STATUS(quire_page_annotation_infos(buf, sizeof(void *) + 1, &len2, &count, empty, 1, 1),
                 QUIRE_OK);
    CHECK_INT(buf[sizeof(void *)], 0);
    CHECK_INT(count, 0);
    CHECK(((quire_annotation_info **)(void *)buf)[0] == NULL);

    /* In memory that ends where a PROT_NONE page starts (the size rounded up to keep the
     * alignment): a write past the end would fault. */
    rounded = (len + 1 + 7) / 8 * 8;
    guarded = guarded_alloc(rounded);
    if (guarded) {
        CHECK_STATUS(quire_page_annotation_infos(guarded, rounded, &len2, &count, doc, 0, 1),
                     QUIRE_OK);
        CHECK_INT(count, 10);
        CHECK_STR(((quire_annotation_info **)(void *)guarded)[9]->subtype, "Popup");
        guarded_free(guarded, rounded);
    }

    /* The page as a list: the same infos, and a snapshot that outlives the document. */
    CHECK_STATUS(quire_page_annotations(NULL, doc, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_annotations(&list, doc, 1), QUIRE_ERANGE);
    CHECK_STATUS(quire_page_annotations(&list, doc, 0), QUIRE_OK);
    quire_document_close(doc);
    doc = NULL;
    if (list) {
        quire_annotation *a = NULL;
        CHECK_STATUS(quire_annotation_list_infos(NULL, 0, &len2, &count, list,
                                                 QUIRE_ANNOTATION_INFO_VERSION),
                     QUIRE_OK);
        CHECK_INT(len2, len);
        CHECK_INT(count, 10);
        memset(buf, 0, len);
        CHECK_STATUS(quire_annotation_list_infos(buf, len + 1, &len2, &count, list,
                                                 QUIRE_ANNOTATION_INFO_VERSION),
                     QUIRE_OK);
        CHECK_STATUS(quire_annotation_list_infos(buf, len, &len2, &count, list,
                                                 QUIRE_ANNOTATION_INFO_VERSION),
                     QUIRE_EBUFS);
        CHECK_STATUS(quire_annotation_list_infos(buf, len, &len2, &count, list,
                                                 QUIRE_ANNOTATION_INFO_VERSION + 1),
                     QUIRE_EVERSION);
        CHECK_STATUS(quire_annotation_list_infos(buf, len, &len2, &count, NULL,
                                                 QUIRE_ANNOTATION_INFO_VERSION),
                     QUIRE_EINVAL);
        items = (quire_annotation_info **)(void *)buf;
        CHECK_INT(items[0]->object_number, 26);
        CHECK(items[10] == NULL);
        CHECK_STR(items[2]->contents, "Google Chrome");
        CHECK_STATUS(quire_annotation_list_get(&a, list, 2), QUIRE_OK);
        if (a) check_info_matches(items[2], a, (const char *)buf, len);
        quire_annotation_free(a);
        quire_annotation_list_free(list);
    }
    free(buf);
    quire_document_close(empty);
}

/* Border styles and effects, carets and image stamps (issue 39): the fields' constants
 * round-trip through a document and the rules refuse what the header says. */
static void test_styles_and_kinds(void) {
    static const double dash[2] = {12, 6}, zeros[2] = {0, 0}, rd[4] = {1, 2, 3, 4},
                        three[3] = {1, 2, 3};
    unsigned char *original;
    size_t size = 0, count = 0, len = 0;
    double numbers[8], value = 0;
    char text[64];
    quire_document *doc = NULL;
    quire_annotation *square, *caret, *stamp, *read = NULL;
    quire_rect box;
    int32_t square_id = -1, caret_id = -1, stamp_id = -1;
    original = read_file(corpus(ANNOTS_PDF), &size);
    CHECK(original != NULL);
    if (!original) return;
    CHECK_STATUS(quire_document_open_memory(&doc, original, size, NULL), QUIRE_OK);
    if (!doc) {
        free(original);
        return;
    }
    square = new_annot("Square", 0, 100, 100, 300, 300);
    caret = new_annot("Caret", 0, 100, 400, 120, 420);
    stamp = new_annot("Stamp", 0, 300, 400, 400, 500);
    if (square && caret && stamp) {
        /* The rules, checked where the value is set. */
        CHECK_STATUS(quire_annotation_set_string(square, QUIRE_ANNOT_BORDER_STYLE, "Dashed"),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_points(square, QUIRE_ANNOT_DASH_PATTERN, zeros, 2),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_points(square, QUIRE_ANNOT_RECT_DIFFERENCES, three, 3),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_number(square, QUIRE_ANNOT_CLOUDY_INTENSITY, 11),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_number(square, QUIRE_ANNOT_CLOUDY_INTENSITY, -1),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_string(caret, QUIRE_ANNOT_SYMBOL, "Q"), QUIRE_EINVAL);
        /* Rich text (the header): sanitized, /Contents its plain text; not well-formed is
         * QUIRE_EFORMAT. */
        CHECK_STATUS(quire_annotation_set_string(caret, QUIRE_ANNOT_RICH_TEXT, "<p>open"),
                     QUIRE_EFORMAT);
        CHECK_STATUS(quire_annotation_set_string(caret, QUIRE_ANNOT_RICH_TEXT,
                                                 "<p>Insert <b>here</b><script>x</script></p>"),
                     QUIRE_OK);
        CHECK_STATUS(quire_annotation_string(text, sizeof text, &len, caret, QUIRE_ANNOT_CONTENTS),
                     QUIRE_OK);
        CHECK_STR(text, "Insert here");
        CHECK_STATUS(quire_annotation_string(NULL, 0, &len, caret, QUIRE_ANNOT_RICH_TEXT),
                     QUIRE_OK);
        CHECK(len > 20);
        CHECK_STATUS(quire_annotation_set_string(caret, QUIRE_ANNOT_RICH_TEXT, NULL), QUIRE_OK);
        CHECK_STATUS(quire_annotation_string(NULL, 0, &len, caret, QUIRE_ANNOT_RICH_TEXT),
                     QUIRE_ENOTFOUND);
        /* The default style string (/DS) is kept as given, and cleared by NULL. */
        CHECK_STATUS(quire_annotation_set_string(caret, QUIRE_ANNOT_DEFAULT_STYLE,
                                                 "font: 14pt Courier; color:#FF0000"),
                     QUIRE_OK);
        CHECK_STATUS(
            quire_annotation_string(text, sizeof text, &len, caret, QUIRE_ANNOT_DEFAULT_STYLE),
            QUIRE_OK);
        CHECK_STR(text, "font: 14pt Courier; color:#FF0000");
        CHECK_STATUS(quire_annotation_set_string(caret, QUIRE_ANNOT_DEFAULT_STYLE, NULL), QUIRE_OK);
        CHECK_STATUS(quire_annotation_string(NULL, 0, &len, caret, QUIRE_ANNOT_DEFAULT_STYLE),
                     QUIRE_ENOTFOUND);
        CHECK_STATUS(
            quire_annotation_set_image(stamp, test_gray_png, sizeof test_gray_png, "image/gif"),
            QUIRE_EFORMAT);
        CHECK_STATUS(quire_annotation_set_image(stamp, test_gray_png, sizeof test_gray_png - 20,
                                                "image/png"),
                     QUIRE_EFORMAT);
        CHECK_STATUS(quire_annotation_set_image(stamp, NULL, 5, "image/png"), QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_image(stamp, test_gray_png, sizeof test_gray_png, NULL),
                     QUIRE_EINVAL);
        CHECK_STATUS(
            quire_annotation_set_image(NULL, test_gray_png, sizeof test_gray_png, "image/png"),
            QUIRE_EINVAL);
        /* The values. */
        CHECK_STATUS(quire_annotation_set_string(square, QUIRE_ANNOT_BORDER_STYLE, "D"), QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_points(square, QUIRE_ANNOT_DASH_PATTERN, dash, 2),
                     QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_points(square, QUIRE_ANNOT_RECT_DIFFERENCES, rd, 4),
                     QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_number(square, QUIRE_ANNOT_CLOUDY_INTENSITY, 2),
                     QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_string(caret, QUIRE_ANNOT_SYMBOL, "P"), QUIRE_OK);
        CHECK_STATUS(
            quire_annotation_set_image(stamp, test_gray_png, sizeof test_gray_png, "image/png"),
            QUIRE_OK);
        /* Only a Stamp has an image. */
        CHECK_STATUS(
            quire_annotation_set_image(square, test_gray_png, sizeof test_gray_png, "image/png"),
            QUIRE_OK);
        CHECK_STATUS(quire_document_add_annotation(doc, square), QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_image(square, NULL, 0, NULL), QUIRE_OK);
        CHECK_STATUS(quire_document_add_annotation(doc, square), QUIRE_OK);
        CHECK_STATUS(quire_document_add_annotation(doc, caret), QUIRE_OK);
        CHECK_STATUS(quire_document_add_annotation(doc, stamp), QUIRE_OK);
        CHECK_STATUS(quire_annotation_id(&square_id, square), QUIRE_OK);
        CHECK_STATUS(quire_annotation_id(&caret_id, caret), QUIRE_OK);
        CHECK_STATUS(quire_annotation_id(&stamp_id, stamp), QUIRE_OK);
    }
    /* Read back from the document. */
    CHECK_STATUS(quire_document_annotation(&read, doc, square_id), QUIRE_OK);
    if (read) {
        CHECK_STATUS(
            quire_annotation_string(text, sizeof text, &len, read, QUIRE_ANNOT_BORDER_STYLE),
            QUIRE_OK);
        CHECK_STR(text, "D");
        CHECK_STATUS(quire_annotation_points(numbers, 8, &count, read, QUIRE_ANNOT_DASH_PATTERN),
                     QUIRE_OK);
        CHECK_INT(count, 2);
        CHECK(numbers[0] == 12 && numbers[1] == 6);
        CHECK_STATUS(
            quire_annotation_points(numbers, 8, &count, read, QUIRE_ANNOT_RECT_DIFFERENCES),
            QUIRE_OK);
        CHECK_INT(count, 4);
        /* A cloudy Square's /Rect becomes its cloud's bounds and /RD the inset from there
         * to the rectangle the cloud runs along, as Acrobat writes them: that rectangle,
         * /Rect (100 100 300 300) less /RD (1 2 3 4), is kept. */
        CHECK_STATUS(quire_annotation_rect(&box, read), QUIRE_OK);
        CHECK(fabs(box.left + numbers[0] - 101) < 0.002 &&
              fabs(box.bottom + numbers[1] - 102) < 0.002);
        CHECK(fabs(box.right - numbers[2] - 297) < 0.002 &&
              fabs(box.top - numbers[3] - 296) < 0.002);
        CHECK(numbers[0] > 9 && box.left < 92); /* the curls (radius 8.5) reach out of it */
        CHECK_STATUS(quire_annotation_number(&value, read, QUIRE_ANNOT_CLOUDY_INTENSITY), QUIRE_OK);
        CHECK(value == 2);
        /* 0 removes the effect. */
        CHECK_STATUS(quire_annotation_set_number(read, QUIRE_ANNOT_CLOUDY_INTENSITY, 0), QUIRE_OK);
        CHECK_STATUS(quire_annotation_number(&value, read, QUIRE_ANNOT_CLOUDY_INTENSITY),
                     QUIRE_ENOTFOUND);
        CHECK_STATUS(quire_document_update_annotation(doc, read), QUIRE_OK);
        quire_annotation_free(read);
        read = NULL;
    }
    CHECK_STATUS(quire_document_annotation(&read, doc, caret_id), QUIRE_OK);
    if (read) {
        CHECK_SUBTYPE(read, "Caret");
        CHECK_STATUS(quire_annotation_string(text, sizeof text, &len, read, QUIRE_ANNOT_SYMBOL),
                     QUIRE_OK);
        CHECK_STR(text, "P");
        quire_annotation_free(read);
        read = NULL;
    }
    /* A FreeText callout: intent, callout line, alignment. */
    {
        static const double cl[6] = {60, 60, 100, 100, 140, 150}, bad[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        quire_annotation *ft = new_annot("FreeText", 0, 40, 40, 260, 260);
        int32_t ft_id = -1;
        if (ft) {
            CHECK_STATUS(quire_annotation_set_number(ft, QUIRE_ANNOT_ALIGNMENT, 3), QUIRE_EINVAL);
            CHECK_STATUS(quire_annotation_set_number(ft, QUIRE_ANNOT_ALIGNMENT, 0.5), QUIRE_EINVAL);
            CHECK_STATUS(quire_annotation_set_points(ft, QUIRE_ANNOT_CALLOUT_LINE, bad, 8),
                         QUIRE_EINVAL);
            CHECK_STATUS(quire_annotation_set_string(ft, QUIRE_ANNOT_INTENT, ""), QUIRE_EINVAL);
            CHECK_STATUS(quire_annotation_set_string(ft, QUIRE_ANNOT_INTENT, "FreeTextCallout"),
                         QUIRE_OK);
            CHECK_STATUS(quire_annotation_set_points(ft, QUIRE_ANNOT_CALLOUT_LINE, cl, 6),
                         QUIRE_OK);
            CHECK_STATUS(quire_annotation_set_number(ft, QUIRE_ANNOT_ALIGNMENT, 2), QUIRE_OK);
            CHECK_STATUS(quire_annotation_set_string(ft, QUIRE_ANNOT_LINE_START, "OpenArrow"),
                         QUIRE_OK);
            CHECK_STATUS(quire_annotation_set_string(ft, QUIRE_ANNOT_CONTENTS, "Callout"),
                         QUIRE_OK);
            CHECK_STATUS(quire_document_add_annotation(doc, ft), QUIRE_OK);
            CHECK_STATUS(quire_annotation_id(&ft_id, ft), QUIRE_OK);
            quire_annotation_free(ft);
        }
        CHECK_STATUS(quire_document_annotation(&read, doc, ft_id), QUIRE_OK);
        if (read) {
            CHECK_STATUS(quire_annotation_string(text, sizeof text, &len, read, QUIRE_ANNOT_INTENT),
                         QUIRE_OK);
            CHECK_STR(text, "FreeTextCallout");
            CHECK_STATUS(
                quire_annotation_points(numbers, 8, &count, read, QUIRE_ANNOT_CALLOUT_LINE),
                QUIRE_OK);
            CHECK_INT(count, 6);
            CHECK(numbers[2] == 100 && numbers[5] == 150);
            CHECK_STATUS(quire_annotation_number(&value, read, QUIRE_ANNOT_ALIGNMENT), QUIRE_OK);
            CHECK(value == 2);
            CHECK_STATUS(
                quire_annotation_string(text, sizeof text, &len, read, QUIRE_ANNOT_LINE_START),
                QUIRE_OK);
            CHECK_STR(text, "OpenArrow");
            quire_annotation_free(read);
            read = NULL;
        }
    }
    /* The image stamp exports as a pspdfkit/image record with its attachment. */
    {
        char *json = NULL;
        CHECK_STATUS(quire_document_export_annotations_json(NULL, 0, &len, doc, 0), QUIRE_OK);
        json = malloc(len + 1);
        if (json) {
            CHECK_STATUS(quire_document_export_annotations_json(json, len + 1, &len, doc, 0),
                         QUIRE_OK);
            CHECK(strstr(json, "\"pspdfkit/image\"") != NULL);
            CHECK(strstr(json, "\"image/png\"") != NULL);
            CHECK(strstr(json, "\"symbol\" : \"P\"") != NULL);
            free(json);
        }
    }
    quire_annotation_free(square);
    quire_annotation_free(caret);
    quire_annotation_free(stamp);
    quire_document_close(doc);
    free(original);
}

/* A FileAttachment embeds its file (binary, with a NUL inside) with its name, media type and
   description; the rules refuse a file without a name, a bad name or media type, a file on
   another subtype and a FileAttachment without one; the file reads back, also after a save. */
static void test_file_attachment(void) {
    static const char payload[] = "first line\n\0second line\n";
    unsigned char *original;
    size_t size = 0, len = 0;
    char text[64], bytes[64];
    quire_document *doc = NULL, *again = NULL;
    quire_annotation *file, *square, *read = NULL;
    int32_t file_id = -1, square_id = -1;
    original = read_file(corpus(ANNOTS_PDF), &size);
    CHECK(original != NULL);
    if (!original) return;
    CHECK_STATUS(quire_document_open_memory(&doc, original, size, NULL), QUIRE_OK);
    file = new_annot("FileAttachment", 0, 50, 50, 70, 80);
    square = new_annot("Square", 0, 100, 100, 150, 150);
    if (doc && file && square) {
        CHECK_STATUS(quire_document_add_annotation(doc, file), QUIRE_EINVAL); /* no file */
        CHECK_STATUS(quire_annotation_set_file(file, payload, sizeof payload, NULL, NULL, NULL),
                     QUIRE_EINVAL);
        CHECK_STATUS(
            quire_annotation_set_file(file, payload, sizeof payload, "a/b.txt", NULL, NULL),
            QUIRE_EINVAL);
        CHECK_STATUS(
            quire_annotation_set_file(file, payload, sizeof payload, "b.txt", "text", NULL),
            QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_file(file, NULL, 3, "b.txt", NULL, NULL), QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_file(NULL, payload, 3, "b.txt", NULL, NULL),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_string(file, QUIRE_ANNOT_FILE_NAME, "x.txt"),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_file(square, payload, 3, "b.txt", NULL, NULL), QUIRE_OK);
        CHECK_STATUS(quire_document_add_annotation(doc, square), QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_file(square, NULL, 0, NULL, NULL, NULL), QUIRE_OK);
        CHECK_STATUS(quire_document_add_annotation(doc, square), QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_file(file, payload, sizeof payload, "notes.txt",
                                               "text/plain", "the notes"),
                     QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_string(file, QUIRE_ANNOT_ICON, "Paperclip"), QUIRE_OK);
        CHECK_STATUS(quire_document_add_annotation(doc, file), QUIRE_OK);
        CHECK_STATUS(quire_annotation_id(&file_id, file), QUIRE_OK);
        CHECK_STATUS(quire_annotation_id(&square_id, square), QUIRE_OK);
        /* The file, binary-safe, through the length-query pattern. */
        CHECK_STATUS(quire_document_annotation_file(NULL, 0, &len, doc, file_id), QUIRE_OK);
        CHECK_INT((long)len, (long)sizeof payload);
        CHECK_STATUS(quire_document_annotation_file(bytes, 4, &len, doc, file_id), QUIRE_EBUFS);
        CHECK_STATUS(quire_document_annotation_file(bytes, sizeof bytes, &len, doc, file_id),
                     QUIRE_OK);
        CHECK(len == sizeof payload && memcmp(bytes, payload, sizeof payload) == 0);
        CHECK_STATUS(quire_document_annotation_file(bytes, sizeof bytes, &len, doc, square_id),
                     QUIRE_ENOTFOUND);
        CHECK_STATUS(quire_document_annotation_file(bytes, sizeof bytes, &len, doc, 99999),
                     QUIRE_ENOTFOUND);
        again = save_and_reopen(doc, original, size);
    }
    if (again) {
        CHECK_STATUS(quire_document_annotation(&read, again, file_id), QUIRE_OK);
        if (read) {
            CHECK_STATUS(
                quire_annotation_string(text, sizeof text, &len, read, QUIRE_ANNOT_FILE_NAME),
                QUIRE_OK);
            CHECK_STR(text, "notes.txt");
            CHECK_STATUS(quire_annotation_string(text, sizeof text, &len, read,
                                                 QUIRE_ANNOT_FILE_CONTENT_TYPE),
                         QUIRE_OK);
            CHECK_STR(text, "text/plain");
            CHECK_STATUS(quire_annotation_string(text, sizeof text, &len, read,
                                                 QUIRE_ANNOT_FILE_DESCRIPTION),
                         QUIRE_OK);
            CHECK_STR(text, "the notes");
            CHECK_STATUS(quire_annotation_string(text, sizeof text, &len, read, QUIRE_ANNOT_ICON),
                         QUIRE_OK);
            CHECK_STR(text, "Paperclip");
        }
        CHECK_STATUS(quire_document_annotation_file(bytes, sizeof bytes, &len, again, file_id),
                     QUIRE_OK);
        CHECK(len == sizeof payload && memcmp(bytes, payload, sizeof payload) == 0);
    }
    quire_annotation_free(read);
    quire_document_close(again);
    quire_annotation_free(file);
    quire_annotation_free(square);
    quire_document_close(doc);
    free(original);
}

/* Measurement (a distance at a scale: /Measure, /IT and /Contents computed), rotation, blend
   mode and z-order moves, through the C layer; the rules refuse what they must. */
static void test_measure_rotate_order(void) {
    unsigned char *original;
    size_t size = 0, len = 0;
    char text[64];
    double value = -1, line[4] = {0, 0, 144, 0}; /* two inches */
    int32_t first = -1, second = -1, moved = -1, count, last_id = -1, done = 0;
    quire_document *doc = NULL;
    quire_annotation *dist, *square, *other, *text_annot, *read = NULL;
    quire_tool_manager *manager = NULL;
    original = read_file(corpus(ANNOTS_PDF), &size);
    CHECK(original != NULL);
    if (!original) return;
    CHECK_STATUS(quire_document_open_memory(&doc, original, size, NULL), QUIRE_OK);
    dist = new_annot("Line", 0, 0, 0, 200, 20);
    square = new_annot("Square", 0, 100, 100, 150, 150);
    other = new_annot("Square", 0, 120, 120, 170, 170);
    text_annot = new_annot("FreeText", 0, 100, 100, 120, 200);
    if (doc && dist && square && other && text_annot) {
        CHECK_STATUS(quire_annotation_set_points(dist, QUIRE_ANNOT_LINE, line, 4), QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_measurement(dist, 1, "in", 1, "furlong", 2),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_measurement(dist, 1, "ft", 1, "in", 2), QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_measurement(dist, 0, "in", 1, "in", 2), QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_measurement(dist, 1, "in", 1, "in", 5), QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_measurement(dist, 1, "in", 1, NULL, 2), QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_measurement(square, 1, "in", 1, "in", 2), QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_number(&value, dist, QUIRE_ANNOT_MEASURED_VALUE),
                     QUIRE_ENOTFOUND);
        CHECK_STATUS(quire_annotation_set_measurement(dist, 1, "in", 2.54, "cm", 2), QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_number(dist, QUIRE_ANNOT_MEASURED_VALUE, 3),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_string(dist, QUIRE_ANNOT_MEASURE_TO_UNIT, "m"),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_document_add_annotation(doc, dist), QUIRE_OK);
        CHECK_STATUS(quire_annotation_string(text, sizeof text, &len, dist, QUIRE_ANNOT_CONTENTS),
                     QUIRE_OK);
        CHECK_STR(text, "5.08 cm"); /* 2 in at 1 in = 2.54 cm */
        CHECK_STATUS(quire_annotation_string(text, sizeof text, &len, dist, QUIRE_ANNOT_INTENT),
                     QUIRE_OK);
        CHECK_STR(text, "LineDimension");
        CHECK_STATUS(quire_annotation_number(&value, dist, QUIRE_ANNOT_MEASURED_VALUE), QUIRE_OK);
        CHECK(value > 5.0799 && value < 5.0801);
        CHECK_STATUS(quire_annotation_number(&value, dist, QUIRE_ANNOT_MEASURE_FROM_VALUE),
                     QUIRE_OK);
        CHECK(value == 1);
        CHECK_STATUS(quire_annotation_number(&value, dist, QUIRE_ANNOT_MEASURE_TO_VALUE), QUIRE_OK);
        CHECK(value == 2.54);
        CHECK_STATUS(quire_annotation_number(&value, dist, QUIRE_ANNOT_MEASURE_PRECISION),
                     QUIRE_OK);
        CHECK(value == 2);
        CHECK_STATUS(
            quire_annotation_string(text, sizeof text, &len, dist, QUIRE_ANNOT_MEASURE_FROM_UNIT),
            QUIRE_OK);
        CHECK_STR(text, "in");
        /* Rotation: FreeText and Stamp, by quarters. */
        CHECK_STATUS(quire_annotation_set_number(square, QUIRE_ANNOT_ROTATION, 90), QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_number(text_annot, QUIRE_ANNOT_ROTATION, 45),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_number(text_annot, QUIRE_ANNOT_ROTATION, 270), QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_string(text_annot, QUIRE_ANNOT_CONTENTS, "up"), QUIRE_OK);
        CHECK_STATUS(quire_document_add_annotation(doc, text_annot), QUIRE_OK);
        CHECK_STATUS(quire_annotation_number(&value, text_annot, QUIRE_ANNOT_ROTATION), QUIRE_OK);
        CHECK(value == 270);
        /* Blend mode. */
        CHECK_STATUS(quire_annotation_set_string(square, QUIRE_ANNOT_BLEND_MODE, "Burn"),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_string(square, QUIRE_ANNOT_BLEND_MODE, "Multiply"),
                     QUIRE_OK);
        CHECK_STATUS(quire_document_add_annotation(doc, square), QUIRE_OK);
        CHECK_STATUS(quire_document_add_annotation(doc, other), QUIRE_OK);
        CHECK_STATUS(quire_annotation_id(&first, square), QUIRE_OK);
        CHECK_STATUS(quire_annotation_id(&second, other), QUIRE_OK);
        read = doc_annot(doc, first);
        if (read) {
            CHECK_STATUS(
                quire_annotation_string(text, sizeof text, &len, read, QUIRE_ANNOT_BLEND_MODE),
                QUIRE_OK);
            CHECK_STR(text, "Multiply");
            quire_annotation_free(read);
            read = NULL;
        }
        /* Z-order: the square goes over `other`, then nowhere (already on top). */
        CHECK_STATUS(quire_document_move_annotation(&moved, doc, first, QUIRE_ANNOT_TO_FRONT),
                     QUIRE_OK);
        CHECK_INT(moved, 1);
        CHECK_STATUS(quire_document_move_annotation(&moved, doc, first, QUIRE_ANNOT_FORWARD),
                     QUIRE_OK);
        CHECK_INT(moved, 0);
        CHECK_STATUS(quire_document_move_annotation(&moved, doc, first, QUIRE_ANNOT_BACKWARD),
                     QUIRE_OK);
        CHECK_INT(moved, 1);
        CHECK_STATUS(quire_document_move_annotation(&moved, doc, first, QUIRE_ANNOT_FORWARD),
                     QUIRE_OK);
        CHECK_INT(moved, 1);
        count = page_count_of(doc, 0);
        read = page_annot(doc, 0, count - 1);
        if (read) {
            CHECK_STATUS(quire_annotation_id(&last_id, read), QUIRE_OK);
            CHECK_INT(last_id, first);
            quire_annotation_free(read);
            read = NULL;
        }
        CHECK_STATUS(quire_document_move_annotation(NULL, doc, 99999, QUIRE_ANNOT_FORWARD),
                     QUIRE_ENOTFOUND);
        CHECK_STATUS(
            quire_document_move_annotation(NULL, doc, first, (quire_annot_order)QUIRE_ANNOT_COLOR),
            QUIRE_EINVAL);
        /* Through a tool manager: one undo step, undone. */
        CHECK_STATUS(quire_tool_manager_move_selection(NULL, NULL, QUIRE_ANNOT_TO_BACK),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_tool_manager_new(&manager, doc, NULL), QUIRE_OK);
        if (manager) {
            CHECK_STATUS(quire_tool_manager_move_selection(&moved, manager, QUIRE_ANNOT_TO_BACK),
                         QUIRE_ESTATE);
            CHECK_STATUS(quire_tool_manager_select(manager, first, QUIRE_SELECT_REPLACE), QUIRE_OK);
            CHECK_STATUS(quire_tool_manager_move_selection(&moved, manager, QUIRE_ANNOT_TO_BACK),
                         QUIRE_OK);
            CHECK_INT(moved, 1);
            read = page_annot(doc, 0, 0);
            if (read) {
                CHECK_STATUS(quire_annotation_id(&last_id, read), QUIRE_OK);
                CHECK_INT(last_id, first);
                quire_annotation_free(read);
                read = NULL;
            }
            CHECK_STATUS(quire_tool_manager_undo(&done, manager), QUIRE_OK);
            CHECK_INT(done, 1);
            read = page_annot(doc, 0, count - 1);
            if (read) {
                CHECK_STATUS(quire_annotation_id(&last_id, read), QUIRE_OK);
                CHECK_INT(last_id, first);
                quire_annotation_free(read);
                read = NULL;
            }
            /* The distance tool measures at the manager's scale: 2 in at 1 in = 1 ft. */
            CHECK_STATUS(quire_tool_manager_set_measurement(NULL, 1, "in", 1, "ft", 2),
                         QUIRE_EINVAL);
            CHECK_STATUS(quire_tool_manager_set_measurement(manager, 1, "ft", 1, "in", 2),
                         QUIRE_EINVAL);
            CHECK_STATUS(quire_tool_manager_set_measurement(manager, 1, "in", 1, "ft", 2),
                         QUIRE_OK);
            {
                static const quire_tool kinds[] = {QUIRE_TOOL_CARET, QUIRE_TOOL_CLOUD,
                                                   QUIRE_TOOL_CALLOUT, QUIRE_TOOL_PERIMETER,
                                                   QUIRE_TOOL_AREA};
                quire_tool now = QUIRE_TOOL_PAN;
                size_t k;
                for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
                    CHECK_STATUS(quire_tool_manager_set_tool(manager, kinds[k]), QUIRE_OK);
                    CHECK_STATUS(quire_tool_manager_current_tool(&now, manager), QUIRE_OK);
                    CHECK_INT(now, kinds[k]);
                }
            }
            CHECK_STATUS(quire_tool_manager_set_tool(manager, QUIRE_TOOL_DISTANCE), QUIRE_OK);
            CHECK_STATUS(
                quire_tool_manager_send(&done, manager, QUIRE_POINTER_DRAG_BEGIN, 0, 300, 300),
                QUIRE_OK);
            CHECK_STATUS(
                quire_tool_manager_send(&done, manager, QUIRE_POINTER_DRAG_END, 0, 444, 300),
                QUIRE_OK);
            read = page_annot(doc, 0, count);
            if (read) {
                CHECK_STATUS(
                    quire_annotation_string(text, sizeof text, &len, read, QUIRE_ANNOT_CONTENTS),
                    QUIRE_OK);
                CHECK_STR(text, "2.00 ft");
                quire_annotation_free(read);
                read = NULL;
            }
            quire_tool_manager_free(manager);
        }
    }
    quire_annotation_free(dist);
    quire_annotation_free(square);
    quire_annotation_free(other);
    quire_annotation_free(text_annot);
    quire_document_close(doc);
    free(original);
}

/* Record ids (quire_document_annotation_record_id, _by_record_id): the export's `id` of each
 * annotation, each finding its annotation again; a new annotation's is its /NM. */
/* A Line's caption (/Cap, /CP, /CO): set, checked, stored and read back. */
static void test_line_caption(void) {
    quire_document *doc = open_corpus(ANNOTS_PDF, NULL);
    quire_annotation *line = new_annot("Line", 0, 100, 300, 300, 340), *read = NULL;
    double points[4] = {110, 320, 290, 320}, offset[2] = {5, -1}, value = -1, got[4];
    char text[32];
    size_t len = 0, count = 0;
    int32_t id = -1;
    if (doc && line) {
        CHECK_STATUS(quire_annotation_set_points(line, QUIRE_ANNOT_LINE, points, 4), QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_string(line, QUIRE_ANNOT_CONTENTS, "12 ft"), QUIRE_OK);
        /* Unset: no caption, no position, no offset. */
        CHECK_STATUS(quire_annotation_number(&value, line, QUIRE_ANNOT_CAPTION), QUIRE_OK);
        CHECK(value == 0);
        CHECK_STATUS(
            quire_annotation_string(text, sizeof text, &len, line, QUIRE_ANNOT_CAPTION_POSITION),
            QUIRE_ENOTFOUND);
        /* The rules: 0 or 1; Inline or Top; 2 finite numbers or none. */
        CHECK_STATUS(quire_annotation_set_number(line, QUIRE_ANNOT_CAPTION, 2), QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_string(line, QUIRE_ANNOT_CAPTION_POSITION, "Below"),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_points(line, QUIRE_ANNOT_CAPTION_OFFSET, points, 3),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_number(line, QUIRE_ANNOT_CAPTION, 1), QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_string(line, QUIRE_ANNOT_CAPTION_POSITION, "Top"),
                     QUIRE_OK);
        CHECK_STATUS(quire_annotation_set_points(line, QUIRE_ANNOT_CAPTION_OFFSET, offset, 2),
                     QUIRE_OK);
        CHECK_STATUS(quire_document_add_annotation(doc, line), QUIRE_OK);
        CHECK_STATUS(quire_annotation_id(&id, line), QUIRE_OK);
        read = doc_annot(doc, id);
        if (read) {
            CHECK_STATUS(quire_annotation_number(&value, read, QUIRE_ANNOT_CAPTION), QUIRE_OK);
            CHECK(value == 1);
            CHECK_STATUS(quire_annotation_string(text, sizeof text, &len, read,
                                                 QUIRE_ANNOT_CAPTION_POSITION),
                         QUIRE_OK);
            CHECK_STR(text, "Top");
            CHECK_STATUS(quire_annotation_points(got, 4, &count, read, QUIRE_ANNOT_CAPTION_OFFSET),
                         QUIRE_OK);
            CHECK(count == 2 && got[0] == 5 && got[1] == -1);
            quire_annotation_free(read);
        }
    }
    quire_annotation_free(line);
    quire_document_close(doc);
}

static void test_record_ids(void) {
    quire_document *doc = open_corpus(ANNOTS_PDF, NULL);
    quire_annotation *a = NULL, *found = NULL, *note = NULL;
    char rid[256], pattern[300], name[128], small[2];
    size_t len = 0, json_len = 0;
    int32_t count = 0, k, number = -1, again = -2;
    char *json;
    if (!doc) return;
    json = export_json(doc, -1, &json_len);
    CHECK_STATUS(quire_page_annotation_count(&count, doc, 0), QUIRE_OK);
    CHECK(count > 0);
    for (k = 0; k < count; k++) {
        CHECK_STATUS(quire_page_annotation(&a, doc, 0, k), QUIRE_OK);
        if (!a) continue;
        CHECK_STATUS(quire_document_annotation_record_id(NULL, 0, &len, doc, a), QUIRE_OK);
        CHECK(len > 0 && len < sizeof rid);
        CHECK_STATUS(quire_document_annotation_record_id(rid, sizeof rid, &len, doc, a), QUIRE_OK);
        CHECK(strlen(rid) == len);
        /* The export names it so. */
        snprintf(pattern, sizeof pattern, "\"id\" : \"%s\",", rid); /* pretty-printed */
        CHECK(json != NULL && strstr(json, pattern) != NULL);
        CHECK_STATUS(quire_document_annotation_by_record_id(&found, doc, rid), QUIRE_OK);
        if (found) {
            if (quire_annotation_id(&number, a) == QUIRE_OK) {
                CHECK_STATUS(quire_annotation_id(&again, found), QUIRE_OK);
                CHECK(again == number);
            }
            quire_annotation_free(found);
            found = NULL;
        }
        if (k == 0) {
            CHECK_STATUS(quire_document_annotation_record_id(small, sizeof small, &len, doc, a),
                         len + 1 > sizeof small ? QUIRE_EBUFS : QUIRE_OK);
            CHECK_STATUS(quire_document_annotation_record_id(NULL, 0, &len, NULL, a), QUIRE_EINVAL);
            CHECK_STATUS(quire_document_annotation_record_id(NULL, 0, &len, doc, NULL),
                         QUIRE_EINVAL);
            CHECK_STATUS(quire_document_annotation_record_id(NULL, 0, NULL, doc, a), QUIRE_EINVAL);
        }
        quire_annotation_free(a);
        a = NULL;
    }
    /* A new annotation: none before it is added; its /NM after. */
    note = new_annot("Square", 0, 10, 10, 60, 60);
    if (note) {
        CHECK_STATUS(quire_document_annotation_record_id(NULL, 0, &len, doc, note),
                     QUIRE_ENOTFOUND);
        CHECK_STATUS(quire_document_add_annotation(doc, note), QUIRE_OK);
        CHECK_STATUS(
            quire_annotation_string(name, sizeof name, &len, note, QUIRE_ANNOT_UNIQUE_NAME),
            QUIRE_OK);
        CHECK_STATUS(quire_document_annotation_record_id(rid, sizeof rid, &len, doc, note),
                     QUIRE_OK);
        CHECK_STR(rid, name);
        CHECK_STATUS(quire_document_annotation_by_record_id(&found, doc, name), QUIRE_OK);
        quire_annotation_free(found);
        found = NULL;
        quire_annotation_free(note);
    }
    CHECK_STATUS(quire_document_annotation_by_record_id(&found, doc, "no-such-record"),
                 QUIRE_ENOTFOUND);
    CHECK(found == NULL);
    CHECK_STATUS(quire_document_annotation_by_record_id(&found, doc, ""), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_annotation_by_record_id(&found, doc, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_annotation_by_record_id(NULL, doc, "x"), QUIRE_EINVAL);
    free(json);
    quire_document_close(doc);
}

/* ---- the program ----------------------------------------------------------------------------- */

static const struct test_case annotations_tests[] = {
    {"read_annots_pdf", test_read_annots_pdf},
    {"read_caret_pdf", test_read_caret_pdf},
    {"bulk_infos", test_bulk_infos},
    {"read_states", test_read_states},
    {"create_subtypes", test_create_subtypes},
    {"update_and_delete", test_update_and_delete},
    {"add_copy", test_add_copy},
    {"replies_and_threads", test_replies_and_threads},
    {"set_in_reply_to", test_set_in_reply_to},
    {"state_rules", test_state_rules},
    {"replies_switch", test_replies_switch},
    {"search", test_search},
    {"errors", test_errors},
    {"json", test_json},
    {"styles_and_kinds", test_styles_and_kinds},
    {"file_attachment", test_file_attachment},
    {"measure_rotate_order", test_measure_rotate_order},
    {"line_caption", test_line_caption},
    {"record_ids", test_record_ids},
    {NULL, NULL}};

const struct test_suite annotations_suite = {"annotations", NULL, NULL, annotations_tests};
