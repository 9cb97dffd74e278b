/*
 * test_support.h: the small test framework and helpers shared by the API test files
 * (test_api.c and the test_*.c files beside it), which are linked into one program,
 * out/test_api.
 *
 * Tests are grouped in suites, one a file (as libgit2's clar does: `-s suite::test`): each
 * file defines a `struct test_suite` whose table names its tests, and the runner gives
 * each test its name before calling it, so a failure always names the test it happened
 * in. The test functions are static, so one that no table lists is a compile error
 * (-Wunused-function under -Werror).
 *
 *   out/test_api [-v] [-l] [-s PATTERN]... CORPUS_DIR [SYNC_FIXTURES_DIR]
 *
 *   -l            lists the tests (suite::test), one a line, and exits
 *   -s PATTERN    runs only the tests that PATTERN selects: a suite's name (`forms`), or a
 *                 shell pattern over `suite::test` (`forms::fields`, `'*::errors'`); may be
 *                 given more than once; a pattern that selects nothing is an error
 *   -v            prints each test's name and time as it runs
 *
 * CHECK* count checks; the program's last line is `N passed, M failed`, and its exit
 * status is non-zero if any check failed. Every expected value in the tests says where it
 * comes from (the manifest, a peer library, the bytes of the file, or the header).
 */
#ifndef QUIRE_TEST_SUPPORT_H
#define QUIRE_TEST_SUPPORT_H

#include "quire.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- the framework --------------------------------------------------------------------- */

/* Guarded memory: `size` bytes that end exactly where a PROT_NONE page starts, so that a
 * read or write of one byte past them faults (the test of versioned structs: the library
 * must read only the fields of the caller's version). The bytes are zeroed. Returns NULL if
 * the system refuses the mapping. */
void *guarded_alloc(size_t size);
void guarded_free(void *p, size_t size);

/* A test: a function that makes checks. Its name, [a-z0-9_]+ and unique in its suite, is
 * what `-s suite::name` selects and what each failure prints. */
struct test_case {
    const char *name;
    void (*run)(void);
};

/* A suite: a file's tests, in the order they run. `setup`, when there is one, runs before
 * the first selected test of the suite and `teardown` after the last (neither runs when no
 * test of the suite is selected); a setup that returns non-zero has reported why, and the
 * suite's tests are skipped. Tests must not depend on one another: each may run alone. */
struct test_suite {
    const char *name;
    int (*setup)(void);
    void (*teardown)(void);
    const struct test_case *tests; /* ended by {NULL, NULL} */
};

/* Reads test_api's options (above) from argv, leaving the other arguments in
 * argv[1..*argc-1]. Returns -1 to go on and run the tests, or an exit status: 0 after -l,
 * 2 after a usage error or a malformed table (two tests of one name, say). */
int test_options(int *argc, char **argv, const struct test_suite *const *suites);

/* Runs the selected tests of `suites` (NULL-terminated), in order. */
void run_test_suites(const struct test_suite *const *suites);

extern int g_passed, g_failed;

/* A 2 by 2 gray PNG (71 bytes), the image of the image stamp tests (test_support.c). */
extern const unsigned char test_gray_png[71];

/* A label for the part of a test that runs next (NULL: none), printed after the test's
 * name with each failure: for a test that checks several files or variants in turn. The
 * runner clears it before each test. */
void test_step(const char *label);

