/**
 * @file quire/encryption.h
 * @brief Encryption: encrypt a document, change its passwords and permissions, remove it.
 *
 * A topic header of Quire's C interface. Programs include <quire.h>, which includes
 * every topic header; this one also compiles on its own, as it includes what it uses.
 * The conventions (status codes, ownership, strings, versioned structs) are in quire.h.
 */
#ifndef QUIRE_ENCRYPTION_H
#define QUIRE_ENCRYPTION_H

#include "common.h"
#include "document.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* Encryption                                                                            */
/* ------------------------------------------------------------------------------------ */

/** Permission bits of `quire_encryption_options.permissions` (/P, ISO 32000-2 Table 22):
 *  what a reader who opened the document with the user password may do. */
#define QUIRE_PERMISSION_PRINT 0x4 /**< bit 3: print */
#define QUIRE_PERMISSION_MODIFY 0x8 /**< bit 4: change the document otherwise than below */
#define QUIRE_PERMISSION_COPY 0x10 /**< bit 5: copy or extract text and graphics */
#define QUIRE_PERMISSION_ANNOTATE 0x20 /**< bit 6: add or change annotations, fill forms */
#define QUIRE_PERMISSION_FILL_FORMS 0x100 /**< bit 9: fill form fields */
#define QUIRE_PERMISSION_EXTRACT_FOR_ACCESSIBILITY 0x200 /**< bit 10: extract for accessibility */
#define QUIRE_PERMISSION_ASSEMBLE 0x400 /**< bit 11: insert, rotate, delete pages */
#define QUIRE_PERMISSION_PRINT_HIGH_QUALITY 0x800 /**< bit 12: print at full quality */
/** Every permission. */
#define QUIRE_PERMISSIONS_ALL 0xF3C

/** The current version of `quire_encryption_options`. */
#define QUIRE_ENCRYPTION_OPTIONS_VERSION 1

/** How to encrypt a document. Initialise with QUIRE_ENCRYPTION_OPTIONS_INIT. */
typedef struct quire_encryption_options {
    /** Must be QUIRE_ENCRYPTION_OPTIONS_VERSION. */
    uint32_t version;
    /** QUIRE_ENCRYPTION_AES_256 (the default: /V 5 /R 6, ISO 32000-2) or
     *  QUIRE_ENCRYPTION_AES_128 (/V 4 /R 4, for readers before PDF 2.0). RC4 is refused
     *  (QUIRE_EUNSUPPORTED): it is broken, and never chosen for new encryption. */
    quire_encryption_method method;
    /** The password that opens the document with `permissions`, UTF-8; NULL or empty: anyone
     *  can open it. At most 127 bytes (AES-256); for AES-128, at most 32 characters that
     *  PDFDocEncoding holds. Read during the call only. */
    const char *user_password;
    /** The password that opens it with every permission; NULL or empty: the user password. */
    const char *owner_password;
    /** QUIRE_PERMISSION_* bits; QUIRE_PERMISSIONS_ALL by default. Other bits are ignored. */
    uint32_t permissions;
    /** 1 (the default): the XMP metadata stream is encrypted too; 0 leaves it readable. */
    int32_t encrypt_metadata;
} quire_encryption_options;

/** Initialiser for `quire_encryption_options`: AES-256, no passwords, every permission. */
#define QUIRE_ENCRYPTION_OPTIONS_INIT \
    { QUIRE_ENCRYPTION_OPTIONS_VERSION, QUIRE_ENCRYPTION_AES_256, NULL, NULL, QUIRE_PERMISSIONS_ALL, 1 }

/**
 * Fills `options` with the defaults of `version` (1 up to QUIRE_ENCRYPTION_OPTIONS_VERSION)
 * and sets its version: QUIRE_ENCRYPTION_OPTIONS_INIT for bindings that cannot use the macro.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_encryption_options_init(quire_encryption_options *options, unsigned version);

/**
 * Encrypts the document as `options` says, changes the passwords and permissions of an
 * encrypted one, or (`options` NULL) removes its encryption, at the next save, which must
 * be a full save (QUIRE_SAVE_FULL): an incremental save with an encryption change pending
 * fails with QUIRE_ESTATE and writes nothing. The change replaces an earlier pending one;
 * `quire_document_has_unsaved_changes` is 1 while it is pending.
 * An encrypted document changes only with its owner password: the password it was opened
 * with, when that was the owner password, or `owner_password` (NULL: none given). After the
 * save the document continues from the saved bytes, opened with the new owner password (the
 * user password when there is no owner password); checkpoints and incremental saves work on
 * the result.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `doc`, a bad options version, a method that is not
 * a QUIRE_ENCRYPTION_* value, a password the method cannot hold); QUIRE_EUNSUPPORTED (an RC4
 * or identity method); QUIRE_EPASSWORD (an encrypted document opened with its user password
 * and no or a wrong `owner_password`: nothing changes); QUIRE_ESTATE (a synced document).
 */
QUIRE_API int quire_document_set_encryption(quire_document *doc, const quire_encryption_options *options,
                                            const char *owner_password);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_ENCRYPTION_H */
