/*
 * header_c99.c: include/quire.h compiles on its own, as C99 (this file) and as C++11
 * (header_cxx.cpp includes this file), with -Wall -Wextra -Werror -pedantic, and every
 * function and macro it declares can be used.
 *
 * - quire.h is included first, so it must be self-contained, and twice, so its include
 *   guard must work.
 * - Every declared function is put into `quire_header_api_table` through a member of the
 *   exact type this file expects: a signature that changes in the header fails to compile
 *   here, which is the point (a changed signature is an ABI change: see abi_check.sh).
 * - The Makefile checks that the table covers the header: `nm -u` of the object must list
 *   exactly the functions that scripts/quire_header.py reads from quire.h (for the C++ object
 *   this also proves the extern "C" guard: without it the names would be mangled), and
 *   `quire_header.py --check-uses` checks that every function, macro and typedef
 *   occurs here.
 * - Every macro is used, in constant expressions where the C standard allows it; the
 *   versioned-struct initialisers (QUIRE_OPEN_OPTIONS_INIT, QUIRE_SAVE_OPTIONS_INIT,
 *   QUIRE_BOOKMARK_PROVIDER_INIT, QUIRE_BOOKMARK_PROVIDER_BUILTIN_INIT,
 *   QUIRE_CHECKPOINT_OPTIONS_INIT, QUIRE_SYNC_CONFIG_INIT) are
 *   used at file scope (constant initialisers) and on the stack, and -Wextra's
 *   -Wmissing-field-initializers proves they name every field.
 * - The layouts of the structs (quire_rect, quire_open_options, quire_save_options,
 *   quire_bookmark_provider, quire_checkpoint_options, quire_sync_config,
 *   quire_sync_header) and the exact types of the callback
 *   typedefs (quire_write_fn, quire_bookmark_change_fn, the provider's members,
 *   quire_checkpoint_done_fn, quire_sync_completion) are pinned at compile time.
 * - When linked against libquire and run, main() checks the macros' values at run time.
 *
 * Only the common subset of C99 and C++11 is used here (no designated initialisers, no
 * casts, so that the C++ build can add -Wold-style-cast).
 */
#include "quire.h"
#include "quire.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Every function of quire.h with the signature these tests expect:
 * X(name, return type, parameter list). */
