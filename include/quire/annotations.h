/**
 * @file quire/annotations.h
 * @brief Annotations, replies and review states, and the bulk reads a viewer lists them
 * with.
 *
 * A topic header of Quire's C interface. Programs include <quire.h>, which includes
 * every topic header; this one also compiles on its own, as it includes what it uses.
 * The conventions (status codes, ownership, strings, versioned structs) are in quire.h.
 */
#ifndef QUIRE_ANNOTATIONS_H
#define QUIRE_ANNOTATIONS_H

#include "common.h"
#include "document.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* Annotations, replies and review states                                                */
/* ------------------------------------------------------------------------------------ */

/**
 * An annotation (ISO 32000-2 §12.5) as a value: a snapshot owned by the caller, released
 * with `quire_annotation_free`, independent of the document's lifetime. Read one from a
 * page, change it with the setters, and write it back with
 * `quire_document_update_annotation`; or make one with `quire_annotation_new` and add it
 * with `quire_document_add_annotation`. Thread safety: one thread at a time per value.
 */
typedef struct quire_annotation quire_annotation;

/**
 * A list of annotations (a thread, a review history, search results), owned by the caller
 * and released with `quire_annotation_list_free`.
 */
typedef struct quire_annotation_list quire_annotation_list;

/** Text fields of an annotation, for `quire_annotation_string` and its setter. */
typedef enum quire_annot_string_field {
    QUIRE_ANNOT_CONTENTS = 0x0700, /**< /Contents: the text */
    QUIRE_ANNOT_AUTHOR = 0x0701, /**< /T; never set for a Widget, whose /T is its form field's name (setting it is refused when the widget is added or updated) */
    QUIRE_ANNOT_SUBJECT = 0x0702, /**< /Subj */
    QUIRE_ANNOT_UNIQUE_NAME = 0x0703, /**< /NM: the unique name (a UUID for new ones) */
    QUIRE_ANNOT_CREATION_DATE = 0x0704, /**< /CreationDate, a PDF date: D:YYYYMMDDHHmmSSOHH'mm */
    QUIRE_ANNOT_MODIFICATION_DATE = 0x0705, /**< /M, a PDF date */
    QUIRE_ANNOT_STATE = 0x0706, /**< /State of a state reply (see the state models) */
    QUIRE_ANNOT_STATE_MODEL = 0x0707, /**< /StateModel: "Marked" or "Review" */
    QUIRE_ANNOT_REPLY_TYPE = 0x0708, /**< /RT: "R" (reply) or "Group" */
    QUIRE_ANNOT_DEFAULT_APPEARANCE = 0x0709, /**< /DA of free text, such as "/Helv 12 Tf 0 g" */
    QUIRE_ANNOT_ICON = 0x070A, /**< /Name: a note's icon or a stamp's name */
    QUIRE_ANNOT_LINE_START = 0x070B, /**< the first /LE line ending of a Line or PolyLine (a FreeText callout's one /LE): None, Square, Circle, Diamond, OpenArrow, ClosedArrow, Butt, ROpenArrow, RClosedArrow or Slash (Table 179; another name is drawn as None) */
    QUIRE_ANNOT_LINE_END = 0x070C, /**< the second /LE line ending */
    QUIRE_ANNOT_CUSTOM_DATA = 0x070D, /**< the application's own data (JSON text) */
    /** The id of the annotation it replies to when that one is not in the document (a
     *  deleted parent: links are ids, docs/annotation-json.md "Links"): /QuireIRT.
     *  Read-only (setting it is QUIRE_EINVAL); not set when /IRT names an annotation. */
    QUIRE_ANNOT_IN_REPLY_TO_ID = 0x070E,
    /** /BS /S, the border style: "S" solid, "D" dashed (with QUIRE_ANNOT_DASH_PATTERN),
     *  "B" beveled, "I" inset, "U" underline (ISO 32000-2 Table 168); another name is
     *  QUIRE_EINVAL. Drawn on Square, Circle, Line, Polygon, PolyLine, Ink and FreeText
     *  borders (beveled, inset and underline on Square and FreeText). */
    QUIRE_ANNOT_BORDER_STYLE = 0x070F,
    /** /Sy of a Caret: "P" (a paragraph symbol follows) or "None"; another value is
     *  QUIRE_EINVAL */
    QUIRE_ANNOT_SYMBOL = 0x0710,
    /** /IT, the intent: "FreeTextCallout" (drawn with its callout line) or
     *  "FreeTextTypeWriter" (drawn as its text alone) for FreeText; any other name is kept
     *  (LineArrow, PolygonCloud, ...); an empty one is QUIRE_EINVAL */
    QUIRE_ANNOT_INTENT = 0x0711,
    /** /OverlayText of a Redact annotation: the text drawn over the fill colour
     *  (QUIRE_ANNOT_INTERIOR_COLOR) when the redaction is applied, in the size and colour of
     *  QUIRE_ANNOT_DEFAULT_APPEARANCE and aligned by QUIRE_ANNOT_ALIGNMENT (see
     *  quire/redaction.h) */
    QUIRE_ANNOT_OVERLAY_TEXT = 0x0712,
    /** The name of a FileAttachment's file (its /FS /UF, else /F, last path component);
     *  read-only: quire_annotation_set_file sets it */
    QUIRE_ANNOT_FILE_NAME = 0x0713,
    /** The description of a FileAttachment's file (/FS /Desc); read-only, as the name */
    QUIRE_ANNOT_FILE_DESCRIPTION = 0x0714,
    /** The media type of a FileAttachment's file (the embedded file stream's /Subtype,
     *  such as "application/pdf"); read-only, as the name */
    QUIRE_ANNOT_FILE_CONTENT_TYPE = 0x0715,
    /** The page unit of a measurement's scale (/Measure /R): pt, in, mm or cm. Read-only:
     *  quire_annotation_set_measurement sets the scale */
    QUIRE_ANNOT_MEASURE_FROM_UNIT = 0x0716,
    /** The world unit of a measurement's scale: pt, in, mm, cm, ft, m, yd, km or mi (an
     *  area is in its square, "sq" and this unit in /Contents); read-only, as the page unit */
    QUIRE_ANNOT_MEASURE_TO_UNIT = 0x0717,
    /** /BM, the blend mode of the appearance (ISO 32000-2 Table 134: Normal, Multiply,
     *  Screen, Overlay, Darken, Lighten, ColorDodge, ColorBurn, HardLight, SoftLight,
     *  Difference, Exclusion, Hue, Saturation, Color, Luminosity; another name is
     *  QUIRE_EINVAL), drawn through the appearance's graphics state */
    QUIRE_ANNOT_BLEND_MODE = 0x0718,
    /** /RC, rich text (ISO 32000-2 §12.7.4.3): XHTML with `p`, `b`, `i` and `span` and the
     *  style properties of Table 388. Setting it sanitizes it (other elements and
     *  attributes are dropped, docs/annotation-json.md "Comments and rich text") and sets
     *  QUIRE_ANNOT_CONTENTS to its plain text; not well-formed XHTML is QUIRE_EFORMAT, over
     *  1 MiB or nested deeper than 64 QUIRE_ELIMIT. A FreeText draws it with its styles
     *  (bold, italic, colour, size, font family, underline, alignment; docs/annotations.md) */
    QUIRE_ANNOT_RICH_TEXT = 0x0719,
    /** /CP of a Line with a caption (QUIRE_ANNOT_CAPTION): "Inline" (centred in the line,
     *  which is broken around it; the default) or "Top" (on top of the line); another
     *  value is QUIRE_EINVAL */
    QUIRE_ANNOT_CAPTION_POSITION = 0x071A,
    /** /DS, a FreeText's default style string (ISO 32000-2 §12.7.4.3: Table 388's
     *  properties, as "font: 12pt Helvetica; color:#FF0000"). It is the base style of the
     *  rich text's runs and, without rich text, the style /Contents is drawn in (font
     *  family, size, colour, alignment; docs/annotations.md "Default style") */
    QUIRE_ANNOT_DEFAULT_STYLE = 0x071B
} quire_annot_string_field;
typedef enum quire_annot_number_field {
    QUIRE_ANNOT_OPACITY = 0x0800, /**< /CA, 0 to 1 */
    QUIRE_ANNOT_BORDER_WIDTH = 0x0801, /**< /BS /W */
    QUIRE_ANNOT_FONT_SIZE = 0x0802, /**< the size in /DA of free text (read-only) */
    QUIRE_ANNOT_FLAGS = 0x0803, /**< /F, ISO 32000-2 Table 167 (an integer) */
    /** The intensity of a cloudy border (/BE /S /C /I), 0 to 10 (the standard names 0 to
     *  2); setting 0 removes the effect. Drawn on Square, Circle and Polygon as Acrobat
     *  draws it: overlapping curls of radius 4 × intensity + half the border width (4.75 ×
     *  on a Circle; docs/annotations.md). When a cloudy Square or Circle is added or
     *  updated its /Rect becomes the cloud's bounds and its /RD the inset to the outline,
     *  as Acrobat writes them; a cloudy Polygon's /Rect grows to hold the cloud. */
    QUIRE_ANNOT_CLOUDY_INTENSITY = 0x0804,
    /** /Q of FreeText and of a Redact annotation's overlay text: 0 left, 1 centred, 2
     *  right (another value is QUIRE_EINVAL) */
    QUIRE_ANNOT_ALIGNMENT = 0x0805,
    /** /Repeat of a Redact annotation: 1 repeats the overlay text to fill the region, 0
     *  draws it once (the default); another value is QUIRE_EINVAL */
    QUIRE_ANNOT_REPEAT = 0x0806,
    /** The page value of a measurement's scale (from_value of
     *  quire_annotation_set_measurement); read-only */
    QUIRE_ANNOT_MEASURE_FROM_VALUE = 0x0807,
    /** The world value of a measurement's scale (to_value); read-only */
    QUIRE_ANNOT_MEASURE_TO_VALUE = 0x0808,
    /** The decimals a measurement shows, 0 to 4; read-only */
    QUIRE_ANNOT_MEASURE_PRECISION = 0x0809,
    /** The measured value in the scale's world unit (square units for an area), computed
     *  from the geometry: the length of a Line's /L, of a PolyLine's path, or the area a
     *  Polygon encloses; read-only (QUIRE_ENOTFOUND without a scale or geometry) */
    QUIRE_ANNOT_MEASURED_VALUE = 0x080A,
    /** /Rotate of FreeText and Stamp: 0, 90, 180 or 270 degrees counterclockwise (another
     *  value, or another subtype with a turn, is QUIRE_EINVAL when set or added). The
     *  appearance is drawn turned inside /Rect, which the caller sizes to the turned box */
    QUIRE_ANNOT_ROTATION = 0x080B,
    /** /Cap of a Line (ISO 32000-2 Table 178): 1 draws its /Contents as a caption placed by
     *  QUIRE_ANNOT_CAPTION_POSITION and QUIRE_ANNOT_CAPTION_OFFSET (a measured distance's
     *  value then takes that place instead of Quire's own label's), 0 does not (the
     *  default); another value is QUIRE_EINVAL */
    QUIRE_ANNOT_CAPTION = 0x080C
} quire_annot_number_field;
typedef enum quire_annot_color_field {
    QUIRE_ANNOT_COLOR = 0x0900, /**< /C */
    QUIRE_ANNOT_INTERIOR_COLOR = 0x0901 /**< /IC */
} quire_annot_color_field;
typedef enum quire_annot_points_field {
    QUIRE_ANNOT_QUAD_POINTS = 0x0A00, /**< /QuadPoints of text markup: 8 numbers per quadrilateral */
    QUIRE_ANNOT_LINE = 0x0A01, /**< /L of a line: x1 y1 x2 y2 */
    QUIRE_ANNOT_VERTICES = 0x0A02, /**< /Vertices of polygons and polylines */
    /** /BS /D: the dash and gap lengths of a dashed border (at most 16, each 0 or more,
     *  not all 0; any count, odd too); none draws 3 on, 3 off */
    QUIRE_ANNOT_DASH_PATTERN = 0x0A03,
    /** /RD: how far the drawing lies inside /Rect, left bottom right top (4 numbers of 0
     *  or more, or none): a Square's, Circle's or FreeText's border, and a cloud */
    QUIRE_ANNOT_RECT_DIFFERENCES = 0x0A04,
    /** /CL of a FreeText callout: x1 y1 (the point it points at, where QUIRE_ANNOT_LINE_START
     *  is drawn), an optional knee x2 y2, and x3 y3 at the text box: 4 or 6 numbers, or none */
    QUIRE_ANNOT_CALLOUT_LINE = 0x0A05,
    /** /CO of a Line with a caption: its offset from where it would be, along the line
     *  (positive to the right, as the caption reads) and across it (positive up): 2 finite
     *  numbers, or none */
    QUIRE_ANNOT_CAPTION_OFFSET = 0x0A06
} quire_annot_points_field;

