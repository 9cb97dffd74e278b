/*
 * pdfinfo: prints what a PDF file is, with libquire's C interface.
 *
 *   pdfinfo FILE [PASSWORD]
 *
 * Page count, PDF version, encryption, repair, the document information entries, each
 * page's boxes, rotation and annotation count (or that it is missing from the page tree,
 * when the tree's /Count counts more pages than it holds), and the warnings recorded while
 * reading it.
 * On an error it prints "pdfinfo: <status>: <message>" and exits with status 1.
 *
 * Build (see the Makefile): cc -std=c99 pdfinfo.c $(pkg-config --cflags --libs quire)
 */
#include <quire.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static quire_document *doc;

/* Reports a failed call and exits: the status's description and this thread's message. */
static void check(int status) {
    if (status == QUIRE_OK) return;
    fprintf(stderr, "pdfinfo: %s: %s\n", quire_status_string(status),
            quire_last_error_message());
    quire_document_close(doc);
    exit(1);
}

/* Prints `len` bytes of UTF-8 text; a NUL byte (text from a PDF may contain them) as \0. */
static void print_text(const char *s, size_t len) {
    size_t i;
    for (i = 0; i < len; i++) {
        if (s[i] == '\0')
            fputs("\\0", stdout);
        else
            putchar(s[i]);
    }
}

/* The length-query pattern: ask for the length with NULL/0 (which returns QUIRE_OK), then
 * read into a buffer of length + 1 bytes. Returns a malloc'd string; exits on an error. */
static char *get_warning(int32_t index, size_t *len) {
    char *buf;
    check(quire_document_warning(NULL, 0, len, doc, index));
    buf = malloc(*len + 1);
    if (!buf) check(QUIRE_ENOMEM);
    check(quire_document_warning(buf, *len + 1, len, doc, index));
    return buf;
}

static char *get_metadata_key(int32_t index, size_t *len) {
    char *buf;
    check(quire_document_metadata_key(NULL, 0, len, doc, index));
    buf = malloc(*len + 1);
    if (!buf) check(QUIRE_ENOMEM);
    check(quire_document_metadata_key(buf, *len + 1, len, doc, index));
    return buf;
}

static char *get_metadata(const char *key, size_t *len) {
    char *buf;
    check(quire_document_metadata(NULL, 0, len, doc, key));
    buf = malloc(*len + 1);
    if (!buf) check(QUIRE_ENOMEM);
    check(quire_document_metadata(buf, *len + 1, len, doc, key));
    return buf;
}

int main(int argc, char **argv) {
    static const struct {
        quire_box box;
        const char *name;
    } boxes[] = {{QUIRE_BOX_MEDIA, "MediaBox"},
                 {QUIRE_BOX_CROP, "CropBox"},
                 {QUIRE_BOX_BLEED, "BleedBox"},
                 {QUIRE_BOX_TRIM, "TrimBox"},
                 {QUIRE_BOX_ART, "ArtBox"}};
    quire_open_options options = QUIRE_OPEN_OPTIONS_INIT;
    int32_t pages, major, minor, encrypted, repaired, entries, warnings, i, p;
    size_t b, len;

    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: pdfinfo FILE [PASSWORD]\n");
        return 2;
    }
    if (quire_version_number() / 1000000 != QUIRE_VERSION_MAJOR) {
        fprintf(stderr, "pdfinfo: built for Quire %s, but the library is %s\n",
                QUIRE_VERSION_STRING, quire_version());
        return 1;
    }
    if (argc == 3) options.password = argv[2];

    check(quire_document_open(&doc, argv[1], &options));
    check(quire_document_page_count(&pages, doc));
    check(quire_document_pdf_version(&major, &minor, doc));
    check(quire_document_is_encrypted(&encrypted, doc));
    check(quire_document_is_repaired(&repaired, doc));
    check(quire_document_metadata_count(&entries, doc));

    printf("File:           %s\n", argv[1]);
    printf("Pages:          %d\n", (int)pages);
    printf("PDF version:    %d.%d\n", (int)major, (int)minor);
    printf("Encrypted:      %s\n", encrypted ? "yes" : "no");
    printf("Repaired:       %s\n", repaired ? "yes" : "no");
    printf("Metadata:       %d entr%s\n", (int)entries, entries == 1 ? "y" : "ies");
    for (i = 0; i < entries; i++) {
        char *key = get_metadata_key(i, &len);
        char *value = get_metadata(key, &len);
        printf("  %-14s", key);
        print_text(value, len);
        putchar('\n');
        free(value);
        free(key);
    }

    for (p = 0; p < pages; p++) {
        int32_t rotation, annotations;
        int status = quire_page_rotation(&rotation, doc, p);
        if (status == QUIRE_ENOTFOUND) {
            /* Counted by the page tree's /Count, but the tree does not hold it. */
            printf("Page %d:         missing from the page tree\n", (int)p + 1);
            continue;
        }
        check(status);
        check(quire_page_annotation_count(&annotations, doc, p));
        printf("Page %d:         rotation %d, %d annotation%s\n", (int)p + 1, (int)rotation,
               (int)annotations, annotations == 1 ? "" : "s");
        for (b = 0; b < sizeof boxes / sizeof boxes[0]; b++) {
            quire_rect r;
            check(quire_page_box(&r, doc, p, boxes[b].box));
            printf("  %-14s%.2f %.2f %.2f %.2f\n", boxes[b].name, r.left, r.bottom, r.right,
                   r.top);
        }
    }

    /* Read last: reading pages may add warnings. */
    check(quire_document_warning_count(&warnings, doc));
    printf("Warnings:       %d\n", (int)warnings);
    for (i = 0; i < warnings; i++) {
        char *w = get_warning(i, &len);
        fputs("  - ", stdout);
        print_text(w, len);
        putchar('\n');
        free(w);
    }

    quire_document_close(doc);
    return 0;
}
