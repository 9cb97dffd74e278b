#!/usr/bin/env python3
"""Generates the libffi signature table of ffi_harness.c from include/quire.h (and the topic
headers it includes).

Usage: gen_ffi_table.py HEADER OUTPUT   (the Makefile writes out/ffi_table.h)

For every function that scripts/quire_header.py reads from the header it emits the libffi
types of the return value and of each parameter, and a "kind" for each parameter that tells
the harness which values it may pass there without lying to the library (it never passes a
garbage non-NULL pointer: a pointer is NULL or a real buffer of adequate size):

  C type                              ffi type           kind
  quire_document *                    pointer            ARG_HANDLE    (NULL or a valid document)
  quire_document **                   pointer            ARG_OUT_HANDLE
  const quire_value *                 pointer            ARG_VALUE     (NULL or a valid value)
  quire_value **                      pointer            ARG_OUT_VALUE (the result is freed)
  quire_value * (of a *_free)         pointer            ARG_FREE_VALUE (NULL or a fresh value)
  char *buf, then size_t              pointer, uint64    ARG_BUF, ARG_BUF_SIZE (a real buffer)
  void *buf, then size_t              pointer, uint64    ARG_BUF, ARG_BUF_SIZE (the same)
  size_t *                            pointer            ARG_OUT_LEN
  any other non-const T *             pointer            ARG_OUT       (scratch of sizeof(T))
  const char *, then size_t           pointer, uint64    ARG_TEXT, ARG_TEXT_LEN (real text and
                                                         its true length, or NULL)
  const char * (a path a function     pointer            ARG_WRITE_PATH (NULL or a path in the
    writes to: WRITES_FILES)                              harness's temporary directory)
  const char *                        pointer            ARG_CSTR      (NULL or a real string)
  const void *, then size_t           pointer, uint64    ARG_DATA, ARG_DATA_SIZE (PDF bytes or
    (a function that opens a document)                    garbage, for functions that parse it)
  const void *, then size_t           pointer, uint64    ARG_BYTES, ARG_BYTES_SIZE (any bytes)
  const quire_open_options *          pointer            ARG_OPTIONS
  const quire_save_options *          pointer            ARG_SAVE_OPTIONS
  quire_open_options *,               pointer            ARG_INIT_STRUCT (the struct of a
    quire_save_options *,                                 quire_*_init function: NULL or
    quire_bookmark_provider *,                            scratch of its size, with its
    quire_checkpoint_options *                            `unsigned version` after it)
    (non-const: the _init functions)
  quire_checkpoint_info *             pointer            ARG_CHECKPOINT_INFO (NULL, or a
                                                         struct of QUIRE_CHECKPOINT_INFO_INIT,
                                                         or of version 0, newer, garbage)
  quire_write_fn                      pointer            ARG_WRITEFN   (NULL or a real callback)
  void *payload                       pointer            ARG_PAYLOAD   (NULL or what the
                                                         harness's callbacks expect)
  const quire_annotation *            pointer            ARG_ANNOT     (NULL or a valid annotation)
  quire_annotation * (a setter's,     pointer            ARG_MUT_ANNOT (NULL or a fresh annotation,
    add or update's)                                      freed after the call)
  quire_annotation * (of a *_free)    pointer            ARG_FREE_ANNOT (NULL or a fresh one)
  quire_annotation **                 pointer            ARG_OUT_ANNOT (the result is freed)
  const quire_annotation_list *       pointer            ARG_LIST      (NULL or a valid list)
  quire_annotation_list * (_free)     pointer            ARG_FREE_LIST (NULL or a fresh list)
  quire_annotation_list **            pointer            ARG_OUT_LIST  (the result is freed)
  const quire_rect *                  pointer            ARG_RECT      (NULL or a real rectangle,
                                                         finite or not)
  const double *, then size_t         pointer, uint64    ARG_DOUBLES, ARG_DOUBLES_COUNT (NULL or a
                                                         real array of at least that many)
  double *buf, then size_t            pointer, uint64    ARG_DBUF, ARG_DBUF_CAP (NULL or a real
                                                         array of that many doubles: the
                                                         point lists, ink strokes, colours)
  int32_t number/target of an         sint32             ARG_ANNOT_NUMBER (real annotation object
    annotation (ANNOTATION_NUMBERS)                       numbers of the document, and garbage)
  const quire_bookmark *              pointer            ARG_BOOKMARK  (NULL or a valid bookmark)
  quire_bookmark * (a setter's:       pointer            ARG_MUT_BOOKMARK (NULL or a fresh bookmark,
    BOOKMARK_SETTERS)                                     freed after the call)
  quire_bookmark * (of a *_free)      pointer            ARG_FREE_BOOKMARK (NULL or a fresh one)
  quire_bookmark **                   pointer            ARG_OUT_BOOKMARK (the result is freed)
  quire_bookmark_sink *               pointer            ARG_SINK      (NULL only: a real sink
                                                         exists only inside a provider's load
                                                         callback, valid during that call; the
                                                         harness's own load callback uses it)
  const quire_bookmark_provider       pointer, uint64    ARG_PROVIDERS, ARG_PROVIDERS_COUNT
    *const *, then size_t                                (NULL with 0, 1 or SIZE_MAX; or a real
                                                         array of pointers with the count it
                                                         holds, to provider structs the harness
                                                         builds: the built-in entry, custom
                                                         providers with the harness's
                                                         callbacks, and invalid entries: NULL
                                                         pointers, bad versions, missing
                                                         callbacks, a built-in one with
                                                         callbacks)
  const int64_t *                     pointer            ARG_INT64_IN  (NULL or a real int64_t)
  quire_bookmark_change_fn            pointer            ARG_CHANGEFN  (NULL or a real callback)
  const quire_checkpoint_options *    pointer            ARG_CHECKPOINT_OPTIONS (NULL, which
                                                         means the default directory: the
                                                         harness points $XDG_STATE_HOME and
                                                         $HOME into its temporary directory;
                                                         options in its temporary directory
                                                         with its UID, each strategy, loading
                                                         on and off; a bad version, strategy,
                                                         interval or UID)
  quire_sync_completion               pointer            ARG_FNPTR     (NULL only: the call is
                                                         refused, as the harness expects)
  quire_checkpoint_done_fn            pointer            ARG_DONEFN    (NULL or a real callback,
                                                         called on a background thread: the
                                                         harness waits for it)
  quire_sync_config * (of _init)      pointer            ARG_INIT_STRUCT (as the other structs
                                                         of the quire_*_init functions)
  const quire_sync_config *           pointer            ARG_SYNC_CONFIG (NULL; configs that
                                                         open: the defaults, an in-memory
                                                         store with the harness's key and admin
                                                         token, a SQLite file in its temporary
                                                         directory, a JWKS; and bad ones:
                                                         versions 0 and 999, unknown schemes,
                                                         a relative path, a missing directory,
                                                         keys that are not PEM, a count without
                                                         keys, a NULL key, JWKS that is not
                                                         JSON; and unspecified ones: an empty
                                                         admin token, a limit of UINT64_MAX)
  quire_sync_service **               pointer            ARG_OUT_SYNC_SERVICE (scratch or NULL;
                                                         a service opened is tried, shut down
                                                         and closed)
  quire_sync_service *                pointer            ARG_SYNC_SERVICE (NULL or the harness's
                                                         service, opened once on an in-memory
                                                         store with an admin token; a function
                                                         that stops it (MUTATING: _shutdown)
                                                         gets a fresh service of its own)
  quire_sync_response **              pointer            ARG_OUT_SYNC_RESPONSE (scratch or NULL;
                                                         a response made is checked and freed)
  const quire_sync_response *         pointer            ARG_SYNC_RESPONSE (NULL or a response
                                                         the harness made: 200, 401, 405 with
                                                         Allow, 204 without a body, a PDF)
  quire_sync_response * (of _free)    pointer            ARG_FREE_SYNC_RESPONSE (NULL or fresh)
  const quire_sync_header *, size_t   pointer, uint64    ARG_SYNC_HEADERS, ARG_SYNC_HEADERS_COUNT
                                                         (NULL with 0, 1 or SIZE_MAX; real
                                                         arrays with the count they hold, or
                                                         0: the admin token, with a request
                                                         id, a wrong token, a garbage bearer
                                                         token, an empty name, a NULL name or
                                                         value)
  const char * (SYNC_STRINGS: the     pointer            ARG_SYNC_METHOD, ARG_SYNC_TARGET (NULL,
    method and the target of a                            real methods and routes of the
    request)                                              protocol, and garbage: empty, a bad
                                                         percent escape, 8 KiB, invalid UTF-8)
  const char ** (out)                 pointer            ARG_OUT_STR   (scratch or NULL: on
                                                         success a string)
  const void ** (out)                 pointer            ARG_OUT_DATA  (scratch or NULL: on
                                                         success NULL exactly when *out_len is 0)
  any other const T *, void *         pointer            ARG_INPTR     (NULL only)
  a function pointer                  pointer            ARG_FNPTR     (NULL only)
  a constant family (a typedef'd      sint32             ARG_ENUM      (every constant of the
    enum of the header: quire_box, ...)                   family, the first constant of every
                                                         other family, and garbage: 0, 1, -1,
                                                         the extremes, one past the family)
  a constant family's T *             pointer            ARG_OUT       (as any out-parameter;
                                                         on success it must hold a constant of
                                                         the family, if written)
  int, int32_t                        sint32             ARG_INT
  uint32_t, unsigned                  uint32             ARG_UINT
  size_t, uint64_t                    uint64             ARG_SIZE
  int64_t                             sint64             ARG_INT64
  double                              double             ARG_DOUBLE

The constant families are read from the header's `typedef enum NAME { CONSTANT = value, ... }
NAME;` declarations (every constant with an explicit integer value, or the generator stops),
and emitted as FFI_ENUM_FAMILIES: per parameter, the index of its family (an enum parameter,
or an out-pointer to one), or -1.

Per parameter it also emits whether the header allows NULL there (OPTIONAL below, checked
against the function's doc comment; UNSPECIFIED_NULL where the header does not say), and per
function whether it changes the document (MUTATING: the harness gives it a document of its
own, so that the read-only functions keep seeing the file as it is). Functions that change
only the caller's annotation (ANNOTATION_SETTERS) get a fresh annotation in each call, and
those that change only the caller's bookmark (BOOKMARK_SETTERS) a fresh bookmark.

A type it does not know stops the build with a message, so that a new kind of parameter is
thought about (and added here and to ffi_harness.c) rather than called with wrong values.
"""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import quire_header  # noqa: E402

