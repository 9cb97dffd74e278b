/*
 * ffi_harness.c: calls every function of libquire through libffi with NULL, zero and
 * garbage arguments, and checks that each one answers with an error status (or, for the
 * functions documented to return a value, the documented value) and never crashes.
 *
 * Usage: ffi_harness LIBRARY SYMBOLS PDF...
 *   LIBRARY  the libquire.so to dlopen
 *   SYMBOLS  a file with the library's exported symbols, one a line (the Makefile writes it
 *            with `nm -D --defined-only`); it must equal the set of functions in the table
 *   PDF      real PDF files; phase 3 runs once for each, on a valid handle opened from it
 *            (so indices that exist in one file and not in another are both tried)
 *
 * The signature table, out/ffi_table.h, is generated from include/quire.h by
 * gen_ffi_table.py, so a function added to the header is called here without editing this
 * file (unless it has a parameter type or a return convention the harness does not know, in
 * which case the generator or this harness stops with a message saying what to add).
 *
 * Phases:
 *   1. every argument NULL or zero;
 *   2. every pointer NULL, every integer garbage (-1, INT32_MIN, INT32_MAX, SIZE_MAX, ...);
 *   3. every combination of: a valid document handle or NULL in handle positions, NULL or a
 *      real buffer of adequate size in pointer positions (`char *buf, size_t buf_size`
 *      pairs get a real buffer with its true size, or NULL with 0, 1 or SIZE_MAX), real
 *      strings (empty, missing file, 8 KiB long, invalid UTF-8, the PDF's path), options
 *      with good and bad versions, and garbage and plain integers; in value positions NULL
 *      or a valid value of every type (the trailer, a reference, a stream of the document,
 *      and parsed null, bool, integer, real, string, name, array, dictionary, reference); PDF
 *      syntax with its true length (valid, cut short, trailing garbage, too deep); save
 *      options of both modes, version 1 (with a garbage `progress` after it, which must not
 *      be read), version 2 with a progress callback that counts or one that cancels, and bad
 *      versions and modes (a mode of another constant family among them); a real write
 *      callback, one that aborts, or NULL;
 *      in the positions of a constant family (a typedef'd enum: quire_box, ...) every
 *      constant of the family, the first constant of every other family, and numbers of no
 *      family (0, 1, -1, the extremes, one past the family's last): all but the family's own
 *      must fail; the struct of a quire_*_init function NULL or scratch, with versions 0, 1,
 *      2, UINT32_MAX and 0x80000000; the checkpoint info of quire_document_inspect_checkpoint
 *      NULL, QUIRE_CHECKPOINT_INFO_INIT, version 0, the version after the library's, or
 *      garbage;
 *      in annotation positions NULL or a valid annotation (read from the document: the first
 *      and last of a page, a reply, an item of a comments list; or made with
 *      quire_annotation_new and the setters: a note with a state, ink with two strokes, a
 *      line with endings, a polygon, a highlight with quad points; a function that changes
 *      its annotation gets a fresh one in each call, freed after it); in list positions NULL
 *      or a valid list (comments, a review history, search results, an empty list); where
 *      an annotation's object number goes, real numbers (an annotation, a reply, its
 *      target) and garbage; rectangles finite, inverted, NaN or infinite; `const double *`
 *      arrays NULL with a count, or real arrays (plain, or with a NaN or an infinity) with a
 *      count they hold; `double *buf, size_t capacity` pairs NULL with 0, 1 or SIZE_MAX or
 *      a real array of that capacity; quire_document_import_annotations_json gets the
 *      document's own JSON (quire_document_export_annotations_json) in place of the
 *      dictionary syntax, so that it can succeed;
 *      in bookmark positions NULL or a valid bookmark (new ones of every action: go to page 0
 *      with a name and a sort key, page 1, page 100000, a URI, a named action, a JavaScript
 *      action; and the stored bookmark "Title" found in the valid document); a bookmark setter
 *      gets a fresh one in each call; a getter of what the bookmark lacks (its name, sort key,
 *      page or action text) and the addition of a go-to past the last page must fail;
 *      `quire_bookmark_sink *` only NULL (a real sink exists only inside a provider's load
 *      callback: the harness's own provider uses it there); `const int64_t *` NULL or a real
 *      value (0, -1, INT64_MAX, INT64_MIN); the change callback NULL or a real one (after
 *      setting it, one more bookmark must call it exactly once, with the document and the
 *      payload given, or not at all once it is removed); provider arrays (arrays of pointers
 *      to provider structs) NULL with 0, 1 or SIZE_MAX, the built-in entry, the harness's
 *      custom provider (alone, before the built-in one, or a minimal one without save and
 *      release), and invalid ones (versions 0 and 999, no load, add or remove, a built-in
 *      entry with a callback, a good entry then a bad one, a NULL entry alone or after a
 *      good one);
 *      the valid document, and the document to edit of each bookmark function, get the chain
 *      [the harness's provider, the built-in provider], whose provider loads two bookmarks
 *      ("Title", a go-to, and a URI) through the sink, takes URI bookmarks and those it holds,
 *      and keeps a malloc'd store as its payload that its `release` frees: after a failed
 *      call no provider may have been released (the harness then frees the stores), and
 *      after both documents are closed every provider taken has been released exactly once
 *      (valgrind sees a leak or an invalid access otherwise);
 *      checkpoint options NULL (the default directory: the harness points $XDG_STATE_HOME
 *      and $HOME into its temporary directory first), or options in its temporary directory
 *      with a UID of its own (one per PDF): each strategy, loading on and off, a UID
 *      derived from the path, a missing nested directory (created), a regular file as the
 *      directory, version 1 (loading through load_if_available, garbage where version 2 has
 *      `existing`), bad versions, strategies (a constant of another family among them),
 *      `existing` of another family, intervals (0, NaN, 1e9 s) and UIDs ("a/b", "",
 *      ".."), the UID that the valid document holds (busy), and loading the checkpoint of
 *      the previous PDF's valid document (stale); after a successful start the checkpoint file must be in the temporary
 *      directory, and checkpointing is stopped so that the next call can start it again;
 *      the valid document keeps checkpoints (manual: nothing changes for the readers), so
 *      that quire_document_checkpoint_path can succeed, and its path must be in the
 *      temporary directory; before each call of quire_document_stop_checkpoints,
 *      quire_document_checkpoint and quire_document_checkpoint_async the document to edit
 *      has checkpointing started and one more unsaved change: a successful checkpoint must
 *      make the file grow, a stop must remove the file if and only if asked to; the
 *      `done` callback is NULL or the harness's (payload NULL or a slot of its own, never
 *      freed): after each successful asynchronous call with it the harness waits (up to
 *      120 s) for it to be called, on another thread, with QUIRE_OK, and at the end it
 *      checks that each successful call called it exactly once and no failed call did;
 *      at the end the temporary directory may hold only checkpoints and their locks besides
 *      what the saves wrote, $HOME in it must be empty, and the real default checkpoint
 *      directory must not have changed;
 *      the sync service (0.5): one service opened at the start on an in-memory store (with an
 *      admin token and a public key) and closed at the end, to which each PDF is uploaded
 *      (twice: one copy is for DELETE); in service positions NULL or that service, but
 *      quire_sync_service_shutdown gets a fresh one for each call (after a successful
 *      shutdown /healthz must answer 503); requests with methods NULL, GET, POST, DELETE,
 *      "" or invalid UTF-8, targets NULL, the protocol's routes (the health check, the
 *      admin API's list, upload, the PDF's layer annotations and export, a DELETE, a change
 *      feed with `wait` but no JWT) or garbage (empty, a bad percent escape, 8 KiB, invalid
 *      UTF-8), headers NULL with counts or real arrays (the admin token, with a request id,
 *      wrong tokens, an empty name, a NULL name or value), and bodies as for any bytes (the
 *      PDF among them): every call that is not refused for its arguments must give a
 *      response (the header: "every outcome ... is a response"), whose status is an HTTP
 *      status, with exactly one X-Request-Id (the request's own when it sent a valid one),
 *      a body that is NULL exactly when it is empty; configs for quire_sync_service_open
 *      that open (the defaults, a key and a token, a SQLite file in the temporary directory,
 *      a JWKS) and that must not (versions 0 and 999, unknown schemes, a relative path, a
 *      missing directory, keys that are not PEM, a count without keys, a NULL key, JWKS
 *      that is not JSON): a service opened must answer /healthz, then is shut down and
 *      closed; responses (200, 401, 405 with Allow, 204 without a body, a PDF) for the
 *      getters, whose results must agree with what the harness read of them natively (an
 *      index past the headers is QUIRE_ERANGE); the responses are freed with
 *      quire_sync_response_free at the end of each PDF, the service closed with
 *      quire_sync_service_close at the very end (all through libffi);
 *      functions that edit or save (MUTATING in gen_ffi_table.py) get a second document
 *      opened from the same file, so that the others keep reading the file as it is; paths
 *      to save to are NULL or inside a temporary directory that the harness makes and
 *      removes (it checks at the end that no temporary file was left there);
 *      the valid values, annotations and lists are freed (through libffi), then
 *      quire_document_close is called last, with the valid handles.
 *   A garbage non-NULL pointer is never passed: that would test the caller, not Quire.
 *
 * For every call of a status-returning function it checks:
 *   - the status is QUIRE_OK or a known negative code, never QUIRE_EINTERNAL;
 *   - a call with a required pointer NULL, an out-of-range index or box (-1, INT32_MIN,
 *     INT32_MAX), a bad options version, or data that is not a PDF fails;
 *   - on failure, quire_last_error_code() is the status and the message is not empty;
 *     out-parameters are untouched (except `*out_len` on QUIRE_EBUFS, which must then be
 *     at least buf_size), and so is the caller's buffer;
 *   - on success, no error is recorded, nothing is written past an out-parameter, a string
 *     buffer holds `*out_len` bytes and a NUL, and a returned document or value is non-NULL
 *     (it is closed or freed at once);
 *   - a value getter given a value of a type it does not take fails (the header: EINVAL);
 *   - a returned annotation has a page and a returned list a count (both are then freed);
 *     numbers come back through the length-query pattern for numbers (QUIRE_EBUFS only
 *     when the count exceeds the capacity, nothing written past the count), and a colour
 *     has 0 to 4 components, nothing written past them;
 *   - a setter given a number, rectangle or point that is not finite, an odd number of
 *     coordinates or a colour of 2 or more than 4 components fails;
 *   - QUIRE_EUSER comes only from a callback that returned non-zero, and a callback that
 *     returned non-zero gives QUIRE_EUSER; callbacks get data != NULL when size > 0;
 *   - QUIRE_EVERSION comes only when a struct (or an _init version) newer than the
 *     library's was passed;
 *   - an out-parameter of a constant family holds one of its constants; a quire_*_init
 *     function writes the version asked for and the defaults of the _INIT macro, and nothing
 *     after that version's bytes; quire_document_inspect_checkpoint writes a known state,
 *     in_use 0 or 1, and nothing after the struct;
 *   - a returned bookmark has a known action kind and an identifier (then it is freed); the
 *     provider callbacks get their own payload and non-NULL out-pointers, bookmarks and sinks,
 *     and their own calls into the library succeed;
 *   - quire_sync_service_handle succeeds whenever its arguments are not wrong, with a
 *     response as described above; a service opened answers /healthz; the response getters
 *     give what the harness read natively, and a string or a body pointer as the header
 *     says; every quire_sync_* status function returns QUIRE_OK at least once in the run.
 * The functions that return values (quire_version, quire_version_number,
 * quire_status_string, quire_last_error_message, quire_last_error_code, quire_clear_error,
 * quire_document_close, quire_value_free, quire_annotation_free, quire_annotation_list_free,
 * quire_bookmark_free, quire_sync_service_close, quire_sync_response_free)
 * are checked against their documentation; strings
 * are never NULL.
 *
 * It prints each failure, then `N passed, M failed` (N and M count calls), and exits
 * non-zero if anything failed.
 */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <errno.h>
#include <ffi.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "quire.h"

#include "ffi_table.h"

typedef char size_t_is_64_bits[sizeof(size_t) == 8 ? 1 : -1]; /* size_t maps to uint64 */

#define MAX_ARGS 16
#define SCRATCH 64
#define BUF_CAP 4096
#define DBUF_CAP 512
#define SENTINEL_BYTE 0xA5
#define LEN_SENTINEL ((size_t)0xA5A5A5A5A5A5A5A5u)
/* The last status code of the header: the known codes are QUIRE_OK down to it. */
#define LAST_STATUS QUIRE_EVERSION

/* ---- results --------------------------------------------------------------------------- */

static unsigned long calls_passed;
static unsigned long calls_failed;
static unsigned long failures_printed;
static int call_failed; /* the current call has failed a check */
static unsigned long status_counts[1 - LAST_STATUS]; /* by -status, for the summary */
static unsigned long ok_counts[FFI_FUNCTION_COUNT];      /* QUIRE_OK calls per function */
static char call_desc[1024];

#if defined(__GNUC__)
static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#endif
static void fail(const char *fmt, ...) {
    va_list ap;
    call_failed = 1;
    if (failures_printed < 200) {
        fprintf(stderr, "FAIL: %s: ", call_desc);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    } else if (failures_printed == 200) {
        fprintf(stderr, "(further failures not printed)\n");
    }
    failures_printed++;
}

static void end_call(void) {
    if (call_failed)
        calls_failed++;
    else
        calls_passed++;
    call_failed = 0;
}

/* A crash inside the library: say which call it was (write() is async-signal-safe). */
static void on_crash(int sig) {
    const char *head = "\nffi_harness: CRASH (signal) in call: ";
    ssize_t r;
    r = write(2, head, strlen(head));
    r = write(2, call_desc, strlen(call_desc));
    r = write(2, "\n", 1);
    (void)r;
    signal(sig, SIG_DFL);
    raise(sig);
}

/* ---- the library ----------------------------------------------------------------------- */

static void *lib;
static void (*native_clear_error)(void);
static int (*native_last_error_code)(void);
static const char *(*native_last_error_message)(void);
static int (*native_open)(quire_document **, const char *, const quire_open_options *);
static void (*native_close)(quire_document *);
static void (*native_value_free)(quire_value *);
static int (*native_value_parse)(quire_value **, const char *, size_t);
static int (*native_value_type)(quire_value_kind *, const quire_value *);
static int (*native_trailer)(quire_value **, quire_document *);
static int (*native_object)(quire_value **, quire_document *, int32_t);
static int (*native_object_count)(int32_t *, quire_document *);
static int (*native_dict_get)(quire_value **, const quire_value *, const char *);
static int (*native_add_object)(int32_t *, quire_document *, const quire_value *);
/* The 0.3 annotation functions the harness uses to make its annotations and lists. */
static int (*native_annotation_new)(quire_annotation **, const char *, int32_t, const quire_rect *);
static void (*native_annotation_free)(quire_annotation *);
/* The tool manager's, to check and free what quire_tool_manager_new returns. */
static void (*native_tool_manager_free)(quire_tool_manager *);
static int (*native_tool_manager_current_tool)(quire_tool *, quire_tool_manager *);
static int (*native_page_annotation)(quire_annotation **, quire_document *, int32_t, int32_t);
static int (*native_page_annotation_count)(int32_t *, quire_document *, int32_t);
static int (*native_page_count)(int32_t *, quire_document *);
static int (*native_annotation_id)(int32_t *, const quire_annotation *);
static int (*native_annotation_page_index)(int32_t *, const quire_annotation *);
static int (*native_annotation_is_reply)(int32_t *, const quire_annotation *);
static int (*native_annotation_in_reply_to)(int32_t *, const quire_annotation *);
static int (*native_annotation_set_string)(quire_annotation *, quire_annot_string_field,
                                           const char *);
static int (*native_annotation_set_color)(quire_annotation *, quire_annot_color_field,
                                          const double *, size_t);
static int (*native_annotation_set_points)(quire_annotation *, quire_annot_points_field,
                                           const double *, size_t);
static int (*native_annotation_add_ink_stroke)(quire_annotation *, const double *, size_t);
static int (*native_comments)(quire_annotation_list **, quire_document *, int32_t);
static int (*native_review_summary)(quire_annotation_list **, quire_annotation_list **,
                                    quire_document *, int32_t);
static int (*native_search)(quire_annotation_list **, quire_document *, const char *);
static int (*native_list_count)(int32_t *, const quire_annotation_list *);
static int (*native_list_get)(quire_annotation **, const quire_annotation_list *, int32_t);
static void (*native_list_free)(quire_annotation_list *);
static int (*native_export_json)(char *, size_t, size_t *, quire_document *, int32_t);
/* The 0.4 bookmark functions the harness uses to make its bookmarks, its providers' work and
 * its checks. */
static int (*native_bookmark_new)(quire_bookmark **, quire_action_type, int32_t, const char *);
static void (*native_bookmark_free)(quire_bookmark *);
static int (*native_bookmark_set_identifier)(quire_bookmark *, const char *);
static int (*native_bookmark_set_name)(quire_bookmark *, const char *);
static int (*native_bookmark_set_sort_key)(quire_bookmark *, const int64_t *);
static int (*native_bookmark_identifier)(char *, size_t, size_t *, const quire_bookmark *);
static int (*native_bookmark_action_kind)(quire_action_type *, const quire_bookmark *);
static int (*native_sink_add)(quire_bookmark_sink *, const quire_bookmark *);
static int (*native_set_providers)(quire_document *, const quire_bookmark_provider *const *,
                                    size_t);
static int (*native_find_bookmark)(quire_bookmark **, quire_document *, const char *);
static int (*native_add_bookmark)(quire_document *, const quire_bookmark *);
/* The 0.5 checkpoint functions the harness uses to start checkpointing before the calls that
 * need it, to stop it after a successful start, and to find the checkpoint file. */
static int (*native_start_checkpoints)(int32_t *, quire_document *,
                                       const quire_checkpoint_options *);
static int (*native_stop_checkpoints)(quire_document *, int32_t);
static int (*native_checkpoint_path)(char *, size_t, size_t *, quire_document *);
/* The 0.5 sync service functions the harness uses to open its service, make its responses,
 * read what the calls return, and close what they opened. */
static int (*native_sync_open)(quire_sync_service **, const quire_sync_config *);
static int (*native_sync_shutdown)(quire_sync_service *);
static void (*native_sync_close)(quire_sync_service *);
static int (*native_sync_handle)(quire_sync_response **, quire_sync_service *, const char *,
                                 const char *, const quire_sync_header *, size_t, const void *,
                                 size_t);
static int (*native_response_status)(int32_t *, const quire_sync_response *);
static int (*native_response_header_count)(size_t *, const quire_sync_response *);
static int (*native_response_header)(const char **, const char **, const quire_sync_response *,
                                     size_t);
static int (*native_response_body)(const void **, size_t *, const quire_sync_response *);
static void (*native_response_free)(quire_sync_response *);

/* dlsym into a function pointer without the object-to-function-pointer cast that ISO C
 * (and -pedantic) forbids. */
static int load(void *fnptr, size_t size, const char *name) {
    void *sym = dlsym(lib, name);
    if (!sym) {
        fprintf(stderr, "ffi_harness: dlsym(%s): %s\n", name, dlerror());
        return 0;
    }
    memcpy(fnptr, &sym, size);
    return 1;
}

/* ---- argument values ------------------------------------------------------------------- */

typedef union {
    unsigned char bytes[SCRATCH];
    double d;
    uint64_t u;
    void *p;
} scratch_t;

/* Everything one call uses; reset before each call. */
struct call {
    const struct ffi_function *fn;
    union {
        void *p;
        int32_t i32;
        uint32_t u32;
        uint64_t u64;
        int64_t i64;
        double d;
    } values[MAX_ARGS];
    void *avalues[MAX_ARGS];
    int must_fail;                /* some argument makes success impossible */
    scratch_t scratch[MAX_ARGS];  /* out-parameters */
    char buf[BUF_CAP];            /* the string buffer of a buf/buf_size pair */
    quire_open_options options;
    quire_save_options save_options;
    int32_t value_type;           /* the type of the value passed, or -1 (none or NULL) */
    int uses_aborter;             /* the aborting write callback is passed */
    quire_value *fresh_value;     /* a value made for quire_value_free to consume */
    quire_annotation *mut_annot;  /* a fresh annotation for a setter, add or update: freed */
    double dbuf[DBUF_CAP];        /* the number buffer of a double buf/capacity pair */
    quire_rect rect;
    quire_bookmark *mut_bookmark; /* a fresh bookmark for a setter: freed after the call */
    int32_t bookmark_recipe;      /* the BM_* passed as `const quire_bookmark *`, or -1 */
    int64_t int64_in;             /* what a `const int64_t *` points at */
    /* The providers passed to quire_document_set_bookmark_providers, and the payloads of
     * the harness's custom ones among them (malloc'd for this call: the library frees them
     * through `release` if it takes them, the harness after a failed call). */
    quire_bookmark_provider providers[2];
    const quire_bookmark_provider *provider_ptrs[2]; /* the array of pointers passed */
    struct harness_store *stores[2];
    int provider_choice;          /* the PR_* passed, or -1 */
    int uses_change_fn;           /* the bookmark change callback is passed (not NULL) */
    void *change_payload;         /* the payload passed with it */
    /* 0.5, checkpoints. */
    quire_checkpoint_options checkpoint_options;
    int checkpoint_choice;        /* the CO_* passed to quire_document_start_checkpoints, or -1 */
    int uses_done_fn;             /* quire_document_checkpoint_async gets the harness's `done` */
    int done_slot;                /* the done_slots entry passed as its payload, or -1 (NULL) */
    long long journal_size;       /* the checkpoint file's size before the call, or -1 */
    /* The struct that quire_document_inspect_checkpoint fills (of the CI_* passed), with
     * room after it, and its bytes before the call. */
    union {
        quire_checkpoint_info info;
        unsigned char bytes[sizeof(quire_checkpoint_info) + 32];
    } info, info_before;
    int info_choice;              /* the CI_* passed, or -1 */
    /* 0.5, the sync service. */
    quire_sync_config sync_config;      /* the config passed to quire_sync_service_open */
    quire_sync_header sync_headers[2];  /* the headers passed to quire_sync_service_handle */
    const char *sync_request_id;        /* the valid X-Request-Id among them, or NULL */
    int sync_response_choice;           /* the SR_* passed as a response, or -1 */
    quire_sync_service *fresh_service;  /* a service of its own (a _shutdown's): closed after */
    /* The struct that a quire_*_init function fills, with room after it (sentinel bytes). */
    union {
        double align_d;
        void *align_p;
        unsigned char bytes[256];
    } init_struct;
    int newer_version;            /* a versioned struct (or an _init version) newer than the
                                     library's is passed: only then is QUIRE_EVERSION right */
    int status;                   /* what the call returned (status functions) */
};

static quire_document *valid_doc;
/* A second document opened from the same file, for the functions that edit or save it. */
static quire_document *edit_doc;
static const char *pdf_path;
static unsigned char *pdf_bytes;
static size_t pdf_size;
static char long_string[8193];
static const unsigned char garbage_data[] = "\x00\x01\x02GARBAGE%PDF-?\xff\xfe\xfd not a pdf";
static const char invalid_utf8[] = "\xff\xfe\xc3(\xa0";
static unsigned char handle_sentinel_target; /* a real address, never dereferenced */

static const int32_t int_garbage[] = {-1, INT32_MIN, INT32_MAX, -2, 1000000};
static const uint32_t uint_garbage[] = {UINT32_MAX, 0x80000000u, 999u, 1u, 0u};
static const uint64_t size_garbage[] = {SIZE_MAX, (uint64_t)1 << 62, 0x80000000u, 1u,
                                        SIZE_MAX - 1};
static const int64_t int64_garbage[] = {-1, INT64_MIN, INT64_MAX, 1, 0};
#define N_GARBAGE 5

/* ---- values, paths and callbacks for the 0.2 functions ----------------------------------- */

/* The values passed in `const quire_value *` positions, made for each PDF in phase 3. */
enum {
    VAL_NULL,       /* a NULL pointer */
    VAL_TRAILER,    /* the document's trailer (a dictionary) */
    VAL_ROOT_REF,   /* its /Root (a reference) */
    VAL_STREAM,     /* the first stream object of the document */
    VAL_P_NULL,     /* the rest are parsed from PDF syntax */
    VAL_P_BOOL,
    VAL_P_INT,
    VAL_P_REAL,
    VAL_P_STRING,
    VAL_P_NAME,
    VAL_P_ARRAY,
    VAL_P_DICT,
    VAL_P_REF,
    N_VAL
};
static const char *const value_syntax[N_VAL] = {
    NULL, NULL, NULL, NULL, "null", "true", "42", "3.5", "(Title)", "/Title", "[0 0 612 792]",
    "<< /Type /Annot /Subtype /Square /Rect [0 0 10 10] /Title (x) >>", "1 0 R"};
static const char *const value_names[N_VAL] = {
    "NULL", "<trailer>", "<root reference>", "<stream>", "null", "true", "42", "3.5",
    "(Title)", "/Title", "[0 0 612 792]", "<<annotation>>", "1 0 R"};
static quire_value *valid_values[N_VAL];
static int32_t valid_value_types[N_VAL];

/* The value types each value function takes (the header's doc comment of each); a value of
 * another type must fail. (A bit per type, counted from QUIRE_VALUE_NULL: the family's
 * range.) */
#define TYPE_BIT(t) (1u << ((t) - QUIRE_VALUE_NULL))
#define T(x) TYPE_BIT(QUIRE_VALUE_##x)
static const struct {
    const char *name;
    unsigned types;
} value_rules[] = {
    {"quire_value_bool", T(BOOL)},
    {"quire_value_integer", T(INTEGER)},
    {"quire_value_number", T(INTEGER) | T(REAL)},
    {"quire_value_reference", T(REFERENCE)},
    {"quire_value_bytes", T(STRING) | T(NAME)},
    {"quire_value_text", T(STRING)},
    {"quire_value_count", T(ARRAY) | T(DICTIONARY) | T(STREAM)},
    {"quire_value_array_get", T(ARRAY)},
    {"quire_value_dict_key", T(DICTIONARY) | T(STREAM)},
    {"quire_value_dict_get", T(DICTIONARY) | T(STREAM)},
    {"quire_document_stream_data", T(STREAM)},
    {"quire_document_add_stream", T(DICTIONARY)},
};
#undef T

/* ---- annotations, lists, rectangles and numbers for the 0.3 functions ---------------------- */

/* The annotations passed in annotation positions, made for each PDF in phase 3: read from
 * the valid document, or made with quire_annotation_new and the setters. Each recipe can be
 * made again: a function that changes its annotation (a setter, add, update) gets a fresh
 * one in each call, freed after it. A recipe the PDF has nothing for (no annotations, no
 * reply) is NULL. */
enum {
    AN_NULL,         /* a NULL pointer */
    AN_PAGE_FIRST,   /* annotation 0 of the first page that has annotations */
    AN_PAGE_LAST,    /* the last annotation of that page */
    AN_REPLY,        /* the first annotation with /IRT */
    AN_LIST_ITEM,    /* the last item of the comments of the reply's target (or of the first) */
    AN_NEW_TEXT,     /* new, then the setters: a note with text fields and a state */
    AN_NEW_INK,      /* an ink annotation with two strokes */
    AN_NEW_LINE,     /* a line with its points, line endings, colours */
    AN_NEW_POLYGON,  /* a polygon with vertices */
    AN_NEW_MARKUP,   /* a highlight with quad points */
    N_AN
};
static const char *const annotation_names[N_AN] = {
    "NULL", "<first annotation>", "<last annotation>", "<a reply>", "<comments item>",
    "<new Text>", "<new Ink>", "<new Line>", "<new Polygon>", "<new Highlight>"};
