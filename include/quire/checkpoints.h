/**
 * @file quire/checkpoints.h
 * @brief Checkpoints: crash recovery of unsaved changes.
 *
 * A topic header of Quire's C interface. Programs include <quire.h>, which includes
 * every topic header; this one also compiles on its own, as it includes what it uses.
 * The conventions (status codes, ownership, strings, versioned structs) are in quire.h.
 */
#ifndef QUIRE_CHECKPOINTS_H
#define QUIRE_CHECKPOINTS_H

#include "common.h"
#include "document.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* Checkpoints: crash recovery of unsaved changes                                       */
/* ------------------------------------------------------------------------------------ */

/** Checkpoint strategies. */
typedef enum quire_checkpoint_strategy {
    QUIRE_CHECKPOINT_MANUAL = 0x0D00, /**< only when `quire_document_checkpoint` is called */
    QUIRE_CHECKPOINT_TIMED = 0x0D01, /**< every `interval_seconds`, on a background thread */
    QUIRE_CHECKPOINT_IMMEDIATE = 0x0D02 /**< on every change, before the call returns */
} quire_checkpoint_strategy;

/**
 * What `quire_document_start_checkpoints` does with a checkpoint that already exists for
 * the document (left by a crash, or by a program that closed the document unsaved).
 * Recovery data is never thrown away unless the caller says so.
 */
typedef enum quire_checkpoint_existing {
    /** Apply it as unsaved changes (the default): `*out_loaded` is 1. A checkpoint taken
     *  against another version of the file is not applied and stays: QUIRE_ESTALE. */
    QUIRE_CHECKPOINT_EXISTING_LOAD = 0x0E00,
    /** Leave it as it is: QUIRE_EEXIST when it holds unsaved changes, QUIRE_ESTALE when it
     *  was taken against another version of the file, QUIRE_EFORMAT when it is damaged; in
     *  each case checkpointing does not start and nothing changes. An empty checkpoint, or
     *  one whose changes a completed save already holds, is replaced. For programs that
     *  ask their user first (see `quire_document_inspect_checkpoint`). */
    QUIRE_CHECKPOINT_EXISTING_REFUSE = 0x0E01,
    /** Throw it away and start afresh: the only choice that loses recovery data. */
    QUIRE_CHECKPOINT_EXISTING_DISCARD = 0x0E02
} quire_checkpoint_existing;

/**
 * Options for `quire_document_start_checkpoints` and `quire_document_inspect_checkpoint`.
 * Initialise with QUIRE_CHECKPOINT_OPTIONS_INIT or `quire_checkpoint_options_init`, then
 * set the fields you need. The library reads `version` first and then only the fields of
 * that version, so a program built against an older header keeps working.
 *
 * Version 1 had no `existing` field: there, `load_if_available` = 0 means
 * QUIRE_CHECKPOINT_EXISTING_REFUSE (version 1 libraries discarded the checkpoint, which
 * lost recovery data), and non-zero means QUIRE_CHECKPOINT_EXISTING_LOAD.
 */
typedef struct quire_checkpoint_options {
    uint32_t version;        /**< QUIRE_CHECKPOINT_OPTIONS_VERSION */
    quire_checkpoint_strategy strategy; /**< QUIRE_CHECKPOINT_MANUAL (default), _TIMED or _IMMEDIATE */
    double interval_seconds; /**< for QUIRE_CHECKPOINT_TIMED: 0.01 to 86400 (default 10) */
    /** The directory of checkpoint files; NULL for $XDG_STATE_HOME/quire/checkpoints, else
     *  ~/.local/state/quire/checkpoints. Created if missing. */
    const char *directory;
    /** The checkpoint's name (a file name, no "/"); NULL to derive it from the path the
     *  document was opened from. Required for documents opened from memory; the caller
     *  keeps it unique. */
    const char *uid;
    /** Version 1 only (ignored from version 2 on, where `existing` says it): non-zero to
     *  apply an existing checkpoint. */
    int32_t load_if_available;
    /** Version 2: what to do with an existing checkpoint (default
     *  QUIRE_CHECKPOINT_EXISTING_LOAD). */
    quire_checkpoint_existing existing;
} quire_checkpoint_options;

