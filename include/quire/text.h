/**
 * @file quire/text.h
 * @brief Text: extraction with positions, search, selection, highlights.
 *
 * A topic header of Quire's C interface. Programs include <quire.h>, which includes
 * every topic header; this one also compiles on its own, as it includes what it uses.
 * The conventions (status codes, ownership, strings, versioned structs) are in quire.h.
 */
#ifndef QUIRE_TEXT_H
#define QUIRE_TEXT_H

#include "common.h"
#include "document.h"
#include "annotations.h"
#include "save.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* Text: extraction with positions, search, selection, highlights                        */
/* ------------------------------------------------------------------------------------ */

/**
 * The text of one page, as Quire extracts it: characters with their Unicode text, quads
 * and font sizes, in the order the content streams show them, with the spaces and line
 * breaks Quire inserts between words and lines ("generated" characters). docs/text.md
 * describes the fonts, encodings and heuristics. A snapshot: it keeps no reference to
 * the document and stays valid after the document changes or is closed. Immutable, so it
 * may be read from any thread; free it with `quire_text_page_free`.
 */
typedef struct quire_text_page quire_text_page;

/** The matches of a text search; free with `quire_text_match_list_free`. A snapshot, like
 *  `quire_text_page`. */
typedef struct quire_text_match_list quire_text_match_list;

/** The text markup annotations made from text (ISO 32000-2 §12.5.6.10). */
typedef enum quire_text_markup {
    QUIRE_TEXT_MARKUP_HIGHLIGHT = 0x1100, /**< /Highlight */
    QUIRE_TEXT_MARKUP_UNDERLINE = 0x1101, /**< /Underline */
    QUIRE_TEXT_MARKUP_STRIKEOUT = 0x1102, /**< /StrikeOut */
    QUIRE_TEXT_MARKUP_SQUIGGLY = 0x1103   /**< /Squiggly */
} quire_text_markup;

/** The current version of `quire_text_char` (2 added `glyph_box` and `has_glyph_box`). */
#define QUIRE_TEXT_CHAR_VERSION 2

/** One character of a page's text. Initialise with QUIRE_TEXT_CHAR_INIT. */
typedef struct quire_text_char {
    /** Must be QUIRE_TEXT_CHAR_VERSION (or an older version). */
    uint32_t version;
    /** The box around the character's quad, in PDF user space: from the font's descent
     *  to its ascent, as wide as the glyph's advance (for rotated text, the axis-aligned
     *  box around the rotated quad; the quad itself: `quire_text_page_range_quads` of
     *  this one character). */
    quire_rect box;
    /** The font size in user space units (the text and current matrices applied). */
    double font_size;
    /** 1 when Quire inserted the character (a space between words, or "\n" between
     *  lines; a generated line break has an empty box at the end of its line and no
     *  quad); else 0. */
    int32_t is_generated;
    /** The line (0-based) the character is on. */
    int32_t line;
    /* Version 2: */
    /** The box of the glyph itself, in PDF user space (the axis-aligned box around it for
     *  rotated text): the bounding box of the glyph's outline in the embedded font program
     *  (TrueType `glyf`, CFF or Type 1 charstrings), or the AFM box of a non-embedded
     *  standard 14 font; what PDFium's FPDFText_GetCharBox reports. Tighter than `box`,
     *  which stays the box for highlights and selection. When neither is known (Type 3
     *  fonts, other non-embedded fonts, generated characters) it equals `box`. */
    quire_rect glyph_box;
    /** 1 when `glyph_box` comes from the glyph's outline or metrics; 0 when it is `box`. */
    int32_t has_glyph_box;
} quire_text_char;

/** Initialiser for `quire_text_char`. */
#define QUIRE_TEXT_CHAR_INIT { QUIRE_TEXT_CHAR_VERSION, {0, 0, 0, 0}, 0, 0, 0, {0, 0, 0, 0}, 0 }

/**
 * Sets `out`'s version to `version` (1 up to QUIRE_TEXT_CHAR_VERSION) and its fields to
 * zero: QUIRE_TEXT_CHAR_INIT for bindings that cannot use the macro.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_text_char_init(quire_text_char *out, unsigned version);

/** The current version of `quire_text_search_options` (2 added the progress callback; a
 *  version 1 struct, 16 bytes, is read as it is). */
#define QUIRE_TEXT_SEARCH_OPTIONS_VERSION 2

