/*
 * instant_sync.c: a reviewer on a running sync server, through libquire's sync client
 * (quire_client_*, quire_descriptor_*; issue 16). `make demo` runs it through
 * examples/sync_demo.sh beside examples/python/instant_review.py, the other reviewer.
 *
 *   examples/c/instant_sync URL JWT DATA_DIR NAME
 *
 * 1. The descriptor for JWT; downloads the PDF and the layer into DATA_DIR (events on the
 *    descriptor's event thread, printed as they come).
 * 2. Adds a note and a reply as NAME through the annotation API of the editable document:
 *    each is a pending change in the local store when the call returns; syncs.
 * 3. Listens until a note by another reviewer arrives (at most 60 s).
 * 4. Offline: a client on DATA_DIR whose server cannot be reached; adds a note there
 *    (stored; the sync fails with QUIRE_ENETWORK); closes it.
 * 5. Back: a client on URL again; the first sync asks for authentication (the token is not
 *    stored), so it reauthenticates; the offline note goes exactly once; waits for the other
 *    reviewer's offline note.
 * 6. Prints the notes of the layer and their count.
 * Exit status 0, or 1 with a message on stderr.
 */
#define _POSIX_C_SOURCE 200809L
#include <quire.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int fail(const char *what, int status) {
    fprintf(stderr, "instant_sync: %s: %s (%s)\n", what, quire_status_string(status), quire_last_error_message());
    exit(1);
}

#define CHECK(call)                                                                          \
    do {                                                                                     \
        int s_ = (call);                                                                     \
        if (s_ != QUIRE_OK) fail(#call, s_);                                                 \
    } while (0)

static const char *g_name;

/* Called on the descriptor's event thread. */
static void on_event(quire_descriptor *descriptor, const quire_sync_event *event, void *payload) {
    (void)descriptor;
    (void)payload;
    switch (event->type) {
    case QUIRE_SYNC_EVENT_DOWNLOAD_FINISHED: printf("[%s] event: download finished\n", g_name); break;
    case QUIRE_SYNC_EVENT_DOCUMENT_CHANGED:
        printf("[%s] event: the server changed %zu record(s)\n", g_name, event->record_id_count);
        break;
    case QUIRE_SYNC_EVENT_AUTHENTICATION_NEEDED: printf("[%s] event: authentication needed\n", g_name); break;
    case QUIRE_SYNC_EVENT_CHANGE_DROPPED:
        printf("[%s] event: change of %s dropped (%s)\n", g_name, event->record_id, event->reason);
        break;
    default: break;
    }
    fflush(stdout);
}

static quire_client *open_client(const char *url, const char *data, int with_events) {
    quire_client_config config = QUIRE_CLIENT_CONFIG_INIT;
    quire_client_callbacks callbacks = QUIRE_CLIENT_CALLBACKS_INIT;
    quire_client *client = NULL;
    config.server_url = url;
    config.data_directory = data;
    config.auto_sync_delay = 0; /* this program syncs when it chooses */
    if (with_events) callbacks.on_event = on_event;
    CHECK(quire_client_open(&client, &config, &callbacks));
    return client;
}

static void sleep_ms(long ms) {
    struct timespec t;
    t.tv_sec = ms / 1000;
    t.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&t, NULL);
}

/* A string field of `a` (malloc'd, "" when unset). */
static char *field(const quire_annotation *a, quire_annot_string_field f) {
    size_t n = 0;
    char *s;
    if (quire_annotation_string(NULL, 0, &n, a, f) != QUIRE_OK) return calloc(1, 1);
    s = malloc(n + 1);
    if (!s || quire_annotation_string(s, n + 1, &n, a, f) != QUIRE_OK) {
        free(s);
        return calloc(1, 1);
    }
    return s;
}

/* Whether page 1 has a top-level note by someone else whose id starts with `prefix`;
 * prints the notes with `print`. */
static int scan(quire_document *doc, const char *prefix, int print) {
    int32_t n = 0, k, found = 0;
    CHECK(quire_page_annotation_count(&n, doc, 0));
    for (k = 0; k < n; k++) {
        quire_annotation *a = NULL;
        char *id, *author, *contents;
        CHECK(quire_page_annotation(&a, doc, 0, k));
        id = field(a, QUIRE_ANNOT_UNIQUE_NAME);
        author = field(a, QUIRE_ANNOT_AUTHOR);
        contents = field(a, QUIRE_ANNOT_CONTENTS);
        if (strncmp(id, "review-", 7) == 0 && print) printf("[%s]   %s by %s: \"%s\"\n", g_name, id, author, contents);
        if (strncmp(id, prefix, strlen(prefix)) == 0 && strcmp(author, g_name) != 0) found = 1;
        free(id);
        free(author);
        free(contents);
        quire_annotation_free(a);
    }
    return found;
}

static void wait_for(quire_descriptor *d, quire_document *doc, const char *prefix) {
    int i;
    for (i = 0; i < 200; i++) {
        CHECK(quire_descriptor_sync_now(d));
        if (scan(doc, prefix, 0)) return;
        sleep_ms(300);
    }
    fprintf(stderr, "instant_sync: no note %s* from another reviewer within 60 s\n", prefix);
    exit(1);
}