#define QUIRE_CHECKPOINT_OPTIONS_VERSION 2
#define QUIRE_CHECKPOINT_OPTIONS_INIT                                                         \
    { QUIRE_CHECKPOINT_OPTIONS_VERSION, QUIRE_CHECKPOINT_MANUAL, 10.0, NULL, NULL, 0,           \
      QUIRE_CHECKPOINT_EXISTING_LOAD }

/**
 * Fills `options` with the defaults of `version` (1 up to QUIRE_CHECKPOINT_OPTIONS_VERSION)
 * and sets its `version` field: what QUIRE_CHECKPOINT_OPTIONS_INIT does, for bindings that
 * cannot use the macro. Writes only the fields that `version` has.
 * Returns: QUIRE_OK; QUIRE_EINVAL (options is NULL, or version is 0); QUIRE_EVERSION (a
 * version newer than this library knows).
 */
QUIRE_API int quire_checkpoint_options_init(quire_checkpoint_options *options, unsigned version);

/**
 * Starts keeping checkpoints of the document's unsaved changes (annotations, replies,
 * review states, bookmarks of the built-in provider, any object), so that a crash loses
 * nothing the library acknowledged. The checkpoint is an append-only journal, one file
 * per UID, with a CRC-32 per record; each operation's changes form one group, and
 * recovery drops a torn last record or an unfinished group. It is compacted on a
 * background thread. The file is locked while the document is open. For an encrypted
 * document the records are sealed with AES-256-GCM under a key derived from its file key.
 * Checkpoint files older than a week are removed from the directory.
 *
 * Saving the document (`quire_document_save`) writes the changes into the PDF and starts
 * an empty checkpoint only after the saved file is durable (a crash in between is
 * recognised on the next load: the changes are not applied twice). Saved to another path,
 * the document continues as that file: a UID derived from the path moves to the new path
 * (the old checkpoint is removed, its changes being in the saved copy); a UID of the
 * caller's then belongs to the saved bytes. `quire_document_save_to_callback` counts as a
 * save of the document's file: write the bytes there, or reopening that file with its
 * checkpoint gives QUIRE_ESTALE. Lock files (UID.lock, empty) stay in the directory.
 *
 * An existing checkpoint is applied, kept or discarded as `options->existing` says; by
 * default it is applied, and it is never thrown away unless the caller asked for
 * QUIRE_CHECKPOINT_EXISTING_DISCARD. A start that fails leaves the checkpoint as it was.
 *
 * What is guaranteed, in terms of what the caller was told: with QUIRE_CHECKPOINT_IMMEDIATE,
 * every change whose call returned QUIRE_OK is on disk, and a crash at any moment after
 * that (even a power cut: the journal is flushed with fdatasync) recovers it; with
 * QUIRE_CHECKPOINT_MANUAL, the changes made before a `quire_document_checkpoint` that
 * returned QUIRE_OK (or a `quire_document_checkpoint_async` whose callback reported
 * QUIRE_OK); with QUIRE_CHECKPOINT_TIMED, the changes the last timer tick wrote, so up to
 * `interval_seconds` of work can be lost. A change whose call had not returned when the
 * process died is recovered whole or not at all, never in part. A save that returned
 * QUIRE_OK is in the file; one interrupted is either in the file or still in the
 * checkpoint, never applied twice.
 *
 * out_loaded: set to 1 when an existing checkpoint was applied, else 0; may be NULL.
 * options: NULL for the defaults (manual, default directory, UID from the path, an existing
 * checkpoint applied).
 * Returns: QUIRE_OK; QUIRE_EINVAL (a document opened from memory without a UID, a UID that
 * is not a file name, an empty directory, an unknown strategy or `existing` value, an
 * interval out of range for the timed strategy);
 * QUIRE_EVERSION (options->version is newer than this library);
 * QUIRE_EBUSY (another open document, in any process, holds this UID); QUIRE_ESTALE (the
 * checkpoint was taken against another version of the file: nothing is applied, and
 * checkpointing did not start; start again with QUIRE_CHECKPOINT_EXISTING_DISCARD to
 * discard it); QUIRE_EEXIST (QUIRE_CHECKPOINT_EXISTING_REFUSE and the checkpoint holds
 * unsaved changes); QUIRE_ESTATE (already started); QUIRE_EIO; QUIRE_EFORMAT (not a
 * checkpoint file, or a whole record in it that cannot be decoded: nothing is applied and
 * the file stays for inspection).
 */
