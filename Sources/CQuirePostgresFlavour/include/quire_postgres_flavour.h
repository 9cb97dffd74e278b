/* CQuirePostgresFlavour: the load-time half of the PostgreSQL flavour of the library
 * (libquire-postgres; see quire_postgres_flavour.c). Nothing here is exported. */
#ifndef QUIRE_POSTGRES_FLAVOUR_H
#define QUIRE_POSTGRES_FLAVOUR_H

/* Registers PostgresSyncStore's factories (postgres://, postgresql://) with the sync core:
 * defined in Swift (Sources/QuirePostgresFlavour), called by the C layer through
 * quireload_store_registrar. */
void quirepg_register_stores(void);

#endif
