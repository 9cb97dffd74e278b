/**
 * @file quire/forms.h
 * @brief Forms: AcroForm fields, their values and appearances, flattening, XFDF.
 *
 * A topic header of Quire's C interface. Programs include <quire.h>, which includes
 * every topic header; this one also compiles on its own, as it includes what it uses.
 * The conventions (status codes, ownership, strings, versioned structs) are in quire.h.
 */
#ifndef QUIRE_FORMS_H
#define QUIRE_FORMS_H

#include "common.h"
#include "document.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* Forms: AcroForm fields, their values and appearances                                  */
/* ------------------------------------------------------------------------------------ */

/*
 * The terminal fields of a document's interactive form (ISO 32000-2 §12.7), addressed by
 * their index in tree order (depth first, /Kids order), from 0 to
 * `quire_document_field_count` - 1. The indices are those of the field tree as it is:
 * setting values does not change them. The tree is read once and kept until the document
 * changes (any edit, through any function; a save; a checkpoint loaded), so reading every
 * field costs one walk of the tree, and what one call reports is always the document's
 * current state.
 *
 * Values follow the rules of §12.7: read-only fields are refused, /MaxLen is enforced,
 * check boxes and radio buttons take "Off" or one of their on-states, choice fields one of
 * their options (any text in an editable combo box), list boxes several only with
 * MultiSelect. Setting a value regenerates the normal appearance of each widget of the
 * field (text from /DA: font, size, auto size, colour; /Q alignment; multiline, comb,
 * password; written in the encoding of the /DR font that /DA names, or in WinAnsiEncoding
 * with Helvetica; a field without /DA gets "/Helv 0 Tf 0 g" written into it), so viewers
 * that draw only appearances show it. The changes go through the
 * document's editing path (saved, journalled by checkpoints). XFA forms are reported by
 * `quire_document_form_kind` and never filled; JavaScript is never run.
 *
 * Thread safety: as the document.
 */

/** The kind of form a document has, from `quire_document_form_kind`. */
typedef enum quire_form_kind {
    QUIRE_FORM_NONE = 0x1A00,           /**< no /AcroForm, or one without fields */
    QUIRE_FORM_ACROFORM = 0x1A01,       /**< an AcroForm */
    QUIRE_FORM_XFA_FOREGROUND = 0x1A02, /**< AcroForm fields and an /XFA form (XFA viewers show the XFA) */
    QUIRE_FORM_XFA_ONLY = 0x1A03        /**< /XFA without AcroForm fields: nothing to fill */
} quire_form_kind;

/** The kind of a field (its type, §12.7.5), from `quire_field_get_kind`. */
typedef enum quire_field_kind {
    QUIRE_FIELD_TEXT = 0x1B00,
    QUIRE_FIELD_CHECK_BOX = 0x1B01,
    QUIRE_FIELD_RADIO_BUTTON = 0x1B02, /**< a radio group: one field, a widget per button */
    QUIRE_FIELD_COMBO_BOX = 0x1B03,
    QUIRE_FIELD_LIST_BOX = 0x1B04,
    QUIRE_FIELD_PUSH_BUTTON = 0x1B05,  /**< no value */
    QUIRE_FIELD_SIGNATURE = 0x1B06,    /**< read-only information: value "signed" or none */
    QUIRE_FIELD_UNKNOWN = 0x1B07       /**< no or an unknown /FT: listed, never changed */
} quire_field_kind;

/** The two texts of a field option, for `quire_field_option`. */
typedef enum quire_field_option_part {
    QUIRE_FIELD_OPTION_EXPORT = 0x1C00, /**< the export value: what the field's value holds */
    QUIRE_FIELD_OPTION_DISPLAY = 0x1C01 /**< the text shown to the user */
} quire_field_option_part;

/** Field flags (/Ff, §12.7.4.1): bits of `quire_field_flags` (bit n is 1 << (n - 1) in the
 *  standard's numbering: read-only is bit 1). */
#define QUIRE_FIELD_FLAG_READ_ONLY 0x1
#define QUIRE_FIELD_FLAG_REQUIRED 0x2
#define QUIRE_FIELD_FLAG_NO_EXPORT 0x4
#define QUIRE_FIELD_FLAG_MULTILINE 0x1000
#define QUIRE_FIELD_FLAG_PASSWORD 0x2000
#define QUIRE_FIELD_FLAG_NO_TOGGLE_TO_OFF 0x4000
#define QUIRE_FIELD_FLAG_EDIT 0x40000
#define QUIRE_FIELD_FLAG_MULTI_SELECT 0x200000
#define QUIRE_FIELD_FLAG_COMB 0x1000000

