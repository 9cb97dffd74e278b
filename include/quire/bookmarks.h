/**
 * @file quire/bookmarks.h
 * @brief Bookmarks, their providers and sort orders.
 *
 * A topic header of Quire's C interface. Programs include <quire.h>, which includes
 * every topic header; this one also compiles on its own, as it includes what it uses.
 * The conventions (status codes, ownership, strings, versioned structs) are in quire.h.
 */
#ifndef QUIRE_BOOKMARKS_H
#define QUIRE_BOOKMARKS_H

#include "common.h"
#include "document.h"
#include "outline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* Bookmarks                                                                            */
/* ------------------------------------------------------------------------------------ */

/**
 * A user bookmark: the reader's own mark (not the outline), as a value owned by the caller
 * and released with `quire_bookmark_free`, independent of the document's lifetime. It has
 * an identifier (generated for new bookmarks: stable and opaque), an optional name, an
 * action (go to a page, a URI, a named action, or any other action kept as its PDF
 * dictionary) and an opaque sort key that records its place in the custom order.
 *
 * To change a bookmark, take a copy from the document, change the copy and add it back:
 * adding a bookmark whose identifier the document already has replaces that bookmark in
 * place (it keeps its position in the custom order). A bookmark with a new identifier is a
 * new bookmark, even for the same page. Thread safety: one thread at a time per value.
 */
typedef struct quire_bookmark quire_bookmark;

/** Bookmark actions, for `quire_bookmark_new` and `quire_bookmark_action_type`: the action
 *  types of outline items (`quire_action_type`), under the names of 0.4. */
#define QUIRE_BOOKMARK_GOTO QUIRE_ACTION_GOTO   /**< go to a page of the document */
#define QUIRE_BOOKMARK_URI QUIRE_ACTION_URI     /**< open a URI */
#define QUIRE_BOOKMARK_NAMED QUIRE_ACTION_NAMED /**< a named action (/N), such as NextPage */
#define QUIRE_BOOKMARK_OTHER QUIRE_ACTION_OTHER /**< any other action, as its action dictionary in PDF syntax */

/** Bookmark sort orders. */
typedef enum quire_bookmark_sort_order {
    QUIRE_BOOKMARK_SORT_CUSTOM = 0x0C00, /**< insertion order, as rearranged by moves */
    /** By page index; bookmarks that do not point at a page last; ties keep the custom order. */
    QUIRE_BOOKMARK_SORT_PAGE = 0x0C01
} quire_bookmark_sort_order;

/**
 * Makes a new bookmark with a new identifier. For QUIRE_BOOKMARK_GOTO, `page_index` is the
 * page and `text` must be NULL; for QUIRE_BOOKMARK_URI and QUIRE_BOOKMARK_NAMED, `text` is
 * the URI or the action's name (UTF-8) and `page_index` is ignored; for
 * QUIRE_BOOKMARK_OTHER, `text` is an action dictionary in PDF syntax, such as
 * "<< /S /JavaScript /JS (app.alert(1)) >>", parsed strictly.
 * out: receives a new bookmark owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL (unknown kind, a negative page, missing, empty or
 * unexpected text); QUIRE_EFORMAT (text of QUIRE_BOOKMARK_OTHER that is not one
 * dictionary with an /S name).
 */
QUIRE_API int quire_bookmark_new(quire_bookmark **out, quire_action_type kind, int32_t page_index,
                       const char *text);

/**
 * A copy of `bookmark`, with the same identifier.
 * out: receives a new bookmark owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_bookmark_copy(quire_bookmark **out, const quire_bookmark *bookmark);

/** Releases a bookmark. NULL is a no-op. */
QUIRE_API void quire_bookmark_free(quire_bookmark *bookmark);

/**
 * The identifier of a bookmark, through the length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EBUFS.
 */
QUIRE_API int quire_bookmark_identifier(char *buf, size_t buf_size, size_t *out_len,
                              const quire_bookmark *bookmark);

/**
 * Sets the identifier (non-empty UTF-8): for a provider that loads stored bookmarks.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL or empty).
 */
QUIRE_API int quire_bookmark_set_identifier(quire_bookmark *bookmark, const char *identifier);

/**
 * The name of a bookmark, through the length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EBUFS; QUIRE_ENOTFOUND (it has no name).
 */
QUIRE_API int quire_bookmark_name(char *buf, size_t buf_size, size_t *out_len,
                        const quire_bookmark *bookmark);

/**
 * Sets the name from UTF-8; NULL clears it.
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_bookmark_set_name(quire_bookmark *bookmark, const char *name);

/**
 * The type of a bookmark's action (QUIRE_BOOKMARK_GOTO, ...).
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_bookmark_action_type(quire_action_type *out, const quire_bookmark *bookmark);

/**
 * The page index a go-to bookmark points at.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND (not a go-to bookmark).
 */
QUIRE_API int quire_bookmark_page_index(int32_t *out, const quire_bookmark *bookmark);

