/*
 * test_versions.c: the versioned structs of include/quire.h, each in guarded memory.
 *
 * The header: "The library reads `version` first and then only the fields that version has,
 * so a program built against an older header keeps working as the struct grows; a version
 * newer than the library knows gives QUIRE_EVERSION" (and version 0 QUIRE_EINVAL), and the
 * `quire_*_init` functions write only the fields of the version asked for. So every struct
 * of every version is placed at the end of a guarded page (guarded_alloc: the bytes end
 * exactly where a PROT_NONE page starts), and every function that reads or writes it is
 * called on it: a read or a write of one byte past the caller's version faults, and the
 * program dies instead of reporting `N passed, M failed`. The structs and their versions:
 *
 *   quire_open_options        1: sizeof        quire_document_open, _open_memory, _init
 *   quire_save_options        1: 12 bytes (to `object_streams`), 2: sizeof
 *                                              quire_document_save, _save_to_callback, _init
 *   quire_bookmark_provider   1: sizeof        quire_document_set_bookmark_providers, _init
 *   quire_checkpoint_options  1: up to `existing` (offsetof), 2: sizeof
 *                                              quire_document_start_checkpoints,
 *                                              quire_document_inspect_checkpoint, _init
 *   quire_checkpoint_info     1: sizeof        quire_document_inspect_checkpoint (written)
 *   quire_sync_config         1: up to `max_attachment_bytes` (offsetof), 2: up to
 *                                `attachment_grace_seconds` (offsetof), 3: sizeof
 *                                              quire_sync_service_open, _init
 *
 * A struct whose version the library does not know is also given as its `version` field
 * alone (the field, rounded up to the struct's alignment, at the end of a guarded page): the
 * header says nothing past the version is read then.
 *
 * Version 1 of the checkpoint options ends 4 bytes before a multiple of the struct's
 * alignment, so at the end of a page it is not aligned for the struct: the test fills and
 * reads it with memcpy, and the library reads it as bytes.
 *
 * Linked into out/test_api with the other test files (test_support.h has the framework).
 * Every expected value comes from the header (the defaults of the _INIT macros, the
 * statuses), from the file (annots.pdf: 2 pages, manifest; its size, 5745 bytes), or from
 * what the test did itself.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_support.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Version 1 of quire_save_options: up to and with `object_streams`, 12 bytes (the header:
 * "a version 1 struct, 12 bytes, is read as it is"). */
#define SAVE_V1_SIZE (offsetof(quire_save_options, object_streams) + sizeof(int32_t))

/* Was a library bug (fixed): version 1 of quire_save_options was read and written as 16
 * bytes (up to `progress`, with the padding) instead of the header's 12. 0 tests the exact
 * 12 bytes; 1 would bring back the workaround of a 16-byte guard. */
#define KNOWN_BUG_SAVE_OPTIONS_V1 0
#define SAVE_V1_GUARD \
    (KNOWN_BUG_SAVE_OPTIONS_V1 ? offsetof(quire_save_options, progress) : SAVE_V1_SIZE)

#define ANNOTS "pdfium/testing/resources/annots.pdf"
#define ENCRYPTED "qpdf/qpdf/qtest/qpdf/enc-R2,V1,U=view,O=master.pdf" /* user password "view" */

/* The alignment of each struct (C99 has no _Alignof). */
struct align_open {
    char c;
    quire_open_options s;
};
struct align_save {
    char c;
    quire_save_options s;
};
struct align_provider {
    char c;
    quire_bookmark_provider s;
};
struct align_checkpoint {
    char c;
    quire_checkpoint_options s;
};
struct align_info {
    char c;
    quire_checkpoint_info s;
};
struct align_sync {
    char c;
    quire_sync_config s;
};
#define ALIGN_OF(tag) offsetof(struct tag, s)

/* The bytes of a struct's `version` field alone, rounded up to the struct's alignment. */
static size_t version_only(size_t alignment) {
    return alignment > sizeof(uint32_t) ? alignment : sizeof(uint32_t);
}

/* A guarded buffer of `size` bytes that holds only a version (the rest zero). */
static void *guarded_version(size_t size, uint32_t version) {
    void *p = guarded_alloc(size);
    if (p) memcpy(p, &version, sizeof version);
    return p;
}

