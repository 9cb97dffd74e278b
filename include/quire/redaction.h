/**
 * @file quire/redaction.h
 * @brief Redaction: mark regions with Redact annotations, then apply them, removing for
 * good the text, images, vector graphics and annotations in the regions.
 *
 * A topic header of Quire's C interface. Programs include <quire.h>, which includes
 * every topic header; this one also compiles on its own, as it includes what it uses.
 * The conventions (status codes, ownership, strings, versioned structs) are in quire.h.
 * What is removed and what is not: docs/redaction.md.
 */
#ifndef QUIRE_REDACTION_H
#define QUIRE_REDACTION_H

#include "common.h"
#include "document.h"
#include "annotations.h"
#include "text.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* Redaction                                                                             */
/* ------------------------------------------------------------------------------------ */

/**
 * Marks rectangles of page `page_index` for redaction with one Redact annotation
 * (ISO 32000-2 §12.5.6.23): each rectangle is a quadrilateral of its /QuadPoints, /Rect
 * their bounds. Nothing is removed until `quire_document_apply_redactions`; the annotation
 * is an ordinary one until then (read, edited, exported and synced as
 * `pspdfkit/markup/redaction`), drawn outlined in its /C (red by default).
 * rects:        `count` numbers, 4 per rectangle (left, bottom, right, top), in PDF user
 *               space (points from the page's lower left).
 * fill:         the colour the regions get when applied (/IC: `fill_count` components, 1
 *               gray, 3 RGB or 4 CMYK, each 0 to 1); NULL with 0 for none.
 * overlay_text: UTF-8 text drawn in each region when applied (/OverlayText); NULL for none.
 * out:          receives the new annotation (owned by the caller, free with
 *               `quire_annotation_free`); may be NULL.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL document or rects, a count of 0 or not a multiple
 * of 4, a rectangle that is
 * empty, not finite or wholly off the page's crop box, a colour of another count or
 * outside 0 to 1); QUIRE_ERANGE (no such page); QUIRE_ESTATE (a certified document whose
 * permissions refuse annotations).
 * Thread: the document's.
 */
QUIRE_API int quire_page_add_redaction(quire_annotation **out, quire_document *doc,
                                       int32_t page_index, const double *rects, size_t count,
                                       const double *fill, size_t fill_count,
                                       const char *overlay_text);

/**
 * Marks every match of `query` in the document (as `quire_document_search_text` finds it,
 * with `options`, NULL for its defaults) for redaction, one Redact annotation per match,
 * with `fill` and `overlay_text` as `quire_page_add_redaction` takes them. All or nothing.
 * out_count: receives the number of annotations added (0 when nothing matches); may be
 * NULL.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL document or query, an empty query, a bad colour);
 * QUIRE_EVERSION (a newer options version); QUIRE_ESTATE (as `quire_page_add_redaction`).
 * Thread: the document's.
 */
QUIRE_API int quire_document_add_redactions_matching(int32_t *out_count, quire_document *doc,
                                                     const char *query,
                                                     const quire_text_search_options *options,
                                                     const double *fill, size_t fill_count,
                                                     const char *overlay_text);

/** The current version of `quire_redaction_options`. */
#define QUIRE_REDACTION_OPTIONS_VERSION 1

/** Options of `quire_document_apply_redactions`. Initialise with
 *  QUIRE_REDACTION_OPTIONS_INIT: everything in the regions removed, no document cleanup. */
typedef struct quire_redaction_options {
    /** Must be QUIRE_REDACTION_OPTIONS_VERSION (or an older version). */
    uint32_t version;
    /** Non-zero (the default) removes the glyphs whose box intersects a region. */
    int32_t text;
    /** Non-zero (the default) removes the images a region covers and blanks the pixels of
     *  the others in the regions, inline images too. A JPEG is encoded again as a JPEG, the
     *  others with Flate; an image in JPX, JBIG2 or CCITT is removed whole, with a document
     *  warning. */
    int32_t images;
    /** Non-zero (the default) removes the vector paths that lie wholly inside a region. */
    int32_t graphics;
    /** Non-zero (the default) removes the annotations and form widgets that intersect a
     *  region. */
    int32_t annotations;
    /** Non-zero removes the catalog's /Metadata and empties the document information
     *  dictionary (/Info); 0 (the default) keeps them. */
    int32_t remove_metadata;
    /** Non-zero removes the embedded files (/EmbeddedFiles, the catalog's /AF and the
     *  FileAttachment annotations); 0 (the default) keeps them. */
    int32_t remove_embedded_files;
    /** Non-zero removes the document's JavaScript (/JavaScript names, a script /OpenAction,
     *  the catalog's /AA); 0 (the default) keeps it. */
    int32_t remove_javascript;
} quire_redaction_options;