/** Options of `quire_document_search_text`. Initialise with QUIRE_TEXT_SEARCH_OPTIONS_INIT. */
typedef struct quire_text_search_options {
    /** Must be QUIRE_TEXT_SEARCH_OPTIONS_VERSION (or an older version). */
    uint32_t version;
    /** 1: match letter case exactly; 0 (the default): case-insensitive (Unicode
     *  lowercase mapping). */
    int32_t match_case;
    /** 1: only matches with no letter or digit just before or after them. */
    int32_t whole_word;
    /** Most matches returned; 0 (the default): all. */
    int32_t max_matches;
    /** Version 2: called with the pages searched and their total (a search of one page
     *  has one step); non-zero cancels with QUIRE_EUSER (see "Long operations"). NULL: no
     *  progress. */
    int (*progress)(uint64_t done, uint64_t total, void *payload);
    /** Version 2: passed to `progress`. */
    void *progress_payload;
} quire_text_search_options;

/** Initialiser for `quire_text_search_options`: case-insensitive, any position, all, no
 *  progress callback. */
#define QUIRE_TEXT_SEARCH_OPTIONS_INIT { QUIRE_TEXT_SEARCH_OPTIONS_VERSION, 0, 0, 0, NULL, NULL }

/**
 * Fills `options` with the defaults of `version` (1 up to
 * QUIRE_TEXT_SEARCH_OPTIONS_VERSION) and sets its version.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_text_search_options_init(quire_text_search_options *options, unsigned version);

/**
 * Extracts the text of page `page_index` into a new `*out` (owned by the caller). Damage
 * in the page's content ends the stream where it is, with a warning on the text page
 * (`quire_text_page_warning`); fonts the file describes badly degrade to documented
 * fallbacks. Thread: the document's.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `out` or `doc`); QUIRE_ERANGE (no such page);
 * QUIRE_EFORMAT, QUIRE_ELIMIT (the page itself cannot be read).
 */
QUIRE_API int quire_page_text_load(quire_text_page **out, quire_document *doc, int32_t page_index);

/** Releases a text page. NULL is a no-op. */
QUIRE_API void quire_text_page_free(quire_text_page *text);

/** The index of the page the text belongs to. Returns: QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_text_page_index(int32_t *out, const quire_text_page *text);

/** How many characters the page has (generated ones included). Returns: QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_text_page_char_count(int32_t *out, const quire_text_page *text);

/**
 * The page's plain text (every character's text in order, UTF-8), with the length-query
 * pattern. Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EBUFS.
 */
QUIRE_API int quire_text_page_text(char *buf, size_t buf_size, size_t *out_len, const quire_text_page *text);

/**
 * The text of the `count` characters from `first`, with the length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL (negative count); QUIRE_ERANGE (past the characters);
 * QUIRE_EBUFS.
 */
QUIRE_API int quire_text_page_range_text(char *buf, size_t buf_size, size_t *out_len,
                                         const quire_text_page *text, int32_t first, int32_t count);

/**
 * Character `index`: its box, font size, whether it is generated, its line and (version 2)
 * its glyph box, written into `*out` (whose `version` the caller sets; only that version's
 * fields are written).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_EVERSION; QUIRE_ERANGE.
 */
QUIRE_API int quire_text_page_char(quire_text_char *out, const quire_text_page *text, int32_t index);

/**
 * The Unicode text of character `index` (usually one code point; a ligature or an
 * /ActualText span may give several), with the length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_EBUFS.
 */
QUIRE_API int quire_text_page_char_text(char *buf, size_t buf_size, size_t *out_len,
                                        const quire_text_page *text, int32_t index);

/**
 * The font name (/BaseFont) of character `index`, with the length-query pattern.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_EBUFS.
 */
QUIRE_API int quire_text_page_char_font(char *buf, size_t buf_size, size_t *out_len,
                                        const quire_text_page *text, int32_t index);

/* Bulk read: every character of a page in one call (issue 41). */

/** The current version of `quire_text_char_info`. */
#define QUIRE_TEXT_CHAR_INFO_VERSION 1

/** `quire_text_char_info.flags`: Quire inserted the character (a space between words, or
 *  "\n" between lines), as `quire_text_char.is_generated`. */
#define QUIRE_TEXT_CHAR_GENERATED 0x1
/** `quire_text_char_info.flags`: `glyph_box` comes from the glyph's outline or metrics,
 *  as `quire_text_char.has_glyph_box`; without it `glyph_box` is `box`. */
