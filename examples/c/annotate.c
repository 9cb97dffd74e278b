/*
 * annotate: adds a red Square annotation to page 1 of a PDF with libquire's low-level value
 * interface, and saves the result incrementally.
 *
 *   annotate IN OUT [PASSWORD]
 *
 * It finds page 1's object through the page tree (trailer /Root, the catalog's /Pages, the
 * /Kids of each node), parses the annotation dictionary from PDF syntax, adds it as a new
 * object, and appends a reference to it to the page's /Annots, which may be absent (a new
 * array is set), an array in the page dictionary (the page gets a longer one), or a
 * reference to an array object (that object is replaced by the longer array). The original
 * bytes of IN stay as they are in OUT; the changes are appended (an incremental save), so
 * signatures and earlier revisions survive. A file that was repaired when it was opened
 * cannot be updated incrementally: it is then written in full, with a note.
 *
 * It prints the number of annotations of page 1 before, and after (read back from OUT).
 * On an error it prints "annotate: <status>: <message>" and exits with status 1.
 *
 * Build (see the Makefile): cc -std=c99 annotate.c $(pkg-config --cflags --libs quire)
 */
#include <quire.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static quire_document *doc;

/* Reports a failed call and exits: the status's description and this thread's message. */
static void check(int status) {
    if (status == QUIRE_OK) return;
    fprintf(stderr, "annotate: %s: %s\n", quire_status_string(status),
            quire_last_error_message());
    quire_document_close(doc);
    exit(1);
}

static void fail(const char *message) {
    fprintf(stderr, "annotate: %s\n", message);
    quire_document_close(doc);
    exit(1);
}

static quire_value_kind type_of(const quire_value *v) {
    quire_value_kind type;
    check(quire_value_get_kind(&type, v));
    return type;
}

/* `value` in PDF syntax, through the length-query pattern: a malloc'd string. */
static char *to_pdf(const quire_value *value) {
    size_t len;
    char *buf;
    check(quire_value_to_pdf(NULL, 0, &len, value));
    buf = malloc(len + 1);
    if (!buf) check(QUIRE_ENOMEM);
    check(quire_value_to_pdf(buf, len + 1, &len, value));
    return buf;
}

/* Entry `key` of a dictionary, or NULL if it is not there. */
static quire_value *get(const quire_value *dict, const char *key) {
    quire_value *v = NULL;
    int status = quire_value_dict_get(&v, dict, key);
    if (status == QUIRE_ENOTFOUND) return NULL;
    check(status);
    return v;
}

/* Whether a page tree node is a leaf: /Type /Page, or (for files that omit /Type) a node
 * without /Kids. */
static int is_page(const quire_value *node) {
    quire_value *type = get(node, "Type"), *kids;
    int page;
    if (type && type_of(type) == QUIRE_VALUE_NAME) {
        char name[16];
        size_t len;
        int status = quire_value_bytes(name, sizeof name, &len, type);
        quire_value_free(type);
        if (status == QUIRE_OK) return strcmp(name, "Page") == 0;
        if (status != QUIRE_EBUFS) check(status);
        return 0;
    }
    quire_value_free(type);
    kids = get(node, "Kids");
    page = kids == NULL;
    quire_value_free(kids);
    return page;
}

/* The object number and generation of the first page below the page tree node that `ref`
 * refers to (depth-first, as the pages are numbered); 0 if there is none. A page object is
 * always indirect (the /Kids entries are references), so it has a number. */
static int find_first_page(const quire_value *ref, int depth, int32_t *number,
                           int32_t *generation) {
    quire_value *node = NULL, *kids;
    int32_t count, i;
    int found = 0;
    if (depth > 64 || type_of(ref) != QUIRE_VALUE_REFERENCE) return 0;
    check(quire_document_resolve(&node, doc, ref));
    if (type_of(node) != QUIRE_VALUE_DICTIONARY) {
        quire_value_free(node);
        return 0;
    }
    if (is_page(node)) {
        check(quire_value_reference(number, generation, ref));
        quire_value_free(node);
        return 1;
    }
    kids = get(node, "Kids");
    quire_value_free(node);
    if (!kids) return 0;
    if (type_of(kids) == QUIRE_VALUE_REFERENCE) { /* /Kids may itself be indirect */
        quire_value *resolved = NULL;
        check(quire_document_resolve(&resolved, doc, kids));
        quire_value_free(kids);
        kids = resolved;
    }
    if (type_of(kids) == QUIRE_VALUE_ARRAY) {
        check(quire_value_count(&count, kids));
        for (i = 0; i < count && !found; i++) {
            quire_value *kid = NULL;
            check(quire_value_array_get(&kid, kids, i));
            found = find_first_page(kid, depth + 1, number, generation);
            quire_value_free(kid);
        }
    }
    quire_value_free(kids);
    return found;
}

