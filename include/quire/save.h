/**
 * @file quire/save.h
 * @brief Saving: incremental, full and in place, to a path or through a callback.
 *
 * A topic header of Quire's C interface. Programs include <quire.h>, which includes
 * every topic header; this one also compiles on its own, as it includes what it uses.
 * The conventions (status codes, ownership, strings, versioned structs) are in quire.h.
 */
#ifndef QUIRE_SAVE_H
#define QUIRE_SAVE_H

#include "common.h"
#include "document.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* Saving                                                                                */
/* ------------------------------------------------------------------------------------ */

/** Save modes. */
typedef enum quire_save_mode {
    QUIRE_SAVE_INCREMENTAL = 0x0500, /**< append the changed objects: earlier bytes, signatures and revisions stay as they were */
    QUIRE_SAVE_FULL = 0x0501, /**< rewrite: renumber, drop unreachable objects */
    /** append the changed objects to the document's own file in place, without copying it
     *  (`quire_document_save` only; `path` must be the file the document was opened from or
     *  last saved to, unchanged since: see `quire_document_save`) */
    QUIRE_SAVE_APPEND_IN_PLACE = 0x0502
} quire_save_mode;

/** The current version of `quire_save_options` (2 added the progress callback; a version 1
 *  struct, 12 bytes, is read as it is). */
#define QUIRE_SAVE_OPTIONS_VERSION 2

/** Options for saving. Initialise with QUIRE_SAVE_OPTIONS_INIT. */
typedef struct quire_save_options {
    /** Must be QUIRE_SAVE_OPTIONS_VERSION. */
    uint32_t version;
    /** QUIRE_SAVE_INCREMENTAL (the default), QUIRE_SAVE_FULL or QUIRE_SAVE_APPEND_IN_PLACE. */
    quire_save_mode mode;
    /** For QUIRE_SAVE_FULL: 1 packs objects into object streams with a cross-reference
     *  stream (smaller files, PDF 1.5 and later); 0 writes a classic table. */
    int32_t object_streams;
    /** Version 2: called on the calling thread while the file is made, with the objects
     *  written so far and their total (every 64 objects, and once with done == total);
     *  return non-zero to cancel: the save stops with QUIRE_EUSER before anything is
     *  written, and the document keeps its unsaved changes. NULL: no progress. */
    int (*progress)(uint64_t done, uint64_t total, void *payload);
    /** Version 2: passed to `progress`. */
    void *progress_payload;
} quire_save_options;

/** Initialiser for `quire_save_options`: incremental, no progress callback. */
#define QUIRE_SAVE_OPTIONS_INIT { QUIRE_SAVE_OPTIONS_VERSION, QUIRE_SAVE_INCREMENTAL, 0, NULL, NULL }

/**
 * Fills `options` with the defaults of `version` (1 up to QUIRE_SAVE_OPTIONS_VERSION) and
 * sets its version: QUIRE_SAVE_OPTIONS_INIT for bindings that cannot use the macro.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_save_options_init(quire_save_options *options, unsigned version);

/**
 * Saves the document to `path`, atomically: it writes a temporary file beside it, flushes
 * it to disk (fsync), then renames it over `path`, so `path` holds either the old or the
 * new file even if the process dies. `path` may be the file the document was opened from.
 * An encrypted document stays encrypted with its own key and password. After a successful
 * save the document continues from the saved file: it has no unsaved changes, and a later
 * incremental save appends to what was written.
 * options: NULL for an incremental save (the second argument, as in
 * `quire_document_save_to_callback`).
 * An incremental save with no unsaved changes writes the file's bytes as they are.
 *
 * QUIRE_SAVE_APPEND_IN_PLACE instead appends the update to `path` itself, which must be the
 * file the document was opened from or last saved to: its cost is the change's, not the
 * file's. It first checks that the file is unchanged since the document read it (identity,
 * size, times, first and last 4 KB) and takes an exclusive `flock` on it; then it writes the
 * new objects, cross-reference section and trailer after the old end and flushes them, and
 * only then writes the final `startxref ... %%EOF` (one write inside one page) and flushes
 * again. Until that last write the file's last `startxref` is the old one, so a process
 * killed at any moment leaves a file that opens as the old or the new revision (dead bytes
 * of an interrupted append stay after the old end, unread). With no unsaved changes nothing
 * is written.
 *
 * Returns: QUIRE_OK; QUIRE_EINVAL (also: QUIRE_SAVE_APPEND_IN_PLACE to another path than the
 * document's file); QUIRE_EIO (the file could not be written; `path` is
 * unchanged; for an append in place, it opens as before); QUIRE_ESTALE (an append in
 * place to a file that changed since it was read, or a document opened from memory);
 * QUIRE_EBUSY (another process is appending to it); QUIRE_EUNSUPPORTED (an incremental save with changes of a file whose
 * cross-reference was rebuilt by repair, or whose /Prev chain loops: there is no sound
 * section to append to; save in full); QUIRE_EPASSWORD (a full save of a document opened
 * without the password that some of its streams, such as encrypted attachments, need);
 * QUIRE_ESTATE (a stream value read before an earlier full save of an encrypted document
 * was set as an object; an incremental save or an append in place after
 * `quire_document_apply_redactions`, which only a full save makes final).
 */
QUIRE_API int quire_document_save(quire_document *doc, const quire_save_options *options, const char *path);

/**
 * Called by `quire_document_save_to_callback` with consecutive pieces of the file.
 * Return 0 to continue, non-zero to abort the save with QUIRE_EUSER.
 */
typedef int (*quire_write_fn)(const void *data, size_t size, void *payload);

/**
 * Saves the document through `write`, called one or more times on the calling thread with
 * consecutive pieces of the file. For an incremental save, the pieces are the whole file:
 * the original bytes, then the update. On success the document continues from the saved
 * bytes, as with `quire_document_save`.
 * options: NULL for an incremental save.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EUSER (the callback aborted: the document keeps
 * its unsaved changes); QUIRE_EUNSUPPORTED, QUIRE_EPASSWORD and QUIRE_ESTATE as for
 * `quire_document_save`.
 */
QUIRE_API int quire_document_save_to_callback(quire_document *doc, const quire_save_options *options,
                                    quire_write_fn write, void *payload);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_SAVE_H */
