/* CQuireLoad: what libquire.so does at load (see quire_load.c), and the hook through which a
 * flavour of the library adds to it. Nothing here is exported (the names are not quire_*,
 * and quire.map makes every other symbol local). */
#ifndef QUIRE_LOAD_H
#define QUIRE_LOAD_H

/* The store registrar of the library's flavour, or NULL: the PostgreSQL flavour
 * (libquire-postgres, Sources/CQuirePostgresFlavour) sets it from a constructor to a Swift
 * function that registers its store factories with the sync core (SyncStoreRegistry). The
 * C layer calls it once, before it opens its first sync service, so that no Swift code runs
 * while the loader is still running constructors. The default libquire leaves it NULL. */
extern void (*quireload_store_registrar)(void);

/* Calls quireload_store_registrar if a flavour set it: the C layer's way to it (Swift 6
 * refuses to read a mutable C global; this one is written only at load, before any call). */
void quireload_register_stores(void);

#endif
