/**
 * @file quire/signatures.h
 * @brief Digital signatures: signing fields (PAdES, PKCS#7, certification) and validating
 * a document's signatures.
 *
 * A topic header of Quire's C interface. Programs include <quire.h>, which includes
 * every topic header; this one also compiles on its own, as it includes what it uses.
 * The conventions (status codes, ownership, strings, versioned structs) are in quire.h.
 */
#ifndef QUIRE_SIGNATURES_H
#define QUIRE_SIGNATURES_H

#include "common.h"
#include "document.h"
#include "save.h"
#include "tools.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* Digital signatures (docs/signatures.md)                                               */
/* ------------------------------------------------------------------------------------ */

/*
 * Signing appends one incremental update to the document's file: the unsaved changes, the
 * signature field (an existing unsigned one, or a new one on a page), its appearance and
 * the signature dictionary, with /Contents reserved to fit and an exact /ByteRange. The
 * earlier bytes are left as they were. PAdES baseline B-B (ETSI.CAdES.detached, with
 * signing-certificate-v2), B-T with a time-stamp token from the caller's callback (Quire
 * opens no connection), or adbe.pkcs7.detached for old readers; certification signatures
 * with DocMDP P = 1, 2, 3. Keys: RSA 2048 bits or more, ECDSA P-256 and P-384.
 *
 * Validation reads the document's file (not its unsaved changes) and reports, for each
 * signed field: integrity (the digest over /ByteRange), coverage, what changed after the
 * signature and whether its DocMDP allows it, the CMS signature, the signer's chain to the
 * caller's trust roots at the signing time, the time stamp, the PAdES level, and each
 * problem found. A hostile /Contents (any bytes) is reported as a problem of that
 * signature, never as an error of the call, and never crashes.
 *
 * Only maintained libraries do the cryptography and DER: swift-crypto, swift-certificates,
 * swift-asn1. LTV (/DSS, OCSP, CRL) is not supported; revocation is not checked.
 *
 * Thread safety: a signing identity and a signature list are immutable and may be used by
 * several threads at once; signing and validating use the document as its other
 * functions do (one thread at a time).
 */

/** A signer's private key and certificates. Made by `quire_signing_identity_from_pem` or
 *  `quire_signing_identity_from_pkcs12`; freed by `quire_signing_identity_free`. */
typedef struct quire_signing_identity quire_signing_identity;

/**
 * Reads a signing identity from PEM: `key_pem` holds the private key (PKCS#8, PKCS#1,
 * SEC1, or encrypted PKCS#8 with PBES2), `certs_pem` the certificates (the signer's and its
 * chain, in any order); the signer's certificate is the one whose public key is the key's.
 * The key's PEM may hold the certificates too, with `certs_pem` NULL.
 * out: receives the identity, owned by the caller (`quire_signing_identity_free`).
 * key_pem, key_len: the key's PEM text and its length in bytes.
 * certs_pem, certs_len: the certificates' PEM text, or NULL with 0.
 * password: the encrypted key's password (UTF-8), or NULL for an unencrypted key.
 * Returns: QUIRE_OK; QUIRE_EINVAL (a NULL argument; text that is not PEM; a key that no
 * certificate matches; a wrong password); QUIRE_EUNSUPPORTED (a key type or cipher Quire
 * does not sign with: RSA under 2048 bits, a curve but P-256 and P-384, a legacy PBE).
 */
QUIRE_API int quire_signing_identity_from_pem(quire_signing_identity **out, const char *key_pem, size_t key_len,
                                              const char *certs_pem, size_t certs_len, const char *password);

/**
 * Reads a signing identity from the bytes of a PKCS#12 file (.p12, .pfx) protected with
 * PBES2 (what OpenSSL 3 and Python's `cryptography` write).
 * out: receives the identity, owned by the caller (`quire_signing_identity_free`).
 * data, length: the file's bytes.
 * password: its password (UTF-8); NULL is the empty password.
 * Returns: QUIRE_OK; QUIRE_EINVAL (a NULL argument; not PKCS#12; a wrong password; no key
 * or no matching certificate); QUIRE_EUNSUPPORTED (the legacy RC2 and 3DES ciphers).
 */
QUIRE_API int quire_signing_identity_from_pkcs12(quire_signing_identity **out, const void *data, size_t length,
                                                 const char *password);

/** Frees a signing identity. NULL is a no-op. */
QUIRE_API void quire_signing_identity_free(quire_signing_identity *identity);

