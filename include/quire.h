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
 * Thread safety: the functions that take no handle may be called from any thread. A
 * `quire_document` must be used by one thread at a time (external locking is the caller's
 * job); different documents may be used on different threads in parallel. The last error is
 * kept per thread.
 */
#ifndef QUIRE_H
#define QUIRE_H

#include <stddef.h>
#include <stdint.h>

/** Marks every function of the interface: exported from libquire.so (whose other symbols
 *  are hidden), and a plain declaration for compilers without visibility attributes. */
#if defined(__GNUC__) && __GNUC__ >= 4
#define QUIRE_API __attribute__((visibility("default")))
#else
#define QUIRE_API
#endif

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
 * "version" (as `quire_version`), "abi" and "soname" ("0.5", "libquire.so.0.5"), "build"
 * ("release" or "debug"), "features" (booleans: "sync_service", the sync service's core
 * and SQLite store, always there; "sync_client", the HTTP client of `quire_client_open`,
 * absent from a build made with QUIRE_NO_SERVER; "tls", https for that client;
 * "postgresql", the PostgreSQL store, which only quire-server has), "checkpoint_directory"
 * (where checkpoints go by default, from this process's environment), "environment" (the
 * variables that change it: XDG_STATE_HOME, HOME, QUIRE_LIBRARY, or null), "limits" (the
 * defaults of `quire_open_options`) and "platform" (uname's system, release and machine).
 * Later versions may add keys; none is removed or changes meaning within a major version.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `out_len`); QUIRE_EBUFS.
 * Thread safety: any thread.
 */
QUIRE_API int quire_build_info(char *buf, size_t buf_size, size_t *out_len);

/* ------------------------------------------------------------------------------------ */
/* Status codes and errors                                                               */
/* ------------------------------------------------------------------------------------ */

/** Success. */
#define QUIRE_OK 0
/** An argument is invalid: a NULL pointer where one is required, an unknown enum value. */
#define QUIRE_EINVAL (-1)
/** Memory could not be allocated. */
#define QUIRE_ENOMEM (-2)
/** The operating system failed a read or a write (the message names the call and errno). */
#define QUIRE_EIO (-3)
/** What was asked for does not exist: a missing file, a metadata key that is not set. */
#define QUIRE_ENOTFOUND (-4)
/** The data is not a PDF, or is damaged beyond what the parser can repair. */
#define QUIRE_EFORMAT (-5)
/** The document is encrypted and the password given does not open it. */
#define QUIRE_EPASSWORD (-6)
/** The document uses a feature this version of Quire does not support. */
#define QUIRE_EUNSUPPORTED (-7)
/** A safety limit was exceeded (nesting depth, object count, decompressed size, ...). */
#define QUIRE_ELIMIT (-8)
/** An index is out of range. */
#define QUIRE_ERANGE (-9)
/** The caller's buffer is too small; `*out_len` holds the length needed. */
#define QUIRE_EBUFS (-10)
/** A caller-supplied callback returned non-zero and so aborted the operation. */
#define QUIRE_EUSER (-11)
/** The handle is in a state that does not allow the call. */
#define QUIRE_ESTATE (-12)
/** An internal error: a bug in Quire. Please report it with the message. */
#define QUIRE_EINTERNAL (-13)
/** The feature is turned off for this document (replies and review states, when the
 *  document's replies switch is off). */
#define QUIRE_EDISABLED (-14)
/** A checkpoint is in use (locked) by another open document, in this process or another. */
#define QUIRE_EBUSY (-15)
/** A checkpoint was taken against a different version of the file, and is not applied. */
#define QUIRE_ESTALE (-16)
/** Saved state exists that the call was asked not to replace: a checkpoint holding unsaved
 *  changes, when `quire_document_start_checkpoints` was told to refuse rather than load or
 *  discard it (QUIRE_CHECKPOINT_EXISTING_REFUSE). Nothing was changed. */
#define QUIRE_EEXIST (-17)
/** A versioned struct (its `version` field) is newer than this library knows: the caller
 *  was built against a later header. Nothing was read past the version. */
#define QUIRE_EVERSION (-18)
/** The sync server refused the token (expired, not valid, or without the permission the
 *  call needs): reauthenticate (`quire_descriptor_reauthenticate`). */
#define QUIRE_EAUTH (-19)
/** The sync server could not be reached, or failed (5xx); local changes are kept. */
#define QUIRE_ENETWORK (-20)

/**
 * A short English description of a status code, such as "invalid argument".
 *
 * Returns: a static string, never NULL ("unknown status" for a code this version does not
 * know); do not free it.
 * Thread safety: any thread.
 */
QUIRE_API const char *quire_status_string(int status);

/**
 * The message of the last error on the calling thread, in UTF-8.
 *
 * Every function that returns a status other than QUIRE_OK sets it; successful calls do not
 * clear it. The message names the operation and, for files, the byte offset or object that
 * failed.
 * Returns: never NULL; "" when no error happened on this thread since the last
 * `quire_clear_error()`. The string is owned by the library and stays valid until the next
 * call into Quire on the same thread.
 * Thread safety: any thread; each thread has its own last error.
 */
QUIRE_API const char *quire_last_error_message(void);

/**
 * The status code of the last error on the calling thread, or QUIRE_OK if there is none.
 * Thread safety: any thread; each thread has its own last error.
 */
QUIRE_API int quire_last_error_code(void);

/**
 * Clears the last error of the calling thread.
 * Thread safety: any thread.
 */
QUIRE_API void quire_clear_error(void);

/* ------------------------------------------------------------------------------------ */
/* Documents                                                                             */
/* ------------------------------------------------------------------------------------ */

/**
 * An open PDF document. Opaque. Created by `quire_document_open` or
 * `quire_document_open_memory`, released by `quire_document_close`.
 * Thread safety: one thread at a time per document.
 */
typedef struct quire_document quire_document;

/** The current version of `quire_open_options`. */
#define QUIRE_OPEN_OPTIONS_VERSION 1

/**
 * Options for opening a document. Initialise with QUIRE_OPEN_OPTIONS_INIT, then set the
 * fields you need. A limit of 0 means "the library's default" (given per field); past a
 * limit, opening or reading fails with QUIRE_ELIMIT instead of using unbounded memory or
 * time.
 */
typedef struct quire_open_options {
    /** Must be QUIRE_OPEN_OPTIONS_VERSION (or an older version this library knows). */
    uint32_t version;
    /** The user or owner password, UTF-8, NUL-terminated; NULL means the empty password.
     *  The string is only read during the call. */
    const char *password;
    /** Deepest nesting of arrays and dictionaries in one object. Default 256; a larger
     *  setting is accepted but capped at 1024, because walking a nested object (to save
     *  or convert it) recurses on the caller's stack. An object nested deeper reads as
     *  null, with a warning (as in qpdf). */
    uint32_t max_nesting_depth;
    /** Deepest page tree. Default 1024 (PDFium's bound). */
    uint32_t max_page_tree_depth;
    /** Most cross-reference sections followed through /Prev. Default 1024. */
    uint32_t max_xref_chain;
    /** Highest object number accepted in a cross-reference section. Default 10000000. */
    uint64_t max_objects;
    /** Most bytes one stream may decode to. Default 256 MiB. */
    uint64_t max_stream_bytes;
    /** Most bytes all streams of the document together may decode to. Default 2 GiB. */
    uint64_t max_total_decoded_bytes;
    /** Largest ratio of decoded to encoded size of one stream, checked once a stream has
     *  decoded past 1 MiB. Default 1000. */
    uint32_t max_decompression_ratio;
    /** Most pages the page tree may expand to (a node reached through several branches
     *  counts once per branch), and the largest root /Count taken as the page count (see
     *  `quire_document_page_count`). Default 1048575. */
    uint32_t max_pages;
} quire_open_options;

/** Initialiser for `quire_open_options`: the current version, empty password, defaults. */
#define QUIRE_OPEN_OPTIONS_INIT { QUIRE_OPEN_OPTIONS_VERSION, NULL, 0, 0, 0, 0, 0, 0, 0, 0 }

/**
 * Fills `options` with the defaults of `version` (1 up to QUIRE_OPEN_OPTIONS_VERSION) and
 * sets its version: QUIRE_OPEN_OPTIONS_INIT for bindings that cannot use the macro.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_open_options_init(quire_open_options *options, unsigned version);

/**
 * Opens the PDF file at `path`.
 *
 * A file smaller than 1 MiB is read whole during the call. A larger one is read lazily
 * (as PDFium and MuPDF read files): opening reads its header, its end and its
 * cross-reference, and later calls read, through `pread` into memory of the document's
 * own, only the objects they need, so that opening costs the same for any size and memory
 * grows with what is read. The file stays open (one descriptor) until the document is
 * closed. Another program must not change it in place meanwhile: bytes read after such a
 * change are the new ones (a truncated file reads as zeros past its new end, never a
 * crash), which the document meets as damage. Replacing the file (a new file renamed over
 * it, as Quire's own saves do) is safe: the document keeps reading the file it opened.
 * A file with recoverable damage opens, with `quire_document_is_repaired` set and
 * warnings (repair reads the whole file).
 * out:     receives the document, owned by the caller; release with `quire_document_close`.
 * path:    a NUL-terminated file system path.
 * options: NULL for the defaults, or options initialised with QUIRE_OPEN_OPTIONS_INIT.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `out` or `path`, bad options version);
 *          QUIRE_ENOTFOUND (no such file); QUIRE_EIO (cannot read it); QUIRE_EFORMAT (not a
 *          PDF, or damaged beyond repair); QUIRE_EPASSWORD; QUIRE_EUNSUPPORTED; QUIRE_ELIMIT.
 * Thread safety: any thread.
 */
QUIRE_API int quire_document_open(quire_document **out, const char *path,
                        const quire_open_options *options);

/**
 * Opens a PDF from `size` bytes at `data`.
 *
 * The bytes are copied during the call: the caller may free them as soon as it returns.
 * out, options and the return values are as for `quire_document_open` (no QUIRE_ENOTFOUND).
 * `data` may be NULL only when `size` is 0, which gives QUIRE_EFORMAT. A `size` of 2^63 or
 * more (a negative length cast to size_t) gives QUIRE_EINVAL.
 * Thread safety: any thread.
 */
QUIRE_API int quire_document_open_memory(quire_document **out, const void *data, size_t size,
                               const quire_open_options *options);

/** The current version of `quire_file_access`. */
#define QUIRE_FILE_ACCESS_VERSION 1

/**
 * A document's bytes served by the host on demand, as PDFium's `FPDF_FILEACCESS` does: from
 * a database blob, an object store with range reads, a file the host manages. The library
 * reads what it needs when it needs it (see `quire_document_open` on lazy reading), in
 * blocks of up to 64 KB and sometimes more (a stream's data, a whole-file scan when the
 * file needs repair), and keeps what it read in memory: a range is read once.
 *
 * Initialise with QUIRE_FILE_ACCESS_INIT or `quire_file_access_init`, then set the fields.
 */
typedef struct quire_file_access {
    uint32_t version; /**< QUIRE_FILE_ACCESS_VERSION */
    /** The document's size in bytes; reads stay below it. */
    uint64_t size;
    /** Required: copies the `length` bytes at `offset` into `buffer` (offset + length <=
     *  size); returns 0, or non-zero on failure. Called during the open and during later
     *  calls on the document, on the thread that made the call (for a synced document, also
     *  the library's sync thread), never two calls at once for one document, at most 4 MiB
     *  a call. It must not call the library about the same document. A failure
     *  during the open fails it with QUIRE_EIO; a later one fails the call that needed
     *  those bytes with QUIRE_EIO (and a warning), and they are asked for again the next
     *  time they are needed: nothing read wrongly is kept, or saved. */
    int (*read)(void *payload, uint64_t offset, void *buffer, size_t length);
    /** Optional: called once, when the library will not call `read` again (the document
     *  and everything it gave out are released, or the open failed); `payload` may be
     *  freed then. */
    void (*release)(void *payload);
    void *payload; /**< passed to both callbacks */
} quire_file_access;

/** Initialiser for `quire_file_access`: the current version, size 0, no callbacks. */
#define QUIRE_FILE_ACCESS_INIT { QUIRE_FILE_ACCESS_VERSION, 0, NULL, NULL, NULL }

/**
 * Fills `access` with the defaults of `version` (1 up to QUIRE_FILE_ACCESS_VERSION): size
 * 0, no callbacks; sets its version: QUIRE_FILE_ACCESS_INIT for bindings that cannot use
 * the macro.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_file_access_init(quire_file_access *access, unsigned version);

/**
 * Opens a PDF whose bytes `access` serves on demand (see `quire_file_access`). The struct
 * is copied; its callbacks and payload must stay valid until `release` is called (or, with
 * no `release`, until `quire_document_close` returns). The document is read lazily whatever
 * its size; saving it to a path writes every byte (read through the callback), as the
 * library has no file to copy from.
 * out, options and the return values are as for `quire_document_open` (no
 * QUIRE_ENOTFOUND); QUIRE_EINVAL also for a NULL `access` or `read`, or a `size` past
 * 2^46 (64 TiB: twice it is reserved as address space); QUIRE_EIO when `read` fails
 * during the open. When the open fails, `release` is called before this function returns
 * (unless `access` is NULL or its version is refused).
 * Thread safety: any thread.
 */
QUIRE_API int quire_document_open_callback(quire_document **out, const quire_file_access *access,
                                 const quire_open_options *options);

/**
 * Closes a document and releases everything it owns. Strings and values borrowed from it
 * become invalid. NULL is a no-op.
 */
QUIRE_API void quire_document_close(quire_document *doc);

/**
 * The number of pages, counted as PDFium and MuPDF count them: the page tree root's /Count
 * when it is an integer with 0 < /Count <= `max_pages` (and the root has /Kids); otherwise
 * (missing, 0, negative, larger, not an integer) the number of pages found by walking the
 * tree. A /Count that is taken is read alone, without the walk: counting the pages of a
 * document of 3,000 pages reads its root node.
 *
 * In a damaged file the two can differ, and the document then has a warning (from the
 * walk: once the pages are listed, or a page is looked up that /Count does not lead to
 * safely). When /Count
 * is larger than the pages the tree holds, the missing pages are the last ones: they are
 * counted, but every `quire_page_*` call on them returns QUIRE_ENOTFOUND (as PDFium fails
 * to load them), except `quire_page_label`. When /Count is smaller, the pages after it are
 * not reachable (as in PDFium).
 * out:     receives the page count (0 or more).
 * Returns: QUIRE_OK; QUIRE_EINVAL for NULL arguments; QUIRE_EFORMAT if the page tree is
 *          broken beyond repair; QUIRE_ELIMIT, when /Count is not taken, if the tree
 *          exceeds `max_page_tree_depth` or expands to more than `max_pages` pages (when
 *          /Count is taken, a tree past the depth limit fails the calls that load pages).
 */
QUIRE_API int quire_document_page_count(int32_t *out, quire_document *doc);

/**
 * The PDF version the document declares: the header's `%PDF-M.m`, raised by the catalog's
 * /Version entry when that is later (ISO 32000-2 §7.2.2).
 * Returns: QUIRE_OK; QUIRE_EINVAL for NULL arguments.
 */
QUIRE_API int quire_document_pdf_version(int32_t *out_major, int32_t *out_minor, quire_document *doc);

/**
 * Whether the document is encrypted (its trailer has an /Encrypt dictionary): 1 or 0.
 * Returns: QUIRE_OK; QUIRE_EINVAL for NULL arguments.
 */
QUIRE_API int quire_document_is_encrypted(int32_t *out, quire_document *doc);

/**
 * Whether the parser repaired the document while opening it (for example, rebuilt a
 * damaged cross-reference table by scanning the file): 1 or 0. The warnings say what
 * was repaired.
 * Returns: QUIRE_OK; QUIRE_EINVAL for NULL arguments.
 */
QUIRE_API int quire_document_is_repaired(int32_t *out, quire_document *doc);

/**
 * The number of warnings recorded while opening and reading the document: damage that was
 * recovered from, not errors. The list may grow as more of the document is read.
 * Returns: QUIRE_OK; QUIRE_EINVAL for NULL arguments.
 */
QUIRE_API int quire_document_warning_count(int32_t *out, quire_document *doc);

/**
 * Warning number `index` (0-based), as UTF-8 text, through the length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_EBUFS.
 */
QUIRE_API int quire_document_warning(char *buf, size_t buf_size, size_t *out_len,
                           quire_document *doc, int32_t index);

/**
 * The number of entries in the document information dictionary (/Info) whose values are
 * text strings, names, numbers or booleans.
 * Returns: QUIRE_OK; QUIRE_EINVAL for NULL arguments.
 */