#define QUIRE_API_FUNCTIONS(X)                                                                     \
    X(quire_version, const char *, (void))                                                         \
    X(quire_version_number, int32_t, (void))                                                       \
    X(quire_build_info, int, (char *, size_t, size_t *))                                           \
    X(quire_status_string, const char *, (int))                                                    \
    X(quire_last_error_message, const char *, (void))                                              \
    X(quire_last_error_code, int, (void))                                                          \
    X(quire_clear_error, void, (void))                                                             \
    X(quire_open_options_init, int, (quire_open_options *, unsigned))                              \
    X(quire_document_open, int, (quire_document **, const char *, const quire_open_options *))     \
    X(quire_document_open_memory, int,                                                             \
      (quire_document **, const void *, size_t, const quire_open_options *))                       \
    X(quire_file_access_init, int, (quire_file_access *, unsigned))                                \
    X(quire_document_open_callback, int,                                                           \
      (quire_document **, const quire_file_access *, const quire_open_options *))                  \
    X(quire_document_close, void, (quire_document *))                                              \
    X(quire_document_page_count, int, (int32_t *, quire_document *))                               \
    X(quire_document_pdf_version, int, (int32_t *, int32_t *, quire_document *))                   \
    X(quire_document_is_encrypted, int, (int32_t *, quire_document *))                             \
    X(quire_document_is_repaired, int, (int32_t *, quire_document *))                              \
    X(quire_document_warning_count, int, (int32_t *, quire_document *))                            \
    X(quire_document_warning, int, (char *, size_t, size_t *, quire_document *, int32_t))          \
    X(quire_document_metadata_count, int, (int32_t *, quire_document *))                           \
    X(quire_document_metadata_key, int, (char *, size_t, size_t *, quire_document *, int32_t))     \
    X(quire_document_metadata, int, (char *, size_t, size_t *, quire_document *, const char *))    \
    X(quire_document_xref_form, int, (quire_xref_form *, quire_document *))                        \
    X(quire_document_object_count, int, (int32_t *, quire_document *))                             \
    X(quire_document_is_linearized, int, (int32_t *, quire_document *))                            \
    X(quire_document_encryption, int,                                                              \
      (quire_encryption_method *, int32_t *, uint32_t *, int32_t *, quire_document *))             \
    X(quire_document_outline_count, int, (int32_t *, quire_document *))                            \
    X(quire_document_outline_item, int,                                                            \
      (int32_t *, int32_t *, int32_t *, int32_t *, quire_action_type *, int32_t *,                 \
       quire_document *, int32_t))                                                                 \
    X(quire_document_outline_title, int, (char *, size_t, size_t *, quire_document *, int32_t))    \
    X(quire_document_outline_target, int, (char *, size_t, size_t *, quire_document *, int32_t))   \
    X(quire_page_label, int, (char *, size_t, size_t *, quire_document *, int32_t))                \
    X(quire_value_free, void, (quire_value *))                                                     \
    X(quire_document_trailer, int, (quire_value **, quire_document *))                             \
    X(quire_document_object, int, (quire_value **, quire_document *, int32_t))                     \
    X(quire_document_resolve, int, (quire_value **, quire_document *, const quire_value *))        \
    X(quire_value_get_kind, int, (quire_value_kind *, const quire_value *))                        \
    X(quire_value_bool, int, (int32_t *, const quire_value *))                                     \
    X(quire_value_integer, int, (int64_t *, const quire_value *))                                  \
    X(quire_value_number, int, (double *, const quire_value *))                                    \
    X(quire_value_reference, int, (int32_t *, int32_t *, const quire_value *))                     \
    X(quire_value_bytes, int, (char *, size_t, size_t *, const quire_value *))                     \
    X(quire_value_text, int, (char *, size_t, size_t *, const quire_value *))                      \
    X(quire_value_count, int, (int32_t *, const quire_value *))                                    \
    X(quire_value_array_get, int, (quire_value **, const quire_value *, int32_t))                  \
    X(quire_value_dict_key, int, (char *, size_t, size_t *, const quire_value *, int32_t))         \
    X(quire_value_dict_get, int, (quire_value **, const quire_value *, const char *))              \
    X(quire_value_to_pdf, int, (char *, size_t, size_t *, const quire_value *))                    \
    X(quire_value_parse, int, (quire_value **, const char *, size_t))                              \
    X(quire_document_stream_data, int,                                                             \
      (char *, size_t, size_t *, quire_document *, const quire_value *, quire_stream_form))        \
    X(quire_document_set_object, int, (quire_document *, int32_t, const quire_value *))            \
    X(quire_document_set_dict_value, int,                                                          \
      (quire_document *, int32_t, const char *, const quire_value *))                              \
    X(quire_document_add_object, int, (int32_t *, quire_document *, const quire_value *))          \
    X(quire_document_add_stream, int,                                                              \
      (int32_t *, quire_document *, const quire_value *, const void *, size_t))                    \
    X(quire_document_delete_object, int, (quire_document *, int32_t))                              \
    X(quire_document_has_unsaved_changes, int, (int32_t *, quire_document *))                      \
    X(quire_save_options_init, int, (quire_save_options *, unsigned))                              \
    X(quire_document_save, int, (quire_document *, const quire_save_options *, const char *))      \
    X(quire_document_save_to_callback, int,                                                        \
      (quire_document *, const quire_save_options *, quire_write_fn, void *))                      \
    X(quire_page_box, int, (quire_rect *, quire_document *, int32_t, quire_box))                   \
    X(quire_page_rotation, int, (int32_t *, quire_document *, int32_t))                            \
    X(quire_page_annotation_count, int, (int32_t *, quire_document *, int32_t))                    \
    X(quire_page_report_free, void, (quire_page_report *))                                         \
    X(quire_page_report_renamed_count, int, (int32_t *, const quire_page_report *))                \
    X(quire_page_report_renamed, int,                                                              \
      (char *, size_t, size_t *, const quire_page_report *, int32_t, int32_t))                     \
    X(quire_page_report_warning_count, int, (int32_t *, const quire_page_report *))                \
    X(quire_page_report_warning, int,                                                              \
      (char *, size_t, size_t *, const quire_page_report *, int32_t))                              \
    X(quire_document_insert_pages, int,                                                            \
      (quire_document *, int32_t, int32_t, const quire_rect *, int32_t))                           \
    X(quire_document_delete_pages, int,                                                            \
      (quire_page_report **, quire_document *, const int32_t *, size_t))                           \
    X(quire_document_move_pages, int, (quire_document *, const int32_t *, size_t, int32_t))        \
    X(quire_document_rotate_pages, int, (quire_document *, const int32_t *, size_t, int32_t))      \
    X(quire_document_set_page_box, int,                                                            \
      (quire_document *, const int32_t *, size_t, quire_box, const quire_rect *))                  \
    X(quire_document_import_pages, int,                                                            \
      (quire_page_report **, quire_document *, quire_document *, const int32_t *, size_t,          \
       int32_t))                                                                                   \
    X(quire_document_extract_pages, int,                                                           \
      (quire_document **, quire_document *, const int32_t *, size_t))                              \
    X(quire_encryption_options_init, int, (quire_encryption_options *, unsigned))                  \
    X(quire_document_set_encryption, int,                                                          \
      (quire_document *, const quire_encryption_options *, const char *))                          \
    X(quire_page_device_to_page, int,                                                              \
      (double *, double *, quire_document *, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, \
       double, double))                                                                            \
    X(quire_page_page_to_device, int,                                                              \
      (double *, double *, quire_document *, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, \
       double, double))                                                                            \
    X(quire_page_hit_test, int,                                                                    \
      (quire_hit_kind *, int32_t *, quire_document *, int32_t, double, double, double))            \
    X(quire_page_hit_test_text, int,                                                               \
      (int32_t *, quire_document *, int32_t, double, double, double))                              \
    X(quire_tool_callbacks_init, int, (quire_tool_callbacks *, unsigned))                          \
    X(quire_tool_style_init, int, (quire_tool_style *, unsigned))                                  \
    X(quire_tool_manager_new, int,                                                                 \
      (quire_tool_manager **, quire_document *, const quire_tool_callbacks *))                     \
    X(quire_tool_manager_free, void, (quire_tool_manager *))                                       \
    X(quire_tool_manager_set_style, int, (quire_tool_manager *, const quire_tool_style *))         \
    X(quire_tool_manager_set_tool, int, (quire_tool_manager *, quire_tool))                        \
    X(quire_tool_manager_current_tool, int, (quire_tool *, quire_tool_manager *))                  \
    X(quire_tool_manager_send, int,                                                                \
      (int32_t *, quire_tool_manager *, quire_pointer_kind, int32_t, double, double))              \
    X(quire_tool_manager_selection, int, (int32_t *, quire_tool_manager *))                        \
    X(quire_tool_manager_delete_selection, int, (quire_tool_manager *))                            \
    X(quire_tool_manager_set_measurement, int,                                                     \
      (quire_tool_manager *, double, const char *, double, const char *, int32_t))                 \
    X(quire_tool_manager_move_selection, int,                                                      \
      (int32_t *, quire_tool_manager *, quire_annot_order))                                        \
    X(quire_tool_manager_set_stamp_image, int,                                                     \
      (quire_tool_manager *, const void *, size_t, const char *))                                  \
    X(quire_tool_manager_set_attachment, int,                                                      \
      (quire_tool_manager *, const void *, size_t, const char *, const char *, const char *))      \
    X(quire_tool_manager_set_selection_contents, int, (quire_tool_manager *, const char *))        \
    X(quire_tool_manager_set_field_value, int, (quire_tool_manager *, const char *))               \
    X(quire_custom_tool_init, int, (quire_custom_tool *, unsigned))                                \
    X(quire_tool_manager_register_tool, int, (quire_tool_manager *, const quire_custom_tool *))    \
    X(quire_tool_manager_set_custom_tool, int, (quire_tool_manager *, const char *))               \
    X(quire_tool_manager_commit, int, (quire_tool_manager *))                                      \
    X(quire_tool_manager_undo, int, (int32_t *, quire_tool_manager *))                             \
    X(quire_tool_manager_redo, int, (int32_t *, quire_tool_manager *))                             \
    X(quire_pointer_event_init, int, (quire_pointer_event *, unsigned))                            \
    X(quire_tool_manager_send_event, int,                                                          \
      (int32_t *, quire_tool_manager *, const quire_pointer_event *))                              \
    X(quire_tool_manager_style, int, (quire_tool_style *, quire_tool_manager *))                   \
    X(quire_tool_manager_selection_count, int, (int32_t *, quire_tool_manager *))                  \
    X(quire_tool_manager_selection_at, int, (int32_t *, quire_tool_manager *, int32_t))            \
    X(quire_tool_manager_select, int, (quire_tool_manager *, int32_t, quire_selection_mode))       \
    X(quire_tool_manager_select_rect, int,                                                         \
      (int32_t *, quire_tool_manager *, int32_t, const quire_rect *, quire_selection_mode))        \
    X(quire_tool_manager_selection_handles, int,                                                   \
      (double *, size_t, size_t *, quire_tool_manager *))                                          \
    X(quire_tool_preview_init, int, (quire_tool_preview *, unsigned))                              \
    X(quire_tool_manager_preview, int, (quire_tool_preview *, quire_tool_manager *))               \
    X(quire_tool_manager_preview_path, int,                                                        \
      (double *, size_t, size_t *, quire_tool_manager *, int32_t))                                 \
    X(quire_tool_manager_history_count, int, (int32_t *, quire_tool_manager *, quire_history))     \
    X(quire_tool_manager_step_description, int,                                                    \
      (char *, size_t, size_t *, quire_tool_manager *, quire_history, int32_t))                    \
    X(quire_tool_manager_reply, int, (int32_t *, quire_tool_manager *, const char *))              \
    X(quire_tool_manager_set_state, int,                                                           \
      (int32_t *, quire_tool_manager *, const char *, const char *))                               \
    X(quire_annotation_new, int, (quire_annotation **, const char *, int32_t, const quire_rect *)) \
    X(quire_annotation_free, void, (quire_annotation *))                                           \
    X(quire_page_annotation, int, (quire_annotation **, quire_document *, int32_t, int32_t))       \
    X(quire_document_annotation, int, (quire_annotation **, quire_document *, int32_t))            \
    X(quire_annotation_id, int, (int32_t *, const quire_annotation *))                             \
    X(quire_annotation_page_index, int, (int32_t *, const quire_annotation *))                     \
    X(quire_annotation_subtype, int, (char *, size_t, size_t *, const quire_annotation *))         \
    X(quire_annotation_rect, int, (quire_rect *, const quire_annotation *))                        \
    X(quire_annotation_set_rect, int, (quire_annotation *, const quire_rect *))                    \
    X(quire_annotation_string, int,                                                                \
      (char *, size_t, size_t *, const quire_annotation *, quire_annot_string_field))              \
    X(quire_annotation_set_string, int,                                                            \
      (quire_annotation *, quire_annot_string_field, const char *))                                \
    X(quire_annotation_number, int,                                                                \
      (double *, const quire_annotation *, quire_annot_number_field))                              \
    X(quire_annotation_set_number, int, (quire_annotation *, quire_annot_number_field, double))    \
    X(quire_annotation_color, int,                                                                 \
      (double *, size_t, size_t *, const quire_annotation *, quire_annot_color_field))             \
    X(quire_annotation_set_color, int,                                                             \
      (quire_annotation *, quire_annot_color_field, const double *, size_t))                       \
    X(quire_annotation_points, int,                                                                \
      (double *, size_t, size_t *, const quire_annotation *, quire_annot_points_field))            \
    X(quire_annotation_set_points, int,                                                            \
      (quire_annotation *, quire_annot_points_field, const double *, size_t))                      \
    X(quire_annotation_set_image, int, (quire_annotation *, const void *, size_t, const char *))   \
    X(quire_annotation_set_file, int,                                                              \
      (quire_annotation *, const void *, size_t, const char *, const char *, const char *))        \
    X(quire_annotation_set_measurement, int,                                                       \
      (quire_annotation *, double, const char *, double, const char *, int32_t))                   \
    X(quire_document_annotation_file, int, (char *, size_t, size_t *, quire_document *, int32_t))  \
    X(quire_document_annotation_record_id, int,                                                    \
      (char *, size_t, size_t *, quire_document *, const quire_annotation *))                      \
    X(quire_document_annotation_by_record_id, int,                                                 \
      (quire_annotation **, quire_document *, const char *))                                       \
    X(quire_annotation_ink_stroke_count, int, (int32_t *, const quire_annotation *))               \
    X(quire_annotation_ink_stroke, int,                                                            \
      (double *, size_t, size_t *, const quire_annotation *, int32_t))                             \
    X(quire_annotation_add_ink_stroke, int, (quire_annotation *, const double *, size_t))          \
    X(quire_annotation_is_reply, int, (int32_t *, const quire_annotation *))                       \
    X(quire_annotation_in_reply_to, int, (int32_t *, const quire_annotation *))                    \
    X(quire_document_add_annotation, int, (quire_document *, quire_annotation *))                  \
    X(quire_document_update_annotation, int, (quire_document *, quire_annotation *))               \
    X(quire_document_delete_annotation, int, (quire_document *, int32_t))                          \
    X(quire_document_move_annotation, int,                                                         \
      (int32_t *, quire_document *, int32_t, quire_annot_order))                                   \
    X(quire_document_add_reply, int,                                                               \
      (quire_annotation **, quire_document *, int32_t, const char *, const char *))                \
    X(quire_document_add_state_reply, int,                                                         \
      (quire_annotation **, quire_document *, int32_t, const char *, const char *, const char *))  \
    X(quire_document_set_in_reply_to, int, (quire_document *, int32_t, int32_t))                   \
    X(quire_document_set_replies_enabled, int, (quire_document *, int32_t))                        \
    X(quire_document_replies_enabled, int, (int32_t *, quire_document *))                          \
    X(quire_document_comments, int, (quire_annotation_list **, quire_document *, int32_t))         \
    X(quire_document_review_summary, int,                                                          \
      (quire_annotation_list **, quire_annotation_list **, quire_document *, int32_t))             \
    X(quire_document_search_annotations, int,                                                      \
      (quire_annotation_list **, quire_document *, const char *))                                  \
    X(quire_annotation_list_count, int, (int32_t *, const quire_annotation_list *))                \
    X(quire_annotation_list_get, int,                                                              \
      (quire_annotation **, const quire_annotation_list *, int32_t))                               \
    X(quire_annotation_list_free, void, (quire_annotation_list *))                                 \
    X(quire_page_annotation_infos, int,                                                            \
      (void *, size_t, size_t *, int32_t *, quire_document *, int32_t, unsigned))                  \
    X(quire_page_annotations, int, (quire_annotation_list **, quire_document *, int32_t))          \
    X(quire_annotation_list_infos, int,                                                            \
      (void *, size_t, size_t *, int32_t *, const quire_annotation_list *, unsigned))              \
    X(quire_document_export_annotations_json, int,                                                 \
      (char *, size_t, size_t *, quire_document *, int32_t))                                       \
    X(quire_document_export_annotations_json_instant_comments, int,                                \
      (char *, size_t, size_t *, quire_document *, int32_t))                                       \
    X(quire_document_import_annotations_json, int,                                                 \
      (int32_t *, quire_document *, const char *, size_t))                                         \
    X(quire_document_form_kind, int, (quire_form_kind *, quire_document *))                        \
    X(quire_document_field_count, int, (int32_t *, quire_document *))                              \
    X(quire_document_field_index, int, (int32_t *, quire_document *, const char *))                \
    X(quire_field_name, int, (char *, size_t, size_t *, quire_document *, int32_t))                \
    X(quire_field_get_kind, int, (quire_field_kind *, quire_document *, int32_t))                  \
    X(quire_field_flags, int, (uint32_t *, quire_document *, int32_t))                             \
    X(quire_field_max_length, int, (int32_t *, quire_document *, int32_t))                         \
    X(quire_field_value_count, int, (int32_t *, quire_document *, int32_t))                        \
    X(quire_field_value, int, (char *, size_t, size_t *, quire_document *, int32_t, int32_t))      \
    X(quire_field_option_count, int, (int32_t *, quire_document *, int32_t))                       \
    X(quire_field_option, int,                                                                     \
      (char *, size_t, size_t *, quire_document *, int32_t, int32_t, quire_field_option_part))     \
    X(quire_field_widget_count, int, (int32_t *, quire_document *, int32_t))                       \
    X(quire_field_widget, int, (int32_t *, quire_rect *, quire_document *, int32_t, int32_t))      \
    X(quire_field_set_value, int, (quire_document *, int32_t, const char *))                       \
    X(quire_field_set_values, int, (quire_document *, int32_t, const char *const *, int32_t))      \
    X(quire_field_reset, int, (quire_document *, int32_t))                                         \
    X(quire_document_add_font, int, (quire_document *, const char *))                              \
    X(quire_flatten_options_init, int, (quire_flatten_options *, unsigned))                        \
    X(quire_document_flatten, int, (int32_t *, quire_document *, const quire_flatten_options *))   \
    X(quire_page_add_redaction, int,                                                               \
      (quire_annotation **, quire_document *, int32_t, const double *, size_t, const double *,     \
       size_t, const char *))                                                                      \
    X(quire_document_add_redactions_matching, int,                                                 \
      (int32_t *, quire_document *, const char *, const quire_text_search_options *,               \
       const double *, size_t, const char *))                                                      \
    X(quire_redaction_options_init, int, (quire_redaction_options *, unsigned))                    \
    X(quire_document_apply_redactions, int,                                                        \
      (quire_redaction_result *, quire_document *, const quire_redaction_options *))               \
    X(quire_document_export_xfdf, int, (char *, size_t, size_t *, quire_document *))               \
    X(quire_document_import_xfdf, int, (int32_t *, quire_document *, const char *, size_t))        \
    X(quire_export_options_init, int, (quire_export_options *, unsigned))                          \
    X(quire_document_export_annotations, int,                                                      \
      (quire_document *, const quire_export_options *, quire_write_fn, void *))                    \
    X(quire_import_options_init, int, (quire_import_options *, unsigned))                          \
    X(quire_document_import_annotations, int,                                                      \
      (int32_t *, quire_document *, const quire_import_options *, const void *, size_t))           \
    X(quire_bookmark_new, int, (quire_bookmark **, quire_action_type, int32_t, const char *))      \
    X(quire_bookmark_copy, int, (quire_bookmark **, const quire_bookmark *))                       \
    X(quire_bookmark_free, void, (quire_bookmark *))                                               \
    X(quire_bookmark_identifier, int, (char *, size_t, size_t *, const quire_bookmark *))          \
    X(quire_bookmark_set_identifier, int, (quire_bookmark *, const char *))                        \
    X(quire_bookmark_name, int, (char *, size_t, size_t *, const quire_bookmark *))                \
    X(quire_bookmark_set_name, int, (quire_bookmark *, const char *))                              \
    X(quire_bookmark_action_type, int, (quire_action_type *, const quire_bookmark *))              \
    X(quire_bookmark_page_index, int, (int32_t *, const quire_bookmark *))                         \
    X(quire_bookmark_action_text, int, (char *, size_t, size_t *, const quire_bookmark *))         \
    X(quire_bookmark_sort_key, int, (int64_t *, const quire_bookmark *))                           \
    X(quire_bookmark_set_sort_key, int, (quire_bookmark *, const int64_t *))                       \
    X(quire_bookmark_sink_add, int, (quire_bookmark_sink *, const quire_bookmark *))               \
    X(quire_bookmark_provider_init, int, (quire_bookmark_provider *, unsigned))                    \
    X(quire_document_set_bookmark_providers, int,                                                  \
      (quire_document *, const quire_bookmark_provider *const *, size_t))                          \
    X(quire_document_bookmark_count, int, (int32_t *, quire_document *))                           \
    X(quire_document_bookmark, int,                                                                \
      (quire_bookmark **, quire_document *, quire_bookmark_sort_order, int32_t))                   \
    X(quire_document_find_bookmark, int, (quire_bookmark **, quire_document *, const char *))      \
    X(quire_document_add_bookmark, int, (quire_document *, const quire_bookmark *))                \
    X(quire_document_remove_bookmark, int, (quire_document *, const char *))                       \
    X(quire_document_move_bookmark, int, (quire_document *, const char *, int32_t))                \
    X(quire_document_bookmark_sort_order, int, (quire_bookmark_sort_order *, quire_document *))    \
    X(quire_document_set_bookmark_sort_order, int, (quire_document *, quire_bookmark_sort_order))  \
    X(quire_document_set_bookmark_change_callback, int,                                            \
      (quire_document *, quire_bookmark_change_fn, void *))                                        \
    X(quire_document_export_bookmarks_to_outline, int, (int32_t *, quire_document *))              \
    X(quire_checkpoint_options_init, int, (quire_checkpoint_options *, unsigned))                  \
    X(quire_document_start_checkpoints, int,                                                       \
      (int32_t *, quire_document *, const quire_checkpoint_options *))                             \
    X(quire_document_stop_checkpoints, int, (quire_document *, int32_t))                           \
    X(quire_document_checkpoint, int, (quire_document *))                                          \
    X(quire_document_checkpoint_async, int, (quire_document *, quire_checkpoint_done_fn, void *))  \
    X(quire_document_checkpoint_path, int, (char *, size_t, size_t *, quire_document *))           \
    X(quire_document_inspect_checkpoint, int,                                                      \
      (quire_checkpoint_info *, quire_document *, const quire_checkpoint_options *))               \
    X(quire_sync_config_init, int, (quire_sync_config *, unsigned))                                \
    X(quire_sync_service_open, int, (quire_sync_service **, const quire_sync_config *))            \
    X(quire_sync_service_shutdown, int, (quire_sync_service *))                                    \
    X(quire_sync_service_close, void, (quire_sync_service *))                                      \
    X(quire_sync_service_handle, int,                                                              \
      (quire_sync_response **, quire_sync_service *, const char *, const char *,                   \
       const quire_sync_header *, size_t, const void *, size_t))                                   \
    X(quire_sync_response_status, int, (int32_t *, const quire_sync_response *))                   \
    X(quire_sync_response_header_count, int, (size_t *, const quire_sync_response *))              \
    X(quire_sync_response_header, int,                                                             \
      (const char **, const char **, const quire_sync_response *, size_t))                         \
    X(quire_sync_response_body, int, (const void **, size_t *, const quire_sync_response *))       \
    X(quire_sync_response_free, void, (quire_sync_response *))                                     \
    X(quire_sync_service_handle_async, int,                                                        \
      (quire_sync_call **, quire_sync_service *, const char *, const char *,                       \
       const quire_sync_header *, size_t, const void *, size_t, quire_sync_completion, void *))    \
    X(quire_sync_call_cancel, int, (quire_sync_call *))                                            \
    X(quire_sync_call_free, void, (quire_sync_call *))                                             \
    X(quire_text_char_init, int, (quire_text_char *, unsigned))                                    \
    X(quire_text_search_options_init, int, (quire_text_search_options *, unsigned))                \
    X(quire_page_text_load, int, (quire_text_page **, quire_document *, int32_t))                  \
    X(quire_text_page_free, void, (quire_text_page *))                                             \
    X(quire_text_page_index, int, (int32_t *, const quire_text_page *))                            \
    X(quire_text_page_char_count, int, (int32_t *, const quire_text_page *))                       \
    X(quire_text_page_text, int, (char *, size_t, size_t *, const quire_text_page *))              \
    X(quire_text_page_range_text, int,                                                             \
      (char *, size_t, size_t *, const quire_text_page *, int32_t, int32_t))                       \
    X(quire_text_page_char, int, (quire_text_char *, const quire_text_page *, int32_t))            \
    X(quire_text_page_char_text, int,                                                              \
      (char *, size_t, size_t *, const quire_text_page *, int32_t))                                \
    X(quire_text_page_char_font, int,                                                              \
      (char *, size_t, size_t *, const quire_text_page *, int32_t))                                \
    X(quire_text_page_char_infos, int,                                                             \
      (void *, size_t, size_t *, int32_t *, const quire_text_page *, unsigned))                    \
    X(quire_text_page_font_count, int, (int32_t *, const quire_text_page *))                       \
    X(quire_text_page_font_name, int,                                                              \
      (char *, size_t, size_t *, const quire_text_page *, int32_t))                                \
    X(quire_text_page_line_count, int, (int32_t *, const quire_text_page *))                       \
    X(quire_text_page_line, int, (int32_t *, int32_t *, const quire_text_page *, int32_t))         \
    X(quire_text_page_word_count, int, (int32_t *, const quire_text_page *))                       \
    X(quire_text_page_word, int, (int32_t *, int32_t *, const quire_text_page *, int32_t))         \
    X(quire_text_page_range_quads, int,                                                            \
      (double *, size_t, size_t *, const quire_text_page *, int32_t, int32_t))                     \
    X(quire_text_page_char_at, int, (int32_t *, const quire_text_page *, double, double))          \
    X(quire_text_page_select, int,                                                                 \
      (int32_t *, int32_t *, const quire_text_page *, double, double, double, double))             \
    X(quire_text_page_warning_count, int, (int32_t *, const quire_text_page *))                    \
    X(quire_text_page_warning, int, (char *, size_t, size_t *, const quire_text_page *, int32_t))  \
    X(quire_document_search_text, int,                                                             \
      (quire_text_match_list **, quire_document *, const char *,                                   \
       const quire_text_search_options *, int32_t))                                                \
    X(quire_text_options_init, int, (quire_text_options *, unsigned))                              \
    X(quire_document_text, int,                                                                    \
      (quire_document *, const quire_text_options *, quire_write_fn, void *))                      \
    X(quire_text_match_list_count, int, (int32_t *, const quire_text_match_list *))                \
    X(quire_text_match_list_get, int,                                                              \
      (int32_t *, int32_t *, int32_t *, const quire_text_match_list *, int32_t))                   \
    X(quire_text_match_list_text, int,                                                             \
      (char *, size_t, size_t *, const quire_text_match_list *, int32_t))                          \
    X(quire_text_match_list_quads, int,                                                            \
      (double *, size_t, size_t *, const quire_text_match_list *, int32_t))                        \
    X(quire_text_match_list_free, void, (quire_text_match_list *))                                 \
    X(quire_document_add_text_markup, int,                                                         \
      (quire_annotation **, quire_document *, const quire_text_page *, quire_text_markup, int32_t, \
       int32_t))                                                                                   \
    X(quire_annotation_marked_text, int,                                                           \
      (char *, size_t, size_t *, quire_document *, const quire_annotation *))                      \
    X(quire_client_callbacks_init, int, (quire_client_callbacks *, unsigned))                      \
    X(quire_client_config_init, int, (quire_client_config *, unsigned))                            \
    X(quire_client_open, int,                                                                      \
      (quire_client **, const quire_client_config *, const quire_client_callbacks *))              \
    X(quire_client_close, void, (quire_client *))                                                  \
    X(quire_client_descriptor_for_jwt, int, (quire_descriptor **, quire_client *, const char *))   \
    X(quire_client_remove_document_storage, int, (quire_client *, const char *))                   \
    X(quire_client_remove_unused_cache, int, (size_t *, quire_client *))                           \
    X(quire_descriptor_document_id, int, (char *, size_t, size_t *, const quire_descriptor *))     \
    X(quire_descriptor_layer, int, (char *, size_t, size_t *, const quire_descriptor *))           \
    X(quire_descriptor_state, int, (quire_sync_state *, const quire_descriptor *))                 \
    X(quire_descriptor_download, int, (quire_descriptor *, const char *))                          \
    X(quire_descriptor_document, int, (quire_document **, quire_descriptor *))                     \
    X(quire_descriptor_sync, int, (quire_descriptor *))                                            \
    X(quire_descriptor_sync_now, int, (quire_descriptor *))                                        \
    X(quire_descriptor_download_now, int, (quire_descriptor *, const char *))                      \
    X(quire_descriptor_wait_idle, int, (quire_descriptor *))                                       \
    X(quire_descriptor_reauthenticate, int, (quire_descriptor *, const char *))                    \
    X(quire_descriptor_set_auto_sync_delay, int, (quire_descriptor *, double))                     \
    X(quire_descriptor_set_listening, int, (quire_descriptor *, int))                              \
    X(quire_descriptor_pending_changes, int, (size_t *, quire_descriptor *))                       \
    X(quire_descriptor_last_change_id, int, (int64_t *, quire_descriptor *))                       \
    X(quire_descriptor_records_json, int, (char *, size_t, size_t *, quire_descriptor *))          \
    X(quire_descriptor_repairs, int, (int64_t *, quire_descriptor *))                              \
    X(quire_descriptor_remove_local_storage, int, (quire_descriptor *))                            \
    X(quire_signing_identity_from_pem, int,                                                        \
      (quire_signing_identity **, const char *, size_t, const char *, size_t, const char *))       \
    X(quire_signing_identity_from_pkcs12, int,                                                     \
      (quire_signing_identity **, const void *, size_t, const char *))                             \
    X(quire_signing_identity_free, void, (quire_signing_identity *))                               \
    X(quire_signing_identity_name, int,                                                            \
      (char *, size_t, size_t *, const quire_signing_identity *))                                  \
    X(quire_timestamp_response_set, int, (quire_timestamp_response *, const void *, size_t))       \
    X(quire_sign_options_init, int, (quire_sign_options *, unsigned))                              \
    X(quire_document_sign, int, (quire_document *, const quire_sign_options *, const char *))      \
    X(quire_document_sign_to_callback, int,                                                        \
      (quire_document *, const quire_sign_options *, quire_write_fn, void *))                      \
    X(quire_tool_manager_set_signing, int,                                                         \
      (quire_tool_manager *, const quire_sign_options *, const char *))                            \
    X(quire_document_set_signature_guard, int, (quire_document *, quire_signature_guard))          \
    X(quire_document_certification_broken, int, (int32_t *, quire_document *))                     \
    X(quire_validation_options_init, int, (quire_validation_options *, unsigned))                  \
    X(quire_document_signatures, int,                                                              \
      (quire_signature_list **, quire_document *, const quire_validation_options *))               \
    X(quire_signature_list_free, void, (quire_signature_list *))                                   \
    X(quire_signature_list_count, int, (int32_t *, const quire_signature_list *))                  \
    X(quire_signature_list_info, int,                                                              \
      (quire_signature_info *, const quire_signature_list *, int32_t))                             \
    X(quire_signature_list_string, int,                                                            \
      (char *, size_t, size_t *, const quire_signature_list *, int32_t, quire_signature_string))   \
    X(quire_signature_list_problem, int,                                                           \
      (quire_signature_problem *, char *, size_t, size_t *, const quire_signature_list *, int32_t, \
       int32_t))

