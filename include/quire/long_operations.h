/**
 * @file quire/long_operations.h
 * @brief Long operations: progress and cancellation; annotations exported and imported in
 * a format.
 *
 * A topic header of Quire's C interface. Programs include <quire.h>, which includes
 * every topic header; this one also compiles on its own, as it includes what it uses.
 * The conventions (status codes, ownership, strings, versioned structs) are in quire.h.
 */
#ifndef QUIRE_LONG_OPERATIONS_H
#define QUIRE_LONG_OPERATIONS_H

#include "common.h"
#include "document.h"
#include "save.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* Long operations: progress and cancellation                                            */
/* ------------------------------------------------------------------------------------ */

/*
 * Every operation whose time grows with the document takes a versioned options struct
 * that ends with the same two fields as `quire_save_options` (version 2):
 *
 *     int (*progress)(uint64_t done, uint64_t total, void *payload);
 *     void *progress_payload;
 *
 * `progress` is called on the calling thread, before the call returns, with the steps
 * done so far and their total: `done` never decreases, `total` stays the same during a
 * call, and the last call has done == total. What a step is belongs to the operation (an
 * object written by a save, a page read by a search or a flatten, a record of an import),
 * so done / total is a fraction of the work. Returning non-zero cancels: the call returns
 * QUIRE_EUSER, an operation that changes the document leaves it as it was (a save writes
 * nothing), and an export hands nothing to its `write`. The callback must not call Quire
 * on the same document. NULL: no progress.
 *
 * The operations: `quire_document_save` and `quire_document_save_to_callback`
 * (`quire_save_options`), `quire_document_flatten` (`quire_flatten_options`),
 * `quire_document_search_text` (`quire_text_search_options`, version 2),
 * `quire_document_text` (`quire_text_options`), and annotation JSON and XFDF,
 * `quire_document_export_annotations` and `quire_document_import_annotations` below.
 */

/** The formats in which annotations are exported and imported. */
typedef enum quire_annotation_format {
    /** Annotation JSON: Instant JSON with Quire's extensions (docs/annotation-json.md), as
     *  `quire_document_export_annotations_json` writes it. Importing reads Instant JSON's
     *  comments too. */
    QUIRE_FORMAT_JSON = 0x3800,
    /** Export only: annotation JSON with the replies that Instant comments can hold written
     *  as "comments", as `quire_document_export_annotations_json_instant_comments` does. */
    QUIRE_FORMAT_JSON_INSTANT_COMMENTS = 0x3801,
    /** XFDF (ISO 19444-1), as `quire_document_export_xfdf` writes it: the document's
     *  annotations but links, popups and widgets, and its field values (docs/forms.md). */
    QUIRE_FORMAT_XFDF = 0x3802
} quire_annotation_format;

/** The current version of `quire_export_options`. */
#define QUIRE_EXPORT_OPTIONS_VERSION 1

/** Options of `quire_document_export_annotations`. Initialise with
 *  QUIRE_EXPORT_OPTIONS_INIT. */
typedef struct quire_export_options {
    /** Must be QUIRE_EXPORT_OPTIONS_VERSION (or an older version). */
    uint32_t version;
    /** QUIRE_FORMAT_JSON (the default), QUIRE_FORMAT_JSON_INSTANT_COMMENTS or
     *  QUIRE_FORMAT_XFDF. */
    quire_annotation_format format;
    /** JSON: the page to export, or -1 (the default) for every page. XFDF is always the
     *  whole document: -1. */
    int32_t page_index;
    /** Two steps per page exported (its annotations read, then written); non-zero cancels
     *  (see "Long operations"). NULL: no progress. */
    int (*progress)(uint64_t done, uint64_t total, void *payload);
    /** Passed to `progress`. */
    void *progress_payload;
} quire_export_options;

/** Initialiser for `quire_export_options`: JSON of every page, no progress callback. */
#define QUIRE_EXPORT_OPTIONS_INIT { QUIRE_EXPORT_OPTIONS_VERSION, QUIRE_FORMAT_JSON, -1, NULL, NULL }

/**
 * Fills `options` with the defaults of `version` (1 up to QUIRE_EXPORT_OPTIONS_VERSION) and
 * sets its version.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_export_options_init(quire_export_options *options, unsigned version);

/**
 * Exports the document's annotations in `options->format` (the same bytes as
 * `quire_document_export_annotations_json`, `..._json_instant_comments` or
 * `quire_document_export_xfdf` give), handing them to `write` in one or more consecutive
 * pieces on the calling thread once the export is complete: a cancelled or failed export
 * writes nothing. `write` returns 0 to go on, non-zero to stop (QUIRE_EUSER).
 * options: NULL for the defaults (QUIRE_EXPORT_OPTIONS_INIT: JSON of every page).
 * payload: passed to `write`.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `doc` or `write`; an unknown format; a page for
 * XFDF); QUIRE_EVERSION; QUIRE_ERANGE (no such page); QUIRE_ENOTFOUND (a page missing
 * from the page tree); QUIRE_ELIMIT; QUIRE_EUSER (the progress or write callback
 * stopped it).
 * Thread: the document's; both callbacks are called on the calling thread.
 */
QUIRE_API int quire_document_export_annotations(quire_document *doc, const quire_export_options *options,
                                                quire_write_fn write, void *payload);

/** The current version of `quire_import_options`. */
#define QUIRE_IMPORT_OPTIONS_VERSION 1

/** Options of `quire_document_import_annotations`. Initialise with
 *  QUIRE_IMPORT_OPTIONS_INIT. */
typedef struct quire_import_options {
    /** Must be QUIRE_IMPORT_OPTIONS_VERSION (or an older version). */
    uint32_t version;
    /** QUIRE_FORMAT_JSON (the default; Instant comments included) or QUIRE_FORMAT_XFDF. */
    quire_annotation_format format;
    /** Two steps per JSON record (created or updated, then completed), one per XFDF
     *  annotation and field value; non-zero cancels and nothing is imported (see "Long
     *  operations"). NULL: no progress. */
    int (*progress)(uint64_t done, uint64_t total, void *payload);
    /** Passed to `progress`. */
    void *progress_payload;
} quire_import_options;

/** Initialiser for `quire_import_options`: JSON, no progress callback. */
#define QUIRE_IMPORT_OPTIONS_INIT { QUIRE_IMPORT_OPTIONS_VERSION, QUIRE_FORMAT_JSON, NULL, NULL }

/**
 * Fills `options` with the defaults of `version` (1 up to QUIRE_IMPORT_OPTIONS_VERSION) and
 * sets its version.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_import_options_init(quire_import_options *options, unsigned version);

/**
 * Imports `length` bytes of annotations in `options->format`, with the rules of
 * `quire_document_import_annotations_json` (JSON) or `quire_document_import_xfdf` (XFDF).
 * All or nothing: on an error or a cancel, the document is as it was.
 * options: NULL for the defaults (QUIRE_IMPORT_OPTIONS_INIT: JSON).
 * out_count: receives what the format's own import function counts; may be NULL.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `doc`, NULL `data` with a length; an unknown or
 * export-only format); QUIRE_EVERSION; the errors of the format's import function;
 * QUIRE_EUSER (the progress callback cancelled).
 * Thread: the document's; `progress` is called on the calling thread.
 */
QUIRE_API int quire_document_import_annotations(int32_t *out_count, quire_document *doc,
                                                const quire_import_options *options, const void *data,
                                                size_t length);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_LONG_OPERATIONS_H */
