/**
 * @file quire/tools.h
 * @brief Tools: a headless tool manager (after PDFTron's Tools framework).
 *
 * A topic header of Quire's C interface. Programs include <quire.h>, which includes
 * every topic header; this one also compiles on its own, as it includes what it uses.
 * The conventions (status codes, ownership, strings, versioned structs) are in quire.h.
 */
#ifndef QUIRE_TOOLS_H
#define QUIRE_TOOLS_H

#include "common.h"
#include "document.h"
#include "annotations.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* Tools: a headless tool manager (after PDFTron's Tools framework)                      */
/* ------------------------------------------------------------------------------------ */

/*
 * Quire draws nothing: the host renders pages as it likes and sends its pointer events in
 * page coordinates (user space; `quire_page_device_to_page` converts a rendered page's
 * pixels). The manager passes each event to its current tool; a tool that cannot handle it
 * names the tool that replaces it, which gets the same event, until one handles it (at
 * most 8 replacements: past that the event is dropped, Pan becomes current and an
 * UNHANDLED event is reported). Every change goes through the document's annotation
 * functions, so the change log, checkpoints and sync see it; each call that changes the
 * document is one undo step.
 *
 * Undo and redo restore exactly: a step records every PDF object it changed, before and
 * after, and undoing it gives each back its state before (an undone deletion restores the
 * same object, at its place in /Annots, so the stacking order stays; no date is stamped
 * again). A step is refused (QUIRE_ESTATE, naming the annotation; it is dropped and nothing
 * changes) when an object it changed was changed outside the manager since: by a script,
 * another manager, or a collaborator's change applied by the sync client. Annotations others
 * added to or removed from the same page do not block it. A full save renumbers objects and
 * drops the history; an incremental save keeps it.
 *
 * Thread safety: a manager is used by one thread at a time, the one that uses its
 * document; its callbacks run on the thread that makes the call, before the call returns.
 */

/** A tool manager: owns a reference to its document (the document stays open until both
 *  are closed). */
typedef struct quire_tool_manager quire_tool_manager;

/** The built-in tools. */
typedef enum quire_tool {
    QUIRE_TOOL_PAN = 0x3000,         /**< the default: decides which tool a hit needs */
    QUIRE_TOOL_ANNOT_EDIT = 0x3001,  /**< select, move, resize by the 8 handles */
    QUIRE_TOOL_INK = 0x3002,         /**< strokes from drags, one annotation, committed on a tool change */
    QUIRE_TOOL_SQUARE = 0x3003,      /**< a drag's rectangle */
    QUIRE_TOOL_CIRCLE = 0x3004,
    QUIRE_TOOL_LINE = 0x3005,        /**< a drag from start to end */
    QUIRE_TOOL_ARROW = 0x3006,       /**< a line with an open arrow at its end */
    QUIRE_TOOL_POLYGON = 0x3007,     /**< a vertex per tap; a double tap closes it */
    QUIRE_TOOL_POLYLINE = 0x3008,
    QUIRE_TOOL_STICKY_NOTE = 0x3009, /**< a note where the user taps (then selected) */
    QUIRE_TOOL_FREE_TEXT = 0x300A,   /**< a text box at a tap or in a drag's rectangle (then selected) */
    QUIRE_TOOL_LINK = 0x300B,        /**< reports where a tapped link leads; does not navigate */
    QUIRE_TOOL_FORM_FILL = 0x300C,   /**< selects a tapped form field's widget and reports it */
    QUIRE_TOOL_SIGNATURE = 0x300D,   /**< ink strokes committed as an Ink annotation with /Subj Signature;
                                           drawn in an unsigned signature field, signs it when
                                           `quire_tool_manager_set_signing` is on */
    QUIRE_TOOL_HIGHLIGHT = 0x300E,   /**< text markup over the text a drag selects (character at start to character at end) */
    QUIRE_TOOL_UNDERLINE = 0x300F,
    QUIRE_TOOL_STRIKEOUT = 0x3010,
    QUIRE_TOOL_SQUIGGLY = 0x3011,
    QUIRE_TOOL_REDACT = 0x3012,      /**< a Redact annotation over the text a drag selects, or its rectangle
                                           where it selects none (applied with `quire_document_apply_redactions`) */
    QUIRE_TOOL_CARET = 0x3013,       /**< a Caret (12 by 16 points) with its tip where the user taps (then selected) */
    QUIRE_TOOL_CLOUD = 0x3014,       /**< a cloudy Polygon (intensity 1, /IT PolygonCloud): a vertex per tap, as the polygon */
    QUIRE_TOOL_CALLOUT = 0x3015,     /**< a FreeText callout: a drag from the point it points at to its text box (then selected) */
    QUIRE_TOOL_DISTANCE = 0x3016,    /**< a distance measurement (a Line) from a drag, at the manager's scale
                                           (`quire_tool_manager_set_measurement`) */
    QUIRE_TOOL_PERIMETER = 0x3017,   /**< a perimeter measurement (a PolyLine) from taps, as the polyline */
    QUIRE_TOOL_AREA = 0x3018,        /**< an area measurement (a Polygon) from taps, as the polygon */
    QUIRE_TOOL_IMAGE_STAMP = 0x3019, /**< a Stamp with the image of `quire_tool_manager_set_stamp_image`: centred at a tap
                                           (a pixel a point, the longer side at most 200 points) or fitted into a drag's
                                           rectangle keeping its proportions (then selected) */
    QUIRE_TOOL_FILE_ATTACHMENT = 0x301A, /**< a FileAttachment with the file of `quire_tool_manager_set_attachment`: its
                                               PushPin icon (16 by 20 points) with its top-left at a tap (then selected) */
    QUIRE_TOOL_CUSTOM = 0x30FF       /**< a host's tool (`quire_tool_manager_register_tool`); its name comes with it */
} quire_tool;

