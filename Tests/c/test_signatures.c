/*
 * test_signatures.c: digital signatures of include/quire/signatures.h (issue 37): signing
 * identities from PEM and PKCS#12, signing (PAdES, PKCS#7, certification, to a path and to
 * a callback), the time-stamping callback's statuses, the signature guard, validation
 * reports, tampered files and hostile /Contents, and the errors of every function.
 *
 * Linked into out/test_api with the other test files (test_support.h has the framework).
 * The keys and certificates are made at each run by signature_fixtures.py (the Makefile
 * writes out/signatures; QUIRE_SIGNATURE_FIXTURES names another directory). Every expected
 * value comes from:
 *  - "the fixtures": the names and validity of the certificates signature_fixtures.py made;
 *  - "the header": statuses, defaults, constants;
 *  - "the file": bytes the test reads back from what it wrote;
 *  - "set above": what the test did itself.
 * pyHanko, PDFium and poppler check what Quire signs in Tests/python/test_signatures*.py.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *fixtures_dir(void) {
    const char *d = getenv("QUIRE_SIGNATURE_FIXTURES");
    return d && d[0] ? d : "out/signatures";
}

static char *fixture(const char *name, size_t *size) {
    char path[1024];
    unsigned char *data;
    snprintf(path, sizeof path, "%s/%s", fixtures_dir(), name);
    data = read_file(path, size);
    report(data != NULL, __FILE__, __LINE__, "the fixture %s is missing: run signature_fixtures.py", path);
    return (char *)data;
}

/* An identity from the PEM fixtures KEY and CERTS (NULL: none), or NULL after a check. */
static quire_signing_identity *pem_identity(const char *key, const char *certs, const char *password) {
    size_t key_len = 0, certs_len = 0;
    char *key_pem = fixture(key, &key_len);
    char *certs_pem = certs ? fixture(certs, &certs_len) : NULL;
    quire_signing_identity *id = NULL;
    if (key_pem && (certs_pem || !certs))
        CHECK_STATUS(quire_signing_identity_from_pem(&id, key_pem, key_len, certs_pem, certs_len, password), QUIRE_OK);
    free(key_pem);
    free(certs_pem);
    return id;
}

/* The trust root's PEM (root.pem or other-root.pem) into options. */
static char *trust(quire_validation_options *options, const char *root) {
    size_t len = 0;
    char *pem = fixture(root, &len);
    quire_validation_options_init(options, QUIRE_VALIDATION_OPTIONS_VERSION);
    options->trust_roots_pem = pem;
    options->trust_roots_len = len;
    return pem;
}

/* The signatures of the file at `path`, validated against `root` (NULL: no roots). */
static quire_signature_list *validate(const char *path, const char *root) {
    quire_document *doc = NULL;
    quire_signature_list *list = NULL;
    quire_validation_options options = QUIRE_VALIDATION_OPTIONS_INIT;
    char *pem = root ? trust(&options, root) : NULL;
    CHECK_STATUS(quire_document_open(&doc, path, NULL), QUIRE_OK);
    if (doc) CHECK_STATUS(quire_document_signatures(&list, doc, &options), QUIRE_OK);
    quire_document_close(doc);
    free(pem);
    return list;
}

/* Whether signature `index` of `list` has a problem of `kind`. */
static int has_problem(const quire_signature_list *list, int32_t index, quire_signature_problem kind) {
    quire_signature_info info = QUIRE_SIGNATURE_INFO_INIT;
    int32_t k;
    if (quire_signature_list_info(&info, list, index) != QUIRE_OK) return 0;
    for (k = 0; k < info.problem_count; k++) {
        quire_signature_problem p;
        size_t len = 0;
        if (quire_signature_list_problem(&p, NULL, 0, &len, list, index, k) == QUIRE_OK && p == kind) return 1;
    }
    return 0;
}

/* One string of signature `index`, in a static buffer ("" on failure). */
static const char *sig_string(const quire_signature_list *list, int32_t index, quire_signature_string which) {
    static char buf[512];
    size_t len = 0;
    buf[0] = '\0';
    if (quire_signature_list_string(buf, sizeof buf, &len, list, index, which) != QUIRE_OK) buf[0] = '\0';
    return buf;
}

static int starts_with_file(const char *path, const char *prefix_path) {
    size_t a = 0, b = 0;
    unsigned char *x = read_file(path, &a), *y = read_file(prefix_path, &b);
    int ok = x && y && a > b && memcmp(x, y, b) == 0;
    free(x);
    free(y);
    return ok;
}

static int write_bytes(const char *path, const unsigned char *data, size_t size) {
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f) != 0) ok = 0;
    return ok;
}

/* ---- identities ---------------------------------------------------------------------- */

