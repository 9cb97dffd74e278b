/*
 * test_tools.c: the tool manager of include/quire.h (issue 19): coordinates, hit testing,
 * the manager's loop and its events, the built-in tools' entry paths, undo, and the
 * errors of every function; issue 31: undo refused over changes made outside the manager,
 * an undone deletion as the same object, locked annotations, the history's descriptions,
 * multiple selection, handles, previews, the style read back, replies and review states.
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
    if (!doc) return;
    CHECK_STATUS(quire_page_device_to_page(&x, &y, doc, 1, 10, 20, 800, 600, 1, 100, 50), QUIRE_OK);
    CHECK(fabs(x - 517.64996) < 0.01 && fabs(y - 56.6) < 0.01);
    CHECK_STATUS(quire_page_page_to_device(&x, &y, doc, 1, 10, 20, 800, 600, 1, 300, 400),
                 QUIRE_OK);
    CHECK(fabs(x - 404) <= 0.5 && fabs(y - 331) <= 0.5);
    /* A round trip is exact to rounding. */
    CHECK_STATUS(quire_page_device_to_page(&bx, &by, doc, 1, 10, 20, 800, 600, 1, x, y), QUIRE_OK);
    CHECK(fabs(bx - 300) < 1e-9 && fabs(by - 400) < 1e-9);
    CHECK_STATUS(quire_page_device_to_page(&x, &y, doc, 1, 0, 0, 100, 100, 4, 1, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_device_to_page(&x, &y, doc, 1, 0, 0, 0, 0, 0, 1, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_page_device_to_page(&x, &y, doc, 1, 0, 0, 100, 100, 0, NAN, 1),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_page_page_to_device(NULL, &y, doc, 1, 0, 0, 100, 100, 0, 1, 1),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_page_page_to_device(&x, &y, doc, 99, 0, 0, 100, 100, 0, 1, 1), QUIRE_ERANGE);
    quire_document_close(doc);
}

static void test_hit_test(void) {
    quire_document *doc = open_corpus(LINKS_PDF, NULL);
    quire_hit_kind kind = QUIRE_HIT_NONE;
    int32_t object = -1;
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
    if (!doc) return;
    memset(&r, 0, sizeof r);
    m = new_manager(doc, &r);
    if (!m) {
        quire_document_close(doc);
        return;
    }
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
    CHECK(r.count >= 1 && r.kinds[r.count - 1] == QUIRE_TOOL_EVENT_FIELD_ACTIVATED &&
          r.objects[r.count - 1] == 8);

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
    if (!doc) return;
    memset(&r, 0, sizeof r);
    m = new_manager(doc, &r);
    if (!m) {
        quire_document_close(doc);
        return;
    }
    style.red = 0;
    style.blue = 1;
    style.author = "Ada";
    CHECK_STATUS(quire_tool_manager_set_style(m, &style), QUIRE_OK);
    style.opacity = 2;
    CHECK_STATUS(quire_tool_manager_set_style(m, &style), QUIRE_EINVAL);

    CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_SQUARE), QUIRE_OK);
    r.count = 0;
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_BEGIN, 0, 300, 100),
                 QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_MOVE, 0, 350, 150),
                 QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_END, 0, 400, 200),
                 QUIRE_OK);
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
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_BEGIN, 0, 350, 150),
                 QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_END, 0, 360, 170),
                 QUIRE_OK);
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
    if (!doc) return;
    CHECK_STATUS(quire_tool_callbacks_init(&cb, QUIRE_TOOL_CALLBACKS_VERSION), QUIRE_OK);
    CHECK(cb.version == QUIRE_TOOL_CALLBACKS_VERSION && cb.on_event == NULL && cb.payload == NULL);
    CHECK_STATUS(quire_tool_callbacks_init(&cb, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_callbacks_init(&cb, QUIRE_TOOL_CALLBACKS_VERSION + 1), QUIRE_EVERSION);
    CHECK_STATUS(quire_tool_callbacks_init(NULL, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_style_init(&style, QUIRE_TOOL_STYLE_VERSION), QUIRE_OK);
    CHECK(style.red == 1 && style.green == 0 && style.border_width == 2 && style.tolerance == 4 &&
          style.author == NULL);
    CHECK_STATUS(quire_tool_manager_new(NULL, doc, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_new(&m, NULL, NULL), QUIRE_EINVAL);
    cb.version = 9;
    CHECK_STATUS(quire_tool_manager_new(&m, doc, &cb), QUIRE_EVERSION);
    CHECK_STATUS(quire_tool_manager_new(&m, doc, NULL), QUIRE_OK);
    if (m) {
        CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_CUSTOM), QUIRE_EINVAL);
        CHECK_STATUS(quire_tool_manager_set_tool(m, (quire_tool)0x1234), QUIRE_EINVAL);
        CHECK_STATUS(quire_tool_manager_send(&v, m, (quire_pointer_kind)0x3107, 0, 1, 1),
                     QUIRE_EINVAL);
        CHECK_STATUS(quire_tool_manager_send(&v, m, QUIRE_POINTER_TAP, 0, INFINITY, 1),
                     QUIRE_EINVAL);
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
    static const struct {
        quire_tool tool;
        const char *subtype;
        int gesture;
    } cases[] = {
        {QUIRE_TOOL_SQUARE, "Square", 0},    {QUIRE_TOOL_CIRCLE, "Circle", 0},
        {QUIRE_TOOL_LINE, "Line", 0},        {QUIRE_TOOL_ARROW, "Line", 0},
        {QUIRE_TOOL_INK, "Ink", 0},          {QUIRE_TOOL_SIGNATURE, "Ink", 0},
        {QUIRE_TOOL_POLYGON, "Polygon", 1},  {QUIRE_TOOL_POLYLINE, "PolyLine", 1},
        {QUIRE_TOOL_STICKY_NOTE, "Text", 2}, {QUIRE_TOOL_FREE_TEXT, "FreeText", 2},
    };
    quire_document *doc = open_corpus(LINKS_PDF, NULL);
    struct recorder r;
    quire_tool_manager *m;
    size_t i;
    int32_t handled = -1, last = 0, selected = 0;
    if (!doc) return;
    memset(&r, 0, sizeof r);
    m = new_manager(doc, &r);
    if (!m) {
        quire_document_close(doc);
        return;
    }
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        quire_annotation *a = NULL;
        char subtype[32] = "";
        size_t len = 0;
        int k;
        CHECK_STATUS(quire_tool_manager_set_tool(m, cases[i].tool), QUIRE_OK);
        r.count = 0;
        if (cases[i].gesture == 0) {
            CHECK_STATUS(
                quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_BEGIN, 0, 400, 100),
                QUIRE_OK);
            CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_MOVE, 0, 450, 140),
                         QUIRE_OK);
            CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_END, 0, 500, 180),
                         QUIRE_OK);
        } else if (cases[i].gesture == 1) {
            CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 400, 100),
                         QUIRE_OK);
            CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 500, 100),
                         QUIRE_OK);
            CHECK_STATUS(
                quire_tool_manager_send(&handled, m, QUIRE_POINTER_DOUBLE_TAP, 0, 450, 180),
                QUIRE_OK);
        } else {
            CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 400, 180),
                         QUIRE_OK);
        }
        /* Ink waits for a tool change: Pan commits it. */
        CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_PAN), QUIRE_OK);
        last = 0;
        for (k = 0; k < r.count; k++)
            if (r.kinds[k] == QUIRE_TOOL_EVENT_ANNOTATION_ADDED) last = r.objects[k];
        report(last != 0, __FILE__, __LINE__, "tool 0x%x added no annotation",
               (unsigned)cases[i].tool);
        if (!last) continue;
        CHECK_STATUS(quire_document_annotation(&a, doc, last), QUIRE_OK);
        if (!a) continue;
        CHECK_STATUS(quire_annotation_subtype(subtype, sizeof subtype, &len, a), QUIRE_OK);
        report(strcmp(subtype, cases[i].subtype) == 0, __FILE__, __LINE__,
               "tool 0x%x made a %s, expected %s", (unsigned)cases[i].tool, subtype,
               cases[i].subtype);
        quire_annotation_free(a);
        /* Remove it again (through AnnotEdit's selection) so the next tool starts on empty space. */
        r.count = 0;
        CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DOUBLE_TAP, 0,
                                             cases[i].gesture == 2 ? 405 : 450,
                                             cases[i].gesture == 2   ? 170
                                             : cases[i].gesture == 1 ? 100
                                                                     : 140),
                     QUIRE_OK);
        CHECK_STATUS(quire_tool_manager_selection(&selected, m), QUIRE_OK);
        CHECK_INT(selected, last);
        CHECK(r.count >= 1 && r.kinds[r.count - 1] == QUIRE_TOOL_EVENT_EDIT_REQUESTED);
        CHECK_STATUS(quire_tool_manager_delete_selection(m), QUIRE_OK);
        report(r.count >= 1 && r.kinds[r.count - 1] == QUIRE_TOOL_EVENT_ANNOTATION_REMOVED &&
                   r.objects[r.count - 1] == last,
               __FILE__, __LINE__,
               "tool 0x%x: the last of %d events is 0x%x on %d, expected REMOVED on %d",
               (unsigned)cases[i].tool, r.count, r.count ? (unsigned)r.kinds[r.count - 1] : 0u,
               r.count ? r.objects[r.count - 1] : 0, last);
        CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 590, 20), QUIRE_OK);
        CHECK_INT(current(m), QUIRE_TOOL_PAN);
    }
    /* A long press and a cancel on empty space: Pan handles them; nothing changes. */
    r.count = 0;
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_LONG_PRESS, 0, 590, 20),
                 QUIRE_OK);
    CHECK_INT(handled, 1);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_CANCEL, 0, 590, 20), QUIRE_OK);
    CHECK_INT(handled, 1);
    CHECK_INT(r.count, 0);
    /* A move reports ANNOTATION_MODIFIED. */
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_BEGIN, 0, 320, 536),
                 QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_END, 0, 330, 546),
                 QUIRE_OK);
    CHECK(r.count >= 1 && r.kinds[r.count - 1] == QUIRE_TOOL_EVENT_ANNOTATION_MODIFIED &&
          r.objects[r.count - 1] == 13);
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
    if (!doc) return;
    memset(&r, 0, sizeof r);
    m = new_manager(doc, &r);
    if (!m) {
        quire_document_close(doc);
        return;
    }
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
    {
        /* Undo restores the field exactly: pikepdf, the file's "Text Box" has no /V. */
        int32_t index = -1, count = -1;
        CHECK_STATUS(quire_document_field_index(&index, doc, "Text Box"), QUIRE_OK);
        CHECK_STATUS(quire_field_value_count(&count, doc, index), QUIRE_OK);
        CHECK_INT(count, 0);
    }
    quire_tool_manager_free(m);
    quire_document_close(doc);
}

