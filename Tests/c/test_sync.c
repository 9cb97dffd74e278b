/*
 * test_sync.c: the 0.5 interface of include/quire.h, "Sync service: the request handler":
 * opening a service (an in-memory store, a SQLite file; bad configs, versions, stores and
 * keys), handling requests of docs/sync-protocol.md through quire_sync_service_handle (the
 * health check, the admin API with its token, the client API with and without a valid JWT,
 * the change feed and its long poll, the limits), the response getters, NULL arguments,
 * several threads on one service, and a shutdown while a long poll waits.
 *
 * The client API needs JWTs: sync_fixtures.py (run by the Makefile before test_api) makes an
 * ES256 key pair and tokens at each run and writes the public key and the tokens into a
 * directory that test_api gets as its second argument (g_sync_fixtures). Without it the
 * tests of the client API fail, saying so: they are not skipped.
 *
 * Linked into out/test_api with the other test files (test_support.h has the framework).
 * Every expected value comes from:
 *  - "the header": include/quire.h, the contract (statuses, defaults, ownership);
 *  - "the protocol": docs/sync-protocol.md (routes, statuses, error codes, the bodies'
 *    shapes, X-Request-Id on every response, the 8 MiB default body limit);
 *  - "the file": examples/sample.pdf as the library reads it (its pages, its annotations
 *    and their annotation JSON, through the document functions), and its bytes;
 *  - "the fixtures": what sync_fixtures.py wrote (doc1, layer main, the permissions).
 */
#define _POSIX_C_SOURCE 200809L

#include "test_support.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#ifndef QUIRE_SAMPLE_PDF /* the Makefile passes $(ROOT)/examples/sample.pdf */
#define QUIRE_SAMPLE_PDF "../../examples/sample.pdf"
#endif

/* Regression switches of three library bugs, fixed in 0.5 (all 0: the header's behaviour is
 * required; 1 would note the old status on stderr instead of counting it):
 * - STORE_STATUS: a store that cannot be opened (a missing directory, a directory) and a file
 *   that is not a SQLite database both gave QUIRE_EINVAL; the header says QUIRE_EIO and
 *   QUIRE_EFORMAT (SyncStoreError.kind, mapped in Sources/Quire/Sync.swift).
 * - FOREIGN_STORE: another program's SQLite database (tables of its own, user_version 0) was
 *   opened as a store and Quire's tables created in it; now QUIRE_EFORMAT (migrate() requires
 *   an empty database at version 0, and Quire's application_id).
 * - CLOSE_LATE: quire_sync_service_close returned before the SQLite file was closed (the last
 *   reference, and sqlite3_close_v2, went on a pool thread later); now it closes the store
 *   before returning, and the tests require the WAL file gone when it returns. (A race: a
 *   run that never saw the old behaviour could not fail on it either.) */
#define KNOWN_BUG_SYNC_STORE_STATUS 0
#define KNOWN_BUG_SYNC_FOREIGN_STORE 0
#define KNOWN_BUG_SYNC_CLOSE_LATE 0

#define ADMIN_TOKEN "c-tests-admin"
#define ADMIN "Token " ADMIN_TOKEN
#define LAYER_PATH "/documents/doc1/layers/main" /* the fixtures' tokens: doc1, main */
#define DEFAULT_MAX_BODY (8u * 1024u * 1024u)    /* the protocol: bodies up to 8 MiB */
#define LONG_POLL_WAIT 30                        /* seconds: the long polls' `wait` */
#define WORKERS 4
#define WORKER_REQUESTS 50

const char *g_sync_fixtures;

static char g_sdir[64];      /* this file's temporary directory */
static unsigned char *g_pdf; /* examples/sample.pdf */
static size_t g_pdf_size;
static int32_t g_pdf_pages = -1; /* the file: its pages and annotations (the library) */
static int32_t g_pdf_annots = -1;
static char *g_pdf_json; /* its annotation JSON, compacted */
static char *g_key;      /* the fixtures' public key (PEM) */
/* "Bearer <token>" for each of the fixtures' tokens (NULL without the fixtures). */
static char *g_bearer, *g_bearer_read, *g_bearer_other_layer, *g_bearer_expired,
    *g_bearer_unknown_key;

/* ---- helpers ------------------------------------------------------------------------------- */

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void sleep_seconds(double s) {
    struct timespec t;
    t.tv_sec = (time_t)s;
    t.tv_nsec = (long)((s - (double)t.tv_sec) * 1e9);
    nanosleep(&t, NULL);
}

/* A file of the fixtures, its trailing white space dropped (malloc'd), or NULL. */
static char *fixture(const char *name) {
    size_t n = 0;
    char *text;
    if (!g_sync_fixtures) return NULL;
    text = (char *)read_file(join_path(g_sync_fixtures, name), &n);
    if (!text) return NULL;
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' ')) n--;
    text[n] = '\0';
    return text;
}

static char *bearer_of(const char *name) {
    char *token = fixture(name), *header;
    if (!token) return NULL;
    header = malloc(strlen(token) + 8);
    if (header) sprintf(header, "Bearer %s", token);
    free(token);
    return header;
}

/* `n` bytes of JSON without the white space between its tokens (strings kept as they are),
 * malloc'd: the layer's annotation JSON is compact, the document export pretty-printed. */
static char *json_compact(const char *s, size_t n) {
    char *out = malloc(n + 1);
    size_t i, k = 0;
    int in_string = 0;
    if (!out) return NULL;
    for (i = 0; i < n; i++) {
        char ch = s[i];
        if (in_string) {
            out[k++] = ch;
            if (ch == '\\' && i + 1 < n)
                out[k++] = s[++i];
            else if (ch == '"')
                in_string = 0;
        } else if (ch == '"') {
            in_string = 1;
            out[k++] = ch;
        } else if (ch != ' ' && ch != '\n' && ch != '\r' && ch != '\t') {
            out[k++] = ch;
        }
    }
    out[k] = '\0';
    return out;
}

/* Removes the member `,"name":[...]` from compacted JSON, in place (strings inside the array
 * are skipped whole). A layer holds annotation records only: the server's export of a layer
 * has no formFieldValues, which the library's whole-document export has (issue 23). */
static void json_drop_array_member(char *json, const char *name) {
    char key[64];
    char *at, *p;
    int depth = 0, in_string = 0;
    snprintf(key, sizeof key, ",\"%s\":[", name);
    if (!json || (at = strstr(json, key)) == NULL) return;
    for (p = at + strlen(key) - 1; *p; p++) {
        if (in_string) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                in_string = 0;
        } else if (*p == '"') {
            in_string = 1;
        } else if (*p == '[' || *p == '{') {
            depth++;
        } else if ((*p == ']' || *p == '}') && --depth == 0) {
            memmove(at, p + 1, strlen(p + 1) + 1);
            return;
        }
    }
}

static int count_of(const char *hay, const char *needle) {
    int n = 0;
    size_t len = strlen(needle);
    while (hay && (hay = strstr(hay, needle)) != NULL) {
        n++;
        hay += len;
    }
    return n;
}

/* The integer after the first `"key":` of a JSON text, or -1. */
static long long json_int(const char *body, const char *key) {
    char pattern[64];
    const char *p;
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    p = body ? strstr(body, pattern) : NULL;
    if (!p) return -1;
    return strtoll(p + strlen(pattern), NULL, 10);
}

/* ---- one exchange ---------------------------------------------------------------------------- */

/* What a test keeps of a response: copies (the response is freed at once). */
struct reply {
    int32_t status;
    char *body; /* malloc'd, with a NUL after its `len` bytes */
    size_t len;
    size_t headers;
    char request_id[80];   /* X-Request-Id ("" if none) */
    char content_type[80]; /* Content-Type ("" if none) */
    char allow[80];        /* Allow ("" if none) */
};

static void reply_free(struct reply *r) {
    free(r->body);
    memset(r, 0, sizeof *r);
}

static void copy_value(char *to, size_t size, const char *value) {
    snprintf(to, size, "%s", value);
}

/* Sends one request (the `extra` headers, then Authorization: `auth` unless NULL) and copies
 * the response into *r, checking what every response must be (the header and the protocol):
 * a status from 100 to 599, headers with names and values, X-Request-Id exactly once, a body
 * that is NULL exactly when it is empty, and a JSON body ('{' ... '}') wherever Content-Type
 * says JSON, an error object for a 4xx or 5xx. Returns NULL, or what was wrong: a static
 * string, so that threads can call it (it reports nothing itself). */