static void test_identities(void) {
    quire_signing_identity *id, *bad = NULL;
    size_t len = 0, key_len = 0, cert_len = 0, p12_len = 0;
    char name[64];
    char *key = fixture("signer.key", &key_len), *cert = fixture("signer.pem", &cert_len);
    char *p12 = fixture("signer.p12", &p12_len);

    id = pem_identity("signer.key", "signer.pem", NULL);
    CHECK_STATUS(quire_signing_identity_name(NULL, 0, &len, id), QUIRE_OK);
    CHECK_INT(len, strlen("Quire C Signer")); /* the fixtures */
    CHECK_STATUS(quire_signing_identity_name(name, 4, &len, id), QUIRE_EBUFS);
    CHECK_STATUS(quire_signing_identity_name(name, sizeof name, &len, id), QUIRE_OK);
    CHECK_STR(name, "Quire C Signer");
    quire_signing_identity_free(id);

    /* The encrypted key, with its password and with a wrong one. */
    id = pem_identity("signer-enc.key", "signer.pem", "secret");
    CHECK(id != NULL);
    quire_signing_identity_free(id);
    if (key && cert) {
        size_t enc_len = 0;
        char *enc = fixture("signer-enc.key", &enc_len);
        if (enc) CHECK_STATUS(quire_signing_identity_from_pem(&bad, enc, enc_len, cert, cert_len, "wrong"), QUIRE_EINVAL);
        CHECK(bad == NULL);
        free(enc);
        /* A key that no certificate matches: the expired signer's certificate. */
        {
            size_t other_len = 0;
            char *other = fixture("expired.pem", &other_len);
            if (other)
                CHECK_STATUS(quire_signing_identity_from_pem(&bad, key, key_len, other, other_len, NULL), QUIRE_EINVAL);
            free(other);
        }
        /* Text that is not PEM; a NULL key; a NULL out. */
        CHECK_STATUS(quire_signing_identity_from_pem(&bad, "not pem", 7, cert, cert_len, NULL), QUIRE_EINVAL);
        CHECK_STATUS(quire_signing_identity_from_pem(&bad, NULL, 0, cert, cert_len, NULL), QUIRE_EINVAL);
        CHECK_STATUS(quire_signing_identity_from_pem(NULL, key, key_len, cert, cert_len, NULL), QUIRE_EINVAL);
        CHECK_STATUS(quire_signing_identity_from_pem(&bad, key, key_len, NULL, 5, NULL), QUIRE_EINVAL);
    }
    /* RSA 1024: not a key Quire signs with. */
    {
        size_t wk_len = 0, wc_len = 0;
        char *wk = fixture("weak.key", &wk_len), *wc = fixture("weak.pem", &wc_len);
        if (wk && wc) CHECK_STATUS(quire_signing_identity_from_pem(&bad, wk, wk_len, wc, wc_len, NULL), QUIRE_EUNSUPPORTED);
        free(wk);
        free(wc);
    }
    /* PKCS#12: the password, a wrong one, garbage. */
    if (p12) {
        CHECK_STATUS(quire_signing_identity_from_pkcs12(&id, p12, p12_len, "p12 pass"), QUIRE_OK);
        CHECK_STATUS(quire_signing_identity_name(name, sizeof name, &len, id), QUIRE_OK);
        CHECK_STR(name, "Quire P12 Signer");
        quire_signing_identity_free(id);
        CHECK_STATUS(quire_signing_identity_from_pkcs12(&bad, p12, p12_len, "wrong"), QUIRE_EINVAL);
        CHECK_STATUS(quire_signing_identity_from_pkcs12(&bad, p12, p12_len / 2, "p12 pass"), QUIRE_EINVAL);
        CHECK_STATUS(quire_signing_identity_from_pkcs12(&bad, "\x30\x03\x02\x01\x03", 5, NULL), QUIRE_EINVAL);
        CHECK_STATUS(quire_signing_identity_from_pkcs12(&bad, NULL, 0, NULL), QUIRE_EINVAL);
    }
    CHECK(bad == NULL);
    CHECK_STATUS(quire_signing_identity_name(name, sizeof name, &len, NULL), QUIRE_EINVAL);
    quire_signing_identity_free(NULL);
    free(key);
    free(cert);
    free(p12);
}

/* ---- signing and validating ------------------------------------------------------------- */

