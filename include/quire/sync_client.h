/**
 * @file quire/sync_client.h
 * @brief The sync client: Instant-style descriptors, download, two-way sync.
 *
 * A topic header of Quire's C interface. Programs include <quire.h>, which includes
 * every topic header; this one also compiles on its own, as it includes what it uses.
 * The conventions (status codes, ownership, strings, versioned structs) are in quire.h.
 */
#ifndef QUIRE_SYNC_CLIENT_H
#define QUIRE_SYNC_CLIENT_H

#include "common.h"
#include "document.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* Sync client: Instant-style descriptors, download, two-way sync                         */
/* ------------------------------------------------------------------------------------ */

/**
 * The client of a sync server (docs/sync-protocol.md; lifecycle in docs/sync-client.md),
 * as PSPDFKit Instant's InstantClient: made with the server's URL and a local data
 * directory, it gives one descriptor per (document, layer) that a JWT names. A descriptor
 * downloads the PDF (once per document, shared by its layers) and the layer's records into
 * a local store (SQLite, WAL, synchronous=FULL), gives the editable `quire_document`, and
 * keeps it in sync: every change made through the annotation, reply, review-state and
 * JSON-import functions becomes a pending mutation in the local store before the call
 * returns; syncs push them and pull the server's changes into the document.
 *
 * Threads: each descriptor has a worker thread (downloads, syncs, reauthentication: all
 * network and storage work), a listener thread while it listens, and an event thread on
 * which `on_event` is called, one event at a time, in order. `token_provider` is called on
 * the worker or the listener thread. The functions below may be called from any thread;
 * those that start work return at once, except the ones that say they wait. Callbacks
 * must not call `quire_descriptor_sync_now`, `quire_descriptor_wait_idle`,
 * `quire_descriptor_remove_local_storage`, `quire_client_remove_document_storage` or
 * `quire_client_close` (they wait for the threads the callbacks run on).
 *
 * The editable document may be used from any thread: every call on it holds the
 * descriptor's document lock, which the sync also holds while it applies the server's
 * changes, so edits and the sync never interleave.
 *
 * In a build without the HTTP client (QUIRE_NO_SERVER, used for the sanitizer and fuzz
 * builds) `quire_client_open` answers QUIRE_EUNSUPPORTED; the shipped library has it.
 */
typedef struct quire_client quire_client;

/** A (document, layer) of a client; borrowed: it lives as long as its client. */
typedef struct quire_descriptor quire_descriptor;

/** A descriptor's state (as Instant's). */
typedef enum quire_sync_state {
    QUIRE_SYNC_STATE_UNKNOWN = 0x2400,   /**< not downloaded, or its local storage removed */
    QUIRE_SYNC_STATE_CLEAN = 0x2401,     /**< downloaded, no local change waiting */
    QUIRE_SYNC_STATE_DIRTY = 0x2402,     /**< local changes wait to be pushed */
    QUIRE_SYNC_STATE_SENDING = 0x2403,   /**< pushing local changes */
    QUIRE_SYNC_STATE_RECEIVING = 0x2404, /**< downloading, or pulling the server's changes */
    QUIRE_SYNC_STATE_INVALID = 0x2405,   /**< the server refuses the layer (403, or the document is gone) */
    QUIRE_SYNC_STATE_NEEDS_RESET = 0x2406 /**< the server said "reset": the layer is fetched again */
} quire_sync_state;