static quire_annotation *valid_annots[N_AN];
/* The valid document's annotations as JSON (quire_document_export_annotations_json of every
 * page): what quire_document_import_annotations_json gets instead of the PDF dictionary
 * syntax, so that it can succeed. */
static char *export_json;
static size_t export_json_len;

/* Lists passed in list positions. */
enum { LS_NULL, LS_COMMENTS, LS_HISTORY, LS_SEARCH_EMPTY, LS_SEARCH_E, N_LS };
static const char *const list_names[N_LS] = {"NULL", "<comments>", "<review history>",
                                             "<search \"\">", "<search \"e\">"};
static quire_annotation_list *valid_lists[N_LS];

/* Object numbers passed where an annotation's number is expected. */
enum { NUM_ZERO, NUM_FIRST, NUM_REPLY, NUM_TARGET, NUM_MINUS1, NUM_MIN, NUM_MAX, N_NUM };
static const char *const number_names[N_NUM] = {"0", "<first annotation>", "<a reply>",
                                                "<the reply's target>", "-1", "INT32_MIN",
                                                "INT32_MAX"};
static int32_t valid_numbers[N_NUM];

/* Rectangles for `const quire_rect *`. */
enum { RC_NULL, RC_PLAIN, RC_INVERTED, RC_NAN, RC_INF, N_RC };
static const char *const rect_names[N_RC] = {"NULL", "[10 20 110 70]", "[110 70 10 20]",
                                             "[NaN 0 1 1]", "[0 0 inf 1]"};

/* Arrays of doubles with a count, for `const double *, count` pairs: NULL with counts, and
 * real arrays (of 16 numbers in 0..1, or with a NaN or an infinity in them) passed with a
 * count no larger than the array. */
enum { DB_NULL_0, DB_NULL_1, DB_NULL_BIG, DB_REAL_0, DB_REAL_1, DB_REAL_3, DB_REAL_4,
       DB_REAL_8, DB_REAL_16, DB_NAN_4, DB_INF_8, N_DB };
static const double plain_numbers[16] = {0.25, 0.5,  0.75, 1,   0,   0.125, 0.375, 0.625,
                                         0.875, 0.5, 0.25, 0.75, 1,  0.5,   0.0625, 0.9375};
static double nan_numbers[4], inf_numbers[8];

/* Number buffers for `double *buf, size_t capacity` pairs (DBUF_CAP doubles). */
enum { DBUF_NULL_0, DBUF_NULL_1, DBUF_NULL_MAX, DBUF_REAL_0, DBUF_REAL_1, DBUF_REAL_FULL,
       N_DBUF };

/* PDF syntax with its length, for `const char *, size_t` pairs. */
enum { TXT_NULL_0, TXT_NULL_1, TXT_NULL_MAX, TXT_EMPTY, TXT_INT, TXT_DICT, TXT_NUL_STRING,
       TXT_CUT, TXT_TRAILING, TXT_DEEP, TXT_GARBAGE, N_TXT };
static char deep_syntax[10001]; /* 5000 '[' then 5000 ']': past the nesting limit */

/* Paths to save to: only NULL and paths inside the harness's temporary directory. */
enum { WP_NULL, WP_EMPTY, WP_FILE, WP_MISSING_DIR, WP_DIRECTORY, WP_LONG, N_WP };
static char temp_dir[64];
static char wp_file[128], wp_missing[128], wp_directory[128], wp_long[512];

enum { SO_NULL, SO_INIT, SO_FULL, SO_FULL_OBJSTM, SO_V0, SO_V999, SO_MODE2, SO_MODE_NEG,
       SO_MODE_FAMILY, SO_V1, SO_PROGRESS, SO_CANCEL, N_SO };
enum { WF_NULL, WF_WRITER, WF_ABORTER, N_WF };
enum { PL_NULL, PL_REAL, N_PL };

/* The write callbacks: one collects nothing but counts, one aborts at once. */
struct write_counts {
    unsigned long calls;
    unsigned long long bytes;
};
static struct write_counts payload_counts;
static unsigned long aborter_calls, bad_write_arguments;

static int harness_write(const void *data, size_t size, void *payload) {
    struct write_counts *counts = payload;
    if (size > 0 && data == NULL) bad_write_arguments++;
    if (counts) {
        counts->calls++;
        counts->bytes += size;
    }
    return 0;
}

static int harness_abort(const void *data, size_t size, void *payload) {
    (void)data;
    (void)size;
    (void)payload;
    aborter_calls++;
    return 1;
}

/* The progress callbacks of version 2 of quire_save_options: one counts (and checks its
 * arguments), one cancels at once (an aborting callback, as harness_abort), and one must
 * never be called: it is the garbage `progress` of a version 1 struct, which the library
 * does not read. */
static unsigned long progress_calls, bad_progress_calls;

static int harness_progress(uint64_t done, uint64_t total, void *payload) {
    progress_calls++;
    if (payload != &progress_calls || done > total) bad_progress_calls++;
    return 0;
}

static int harness_progress_cancel(uint64_t done, uint64_t total, void *payload) {
    (void)done;
    (void)total;
    (void)payload;
    aborter_calls++;
    return 1;
}

static int harness_progress_of_v1(uint64_t done, uint64_t total, void *payload) {
    (void)done;
    (void)total;
    (void)payload;
    bad_progress_calls++;
    return 0;
}

/* Was a library bug (fixed): version 1 of quire_save_options was read and written as 16
 * bytes (up to `progress`, with the padding) instead of the header's 12. 0 tests the exact
 * 12 bytes; 1 would bring back the workaround of a 16-byte guard. */
#define KNOWN_BUG_SAVE_OPTIONS_V1 0

/* ---- bookmarks, providers and callbacks for the 0.4 functions ------------------------------ */

/* The bookmarks passed in `const quire_bookmark *` positions (and, made fresh for each call,
 * in the `quire_bookmark *` of the setters), made for each PDF in phase 3 with the
 * library's functions, called directly. */
enum {
    BM_NULL,     /* a NULL pointer */
    BM_GOTO0,    /* go to page 0, named "Chapter", sort key 7 */
    BM_GOTO1,    /* go to page 1 (past the last page of a one-page file) */
    BM_GOTO_FAR, /* go to page 100000: past the last page of every harness PDF */
    BM_URI,      /* a URI, no name, no sort key */
    BM_NAMED,    /* the named action LastPage */
    BM_OTHER,    /* a JavaScript action, as its dictionary */
    BM_STORED,   /* the valid document's stored bookmark "Title" (quire_document_find_bookmark) */
    N_BM
};
static const char *const bookmark_names[N_BM] = {
    "NULL", "<go to page 0>", "<go to page 1>", "<go to page 100000>", "<URI>",
    "<named LastPage>", "<JavaScript action>", "<stored \"Title\">"};
/* What each recipe has, for the getters' rules: its kind, a name, a sort key, its page. */
static const struct {
    int32_t kind, has_name, has_key, page;
} bookmark_props[N_BM] = {
    {-1, 0, 0, -1},
    {QUIRE_BOOKMARK_GOTO, 1, 1, 0},
    {QUIRE_BOOKMARK_GOTO, 0, 0, 1},
    {QUIRE_BOOKMARK_GOTO, 0, 0, 100000},
    {QUIRE_BOOKMARK_URI, 0, 0, -1},
    {QUIRE_BOOKMARK_NAMED, 0, 0, -1},
    {QUIRE_BOOKMARK_OTHER, 0, 0, -1},
    {QUIRE_BOOKMARK_GOTO, 1, 1, 0}, /* as the harness's provider loads it */
};
static quire_bookmark *valid_bookmarks[N_BM];
static int32_t valid_page_count; /* of the valid document: a go-to past it cannot be added */

/* The harness's custom provider. Its payload is a store, malloc'd for each chain that takes
 * it and freed by its `release` (valgrind reports a leak if release is never called, and an
 * invalid access if it is called twice or a callback comes after it). Its `load` gives two
 * stored bookmarks through the real sink: "Title" (go to page 0, named "Title", sort key 5)
 * and "ffi-stored-uri" (a URI, no sort key); `add` takes URI bookmarks and those it holds,
 * and declines the others (so that they go to the built-in provider after it); `remove`
 * removes those it holds. A "minimal" provider (load, add and remove only, a static payload,
 * no release) loads nothing and declines everything. */
#define STORE_MAGIC 0x51554952u
#define STORE_IDS 32
#define STORE_ID_LEN 128
struct harness_store {
    uint32_t magic;
    int n;
    char ids[STORE_IDS][STORE_ID_LEN];
};
static struct harness_store minimal_store = {STORE_MAGIC, 0, {{0}}};
static unsigned long providers_taken;    /* custom providers with a release the library took */
static unsigned long providers_released; /* calls of the harness's release */
static unsigned long bad_provider_calls; /* callbacks called with wrong arguments */
static unsigned long provider_callback_calls;

/* Whether `payload` is a live store (checked before anything else is done with it). */
static struct harness_store *store_of(void *payload) {
    struct harness_store *store = payload;
    if (!store || store->magic != STORE_MAGIC) {
        bad_provider_calls++;
        return NULL;
    }
    return store;
}

/* The identifier of `bookmark` into `buf` (STORE_ID_LEN bytes); 0 if it does not fit. Only
 * calls that succeed: a failing call would record an error during the document's call. */
static int bookmark_id(char *buf, const quire_bookmark *bookmark) {
    size_t len = 0;
    if (native_bookmark_identifier(NULL, 0, &len, bookmark) != QUIRE_OK) {
        bad_provider_calls++;
        return 0;
    }
    if (len + 1 > STORE_ID_LEN) return 0;
    if (native_bookmark_identifier(buf, STORE_ID_LEN, &len, bookmark) != QUIRE_OK) {
        bad_provider_calls++;
        return 0;
    }
    return 1;
}

static int store_find(const struct harness_store *store, const char *id) {
    int k;
    for (k = 0; k < store->n; k++)
        if (strcmp(store->ids[k], id) == 0) return k;
    return -1;
}

static void store_put(struct harness_store *store, const char *id) {
    if (store_find(store, id) < 0 && store->n < STORE_IDS) {
        snprintf(store->ids[store->n], STORE_ID_LEN, "%s", id);
        store->n++;
    }
}

static int hp_load(quire_bookmark_sink *sink, void *payload) {
    struct harness_store *store = store_of(payload);
    quire_bookmark *b = NULL;
    int64_t key = 5;
    provider_callback_calls++;
    if (!store) return 0;
    if (!sink) {
        bad_provider_calls++;
        return 0;
    }
    if (native_bookmark_new(&b, QUIRE_BOOKMARK_GOTO, 0, NULL) != QUIRE_OK ||
        native_bookmark_set_identifier(b, "Title") != QUIRE_OK ||
        native_bookmark_set_name(b, "Title") != QUIRE_OK ||
        native_bookmark_set_sort_key(b, &key) != QUIRE_OK || native_sink_add(sink, b) != QUIRE_OK)
        bad_provider_calls++;
    else
        store_put(store, "Title");
    native_bookmark_free(b);
    b = NULL;
    if (native_bookmark_new(&b, QUIRE_BOOKMARK_URI, 0, "https://example.org/ffi") != QUIRE_OK ||
        native_bookmark_set_identifier(b, "ffi-stored-uri") != QUIRE_OK ||
        native_sink_add(sink, b) != QUIRE_OK)
        bad_provider_calls++;
    else
        store_put(store, "ffi-stored-uri");
    native_bookmark_free(b);
    return 0;
}

static int hp_add(int32_t *accepted, const quire_bookmark *bookmark, void *payload) {
    struct harness_store *store = store_of(payload);
    char id[STORE_ID_LEN];
    quire_action_type kind = QUIRE_ACTION_NONE;
    provider_callback_calls++;
    if (!store) return 0;
    if (!accepted || !bookmark || native_bookmark_action_kind(&kind, bookmark) != QUIRE_OK) {
        bad_provider_calls++;
        return 0;
    }
    *accepted = 0;
    if (!bookmark_id(id, bookmark)) return 0;
    if (kind == QUIRE_BOOKMARK_URI || store_find(store, id) >= 0) {
        if (store_find(store, id) < 0 && store->n >= STORE_IDS) return 0; /* full */
        store_put(store, id);
        *accepted = 1;
    }
    return 0;
}

static int hp_remove(int32_t *removed, const quire_bookmark *bookmark, void *payload) {
    struct harness_store *store = store_of(payload);
    char id[STORE_ID_LEN];
    int k;
    provider_callback_calls++;
    if (!store) return 0;
    if (!removed || !bookmark) {
        bad_provider_calls++;
        return 0;
    }
    *removed = 0;
    if (!bookmark_id(id, bookmark) || (k = store_find(store, id)) < 0) return 0;
    store->n--;
    memmove(store->ids[k], store->ids[k + 1], (size_t)(store->n - k) * STORE_ID_LEN);
    *removed = 1;
    return 0;
}

static int hp_save(void *payload) {
    provider_callback_calls++;
    store_of(payload);
    return 0;
}

static void hp_release(void *payload) {
    struct harness_store *store = store_of(payload);
    providers_released++;
    if (!store) return;
    store->magic = 0;
    free(store);
}

static int hp_min_load(quire_bookmark_sink *sink, void *payload) {
    provider_callback_calls++;
    if (!sink || payload != &minimal_store) bad_provider_calls++;
    return 0;
}

static int hp_min_add(int32_t *accepted, const quire_bookmark *bookmark, void *payload) {
    provider_callback_calls++;
    if (!accepted || !bookmark || payload != &minimal_store) {
        bad_provider_calls++;
        return 0;
    }
    *accepted = 0;
    return 0;
}

static int hp_min_remove(int32_t *removed, const quire_bookmark *bookmark, void *payload) {
    provider_callback_calls++;
    if (!removed || !bookmark || payload != &minimal_store) {
        bad_provider_calls++;
        return 0;
    }
    *removed = 0;
    return 0;
}

/* A custom provider with the harness's callbacks and a new store (NULL if malloc fails). */
static quire_bookmark_provider harness_provider(struct harness_store **store_out) {
    quire_bookmark_provider p = QUIRE_BOOKMARK_PROVIDER_INIT;
    struct harness_store *store = calloc(1, sizeof *store);
    if (store) store->magic = STORE_MAGIC;
    p.load = hp_load;
    p.add = hp_add;
    p.remove = hp_remove;
    p.save = hp_save;
    p.release = hp_release;
    p.payload = store;
    *store_out = store;
    return p;
}

static quire_bookmark_provider minimal_provider(void) {
    quire_bookmark_provider p = QUIRE_BOOKMARK_PROVIDER_INIT;
    p.load = hp_min_load;
    p.add = hp_min_add;
    p.remove = hp_min_remove;
    p.payload = &minimal_store;
    return p;
}

/* Gives `doc` the chain [the harness's provider, the built-in provider] (natively). */
static int install_harness_chain(quire_document *doc) {
    quire_bookmark_provider chain[2], builtin = QUIRE_BOOKMARK_PROVIDER_BUILTIN_INIT;
    const quire_bookmark_provider *pointers[2];
    struct harness_store *store = NULL;
    chain[0] = harness_provider(&store);
    chain[1] = builtin;
    pointers[0] = &chain[0];
    pointers[1] = &chain[1];
    if (!store) return 0;
    if (native_set_providers(doc, pointers, 2) != QUIRE_OK) {
        free(store);
        return 0;
    }
    providers_taken++;
    return 1;
}

/* The provider arrays passed to quire_document_set_bookmark_providers: arrays of pointers
 * to provider structs (the header), some of them NULL. */
enum { PR_NULL_0, PR_NULL_1, PR_NULL_MAX, PR_BUILTIN, PR_CUSTOM, PR_CUSTOM_BUILTIN,
       PR_MINIMAL_BUILTIN, PR_V0, PR_V999, PR_NO_LOAD, PR_NO_ADD, PR_NO_REMOVE,
       PR_BUILTIN_CALLBACKS, PR_CUSTOM_THEN_BAD, PR_NULL_ENTRY, PR_CUSTOM_THEN_NULL, N_PR };
static const char *const provider_names[N_PR] = {
    "NULL/0", "NULL/1", "NULL/SIZE_MAX", "[&builtin]/1", "[&custom]/1", "[&custom, &builtin]/2",
    "[&minimal, &builtin]/2", "[&<version 0>]/1", "[&<version 999>]/1", "[&<no load>]/1",
    "[&<no add>]/1", "[&<no remove>]/1", "[&<builtin with a save callback>]/1",
    "[&custom, &<version 999>]/2", "[NULL]/1", "[&custom, NULL]/2"};

/* The bookmark change callback: counts its calls and checks its arguments. */
static unsigned long change_calls, bad_change_calls;
static quire_document *change_expected_doc;
static void *change_expected_payload;

static void harness_bookmarks_changed(quire_document *doc, void *payload) {
    change_calls++;
    if (doc != change_expected_doc || payload != change_expected_payload) bad_change_calls++;
}

static const int64_t int64_in_choices[] = {0, -1, INT64_MAX, INT64_MIN};
#define N_INT64_IN 5 /* NULL, then the four */

/* A fresh bookmark made by `recipe`, or NULL (BM_NULL, or a failure: reported by the
 * caller). */
static quire_bookmark *make_bookmark(int recipe) {
    quire_bookmark *b = NULL;
    int64_t key = 7;
    int ok = 1;
    switch (recipe) {
    case BM_GOTO0:
        ok = native_bookmark_new(&b, QUIRE_BOOKMARK_GOTO, 0, NULL) == QUIRE_OK &&
             native_bookmark_set_name(b, "Chapter") == QUIRE_OK &&
             native_bookmark_set_sort_key(b, &key) == QUIRE_OK;
        break;
    case BM_GOTO1: ok = native_bookmark_new(&b, QUIRE_BOOKMARK_GOTO, 1, NULL) == QUIRE_OK; break;
    case BM_GOTO_FAR:
        ok = native_bookmark_new(&b, QUIRE_BOOKMARK_GOTO, 100000, NULL) == QUIRE_OK;
        break;
    case BM_URI:
        ok = native_bookmark_new(&b, QUIRE_BOOKMARK_URI, 0, "https://example.org/a?b=c") ==
             QUIRE_OK;
        break;
    case BM_NAMED: ok = native_bookmark_new(&b, QUIRE_BOOKMARK_NAMED, 0, "LastPage") == QUIRE_OK; break;
    case BM_OTHER:
        ok = native_bookmark_new(&b, QUIRE_BOOKMARK_OTHER, 0,
                                 "<< /S /JavaScript /JS (app.alert(1)) >>") == QUIRE_OK;
        break;
    case BM_STORED: ok = native_find_bookmark(&b, valid_doc, "Title") == QUIRE_OK; break;
    default: return NULL;
    }
    if (ok) return b;
    native_bookmark_free(b);
    return NULL;
}

/* The bookmarks of phase 3 for valid_doc, which first gets the harness's chain (so that it
 * has stored bookmarks to list, find and copy). Returns 0 if one could not be made. */
static int make_bookmarks(void) {
    int k;
    memset(valid_bookmarks, 0, sizeof valid_bookmarks);
    valid_page_count = 0;
    if (native_page_count(&valid_page_count, valid_doc) != QUIRE_OK) return 0;
    if (!install_harness_chain(valid_doc)) return 0;
    for (k = BM_NULL + 1; k < N_BM; k++)
        if (!(valid_bookmarks[k] = make_bookmark(k))) return 0;
    return 1;
}

/* ---- checkpoints, for the 0.5 functions ------------------------------------------------------ */

/* Where checkpoints go. Every checkpoint the harness makes is in its temporary directory:
 * options name CHECKPOINT_SUBDIR there, and NULL options (the default directory,
 * $XDG_STATE_HOME/quire/checkpoints, else ~/.local/state/quire/checkpoints) find
 * $XDG_STATE_HOME and $HOME pointed into it (STATE_SUBDIR and HOME_SUBDIR) before the first
 * call. At the end the harness checks that the real default directory gained nothing. */
#define CHECKPOINT_SUBDIR "checkpoints"
#define STATE_SUBDIR "state"
#define HOME_SUBDIR "home"
#define NOT_A_DIR "not-a-directory" /* a regular file, given as a checkpoint directory */
static char cp_dir[128], cp_nested_dir[160], cp_file_dir[128];
/* The UIDs of this PDF: for the start calls (ffi-N), for the calls that need checkpointing
 * started first (ffi-setup-N) and for the valid document (ffi-valid-N). One per PDF, so
 * that a checkpoint of one file is never loaded into another (that would be QUIRE_ESTALE). */
static char cp_uid[32], cp_setup_uid[32], cp_valid_uid[32], cp_previous_uid[32];
static int pdf_index;
/* The real default directory (from the environment before the harness changed it), and the
 * names it held before. */
static char real_default_dir[512];
static char *real_default_names; /* "\n"-joined, sorted; NULL if the directory did not exist */

/* The options passed as `const quire_checkpoint_options *`. */
enum {
    CO_NULL,         /* NULL: the defaults (manual, the default directory, UID from the path) */
    CO_MANUAL,       /* INIT, the harness's directory and UID */
    CO_IMMEDIATE,    /* the immediate strategy */
    CO_TIMED,        /* the timed strategy, every 0.05 s */
    CO_LOAD,         /* manual, load_if_available */
    CO_PATH_UID,     /* the harness's directory, no UID (derived from the path), loading */
    CO_NESTED,       /* a directory two levels below the harness's, missing: created */
    CO_FILE_DIR,     /* a regular file as the directory: QUIRE_EIO */
    CO_V0,           /* version 0 */
    CO_V999,         /* version 999 */
    CO_V1,           /* version 1 (no `existing`), loading: an older caller's struct */
    CO_STRATEGY_3,   /* strategy 3 */
    CO_STRATEGY_NEG, /* strategy -1 */
    CO_STRATEGY_FAMILY, /* a constant of another family as the strategy */
    CO_EXISTING_FAMILY, /* a constant of another family as `existing` */
    CO_INTERVAL_0,   /* timed, interval 0 */
    CO_INTERVAL_NAN, /* timed, interval NaN */
    CO_INTERVAL_BIG, /* timed, interval 1e9 s */
    CO_UID_SLASH,    /* UID "a/b": not a file name */
    CO_UID_EMPTY,    /* UID "" */
    CO_UID_DOTDOT,   /* UID ".." */
    CO_BUSY,         /* the valid document's UID, which it holds: QUIRE_EBUSY */
    CO_STALE,        /* loading the previous PDF's checkpoint: QUIRE_ESTALE (but for the first) */
    N_CO
};
static const char *const checkpoint_option_names[N_CO] = {
    "NULL", "<manual>", "<immediate>", "<timed 0.05 s>", "<manual, load>",
    "<UID from the path, load>", "<missing nested directory>", "<a file as directory>",
    "version 0", "version 999", "<version 1, load>", "strategy 3", "strategy -1",
    "strategy QUIRE_CHECKPOINT_EXISTING_LOAD", "existing QUIRE_CHECKPOINT_MANUAL",
    "<timed 0 s>", "<timed NaN s>",
    "<timed 1e9 s>", "uid \"a/b\"", "uid \"\"", "uid \"..\"", "<the valid document's UID>",
    "<the previous PDF's UID, load>"};

static int checkpoint_start_options_for(quire_checkpoint_options *o, int choice);

/* The options of `choice` into *o; returns whether they can succeed with
 * quire_document_start_checkpoints (the header: a bad version, strategy, interval, `existing`
 * or UID is QUIRE_EINVAL, QUIRE_EVERSION for a newer version, a directory that cannot be
 * made is QUIRE_EIO), or with quire_document_inspect_checkpoint when `inspect` is set (which
 * "only uses `directory` and `uid`": only a bad version or UID must fail there; the other
 * choices may succeed or not). Sets *newer for a version newer than the library's. */
static int checkpoint_options_for(quire_checkpoint_options *o, int choice, int inspect,
                                  int *newer) {
    int valid = checkpoint_start_options_for(o, choice);
    *newer = choice == CO_V999;
    if (!inspect) return valid;
    switch (choice) {
    case CO_V0:
    case CO_V999:
    case CO_UID_SLASH:
    case CO_UID_EMPTY:
    case CO_UID_DOTDOT:
        return 0;
    default:
        return 1;
    }
}

static int checkpoint_start_options_for(quire_checkpoint_options *o, int choice) {
    quire_checkpoint_options init = QUIRE_CHECKPOINT_OPTIONS_INIT;
    *o = init;
    o->directory = cp_dir;
    o->uid = cp_uid;
    switch (choice) {
    case CO_IMMEDIATE: o->strategy = QUIRE_CHECKPOINT_IMMEDIATE; return 1;
    case CO_TIMED:
        o->strategy = QUIRE_CHECKPOINT_TIMED;
        o->interval_seconds = 0.05;
        return 1;
    case CO_LOAD: o->load_if_available = 1; return 1;
    case CO_PATH_UID:
        o->uid = NULL;
        o->load_if_available = 1;
        return 1;
    case CO_NESTED: o->directory = cp_nested_dir; return 1;
    case CO_FILE_DIR: o->directory = cp_file_dir; return 0;
    case CO_V0: o->version = 0; return 0;
    case CO_V999: o->version = 999; return 0;
    case CO_V1:
        /* Version 1 has no `existing` (garbage there is not read); load_if_available says
         * it (the header). */
        o->version = 1;
        o->load_if_available = 1;
        o->existing = (quire_checkpoint_existing)0x7777;
        return 1;
    case CO_STRATEGY_3: o->strategy = (quire_checkpoint_strategy)3; return 0;
    case CO_STRATEGY_NEG: o->strategy = (quire_checkpoint_strategy)-1; return 0;
    case CO_STRATEGY_FAMILY:
        o->strategy = (quire_checkpoint_strategy)QUIRE_CHECKPOINT_EXISTING_LOAD;
        return 0;
    case CO_EXISTING_FAMILY:
        o->existing = (quire_checkpoint_existing)QUIRE_CHECKPOINT_MANUAL;
        return 0;
    case CO_INTERVAL_0:
    case CO_INTERVAL_NAN:
    case CO_INTERVAL_BIG:
        o->strategy = QUIRE_CHECKPOINT_TIMED;
        o->interval_seconds = choice == CO_INTERVAL_0 ? 0.0 : choice == CO_INTERVAL_NAN ? NAN : 1e9;
        return 0;
    case CO_UID_SLASH: o->uid = "a/b"; return 0;
    case CO_UID_EMPTY: o->uid = ""; return 0;
    case CO_UID_DOTDOT: o->uid = ".."; return 0;
    case CO_BUSY: o->uid = cp_valid_uid; return 0;
    case CO_STALE:
        /* The previous PDF's valid document left its checkpoint (closing keeps it): taken
         * against another file. For the first PDF there is none: nothing to load. */
        o->uid = cp_previous_uid;
        o->load_if_available = 1;
        return pdf_index == 0;
    default: return 1; /* CO_MANUAL (CO_NULL passes NULL) */
    }
}

/* The `done` callback of quire_document_checkpoint_async, called on a background thread.
 * Its payload is NULL or an entry of done_slots (one per call, never reused or freed, so
 * that a late or second call is counted instead of touching freed memory). It only records,
 * under done_mutex; the main thread waits on done_cond and checks. */