#if defined(__GNUC__)
void report(int ok, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#else
void report(int ok, const char *file, int line, const char *fmt, ...);
#endif

#define CHECK(cond) report(!!(cond), __FILE__, __LINE__, "%s", #cond)

#define CHECK_INT(actual, expected)                                                         \
    do {                                                                                    \
        long long a_ = (long long)(actual), e_ = (long long)(expected);                     \
        report(a_ == e_, __FILE__, __LINE__, "%s is %lld, expected %lld", #actual, a_, e_); \
    } while (0)

#define CHECK_STR(actual, expected)                                               \
    do {                                                                          \
        const char *a_ = (actual), *e_ = (expected);                              \
        report(a_ != NULL && strcmp(a_, e_) == 0, __FILE__, __LINE__,             \
               "%s is \"%s\", expected \"%s\"", #actual, a_ ? a_ : "(null)", e_); \
    } while (0)

/* The call returns `expected`; when that is an error, the last error of this thread is
 * that code with a non-empty message. On a mismatch, the message is printed. */
#define CHECK_STATUS(call, expected) check_status((call), (expected), #call, __FILE__, __LINE__)
void check_status(int got, int expected, const char *what, const char *file, int line);

int near(double a, double b);

#define CHECK_RECT(r, l, b, rt, t)                                                              \
    report(near((r).left, l) && near((r).bottom, b) && near((r).right, rt) && near((r).top, t), \
           __FILE__, __LINE__, "%s is [%g %g %g %g], expected [%g %g %g %g]", #r, (r).left,     \
           (r).bottom, (r).right, (r).top, (double)(l), (double)(b), (double)(rt), (double)(t))

/* ---- files ----------------------------------------------------------------------------- */

extern const char *g_corpus;

/* The directory of the sync tests' keys and tokens (sync_fixtures.py writes it; test_api's
 * second argument), or NULL. */
extern const char *g_sync_fixtures;

/* CORPUS_DIR/rel, in one of 8 rotating buffers. */
const char *corpus(const char *rel);

/* The whole file, malloc'd (the caller frees it); NULL if it cannot be read. */
unsigned char *read_file(const char *path, size_t *size);

/* Opens CORPUS_DIR/rel with the password (NULL: none) as a check; NULL on failure. */
quire_document *open_corpus_at(const char *rel, const char *password, const char *file, int line);
#define open_corpus(rel, password) open_corpus_at((rel), (password), __FILE__, __LINE__)

/* A fresh directory under /tmp (mkdtemp), in a static buffer per call (up to 4 live). */
const char *make_temp_dir(void);
/* The number of entries of a directory other than . and .., or -1. */
int count_dir_entries(const char *dir);
/* Whether `name` exists (lstat). */
int path_exists(const char *path);
/* Removes a directory made by make_temp_dir and the files and directories in it. */
void remove_temp_dir(const char *dir);
/* dir + "/" + name, in one of 8 rotating buffers. */
const char *join_path(const char *dir, const char *name);

/* ---- strings through the length-query pattern ------------------------------------------ */

/* The NULL/0 length query: the header says it returns QUIRE_OK with the length in *out_len. */
void check_query_status(int status, const char *file, int line);

/* The 0.2 functions that return text or bytes through the length-query pattern. */
enum text_fn {
    T_OUTLINE_TITLE,  /* quire_document_outline_title(doc, index) */
    T_OUTLINE_TARGET, /* quire_document_outline_target(doc, index) */
    T_PAGE_LABEL,     /* quire_page_label(doc, index) */
    T_VALUE_BYTES,    /* quire_value_bytes(value) */
    T_VALUE_TEXT,     /* quire_value_text(value) */
    T_VALUE_TO_PDF,   /* quire_value_to_pdf(value) */
    T_DICT_KEY,       /* quire_value_dict_key(value, index) */
    T_STREAM_DECODED, /* quire_document_stream_data(doc, value, QUIRE_STREAM_DECODED) */
    T_STREAM_RAW      /* quire_document_stream_data(doc, value, QUIRE_STREAM_RAW) */
};

/* Calls `fn` with the arguments that apply to it. */
int call_text(enum text_fn fn, char *buf, size_t size, size_t *len, quire_document *doc,
              const quire_value *value, int32_t index);

/* Reads one result through the length-query pattern (the NULL/0 query, then a buffer of
 * exactly *out_len + 1 bytes), checking the protocol on the way; returns a malloc'd copy
 * with a NUL after it (the caller frees it) and its length in *len_out, or NULL after a
 * failed check. */
char *fetch_text_at(enum text_fn fn, quire_document *doc, const quire_value *value, int32_t index,
                    size_t *len_out, const char *file, int line);
#define fetch_text(fn, doc, value, index, len_out) \
    fetch_text_at((fn), (doc), (value), (index), (len_out), __FILE__, __LINE__)

/* The result is exactly the `n` bytes at `expected`. */
void check_text_at(enum text_fn fn, quire_document *doc, const quire_value *value, int32_t index,
                   const char *expected, size_t n, const char *what, const char *file, int line);
#define CHECK_TEXT(fn, doc, value, index, expected)                            \
    check_text_at((fn), (doc), (value), (index), (expected), strlen(expected), \
                  #fn "(" #value ", " #index ")", __FILE__, __LINE__)
#define CHECK_BYTES(fn, doc, value, index, expected, n)                                           \
    check_text_at((fn), (doc), (value), (index), (expected), (n), #fn "(" #value ", " #index ")", \
                  __FILE__, __LINE__)

/* The whole length-query protocol on one result of length > 0: the query; buffers of 0, 1
 * and *out_len bytes give QUIRE_EBUFS with *out_len set and the buffer untouched; exactly
 * *out_len + 1 bytes gives the result, a NUL and nothing written after it; NULL out_len, or
 * a NULL buffer with a size, give QUIRE_EINVAL. */
void check_length_query_at(enum text_fn fn, quire_document *doc, const quire_value *value,
                           int32_t index, const char *file, int line);
#define CHECK_LENGTH_QUERY(fn, doc, value, index) \
    check_length_query_at((fn), (doc), (value), (index), __FILE__, __LINE__)

/* ---- values ---------------------------------------------------------------------------- */

/* quire_value_parse of a NUL-terminated string, as a check; NULL on failure. */
quire_value *parse_value_at(const char *syntax, const char *file, int line);
#define parse_value(syntax) parse_value_at((syntax), __FILE__, __LINE__)

/* The type of a value, or (quire_value_kind)-1 (after a failed check). */
quire_value_kind value_type_at(const quire_value *value, const char *file, int line);
#define value_type(value) value_type_at((value), __FILE__, __LINE__)

/* ---- bytes written through a quire_write_fn -------------------------------------------- */

struct byte_sink {
    unsigned char *data;
    size_t size, cap;
    int calls;        /* how many times the callback was called */
    int fail_at_call; /* > 0: the call with this number (1-based) returns non-zero */
    int bad_payload;  /* set if a call had data == NULL with size > 0 */
    int other_thread; /* calls made on another thread than the one that called
                         sink_expect_thread (the header: "on the calling thread") */
};

/* Records the calling thread: sink_write counts calls made on any other. */
void sink_expect_thread(void);

/* A quire_write_fn that appends to the struct byte_sink in `payload`. */
int sink_write(const void *data, size_t size, void *payload);
void sink_free(struct byte_sink *sink);

/* FNV-1a, 64 bits: expected stream contents are given as their length and this hash,
 * computed with the same function in Python from pikepdf's Stream.read_bytes() and
 * read_raw_bytes(). */
uint64_t fnv1a64(const void *data, size_t size);

/* ---- the suites, one a file ------------------------------------------------------------ */

extern const struct test_suite basics_suite;          /* test_api.c: the 0.1 interface */
extern const struct test_suite structure_suite;       /* test_structure.c */
extern const struct test_suite values_suite;          /* test_values.c */
extern const struct test_suite editing_suite;         /* test_editing.c */
extern const struct test_suite annotations_suite;     /* test_annotations.c */
extern const struct test_suite forms_suite;           /* test_forms.c */
extern const struct test_suite bookmarks_suite;       /* test_bookmarks.c */
extern const struct test_suite checkpoints_suite;     /* test_checkpoints.c */
extern const struct test_suite versions_suite;        /* test_versions.c */
extern const struct test_suite sync_suite;            /* test_sync.c */
extern const struct test_suite client_suite;          /* test_client.c */
extern const struct test_suite tools_suite;           /* test_tools.c */
extern const struct test_suite text_suite;            /* test_text.c */
extern const struct test_suite long_operations_suite; /* test_long_operations.c */
extern const struct test_suite pages_suite;           /* test_pages.c */
extern const struct test_suite signatures_suite;      /* test_signatures.c */

#endif
