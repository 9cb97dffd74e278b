/**
 * @file quire/document.h
 * @brief Documents: opening (a path, memory, the host's callbacks) and closing, and what a
 * document says of itself: pages, version, encryption, repair and its warnings, metadata.
 *
 * A topic header of Quire's C interface. Programs include <quire.h>, which includes
 * every topic header; this one also compiles on its own, as it includes what it uses.
 * The conventions (status codes, ownership, strings, versioned structs) are in quire.h.
 */
#ifndef QUIRE_DOCUMENT_H
#define QUIRE_DOCUMENT_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_DOCUMENT_H */