#define HEADER_MEMBER(name, ret, params) ret(*name) params;
#define HEADER_ADDRESS(name, ret, params) name,
#define HEADER_NAME(name, ret, params) #name,

struct quire_header_api {
    QUIRE_API_FUNCTIONS(HEADER_MEMBER)
};

/* External linkage (also in C++, through the extern declaration), so the compiler keeps
 * the table and the object file references every function. */
extern const struct quire_header_api quire_header_api_table;
const struct quire_header_api quire_header_api_table = {QUIRE_API_FUNCTIONS(HEADER_ADDRESS)};

static const char *const header_function_names[] = {QUIRE_API_FUNCTIONS(HEADER_NAME)};

/* ---- compile-time checks: a false condition makes an array of negative size ---------- */
#define HEADER_ASSERT(tag, cond) typedef char header_assert_##tag[(cond) ? 1 : -1]

HEADER_ASSERT(version_number,
              QUIRE_VERSION_NUMBER ==
                  QUIRE_VERSION_MAJOR * 1000000 + QUIRE_VERSION_MINOR * 1000 + QUIRE_VERSION_PATCH);
HEADER_ASSERT(version_parts, QUIRE_VERSION_MAJOR >= 0 && QUIRE_VERSION_MINOR >= 0 &&
                                 QUIRE_VERSION_MINOR < 1000 && QUIRE_VERSION_PATCH >= 0 &&
                                 QUIRE_VERSION_PATCH < 1000);
/* Usable in #if, as a binding's configure step would. */
#if QUIRE_VERSION_NUMBER < 1000 || QUIRE_VERSION_MAJOR != QUIRE_VERSION_NUMBER / 1000000
#error "QUIRE_VERSION_NUMBER is not MAJOR * 1000000 + MINOR * 1000 + PATCH"
#endif

HEADER_ASSERT(ok_is_zero, QUIRE_OK == 0);
HEADER_ASSERT(errors_are_negative,
              QUIRE_EINVAL < 0 && QUIRE_ENOMEM < 0 && QUIRE_EIO < 0 && QUIRE_ENOTFOUND < 0 &&
                  QUIRE_EFORMAT < 0 && QUIRE_EPASSWORD < 0 && QUIRE_EUNSUPPORTED < 0 &&
                  QUIRE_ELIMIT < 0 && QUIRE_ERANGE < 0 && QUIRE_EBUFS < 0 && QUIRE_EUSER < 0 &&
                  QUIRE_ESTATE < 0 && QUIRE_EINTERNAL < 0 && QUIRE_EDISABLED < 0 &&
                  QUIRE_EBUSY < 0 && QUIRE_ESTALE < 0 && QUIRE_EEXIST < 0 && QUIRE_EVERSION < 0);
/* The codes are stable numbers: bindings hard-code them. */
HEADER_ASSERT(error_values,
              QUIRE_EINVAL == -1 && QUIRE_ENOMEM == -2 && QUIRE_EIO == -3 &&
                  QUIRE_ENOTFOUND == -4 && QUIRE_EFORMAT == -5 && QUIRE_EPASSWORD == -6 &&
                  QUIRE_EUNSUPPORTED == -7 && QUIRE_ELIMIT == -8 && QUIRE_ERANGE == -9 &&
                  QUIRE_EBUFS == -10 && QUIRE_EUSER == -11 && QUIRE_ESTATE == -12 &&
                  QUIRE_EINTERNAL == -13 && QUIRE_EDISABLED == -14 && QUIRE_EBUSY == -15 &&
                  QUIRE_ESTALE == -16 && QUIRE_EEXIST == -17 && QUIRE_EVERSION == -18);
/* The constant families (0.5): stable numbers (bindings hard-code them), as the header
 * defines them. Each family is a typedef'd enum numbered from its own base, 0x0100 apart,
 * without gaps, so that no constant of one family is a valid value of another. */
HEADER_ASSERT(box_values, QUIRE_BOX_MEDIA == 0x0600 && QUIRE_BOX_CROP == 0x0601 &&
                              QUIRE_BOX_BLEED == 0x0602 && QUIRE_BOX_TRIM == 0x0603 &&
                              QUIRE_BOX_ART == 0x0604);
HEADER_ASSERT(xref_values, QUIRE_XREF_TABLE == 0x0100 && QUIRE_XREF_STREAM == 0x0101 &&
                               QUIRE_XREF_HYBRID == 0x0102 && QUIRE_XREF_REBUILT == 0x0103);
HEADER_ASSERT(encryption_values,
              QUIRE_ENCRYPTION_NONE == 0x1000 && QUIRE_ENCRYPTION_RC4_40 == 0x1001 &&
                  QUIRE_ENCRYPTION_RC4_128 == 0x1002 && QUIRE_ENCRYPTION_AES_128 == 0x1003 &&
                  QUIRE_ENCRYPTION_AES_256 == 0x1004 && QUIRE_ENCRYPTION_IDENTITY == 0x1005);
HEADER_ASSERT(action_values, QUIRE_ACTION_NONE == 0x0200 && QUIRE_ACTION_GOTO == 0x0201 &&
                                 QUIRE_ACTION_GOTOR == 0x0202 && QUIRE_ACTION_URI == 0x0203 &&
                                 QUIRE_ACTION_NAMED == 0x0204 && QUIRE_ACTION_LAUNCH == 0x0205 &&
                                 QUIRE_ACTION_OTHER == 0x0206);
HEADER_ASSERT(value_type_values,
              QUIRE_VALUE_NULL == 0x0300 && QUIRE_VALUE_BOOL == 0x0301 &&
                  QUIRE_VALUE_INTEGER == 0x0302 && QUIRE_VALUE_REAL == 0x0303 &&
                  QUIRE_VALUE_STRING == 0x0304 && QUIRE_VALUE_NAME == 0x0305 &&
                  QUIRE_VALUE_ARRAY == 0x0306 && QUIRE_VALUE_DICTIONARY == 0x0307 &&
                  QUIRE_VALUE_STREAM == 0x0308 && QUIRE_VALUE_REFERENCE == 0x0309);
HEADER_ASSERT(stream_form_values, QUIRE_STREAM_DECODED == 0x0400 && QUIRE_STREAM_RAW == 0x0401);
HEADER_ASSERT(save_mode_values, QUIRE_SAVE_INCREMENTAL == 0x0500 && QUIRE_SAVE_FULL == 0x0501 &&
                                    QUIRE_SAVE_APPEND_IN_PLACE == 0x0502);
