/*
 * test_support.c: the framework and helpers declared in test_support.h.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#define _POSIX_C_SOURCE 200809L

#include "test_support.h"

#include <dirent.h>
#include <fnmatch.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the framework --------------------------------------------------------------------- */

/* The mapping behind a guarded allocation: whole pages of data, then one PROT_NONE page. */
static size_t guarded_pages(size_t size, size_t page) { return (size + page - 1) / page; }

void *guarded_alloc(size_t size) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = guarded_pages(size, page);
    unsigned char *base =
        mmap(NULL, (n + 1) * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return NULL;
    if (mprotect(base + n * page, page, PROT_NONE) != 0) {
        munmap(base, (n + 1) * page);
        return NULL;
    }
    return base + n * page - size;
}

void guarded_free(void *p, size_t size) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = guarded_pages(size, page);
    if (p) munmap((unsigned char *)p + size - n * page, (n + 1) * page);
}

int g_passed, g_failed;

/* The running test ("suite::test"; "suite (setup)" and "suite (teardown)" around them) and
 * its step: only the runner sets the name, so no test can print another's. */
static char g_test_name[160];
static const char *g_step;

static void set_test_name(const char *suite, const char *sep, const char *test) {
    snprintf(g_test_name, sizeof g_test_name, "%s%s%s", suite, sep, test);
    g_step = NULL;
}

void test_step(const char *label) { g_step = label; }