#define QUIRE_TEXT_CHAR_HAS_GLYPH_BOX 0x2
/** `quire_text_char_info.flags`: `quad` holds the character's quad; without it (a
 *  generated line break) `quad` is all zero, as `quire_text_page_range_quads` gives no
 *  quad for it. */
#define QUIRE_TEXT_CHAR_HAS_QUAD 0x4

/** A quadrilateral in PDF user space, its corners in /QuadPoints order: upper-left,
 *  upper-right, lower-left, lower-right (what `quire_text_page_range_quads` gives as 8
 *  numbers). */
typedef struct quire_quad {
    double x1; /**< upper-left x */
    double y1; /**< upper-left y */
    double x2; /**< upper-right x */
    double y2; /**< upper-right y */
    double x3; /**< lower-left x */
    double y3; /**< lower-left y */
    double x4; /**< lower-right x */
    double y4; /**< lower-right y */
} quire_quad;

/**
 * One character of a page's text as `quire_text_page_char_infos` writes it into the
 * caller's buffer (the caller does not initialise it: it asks for a version in the call,
 * and the library writes that version's fields). The values are those of the per-character
 * functions (`quire_text_page_char`, `quire_text_page_char_text`, `quire_text_page_char_font`
 * and `quire_text_page_range_quads` of the one character). Structs of a later version are
 * larger: step through the buffer by `size`, never by `sizeof`.
 */
typedef struct quire_text_char_info {
    uint32_t size;        /**< the bytes of this struct in the buffer, the same for every
                               character of one call: where the next one starts */
    uint32_t version;     /**< the version written: the one the call asked for */
    uint32_t code_point;  /**< the first Unicode scalar of the character's text (most
                               characters have one; a ligature or an /ActualText span may
                               have several, read them at `text_offset`); 0 when it has none */
    uint32_t flags;       /**< QUIRE_TEXT_CHAR_GENERATED, QUIRE_TEXT_CHAR_HAS_GLYPH_BOX and
                               QUIRE_TEXT_CHAR_HAS_QUAD, or-ed together */
    int32_t font_index;   /**< the character's font among the page's, for
                               `quire_text_page_font_name`; the same index for the same
                               /BaseFont, numbered in the order the page first uses them */
    int32_t line;         /**< the line (0-based) the character is on */
    uint32_t text_offset; /**< where the character's text starts in the page's plain text
                               (`quire_text_page_text`), in bytes of its UTF-8 */
    uint32_t text_len;    /**< the length of the character's text there, in bytes */
    double font_size;     /**< the font size in user space units (`quire_text_char.font_size`) */
    quire_rect box;       /**< the box around the character's quad (`quire_text_char.box`) */
    quire_rect glyph_box; /**< the box of the glyph itself (`quire_text_char.glyph_box`) */
    quire_quad quad;      /**< its quad, as `quire_text_page_range_quads` gives it for
                               this one character; zero without QUIRE_TEXT_CHAR_HAS_QUAD */
} quire_text_char_info;

/**
 * Every character of the text page, in order, in one call, through the length-query
 * pattern: what `quire_text_page_char` and its siblings give one call per character.
 *
 *  - `buf` NULL and `buf_size` 0: `*out_len` receives the bytes of the array, and
 *    `*out_count` the number of characters; QUIRE_OK.
 *  - A buffer of at least `*out_len` bytes, aligned for a double (what malloc returns):
 *    the buffer receives `*out_count` structs of the asked version, one after the other,
 *    each `size` bytes (read the first one's `size`, or step by it). No pointer is in it:
 *    a binding may read it as an array of a struct of the same layout.
 *  - A smaller buffer gives QUIRE_EBUFS with `*out_len` set, and leaves the buffer (and
 *    `*out_count`) untouched.
 *
 * A page without text gives `*out_count` 0 and `*out_len` 0. The text page does not
 * change, so the length query and the call that fills the buffer agree.
 * version: the version of `quire_text_char_info` to write: QUIRE_TEXT_CHAR_INFO_VERSION
 *          (or an older version).
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `out_len`, `out_count` or `text`; a NULL `buf`
 * with a non-zero `buf_size`; a buffer not aligned to 8 bytes; version 0); QUIRE_EVERSION
 * (a version newer than the library's); QUIRE_EBUFS.
 */
QUIRE_API int quire_text_page_char_infos(void *buf, size_t buf_size, size_t *out_len, int32_t *out_count,
                                         const quire_text_page *text, unsigned version);

