/**
 * @file quire/objects.h
 * @brief Low-level objects, the escape hatch for what the typed interface lacks, and
 * editing them.
 *
 * A topic header of Quire's C interface. Programs include <quire.h>, which includes
 * every topic header; this one also compiles on its own, as it includes what it uses.
 * The conventions (status codes, ownership, strings, versioned structs) are in quire.h.
 */
#ifndef QUIRE_OBJECTS_H
#define QUIRE_OBJECTS_H

#include "common.h"
#include "document.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/** The kinds of values (PDF object types), from `quire_value_get_kind`. */
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
 * The kind of `value` (its PDF object type): one of the QUIRE_VALUE_* values. (Named
 * `get_kind` because a C function cannot have the name of the type it gives.)
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_value_get_kind(quire_value_kind *out, const quire_value *value);

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

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_OBJECTS_H */