/**
 * Makes a new annotation of `subtype` for page `page_index` at `rect`. It is not in any
 * document until added, and only "Text", "FreeText", "Line", "Square", "Circle", "Polygon",
 * "PolyLine", "Highlight", "Underline", "Squiggly", "StrikeOut", "Ink", "Stamp", "Caret",
 * "Redact" and "FileAttachment" (with its file: `quire_annotation_set_file`) can be added
 * (another name makes a value that `quire_document_add_annotation` refuses with
 * QUIRE_EUNSUPPORTED).
 * out: receives a new annotation owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments, an empty subtype, a negative page, a
 * rectangle that is not finite).
 */
QUIRE_API int quire_annotation_new(quire_annotation **out, const char *subtype, int32_t page_index,
                         const quire_rect *rect);

/** Releases an annotation. NULL is a no-op. */
QUIRE_API void quire_annotation_free(quire_annotation *annotation);

/**
 * Annotation `index` of page `page_index`, in /Annots order.
 * out: receives a new annotation owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE (page or index); QUIRE_ENOTFOUND (a
 * missing page, as for `quire_page_box`).
 */
QUIRE_API int quire_page_annotation(quire_annotation **out, quire_document *doc, int32_t page_index,
                          int32_t index);

/**
 * The annotation that is indirect object `number`, wherever its page is.
 * out: receives a new annotation owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND (no page lists that object).
 */