#define DONE_SLOTS 4096
#define DONE_MAGIC 0x444f4e45u
struct done_slot {
    uint32_t magic;
    unsigned long calls;
    int status;
    int expected; /* calls expected: 1 after a successful call with `done`, else 0 */
};
static struct done_slot done_slots[DONE_SLOTS];
static int done_slots_used;
static pthread_mutex_t done_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static pthread_t main_thread;
static unsigned long done_calls;           /* every call of the callback */
static unsigned long done_null_calls;      /* with a NULL payload */
static int done_null_last_status;
static unsigned long done_null_expected;   /* successful calls with `done` and NULL payload */
static unsigned long done_bad_payloads;    /* a payload that is no slot */
static unsigned long done_on_caller;       /* calls on the thread that called the library */
static unsigned long done_bad_status;      /* a status that is not a known code */
static unsigned long async_ok_with_done;   /* successful calls that passed `done` */

static void harness_checkpoint_done(int status, void *payload) {
    pthread_mutex_lock(&done_mutex);
    done_calls++;
    if (pthread_equal(pthread_self(), main_thread)) done_on_caller++;
    if (!(status <= QUIRE_OK && status >= LAST_STATUS)) done_bad_status++;
    if (!payload) {
        done_null_calls++;
        done_null_last_status = status;
    } else if ((struct done_slot *)payload >= done_slots &&
               (struct done_slot *)payload < done_slots + DONE_SLOTS &&
               ((struct done_slot *)payload)->magic == DONE_MAGIC) {
        struct done_slot *slot = payload;
        slot->calls++;
        slot->status = status;
    } else {
        done_bad_payloads++;
    }
    pthread_cond_broadcast(&done_cond);
    pthread_mutex_unlock(&done_mutex);
}

/* Waits (up to DONE_TIMEOUT seconds: valgrind is slow) until *counter reaches `target`;
 * returns whether it did. */
#define DONE_TIMEOUT 120
static int wait_for_done(const unsigned long *counter, unsigned long target) {
    struct timespec deadline;
    int ok = 1;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += DONE_TIMEOUT;
    pthread_mutex_lock(&done_mutex);
    while (*counter < target) {
        if (pthread_cond_timedwait(&done_cond, &done_mutex, &deadline) == ETIMEDOUT) {
            ok = *counter >= target;
            break;
        }
    }
    pthread_mutex_unlock(&done_mutex);
    return ok;
}

/* The size of a file, or -1 if it does not exist. */
static long long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* Whether checkpointing is started on edit_doc (by prepare_checkpoint_call). */
static int edit_checkpointing;
/* The checkpoint file of edit_doc while prepare_checkpoint_call's checkpointing runs. */
static char cp_setup_file[256];

/* Starts checkpointing on `doc` (natively): manual, the harness's directory, `uid`. */
static int start_checkpoints_natively(quire_document *doc, const char *uid) {
    quire_checkpoint_options o = QUIRE_CHECKPOINT_OPTIONS_INIT;
    int32_t loaded = -1;
    o.directory = cp_dir;
    o.uid = uid;
    return native_start_checkpoints(&loaded, doc, &o) == QUIRE_OK;
}

/* The names in a directory, sorted and "\n"-joined (malloc'd), or NULL if it cannot be
 * read. */
static int compare_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}
static char *directory_names(const char *path) {
    DIR *d = opendir(path);
    struct dirent *e;
    char **names = NULL, *out;
    size_t n = 0, cap = 0, total = 1, k;
    if (!d) return NULL;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (n == cap) {
            char **grown = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *names);
            if (!grown) break;
            names = grown;
        }
        names[n] = malloc(strlen(e->d_name) + 1);
        if (!names[n]) break;
        strcpy(names[n], e->d_name);
        total += strlen(e->d_name) + 1;
        n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, compare_names);
    out = malloc(total);
    if (out) {
        out[0] = '\0';
        for (k = 0; k < n; k++) {
            strcat(out, names[k]);
            strcat(out, "\n");
        }
    }
    for (k = 0; k < n; k++) free(names[k]);
    free(names);
    return out;
}

/* ---- the sync service, for the 0.5 functions ------------------------------------------------ */

/* The harness's service: opened once (natively) on an in-memory store with an admin token
 * and a public key, closed with quire_sync_service_close at the end. */
static quire_sync_service *valid_service;
#define SYNC_ADMIN_TOKEN "ffi-admin"
#define SYNC_REQUEST_ID "ffi-request-1"
#define SYNC_SUBDIR "sync" /* in the temporary directory: the SQLite files of the configs */
/* An EC P-256 public key, and a JWKS with another one (public keys only: the harness makes
 * no tokens, so the client API answers 401 to everything it sends). */
