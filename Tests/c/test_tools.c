/*
 * test_tools.c: the tool manager of include/quire.h (issue 19): coordinates, hit testing,
 * the manager's loop and its events, the built-in tools' entry paths, undo, and the
 * errors of every function.
 *
 * Linked into out/test_api with the other test files (test_support.h has the framework).
 * Every expected value comes from:
 *  - "pikepdf": links_highlights_annots.pdf page 0 has widgets 8 [69 670 220 690],
 *    9, 10, 11, the link 12 [69 633 542 653] to https://www.google.com/ and the highlight
 *    13 [293 530 349 542];
 *  - "pypdfium2": qpdf's boxes.pdf page 1 (/Rotate 90, crop box [10 20 582 752]) rendered
 *    into (10, 20, 800, 600) turned 1 quarter: FPDF_DeviceToPage of (100, 50) is
 *    (517.64996, 56.6), FPDF_PageToDevice of (300, 400) is (404, 331) (rounded);
 *  - "the header": statuses, event order, the guard;
 *  - "set above": what the test did itself.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LINKS_PDF "pdfium/testing/resources/links_highlights_annots.pdf"
#define BOXES_PDF "qpdf/qpdf/qtest/qpdf/boxes.pdf"

#define MAX_EVENTS 64

struct recorder {
    int count;
    quire_tool_event_kind kinds[MAX_EVENTS];
    int32_t objects[MAX_EVENTS];
    quire_tool from[MAX_EVENTS], to[MAX_EVENTS];
    int32_t pages[MAX_EVENTS];
    char uri[256];
    int reentry_status; /* what a call back into the manager from the callback returned */
    int try_reentry;
    int bad_version; /* an event whose version is not QUIRE_TOOL_EVENT_VERSION */
};

static void record(quire_tool_manager *manager, const quire_tool_event *event, void *payload) {
    struct recorder *r = payload;
    if (event->version != QUIRE_TOOL_EVENT_VERSION) r->bad_version = 1;
    if (r->try_reentry) {
        quire_tool current;
        r->reentry_status = quire_tool_manager_set_tool(manager, QUIRE_TOOL_INK);
        (void)quire_tool_manager_current_tool(&current, manager);
    }
    if (r->count >= MAX_EVENTS) return;
    r->kinds[r->count] = event->kind;
    r->objects[r->count] = event->object_number;
    r->from[r->count] = event->from_tool;
    r->to[r->count] = event->to_tool;
    r->pages[r->count] = event->page_index;
    if (event->uri) snprintf(r->uri, sizeof r->uri, "%s", event->uri);
    r->count++;
}

static quire_tool_manager *new_manager(quire_document *doc, struct recorder *r) {
    quire_tool_callbacks cb = QUIRE_TOOL_CALLBACKS_INIT;
    quire_tool_manager *m = NULL;
    quire_tool_event_fn fn = record;
    cb.on_event = fn;
    cb.payload = r;
    CHECK_STATUS(quire_tool_manager_new(&m, doc, &cb), QUIRE_OK);
    return m;
}

static quire_tool current(quire_tool_manager *m) {
    quire_tool t = QUIRE_TOOL_CUSTOM;
    CHECK_STATUS(quire_tool_manager_current_tool(&t, m), QUIRE_OK);
    return t;
}

