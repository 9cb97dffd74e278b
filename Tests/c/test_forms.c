/* Forms, flattening and XFDF through the C interface (issue 22): the field tree of a
 * PDFium test form, values set with the rules, the result saved and read back, a flattened
 * copy without annotations, and XFDF out and in. */
#include <stdlib.h>
#include <string.h>

#include "quire.h"
#include "test_support.h"

#define TEXT_FORM "pdfium/testing/resources/text_form_multiple.pdf"
#define LISTBOX "pdfium/testing/resources/listbox_form.pdf"

/* Field `index`'s value `k` in a static buffer ("" on error, checked). */
static const char *field_value(quire_document *doc, int32_t index, int32_t k) {
    static char buf[256];
    size_t len = 0;
    buf[0] = '\0';
    CHECK_STATUS(quire_field_value(buf, sizeof buf, &len, doc, index, k), QUIRE_OK);
    return buf;
}

static int32_t field_index(quire_document *doc, const char *name) {
    int32_t index = -1;
    CHECK_STATUS(quire_document_field_index(&index, doc, name), QUIRE_OK);
    return index;
}

/* The constants against ISO 32000-2: the field flags' bit positions (Table 226, 228, 230,
 * 231: bit n is 1 << (n - 1)) and the kinds' ranges, so that a value mistyped in the header
 * is caught here. */
static void test_field_constants(void) {
    const quire_field_kind kinds[] = {QUIRE_FIELD_TEXT, QUIRE_FIELD_CHECK_BOX, QUIRE_FIELD_RADIO_BUTTON,
                                      QUIRE_FIELD_COMBO_BOX, QUIRE_FIELD_LIST_BOX, QUIRE_FIELD_PUSH_BUTTON,
                                      QUIRE_FIELD_SIGNATURE, QUIRE_FIELD_UNKNOWN};
    size_t k;
    g_test = "forms: constants";
    for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) CHECK_INT((int)kinds[k], 0x1B00 + (int)k);
    CHECK_INT(QUIRE_FIELD_OPTION_EXPORT, 0x1C00);
    CHECK_INT(QUIRE_FIELD_OPTION_DISPLAY, 0x1C01);
    CHECK_INT(QUIRE_FIELD_FLAG_READ_ONLY, 1 << 0);
    CHECK_INT(QUIRE_FIELD_FLAG_REQUIRED, 1 << 1);
    CHECK_INT(QUIRE_FIELD_FLAG_NO_EXPORT, 1 << 2);
    CHECK_INT(QUIRE_FIELD_FLAG_MULTILINE, 1 << 12);
    CHECK_INT(QUIRE_FIELD_FLAG_PASSWORD, 1 << 13);
    CHECK_INT(QUIRE_FIELD_FLAG_NO_TOGGLE_TO_OFF, 1 << 14);
    CHECK_INT(QUIRE_FIELD_FLAG_EDIT, 1 << 18);
    CHECK_INT(QUIRE_FIELD_FLAG_MULTI_SELECT, 1 << 21);
    CHECK_INT(QUIRE_FIELD_FLAG_COMB, 1 << 24);
}

