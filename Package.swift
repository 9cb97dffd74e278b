// swift-tools-version: 6.3
//
// 6.3: the C layer implements include/quire.h with `@c @implementation` (SE-0495), which
// Swift 6.3 is the first to have; an older toolchain stops here, with the version it needs,
// rather than on the first `@c` it cannot compile.
//
// Quire's Swift modules, bottom up:
//   QuireSyntax   bytes to PDF objects: lexer, parser, cross-reference, filters, the
//                 standard security handler, the writer
//   QuireDocument the document model: pages, metadata, annotations, replies and review
//                 states, annotation JSON, bookmarks, outline, destinations and actions,
//                 page labels, editing and saving, checkpoints
//   QuireSync     the sync service's core: HTTP API as a router, JWTs, stores (no server)
//   Quire         the C layer: implements include/quire.h with @c @implementation and
//                 holds no logic beyond converting types and errors
//   QuireCLI      the command-line tool, quire; QuireServer (below) is quire-server
// The `quire` library product is libquire.so; `make` links it with the Swift runtime
// statically and a version script that exports only quire_* (see the Makefile).
import PackageDescription

// Each file imports every module it uses (SE-0444): without it, members of a module that
// any file of the target imports are visible in all of them, and what the C layer and the
// command-line tool take from the syntax layer would not show in their imports.
let strictImports: [SwiftSetting] = [.enableUpcomingFeature("MemberImportVisibility")]
/// The PDF model's release builds without the dynamic exclusivity checks of class
/// properties (swift_beginAccess: 6% of reading the corpus's annotations, more with the
/// calls around it). Debug builds, which run the tests and ASan, and the fuzz builds
/// (QUIRE_FUZZ: release with sanitizers) keep them, so an overlapping access is still
/// caught there.
let modelSettings: [SwiftSetting] = Context.environment["QUIRE_FUZZ"] != nil ? strictImports : strictImports + [
    .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release)),
]