static void test_coordinates(void) {
    quire_document *doc = open_corpus(BOXES_PDF, NULL);
    double x = 0, y = 0, bx = 0, by = 0;
    g_test = "tools: coordinates";
    if (!doc) return;
    CHECK_STATUS(quire_page_device_to_page(&x, &y, doc, 1, 10, 20, 800, 600, 1, 100, 50), QUIRE_OK);
    CHECK(fabs(x - 517.64996) < 0.01 && fabs(y - 56.6) < 0.01);
    CHECK_STATUS(quire_page_page_to_device(&x, &y, doc, 1, 10, 20, 800, 600, 1, 300, 400), QUIRE_OK);
    CHECK(fabs(x - 404) <= 0.5 && fabs(y - 331) <= 0.5);
    /* A round trip is exact to rounding. */
    CHECK_STATUS(quire_page_device_to_page(&bx, &by, doc, 1, 10, 20, 800, 600, 1, x, y), QUIRE_OK);
    CHECK(fabs(bx - 300) < 1e-9 && fabs(by - 400) < 1e-9);
    CHECK_STATUS(quire_page_device_to_page(&x, &y, doc, 1, 0, 0, 100, 100, 4, 1, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_device_to_page(&x, &y, doc, 1, 0, 0, 0, 0, 0, 1, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_device_to_page(&x, &y, doc, 1, 0, 0, 100, 100, 0, NAN, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_page_to_device(NULL, &y, doc, 1, 0, 0, 100, 100, 0, 1, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_page_to_device(&x, &y, doc, 99, 0, 0, 100, 100, 0, 1, 1), QUIRE_ERANGE);
    quire_document_close(doc);
}

static void test_hit_test(void) {
    quire_document *doc = open_corpus(LINKS_PDF, NULL);
    quire_hit_kind kind = QUIRE_HIT_NONE;
    int32_t object = -1;
    g_test = "tools: hit test";
    if (!doc) return;
    CHECK_STATUS(quire_page_hit_test(&kind, &object, doc, 0, 300, 643, 0), QUIRE_OK);
    CHECK_INT(kind, QUIRE_HIT_LINK);
    CHECK_INT(object, 12);
    CHECK_STATUS(quire_page_hit_test(&kind, &object, doc, 0, 100, 680, 0), QUIRE_OK);
    CHECK_INT(kind, QUIRE_HIT_WIDGET);
    CHECK_INT(object, 8);
    CHECK_STATUS(quire_page_hit_test(&kind, &object, doc, 0, 320, 536, 0), QUIRE_OK);
    CHECK_INT(kind, QUIRE_HIT_ANNOTATION);
    CHECK_INT(object, 13);
    CHECK_STATUS(quire_page_hit_test(&kind, &object, doc, 0, 351, 536, 0), QUIRE_OK);
    CHECK_INT(kind, QUIRE_HIT_NONE);
    CHECK_INT(object, 0);
    CHECK_STATUS(quire_page_hit_test(&kind, &object, doc, 0, 351, 536, 3), QUIRE_OK);
    CHECK_INT(kind, QUIRE_HIT_ANNOTATION);
    CHECK_STATUS(quire_page_hit_test(&kind, &object, doc, 0, 1, 1, -1), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_hit_test(&kind, NULL, doc, 0, 1, 1, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_hit_test(&kind, &object, doc, 7, 1, 1, 0), QUIRE_ERANGE);
    quire_document_close(doc);
}

/* The seed's walkthrough on a real file, and each entry path: a tap on the highlight
 * (markup), on the link, on a widget, on empty space. */
static void test_walkthrough(void) {
    quire_document *doc = open_corpus(LINKS_PDF, NULL);
    struct recorder r;
    quire_tool_manager *m;
    int32_t handled = -1, selected = -1, changed = -1;
    g_test = "tools: walkthrough";
    if (!doc) return;
    memset(&r, 0, sizeof r);
    m = new_manager(doc, &r);
    if (!m) { quire_document_close(doc); return; }
    CHECK_INT(current(m), QUIRE_TOOL_PAN);

    /* Pan current, tap on the highlight: Pan names AnnotEdit, which selects it. */
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 320, 536), QUIRE_OK);
    CHECK_INT(handled, 1);
    CHECK_INT(current(m), QUIRE_TOOL_ANNOT_EDIT);
    CHECK_STATUS(quire_tool_manager_selection(&selected, m), QUIRE_OK);
    CHECK_INT(selected, 13);
    CHECK_INT(r.count, 2);
    CHECK_INT(r.kinds[0], QUIRE_TOOL_EVENT_TOOL_CHANGED);
    CHECK_INT(r.from[0], QUIRE_TOOL_PAN);
    CHECK_INT(r.to[0], QUIRE_TOOL_ANNOT_EDIT);
    CHECK_INT(r.kinds[1], QUIRE_TOOL_EVENT_SELECTION_CHANGED);
    CHECK_INT(r.objects[1], 13);

    /* A tap on the link: AnnotEdit deselects and names Pan, Pan names Link, which reports
     * the URI and does not navigate. */
    r.count = 0;
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 300, 643), QUIRE_OK);
    CHECK_INT(current(m), QUIRE_TOOL_LINK);
    CHECK(r.count >= 1 && r.kinds[r.count - 1] == QUIRE_TOOL_EVENT_LINK_ACTIVATED);
    CHECK_STR(r.uri, "https://www.google.com/");
    CHECK_INT(r.objects[r.count - 1], 12);

    /* A tap on a widget: form filling activates it. */
    r.count = 0;
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 100, 680), QUIRE_OK);
    CHECK_INT(current(m), QUIRE_TOOL_FORM_FILL);
    CHECK(r.count >= 1 && r.kinds[r.count - 1] == QUIRE_TOOL_EVENT_FIELD_ACTIVATED && r.objects[r.count - 1] == 8);

    /* Empty space: back to Pan, nothing selected, and no change to the document. */
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 400, 100), QUIRE_OK);
    CHECK_INT(current(m), QUIRE_TOOL_PAN);
    CHECK_STATUS(quire_tool_manager_selection(&selected, m), QUIRE_OK);
    CHECK_INT(selected, 0);
    CHECK_STATUS(quire_document_has_unsaved_changes(&changed, doc), QUIRE_OK);
    CHECK_INT(changed, 0);
    quire_tool_manager_free(m);
    quire_document_close(doc);
}

