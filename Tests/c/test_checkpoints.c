/*
 * test_checkpoints.c: the 0.5 interface of include/quire.h, "Checkpoints: crash recovery of
 * unsaved changes": starting and stopping, the options (defaults, the default directory from
 * $XDG_STATE_HOME and $HOME, UIDs, strategies, intervals, versions), recovery of unsaved
 * annotations after a document is closed without saving, a save ending the checkpoint's
 * use, the lock on a UID (QUIRE_EBUSY), a checkpoint of another version of the file
 * (QUIRE_ESTALE), changes made before starting, damaged checkpoints (a torn group, garbage
 * after the last record, a file that is not a checkpoint), the manual, immediate and timed
 * strategies, the asynchronous checkpoint and its callback, the path through the
 * length-query pattern, removal, and an encrypted document. (The versions of the options
 * struct, in guarded memory, are tested with the other versioned structs in test_versions.c.)
 *
 * Every checkpoint is written in a temporary directory (removed at the end): options name a
 * directory there, and for the defaults $XDG_STATE_HOME (and $HOME) point there while these
 * tests run, so nothing is ever written under the real $HOME.
 *
 * Linked into out/test_api with the other test files (test_support.h has the framework).
 * Every expected value comes from:
 *  - "the header": include/quire.h, the contract (statuses, defaults, what recovery does);
 *  - "set above": what the test did itself (an annotation it added, a file it saved);
 *  - "the file": examples/sample.pdf, read before the test changes anything (the number of
 *    annotations on its first page), and its bytes.
 */
#define _POSIX_C_SOURCE 200809L

#include "test_support.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef QUIRE_SAMPLE_PDF /* the Makefile passes $(ROOT)/examples/sample.pdf */
#define QUIRE_SAMPLE_PDF "../../examples/sample.pdf"
#endif
#define AES_PDF "qpdf/qpdf/qtest/qpdf/V4-aes.pdf" /* AES-128, empty user password */

/* Seconds to wait for something a background thread does (valgrind is slow). */
#define WAIT_SECONDS 60

static char g_dir[64];   /* the temporary directory of these tests */
static char g_ckpt[128]; /* the checkpoint directory the options name */

/* ---- helpers ------------------------------------------------------------------------------- */

static int copy_file(const char *from, const char *to) {
    size_t size = 0;
    unsigned char *data = read_file(from, &size);
    FILE *f;
    int ok;
    if (!data) return 0;
    f = fopen(to, "wb");
    ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f) != 0) ok = 0;
    free(data);
    return ok;
}

/* A fresh copy of examples/sample.pdf (or of the corpus file `rel`, if not NULL) as `name` in
 * the temporary directory; its path (one of join_path's buffers, copied by the caller). */
static const char *fresh_copy_at(const char *rel, const char *name, const char *file, int line) {
    const char *path = join_path(g_dir, name);
    int ok = copy_file(rel ? corpus(rel) : QUIRE_SAMPLE_PDF, path);
    report(ok, file, line, "copying %s to %s", rel ? rel : QUIRE_SAMPLE_PDF, path);
    return path;
}
#define fresh_copy(rel, name) fresh_copy_at((rel), (name), __FILE__, __LINE__)

static quire_document *open_at(const char *path, const char *file, int line) {
    quire_document *doc = NULL;
    int status = quire_document_open(&doc, path, NULL);
    report(status == QUIRE_OK && doc != NULL, file, line, "quire_document_open(%s): %d %s", path,
           status, quire_last_error_message());
    return status == QUIRE_OK ? doc : NULL;
}
#define open_path(path) open_at((path), __FILE__, __LINE__)

/* Options in the checkpoint directory with `uid`. */
static quire_checkpoint_options options_for(quire_checkpoint_strategy strategy, const char *uid,
                                            int32_t load) {
    quire_checkpoint_options o = QUIRE_CHECKPOINT_OPTIONS_INIT;
    o.strategy = strategy;
    o.directory = g_ckpt;
    o.uid = uid;
    o.existing = load ? QUIRE_CHECKPOINT_EXISTING_LOAD : QUIRE_CHECKPOINT_EXISTING_DISCARD;
    return o;
}

/* What quire_document_inspect_checkpoint finds for `uid` in the checkpoint directory. */
static quire_checkpoint_state inspect_state(quire_document *doc, const char *uid) {
    quire_checkpoint_options o = options_for(QUIRE_CHECKPOINT_MANUAL, uid, 0);
    quire_checkpoint_info info = QUIRE_CHECKPOINT_INFO_INIT;
    CHECK_STATUS(quire_document_inspect_checkpoint(&info, doc, &o), QUIRE_OK);
    return info.state;
}

/* quire_document_start_checkpoints with options_for(...); *loaded gets out_loaded (-7 if the
 * call did not set it). */
static int start(quire_document *doc, quire_checkpoint_strategy strategy, const char *uid,
                 int32_t load, int32_t *loaded) {
    quire_checkpoint_options o = options_for(strategy, uid, load);
    *loaded = -7;
    return quire_document_start_checkpoints(loaded, doc, &o);
}

/* The checkpoint path through the length-query pattern, into a static buffer ("" on
 * failure, which the caller's checks then see). */
static const char *checkpoint_path(quire_document *doc) {
    static char buf[1024];
    size_t len = 0;
    buf[0] = '\0';
    if (quire_document_checkpoint_path(NULL, 0, &len, doc) != QUIRE_OK || len + 1 > sizeof buf ||
        quire_document_checkpoint_path(buf, sizeof buf, &len, doc) != QUIRE_OK)
        buf[0] = '\0';
    return buf;
}

static long long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static int starts_with(const char *s, const char *prefix) {
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The number of annotations on page 0, or -1. */
static int32_t page0_count(quire_document *doc) {
    int32_t n = -1;
    if (quire_document_page_count(&n, doc) != QUIRE_OK) return -1;
    n = -1;
    if (quire_page_annotation_count(&n, doc, 0) != QUIRE_OK) return -1;
    return n;
}

static int32_t unsaved(quire_document *doc) {
    int32_t v = -1;
    if (quire_document_has_unsaved_changes(&v, doc) != QUIRE_OK) return -1;
    return v;
}

/* Adds a note with `contents` to page 0; returns whether that worked (as a check). */
static int add_note_at(quire_document *doc, const char *contents, const char *file, int line) {
    quire_rect r = {72, 600, 96, 624};
    quire_annotation *a = NULL;
    int status = quire_annotation_new(&a, "Text", 0, &r);
    if (status == QUIRE_OK) status = quire_annotation_set_string(a, QUIRE_ANNOT_CONTENTS, contents);
    if (status == QUIRE_OK) status = quire_document_add_annotation(doc, a);
    report(status == QUIRE_OK, file, line, "adding the note \"%s\": %d %s", contents, status,
           quire_last_error_message());
    quire_annotation_free(a);
    return status == QUIRE_OK;
}
#define add_note(doc, contents) add_note_at((doc), (contents), __FILE__, __LINE__)

/* How many annotations of page 0 have `contents` as their /Contents. */
static int notes_with(quire_document *doc, const char *contents) {
    int32_t n = page0_count(doc), i;
    int found = 0;
    for (i = 0; i < n; i++) {
        quire_annotation *a = NULL;
        char buf[256];
        size_t len = 0;
        if (quire_page_annotation(&a, doc, 0, i) != QUIRE_OK) continue;
        if (quire_annotation_string(buf, sizeof buf, &len, a, QUIRE_ANNOT_CONTENTS) == QUIRE_OK &&
            strcmp(buf, contents) == 0)
            found++;
        quire_annotation_free(a);
    }
    quire_clear_error(); /* notes without /Contents: QUIRE_ENOTFOUND */
    return found;
}

/* Whether the file `path` holds the bytes `needle` anywhere. */
static int file_contains(const char *path, const char *needle) {
    size_t size = 0, n = strlen(needle), i;
    unsigned char *data = read_file(path, &size);
    int found = 0;
    if (!data) return 0;
    for (i = 0; i + n <= size && !found; i++)
        if (memcmp(data + i, needle, n) == 0) found = 1;
    free(data);
    return found;
}

static int same_bytes(const char *a, const char *b) {
    size_t na = 0, nb = 0;
    unsigned char *da = read_file(a, &na), *db = read_file(b, &nb);
    int same = da && db && na == nb && memcmp(da, db, na) == 0;
    free(da);
    free(db);
    return same;
}

static void sleep_ms(long ms) {
    struct timespec t;
    t.tv_sec = ms / 1000;
    t.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&t, NULL);
}

