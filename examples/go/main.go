// Quire's sync service inside a Go server: net/http passes each request to the library
// through cgo and the asynchronous handler (quire_sync_service_handle_async), whose
// completion, on a library thread, hands the response back to the request's goroutine. A
// client that goes away cancels its request (a long poll stops waiting). No rule of the
// protocol is here: this file moves bytes between net/http and the library, as
// examples/python/sync_server.py and examples/node/server.js do.
//
//	cd examples/go && PKG_CONFIG_PATH=$PWD/../../build/lib/pkgconfig \
//	    CGO_LDFLAGS="-Wl,-rpath,$PWD/../../build/lib" go build -o syncserver .
//	./syncserver --port 8412 --store sqlite://quire.db --public-key jwt-public.pem \
//	    --admin-token-file admin-token
//
// With `go build -tags quire_postgres` it links the library's PostgreSQL flavour
// (libquire-postgres, `make lib-postgres`; library.go) and also takes --store
// postgres://user@host:port/database: several of its processes on one database.
//
// It takes quire-server's flags. SIGTERM or Ctrl-C: long polls answer, then it exits. HTTP
// itself (framing, keep-alive, header limits) is net/http's: a request it refuses never
// reaches the library and gets Go's own answer.
package main

/*
#include <stdlib.h>
#include <quire.h>
extern void quireGoCompleted(quire_sync_response *response, void *payload);
*/
import "C"

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/cgo"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// Service is an open quire_sync_service.
type Service struct{ ptr *C.quire_sync_service }

func lastError(status C.int) error {
	return fmt.Errorf("%s: %s", C.GoString(C.quire_status_string(status)), C.GoString(C.quire_last_error_message()))
}

// Open opens the service of a store URL ("sqlite://quire.db", ...).
func Open(store string, keys []string, jwks, adminToken string, maxBody, maxUpload, maxAttachment, maxListeners uint64, graceSeconds int64) (*Service, error) {
	var config C.quire_sync_config
	if status := C.quire_sync_config_init(&config, C.QUIRE_SYNC_CONFIG_VERSION); status != C.QUIRE_OK {
		return nil, lastError(status)
	}
	var cstrings []*C.char
	cstr := func(s string) *C.char { c := C.CString(s); cstrings = append(cstrings, c); return c }
	defer func() {
		for _, c := range cstrings {
			C.free(unsafe.Pointer(c))
		}
	}()
	config.store = cstr(store)
	if len(keys) > 0 {
		array := (*[1 << 20]*C.char)(C.malloc(C.size_t(len(keys)) * C.size_t(unsafe.Sizeof((*C.char)(nil)))))
		defer C.free(unsafe.Pointer(array))
		for i, k := range keys {
			array[i] = cstr(k)
		}
		config.public_keys = &array[0]
		config.public_key_count = C.size_t(len(keys))
	}
	if jwks != "" {
		config.jwks = cstr(jwks)
	}
	if adminToken != "" {
		config.admin_token = cstr(adminToken)
	}
	config.max_body_bytes = C.uint64_t(maxBody)
	config.max_upload_bytes = C.uint64_t(maxUpload)
	config.max_attachment_bytes = C.uint64_t(maxAttachment)
	config.max_listeners = C.uint64_t(maxListeners)
	// -1: the default hour; 0: none (QUIRE_SYNC_GRACE_NONE); more: that many seconds.
	if graceSeconds == 0 {
		config.attachment_grace_seconds = C.QUIRE_SYNC_GRACE_NONE
	} else if graceSeconds > 0 {
		config.attachment_grace_seconds = C.int64_t(graceSeconds)
	}
	s := &Service{}
	if status := C.quire_sync_service_open(&s.ptr, &config); status != C.QUIRE_OK {
		return nil, lastError(status)
	}
	return s, nil
}

//export quireGoCompleted
func quireGoCompleted(response *C.quire_sync_response, payload unsafe.Pointer) {
	// On a library thread: hand the response to the waiting goroutine (a buffered channel).
	h := cgo.Handle(*(*C.uintptr_t)(payload))
	C.free(payload)
	h.Value().(chan *C.quire_sync_response) <- response
	h.Delete()
}

