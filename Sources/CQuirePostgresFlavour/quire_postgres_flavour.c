/* The PostgreSQL flavour of the library (libquire-postgres: `make lib-postgres`) is the
 * default libquire's targets plus this one and Sources/QuirePostgresFlavour, which only it
 * links. At load, this constructor hands the C layer the function that registers the
 * PostgreSQL store (quire_load.h): the C layer calls it before it opens its first sync
 * service, so `quire_sync_service_open` takes postgres:// and postgresql:// store URLs.
 *
 * Only a pointer is stored here: no Swift code runs while the loader runs constructors
 * (the Swift runtime registers this image's metadata from a constructor of its own, whose
 * order relative to this one the link decides). Nothing is exported: the version script
 * keeps quire_* only, and these names are not. */
#include "quire_load.h"
#include "quire_postgres_flavour.h"

__attribute__((constructor)) static void quirepg_install_registrar(void) {
    quireload_store_registrar = quirepg_register_stores;
}
