/* The benchmark's workloads through the C interface, without Python: what
 * bench/profile.sh runs under callgrind (instruction counts, repeatable on a busy machine)
 * or perf, to see where Quire itself spends its time.
 *
 *   profile read FILE...        open, pages, every annotation's subtype, rect, contents, /IRT
 *   profile bulk FILE...        the same through quire_page_annotation_infos (one call a page)
 *   profile incremental SRC OUT add one square annotation, save incrementally to OUT
 *   profile append SRC          the same, appended in place to SRC (QUIRE_SAVE_APPEND_IN_PLACE)
 *   profile rewrite SRC OUT     full save to OUT
 *   profile open FILE           open and close
 *   profile page FILE INDEX     open, page INDEX's media box and annotation count, close
 *   profile text FILE...        open, the plain text of every page, close (workload 5)
 *   profile search FILE PHRASE  every match of PHRASE in FILE (workload 7b)
 *   profile chars FILE...       open, every character of every page in one call a page, close
 *                               (workload 7a, Page.chars())
 */
#include <quire.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, int rc) {
    fprintf(stderr, "%s: %s: %s\n", what, quire_status_string(rc), quire_last_error_message());
    return 1;
}

static int read_file(const char *path, long *pages, long *annots, long *irt) {
    quire_document *doc = NULL;
    quire_open_options options = QUIRE_OPEN_OPTIONS_INIT;
    int rc = quire_document_open(&doc, path, &options);
    if (rc != QUIRE_OK) return fail(path, rc);
    int32_t count = 0;
    quire_document_page_count(&count, doc);
    char buf[4096];
    for (int32_t p = 0; p < count; p++) {
        int32_t n = 0;
        (*pages)++;
        if (quire_page_annotation_count(&n, doc, p) != QUIRE_OK) continue;
        for (int32_t i = 0; i < n; i++) {
            quire_annotation *a = NULL;
            if (quire_page_annotation(&a, doc, p, i) != QUIRE_OK) continue;
            size_t len = 0;
            quire_rect rect;
            int32_t target = 0;
            (*annots)++;
            quire_annotation_subtype(buf, sizeof buf, &len, a);
            quire_annotation_rect(&rect, a);
            quire_annotation_string(buf, sizeof buf, &len, a, QUIRE_ANNOT_CONTENTS);
            if (quire_annotation_in_reply_to(&target, a) == QUIRE_OK) (*irt)++;
            quire_annotation_free(a);
        }
    }
    quire_document_close(doc);
    return 0;
}