/* ---- the asynchronous checkpoint's callback -------------------------------------------------- */

struct done_record {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int calls;
    int status;
    int on_caller_thread; /* the header: "on a background thread" */
    pthread_t caller;
};

static void done_init(struct done_record *r) {
    pthread_mutex_init(&r->mutex, NULL);
    pthread_cond_init(&r->cond, NULL);
    r->calls = 0;
    r->status = 1;
    r->on_caller_thread = 0;
    r->caller = pthread_self();
}

static void done_destroy(struct done_record *r) {
    pthread_cond_destroy(&r->cond);
    pthread_mutex_destroy(&r->mutex);
}

static void on_done(int status, void *payload) {
    struct done_record *r = payload;
    pthread_mutex_lock(&r->mutex);
    r->calls++;
    r->status = status;
    if (pthread_equal(pthread_self(), r->caller)) r->on_caller_thread = 1;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->mutex);
}

/* on_done has exactly the header's callback type (a conversion without a cast). */
static const quire_checkpoint_done_fn on_done_fn = on_done;

/* Waits until the callback was called `calls` times (up to WAIT_SECONDS); returns the count. */
static int done_wait(struct done_record *r, int calls) {
    struct timespec deadline;
    int n;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += WAIT_SECONDS;
    pthread_mutex_lock(&r->mutex);
    while (r->calls < calls)
        if (pthread_cond_timedwait(&r->cond, &r->mutex, &deadline) == ETIMEDOUT) break;
    n = r->calls;
    pthread_mutex_unlock(&r->mutex);
    return n;
}

static int done_calls(struct done_record *r) {
    int n;
    pthread_mutex_lock(&r->mutex);
    n = r->calls;
    pthread_mutex_unlock(&r->mutex);
    return n;
}

static int done_status(struct done_record *r) {
    int n;
    pthread_mutex_lock(&r->mutex);
    n = r->status;
    pthread_mutex_unlock(&r->mutex);
    return n;
}

/* ---- the tests ----------------------------------------------------------------------------- */

/* The two new status codes have strings of their own (the header: every code has one). */
static void test_checkpoint_status_strings(void) {
    const char *busy = quire_status_string(QUIRE_EBUSY);
    const char *stale = quire_status_string(QUIRE_ESTALE);
    CHECK_INT(QUIRE_EBUSY, -15);
    CHECK_INT(QUIRE_ESTALE, -16);
    CHECK(busy != NULL && busy[0] != '\0' && strcmp(busy, "unknown status") != 0);
    CHECK(stale != NULL && stale[0] != '\0' && strcmp(stale, "unknown status") != 0);
    CHECK(busy && stale && strcmp(busy, stale) != 0);
    CHECK(busy && strcmp(busy, quire_status_string(QUIRE_ESTATE)) != 0);
    CHECK_STR(quire_status_string(-21), "unknown status"); /* -19, -20: the sync client's */
}

/* Before checkpointing starts: the functions that need it give QUIRE_ESTATE (the header),
 * stopping is harmless, and a NULL document is QUIRE_EINVAL everywhere. */
static void test_checkpoint_before_start(void) {
    char path[4096];
    quire_document *doc;
    struct done_record rec;
    size_t len = 12345;
    char buf[16] = "untouched";
    int32_t loaded = -7;
    snprintf(path, sizeof path, "%s", fresh_copy(NULL, "before.pdf"));
    doc = open_path(path);
    if (!doc) return;
    done_init(&rec);
    CHECK_STATUS(quire_document_checkpoint(doc), QUIRE_ESTATE);
    CHECK_STATUS(quire_document_checkpoint_async(doc, on_done, &rec), QUIRE_ESTATE);
    CHECK_STATUS(quire_document_checkpoint_path(NULL, 0, &len, doc), QUIRE_ESTATE);
    CHECK_INT(len, 12345); /* failed: untouched */
    CHECK_STATUS(quire_document_checkpoint_path(buf, sizeof buf, &len, doc), QUIRE_ESTATE);
    CHECK_STR(buf, "untouched");
    CHECK_STATUS(quire_document_stop_checkpoints(doc, 0), QUIRE_OK);
    CHECK_STATUS(quire_document_stop_checkpoints(doc, 1), QUIRE_OK);

    CHECK_STATUS(quire_document_start_checkpoints(&loaded, NULL, NULL), QUIRE_EINVAL);
    CHECK_INT(loaded, -7);
    CHECK_STATUS(quire_document_stop_checkpoints(NULL, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_checkpoint(NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_checkpoint_async(NULL, on_done, &rec), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_checkpoint_path(NULL, 0, &len, NULL), QUIRE_EINVAL);
    sleep_ms(100);
    CHECK_INT(done_calls(&rec), 0); /* no call that failed calls back */
    quire_document_close(doc);
    done_destroy(&rec);
}

/* NULL options: the defaults (the header: manual, $XDG_STATE_HOME/quire/checkpoints, else
 * ~/.local/state/quire/checkpoints, the UID from the path). */
static void test_checkpoint_defaults(void) {
    char path[4096], state[256], home[256], expect[512], first[1024];
    quire_document *doc, *same, *other;
    int32_t loaded = -7;
    long long size;
    snprintf(path, sizeof path, "%s", fresh_copy(NULL, "defaults.pdf"));
    snprintf(state, sizeof state, "%s/state", g_dir);
    snprintf(home, sizeof home, "%s/home", g_dir);
    setenv("XDG_STATE_HOME", state, 1);
    setenv("HOME", home, 1);

    doc = open_path(path);
    if (!doc) return;
    CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, NULL), QUIRE_OK);
    CHECK_INT(loaded, 0);
    snprintf(first, sizeof first, "%s", checkpoint_path(doc));
    snprintf(expect, sizeof expect, "%s/quire/checkpoints/", state);
    report(starts_with(first, expect), __FILE__, __LINE__,
           "the default checkpoint path is \"%s\", expected it under %s", first, expect);
    CHECK(path_exists(first));
    /* Manual by default: a change is not written until quire_document_checkpoint. */
    size = file_size(first);
    CHECK(size > 0);
    if (add_note(doc, "default options")) {
        CHECK_INT(file_size(first), size);
        CHECK_STATUS(quire_document_checkpoint(doc), QUIRE_OK);
        CHECK(file_size(first) > size);
    }
    /* The UID comes from the path: the same file, opened again, is the same UID (busy); a
     * copy at another path is another one. */
    same = open_path(path);
    if (same) {
        loaded = -7;
        CHECK_STATUS(quire_document_start_checkpoints(&loaded, same, NULL), QUIRE_EBUSY);
        CHECK_INT(loaded, -7);
        quire_document_close(same);
    }
    other = open_path(fresh_copy(NULL, "defaults-other.pdf"));
    if (other) {
        CHECK_STATUS(quire_document_start_checkpoints(NULL, other, NULL), QUIRE_OK);
        report(strcmp(checkpoint_path(other), first) != 0 &&
                   starts_with(checkpoint_path(other), expect),
               __FILE__, __LINE__, "another path has another checkpoint file in the same place");
        CHECK_STATUS(quire_document_stop_checkpoints(other, 1), QUIRE_OK);
        quire_document_close(other);
    }
    CHECK_STATUS(quire_document_stop_checkpoints(doc, 1), QUIRE_OK);
    CHECK(!path_exists(first));
    quire_document_close(doc);

    /* Without $XDG_STATE_HOME: ~/.local/state/quire/checkpoints. */
    unsetenv("XDG_STATE_HOME");
    doc = open_path(path);
    if (doc) {
        const char *p;
        CHECK_STATUS(quire_document_start_checkpoints(NULL, doc, NULL), QUIRE_OK);
        p = checkpoint_path(doc);
        snprintf(expect, sizeof expect, "%s/.local/state/quire/checkpoints/", home);
        report(starts_with(p, expect), __FILE__, __LINE__,
               "without $XDG_STATE_HOME the checkpoint path is \"%s\", expected it under %s", p,
               expect);
        CHECK_STATUS(quire_document_stop_checkpoints(doc, 1), QUIRE_OK);
        quire_document_close(doc);
    }
    setenv("XDG_STATE_HOME", state, 1);
}