/* Text markup over a drag's text on PDFium's hello_world.pdf (pypdfium2's char boxes: "H"
 * [20.2 50 28.4 57.9] to "d" [75 49.9 80.6 58.2] on the first line, "Hello, world!"). */
static void test_text_markup(void) {
    static const struct {
        quire_tool tool;
        const char *subtype;
    } cases[] = {
        {QUIRE_TOOL_HIGHLIGHT, "Highlight"}, {QUIRE_TOOL_UNDERLINE, "Underline"},
        {QUIRE_TOOL_STRIKEOUT, "StrikeOut"}, {QUIRE_TOOL_SQUIGGLY, "Squiggly"},
        {QUIRE_TOOL_REDACT, "Redact"},
    };
    quire_document *doc = open_corpus("pdfium/testing/resources/hello_world.pdf", NULL);
    struct recorder r;
    quire_tool_manager *m;
    size_t i;
    int32_t handled = -1;
    if (!doc) return;
    memset(&r, 0, sizeof r);
    m = new_manager(doc, &r);
    if (!m) {
        quire_document_close(doc);
        return;
    }
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        quire_annotation *a = NULL;
        quire_rect rect;
        char subtype[32] = "";
        size_t len = 0;
        CHECK_STATUS(quire_tool_manager_set_tool(m, cases[i].tool), QUIRE_OK);
        r.count = 0;
        CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_BEGIN, 0, 22, 53),
                     QUIRE_OK);
        CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_END, 0, 78, 53),
                     QUIRE_OK);
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
        CHECK(rect.left < 21 && rect.right > 80 && rect.right < 82.2 && rect.bottom < 51 &&
              rect.top > 57);
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
    quire_text_char c = QUIRE_TEXT_CHAR_INIT, hit = QUIRE_TEXT_CHAR_INIT,
                    first = QUIRE_TEXT_CHAR_INIT;
    int32_t count = 0, i, index = -2, tested = 0;
    double x, y;
    if (!doc) return;
    CHECK_STATUS(quire_page_text_load(&text, doc, 0), QUIRE_OK);
    if (!text) {
        quire_document_close(doc);
        return;
    }
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
        CHECK(!hit.is_generated && hit.box.left <= x && x <= hit.box.right && hit.box.bottom <= y &&
              y <= hit.box.top);
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
    (void)manager;
    (void)kind;
    (void)page_index;
    (void)x;
    (void)y;
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
    if (!m) {
        quire_document_close(doc);
        return;
    }
    {
        /* The initialiser macro and the function give the same defaults. */
        const quire_custom_tool defaults = QUIRE_CUSTOM_TOOL_INIT;
        CHECK(defaults.version == QUIRE_CUSTOM_TOOL_VERSION && defaults.name == NULL &&
              defaults.handle == NULL);
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
        ct.handle = handle;
        ct.finish = finish;
        ct.release = release;
    }
    ct.payload = &replaced;
    CHECK_STATUS(quire_tool_manager_register_tool(m, &ct), QUIRE_OK);
    ct.payload = &stubborn;
    CHECK_STATUS(quire_tool_manager_register_tool(m, &ct), QUIRE_OK);
    CHECK_INT(replaced.released, 1);
    ct.name = "handoff";
    ct.payload = &handoff;
    CHECK_STATUS(quire_tool_manager_register_tool(m, &ct), QUIRE_OK);
    ct.name = "failing";
    ct.payload = &failing;
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
    CHECK(r.count >= 1 && r.kinds[r.count - 1] == QUIRE_TOOL_EVENT_UNHANDLED &&
          r.pages[r.count - 1] == 0);
    for (k = 0; k < r.count; k++)
        if (r.kinds[k] == QUIRE_TOOL_EVENT_TOOL_CHANGED) changes++;
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