SCALARS = {
    "int": ("ffi_type_sint32", "ARG_INT"),
    "int32_t": ("ffi_type_sint32", "ARG_INT"),
    "uint32_t": ("ffi_type_uint32", "ARG_UINT"),
    "unsigned": ("ffi_type_uint32", "ARG_UINT"),
    "size_t": ("ffi_type_uint64", "ARG_SIZE"),
    "uint64_t": ("ffi_type_uint64", "ARG_SIZE"),
    "int64_t": ("ffi_type_sint64", "ARG_INT64"),
    "double": ("ffi_type_double", "ARG_DOUBLE"),
}
RETURNS = {
    "void": "ffi_type_void",
    "int": "ffi_type_sint32",
    "int32_t": "ffi_type_sint32",
    "uint32_t": "ffi_type_uint32",
    "size_t": "ffi_type_uint64",
    "uint64_t": "ffi_type_uint64",
    "int64_t": "ffi_type_sint64",
    "double": "ffi_type_double",
}


# Functions that change the document or write it out. The harness calls them on a document
# of their own. A function whose name looks like one of these and is not listed stops the
# generator, so that a new editing or saving function is thought about before the harness
# calls it with arbitrary arguments.
MUTATING = {
    # Text (issue 18): a markup annotation made from text is a new object.
    "quire_document_add_text_markup",
    "quire_document_set_object",
    "quire_document_set_dict_value",
    "quire_document_add_object",
    "quire_document_add_stream",
    "quire_document_delete_object",
    "quire_document_save",
    "quire_document_save_to_callback",
    "quire_document_add_annotation",
    "quire_document_update_annotation",
    "quire_document_delete_annotation",
    # 0.5 (issue 39): a move in a page's drawing order rewrites its /Annots.
    "quire_document_move_annotation",
    "quire_document_add_reply",
    "quire_document_add_state_reply",
    "quire_document_set_in_reply_to",
    "quire_document_set_replies_enabled",
    "quire_document_import_annotations_json",
    # Forms (issue 22): values, their appearances and flattening change the document.
    "quire_field_set_value",
    "quire_field_set_values",
    "quire_field_reset",
    "quire_document_add_font",
    "quire_document_flatten",
    # Redaction (issue 38): marks and applies them.
    "quire_page_add_redaction",
    "quire_document_add_redactions_matching",
    "quire_document_apply_redactions",
    "quire_document_import_xfdf",
    # Long operations (issue 40): an import in a format changes the document.
    "quire_document_import_annotations",
    # 0.4: bookmarks. The sort order and the change callback are not stored in the file,
    # but they change what the document's later calls see or do, so they get a document of
    # their own too; the providers' chain likewise (the harness's chain on the valid
    # document must stay as it is set up).
    "quire_document_set_bookmark_providers",
    "quire_document_add_bookmark",
    "quire_document_remove_bookmark",
    "quire_document_move_bookmark",
    "quire_document_set_bookmark_sort_order",
    "quire_document_set_bookmark_change_callback",
    "quire_document_export_bookmarks_to_outline",
    # 0.5: checkpoints. Starting and stopping change what the document's later calls do
    # (and hold a lock on the checkpoint's UID); a checkpoint writes the checkpoint file
    # (in the harness's temporary directory). The harness gives them a document of its
    # own, with checkpointing started before each call of stop/checkpoint/checkpoint_async.
    "quire_document_start_checkpoints",
    "quire_document_stop_checkpoints",
    "quire_document_checkpoint",
    "quire_document_checkpoint_async",
    # 0.5, the sync service: a shutdown makes every later request of the service answer 503,
    # so it gets a service of its own (opened for the call, closed after it), as the
    # functions above get a document of their own.
    "quire_sync_service_shutdown",
    # 0.5, page operations and encryption (issue 36): they change the pages, or what the
    # next save writes.
    "quire_document_insert_pages",
    "quire_document_delete_pages",
    "quire_document_move_pages",
    "quire_document_rotate_pages",
    "quire_document_set_page_box",
    "quire_document_import_pages",
    "quire_document_set_encryption",
    # Digital signatures (issue 37): signing writes a signed copy (to a path in the
    # harness's temporary directory, or the write callback) and the document continues
    # from it; the guard changes what the document's later calls do.
    "quire_document_sign",
    "quire_document_sign_to_callback",
    "quire_document_set_signature_guard",
}
# Functions whose names look like editing or writing but that only read the document (an
# export into the caller's buffer, no file): they get the valid document like any reader.
READ_ONLY = {
    # The tool manager's setters: the harness's manager is NULL (TOOL_HANDLES), so they
    # change nothing and must answer QUIRE_EINVAL.
    "quire_tool_manager_set_style",
    "quire_tool_manager_set_tool",
    "quire_tool_manager_set_selection_contents",
    "quire_tool_manager_set_field_value",
    "quire_tool_manager_set_custom_tool",
    "quire_tool_manager_delete_selection",
    "quire_tool_manager_move_selection",
    "quire_tool_manager_set_measurement",
    "quire_tool_manager_set_stamp_image",
    "quire_tool_manager_set_attachment",
    # Issue 31: a review state from the manager (a NULL manager here).
    "quire_tool_manager_set_state",
    # Issue 37: signing what the Signature tool draws (a NULL manager here).
    "quire_tool_manager_set_signing",
    "quire_document_export_annotations_json",
    "quire_document_export_annotations_json_instant_comments",
    # Forms (issue 22): XFDF into the caller's buffer.
    "quire_document_export_xfdf",
    # Long operations (issue 40): an export in a format, handed to the caller's callback.
    "quire_document_export_annotations",
    # The path of the checkpoint file, into the caller's buffer (the valid document has
    # checkpointing started, so that it can succeed).
    "quire_document_checkpoint_path",
    # Fill the caller's struct: no document at all.
    "quire_checkpoint_options_init",
    "quire_open_options_init",
    "quire_save_options_init",
    "quire_bookmark_provider_init",
    "quire_sync_config_init",
    "quire_text_char_init",
    "quire_text_search_options_init",
    "quire_flatten_options_init",
    "quire_redaction_options_init",
    "quire_export_options_init",
    "quire_import_options_init",
    "quire_text_options_init",
    "quire_encryption_options_init",
    "quire_sign_options_init",
    "quire_validation_options_init",
    # Sets the response of a time-stamping callback (NULL only here: a real one exists only
    # during that callback, SIGNATURE_HANDLES).
    "quire_timestamp_response_set",
    # Reads the checkpoint file that starting would find; changes nothing.
    "quire_document_inspect_checkpoint",
    # The sync client: no document among their parameters (their handles are only NULL
    # here, CLIENT_HANDLES); Tests/server/test_client.py runs them with real ones.
    "quire_client_remove_document_storage",
    "quire_descriptor_set_auto_sync_delay",
    "quire_descriptor_remove_local_storage",
    "quire_descriptor_set_listening",
    "quire_client_remove_unused_cache",
}
# Handles of the sync client: the harness passes NULL only (a real client needs a server;
# each function must answer QUIRE_EINVAL, or do nothing for quire_client_close).
CLIENT_HANDLES = {"quire_client *", "quire_descriptor *", "const quire_descriptor *",
                  # a request of the asynchronous handler: the harness makes none (its
                  # completion is NULL), so it passes NULL; test_sync.c drives real ones
                  "quire_sync_call *"}