static const char *exchange(struct reply *r, quire_sync_service *service, const char *method,
                            const char *target, const char *auth, const quire_sync_header *extra,
                            size_t n_extra, const void *body, size_t body_len) {
    quire_sync_header headers[8];
    quire_sync_response *response = NULL;
    const void *data = NULL;
    size_t n = 0, i, k, ids = 0;
    const char *name = NULL, *value = NULL;
    memset(r, 0, sizeof *r);
    r->status = -1;
    if (n_extra > 7) return "too many headers for the helper";
    for (k = 0; k < n_extra; k++) headers[n++] = extra[k];
    if (auth) {
        headers[n].name = "Authorization";
        headers[n].value = auth;
        n++;
    }
    if (quire_sync_service_handle(&response, service, method, target, n ? headers : NULL, n, body,
                                  body_len) != QUIRE_OK)
        return "quire_sync_service_handle failed";
    if (!response) return "quire_sync_service_handle gave QUIRE_OK and no response";
    if (quire_sync_response_status(&r->status, response) != QUIRE_OK ||
        quire_sync_response_header_count(&r->headers, response) != QUIRE_OK ||
        quire_sync_response_body(&data, &r->len, response) != QUIRE_OK) {
        quire_sync_response_free(response);
        return "a response getter failed";
    }
    for (i = 0; i < r->headers; i++) {
        if (quire_sync_response_header(&name, &value, response, i) != QUIRE_OK || !name || !value ||
            !name[0]) {
            quire_sync_response_free(response);
            return "a header without a name or a value";
        }
        if (strcasecmp(name, "X-Request-Id") == 0) {
            ids++;
            copy_value(r->request_id, sizeof r->request_id, value);
        } else if (strcasecmp(name, "Content-Type") == 0) {
            copy_value(r->content_type, sizeof r->content_type, value);
        } else if (strcasecmp(name, "Allow") == 0) {
            copy_value(r->allow, sizeof r->allow, value);
        }
    }
    r->body = malloc(r->len + 1);
    if (r->body) {
        if (r->len) memcpy(r->body, data, r->len);
        r->body[r->len] = '\0';
    }
    quire_sync_response_free(response);
    if (!r->body) return "out of memory";
    if (r->status < 100 || r->status > 599) return "a status that is no HTTP status";
    if (ids != 1 || !r->request_id[0])
        return "not exactly one X-Request-Id (the protocol: every response has it)";
    if ((data == NULL) != (r->len == 0))
        return "the body is NULL but not empty, or empty but not NULL";
    if (strncmp(r->content_type, "application/json", 16) == 0 &&
        (r->len < 2 || r->body[0] != '{' || r->body[r->len - 1] != '}'))
        return "a JSON response whose body is not a JSON object";
    if (r->status >= 400 && strncmp(r->body, "{\"error\":{\"code\":\"", 18) != 0)
        return "an error status without {\"error\": {\"code\": ...}} (the protocol)";
    return NULL;
}

static void send_at(struct reply *r, quire_sync_service *service, const char *method,
                    const char *target, const char *auth, const quire_sync_header *extra,
                    size_t n_extra, const void *body, size_t body_len, const char *file, int line) {
    const char *problem =
        exchange(r, service, method, target, auth, extra, n_extra, body, body_len);
    report(problem == NULL, file, line, "%s %s: %s (status %ld; %s)", method, target,
           problem ? problem : "", (long)r->status, problem ? quire_last_error_message() : "");
}
#define SEND(r, service, method, target, auth, body, len) \
    send_at((r), (service), (method), (target), (auth), NULL, 0, (body), (len), __FILE__, __LINE__)
#define SEND_WITH(r, service, method, target, auth, extra, n, body, len)                       \
    send_at((r), (service), (method), (target), (auth), (extra), (n), (body), (len), __FILE__, \
            __LINE__)

/* The reply is the protocol's error: `status` with {"error": {"code": `code`, ...}}. */
static void check_error_at(const struct reply *r, int32_t status, const char *code,
                           const char *file, int line) {
    char pattern[96];
    snprintf(pattern, sizeof pattern, "{\"error\":{\"code\":\"%s\"", code);
    report(r->status == status && r->body && strncmp(r->body, pattern, strlen(pattern)) == 0 &&
               strstr(r->body, "\"message\":\"") != NULL,
           file, line, "expected %ld %s, got %ld %s", (long)status, code, (long)r->status,
           r->body ? r->body : "(no body)");
}
/* A string literal as the body: its bytes and its length. */
#define SEND_TEXT(r, service, method, target, auth, literal) \
    SEND((r), (service), (method), (target), (auth), (literal), sizeof(literal) - 1)

#define CHECK_ERROR(r, status, code) check_error_at((r), (status), (code), __FILE__, __LINE__)

#define CHECK_REPLY(r, expected)                                                              \
    report((r)->status == (expected), __FILE__, __LINE__, "status %ld, expected %ld: %.300s", \
           (long)(r)->status, (long)(expected), (r)->body ? (r)->body : "(no body)")

/* A config of the current version: `store` (required: NULL is refused), the fixtures'
 * public key if there is one, the admin token. */
static const char *g_keys[1];
static quire_sync_config config_for(const char *store) {
    quire_sync_config c = QUIRE_SYNC_CONFIG_INIT;
    c.store = store;
    c.admin_token = ADMIN_TOKEN;
    if (g_key) {
        g_keys[0] = g_key;
        c.public_keys = g_keys;
        c.public_key_count = 1;
    }
    return c;
}

static quire_sync_service *open_at(const char *store, const char *file, int line) {
    quire_sync_config c = config_for(store);
    quire_sync_service *s = NULL;
    check_status(quire_sync_service_open(&s, &c), QUIRE_OK, "quire_sync_service_open", file, line);
    return s;
}
#define OPEN_SERVICE(store) open_at((store), __FILE__, __LINE__)

static void close_service(quire_sync_service *s) {
    if (!s) return;
    CHECK_STATUS(quire_sync_service_shutdown(s), QUIRE_OK);
    quire_sync_service_close(s);
}

/* The tests that need a JWT say so when the fixtures are missing (a failure, not a skip). */
static int have_tokens(const char *what) {
    report(g_bearer != NULL && g_key != NULL, __FILE__, __LINE__,
           "%s needs the keys and tokens of sync_fixtures.py: run test_api with their directory "
           "as its second argument (the Makefile does)",
           what);
    return g_bearer != NULL && g_key != NULL;
}

/* A push of one new note (annotation JSON: docs/annotation-json.md) to the layer of the
 * fixtures' tokens, by client "c-tests" with `client_seq`; its body into buf. */
static size_t note_push(char *buf, size_t size, int client_seq, const char *id, const char *text) {
    int n = snprintf(buf, size,
                     "{\"client_id\":\"c-tests\",\"mutations\":[{\"client_seq\":%d,\"op\":\"put\","
                     "\"id\":\"%s\",\"base_revision\":null,\"record\":{\"v\":1,\"type\":"
                     "\"pspdfkit/note\",\"id\":\"%s\",\"pageIndex\":0,\"bbox\":[100,100,20,20],"
                     "\"text\":\"%s\"}}]}",
                     client_seq, id, id, text);
    return n > 0 && (size_t)n < size ? (size_t)n : 0;
}

/* The annotations of a PDF (every page), through the document functions; -1 on failure. */
static int32_t annotations_of(const void *data, size_t size, int32_t *pages_out) {
    quire_document *doc = NULL;
    int32_t pages = -1, total = 0, n, p;
    if (quire_document_open_memory(&doc, data, size, NULL) != QUIRE_OK) return -1;
    if (quire_document_page_count(&pages, doc) != QUIRE_OK) total = -1;
    for (p = 0; total >= 0 && p < pages; p++) {
        if (quire_page_annotation_count(&n, doc, p) != QUIRE_OK)
            total = -1;
        else
            total += n;
    }
    quire_document_close(doc);
    if (pages_out) *pages_out = pages;
    return total;
}

/* ---- opening: configs, versions, stores, keys -------------------------------------------------- */

/* A status the header names, where the library is known to return `buggy` instead (the
 * KNOWN_BUG_* switches above). */