/** What a `quire_sync_event` reports. */
typedef enum quire_sync_event_type {
    QUIRE_SYNC_EVENT_STATE_CHANGED = 0x2500,      /**< `state` is the new state */
    QUIRE_SYNC_EVENT_DOWNLOAD_PROGRESS = 0x2501,  /**< `completed` of `total` bytes (0: unknown) */
    QUIRE_SYNC_EVENT_DOWNLOAD_FINISHED = 0x2502,
    QUIRE_SYNC_EVENT_DOWNLOAD_FAILED = 0x2503,    /**< `status` and `message` say why */
    QUIRE_SYNC_EVENT_SYNC_FINISHED = 0x2504,
    QUIRE_SYNC_EVENT_SYNC_FAILED = 0x2505,        /**< `status` and `message`; local changes are kept */
    /** The server changed the records `record_ids` of the editable document
     *  (`quire_document_annotation_by_record_id` finds the annotation of each). */
    QUIRE_SYNC_EVENT_DOCUMENT_CHANGED = 0x2506,
    /** The local changes of `record_id` not yet acknowledged were dropped: the server's
     *  record won (`reason` "conflict": another client changed or deleted it first) or
     *  refused it ("invalid"); the document now shows the server's record. `change_ids`
     *  (version 2) names the local changes dropped (`quire_descriptor_last_change_id`),
     *  `client_seq` the refused mutation. `fields` (version 3) names the fields that lost
     *  to another client's change of the same fields (docs/sync-protocol.md, "Field-level
     *  merge"): when the change's other fields were merged and kept, only these were
     *  dropped; empty when the whole change was. */
    QUIRE_SYNC_EVENT_CHANGE_DROPPED = 0x2507,
    /** The token expired or was refused, or there is none (the first event after a
     *  restart: tokens are not stored): call `quire_descriptor_reauthenticate`. */
    QUIRE_SYNC_EVENT_AUTHENTICATION_NEEDED = 0x2508,
    QUIRE_SYNC_EVENT_REAUTHENTICATION_FINISHED = 0x2509,
    QUIRE_SYNC_EVENT_REAUTHENTICATION_FAILED = 0x250A, /**< `status` and `message` */
    /** The client found that its copy of the records `record_ids` differed from the
     *  server's (the layer's digest did not match) and fetched them again; the document
     *  shows the server's records. `message` says what differed. Counted by
     *  `quire_descriptor_repairs`. Never expected: report it. */
    QUIRE_SYNC_EVENT_RECORDS_REPAIRED = 0x250B,
    /** Who is connected to the layer changed (version 4): `presence` is the list, a JSON
     *  array of members (`user_id`, `client_id`, `since`, `cursor`; docs/sync-protocol.md,
     *  "Presence"). Only while the descriptor listens over quire-server's WebSocket. A
     *  program ignores event types it does not know, as this one is new in version 4. */
    QUIRE_SYNC_EVENT_PRESENCE_CHANGED = 0x250C
} quire_sync_event_type;

/** One event, borrowed: valid only during the `on_event` call. */
typedef struct quire_sync_event {
    uint32_t version;            /**< QUIRE_SYNC_EVENT_VERSION */
    quire_sync_event_type type;  /**< what happened */
    quire_sync_state state;      /**< the descriptor's state (the new one for STATE_CHANGED) */
    int status;                  /**< QUIRE_OK, or the status of a failure */
    const char *message;         /**< the failure's or the dropped change's message; NULL otherwise */
    const char *record_id;       /**< CHANGE_DROPPED: the record; NULL otherwise */
    const char *reason;          /**< CHANGE_DROPPED: "conflict", "invalid" or "forbidden" (collaboration permissions); NULL otherwise */
    const char *const *record_ids; /**< DOCUMENT_CHANGED, RECORDS_REPAIRED: the records; NULL otherwise */
    size_t record_id_count;      /**< how many `record_ids` there are */
    int64_t completed;           /**< DOWNLOAD_PROGRESS: bytes received */
    int64_t total;               /**< DOWNLOAD_PROGRESS: bytes expected, 0 when unknown */
    /* Version 2: read these only when `version` >= 2. */
    int64_t client_seq;          /**< CHANGE_DROPPED: the refused mutation's client sequence number; 0 otherwise */
    const int64_t *change_ids;   /**< CHANGE_DROPPED: the local change ids dropped, oldest first; NULL otherwise */
    size_t change_id_count;      /**< how many `change_ids` there are */
    /* Version 3: read these only when `version` >= 3. */
    const char *const *fields;   /**< CHANGE_DROPPED: the fields lost to concurrent changes; NULL otherwise */
    size_t field_count;          /**< how many `fields` there are */
    /* Version 4: read this only when `version` >= 4. */
    const char *presence;        /**< PRESENCE_CHANGED: the members, a JSON array (UTF-8); NULL otherwise */
} quire_sync_event;