/* A document opened from memory has no path to derive a UID from (the header: QUIRE_EINVAL
 * without one); with one it works. */
static void test_checkpoint_memory_document(void) {
    size_t size = 0;
    unsigned char *data = read_file(QUIRE_SAMPLE_PDF, &size);
    quire_document *doc = NULL;
    quire_checkpoint_options o = options_for(QUIRE_CHECKPOINT_IMMEDIATE, NULL, 0);
    int32_t loaded = -7;
    char prefix[256];
    CHECK(data != NULL);
    if (!data) return;
    CHECK_STATUS(quire_document_open_memory(&doc, data, size, NULL), QUIRE_OK);
    if (doc) {
        CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, NULL), QUIRE_EINVAL);
        CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, &o), QUIRE_EINVAL);
        CHECK_INT(loaded, -7);
        CHECK_STATUS(quire_document_checkpoint(doc), QUIRE_ESTATE); /* did not start */
        o.uid = "memory-document";
        CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, &o), QUIRE_OK);
        CHECK_INT(loaded, 0);
        snprintf(prefix, sizeof prefix, "%s/", g_ckpt);
        report(starts_with(checkpoint_path(doc), prefix), __FILE__, __LINE__,
               "the checkpoint path \"%s\" is in the directory given", checkpoint_path(doc));
        CHECK(add_note(doc, "from memory"));
        CHECK_STATUS(quire_document_stop_checkpoints(doc, 0), QUIRE_OK);
        quire_document_close(doc);
        /* The same bytes from memory again, with the UID and loading: the note is back. */
        doc = NULL;
        CHECK_STATUS(quire_document_open_memory(&doc, data, size, NULL), QUIRE_OK);
        if (doc) {
            o.existing = QUIRE_CHECKPOINT_EXISTING_LOAD;
            CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, &o), QUIRE_OK);
            CHECK_INT(loaded, 1);
            CHECK_INT(notes_with(doc, "from memory"), 1);
            CHECK_STATUS(quire_document_stop_checkpoints(doc, 1), QUIRE_OK);
            quire_document_close(doc);
        }
    }
    free(data);
}

/* Invalid options (the header: QUIRE_EINVAL for an unknown version or strategy, an interval
 * out of 0.01 to 86400, a UID that is not a file name); the interval's bounds are valid;
 * starting twice is QUIRE_ESTATE. */
static void test_checkpoint_invalid_options(void) {
    char path[4096];
    quire_document *doc;
    quire_checkpoint_options o;
    static const char *const bad_uids[] = {"a/b", "", ".", "..", "/abs"};
    static const double bad_intervals[] = {0.0, 0.001, -1.0, 86400.5, 1e9};
    int32_t loaded = -7;
    size_t k;
    snprintf(path, sizeof path, "%s", fresh_copy(NULL, "invalid.pdf"));
    doc = open_path(path);
    if (!doc) return;
    o = options_for(QUIRE_CHECKPOINT_MANUAL, "invalid", 0);
    o.version = 0;
    CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, &o), QUIRE_EINVAL);
    o.version = QUIRE_CHECKPOINT_OPTIONS_VERSION + 1;
    CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, &o), QUIRE_EVERSION);
    /* Unknown strategies: numbers (3, -1; 0 to 2, the strategies' numbers before 0.5), the
     * one past the last, and constants of other families (their own ranges: the header). */
    {
        static const quire_checkpoint_strategy bad_strategies[] = {
            (quire_checkpoint_strategy)3,
            (quire_checkpoint_strategy)-1,
            (quire_checkpoint_strategy)0,
            (quire_checkpoint_strategy)1,
            (quire_checkpoint_strategy)2,
            (quire_checkpoint_strategy)(QUIRE_CHECKPOINT_IMMEDIATE + 1),
            (quire_checkpoint_strategy)QUIRE_CHECKPOINT_EXISTING_LOAD,
            (quire_checkpoint_strategy)QUIRE_CHECKPOINT_NONE,
            (quire_checkpoint_strategy)QUIRE_SAVE_INCREMENTAL};
        for (k = 0; k < sizeof bad_strategies / sizeof bad_strategies[0]; k++) {
            o = options_for(bad_strategies[k], "invalid", 0);
            report(quire_document_start_checkpoints(&loaded, doc, &o) == QUIRE_EINVAL, __FILE__,
                   __LINE__, "the strategy 0x%x is refused", (unsigned)bad_strategies[k]);
        }
    }
    for (k = 0; k < sizeof bad_intervals / sizeof bad_intervals[0]; k++) {
        o = options_for(QUIRE_CHECKPOINT_TIMED, "invalid", 0);
        o.interval_seconds = bad_intervals[k];
        report(quire_document_start_checkpoints(&loaded, doc, &o) == QUIRE_EINVAL, __FILE__,
               __LINE__, "a timed interval of %g s is refused", bad_intervals[k]);
    }
    o = options_for(QUIRE_CHECKPOINT_TIMED, "invalid", 0);
    o.interval_seconds = NAN;
    CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, &o), QUIRE_EINVAL);
    for (k = 0; k < sizeof bad_uids / sizeof bad_uids[0]; k++) {
        o = options_for(QUIRE_CHECKPOINT_MANUAL, bad_uids[k], 0);
        report(quire_document_start_checkpoints(&loaded, doc, &o) == QUIRE_EINVAL, __FILE__,
               __LINE__, "the UID \"%s\" is refused", bad_uids[k]);
    }
    CHECK_INT(loaded, -7);                                      /* every call failed: untouched */
    CHECK_STATUS(quire_document_checkpoint(doc), QUIRE_ESTATE); /* none started */

    /* The bounds of the interval are valid; starting again is QUIRE_ESTATE. */
    o = options_for(QUIRE_CHECKPOINT_TIMED, "invalid", 0);
    o.interval_seconds = 0.01;
    CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, &o), QUIRE_OK);
    CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, &o), QUIRE_ESTATE);
    CHECK_STATUS(quire_document_stop_checkpoints(doc, 1), QUIRE_OK);
    o.interval_seconds = 86400;
    CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, &o), QUIRE_OK);
    CHECK_STATUS(quire_document_stop_checkpoints(doc, 1), QUIRE_OK);
    quire_document_close(doc);
}