static uint32_t version_of(const void *p) {
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static void set_version(void *p, uint32_t v) { memcpy(p, &v, sizeof v); }

static int all_bytes(const void *p, size_t n, unsigned char value) {
    const unsigned char *b = p;
    size_t i;
    for (i = 0; i < n; i++)
        if (b[i] != value) return 0;
    return 1;
}

static char g_vdir[64]; /* this file's temporary directory */

/* ---- the _init functions -------------------------------------------------------------------- */

typedef int (*init_fn)(void *, unsigned);
static int init_open(void *p, unsigned v) { return quire_open_options_init(p, v); }
static int init_save(void *p, unsigned v) { return quire_save_options_init(p, v); }
static int init_provider(void *p, unsigned v) { return quire_bookmark_provider_init(p, v); }
static int init_checkpoint(void *p, unsigned v) { return quire_checkpoint_options_init(p, v); }
static int init_sync(void *p, unsigned v) { return quire_sync_config_init(p, v); }
static int init_encryption(void *p, unsigned v) { return quire_encryption_options_init(p, v); }

/* `init` for every version 1..n (whose sizes are `sizes`): into a guarded buffer of exactly
 * that version's size (a write past it faults) it succeeds and sets the version; into a
 * larger buffer (filled with 0x5A) it writes nothing past that version's bytes; version 0 is
 * QUIRE_EINVAL, n + 1 (and UINT_MAX) QUIRE_EVERSION, NULL QUIRE_EINVAL, and the failures write
 * nothing. */
static void check_init(const char *name, init_fn init, const size_t *sizes, unsigned n) {
    const size_t big = sizes[n - 1] + 32;
    unsigned v;
    for (v = 1; v <= n; v++) {
        unsigned char *p = guarded_alloc(sizes[v - 1]), *q = guarded_alloc(big);
        report(p != NULL && q != NULL, __FILE__, __LINE__, "%s: guarded memory", name);
        if (!p || !q) {
            guarded_free(p, sizes[v - 1]);
            guarded_free(q, big);
            return;
        }
        memset(p, 0xA5, sizes[v - 1]);
        check_status(init(p, v), QUIRE_OK, name, __FILE__, __LINE__);
        report(version_of(p) == v, __FILE__, __LINE__, "%s(%u): the version field is %u", name, v,
               (unsigned)version_of(p));
        memset(q, 0x5A, big);
        check_status(init(q, v), QUIRE_OK, name, __FILE__, __LINE__);
        report(version_of(q) == v, __FILE__, __LINE__, "%s(%u) in a larger buffer: version %u",
               name, v, (unsigned)version_of(q));
        report(all_bytes(q + sizes[v - 1], big - sizes[v - 1], 0x5A), __FILE__, __LINE__,
               "%s(%u) wrote past the %zu bytes of version %u", name, v, sizes[v - 1], v);
        /* The failures write nothing. */
        memset(q, 0x5A, big);
        check_status(init(q, 0), QUIRE_EINVAL, name, __FILE__, __LINE__);
        check_status(init(q, n + 1), QUIRE_EVERSION, name, __FILE__, __LINE__);
        check_status(init(q, (unsigned)-1), QUIRE_EVERSION, name, __FILE__, __LINE__);
        report(all_bytes(q, big, 0x5A), __FILE__, __LINE__, "%s: a refused version wrote", name);
        guarded_free(p, sizes[v - 1]);
        guarded_free(q, big);
    }
    check_status(init(NULL, n), QUIRE_EINVAL, name, __FILE__, __LINE__);
}

static void test_init_functions(void) {
    const size_t open_sizes[] = {sizeof(quire_open_options)};
    const size_t save_sizes[] = {SAVE_V1_GUARD, sizeof(quire_save_options)};
    const size_t provider_sizes[] = {sizeof(quire_bookmark_provider)};
    const size_t checkpoint_sizes[] = {offsetof(quire_checkpoint_options, existing),
                                       sizeof(quire_checkpoint_options)};
    const size_t sync_sizes[] = {offsetof(quire_sync_config, max_attachment_bytes),
                                 offsetof(quire_sync_config, attachment_grace_seconds),
                                 sizeof(quire_sync_config)};
    const size_t encryption_sizes[] = {sizeof(quire_encryption_options)};
    /* One version each, but for the checkpoint options (the header's VERSION macros). */
    CHECK_INT(QUIRE_OPEN_OPTIONS_VERSION, 1);
    CHECK_INT(QUIRE_SAVE_OPTIONS_VERSION, 2);
    CHECK_INT(SAVE_V1_SIZE, 12);
    CHECK_INT(QUIRE_BOOKMARK_PROVIDER_VERSION, 1);
    CHECK_INT(QUIRE_CHECKPOINT_OPTIONS_VERSION, 2);
    CHECK_INT(QUIRE_CHECKPOINT_INFO_VERSION, 1);
    CHECK_INT(QUIRE_SYNC_CONFIG_VERSION, 3);
    check_init("quire_open_options_init", init_open, open_sizes, QUIRE_OPEN_OPTIONS_VERSION);
    check_init("quire_save_options_init", init_save, save_sizes, QUIRE_SAVE_OPTIONS_VERSION);
    check_init("quire_bookmark_provider_init", init_provider, provider_sizes,
               QUIRE_BOOKMARK_PROVIDER_VERSION);
    check_init("quire_checkpoint_options_init", init_checkpoint, checkpoint_sizes,
               QUIRE_CHECKPOINT_OPTIONS_VERSION);
    check_init("quire_sync_config_init", init_sync, sync_sizes, QUIRE_SYNC_CONFIG_VERSION);
    check_init("quire_encryption_options_init", init_encryption, encryption_sizes,
               QUIRE_ENCRYPTION_OPTIONS_VERSION);

    /* What they write: the defaults of the _INIT macros. */
    {
        const quire_open_options macro = QUIRE_OPEN_OPTIONS_INIT;
        quire_open_options *o = guarded_alloc(sizeof *o);
        if (o) {
            memset(o, 0xA5, sizeof *o);
            CHECK_STATUS(quire_open_options_init(o, 1), QUIRE_OK);
            CHECK(o->version == macro.version && o->password == NULL && o->max_nesting_depth == 0 &&
                  o->max_page_tree_depth == 0 && o->max_xref_chain == 0 && o->max_objects == 0 &&
                  o->max_stream_bytes == 0 && o->max_total_decoded_bytes == 0 &&
                  o->max_decompression_ratio == 0 && o->max_pages == 0);
            guarded_free(o, sizeof *o);
        }
    }
    {
        /* Version 1: incremental, no object streams; version 2 adds no progress callback. */
        const quire_save_options macro = QUIRE_SAVE_OPTIONS_INIT;
        quire_save_options *o = guarded_alloc(SAVE_V1_GUARD);
        if (o) {
            memset(o, 0xA5, SAVE_V1_GUARD);
            CHECK_STATUS(quire_save_options_init(o, 1), QUIRE_OK);
            CHECK(o->version == 1 && o->mode == macro.mode && o->mode == QUIRE_SAVE_INCREMENTAL &&
                  o->object_streams == 0);
            guarded_free(o, SAVE_V1_GUARD);
        }
        o = guarded_alloc(sizeof *o);
        if (o) {
            memset(o, 0xA5, sizeof *o);
            CHECK_STATUS(quire_save_options_init(o, 2), QUIRE_OK);
            CHECK(o->version == 2 && o->version == macro.version && o->mode == macro.mode &&
                  o->object_streams == 0 && o->progress == NULL && o->progress_payload == NULL);
            guarded_free(o, sizeof *o);
        }
    }
    {
        /* QUIRE_BOOKMARK_PROVIDER_INIT: no callbacks, not the built-in provider. */
        quire_bookmark_provider *p = guarded_alloc(sizeof *p);
        if (p) {
            memset(p, 0xA5, sizeof *p);
            CHECK_STATUS(quire_bookmark_provider_init(p, 1), QUIRE_OK);
            CHECK(p->version == QUIRE_BOOKMARK_PROVIDER_VERSION && p->builtin == 0 &&
                  p->load == NULL && p->add == NULL && p->remove == NULL && p->save == NULL &&
                  p->release == NULL && p->payload == NULL);
            guarded_free(p, sizeof *p);
        }
    }
    {
        /* Version 1: up to load_if_available (0); version 2 adds `existing` (LOAD). */
        const size_t v1 = offsetof(quire_checkpoint_options, existing);
        const quire_checkpoint_options macro = QUIRE_CHECKPOINT_OPTIONS_INIT;
        quire_checkpoint_options got;
        unsigned char *p = guarded_alloc(v1);
        if (p) {
            memset(p, 0xA5, v1);
            CHECK_STATUS(quire_checkpoint_options_init((quire_checkpoint_options *)(void *)p, 1),
                         QUIRE_OK);
            memset(&got, 0, sizeof got);
            memcpy(&got, p, v1);
            CHECK(got.version == 1 && got.strategy == QUIRE_CHECKPOINT_MANUAL &&
                  got.interval_seconds == 10.0 && got.directory == NULL && got.uid == NULL &&
                  got.load_if_available == 0);
            guarded_free(p, v1);
        }
        p = guarded_alloc(sizeof got);
        if (p) {
            memset(p, 0xA5, sizeof got);
            CHECK_STATUS(quire_checkpoint_options_init((quire_checkpoint_options *)(void *)p, 2),
                         QUIRE_OK);
            memcpy(&got, p, sizeof got);
            CHECK(got.version == 2 && got.strategy == macro.strategy &&
                  got.interval_seconds == macro.interval_seconds && got.directory == NULL &&
                  got.uid == NULL && got.load_if_available == 0 &&
                  got.existing == QUIRE_CHECKPOINT_EXISTING_LOAD);
            guarded_free(p, sizeof got);
        }
    }
    {
        /* QUIRE_SYNC_CONFIG_INIT: no store (the caller names one), no keys, no JWKS, the
         * admin API off, the default limits (the header). */
        quire_sync_config *c = guarded_alloc(sizeof *c);
        if (c) {
            memset(c, 0xA5, sizeof *c);
            CHECK_STATUS(quire_sync_config_init(c, QUIRE_SYNC_CONFIG_VERSION), QUIRE_OK);
            CHECK(c->version == QUIRE_SYNC_CONFIG_VERSION && c->store == NULL &&
                  c->public_keys == NULL && c->public_key_count == 0 && c->jwks == NULL &&
                  c->admin_token == NULL && c->max_body_bytes == 0 && c->max_upload_bytes == 0 &&
                  c->max_attachment_bytes == 0 && c->max_listeners == 0 &&
                  c->attachment_grace_seconds == 0);
            guarded_free(c, sizeof *c);
        }
    }
}

/* ---- quire_encryption_options ---------------------------------------------------------------- */

/* The options at the end of guarded memory (the next page faults): set_encryption reads its
 * version, then only that version's bytes. */
static void test_encryption_options(void) {
    quire_document *doc = open_corpus(ANNOTS, NULL);
    quire_encryption_options *o = guarded_alloc(sizeof *o);
    int32_t changed = 0;
    if (doc && o) {
        CHECK_STATUS(quire_encryption_options_init(o, QUIRE_ENCRYPTION_OPTIONS_VERSION), QUIRE_OK);
        CHECK(o->method == QUIRE_ENCRYPTION_AES_256 && o->user_password == NULL &&
              o->owner_password == NULL && o->permissions == QUIRE_PERMISSIONS_ALL &&
              o->encrypt_metadata == 1);
        o->user_password = "user";
        CHECK_STATUS(quire_document_set_encryption(doc, o, NULL), QUIRE_OK);
        CHECK_STATUS(quire_document_has_unsaved_changes(&changed, doc), QUIRE_OK);
        CHECK_INT(changed, 1);
        o->version = QUIRE_ENCRYPTION_OPTIONS_VERSION + 1;
        CHECK_STATUS(quire_document_set_encryption(doc, o, NULL), QUIRE_EVERSION);
        o->version = 0;
        CHECK_STATUS(quire_document_set_encryption(doc, o, NULL), QUIRE_EINVAL);
    }
    guarded_free(o, sizeof *o);
    quire_document_close(doc);
}

/* ---- quire_open_options ---------------------------------------------------------------------- */

static int32_t pages_of(quire_document *doc) {
    int32_t n = -1;
    if (!doc || quire_document_page_count(&n, doc) != QUIRE_OK) return -1;
    return n;
}

static void test_open_options(void) {
    const size_t size = sizeof(quire_open_options);
    const size_t only = version_only(ALIGN_OF(align_open));
    quire_open_options *o = guarded_alloc(size);
    void *v;
    quire_document *doc = NULL, *sentinel = (quire_document *)&g_vdir;
    unsigned char *data;
    size_t n = 0;
    data = read_file(corpus(ANNOTS), &n);
    CHECK(data != NULL && o != NULL);
    if (!data || !o) {
        free(data);
        guarded_free(o, size);
        return;
    }
    CHECK_INT(n, 5745); /* manifest: size */
    CHECK_STATUS(quire_open_options_init(o, QUIRE_OPEN_OPTIONS_VERSION), QUIRE_OK);
    CHECK_STATUS(quire_document_open(&doc, corpus(ANNOTS), o), QUIRE_OK);
    CHECK_INT(pages_of(doc), 2); /* manifest */
    quire_document_close(doc);
    doc = NULL;
    CHECK_STATUS(quire_document_open_memory(&doc, data, n, o), QUIRE_OK);
    CHECK_INT(pages_of(doc), 2);
    quire_document_close(doc);
    doc = NULL;
    /* The fields after the version are read: the password opens the encrypted file (and
     * without it, the file is refused: test_api.c). */
    o->password = "view";
    CHECK_STATUS(quire_document_open(&doc, corpus(ENCRYPTED), o), QUIRE_OK);
    CHECK_INT(pages_of(doc), 30); /* manifest */
    quire_document_close(doc);
    doc = NULL;
    o->password = "wrong";
    CHECK_STATUS(quire_document_open(&doc, corpus(ENCRYPTED), o), QUIRE_EPASSWORD);
    o->password = NULL;

    /* Version 0 and a version newer than the library's. */
    doc = sentinel;
    o->version = 0;
    CHECK_STATUS(quire_document_open(&doc, corpus(ANNOTS), o), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_open_memory(&doc, data, n, o), QUIRE_EINVAL);
    o->version = QUIRE_OPEN_OPTIONS_VERSION + 1;
    CHECK_STATUS(quire_document_open(&doc, corpus(ANNOTS), o), QUIRE_EVERSION);
    CHECK_STATUS(quire_document_open_memory(&doc, data, n, o), QUIRE_EVERSION);
    CHECK(doc == sentinel);
    guarded_free(o, size);

    /* The version alone: nothing past it is read. */
    v = guarded_version(only, QUIRE_OPEN_OPTIONS_VERSION + 1);
    if (v) {
        CHECK_STATUS(quire_document_open(&doc, corpus(ANNOTS), v), QUIRE_EVERSION);
        CHECK_STATUS(quire_document_open_memory(&doc, data, n, v), QUIRE_EVERSION);
        set_version(v, 0);
        CHECK_STATUS(quire_document_open(&doc, corpus(ANNOTS), v), QUIRE_EINVAL);
        CHECK_STATUS(quire_document_open_memory(&doc, data, n, v), QUIRE_EINVAL);
        guarded_free(v, only);
    }
    CHECK(doc == sentinel);
    free(data);
}

/* ---- quire_save_options ---------------------------------------------------------------------- */

static int g_progress_calls;

static int count_progress(uint64_t done, uint64_t total, void *payload) {
    (void)done;
    (void)total;
    if (payload == &g_progress_calls) g_progress_calls++;
    return 0;
}

/* Version 1 at its exact 12 bytes, in a child process (the library's version 1 is larger
 * while KNOWN_BUG_SAVE_OPTIONS_V1 stands: the child then dies of the guard page). The child
 * inits the struct and saves through it, writes whether both succeeded ('0' or '1') to a
 * pipe, and replaces itself with /bin/sh -c ':' rather than exit: under valgrind an exit
 * would run the leak check in the child, where the parent's objects that only its other
 * threads referenced (threads that fork does not copy) look definitely lost, and make the
 * exit status 99 (an exec ends the valgrind'ed image without one). So a child that wrote its
 * byte finished; one that did not died in the library. */
static void test_save_options_v1_exact(quire_document *doc) {
    pid_t pid;
    int wstatus = 0, fds[2];
    char result = 0;
    ssize_t got;
    test_step("quire_save_options version 1 at its 12 bytes");
    fflush(stdout);
    fflush(stderr);
    if (pipe(fds) != 0) {
        report(0, __FILE__, __LINE__, "pipe failed");
        return;
    }
    pid = fork();
    if (pid < 0) {
        report(0, __FILE__, __LINE__, "fork failed");
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        struct byte_sink sink;
        quire_save_options *o = guarded_alloc(SAVE_V1_SIZE);
        int ok;
        ssize_t w;
        close(fds[0]);
        alarm(60); /* never hang the test run */
        memset(&sink, 0, sizeof sink);
        ok = o != NULL && quire_save_options_init(o, 1) == QUIRE_OK && o->version == 1 &&
             quire_document_save_to_callback(doc, o, sink_write, &sink) == QUIRE_OK &&
             sink.size == 5745;
        w = write(fds[1], ok ? "0" : "1", 1);
        (void)w;
        execl("/bin/sh", "sh", "-c", ":", (char *)NULL);
        _exit(2); /* (the result is in the pipe already) */
    }
    close(fds[1]);
    do {
        got = read(fds[0], &result, 1);
    } while (got < 0 && errno == EINTR);
    close(fds[0]);
    if (waitpid(pid, &wstatus, 0) != pid) {
        report(0, __FILE__, __LINE__, "waitpid failed");
        return;
    }
    if (got != 1) {
        int sig = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
        if (KNOWN_BUG_SAVE_OPTIONS_V1)
            fprintf(stderr,
                    "test_versions.c: KNOWN LIBRARY BUG (not counted): a version 1 "
                    "quire_save_options of %zu bytes at the end of a guarded page: signal %d "
                    "(the library reads or writes %zu bytes of version 1)\n",
                    (size_t)SAVE_V1_SIZE, sig, (size_t)offsetof(quire_save_options, progress));
        else
            report(0, __FILE__, __LINE__,
                   "a version 1 quire_save_options of %zu bytes at the end of a guarded page: "
                   "the library died (signal %d: it read or wrote past the struct)",
                   (size_t)SAVE_V1_SIZE, sig);
        return;
    }
    report(result == '0', __FILE__, __LINE__,
           "a version 1 quire_save_options of %zu bytes: init and save did not both succeed",
           (size_t)SAVE_V1_SIZE);
    report(!KNOWN_BUG_SAVE_OPTIONS_V1, __FILE__, __LINE__,
           "the library reads version 1 of quire_save_options as its 12 bytes now: set "
           "KNOWN_BUG_SAVE_OPTIONS_V1 to 0 in test_versions.c");
}

static void test_save_options(void) {
    const size_t size = sizeof(quire_save_options);
    const size_t only = version_only(ALIGN_OF(align_save));
    quire_save_options *o = guarded_alloc(size), *o1 = guarded_alloc(SAVE_V1_GUARD);
    unsigned char *big = guarded_alloc(size);
    quire_document *doc = open_corpus(ANNOTS, NULL), *re = NULL;
    struct byte_sink sink;
    void *v;
    int k;
    const char *path = join_path(g_vdir, "saved.pdf");
    memset(&sink, 0, sizeof sink);
    CHECK(o != NULL && o1 != NULL && big != NULL);
    if (!o || !o1 || !big || !doc) {
        guarded_free(o, size);
        guarded_free(o1, SAVE_V1_GUARD);
        guarded_free(big, size);
        quire_document_close(doc);
        return;
    }
    /* Incremental saves without changes write the file's bytes as they are (the header):
     * version 1, to a path and through the callback. */
    CHECK_STATUS(quire_save_options_init(o1, 1), QUIRE_OK);
    CHECK_STATUS(quire_document_save(doc, o1, path), QUIRE_OK);
    CHECK(path_exists(path));
    CHECK_STATUS(quire_document_save_to_callback(doc, o1, sink_write, &sink), QUIRE_OK);
    CHECK_INT(sink.size, 5745); /* manifest: size */
    sink_free(&sink);
    /* A version 1 struct in a larger buffer whose bytes after version 1 are garbage (a
     * `progress` that is no function): they are not read. */
    memset(big, 0x01, size);
    {
        quire_save_options v1 = QUIRE_SAVE_OPTIONS_INIT;
        v1.version = 1;
        memcpy(big, &v1, SAVE_V1_SIZE);
    }
    CHECK_STATUS(
        quire_document_save_to_callback(doc, (quire_save_options *)(void *)big, sink_write, &sink),
        QUIRE_OK);
    CHECK_INT(sink.size, 5745);
    sink_free(&sink);
    /* Version 2, to a path and through the callback; its progress callback and payload are
     * read (called at least once, "with done == total": the header). */
    CHECK_STATUS(quire_save_options_init(o, QUIRE_SAVE_OPTIONS_VERSION), QUIRE_OK);
    CHECK_STATUS(quire_document_save(doc, o, path), QUIRE_OK);
    o->progress = count_progress;
    o->progress_payload = &g_progress_calls;
    g_progress_calls = 0;
    CHECK_STATUS(quire_document_save_to_callback(doc, o, sink_write, &sink), QUIRE_OK);
    CHECK_INT(sink.size, 5745);
    CHECK(g_progress_calls >= 1);
    sink_free(&sink);
    o->progress = NULL;
    o->progress_payload = NULL;
    /* Version 1 at exactly its 12 bytes (in a child process). */
    test_save_options_v1_exact(doc);
    test_step(NULL);

    /* The fields after the version are read, in both versions: a full save with object
     * streams writes a cross-reference stream (the header). */
    o1->mode = QUIRE_SAVE_FULL;
    o1->object_streams = 1;
    o->mode = QUIRE_SAVE_FULL;
    o->object_streams = 1;
    for (k = 0; k < 2; k++) {
        CHECK_STATUS(quire_document_save_to_callback(doc, k == 0 ? o1 : o, sink_write, &sink),
                     QUIRE_OK);
        CHECK_STATUS(quire_document_open_memory(&re, sink.data, sink.size, NULL), QUIRE_OK);
        if (re) {
            quire_xref_form form = (quire_xref_form)-1;
            CHECK_STATUS(quire_document_xref_form(&form, re), QUIRE_OK);
            CHECK_INT(form, QUIRE_XREF_STREAM);
            CHECK_INT(pages_of(re), 2);
            quire_document_close(re);
            re = NULL;
        }
        sink_free(&sink);
    }
    guarded_free(o1, SAVE_V1_GUARD);
    guarded_free(big, size);

    /* Version 0 and a version newer than the library's: nothing written, no callback. */
    o->version = 0;
    CHECK_STATUS(quire_document_save(doc, o, join_path(g_vdir, "not-saved.pdf")), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_save_to_callback(doc, o, sink_write, &sink), QUIRE_EINVAL);
    o->version = QUIRE_SAVE_OPTIONS_VERSION + 1;
    CHECK_STATUS(quire_document_save(doc, o, join_path(g_vdir, "not-saved.pdf")), QUIRE_EVERSION);
    CHECK_STATUS(quire_document_save_to_callback(doc, o, sink_write, &sink), QUIRE_EVERSION);
    guarded_free(o, size);

    /* The version alone: nothing past it is read. */
    v = guarded_version(only, QUIRE_SAVE_OPTIONS_VERSION + 1);
    if (v) {
        CHECK_STATUS(quire_document_save(doc, v, join_path(g_vdir, "not-saved.pdf")),
                     QUIRE_EVERSION);
        CHECK_STATUS(quire_document_save_to_callback(doc, v, sink_write, &sink), QUIRE_EVERSION);
        set_version(v, 0);
        CHECK_STATUS(quire_document_save(doc, v, join_path(g_vdir, "not-saved.pdf")), QUIRE_EINVAL);
        CHECK_STATUS(quire_document_save_to_callback(doc, v, sink_write, &sink), QUIRE_EINVAL);
        guarded_free(v, only);
    }
    CHECK_INT(sink.calls, 0);
    CHECK(!path_exists(join_path(g_vdir, "not-saved.pdf")));
    sink_free(&sink);
    quire_document_close(doc);
}

/* ---- quire_bookmark_provider ----------------------------------------------------------------- */

struct vp_counts {
    int loads, adds, removes, releases;
};

static int vp_load(quire_bookmark_sink *sink, void *payload) {
    struct vp_counts *c = payload;
    (void)sink;
    c->loads++;
    return 0;
}

/* Takes every bookmark (and keeps none: enough to see that the callbacks are read). */
static int vp_add(int32_t *accepted, const quire_bookmark *bookmark, void *payload) {
    struct vp_counts *c = payload;
    (void)bookmark;
    c->adds++;
    *accepted = 1;
    return 0;
}

static int vp_remove(int32_t *removed, const quire_bookmark *bookmark, void *payload) {
    struct vp_counts *c = payload;
    (void)bookmark;
    c->removes++;
    *removed = 0;
    return 0;
}

static void vp_release(void *payload) {
    struct vp_counts *c = payload;
    c->releases++;
}

static void test_bookmark_provider(void) {
    const size_t size = sizeof(quire_bookmark_provider);
    const size_t only = version_only(ALIGN_OF(align_provider));
    quire_bookmark_provider *builtin = guarded_alloc(size), *custom = guarded_alloc(size);
    /* The array of pointers is guarded too: the library reads `count` pointers, no more. */
    const quire_bookmark_provider **one = guarded_alloc(sizeof *one);
    const quire_bookmark_provider **two = guarded_alloc(2 * sizeof *two);
    quire_document *doc = open_corpus(ANNOTS, NULL);
    quire_bookmark *b = NULL;
    struct vp_counts counts = {0, 0, 0, 0};
    int32_t count = -1;
    void *v;
    CHECK(builtin && custom && one && two);
    if (!builtin || !custom || !one || !two || !doc) goto done;

    /* The built-in provider alone. */
    CHECK_STATUS(quire_bookmark_provider_init(builtin, QUIRE_BOOKMARK_PROVIDER_VERSION), QUIRE_OK);
    builtin->builtin = 1;
    one[0] = builtin;
    CHECK_STATUS(quire_document_set_bookmark_providers(doc, one, 1), QUIRE_OK);
    CHECK_STATUS(quire_document_bookmark_count(&count, doc), QUIRE_OK);
    CHECK_INT(count, 0);

    /* [custom, built-in]: the custom provider's callbacks and payload are read (it is
     * asked to load, and takes the bookmark). */
    CHECK_STATUS(quire_bookmark_provider_init(custom, QUIRE_BOOKMARK_PROVIDER_VERSION), QUIRE_OK);
    custom->load = vp_load;
    custom->add = vp_add;
    custom->remove = vp_remove;
    custom->release = vp_release;
    custom->payload = &counts;
    two[0] = custom;
    two[1] = builtin;
    CHECK_STATUS(quire_document_set_bookmark_providers(doc, two, 2), QUIRE_OK);
    CHECK_STATUS(quire_bookmark_new(&b, QUIRE_ACTION_GOTO, 1, NULL), QUIRE_OK);
    if (b) CHECK_STATUS(quire_document_add_bookmark(doc, b), QUIRE_OK);
    quire_bookmark_free(b);
    CHECK_INT(counts.loads, 1);
    CHECK_INT(counts.adds, 1);

    /* Version 0 and newer versions, as either entry: refused, the chain unchanged, and no
     * provider of the refused chain released (the header). */
    custom->version = 0;
    CHECK_STATUS(quire_document_set_bookmark_providers(doc, two, 2), QUIRE_EINVAL);
    custom->version = QUIRE_BOOKMARK_PROVIDER_VERSION + 1;
    CHECK_STATUS(quire_document_set_bookmark_providers(doc, two, 2), QUIRE_EVERSION);
    custom->version = QUIRE_BOOKMARK_PROVIDER_VERSION;
    builtin->version = QUIRE_BOOKMARK_PROVIDER_VERSION + 1;
    CHECK_STATUS(quire_document_set_bookmark_providers(doc, two, 2), QUIRE_EVERSION);
    builtin->version = QUIRE_BOOKMARK_PROVIDER_VERSION;
    CHECK_INT(counts.releases, 0);

    /* The version alone, first or second: nothing past it is read. */
    v = guarded_version(only, QUIRE_BOOKMARK_PROVIDER_VERSION + 1);
    if (v) {
        one[0] = v;
        CHECK_STATUS(quire_document_set_bookmark_providers(doc, one, 1), QUIRE_EVERSION);
        two[0] = custom;
        two[1] = v;
        CHECK_STATUS(quire_document_set_bookmark_providers(doc, two, 2), QUIRE_EVERSION);
        set_version(v, 0);
        CHECK_STATUS(quire_document_set_bookmark_providers(doc, one, 1), QUIRE_EINVAL);
        CHECK_STATUS(quire_document_set_bookmark_providers(doc, two, 2), QUIRE_EINVAL);
        guarded_free(v, only);
    }
    CHECK_INT(counts.releases, 0);
    /* The chain is still [custom, built-in]: the custom provider takes a bookmark. */
    b = NULL;
    CHECK_STATUS(quire_bookmark_new(&b, QUIRE_ACTION_URI, 0, "https://example.org/v"), QUIRE_OK);
    if (b) CHECK_STATUS(quire_document_add_bookmark(doc, b), QUIRE_OK);
    quire_bookmark_free(b);
    CHECK_INT(counts.adds, 2);

    /* Replaced by the built-in provider alone: the custom one is released, once. */
    one[0] = builtin;
    CHECK_STATUS(quire_document_set_bookmark_providers(doc, one, 1), QUIRE_OK);
    CHECK_INT(counts.releases, 1);

done:
    quire_document_close(doc);
    CHECK_INT(counts.releases, 1);
    guarded_free(builtin, size);
    guarded_free(custom, size);
    guarded_free(one, sizeof *one);
    guarded_free(two, 2 * sizeof *two);
}

/* ---- quire_checkpoint_options and quire_checkpoint_info -------------------------------------- */

/* Adds a note to page 0 (a change for a checkpoint to hold); whether that worked. */
static int add_change(quire_document *doc) {
    quire_rect r = {72, 600, 96, 624};
    quire_annotation *a = NULL;
    int status = quire_annotation_new(&a, "Text", 0, &r);
    if (status == QUIRE_OK)
        status = quire_annotation_set_string(a, QUIRE_ANNOT_CONTENTS, "versions");
    if (status == QUIRE_OK) status = quire_document_add_annotation(doc, a);
    report(status == QUIRE_OK, __FILE__, __LINE__, "adding a note: %d %s", status,
           quire_last_error_message());
    quire_annotation_free(a);
    return status == QUIRE_OK;
}

/* Checkpoint options of version `version` (1 or 2) at the end of a guarded page: the first
 * `size` bytes of `o` copied there (the caller frees it with guarded_free(p, size)). */
static void *guarded_options(const quire_checkpoint_options *o, size_t size) {
    void *p = guarded_alloc(size);
    if (p) memcpy(p, o, size);
    return p;
}

/* What inspect finds with `options` (an info struct in guarded memory too). */
static quire_checkpoint_state inspect_with(quire_document *doc, const void *options) {
    quire_checkpoint_info *info = guarded_alloc(sizeof *info);
    quire_checkpoint_state state = (quire_checkpoint_state)-1;
    if (!info) return state;
    info->version = QUIRE_CHECKPOINT_INFO_VERSION;
    CHECK_STATUS(quire_document_inspect_checkpoint(info, doc, options), QUIRE_OK);
    state = info->state;
    guarded_free(info, sizeof *info);
    return state;
}

static void test_checkpoint_options(void) {
    const size_t v1 = offsetof(quire_checkpoint_options, existing);
    const size_t v2 = sizeof(quire_checkpoint_options);
    const size_t only = version_only(ALIGN_OF(align_checkpoint));
    char dir[128];
    quire_checkpoint_options o;
    quire_document *doc = NULL;
    unsigned char *data;
    size_t n = 0;
    void *p, *v;
    int32_t loaded = -7;
    snprintf(dir, sizeof dir, "%s/checkpoints", g_vdir);
    data = read_file(corpus(ANNOTS), &n);
    CHECK(data != NULL);
    if (!data) return;
    /* The document is opened from memory: the checkpoint's UID is given (the header). */
    CHECK_STATUS(quire_document_open_memory(&doc, data, n, NULL), QUIRE_OK);
    if (!doc) goto done;

    /* Version 1 (up to load_if_available), immediate: a change, then the document closed
     * without saving leaves it in the checkpoint. */
    CHECK_STATUS(quire_checkpoint_options_init(&o, 1), QUIRE_OK);
    o.strategy = QUIRE_CHECKPOINT_IMMEDIATE;
    o.directory = dir;
    o.uid = "versions-1";
    o.load_if_available = 0;
    p = guarded_options(&o, v1);
    if (p) {
        CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, p), QUIRE_OK);
        CHECK_INT(loaded, 0);
        CHECK(add_change(doc));
        guarded_free(p, v1);
    }
    quire_document_close(doc);
    doc = NULL;
    CHECK_STATUS(quire_document_open_memory(&doc, data, n, NULL), QUIRE_OK);
    if (!doc) goto done;
    /* Its load_if_available is read: 0 keeps the checkpoint (QUIRE_EEXIST: the header's
     * rule for version 1), non-zero applies it. Inspecting with it finds the changes. */
    p = guarded_options(&o, v1);
    if (p) {
        CHECK_INT(inspect_with(doc, p), QUIRE_CHECKPOINT_CHANGES);
        loaded = -7;
        CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, p), QUIRE_EEXIST);
        CHECK_INT(loaded, -7);
        guarded_free(p, v1);
    }
    o.load_if_available = 1;
    p = guarded_options(&o, v1);
    if (p) {
        CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, p), QUIRE_OK);
        CHECK_INT(loaded, 1);
        CHECK_INT(quire_document_stop_checkpoints(doc, 1), QUIRE_OK);
        CHECK_INT(inspect_with(doc, p), QUIRE_CHECKPOINT_NONE);
        guarded_free(p, v1);
    }
    quire_document_close(doc);
    doc = NULL;
    CHECK_STATUS(quire_document_open_memory(&doc, data, n, NULL), QUIRE_OK);
    if (!doc) goto done;

    /* Version 2: its `existing` is read (an unknown choice is refused; version 1 never reads
     * those bytes). */
    CHECK_STATUS(quire_checkpoint_options_init(&o, 2), QUIRE_OK);
    o.directory = dir;
    o.uid = "versions-2";
    o.existing = (quire_checkpoint_existing)QUIRE_CHECKPOINT_MANUAL; /* another family */
    p = guarded_options(&o, v2);
    if (p) {
        CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, p), QUIRE_EINVAL);
        guarded_free(p, v2);
    }
    o.existing = QUIRE_CHECKPOINT_EXISTING_DISCARD;
    p = guarded_options(&o, v2);
    if (p) {
        CHECK_INT(inspect_with(doc, p), QUIRE_CHECKPOINT_NONE);
        CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, p), QUIRE_OK);
        CHECK_INT(loaded, 0);
        CHECK_INT(inspect_with(doc, p), QUIRE_CHECKPOINT_EMPTY);
        CHECK_STATUS(quire_document_stop_checkpoints(doc, 1), QUIRE_OK);
        guarded_free(p, v2);
    }
    /* A version 1 struct in a buffer of version 2's size: the `existing` bytes (garbage)
     * are not read. */
    CHECK_STATUS(quire_checkpoint_options_init(&o, 1), QUIRE_OK);
    o.directory = dir;
    o.uid = "versions-3";
    o.existing = (quire_checkpoint_existing)0x7777;
    p = guarded_options(&o, v2);
    if (p) {
        CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, p), QUIRE_OK);
        CHECK_STATUS(quire_document_stop_checkpoints(doc, 1), QUIRE_OK);
        guarded_free(p, v2);
    }

    /* Version 0 and a version newer than the library's, for both functions. */
    CHECK_STATUS(quire_checkpoint_options_init(&o, 2), QUIRE_OK);
    o.directory = dir;
    o.uid = "versions-4";
    o.version = 0;
    p = guarded_options(&o, v2);
    if (p) {
        quire_checkpoint_info info = QUIRE_CHECKPOINT_INFO_INIT;
        loaded = -7;
        CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, p), QUIRE_EINVAL);
        CHECK_STATUS(quire_document_inspect_checkpoint(&info, doc, p), QUIRE_EINVAL);
        set_version(p, QUIRE_CHECKPOINT_OPTIONS_VERSION + 1);
        CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, p), QUIRE_EVERSION);
        CHECK_STATUS(quire_document_inspect_checkpoint(&info, doc, p), QUIRE_EVERSION);
        CHECK_INT(loaded, -7);
        CHECK_INT(info.state, QUIRE_CHECKPOINT_NONE); /* the initialiser's, untouched */
        guarded_free(p, v2);
    }
    /* The version alone: nothing past it is read. */
    v = guarded_version(only, QUIRE_CHECKPOINT_OPTIONS_VERSION + 1);
    if (v) {
        quire_checkpoint_info info = QUIRE_CHECKPOINT_INFO_INIT;
        CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, v), QUIRE_EVERSION);
        CHECK_STATUS(quire_document_inspect_checkpoint(&info, doc, v), QUIRE_EVERSION);
        set_version(v, 0);
        CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, v), QUIRE_EINVAL);
        CHECK_STATUS(quire_document_inspect_checkpoint(&info, doc, v), QUIRE_EINVAL);
        guarded_free(v, only);
    }
    CHECK_STATUS(quire_document_checkpoint(doc), QUIRE_ESTATE); /* none of them started */