/**
 * The signer's common name (CN) from its certificate, UTF-8. Length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EBUFS; QUIRE_ENOTFOUND (a certificate without a
 * common name).
 */
QUIRE_API int quire_signing_identity_name(char *buf, size_t buf_size, size_t *out_len,
                                          const quire_signing_identity *identity);

/** How a signature's /Contents is made (its /SubFilter). */
typedef enum quire_signature_format {
    /** PAdES baseline (ETSI.CAdES.detached): no signing-time attribute, the time is /M. */
    QUIRE_SIGNATURE_PADES = 0x3900,
    /** adbe.pkcs7.detached, with a signing-time attribute, for old readers. */
    QUIRE_SIGNATURE_PKCS7 = 0x3901
} quire_signature_format;

/** A digest algorithm of a signature. */
typedef enum quire_digest_algorithm {
    QUIRE_DIGEST_SHA256 = 0x3A00,
    QUIRE_DIGEST_SHA384 = 0x3A01,
    QUIRE_DIGEST_SHA512 = 0x3A02,
    /** Read in validation only (reported weak); never used to sign. */
    QUIRE_DIGEST_SHA1 = 0x3A03,
    /** Not known, or the CMS could not be read. */
    QUIRE_DIGEST_UNKNOWN = 0x3AFF
} quire_digest_algorithm;

/** How a signature looks on its page. */
typedef enum quire_signature_look {
    /** Who signed, when, and the reason and location if given, in a frame (the default). */
    QUIRE_SIGNATURE_LOOK_TEXT = 0x3B00,
    /** No appearance: an empty rectangle. */
    QUIRE_SIGNATURE_LOOK_INVISIBLE = 0x3B01,
    /** The ink annotation `ink_object` (what the Signature tool drew) above the text; the
     *  ink annotation itself is removed from the page. */
    QUIRE_SIGNATURE_LOOK_INK = 0x3B02
} quire_signature_look;

/** The DocMDP permissions of a certification signature (the low byte is /P). */
typedef enum quire_docmdp {
    /** Not a certification: an approval signature. */
    QUIRE_DOCMDP_NONE = 0x3C00,
    /** P = 1: no change at all. */
    QUIRE_DOCMDP_NO_CHANGES = 0x3C01,
    /** P = 2: filling forms and signing. */
    QUIRE_DOCMDP_FORM_FILLING = 0x3C02,
    /** P = 3: as P = 2, and annotations. */
    QUIRE_DOCMDP_ANNOTATIONS = 0x3C03
} quire_docmdp;

/**
 * The response of a time-stamping callback: valid only during the call of the callback
 * it is given to; set with `quire_timestamp_response_set`.
 */
typedef struct quire_timestamp_response quire_timestamp_response;

/**
 * A time-stamping callback (PAdES B-T): `request` is a DER RFC 3161 TimeStampReq of
 * `request_len` bytes (a nonce included), exactly what an HTTP TSA takes as
 * application/timestamp-query; the callback hands the TSA's TimeStampResp (DER,
 * application/timestamp-reply) to `quire_timestamp_response_set`, and returns 0. Non-zero
 * aborts the signing with QUIRE_EUSER; the document is as it was. Called on the signing
 * thread, once or twice (a second time when the first signature outgrew the reserved
 * space). Quire checks the token's imprint and nonce before embedding it.
 */
typedef int (*quire_timestamp_fn)(quire_timestamp_response *response, const void *request, size_t request_len,
                                  void *payload);

/**
 * Sets the time-stamp response, copying `length` bytes of `data`.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL response or data, an empty response);
 * QUIRE_ELIMIT (over 1 MiB).
 */
QUIRE_API int quire_timestamp_response_set(quire_timestamp_response *response, const void *data, size_t length);

/** The current version of `quire_sign_options`. */
#define QUIRE_SIGN_OPTIONS_VERSION 1

/** What and how `quire_document_sign` signs. Initialise with QUIRE_SIGN_OPTIONS_INIT or
 *  `quire_sign_options_init`, then set `identity` and what else applies. Strings are
 *  UTF-8 and read during the call only. */