# The tool manager's handle: the harness passes NULL only (each function must answer
# QUIRE_EINVAL, or do nothing for quire_tool_manager_free); quire_tool_manager_new's result
# is freed (ARG_OUT_TOOLS). Tests/c/test_tools.c and Tests/python/test_tools.py drive real
# managers.
TOOL_HANDLES = {"quire_tool_manager *"}
# Text (issue 18): the text page and match list handles, and the out-parameters that make
# them, are passed as NULL only (each function must then refuse the call with
# QUIRE_EINVAL, or do nothing for the _free functions): the harness holds no text pages
# of its own, so nothing it is given can leak. Tests/c/test_text.c calls them with real ones.
TEXT_HANDLES = {"quire_text_page *", "const quire_text_page *", "quire_text_page **",
                "quire_text_match_list *", "const quire_text_match_list *", "quire_text_match_list **"}
# Page operations (issue 36): the report handle, and the out-parameter that makes one, are
# passed as NULL only (the report getters must refuse the call with QUIRE_EINVAL, the _free
# do nothing; an operation with a NULL report does not make one). Tests/c/test_pages.c reads
# real reports.
REPORT_HANDLES = {"quire_page_report *", "const quire_page_report *", "quire_page_report **"}
# Digital signatures (issue 37): the identity, the signature list, the out-parameters that
# make them, and a time-stamping callback's response are passed as NULL only (each function
# must then refuse with QUIRE_EINVAL, or do nothing for the _free functions), so that the
# harness holds none it could leak; Tests/c/test_signatures.c and
# Tests/python/test_signatures_api.py call them with real ones.
SIGNATURE_HANDLES = {"quire_signing_identity *", "const quire_signing_identity *", "quire_signing_identity **",
                     "quire_signature_list *", "const quire_signature_list *", "quire_signature_list **",
                     "quire_timestamp_response *"}