// Handle answers one request; ctx ending (the client went away) cancels it.
func (s *Service) Handle(ctx context.Context, method, target string, header http.Header, body []byte) (int, [][2]string, []byte) {
	var strs []*C.char
	cstr := func(v string) *C.char { c := C.CString(v); strs = append(strs, c); return c }
	defer func() {
		for _, c := range strs {
			C.free(unsafe.Pointer(c))
		}
	}()
	var headers []C.quire_sync_header
	for name, values := range header {
		for _, v := range values {
			headers = append(headers, C.quire_sync_header{name: cstr(name), value: cstr(v)})
		}
	}
	var headerPtr *C.quire_sync_header
	if len(headers) > 0 {
		headerPtr = &headers[0]
	}
	var bodyPtr unsafe.Pointer
	if len(body) > 0 {
		bodyPtr = unsafe.Pointer(&body[0])
	}
	done := make(chan *C.quire_sync_response, 1)
	handle := cgo.NewHandle(done)
	// The payload is C memory holding the handle (a Go value must not pass through C).
	payload := C.malloc(C.size_t(unsafe.Sizeof(C.uintptr_t(0))))
	*(*C.uintptr_t)(payload) = C.uintptr_t(handle)
	var call *C.quire_sync_call
	// A NUL, which no C string carries, goes as %00: the same octet, and the library's 400.
	status := C.quire_sync_service_handle_async(&call, s.ptr, cstr(method), cstr(strings.ReplaceAll(target, "\x00", "%00")),
		headerPtr, C.size_t(len(headers)), bodyPtr, C.size_t(len(body)),
		C.quire_sync_completion(C.quireGoCompleted), payload)
	if status != C.QUIRE_OK {
		C.free(payload)
		handle.Delete()
		return 500, nil, []byte(lastError(status).Error())
	}
	defer C.quire_sync_call_free(call)
	var response *C.quire_sync_response
	select {
	case response = <-done:
	case <-ctx.Done():
		C.quire_sync_call_cancel(call)
		response = <-done
	}
	defer C.quire_sync_response_free(response)
	var code C.int32_t
	var count C.size_t
	C.quire_sync_response_status(&code, response)
	C.quire_sync_response_header_count(&count, response)
	out := make([][2]string, 0, int(count))
	for i := C.size_t(0); i < count; i++ {
		var name, value *C.char
		C.quire_sync_response_header(&name, &value, response, i)
		out = append(out, [2]string{C.GoString(name), C.GoString(value)})
	}
	var data unsafe.Pointer
	var length C.size_t
	C.quire_sync_response_body(&data, &length, response)
	return int(code), out, C.GoBytes(data, C.int(length))
}

type keyFiles []string

func (k *keyFiles) String() string     { return strings.Join(*k, ",") }
func (k *keyFiles) Set(v string) error { *k = append(*k, v); return nil }

func readText(path string) string {
	if path == "" {
		return ""
	}
	data, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	return string(data)
}

func main() {
	host := flag.String("host", "127.0.0.1", "address to listen on")
	port := flag.Int("port", 8412, "port")
	store := flag.String("store", "sqlite://quire.db", "store URL")
	var keys keyFiles
	flag.Var(&keys, "public-key", "a PEM public key file (repeatable)")
	jwks := flag.String("jwks", "", "a JWKS file")
	tokenFile := flag.String("admin-token-file", "", "a file holding the admin API token")
	maxBody := flag.Uint64("max-body-bytes", 0, "largest body but uploads (0: 8 MiB)")
	maxUpload := flag.Uint64("max-upload-bytes", 0, "largest PDF upload (0: 256 MiB)")
	maxAttachment := flag.Uint64("max-attachment-bytes", 0, "largest attachment upload, an image or file of an annotation (0: 8 MiB)")
	maxListeners := flag.Uint64("max-listeners", 0, "long polls waiting at once (0: 10,000)")
	grace := flag.Int64("attachment-grace-seconds", -1, "how old an attachment no record names must be to be collected (-1: 3600; 0: at once)")
	flag.Parse()
	var pems []string
	for _, k := range keys {
		pems = append(pems, readText(k))
	}
	service, err := Open(*store, pems, readText(*jwks), strings.TrimSpace(readText(*tokenFile)), *maxBody, *maxUpload, *maxAttachment, *maxListeners, *grace)
	if err != nil {
		log.Fatal(err)
	}
	// Past the largest body the library takes, one byte is enough for it to answer 413.
	limit, bodyLimit := int64(256<<20), int64(8<<20)
	if *maxUpload > 0 {
		limit = int64(*maxUpload)
	}
	if *maxBody > 0 {
		bodyLimit = int64(*maxBody)
	}
	if bodyLimit > limit {
		limit = bodyLimit
	}
	if int64(*maxAttachment) > limit {
		limit = int64(*maxAttachment)
	}
	var inFlight sync.WaitGroup
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inFlight.Add(1)
		defer inFlight.Done()
		started := time.Now()
		body, _ := io.ReadAll(io.LimitReader(r.Body, limit+1))
		status, headers, payload := service.Handle(r.Context(), r.Method, r.RequestURI, r.Header, body)
		id := "-"
		for _, h := range headers {
			switch strings.ToLower(h[0]) {
			case "content-length", "connection", "transfer-encoding":
				continue
			case "x-request-id":
				id = h[1]
			}
			w.Header().Add(h[0], h[1])
		}
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			w.Write(payload)
		}
		log.Printf("%s %s %.200s %d %d %.1fms id=%s", r.RemoteAddr, r.Method, r.RequestURI, status, len(payload),
			float64(time.Since(started).Microseconds())/1000, id)
	})
	listener, err := net.Listen("tcp", net.JoinHostPort(*host, fmt.Sprint(*port)))
	if err != nil {
		log.Fatal(err)
	}
	server := &http.Server{Handler: handler, MaxHeaderBytes: 256<<10 + 4096}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		C.quire_sync_service_shutdown(service.ptr) // long polls answer now
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		server.Shutdown(ctx)
	}()
	fmt.Printf("listening on http://%s\n", listener.Addr())
	if err := server.Serve(listener); err != http.ErrServerClosed {
		log.Fatal(err)
	}
	inFlight.Wait()
	C.quire_sync_service_close(service.ptr)
}
