/*
 * test_bookmarks.c: the 0.4 interface of include/quire.h, "Bookmarks": bookmark values (every
 * getter and setter, the length-query pattern, the actions and their errors), the document's
 * bookmarks with the built-in provider (add, replace in place, remove, move, both sort orders,
 * the change callback, the export to the outline), persistence through a save and a reopen,
 * and a chain of providers written in C (routing, the load sink, callbacks that fail, a
 * provider that calls back into the document, invalid chains, release).
 *
 * Linked into out/test_api with the other test files (test_support.h has the framework).
 * Every expected value comes from:
 *  - "the header": include/quire.h, the contract (statuses, orders, ownership, release);
 *  - "pypdfium2": page counts of the files (PdfDocument.__len__), which the manifest agrees
 *    with: page_labels.pdf has 7 pages, V4-aes.pdf 30, and page_labels.pdf has 6 outline
 *    items (FPDFBookmark_GetFirstChild/GetNextSibling, all levels);
 *  - "set above": what the test wrote itself, read back (after a save and a reopen).
 */
#define _POSIX_C_SOURCE 200809L

#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LABELS_PDF "pdfium/testing/resources/page_labels.pdf" /* 7 pages, 6 outline items */
#define LABELS_PAGES 7
#define LABELS_OUTLINE 6
#define AES_PDF "qpdf/qpdf/qtest/qpdf/V4-aes.pdf" /* 30 pages, AES-128, empty user password */
#define AES_PAGES 30

/* ---- helpers: text through the length-query pattern ---------------------------------------- */

typedef int (*bookmark_text_fn)(char *, size_t, size_t *, const quire_bookmark *);

/* The text through the length-query pattern (the NULL/0 query, then exactly *out_len + 1
 * bytes): a malloc'd copy, or NULL with *status the failing status. */
static char *btext_at(bookmark_text_fn fn, const quire_bookmark *b, int *status,
                      const char *file, int line) {
    size_t len = (size_t)-1, len2 = (size_t)-1;
    char *buf;
    int st = fn(NULL, 0, &len, b);
    if (status) *status = st;
    if (st != QUIRE_OK) return NULL;
    report(len < 1000000u, file, line, "the length query set *out_len to %zu", len);
    if (len >= 1000000u) return NULL;
    buf = malloc(len + 2);
    if (!buf) return NULL;
    buf[len + 1] = 'Z';
    st = fn(buf, len + 1, &len2, b);
    report(st == QUIRE_OK && len2 == len, file, line,
           "reading %zu + 1 bytes returned %d, *out_len %zu: %s", len, st, len2,
           quire_last_error_message());
    if (st != QUIRE_OK || len2 != len) {
        if (status) *status = st == QUIRE_OK ? QUIRE_EINTERNAL : st;
        free(buf);
        return NULL;
    }
    report(buf[len] == '\0' && buf[len + 1] == 'Z', file, line,
           "no NUL after the text, or a byte written past it");
    return buf;
}

static void check_btext_at(bookmark_text_fn fn, const quire_bookmark *b, const char *expected,
                           const char *what, const char *file, int line) {
    int status = 0;
    char *s = btext_at(fn, b, &status, file, line);
    report(s != NULL && strcmp(s, expected) == 0, file, line, "%s is \"%s\" (status %d), expected \"%s\"",
           what, s ? s : "(failed)", status, expected);
    free(s);
}
#define CHECK_BTEXT(fn, b, expected) check_btext_at((fn), (b), (expected), #fn "(" #b ")", __FILE__, __LINE__)

/* The getter fails with `expected` (QUIRE_ENOTFOUND: the bookmark lacks it) and leaves
 * *out_len alone. */