QUIRE_API int quire_document_metadata_count(int32_t *out, quire_document *doc);

/**
 * The key of metadata entry `index` (0-based), such as "Title", in file order, through the
 * length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_EBUFS.
 */
QUIRE_API int quire_document_metadata_key(char *buf, size_t buf_size, size_t *out_len,
                                quire_document *doc, int32_t index);

/**
 * The value of the metadata entry `key` (such as "Title", "Author", "CreationDate"), as
 * UTF-8 through the length-query pattern. Text strings are decoded from PDFDocEncoding,
 * UTF-16BE or UTF-8; dates are returned as written (`D:YYYYMMDDHHmmSSOHH'mm`); names
 * without their slash (`/False` gives "False"), numbers and booleans as their PDF text.
 * key:     NUL-terminated, case-sensitive, without the leading slash.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND (the key is not set); QUIRE_EBUFS.
 */
QUIRE_API int quire_document_metadata(char *buf, size_t buf_size, size_t *out_len,
                            quire_document *doc, const char *key);

/** Forms of the cross-reference (ISO 32000-2 §7.5.4, §7.5.8). */
typedef enum quire_xref_form {
    QUIRE_XREF_TABLE = 0x0100, /**< a classic `xref` table */
    QUIRE_XREF_STREAM = 0x0101, /**< a cross-reference stream */
    QUIRE_XREF_HYBRID = 0x0102, /**< a table with an /XRefStm stream (hybrid file) */
    QUIRE_XREF_REBUILT = 0x0103 /**< none usable: rebuilt by scanning the file */
} quire_xref_form;

/**
 * The form of the newest cross-reference section: one of the QUIRE_XREF_* values.
 * Returns: QUIRE_OK; QUIRE_EINVAL for NULL arguments.
 */
QUIRE_API int quire_document_xref_form(quire_xref_form *out, quire_document *doc);

/**
 * The number of objects the cross-reference lists (in use and free), plus objects added
 * since opening.
 * Returns: QUIRE_OK; QUIRE_EINVAL for NULL arguments.
 */
QUIRE_API int quire_document_object_count(int32_t *out, quire_document *doc);

/**
 * Whether the file is linearized ("fast web view"): its first object has /Linearized and
 * the /L there equals the file's length (ISO 32000-2 Annex F; qpdf's rule). Quire reads a
 * linearized file like any other; any save ends linearization (an incremental save changes
 * the length, a full save does not linearize), so a saved document reports 0.
 * Returns: QUIRE_OK; QUIRE_EINVAL for NULL arguments.
 */
QUIRE_API int quire_document_is_linearized(int32_t *out, quire_document *doc);

/** Encryption methods (standard security handler, ISO 32000-2 §7.6.4). */
typedef enum quire_encryption_method {
    QUIRE_ENCRYPTION_NONE = 0x1000,
    QUIRE_ENCRYPTION_RC4_40 = 0x1001,
    QUIRE_ENCRYPTION_RC4_128 = 0x1002,
    QUIRE_ENCRYPTION_AES_128 = 0x1003,
    QUIRE_ENCRYPTION_AES_256 = 0x1004,
    QUIRE_ENCRYPTION_IDENTITY = 0x1005 /**< crypt filters that leave the data as it is */
} quire_encryption_method;

/**
 * How the document is encrypted: the method (QUIRE_ENCRYPTION_*) used for streams, the
 * security handler's revision (/R: 2 to 6, or 0 when not encrypted), the permission bits
 * (/P, ISO 32000-2 Table 22; all bits set when not encrypted) and whether the password
 * given was the owner password (1) rather than the user password (0). Any out-pointer may
 * be NULL when that value is not wanted.
 * Returns: QUIRE_OK; QUIRE_EINVAL when `doc` is NULL.
 */
QUIRE_API int quire_document_encryption(quire_encryption_method *out_method, int32_t *out_revision,
                              uint32_t *out_permissions, int32_t *out_is_owner,
                              quire_document *doc);

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

/* ------------------------------------------------------------------------------------ */
/* Low-level objects: the escape hatch for what the typed interface lacks                */
/* ------------------------------------------------------------------------------------ */

/**
 * A PDF value (ISO 32000-2 §7.3): a copy, owned by the caller and released with
 * `quire_value_free`, independent of the document's lifetime. A reference stays a
 * reference until resolved with `quire_document_resolve`. Thread safety: a value may be
 * used by one thread at a time.
 */
typedef struct quire_value quire_value;

/** Types of values. */
typedef enum quire_value_kind {
    QUIRE_VALUE_NULL = 0x0300,
    QUIRE_VALUE_BOOL = 0x0301,
    QUIRE_VALUE_INTEGER = 0x0302,
    QUIRE_VALUE_REAL = 0x0303,
    QUIRE_VALUE_STRING = 0x0304,
    QUIRE_VALUE_NAME = 0x0305,
    QUIRE_VALUE_ARRAY = 0x0306,
    QUIRE_VALUE_DICTIONARY = 0x0307,
    QUIRE_VALUE_STREAM = 0x0308,
    QUIRE_VALUE_REFERENCE = 0x0309
} quire_value_kind;

/** Releases a value. NULL is a no-op. */
QUIRE_API void quire_value_free(quire_value *value);

/**
 * The trailer dictionary (of the newest revision, with unsaved changes).
 * out: receives a new value owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_document_trailer(quire_value **out, quire_document *doc);

/**
 * Indirect object `number` (its generation is the current one), with unsaved changes. A
 * free or missing object is a null value.
 * out: receives a new value owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE for a negative number; QUIRE_ELIMIT.
 */
QUIRE_API int quire_document_object(quire_value **out, quire_document *doc, int32_t number);

/**
 * `value` resolved: a reference becomes the object it names (a chain of references is
 * followed; a cycle gives null); any other value is copied.
 * out: receives a new value owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ELIMIT.
 */
QUIRE_API int quire_document_resolve(quire_value **out, quire_document *doc, const quire_value *value);

/**
 * The type of `value`: one of the QUIRE_VALUE_* values.
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_value_type(quire_value_kind *out, const quire_value *value);

/**
 * A boolean as 1 or 0, an integer, or a number (integer or real) as a double.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments, or a value of another type).
 */
QUIRE_API int quire_value_bool(int32_t *out, const quire_value *value);
QUIRE_API int quire_value_integer(int64_t *out, const quire_value *value);
QUIRE_API int quire_value_number(double *out, const quire_value *value);

/**
 * The object number and generation of a reference.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments, or not a reference).
 */
QUIRE_API int quire_value_reference(int32_t *out_number, int32_t *out_generation, const quire_value *value);

/**
 * The raw bytes of a string, or the bytes of a name (without the slash), through the
 * length-query pattern (binary-safe: strings may hold any byte).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments, or another type); QUIRE_EBUFS.
 */
QUIRE_API int quire_value_bytes(char *buf, size_t buf_size, size_t *out_len, const quire_value *value);

/**
 * A string decoded as a PDF text string (PDFDocEncoding, UTF-16BE or UTF-8) into UTF-8,
 * through the length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments, or not a string); QUIRE_EBUFS.
 */
QUIRE_API int quire_value_text(char *buf, size_t buf_size, size_t *out_len, const quire_value *value);

/**
 * The number of elements of an array, or of entries of a dictionary or a stream's
 * dictionary.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments, or another type).
 */
QUIRE_API int quire_value_count(int32_t *out, const quire_value *value);

/**
 * Element `index` of an array (not resolved).
 * out: receives a new value owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL (not an array); QUIRE_ERANGE.
 */
QUIRE_API int quire_value_array_get(quire_value **out, const quire_value *value, int32_t index);

/**
 * The key of entry `index` of a dictionary or stream dictionary, in file order, without
 * the slash, through the length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL (not a dictionary or stream); QUIRE_ERANGE; QUIRE_EBUFS.
 */
QUIRE_API int quire_value_dict_key(char *buf, size_t buf_size, size_t *out_len, const quire_value *value,
                         int32_t index);

/**
 * The value of `key` (without the slash) in a dictionary or stream dictionary (not
 * resolved).
 * out: receives a new value owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL (not a dictionary or stream); QUIRE_ENOTFOUND.
 */
QUIRE_API int quire_value_dict_get(quire_value **out, const quire_value *value, const char *key);

/**
 * `value` written in PDF syntax, such as `<</Type /Page /MediaBox [0 0 612 792] >>`,
 * through the length-query pattern. A stream is written as its dictionary.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EBUFS.
 */
QUIRE_API int quire_value_to_pdf(char *buf, size_t buf_size, size_t *out_len, const quire_value *value);

/**
 * Parses one value from PDF syntax (`[0 0 612 792]`, `/Name`, `(text)`, `12 0 R`, ...).
 * Unlike the reading of files, nothing is repaired: an unterminated or malformed string,
 * a key without a value, a key that is not a name, or text after the value is an error.
 * out: receives a new value owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments); QUIRE_EFORMAT (not one complete,
 * well-formed value); QUIRE_ELIMIT.
 */
QUIRE_API int quire_value_parse(quire_value **out, const char *pdf_syntax, size_t length);

/** Stream data forms for `quire_document_stream_data`. */
typedef enum quire_stream_form {
    QUIRE_STREAM_DECODED = 0x0400, /**< filters undone (image codecs stay encoded) */
    QUIRE_STREAM_RAW = 0x0401 /**< as stored in the file (decrypted if the file is encrypted) */
} quire_stream_form;

/**
 * The data of a stream value taken from this document, through the length-query pattern
 * (binary-safe). The data is computed on each call; a caller that queries the length
 * first pays for it twice, so pass a generous buffer when the size is roughly known. A
 * stream value keeps its bytes: it stays readable after the document is saved, except
 * the stream of an encrypted document after a full save (which renumbers, and so changes
 * the keys): that gives QUIRE_ESTATE; read the stream again from the document.
 * form: QUIRE_STREAM_DECODED or QUIRE_STREAM_RAW.
 * Returns: QUIRE_OK; QUIRE_EINVAL (not a stream, unknown form); QUIRE_EUNSUPPORTED (an
 * unknown filter); QUIRE_ELIMIT (a decode limit); QUIRE_ESTATE; QUIRE_EBUFS.
 */
QUIRE_API int quire_document_stream_data(char *buf, size_t buf_size, size_t *out_len,
                               quire_document *doc, const quire_value *stream, quire_stream_form form);

/* ------------------------------------------------------------------------------------ */
/* Editing                                                                               */
/* ------------------------------------------------------------------------------------ */

/**
 * Replaces indirect object `number` with `value` (copied). The change is unsaved until
 * the document is saved. A stream value keeps its data.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments; `number` 0 or the /Encrypt dictionary);
 * QUIRE_ERANGE (a number that is not in use).
 */
QUIRE_API int quire_document_set_object(quire_document *doc, int32_t number, const quire_value *value);

/**
 * Sets `key` (without the slash) of the dictionary or stream that is indirect object
 * `number` to `value` (copied); a NULL value, or a null value, removes the key.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL doc or key; the object is not a dictionary or
 * stream); QUIRE_ERANGE (a number that is not in use).
 */
QUIRE_API int quire_document_set_dict_value(quire_document *doc, int32_t number, const char *key,
                                  const quire_value *value);

/**
 * Adds `value` (copied) as a new indirect object.
 * out_number: receives its object number (its generation is 0).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ELIMIT (past `max_objects`).
 */
QUIRE_API int quire_document_add_object(int32_t *out_number, quire_document *doc, const quire_value *value);

/**
 * Adds a new stream object with the dictionary `dict` (a dictionary value, copied; NULL
 * for an empty one) and `size` bytes of data (copied; already encoded for the filters the
 * dictionary names).
 * out_number: receives its object number.
 * Returns: QUIRE_OK; QUIRE_EINVAL (also for a `size` of 2^63 or more); QUIRE_ELIMIT.
 */
QUIRE_API int quire_document_add_stream(int32_t *out_number, quire_document *doc, const quire_value *dict,
                              const void *data, size_t size);

/**
 * Deletes indirect object `number`: references to it read as null. Saving writes it as a
 * free entry.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL doc; object 0, the catalog or /Encrypt);
 * QUIRE_ERANGE.
 */
QUIRE_API int quire_document_delete_object(quire_document *doc, int32_t number);

/**
 * Whether the document has changes that are not saved: 1 or 0.
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_document_has_unsaved_changes(int32_t *out, quire_document *doc);

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
 * was set as an object).
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

/* ------------------------------------------------------------------------------------ */
/* Pages                                                                                 */
/* ------------------------------------------------------------------------------------ */

/** A rectangle in PDF user space units (1/72 inch), normalised so that left <= right and
 *  bottom <= top. */
typedef struct quire_rect {
    double left;
    double bottom;
    double right;
    double top;
} quire_rect;

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
/* Annotations, replies and review states                                                */
/* ------------------------------------------------------------------------------------ */

/**
 * An annotation (ISO 32000-2 §12.5) as a value: a snapshot owned by the caller, released
 * with `quire_annotation_free`, independent of the document's lifetime. Read one from a
 * page, change it with the setters, and write it back with
 * `quire_document_update_annotation`; or make one with `quire_annotation_new` and add it
 * with `quire_document_add_annotation`. Thread safety: one thread at a time per value.
 */
typedef struct quire_annotation quire_annotation;

/**
 * A list of annotations (a thread, a review history, search results), owned by the caller
 * and released with `quire_annotation_list_free`.
 */
typedef struct quire_annotation_list quire_annotation_list;

/** Text fields of an annotation, for `quire_annotation_string` and its setter. */
typedef enum quire_annot_string_field {
    QUIRE_ANNOT_CONTENTS = 0x0700, /**< /Contents: the text */
    QUIRE_ANNOT_AUTHOR = 0x0701, /**< /T; never set for a Widget, whose /T is its form field's name (setting it is refused when the widget is added or updated) */
    QUIRE_ANNOT_SUBJECT = 0x0702, /**< /Subj */
    QUIRE_ANNOT_UNIQUE_NAME = 0x0703, /**< /NM: the unique name (a UUID for new ones) */
    QUIRE_ANNOT_CREATION_DATE = 0x0704, /**< /CreationDate, a PDF date: D:YYYYMMDDHHmmSSOHH'mm */
    QUIRE_ANNOT_MODIFICATION_DATE = 0x0705, /**< /M, a PDF date */
    QUIRE_ANNOT_STATE = 0x0706, /**< /State of a state reply (see the state models) */
    QUIRE_ANNOT_STATE_MODEL = 0x0707, /**< /StateModel: "Marked" or "Review" */
    QUIRE_ANNOT_REPLY_TYPE = 0x0708, /**< /RT: "R" (reply) or "Group" */
    QUIRE_ANNOT_DEFAULT_APPEARANCE = 0x0709, /**< /DA of free text, such as "/Helv 12 Tf 0 g" */
    QUIRE_ANNOT_ICON = 0x070A, /**< /Name: a note's icon or a stamp's name */
    QUIRE_ANNOT_LINE_START = 0x070B, /**< the first /LE line ending (OpenArrow, ...) */
    QUIRE_ANNOT_LINE_END = 0x070C, /**< the second /LE line ending */
    QUIRE_ANNOT_CUSTOM_DATA = 0x070D, /**< the application's own data (JSON text) */
    /** The id of the annotation it replies to when that one is not in the document (a
     *  deleted parent: links are ids, docs/annotation-json.md "Links"): /QuireIRT.
     *  Read-only (setting it is QUIRE_EINVAL); not set when /IRT names an annotation. */
    QUIRE_ANNOT_IN_REPLY_TO_ID = 0x070E
} quire_annot_string_field;
typedef enum quire_annot_number_field {
    QUIRE_ANNOT_OPACITY = 0x0800, /**< /CA, 0 to 1 */
    QUIRE_ANNOT_BORDER_WIDTH = 0x0801, /**< /BS /W */
    QUIRE_ANNOT_FONT_SIZE = 0x0802, /**< the size in /DA of free text (read-only) */
    QUIRE_ANNOT_FLAGS = 0x0803 /**< /F, ISO 32000-2 Table 167 (an integer) */
} quire_annot_number_field;
typedef enum quire_annot_color_field {
    QUIRE_ANNOT_COLOR = 0x0900, /**< /C */
    QUIRE_ANNOT_INTERIOR_COLOR = 0x0901 /**< /IC */
} quire_annot_color_field;
typedef enum quire_annot_points_field {
    QUIRE_ANNOT_QUAD_POINTS = 0x0A00, /**< /QuadPoints of text markup: 8 numbers per quadrilateral */
    QUIRE_ANNOT_LINE = 0x0A01, /**< /L of a line: x1 y1 x2 y2 */
    QUIRE_ANNOT_VERTICES = 0x0A02 /**< /Vertices of polygons and polylines */
} quire_annot_points_field;