/* `array` with " number generation R" appended, as PDF syntax (malloc'd): each element is
 * printed with quire_value_to_pdf. */
static char *append_reference(const quire_value *array, int32_t number, int32_t generation) {
    int32_t count, i;
    size_t size = 64, used;
    char *text = malloc(size);
    if (!text) check(QUIRE_ENOMEM);
    strcpy(text, "[");
    used = 1;
    check(quire_value_count(&count, array));
    for (i = 0; i < count; i++) {
        quire_value *element = NULL;
        char *s;
        size_t n;
        check(quire_value_array_get(&element, array, i));
        s = to_pdf(element);
        n = strlen(s);
        if (used + n + 2 > size) {
            char *bigger;
            while (used + n + 2 > size) size *= 2;
            bigger = realloc(text, size);
            if (!bigger) check(QUIRE_ENOMEM);
            text = bigger;
        }
        memcpy(text + used, s, n);
        used += n;
        text[used++] = ' ';
        text[used] = '\0';
        free(s);
        quire_value_free(element);
    }
    if (used + 32 > size) {
        char *bigger = realloc(text, used + 32);
        if (!bigger) check(QUIRE_ENOMEM);
        text = bigger;
    }
    sprintf(text + used, "%ld %ld R]", (long)number, (long)generation);
    return text;
}

static quire_value *parse(const char *syntax) {
    quire_value *v = NULL;
    check(quire_value_parse(&v, syntax, strlen(syntax)));
    return v;
}