/* ---- Issue 31: undo that never overwrites others' work; what a viewer needs ------------- */

static void drag_at(quire_tool_manager *m, double x0, double y0, double x1, double y1) {
    int32_t handled = 0;
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_BEGIN, 0, x0, y0),
                 QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_MOVE, 0, (x0 + x1) / 2,
                                         (y0 + y1) / 2),
                 QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_END, 0, x1, y1), QUIRE_OK);
}

static int32_t history(quire_tool_manager *m, quire_history which) {
    int32_t n = -1;
    CHECK_STATUS(quire_tool_manager_history_count(&n, m, which), QUIRE_OK);
    return n;
}

/* Set above: a square drawn at [300 100 400 200] on empty space of page 0 (pikepdf: the
 * page's annotations are elsewhere), moved by (10, 20), then changed outside the manager:
 * the undo is refused with QUIRE_ESTATE and nothing changes. */
static void test_undo_refuses_outside_changes(void) {
    quire_document *doc = open_corpus(LINKS_PDF, NULL);
    struct recorder r;
    quire_tool_manager *m;
    quire_annotation *a = NULL;
    quire_rect rect;
    int32_t square = 0, done = -1;
    char text[64];
    size_t len = 0;
    if (!doc) return;
    memset(&r, 0, sizeof r);
    m = new_manager(doc, &r);
    if (!m) {
        quire_document_close(doc);
        return;
    }
    CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_SQUARE), QUIRE_OK);
    r.count = 0;
    drag_at(m, 300, 100, 400, 200);
    square = r.count == 1 ? r.objects[0] : 0;
    CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_PAN), QUIRE_OK);
    drag_at(m, 350, 150, 360, 170);
    CHECK_INT(history(m, QUIRE_HISTORY_UNDO), 2);
    /* A script sets the square's contents. */
    CHECK_STATUS(quire_document_annotation(&a, doc, square), QUIRE_OK);
    if (a) {
        CHECK_STATUS(
            quire_annotation_set_string(a, QUIRE_ANNOT_CONTENTS, "a collaborator's comment"),
            QUIRE_OK);
        CHECK_STATUS(quire_document_update_annotation(doc, a), QUIRE_OK);
        quire_annotation_free(a);
        a = NULL;
    }
    CHECK_STATUS(quire_tool_manager_undo(&done, m), QUIRE_ESTATE);
    CHECK(strstr(quire_last_error_message(), "changed outside the tool manager") != NULL);
    CHECK_INT(history(m, QUIRE_HISTORY_UNDO), 1); /* the move's step is dropped */
    CHECK_INT(history(m, QUIRE_HISTORY_REDO), 0);
    CHECK_STATUS(quire_document_annotation(&a, doc, square), QUIRE_OK);
    if (a) {
        CHECK_STATUS(quire_annotation_rect(&rect, a), QUIRE_OK);
        CHECK_RECT(rect, 310, 120, 410, 220);
        CHECK_STATUS(quire_annotation_string(text, sizeof text, &len, a, QUIRE_ANNOT_CONTENTS),
                     QUIRE_OK);
        CHECK_STR(text, "a collaborator's comment");
        quire_annotation_free(a);
    }
    quire_tool_manager_free(m);
    quire_document_close(doc);
}