/* The immediate strategy: an annotation added and never saved survives closing the
 * document; a save puts it in the file, and the checkpoint then holds nothing to apply. */
static void test_checkpoint_immediate_recovery(void) {
    char path[4096], ckpt[1024];
    quire_document *doc;
    int32_t loaded = -7, before;
    snprintf(path, sizeof path, "%s", fresh_copy(NULL, "immediate.pdf"));
    doc = open_path(path);
    if (!doc) return;
    before = page0_count(doc); /* the file */
    CHECK(before >= 0);
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_IMMEDIATE, "immediate", 1, &loaded), QUIRE_OK);
    CHECK_INT(loaded, 0); /* nothing to load yet */
    snprintf(ckpt, sizeof ckpt, "%s", checkpoint_path(doc));
    if (!add_note(doc, "recovered note")) {
        quire_document_close(doc);
        return;
    }
    CHECK_INT(page0_count(doc), before + 1);
    quire_document_close(doc);                 /* "crash": closed without saving */
    CHECK(same_bytes(path, QUIRE_SAMPLE_PDF)); /* the PDF itself is untouched */
    CHECK(path_exists(ckpt));                  /* the checkpoint stays (the header) */

    doc = open_path(path);
    if (!doc) return;
    CHECK_INT(page0_count(doc), before);
    CHECK_INT(unsaved(doc), 0);
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_IMMEDIATE, "immediate", 1, &loaded), QUIRE_OK);
    CHECK_INT(loaded, 1);
    CHECK_INT(page0_count(doc), before + 1);
    CHECK_INT(notes_with(doc, "recovered note"), 1);
    CHECK_INT(unsaved(doc), 1); /* applied "as unsaved changes" */
    CHECK_STR(checkpoint_path(doc), ckpt);

    /* Saved: the changes are in the file; reopening and loading applies nothing. */
    CHECK_STATUS(quire_document_save(doc, NULL, path), QUIRE_OK);
    CHECK_INT(unsaved(doc), 0);
    quire_document_close(doc);
    doc = open_path(path);
    if (!doc) return;
    CHECK_INT(page0_count(doc), before + 1);
    CHECK_INT(notes_with(doc, "recovered note"), 1);
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_IMMEDIATE, "immediate", 1, &loaded), QUIRE_OK);
    CHECK_INT(loaded, 0);
    CHECK_INT(page0_count(doc), before + 1); /* not applied twice */
    CHECK_INT(notes_with(doc, "recovered note"), 1);
    CHECK_INT(unsaved(doc), 0);
    /* Stopping with remove deletes the checkpoint file. */
    CHECK(path_exists(ckpt));
    CHECK_STATUS(quire_document_stop_checkpoints(doc, 1), QUIRE_OK);
    CHECK(!path_exists(ckpt));
    CHECK_STATUS(quire_document_checkpoint(doc), QUIRE_ESTATE); /* stopped */
    quire_document_close(doc);
}

/* One open document per UID (the header: QUIRE_EBUSY); stopping or closing frees it. */
static void test_checkpoint_busy(void) {
    char path[4096];
    quire_document *a, *b;
    int32_t loaded = -7;
    snprintf(path, sizeof path, "%s", fresh_copy(NULL, "busy.pdf"));
    a = open_path(path);
    b = open_path(fresh_copy(NULL, "busy-other.pdf"));
    if (a && b) {
        CHECK_STATUS(start(a, QUIRE_CHECKPOINT_MANUAL, "busy", 0, &loaded), QUIRE_OK);
        CHECK_STATUS(start(b, QUIRE_CHECKPOINT_MANUAL, "busy", 0, &loaded), QUIRE_EBUSY);
        CHECK_INT(loaded, -7);
        CHECK_STATUS(start(b, QUIRE_CHECKPOINT_IMMEDIATE, "busy", 1, &loaded), QUIRE_EBUSY);
        CHECK_STATUS(quire_document_checkpoint(b), QUIRE_ESTATE); /* b did not start */
        CHECK_STATUS(start(b, QUIRE_CHECKPOINT_MANUAL, "busy-2", 0, &loaded), QUIRE_OK);
        CHECK_STATUS(quire_document_stop_checkpoints(b, 1), QUIRE_OK);
        /* After stopping, the UID is free. */
        CHECK_STATUS(quire_document_stop_checkpoints(a, 0), QUIRE_OK);
        CHECK_STATUS(start(b, QUIRE_CHECKPOINT_MANUAL, "busy", 0, &loaded), QUIRE_OK);
        CHECK_STATUS(start(a, QUIRE_CHECKPOINT_MANUAL, "busy", 0, &loaded), QUIRE_EBUSY);
        /* After closing, too. */
        quire_document_close(b);
        b = NULL;
        CHECK_STATUS(start(a, QUIRE_CHECKPOINT_MANUAL, "busy", 0, &loaded), QUIRE_OK);
        CHECK_STATUS(quire_document_stop_checkpoints(a, 1), QUIRE_OK);
    }
    quire_document_close(a);
    quire_document_close(b);
}

/* A checkpoint of another version of the file (the header: QUIRE_ESTALE, nothing applied,
 * checkpointing not started; starting without loading discards it). */
