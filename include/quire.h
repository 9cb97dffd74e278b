/*
 * quire.h: the stable C interface of Quire, a PDF annotation and collaboration engine.
 *
 * This header is the contract. The library implements every function below in Swift with
 * `@c @implementation`, so an implementation that drifts from a declaration here does not
 * compile. Only the `quire_*` symbols declared here are exported from libquire.so.
 *
 * Conventions (see the README for the long form):
 *
 *  - Status: functions return `int`: QUIRE_OK (0) or a negative QUIRE_E* code. When a
 *    function fails, `quire_last_error_message()` on the same thread describes why.
 *  - Out-parameters come first. An out-parameter is written only on success, except the
 *    `out_len` of the length-query functions, which is also written on QUIRE_EBUFS.
 *  - Ownership: a handle returned through `**out` is owned by the caller and released with
 *    its own `_close`/`_free` (passing NULL to it is a no-op). Strings returned as
 *    `const char *` are owned by the library; each function says how long they live.
 *  - Strings: UTF-8. Strings come back through the length-query pattern: pass `buf` NULL and
 *    `buf_size` 0 to learn the length in `*out_len` (bytes, without the terminating NUL;
 *    the call returns QUIRE_OK); then pass a buffer of at least `*out_len + 1` bytes. A
 *    buffer that is too small gives QUIRE_EBUFS, sets `*out_len`, and leaves the buffer
 *    untouched. On success the buffer holds the string and a terminating NUL. Text taken
 *    from a PDF may contain NUL bytes; `*out_len` counts them, so the buffer is binary-safe.
 *    A NULL `out_len`, or a NULL `buf` with a non-zero `buf_size`, gives QUIRE_EINVAL.
 *  - Indices: page and list indices are zero-based `int32_t`; an index out of range gives
 *    QUIRE_ERANGE.
 *  - Versioned structs start with `uint32_t version`, and have an `_INIT` macro and a
 *    `quire_*_init(struct *, unsigned version)` function; always initialise them with one
 *    of the two. The library reads `version` first and then only the fields that version
 *    has, so a program built against an older header keeps working as the struct grows; a
 *    version newer than the library knows gives QUIRE_EVERSION. Arrays of such structs
 *    are passed as arrays of pointers, so that they can grow too.
 *  - Constants come in families, each a typedef'd enum with a block of 256 values of its
 *    own (0x0100, 0x0200, ..., 0x1000): passing a constant of one family where another is expected is a
 *    compiler warning in C (-Wextra's -Wenum-conversion) and an error in C++, and the
 *    library refuses it with QUIRE_EINVAL when it arrives through a binding.
 *  - Boolean getters are named `is_X`/`has_X` (or `X_enabled` for a switch with a
 *    `set_X_enabled`), and give 1 or 0 through an `int32_t *`.
 *  - Every function is declared with QUIRE_API, and exported with a symbol version per
 *    release (QUIRE_0.5, ...): docs/abi.md says what is stable and how it grows.
 *  - Nothing traps: hostile input produces a status and a message, never a crash.
 *
 * Layout: this file holds the versions and includes the rest, a header per topic in
 * include/quire/, quire/common.h first (QUIRE_API, the status codes and the last error,
 * quire_rect). Include this file; a topic header alone compiles too.
 *
 * Thread safety: the functions that take no handle may be called from any thread. A
 * `quire_document` must be used by one thread at a time (external locking is the caller's
 * job); different documents may be used on different threads in parallel. The last error is
 * kept per thread.
 */
#ifndef QUIRE_H
#define QUIRE_H

#include "quire/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* Versions                                                                              */
/* ------------------------------------------------------------------------------------ */

/** Major version: bumped when the ABI changes incompatibly. Part of the soname (with the
 *  minor version while the major is 0, when a minor release may break the ABI: see
 *  docs/abi.md). */
#define QUIRE_VERSION_MAJOR 0
/** Minor version: bumped when functions or struct fields are added compatibly (from 1.0
 *  on; before, also when the ABI changes). */