void report(int ok, const char *file, int line, const char *fmt, ...) {
    va_list ap;
    if (ok) {
        g_passed++;
        return;
    }
    g_failed++;
    fprintf(stderr, "%s:%d: [%s%s%s] FAILED: ", file, line, g_test_name, g_step ? ": " : "",
            g_step ? g_step : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void check_status(int got, int expected, const char *what, const char *file, int line) {
    const char *msg = got < 0 ? quire_last_error_message() : "";
    report(got == expected, file, line, "%s returned %d (%s), expected %d (%s)%s%s", what, got,
           quire_status_string(got), expected, quire_status_string(expected),
           msg && msg[0] ? ": " : "", msg ? msg : "(null)");
    if (expected < 0 && got == expected) {
        int code = quire_last_error_code();
        msg = quire_last_error_message();
        report(code == expected, file, line, "after %s, quire_last_error_code() is %d", what, code);
        report(msg != NULL && msg[0] != '\0', file, line,
               "after %s failed, quire_last_error_message() is empty", what);
    }
}

/* ---- the runner ------------------------------------------------------------------------ */

/* The -s patterns; none: every test. */
#define MAX_PATTERNS 64
static const char *g_patterns[MAX_PATTERNS];
static int g_npatterns, g_verbose;

static int matches(const char *pattern, const struct test_suite *suite,
                   const struct test_case *test) {
    char full[160];
    if (strcmp(pattern, suite->name) == 0) return 1;
    snprintf(full, sizeof full, "%s::%s", suite->name, test->name);
    return fnmatch(pattern, full, 0) == 0;
}

static int selected(const struct test_suite *suite, const struct test_case *test) {
    int i;
    if (g_npatterns == 0) return 1;
    for (i = 0; i < g_npatterns; i++)
        if (matches(g_patterns[i], suite, test)) return 1;
    return 0;
}

/* Whether the names are well formed and unique: a table that breaks the rule is a failure
 * of the run, not a test that cannot be picked. */
static int check_names(const struct test_suite *const *suites) {
    const struct test_suite *const *s, *const *s2;
    const struct test_case *t, *t2;
    int ok = 1;
    for (s = suites; *s; s++) {
        for (s2 = suites; s2 != s; s2++)
            if (strcmp((*s)->name, (*s2)->name) == 0) {
                fprintf(stderr, "test_api: two suites are named %s\n", (*s)->name);
                ok = 0;
            }
        for (t = (*s)->tests; t->name; t++) {
            const char *c;
            for (c = t->name; *c; c++)
                if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) break;
            if (*c || !t->name[0] || !t->run) {
                fprintf(stderr, "test_api: %s::%s is not a test name [a-z0-9_]+ with a function\n",
                        (*s)->name, t->name);
                ok = 0;
            }
            for (t2 = (*s)->tests; t2 != t; t2++)
                if (strcmp(t->name, t2->name) == 0) {
                    fprintf(stderr, "test_api: two tests are named %s::%s\n", (*s)->name, t->name);
                    ok = 0;
                }
        }
    }
    return ok;
}

int test_options(int *argc, char **argv, const struct test_suite *const *suites) {
    const struct test_suite *const *s;
    const struct test_case *t;
    int i, out = 1, list = 0;
    if (!check_names(suites)) return 2;
    for (i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "-l") == 0)
            list = 1;
        else if (strcmp(argv[i], "-v") == 0)
            g_verbose = 1;
        else if (strncmp(argv[i], "-s", 2) == 0) {
            const char *pattern = argv[i][2] ? argv[i] + 2 : (i + 1 < *argc ? argv[++i] : NULL);
            if (!pattern || !pattern[0]) {
                fprintf(stderr, "test_api: -s needs a suite or suite::test (-l lists them)\n");
                return 2;
            }
            if (g_npatterns == MAX_PATTERNS) {
                fprintf(stderr, "test_api: more than %d -s options\n", MAX_PATTERNS);
                return 2;
            }
            g_patterns[g_npatterns++] = pattern;
        } else if (strcmp(argv[i], "--") == 0) {
            for (i++; i < *argc; i++) argv[out++] = argv[i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "test_api: unknown option %s\n", argv[i]);
            return 2;
        } else
            argv[out++] = argv[i];
    }
    *argc = out;
    for (i = 0; i < g_npatterns; i++) {
        int found = 0;
        for (s = suites; *s && !found; s++)
            for (t = (*s)->tests; t->name && !found; t++) found = matches(g_patterns[i], *s, t);
        if (!found) {
            fprintf(stderr, "test_api: -s %s selects no test (-l lists them)\n", g_patterns[i]);
            return 2;
        }
    }
    if (list) {
        for (s = suites; *s; s++)
            for (t = (*s)->tests; t->name; t++)
                if (selected(*s, t)) printf("%s::%s\n", (*s)->name, t->name);
        return 0;
    }
    return -1;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void run_test_suites(const struct test_suite *const *suites) {
    const struct test_suite *const *s;
    const struct test_case *t;
    int ran = 0, total = 0;
    for (s = suites; *s; s++) {
        int any = 0;
        for (t = (*s)->tests; t->name; t++) {
            total++;
            if (selected(*s, t)) any = 1;
        }
        if (!any) continue;
        if ((*s)->setup) {
            set_test_name((*s)->name, " ", "(setup)");
            if ((*s)->setup() != 0) {
                fprintf(stderr, "test_api: the setup of %s failed: its tests did not run\n",
                        (*s)->name);
                report(0, __FILE__, __LINE__, "the setup of suite %s failed", (*s)->name);
                continue;
            }
        }
        for (t = (*s)->tests; t->name; t++) {
            double start;
            int failed_before = g_failed;
            if (!selected(*s, t)) continue;
            set_test_name((*s)->name, "::", t->name);
            if (g_verbose) {
                printf("== %s", g_test_name);
                fflush(stdout);
            }
            start = now_seconds();
            t->run();
            ran++;
            if (g_verbose)
                printf(" %.2f s%s\n", now_seconds() - start,
                       g_failed > failed_before ? " FAILED" : "");
        }
        if ((*s)->teardown) {
            set_test_name((*s)->name, " ", "(teardown)");
            (*s)->teardown();
        }
    }
    set_test_name("", "", "");
    if (ran < total) printf("test_api: %d of %d tests run (-s)\n", ran, total);
}

int near(double a, double b) { return fabs(a - b) <= 1e-6 * (1.0 + fabs(b)); }

/* ---- files ----------------------------------------------------------------------------- */

const char *g_corpus;

const char *corpus(const char *rel) {
    static char bufs[8][4096];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, sizeof bufs[0], "%s/%s", g_corpus, rel);
    return b;
}

unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    unsigned char *data;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    data = malloc((size_t)n + 1);
    if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return data;
}

