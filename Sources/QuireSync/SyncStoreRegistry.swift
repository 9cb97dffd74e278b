import Synchronization

/// The store factories of this process, by URL scheme, for hosts that open a service from a
/// store URL alone and cannot pass `SyncService.init(_:storeFactories:)` factories of their
/// own: the C request handler (`quire_sync_service_open`). The PostgreSQL flavour of the
/// library (`libquire-postgres`) registers `postgres` and `postgresql` here when it is
/// loaded; the default `libquire` registers nothing, and its services have the built-in
/// `sqlite` store only. quire-server passes its factories to the service directly.
///
/// Thread safety: registering and reading may happen from any thread (a lock).
public enum SyncStoreRegistry {
    private static let registered = Mutex<[String: SyncStoreFactory]>([:])

    /// Adds `factories` (keyed by the lowercase scheme: `"postgres"` for `postgres://...`);
    /// a scheme registered again gets the new factory.
    public static func register(_ factories: [String: SyncStoreFactory]) {
        registered.withLock { $0.merge(factories) { _, new in new } }
    }

    /// What has been registered, to pass as `SyncService.init(_:storeFactories:)`.
    public static var factories: [String: SyncStoreFactory] {
        registered.withLock { $0 }
    }
}
