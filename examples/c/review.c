/*
 * review: a review round on a PDF with libquire's annotation interface, as in PSPDFKit's
 * guide to annotation replies and review states.
 *
 *   review IN OUT [PASSWORD]
 *
 * It adds a note (a Text annotation) to page 1 of IN, a reply to the note, a reply to that
 * reply, and review states from two authors: Ada accepts, Bob rejects, then Ada marks it
 * completed. It prints the note's comments (the note and its text replies, by date) and its
 * review summary (each author's current state, then the history), saves the document
 * incrementally to OUT (the bytes of IN stay as they are; a file that was repaired when it
 * was opened is written in full, with a note), opens OUT again, finds the note by its unique
 * name (/NM), and prints the same. The two printouts are identical.
 *
 * On an error it prints "review: <status>: <message>" and exits with status 1.
 *
 * Build (see the Makefile): cc -std=c99 review.c $(pkg-config --cflags --libs quire)
 */
#include <quire.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static quire_document *doc;

static void check(int status) {
    if (status == QUIRE_OK) return;
    fprintf(stderr, "review: %s: %s\n", quire_status_string(status), quire_last_error_message());
    quire_document_close(doc);
    exit(1);
}

/* A text field through the length-query pattern, malloc'd; "" when it is not set. */
static char *field(const quire_annotation *a, quire_annot_string_field which) {
    size_t len = 0;
    char *buf;
    int status = quire_annotation_string(NULL, 0, &len, a, which);
    if (status == QUIRE_ENOTFOUND) len = 0;
    else check(status);
    buf = malloc(len + 1);
    if (!buf) check(QUIRE_ENOMEM);
    buf[0] = '\0';
    if (status == QUIRE_OK) check(quire_annotation_string(buf, len + 1, &len, a, which));
    return buf;
}

/* "Author (date): text" of item `index` of a list, with `indent` in front. */
static void print_item(const quire_annotation_list *list, int32_t index, const char *indent,
                       int32_t text_field) {
    quire_annotation *a = NULL;
    char *author, *date, *text;
    int32_t reply = 0;
    check(quire_annotation_list_get(&a, list, index));
    check(quire_annotation_is_reply(&reply, a));
    author = field(a, QUIRE_ANNOT_AUTHOR);
    date = field(a, QUIRE_ANNOT_CREATION_DATE);
    text = field(a, text_field);
    printf("%s%s%s (%s): %s\n", indent, reply && text_field == QUIRE_ANNOT_CONTENTS ? "re: " : "",
           author[0] ? author : "(no author)", date, text);
    free(author);
    free(date);
    free(text);
    quire_annotation_free(a);
}

/* The comments and the review summary of annotation `note`. */
static void print_thread(int32_t note) {
    quire_annotation_list *comments = NULL, *current = NULL, *history = NULL;
    int32_t n, k;
    check(quire_document_comments(&comments, doc, note));
    check(quire_annotation_list_count(&n, comments));
    printf("Comments (%d):\n", (int)n);
    for (k = 0; k < n; k++) print_item(comments, k, "  ", QUIRE_ANNOT_CONTENTS);
    quire_annotation_list_free(comments);

    check(quire_document_review_summary(&current, &history, doc, note));
    check(quire_annotation_list_count(&n, current));
    printf("Review states now (%d):\n", (int)n);
    for (k = 0; k < n; k++) print_item(current, k, "  ", QUIRE_ANNOT_STATE);
    check(quire_annotation_list_count(&n, history));
    printf("Review history (%d):\n", (int)n);
    for (k = 0; k < n; k++) print_item(history, k, "  ", QUIRE_ANNOT_STATE);
    quire_annotation_list_free(current);
    quire_annotation_list_free(history);
}