static void check_btext_status_at(bookmark_text_fn fn, const quire_bookmark *b, int expected,
                                  const char *what, const char *file, int line) {
    size_t len = 4242;
    char buf[8];
    memset(buf, 'Z', sizeof buf);
    check_status(fn(NULL, 0, &len, b), expected, what, file, line);
    report(len == 4242, file, line, "%s wrote *out_len on failure", what);
    check_status(fn(buf, sizeof buf, &len, b), expected, what, file, line);
    report(buf[0] == 'Z' && len == 4242, file, line, "%s wrote the buffer on failure", what);
}
#define CHECK_BTEXT_STATUS(fn, b, expected)                                                  \
    check_btext_status_at((fn), (b), (expected), #fn "(" #b ")", __FILE__, __LINE__)

/* The whole length-query protocol on one text of length > 0 (as check_length_query in
 * test_support.c): buffers of 0, 1 and *out_len bytes give QUIRE_EBUFS with *out_len set and
 * the buffer untouched; *out_len + 1 bytes give the text and a NUL, nothing after; a NULL
 * out_len, or a NULL buffer with a size, give QUIRE_EINVAL. */
static void check_blength_query_at(bookmark_text_fn fn, const quire_bookmark *b,
                                   const char *file, int line) {
    size_t len = 0, len2, sizes[3];
    char *expected = btext_at(fn, b, NULL, file, line);
    char buf[512], before[512];
    int k, status;
    report(expected != NULL, file, line, "the text to check the length query with");
    if (!expected) return;
    len = strlen(expected);
    report(len > 0 && len + 16 < sizeof buf, file, line, "a text of %zu bytes", len);
    if (len == 0 || len + 16 >= sizeof buf) {
        free(expected);
        return;
    }
    memset(buf, 'Z', sizeof buf);
    memcpy(before, buf, sizeof buf);
    sizes[0] = 0;
    sizes[1] = 1;
    sizes[2] = len;
    for (k = 0; k < 3; k++) {
        len2 = 12345;
        status = fn(buf, sizes[k], &len2, b);
        report(status == QUIRE_EBUFS, file, line,
               "a buffer of %zu bytes for %zu + 1 returned %d, not QUIRE_EBUFS", sizes[k], len,
               status);
        report(status != QUIRE_EBUFS || quire_last_error_code() == QUIRE_EBUFS, file, line,
               "QUIRE_EBUFS is not the last error");
        report(len2 == len, file, line, "QUIRE_EBUFS set *out_len to %zu, not %zu", len2, len);
        report(memcmp(buf, before, sizeof buf) == 0, file, line,
               "a buffer of %zu bytes was written although too small", sizes[k]);
    }
    len2 = 0;
    status = fn(buf, len + 1, &len2, b);
    report(status == QUIRE_OK && len2 == len && memcmp(buf, expected, len) == 0 &&
               buf[len] == '\0' && memcmp(buf + len + 1, before + len + 1, sizeof buf - len - 1) == 0,
           file, line, "a buffer of *out_len + 1 bytes: status %d, *out_len %zu", status, len2);
    memset(buf, 'Z', sizeof buf);
    status = fn(buf, sizeof buf, NULL, b);
    report(status == QUIRE_EINVAL, file, line, "a NULL out_len returned %d", status);
    len2 = 777;
    status = fn(NULL, 10, &len2, b);
    report(status == QUIRE_EINVAL && len2 == 777, file, line,
           "NULL buf with buf_size 10 returned %d, *out_len %zu", status, len2);
    report(memcmp(buf, before, sizeof buf) == 0, file, line, "the buffer was written on QUIRE_EINVAL");
    free(expected);
}
#define CHECK_BLENGTH_QUERY(fn, b) check_blength_query_at((fn), (b), __FILE__, __LINE__)

/* The identifier of a bookmark, malloc'd (the caller frees it); NULL after a failed check. */
static char *bid_at(const quire_bookmark *b, const char *file, int line) {
    int status = 0;
    char *s = btext_at(quire_bookmark_identifier, b, &status, file, line);
    report(s != NULL && s[0] != '\0', file, line, "the identifier: status %d", status);
    return s;
}
#define bid(b) bid_at((b), __FILE__, __LINE__)

/* A new bookmark, as a check; NULL on failure. */
static quire_bookmark *new_bookmark_at(quire_action_type kind, int32_t page, const char *text,
                                       const char *name, const char *file, int line) {
    quire_bookmark *b = NULL;
    int status = quire_bookmark_new(&b, kind, page, text);
    report(status == QUIRE_OK && b != NULL, file, line, "quire_bookmark_new(0x%x, %d, %s) returned %d: %s",
           (unsigned)kind, (int)page, text ? text : "NULL", status, quire_last_error_message());
    if (status != QUIRE_OK) return NULL;
    if (name) {
        status = quire_bookmark_set_name(b, name);
        report(status == QUIRE_OK, file, line, "quire_bookmark_set_name returned %d", status);
    }
    return b;
}
#define new_goto(page, name) new_bookmark_at(QUIRE_BOOKMARK_GOTO, (page), NULL, (name), __FILE__, __LINE__)
#define new_text(kind, text, name) new_bookmark_at((kind), 0, (text), (name), __FILE__, __LINE__)

static int64_t sort_key_of(const quire_bookmark *b) {
    int64_t key = -999;
    return quire_bookmark_sort_key(&key, b) == QUIRE_OK ? key : -999;
}

/* The identifiers of the document's bookmarks in `order`, joined with spaces after mapping
 * each identifier to its one-letter label in `ids`/`labels` ("?" for an unknown one), so that
 * an order is checked as a short string such as "CAD". */
static void order_string(char *out, size_t size, quire_document *doc, quire_bookmark_sort_order order,
                         char *const *ids, const char *labels, int n_ids) {
    int32_t count = 0, k;
    size_t o = 0;
    out[0] = '\0';
    if (quire_document_bookmark_count(&count, doc) != QUIRE_OK) {
        snprintf(out, size, "(count failed)");
        return;
    }
    for (k = 0; k < count && o + 2 < size; k++) {
        quire_bookmark *b = NULL;
        char *id;
        int j;
        char c = '?';
        if (quire_document_bookmark(&b, doc, order, k) != QUIRE_OK) {
            snprintf(out, size, "(bookmark %d failed: %s)", (int)k, quire_last_error_message());
            return;
        }
        id = bid(b);
        for (j = 0; id && j < n_ids; j++)
            if (ids[j] && strcmp(ids[j], id) == 0) c = labels[j];
        out[o++] = c;
        out[o] = '\0';
        free(id);
        quire_bookmark_free(b);
    }
}

/* ---- bookmark values ------------------------------------------------------------------------ */

static void test_values(void) {
    quire_bookmark *go = NULL, *uri = NULL, *named = NULL, *other = NULL, *copy = NULL;
    quire_bookmark *sentinel = (quire_bookmark *)&g_passed, *out;
    quire_action_type kind = (quire_action_type)-1;
    int32_t page = -1;
    int64_t key = 0;
    char *id1, *id2, *text;
    g_test = "bookmark values";

    /* A go-to bookmark: its kind and page; no name, no action text, no sort key yet (the
     * header: QUIRE_ENOTFOUND for each). */
    go = new_goto(3, NULL);
    if (!go) return;
    CHECK_STATUS(quire_bookmark_action_type(&kind, go), QUIRE_OK);
    CHECK_INT(kind, QUIRE_BOOKMARK_GOTO);
    CHECK_STATUS(quire_bookmark_page_index(&page, go), QUIRE_OK);
    CHECK_INT(page, 3);
    CHECK_BTEXT_STATUS(quire_bookmark_name, go, QUIRE_ENOTFOUND);
    CHECK_BTEXT_STATUS(quire_bookmark_action_text, go, QUIRE_ENOTFOUND);
    key = 99;
    CHECK_STATUS(quire_bookmark_sort_key(&key, go), QUIRE_ENOTFOUND);
    CHECK_INT(key, 99);
    CHECK_BLENGTH_QUERY(quire_bookmark_identifier, go);

    /* A new bookmark has a new identifier ("generated for new bookmarks"). */
    out = new_goto(3, NULL);
    id1 = bid(go);
    id2 = out ? bid(out) : NULL;
    CHECK(id1 && id2 && strcmp(id1, id2) != 0);
    free(id2);
    quire_bookmark_free(out);

    /* URI, named and other actions: the text back as given; no page. */
    uri = new_text(QUIRE_BOOKMARK_URI, "https://example.org/a?b=c&d=%C3%A9", NULL);
    named = new_text(QUIRE_BOOKMARK_NAMED, "NextPage", NULL);
    other = new_text(QUIRE_BOOKMARK_OTHER, "<< /S /JavaScript /JS (app.alert\\(1\\)) >>", NULL);
    if (!uri || !named || !other) goto done;
    CHECK_STATUS(quire_bookmark_action_type(&kind, uri), QUIRE_OK);
    CHECK_INT(kind, QUIRE_BOOKMARK_URI);
    CHECK_STATUS(quire_bookmark_action_type(&kind, named), QUIRE_OK);
    CHECK_INT(kind, QUIRE_BOOKMARK_NAMED);
    CHECK_STATUS(quire_bookmark_action_type(&kind, other), QUIRE_OK);
    CHECK_INT(kind, QUIRE_BOOKMARK_OTHER);
    CHECK_BTEXT(quire_bookmark_action_text, uri, "https://example.org/a?b=c&d=%C3%A9");
    CHECK_BTEXT(quire_bookmark_action_text, named, "NextPage");
    CHECK_BLENGTH_QUERY(quire_bookmark_action_text, uri);
    page = 1234;
    CHECK_STATUS(quire_bookmark_page_index(&page, uri), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_bookmark_page_index(&page, named), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_bookmark_page_index(&page, other), QUIRE_ENOTFOUND);
    CHECK_INT(page, 1234);
    /* QUIRE_BOOKMARK_OTHER: the action dictionary in PDF syntax; it parses back to a
     * dictionary with the same /S and /JS. */
    text = btext_at(quire_bookmark_action_text, other, NULL, __FILE__, __LINE__);
    CHECK(text != NULL);
    if (text) {
        quire_value *dict = parse_value(text), *s = NULL, *js = NULL;
        if (dict) {
            CHECK_INT(value_type(dict), QUIRE_VALUE_DICTIONARY);
            CHECK_STATUS(quire_value_dict_get(&s, dict, "S"), QUIRE_OK);
            CHECK_STATUS(quire_value_dict_get(&js, dict, "JS"), QUIRE_OK);
            if (s) CHECK_TEXT(T_VALUE_BYTES, NULL, s, 0, "JavaScript");
            if (js) CHECK_TEXT(T_VALUE_TEXT, NULL, js, 0, "app.alert(1)");
        }
        quire_value_free(s);
        quire_value_free(js);
        quire_value_free(dict);
        free(text);
    }
    /* The ignored page of a URI bookmark may be anything (the header: "ignored"). */
    out = NULL;
    CHECK_STATUS(quire_bookmark_new(&out, QUIRE_BOOKMARK_URI, -5, "https://example.org"), QUIRE_OK);
    quire_bookmark_free(out);

    /* QUIRE_BOOKMARK_OTHER text that is not one dictionary with an /S name: QUIRE_EFORMAT;
     * the out-parameter is untouched. */
    {
        static const char *const bad[] = {
            "<< /JS (app.alert(1)) >>",           /* no /S */
            "<< /S (JavaScript) >>",              /* /S not a name */
            "[/S /JavaScript]",                   /* not a dictionary */
            "<< /S /JavaScript /JS (x)",          /* cut short */
            "<< /S /URI >> trailing",             /* text after the value */
            "/JavaScript",                        /* a name */
        };
        size_t k;
        for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            out = sentinel;
            CHECK_STATUS(quire_bookmark_new(&out, QUIRE_BOOKMARK_OTHER, 0, bad[k]), QUIRE_EFORMAT);
            CHECK(out == sentinel);
        }
    }
    /* The other argument errors: QUIRE_EINVAL (the header: "unknown kind, a negative page,
     * missing or unexpected text, an empty name"). Unknown kinds: numbers (4 and -1; 0 to 3,
     * the kinds' numbers before 0.5), the action types a bookmark cannot have (none, GoToR,
     * Launch), the one past the last, and constants of other families (their own ranges). */
    out = sentinel;
    {
        static const quire_action_type bad_kinds[] = {
            (quire_action_type)4, (quire_action_type)-1, (quire_action_type)0,
            (quire_action_type)1, (quire_action_type)2, (quire_action_type)3,
            QUIRE_ACTION_NONE, QUIRE_ACTION_GOTOR, QUIRE_ACTION_LAUNCH,
            (quire_action_type)(QUIRE_ACTION_OTHER + 1),
            (quire_action_type)QUIRE_BOOKMARK_SORT_PAGE, (quire_action_type)QUIRE_XREF_STREAM,
            (quire_action_type)QUIRE_VALUE_BOOL};
        size_t k;
        for (k = 0; k < sizeof bad_kinds / sizeof bad_kinds[0]; k++) {
            CHECK_STATUS(quire_bookmark_new(&out, bad_kinds[k], 0, NULL), QUIRE_EINVAL);
            CHECK_STATUS(quire_bookmark_new(&out, bad_kinds[k], 0, "NextPage"), QUIRE_EINVAL);
        }
    }
    CHECK_STATUS(quire_bookmark_new(&out, QUIRE_BOOKMARK_GOTO, -1, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_bookmark_new(&out, QUIRE_BOOKMARK_GOTO, 0, "page"), QUIRE_EINVAL);
    CHECK_STATUS(quire_bookmark_new(&out, QUIRE_BOOKMARK_URI, 0, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_bookmark_new(&out, QUIRE_BOOKMARK_NAMED, 0, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_bookmark_new(&out, QUIRE_BOOKMARK_NAMED, 0, ""), QUIRE_EINVAL);
    CHECK_STATUS(quire_bookmark_new(&out, QUIRE_BOOKMARK_OTHER, 0, NULL), QUIRE_EINVAL);
    CHECK(out == sentinel);
    CHECK_STATUS(quire_bookmark_new(NULL, QUIRE_BOOKMARK_GOTO, 0, NULL), QUIRE_EINVAL);

    /* The setters: identifier (non-empty), name (NULL clears), sort key (NULL clears). */
    CHECK_STATUS(quire_bookmark_set_identifier(go, "mine-1"), QUIRE_OK);
    CHECK_BTEXT(quire_bookmark_identifier, go, "mine-1");
    CHECK_STATUS(quire_bookmark_set_identifier(go, ""), QUIRE_EINVAL);
    CHECK_STATUS(quire_bookmark_set_identifier(go, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_bookmark_set_identifier(NULL, "x"), QUIRE_EINVAL);
    CHECK_BTEXT(quire_bookmark_identifier, go, "mine-1");
    CHECK_STATUS(quire_bookmark_set_name(go, "Caf\xc3\xa9 \xe2\x98\x95 chapter"), QUIRE_OK);
    CHECK_BTEXT(quire_bookmark_name, go, "Caf\xc3\xa9 \xe2\x98\x95 chapter");
    CHECK_BLENGTH_QUERY(quire_bookmark_name, go);
    CHECK_STATUS(quire_bookmark_set_name(go, NULL), QUIRE_OK);
    CHECK_BTEXT_STATUS(quire_bookmark_name, go, QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_bookmark_set_name(NULL, "x"), QUIRE_EINVAL);
    CHECK_STATUS(quire_bookmark_set_name(go, "Intro"), QUIRE_OK);
    key = 42;
    CHECK_STATUS(quire_bookmark_set_sort_key(go, &key), QUIRE_OK);
    CHECK_INT(sort_key_of(go), 42);
    key = INT64_MIN;
    CHECK_STATUS(quire_bookmark_set_sort_key(go, &key), QUIRE_OK);
    CHECK(sort_key_of(go) == INT64_MIN);
    key = INT64_MAX;
    CHECK_STATUS(quire_bookmark_set_sort_key(go, &key), QUIRE_OK);
    CHECK(sort_key_of(go) == INT64_MAX);
    CHECK_STATUS(quire_bookmark_set_sort_key(go, NULL), QUIRE_OK);
    CHECK_STATUS(quire_bookmark_sort_key(&key, go), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_bookmark_set_sort_key(NULL, &key), QUIRE_EINVAL);
    key = 7;
    CHECK_STATUS(quire_bookmark_set_sort_key(go, &key), QUIRE_OK);

    /* A copy: the same identifier and properties, and a value of its own. */
    CHECK_STATUS(quire_bookmark_copy(&copy, go), QUIRE_OK);
    if (copy) {
        CHECK_BTEXT(quire_bookmark_identifier, copy, "mine-1");
        CHECK_BTEXT(quire_bookmark_name, copy, "Intro");
        CHECK_INT(sort_key_of(copy), 7);
        CHECK_STATUS(quire_bookmark_page_index(&page, copy), QUIRE_OK);
        CHECK_INT(page, 3);
        CHECK_STATUS(quire_bookmark_set_name(copy, "Changed"), QUIRE_OK);
        CHECK_STATUS(quire_bookmark_set_sort_key(copy, NULL), QUIRE_OK);
        CHECK_BTEXT(quire_bookmark_name, go, "Intro");
        CHECK_INT(sort_key_of(go), 7);
    }
    out = sentinel;
    CHECK_STATUS(quire_bookmark_copy(&out, NULL), QUIRE_EINVAL);
    CHECK(out == sentinel);
    CHECK_STATUS(quire_bookmark_copy(NULL, go), QUIRE_EINVAL);

    /* NULL arguments of the getters. */
    CHECK_STATUS(quire_bookmark_action_type(NULL, go), QUIRE_EINVAL);
    CHECK_STATUS(quire_bookmark_action_type(&kind, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_bookmark_page_index(NULL, go), QUIRE_EINVAL);
    CHECK_STATUS(quire_bookmark_sort_key(NULL, go), QUIRE_EINVAL);
    CHECK_BTEXT_STATUS(quire_bookmark_identifier, NULL, QUIRE_EINVAL);
    CHECK_BTEXT_STATUS(quire_bookmark_name, NULL, QUIRE_EINVAL);
    CHECK_BTEXT_STATUS(quire_bookmark_action_text, NULL, QUIRE_EINVAL);
    quire_bookmark_free(NULL); /* a no-op */

done:
    free(id1);
    quire_bookmark_free(go);
    quire_bookmark_free(uri);
    quire_bookmark_free(named);
    quire_bookmark_free(other);
    quire_bookmark_free(copy);
}

/* ---- the document's bookmarks with the built-in provider ------------------------------------ */

struct change_counter {
    int calls;
    quire_document *doc;
    int wrong_doc;
    int32_t seen_count; /* what quire_document_bookmark_count gave inside the callback */
    int count_status;
};

/* Called after each change: counts, and reads the bookmarks (the callback is not a provider:
 * it may call the document, and sees the change made). */
static void count_change(quire_document *doc, void *payload) {
    struct change_counter *c = payload;
    c->calls++;
    if (doc != c->doc) c->wrong_doc++;
    c->count_status = quire_document_bookmark_count(&c->seen_count, doc);
}

static void test_document_bookmarks(void) {
    quire_document *doc;
    quire_bookmark *b[5] = {NULL, NULL, NULL, NULL, NULL}, *got = NULL, *far = NULL;
    quire_bookmark *sentinel = (quire_bookmark *)&g_passed;
    char *ids[5] = {NULL, NULL, NULL, NULL, NULL};
    char order[64];
    int32_t count = -1, changed = -1;
    quire_bookmark_sort_order sort = (quire_bookmark_sort_order)-1;
    int64_t keys[5];
    struct change_counter counter = {0, NULL, 0, -1, -1};
    quire_bookmark_change_fn on_change = count_change;
    int k;
    g_test = "document bookmarks (built-in provider)";

    doc = open_corpus(LABELS_PDF, NULL);
    if (!doc) return;
    counter.doc = doc;
    CHECK_STATUS(quire_document_set_bookmark_change_callback(doc, on_change, &counter), QUIRE_OK);

    /* A file without stored bookmarks: none; the default sort order is the custom one. */
    CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_OK);
    CHECK_INT(count, 0);
    CHECK_STATUS(quire_document_bookmark_sort_order(&sort, doc), QUIRE_OK);
    CHECK_INT(sort, QUIRE_BOOKMARK_SORT_CUSTOM);
    got = sentinel;
    CHECK_STATUS(quire_document_bookmark(&got, doc, QUIRE_BOOKMARK_SORT_CUSTOM, 0), QUIRE_ERANGE);
    CHECK(got == sentinel);

    /* A: page 5 "five"; B: a URI; C: page 0; D: page 5 again (a tie with A); E: named. */
    b[0] = new_goto(5, "five");
    b[1] = new_text(QUIRE_BOOKMARK_URI, "https://example.org/", NULL);
    b[2] = new_goto(0, "zero");
    b[3] = new_goto(5, "five again");
    b[4] = new_text(QUIRE_BOOKMARK_NAMED, "LastPage", "last");
    for (k = 0; k < 5; k++) {
        if (!b[k]) goto done;
        ids[k] = bid(b[k]);
        CHECK_STATUS(quire_document_add_bookmark(doc, b[k]), QUIRE_OK);
        /* The callback, called after the change, saw it. */
        CHECK_INT(counter.count_status, QUIRE_OK);
        CHECK_INT(counter.seen_count, k + 1);
    }
    CHECK_INT(counter.calls, 5);
    CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_OK);
    CHECK_INT(count, 5);
    /* The built-in provider writes into the document's unsaved changes (the header). */
    CHECK_STATUS(quire_document_has_unsaved_changes(&changed, doc), QUIRE_OK);
    CHECK_INT(changed, 1);

    /* The document holds copies: the caller's values did not get the sort keys, and a
     * change to them does not reach the document. */
    CHECK_STATUS(quire_bookmark_sort_key(&keys[0], b[0]), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_bookmark_set_name(b[0], "not added"), QUIRE_OK);

    /* Sort keys were given in insertion order, increasing (the header: "a new bookmark
     * without a sort key gets one after every other bookmark"). */
    for (k = 0; k < 5; k++) {
        got = NULL;
        keys[k] = -999;
        CHECK_STATUS(quire_document_find_bookmark(&got, doc, ids[k]), QUIRE_OK);
        if (!got) continue;
        CHECK_STATUS(quire_bookmark_sort_key(&keys[k], got), QUIRE_OK);
        if (k > 0) report(keys[k] > keys[k - 1], __FILE__, __LINE__,
                          "sort key %d (%lld) is not after %lld", k, (long long)keys[k],
                          (long long)keys[k - 1]);
        CHECK_BTEXT(quire_bookmark_identifier, got, ids[k]);
        quire_bookmark_free(got);
    }
    got = NULL;
    CHECK_STATUS(quire_document_find_bookmark(&got, doc, ids[0]), QUIRE_OK);
    if (got) CHECK_BTEXT(quire_bookmark_name, got, "five");
    quire_bookmark_free(got);

    /* The custom order is the insertion order; the page order puts pages first (0, then
     * the two of page 5 in their custom order: the tie is stable), then the bookmarks
     * without a page in their custom order (the header). */
    order_string(order, sizeof order, doc, QUIRE_BOOKMARK_SORT_CUSTOM, ids, "ABCDE", 5);
    CHECK_STR(order, "ABCDE");
    order_string(order, sizeof order, doc, QUIRE_BOOKMARK_SORT_PAGE, ids, "ABCDE", 5);
    CHECK_STR(order, "CADBE");

    /* Move D to the front: the custom order changes, and so does the page order's tie. */
    CHECK_STATUS(quire_document_move_bookmark(doc, ids[3], 0), QUIRE_OK);
    CHECK_INT(counter.calls, 6);
    order_string(order, sizeof order, doc, QUIRE_BOOKMARK_SORT_CUSTOM, ids, "ABCDE", 5);
    CHECK_STR(order, "DABCE");
    order_string(order, sizeof order, doc, QUIRE_BOOKMARK_SORT_PAGE, ids, "ABCDE", 5);
    CHECK_STR(order, "CDABE");
    /* Move E (no page) before B: the page order's tail follows the custom order. */
    CHECK_STATUS(quire_document_move_bookmark(doc, ids[4], 2), QUIRE_OK);
    order_string(order, sizeof order, doc, QUIRE_BOOKMARK_SORT_CUSTOM, ids, "ABCDE", 5);
    CHECK_STR(order, "DAEBC");
    order_string(order, sizeof order, doc, QUIRE_BOOKMARK_SORT_PAGE, ids, "ABCDE", 5);
    CHECK_STR(order, "CDAEB");
    /* To the last index. */
    CHECK_STATUS(quire_document_move_bookmark(doc, ids[3], 4), QUIRE_OK);
    order_string(order, sizeof order, doc, QUIRE_BOOKMARK_SORT_CUSTOM, ids, "ABCDE", 5);
    CHECK_STR(order, "AEBCD");
    CHECK_INT(counter.calls, 8);
    /* Errors: an unknown identifier, an index out of range, NULL (the header). */
    CHECK_STATUS(quire_document_move_bookmark(doc, "no-such-bookmark", 0), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_move_bookmark(doc, ids[0], 5), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_move_bookmark(doc, ids[0], -1), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_move_bookmark(doc, NULL, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_move_bookmark(NULL, ids[0], 0), QUIRE_EINVAL);
    order_string(order, sizeof order, doc, QUIRE_BOOKMARK_SORT_CUSTOM, ids, "ABCDE", 5);
    CHECK_STR(order, "AEBCD");
    CHECK_INT(counter.calls, 8);

    /* The document's sort order: a setting, which the listings do not depend on. */
    CHECK_STATUS(quire_document_set_bookmark_sort_order(doc, QUIRE_BOOKMARK_SORT_PAGE), QUIRE_OK);
    CHECK_STATUS(quire_document_bookmark_sort_order(&sort, doc), QUIRE_OK);
    CHECK_INT(sort, QUIRE_BOOKMARK_SORT_PAGE);
    /* Unknown orders: numbers (2, -1; 0 and 1, the orders' numbers before 0.5), the one
     * past the last, and constants of other families (their own ranges). */
    {
        static const quire_bookmark_sort_order bad_orders[] = {
            (quire_bookmark_sort_order)2, (quire_bookmark_sort_order)-1,
            (quire_bookmark_sort_order)0, (quire_bookmark_sort_order)1,
            (quire_bookmark_sort_order)(QUIRE_BOOKMARK_SORT_PAGE + 1),
            (quire_bookmark_sort_order)QUIRE_ACTION_GOTO,
            (quire_bookmark_sort_order)QUIRE_CHECKPOINT_TIMED};
        size_t j;
        for (j = 0; j < sizeof bad_orders / sizeof bad_orders[0]; j++) {
            CHECK_STATUS(quire_document_set_bookmark_sort_order(doc, bad_orders[j]), QUIRE_EINVAL);
            got = sentinel;
            CHECK_STATUS(quire_document_bookmark(&got, doc, bad_orders[j], 0), QUIRE_EINVAL);
            CHECK(got == sentinel);
        }
    }
    CHECK_STATUS(quire_document_bookmark_sort_order(&sort, doc), QUIRE_OK);
    CHECK_INT(sort, QUIRE_BOOKMARK_SORT_PAGE);
    CHECK_STATUS(quire_document_bookmark_sort_order(NULL, doc), QUIRE_EINVAL);
    order_string(order, sizeof order, doc, QUIRE_BOOKMARK_SORT_CUSTOM, ids, "ABCDE", 5);
    CHECK_STR(order, "AEBCD");
    CHECK_STATUS(quire_document_set_bookmark_sort_order(doc, QUIRE_BOOKMARK_SORT_CUSTOM), QUIRE_OK);

    /* Replace in place: a copy with a new name and no sort key, added back, keeps its
     * place and its sort key (the header). */
    got = NULL;
    CHECK_STATUS(quire_document_find_bookmark(&got, doc, ids[2]), QUIRE_OK);
    if (got) {
        int64_t old_key = sort_key_of(got);
        CHECK_STATUS(quire_bookmark_set_name(got, "zero, renamed"), QUIRE_OK);
        CHECK_STATUS(quire_bookmark_set_sort_key(got, NULL), QUIRE_OK);
        CHECK_STATUS(quire_document_add_bookmark(doc, got), QUIRE_OK);
        quire_bookmark_free(got);
        got = NULL;
        CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_OK);
        CHECK_INT(count, 5);
        CHECK_STATUS(quire_document_find_bookmark(&got, doc, ids[2]), QUIRE_OK);
        if (got) {
            CHECK_BTEXT(quire_bookmark_name, got, "zero, renamed");
            CHECK_INT(sort_key_of(got), old_key);
        }
        order_string(order, sizeof order, doc, QUIRE_BOOKMARK_SORT_CUSTOM, ids, "ABCDE", 5);
        CHECK_STR(order, "AEBCD");
        CHECK_INT(counter.calls, 9);
    }
    quire_bookmark_free(got);
    got = NULL;

    /* A go-to bookmark past the last page: QUIRE_ERANGE, nothing added, no change call. */
    far = new_goto(LABELS_PAGES, NULL);
    if (far) CHECK_STATUS(quire_document_add_bookmark(doc, far), QUIRE_ERANGE);
    quire_bookmark_free(far);
    far = new_goto(LABELS_PAGES - 1, NULL);
    CHECK_STATUS(quire_document_add_bookmark(NULL, far), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_add_bookmark(doc, NULL), QUIRE_EINVAL);
    quire_bookmark_free(far);
    CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_OK);
    CHECK_INT(count, 5);
    CHECK_INT(counter.calls, 9);

    /* quire_document_bookmark and find_bookmark: errors leave the out-parameter alone. */
    got = sentinel;
    CHECK_STATUS(quire_document_bookmark(&got, doc, QUIRE_BOOKMARK_SORT_PAGE, 5), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_bookmark(&got, doc, QUIRE_BOOKMARK_SORT_PAGE, -1), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_bookmark(&got, doc, (quire_bookmark_sort_order)2, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_bookmark(&got, NULL, QUIRE_BOOKMARK_SORT_PAGE, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_find_bookmark(&got, doc, "no-such-bookmark"), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_find_bookmark(&got, doc, NULL), QUIRE_EINVAL);
    CHECK(got == sentinel);
    CHECK_STATUS(quire_document_find_bookmark(NULL, doc, ids[0]), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_bookmark(NULL, doc, QUIRE_BOOKMARK_SORT_PAGE, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_bookmark_count(NULL, doc), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_bookmark_count(&count, NULL), QUIRE_EINVAL);

    /* Remove B: gone from the list and from find; again: QUIRE_ENOTFOUND. */
    CHECK_STATUS(quire_document_remove_bookmark(doc, ids[1]), QUIRE_OK);
    CHECK_INT(counter.calls, 10);
    CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_OK);
    CHECK_INT(count, 4);
    got = sentinel;
    CHECK_STATUS(quire_document_find_bookmark(&got, doc, ids[1]), QUIRE_ENOTFOUND);
    CHECK(got == sentinel);
    CHECK_STATUS(quire_document_remove_bookmark(doc, ids[1]), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_document_remove_bookmark(doc, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_remove_bookmark(NULL, ids[0]), QUIRE_EINVAL);
    order_string(order, sizeof order, doc, QUIRE_BOOKMARK_SORT_CUSTOM, ids, "ABCDE", 5);
    CHECK_STR(order, "AECD");
    CHECK_INT(counter.calls, 10);
    CHECK_INT(counter.wrong_doc, 0);

    /* NULL removes the callback; further changes are not counted. Its errors. */
    CHECK_STATUS(quire_document_set_bookmark_change_callback(doc, NULL, NULL), QUIRE_OK);
    CHECK_STATUS(quire_document_move_bookmark(doc, ids[4], 0), QUIRE_OK);
    CHECK_INT(counter.calls, 10);
    CHECK_STATUS(quire_document_set_bookmark_change_callback(NULL, on_change, &counter), QUIRE_EINVAL);
    /* A new provider chain is a change too (the header). */
    CHECK_STATUS(quire_document_set_bookmark_change_callback(doc, on_change, &counter), QUIRE_OK);
    {
        quire_bookmark_provider builtin = QUIRE_BOOKMARK_PROVIDER_BUILTIN_INIT;
        const quire_bookmark_provider *chain[1];
        chain[0] = &builtin;
        CHECK_STATUS(quire_document_set_bookmark_providers(doc, chain, 1), QUIRE_OK);
        CHECK_INT(counter.calls, 11);
        /* The same built-in provider: the same bookmarks. */
        CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_OK);
        CHECK_INT(count, 4);
    }
    CHECK_INT(counter.wrong_doc, 0);

done:
    for (k = 0; k < 5; k++) {
        quire_bookmark_free(b[k]);
        free(ids[k]);
    }
    quire_document_close(doc);
}

/* ---- the export to the outline -------------------------------------------------------------- */

static void test_export_to_outline(void) {
    quire_document *doc;
    quire_bookmark *a, *u, *n;
    int32_t count = -1, written = -1, depth = -1, parent = -2, page = -1;
    quire_action_type action = (quire_action_type)-1;
    g_test = "export to the outline";
    doc = open_corpus(LABELS_PDF, NULL);
    if (!doc) return;
    CHECK_STATUS(quire_document_outline_count(&count, doc), QUIRE_OK);
    CHECK_INT(count, LABELS_OUTLINE); /* pypdfium2 */

    a = new_goto(3, "Chapter four");
    u = new_text(QUIRE_BOOKMARK_URI, "https://example.org/u", NULL);
    n = new_text(QUIRE_BOOKMARK_NAMED, "LastPage", "The end");
    if (a && u && n) {
        CHECK_STATUS(quire_document_add_bookmark(doc, a), QUIRE_OK);
        CHECK_STATUS(quire_document_add_bookmark(doc, u), QUIRE_OK);
        CHECK_STATUS(quire_document_add_bookmark(doc, n), QUIRE_OK);
        /* In the page order: a (page 3), then u and n in their custom order. */
        CHECK_STATUS(quire_document_set_bookmark_sort_order(doc, QUIRE_BOOKMARK_SORT_PAGE), QUIRE_OK);
        CHECK_STATUS(quire_document_export_bookmarks_to_outline(&written, doc), QUIRE_OK);
        CHECK_INT(written, 3);
        CHECK_STATUS(quire_document_outline_count(&count, doc), QUIRE_OK);
        CHECK_INT(count, LABELS_OUTLINE + 3);
        /* Top-level items after the document's own: the name, else the URI, as the title. */
        CHECK_STATUS(quire_document_outline_item(&depth, &parent, NULL, NULL, &action, &page,
                                                 doc, LABELS_OUTLINE),
                     QUIRE_OK);
        CHECK_INT(depth, 0);
        CHECK_INT(parent, -1);
        CHECK_INT(action, QUIRE_ACTION_GOTO);
        CHECK_INT(page, 3);
        CHECK_TEXT(T_OUTLINE_TITLE, doc, NULL, LABELS_OUTLINE, "Chapter four");
        CHECK_STATUS(quire_document_outline_item(&depth, NULL, NULL, NULL, &action, NULL, doc,
                                                 LABELS_OUTLINE + 1),
                     QUIRE_OK);
        CHECK_INT(depth, 0);
        CHECK_INT(action, QUIRE_ACTION_URI);
        CHECK_TEXT(T_OUTLINE_TARGET, doc, NULL, LABELS_OUTLINE + 1, "https://example.org/u");
        CHECK_STATUS(quire_document_outline_item(NULL, NULL, NULL, NULL, &action, NULL, doc,
                                                 LABELS_OUTLINE + 2),
                     QUIRE_OK);
        CHECK_INT(action, QUIRE_ACTION_NAMED);
        CHECK_TEXT(T_OUTLINE_TITLE, doc, NULL, LABELS_OUTLINE + 2, "The end");
        /* Exported again (out_count may be NULL): replaced, not duplicated. */
        CHECK_STATUS(quire_document_export_bookmarks_to_outline(NULL, doc), QUIRE_OK);
        CHECK_STATUS(quire_document_outline_count(&count, doc), QUIRE_OK);
        CHECK_INT(count, LABELS_OUTLINE + 3);
        /* The document's own first item is still the first. */
        CHECK_STATUS(quire_document_outline_item(&depth, &parent, NULL, NULL, NULL, NULL, doc, 0),
                     QUIRE_OK);
        CHECK_INT(depth, 0);
        CHECK_STATUS(quire_document_export_bookmarks_to_outline(&written, NULL), QUIRE_EINVAL);
    }
    quire_bookmark_free(a);
    quire_bookmark_free(u);
    quire_bookmark_free(n);
    quire_document_close(doc);
}

/* ---- persistence through a save and a reopen ------------------------------------------------- */

struct saved_bookmark {
    char *id;
    char *name;   /* NULL: none */
    quire_action_type kind;
    int32_t page; /* -1: not a go-to */
    char *text;   /* NULL: a go-to */
    int64_t key;
    int has_key;
};

static void describe_bookmark(struct saved_bookmark *s, const quire_bookmark *b) {
    int status = 0;
    memset(s, 0, sizeof *s);
    s->page = -1;
    s->id = bid(b);
    s->name = btext_at(quire_bookmark_name, b, &status, __FILE__, __LINE__);
    CHECK(s->name != NULL || status == QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_bookmark_action_type(&s->kind, b), QUIRE_OK);
    if (s->kind == QUIRE_BOOKMARK_GOTO)
        CHECK_STATUS(quire_bookmark_page_index(&s->page, b), QUIRE_OK);
    else
        s->text = btext_at(quire_bookmark_action_text, b, &status, __FILE__, __LINE__);
    s->has_key = quire_bookmark_sort_key(&s->key, b) == QUIRE_OK;
}

static void free_saved(struct saved_bookmark *s) {
    free(s->id);
    free(s->name);
    free(s->text);
    memset(s, 0, sizeof *s);
}

static int same_text(const char *a, const char *b) {
    return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

/* Adds bookmarks of every kind to CORPUS/rel, saves it (mode), reopens the file and checks
 * that every property of every bookmark came back. */
static void check_persistence(const char *rel, int32_t pages, quire_save_mode mode) {
    quire_document *doc, *again = NULL;
    quire_bookmark *b[5];
    struct saved_bookmark before[5], after;
    quire_save_options options = QUIRE_SAVE_OPTIONS_INIT;
    const char *dir = make_temp_dir();
    const char *path = dir ? join_path(dir, "bookmarks.pdf") : NULL;
    int32_t count = -1, k, n = 0;
    int64_t key = -40;
    memset(before, 0, sizeof before);
    doc = open_corpus(rel, NULL);
    if (!doc || !path) goto done;
    b[0] = new_goto(pages - 1, "The last page \xe2\x80\x94 \xc3\xbc" "ber");
    b[1] = new_text(QUIRE_BOOKMARK_URI, "https://example.org/p?q=1&r=(2)", "A link");
    b[2] = new_text(QUIRE_BOOKMARK_NAMED, "FirstPage", NULL);
    b[3] = new_text(QUIRE_BOOKMARK_OTHER,
                    "<< /S /Launch /F (readme.txt) /NewWindow true >>", "Launch it");
    b[4] = new_goto(0, NULL);
    for (k = 0; k < 5; k++) {
        if (!b[k]) continue;
        if (k == 1) {
            /* A sort key of its own, negative: kept as it is (the header: "providers store
             * it as it is"). */
            CHECK_STATUS(quire_bookmark_set_identifier(b[k], "my-own-identifier"), QUIRE_OK);
            CHECK_STATUS(quire_bookmark_set_sort_key(b[k], &key), QUIRE_OK);
        }
        CHECK_STATUS(quire_document_add_bookmark(doc, b[k]), QUIRE_OK);
        quire_bookmark_free(b[k]);
    }
    /* Rearranged, so that the sort keys are the manager's own. */
    CHECK_STATUS(quire_document_move_bookmark(doc, "my-own-identifier", 3), QUIRE_OK);
    CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_OK);
    CHECK_INT(count, 5);
    for (k = 0; k < count && k < 5; k++) {
        quire_bookmark *got = NULL;
        CHECK_STATUS(quire_document_bookmark(&got, doc, QUIRE_BOOKMARK_SORT_CUSTOM, k), QUIRE_OK);
        if (!got) continue;
        describe_bookmark(&before[n++], got);
        quire_bookmark_free(got);
    }
    options.mode = mode;
    CHECK_STATUS(quire_document_save(doc, &options, path), QUIRE_OK);
    quire_document_close(doc);
    doc = NULL;

    CHECK_STATUS(quire_document_open(&again, path, NULL), QUIRE_OK);
    if (!again) goto done;
    CHECK_STATUS(quire_document_bookmark_count(&count, again), QUIRE_OK);
    CHECK_INT(count, n);
    for (k = 0; k < n; k++) {
        quire_bookmark *got = NULL;
        /* In the same custom order, with every property equal. */
        CHECK_STATUS(quire_document_bookmark(&got, again, QUIRE_BOOKMARK_SORT_CUSTOM, k), QUIRE_OK);
        if (!got) continue;
        describe_bookmark(&after, got);
        report(same_text(after.id, before[k].id), __FILE__, __LINE__,
               "%s: bookmark %d has the identifier %s after reopening, %s before", rel, (int)k,
               after.id ? after.id : "(none)", before[k].id ? before[k].id : "(none)");
        report(same_text(after.name, before[k].name), __FILE__, __LINE__,
               "%s: bookmark %d is named \"%s\" after reopening, \"%s\" before", rel, (int)k,
               after.name ? after.name : "(none)", before[k].name ? before[k].name : "(none)");
        report(after.kind == before[k].kind && after.page == before[k].page, __FILE__, __LINE__,
               "%s: bookmark %d: kind 0x%x page %d after reopening, kind 0x%x page %d before",
               rel, (int)k, (unsigned)after.kind, (int)after.page, (unsigned)before[k].kind,
               (int)before[k].page);
        report(same_text(after.text, before[k].text), __FILE__, __LINE__,
               "%s: bookmark %d's action is \"%s\" after reopening, \"%s\" before", rel, (int)k,
               after.text ? after.text : "(none)", before[k].text ? before[k].text : "(none)");
        report(after.has_key == before[k].has_key && after.key == before[k].key, __FILE__,
               __LINE__, "%s: bookmark %d's sort key is %lld (%d) after reopening, %lld (%d) before",
               rel, (int)k, (long long)after.key, after.has_key, (long long)before[k].key,
               before[k].has_key);
        free_saved(&after);
        quire_bookmark_free(got);
    }
    /* Every one was listed with all its properties before saving. */
    CHECK_INT(n, 5);
    if (n == 5) {
        CHECK(before[0].kind == QUIRE_BOOKMARK_GOTO && before[0].page == pages - 1);
        CHECK_STR(before[3].id, "my-own-identifier");
        CHECK(before[3].text && strcmp(before[3].text, "https://example.org/p?q=1&r=(2)") == 0);
        CHECK(before[3].has_key);
        CHECK(before[4].name == NULL && before[4].page == 0 && before[4].has_key);
    }
done:
    for (k = 0; k < 5; k++) free_saved(&before[k]);
    quire_document_close(doc);
    quire_document_close(again);
    remove_temp_dir(dir);
}

static void test_persistence(void) {
    g_test = "persistence (incremental save, page_labels.pdf)";
    check_persistence(LABELS_PDF, LABELS_PAGES, QUIRE_SAVE_INCREMENTAL);
    g_test = "persistence (full save, page_labels.pdf)";
    check_persistence(LABELS_PDF, LABELS_PAGES, QUIRE_SAVE_FULL);
    /* Encrypted: the strings of the store go through the security handler. */
    g_test = "persistence (incremental save, V4-aes.pdf)";
    check_persistence(AES_PDF, AES_PAGES, QUIRE_SAVE_INCREMENTAL);
    g_test = "persistence (full save, V4-aes.pdf)";
    check_persistence(AES_PDF, AES_PAGES, QUIRE_SAVE_FULL);
}

/* ---- a provider written in C ----------------------------------------------------------------- */

/* A provider that takes only go-to bookmarks and keeps copies of them in a C array. Its
 * callbacks count their calls and can be told to fail or to call back into the document. */
#define STORE_MAX 32
struct goto_store {
    quire_bookmark *items[STORE_MAX];
    int n;
    int loads, adds, removes, saves, releases;
    int fail_load, fail_add, fail_remove, fail_save; /* returned by the callback when non-zero */
    int sink_errors;                  /* quire_bookmark_sink_add calls that failed in load */
    int bad_arguments;                /* callbacks given NULL where the header says otherwise */
    quire_bookmark_sink *last_sink;   /* the sink of the last load, kept to call it late */
    /* Calls back into the document from the add callback (the header: QUIRE_ESTATE). */
    quire_document *doc;
    int reenter;
    int reenter_add, reenter_remove, reenter_move, reenter_providers, reenter_count,
        reenter_find, reenter_bookmark;
    struct goto_store *reenter_offered; /* the payload of the provider offered from inside */
};

static int store_index(const struct goto_store *s, const quire_bookmark *b) {
    char id[256], other[256];
    size_t len = 0;
    int k;
    if (quire_bookmark_identifier(id, sizeof id, &len, b) != QUIRE_OK) return -2;
    for (k = 0; k < s->n; k++)
        if (quire_bookmark_identifier(other, sizeof other, &len, s->items[k]) == QUIRE_OK &&
            strcmp(id, other) == 0)
            return k;
    return -1;
}

static void store_clear(struct goto_store *s) {
    int k;
    for (k = 0; k < s->n; k++) quire_bookmark_free(s->items[k]);
    s->n = 0;
}

static int gs_load(quire_bookmark_sink *sink, void *payload) {
    struct goto_store *s = payload;
    int k;
    s->loads++;
    s->last_sink = sink;
    if (!sink) s->bad_arguments++;
    if (s->fail_load) return s->fail_load;
    for (k = 0; k < s->n; k++)
        if (quire_bookmark_sink_add(sink, s->items[k]) != QUIRE_OK) s->sink_errors++;
    /* The same identifier again is ignored (the header), and NULL is QUIRE_EINVAL. */
    if (s->n > 0 && quire_bookmark_sink_add(sink, s->items[0]) != QUIRE_OK) s->sink_errors++;
    if (quire_bookmark_sink_add(sink, NULL) != QUIRE_EINVAL) s->sink_errors++;
    if (quire_bookmark_sink_add(NULL, s->n > 0 ? s->items[0] : NULL) != QUIRE_EINVAL)
        s->sink_errors++;
    return 0;
}

static quire_bookmark_provider goto_provider(struct goto_store *s);

/* From inside the add callback: every bookmark function of the document, each of which must
 * refuse; the chain offered is [built-in, a provider of s->reenter_offered], whose release
 * must not be called since it is not taken. */
static void gs_reenter(struct goto_store *s, const quire_bookmark *b) {
    quire_bookmark_provider chain[2], builtin = QUIRE_BOOKMARK_PROVIDER_BUILTIN_INIT;
    const quire_bookmark_provider *pointers[2];
    quire_bookmark *got = NULL;
    int32_t count = 0;
    char id[256];
    size_t len = 0;
    s->reenter = 0; /* once */
    s->reenter_add = quire_document_add_bookmark(s->doc, b);
    if (quire_bookmark_identifier(id, sizeof id, &len, b) != QUIRE_OK) s->bad_arguments++;
    s->reenter_remove = quire_document_remove_bookmark(s->doc, id);
    s->reenter_move = quire_document_move_bookmark(s->doc, id, 0);
    chain[0] = builtin;
    chain[1] = goto_provider(s->reenter_offered ? s->reenter_offered : s);
    pointers[0] = &chain[0];
    pointers[1] = &chain[1];
    s->reenter_providers = quire_document_set_bookmark_providers(s->doc, pointers, 2);
    s->reenter_count = quire_document_bookmark_count(&count, s->doc);
    s->reenter_find = quire_document_find_bookmark(&got, s->doc, id);
    quire_bookmark_free(got);
    got = NULL;
    s->reenter_bookmark = quire_document_bookmark(&got, s->doc, QUIRE_BOOKMARK_SORT_CUSTOM, 0);
    quire_bookmark_free(got);
}

static int gs_add(int32_t *accepted, const quire_bookmark *b, void *payload) {
    struct goto_store *s = payload;
    quire_action_type kind = (quire_action_type)-1;
    int k;
    s->adds++;
    if (!accepted || !b) {
        s->bad_arguments++;
        return 0;
    }
    if (s->reenter) gs_reenter(s, b);
    if (s->fail_add) return s->fail_add;
    *accepted = 0;
    if (quire_bookmark_action_type(&kind, b) != QUIRE_OK) s->bad_arguments++;
    if (kind != QUIRE_BOOKMARK_GOTO) return 0;
    k = store_index(s, b);
    if (k == -1 && s->n == STORE_MAX) return 0;
    if (k == -1) k = s->n++;
    else quire_bookmark_free(s->items[k]);
    s->items[k] = NULL;
    if (quire_bookmark_copy(&s->items[k], b) != QUIRE_OK) {
        s->bad_arguments++;
        return 1;
    }
    *accepted = 1;
    return 0;
}

static int gs_remove(int32_t *removed, const quire_bookmark *b, void *payload) {
    struct goto_store *s = payload;
    int k;
    s->removes++;
    if (!removed || !b) {
        s->bad_arguments++;
        return 0;
    }
    if (s->fail_remove) return s->fail_remove;
    *removed = 0;
    k = store_index(s, b);
    if (k < 0) return 0;
    quire_bookmark_free(s->items[k]);
    memmove(&s->items[k], &s->items[k + 1], (size_t)(s->n - k - 1) * sizeof s->items[0]);
    s->n--;
    *removed = 1;
    return 0;
}

static int gs_save(void *payload) {
    struct goto_store *s = payload;
    s->saves++;
    return s->fail_save;
}

static void gs_release(void *payload) {
    struct goto_store *s = payload;
    s->releases++;
}

static quire_bookmark_provider goto_provider(struct goto_store *s) {
    quire_bookmark_provider p = QUIRE_BOOKMARK_PROVIDER_INIT;
    p.load = gs_load;
    p.add = gs_add;
    p.remove = gs_remove;
    p.save = gs_save;
    p.release = gs_release;
    p.payload = s;
    return p;
}

/* Sets the chain [the store's provider, the built-in provider] on `doc` (the structs are
 * copied: the header). */
static int set_goto_chain(quire_document *doc, struct goto_store *s) {
    quire_bookmark_provider chain[2], builtin = QUIRE_BOOKMARK_PROVIDER_BUILTIN_INIT;
    const quire_bookmark_provider *pointers[2];
    chain[0] = goto_provider(s);
    chain[1] = builtin;
    pointers[0] = &chain[0];
    pointers[1] = &chain[1];
    return quire_document_set_bookmark_providers(doc, pointers, 2);
}

/* Sets a chain of one provider. */
static int set_one_provider(quire_document *doc, const quire_bookmark_provider *provider) {
    const quire_bookmark_provider *pointers[1];
    pointers[0] = provider;
    return quire_document_set_bookmark_providers(doc, pointers, 1);
}

/* Puts a go-to bookmark with a fixed identifier into the store, as if it had been stored
 * before. */
static void store_preload(struct goto_store *s, const char *id, int32_t page, const char *name,
                          int64_t key) {
    quire_bookmark *b = new_goto(page, name);
    if (!b) return;
    CHECK_STATUS(quire_bookmark_set_identifier(b, id), QUIRE_OK);
    CHECK_STATUS(quire_bookmark_set_sort_key(b, &key), QUIRE_OK);
    s->items[s->n++] = b;
}

static void test_provider_chain(void) {
    quire_document *doc;
    struct goto_store store;
    quire_bookmark *go = NULL, *uri = NULL, *got = NULL;
    char *go_id = NULL, *uri_id = NULL;
    int32_t count = -1, changed = -1;
    quire_action_type kind = (quire_action_type)-1;
    char order[32];
    char *labels_ids[3];
    const char *dir = make_temp_dir();
    int k;
    g_test = "a provider chain in C";
    memset(&store, 0, sizeof store);
    doc = open_corpus(LABELS_PDF, NULL);
    if (!doc || !dir) goto done;
    store_preload(&store, "stored-goto", 6, "Stored", 100);

    /* The chain [go-to store, built-in]: load is called once, on first use, whatever is
     * read after it (the header). */
    CHECK_STATUS(set_goto_chain(doc, &store), QUIRE_OK);
    CHECK_INT(store.loads, 0);
    CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_OK);
    CHECK_INT(count, 1);
    CHECK_STATUS(quire_document_find_bookmark(&got, doc, "stored-goto"), QUIRE_OK);
    if (got) {
        CHECK_BTEXT(quire_bookmark_name, got, "Stored");
        CHECK_INT(sort_key_of(got), 100);
    }
    quire_bookmark_free(got);
    got = NULL;
    CHECK_STATUS(quire_document_bookmark(&got, doc, QUIRE_BOOKMARK_SORT_PAGE, 0), QUIRE_OK);
    quire_bookmark_free(got);
    got = NULL;
    CHECK_INT(store.loads, 1);
    /* In load: the sink took each stored bookmark, ignored the repeated one, and refused
     * NULL arguments with QUIRE_EINVAL. */
    CHECK_INT(store.sink_errors, 0);
    /* After its load returned, the sink refuses: QUIRE_ESTATE (the header). */
    go = new_goto(1, "late");
    if (go && store.last_sink)
        CHECK_STATUS(quire_bookmark_sink_add(store.last_sink, go), QUIRE_ESTATE);
    quire_bookmark_free(go);
    go = NULL;
    CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_OK);
    CHECK_INT(count, 1);

    /* Routing: a go-to bookmark goes to the store and the PDF does not change; a URI
     * bookmark is declined by the store and taken by the built-in provider, which writes it
     * into the PDF's unsaved changes. */
    go = new_goto(2, "two");
    uri = new_text(QUIRE_BOOKMARK_URI, "https://example.org/doc", "docs");
    if (!go || !uri) goto done;
    go_id = bid(go);
    uri_id = bid(uri);
    CHECK_STATUS(quire_document_add_bookmark(doc, go), QUIRE_OK);
    CHECK_INT(store.adds, 1);
    CHECK_INT(store.n, 2);
    CHECK_STATUS(quire_document_has_unsaved_changes(&changed, doc), QUIRE_OK);
    CHECK_INT(changed, 0);
    CHECK_STATUS(quire_document_add_bookmark(doc, uri), QUIRE_OK);
    CHECK_INT(store.adds, 2); /* offered to the store first */
    CHECK_INT(store.n, 2);
    CHECK_STATUS(quire_document_has_unsaved_changes(&changed, doc), QUIRE_OK);
    CHECK_INT(changed, 1);
    CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_OK);
    CHECK_INT(count, 3);
    /* The store's copy has the sort key the document gave (after the stored 100). */
    if (store.n == 2) {
        CHECK_BTEXT(quire_bookmark_identifier, store.items[1], go_id);
        CHECK(sort_key_of(store.items[1]) > 100);
    }
    labels_ids[0] = (char *)"stored-goto";
    labels_ids[1] = go_id;
    labels_ids[2] = uri_id;
    order_string(order, sizeof order, doc, QUIRE_BOOKMARK_SORT_CUSTOM, labels_ids, "SGU", 3);
    CHECK_STR(order, "SGU");
    order_string(order, sizeof order, doc, QUIRE_BOOKMARK_SORT_PAGE, labels_ids, "SGU", 3);
    CHECK_STR(order, "GSU");

    /* Replace in place: goes to the store that holds it. */
    CHECK_STATUS(quire_document_find_bookmark(&got, doc, go_id), QUIRE_OK);
    if (got) {
        CHECK_STATUS(quire_bookmark_set_name(got, "two, renamed"), QUIRE_OK);
        CHECK_STATUS(quire_document_add_bookmark(doc, got), QUIRE_OK);
        CHECK_INT(store.adds, 3);
        CHECK_INT(store.n, 2);
        if (store.n == 2) CHECK_BTEXT(quire_bookmark_name, store.items[1], "two, renamed");
    }
    quire_bookmark_free(got);
    got = NULL;

    /* Move: the sort keys that change are rewritten through their providers (the store's
     * bookmarks through its add). */
    k = store.adds;
    CHECK_STATUS(quire_document_move_bookmark(doc, uri_id, 0), QUIRE_OK);
    order_string(order, sizeof order, doc, QUIRE_BOOKMARK_SORT_CUSTOM, labels_ids, "SGU", 3);
    CHECK_STR(order, "USG");
    CHECK(store.adds > k);
    CHECK_INT(store.n, 2);

    /* Remove: the URI bookmark is asked of the store first (which does not hold it), then
     * of the built-in provider; the go-to one is removed from the store. */
    CHECK_STATUS(quire_document_remove_bookmark(doc, uri_id), QUIRE_OK);
    CHECK_INT(store.removes, 1);
    CHECK_INT(store.n, 2);
    CHECK_STATUS(quire_document_remove_bookmark(doc, go_id), QUIRE_OK);
    CHECK_INT(store.removes, 2);
    CHECK_INT(store.n, 1);
    CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_OK);
    CHECK_INT(count, 1);

    /* A chain with only the store: a URI bookmark finds no provider (QUIRE_EUNSUPPORTED).
     * Replacing the chain releases the store's provider, exactly once, and the new one is
     * asked to load on next use. */
    CHECK_INT(store.releases, 0);
    {
        quire_bookmark_provider only = goto_provider(&store);
        CHECK_STATUS(set_one_provider(doc, &only), QUIRE_OK);
    }
    CHECK_INT(store.releases, 1);
    CHECK_STATUS(quire_document_add_bookmark(doc, uri), QUIRE_EUNSUPPORTED);
    CHECK_INT(store.loads, 2);
    CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_OK);
    CHECK_INT(count, 1);
    /* An empty chain keeps no bookmarks: nothing listed, nothing accepted. */
    CHECK_STATUS(quire_document_set_bookmark_providers(doc, NULL, 0), QUIRE_OK);
    CHECK_INT(store.releases, 2);
    CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_OK);
    CHECK_INT(count, 0);
    CHECK_STATUS(quire_document_add_bookmark(doc, go), QUIRE_EUNSUPPORTED);
    /* The built-in provider alone: the URI bookmark added above is in the PDF (unsaved). */
    {
        quire_bookmark_provider builtin = QUIRE_BOOKMARK_PROVIDER_BUILTIN_INIT;
        CHECK_STATUS(set_one_provider(doc, &builtin), QUIRE_OK);
        CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_OK);
        CHECK_INT(count, 0); /* removed above */
    }
    CHECK_INT(store.releases, 2);

    /* Persistence with the chain: the store's save is called by the save; reopened with the
     * built-in provider alone, the file has only the URI bookmark; reopened with the chain,
     * the store's bookmarks are there too. */
    CHECK_STATUS(set_goto_chain(doc, &store), QUIRE_OK);
    CHECK_STATUS(quire_document_add_bookmark(doc, go), QUIRE_OK);
    CHECK_STATUS(quire_document_add_bookmark(doc, uri), QUIRE_OK);
    CHECK_INT(store.n, 2);
    k = store.saves;
    CHECK_STATUS(quire_document_save(doc, NULL, join_path(dir, "chain.pdf")), QUIRE_OK);
    CHECK_INT(store.saves, k + 1);
    quire_document_close(doc);
    doc = NULL;
    /* Closing the document released the provider, once. */
    CHECK_INT(store.releases, 3);
    CHECK_STATUS(quire_document_open(&doc, join_path(dir, "chain.pdf"), NULL), QUIRE_OK);
    if (!doc) goto done;
    CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_OK);
    CHECK_INT(count, 1);
    CHECK_STATUS(quire_document_bookmark(&got, doc, QUIRE_BOOKMARK_SORT_CUSTOM, 0), QUIRE_OK);
    if (got) {
        CHECK_BTEXT(quire_bookmark_identifier, got, uri_id);
        CHECK_STATUS(quire_bookmark_action_type(&kind, got), QUIRE_OK);
        CHECK_INT(kind, QUIRE_BOOKMARK_URI);
    }
    quire_bookmark_free(got);
    got = NULL;
    CHECK_STATUS(set_goto_chain(doc, &store), QUIRE_OK);
    order_string(order, sizeof order, doc, QUIRE_BOOKMARK_SORT_PAGE, labels_ids, "SGU", 3);
    CHECK_STR(order, "GSU");
    CHECK_INT(store.bad_arguments, 0);