/** The version of `quire_sync_event` this header describes (2: `client_seq` and
 *  `change_ids`; 3: `fields`; 4: `presence`). The library fills the struct; a program reads
 *  the fields of the version the event carries, so one built against an older version
 *  keeps working. */
#define QUIRE_SYNC_EVENT_VERSION 4

/** Called with each event of `descriptor`, on its event thread. */
typedef void (*quire_sync_event_fn)(quire_descriptor *descriptor, const quire_sync_event *event, void *payload);

/** Asked for a fresh JWT for `descriptor` when it has none or the server refused it, on
 *  its worker or listener thread. Return a NUL-terminated token (the library copies it
 *  before the callback returns again; keep it valid until then) or NULL for none. */
typedef const char *(*quire_token_provider_fn)(quire_descriptor *descriptor, void *payload);

/**
 * The callbacks of a client. Initialise with QUIRE_CLIENT_CALLBACKS_INIT or
 * `quire_client_callbacks_init`. Both may be NULL.
 */
typedef struct quire_client_callbacks {
    uint32_t version;                     /**< QUIRE_CLIENT_CALLBACKS_VERSION */
    quire_sync_event_fn on_event;         /**< every descriptor's events */
    quire_token_provider_fn token_provider; /**< a fresh token, beyond Instant; NULL: none */
    void *payload;                        /**< passed to both */
} quire_client_callbacks;

/** The current version of `quire_client_callbacks`. */
#define QUIRE_CLIENT_CALLBACKS_VERSION 1
/** Initialiser for `quire_client_callbacks`: no callbacks. */
#define QUIRE_CLIENT_CALLBACKS_INIT { QUIRE_CLIENT_CALLBACKS_VERSION, NULL, NULL, NULL }

/**
 * Fills `callbacks` with the defaults of `version` (no callbacks).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_client_callbacks_init(quire_client_callbacks *callbacks, unsigned version);

/**
 * The configuration of a client. Initialise with QUIRE_CLIENT_CONFIG_INIT or
 * `quire_client_config_init`, then set `server_url` and `data_directory`.
 */
typedef struct quire_client_config {
    uint32_t version;           /**< QUIRE_CLIENT_CONFIG_VERSION */
    /** The server's base URL, "http://host:port" or "https://host/prefix" (TLS with the
     *  system's trust roots). Required. */
    const char *server_url;
    /** The local data directory (created if missing): `documents/ID/document.pdf` and
     *  `documents/ID/layers/LAYER.sqlite` (ID: the document id, LAYER: the layer). Required. */
    const char *data_directory;
    /** Seconds after a local change before the automatic sync; 0 turns it off; negative
     *  is the default (1 s). */
    double auto_sync_delay;
    /** Seconds one long poll of the listener waits (1 to 60); 0 is the default (25). */
    int32_t listen_wait_seconds;
    /** Timeout of other requests in seconds; 0 is the default (60). */
    int32_t request_timeout_seconds;
} quire_client_config;

/** The current version of `quire_client_config`. */
#define QUIRE_CLIENT_CONFIG_VERSION 1
/** Initialiser for `quire_client_config`: no URL or directory yet, the default delays. */
#define QUIRE_CLIENT_CONFIG_INIT { QUIRE_CLIENT_CONFIG_VERSION, NULL, NULL, -1.0, 0, 0 }

/**
 * Fills `config` with the defaults of `version`.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_client_config_init(quire_client_config *config, unsigned version);

/**
 * Makes a client. Nothing is sent until a descriptor downloads or syncs.
 * out: receives the client, owned by the caller; release with `quire_client_close`.
 * callbacks: may be NULL; copied (by its version).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments, a URL that is not http or https, a
 * setting out of range); QUIRE_EIO (the data directory cannot be made); QUIRE_EVERSION;
 * QUIRE_EUNSUPPORTED (a build without the HTTP client).
 */