done:
    quire_document_close(doc);
    free(data);
}

/* The bytes of quire_checkpoint_info's fields (up to the end of in_use). */
#define INFO_FIELDS (offsetof(quire_checkpoint_info, in_use) + sizeof(int32_t))

static void test_checkpoint_info(void) {
    const size_t size = sizeof(quire_checkpoint_info);
    const size_t only = version_only(ALIGN_OF(align_info));
    char dir[128];
    quire_checkpoint_options o = QUIRE_CHECKPOINT_OPTIONS_INIT;
    quire_checkpoint_info *info = guarded_alloc(size), before;
    quire_document *doc = open_corpus(ANNOTS, NULL);
    void *v;
    snprintf(dir, sizeof dir, "%s/checkpoints", g_vdir);
    o.directory = dir;
    o.uid = "versions-info";
    CHECK(info != NULL);
    if (!info || !doc) goto done;
    /* Version 1 (QUIRE_CHECKPOINT_INFO_INIT's): every field written. */
    memset(info, 0xA5, size);
    info->version = QUIRE_CHECKPOINT_INFO_VERSION;
    CHECK_STATUS(quire_document_inspect_checkpoint(info, doc, &o), QUIRE_OK);
    CHECK_INT(info->version, 1);
    CHECK_INT(info->state, QUIRE_CHECKPOINT_NONE);
    CHECK(info->size == 0 && info->changed_objects == 0 && info->in_use == 0);
    /* Held by this document, with a change: in use, changes (the header). */
    CHECK_STATUS(quire_document_start_checkpoints(NULL, doc, &o), QUIRE_OK);
    CHECK(add_change(doc));
    CHECK_STATUS(quire_document_checkpoint(doc), QUIRE_OK);
    CHECK_STATUS(quire_document_inspect_checkpoint(info, doc, &o), QUIRE_OK);
    CHECK_INT(info->state, QUIRE_CHECKPOINT_CHANGES);
    CHECK(info->size > 0 && info->changed_objects >= 1 && info->in_use == 1);
    /* Version 0 and a newer version: refused, nothing written (the fields compared: the
     * padding after in_use is the library's to write, and may be undefined). */
    info->version = 0;
    memcpy(&before, info, size);
    CHECK_STATUS(quire_document_inspect_checkpoint(info, doc, &o), QUIRE_EINVAL);
    CHECK(memcmp(info, &before, INFO_FIELDS) == 0);
    info->version = QUIRE_CHECKPOINT_INFO_VERSION + 1;
    memcpy(&before, info, size);
    CHECK_STATUS(quire_document_inspect_checkpoint(info, doc, &o), QUIRE_EVERSION);
    CHECK(memcmp(info, &before, INFO_FIELDS) == 0);
    /* The version alone: nothing past it is read or written. */
    v = guarded_version(only, QUIRE_CHECKPOINT_INFO_VERSION + 1);
    if (v) {
        CHECK_STATUS(quire_document_inspect_checkpoint(v, doc, &o), QUIRE_EVERSION);
        set_version(v, 0);
        CHECK_STATUS(quire_document_inspect_checkpoint(v, doc, &o), QUIRE_EINVAL);
        CHECK(version_of(v) == 0 && all_bytes((unsigned char *)v + 4, only - 4, 0));
        guarded_free(v, only);
    }
    CHECK_STATUS(quire_document_stop_checkpoints(doc, 1), QUIRE_OK);

done:
    quire_document_close(doc);
    guarded_free(info, size);
}