/* The history's counts and descriptions; the deletion of an annotation comes back as the
 * same object; locked annotations (/F 128) are not deleted. */
static void test_history_and_locks(void) {
    quire_document *doc = open_corpus(LINKS_PDF, NULL);
    struct recorder r;
    quire_tool_manager *m;
    quire_annotation *a = NULL;
    int32_t square = 0, done = -1, count = 0, flags = 0;
    char text[64];
    size_t len = 0;
    if (!doc) return;
    memset(&r, 0, sizeof r);
    m = new_manager(doc, &r);
    if (!m) {
        quire_document_close(doc);
        return;
    }
    CHECK_INT(history(m, QUIRE_HISTORY_UNDO), 0);
    CHECK_STATUS(
        quire_tool_manager_step_description(text, sizeof text, &len, m, QUIRE_HISTORY_UNDO, 0),
        QUIRE_ERANGE);
    CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_SQUARE), QUIRE_OK);
    r.count = 0;
    drag_at(m, 300, 100, 400, 200);
    square = r.count == 1 ? r.objects[0] : 0;
    CHECK_STATUS(quire_tool_manager_step_description(NULL, 0, &len, m, QUIRE_HISTORY_UNDO, 0),
                 QUIRE_OK);
    CHECK_INT(len, 10);
    CHECK_STATUS(quire_tool_manager_step_description(text, 4, &len, m, QUIRE_HISTORY_UNDO, 0),
                 QUIRE_EBUFS);
    CHECK_STATUS(
        quire_tool_manager_step_description(text, sizeof text, &len, m, QUIRE_HISTORY_UNDO, 0),
        QUIRE_OK);
    CHECK_STR(text, "Add Square");
    CHECK_STATUS(
        quire_tool_manager_step_description(text, sizeof text, &len, m, (quire_history)0x3602, 0),
        QUIRE_EINVAL);
    /* Delete and undo: the same object number, at its place in /Annots (the last). */
    CHECK_STATUS(quire_tool_manager_select(m, square, QUIRE_SELECT_REPLACE), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_delete_selection(m), QUIRE_OK);
    CHECK_STATUS(
        quire_tool_manager_step_description(text, sizeof text, &len, m, QUIRE_HISTORY_UNDO, 0),
        QUIRE_OK);
    CHECK_STR(text, "Delete Square");
    CHECK_STATUS(quire_tool_manager_undo(&done, m), QUIRE_OK);
    CHECK_INT(done, 1);
    CHECK_INT(history(m, QUIRE_HISTORY_REDO), 1);
    CHECK_STATUS(quire_page_annotation_count(&count, doc, 0), QUIRE_OK);
    CHECK_INT(count, 7);
    CHECK_STATUS(quire_page_annotation(&a, doc, 0, 6), QUIRE_OK);
    if (a) {
        int32_t id = 0;
        CHECK_STATUS(quire_annotation_id(&id, a), QUIRE_OK);
        CHECK_INT(id, square);
        /* Lock it (outside the manager): the delete is refused; nothing is deleted. */
        flags = 4 | 128;
        CHECK_STATUS(quire_annotation_set_number(a, QUIRE_ANNOT_FLAGS, flags), QUIRE_OK);
        CHECK_STATUS(quire_document_update_annotation(doc, a), QUIRE_OK);
        quire_annotation_free(a);
    }
    CHECK_STATUS(quire_tool_manager_select(m, square, QUIRE_SELECT_REPLACE), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_delete_selection(m), QUIRE_ESTATE);
    CHECK(strstr(quire_last_error_message(), "locked") != NULL);
    CHECK_STATUS(quire_page_annotation_count(&count, doc, 0), QUIRE_OK);
    CHECK_INT(count, 7);
    quire_tool_manager_free(m);
    quire_document_close(doc);
}

/* Multiple selection: select with each mode, a rubber band, Shift-tap through
 * quire_tool_manager_send_event; the handles of one selected annotation; the previews. */