/**
 * Makes a new annotation of `subtype` for page `page_index` at `rect`. It is not in any
 * document until added, and only "Text", "FreeText", "Line", "Square", "Circle", "Polygon",
 * "PolyLine", "Highlight", "Underline", "Squiggly", "StrikeOut", "Ink" and "Stamp" can be
 * added (another name makes a value that `quire_document_add_annotation` refuses with
 * QUIRE_EUNSUPPORTED).
 * out: receives a new annotation owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments, an empty subtype, a negative page, a
 * rectangle that is not finite).
 */
QUIRE_API int quire_annotation_new(quire_annotation **out, const char *subtype, int32_t page_index,
                         const quire_rect *rect);

/** Releases an annotation. NULL is a no-op. */
QUIRE_API void quire_annotation_free(quire_annotation *annotation);

/**
 * Annotation `index` of page `page_index`, in /Annots order.
 * out: receives a new annotation owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE (page or index); QUIRE_ENOTFOUND (a
 * missing page, as for `quire_page_box`).
 */
QUIRE_API int quire_page_annotation(quire_annotation **out, quire_document *doc, int32_t page_index,
                          int32_t index);

/**
 * The annotation that is indirect object `number`, wherever its page is.
 * out: receives a new annotation owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND (no page lists that object).
 */
QUIRE_API int quire_document_annotation(quire_annotation **out, quire_document *doc, int32_t number);

/**
 * The object number of an annotation of a document (what the reply and thread functions
 * take). QUIRE_ENOTFOUND for an annotation not added yet, or one written directly in a
 * page's /Annots (such an annotation can be read but not replied to).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND.
 */
QUIRE_API int quire_annotation_id(int32_t *out_number, const quire_annotation *annotation);

/**
 * The page of an annotation (0-based).
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_annotation_page_index(int32_t *out, const quire_annotation *annotation);

/**
 * The subtype of an annotation, such as "Square", through the length-query pattern. Any
 * subtype reads, including those Quire does not create.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EBUFS.
 */
QUIRE_API int quire_annotation_subtype(char *buf, size_t buf_size, size_t *out_len,
                             const quire_annotation *annotation);

/**
 * The rectangle (/Rect) of an annotation, and its setter.
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_annotation_rect(quire_rect *out, const quire_annotation *annotation);
QUIRE_API int quire_annotation_set_rect(quire_annotation *annotation, const quire_rect *rect);

/**
 * A text field (QUIRE_ANNOT_CONTENTS, ...) as UTF-8, through the length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL (unknown field); QUIRE_ENOTFOUND (the field is not set);
 * QUIRE_EBUFS.
 */
QUIRE_API int quire_annotation_string(char *buf, size_t buf_size, size_t *out_len,
                            const quire_annotation *annotation, quire_annot_string_field field);

/**
 * Sets a text field from NUL-terminated UTF-8; NULL clears it. Dates must be PDF dates.
 * State and state model are checked together when the annotation is written to a document.
 * Returns: QUIRE_OK; QUIRE_EINVAL (unknown field, a malformed date or reply type).
 */
QUIRE_API int quire_annotation_set_string(quire_annotation *annotation, quire_annot_string_field field,
                                const char *value);

/**
 * A number field (QUIRE_ANNOT_OPACITY, ...) and its setter.
 * Returns: QUIRE_OK; QUIRE_EINVAL (unknown or read-only field, a value out of range);
 * QUIRE_ENOTFOUND (the field is not set).
 */
QUIRE_API int quire_annotation_number(double *out, const quire_annotation *annotation,
                            quire_annot_number_field field);
QUIRE_API int quire_annotation_set_number(quire_annotation *annotation, quire_annot_number_field field,
                                double value);

/**
 * A colour (QUIRE_ANNOT_COLOR or QUIRE_ANNOT_INTERIOR_COLOR): its components (0 to 4: none,
 * gray, RGB or CMYK, each 0 to 1), through the length-query pattern for numbers: their
 * number into `*out_count`, and the components into `out` when `capacity` holds them
 * (`out` NULL and `capacity` 0 give the count only; 4 always suffices).
 * Returns: QUIRE_OK (a count of 0 when unset); QUIRE_EINVAL; QUIRE_EBUFS (`capacity` too
 * small: `out` is untouched).
 */
QUIRE_API int quire_annotation_color(double *out, size_t capacity, size_t *out_count,
                           const quire_annotation *annotation, quire_annot_color_field which);

/**
 * Sets a colour from `count` components (0 clears it; 1, 3 or 4).
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_annotation_set_color(quire_annotation *annotation, quire_annot_color_field which,
                               const double *components, size_t count);

/**
 * A point list (QUIRE_ANNOT_QUAD_POINTS, QUIRE_ANNOT_LINE, QUIRE_ANNOT_VERTICES), through the
 * length-query pattern for numbers: `buf` NULL and `capacity` 0 give the count in
 * `*out_count`; a buffer too small gives QUIRE_EBUFS.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EBUFS.
 */
QUIRE_API int quire_annotation_points(double *buf, size_t capacity, size_t *out_count,
                            const quire_annotation *annotation, quire_annot_points_field kind);

/**
 * Sets a point list from `count` numbers (an even count; 0 clears it).
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_annotation_set_points(quire_annotation *annotation, quire_annot_points_field kind,
                                const double *points, size_t count);

/**
 * The ink strokes (/InkList): their number, and stroke `stroke` as x, y pairs through the
 * length-query pattern for numbers.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_EBUFS.
 */
QUIRE_API int quire_annotation_ink_stroke_count(int32_t *out, const quire_annotation *annotation);
QUIRE_API int quire_annotation_ink_stroke(double *buf, size_t capacity, size_t *out_count,
                                const quire_annotation *annotation, int32_t stroke);

/**
 * Appends an ink stroke of `count` numbers (x, y pairs), or removes all strokes when
 * `points` is NULL and `count` is 0.
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_annotation_add_ink_stroke(quire_annotation *annotation, const double *points, size_t count);

/**
 * Whether the annotation replies to another: 1 or 0; and the object number of the
 * annotation it replies to (/IRT). A reply whose parent was deleted stays a reply, to its
 * parent's id (its annotation JSON's `quire.inReplyTo`; docs/annotation-json.md, "Links"):
 * `is_reply` gives 1 and `in_reply_to` QUIRE_ENOTFOUND, as there is no object to name.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND (for the target: not a reply, or its
 * parent is not in the document).
 */
QUIRE_API int quire_annotation_is_reply(int32_t *out, const quire_annotation *annotation);
QUIRE_API int quire_annotation_in_reply_to(int32_t *out_number, const quire_annotation *annotation);

/**
 * Adds `annotation` to the document, on its page: a new object with a unique name
 * (/NM: the annotation's own, unless that name is already on the page or unset, then a
 * new UUID), creation and modification dates, and a generated appearance stream. A copy
 * of another annotation does not take over that annotation's popup. Flags 0 become Print
 * (4), except for state replies. On success `annotation` is updated to what was stored
 * (its id, name and dates).
 * Returns: QUIRE_OK; QUIRE_EINVAL (an invalid reply target or state); QUIRE_ERANGE (page);
 * QUIRE_ENOTFOUND (a page missing from the page tree: see `quire_document_page_count`);
 * QUIRE_EUNSUPPORTED (a subtype Quire does not create); QUIRE_EDISABLED (a reply while
 * replies are off).
 */
QUIRE_API int quire_document_add_annotation(quire_document *doc, quire_annotation *annotation);

/**
 * Writes the changed `annotation` back to its object: the fields that differ from what is
 * stored are rewritten (other entries are kept, including ones the model could not read),
 * the modification date and the appearance renewed.
 * On success `annotation` is updated to what was stored.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND (not in the document);
 * QUIRE_EDISABLED (a change of its reply or state while replies are off).
 */
QUIRE_API int quire_document_update_annotation(quire_document *doc, quire_annotation *annotation);

/**
 * Deletes annotation `number` and its popup from the page's /Annots and the document.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND.
 */
QUIRE_API int quire_document_delete_annotation(quire_document *doc, int32_t number);

/**
 * Adds a text reply by `author` (NULL for none) with `contents` to annotation `target`.
 * out: receives the new reply, owned by the caller; may be NULL when not wanted.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND; QUIRE_EDISABLED.
 */
QUIRE_API int quire_document_add_reply(quire_annotation **out, quire_document *doc, int32_t target,
                             const char *author, const char *contents);

/**
 * Adds a state reply: `author` (NULL for none) sets `state` in `model` ("Marked": Marked,
 * Unmarked; "Review": Accepted, Rejected, Cancelled, Completed, None) on annotation
 * `target`. The reply is hidden (flag 2): viewers list it in the thread, not on the page.
 * out: receives the new reply, owned by the caller; may be NULL.
 * Returns: QUIRE_OK; QUIRE_EINVAL (unknown model, or a state of another model);
 * QUIRE_ENOTFOUND; QUIRE_EDISABLED.
 */
QUIRE_API int quire_document_add_state_reply(quire_annotation **out, quire_document *doc, int32_t target,
                                   const char *author, const char *model, const char *state);

/**
 * Makes annotation `number` reply to `target`, or to nothing when `target` is -1 (then its
 * state is cleared too). The target must be on the same page, and the change may not make
 * a cycle of replies.
 * Returns: QUIRE_OK; QUIRE_EINVAL (another page, a cycle); QUIRE_ENOTFOUND; QUIRE_EDISABLED.
 */
QUIRE_API int quire_document_set_in_reply_to(quire_document *doc, int32_t number, int32_t target);

/**
 * Turns replies and review states on (non-zero, the default) or off (0) for this document, as
 * PSPDFKit's features switch does: while off, the calls that create or change replies and
 * states return QUIRE_EDISABLED; reading annotations and `quire_annotation_is_reply` work.
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_document_set_replies_enabled(quire_document *doc, int32_t enabled);
QUIRE_API int quire_document_replies_enabled(int32_t *out, quire_document *doc);

/**
 * The comments of annotation `number` (PSPDFKit's model): the annotation itself, then every
 * reply below it that is not a state reply (text replies, and /RT /Group replies), nested
 * replies flattened, sorted by creation date, stable on ties.
 * out: receives a new list owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND.
 */
QUIRE_API int quire_document_comments(quire_annotation_list **out, quire_document *doc, int32_t number);

/**
 * The review summary of annotation `number`: in `out_current`, each author's latest state
 * reply (authors in the order they first appear); in `out_history`, every state reply
 * below it, oldest first. Either out-pointer may be NULL.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND.
 */
QUIRE_API int quire_document_review_summary(quire_annotation_list **out_current,
                                  quire_annotation_list **out_history, quire_document *doc,
                                  int32_t number);

/**
 * The annotations and replies of all pages whose contents contain `text` (UTF-8), ignoring
 * case, in page order. An empty `text` finds nothing.
 * out: receives a new list owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_document_search_annotations(quire_annotation_list **out, quire_document *doc,
                                      const char *text);

/**
 * The number of annotations in a list, and annotation `index` of it (a new copy, owned by
 * the caller).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE.
 */
QUIRE_API int quire_annotation_list_count(int32_t *out, const quire_annotation_list *list);
QUIRE_API int quire_annotation_list_get(quire_annotation **out, const quire_annotation_list *list,
                              int32_t index);

/** Releases a list (the annotations taken from it stay valid). NULL is a no-op. */
QUIRE_API void quire_annotation_list_free(quire_annotation_list *list);

/* Bulk reads: what a viewer lists of every annotation of a page, in one call. */

/** The current version of `quire_annotation_info` (2: `in_reply_to_id`). */
#define QUIRE_ANNOTATION_INFO_VERSION 2

/**
 * What a viewer lists of one annotation, written by the library into the caller's buffer
 * by `quire_page_annotation_infos` and `quire_annotation_list_infos` (the caller does not
 * initialise it: it asks for a version in the call, and the library writes that version's
 * fields). Each string is UTF-8, NUL-terminated, and binary-safe through its `_len` (bytes
 * without the NUL; text from a PDF may contain NUL bytes); a string that is not set is
 * NULL with a length of 0. Every pointer points into the same caller buffer, so the
 * strings live exactly as long as that buffer: there is nothing to free.
 */
typedef struct quire_annotation_info {
    uint32_t version;              /**< the version written: the one the call asked for */
    int32_t page_index;            /**< the page (0-based) */
    int32_t object_number;         /**< its object (what the reply and thread functions
                                        take); 0 when it has none (written directly in
                                        /Annots, as `quire_annotation_id`'s QUIRE_ENOTFOUND) */
    int32_t in_reply_to;           /**< the object number of the annotation it replies to
                                        (/IRT); 0 when it is not a reply */
    int32_t flags;                 /**< /F, ISO 32000-2 Table 167; 0 when unset */
    quire_rect rect;               /**< /Rect */
    const char *subtype;           /**< /Subtype, such as "Square"; never NULL */
    size_t subtype_len;            /**< its length in bytes (0 when NULL) */
    const char *contents;          /**< /Contents */
    size_t contents_len;           /**< its length in bytes (0 when NULL) */
    const char *author;            /**< /T */
    size_t author_len;             /**< its length in bytes (0 when NULL) */
    const char *name;              /**< /NM, the unique name */
    size_t name_len;               /**< its length in bytes (0 when NULL) */
    const char *creation_date;     /**< /CreationDate, a PDF date (D:YYYYMMDDHHmmSSOHH'mm) */
    size_t creation_date_len;      /**< its length in bytes (0 when NULL) */
    const char *modification_date; /**< /M, a PDF date */
    size_t modification_date_len;  /**< its length in bytes (0 when NULL) */
    const char *state;             /**< /State of a state reply ("Accepted", ...) */
    size_t state_len;              /**< its length in bytes (0 when NULL) */
    const char *state_model;       /**< /StateModel: "Marked" or "Review" */
    size_t state_model_len;        /**< its length in bytes (0 when NULL) */
    /* Version 2. */
    const char *in_reply_to_id;    /**< QUIRE_ANNOT_IN_REPLY_TO_ID: the id of the annotation it
                                        replies to when that one is not in the document
                                        (`in_reply_to` is then 0, yet it is a reply) */
    size_t in_reply_to_id_len;     /**< its length in bytes (0 when NULL) */
} quire_annotation_info;

/**
 * Every annotation of page `page_index`, in /Annots order (the annotations
 * `quire_page_annotation` gives one at a time, with the same values as the per-field
 * functions), in one call, through the length-query pattern (as for strings):
 *
 *  - `buf` NULL and `buf_size` 0: `*out_len` receives the bytes of the block, and
 *    `*out_count` the number of annotations; QUIRE_OK.
 *  - A buffer of at least `*out_len + 1` bytes, aligned for a pointer and a double (what
 *    malloc returns): the buffer receives `*out_count` pointers to `quire_annotation_info`
 *    and a NULL after them (index the buffer as `quire_annotation_info **`, or walk it to
 *    the NULL), then the structs, then their strings; every pointer points inside the
 *    buffer, which the caller owns and frees as it allocated it. Read the structs through
 *    the pointers only (a later version's structs are larger). A NUL byte follows the
 *    block, at `buf[*out_len]`, as it follows a string.
 *  - A smaller buffer gives QUIRE_EBUFS with `*out_len` set, and leaves the buffer (and
 *    `*out_count`) untouched.
 *
 * A page without annotations gives `*out_count` 0 and an `*out_len` of one pointer (the
 * NULL): like a string's NUL, there is always something to write.
 * version: the version of `quire_annotation_info` to write: QUIRE_ANNOTATION_INFO_VERSION
 *          (or an older version).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `out_len`, `out_count` or `doc`; a NULL `buf`
 * with a non-zero `buf_size`; a buffer not aligned to 8 bytes; version 0); QUIRE_EVERSION
 * (a version newer than the library's); QUIRE_ERANGE (no such page); QUIRE_ENOTFOUND (a
 * missing page, as for `quire_page_box`); QUIRE_EBUFS.
 * Thread: the document's.
 */
QUIRE_API int quire_page_annotation_infos(void *buf, size_t buf_size, size_t *out_len, int32_t *out_count,
                                          quire_document *doc, int32_t page_index, unsigned version);

/**
 * The annotations of page `page_index`, in /Annots order, as a list owned by the caller
 * (release it with `quire_annotation_list_free`): a snapshot, independent of the document
 * (it stays valid after the document changes or closes), whose items
 * `quire_annotation_list_get` copies out and `quire_annotation_list_infos` lists in one
 * call. What a binding uses to list a page once and make annotation values only when asked.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE (no such page); QUIRE_ENOTFOUND (a missing
 * page, as for `quire_page_box`).
 * Thread: the document's.
 */