done:
    quire_document_close(doc);
    /* Closed: released (3 chains took the provider before, this is the fourth). */
    if (dir) CHECK_INT(store.releases, 4);
    quire_bookmark_free(go);
    quire_bookmark_free(uri);
    free(go_id);
    free(uri_id);
    store_clear(&store);
    remove_temp_dir(dir);
}

/* Failing callbacks, a provider that calls back into the document, and invalid chains. */
static void test_provider_errors(void) {
    quire_document *doc;
    struct goto_store store, other;
    quire_bookmark *go = NULL, *uri = NULL;
    quire_bookmark_provider builtin = QUIRE_BOOKMARK_PROVIDER_BUILTIN_INIT, bad[2];
    const quire_bookmark_provider *bad_chain[2];
    int32_t count = -1;
    const char *msg;
    const char *dir = make_temp_dir();
    g_test = "bookmark provider errors";
    memset(&store, 0, sizeof store);
    memset(&other, 0, sizeof other);
    doc = open_corpus(LABELS_PDF, NULL);
    go = new_goto(1, NULL);
    uri = new_text(QUIRE_BOOKMARK_URI, "https://example.org/e", NULL);
    if (!doc || !go || !uri || !dir) goto done;
    store.doc = doc;

    /* A load that fails: QUIRE_EUSER with a message naming the provider and the callback;
     * it is asked again on the next use. */
    CHECK_STATUS(set_goto_chain(doc, &store), QUIRE_OK);
    store.fail_load = 7;
    CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_EUSER);
    msg = quire_last_error_message();
    report(strstr(msg, "provider 1") != NULL && strstr(msg, "load") != NULL, __FILE__, __LINE__,
           "the message \"%s\" does not name provider 1 and its load callback", msg);
    store.fail_load = 0;
    CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_OK);
    CHECK_INT(count, 0);
    CHECK_INT(store.loads, 2);

    /* An add that fails: QUIRE_EUSER naming the provider and "add"; nothing added. */
    store.fail_add = 1;
    CHECK_STATUS(quire_document_add_bookmark(doc, go), QUIRE_EUSER);
    msg = quire_last_error_message();
    report(strstr(msg, "provider 1") != NULL && strstr(msg, "add") != NULL, __FILE__, __LINE__,
           "the message \"%s\" does not name provider 1 and its add callback", msg);
    store.fail_add = 0;
    CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_OK);
    CHECK_INT(count, 0);
    CHECK_INT(store.n, 0);

    /* The second provider of a chain is named as provider 2. */
    {
        quire_bookmark_provider chain[2];
        const quire_bookmark_provider *pointers[2];
        chain[0] = builtin;
        chain[1] = goto_provider(&other);
        pointers[0] = &chain[0];
        pointers[1] = &chain[1];
        CHECK_STATUS(quire_document_set_bookmark_providers(doc, pointers, 2), QUIRE_OK);
        CHECK_INT(store.releases, 1);
        other.fail_load = -3;
        CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_EUSER);
        msg = quire_last_error_message();
        report(strstr(msg, "provider 2") != NULL && strstr(msg, "load") != NULL, __FILE__,
               __LINE__, "the message \"%s\" does not name provider 2 and its load callback", msg);
        other.fail_load = 0;
    }

    /* A remove that fails, and a save that fails (the file is not written). */
    CHECK_STATUS(set_goto_chain(doc, &store), QUIRE_OK);
    CHECK_INT(other.releases, 1);
    CHECK_STATUS(quire_document_add_bookmark(doc, go), QUIRE_OK);
    CHECK_INT(store.n, 1);
    store.fail_remove = 2;
    {
        char *id = bid(go);
        if (id) {
            CHECK_STATUS(quire_document_remove_bookmark(doc, id), QUIRE_EUSER);
            msg = quire_last_error_message();
            report(strstr(msg, "provider 1") != NULL && strstr(msg, "remove") != NULL, __FILE__,
                   __LINE__, "the message \"%s\" does not name provider 1 and remove", msg);
        }
        free(id);
    }
    store.fail_remove = 0;
    CHECK_INT(store.n, 1);
    store.fail_save = 1;
    CHECK_STATUS(quire_document_save(doc, NULL, join_path(dir, "not-saved.pdf")), QUIRE_EUSER);
    msg = quire_last_error_message();
    report(strstr(msg, "provider 1") != NULL && strstr(msg, "save") != NULL, __FILE__, __LINE__,
           "the message \"%s\" does not name provider 1 and its save callback", msg);
    CHECK(!path_exists(join_path(dir, "not-saved.pdf")));
    CHECK_INT(count_dir_entries(dir), 0);
    store.fail_save = 0;

    /* A provider that calls the document's bookmark functions from its add callback: each
     * gets QUIRE_ESTATE (the header: "those return QUIRE_ESTATE while a provider runs"),
     * and the outer add succeeds. */
    store.reenter = 1;
    store.reenter_offered = &other;
    CHECK_STATUS(quire_document_add_bookmark(doc, uri), QUIRE_OK);
    CHECK_INT(store.reenter, 0);
    CHECK_INT(store.reenter_add, QUIRE_ESTATE);
    CHECK_INT(store.reenter_remove, QUIRE_ESTATE);
    CHECK_INT(store.reenter_move, QUIRE_ESTATE);
    CHECK_INT(store.reenter_providers, QUIRE_ESTATE);
    /* The reading functions too: QUIRE_ESTATE while a provider runs (the header). */
    CHECK_INT(store.reenter_count, QUIRE_ESTATE);
    CHECK_INT(store.reenter_find, QUIRE_ESTATE);
    CHECK_INT(store.reenter_bookmark, QUIRE_ESTATE);
    CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_OK);
    CHECK_INT(count, 2);
    CHECK_INT(store.releases, 1); /* the chain was not replaced from inside */
    CHECK_INT(other.releases, 1); /* and the provider offered there was not taken */

    /* Invalid chains: QUIRE_EINVAL (QUIRE_EVERSION for a provider of a newer version than
     * the library knows); the chain is unchanged and no new provider is released (the
     * header). */
    bad_chain[0] = &bad[0];
    bad_chain[1] = &bad[1];
    bad[0] = goto_provider(&other);
    bad[0].version = 0;
    CHECK_STATUS(quire_document_set_bookmark_providers(doc, bad_chain, 1), QUIRE_EINVAL);
    bad[0].version = QUIRE_BOOKMARK_PROVIDER_VERSION + 1;
    CHECK_STATUS(quire_document_set_bookmark_providers(doc, bad_chain, 1), QUIRE_EVERSION);
    bad[0] = goto_provider(&other);
    bad[0].load = NULL;
    CHECK_STATUS(quire_document_set_bookmark_providers(doc, bad_chain, 1), QUIRE_EINVAL);
    bad[0] = goto_provider(&other);
    bad[0].add = NULL;
    CHECK_STATUS(quire_document_set_bookmark_providers(doc, bad_chain, 1), QUIRE_EINVAL);
    bad[0] = goto_provider(&other);
    bad[0].remove = NULL;
    CHECK_STATUS(quire_document_set_bookmark_providers(doc, bad_chain, 1), QUIRE_EINVAL);
    bad[0] = builtin;
    bad[0].release = gs_release;
    bad[0].payload = &other;
    CHECK_STATUS(quire_document_set_bookmark_providers(doc, bad_chain, 1), QUIRE_EINVAL);
    bad[0] = goto_provider(&other);
    bad[1] = goto_provider(&other);
    bad[1].version = 99;
    CHECK_STATUS(quire_document_set_bookmark_providers(doc, bad_chain, 2), QUIRE_EVERSION);
    bad[1].version = 0;
    CHECK_STATUS(quire_document_set_bookmark_providers(doc, bad_chain, 2), QUIRE_EINVAL);
    /* A NULL entry in the array of pointers, first or second (the header). */
    bad[1] = goto_provider(&other);
    bad_chain[1] = NULL;
    CHECK_STATUS(quire_document_set_bookmark_providers(doc, bad_chain, 2), QUIRE_EINVAL);
    bad_chain[0] = NULL;
    bad_chain[1] = &bad[1];
    CHECK_STATUS(quire_document_set_bookmark_providers(doc, bad_chain, 2), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_set_bookmark_providers(doc, bad_chain, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_set_bookmark_providers(doc, NULL, 1), QUIRE_EINVAL);
    bad_chain[0] = &builtin;
    CHECK_STATUS(quire_document_set_bookmark_providers(NULL, bad_chain, 1), QUIRE_EINVAL);
    CHECK_INT(other.releases, 1);
    CHECK_INT(store.releases, 1);
    CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_OK);
    CHECK_INT(count, 2);
    /* A save and a release-free (minimal) provider: save and release are optional. */
    {
        quire_bookmark_provider minimal = goto_provider(&other);
        minimal.save = NULL;
        minimal.release = NULL;
        CHECK_STATUS(set_one_provider(doc, &minimal), QUIRE_OK);
        CHECK_INT(store.releases, 2);
        CHECK_STATUS(quire_document_add_bookmark(doc, go), QUIRE_OK);
        CHECK_STATUS(quire_document_save(doc, NULL, join_path(dir, "saved.pdf")), QUIRE_OK);
        CHECK_INT(other.saves, 0);
    }
    CHECK_INT(store.bad_arguments, 0);
    CHECK_INT(other.bad_arguments, 0);