static void test_selection_and_previews(void) {
    quire_document *doc = open_corpus(LINKS_PDF, NULL);
    struct recorder r;
    quire_tool_manager *m;
    quire_pointer_event event = QUIRE_POINTER_EVENT_INIT;
    quire_tool_preview preview = QUIRE_TOOL_PREVIEW_INIT;
    quire_rect band = {280, 80, 520, 230};
    double xy[16];
    size_t n = 0;
    int32_t a = 0, b = 0, count = -1, object = 0, handled = 0;
    if (!doc) return;
    memset(&r, 0, sizeof r);
    m = new_manager(doc, &r);
    if (!m) {
        quire_document_close(doc);
        return;
    }
    CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_SQUARE), QUIRE_OK);
    r.count = 0;
    drag_at(m, 300, 100, 400, 200);
    drag_at(m, 420, 100, 500, 200);
    a = r.count == 2 ? r.objects[0] : 0;
    b = r.count == 2 ? r.objects[1] : 0;
    /* The preview of a drag: its rectangle; nothing once it ended. */
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_BEGIN, 0, 100, 300),
                 QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_MOVE, 0, 50, 350),
                 QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_preview(&preview, m), QUIRE_OK);
    {
        quire_preview_kind kind = preview.kind;
        CHECK_INT(kind, QUIRE_PREVIEW_RECT);
    }
    CHECK_INT(preview.tool, QUIRE_TOOL_SQUARE);
    CHECK_INT(preview.page_index, 0);
    CHECK_RECT(preview.rect, 50, 300, 100, 350);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_CANCEL, 0, 0, 0), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_preview(&preview, m), QUIRE_OK);
    CHECK_INT(preview.kind, QUIRE_PREVIEW_NONE);
    CHECK_INT(preview.page_index, -1);
    /* An arrow's segment, as a path. */
    CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_ARROW), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_BEGIN, 0, 10, 20),
                 QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_MOVE, 0, 30, 40),
                 QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_preview(&preview, m), QUIRE_OK);
    CHECK_INT(preview.kind, QUIRE_PREVIEW_SEGMENT);
    CHECK_INT(preview.path_count, 1);
    CHECK_STATUS(quire_tool_manager_preview_path(NULL, 0, &n, m, 0), QUIRE_OK);
    CHECK_INT(n, 4);
    CHECK_STATUS(quire_tool_manager_preview_path(xy, 2, &n, m, 0), QUIRE_EBUFS);
    CHECK_STATUS(quire_tool_manager_preview_path(xy, 16, &n, m, 0), QUIRE_OK);
    CHECK(xy[0] == 10 && xy[1] == 20 && xy[2] == 30 && xy[3] == 40);
    CHECK_STATUS(quire_tool_manager_preview_path(xy, 16, &n, m, 1), QUIRE_ERANGE);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_CANCEL, 0, 0, 0), QUIRE_OK);
    /* A polygon's vertices so far, closed. */
    CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_POLYGON), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 10, 300), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 60, 300), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_preview(&preview, m), QUIRE_OK);
    CHECK_INT(preview.kind, QUIRE_PREVIEW_VERTICES);
    CHECK_INT(preview.closed, 1);
    CHECK_STATUS(quire_tool_manager_preview_path(NULL, 0, &n, m, 0), QUIRE_OK);
    CHECK_INT(n, 4);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_CANCEL, 0, 0, 0), QUIRE_OK);
    /* Ink: a stroke held and one being drawn. */
    CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_INK), QUIRE_OK);
    drag_at(m, 10, 400, 30, 420);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_BEGIN, 0, 50, 450),
                 QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_preview(&preview, m), QUIRE_OK);
    CHECK_INT(preview.kind, QUIRE_PREVIEW_INK);
    CHECK_INT(preview.path_count, 2);
    CHECK_STATUS(quire_tool_manager_preview_path(NULL, 0, &n, m, 0), QUIRE_OK);
    CHECK_INT(n, 6);
    CHECK_STATUS(quire_tool_manager_preview_path(NULL, 0, &n, m, 1), QUIRE_OK);
    CHECK_INT(n, 2);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_CANCEL, 0, 0, 0), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_PAN), QUIRE_OK); /* commits the ink */

    /* Select a, then b with each mode. */
    CHECK_STATUS(quire_tool_manager_select(m, a, QUIRE_SELECT_REPLACE), QUIRE_OK);
    /* A drag on a's right-top handle: the preview of the resize. */
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_BEGIN, 0, 400, 200),
                 QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_MOVE, 0, 410, 230),
                 QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_preview(&preview, m), QUIRE_OK);
    CHECK_INT(preview.kind, QUIRE_PREVIEW_RESIZE);
    CHECK_RECT(preview.rect, 300, 100, 410, 230);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_CANCEL, 0, 0, 0), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_selection_handles(NULL, 0, &n, m), QUIRE_OK);
    CHECK_INT(n, 16);
    CHECK_STATUS(quire_tool_manager_selection_handles(xy, 16, &n, m), QUIRE_OK);
    CHECK(xy[0] == 300 && xy[1] == 100 && xy[6] == 400 &&
          xy[7] == 200); /* left-bottom, right-top */
    CHECK_STATUS(quire_tool_manager_select(m, b, QUIRE_SELECT_ADD), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_selection_count(&count, m), QUIRE_OK);
    CHECK_INT(count, 2);
    CHECK_STATUS(quire_tool_manager_selection_at(&object, m, 1), QUIRE_OK);
    CHECK_INT(object, b);
    CHECK_STATUS(quire_tool_manager_selection_at(&object, m, 2), QUIRE_ERANGE);
    CHECK_STATUS(quire_tool_manager_selection_handles(NULL, 0, &n, m), QUIRE_OK);
    CHECK_INT(n, 0); /* several selected: no handles */
    CHECK_STATUS(quire_tool_manager_select(m, a, QUIRE_SELECT_TOGGLE), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_selection(&object, m), QUIRE_OK);
    CHECK_INT(object, b);
    CHECK_STATUS(quire_tool_manager_select(m, b, QUIRE_SELECT_REMOVE), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_selection_count(&count, m), QUIRE_OK);
    CHECK_INT(count, 0);
    CHECK_STATUS(quire_tool_manager_select(m, 999999, QUIRE_SELECT_ADD), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_tool_manager_select(m, a, (quire_selection_mode)0x3404), QUIRE_EINVAL);
    /* A rubber band over both. */
    CHECK_STATUS(quire_tool_manager_select_rect(&count, m, 0, &band, QUIRE_SELECT_REPLACE),
                 QUIRE_OK);
    CHECK_INT(count, 2);
    CHECK_STATUS(quire_tool_manager_select_rect(&count, m, 5, &band, QUIRE_SELECT_REPLACE),
                 QUIRE_ERANGE);
    CHECK_STATUS(quire_tool_manager_select_rect(&count, m, 0, NULL, QUIRE_SELECT_REPLACE),
                 QUIRE_EINVAL);
    /* A Shift-tap on a takes it out; a plain tap on b selects b alone. */
    event.kind = QUIRE_POINTER_TAP;
    event.x = 350;
    event.y = 150;
    event.modifiers = QUIRE_MODIFIER_SHIFT;
    CHECK_STATUS(quire_tool_manager_send_event(&handled, m, &event), QUIRE_OK);
    CHECK_INT(handled, 1);
    CHECK_STATUS(quire_tool_manager_selection_count(&count, m), QUIRE_OK);
    CHECK_INT(count, 1);
    CHECK_STATUS(quire_tool_manager_selection(&object, m), QUIRE_OK);
    CHECK_INT(object, b);
    /* A Shift-drag on empty space: a rubber band (its preview), which adds a. */
    event.kind = QUIRE_POINTER_DRAG_BEGIN;
    event.x = 290;
    event.y = 90;
    CHECK_STATUS(quire_tool_manager_send_event(&handled, m, &event), QUIRE_OK);
    event.kind = QUIRE_POINTER_DRAG_MOVE;
    event.x = 350;
    event.y = 150;
    CHECK_STATUS(quire_tool_manager_send_event(&handled, m, &event), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_preview(&preview, m), QUIRE_OK);
    CHECK_INT(preview.kind, QUIRE_PREVIEW_SELECT);
    CHECK_RECT(preview.rect, 290, 90, 350, 150);
    event.kind = QUIRE_POINTER_DRAG_END;
    CHECK_STATUS(quire_tool_manager_send_event(&handled, m, &event), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_selection_count(&count, m), QUIRE_OK);
    CHECK_INT(count, 2);
    /* A group move of both by (0, 300), one undo step. */
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_BEGIN, 0, 450, 150),
                 QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_MOVE, 0, 450, 300),
                 QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_preview(&preview, m), QUIRE_OK);
    CHECK_INT(preview.kind, QUIRE_PREVIEW_MOVE);
    CHECK(preview.dx == 0 && preview.dy == 150);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_END, 0, 450, 450),
                 QUIRE_OK);
    {
        char text[64];
        size_t len = 0;
        CHECK_STATUS(
            quire_tool_manager_step_description(text, sizeof text, &len, m, QUIRE_HISTORY_UNDO, 0),
            QUIRE_OK);
        CHECK_STR(text, "Move 2 annotations");
    }
    event.version = 99;
    CHECK_STATUS(quire_tool_manager_send_event(&handled, m, &event), QUIRE_EVERSION);
    CHECK_STATUS(quire_tool_manager_send_event(&handled, m, NULL), QUIRE_EINVAL);
    preview.version = 99;
    CHECK_STATUS(quire_tool_manager_preview(&preview, m), QUIRE_EVERSION);
    quire_tool_manager_free(m);
    quire_document_close(doc);
}