/** The pointer events a host sends. */
typedef enum quire_pointer_kind {
    QUIRE_POINTER_TAP = 0x3100,
    QUIRE_POINTER_DOUBLE_TAP = 0x3101,
    QUIRE_POINTER_LONG_PRESS = 0x3102,
    QUIRE_POINTER_DRAG_BEGIN = 0x3103,
    QUIRE_POINTER_DRAG_MOVE = 0x3104,
    QUIRE_POINTER_DRAG_END = 0x3105,
    QUIRE_POINTER_CANCEL = 0x3106
} quire_pointer_kind;

/** What a `quire_tool_event` reports. */
typedef enum quire_tool_event_kind {
    QUIRE_TOOL_EVENT_TOOL_CHANGED = 0x3200,       /**< `from_tool` to `to_tool` */
    QUIRE_TOOL_EVENT_SELECTION_CHANGED = 0x3201,  /**< `object_number` is selected (0: nothing) */
    QUIRE_TOOL_EVENT_ANNOTATION_ADDED = 0x3202,   /**< annotation `object_number` */
    QUIRE_TOOL_EVENT_ANNOTATION_MODIFIED = 0x3203,
    QUIRE_TOOL_EVENT_ANNOTATION_REMOVED = 0x3204,
    /** A link was tapped with the link tool: `uri`, or the destination `page_index`
     *  (-1 and a NULL `uri` for another action). */
    QUIRE_TOOL_EVENT_LINK_ACTIVATED = 0x3205,
    QUIRE_TOOL_EVENT_FIELD_ACTIVATED = 0x3206,    /**< the widget `object_number` was tapped with form filling */
    QUIRE_TOOL_EVENT_EDIT_REQUESTED = 0x3207,     /**< a double tap on annotation `object_number` */
    /** No tool handled the event (`pointer`, `page_index`, `x`, `y`): it was dropped. */
    QUIRE_TOOL_EVENT_UNHANDLED = 0x3208,
    /** A form field's value was set through the tools: `object_number` is the widget used
     *  (form filling toggles check boxes and radio buttons on a tap;
     *  `quire_tool_manager_set_field_value` sets any field). */
    QUIRE_TOOL_EVENT_FIELD_CHANGED = 0x3209
} quire_tool_event_kind;

/** One event, borrowed: valid only during the `on_event` call. */
typedef struct quire_tool_event {
    uint32_t version;            /**< QUIRE_TOOL_EVENT_VERSION */
    quire_tool_event_kind kind;  /**< what happened */
    quire_tool from_tool;        /**< TOOL_CHANGED */
    quire_tool to_tool;          /**< TOOL_CHANGED */
    const char *from_name;       /**< TOOL_CHANGED from a custom tool: its name; NULL otherwise */
    const char *to_name;         /**< TOOL_CHANGED to a custom tool: its name; NULL otherwise */
    int32_t object_number;       /**< the annotation; 0 when none */
    int32_t page_index;          /**< LINK_ACTIVATED: the destination; UNHANDLED: the event's page; else -1 */
    const char *uri;             /**< LINK_ACTIVATED: the URI; NULL otherwise */
    quire_pointer_kind pointer;  /**< UNHANDLED: the dropped event's kind */
    double x;                    /**< UNHANDLED: its point, x */
    double y;                    /**< UNHANDLED: its point, y */
} quire_tool_event;

/** The version of `quire_tool_event` this header describes. */
#define QUIRE_TOOL_EVENT_VERSION 1

/** Called with each event of `manager`, on the thread of the call that caused it, before
 *  that call returns. It may read the document, but must not call `manager`'s functions
 *  (they give QUIRE_ESTATE). */
typedef void (*quire_tool_event_fn)(quire_tool_manager *manager, const quire_tool_event *event, void *payload);

/** The callbacks of a tool manager. Initialise with QUIRE_TOOL_CALLBACKS_INIT or
 *  `quire_tool_callbacks_init`. `on_event` may be NULL. */