HEADER_ASSERT(annot_string_fields,
              QUIRE_ANNOT_CONTENTS == 0x0700 && QUIRE_ANNOT_AUTHOR == 0x0701 &&
                  QUIRE_ANNOT_SUBJECT == 0x0702 && QUIRE_ANNOT_UNIQUE_NAME == 0x0703 &&
                  QUIRE_ANNOT_CREATION_DATE == 0x0704 && QUIRE_ANNOT_MODIFICATION_DATE == 0x0705 &&
                  QUIRE_ANNOT_STATE == 0x0706 && QUIRE_ANNOT_STATE_MODEL == 0x0707 &&
                  QUIRE_ANNOT_REPLY_TYPE == 0x0708 && QUIRE_ANNOT_DEFAULT_APPEARANCE == 0x0709 &&
                  QUIRE_ANNOT_ICON == 0x070A && QUIRE_ANNOT_LINE_START == 0x070B &&
                  QUIRE_ANNOT_LINE_END == 0x070C && QUIRE_ANNOT_CUSTOM_DATA == 0x070D &&
                  QUIRE_ANNOT_IN_REPLY_TO_ID == 0x070E && QUIRE_ANNOT_BORDER_STYLE == 0x070F &&
                  QUIRE_ANNOT_SYMBOL == 0x0710 && QUIRE_ANNOT_INTENT == 0x0711 &&
                  QUIRE_ANNOT_OVERLAY_TEXT == 0x0712 && QUIRE_ANNOT_FILE_NAME == 0x0713 &&
                  QUIRE_ANNOT_FILE_DESCRIPTION == 0x0714 &&
                  QUIRE_ANNOT_FILE_CONTENT_TYPE == 0x0715 &&
                  QUIRE_ANNOT_MEASURE_FROM_UNIT == 0x0716 &&
                  QUIRE_ANNOT_MEASURE_TO_UNIT == 0x0717 && QUIRE_ANNOT_BLEND_MODE == 0x0718 &&
                  QUIRE_ANNOT_RICH_TEXT == 0x0719 && QUIRE_ANNOT_CAPTION_POSITION == 0x071A &&
                  QUIRE_ANNOT_DEFAULT_STYLE == 0x071B);
HEADER_ASSERT(annot_number_fields,
              QUIRE_ANNOT_OPACITY == 0x0800 && QUIRE_ANNOT_BORDER_WIDTH == 0x0801 &&
                  QUIRE_ANNOT_FONT_SIZE == 0x0802 && QUIRE_ANNOT_FLAGS == 0x0803 &&
                  QUIRE_ANNOT_CLOUDY_INTENSITY == 0x0804 && QUIRE_ANNOT_ALIGNMENT == 0x0805 &&
                  QUIRE_ANNOT_REPEAT == 0x0806 && QUIRE_ANNOT_MEASURE_FROM_VALUE == 0x0807 &&
                  QUIRE_ANNOT_MEASURE_TO_VALUE == 0x0808 &&
                  QUIRE_ANNOT_MEASURE_PRECISION == 0x0809 && QUIRE_ANNOT_MEASURED_VALUE == 0x080A &&
                  QUIRE_ANNOT_ROTATION == 0x080B && QUIRE_ANNOT_CAPTION == 0x080C);
HEADER_ASSERT(annot_orders, QUIRE_ANNOT_FORWARD == 0x0B00 && QUIRE_ANNOT_BACKWARD == 0x0B01 &&
                                QUIRE_ANNOT_TO_FRONT == 0x0B02 && QUIRE_ANNOT_TO_BACK == 0x0B03);
HEADER_ASSERT(annot_colors, QUIRE_ANNOT_COLOR == 0x0900 && QUIRE_ANNOT_INTERIOR_COLOR == 0x0901);
HEADER_ASSERT(annot_point_lists,
              QUIRE_ANNOT_QUAD_POINTS == 0x0A00 && QUIRE_ANNOT_LINE == 0x0A01 &&
                  QUIRE_ANNOT_VERTICES == 0x0A02 && QUIRE_ANNOT_DASH_PATTERN == 0x0A03 &&
                  QUIRE_ANNOT_RECT_DIFFERENCES == 0x0A04 && QUIRE_ANNOT_CALLOUT_LINE == 0x0A05 &&
                  QUIRE_ANNOT_CAPTION_OFFSET == 0x0A06);
HEADER_ASSERT(bookmark_sort_orders,
              QUIRE_BOOKMARK_SORT_CUSTOM == 0x0C00 && QUIRE_BOOKMARK_SORT_PAGE == 0x0C01);
HEADER_ASSERT(checkpoint_strategies, QUIRE_CHECKPOINT_MANUAL == 0x0D00 &&
                                         QUIRE_CHECKPOINT_TIMED == 0x0D01 &&
                                         QUIRE_CHECKPOINT_IMMEDIATE == 0x0D02);
HEADER_ASSERT(checkpoint_existing_values, QUIRE_CHECKPOINT_EXISTING_LOAD == 0x0E00 &&
                                              QUIRE_CHECKPOINT_EXISTING_REFUSE == 0x0E01 &&
                                              QUIRE_CHECKPOINT_EXISTING_DISCARD == 0x0E02);
HEADER_ASSERT(checkpoint_states,
              QUIRE_CHECKPOINT_NONE == 0x0F00 && QUIRE_CHECKPOINT_EMPTY == 0x0F01 &&
                  QUIRE_CHECKPOINT_CHANGES == 0x0F02 && QUIRE_CHECKPOINT_STALE == 0x0F03 &&
                  QUIRE_CHECKPOINT_DAMAGED == 0x0F04);
HEADER_ASSERT(form_kinds, QUIRE_FORM_NONE == 0x1A00 && QUIRE_FORM_ACROFORM == 0x1A01 &&
                              QUIRE_FORM_XFA_FOREGROUND == 0x1A02 && QUIRE_FORM_XFA_ONLY == 0x1A03);
HEADER_ASSERT(field_kinds, QUIRE_FIELD_TEXT == 0x1B00 && QUIRE_FIELD_CHECK_BOX == 0x1B01 &&
                               QUIRE_FIELD_RADIO_BUTTON == 0x1B02 &&
                               QUIRE_FIELD_COMBO_BOX == 0x1B03 && QUIRE_FIELD_LIST_BOX == 0x1B04 &&
                               QUIRE_FIELD_PUSH_BUTTON == 0x1B05 &&
                               QUIRE_FIELD_SIGNATURE == 0x1B06 && QUIRE_FIELD_UNKNOWN == 0x1B07);
HEADER_ASSERT(field_option_parts,
              QUIRE_FIELD_OPTION_EXPORT == 0x1C00 && QUIRE_FIELD_OPTION_DISPLAY == 0x1C01);
/* Field flags are the bits of ISO 32000-2 Tables 226, 229, 231 and 233 (bit n: 1 << (n - 1)). */
HEADER_ASSERT(field_flags,
              QUIRE_FIELD_FLAG_READ_ONLY == 1 && QUIRE_FIELD_FLAG_REQUIRED == 2 &&
                  QUIRE_FIELD_FLAG_NO_EXPORT == 4 && QUIRE_FIELD_FLAG_MULTILINE == (1 << 12) &&
                  QUIRE_FIELD_FLAG_PASSWORD == (1 << 13) &&
                  QUIRE_FIELD_FLAG_NO_TOGGLE_TO_OFF == (1 << 14) &&
                  QUIRE_FIELD_FLAG_EDIT == (1 << 18) &&
                  QUIRE_FIELD_FLAG_MULTI_SELECT == (1 << 21) && QUIRE_FIELD_FLAG_COMB == (1 << 24));
/* The bookmark actions of 0.4 are the action types of outline items. */
HEADER_ASSERT(bookmark_actions, QUIRE_BOOKMARK_GOTO == QUIRE_ACTION_GOTO &&
                                    QUIRE_BOOKMARK_URI == QUIRE_ACTION_URI &&
                                    QUIRE_BOOKMARK_NAMED == QUIRE_ACTION_NAMED &&
                                    QUIRE_BOOKMARK_OTHER == QUIRE_ACTION_OTHER);
HEADER_ASSERT(options_version, QUIRE_OPEN_OPTIONS_VERSION >= 1);
HEADER_ASSERT(file_access_version, QUIRE_FILE_ACCESS_VERSION >= 1);
HEADER_ASSERT(text_char_info_layout,
              QUIRE_TEXT_CHAR_INFO_VERSION == 1 && offsetof(quire_text_char_info, size) == 0 &&
                  offsetof(quire_text_char_info, font_size) == 32 &&
                  offsetof(quire_text_char_info, quad) == 104 &&
                  sizeof(quire_quad) == 8 * sizeof(double) && sizeof(quire_text_char_info) == 168);
HEADER_ASSERT(text_char_info_flags, (QUIRE_TEXT_CHAR_GENERATED | QUIRE_TEXT_CHAR_HAS_GLYPH_BOX |
                                     QUIRE_TEXT_CHAR_HAS_QUAD) == 7);
/* The bulk read's struct (issue 17): versioned, its version first, and each string a
 * pointer followed by its length. */
HEADER_ASSERT(annotation_info_version, QUIRE_ANNOTATION_INFO_VERSION >= 1);
HEADER_ASSERT(annotation_info_layout,
              offsetof(quire_annotation_info, version) == 0 &&
                  offsetof(quire_annotation_info, subtype_len) ==
                      offsetof(quire_annotation_info, subtype) + sizeof(const char *));
HEADER_ASSERT(save_options_version, QUIRE_SAVE_OPTIONS_VERSION >= 1);
/* Encryption (issue 36): the permission bits are those of /P (ISO 32000-2 Table 22, bit n:
 * 1 << (n - 1)), and ALL is every one of them. */
HEADER_ASSERT(encryption_options_version, QUIRE_ENCRYPTION_OPTIONS_VERSION == 1);
HEADER_ASSERT(permission_bits,
              QUIRE_PERMISSION_PRINT == (1u << 2) && QUIRE_PERMISSION_MODIFY == (1u << 3) &&
                  QUIRE_PERMISSION_COPY == (1u << 4) && QUIRE_PERMISSION_ANNOTATE == (1u << 5) &&
                  QUIRE_PERMISSION_FILL_FORMS == (1u << 8) &&
                  QUIRE_PERMISSION_EXTRACT_FOR_ACCESSIBILITY == (1u << 9) &&
                  QUIRE_PERMISSION_ASSEMBLE == (1u << 10) &&
                  QUIRE_PERMISSION_PRINT_HIGH_QUALITY == (1u << 11) &&
                  QUIRE_PERMISSIONS_ALL ==
                      (QUIRE_PERMISSION_PRINT | QUIRE_PERMISSION_MODIFY | QUIRE_PERMISSION_COPY |
                       QUIRE_PERMISSION_ANNOTATE | QUIRE_PERMISSION_FILL_FORMS |
                       QUIRE_PERMISSION_EXTRACT_FOR_ACCESSIBILITY | QUIRE_PERMISSION_ASSEMBLE |
                       QUIRE_PERMISSION_PRINT_HIGH_QUALITY));
HEADER_ASSERT(bookmark_provider_version, QUIRE_BOOKMARK_PROVIDER_VERSION >= 1);
HEADER_ASSERT(checkpoint_options_version, QUIRE_CHECKPOINT_OPTIONS_VERSION >= 1);

/* Struct layouts are part of the ABI. These offsets are those of the LP64 ABIs (x86-64 and
 * aarch64 Linux, macOS); a change here is an ABI change. */
HEADER_ASSERT(rect_size, sizeof(quire_rect) == 4 * sizeof(double));
HEADER_ASSERT(rect_left, offsetof(quire_rect, left) == 0);
HEADER_ASSERT(rect_bottom, offsetof(quire_rect, bottom) == sizeof(double));
HEADER_ASSERT(rect_right, offsetof(quire_rect, right) == 2 * sizeof(double));
HEADER_ASSERT(rect_top, offsetof(quire_rect, top) == 3 * sizeof(double));
HEADER_ASSERT(options_version_first, offsetof(quire_open_options, version) == 0);
#if UINTPTR_MAX == 0xffffffffffffffffu
HEADER_ASSERT(options_password, offsetof(quire_open_options, password) == 8);
HEADER_ASSERT(options_nesting, offsetof(quire_open_options, max_nesting_depth) == 16);
HEADER_ASSERT(options_page_tree, offsetof(quire_open_options, max_page_tree_depth) == 20);
HEADER_ASSERT(options_xref_chain, offsetof(quire_open_options, max_xref_chain) == 24);
HEADER_ASSERT(options_objects, offsetof(quire_open_options, max_objects) == 32);
HEADER_ASSERT(options_stream, offsetof(quire_open_options, max_stream_bytes) == 40);
HEADER_ASSERT(options_total, offsetof(quire_open_options, max_total_decoded_bytes) == 48);
HEADER_ASSERT(options_ratio, offsetof(quire_open_options, max_decompression_ratio) == 56);
HEADER_ASSERT(options_pages, offsetof(quire_open_options, max_pages) == 60);
HEADER_ASSERT(options_size, sizeof(quire_open_options) == 64);
#endif
/* quire_save_options: version 1 is three 32-bit fields (12 bytes on every ABI); version 2
 * adds the progress callback and its payload after them (8-aligned on LP64). */
HEADER_ASSERT(save_options_version_first, offsetof(quire_save_options, version) == 0);
HEADER_ASSERT(save_options_mode, offsetof(quire_save_options, mode) == 4);
HEADER_ASSERT(save_options_object_streams, offsetof(quire_save_options, object_streams) == 8);
#if UINTPTR_MAX == 0xffffffffffffffffu
HEADER_ASSERT(save_options_progress, offsetof(quire_save_options, progress) == 16);
HEADER_ASSERT(save_options_progress_payload, offsetof(quire_save_options, progress_payload) == 24);
HEADER_ASSERT(save_options_size, sizeof(quire_save_options) == 32);
#endif
/* quire_encryption_options (issue 36): the version and the method, two string pointers,
 * the permission bits and the metadata flag. */
HEADER_ASSERT(encryption_version_first, offsetof(quire_encryption_options, version) == 0);
HEADER_ASSERT(encryption_method, offsetof(quire_encryption_options, method) == 4);
#if UINTPTR_MAX == 0xffffffffffffffffu
HEADER_ASSERT(encryption_user, offsetof(quire_encryption_options, user_password) == 8);
HEADER_ASSERT(encryption_owner, offsetof(quire_encryption_options, owner_password) == 16);
HEADER_ASSERT(encryption_permissions, offsetof(quire_encryption_options, permissions) == 24);
HEADER_ASSERT(encryption_metadata, offsetof(quire_encryption_options, encrypt_metadata) == 28);
HEADER_ASSERT(encryption_size, sizeof(quire_encryption_options) == 32);
#endif
/* quire_bookmark_provider: the version and the built-in flag, then six pointers (five
 * callbacks and the payload), each at its pointer-aligned offset. */
