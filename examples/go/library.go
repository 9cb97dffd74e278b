//go:build !quire_postgres

// The library the host links: libquire, through pkg-config. `go build -tags quire_postgres`
// links its PostgreSQL flavour instead (library_postgres.go).
package main

// #cgo pkg-config: quire
import "C"