/**
 * The text of a bookmark's action, through the length-query pattern: the URI, the named
 * action's name, or, for any other action, its action dictionary in PDF syntax.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EBUFS; QUIRE_ENOTFOUND (a go-to bookmark).
 */
QUIRE_API int quire_bookmark_action_text(char *buf, size_t buf_size, size_t *out_len,
                               const quire_bookmark *bookmark);

/**
 * The sort key of a bookmark: opaque, assigned by the document when a bookmark without one
 * is added and when bookmarks are moved; providers store it as it is.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND (it has none).
 */
QUIRE_API int quire_bookmark_sort_key(int64_t *out, const quire_bookmark *bookmark);

/**
 * Sets the sort key; NULL clears it. For providers that load stored bookmarks.
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_bookmark_set_sort_key(quire_bookmark *bookmark, const int64_t *sort_key);

/**
 * Given to a provider's `load` callback: add each stored bookmark to it. Use it only
 * during that call: afterwards `quire_bookmark_sink_add` returns QUIRE_ESTATE while the
 * provider is in use, and once the provider is released the pointer is invalid.
 */
typedef struct quire_bookmark_sink quire_bookmark_sink;

/**
 * Adds a copy of `bookmark` to the bookmarks a provider loads (a bookmark whose identifier
 * was already added is ignored).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments); QUIRE_ESTATE (the sink's load call has
 * returned).
 */
QUIRE_API int quire_bookmark_sink_add(quire_bookmark_sink *sink, const quire_bookmark *bookmark);

/**
 * A bookmark provider: where bookmarks are stored. The document holds an ordered chain of
 * providers (`quire_document_set_bookmark_providers`): it offers a new bookmark to each in
 * order until one accepts it, asks each in order to remove a bookmark until the one that
 * holds it does, lists the union of their bookmarks, and asks every provider to persist
 * (`save`) when the document is saved, before the file is written: a provider whose
 * `save` fails stops the save (QUIRE_EUSER, the file untouched), while a file that then
 * fails to write leaves the providers' storage ahead of it. A chain not used since it was
 * set is not asked to save. Providers are asked for their bookmarks once, on first use.
 *
 * Each callback returns 0, or non-zero to fail: the document's call then returns
 * QUIRE_EUSER with a message naming the provider and the callback. Callbacks are called on
 * the thread that called the document, never later; they must not call the document's
 * bookmark functions (those return QUIRE_ESTATE while a provider runs). The bookmarks they
 * are given are borrowed for the call.
 *
 * Initialise with QUIRE_BOOKMARK_PROVIDER_INIT and set the callbacks, or use
 * QUIRE_BOOKMARK_PROVIDER_BUILTIN_INIT for the built-in provider, which stores bookmarks
 * in the PDF (a private catalog entry, /QUIR_Bookmarks, that other viewers ignore),
 * accepts every bookmark and writes its changes into the document's unsaved changes.
 */
typedef struct quire_bookmark_provider {
    uint32_t version; /**< QUIRE_BOOKMARK_PROVIDER_VERSION */
    /** Non-zero: this entry is the built-in provider, and every callback must be NULL. */
    int32_t builtin;
    /** Required: add each stored bookmark with `quire_bookmark_sink_add`. */
    int (*load)(quire_bookmark_sink *sink, void *payload);
    /** Required: set `*accepted` non-zero to take `bookmark` (replacing a bookmark with its
     *  identifier, if the provider holds one), 0 to let the next provider have it. */
    int (*add)(int32_t *accepted, const quire_bookmark *bookmark, void *payload);
    /** Required: set `*removed` non-zero if the provider held `bookmark` (by identifier)
     *  and removed it. */
    int (*remove)(int32_t *removed, const quire_bookmark *bookmark, void *payload);
    /** Optional: persist; called when the document is saved. */
    int (*save)(void *payload);
    /** Optional: called once when the document no longer uses the provider (its chain is
     *  replaced, or the document is closed); `payload` may be freed then. */
    void (*release)(void *payload);
    void *payload; /**< passed to every callback */
} quire_bookmark_provider;

#define QUIRE_BOOKMARK_PROVIDER_VERSION 1
#define QUIRE_BOOKMARK_PROVIDER_INIT { QUIRE_BOOKMARK_PROVIDER_VERSION, 0, NULL, NULL, NULL, NULL, NULL, NULL }
#define QUIRE_BOOKMARK_PROVIDER_BUILTIN_INIT { QUIRE_BOOKMARK_PROVIDER_VERSION, 1, NULL, NULL, NULL, NULL, NULL, NULL }