QUIRE_API int quire_document_annotation(quire_annotation **out, quire_document *doc, int32_t number);

/**
 * The object number of an annotation of a document (what the reply and thread functions
 * take). QUIRE_ENOTFOUND for an annotation not added yet, or one written directly in a
 * page's /Annots (such an annotation can be read but not replied to).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND.
 */
QUIRE_API int quire_annotation_id(int32_t *out_number, const quire_annotation *annotation);

/**
 * The record id of `annotation`, an annotation of `doc` (read from it or stored in it):
 * the `id` its record has in the annotation JSON (`quire_document_export_annotations_json`)
 * and on the sync server, which the sync client's events name (`record_id`, `record_ids`
 * of `quire_sync_event`). The rule is docs/annotation-json.md's: its /QuireID, else its
 * /NM, else its object number, made unique in page order; so the call reads the
 * annotations of every page up to the annotation's. Through the length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND (its page does not list it: not added
 * yet, or deleted since); QUIRE_EBUFS.
 */
QUIRE_API int quire_document_annotation_record_id(char *buf, size_t buf_size, size_t *out_len, quire_document *doc,
                                                  const quire_annotation *annotation);

/**
 * The annotation of `doc` whose record id (see `quire_document_annotation_record_id`) is
 * `record_id`: what a sync client's event names, as an annotation to read or change. The
 * call reads the annotations of every page; to look up many ids, read the annotation
 * JSON once instead.
 * out: receives a new annotation owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments, an empty `record_id`); QUIRE_ENOTFOUND
 * (no annotation has that record id).
 */
QUIRE_API int quire_document_annotation_by_record_id(quire_annotation **out, quire_document *doc,
                                                     const char *record_id);

