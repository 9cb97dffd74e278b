// The Swift half of the PostgreSQL flavour of the library (libquire-postgres): the function
// that Sources/CQuirePostgresFlavour hands the C layer at load. Linked only into that
// flavour: the default libquire has no PostgreSQL store, and none of postgres-nio's
// dependencies (full Foundation, with ICU's data: docs/sync-protocol.md, "The embedded
// store").
import CQuirePostgresFlavour
import Logging
import QuireSync
import QuireSyncPostgres

/// Registers `PostgresSyncStore`'s factories (`postgres://`, `postgresql://`) with the sync
/// core's registry, where the C layer's `quire_sync_service_open` finds them. Called once,
/// by the C layer, before its first service opens; registering again changes nothing. The
/// stores log warnings and errors only (swift-log's default handler: standard error), not
/// the connection pool's routine events, which are info.
@c @implementation
public func quirepg_register_stores() {
    var logger = Logger(label: "quire.postgres")
    logger.logLevel = .warning
    SyncStoreRegistry.register(PostgresSyncStore.factories(logger: logger))
}