static const char sync_public_key[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEOGCL6aaO1WQ79HQwa8dAchhxAZ66\n"
    "cOa69iANQHSbmdOEikkftIlFnPhE+rm4I+FMGuGe8OIl1V9RvMhRYeGhLQ==\n"
    "-----END PUBLIC KEY-----\n";
static const char sync_jwks[] =
    "{\"keys\":[{\"kty\":\"EC\",\"crv\":\"P-256\",\"kid\":\"ffi-1\",\"alg\":\"ES256\",\"use\":\"sig\","
    "\"x\":\"2H-MLKd2WMxDxn2tLdaMdPq8P6g7w7KAwKH38mBoIuQ\","
    "\"y\":\"CO59odtGz4AyK0lxUODLV838Mtqqt1gmocNSzYSWDUk\"}]}";
static const char *const sync_keys[] = {sync_public_key};
static const char *const sync_bad_keys[] = {
    "-----BEGIN PUBLIC KEY-----\nZ2FyYmFnZQ==\n-----END PUBLIC KEY-----\n"};
static const char *const sync_null_key[] = {NULL};
static char sync_file_store[320], sync_missing_store[320];

/* The configs passed as `const quire_sync_config *`. */
enum {
    SC_NULL,        /* NULL */
    SC_INIT,        /* QUIRE_SYNC_CONFIG_INIT: no store (refused: there is no default) */
    SC_FULL,        /* in memory, the harness's key and admin token, small limits */
    SC_FILE,        /* a SQLite file in the temporary directory, the admin token */
    SC_JWKS,        /* a JWKS instead of PEM keys */
    SC_V0,          /* version 0 */
    SC_V999,        /* version 999 */
    SC_SCHEME,      /* "mysql://...": no store for the scheme (postgres:// opens in the
                       library's PostgreSQL flavour, which this harness also runs on) */
    SC_RELATIVE,    /* a relative path (from the working directory) in a missing directory */
    SC_MISSING_DIR, /* a file in a directory that does not exist: cannot be opened */
    SC_BAD_KEY,     /* a PEM block that is no key */
    SC_KEYS_NULL,   /* public_key_count 1, public_keys NULL */
    SC_KEY_NULL,    /* one key pointer, NULL */
    SC_BAD_JWKS,    /* JWKS that is not JSON */
    SC_EMPTY_ADMIN, /* admin_token "" (the header does not say) */
    SC_HUGE_LIMIT,  /* max_body_bytes UINT64_MAX (the header does not say) */
    SC_V1,          /* version 1 (no attachment or listener limits): still read */
    SC_LIMITS_V2,   /* version 2's max_attachment_bytes and max_listeners */
    SC_BIG_ATTACHMENTS, /* max_attachment_bytes past 64 MiB */
    SC_HUGE_LISTENERS,  /* max_listeners past INT32_MAX */
    SC_V2,              /* version 2 (no grace period): still read */
    SC_NO_GRACE,        /* attachment_grace_seconds QUIRE_SYNC_GRACE_NONE */
    SC_BAD_GRACE,       /* attachment_grace_seconds -2 */
    SC_HUGE_GRACE,      /* attachment_grace_seconds INT64_MAX */
    N_SC
};
static const char *const sync_config_names[N_SC] = {
    "NULL", "INIT", "<memory, key, admin token, limits>", "<SQLite file>", "<JWKS>",
    "version 0", "version 999", "store mysql://...", "store sqlite://<relative, missing directory>",
    "store <missing directory>", "<a key that is not PEM>", "<1 key, public_keys NULL>",
    "<a NULL key>", "<JWKS not JSON>", "admin token \"\"", "max_body_bytes UINT64_MAX",
    "version 1", "<max_attachment_bytes 1 MiB, max_listeners 3>", "max_attachment_bytes 64 MiB + 1",
    "max_listeners 2^31", "version 2", "attachment_grace_seconds -1", "attachment_grace_seconds -2",
    "attachment_grace_seconds INT64_MAX"};

/* The config of `choice` into *c; returns 1 if it must open, 0 if it must not, -1 if the
 * header does not say. Sets *newer for a version newer than the library's. */
static int sync_config_for(quire_sync_config *c, int choice, int *newer) {
    quire_sync_config init = QUIRE_SYNC_CONFIG_INIT;
    *c = init;
    *newer = 0;
    /* Every config but INIT names a store, so that each opens or is refused for its own
     * reason. */
    if (choice != SC_INIT) c->store = "sqlite::memory:";
    switch (choice) {
    case SC_INIT: return 0;
    case SC_FULL:
        c->store = "sqlite::memory:";
        c->public_keys = sync_keys;
        c->public_key_count = 1;
        c->admin_token = SYNC_ADMIN_TOKEN;
        c->max_body_bytes = 4096;
        c->max_upload_bytes = 1 << 20;
        return 1;
    case SC_FILE: c->store = sync_file_store; c->admin_token = SYNC_ADMIN_TOKEN; return 1;
    case SC_JWKS: c->jwks = sync_jwks; return 1;
    case SC_V0: c->version = 0; return 0;
    case SC_V999: c->version = 999; *newer = 1; return 0;
    case SC_SCHEME: c->store = "mysql://localhost/quire"; return 0;
    case SC_RELATIVE: c->store = "sqlite://no-such-directory-of-the-ffi-harness/relative.db"; return 0;
    case SC_MISSING_DIR: c->store = sync_missing_store; return 0;
    case SC_BAD_KEY: c->public_keys = sync_bad_keys; c->public_key_count = 1; return 0;
    case SC_KEYS_NULL: c->public_key_count = 1; return 0;
    case SC_KEY_NULL: c->public_keys = sync_null_key; c->public_key_count = 1; return 0;
    case SC_BAD_JWKS: c->jwks = "{\"keys\": ["; return 0;
    case SC_EMPTY_ADMIN: c->admin_token = ""; return -1;
    case SC_HUGE_LIMIT: c->max_body_bytes = UINT64_MAX; return -1;
    case SC_V1: c->version = 1; c->max_attachment_bytes = UINT64_MAX; return 1; /* not read */
    case SC_LIMITS_V2: c->max_attachment_bytes = 1 << 20; c->max_listeners = 3; return 1;
    case SC_BIG_ATTACHMENTS: c->max_attachment_bytes = (64u << 20) + 1; return 0;
    case SC_HUGE_LISTENERS: c->max_listeners = (uint64_t)INT32_MAX + 1; return 0;
    case SC_V2: c->version = 2; c->attachment_grace_seconds = INT64_MIN; return 1; /* not read */
    case SC_NO_GRACE: c->attachment_grace_seconds = QUIRE_SYNC_GRACE_NONE; return 1;
    case SC_BAD_GRACE: c->attachment_grace_seconds = -2; return 0;
    case SC_HUGE_GRACE: c->attachment_grace_seconds = INT64_MAX; return 0;
    default: return 0; /* SC_NULL: passed as NULL */
    }
}

/* Methods and targets of requests. The targets name this PDF's documents (made for each
 * PDF): ffi-N (uploaded), ffi-gone-N (uploaded, for DELETE), ffi-up-N (uploaded by a call). */
enum { SM_NULL, SM_GET, SM_POST, SM_DELETE, SM_EMPTY, SM_BAD_UTF8, N_SM };
static const char *const sync_methods[N_SM] = {NULL, "GET", "POST", "DELETE", "", "\xff\xfeGET"};
static const char *const sync_method_names[N_SM] = {"NULL", "GET", "POST", "DELETE", "\"\"",
                                                    "<invalid UTF-8>"};
enum { ST_NULL, ST_HEALTH, ST_DOCUMENTS, ST_UPLOAD_ID, ST_ANNOTATIONS, ST_EXPORT, ST_GONE,
       ST_FEED, ST_EMPTY, ST_BAD_ESCAPE, ST_LONG, ST_BAD_UTF8, N_ST };
static const char *const sync_target_names[N_ST] = {
    "NULL", "/healthz", "/admin/documents", "/admin/documents?id=ffi-up-N",
    "/admin/documents/ffi-N/layers/main/annotations", "/admin/documents/ffi-N/layers/main/pdf",
    "/admin/documents/ffi-gone-N", "/documents/ffi-N/layers/main/changes?since=0&wait=1",
    "\"\"", "/admin/documents/%zz", "<8 KiB>", "<invalid UTF-8>"};
static char sync_targets[N_ST][160];

/* Headers with a count (the count is at most what the array holds). */
enum { SH_NULL_0, SH_NULL_1, SH_NULL_MAX, SH_ADMIN, SH_ADMIN_ID, SH_WRONG, SH_BEARER, SH_EMPTY,
       SH_NULL_NAME, SH_NULL_VALUE, SH_ADMIN_THEN_NULL, SH_ARRAY_0, N_SH };
static const char *const sync_header_names[N_SH] = {
    "NULL/0", "NULL/1", "NULL/SIZE_MAX", "[admin]/1", "[admin, X-Request-Id]/2",
    "[wrong token]/1", "[Bearer garbage]/1", "[\"\": \"\"]/1", "[NULL name]/1",
    "[NULL value]/1", "[admin, NULL name]/2", "[admin]/0"};

/* The responses passed as `const quire_sync_response *` (made for each PDF), and what the
 * harness read of each natively: status, header count, body length. */
enum { SR_NULL, SR_HEALTH, SR_UNAUTHENTICATED, SR_NOT_ALLOWED, SR_NO_CONTENT, SR_PDF, N_SR };
static const char *const sync_response_names[N_SR] = {
    "NULL", "<GET /healthz>", "<401>", "<405 with Allow>", "<204 DELETE>", "<the layer's PDF>"};
static quire_sync_response *valid_responses[N_SR];
static int32_t response_statuses[N_SR];
static size_t response_header_counts[N_SR], response_body_lens[N_SR];

/* Every response made through the table, by status, for the summary. */
static unsigned long sync_statuses[6]; /* 1xx .. 5xx by hundreds (index 0: other) */
static unsigned long sync_services_opened, sync_shutdowns_checked;

/* A request to `service` natively: the response, or NULL. */
static quire_sync_response *sync_request(quire_sync_service *service, const char *method,
                                         const char *target, int admin, const void *body,
                                         size_t len) {
    quire_sync_header h = {"Authorization", "Token " SYNC_ADMIN_TOKEN};
    quire_sync_response *r = NULL;
    if (native_sync_handle(&r, service, method, target, admin ? &h : NULL, admin ? 1 : 0, body,
                           len) != QUIRE_OK)
        return NULL;
    return r;
}

static int32_t sync_status_of(quire_sync_service *service, const char *method,
                              const char *target) {
    quire_sync_response *r = sync_request(service, method, target, 0, NULL, 0);
    int32_t status = -1;
    if (r && native_response_status(&status, r) != QUIRE_OK) status = -1;
    native_response_free(r);
    return status;
}

/* What is wrong with a response (NULL if nothing): a status from 100 to 599, headers with
 * names and values and exactly one X-Request-Id (`request_id` when the request sent a valid
 * one), a body that is NULL exactly when it is empty and can be read whole. */
static const char *response_problem(const quire_sync_response *r, const char *request_id) {
    int32_t status = 0;
    size_t n = 0, k, len = 0, ids = 0;
    const char *name = NULL, *value = NULL;
    const void *data = NULL;
    unsigned long sum = 0;
    if (native_response_status(&status, r) != QUIRE_OK) return "its status cannot be read";
    if (status < 100 || status > 599) return "its status is no HTTP status";
    if (native_response_header_count(&n, r) != QUIRE_OK) return "its headers cannot be counted";
    for (k = 0; k < n; k++) {
        if (native_response_header(&name, &value, r, k) != QUIRE_OK || !name || !value ||
            !name[0])
            return "a header without a name or a value";
        sum += strlen(value);
        if (strcmp(name, "X-Request-Id") == 0) {
            ids++;
            if (request_id && strcmp(value, request_id) != 0)
                return "X-Request-Id is not the request's own";
        }
    }
    if (ids != 1) return "not exactly one X-Request-Id (the protocol: every response has it)";
    if (native_response_body(&data, &len, r) != QUIRE_OK) return "its body cannot be read";
    if ((data == NULL) != (len == 0)) return "its body is NULL but not empty, or empty but not NULL";
    for (k = 0; k < len; k++) sum += ((const unsigned char *)data)[k]; /* readable */
    (void)sum;
    sync_statuses[status / 100]++;
    return NULL;
}

/* Opens a service natively: in memory, the admin token. */
static quire_sync_service *open_sync_service(void) {
    quire_sync_config c = QUIRE_SYNC_CONFIG_INIT;
    quire_sync_service *s = NULL;
    c.store = "sqlite::memory:";
    c.admin_token = SYNC_ADMIN_TOKEN;
    c.public_keys = sync_keys;
    c.public_key_count = 1;
    return native_sync_open(&s, &c) == QUIRE_OK ? s : NULL;
}

static void close_sync_service(quire_sync_service *s) {
    if (!s) return;
    native_sync_shutdown(s);
    native_sync_close(s);
}

/* This PDF's documents, targets and responses (natively). Returns 0 if a response could not
 * be made. */
static int make_sync(void) {
    static const int statuses_expected[N_SR] = {0, 200, 401, 405, -1, -1};
    char target[160];
    int k;
    quire_sync_response *r;
    memset(valid_responses, 0, sizeof valid_responses);
    /* Uploads (Quire may refuse a PDF: a 400, and the routes below answer 404 then). */
    snprintf(target, sizeof target, "/admin/documents?id=ffi-%d", pdf_index);
    native_response_free(sync_request(valid_service, "POST", target, 1, pdf_bytes, pdf_size));
    snprintf(target, sizeof target, "/admin/documents?id=ffi-gone-%d", pdf_index);
    native_response_free(sync_request(valid_service, "POST", target, 1, pdf_bytes, pdf_size));
    for (k = 0; k < N_ST; k++) sync_targets[k][0] = '\0';
    snprintf(sync_targets[ST_HEALTH], sizeof sync_targets[0], "/healthz");
    snprintf(sync_targets[ST_DOCUMENTS], sizeof sync_targets[0], "/admin/documents");
    snprintf(sync_targets[ST_UPLOAD_ID], sizeof sync_targets[0], "/admin/documents?id=ffi-up-%d",
             pdf_index);
    snprintf(sync_targets[ST_ANNOTATIONS], sizeof sync_targets[0],
             "/admin/documents/ffi-%d/layers/main/annotations", pdf_index);
    snprintf(sync_targets[ST_EXPORT], sizeof sync_targets[0],
             "/admin/documents/ffi-%d/layers/main/pdf", pdf_index);
    snprintf(sync_targets[ST_GONE], sizeof sync_targets[0], "/admin/documents/ffi-gone-%d",
             pdf_index);
    snprintf(sync_targets[ST_FEED], sizeof sync_targets[0],
             "/documents/ffi-%d/layers/main/changes?since=0&wait=1", pdf_index);
    snprintf(sync_targets[ST_BAD_ESCAPE], sizeof sync_targets[0], "/admin/documents/%%zz");
    snprintf(sync_targets[ST_BAD_UTF8], sizeof sync_targets[0], "/\xff\xfe/\xc3(");
    /* (ST_NULL is NULL, ST_EMPTY "", ST_LONG long_string.) */

    valid_responses[SR_HEALTH] = sync_request(valid_service, "GET", "/healthz", 0, NULL, 0);
    {
        quire_sync_header wrong = {"Authorization", "Token wrong"};
        r = NULL;
        if (native_sync_handle(&r, valid_service, "GET", "/admin/documents", &wrong, 1, NULL, 0) ==
            QUIRE_OK)
            valid_responses[SR_UNAUTHENTICATED] = r;
    }
    valid_responses[SR_NOT_ALLOWED] = sync_request(valid_service, "PUT", "/healthz", 0, NULL, 0);
    snprintf(target, sizeof target, "/admin/documents/ffi-%d/layers/scratch/annotations", pdf_index);
    native_response_free(sync_request(valid_service, "GET", target, 1, NULL, 0));
    snprintf(target, sizeof target, "/admin/documents/ffi-%d/layers/scratch", pdf_index);
    valid_responses[SR_NO_CONTENT] = sync_request(valid_service, "DELETE", target, 1, NULL, 0);
    valid_responses[SR_PDF] = sync_request(valid_service, "GET", sync_targets[ST_EXPORT], 1, NULL, 0);
    for (k = SR_NULL + 1; k < N_SR; k++) {
        const void *data = NULL;
        if (!valid_responses[k] || response_problem(valid_responses[k], NULL) ||
            native_response_status(&response_statuses[k], valid_responses[k]) != QUIRE_OK ||
            native_response_header_count(&response_header_counts[k], valid_responses[k]) !=
                QUIRE_OK ||
            native_response_body(&data, &response_body_lens[k], valid_responses[k]) != QUIRE_OK)
            return 0;
        if (statuses_expected[k] > 0 && response_statuses[k] != statuses_expected[k]) return 0;
    }
    return 1;
}

/* Choices for phase 3, per kind. */
enum { BUF_NULL_0, BUF_NULL_1, BUF_NULL_MAX, BUF_REAL_0, BUF_REAL_1, BUF_REAL_FULL, N_BUF };
enum { DATA_NULL_0, DATA_NULL_1, DATA_NULL_MAX, DATA_GARBAGE, DATA_GARBAGE_0, DATA_PDF, N_DATA };
enum { STR_NULL, STR_EMPTY, STR_TITLE, STR_MISSING, STR_LONG, STR_BAD_UTF8, STR_PDF, N_STR };
enum { OPT_NULL, OPT_INIT, OPT_V0, OPT_V999, OPT_VMAX, OPT_PASSWORD, N_OPT };
/* The checkpoint info structs for quire_document_inspect_checkpoint: NULL, initialised with
 * QUIRE_CHECKPOINT_INFO_INIT, version 0, the version after the library's, and garbage (the
 * sentinel bytes: a version far newer). */
enum { CI_NULL, CI_INIT, CI_V0, CI_NEWER, CI_GARBAGE, N_CI };
static const char *const info_names[N_CI] = {"NULL", "INIT", "version 0", "version + 1",
                                             "<garbage>"};
static const int32_t int_choices[] = {0, 1, -1, INT32_MIN, INT32_MAX};
static const uint32_t uint_choices[] = {0, 1, 2, UINT32_MAX, 0x80000000u};

/* For a constant family (ARG_ENUM) the choices are every constant of the family, then the
 * first constant of every other family (each family has a range of its own, so the library
 * can refuse them: the header), then these numbers, which no family has (the families start
 * at 0x0100), and one past the family's last constant. */
static const int32_t enum_garbage[] = {0, 1, -1, INT32_MIN, INT32_MAX};
#define N_ENUM_GARBAGE 6

/* The index in FFI_ENUM_FAMILIES of the family `name`, or -1. */
static int family_by_name(const char *name) {
    int k;
    for (k = 0; k < FFI_ENUM_FAMILY_COUNT; k++)
        if (strcmp(FFI_ENUM_FAMILIES[k].name, name) == 0) return k;
    return -1;
}

/* Whether `value` is a constant of family `family`. */
static int in_family(int family, int32_t value) {
    unsigned k;
    if (family < 0 || family >= FFI_ENUM_FAMILY_COUNT) return 0;
    for (k = 0; k < FFI_ENUM_FAMILIES[family].count; k++)
        if (FFI_ENUM_FAMILIES[family].values[k] == value) return 1;
    return 0;
}

static int n_enum_choices(int family) {
    return (int)FFI_ENUM_FAMILIES[family].count + (FFI_ENUM_FAMILY_COUNT - 1) + N_ENUM_GARBAGE;
}

/* Choice `c` of family `family`: the value, and its description into `text`. */
static int32_t enum_choice(int family, int c, char *text, size_t size) {
    const struct ffi_enum_family *f = &FFI_ENUM_FAMILIES[family];
    int other;
    if (c < (int)f->count) {
        snprintf(text, size, "%s", f->names[c]);
        return f->values[c];
    }
    c -= (int)f->count;
    if (c < FFI_ENUM_FAMILY_COUNT - 1) {
        other = c < family ? c : c + 1; /* every family but this one */
        snprintf(text, size, "%s (of %s)", FFI_ENUM_FAMILIES[other].names[0],
                 FFI_ENUM_FAMILIES[other].name);
        return FFI_ENUM_FAMILIES[other].values[0];
    }
    c -= FFI_ENUM_FAMILY_COUNT - 1;
    if (c < N_ENUM_GARBAGE - 1) {
        snprintf(text, size, "%ld", (long)enum_garbage[c]);
        return enum_garbage[c];
    }
    snprintf(text, size, "%s + 1", f->names[f->count - 1]);
    return f->values[f->count - 1] + 1;
}

/* The versions that a quire_*_init function's struct (by its C type) has: the size of
 * version `version` in bytes (the header: version 1 of the checkpoint options ends before
 * `existing`), or 0 for a version the library does not have; the current version into
 * *current. */
static size_t init_struct_size(const char *ctype, uint32_t version, uint32_t *current) {
    if (strcmp(ctype, "quire_open_options *") == 0) {
        *current = QUIRE_OPEN_OPTIONS_VERSION;
        return version == 1 ? sizeof(quire_open_options) : 0;
    }
    if (strcmp(ctype, "quire_save_options *") == 0) {
        /* Version 1 is 12 bytes, to `object_streams` (the header); 2 adds the progress
         * callback. */
        *current = QUIRE_SAVE_OPTIONS_VERSION;
        return version == 1   ? (KNOWN_BUG_SAVE_OPTIONS_V1
                                     ? offsetof(quire_save_options, progress)
                                     : offsetof(quire_save_options, object_streams) + sizeof(int32_t))
               : version == 2 ? sizeof(quire_save_options)
                              : 0;
    }
    if (strcmp(ctype, "quire_file_access *") == 0) {
        *current = QUIRE_FILE_ACCESS_VERSION;
        return version == 1 ? sizeof(quire_file_access) : 0;
    }
    if (strcmp(ctype, "quire_bookmark_provider *") == 0) {
        *current = QUIRE_BOOKMARK_PROVIDER_VERSION;
        return version == 1 ? sizeof(quire_bookmark_provider) : 0;
    }
    if (strcmp(ctype, "quire_sync_config *") == 0) {
        /* Version 1 ends with `max_upload_bytes`; 2 adds the attachment and listener limits,
         * 3 the grace period of attachment collection. */
        *current = QUIRE_SYNC_CONFIG_VERSION;
        return version == 1   ? offsetof(quire_sync_config, max_attachment_bytes)
               : version == 2 ? offsetof(quire_sync_config, attachment_grace_seconds)
               : version == 3 ? sizeof(quire_sync_config)
                              : 0;
    }
    if (strcmp(ctype, "quire_client_config *") == 0) {
        *current = QUIRE_CLIENT_CONFIG_VERSION;
        return version == 1 ? sizeof(quire_client_config) : 0;
    }
    if (strcmp(ctype, "quire_client_callbacks *") == 0) {
        *current = QUIRE_CLIENT_CALLBACKS_VERSION;
        return version == 1 ? sizeof(quire_client_callbacks) : 0;
    }
    if (strcmp(ctype, "quire_tool_callbacks *") == 0) {
        *current = QUIRE_TOOL_CALLBACKS_VERSION;
        return version == 1 ? sizeof(quire_tool_callbacks) : 0;
    }
    if (strcmp(ctype, "quire_tool_style *") == 0) {
        *current = QUIRE_TOOL_STYLE_VERSION;
        return version == 1 ? sizeof(quire_tool_style) : 0;
    }
    if (strcmp(ctype, "quire_custom_tool *") == 0) {
        *current = QUIRE_CUSTOM_TOOL_VERSION;
        return version == 1 ? sizeof(quire_custom_tool) : 0;
    }
    if (strcmp(ctype, "quire_pointer_event *") == 0) {
        *current = QUIRE_POINTER_EVENT_VERSION;
        return version == 1 ? sizeof(quire_pointer_event) : 0;
    }
    if (strcmp(ctype, "quire_tool_preview *") == 0) {
        *current = QUIRE_TOOL_PREVIEW_VERSION;
        return version == 1 ? sizeof(quire_tool_preview) : 0;
    }
    if (strcmp(ctype, "quire_text_char *") == 0) {
        *current = QUIRE_TEXT_CHAR_VERSION;
        return version == 1 ? offsetof(quire_text_char, glyph_box) : version == 2 ? sizeof(quire_text_char) : 0;
    }
    if (strcmp(ctype, "quire_text_search_options *") == 0) {
        /* Version 1 is 16 bytes, to `max_matches`; 2 adds the progress callback. */
        *current = QUIRE_TEXT_SEARCH_OPTIONS_VERSION;
        return version == 1   ? offsetof(quire_text_search_options, max_matches) + sizeof(int32_t)
               : version == 2 ? sizeof(quire_text_search_options)
                              : 0;
    }
    if (strcmp(ctype, "quire_encryption_options *") == 0) {
        *current = QUIRE_ENCRYPTION_OPTIONS_VERSION;
        return version == 1 ? sizeof(quire_encryption_options) : 0;
    }
    if (strcmp(ctype, "quire_flatten_options *") == 0) {
        *current = QUIRE_FLATTEN_OPTIONS_VERSION;
        return version == 1 ? sizeof(quire_flatten_options) : 0;
    }
    if (strcmp(ctype, "quire_redaction_options *") == 0) {
        *current = QUIRE_REDACTION_OPTIONS_VERSION;
        return version == 1 ? sizeof(quire_redaction_options) : 0;
    }
    if (strcmp(ctype, "quire_export_options *") == 0) {
        *current = QUIRE_EXPORT_OPTIONS_VERSION;
        return version == 1 ? sizeof(quire_export_options) : 0;
    }
    if (strcmp(ctype, "quire_import_options *") == 0) {
        *current = QUIRE_IMPORT_OPTIONS_VERSION;
        return version == 1 ? sizeof(quire_import_options) : 0;
    }
    if (strcmp(ctype, "quire_text_options *") == 0) {
        *current = QUIRE_TEXT_OPTIONS_VERSION;
        return version == 1 ? sizeof(quire_text_options) : 0;
    }
    if (strcmp(ctype, "quire_sign_options *") == 0) {
        *current = QUIRE_SIGN_OPTIONS_VERSION;
        return version == 1 ? sizeof(quire_sign_options) : 0;
    }
    if (strcmp(ctype, "quire_validation_options *") == 0) {
        *current = QUIRE_VALIDATION_OPTIONS_VERSION;
        return version == 1 ? sizeof(quire_validation_options) : 0;
    }
    if (strcmp(ctype, "quire_checkpoint_options *") == 0) {
        *current = QUIRE_CHECKPOINT_OPTIONS_VERSION;
        return version == 1   ? offsetof(quire_checkpoint_options, existing)
               : version == 2 ? sizeof(quire_checkpoint_options)
                              : 0;
    }
    *current = 0;
    return 0;
}
static const uint64_t size_choices[] = {0, 1, SIZE_MAX, (uint64_t)1 << 62};
static const int64_t int64_choices[] = {0, 1, -1, INT64_MIN, INT64_MAX};
#define N_DOUBLE_CHOICES 6

static int n_choices(const struct ffi_function *fn, unsigned i) {
    switch (fn->arg_kinds[i]) {
    case ARG_HANDLE: return 2;      /* valid, NULL */
    case ARG_OUT_HANDLE:
    case ARG_OUT:
    case ARG_OUT_LEN: return 2;     /* scratch, NULL */
    case ARG_BUF: return N_BUF;
    case ARG_DATA: return N_DATA;
    case ARG_CSTR: return N_STR;
    case ARG_OPTIONS: return N_OPT;
    case ARG_INPTR:
    case ARG_FNPTR: return 1;       /* NULL */
    case ARG_BUF_SIZE:
    case ARG_DATA_SIZE:
    case ARG_TEXT_LEN:
    case ARG_BYTES_SIZE: return 1;  /* follows its pointer */
    case ARG_VALUE: return N_VAL;
    case ARG_OUT_VALUE: return 2;   /* scratch, NULL */
    case ARG_FREE_VALUE: return 2;  /* NULL, a fresh value */
    case ARG_TEXT: return N_TXT;
    case ARG_BYTES: return N_DATA;
    case ARG_WRITE_PATH: return N_WP;
    case ARG_SAVE_OPTIONS: return N_SO;
    case ARG_WRITEFN: return N_WF;
    case ARG_PAYLOAD: return N_PL;
    case ARG_INT: return (int)(sizeof int_choices / sizeof int_choices[0]);
    case ARG_UINT: return (int)(sizeof uint_choices / sizeof uint_choices[0]);
    case ARG_SIZE: return (int)(sizeof size_choices / sizeof size_choices[0]);
    case ARG_INT64: return (int)(sizeof int64_choices / sizeof int64_choices[0]);
    case ARG_DOUBLE: return N_DOUBLE_CHOICES;
    case ARG_ANNOT:
    case ARG_MUT_ANNOT: return N_AN;
    case ARG_FREE_ANNOT:
    case ARG_FREE_LIST: return 2;  /* NULL, a fresh one */
    case ARG_OUT_ANNOT:
    case ARG_OUT_TOOLS:
    case ARG_OUT_LIST: return 2;   /* scratch, NULL */
    case ARG_LIST: return N_LS;
    case ARG_RECT: return N_RC;
    case ARG_DOUBLES: return N_DB;
    case ARG_DBUF: return N_DBUF;
    case ARG_DOUBLES_COUNT:
    case ARG_DBUF_CAP: return 1;   /* follows its pointer */
    case ARG_ANNOT_NUMBER: return N_NUM;
    case ARG_BOOKMARK:
    case ARG_MUT_BOOKMARK: return N_BM;
    case ARG_FREE_BOOKMARK: return 2; /* NULL, a fresh one */
    case ARG_OUT_BOOKMARK: return 2;  /* scratch, NULL */
    case ARG_SINK: return 1;          /* NULL */
    case ARG_PROVIDERS: return N_PR;
    case ARG_PROVIDERS_COUNT: return 1; /* follows its pointer */
    case ARG_INT64_IN: return N_INT64_IN;
    case ARG_CHANGEFN: return 2;      /* NULL, the harness's callback */
    case ARG_CHECKPOINT_OPTIONS: return N_CO;
    case ARG_DONEFN: return 2;        /* NULL, the harness's callback */
    case ARG_ENUM: return n_enum_choices(fn->arg_families[i]);
    case ARG_INIT_STRUCT: return 2;   /* scratch, NULL */
    case ARG_CHECKPOINT_INFO: return N_CI;
    case ARG_SYNC_CONFIG: return N_SC;
    case ARG_OUT_SYNC_SERVICE:
    case ARG_OUT_SYNC_RESPONSE:
    case ARG_OUT_STR:
    case ARG_OUT_DATA: return 2;      /* scratch, NULL */
    case ARG_SYNC_SERVICE: return 2;  /* the service (or a fresh one), NULL */
    case ARG_SYNC_RESPONSE: return N_SR;
    case ARG_FREE_SYNC_RESPONSE: return 2; /* NULL, a fresh one */
    case ARG_SYNC_HEADERS: return N_SH;
    case ARG_SYNC_HEADERS_COUNT: return 1; /* follows its pointer */
    case ARG_SYNC_METHOD: return N_SM;
    case ARG_SYNC_TARGET: return N_ST;
    }
    return 1;
}

static double double_choice(int c) {
    switch (c) {
    case 0: return 0.0;
    case 1: return -1.0;
    case 2: return NAN;
    case 3: return INFINITY;
    case 4: return -INFINITY;
    default: return 1e308;
    }
}

static const char *string_choice(int c) {
    switch (c) {
    case STR_EMPTY: return "";
    case STR_TITLE: return "Title";
    case STR_MISSING: return "/nonexistent/quire-ffi-harness/missing.pdf";
    case STR_LONG: return long_string;
    case STR_BAD_UTF8: return invalid_utf8;
    case STR_PDF: return pdf_path;
    default: return NULL;
    }
}

/* Appends "name=value" to call_desc. */
static void describe(const char *name, const char *value) {
    size_t len = strlen(call_desc);
    snprintf(call_desc + len, sizeof call_desc - len, "%s%s=%s",
             call_desc[len - 1] == '(' ? "" : ", ", name, value);
}

static void reset_call(struct call *c, const struct ffi_function *fn) {
    unsigned i;
    memset(c, 0, sizeof *c);
    c->fn = fn;
    c->value_type = -1;
    c->bookmark_recipe = -1;
    c->provider_choice = -1;
    c->checkpoint_choice = -1;
    c->done_slot = -1;
    c->journal_size = -1;
    c->info_choice = -1;
    c->sync_response_choice = -1;
    for (i = 0; i < MAX_ARGS; i++)
        memset(c->scratch[i].bytes, SENTINEL_BYTE, SCRATCH);
    memset(c->buf, SENTINEL_BYTE, BUF_CAP);
    memset(c->dbuf, SENTINEL_BYTE, sizeof c->dbuf);
    memset(c->init_struct.bytes, SENTINEL_BYTE, sizeof c->init_struct.bytes);
    memset(c->info.bytes, SENTINEL_BYTE, sizeof c->info.bytes);
    snprintf(call_desc, sizeof call_desc, "%s(", fn->name);
}

/* ---- making the annotations and lists (with the library's functions, called directly) ---- */

static quire_annotation *new_annotation(const char *subtype) {
    quire_rect r = {100, 500, 300, 600};
    quire_annotation *a = NULL;
    return native_annotation_new(&a, subtype, 0, &r) == QUIRE_OK ? a : NULL;
}

/* Annotation `index` of the first page of valid_doc that has annotations (index -1: the
 * last one), or NULL. */
static quire_annotation *page_annotation(int index) {
    int32_t pages = 0, p, n = 0;
    quire_annotation *a = NULL;
    if (native_page_count(&pages, valid_doc) != QUIRE_OK) return NULL;
    for (p = 0; p < pages && p < 200; p++) {
        if (native_page_annotation_count(&n, valid_doc, p) != QUIRE_OK || n == 0) continue;
        if (native_page_annotation(&a, valid_doc, p, index < 0 ? n - 1 : index) != QUIRE_OK)
            return NULL;
        return a;
    }
    return NULL;
}

/* The first annotation of valid_doc that is a reply (scanning the first 200 pages), or
 * NULL. */
static quire_annotation *first_reply(void) {
    int32_t pages = 0, p, n = 0, k, is_reply;
    if (native_page_count(&pages, valid_doc) != QUIRE_OK) return NULL;
    for (p = 0; p < pages && p < 200; p++) {
        if (native_page_annotation_count(&n, valid_doc, p) != QUIRE_OK) continue;
        for (k = 0; k < n && k < 1000; k++) {
            quire_annotation *a = NULL;
            if (native_page_annotation(&a, valid_doc, p, k) != QUIRE_OK) continue;
            is_reply = 0;
            if (native_annotation_is_reply(&is_reply, a) == QUIRE_OK && is_reply) return a;
            native_annotation_free(a);
        }
    }
    return NULL;
}

static quire_annotation_list *make_list(int recipe) {
    quire_annotation_list *list = NULL, *other = NULL;
    int32_t target = valid_numbers[NUM_TARGET] > 0 ? valid_numbers[NUM_TARGET]
                                                   : valid_numbers[NUM_FIRST];
    switch (recipe) {
    case LS_COMMENTS:
        if (target <= 0 || native_comments(&list, valid_doc, target) != QUIRE_OK) return NULL;
        return list;
    case LS_HISTORY:
        if (target <= 0 || native_review_summary(&other, &list, valid_doc, target) != QUIRE_OK)
            return NULL;
        native_list_free(other);
        return list;
    case LS_SEARCH_EMPTY:
        return native_search(&list, valid_doc, "") == QUIRE_OK ? list : NULL;
    case LS_SEARCH_E:
        return native_search(&list, valid_doc, "e") == QUIRE_OK ? list : NULL;
    default:
        return NULL;
    }
}

/* A fresh annotation made by `recipe`, or NULL (AN_NULL, or nothing of the kind). */
static quire_annotation *make_annotation(int recipe) {
    static const double ink1[] = {110, 510, 150, 550, 190, 520};
    static const double ink2[] = {200, 580};
    static const double line[] = {100, 500, 300, 600};
    static const double red[] = {1, 0, 0}, gray[] = {0.5};
    static const double vertices[] = {100, 500, 300, 500, 200, 600};
    static const double quads[] = {100, 600, 300, 600, 100, 500, 300, 500};
    quire_annotation *a = NULL;
    switch (recipe) {
    case AN_PAGE_FIRST: return page_annotation(0);
    case AN_PAGE_LAST: return page_annotation(-1);
    case AN_REPLY: return first_reply();
    case AN_LIST_ITEM: {
        quire_annotation_list *list = make_list(LS_COMMENTS);
        int32_t n = 0;
        if (list && native_list_count(&n, list) == QUIRE_OK && n > 0 &&
            native_list_get(&a, list, n - 1) != QUIRE_OK)
            a = NULL;
        native_list_free(list);
        return a;
    }
    case AN_NEW_TEXT:
        a = new_annotation("Text");
        if (a && (native_annotation_set_string(a, QUIRE_ANNOT_CONTENTS, "Title") != QUIRE_OK ||
                  native_annotation_set_string(a, QUIRE_ANNOT_AUTHOR, "ffi") != QUIRE_OK ||
                  native_annotation_set_string(a, QUIRE_ANNOT_ICON, "Note") != QUIRE_OK ||
                  native_annotation_set_string(a, QUIRE_ANNOT_CREATION_DATE,
                                               "D:20240102030405Z") != QUIRE_OK ||
                  native_annotation_set_string(a, QUIRE_ANNOT_STATE_MODEL, "Review") != QUIRE_OK ||
                  native_annotation_set_string(a, QUIRE_ANNOT_STATE, "Accepted") != QUIRE_OK ||
                  native_annotation_set_color(a, QUIRE_ANNOT_COLOR, red, 3) != QUIRE_OK))
            break;
        return a;
    case AN_NEW_INK:
        a = new_annotation("Ink");
        if (a && (native_annotation_add_ink_stroke(a, ink1, 6) != QUIRE_OK ||
                  native_annotation_add_ink_stroke(a, ink2, 2) != QUIRE_OK))
            break;
        return a;
    case AN_NEW_LINE:
        a = new_annotation("Line");
        if (a && (native_annotation_set_points(a, QUIRE_ANNOT_LINE, line, 4) != QUIRE_OK ||
                  native_annotation_set_string(a, QUIRE_ANNOT_LINE_START, "OpenArrow") != QUIRE_OK ||
                  native_annotation_set_string(a, QUIRE_ANNOT_LINE_END, "Circle") != QUIRE_OK ||
                  native_annotation_set_color(a, QUIRE_ANNOT_INTERIOR_COLOR, gray, 1) != QUIRE_OK))
            break;
        return a;
    case AN_NEW_POLYGON:
        a = new_annotation("Polygon");
        if (a && native_annotation_set_points(a, QUIRE_ANNOT_VERTICES, vertices, 6) != QUIRE_OK)
            break;
        return a;
    case AN_NEW_MARKUP:
        a = new_annotation("Highlight");
        if (a && native_annotation_set_points(a, QUIRE_ANNOT_QUAD_POINTS, quads, 8) != QUIRE_OK)
            break;
        return a;
    default:
        return NULL;
    }
    native_annotation_free(a);
    return NULL;
}

/* The annotations, lists and numbers of phase 3 for valid_doc. Returns 0 if the library
 * failed to make one that it should (the new ones); a PDF without annotations or replies
 * leaves those NULL. */
static int make_annotations(void) {
    int k;
    quire_annotation *reply;
    memset(valid_annots, 0, sizeof valid_annots);
    memset(valid_lists, 0, sizeof valid_lists);
    valid_numbers[NUM_ZERO] = 0;
    valid_numbers[NUM_FIRST] = 0;
    valid_numbers[NUM_REPLY] = 0;
    valid_numbers[NUM_TARGET] = 0;
    valid_numbers[NUM_MINUS1] = -1;
    valid_numbers[NUM_MIN] = INT32_MIN;
    valid_numbers[NUM_MAX] = INT32_MAX;
    {
        quire_annotation *first = page_annotation(0);
        if (first && native_annotation_id(&valid_numbers[NUM_FIRST], first) != QUIRE_OK)
            valid_numbers[NUM_FIRST] = 0;
        native_annotation_free(first);
    }
    reply = first_reply();
    if (reply) {
        if (native_annotation_id(&valid_numbers[NUM_REPLY], reply) != QUIRE_OK)
            valid_numbers[NUM_REPLY] = 0;
        if (native_annotation_in_reply_to(&valid_numbers[NUM_TARGET], reply) != QUIRE_OK)
            valid_numbers[NUM_TARGET] = 0;
        native_annotation_free(reply);
    }
    free(export_json);
    export_json = NULL;
    export_json_len = 0;
    if (native_export_json(NULL, 0, &export_json_len, valid_doc, -1) == QUIRE_OK &&
        (export_json = malloc(export_json_len + 1)) != NULL &&
        native_export_json(export_json, export_json_len + 1, &export_json_len, valid_doc, -1) !=
            QUIRE_OK) {
        free(export_json);
        export_json = NULL;
    }
    if (!export_json) return 0;
    for (k = 0; k < N_LS; k++) valid_lists[k] = make_list(k);
    if (!valid_lists[LS_SEARCH_EMPTY] || !valid_lists[LS_SEARCH_E]) return 0;
    for (k = 0; k < N_AN; k++) {
        valid_annots[k] = make_annotation(k);
        if (k >= AN_NEW_TEXT && !valid_annots[k]) return 0;
    }
    return 1;
}

/* Whether the ARG_CSTR parameter takes any string (text, not a key or a path). */
static int any_string(const struct ffi_function *fn, const char *name) {
    static const char *const params[][2] = {
        {"quire_annotation_new", "subtype"},   /* any subtype (adding it may fail) */
        {"quire_annotation_set_string", "value"},
        {"quire_document_search_annotations", "text"},
        {"quire_bookmark_new", "text"},              /* a URI or a name (kind-dependent) */
        {"quire_bookmark_set_identifier", "identifier"},
        {"quire_bookmark_set_name", "name"},
        /* ignored when `data` is NULL and `length` 0 (forgetting an image not stored yet) */
        {"quire_annotation_set_image", "content_type"},
        /* any name, type and description: ignored when `data` is NULL and `length` 0, and
           an empty file (non-NULL data, length 0) with an empty type is a file without one */
        {"quire_annotation_set_file", "description"},
        {"quire_annotation_set_file", "file_name"},
        {"quire_annotation_set_file", "content_type"},
    };
    size_t k;
    for (k = 0; k < sizeof params / sizeof params[0]; k++)
        if (strcmp(fn->name, params[k][0]) == 0 && strcmp(name, params[k][1]) == 0) return 1;
    return 0;
}

/* Sets argument i for phase 3 to choice `choice`; scalar phases use set_scalar. */
static void set_choice(struct call *c, unsigned i, int choice) {
    const struct ffi_function *fn = c->fn;
    const char *name = fn->arg_names[i];
    char text[64];
    void **p = &c->values[i].p;
    switch (fn->arg_kinds[i]) {
    case ARG_HANDLE:
        /* Functions that edit or save get their own document. */
        *p = choice == 0 ? (void *)(fn->mutates ? edit_doc : valid_doc) : NULL;
        if (!*p) c->must_fail = 1;
        describe(name, choice == 0 ? (fn->mutates ? "<document to edit>" : "<valid document>")
                                   : "NULL");
        break;
    case ARG_OUT_HANDLE:
    case ARG_OUT_VALUE:
    case ARG_OUT:
    case ARG_OUT_LEN:
        if (choice == 0) {
            *p = c->scratch[i].bytes;
            if (fn->arg_kinds[i] == ARG_OUT_HANDLE || fn->arg_kinds[i] == ARG_OUT_VALUE) {
                void *sentinel = &handle_sentinel_target;
                memcpy(c->scratch[i].bytes, &sentinel, sizeof sentinel);
            } else if (fn->arg_kinds[i] == ARG_OUT_LEN) {
                size_t s = LEN_SENTINEL;
                memcpy(c->scratch[i].bytes, &s, sizeof s);
            } else if (strcmp(fn->arg_ctypes[i], "quire_redaction_result *") == 0) {
                /* A result struct whose version the caller sets (the header says so). */
                uint32_t v = QUIRE_REDACTION_RESULT_VERSION;
                memcpy(c->scratch[i].bytes, &v, sizeof v);
            }
            describe(name, "<scratch>");
        } else {
            *p = NULL;
            if (!fn->arg_optional[i]) c->must_fail = 1;
            describe(name, "NULL");
        }
        break;
    case ARG_VALUE:
        *p = valid_values[choice];
        c->value_type = *p ? valid_value_types[choice] : -1;
        if (!*p && !fn->arg_optional[i]) c->must_fail = 1;
        describe(name, *p || choice == VAL_NULL ? value_names[choice] : "NULL (no such value)");
        break;
    case ARG_FREE_VALUE:
        *p = NULL;
        if (choice == 1 && native_value_parse(&c->fresh_value, "[1 2 3]", 7) == QUIRE_OK)
            *p = c->fresh_value; /* consumed by the call */
        describe(name, *p ? "<a fresh value>" : "NULL");
        break;
    case ARG_TEXT: {
        static const char *const names[N_TXT] = {
            "NULL/0", "NULL/1", "NULL/SIZE_MAX", "\"\"/0", "\"42\"", "<dictionary>",
            "\"(a\\0b)\"/5", "\"[1 2\"", "\"42 43\"", "<5000 levels>", "garbage"};
        const char *t = NULL;
        uint64_t n = 0;
        switch (choice) {
        case TXT_NULL_0: break;
        case TXT_NULL_1: n = 1; break;
        case TXT_NULL_MAX: n = SIZE_MAX; break;
        case TXT_EMPTY: t = ""; break;
        case TXT_INT: t = "42"; n = 2; break;
        case TXT_DICT:
            if (strcmp(fn->name, "quire_document_import_annotations_json") == 0 && export_json) {
                t = export_json;
                n = export_json_len;
            } else {
                t = "<< /A [1 (x)] /B << /C 2 0 R >> >>";
                n = strlen(t);
            }
            break;
        case TXT_NUL_STRING: t = "(a\0b)"; n = 5; break;
        case TXT_CUT: t = "[1 2"; n = 4; break;
        case TXT_TRAILING: t = "42 43"; n = 5; break;
        case TXT_DEEP: t = deep_syntax; n = strlen(deep_syntax); break;
        default: t = (const char *)garbage_data; n = sizeof garbage_data - 1; break;
        }
        *p = (void *)t;
        c->values[i + 1].u64 = n;
        /* Only the three complete values can succeed (the header: "not one complete value"
         * is QUIRE_EFORMAT, a NULL pointer QUIRE_EINVAL, too deep QUIRE_ELIMIT). */
        if (choice != TXT_INT && choice != TXT_DICT && choice != TXT_NUL_STRING) c->must_fail = 1;
        describe(name, choice == TXT_DICT && t == export_json ? "<the document's JSON>"
                                                               : names[choice]);
        break;
    }
    case ARG_BYTES: {
        static const char *const names[N_DATA] = {"NULL/0", "NULL/1", "NULL/SIZE_MAX",
                                                  "garbage", "garbage/0", "<pdf bytes>"};
        switch (choice) {
        case DATA_NULL_0: *p = NULL; c->values[i + 1].u64 = 0; break;
        case DATA_NULL_1: *p = NULL; c->values[i + 1].u64 = 1; break;
        case DATA_NULL_MAX: *p = NULL; c->values[i + 1].u64 = SIZE_MAX; break;
        case DATA_GARBAGE:
            *p = (void *)garbage_data;
            c->values[i + 1].u64 = sizeof garbage_data - 1;
            break;
        case DATA_GARBAGE_0: *p = (void *)garbage_data; c->values[i + 1].u64 = 0; break;
        default: *p = pdf_bytes; c->values[i + 1].u64 = pdf_size; break;
        }
        /* Any bytes are data; only NULL with a size cannot be read. */
        if (choice == DATA_NULL_1 || choice == DATA_NULL_MAX) c->must_fail = 1;
        describe(name, names[choice]);
        break;
    }
    case ARG_WRITE_PATH: {
        static const char *const names[N_WP] = {"NULL", "\"\"", "<temp>/out.pdf",
                                                "<temp>/missing/out.pdf", "<temp>/sub (a directory)",
                                                "<temp>/<300 characters>.pdf"};
        const char *paths[N_WP];
        paths[WP_NULL] = NULL;
        paths[WP_EMPTY] = "";
        paths[WP_FILE] = wp_file;
        paths[WP_MISSING_DIR] = wp_missing;
        paths[WP_DIRECTORY] = wp_directory;
        paths[WP_LONG] = wp_long;
        *p = (void *)paths[choice];
        /* Only a file in an existing directory can be written. */
        if (choice != WP_FILE) c->must_fail = 1;
        describe(name, names[choice]);
        break;
    }
    case ARG_SAVE_OPTIONS: {
        static const char *const names[N_SO] = {"NULL", "INIT (incremental)", "full",
                                                "full + object streams", "version 0",
                                                "version 999", "mode 2", "mode -1",
                                                "mode QUIRE_STREAM_RAW (another family)",
                                                "version 1 (garbage progress after it)",
                                                "<progress>", "<progress that cancels>"};
        quire_save_options init = QUIRE_SAVE_OPTIONS_INIT;
        c->save_options = init;
        *p = &c->save_options;
        switch (choice) {
        case SO_NULL: *p = NULL; break;
        case SO_FULL: c->save_options.mode = QUIRE_SAVE_FULL; break;
        case SO_FULL_OBJSTM:
            c->save_options.mode = QUIRE_SAVE_FULL;
            c->save_options.object_streams = 1;
            break;
        case SO_V0: c->save_options.version = 0; c->must_fail = 1; break;
        case SO_V999:
            c->save_options.version = 999;
            c->must_fail = 1;
            c->newer_version = 1;
            break;
        case SO_MODE2: c->save_options.mode = (quire_save_mode)2; c->must_fail = 1; break;
        case SO_MODE_NEG: c->save_options.mode = (quire_save_mode)-1; c->must_fail = 1; break;
        case SO_MODE_FAMILY:
            c->save_options.mode = (quire_save_mode)QUIRE_STREAM_RAW;
            c->must_fail = 1;
            break;
        case SO_V1:
            c->save_options.version = 1;
            c->save_options.progress = harness_progress_of_v1; /* not version 1's: not read */
            c->save_options.progress_payload = &handle_sentinel_target;
            break;
        case SO_PROGRESS:
            c->save_options.progress = harness_progress;
            c->save_options.progress_payload = &progress_calls;
            break;
        case SO_CANCEL:
            c->save_options.progress = harness_progress_cancel;
            c->must_fail = 1; /* (a failure of another argument may come first) */
            break;
        default: break;
        }
        describe(name, names[choice]);
        break;
    }
    case ARG_WRITEFN: {
        quire_write_fn f = NULL;
        if (choice == WF_WRITER) f = harness_write;
        if (choice == WF_ABORTER) f = harness_abort;
        memcpy(p, &f, sizeof f); /* a function pointer passed as a pointer argument */
        if (choice != WF_WRITER) c->must_fail = 1;
        c->uses_aborter = choice == WF_ABORTER;
        describe(name, choice == WF_WRITER ? "<writer>"
                                           : choice == WF_ABORTER ? "<aborts>" : "NULL");
        break;
    }
    case ARG_PAYLOAD:
        if (strcmp(fn->name, "quire_document_checkpoint_async") == 0) {
            /* A slot of its own for the `done` callback to record in (never reused). */
            *p = NULL;
            if (choice == PL_REAL && done_slots_used < DONE_SLOTS) {
                c->done_slot = done_slots_used++;
                done_slots[c->done_slot].magic = DONE_MAGIC;
                *p = &done_slots[c->done_slot];
            }
            describe(name, *p ? "<a done slot>" : "NULL");
            break;
        }
        *p = choice == PL_REAL ? (void *)&payload_counts : NULL;
        c->change_payload = *p;
        describe(name, choice == PL_REAL ? "<counts>" : "NULL");
        break;
    case ARG_BUF: {
        static const char *const names[N_BUF] = {"NULL/0", "NULL/1", "NULL/SIZE_MAX",
                                                 "buf/0", "buf/1", "buf/4096"};
        static const uint64_t sizes[N_BUF] = {0, 1, SIZE_MAX, 0, 1, BUF_CAP};
        *p = choice >= BUF_REAL_0 ? c->buf : NULL;
        c->values[i + 1].u64 = sizes[choice];
        /* NULL with a size, and a real buffer of size 0 (no room for the NUL), cannot
         * succeed; NULL/0 is the length query. */
        if (choice == BUF_NULL_1 || choice == BUF_NULL_MAX || choice == BUF_REAL_0)
            c->must_fail = 1;
        describe(name, names[choice]);
        break;
    }
    case ARG_DATA: {
        static const char *const names[N_DATA] = {"NULL/0", "NULL/1", "NULL/SIZE_MAX",
                                                  "garbage", "garbage/0", "<pdf bytes>"};
        switch (choice) {
        case DATA_NULL_0: *p = NULL; c->values[i + 1].u64 = 0; break;
        case DATA_NULL_1: *p = NULL; c->values[i + 1].u64 = 1; break;
        case DATA_NULL_MAX: *p = NULL; c->values[i + 1].u64 = SIZE_MAX; break;
        case DATA_GARBAGE:
            *p = (void *)garbage_data;
            c->values[i + 1].u64 = sizeof garbage_data - 1;
            break;
        case DATA_GARBAGE_0: *p = (void *)garbage_data; c->values[i + 1].u64 = 0; break;
        default: *p = pdf_bytes; c->values[i + 1].u64 = pdf_size; break;
        }
        if (choice != DATA_PDF) c->must_fail = 1;
        describe(name, names[choice]);
        break;
    }
    case ARG_CSTR: {
        static const char *const names[N_STR] = {"NULL", "\"\"", "\"Title\"",
                                                 "<missing file>", "<8 KiB string>",
                                                 "<invalid UTF-8>", "<pdf path>"};
        *p = (void *)string_choice(choice);
        /* A state reply's model and state: instead of "Title", a real one (Review,
         * Accepted), so that the call can succeed. */
        if (choice == STR_TITLE && strcmp(fn->name, "quire_document_add_state_reply") == 0 &&
            (strcmp(name, "model") == 0 || strcmp(name, "state") == 0)) {
            *p = (void *)(strcmp(name, "model") == 0 ? "Review" : "Accepted");
            describe(name, *(const char **)p);
            break;
        }
        /* Of these strings only "Title" (a key that may be set) and the PDF's path (a file
         * that opens) can succeed, as a key or as a path. A function that edits may set a
         * key of any name, and a parameter that is text (any_string) takes any string. NULL
         * fails, unless the header allows it (OPTIONAL). */
        if (choice == STR_NULL ? !fn->arg_optional[i]
                               : choice != STR_TITLE && choice != STR_PDF && !fn->mutates &&
                                     !any_string(fn, name))
            c->must_fail = 1;
        describe(name, names[choice]);
        break;
    }
    case ARG_OPTIONS: {
        static const char *const names[N_OPT] = {"NULL", "INIT", "version 0", "version 999",
                                                 "version UINT32_MAX", "INIT+password"};
        quire_open_options init = QUIRE_OPEN_OPTIONS_INIT;
        c->options = init;
        *p = &c->options;
        switch (choice) {
        case OPT_NULL: *p = NULL; break;
        case OPT_V0: c->options.version = 0; c->must_fail = 1; break;
        case OPT_V999:
            c->options.version = 999;
            c->must_fail = 1;
            c->newer_version = 1;
            break;
        case OPT_VMAX:
            c->options.version = UINT32_MAX;
            c->must_fail = 1;
            c->newer_version = 1;
            break;
        case OPT_PASSWORD: c->options.password = "not the password"; break;
        default: break;
        }
        describe(name, names[choice]);
        break;
    }
    case ARG_INPTR:
    case ARG_FNPTR:
        *p = NULL;
        describe(name, "NULL");
        break;
    case ARG_ANNOT:
        *p = valid_annots[choice];
        if (!*p) c->must_fail = 1;
        describe(name, *p || choice == AN_NULL ? annotation_names[choice] : "NULL (none)");
        break;
    case ARG_MUT_ANNOT:
        c->mut_annot = make_annotation(choice);
        *p = c->mut_annot;
        if (!*p) c->must_fail = 1;
        describe(name, *p || choice == AN_NULL ? annotation_names[choice] : "NULL (none)");
        break;
    case ARG_FREE_ANNOT:
        *p = choice == 1 ? (void *)new_annotation("Square") : NULL; /* consumed by the call */
        describe(name, *p ? "<a fresh annotation>" : "NULL");
        break;
    case ARG_FREE_LIST:
        *p = choice == 1 ? (void *)make_list(LS_SEARCH_E) : NULL; /* consumed by the call */
        describe(name, *p ? "<a fresh list>" : "NULL");
        break;
    case ARG_OUT_ANNOT:
    case ARG_OUT_TOOLS:
    case ARG_OUT_LIST:
        if (choice == 0) {
            void *sentinel = &handle_sentinel_target;
            *p = c->scratch[i].bytes;
            memcpy(c->scratch[i].bytes, &sentinel, sizeof sentinel);
            describe(name, "<scratch>");
        } else {
            *p = NULL;
            if (!fn->arg_optional[i]) c->must_fail = 1;
            describe(name, "NULL");
        }
        break;
    case ARG_LIST:
        *p = valid_lists[choice];
        if (!*p) c->must_fail = 1;
        describe(name, *p || choice == LS_NULL ? list_names[choice] : "NULL (none)");
        break;
    case ARG_RECT: {
        quire_rect plain = {10, 20, 110, 70}, inverted = {110, 70, 10, 20};
        c->rect = choice == RC_INVERTED ? inverted : plain;
        if (choice == RC_NAN) c->rect.left = NAN;
        if (choice == RC_INF) c->rect.right = INFINITY;
        *p = choice == RC_NULL ? NULL : &c->rect;
        /* NULL fails unless the header says what NULL means (the media box of an inserted
         * page: US Letter; a page box: removed). */
        if ((choice == RC_NULL && !fn->arg_optional[i]) || choice == RC_NAN || choice == RC_INF)
            c->must_fail = 1;
        describe(name, rect_names[choice]);
        break;
    }
    case ARG_DOUBLES: {
        static const char *const names[N_DB] = {"NULL/0", "NULL/1", "NULL/<big>", "[...]/0",
                                                "[...]/1", "[...]/3", "[...]/4", "[...]/8",
                                                "[...]/16", "[..NaN..]/4", "[..inf..]/8"};
        static const int counts[N_DB] = {0, 1, -1, 0, 1, 3, 4, 8, 16, 4, 8};
        int count = counts[choice];
        const double *array = choice == DB_NAN_4 ? nan_numbers
                              : choice == DB_INF_8 ? inf_numbers
                              : choice >= DB_REAL_0 ? plain_numbers : NULL;
        *p = (void *)array;
        c->values[i + 1].u64 = count < 0 ? SIZE_MAX : (uint64_t)count;
        /* NULL with a count, or a number that is not finite, cannot succeed. A colour has
         * 0, 1, 3 or 4 components; points are x, y pairs (an even count), but for a dash
         * pattern (/D: 1 to 16 lengths, any count). */
        if ((!array && count != 0) || choice == DB_NAN_4 || choice == DB_INF_8) c->must_fail = 1;
        if (strcmp(fn->name, "quire_annotation_set_color") == 0) {
            if (count != 0 && count != 1 && count != 3 && count != 4) c->must_fail = 1;
        } else if (strcmp(name, "fill") == 0) {
            /* A redaction's fill: none (0), or a colour of 1, 3 or 4 components. */
            if (count != 0 && count != 1 && count != 3 && count != 4) c->must_fail = 1;
        } else if (strcmp(fn->name, "quire_page_add_redaction") == 0) {
            /* Rectangles: 4 numbers each, at least one. */
            if (count <= 0 || count % 4 != 0) c->must_fail = 1;
        } else if (strcmp(fn->name, "quire_annotation_set_points") == 0 &&
                   c->values[1].i32 == QUIRE_ANNOT_DASH_PATTERN) {
            /* any count the other rules allow */
        } else if (count % 2 != 0) {
            c->must_fail = 1;
        }
        describe(name, names[choice]);
        break;
    }
    case ARG_DBUF: {
        static const char *const names[N_DBUF] = {"NULL/0", "NULL/1", "NULL/SIZE_MAX",
                                                  "numbers/0", "numbers/1", "numbers/512"};
        static const uint64_t caps[N_DBUF] = {0, 1, SIZE_MAX, 0, 1, DBUF_CAP};
        *p = choice >= DBUF_REAL_0 ? (void *)c->dbuf : NULL;
        c->values[i + 1].u64 = caps[choice];
        if (choice == DBUF_NULL_1 || choice == DBUF_NULL_MAX) c->must_fail = 1;
        describe(name, names[choice]);
        break;
    }
    case ARG_ANNOT_NUMBER:
        c->values[i].i32 = valid_numbers[choice];
        /* No annotation is object 0 or a negative number, except that set_in_reply_to's
         * target -1 means "no longer a reply". */
        if (c->values[i].i32 <= 0 &&
            !(c->values[i].i32 == -1 && strcmp(name, "target") == 0 &&
              strcmp(fn->name, "quire_document_set_in_reply_to") == 0))
            c->must_fail = 1;
        if (choice >= NUM_FIRST && choice <= NUM_TARGET) {
            snprintf(text, sizeof text, "%s %ld", number_names[choice], (long)c->values[i].i32);
            describe(name, text);
        } else {
            describe(name, number_names[choice]);
        }
        break;
    case ARG_BOOKMARK: {
        const char *f = fn->name;
        *p = valid_bookmarks[choice];
        c->bookmark_recipe = choice;
        if (!*p) {
            c->must_fail = 1;
        } else {
            /* The getters of what the bookmark does not have fail (the header:
             * QUIRE_ENOTFOUND), and a go-to past the last page cannot be added
             * (QUIRE_ERANGE). */
            int32_t kind = bookmark_props[choice].kind;
            if ((strcmp(f, "quire_bookmark_name") == 0 && !bookmark_props[choice].has_name) ||
                (strcmp(f, "quire_bookmark_sort_key") == 0 && !bookmark_props[choice].has_key) ||
                (strcmp(f, "quire_bookmark_page_index") == 0 && kind != QUIRE_BOOKMARK_GOTO) ||
                (strcmp(f, "quire_bookmark_action_text") == 0 && kind == QUIRE_BOOKMARK_GOTO) ||
                (strcmp(f, "quire_document_add_bookmark") == 0 && kind == QUIRE_BOOKMARK_GOTO &&
                 bookmark_props[choice].page >= valid_page_count))
                c->must_fail = 1;
        }
        describe(name, *p || choice == BM_NULL ? bookmark_names[choice] : "NULL (none)");
        break;
    }
    case ARG_MUT_BOOKMARK:
        c->mut_bookmark = make_bookmark(choice);
        *p = c->mut_bookmark;
        if (!*p) c->must_fail = 1;
        describe(name, *p || choice == BM_NULL ? bookmark_names[choice] : "NULL (none)");
        break;
    case ARG_FREE_BOOKMARK:
        *p = choice == 1 ? (void *)make_bookmark(BM_URI) : NULL; /* consumed by the call */
        describe(name, *p ? "<a fresh bookmark>" : "NULL");
        break;
    case ARG_OUT_BOOKMARK:
        if (choice == 0) {
            void *sentinel = &handle_sentinel_target;
            *p = c->scratch[i].bytes;
            memcpy(c->scratch[i].bytes, &sentinel, sizeof sentinel);
            describe(name, "<scratch>");
        } else {
            *p = NULL;
            if (!fn->arg_optional[i]) c->must_fail = 1;
            describe(name, "NULL");
        }
        break;
    case ARG_SINK:
        /* A real sink exists only inside a provider's load callback and is valid only
         * during that call (the header): the harness's own load callback (hp_load) calls
         * quire_bookmark_sink_add with it; here only NULL can be passed. */
        *p = NULL;
        c->must_fail = 1;
        describe(name, "NULL");
        break;
    case ARG_PROVIDERS: {
        /* An array of pointers to the structs in c->providers (the header: so that the
         * struct can grow), or to NULL. */
        quire_bookmark_provider builtin = QUIRE_BOOKMARK_PROVIDER_BUILTIN_INIT;
        uint64_t n = 0;
        c->provider_choice = choice;
        c->provider_ptrs[0] = &c->providers[0];
        c->provider_ptrs[1] = &c->providers[1];
        *p = (void *)c->provider_ptrs;
        switch (choice) {
        case PR_NULL_0: *p = NULL; break;
        case PR_NULL_1: *p = NULL; n = 1; c->must_fail = 1; break;
        case PR_NULL_MAX: *p = NULL; n = SIZE_MAX; c->must_fail = 1; break;
        case PR_BUILTIN: c->providers[0] = builtin; n = 1; break;
        case PR_CUSTOM: c->providers[0] = harness_provider(&c->stores[0]); n = 1; break;
        case PR_CUSTOM_BUILTIN:
            c->providers[0] = harness_provider(&c->stores[0]);
            c->providers[1] = builtin;
            n = 2;
            break;
        case PR_MINIMAL_BUILTIN:
            c->providers[0] = minimal_provider();
            c->providers[1] = builtin;
            n = 2;
            break;
        case PR_V0:
        case PR_V999:
            c->providers[0] = harness_provider(&c->stores[0]);
            c->providers[0].version = choice == PR_V0 ? 0 : 999;
            n = 1;
            c->must_fail = 1;
            c->newer_version = choice == PR_V999;
            break;
        case PR_NO_LOAD:
        case PR_NO_ADD:
        case PR_NO_REMOVE:
            c->providers[0] = harness_provider(&c->stores[0]);
            if (choice == PR_NO_LOAD) c->providers[0].load = NULL;
            if (choice == PR_NO_ADD) c->providers[0].add = NULL;
            if (choice == PR_NO_REMOVE) c->providers[0].remove = NULL;
            n = 1;
            c->must_fail = 1;
            break;
        case PR_BUILTIN_CALLBACKS:
            c->providers[0] = builtin;
            c->providers[0].save = hp_save;
            n = 1;
            c->must_fail = 1;
            break;
        case PR_CUSTOM_THEN_BAD: /* a good entry, then a bad one: nothing is taken */
            c->providers[0] = harness_provider(&c->stores[0]);
            c->providers[1] = harness_provider(&c->stores[1]);
            c->providers[1].version = 999;
            n = 2;
            c->must_fail = 1;
            c->newer_version = 1;
            break;
        case PR_NULL_ENTRY: /* a NULL pointer in the array (the header: QUIRE_EINVAL) */
            c->provider_ptrs[0] = NULL;
            n = 1;
            c->must_fail = 1;
            break;
        default: /* PR_CUSTOM_THEN_NULL: a good entry, then NULL: nothing is taken */
            c->providers[0] = harness_provider(&c->stores[0]);
            c->provider_ptrs[1] = NULL;
            n = 2;
            c->must_fail = 1;
            break;
        }
        c->values[i + 1].u64 = n;
        describe(name, provider_names[choice]);
        break;
    }
    case ARG_INT64_IN:
        if (choice == 0) {
            *p = NULL;
            if (!fn->arg_optional[i]) c->must_fail = 1;
            describe(name, "NULL");
        } else {
            c->int64_in = int64_in_choices[choice - 1];
            *p = &c->int64_in;
            snprintf(text, sizeof text, "&%lld", (long long)c->int64_in);
            describe(name, text);
        }
        break;
    case ARG_CHANGEFN: {
        quire_bookmark_change_fn f = choice == 1 ? harness_bookmarks_changed : NULL;
        memcpy(p, &f, sizeof f); /* a function pointer passed as a pointer argument */
        c->uses_change_fn = choice == 1;
        if (!f && !fn->arg_optional[i]) c->must_fail = 1;
        describe(name, f ? "<counts changes>" : "NULL");
        break;
    }
    case ARG_CHECKPOINT_OPTIONS:
        c->checkpoint_choice = choice;
        if (choice == CO_NULL) {
            *p = NULL;
            if (!fn->arg_optional[i]) c->must_fail = 1;
        } else {
            int newer = 0;
            if (!checkpoint_options_for(&c->checkpoint_options, choice,
                                        strcmp(fn->name, "quire_document_inspect_checkpoint") == 0,
                                        &newer))
                c->must_fail = 1;
            if (newer) c->newer_version = 1;
            *p = &c->checkpoint_options;
        }
        describe(name, checkpoint_option_names[choice]);
        break;
    case ARG_DONEFN: {
        quire_checkpoint_done_fn f = choice == 1 ? harness_checkpoint_done : NULL;
        memcpy(p, &f, sizeof f); /* a function pointer passed as a pointer argument */
        c->uses_done_fn = choice == 1;
        if (!f && !fn->arg_optional[i]) c->must_fail = 1;
        describe(name, f ? "<records the status>" : "NULL");
        break;
    }
    case ARG_DOUBLES_COUNT:
    case ARG_DBUF_CAP:
    case ARG_PROVIDERS_COUNT:
        snprintf(text, sizeof text, "%llu", (unsigned long long)c->values[i].u64);
        describe(name, text);
        break;
    case ARG_ENUM:
        /* Every constant of the family may succeed (rules of particular functions are in
         * finish_choices); a constant of another family, or a number of none, must fail
         * (the header: the library refuses it with QUIRE_EINVAL). */
        c->values[i].i32 = enum_choice(fn->arg_families[i], choice, text, sizeof text);
        if (!in_family(fn->arg_families[i], c->values[i].i32)) c->must_fail = 1;
        describe(name, text);
        break;
    case ARG_INIT_STRUCT:
        /* The struct of a quire_*_init function: scratch of sentinel bytes (with room after
         * it), or NULL; the version after it decides the rest (finish_choices). */
        *p = choice == 0 ? (void *)c->init_struct.bytes : NULL;
        if (!*p) c->must_fail = 1;
        describe(name, *p ? "<scratch>" : "NULL");
        break;
    case ARG_CHECKPOINT_INFO: {
        quire_checkpoint_info init = QUIRE_CHECKPOINT_INFO_INIT;
        c->info_choice = choice;
        *p = &c->info.info;
        switch (choice) {
        case CI_NULL: *p = NULL; c->must_fail = 1; break;
        case CI_INIT: memcpy(c->info.bytes, &init, sizeof init); break;
        case CI_V0:
            memcpy(c->info.bytes, &init, sizeof init);
            c->info.info.version = 0;
            c->must_fail = 1;
            break;
        case CI_NEWER:
            memcpy(c->info.bytes, &init, sizeof init);
            c->info.info.version = QUIRE_CHECKPOINT_INFO_VERSION + 1;
            c->must_fail = 1;
            c->newer_version = 1;
            break;
        default: /* CI_GARBAGE: the sentinel bytes, whose version is far newer */
            c->must_fail = 1;
            c->newer_version = 1;
            break;
        }
        memcpy(&c->info_before, &c->info, sizeof c->info);
        describe(name, info_names[choice]);
        break;
    }
    case ARG_SYNC_CONFIG:
        if (choice == SC_NULL) {
            *p = NULL;
            c->must_fail = 1;
        } else {
            int newer = 0, opens = sync_config_for(&c->sync_config, choice, &newer);
            if (opens == 0) c->must_fail = 1;
            if (newer) c->newer_version = 1;
            *p = &c->sync_config;
        }
        describe(name, sync_config_names[choice]);
        break;
    case ARG_OUT_SYNC_SERVICE:
    case ARG_OUT_SYNC_RESPONSE:
    case ARG_OUT_STR:
    case ARG_OUT_DATA:
        if (choice == 0) {
            void *sentinel = &handle_sentinel_target;
            *p = c->scratch[i].bytes;
            memcpy(c->scratch[i].bytes, &sentinel, sizeof sentinel);
            describe(name, "<scratch>");
        } else {
            *p = NULL;
            c->must_fail = 1;
            describe(name, "NULL");
        }
        break;
    case ARG_SYNC_SERVICE:
        if (choice == 0 && fn->mutates) {
            /* A function that stops its service gets one of its own. */
            c->fresh_service = open_sync_service();
            if (!c->fresh_service) {
                fail("could not open a service for the call: %s", native_last_error_message());
                native_clear_error();
            }
            *p = c->fresh_service;
        } else {
            *p = choice == 0 ? (void *)valid_service : NULL;
        }
        if (!*p) c->must_fail = 1;
        describe(name, choice == 0 ? (fn->mutates ? "<a service of its own>" : "<the service>")
                                   : "NULL");
        break;
    case ARG_SYNC_RESPONSE:
        *p = valid_responses[choice];
        c->sync_response_choice = choice;
        if (!*p) c->must_fail = 1;
        describe(name, *p || choice == SR_NULL ? sync_response_names[choice] : "NULL (none)");
        break;
    case ARG_FREE_SYNC_RESPONSE:
        /* consumed by the call */
        *p = choice == 1 ? (void *)sync_request(valid_service, "GET", "/healthz", 0, NULL, 0) : NULL;
        describe(name, *p ? "<a fresh response>" : "NULL");
        break;
    case ARG_SYNC_HEADERS: {
        static const quire_sync_header admin = {"Authorization", "Token " SYNC_ADMIN_TOKEN};
        static const quire_sync_header request_id = {"X-Request-Id", SYNC_REQUEST_ID};
        uint64_t n = 1;
        c->sync_headers[0] = admin;
        c->sync_headers[1] = request_id;
        *p = c->sync_headers;
        switch (choice) {
        case SH_NULL_0: *p = NULL; n = 0; break;
        case SH_NULL_1: *p = NULL; c->must_fail = 1; break;
        case SH_NULL_MAX: *p = NULL; n = SIZE_MAX; c->must_fail = 1; break;
        case SH_ADMIN: break;
        case SH_ADMIN_ID: n = 2; c->sync_request_id = SYNC_REQUEST_ID; break;
        case SH_WRONG: c->sync_headers[0].value = "Token not-the-token"; break;
        case SH_BEARER: c->sync_headers[0].value = "Bearer not.a.jwt"; break;
        case SH_EMPTY: c->sync_headers[0].name = ""; c->sync_headers[0].value = ""; break;
        case SH_NULL_NAME: c->sync_headers[0].name = NULL; c->must_fail = 1; break;
        case SH_NULL_VALUE: c->sync_headers[0].value = NULL; c->must_fail = 1; break;
        case SH_ADMIN_THEN_NULL:
            c->sync_headers[1].name = NULL;
            n = 2;
            c->must_fail = 1;
            break;
        default: n = 0; break; /* SH_ARRAY_0: a real array, count 0 */
        }
        c->values[i + 1].u64 = n;
        describe(name, sync_header_names[choice]);
        break;
    }
    case ARG_SYNC_METHOD:
        *p = (void *)sync_methods[choice];
        if (!*p) c->must_fail = 1;
        describe(name, sync_method_names[choice]);
        break;
    case ARG_SYNC_TARGET:
        *p = choice == ST_NULL ? NULL : choice == ST_LONG ? long_string : sync_targets[choice];
        if (!*p) c->must_fail = 1;
        describe(name, sync_target_names[choice]);
        break;
    case ARG_SYNC_HEADERS_COUNT:
    case ARG_BUF_SIZE:
    case ARG_DATA_SIZE:
    case ARG_TEXT_LEN:
    case ARG_BYTES_SIZE:
        snprintf(text, sizeof text, "%llu", (unsigned long long)c->values[i].u64);
        describe(name, text);
        break;
    case ARG_INT:
        c->values[i].i32 = int_choices[choice];
        /* Every int parameter of quire.h is an index or a switch (the constant families are
         * ARG_ENUM): 0 and 1 may be valid, the others are out of range for the test
         * document. Except object numbers:
         * a number past the last object is a missing object, which reads as null (the
         * header), so only a negative one must fail. */
        if (strcmp(fn->name, "quire_document_set_replies_enabled") == 0 ||
            strcmp(fn->name, "quire_document_stop_checkpoints") == 0) {
            /* "on (1) or off (0)", and stop's `remove` ("unless `remove` is non-zero"):
             * any other number is taken as on (the C convention). */
        } else if ((strcmp(fn->name, "quire_document_export_annotations_json") == 0 ||
                    strcmp(fn->name, "quire_document_export_annotations_json_instant_comments") == 0) &&
                   strcmp(name, "page_index") == 0 && c->values[i].i32 == -1) {
            /* -1: every page (the header). */
        } else if ((strcmp(fn->name, "quire_page_device_to_page") == 0 ||
                    strcmp(fn->name, "quire_page_page_to_device") == 0) &&
                   strcmp(name, "page_index") != 0) {
            /* The view (the header): `start_x` and `start_y` any value, `size_x` and `size_y`
             * positive, `rotate` 0 to 3. */
            int32_t v = c->values[i].i32;
            if ((strncmp(name, "size_", 5) == 0 && v <= 0) ||
                (strcmp(name, "rotate") == 0 && (v < 0 || v > 3)))
                c->must_fail = 1;
        } else if (strcmp(fn->name, "quire_bookmark_new") == 0 &&
                   strcmp(name, "page_index") == 0) {
            /* Negative only fails for a go-to bookmark ("ignored" for the others): decided
             * in finish_choices, once the kind is known. */
        } else if (strcmp(name, "number") == 0 ||
                   strcmp(fn->name, "quire_annotation_new") == 0) {
            /* A page index of a new annotation is checked when it is added (QUIRE_ERANGE
             * there): only a negative one fails here. */
            if (c->values[i].i32 < 0) c->must_fail = 1;
        } else if (choice >= 2) {
            c->must_fail = 1;
        }
        snprintf(text, sizeof text, "%ld", (long)c->values[i].i32);
        describe(name, text);
        break;
    case ARG_UINT:
        /* (The only unsigned parameters are versions: of the quire_*_init functions, and
         * the struct version the bulk annotation reads write; finish_choices decides which
         * can succeed.) */
        c->values[i].u32 = uint_choices[choice];
        snprintf(text, sizeof text, "%lu", (unsigned long)c->values[i].u32);
        describe(name, text);
        break;
    case ARG_SIZE:
        c->values[i].u64 = size_choices[choice];
        snprintf(text, sizeof text, "%llu", (unsigned long long)c->values[i].u64);
        describe(name, text);
        break;
    case ARG_INT64:
        c->values[i].i64 = int64_choices[choice];
        snprintf(text, sizeof text, "%lld", (long long)c->values[i].i64);
        describe(name, text);
        break;
    case ARG_DOUBLE:
        c->values[i].d = double_choice(choice);
        if (!isfinite(c->values[i].d)) c->must_fail = 1; /* no field is NaN or infinite */
        snprintf(text, sizeof text, "%g", c->values[i].d);
        describe(name, text);
        break;
    }
}

/* Rules that depend on several arguments, once all of them are chosen. */
static void finish_choices(struct call *c) {
    const struct ffi_function *fn = c->fn;
    if (strcmp(fn->name, "quire_bookmark_new") == 0) {
        /* (out, kind, page_index, text): a bookmark's kind is one of four action types
         * (QUIRE_BOOKMARK_GOTO, _URI, _NAMED, _OTHER: not none, GoToR or Launch); a go-to
         * takes a page >= 0 and no text; the other kinds take text (the header). */
        int32_t kind = c->values[1].i32, page = c->values[2].i32;
        const char *text = c->values[3].p;
        if (kind != QUIRE_BOOKMARK_GOTO && kind != QUIRE_BOOKMARK_URI &&
            kind != QUIRE_BOOKMARK_NAMED && kind != QUIRE_BOOKMARK_OTHER)
            c->must_fail = 1;
        if (kind == QUIRE_BOOKMARK_GOTO && (page < 0 || text != NULL)) c->must_fail = 1;
        if (kind != QUIRE_BOOKMARK_GOTO && (text == NULL || text[0] == '\0')) c->must_fail = 1;
    } else if (strcmp(fn->name, "quire_annotation_set_number") == 0) {
        /* QUIRE_ANNOT_FONT_SIZE is read-only (the header: QUIRE_EINVAL). */
        if (c->values[1].i32 == QUIRE_ANNOT_FONT_SIZE) c->must_fail = 1;
    } else if (strcmp(fn->name, "quire_annotation_set_measurement") == 0 ||
               strcmp(fn->name, "quire_tool_manager_set_measurement") == 0) {
        /* (annotation or manager, from_value, from_unit, to_value, to_unit, precision):
         * `from_unit` NULL removes the scale, and the other arguments are then ignored (the
         * header); it succeeds for any annotation (the harness's manager is NULL). */
        if (c->values[2].p == NULL) c->must_fail = c->values[0].p == NULL;
    } else if (strcmp(fn->name, "quire_annotation_set_string") == 0) {
        /* QUIRE_ANNOT_IN_REPLY_TO_ID is read-only (the header: QUIRE_EINVAL). */
        if (c->values[1].i32 == QUIRE_ANNOT_IN_REPLY_TO_ID) c->must_fail = 1;
    } else if (fn->nargs == 2 && fn->arg_kinds[0] == ARG_INIT_STRUCT &&
               fn->arg_kinds[1] == ARG_UINT) {
        /* quire_*_init(struct, version): version 0 is QUIRE_EINVAL, a version after the
         * library's QUIRE_EVERSION (the header). */
        uint32_t current = 0, version = c->values[1].u32;
        init_struct_size(fn->arg_ctypes[0], 1, &current);
        if (current == 0) fail("the harness knows no versions of %s", fn->arg_ctypes[0]);
        if (version == 0) c->must_fail = 1;
        if (version > current) {
            c->must_fail = 1;
            c->newer_version = 1;
        }
    } else if (strcmp(fn->name, "quire_page_annotation_infos") == 0 ||
               strcmp(fn->name, "quire_annotation_list_infos") == 0) {
        /* (..., version): the version of quire_annotation_info to write; 0 is QUIRE_EINVAL,
         * a version after the header's QUIRE_EVERSION (the header). */
        uint32_t version = c->values[fn->nargs - 1].u32;
        if (version == 0) c->must_fail = 1;
        if (version > QUIRE_ANNOTATION_INFO_VERSION) {
            c->must_fail = 1;
            c->newer_version = 1;
        }
    } else if (strcmp(fn->name, "quire_text_page_char_infos") == 0) {
        /* (..., text, version): the version of quire_text_char_info to write; 0 is
         * QUIRE_EINVAL, a version after the header's QUIRE_EVERSION (the header). */
        uint32_t version = c->values[fn->nargs - 1].u32;
        if (version == 0) c->must_fail = 1;
        if (version > QUIRE_TEXT_CHAR_INFO_VERSION) {
            c->must_fail = 1;
            c->newer_version = 1;
        }
    } else if (strcmp(fn->name, "quire_sync_response_header") == 0 &&
               c->sync_response_choice > SR_NULL) {
        /* (out_name, out_value, response, index): an index past the response's headers is
         * QUIRE_ERANGE (the header). */
        if (c->values[3].u64 >= response_header_counts[c->sync_response_choice]) c->must_fail = 1;
    } else if (strcmp(fn->name, "quire_bookmark_set_identifier") == 0) {
        /* "non-empty UTF-8": QUIRE_EINVAL for NULL or empty */
        const char *id = c->values[1].p;
        if (!id || !id[0]) c->must_fail = 1;
    }
}

/* After quire_document_set_bookmark_providers: the library owns the payloads of the custom
 * providers it took (it frees them through `release`); after a failure it took none and
 * released none (the header: "the chain is unchanged and no new provider's release is
 * called"), and the harness frees them. */
static void after_set_providers(struct call *c, unsigned long released_before) {
    int k;
    unsigned long released = providers_released - released_before;
    if (c->status == QUIRE_OK) {
        for (k = 0; k < 2; k++)
            if (c->stores[k]) providers_taken++;
        return;
    }
    if (released > 0) {
        /* The released payloads are already freed: freeing the others could free one
         * twice, so they are left (a leak valgrind reports, beside this failure). */
        fail("failed, yet %lu provider(s) were released during the call", released);
        return;
    }
    for (k = 0; k < 2; k++) {
        free(c->stores[k]);
        c->stores[k] = NULL;
    }
}

/* After a successful quire_document_set_bookmark_change_callback (on the document to edit,
 * which has the harness's chain, whose provider takes URI bookmarks): one more bookmark
 * makes one call of the callback with the document and the payload given, or none if the
 * callback was removed (NULL). */
static void after_set_change_callback(struct call *c) {
    quire_bookmark *b = make_bookmark(BM_URI);
    unsigned long expected = c->uses_change_fn ? 1 : 0;
    int status;
    change_calls = 0;
    bad_change_calls = 0;
    change_expected_doc = edit_doc;
    change_expected_payload = c->change_payload;
    status = b ? native_add_bookmark(edit_doc, b) : QUIRE_ENOMEM;
    native_bookmark_free(b);
    if (status != QUIRE_OK) {
        fail("then adding a URI bookmark failed: %d %s", status, native_last_error_message());
        native_clear_error();
        return;
    }
    if (change_calls != expected)
        fail("then adding a bookmark called the change callback %lu times, not %lu",
             change_calls, expected);
    if (bad_change_calls)
        fail("the change callback got another document or payload than it was set with");
}

/* Phases 1 and 2: every pointer NULL; scalars zero (g < 0) or garbage number g. */
static void set_scalar_phase(struct call *c, int g) {
    const struct ffi_function *fn = c->fn;
    unsigned i;
    char text[64];
    for (i = 0; i < fn->nargs; i++) {
        switch (fn->arg_kinds[i]) {
        case ARG_INT:
        case ARG_ANNOT_NUMBER:
            c->values[i].i32 = g < 0 ? 0 : int_garbage[g];
            snprintf(text, sizeof text, "%ld", (long)c->values[i].i32);
            break;
        case ARG_ENUM:
            /* 0 and the garbage numbers are constants of no family. */
            c->values[i].i32 = g < 0 ? 0 : int_garbage[g];
            if (!in_family(fn->arg_families[i], c->values[i].i32)) c->must_fail = 1;
            snprintf(text, sizeof text, "%ld", (long)c->values[i].i32);
            break;
        case ARG_UINT:
            c->values[i].u32 = g < 0 ? 0 : uint_garbage[g];
            snprintf(text, sizeof text, "%lu", (unsigned long)c->values[i].u32);
            break;
        case ARG_SIZE:
        case ARG_BUF_SIZE:
        case ARG_DATA_SIZE:
        case ARG_TEXT_LEN:
        case ARG_BYTES_SIZE:
        case ARG_DOUBLES_COUNT:
        case ARG_DBUF_CAP:
        case ARG_PROVIDERS_COUNT:
        case ARG_SYNC_HEADERS_COUNT:
            c->values[i].u64 = g < 0 ? 0 : size_garbage[g];
            snprintf(text, sizeof text, "%llu", (unsigned long long)c->values[i].u64);
            break;
        case ARG_INT64:
            c->values[i].i64 = g < 0 ? 0 : int64_garbage[g];
            snprintf(text, sizeof text, "%lld", (long long)c->values[i].i64);
            break;
        case ARG_DOUBLE:
            c->values[i].d = g < 0 ? 0.0 : double_choice(g + 1);
            snprintf(text, sizeof text, "%g", c->values[i].d);
            break;
        default:
            c->values[i].p = NULL;
            c->must_fail = 1; /* a required pointer is NULL */
            snprintf(text, sizeof text, "NULL");
            break;
        }
        describe(fn->arg_names[i], text);
    }
}

/* ---- calling and checking -------------------------------------------------------------- */

static int is_status_function(const struct ffi_function *fn) {
    return strcmp(fn->return_ctype, "int") == 0 &&
           strcmp(fn->name, "quire_last_error_code") != 0;
}

static int known_status(long long s) { return s <= QUIRE_OK && s >= LAST_STATUS; }

static void check_error_recorded(int status) {
    int code = native_last_error_code();
    const char *msg = native_last_error_message();
    if (code != status)
        fail("quire_last_error_code() after the failure is %lld, not the status", (long long)code);
    if (msg == NULL)
        fail("quire_last_error_message() is NULL");
    else if (msg[0] == '\0')
        fail("the status is an error but quire_last_error_message() is empty");
}

static int untouched(const unsigned char *p, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        if (p[i] != SENTINEL_BYTE) return 0;
    return 1;
}

/* The struct of a quire_*_init function (argument i; its version is argument i + 1): on
 * failure untouched; on success its version is the one asked for, the defaults of that
 * version (the _INIT macro's) are in its fields, and nothing after that version's bytes is
 * written (the header: "writes only the fields that `version` has"). */
static void check_init_struct(struct call *c, unsigned i, int status) {
    const struct ffi_function *fn = c->fn;
    const unsigned char *b = c->init_struct.bytes;
    uint32_t version = c->values[i + 1].u32, current = 0, got;
    size_t size = init_struct_size(fn->arg_ctypes[i], version, &current);
    if (status < 0) {
        if (!untouched(b, sizeof c->init_struct.bytes))
            fail("failed but wrote the struct %s", fn->arg_names[i]);
        return;
    }
    if (status != 0) return;
    if (size == 0) {
        fail("QUIRE_OK for version %lu, which the harness does not know for %s",
             (unsigned long)version, fn->arg_ctypes[i]);
        return;
    }
    memcpy(&got, b, sizeof got);
    if (got != version)
        fail("the version field is %lu, not the %lu asked for", (unsigned long)got,
             (unsigned long)version);
    if (!untouched(b + size, sizeof c->init_struct.bytes - size))
        fail("wrote past the %lu bytes of version %lu of %s", (unsigned long)size,
             (unsigned long)version, fn->arg_ctypes[i]);
    if (strcmp(fn->arg_ctypes[i], "quire_open_options *") == 0) {
        quire_open_options o;
        memcpy(&o, b, sizeof o);
        if (o.password != NULL || o.max_nesting_depth || o.max_page_tree_depth ||
            o.max_xref_chain || o.max_objects || o.max_stream_bytes ||
            o.max_total_decoded_bytes || o.max_decompression_ratio || o.max_pages)
            fail("the open options are not QUIRE_OPEN_OPTIONS_INIT's");
    } else if (strcmp(fn->arg_ctypes[i], "quire_save_options *") == 0) {
        quire_save_options o;
        memset(&o, 0, sizeof o);
        memcpy(&o, b, size);
        if (o.mode != QUIRE_SAVE_INCREMENTAL || o.object_streams != 0 ||
            (version >= 2 && (o.progress != NULL || o.progress_payload != NULL)))
            fail("the save options are not QUIRE_SAVE_OPTIONS_INIT's");
    } else if (strcmp(fn->arg_ctypes[i], "quire_bookmark_provider *") == 0) {
        quire_bookmark_provider o;
        memcpy(&o, b, sizeof o);
        if (o.builtin != 0 || o.load || o.add || o.remove || o.save || o.release || o.payload)
            fail("the provider is not QUIRE_BOOKMARK_PROVIDER_INIT's");
    } else if (strcmp(fn->arg_ctypes[i], "quire_checkpoint_options *") == 0) {
        quire_checkpoint_options o;
        memset(&o, 0, sizeof o);
        memcpy(&o, b, size);
        if (o.strategy != QUIRE_CHECKPOINT_MANUAL || o.interval_seconds != 10.0 || o.directory ||
            o.uid || o.load_if_available != 0 ||
            (version >= 2 && o.existing != QUIRE_CHECKPOINT_EXISTING_LOAD))
            fail("the checkpoint options are not QUIRE_CHECKPOINT_OPTIONS_INIT's");
    } else if (strcmp(fn->arg_ctypes[i], "quire_sync_config *") == 0) {
        quire_sync_config o;
        memcpy(&o, b, sizeof o);
        if (o.store || o.public_keys || o.public_key_count || o.jwks || o.admin_token ||
            o.max_body_bytes || o.max_upload_bytes)
            fail("the sync config is not QUIRE_SYNC_CONFIG_INIT's");
    }
}

/* The struct quire_document_inspect_checkpoint fills: on failure untouched; on success its
 * version kept, a state of quire_checkpoint_state, in_use 0 or 1, nothing written after it. */
static void check_checkpoint_info(struct call *c, int status) {
    const quire_checkpoint_info *info = &c->info.info;
    if (status < 0) {
        if (memcmp(&c->info, &c->info_before, sizeof c->info) != 0)
            fail("failed but wrote the checkpoint info");
        return;
    }
    if (status != 0) return;
    if (info->version != QUIRE_CHECKPOINT_INFO_VERSION)
        fail("the info's version became %lu", (unsigned long)info->version);
    if (!in_family(family_by_name("quire_checkpoint_state"), (int32_t)info->state))
        fail("the info's state is %#lx, no QUIRE_CHECKPOINT_* state", (unsigned long)info->state);
    if (info->in_use != 0 && info->in_use != 1)
        fail("the info's in_use is %ld", (long)info->in_use);
    if (info->state == QUIRE_CHECKPOINT_NONE && (info->size != 0 || info->changed_objects != 0))
        fail("no checkpoint, yet a size or changes");
    if (!untouched(c->info.bytes + sizeof(quire_checkpoint_info), 32))
        fail("wrote past the end of the checkpoint info");
}

/* The sync service's out-parameters (argument i): on failure untouched; on success a service
 * that answers (then shut down and closed), a response that is one (then freed), a string,
 * or a body pointer that is NULL exactly when the length beside it is 0. */
static void check_sync_out(struct call *c, unsigned i, int status) {
    const struct ffi_function *fn = c->fn;
    enum ffi_arg_kind k = fn->arg_kinds[i];
    const unsigned char *s = c->scratch[i].bytes;
    void *h;
    memcpy(&h, s, sizeof h);
    if (!untouched(s + sizeof h, SCRATCH - sizeof h))
        fail("wrote past the end of %s", fn->arg_names[i]);
    if (status < 0) {
        if (h != (void *)&handle_sentinel_target)
            fail("failed but wrote its out-parameter %s", fn->arg_names[i]);
        return;
    }
    if (status != 0) return;
    if (h == (void *)&handle_sentinel_target) {
        fail("succeeded without writing %s", fn->arg_names[i]);
        return;
    }
    if (k == ARG_OUT_SYNC_SERVICE) {
        /* A service: it answers the health check, then it is shut down and closed. */
        int32_t health;
        if (!h) {
            fail("succeeded with a NULL service");
            return;
        }
        sync_services_opened++;
        health = sync_status_of((quire_sync_service *)h, "GET", "/healthz");
        if (health != 200) fail("the service opened answers GET /healthz with %ld", (long)health);
        close_sync_service((quire_sync_service *)h);
        native_clear_error();
    } else if (k == ARG_OUT_SYNC_RESPONSE) {
        const char *problem;
        if (!h) {
            fail("succeeded with a NULL response");
            return;
        }
        problem = response_problem((quire_sync_response *)h, c->sync_request_id);
        if (problem) fail("the response: %s", problem);
        native_response_free((quire_sync_response *)h);
    } else if (k == ARG_OUT_STR) {
        if (!h)
            fail("succeeded with NULL in %s", fn->arg_names[i]);
        else if (strcmp(fn->arg_names[i], "out_name") == 0 && ((const char *)h)[0] == '\0')
            fail("a header with an empty name");
        else
            (void)strlen((const char *)h); /* a string (valgrind checks the read) */
    } else {
        /* ARG_OUT_DATA, then its length (ARG_OUT_LEN) */
        size_t len = LEN_SENTINEL;
        if (i + 1 < fn->nargs && c->values[i + 1].p) memcpy(&len, c->values[i + 1].p, sizeof len);
        if (len != LEN_SENTINEL && (h == NULL) != (len == 0))
            fail("the body is %s with a length of %lu (NULL exactly when empty: the header)",
                 h ? "not NULL" : "NULL", (unsigned long)len);
    }
}

static void check_status_call(struct call *c, int status) {
    const struct ffi_function *fn = c->fn;
    unsigned i;
    size_t buf_size = 0, *out_len = NULL;
    char *buf = NULL;
    int have_buf = 0;
    double *dbuf = NULL;
    size_t dbuf_cap = 0;
    int have_dbuf = 0;

    if (known_status(status)) status_counts[-status]++;
    if (status == QUIRE_OK) ok_counts[fn - FFI_FUNCTIONS]++;
    if (!known_status(status)) fail("returned %lld, which is not a status code", (long long)status);
    if (status == QUIRE_EINTERNAL)
        fail("QUIRE_EINTERNAL (a bug in Quire, says the header): %s", native_last_error_message());
    if (c->must_fail && status == QUIRE_OK)
        fail("returned QUIRE_OK for arguments that cannot succeed");
    /* A callback that returned non-zero aborts with QUIRE_EUSER, and only that gives it. */
    if (status == QUIRE_EUSER && aborter_calls == 0)
        fail("QUIRE_EUSER, but no callback returned non-zero");
    if (aborter_calls > 0 && status != QUIRE_EUSER)
        fail("a callback returned non-zero, but the status is %d, not QUIRE_EUSER", status);
    if (aborter_calls > 1)
        fail("the callback was called again after it returned non-zero (%lu calls)",
             aborter_calls);
    /* QUIRE_EVERSION is for a versioned struct newer than the library (the header), and
     * only for that. */
    if (status == QUIRE_EVERSION && !c->newer_version)
        fail("QUIRE_EVERSION, but no struct (or _init version) newer than the library's was "
             "passed");
    if (bad_write_arguments > 0) fail("the write callback got data NULL with a size > 0");
    if (bad_progress_calls > 0)
        fail("a progress callback got another payload or done > total, or the garbage "
             "`progress` of a version 1 struct was called (%lu times)", bad_progress_calls);
    if (bad_provider_calls > 0)
        fail("a bookmark provider callback was called with wrong arguments, a dead payload, "
             "or its own calls into the library failed (%lu times)", bad_provider_calls);
    if (status < 0)
        check_error_recorded(status);
    else if (native_last_error_code() != QUIRE_OK)
        fail("succeeded but recorded an error: %s", native_last_error_message());
    /* "Every outcome, including the caller's mistakes and hostile input, is a response ...;
     * a status other than QUIRE_OK means the call itself was wrong." */
    if (strcmp(fn->name, "quire_sync_service_handle") == 0 && !c->must_fail && status != QUIRE_OK)
        fail("returned %d (%s) for a call that is not wrong: every outcome is a response",
             status, native_last_error_message());
    /* A response getter's answer is what the harness read of the response natively. */
    if (status == QUIRE_OK && c->sync_response_choice > SR_NULL) {
        int r = c->sync_response_choice;
        if (strcmp(fn->name, "quire_sync_response_status") == 0 && c->values[0].p) {
            int32_t got;
            memcpy(&got, c->values[0].p, sizeof got);
            if (got != response_statuses[r])
                fail("gave status %ld, not the response's %ld", (long)got,
                     (long)response_statuses[r]);
        } else if (strcmp(fn->name, "quire_sync_response_header_count") == 0 && c->values[0].p) {
            size_t got;
            memcpy(&got, c->values[0].p, sizeof got);
            if (got != response_header_counts[r])
                fail("gave %lu headers, not the response's %lu", (unsigned long)got,
                     (unsigned long)response_header_counts[r]);
        } else if (strcmp(fn->name, "quire_sync_response_body") == 0 && c->values[1].p) {
            size_t got;
            memcpy(&got, c->values[1].p, sizeof got);
            if (got != response_body_lens[r])
                fail("gave a body of %lu bytes, not the response's %lu", (unsigned long)got,
                     (unsigned long)response_body_lens[r]);
        }
    }
    if (strcmp(fn->name, "quire_sync_response_header") == 0 && c->sync_response_choice > SR_NULL &&
        c->values[0].p && c->values[1].p &&
        c->values[3].u64 >= response_header_counts[c->sync_response_choice] &&
        status != QUIRE_ERANGE)
        fail("an index past the %lu headers gave %d, not QUIRE_ERANGE",
             (unsigned long)response_header_counts[c->sync_response_choice], status);

    for (i = 0; i < fn->nargs; i++) {
        enum ffi_arg_kind k = fn->arg_kinds[i];
        if (k == ARG_BUF) {
            buf = c->values[i].p;
            buf_size = (size_t)c->values[i + 1].u64;
            have_buf = 1;
        } else if (k == ARG_DBUF) {
            dbuf = c->values[i].p;
            dbuf_cap = (size_t)c->values[i + 1].u64;
            have_dbuf = 1;
        } else if (k == ARG_OUT_LEN && c->values[i].p) {
            out_len = c->values[i].p;
        }
    }

    for (i = 0; i < fn->nargs; i++) {
        enum ffi_arg_kind k = fn->arg_kinds[i];
        unsigned char *s = c->scratch[i].bytes;
        size_t pointee = fn->arg_pointee_sizes[i];
        if (!c->values[i].p) continue;
        if (k == ARG_OUT) {
            /* A struct whose version the harness set (a redaction result): the rest is
             * the sentinel. */
            size_t set = strcmp(fn->arg_ctypes[i], "quire_redaction_result *") == 0 ? sizeof(uint32_t) : 0;
            if (status < 0 && !untouched(s + set, SCRATCH - set))
                fail("failed but wrote its out-parameter %s", fn->arg_names[i]);
            /* (An optional out-parameter may be left alone: outline_item's page, say, is only
             * defined for GoTo and GoToR.) */
            if (status == 0 && untouched(s, pointee) && !fn->arg_optional[i])
                fail("succeeded without writing its out-parameter %s", fn->arg_names[i]);
            if (status == 0 && !untouched(s + pointee, SCRATCH - pointee))
                fail("wrote past the end of its out-parameter %s", fn->arg_names[i]);
            /* An out-parameter of a constant family holds one of its constants. */
            if (status == 0 && fn->arg_families[i] >= 0 && !untouched(s, pointee)) {
                int32_t v;
                memcpy(&v, s, sizeof v);
                if (!in_family(fn->arg_families[i], v))
                    fail("wrote %ld (%#lx) to %s, which is no constant of %s", (long)v,
                         (unsigned long)(uint32_t)v, fn->arg_names[i],
                         FFI_ENUM_FAMILIES[fn->arg_families[i]].name);
            }
        } else if (k == ARG_OUT_VALUE) {
            void *h;
            memcpy(&h, s, sizeof h);
            if (status < 0 && h != (void *)&handle_sentinel_target)
                fail("failed but wrote its out-parameter %s", fn->arg_names[i]);
            if (status == 0) {
                if (h == NULL || h == (void *)&handle_sentinel_target) {
                    fail("succeeded without writing a value to %s", fn->arg_names[i]);
                } else {
                    /* A real value: it has a type; then it is freed. */
                    quire_value_kind t = (quire_value_kind)-1;
                    if (native_value_type(&t, (quire_value *)h) != QUIRE_OK ||
                        !in_family(family_by_name("quire_value_kind"), (int32_t)t))
                        fail("returned a value of no known type (%#lx)", (unsigned long)t);
                    native_value_free((quire_value *)h);
                }
            }
            if (!untouched(s + sizeof h, SCRATCH - sizeof h))
                fail("wrote past the end of %s", fn->arg_names[i]);
        } else if (k == ARG_OUT_ANNOT || k == ARG_OUT_LIST || k == ARG_OUT_TOOLS) {
            void *h;
            memcpy(&h, s, sizeof h);
            if (status < 0 && h != (void *)&handle_sentinel_target)
                fail("failed but wrote its out-parameter %s", fn->arg_names[i]);
            if (status == 0) {
                if (h == NULL || h == (void *)&handle_sentinel_target) {
                    fail("succeeded without writing a handle to %s", fn->arg_names[i]);
                } else if (k == ARG_OUT_TOOLS) {
                    /* A real tool manager: Pan is current; then it is freed. */
                    quire_tool tool = QUIRE_TOOL_CUSTOM;
                    if (native_tool_manager_current_tool(&tool, (quire_tool_manager *)h) != QUIRE_OK ||
                        tool != QUIRE_TOOL_PAN)
                        fail("returned a tool manager whose tool is not Pan (%#x)", (unsigned)tool);
                    native_tool_manager_free((quire_tool_manager *)h);
                } else if (k == ARG_OUT_ANNOT) {
                    /* A real annotation: it has a page; then it is freed. */
                    int32_t page = -1;
                    if (native_annotation_page_index(&page, (quire_annotation *)h) != QUIRE_OK ||
                        page < 0)
                        fail("returned an annotation without a page (%ld)", (long)page);
                    native_annotation_free((quire_annotation *)h);
                } else {
                    int32_t n = -1;
                    if (native_list_count(&n, (quire_annotation_list *)h) != QUIRE_OK || n < 0)
                        fail("returned a list without a count (%ld)", (long)n);
                    native_list_free((quire_annotation_list *)h);
                }
            }
            if (!untouched(s + sizeof h, SCRATCH - sizeof h))
                fail("wrote past the end of %s", fn->arg_names[i]);
        } else if (k == ARG_OUT_BOOKMARK) {
            void *h;
            memcpy(&h, s, sizeof h);
            if (status < 0 && h != (void *)&handle_sentinel_target)
                fail("failed but wrote its out-parameter %s", fn->arg_names[i]);
            if (status == 0) {
                if (h == NULL || h == (void *)&handle_sentinel_target) {
                    fail("succeeded without writing a bookmark to %s", fn->arg_names[i]);
                } else {
                    /* A real bookmark: a known kind and an identifier; then it is freed. */
                    quire_action_type kind = QUIRE_ACTION_NONE;
                    size_t id_len = 0;
                    if (native_bookmark_action_kind(&kind, (quire_bookmark *)h) != QUIRE_OK ||
                        (kind != QUIRE_BOOKMARK_GOTO && kind != QUIRE_BOOKMARK_URI &&
                         kind != QUIRE_BOOKMARK_NAMED && kind != QUIRE_BOOKMARK_OTHER))
                        fail("returned a bookmark of no bookmark kind (%#lx)", (unsigned long)kind);
                    if (native_bookmark_identifier(NULL, 0, &id_len, (quire_bookmark *)h) !=
                            QUIRE_OK ||
                        id_len == 0)
                        fail("returned a bookmark without an identifier");
                    native_bookmark_free((quire_bookmark *)h);
                }
            }
            if (!untouched(s + sizeof h, SCRATCH - sizeof h))
                fail("wrote past the end of %s", fn->arg_names[i]);
        } else if (k == ARG_OUT_SYNC_SERVICE || k == ARG_OUT_SYNC_RESPONSE || k == ARG_OUT_STR ||
                   k == ARG_OUT_DATA) {
            check_sync_out(c, i, status);
        } else if (k == ARG_INIT_STRUCT) {
            check_init_struct(c, i, status);
        } else if (k == ARG_CHECKPOINT_INFO) {
            check_checkpoint_info(c, status);
        } else if (k == ARG_OUT_HANDLE) {
            void *h;
            memcpy(&h, s, sizeof h);
            if (status < 0 && h != (void *)&handle_sentinel_target)
                fail("failed but wrote its out-parameter %s", fn->arg_names[i]);
            if (status == 0) {
                if (h == NULL || h == (void *)&handle_sentinel_target)
                    fail("succeeded without writing a handle to %s", fn->arg_names[i]);
                else
                    native_close((quire_document *)h);
            }
            if (!untouched(s + sizeof h, SCRATCH - sizeof h))
                fail("wrote past the end of %s", fn->arg_names[i]);
        } else if (k == ARG_OUT_LEN) {
            size_t len;
            memcpy(&len, s, sizeof len);
            if (status < 0 && status != QUIRE_EBUFS && len != LEN_SENTINEL)
                fail("failed (not QUIRE_EBUFS) but wrote %s", fn->arg_names[i]);
            if ((status == QUIRE_EBUFS || status == 0) && len == LEN_SENTINEL)
                fail("did not write %s", fn->arg_names[i]);
            if (status == QUIRE_EBUFS && len != LEN_SENTINEL && have_buf && buf &&
                len + 1 <= buf_size)
                fail("QUIRE_EBUFS, yet the buffer has room for *out_len + 1 (%lld)",
                         (long long)len + 1);
            if (!untouched(s + sizeof len, SCRATCH - sizeof len))
                fail("wrote past the end of %s", fn->arg_names[i]);
        }
    }

    if (have_buf && buf) {
        if (status < 0 && !untouched((unsigned char *)buf, BUF_CAP))
            fail("failed but wrote the caller's buffer");
        if (status == 0 && out_len) {
            size_t len = *out_len;
            if (len == LEN_SENTINEL) {
                /* reported above */
            } else if (buf_size > 0 && len + 1 > buf_size) {
                fail("QUIRE_OK, but *out_len + 1 (%lld) exceeds buf_size",
                         (long long)len + 1);
            } else if (buf_size > 0) {
                if (buf[len] != '\0') fail("QUIRE_OK, but no NUL at buf[*out_len]");
                if (!untouched((unsigned char *)buf + len + 1, BUF_CAP - len - 1))
                    fail("wrote past the NUL at buf[*out_len]");
            }
        }
        if (status == 0 && buf_size == 0 && !untouched((unsigned char *)buf, BUF_CAP))
            fail("wrote to a buffer of size 0");
    }

    /* Numbers through the length-query pattern for numbers: QUIRE_EBUFS means the count
     * is more than the capacity; on success the count fits and nothing after it is
     * written; on failure nothing is. */
    if (have_dbuf && out_len && *out_len != LEN_SENTINEL) {
        size_t n = *out_len;
        if (status == QUIRE_EBUFS && dbuf && n <= dbuf_cap)
            fail("QUIRE_EBUFS, yet the capacity %lu holds the %lu numbers",
                 (unsigned long)dbuf_cap, (unsigned long)n);
        if (status == QUIRE_EBUFS && !dbuf)
            fail("QUIRE_EBUFS for the NULL/0 count query");
        if (status == 0 && dbuf && n > dbuf_cap)
            fail("QUIRE_OK, but the count %lu exceeds the capacity %lu", (unsigned long)n,
                 (unsigned long)dbuf_cap);
        if (status == 0 && dbuf && n <= DBUF_CAP &&
            !untouched((unsigned char *)(c->dbuf + n), sizeof c->dbuf - n * sizeof(double)))
            fail("wrote past the %lu numbers it counted", (unsigned long)n);
    }
    if (have_dbuf && dbuf && status < 0 && !untouched((unsigned char *)c->dbuf, sizeof c->dbuf))
        fail("failed but wrote the caller's numbers");
    /* A colour has 0 to 4 components (the header: "4 always suffices"); that only they are
     * written is checked above, as for every number buffer. */
    if (strcmp(fn->name, "quire_annotation_color") == 0 && status == 0 && out_len &&
        *out_len > 4)
        fail("a colour of %lu components", (unsigned long)*out_len);
}

static const char *quire_status_name(int status) {
    static const char *const names[] = {"QUIRE_OK",        "QUIRE_EINVAL",   "QUIRE_ENOMEM",
                                        "QUIRE_EIO",       "QUIRE_ENOTFOUND", "QUIRE_EFORMAT",
                                        "QUIRE_EPASSWORD", "QUIRE_EUNSUPPORTED",
                                        "QUIRE_ELIMIT",    "QUIRE_ERANGE",   "QUIRE_EBUFS",
                                        "QUIRE_EUSER",     "QUIRE_ESTATE",   "QUIRE_EINTERNAL",
                                        "QUIRE_EDISABLED", "QUIRE_EBUSY",    "QUIRE_ESTALE",
                                        "QUIRE_EEXIST",    "QUIRE_EVERSION"};
    return known_status(status) ? names[-status] : "?";
}

static int is_known_code(int32_t code) { return code <= QUIRE_OK && code >= LAST_STATUS; }

/* Checks a function that is documented to return a value rather than a status. */
static void check_value_call(struct call *c, ffi_arg raw_int, void *raw_ptr) {
    const struct ffi_function *fn = c->fn;
    const char *name = fn->name;
    int32_t ival = (int32_t)(ffi_sarg)raw_int;
    if (strcmp(name, "quire_version") == 0) {
        if (!raw_ptr)
            fail("returned NULL");
        else if (strcmp(raw_ptr, QUIRE_VERSION_STRING) != 0)
            fail("returned \"%s\", not QUIRE_VERSION_STRING", (const char *)raw_ptr);
    } else if (strcmp(name, "quire_version_number") == 0) {
        if (ival != QUIRE_VERSION_NUMBER)
            fail("returned %lld, not QUIRE_VERSION_NUMBER", (long long)ival);
    } else if (strcmp(name, "quire_status_string") == 0) {
        int32_t code = c->values[0].i32;
        if (!raw_ptr)
            fail("returned NULL");
        else if (((const char *)raw_ptr)[0] == '\0')
            fail("returned an empty string");
        else if (!is_known_code(code) && strcmp(raw_ptr, "unknown status") != 0)
            fail("returned \"%s\" for an unknown code, not \"unknown status\"",
                 (const char *)raw_ptr);
        else if (is_known_code(code) && strcmp(raw_ptr, "unknown status") == 0)
            fail("returned \"unknown status\" for a known code");
    } else if (strcmp(name, "quire_last_error_message") == 0) {
        if (!raw_ptr)
            fail("returned NULL");
        else if (((const char *)raw_ptr)[0] != '\0')
            fail("returned \"%s\" right after quire_clear_error()", (const char *)raw_ptr);
    } else if (strcmp(name, "quire_last_error_code") == 0) {
        if (ival != QUIRE_OK) fail("returned %lld right after quire_clear_error()", (long long)ival);
    } else if (strcmp(name, "quire_clear_error") == 0) {
        if (native_last_error_code() != QUIRE_OK) fail("did not clear the error code");
    } else if (strcmp(name, "quire_document_close") == 0) {
        /* void; NULL is a no-op, the valid handle is closed last */
    } else if (strcmp(name, "quire_value_free") == 0 ||
               strcmp(name, "quire_annotation_free") == 0 ||
               strcmp(name, "quire_annotation_list_free") == 0 ||
               strcmp(name, "quire_bookmark_free") == 0 ||
               strcmp(name, "quire_sync_response_free") == 0 ||
               strcmp(name, "quire_sync_call_free") == 0 ||
               strcmp(name, "quire_tool_manager_free") == 0 ||
               strcmp(name, "quire_text_page_free") == 0 ||
               strcmp(name, "quire_text_match_list_free") == 0 ||
               strcmp(name, "quire_page_report_free") == 0 ||
               strcmp(name, "quire_signing_identity_free") == 0 ||
               strcmp(name, "quire_signature_list_free") == 0 ||
               strcmp(name, "quire_client_close") == 0 ||
               strcmp(name, "quire_sync_service_close") == 0) {
        /* void; NULL is a no-op (the only page report the harness passes), a fresh value,
         * annotation, list, bookmark or response is released, and the service closed last (valgrind sees a leak if not) */
    } else {
        fail("has no rule in ffi_harness.c for a function returning %s: add one",
             fn->return_ctype);
    }
    /* None of these may record an error. */
    if (strcmp(name, "quire_clear_error") != 0 && native_last_error_code() != QUIRE_OK)
        fail("recorded an error: %s", native_last_error_message());
}

/* ---- checkpoints: before and after the calls -------------------------------------------- */

static int is_fn(const struct call *c, const char *name) { return strcmp(c->fn->name, name) == 0; }

/* The path of `doc`'s checkpoint file (natively) into buf (of `size` bytes); 0 on failure. */
static int checkpoint_file_of(quire_document *doc, char *buf, size_t size) {
    size_t len = 0;
    return native_checkpoint_path(buf, size, &len, doc) == QUIRE_OK && len + 1 <= size;
}

/* Whether `path` is inside the harness's temporary directory. */
static int in_temp_dir(const char *path) {
    size_t n = strlen(temp_dir);
    return strncmp(path, temp_dir, n) == 0 && path[n] == '/';
}

/* Before a call of quire_document_stop_checkpoints, quire_document_checkpoint or
 * quire_document_checkpoint_async (phase 3): the document to edit has checkpointing started
 * (manual, the harness's directory, the setup UID) and one more unsaved change, which the
 * checkpoint must write; the checkpoint file's size is noted. */
static void prepare_checkpoint_call(struct call *c) {
    int32_t number = 0;
    if (!is_fn(c, "quire_document_stop_checkpoints") && !is_fn(c, "quire_document_checkpoint") &&
        !is_fn(c, "quire_document_checkpoint_async"))
        return;
    if (!edit_checkpointing) {
        if (!start_checkpoints_natively(edit_doc, cp_setup_uid) ||
            !checkpoint_file_of(edit_doc, cp_setup_file, sizeof cp_setup_file)) {
            fail("could not start checkpointing on the document to edit first: %s",
                 native_last_error_message());
            native_clear_error();
            return;
        }
        if (!in_temp_dir(cp_setup_file))
            fail("the checkpoint file %s is not in the harness's directory", cp_setup_file);
        edit_checkpointing = 1;
    }
    if (native_add_object(&number, edit_doc, valid_values[VAL_P_DICT]) != QUIRE_OK) {
        fail("could not add an object to checkpoint: %s", native_last_error_message());
        native_clear_error();
    }
    c->journal_size = file_size(cp_setup_file);
}

/* After a call of a checkpoint function: what its success must have done. */
static void after_checkpoint_call(struct call *c) {
    if (c->status != QUIRE_OK) return; /* a failure is checked by check_status_call */
    if (is_fn(c, "quire_document_start_checkpoints")) {
        /* (out_loaded, doc, options): out_loaded is 0 or 1; the checkpoint file is in the
         * harness's directory (even for NULL options: the default directory is there); then
         * checkpointing is stopped, so that the next call can start it again. */
        char path[1024];
        quire_document *doc = c->values[1].p;
        if (c->values[0].p) {
            int32_t loaded;
            memcpy(&loaded, c->values[0].p, sizeof loaded);
            if (loaded != 0 && loaded != 1) fail("*out_loaded is %ld, not 0 or 1", (long)loaded);
        }
        if (!checkpoint_file_of(doc, path, sizeof path)) {
            fail("then quire_document_checkpoint_path failed: %s", native_last_error_message());
        } else {
            if (!in_temp_dir(path))
                fail("the checkpoint file %s is outside the harness's directory %s", path,
                     temp_dir);
            if (file_size(path) < 0) fail("the checkpoint file %s does not exist", path);
        }
        if (native_stop_checkpoints(doc, 0) != QUIRE_OK)
            fail("then quire_document_stop_checkpoints failed: %s", native_last_error_message());
        native_clear_error();
    } else if (is_fn(c, "quire_document_stop_checkpoints")) {
        /* (doc, remove): the file is removed only with remove non-zero. */
        if (c->values[0].p == edit_doc && edit_checkpointing) {
            edit_checkpointing = 0;
            if (c->values[1].i32 != 0 && file_size(cp_setup_file) >= 0)
                fail("stopped with remove, yet %s still exists", cp_setup_file);
            if (c->values[1].i32 == 0 && file_size(cp_setup_file) < 0)
                fail("stopped without remove, yet %s is gone", cp_setup_file);
        }
    } else if (is_fn(c, "quire_document_checkpoint")) {
        /* "waits until it is on disk": the change made before the call is in the file. */
        long long after = file_size(cp_setup_file);
        if (c->journal_size >= 0 && after <= c->journal_size)
            fail("QUIRE_OK, but the checkpoint file did not grow (%lld bytes, then %lld)",
                 c->journal_size, after);
    } else if (is_fn(c, "quire_document_checkpoint_async")) {
        /* (doc, done, payload): `done` is called once, on a background thread, with
         * QUIRE_OK (the document is valid and checkpointing is started), and the change is
         * then in the file. The harness waits for it before going on (the payload must
         * outlive the call; the document is closed after it). */
        int status = QUIRE_OK, called;
        if (!c->uses_done_fn) return;
        async_ok_with_done++;
        if (c->done_slot >= 0) {
            struct done_slot *slot = &done_slots[c->done_slot];
            pthread_mutex_lock(&done_mutex);
            slot->expected = 1;
            pthread_mutex_unlock(&done_mutex);
            called = wait_for_done(&slot->calls, 1);
            pthread_mutex_lock(&done_mutex);
            status = slot->status;
            pthread_mutex_unlock(&done_mutex);
        } else {
            pthread_mutex_lock(&done_mutex);
            done_null_expected++;
            pthread_mutex_unlock(&done_mutex);
            called = wait_for_done(&done_null_calls, done_null_expected);
            pthread_mutex_lock(&done_mutex);
            status = done_null_last_status;
            pthread_mutex_unlock(&done_mutex);
        }
        if (!called) {
            fail("QUIRE_OK, but `done` was not called within %d s", DONE_TIMEOUT);
        } else {
            long long after = file_size(cp_setup_file);
            if (status != QUIRE_OK)
                fail("`done` got %d (%s), not QUIRE_OK", status, quire_status_name(status));
            if (c->journal_size >= 0 && after <= c->journal_size)
                fail("`done` said QUIRE_OK, but the checkpoint file did not grow (%lld bytes, "
                     "then %lld)", c->journal_size, after);
        }
    } else if (is_fn(c, "quire_document_checkpoint_path")) {
        /* (buf, buf_size, out_len, doc): a path in the harness's directory. */
        const char *buf = c->values[0].p;
        if (buf && c->values[1].u64 == BUF_CAP && !in_temp_dir(buf))
            fail("the checkpoint path %s is outside the harness's directory %s", buf, temp_dir);
    }
}

/* At the end, with every document closed: every successful quire_document_checkpoint_async
 * with `done` called it exactly once, and no other call did (a late or second call would
 * be counted here); every call came on a background thread, with a known status and a
 * payload the harness gave. */
static void check_done_calls(void) {
    int k;
    unsigned long slot_calls = 0;
    struct timespec pause = {0, 300 * 1000 * 1000};
    nanosleep(&pause, NULL); /* time for a late call to arrive */
    snprintf(call_desc, sizeof call_desc,
             "(quire_document_checkpoint_async's `done` callback, at the end)");
    pthread_mutex_lock(&done_mutex);
    for (k = 0; k < done_slots_used; k++) {
        slot_calls += done_slots[k].calls;
        if (done_slots[k].calls != (unsigned long)done_slots[k].expected)
            fail("the call with slot %d called `done` %lu times, not %d", k, done_slots[k].calls,
                 done_slots[k].expected);
    }
    if (done_null_calls != done_null_expected)
        fail("with a NULL payload, `done` was called %lu times for %lu successful calls",
             done_null_calls, done_null_expected);
    if (done_bad_payloads) fail("`done` got a payload the harness did not pass (%lu times)",
                                done_bad_payloads);
    if (done_on_caller)
        fail("`done` was called on the calling thread (%lu times), not a background thread",
             done_on_caller);
    if (done_bad_status) fail("`done` got a status that is no status code (%lu times)",
                              done_bad_status);
    if (done_calls != slot_calls + done_null_calls)
        fail("`done` calls do not add up (%lu, %lu with slots, %lu without)", done_calls,
             slot_calls, done_null_calls);
    pthread_mutex_unlock(&done_mutex);
    end_call();
}

static void invoke(struct call *c) {
    const struct ffi_function *fn = c->fn;
    ffi_cif cif;
    void (*entry)(void);
    void *sym;
    union {
        ffi_arg i;
        ffi_sarg s;
        void *p;
        double d;
        uint64_t u;
    } rv;
    unsigned i;
    size_t len = strlen(call_desc);
    unsigned long released_before;

    snprintf(call_desc + len, sizeof call_desc - len, ")");
    for (i = 0; i < fn->nargs; i++) c->avalues[i] = &c->values[i];
    /* A value of a type the function does not take makes it fail. */
    if (c->value_type >= 0) {
        size_t r;
        for (r = 0; r < sizeof value_rules / sizeof value_rules[0]; r++)
            if (strcmp(fn->name, value_rules[r].name) == 0 &&
                !(value_rules[r].types & TYPE_BIT(c->value_type)))
                c->must_fail = 1;
    }
    aborter_calls = 0;
    bad_write_arguments = 0;
    bad_progress_calls = 0;
    bad_provider_calls = 0;
    released_before = providers_released;
    if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, fn->nargs, fn->return_type, fn->arg_types) !=
        FFI_OK) {
        fail("ffi_prep_cif failed");
        end_call();
        return;
    }
    sym = dlsym(lib, fn->name);
    if (!sym) {
        fail("dlsym found no such symbol");
        end_call();
        return;
    }
    memcpy(&entry, &sym, sizeof entry);
    native_clear_error();
    memset(&rv, 0, sizeof rv);
    ffi_call(&cif, entry, &rv, fn->nargs ? c->avalues : NULL);

    c->status = (int)(int32_t)rv.s;
    if (is_status_function(fn))
        check_status_call(c, c->status);
    else if (fn->return_type == &ffi_type_pointer)
        check_value_call(c, 0, rv.p);
    else
        check_value_call(c, rv.i, NULL);
    /* The fresh annotation a setter, add or update changed is the caller's: freed. */
    if (c->mut_annot) native_annotation_free(c->mut_annot);
    c->mut_annot = NULL;
    /* So is the fresh bookmark of a bookmark setter. */
    if (c->mut_bookmark) native_bookmark_free(c->mut_bookmark);
    c->mut_bookmark = NULL;
    /* The service of its own of a _shutdown: after a successful shutdown "later requests get
     * 503 `unavailable`" (the header); then it is closed. */
    if (c->fresh_service) {
        if (c->status == QUIRE_OK) {
            int32_t health = sync_status_of(c->fresh_service, "GET", "/healthz");
            sync_shutdowns_checked++;
            if (health != 503)
                fail("then GET /healthz answers %ld, not 503 (the header: later requests get "
                     "503 `unavailable`)", (long)health);
        }
        close_sync_service(c->fresh_service);
        native_clear_error();
        c->fresh_service = NULL;
    }
    if (c->provider_choice >= 0) after_set_providers(c, released_before);
    if (strcmp(fn->name, "quire_document_set_bookmark_change_callback") == 0 &&
        c->status == QUIRE_OK)
        after_set_change_callback(c);
    if (strstr(fn->name, "checkpoint")) after_checkpoint_call(c);
    end_call();
}