QUIRE_API int quire_page_annotations(quire_annotation_list **out, quire_document *doc, int32_t page_index);

/**
 * As `quire_page_annotation_infos`, for the annotations of a list (a page's, a thread, a
 * review history, search results), in the list's order. The list does not change, so the
 * length query and the call that fills the buffer agree.
 * Returns: QUIRE_OK; QUIRE_EINVAL (as `quire_page_annotation_infos`, and a NULL `list`);
 * QUIRE_EVERSION; QUIRE_EBUFS.
 * Thread: any thread, one at a time per list.
 */
QUIRE_API int quire_annotation_list_infos(void *buf, size_t buf_size, size_t *out_len, int32_t *out_count,
                                          const quire_annotation_list *list, unsigned version);

/**
 * The annotations of page `page_index` (or of every page when it is -1) as JSON shaped
 * after PSPDFKit's Instant JSON, extended with replies and review states
 * (docs/annotation-json.md), through the length-query pattern. The output is
 * deterministic: the same annotations always give the same bytes. It is computed on each
 * call. The whole document's export covers the pages that exist (a page missing from the
 * page tree has no annotations); its "pageCount" is `quire_document_page_count`'s.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ENOTFOUND (page_index is a page
 * missing from the page tree: see `quire_document_page_count`); QUIRE_EBUFS.
 * Besides "annotations", the export has Instant JSON's "pdfId" (the trailer /ID in
 * hexadecimal, when the file has one) and, for the whole document (page_index -1),
 * "formFieldValues": a "pspdfkit/form-field-value" record for every text, check box, radio
 * button, combo box and list box field (docs/annotation-json.md, "Form field values").
 */
QUIRE_API int quire_document_export_annotations_json(char *buf, size_t buf_size, size_t *out_len,
                                           quire_document *doc, int32_t page_index);

/**
 * As `quire_document_export_annotations_json`, with the replies that PSPDFKit's Instant
 * comments can hold written as the top-level "comments" of their thread's root instead of
 * as annotation records (docs/annotation-json.md, "Comments and rich text"): a note that
 * replies to an exported annotation that is not itself a reply, without a state or a
 * popup. The root gets "isCommentThreadRoot": true, and a root note without text becomes
 * a "pspdfkit/comment-marker", so that a PSPDFKit import shows the thread. What a comment
 * cannot hold (the reply's rectangle, flags, colour, icon, Quire's exact fields) is left
 * out. `quire_document_import_annotations_json` reads the result (comments become replies).
 * Same thread rules and ownership as `quire_document_export_annotations_json`.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ENOTFOUND (page_index is a page
 * missing from the page tree); QUIRE_EBUFS.
 */
QUIRE_API int quire_document_export_annotations_json_instant_comments(char *buf, size_t buf_size,
                                           size_t *out_len, quire_document *doc,
                                           int32_t page_index);

/**
 * Imports `length` bytes of annotation JSON (the format `quire_document_export_annotations_json`
 * writes, or plain Instant JSON): an annotation whose name (/NM) is already on its page is
 * updated, any other is created; replies are linked by name. Instant JSON's "comments"
 * become replies to their "rootId", xhtml text becomes sanitized rich text (/RC), and
 * "pspdfkit/image" records with their "attachments" become image stamps
 * (docs/annotation-json.md). "formFieldValues" set the values of the form's fields by
 * fully qualified name, with the rules of `quire_field_set_value` (a value equal to the
 * field's is left alone, so a document's own export changes nothing); "formFields" are
 * matched by name and type, never created or redefined. "skippedPdfObjectIds" deletes the
 * annotations it lists that no record replaces; when "pdfId" names another file (another
 * permanent /ID), the JSON's object numbers are ignored, with a document warning.
 * Everything is checked before the document changes, form values included: on an error,
 * nothing was imported.
 * out_count: receives the number of annotations (comments included) created or updated;
 * may be NULL.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EFORMAT (malformed JSON, an unknown annotation
 * type, a reply or comment whose parent is missing, XHTML that is not well-formed, an image
 * that does not decode, a form value for a field the document lacks or that is not one of
 * the field's states or options, a skipped annotation that a record names: the message
 * names the field); QUIRE_ELIMIT (rich text over 1 MiB or nested deeper than 64, an image
 * over 16 MiB or 40 million pixels, a form text value over 1 Mi characters);
 * QUIRE_EDISABLED (replies while replies are off); QUIRE_ESTATE (a form value for a
 * read-only field, or turning off a radio group that cannot be); QUIRE_ERANGE (a text
 * value longer than the field's /MaxLen); QUIRE_EUNSUPPORTED (a value for a push button or
 * a signature; a page that is a direct object).
 */
QUIRE_API int quire_document_import_annotations_json(int32_t *out_count, quire_document *doc,
                                           const char *json, size_t length);

/* ------------------------------------------------------------------------------------ */
/* Forms: AcroForm fields, their values and appearances                                  */
/* ------------------------------------------------------------------------------------ */

/*
 * The terminal fields of a document's interactive form (ISO 32000-2 §12.7), addressed by
 * their index in tree order (depth first, /Kids order), from 0 to
 * `quire_document_field_count` - 1. The indices are those of the field tree as it is:
 * setting values does not change them. The tree is read once and kept until the document
 * changes (any edit, through any function; a save; a checkpoint loaded), so reading every
 * field costs one walk of the tree, and what one call reports is always the document's
 * current state.
 *
 * Values follow the rules of §12.7: read-only fields are refused, /MaxLen is enforced,
 * check boxes and radio buttons take "Off" or one of their on-states, choice fields one of
 * their options (any text in an editable combo box), list boxes several only with
 * MultiSelect. Setting a value regenerates the normal appearance of each widget of the
 * field (text from /DA: font, size, auto size, colour; /Q alignment; multiline, comb,
 * password; written in the encoding of the /DR font that /DA names, or in WinAnsiEncoding
 * with Helvetica; a field without /DA gets "/Helv 0 Tf 0 g" written into it), so viewers
 * that draw only appearances show it. The changes go through the
 * document's editing path (saved, journalled by checkpoints). XFA forms are reported by
 * `quire_document_form_kind` and never filled; JavaScript is never run.
 *
 * Thread safety: as the document.
 */

/** The kind of form a document has, from `quire_document_form_kind`. */
typedef enum quire_form_kind {
    QUIRE_FORM_NONE = 0x1A00,           /**< no /AcroForm, or one without fields */
    QUIRE_FORM_ACROFORM = 0x1A01,       /**< an AcroForm */
    QUIRE_FORM_XFA_FOREGROUND = 0x1A02, /**< AcroForm fields and an /XFA form (XFA viewers show the XFA) */
    QUIRE_FORM_XFA_ONLY = 0x1A03        /**< /XFA without AcroForm fields: nothing to fill */
} quire_form_kind;

/** The type of a field (§12.7.5), from `quire_field_type`. */
typedef enum quire_field_kind {
    QUIRE_FIELD_TEXT = 0x1B00,
    QUIRE_FIELD_CHECK_BOX = 0x1B01,
    QUIRE_FIELD_RADIO_BUTTON = 0x1B02, /**< a radio group: one field, a widget per button */
    QUIRE_FIELD_COMBO_BOX = 0x1B03,
    QUIRE_FIELD_LIST_BOX = 0x1B04,
    QUIRE_FIELD_PUSH_BUTTON = 0x1B05,  /**< no value */
    QUIRE_FIELD_SIGNATURE = 0x1B06,    /**< read-only information: value "signed" or none */
    QUIRE_FIELD_UNKNOWN = 0x1B07       /**< no or an unknown /FT: listed, never changed */
} quire_field_kind;

/** The two texts of a field option, for `quire_field_option`. */
typedef enum quire_field_option_part {
    QUIRE_FIELD_OPTION_EXPORT = 0x1C00, /**< the export value: what the field's value holds */
    QUIRE_FIELD_OPTION_DISPLAY = 0x1C01 /**< the text shown to the user */
} quire_field_option_part;

/** Field flags (/Ff, §12.7.4.1): bits of `quire_field_flags` (bit n is 1 << (n - 1) in the
 *  standard's numbering: read-only is bit 1). */
#define QUIRE_FIELD_FLAG_READ_ONLY 0x1
#define QUIRE_FIELD_FLAG_REQUIRED 0x2
#define QUIRE_FIELD_FLAG_NO_EXPORT 0x4
#define QUIRE_FIELD_FLAG_MULTILINE 0x1000
#define QUIRE_FIELD_FLAG_PASSWORD 0x2000
#define QUIRE_FIELD_FLAG_NO_TOGGLE_TO_OFF 0x4000
#define QUIRE_FIELD_FLAG_EDIT 0x40000
#define QUIRE_FIELD_FLAG_MULTI_SELECT 0x200000
#define QUIRE_FIELD_FLAG_COMB 0x1000000

/**
 * What kind of form the document has.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EFORMAT (no usable catalog).
 */
QUIRE_API int quire_document_form_kind(quire_form_kind *out, quire_document *doc);

/**
 * The number of terminal fields of the form (0 without one).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ELIMIT (a field tree deeper than 32 levels or of
 * more than 200,000 dictionaries). A cycle in the tree is not an error: each field is
 * listed once, with a warning.
 */
QUIRE_API int quire_document_field_count(int32_t *out, quire_document *doc);

/**
 * The index of the field whose fully qualified name is `name` (NUL-terminated UTF-8).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND; QUIRE_ELIMIT.
 */
QUIRE_API int quire_document_field_index(int32_t *out, quire_document *doc, const char *name);

/**
 * The fully qualified name of field `index`: the partial names (/T) from the root, joined
 * with periods. Length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_EBUFS; QUIRE_ELIMIT.
 */
QUIRE_API int quire_field_name(char *buf, size_t buf_size, size_t *out_len, quire_document *doc, int32_t index);

/** The type of field `index`. Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ELIMIT. */
QUIRE_API int quire_field_type(quire_field_kind *out, quire_document *doc, int32_t index);

/**
 * The flags (/Ff, inherited) of field `index`: QUIRE_FIELD_FLAG_* bits, and the other bits
 * of Table 226 as they are in the file.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ELIMIT.
 */
QUIRE_API int quire_field_flags(uint32_t *out, quire_document *doc, int32_t index);

/**
 * /MaxLen of text field `index` (inherited), or -1 when it has none (also for other types).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ELIMIT.
 */
QUIRE_API int quire_field_max_length(int32_t *out, quire_document *doc, int32_t index);

/**
 * The number of values of field `index`: 0 when unset, 1 for text, combo boxes and buttons
 * (a button that is off has the value "Off"), any number for a multi-select list box.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ELIMIT.
 */
QUIRE_API int quire_field_value_count(int32_t *out, quire_document *doc, int32_t index);

/**
 * Value `value_index` of field `index` (export values for choices and buttons).
 * Length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE (either index); QUIRE_EBUFS; QUIRE_ELIMIT.
 */
QUIRE_API int quire_field_value(char *buf, size_t buf_size, size_t *out_len, quire_document *doc,
                                int32_t index, int32_t value_index);

/**
 * The number of options of field `index`: the choices (/Opt) of a combo or list box; the
 * on-states of a check box or radio group (their display text is the /Opt export value
 * when the field has /Opt); 0 for other types.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ELIMIT.
 */
QUIRE_API int quire_field_option_count(int32_t *out, quire_document *doc, int32_t index);

/**
 * One text of option `option_index` of field `index`. Length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL (also an unknown `part`); QUIRE_ERANGE; QUIRE_EBUFS;
 * QUIRE_ELIMIT.
 */
QUIRE_API int quire_field_option(char *buf, size_t buf_size, size_t *out_len, quire_document *doc,
                                 int32_t index, int32_t option_index, quire_field_option_part part);

/** The number of widgets (annotations on pages) of field `index`.
 *  Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ELIMIT. */
QUIRE_API int quire_field_widget_count(int32_t *out, quire_document *doc, int32_t index);

/**
 * Widget `widget_index` of field `index`: its page (-1 when no page lists it; may be NULL)
 * and its /Rect (may be NULL).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ELIMIT.
 */
QUIRE_API int quire_field_widget(int32_t *out_page_index, quire_rect *out_rect, quire_document *doc,
                                 int32_t index, int32_t widget_index);

/**
 * Sets the value of field `index` to `value` (NUL-terminated UTF-8) and regenerates its
 * widgets' appearances. For a list box, one selected option (use
 * `quire_field_set_values` for several).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments, a value that is not a state or an
 * option of the field); QUIRE_ERANGE (the index; a text longer than /MaxLen); QUIRE_ESTATE
 * (a read-only field; turning off a radio group with NoToggleToOff); QUIRE_EUNSUPPORTED
 * (push buttons, signatures, fields of unknown type); QUIRE_ELIMIT.
 */
QUIRE_API int quire_field_set_value(quire_document *doc, int32_t index, const char *value);

/**
 * Sets the values of field `index` to the `count` strings of `values` (several only for a
 * multi-select list box; 0 clears a list box's selection) and regenerates its widgets'
 * appearances. Returns: as `quire_field_set_value`.
 */
QUIRE_API int quire_field_set_values(quire_document *doc, int32_t index, const char *const *values, int32_t count);

/**
 * Resets field `index` to its default value (/DV), or clears it when it has none, and
 * regenerates its appearances.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ESTATE (read-only); QUIRE_ELIMIT.
 */
QUIRE_API int quire_field_reset(quire_document *doc, int32_t index);

/** The current version of `quire_flatten_options`. */
#define QUIRE_FLATTEN_OPTIONS_VERSION 1

/** Options of `quire_document_flatten`. Initialise with QUIRE_FLATTEN_OPTIONS_INIT. */
typedef struct quire_flatten_options {
    /** Must be QUIRE_FLATTEN_OPTIONS_VERSION (or an older version). */
    uint32_t version;
    /** NULL (the default) for every subtype but Link and Popup, or a comma-separated list
     *  of subtype names ("Widget", "Highlight,Ink", ...); read during the call only. */
    const char *subtypes;
    /** Non-zero (the default) keeps links on the pages; 0 removes them too. */
    int32_t keep_links;
    /** Called on the calling thread with the pages done and their total (the last call
     *  with done == total); return non-zero to cancel: the call returns QUIRE_EUSER and
     *  the document is as it was. NULL: no progress (see "Long operations"). */
    int (*progress)(uint64_t done, uint64_t total, void *payload);
    /** Passed to `progress`. */
    void *progress_payload;
} quire_flatten_options;

/** Initialiser for `quire_flatten_options`: every subtype but Link and Popup, links kept,
 *  no progress callback. */
#define QUIRE_FLATTEN_OPTIONS_INIT { QUIRE_FLATTEN_OPTIONS_VERSION, NULL, 1, NULL, NULL }

/**
 * Fills `options` with the defaults of `version` (1 up to QUIRE_FLATTEN_OPTIONS_VERSION)
 * and sets its version: QUIRE_FLATTEN_OPTIONS_INIT for bindings that cannot use the macro.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_flatten_options_init(quire_flatten_options *options, unsigned version);

/**
 * Flattens annotations: burns the normal appearance of each chosen, visible annotation
 * (form field widgets included) into its page's content, as a form XObject placed with
 * the matrix of ISO 32000-2 §12.5.5, and removes it from the page. Popups, replies (/IRT)
 * and hidden annotations of the chosen subtypes are removed without being drawn. When no
 * widget remains, the form (/AcroForm) is removed, so nothing stays editable. All or
 * nothing: on an error or a cancel, the document is as it was.
 * options: NULL for the defaults (QUIRE_FLATTEN_OPTIONS_INIT): which subtypes, whether
 * links stay, and a progress callback.
 * out_count: receives the number of annotations drawn; may be NULL.
 * Returns: QUIRE_OK; QUIRE_EINVAL (also an options version of 0); QUIRE_EVERSION;
 * QUIRE_EFORMAT (a page tree that cannot be read); QUIRE_ELIMIT; QUIRE_EUSER (the
 * progress callback cancelled).
 * Thread: the document's; `progress` is called on the calling thread.
 */
QUIRE_API int quire_document_flatten(int32_t *out_count, quire_document *doc, const quire_flatten_options *options);

/**
 * The document's annotations (but links, popups and widgets), with replies (`inreplyto`,
 * by /NM) and review states, and its field values, as XFDF (ISO 19444-1, as Acrobat and
 * PDFTron write it): UTF-8 XML. Length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EBUFS; QUIRE_ELIMIT.
 */
QUIRE_API int quire_document_export_xfdf(char *buf, size_t buf_size, size_t *out_len, quire_document *doc);

