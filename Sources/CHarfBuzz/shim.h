#include <harfbuzz/hb.h>
#include <harfbuzz/hb-ot.h>
#include <harfbuzz/hb-subset.h>
#include <fribidi/fribidi.h>

/* FriBidi's "find the paragraph's direction from its first strong character", a macro
   of masks that Swift does not import. */
static const FriBidiParType quire_fribidi_par_on = FRIBIDI_PAR_ON;
/* A paragraph's direction given: left to right, right to left. */
static const FriBidiParType quire_fribidi_par_ltr = FRIBIDI_PAR_LTR;
static const FriBidiParType quire_fribidi_par_rtl = FRIBIDI_PAR_RTL;
