/**
 * @file quire/sync_service.h
 * @brief The sync service's request handler, for hosts that serve the sync protocol
 * themselves.
 *
 * A topic header of Quire's C interface. Programs include <quire.h>, which includes
 * every topic header; this one also compiles on its own, as it includes what it uses.
 * The conventions (status codes, ownership, strings, versioned structs) are in quire.h.
 */
#ifndef QUIRE_SYNC_SERVICE_H
#define QUIRE_SYNC_SERVICE_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* Sync service: the request handler                                                     */
/* ------------------------------------------------------------------------------------ */

/**
 * The sync service of docs/sync-protocol.md (documents, layers, a change feed, JWTs), run
 * inside the caller's own HTTP server: a Python, Go or Node backend passes each request
 * (method, target, headers, body) to `quire_sync_service_handle` and sends back the
 * response. The same core serves `quire-server`; every rule of the protocol is in the
 * core, none in the host.
 *
 * Thread safety: a service may be used by any number of threads at once (one request per
 * thread); `quire_sync_service_handle` blocks its thread while a long poll waits, while
 * `quire_sync_service_handle_async` returns at once and answers through a callback on a
 * library thread (for event-loop hosts such as Node).
 */
typedef struct quire_sync_service quire_sync_service;

/** A response of `quire_sync_service_handle`, owned by the caller; release with
 *  `quire_sync_response_free`. Its strings and body live as long as it does. */
typedef struct quire_sync_response quire_sync_response;

/**
 * Configuration of a sync service. Initialise with QUIRE_SYNC_CONFIG_INIT or
 * `quire_sync_config_init`, then set the fields you need.
 */
typedef struct quire_sync_config {
    uint32_t version; /**< QUIRE_SYNC_CONFIG_VERSION */
    /** Where the service keeps its data, required: "sqlite:///absolute/path/quire.db" or
     *  "sqlite://relative/path.db" (from the working directory at open, as quire-server
     *  takes it; created if missing), or "sqlite::memory:" (for tests: gone when closed).
     *  There is no default: a service that would lose everything on close is asked for by
     *  name, never given by omission. The PostgreSQL flavour of the library,
     *  libquire-postgres (`make lib-postgres`, `pkg-config quire-postgres`: the same
     *  functions, and 88 MB installed instead of 42), also takes
     *  "postgres://user:password@host:port/database" (or "postgresql://"; `?host=/socket/dir`
     *  and `?sslmode=disable|prefer|require`), as quire-server's --store does: several
     *  processes on one database, each long poll woken by the others' pushes
     *  (LISTEN/NOTIFY). A PostgreSQL store connects in the background: the open does not
     *  wait for the server, and while it cannot be reached each request is answered 500
     *  `internal` after 10 s. This library, when it is not that flavour, answers such a
     *  URL with QUIRE_EUNSUPPORTED, naming the flavour. */
    const char *store;
    /** The public keys that verify JWTs, as PEM texts (RSA or EC; RS256, RS512, ES256,
     *  ES512 only): `public_key_count` pointers. */
    const char *const *public_keys;
    size_t public_key_count; /**< how many `public_keys` there are */
    /** A JWKS document (JSON text) with more public keys, or NULL. */
    const char *jwks;
    /** The token of the admin API (`Authorization: Token ...`); NULL turns the admin API
     *  off. */
    const char *admin_token;
    /** Largest request body other than a PDF upload, in bytes; 0 for the default (8 MiB). */
    uint64_t max_body_bytes;
    /** Largest PDF upload, in bytes; 0 for the default (256 MiB). */
    uint64_t max_upload_bytes;
    /** Version 2: largest attachment upload (an image of an image annotation, a file of a
     *  file attachment annotation), in bytes; 0 for the default (8 MiB). At most 64 MiB
     *  (an image is at most 16 MiB whatever this says); more is QUIRE_EINVAL at open. */
    uint64_t max_attachment_bytes;
    /** Version 2: most long polls waiting at once in this service; 0 for the default
     *  (10,000). Past it a long poll is answered 503 `busy` with Retry-After; more than
     *  2,147,483,647 is QUIRE_EINVAL at open. */
    uint64_t max_listeners;
    /** Version 3: the grace period of attachment collection, in seconds: an attachment
     *  that no record names is deleted once its last upload is at least this old (a client
     *  uploads an attachment again before each push naming it, so this only has to be
     *  longer than one push). 0 for the default (3,600); QUIRE_SYNC_GRACE_NONE (-1) collects
     *  at once, for tests. Below -1 or above 2,147,483,647 is QUIRE_EINVAL at open. */
    int64_t attachment_grace_seconds;
} quire_sync_config;