typedef struct quire_sign_options {
    /** Must be QUIRE_SIGN_OPTIONS_VERSION (or an older version). */
    uint32_t version;
    /** The signer (required); borrowed during the call. */
    const quire_signing_identity *identity;
    /** An unsigned signature field to sign, by its full name; or the name of the field to
     *  create on `page` (NULL: Signature1, Signature2, ...). */
    const char *field_name;
    /** The page of a new field (0-based). */
    int32_t page;
    /** The rectangle of a new field, in default user space; an empty one (the default)
     *  makes an invisible field. */
    quire_rect rect;
    /** The /SubFilter: QUIRE_SIGNATURE_PADES (the default) or QUIRE_SIGNATURE_PKCS7. */
    quire_signature_format format;
    /** QUIRE_DIGEST_SHA256 (the default), QUIRE_DIGEST_SHA384 or QUIRE_DIGEST_SHA512. */
    quire_digest_algorithm digest;
    /** The signer's name in the dictionary (/Name); NULL: the certificate's common name. */
    const char *name;
    /** /Reason, /Location, /ContactInfo; NULL for none. */
    const char *reason;
    const char *location;     /**< /Location; NULL for none. */
    const char *contact_info; /**< /ContactInfo; NULL for none. */
    /** The claimed signing time (/M), in seconds since 1970 (UTC); 0: now. */
    int64_t signing_time;
    /** How it looks: QUIRE_SIGNATURE_LOOK_TEXT (the default), _INVISIBLE or _INK. */
    quire_signature_look look;
    /** With QUIRE_SIGNATURE_LOOK_INK: the object number of the ink annotation. */
    int32_t ink_object;
    /** QUIRE_DOCMDP_NONE (the default), or the permissions of a certification signature
     *  (only for the document's first signature). */
    quire_docmdp certification;
    /** A time-stamping callback for PAdES B-T, or NULL (B-B). */
    quire_timestamp_fn timestamp;
    /** Passed to `timestamp`. */
    void *timestamp_payload;
    /** The bytes reserved for /Contents; 0 (the default) sizes it to fit. */
    size_t reserved_size;
} quire_sign_options;

/** Initialiser for `quire_sign_options`: no identity, a new invisible field on page 1,
 *  PAdES with SHA-256, the time of the call, an approval signature, no time stamp. */
#define QUIRE_SIGN_OPTIONS_INIT                                                              \
    { QUIRE_SIGN_OPTIONS_VERSION, NULL, NULL, 0, { 0.0, 0.0, 0.0, 0.0 }, QUIRE_SIGNATURE_PADES, \
      QUIRE_DIGEST_SHA256, NULL, NULL, NULL, NULL, 0, QUIRE_SIGNATURE_LOOK_TEXT, 0,            \
      QUIRE_DOCMDP_NONE, NULL, NULL, 0 }

/**
 * Fills `options` with the defaults of `version` (1 up to QUIRE_SIGN_OPTIONS_VERSION) and
 * sets its version: QUIRE_SIGN_OPTIONS_INIT for bindings that cannot use the macro.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_sign_options_init(quire_sign_options *options, unsigned version);

/**
 * Signs as `options` say and saves the signed file to `path` (atomically, as
 * `quire_document_save`): one incremental update after the document's file. The document
 * then continues from the signed file. All or nothing: on any error (the key, the
 * time-stamping callback, the write) the document is as it was and `path` is not written.
 * Returns: QUIRE_OK; QUIRE_EINVAL (a NULL argument or identity; a field that is not a
 * signature field; an unknown constant); QUIRE_EVERSION; QUIRE_ERANGE (no such page; a
 * signature larger than `reserved_size`); QUIRE_ELIMIT (`reserved_size` over 1 MiB);
 * QUIRE_ESTATE (a field signed already; a certification when the document has a signature
 * already; any signature on a document certified with P = 1); QUIRE_EUNSUPPORTED (an
 * encrypted or repaired document); QUIRE_EUSER (the time-stamping callback returned
 * non-zero); QUIRE_EIO (the write failed; the time stamp response is not a granted token
 * over this signature).
 * Thread: the document's; `timestamp` is called on the calling thread.
 */
QUIRE_API int quire_document_sign(quire_document *doc, const quire_sign_options *options, const char *path);

/**
 * Signs as `quire_document_sign` does, handing the signed file to `write` in consecutive
 * pieces instead of writing a path (`write` returning non-zero stops it with QUIRE_EUSER;
 * the document is then as it was).
 * Returns: as `quire_document_sign`.
 */
QUIRE_API int quire_document_sign_to_callback(quire_document *doc, const quire_sign_options *options,
                                              quire_write_fn write, void *payload);