done:
    quire_document_close(doc);
    CHECK_INT(other.releases, 1); /* the minimal provider has no release to call */
    quire_bookmark_free(go);
    quire_bookmark_free(uri);
    store_clear(&store);
    store_clear(&other);
    remove_temp_dir(dir);
}

void run_bookmark_tests(void) {
    {
        /* The provider initialisers (the header): the current version, no callbacks. */
        quire_bookmark_provider p = QUIRE_BOOKMARK_PROVIDER_INIT;
        quire_bookmark_provider b = QUIRE_BOOKMARK_PROVIDER_BUILTIN_INIT;
        g_test = "bookmark provider initialisers";
        CHECK_INT(p.version, QUIRE_BOOKMARK_PROVIDER_VERSION);
        CHECK_INT(p.builtin, 0);
        CHECK(p.load == NULL && p.add == NULL && p.remove == NULL && p.save == NULL &&
              p.release == NULL && p.payload == NULL);
        CHECK_INT(b.version, QUIRE_BOOKMARK_PROVIDER_VERSION);
        CHECK(b.builtin != 0);
        /* The bookmark kinds are the outline's action types (the header: aliases, so that
         * one quire_action_type serves both), in that family's range. */
        CHECK_INT(QUIRE_BOOKMARK_GOTO, QUIRE_ACTION_GOTO);
        CHECK_INT(QUIRE_BOOKMARK_URI, QUIRE_ACTION_URI);
        CHECK_INT(QUIRE_BOOKMARK_NAMED, QUIRE_ACTION_NAMED);
        CHECK_INT(QUIRE_BOOKMARK_OTHER, QUIRE_ACTION_OTHER);
        CHECK_INT(QUIRE_BOOKMARK_GOTO, 0x0201);
        CHECK_INT(QUIRE_BOOKMARK_URI, 0x0203);
        CHECK_INT(QUIRE_BOOKMARK_NAMED, 0x0204);
        CHECK_INT(QUIRE_BOOKMARK_OTHER, 0x0206);
        CHECK_INT(QUIRE_BOOKMARK_SORT_CUSTOM, 0x0C00);
        CHECK_INT(QUIRE_BOOKMARK_SORT_PAGE, 0x0C01);
    }
    test_values();
    test_document_bookmarks();
    test_export_to_outline();
    test_persistence();
    test_provider_chain();
    test_provider_errors();
}
