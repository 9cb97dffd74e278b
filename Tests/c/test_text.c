/*
 * test_text.c: text extraction, search, selection and markup from text through the C
 * interface (issue 18), on a PDF built here whose positions are known exactly.
 */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A one-page PDF, 612 x 792, with two lines of 12 pt Helvetica at (72, 700) and (72, 686). */
static unsigned char *text_pdf(size_t *size) {
    const char *content =
        "BT /F1 12 Tf 72 700 Td (Review the draft con-) Tj 0 -14 Td (tract before Friday.) Tj ET";
    char objects[5][256];
    static char out[4096];
    size_t offsets[5], n = 0;
    int i;
    snprintf(objects[0], sizeof objects[0], "<< /Type /Catalog /Pages 2 0 R >>");
    snprintf(objects[1], sizeof objects[1], "<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
    snprintf(objects[2], sizeof objects[2],
             "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
             "/Resources << /Font << /F1 5 0 R >> >> >>");
    snprintf(objects[3], sizeof objects[3], "<< /Length %u >>\nstream\n%s\nendstream",
             (unsigned)strlen(content), content);
    snprintf(objects[4], sizeof objects[4],
             "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
    n += (size_t)sprintf(out + n, "%%PDF-1.7\n");
    for (i = 0; i < 5; i++) {
        offsets[i] = n;
        n += (size_t)sprintf(out + n, "%d 0 obj\n%s\nendobj\n", i + 1, objects[i]);
    }
    {
        size_t xref = n;
        n += (size_t)sprintf(out + n, "xref\n0 6\n0000000000 65535 f \n");
        for (i = 0; i < 5; i++)
            n += (size_t)sprintf(out + n, "%010u 00000 n \n", (unsigned)offsets[i]);
        n +=
            (size_t)sprintf(out + n, "trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n%u\n%%%%EOF\n",
                            (unsigned)xref);
    }
    *size = n;
    return (unsigned char *)out;
}

static char *page_text(const quire_text_page *text) {
    size_t len = 0;
    char *buf;
    CHECK_STATUS(quire_text_page_text(NULL, 0, &len, text), QUIRE_OK);
    buf = (char *)malloc(len + 1);
    CHECK_STATUS(quire_text_page_text(buf, len + 1, &len, text), QUIRE_OK);
    return buf;
}

/* The document of text_pdf, open while the suite runs. */
static quire_document *g_doc;

static void test_extraction(void) {
    quire_document *doc = g_doc;
    quire_text_page *text = NULL;
    quire_text_char ch = QUIRE_TEXT_CHAR_INIT;
    int32_t count = 0, first = 0, n = 0;
    size_t len = 0;
    char small[4], buf[64];
    double quads[16];
    char *all;

    CHECK_STATUS(quire_page_text_load(&text, doc, 0), QUIRE_OK);
    all = page_text(text);
    CHECK_STR(all, "Review the draft con-\ntract before Friday.");
    free(all);
    CHECK_STATUS(quire_text_page_char_count(&count, text), QUIRE_OK);
    CHECK_INT(count, 42);
    CHECK_STATUS(quire_text_page_index(&n, text), QUIRE_OK);
    CHECK_INT(n, 0);

    /* R: 722/1000 em of 12 pt; from the descent (-207) to the ascent (718). */
    CHECK_STATUS(quire_text_page_char(&ch, text, 0), QUIRE_OK);
    CHECK_RECT(ch.box, 72, 700 - 2.484, 72 + 8.664, 700 + 8.616);
    CHECK(near(ch.font_size, 12) && ch.is_generated == 0 && ch.line == 0);
    /* Version 2: R's own box, from Helvetica's AFM (B 88 0 684 718). */
    CHECK(ch.has_glyph_box == 1);
    CHECK_RECT(ch.glyph_box, 72 + 88 * 0.012, 700, 72 + 684 * 0.012, 700 + 718 * 0.012);
    /* A version 1 caller's struct ends before glyph_box: those bytes stay as they were. */
    memset(&ch, 0x7f, sizeof ch);
    ch.version = 1;
    CHECK_STATUS(quire_text_page_char(&ch, text, 0), QUIRE_OK);
    CHECK(near(ch.font_size, 12) && ch.has_glyph_box == 0x7f7f7f7f);
    ch.version = QUIRE_TEXT_CHAR_VERSION;
    CHECK_STATUS(quire_text_page_char(&ch, text, 21), QUIRE_OK); /* the line break */
    CHECK(ch.is_generated == 1 && ch.line == 0 && ch.has_glyph_box == 0);
    CHECK_STATUS(quire_text_page_char_text(buf, sizeof buf, &len, text, 21), QUIRE_OK);
    CHECK_STR(buf, "\n");
    CHECK_STATUS(quire_text_page_char_font(buf, sizeof buf, &len, text, 0), QUIRE_OK);
    CHECK_STR(buf, "Helvetica");
    CHECK_STATUS(quire_text_page_char(&ch, text, 42), QUIRE_ERANGE);
    CHECK_STATUS(quire_text_page_char(NULL, text, 0), QUIRE_EINVAL);
    ch.version = QUIRE_TEXT_CHAR_VERSION + 1;
    CHECK_STATUS(quire_text_page_char(&ch, text, 0), QUIRE_EVERSION);
    CHECK_STATUS(quire_text_char_init(&ch, QUIRE_TEXT_CHAR_VERSION + 1), QUIRE_EVERSION);
    CHECK_STATUS(quire_text_char_init(&ch, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_text_char_init(&ch, QUIRE_TEXT_CHAR_VERSION), QUIRE_OK);
    CHECK(ch.version == QUIRE_TEXT_CHAR_VERSION && ch.line == 0 && ch.is_generated == 0);

    /* Ranges, words, lines, quads. */
    CHECK_STATUS(quire_text_page_range_text(small, sizeof small, &len, text, 0, 6), QUIRE_EBUFS);
    CHECK_INT(len, 6);
    CHECK_STATUS(quire_text_page_range_text(buf, sizeof buf, &len, text, 0, 6), QUIRE_OK);
    CHECK_STR(buf, "Review");
    CHECK_STATUS(quire_text_page_range_text(buf, sizeof buf, &len, text, 40, 3), QUIRE_ERANGE);
    CHECK_STATUS(quire_text_page_range_text(buf, sizeof buf, &len, text, 0, -1), QUIRE_EINVAL);
    CHECK_STATUS(quire_text_page_word_count(&n, text), QUIRE_OK);
    CHECK_INT(n, 7);
    CHECK_STATUS(quire_text_page_word(&first, &count, text, 1), QUIRE_OK);
    CHECK(first == 7 && count == 3);
    CHECK_STATUS(quire_text_page_line_count(&n, text), QUIRE_OK);
    CHECK_INT(n, 2);
    CHECK_STATUS(quire_text_page_line(&first, &count, text, 1), QUIRE_OK);
    CHECK(first == 22 && count == 20);
    CHECK_STATUS(quire_text_page_range_quads(NULL, 0, &len, text, 17, 10), QUIRE_OK);
    CHECK_INT(len, 16); /* "con-\ntract": two lines, two quads */
    CHECK_STATUS(quire_text_page_range_quads(quads, 16, &len, text, 17, 10), QUIRE_OK);
    /* Upper-left, upper-right, lower-left, lower-right: y of the upper pair above the lower. */
    CHECK(quads[1] > quads[5] && quads[0] < quads[2] && near(quads[1], quads[3]));

    /* Selection: from inside "draft" to inside "Friday". */
    CHECK_STATUS(quire_text_page_char_at(&n, text, 72 + 1, 702), QUIRE_OK);
    CHECK_INT(n, 0);
    CHECK_STATUS(quire_text_page_select(&first, &count, text, 130, 702, 72 + 1, 688), QUIRE_OK);
    CHECK(first > 7 && first + count - 1 == 22);
    CHECK_STATUS(quire_text_page_select(&first, &count, text, 0.0 / 0.0, 0, 0, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_text_page_warning_count(&n, text), QUIRE_OK);
    CHECK_INT(n, 0);
    CHECK_STATUS(quire_text_page_warning(buf, sizeof buf, &len, text, 0), QUIRE_ERANGE);
    quire_text_page_free(text);
    quire_text_page_free(NULL);
    CHECK_STATUS(quire_page_text_load(&text, doc, 1), QUIRE_ERANGE);
    CHECK_STATUS(quire_page_text_load(NULL, doc, 0), QUIRE_EINVAL);
}

/* quire_text_page_char_infos: every character in one call, with the values of the
 * per-character functions (issue 41). */
static void test_char_infos(void) {
    quire_text_page *text = NULL;
    quire_text_char ch = QUIRE_TEXT_CHAR_INIT;
    quire_text_char_info *infos;
    size_t len = 0, len2 = 0, n_quads = 0;
    int32_t count = 0, fonts = 0, i;
    char buf[64], *all;
    double quad[8];

    CHECK_STATUS(quire_page_text_load(&text, g_doc, 0), QUIRE_OK);
    all = page_text(text);
    CHECK_STATUS(
        quire_text_page_char_infos(NULL, 0, &len, &count, text, QUIRE_TEXT_CHAR_INFO_VERSION),
        QUIRE_OK);
    CHECK_INT(count, 42);
    CHECK_INT(len, 42 * sizeof(quire_text_char_info));
    infos = (quire_text_char_info *)malloc(len);
    /* Too small: QUIRE_EBUFS with the length, the count untouched. */
    count = -1;
    CHECK_STATUS(quire_text_page_char_infos(infos, len - 1, &len2, &count, text, 1), QUIRE_EBUFS);
    CHECK(len2 == len && count == -1);
    CHECK_STATUS(
        quire_text_page_char_infos(infos, len, &len2, &count, text, QUIRE_TEXT_CHAR_INFO_VERSION),
        QUIRE_OK);
    CHECK(len2 == len && count == 42);
    CHECK_STATUS(quire_text_page_font_count(&fonts, text), QUIRE_OK);
    CHECK_INT(fonts, 1);
    CHECK_STATUS(quire_text_page_font_name(buf, sizeof buf, &len2, text, 0), QUIRE_OK);
    CHECK_STR(buf, "Helvetica");
    CHECK_STATUS(quire_text_page_font_name(buf, sizeof buf, &len2, text, 1), QUIRE_ERANGE);
    for (i = 0; i < count; i++) {
        const quire_text_char_info *info = &infos[i];
        CHECK(info->size == sizeof(quire_text_char_info) &&
              info->version == QUIRE_TEXT_CHAR_INFO_VERSION);
        CHECK_STATUS(quire_text_page_char(&ch, text, i), QUIRE_OK);
        CHECK(info->box.left == ch.box.left && info->box.bottom == ch.box.bottom &&
              info->box.right == ch.box.right && info->box.top == ch.box.top);
        CHECK(info->glyph_box.left == ch.glyph_box.left && info->glyph_box.top == ch.glyph_box.top);
        CHECK(info->font_size == ch.font_size && info->line == ch.line && info->font_index == 0);
        CHECK(!!(info->flags & QUIRE_TEXT_CHAR_GENERATED) == ch.is_generated);
        CHECK(!!(info->flags & QUIRE_TEXT_CHAR_HAS_GLYPH_BOX) == ch.has_glyph_box);
        CHECK_STATUS(quire_text_page_char_text(buf, sizeof buf, &len2, text, i), QUIRE_OK);
        CHECK(info->text_len == len2 && memcmp(all + info->text_offset, buf, len2) == 0);
        CHECK(info->code_point == (unsigned char)buf[0]); /* ASCII text */
        CHECK_STATUS(quire_text_page_range_quads(quad, 8, &n_quads, text, i, 1), QUIRE_OK);
        CHECK(!!(info->flags & QUIRE_TEXT_CHAR_HAS_QUAD) == (n_quads == 8));
        {
            const quire_quad *q = &info->quad;
            if (n_quads == 8)
                CHECK(q->x1 == quad[0] && q->y1 == quad[1] && q->x2 == quad[2] &&
                      q->y2 == quad[3] && q->x3 == quad[4] && q->y3 == quad[5] &&
                      q->x4 == quad[6] && q->y4 == quad[7]);
            else
                CHECK(q->x1 == 0 && q->y4 == 0);
        }
    }
    /* Character 21 is the generated line break: no quad. */
    CHECK(infos[21].flags == QUIRE_TEXT_CHAR_GENERATED && infos[21].code_point == '\n');
    /* Wrong calls. */
    CHECK_STATUS(quire_text_page_char_infos(infos, len, &len2, &count, text, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_text_page_char_infos(infos, len, &len2, &count, text,
                                            QUIRE_TEXT_CHAR_INFO_VERSION + 1),
                 QUIRE_EVERSION);
    CHECK_STATUS(quire_text_page_char_infos(NULL, 8, &len2, &count, text, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_text_page_char_infos((char *)infos + 4, len, &len2, &count, text, 1),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_text_page_char_infos(infos, len, NULL, &count, text, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_text_page_char_infos(infos, len, &len2, NULL, text, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_text_page_char_infos(infos, len, &len2, &count, NULL, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_text_page_font_count(NULL, text), QUIRE_EINVAL);
    CHECK_STATUS(quire_text_page_font_name(buf, sizeof buf, &len2, NULL, 0), QUIRE_EINVAL);
    free(infos);
    free(all);
    quire_text_page_free(text);
}

static void test_search_and_markup(void) {
    quire_document *doc = g_doc;
    quire_text_match_list *list = NULL;
    quire_text_search_options options = QUIRE_TEXT_SEARCH_OPTIONS_INIT;
    quire_text_page *text = NULL;
    quire_annotation *annotation = NULL;
    int32_t count = 0, page = -1, first = 0, n = 0;
    size_t len = 0;
    char buf[64];
    double quads[16];

    CHECK_STATUS(quire_document_search_text(&list, doc, "CONTRACT", NULL, -1), QUIRE_OK);
    CHECK_STATUS(quire_text_match_list_count(&count, list), QUIRE_OK);
    CHECK_INT(count, 1);
    CHECK_STATUS(quire_text_match_list_get(&page, &first, &n, list, 0), QUIRE_OK);
    CHECK(page == 0 && first == 17 && n == 10);
    CHECK_STATUS(quire_text_match_list_text(buf, sizeof buf, &len, list, 0), QUIRE_OK);
    CHECK_STR(buf, "con-\ntract");
    CHECK_STATUS(quire_text_match_list_quads(quads, 16, &len, list, 0), QUIRE_OK);
    CHECK_INT(len, 16);
    CHECK_STATUS(quire_text_match_list_get(&page, &first, &n, list, 1), QUIRE_ERANGE);
    quire_text_match_list_free(list);
    quire_text_match_list_free(NULL);

    options.match_case = 1;
    CHECK_STATUS(quire_document_search_text(&list, doc, "CONTRACT", &options, 0), QUIRE_OK);
    CHECK_STATUS(quire_text_match_list_count(&count, list), QUIRE_OK);
    CHECK_INT(count, 0);
    quire_text_match_list_free(list);
    CHECK_STATUS(quire_text_search_options_init(&options, QUIRE_TEXT_SEARCH_OPTIONS_VERSION),
                 QUIRE_OK);
    options.whole_word = 1;
    CHECK_STATUS(quire_document_search_text(&list, doc, "he", &options, -1), QUIRE_OK);
    CHECK_STATUS(quire_text_match_list_count(&count, list), QUIRE_OK);
    CHECK_INT(count, 0);
    quire_text_match_list_free(list);
    options.max_matches = -1;
    CHECK_STATUS(quire_document_search_text(&list, doc, "e", &options, -1), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_search_text(&list, doc, " ", NULL, -1), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_search_text(&list, doc, "e", NULL, 4), QUIRE_ERANGE);
    options.version = 0;
    CHECK_STATUS(quire_document_search_text(&list, doc, "e", &options, -1), QUIRE_EINVAL);

    /* A highlight over "con-\ntract", and the text it covers. */
    CHECK_STATUS(quire_page_text_load(&text, doc, 0), QUIRE_OK);
    CHECK_STATUS(
        quire_document_add_text_markup(&annotation, doc, text, QUIRE_TEXT_MARKUP_HIGHLIGHT, 17, 10),
        QUIRE_OK);
    CHECK_STATUS(quire_annotation_subtype(buf, sizeof buf, &len, annotation), QUIRE_OK);
    CHECK_STR(buf, "Highlight");
    CHECK_STATUS(quire_annotation_points(quads, 16, &len, annotation, QUIRE_ANNOT_QUAD_POINTS),
                 QUIRE_OK);
    CHECK_INT(len, 16);
    CHECK_STATUS(quire_annotation_marked_text(buf, sizeof buf, &len, doc, annotation), QUIRE_OK);
    CHECK_STR(buf, "con-\ntract");
    quire_annotation_free(annotation);
    CHECK_STATUS(quire_document_add_text_markup(NULL, doc, text, QUIRE_TEXT_MARKUP_SQUIGGLY, 0, 6),
                 QUIRE_OK);
    CHECK_STATUS(
        quire_document_add_text_markup(NULL, doc, text, (quire_text_markup)QUIRE_BOX_MEDIA, 0, 6),
        QUIRE_EINVAL);
    CHECK_STATUS(
        quire_document_add_text_markup(NULL, doc, text, QUIRE_TEXT_MARKUP_UNDERLINE, 21, 1),
        QUIRE_EINVAL);
    CHECK_STATUS(
        quire_document_add_text_markup(NULL, doc, text, QUIRE_TEXT_MARKUP_STRIKEOUT, 40, 5),
        QUIRE_ERANGE);
    CHECK_STATUS(quire_document_add_text_markup(NULL, doc, NULL, QUIRE_TEXT_MARKUP_STRIKEOUT, 0, 1),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_page_annotation_count(&n, doc, 0), QUIRE_OK);
    CHECK_INT(n, 2);
    quire_text_page_free(text);
}

/* Counts the bytes a save writes. */
static int count_bytes(const void *data, size_t size, void *payload) {
    (void)data;
    *(size_t *)payload += size;
    return 0;
}

/* Redaction (issue 38): marks by rectangle and by search, applies, and the next save
 * must be a full one. A document of its own: applying changes the page for good. */
static void test_redaction(void) {
    quire_document *doc = NULL;
    quire_annotation *mark = NULL;
    quire_text_page *text = NULL;
    quire_redaction_options options = QUIRE_REDACTION_OPTIONS_INIT;
    quire_redaction_result result = {QUIRE_REDACTION_RESULT_VERSION, 0, 0, 0, 0, 0, 0, 0};
    quire_save_options save = QUIRE_SAVE_OPTIONS_INIT;
    quire_redaction_options fresh;
    const double fill[3] = {0, 0, 0};
    const double off_page[4] = {700, 800, 800, 900};
    const double second_line[4] = {60, 682, 300, 696};
    size_t size = 0, written = 0;
    unsigned char *data = text_pdf(&size);
    int32_t count = 0;
    char *s;
    double interior[4];

    CHECK_STATUS(quire_document_open_memory(&doc, data, size, NULL), QUIRE_OK);
    CHECK_STATUS(quire_redaction_options_init(&fresh, QUIRE_REDACTION_OPTIONS_VERSION), QUIRE_OK);
    CHECK(fresh.text == 1 && fresh.images == 1 && fresh.remove_metadata == 0);
    CHECK_STATUS(quire_redaction_options_init(&fresh, 0), QUIRE_EINVAL);
    /* Refused: a region off the page, a count that is not 4 per rectangle, a bad colour. */
    CHECK_STATUS(quire_page_add_redaction(NULL, doc, 0, off_page, 4, fill, 3, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_add_redaction(NULL, doc, 0, second_line, 3, fill, 3, NULL),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_page_add_redaction(NULL, doc, 0, second_line, 4, fill, 2, NULL),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_page_add_redaction(NULL, doc, 5, second_line, 4, fill, 3, NULL),
                 QUIRE_ERANGE);
    /* The second line by rectangle, "draft" by search. */
    CHECK_STATUS(quire_page_add_redaction(&mark, doc, 0, second_line, 4, fill, 3, "gone"),
                 QUIRE_OK);
    CHECK_STATUS(quire_annotation_color(interior, 4, &size, mark, QUIRE_ANNOT_INTERIOR_COLOR),
                 QUIRE_OK);
    CHECK_INT(size, 3);
    {
        /* The overlay text given to the call is the mark's /OverlayText, and /Repeat is
           off until set. */
        char overlay[16];
        size_t overlay_len = 0;
        double repeat = -1;
        CHECK_STATUS(quire_annotation_string(overlay, sizeof overlay, &overlay_len, mark,
                                             QUIRE_ANNOT_OVERLAY_TEXT),
                     QUIRE_OK);
        CHECK_STR(overlay, "gone");
        CHECK_STATUS(quire_annotation_set_number(mark, QUIRE_ANNOT_REPEAT, 2), QUIRE_EINVAL);
        CHECK_STATUS(quire_annotation_set_number(mark, QUIRE_ANNOT_REPEAT, 1), QUIRE_OK);
        CHECK_STATUS(quire_annotation_number(&repeat, mark, QUIRE_ANNOT_REPEAT), QUIRE_OK);
        CHECK(repeat == 1);
    }
    quire_annotation_free(mark);
    CHECK_STATUS(quire_document_add_redactions_matching(&count, doc, "draft", NULL, fill, 3, NULL),
                 QUIRE_OK);
    CHECK_INT(count, 1);
    CHECK_STATUS(quire_document_add_redactions_matching(&count, doc, "", NULL, NULL, 0, NULL),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_document_apply_redactions(&result, doc, &options), QUIRE_OK);
    CHECK_INT(result.redactions, 2);
    CHECK_INT(result.pages, 1);
    /* "tract before Friday." less its spaces' glyphs (spaces are glyphs too), and "draft". */
    CHECK(result.glyphs_removed >= 20);
    CHECK_STATUS(quire_page_text_load(&text, doc, 0), QUIRE_OK);
    s = page_text(text);
    CHECK(strstr(s, "draft") == NULL && strstr(s, "Friday") == NULL &&
          strstr(s, "Review the") != NULL);
    free(s);
    quire_text_page_free(text);
    CHECK_STATUS(quire_page_annotation_count(&count, doc, 0), QUIRE_OK);
    CHECK_INT(count, 0);
    /* Only a full save now. */
    CHECK_STATUS(quire_document_save_to_callback(doc, &save, count_bytes, &written), QUIRE_ESTATE);
    save.mode = QUIRE_SAVE_FULL;
    CHECK_STATUS(quire_document_save_to_callback(doc, &save, count_bytes, &written), QUIRE_OK);
    CHECK(written > 0);
    /* Nothing left to apply: OK, nothing changes. */
    CHECK_STATUS(quire_document_apply_redactions(NULL, doc, NULL), QUIRE_OK);
    CHECK_STATUS(quire_document_apply_redactions(NULL, NULL, NULL), QUIRE_EINVAL);
    quire_document_close(doc);
}

static int text_setup(void) {
    size_t size = 0;
    unsigned char *data = text_pdf(&size);
    CHECK_STATUS(quire_document_open_memory(&g_doc, data, size, NULL), QUIRE_OK);
    return g_doc ? 0 : 1;
}

static void text_teardown(void) {
    quire_document_close(g_doc);
    g_doc = NULL;
}

static const struct test_case text_tests[] = {{"extraction", test_extraction},
                                              {"char_infos", test_char_infos},
                                              {"search_and_markup", test_search_and_markup},
                                              {"redaction", test_redaction},
                                              {NULL, NULL}};

const struct test_suite text_suite = {"text", text_setup, text_teardown, text_tests};