/* Creation by drags, a move, undo and redo; the callback may not call back in. */
static void test_create_move_undo(void) {
    quire_document *doc = open_corpus(LINKS_PDF, NULL);
    struct recorder r;
    quire_tool_manager *m;
    quire_tool_style style = QUIRE_TOOL_STYLE_INIT;
    quire_annotation *a = NULL;
    quire_rect rect;
    int32_t handled = -1, square = 0, done = -1, count = 0;
    g_test = "tools: create, move, undo";
    if (!doc) return;
    memset(&r, 0, sizeof r);
    m = new_manager(doc, &r);
    if (!m) { quire_document_close(doc); return; }
    style.red = 0; style.blue = 1; style.author = "Ada";
    CHECK_STATUS(quire_tool_manager_set_style(m, &style), QUIRE_OK);
    style.opacity = 2;
    CHECK_STATUS(quire_tool_manager_set_style(m, &style), QUIRE_EINVAL);

    CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_SQUARE), QUIRE_OK);
    r.count = 0;
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_BEGIN, 0, 300, 100), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_MOVE, 0, 350, 150), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_END, 0, 400, 200), QUIRE_OK);
    CHECK_INT(r.count, 1);
    CHECK_INT(r.kinds[0], QUIRE_TOOL_EVENT_ANNOTATION_ADDED);
    square = r.objects[0];
    CHECK_STATUS(quire_page_annotation_count(&count, doc, 0), QUIRE_OK);
    CHECK_INT(count, 7); /* pikepdf: 6 before */
    CHECK_STATUS(quire_document_annotation(&a, doc, square), QUIRE_OK);
    if (a) {
        CHECK_STATUS(quire_annotation_rect(&rect, a), QUIRE_OK);
        CHECK_RECT(rect, 300, 100, 400, 200);
        quire_annotation_free(a);
        a = NULL;
    }
    /* Pan: a drag on the square moves it by (10, 20). */
    CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_PAN), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_BEGIN, 0, 350, 150), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_END, 0, 360, 170), QUIRE_OK);
    CHECK_INT(current(m), QUIRE_TOOL_ANNOT_EDIT);
    CHECK_STATUS(quire_document_annotation(&a, doc, square), QUIRE_OK);
    if (a) {
        CHECK_STATUS(quire_annotation_rect(&rect, a), QUIRE_OK);
        CHECK_RECT(rect, 310, 120, 410, 220);
        quire_annotation_free(a);
        a = NULL;
    }
    CHECK_STATUS(quire_tool_manager_set_selection_contents(m, "moved"), QUIRE_OK);
    /* Undo the contents and the move; then the square itself. */
    CHECK_STATUS(quire_tool_manager_undo(&done, m), QUIRE_OK);
    CHECK_INT(done, 1);
    CHECK_STATUS(quire_tool_manager_undo(&done, m), QUIRE_OK);
    CHECK_STATUS(quire_document_annotation(&a, doc, square), QUIRE_OK);
    if (a) {
        CHECK_STATUS(quire_annotation_rect(&rect, a), QUIRE_OK);
        CHECK_RECT(rect, 300, 100, 400, 200);
        quire_annotation_free(a);
        a = NULL;
    }
    CHECK_STATUS(quire_tool_manager_undo(&done, m), QUIRE_OK);
    CHECK_STATUS(quire_page_annotation_count(&count, doc, 0), QUIRE_OK);
    CHECK_INT(count, 6);
    CHECK_STATUS(quire_tool_manager_undo(&done, m), QUIRE_OK);
    CHECK_INT(done, 0);
    CHECK_STATUS(quire_tool_manager_redo(&done, m), QUIRE_OK);
    CHECK_INT(done, 1);
    CHECK_STATUS(quire_page_annotation_count(&count, doc, 0), QUIRE_OK);
    CHECK_INT(count, 7);

    /* A callback that calls the manager gets QUIRE_ESTATE; the outer call succeeds. */
    r.try_reentry = 1;
    r.reentry_status = 0;
    CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_CIRCLE), QUIRE_OK);
    CHECK_INT(r.reentry_status, QUIRE_ESTATE);
    CHECK_INT(current(m), QUIRE_TOOL_CIRCLE);
    r.try_reentry = 0;
    quire_tool_manager_free(m);
    quire_document_close(doc);
}