static void test_sign_and_validate(void) {
    const char *dir = make_temp_dir();
    const char *signed_path = join_path(dir, "signed.pdf");
    quire_signing_identity *id = pem_identity("signer.key", "signer.pem", NULL);
    quire_document *doc = NULL;
    quire_sign_options options;
    quire_signature_list *list;
    quire_signature_info info = QUIRE_SIGNATURE_INFO_INIT;
    size_t len = 0, size = 0;
    unsigned char *bytes;
    int32_t n = -1;

    CHECK_STATUS(quire_sign_options_init(&options, QUIRE_SIGN_OPTIONS_VERSION), QUIRE_OK);
    CHECK_INT(options.format, QUIRE_SIGNATURE_PADES); /* the header's defaults */
    CHECK_INT(options.digest, QUIRE_DIGEST_SHA256);
    CHECK_INT(options.look, QUIRE_SIGNATURE_LOOK_TEXT);
    CHECK_INT(options.certification, QUIRE_DOCMDP_NONE);
    options.identity = id;
    options.rect.left = 72;
    options.rect.bottom = 72;
    options.rect.right = 300;
    options.rect.top = 140;
    options.reason = "Approved";
    options.location = "Z\xc3\xbcrich";
    CHECK_STATUS(quire_document_open(&doc, QUIRE_SAMPLE_PDF, NULL), QUIRE_OK);
    CHECK_STATUS(quire_document_sign(doc, &options, signed_path), QUIRE_OK);
    CHECK(starts_with_file(signed_path, QUIRE_SAMPLE_PDF)); /* the file: one incremental update */
    /* The document continues from the signed file: its one signature, validated. */
    {
        quire_signature_list *live = NULL;
        CHECK_STATUS(quire_document_signatures(&live, doc, NULL), QUIRE_OK);
        CHECK_STATUS(quire_signature_list_count(&n, live), QUIRE_OK);
        CHECK_INT(n, 1);
        CHECK(has_problem(live, 0, QUIRE_PROBLEM_UNTRUSTED)); /* no trust roots given */
        quire_signature_list_free(live);
    }
    /* The field signed already. */
    options.field_name = "Signature1";
    CHECK_STATUS(quire_document_sign(doc, &options, join_path(dir, "again.pdf")), QUIRE_ESTATE);
    CHECK(!path_exists(join_path(dir, "again.pdf")));
    options.field_name = NULL;
    quire_document_close(doc);

    list = validate(signed_path, "root.pem");
    CHECK_STATUS(quire_signature_list_count(&n, list), QUIRE_OK);
    CHECK_INT(n, 1);
    CHECK_STATUS(quire_signature_list_info(&info, list, 0), QUIRE_OK);
    CHECK_INT(info.valid, 1);
    CHECK_INT(info.intact, 1);
    CHECK_INT(info.signature_valid, 1);
    CHECK_INT(info.trusted, 1);
    CHECK_INT(info.changes_allowed, 1);
    CHECK_INT(info.coverage, QUIRE_COVERAGE_ENTIRE_FILE);
    CHECK_INT(info.modification, QUIRE_MODIFICATION_NONE);
    CHECK_INT(info.certification, QUIRE_DOCMDP_NONE);
    CHECK_INT(info.digest, QUIRE_DIGEST_SHA256);
    CHECK_INT(info.has_timestamp, 0);
    CHECK_INT(info.problem_count, 0);
    CHECK(info.field_object > 0 && info.signature_object > 0);
    CHECK(info.claimed_time > 1700000000);
    bytes = read_file(signed_path, &size);
    CHECK_INT(info.range1_offset, 0);
    CHECK_INT(info.range2_offset + info.range2_length, (long long)size);
    if (bytes && info.range2_offset > info.range1_length && (size_t)info.range2_offset <= size) {
        /* The gap is exactly the /Contents hex string (the file). */
        CHECK_INT(bytes[info.range1_length], '<');
        CHECK_INT(bytes[info.range2_offset - 1], '>');
    }
    CHECK_STR(sig_string(list, 0, QUIRE_SIGNATURE_FIELD_NAME), "Signature1");
    CHECK_STR(sig_string(list, 0, QUIRE_SIGNATURE_SIGNER), "Quire C Signer");
    CHECK_STR(sig_string(list, 0, QUIRE_SIGNATURE_SUBFILTER), "ETSI.CAdES.detached");
    CHECK_STR(sig_string(list, 0, QUIRE_SIGNATURE_PADES_LEVEL), "B-B");
    CHECK_STATUS(quire_signature_list_string(NULL, 0, &len, list, 0, QUIRE_SIGNATURE_TIMESTAMP_AUTHORITY),
                 QUIRE_ENOTFOUND);
    CHECK_STATUS(quire_signature_list_string(NULL, 0, &len, list, 0, QUIRE_SIGNATURE_CERTIFICATE), QUIRE_OK);
    {
        unsigned char *der = malloc(len + 1);
        size_t len2 = 0;
        if (der) {
            CHECK_STATUS(quire_signature_list_string((char *)der, len + 1, &len2, list, 0, QUIRE_SIGNATURE_CERTIFICATE),
                         QUIRE_OK);
            CHECK_INT(len2, len);
            CHECK_INT(der[0], 0x30); /* a DER SEQUENCE */
        }
        free(der);
    }
    /* The errors of the list's functions. */
    CHECK_STATUS(quire_signature_list_info(&info, list, 1), QUIRE_ERANGE);
    CHECK_STATUS(quire_signature_list_info(&info, list, -1), QUIRE_ERANGE);
    CHECK_STATUS(quire_signature_list_problem(NULL, NULL, 0, &len, list, 0, 0), QUIRE_ERANGE);
    CHECK_STATUS(quire_signature_list_string(NULL, 0, &len, list, 0, (quire_signature_string)0x3F00), QUIRE_EINVAL);
    CHECK_STATUS(quire_signature_list_count(NULL, list), QUIRE_EINVAL);
    CHECK_STATUS(quire_signature_list_count(&n, NULL), QUIRE_EINVAL);
    info.version = 0;
    CHECK_STATUS(quire_signature_list_info(&info, list, 0), QUIRE_EINVAL);
    info.version = QUIRE_SIGNATURE_INFO_VERSION + 1;
    CHECK_STATUS(quire_signature_list_info(&info, list, 0), QUIRE_EVERSION);
    quire_signature_list_free(list);
    quire_signature_list_free(NULL);

    /* Another root: the chain reaches none of the trust roots. */
    list = validate(signed_path, "other-root.pem");
    info.version = QUIRE_SIGNATURE_INFO_VERSION;
    CHECK_STATUS(quire_signature_list_info(&info, list, 0), QUIRE_OK);
    CHECK_INT(info.intact, 1);
    CHECK_INT(info.trusted, 0);
    CHECK_INT(info.valid, 0);
    CHECK(has_problem(list, 0, QUIRE_PROBLEM_UNTRUSTED));
    CHECK(!has_problem(list, 0, QUIRE_PROBLEM_DIGEST_MISMATCH));
    {
        /* The untrusted problem's message, through the length-query pattern. */
        char text[512];
        int32_t k, found = -1;
        for (k = 0; k < info.problem_count && found < 0; k++) {
            quire_signature_problem kind = QUIRE_PROBLEM_MALFORMED;
            CHECK_STATUS(quire_signature_list_problem(&kind, text, sizeof text, &len, list, 0, k), QUIRE_OK);
            if (kind == QUIRE_PROBLEM_UNTRUSTED) found = k;
        }
        CHECK(found >= 0);
        if (found >= 0) {
            CHECK_STATUS(quire_signature_list_problem(NULL, text, sizeof text, &len, list, 0, found), QUIRE_OK);
            CHECK(strstr(text, "untrusted") != NULL);
            CHECK_INT(len, strlen(text));
            CHECK_STATUS(quire_signature_list_problem(NULL, text, 2, &len, list, 0, found), QUIRE_EBUFS);
        }
    }
    quire_signature_list_free(list);

    /* A byte changed inside the signed range (the header's version digit). */
    if (bytes && size > 8) {
        const char *tampered = join_path(dir, "tampered.pdf");
        bytes[7] = bytes[7] == '7' ? '6' : '7';
        CHECK(write_bytes(tampered, bytes, size));
        list = validate(tampered, "root.pem");
        CHECK_STATUS(quire_signature_list_info(&info, list, 0), QUIRE_OK);
        CHECK_INT(info.intact, 0);
        CHECK_INT(info.valid, 0);
        CHECK(has_problem(list, 0, QUIRE_PROBLEM_DIGEST_MISMATCH));
        quire_signature_list_free(list);
        bytes[7] = bytes[7] == '7' ? '6' : '7';
    }
    /* Hostile /Contents: the hex string rewritten in place (same length) with zeros, a
     * truncated SEQUENCE, and pseudo-random bytes. Each is a problem of the signature,
     * never an error of the call, never a crash. */
    if (bytes && info.range1_length > 0 && (size_t)info.range2_offset <= size) {
        const char *hostile = join_path(dir, "hostile.pdf");
        size_t start = (size_t)info.range1_length + 1, end = (size_t)info.range2_offset - 1, i;
        unsigned seed = 12345u;
        int variant;
        for (variant = 0; variant < 6; variant++) {
            /* 0: all zeros; 1: a SEQUENCE that claims more than it holds; 2 to 5: a
             * SEQUENCE tag, then pseudo-random bytes. */
            static const char claim[] = "3082FFFF06092A864886F70D010702";
            for (i = start; i < end; i++) {
                seed = seed * 1103515245u + 12345u;
                if (variant == 0)
                    bytes[i] = '0';
                else if (variant == 1)
                    bytes[i] = (unsigned char)(i - start < sizeof claim - 1 ? claim[i - start] : '0');
                else
                    bytes[i] = (unsigned char)(i - start < 2 ? "30"[i - start] : "0123456789ABCDEF"[(seed >> 16) & 15u]);
            }
            CHECK(write_bytes(hostile, bytes, size));
            list = validate(hostile, "root.pem");
            CHECK_STATUS(quire_signature_list_count(&n, list), QUIRE_OK);
            CHECK_INT(n, 1);
            CHECK_STATUS(quire_signature_list_info(&info, list, 0), QUIRE_OK);
            CHECK_INT(info.valid, 0);
            CHECK(info.problem_count > 0);
            CHECK(has_problem(list, 0, QUIRE_PROBLEM_CMS_UNREADABLE));
            CHECK_INT(info.digest, QUIRE_DIGEST_UNKNOWN);
            CHECK_STATUS(quire_signature_list_string(NULL, 0, &len, list, 0, QUIRE_SIGNATURE_SIGNER), QUIRE_ENOTFOUND);
            quire_signature_list_free(list);
        }
    }
    free(bytes);
    quire_signing_identity_free(id);
    remove_temp_dir(dir);
}