QUIRE_API int quire_document_start_checkpoints(int32_t *out_loaded, quire_document *doc,
                                     const quire_checkpoint_options *options);

/**
 * Stops keeping checkpoints (a no-op when they were not kept). The checkpoint file stays
 * for a later open to recover, unless `remove` is non-zero. Closing the document stops
 * them too (and keeps the file: for the timed strategy, what was pending is written first).
 * Both wait for asynchronous checkpoints still running.
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_document_stop_checkpoints(quire_document *doc, int32_t remove);

/**
 * Writes a checkpoint of every unsaved change now and waits until it is on disk.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ESTATE (checkpointing has not started); QUIRE_EIO.
 */
QUIRE_API int quire_document_checkpoint(quire_document *doc);

/** Called when a checkpoint started by `quire_document_checkpoint_async` is written (status
 *  QUIRE_OK) or has failed, on a background thread. It must not call the document (closing
 *  or stopping checkpoints waits for it). */
typedef void (*quire_checkpoint_done_fn)(int status, void *payload);

/**
 * Writes a checkpoint on a background thread, and calls `done` (if not NULL) there when it
 * is on disk. The changes it holds are taken before the call returns.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ESTATE (checkpointing has not started).
 */
QUIRE_API int quire_document_checkpoint_async(quire_document *doc, quire_checkpoint_done_fn done,
                                    void *payload);

/**
 * The path of the checkpoint file, through the length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EBUFS; QUIRE_ESTATE (checkpointing has not started).
 */
QUIRE_API int quire_document_checkpoint_path(char *buf, size_t buf_size, size_t *out_len,
                                   quire_document *doc);

/** What a checkpoint holds (`quire_checkpoint_info.state`). */
typedef enum quire_checkpoint_state {
    QUIRE_CHECKPOINT_NONE = 0x0F00,    /**< there is no checkpoint file */
    QUIRE_CHECKPOINT_EMPTY = 0x0F01,   /**< nothing to recover (empty, or a completed save holds it) */
    QUIRE_CHECKPOINT_CHANGES = 0x0F02, /**< unsaved changes, which loading applies */
    QUIRE_CHECKPOINT_STALE = 0x0F03,   /**< taken against another version of the file */
    QUIRE_CHECKPOINT_DAMAGED = 0x0F04  /**< not a checkpoint, or a record that cannot be decoded */
} quire_checkpoint_state;

/**
 * What `quire_document_inspect_checkpoint` found. Set `version` before the call (with
 * QUIRE_CHECKPOINT_INFO_INIT); the library writes only the fields of that version.
 */
typedef struct quire_checkpoint_info {
    uint32_t version;              /**< QUIRE_CHECKPOINT_INFO_VERSION */
    quire_checkpoint_state state;  /**< what the checkpoint holds */
    uint64_t size;                 /**< the file's size in bytes (0 when there is none) */
    double modified;               /**< when it was last written: seconds since 1970 (UTC) */
    size_t changed_objects;        /**< objects its unsaved changes create, change or delete */
    int32_t in_use;                /**< 1 when an open document (this one too) holds it */
} quire_checkpoint_info;

#define QUIRE_CHECKPOINT_INFO_VERSION 1
#define QUIRE_CHECKPOINT_INFO_INIT { QUIRE_CHECKPOINT_INFO_VERSION, QUIRE_CHECKPOINT_NONE, 0, 0.0, 0, 0 }

/**
 * Looks at the checkpoint that `quire_document_start_checkpoints` with the same `options`
 * would find (the same directory and UID), without applying, locking or changing anything:
 * so that a program can ask its user "Recover unsaved changes?" before starting, and then
 * start with QUIRE_CHECKPOINT_EXISTING_LOAD or _DISCARD. Only `directory` and `uid` of the
 * options are used.
 * out: filled (its `version` set by the caller).
 * options: NULL for the defaults.
 * Returns: QUIRE_OK (also when there is no checkpoint: state QUIRE_CHECKPOINT_NONE);
 * QUIRE_EINVAL (out is NULL, no UID for a document opened from memory, a UID that is not a
 * file name); QUIRE_EVERSION (a struct version newer than this library); QUIRE_EIO.
 * Thread safety: as every call on the document.
 */
QUIRE_API int quire_document_inspect_checkpoint(quire_checkpoint_info *out, quire_document *doc,
                                      const quire_checkpoint_options *options);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_CHECKPOINTS_H */
