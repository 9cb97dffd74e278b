/**
 * @file quire/common.h
 * @brief What every topic header uses: the export macro QUIRE_API, the status codes and
 * the per-thread last error, and quire_rect.
 *
 * A topic header of Quire's C interface. Programs include <quire.h>, which includes
 * every topic header; this one also compiles on its own, as it includes what it uses.
 * The conventions (status codes, ownership, strings, versioned structs) are in quire.h.
 */
#ifndef QUIRE_COMMON_H
#define QUIRE_COMMON_H

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
/* Common types                                                                        */
/* ------------------------------------------------------------------------------------ */

/** A rectangle in PDF user space units (1/72 inch), normalised so that left <= right and
 *  bottom <= top. */
typedef struct quire_rect {
    double left;
    double bottom;
    double right;
    double top;
} quire_rect;

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_COMMON_H */