HEADER_ASSERT(provider_version_first, offsetof(quire_bookmark_provider, version) == 0);
HEADER_ASSERT(provider_builtin, offsetof(quire_bookmark_provider, builtin) == 4);
#if UINTPTR_MAX == 0xffffffffffffffffu
HEADER_ASSERT(provider_load, offsetof(quire_bookmark_provider, load) == 8);
HEADER_ASSERT(provider_add, offsetof(quire_bookmark_provider, add) == 16);
HEADER_ASSERT(provider_remove, offsetof(quire_bookmark_provider, remove) == 24);
HEADER_ASSERT(provider_save, offsetof(quire_bookmark_provider, save) == 32);
HEADER_ASSERT(provider_release, offsetof(quire_bookmark_provider, release) == 40);
HEADER_ASSERT(provider_payload, offsetof(quire_bookmark_provider, payload) == 48);
HEADER_ASSERT(provider_size, sizeof(quire_bookmark_provider) == 56);
#endif
/* quire_checkpoint_options: the version and the strategy, the interval (a double, 8-aligned),
 * two string pointers, then the load flag (padded to the struct's 8-byte alignment). */
HEADER_ASSERT(checkpoint_version_first, offsetof(quire_checkpoint_options, version) == 0);
HEADER_ASSERT(checkpoint_strategy, offsetof(quire_checkpoint_options, strategy) == 4);
HEADER_ASSERT(checkpoint_interval, offsetof(quire_checkpoint_options, interval_seconds) == 8);
#if UINTPTR_MAX == 0xffffffffffffffffu
HEADER_ASSERT(checkpoint_directory, offsetof(quire_checkpoint_options, directory) == 16);
HEADER_ASSERT(checkpoint_uid, offsetof(quire_checkpoint_options, uid) == 24);
HEADER_ASSERT(checkpoint_load, offsetof(quire_checkpoint_options, load_if_available) == 32);
/* Version 2 adds `existing` in what was the padding of version 1: the size stays. */
HEADER_ASSERT(checkpoint_existing, offsetof(quire_checkpoint_options, existing) == 36);
HEADER_ASSERT(checkpoint_size, sizeof(quire_checkpoint_options) == 40);
HEADER_ASSERT(checkpoint_info_size, sizeof(quire_checkpoint_info) == 40);
#endif
/* quire_sync_config: the version, then six pointers and sizes (8-aligned on LP64), then the
 * 64-bit limits. */
HEADER_ASSERT(sync_config_version_first, offsetof(quire_sync_config, version) == 0);
#if UINTPTR_MAX == 0xffffffffffffffffu
HEADER_ASSERT(sync_config_store, offsetof(quire_sync_config, store) == 8);
HEADER_ASSERT(sync_config_public_keys, offsetof(quire_sync_config, public_keys) == 16);
HEADER_ASSERT(sync_config_public_key_count, offsetof(quire_sync_config, public_key_count) == 24);
HEADER_ASSERT(sync_config_jwks, offsetof(quire_sync_config, jwks) == 32);
HEADER_ASSERT(sync_config_admin_token, offsetof(quire_sync_config, admin_token) == 40);
HEADER_ASSERT(sync_config_max_body, offsetof(quire_sync_config, max_body_bytes) == 48);
HEADER_ASSERT(sync_config_max_upload, offsetof(quire_sync_config, max_upload_bytes) == 56);
/* Version 2 adds the attachment and listener limits after version 1's 64 bytes. */
HEADER_ASSERT(sync_config_max_attachment, offsetof(quire_sync_config, max_attachment_bytes) == 64);
HEADER_ASSERT(sync_config_max_listeners, offsetof(quire_sync_config, max_listeners) == 72);
/* Version 3 adds the grace period of attachment collection after version 2's 80 bytes. */
HEADER_ASSERT(sync_config_grace, offsetof(quire_sync_config, attachment_grace_seconds) == 80);
HEADER_ASSERT(sync_config_size, sizeof(quire_sync_config) == 88);
#endif
/* quire_sync_header: two string pointers, on every ABI (arrays of it are passed). */
HEADER_ASSERT(sync_header_name, offsetof(quire_sync_header, name) == 0);
HEADER_ASSERT(sync_header_value, offsetof(quire_sync_header, value) == sizeof(const char *));
HEADER_ASSERT(sync_header_size, sizeof(quire_sync_header) == 2 * sizeof(const char *));
HEADER_ASSERT(sync_config_version_number, QUIRE_SYNC_CONFIG_VERSION >= 3);
HEADER_ASSERT(sync_grace_none, QUIRE_SYNC_GRACE_NONE == -1);

/* The 0.3 handles are incomplete types: only pointers to them exist, and they convert to
 * and from `const` pointers as the functions' parameters need. */
static quire_annotation *const header_no_annotation = NULL;
static const quire_annotation_list *const header_no_list = NULL;

/* The initialisers are constant expressions: usable for objects of static duration. */
static const quire_open_options header_static_options = QUIRE_OPEN_OPTIONS_INIT;
static const quire_save_options header_static_save_options = QUIRE_SAVE_OPTIONS_INIT;
/* Encryption (issue 36). */
static const quire_encryption_options header_static_encryption_options =
    QUIRE_ENCRYPTION_OPTIONS_INIT;
/* Lazy reading (issue 17): the read callback's struct. */
static const quire_file_access header_static_file_access = QUIRE_FILE_ACCESS_INIT;
/* Text (issue 18): the versioned structs' initialisers at file scope, the markup family. */
static const quire_text_char header_static_text_char = QUIRE_TEXT_CHAR_INIT;
static const quire_text_search_options header_static_search_options =
    QUIRE_TEXT_SEARCH_OPTIONS_INIT;
HEADER_ASSERT(text_versions, QUIRE_TEXT_CHAR_VERSION == 2 &&
                                 QUIRE_TEXT_SEARCH_OPTIONS_VERSION == 2 &&
                                 QUIRE_TEXT_OPTIONS_VERSION == 1);
/* Long operations (issue 40): the options of each, at file scope; the annotation formats;
 * every progress field has the save options' type. */
static const quire_flatten_options header_static_flatten_options = QUIRE_FLATTEN_OPTIONS_INIT;
static const quire_export_options header_static_export_options = QUIRE_EXPORT_OPTIONS_INIT;
static const quire_import_options header_static_import_options = QUIRE_IMPORT_OPTIONS_INIT;
static const quire_text_options header_static_text_options = QUIRE_TEXT_OPTIONS_INIT;
HEADER_ASSERT(long_operation_versions, QUIRE_FLATTEN_OPTIONS_VERSION == 1 &&
                                           QUIRE_EXPORT_OPTIONS_VERSION == 1 &&
                                           QUIRE_IMPORT_OPTIONS_VERSION == 1);
HEADER_ASSERT(annotation_formats, QUIRE_FORMAT_JSON == 0x3800 &&
                                      QUIRE_FORMAT_JSON_INSTANT_COMMENTS == 0x3801 &&
                                      QUIRE_FORMAT_XFDF == 0x3802);
/* Redaction (issue 38): the options' initialiser at file scope, the versions. */
static const quire_redaction_options header_static_redaction_options = QUIRE_REDACTION_OPTIONS_INIT;
HEADER_ASSERT(redaction_versions,
              QUIRE_REDACTION_OPTIONS_VERSION == 1 && QUIRE_REDACTION_RESULT_VERSION == 1);
HEADER_ASSERT(search_options_v1_size,
              offsetof(quire_text_search_options, max_matches) + sizeof(int32_t) == 16);
/* Digital signatures (issue 37): the families' values, the options' initialisers at file
 * scope, and a time-stamping callback of the header's type. */
HEADER_ASSERT(signature_values,
              QUIRE_SIGNATURE_PADES == 0x3900 && QUIRE_SIGNATURE_PKCS7 == 0x3901 &&
                  QUIRE_DIGEST_SHA256 == 0x3A00 && QUIRE_DIGEST_SHA384 == 0x3A01 &&
                  QUIRE_DIGEST_SHA512 == 0x3A02 && QUIRE_DIGEST_SHA1 == 0x3A03 &&
                  QUIRE_DIGEST_UNKNOWN == 0x3AFF && QUIRE_SIGNATURE_LOOK_TEXT == 0x3B00 &&
                  QUIRE_SIGNATURE_LOOK_INVISIBLE == 0x3B01 && QUIRE_SIGNATURE_LOOK_INK == 0x3B02 &&
                  QUIRE_DOCMDP_NONE == 0x3C00 && QUIRE_DOCMDP_NO_CHANGES == 0x3C01 &&
                  QUIRE_DOCMDP_FORM_FILLING == 0x3C02 && QUIRE_DOCMDP_ANNOTATIONS == 0x3C03 &&
                  QUIRE_COVERAGE_ENTIRE_FILE == 0x3D00 &&
                  QUIRE_COVERAGE_ENTIRE_REVISION == 0x3D01 && QUIRE_COVERAGE_PARTIAL == 0x3D02 &&
                  QUIRE_MODIFICATION_NONE == 0x3E00 &&
                  QUIRE_MODIFICATION_VALIDATION_DATA == 0x3E01 &&
                  QUIRE_MODIFICATION_FORM_FILLING == 0x3E02 &&
                  QUIRE_MODIFICATION_ANNOTATIONS == 0x3E03 && QUIRE_MODIFICATION_OTHER == 0x3E04);
HEADER_ASSERT(signature_problem_values,
              QUIRE_PROBLEM_MALFORMED == 0x3F00 && QUIRE_PROBLEM_BYTE_RANGE == 0x3F01 &&
                  QUIRE_PROBLEM_DIGEST_MISMATCH == 0x3F02 &&
                  QUIRE_PROBLEM_SIGNATURE_INVALID == 0x3F03 &&
                  QUIRE_PROBLEM_CMS_UNREADABLE == 0x3F04 && QUIRE_PROBLEM_UNSUPPORTED == 0x3F05 &&
                  QUIRE_PROBLEM_UNTRUSTED == 0x3F06 && QUIRE_PROBLEM_EXPIRED == 0x3F07 &&
                  QUIRE_PROBLEM_KEY_USAGE == 0x3F08 &&
                  QUIRE_PROBLEM_NOT_IN_SIGNED_REVISION == 0x3F09 &&
                  QUIRE_PROBLEM_DISALLOWED_CHANGE == 0x3F0A && QUIRE_PROBLEM_TIMESTAMP == 0x3F0B &&
                  QUIRE_PROBLEM_WEAK_ALGORITHM == 0x3F0C && QUIRE_PROBLEM_PROFILE == 0x3F0D &&
                  QUIRE_SIGNATURE_FIELD_NAME == 0x4000 && QUIRE_SIGNATURE_SIGNER == 0x4001 &&
                  QUIRE_SIGNATURE_SUBFILTER == 0x4002 && QUIRE_SIGNATURE_PADES_LEVEL == 0x4003 &&
                  QUIRE_SIGNATURE_TIMESTAMP_AUTHORITY == 0x4004 &&
                  QUIRE_SIGNATURE_CERTIFICATE == 0x4005 && QUIRE_SIGNATURE_GUARD_REFUSE == 0x4100 &&
                  QUIRE_SIGNATURE_GUARD_WARN == 0x4101 && QUIRE_SIGNATURE_GUARD_ALLOW == 0x4102);
HEADER_ASSERT(signature_versions, QUIRE_SIGN_OPTIONS_VERSION == 1 &&
                                      QUIRE_VALIDATION_OPTIONS_VERSION == 1 &&
                                      QUIRE_SIGNATURE_INFO_VERSION == 1);
static const quire_sign_options header_static_sign_options = QUIRE_SIGN_OPTIONS_INIT;
static const quire_validation_options header_static_validation_options =
    QUIRE_VALIDATION_OPTIONS_INIT;
static const quire_signature_info header_static_signature_info = QUIRE_SIGNATURE_INFO_INIT;
static int header_timestamp(quire_timestamp_response *response, const void *request,
                            size_t request_len, void *payload);
static int header_timestamp(quire_timestamp_response *response, const void *request,
                            size_t request_len, void *payload) {
    (void)response;
    (void)request;
    (void)payload;
    return request_len == 0;
}
static const quire_timestamp_fn header_timestamp_fn = header_timestamp;
static const quire_signing_identity *const header_no_identity = NULL;
static const quire_signature_list *const header_no_signature_list = NULL;
static int header_progress(uint64_t done, uint64_t total, void *payload);
static int header_progress(uint64_t done, uint64_t total, void *payload) {
    (void)payload;
    return done > total;
}
HEADER_ASSERT(text_markup_family,
              QUIRE_TEXT_MARKUP_HIGHLIGHT == 0x1100 && QUIRE_TEXT_MARKUP_UNDERLINE == 0x1101 &&
                  QUIRE_TEXT_MARKUP_STRIKEOUT == 0x1102 && QUIRE_TEXT_MARKUP_SQUIGGLY == 0x1103);
HEADER_ASSERT(text_char_box, offsetof(quire_text_char, box) == 8);

/* quire_write_fn is exactly `int (*)(const void *, size_t, void *)`: a function of that type
 * converts to it without a cast (in C++ any other signature fails to compile; in C the
 * incompatible-pointer warning is an error here). */
static int header_write(const void *data, size_t size, void *payload);
static size_t header_written;
static int header_write(const void *data, size_t size, void *payload) {
    (void)data;
    (void)payload;
    header_written += size;
    return 0;
}
static const quire_write_fn header_write_fn = header_write;

/* The 0.4 callbacks have exactly the types the header gives them: functions of these
 * signatures go into a quire_bookmark_provider and a quire_bookmark_change_fn without a
 * cast (as for quire_write_fn above). */