quire_document *open_corpus_at(const char *rel, const char *password, const char *file, int line) {
    quire_document *doc = NULL;
    quire_open_options options = QUIRE_OPEN_OPTIONS_INIT;
    int status;
    options.password = password;
    status = quire_document_open(&doc, corpus(rel), &options);
    report(status == QUIRE_OK && doc != NULL, file, line,
           "quire_document_open(%s) returned %d (%s): %s", rel, status, quire_status_string(status),
           quire_last_error_message());
    return status == QUIRE_OK ? doc : NULL;
}

const char *make_temp_dir(void) {
    static char names[4][64];
    static int next;
    char *name = names[next++ % 4];
    snprintf(name, sizeof names[0], "/tmp/quire-test-api-XXXXXX");
    if (!mkdtemp(name)) {
        report(0, __FILE__, __LINE__, "mkdtemp failed");
        return NULL;
    }
    return name;
}

int count_dir_entries(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (!d) return -1;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
    closedir(d);
    return n;
}

int path_exists(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0;
}

static void remove_tree(const char *path, int depth) {
    struct stat st;
    DIR *d;
    struct dirent *e;
    char child[4096];
    if (depth > 8 || lstat(path, &st) != 0) return;
    if (!S_ISDIR(st.st_mode)) {
        unlink(path);
        return;
    }
    d = opendir(path);
    if (d) {
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            snprintf(child, sizeof child, "%s/%s", path, e->d_name);
            remove_tree(child, depth + 1);
        }
        closedir(d);
    }
    rmdir(path);
}

void remove_temp_dir(const char *dir) {
    /* Only what make_temp_dir made. */
    if (dir && strncmp(dir, "/tmp/quire-test-api-", 20) == 0) remove_tree(dir, 0);
}

const char *join_path(const char *dir, const char *name) {
    static char bufs[8][4096];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
    return b;
}

/* ---- strings through the length-query pattern ------------------------------------------ */

void check_query_status(int status, const char *file, int line) {
    report(status == QUIRE_OK, file, line, "the NULL/0 length query returned %d (%s): %s", status,
           quire_status_string(status), quire_last_error_message());
}

static const char *const text_fn_names[] = {"quire_document_outline_title",
                                            "quire_document_outline_target",
                                            "quire_page_label",
                                            "quire_value_bytes",
                                            "quire_value_text",
                                            "quire_value_to_pdf",
                                            "quire_value_dict_key",
                                            "quire_document_stream_data (decoded)",
                                            "quire_document_stream_data (raw)"};

int call_text(enum text_fn fn, char *buf, size_t size, size_t *len, quire_document *doc,
              const quire_value *value, int32_t index) {
    switch (fn) {
    case T_OUTLINE_TITLE: return quire_document_outline_title(buf, size, len, doc, index);
    case T_OUTLINE_TARGET: return quire_document_outline_target(buf, size, len, doc, index);
    case T_PAGE_LABEL: return quire_page_label(buf, size, len, doc, index);
    case T_VALUE_BYTES: return quire_value_bytes(buf, size, len, value);
    case T_VALUE_TEXT: return quire_value_text(buf, size, len, value);
    case T_VALUE_TO_PDF: return quire_value_to_pdf(buf, size, len, value);
    case T_DICT_KEY: return quire_value_dict_key(buf, size, len, value, index);
    case T_STREAM_DECODED:
        return quire_document_stream_data(buf, size, len, doc, value, QUIRE_STREAM_DECODED);
    case T_STREAM_RAW:
        return quire_document_stream_data(buf, size, len, doc, value, QUIRE_STREAM_RAW);
    }
    return QUIRE_EINVAL;
}

char *fetch_text_at(enum text_fn fn, quire_document *doc, const quire_value *value, int32_t index,
                    size_t *len_out, const char *file, int line) {
    size_t len = (size_t)-1, len2 = (size_t)-1;
    char *buf;
    int status;
    quire_clear_error();
    status = call_text(fn, NULL, 0, &len, doc, value, index);
    report(status == QUIRE_OK, file, line, "%s: the NULL/0 length query returned %d (%s): %s",
           text_fn_names[fn], status, quire_status_string(status), quire_last_error_message());
    if (status != QUIRE_OK) return NULL;
    report(len < 100000000u, file, line, "%s: the length query set *out_len to %zu",
           text_fn_names[fn], len);
    if (len >= 100000000u) return NULL;
    buf = malloc(len + 2);
    if (!buf) return NULL;
    buf[len + 1] = 'Z';
    status = call_text(fn, buf, len + 1, &len2, doc, value, index);
    report(status == QUIRE_OK, file, line, "%s: reading %zu + 1 bytes returned %d: %s",
           text_fn_names[fn], len, status, quire_last_error_message());
    report(len2 == len, file, line, "%s: *out_len is %zu, the query said %zu", text_fn_names[fn],
           len2, len);
    if (status != QUIRE_OK || len2 != len) {
        free(buf);
        return NULL;
    }
    report(buf[len] == '\0', file, line, "%s: no NUL after the result", text_fn_names[fn]);
    report(buf[len + 1] == 'Z', file, line, "%s: wrote past buf_size", text_fn_names[fn]);
    if (len_out) *len_out = len;
    return buf;
}