/**
 * What kind of form the document has.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EFORMAT (no usable catalog).
 */
QUIRE_API int quire_document_form_kind(quire_form_kind *out, quire_document *doc);

/**
 * The number of terminal fields of the form (0 without one).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ELIMIT (a field tree deeper than 32 levels or of
 * more than 200,000 dictionaries). A cycle in the tree is not an error: each field is
 * listed once, with a warning.
 */
QUIRE_API int quire_document_field_count(int32_t *out, quire_document *doc);

/**
 * The index of the field whose fully qualified name is `name` (NUL-terminated UTF-8).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND; QUIRE_ELIMIT.
 */
QUIRE_API int quire_document_field_index(int32_t *out, quire_document *doc, const char *name);

/**
 * The fully qualified name of field `index`: the partial names (/T) from the root, joined
 * with periods. Length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_EBUFS; QUIRE_ELIMIT.
 */
QUIRE_API int quire_field_name(char *buf, size_t buf_size, size_t *out_len, quire_document *doc, int32_t index);

/** The kind of field `index` (named `get_kind` because a C function cannot have the name of the
 *  type it gives). Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ELIMIT. */
QUIRE_API int quire_field_get_kind(quire_field_kind *out, quire_document *doc, int32_t index);

/**
 * The flags (/Ff, inherited) of field `index`: QUIRE_FIELD_FLAG_* bits, and the other bits
 * of Table 226 as they are in the file.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ELIMIT.
 */
QUIRE_API int quire_field_flags(uint32_t *out, quire_document *doc, int32_t index);

/**
 * /MaxLen of text field `index` (inherited), or -1 when it has none (also for other types).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ELIMIT.
 */
QUIRE_API int quire_field_max_length(int32_t *out, quire_document *doc, int32_t index);

/**
 * The number of values of field `index`: 0 when unset, 1 for text, combo boxes and buttons
 * (a button that is off has the value "Off"), any number for a multi-select list box.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ELIMIT.
 */
QUIRE_API int quire_field_value_count(int32_t *out, quire_document *doc, int32_t index);

/**
 * Value `value_index` of field `index` (export values for choices and buttons).
 * Length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE (either index); QUIRE_EBUFS; QUIRE_ELIMIT.
 */
QUIRE_API int quire_field_value(char *buf, size_t buf_size, size_t *out_len, quire_document *doc,
                                int32_t index, int32_t value_index);

/**
 * The number of options of field `index`: the choices (/Opt) of a combo or list box; the
 * on-states of a check box or radio group (their display text is the /Opt export value
 * when the field has /Opt); 0 for other types.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ELIMIT.
 */
QUIRE_API int quire_field_option_count(int32_t *out, quire_document *doc, int32_t index);

/**
 * One text of option `option_index` of field `index`. Length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL (also an unknown `part`); QUIRE_ERANGE; QUIRE_EBUFS;
 * QUIRE_ELIMIT.
 */
QUIRE_API int quire_field_option(char *buf, size_t buf_size, size_t *out_len, quire_document *doc,
                                 int32_t index, int32_t option_index, quire_field_option_part part);

/** The number of widgets (annotations on pages) of field `index`.
 *  Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ELIMIT. */
QUIRE_API int quire_field_widget_count(int32_t *out, quire_document *doc, int32_t index);

/**
 * Widget `widget_index` of field `index`: its page (-1 when no page lists it; may be NULL)
 * and its /Rect (may be NULL).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ELIMIT.
 */
QUIRE_API int quire_field_widget(int32_t *out_page_index, quire_rect *out_rect, quire_document *doc,
                                 int32_t index, int32_t widget_index);

/**
 * Sets the value of field `index` to `value` (NUL-terminated UTF-8) and regenerates its
 * widgets' appearances. For a list box, one selected option (use
 * `quire_field_set_values` for several).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL arguments, a value that is not a state or an
 * option of the field); QUIRE_ERANGE (the index; a text longer than /MaxLen); QUIRE_ESTATE
 * (a read-only field; turning off a radio group with NoToggleToOff); QUIRE_EUNSUPPORTED
 * (push buttons, signatures, fields of unknown type); QUIRE_ELIMIT.
 */
QUIRE_API int quire_field_set_value(quire_document *doc, int32_t index, const char *value);

/**
 * Sets the values of field `index` to the `count` strings of `values` (several only for a
 * multi-select list box; 0 clears a list box's selection) and regenerates its widgets'
 * appearances. Returns: as `quire_field_set_value`.
 */
QUIRE_API int quire_field_set_values(quire_document *doc, int32_t index, const char *const *values, int32_t count);