static void test_errors(void) {
    quire_document *doc = open_corpus(LINKS_PDF, NULL);
    quire_tool_manager *m = NULL;
    quire_tool_callbacks cb;
    quire_tool_style style;
    quire_tool t;
    int32_t v;
    g_test = "tools: errors";
    if (!doc) return;
    CHECK_STATUS(quire_tool_callbacks_init(&cb, QUIRE_TOOL_CALLBACKS_VERSION), QUIRE_OK);
    CHECK(cb.version == QUIRE_TOOL_CALLBACKS_VERSION && cb.on_event == NULL && cb.payload == NULL);
    CHECK_STATUS(quire_tool_callbacks_init(&cb, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_callbacks_init(&cb, QUIRE_TOOL_CALLBACKS_VERSION + 1), QUIRE_EVERSION);
    CHECK_STATUS(quire_tool_callbacks_init(NULL, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_style_init(&style, QUIRE_TOOL_STYLE_VERSION), QUIRE_OK);
    CHECK(style.red == 1 && style.green == 0 && style.border_width == 2 && style.tolerance == 4 && style.author == NULL);
    CHECK_STATUS(quire_tool_manager_new(NULL, doc, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_new(&m, NULL, NULL), QUIRE_EINVAL);
    cb.version = 9;
    CHECK_STATUS(quire_tool_manager_new(&m, doc, &cb), QUIRE_EVERSION);
    CHECK_STATUS(quire_tool_manager_new(&m, doc, NULL), QUIRE_OK);
    if (m) {
        CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_CUSTOM), QUIRE_EINVAL);
        CHECK_STATUS(quire_tool_manager_set_tool(m, (quire_tool)0x1234), QUIRE_EINVAL);
        CHECK_STATUS(quire_tool_manager_send(&v, m, (quire_pointer_kind)0x3107, 0, 1, 1), QUIRE_EINVAL);
        CHECK_STATUS(quire_tool_manager_send(&v, m, QUIRE_POINTER_TAP, 0, INFINITY, 1), QUIRE_EINVAL);
        CHECK_STATUS(quire_tool_manager_send(&v, m, QUIRE_POINTER_TAP, 1, 1, 1), QUIRE_ERANGE);
        CHECK_STATUS(quire_tool_manager_send(NULL, m, QUIRE_POINTER_TAP, 0, 1, 1), QUIRE_OK);
        CHECK_STATUS(quire_tool_manager_delete_selection(m), QUIRE_ESTATE);
        CHECK_STATUS(quire_tool_manager_set_selection_contents(m, "x"), QUIRE_ESTATE);
        CHECK_STATUS(quire_tool_manager_current_tool(NULL, m), QUIRE_EINVAL);
        CHECK_STATUS(quire_tool_manager_selection(NULL, m), QUIRE_EINVAL);
        CHECK_STATUS(quire_tool_manager_commit(m), QUIRE_OK);
        CHECK_STATUS(quire_tool_manager_undo(NULL, m), QUIRE_OK);
        CHECK_STATUS(quire_tool_manager_redo(NULL, m), QUIRE_OK);
    }
    CHECK_STATUS(quire_tool_manager_current_tool(&t, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_commit(NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_set_style(m, NULL), QUIRE_EINVAL);
    quire_tool_manager_free(NULL);
    /* The manager keeps the document: closing the document first is safe. */
    quire_document_close(doc);
    if (m) {
        CHECK_STATUS(quire_tool_manager_send(&v, m, QUIRE_POINTER_TAP, 0, 320, 536), QUIRE_OK);
        CHECK_INT(v, 1);
        quire_tool_manager_free(m);
    }
}

/* Each creation tool's gesture on empty space of page 0 makes one annotation of its
 * subtype (the header's list of tools); then AnnotEdit's events on it. */
static void test_every_tool(void) {
    static const struct { quire_tool tool; const char *subtype; int gesture; } cases[] = {
        { QUIRE_TOOL_SQUARE, "Square", 0 },     { QUIRE_TOOL_CIRCLE, "Circle", 0 },
        { QUIRE_TOOL_LINE, "Line", 0 },         { QUIRE_TOOL_ARROW, "Line", 0 },
        { QUIRE_TOOL_INK, "Ink", 0 },           { QUIRE_TOOL_SIGNATURE, "Ink", 0 },
        { QUIRE_TOOL_POLYGON, "Polygon", 1 },   { QUIRE_TOOL_POLYLINE, "PolyLine", 1 },
        { QUIRE_TOOL_STICKY_NOTE, "Text", 2 },  { QUIRE_TOOL_FREE_TEXT, "FreeText", 2 },
    };
    quire_document *doc = open_corpus(LINKS_PDF, NULL);
    struct recorder r;
    quire_tool_manager *m;
    size_t i;
    int32_t handled = -1, last = 0, selected = 0;
    g_test = "tools: every creation tool";
    if (!doc) return;
    memset(&r, 0, sizeof r);
    m = new_manager(doc, &r);
    if (!m) { quire_document_close(doc); return; }
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        quire_annotation *a = NULL;
        char subtype[32] = "";
        size_t len = 0;
        int k;
        CHECK_STATUS(quire_tool_manager_set_tool(m, cases[i].tool), QUIRE_OK);
        r.count = 0;
        if (cases[i].gesture == 0) {
            CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_BEGIN, 0, 400, 100), QUIRE_OK);
            CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_MOVE, 0, 450, 140), QUIRE_OK);
            CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_END, 0, 500, 180), QUIRE_OK);
        } else if (cases[i].gesture == 1) {
            CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 400, 100), QUIRE_OK);
            CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 500, 100), QUIRE_OK);
            CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DOUBLE_TAP, 0, 450, 180), QUIRE_OK);
        } else {
            CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 400, 180), QUIRE_OK);
        }
        /* Ink waits for a tool change: Pan commits it. */
        CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_PAN), QUIRE_OK);
        last = 0;
        for (k = 0; k < r.count; k++)
            if (r.kinds[k] == QUIRE_TOOL_EVENT_ANNOTATION_ADDED) last = r.objects[k];
        report(last != 0, __FILE__, __LINE__, "tool 0x%x added no annotation", (unsigned)cases[i].tool);
        if (!last) continue;
        CHECK_STATUS(quire_document_annotation(&a, doc, last), QUIRE_OK);
        if (!a) continue;
        CHECK_STATUS(quire_annotation_subtype(subtype, sizeof subtype, &len, a), QUIRE_OK);
        report(strcmp(subtype, cases[i].subtype) == 0, __FILE__, __LINE__, "tool 0x%x made a %s, expected %s",
               (unsigned)cases[i].tool, subtype, cases[i].subtype);
        quire_annotation_free(a);
        /* Remove it again (through AnnotEdit's selection) so the next tool starts on empty space. */
        r.count = 0;
        CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DOUBLE_TAP, 0,
                                             cases[i].gesture == 2 ? 405 : 450,
                                             cases[i].gesture == 2 ? 170 : cases[i].gesture == 1 ? 100 : 140), QUIRE_OK);
        CHECK_STATUS(quire_tool_manager_selection(&selected, m), QUIRE_OK);
        CHECK_INT(selected, last);
        CHECK(r.count >= 1 && r.kinds[r.count - 1] == QUIRE_TOOL_EVENT_EDIT_REQUESTED);
        CHECK_STATUS(quire_tool_manager_delete_selection(m), QUIRE_OK);
        report(r.count >= 1 && r.kinds[r.count - 1] == QUIRE_TOOL_EVENT_ANNOTATION_REMOVED && r.objects[r.count - 1] == last,
               __FILE__, __LINE__, "tool 0x%x: the last of %d events is 0x%x on %d, expected REMOVED on %d",
               (unsigned)cases[i].tool, r.count, r.count ? (unsigned)r.kinds[r.count - 1] : 0u,
               r.count ? r.objects[r.count - 1] : 0, last);
        CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 590, 20), QUIRE_OK);
        CHECK_INT(current(m), QUIRE_TOOL_PAN);
    }
    /* A long press and a cancel on empty space: Pan handles them; nothing changes. */
    r.count = 0;
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_LONG_PRESS, 0, 590, 20), QUIRE_OK);
    CHECK_INT(handled, 1);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_CANCEL, 0, 590, 20), QUIRE_OK);
    CHECK_INT(handled, 1);
    CHECK_INT(r.count, 0);
    /* A move reports ANNOTATION_MODIFIED. */
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_BEGIN, 0, 320, 536), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_END, 0, 330, 546), QUIRE_OK);
    CHECK(r.count >= 1 && r.kinds[r.count - 1] == QUIRE_TOOL_EVENT_ANNOTATION_MODIFIED && r.objects[r.count - 1] == 13);
    CHECK(!r.bad_version);
    /* The guard's event is only reachable with a host's tool (the Swift and Python tests
     * drive it); its value is the header's. */
    CHECK_INT(QUIRE_TOOL_EVENT_UNHANDLED, 0x3208);
    quire_tool_manager_free(m);
    quire_document_close(doc);
}