/* ---- certification and the guard ------------------------------------------------------- */

static void test_certification(void) {
    const char *dir = make_temp_dir();
    const char *certified = join_path(dir, "certified.pdf"), *annotated = join_path(dir, "annotated.pdf");
    quire_signing_identity *id = pem_identity("signer.key", "signer.pem", NULL);
    quire_document *doc = NULL;
    quire_sign_options options = QUIRE_SIGN_OPTIONS_INIT;
    quire_annotation *note = NULL;
    quire_rect rect = {100, 100, 120, 120};
    quire_signature_list *list;
    quire_signature_info info = QUIRE_SIGNATURE_INFO_INIT;
    int32_t broken = -1;

    options.identity = id;
    options.certification = QUIRE_DOCMDP_NO_CHANGES;
    options.look = QUIRE_SIGNATURE_LOOK_INVISIBLE;
    CHECK_STATUS(quire_document_open(&doc, QUIRE_SAMPLE_PDF, NULL), QUIRE_OK);
    CHECK_STATUS(quire_document_sign(doc, &options, certified), QUIRE_OK);
    /* P = 1: no further signature, and annotations refused by default (the header). */
    options.certification = QUIRE_DOCMDP_NONE;
    CHECK_STATUS(quire_document_sign(doc, &options, join_path(dir, "second.pdf")), QUIRE_ESTATE);
    CHECK_STATUS(quire_annotation_new(&note, "Text", 0, &rect), QUIRE_OK);
    CHECK_STATUS(quire_document_add_annotation(doc, note), QUIRE_ESTATE);
    CHECK_STATUS(quire_document_certification_broken(&broken, doc), QUIRE_OK);
    CHECK_INT(broken, 0);
    CHECK_STATUS(quire_document_set_signature_guard(doc, (quire_signature_guard)0x3C00), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_set_signature_guard(NULL, QUIRE_SIGNATURE_GUARD_ALLOW), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_set_signature_guard(doc, QUIRE_SIGNATURE_GUARD_WARN), QUIRE_OK);
    CHECK_STATUS(quire_document_add_annotation(doc, note), QUIRE_OK);
    CHECK_STATUS(quire_document_certification_broken(&broken, doc), QUIRE_OK);
    CHECK_INT(broken, 1);
    CHECK_STATUS(quire_document_certification_broken(NULL, doc), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_save(doc, NULL, annotated), QUIRE_OK);
    quire_annotation_free(note);
    quire_document_close(doc);

    list = validate(certified, "root.pem");
    CHECK_STATUS(quire_signature_list_info(&info, list, 0), QUIRE_OK);
    CHECK_INT(info.valid, 1);
    CHECK_INT(info.certification, QUIRE_DOCMDP_NO_CHANGES);
    quire_signature_list_free(list);
    /* The annotation after P = 1: the specific failure, the change classified. */
    list = validate(annotated, "root.pem");
    CHECK_STATUS(quire_signature_list_info(&info, list, 0), QUIRE_OK);
    CHECK_INT(info.valid, 0);
    CHECK_INT(info.intact, 1);
    CHECK_INT(info.coverage, QUIRE_COVERAGE_ENTIRE_REVISION);
    CHECK_INT(info.modification, QUIRE_MODIFICATION_ANNOTATIONS);
    CHECK_INT(info.changes_allowed, 0);
    CHECK(has_problem(list, 0, QUIRE_PROBLEM_DISALLOWED_CHANGE));
    quire_signature_list_free(list);
    quire_signing_identity_free(id);
    remove_temp_dir(dir);
}

/* ---- PKCS#7, PKCS#12, the write callback ------------------------------------------------ */

struct sink {
    unsigned char *data;
    size_t size, cap;
    int fail_after; /* calls before returning non-zero; -1: never */
};

static int collect(const void *data, size_t size, void *payload) {
    struct sink *s = payload;
    if (s->fail_after == 0) return 1;
    if (s->fail_after > 0) s->fail_after--;
    if (s->size + size > s->cap) {
        size_t cap = (s->size + size) * 2;
        unsigned char *p = realloc(s->data, cap);
        if (!p) return 1;
        s->data = p;
        s->cap = cap;
    }
    memcpy(s->data + s->size, data, size);
    s->size += size;
    return 0;
}