/* The object number of the annotation of page 1 whose /NM is `name`, or -1. */
static int32_t find_by_name(const char *name) {
    int32_t n, k, id = -1;
    check(quire_page_annotation_count(&n, doc, 0));
    for (k = 0; k < n && id < 0; k++) {
        quire_annotation *a = NULL;
        char *nm;
        check(quire_page_annotation(&a, doc, 0, k));
        nm = field(a, QUIRE_ANNOT_UNIQUE_NAME);
        if (strcmp(nm, name) == 0 && quire_annotation_id(&id, a) != QUIRE_OK) id = -1;
        free(nm);
        quire_annotation_free(a);
    }
    return id;
}

int main(int argc, char **argv) {
    quire_open_options options = QUIRE_OPEN_OPTIONS_INIT;
    quire_save_options save = QUIRE_SAVE_OPTIONS_INIT;
    quire_annotation *note = NULL, *reply = NULL;
    quire_rect box, rect;
    int32_t note_id, reply_id, pages, status;
    char *name;

    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: %s IN OUT [PASSWORD]\n", argv[0]);
        return 2;
    }
    options.password = argc == 4 ? argv[3] : NULL;
    check(quire_document_open(&doc, argv[1], &options));
    check(quire_document_page_count(&pages, doc));
    if (pages < 1) {
        fprintf(stderr, "review: %s has no pages\n", argv[1]);
        quire_document_close(doc);
        return 1;
    }

    /* A note near the top left corner of page 1's crop box. */
    check(quire_page_box(&box, doc, 0, QUIRE_BOX_CROP));
    rect.left = box.left + 36;
    rect.top = box.top - 36;
    rect.right = rect.left + 24;
    rect.bottom = rect.top - 24;
    check(quire_annotation_new(&note, "Text", 0, &rect));
    check(quire_annotation_set_string(note, QUIRE_ANNOT_AUTHOR, "Ada"));
    check(quire_annotation_set_string(note, QUIRE_ANNOT_CONTENTS, "Please review this page."));
    check(quire_annotation_set_string(note, QUIRE_ANNOT_ICON, "Comment"));
    check(quire_document_add_annotation(doc, note));
    check(quire_annotation_id(&note_id, note));
    name = field(note, QUIRE_ANNOT_UNIQUE_NAME);
    quire_annotation_free(note);

    /* A reply, and a reply to the reply (the comments list them flattened, by date). */
    check(quire_document_add_reply(&reply, doc, note_id, "Bob", "The second paragraph is unclear."));
    check(quire_annotation_id(&reply_id, reply));
    quire_annotation_free(reply);
    check(quire_document_add_reply(NULL, doc, reply_id, "Ada", "Rewritten; please look again."));

    /* Review states: Ada accepts, Bob rejects, Ada completes. */
    check(quire_document_add_state_reply(NULL, doc, note_id, "Ada", "Review", "Accepted"));
    check(quire_document_add_state_reply(NULL, doc, note_id, "Bob", "Review", "Rejected"));
    check(quire_document_add_state_reply(NULL, doc, note_id, "Ada", "Review", "Completed"));

    printf("== %s, page 1, with the review (before saving)\n", argv[1]);
    print_thread(note_id);

    /* An incremental save appends the changes; a repaired file has no sound cross-reference
     * to append to, so it is written in full. */
    status = quire_document_save(doc, &save, argv[2]);
    if (status == QUIRE_EUNSUPPORTED) {
        fprintf(stderr, "review: note: %s; saving in full instead\n", quire_last_error_message());
        save.mode = QUIRE_SAVE_FULL;
        status = quire_document_save(doc, &save, argv[2]);
    }
    check(status);
    quire_document_close(doc);
    doc = NULL;

    /* The saved file: find the note by its unique name and print the same. */
    check(quire_document_open(&doc, argv[2], &options));
    note_id = find_by_name(name);
    if (note_id < 0) {
        fprintf(stderr, "review: %s has no annotation named %s on page 1\n", argv[2], name);
        free(name);
        quire_document_close(doc);
        return 1;
    }
    printf("== %s, page 1, with the review (reopened)\n", argv[2]);
    print_thread(note_id);
    free(name);
    quire_document_close(doc);
    return 0;
}