/* Form filling through the tools on PDFium's multiple_form_types.pdf (pikepdf: the text
 * field "Text Box" [100 300 200 330], the check box "Checkbox" [135 250 155 270], off). */
static void field_value(char *out, size_t size, quire_document *doc, const char *name) {
    int32_t index = -1;
    size_t len = 0;
    out[0] = '\0';
    CHECK_STATUS(quire_document_field_index(&index, doc, name), QUIRE_OK);
    if (index < 0) return;
    CHECK_STATUS(quire_field_value(out, size, &len, doc, index, 0), QUIRE_OK);
}

static void test_form_filling(void) {
    quire_document *doc = open_corpus("pdfium/testing/resources/multiple_form_types.pdf", NULL);
    struct recorder r;
    quire_tool_manager *m;
    char value[64];
    int32_t handled = -1, done = -1;
    g_test = "tools: form filling";
    if (!doc) return;
    memset(&r, 0, sizeof r);
    m = new_manager(doc, &r);
    if (!m) { quire_document_close(doc); return; }
    CHECK_STATUS(quire_tool_manager_set_field_value(m, "x"), QUIRE_ESTATE); /* nothing selected */
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 150, 315), QUIRE_OK);
    CHECK_INT(current(m), QUIRE_TOOL_FORM_FILL);
    CHECK_STATUS(quire_tool_manager_set_field_value(m, "Filled"), QUIRE_OK);
    CHECK(r.count >= 1 && r.kinds[r.count - 1] == QUIRE_TOOL_EVENT_FIELD_CHANGED);
    field_value(value, sizeof value, doc, "Text Box");
    CHECK_STR(value, "Filled");
    CHECK_STATUS(quire_tool_manager_set_field_value(m, NULL), QUIRE_EINVAL);
    field_value(value, sizeof value, doc, "Checkbox");
    CHECK_STR(value, "Off");
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 145, 260), QUIRE_OK);
    field_value(value, sizeof value, doc, "Checkbox");
    CHECK(strcmp(value, "Off") != 0 && value[0] != '\0');
    CHECK(r.kinds[r.count - 1] == QUIRE_TOOL_EVENT_FIELD_CHANGED);
    CHECK_STATUS(quire_tool_manager_undo(&done, m), QUIRE_OK);
    field_value(value, sizeof value, doc, "Checkbox");
    CHECK_STR(value, "Off");
    CHECK_STATUS(quire_tool_manager_undo(&done, m), QUIRE_OK);
    field_value(value, sizeof value, doc, "Text Box");
    CHECK(strcmp(value, "Filled") != 0);
    quire_tool_manager_free(m);
    quire_document_close(doc);
}