static void print_escaped(char *out, size_t out_size, const char *s, size_t n) {
    size_t i, o = 0;
    for (i = 0; i < n && o + 5 < out_size; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            out[o++] = (char)c;
        } else {
            snprintf(out + o, out_size - o, "\\x%02x", c);
            o += 4;
        }
    }
    if (i < n && o + 4 < out_size) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
}

void check_text_at(enum text_fn fn, quire_document *doc, const quire_value *value, int32_t index,
                   const char *expected, size_t n, const char *what, const char *file, int line) {
    size_t len = 0;
    char *s = fetch_text_at(fn, doc, value, index, &len, file, line);
    char got[512], want[512];
    if (s && len == n && memcmp(s, expected, n) == 0) {
        report(1, file, line, "%s", what);
    } else {
        print_escaped(got, sizeof got, s ? s : "(failed)", s ? len : 8);
        print_escaped(want, sizeof want, expected, n);
        report(0, file, line, "%s is \"%s\" (%zu bytes), expected \"%s\" (%zu bytes)", what, got,
               s ? len : 0, want, n);
    }
    free(s);
}

void check_length_query_at(enum text_fn fn, quire_document *doc, const quire_value *value,
                           int32_t index, const char *file, int line) {
    size_t len = (size_t)-1, len2, cap;
    char *buf, *before, *expected;
    int status;
    expected = fetch_text_at(fn, doc, value, index, &len, file, line);
    if (!expected) return;
    report(len > 0, file, line, "%s: check_length_query needs a non-empty result",
           text_fn_names[fn]);
    cap = len + 16;
    buf = malloc(cap);
    before = malloc(cap);
    if (!buf || !before || len == 0) {
        free(buf);
        free(before);
        free(expected);
        return;
    }
    memset(buf, 'Z', cap);
    memcpy(before, buf, cap);
    /* Too small: 0, 1 (when that is too small) and exactly *out_len bytes (no room for
     * the NUL): QUIRE_EBUFS, *out_len set, the buffer untouched byte for byte. */
    {
        size_t sizes[3];
        int k;
        sizes[0] = 0;
        sizes[1] = 1;
        sizes[2] = len;
        for (k = 0; k < 3; k++) {
            len2 = 12345;
            quire_clear_error();
            status = call_text(fn, buf, sizes[k], &len2, doc, value, index);
            report(status == QUIRE_EBUFS, file, line,
                   "%s with a buffer of %zu bytes for %zu + 1 returned %d (%s), not QUIRE_EBUFS",
                   text_fn_names[fn], sizes[k], len, status, quire_status_string(status));
            report(status != QUIRE_EBUFS || quire_last_error_code() == QUIRE_EBUFS, file, line,
                   "%s: QUIRE_EBUFS not recorded as the last error", text_fn_names[fn]);
            report(len2 == len, file, line, "%s: QUIRE_EBUFS set *out_len to %zu, not %zu",
                   text_fn_names[fn], len2, len);
            report(memcmp(buf, before, cap) == 0, file, line,
                   "%s: a buffer of %zu bytes was written although too small", text_fn_names[fn],
                   sizes[k]);
        }
    }
    /* Exactly *out_len + 1: the result and a NUL, nothing after. */
    len2 = 0;
    status = call_text(fn, buf, len + 1, &len2, doc, value, index);
    report(status == QUIRE_OK && len2 == len && memcmp(buf, expected, len) == 0 &&
               buf[len] == '\0' && memcmp(buf + len + 1, before + len + 1, cap - len - 1) == 0,
           file, line, "%s: a buffer of *out_len + 1 bytes: status %d, *out_len %zu",
           text_fn_names[fn], status, len2);
    /* A larger buffer works too. */
    memset(buf, 'Z', cap);
    status = call_text(fn, buf, cap, &len2, doc, value, index);
    report(status == QUIRE_OK && len2 == len && memcmp(buf, expected, len) == 0 &&
               buf[len] == '\0' && buf[len + 1] == 'Z',
           file, line, "%s: a larger buffer: status %d", text_fn_names[fn], status);
    /* NULL out_len; NULL buffer with a size (the header: QUIRE_EINVAL). */
    memset(buf, 'Z', cap);
    status = call_text(fn, buf, cap, NULL, doc, value, index);
    report(status == QUIRE_EINVAL, file, line, "%s with a NULL out_len returned %d",
           text_fn_names[fn], status);
    len2 = 777;
    status = call_text(fn, NULL, 10, &len2, doc, value, index);
    report(status == QUIRE_EINVAL, file, line, "%s with NULL buf and buf_size 10 returned %d",
           text_fn_names[fn], status);
    report(len2 == 777, file, line, "%s: *out_len written on QUIRE_EINVAL", text_fn_names[fn]);
    report(memcmp(buf, before, cap) == 0, file, line, "%s: buffer written on QUIRE_EINVAL",
           text_fn_names[fn]);
    free(buf);
    free(before);
    free(expected);
}