# Functions that change only the caller's annotation value (no document): they look like
# editing functions, and get a fresh annotation of their own in each call (ARG_MUT_ANNOT).
ANNOTATION_SETTERS = {
    "quire_annotation_set_rect",
    "quire_annotation_set_string",
    "quire_annotation_set_number",
    "quire_annotation_set_color",
    "quire_annotation_set_points",
    "quire_annotation_add_ink_stroke",
    "quire_annotation_set_image",
    "quire_annotation_set_file",
    "quire_annotation_set_measurement",
}
# Functions that change only the caller's bookmark value (no document): a fresh bookmark of
# their own in each call (ARG_MUT_BOOKMARK).
BOOKMARK_SETTERS = {
    "quire_bookmark_set_identifier",
    "quire_bookmark_set_name",
    "quire_bookmark_set_sort_key",
}
# Functions that change only a provider's load sink (quire_bookmark_sink_add): a sink exists
# only during a load callback, so the table passes NULL there (ARG_SINK); the harness's own
# provider calls it with the real sink inside its load callback.
SINK_FUNCTIONS = {
    "quire_bookmark_sink_add",
}
MUTATING_NAME = re.compile(r"_(set|add|delete|remove|insert|replace|update|edit|save|write|"
                           r"export|flatten|append|move|rename|start|stop|checkpoint)(_|$)")

# Parameters naming a file that the function writes: the harness passes NULL or a path in its
# own temporary directory, never the corpus file's path or a relative one. A function that
# looks like it writes files and has a `const char *` parameter not listed here stops the
# generator.
WRITES_FILES = {
    ("quire_document_save", "path"),
    ("quire_document_sign", "path"),
}
WRITES_NAME = re.compile(r"_(save|write|export)(_|$)")

# int32_t parameters that are object numbers of annotations: the harness passes the real
# numbers of annotations of the document (an annotation, a reply, the target of a reply) as
# well as 0 and garbage.
ANNOTATION_NUMBERS = {
    ("quire_document_annotation", "number"),
    ("quire_document_delete_annotation", "number"),
    ("quire_document_move_annotation", "number"),
    ("quire_document_add_reply", "target"),
    ("quire_document_add_state_reply", "target"),
    ("quire_document_set_in_reply_to", "number"),
    ("quire_document_set_in_reply_to", "target"),
    ("quire_document_comments", "number"),
    ("quire_document_review_summary", "number"),
}

# Pointer parameters that the header says may be NULL (each is checked against the function's
# doc comment, which must mention NULL): the harness does not expect a failure for NULL there.
OPTIONAL = {
    # "Any out-pointer may be NULL when that value is not wanted."
    ("quire_document_encryption", "out_method"),
    ("quire_document_encryption", "out_revision"),
    ("quire_document_encryption", "out_permissions"),
    ("quire_document_encryption", "out_is_owner"),
    # "Any out-pointer may be NULL."
    ("quire_document_outline_item", "out_depth"),
    ("quire_document_outline_item", "out_parent"),
    ("quire_document_outline_item", "out_child_count"),
    ("quire_document_outline_item", "out_is_open"),
    ("quire_document_outline_item", "out_action"),
    ("quire_document_outline_item", "out_page_index"),
    # "a NULL value, or a null value, removes the key"
    ("quire_document_set_dict_value", "value"),
    # "(a dictionary value, copied; NULL for an empty one)"
    ("quire_document_add_stream", "dict"),
    # "options: NULL for the defaults" / "NULL for an incremental save"
    ("quire_document_open", "options"),
    ("quire_document_open_memory", "options"),
    ("quire_document_save", "options"),
    ("quire_document_save_to_callback", "options"),
    # the payload is the caller's, passed through to its callback
    ("quire_document_save_to_callback", "payload"),
    # "out: receives the new reply, owned by the caller; may be NULL when not wanted."
    ("quire_document_add_reply", "out"),
    ("quire_document_add_state_reply", "out"),
    # "Adds a text reply by `author` (NULL for none)"
    ("quire_document_add_reply", "author"),
    # "Sets a text field from NUL-terminated UTF-8; NULL clears it."
    ("quire_annotation_set_string", "value"),
    # "`data` NULL and `length` 0 forget an image not stored yet (`content_type` is then ignored)"
    ("quire_annotation_set_image", "data"),
    ("quire_annotation_set_image", "content_type"),
    # "`data` NULL and `length` 0 forget a file not stored yet"; "NULL for none"
    ("quire_annotation_set_file", "data"),
    ("quire_annotation_set_file", "file_name"),
    ("quire_annotation_set_file", "content_type"),
    ("quire_annotation_set_file", "description"),
    # "`from_unit` NULL removes the scale (the other arguments are then ignored)"
    ("quire_annotation_set_measurement", "from_unit"),
    ("quire_tool_manager_set_measurement", "from_unit"),
    # "`data` NULL and `length` 0 remove the image / the file"; "NULL for none"
    ("quire_tool_manager_set_stamp_image", "data"),
    ("quire_tool_manager_set_stamp_image", "content_type"),
    ("quire_tool_manager_set_attachment", "data"),
    ("quire_tool_manager_set_attachment", "file_name"),
    ("quire_tool_manager_set_attachment", "content_type"),
    ("quire_tool_manager_set_attachment", "description"),
    # "`*out_moved` (may be NULL)"
    ("quire_document_move_annotation", "out_moved"),
    ("quire_tool_manager_move_selection", "out_moved"),
    # "out_count: receives the number of annotations created or updated; may be NULL."
    ("quire_document_import_annotations_json", "out_count"),
    # "Either out-pointer may be NULL."
    ("quire_document_review_summary", "out_current"),
    ("quire_document_review_summary", "out_history"),
    # 0.4, bookmarks.
    # "for QUIRE_BOOKMARK_GOTO, ... `text` must be NULL" (the other kinds fail with NULL)
    ("quire_bookmark_new", "text"),
    # "Sets the name from UTF-8; NULL clears it."
    ("quire_bookmark_set_name", "name"),
    # "Sets the sort key; NULL clears it."
    ("quire_bookmark_set_sort_key", "sort_key"),
    # "An empty chain (count 0) keeps no bookmarks" and "NULL providers with a count" is an
    # error: NULL with 0 is the empty chain.
    ("quire_document_set_bookmark_providers", "providers"),
    # "...; NULL removes it." (the callback), and the payload is the caller's
    ("quire_document_set_bookmark_change_callback", "callback"),
    ("quire_document_set_bookmark_change_callback", "payload"),
    # "out_count: receives the number of items written; may be NULL."
    ("quire_document_export_bookmarks_to_outline", "out_count"),
    # 0.5, checkpoints.
    # "out_loaded: ...; may be NULL." and "options: NULL for the defaults"
    ("quire_document_start_checkpoints", "out_loaded"),
    ("quire_document_start_checkpoints", "options"),
    # "options: NULL for the defaults."
    ("quire_document_inspect_checkpoint", "options"),
    # "out_call: ...; NULL when the caller will never cancel", and the payload is the caller's
    ("quire_sync_service_handle_async", "out_call"),
    ("quire_sync_service_handle_async", "payload"),
    # "calls `done` (if not NULL)", and the payload is the caller's
    ("quire_document_checkpoint_async", "done"),
    ("quire_document_checkpoint_async", "payload"),
    # Forms (issue 22): "its page (...; may be NULL) and its /Rect (may be NULL)";
    # "subtypes: NULL for every subtype but Link and Popup"; "out_count: ...; may be NULL."
    ("quire_field_widget", "out_page_index"),
    ("quire_field_widget", "out_rect"),
    ("quire_document_flatten", "options"),
    ("quire_document_flatten", "out_count"),
    ("quire_document_import_xfdf", "out_count"),
    # Redaction (issue 38): "may be NULL", "NULL with 0 for none", "NULL for none",
    # "NULL for its defaults", "NULL for QUIRE_REDACTION_OPTIONS_INIT".
    ("quire_page_add_redaction", "out"),
    ("quire_page_add_redaction", "fill"),
    ("quire_page_add_redaction", "overlay_text"),
    ("quire_document_add_redactions_matching", "out_count"),
    ("quire_document_add_redactions_matching", "options"),
    ("quire_document_add_redactions_matching", "fill"),
    ("quire_document_add_redactions_matching", "overlay_text"),
    ("quire_document_apply_redactions", "out"),
    ("quire_document_apply_redactions", "options"),
    # Long operations (issue 40): "options: NULL for the defaults"; "out_count: ...; may be
    # NULL"; the payload is the caller's, passed to its write callback.
    ("quire_document_export_annotations", "options"),
    ("quire_document_export_annotations", "payload"),
    ("quire_document_import_annotations", "options"),
    ("quire_document_import_annotations", "out_count"),
    ("quire_document_text", "options"),
    ("quire_document_text", "payload"),
    # Page operations (issue 36): "out_report: NULL, or receives the report"; "(NULL: US
    # Letter ...)"; "NULL removes it"; "or every page when `indices` is NULL and `count` 0".
    ("quire_document_delete_pages", "out_report"),
    ("quire_document_import_pages", "out_report"),
    ("quire_document_import_pages", "indices"),
    ("quire_document_insert_pages", "media_box"),
    ("quire_document_set_page_box", "rect"),
    # Encryption: "or (`options` NULL) removes its encryption"; "`owner_password` (NULL:
    # none given)".
    ("quire_document_set_encryption", "options"),
    ("quire_document_set_encryption", "owner_password"),
    # Digital signatures: "options: NULL for the defaults"; the payload is the caller's.
    ("quire_document_signatures", "options"),
    ("quire_document_sign_to_callback", "payload"),
    # "out_kind ... (may be NULL)"
    ("quire_signature_list_problem", "out_kind"),
    # "NULL `options` turns it off."
    ("quire_tool_manager_set_signing", "options"),
}