typedef struct quire_tool_callbacks {
    uint32_t version;             /**< QUIRE_TOOL_CALLBACKS_VERSION */
    quire_tool_event_fn on_event; /**< every event */
    void *payload;                /**< passed to `on_event` */
} quire_tool_callbacks;

/** The current version of `quire_tool_callbacks`. */
#define QUIRE_TOOL_CALLBACKS_VERSION 1
/** Initialiser for `quire_tool_callbacks`: no callbacks. */
#define QUIRE_TOOL_CALLBACKS_INIT { QUIRE_TOOL_CALLBACKS_VERSION, NULL, NULL }

/** Fills `callbacks` with the defaults of `version` (no callback).
 *  Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 *  Thread safety: any thread. */
QUIRE_API int quire_tool_callbacks_init(quire_tool_callbacks *callbacks, unsigned version);

/** How new annotations look. Initialise with QUIRE_TOOL_STYLE_INIT or `quire_tool_style_init`. */
typedef struct quire_tool_style {
    uint32_t version;        /**< QUIRE_TOOL_STYLE_VERSION */
    double red;              /**< /C, RGB in 0..1 (default 1, 0, 0: red): red */
    double green;            /**< green, 0..1 */
    double blue;             /**< blue, 0..1 */
    double border_width;     /**< points, >= 0 (default 2) */
    double opacity;          /**< /CA, 0..1 (default 1) */
    double font_size;        /**< free text, > 0 (default 12) */
    double tolerance;        /**< hit-test tolerance in points, >= 0 (default 4) */
    const char *author;      /**< /T of new annotations; NULL: none (copied) */
    const char *free_text;   /**< the text of new free text; NULL: "Text" (copied) */
} quire_tool_style;

/** The current version of `quire_tool_style`. */
#define QUIRE_TOOL_STYLE_VERSION 1
/** Initialiser for `quire_tool_style`: the defaults of its fields. */
#define QUIRE_TOOL_STYLE_INIT { QUIRE_TOOL_STYLE_VERSION, 1, 0, 0, 2, 1, 12, 4, NULL, NULL }

/** Fills `style` with the defaults of `version`.
 *  Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EVERSION. Thread safety: any thread. */
QUIRE_API int quire_tool_style_init(quire_tool_style *style, unsigned version);

/** What lies at a point (`quire_page_hit_test`). */
typedef enum quire_hit_kind {
    QUIRE_HIT_NONE = 0x3300,       /**< empty space */
    QUIRE_HIT_ANNOTATION = 0x3301, /**< an annotation that is not a link or a widget */
    QUIRE_HIT_LINK = 0x3302,
    QUIRE_HIT_WIDGET = 0x3303      /**< a form field's widget */
} quire_hit_kind;

/**
 * Converts a point of a rendered page's device pixels to user space, as PDFium's
 * `FPDF_DeviceToPage` (without its rounding): the page was rendered into the rectangle
 * (`start_x`, `start_y`, `size_x`, `size_y`) turned by `rotate` quarter turns clockwise on
 * top of its /Rotate; the page's crop box (clipped to its media box) fills it.
 * `start_x` and `start_y` may be any value; `size_x` and `size_y` must be positive.
 * Returns: QUIRE_OK; QUIRE_EINVAL (a NULL out, `rotate` not 0..3, a non-finite point, a
 * size that is not positive); QUIRE_ERANGE (no such page). Thread safety: as the document.
 */
QUIRE_API int quire_page_device_to_page(double *out_x, double *out_y, quire_document *doc, int32_t page_index,
                                        int32_t start_x, int32_t start_y, int32_t size_x, int32_t size_y,
                                        int32_t rotate, double device_x, double device_y);

/** The inverse of `quire_page_device_to_page` (PDFium's `FPDF_PageToDevice` without its
 *  rounding). Returns and thread safety: as `quire_page_device_to_page`. */
QUIRE_API int quire_page_page_to_device(double *out_x, double *out_y, quire_document *doc, int32_t page_index,
                                        int32_t start_x, int32_t start_y, int32_t size_x, int32_t size_y,
                                        int32_t rotate, double page_x, double page_y);

/**
 * The topmost annotation at (`x`, `y`) in user space of page `page_index`, within
 * `tolerance` points: the last in /Annots order that a viewer draws (not hidden, not
 * no-view, not a reply, not a popup) and that the point hits (lines, polylines and ink by
 * their strokes, the rest by /Rect). `*out_object` is its object number (0 for none, or an
 * annotation written directly in /Annots).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL outs, a non-finite point, a negative or non-finite
 * tolerance); QUIRE_ERANGE. Thread safety: as the document.
 */
QUIRE_API int quire_page_hit_test(quire_hit_kind *out_kind, int32_t *out_object, quire_document *doc,
                                  int32_t page_index, double x, double y, double tolerance);

