/*
 * test_structure.c: the 0.2 document-structure functions (cross-reference form, object
 * count, linearization, encryption, the max_pages limit, pages missing from the page tree,
 * limits named in messages), the outline and page labels, on real files from the corpus.
 *
 * Where the expected values come from (as in test_api.c): "manifest" is a row of
 * CORPUS_DIR/manifest.jsonl; "pikepdf" (10.17, qpdf 12), "pypdfium2" (5.15, PDFium) and
 * "pypdf" (7.1) were run on the file with the calls named; "the file" means its bytes,
 * quoted; "the header" is include/quire.h.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_support.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANNOTS "pdfium/testing/resources/annots.pdf"
#define BOOKMARKS "pdfium/testing/resources/bookmarks.pdf"
#define PAGE_LABELS "pdfium/testing/resources/page_labels.pdf"
#define HYBRID "qpdf/qpdf/qtest/qpdf/hybrid-xref.pdf"
#define QPDF(name) "qpdf/qpdf/qtest/qpdf/" name

/* ---- cross-reference form, object count, linearization ------------------------------------ */

struct structure_case {
    const char *path;
    quire_xref_form xref_form;
    int32_t objects_min, objects_max; /* the object count: equal bounds unless said otherwise */
    int32_t linearized;
    const char *source;
};

static const struct structure_case structure_cases[] = {
    /* A classic table: "xref\n0 27" at startxref 5135 and trailer /Size 27 (the file);
     * manifest raw.startxref_target "table", pikepdf.xref_stream false, pikepdf.xref_entries
     * 26 (qpdf does not count the free entry of object 0, which the table lists);
     * pikepdf.is_linearized false. */
    {ANNOTS, QUIRE_XREF_TABLE, 27, 27, 0, "annots.pdf"},
    /* A cross-reference stream: "/Type /XRef /Size 9 /Index [0 9]" (the file); manifest
     * raw.startxref_target "stream", pikepdf.xref_stream true, xref_entries 8. */
    {QPDF("object-stream.pdf"), QUIRE_XREF_STREAM, 9, 9, 0, "object-stream.pdf"},
    /* Hybrid: the newest section is a table whose trailer has "/Prev 11301 /XRefStm 16233"
     * and /Size 110 (the file); manifest raw.startxref_target "table", pikepdf.xref_entries
     * 109, objstm_objects 13 (objects only the /XRefStm stream lists). */
    {HYBRID, QUIRE_XREF_HYBRID, 110, 110, 0, "hybrid-xref.pdf"},
    /* Damaged: startxref points where there is no xref (manifest raw.startxref_target
     * "bad-offset"; pikepdf xref_reconstructed, mupdf is_repaired): rebuilt by scanning,
     * which finds objects 1 to 6 (the file; pikepdf.xref_entries 6). Whether the count of
     * a rebuilt cross-reference includes the free object 0 (as it does for a table: 27 for
     * annots.pdf) the header does not say, so 6 and 7 are both accepted. */
    {QPDF("bad3.pdf"), QUIRE_XREF_REBUILT, 6, 7, 0, "bad3.pdf"},
    /* Linearized files: manifest pikepdf.is_linearized and qpdf_check.linearized true; the
     * first object is "<< /Linearized 1 /L 13103 ..." (the file). Their newest section is the
     * first-page table (lin1, minimal) or stream (c-linearized, page_labels: manifest
     * pikepdf.xref_stream true); trailer /Size 79, 9, 83, 43 (pikepdf). */
    {QPDF("lin1.pdf"), QUIRE_XREF_TABLE, 79, 79, 1, "lin1.pdf"},
    {QPDF("minimal-linearized.pdf"), QUIRE_XREF_TABLE, 9, 9, 1, "minimal-linearized.pdf"},
    {QPDF("c-linearized.pdf"), QUIRE_XREF_STREAM, 83, 83, 1, "c-linearized.pdf"},
    {PAGE_LABELS, QUIRE_XREF_STREAM, 43, 43, 1, "page_labels.pdf"},
};

static void test_structure_cases(void) {
    size_t i;
    for (i = 0; i < sizeof structure_cases / sizeof structure_cases[0]; i++) {
        const struct structure_case *c = &structure_cases[i];
        quire_document *doc = open_corpus(c->path, NULL);
        quire_xref_form form = (quire_xref_form)-1;
        int32_t v = -1;
        if (!doc) continue;
        CHECK_STATUS(quire_document_xref_form(&form, doc), QUIRE_OK);
        report(form == c->xref_form, __FILE__, __LINE__, "%s: xref form 0x%x, expected 0x%x",
               c->source, (unsigned)form, (unsigned)c->xref_form);
        v = -1;
        CHECK_STATUS(quire_document_object_count(&v, doc), QUIRE_OK);
        report(v >= c->objects_min && v <= c->objects_max, __FILE__, __LINE__,
               "%s: object count %d, expected %d%s", c->source, (int)v, (int)c->objects_min,
               c->objects_max != c->objects_min ? " or 7" : "");
        v = -1;
        CHECK_STATUS(quire_document_is_linearized(&v, doc), QUIRE_OK);
        report(v == c->linearized, __FILE__, __LINE__, "%s: is_linearized %d, expected %d",
               c->source, (int)v, (int)c->linearized);
        quire_document_close(doc);
    }
}

