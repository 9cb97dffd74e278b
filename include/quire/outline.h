/**
 * @file quire/outline.h
 * @brief The outline (table of contents) and page labels.
 *
 * A topic header of Quire's C interface. Programs include <quire.h>, which includes
 * every topic header; this one also compiles on its own, as it includes what it uses.
 * The conventions (status codes, ownership, strings, versioned structs) are in quire.h.
 */
#ifndef QUIRE_OUTLINE_H
#define QUIRE_OUTLINE_H

#include "common.h"
#include "document.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* Outline (table of contents) and page labels                                           */
/* ------------------------------------------------------------------------------------ */

/** What an outline item or a bookmark does when activated (ISO 32000-2 §12.6.4). */
typedef enum quire_action_type {
    QUIRE_ACTION_NONE = 0x0200, /**< no destination and no action */
    QUIRE_ACTION_GOTO = 0x0201, /**< go to a page of this document (a /Dest or a GoTo action) */
    QUIRE_ACTION_GOTOR = 0x0202, /**< go to a page of another file; the target is its path */
    QUIRE_ACTION_URI = 0x0203, /**< open a URI; the target is the URI */
    QUIRE_ACTION_NAMED = 0x0204, /**< a named action such as NextPage; the target is the name */
    QUIRE_ACTION_LAUNCH = 0x0205, /**< launch an application or file; the target is its path */
    QUIRE_ACTION_OTHER = 0x0206 /**< another action type; the target is its /S name (a bookmark: its action dictionary in PDF syntax) */
} quire_action_type;

/**
 * The number of items of the outline, all levels together (0 when there is none). Items
 * are numbered 0 to count-1 in reading order (depth-first, parents before children). A
 * cycle in the outline is cut, with a warning.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ELIMIT past 100000 items or 256 levels.
 */
QUIRE_API int quire_document_outline_count(int32_t *out, quire_document *doc);

/**
 * The structure of outline item `index`: its depth (0 for top-level items), the index of
 * its parent (-1 for top-level items), its number of children, whether it is open (1) or
 * closed (0), what it does (QUIRE_ACTION_*) and, for QUIRE_ACTION_GOTO and
 * QUIRE_ACTION_GOTOR, the 0-based target page (-1 when the destination does not resolve to
 * a page). Any out-pointer may be NULL.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE.
 */
QUIRE_API int quire_document_outline_item(int32_t *out_depth, int32_t *out_parent,
                                int32_t *out_child_count, int32_t *out_is_open,
                                quire_action_type *out_action, int32_t *out_page_index,
                                quire_document *doc, int32_t index);

/**
 * The title of outline item `index`, decoded to UTF-8, through the length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_EBUFS.
 */
QUIRE_API int quire_document_outline_title(char *buf, size_t buf_size, size_t *out_len,
                                 quire_document *doc, int32_t index);

/**
 * The target of outline item `index` as text, through the length-query pattern: the URI,
 * the file of a GoToR or Launch action, the name of a named action, or the /S name of
 * another action. QUIRE_ENOTFOUND for items without one (GoTo and none).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ENOTFOUND; QUIRE_EBUFS.
 */
QUIRE_API int quire_document_outline_target(char *buf, size_t buf_size, size_t *out_len,
                                  quire_document *doc, int32_t index);

/**
 * The label of page `page_index` from the document's /PageLabels (ISO 32000-2 §12.4.2),
 * such as "iii" or "A-4", through the length-query pattern. Labels number the counted
 * pages, so a page missing from the page tree (see `quire_document_page_count`) has one.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ENOTFOUND when the document has no
 * page labels; QUIRE_EBUFS.
 */
QUIRE_API int quire_page_label(char *buf, size_t buf_size, size_t *out_len, quire_document *doc,
                     int32_t page_index);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_OUTLINE_H */