# Pointer parameters where the header does not say whether NULL is allowed, and the
# harness passes NULL without expecting either outcome (emitted as optional = 2).
UNSPECIFIED_NULL = {
    # quire_document_add_reply says "`author` (NULL for none)"; add_state_reply's doc
    # comment says nothing of a NULL author (the library takes it as none).
    ("quire_document_add_state_reply", "author"),
}


# The versioned structs that the quire_*_init functions fill (ARG_INIT_STRUCT): the harness
# knows each one's versions and their sizes.
INIT_STRUCTS = {
    "quire_open_options *",
    "quire_save_options *",
    "quire_bookmark_provider *",
    "quire_checkpoint_options *",
    "quire_sync_config *",
    "quire_tool_callbacks *",
    "quire_tool_style *",
    "quire_custom_tool *",
    "quire_pointer_event *",
    "quire_tool_preview *",
    "quire_text_char *",
    "quire_text_search_options *",
    "quire_flatten_options *",
    "quire_redaction_options *",
    "quire_export_options *",
    "quire_import_options *",
    "quire_text_options *",
    "quire_encryption_options *",
    "quire_client_config *",
    "quire_client_callbacks *",
    "quire_file_access *",
    "quire_sign_options *",
    "quire_validation_options *",
}

# Getters that fill a versioned struct of the caller's (an out-parameter of sizeof(T), as any
# other): not _init functions.
VERSIONED_OUT_GETTERS = {
    "quire_text_page_char",
    "quire_tool_manager_style",
    "quire_tool_manager_preview",
}

# `const char *` parameters of the sync service's requests: the harness passes real methods
# and targets of the protocol (and garbage), not the strings of ARG_CSTR.
SYNC_STRINGS = {
    ("quire_sync_service_handle", "method"): "ARG_SYNC_METHOD",
    ("quire_sync_service_handle", "target"): "ARG_SYNC_TARGET",
}

def enum_families(header):
    """The constant families of the header, in header order: [(name, [(constant, value)])].
    Every constant has an explicit integer value (quire_header.py refuses one without), so
    that the harness passes exactly the values the header gives; the families must not
    share a value."""
    families = []
    seen = {}
    for enum in header.enums:
        constants = []
        for c in enum.constants:
            if c.value in seen:
                raise SystemExit("gen_ffi_table.py: %s and %s have the same value %#x: the "
                                 "families must not overlap" % (c.name, seen[c.value], c.value))
            seen[c.value] = c.name
            constants.append((c.name, c.value))
        families.append((enum.name, constants))
    return families


def doc_comment(header, name):
    """The doc comment of the function `name` ("" without one)."""
    return header.function(name).doc or ""