static void test_structure_errors(void) {
    quire_document *doc;
    int32_t v = -7;
    /* Out-parameters of the enum types: a value of no family, to see that they stay. */
    quire_xref_form form = (quire_xref_form)0x7777;
    quire_encryption_method method = (quire_encryption_method)0x7777;
    quire_action_type action = (quire_action_type)0x7777;
    doc = open_corpus(ANNOTS, NULL);
    if (!doc) return;
    /* The header: QUIRE_EINVAL for NULL arguments; out untouched. */
    CHECK_STATUS(quire_document_xref_form(NULL, doc), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_xref_form(&form, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_object_count(NULL, doc), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_object_count(&v, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_is_linearized(NULL, doc), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_is_linearized(&v, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_outline_count(NULL, doc), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_outline_count(&v, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_encryption(&method, &v, NULL, &v, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_encryption(NULL, NULL, NULL, NULL, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_outline_item(&v, &v, &v, &v, &action, &v, NULL, 0), QUIRE_EINVAL);
    CHECK_INT(v, -7);
    CHECK_INT(form, 0x7777);
    CHECK_INT(method, 0x7777);
    CHECK_INT(action, 0x7777);
    quire_document_close(doc);
}

/* ---- encryption ----------------------------------------------------------------------------- */

struct encryption_case {
    const char *path;
    const char *password;
    quire_encryption_method method;
    int32_t revision;
    uint32_t permissions;
    int32_t is_owner;
};

/* pikepdf: Pdf.encryption .R, .P (as signed 32 bits: the unsigned value below),
 * .stream_method and .bits, and Pdf.owner_password_matched; mupdf's "encryption" in the
 * manifest for the files that open without a password ("Standard V1 R2 40-bit RC4", ...).
 * The files named U=view,O=master open with "view" (user) and "master" (owner). */
static const struct encryption_case encryption_cases[] = {
    /* R2, V1, 40-bit RC4, P -64 (pikepdf; mupdf "Standard V1 R2 40-bit RC4" for the
     * enc-R2,V1 files) */
    {QPDF("enc-R2,V1,U=view,O=master.pdf"), "view", QUIRE_ENCRYPTION_RC4_40, 2, 0xFFFFFFC0u, 0},
    {QPDF("enc-R2,V1,U=view,O=master.pdf"), "master", QUIRE_ENCRYPTION_RC4_40, 2, 0xFFFFFFC0u, 1},
    /* R3, V2, 128-bit RC4, P -3104 (pikepdf) */
    {QPDF("enc-R3,V2,U=view,O=master.pdf"), "view", QUIRE_ENCRYPTION_RC4_128, 3, 0xFFFFF3E0u, 0},
    {QPDF("enc-R3,V2,U=view,O=master.pdf"), "master", QUIRE_ENCRYPTION_RC4_128, 3, 0xFFFFF3E0u, 1},
    /* R4, V4, crypt filters: RC4 (V4.pdf) and AES-128 (V4-aes.pdf), P -4; the empty password
     * is the owner password too (pikepdf owner_password_matched true; manifest mupdf
     * "Standard V4 R4 128-bit RC4" / "... AES") */
    {QPDF("V4.pdf"), NULL, QUIRE_ENCRYPTION_RC4_128, 4, 0xFFFFFFFCu, 1},
    {QPDF("V4-aes.pdf"), NULL, QUIRE_ENCRYPTION_AES_128, 4, 0xFFFFFFFCu, 1},
    /* R6, V5, AES-256, P -3076 (pikepdf stream_method aesv3, bits 256) */
    {QPDF("enc-XI-R6,V5,U=view,O=master.pdf"), "view", QUIRE_ENCRYPTION_AES_256, 6, 0xFFFFF3FCu, 0},
    {QPDF("enc-XI-R6,V5,U=view,O=master.pdf"), "master", QUIRE_ENCRYPTION_AES_256, 6, 0xFFFFF3FCu,
     1},
    /* Crypt filters that leave streams and strings as they are: "/StmF /Identity /StrF
     * /Identity" with /EFF /StdCF for embedded files only (the file); pikepdf, opening it
     * with "asdfqwer" (the password qpdf's test suite gives it), reports R 6, P -1028,
     * stream_method and string_method none, efile_method aesv3, owner_password_matched true. */
    {QPDF("nontrivial-crypt-filter.pdf"), "asdfqwer", QUIRE_ENCRYPTION_IDENTITY, 6, 0xFFFFFBFCu, 1},
    /* R5 (the deprecated Adobe extension level 3), AES-256, P -4, empty passwords (pikepdf:
     * R 5, owner_password_matched true; manifest mupdf "Standard V5 R5 256-bit AES") */
    {"pypdf/resources/encryption/r5-empty-password.pdf", NULL, QUIRE_ENCRYPTION_AES_256, 5,
     0xFFFFFFFCu, 1},
};

static void test_encryption(void) {
    size_t i;
    quire_document *doc;
    quire_encryption_method method = (quire_encryption_method)0x7777;
    int32_t revision = -7, is_owner = -7;
    uint32_t permissions = 7;
    for (i = 0; i < sizeof encryption_cases / sizeof encryption_cases[0]; i++) {
        const struct encryption_case *c = &encryption_cases[i];
        doc = open_corpus(c->path, c->password);
        if (!doc) continue;
        method = (quire_encryption_method)0x7777;
        revision = is_owner = -7;
        permissions = 7;
        CHECK_STATUS(quire_document_encryption(&method, &revision, &permissions, &is_owner, doc),
                     QUIRE_OK);
        report(method == c->method && revision == c->revision && permissions == c->permissions &&
                   is_owner == c->is_owner,
               __FILE__, __LINE__,
               "%s with %s: method 0x%x revision %d permissions 0x%08lx owner %d, expected "
               "0x%x %d 0x%08lx %d",
               c->path, c->password ? c->password : "no password", (unsigned)method, (int)revision,
               (unsigned long)permissions, (int)is_owner, (unsigned)c->method, (int)c->revision,
               (unsigned long)c->permissions, (int)c->is_owner);
        /* Any out-pointer may be NULL (the header). */
        method = (quire_encryption_method)0x7777;
        CHECK_STATUS(quire_document_encryption(&method, NULL, NULL, NULL, doc), QUIRE_OK);
        CHECK_INT(method, c->method);
        permissions = 7;
        CHECK_STATUS(quire_document_encryption(NULL, NULL, &permissions, NULL, doc), QUIRE_OK);
        CHECK_INT(permissions, c->permissions);
        CHECK_STATUS(quire_document_encryption(NULL, NULL, NULL, NULL, doc), QUIRE_OK);
        quire_document_close(doc);
    }

    /* Not encrypted: method none, revision 0, all permission bits set (the header); manifest
     * is_encrypted false for annots.pdf. The owner flag is not defined then. */
    doc = open_corpus(ANNOTS, NULL);
    if (doc) {
        method = (quire_encryption_method)0x7777;
        revision = -7;
        permissions = 7;
        CHECK_STATUS(quire_document_encryption(&method, &revision, &permissions, &is_owner, doc),
                     QUIRE_OK);
        CHECK_INT(method, QUIRE_ENCRYPTION_NONE);
        CHECK_INT(revision, 0);
        CHECK_INT(permissions, 0xFFFFFFFFu);
        quire_document_close(doc);
    }
}

/* ---- max_pages ----------------------------------------------------------------------------- */

static void test_max_pages(void) {
    quire_document *doc = NULL;
    quire_open_options options = QUIRE_OPEN_OPTIONS_INIT;
    int32_t pages = -1;
    int status;
    /* hybrid-xref.pdf has 30 pages (manifest page_count, all peers). */
    options.max_pages = 30;
    CHECK_STATUS(quire_document_open(&doc, corpus(HYBRID), &options), QUIRE_OK);
    if (doc) {
        CHECK_STATUS(quire_document_page_count(&pages, doc), QUIRE_OK);
        CHECK_INT(pages, 30);
        quire_document_close(doc);
    }
    /* One fewer: "past a limit, opening or reading fails with QUIRE_ELIMIT" (the header). */
    doc = NULL;
    options.max_pages = 29;
    status = quire_document_open(&doc, corpus(HYBRID), &options);
    if (status == QUIRE_OK) {
        pages = -1;
        CHECK_STATUS(quire_document_page_count(&pages, doc), QUIRE_ELIMIT);
        CHECK_INT(pages, -1);
        quire_document_close(doc);
    } else {
        check_status(status, QUIRE_ELIMIT, "quire_document_open with max_pages 29", __FILE__,
                     __LINE__);
    }
    /* 0 is the default (1048575): it opens. */
    doc = NULL;
    options.max_pages = 0;
    CHECK_STATUS(quire_document_open(&doc, corpus(HYBRID), &options), QUIRE_OK);
    quire_document_close(doc);
}

/* ---- limits named in the status message --------------------------------------------------- */

/* A file of 3 objects (catalog, pages, one page) and a stream 4, with `sections` classic
 * cross-reference sections chained through /Prev; written into buf, its length returned. */
static size_t limit_pdf(char *buf, size_t size, int sections, const char *stream_dict,
                        const char *stream_data) {
    size_t n = 0, offsets[5], xref = 0, prev = 0;
    int k, i;
    n += (size_t)snprintf(buf + n, size - n, "%%PDF-1.7\n");
    offsets[1] = n;
    n +=
        (size_t)snprintf(buf + n, size - n, "1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n");
    offsets[2] = n;
    n += (size_t)snprintf(buf + n, size - n,
                          "2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n");
    offsets[3] = n;
    n += (size_t)snprintf(
        buf + n, size - n,
        "3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] >>\nendobj\n");
    offsets[4] = n;
    n += (size_t)snprintf(buf + n, size - n,
                          "4 0 obj\n<< %s /Length %u >>\nstream\n%s\nendstream\nendobj\n",
                          stream_dict, (unsigned)strlen(stream_data), stream_data);
    for (k = 0; k < sections; k++) {
        xref = n;
        n += (size_t)snprintf(buf + n, size - n, "xref\n0 5\n0000000000 65535 f \n");
        for (i = 1; i <= 4; i++)
            n += (size_t)snprintf(buf + n, size - n, "%010u 00000 n \n", (unsigned)offsets[i]);
        if (k == 0)
            n += (size_t)snprintf(buf + n, size - n, "trailer\n<< /Size 5 /Root 1 0 R >>\n");
        else
            n += (size_t)snprintf(buf + n, size - n,
                                  "trailer\n<< /Size 5 /Root 1 0 R /Prev %u >>\n", (unsigned)prev);
        prev = xref;
    }
    n += (size_t)snprintf(buf + n, size - n, "startxref\n%u\n%%%%EOF\n", (unsigned)xref);
    return n;
}

static void test_limits_named(void) {
    static char pdf[8192];
    quire_document *doc = NULL;
    quire_open_options options = QUIRE_OPEN_OPTIONS_INIT;
    quire_value *stream = NULL;
    char data[512];
    size_t len = 0, n;
    int32_t pages = -1;
    /* max_xref_chain: 4 sections chained through /Prev, 2 allowed: QUIRE_ELIMIT at open,
     * with the limit's name in the message; the default opens it. */
    n = limit_pdf(pdf, sizeof pdf, 4, "", "x");
    options.max_xref_chain = 2;
    CHECK_STATUS(quire_document_open_memory(&doc, pdf, n, &options), QUIRE_ELIMIT);
    CHECK(doc == NULL);
    CHECK(strstr(quire_last_error_message(), "max_xref_chain") != NULL);
    options.max_xref_chain = 0;
    CHECK_STATUS(quire_document_open_memory(&doc, pdf, n, &options), QUIRE_OK);
    quire_document_close(doc);
    doc = NULL;
    /* max_stream_bytes: a stream that decodes to 121 bytes, 50 allowed: the document opens
     * and reads; decoding that stream gives QUIRE_ELIMIT naming the limit, raw data is fine. */
    n = limit_pdf(
        pdf, sizeof pdf, 1, "/Filter /ASCIIHexDecode",
        "41414141414141414141414141414141414141414141414141414141414141414141414141414141"
        "41414141414141414141414141414141414141414141414141414141414141414141414141414141"
        "4141414141414141414141414141414141414141414141414141414141414141414141414141414141>");
    options.max_stream_bytes = 50;
    CHECK_STATUS(quire_document_open_memory(&doc, pdf, n, &options), QUIRE_OK);
    if (doc) {
        CHECK_STATUS(quire_document_page_count(&pages, doc), QUIRE_OK);
        CHECK_INT(pages, 1);
        CHECK_STATUS(quire_document_object(&stream, doc, 4), QUIRE_OK);
        CHECK_STATUS(
            quire_document_stream_data(data, sizeof data, &len, doc, stream, QUIRE_STREAM_DECODED),
            QUIRE_ELIMIT);
        CHECK(strstr(quire_last_error_message(), "max_stream_bytes") != NULL);
        CHECK_STATUS(
            quire_document_stream_data(data, sizeof data, &len, doc, stream, QUIRE_STREAM_RAW),
            QUIRE_OK);
        CHECK(len == 243);
        quire_value_free(stream);
        quire_document_close(doc);
    }
    /* The same stream with the default limit decodes to its 121 bytes. */
    options.max_stream_bytes = 0;
    doc = NULL;
    stream = NULL;
    CHECK_STATUS(quire_document_open_memory(&doc, pdf, n, &options), QUIRE_OK);
    if (doc) {
        CHECK_STATUS(quire_document_object(&stream, doc, 4), QUIRE_OK);
        CHECK_STATUS(
            quire_document_stream_data(data, sizeof data, &len, doc, stream, QUIRE_STREAM_DECODED),
            QUIRE_OK);
        CHECK(len == 121 && data[0] == 'A' && data[120] == 'A');
        quire_value_free(stream);
        quire_document_close(doc);
    }
}

/* ---- missing pages ------------------------------------------------------------------------- */

/* unsupported_feature.pdf: the page tree root says /Count 3 over one page (its bytes).
 * PDFium and MuPDF report 3 pages (manifest page_count), and so does Quire; the pages the
 * tree does not hold are counted but give QUIRE_ENOTFOUND (the header). */
#define COUNT_3_OF_1 "pdfium/testing/resources/unsupported_feature.pdf"
/* bug_680376.pdf: /Count 4 over leaves that expand to 6 pages (its bytes): 4 pages. */
#define COUNT_4_OF_6 "pdfium/testing/resources/bug_680376.pdf"

static void test_missing_pages(void) {
    quire_document *doc;
    quire_annotation *annotation = NULL;
    quire_bookmark *bookmark = NULL;
    quire_rect r;
    int32_t pages = -1, v = -7, i;
    size_t len = 99;
    doc = open_corpus(COUNT_3_OF_1, NULL);
    if (doc) {
        CHECK_STATUS(quire_document_page_count(&pages, doc), QUIRE_OK);
        CHECK_INT(pages, 3);
        CHECK_STATUS(quire_page_box(&r, doc, 0, QUIRE_BOX_MEDIA), QUIRE_OK);
        CHECK_RECT(r, 0, 0, 612, 792);
        for (i = 1; i < 3; i++) {
            CHECK_STATUS(quire_page_box(&r, doc, i, QUIRE_BOX_MEDIA), QUIRE_ENOTFOUND);
            CHECK(strstr(quire_last_error_message(), "/Count (3)") != NULL);
            CHECK(strstr(quire_last_error_message(), "holds only 1 page") != NULL);
            CHECK_STATUS(quire_page_rotation(&v, doc, i), QUIRE_ENOTFOUND);
            CHECK_STATUS(quire_page_annotation_count(&v, doc, i), QUIRE_ENOTFOUND);
            CHECK_STATUS(quire_page_annotation(&annotation, doc, i, 0), QUIRE_ENOTFOUND);
            CHECK_STATUS(quire_document_export_annotations_json(NULL, 0, &len, doc, i),
                         QUIRE_ENOTFOUND);
        }
        CHECK_INT(v, -7);
        CHECK(annotation == NULL);
        /* Past the count: QUIRE_ERANGE, as before. */
        CHECK_STATUS(quire_page_box(&r, doc, 3, QUIRE_BOX_MEDIA), QUIRE_ERANGE);
        CHECK_STATUS(quire_page_rotation(&v, doc, 3), QUIRE_ERANGE);
        /* The whole document's annotations: those of the page that exists. */
        CHECK_STATUS(quire_document_export_annotations_json(NULL, 0, &len, doc, -1), QUIRE_OK);
        /* A go-to bookmark to a missing page is refused like one past the last page. */
        CHECK_STATUS(quire_bookmark_new(&bookmark, QUIRE_BOOKMARK_GOTO, 2, NULL), QUIRE_OK);
        if (bookmark) {
            CHECK_STATUS(quire_document_add_bookmark(doc, bookmark), QUIRE_ERANGE);
            quire_bookmark_free(bookmark);
        }
        quire_document_close(doc);
    }
    doc = open_corpus(COUNT_4_OF_6, NULL);
    if (doc) {
        CHECK_STATUS(quire_document_page_count(&pages, doc), QUIRE_OK);
        CHECK_INT(pages, 4);
        for (i = 0; i < 4; i++) CHECK_STATUS(quire_page_rotation(&v, doc, i), QUIRE_OK);
        CHECK_STATUS(quire_page_rotation(&v, doc, 4), QUIRE_ERANGE);
        quire_document_close(doc);
    }
}

/* ---- the outline ----------------------------------------------------------------------------- */

struct outline_expect {
    int32_t depth, parent, children;
    int32_t is_open; /* -1: a leaf, whose open state the header leaves undefined */
    quire_action_type action;
    int32_t page;
    const char *title;
    const char *target; /* NULL: QUIRE_ENOTFOUND */
};

static void check_outline(quire_document *doc, const struct outline_expect *e, int32_t n,
                          const char *name) {
    int32_t count = -1, i;
    CHECK_STATUS(quire_document_outline_count(&count, doc), QUIRE_OK);
    report(count == n, __FILE__, __LINE__, "%s: %d outline items, expected %d", name, (int)count,
           (int)n);
    for (i = 0; i < n && i < count; i++) {
        int32_t depth = -7, parent = -7, children = -7, is_open = -7, page = -7;
        quire_action_type action = (quire_action_type)0x7777;
        size_t len = 99;
        char buf[8];
        CHECK_STATUS(quire_document_outline_item(&depth, &parent, &children, &is_open, &action,
                                                 &page, doc, i),
                     QUIRE_OK);
        report(depth == e[i].depth && parent == e[i].parent && children == e[i].children &&
                   (e[i].is_open < 0 || is_open == e[i].is_open) && action == e[i].action,
               __FILE__, __LINE__,
               "%s item %d: depth %d parent %d children %d open %d action 0x%x, expected "
               "%d %d %d %d 0x%x",
               name, (int)i, (int)depth, (int)parent, (int)children, (int)is_open, (unsigned)action,
               (int)e[i].depth, (int)e[i].parent, (int)e[i].children, (int)e[i].is_open,
               (unsigned)e[i].action);
        if (e[i].action == QUIRE_ACTION_GOTO || e[i].action == QUIRE_ACTION_GOTOR)
            report(page == e[i].page, __FILE__, __LINE__, "%s item %d: page %d, expected %d", name,
                   (int)i, (int)page, (int)e[i].page);
        CHECK_TEXT(T_OUTLINE_TITLE, doc, NULL, i, e[i].title);
        if (e[i].target) {
            CHECK_TEXT(T_OUTLINE_TARGET, doc, NULL, i, e[i].target);
        } else {
            /* GoTo and none have no target: QUIRE_ENOTFOUND (the header). */
            CHECK_STATUS(quire_document_outline_target(buf, sizeof buf, &len, doc, i),
                         QUIRE_ENOTFOUND);
            CHECK_STATUS(quire_document_outline_target(NULL, 0, &len, doc, i), QUIRE_ENOTFOUND);
            CHECK_INT(len, 99);
        }
    }
}

/* pdfium's bookmarks.pdf (the file): 8 0 obj /Outlines /First 9 /Last 12;
 *   9  (A Good Beginning)               /Dest (foo)                  leaf
 *   10 (Open Middle)                    /A << /S /URI /URI (https://theplay.test) >>,
 *                                       /Count 1, child 11
 *   11 (Open Middle Descendant)         /Dest [3 0 R /XYZ 100 200 0]  (page 0)
 *   12 (A Good Closed Ending)           /Dest (bar), /Count -2, children 13, 14
 *   13, 14 (... Descendant, ... 2)      /Dest (bar)
 * The catalog has no /Names and no /Dests, so the named destinations (foo), (bar) do not
 * resolve. pypdfium2 get_toc agrees on levels, titles, counts (1, -2) and page 0 for item 2;
 * pikepdf's outline: is_closed true only for item 3, destinations "foo", "bar", the array.
 * The header: a /Dest is QUIRE_ACTION_GOTO ("a /Dest or a GoTo action"; NONE is "no
 * destination and no action"), with page -1 "when the destination does not resolve to a
 * page". */
static const struct outline_expect bookmarks_outline[] = {
    {0, -1, 0, -1, QUIRE_ACTION_GOTO, -1, "A Good Beginning", NULL},
    {0, -1, 1, 1, QUIRE_ACTION_URI, -1, "Open Middle", "https://theplay.test"},
    {1, 1, 0, -1, QUIRE_ACTION_GOTO, 0, "Open Middle Descendant", NULL},
    {0, -1, 2, 0, QUIRE_ACTION_GOTO, -1, "A Good Closed Ending", NULL},
    {1, 3, 0, -1, QUIRE_ACTION_GOTO, -1, "A Good Closed Ending Descendant", NULL},
    {1, 3, 0, -1, QUIRE_ACTION_GOTO, -1, "A Good Closed Ending Descendant 2", NULL},
};

/* qpdf's hybrid-xref.pdf: 11 items (manifest outline_items, all peers). pypdfium2 get_toc:
 * levels 0 1 2 3 3 2 3 1 2 2 0, counts 4 -3 -2 0 0 1 0 2 0 0 0 (negative: closed), pages
 * 5 11 12 18 19 12 22 13 1 0 15, no actions (plain /Dest arrays: pikepdf); titles decoded by
 * both pypdfium2 and pikepdf (UTF-8 below). Parents and child counts follow from the levels. */
static const struct outline_expect hybrid_outline[] = {
    {0, -1, 2, 1, QUIRE_ACTION_GOTO, 5, "Is\xc3\xads 1 -> 5: /XYZ  null null null", NULL},
    {1, 0, 2, 0, QUIRE_ACTION_GOTO, 11, "Amanda 1.1 -> 11: /Fit", NULL},
    {2, 1, 2, 0, QUIRE_ACTION_GOTO, 12, "Isosicle 1.1.1 -> 12: /FitV 100", NULL},
    {3, 2, 0, -1, QUIRE_ACTION_GOTO, 18, "Isosicle 1.1.1.1 -> 18: /XYZ null null null", NULL},
    {3, 2, 0, -1, QUIRE_ACTION_GOTO, 19, "Isosicle 1.1.1.2 -> 19: /XYZ null null null", NULL},
    {2, 1, 1, 1, QUIRE_ACTION_GOTO, 12, "Isosicle 1.1.2 -> 12: /XYZ null null null", NULL},
    {3, 5, 0, -1, QUIRE_ACTION_GOTO, 22, "Isosicle 1.1.2.1 -> 22: /XYZ null null null", NULL},
    {1, 0, 2, 1, QUIRE_ACTION_GOTO, 13,
     "Sandy \xc3\xb7\xce\xa3\xce\xb1\xce\xbd\xce\xb4\xce\xb9\xc3\xb7 1.2 -> 13: /FitH 792", NULL},
    {2, 7, 0, -1, QUIRE_ACTION_GOTO, 1, "Trepsichord 1.2.1 -> 1: /FitR 66 714 180 770", NULL},
    {2, 7, 0, -1, QUIRE_ACTION_GOTO, 0, "Trepsicle 1.2.2 -> 0: /XYZ null null null", NULL},
    {0, -1, 0, -1, QUIRE_ACTION_GOTO, 15, "Trepak 2 -> 15: /XYZ 66 756 3", NULL},
};

/* qpdf's outlines-with-actions.pdf: the same tree as hybrid-xref.pdf, but item 3 is
 * /A << /S /GoTo /D (glarp) >> and item 8 /Dest (gabeebee), named destinations resolved
 * through the catalog's /Names /Dests tree; item 9 is a GoTo action with an explicit
 * destination (pikepdf: destinations and actions; pypdfium2 get_toc: levels, counts 4 -3 -2
 * 0 0 1 0 2 0 0 0, pages, FPDFAction_GetType 1 (GoTo) for items 3 and 9). */
static const struct outline_expect actions_outline[] = {
    {0, -1, 2, 1, QUIRE_ACTION_GOTO, 5, "Potato 1 -> 5: /XYZ null null null", NULL},
    {1, 0, 2, 0, QUIRE_ACTION_GOTO, 11, "Mern 1.1 -> 11: /Fit", NULL},
    {2, 1, 2, 0, QUIRE_ACTION_GOTO, 12, "Biherbadem 1.1.1 -> 12: /FitV 100", NULL},
    {3, 2, 0, -1, QUIRE_ACTION_GOTO, 18,
     "Glarpenspliel (A, name) 1.1.1.1 -> 18: /XYZ null null null", NULL},
    {3, 2, 0, -1, QUIRE_ACTION_GOTO, 19, "Hagoogamagoogle 1.1.1.2 -> 19: /XYZ null null null",
     NULL},
    {2, 1, 1, 1, QUIRE_ACTION_GOTO, 12, "Gawehwehweh 1.1.2 -> 12: /XYZ null null null", NULL},
    {3, 5, 0, -1, QUIRE_ACTION_GOTO, 22, "Jawarnianbvarwash 1.1.2.1 -> 22: /XYZ null null null",
     NULL},
    {1, 0, 2, 1, QUIRE_ACTION_GOTO, 13,
     "Squash \xc3\xb7\xcf\x80\xca\xac\xc3\xb7 1.2 -> 13: /FitH 792", NULL},
    {2, 7, 0, -1, QUIRE_ACTION_GOTO, 1, "Gabeebeebee (name) 1.2.1 -> 1: /FitR 66 714 180 770",
     NULL},
    {2, 7, 0, -1, QUIRE_ACTION_GOTO, 0, "Merschqaberschq (A) 1.2.2 -> 0: /XYZ null null null",
     NULL},
    {0, -1, 0, -1, QUIRE_ACTION_GOTO, 15, "Salad 2 -> 15: /XYZ 66 756 3", NULL},
};

/* qpdf's outlines-with-old-root-dests.pdf: the same, with the PDF 1.1 catalog /Dests
 * dictionary and name destinations (/D /glarp, /Dest /gabeebee), and titles that begin with
 * PDFDocEncoding 0x80, U+2022 BULLET (pikepdf, pypdfium2); item 1 is open here (count 3). */
static const struct outline_expect old_dests_outline[] = {
    {0, -1, 2, 1, QUIRE_ACTION_GOTO, 5, "\xe2\x80\xa2Potato 1 -> 5: /XYZ null null null", NULL},
    {1, 0, 2, 1, QUIRE_ACTION_GOTO, 11, "\xe2\x80\xa2Mern 1.1 -> 11: /Fit", NULL},
    {2, 1, 2, 0, QUIRE_ACTION_GOTO, 12,
     "\xe2\x80\xa2"
     "Biherbadem 1.1.1 -> 12: /FitV 100",
     NULL},
    {3, 2, 0, -1, QUIRE_ACTION_GOTO, 18,
     "\xe2\x80\xa2Glarpenspliel (A, name) 1.1.1.1 -> 18: /XYZ null null null", NULL},
    {3, 2, 0, -1, QUIRE_ACTION_GOTO, 19,
     "\xe2\x80\xa2Hagoogamagoogle 1.1.1.2 -> 19: /XYZ null null null", NULL},
    {2, 1, 1, 1, QUIRE_ACTION_GOTO, 12, "\xe2\x80\xa2Gawehwehweh 1.1.2 -> 12: /XYZ null null null",
     NULL},
    {3, 5, 0, -1, QUIRE_ACTION_GOTO, 22,
     "\xe2\x80\xa2Jawarnianbvarwash 1.1.2.1 -> 22: /XYZ null null null", NULL},
    {1, 0, 2, 1, QUIRE_ACTION_GOTO, 13,
     "\xe2\x80\xa2Squash \xc3\xb7\xcf\x80\xca\xac\xc3\xb7 1.2 -> 13: /FitH 792", NULL},
    {2, 7, 0, -1, QUIRE_ACTION_GOTO, 1,
     "\xe2\x80\xa2Gabeebeebee (name) 1.2.1 -> 1: /FitR 66 714 180 770", NULL},
    {2, 7, 0, -1, QUIRE_ACTION_GOTO, 0,
     "\xe2\x80\xa2Merschqaberschq (A) 1.2.2 -> 0: /XYZ null null null", NULL},
    {0, -1, 0, -1, QUIRE_ACTION_GOTO, 15, "\xe2\x80\xa2Salad 2 -> 15: /XYZ 66 756 3", NULL},
};

/* pdfium's page_labels.pdf: six top-level items "Blank Page", each /A << /S /GoTo /D [page
 * /XYZ 0 792 null] >> (pikepdf), to pages 1 2 6 5 4 3 (pypdfium2 get_dest().get_index();
 * FPDFAction_GetType 1, PDFACTION_GOTO). */
static const struct outline_expect page_labels_outline[] = {
    {0, -1, 0, -1, QUIRE_ACTION_GOTO, 1, "Blank Page", NULL},
    {0, -1, 0, -1, QUIRE_ACTION_GOTO, 2, "Blank Page", NULL},
    {0, -1, 0, -1, QUIRE_ACTION_GOTO, 6, "Blank Page", NULL},
    {0, -1, 0, -1, QUIRE_ACTION_GOTO, 5, "Blank Page", NULL},
    {0, -1, 0, -1, QUIRE_ACTION_GOTO, 4, "Blank Page", NULL},
    {0, -1, 0, -1, QUIRE_ACTION_GOTO, 3, "Blank Page", NULL},
};

static void test_outline(void) {
    quire_document *doc;
    int32_t v = -7;
    quire_action_type w = (quire_action_type)0x7777;
    size_t len = 99;
    char buf[16];
    test_step("bookmarks.pdf");
    doc = open_corpus(BOOKMARKS, NULL);
    if (doc) {
        static const int32_t bad[] = {6, -1, INT32_MIN, INT32_MAX};
        size_t i;
        check_outline(doc, bookmarks_outline, 6, "bookmarks.pdf");
        /* The length-query pattern on a title and on a target. */
        CHECK_LENGTH_QUERY(T_OUTLINE_TITLE, doc, NULL, 0);
        CHECK_LENGTH_QUERY(T_OUTLINE_TARGET, doc, NULL, 1);
        /* Any out-pointer may be NULL (the header). */
        CHECK_STATUS(quire_document_outline_item(NULL, NULL, NULL, NULL, NULL, NULL, doc, 1),
                     QUIRE_OK);
        CHECK_STATUS(quire_document_outline_item(NULL, NULL, &v, NULL, &w, NULL, doc, 1), QUIRE_OK);
        CHECK_INT(v, 1);
        CHECK_INT(w, QUIRE_ACTION_URI);
        /* Indices out of range: QUIRE_ERANGE, nothing written. */
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            v = -7;
            w = (quire_action_type)0x7777;
            len = 99;
            CHECK_STATUS(quire_document_outline_item(&v, &v, &v, &v, &w, &v, doc, bad[i]),
                         QUIRE_ERANGE);
            CHECK_STATUS(quire_document_outline_title(buf, sizeof buf, &len, doc, bad[i]),
                         QUIRE_ERANGE);
            CHECK_STATUS(quire_document_outline_target(buf, sizeof buf, &len, doc, bad[i]),
                         QUIRE_ERANGE);
            CHECK_INT(v, -7);
            CHECK_INT(w, 0x7777);
            CHECK_INT(len, 99);
        }
        CHECK_STATUS(quire_document_outline_title(buf, sizeof buf, NULL, doc, 0), QUIRE_EINVAL);
        CHECK_STATUS(quire_document_outline_title(buf, sizeof buf, &len, NULL, 0), QUIRE_EINVAL);
        CHECK_STATUS(quire_document_outline_target(buf, sizeof buf, &len, NULL, 1), QUIRE_EINVAL);
        quire_document_close(doc);
    }

    test_step("hybrid-xref.pdf");
    doc = open_corpus(HYBRID, NULL);
    if (doc) {
        check_outline(doc, hybrid_outline, 11, "hybrid-xref.pdf");
        CHECK_LENGTH_QUERY(T_OUTLINE_TITLE, doc, NULL, 7);
        quire_document_close(doc);
    }

    test_step("named destinations and GoTo actions");
    doc = open_corpus(QPDF("outlines-with-actions.pdf"), NULL);
    if (doc) {
        check_outline(doc, actions_outline, 11, "outlines-with-actions.pdf");
        quire_document_close(doc);
    }
    doc = open_corpus(QPDF("outlines-with-old-root-dests.pdf"), NULL);
    if (doc) {
        check_outline(doc, old_dests_outline, 11, "outlines-with-old-root-dests.pdf");
        quire_document_close(doc);
    }

    test_step("page_labels.pdf");
    doc = open_corpus(PAGE_LABELS, NULL);
    if (doc) {
        check_outline(doc, page_labels_outline, 6, "page_labels.pdf");
        quire_document_close(doc);
    }

    /* No outline: 0 items (manifest outline_items 0, all peers), index 0 out of range. */
    test_step("none");
    doc = open_corpus(ANNOTS, NULL);
    if (doc) {
        v = -7;
        CHECK_STATUS(quire_document_outline_count(&v, doc), QUIRE_OK);
        CHECK_INT(v, 0);
        CHECK_STATUS(quire_document_outline_item(&v, NULL, NULL, NULL, NULL, NULL, doc, 0),
                     QUIRE_ERANGE);
        CHECK_STATUS(quire_document_outline_title(NULL, 0, &len, doc, 0), QUIRE_ERANGE);
        quire_document_close(doc);
    }
}

/* ---- page labels ------------------------------------------------------------------------------ */

/* Labels from pypdf's PdfReader.page_labels and pypdfium2's FPDF_GetPageLabel, which agree
 * on every page of these files. */
static const char *const page_labels_labels[] = {"i", "ii", "1", "2", "zzA", "zzB", ""};
static const char *const qpdf_labels[] = {
    "",  "",  "i", "ii", "iii", "iv", "v",  "",      "",  "vi", "vii", "",     "2",   "3",  "4",
    "6", "7", "8", "9",  "",    "12", "13", "16059", "l", "li", "lii", "liii", "liv", "lv", "liv"};
/* /PageLabels << /Nums [0 << /P (0) >> 1 << /S /R >>] >> (pikepdf): a prefix alone, then
 * upper-case roman numerals from 1. */
static const char *const old_dests_labels[] = {
    "0",  "I",   "II",   "III",   "IV",   "V",   "VI",   "VII",   "VIII",   "IX",
    "X",  "XI",  "XII",  "XIII",  "XIV",  "XV",  "XVI",  "XVII",  "XVIII",  "XIX",
    "XX", "XXI", "XXII", "XXIII", "XXIV", "XXV", "XXVI", "XXVII", "XXVIII", "XXIX"};
static const char *const pdfbox_labels[] = {"A1", "A2", "A3", "i",   "ii",         "iii",
                                            "iv", "v",  "vi", "vii", "Appendix I", "Appendix II"};

static void check_labels(const char *path, const char *const *labels, int32_t n) {
    quire_document *doc = open_corpus(path, NULL);
    int32_t pages = -1, i;
    if (!doc) return;
    CHECK_STATUS(quire_document_page_count(&pages, doc), QUIRE_OK);
    report(pages == n, __FILE__, __LINE__, "%s: %d pages, expected %d", path, (int)pages, (int)n);
    for (i = 0; i < n && i < pages; i++) CHECK_TEXT(T_PAGE_LABEL, doc, NULL, i, labels[i]);
    {
        char buf[8];
        size_t len = 99;
        CHECK_STATUS(quire_page_label(buf, sizeof buf, &len, doc, pages), QUIRE_ERANGE);
        CHECK_STATUS(quire_page_label(buf, sizeof buf, &len, doc, -1), QUIRE_ERANGE);
        CHECK_STATUS(quire_page_label(buf, sizeof buf, &len, doc, INT32_MIN), QUIRE_ERANGE);
        CHECK_INT(len, 99);
    }
    quire_document_close(doc);
}

static void test_page_labels(void) {
    quire_document *doc;
    char buf[8];
    size_t len = 99;
    check_labels(PAGE_LABELS, page_labels_labels, 7);
    check_labels(QPDF("page-labels-and-outlines.pdf"), qpdf_labels, 30);
    check_labels("pdfbox/pdfbox/src/test/resources/org/apache/pdfbox/pdmodel/test_pagelabels.pdf",
                 pdfbox_labels, 12);
    check_labels(QPDF("outlines-with-old-root-dests.pdf"), old_dests_labels, 30);

    doc = open_corpus(PAGE_LABELS, NULL);
    if (doc) {
        /* The length-query pattern on "zzA"; the empty label of page 6 fits in 1 byte. */
        CHECK_LENGTH_QUERY(T_PAGE_LABEL, doc, NULL, 4);
        memset(buf, 'Z', sizeof buf);
        CHECK_STATUS(quire_page_label(buf, 1, &len, doc, 6), QUIRE_OK);
        CHECK_INT(len, 0);
        CHECK(buf[0] == '\0' && buf[1] == 'Z');
        CHECK_STATUS(quire_page_label(buf, sizeof buf, &len, NULL, 0), QUIRE_EINVAL);
        CHECK_STATUS(quire_page_label(buf, sizeof buf, NULL, doc, 0), QUIRE_EINVAL);
        quire_document_close(doc);
    }
    /* No /PageLabels in the catalog (the file: << /Type /Catalog /Pages 2 0 R /AcroForm ..>>;
     * pypdf page_labels falls back to 1, 2): QUIRE_ENOTFOUND (the header). */
    doc = open_corpus(ANNOTS, NULL);
    if (doc) {
        len = 99;
        CHECK_STATUS(quire_page_label(buf, sizeof buf, &len, doc, 0), QUIRE_ENOTFOUND);
        CHECK_STATUS(quire_page_label(NULL, 0, &len, doc, 1), QUIRE_ENOTFOUND);
        CHECK_INT(len, 99);
        quire_document_close(doc);
    }
}

static const struct test_case structure_tests[] = {{"cases", test_structure_cases},
                                                   {"errors", test_structure_errors},
                                                   {"encryption", test_encryption},
                                                   {"max_pages", test_max_pages},
                                                   {"limits_named", test_limits_named},
                                                   {"missing_pages", test_missing_pages},
                                                   {"outline", test_outline},
                                                   {"page_labels", test_page_labels},
                                                   {NULL, NULL}};

const struct test_suite structure_suite = {"structure", NULL, NULL, structure_tests};
