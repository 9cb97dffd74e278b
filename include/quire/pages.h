/**
 * @file quire/pages.h
 * @brief Pages: boxes, rotation, the number of annotations; page operations: insert, delete,
 * move, rotate, set boxes, import from another document (merge), extract (split).
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

/* ------------------------------------------------------------------------------------ */
/* Page operations                                                                       */
/* ------------------------------------------------------------------------------------ */

/*
 * Each operation below is one change that completes or changes nothing: on an error the
 * document is as it was. The change log, checkpoints and the tool manager's undo see it as
 * one change (docs/pages.md). Page indices are of the pages that exist; what hangs on the
 * pages (annotations, form fields, links, named destinations, outline items, page labels,
 * bookmarks, the structure tree) follows by the rules of docs/pages.md. A synced document
 * refuses them with QUIRE_ESTATE: its PDF is the server's. An incremental save of the
 * result stays incremental.
 */

/**
 * What a page operation did beyond the pages: the form fields it renamed because their
 * names were taken, and warnings (what it dropped or changed: a structure tree, outline
 * items, named destinations, links into pages left behind). Opaque; owned by the caller,
 * released with `quire_page_report_free`. The warnings are also added to the document's
 * (`quire_document_warning`).
 */
typedef struct quire_page_report quire_page_report;

/** Releases a report. NULL is a no-op. */
QUIRE_API void quire_page_report_free(quire_page_report *report);

/**
 * The number of fields renamed: a top-level field of imported pages whose name the
 * document already had is renamed NAME_2 (then _3, ...); the fields below it follow.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments).
 */
QUIRE_API int quire_page_report_renamed_count(int32_t *out, const quire_page_report *report);

/**
 * The partial name (/T) of renamed field `index`: before (`after` 0) or after (`after`
 * non-zero) the rename. Length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_EBUFS.
 */
QUIRE_API int quire_page_report_renamed(char *buf, size_t buf_size, size_t *out_len,
                                        const quire_page_report *report, int32_t index, int32_t after);

/**
 * The number of warnings of the report.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments).
 */
QUIRE_API int quire_page_report_warning_count(int32_t *out, const quire_page_report *report);

/**
 * Warning `index` of the report. Length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_EBUFS.
 */
QUIRE_API int quire_page_report_warning(char *buf, size_t buf_size, size_t *out_len,
                                        const quire_page_report *report, int32_t index);

/**
 * Inserts `count` blank pages at `index` (0 to the page count; the page count appends),
 * each with the media box `media_box` (NULL: US Letter, 0 0 612 792), the rotation
 * `rotation` (a multiple of 90, clockwise), empty resources and an empty content stream.
 * Page labels: the new pages join the label range of the page before them.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `doc`, `count` below 1, a media box without area
 * or not finite, a rotation that is not a multiple of 90); QUIRE_ERANGE (`index` outside 0
 * to the page count); QUIRE_ELIMIT (past max_pages); QUIRE_ESTATE (a synced document).
 */
QUIRE_API int quire_document_insert_pages(quire_document *doc, int32_t index, int32_t count,
                                          const quire_rect *media_box, int32_t rotation);

/**
 * Deletes the pages at `indices` (`count` of them, any order) with what hangs on them:
 * their annotations (with popups and replies), the form fields of their widgets (a field
 * left without widgets goes too), the outline items that go to them (an item with children
 * stays as a heading without a destination), the named destinations and user bookmarks
 * that go to them; page labels number the pages that stay by position. The structure tree
 * stays when the deleted pages are not tagged, else it is dropped with a warning.
 * out_report: NULL, or receives the report (owned by the caller).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `doc`, NULL `indices` or `count` 0, an index given
 * twice, every page: a document keeps one); QUIRE_ERANGE (an index out of range);
 * QUIRE_ESTATE (a synced document).
 */
QUIRE_API int quire_document_delete_pages(quire_page_report **out_report, quire_document *doc,
                                          const int32_t *indices, size_t count);

/**
 * Moves the pages at `indices` so that afterwards they stand, in the order given, from
 * index `to` on (an index of the result: 0 to the page count minus `count`); the other
 * pages keep their order. Annotations, links, outline items, named destinations and
 * bookmarks follow their pages; page labels number the pages by their new positions.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `doc`, NULL `indices` or `count` 0, an index given
 * twice); QUIRE_ERANGE (an index or `to` out of range); QUIRE_ESTATE (a synced document).
 */
QUIRE_API int quire_document_move_pages(quire_document *doc, const int32_t *indices, size_t count, int32_t to);

/**
 * Turns the pages at `indices` by `quarter_turns` quarter turns clockwise (negative:
 * counterclockwise), added to each page's own rotation (its /Rotate, inherited or not).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `doc`, NULL `indices` or `count` 0, an index given
 * twice); QUIRE_ERANGE (an index out of range); QUIRE_ESTATE (a synced document).
 */
QUIRE_API int quire_document_rotate_pages(quire_document *doc, const int32_t *indices, size_t count,
                                          int32_t quarter_turns);

/**
 * Sets box `box` of the pages at `indices` to `rect`; NULL removes it (the box then
 * defaults as `quire_page_box` says; the media box cannot be removed).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `doc`, NULL `indices` or `count` 0, an index given
 * twice, an unknown box, a rectangle without area or not finite, removing the media box);
 * QUIRE_ERANGE (an index out of range); QUIRE_ESTATE (a synced document).
 */
QUIRE_API int quire_document_set_page_box(quire_document *doc, const int32_t *indices, size_t count,
                                          quire_box box, const quire_rect *rect);

/**
 * Copies pages of `source` into `doc` at index `at` (0 to the page count of `doc`): the
 * pages at `indices` (`count` of them, in that order; a page may be given twice), or every
 * page when `indices` is NULL and `count` 0. What comes along (docs/pages.md, "Import"):
 * each page with the objects it uses, each copied once (resources pages share stay
 * shared); its annotations with their popups and reply chains; its links (a destination
 * into a page not copied is dropped, a named one made explicit); its widgets' form fields,
 * merged into the form of `doc` (a top-level field whose name is taken is renamed NAME_2,
 * reported in the report; the form's /DA, /Q and /DR resources merged); outline items that
 * go to the copied pages, appended to the outline; named destinations into them (unless
 * the name is taken: a warning); page labels; user bookmarks of the copied pages. The
 * copied pages are not tagged. `source` is only read; it may be closed afterwards.
 * out_report: NULL, or receives the report (owned by the caller).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `doc` or `source`, `source` is `doc`, NULL
 * `indices` with a non-zero `count`, or `count` 0 with `indices`); QUIRE_ERANGE (an index
 * or `at` out of range); QUIRE_ELIMIT (past max_pages or max_objects); QUIRE_ESTATE (a
 * synced document).
 */
QUIRE_API int quire_document_import_pages(quire_page_report **out_report, quire_document *doc,
                                          quire_document *source, const int32_t *indices, size_t count,
                                          int32_t at);

/**
 * A new document of the pages of `doc` at `indices` (in that order), with what comes along
 * with them as for `quire_document_import_pages`, and the information dictionary and
 * language of `doc`. The new document is in memory, unsaved and not encrypted: save it
 * with `quire_document_save` (in full), after `quire_document_set_encryption` if it should
 * be encrypted. `doc` does not change.
 * out: receives the new document, owned by the caller (`quire_document_close`).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments, or `count` 0); QUIRE_ERANGE (an index
 * out of range).
 */
QUIRE_API int quire_document_extract_pages(quire_document **out, quire_document *doc,
                                           const int32_t *indices, size_t count);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_PAGES_H */