/**
 * Imports `length` bytes of XFDF: an annotation whose `name` (/NM) is already on its page
 * is updated, any other is added; replies are linked by `inreplyto`; field values are set
 * with the rules of `quire_field_set_value` (a value a field refuses is a warning of the
 * document, not an error). No document type declaration is accepted, so no entity is
 * ever expanded or fetched. All or nothing: on an error, nothing is imported.
 * `quire_document_import_annotations` does the same with a progress callback.
 * out_count: receives the number of annotations added or updated and field values set;
 * may be NULL.
 * Returns: QUIRE_OK; QUIRE_EINVAL (also an annotation the rules refuse); QUIRE_EFORMAT
 * (not well-formed XML, a DOCTYPE, an annotation without page or rect, a reply to a name
 * that is nowhere); QUIRE_ELIMIT (more than 64 MiB, 64 levels or 1,000,000 elements).
 */
QUIRE_API int quire_document_import_xfdf(int32_t *out_count, quire_document *doc, const char *xfdf, size_t length);

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

/* ------------------------------------------------------------------------------------ */
/* Bookmarks                                                                            */
/* ------------------------------------------------------------------------------------ */

/**
 * A user bookmark: the reader's own mark (not the outline), as a value owned by the caller
 * and released with `quire_bookmark_free`, independent of the document's lifetime. It has
 * an identifier (generated for new bookmarks: stable and opaque), an optional name, an
 * action (go to a page, a URI, a named action, or any other action kept as its PDF
 * dictionary) and an opaque sort key that records its place in the custom order.
 *
 * To change a bookmark, take a copy from the document, change the copy and add it back:
 * adding a bookmark whose identifier the document already has replaces that bookmark in
 * place (it keeps its position in the custom order). A bookmark with a new identifier is a
 * new bookmark, even for the same page. Thread safety: one thread at a time per value.
 */
typedef struct quire_bookmark quire_bookmark;

/** Bookmark actions, for `quire_bookmark_new` and `quire_bookmark_action_kind`: the action
 *  types of outline items (`quire_action_type`), under the names of 0.4. */
#define QUIRE_BOOKMARK_GOTO QUIRE_ACTION_GOTO   /**< go to a page of the document */
#define QUIRE_BOOKMARK_URI QUIRE_ACTION_URI     /**< open a URI */
#define QUIRE_BOOKMARK_NAMED QUIRE_ACTION_NAMED /**< a named action (/N), such as NextPage */
#define QUIRE_BOOKMARK_OTHER QUIRE_ACTION_OTHER /**< any other action, as its action dictionary in PDF syntax */

/** Bookmark sort orders. */
typedef enum quire_bookmark_sort_order {
    QUIRE_BOOKMARK_SORT_CUSTOM = 0x0C00, /**< insertion order, as rearranged by moves */
    /** By page index; bookmarks that do not point at a page last; ties keep the custom order. */
    QUIRE_BOOKMARK_SORT_PAGE = 0x0C01
} quire_bookmark_sort_order;

/**
 * Makes a new bookmark with a new identifier. For QUIRE_BOOKMARK_GOTO, `page_index` is the
 * page and `text` must be NULL; for QUIRE_BOOKMARK_URI and QUIRE_BOOKMARK_NAMED, `text` is
 * the URI or the action's name (UTF-8) and `page_index` is ignored; for
 * QUIRE_BOOKMARK_OTHER, `text` is an action dictionary in PDF syntax, such as
 * "<< /S /JavaScript /JS (app.alert(1)) >>", parsed strictly.
 * out: receives a new bookmark owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL (unknown kind, a negative page, missing, empty or
 * unexpected text); QUIRE_EFORMAT (text of QUIRE_BOOKMARK_OTHER that is not one
 * dictionary with an /S name).
 */
QUIRE_API int quire_bookmark_new(quire_bookmark **out, quire_action_type kind, int32_t page_index,
                       const char *text);

/**
 * A copy of `bookmark`, with the same identifier.
 * out: receives a new bookmark owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_bookmark_copy(quire_bookmark **out, const quire_bookmark *bookmark);

/** Releases a bookmark. NULL is a no-op. */
QUIRE_API void quire_bookmark_free(quire_bookmark *bookmark);

/**
 * The identifier of a bookmark, through the length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EBUFS.
 */
QUIRE_API int quire_bookmark_identifier(char *buf, size_t buf_size, size_t *out_len,
                              const quire_bookmark *bookmark);

/**
 * Sets the identifier (non-empty UTF-8): for a provider that loads stored bookmarks.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL or empty).
 */
QUIRE_API int quire_bookmark_set_identifier(quire_bookmark *bookmark, const char *identifier);

/**
 * The name of a bookmark, through the length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EBUFS; QUIRE_ENOTFOUND (it has no name).
 */
QUIRE_API int quire_bookmark_name(char *buf, size_t buf_size, size_t *out_len,
                        const quire_bookmark *bookmark);

/**
 * Sets the name from UTF-8; NULL clears it.
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_bookmark_set_name(quire_bookmark *bookmark, const char *name);

/**
 * The kind of a bookmark's action (QUIRE_BOOKMARK_GOTO, ...).
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_bookmark_action_kind(quire_action_type *out, const quire_bookmark *bookmark);

/**
 * The page index a go-to bookmark points at.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND (not a go-to bookmark).
 */
QUIRE_API int quire_bookmark_page_index(int32_t *out, const quire_bookmark *bookmark);

/**
 * The text of a bookmark's action, through the length-query pattern: the URI, the named
 * action's name, or, for any other action, its action dictionary in PDF syntax.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EBUFS; QUIRE_ENOTFOUND (a go-to bookmark).
 */
QUIRE_API int quire_bookmark_action_text(char *buf, size_t buf_size, size_t *out_len,
                               const quire_bookmark *bookmark);

/**
 * The sort key of a bookmark: opaque, assigned by the document when a bookmark without one
 * is added and when bookmarks are moved; providers store it as it is.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND (it has none).
 */
QUIRE_API int quire_bookmark_sort_key(int64_t *out, const quire_bookmark *bookmark);

/**
 * Sets the sort key; NULL clears it. For providers that load stored bookmarks.
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_bookmark_set_sort_key(quire_bookmark *bookmark, const int64_t *sort_key);

/**
 * Given to a provider's `load` callback: add each stored bookmark to it. Use it only
 * during that call: afterwards `quire_bookmark_sink_add` returns QUIRE_ESTATE while the
 * provider is in use, and once the provider is released the pointer is invalid.
 */
typedef struct quire_bookmark_sink quire_bookmark_sink;

/**
 * Adds a copy of `bookmark` to the bookmarks a provider loads (a bookmark whose identifier
 * was already added is ignored).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments); QUIRE_ESTATE (the sink's load call has
 * returned).
 */
QUIRE_API int quire_bookmark_sink_add(quire_bookmark_sink *sink, const quire_bookmark *bookmark);

/**
 * A bookmark provider: where bookmarks are stored. The document holds an ordered chain of
 * providers (`quire_document_set_bookmark_providers`): it offers a new bookmark to each in
 * order until one accepts it, asks each in order to remove a bookmark until the one that
 * holds it does, lists the union of their bookmarks, and asks every provider to persist
 * (`save`) when the document is saved, before the file is written: a provider whose
 * `save` fails stops the save (QUIRE_EUSER, the file untouched), while a file that then
 * fails to write leaves the providers' storage ahead of it. A chain not used since it was
 * set is not asked to save. Providers are asked for their bookmarks once, on first use.
 *
 * Each callback returns 0, or non-zero to fail: the document's call then returns
 * QUIRE_EUSER with a message naming the provider and the callback. Callbacks are called on
 * the thread that called the document, never later; they must not call the document's
 * bookmark functions (those return QUIRE_ESTATE while a provider runs). The bookmarks they
 * are given are borrowed for the call.
 *
 * Initialise with QUIRE_BOOKMARK_PROVIDER_INIT and set the callbacks, or use
 * QUIRE_BOOKMARK_PROVIDER_BUILTIN_INIT for the built-in provider, which stores bookmarks
 * in the PDF (a private catalog entry, /QUIR_Bookmarks, that other viewers ignore),
 * accepts every bookmark and writes its changes into the document's unsaved changes.
 */
typedef struct quire_bookmark_provider {
    uint32_t version; /**< QUIRE_BOOKMARK_PROVIDER_VERSION */
    /** Non-zero: this entry is the built-in provider, and every callback must be NULL. */
    int32_t builtin;
    /** Required: add each stored bookmark with `quire_bookmark_sink_add`. */
    int (*load)(quire_bookmark_sink *sink, void *payload);
    /** Required: set `*accepted` non-zero to take `bookmark` (replacing a bookmark with its
     *  identifier, if the provider holds one), 0 to let the next provider have it. */
    int (*add)(int32_t *accepted, const quire_bookmark *bookmark, void *payload);
    /** Required: set `*removed` non-zero if the provider held `bookmark` (by identifier)
     *  and removed it. */
    int (*remove)(int32_t *removed, const quire_bookmark *bookmark, void *payload);
    /** Optional: persist; called when the document is saved. */
    int (*save)(void *payload);
    /** Optional: called once when the document no longer uses the provider (its chain is
     *  replaced, or the document is closed); `payload` may be freed then. */
    void (*release)(void *payload);
    void *payload; /**< passed to every callback */
} quire_bookmark_provider;

#define QUIRE_BOOKMARK_PROVIDER_VERSION 1
#define QUIRE_BOOKMARK_PROVIDER_INIT { QUIRE_BOOKMARK_PROVIDER_VERSION, 0, NULL, NULL, NULL, NULL, NULL, NULL }
#define QUIRE_BOOKMARK_PROVIDER_BUILTIN_INIT { QUIRE_BOOKMARK_PROVIDER_VERSION, 1, NULL, NULL, NULL, NULL, NULL, NULL }

/**
 * Fills `provider` with the defaults of `version` (1 up to QUIRE_BOOKMARK_PROVIDER_VERSION):
 * no callbacks, not the built-in provider (set `builtin` for that), and sets its version:
 * QUIRE_BOOKMARK_PROVIDER_INIT for bindings that cannot use the macro.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_bookmark_provider_init(quire_bookmark_provider *provider, unsigned version);

/**
 * Replaces the document's chain of bookmark providers with the `count` providers that
 * `providers` points at, in order: an array of pointers, so that the struct can grow in
 * later versions (each is read by its own `version`; the structs are copied; their
 * payloads must stay valid until `release`). The default
 * chain is the built-in provider alone. An empty chain (count 0) keeps no bookmarks.
 * The providers of the old chain are released; the new ones are asked for their
 * bookmarks on next use. On an error, the chain is unchanged and no new provider's
 * `release` is called.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL providers with a count, a NULL entry, version 0, a
 * custom provider without load, add or remove, a built-in entry with callbacks);
 * QUIRE_EVERSION (a provider of a newer version than this library knows);
 * QUIRE_ESTATE (called from a provider's callback).
 */
QUIRE_API int quire_document_set_bookmark_providers(quire_document *doc,
                                          const quire_bookmark_provider *const *providers,
                                          size_t count);

/**
 * The number of bookmarks, over all providers (loading them on first use).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EUSER (a provider failed); QUIRE_EUNSUPPORTED
 * (the document stores bookmarks in a newer format).
 */
QUIRE_API int quire_document_bookmark_count(int32_t *out, quire_document *doc);

/**
 * Bookmark `index` in `sort_order` (QUIRE_BOOKMARK_SORT_CUSTOM or QUIRE_BOOKMARK_SORT_PAGE),
 * without changing the document's state.
 * out: receives a new bookmark owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL (unknown order); QUIRE_ERANGE; QUIRE_EUSER.
 */
QUIRE_API int quire_document_bookmark(quire_bookmark **out, quire_document *doc,
                            quire_bookmark_sort_order sort_order,
                            int32_t index);

/**
 * The bookmark with `identifier`.
 * out: receives a new bookmark owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND; QUIRE_EUSER.
 */
QUIRE_API int quire_document_find_bookmark(quire_bookmark **out, quire_document *doc,
                                 const char *identifier);

/**
 * Adds a copy of `bookmark`, or replaces the bookmark with its identifier in place. A new
 * bookmark without a sort key gets one after every other bookmark and is offered to the
 * providers in order; a replacement goes to the provider that holds it, then down the
 * chain if that one declines.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE (a go-to bookmark past the last page, or
 * to a page missing from the page tree: see `quire_document_page_count`);
 * QUIRE_EUNSUPPORTED (no provider accepts it); QUIRE_EUSER; QUIRE_ESTATE.
 */
QUIRE_API int quire_document_add_bookmark(quire_document *doc, const quire_bookmark *bookmark);

/**
 * Removes the bookmark with `identifier` (the providers are asked in order).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND; QUIRE_EUSER; QUIRE_ESTATE.
 */
QUIRE_API int quire_document_remove_bookmark(quire_document *doc, const char *identifier);

/**
 * Moves the bookmark with `identifier` to `index` of the custom order (rewriting the sort
 * keys of the bookmarks whose place changes, through their providers).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND; QUIRE_ERANGE; QUIRE_EUSER; QUIRE_ESTATE.
 */
QUIRE_API int quire_document_move_bookmark(quire_document *doc, const char *identifier, int32_t index);

/**
 * The sort order a user interface should show this document's bookmarks in: a
 * configuration value of the open document (QUIRE_BOOKMARK_SORT_CUSTOM by default), not
 * stored in the file. It also orders `quire_document_export_bookmarks_to_outline`.
 * Returns: QUIRE_OK; QUIRE_EINVAL (unknown order).
 */
QUIRE_API int quire_document_bookmark_sort_order(quire_bookmark_sort_order *out, quire_document *doc);
QUIRE_API int quire_document_set_bookmark_sort_order(quire_document *doc,
                                           quire_bookmark_sort_order sort_order);

/** Called after each change to a document's bookmarks, on the thread that made it. */
typedef void (*quire_bookmark_change_fn)(quire_document *doc, void *payload);

/**
 * Sets the function called after each change to the bookmarks (add, replace, remove, move,
 * a new provider chain); NULL removes it.
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_document_set_bookmark_change_callback(quire_document *doc,
                                                quire_bookmark_change_fn callback,
                                                void *payload);

/**
 * Writes the bookmarks into the outline (table of contents) in the document's bookmark
 * sort order, so that other viewers show them: one top-level item each, after the
 * document's own items. Items an earlier export made are replaced, not duplicated. The
 * changes are unsaved changes, written by the next save.
 * out_count: receives the number of items written; may be NULL.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EFORMAT (the outline's top level is damaged:
 * nothing is changed); QUIRE_EUSER.
 */
QUIRE_API int quire_document_export_bookmarks_to_outline(int32_t *out_count, quire_document *doc);

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
 * thread); `quire_sync_service_handle` blocks its thread while a long poll waits.
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
    /** Where the service keeps its data: "sqlite:///absolute/path/quire.db" (created if
     *  missing) or "sqlite::memory:" (the default, for tests: gone when closed). */
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
} quire_sync_config;

/** The current version of `quire_sync_config`. */
#define QUIRE_SYNC_CONFIG_VERSION 1
/** Initialiser for `quire_sync_config`: an in-memory store, no keys, no admin API, the
 *  default limits. */
#define QUIRE_SYNC_CONFIG_INIT { QUIRE_SYNC_CONFIG_VERSION, NULL, NULL, 0, NULL, NULL, 0, 0 }

/**
 * Fills `config` with the defaults of `version` and sets its version (QUIRE_SYNC_CONFIG_INIT
 * for bindings that cannot use the macro).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_sync_config_init(quire_sync_config *config, unsigned version);

/**
 * Opens a sync service: its store (migrated to the current schema) and its keys.
 * out: receives the service, owned by the caller; release with `quire_sync_service_close`.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments, an unknown store URL scheme, a key that
 * is not a PEM public key, JWKS that does not parse); QUIRE_EVERSION; QUIRE_EIO (the store
 * cannot be opened); QUIRE_EFORMAT (a store file that is not Quire's).
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
/* Text: extraction with positions, search, selection, highlights                        */
/* ------------------------------------------------------------------------------------ */

/**
 * The text of one page, as Quire extracts it: characters with their Unicode text, quads
 * and font sizes, in the order the content streams show them, with the spaces and line
 * breaks Quire inserts between words and lines ("generated" characters). docs/text.md
 * describes the fonts, encodings and heuristics. A snapshot: it keeps no reference to
 * the document and stays valid after the document changes or is closed. Immutable, so it
 * may be read from any thread; free it with `quire_text_page_free`.
 */
typedef struct quire_text_page quire_text_page;

/** The matches of a text search; free with `quire_text_match_list_free`. A snapshot, like
 *  `quire_text_page`. */
typedef struct quire_text_match_list quire_text_match_list;