static int header_load(quire_bookmark_sink *sink, void *payload);
static int header_add(int32_t *accepted, const quire_bookmark *bookmark, void *payload);
static int header_remove(int32_t *removed, const quire_bookmark *bookmark, void *payload);
static int header_save(void *payload);
static void header_release(void *payload);
static void header_changed(quire_document *doc, void *payload);
static int header_load(quire_bookmark_sink *sink, void *payload) {
    (void)sink;
    (void)payload;
    return 0;
}
static int header_add(int32_t *accepted, const quire_bookmark *bookmark, void *payload) {
    (void)bookmark;
    (void)payload;
    *accepted = 0;
    return 0;
}
static int header_remove(int32_t *removed, const quire_bookmark *bookmark, void *payload) {
    (void)bookmark;
    (void)payload;
    *removed = 0;
    return 0;
}
static int header_save(void *payload) {
    (void)payload;
    return 0;
}
static void header_release(void *payload) { (void)payload; }
static void header_changed(quire_document *doc, void *payload) {
    (void)doc;
    (void)payload;
}
static const quire_bookmark_change_fn header_changed_fn = header_changed;
static quire_bookmark *const header_no_bookmark = NULL;
static const quire_bookmark_provider header_static_provider = QUIRE_BOOKMARK_PROVIDER_INIT;
static const quire_bookmark_provider header_static_builtin = QUIRE_BOOKMARK_PROVIDER_BUILTIN_INIT;

/* The checkpoint callback has exactly the header's type, and the options' initialiser is a
 * constant expression. */
static void header_checkpoint_done(int status, void *payload);
static void header_checkpoint_done(int status, void *payload) {
    if (payload) memcpy(payload, &status, sizeof status);
}
static const quire_checkpoint_done_fn header_checkpoint_done_fn = header_checkpoint_done;
static const quire_checkpoint_options header_static_checkpoint_options =
    QUIRE_CHECKPOINT_OPTIONS_INIT;

/* The sync service's handles are incomplete types; its config's initialiser is a constant
 * expression; a request's headers are an array of quire_sync_header initialised as such. */
static quire_sync_service *const header_no_service = NULL;
static const quire_sync_response *const header_no_response = NULL;
static const quire_sync_config header_static_sync_config = QUIRE_SYNC_CONFIG_INIT;
static const quire_sync_header header_sync_headers[] = {{"Authorization", "Token t"},
                                                        {"X-Request-Id", "header-c99"}};
static const char *const header_sync_keys[] = {"-----BEGIN PUBLIC KEY-----"};
/* The asynchronous handler's call is an incomplete type and its completion has exactly
 * the header's type. */
static quire_sync_call *const header_no_call = NULL;
static void header_sync_completed(quire_sync_response *response, void *payload);
static void header_sync_completed(quire_sync_response *response, void *payload) {
    (void)response;
    if (payload) memset(payload, 1, 1);
}
static const quire_sync_completion header_sync_completion = header_sync_completed;

/* The sync client: its handles are incomplete types, its structs' initialisers constant
 * expressions, its callbacks of exactly the header's types. */
static quire_client *const header_no_client = NULL;
static const quire_descriptor *const header_no_descriptor = NULL;
static const quire_client_config header_static_client_config = QUIRE_CLIENT_CONFIG_INIT;
static const quire_client_callbacks header_static_client_callbacks = QUIRE_CLIENT_CALLBACKS_INIT;
static void header_sync_event(quire_descriptor *descriptor, const quire_sync_event *event,
                              void *payload);
static void header_sync_event(quire_descriptor *descriptor, const quire_sync_event *event,
                              void *payload) {
    if (payload && event && !descriptor) memcpy(payload, &event->type, sizeof event->type);
}
static const char *header_token(quire_descriptor *descriptor, void *payload);
static const char *header_token(quire_descriptor *descriptor, void *payload) {
    return descriptor || payload ? "t" : NULL;
}
static const quire_sync_event_fn header_sync_event_fn = header_sync_event;
static const quire_token_provider_fn header_token_fn = header_token;
HEADER_ASSERT(client_versions, QUIRE_CLIENT_CONFIG_VERSION >= 1 &&
                                   QUIRE_CLIENT_CALLBACKS_VERSION >= 1 &&
                                   QUIRE_SYNC_EVENT_VERSION >= 1);
HEADER_ASSERT(client_codes, QUIRE_EAUTH == -19 && QUIRE_ENETWORK == -20);
HEADER_ASSERT(sync_states,
              QUIRE_SYNC_STATE_UNKNOWN == 0x2400 && QUIRE_SYNC_STATE_CLEAN == 0x2401 &&
                  QUIRE_SYNC_STATE_DIRTY == 0x2402 && QUIRE_SYNC_STATE_SENDING == 0x2403 &&
                  QUIRE_SYNC_STATE_RECEIVING == 0x2404 && QUIRE_SYNC_STATE_INVALID == 0x2405 &&
                  QUIRE_SYNC_STATE_NEEDS_RESET == 0x2406);
HEADER_ASSERT(sync_events, QUIRE_SYNC_EVENT_STATE_CHANGED == 0x2500 &&
                               QUIRE_SYNC_EVENT_DOWNLOAD_PROGRESS == 0x2501 &&
                               QUIRE_SYNC_EVENT_DOWNLOAD_FINISHED == 0x2502 &&
                               QUIRE_SYNC_EVENT_DOWNLOAD_FAILED == 0x2503 &&
                               QUIRE_SYNC_EVENT_SYNC_FINISHED == 0x2504 &&
                               QUIRE_SYNC_EVENT_SYNC_FAILED == 0x2505 &&
                               QUIRE_SYNC_EVENT_DOCUMENT_CHANGED == 0x2506 &&
                               QUIRE_SYNC_EVENT_CHANGE_DROPPED == 0x2507 &&
                               QUIRE_SYNC_EVENT_AUTHENTICATION_NEEDED == 0x2508 &&
                               QUIRE_SYNC_EVENT_REAUTHENTICATION_FINISHED == 0x2509 &&
                               QUIRE_SYNC_EVENT_REAUTHENTICATION_FAILED == 0x250A &&
                               QUIRE_SYNC_EVENT_RECORDS_REPAIRED == 0x250B);
/* Version 2 of quire_sync_event adds its fields after version 1's, which keep their places. */
HEADER_ASSERT(sync_event_v2,
              QUIRE_SYNC_EVENT_VERSION >= 2 &&
                  offsetof(quire_sync_event, client_seq) >=
                      offsetof(quire_sync_event, total) + sizeof(int64_t) &&
                  offsetof(quire_sync_event, change_ids) > offsetof(quire_sync_event, client_seq) &&
                  offsetof(quire_sync_event, change_id_count) >
                      offsetof(quire_sync_event, change_ids));
/* Version 3 adds `fields` after version 2's. */
HEADER_ASSERT(sync_event_v3,
              QUIRE_SYNC_EVENT_VERSION >= 3 &&
                  offsetof(quire_sync_event, fields) >
                      offsetof(quire_sync_event, change_id_count) &&
                  offsetof(quire_sync_event, field_count) > offsetof(quire_sync_event, fields));
/* Version 4 adds `presence` after version 3's, and the PRESENCE_CHANGED event. */
HEADER_ASSERT(sync_event_v4,
              QUIRE_SYNC_EVENT_VERSION == 4 && QUIRE_SYNC_EVENT_PRESENCE_CHANGED == 0x250C &&
                  offsetof(quire_sync_event, presence) > offsetof(quire_sync_event, field_count));
/* The tool manager: its handle an incomplete type, its structs' initialisers constant
 * expressions, its callbacks of exactly the header's types, its enums their families. */
static quire_tool_manager *const header_no_tool_manager = NULL;
static const quire_tool_callbacks header_static_tool_callbacks = QUIRE_TOOL_CALLBACKS_INIT;
static const quire_tool_style header_static_tool_style = QUIRE_TOOL_STYLE_INIT;
static const quire_custom_tool header_static_custom_tool = QUIRE_CUSTOM_TOOL_INIT;
static const quire_pointer_event header_static_pointer_event = QUIRE_POINTER_EVENT_INIT;
static const quire_tool_preview header_static_tool_preview = QUIRE_TOOL_PREVIEW_INIT;
static const quire_preview_kind header_preview_kind = QUIRE_PREVIEW_NONE;
static void header_tool_event(quire_tool_manager *manager, const quire_tool_event *event,
                              void *payload);
static void header_tool_event(quire_tool_manager *manager, const quire_tool_event *event,
                              void *payload) {
    if (payload && event && !manager) memcpy(payload, &event->kind, sizeof event->kind);
}
static int header_tool_handle(int32_t *out_handled, quire_tool *out_next,
                              const char **out_next_name, quire_tool_manager *manager,
                              quire_pointer_kind kind, int32_t page_index, double x, double y,
                              void *payload);
static int header_tool_handle(int32_t *out_handled, quire_tool *out_next,
                              const char **out_next_name, quire_tool_manager *manager,
                              quire_pointer_kind kind, int32_t page_index, double x, double y,
                              void *payload) {
    *out_handled = kind == QUIRE_POINTER_TAP && page_index == 0 && x < y && !manager && !payload;
    *out_next = QUIRE_TOOL_PAN;
    *out_next_name = NULL;
    return 0;
}
static int header_tool_finish(quire_tool_manager *manager, void *payload);
static int header_tool_finish(quire_tool_manager *manager, void *payload) {
    return manager || payload;
}
static void header_tool_release(void *payload);
static void header_tool_release(void *payload) { (void)payload; }
static const quire_tool_event_fn header_tool_event_fn = header_tool_event;
static const quire_custom_tool_handle_fn header_tool_handle_fn = header_tool_handle;
static const quire_custom_tool_finish_fn header_tool_finish_fn = header_tool_finish;
static const quire_custom_tool_release_fn header_tool_release_fn = header_tool_release;
HEADER_ASSERT(tool_versions, QUIRE_TOOL_EVENT_VERSION >= 1 && QUIRE_TOOL_CALLBACKS_VERSION >= 1 &&
                                 QUIRE_TOOL_STYLE_VERSION >= 1 && QUIRE_CUSTOM_TOOL_VERSION >= 1);
HEADER_ASSERT(tools, QUIRE_TOOL_PAN == 0x3000 && QUIRE_TOOL_ANNOT_EDIT == 0x3001 &&
                         QUIRE_TOOL_INK == 0x3002 && QUIRE_TOOL_SQUARE == 0x3003 &&
                         QUIRE_TOOL_CIRCLE == 0x3004 && QUIRE_TOOL_LINE == 0x3005 &&
                         QUIRE_TOOL_ARROW == 0x3006 && QUIRE_TOOL_POLYGON == 0x3007 &&
                         QUIRE_TOOL_POLYLINE == 0x3008 && QUIRE_TOOL_STICKY_NOTE == 0x3009 &&
                         QUIRE_TOOL_FREE_TEXT == 0x300A && QUIRE_TOOL_LINK == 0x300B &&
                         QUIRE_TOOL_FORM_FILL == 0x300C && QUIRE_TOOL_SIGNATURE == 0x300D &&
                         QUIRE_TOOL_HIGHLIGHT == 0x300E && QUIRE_TOOL_UNDERLINE == 0x300F &&
                         QUIRE_TOOL_STRIKEOUT == 0x3010 && QUIRE_TOOL_SQUIGGLY == 0x3011 &&
                         QUIRE_TOOL_REDACT == 0x3012 && QUIRE_TOOL_CARET == 0x3013 &&
                         QUIRE_TOOL_CLOUD == 0x3014 && QUIRE_TOOL_CALLOUT == 0x3015 &&
                         QUIRE_TOOL_DISTANCE == 0x3016 && QUIRE_TOOL_PERIMETER == 0x3017 &&
                         QUIRE_TOOL_AREA == 0x3018 && QUIRE_TOOL_IMAGE_STAMP == 0x3019 &&
                         QUIRE_TOOL_FILE_ATTACHMENT == 0x301A && QUIRE_TOOL_CUSTOM == 0x30FF);
HEADER_ASSERT(pointer_kinds,
              QUIRE_POINTER_TAP == 0x3100 && QUIRE_POINTER_DOUBLE_TAP == 0x3101 &&
                  QUIRE_POINTER_LONG_PRESS == 0x3102 && QUIRE_POINTER_DRAG_BEGIN == 0x3103 &&
                  QUIRE_POINTER_DRAG_MOVE == 0x3104 && QUIRE_POINTER_DRAG_END == 0x3105 &&
                  QUIRE_POINTER_CANCEL == 0x3106);
HEADER_ASSERT(tool_events, QUIRE_TOOL_EVENT_TOOL_CHANGED == 0x3200 &&
                               QUIRE_TOOL_EVENT_SELECTION_CHANGED == 0x3201 &&
                               QUIRE_TOOL_EVENT_ANNOTATION_ADDED == 0x3202 &&
                               QUIRE_TOOL_EVENT_ANNOTATION_MODIFIED == 0x3203 &&
                               QUIRE_TOOL_EVENT_ANNOTATION_REMOVED == 0x3204 &&
                               QUIRE_TOOL_EVENT_LINK_ACTIVATED == 0x3205 &&
                               QUIRE_TOOL_EVENT_FIELD_ACTIVATED == 0x3206 &&
                               QUIRE_TOOL_EVENT_EDIT_REQUESTED == 0x3207 &&
                               QUIRE_TOOL_EVENT_UNHANDLED == 0x3208 &&
                               QUIRE_TOOL_EVENT_FIELD_CHANGED == 0x3209);
HEADER_ASSERT(hit_kinds, QUIRE_HIT_NONE == 0x3300 && QUIRE_HIT_ANNOTATION == 0x3301 &&
                             QUIRE_HIT_LINK == 0x3302 && QUIRE_HIT_WIDGET == 0x3303);
HEADER_ASSERT(selection_modes, QUIRE_SELECT_REPLACE == 0x3400 && QUIRE_SELECT_ADD == 0x3401 &&
                                   QUIRE_SELECT_TOGGLE == 0x3402 && QUIRE_SELECT_REMOVE == 0x3403);