static void test_fields(void) {
    quire_document *doc = open_corpus(TEXT_FORM, NULL);
    quire_form_kind kind = QUIRE_FORM_NONE;
    quire_field_kind type = QUIRE_FIELD_UNKNOWN;
    int32_t n = -1, text, read_only, limited, max_length = 0;
    uint32_t flags = 0;
    char name[64];
    size_t len = 0;
    quire_rect r;
    int32_t page = -2;
    if (!doc) return;
    CHECK_STATUS(quire_document_form_kind(&kind, doc), QUIRE_OK);
    CHECK_INT(kind, QUIRE_FORM_ACROFORM);
    /* The kinds no file of this test has: XFA forms are reported, never filled; signature
     * fields are read-only information. */
    CHECK(kind != QUIRE_FORM_XFA_FOREGROUND && kind != QUIRE_FORM_XFA_ONLY);
    CHECK(QUIRE_FORM_XFA_FOREGROUND != QUIRE_FORM_XFA_ONLY && QUIRE_FIELD_SIGNATURE == 0x1B06);
    CHECK_STATUS(quire_document_field_count(&n, doc), QUIRE_OK);
    CHECK_INT(n, 4);
    CHECK_STATUS(quire_field_name(name, sizeof name, &len, doc, 0), QUIRE_OK);
    CHECK_STR(name, "Text Box");
    CHECK_STATUS(quire_field_name(name, 2, &len, doc, 0), QUIRE_EBUFS);
    CHECK_INT((int)len, 8);
    CHECK_STATUS(quire_field_name(name, sizeof name, &len, doc, 4), QUIRE_ERANGE);
    CHECK_STATUS(quire_document_field_index(&n, doc, "nope"), QUIRE_ENOTFOUND);
    text = field_index(doc, "Text Box");
    read_only = field_index(doc, "ReadOnly");
    limited = field_index(doc, "CharLimit");
    CHECK_STATUS(quire_field_get_kind(&type, doc, text), QUIRE_OK);
    CHECK_INT(type, QUIRE_FIELD_TEXT);
    CHECK_STATUS(quire_field_flags(&flags, doc, read_only), QUIRE_OK);
    CHECK(flags & QUIRE_FIELD_FLAG_READ_ONLY);
    CHECK_STATUS(quire_field_max_length(&max_length, doc, limited), QUIRE_OK);
    CHECK_INT(max_length, 10);
    CHECK_STATUS(quire_field_widget(&page, &r, doc, text, 0), QUIRE_OK);
    CHECK_INT(page, 0);
    CHECK(r.right > r.left && r.top > r.bottom);
    CHECK_STATUS(quire_field_widget(NULL, NULL, doc, text, 1), QUIRE_ERANGE);
    CHECK_STATUS(quire_field_widget_count(&n, doc, text), QUIRE_OK);
    CHECK_INT(n, 1);
    CHECK_STATUS(quire_field_widget_count(NULL, doc, text), QUIRE_EINVAL);
    CHECK_STATUS(quire_field_widget_count(&n, doc, 99), QUIRE_ERANGE);

    /* The rules: read-only, /MaxLen, push buttons have no value. */
    CHECK_STATUS(quire_field_set_value(doc, text, "From C"), QUIRE_OK);
    CHECK_STR(field_value(doc, text, 0), "From C");
    CHECK_STATUS(quire_field_set_value(doc, read_only, "x"), QUIRE_ESTATE);
    CHECK_STATUS(quire_field_set_value(doc, limited, "more than ten characters"), QUIRE_ERANGE);
    CHECK_STATUS(quire_field_set_value(doc, limited, "ten chars!"), QUIRE_OK);
    CHECK_STATUS(quire_field_set_value(doc, text, NULL), QUIRE_EINVAL);

    /* Saved and read back. */
    {
        const char *dir = make_temp_dir();
        const char *path = join_path(dir, "filled.pdf");
        quire_document *back = NULL;
        CHECK_STATUS(quire_document_save(doc, NULL, path), QUIRE_OK);
        CHECK_STATUS(quire_document_open(&back, path, NULL), QUIRE_OK);
        if (back) {
            CHECK_STR(field_value(back, text, 0), "From C");
            CHECK_STR(field_value(back, limited, 0), "ten chars!");
            quire_document_close(back);
        }
        remove_temp_dir(dir);
    }
    /* Reset: back to /DV (none here: cleared); a read-only field is refused. */
    CHECK_STATUS(quire_field_reset(doc, text), QUIRE_OK);
    {
        int32_t values = -1;
        CHECK_STATUS(quire_field_value_count(&values, doc, text), QUIRE_OK);
        CHECK(values == 0 || (values == 1 && strcmp(field_value(doc, text, 0), "From C") != 0));
    }
    CHECK_STATUS(quire_field_reset(doc, read_only), QUIRE_ESTATE);
    CHECK_STATUS(quire_field_reset(doc, 99), QUIRE_ERANGE);
    quire_document_close(doc);
}

