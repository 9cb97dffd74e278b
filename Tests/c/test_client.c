/*
 * test_client.c: the sync client's C API (quire_client_*, quire_descriptor_*) without a
 * server: argument checks, versioned structs, descriptors for the fixtures' JWTs
 * (sync_fixtures.py), states, and a download and a reauthentication against a loopback
 * port where nothing listens (QUIRE_ENETWORK through the events, on the event thread).
 * Syncing with real servers is Tests/server/test_client.py (quire-server and the Python
 * host) and examples/c/instant_sync.c (make demo).
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "quire.h"
#include "test_support.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Events seen by the callback (on the descriptor's event thread). */
struct client_events {
    pthread_mutex_t lock;
    int count;
    int download_failed_status;
    int reauth_failed_status;
    int state_changes;
    int wrong_thread;
    pthread_t caller;
    quire_descriptor *descriptor;
};

/* The name of every event type and state (NULL for a value of no family member). */
static const char *event_name(quire_sync_event_type type) {
    switch (type) {
    case QUIRE_SYNC_EVENT_STATE_CHANGED: return "state changed";
    case QUIRE_SYNC_EVENT_DOWNLOAD_PROGRESS: return "download progress";
    case QUIRE_SYNC_EVENT_DOWNLOAD_FINISHED: return "download finished";
    case QUIRE_SYNC_EVENT_DOWNLOAD_FAILED: return "download failed";
    case QUIRE_SYNC_EVENT_SYNC_FINISHED: return "sync finished";
    case QUIRE_SYNC_EVENT_SYNC_FAILED: return "sync failed";
    case QUIRE_SYNC_EVENT_DOCUMENT_CHANGED: return "document changed";
    case QUIRE_SYNC_EVENT_CHANGE_DROPPED: return "change dropped";
    case QUIRE_SYNC_EVENT_AUTHENTICATION_NEEDED: return "authentication needed";
    case QUIRE_SYNC_EVENT_REAUTHENTICATION_FINISHED: return "reauthentication finished";
    case QUIRE_SYNC_EVENT_REAUTHENTICATION_FAILED: return "reauthentication failed";
    case QUIRE_SYNC_EVENT_RECORDS_REPAIRED: return "records repaired";
    case QUIRE_SYNC_EVENT_PRESENCE_CHANGED: return "presence changed";
    }
    return NULL;
}

static const char *state_name(quire_sync_state state) {
    switch (state) {
    case QUIRE_SYNC_STATE_UNKNOWN: return "unknown";
    case QUIRE_SYNC_STATE_CLEAN: return "clean";
    case QUIRE_SYNC_STATE_DIRTY: return "dirty";
    case QUIRE_SYNC_STATE_SENDING: return "sending";
    case QUIRE_SYNC_STATE_RECEIVING: return "receiving";
    case QUIRE_SYNC_STATE_INVALID: return "invalid";
    case QUIRE_SYNC_STATE_NEEDS_RESET: return "needs reset";
    }
    return NULL;
}

static void on_event(quire_descriptor *descriptor, const quire_sync_event *event, void *payload) {
    struct client_events *e = (struct client_events *)payload;
    pthread_mutex_lock(&e->lock);
    e->count++;
    if (pthread_equal(pthread_self(), e->caller)) e->wrong_thread++;
    if (descriptor != e->descriptor || event->version != QUIRE_SYNC_EVENT_VERSION)
        e->wrong_thread++;
    /* Version 2's fields: only CHANGE_DROPPED carries change ids. */
    if (event->type != QUIRE_SYNC_EVENT_CHANGE_DROPPED &&
        (event->change_ids || event->change_id_count || event->client_seq))
        e->wrong_thread++;
    /* Version 4's: only PRESENCE_CHANGED has a presence list, and it always has one. */
    if ((event->type == QUIRE_SYNC_EVENT_PRESENCE_CHANGED) != (event->presence != NULL))
        e->wrong_thread++;
    /* Version 3's: only CHANGE_DROPPED names fields, and a count goes with its array. */
    if ((event->type != QUIRE_SYNC_EVENT_CHANGE_DROPPED && (event->fields || event->field_count)) ||
        (!event->fields != !event->field_count))
        e->wrong_thread++;
    /* Every event is of the family, and so is its state. */
    if (!event_name(event->type) || !state_name(event->state)) e->wrong_thread++;
    if (event->type == QUIRE_SYNC_EVENT_DOWNLOAD_FAILED) e->download_failed_status = event->status;
    if (event->type == QUIRE_SYNC_EVENT_REAUTHENTICATION_FAILED)
        e->reauth_failed_status = event->status;
    if (event->type == QUIRE_SYNC_EVENT_STATE_CHANGED) e->state_changes++;
    pthread_mutex_unlock(&e->lock);
}

