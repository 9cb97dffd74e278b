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
 * The file is read during the call; later changes to it do not affect the document. A file
 * with recoverable damage opens, with `quire_document_is_repaired` set and warnings.
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

/**
 * Closes a document and releases everything it owns. Strings and values borrowed from it
 * become invalid. NULL is a no-op.
 */
QUIRE_API void quire_document_close(quire_document *doc);

/**
 * The number of pages, counted as PDFium and MuPDF count them: the page tree root's /Count
 * when it is an integer with 0 < /Count <= `max_pages` (and the root has /Kids); otherwise
 * (missing, 0, negative, larger, not an integer) the number of pages found by walking the
 * tree.
 *
 * In a damaged file the two can differ, and the document then has a warning. When /Count
 * is larger than the pages the tree holds, the missing pages are the last ones: they are
 * counted, but every `quire_page_*` call on them returns QUIRE_ENOTFOUND (as PDFium fails
 * to load them), except `quire_page_label`. When /Count is smaller, the pages after it are
 * not reachable (as in PDFium).
 * out:     receives the page count (0 or more).
 * Returns: QUIRE_OK; QUIRE_EINVAL for NULL arguments; QUIRE_EFORMAT if the page tree is
 *          broken beyond repair; QUIRE_ELIMIT if it exceeds `max_page_tree_depth`, or if it
 *          expands to more than `max_pages` pages and /Count is not taken.
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
    QUIRE_SAVE_FULL = 0x0501 /**< rewrite: renumber, drop unreachable objects */
} quire_save_mode;

/** The current version of `quire_save_options` (2 added the progress callback; a version 1
 *  struct, 12 bytes, is read as it is). */
#define QUIRE_SAVE_OPTIONS_VERSION 2

/** Options for saving. Initialise with QUIRE_SAVE_OPTIONS_INIT. */
typedef struct quire_save_options {
    /** Must be QUIRE_SAVE_OPTIONS_VERSION. */
    uint32_t version;
    /** QUIRE_SAVE_INCREMENTAL (the default) or QUIRE_SAVE_FULL. */
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
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EIO (the file could not be written; `path` is
 * unchanged); QUIRE_EUNSUPPORTED (an incremental save with changes of a file whose
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
    QUIRE_ANNOT_AUTHOR = 0x0701, /**< /T */
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
    QUIRE_ANNOT_CUSTOM_DATA = 0x070D /**< the application's own data (JSON text) */
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
 * Whether the annotation replies to another (has /IRT): 1 or 0; and the object number of
 * the annotation it replies to.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND (for the target: not a reply).
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

/**
 * The annotations of page `page_index` (or of every page when it is -1) as JSON shaped
 * after PSPDFKit's Instant JSON, extended with replies and review states
 * (docs/annotation-json.md), through the length-query pattern. The output is
 * deterministic: the same annotations always give the same bytes. It is computed on each
 * call. The whole document's export covers the pages that exist (a page missing from the
 * page tree has no annotations); its "pageCount" is `quire_document_page_count`'s.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ENOTFOUND (page_index is a page
 * missing from the page tree: see `quire_document_page_count`); QUIRE_EBUFS.
 */
QUIRE_API int quire_document_export_annotations_json(char *buf, size_t buf_size, size_t *out_len,
                                           quire_document *doc, int32_t page_index);

/**
 * Imports `length` bytes of annotation JSON (the format `quire_document_export_annotations_json`
 * writes, or plain Instant JSON): an annotation whose name (/NM) is already on its page is
 * updated, any other is created; replies are linked by name. Everything is checked before
 * the document changes: on an error, nothing was imported.
 * out_count: receives the number of annotations created or updated; may be NULL.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EFORMAT (malformed JSON, an unknown annotation
 * type, a reply whose parent is missing: the message names the field); QUIRE_EDISABLED
 * (replies while replies are off).
 */
QUIRE_API int quire_document_import_annotations_json(int32_t *out_count, quire_document *doc,
                                           const char *json, size_t length);

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
 *  `quire_sync_service_handle`). NULL is a no-op. */
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

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_H */