static void test_checkpoint_stale(void) {
    char path[4096], ckpt[1024];
    quire_document *doc, *other;
    int32_t loaded = -7, in_file;
    snprintf(path, sizeof path, "%s", fresh_copy(NULL, "stale.pdf"));
    doc = open_path(path);
    if (!doc) return;
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_MANUAL, "stale", 0, &loaded), QUIRE_OK);
    snprintf(ckpt, sizeof ckpt, "%s", checkpoint_path(doc));
    CHECK(add_note(doc, "stale note"));
    CHECK_STATUS(quire_document_checkpoint(doc), QUIRE_OK);
    quire_document_close(doc);

    /* Another document changes the file and saves it. */
    other = open_path(path);
    if (!other) return;
    CHECK(add_note(other, "saved by another document"));
    CHECK_STATUS(quire_document_save(other, NULL, path), QUIRE_OK);
    in_file = page0_count(other);
    quire_document_close(other);

    doc = open_path(path);
    if (!doc) return;
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_MANUAL, "stale", 1, &loaded), QUIRE_ESTALE);
    CHECK_INT(loaded, -7);
    CHECK_INT(page0_count(doc), in_file); /* nothing applied */
    CHECK_INT(notes_with(doc, "stale note"), 0);
    CHECK_INT(notes_with(doc, "saved by another document"), 1);
    CHECK_INT(unsaved(doc), 0);
    CHECK_STATUS(quire_document_checkpoint(doc), QUIRE_ESTATE); /* did not start */
    CHECK(path_exists(ckpt)); /* kept, for a start without loading to discard */
    /* Inspected, it is stale (the header: QUIRE_CHECKPOINT_STALE). */
    CHECK_INT(inspect_state(doc, "stale"), QUIRE_CHECKPOINT_STALE);
    /* Starting without loading discards it: afterwards loading finds nothing stale. */
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_MANUAL, "stale", 0, &loaded), QUIRE_OK);
    CHECK_INT(loaded, 0);
    CHECK_INT(page0_count(doc), in_file);
    CHECK_STATUS(quire_document_stop_checkpoints(doc, 0), QUIRE_OK);
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_MANUAL, "stale", 1, &loaded), QUIRE_OK);
    CHECK_INT(loaded, 0);
    CHECK_INT(notes_with(doc, "stale note"), 0);
    CHECK_STATUS(quire_document_stop_checkpoints(doc, 1), QUIRE_OK);
    quire_document_close(doc);
}

/* Changes made before checkpointing started are unsaved changes too (the header: "keeping
 * checkpoints of the document's unsaved changes"): they are recovered. */
static void test_checkpoint_changes_before_start(void) {
    char path[4096];
    quire_document *doc;
    int32_t loaded = -7;
    snprintf(path, sizeof path, "%s", fresh_copy(NULL, "before-start.pdf"));
    doc = open_path(path);
    if (!doc) return;
    CHECK(add_note(doc, "made before starting"));
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_IMMEDIATE, "before-start", 0, &loaded), QUIRE_OK);
    CHECK(add_note(doc, "made after starting"));
    quire_document_close(doc);
    doc = open_path(path);
    if (!doc) return;
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_IMMEDIATE, "before-start", 1, &loaded), QUIRE_OK);
    CHECK_INT(loaded, 1);
    CHECK_INT(notes_with(doc, "made before starting"), 1);
    CHECK_INT(notes_with(doc, "made after starting"), 1);
    CHECK_STATUS(quire_document_stop_checkpoints(doc, 1), QUIRE_OK);
    quire_document_close(doc);
}

/* A damaged checkpoint (the header: "recovery drops a torn last record or an unfinished
 * group"; QUIRE_EFORMAT for a file that is not a checkpoint). */
static void test_checkpoint_damaged(void) {
    char path[4096], ckpt[1024];
    quire_document *doc;
    int32_t loaded = -7;
    long long after_first, after_second;
    FILE *f;
    snprintf(path, sizeof path, "%s", fresh_copy(NULL, "damaged.pdf"));
    doc = open_path(path);
    if (!doc) return;
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_IMMEDIATE, "damaged", 0, &loaded), QUIRE_OK);
    snprintf(ckpt, sizeof ckpt, "%s", checkpoint_path(doc));
    CHECK(add_note(doc, "first group"));
    after_first = file_size(ckpt);
    CHECK(add_note(doc, "second group"));
    after_second = file_size(ckpt);
    CHECK(after_second > after_first && after_first > 0);
    quire_document_close(doc);

    /* The second operation's group torn (its last 3 bytes lost): only the first applies,
     * and the journal goes on from there. */
    CHECK(after_second > 3 && truncate(ckpt, (off_t)(after_second - 3)) == 0);
    doc = open_path(path);
    if (!doc) return;
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_IMMEDIATE, "damaged", 1, &loaded), QUIRE_OK);
    CHECK_INT(loaded, 1);
    CHECK_INT(notes_with(doc, "first group"), 1);
    CHECK_INT(notes_with(doc, "second group"), 0);
    CHECK(add_note(doc, "third group"));
    quire_document_close(doc);

    /* Garbage after the last record: ignored. */
    f = fopen(ckpt, "ab");
    CHECK(f != NULL);
    if (f) {
        fputs("\x07 not a record \xff\xfe", f);
        fclose(f);
    }
    doc = open_path(path);
    if (!doc) return;
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_IMMEDIATE, "damaged", 1, &loaded), QUIRE_OK);
    CHECK_INT(loaded, 1);
    CHECK_INT(notes_with(doc, "first group"), 1);
    CHECK_INT(notes_with(doc, "second group"), 0);
    CHECK_INT(notes_with(doc, "third group"), 1);
    CHECK_STATUS(quire_document_stop_checkpoints(doc, 0), QUIRE_OK);
    quire_document_close(doc);

    /* Not a checkpoint at all: QUIRE_EFORMAT, nothing applied, not started; starting
     * without loading replaces it. */
    f = fopen(ckpt, "wb");
    CHECK(f != NULL);
    if (f) {
        fputs("not a checkpoint\n", f);
        fclose(f);
    }
    doc = open_path(path);
    if (!doc) return;
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_IMMEDIATE, "damaged", 1, &loaded), QUIRE_EFORMAT);
    CHECK_INT(loaded, -7);
    CHECK_INT(unsaved(doc), 0);
    CHECK_STATUS(quire_document_checkpoint(doc), QUIRE_ESTATE);
    /* Inspected, it is damaged (the header: QUIRE_CHECKPOINT_DAMAGED). */
    CHECK_INT(inspect_state(doc, "damaged"), QUIRE_CHECKPOINT_DAMAGED);
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_IMMEDIATE, "damaged", 0, &loaded), QUIRE_OK);
    CHECK_STATUS(quire_document_stop_checkpoints(doc, 0), QUIRE_OK);
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_IMMEDIATE, "damaged", 1, &loaded), QUIRE_OK);
    CHECK_INT(loaded, 0);
    CHECK_STATUS(quire_document_stop_checkpoints(doc, 1), QUIRE_OK);
    quire_document_close(doc);
}

/* The manual strategy: nothing is written until quire_document_checkpoint, which "waits
 * until it is on disk". */