HEADER_ASSERT(preview_kinds, QUIRE_PREVIEW_NONE == 0x3500 && QUIRE_PREVIEW_RECT == 0x3501 &&
                                 QUIRE_PREVIEW_SEGMENT == 0x3502 && QUIRE_PREVIEW_INK == 0x3503 &&
                                 QUIRE_PREVIEW_VERTICES == 0x3504 && QUIRE_PREVIEW_MOVE == 0x3505 &&
                                 QUIRE_PREVIEW_RESIZE == 0x3506 && QUIRE_PREVIEW_SELECT == 0x3507);
HEADER_ASSERT(histories, QUIRE_HISTORY_UNDO == 0x3600 && QUIRE_HISTORY_REDO == 0x3601);
HEADER_ASSERT(tool_structs_31, QUIRE_POINTER_EVENT_VERSION >= 1 &&
                                   QUIRE_TOOL_PREVIEW_VERSION >= 1 && QUIRE_MODIFIER_SHIFT == 0x1);
/* The limits are 64-bit on every ABI (uint64_t), and the key count a size_t. */
HEADER_ASSERT(sync_limits_64_bits,
              sizeof header_static_sync_config.max_body_bytes == 8 &&
                  sizeof header_static_sync_config.max_upload_bytes == 8 &&
                  sizeof header_static_sync_config.public_key_count == sizeof(size_t));

/* The version string is "MAJOR.MINOR.PATCH" of the numeric macros. */
#define HEADER_STR2(x) #x
#define HEADER_STR(x) HEADER_STR2(x)
static const char header_version_from_parts[] = HEADER_STR(QUIRE_VERSION_MAJOR) "." HEADER_STR(
    QUIRE_VERSION_MINOR) "." HEADER_STR(QUIRE_VERSION_PATCH);

static int header_failures = 0;

static void header_check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "header_c99: FAILED: %s\n", what);
        header_failures++;
    }
}