/* Text markup over a drag's text on PDFium's hello_world.pdf (pypdfium2's char boxes: "H"
 * [20.2 50 28.4 57.9] to "d" [75 49.9 80.6 58.2] on the first line, "Hello, world!"). */
static void test_text_markup(void) {
    static const struct { quire_tool tool; const char *subtype; } cases[] = {
        { QUIRE_TOOL_HIGHLIGHT, "Highlight" }, { QUIRE_TOOL_UNDERLINE, "Underline" },
        { QUIRE_TOOL_STRIKEOUT, "StrikeOut" }, { QUIRE_TOOL_SQUIGGLY, "Squiggly" },
    };
    quire_document *doc = open_corpus("pdfium/testing/resources/hello_world.pdf", NULL);
    struct recorder r;
    quire_tool_manager *m;
    size_t i;
    int32_t handled = -1;
    g_test = "tools: text markup";
    if (!doc) return;
    memset(&r, 0, sizeof r);
    m = new_manager(doc, &r);
    if (!m) { quire_document_close(doc); return; }
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        quire_annotation *a = NULL;
        quire_rect rect;
        char subtype[32] = "";
        size_t len = 0;
        CHECK_STATUS(quire_tool_manager_set_tool(m, cases[i].tool), QUIRE_OK);
        r.count = 0;
        CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_BEGIN, 0, 22, 53), QUIRE_OK);
        CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_END, 0, 78, 53), QUIRE_OK);
        if (!(r.count == 1 && r.kinds[0] == QUIRE_TOOL_EVENT_ANNOTATION_ADDED)) {
            report(0, __FILE__, __LINE__, "tool 0x%x added no annotation", (unsigned)cases[i].tool);
            continue;
        }
        CHECK_STATUS(quire_document_annotation(&a, doc, r.objects[0]), QUIRE_OK);
        if (!a) continue;
        CHECK_STATUS(quire_annotation_subtype(subtype, sizeof subtype, &len, a), QUIRE_OK);
        CHECK_STR(subtype, cases[i].subtype);
        CHECK_STATUS(quire_annotation_rect(&rect, a), QUIRE_OK);
        /* From "H" to "d": the rect spans those characters' boxes, not the "!" at 82.2. */
        CHECK(rect.left < 21 && rect.right > 80 && rect.right < 82.2 && rect.bottom < 51 && rect.top > 57);
        quire_annotation_free(a);
    }
    /* A tap with a markup tool goes back to Pan. */
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 190, 190), QUIRE_OK);
    CHECK_INT(current(m), QUIRE_TOOL_PAN);
    quire_tool_manager_free(m);
    quire_document_close(doc);
}