/**
 * Resets field `index` to its default value (/DV), or clears it when it has none, and
 * regenerates its appearances.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_ESTATE (read-only); QUIRE_ELIMIT.
 */
QUIRE_API int quire_field_reset(quire_document *doc, int32_t index);

/** The current version of `quire_flatten_options`. */
#define QUIRE_FLATTEN_OPTIONS_VERSION 1

/** Options of `quire_document_flatten`. Initialise with QUIRE_FLATTEN_OPTIONS_INIT. */
typedef struct quire_flatten_options {
    /** Must be QUIRE_FLATTEN_OPTIONS_VERSION (or an older version). */
    uint32_t version;
    /** NULL (the default) for every subtype but Link and Popup, or a comma-separated list
     *  of subtype names ("Widget", "Highlight,Ink", ...); read during the call only. */
    const char *subtypes;
    /** Non-zero (the default) keeps links on the pages; 0 removes them too. */
    int32_t keep_links;
    /** Called on the calling thread with the pages done and their total (the last call
     *  with done == total); return non-zero to cancel: the call returns QUIRE_EUSER and
     *  the document is as it was. NULL: no progress (see "Long operations"). */
    int (*progress)(uint64_t done, uint64_t total, void *payload);
    /** Passed to `progress`. */
    void *progress_payload;
} quire_flatten_options;

/** Initialiser for `quire_flatten_options`: every subtype but Link and Popup, links kept,
 *  no progress callback. */
#define QUIRE_FLATTEN_OPTIONS_INIT { QUIRE_FLATTEN_OPTIONS_VERSION, NULL, 1, NULL, NULL }

/**
 * Fills `options` with the defaults of `version` (1 up to QUIRE_FLATTEN_OPTIONS_VERSION)
 * and sets its version: QUIRE_FLATTEN_OPTIONS_INIT for bindings that cannot use the macro.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_flatten_options_init(quire_flatten_options *options, unsigned version);

/**
 * Flattens annotations: burns the normal appearance of each chosen, visible annotation
 * (form field widgets included) into its page's content, as a form XObject placed with
 * the matrix of ISO 32000-2 §12.5.5, and removes it from the page. Popups, replies (/IRT)
 * and hidden annotations of the chosen subtypes are removed without being drawn. When no
 * widget remains, the form (/AcroForm) is removed, so nothing stays editable. All or
 * nothing: on an error or a cancel, the document is as it was.
 * options: NULL for the defaults (QUIRE_FLATTEN_OPTIONS_INIT): which subtypes, whether
 * links stay, and a progress callback.
 * out_count: receives the number of annotations drawn; may be NULL.
 * Returns: QUIRE_OK; QUIRE_EINVAL (also an options version of 0); QUIRE_EVERSION;
 * QUIRE_EFORMAT (a page tree that cannot be read); QUIRE_ELIMIT; QUIRE_EUSER (the
 * progress callback cancelled).
 * Thread: the document's; `progress` is called on the calling thread.
 */
QUIRE_API int quire_document_flatten(int32_t *out_count, quire_document *doc, const quire_flatten_options *options);

/**
 * The document's annotations (but links, popups and widgets), with replies (`inreplyto`,
 * by /NM) and review states, and its field values, as XFDF (ISO 19444-1, as Acrobat and
 * PDFTron write it): UTF-8 XML. Length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EBUFS; QUIRE_ELIMIT.
 */
QUIRE_API int quire_document_export_xfdf(char *buf, size_t buf_size, size_t *out_len, quire_document *doc);

/**
 * Imports `length` bytes of XFDF: an annotation whose `name` (/NM) is already on its page
 * is updated, any other is added; replies are linked by `inreplyto`; field values are set
 * with the rules of `quire_field_set_value` (a value a field refuses is a warning of the
 * document, not an error). No document type declaration is accepted, so no entity is
 * ever expanded or fetched. All or nothing: on an error, nothing is imported.
 * `quire_document_import_annotations` does the same with a progress callback.
 * out_count: receives the number of annotations added or updated and field values set;
 * may be NULL.
 * Returns: QUIRE_OK; QUIRE_EINVAL (also an annotation the rules refuse); QUIRE_EFORMAT
 * (not well-formed XML, a DOCTYPE, an annotation without page or rect, a reply to a name
 * that is nowhere); QUIRE_ELIMIT (more than 64 MiB, 64 levels or 1,000,000 elements).
 */
QUIRE_API int quire_document_import_xfdf(int32_t *out_count, quire_document *doc, const char *xfdf, size_t length);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_FORMS_H */
