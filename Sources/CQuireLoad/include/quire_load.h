/* CQuireLoad has no interface: it only runs at load (see quire_load.c). SwiftPM wants a
 * public header directory for a C target; this header is it, and declares nothing. */
#ifndef QUIRE_LOAD_H
#define QUIRE_LOAD_H
#endif
