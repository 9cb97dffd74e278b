/* Page operations and encryption through the C interface (issue 36): insert, delete, move,
 * rotate and boxes on real files, an import that merges two forms (a clash of names renamed
 * and reported), an extract, the bad input of each (a clear status, nothing changed), and a
 * document encrypted, changed and decrypted. Expected page texts and counts are PyMuPDF's
 * reading of the corpus files (page_labels.pdf: 7 blank pages, "Blank Page" outline items
 * to pages 2, 3, 7, 6, 5, 4; bookmarks.pdf: "Page1", "Page2"; text_form_multiple.pdf: the
 * fields "Text Box", "ReadOnly", "CharLimit", "Password" on its one page). */
#include <stdlib.h>
#include <string.h>

#include "quire.h"
#include "test_support.h"

#define LABELS "pdfium/testing/resources/page_labels.pdf"
#define TWO_PAGES "pdfium/testing/resources/bookmarks.pdf"
#define FORM "pdfium/testing/resources/text_form_multiple.pdf"

static int32_t page_count(quire_document *doc) {
    int32_t n = -1;
    CHECK_STATUS(quire_document_page_count(&n, doc), QUIRE_OK);
    return n;
}

/* The text of page `index`, trimmed of spaces and newlines, in a static buffer. */
static const char *page_text(quire_document *doc, int32_t index) {
    static char buf[256];
    quire_text_page *text = NULL;
    size_t len = 0, start = 0;
    buf[0] = '\0';
    CHECK_STATUS(quire_page_text_load(&text, doc, index), QUIRE_OK);
    if (!text) return buf;
    CHECK_STATUS(quire_text_page_text(buf, sizeof buf, &len, text), QUIRE_OK);
    quire_text_page_free(text);
    while (len > 0 && (buf[len - 1] == ' ' || buf[len - 1] == '\n' || buf[len - 1] == '\r')) buf[--len] = '\0';
    while (buf[start] == ' ' || buf[start] == '\n') start++;
    memmove(buf, buf + start, len - start + 1);
    return buf;
}

/* The outline item `index`'s target (quire_document_outline_target), in a static buffer. */
static int32_t outline_page(quire_document *doc, int32_t index) {
    int32_t depth = 0, parent = 0, children = 0, open = 0, page = -2;
    quire_action_type kind = QUIRE_ACTION_NONE;
    CHECK_STATUS(quire_document_outline_item(&depth, &parent, &children, &open, &kind, &page, doc, index), QUIRE_OK);
    return page;
}

/* The document saved in full to memory and opened again (with `password`, or none). */
static quire_document *reopen(quire_document *doc, const char *password) {
    struct byte_sink sink;
    quire_save_options save = QUIRE_SAVE_OPTIONS_INIT;
    quire_open_options open = QUIRE_OPEN_OPTIONS_INIT;
    quire_document *out = NULL;
    memset(&sink, 0, sizeof sink);
    save.mode = QUIRE_SAVE_FULL;
    CHECK_STATUS(quire_document_save_to_callback(doc, &save, sink_write, &sink), QUIRE_OK);
    open.password = password;
    CHECK_STATUS(quire_document_open_memory(&out, sink.data, sink.size, &open), QUIRE_OK);
    sink_free(&sink);
    return out;
}