static void test_checkpoint_manual(void) {
    char path[4096], ckpt[1024];
    quire_document *doc;
    int32_t loaded = -7;
    long long size0, size1;
    snprintf(path, sizeof path, "%s", fresh_copy(NULL, "manual.pdf"));
    doc = open_path(path);
    if (!doc) return;
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_MANUAL, "manual", 0, &loaded), QUIRE_OK);
    CHECK_INT(loaded, 0);
    snprintf(ckpt, sizeof ckpt, "%s", checkpoint_path(doc));
    size0 = file_size(ckpt);
    CHECK(size0 > 0);
    CHECK(add_note(doc, "manual note"));
    sleep_ms(200); /* nothing in the background writes it either */
    CHECK_INT(file_size(ckpt), size0);
    CHECK_STATUS(quire_document_checkpoint(doc), QUIRE_OK);
    size1 = file_size(ckpt);
    CHECK(size1 > size0);
    CHECK_STATUS(quire_document_checkpoint(doc), QUIRE_OK); /* nothing new: nothing written */
    CHECK_INT(file_size(ckpt), size1);
    quire_document_close(doc);

    doc = open_path(path);
    if (!doc) return;
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_MANUAL, "manual", 1, &loaded), QUIRE_OK);
    CHECK_INT(loaded, 1);
    CHECK_INT(notes_with(doc, "manual note"), 1);
    CHECK_STATUS(quire_document_stop_checkpoints(doc, 1), QUIRE_OK);
    CHECK(!path_exists(ckpt));
    quire_document_close(doc);
}

/* The timed strategy writes on a background thread, every interval; closing the document
 * writes what is pending first (the header). */
static void test_checkpoint_timed(void) {
    char path[4096], ckpt[1024];
    quire_document *doc;
    quire_checkpoint_options o = options_for(QUIRE_CHECKPOINT_TIMED, "timed", 0);
    int32_t loaded = -7;
    long long size0;
    int waited;
    snprintf(path, sizeof path, "%s", fresh_copy(NULL, "timed.pdf"));
    doc = open_path(path);
    if (!doc) return;
    o.interval_seconds = 0.05;
    CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, &o), QUIRE_OK);
    snprintf(ckpt, sizeof ckpt, "%s", checkpoint_path(doc));
    size0 = file_size(ckpt);
    CHECK(add_note(doc, "timed note 1"));
    for (waited = 0; waited < WAIT_SECONDS * 50 && file_size(ckpt) <= size0; waited++) sleep_ms(20);
    report(file_size(ckpt) > size0, __FILE__, __LINE__, "the timer wrote the change within %d s",
           WAIT_SECONDS);
    quire_document_close(doc);

    /* A day's interval: a change is not written by the timer, but closing writes it. */
    doc = open_path(path);
    if (!doc) return;
    o.interval_seconds = 86400;
    o.existing = QUIRE_CHECKPOINT_EXISTING_LOAD;
    CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, &o), QUIRE_OK);
    CHECK_INT(loaded, 1);
    CHECK_INT(notes_with(doc, "timed note 1"), 1);
    size0 = file_size(ckpt);
    CHECK(add_note(doc, "timed note 2"));
    sleep_ms(200);
    CHECK_INT(file_size(ckpt), size0);
    quire_document_close(doc);
    CHECK(file_size(ckpt) > size0);

    doc = open_path(path);
    if (!doc) return;
    CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, &o), QUIRE_OK);
    CHECK_INT(loaded, 1);
    CHECK_INT(notes_with(doc, "timed note 1"), 1);
    CHECK_INT(notes_with(doc, "timed note 2"), 1);
    CHECK_STATUS(quire_document_stop_checkpoints(doc, 1), QUIRE_OK);
    quire_document_close(doc);
}

/* quire_document_checkpoint_async: `done` is called once, on a background thread, with
 * QUIRE_OK, when the checkpoint is on disk. */
static void test_checkpoint_async(void) {
    char path[4096], ckpt[1024];
    quire_document *doc;
    struct done_record rec;
    int32_t loaded = -7;
    long long size0;
    snprintf(path, sizeof path, "%s", fresh_copy(NULL, "async.pdf"));
    doc = open_path(path);
    if (!doc) return;
    done_init(&rec);
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_MANUAL, "async", 0, &loaded), QUIRE_OK);
    snprintf(ckpt, sizeof ckpt, "%s", checkpoint_path(doc));
    size0 = file_size(ckpt);
    CHECK(add_note(doc, "async note"));
    CHECK_STATUS(quire_document_checkpoint_async(doc, on_done_fn, &rec), QUIRE_OK);
    CHECK_INT(done_wait(&rec, 1), 1);
    CHECK_INT(done_status(&rec), QUIRE_OK);
    CHECK(file_size(ckpt) > size0); /* on disk when `done` is called */
    sleep_ms(200);
    CHECK_INT(done_calls(&rec), 1); /* once */
    /* With nothing new, and without a callback. */
    CHECK_STATUS(quire_document_checkpoint_async(doc, on_done, &rec), QUIRE_OK);
    CHECK_INT(done_wait(&rec, 2), 2);
    CHECK_INT(done_status(&rec), QUIRE_OK);
    CHECK(add_note(doc, "async note 2"));
    CHECK_STATUS(quire_document_checkpoint_async(doc, NULL, NULL), QUIRE_OK);
    CHECK_STATUS(quire_document_checkpoint(doc), QUIRE_OK); /* and all is on disk */
    quire_document_close(doc);
    sleep_ms(100);
    CHECK_INT(done_calls(&rec), 2);
    pthread_mutex_lock(&rec.mutex);
    CHECK_INT(rec.on_caller_thread, 0); /* both on a background thread */
    pthread_mutex_unlock(&rec.mutex);
    done_destroy(&rec);

    doc = open_path(path);
    if (!doc) return;
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_MANUAL, "async", 1, &loaded), QUIRE_OK);
    CHECK_INT(loaded, 1);
    CHECK_INT(notes_with(doc, "async note"), 1);
    CHECK_INT(notes_with(doc, "async note 2"), 1);
    CHECK_STATUS(quire_document_stop_checkpoints(doc, 1), QUIRE_OK);
    quire_document_close(doc);
}

/* quire_document_checkpoint_path through the length-query pattern (the header). */
static void test_checkpoint_path_query(void) {
    char path[4096], buf[1024], prefix[256];
    quire_document *doc;
    int32_t loaded = -7;
    size_t len = 0, len2 = 0;
    snprintf(path, sizeof path, "%s", fresh_copy(NULL, "path.pdf"));
    doc = open_path(path);
    if (!doc) return;
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_MANUAL, "path-query", 0, &loaded), QUIRE_OK);
    CHECK_STATUS(quire_document_checkpoint_path(NULL, 0, &len, doc), QUIRE_OK);
    CHECK(len > 0 && len < sizeof buf);
    if (len > 0 && len < sizeof buf) {
        memset(buf, 'x', sizeof buf);
        CHECK_STATUS(quire_document_checkpoint_path(buf, len, &len2, doc), QUIRE_EBUFS);
        CHECK_INT(len2, len);
        CHECK(buf[0] == 'x' && buf[len - 1] == 'x'); /* untouched */
        CHECK_STATUS(quire_document_checkpoint_path(buf, 1, &len2, doc), QUIRE_EBUFS);
        CHECK(buf[0] == 'x');
        len2 = 0;
        CHECK_STATUS(quire_document_checkpoint_path(buf, len + 1, &len2, doc), QUIRE_OK);
        CHECK_INT(len2, len);
        CHECK(buf[len] == '\0' && buf[len + 1] == 'x');
        CHECK_INT(strlen(buf), len);
        snprintf(prefix, sizeof prefix, "%s/", g_ckpt);
        report(starts_with(buf, prefix), __FILE__, __LINE__,
               "the checkpoint path \"%s\" is in the directory given", buf);
        CHECK(path_exists(buf));
    }
    CHECK_STATUS(quire_document_checkpoint_path(buf, sizeof buf, NULL, doc), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_checkpoint_path(NULL, 5, &len, doc), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_stop_checkpoints(doc, 1), QUIRE_OK);
    CHECK_STATUS(quire_document_checkpoint_path(NULL, 0, &len, doc), QUIRE_ESTATE);
    quire_document_close(doc);
}