/* ---- phases ---------------------------------------------------------------------------- */

static void phase_null_and_garbage(void) {
    unsigned f;
    int g;
    for (f = 0; f < FFI_FUNCTION_COUNT; f++) {
        const struct ffi_function *fn = &FFI_FUNCTIONS[f];
        if (fn->nargs > MAX_ARGS) {
            snprintf(call_desc, sizeof call_desc, "%s", fn->name);
            fail("has more than MAX_ARGS parameters");
            end_call();
            continue;
        }
        for (g = -1; g < N_GARBAGE; g++) { /* g == -1: phase 1, all NULL/zero */
            struct call c;
            reset_call(&c, fn);
            set_scalar_phase(&c, g);
            finish_choices(&c);
            if (is_status_function(fn) && fn->nargs > 0 && !c.must_fail) {
                /* No pointer among the parameters: nothing makes it fail for sure. */
                fail("takes no pointer; the harness has no rule for its garbage calls");
            }
            invoke(&c);
        }
    }
}

/* Whether `fn` takes a document handle (the MUTATING functions of the sync service take a
 * service instead: they get one of their own in set_choice). */
static int takes_document(const struct ffi_function *fn) {
    unsigned i;
    for (i = 0; i < fn->nargs; i++)
        if (fn->arg_kinds[i] == ARG_HANDLE) return 1;
    return 0;
}