/**
 * The text character at (`x`, `y`) in user space of page `page_index`: `*out_index` is the
 * index (as `quire_page_text_load` numbers the page's characters) of the first character,
 * in content order, whose box (`quire_text_char.box`) grown by `tolerance` points on each
 * side holds the point; -1 when none does (generated spaces and line breaks are never
 * hit). Unlike `quire_text_page_char_at`, which answers the nearest character, this tells
 * a host whether a point is on text at all (the text markup tools start there). It
 * extracts the page's text on each call: to test many points, load the text page once
 * and compare with `quire_text_page_char`.
 * Returns: QUIRE_OK (also when no character is hit); QUIRE_EINVAL (NULL `out_index` or
 * `doc`, a non-finite point, a negative or non-finite tolerance); QUIRE_ERANGE (no such
 * page); QUIRE_EFORMAT, QUIRE_ELIMIT (the page's content cannot be read).
 * Thread safety: as the document.
 */
QUIRE_API int quire_page_hit_test_text(int32_t *out_index, quire_document *doc, int32_t page_index,
                                       double x, double y, double tolerance);

/**
 * A new tool manager for `doc`, with Pan current and nothing selected. `callbacks` (may be
 * NULL) is copied. The manager holds a reference to the document.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EVERSION (callbacks of a newer version).
 * Thread safety: as the document.
 */
QUIRE_API int quire_tool_manager_new(quire_tool_manager **out, quire_document *doc,
                                     const quire_tool_callbacks *callbacks);

/** Frees `manager` (pending ink strokes are dropped: call `quire_tool_manager_commit`
 *  first to keep them). NULL is a no-op. */
QUIRE_API void quire_tool_manager_free(quire_tool_manager *manager);

/** Sets the style of new annotations (`style` is copied).
 *  Returns: QUIRE_OK; QUIRE_EINVAL (a value out of its range); QUIRE_EVERSION; QUIRE_ESTATE
 *  (called from a callback). */
QUIRE_API int quire_tool_manager_set_style(quire_tool_manager *manager, const quire_tool_style *style);

/** Makes `tool` current; the old tool finishes (pending strokes and vertices are
 *  committed). Returns: QUIRE_OK; QUIRE_EINVAL (an unknown tool, or QUIRE_TOOL_CUSTOM);
 *  QUIRE_ESTATE (called from a callback); what the document's annotation functions return. */
QUIRE_API int quire_tool_manager_set_tool(quire_tool_manager *manager, quire_tool tool);

/** The current tool (QUIRE_TOOL_CUSTOM for a host's tool). Returns: QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_tool_manager_current_tool(quire_tool *out, quire_tool_manager *manager);

/**
 * Sends a pointer event at (`x`, `y`) in user space of page `page_index` through the loop.
 * `*out_handled` (may be NULL) is 1 when a tool handled it, 0 when it was dropped.
 * Returns: QUIRE_OK; QUIRE_EINVAL (an unknown kind, a non-finite point); QUIRE_ERANGE (no
 * such page); QUIRE_ESTATE (called from a callback); what the document's annotation
 * functions return (the document then stays as it was before that change).
 */
QUIRE_API int quire_tool_manager_send(int32_t *out_handled, quire_tool_manager *manager, quire_pointer_kind kind,
                                      int32_t page_index, double x, double y);

/** The selected annotation's object number (0: nothing); with several selected, the first
 *  (`quire_tool_manager_selection_at` gives the others). Returns: QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_tool_manager_selection(int32_t *out_object, quire_tool_manager *manager);

/** Deletes the selected annotations (one undo step). A locked annotation (/F 128) cannot be
 *  deleted (ISO 32000-2 12.5.3): with one selected, nothing is deleted. Returns: QUIRE_OK;
 *  QUIRE_EINVAL; QUIRE_ESTATE (nothing selected, a locked annotation, or called from a
 *  callback); QUIRE_ENOTFOUND (the selected annotations are gone). */
QUIRE_API int quire_tool_manager_delete_selection(quire_tool_manager *manager);

/** Moves the selected annotations in their pages' drawing order (`order`, as
 *  `quire_document_move_annotation`), as one undo step ("Bring Forward Square", "Send to
 *  Back 2 annotations"). `*out_moved` (may be NULL) receives how many moved. Returns:
 *  QUIRE_OK; QUIRE_EINVAL (NULL manager, an order of another family); QUIRE_ESTATE
 *  (nothing selected, or called from a callback); QUIRE_ENOTFOUND (the selected
 *  annotations are gone). */
QUIRE_API int quire_tool_manager_move_selection(int32_t *out_moved, quire_tool_manager *manager, quire_annot_order order);

/** Sets the scale of the measurement tools (QUIRE_TOOL_DISTANCE, _PERIMETER, _AREA) for the
 *  annotations they make from now on, with the arguments of `quire_annotation_set_measurement`
 *  (a manager starts with 1 in = 1 in and 2 decimals; `from_unit` NULL goes back to it).
 *  Returns: QUIRE_OK; QUIRE_EINVAL (NULL manager, a scale `quire_annotation_set_measurement`
 *  refuses); QUIRE_ESTATE (called from a callback). */