/**
 * The page of an annotation (0-based).
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_annotation_page_index(int32_t *out, const quire_annotation *annotation);

/**
 * The subtype of an annotation, such as "Square", through the length-query pattern. Any
 * subtype reads, including those Quire does not create.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EBUFS.
 */
QUIRE_API int quire_annotation_subtype(char *buf, size_t buf_size, size_t *out_len,
                             const quire_annotation *annotation);

/**
 * The rectangle (/Rect) of an annotation, and its setter.
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_annotation_rect(quire_rect *out, const quire_annotation *annotation);
QUIRE_API int quire_annotation_set_rect(quire_annotation *annotation, const quire_rect *rect);

/**
 * A text field (QUIRE_ANNOT_CONTENTS, ...) as UTF-8, through the length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL (unknown field); QUIRE_ENOTFOUND (the field is not set);
 * QUIRE_EBUFS.
 */
QUIRE_API int quire_annotation_string(char *buf, size_t buf_size, size_t *out_len,
                            const quire_annotation *annotation, quire_annot_string_field field);

/**
 * Sets a text field from NUL-terminated UTF-8; NULL clears it. Dates must be PDF dates.
 * State and state model are checked together when the annotation is written to a document.
 * Returns: QUIRE_OK; QUIRE_EINVAL (unknown field, a malformed date or reply type).
 */
QUIRE_API int quire_annotation_set_string(quire_annotation *annotation, quire_annot_string_field field,
                                const char *value);

/**
 * A number field (QUIRE_ANNOT_OPACITY, ...) and its setter.
 * Returns: QUIRE_OK; QUIRE_EINVAL (unknown or read-only field, a value out of range);
 * QUIRE_ENOTFOUND (the field is not set).
 */
QUIRE_API int quire_annotation_number(double *out, const quire_annotation *annotation,
                            quire_annot_number_field field);
QUIRE_API int quire_annotation_set_number(quire_annotation *annotation, quire_annot_number_field field,
                                double value);

/**
 * A colour (QUIRE_ANNOT_COLOR or QUIRE_ANNOT_INTERIOR_COLOR): its components (0 to 4: none,
 * gray, RGB or CMYK, each 0 to 1), through the length-query pattern for numbers: their
 * number into `*out_count`, and the components into `out` when `capacity` holds them
 * (`out` NULL and `capacity` 0 give the count only; 4 always suffices).
 * Returns: QUIRE_OK (a count of 0 when unset); QUIRE_EINVAL; QUIRE_EBUFS (`capacity` too
 * small: `out` is untouched).
 */
QUIRE_API int quire_annotation_color(double *out, size_t capacity, size_t *out_count,
                           const quire_annotation *annotation, quire_annot_color_field which);

/**
 * Sets a colour from `count` components (0 clears it; 1, 3 or 4).
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_annotation_set_color(quire_annotation *annotation, quire_annot_color_field which,
                               const double *components, size_t count);

/**
 * A list of numbers (QUIRE_ANNOT_QUAD_POINTS, QUIRE_ANNOT_LINE, QUIRE_ANNOT_VERTICES,
 * QUIRE_ANNOT_DASH_PATTERN, QUIRE_ANNOT_RECT_DIFFERENCES, QUIRE_ANNOT_CALLOUT_LINE), through the
 * length-query pattern for numbers: `buf` NULL and `capacity` 0 give the count in
 * `*out_count`; a buffer too small gives QUIRE_EBUFS.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EBUFS.
 */
QUIRE_API int quire_annotation_points(double *buf, size_t capacity, size_t *out_count,
                            const quire_annotation *annotation, quire_annot_points_field kind);

/**
 * Sets a list of numbers from `count` numbers (an even count for points; 0 clears it).
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_annotation_set_points(quire_annotation *annotation, quire_annot_points_field kind,
                                const double *points, size_t count);

/**
 * Gives a Stamp an image: `length` bytes of a PNG (8-bit gray or RGB, with or without
 * alpha, not interlaced) or a JPEG (8-bit gray or RGB), `content_type` "image/png" or
 * "image/jpeg". The bytes are checked (decoded) now and copied; the image is stored in the
 * document, scaled to the rectangle as the stamp's appearance, when the annotation is added
 * (`quire_document_add_annotation`) or written back (`quire_document_update_annotation`),
 * and the annotation JSON exports it as a "pspdfkit/image" record with its attachment.
 * `data` NULL and `length` 0 forget an image not stored yet (`content_type` is then
 * ignored); a stored image stays until another replaces it. Only a Stamp may have one
 * (adding another subtype with an image is QUIRE_EINVAL).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL annotation, NULL data with a length, NULL
 * content_type); QUIRE_EFORMAT (not a PNG or JPEG Quire reads, or another content type);
 * QUIRE_ELIMIT (over 16 MiB, or over 20,000 pixels a side or 40 million in all).
 */
QUIRE_API int quire_annotation_set_image(quire_annotation *annotation, const void *data, size_t length,
                                         const char *content_type);