/** Initialiser for `quire_redaction_options`: text, images, graphics and annotations
 *  removed, no document cleanup. */
#define QUIRE_REDACTION_OPTIONS_INIT \
    { QUIRE_REDACTION_OPTIONS_VERSION, 1, 1, 1, 1, 0, 0, 0 }

/**
 * Fills `options` with the defaults of `version` (1 up to QUIRE_REDACTION_OPTIONS_VERSION)
 * and sets its version: QUIRE_REDACTION_OPTIONS_INIT for bindings that cannot use the
 * macro.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_redaction_options_init(quire_redaction_options *options, unsigned version);

/** The current version of `quire_redaction_result`. */
#define QUIRE_REDACTION_RESULT_VERSION 1

/** What `quire_document_apply_redactions` did. The caller sets `version`; the library
 *  fills the fields that version has. */
typedef struct quire_redaction_result {
    /** Must be QUIRE_REDACTION_RESULT_VERSION (or an older version), set by the caller. */
    uint32_t version;
    /** The Redact annotations applied (and removed). */
    int32_t redactions;
    /** The pages whose content changed. */
    int32_t pages;
    /** The glyphs removed from the content. */
    int32_t glyphs_removed;
    /** The images removed whole (image XObjects and inline images). A region covers them, or
     *  covers them in part in an encoding Quire does not re-encode. */
    int32_t images_removed;
    /** The images whose pixels in a region were blanked and that were re-encoded. */
    int32_t images_blanked;
    /** The vector paths removed (wholly inside a region). */
    int32_t paths_removed;
    /** The annotations and widgets removed because they intersect a region (the Redact
     *  annotations themselves not counted). */
    int32_t annotations_removed;
} quire_redaction_result;

/**
 * Applies every Redact annotation of the document: on each page with one, removes what
 * lies in its regions from the page's content and from the form XObjects it draws
 * (rewritten copies replace the forms and images that change; other pages that share
 * them keep theirs): each glyph whose box intersects a region (the text that stays keeps
 * its positions), images and vector paths as `options` says, and the annotations and
 * widgets that intersect a region; then fills each region with the annotation's /IC,
 * draws its /OverlayText, and removes the Redact annotations. What was done differently
 * (an image removed whole because its encoding is not re-encoded) is added to the
 * document's warnings (`quire_document_warning`).
 *
 * Afterwards the next save must be a full one: `quire_document_save` and its variants
 * refuse an incremental save with QUIRE_ESTATE (the original bytes would stay in the file).
 * All or nothing: on an error the document is as it was.
 * options: NULL for QUIRE_REDACTION_OPTIONS_INIT.
 * out: receives what was done (its `version` set by the caller); may be NULL.
 * Returns: QUIRE_OK (also when there is no Redact annotation: nothing changes);
 * QUIRE_EINVAL (NULL document, an options or result version of 0); QUIRE_EVERSION;
 * QUIRE_EPASSWORD (an encrypted document not opened with its owner password);
 * QUIRE_EFORMAT (a page whose content cannot be read to its end: what was not read
 * cannot be known to lie outside the regions; the message names the page); QUIRE_ESTATE
 * (a certified document whose permissions refuse the change, or a synced document: its
 * PDF is the server's).
 * Thread: the document's.
 */
QUIRE_API int quire_document_apply_redactions(quire_redaction_result *out, quire_document *doc,
                                              const quire_redaction_options *options);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_REDACTION_H */