/* ---- quire_sync_config ------------------------------------------------------------------------ */

/* The HTTP status of one request to `service` (with the admin API's token "versions" when
 * `admin` is set), or -1 after a failed check. */
static int32_t sync_status(quire_sync_service *service, const char *method, const char *target,
                           int admin, const void *body, size_t body_len) {
    const quire_sync_header token = {"Authorization", "Token versions"};
    quire_sync_response *r = NULL;
    int32_t code = -1;
    CHECK_STATUS(quire_sync_service_handle(&r, service, method, target, admin ? &token : NULL,
                                           admin ? 1 : 0, body, body_len),
                 QUIRE_OK);
    if (r) CHECK_STATUS(quire_sync_response_status(&code, r), QUIRE_OK);
    quire_sync_response_free(r);
    return code;
}

/* Shuts a service down and closes it (as the header asks); NULL is left alone. */
static void sync_close(quire_sync_service *service) {
    if (!service) return;
    CHECK_STATUS(quire_sync_service_shutdown(service), QUIRE_OK);
    quire_sync_service_close(service);
}

static void test_sync_config(void) {
    const size_t size = sizeof(quire_sync_config);
    const size_t only = version_only(ALIGN_OF(align_sync));
    const char *store_path = join_path(g_vdir, "versions-sync.db");
    char store[256];
    /* Not PEM: the key is read (public_keys and public_key_count are version 1's). */
    const char *const bad_keys[] = {
        "-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----\n"};
    quire_sync_config *c = guarded_alloc(size);
    /* The array of key pointers is guarded too: `count` pointers are read, no more. */
    const char **keys = guarded_alloc(sizeof *keys);
    quire_sync_service *service = NULL, *sentinel = (quire_sync_service *)&g_vdir;
    unsigned char *pdf;
    size_t n = 0;
    void *v;
    snprintf(store, sizeof store, "sqlite://%s", store_path);
    pdf = read_file(corpus(ANNOTS), &n);
    CHECK(c != NULL && keys != NULL && pdf != NULL);
    if (!c || !keys || !pdf) goto done;
    CHECK_INT(n, 5745); /* manifest: size */

    /* Version 1 at the end of a guarded page, every field read: the store (a file that the
     * open creates), the admin token (without it /admin/... is 404: the protocol), and the
     * two limits (a body or an upload past them is 413). */
    CHECK_STATUS(quire_sync_config_init(c, QUIRE_SYNC_CONFIG_VERSION), QUIRE_OK);
    c->store = store;
    c->admin_token = "versions";
    c->max_body_bytes = 16;
    c->max_upload_bytes = n - 1;
    CHECK_STATUS(quire_sync_service_open(&service, c), QUIRE_OK);
    CHECK(path_exists(store_path));
    if (service) {
        CHECK_INT(sync_status(service, "GET", "/admin/documents", 1, NULL, 0), 200);
        CHECK_INT(sync_status(service, "POST", "/admin/documents?id=v1", 1, pdf, n), 413);
        CHECK_INT(sync_status(service, "POST", "/documents/v1/layers/main/mutations", 0,
                              "{\"client_id\": \"x\"}", 17),
                  413);
        CHECK_INT(sync_status(service, "POST", "/documents/v1/layers/main/mutations", 0,
                              "{\"client_id\":1}", 15),
                  401); /* within the limit: a token is asked for */
    }
    sync_close(service);
    service = NULL;
    /* The defaults past the version: no store (refused: the caller names one), the admin
     * API off (404), an upload of any size (up to 256 MiB). */
    CHECK_STATUS(quire_sync_config_init(c, QUIRE_SYNC_CONFIG_VERSION), QUIRE_OK);
    CHECK_STATUS(quire_sync_service_open(&service, c), QUIRE_EINVAL);
    c->store = "sqlite::memory:";
    CHECK_STATUS(quire_sync_service_open(&service, c), QUIRE_OK);
    if (service) {
        CHECK_INT(sync_status(service, "GET", "/healthz", 0, NULL, 0), 200);
        CHECK_INT(sync_status(service, "GET", "/admin/documents", 1, NULL, 0), 404);
    }
    sync_close(service);
    service = NULL;
    c->admin_token = "versions";
    CHECK_STATUS(quire_sync_service_open(&service, c), QUIRE_OK);
    if (service) CHECK_INT(sync_status(service, "POST", "/admin/documents?id=v1", 1, pdf, n), 201);
    sync_close(service);
    service = NULL;
    /* The keys: one pointer read from a guarded array. */
    keys[0] = bad_keys[0];
    c->public_keys = keys;
    c->public_key_count = 1;
    service = sentinel;
    CHECK_STATUS(quire_sync_service_open(&service, c), QUIRE_EINVAL);
    CHECK(service == sentinel);
    c->public_keys = NULL;
    c->public_key_count = 0;

    /* Version 2's limits: an attachment past max_attachment_bytes is a 413 before any
     * token is read (one within it asks for a token); limits out of range are refused. */
    CHECK_STATUS(quire_sync_config_init(c, QUIRE_SYNC_CONFIG_VERSION), QUIRE_OK);
    c->store = "sqlite::memory:";
    c->max_attachment_bytes = 10;
    c->max_listeners = 2;
    CHECK_STATUS(quire_sync_service_open(&service, c), QUIRE_OK);
    if (service) {
        const char *target = "/documents/v1/attachments/"
                             "0000000000000000000000000000000000000000000000000000000000000000";
        CHECK_INT(sync_status(service, "PUT", target, 0, "01234567890", 11), 413);
        CHECK_INT(sync_status(service, "PUT", target, 0, "0123456789", 10), 401);
    }
    sync_close(service);
    service = sentinel;
    c->max_attachment_bytes = (64u << 20) + 1;
    CHECK_STATUS(quire_sync_service_open(&service, c), QUIRE_EINVAL);
    c->max_attachment_bytes = 0;
    c->max_listeners = (uint64_t)INT32_MAX + 1;
    CHECK_STATUS(quire_sync_service_open(&service, c), QUIRE_EINVAL);
    CHECK(service == sentinel);
    c->max_listeners = 0;
    /* Version 3's grace period: QUIRE_SYNC_GRACE_NONE and a number of seconds open; below
     * -1 or past INT32_MAX is refused. */
    c->attachment_grace_seconds = QUIRE_SYNC_GRACE_NONE;
    service = NULL;
    CHECK_STATUS(quire_sync_service_open(&service, c), QUIRE_OK);
    sync_close(service);
    c->attachment_grace_seconds = 86400;
    service = NULL;
    CHECK_STATUS(quire_sync_service_open(&service, c), QUIRE_OK);
    sync_close(service);
    service = sentinel;
    c->attachment_grace_seconds = -2;
    CHECK_STATUS(quire_sync_service_open(&service, c), QUIRE_EINVAL);
    c->attachment_grace_seconds = (int64_t)INT32_MAX + 1;
    CHECK_STATUS(quire_sync_service_open(&service, c), QUIRE_EINVAL);
    CHECK(service == sentinel);
    c->attachment_grace_seconds = 0;
    /* Version 2 at the end of a guarded page: its 80 bytes are read, not the grace period
     * of version 3 past them (a read there faults). */
    {
        const size_t v2 = offsetof(quire_sync_config, attachment_grace_seconds);
        quire_sync_config *old = guarded_alloc(v2);
        if (old) {
            CHECK_STATUS(quire_sync_config_init(old, 2), QUIRE_OK);
            CHECK_INT(old->version, 2);
            old->store = "sqlite::memory:";
            old->max_attachment_bytes = 10;
            service = NULL;
            CHECK_STATUS(quire_sync_service_open(&service, old), QUIRE_OK);
            if (service) {
                const char *target =
                    "/documents/v2/attachments/"
                    "0000000000000000000000000000000000000000000000000000000000000000";
                CHECK_INT(sync_status(service, "PUT", target, 0, "01234567890", 11), 413);
            }
            sync_close(service);
            service = sentinel;
            guarded_free(old, v2);
        }
    }
    /* Version 1 at the end of a guarded page: its 64 bytes are read, not the limits of
     * version 2 past them (a read there faults). */
    {
        const size_t v1 = offsetof(quire_sync_config, max_attachment_bytes);
        quire_sync_config *old = guarded_alloc(v1);
        if (old) {
            CHECK_STATUS(quire_sync_config_init(old, 1), QUIRE_OK);
            CHECK_INT(old->version, 1);
            old->store = "sqlite::memory:";
            old->max_body_bytes = 16;
            service = NULL;
            CHECK_STATUS(quire_sync_service_open(&service, old), QUIRE_OK);
            if (service) {
                CHECK_INT(sync_status(service, "POST", "/documents/v1/layers/main/mutations", 0,
                                      "{\"client_id\": \"x\"}", 17),
                          413);
            }
            sync_close(service);
            service = sentinel;
            guarded_free(old, v1);
        }
    }

    /* Version 0 and a version newer than the library's: refused, nothing opened. */
    c->version = 0;
    CHECK_STATUS(quire_sync_service_open(&service, c), QUIRE_EINVAL);
    c->version = QUIRE_SYNC_CONFIG_VERSION + 1;
    CHECK_STATUS(quire_sync_service_open(&service, c), QUIRE_EVERSION);
    CHECK(service == sentinel);

    /* The version alone: nothing past it is read. */
    v = guarded_version(only, QUIRE_SYNC_CONFIG_VERSION + 1);
    if (v) {
        CHECK_STATUS(quire_sync_service_open(&service, v), QUIRE_EVERSION);
        set_version(v, 0);
        CHECK_STATUS(quire_sync_service_open(&service, v), QUIRE_EINVAL);
        guarded_free(v, only);
    }
    CHECK(service == sentinel);

done:
    free(pdf);
    guarded_free(c, size);
    guarded_free(keys, sizeof *keys);
}

static int versions_setup(void) {
    const char *dir = make_temp_dir();
    if (!dir) return 1;
    snprintf(g_vdir, sizeof g_vdir, "%s", dir);
    return 0;
}

static void versions_teardown(void) { remove_temp_dir(g_vdir); }

static const struct test_case versions_tests[] = {{"init_functions", test_init_functions},
                                                  {"open_options", test_open_options},
                                                  {"save_options", test_save_options},
                                                  {"bookmark_provider", test_bookmark_provider},
                                                  {"checkpoint_options", test_checkpoint_options},
                                                  {"checkpoint_info", test_checkpoint_info},
                                                  {"sync_config", test_sync_config},
                                                  {"encryption_options", test_encryption_options},
                                                  {NULL, NULL}};

const struct test_suite versions_suite = {"versions", versions_setup, versions_teardown,
                                          versions_tests};