static void add_note(quire_document *doc, const char *id, const char *text, double y, int with_reply) {
    quire_rect rect;
    quire_annotation *note = NULL, *reply = NULL;
    int32_t number = 0;
    char reply_text[200];
    rect.left = 500;
    rect.bottom = y;
    rect.right = 524;
    rect.top = y + 24;
    CHECK(quire_annotation_new(&note, "Text", 0, &rect));
    CHECK(quire_annotation_set_string(note, QUIRE_ANNOT_UNIQUE_NAME, id));
    CHECK(quire_annotation_set_string(note, QUIRE_ANNOT_AUTHOR, g_name));
    CHECK(quire_annotation_set_string(note, QUIRE_ANNOT_CONTENTS, text));
    CHECK(quire_document_add_annotation(doc, note)); /* pending, durably, on return */
    CHECK(quire_annotation_id(&number, note));
    quire_annotation_free(note);
    if (with_reply) {
        snprintf(reply_text, sizeof reply_text, "%s: and the axis labels", g_name);
        CHECK(quire_document_add_reply(&reply, doc, number, g_name, reply_text));
        quire_annotation_free(reply);
    }
}

int main(int argc, char **argv) {
    quire_client *client;
    quire_descriptor *d = NULL;
    quire_document *doc = NULL;
    quire_sync_state state;
    size_t pending = 0;
    char id[160], text[200];
    int32_t count = 0, pages = 0, p;
    double y;
    int status;
    if (argc != 5) {
        fprintf(stderr, "usage: %s URL JWT DATA_DIR NAME\n", argv[0]);
        return 2;
    }
    g_name = argv[4];
    y = strcmp(g_name, "m") < 0 ? 100 : 160;

    /* 1-3: online. */
    client = open_client(argv[1], argv[3], 1);
    CHECK(quire_client_descriptor_for_jwt(&d, client, argv[2]));
    CHECK(quire_descriptor_download(d, argv[2]));
    CHECK(quire_descriptor_wait_idle(d));
    CHECK(quire_descriptor_state(&state, d));
    if (state != QUIRE_SYNC_STATE_CLEAN) fail("the download", QUIRE_ESTATE);
    CHECK(quire_descriptor_document(&doc, d));
    snprintf(id, sizeof id, "review-%s", g_name);
    snprintf(text, sizeof text, "%s: the figure needs a caption", g_name);
    add_note(doc, id, text, y, 1);
    CHECK(quire_descriptor_pending_changes(&pending, d));
    printf("[%s] added a note and a reply: %zu pending\n", g_name, pending);
    CHECK(quire_descriptor_sync_now(d));
    CHECK(quire_descriptor_set_listening(d, 1));
    wait_for(d, doc, "review-");
    printf("[%s] received the other reviewer's note\n", g_name);
    quire_document_close(doc);
    quire_client_close(client);

    /* 4: offline (nothing listens on port 9). */
    client = open_client("http://127.0.0.1:9", argv[3], 0);
    CHECK(quire_client_descriptor_for_jwt(&d, client, argv[2]));
    CHECK(quire_descriptor_document(&doc, d));
    snprintf(id, sizeof id, "review-offline-%s", g_name);
    snprintf(text, sizeof text, "%s, offline: page 2 too", g_name);
    add_note(doc, id, text, y + 30, 0);
    CHECK(quire_descriptor_reauthenticate(d, argv[2]));
    CHECK(quire_descriptor_wait_idle(d));
    status = quire_descriptor_sync_now(d);
    CHECK(quire_descriptor_pending_changes(&pending, d));
    printf("[%s] offline: the sync says \"%s\"; %zu change kept\n", g_name, quire_status_string(status), pending);
    quire_document_close(doc);
    quire_client_close(client);

    /* 5-6: back online. */
    client = open_client(argv[1], argv[3], 1);
    CHECK(quire_client_descriptor_for_jwt(&d, client, argv[2]));
    status = quire_descriptor_sync_now(d);
    if (status == QUIRE_EAUTH) {
        printf("[%s] back online: the server asks for authentication (tokens are not stored)\n", g_name);
        CHECK(quire_descriptor_reauthenticate(d, argv[2]));
        CHECK(quire_descriptor_wait_idle(d));
    } else {
        CHECK(status);
    }
    CHECK(quire_descriptor_pending_changes(&pending, d));
    printf("[%s] synced: %zu pending\n", g_name, pending);
    CHECK(quire_descriptor_document(&doc, d));
    wait_for(d, doc, "review-offline-");
    sleep_ms(1000); /* the other reviewer's last sync */
    CHECK(quire_descriptor_sync_now(d));
    scan(doc, "", 1);
    CHECK(quire_document_page_count(&pages, doc));
    for (p = 0; p < pages; p++) {
        int32_t n = 0;
        CHECK(quire_page_annotation_count(&n, doc, p));
        count += n;
    }
    printf("[%s] converged: %d annotations\n", g_name, (int)count);
    quire_document_close(doc);
    quire_client_close(client);
    return 0;
}