static const char *no_token(quire_descriptor *descriptor, void *payload) {
    (void)descriptor;
    (void)payload;
    return NULL;
}

static char *client_fixture(const char *name) {
    size_t n = 0;
    char path[4096];
    unsigned char *text;
    if (!g_sync_fixtures) return NULL;
    snprintf(path, sizeof path, "%s/%s", g_sync_fixtures, name);
    text = read_file(path, &n);
    if (!text) return NULL;
    text[n] = 0; /* read_file leaves room for it */
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' ')) text[--n] = 0;
    return (char *)text;
}

static void test_client_arguments(void) {
    quire_client_config config = QUIRE_CLIENT_CONFIG_INIT;
    quire_client_callbacks callbacks = QUIRE_CLIENT_CALLBACKS_INIT;
    quire_client *client = NULL;
    quire_sync_state state;
    size_t n;
    CHECK_STATUS(quire_client_config_init(NULL, QUIRE_CLIENT_CONFIG_VERSION), QUIRE_EINVAL);
    CHECK_STATUS(quire_client_config_init(&config, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_client_config_init(&config, QUIRE_CLIENT_CONFIG_VERSION + 1),
                 QUIRE_EVERSION);
    CHECK_STATUS(quire_client_config_init(&config, QUIRE_CLIENT_CONFIG_VERSION), QUIRE_OK);
    CHECK(config.auto_sync_delay < 0 && config.server_url == NULL);
    CHECK_STATUS(quire_client_callbacks_init(&callbacks, 0), QUIRE_EINVAL);
    CHECK_STATUS(quire_client_callbacks_init(&callbacks, QUIRE_CLIENT_CALLBACKS_VERSION), QUIRE_OK);
    CHECK(callbacks.on_event == NULL && callbacks.token_provider == NULL);
    CHECK_STATUS(quire_client_open(NULL, &config, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_client_open(&client, NULL, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_client_open(&client, &config, NULL), QUIRE_EINVAL); /* no URL */
    config.server_url = "ftp://127.0.0.1/";
    config.data_directory = "/tmp";
    {
        int status = quire_client_open(&client, &config, NULL);
        /* EINVAL (not http), or EUNSUPPORTED in a build without the HTTP client. */
        CHECK(status == QUIRE_EINVAL || status == QUIRE_EUNSUPPORTED);
    }
    config.server_url = "http://127.0.0.1:1";
    config.listen_wait_seconds = 61;
    CHECK_STATUS(quire_client_open(&client, &config, NULL), QUIRE_EINVAL);
    config.listen_wait_seconds = 0;
    config.auto_sync_delay = 1e9;
    CHECK_STATUS(quire_client_open(&client, &config, NULL), QUIRE_EINVAL);
    CHECK(client == NULL);
    quire_client_close(NULL);
    CHECK_STATUS(quire_client_descriptor_for_jwt(NULL, NULL, "x"), QUIRE_EINVAL);
    CHECK_STATUS(quire_client_remove_document_storage(NULL, "doc1"), QUIRE_EINVAL);
    CHECK_STATUS(quire_client_remove_unused_cache(&n, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_descriptor_state(&state, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_descriptor_document_id(NULL, 0, &n, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_descriptor_layer(NULL, 0, &n, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_descriptor_download(NULL, "x"), QUIRE_EINVAL);
    CHECK_STATUS(quire_descriptor_document(NULL, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_descriptor_sync(NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_descriptor_sync_now(NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_descriptor_wait_idle(NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_descriptor_reauthenticate(NULL, "x"), QUIRE_EINVAL);
    CHECK_STATUS(quire_descriptor_set_auto_sync_delay(NULL, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_descriptor_set_listening(NULL, 1), QUIRE_EINVAL);
    CHECK_STATUS(quire_descriptor_pending_changes(&n, NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_descriptor_remove_local_storage(NULL), QUIRE_EINVAL);
    CHECK_STATUS(quire_descriptor_download_now(NULL, "x"), QUIRE_EINVAL);
    {
        int64_t id = 0;
        CHECK_STATUS(quire_descriptor_last_change_id(&id, NULL), QUIRE_EINVAL);
        CHECK_STATUS(quire_descriptor_repairs(&id, NULL), QUIRE_EINVAL);
        CHECK_STATUS(quire_descriptor_records_json(NULL, 0, &n, NULL), QUIRE_EINVAL);
    }
    CHECK(strcmp(quire_status_string(QUIRE_EAUTH), "unknown status") != 0);
    CHECK(strcmp(quire_status_string(QUIRE_ENETWORK), "unknown status") != 0);
}

static void test_client_offline(void) {
    quire_client_config config = QUIRE_CLIENT_CONFIG_INIT;
    quire_client_callbacks callbacks = QUIRE_CLIENT_CALLBACKS_INIT;
    quire_client *client = NULL;
    quire_descriptor *d = NULL, *again = NULL, *other = NULL;
    quire_document *doc = NULL;
    quire_sync_state state = QUIRE_SYNC_STATE_CLEAN;
    struct client_events events;
    char directory[] = "/tmp/quire-client-XXXXXX";
    char buf[64];
    size_t n = 0;
    int status;
    char *token = client_fixture("token"), *other_layer = client_fixture("token-other-layer");
    if (!token || !other_layer) {
        report(0, __FILE__, __LINE__, "the client tests need the tokens of sync_fixtures.py");
        free(token);
        free(other_layer);
        return;
    }
    memset(&events, 0, sizeof events);
    pthread_mutex_init(&events.lock, NULL);
    events.caller = pthread_self();
    CHECK(mkdtemp(directory) != NULL);
    config.server_url = "http://127.0.0.1:1"; /* nothing listens there */
    config.data_directory = directory;
    config.auto_sync_delay = 0;
    {
        /* The callbacks have the typedefs' types. */
        quire_sync_event_fn event_fn = on_event;
        quire_token_provider_fn token_fn = no_token;
        callbacks.on_event = event_fn;
        callbacks.token_provider = token_fn;
    }
    callbacks.payload = &events;
    status = quire_client_open(&client, &config, &callbacks);
    if (status == QUIRE_EUNSUPPORTED) {
        /* A QUIRE_NO_SERVER build: nothing more to test here. */
        CHECK(client == NULL);
        free(token);
        free(other_layer);
        return;
    }
    CHECK_STATUS(status, QUIRE_OK);
    if (!client) return;

    CHECK_STATUS(quire_client_descriptor_for_jwt(&d, client, "not a token"), QUIRE_EINVAL);
    CHECK_STATUS(quire_client_descriptor_for_jwt(&d, client, token), QUIRE_OK);
    CHECK_STATUS(quire_client_descriptor_for_jwt(&again, client, token), QUIRE_OK);
    CHECK(d != NULL && d == again);
    CHECK_STATUS(quire_client_descriptor_for_jwt(&other, client, other_layer), QUIRE_OK);
    CHECK(other != NULL && other != d);
    pthread_mutex_lock(&events.lock);
    events.descriptor = d;
    pthread_mutex_unlock(&events.lock);

    CHECK_STATUS(quire_descriptor_document_id(NULL, 0, &n, d), QUIRE_OK);
    CHECK_INT((long)n, 4);
    CHECK_STATUS(quire_descriptor_document_id(buf, sizeof buf, &n, d), QUIRE_OK);
    CHECK_STR(buf, "doc1");
    CHECK_STATUS(quire_descriptor_layer(buf, 2, &n, d), QUIRE_EBUFS);
    CHECK_STATUS(quire_descriptor_layer(buf, sizeof buf, &n, d), QUIRE_OK);
    CHECK_STR(buf, "main");
    CHECK_STATUS(quire_descriptor_state(&state, d), QUIRE_OK);
    CHECK_STR(state_name(state), "unknown");
    CHECK_STATUS(quire_descriptor_document(&doc, d), QUIRE_ESTATE);
    CHECK_STATUS(quire_descriptor_sync_now(d), QUIRE_ESTATE);
    CHECK_STATUS(quire_descriptor_pending_changes(&n, d), QUIRE_OK);
    CHECK_INT((long)n, 0);
    {
        int64_t id = -1;
        CHECK_STATUS(quire_descriptor_last_change_id(NULL, d), QUIRE_EINVAL);
        CHECK_STATUS(quire_descriptor_last_change_id(&id, d), QUIRE_OK);
        CHECK(id == 0);
        CHECK_STATUS(quire_descriptor_repairs(&id, d), QUIRE_OK);
        CHECK(id == 0);
        CHECK_STATUS(quire_descriptor_records_json(NULL, 0, &n, d),
                     QUIRE_ESTATE); /* not downloaded */
    }

    /* A token of another layer is refused; a download with nothing listening fails with
     * QUIRE_ENETWORK, reported on the event thread and by the wait (issue 40: a failed
     * download is never silent), and by download_now. */
    CHECK_STATUS(quire_descriptor_download(d, other_layer), QUIRE_EINVAL);
    CHECK_STATUS(quire_descriptor_download_now(d, other_layer), QUIRE_EINVAL);
    CHECK_STATUS(quire_descriptor_download(d, token), QUIRE_OK);
    CHECK_STATUS(quire_descriptor_wait_idle(d), QUIRE_ENETWORK);
    CHECK(quire_last_error_message()[0] != 0);
    CHECK_STATUS(quire_descriptor_download_now(d, token), QUIRE_ENETWORK);
    pthread_mutex_lock(&events.lock);
    CHECK_INT(events.download_failed_status, QUIRE_ENETWORK);
    CHECK_INT(events.wrong_thread, 0);
    pthread_mutex_unlock(&events.lock);
    CHECK_STATUS(quire_descriptor_state(&state, d), QUIRE_OK);
    CHECK(state == QUIRE_SYNC_STATE_UNKNOWN);

    CHECK_STATUS(quire_descriptor_reauthenticate(d, other_layer), QUIRE_EINVAL);
    CHECK_STATUS(quire_descriptor_reauthenticate(d, token), QUIRE_OK);
    CHECK_STATUS(quire_descriptor_wait_idle(d), QUIRE_ENETWORK); /* the download's failure still */
    pthread_mutex_lock(&events.lock);
    CHECK_INT(events.reauth_failed_status, QUIRE_ENETWORK);
    pthread_mutex_unlock(&events.lock);

    CHECK_STATUS(quire_descriptor_set_auto_sync_delay(d, -1), QUIRE_EINVAL);
    CHECK_STATUS(quire_descriptor_set_auto_sync_delay(d, 0.5), QUIRE_OK);
    CHECK_STATUS(quire_descriptor_set_listening(d, 1), QUIRE_OK);
    CHECK_STATUS(quire_descriptor_set_listening(d, 0), QUIRE_OK);
    CHECK_STATUS(quire_descriptor_sync(d), QUIRE_OK);
    CHECK_STATUS(quire_descriptor_wait_idle(d), QUIRE_ENETWORK);

    CHECK_STATUS(quire_descriptor_remove_local_storage(d), QUIRE_OK);
    CHECK_STATUS(quire_client_remove_unused_cache(&n, client), QUIRE_OK);
    CHECK_STATUS(quire_client_remove_document_storage(client, "../doc1"), QUIRE_EINVAL);
    CHECK_STATUS(quire_client_remove_document_storage(client, "doc1"), QUIRE_OK);
    quire_client_close(client);
    rmdir(directory); /* the data directory's documents/ is left: */
    {
        char sub[sizeof directory + 16];
        snprintf(sub, sizeof sub, "%s/documents", directory);
        rmdir(sub);
        rmdir(directory);
    }
    pthread_mutex_destroy(&events.lock);
    free(token);
    free(other_layer);
}

static const struct test_case client_tests[] = {
    {"arguments", test_client_arguments}, {"offline", test_client_offline}, {NULL, NULL}};

const struct test_suite client_suite = {"client", NULL, NULL, client_tests};