QUIRE_API int quire_tool_manager_set_measurement(quire_tool_manager *manager, double from_value, const char *from_unit,
                                                 double to_value, const char *to_unit, int32_t precision);

/** Gives the image stamp tool (QUIRE_TOOL_IMAGE_STAMP) the image it places from now on:
 *  `length` bytes of a PNG or JPEG, `content_type` "image/png" or "image/jpeg", checked and
 *  copied now, as `quire_annotation_set_image` takes them. Each stamp the tool places
 *  stores its own copy in the document. `data` NULL and `length` 0 remove the image (a tap
 *  with the tool is then QUIRE_ESTATE). Returns: QUIRE_OK; QUIRE_EINVAL (NULL manager, NULL
 *  data with a length, NULL content_type); QUIRE_EFORMAT; QUIRE_ELIMIT (as
 *  `quire_annotation_set_image`); QUIRE_ESTATE (called from a callback). */
QUIRE_API int quire_tool_manager_set_stamp_image(quire_tool_manager *manager, const void *data, size_t length,
                                                 const char *content_type);

/** Gives the file attachment tool (QUIRE_TOOL_FILE_ATTACHMENT) the file it attaches from
 *  now on: `length` bytes named `file_name`, with an optional media type and description,
 *  checked and copied now, as `quire_annotation_set_file` takes them. Each annotation the
 *  tool places embeds its own copy. `data` NULL and `length` 0 remove the file (a tap with
 *  the tool is then QUIRE_ESTATE). Returns: QUIRE_OK; QUIRE_EINVAL (NULL manager, NULL data
 *  with a length, a name or media type `quire_annotation_set_file` refuses); QUIRE_ELIMIT
 *  (over 64 MiB); QUIRE_ESTATE (called from a callback). */
QUIRE_API int quire_tool_manager_set_attachment(quire_tool_manager *manager, const void *data, size_t length,
                                                const char *file_name, const char *content_type,
                                                const char *description);

/** Sets the selected annotation's /Contents (`text` NULL removes it; one undo step).
 *  Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ESTATE (nothing or several selected, contents
 *  locked by /F 512 LockedContents, or called from a callback); QUIRE_ENOTFOUND. */
QUIRE_API int quire_tool_manager_set_selection_contents(quire_tool_manager *manager, const char *text);

/**
 * Sets the value of the form field whose widget is selected (form filling selects the
 * tapped widget), through the forms functions' rules (`quire_field_set_value`): a text
 * field's text, a check box's or radio button's state ("Off" or an on-state), a choice
 * (list boxes: one choice per line). One undo step; reports FIELD_CHANGED.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or a value the field does not take); QUIRE_ESTATE
 * (nothing selected, a read-only field, or called from a callback); QUIRE_ENOTFOUND (the
 * selection is no field's widget); QUIRE_ERANGE (past /MaxLen); QUIRE_ELIMIT.
 */
QUIRE_API int quire_tool_manager_set_field_value(quire_tool_manager *manager, const char *value);

/**
 * A host's tool's handler, called with each event while its tool is current, on the thread
 * of `quire_tool_manager_send`. Set `*out_handled` to 1 when the tool handled the event;
 * to 0 to be replaced, then set `*out_next` to the built-in tool that replaces it, or to
 * QUIRE_TOOL_CUSTOM with `*out_next_name` naming a registered tool (the library copies
 * the name before the callback returns again). Both are preset to QUIRE_TOOL_PAN / NULL.
 * Return 0, or non-zero to fail the send with QUIRE_EUSER. The handler may read the
 * document; it must not call `manager`'s functions (QUIRE_ESTATE). Changes it makes to the
 * document itself are part of the send's undo step.
 */
typedef int (*quire_custom_tool_handle_fn)(int32_t *out_handled, quire_tool *out_next, const char **out_next_name,
                                           quire_tool_manager *manager, quire_pointer_kind kind, int32_t page_index,
                                           double x, double y, void *payload);

/** Called when the tool stops being current (another tool replaces it), on the thread of
 *  the call that replaces it. Non-zero fails that call with QUIRE_EUSER. */
typedef int (*quire_custom_tool_finish_fn)(quire_tool_manager *manager, void *payload);

/** Releases `payload`: when the tool is registered again under its name, or the manager
 *  is freed. */
typedef void (*quire_custom_tool_release_fn)(void *payload);

/** A host's tool, which takes part in the manager's loop like a built-in one. Initialise
 *  with QUIRE_CUSTOM_TOOL_INIT or `quire_custom_tool_init`. */
typedef struct quire_custom_tool {
    uint32_t version;                     /**< QUIRE_CUSTOM_TOOL_VERSION */
    const char *name;                     /**< the tool's name, unique per manager (copied); required */
    quire_custom_tool_handle_fn handle;   /**< required */
    quire_custom_tool_finish_fn finish;   /**< may be NULL */
    quire_custom_tool_release_fn release; /**< may be NULL */
    void *payload;                        /**< passed to the three */
} quire_custom_tool;