/** The text markup annotations made from text (ISO 32000-2 §12.5.6.10). */
typedef enum quire_text_markup {
    QUIRE_TEXT_MARKUP_HIGHLIGHT = 0x1100, /**< /Highlight */
    QUIRE_TEXT_MARKUP_UNDERLINE = 0x1101, /**< /Underline */
    QUIRE_TEXT_MARKUP_STRIKEOUT = 0x1102, /**< /StrikeOut */
    QUIRE_TEXT_MARKUP_SQUIGGLY = 0x1103   /**< /Squiggly */
} quire_text_markup;

/** The current version of `quire_text_char` (2 added `glyph_box` and `has_glyph_box`). */
#define QUIRE_TEXT_CHAR_VERSION 2

/** One character of a page's text. Initialise with QUIRE_TEXT_CHAR_INIT. */
typedef struct quire_text_char {
    /** Must be QUIRE_TEXT_CHAR_VERSION (or an older version). */
    uint32_t version;
    /** The box around the character's quad, in PDF user space: from the font's descent
     *  to its ascent, as wide as the glyph's advance (for rotated text, the axis-aligned
     *  box around the rotated quad; the quad itself: `quire_text_page_range_quads` of
     *  this one character). */
    quire_rect box;
    /** The font size in user space units (the text and current matrices applied). */
    double font_size;
    /** 1 when Quire inserted the character (a space between words, or "\n" between
     *  lines; a generated line break has an empty box at the end of its line and no
     *  quad); else 0. */
    int32_t is_generated;
    /** The line (0-based) the character is on. */
    int32_t line;
    /* Version 2: */
    /** The box of the glyph itself, in PDF user space (the axis-aligned box around it for
     *  rotated text): the bounding box of the glyph's outline in the embedded font program
     *  (TrueType `glyf`, CFF or Type 1 charstrings), or the AFM box of a non-embedded
     *  standard 14 font; what PDFium's FPDFText_GetCharBox reports. Tighter than `box`,
     *  which stays the box for highlights and selection. When neither is known (Type 3
     *  fonts, other non-embedded fonts, generated characters) it equals `box`. */
    quire_rect glyph_box;
    /** 1 when `glyph_box` comes from the glyph's outline or metrics; 0 when it is `box`. */
    int32_t has_glyph_box;
} quire_text_char;

/** Initialiser for `quire_text_char`. */
#define QUIRE_TEXT_CHAR_INIT { QUIRE_TEXT_CHAR_VERSION, {0, 0, 0, 0}, 0, 0, 0, {0, 0, 0, 0}, 0 }

/**
 * Sets `out`'s version to `version` (1 up to QUIRE_TEXT_CHAR_VERSION) and its fields to
 * zero: QUIRE_TEXT_CHAR_INIT for bindings that cannot use the macro.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_text_char_init(quire_text_char *out, unsigned version);

/** The current version of `quire_text_search_options` (2 added the progress callback; a
 *  version 1 struct, 16 bytes, is read as it is). */
#define QUIRE_TEXT_SEARCH_OPTIONS_VERSION 2

/** Options of `quire_document_search_text`. Initialise with QUIRE_TEXT_SEARCH_OPTIONS_INIT. */
typedef struct quire_text_search_options {
    /** Must be QUIRE_TEXT_SEARCH_OPTIONS_VERSION (or an older version). */
    uint32_t version;
    /** 1: match letter case exactly; 0 (the default): case-insensitive (Unicode
     *  lowercase mapping). */
    int32_t match_case;
    /** 1: only matches with no letter or digit just before or after them. */
    int32_t whole_word;
    /** Most matches returned; 0 (the default): all. */
    int32_t max_matches;
    /** Version 2: called with the pages searched and their total (a search of one page
     *  has one step); non-zero cancels with QUIRE_EUSER (see "Long operations"). NULL: no
     *  progress. */
    int (*progress)(uint64_t done, uint64_t total, void *payload);
    /** Version 2: passed to `progress`. */
    void *progress_payload;
} quire_text_search_options;

/** Initialiser for `quire_text_search_options`: case-insensitive, any position, all, no
 *  progress callback. */
#define QUIRE_TEXT_SEARCH_OPTIONS_INIT { QUIRE_TEXT_SEARCH_OPTIONS_VERSION, 0, 0, 0, NULL, NULL }

/**
 * Fills `options` with the defaults of `version` (1 up to
 * QUIRE_TEXT_SEARCH_OPTIONS_VERSION) and sets its version.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_text_search_options_init(quire_text_search_options *options, unsigned version);

/**
 * Extracts the text of page `page_index` into a new `*out` (owned by the caller). Damage
 * in the page's content ends the stream where it is, with a warning on the text page
 * (`quire_text_page_warning`); fonts the file describes badly degrade to documented
 * fallbacks. Thread: the document's.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `out` or `doc`); QUIRE_ERANGE (no such page);
 * QUIRE_EFORMAT, QUIRE_ELIMIT (the page itself cannot be read).
 */
QUIRE_API int quire_page_text_load(quire_text_page **out, quire_document *doc, int32_t page_index);

/** Releases a text page. NULL is a no-op. */
QUIRE_API void quire_text_page_free(quire_text_page *text);

/** The index of the page the text belongs to. Returns: QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_text_page_index(int32_t *out, const quire_text_page *text);

/** How many characters the page has (generated ones included). Returns: QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_text_page_char_count(int32_t *out, const quire_text_page *text);

/**
 * The page's plain text (every character's text in order, UTF-8), with the length-query
 * pattern. Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EBUFS.
 */
QUIRE_API int quire_text_page_text(char *buf, size_t buf_size, size_t *out_len, const quire_text_page *text);

/**
 * The text of the `count` characters from `first`, with the length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL (negative count); QUIRE_ERANGE (past the characters);
 * QUIRE_EBUFS.
 */
QUIRE_API int quire_text_page_range_text(char *buf, size_t buf_size, size_t *out_len,
                                         const quire_text_page *text, int32_t first, int32_t count);

/**
 * Character `index`: its box, font size, whether it is generated, its line and (version 2)
 * its glyph box, written into `*out` (whose `version` the caller sets; only that version's
 * fields are written).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EVERSION; QUIRE_ERANGE.
 */
QUIRE_API int quire_text_page_char(quire_text_char *out, const quire_text_page *text, int32_t index);

/**
 * The Unicode text of character `index` (usually one code point; a ligature or an
 * /ActualText span may give several), with the length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_EBUFS.
 */
QUIRE_API int quire_text_page_char_text(char *buf, size_t buf_size, size_t *out_len,
                                        const quire_text_page *text, int32_t index);

/**
 * The font name (/BaseFont) of character `index`, with the length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_EBUFS.
 */
QUIRE_API int quire_text_page_char_font(char *buf, size_t buf_size, size_t *out_len,
                                        const quire_text_page *text, int32_t index);

/** How many lines the page has. Returns: QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_text_page_line_count(int32_t *out, const quire_text_page *text);

/**
 * Line `index`: its first character and how many it has (without its line break).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE.
 */
QUIRE_API int quire_text_page_line(int32_t *out_first, int32_t *out_count, const quire_text_page *text, int32_t index);

/** How many words the page has (runs of characters between white space). Returns:
 *  QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_text_page_word_count(int32_t *out, const quire_text_page *text);

/**
 * Word `index`: its first character and how many it has.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE.
 */
QUIRE_API int quire_text_page_word(int32_t *out_first, int32_t *out_count, const quire_text_page *text, int32_t index);

/**
 * The quads that cover the `count` characters from `first`: one per line they span, 8
 * numbers each in /QuadPoints order, into `buf` with the length-query pattern for numbers
 * (`capacity` and `*out_count` count doubles). These are the quads a highlight of the
 * range needs.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_EBUFS.
 */
QUIRE_API int quire_text_page_range_quads(double *buf, size_t capacity, size_t *out_count,
                                          const quire_text_page *text, int32_t first, int32_t count);

/**
 * The index of the character at point (`x`, `y`) of user space: the one whose quad holds
 * it, else the nearest. Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND (the page has no
 * text).
 */
QUIRE_API int quire_text_page_char_at(int32_t *out, const quire_text_page *text, double x, double y);

/**
 * The selection a drag from (`x0`, `y0`) to (`x1`, `y1`) makes: the characters from the
 * one at the first point to the one at the second (in either order), both included.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND (the page has no text).
 */
QUIRE_API int quire_text_page_select(int32_t *out_first, int32_t *out_count, const quire_text_page *text,
                                     double x0, double y0, double x1, double y1);

/** How many warnings extracting the text gave. Returns: QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_text_page_warning_count(int32_t *out, const quire_text_page *text);

/** Warning `index`, with the length-query pattern. Returns: QUIRE_OK; QUIRE_EINVAL;
 *  QUIRE_ERANGE; QUIRE_EBUFS. */
QUIRE_API int quire_text_page_warning(char *buf, size_t buf_size, size_t *out_len,
                                      const quire_text_page *text, int32_t index);

/**
 * Searches the text of page `page_index`, or of every page when it is -1, for `query`
 * (UTF-8): case-insensitive unless asked, white space in the query matches any white
 * space (line breaks too), and a word hyphenated at a line end matches unhyphenated.
 * Matches do not overlap. `options` NULL: the defaults. `*out` is owned by the caller.
 * Thread: the document's.
 * The whole document's search covers the pages that exist (a page that /Count counts
 * but the page tree lacks has no text).
 * Returns: QUIRE_OK (also with no match: the list is then empty); QUIRE_EINVAL (NULL
 * `out`, `doc` or `query`, an empty query, a negative max_matches); QUIRE_EVERSION;
 * QUIRE_ERANGE (no such page); QUIRE_EFORMAT, QUIRE_ELIMIT (a page cannot be read);
 * QUIRE_EUSER (the progress callback cancelled: no list is made).
 */
QUIRE_API int quire_document_search_text(quire_text_match_list **out, quire_document *doc, const char *query,
                                         const quire_text_search_options *options, int32_t page_index);

/** The current version of `quire_text_options`. */
#define QUIRE_TEXT_OPTIONS_VERSION 1

/** Options of `quire_document_text`. Initialise with QUIRE_TEXT_OPTIONS_INIT. */
typedef struct quire_text_options {
    /** Must be QUIRE_TEXT_OPTIONS_VERSION (or an older version). */
    uint32_t version;
    /** Called with the pages read and their total; non-zero cancels with QUIRE_EUSER and
     *  nothing is written (see "Long operations"). NULL: no progress. */
    int (*progress)(uint64_t done, uint64_t total, void *payload);
    /** Passed to `progress`. */
    void *progress_payload;
} quire_text_options;

/** Initialiser for `quire_text_options`: no progress callback. */
#define QUIRE_TEXT_OPTIONS_INIT { QUIRE_TEXT_OPTIONS_VERSION, NULL, NULL }

/**
 * Fills `options` with the defaults of `version` (1 up to QUIRE_TEXT_OPTIONS_VERSION) and
 * sets its version.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_text_options_init(quire_text_options *options, unsigned version);

/**
 * The text of the whole document, as pdftotext writes it: each page's plain text (as
 * `quire_text_page_text` gives it) followed by a form feed (U+000C), so that splitting at
 * form feeds gives the pages; a page that /Count counts but the page tree lacks is empty.
 * The UTF-8 bytes go to `write`, in one or more consecutive pieces on the calling thread,
 * once every page is read: a cancelled or failed call writes nothing. `write` returns 0
 * to go on, non-zero to stop (QUIRE_EUSER).
 * options: NULL for the defaults (QUIRE_TEXT_OPTIONS_INIT).
 * payload: passed to `write`.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `doc` or `write`); QUIRE_EVERSION; QUIRE_EFORMAT,
 * QUIRE_ELIMIT (a page cannot be read); QUIRE_EUSER.
 * Thread: the document's; both callbacks are called on the calling thread.
 */
QUIRE_API int quire_document_text(quire_document *doc, const quire_text_options *options,
                                  quire_write_fn write, void *payload);

/** How many matches the list holds. Returns: QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_text_match_list_count(int32_t *out, const quire_text_match_list *list);

/**
 * Match `index`: its page and the range of characters it covers there (as
 * `quire_page_text_load` numbers them). Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE.
 */
QUIRE_API int quire_text_match_list_get(int32_t *out_page_index, int32_t *out_first, int32_t *out_count,
                                        const quire_text_match_list *list, int32_t index);

/** The text of match `index` as the page has it, with the length-query pattern.
 *  Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_EBUFS. */
QUIRE_API int quire_text_match_list_text(char *buf, size_t buf_size, size_t *out_len,
                                         const quire_text_match_list *list, int32_t index);

/** The quads of match `index` (8 numbers each, /QuadPoints order), with the length-query
 *  pattern for numbers. Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_EBUFS. */
QUIRE_API int quire_text_match_list_quads(double *buf, size_t capacity, size_t *out_count,
                                          const quire_text_match_list *list, int32_t index);

/** Releases a match list. NULL is a no-op. */
QUIRE_API void quire_text_match_list_free(quire_text_match_list *list);

/**
 * Creates a text markup annotation of kind `kind` over the `count` characters from
 * `first` of `text` (whose page it goes on), with /QuadPoints that cover exactly those
 * characters (one quad per line, in the order viewers read: upper-left, upper-right,
 * lower-left, lower-right), the default colour of the kind and a generated appearance,
 * through the ordinary creation path (checkpoints and the journal see it). `*out` (may
 * be NULL) receives the annotation as stored, owned by the caller. Set its colour,
 * author or contents afterwards with `quire_annotation_set_*` and
 * `quire_document_update_annotation`. Thread: the document's.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `doc` or `text`, a kind of another family, an
 * empty range or one of generated characters only); QUIRE_ERANGE (past the characters,
 * or the text's page is no longer in the document).
 */
QUIRE_API int quire_document_add_text_markup(quire_annotation **out, quire_document *doc,
                                             const quire_text_page *text, quire_text_markup kind,
                                             int32_t first, int32_t count);

/**
 * The text a markup annotation covers: the characters of its page whose centres lie in
 * its /QuadPoints (PSPDFKit's highlightedString), with the length-query pattern. Empty for
 * an annotation without quads. Thread: the document's.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE (its page is not in `doc`); QUIRE_EBUFS.
 */
QUIRE_API int quire_annotation_marked_text(char *buf, size_t buf_size, size_t *out_len,
                                           quire_document *doc, const quire_annotation *annotation);

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
    /** The server changed the records `record_ids` of the editable document. */
    QUIRE_SYNC_EVENT_DOCUMENT_CHANGED = 0x2506,
    /** The local changes of `record_id` not yet acknowledged were dropped: the server's
     *  record won (`reason` "conflict": another client changed or deleted it first) or
     *  refused it ("invalid"); the document now shows the server's record. `change_ids`
     *  (version 2) names the local changes dropped (`quire_descriptor_last_change_id`),
     *  `client_seq` the refused mutation. */
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
    QUIRE_SYNC_EVENT_RECORDS_REPAIRED = 0x250B
} quire_sync_event_type;

/** One event, borrowed: valid only during the `on_event` call. */
typedef struct quire_sync_event {
    uint32_t version;            /**< QUIRE_SYNC_EVENT_VERSION */
    quire_sync_event_type type;  /**< what happened */
    quire_sync_state state;      /**< the descriptor's state (the new one for STATE_CHANGED) */
    int status;                  /**< QUIRE_OK, or the status of a failure */
    const char *message;         /**< the failure's or the dropped change's message; NULL otherwise */
    const char *record_id;       /**< CHANGE_DROPPED: the record; NULL otherwise */
    const char *reason;          /**< CHANGE_DROPPED: "conflict" or "invalid"; NULL otherwise */
    const char *const *record_ids; /**< DOCUMENT_CHANGED, RECORDS_REPAIRED: the records; NULL otherwise */
    size_t record_id_count;      /**< how many `record_ids` there are */
    int64_t completed;           /**< DOWNLOAD_PROGRESS: bytes received */
    int64_t total;               /**< DOWNLOAD_PROGRESS: bytes expected, 0 when unknown */
    /* Version 2: read these only when `version` >= 2. */
    int64_t client_seq;          /**< CHANGE_DROPPED: the refused mutation's client sequence number; 0 otherwise */
    const int64_t *change_ids;   /**< CHANGE_DROPPED: the local change ids dropped, oldest first; NULL otherwise */
    size_t change_id_count;      /**< how many `change_ids` there are */
} quire_sync_event;

/** The version of `quire_sync_event` this header describes (2: `client_seq` and
 *  `change_ids`). The library fills the struct; a program reads the fields of the version
 *  the event carries, so one built against version 1 keeps working. */
#define QUIRE_SYNC_EVENT_VERSION 2

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