/* The most argument combinations phase 3 calls one function with on one file. */
#define MAX_COMBINATIONS 20000UL

static unsigned long phase_combinations(void) {
    unsigned f, i;
    unsigned long before = calls_passed + calls_failed;
    for (f = 0; f < FFI_FUNCTION_COUNT; f++) {
        const struct ffi_function *fn = &FFI_FUNCTIONS[f];
        int choice[MAX_ARGS];
        if (fn->nargs == 0 || fn->nargs > MAX_ARGS) continue;
        if (strcmp(fn->name, "quire_document_close") == 0) continue; /* last, below */
        if (strcmp(fn->name, "quire_sync_service_close") == 0) continue; /* at the end */
        if (fn->mutates && takes_document(fn)) {
            /* Each editing or saving function starts from the file as it is, not from what
             * the previous one made of it (set_object may have turned the catalog into a
             * number). */
            native_close(edit_doc);
            edit_doc = NULL;
            edit_checkpointing = 0;
            if (native_open(&edit_doc, pdf_path, NULL) != QUIRE_OK || !edit_doc) {
                snprintf(call_desc, sizeof call_desc, "(reopening %s for %s)", pdf_path,
                         fn->name);
                fail("cannot reopen the document to edit: %s", native_last_error_message());
                end_call();
                continue;
            }
            /* The bookmark functions get the harness's chain of providers (its provider, then
             * the built-in one), with two stored bookmarks ("Title" and a URI), so that
             * removing, moving and replacing can succeed, and replacing the chain releases
             * a provider. */
            if (strstr(fn->name, "bookmark") && !install_harness_chain(edit_doc)) {
                snprintf(call_desc, sizeof call_desc, "(the bookmark providers of %s for %s)",
                         pdf_path, fn->name);
                fail("cannot set the harness's chain: %s", native_last_error_message());
                end_call();
            }
            /* The saving functions get a document with a change, so that an incremental
             * save has an update to write. */
            if (strstr(fn->name, "_save")) {
                int32_t number = 0;
                if (native_add_object(&number, edit_doc, valid_values[VAL_P_DICT]) != QUIRE_OK) {
                    snprintf(call_desc, sizeof call_desc, "(editing %s for %s)", pdf_path,
                             fn->name);
                    fail("cannot add an object: %s", native_last_error_message());
                    end_call();
                }
            }
        }
        for (i = 0; i < fn->nargs; i++) choice[i] = 0;
        {
            /* Every combination, unless there are more than MAX_COMBINATIONS (the
             * coordinate conversions take six integers and two doubles: 4.5 million per
             * file, hours under valgrind): then the first combination and a fixed
             * pseudo-random sample of the others, the same on every run. */
            double total = 1;
            unsigned long sample = 0, drawn = 0;
            uint64_t lcg = 0x9E3779B97F4A7C15ull ^ (uint64_t)f;
            for (i = 0; i < fn->nargs; i++) total *= (double)n_choices(fn, i);
            if (total > (double)MAX_COMBINATIONS) sample = MAX_COMBINATIONS;
            for (;;) {
                struct call c;
                reset_call(&c, fn);
                for (i = 0; i < fn->nargs; i++) set_choice(&c, i, choice[i]);
                finish_choices(&c);
                prepare_checkpoint_call(&c);
                invoke(&c);
                if (sample) {
                    if (++drawn >= sample) break;
                    for (i = 0; i < fn->nargs; i++) {
                        lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
                        choice[i] = (int)((lcg >> 33) % (uint64_t)n_choices(fn, i));
                    }
                    continue;
                }
                /* next combination (an odometer) */
                for (i = 0; i < fn->nargs; i++) {
                    if (++choice[i] < n_choices(fn, i)) break;
                    choice[i] = 0;
                }
                if (i == fn->nargs) break;
            }
        }
    }
    return calls_passed + calls_failed - before;
}

