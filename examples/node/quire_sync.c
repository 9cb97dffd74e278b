/* A tiny N-API addon: Quire's sync service (include/quire/sync_service.h) for Node, through
 * the asynchronous handler, so that a long poll holds no thread and the event loop never
 * blocks. It only converts between JavaScript values and the C API; server.js is the host.
 *
 *   cc -shared -fPIC -O2 -DNAPI_VERSION=8 -I/usr/include/node quire_sync.c \
 *      $(pkg-config --cflags --libs quire) -o quire_sync.node        (or: make -C examples/node)
 *
 * JavaScript interface (every function throws an Error with the library's message on a
 * wrong call):
 *   open({store, publicKeys, jwks, adminToken, maxBodyBytes, maxUploadBytes}) -> service
 *   handle(service, method, target, [[name, value], ...], body Buffer,
 *          (status, [[name, value], ...], body Buffer) => void) -> call
 *   cancel(call)        the client went away: a long poll answers now (the callback still runs)
 *   shutdown(service)   every long poll answers now, later requests get 503
 *   close(service)      after shutdown, once every callback ran
 */
#include <node_api.h>
#include <quire.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef NODE_GYP_MODULE_NAME
#define NODE_GYP_MODULE_NAME quire_sync
#endif

/* A service and the thread-safe function that brings its completions to the loop. */
struct service {
    quire_sync_service *sync;
    napi_threadsafe_function tsfn;
};

/* One request in flight: the JavaScript callback, and the response once it came. */
struct request {
    napi_ref callback;
    quire_sync_response *response;
    napi_threadsafe_function tsfn;
};

#define CHECK_NAPI(env, call)                                           \
    do {                                                                \
        if ((call) != napi_ok) {                                        \
            napi_throw_error((env), NULL, "N-API call failed: " #call); \
            return NULL;                                                \
        }                                                               \
    } while (0)

static napi_value throw_quire(napi_env env, int status) {
    char message[1024];
    snprintf(message, sizeof message, "%s: %s", quire_status_string(status),
             quire_last_error_message());
    napi_throw_error(env, quire_status_string(status), message);
    return NULL;
}

/* A JavaScript string as a malloc'd C string ("" for undefined); NULL on failure. */
static char *string_of(napi_env env, napi_value value) {
    size_t length = 0;
    char *out;
    napi_valuetype type;
    if (napi_typeof(env, value, &type) != napi_ok) return NULL;
    if (type == napi_undefined || type == napi_null) return NULL;
    if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) return NULL;
    out = malloc(length + 1);
    if (out && napi_get_value_string_utf8(env, value, out, length + 1, &length) != napi_ok) {
        free(out);
        return NULL;
    }
    return out;
}

static napi_value property(napi_env env, napi_value object, const char *name) {
    napi_value value = NULL;
    napi_get_named_property(env, object, name, &value);
    return value;
}

/* On the loop: the response to JavaScript, then everything freed. */
static void call_js(napi_env env, napi_value unused, void *context, void *data) {
    struct request *req = data;
    const void *body = NULL;
    size_t body_len = 0, count = 0, i;
    int32_t status = 500;
    napi_value callback, args[3], global, pair, value;
    (void)unused;
    (void)context;
    if (env != NULL && napi_get_reference_value(env, req->callback, &callback) == napi_ok) {
        quire_sync_response_status(&status, req->response);
        quire_sync_response_header_count(&count, req->response);
        quire_sync_response_body(&body, &body_len, req->response);
        napi_create_int32(env, status, &args[0]);
        napi_create_array_with_length(env, count, &args[1]);
        for (i = 0; i < count; i++) {
            const char *name, *text;
            quire_sync_response_header(&name, &text, req->response, i);
            napi_create_array_with_length(env, 2, &pair);
            napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &value);
            napi_set_element(env, pair, 0, value);
            napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &value);
            napi_set_element(env, pair, 1, value);
            napi_set_element(env, args[1], (uint32_t)i, pair);
        }
        napi_create_buffer_copy(env, body_len, body, NULL, &args[2]);
        napi_get_global(env, &global);
        napi_call_function(env, global, callback, 3, args, NULL);
    }
    if (env != NULL) napi_delete_reference(env, req->callback);
    quire_sync_response_free(req->response);
    free(req);
}