/** How many distinct fonts the page's characters use: the `font_index` values of
 *  `quire_text_page_char_infos` are below it. Returns: QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_text_page_font_count(int32_t *out, const quire_text_page *text);

/**
 * The name (/BaseFont) of font `font_index` of the page (a `quire_text_char_info.font_index`),
 * with the length-query pattern: what `quire_text_page_char_font` gives for each of its
 * characters.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE (no such font); QUIRE_EBUFS.
 */
QUIRE_API int quire_text_page_font_name(char *buf, size_t buf_size, size_t *out_len,
                                        const quire_text_page *text, int32_t font_index);

/** How many lines the page has. Returns: QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_text_page_line_count(int32_t *out, const quire_text_page *text);

/**
 * Line `index`: its first character and how many it has (without its line break).
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE.
 */
QUIRE_API int quire_text_page_line(int32_t *out_first, int32_t *out_count, const quire_text_page *text, int32_t index);

/** How many words the page has (runs of characters between white space). Returns:
 *  QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_text_page_word_count(int32_t *out, const quire_text_page *text);

/**
 * Word `index`: its first character and how many it has.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE.
 */
QUIRE_API int quire_text_page_word(int32_t *out_first, int32_t *out_count, const quire_text_page *text, int32_t index);

/**
 * The quads that cover the `count` characters from `first`: one per line they span, 8
 * numbers each in /QuadPoints order, into `buf` with the length-query pattern for numbers
 * (`capacity` and `*out_count` count doubles). These are the quads a highlight of the
 * range needs.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_EBUFS.
 */
QUIRE_API int quire_text_page_range_quads(double *buf, size_t capacity, size_t *out_count,
                                          const quire_text_page *text, int32_t first, int32_t count);

/**
 * The index of the character at point (`x`, `y`) of user space: the one whose quad holds
 * it, else the nearest. Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND (the page has no
 * text).
 */
QUIRE_API int quire_text_page_char_at(int32_t *out, const quire_text_page *text, double x, double y);

/**
 * The selection a drag from (`x0`, `y0`) to (`x1`, `y1`) makes: the characters from the
 * one at the first point to the one at the second (in either order), both included.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ENOTFOUND (the page has no text).
 */
QUIRE_API int quire_text_page_select(int32_t *out_first, int32_t *out_count, const quire_text_page *text,
                                     double x0, double y0, double x1, double y1);

/** How many warnings extracting the text gave. Returns: QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_text_page_warning_count(int32_t *out, const quire_text_page *text);

/** Warning `index`, with the length-query pattern. Returns: QUIRE_OK; QUIRE_EINVAL;
 *  QUIRE_ERANGE; QUIRE_EBUFS. */
QUIRE_API int quire_text_page_warning(char *buf, size_t buf_size, size_t *out_len,
                                      const quire_text_page *text, int32_t index);

/**
 * Searches the text of page `page_index`, or of every page when it is -1, for `query`
 * (UTF-8): case-insensitive unless asked, white space in the query matches any white
 * space (line breaks too), and a word hyphenated at a line end matches unhyphenated.
 * Matches do not overlap. `options` NULL: the defaults. `*out` is owned by the caller.
 * Thread: the document's.
 * The whole document's search covers the pages that exist (a page that /Count counts
 * but the page tree lacks has no text).
 * Returns: QUIRE_OK (also with no match: the list is then empty); QUIRE_EINVAL (NULL
 * `out`, `doc` or `query`, an empty query, a negative max_matches); QUIRE_EVERSION;
 * QUIRE_ERANGE (no such page); QUIRE_EFORMAT, QUIRE_ELIMIT (a page cannot be read);
 * QUIRE_EUSER (the progress callback cancelled: no list is made).
 */
QUIRE_API int quire_document_search_text(quire_text_match_list **out, quire_document *doc, const char *query,
                                         const quire_text_search_options *options, int32_t page_index);

/** The current version of `quire_text_options`. */
#define QUIRE_TEXT_OPTIONS_VERSION 1

/** Options of `quire_document_text`. Initialise with QUIRE_TEXT_OPTIONS_INIT. */
typedef struct quire_text_options {
    /** Must be QUIRE_TEXT_OPTIONS_VERSION (or an older version). */
    uint32_t version;
    /** Called with the pages read and their total; non-zero cancels with QUIRE_EUSER and
     *  nothing is written (see "Long operations"). NULL: no progress. */
    int (*progress)(uint64_t done, uint64_t total, void *payload);
    /** Passed to `progress`. */
    void *progress_payload;
} quire_text_options;

