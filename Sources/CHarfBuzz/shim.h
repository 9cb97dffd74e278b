#include <harfbuzz/hb.h>
#include <harfbuzz/hb-ot.h>
#include <harfbuzz/hb-subset.h>
#include <fribidi/fribidi.h>

/* FriBidi's "find the paragraph's direction from its first strong character", a macro
   of masks that Swift does not import. */
static const FriBidiParType quire_fribidi_par_on = FRIBIDI_PAR_ON;