/* Calls a one-pointer function (a _free or a _close) through libffi with `ptr`. */
static void invoke_with_pointer(const char *name, void *ptr, const char *what) {
    unsigned f;
    for (f = 0; f < FFI_FUNCTION_COUNT; f++) {
        const struct ffi_function *fn = &FFI_FUNCTIONS[f];
        if (strcmp(fn->name, name) == 0 && fn->nargs == 1) {
            struct call c;
            reset_call(&c, fn);
            c.values[0].p = ptr;
            describe(fn->arg_names[0], what);
            invoke(&c);
            return;
        }
    }
    snprintf(call_desc, sizeof call_desc, "%s", name);
    fail("is not in the table with one parameter");
    end_call();
}

/* Last: the valid values are freed with quire_value_free, the valid annotations with
 * quire_annotation_free and the lists with quire_annotation_list_free, the bookmarks with
 * quire_bookmark_free, the responses with quire_sync_response_free, then the document to
 * edit and the valid document are closed with quire_document_close (all through libffi). */
static unsigned long free_and_close_last(void) {
    unsigned long before = calls_passed + calls_failed;
    int v;
    for (v = 0; v < N_VAL; v++) {
        if (!valid_values[v]) continue;
        invoke_with_pointer("quire_value_free", valid_values[v], value_names[v]);
        valid_values[v] = NULL;
    }
    for (v = 0; v < N_AN; v++) {
        if (!valid_annots[v]) continue;
        invoke_with_pointer("quire_annotation_free", valid_annots[v], annotation_names[v]);
        valid_annots[v] = NULL;
    }
    for (v = 0; v < N_LS; v++) {
        if (!valid_lists[v]) continue;
        invoke_with_pointer("quire_annotation_list_free", valid_lists[v], list_names[v]);
        valid_lists[v] = NULL;
    }
    for (v = 0; v < N_BM; v++) {
        if (!valid_bookmarks[v]) continue;
        invoke_with_pointer("quire_bookmark_free", valid_bookmarks[v], bookmark_names[v]);
        valid_bookmarks[v] = NULL;
    }
    for (v = 0; v < N_SR; v++) {
        if (!valid_responses[v]) continue;
        invoke_with_pointer("quire_sync_response_free", valid_responses[v],
                            sync_response_names[v]);
        valid_responses[v] = NULL;
    }
    invoke_with_pointer("quire_document_close", edit_doc, "<document to edit>");
    edit_doc = NULL;
    invoke_with_pointer("quire_document_close", valid_doc, "<valid document>");
    valid_doc = NULL;
    /* Both documents are closed: every custom provider with a release that a document took
     * has been released, exactly once (the header: "called once when the document no longer
     * uses the provider (its chain is replaced, or the document is closed)"). */
    snprintf(call_desc, sizeof call_desc, "(the bookmark providers, after closing %s)", pdf_path);
    bad_provider_calls = 0;
    if (providers_released != providers_taken)
        fail("%lu providers were taken and %lu released", providers_taken, providers_released);
    end_call();
    return calls_passed + calls_failed - before;
}