int main(int argc, char **argv) {
    quire_open_options options = QUIRE_OPEN_OPTIONS_INIT;
    quire_save_options save = QUIRE_SAVE_OPTIONS_INIT;
    quire_value *trailer = NULL, *root = NULL, *catalog = NULL, *pages = NULL;
    quire_value *page = NULL, *annots, *annotation, *new_annots;
    int32_t page_count, before, after, page_number = 0, page_generation = 0, annot_number;
    quire_rect crop;
    double side, x, y;
    char syntax[512];
    char *text;
    int status;

    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: annotate IN OUT [PASSWORD]\n");
        return 2;
    }
    if (quire_version_number() / 1000000 != QUIRE_VERSION_MAJOR ||
        quire_version_number() < QUIRE_VERSION_NUMBER) {
        /* This program uses functions of 0.2: an older library does not have them. */
        fprintf(stderr, "annotate: built for Quire %s, but the library is %s\n",
                QUIRE_VERSION_STRING, quire_version());
        return 1;
    }
    if (argc == 4) options.password = argv[3];

    check(quire_document_open(&doc, argv[1], &options));
    check(quire_document_page_count(&page_count, doc));
    if (page_count < 1) fail("the document has no pages");
    check(quire_page_annotation_count(&before, doc, 0));

    /* Page 1's object: trailer /Root -> the catalog's /Pages -> the first leaf. */
    check(quire_document_trailer(&trailer, doc));
    root = get(trailer, "Root");
    if (!root) fail("the trailer has no /Root");
    check(quire_document_resolve(&catalog, doc, root));
    if (type_of(catalog) != QUIRE_VALUE_DICTIONARY) fail("the catalog is not a dictionary");
    pages = get(catalog, "Pages");
    if (!pages || !find_first_page(pages, 0, &page_number, &page_generation))
        fail("page 1 was not found in the page tree");

    /* The annotation: a square a quarter of the page's smaller side, in the middle of the
     * crop box, with a red 2-point border; printable (/F 4); /P is its page. */
    check(quire_page_box(&crop, doc, 0, QUIRE_BOX_CROP));
    side = crop.right - crop.left < crop.top - crop.bottom ? crop.right - crop.left
                                                           : crop.top - crop.bottom;
    side /= 4;
    x = (crop.left + crop.right - side) / 2;
    y = (crop.bottom + crop.top - side) / 2;
    snprintf(syntax, sizeof syntax,
             "<< /Type /Annot /Subtype /Square /Rect [%.2f %.2f %.2f %.2f] /C [1 0 0] "
             "/BS << /W 2 >> /F 4 /P %ld %ld R /Contents (Added with Quire) >>",
             x, y, x + side, y + side, (long)page_number, (long)page_generation);
    annotation = parse(syntax);
    check(quire_document_add_object(&annot_number, doc, annotation));
    quire_value_free(annotation);

    /* Append a reference to it to the page's /Annots. */
    check(quire_document_object(&page, doc, page_number));
    annots = get(page, "Annots");
    if (annots && type_of(annots) == QUIRE_VALUE_REFERENCE) {
        /* An array object of its own: replace that object by the longer array. */
        quire_value *array = NULL;
        int32_t array_number, array_generation;
        check(quire_value_reference(&array_number, &array_generation, annots));
        check(quire_document_resolve(&array, doc, annots));
        if (type_of(array) == QUIRE_VALUE_ARRAY) {
            text = append_reference(array, annot_number, 0);
            new_annots = parse(text);
            check(quire_document_set_object(doc, array_number, new_annots));
            printf("annotate: page 1 (object %ld) has /Annots %ld %ld R: extended it\n",
                   (long)page_number, (long)array_number, (long)array_generation);
        } else {
            /* A reference to something that is not an array (a broken file): the page gets
             * an array of its own. */
            snprintf(syntax, sizeof syntax, "[%ld 0 R]", (long)annot_number);
            text = NULL;
            new_annots = parse(syntax);
            check(quire_document_set_dict_value(doc, page_number, "Annots", new_annots));
            printf("annotate: page 1 (object %ld) had an /Annots reference to no array: "
                   "replaced it\n", (long)page_number);
        }
        free(text);
        quire_value_free(new_annots);
        quire_value_free(array);
    } else if (annots && type_of(annots) == QUIRE_VALUE_ARRAY) {
        /* An array in the page dictionary: the page gets the longer array. */
        text = append_reference(annots, annot_number, 0);
        new_annots = parse(text);
        check(quire_document_set_dict_value(doc, page_number, "Annots", new_annots));
        printf("annotate: page 1 (object %ld) has an /Annots array: extended it\n",
               (long)page_number);
        free(text);
        quire_value_free(new_annots);
    } else {
        /* No /Annots (or something that is not an array): a new array. */
        snprintf(syntax, sizeof syntax, "[%ld 0 R]", (long)annot_number);
        new_annots = parse(syntax);
        check(quire_document_set_dict_value(doc, page_number, "Annots", new_annots));
        printf("annotate: page 1 (object %ld) had no /Annots: added one\n", (long)page_number);
        quire_value_free(new_annots);
    }
    printf("annotate: the Square annotation is object %ld 0 at [%.2f %.2f %.2f %.2f]\n",
           (long)annot_number, x, y, x + side, y + side);
    quire_value_free(annots);
    quire_value_free(page);
    quire_value_free(pages);
    quire_value_free(catalog);
    quire_value_free(root);
    quire_value_free(trailer);

    /* Save: incrementally (QUIRE_SAVE_OPTIONS_INIT), atomically replacing OUT. */
    status = quire_document_save(doc, &save, argv[2]);
    if (status == QUIRE_EUNSUPPORTED) {
        printf("annotate: %s: the file was repaired when it was opened, so it is written in "
               "full\n", quire_last_error_message());
        save.mode = QUIRE_SAVE_FULL;
        status = quire_document_save(doc, &save, argv[2]);
    }
    check(status);
    quire_document_close(doc);
    doc = NULL;

    /* Read the count back from what was written. */
    check(quire_document_open(&doc, argv[2], &options));
    check(quire_page_annotation_count(&after, doc, 0));
    quire_document_close(doc);
    doc = NULL;

    printf("Before: %ld annotations on page 1\n", (long)before);
    printf("After:  %ld annotations on page 1 (%s)\n", (long)after, argv[2]);
    return 0;
}