/**
 * Makes the manager's Signature tool sign the field it draws in: when the ink it commits is
 * centred in an unsigned signature field's widget on its page, that field is signed as
 * `options` say (its `field_name`, `look` and `ink_object` are ignored: the field is the
 * one drawn in, the look is the drawing, which the signing removes as an annotation), and
 * the signed file is written to `path` (as `quire_document_sign`). A drawing anywhere else
 * stays an ink annotation. `options` is read during this call (its strings copied, the
 * identity kept); its `timestamp` callback and payload are kept and must stay valid while
 * signing is on. NULL `options` turns it off. A failed signing is the error of the call
 * that committed the drawing (`quire_tool_manager_commit`, a tool change, ...); the ink
 * stays.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL manager; NULL path with options; the options'
 * errors, as `quire_document_sign`); QUIRE_EVERSION; QUIRE_ESTATE (from a callback).
 */
QUIRE_API int quire_tool_manager_set_signing(quire_tool_manager *manager, const quire_sign_options *options,
                                             const char *path);

/** What the unsaved changes of a document are allowed to do to its certification. */
typedef enum quire_signature_guard {
    /** Refuse an annotation or form change the certification's DocMDP does not allow,
     *  with QUIRE_ESTATE (the default). */
    QUIRE_SIGNATURE_GUARD_REFUSE = 0x4100,
    /** Make it, and add a warning to the document's warnings. */
    QUIRE_SIGNATURE_GUARD_WARN = 0x4101,
    /** Make it silently. */
    QUIRE_SIGNATURE_GUARD_ALLOW = 0x4102
} quire_signature_guard;

/**
 * Sets what the annotation and form functions do with a change that the document's
 * certification signature (DocMDP) does not allow.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or not a guard constant).
 */
QUIRE_API int quire_document_set_signature_guard(quire_document *doc, quire_signature_guard guard);

/**
 * Whether the document's unsaved changes, saved incrementally, would break its
 * certification signature's DocMDP permissions: *out is 1 if so, 0 if not (or if the
 * document is not certified).
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_document_certification_broken(int32_t *out, quire_document *doc);

/* ---- validation ---------------------------------------------------------------------- */

/** The current version of `quire_validation_options`. */
#define QUIRE_VALIDATION_OPTIONS_VERSION 1

/** What `quire_document_signatures` validates against. Initialise with
 *  QUIRE_VALIDATION_OPTIONS_INIT or `quire_validation_options_init`. */
typedef struct quire_validation_options {
    /** Must be QUIRE_VALIDATION_OPTIONS_VERSION (or an older version). */
    uint32_t version;
    /** The trust roots, PEM certificates, and the text's length; NULL with 0 trusts none
     *  (every signer is then reported untrusted). */
    const char *trust_roots_pem;
    size_t trust_roots_len; /**< The length of `trust_roots_pem`, in bytes. */
    /** Intermediates besides those the signatures embed, PEM; NULL with 0 for none. */
    const char *intermediates_pem;
    size_t intermediates_len; /**< The length of `intermediates_pem`, in bytes. */
    /** Validate the chains at this time (seconds since 1970, UTC); 0 (the default): at the
     *  signing time (the time stamp's if it verifies, else the claimed one). */
    int64_t time;
} quire_validation_options;

/** Initialiser for `quire_validation_options`: no trust roots, the signing time. */
#define QUIRE_VALIDATION_OPTIONS_INIT { QUIRE_VALIDATION_OPTIONS_VERSION, NULL, 0, NULL, 0, 0 }

/**
 * Fills `options` with the defaults of `version` (1 up to QUIRE_VALIDATION_OPTIONS_VERSION)
 * and sets its version: QUIRE_VALIDATION_OPTIONS_INIT for bindings that cannot use it.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_validation_options_init(quire_validation_options *options, unsigned version);

/** The validated signatures of a document: made by `quire_document_signatures`, freed by
 *  `quire_signature_list_free`; independent of the document once made. */
typedef struct quire_signature_list quire_signature_list;

/**
 * Validates every signed signature field of the document's file (at most 1,000).
 * out: receives the list, owned by the caller (`quire_signature_list_free`); a document
 * without signatures gives an empty list.
 * options: NULL for the defaults (no trust roots).
 * Returns: QUIRE_OK; QUIRE_EINVAL (also trust roots or intermediates that are not PEM
 * certificates); QUIRE_EVERSION; QUIRE_ELIMIT (more than 1,000 signatures); QUIRE_EIO.
 */