def classify(fn, family_index):
    params = fn["params"]
    out = []
    i = 0
    opens_document = any(p["type"] == "quire_document **" for p in params)
    if (MUTATING_NAME.search(fn["name"]) and fn["name"] not in MUTATING
            and fn["name"] not in ANNOTATION_SETTERS and fn["name"] not in BOOKMARK_SETTERS
            and fn["name"] not in SINK_FUNCTIONS and fn["name"] not in READ_ONLY):
        raise SystemExit("gen_ffi_table.py: %s looks like it changes or writes the document: "
                         "add it to MUTATING in gen_ffi_table.py (the harness then gives it a "
                         "document of its own) after checking what it does" % fn["name"])
    while i < len(params):
        p = params[i]
        t = p["type"]
        nxt = params[i + 1]["type"] if i + 1 < len(params) else None
        pointee = "0"
        family = -1
        if t in family_index:
            # A constant family, passed as the 32-bit integer it is.
            kinds = [("ffi_type_sint32", "ARG_ENUM")]
            family = family_index[t]
        elif t.endswith(" *") and t[:-2] in family_index:
            # An out-parameter of a family: like an int32_t *.
            kinds = [("ffi_type_pointer", "ARG_OUT")]
            pointee = "sizeof(%s)" % t[:-2]
            family = family_index[t[:-2]]
        elif t == "function pointer":
            kinds = [("ffi_type_pointer", "ARG_FNPTR")]
        elif t == "quire_write_fn":
            kinds = [("ffi_type_pointer", "ARG_WRITEFN")]
        elif t == "void *" and p["name"] == "payload":
            kinds = [("ffi_type_pointer", "ARG_PAYLOAD")]
        elif t == "quire_document *":
            kinds = [("ffi_type_pointer", "ARG_HANDLE")]
        elif t == "quire_document **":
            kinds = [("ffi_type_pointer", "ARG_OUT_HANDLE")]
            pointee = "sizeof(quire_document *)"
        elif t == "const quire_value *":
            kinds = [("ffi_type_pointer", "ARG_VALUE")]
        elif t == "const quire_annotation *":
            kinds = [("ffi_type_pointer", "ARG_ANNOT")]
        elif t == "quire_annotation *":
            if fn["name"].endswith("_free"):
                kinds = [("ffi_type_pointer", "ARG_FREE_ANNOT")]
            elif fn["name"] in ANNOTATION_SETTERS or fn["name"] in MUTATING:
                kinds = [("ffi_type_pointer", "ARG_MUT_ANNOT")]
            else:
                raise SystemExit("gen_ffi_table.py: %s takes a non-const quire_annotation *: "
                                 "add it to ANNOTATION_SETTERS or MUTATING" % fn["name"])
        elif t == "quire_annotation **":
            kinds = [("ffi_type_pointer", "ARG_OUT_ANNOT")]
            pointee = "sizeof(quire_annotation *)"
        elif t == "const quire_annotation_list *":
            kinds = [("ffi_type_pointer", "ARG_LIST")]
        elif t == "quire_annotation_list *":
            if not fn["name"].endswith("_free"):
                raise SystemExit("gen_ffi_table.py: %s takes a non-const quire_annotation_list *:"
                                 " the harness only knows it as the argument of a _free"
                                 % fn["name"])
            kinds = [("ffi_type_pointer", "ARG_FREE_LIST")]
        elif t == "quire_annotation_list **":
            kinds = [("ffi_type_pointer", "ARG_OUT_LIST")]
            pointee = "sizeof(quire_annotation_list *)"
        elif t == "const quire_bookmark *":
            kinds = [("ffi_type_pointer", "ARG_BOOKMARK")]
        elif t == "quire_bookmark *":
            if fn["name"].endswith("_free"):
                kinds = [("ffi_type_pointer", "ARG_FREE_BOOKMARK")]
            elif fn["name"] in BOOKMARK_SETTERS:
                kinds = [("ffi_type_pointer", "ARG_MUT_BOOKMARK")]
            else:
                raise SystemExit("gen_ffi_table.py: %s takes a non-const quire_bookmark *: "
                                 "add it to BOOKMARK_SETTERS (and ffi_harness.c)" % fn["name"])
        elif t == "quire_bookmark **":
            kinds = [("ffi_type_pointer", "ARG_OUT_BOOKMARK")]
            pointee = "sizeof(quire_bookmark *)"
        elif t == "quire_bookmark_sink *":
            if fn["name"] not in SINK_FUNCTIONS:
                raise SystemExit("gen_ffi_table.py: %s takes a quire_bookmark_sink *: add it to "
                                 "SINK_FUNCTIONS after checking what it does" % fn["name"])
            kinds = [("ffi_type_pointer", "ARG_SINK")]
        elif t == "const quire_bookmark_provider * const *":
            if nxt != "size_t":
                raise SystemExit("gen_ffi_table.py: %s takes providers without a size_t count "
                                 "after them: the harness does not know how many to pass"
                                 % fn["name"])
            kinds = [("ffi_type_pointer", "ARG_PROVIDERS"),
                     ("ffi_type_uint64", "ARG_PROVIDERS_COUNT")]
        elif t in INIT_STRUCTS and fn["name"] not in VERSIONED_OUT_GETTERS:
            if not fn["name"].endswith("_init") or nxt != "unsigned":
                raise SystemExit("gen_ffi_table.py: %s takes a non-const %s, which the harness "
                                 "only knows as the struct of a quire_*_init(struct *, unsigned "
                                 "version)" % (fn["name"], t))
            kinds = [("ffi_type_pointer", "ARG_INIT_STRUCT")]
            pointee = "sizeof(%s)" % t[:-1].strip()
        elif t == "quire_checkpoint_info *":
            kinds = [("ffi_type_pointer", "ARG_CHECKPOINT_INFO")]
            pointee = "sizeof(quire_checkpoint_info)"
        elif t == "const int64_t *":
            kinds = [("ffi_type_pointer", "ARG_INT64_IN")]
        elif t == "const quire_sync_config *":
            kinds = [("ffi_type_pointer", "ARG_SYNC_CONFIG")]
            pointee = "sizeof(quire_sync_config)"
        elif t == "quire_sync_service **":
            kinds = [("ffi_type_pointer", "ARG_OUT_SYNC_SERVICE")]
            pointee = "sizeof(quire_sync_service *)"
        elif t == "quire_sync_service *":
            kinds = [("ffi_type_pointer", "ARG_SYNC_SERVICE")]
        elif t == "quire_sync_response **":
            kinds = [("ffi_type_pointer", "ARG_OUT_SYNC_RESPONSE")]
            pointee = "sizeof(quire_sync_response *)"
        elif t == "const quire_sync_response *":
            kinds = [("ffi_type_pointer", "ARG_SYNC_RESPONSE")]
        elif t == "quire_sync_response *":
            if not fn["name"].endswith("_free"):
                raise SystemExit("gen_ffi_table.py: %s takes a non-const quire_sync_response *: "
                                 "the harness only knows it as the argument of a _free"
                                 % fn["name"])
            kinds = [("ffi_type_pointer", "ARG_FREE_SYNC_RESPONSE")]
        elif t == "const quire_sync_header *":
            if nxt != "size_t":
                raise SystemExit("gen_ffi_table.py: %s takes headers without a size_t count "
                                 "after them: the harness does not know how many to pass"
                                 % fn["name"])
            kinds = [("ffi_type_pointer", "ARG_SYNC_HEADERS"),
                     ("ffi_type_uint64", "ARG_SYNC_HEADERS_COUNT")]
        elif t == "const char **":
            kinds = [("ffi_type_pointer", "ARG_OUT_STR")]
            pointee = "sizeof(const char *)"
        elif t == "const void **":
            kinds = [("ffi_type_pointer", "ARG_OUT_DATA")]
            pointee = "sizeof(const void *)"
        elif t == "const char *" and (fn["name"], p["name"]) in SYNC_STRINGS:
            kinds = [("ffi_type_pointer", SYNC_STRINGS[(fn["name"], p["name"])])]
        elif t == "quire_bookmark_change_fn":
            kinds = [("ffi_type_pointer", "ARG_CHANGEFN")]
        elif t == "const quire_checkpoint_options *":
            kinds = [("ffi_type_pointer", "ARG_CHECKPOINT_OPTIONS")]
            pointee = "sizeof(quire_checkpoint_options)"
        elif t == "quire_checkpoint_done_fn":
            kinds = [("ffi_type_pointer", "ARG_DONEFN")]
        elif t == "quire_sync_completion":
            # NULL only: every call is then QUIRE_EINVAL (a completion is required), which
            # is what the harness checks; test_sync.c runs real completions.
            kinds = [("ffi_type_pointer", "ARG_FNPTR")]
        elif t == "const quire_rect *":
            kinds = [("ffi_type_pointer", "ARG_RECT")]
        elif t == "const double *" and nxt == "size_t":
            kinds = [("ffi_type_pointer", "ARG_DOUBLES"), ("ffi_type_uint64", "ARG_DOUBLES_COUNT")]
        elif t == "double *" and nxt == "size_t":
            kinds = [("ffi_type_pointer", "ARG_DBUF"), ("ffi_type_uint64", "ARG_DBUF_CAP")]
        elif t == "int32_t" and (fn["name"], p["name"]) in ANNOTATION_NUMBERS:
            kinds = [("ffi_type_sint32", "ARG_ANNOT_NUMBER")]
        elif t == "quire_value **":
            kinds = [("ffi_type_pointer", "ARG_OUT_VALUE")]
            pointee = "sizeof(quire_value *)"
        elif t == "quire_value *":
            if not fn["name"].endswith("_free"):
                raise SystemExit("gen_ffi_table.py: %s takes a non-const quire_value *: the "
                                 "harness only knows it as the argument of a _free" % fn["name"])
            kinds = [("ffi_type_pointer", "ARG_FREE_VALUE")]
        elif t == "char *" and nxt == "size_t":
            kinds = [("ffi_type_pointer", "ARG_BUF"), ("ffi_type_uint64", "ARG_BUF_SIZE")]
        elif t == "void *" and nxt == "size_t":
            # A block the library lays out (quire_page_annotation_infos): a real buffer
            # with its true size, as for text.
            kinds = [("ffi_type_pointer", "ARG_BUF"), ("ffi_type_uint64", "ARG_BUF_SIZE")]
        elif t == "const void *" and nxt == "size_t":
            if opens_document:
                kinds = [("ffi_type_pointer", "ARG_DATA"), ("ffi_type_uint64", "ARG_DATA_SIZE")]
            else:
                kinds = [("ffi_type_pointer", "ARG_BYTES"),
                         ("ffi_type_uint64", "ARG_BYTES_SIZE")]
        elif t == "size_t *":
            kinds = [("ffi_type_pointer", "ARG_OUT_LEN")]
            pointee = "sizeof(size_t)"
        elif t == "const char *" and (fn["name"], p["name"]) in WRITES_FILES:
            kinds = [("ffi_type_pointer", "ARG_WRITE_PATH")]
        elif t == "const char *" and WRITES_NAME.search(fn["name"]):
            raise SystemExit("gen_ffi_table.py: %s looks like it writes files and takes the "
                             "string %s: if it is a path, add it to WRITES_FILES (the harness "
                             "then passes only paths in its temporary directory)"
                             % (fn["name"], p["name"]))
        elif t == "const char *" and nxt == "size_t":
            kinds = [("ffi_type_pointer", "ARG_TEXT"), ("ffi_type_uint64", "ARG_TEXT_LEN")]
        elif t == "const char *":
            kinds = [("ffi_type_pointer", "ARG_CSTR")]
        elif t == "const quire_open_options *":
            kinds = [("ffi_type_pointer", "ARG_OPTIONS")]
            pointee = "sizeof(quire_open_options)"
        elif t == "const quire_save_options *":
            kinds = [("ffi_type_pointer", "ARG_SAVE_OPTIONS")]
            pointee = "sizeof(quire_save_options)"
        elif (t in CLIENT_HANDLES or t in TOOL_HANDLES or t in TEXT_HANDLES or t in REPORT_HANDLES
              or t in SIGNATURE_HANDLES):
            kinds = [("ffi_type_pointer", "ARG_INPTR")]
        elif t == "quire_tool_manager **":
            kinds = [("ffi_type_pointer", "ARG_OUT_TOOLS")]
        elif t.endswith("*") and (t.startswith("const ") or t == "void *"):
            # Input pointers and opaque `void *payload`s: the harness passes NULL.
            kinds = [("ffi_type_pointer", "ARG_INPTR")]
        elif t.endswith("*"):
            base = t[:-1].strip()
            kinds = [("ffi_type_pointer", "ARG_OUT")]
            pointee = "sizeof(%s)" % base
        elif t in SCALARS:
            kinds = [SCALARS[t]]
        else:
            raise SystemExit("gen_ffi_table.py: %s: parameter %s has type %r, which the "
                             "harness does not know: add it to gen_ffi_table.py and "
                             "ffi_harness.c" % (fn["name"], p["name"], t))
        for k, (ffi, kind) in enumerate(kinds):
            q = params[i + k]
            out.append({"ffi": ffi, "kind": kind, "name": q["name"], "type": q["type"],
                        "pointee": pointee if k == 0 else "0",
                        "family": family if k == 0 else -1,
                        "optional": 1 if (fn["name"], q["name"]) in OPTIONAL else
                                    2 if (fn["name"], q["name"]) in UNSPECIFIED_NULL else 0})
        i += len(kinds)
    return out