static void test_list_box(void) {
    quire_document *doc = open_corpus(LISTBOX, NULL);
    int32_t multi, count = -1;
    char option[64];
    size_t len = 0;
    const char *values[2] = {"Apple", "Cherry"};
    if (!doc) return;
    multi = field_index(doc, "Listbox_MultiSelect");
    CHECK_STATUS(quire_field_option_count(&count, doc, multi), QUIRE_OK);
    CHECK(count >= 3); /* Apple, Banana, Cherry, ... */
    {
        const quire_field_option_part display = QUIRE_FIELD_OPTION_DISPLAY;
        CHECK_STATUS(quire_field_option(option, sizeof option, &len, doc, multi, 2, display), QUIRE_OK);
        CHECK_STR(option, "Cherry");
    }
    CHECK_STATUS(quire_field_set_values(doc, multi, values, 2), QUIRE_OK);
    CHECK_STATUS(quire_field_value_count(&count, doc, multi), QUIRE_OK);
    CHECK_INT(count, 2);
    CHECK_STR(field_value(doc, multi, 1), "Cherry");
    CHECK_STATUS(quire_field_set_values(doc, multi, NULL, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_field_set_value(doc, multi, "Durian"), QUIRE_EINVAL);
    quire_document_close(doc);
}

static void test_flatten_and_xfdf(void) {
    quire_document *doc = open_corpus(TEXT_FORM, NULL);
    int32_t drawn = -1, n = -1, imported = -1;
    size_t len = 0;
    char *xfdf;
    quire_document *fresh;
    if (!doc) return;
    CHECK_STATUS(quire_field_set_value(doc, 0, "Burnt in"), QUIRE_OK);

    /* XFDF: the value goes out and comes back into a fresh copy. */
    CHECK_STATUS(quire_document_export_xfdf(NULL, 0, &len, doc), QUIRE_OK);
    xfdf = malloc(len + 1);
    if (xfdf) {
        CHECK_STATUS(quire_document_export_xfdf(xfdf, len + 1, &len, doc), QUIRE_OK);
        CHECK(strstr(xfdf, "<value>Burnt in</value>") != NULL);
        fresh = open_corpus(TEXT_FORM, NULL);
        if (fresh) {
            CHECK_STATUS(quire_document_import_xfdf(&imported, fresh, xfdf, len), QUIRE_OK);
            CHECK(imported >= 1);
            CHECK_STR(field_value(fresh, 0, 0), "Burnt in");
            CHECK_STATUS(quire_document_import_xfdf(NULL, fresh, "<xfdf><annots>", 14), QUIRE_EFORMAT);
            CHECK_STATUS(quire_document_import_xfdf(NULL, fresh, NULL, 3), QUIRE_EINVAL);
            /* A size past SSIZE_MAX (a negative length given to size_t) is refused, not copied. */
            CHECK_STATUS(quire_document_import_xfdf(NULL, fresh, "<xfdf/>", (size_t)-1), QUIRE_EINVAL);
            quire_document_close(fresh);
        }
        free(xfdf);
    }

    /* Flattening: the widgets are drawn, then gone with the form. */
    CHECK_STATUS(quire_document_flatten(&drawn, doc, NULL), QUIRE_OK);
    CHECK(drawn >= 4);
    CHECK_STATUS(quire_page_annotation_count(&n, doc, 0), QUIRE_OK);
    CHECK_INT(n, 0);
    CHECK_STATUS(quire_document_field_count(&n, doc), QUIRE_OK);
    CHECK_INT(n, 0);
    CHECK_STATUS(quire_document_flatten(NULL, NULL, NULL), QUIRE_EINVAL);
    quire_document_close(doc);
}

void run_form_tests(void) {
    test_field_constants();
    test_fields();
    test_list_box();
    test_flatten_and_xfdf();
}