/** `quire_sync_config.attachment_grace_seconds` for no grace period at all: an attachment
 *  that no record names is collected at once. It is for tests: a client's push may then
 *  find its attachment gone (409 `missing_attachment`), and libquire's client uploads it
 *  again. */
#define QUIRE_SYNC_GRACE_NONE (-1)

/** The current version of `quire_sync_config` (2 added `max_attachment_bytes` and
 *  `max_listeners`, 3 `attachment_grace_seconds`; a version 1 struct, 64 bytes on LP64,
 *  and a version 2 struct, 80 bytes, are read as they are). */
#define QUIRE_SYNC_CONFIG_VERSION 3
/** Initialiser for `quire_sync_config`: no store yet (set `store`), no keys, no admin
 *  API, the default limits. */
#define QUIRE_SYNC_CONFIG_INIT { QUIRE_SYNC_CONFIG_VERSION, NULL, NULL, 0, NULL, NULL, 0, 0, 0, 0, 0 }

/**
 * Fills `config` with the defaults of `version` and sets its version (QUIRE_SYNC_CONFIG_INIT
 * for bindings that cannot use the macro).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_sync_config_init(quire_sync_config *config, unsigned version);

/**
 * Opens a sync service: its store (migrated to the current schema) and its keys.
 * out: receives the service, owned by the caller; release with `quire_sync_service_close`.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments, no store, an unknown store URL scheme, a key that
 * is not a PEM public key, JWKS that does not parse); QUIRE_EVERSION; QUIRE_EIO (the store
 * cannot be opened); QUIRE_EFORMAT (a store file that is not Quire's); QUIRE_EUNSUPPORTED
 * (a postgres:// store given to a library that is not the PostgreSQL flavour,
 * libquire-postgres).
 */
QUIRE_API int quire_sync_service_open(quire_sync_service **out, const quire_sync_config *config);

/**
 * Stops the service from waiting: every long poll in progress answers now, and later
 * requests get 503 `unavailable`. Call it before `quire_sync_service_close` while other
 * threads may still be inside `quire_sync_service_handle`.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL).
 */
QUIRE_API int quire_sync_service_shutdown(quire_sync_service *service);

/** Closes a service (after `quire_sync_service_shutdown` and once no thread is inside
 *  `quire_sync_service_handle`): its store is closed before this returns (for SQLite, the
 *  file closed and its WAL checkpointed and removed), so the host may reopen, copy or
 *  remove the store's file at once. Blocks while a group commit finishes. NULL is a no-op. */
QUIRE_API void quire_sync_service_close(quire_sync_service *service);

/** One request or response header: a name and a value, NUL-terminated UTF-8. */
typedef struct quire_sync_header {
    const char *name;  /**< the header's name, in any case */
    const char *value; /**< its value */
} quire_sync_header;

/**
 * Handles one HTTP request of the sync protocol and gives its response. Every outcome,
 * including the caller's mistakes and hostile input, is a response (a JSON error with a
 * 4xx or 5xx status); a status other than QUIRE_OK means the call itself was wrong.
 * method: "GET", "POST", "DELETE", ...; target: the path and query as sent
 * ("/documents/d1/layers/l1/changes?since=4&wait=20"), percent-encoded.
 * headers: `header_count` headers (names in any case); NULL when the count is 0.
 * body: `body_len` bytes, or NULL when 0.
 * out: receives the response, owned by the caller.
 * Blocks the calling thread during a long poll (at most the request's `wait`, 60 s).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments, a NULL header name or value).
 */