/**
 * Gives a FileAttachment the file to embed: `length` bytes (copied now), its name
 * `file_name` (no directory: a name with "/", "\\" or a NUL is refused), its media type
 * `content_type` ("type/subtype", or NULL for none) and a `description` shown by viewers
 * (or NULL). The file is stored in the document, Flate-compressed, under a file
 * specification (/FS with /F, /UF, /Desc and /EF) when the annotation is added
 * (`quire_document_add_annotation`, where a FileAttachment without a file is
 * QUIRE_EINVAL) or written back (`quire_document_update_annotation`, which replaces the
 * file); its /Name (QUIRE_ANNOT_ICON: PushPin, the default, Paperclip, Graph or Tag) is
 * drawn as its appearance in /C. `data` NULL and `length` 0 forget a file not stored yet.
 * Only a FileAttachment may have one. The annotation JSON (`pspdfkit/file` with its
 * `attachments`) and XFDF (`<data>`) carry the file, and a synced document's layer record
 * names it by its SHA-256: the sync client uploads it as an attachment of the document
 * before it pushes the record (docs/sync-protocol.md, "Attachments").
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL annotation, NULL data with a length, NULL or
 * invalid file_name, a content_type that is not type/subtype); QUIRE_ELIMIT (over 64 MiB).
 */
QUIRE_API int quire_annotation_set_file(quire_annotation *annotation, const void *data, size_t length,
                                        const char *file_name, const char *content_type, const char *description);

/**
 * Makes a Line, PolyLine or Polygon a measurement (ISO 32000-2 §12.9): a distance, a
 * perimeter or an area at the scale "`from_value` `from_unit` = `to_value` `to_unit`"
 * (that much on the page is that much in the world; page units "pt", "in", "mm", "cm",
 * world units those and "ft", "m", "yd", "km", "mi"), shown with `precision` decimals (0
 * to 4). When the annotation is added or written back, its /Measure (a rectilinear measure
 * dictionary with /R, /X, /D and /A number formats) is written, its intent
 * (QUIRE_ANNOT_INTENT) becomes LineDimension, PolyLineDimension or PolygonDimension, and
 * its contents (QUIRE_ANNOT_CONTENTS) the measured value as viewers show it, such as
 * "12.50 cm" or "3.20 sq m" (QUIRE_ANNOT_MEASURED_VALUE gives the number). `from_unit`
 * NULL removes the scale (the other arguments are then ignored). The scale is read back
 * through QUIRE_ANNOT_MEASURE_FROM_VALUE, _FROM_UNIT, _TO_VALUE, _TO_UNIT and _PRECISION.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL annotation, NULL to_unit with a from_unit, a
 * value not above 0 or over 1e9, an unknown unit, a precision outside 0 to 4, another
 * subtype).
 */
QUIRE_API int quire_annotation_set_measurement(quire_annotation *annotation, double from_value, const char *from_unit,
                                               double to_value, const char *to_unit, int32_t precision);

/**
 * The bytes of the file that FileAttachment `number` of the document embeds (decoded),
 * through the length-query pattern (binary-safe; a NUL follows the bytes). The name,
 * media type and description are QUIRE_ANNOT_FILE_NAME, QUIRE_ANNOT_FILE_CONTENT_TYPE and
 * QUIRE_ANNOT_FILE_DESCRIPTION of the annotation.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND (no annotation is object `number`, or
 * it embeds no file: another subtype, or a file specification that names a file outside
 * the document); QUIRE_EFORMAT (the file's stream cannot be decoded); QUIRE_ELIMIT (over
 * 64 MiB decoded); QUIRE_EBUFS.
 */
QUIRE_API int quire_document_annotation_file(char *buf, size_t buf_size, size_t *out_len, quire_document *doc,
                                             int32_t number);

/**
 * The ink strokes (/InkList): their number, and stroke `stroke` as x, y pairs through the
 * length-query pattern for numbers.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_EBUFS.
 */
QUIRE_API int quire_annotation_ink_stroke_count(int32_t *out, const quire_annotation *annotation);
QUIRE_API int quire_annotation_ink_stroke(double *buf, size_t capacity, size_t *out_count,
                                const quire_annotation *annotation, int32_t stroke);

/**
 * Appends an ink stroke of `count` numbers (x, y pairs), or removes all strokes when
 * `points` is NULL and `count` is 0.
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_annotation_add_ink_stroke(quire_annotation *annotation, const double *points, size_t count);

/**
 * Whether the annotation replies to another: 1 or 0; and the object number of the
 * annotation it replies to (/IRT). A reply whose parent was deleted stays a reply, to its
 * parent's id (its annotation JSON's `quire.inReplyTo`; docs/annotation-json.md, "Links"):
 * `is_reply` gives 1 and `in_reply_to` QUIRE_ENOTFOUND, as there is no object to name.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND (for the target: not a reply, or its
 * parent is not in the document).
 */
QUIRE_API int quire_annotation_is_reply(int32_t *out, const quire_annotation *annotation);
QUIRE_API int quire_annotation_in_reply_to(int32_t *out_number, const quire_annotation *annotation);

/**
 * Adds `annotation` to the document, on its page: a new object with a unique name
 * (/NM: the annotation's own, unless that name is already on the page or unset, then a
 * new UUID), creation and modification dates, and a generated appearance stream. A copy
 * of another annotation does not take over that annotation's popup. Flags 0 become Print
 * (4), except for state replies. On success `annotation` is updated to what was stored
 * (its id, name and dates).
 * Returns: QUIRE_OK; QUIRE_EINVAL (an invalid reply target or state); QUIRE_ERANGE (page);
 * QUIRE_ENOTFOUND (a page missing from the page tree: see `quire_document_page_count`);
 * QUIRE_EUNSUPPORTED (a subtype Quire does not create); QUIRE_EDISABLED (a reply while
 * replies are off); QUIRE_ESTATE (the document's certification signature does not allow
 * annotations: see `quire_document_set_signature_guard`, quire/signatures.h).
 */