QUIRE_API int quire_client_open(quire_client **out, const quire_client_config *config,
                                const quire_client_callbacks *callbacks);

/**
 * Stops every descriptor's listening, waits for the work they run, closes their stores
 * and frees the client and its descriptors. Editable documents obtained from them stay
 * valid (they are the caller's) but are no longer synced. NULL is a no-op. Must not be
 * called from a callback.
 */
QUIRE_API void quire_client_close(quire_client *client);

/**
 * The descriptor of the document and layer that `jwt` names (its `document_id` and
 * `layer` claims are read without checking the signature: the server does that): the same
 * descriptor for the same pair. The token is not kept (pass it to
 * `quire_descriptor_download` or `quire_descriptor_reauthenticate`).
 * out: receives the descriptor, borrowed from the client.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments, a token that is not a JWT with these
 * claims, or whose ids are not of the protocol); QUIRE_EIO (its local store cannot be read).
 */
QUIRE_API int quire_client_descriptor_for_jwt(quire_descriptor **out, quire_client *client, const char *jwt);

/**
 * Removes a document's local storage: its PDF and every layer's store (pending changes
 * included). Its descriptors go back to QUIRE_SYNC_STATE_UNKNOWN.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or not an id); QUIRE_EIO.
 */
QUIRE_API int quire_client_remove_document_storage(quire_client *client, const char *document_id);

/**
 * Removes the cached PDFs of documents none of whose layers is stored.
 * out_removed: may be NULL; receives how many documents were removed.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EIO.
 */
QUIRE_API int quire_client_remove_unused_cache(size_t *out_removed, quire_client *client);

/**
 * The descriptor's document id or layer, through the length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EBUFS.
 */
QUIRE_API int quire_descriptor_document_id(char *buf, size_t buf_size, size_t *out_len, const quire_descriptor *descriptor);
QUIRE_API int quire_descriptor_layer(char *buf, size_t buf_size, size_t *out_len, const quire_descriptor *descriptor);

/** The descriptor's state now. Returns: QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_descriptor_state(quire_sync_state *out, const quire_descriptor *descriptor);

/**
 * Starts downloading the PDF (unless cached) and the layer's records with `jwt`, on the
 * worker thread: DOWNLOAD_PROGRESS, then DOWNLOAD_FINISHED or DOWNLOAD_FAILED. Local
 * changes not yet pushed are kept.
 * Returns: QUIRE_OK (started); QUIRE_EINVAL (NULL, or a token for another document or
 * layer); QUIRE_EBUSY (a download of this descriptor is running: one at a time).
 */
QUIRE_API int quire_descriptor_download(quire_descriptor *descriptor, const char *jwt);

/**
 * The editable document: the cached PDF with the layer's records and the local changes.
 * out: receives a new reference, owned by the caller (close it with
 * `quire_document_close`; the descriptor keeps its own). The same document each time.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ESTATE (not downloaded); QUIRE_EIO.
 */
QUIRE_API int quire_descriptor_document(quire_document **out, quire_descriptor *descriptor);

/** Starts a sync (push, then pull) on the worker thread: SYNC_FINISHED or SYNC_FAILED
 *  follows. Returns: QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_descriptor_sync(quire_descriptor *descriptor);

/**
 * Syncs and waits for the end (after the work already queued). Must not be called from a
 * callback.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ESTATE (not downloaded); QUIRE_EAUTH (no token,
 * or the server refused it); QUIRE_ENETWORK (the server cannot be reached or failed);
 * QUIRE_EIO (the local store); QUIRE_EFORMAT (an answer not of the protocol).
 */
QUIRE_API int quire_descriptor_sync_now(quire_descriptor *descriptor);