def check_tables(functions, header):
    """Every entry of the hand-written tables names a real parameter, and the header's doc
    comment of each OPTIONAL one says that NULL is allowed."""
    params = {(f["name"], p["name"]) for f in functions for p in f["params"]}
    names = {f["name"] for f in functions}
    for fname in MUTATING | ANNOTATION_SETTERS | BOOKMARK_SETTERS | SINK_FUNCTIONS | READ_ONLY:
        if fname not in names:
            raise SystemExit("gen_ffi_table.py: MUTATING names %s, which quire.h does not "
                             "declare" % fname)
    for entry in sorted(WRITES_FILES | OPTIONAL | UNSPECIFIED_NULL | ANNOTATION_NUMBERS |
                        set(SYNC_STRINGS)):
        if entry not in params:
            raise SystemExit("gen_ffi_table.py: %s has no parameter %s" % entry)
    for fname, pname in sorted(OPTIONAL):
        if "NULL" not in doc_comment(header, fname) and pname != "payload":
            raise SystemExit("gen_ffi_table.py: OPTIONAL lists %s(%s), but its doc comment in "
                             "quire.h does not mention NULL" % (fname, pname))


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def generate(functions, families, header_path):
    family_index = {name: k for k, (name, _) in enumerate(families)}
    lines = [
        "/* Generated by Tests/c/gen_ffi_table.py from %s: do not edit. */" % header_path,
        "#ifndef QUIRE_FFI_TABLE_H",
        "#define QUIRE_FFI_TABLE_H",
        "",
        "enum ffi_arg_kind {",
        "    ARG_HANDLE, ARG_OUT_HANDLE, ARG_OUT, ARG_BUF, ARG_BUF_SIZE, ARG_OUT_LEN, ARG_CSTR,",
        "    ARG_DATA, ARG_DATA_SIZE, ARG_OPTIONS, ARG_INPTR, ARG_FNPTR, ARG_INT, ARG_UINT,",
        "    ARG_SIZE, ARG_INT64, ARG_DOUBLE, ARG_VALUE, ARG_OUT_VALUE, ARG_FREE_VALUE,",
        "    ARG_TEXT, ARG_TEXT_LEN, ARG_BYTES, ARG_BYTES_SIZE, ARG_WRITE_PATH,",
        "    ARG_SAVE_OPTIONS, ARG_WRITEFN, ARG_PAYLOAD, ARG_ANNOT, ARG_MUT_ANNOT,",
        "    ARG_FREE_ANNOT, ARG_OUT_ANNOT, ARG_LIST, ARG_FREE_LIST, ARG_OUT_LIST, ARG_RECT,",
        "    ARG_DOUBLES, ARG_DOUBLES_COUNT, ARG_DBUF, ARG_DBUF_CAP,",
        "    ARG_ANNOT_NUMBER, ARG_BOOKMARK, ARG_MUT_BOOKMARK, ARG_FREE_BOOKMARK,",
        "    ARG_OUT_BOOKMARK, ARG_SINK, ARG_PROVIDERS, ARG_PROVIDERS_COUNT, ARG_INT64_IN,",
        "    ARG_CHANGEFN, ARG_CHECKPOINT_OPTIONS, ARG_DONEFN, ARG_ENUM, ARG_INIT_STRUCT,",
        "    ARG_CHECKPOINT_INFO, ARG_SYNC_CONFIG, ARG_OUT_SYNC_SERVICE, ARG_SYNC_SERVICE,",
        "    ARG_OUT_SYNC_RESPONSE, ARG_SYNC_RESPONSE, ARG_FREE_SYNC_RESPONSE, ARG_SYNC_HEADERS,",
        "    ARG_SYNC_HEADERS_COUNT, ARG_SYNC_METHOD, ARG_SYNC_TARGET, ARG_OUT_STR, ARG_OUT_DATA,",
        "    ARG_OUT_TOOLS",
        "};",
        "",
        "/* A constant family of the header (a typedef'd enum): its constants, in header order. */",
        "struct ffi_enum_family {",
        "    const char *name;",
        "    unsigned count;",
        "    const int32_t *values;",
        "    const char *const *names;",
        "};",
        "",
        "struct ffi_function {",
        "    const char *name;",
        "    const char *return_ctype; /* the C return type, as in the header */",
        "    ffi_type *return_type;",
        "    unsigned nargs;",
        "    ffi_type **arg_types;",
        "    const enum ffi_arg_kind *arg_kinds;",
        "    const char *const *arg_names;",
        "    const char *const *arg_ctypes;",
        "    const size_t *arg_pointee_sizes; /* for out-parameters; 0 otherwise */",
        "    const unsigned char *arg_optional; /* 1: the header allows NULL here; 2: it does",
        "                                          not say (no outcome expected) */",
        "    const int *arg_families; /* the FFI_ENUM_FAMILIES index of an enum parameter or of",
        "                                an enum out-pointer; -1 otherwise */",
        "    int mutates; /* changes or writes the document (MUTATING) */",
        "};",
        "",
    ]
    for name, constants in families:
        lines.append("static const int32_t ffi_enum_values_%s[] = {%s};" % (
            name, ", ".join("%#06x" % v for _, v in constants)))
        lines.append("static const char *const ffi_enum_names_%s[] = {%s};" % (
            name, ", ".join(c_string(c) for c, _ in constants)))
    lines.append("static const struct ffi_enum_family FFI_ENUM_FAMILIES[] = {")
    for name, constants in families:
        lines.append("    {%s, %d, ffi_enum_values_%s, ffi_enum_names_%s}," % (
            c_string(name), len(constants), name, name))
    lines.append("};")
    lines.append("#define FFI_ENUM_FAMILY_COUNT %d" % len(families))
    lines.append("")
    entries = []
    for fn in functions:
        name = fn["name"]
        ret = fn["return"]
        if ret.endswith("*"):
            rtype = "ffi_type_pointer"
        elif ret in RETURNS:
            rtype = RETURNS[ret]
        else:
            raise SystemExit("gen_ffi_table.py: %s returns %r, which the harness does not "
                             "know" % (name, ret))
        args = classify(fn, family_index)
        if args:
            lines.append("static ffi_type *ffi_args_%s[] = {%s};" % (
                name, ", ".join("&" + a["ffi"] for a in args)))
            lines.append("static const enum ffi_arg_kind ffi_kinds_%s[] = {%s};" % (
                name, ", ".join(a["kind"] for a in args)))
            lines.append("static const char *const ffi_names_%s[] = {%s};" % (
                name, ", ".join(c_string(a["name"]) for a in args)))
            lines.append("static const char *const ffi_ctypes_%s[] = {%s};" % (
                name, ", ".join(c_string(a["type"]) for a in args)))
            lines.append("static const size_t ffi_pointees_%s[] = {%s};" % (
                name, ", ".join(a["pointee"] for a in args)))
            lines.append("static const unsigned char ffi_optional_%s[] = {%s};" % (
                name, ", ".join(str(a["optional"]) for a in args)))
            lines.append("static const int ffi_families_%s[] = {%s};" % (
                name, ", ".join(str(a["family"]) for a in args)))
            entries.append("    {%s, %s, &%s, %d, ffi_args_%s, ffi_kinds_%s, ffi_names_%s, "
                           "ffi_ctypes_%s, ffi_pointees_%s, ffi_optional_%s, ffi_families_%s, "
                           "%d}," % (
                               c_string(name), c_string(ret), rtype, len(args), name, name,
                               name, name, name, name, name, 1 if name in MUTATING else 0))
        else:
            entries.append("    {%s, %s, &%s, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
                           "%d}," % (c_string(name), c_string(ret), rtype,
                                     1 if name in MUTATING else 0))
    lines.append("")
    lines.append("static const struct ffi_function FFI_FUNCTIONS[] = {")
    lines.extend(entries)
    lines.append("};")
    lines.append("#define FFI_FUNCTION_COUNT %d" % len(functions))
    lines.append("")
    lines.append("#endif")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) != 3:
        raise SystemExit("usage: gen_ffi_table.py HEADER OUTPUT")
    path, output = argv[1], argv[2]
    header = quire_header.read(path)
    functions = [{"name": f.name, "return": f.ret,
                  "params": [{"type": p.type, "name": p.name} for p in f.params]}
                 for f in header.functions]
    check_tables(functions, header)
    text = generate(functions, enum_families(header), os.path.basename(path))
    tmp = output + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, output)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
