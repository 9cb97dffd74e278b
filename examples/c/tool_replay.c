/*
 * tool_replay.c: replays a recorded event script (JSON lines) against a document with
 * Quire's tool manager, prints each tool change and annotation change, and saves the
 * result incrementally. The same script format as examples/python/tool_replay.py (see
 * there, and examples/scripts/review_session.jsonl); JSON is read with Jansson.
 *
 *   examples/c/tool_replay IN.pdf SCRIPT.jsonl OUT.pdf
 */
#define _POSIX_C_SOURCE 200809L

#include <jansson.h>
#include <quire.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *name; quire_tool tool; } TOOLS[] = {
    { "pan", QUIRE_TOOL_PAN }, { "annot_edit", QUIRE_TOOL_ANNOT_EDIT }, { "ink", QUIRE_TOOL_INK },
    { "square", QUIRE_TOOL_SQUARE }, { "circle", QUIRE_TOOL_CIRCLE }, { "line", QUIRE_TOOL_LINE },
    { "arrow", QUIRE_TOOL_ARROW }, { "polygon", QUIRE_TOOL_POLYGON }, { "polyline", QUIRE_TOOL_POLYLINE },
    { "sticky_note", QUIRE_TOOL_STICKY_NOTE }, { "free_text", QUIRE_TOOL_FREE_TEXT }, { "link", QUIRE_TOOL_LINK },
    { "form_fill", QUIRE_TOOL_FORM_FILL }, { "signature", QUIRE_TOOL_SIGNATURE },
    { "highlight", QUIRE_TOOL_HIGHLIGHT }, { "underline", QUIRE_TOOL_UNDERLINE },
    { "strikeout", QUIRE_TOOL_STRIKEOUT }, { "squiggly", QUIRE_TOOL_SQUIGGLY },
};

static const struct { const char *name; quire_pointer_kind kind; } POINTERS[] = {
    { "tap", QUIRE_POINTER_TAP }, { "double_tap", QUIRE_POINTER_DOUBLE_TAP },
    { "long_press", QUIRE_POINTER_LONG_PRESS }, { "drag_begin", QUIRE_POINTER_DRAG_BEGIN },
    { "drag_move", QUIRE_POINTER_DRAG_MOVE }, { "drag_end", QUIRE_POINTER_DRAG_END },
    { "cancel", QUIRE_POINTER_CANCEL },
};

static const char *tool_name(quire_tool tool) {
    size_t i;
    for (i = 0; i < sizeof TOOLS / sizeof TOOLS[0]; i++)
        if (TOOLS[i].tool == tool) return TOOLS[i].name;
    return "custom";
}

/* Prints each event as examples/python/tool_replay.py does. */
static void on_event(quire_tool_manager *manager, const quire_tool_event *e, void *payload) {
    (void)manager;
    (void)payload;
    switch (e->kind) {
    case QUIRE_TOOL_EVENT_TOOL_CHANGED:
        printf("tool %s -> %s\n", tool_name(e->from_tool), tool_name(e->to_tool));
        break;
    case QUIRE_TOOL_EVENT_SELECTION_CHANGED:
        if (e->object_number) printf("selection_changed %d\n", (int)e->object_number);
        else printf("selection_changed -\n");
        break;
    case QUIRE_TOOL_EVENT_ANNOTATION_ADDED: printf("annotation_added %d\n", (int)e->object_number); break;
    case QUIRE_TOOL_EVENT_ANNOTATION_MODIFIED: printf("annotation_modified %d\n", (int)e->object_number); break;
    case QUIRE_TOOL_EVENT_ANNOTATION_REMOVED: printf("annotation_removed %d\n", (int)e->object_number); break;
    case QUIRE_TOOL_EVENT_LINK_ACTIVATED:
        if (e->uri) printf("link %d: %s\n", (int)e->object_number, e->uri);
        else printf("link %d: page %d\n", (int)e->object_number, (int)e->page_index);
        break;
    case QUIRE_TOOL_EVENT_FIELD_ACTIVATED: printf("field_activated %d\n", (int)e->object_number); break;
    case QUIRE_TOOL_EVENT_FIELD_CHANGED: printf("field_changed %d\n", (int)e->object_number); break;
    case QUIRE_TOOL_EVENT_EDIT_REQUESTED: printf("edit_requested %d\n", (int)e->object_number); break;
    case QUIRE_TOOL_EVENT_UNHANDLED: printf("unhandled on page %d at (%g, %g)\n", (int)e->page_index, e->x, e->y); break;
    }
}

/* Runs one step of the script; returns a quire status, or QUIRE_EINVAL for a step it
 * does not know. */