QUIRE_API int quire_document_add_annotation(quire_document *doc, quire_annotation *annotation);

/**
 * Writes the changed `annotation` back to its object: the fields that differ from what is
 * stored are rewritten (other entries are kept, including ones the model could not read),
 * the modification date and the appearance renewed.
 * On success `annotation` is updated to what was stored.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND (not in the document);
 * QUIRE_EDISABLED (a change of its reply or state while replies are off).
 */
QUIRE_API int quire_document_update_annotation(quire_document *doc, quire_annotation *annotation);

/**
 * Deletes annotation `number` and its popup from the page's /Annots and the document.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND.
 */
QUIRE_API int quire_document_delete_annotation(quire_document *doc, int32_t number);

/** Moves in a page's drawing order, for `quire_document_move_annotation`. */
typedef enum quire_annot_order {
    QUIRE_ANNOT_FORWARD = 0x0B00, /**< one step later in /Annots: over the next annotation */
    QUIRE_ANNOT_BACKWARD = 0x0B01, /**< one step earlier: under the previous annotation */
    QUIRE_ANNOT_TO_FRONT = 0x0B02, /**< last in /Annots: drawn over every other */
    QUIRE_ANNOT_TO_BACK = 0x0B03 /**< first in /Annots: drawn under every other */
} quire_annot_order;

/**
 * Moves annotation `number` in its page's drawing order (/Annots, drawn first to last, so
 * the last is on top): bring forward, send backward, bring to front, send to back.
 * Popups, which are not drawn, are stepped over. The change is the page's /Annots (or the
 * array it refers to), saved incrementally like any other change and seen by the
 * checkpoint journal; `quire_tool_manager_move_selection` makes the same move as an undo
 * step of a tool manager. `*out_moved` (may be NULL) receives 1 when it moved, 0 when it was
 * already there (nothing is then written).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL doc, an order of another family); QUIRE_ENOTFOUND
 * (no annotation is object `number`); QUIRE_EUNSUPPORTED (a page that is a direct object);
 * QUIRE_ESTATE (a certification that forbids annotation changes).
 */
QUIRE_API int quire_document_move_annotation(int32_t *out_moved, quire_document *doc, int32_t number,
                                             quire_annot_order order);

/**
 * Adds a text reply by `author` (NULL for none) with `contents` to annotation `target`.
 * out: receives the new reply, owned by the caller; may be NULL when not wanted.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND; QUIRE_EDISABLED.
 */
QUIRE_API int quire_document_add_reply(quire_annotation **out, quire_document *doc, int32_t target,
                             const char *author, const char *contents);

/**
 * Adds a state reply: `author` (NULL for none) sets `state` in `model` ("Marked": Marked,
 * Unmarked; "Review": Accepted, Rejected, Cancelled, Completed, None) on annotation
 * `target`. The reply is hidden (flag 2): viewers list it in the thread, not on the page.
 * out: receives the new reply, owned by the caller; may be NULL.
 * Returns: QUIRE_OK; QUIRE_EINVAL (unknown model, or a state of another model);
 * QUIRE_ENOTFOUND; QUIRE_EDISABLED.
 */
QUIRE_API int quire_document_add_state_reply(quire_annotation **out, quire_document *doc, int32_t target,
                                   const char *author, const char *model, const char *state);

/**
 * Makes annotation `number` reply to `target`, or to nothing when `target` is -1 (then its
 * state is cleared too). The target must be on the same page, and the change may not make
 * a cycle of replies.
 * Returns: QUIRE_OK; QUIRE_EINVAL (another page, a cycle); QUIRE_ENOTFOUND; QUIRE_EDISABLED.
 */
QUIRE_API int quire_document_set_in_reply_to(quire_document *doc, int32_t number, int32_t target);

/**
 * Turns replies and review states on (non-zero, the default) or off (0) for this document, as
 * PSPDFKit's features switch does: while off, the calls that create or change replies and
 * states return QUIRE_EDISABLED; reading annotations and `quire_annotation_is_reply` work.
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_document_set_replies_enabled(quire_document *doc, int32_t enabled);
QUIRE_API int quire_document_replies_enabled(int32_t *out, quire_document *doc);

/**
 * The comments of annotation `number` (PSPDFKit's model): the annotation itself, then every
 * reply below it that is not a state reply (text replies, and /RT /Group replies), nested
 * replies flattened, sorted by creation date, stable on ties.
 * out: receives a new list owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND.
 */
QUIRE_API int quire_document_comments(quire_annotation_list **out, quire_document *doc, int32_t number);

/**
 * The review summary of annotation `number`: in `out_current`, each author's latest state
 * reply (authors in the order they first appear); in `out_history`, every state reply
 * below it, oldest first. Either out-pointer may be NULL.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND.
 */
QUIRE_API int quire_document_review_summary(quire_annotation_list **out_current,
                                  quire_annotation_list **out_history, quire_document *doc,
                                  int32_t number);

/**
 * The annotations and replies of all pages whose contents contain `text` (UTF-8), ignoring
 * case, in page order. An empty `text` finds nothing.
 * out: receives a new list owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_document_search_annotations(quire_annotation_list **out, quire_document *doc,
                                      const char *text);

/**
 * The number of annotations in a list, and annotation `index` of it (a new copy, owned by
 * the caller).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE.
 */