/* The style reads back (its strings owned by the manager); replies and review states. */
static void test_style_replies_states(void) {
    quire_document *doc = open_corpus(LINKS_PDF, NULL);
    struct recorder r;
    quire_tool_manager *m;
    quire_tool_style style = QUIRE_TOOL_STYLE_INIT, back = QUIRE_TOOL_STYLE_INIT;
    quire_annotation *a = NULL;
    int32_t square = 0, reply = 0, state = 0, done = 0;
    char text[64];
    size_t len = 0;
    if (!doc) return;
    memset(&r, 0, sizeof r);
    m = new_manager(doc, &r);
    if (!m) {
        quire_document_close(doc);
        return;
    }
    CHECK_STATUS(quire_tool_manager_style(&back, m), QUIRE_OK);
    CHECK(back.red == 1 && back.green == 0 && back.border_width == 2 && back.author == NULL);
    CHECK_STR(back.free_text, "Text");
    style.red = 0;
    style.blue = 1;
    style.border_width = 5;
    style.author = "Ada";
    CHECK_STATUS(quire_tool_manager_set_style(m, &style), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_style(&back, m), QUIRE_OK);
    CHECK(back.red == 0 && back.blue == 1 && back.border_width == 5);
    CHECK_STR(back.author, "Ada");
    CHECK(back.author != style.author); /* the manager's copy */
    back.version = 0;
    CHECK_STATUS(quire_tool_manager_style(&back, m), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_style(NULL, m), QUIRE_EINVAL);

    CHECK_STATUS(quire_tool_manager_reply(&reply, m, "nothing selected"), QUIRE_ESTATE);
    CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_SQUARE), QUIRE_OK);
    r.count = 0;
    drag_at(m, 300, 100, 400, 200);
    square = r.count == 1 ? r.objects[0] : 0;
    CHECK_STATUS(quire_tool_manager_select(m, square, QUIRE_SELECT_REPLACE), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_reply(&reply, m, "I agree"), QUIRE_OK);
    CHECK(reply > 0 && reply != square);
    CHECK_STATUS(quire_tool_manager_reply(NULL, m, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_set_state(&state, m, NULL, "Accepted"), QUIRE_OK);
    CHECK(state > 0 && state != reply);
    CHECK_STATUS(quire_tool_manager_set_state(NULL, m, "Review", "Marked"), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_set_state(NULL, m, "Mood", "Happy"), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_set_state(NULL, m, NULL, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_annotation(&a, doc, reply), QUIRE_OK);
    if (a) {
        CHECK_STATUS(quire_annotation_string(text, sizeof text, &len, a, QUIRE_ANNOT_AUTHOR),
                     QUIRE_OK);
        CHECK_STR(text, "Ada");
        quire_annotation_free(a);
        a = NULL;
    }
    CHECK_STATUS(
        quire_tool_manager_step_description(text, sizeof text, &len, m, QUIRE_HISTORY_UNDO, 0),
        QUIRE_OK);
    CHECK_STR(text, "Set state Accepted");
    CHECK_STATUS(
        quire_tool_manager_step_description(text, sizeof text, &len, m, QUIRE_HISTORY_UNDO, 1),
        QUIRE_OK);
    CHECK_STR(text, "Reply to Square");
    CHECK_STATUS(quire_tool_manager_undo(&done, m), QUIRE_OK);
    CHECK_STATUS(quire_document_annotation(&a, doc, state), QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_tool_manager_redo(&done, m), QUIRE_OK);
    CHECK_STATUS(quire_document_annotation(&a, doc, state), QUIRE_OK); /* the same object */
    quire_annotation_free(a);
    quire_tool_manager_free(m);
    quire_document_close(doc);
}

/* Every new function refuses a NULL manager and NULL outs. */
static void test_issue31_errors(void) {
    quire_pointer_event event;
    quire_tool_preview preview;
    quire_tool_style style = QUIRE_TOOL_STYLE_INIT;
    quire_rect rect = {0, 0, 1, 1};
    double xy[4];
    size_t n = 0;
    char text[8];
    int32_t v = 0;
    CHECK_STATUS(quire_pointer_event_init(&event, QUIRE_POINTER_EVENT_VERSION), QUIRE_OK);
    CHECK(event.kind == QUIRE_POINTER_TAP && event.page_index == 0 && event.modifiers == 0);
    CHECK_STATUS(quire_pointer_event_init(&event, 2), QUIRE_EVERSION);
    CHECK_STATUS(quire_pointer_event_init(NULL, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_preview_init(&preview, QUIRE_TOOL_PREVIEW_VERSION), QUIRE_OK);
    CHECK(preview.kind == QUIRE_PREVIEW_NONE && preview.page_index == -1 &&
          preview.path_count == 0);
    CHECK_STATUS(quire_tool_preview_init(&preview, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_send_event(&v, NULL, &event), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_style(&style, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_selection_count(&v, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_selection_at(&v, NULL, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_select(NULL, 1, QUIRE_SELECT_ADD), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_select_rect(&v, NULL, 0, &rect, QUIRE_SELECT_ADD),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_selection_handles(xy, 4, &n, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_preview(&preview, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_preview_path(xy, 4, &n, NULL, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_history_count(&v, NULL, QUIRE_HISTORY_UNDO), QUIRE_EINVAL);
    CHECK_STATUS(
        quire_tool_manager_step_description(text, sizeof text, &n, NULL, QUIRE_HISTORY_UNDO, 0),
        QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_reply(&v, NULL, "x"), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_set_state(&v, NULL, NULL, "Accepted"), QUIRE_EINVAL);
}

/* The image stamp and file attachment tools (issue 39): each places what the host gave the
 * manager ("the header": a tap with nothing given is QUIRE_ESTATE; "set above": the 2 by 2
 * gray PNG of test_support.c (test_gray_png), placed a pixel a point centred at the tap; the file's
 * bytes come back from the document). */
static void test_image_stamp_and_attachment(void) {
    static const char payload[] = "minutes of the meeting";
    quire_document *doc = open_corpus(LINKS_PDF, NULL);
    struct recorder r;
    quire_tool_manager *m;
    quire_annotation *a = NULL;
    quire_rect rect;
    char text[64];
    size_t len = 0;
    int32_t handled = -1, selected = 0;
    if (!doc) return;
    memset(&r, 0, sizeof r);
    m = new_manager(doc, &r);
    if (!m) {
        quire_document_close(doc);
        return;
    }
    CHECK_STATUS(
        quire_tool_manager_set_stamp_image(NULL, test_gray_png, sizeof test_gray_png, "image/png"),
        QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_set_stamp_image(m, test_gray_png, sizeof test_gray_png, NULL),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_set_stamp_image(m, test_gray_png, sizeof test_gray_png - 20,
                                                    "image/png"),
                 QUIRE_EFORMAT);
    CHECK_STATUS(quire_tool_manager_set_attachment(m, payload, 4, "a/b.txt", NULL, NULL),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_set_attachment(m, NULL, 4, "b.txt", NULL, NULL), QUIRE_EINVAL);
    /* Nothing given: a tap is refused and adds nothing. */
    CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_IMAGE_STAMP), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 400, 200),
                 QUIRE_ESTATE);
    CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_FILE_ATTACHMENT), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 400, 200),
                 QUIRE_ESTATE);
    /* The image stamp: 2 by 2 points centred at the tap, selected. */
    CHECK_STATUS(
        quire_tool_manager_set_stamp_image(m, test_gray_png, sizeof test_gray_png, "image/png"),
        QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_IMAGE_STAMP), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 400, 200), QUIRE_OK);
    CHECK_INT(handled, 1);
    CHECK_STATUS(quire_tool_manager_selection(&selected, m), QUIRE_OK);
    CHECK(selected > 0);
    CHECK_STATUS(quire_document_annotation(&a, doc, selected), QUIRE_OK);
    if (a) {
        CHECK_STATUS(quire_annotation_subtype(text, sizeof text, &len, a), QUIRE_OK);
        CHECK_STR(text, "Stamp");
        CHECK_STATUS(quire_annotation_rect(&rect, a), QUIRE_OK);
        CHECK(fabs(rect.left - 399) < 1e-9 && fabs(rect.bottom - 199) < 1e-9 &&
              fabs(rect.right - 401) < 1e-9 && fabs(rect.top - 201) < 1e-9);
        quire_annotation_free(a);
        a = NULL;
    }
    /* A drag fits it into the rectangle keeping its proportions (square: 40 by 40). */
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_BEGIN, 0, 100, 100),
                 QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_END, 0, 200, 140),
                 QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_selection(&selected, m), QUIRE_OK);
    CHECK_STATUS(quire_document_annotation(&a, doc, selected), QUIRE_OK);
    if (a) {
        CHECK_STATUS(quire_annotation_rect(&rect, a), QUIRE_OK);
        CHECK(fabs(rect.left - 130) < 1e-9 && fabs(rect.bottom - 100) < 1e-9 &&
              fabs(rect.right - 170) < 1e-9 && fabs(rect.top - 140) < 1e-9);
        quire_annotation_free(a);
        a = NULL;
    }
    /* The file attachment: its icon's top-left at the tap, the file embedded. */
    CHECK_STATUS(quire_tool_manager_set_attachment(m, payload, sizeof payload - 1, "minutes.txt",
                                                   "text/plain", "the minutes"),
                 QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_FILE_ATTACHMENT), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 300, 300), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_selection(&selected, m), QUIRE_OK);
    CHECK_STATUS(quire_document_annotation(&a, doc, selected), QUIRE_OK);
    if (a) {
        CHECK_STATUS(quire_annotation_subtype(text, sizeof text, &len, a), QUIRE_OK);
        CHECK_STR(text, "FileAttachment");
        CHECK_STATUS(quire_annotation_string(text, sizeof text, &len, a, QUIRE_ANNOT_FILE_NAME),
                     QUIRE_OK);
        CHECK_STR(text, "minutes.txt");
        CHECK_STATUS(quire_annotation_rect(&rect, a), QUIRE_OK);
        CHECK(fabs(rect.left - 300) < 1e-9 && fabs(rect.top - 300) < 1e-9 &&
              fabs(rect.right - 316) < 1e-9 && fabs(rect.bottom - 280) < 1e-9);
        quire_annotation_free(a);
        a = NULL;
    }
    CHECK_STATUS(quire_document_annotation_file(text, sizeof text, &len, doc, selected), QUIRE_OK);
    CHECK_INT(len, sizeof payload - 1);
    CHECK(len == sizeof payload - 1 && memcmp(text, payload, len) == 0);
    /* One undo step each: undoing the attachment removes it. */
    CHECK_STATUS(quire_tool_manager_undo(&handled, m), QUIRE_OK);
    CHECK_INT(handled, 1);
    CHECK_STATUS(quire_document_annotation(&a, doc, selected), QUIRE_ENOTFOUND);
    /* Removed again: a tap is refused. */
    CHECK_STATUS(quire_tool_manager_set_attachment(m, NULL, 0, NULL, NULL, NULL), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_TAP, 0, 300, 300),
                 QUIRE_ESTATE);
    quire_tool_manager_free(m);
    quire_document_close(doc);
}

static const struct test_case tools_tests[] = {
    {"coordinates", test_coordinates},
    {"hit_test", test_hit_test},
    {"walkthrough", test_walkthrough},
    {"create_move_undo", test_create_move_undo},
    {"every_tool", test_every_tool},
    {"form_filling", test_form_filling},
    {"text_markup", test_text_markup},
    {"text_hit_test", test_text_hit_test},
    {"custom_tools", test_custom_tools},
    {"errors", test_errors},
    {"undo_refuses_outside_changes", test_undo_refuses_outside_changes},
    {"history_and_locks", test_history_and_locks},
    {"selection_and_previews", test_selection_and_previews},
    {"style_replies_states", test_style_replies_states},
    {"issue31_errors", test_issue31_errors},
    {"image_stamp_and_attachment", test_image_stamp_and_attachment},
    {NULL, NULL}};

const struct test_suite tools_suite = {"tools", NULL, NULL, tools_tests};