let package = Package(
    name: "Quire",
    products: [
        .library(name: "quire", type: .dynamic, targets: ["Quire"]),
        .executable(name: "quire-cli", targets: ["QuireCLI"]),
        .executable(name: "quire-convergence", targets: ["QuireConvergenceCLI"]),
    ],
    dependencies: [
        // MD5, SHA-2 and AES for the standard security handler (ISO 32000-2 §7.6).
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // JWT verification for the sync service (RS256, RS512, ES256, ES512 only).
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        // Digital signatures (QuireSignatures): certificates, keys and chain validation
        // (X509), and the DER/BER coders of CMS and time stamps (SwiftASN1).
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        // The system zlib, for Flate streams.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        // The system Expat, to read the XHTML of rich text (Instant JSON's xhtml, /RC).
        .systemLibrary(name: "CExpat", path: "Sources/CExpat"),
        // The system HarfBuzz (shaping, hb-subset) and FriBidi, to draw text of any script in
        // generated appearances (Sources/QuireDocument/Text/AppearanceText.swift).
        .systemLibrary(name: "CHarfBuzz", path: "Sources/CHarfBuzz"),
        // The system fontconfig, to find a system font by the family name rich text gives.
        .systemLibrary(name: "CFontconfig", path: "Sources/CFontconfig"),
        // include/quire.h, through include/module.modulemap.
        .systemLibrary(name: "CQuire", path: "include"),
        .target(name: "QuireSyntax", dependencies: [
            "CZlib",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "CryptoExtras", package: "swift-crypto"),
        ], swiftSettings: modelSettings),
        // The system libjpeg (libjpeg-turbo), which re-encodes a redacted JPEG image in its own
        // filter (docs/redaction.md): the codec is libjpeg's, the C file only turns its
        // longjmp errors into a status.
        .target(name: "CQuireJPEG", path: "Sources/CQuireJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
        .target(name: "QuireDocument", dependencies: ["QuireSyntax", "CExpat", "CHarfBuzz", "CFontconfig", "CQuireJPEG"], swiftSettings: modelSettings),
        // Digital signatures (docs/signatures.md): signing (PAdES B-B/B-T, adbe.pkcs7.detached,
        // certification) and validation (integrity, coverage, chain, DocMDP). Above the
        // document model, which keeps the DocMDP guard of its own APIs and needs no crypto.
        .target(name: "QuireSignatures", dependencies: [
            "QuireDocument", "QuireSyntax",
            .product(name: "X509", package: "swift-certificates"),
            .product(name: "SwiftASN1", package: "swift-asn1"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "CryptoExtras", package: "swift-crypto"),
        ], swiftSettings: strictImports),
        // What libquire.so does at load: gives back the pages of its relocation table once
        // the loader has applied it (Sources/CQuireLoad/quire_load.c).
        .target(name: "CQuireLoad", path: "Sources/CQuireLoad"),
        .target(name: "Quire", dependencies: [
            "QuireDocument", "QuireSyntax", "QuireSignatures", "QuireSync", "QuireSyncProtocol", "QuireSyncClient", "CQuire", "CQuireLoad",
            // The signer's certificate handed out as DER (quire_signature_list_string).
            .product(name: "X509", package: "swift-certificates"),
            .product(name: "SwiftASN1", package: "swift-asn1"),
        ], swiftSettings: strictImports),
        // The system SQLite, for the sync service's default store and the client's local one.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        // A thin layer over SQLite's C API, shared by the service's store and the client's.
        .target(name: "QuireSQLite", dependencies: ["CSQLite"], swiftSettings: strictImports),
        // What the sync service and the client share (docs/sync-protocol.md): a request and
        // a response, the query decoder, the id rules, the layer digest. The client links
        // this, not the service's router, JWT verifier and store.
        .target(name: "QuireSyncProtocol", dependencies: [
            "QuireDocument",
            .product(name: "Crypto", package: "swift-crypto"),
        ], swiftSettings: strictImports),
        // The sync core (docs/sync-protocol.md): the HTTP API as a transport-free router,
        // JWTs, the SQLite store. No HTTP server and no SwiftNIO in it.
        .target(name: "QuireSync", dependencies: [
            "QuireSyncProtocol", "QuireSQLite", "QuireDocument", "QuireSyntax",
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "Crypto", package: "swift-crypto"),
        ], swiftSettings: strictImports),
        // The Instant-style sync client (docs/sync-client.md): descriptors, the local store,
        // push, pull and rebase through a small transport protocol. No SwiftNIO: the HTTP
        // transport is only in the server build.
        .target(name: "QuireSyncClient", dependencies: [
            "QuireSyncProtocol", "QuireSQLite", "QuireDocument", "QuireSyntax",
            .product(name: "JWTKit", package: "jwt-kit"),
        ], swiftSettings: strictImports),
        .executableTarget(name: "QuireCLI", dependencies: [
            "QuireDocument", "QuireSyntax", "QuireSignatures", "CQuire",
            .product(name: "X509", package: "swift-certificates"),
        ], swiftSettings: strictImports),
        .target(name: "QuireTestSupport", dependencies: [
            "QuireSyntax", "CZlib", .product(name: "JWTKit", package: "jwt-kit"),
        ], path: "Tests/QuireTestSupport", swiftSettings: strictImports),
        // What the fuzz targets do with one input, shared with the regression tests.
        .target(name: "QuireFuzzSupport", dependencies: ["QuireDocument", "QuireSyntax", "QuireSignatures"], path: "Tests/fuzz/Support", swiftSettings: strictImports),
        // The convergence harness of the sync (issue 30, Tests/Convergence/README.md): seeded
        // random schedules of several clients over a network the schedule controls, against
        // the real sync core. A library for the Swift tests, and `quire-convergence`, which
        // `make` builds in release for `make test` (500 schedules) and the long run.
        .target(name: "QuireConvergence", dependencies: [
            "QuireSync", "QuireSyncProtocol", "QuireSyncClient", "QuireDocument", "QuireSyntax", "QuireTestSupport",
            .product(name: "JWTKit", package: "jwt-kit"),
        ], path: "Tests/Convergence/Harness", swiftSettings: strictImports),
        .executableTarget(name: "QuireConvergenceCLI", dependencies: ["QuireConvergence"], path: "Tests/Convergence/Main",
                          swiftSettings: strictImports),
        .testTarget(name: "QuireSyntaxTests", dependencies: ["QuireSyntax", "QuireTestSupport"], swiftSettings: strictImports),
        .testTarget(name: "QuireSyncTests", dependencies: [
            "QuireSync", "QuireSyncProtocol", "QuireSQLite", "QuireSyncClient", "QuireDocument", "QuireSyntax", "QuireTestSupport", "QuireConvergence",
            .product(name: "JWTKit", package: "jwt-kit"),
            // RSA keys generated in the tests, to mint tokens.
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "CryptoExtras", package: "swift-crypto"),
        ], swiftSettings: strictImports),
        .testTarget(name: "QuireDocumentTests", dependencies: ["QuireDocument", "QuireSyntax", "QuireTestSupport", "QuireFuzzSupport"], swiftSettings: strictImports),
        .testTarget(name: "QuireSignaturesTests", dependencies: [
            "QuireSignatures", "QuireDocument", "QuireSyntax", "QuireTestSupport", "QuireFuzzSupport",
            .product(name: "X509", package: "swift-certificates"),
            .product(name: "SwiftASN1", package: "swift-asn1"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "CryptoExtras", package: "swift-crypto"),
        ], swiftSettings: strictImports),
    ]
)

