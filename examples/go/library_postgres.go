//go:build quire_postgres

// The library's PostgreSQL flavour, libquire-postgres (`make lib-postgres`): the same C
// interface, and a sync service that also takes postgres:// stores.
package main

// #cgo pkg-config: quire-postgres
import "C"