QUIRE_API int quire_annotation_list_count(int32_t *out, const quire_annotation_list *list);
QUIRE_API int quire_annotation_list_get(quire_annotation **out, const quire_annotation_list *list,
                              int32_t index);

/** Releases a list (the annotations taken from it stay valid). NULL is a no-op. */
QUIRE_API void quire_annotation_list_free(quire_annotation_list *list);

/* Bulk reads: what a viewer lists of every annotation of a page, in one call. */

/** The current version of `quire_annotation_info` (2: `in_reply_to_id`). */
#define QUIRE_ANNOTATION_INFO_VERSION 2

/**
 * What a viewer lists of one annotation, written by the library into the caller's buffer
 * by `quire_page_annotation_infos` and `quire_annotation_list_infos` (the caller does not
 * initialise it: it asks for a version in the call, and the library writes that version's
 * fields). Each string is UTF-8, NUL-terminated, and binary-safe through its `_len` (bytes
 * without the NUL; text from a PDF may contain NUL bytes); a string that is not set is
 * NULL with a length of 0. Every pointer points into the same caller buffer, so the
 * strings live exactly as long as that buffer: there is nothing to free.
 */
typedef struct quire_annotation_info {
    uint32_t version;              /**< the version written: the one the call asked for */
    int32_t page_index;            /**< the page (0-based) */
    int32_t object_number;         /**< its object (what the reply and thread functions
                                        take); 0 when it has none (written directly in
                                        /Annots, as `quire_annotation_id`'s QUIRE_ENOTFOUND) */
    int32_t in_reply_to;           /**< the object number of the annotation it replies to
                                        (/IRT); 0 when it is not a reply */
    int32_t flags;                 /**< /F, ISO 32000-2 Table 167; 0 when unset */
    quire_rect rect;               /**< /Rect */
    const char *subtype;           /**< /Subtype, such as "Square"; never NULL */
    size_t subtype_len;            /**< its length in bytes (0 when NULL) */
    const char *contents;          /**< /Contents */
    size_t contents_len;           /**< its length in bytes (0 when NULL) */
    const char *author;            /**< /T */
    size_t author_len;             /**< its length in bytes (0 when NULL) */
    const char *name;              /**< /NM, the unique name */
    size_t name_len;               /**< its length in bytes (0 when NULL) */
    const char *creation_date;     /**< /CreationDate, a PDF date (D:YYYYMMDDHHmmSSOHH'mm) */
    size_t creation_date_len;      /**< its length in bytes (0 when NULL) */
    const char *modification_date; /**< /M, a PDF date */
    size_t modification_date_len;  /**< its length in bytes (0 when NULL) */
    const char *state;             /**< /State of a state reply ("Accepted", ...) */
    size_t state_len;              /**< its length in bytes (0 when NULL) */
    const char *state_model;       /**< /StateModel: "Marked" or "Review" */
    size_t state_model_len;        /**< its length in bytes (0 when NULL) */
    /* Version 2. */
    const char *in_reply_to_id;    /**< QUIRE_ANNOT_IN_REPLY_TO_ID: the id of the annotation it
                                        replies to when that one is not in the document
                                        (`in_reply_to` is then 0, yet it is a reply) */
    size_t in_reply_to_id_len;     /**< its length in bytes (0 when NULL) */
} quire_annotation_info;

/**
 * Every annotation of page `page_index`, in /Annots order (the annotations
 * `quire_page_annotation` gives one at a time, with the same values as the per-field
 * functions), in one call, through the length-query pattern (as for strings):
 *
 *  - `buf` NULL and `buf_size` 0: `*out_len` receives the bytes of the block, and
 *    `*out_count` the number of annotations; QUIRE_OK.
 *  - A buffer of at least `*out_len + 1` bytes, aligned for a pointer and a double (what
 *    malloc returns): the buffer receives `*out_count` pointers to `quire_annotation_info`
 *    and a NULL after them (index the buffer as `quire_annotation_info **`, or walk it to
 *    the NULL), then the structs, then their strings; every pointer points inside the
 *    buffer, which the caller owns and frees as it allocated it. Read the structs through
 *    the pointers only (a later version's structs are larger). A NUL byte follows the
 *    block, at `buf[*out_len]`, as it follows a string.
 *  - A smaller buffer gives QUIRE_EBUFS with `*out_len` set, and leaves the buffer (and
 *    `*out_count`) untouched.
 *
 * A page without annotations gives `*out_count` 0 and an `*out_len` of one pointer (the
 * NULL): like a string's NUL, there is always something to write.
 * version: the version of `quire_annotation_info` to write: QUIRE_ANNOTATION_INFO_VERSION
 *          (or an older version).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `out_len`, `out_count` or `doc`; a NULL `buf`
 * with a non-zero `buf_size`; a buffer not aligned to 8 bytes; version 0); QUIRE_EVERSION
 * (a version newer than the library's); QUIRE_ERANGE (no such page); QUIRE_ENOTFOUND (a
 * missing page, as for `quire_page_box`); QUIRE_EBUFS.
 * Thread: the document's.
 */
QUIRE_API int quire_page_annotation_infos(void *buf, size_t buf_size, size_t *out_len, int32_t *out_count,
                                          quire_document *doc, int32_t page_index, unsigned version);