QUIRE_API int quire_sync_service_handle(quire_sync_response **out, quire_sync_service *service,
                                        const char *method, const char *target,
                                        const quire_sync_header *headers, size_t header_count,
                                        const void *body, size_t body_len);

/** The HTTP status of `response` (200, 201, 204, 4xx, 5xx). Returns: QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_sync_response_status(int32_t *out, const quire_sync_response *response);

/** How many headers `response` has. Returns: QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_sync_response_header_count(size_t *out, const quire_sync_response *response);

/**
 * Header `index` of `response`: its name and value, borrowed (valid until the response is
 * freed). Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE.
 */
QUIRE_API int quire_sync_response_header(const char **out_name, const char **out_value,
                                         const quire_sync_response *response, size_t index);

/**
 * The body of `response`: `*out_data` (borrowed, valid until the response is freed; NULL
 * when empty) and its length. Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_sync_response_body(const void **out_data, size_t *out_len,
                                       const quire_sync_response *response);

/** Releases a response. NULL is a no-op. */
QUIRE_API void quire_sync_response_free(quire_sync_response *response);

/* ------------------------------------------------------------------------------------ */
/* Sync service: the asynchronous handler, for event-loop hosts (Node, libuv, asyncio)   */
/* ------------------------------------------------------------------------------------ */

/** A request in progress of `quire_sync_service_handle_async`, owned by the caller; cancel
 *  it with `quire_sync_call_cancel`, release it with `quire_sync_call_free`. */
typedef struct quire_sync_call quire_sync_call;

/**
 * The completion of `quire_sync_service_handle_async`: called exactly once per request,
 * on a thread of the library (never inside `quire_sync_service_handle_async` itself, never
 * on the caller's thread unless that is one of the library's; possibly before
 * `quire_sync_service_handle_async` has returned to the caller), with the response, which the
 * callback owns (release it with `quire_sync_response_free`, from any thread). `payload` is
 * the caller's pointer, passed through. The callback must return quickly and must not call
 * back into the service's blocking functions (`quire_sync_service_handle`,
 * `quire_sync_service_shutdown`, `quire_sync_service_close`): it runs on a thread the
 * library's other requests share; an event-loop host hands the response to its loop (Node:
 * a thread-safe function; libuv: uv_async_send) and returns.
 */
typedef void (*quire_sync_completion)(quire_sync_response *response, void *payload);

/**
 * Handles one request like `quire_sync_service_handle`, without blocking: the request
 * (method, target, headers, body) is copied before this returns, and `completion` gets the
 * response later on a library thread, while a long poll waits without holding any thread.
 * Every outcome is a response, as with the blocking handler.
 * out_call: receives the request's handle, owned by the caller (release it with
 * `quire_sync_call_free`, before or after the completion ran); NULL when the caller will
 * never cancel.
 * completion: required; payload: passed to it as it is.
 * The service must stay open until every completion has run: call
 * `quire_sync_service_shutdown` (long polls answer at once), wait for the completions, then
 * `quire_sync_service_close`.
 * Returns: QUIRE_OK (the completion will run exactly once); QUIRE_EINVAL (NULL arguments, a
 * NULL header name or value; the completion will not run).
 */
QUIRE_API int quire_sync_service_handle_async(quire_sync_call **out_call, quire_sync_service *service,
                                              const char *method, const char *target,
                                              const quire_sync_header *headers, size_t header_count,
                                              const void *body, size_t body_len,
                                              quire_sync_completion completion, void *payload);

/**
 * Cancels a request of `quire_sync_service_handle_async` whose client went away: a long
 * poll stops waiting at once, other work stops where it may. The completion still runs
 * exactly once (with whatever response the service gives, which the host then drops). A
 * request that already completed is left as it is; cancelling twice is harmless.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL).
 */
QUIRE_API int quire_sync_call_cancel(quire_sync_call *call);

/** Releases the caller's handle of a request (it does not cancel it: the completion still
 *  runs). NULL is a no-op. */
QUIRE_API void quire_sync_call_free(quire_sync_call *call);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_SYNC_SERVICE_H */