int main(void) {
    const int codes[] = {QUIRE_OK,        QUIRE_EINVAL,    QUIRE_ENOMEM,    QUIRE_EIO,
                         QUIRE_ENOTFOUND, QUIRE_EFORMAT,   QUIRE_EPASSWORD, QUIRE_EUNSUPPORTED,
                         QUIRE_ELIMIT,    QUIRE_ERANGE,    QUIRE_EBUFS,     QUIRE_EUSER,
                         QUIRE_ESTATE,    QUIRE_EINTERNAL, QUIRE_EDISABLED, QUIRE_EBUSY,
                         QUIRE_ESTALE,    QUIRE_EEXIST,    QUIRE_EVERSION,  QUIRE_EAUTH,
                         QUIRE_ENETWORK};
    const int32_t boxes[] = {QUIRE_BOX_MEDIA, QUIRE_BOX_CROP, QUIRE_BOX_BLEED, QUIRE_BOX_TRIM,
                             QUIRE_BOX_ART};
    const size_t n_codes = sizeof codes / sizeof codes[0];
    const size_t n_boxes = sizeof boxes / sizeof boxes[0];
    const size_t n_functions = sizeof header_function_names / sizeof header_function_names[0];
    quire_open_options options = QUIRE_OPEN_OPTIONS_INIT;
    quire_save_options save_options = QUIRE_SAVE_OPTIONS_INIT;
    quire_write_fn write_fn = header_write;
    size_t i, j;

    for (i = 0; i < n_codes; i++)
        for (j = i + 1; j < n_codes; j++)
            header_check(codes[i] != codes[j], "status codes are distinct");
    for (i = 0; i < n_boxes; i++)
        for (j = i + 1; j < n_boxes; j++)
            header_check(boxes[i] != boxes[j], "box values are distinct");

    header_check(strcmp(QUIRE_VERSION_STRING, header_version_from_parts) == 0,
                 "QUIRE_VERSION_STRING is MAJOR.MINOR.PATCH");
    header_check(options.version == QUIRE_OPEN_OPTIONS_VERSION,
                 "QUIRE_OPEN_OPTIONS_INIT sets the version");
    header_check(options.password == NULL, "QUIRE_OPEN_OPTIONS_INIT: NULL password");
    header_check(options.max_nesting_depth == 0 && options.max_page_tree_depth == 0 &&
                     options.max_xref_chain == 0 && options.max_objects == 0 &&
                     options.max_stream_bytes == 0 && options.max_total_decoded_bytes == 0 &&
                     options.max_decompression_ratio == 0 && options.max_pages == 0,
                 "QUIRE_OPEN_OPTIONS_INIT: every limit is 0 (the default)");
    header_check(header_static_options.version == QUIRE_OPEN_OPTIONS_VERSION &&
                     header_static_options.password == NULL &&
                     header_static_options.max_objects == 0 && header_static_options.max_pages == 0,
                 "QUIRE_OPEN_OPTIONS_INIT at file scope");
    header_check(
        header_static_file_access.version == QUIRE_FILE_ACCESS_VERSION &&
            header_static_file_access.size == 0 && header_static_file_access.read == NULL &&
            header_static_file_access.release == NULL && header_static_file_access.payload == NULL,
        "QUIRE_FILE_ACCESS_INIT at file scope: no size, no callbacks");
    header_check(save_options.version == QUIRE_SAVE_OPTIONS_VERSION,
                 "QUIRE_SAVE_OPTIONS_INIT sets the version");
    header_check(save_options.mode == QUIRE_SAVE_INCREMENTAL && save_options.object_streams == 0,
                 "QUIRE_SAVE_OPTIONS_INIT: an incremental save without object streams");
    header_check(
        header_static_encryption_options.version == QUIRE_ENCRYPTION_OPTIONS_VERSION &&
            header_static_encryption_options.method == QUIRE_ENCRYPTION_AES_256 &&
            header_static_encryption_options.user_password == NULL &&
            header_static_encryption_options.owner_password == NULL &&
            header_static_encryption_options.permissions == QUIRE_PERMISSIONS_ALL &&
            header_static_encryption_options.encrypt_metadata == 1,
        "QUIRE_ENCRYPTION_OPTIONS_INIT at file scope: AES-256, no passwords, every permission");
    header_check(header_static_save_options.version == QUIRE_SAVE_OPTIONS_VERSION &&
                     header_static_save_options.mode == QUIRE_SAVE_INCREMENTAL &&
                     header_static_save_options.object_streams == 0,
                 "QUIRE_SAVE_OPTIONS_INIT at file scope");
    header_check(header_static_text_char.version == QUIRE_TEXT_CHAR_VERSION &&
                     header_static_text_char.is_generated == 0 &&
                     header_static_text_char.line == 0 &&
                     header_static_search_options.version == QUIRE_TEXT_SEARCH_OPTIONS_VERSION &&
                     header_static_search_options.match_case == 0 &&
                     header_static_search_options.max_matches == 0,
                 "QUIRE_TEXT_CHAR_INIT and QUIRE_TEXT_SEARCH_OPTIONS_INIT at file scope");
    {
        /* The long operations' initialisers: the version, the defaults, no callback; a
         * progress function of the header's type goes into each without a cast. */
        quire_flatten_options flatten = QUIRE_FLATTEN_OPTIONS_INIT;
        quire_export_options exporting = QUIRE_EXPORT_OPTIONS_INIT;
        quire_import_options importing = QUIRE_IMPORT_OPTIONS_INIT;
        quire_text_options text = QUIRE_TEXT_OPTIONS_INIT;
        quire_text_search_options search = QUIRE_TEXT_SEARCH_OPTIONS_INIT;
        const quire_annotation_format formats[] = {
            QUIRE_FORMAT_JSON, QUIRE_FORMAT_JSON_INSTANT_COMMENTS, QUIRE_FORMAT_XFDF};
        header_check(header_static_flatten_options.version == QUIRE_FLATTEN_OPTIONS_VERSION &&
                         header_static_flatten_options.subtypes == NULL &&
                         header_static_flatten_options.keep_links == 1 &&
                         header_static_flatten_options.progress == NULL &&
                         header_static_export_options.version == QUIRE_EXPORT_OPTIONS_VERSION &&
                         header_static_export_options.format == QUIRE_FORMAT_JSON &&
                         header_static_export_options.page_index == -1 &&
                         header_static_import_options.version == QUIRE_IMPORT_OPTIONS_VERSION &&
                         header_static_import_options.format == QUIRE_FORMAT_JSON &&
                         header_static_text_options.version == QUIRE_TEXT_OPTIONS_VERSION &&
                         header_static_text_options.progress_payload == NULL &&
                         header_static_search_options.progress == NULL,
                     "the long operations' initialisers at file scope");
        header_check(header_static_redaction_options.version == QUIRE_REDACTION_OPTIONS_VERSION &&
                         header_static_redaction_options.text == 1 &&
                         header_static_redaction_options.images == 1 &&
                         header_static_redaction_options.graphics == 1 &&
                         header_static_redaction_options.annotations == 1 &&
                         header_static_redaction_options.remove_metadata == 0 &&
                         header_static_redaction_options.remove_embedded_files == 0 &&
                         header_static_redaction_options.remove_javascript == 0,
                     "QUIRE_REDACTION_OPTIONS_INIT at file scope");
        flatten.progress = header_progress;
        exporting.progress = header_progress;
        importing.progress = header_progress;
        text.progress = header_progress;
        search.progress = header_progress;
        header_check(flatten.progress(1, 2, NULL) == 0 && exporting.progress(3, 2, NULL) == 1 &&
                         importing.progress == text.progress &&
                         search.progress == flatten.progress && formats[2] == QUIRE_FORMAT_XFDF,
                     "a progress callback goes into every long operation's options");
    }
    header_check(write_fn(header_version_from_parts, 3, NULL) == 0 &&
                     header_write_fn(header_version_from_parts, 2, &header_written) == 0 &&
                     header_written == 5,
                 "a quire_write_fn can be called through the typedef");
    for (i = 0; i < n_functions; i++) {
        header_check(strncmp(header_function_names[i], "quire_", 6) == 0,
                     "functions are named quire_*");
        for (j = i + 1; j < n_functions; j++)
            header_check(strcmp(header_function_names[i], header_function_names[j]) != 0,
                         "each function is listed once");
    }
    {
        /* The string fields as values of their family's type (no conversion warning), and
         * numbered from the family's base without gaps. */
        const quire_annot_string_field fields[] = {QUIRE_ANNOT_CONTENTS,
                                                   QUIRE_ANNOT_AUTHOR,
                                                   QUIRE_ANNOT_SUBJECT,
                                                   QUIRE_ANNOT_UNIQUE_NAME,
                                                   QUIRE_ANNOT_CREATION_DATE,
                                                   QUIRE_ANNOT_MODIFICATION_DATE,
                                                   QUIRE_ANNOT_STATE,
                                                   QUIRE_ANNOT_STATE_MODEL,
                                                   QUIRE_ANNOT_REPLY_TYPE,
                                                   QUIRE_ANNOT_DEFAULT_APPEARANCE,
                                                   QUIRE_ANNOT_ICON,
                                                   QUIRE_ANNOT_LINE_START,
                                                   QUIRE_ANNOT_LINE_END,
                                                   QUIRE_ANNOT_CUSTOM_DATA,
                                                   QUIRE_ANNOT_IN_REPLY_TO_ID,
                                                   QUIRE_ANNOT_BORDER_STYLE,
                                                   QUIRE_ANNOT_SYMBOL,
                                                   QUIRE_ANNOT_INTENT,
                                                   QUIRE_ANNOT_OVERLAY_TEXT,
                                                   QUIRE_ANNOT_FILE_NAME,
                                                   QUIRE_ANNOT_FILE_DESCRIPTION,
                                                   QUIRE_ANNOT_FILE_CONTENT_TYPE};
        unsigned k = 0x0700;
        for (i = 0; i < sizeof fields / sizeof fields[0]; i++, k++)
            header_check(fields[i] + 0u == k, "string fields are numbered 0x0700, 0x0701, ...");
        header_check(header_no_annotation == NULL && header_no_list == NULL,
                     "annotation handles are pointers");
    }
    {
        /* The 0.4 provider struct: the initialisers set the version and leave every
         * callback NULL; the built-in one sets `builtin`; the callbacks can be set. */
        quire_bookmark_provider custom = QUIRE_BOOKMARK_PROVIDER_INIT;
        quire_bookmark_provider builtin = QUIRE_BOOKMARK_PROVIDER_BUILTIN_INIT;
        int32_t flag = 1;
        header_check(custom.version == QUIRE_BOOKMARK_PROVIDER_VERSION && custom.builtin == 0 &&
                         custom.load == NULL && custom.add == NULL && custom.remove == NULL &&
                         custom.save == NULL && custom.release == NULL && custom.payload == NULL,
                     "QUIRE_BOOKMARK_PROVIDER_INIT: the version, no callbacks");
        header_check(builtin.version == QUIRE_BOOKMARK_PROVIDER_VERSION && builtin.builtin != 0 &&
                         builtin.load == NULL && builtin.add == NULL && builtin.remove == NULL &&
                         builtin.save == NULL && builtin.release == NULL && builtin.payload == NULL,
                     "QUIRE_BOOKMARK_PROVIDER_BUILTIN_INIT: the version, builtin, no callbacks");
        header_check(header_static_provider.version == QUIRE_BOOKMARK_PROVIDER_VERSION &&
                         header_static_provider.builtin == 0 && header_static_builtin.builtin != 0,
                     "the provider initialisers at file scope");
        custom.load = header_load;
        custom.add = header_add;
        custom.remove = header_remove;
        custom.save = header_save;
        custom.release = header_release;
        custom.payload = &flag;
        header_check(custom.load(NULL, custom.payload) == 0 && custom.save(custom.payload) == 0 &&
                         custom.add(&flag, header_no_bookmark, custom.payload) == 0 && flag == 0 &&
                         custom.remove(&flag, header_no_bookmark, NULL) == 0,
                     "the provider callbacks can be called through the struct");
        custom.release(custom.payload);
        header_changed_fn(NULL, &flag);
        {
            /* The bookmark kinds are the outline's action types, and both families have
             * their own ranges (0x0200 and 0x0C00). */
            const quire_action_type kinds[] = {QUIRE_BOOKMARK_GOTO, QUIRE_BOOKMARK_URI,
                                               QUIRE_BOOKMARK_NAMED, QUIRE_BOOKMARK_OTHER};
            const quire_bookmark_sort_order orders[] = {QUIRE_BOOKMARK_SORT_CUSTOM,
                                                        QUIRE_BOOKMARK_SORT_PAGE};
            header_check(kinds[0] == QUIRE_ACTION_GOTO && kinds[3] == QUIRE_ACTION_OTHER &&
                             kinds[3] == 0x0206 && orders[1] == 0x0C01,
                         "bookmark kinds as quire_action_type, sort orders in their range");
        }
    }
    {
        /* The checkpoint options: the initialiser sets the version, the manual strategy, an
         * interval of 10 seconds (the header's default), no directory, no UID, no loading;
         * the strategies go into the int32_t field; the callback can be called through its
         * typedef. */
        quire_checkpoint_options checkpoint = QUIRE_CHECKPOINT_OPTIONS_INIT;
        const quire_save_mode modes[] = {QUIRE_SAVE_INCREMENTAL, QUIRE_SAVE_FULL,
                                         QUIRE_SAVE_APPEND_IN_PLACE};
        const quire_checkpoint_strategy strategies[] = {
            QUIRE_CHECKPOINT_MANUAL, QUIRE_CHECKPOINT_TIMED, QUIRE_CHECKPOINT_IMMEDIATE};
        int done_status = 1;
        header_check(checkpoint.version == QUIRE_CHECKPOINT_OPTIONS_VERSION &&
                         checkpoint.strategy == QUIRE_CHECKPOINT_MANUAL &&
                         checkpoint.interval_seconds == 10.0 && checkpoint.directory == NULL &&
                         checkpoint.uid == NULL && checkpoint.load_if_available == 0 &&
                         checkpoint.existing == QUIRE_CHECKPOINT_EXISTING_LOAD,
                     "QUIRE_CHECKPOINT_OPTIONS_INIT: the version and the defaults");
        header_check(header_static_checkpoint_options.version == QUIRE_CHECKPOINT_OPTIONS_VERSION &&
                         header_static_checkpoint_options.strategy == QUIRE_CHECKPOINT_MANUAL &&
                         header_static_checkpoint_options.uid == NULL,
                     "QUIRE_CHECKPOINT_OPTIONS_INIT at file scope");
        checkpoint.strategy = strategies[2];
        checkpoint.directory = "checkpoints";
        checkpoint.uid = "uid";
        checkpoint.load_if_available = 1;
        header_check(checkpoint.strategy == QUIRE_CHECKPOINT_IMMEDIATE &&
                         strategies[1] == QUIRE_CHECKPOINT_TIMED,
                     "checkpoint strategies as quire_checkpoint_strategy values");
        header_check(modes[1] == QUIRE_SAVE_FULL, "save modes as quire_save_mode values");
        {
            /* The info struct's initialiser, and the two enums of the checkpoint family. */
            quire_checkpoint_info info = QUIRE_CHECKPOINT_INFO_INIT;
            quire_checkpoint_existing existing = QUIRE_CHECKPOINT_EXISTING_REFUSE;
            quire_checkpoint_state state = QUIRE_CHECKPOINT_CHANGES;
            header_check(info.version == QUIRE_CHECKPOINT_INFO_VERSION &&
                             info.state == QUIRE_CHECKPOINT_NONE && info.size == 0 &&
                             info.changed_objects == 0 && info.in_use == 0,
                         "QUIRE_CHECKPOINT_INFO_INIT: the version and the defaults");
            header_check(existing != QUIRE_CHECKPOINT_EXISTING_LOAD &&
                             state != QUIRE_CHECKPOINT_STALE,
                         "quire_checkpoint_existing and quire_checkpoint_state values");
        }
        header_checkpoint_done_fn(QUIRE_EBUSY, &done_status);
        header_check(done_status == QUIRE_EBUSY,
                     "a quire_checkpoint_done_fn can be called through the typedef");
    }
    {
        /* The sync service's config: the initialiser sets the version and leaves every
         * field NULL or 0 (the defaults: an in-memory store, no keys, the admin API off,
         * the default limits); the fields take what a host passes. */
        quire_sync_config config = QUIRE_SYNC_CONFIG_INIT;
        quire_sync_response *response = NULL;
        header_check(config.version == QUIRE_SYNC_CONFIG_VERSION && config.store == NULL &&
                         config.public_keys == NULL && config.public_key_count == 0 &&
                         config.jwks == NULL && config.admin_token == NULL &&
                         config.max_body_bytes == 0 && config.max_upload_bytes == 0 &&
                         config.attachment_grace_seconds == 0,
                     "QUIRE_SYNC_CONFIG_INIT: the version and the defaults");
        header_check(header_static_sync_config.version == QUIRE_SYNC_CONFIG_VERSION &&
                         header_static_sync_config.store == NULL &&
                         header_static_sync_config.public_key_count == 0,
                     "QUIRE_SYNC_CONFIG_INIT at file scope");
        config.store = "sqlite::memory:";
        config.public_keys = header_sync_keys;
        config.public_key_count = sizeof header_sync_keys / sizeof header_sync_keys[0];
        config.admin_token = header_sync_headers[0].value;
        config.max_body_bytes = UINT64_MAX;
        header_check(config.public_key_count == 1 && config.public_keys[0] == header_sync_keys[0] &&
                         strcmp(header_sync_headers[1].name, "X-Request-Id") == 0,
                     "quire_sync_config and quire_sync_header hold what a host sets");
        header_check(header_no_service == NULL && header_no_response == NULL && response == NULL,
                     "sync handles are pointers");
        {
            unsigned char completed = 0;
            header_sync_completion(NULL, &completed);
            header_check(
                header_no_call == NULL && completed == 1,
                "quire_sync_call is a pointer; a completion is called through its typedef");
        }
    }
    {
        /* The sync client's structs: the initialisers set the versions and the defaults;
         * the callbacks can be called through their typedefs. */
        quire_client_config config = QUIRE_CLIENT_CONFIG_INIT;
        quire_client_callbacks callbacks = QUIRE_CLIENT_CALLBACKS_INIT;
        quire_sync_event event;
        quire_sync_event_type seen = QUIRE_SYNC_EVENT_STATE_CHANGED;
        quire_sync_state state = QUIRE_SYNC_STATE_UNKNOWN;
        memset(&event, 0, sizeof event);
        event.version = QUIRE_SYNC_EVENT_VERSION;
        event.type = QUIRE_SYNC_EVENT_SYNC_FINISHED;
        event.state = state;
        header_sync_event_fn(NULL, &event, &seen);
        header_check(config.version == QUIRE_CLIENT_CONFIG_VERSION && config.server_url == NULL &&
                         config.data_directory == NULL && config.auto_sync_delay < 0 &&
                         config.listen_wait_seconds == 0 && config.request_timeout_seconds == 0 &&
                         header_static_client_config.version == QUIRE_CLIENT_CONFIG_VERSION,
                     "QUIRE_CLIENT_CONFIG_INIT: the version and the defaults");
        header_check(callbacks.version == QUIRE_CLIENT_CALLBACKS_VERSION &&
                         callbacks.on_event == NULL && callbacks.token_provider == NULL &&
                         callbacks.payload == NULL &&
                         header_static_client_callbacks.version == QUIRE_CLIENT_CALLBACKS_VERSION,
                     "QUIRE_CLIENT_CALLBACKS_INIT: the version and no callbacks");
        header_check(seen == QUIRE_SYNC_EVENT_SYNC_FINISHED &&
                         header_token_fn(NULL, &seen) != NULL && header_no_client == NULL &&
                         header_no_descriptor == NULL,
                     "the sync client's callbacks and handles");
    }
    {
        /* The tool manager's structs and callbacks. */
        quire_tool_callbacks callbacks = QUIRE_TOOL_CALLBACKS_INIT;
        quire_tool_style style = QUIRE_TOOL_STYLE_INIT;
        quire_custom_tool tool = QUIRE_CUSTOM_TOOL_INIT;
        quire_tool_event event;
        quire_tool_event_kind seen = QUIRE_TOOL_EVENT_TOOL_CHANGED;
        quire_hit_kind hit = QUIRE_HIT_NONE;
        int32_t handled = 0;
        quire_tool next = QUIRE_TOOL_CUSTOM;
        const char *next_name = "x";
        memset(&event, 0, sizeof event);
        event.version = QUIRE_TOOL_EVENT_VERSION;
        event.kind = QUIRE_TOOL_EVENT_ANNOTATION_ADDED;
        header_tool_event_fn(NULL, &event, &seen);
        header_check(seen == QUIRE_TOOL_EVENT_ANNOTATION_ADDED && hit == QUIRE_HIT_NONE &&
                         header_no_tool_manager == NULL,
                     "the tool event callback and handle");
        header_check(header_tool_handle_fn(&handled, &next, &next_name, NULL, QUIRE_POINTER_TAP, 0,
                                           1, 2, NULL) == 0 &&
                         handled == 1 && next == QUIRE_TOOL_PAN && next_name == NULL &&
                         header_tool_finish_fn(NULL, NULL) == 0,
                     "the custom tool callbacks");
        header_tool_release_fn(NULL);
        header_check(callbacks.version == QUIRE_TOOL_CALLBACKS_VERSION &&
                         callbacks.on_event == NULL && callbacks.payload == NULL &&
                         header_static_tool_callbacks.version == QUIRE_TOOL_CALLBACKS_VERSION,
                     "QUIRE_TOOL_CALLBACKS_INIT: the version and no callback");
        header_check(style.version == QUIRE_TOOL_STYLE_VERSION && style.red == 1 &&
                         style.green == 0 && style.blue == 0 && style.border_width == 2 &&
                         style.opacity == 1 && style.font_size == 12 && style.tolerance == 4 &&
                         style.author == NULL && style.free_text == NULL &&
                         header_static_tool_style.version == QUIRE_TOOL_STYLE_VERSION,
                     "QUIRE_TOOL_STYLE_INIT: the version and the defaults");
        header_check(tool.version == QUIRE_CUSTOM_TOOL_VERSION && tool.name == NULL &&
                         tool.handle == NULL && tool.finish == NULL && tool.release == NULL &&
                         tool.payload == NULL &&
                         header_static_custom_tool.version == QUIRE_CUSTOM_TOOL_VERSION,
                     "QUIRE_CUSTOM_TOOL_INIT: the version and nothing else");
        header_check(header_static_pointer_event.version == QUIRE_POINTER_EVENT_VERSION &&
                         header_static_pointer_event.kind == QUIRE_POINTER_TAP &&
                         header_static_pointer_event.page_index == 0 &&
                         header_static_pointer_event.modifiers == 0,
                     "QUIRE_POINTER_EVENT_INIT: a tap on page 0 without modifiers");
        header_check(header_static_tool_preview.version == QUIRE_TOOL_PREVIEW_VERSION &&
                         header_static_tool_preview.kind == header_preview_kind &&
                         header_static_tool_preview.page_index == -1 &&
                         header_static_tool_preview.path_count == 0,
                     "QUIRE_TOOL_PREVIEW_INIT: nothing");
    }
    {
        /* The signatures' initialisers: the version and the defaults. */
        quire_sign_options sign = QUIRE_SIGN_OPTIONS_INIT;
        quire_signature_look looks[] = {QUIRE_SIGNATURE_LOOK_TEXT, QUIRE_SIGNATURE_LOOK_INVISIBLE,
                                        QUIRE_SIGNATURE_LOOK_INK};
        const quire_signature_format format = QUIRE_SIGNATURE_PKCS7;
        const quire_digest_algorithm digest = QUIRE_DIGEST_SHA384;
        const quire_docmdp docmdp = QUIRE_DOCMDP_FORM_FILLING;
        const quire_signature_coverage coverage = QUIRE_COVERAGE_ENTIRE_REVISION;
        const quire_modification modification = QUIRE_MODIFICATION_ANNOTATIONS;
        sign.format = format;
        sign.digest = digest;
        sign.certification = docmdp;
        sign.timestamp = header_timestamp_fn;
        sign.identity = header_no_identity;
        header_check(
            header_static_sign_options.version == QUIRE_SIGN_OPTIONS_VERSION &&
                header_static_sign_options.identity == NULL &&
                header_static_sign_options.format == QUIRE_SIGNATURE_PADES &&
                header_static_sign_options.digest == QUIRE_DIGEST_SHA256 &&
                header_static_sign_options.look == QUIRE_SIGNATURE_LOOK_TEXT &&
                header_static_sign_options.certification == QUIRE_DOCMDP_NONE &&
                header_static_sign_options.timestamp == NULL &&
                header_static_sign_options.reserved_size == 0 &&
                header_static_sign_options.rect.right == 0.0 &&
                header_static_validation_options.version == QUIRE_VALIDATION_OPTIONS_VERSION &&
                header_static_validation_options.trust_roots_pem == NULL &&
                header_static_validation_options.time == 0 &&
                header_static_signature_info.version == QUIRE_SIGNATURE_INFO_VERSION &&
                header_static_signature_info.digest == QUIRE_DIGEST_UNKNOWN &&
                header_static_signature_info.range2_length == 0 &&
                header_no_signature_list == NULL && looks[2] == QUIRE_SIGNATURE_LOOK_INK &&
                sign.timestamp(NULL, "", 0, NULL) == 1 && sign.format == QUIRE_SIGNATURE_PKCS7 &&
                sign.digest == QUIRE_DIGEST_SHA384 &&
                sign.certification == QUIRE_DOCMDP_FORM_FILLING &&
                coverage != QUIRE_COVERAGE_PARTIAL && modification != QUIRE_MODIFICATION_OTHER,
            "the signatures' initialisers and callback");
    }
    header_check(sizeof(struct quire_header_api) ==
                     n_functions * sizeof quire_header_api_table.quire_version,
                 "one table entry per function name");

    if (header_failures) {
        printf("header_c99: %d check(s) failed\n", header_failures);
        return 1;
    }
    printf("header_c99: quire.h %s: %zu functions referenced, %zu status codes, %zu boxes: ok\n",
           QUIRE_VERSION_STRING, n_functions, n_codes, n_boxes);
    return 0;
}