/** The current version of `quire_custom_tool`. */
#define QUIRE_CUSTOM_TOOL_VERSION 1
/** Initialiser for `quire_custom_tool`: no name, no callbacks, no payload. */
#define QUIRE_CUSTOM_TOOL_INIT { QUIRE_CUSTOM_TOOL_VERSION, NULL, NULL, NULL, NULL, NULL }

/** Fills `tool` with the defaults of `version`. Returns: QUIRE_OK; QUIRE_EINVAL;
 *  QUIRE_EVERSION. Thread safety: any thread. */
QUIRE_API int quire_custom_tool_init(quire_custom_tool *tool, unsigned version);

/** Registers a host's tool under `tool->name` (copied; a tool of that name is replaced and
 *  its payload released). Returns: QUIRE_OK; QUIRE_EINVAL (NULL, no name or no handler);
 *  QUIRE_EVERSION; QUIRE_ESTATE (called from a callback). */
QUIRE_API int quire_tool_manager_register_tool(quire_tool_manager *manager, const quire_custom_tool *tool);

/** Makes the registered tool `name` current (the old tool finishes). Returns: QUIRE_OK;
 *  QUIRE_EINVAL; QUIRE_ENOTFOUND (no tool of that name); QUIRE_ESTATE; QUIRE_EUSER (a
 *  finish callback failed); the annotation functions' statuses. */
QUIRE_API int quire_tool_manager_set_custom_tool(quire_tool_manager *manager, const char *name);

/** Commits what the current tool holds (ink strokes, polygon vertices) without changing
 *  the tool. Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ESTATE; the annotation functions' statuses. */
QUIRE_API int quire_tool_manager_commit(quire_tool_manager *manager);

/** Undoes the last step (one gesture) exactly, as the section's introduction says;
 *  `*out_done` (may be NULL) is 0 when there was none. What the current tool holds (ink
 *  strokes) is committed first, as a step of its own, which is the one undone. A step
 *  an object of which was changed outside the manager since is refused with QUIRE_ESTATE
 *  (the message names it), dropped, and nothing changes.
 *  Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ESTATE (refused, or called from a callback); the
 *  annotation functions' statuses. Thread safety: as the document. */
QUIRE_API int quire_tool_manager_undo(int32_t *out_done, quire_tool_manager *manager);

/** Redoes the last undone step exactly; `*out_done` (may be NULL) is 0 when there was none.
 *  Refused as `quire_tool_manager_undo` is, when an object it changes was changed outside
 *  the manager since the undo. Returns: as `quire_tool_manager_undo`. */
QUIRE_API int quire_tool_manager_redo(int32_t *out_done, quire_tool_manager *manager);

/* -- Issue 31: what a viewer needs: modifiers, multiple selection, previews, handles, the
 *    history, the style read back, replies and review states. ------------------------ */

/** Shift, in `quire_pointer_event.modifiers`: a tap on an annotation toggles it in the
 *  selection (on empty space it keeps the selection); a drag on empty space draws a rubber
 *  band that adds the annotations it meets; a drag on an annotation adds it and moves the
 *  selection. */
#define QUIRE_MODIFIER_SHIFT 0x1

/** A pointer event with the keys held (`quire_tool_manager_send_event`). Initialise with
 *  QUIRE_POINTER_EVENT_INIT or `quire_pointer_event_init`. */
typedef struct quire_pointer_event {
    uint32_t version;         /**< QUIRE_POINTER_EVENT_VERSION */
    quire_pointer_kind kind;  /**< what happened (default QUIRE_POINTER_TAP) */
    int32_t page_index;       /**< the page (default 0) */
    double x;                 /**< the point in user space, x */
    double y;                 /**< the point in user space, y */
    uint32_t modifiers;       /**< QUIRE_MODIFIER_* bits (default 0); other bits are ignored */
} quire_pointer_event;

/** The current version of `quire_pointer_event`. */
#define QUIRE_POINTER_EVENT_VERSION 1
/** Initialiser for `quire_pointer_event`: a tap at (0, 0) of page 0, no modifiers. */
#define QUIRE_POINTER_EVENT_INIT { QUIRE_POINTER_EVENT_VERSION, QUIRE_POINTER_TAP, 0, 0, 0, 0 }

/** Fills `event` with the defaults of `version`. Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or
 *  version 0); QUIRE_EVERSION (a newer version). Thread safety: any thread. */
QUIRE_API int quire_pointer_event_init(quire_pointer_event *event, unsigned version);

/**
 * Sends `*event` (read, not kept) through the loop, as `quire_tool_manager_send` does, with
 * its modifiers. `*out_handled` (may be NULL) is 1 when a tool handled it, 0 when it was
 * dropped.
 * Returns: as `quire_tool_manager_send`; QUIRE_EVERSION (an event of a newer version).
 * Thread safety: as the document.
 */