/* ---- values ---------------------------------------------------------------------------- */

quire_value *parse_value_at(const char *syntax, const char *file, int line) {
    quire_value *v = NULL;
    int status = quire_value_parse(&v, syntax, strlen(syntax));
    report(status == QUIRE_OK && v != NULL, file, line,
           "quire_value_parse(\"%s\") returned %d (%s): %s", syntax, status,
           quire_status_string(status), quire_last_error_message());
    return status == QUIRE_OK ? v : NULL;
}

quire_value_kind value_type_at(const quire_value *value, const char *file, int line) {
    quire_value_kind t = (quire_value_kind)-1;
    int status = quire_value_get_kind(&t, value);
    report(status == QUIRE_OK, file, line, "quire_value_get_kind returned %d: %s", status,
           quire_last_error_message());
    return status == QUIRE_OK ? t : (quire_value_kind)-1;
}

/* ---- bytes written through a quire_write_fn -------------------------------------------- */

static pthread_t g_sink_thread;
static int g_sink_thread_set;

void sink_expect_thread(void) {
    g_sink_thread = pthread_self();
    g_sink_thread_set = 1;
}

int sink_write(const void *data, size_t size, void *payload) {
    struct byte_sink *sink = payload;
    sink->calls++;
    if (g_sink_thread_set && !pthread_equal(pthread_self(), g_sink_thread)) sink->other_thread++;
    if (sink->fail_at_call > 0 && sink->calls == sink->fail_at_call) return 1;
    if (size == 0) return 0;
    if (!data) {
        sink->bad_payload = 1;
        return 1;
    }
    if (sink->size + size > sink->cap) {
        size_t cap = sink->cap ? sink->cap : 4096;
        unsigned char *p;
        while (cap < sink->size + size) cap *= 2;
        p = realloc(sink->data, cap);
        if (!p) return 1;
        sink->data = p;
        sink->cap = cap;
    }
    memcpy(sink->data + sink->size, data, size);
    sink->size += size;
    return 0;
}

void sink_free(struct byte_sink *sink) {
    free(sink->data);
    memset(sink, 0, sizeof *sink);
}

uint64_t fnv1a64(const void *data, size_t size) {
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325u;
    size_t i;
    for (i = 0; i < size; i++) {
        h ^= p[i];
        h *= 0x100000001b3u;
    }
    return h;
}

const unsigned char test_gray_png[71] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
    0x52, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x08, 0x00, 0x00, 0x00, 0x00, 0x57,
    0xdd, 0x52, 0xf8, 0x00, 0x00, 0x00, 0x0e, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60,
    0xf8, 0xcf, 0xc0, 0xf0, 0x1f, 0x00, 0x05, 0x01, 0x01, 0xff, 0x5d, 0x69, 0x35, 0xd9, 0x00,
    0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};