/* An encrypted document: recovery works, and the checkpoint does not hold the annotation's
 * text in the clear (the header: records sealed with AES-256-GCM). */
/* A crash with unsaved changes (a note added, another added and deleted: the deletion
 * record that once made every checkpoint unloadable), then starting with every strategy and
 * every `existing` choice, and with a version 1 struct: the header says that only
 * QUIRE_CHECKPOINT_EXISTING_DISCARD loses the checkpoint. */
static void crash_with_unsaved_changes(const char *path, const char *uid) {
    quire_document *doc = open_path(path);
    quire_annotation *last = NULL;
    int32_t loaded = -7, number = -1;
    if (!doc) return;
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_IMMEDIATE, uid, 0, &loaded), QUIRE_OK);
    CHECK(add_note(doc, "unsaved note"));
    CHECK(add_note(doc, "deleted note"));
    CHECK_STATUS(quire_page_annotation(&last, doc, 0, page0_count(doc) - 1), QUIRE_OK);
    CHECK_STATUS(quire_annotation_id(&number, last), QUIRE_OK);
    quire_annotation_free(last);
    CHECK_STATUS(quire_document_delete_annotation(doc, number), QUIRE_OK);
    quire_document_close(doc); /* unsaved: the checkpoint stays */
}

static void test_checkpoint_existing(void) {
    static const quire_checkpoint_strategy strategies[] = {
        QUIRE_CHECKPOINT_MANUAL, QUIRE_CHECKPOINT_TIMED, QUIRE_CHECKPOINT_IMMEDIATE};
    static const quire_checkpoint_existing choices[] = {QUIRE_CHECKPOINT_EXISTING_LOAD,
                                                        QUIRE_CHECKPOINT_EXISTING_REFUSE,
                                                        QUIRE_CHECKPOINT_EXISTING_DISCARD};
    char path[4096];
    size_t s, c;
    int v1;
    snprintf(path, sizeof path, "%s", fresh_copy(NULL, "existing.pdf"));
    for (s = 0; s < 3; s++) {
        for (c = 0; c < 4; c++) {
            quire_document *doc;
            quire_checkpoint_options o = options_for(strategies[s], "existing", 0);
            int32_t loaded = -7;
            int expect;
            crash_with_unsaved_changes(path, "existing");
            doc = open_path(path);
            if (!doc) return;
            CHECK_INT(inspect_state(doc, "existing"), QUIRE_CHECKPOINT_CHANGES);
            v1 = c == 3;
            if (v1) { /* a version 1 caller that left load_if_available at 0 */
                o.version = 1;
                o.load_if_available = 0;
                o.existing = QUIRE_CHECKPOINT_EXISTING_DISCARD; /* not read: version 1 */
                expect = QUIRE_EEXIST;
            } else {
                o.existing = choices[c];
                expect = choices[c] == QUIRE_CHECKPOINT_EXISTING_REFUSE ? QUIRE_EEXIST : QUIRE_OK;
            }
            CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, &o), expect);
            if (expect == QUIRE_OK) {
                CHECK_INT(loaded, choices[c] == QUIRE_CHECKPOINT_EXISTING_LOAD ? 1 : 0);
                CHECK_INT(notes_with(doc, "unsaved note"),
                          choices[c] == QUIRE_CHECKPOINT_EXISTING_LOAD);
            } else {
                CHECK_INT(loaded, -7);
                CHECK_INT(unsaved(doc), 0);
                CHECK_STATUS(quire_document_checkpoint(doc), QUIRE_ESTATE); /* not started */
            }
            CHECK_STATUS(quire_document_stop_checkpoints(doc, 0), QUIRE_OK);
            CHECK_INT(inspect_state(doc, "existing"),
                      !v1 && choices[c] == QUIRE_CHECKPOINT_EXISTING_DISCARD
                          ? QUIRE_CHECKPOINT_EMPTY
                          : QUIRE_CHECKPOINT_CHANGES);
            quire_document_close(doc);
            /* Start afresh for the next combination. */
            doc = open_path(path);
            if (!doc) return;
            o = options_for(QUIRE_CHECKPOINT_MANUAL, "existing", 0);
            CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, &o), QUIRE_OK);
            CHECK_STATUS(quire_document_stop_checkpoints(doc, 1), QUIRE_OK);
            quire_document_close(doc);
        }
    }
    { /* A version 1 caller that asked for loading gets it. */
        quire_document *doc;
        quire_checkpoint_options o = options_for(QUIRE_CHECKPOINT_MANUAL, "existing", 1);
        int32_t loaded = -7;
        crash_with_unsaved_changes(path, "existing");
        doc = open_path(path);
        if (!doc) return;
        o.version = 1;
        o.load_if_available = 1;
        o.existing = QUIRE_CHECKPOINT_EXISTING_DISCARD;
        CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, &o), QUIRE_OK);
        CHECK_INT(loaded, 1);
        CHECK_INT(notes_with(doc, "unsaved note"), 1);
        CHECK_INT(notes_with(doc, "deleted note"), 0);
        CHECK_STATUS(quire_document_stop_checkpoints(doc, 1), QUIRE_OK);
        quire_document_close(doc);
    }
    { /* An unknown choice is refused before anything happens. */
        quire_document *doc = open_path(path);
        quire_checkpoint_options o = options_for(QUIRE_CHECKPOINT_MANUAL, "existing", 0);
        int32_t loaded = -7;
        if (!doc) return;
        o.existing = (quire_checkpoint_existing)0x0E03;
        CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, &o), QUIRE_EINVAL);
        o.existing = (quire_checkpoint_existing)0;
        CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, &o), QUIRE_EINVAL);
        /* Constants of other families (their own ranges: the header). */
        o.existing = (quire_checkpoint_existing)QUIRE_CHECKPOINT_MANUAL;
        CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, &o), QUIRE_EINVAL);
        o.existing = (quire_checkpoint_existing)QUIRE_CHECKPOINT_CHANGES;
        CHECK_STATUS(quire_document_start_checkpoints(&loaded, doc, &o), QUIRE_EINVAL);
        CHECK_INT(loaded, -7);
        quire_document_close(doc);
    }
}