/* read_file through the bulk call: what the Python binding does for page.annotations. */
static int bulk_file(const char *path, long *pages, long *annots, long *irt) {
    quire_document *doc = NULL;
    quire_open_options options = QUIRE_OPEN_OPTIONS_INIT;
    int rc = quire_document_open(&doc, path, &options);
    if (rc != QUIRE_OK) return fail(path, rc);
    int32_t count = 0;
    quire_document_page_count(&count, doc);
    size_t size = 1 << 16;
    void *buf = malloc(size);
    for (int32_t p = 0; p < count && buf; p++) {
        size_t len = 0;
        int32_t n = 0;
        (*pages)++;
        rc = quire_page_annotation_infos(buf, size, &len, &n, doc, p, QUIRE_ANNOTATION_INFO_VERSION);
        if (rc == QUIRE_EBUFS) {
            free(buf);
            size = len + 1;
            buf = malloc(size);
            if (!buf) break;
            rc = quire_page_annotation_infos(buf, size, &len, &n, doc, p, QUIRE_ANNOTATION_INFO_VERSION);
        }
        if (rc != QUIRE_OK) continue;
        quire_annotation_info **items = (quire_annotation_info **)buf;
        for (int32_t i = 0; i < n; i++) {
            (*annots)++;
            if (items[i]->in_reply_to != 0) (*irt)++;
        }
    }
    free(buf);
    quire_document_close(doc);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: profile read|bulk|text|chars|incremental|rewrite|open|page FILE [OUT|INDEX]\n");
        return 2;
    }
    quire_open_options options = QUIRE_OPEN_OPTIONS_INIT;
    quire_document *doc = NULL;
    int rc;
    if (strcmp(argv[1], "read") == 0 || strcmp(argv[1], "bulk") == 0) {
        long pages = 0, annots = 0, irt = 0;
        for (int k = 2; k < argc; k++) {
            if (argv[1][0] == 'r') read_file(argv[k], &pages, &annots, &irt);
            else bulk_file(argv[k], &pages, &annots, &irt);
        }
        printf("%ld pages, %ld annotations, %ld replies\n", pages, annots, irt);
        return 0;
    }
    if (strcmp(argv[1], "search") == 0 && argc >= 4) {
        /* Every match of a phrase in the whole document (workload 7b). */
        quire_text_match_list *list = NULL;
        int32_t matches = 0;
        if ((rc = quire_document_open(&doc, argv[2], &options)) != QUIRE_OK) return fail(argv[2], rc);
        if ((rc = quire_document_search_text(&list, doc, argv[3], NULL, -1)) != QUIRE_OK) return fail(argv[2], rc);
        quire_text_match_list_count(&matches, list);
        quire_text_match_list_free(list);
        quire_document_close(doc);
        printf("%d matches\n", (int)matches);
        return 0;
    }
    if (strcmp(argv[1], "chars") == 0) {
        /* Every character of every page in one call a page (quire_text_page_char_infos):
         * what Python's Page.chars() asks of the library (issue 41). */
        long pages = 0, chars = 0;
        for (int k = 2; k < argc; k++) {
            if (quire_document_open(&doc, argv[k], &options) != QUIRE_OK) continue;
            int32_t count = 0;
            quire_document_page_count(&count, doc);
            for (int32_t p = 0; p < count; p++) {
                quire_text_page *t = NULL;
                if (quire_page_text_load(&t, doc, p) != QUIRE_OK) continue;
                size_t len = 0;
                int32_t n = 0;
                if (quire_text_page_char_infos(NULL, 0, &len, &n, t, QUIRE_TEXT_CHAR_INFO_VERSION) == QUIRE_OK) {
                    void *block = malloc(len ? len : 1);
                    if (block != NULL &&
                        quire_text_page_char_infos(block, len, &len, &n, t, QUIRE_TEXT_CHAR_INFO_VERSION) == QUIRE_OK)
                        chars += n;
                    free(block);
                }
                pages++;
                quire_text_page_free(t);
            }
            quire_document_close(doc);
        }
        printf("%ld pages, %ld characters\n", pages, chars);
        return 0;
    }
    if (strcmp(argv[1], "text") == 0) {
        long pages = 0, bytes = 0;
        size_t capacity = 1 << 16;
        char *text = malloc(capacity);
        for (int k = 2; k < argc && text != NULL; k++) {
            if (quire_document_open(&doc, argv[k], &options) != QUIRE_OK) continue;
            int32_t count = 0;
            quire_document_page_count(&count, doc);
            for (int32_t p = 0; p < count; p++) {
                quire_text_page *t = NULL;
                if (quire_page_text_load(&t, doc, p) != QUIRE_OK) continue;
                size_t len = 0;
                if (quire_text_page_text(text, capacity, &len, t) == QUIRE_EBUFS) {
                    char *bigger = realloc(text, len + 1);
                    if (bigger != NULL) {
                        text = bigger;
                        capacity = len + 1;
                        quire_text_page_text(text, capacity, &len, t);
                    }
                }
                bytes += (long)len;
                pages++;
                quire_text_page_free(t);
            }
            quire_document_close(doc);
        }
        free(text);
        printf("%ld pages, %ld bytes of text\n", pages, bytes);
        return 0;
    }
    if ((rc = quire_document_open(&doc, argv[2], &options)) != QUIRE_OK) return fail(argv[2], rc);
    if (strcmp(argv[1], "page") == 0) {
        quire_rect box;
        int32_t n = 0;
        int32_t index = argc > 3 ? (int32_t)atoi(argv[3]) : 0;
        if ((rc = quire_page_box(&box, doc, index, QUIRE_BOX_MEDIA)) != QUIRE_OK) return fail("page", rc);
        if ((rc = quire_page_annotation_count(&n, doc, index)) != QUIRE_OK) return fail("annotations", rc);
        printf("page %d: %g x %g, %d annotations\n", (int)index, box.right - box.left, box.top - box.bottom, (int)n);
    }
    if (strcmp(argv[1], "incremental") == 0 || strcmp(argv[1], "rewrite") == 0 || strcmp(argv[1], "append") == 0) {
        quire_save_options save = QUIRE_SAVE_OPTIONS_INIT;
        const char *out = argv[1][0] == 'a' ? argv[2] : argc >= 4 ? argv[3] : NULL;
        if (out == NULL) return 2;
        if (argv[1][0] != 'r') {
            quire_annotation *a = NULL;
            quire_rect rect = {100, 100, 200, 200};
            if ((rc = quire_annotation_new(&a, "Square", 0, &rect)) != QUIRE_OK) return fail("new", rc);
            quire_annotation_set_string(a, QUIRE_ANNOT_CONTENTS, "benchmark");
            if ((rc = quire_document_add_annotation(doc, a)) != QUIRE_OK) return fail("add", rc);
            quire_annotation_free(a);
            if (argv[1][0] == 'a') save.mode = QUIRE_SAVE_APPEND_IN_PLACE;
        } else {
            save.mode = QUIRE_SAVE_FULL;
        }
        if ((rc = quire_document_save(doc, &save, out)) != QUIRE_OK) return fail("save", rc);
    }
    quire_document_close(doc);
    return 0;
}