static int step(quire_tool_manager *m, json_t *line) {
    json_t *v;
    if ((v = json_object_get(line, "tool"))) {
        size_t i;
        for (i = 0; i < sizeof TOOLS / sizeof TOOLS[0]; i++)
            if (json_is_string(v) && strcmp(json_string_value(v), TOOLS[i].name) == 0)
                return quire_tool_manager_set_tool(m, TOOLS[i].tool);
        return QUIRE_EINVAL;
    }
    if ((v = json_object_get(line, "event"))) {
        size_t i;
        json_t *x = json_object_get(line, "x"), *y = json_object_get(line, "y"), *page = json_object_get(line, "page");
        if (!json_is_number(x) || !json_is_number(y)) return QUIRE_EINVAL;
        for (i = 0; i < sizeof POINTERS / sizeof POINTERS[0]; i++)
            if (json_is_string(v) && strcmp(json_string_value(v), POINTERS[i].name) == 0)
                return quire_tool_manager_send(NULL, m, POINTERS[i].kind, page ? (int32_t)json_integer_value(page) : 0,
                                               json_number_value(x), json_number_value(y));
        return QUIRE_EINVAL;
    }
    if ((v = json_object_get(line, "contents")))
        return quire_tool_manager_set_selection_contents(m, json_is_string(v) ? json_string_value(v) : NULL);
    if ((v = json_object_get(line, "field_value")))
        return json_is_string(v) ? quire_tool_manager_set_field_value(m, json_string_value(v)) : QUIRE_EINVAL;
    if ((v = json_object_get(line, "style"))) {
        quire_tool_style style = QUIRE_TOOL_STYLE_INIT;
        json_t *c = json_object_get(v, "color"), *w = json_object_get(v, "border_width"), *a = json_object_get(v, "author");
        if (json_is_array(c) && json_array_size(c) == 3) {
            style.red = json_number_value(json_array_get(c, 0));
            style.green = json_number_value(json_array_get(c, 1));
            style.blue = json_number_value(json_array_get(c, 2));
        }
        if (json_is_number(w)) style.border_width = json_number_value(w);
        if (json_is_string(a)) style.author = json_string_value(a);
        return quire_tool_manager_set_style(m, &style);
    }
    if (json_is_true(json_object_get(line, "delete"))) return quire_tool_manager_delete_selection(m);
    if (json_is_true(json_object_get(line, "undo"))) return quire_tool_manager_undo(NULL, m);
    if (json_is_true(json_object_get(line, "redo"))) return quire_tool_manager_redo(NULL, m);
    if (json_is_true(json_object_get(line, "commit"))) return quire_tool_manager_commit(m);
    return QUIRE_EINVAL;
}

int main(int argc, char **argv) {
    quire_document *doc = NULL;
    quire_tool_manager *m = NULL;
    quire_tool_callbacks callbacks = QUIRE_TOOL_CALLBACKS_INIT;
    char *text = NULL;
    size_t cap = 0;
    int number = 0, status = QUIRE_OK;
    FILE *script;

    if (argc != 4) {
        fprintf(stderr, "usage: %s IN.pdf SCRIPT.jsonl OUT.pdf\n", argv[0]);
        return 2;
    }
    if (quire_document_open(&doc, argv[1], NULL) != QUIRE_OK) {
        fprintf(stderr, "%s: %s\n", argv[1], quire_last_error_message());
        return 1;
    }
    callbacks.on_event = on_event;
    if (quire_tool_manager_new(&m, doc, &callbacks) != QUIRE_OK) {
        fprintf(stderr, "tool manager: %s\n", quire_last_error_message());
        quire_document_close(doc);
        return 1;
    }
    script = fopen(argv[2], "r");
    if (!script) {
        perror(argv[2]);
        status = QUIRE_EIO;
    }
    while (script && getline(&text, &cap, script) != -1) {
        json_error_t error;
        json_t *line;
        const char *p = text;
        number++;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '\n' || *p == '\0' || *p == '#') continue;
        line = json_loads(p, 0, &error);
        if (!json_is_object(line)) {
            fprintf(stderr, "%s:%d: not a JSON object: %s\n", argv[2], number, error.text);
            json_decref(line);
            status = QUIRE_EINVAL;
            break;
        }
        status = step(m, line);
        json_decref(line);
        if (status != QUIRE_OK) {
            fprintf(stderr, "%s:%d: %s: %s\n", argv[2], number, quire_status_string(status), quire_last_error_message());
            break;
        }
    }
    free(text);
    if (script) fclose(script);
    if (status == QUIRE_OK) status = quire_tool_manager_commit(m);
    quire_tool_manager_free(m);
    if (status == QUIRE_OK) {
        status = quire_document_save(doc, NULL, argv[3]);
        if (status == QUIRE_OK) printf("saved %s\n", argv[3]);
        else fprintf(stderr, "%s: %s\n", argv[3], quire_last_error_message());
    }
    quire_document_close(doc);
    return status == QUIRE_OK ? 0 : 1;
}