QUIRE_API int quire_tool_manager_send_event(int32_t *out_handled, quire_tool_manager *manager,
                                            const quire_pointer_event *event);

/**
 * The style of new annotations, into the fields of `out->version` (set by
 * QUIRE_TOOL_STYLE_INIT or `quire_tool_style_init`). `out->author` (NULL when there is
 * none) and `out->free_text` point to strings owned by the manager, valid until the next
 * `quire_tool_manager_set_style` on it or its `_free`. A colour of other than three
 * components (set through the Swift API) reads as RGB: gray g as (g, g, g), CMYK as
 * ((1 - c)(1 - k), (1 - m)(1 - k), (1 - y)(1 - k)), none as (0, 0, 0).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, version 0); QUIRE_EVERSION.
 * Thread safety: as the document.
 */
QUIRE_API int quire_tool_manager_style(quire_tool_style *out, quire_tool_manager *manager);

/** The selection, in the order its annotations were selected. */
typedef enum quire_selection_mode {
    QUIRE_SELECT_REPLACE = 0x3400, /**< the selection becomes what is given */
    QUIRE_SELECT_ADD = 0x3401,     /**< what is given joins the selection */
    QUIRE_SELECT_TOGGLE = 0x3402,  /**< each given annotation leaves it when in it, else joins it */
    QUIRE_SELECT_REMOVE = 0x3403   /**< what is given leaves the selection */
} quire_selection_mode;

/** How many annotations are selected (0: none). Returns: QUIRE_OK; QUIRE_EINVAL.
 *  Thread safety: as the document. */
QUIRE_API int quire_tool_manager_selection_count(int32_t *out_count, quire_tool_manager *manager);

/** The object number of selected annotation `index` (0 is the one
 *  `quire_tool_manager_selection` gives). Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE.
 *  Thread safety: as the document. */
QUIRE_API int quire_tool_manager_selection_at(int32_t *out_object, quire_tool_manager *manager, int32_t index);

/**
 * Changes the selection by annotation `object` as `mode` says (REPLACE with `object` 0
 * clears it). Reports SELECTION_CHANGED when it changed.
 * Returns: QUIRE_OK; QUIRE_EINVAL (an unknown mode); QUIRE_ENOTFOUND (`object` is no
 * annotation of the document: nothing changes); QUIRE_ESTATE (called from a callback).
 * Thread safety: as the document.
 */
QUIRE_API int quire_tool_manager_select(quire_tool_manager *manager, int32_t object, quire_selection_mode mode);

/**
 * Changes the selection, as `mode` says, by the annotations of page `page_index` whose
 * rectangle meets `*rect` (user space; a rubber band): those drawn on the page, not links
 * or form widgets. `*out_count` (may be NULL) is how many it met.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `rect`, a coordinate that is not finite, an
 * unknown mode); QUIRE_ERANGE (no such page); QUIRE_ESTATE (called from a callback).
 * Thread safety: as the document.
 */
QUIRE_API int quire_tool_manager_select_rect(int32_t *out_count, quire_tool_manager *manager, int32_t page_index,
                                             const quire_rect *rect, quire_selection_mode mode);

/**
 * The selection's resize handles, as x, y pairs in user space through the length-query
 * pattern for numbers (`buf` NULL and `capacity` 0 give the count in `*out_count`; 16
 * always suffices): the corners (left-bottom, right-bottom, left-top, right-top), then the
 * middles of the left, right, bottom and top edges; a drag that starts on one resizes the
 * annotation. None (a count of 0) unless exactly one annotation is selected, drawn on its
 * page, and neither locked nor read-only.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EBUFS (`buf` untouched).
 * Thread safety: as the document.
 */
QUIRE_API int quire_tool_manager_selection_handles(double *buf, size_t capacity, size_t *out_count,
                                                   quire_tool_manager *manager);

/** What a preview shows (`quire_tool_preview.kind`). */
typedef enum quire_preview_kind {
    QUIRE_PREVIEW_NONE = 0x3500,     /**< nothing is being drawn */
    QUIRE_PREVIEW_RECT = 0x3501,     /**< a drag's rectangle: square, circle, free text, text markup so far */
    QUIRE_PREVIEW_SEGMENT = 0x3502,  /**< a line's or arrow's segment: path 0 is its two points */
    QUIRE_PREVIEW_INK = 0x3503,      /**< ink strokes: one path each, the last possibly still drawn */
    QUIRE_PREVIEW_VERTICES = 0x3504, /**< a polygon's or polyline's vertices so far: path 0 (`closed` for a polygon) */
    QUIRE_PREVIEW_MOVE = 0x3505,     /**< the selection moved by `dx`, `dy`; `rect` its bounds moved */
    QUIRE_PREVIEW_RESIZE = 0x3506,   /**< the selected annotation resized to `rect` */
    QUIRE_PREVIEW_SELECT = 0x3507    /**< a rubber band selecting what `rect` meets */
} quire_preview_kind;

