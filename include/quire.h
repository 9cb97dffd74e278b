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
 *  - Versioned structs start with `uint32_t version` and have an `_INIT` macro; always
 *    initialise them with it, so that older callers keep working as the struct grows.
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

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* Versions                                                                              */
/* ------------------------------------------------------------------------------------ */

/** Major version: bumped when the ABI changes incompatibly. Part of the soname. */
#define QUIRE_VERSION_MAJOR 0
/** Minor version: bumped when functions or struct fields are added compatibly. */
#define QUIRE_VERSION_MINOR 1
/** Patch version: bumped for fixes that change no interface. */
#define QUIRE_VERSION_PATCH 0
/** The version as one number: MAJOR * 1000000 + MINOR * 1000 + PATCH. */
#define QUIRE_VERSION_NUMBER \
    (QUIRE_VERSION_MAJOR * 1000000 + QUIRE_VERSION_MINOR * 1000 + QUIRE_VERSION_PATCH)
/** The version as a string, "MAJOR.MINOR.PATCH". */
#define QUIRE_VERSION_STRING "0.1.0"

/**
 * The version of the library that is loaded, as "MAJOR.MINOR.PATCH".
 *
 * Compare with QUIRE_VERSION_STRING to detect a header/library mismatch.
 * Returns: a static string, never NULL; do not free it.
 * Thread safety: any thread.
 */
const char *quire_version(void);

/**
 * The version of the library that is loaded, as MAJOR * 1000000 + MINOR * 1000 + PATCH.
 *
 * A binding should refuse a library whose major version it does not know.
 * Thread safety: any thread.
 */
int32_t quire_version_number(void);

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

/**
 * A short English description of a status code, such as "invalid argument".
 *
 * Returns: a static string, never NULL ("unknown status" for a code this version does not
 * know); do not free it.
 * Thread safety: any thread.
 */
const char *quire_status_string(int status);

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
const char *quire_last_error_message(void);

/**
 * The status code of the last error on the calling thread, or QUIRE_OK if there is none.
 * Thread safety: any thread; each thread has its own last error.
 */
int quire_last_error_code(void);

/**
 * Clears the last error of the calling thread.
 * Thread safety: any thread.
 */
void quire_clear_error(void);

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
     *  setting is accepted but capped at 4096, because the parser recurses on the caller's
     *  stack. An object nested deeper reads as null, with a warning (as in qpdf). */
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
    /** Largest ratio of decoded to encoded size of one stream. Default 1000. */
    uint32_t max_decompression_ratio;
} quire_open_options;

/** Initialiser for `quire_open_options`: the current version, empty password, defaults. */
#define QUIRE_OPEN_OPTIONS_INIT { QUIRE_OPEN_OPTIONS_VERSION, NULL, 0, 0, 0, 0, 0, 0, 0 }

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
int quire_document_open(quire_document **out, const char *path,
                        const quire_open_options *options);

/**
 * Opens a PDF from `size` bytes at `data`.
 *
 * The bytes are copied during the call: the caller may free them as soon as it returns.
 * out, options and the return values are as for `quire_document_open` (no QUIRE_ENOTFOUND).
 * `data` may be NULL only when `size` is 0, which gives QUIRE_EFORMAT.
 * Thread safety: any thread.
 */
int quire_document_open_memory(quire_document **out, const void *data, size_t size,
                               const quire_open_options *options);

/**
 * Closes a document and releases everything it owns. Strings and values borrowed from it
 * become invalid. NULL is a no-op.
 */
void quire_document_close(quire_document *doc);

/**
 * The number of pages.
 * out:     receives the page count (0 or more).
 * Returns: QUIRE_OK; QUIRE_EINVAL for NULL arguments; QUIRE_EFORMAT if the page tree is
 *          broken beyond repair; QUIRE_ELIMIT if it exceeds `max_page_tree_depth`.
 */
int quire_document_page_count(int32_t *out, quire_document *doc);

/**
 * The PDF version the document declares: the header's `%PDF-M.m`, raised by the catalog's
 * /Version entry when that is later (ISO 32000-2 §7.2.2).
 * Returns: QUIRE_OK; QUIRE_EINVAL for NULL arguments.
 */