/* The values of phase 3, from the valid document and parsed (with the library's own
 * functions, called directly). */
static int make_values(void) {
    quire_value *v = NULL;
    int32_t count = 0, k;
    quire_value_kind t = (quire_value_kind)-1;
    memset(valid_values, 0, sizeof valid_values);
    for (k = 0; k < N_VAL; k++) valid_value_types[k] = -1;
    if (native_trailer(&valid_values[VAL_TRAILER], valid_doc) != QUIRE_OK) return 0;
    if (native_dict_get(&valid_values[VAL_ROOT_REF], valid_values[VAL_TRAILER], "Root") !=
        QUIRE_OK)
        return 0;
    if (native_object_count(&count, valid_doc) == QUIRE_OK) {
        for (k = 1; k < count && k < 5000 && !valid_values[VAL_STREAM]; k++) {
            v = NULL;
            if (native_object(&v, valid_doc, k) != QUIRE_OK) continue;
            if (native_value_type(&t, v) == QUIRE_OK && t == QUIRE_VALUE_STREAM)
                valid_values[VAL_STREAM] = v;
            else
                native_value_free(v);
        }
    }
    for (k = VAL_P_NULL; k < N_VAL; k++)
        if (native_value_parse(&valid_values[k], value_syntax[k], strlen(value_syntax[k])) !=
            QUIRE_OK)
            return 0;
    for (k = 0; k < N_VAL; k++) {
        if (!valid_values[k]) continue;
        if (native_value_type(&t, valid_values[k]) != QUIRE_OK) return 0;
        valid_value_types[k] = (int32_t)t;
    }
    return 1;
}

/* ---- the temporary directory that saves go to -------------------------------------------- */

static int make_temp_dir(void) {
    const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    char value[256];
    FILE *f;
    snprintf(temp_dir, sizeof temp_dir, "/tmp/quire-ffi-harness-XXXXXX");
    if (!mkdtemp(temp_dir)) return 0;
    snprintf(wp_file, sizeof wp_file, "%s/out.pdf", temp_dir);
    snprintf(wp_missing, sizeof wp_missing, "%s/missing/out.pdf", temp_dir);
    snprintf(wp_directory, sizeof wp_directory, "%s/sub", temp_dir);
    snprintf(wp_long, sizeof wp_long, "%s/%0300d.pdf", temp_dir, 0);
    if (mkdir(wp_directory, 0700) != 0) return 0;
    /* The sync service's SQLite file (SC_FILE), and one in a directory that does not exist. */
    snprintf(value, sizeof value, "%s/" SYNC_SUBDIR, temp_dir);
    if (mkdir(value, 0700) != 0) return 0;
    snprintf(sync_file_store, sizeof sync_file_store, "sqlite://%s/ffi.db", value);
    snprintf(sync_missing_store, sizeof sync_missing_store, "sqlite://%s/missing/ffi.db", value);
    /* Checkpoints: the options' directory, one below it that does not exist yet, and a
     * regular file given as a directory. */
    snprintf(cp_dir, sizeof cp_dir, "%s/" CHECKPOINT_SUBDIR, temp_dir);
    snprintf(cp_nested_dir, sizeof cp_nested_dir, "%s/new/deeper", cp_dir);
    snprintf(cp_file_dir, sizeof cp_file_dir, "%s/" NOT_A_DIR, temp_dir);
    if (!(f = fopen(cp_file_dir, "w"))) return 0;
    fclose(f);
    /* The default checkpoint directory, as the header defines it, before the harness
     * points the environment into its temporary directory: it must gain nothing. */
    if (state && state[0])
        snprintf(real_default_dir, sizeof real_default_dir, "%s/quire/checkpoints", state);
    else
        snprintf(real_default_dir, sizeof real_default_dir, "%s/.local/state/quire/checkpoints",
                 home ? home : ".");
    real_default_names = directory_names(real_default_dir);
    snprintf(value, sizeof value, "%s/" STATE_SUBDIR, temp_dir);
    if (setenv("XDG_STATE_HOME", value, 1) != 0) return 0;
    snprintf(value, sizeof value, "%s/" HOME_SUBDIR, temp_dir);
    return setenv("HOME", value, 1) == 0;
}

/* Removes the directory tree `path` of checkpoints: checkpoint files and their locks (any
 * name ending in .qcheckpoint or .lock) and directories; any other file is one that the
 * library left behind (a temporary file of a checkpoint or a compaction) and fails.
 * Counts the files in *n_files. */
static void remove_checkpoint_tree(const char *path, const char *label, unsigned long *n_files) {
    DIR *d = opendir(path);
    struct dirent *e;
    char inner[2048];
    if (!d) {
        fail("%s cannot be read", label);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        size_t n = strlen(e->d_name);
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(inner, sizeof inner, "%s/%s", path, e->d_name);
        if (lstat(inner, &st) == 0 && S_ISDIR(st.st_mode)) {
            remove_checkpoint_tree(inner, label, n_files);
            continue;
        }
        if (!((n > 12 && strcmp(e->d_name + n - 12, ".qcheckpoint") == 0) ||
              (n > 5 && strcmp(e->d_name + n - 5, ".lock") == 0)))
            fail("%s holds %s, which is neither a checkpoint nor its lock (left behind?)", label,
                 inner + strlen(temp_dir) + 1);
        (*n_files)++;
        unlink(inner);
    }
    closedir(d);
    if (rmdir(path) != 0) fail("%s could not be removed", path);
}

static unsigned long checkpoint_files_left;

/* Everything in the directory is what the harness asked for: out.pdf and the empty sub/, the
 * file not-a-directory, and checkpoints (with their locks) in checkpoints/ and in state/ (the
 * default directory while the harness runs); home/ holds nothing. Anything else is a
 * temporary file that a save left behind. Then it is removed. The real default directory
 * of checkpoints has gained nothing. */
static void check_and_remove_temp_dir(void) {
    DIR *d = opendir(temp_dir);
    struct dirent *e;
    char path[1024];
    char *after;
    snprintf(call_desc, sizeof call_desc, "(the temporary directory %s at the end)", temp_dir);
    if (!d) {
        fail("cannot be read");
        end_call();
        return;
    }
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(path, sizeof path, "%s/%s", temp_dir, e->d_name);
        if (strcmp(e->d_name, "sub") == 0) {
            DIR *sub = opendir(path);
            struct dirent *se;
            while (sub && (se = readdir(sub)) != NULL) {
                char inner[2048];
                if (strcmp(se->d_name, ".") == 0 || strcmp(se->d_name, "..") == 0) continue;
                fail("a save to the directory sub/ left %s in it", se->d_name);
                snprintf(inner, sizeof inner, "%s/%s", path, se->d_name);
                unlink(inner);
            }
            if (sub) closedir(sub);
            rmdir(path);
        } else if (strcmp(e->d_name, "out.pdf") == 0 || strcmp(e->d_name, NOT_A_DIR) == 0) {
            unlink(path);
        } else if (strcmp(e->d_name, CHECKPOINT_SUBDIR) == 0 ||
                   strcmp(e->d_name, STATE_SUBDIR) == 0) {
            remove_checkpoint_tree(path, e->d_name, &checkpoint_files_left);
        } else if (strcmp(e->d_name, SYNC_SUBDIR) == 0) {
            /* The SQLite file of SC_FILE and SQLite's own files beside it (its WAL and
             * shared memory, while a connection is open); nothing else, and no directory
             * "missing" (a store that cannot be opened must not be made). */
            DIR *sub = opendir(path);
            struct dirent *se;
            while (sub && (se = readdir(sub)) != NULL) {
                char inner[2048];
                if (strcmp(se->d_name, ".") == 0 || strcmp(se->d_name, "..") == 0) continue;
                snprintf(inner, sizeof inner, "%s/%s", path, se->d_name);
                if (strcmp(se->d_name, "ffi.db") != 0 && strcmp(se->d_name, "ffi.db-wal") != 0 &&
                    strcmp(se->d_name, "ffi.db-shm") != 0 && strcmp(se->d_name, "ffi.db-journal") != 0)
                    fail("the sync service left %s in " SYNC_SUBDIR "/", se->d_name);
                unlink(inner);
                rmdir(inner);
            }
            if (sub) closedir(sub);
            rmdir(path);
        } else if (strcmp(e->d_name, HOME_SUBDIR) == 0) {
            unsigned long n = 0;
            fail("$HOME (%s) was written to, though $XDG_STATE_HOME was set", path);
            remove_checkpoint_tree(path, e->d_name, &n);
        } else {
            fail("holds %s, which no call asked for (a temporary file left by a save?)",
                 e->d_name);
            unlink(path);
        }
    }
    closedir(d);
    if (rmdir(temp_dir) != 0) fail("could not be removed");
    end_call();

    snprintf(call_desc, sizeof call_desc, "(the real default checkpoint directory %s at the end)",
             real_default_dir);
    after = directory_names(real_default_dir);
    if (!real_default_names && after)
        fail("was created (holding: %s)", after);
    else if (real_default_names && after && strcmp(real_default_names, after) != 0)
        fail("changed: it held\n%s and now holds\n%s", real_default_names, after);
    free(after);
    free(real_default_names);
    real_default_names = NULL;
    end_call();
}

/* ---- the exported symbols equal the table ---------------------------------------------- */

static int check_symbols(const char *path) {
    FILE *f = fopen(path, "r");
    char line[512];
    int ok = 1;
    unsigned n_exported = 0, i;
    int seen[FFI_FUNCTION_COUNT];
    if (!f) {
        perror(path);
        return 0;
    }
    memset(seen, 0, sizeof seen);
    while (fgets(line, sizeof line, f)) {
        int found = 0;
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0]) continue;
        n_exported++;
        for (i = 0; i < FFI_FUNCTION_COUNT; i++)
            if (strcmp(line, FFI_FUNCTIONS[i].name) == 0) {
                seen[i] = 1;
                found = 1;
            }
        if (!found) {
            fprintf(stderr, "FAIL: exported symbol %s is not declared in quire.h\n", line);
            ok = 0;
        }
    }
    fclose(f);
    for (i = 0; i < FFI_FUNCTION_COUNT; i++) {
        if (!seen[i]) {
            fprintf(stderr, "FAIL: %s is declared in quire.h but not exported\n",
                    FFI_FUNCTIONS[i].name);
            ok = 0;
        }
        if (!dlsym(lib, FFI_FUNCTIONS[i].name)) {
            fprintf(stderr, "FAIL: dlsym(%s): %s\n", FFI_FUNCTIONS[i].name, dlerror());
            ok = 0;
        }
    }
    printf("ffi_harness: %u exported symbols, %u declared functions: %s\n", n_exported,
           (unsigned)FFI_FUNCTION_COUNT, ok ? "the same set" : "DIFFERENT");
    return ok;
}

static int read_file(const char *path, unsigned char **data, size_t *size) {
    FILE *f = fopen(path, "rb");
    long n;
    if (!f) return 0;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return 0;
    }
    *data = malloc((size_t)n + 1);
    if (!*data || fread(*data, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(*data);
        return 0;
    }
    fclose(f);
    *size = (size_t)n;
    return 1;
}

int main(int argc, char **argv) {
    int symbols_ok, status, a;
    unsigned long combos = 0;
    if (argc < 4) {
        fprintf(stderr, "usage: %s LIBRARY SYMBOLS PDF...\n", argv[0]);
        return 2;
    }
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    signal(SIGILL, on_crash);
    signal(SIGABRT, on_crash);
    signal(SIGFPE, on_crash);
    signal(SIGTRAP, on_crash);
    snprintf(call_desc, sizeof call_desc, "(setup)");

    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "ffi_harness: dlopen(%s): %s\n", argv[1], dlerror());
        return 2;
    }
    if (!load(&native_clear_error, sizeof native_clear_error, "quire_clear_error") ||
        !load(&native_last_error_code, sizeof native_last_error_code, "quire_last_error_code") ||
        !load(&native_last_error_message, sizeof native_last_error_message,
              "quire_last_error_message") ||
        !load(&native_open, sizeof native_open, "quire_document_open") ||
        !load(&native_close, sizeof native_close, "quire_document_close") ||
        !load(&native_value_free, sizeof native_value_free, "quire_value_free") ||
        !load(&native_value_parse, sizeof native_value_parse, "quire_value_parse") ||
        !load(&native_value_type, sizeof native_value_type, "quire_value_get_kind") ||
        !load(&native_trailer, sizeof native_trailer, "quire_document_trailer") ||
        !load(&native_object, sizeof native_object, "quire_document_object") ||
        !load(&native_object_count, sizeof native_object_count, "quire_document_object_count") ||
        !load(&native_dict_get, sizeof native_dict_get, "quire_value_dict_get") ||
        !load(&native_add_object, sizeof native_add_object, "quire_document_add_object") ||
        !load(&native_annotation_new, sizeof native_annotation_new, "quire_annotation_new") ||
        !load(&native_annotation_free, sizeof native_annotation_free, "quire_annotation_free") ||
        !load(&native_tool_manager_free, sizeof native_tool_manager_free, "quire_tool_manager_free") ||
        !load(&native_tool_manager_current_tool, sizeof native_tool_manager_current_tool,
              "quire_tool_manager_current_tool") ||
        !load(&native_page_annotation, sizeof native_page_annotation, "quire_page_annotation") ||
        !load(&native_page_annotation_count, sizeof native_page_annotation_count,
              "quire_page_annotation_count") ||
        !load(&native_page_count, sizeof native_page_count, "quire_document_page_count") ||
        !load(&native_annotation_id, sizeof native_annotation_id, "quire_annotation_id") ||
        !load(&native_annotation_page_index, sizeof native_annotation_page_index,
              "quire_annotation_page_index") ||
        !load(&native_annotation_is_reply, sizeof native_annotation_is_reply,
              "quire_annotation_is_reply") ||
        !load(&native_annotation_in_reply_to, sizeof native_annotation_in_reply_to,
              "quire_annotation_in_reply_to") ||
        !load(&native_annotation_set_string, sizeof native_annotation_set_string,
              "quire_annotation_set_string") ||
        !load(&native_annotation_set_color, sizeof native_annotation_set_color,
              "quire_annotation_set_color") ||
        !load(&native_annotation_set_points, sizeof native_annotation_set_points,
              "quire_annotation_set_points") ||
        !load(&native_annotation_add_ink_stroke, sizeof native_annotation_add_ink_stroke,
              "quire_annotation_add_ink_stroke") ||
        !load(&native_comments, sizeof native_comments, "quire_document_comments") ||
        !load(&native_review_summary, sizeof native_review_summary,
              "quire_document_review_summary") ||
        !load(&native_search, sizeof native_search, "quire_document_search_annotations") ||
        !load(&native_list_count, sizeof native_list_count, "quire_annotation_list_count") ||
        !load(&native_list_get, sizeof native_list_get, "quire_annotation_list_get") ||
        !load(&native_list_free, sizeof native_list_free, "quire_annotation_list_free") ||
        !load(&native_export_json, sizeof native_export_json,
              "quire_document_export_annotations_json") ||
        !load(&native_bookmark_new, sizeof native_bookmark_new, "quire_bookmark_new") ||
        !load(&native_bookmark_free, sizeof native_bookmark_free, "quire_bookmark_free") ||
        !load(&native_bookmark_set_identifier, sizeof native_bookmark_set_identifier,
              "quire_bookmark_set_identifier") ||
        !load(&native_bookmark_set_name, sizeof native_bookmark_set_name,
              "quire_bookmark_set_name") ||
        !load(&native_bookmark_set_sort_key, sizeof native_bookmark_set_sort_key,
              "quire_bookmark_set_sort_key") ||
        !load(&native_bookmark_identifier, sizeof native_bookmark_identifier,
              "quire_bookmark_identifier") ||
        !load(&native_bookmark_action_kind, sizeof native_bookmark_action_kind,
              "quire_bookmark_action_type") ||
        !load(&native_sink_add, sizeof native_sink_add, "quire_bookmark_sink_add") ||
        !load(&native_set_providers, sizeof native_set_providers,
              "quire_document_set_bookmark_providers") ||
        !load(&native_find_bookmark, sizeof native_find_bookmark,
              "quire_document_find_bookmark") ||
        !load(&native_add_bookmark, sizeof native_add_bookmark, "quire_document_add_bookmark") ||
        !load(&native_start_checkpoints, sizeof native_start_checkpoints,
              "quire_document_start_checkpoints") ||
        !load(&native_stop_checkpoints, sizeof native_stop_checkpoints,
              "quire_document_stop_checkpoints") ||
        !load(&native_checkpoint_path, sizeof native_checkpoint_path,
              "quire_document_checkpoint_path") ||
        !load(&native_sync_open, sizeof native_sync_open, "quire_sync_service_open") ||
        !load(&native_sync_shutdown, sizeof native_sync_shutdown, "quire_sync_service_shutdown") ||
        !load(&native_sync_close, sizeof native_sync_close, "quire_sync_service_close") ||
        !load(&native_sync_handle, sizeof native_sync_handle, "quire_sync_service_handle") ||
        !load(&native_response_status, sizeof native_response_status,
              "quire_sync_response_status") ||
        !load(&native_response_header_count, sizeof native_response_header_count,
              "quire_sync_response_header_count") ||
        !load(&native_response_header, sizeof native_response_header,
              "quire_sync_response_header") ||
        !load(&native_response_body, sizeof native_response_body, "quire_sync_response_body") ||
        !load(&native_response_free, sizeof native_response_free, "quire_sync_response_free"))
        return 2;
    main_thread = pthread_self();

    symbols_ok = check_symbols(argv[2]);
    memset(long_string, 'A', sizeof long_string - 1);
    long_string[sizeof long_string - 1] = '\0';
    memset(deep_syntax, '[', 5000);
    memset(deep_syntax + 5000, ']', 5000);
    deep_syntax[10000] = '\0';
    memcpy(nan_numbers, plain_numbers, sizeof nan_numbers);
    nan_numbers[2] = NAN;
    memcpy(inf_numbers, plain_numbers, sizeof inf_numbers);
    inf_numbers[5] = INFINITY;
    if (!make_temp_dir()) {
        fprintf(stderr, "ffi_harness: cannot make a temporary directory in /tmp\n");
        return 2;
    }

    phase_null_and_garbage();
    printf("ffi_harness: phases 1-2 (NULL/zero, NULL + garbage integers): %lu calls\n",
           calls_passed + calls_failed);

    /* The sync service of phase 3: one for the whole run (each PDF is uploaded to it). */
    valid_service = open_sync_service();
    if (!valid_service) {
        fprintf(stderr, "ffi_harness: cannot open the sync service: %s\n",
                native_last_error_message());
        return 2;
    }

    for (a = 3; a < argc; a++) {
        unsigned long n;
        int has_stream, has_annots, has_reply;
        pdf_path = argv[a];
        pdf_index = a - 3;
        snprintf(cp_uid, sizeof cp_uid, "ffi-%d", pdf_index);
        snprintf(cp_setup_uid, sizeof cp_setup_uid, "ffi-setup-%d", pdf_index);
        snprintf(cp_valid_uid, sizeof cp_valid_uid, "ffi-valid-%d", pdf_index);
        snprintf(cp_previous_uid, sizeof cp_previous_uid, "ffi-valid-%d", pdf_index - 1);
        if (!read_file(pdf_path, &pdf_bytes, &pdf_size)) {
            fprintf(stderr, "ffi_harness: cannot read %s\n", pdf_path);
            return 2;
        }
        snprintf(call_desc, sizeof call_desc, "(opening %s)", pdf_path);
        status = native_open(&valid_doc, pdf_path, NULL);
        if (status == QUIRE_OK) status = native_open(&edit_doc, pdf_path, NULL);
        if (status != QUIRE_OK || !valid_doc || !edit_doc) {
            fprintf(stderr, "ffi_harness: quire_document_open(%s) failed: %d %s\n", pdf_path,
                    status, native_last_error_message());
            return 2;
        }
        /* The valid document keeps checkpoints (manual: the read-only functions see no
         * difference), so that quire_document_checkpoint_path can succeed on it. */
        if (!start_checkpoints_natively(valid_doc, cp_valid_uid)) {
            fprintf(stderr, "ffi_harness: cannot start checkpointing on %s: %s\n", pdf_path,
                    native_last_error_message());
            return 2;
        }
        if (!make_values()) {
            fprintf(stderr, "ffi_harness: cannot make the values for %s: %s\n", pdf_path,
                    native_last_error_message());
            return 2;
        }
        if (!make_annotations()) {
            fprintf(stderr, "ffi_harness: cannot make the annotations and lists for %s: %s\n",
                    pdf_path, native_last_error_message());
            return 2;
        }
        if (!make_bookmarks()) {
            fprintf(stderr, "ffi_harness: cannot make the bookmarks and providers for %s: %s\n",
                    pdf_path, native_last_error_message());
            return 2;
        }
        if (!make_sync()) {
            fprintf(stderr, "ffi_harness: cannot make the sync service's responses for %s: %s\n",
                    pdf_path, native_last_error_message());
            return 2;
        }
        has_stream = valid_values[VAL_STREAM] != NULL;
        has_annots = valid_annots[AN_PAGE_FIRST] != NULL;
        has_reply = valid_annots[AN_REPLY] != NULL;
        n = phase_combinations();
        n += free_and_close_last();
        combos += n;
        printf("ffi_harness: phase 3 on %s: %lu calls%s%s%s\n", pdf_path, n,
               has_stream ? "" : " (no stream object in it)",
               has_annots ? "" : " (no annotations)",
               has_annots && !has_reply ? " (no reply)" : "");
        free(pdf_bytes);
        pdf_bytes = NULL;
    }

    /* The service: shut down, then closed through libffi (the header's order). */
    native_sync_shutdown(valid_service);
    native_clear_error();
    invoke_with_pointer("quire_sync_service_close", valid_service, "<the service>");
    valid_service = NULL;
    {
        /* Every status function of the sync service reached its success path, but those of
         * the asynchronous handler: the harness passes it no completion and so holds no
         * call (NULL only: gen_ffi_table.py); test_sync.c runs them for real. */
        unsigned f;
        snprintf(call_desc, sizeof call_desc, "(the sync service's functions, at the end)");
        for (f = 0; f < FFI_FUNCTION_COUNT; f++)
            if (strncmp(FFI_FUNCTIONS[f].name, "quire_sync_", 11) == 0 &&
                strcmp(FFI_FUNCTIONS[f].name, "quire_sync_service_handle_async") != 0 &&
                strcmp(FFI_FUNCTIONS[f].name, "quire_sync_call_cancel") != 0 &&
                is_status_function(&FFI_FUNCTIONS[f]) && ok_counts[f] == 0)
                fail("%s never returned QUIRE_OK", FFI_FUNCTIONS[f].name);
        end_call();
    }

    check_done_calls();
    check_and_remove_temp_dir();
    free(export_json);
    export_json = NULL;

    /* No dlclose: a library with the Swift runtime in it is not meant to be unloaded. */
    if (!symbols_ok) calls_failed++;
    {
        int k;
        printf("ffi_harness: statuses returned:");
        for (k = 0; k <= -LAST_STATUS; k++)
            if (status_counts[k]) printf(" %s %lu;", quire_status_name(-k), status_counts[k]);
        printf("\n");
    }
    {
        /* The status functions that never succeeded were only tested on their error paths:
         * worth knowing (for example when a harness PDF lacks what they read). */
        unsigned f, never = 0;
        printf("ffi_harness: status functions that never returned QUIRE_OK:");
        for (f = 0; f < FFI_FUNCTION_COUNT; f++)
            if (is_status_function(&FFI_FUNCTIONS[f]) && ok_counts[f] == 0) {
                printf(" %s", FFI_FUNCTIONS[f].name);
                never++;
            }
        printf("%s\n", never ? "" : " none");
    }
    printf("ffi_harness: bookmark providers: %lu taken, %lu released; %lu provider callback "
           "calls\n", providers_taken, providers_released, provider_callback_calls);
    {
        unsigned f;
        printf("ffi_harness: checkpoint functions, calls that returned QUIRE_OK:");
        for (f = 0; f < FFI_FUNCTION_COUNT; f++)
            if (strstr(FFI_FUNCTIONS[f].name, "checkpoint"))
                printf(" %s %lu;",
                       FFI_FUNCTIONS[f].name +
                           (strncmp(FFI_FUNCTIONS[f].name, "quire_document_", 15) == 0 ? 15 : 6),
                       ok_counts[f]);
        printf("\n");
    }
    {
        unsigned f;
        printf("ffi_harness: sync service functions, calls that returned QUIRE_OK:");
        for (f = 0; f < FFI_FUNCTION_COUNT; f++)
            if (strncmp(FFI_FUNCTIONS[f].name, "quire_sync_", 11) == 0 &&
                is_status_function(&FFI_FUNCTIONS[f]))
                printf(" %s %lu;", FFI_FUNCTIONS[f].name + 11, ok_counts[f]);
        printf("\n");
        printf("ffi_harness: sync service: responses by status class: 2xx %lu, 3xx %lu, 4xx %lu, "
               "5xx %lu; %lu services opened through the table (each answered /healthz), %lu "
               "shutdowns followed by 503\n", sync_statuses[2], sync_statuses[3],
               sync_statuses[4], sync_statuses[5], sync_services_opened, sync_shutdowns_checked);
    }
    printf("ffi_harness: checkpoints: %lu successful asynchronous checkpoints with `done`, "
           "%lu calls of `done` (each waited for); %lu checkpoint and lock files left in the "
           "temporary directory\n", async_ok_with_done, done_calls, checkpoint_files_left);
    printf("ffi_harness: %u functions, %lu calls (%lu in phase 3)\n",
           (unsigned)FFI_FUNCTION_COUNT, calls_passed + calls_failed, combos);
    printf("%lu passed, %lu failed\n", calls_passed, calls_failed);
    return calls_failed ? 1 : 0;
}