/* On a library thread: hand the response to the loop. */
static void completed(quire_sync_response *response, void *payload) {
    struct request *req = payload;
    req->response = response;
    napi_call_threadsafe_function(req->tsfn, req, napi_tsfn_nonblocking);
}

static napi_value open_service(napi_env env, napi_callback_info info) {
    size_t argc = 1, i;
    uint32_t key_count = 0;
    napi_value argv[1], keys, name;
    quire_sync_config config = QUIRE_SYNC_CONFIG_INIT;
    char *store, *jwks, *admin, **key_texts = NULL;
    double max_body = 0, max_upload = 0, max_attachment = 0, max_listeners = 0, grace = -1;
    struct service *svc;
    napi_value external;
    int status;
    CHECK_NAPI(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
    if (argc < 1) {
        napi_throw_type_error(env, NULL, "open(config) takes a config object");
        return NULL;
    }
    store = string_of(env, property(env, argv[0], "store"));
    jwks = string_of(env, property(env, argv[0], "jwks"));
    admin = string_of(env, property(env, argv[0], "adminToken"));
    keys = property(env, argv[0], "publicKeys");
    if (keys) napi_get_array_length(env, keys, &key_count);
    if (key_count) key_texts = calloc(key_count, sizeof *key_texts);
    for (i = 0; key_texts && i < key_count; i++) {
        napi_value k;
        napi_get_element(env, keys, (uint32_t)i, &k);
        key_texts[i] = string_of(env, k);
    }
    napi_get_value_double(env, property(env, argv[0], "maxBodyBytes"), &max_body);
    napi_get_value_double(env, property(env, argv[0], "maxUploadBytes"), &max_upload);
    napi_get_value_double(env, property(env, argv[0], "maxAttachmentBytes"), &max_attachment);
    napi_get_value_double(env, property(env, argv[0], "maxListeners"), &max_listeners);
    /* Absent (left at -1): the default hour; 0: none (QUIRE_SYNC_GRACE_NONE). */
    napi_get_value_double(env, property(env, argv[0], "attachmentGraceSeconds"), &grace);
    config.store = store;
    config.jwks = jwks;
    config.admin_token = admin;
    config.public_keys = (const char *const *)key_texts;
    config.public_key_count = key_texts ? key_count : 0;
    config.max_body_bytes = max_body > 0 ? (uint64_t)max_body : 0;
    config.max_upload_bytes = max_upload > 0 ? (uint64_t)max_upload : 0;
    config.max_attachment_bytes =
        max_attachment > 0 && max_attachment < 1e18 ? (uint64_t)max_attachment : 0;
    config.max_listeners = max_listeners > 0 && max_listeners < 1e18 ? (uint64_t)max_listeners : 0;
    if (grace == 0)
        config.attachment_grace_seconds = QUIRE_SYNC_GRACE_NONE;
    else if (grace > 0)
        config.attachment_grace_seconds = grace < 1e18 ? (int64_t)grace : INT64_MAX; /* refused */
    svc = calloc(1, sizeof *svc);
    status = svc ? quire_sync_service_open(&svc->sync, &config) : QUIRE_ENOMEM;
    for (i = 0; key_texts && i < key_count; i++) free(key_texts[i]);
    free(key_texts);
    free(store);
    free(jwks);
    free(admin);
    if (status != QUIRE_OK) {
        free(svc);
        return throw_quire(env, status);
    }
    napi_create_string_utf8(env, "quire-sync", NAPI_AUTO_LENGTH, &name);
    CHECK_NAPI(env, napi_create_threadsafe_function(env, NULL, NULL, name, 0, 1, NULL, NULL, NULL,
                                                    call_js, &svc->tsfn));
    /* Pending requests, not this function, keep the process alive (server.js holds the
     * server open while it serves). */
    napi_unref_threadsafe_function(env, svc->tsfn);
    CHECK_NAPI(env, napi_create_external(env, svc, NULL, NULL, &external));
    return external;
}

static struct service *service_of(napi_env env, napi_value value) {
    void *data = NULL;
    if (napi_get_value_external(env, value, &data) != napi_ok || data == NULL ||
        ((struct service *)data)->sync == NULL) {
        napi_throw_error(env, NULL, "not an open sync service");
        return NULL;
    }
    return data;
}

static void call_finalize(napi_env env, void *data, void *hint) {
    (void)env;
    (void)hint;
    quire_sync_call_free(data);
}

static napi_value handle(napi_env env, napi_callback_info info) {
    size_t argc = 6, i, body_len = 0;
    uint32_t header_count = 0;
    napi_value argv[6], external;
    struct service *svc;
    struct request *req;
    quire_sync_header *headers = NULL;
    quire_sync_call *call = NULL;
    char *method, *target;
    void *body = NULL;
    int status;
    CHECK_NAPI(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
    if (argc < 6) {
        napi_throw_type_error(env, NULL,
                              "handle(service, method, target, headers, body, callback)");
        return NULL;
    }
    if (!(svc = service_of(env, argv[0]))) return NULL;
    method = string_of(env, argv[1]);
    target = string_of(env, argv[2]);
    napi_get_array_length(env, argv[3], &header_count);
    headers = calloc(header_count ? header_count : 1, sizeof *headers);
    for (i = 0; headers && i < header_count; i++) {
        napi_value pair, part;
        napi_get_element(env, argv[3], (uint32_t)i, &pair);
        napi_get_element(env, pair, 0, &part);
        headers[i].name = string_of(env, part);
        napi_get_element(env, pair, 1, &part);
        headers[i].value = string_of(env, part);
    }
    napi_get_buffer_info(env, argv[4], &body, &body_len);
    req = calloc(1, sizeof *req);
    if (req) {
        req->tsfn = svc->tsfn;
        napi_create_reference(env, argv[5], 1, &req->callback);
    }
    /* Copies the request before it returns. */
    status = req ? quire_sync_service_handle_async(&call, svc->sync, method, target, headers,
                                                   header_count, body_len ? body : NULL, body_len,
                                                   completed, req)
                 : QUIRE_ENOMEM;
    for (i = 0; headers && i < header_count; i++) {
        free((char *)headers[i].name);
        free((char *)headers[i].value);
    }
    free(headers);
    free(method);
    free(target);
    if (status != QUIRE_OK) {
        if (req) napi_delete_reference(env, req->callback);
        free(req);
        return throw_quire(env, status);
    }
    CHECK_NAPI(env, napi_create_external(env, call, call_finalize, NULL, &external));
    return external;
}

static napi_value cancel(napi_env env, napi_callback_info info) {
    size_t argc = 1;
    napi_value argv[1];
    void *call = NULL;
    CHECK_NAPI(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
    if (argc < 1 || napi_get_value_external(env, argv[0], &call) != napi_ok) {
        napi_throw_type_error(env, NULL, "cancel(call)");
        return NULL;
    }
    quire_sync_call_cancel(call);
    return NULL;
}

static napi_value shutdown_service(napi_env env, napi_callback_info info) {
    size_t argc = 1;
    napi_value argv[1];
    struct service *svc;
    CHECK_NAPI(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
    if (argc < 1 || !(svc = service_of(env, argv[0]))) return NULL;
    quire_sync_service_shutdown(svc->sync);
    return NULL;
}

static napi_value close_service(napi_env env, napi_callback_info info) {
    size_t argc = 1;
    napi_value argv[1];
    struct service *svc;
    CHECK_NAPI(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
    if (argc < 1 || !(svc = service_of(env, argv[0]))) return NULL;
    quire_sync_service_shutdown(svc->sync);
    quire_sync_service_close(svc->sync);
    svc->sync = NULL;
    napi_release_threadsafe_function(svc->tsfn, napi_tsfn_release);
    return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
    napi_property_descriptor functions[] = {
        {"open", NULL, open_service, NULL, NULL, NULL, napi_default, NULL},
        {"handle", NULL, handle, NULL, NULL, NULL, napi_default, NULL},
        {"cancel", NULL, cancel, NULL, NULL, NULL, napi_default, NULL},
        {"shutdown", NULL, shutdown_service, NULL, NULL, NULL, napi_default, NULL},
        {"close", NULL, close_service, NULL, NULL, NULL, napi_default, NULL},
    };
    CHECK_NAPI(env, napi_define_properties(env, exports, sizeof functions / sizeof functions[0],
                                           functions));
    return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