static void test_pkcs7_to_callback(void) {
    size_t p12_len = 0;
    char *p12 = fixture("signer.p12", &p12_len);
    quire_signing_identity *id = NULL;
    quire_document *doc = NULL, *signed_doc = NULL;
    quire_sign_options options = QUIRE_SIGN_OPTIONS_INIT;
    struct sink sink = {NULL, 0, 0, -1};
    quire_signature_list *list = NULL;
    quire_signature_info info = QUIRE_SIGNATURE_INFO_INIT;
    quire_validation_options validation = QUIRE_VALIDATION_OPTIONS_INIT;
    char *root;

    if (p12) CHECK_STATUS(quire_signing_identity_from_pkcs12(&id, p12, p12_len, "p12 pass"), QUIRE_OK);
    options.identity = id;
    options.format = QUIRE_SIGNATURE_PKCS7;
    options.digest = QUIRE_DIGEST_SHA512;
    options.signing_time = 1750000000; /* 2025-06-15 */
    options.name = "Signed by C";
    CHECK_STATUS(quire_document_open(&doc, QUIRE_SAMPLE_PDF, NULL), QUIRE_OK);
    /* The write callback stops it: QUIRE_EUSER, and the document is as it was. */
    sink.fail_after = 0;
    CHECK_STATUS(quire_document_sign_to_callback(doc, &options, collect, &sink), QUIRE_EUSER);
    sink.fail_after = -1;
    CHECK_STATUS(quire_document_sign_to_callback(doc, &options, collect, &sink), QUIRE_OK);
    CHECK_STATUS(quire_document_sign_to_callback(doc, &options, NULL, &sink), QUIRE_EINVAL);
    quire_document_close(doc);

    CHECK_STATUS(quire_document_open_memory(&signed_doc, sink.data, sink.size, NULL), QUIRE_OK);
    root = trust(&validation, "root.pem");
    /* Validated at the claimed time, a year before the certificate: expired. */
    validation.time = 0;
    if (signed_doc) CHECK_STATUS(quire_document_signatures(&list, signed_doc, &validation), QUIRE_OK);
    CHECK_STATUS(quire_signature_list_info(&info, list, 0), QUIRE_OK);
    CHECK_INT(info.intact, 1);
    CHECK_INT(info.signature_valid, 1);
    CHECK_INT(info.digest, QUIRE_DIGEST_SHA512);
    CHECK_INT(info.claimed_time, 1750000000);
    CHECK(has_problem(list, 0, QUIRE_PROBLEM_EXPIRED) || has_problem(list, 0, QUIRE_PROBLEM_UNTRUSTED));
    CHECK_STR(sig_string(list, 0, QUIRE_SIGNATURE_SUBFILTER), "adbe.pkcs7.detached");
    CHECK_STR(sig_string(list, 0, QUIRE_SIGNATURE_SIGNER), "Quire P12 Signer");
    CHECK_STATUS(quire_signature_list_string(NULL, 0, &sink.cap, list, 0, QUIRE_SIGNATURE_PADES_LEVEL), QUIRE_ENOTFOUND);
    quire_signature_list_free(list);
    list = NULL;
    /* Validated at a time the header's `time` gives, inside the certificate's validity
     * (the fixtures: from a day before the run): trusted. */
    validation.time = (int64_t)time(NULL);
    if (signed_doc) CHECK_STATUS(quire_document_signatures(&list, signed_doc, &validation), QUIRE_OK);
    CHECK_STATUS(quire_signature_list_info(&info, list, 0), QUIRE_OK);
    CHECK_INT(info.trusted, 1);
    CHECK_INT(info.valid, 1);
    quire_signature_list_free(list);
    list = NULL;
    free(root);
    /* Trust roots that are not PEM certificates. */
    validation.trust_roots_pem = "garbage";
    validation.trust_roots_len = 7;
    CHECK_STATUS(quire_document_signatures(&list, signed_doc, &validation), QUIRE_EINVAL);
    validation.version = 0;
    CHECK_STATUS(quire_document_signatures(&list, signed_doc, &validation), QUIRE_EINVAL);
    validation.version = QUIRE_VALIDATION_OPTIONS_VERSION + 1;
    CHECK_STATUS(quire_document_signatures(&list, signed_doc, &validation), QUIRE_EVERSION);
    CHECK_STATUS(quire_document_signatures(NULL, signed_doc, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_signatures(&list, NULL, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_validation_options_init(NULL, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_validation_options_init(&validation, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_validation_options_init(&validation, 2), QUIRE_EVERSION);
    quire_document_close(signed_doc);
    free(sink.data);
    free(p12);
    quire_signing_identity_free(id);
}

/* ---- the time-stamping callback --------------------------------------------------------- */

struct tsa {
    int calls;
    size_t request_len;
    int mode; /* 0: refuse (return 1); 1: set garbage; 2: return 0 without a response */
};

static int fake_tsa(quire_timestamp_response *response, const void *request, size_t request_len, void *payload) {
    struct tsa *t = payload;
    t->calls++;
    t->request_len = request_len;
    if (t->mode == 1) {
        /* A response, not a TSA's: QUIRE_EIO. Also the limits of _set. */
        CHECK_STATUS(quire_timestamp_response_set(response, request, 0), QUIRE_EINVAL);
        CHECK_STATUS(quire_timestamp_response_set(response, NULL, 3), QUIRE_EINVAL);
        CHECK_STATUS(quire_timestamp_response_set(response, request, ((size_t)1 << 20) + 1), QUIRE_ELIMIT);
        return quire_timestamp_response_set(response, "\x30\x03\x02\x01\x00", 5);
    }
    return t->mode == 0;
}

static void test_timestamp_callback(void) {
    const char *dir = make_temp_dir();
    quire_signing_identity *id = pem_identity("signer.key", "signer.pem", NULL);
    quire_document *doc = NULL;
    quire_sign_options options = QUIRE_SIGN_OPTIONS_INIT;
    struct tsa tsa = {0, 0, 0};
    const quire_timestamp_fn callback = fake_tsa;
    int mode;
    static const int expected[] = {QUIRE_EUSER, QUIRE_EIO, QUIRE_EIO};

    options.identity = id;
    options.timestamp = callback;
    options.timestamp_payload = &tsa;
    CHECK_STATUS(quire_document_open(&doc, QUIRE_SAMPLE_PDF, NULL), QUIRE_OK);
    for (mode = 0; mode < 3; mode++) {
        const char *out = join_path(dir, "stamped.pdf");
        tsa.mode = mode;
        tsa.calls = 0;
        CHECK_STATUS(quire_document_sign(doc, &options, out), expected[mode]);
        CHECK_INT(tsa.calls, 1);
        CHECK(tsa.request_len > 40); /* a TimeStampReq with an imprint and a nonce */
        CHECK(!path_exists(out));
    }
    CHECK_STATUS(quire_timestamp_response_set(NULL, "x", 1), QUIRE_EINVAL);
    /* The document was left as it was: signing without a time stamp works. */
    options.timestamp = NULL;
    CHECK_STATUS(quire_document_sign(doc, &options, join_path(dir, "plain.pdf")), QUIRE_OK);
    quire_document_close(doc);
    quire_signing_identity_free(id);
    remove_temp_dir(dir);
}

/* ---- the options' errors ------------------------------------------------------------- */

static void test_sign_errors(void) {
    const char *dir = make_temp_dir();
    const char *out = join_path(dir, "out.pdf");
    quire_signing_identity *id = pem_identity("signer.key", "signer.pem", NULL);
    quire_document *doc = NULL;
    quire_sign_options options = QUIRE_SIGN_OPTIONS_INIT, fresh;

    CHECK_STATUS(quire_document_open(&doc, QUIRE_SAMPLE_PDF, NULL), QUIRE_OK);
    CHECK_STATUS(quire_document_sign(doc, &options, out), QUIRE_EINVAL); /* no identity */
    CHECK_STATUS(quire_document_sign(doc, NULL, out), QUIRE_EINVAL);
    options.identity = id;
    CHECK_STATUS(quire_document_sign(NULL, &options, out), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_sign(doc, &options, NULL), QUIRE_EINVAL);
    options.format = (quire_signature_format)0x3A00;
    CHECK_STATUS(quire_document_sign(doc, &options, out), QUIRE_EINVAL);
    options.format = QUIRE_SIGNATURE_PADES;
    options.digest = QUIRE_DIGEST_SHA1;
    CHECK_STATUS(quire_document_sign(doc, &options, out), QUIRE_EINVAL);
    options.digest = QUIRE_DIGEST_SHA256;
    options.look = QUIRE_SIGNATURE_LOOK_INK;
    options.ink_object = 0;
    CHECK_STATUS(quire_document_sign(doc, &options, out), QUIRE_EINVAL);
    options.look = QUIRE_SIGNATURE_LOOK_TEXT;
    options.certification = (quire_docmdp)4;
    CHECK_STATUS(quire_document_sign(doc, &options, out), QUIRE_EINVAL);
    options.certification = QUIRE_DOCMDP_NONE;
    options.page = 99;
    CHECK_STATUS(quire_document_sign(doc, &options, out), QUIRE_ERANGE);
    options.page = 0;
    options.reserved_size = ((size_t)1 << 20) + 1;
    CHECK_STATUS(quire_document_sign(doc, &options, out), QUIRE_ELIMIT);
    options.reserved_size = 100;
    CHECK_STATUS(quire_document_sign(doc, &options, out), QUIRE_ERANGE);
    options.reserved_size = 0;
    options.field_name = "A.B";
    CHECK_STATUS(quire_document_sign(doc, &options, out), QUIRE_EINVAL);
    options.field_name = NULL;
    options.version = 0;
    CHECK_STATUS(quire_document_sign(doc, &options, out), QUIRE_EINVAL);
    options.version = QUIRE_SIGN_OPTIONS_VERSION + 1;
    CHECK_STATUS(quire_document_sign(doc, &options, out), QUIRE_EVERSION);
    CHECK(!path_exists(out));
    CHECK_STATUS(quire_sign_options_init(NULL, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_sign_options_init(&fresh, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_sign_options_init(&fresh, QUIRE_SIGN_OPTIONS_VERSION + 1), QUIRE_EVERSION);
    /* An encrypted document cannot be signed. */
    {
        quire_document *encrypted = open_corpus("qpdf/qpdf/qtest/qpdf/V4-aes.pdf", "");
        options.version = QUIRE_SIGN_OPTIONS_VERSION;
        if (encrypted) CHECK_STATUS(quire_document_sign(encrypted, &options, out), QUIRE_EUNSUPPORTED);
        quire_document_close(encrypted);
    }
    quire_document_close(doc);
    quire_signing_identity_free(id);
    remove_temp_dir(dir);
}

/* ---- what changed after a signature ---------------------------------------------------- */

/* Every problem of every signature of `list` is a constant of the problem family. */
static int problems_in_family(const quire_signature_list *list) {
    static const quire_signature_problem family[] = {
        QUIRE_PROBLEM_MALFORMED, QUIRE_PROBLEM_BYTE_RANGE, QUIRE_PROBLEM_DIGEST_MISMATCH,
        QUIRE_PROBLEM_SIGNATURE_INVALID, QUIRE_PROBLEM_CMS_UNREADABLE, QUIRE_PROBLEM_UNSUPPORTED,
        QUIRE_PROBLEM_UNTRUSTED, QUIRE_PROBLEM_EXPIRED, QUIRE_PROBLEM_KEY_USAGE,
        QUIRE_PROBLEM_NOT_IN_SIGNED_REVISION, QUIRE_PROBLEM_DISALLOWED_CHANGE, QUIRE_PROBLEM_TIMESTAMP,
        QUIRE_PROBLEM_WEAK_ALGORITHM, QUIRE_PROBLEM_PROFILE};
    int32_t n = 0, i, k;
    size_t f;
    if (quire_signature_list_count(&n, list) != QUIRE_OK) return 0;
    for (i = 0; i < n; i++) {
        quire_signature_info info = QUIRE_SIGNATURE_INFO_INIT;
        if (quire_signature_list_info(&info, list, i) != QUIRE_OK) return 0;
        for (k = 0; k < info.problem_count; k++) {
            quire_signature_problem p = (quire_signature_problem)0;
            size_t len = 0;
            int found = 0;
            if (quire_signature_list_problem(&p, NULL, 0, &len, list, i, k) != QUIRE_OK || len == 0) return 0;
            for (f = 0; f < sizeof family / sizeof family[0]; f++) found |= family[f] == p;
            if (!found) return 0;
        }
    }
    return 1;
}

/* A second approval signature (form filling, allowed), then a page's /Rotate (other: not
 * allowed after an approval signature); a P = 3 certification then an annotation
 * (allowed), and a P = 2 one then an annotation (refused by the guard). */
static void test_changes_after_signing(void) {
    const char *dir = make_temp_dir();
    const char *first = join_path(dir, "first.pdf"), *second = join_path(dir, "second.pdf");
    const char *rotated = join_path(dir, "rotated.pdf");
    quire_signing_identity *id = pem_identity("signer.key", "signer.pem", NULL);
    quire_document *doc = NULL;
    quire_sign_options options = QUIRE_SIGN_OPTIONS_INIT;
    quire_signature_list *list;
    quire_signature_info info = QUIRE_SIGNATURE_INFO_INIT;
    quire_value *ninety = NULL;
    quire_signature_look invisible = QUIRE_SIGNATURE_LOOK_INVISIBLE;
    quire_digest_algorithm digest = QUIRE_DIGEST_SHA384;
    quire_modification modification;
    quire_signature_coverage coverage;
    int32_t n = 0;

    options.identity = id;
    options.look = invisible;
    options.digest = digest;
    CHECK_STATUS(quire_document_open(&doc, QUIRE_SAMPLE_PDF, NULL), QUIRE_OK);
    CHECK_STATUS(quire_document_sign(doc, &options, first), QUIRE_OK);
    CHECK_STATUS(quire_document_sign(doc, &options, second), QUIRE_OK);
    CHECK_STATUS(quire_value_parse(&ninety, "90", 2), QUIRE_OK);
    CHECK_STATUS(quire_document_set_dict_value(doc, 3, "Rotate", ninety), QUIRE_OK); /* page 1: object 3 (the file) */
    CHECK_STATUS(quire_document_save(doc, NULL, rotated), QUIRE_OK);
    quire_value_free(ninety);
    quire_document_close(doc);

    list = validate(second, "root.pem");
    CHECK_STATUS(quire_signature_list_count(&n, list), QUIRE_OK);
    CHECK_INT(n, 2);
    CHECK_STATUS(quire_signature_list_info(&info, list, 0), QUIRE_OK);
    modification = info.modification;
    coverage = info.coverage;
    CHECK_INT(modification, QUIRE_MODIFICATION_FORM_FILLING); /* a signature after it */
    CHECK_INT(coverage, QUIRE_COVERAGE_ENTIRE_REVISION);
    CHECK_INT(info.valid, 1);
    CHECK_INT(info.digest, QUIRE_DIGEST_SHA384);
    CHECK(problems_in_family(list));
    quire_signature_list_free(list);

    list = validate(rotated, "root.pem");
    CHECK_STATUS(quire_signature_list_info(&info, list, 0), QUIRE_OK);
    CHECK_INT(info.modification, QUIRE_MODIFICATION_OTHER);
    CHECK(info.modification != QUIRE_MODIFICATION_VALIDATION_DATA);
    CHECK_INT(info.changes_allowed, 0);
    CHECK_INT(info.valid, 0);
    CHECK(has_problem(list, 0, QUIRE_PROBLEM_DISALLOWED_CHANGE));
    CHECK(problems_in_family(list));
    quire_signature_list_free(list);

    /* /ByteRange rewritten to stop 20 bytes short of the end, inside the trailer (same
     * width, the file): a partial coverage, reported as a bad /ByteRange, not as valid.
     * (One byte short would end at "%%EOF" before its end of line: a revision's end.) */
    {
        size_t size = 0;
        unsigned char *bytes = read_file(first, &size);
        char *at = NULL;
        long long a = 0, b = 0, c = 0, d = 0;
        size_t i;
        for (i = 0; bytes && i + 10 < size && !at; i++)
            if (memcmp(bytes + i, "/ByteRange", 10) == 0) {
                size_t j = i + 10;
                while (j < size && bytes[j] == ' ') j++;
                if (j < size && bytes[j] == '[') at = (char *)bytes + j + 1;
            }
        /* The array's text, NUL-terminated (the file's bytes are not: sscanf reads to a NUL). */
        char array[65] = {0};
        if (at) memcpy(array, at, size - (size_t)(at - (char *)bytes) < 64 ? size - (size_t)(at - (char *)bytes) : 64);
        if (at && sscanf(array, "%lld %lld %lld %lld", &a, &b, &c, &d) == 4) {
            char *close = memchr(array, ']', 64);
            if (close) close = at + (close - array);
            char text[64];
            int width = close ? (int)(close - at) : 0, w;
            w = snprintf(text, sizeof text, "%lld %lld %lld %lld", a, b, c, d - 20);
            CHECK(width >= w);
            if (width >= w) {
                memset(at, ' ', (size_t)width);
                memcpy(at, text, (size_t)w);
                CHECK(write_bytes(join_path(dir, "short.pdf"), bytes, size));
                list = validate(join_path(dir, "short.pdf"), "root.pem");
                CHECK_STATUS(quire_signature_list_info(&info, list, 0), QUIRE_OK);
                CHECK_INT(info.coverage, QUIRE_COVERAGE_PARTIAL);
                CHECK_INT(info.range2_length, d - 20);
                CHECK_INT(info.valid, 0);
                CHECK(has_problem(list, 0, QUIRE_PROBLEM_BYTE_RANGE));
                CHECK(problems_in_family(list));
                quire_signature_list_free(list);
            }
        } else {
            CHECK(!"the signed file has a /ByteRange of 4 numbers");
        }
        free(bytes);
    }

    /* P = 3 allows an annotation; P = 2 does not (the guard set back to refuse). */
    {
        quire_docmdp levels[] = {QUIRE_DOCMDP_ANNOTATIONS, QUIRE_DOCMDP_FORM_FILLING};
        int k;
        for (k = 0; k < 2; k++) {
            const char *certified = join_path(dir, "p.pdf"), *annotated = join_path(dir, "p-annotated.pdf");
            quire_annotation *note = NULL;
            quire_rect rect = {100, 100, 120, 120};
            options.certification = levels[k];
            CHECK_STATUS(quire_document_open(&doc, QUIRE_SAMPLE_PDF, NULL), QUIRE_OK);
            CHECK_STATUS(quire_document_sign(doc, &options, certified), QUIRE_OK);
            CHECK_STATUS(quire_document_set_signature_guard(doc, QUIRE_SIGNATURE_GUARD_REFUSE), QUIRE_OK);
            CHECK_STATUS(quire_annotation_new(&note, "Square", 0, &rect), QUIRE_OK);
            CHECK_STATUS(quire_document_add_annotation(doc, note), k == 0 ? QUIRE_OK : QUIRE_ESTATE);
            if (k == 0) {
                CHECK_STATUS(quire_document_save(doc, NULL, annotated), QUIRE_OK);
                list = validate(annotated, "root.pem");
                CHECK_STATUS(quire_signature_list_info(&info, list, 0), QUIRE_OK);
                CHECK_INT(info.certification, QUIRE_DOCMDP_ANNOTATIONS);
                CHECK_INT(info.modification, QUIRE_MODIFICATION_ANNOTATIONS);
                CHECK_INT(info.changes_allowed, 1);
                CHECK_INT(info.valid, 1);
                quire_signature_list_free(list);
            }
            quire_annotation_free(note);
            quire_document_close(doc);
        }
    }
    quire_signing_identity_free(id);
    remove_temp_dir(dir);
}

/* ---- the Signature tool ------------------------------------------------------------ */

/* sample.pdf with an unsigned signature field "Drawn" at [100 100 300 200] on page 1,
 * added through the object functions (the file: page 1 is object 3 with /Annots [15 0 R
 * ... 23 0 R]; the catalog's /AcroForm has /Fields [23 0 R] and /DR with /F1 7 0 R). */
static void add_unsigned_field(quire_document *doc) {
    quire_value *widget = NULL, *annots = NULL, *form = NULL;
    int32_t n = 0;
    char text[256];
    static const char widget_pdf[] = "<< /Type /Annot /Subtype /Widget /FT /Sig /T (Drawn) /Rect [100 100 300 200] "
                                     "/F 4 /P 3 0 R >>";
    CHECK_STATUS(quire_value_parse(&widget, widget_pdf, strlen(widget_pdf)), QUIRE_OK);
    CHECK_STATUS(quire_document_add_object(&n, doc, widget), QUIRE_OK);
    snprintf(text, sizeof text, "[15 0 R 16 0 R 17 0 R 18 0 R 19 0 R 20 0 R 21 0 R 22 0 R 23 0 R %d 0 R]", (int)n);
    CHECK_STATUS(quire_value_parse(&annots, text, strlen(text)), QUIRE_OK);
    CHECK_STATUS(quire_document_set_dict_value(doc, 3, "Annots", annots), QUIRE_OK);
    snprintf(text, sizeof text, "<< /Fields [23 0 R %d 0 R] /DR << /Font << /F1 7 0 R >> >> >>", (int)n);
    CHECK_STATUS(quire_value_parse(&form, text, strlen(text)), QUIRE_OK);
    CHECK_STATUS(quire_document_set_dict_value(doc, 1, "AcroForm", form), QUIRE_OK);
    quire_value_free(widget);
    quire_value_free(annots);
    quire_value_free(form);
}

static void drag(quire_tool_manager *m, double x0, double y0, double x1, double y1) {
    int32_t handled = 0;
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_BEGIN, 0, x0, y0), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_MOVE, 0, (x0 + x1) / 2, (y0 + y1) / 2 + 10), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_send(&handled, m, QUIRE_POINTER_DRAG_END, 0, x1, y1), QUIRE_OK);
}

static void test_signature_tool(void) {
    const char *dir = make_temp_dir();
    const char *out = join_path(dir, "drawn.pdf");
    quire_signing_identity *id = pem_identity("signer.key", "signer.pem", NULL);
    quire_document *doc = NULL;
    quire_tool_manager *m = NULL;
    quire_sign_options options = QUIRE_SIGN_OPTIONS_INIT;
    quire_signature_list *list;
    quire_signature_info info = QUIRE_SIGNATURE_INFO_INIT;

    CHECK_STATUS(quire_document_open(&doc, QUIRE_SAMPLE_PDF, NULL), QUIRE_OK);
    if (!doc) return;
    add_unsigned_field(doc);
    CHECK_STATUS(quire_tool_manager_new(&m, doc, NULL), QUIRE_OK);
    options.identity = id;
    options.reason = "Drawn";
    CHECK_STATUS(quire_tool_manager_set_signing(m, &options, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_tool_manager_set_signing(NULL, &options, out), QUIRE_EINVAL);
    options.version = 0;
    CHECK_STATUS(quire_tool_manager_set_signing(m, &options, out), QUIRE_EINVAL);
    options.version = QUIRE_SIGN_OPTIONS_VERSION;
    CHECK_STATUS(quire_tool_manager_set_signing(m, &options, out), QUIRE_OK);
    CHECK_STATUS(quire_tool_manager_set_tool(m, QUIRE_TOOL_SIGNATURE), QUIRE_OK);
    drag(m, 400, 400, 480, 430); /* outside the field: ink only */
    CHECK_STATUS(quire_tool_manager_commit(m), QUIRE_OK);
    CHECK(!path_exists(out));
    drag(m, 150, 130, 250, 170); /* inside */
    CHECK_STATUS(quire_tool_manager_commit(m), QUIRE_OK);
    CHECK(path_exists(out));
    CHECK_STATUS(quire_tool_manager_set_signing(m, NULL, NULL), QUIRE_OK);
    quire_tool_manager_free(m);
    quire_document_close(doc);

    list = validate(out, "root.pem");
    CHECK_STATUS(quire_signature_list_info(&info, list, 0), QUIRE_OK);
    CHECK_INT(info.valid, 1);
    CHECK_STR(sig_string(list, 0, QUIRE_SIGNATURE_FIELD_NAME), "Drawn");
    quire_signature_list_free(list);
    quire_signing_identity_free(id);
    remove_temp_dir(dir);
}

static const struct test_case signatures_tests[] = {
    {"identities", test_identities},
    {"sign_and_validate", test_sign_and_validate},
    {"certification", test_certification},
    {"pkcs7_to_callback", test_pkcs7_to_callback},
    {"timestamp_callback", test_timestamp_callback},
    {"sign_errors", test_sign_errors},
    {"changes_after_signing", test_changes_after_signing},
    {"signature_tool", test_signature_tool},
    {NULL, NULL}};

const struct test_suite signatures_suite = {"signatures", NULL, NULL, signatures_tests};