/** What the current tool is drawing and has not made yet, for the host to draw a preview
 *  without redoing the tool's logic. Initialise with QUIRE_TOOL_PREVIEW_INIT or
 *  `quire_tool_preview_init`. */
typedef struct quire_tool_preview {
    uint32_t version;         /**< QUIRE_TOOL_PREVIEW_VERSION */
    quire_preview_kind kind;  /**< what it shows */
    quire_tool tool;          /**< the tool drawing it */
    int32_t page_index;       /**< its page; -1 for NONE */
    quire_rect rect;          /**< the rectangle (normalized); for paths, their bounds */
    double dx;                /**< MOVE: how far the selection moved, x; else 0 */
    double dy;                /**< MOVE: how far, y; else 0 */
    int32_t path_count;       /**< paths to read with `quire_tool_manager_preview_path` */
    int32_t closed;           /**< 1 when the path closes (a polygon's vertices), else 0 */
} quire_tool_preview;

/** The current version of `quire_tool_preview`. */
#define QUIRE_TOOL_PREVIEW_VERSION 1
/** Initialiser for `quire_tool_preview`: nothing. */
#define QUIRE_TOOL_PREVIEW_INIT { QUIRE_TOOL_PREVIEW_VERSION, QUIRE_PREVIEW_NONE, QUIRE_TOOL_PAN, -1, {0, 0, 0, 0}, 0, 0, 0, 0 }

/** Fills `preview` with the defaults of `version` (nothing). Returns: QUIRE_OK; QUIRE_EINVAL;
 *  QUIRE_EVERSION. Thread safety: any thread. */
QUIRE_API int quire_tool_preview_init(quire_tool_preview *preview, unsigned version);

/**
 * What the current tool is drawing, into the fields of `out->version`: kind NONE when
 * nothing (custom tools draw no previews). Call it after each event to redraw.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EVERSION. Thread safety: as the document.
 */
QUIRE_API int quire_tool_manager_preview(quire_tool_preview *out, quire_tool_manager *manager);

/** Path `path` of the current preview (0 to `path_count` - 1), as x, y pairs in user
 *  space through the length-query pattern for numbers.
 *  Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE (no such path); QUIRE_EBUFS.
 *  Thread safety: as the document. */
QUIRE_API int quire_tool_manager_preview_path(double *buf, size_t capacity, size_t *out_count,
                                              quire_tool_manager *manager, int32_t path);

/** The two histories of a manager. */
typedef enum quire_history {
    QUIRE_HISTORY_UNDO = 0x3600, /**< the steps undo takes, the next one first */
    QUIRE_HISTORY_REDO = 0x3601  /**< the steps redo takes, the next one first */
} quire_history;

/** How many steps undo (or redo) can take: 0 means the Undo (Redo) command is unavailable.
 *  Returns: QUIRE_OK; QUIRE_EINVAL (an unknown history). Thread safety: as the document. */
QUIRE_API int quire_tool_manager_history_count(int32_t *out_count, quire_tool_manager *manager, quire_history which);

/**
 * What step `index` of a history does, for a menu ("Add Square", "Move 3 annotations",
 * "Delete Ink", "Edit Note", "Reply to Square", "Set state Accepted", "Fill Name"), in
 * English, through the length-query pattern: index 0 is the step the next undo (redo)
 * takes.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE (no such step); QUIRE_EBUFS.
 * Thread safety: as the document.
 */
QUIRE_API int quire_tool_manager_step_description(char *buf, size_t buf_size, size_t *out_len,
                                                  quire_tool_manager *manager, quire_history which, int32_t index);

/**
 * Adds a text reply with `contents` (UTF-8, copied) to the selected annotation, by the
 * style's author, as `quire_document_add_reply` does; one undo step; reports
 * ANNOTATION_ADDED. `*out_object` (may be NULL) is the reply's object number.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `contents`); QUIRE_ESTATE (nothing or several
 * selected, or called from a callback); QUIRE_ENOTFOUND (the selection is gone);
 * QUIRE_EDISABLED (replies are off for the document).
 * Thread safety: as the document.
 */
QUIRE_API int quire_tool_manager_reply(int32_t *out_object, quire_tool_manager *manager, const char *contents);

/**
 * Sets a review state on the selected annotation: a state reply by the style's author that
 * sets `state` in `model` ("Review": Accepted, Rejected, Cancelled, Completed, None;
 * "Marked": Marked, Unmarked; NULL `model` is "Review"), as
 * `quire_document_add_state_reply` does; one undo step. `*out_object` (may be NULL) is the
 * state reply's object number.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `state`, an unknown model, a state of another
 * model); QUIRE_ESTATE (nothing or several selected, or called from a callback);
 * QUIRE_ENOTFOUND; QUIRE_EDISABLED.
 * Thread safety: as the document.
 */
QUIRE_API int quire_tool_manager_set_state(int32_t *out_object, quire_tool_manager *manager, const char *model,
                                           const char *state);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_TOOLS_H */