/** Initialiser for `quire_text_options`: no progress callback. */
#define QUIRE_TEXT_OPTIONS_INIT { QUIRE_TEXT_OPTIONS_VERSION, NULL, NULL }

/**
 * Fills `options` with the defaults of `version` (1 up to QUIRE_TEXT_OPTIONS_VERSION) and
 * sets its version.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL, or version 0); QUIRE_EVERSION (a newer version).
 */
QUIRE_API int quire_text_options_init(quire_text_options *options, unsigned version);

/**
 * The text of the whole document, as pdftotext writes it: each page's plain text (as
 * `quire_text_page_text` gives it) followed by a form feed (U+000C), so that splitting at
 * form feeds gives the pages; a page that /Count counts but the page tree lacks is empty.
 * The UTF-8 bytes go to `write`, in one or more consecutive pieces on the calling thread,
 * once every page is read: a cancelled or failed call writes nothing. `write` returns 0
 * to go on, non-zero to stop (QUIRE_EUSER).
 * options: NULL for the defaults (QUIRE_TEXT_OPTIONS_INIT).
 * payload: passed to `write`.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `doc` or `write`); QUIRE_EVERSION; QUIRE_EFORMAT,
 * QUIRE_ELIMIT (a page cannot be read); QUIRE_EUSER.
 * Thread: the document's; both callbacks are called on the calling thread.
 */
QUIRE_API int quire_document_text(quire_document *doc, const quire_text_options *options,
                                  quire_write_fn write, void *payload);

/** How many matches the list holds. Returns: QUIRE_OK; QUIRE_EINVAL. */
QUIRE_API int quire_text_match_list_count(int32_t *out, const quire_text_match_list *list);

/**
 * Match `index`: its page and the range of characters it covers there (as
 * `quire_page_text_load` numbers them). Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE.
 */
QUIRE_API int quire_text_match_list_get(int32_t *out_page_index, int32_t *out_first, int32_t *out_count,
                                        const quire_text_match_list *list, int32_t index);

/** The text of match `index` as the page has it, with the length-query pattern.
 *  Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_EBUFS. */
QUIRE_API int quire_text_match_list_text(char *buf, size_t buf_size, size_t *out_len,
                                         const quire_text_match_list *list, int32_t index);

/** The quads of match `index` (8 numbers each, /QuadPoints order), with the length-query
 *  pattern for numbers. Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE; QUIRE_EBUFS. */
QUIRE_API int quire_text_match_list_quads(double *buf, size_t capacity, size_t *out_count,
                                          const quire_text_match_list *list, int32_t index);

/** Releases a match list. NULL is a no-op. */
QUIRE_API void quire_text_match_list_free(quire_text_match_list *list);

/**
 * Creates a text markup annotation of kind `kind` over the `count` characters from
 * `first` of `text` (whose page it goes on), with /QuadPoints that cover exactly those
 * characters (one quad per line, in the order viewers read: upper-left, upper-right,
 * lower-left, lower-right), the default colour of the kind and a generated appearance,
 * through the ordinary creation path (checkpoints and the journal see it). `*out` (may
 * be NULL) receives the annotation as stored, owned by the caller. Set its colour,
 * author or contents afterwards with `quire_annotation_set_*` and
 * `quire_document_update_annotation`. Thread: the document's.
 * Returns: QUIRE_OK; QUIRE_EINVAL (NULL `doc` or `text`, a kind of another family, an
 * empty range or one of generated characters only); QUIRE_ERANGE (past the characters,
 * or the text's page is no longer in the document).
 */
QUIRE_API int quire_document_add_text_markup(quire_annotation **out, quire_document *doc,
                                             const quire_text_page *text, quire_text_markup kind,
                                             int32_t first, int32_t count);

/**
 * The text a markup annotation covers: the characters of its page whose centres lie in
 * its /QuadPoints (PSPDFKit's highlightedString), with the length-query pattern. Empty for
 * an annotation without quads. Thread: the document's.
 * Returns: QUIRE_OK; QUIRE_EINVAL; QUIRE_ERANGE (its page is not in `doc`); QUIRE_EBUFS.
 */
QUIRE_API int quire_annotation_marked_text(char *buf, size_t buf_size, size_t *out_len,
                                           quire_document *doc, const quire_annotation *annotation);

#ifdef __cplusplus
}
#endif

#endif /* QUIRE_TEXT_H */