/* ------------------------------------------------------------------------------------ */
/* Tools: a headless tool manager (after PDFTron's Tools framework)                      */
/* ------------------------------------------------------------------------------------ */

/*
 * Quire draws nothing: the host renders pages as it likes and sends its pointer events in
 * page coordinates (user space; `quire_page_device_to_page` converts a rendered page's
 * pixels). The manager passes each event to its current tool; a tool that cannot handle it
 * names the tool that replaces it, which gets the same event, until one handles it (at
 * most 8 replacements: past that the event is dropped, Pan becomes current and an
 * UNHANDLED event is reported). Every change goes through the document's annotation
 * functions, so the change log, checkpoints and sync see it; each call that changes the
 * document is one undo step.
 *
 * Undo and redo restore exactly: a step records every PDF object it changed, before and
 * after, and undoing it gives each back its state before (an undone deletion restores the
 * same object, at its place in /Annots, so the stacking order stays; no date is stamped
 * again). A step is refused (QUIRE_ESTATE, naming the annotation; it is dropped and nothing
 * changes) when an object it changed was changed outside the manager since: by a script,
 * another manager, or a collaborator's change applied by the sync client. Annotations others
 * added to or removed from the same page do not block it. A full save renumbers objects and
 * drops the history; an incremental save keeps it.
 *
 * Thread safety: a manager is used by one thread at a time, the one that uses its
 * document; its callbacks run on the thread that makes the call, before the call returns.
 */

/** A tool manager: owns a reference to its document (the document stays open until both
 *  are closed). */
typedef struct quire_tool_manager quire_tool_manager;

/** The built-in tools. */
typedef enum quire_tool {
    QUIRE_TOOL_PAN = 0x3000,         /**< the default: decides which tool a hit needs */
    QUIRE_TOOL_ANNOT_EDIT = 0x3001,  /**< select, move, resize by the 8 handles */
    QUIRE_TOOL_INK = 0x3002,         /**< strokes from drags, one annotation, committed on a tool change */
    QUIRE_TOOL_SQUARE = 0x3003,      /**< a drag's rectangle */
    QUIRE_TOOL_CIRCLE = 0x3004,
    QUIRE_TOOL_LINE = 0x3005,        /**< a drag from start to end */
    QUIRE_TOOL_ARROW = 0x3006,       /**< a line with an open arrow at its end */
    QUIRE_TOOL_POLYGON = 0x3007,     /**< a vertex per tap; a double tap closes it */
    QUIRE_TOOL_POLYLINE = 0x3008,
    QUIRE_TOOL_STICKY_NOTE = 0x3009, /**< a note where the user taps (then selected) */
    QUIRE_TOOL_FREE_TEXT = 0x300A,   /**< a text box at a tap or in a drag's rectangle (then selected) */
    QUIRE_TOOL_LINK = 0x300B,        /**< reports where a tapped link leads; does not navigate */
    QUIRE_TOOL_FORM_FILL = 0x300C,   /**< selects a tapped form field's widget and reports it */
    QUIRE_TOOL_SIGNATURE = 0x300D,   /**< ink strokes committed as an Ink annotation with /Subj Signature */
    QUIRE_TOOL_HIGHLIGHT = 0x300E,   /**< text markup over the text a drag selects (character at start to character at end) */
    QUIRE_TOOL_UNDERLINE = 0x300F,
    QUIRE_TOOL_STRIKEOUT = 0x3010,
    QUIRE_TOOL_SQUIGGLY = 0x3011,
    QUIRE_TOOL_CUSTOM = 0x30FF       /**< a host's tool (`quire_tool_manager_register_tool`); its name comes with it */
} quire_tool;

/** The pointer events a host sends. */
typedef enum quire_pointer_kind {
    QUIRE_POINTER_TAP = 0x3100,
    QUIRE_POINTER_DOUBLE_TAP = 0x3101,
    QUIRE_POINTER_LONG_PRESS = 0x3102,
    QUIRE_POINTER_DRAG_BEGIN = 0x3103,
    QUIRE_POINTER_DRAG_MOVE = 0x3104,
    QUIRE_POINTER_DRAG_END = 0x3105,
    QUIRE_POINTER_CANCEL = 0x3106
} quire_pointer_kind;

/** What a `quire_tool_event` reports. */
typedef enum quire_tool_event_kind {
    QUIRE_TOOL_EVENT_TOOL_CHANGED = 0x3200,       /**< `from_tool` to `to_tool` */
    QUIRE_TOOL_EVENT_SELECTION_CHANGED = 0x3201,  /**< `object_number` is selected (0: nothing) */
    QUIRE_TOOL_EVENT_ANNOTATION_ADDED = 0x3202,   /**< annotation `object_number` */
    QUIRE_TOOL_EVENT_ANNOTATION_MODIFIED = 0x3203,
    QUIRE_TOOL_EVENT_ANNOTATION_REMOVED = 0x3204,
    /** A link was tapped with the link tool: `uri`, or the destination `page_index`
     *  (-1 and a NULL `uri` for another action). */
    QUIRE_TOOL_EVENT_LINK_ACTIVATED = 0x3205,
    QUIRE_TOOL_EVENT_FIELD_ACTIVATED = 0x3206,    /**< the widget `object_number` was tapped with form filling */
    QUIRE_TOOL_EVENT_EDIT_REQUESTED = 0x3207,     /**< a double tap on annotation `object_number` */
    /** No tool handled the event (`pointer`, `page_index`, `x`, `y`): it was dropped. */
    QUIRE_TOOL_EVENT_UNHANDLED = 0x3208,
    /** A form field's value was set through the tools: `object_number` is the widget used
     *  (form filling toggles check boxes and radio buttons on a tap;
     *  `quire_tool_manager_set_field_value` sets any field). */
    QUIRE_TOOL_EVENT_FIELD_CHANGED = 0x3209
} quire_tool_event_kind;

/** One event, borrowed: valid only during the `on_event` call. */
typedef struct quire_tool_event {
    uint32_t version;            /**< QUIRE_TOOL_EVENT_VERSION */
    quire_tool_event_kind kind;  /**< what happened */
    quire_tool from_tool;        /**< TOOL_CHANGED */
    quire_tool to_tool;          /**< TOOL_CHANGED */
    const char *from_name;       /**< TOOL_CHANGED from a custom tool: its name; NULL otherwise */
    const char *to_name;         /**< TOOL_CHANGED to a custom tool: its name; NULL otherwise */
    int32_t object_number;       /**< the annotation; 0 when none */
    int32_t page_index;          /**< LINK_ACTIVATED: the destination; UNHANDLED: the event's page; else -1 */
    const char *uri;             /**< LINK_ACTIVATED: the URI; NULL otherwise */
    quire_pointer_kind pointer;  /**< UNHANDLED: the dropped event's kind */
    double x;                    /**< UNHANDLED: its point, x */
    double y;                    /**< UNHANDLED: its point, y */
} quire_tool_event;

/** The version of `quire_tool_event` this header describes. */
#define QUIRE_TOOL_EVENT_VERSION 1

/** Called with each event of `manager`, on the thread of the call that caused it, before
 *  that call returns. It may read the document, but must not call `manager`'s functions
 *  (they give QUIRE_ESTATE). */
typedef void (*quire_tool_event_fn)(quire_tool_manager *manager, const quire_tool_event *event, void *payload);

/** The callbacks of a tool manager. Initialise with QUIRE_TOOL_CALLBACKS_INIT or
 *  `quire_tool_callbacks_init`. `on_event` may be NULL. */
typedef struct quire_tool_callbacks {
    uint32_t version;             /**< QUIRE_TOOL_CALLBACKS_VERSION */
    quire_tool_event_fn on_event; /**< every event */
    void *payload;                /**< passed to `on_event` */
} quire_tool_callbacks;

/** The current version of `quire_tool_callbacks`. */
#define QUIRE_TOOL_CALLBACKS_VERSION 1
/** Initialiser for `quire_tool_callbacks`: no callbacks. */
#define QUIRE_TOOL_CALLBACKS_INIT { QUIRE_TOOL_CALLBACKS_VERSION, NULL, NULL }

/** Fills `callbacks` with the defaults of `version` (no callback).
 *  Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 *  Thread safety: any thread. */
QUIRE_API int quire_tool_callbacks_init(quire_tool_callbacks *callbacks, unsigned version);

/** How new annotations look. Initialise with QUIRE_TOOL_STYLE_INIT or `quire_tool_style_init`. */
typedef struct quire_tool_style {
    uint32_t version;        /**< QUIRE_TOOL_STYLE_VERSION */
    double red;              /**< /C, RGB in 0..1 (default 1, 0, 0: red): red */
    double green;            /**< green, 0..1 */
    double blue;             /**< blue, 0..1 */
    double border_width;     /**< points, >= 0 (default 2) */
    double opacity;          /**< /CA, 0..1 (default 1) */
    double font_size;        /**< free text, > 0 (default 12) */
    double tolerance;        /**< hit-test tolerance in points, >= 0 (default 4) */
    const char *author;      /**< /T of new annotations; NULL: none (copied) */
    const char *free_text;   /**< the text of new free text; NULL: "Text" (copied) */
} quire_tool_style;

/** The current version of `quire_tool_style`. */
#define QUIRE_TOOL_STYLE_VERSION 1
/** Initialiser for `quire_tool_style`: the defaults of its fields. */
#define QUIRE_TOOL_STYLE_INIT { QUIRE_TOOL_STYLE_VERSION, 1, 0, 0, 2, 1, 12, 4, NULL, NULL }

/** Fills `style` with the defaults of `version`.
 *  Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EVERSION. Thread safety: any thread. */
QUIRE_API int quire_tool_style_init(quire_tool_style *style, unsigned version);

/** What lies at a point (`quire_page_hit_test`). */
typedef enum quire_hit_kind {
    QUIRE_HIT_NONE = 0x3300,       /**< empty space */
    QUIRE_HIT_ANNOTATION = 0x3301, /**< an annotation that is not a link or a widget */
    QUIRE_HIT_LINK = 0x3302,
    QUIRE_HIT_WIDGET = 0x3303      /**< a form field's widget */
} quire_hit_kind;

/**
 * Converts a point of a rendered page's device pixels to user space, as PDFium's
 * `FPDF_DeviceToPage` (without its rounding): the page was rendered into the rectangle
 * (`start_x`, `start_y`, `size_x`, `size_y`) turned by `rotate` quarter turns clockwise on
 * top of its /Rotate; the page's crop box (clipped to its media box) fills it.
 * `start_x` and `start_y` may be any value; `size_x` and `size_y` must be positive.
 * Returns: QUIRE_OK; QUIRE_EINVAL (a NULL out, `rotate` not 0..3, a non-finite point, a
 * size that is not positive); QUIRE_ERANGE (no such page). Thread safety: as the document.
 */
QUIRE_API int quire_page_device_to_page(double *out_x, double *out_y, quire_document *doc, int32_t page_index,
                                        int32_t start_x, int32_t start_y, int32_t size_x, int32_t size_y,
                                        int32_t rotate, double device_x, double device_y);

/** The inverse of `quire_page_device_to_page` (PDFium's `FPDF_PageToDevice` without its
 *  rounding). Returns and thread safety: as `quire_page_device_to_page`. */
QUIRE_API int quire_page_page_to_device(double *out_x, double *out_y, quire_document *doc, int32_t page_index,
                                        int32_t start_x, int32_t start_y, int32_t size_x, int32_t size_y,
                                        int32_t rotate, double page_x, double page_y);

/**
 * The topmost annotation at (`x`, `y`) in user space of page `page_index`, within
 * `tolerance` points: the last in /Annots order that a viewer draws (not hidden, not
 * no-view, not a reply, not a popup) and that the point hits (lines, polylines and ink by
 * their strokes, the rest by /Rect). `*out_object` is its object number (0 for none, or an
 * annotation written directly in /Annots).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL outs, a non-finite point, a negative or non-finite
 * tolerance); QUIRE_ERANGE. Thread safety: as the document.
 */
QUIRE_API int quire_page_hit_test(quire_hit_kind *out_kind, int32_t *out_object, quire_document *doc,
                                  int32_t page_index, double x, double y, double tolerance);

/**
 * The text character at (`x`, `y`) in user space of page `page_index`: `*out_index` is the
 * index (as `quire_page_text_load` numbers the page's characters) of the first character,
 * in content order, whose box (`quire_text_char.box`) grown by `tolerance` points on each
 * side holds the point; -1 when none does (generated spaces and line breaks are never
 * hit). Unlike `quire_text_page_char_at`, which answers the nearest character, this tells
 * a host whether a point is on text at all (the text markup tools start there). It
 * extracts the page's text on each call: to test many points, load the text page once
 * and compare with `quire_text_page_char`.
 * Returns: QUIRE_OK (also when no character is hit); QUIRE_EINVAL (NULL `out_index` or
 * `doc`, a non-finite point, a negative or non-finite tolerance); QUIRE_ERANGE (no such
 * page); QUIRE_EFORMAT, QUIRE_ELIMIT (the page's content cannot be read).
 * Thread safety: as the document.
 */
QUIRE_API int quire_page_hit_test_text(int32_t *out_index, quire_document *doc, int32_t page_index,
                                       double x, double y, double tolerance);

/**
 * A new tool manager for `doc`, with Pan current and nothing selected. `callbacks` (may be
 * NULL) is copied. The manager holds a reference to the document.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EVERSION (callbacks of a newer version).
 * Thread safety: as the document.
 */
QUIRE_API int quire_tool_manager_new(quire_tool_manager **out, quire_document *doc,
                                     const quire_tool_callbacks *callbacks);

/** Frees `manager` (pending ink strokes are dropped: call `quire_tool_manager_commit`
 *  first to keep them). NULL is a no-op. */
QUIRE_API void quire_tool_manager_free(quire_tool_manager *manager);

/** Sets the style of new annotations (`style` is copied).
 *  Returns: QUIRE_OK; QUIRE_EINVAL (a value out of its range); QUIRE_EVERSION; QUIRE_ESTATE
 *  (called from a callback). */
QUIRE_API int quire_tool_manager_set_style(quire_tool_manager *manager, const quire_tool_style *style);

/** Makes `tool` current; the old tool finishes (pending strokes and vertices are
 *  committed). Returns: QUIRE_OK; QUIRE_EINVAL (an unknown tool, or QUIRE_TOOL_CUSTOM);
 *  QUIRE_ESTATE (called from a callback); what the document's annotation functions return. */
QUIRE_API int quire_tool_manager_set_tool(quire_tool_manager *manager, quire_tool tool);

/** The current tool (QUIRE_TOOL_CUSTOM for a host's tool). Returns: QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_tool_manager_current_tool(quire_tool *out, quire_tool_manager *manager);

/**
 * Sends a pointer event at (`x`, `y`) in user space of page `page_index` through the loop.
 * `*out_handled` (may be NULL) is 1 when a tool handled it, 0 when it was dropped.
 * Returns: QUIRE_OK; QUIRE_EINVAL (an unknown kind, a non-finite point); QUIRE_ERANGE (no
 * such page); QUIRE_ESTATE (called from a callback); what the document's annotation
 * functions return (the document then stays as it was before that change).
 */
QUIRE_API int quire_tool_manager_send(int32_t *out_handled, quire_tool_manager *manager, quire_pointer_kind kind,
                                      int32_t page_index, double x, double y);

/** The selected annotation's object number (0: nothing); with several selected, the first
 *  (`quire_tool_manager_selection_at` gives the others). Returns: QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_tool_manager_selection(int32_t *out_object, quire_tool_manager *manager);

/** Deletes the selected annotations (one undo step). A locked annotation (/F 128) cannot be
 *  deleted (ISO 32000-2 12.5.3): with one selected, nothing is deleted. Returns: QUIRE_OK;
 *  QUIRE_EINVAL; QUIRE_ESTATE (nothing selected, a locked annotation, or called from a
 *  callback); QUIRE_ENOTFOUND (the selected annotations are gone). */
QUIRE_API int quire_tool_manager_delete_selection(quire_tool_manager *manager);

/** Sets the selected annotation's /Contents (`text` NULL removes it; one undo step).
 *  Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ESTATE (nothing or several selected, contents
 *  locked by /F 512 LockedContents, or called from a callback); QUIRE_ENOTFOUND. */
QUIRE_API int quire_tool_manager_set_selection_contents(quire_tool_manager *manager, const char *text);

/**
 * Sets the value of the form field whose widget is selected (form filling selects the
 * tapped widget), through the forms functions' rules (`quire_field_set_value`): a text
 * field's text, a check box's or radio button's state ("Off" or an on-state), a choice
 * (list boxes: one choice per line). One undo step; reports FIELD_CHANGED.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or a value the field does not take); QUIRE_ESTATE
 * (nothing selected, a read-only field, or called from a callback); QUIRE_ENOTFOUND (the
 * selection is no field's widget); QUIRE_ERANGE (past /MaxLen); QUIRE_ELIMIT.
 */