int quire_document_pdf_version(int32_t *out_major, int32_t *out_minor, quire_document *doc);

/**
 * Whether the document is encrypted (its trailer has an /Encrypt dictionary): 1 or 0.
 * Returns: QUIRE_OK; QUIRE_EINVAL for NULL arguments.
 */
int quire_document_is_encrypted(int32_t *out, quire_document *doc);

/**
 * Whether the parser repaired the document while opening it (for example, rebuilt a
 * damaged cross-reference table by scanning the file): 1 or 0. The warnings say what
 * was repaired.
 * Returns: QUIRE_OK; QUIRE_EINVAL for NULL arguments.
 */
int quire_document_is_repaired(int32_t *out, quire_document *doc);

/**
 * The number of warnings recorded while opening and reading the document: damage that was
 * recovered from, not errors. The list may grow as more of the document is read.
 * Returns: QUIRE_OK; QUIRE_EINVAL for NULL arguments.
 */
int quire_document_warning_count(int32_t *out, quire_document *doc);

/**
 * Warning number `index` (0-based), as UTF-8 text, through the length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_EBUFS.
 */
int quire_document_warning(char *buf, size_t buf_size, size_t *out_len,
                           quire_document *doc, int32_t index);

/**
 * The number of entries in the document information dictionary (/Info) whose values are
 * text strings, names, numbers or booleans.
 * Returns: QUIRE_OK; QUIRE_EINVAL for NULL arguments.
 */
int quire_document_metadata_count(int32_t *out, quire_document *doc);

/**
 * The key of metadata entry `index` (0-based), such as "Title", in file order, through the
 * length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_EBUFS.
 */
int quire_document_metadata_key(char *buf, size_t buf_size, size_t *out_len,
                                quire_document *doc, int32_t index);

/**
 * The value of the metadata entry `key` (such as "Title", "Author", "CreationDate"), as
 * UTF-8 through the length-query pattern. Text strings are decoded from PDFDocEncoding,
 * UTF-16BE or UTF-8; dates are returned as written (`D:YYYYMMDDHHmmSSOHH'mm`); names
 * without their slash (`/False` gives "False"), numbers and booleans as their PDF text.
 * key:     NUL-terminated, case-sensitive, without the leading slash.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND (the key is not set); QUIRE_EBUFS.
 */
int quire_document_metadata(char *buf, size_t buf_size, size_t *out_len,
                            quire_document *doc, const char *key);

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
#define QUIRE_BOX_MEDIA 0 /**< /MediaBox: the physical medium. */
#define QUIRE_BOX_CROP 1  /**< /CropBox: the visible region; defaults to the media box. */
#define QUIRE_BOX_BLEED 2 /**< /BleedBox; defaults to the crop box. */
#define QUIRE_BOX_TRIM 3  /**< /TrimBox; defaults to the crop box. */
#define QUIRE_BOX_ART 4   /**< /ArtBox; defaults to the crop box. */

/**
 * A box of page `page_index`, with the page tree's inheritance and the specification's
 * defaults applied: a missing or malformed /MediaBox is US Letter (0 0 612 792) with a
 * warning; a missing crop box is the media box; a missing bleed, trim or art box is the
 * crop box. The box is returned as written, not clipped to the media box.
 * box:     one of the QUIRE_BOX_* values.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments, unknown box); QUIRE_ERANGE.
 */
int quire_page_box(quire_rect *out, quire_document *doc, int32_t page_index, int32_t box);

/**
 * The rotation of page `page_index` in degrees clockwise: 0, 90, 180 or 270 (/Rotate,
 * inherited, normalised; a value that is not a multiple of 90 counts as 0, with a warning).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE.
 */
int quire_page_rotation(int32_t *out, quire_document *doc, int32_t page_index);

/**
 * The number of annotations of page `page_index`: the entries of its /Annots array that
 * are dictionaries (references that do not resolve to a dictionary are skipped).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE.
 */
int quire_page_annotation_count(int32_t *out, quire_document *doc, int32_t page_index);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_H */
