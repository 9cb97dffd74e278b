/* See include/quire_jpeg.h. The codec is libjpeg's; this file only sets up its error
   handling (setjmp/longjmp), its memory source and destination, and copies the source's
   coding parameters to the encoder (jpeg_copy_critical_parameters). */
#include "quire_jpeg.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

struct qjpeg_error {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    char *message;
    size_t message_size;
};

static void qjpeg_error_exit(j_common_ptr cinfo) {
    struct qjpeg_error *error = (struct qjpeg_error *)cinfo->err;
    if (error->message && error->message_size > 0) {
        char text[JMSG_LENGTH_MAX];
        (*cinfo->err->format_message)(cinfo, text);
        snprintf(error->message, error->message_size, "libjpeg: %s", text);
    }
    longjmp(error->jump, 1);
}

/* Warnings (corrupt data that libjpeg recovers from) are not printed on the host's stderr. */
static void qjpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void qjpeg_say(char *message, size_t message_size, const char *text) {
    if (message && message_size > 0) snprintf(message, message_size, "%s", text);
}

int qjpeg_recode(const unsigned char *data, size_t size, int color_transform, size_t max_samples,
                 qjpeg_edit edit, void *payload, unsigned char **out, size_t *out_size,
                 char *message, size_t message_size) {
    struct jpeg_decompress_struct source;
    struct jpeg_compress_struct target;
    /* One error manager for both: one setjmp catches an error of either. */
    struct qjpeg_error error;
    /* Set before the jumps and read after them: volatile (C11 7.13.2.1). */
    unsigned char *volatile samples = NULL;
    unsigned char *volatile encoded = NULL;
    volatile unsigned long encoded_size = 0;
    /* jpeg_mem_dest's buffer, which libjpeg grows through its address (kept in memory, so
       freed after an error as it is then). */
    unsigned char *buffer = NULL;
    unsigned long buffer_size = 0;
    volatile int target_made = 0;
    int status = -1;

    if (!data || !out || !out_size || !edit) {
        qjpeg_say(message, message_size, "a required argument is NULL");
        return -1;
    }
    *out = NULL;
    *out_size = 0;
    if (size == 0 || size > (size_t)0xFFFFFFFFu) {
        qjpeg_say(message, message_size, "the JPEG data is empty or over 4 GB");
        return -1;
    }
    memset(&source, 0, sizeof source);
    memset(&target, 0, sizeof target);
    source.err = jpeg_std_error(&error.manager);
    target.err = &error.manager;
    error.manager.error_exit = qjpeg_error_exit;
    error.manager.output_message = qjpeg_output_message;
    error.message = message;
    error.message_size = message_size;
    if (setjmp(error.jump)) {
        goto done;
    }
    jpeg_create_decompress(&source);
    jpeg_mem_src(&source, data, (unsigned long)size);
    jpeg_read_header(&source, TRUE);
    if (color_transform == 0 || color_transform == 1) {
        if (source.num_components == 3)
            source.jpeg_color_space = color_transform ? JCS_YCbCr : JCS_RGB;
        if (source.num_components == 4)
            source.jpeg_color_space = color_transform ? JCS_YCCK : JCS_CMYK;
    }
    switch (source.jpeg_color_space) {
    case JCS_GRAYSCALE: source.out_color_space = JCS_GRAYSCALE; break;
    case JCS_RGB:
    case JCS_YCbCr: source.out_color_space = JCS_RGB; break;
    case JCS_CMYK:
    case JCS_YCCK: source.out_color_space = JCS_CMYK; break;
    default:
        qjpeg_say(message, message_size,
                  "the JPEG's colour space is not gray, RGB, YCbCr, CMYK or YCCK");
        goto done;
    }
    jpeg_start_decompress(&source);
    {
        size_t width = source.output_width, height = source.output_height;
        size_t components = (size_t)source.output_components;
        if (width == 0 || height == 0 || components == 0 ||
            width > max_samples / height / components) {
            qjpeg_say(message, message_size, "the JPEG's decoded size is over the limit");
            goto done;
        }
        size_t row = width * components;
        samples = malloc(row * height);
        if (!samples) {
            qjpeg_say(message, message_size, "out of memory for the JPEG's samples");
            goto done;
        }
        while (source.output_scanline < source.output_height) {
            JSAMPROW rows[1] = {samples + (size_t)source.output_scanline * row};
            if (jpeg_read_scanlines(&source, rows, 1) != 1) break;
        }
        if (edit(samples, (int)width, (int)height, (int)components, payload) != 0) {
            status = 1;
            goto done;
        }
        jpeg_create_compress(&target);
        target_made = 1;
        {
            jpeg_mem_dest(&target, &buffer, &buffer_size);
            /* The source's quantization tables, sampling factors, component ids, colour
               space and markers (JFIF, Adobe); then the pixels' own colour space in. */
            jpeg_copy_critical_parameters(&source, &target);
            target.in_color_space = source.out_color_space;
            target.input_components = (int)components;
            target.optimize_coding = TRUE;
            if (source.progressive_mode) jpeg_simple_progression(&target);
            jpeg_start_compress(&target, TRUE);
            while (target.next_scanline < target.image_height) {
                JSAMPROW rows[1] = {samples + (size_t)target.next_scanline * row};
                jpeg_write_scanlines(&target, rows, 1);
            }
            jpeg_finish_compress(&target);
            encoded = buffer;
            encoded_size = buffer_size;
            buffer = NULL;
        }
        jpeg_finish_decompress(&source);
    }
    *out = encoded;
    *out_size = encoded_size;
    encoded = NULL;
    status = 0;
done:
    if (target_made) jpeg_destroy_compress(&target);
    jpeg_destroy_decompress(&source);
    free(samples);
    free(encoded);
    free(buffer);
    return status;
}

void qjpeg_free(unsigned char *buffer) { free(buffer); }