#define QUIRE_VERSION_MINOR 5
/** Patch version: bumped for fixes that change no interface. */
#define QUIRE_VERSION_PATCH 0
/** The version as one number: MAJOR * 1000000 + MINOR * 1000 + PATCH. */
#define QUIRE_VERSION_NUMBER \
    (QUIRE_VERSION_MAJOR * 1000000 + QUIRE_VERSION_MINOR * 1000 + QUIRE_VERSION_PATCH)
/** The version as a string, "MAJOR.MINOR.PATCH". */
#define QUIRE_VERSION_STRING "0.5.0"

/**
 * The version of the library that is loaded, as "MAJOR.MINOR.PATCH".
 *
 * Compare with QUIRE_VERSION_STRING to detect a header/library mismatch.
 * Returns: a static string, never NULL; do not free it.
 * Thread safety: any thread.
 */
QUIRE_API const char *quire_version(void);

/**
 * The version of the library that is loaded, as MAJOR * 1000000 + MINOR * 1000 + PATCH.
 *
 * A binding should refuse a library whose major version it does not know.
 * Thread safety: any thread.
 */
QUIRE_API int32_t quire_version_number(void);

/**
 * What this build of the library is, for bug reports (`quire doctor` prints the same for
 * the command-line tool): one JSON object in UTF-8, through the length-query pattern, with
 * "version" (as `quire_version`), "abi" and "soname" ("0.5", "libquire.so.0.5", or
 * "libquire-postgres.so.0.5" in the library's PostgreSQL flavour), "build"
 * ("release" or "debug"), "features" (booleans: "sync_service", the sync service's core
 * and SQLite store, always there; "sync_client", the HTTP client of `quire_client_open`,
 * absent from a build made with QUIRE_NO_SERVER; "tls", https for that client;
 * "postgresql", the sync service's PostgreSQL store: quire-server's, and in the library
 * only in its PostgreSQL flavour, libquire-postgres), "checkpoint_directory"
 * (where checkpoints go by default, from this process's environment), "environment" (the
 * variables that change it: XDG_STATE_HOME, HOME, QUIRE_LIBRARY, or null), "limits" (the
 * defaults of `quire_open_options`) and "platform" (uname's system, release and machine).
 * Later versions may add keys; none is removed or changes meaning within a major version.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `out_len`); QUIRE_EBUFS.
 * Thread safety: any thread.
 */
QUIRE_API int quire_build_info(char *buf, size_t buf_size, size_t *out_len);

#ifdef __cplusplus
}
#endif

/* The topics, one header each (as libgit2's git2.h includes its topic headers), in the
 * order of the interface's sections. Each includes what it uses and compiles on its own. */
#include "quire/document.h"        /* opening, closing, what a document says of itself */
#include "quire/outline.h"         /* the outline and page labels */
#include "quire/objects.h"         /* low-level objects and editing them */
#include "quire/save.h"            /* saving */
#include "quire/pages.h"           /* page boxes, rotation */
#include "quire/annotations.h"     /* annotations, replies, review states, bulk reads */
#include "quire/forms.h"           /* AcroForm fields, flattening, XFDF */
#include "quire/long_operations.h" /* progress and cancellation; export and import */
#include "quire/bookmarks.h"       /* bookmarks and their providers */
#include "quire/checkpoints.h"     /* crash recovery of unsaved changes */
#include "quire/sync_service.h"    /* the sync service's request handler */
#include "quire/text.h"            /* text extraction, search, selection, highlights */
#include "quire/sync_client.h"     /* the sync client: descriptors, download, sync */
#include "quire/tools.h"           /* the headless tool manager */
#include "quire/encryption.h"      /* encrypting, changing passwords, decrypting */
#include "quire/signatures.h"      /* digital signatures: signing and validation */
#include "quire/redaction.h"       /* redaction: Redact annotations, applied for good */

#endif /* QUIRE_H */