/* The text hit test on hello_world.pdf: the centre of every character's box hits a
 * character whose box holds it (the first such in content order: never a later one, never a
 * generated one); the page's corner and a point just above the first line hit nothing, the
 * latter until the tolerance reaches it. */
static void test_text_hit_test(void) {
    quire_document *doc = open_corpus("pdfium/testing/resources/hello_world.pdf", NULL);
    quire_text_page *text = NULL;
    quire_text_char c = QUIRE_TEXT_CHAR_INIT, hit = QUIRE_TEXT_CHAR_INIT, first = QUIRE_TEXT_CHAR_INIT;
    int32_t count = 0, i, index = -2, tested = 0;
    double x, y;
    g_test = "tools: text hit test";
    if (!doc) return;
    CHECK_STATUS(quire_page_text_load(&text, doc, 0), QUIRE_OK);
    if (!text) { quire_document_close(doc); return; }
    CHECK_STATUS(quire_text_page_char_count(&count, text), QUIRE_OK);
    for (i = 0; i < count; i++) {
        CHECK_STATUS(quire_text_page_char(&c, text, i), QUIRE_OK);
        if (c.is_generated) continue;
        x = (c.box.left + c.box.right) / 2;
        y = (c.box.bottom + c.box.top) / 2;
        CHECK_STATUS(quire_page_hit_test_text(&index, doc, 0, x, y, 0), QUIRE_OK);
        if (index < 0 || index > i) {
            report(0, __FILE__, __LINE__, "character %d: the hit is %d", (int)i, (int)index);
            continue;
        }
        CHECK_STATUS(quire_text_page_char(&hit, text, index), QUIRE_OK);
        CHECK(!hit.is_generated && hit.box.left <= x && x <= hit.box.right && hit.box.bottom <= y && y <= hit.box.top);
        tested++;
    }
    CHECK(tested > 20);
    CHECK_STATUS(quire_page_hit_test_text(&index, doc, 0, 1, 1, 0), QUIRE_OK);
    CHECK_INT(index, -1);
    CHECK_STATUS(quire_text_page_char(&first, text, 0), QUIRE_OK);
    x = (first.box.left + first.box.right) / 2;
    y = first.box.top + 1.5;
    CHECK_STATUS(quire_page_hit_test_text(&index, doc, 0, x, y, 0), QUIRE_OK);
    CHECK_INT(index, -1);
    CHECK_STATUS(quire_page_hit_test_text(&index, doc, 0, x, y, 2), QUIRE_OK);
    CHECK_INT(index, 0);
    CHECK_STATUS(quire_page_hit_test_text(NULL, doc, 0, x, y, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_hit_test_text(&index, NULL, 0, x, y, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_hit_test_text(&index, doc, 0, NAN, y, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_hit_test_text(&index, doc, 0, x, y, -1), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_hit_test_text(&index, doc, 0, x, y, INFINITY), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_hit_test_text(&index, doc, 3, x, y, 0), QUIRE_ERANGE);
    quire_text_page_free(text);
    quire_document_close(doc);
}

/* A host's tools in the loop: one that never handles (the guard drops the event and
 * makes Pan current, reporting UNHANDLED), and one that hands taps to the sticky-note
 * tool; a handler that fails gives QUIRE_EUSER; payloads are released. */
struct host_tool {
    int calls, finished, released, fail;
    const char *next_name; /* NULL: hand over to next_tool */
    quire_tool next_tool;
};

static int host_handle(int32_t *out_handled, quire_tool *out_next, const char **out_next_name,
                       quire_tool_manager *manager, quire_pointer_kind kind, int32_t page_index,
                       double x, double y, void *payload) {
    struct host_tool *t = payload;
    (void)manager; (void)kind; (void)page_index; (void)x; (void)y;
    t->calls++;
    if (t->fail) return 7;
    *out_handled = 0;
    if (t->next_name) {
        *out_next = QUIRE_TOOL_CUSTOM;
        *out_next_name = t->next_name;
    } else {
        *out_next = t->next_tool;
    }
    return 0;
}

static int host_finish(quire_tool_manager *manager, void *payload) {
    (void)manager;
    ((struct host_tool *)payload)->finished++;
    return 0;
}

static void host_release(void *payload) { ((struct host_tool *)payload)->released++; }

static void test_custom_tools(void) {
    quire_document *doc = open_corpus(LINKS_PDF, NULL);
    struct recorder r;
    quire_tool_manager *m;
    quire_custom_tool ct;
    struct host_tool stubborn, handoff, failing, replaced;
    int32_t handled = -1, count = 0;
    int k, changes = 0;
    g_test = "tools: custom tools";
    if (!doc) return;
    memset(&r, 0, sizeof r);
    memset(&stubborn, 0, sizeof stubborn);
    memset(&handoff, 0, sizeof handoff);
    memset(&failing, 0, sizeof failing);
    memset(&replaced, 0, sizeof replaced);
    stubborn.next_name = "stubborn";
    handoff.next_tool = QUIRE_TOOL_STICKY_NOTE;
    failing.fail = 1;
    m = new_manager(doc, &r);
    if (!m) { quire_document_close(doc); return; }
    {
        /* The initialiser macro and the function give the same defaults. */
        const quire_custom_tool defaults = QUIRE_CUSTOM_TOOL_INIT;
        CHECK(defaults.version == QUIRE_CUSTOM_TOOL_VERSION && defaults.name == NULL && defaults.handle == NULL);
    }
    CHECK_STATUS(quire_custom_tool_init(&ct, QUIRE_CUSTOM_TOOL_VERSION), QUIRE_OK);
    CHECK(ct.name == NULL && ct.handle == NULL && ct.payload == NULL);
    CHECK_STATUS(quire_tool_manager_register_tool(m, &ct), QUIRE_EINVAL); /* no name */
    ct.name = "stubborn";
    CHECK_STATUS(quire_tool_manager_register_tool(m, &ct), QUIRE_EINVAL); /* no handler */
    {
        /* The callbacks through their typedefs, as a host declares them. */
        const quire_custom_tool_handle_fn handle = host_handle;
        const quire_custom_tool_finish_fn finish = host_finish;
        const quire_custom_tool_release_fn release = host_release;
        ct.handle = handle; ct.finish = finish; ct.release = release;
    }
    ct.payload = &replaced;
    CHECK_STATUS(quire_tool_manager_register_tool(m, &ct), QUIRE_OK);
    ct.payload = &stubborn;
    CHECK_STATUS(quire_tool_manager_register_tool(m, &ct), QUIRE_OK);
    CHECK_INT(replaced.released, 1);
    ct.name = "handoff"; ct.payload = &handoff;
    CHECK_STATUS(quire_tool_manager_register_tool(m, &ct), QUIRE_OK);
    ct.name = "failing"; ct.payload = &failing;
    CHECK_STATUS(quire_tool_manager_register_tool(m, &ct), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_set_custom_tool(m, "missing"), QUIRE_ENOTFOUND);

    /* The guard: 8 replacements, then the event is dropped and Pan is current. */
    CHECK_STATUS(quire_tool_manager_set_custom_tool(m, "stubborn"), QUIRE_OK);
    CHECK_INT(current(m), QUIRE_TOOL_CUSTOM);
    r.count = 0;
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 590, 20), QUIRE_OK);
    CHECK_INT(handled, 0);
    CHECK_INT(current(m), QUIRE_TOOL_PAN);
    CHECK_INT(stubborn.calls, 9);
    CHECK(r.count >= 1 && r.kinds[r.count - 1] == QUIRE_TOOL_EVENT_UNHANDLED && r.pages[r.count - 1] == 0);
    for (k = 0; k < r.count; k++) if (r.kinds[k] == QUIRE_TOOL_EVENT_TOOL_CHANGED) changes++;
    CHECK_INT(changes, 9); /* 8 stubborn -> stubborn, then stubborn -> Pan */

    /* A hand-over to a built-in tool: the sticky note gets the same tap. */
    CHECK_STATUS(quire_tool_manager_set_custom_tool(m, "handoff"), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 400, 180), QUIRE_OK);
    CHECK_INT(handled, 1);
    CHECK_INT(handoff.calls, 1);
    CHECK_INT(handoff.finished, 1);
    CHECK_INT(current(m), QUIRE_TOOL_STICKY_NOTE);
    CHECK_STATUS(quire_page_annotation_count(&count, doc, 0), QUIRE_OK);
    CHECK_INT(count, 7);

    /* A handler that fails: QUIRE_EUSER, nothing changed. */
    CHECK_STATUS(quire_tool_manager_set_custom_tool(m, "failing"), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 400, 100), QUIRE_EUSER);
    CHECK_STATUS(quire_page_annotation_count(&count, doc, 0), QUIRE_OK);
    CHECK_INT(count, 7);
    quire_tool_manager_free(m);
    CHECK_INT(stubborn.released, 1);
    CHECK_INT(handoff.released, 1);
    CHECK_INT(failing.released, 1);
    quire_document_close(doc);
}

void run_tool_tests(void) {
    test_coordinates();
    test_hit_test();
    test_walkthrough();
    test_create_move_undo();
    test_every_tool();
    test_form_filling();
    test_text_markup();
    test_text_hit_test();
    test_custom_tools();
    test_errors();
}