static void check_known_bug_at(int got, int expected, int buggy, int known_bug,
                               const char *switch_name, const char *what, const char *file,
                               int line) {
    if (known_bug && got == buggy) {
        fprintf(stderr,
                "test_sync.c:%d: KNOWN LIBRARY BUG (not counted, %s): %s returned %d (%s), "
                "the header says %d (%s): %s\n",
                line, switch_name, what, got, quire_status_string(got), expected,
                quire_status_string(expected), got < 0 ? quire_last_error_message() : "");
        return;
    }
    check_status(got, expected, what, file, line);
    report(!known_bug || got != expected, file, line,
           "%s returns %s as the header says now: set %s to 0 in test_sync.c", what,
           quire_status_string(expected), switch_name);
}
#define CHECK_KNOWN_BUG(call, expected, buggy, sw) \
    check_known_bug_at((call), (expected), (buggy), sw, #sw, #call, __FILE__, __LINE__)

static void test_open(void) {
    quire_sync_config c = QUIRE_SYNC_CONFIG_INIT;
    quire_sync_service *s = NULL, *sentinel = (quire_sync_service *)&g_sdir;
    const char *not_pem[] = {"not a PEM text"};
    const char *garbage_pem[] = {
        "-----BEGIN PUBLIC KEY-----\nZ2FyYmFnZQ==\n-----END PUBLIC KEY-----\n"};
    const char *null_entry[] = {NULL};

    /* No store: QUIRE_EINVAL (there is no default store: one that loses everything on close
     * is asked for by name, never given by omission). */
    s = sentinel;
    CHECK_STATUS(quire_sync_service_open(&s, &c), QUIRE_EINVAL);
    CHECK(s == sentinel);
    CHECK(strstr(quire_last_error_message(), "store") != NULL);
    s = NULL;
    c.store = "sqlite::memory:";
    CHECK_STATUS(quire_sync_service_open(&s, &c), QUIRE_OK);
    CHECK(s != NULL);
    close_service(s);
    CHECK_STATUS(quire_sync_config_init(&c, QUIRE_SYNC_CONFIG_VERSION), QUIRE_OK);
    CHECK(c.store == NULL);
    c.store = "sqlite::memory:";
    CHECK_STATUS(quire_sync_service_open(&s, &c), QUIRE_OK);
    close_service(s);

    /* NULL arguments, versions: QUIRE_EINVAL, QUIRE_EVERSION, nothing written to out. */
    s = sentinel;
    CHECK_STATUS(quire_sync_service_open(NULL, &c), QUIRE_EINVAL);
    CHECK_STATUS(quire_sync_service_open(&s, NULL), QUIRE_EINVAL);
    c.version = 0;
    CHECK_STATUS(quire_sync_service_open(&s, &c), QUIRE_EINVAL);
    c.version = QUIRE_SYNC_CONFIG_VERSION + 1;
    CHECK_STATUS(quire_sync_service_open(&s, &c), QUIRE_EVERSION);
    c.version = UINT32_MAX;
    CHECK_STATUS(quire_sync_service_open(&s, &c), QUIRE_EVERSION);
    c.version = QUIRE_SYNC_CONFIG_VERSION;
    CHECK_STATUS(quire_sync_config_init(NULL, QUIRE_SYNC_CONFIG_VERSION), QUIRE_EINVAL);
    CHECK_STATUS(quire_sync_config_init(&c, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_sync_config_init(&c, QUIRE_SYNC_CONFIG_VERSION + 1), QUIRE_EVERSION);
    CHECK_INT(c.version, QUIRE_SYNC_CONFIG_VERSION);

    /* A PostgreSQL store, in this library (the C tests link the default libquire):
     * QUIRE_EUNSUPPORTED, naming the flavour that has it (libquire-postgres). */
    c.store = "postgres://localhost/quire";
    CHECK_STATUS(quire_sync_service_open(&s, &c), QUIRE_EUNSUPPORTED);
    CHECK(strstr(quire_last_error_message(), "libquire-postgres") != NULL);
    c.store = "POSTGRESQL://localhost/quire";
    CHECK_STATUS(quire_sync_service_open(&s, &c), QUIRE_EUNSUPPORTED);
    CHECK(strstr(quire_last_error_message(), "make lib-postgres") != NULL);
    /* Store URLs of no known scheme, or not of the forms the header gives: QUIRE_EINVAL. */
    c.store = "mysql://localhost/quire";
    CHECK_STATUS(quire_sync_service_open(&s, &c), QUIRE_EINVAL);
    c.store = "quire.db";
    CHECK_STATUS(quire_sync_service_open(&s, &c), QUIRE_EINVAL);
    c.store = "";
    CHECK_STATUS(quire_sync_service_open(&s, &c), QUIRE_EINVAL);
    c.store = "sqlite://";
    CHECK_STATUS(quire_sync_service_open(&s, &c), QUIRE_EINVAL);
    /* Every test below fails for its own reason, not for want of a store. */
    c.store = "sqlite::memory:";

    /* Keys that are not PEM public keys, a count without keys, a NULL key, JWKS that does
     * not parse or holds no usable key: QUIRE_EINVAL. */
    c.public_keys = not_pem;
    c.public_key_count = 1;
    CHECK_STATUS(quire_sync_service_open(&s, &c), QUIRE_EINVAL);
    c.public_keys = garbage_pem;
    CHECK_STATUS(quire_sync_service_open(&s, &c), QUIRE_EINVAL);
    c.public_keys = NULL;
    CHECK_STATUS(quire_sync_service_open(&s, &c), QUIRE_EINVAL);
    c.public_keys = null_entry;
    CHECK_STATUS(quire_sync_service_open(&s, &c), QUIRE_EINVAL);
    c.public_keys = NULL;
    c.public_key_count = 0;
    c.jwks = "{\"keys\": [";
    CHECK_STATUS(quire_sync_service_open(&s, &c), QUIRE_EINVAL);
    c.jwks = "{\"keys\": []}";
    CHECK_STATUS(quire_sync_service_open(&s, &c), QUIRE_EINVAL);
    c.jwks = NULL;
    CHECK(s == sentinel);

    /* The fixtures' key is a PEM public key: it opens. */
    if (g_key) {
        g_keys[0] = g_key;
        c.public_keys = g_keys;
        c.public_key_count = 1;
        s = NULL;
        CHECK_STATUS(quire_sync_service_open(&s, &c), QUIRE_OK);
        close_service(s);
        c.public_keys = NULL;
        c.public_key_count = 0;
    }

    /* Stores that cannot be opened, and files that are not Quire's stores. */
    {
        char url[512];
        const char *garbage = join_path(g_sdir, "garbage.db");
        FILE *f = fopen(garbage, "wb");
        int i;
        CHECK(f != NULL);
        for (i = 0; f && i < 64; i++) fputs("this is not a SQLite database\n", f);
        if (f) fclose(f);
        s = sentinel;
        /* A directory that does not exist: "the store cannot be opened". */
        snprintf(url, sizeof url, "sqlite://%s/missing/quire.db", g_sdir);
        c.store = url;
        CHECK_KNOWN_BUG(quire_sync_service_open(&s, &c), QUIRE_EIO, QUIRE_EINVAL,
                        KNOWN_BUG_SYNC_STORE_STATUS);
        /* A directory as the store's file. */
        snprintf(url, sizeof url, "sqlite://%s", g_sdir);
        CHECK_KNOWN_BUG(quire_sync_service_open(&s, &c), QUIRE_EIO, QUIRE_EINVAL,
                        KNOWN_BUG_SYNC_STORE_STATUS);
        /* A file that is not a SQLite database: "a store file that is not Quire's". */
        snprintf(url, sizeof url, "sqlite://%s", garbage);
        CHECK_KNOWN_BUG(quire_sync_service_open(&s, &c), QUIRE_EFORMAT, QUIRE_EINVAL,
                        KNOWN_BUG_SYNC_STORE_STATUS);
        CHECK(s == sentinel);
        c.store = "sqlite::memory:";
    }
    if (g_sync_fixtures) {
        /* Another program's SQLite database (sync_fixtures.py: a table of its own). */
        char url[512];
        const char *copy = join_path(g_sdir, "foreign.db");
        size_t n = 0, m = 0;
        unsigned char *before = read_file(join_path(g_sync_fixtures, "foreign.db"), &n), *after;
        FILE *f = fopen(copy, "wb");
        CHECK(before != NULL && f != NULL);
        if (before && f) fwrite(before, 1, n, f);
        if (f) fclose(f);
        snprintf(url, sizeof url, "sqlite://%s", copy);
        c.store = url;
        s = sentinel;
        CHECK_KNOWN_BUG(quire_sync_service_open(&s, &c), QUIRE_EFORMAT, QUIRE_OK,
                        KNOWN_BUG_SYNC_FOREIGN_STORE);
        if (s != sentinel) {
            close_service(s); /* the known bug: it opened */
        } else {
            /* Refused: the other program's file is as it was. */
            after = read_file(copy, &m);
            CHECK(after != NULL && m == n && before && memcmp(before, after, n) == 0);
            free(after);
        }
        free(before);
        c.store = NULL;
    } else {
        have_tokens("the foreign store's test");
    }
}

/* ---- requests on an in-memory store ------------------------------------------------------------ */

/* GET /healthz; the admin API (upload, list, describe, the layer's annotations, its export as
 * a PDF, deleting); wrong and missing tokens. */
static void test_health_and_admin(quire_sync_service *s) {
    struct reply r;
    const quire_sync_header own_id = {"X-Request-Id", "c-tests-1"};
    const quire_sync_header bad_id = {"X-Request-Id", "not a valid id!"};
    const quire_sync_header pdf_type = {"Content-Type", "application/pdf"};
    const quire_sync_header lower_admin = {"authorization", ADMIN};
    char expected[160];
    test_step("the health check and the admin API");

    /* The health check: 200 {"status": "ok"}, JSON, with a request id (generated, or the
     * request's own when it matches [A-Za-z0-9-]{1,64}). */
    SEND(&r, s, "GET", "/healthz", NULL, NULL, 0);
    CHECK_REPLY(&r, 200);
    CHECK_STR(r.body, "{\"status\":\"ok\"}");
    CHECK(strncmp(r.content_type, "application/json", 16) == 0);
    CHECK(strlen(r.request_id) >= 8);
    reply_free(&r);
    SEND_WITH(&r, s, "GET", "/healthz", NULL, &own_id, 1, NULL, 0);
    CHECK_STR(r.request_id, "c-tests-1");
    reply_free(&r);
    SEND_WITH(&r, s, "GET", "/healthz", NULL, &bad_id, 1, NULL, 0);
    CHECK_REPLY(&r, 200);
    CHECK(strcmp(r.request_id, "not a valid id!") != 0 && r.request_id[0]);
    reply_free(&r);

    /* Upload examples/sample.pdf as doc1: 201 with its id, pages and size; again: 409. */
    SEND_WITH(&r, s, "POST", "/admin/documents?id=doc1", ADMIN, &pdf_type, 1, g_pdf, g_pdf_size);
    CHECK_REPLY(&r, 201);
    CHECK(strstr(r.body, "{\"document\":{\"id\":\"doc1\"") == r.body);
    CHECK_INT(json_int(r.body, "pages"), g_pdf_pages);
    CHECK_INT(json_int(r.body, "bytes"), g_pdf_size);
    CHECK(strstr(r.body, "\"sha256\":\"") != NULL);
    reply_free(&r);
    SEND_WITH(&r, s, "POST", "/admin/documents?id=doc1", ADMIN, &pdf_type, 1, g_pdf, g_pdf_size);
    CHECK_ERROR(&r, 409, "conflict");
    reply_free(&r);
    /* The target is percent-encoded: ?id=doc%2D2 is doc-2. Not a PDF: 400. */
    SEND(&r, s, "POST", "/admin/documents?id=doc%2D2", ADMIN, g_pdf, g_pdf_size);
    CHECK_REPLY(&r, 201);
    CHECK(strstr(r.body, "\"id\":\"doc-2\"") != NULL);
    reply_free(&r);
    SEND_TEXT(&r, s, "POST", "/admin/documents?id=doc3", ADMIN, "not a PDF");
    CHECK_ERROR(&r, 400, "bad_request");
    reply_free(&r);

    /* List and describe (header names in any case). */
    SEND(&r, s, "GET", "/admin/documents", ADMIN, NULL, 0);
    CHECK_REPLY(&r, 200);
    CHECK(strncmp(r.body, "{\"documents\":[", 14) == 0);
    CHECK_INT(count_of(r.body, "\"id\":\"doc1\""), 1);
    CHECK_INT(count_of(r.body, "\"id\":\"doc-2\""), 1);
    CHECK_INT(count_of(r.body, "\"sha256\""), 2);
    reply_free(&r);
    SEND_WITH(&r, s, "GET", "/admin/documents/doc1", NULL, &lower_admin, 1, NULL, 0);
    CHECK_REPLY(&r, 200);
    CHECK(strstr(r.body, "\"id\":\"doc1\"") != NULL);
    reply_free(&r);

    /* The layer's annotations: the file's, as the library exports them (compacted). */
    SEND(&r, s, "GET", "/admin/documents/doc1/layers/main/annotations", ADMIN, NULL, 0);
    CHECK_REPLY(&r, 200);
    CHECK(g_pdf_json != NULL && strcmp(r.body, g_pdf_json) == 0);
    CHECK_INT(count_of(r.body, "\"pdfObjectId\":"), g_pdf_annots);
    CHECK(strstr(r.body, "\"format\":\"https://pspdfkit.com/instant-json/v1\"") != NULL);
    reply_free(&r);
    SEND(&r, s, "GET", "/admin/documents/doc1", ADMIN, NULL, 0);
    snprintf(expected, sizeof expected,
             "\"layers\":[{\"name\":\"main\",\"seq\":0,\"records\":%ld}]", (long)g_pdf_annots);
    CHECK(strstr(r.body, expected) != NULL);
    reply_free(&r);

    /* The layer as a PDF: the uploaded bytes, then an incremental update; it reopens with the
     * file's pages and annotations. */
    SEND(&r, s, "GET", "/admin/documents/doc1/layers/main/pdf", ADMIN, NULL, 0);
    CHECK_REPLY(&r, 200);
    CHECK_STR(r.content_type, "application/pdf");
    CHECK(r.len >= g_pdf_size && memcmp(r.body, g_pdf, g_pdf_size) == 0);
    {
        int32_t pages = -1;
        CHECK_INT(annotations_of(r.body, r.len, &pages), g_pdf_annots);
        CHECK_INT(pages, g_pdf_pages);
    }
    reply_free(&r);

    /* Wrong, missing and misnamed tokens: 401 unauthenticated. */
    SEND(&r, s, "GET", "/admin/documents", "Token not-the-token", NULL, 0);
    CHECK_ERROR(&r, 401, "unauthenticated");
    reply_free(&r);
    SEND(&r, s, "GET", "/admin/documents", NULL, NULL, 0);
    CHECK_ERROR(&r, 401, "unauthenticated");
    reply_free(&r);
    SEND(&r, s, "GET", "/admin/documents", "Bearer " ADMIN_TOKEN, NULL, 0);
    CHECK_ERROR(&r, 401, "unauthenticated");
    reply_free(&r);
    SEND(&r, s, "POST", "/admin/documents?id=doc4", "Token " ADMIN_TOKEN "x", g_pdf, g_pdf_size);
    CHECK_ERROR(&r, 401, "unauthenticated");
    reply_free(&r);

    /* Routes and methods: 404, 405 with Allow; a layer deleted: 204 with no body. */
    SEND(&r, s, "GET", "/no/such/route", ADMIN, NULL, 0);
    CHECK_ERROR(&r, 404, "not_found");
    reply_free(&r);
    SEND(&r, s, "PUT", "/healthz", NULL, NULL, 0);
    CHECK_ERROR(&r, 405, "method_not_allowed");
    CHECK_STR(r.allow, "GET");
    reply_free(&r);
    SEND(&r, s, "GET", "/admin/documents/doc1/layers/scratch/annotations", ADMIN, NULL, 0);
    CHECK_REPLY(&r, 200); /* created on first use */
    reply_free(&r);
    SEND(&r, s, "DELETE", "/admin/documents/doc1/layers/scratch", ADMIN, NULL, 0);
    CHECK_REPLY(&r, 204);
    CHECK_INT(r.len, 0);
    reply_free(&r);
    SEND(&r, s, "DELETE", "/admin/documents/doc-2", ADMIN, NULL, 0);
    CHECK_REPLY(&r, 204);
    reply_free(&r);
    SEND(&r, s, "GET", "/admin/documents/doc-2", ADMIN, NULL, 0);
    CHECK_ERROR(&r, 404, "not_found");
    reply_free(&r);
}

/* A long poll on another thread: GET .../changes?since=N&wait=30 with the token. */
struct poll_job {
    quire_sync_service *service;
    char target[160];
    struct reply reply;
    const char *problem;
    double started, finished;
    pthread_mutex_t mutex;
    int done;
};

static void *poll_thread(void *arg) {
    struct poll_job *job = arg;
    const char *problem;
    job->started = now_seconds();
    problem = exchange(&job->reply, job->service, "GET", job->target, g_bearer, NULL, 0, NULL, 0);
    pthread_mutex_lock(&job->mutex);
    job->problem = problem;
    job->finished = now_seconds();
    job->done = 1;
    pthread_mutex_unlock(&job->mutex);
    return NULL;
}

static int poll_done(struct poll_job *job) {
    int done;
    pthread_mutex_lock(&job->mutex);
    done = job->done;
    pthread_mutex_unlock(&job->mutex);
    return done;
}

static int start_poll(struct poll_job *job, pthread_t *t, quire_sync_service *s, long long since) {
    memset(job, 0, sizeof *job);
    job->service = s;
    snprintf(job->target, sizeof job->target, LAYER_PATH "/changes?since=%lld&wait=%d", since,
             LONG_POLL_WAIT);
    pthread_mutex_init(&job->mutex, NULL);
    if (pthread_create(t, NULL, poll_thread, job) != 0) {
        report(0, __FILE__, __LINE__, "pthread_create failed");
        pthread_mutex_destroy(&job->mutex);
        return 0;
    }
    return 1;
}

/* How long to let a long poll reach its wait before waking it: a few times what one request
 * with the token took (valgrind is slow), from 0.3 s to 5 s. */
static double settle_time(double one_request) {
    double t = 0.3 + 5 * one_request;
    return t > 5 ? 5 : t;
}

/* The client API: without a valid JWT 401 (403 for a valid one without the permission or
 * for another layer); with one, the layer, a push, the feed, and a long poll that a push
 * wakes. Returns the layer's seq at the end (-1 if unknown). */
static long long test_client_api(quire_sync_service *s) {
    struct reply r;
    char push[512];
    size_t n;
    long long seq = -1;
    double t0, one_request;
    test_step("the client API");

    /* Without a valid JWT: 401 unauthenticated. */
    SEND(&r, s, "GET", LAYER_PATH, NULL, NULL, 0);
    CHECK_ERROR(&r, 401, "unauthenticated");
    reply_free(&r);
    SEND(&r, s, "GET", LAYER_PATH, "Bearer not.a.jwt", NULL, 0);
    CHECK_ERROR(&r, 401, "unauthenticated");
    reply_free(&r);
    SEND(&r, s, "GET", LAYER_PATH, ADMIN, NULL, 0); /* the admin token is not a JWT */
    CHECK_ERROR(&r, 401, "unauthenticated");
    reply_free(&r);
    SEND(&r, s, "GET", LAYER_PATH "/changes?since=0&wait=30", NULL, NULL, 0); /* no waiting */
    CHECK_ERROR(&r, 401, "unauthenticated");
    reply_free(&r);
    n = note_push(push, sizeof push, 1, "c-note-0", "no token");
    SEND(&r, s, "POST", LAYER_PATH "/mutations", NULL, push, n);
    CHECK_ERROR(&r, 401, "unauthenticated");
    reply_free(&r);
    SEND(&r, s, "GET", "/documents/doc1/pdf", NULL, NULL, 0);
    CHECK_ERROR(&r, 401, "unauthenticated");
    reply_free(&r);
    if (!have_tokens("the client API with a JWT")) return -1;
    SEND(&r, s, "GET", LAYER_PATH, g_bearer_expired, NULL, 0);
    CHECK_ERROR(&r, 401, "unauthenticated");
    reply_free(&r);
    SEND(&r, s, "GET", LAYER_PATH, g_bearer_unknown_key, NULL, 0);
    CHECK_ERROR(&r, 401, "unauthenticated");
    reply_free(&r);
    /* Valid, but not for this layer, or without the permission: 403 forbidden. */
    SEND(&r, s, "GET", LAYER_PATH, g_bearer_other_layer, NULL, 0);
    CHECK_ERROR(&r, 403, "forbidden");
    reply_free(&r);
    SEND(&r, s, "POST", LAYER_PATH "/mutations", g_bearer_read, push, n);
    CHECK_ERROR(&r, 403, "forbidden");
    reply_free(&r);
    SEND(&r, s, "GET", "/documents/doc1/pdf", g_bearer_read, NULL, 0);
    CHECK_ERROR(&r, 403, "forbidden");
    reply_free(&r);

    /* With the token: the layer (seq 0, the file's annotations, revision 0), the PDF. */
    t0 = now_seconds();
    SEND(&r, s, "GET", LAYER_PATH, g_bearer, NULL, 0);
    one_request = now_seconds() - t0;
    CHECK_REPLY(&r, 200);
    CHECK_INT(json_int(r.body, "seq"), 0);
    CHECK_INT(count_of(r.body, "{\"revision\":0,\"record\":{"), g_pdf_annots);
    reply_free(&r);
    SEND(&r, s, "GET", "/documents/doc1/pdf", g_bearer, NULL, 0);
    CHECK_REPLY(&r, 200);
    CHECK(r.len == g_pdf_size && memcmp(r.body, g_pdf, g_pdf_size) == 0);
    reply_free(&r);

    /* A push of a note: accepted, seq 1; the feed since 0 has it; the PDF export too. */
    n = note_push(push, sizeof push, 1, "c-note-1", "from C");
    SEND(&r, s, "POST", LAYER_PATH "/mutations", g_bearer, push, n);
    CHECK_REPLY(&r, 200);
    CHECK_STR(r.body, "{\"seq\":1,\"results\":[{\"client_seq\":1,\"status\":\"accepted\",\"seq\":1,"
                      "\"revision\":1}]}");
    reply_free(&r);
    SEND(&r, s, "POST", LAYER_PATH "/mutations", g_bearer, push, n); /* a retry: the same answer */
    CHECK_STR(r.body, "{\"seq\":1,\"results\":[{\"client_seq\":1,\"status\":\"accepted\",\"seq\":1,"
                      "\"revision\":1}]}");
    reply_free(&r);
    SEND(&r, s, "GET", LAYER_PATH "/changes?since=0", g_bearer, NULL, 0);
    CHECK_REPLY(&r, 200);
    CHECK_INT(json_int(r.body, "seq"), 1);
    CHECK_INT(count_of(r.body, "\"op\":\"put\""), 1);
    CHECK(strstr(r.body, "\"id\":\"c-note-1\"") != NULL &&
          strstr(r.body, "\"more\":false") != NULL);
    CHECK(strstr(r.body, "\"user_id\":\"c-tests\"") != NULL); /* the fixtures' token */
    reply_free(&r);
    SEND(&r, s, "GET", "/admin/documents/doc1/layers/main/pdf", ADMIN, NULL, 0);
    CHECK_REPLY(&r, 200);
    CHECK_INT(annotations_of(r.body, r.len, NULL), g_pdf_annots + 1);
    reply_free(&r);
    /* Malformed pushes are refused whole: 400. */
    SEND_TEXT(&r, s, "POST", LAYER_PATH "/mutations", g_bearer, "{\"client_id\":");
    CHECK_ERROR(&r, 400, "invalid_json");
    reply_free(&r);
    SEND_TEXT(&r, s, "POST", LAYER_PATH "/mutations", g_bearer,
              "{\"client_id\":\"c\",\"mutations\":[],\"x\":1}");
    CHECK_ERROR(&r, 400, "unknown_field");
    reply_free(&r);

    /* A long poll since 1, woken by a push (seq 2) from this thread: it answers with the
     * change, long before its 30 s. */
    {
        struct poll_job job;
        pthread_t t;
        double pushed;
        if (start_poll(&job, &t, s, 1)) {
            sleep_seconds(settle_time(one_request));
            CHECK(!poll_done(&job)); /* no change after 1 yet: it waits */
            n = note_push(push, sizeof push, 2, "c-note-2", "wakes the long poll");
            pushed = now_seconds();
            SEND(&r, s, "POST", LAYER_PATH "/mutations", g_bearer, push, n);
            CHECK_REPLY(&r, 200);
            reply_free(&r);
            CHECK_INT(pthread_join(t, NULL), 0);
            report(job.problem == NULL, __FILE__, __LINE__, "the long poll: %s",
                   job.problem ? job.problem : "");
            CHECK_REPLY(&job.reply, 200);
            CHECK_INT(json_int(job.reply.body, "seq"), 2);
            CHECK(job.reply.body && strstr(job.reply.body, "\"id\":\"c-note-2\"") != NULL);
            report(job.finished - pushed < LONG_POLL_WAIT / 3, __FILE__, __LINE__,
                   "the long poll answered %.1f s after the push", job.finished - pushed);
            reply_free(&job.reply);
            pthread_mutex_destroy(&job.mutex);
        }
    }
    SEND(&r, s, "GET", LAYER_PATH, g_bearer, NULL, 0);
    seq = json_int(r.body, "seq");
    CHECK_INT(seq, 2);
    CHECK_INT(count_of(r.body, "\"revision\":"), g_pdf_annots + 2);
    reply_free(&r);
    return seq;
}

/* A body past the limit (8 MiB by default: the protocol): 413 too_large, before the token is
 * looked at. */
static void test_limits(quire_sync_service *s) {
    struct reply r;
    unsigned char *big = malloc(DEFAULT_MAX_BODY + 1);
    test_step("the limits");
    CHECK(big != NULL);
    if (!big) return;
    memset(big, '[', DEFAULT_MAX_BODY + 1);
    SEND(&r, s, "POST", LAYER_PATH "/mutations", NULL, big, DEFAULT_MAX_BODY + 1);
    CHECK_ERROR(&r, 413, "too_large");
    reply_free(&r);
    if (g_bearer) {
        SEND(&r, s, "POST", LAYER_PATH "/mutations", g_bearer, big, DEFAULT_MAX_BODY + 1);
        CHECK_ERROR(&r, 413, "too_large");
        reply_free(&r);
        /* At the limit it is read (and is not JSON: 400). */
        SEND(&r, s, "POST", LAYER_PATH "/mutations", g_bearer, big, DEFAULT_MAX_BODY);
        CHECK_ERROR(&r, 400, "invalid_json");
        reply_free(&r);
    }
    free(big);
}

/* The calls themselves: NULL arguments are QUIRE_EINVAL and give no response; the getters'
 * errors; NULL to the _free and _close functions. */
static void test_arguments(quire_sync_service *s) {
    quire_sync_response *r = NULL, *sentinel = (quire_sync_response *)&g_sdir;
    const quire_sync_header admin = {"Authorization", ADMIN};
    const quire_sync_header null_name = {NULL, "x"}, null_value = {"X-Request-Id", NULL};
    quire_sync_header two[2];
    int32_t status = -7;
    size_t count = 77, len = 77;
    const char *name = "unset", *value = "unset";
    const void *data = &g_sdir;
    test_step("arguments and the response getters");

    r = sentinel;
    CHECK_STATUS(quire_sync_service_handle(NULL, s, "GET", "/healthz", NULL, 0, NULL, 0),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_sync_service_handle(&r, NULL, "GET", "/healthz", NULL, 0, NULL, 0),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_sync_service_handle(&r, s, NULL, "/healthz", NULL, 0, NULL, 0),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_sync_service_handle(&r, s, "GET", NULL, NULL, 0, NULL, 0), QUIRE_EINVAL);
    /* header_count with NULL headers; a NULL name or value, alone or after a good header. */
    CHECK_STATUS(quire_sync_service_handle(&r, s, "GET", "/healthz", NULL, 1, NULL, 0),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_sync_service_handle(&r, s, "GET", "/healthz", NULL, SIZE_MAX, NULL, 0),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_sync_service_handle(&r, s, "GET", "/healthz", &null_name, 1, NULL, 0),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_sync_service_handle(&r, s, "GET", "/healthz", &null_value, 1, NULL, 0),
                 QUIRE_EINVAL);
    two[0] = admin;
    two[1] = null_name;
    CHECK_STATUS(quire_sync_service_handle(&r, s, "GET", "/admin/documents", two, 2, NULL, 0),
                 QUIRE_EINVAL);
    /* A NULL body with a length. */
    CHECK_STATUS(quire_sync_service_handle(&r, s, "POST", "/admin/documents", &admin, 1, NULL, 5),
                 QUIRE_EINVAL);
    CHECK(r == sentinel);

    /* Headers NULL with count 0, a body with length 0: a request like any other. */
    r = NULL;
    CHECK_STATUS(quire_sync_service_handle(&r, s, "GET", "/healthz", NULL, 0, "ignored", 0),
                 QUIRE_OK);
    CHECK(r != NULL);
    if (!r) return;
    CHECK_STATUS(quire_sync_response_status(&status, r), QUIRE_OK);
    CHECK_INT(status, 200);
    CHECK_STATUS(quire_sync_response_header_count(&count, r), QUIRE_OK);
    CHECK(count >= 2); /* Content-Type and X-Request-Id */

    /* The getters' NULL arguments and an index out of range: nothing written. */
    status = -7;
    CHECK_STATUS(quire_sync_response_status(NULL, r), QUIRE_EINVAL);
    CHECK_STATUS(quire_sync_response_status(&status, NULL), QUIRE_EINVAL);
    CHECK_INT(status, -7);
    CHECK_STATUS(quire_sync_response_header_count(NULL, r), QUIRE_EINVAL);
    {
        size_t untouched = 77;
        CHECK_STATUS(quire_sync_response_header_count(&untouched, NULL), QUIRE_EINVAL);
        CHECK_INT(untouched, 77);
    }
    CHECK_STATUS(quire_sync_response_header(NULL, &value, r, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_sync_response_header(&name, NULL, r, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_sync_response_header(&name, &value, NULL, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_sync_response_header(&name, &value, r, count), QUIRE_ERANGE);
    CHECK_STATUS(quire_sync_response_header(&name, &value, r, count + 1), QUIRE_ERANGE);
    CHECK_STATUS(quire_sync_response_header(&name, &value, r, SIZE_MAX), QUIRE_ERANGE);
    CHECK(strcmp(name, "unset") == 0 && strcmp(value, "unset") == 0);
    CHECK_STATUS(quire_sync_response_body(NULL, &len, r), QUIRE_EINVAL);
    CHECK_STATUS(quire_sync_response_body(&data, NULL, r), QUIRE_EINVAL);
    CHECK_STATUS(quire_sync_response_body(&data, &len, NULL), QUIRE_EINVAL);
    CHECK(data == (const void *)&g_sdir && len == 77);

    /* The last header is in range; the strings and the body are borrowed and stay put (the
     * same pointers again) until the response is freed. */
    {
        const char *name2 = NULL, *value2 = NULL;
        const void *data2 = NULL;
        size_t len2 = 0;
        CHECK_STATUS(quire_sync_response_header(&name, &value, r, count - 1), QUIRE_OK);
        CHECK_STATUS(quire_sync_response_header(&name2, &value2, r, count - 1), QUIRE_OK);
        CHECK(name == name2 && value == value2 && name && name[0]);
        CHECK_STATUS(quire_sync_response_body(&data, &len, r), QUIRE_OK);
        CHECK_STATUS(quire_sync_response_body(&data2, &len2, r), QUIRE_OK);
        CHECK(data == data2 && len == len2 && len == 15);
        CHECK(data && memcmp(data, "{\"status\":\"ok\"}", 15) == 0);
    }
    quire_sync_response_free(r);

    /* Freeing and closing NULL are no-ops; shutting NULL down is QUIRE_EINVAL. */
    quire_clear_error();
    quire_sync_response_free(NULL);
    quire_sync_service_close(NULL);
    CHECK_INT(quire_last_error_code(), QUIRE_OK);
    CHECK_STATUS(quire_sync_service_shutdown(NULL), QUIRE_EINVAL);
}

/* Several threads handling requests at once on one service: each request answered
 * correctly (its own request id back, the status and body of its kind). */
struct worker {
    quire_sync_service *service;
    int index;
    int answered;              /* requests answered as expected */
    int wrong;                 /* the others */
    const char *first_problem; /* a static string */
    int first_request;
};

static void *worker_thread(void *arg) {
    struct worker *w = arg;
    int j;
    for (j = 0; j < WORKER_REQUESTS; j++) {
        struct reply r;
        char id[32];
        quire_sync_header h;
        const char *problem = NULL, *auth = NULL, *method = "GET", *target;
        int kind = (w->index + j) % 5;
        snprintf(id, sizeof id, "w%d-r%d", w->index, j);
        h.name = "X-Request-Id";
        h.value = id;
        switch (kind) {
        case 0: target = "/healthz"; break;
        case 1:
            target = "/admin/documents";
            auth = ADMIN;
            break;
        case 2:
            target = "/admin/documents";
            auth = "Token wrong";
            break;
        case 3:
            target = g_bearer ? LAYER_PATH : "/admin/documents/doc1";
            auth = g_bearer ? g_bearer : ADMIN;
            break;
        default:
            target = "/admin/documents/doc1/layers/main/annotations";
            auth = ADMIN;
            break;
        }
        problem = exchange(&r, w->service, method, target, auth, &h, 1, NULL, 0);
        if (!problem && strcmp(r.request_id, id) != 0) problem = "another request's id came back";
        if (!problem) {
            switch (kind) {
            case 0:
                if (r.status != 200 || strcmp(r.body, "{\"status\":\"ok\"}") != 0)
                    problem = "GET /healthz: not 200 {\"status\":\"ok\"}";
                break;
            case 1:
                if (r.status != 200 || !strstr(r.body, "\"id\":\"doc1\""))
                    problem = "GET /admin/documents: not 200 with doc1";
                break;
            case 2:
                if (r.status != 401 || !strstr(r.body, "\"unauthenticated\""))
                    problem = "a wrong admin token: not 401 unauthenticated";
                break;
            case 3:
                if (g_bearer ? r.status != 200 || json_int(r.body, "seq") < 0
                             : r.status != 200 || !strstr(r.body, "\"id\":\"doc1\""))
                    problem = "the layer (or the document): not 200 with its seq (its id)";
                break;
            default:
                if (r.status != 200 || count_of(r.body, "\"v\":1") < g_pdf_annots)
                    problem = "the layer's annotations: not 200 with the file's";
                break;
            }
        }
        if (problem) {
            if (!w->first_problem) {
                w->first_problem = problem;
                w->first_request = j;
            }
            w->wrong++;
        } else {
            w->answered++;
        }
        reply_free(&r);
    }
    return NULL;
}

static void test_threads(quire_sync_service *s) {
    pthread_t t[WORKERS];
    struct worker w[WORKERS];
    int k, started[WORKERS];
    test_step("threads at once on one service");
    for (k = 0; k < WORKERS; k++) {
        memset(&w[k], 0, sizeof w[k]);
        w[k].service = s;
        w[k].index = k;
        started[k] = pthread_create(&t[k], NULL, worker_thread, &w[k]) == 0;
        CHECK(started[k]);
    }
    for (k = 0; k < WORKERS; k++) {
        if (!started[k]) continue;
        CHECK_INT(pthread_join(t[k], NULL), 0);
        report(w[k].wrong == 0 && w[k].answered == WORKER_REQUESTS, __FILE__, __LINE__,
               "thread %d: %d of %d requests answered right; request %d: %s", k, w[k].answered,
               WORKER_REQUESTS, w[k].first_request, w[k].first_problem ? w[k].first_problem : "");
    }
}

/* A shutdown while a thread waits in a long poll: the poll answers at once (200, no
 * changes), well before its 30 s; later requests get 503 unavailable, /healthz included. */
static void test_shutdown(quire_sync_service *s, long long seq) {
    struct reply r;
    struct poll_job job;
    pthread_t t;
    double t0, one_request, shut;
    test_step("shutdown during a long poll");
    if (!have_tokens("the long poll") || seq < 0) {
        CHECK_STATUS(quire_sync_service_shutdown(s), QUIRE_OK);
        return;
    }
    t0 = now_seconds();
    SEND(&r, s, "GET", LAYER_PATH, g_bearer, NULL, 0);
    one_request = now_seconds() - t0;
    CHECK_INT(json_int(r.body, "seq"), seq);
    reply_free(&r);
    if (!start_poll(&job, &t, s, seq)) return;
    sleep_seconds(settle_time(one_request));
    CHECK(!poll_done(&job)); /* nothing after seq: it waits */
    shut = now_seconds();
    CHECK_STATUS(quire_sync_service_shutdown(s), QUIRE_OK);
    CHECK_INT(pthread_join(t, NULL), 0);
    report(job.problem == NULL, __FILE__, __LINE__, "the long poll: %s",
           job.problem ? job.problem : "");
    CHECK_REPLY(&job.reply, 200);
    CHECK(job.reply.body && strstr(job.reply.body, "\"changes\":[]") != NULL);
    CHECK_INT(json_int(job.reply.body, "seq"), seq);
    report(job.finished - shut < LONG_POLL_WAIT / 3, __FILE__, __LINE__,
           "the long poll answered %.1f s after the shutdown (its wait: %d s)", job.finished - shut,
           LONG_POLL_WAIT);
    reply_free(&job.reply);
    pthread_mutex_destroy(&job.mutex);

    /* After the shutdown: 503 unavailable; shutting down again is harmless. */
    SEND(&r, s, "GET", "/healthz", NULL, NULL, 0);
    CHECK_ERROR(&r, 503, "unavailable");
    reply_free(&r);
    SEND(&r, s, "GET", "/admin/documents", ADMIN, NULL, 0);
    CHECK_ERROR(&r, 503, "unavailable");
    reply_free(&r);
    SEND(&r, s, "GET", LAYER_PATH "/changes?since=0&wait=30", g_bearer, NULL, 0);
    CHECK_ERROR(&r, 503, "unavailable");
    reply_free(&r);
    CHECK_STATUS(quire_sync_service_shutdown(s), QUIRE_OK);
}

static void test_memory_store(void) {
    quire_sync_service *s;
    long long seq;
    s = OPEN_SERVICE("sqlite::memory:");
    if (!s) return;
    test_health_and_admin(s);
    seq = test_client_api(s);
    test_limits(s);
    test_arguments(s);
    test_threads(s);
    test_shutdown(s, seq);
    quire_sync_service_close(s);
}

/* ---- the asynchronous handler ------------------------------------------------------------------ */

/* What a completion of quire_sync_service_handle_async saw: how often it ran, the status, on
 * which thread, when. */
struct async_job {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int calls;
    int32_t status;
    int has_request_id;
    pthread_t thread;
    double finished;
};

static void async_job_init(struct async_job *job) {
    memset(job, 0, sizeof *job);
    job->status = -1;
    pthread_mutex_init(&job->mutex, NULL);
    pthread_cond_init(&job->cond, NULL);
}

static void async_job_destroy(struct async_job *job) {
    pthread_mutex_destroy(&job->mutex);
    pthread_cond_destroy(&job->cond);
}

/* The completion: reads the status and the request id, frees the response (it owns it). */
static void on_async_complete(quire_sync_response *response, void *payload) {
    struct async_job *job = payload;
    int32_t status = -1;
    size_t count = 0, i;
    int has_id = 0;
    const char *name, *value;
    if (quire_sync_response_status(&status, response) == QUIRE_OK &&
        quire_sync_response_header_count(&count, response) == QUIRE_OK) {
        for (i = 0; i < count; i++)
            if (quire_sync_response_header(&name, &value, response, i) == QUIRE_OK &&
                strcasecmp(name, "X-Request-Id") == 0 && value[0])
                has_id = 1;
    }
    quire_sync_response_free(response);
    pthread_mutex_lock(&job->mutex);
    job->calls++;
    job->status = status;
    job->has_request_id = has_id;
    job->thread = pthread_self();
    job->finished = now_seconds();
    pthread_cond_broadcast(&job->cond);
    pthread_mutex_unlock(&job->mutex);
}

/* The completion through the header's type. */
static const quire_sync_completion on_async = on_async_complete;

/* Waits up to `seconds` for the completion; returns how often it ran. */
static int async_wait(struct async_job *job, double seconds) {
    int calls;
    double until = now_seconds() + seconds;
    pthread_mutex_lock(&job->mutex);
    while (job->calls == 0 && now_seconds() < until) {
        pthread_mutex_unlock(&job->mutex);
        sleep_seconds(0.005);
        pthread_mutex_lock(&job->mutex);
    }
    calls = job->calls;
    pthread_mutex_unlock(&job->mutex);
    return calls;
}

static int async_calls(struct async_job *job) {
    int calls;
    pthread_mutex_lock(&job->mutex);
    calls = job->calls;
    pthread_mutex_unlock(&job->mutex);
    return calls;
}

#define ASYNC_POLLS 64

/* quire_sync_service_handle_async: the completion runs exactly once, on a library thread,
 * with the response; bad arguments are QUIRE_EINVAL and no completion; long polls wait
 * without a thread each (ASYNC_POLLS at once from this one thread), a push wakes them, a
 * cancelled one answers at once, a shutdown answers the rest. */
static void test_async(void) {
    quire_sync_service *s;
    quire_sync_call *call = NULL, *sentinel = (quire_sync_call *)&g_sdir;
    struct async_job job, polls[ASYNC_POLLS];
    quire_sync_call *poll_calls[ASYNC_POLLS];
    quire_sync_header auth = {"Authorization", NULL};
    struct reply r;
    char target[160], push[512];
    long long seq;
    size_t n;
    int k, waiting;
    double t0;
    s = OPEN_SERVICE("sqlite::memory:");
    if (!s) return;

    /* One request: the completion runs once, not on this thread, with the response. */
    async_job_init(&job);
    CHECK_STATUS(quire_sync_service_handle_async(&call, s, "GET", "/healthz", NULL, 0, NULL, 0,
                                                 on_async, &job),
                 QUIRE_OK);
    CHECK(call != NULL);
    CHECK_INT(async_wait(&job, 20), 1);
    CHECK_INT(job.status, 200);
    CHECK(job.has_request_id);
    CHECK(!pthread_equal(job.thread, pthread_self()));
    sleep_seconds(0.05);
    CHECK_INT(async_calls(&job), 1);                      /* exactly once */
    CHECK_STATUS(quire_sync_call_cancel(call), QUIRE_OK); /* after completion: harmless */
    quire_sync_call_free(call);
    quire_sync_call_free(NULL);
    async_job_destroy(&job);

    /* Without a call handle (never cancelled); a NUL in the target is the protocol's 400. */
    async_job_init(&job);
    CHECK_STATUS(quire_sync_service_handle_async(NULL, s, "GET", "/healthz%00", NULL, 0, NULL, 0,
                                                 on_async, &job),
                 QUIRE_OK);
    CHECK_INT(async_wait(&job, 20), 1);
    CHECK_INT(job.status, 400);
    async_job_destroy(&job);

    /* Bad arguments: QUIRE_EINVAL, nothing written to out_call, no completion. */
    async_job_init(&job);
    call = sentinel;
    CHECK_STATUS(
        quire_sync_service_handle_async(&call, s, "GET", "/healthz", NULL, 0, NULL, 0, NULL, &job),
        QUIRE_EINVAL);
    CHECK_STATUS(quire_sync_service_handle_async(&call, NULL, "GET", "/healthz", NULL, 0, NULL, 0,
                                                 on_async, &job),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_sync_service_handle_async(&call, s, NULL, "/healthz", NULL, 0, NULL, 0,
                                                 on_async, &job),
                 QUIRE_EINVAL);
    CHECK_STATUS(
        quire_sync_service_handle_async(&call, s, "GET", NULL, NULL, 0, NULL, 0, on_async, &job),
        QUIRE_EINVAL);
    CHECK_STATUS(quire_sync_service_handle_async(&call, s, "GET", "/healthz", NULL, 2, NULL, 0,
                                                 on_async, &job),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_sync_service_handle_async(&call, s, "POST", "/healthz", NULL, 0, NULL, 5,
                                                 on_async, &job),
                 QUIRE_EINVAL);
    CHECK_STATUS(quire_sync_call_cancel(NULL), QUIRE_EINVAL);
    CHECK(call == sentinel);
    sleep_seconds(0.1);
    CHECK_INT(async_calls(&job), 0);
    async_job_destroy(&job);

    if (!have_tokens("the asynchronous long polls") || !g_pdf) {
        close_service(s);
        return;
    }
    {
        quire_sync_header upload = {"Authorization", ADMIN};
        SEND_WITH(&r, s, "POST", "/admin/documents?id=doc1", NULL, &upload, 1, g_pdf, g_pdf_size);
        CHECK_REPLY(&r, 201);
        reply_free(&r);
    }
    SEND(&r, s, "GET", LAYER_PATH, g_bearer, NULL, 0);
    seq = json_int(r.body, "seq");
    reply_free(&r);
    auth.value = g_bearer;
    snprintf(target, sizeof target, LAYER_PATH "/changes?since=%lld&wait=%d", seq, LONG_POLL_WAIT);

    /* ASYNC_POLLS long polls at once from this thread: none answers until a push. */
    for (k = 0; k < ASYNC_POLLS; k++) {
        async_job_init(&polls[k]);
        poll_calls[k] = NULL;
        CHECK_STATUS(quire_sync_service_handle_async(&poll_calls[k], s, "GET", target, &auth, 1,
                                                     NULL, 0, on_async, &polls[k]),
                     QUIRE_OK);
    }
    sleep_seconds(0.5);
    for (k = 0, waiting = 0; k < ASYNC_POLLS; k++) waiting += async_calls(&polls[k]) == 0;
    CHECK_INT(waiting, ASYNC_POLLS);
    /* One is cancelled (its client went away): it answers at once; the others still wait. */
    t0 = now_seconds();
    CHECK_STATUS(quire_sync_call_cancel(poll_calls[0]), QUIRE_OK);
    CHECK_STATUS(quire_sync_call_cancel(poll_calls[0]), QUIRE_OK); /* twice: harmless */
    CHECK_INT(async_wait(&polls[0], LONG_POLL_WAIT), 1);
    report(polls[0].finished - t0 < LONG_POLL_WAIT / 3, __FILE__, __LINE__,
           "the cancelled long poll answered %.1f s after quire_sync_call_cancel",
           polls[0].finished - t0);
    for (k = 1, waiting = 0; k < ASYNC_POLLS; k++) waiting += async_calls(&polls[k]) == 0;
    CHECK_INT(waiting, ASYNC_POLLS - 1);
    /* A push (through the blocking handler) wakes every other one with a 200. */
    n = note_push(push, sizeof push, 1, "async-note", "wakes the polls");
    SEND(&r, s, "POST", LAYER_PATH "/mutations", g_bearer, push, n);
    CHECK_REPLY(&r, 200);
    reply_free(&r);
    for (k = 1; k < ASYNC_POLLS; k++) {
        CHECK_INT(async_wait(&polls[k], LONG_POLL_WAIT), 1);
        CHECK_INT(polls[k].status, 200);
    }
    for (k = 0; k < ASYNC_POLLS; k++) {
        quire_sync_call_free(poll_calls[k]);
        async_job_destroy(&polls[k]);
    }

    /* A long poll at shutdown answers at once; the service then closes. */
    async_job_init(&job);
    snprintf(target, sizeof target, LAYER_PATH "/changes?since=%lld&wait=%d", seq + 1,
             LONG_POLL_WAIT);
    CHECK_STATUS(
        quire_sync_service_handle_async(NULL, s, "GET", target, &auth, 1, NULL, 0, on_async, &job),
        QUIRE_OK);
    sleep_seconds(0.3);
    CHECK_INT(async_calls(&job), 0);
    t0 = now_seconds();
    CHECK_STATUS(quire_sync_service_shutdown(s), QUIRE_OK);
    CHECK_INT(async_wait(&job, LONG_POLL_WAIT), 1);
    CHECK(job.finished - t0 < LONG_POLL_WAIT / 3);
    async_job_destroy(&job);
    quire_sync_service_close(s);
}

/* A relative SQLite path is from the working directory at open, as quire-server takes it. */
static void test_relative_store(void) {
    char cwd[1024];
    quire_sync_service *s;
    if (!getcwd(cwd, sizeof cwd) || chdir(g_sdir) != 0) {
        report(0, __FILE__, __LINE__, "cannot change to %s", g_sdir);
        return;
    }
    s = OPEN_SERVICE("sqlite://./relative.db");
    if (s) close_service(s);
    CHECK(path_exists(join_path(g_sdir, "relative.db")));
    CHECK_INT(chdir(cwd), 0);
}

/* ---- a SQLite file ------------------------------------------------------------------------------ */

static int g_closes_watched, g_closes_late;

/* Shuts down and closes a service on the SQLite file whose WAL file is `wal`, and checks that
 * the store is closed then: SQLite removes the WAL file with the database's last connection
 * (KNOWN_BUG_SYNC_CLOSE_LATE: or soon after). */
static void close_file_service_at(quire_sync_service *s, const char *wal, const char *file,
                                  int line) {
    int at_once;
    close_service(s);
    at_once = !path_exists(wal);
    g_closes_watched++;
    if (!at_once) {
        double t0 = now_seconds();
        g_closes_late++;
        while (path_exists(wal) && now_seconds() - t0 < 20) sleep_seconds(0.005);
    }
    report(!path_exists(wal), file, line,
           "the store is still open 20 s after "
           "quire_sync_service_close (its WAL file %s is there)",
           wal);
    if (!KNOWN_BUG_SYNC_CLOSE_LATE)
        report(at_once, file, line,
               "quire_sync_service_close returned before the store was "
               "closed (its WAL file was still there)");
}
#define CLOSE_FILE_SERVICE(s, wal) close_file_service_at((s), (wal), __FILE__, __LINE__)

/* What was written through one service is there after it is closed and another opens the
 * file; closing closes the store (SQLite removes the WAL with its last connection:
 * KNOWN_BUG_SYNC_CLOSE_LATE); a database whose schema is newer than this library's is
 * refused. */
static void test_file_store(void) {
    char url[512], wal[512], push[512];
    const char *path = join_path(g_sdir, "quire.db");
    quire_sync_service *s, *sentinel = (quire_sync_service *)&g_sdir;
    struct reply r;
    size_t n;
    snprintf(url, sizeof url, "sqlite://%s", path);
    snprintf(wal, sizeof wal, "%s-wal", path);
    s = OPEN_SERVICE(url);
    if (!s) return;
    CHECK(path_exists(path));
    SEND(&r, s, "POST", "/admin/documents?id=doc1", ADMIN, g_pdf, g_pdf_size);
    CHECK_REPLY(&r, 201);
    reply_free(&r);
    if (g_bearer) {
        n = note_push(push, sizeof push, 1, "file-note", "kept in the file");
        SEND(&r, s, "POST", LAYER_PATH "/mutations", g_bearer, push, n);
        CHECK_REPLY(&r, 200);
        CHECK_INT(json_int(r.body, "seq"), 1);
        reply_free(&r);
    }
    CLOSE_FILE_SERVICE(s, wal);

    /* Again: the document and the layer are still there. */
    s = OPEN_SERVICE(url);
    if (!s) return;
    SEND(&r, s, "GET", "/admin/documents", ADMIN, NULL, 0);
    CHECK_REPLY(&r, 200);
    CHECK_INT(count_of(r.body, "\"id\":\"doc1\""), 1);
    CHECK_INT(json_int(r.body, "bytes"), g_pdf_size);
    reply_free(&r);
    if (g_bearer) {
        SEND(&r, s, "GET", LAYER_PATH, g_bearer, NULL, 0);
        CHECK_REPLY(&r, 200);
        CHECK_INT(json_int(r.body, "seq"), 1);
        CHECK_INT(count_of(r.body, "\"revision\":"), g_pdf_annots + 1);
        CHECK(strstr(r.body, "\"id\":\"file-note\"") != NULL);
        reply_free(&r);
    }
    CLOSE_FILE_SERVICE(s, wal);

    /* Open, a request, close, ten times over: every close closes the store. */
    {
        int k;
        for (k = 0; k < 10; k++) {
            s = OPEN_SERVICE(url);
            if (!s) break;
            SEND(&r, s, "GET", "/admin/documents", ADMIN, NULL, 0);
            CHECK_REPLY(&r, 200);
            reply_free(&r);
            CLOSE_FILE_SERVICE(s, wal);
        }
    }
    if (KNOWN_BUG_SYNC_CLOSE_LATE)
        fprintf(stderr,
                "test_sync.c: KNOWN LIBRARY BUG (not counted, KNOWN_BUG_SYNC_CLOSE_LATE): "
                "%d of %d calls of quire_sync_service_close returned before the store was "
                "closed%s\n",
                g_closes_late, g_closes_watched,
                g_closes_late ? ""
                              : " (none this run: if the library closes the store before "
                                "close returns now, set KNOWN_BUG_SYNC_CLOSE_LATE to 0)");

    /* A schema version from a newer Quire (PRAGMA user_version: bytes 60-63 of the file,
     * big-endian): refused (the header has QUIRE_EIO for a store that cannot be opened and
     * QUIRE_EFORMAT for a file that is not Quire's: either fits a newer Quire's file). */
    {
        size_t size = 0;
        unsigned char *db = read_file(path, &size);
        FILE *f;
        int status;
        CHECK(db != NULL && size >= 100 && !path_exists(wal));
        if (!db || size < 100) {
            free(db);
            return;
        }
        CHECK(db[60] == 0 && db[61] == 0 && db[62] == 0 && db[63] >= 1); /* Quire's schema */
        db[63] = 99;
        f = fopen(path, "wb");
        CHECK(f != NULL && fwrite(db, 1, size, f) == size);
        if (f) fclose(f);
        free(db);
        {
            quire_sync_config c = config_for(url);
            s = sentinel;
            status = quire_sync_service_open(&s, &c);
            report(status == QUIRE_EIO || status == QUIRE_EFORMAT, __FILE__, __LINE__,
                   "a store of schema version 99: %d (%s) %s, expected QUIRE_EIO or QUIRE_EFORMAT",
                   status, quire_status_string(status), quire_last_error_message());
            CHECK(s == sentinel);
            if (status == QUIRE_OK && s != sentinel) CLOSE_FILE_SERVICE(s, wal);
        }
    }
}

/* ---- the group --------------------------------------------------------------------------------- */

static void sync_teardown(void) {
    free(g_pdf);
    free(g_pdf_json);
    free(g_key);
    free(g_bearer);
    free(g_bearer_read);
    free(g_bearer_other_layer);
    free(g_bearer_expired);
    free(g_bearer_unknown_key);
    g_pdf = NULL;
    g_pdf_json = g_key = g_bearer = g_bearer_read = g_bearer_other_layer = g_bearer_expired =
        g_bearer_unknown_key = NULL;
    remove_temp_dir(g_sdir);
}

static int sync_setup(void) {
    const char *dir = make_temp_dir();
    quire_document *doc = NULL;
    size_t json_len = 0;
    char *json = NULL;
    if (!dir) return 1;
    snprintf(g_sdir, sizeof g_sdir, "%s", dir);
    g_pdf = read_file(QUIRE_SAMPLE_PDF, &g_pdf_size);
    CHECK(g_pdf != NULL);
    if (!g_pdf) {
        sync_teardown();
        return 1;
    }
    /* The file as the library reads it: pages, annotations, and their annotation JSON. */
    g_pdf_annots = annotations_of(g_pdf, g_pdf_size, &g_pdf_pages);
    CHECK(g_pdf_annots > 0 && g_pdf_pages > 0);
    CHECK_STATUS(quire_document_open_memory(&doc, g_pdf, g_pdf_size, NULL), QUIRE_OK);
    if (doc) {
        CHECK_STATUS(quire_document_export_annotations_json(NULL, 0, &json_len, doc, -1), QUIRE_OK);
        json = malloc(json_len + 1);
        if (json)
            CHECK_STATUS(
                quire_document_export_annotations_json(json, json_len + 1, &json_len, doc, -1),
                QUIRE_OK);
        if (json) g_pdf_json = json_compact(json, json_len);
        json_drop_array_member(g_pdf_json, "formFieldValues");
        free(json);
        quire_document_close(doc);
    }
    g_key = fixture("ec.pub.pem");
    g_bearer = bearer_of("token");
    g_bearer_read = bearer_of("token-read");
    g_bearer_other_layer = bearer_of("token-other-layer");
    g_bearer_expired = bearer_of("token-expired");
    g_bearer_unknown_key = bearer_of("token-unknown-key");
    if (g_sync_fixtures)
        CHECK(g_key && g_bearer && g_bearer_read && g_bearer_other_layer && g_bearer_expired &&
              g_bearer_unknown_key);
    return 0;
}

static const struct test_case sync_tests[] = {{"open", test_open},
                                              {"memory_store", test_memory_store},
                                              {"async", test_async},
                                              {"file_store", test_file_store},
                                              {"relative_store", test_relative_store},
                                              {NULL, NULL}};

const struct test_suite sync_suite = {"sync", sync_setup, sync_teardown, sync_tests};
