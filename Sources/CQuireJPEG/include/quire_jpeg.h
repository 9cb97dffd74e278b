/* Re-encoding a JPEG (a DCTDecode image) in its own filter, through the system libjpeg
   (libjpeg-turbo): decoded, its pixels edited by the caller, encoded again with the
   source's quantization tables, sampling factors, colour space and progression, so that
   redaction blanks the pixels of a JPEG and leaves it a JPEG of the same quality
   (Sources/QuireDocument/Redaction/ContentRedaction.swift). libjpeg reports errors by
   longjmp, which Swift cannot catch: this C layer turns them into a status and a message.
   Its names do not start with quire_: libquire.so exports only those (quire.map), and
   these are not part of the C API. */
#ifndef QUIRE_JPEG_H
#define QUIRE_JPEG_H

#include <stddef.h>

/* Called once with the decoded samples: `width` x `height` pixels of `components` bytes
   (1: gray, 3: RGB, 4: CMYK as stored, Adobe's inverted values included), rows top first.
   The callback may change the samples; it returns 0 to have them encoded, anything else
   to stop (qjpeg_recode then returns 1 and writes nothing). */
typedef int (*qjpeg_edit)(unsigned char *samples, int width, int height, int components,
                          void *payload);

/* Decodes the JPEG `data` (`size` bytes), lets `edit` change its samples, and encodes them
   again as a baseline or progressive JPEG like the source. `color_transform`: the PDF's
   /ColorTransform of the image's DCTDecode parameters (0 or 1), or -1 when it has none
   (libjpeg then decides from the Adobe marker, as viewers do). `max_samples` bounds
   width x height x components before anything is allocated. On success returns 0 and
   `*out` (freed by qjpeg_free) holds `*out_size` bytes; else -1 with a message in
   `message` (libjpeg's own, or the limit), or 1 when `edit` stopped. */
int qjpeg_recode(const unsigned char *data, size_t size, int color_transform, size_t max_samples,
                 qjpeg_edit edit, void *payload, unsigned char **out, size_t *out_size,
                 char *message, size_t message_size);

/* Frees what qjpeg_recode returned in `*out`; NULL is a no-op. */
void qjpeg_free(unsigned char *buffer);

#endif
