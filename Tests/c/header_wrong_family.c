/*
 * header_wrong_family.c: a constant of one family passed where another family is expected
 * must not compile quietly (the header's constant families are typedef'd enums). The
 * Makefile compiles this file with WRONG_FAMILY defined, under -Werror, and requires the
 * compiler to refuse it (C: -Wextra's -Wenum-conversion; C++: an error); and without it,
 * where the same calls take the right family, and requires success.
 */
#include "quire.h"

int header_wrong_family(const quire_annotation *annotation, double *out);

int header_wrong_family(const quire_annotation *annotation, double *out) {
#ifdef WRONG_FAMILY
    /* QUIRE_ANNOT_CONTENTS is a string field: the number getter takes a number field. */
    return quire_annotation_number(out, annotation, QUIRE_ANNOT_CONTENTS);
#else
    return quire_annotation_number(out, annotation, QUIRE_ANNOT_OPACITY);
#endif
}
