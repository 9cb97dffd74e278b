/*
 * bookmarks: user bookmarks kept in two places through libquire's bookmark providers, after
 * PSPDFKit's bookmark provider example (the C counterpart of examples/python/csv_bookmarks.py).
 *
 *   bookmarks IN OUT BOOKMARKS.csv [PASSWORD]
 *
 * A custom provider, written here as a struct of callbacks, takes only the bookmarks that go
 * to a page and keeps them in BOOKMARKS.csv (identifier, page index, name, sort key; the file
 * is created if it does not exist). The built-in provider comes after it in the chain and
 * keeps every other bookmark inside the PDF.
 *
 * The program opens IN with that chain, adds a bookmark of the last page and one that opens
 * a web page, saves the document incrementally to OUT (the bytes of IN stay as they are; a
 * file that was repaired when it was opened is written in full, with a note): saving asks
 * every provider to persist, and the CSV file is written then. It closes the document, opens
 * OUT again with a new chain reading the same CSV file, and prints the bookmarks in page
 * order, each with the store it came from: [csv] or [pdf]. Run it again with the same CSV
 * file: the go-to bookmarks of the earlier runs are listed too.
 *
 * The provider's payload (its store) is allocated for each chain and freed by the provider's
 * `release` callback, which the document calls once when it stops using the provider: when
 * its chain is replaced or when it is closed.
 *
 * On an error it prints "bookmarks: <status>: <message>" and exits with status 1 (2 for a
 * usage error).
 *
 * Build (see the Makefile): cc -std=c99 bookmarks.c $(pkg-config --cflags --libs quire)
 */
#define _POSIX_C_SOURCE 200809L /* fsync */

#include <quire.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the CSV provider ------------------------------------------------------------------ */

/* One go-to bookmark as the CSV file keeps it. */
struct entry {
    char *identifier;
    int32_t page;
    char *name; /* NULL: none */
    int has_sort_key;
    int64_t sort_key;
};

/* The provider's payload. */
struct csv_store {
    char *path;
    struct entry *entries;
    size_t count, capacity;
    char error[512]; /* why the last callback failed, for the program's message */
};

static char *copy_string(const char *s) {
    size_t n = strlen(s) + 1;
    char *copy = malloc(n);
    if (copy) memcpy(copy, s, n);
    return copy;
}

static void free_entry(struct entry *e) {
    free(e->identifier);
    free(e->name);
    memset(e, 0, sizeof *e);
}

static void clear_entries(struct csv_store *store) {
    size_t k;
    for (k = 0; k < store->count; k++) free_entry(&store->entries[k]);
    store->count = 0;
}

/* The index of the entry with `identifier`, or -1. */
static long find_entry(const struct csv_store *store, const char *identifier) {
    size_t k;
    for (k = 0; k < store->count; k++)
        if (strcmp(store->entries[k].identifier, identifier) == 0) return (long)k;
    return -1;
}

/* Callbacks return non-zero on failure (the document's call then returns QUIRE_EUSER);
 * the store keeps the reason. */
static int store_failed(struct csv_store *store, const char *what, const char *detail) {
    snprintf(store->error, sizeof store->error, "%s: %s: %s", store->path, what, detail);
    return 1;
}

/* A string through the length-query pattern, malloc'd; NULL (with *status set) if the
 * bookmark has none or the call failed. */