/* quire_document_inspect_checkpoint: what is there, without changing it (the header). */
static void test_checkpoint_inspect(void) {
    char path[4096], ckpt[1024];
    quire_document *doc, *holder;
    quire_checkpoint_options o = options_for(QUIRE_CHECKPOINT_MANUAL, "inspect", 0);
    quire_checkpoint_info info = QUIRE_CHECKPOINT_INFO_INIT;
    struct stat before, after;
    int32_t loaded;
    snprintf(path, sizeof path, "%s", fresh_copy(NULL, "inspect.pdf"));
    doc = open_path(path);
    if (!doc) return;
    CHECK_STATUS(quire_document_inspect_checkpoint(&info, doc, &o), QUIRE_OK);
    CHECK_INT(info.state, QUIRE_CHECKPOINT_NONE);
    CHECK(info.size == 0 && info.changed_objects == 0 && info.in_use == 0);
    CHECK_STATUS(quire_document_inspect_checkpoint(NULL, doc, &o), QUIRE_EINVAL);
    CHECK_STATUS(quire_document_inspect_checkpoint(&info, NULL, &o), QUIRE_EINVAL);
    info.version = 0;
    CHECK_STATUS(quire_document_inspect_checkpoint(&info, doc, &o), QUIRE_EINVAL);
    info.version = QUIRE_CHECKPOINT_INFO_VERSION + 1;
    CHECK_STATUS(quire_document_inspect_checkpoint(&info, doc, &o), QUIRE_EVERSION);
    quire_document_close(doc);

    crash_with_unsaved_changes(path, "inspect");
    holder = open_path(path);
    doc = open_path(path);
    if (!doc || !holder) return;
    info.version = QUIRE_CHECKPOINT_INFO_VERSION;
    CHECK_STATUS(quire_document_inspect_checkpoint(&info, doc, &o), QUIRE_OK);
    CHECK_INT(info.state, QUIRE_CHECKPOINT_CHANGES);
    CHECK(info.changed_objects >= 2); /* the note (and its page's /Annots) */
    CHECK(info.in_use == 0);
    {
        /* The checkpoint's mtime, in seconds since 1970 (its values said: this failed once
           under load in make test, and never alone). */
        double now = (double)time(NULL);
        report(info.modified > 1.7e9 && info.modified <= now + 1, __FILE__, __LINE__,
               "info.modified %.3f, time(NULL) %.0f", info.modified, now);
    }
    snprintf(ckpt, sizeof ckpt, "%s/inspect.qcheckpoint", g_ckpt);
    CHECK(stat(ckpt, &before) == 0 && (uint64_t)before.st_size == info.size);
    CHECK_INT(unsaved(doc), 0); /* nothing applied */
    /* Held by another open document: in use. */
    o.existing = QUIRE_CHECKPOINT_EXISTING_LOAD;
    CHECK_STATUS(quire_document_start_checkpoints(&loaded, holder, &o), QUIRE_OK);
    CHECK_STATUS(quire_document_inspect_checkpoint(&info, doc, &o), QUIRE_OK);
    CHECK(info.in_use == 1 && info.state == QUIRE_CHECKPOINT_CHANGES);
    CHECK(stat(ckpt, &after) == 0 && after.st_size == before.st_size);
    CHECK_STATUS(quire_document_stop_checkpoints(holder, 1), QUIRE_OK);
    quire_document_close(holder);
    quire_document_close(doc);
}

static void test_checkpoint_encrypted(void) {
    char path[4096], ckpt[1024];
    quire_document *doc;
    int32_t loaded = -7;
    static const char secret[] = "a secret note 7c1d0e";
    snprintf(path, sizeof path, "%s", fresh_copy(AES_PDF, "aes.pdf"));
    doc = open_path(path);
    if (!doc) return;
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_IMMEDIATE, "encrypted", 0, &loaded), QUIRE_OK);
    snprintf(ckpt, sizeof ckpt, "%s", checkpoint_path(doc));
    CHECK(add_note(doc, secret));
    quire_document_close(doc);
    CHECK(path_exists(ckpt));
    CHECK(!file_contains(ckpt, secret));
    CHECK(!file_contains(ckpt, "7c1d0e"));

    doc = open_path(path);
    if (!doc) return;
    CHECK_STATUS(start(doc, QUIRE_CHECKPOINT_IMMEDIATE, "encrypted", 1, &loaded), QUIRE_OK);
    CHECK_INT(loaded, 1);
    CHECK_INT(notes_with(doc, secret), 1);
    CHECK_STATUS(quire_document_stop_checkpoints(doc, 1), QUIRE_OK);
    quire_document_close(doc);
}

/* The environment these tests change, kept to be put back, and the real default directory
 * (the header's), which must not change. */
static char *g_old_state, *g_old_home;
static char g_real_default[1024];
static int g_real_before;

/* The default directory is in the temporary directory for as long as these tests run. */
static int checkpoints_setup(void) {
    const char *dir = make_temp_dir();
    char *old_state = getenv("XDG_STATE_HOME"), *old_home = getenv("HOME");
    char state[256];
    if (!dir) return 1;
    if (old_state && old_state[0])
        snprintf(g_real_default, sizeof g_real_default, "%s/quire/checkpoints", old_state);
    else
        snprintf(g_real_default, sizeof g_real_default, "%s/.local/state/quire/checkpoints",
                 old_home ? old_home : ".");
    g_real_before = count_dir_entries(g_real_default);
    /* Copies: setenv may invalidate what getenv returned. */
    g_old_state = old_state ? strdup(old_state) : NULL;
    g_old_home = old_home ? strdup(old_home) : NULL;
    snprintf(g_dir, sizeof g_dir, "%s", dir);
    snprintf(g_ckpt, sizeof g_ckpt, "%s/checkpoints", g_dir);
    snprintf(state, sizeof state, "%s/state", g_dir);
    setenv("XDG_STATE_HOME", state, 1);
    setenv("HOME", join_path(g_dir, "home"), 1);
    return 0;
}

static void checkpoints_teardown(void) {
    if (g_old_state)
        setenv("XDG_STATE_HOME", g_old_state, 1);
    else
        unsetenv("XDG_STATE_HOME");
    if (g_old_home)
        setenv("HOME", g_old_home, 1);
    else
        unsetenv("HOME");
    free(g_old_state);
    free(g_old_home);
    g_old_state = g_old_home = NULL;
    test_step("the real default directory");
    report(count_dir_entries(g_real_default) == g_real_before, __FILE__, __LINE__,
           "%s had %d entries before these tests and has %d after", g_real_default, g_real_before,
           count_dir_entries(g_real_default));
    remove_temp_dir(g_dir);
}

static const struct test_case checkpoints_tests[] = {
    {"status_strings", test_checkpoint_status_strings},
    {"before_start", test_checkpoint_before_start},
    {"defaults", test_checkpoint_defaults},
    {"memory_document", test_checkpoint_memory_document},
    {"invalid_options", test_checkpoint_invalid_options},
    {"immediate_recovery", test_checkpoint_immediate_recovery},
    {"busy", test_checkpoint_busy},
    {"stale", test_checkpoint_stale},
    {"changes_before_start", test_checkpoint_changes_before_start},
    {"damaged", test_checkpoint_damaged},
    {"manual", test_checkpoint_manual},
    {"timed", test_checkpoint_timed},
    {"async", test_checkpoint_async},
    {"path_query", test_checkpoint_path_query},
    {"encrypted", test_checkpoint_encrypted},
    {"existing", test_checkpoint_existing},
    {"inspect", test_checkpoint_inspect},
    {NULL, NULL}};

const struct test_suite checkpoints_suite = {"checkpoints", checkpoints_setup, checkpoints_teardown,
                                             checkpoints_tests};