QUIRE_API int quire_document_signatures(quire_signature_list **out, quire_document *doc,
                                        const quire_validation_options *options);

/** Frees a signature list. NULL is a no-op. */
QUIRE_API void quire_signature_list_free(quire_signature_list *list);

/**
 * The number of signatures in the list.
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_signature_list_count(int32_t *out, const quire_signature_list *list);

/** How much of the file a signature covers. */
typedef enum quire_signature_coverage {
    /** The whole file but /Contents. */
    QUIRE_COVERAGE_ENTIRE_FILE = 0x3D00,
    /** A whole earlier revision: later revisions were appended after it. */
    QUIRE_COVERAGE_ENTIRE_REVISION = 0x3D01,
    /** Something else (not a revision's end). */
    QUIRE_COVERAGE_PARTIAL = 0x3D02
} quire_signature_coverage;

/** The widest kind of change made after a signature. */
typedef enum quire_modification {
    /** Nothing changed after it. */
    QUIRE_MODIFICATION_NONE = 0x3E00,
    /** Validation data only (a document security store). */
    QUIRE_MODIFICATION_VALIDATION_DATA = 0x3E01,
    /** Form filling and signing. */
    QUIRE_MODIFICATION_FORM_FILLING = 0x3E02,
    /** Annotations. */
    QUIRE_MODIFICATION_ANNOTATIONS = 0x3E03,
    /** Anything else: page content, structure. */
    QUIRE_MODIFICATION_OTHER = 0x3E04
} quire_modification;

/** The current version of `quire_signature_info`. */
#define QUIRE_SIGNATURE_INFO_VERSION 1

/** One validated signature. Set `version` (QUIRE_SIGNATURE_INFO_INIT) before passing it
 *  to `quire_signature_list_info`, which writes only the fields of that version. */
typedef struct quire_signature_info {
    /** Set by the caller: QUIRE_SIGNATURE_INFO_VERSION (or an older version). */
    uint32_t version;
    /** 1 if intact, valid, trusted and nothing after it that it does not allow (no fatal
     *  problem); else 0. */
    int32_t valid;
    /** 1 if the digest over /ByteRange is the signed one. */
    int32_t intact;
    /** 1 if the signature value verifies with the signer's key. */
    int32_t signature_valid;
    /** 1 if the signer's chain reaches a trust root and was valid at the signing time. */
    int32_t trusted;
    /** 1 if the changes after it are allowed (by its DocMDP, or for an approval signature,
     *  form filling, annotations and signing). */
    int32_t changes_allowed;
    quire_signature_coverage coverage; /**< What of the file it covers. */
    /** The widest change after it. */
    quire_modification modification;
    /** QUIRE_DOCMDP_NONE for an approval signature, else its permissions. */
    quire_docmdp certification;
    quire_digest_algorithm digest; /**< The digest algorithm of its signed attributes. */
    /** The signature field's object number, and the signature dictionary's (0 if direct). */
    int32_t field_object;
    int32_t signature_object; /**< The signature dictionary's object number (0 if direct). */
    /** The claimed signing time, seconds since 1970 (0: none). */
    int64_t claimed_time;
    /** 1 if it has a time-stamp token; then its time, and whether it is intact (over this
     *  signature, verifying) and trusted (its authority chains to the trust roots). */
    int32_t has_timestamp;
    int32_t timestamp_intact;  /**< 1 if the time-stamp token is intact (see has_timestamp). */
    int32_t timestamp_trusted; /**< 1 if its authority chains to the trust roots. */
    int64_t timestamp_time;    /**< The time-stamp's time, seconds since 1970 (UTC). */
    /** /ByteRange: the offset and length of the first signed range, then of the second
     *  (0 where a malformed dictionary has fewer numbers). */
    int64_t range1_offset;
    int64_t range1_length; /**< The first signed range's length. */
    int64_t range2_offset; /**< The second signed range's offset. */
    int64_t range2_length; /**< The second signed range's length. */
    /** The number of problems (`quire_signature_list_problem`). */
    int32_t problem_count;
} quire_signature_info;

/** Initialiser for a `quire_signature_info` to be filled. */
#define QUIRE_SIGNATURE_INFO_INIT                                                                   \
    { QUIRE_SIGNATURE_INFO_VERSION, 0, 0, 0, 0, 0, QUIRE_COVERAGE_PARTIAL, QUIRE_MODIFICATION_NONE, \
      QUIRE_DOCMDP_NONE, QUIRE_DIGEST_UNKNOWN, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }

/**
 * Fills `*out` (whose `version` the caller set) with signature `index` of the list.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or out->version 0); QUIRE_EVERSION; QUIRE_ERANGE.
 */
QUIRE_API int quire_signature_list_info(quire_signature_info *out, const quire_signature_list *list, int32_t index);

/** The text of a signature, for `quire_signature_list_string`. */
typedef enum quire_signature_string {
    /** The signature field's full name. */
    QUIRE_SIGNATURE_FIELD_NAME = 0x4000,
    /** The signer's common name (ENOTFOUND if the CMS could not be read). */
    QUIRE_SIGNATURE_SIGNER = 0x4001,
    /** The /SubFilter (ENOTFOUND if none). */
    QUIRE_SIGNATURE_SUBFILTER = 0x4002,
    /** The PAdES level met, "B-B" or "B-T" (ENOTFOUND for other signatures). */
    QUIRE_SIGNATURE_PADES_LEVEL = 0x4003,
    /** The time-stamping authority's common name (ENOTFOUND if none). */
    QUIRE_SIGNATURE_TIMESTAMP_AUTHORITY = 0x4004,
    /** The signer's certificate, DER (binary: use the length; ENOTFOUND if unread). */
    QUIRE_SIGNATURE_CERTIFICATE = 0x4005
} quire_signature_string;

/**
 * A text of signature `index`, UTF-8 (the certificate: DER bytes). Length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL (also an unknown constant); QUIRE_ERANGE; QUIRE_EBUFS;
 * QUIRE_ENOTFOUND (the signature has no such text).
 */
QUIRE_API int quire_signature_list_string(char *buf, size_t buf_size, size_t *out_len, const quire_signature_list *list,
                                          int32_t index, quire_signature_string which);

/** What is wrong with a signature (`quire_signature_list_problem`). */
typedef enum quire_signature_problem {
    /** /ByteRange or /Contents missing or malformed. */
    QUIRE_PROBLEM_MALFORMED = 0x3F00,
    /** /ByteRange does not start at 0, reaches past the file, or skips more than
     *  /Contents. */
    QUIRE_PROBLEM_BYTE_RANGE = 0x3F01,
    /** A signed byte changed (digest mismatch). */
    QUIRE_PROBLEM_DIGEST_MISMATCH = 0x3F02,
    /** The signature value does not verify with the signer's key. */
    QUIRE_PROBLEM_SIGNATURE_INVALID = 0x3F03,
    /** /Contents is not a CMS SignedData Quire can read. */
    QUIRE_PROBLEM_CMS_UNREADABLE = 0x3F04,
    /** An algorithm or form Quire does not check. */
    QUIRE_PROBLEM_UNSUPPORTED = 0x3F05,
    /** The signer does not chain to a trust root. */
    QUIRE_PROBLEM_UNTRUSTED = 0x3F06,
    /** A certificate was not valid at the signing time. */
    QUIRE_PROBLEM_EXPIRED = 0x3F07,
    /** The signer's key usage does not allow signing. */
    QUIRE_PROBLEM_KEY_USAGE = 0x3F08,
    /** The signature is over another revision than the one holding its dictionary. */
    QUIRE_PROBLEM_NOT_IN_SIGNED_REVISION = 0x3F09,
    /** A change after it that its DocMDP (or the rules of signing) does not allow. */
    QUIRE_PROBLEM_DISALLOWED_CHANGE = 0x3F0A,
    /** The time-stamp token is not over this signature, does not verify, or is untrusted. */
    QUIRE_PROBLEM_TIMESTAMP = 0x3F0B,
    /** A weak algorithm (SHA-1): not fatal. */
    QUIRE_PROBLEM_WEAK_ALGORITHM = 0x3F0C,
    /** A deviation from the PAdES profile its /SubFilter claims: not fatal. */
    QUIRE_PROBLEM_PROFILE = 0x3F0D
} quire_signature_problem;

/**
 * Problem `problem` (0 to problem_count - 1) of signature `index`: its kind in *out_kind
 * (may be NULL) and its description, UTF-8, through the length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE (no such signature or problem);
 * QUIRE_EBUFS.
 */
QUIRE_API int quire_signature_list_problem(quire_signature_problem *out_kind, char *buf, size_t buf_size,
                                           size_t *out_len, const quire_signature_list *list, int32_t index,
                                           int32_t problem);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_SIGNATURES_H */