// The libFuzzer targets (Tests/fuzz/Targets), only when QUIRE_FUZZ is set: their main()
// calls libFuzzer's driver, which only -sanitize=fuzzer links, so they cannot link in an
// ordinary `swift build`. `make fuzz` sets QUIRE_FUZZ=1 and builds them
// in their own scratch directory (.build/fuzz), so that their sanitizer flags never mix
// with the objects of the ordinary build. A separate package in Tests/fuzz would need the
// document module as a public product of this one, which it is not.
if Context.environment["QUIRE_FUZZ"] != nil {
    package.targets.append(.target(name: "CLibFuzzer", path: "Tests/fuzz/CLibFuzzer"))
    for name in ["FuzzWalk", "FuzzEdit", "FuzzJSON", "FuzzFont", "FuzzSignatures"] {
        package.targets.append(.executableTarget(
            name: name, dependencies: ["CLibFuzzer", "QuireFuzzSupport"], path: "Tests/fuzz/Targets/\(name)",
            swiftSettings: strictImports))
    }
}

// quire-server (Sources/QuireServer): the sync core behind Hummingbird 2, configured by
// swift-argument-parser, logging through swift-log, stopped by swift-service-lifecycle,
// with the PostgreSQL store (Sources/QuireSyncPostgres, postgres-nio). They and their
// dependencies (SwiftNIO, BoringSSL and the rest: minutes of compiling) are left out when
// QUIRE_NO_SERVER is set, as `make test-asan` and the fuzz builds do: neither runs the
// server, and both compile the package again in a scratch directory of their own.
if Context.environment["QUIRE_NO_SERVER"] == nil {
    package.dependencies += [
        // No traits: swift-configuration support and full Foundation are not used.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // quire-server's WebSocket transport (the change feed and pushes on one connection).
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // The sync client's WebSocket (libquire): its client, without Hummingbird.
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Already in Hummingbird's graph; named for the types the host converts to.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // The PostgreSQL store (LISTEN/NOTIFY across server processes).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The sync client's HTTP transport (http and https).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ]
    // The sync client's HTTP transport; the C layer uses it when it is there
    // (#if canImport(QuireSyncHTTP)), and answers QUIRE_EUNSUPPORTED without it.
    package.targets.append(.target(name: "QuireSyncHTTP", dependencies: [
        "QuireSyncProtocol", "QuireSyncClient",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "WSClient", package: "swift-websocket"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
    ], swiftSettings: strictImports))
    for target in package.targets where target.name == "Quire" {
        target.dependencies.append("QuireSyncHTTP")
    }
    // `quire doctor` reports the features of the library and quire-server built with it.
    for target in package.targets where target.name == "QuireCLI" {
        target.swiftSettings = (target.swiftSettings ?? []) + [.define("QUIRE_SYNC_HTTP")]
    }
    package.products.append(.executable(name: "quire-server", targets: ["QuireServer"]))
    // The sync core's PostgreSQL store, registered with SyncService through storeFactories.
    package.targets.append(.target(name: "QuireSyncPostgres", dependencies: [
        "QuireSync", "QuireSyncProtocol",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "Logging", package: "swift-log"),
    ], swiftSettings: strictImports))
    // The PostgreSQL flavour of the library (libquire-postgres, `make lib-postgres`): the
    // default library's targets plus a C constructor that hands the C layer a function
    // registering PostgresSyncStore with the sync core (SyncStoreRegistry), so that
    // quire_sync_service_open takes postgres:// URLs. Its own product, so that the default
    // libquire keeps postgres-nio and the full Foundation it imports (with ICU's data: 47 MB
    // more installed, docs/sync-protocol.md, "The embedded store") out. The targets are always
    // there (small); the product only when QUIRE_LIB_POSTGRES is set, as `make lib-postgres`
    // sets it: it is linked with its own soname (the Makefile's flags are given to every
    // link of one `swift build`), so the default build must not link it with libquire's.
    package.targets.append(.target(name: "CQuirePostgresFlavour", dependencies: ["CQuireLoad"],
                                   path: "Sources/CQuirePostgresFlavour"))
    package.targets.append(.target(name: "QuirePostgresFlavour", dependencies: [
        "CQuirePostgresFlavour", "QuireSync", "QuireSyncPostgres",
        .product(name: "Logging", package: "swift-log"),
    ], swiftSettings: strictImports))
    if Context.environment["QUIRE_LIB_POSTGRES"] != nil {
        package.products.append(.library(name: "quire-postgres", type: .dynamic, targets: ["Quire", "QuirePostgresFlavour"]))
    }
    package.targets.append(.executableTarget(name: "QuireServer", dependencies: [
        "QuireSync", "QuireSyncProtocol", "QuireSyncPostgres",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOWebSocket", package: "swift-nio"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
    ], swiftSettings: strictImports))
}