/**
 * Fills `provider` with the defaults of `version` (1 up to QUIRE_BOOKMARK_PROVIDER_VERSION):
 * no callbacks, not the built-in provider (set `builtin` for that), and sets its version:
 * QUIRE_BOOKMARK_PROVIDER_INIT for bindings that cannot use the macro.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_bookmark_provider_init(quire_bookmark_provider *provider, unsigned version);

/**
 * Replaces the document's chain of bookmark providers with the `count` providers that
 * `providers` points at, in order: an array of pointers, so that the struct can grow in
 * later versions (each is read by its own `version`; the structs are copied; their
 * payloads must stay valid until `release`). The default
 * chain is the built-in provider alone. An empty chain (count 0) keeps no bookmarks.
 * The providers of the old chain are released; the new ones are asked for their
 * bookmarks on next use. On an error, the chain is unchanged and no new provider's
 * `release` is called.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL providers with a count, a NULL entry, version 0, a
 * custom provider without load, add or remove, a built-in entry with callbacks);
 * QUIRE_EVERSION (a provider of a newer version than this library knows);
 * QUIRE_ESTATE (called from a provider's callback).
 */
QUIRE_API int quire_document_set_bookmark_providers(quire_document *doc,
                                          const quire_bookmark_provider *const *providers,
                                          size_t count);

/**
 * The number of bookmarks, over all providers (loading them on first use).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EUSER (a provider failed); QUIRE_EUNSUPPORTED
 * (the document stores bookmarks in a newer format).
 */
QUIRE_API int quire_document_bookmark_count(int32_t *out, quire_document *doc);

/**
 * Bookmark `index` in `sort_order` (QUIRE_BOOKMARK_SORT_CUSTOM or QUIRE_BOOKMARK_SORT_PAGE),
 * without changing the document's state.
 * out: receives a new bookmark owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL (unknown order); QUIRE_ERANGE; QUIRE_EUSER.
 */
QUIRE_API int quire_document_bookmark(quire_bookmark **out, quire_document *doc,
                            quire_bookmark_sort_order sort_order,
                            int32_t index);

/**
 * The bookmark with `identifier`.
 * out: receives a new bookmark owned by the caller.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND; QUIRE_EUSER.
 */
QUIRE_API int quire_document_find_bookmark(quire_bookmark **out, quire_document *doc,
                                 const char *identifier);

/**
 * Adds a copy of `bookmark`, or replaces the bookmark with its identifier in place. A new
 * bookmark without a sort key gets one after every other bookmark and is offered to the
 * providers in order; a replacement goes to the provider that holds it, then down the
 * chain if that one declines.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE (a go-to bookmark past the last page, or
 * to a page missing from the page tree: see `quire_document_page_count`);
 * QUIRE_EUNSUPPORTED (no provider accepts it); QUIRE_EUSER; QUIRE_ESTATE.
 */
QUIRE_API int quire_document_add_bookmark(quire_document *doc, const quire_bookmark *bookmark);

/**
 * Removes the bookmark with `identifier` (the providers are asked in order).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND; QUIRE_EUSER; QUIRE_ESTATE.
 */
QUIRE_API int quire_document_remove_bookmark(quire_document *doc, const char *identifier);

/**
 * Moves the bookmark with `identifier` to `index` of the custom order (rewriting the sort
 * keys of the bookmarks whose place changes, through their providers).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND; QUIRE_ERANGE; QUIRE_EUSER; QUIRE_ESTATE.
 */
QUIRE_API int quire_document_move_bookmark(quire_document *doc, const char *identifier, int32_t index);

/**
 * The sort order a user interface should show this document's bookmarks in: a
 * configuration value of the open document (QUIRE_BOOKMARK_SORT_CUSTOM by default), not
 * stored in the file. It also orders `quire_document_export_bookmarks_to_outline`.
 * Returns: QUIRE_OK; QUIRE_EINVAL (unknown order).
 */
QUIRE_API int quire_document_bookmark_sort_order(quire_bookmark_sort_order *out, quire_document *doc);
QUIRE_API int quire_document_set_bookmark_sort_order(quire_document *doc,
                                           quire_bookmark_sort_order sort_order);

/** Called after each change to a document's bookmarks, on the thread that made it. */
typedef void (*quire_bookmark_change_fn)(quire_document *doc, void *payload);

/**
 * Sets the function called after each change to the bookmarks (add, replace, remove, move,
 * a new provider chain); NULL removes it.
 * Returns: QUIRE_OK; QUIRE_EINVAL.
 */
QUIRE_API int quire_document_set_bookmark_change_callback(quire_document *doc,
                                                quire_bookmark_change_fn callback,
                                                void *payload);

/**
 * Writes the bookmarks into the outline (table of contents) in the document's bookmark
 * sort order, so that other viewers show them: one top-level item each, after the
 * document's own items. Items an earlier export made are replaced, not duplicated. The
 * changes are unsaved changes, written by the next save.
 * out_count: receives the number of items written; may be NULL.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EFORMAT (the outline's top level is damaged:
 * nothing is changed); QUIRE_EUSER.
 */
QUIRE_API int quire_document_export_bookmarks_to_outline(int32_t *out_count, quire_document *doc);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_BOOKMARKS_H */