QUIRE_API int quire_tool_manager_set_field_value(quire_tool_manager *manager, const char *value);

/**
 * A host's tool's handler, called with each event while its tool is current, on the thread
 * of `quire_tool_manager_send`. Set `*out_handled` to 1 when the tool handled the event;
 * to 0 to be replaced, then set `*out_next` to the built-in tool that replaces it, or to
 * QUIRE_TOOL_CUSTOM with `*out_next_name` naming a registered tool (the library copies
 * the name before the callback returns again). Both are preset to QUIRE_TOOL_PAN / NULL.
 * Return 0, or non-zero to fail the send with QUIRE_EUSER. The handler may read the
 * document; it must not call `manager`'s functions (QUIRE_ESTATE). Changes it makes to the
 * document itself are part of the send's undo step.
 */
typedef int (*quire_custom_tool_handle_fn)(int32_t *out_handled, quire_tool *out_next, const char **out_next_name,
                                           quire_tool_manager *manager, quire_pointer_kind kind, int32_t page_index,
                                           double x, double y, void *payload);

/** Called when the tool stops being current (another tool replaces it), on the thread of
 *  the call that replaces it. Non-zero fails that call with QUIRE_EUSER. */
typedef int (*quire_custom_tool_finish_fn)(quire_tool_manager *manager, void *payload);

/** Releases `payload`: when the tool is registered again under its name, or the manager
 *  is freed. */
typedef void (*quire_custom_tool_release_fn)(void *payload);

/** A host's tool, which takes part in the manager's loop like a built-in one. Initialise
 *  with QUIRE_CUSTOM_TOOL_INIT or `quire_custom_tool_init`. */
typedef struct quire_custom_tool {
    uint32_t version;                     /**< QUIRE_CUSTOM_TOOL_VERSION */
    const char *name;                     /**< the tool's name, unique per manager (copied); required */
    quire_custom_tool_handle_fn handle;   /**< required */
    quire_custom_tool_finish_fn finish;   /**< may be NULL */
    quire_custom_tool_release_fn release; /**< may be NULL */
    void *payload;                        /**< passed to the three */
} quire_custom_tool;

/** The current version of `quire_custom_tool`. */
#define QUIRE_CUSTOM_TOOL_VERSION 1
/** Initialiser for `quire_custom_tool`: no name, no callbacks, no payload. */
#define QUIRE_CUSTOM_TOOL_INIT { QUIRE_CUSTOM_TOOL_VERSION, NULL, NULL, NULL, NULL, NULL }

/** Fills `tool` with the defaults of `version`. Returns: QUIRE_OK; QUIRE_EINVAL;
 *  QUIRE_EVERSION. Thread safety: any thread. */
QUIRE_API int quire_custom_tool_init(quire_custom_tool *tool, unsigned version);

/** Registers a host's tool under `tool->name` (copied; a tool of that name is replaced and
 *  its payload released). Returns: QUIRE_OK; QUIRE_EINVAL (NULL, no name or no handler);
 *  QUIRE_EVERSION; QUIRE_ESTATE (called from a callback). */
QUIRE_API int quire_tool_manager_register_tool(quire_tool_manager *manager, const quire_custom_tool *tool);

/** Makes the registered tool `name` current (the old tool finishes). Returns: QUIRE_OK;
 *  QUIRE_EINVAL; QUIRE_ENOTFOUND (no tool of that name); QUIRE_ESTATE; QUIRE_EUSER (a
 *  finish callback failed); the annotation functions' statuses. */
QUIRE_API int quire_tool_manager_set_custom_tool(quire_tool_manager *manager, const char *name);

/** Commits what the current tool holds (ink strokes, polygon vertices) without changing
 *  the tool. Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ESTATE; the annotation functions' statuses. */
QUIRE_API int quire_tool_manager_commit(quire_tool_manager *manager);

/** Undoes the last step (one gesture) exactly, as the section's introduction says;
 *  `*out_done` (may be NULL) is 0 when there was none. What the current tool holds (ink
 *  strokes) is committed first, as a step of its own, which is the one undone. A step
 *  an object of which was changed outside the manager since is refused with QUIRE_ESTATE
 *  (the message names it), dropped, and nothing changes.
 *  Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ESTATE (refused, or called from a callback); the
 *  annotation functions' statuses. Thread safety: as the document. */
QUIRE_API int quire_tool_manager_undo(int32_t *out_done, quire_tool_manager *manager);

/** Redoes the last undone step exactly; `*out_done` (may be NULL) is 0 when there was none.
 *  Refused as `quire_tool_manager_undo` is, when an object it changes was changed outside
 *  the manager since the undo. Returns: as `quire_tool_manager_undo`. */
QUIRE_API int quire_tool_manager_redo(int32_t *out_done, quire_tool_manager *manager);

/* -- Issue 31: what a viewer needs: modifiers, multiple selection, previews, handles, the
 *    history, the style read back, replies and review states. ------------------------ */

/** Shift, in `quire_pointer_event.modifiers`: a tap on an annotation toggles it in the
 *  selection (on empty space it keeps the selection); a drag on empty space draws a rubber
 *  band that adds the annotations it meets; a drag on an annotation adds it and moves the
 *  selection. */
#define QUIRE_MODIFIER_SHIFT 0x1

/** A pointer event with the keys held (`quire_tool_manager_send_event`). Initialise with
 *  QUIRE_POINTER_EVENT_INIT or `quire_pointer_event_init`. */
typedef struct quire_pointer_event {
    uint32_t version;         /**< QUIRE_POINTER_EVENT_VERSION */
    quire_pointer_kind kind;  /**< what happened (default QUIRE_POINTER_TAP) */
    int32_t page_index;       /**< the page (default 0) */
    double x;                 /**< the point in user space, x */
    double y;                 /**< the point in user space, y */
    uint32_t modifiers;       /**< QUIRE_MODIFIER_* bits (default 0); other bits are ignored */
} quire_pointer_event;

/** The current version of `quire_pointer_event`. */
#define QUIRE_POINTER_EVENT_VERSION 1
/** Initialiser for `quire_pointer_event`: a tap at (0, 0) of page 0, no modifiers. */
#define QUIRE_POINTER_EVENT_INIT { QUIRE_POINTER_EVENT_VERSION, QUIRE_POINTER_TAP, 0, 0, 0, 0 }

/** Fills `event` with the defaults of `version`. Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or
 *  version 0); QUIRE_EVERSION (a newer version). Thread safety: any thread. */
QUIRE_API int quire_pointer_event_init(quire_pointer_event *event, unsigned version);

/**
 * Sends `*event` (read, not kept) through the loop, as `quire_tool_manager_send` does, with
 * its modifiers. `*out_handled` (may be NULL) is 1 when a tool handled it, 0 when it was
 * dropped.
 * Returns: as `quire_tool_manager_send`; QUIRE_EVERSION (an event of a newer version).
 * Thread safety: as the document.
 */
QUIRE_API int quire_tool_manager_send_event(int32_t *out_handled, quire_tool_manager *manager,
                                            const quire_pointer_event *event);

/**
 * The style of new annotations, into the fields of `out->version` (set by
 * QUIRE_TOOL_STYLE_INIT or `quire_tool_style_init`). `out->author` (NULL when there is
 * none) and `out->free_text` point to strings owned by the manager, valid until the next
 * `quire_tool_manager_set_style` on it or its `_free`. A colour of other than three
 * components (set through the Swift API) reads as RGB: gray g as (g, g, g), CMYK as
 * ((1 - c)(1 - k), (1 - m)(1 - k), (1 - y)(1 - k)), none as (0, 0, 0).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, version 0); QUIRE_EVERSION.
 * Thread safety: as the document.
 */
QUIRE_API int quire_tool_manager_style(quire_tool_style *out, quire_tool_manager *manager);

/** The selection, in the order its annotations were selected. */
typedef enum quire_selection_mode {
    QUIRE_SELECT_REPLACE = 0x3400, /**< the selection becomes what is given */
    QUIRE_SELECT_ADD = 0x3401,     /**< what is given joins the selection */
    QUIRE_SELECT_TOGGLE = 0x3402,  /**< each given annotation leaves it when in it, else joins it */
    QUIRE_SELECT_REMOVE = 0x3403   /**< what is given leaves the selection */
} quire_selection_mode;

/** How many annotations are selected (0: none). Returns: QUIRE_OK; QUIRE_EINVAL.
 *  Thread safety: as the document. */
QUIRE_API int quire_tool_manager_selection_count(int32_t *out_count, quire_tool_manager *manager);

/** The object number of selected annotation `index` (0 is the one
 *  `quire_tool_manager_selection` gives). Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE.
 *  Thread safety: as the document. */
QUIRE_API int quire_tool_manager_selection_at(int32_t *out_object, quire_tool_manager *manager, int32_t index);

/**
 * Changes the selection by annotation `object` as `mode` says (REPLACE with `object` 0
 * clears it). Reports SELECTION_CHANGED when it changed.
 * Returns: QUIRE_OK; QUIRE_EINVAL (an unknown mode); QUIRE_ENOTFOUND (`object` is no
 * annotation of the document: nothing changes); QUIRE_ESTATE (called from a callback).
 * Thread safety: as the document.
 */
QUIRE_API int quire_tool_manager_select(quire_tool_manager *manager, int32_t object, quire_selection_mode mode);

/**
 * Changes the selection, as `mode` says, by the annotations of page `page_index` whose
 * rectangle meets `*rect` (user space; a rubber band): those drawn on the page, not links
 * or form widgets. `*out_count` (may be NULL) is how many it met.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `rect`, a coordinate that is not finite, an
 * unknown mode); QUIRE_ERANGE (no such page); QUIRE_ESTATE (called from a callback).
 * Thread safety: as the document.
 */
QUIRE_API int quire_tool_manager_select_rect(int32_t *out_count, quire_tool_manager *manager, int32_t page_index,
                                             const quire_rect *rect, quire_selection_mode mode);

/**
 * The selection's resize handles, as x, y pairs in user space through the length-query
 * pattern for numbers (`buf` NULL and `capacity` 0 give the count in `*out_count`; 16
 * always suffices): the corners (left-bottom, right-bottom, left-top, right-top), then the
 * middles of the left, right, bottom and top edges; a drag that starts on one resizes the
 * annotation. None (a count of 0) unless exactly one annotation is selected, drawn on its
 * page, and neither locked nor read-only.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EBUFS (`buf` untouched).
 * Thread safety: as the document.
 */
QUIRE_API int quire_tool_manager_selection_handles(double *buf, size_t capacity, size_t *out_count,
                                                   quire_tool_manager *manager);

/** What a preview shows (`quire_tool_preview.kind`). */
typedef enum quire_preview_kind {
    QUIRE_PREVIEW_NONE = 0x3500,     /**< nothing is being drawn */
    QUIRE_PREVIEW_RECT = 0x3501,     /**< a drag's rectangle: square, circle, free text, text markup so far */
    QUIRE_PREVIEW_SEGMENT = 0x3502,  /**< a line's or arrow's segment: path 0 is its two points */
    QUIRE_PREVIEW_INK = 0x3503,      /**< ink strokes: one path each, the last possibly still drawn */
    QUIRE_PREVIEW_VERTICES = 0x3504, /**< a polygon's or polyline's vertices so far: path 0 (`closed` for a polygon) */
    QUIRE_PREVIEW_MOVE = 0x3505,     /**< the selection moved by `dx`, `dy`; `rect` its bounds moved */
    QUIRE_PREVIEW_RESIZE = 0x3506,   /**< the selected annotation resized to `rect` */
    QUIRE_PREVIEW_SELECT = 0x3507    /**< a rubber band selecting what `rect` meets */
} quire_preview_kind;

/** What the current tool is drawing and has not made yet, for the host to draw a preview
 *  without redoing the tool's logic. Initialise with QUIRE_TOOL_PREVIEW_INIT or
 *  `quire_tool_preview_init`. */
typedef struct quire_tool_preview {
    uint32_t version;         /**< QUIRE_TOOL_PREVIEW_VERSION */
    quire_preview_kind kind;  /**< what it shows */
    quire_tool tool;          /**< the tool drawing it */
    int32_t page_index;       /**< its page; -1 for NONE */
    quire_rect rect;          /**< the rectangle (normalized); for paths, their bounds */
    double dx;                /**< MOVE: how far the selection moved, x; else 0 */
    double dy;                /**< MOVE: how far, y; else 0 */
    int32_t path_count;       /**< paths to read with `quire_tool_manager_preview_path` */
    int32_t closed;           /**< 1 when the path closes (a polygon's vertices), else 0 */
} quire_tool_preview;

/** The current version of `quire_tool_preview`. */
#define QUIRE_TOOL_PREVIEW_VERSION 1
/** Initialiser for `quire_tool_preview`: nothing. */
#define QUIRE_TOOL_PREVIEW_INIT { QUIRE_TOOL_PREVIEW_VERSION, QUIRE_PREVIEW_NONE, QUIRE_TOOL_PAN, -1, {0, 0, 0, 0}, 0, 0, 0, 0 }

/** Fills `preview` with the defaults of `version` (nothing). Returns: QUIRE_OK; QUIRE_EINVAL;
 *  QUIRE_EVERSION. Thread safety: any thread. */
QUIRE_API int quire_tool_preview_init(quire_tool_preview *preview, unsigned version);

/**
 * What the current tool is drawing, into the fields of `out->version`: kind NONE when
 * nothing (custom tools draw no previews). Call it after each event to redraw.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EVERSION. Thread safety: as the document.
 */
QUIRE_API int quire_tool_manager_preview(quire_tool_preview *out, quire_tool_manager *manager);

/** Path `path` of the current preview (0 to `path_count` - 1), as x, y pairs in user
 *  space through the length-query pattern for numbers.
 *  Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE (no such path); QUIRE_EBUFS.
 *  Thread safety: as the document. */
QUIRE_API int quire_tool_manager_preview_path(double *buf, size_t capacity, size_t *out_count,
                                              quire_tool_manager *manager, int32_t path);

/** The two histories of a manager. */
typedef enum quire_history {
    QUIRE_HISTORY_UNDO = 0x3600, /**< the steps undo takes, the next one first */
    QUIRE_HISTORY_REDO = 0x3601  /**< the steps redo takes, the next one first */
} quire_history;

/** How many steps undo (or redo) can take: 0 means the Undo (Redo) command is unavailable.
 *  Returns: QUIRE_OK; QUIRE_EINVAL (an unknown history). Thread safety: as the document. */
QUIRE_API int quire_tool_manager_history_count(int32_t *out_count, quire_tool_manager *manager, quire_history which);

/**
 * What step `index` of a history does, for a menu ("Add Square", "Move 3 annotations",
 * "Delete Ink", "Edit Note", "Reply to Square", "Set state Accepted", "Fill Name"), in
 * English, through the length-query pattern: index 0 is the step the next undo (redo)
 * takes.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE (no such step); QUIRE_EBUFS.
 * Thread safety: as the document.
 */
QUIRE_API int quire_tool_manager_step_description(char *buf, size_t buf_size, size_t *out_len,
                                                  quire_tool_manager *manager, quire_history which, int32_t index);

/**
 * Adds a text reply with `contents` (UTF-8, copied) to the selected annotation, by the
 * style's author, as `quire_document_add_reply` does; one undo step; reports
 * ANNOTATION_ADDED. `*out_object` (may be NULL) is the reply's object number.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `contents`); QUIRE_ESTATE (nothing or several
 * selected, or called from a callback); QUIRE_ENOTFOUND (the selection is gone);
 * QUIRE_EDISABLED (replies are off for the document).
 * Thread safety: as the document.
 */
QUIRE_API int quire_tool_manager_reply(int32_t *out_object, quire_tool_manager *manager, const char *contents);

/**
 * Sets a review state on the selected annotation: a state reply by the style's author that
 * sets `state` in `model` ("Review": Accepted, Rejected, Cancelled, Completed, None;
 * "Marked": Marked, Unmarked; NULL `model` is "Review"), as
 * `quire_document_add_state_reply` does; one undo step. `*out_object` (may be NULL) is the
 * state reply's object number.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `state`, an unknown model, a state of another
 * model); QUIRE_ESTATE (nothing or several selected, or called from a callback);
 * QUIRE_ENOTFOUND; QUIRE_EDISABLED.
 * Thread safety: as the document.
 */
QUIRE_API int quire_tool_manager_set_state(int32_t *out_object, quire_tool_manager *manager, const char *model,
                                           const char *state);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_H */