/**
 * The annotations of page `page_index`, in /Annots order, as a list owned by the caller
 * (release it with `quire_annotation_list_free`): a snapshot, independent of the document
 * (it stays valid after the document changes or closes), whose items
 * `quire_annotation_list_get` copies out and `quire_annotation_list_infos` lists in one
 * call. What a binding uses to list a page once and make annotation values only when asked.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE (no such page); QUIRE_ENOTFOUND (a missing
 * page, as for `quire_page_box`).
 * Thread: the document's.
 */
QUIRE_API int quire_page_annotations(quire_annotation_list **out, quire_document *doc, int32_t page_index);

/**
 * As `quire_page_annotation_infos`, for the annotations of a list (a page's, a thread, a
 * review history, search results), in the list's order. The list does not change, so the
 * length query and the call that fills the buffer agree.
 * Returns: QUIRE_OK; QUIRE_EINVAL (as `quire_page_annotation_infos`, and a NULL `list`);
 * QUIRE_EVERSION; QUIRE_EBUFS.
 * Thread: any thread, one at a time per list.
 */
QUIRE_API int quire_annotation_list_infos(void *buf, size_t buf_size, size_t *out_len, int32_t *out_count,
                                          const quire_annotation_list *list, unsigned version);

/**
 * The annotations of page `page_index` (or of every page when it is -1) as JSON shaped
 * after PSPDFKit's Instant JSON, extended with replies and review states
 * (docs/annotation-json.md), through the length-query pattern. The output is
 * deterministic: the same annotations always give the same bytes. It is computed on each
 * call. The whole document's export covers the pages that exist (a page missing from the
 * page tree has no annotations); its "pageCount" is `quire_document_page_count`'s.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ENOTFOUND (page_index is a page
 * missing from the page tree: see `quire_document_page_count`); QUIRE_EBUFS.
 * Besides "annotations", the export has Instant JSON's "pdfId" (the trailer /ID in
 * hexadecimal, when the file has one) and, for the whole document (page_index -1),
 * "formFieldValues": a "pspdfkit/form-field-value" record for every text, check box, radio
 * button, combo box and list box field (docs/annotation-json.md, "Form field values").
 */
QUIRE_API int quire_document_export_annotations_json(char *buf, size_t buf_size, size_t *out_len,
                                           quire_document *doc, int32_t page_index);

/**
 * As `quire_document_export_annotations_json`, with the replies that PSPDFKit's Instant
 * comments can hold written as the top-level "comments" of their thread's root instead of
 * as annotation records (docs/annotation-json.md, "Comments and rich text"): a note that
 * replies to an exported annotation that is not itself a reply, without a state or a
 * popup. The root gets "isCommentThreadRoot": true, and a root note without text becomes
 * a "pspdfkit/comment-marker", so that a PSPDFKit import shows the thread. What a comment
 * cannot hold (the reply's rectangle, flags, colour, icon, Quire's exact fields) is left
 * out. `quire_document_import_annotations_json` reads the result (comments become replies).
 * Same thread rules and ownership as `quire_document_export_annotations_json`.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ENOTFOUND (page_index is a page
 * missing from the page tree); QUIRE_EBUFS.
 */
QUIRE_API int quire_document_export_annotations_json_instant_comments(char *buf, size_t buf_size,
                                           size_t *out_len, quire_document *doc,
                                           int32_t page_index);

/**
 * Imports `length` bytes of annotation JSON (the format `quire_document_export_annotations_json`
 * writes, or plain Instant JSON): an annotation whose name (/NM) is already on its page is
 * updated, any other is created; replies are linked by name. Instant JSON's "comments"
 * become replies to their "rootId", xhtml text becomes sanitized rich text (/RC), and
 * "pspdfkit/image" records with their "attachments" become image stamps
 * (docs/annotation-json.md). "formFieldValues" set the values of the form's fields by
 * fully qualified name, with the rules of `quire_field_set_value` (a value equal to the
 * field's is left alone, so a document's own export changes nothing); "formFields" are
 * matched by name and type, never created or redefined. "skippedPdfObjectIds" deletes the
 * annotations it lists that no record replaces; when "pdfId" names another file (another
 * permanent /ID), the JSON's object numbers are ignored, with a document warning.
 * Everything is checked before the document changes, form values included: on an error,
 * nothing was imported.
 * out_count: receives the number of annotations (comments included) created or updated;
 * may be NULL.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EFORMAT (malformed JSON, an unknown annotation
 * type, a reply or comment whose parent is missing, XHTML that is not well-formed, an image
 * that does not decode, a form value for a field the document lacks or that is not one of
 * the field's states or options, a skipped annotation that a record names: the message
 * names the field); QUIRE_ELIMIT (rich text over 1 MiB or nested deeper than 64, an image
 * over 16 MiB or 40 million pixels, a form text value over 1 Mi characters);
 * QUIRE_EDISABLED (replies while replies are off); QUIRE_ESTATE (a form value for a
 * read-only field, or turning off a radio group that cannot be); QUIRE_ERANGE (a text
 * value longer than the field's /MaxLen); QUIRE_EUNSUPPORTED (a value for a push button or
 * a signature; a page that is a direct object).
 */
QUIRE_API int quire_document_import_annotations_json(int32_t *out_count, quire_document *doc,
                                           const char *json, size_t length);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_ANNOTATIONS_H */