static void test_delete_move_rotate(void) {
    quire_document *doc = open_corpus(LABELS, NULL), *saved;
    quire_page_report *rep = NULL;
    const int32_t second[] = {1}, first_two[] = {1, 0}, last[] = {5}, bad[] = {7}, twice[] = {2, 2};
    const int32_t all[] = {0, 1, 2, 3, 4, 5, 6};
    int32_t n = -1, rotation = -1, changed = 1;
    quire_rect r;
    if (!doc) return;
    /* Bad input: a clear status, and nothing changed. */
    CHECK_STATUS(quire_document_delete_pages(NULL, doc, bad, 1), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_delete_pages(NULL, doc, twice, 2), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_delete_pages(NULL, doc, second, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_delete_pages(NULL, doc, NULL, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_delete_pages(NULL, doc, all, 7), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_move_pages(doc, second, 1, 7), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_move_pages(doc, second, 1, -1), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_rotate_pages(doc, bad, 1, 1), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_insert_pages(doc, 8, 1, NULL, 0), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_insert_pages(doc, 0, 0, NULL, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_insert_pages(doc, 0, 1, NULL, 45), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_import_pages(NULL, doc, doc, NULL, 0, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_set_page_box(doc, second, 1, QUIRE_BOX_MEDIA, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_set_page_box(doc, second, 1, (quire_box)0, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_has_unsaved_changes(&changed, doc), QUIRE_OK);
    CHECK_INT(changed, 0);
    CHECK_INT(page_count(doc), 7);

    /* Outline items go to pages 2, 3, 7, 6, 5, 4 (indices 1, 2, 6, 5, 4, 3). */
    CHECK_INT(outline_page(doc, 0), 1);
    CHECK_STATUS(quire_document_delete_pages(&rep, doc, second, 1), QUIRE_OK);
    CHECK(rep != NULL);
    if (rep) {
        CHECK_STATUS(quire_page_report_renamed_count(&n, rep), QUIRE_OK);
        CHECK_INT(n, 0);
        CHECK_STATUS(quire_page_report_warning_count(&n, rep), QUIRE_OK);
        CHECK(n >= 1); /* the outline item to page 2 was removed */
        quire_page_report_free(rep);
    }
    CHECK_INT(page_count(doc), 6);
    CHECK_STATUS(quire_document_outline_count(&n, doc), QUIRE_OK);
    CHECK_INT(n, 5);
    CHECK_INT(outline_page(doc, 0), 1); /* page 3, now index 1 */
    CHECK_INT(outline_page(doc, 1), 5); /* page 7, now index 5 */
    /* Move the last page (index 5 of 6) first: the outline item to it follows. */
    CHECK_STATUS(quire_document_move_pages(doc, last, 1, 0), QUIRE_OK);
    CHECK_INT(outline_page(doc, 1), 0);
    CHECK_STATUS(quire_document_move_pages(doc, first_two, 2, 4), QUIRE_OK);
    CHECK_INT(outline_page(doc, 1), 5);
    /* Rotate: added to the page's own. */
    CHECK_STATUS(quire_document_rotate_pages(doc, second, 1, 1), QUIRE_OK);
    CHECK_STATUS(quire_document_rotate_pages(doc, second, 1, -3), QUIRE_OK);
    CHECK_STATUS(quire_page_rotation(&rotation, doc, 1), QUIRE_OK);
    CHECK_INT(rotation, 180);
    /* Blank pages and boxes. */
    r.left = 0; r.bottom = 0; r.right = 200; r.top = 300;
    CHECK_STATUS(quire_document_insert_pages(doc, 6, 2, &r, 90), QUIRE_OK);
    CHECK_INT(page_count(doc), 8);
    CHECK_STATUS(quire_document_set_page_box(doc, second, 1, QUIRE_BOX_CROP, &r), QUIRE_OK);
    saved = reopen(doc, NULL);
    if (saved) {
        CHECK_INT(page_count(saved), 8);
        CHECK_STATUS(quire_page_rotation(&rotation, saved, 7), QUIRE_OK);
        CHECK_INT(rotation, 90);
        CHECK_STATUS(quire_page_box(&r, saved, 7, QUIRE_BOX_MEDIA), QUIRE_OK);
        CHECK_RECT(r, 0, 0, 200, 300);
        CHECK_STATUS(quire_page_box(&r, saved, 1, QUIRE_BOX_CROP), QUIRE_OK);
        CHECK_RECT(r, 0, 0, 200, 300);
        CHECK_STATUS(quire_page_rotation(&rotation, saved, 1), QUIRE_OK);
        CHECK_INT(rotation, 180);
        quire_document_close(saved);
    }
    quire_document_close(doc);
}

static void test_import_extract(void) {
    quire_document *a = open_corpus(FORM, NULL), *b = open_corpus(FORM, NULL), *two = open_corpus(TWO_PAGES, NULL);
    quire_document *part = NULL, *saved;
    quire_page_report *rep = NULL;
    const int32_t second_then_first[] = {1, 0}, bad[] = {2};
    char name[64];
    size_t len = 0;
    int32_t n = -1, index = -1;
    if (!a || !b || !two) goto done;
    CHECK_STATUS(quire_document_import_pages(NULL, a, two, bad, 1, 0), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_import_pages(NULL, a, two, second_then_first, 2, 2), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_import_pages(NULL, a, two, second_then_first, 0, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_import_pages(NULL, a, NULL, NULL, 0, 0), QUIRE_EINVAL);
    CHECK_INT(page_count(a), 1);
    /* Every page of the same form: its four fields are renamed. */
    CHECK_STATUS(quire_document_import_pages(&rep, a, b, NULL, 0, 1), QUIRE_OK);
    CHECK(rep != NULL);
    if (rep) {
        CHECK_STATUS(quire_page_report_renamed_count(&n, rep), QUIRE_OK);
        CHECK_INT(n, 4);
        CHECK_STATUS(quire_page_report_renamed(name, sizeof name, &len, rep, 0, 0), QUIRE_OK);
        CHECK_STR(name, "Text Box");
        CHECK_STATUS(quire_page_report_renamed(name, sizeof name, &len, rep, 0, 1), QUIRE_OK);
        CHECK_STR(name, "Text Box_2");
        CHECK_STATUS(quire_page_report_renamed(name, 2, &len, rep, 0, 1), QUIRE_EBUFS);
        CHECK_INT(len, 10);
        CHECK_STATUS(quire_page_report_renamed(name, sizeof name, &len, rep, 4, 0), QUIRE_ERANGE);
        CHECK_STATUS(quire_page_report_warning(name, sizeof name, &len, rep, 99), QUIRE_ERANGE);
        quire_page_report_free(rep);
    }
    quire_page_report_free(NULL);
    /* Pages of another document, in the order given. */
    CHECK_STATUS(quire_document_import_pages(NULL, a, two, second_then_first, 2, 2), QUIRE_OK);
    saved = reopen(a, NULL);
    if (saved) {
        CHECK_INT(page_count(saved), 4);
        CHECK_STR(page_text(saved, 2), "Page2");
        CHECK_STR(page_text(saved, 3), "Page1");
        CHECK_STATUS(quire_document_field_count(&n, saved), QUIRE_OK);
        CHECK_INT(n, 8);
        CHECK_STATUS(quire_document_field_index(&index, saved, "Text Box_2"), QUIRE_OK);
        CHECK(index >= 4);
        quire_document_close(saved);
    }
    /* Extract: a new document; the old one does not change. */
    CHECK_STATUS(quire_document_extract_pages(&part, two, bad, 1), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_extract_pages(&part, two, second_then_first, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_extract_pages(&part, two, second_then_first + 0, 1), QUIRE_OK);
    if (part) {
        CHECK_INT(page_count(part), 1);
        saved = reopen(part, NULL);
        if (saved) {
            CHECK_STR(page_text(saved, 0), "Page2");
            quire_document_close(saved);
        }
        quire_document_close(part);
    }
    CHECK_INT(page_count(two), 2);
done:
    quire_document_close(a);
    quire_document_close(b);
    quire_document_close(two);
}

static void test_encryption(void) {
    quire_document *doc = open_corpus(TWO_PAGES, NULL), *enc, *asuser, *plain;
    quire_encryption_options options = QUIRE_ENCRYPTION_OPTIONS_INIT;
    quire_encryption_options rc4 = QUIRE_ENCRYPTION_OPTIONS_INIT;
    quire_save_options incremental = QUIRE_SAVE_OPTIONS_INIT;
    quire_encryption_method method = QUIRE_ENCRYPTION_NONE;
    struct byte_sink sink;
    int32_t revision = 0, owner = -1, changed = 0;
    uint32_t permissions = 0;
    if (!doc) return;
    CHECK_STATUS(quire_encryption_options_init(&options, QUIRE_ENCRYPTION_OPTIONS_VERSION), QUIRE_OK);
    CHECK_INT(options.method, QUIRE_ENCRYPTION_AES_256);
    CHECK_STATUS(quire_encryption_options_init(&options, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_encryption_options_init(&options, 2), QUIRE_EVERSION);
    rc4.method = QUIRE_ENCRYPTION_RC4_128;
    CHECK_STATUS(quire_document_set_encryption(doc, &rc4, NULL), QUIRE_EUNSUPPORTED);
    rc4.method = (quire_encryption_method)0x1234;
    CHECK_STATUS(quire_document_set_encryption(doc, &rc4, NULL), QUIRE_EINVAL);
    options.user_password = "user";
    options.owner_password = "owner";
    options.permissions = QUIRE_PERMISSION_PRINT | QUIRE_PERMISSION_COPY;
    CHECK_STATUS(quire_document_set_encryption(doc, &options, NULL), QUIRE_OK);
    CHECK_STATUS(quire_document_has_unsaved_changes(&changed, doc), QUIRE_OK);
    CHECK_INT(changed, 1);
    /* An incremental save cannot change the encryption: it writes nothing. */
    memset(&sink, 0, sizeof sink);
    CHECK_STATUS(quire_document_save_to_callback(doc, &incremental, sink_write, &sink), QUIRE_ESTATE);
    CHECK_INT(sink.calls, 0);
    sink_free(&sink);
    enc = reopen(doc, "owner");
    if (enc) {
        CHECK_STATUS(quire_document_encryption(&method, &revision, &permissions, &owner, enc), QUIRE_OK);
        CHECK_INT(method, QUIRE_ENCRYPTION_AES_256);
        CHECK_INT(revision, 6);
        CHECK_INT(owner, 1);
        CHECK_INT(permissions & QUIRE_PERMISSIONS_ALL, QUIRE_PERMISSION_PRINT | QUIRE_PERMISSION_COPY);
        CHECK_STR(page_text(enc, 1), "Page2");
        /* Removed with the owner password; refused with a wrong one, nothing changed. */
        asuser = reopen(enc, "user");
        if (asuser) {
            CHECK_STATUS(quire_document_set_encryption(asuser, NULL, NULL), QUIRE_EPASSWORD);
            CHECK_STATUS(quire_document_set_encryption(asuser, NULL, "wrong"), QUIRE_EPASSWORD);
            CHECK_STATUS(quire_document_has_unsaved_changes(&changed, asuser), QUIRE_OK);
            CHECK_INT(changed, 0);
            CHECK_STATUS(quire_document_set_encryption(asuser, NULL, "owner"), QUIRE_OK);
            plain = reopen(asuser, NULL);
            if (plain) {
                CHECK_STATUS(quire_document_encryption(&method, &revision, NULL, NULL, plain), QUIRE_OK);
                CHECK_INT(method, QUIRE_ENCRYPTION_NONE);
                CHECK_STR(page_text(plain, 0), "Page1");
                quire_document_close(plain);
            }
            quire_document_close(asuser);
        }
        /* AES-128 on request. */
        options.method = QUIRE_ENCRYPTION_AES_128;
        CHECK_STATUS(quire_document_set_encryption(enc, &options, NULL), QUIRE_OK);
        plain = reopen(enc, "user");
        if (plain) {
            CHECK_STATUS(quire_document_encryption(&method, &revision, NULL, &owner, plain), QUIRE_OK);
            CHECK_INT(method, QUIRE_ENCRYPTION_AES_128);
            CHECK_INT(revision, 4);
            CHECK_INT(owner, 0);
            quire_document_close(plain);
        }
        quire_document_close(enc);
    }
    quire_document_close(doc);
}

/* Each permission bit is written as given and read back (the user password opens it). */
static void test_permission_bits(void) {
    static const uint32_t bits[] = {QUIRE_PERMISSION_PRINT, QUIRE_PERMISSION_MODIFY,
                                    QUIRE_PERMISSION_COPY, QUIRE_PERMISSION_ANNOTATE,
                                    QUIRE_PERMISSION_FILL_FORMS,
                                    QUIRE_PERMISSION_EXTRACT_FOR_ACCESSIBILITY,
                                    QUIRE_PERMISSION_ASSEMBLE, QUIRE_PERMISSION_PRINT_HIGH_QUALITY};
    quire_document *doc = open_corpus(TWO_PAGES, NULL), *enc;
    quire_encryption_options options = QUIRE_ENCRYPTION_OPTIONS_INIT;
    quire_encryption_method method = QUIRE_ENCRYPTION_NONE;
    int32_t revision = 0, owner = -1;
    uint32_t permissions = 0;
    size_t i;
    if (!doc) return;
    options.user_password = "user";
    options.owner_password = "owner";
    for (i = 0; i < sizeof bits / sizeof bits[0]; i++) {
        options.permissions = bits[i];
        CHECK_STATUS(quire_document_set_encryption(doc, &options, NULL), QUIRE_OK);
        enc = reopen(doc, "user");
        if (!enc) continue;
        CHECK_STATUS(quire_document_encryption(&method, &revision, &permissions, &owner, enc), QUIRE_OK);
        CHECK_INT(owner, 0);
        CHECK_INT(permissions & QUIRE_PERMISSIONS_ALL, bits[i]);
        quire_document_close(enc);
    }
    quire_document_close(doc);
}

static const struct test_case pages_tests[] = {
    {"delete_move_rotate", test_delete_move_rotate},
    {"import_extract", test_import_extract},
    {"encryption", test_encryption},
    {"permission_bits", test_permission_bits},
    {NULL, NULL}};

const struct test_suite pages_suite = {"pages", NULL, NULL, pages_tests};