/**
 * Downloads as `quire_descriptor_download` does, and waits for the end (after the work
 * already queued): the failure that DOWNLOAD_FAILED reports is this call's status, with
 * its message in `quire_last_error_message`. Must not be called from a callback.
 * Returns: QUIRE_OK (downloaded); QUIRE_EINVAL (NULL, or a token for another document or
 * layer); QUIRE_EBUSY (a download of this descriptor is running); QUIRE_EAUTH (the server
 * refused the token: expired, wrong key, no permission, the document is gone);
 * QUIRE_ENETWORK; QUIRE_EIO; QUIRE_EFORMAT.
 */
QUIRE_API int quire_descriptor_download_now(quire_descriptor *descriptor, const char *jwt);

/**
 * Waits until the work queued so far on the worker thread and its events are done. When
 * the last download queued failed (and none succeeded since), its failure is this call's
 * status, as `quire_descriptor_download_now` would return it: a download that fails is
 * never silent. Failed syncs are not (their changes stay pending and are retried; see
 * SYNC_FAILED or `quire_descriptor_sync_now`). Must not be called from a callback.
 * Returns: QUIRE_OK; QUIRE_EINVAL; or the failed download's status.
 */
QUIRE_API int quire_descriptor_wait_idle(quire_descriptor *descriptor);

/**
 * Replaces the token and checks it with the server on the worker thread:
 * REAUTHENTICATION_FINISHED and a sync, or REAUTHENTICATION_FAILED (the old token is kept).
 * Returns: QUIRE_OK (started); QUIRE_EINVAL (NULL, or a token for another document or layer).
 */
QUIRE_API int quire_descriptor_reauthenticate(quire_descriptor *descriptor, const char *jwt);

/** Sets the delay of the automatic sync after local changes, in seconds (0: off; at most
 *  86400). Returns: QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_descriptor_set_auto_sync_delay(quire_descriptor *descriptor, double seconds);

/** Starts (`on` non-zero) or stops listening for the server's changes: a long poll on the
 *  listener thread, each change starting a sync. Returns: QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_descriptor_set_listening(quire_descriptor *descriptor, int on);

/** How many local changes are not yet acknowledged by the server. Returns: QUIRE_OK;
 *  QUIRE_EINVAL; QUIRE_EIO. */
QUIRE_API int quire_descriptor_pending_changes(size_t *out, quire_descriptor *descriptor);

/**
 * The id of the latest local change of this layer: each call on the editable document
 * that changes its records (an edit, a reply, an import, a tool manager's step or undo) is
 * one local change, numbered 1, 2, ... for the life of the local store. Read it after the
 * call returns to know that change's id: CHANGE_DROPPED names the ids it drops, so a
 * program can tell a dropped edit from one that reached the server. 0: none yet.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EIO.
 */
QUIRE_API int quire_descriptor_last_change_id(int64_t *out, quire_descriptor *descriptor);

/**
 * The client's records of the layer, as annotation JSON (`{"annotations": [...]}`, each
 * record in canonical form: compact, keys sorted, without `pdfObjectId`): the server's
 * records as last synced with the local changes not yet acknowledged on top. After a sync
 * that ends CLEAN they equal the server's byte for byte (docs/sync-client.md), and so
 * does the editable document's export of them. Length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ESTATE (not downloaded); QUIRE_EIO; QUIRE_EBUFS.
 */
QUIRE_API int quire_descriptor_records_json(char *buf, size_t buf_size, size_t *out_len, quire_descriptor *descriptor);

/**
 * How many times the client found its records differing from the server's and fetched
 * them again (RECORDS_REPAIRED events), for the life of the local store. 0 is the only
 * expected value.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EIO.
 */
QUIRE_API int quire_descriptor_repairs(int64_t *out, quire_descriptor *descriptor);

/**
 * Removes this layer's local store (`documents/ID/layers/LAYER.sqlite` with its -wal and
 * -shm files), pending changes included; the document's PDF stays for its other layers
 * (`quire_client_remove_unused_cache`). The editable document is detached (it keeps its
 * annotations, unsynced) and the state goes back to UNKNOWN. Must not be called from a
 * callback.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EIO.
 */
QUIRE_API int quire_descriptor_remove_local_storage(quire_descriptor *descriptor);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_SYNC_CLIENT_H */