static char *bookmark_string(int (*get)(char *, size_t, size_t *, const quire_bookmark *),
                             const quire_bookmark *b, int *status) {
    size_t len = 0;
    char *buf;
    *status = get(NULL, 0, &len, b);
    if (*status != QUIRE_OK) return NULL;
    buf = malloc(len + 1);
    if (!buf) {
        *status = QUIRE_ENOMEM;
        return NULL;
    }
    *status = get(buf, len + 1, &len, b);
    if (*status != QUIRE_OK) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Appends or replaces (by identifier) an entry for go-to bookmark `b`. */
static int store_put(struct csv_store *store, const quire_bookmark *b) {
    struct entry e;
    long k;
    int status;
    memset(&e, 0, sizeof e);
    e.identifier = bookmark_string(quire_bookmark_identifier, b, &status);
    if (!e.identifier) return store_failed(store, "add", quire_status_string(status));
    e.name = bookmark_string(quire_bookmark_name, b, &status);
    if (!e.name && status != QUIRE_ENOTFOUND) {
        free_entry(&e);
        return store_failed(store, "add", quire_status_string(status));
    }
    if (quire_bookmark_page_index(&e.page, b) != QUIRE_OK) {
        free_entry(&e);
        return store_failed(store, "add", "not a go-to bookmark");
    }
    e.has_sort_key = quire_bookmark_sort_key(&e.sort_key, b) == QUIRE_OK;
    k = find_entry(store, e.identifier);
    if (k >= 0) {
        free_entry(&store->entries[k]);
        store->entries[k] = e;
        return 0;
    }
    if (store->count == store->capacity) {
        size_t capacity = store->capacity ? store->capacity * 2 : 8;
        struct entry *grown = realloc(store->entries, capacity * sizeof *grown);
        if (!grown) {
            free_entry(&e);
            return store_failed(store, "add", "out of memory");
        }
        store->entries = grown;
        store->capacity = capacity;
    }
    store->entries[store->count++] = e;
    return 0;
}

/* -- reading the CSV file (RFC 4180: fields separated by commas, quoted with "" when they
 *    hold a comma, a quote or a line break; a quote inside is doubled) -- */

/* Reads one field at *p into a malloc'd string; *end_of_record is set at a line break or at
 * the end of the text. Returns NULL on a malformed field or no memory. */
static char *read_field(const char **p, const char *end, int *end_of_record) {
    const char *s = *p;
    size_t cap = 16, n = 0;
    char *out = malloc(cap);
    int quoted = s < end && *s == '"';
    if (!out) return NULL;
    if (quoted) s++;
    for (;;) {
        char c;
        if (s == end) {
            if (quoted) { /* an unterminated quote */
                free(out);
                return NULL;
            }
            *end_of_record = 1;
            break;
        }
        c = *s;
        if (quoted && c == '"') {
            if (s + 1 < end && s[1] == '"') {
                s += 2;
            } else {
                quoted = 0;
                s++;
                if (s < end && *s != ',' && *s != '\n' && *s != '\r') { /* text after a quote */
                    free(out);
                    return NULL;
                }
                continue;
            }
        } else if (!quoted && c == ',') {
            s++;
            *end_of_record = 0;
            break;
        } else if (!quoted && (c == '\n' || c == '\r')) {
            s += (c == '\r' && s + 1 < end && s[1] == '\n') ? 2 : 1;
            *end_of_record = 1;
            break;
        } else {
            s++;
        }
        if (n + 2 > cap) {
            char *grown = realloc(out, cap *= 2);
            if (!grown) {
                free(out);
                return NULL;
            }
            out = grown;
        }
        out[n++] = c;
    }
    out[n] = '\0';
    *p = s;
    return out;
}

/* Whether `text` is a whole decimal integer in [min, max]; its value in *value. */
static int parse_integer(const char *text, long long min, long long max, long long *value) {
    char *end;
    errno = 0;
    *value = strtoll(text, &end, 10);
    return text[0] != '\0' && *end == '\0' && errno == 0 && *value >= min && *value <= max;
}

/* Reads the store's file (a missing file is an empty store); 0 or non-zero on failure. */
static int read_csv(struct csv_store *store) {
    static const char *const header[4] = {"identifier", "page", "name", "sort_key"};
    FILE *f = fopen(store->path, "rb");
    char *text = NULL, *fields[4];
    const char *p, *end;
    size_t size = 0, cap = 0, got;
    long line = 1;
    int rc = 0;
    clear_entries(store);
    if (!f) return errno == ENOENT ? 0 : store_failed(store, "cannot read it", strerror(errno));
    do { /* the whole file */
        char *grown;
        if (size + 4096 > cap) {
            cap = cap ? cap * 2 : 8192;
            grown = realloc(text, cap);
            if (!grown) {
                free(text);
                fclose(f);
                return store_failed(store, "cannot read it", "out of memory");
            }
            text = grown;
        }
        got = fread(text + size, 1, cap - size, f);
        size += got;
    } while (got > 0);
    if (ferror(f)) {
        free(text);
        fclose(f);
        return store_failed(store, "cannot read it", "read error");
    }
    fclose(f);
    p = text ? text : "";
    end = p + size;
    while (p < end && rc == 0) {
        int k, end_of_record = 0, n = 0;
        memset(fields, 0, sizeof fields);
        for (k = 0; k < 4 && !end_of_record; k++, n++)
            if (!(fields[k] = read_field(&p, end, &end_of_record))) break;
        if (k < 4 || !end_of_record) {
            char where[64];
            snprintf(where, sizeof where, "line %ld is not 4 well-formed fields", line);
            rc = store_failed(store, "malformed", where);
        } else if (line == 1) {
            for (k = 0; k < 4; k++)
                if (strcmp(fields[k], header[k]) != 0)
                    rc = store_failed(store, "malformed",
                                      "line 1 is not identifier,page,name,sort_key");
        } else {
            long long page = 0, key = 0;
            struct entry e;
            memset(&e, 0, sizeof e);
            if (fields[0][0] == '\0' || find_entry(store, fields[0]) >= 0 ||
                !parse_integer(fields[1], 0, INT32_MAX, &page) ||
                (fields[3][0] != '\0' && !parse_integer(fields[3], INT64_MIN, INT64_MAX, &key))) {
                char where[96];
                snprintf(where, sizeof where, "line %ld: an empty or repeated identifier, or a "
                         "bad page or sort key", line);
                rc = store_failed(store, "malformed", where);
            } else {
                e.identifier = fields[0];
                e.page = (int32_t)page;
                e.name = fields[2][0] ? fields[2] : NULL;
                e.has_sort_key = fields[3][0] != '\0';
                e.sort_key = (int64_t)key;
                fields[0] = NULL;
                if (e.name) fields[2] = NULL;
                if (store->count == store->capacity) {
                    size_t capacity = store->capacity ? store->capacity * 2 : 8;
                    struct entry *grown = realloc(store->entries, capacity * sizeof *grown);
                    if (!grown) {
                        free_entry(&e);
                        rc = store_failed(store, "cannot read it", "out of memory");
                    } else {
                        store->entries = grown;
                        store->capacity = capacity;
                    }
                }
                if (rc == 0) store->entries[store->count++] = e;
            }
        }
        for (k = 0; k < n; k++) free(fields[k]);
        line++;
    }
    free(text);
    return rc;
}

/* Writes one field, quoted when it needs to be. */
static void write_field(FILE *f, const char *s) {
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* -- the callbacks -- */

static int csv_load(quire_bookmark_sink *sink, void *payload) {
    struct csv_store *store = payload;
    size_t k;
    if (read_csv(store) != 0) return 1;
    for (k = 0; k < store->count; k++) {
        const struct entry *e = &store->entries[k];
        quire_bookmark *b = NULL;
        int status = quire_bookmark_new(&b, QUIRE_BOOKMARK_GOTO, e->page, NULL);
        if (status == QUIRE_OK) status = quire_bookmark_set_identifier(b, e->identifier);
        if (status == QUIRE_OK) status = quire_bookmark_set_name(b, e->name);
        if (status == QUIRE_OK && e->has_sort_key)
            status = quire_bookmark_set_sort_key(b, &e->sort_key);
        if (status == QUIRE_OK) status = quire_bookmark_sink_add(sink, b);
        quire_bookmark_free(b);
        if (status != QUIRE_OK) return store_failed(store, "load", quire_last_error_message());
    }
    return 0;
}

static int csv_add(int32_t *accepted, const quire_bookmark *bookmark, void *payload) {
    struct csv_store *store = payload;
    quire_action_type kind = QUIRE_ACTION_NONE;
    *accepted = 0;
    if (quire_bookmark_action_type(&kind, bookmark) != QUIRE_OK)
        return store_failed(store, "add", quire_last_error_message());
    if (kind != QUIRE_BOOKMARK_GOTO) return 0; /* for the next provider in the chain */
    if (store_put(store, bookmark) != 0) return 1;
    *accepted = 1;
    return 0;
}

static int csv_remove(int32_t *removed, const quire_bookmark *bookmark, void *payload) {
    struct csv_store *store = payload;
    int status;
    char *identifier = bookmark_string(quire_bookmark_identifier, bookmark, &status);
    long k;
    *removed = 0;
    if (!identifier) return store_failed(store, "remove", quire_status_string(status));
    k = find_entry(store, identifier);
    free(identifier);
    if (k < 0) return 0;
    free_entry(&store->entries[k]);
    memmove(&store->entries[k], &store->entries[k + 1],
            (store->count - (size_t)k - 1) * sizeof store->entries[0]);
    store->count--;
    *removed = 1;
    return 0;
}

/* Written beside the file, flushed to disk, then renamed over it: the old file survives a
 * crash in the middle. */
static int csv_save(void *payload) {
    struct csv_store *store = payload;
    char temporary[4096];
    FILE *f;
    size_t k;
    int ok;
    if (snprintf(temporary, sizeof temporary, "%s.tmp", store->path) >= (int)sizeof temporary)
        return store_failed(store, "save", "the path is too long");
    f = fopen(temporary, "wb");
    if (!f) return store_failed(store, "save", strerror(errno));
    fputs("identifier,page,name,sort_key\r\n", f);
    for (k = 0; k < store->count; k++) {
        const struct entry *e = &store->entries[k];
        write_field(f, e->identifier);
        fprintf(f, ",%ld,", (long)e->page);
        write_field(f, e->name ? e->name : "");
        if (e->has_sort_key)
            fprintf(f, ",%lld\r\n", (long long)e->sort_key);
        else
            fputs(",\r\n", f);
    }
    ok = fflush(f) == 0 && !ferror(f) && fsync(fileno(f)) == 0;
    if (fclose(f) != 0) ok = 0;
    if (!ok || rename(temporary, store->path) != 0) {
        int saved = errno;
        remove(temporary);
        return store_failed(store, "save", strerror(saved));
    }
    return 0;
}

/* The document no longer uses the provider: the payload is freed. */
static void csv_release(void *payload) {
    struct csv_store *store = payload;
    clear_entries(store);
    free(store->entries);
    free(store->path);
    free(store);
}

/* ---- the program ----------------------------------------------------------------------- */

static quire_document *doc;
static struct csv_store *store; /* the current chain's CSV store (owned by the document) */

static void check(int status) {
    if (status == QUIRE_OK) return;
    fprintf(stderr, "bookmarks: %s: %s", quire_status_string(status), quire_last_error_message());
    if (status == QUIRE_EUSER && store && store->error[0]) fprintf(stderr, " (%s)", store->error);
    fputc('\n', stderr);
    quire_document_close(doc); /* releases the providers: frees the store */
    exit(1);
}

/* Opens `path` with the chain [a CSV store of `csv_path`, the built-in provider]. */
static void open_with_chain(const char *path, const char *csv_path, const char *password) {
    quire_open_options options = QUIRE_OPEN_OPTIONS_INIT;
    quire_bookmark_provider chain[2] = {QUIRE_BOOKMARK_PROVIDER_INIT,
                                        QUIRE_BOOKMARK_PROVIDER_BUILTIN_INIT};
    /* The chain is passed as an array of pointers (so that the struct can grow). */
    const quire_bookmark_provider *pointers[2];
    struct csv_store *s;
    int status;
    options.password = password;
    store = NULL;
    check(quire_document_open(&doc, path, &options));
    s = calloc(1, sizeof *s);
    if (!s || !(s->path = copy_string(csv_path))) {
        free(s);
        check(QUIRE_ENOMEM);
    }
    chain[0].load = csv_load;
    chain[0].add = csv_add;
    chain[0].remove = csv_remove;
    chain[0].save = csv_save;
    chain[0].release = csv_release;
    chain[0].payload = s;
    pointers[0] = &chain[0];
    pointers[1] = &chain[1];
    status = quire_document_set_bookmark_providers(doc, pointers, 2);
    if (status != QUIRE_OK) csv_release(s); /* not taken: still ours */
    check(status);
    store = s;
}

/* The bookmarks in page order, each with the store it came from. */
static void print_bookmarks(const char *path) {
    int32_t count, k;
    check(quire_document_bookmark_count(&count, doc));
    printf("%s: %d bookmark%s, in page order\n", path, (int)count, count == 1 ? "" : "s");
    for (k = 0; k < count; k++) {
        quire_bookmark *b = NULL;
        char *identifier, *name, *text = NULL;
        int32_t page = -1;
        int status;
        check(quire_document_bookmark(&b, doc, QUIRE_BOOKMARK_SORT_PAGE, k));
        identifier = bookmark_string(quire_bookmark_identifier, b, &status);
        check(status);
        name = bookmark_string(quire_bookmark_name, b, &status);
        if (status != QUIRE_ENOTFOUND) check(status);
        if (quire_bookmark_page_index(&page, b) != QUIRE_OK) {
            text = bookmark_string(quire_bookmark_action_text, b, &status);
            check(status);
        }
        printf("  [%s] %-14s", find_entry(store, identifier) >= 0 ? "csv" : "pdf",
               name ? name : "(no name)");
        if (text)
            printf(" %s\n", text);
        else
            printf(" page %d\n", (int)page + 1);
        free(identifier);
        free(name);
        free(text);
        quire_bookmark_free(b);
    }
}

int main(int argc, char **argv) {
    quire_save_options save = QUIRE_SAVE_OPTIONS_INIT;
    quire_bookmark *page = NULL, *link = NULL;
    const char *password;
    int32_t pages;
    int status;

    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: %s IN OUT BOOKMARKS.csv [PASSWORD]\n", argv[0]);
        return 2;
    }
    password = argc == 5 ? argv[4] : NULL;
    open_with_chain(argv[1], argv[3], password);
    check(quire_document_page_count(&pages, doc));
    if (pages < 1) {
        fprintf(stderr, "bookmarks: %s has no pages\n", argv[1]);
        quire_document_close(doc);
        return 1;
    }

    /* A bookmark of the last page (the CSV provider takes it) and one that opens a web page
     * (the CSV provider declines it; the built-in provider takes it). The document keeps
     * copies: ours are freed at once. */
    check(quire_bookmark_new(&page, QUIRE_BOOKMARK_GOTO, pages - 1, NULL));
    status = quire_bookmark_set_name(page, "The end");
    if (status == QUIRE_OK) status = quire_document_add_bookmark(doc, page);
    quire_bookmark_free(page);
    check(status);
    check(quire_bookmark_new(&link, QUIRE_BOOKMARK_URI, 0, "https://example.com/quire"));
    status = quire_bookmark_set_name(link, "Project page");
    if (status == QUIRE_OK) status = quire_document_add_bookmark(doc, link);
    quire_bookmark_free(link);
    check(status);

    /* An incremental save appends the changes (the built-in provider's store); the CSV
     * provider writes its file when asked to persist. A repaired file has no sound
     * cross-reference to append to, so it is written in full. */
    status = quire_document_save(doc, &save, argv[2]);
    if (status == QUIRE_EUNSUPPORTED) {
        fprintf(stderr, "bookmarks: note: %s; saving in full instead\n", quire_last_error_message());
        save.mode = QUIRE_SAVE_FULL;
        status = quire_document_save(doc, &save, argv[2]);
    }
    check(status);
    quire_document_close(doc); /* releases the CSV provider: its store is freed */
    doc = NULL;
    store = NULL;

    /* OUT again, with a new chain reading the same CSV file. */
    open_with_chain(argv[2], argv[3], password);
    print_bookmarks(argv[2]);
    quire_document_close(doc);
    return 0;
}
