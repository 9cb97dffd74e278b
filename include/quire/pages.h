/**
 * @file quire/pages.h
 * @brief Pages: boxes, rotation, the number of annotations.
 *
 * A topic header of Quire's C interface. Programs include <quire.h>, which includes
 * every topic header; this one also compiles on its own, as it includes what it uses.
 * The conventions (status codes, ownership, strings, versioned structs) are in quire.h.
 */
#ifndef QUIRE_PAGES_H
#define QUIRE_PAGES_H

#include "common.h"
#include "document.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* Pages                                                                                 */
/* ------------------------------------------------------------------------------------ */

/** Page boxes (ISO 32000-2 §14.11.2). */
typedef enum quire_box {
    QUIRE_BOX_MEDIA = 0x0600, /**< /MediaBox: the physical medium. */
    QUIRE_BOX_CROP = 0x0601, /**< /CropBox: the visible region; defaults to the media box. */
    QUIRE_BOX_BLEED = 0x0602, /**< /BleedBox; defaults to the crop box. */
    QUIRE_BOX_TRIM = 0x0603, /**< /TrimBox; defaults to the crop box. */
    QUIRE_BOX_ART = 0x0604 /**< /ArtBox; defaults to the crop box. */
} quire_box;

/**
 * A box of page `page_index`, with the page tree's inheritance and the specification's
 * defaults applied: a missing or malformed /MediaBox is US Letter (0 0 612 792) with a
 * warning; a missing crop box is the media box; a missing bleed, trim or art box is the
 * crop box. The box is returned as written, not clipped to the media box.
 * box:     one of the QUIRE_BOX_* values.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments, unknown box); QUIRE_ERANGE (page_index
 * is not below the page count); QUIRE_ENOTFOUND (the page is counted by the page tree's
 * /Count but missing from the tree: see `quire_document_page_count`).
 */
QUIRE_API int quire_page_box(quire_rect *out, quire_document *doc, int32_t page_index, quire_box box);

/**
 * The rotation of page `page_index` in degrees clockwise: 0, 90, 180 or 270 (/Rotate,
 * inherited, normalised; a value that is not a multiple of 90 counts as 0, with a warning).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ENOTFOUND (a missing page, as for
 * `quire_page_box`).
 */
QUIRE_API int quire_page_rotation(int32_t *out, quire_document *doc, int32_t page_index);

/**
 * The number of annotations of page `page_index`: the entries of its /Annots array that
 * are dictionaries (references that do not resolve to a dictionary are skipped).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ENOTFOUND (a missing page, as for
 * `quire_page_box`).
 */
QUIRE_API int quire_page_annotation_count(int32_t *out, quire_document *doc, int32_t page_index);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_PAGES_H */
