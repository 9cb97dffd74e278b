import Dispatch
import FoundationEssentials
import QuireDocument
import QuireSyncProtocol
import QuireSyntax
#if canImport(Glibc)
import Glibc
#endif

/// One record of the editable document as its export gives it.
struct LocalRecord {
    /// The record without `pdfObjectId` (object numbers differ between clients), compact
    /// JSON with sorted keys: what is pushed and compared.
    var json: [UInt8]
    var object: Int?
    /// Its page; -1 for a form value or a bookmark (``LayerRecordKind``), on no page.
    var page: Int
    /// The ids it names (`quire.inReplyTo`, `quire.popup`): they are pushed first.
    var references: [String]
    var kind: LayerRecordKind = .annotation
}

/// A record's JSON without `pdfObjectId`, canonical; nil when it is not a JSON object.
func normalizedRecord(_ value: InstantJSONValue) -> InstantJSONValue? {
    guard var fields = value.objectValue else { return nil }
    fields["pdfObjectId"] = nil
    return .object(fields)
}

/// The document and layer of a server, downloaded into a local store, kept in sync.
///
/// Threads: the caller's (download, sync, reauthenticate only start work; the document's
/// edits record their pending mutations durably before they return), one worker thread per
/// descriptor (network and storage: download, push, pull, rebase), one listener thread
/// while listening (the long poll), and one event thread per descriptor on which every
/// event is delivered, in order.
public final class SyncDescriptor: @unchecked Sendable {
    public let documentID: String
    public let layer: String
    /// Strong: a listener thread may outlive the client's close by one long poll.
    let client: SyncClient

    /// Serial: downloads, syncs and reauthentications run here one at a time.
    let worker: DispatchQueue
    /// Serial: events are delivered here.
    let events: DispatchQueue
    private let listener: DispatchQueue

    /// Guards the fields below (not the store and not the document).
    private let stateLock = RecursiveLock()
    private var _state: SyncState = .unknown
    private var token: String?
    private var downloading = false
    /// The failure of the last download queued, until a download succeeds.
    private var downloadFailure: SyncClientError?
    private var listening = false
    /// The server answered the WebSocket upgrade with HTTP: the listener long-polls (read
    /// and written on the listener thread only).
    private var socketUnavailable = false
    private var closed = false
    /// Whether an automatic sync is scheduled (it runs `autoSyncDelay` after the first
    /// local change that it will push, however many follow).
    private var autoSyncScheduled = false
    /// Consecutive failed syncs (the retry's back-off); 0 after a sync that succeeded.
    private var failedSyncs = 0
    private var _autoSyncDelay: Double
    private var _lastChangeID: Int64 = 0

    /// The lock of the editable document: hold it around every use of the document
    /// (``withDocument(_:)``); the sync holds it while it applies the server's changes.
    public let documentLock = RecursiveLock()
    private var store: LocalStore?
    private var document: Document?
    /// The document's change observer while it is this descriptor's (the document holds
    /// it weakly; this keeps it alive).
    private var observer: LogObserver?
    /// The records of the editable document as last seen, by id (under documentLock).
    private var shadow: [String: LocalRecord] = [:]
    private var shadowOrder: [String] = []
    /// The objects that two pages list (two records each): a page's export alone cannot
    /// name them as the whole document's does, so a change of a page with one of them
    /// compares the whole document.
    private var sharedObjects: Set<Int> = []
    /// While the sync applies the server's changes, the change follower ignores them.
    private var applying = false
    /// How many entries of the document's change log the follower has seen.
    private var logged = 0
    /// The next change follower compares every page (after a failure to record).
    private var forceFullScan = false

    var directory: String { client.documentDirectory(documentID) }
    public var pdfPath: String { directory + "/document.pdf" }
    /// The local store's SQLite file (with its -wal and -shm beside it).
    public var storePath: String { directory + "/layers/" + layer + ".sqlite" }

    init(client: SyncClient, document: String, layer: String) throws {
        self.client = client
        documentID = document
        self.layer = layer
        worker = DispatchQueue(label: "quire.sync.worker")
        events = DispatchQueue(label: "quire.sync.events")
        listener = DispatchQueue(label: "quire.sync.listener")
        _autoSyncDelay = client.configuration.autoSyncDelay
        if fileExists(storePath) {
            let s = try openStore()
            _state = try s.downloaded ? (try s.pendingCount() > 0 ? .dirty : .clean) : .unknown
        }
    }

    // MARK: State

    public var state: SyncState { stateLock.withLock { _state } }

    private func setState(_ s: SyncState) {
        let changed: Bool = stateLock.withLock {
            guard _state != s else { return false }
            _state = s
            return true
        }
        if changed { client.emit(self, .stateChanged(s)) }
    }

    /// The state the store says when nothing runs.
    private func settle() {
        guard let store = try? openStore(), (try? store.downloaded) == true else {
            setState(state == .invalid ? .invalid : .unknown)
            return
        }
        if state == .invalid { return }
        setState(((try? store.pendingCount()) ?? 0) > 0 ? .dirty : .clean)
    }

    /// Seconds after a local change before the automatic sync; 0: off.
    public var autoSyncDelay: Double {
        get { stateLock.withLock { _autoSyncDelay } }
        set { stateLock.withLock { _autoSyncDelay = Swift.max(0, Swift.min(newValue, 86_400)) } }
    }

    /// How many local changes wait to be pushed (pending and sent but not answered).
    public func pendingChanges() throws -> Int { try openStore().pendingCount() }

    /// The id of the latest local change: each document operation that changes records (an
    /// edit, an import, an undo) is one local change, numbered 1, 2, ... per layer store.
    /// Read it after the operation returns to know its id; ``SyncEvent/changeDropped(_:)``
    /// names the ids it drops. 0: none yet.
    public var lastChangeID: Int64 {
        let known = stateLock.withLock { _lastChangeID }
        if known > 0 { return known }
        return (try? openStore().lastChangeID()) ?? 0
    }

    /// The client id of this installation and layer (made on first use, kept in the store).
    public func clientID() throws -> String {
        let s = try openStore()
        if let id = try s.meta("client_id") { return id }
        var g = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)
        let id = "qc-" + String(decoding: (0..<24).map { _ in alphabet[Int(g.next() % UInt64(alphabet.count))] }, as: UTF8.self)
        try s.transaction { try s.setMeta(["client_id": id]) }
        return id
    }

    private func openStore() throws -> LocalStore {
        try stateLock.withLock {
            if let store { return store }
            try makeDirectories(directory + "/layers")
            let s = try LocalStore(path: storePath)
            store = s
            return s
        }
    }

    // MARK: Download

    /// Starts downloading the PDF (once per document) and the layer's records with `token`,
    /// on the worker thread; events report progress and the end. A download while one runs
    /// is refused with a busy error. A token for another document or layer is an
    /// invalid-argument error.
    public func download(token: String) throws {
        try checkToken(token)
        try stateLock.withLock {
            guard !closed else { throw SyncClientError(.state, "the client is closed") }
            guard !downloading else { throw SyncClientError(.busy, "a download of \(documentID)/\(layer) is already running") }
            downloading = true
            self.token = token
        }
        worker.async { [self] in
            defer { stateLock.withLock { downloading = false } }
            do {
                try performDownload()
                stateLock.withLock { downloadFailure = nil }
                client.emit(self, .downloadFinished)
                settle()
            } catch {
                let e = error as? SyncClientError ?? SyncClientError(.storage, "\(error)")
                stateLock.withLock { downloadFailure = e }
                if e.kind == .authentication { client.emit(self, .authenticationNeeded) }
                client.emit(self, .downloadFailed(e))
                settle()
            }
        }
    }

    /// Downloads as ``download(token:)`` does and waits for the end: its failure is thrown.
    /// Never call it from an event handler or the token provider.
    public func downloadNow(token: String) throws {
        try download(token: token)
        try waitIdle()
    }

    /// Downloads on the calling thread (the worker's own work, and the blocking form).
    private func performDownload() throws {
        setState(.receivingChanges)
        if !fileExists(pdfPath) {
            let r = try call("GET", "/documents/\(documentID)/pdf")
            guard r.status == 200 else { throw SyncClientError(.protocolError, "the PDF download answered \(r.status)") }
            client.emit(self, .downloadProgress(completed: Int64(r.body.count), total: Int64(r.body.count)))
            do {
                _ = try Document(data: r.body).pageCount()
            } catch {
                throw SyncClientError(.protocolError, "the server's PDF cannot be opened: \(error)")
            }
            try makeDirectories(directory)
            try writeFileDurably(r.body, to: pdfPath)
        }
        try refetchLayer()
    }

    /// Fetches the whole layer and makes it the known server state (a download, or the
    /// answer to "reset"); local changes not yet answered are kept and stay on top.
    private func refetchLayer() throws {
        let r = try call("GET", "/documents/\(documentID)/layers/\(layer)")
        guard r.status == 200, let json = try? InstantJSONValue(parsing: r.body), let seq = json["seq"]?.integerValue,
              let items = json["records"]?.arrayValue else {
            throw SyncClientError(.protocolError, "the layer's answer is not {\"seq\", \"records\"}")
        }
        client.emit(self, .downloadProgress(completed: Int64(r.body.count), total: Int64(r.body.count)))
        var fetched: [(String, Int64, [UInt8])] = []
        for item in items {
            guard let revision = item["revision"]?.integerValue, let record = item["record"], let id = record["id"]?.stringValue,
                  let normalized = normalizedRecord(record) else {
                throw SyncClientError(.protocolError, "a record of the layer has no id or revision")
            }
            fetched.append((id, revision, normalized.canonicalBytes))
        }
        prefetchAttachments(fetched.map { $0.2 })
        let store = try openStore()
        try documentLock.withLock {
            try store.transaction {
                try store.deleteAllRecords()
                for (id, revision, json) in fetched { try store.putRecord(id, revision: revision, json: json) }
                try store.setMeta(["cursor": String(seq), "downloaded": "1"])
            }
            if document != nil { try reconcileDocument(announce: true) }
        }
    }

    // MARK: The editable document

    /// The editable document: the cached PDF with the layer's records (and the local
    /// changes not yet pushed). Made once; later calls return the same object. Use it
    /// only inside ``withDocument(_:)``, or while holding ``documentLock``.
    public func editableDocument() throws -> Document {
        try documentLock.withLock {
            if let document { return document }
            let store = try openStore()
            guard try store.downloaded, let pdf = readFile(pdfPath) else {
                throw SyncClientError(.state, "\(documentID)/\(layer) is not downloaded")
            }
            let d: Document
            do { d = try Document(data: pdf) } catch {
                throw SyncClientError(.storage, "the cached PDF cannot be opened: \(error)")
            }
            d.sharedLock = documentLock
            // The PDF is the server's: its pages and encryption stay as they are (a changed
            // PDF is uploaded as a new document, docs/pages.md).
            d.structureLockReason = "the document is synced, and its PDF is the server's; upload a changed PDF as a new document"
            document = d
            do {
                try pinRecordIDs(d)
                try reconcileDocument(announce: false)
            } catch {
                document = nil
                throw error
            }
            let o = LogObserver(self)
            observer = o
            d.addChangeObserver(o)
            return d
        }
    }

    /// Keeps the record id of every annotation whose id depends on another annotation (a
    /// /NM that an earlier annotation shares, which gives the object number): as
    /// /QuireID, so that deleting the other one does not change it (the layer's records
    /// were named by the server from this PDF, and their ids are the truth). Under
    /// documentLock, before the first reconcile (no local change comes of it).
    private func pinRecordIDs(_ d: Document) throws {
        applying = true
        defer { applying = false }
        try d.pinAnnotationRecordIDs()
    }

    /// Runs `body` with the editable document, holding its lock (the sync does not apply
    /// the server's changes meanwhile).
    public func withDocument<T>(_ body: (Document) throws -> T) throws -> T {
        try documentLock.withLock { try body(try editableDocument()) }
    }

    /// The records of the editable document's export (of page `page`, or of every page),
    /// by id, in the export's order.
    private func exportRecords(_ d: Document, page: Int? = nil) throws -> (order: [String], records: [String: LocalRecord]) {
        let exported = try InstantJSONValue(parsing: d.exportAnnotationsJSON(page: page, prettyPrinted: false))
        var order: [String] = []
        var records: [String: LocalRecord] = [:]
        for item in exported["annotations"]?.arrayValue ?? [] {
            guard let id = item["id"]?.stringValue, let normalized = normalizedRecord(item) else { continue }
            let quire = item["quire"]
            let refs = [quire?["inReplyTo"]?.stringValue, quire?["popup"]?.stringValue].compactMap { $0 }
            order.append(id)
            records[id] = LocalRecord(json: normalized.canonicalBytes, object: item["pdfObjectId"]?.integerValue.map { Int($0) },
                                      page: Int(item["pageIndex"]?.integerValue ?? -1), references: refs)
        }
        if page == nil {
            for (id, r) in try formValuesAndBookmarks(d) {
                order.append(id)
                records[id] = r
            }
        }
        return (order, records)
    }

    /// The document's form values and user bookmarks as the layer's records (issue 33,
    /// ``LayerRecords``): one record per field whose value can be set, whether the layer
    /// has a record of it or not (a field the layer has no record of keeps the PDF's
    /// value; a change of it is a put that creates its record), and one per bookmark.
    private func formValuesAndBookmarks(_ d: Document) throws -> [(String, LocalRecord)] {
        var out: [(String, LocalRecord)] = []
        for value in d.formFieldValueRecords() {
            let record = LayerRecords.record(value)
            guard let id = record["id"]?.stringValue else { continue }
            out.append((id, LocalRecord(json: record.canonicalBytes, object: nil, page: -1, references: [], kind: .formFieldValue)))
        }
        for b in try d.bookmarks.bookmarks(sortedBy: .custom) {
            guard let record = LayerRecords.record(b) else { continue }
            out.append((b.identifier, LocalRecord(json: record.canonicalBytes, object: nil, page: -1, references: [], kind: .bookmark)))
        }
        return out
    }

    /// Makes the document show the local view (the known server records with the local
    /// changes on top): deletes the annotations the view lacks, imports the records that
    /// differ. Under documentLock.
    private func reconcileDocument(announce: Bool) throws {
        guard let d = document else { return }
        let store = try openStore()
        let view = try store.localView()
        applying = true
        defer { applying = false }
        var current = try exportRecords(d)
        var wanted: [String: [UInt8]] = [:]
        for (id, json) in view { wanted[id] = json }
        var changed: [String] = []
        var deleted = false
        for id in current.order {
            guard let r = current.records[id] else { continue }
            // A form value stays when the layer has no record of it (the PDF's value).
            if r.kind == .formFieldValue { continue }
            let keep = r.kind == .bookmark ? wanted[id] != nil
                : wanted[id].flatMap { try? InstantJSONValue(parsing: $0) }.flatMap { $0["pageIndex"]?.integerValue } == Int64(r.page)
            if !keep {
                try deleteLocal(d, r)
                changed.append(id)
                deleted = true
            }
        }
        // A deletion may have taken other records with it (an object two pages list is
        // two records): compare with what the document holds now.
        if deleted { current = try exportRecords(d) }
        // A record of an object that another page lists too, whose value changes: its page
        // gets its own copy of the object first, or the import would change the other
        // page's record with it (the layer may hold the two records with different values).
        var listings: [Int: Int] = [:]
        for r in current.records.values { if let object = r.object { listings[object, default: 0] += 1 } }
        var separated = false
        for (id, json) in view where current.records[id]?.json != json {
            guard let r = current.records[id], let object = r.object, listings[object, default: 0] > 1, r.page >= 0 else { continue }
            if try d.separateSharedAnnotation(object, onPage: r.page) != nil { separated = true }
        }
        if separated { current = try exportRecords(d) }
        var items: [InstantJSONValue] = []
        var others: [InstantJSONValue] = []
        for (id, json) in view where current.records[id]?.json != json {
            if let item = prepared(json) {
                if LayerRecords.kind(of: item) == .annotation { items.append(item) } else { others.append(item) }
            }
            changed.append(id)
        }
        try importRecords(d, items)
        try applyFormValuesAndBookmarks(d, others)
        let after = try exportRecords(d)
        shadow = after.records
        shadowOrder = after.order
        noteSharedObjects()
        logged = d.changeLog.count  // what applying changed is not a local change
        if announce && !changed.isEmpty { client.emit(self, .documentChanged(changed)) }
    }

    /// A record to import: the record itself, without `pdfObjectId`. Its links stay ids
    /// even when the layer lacks their target (a reply whose parent was deleted): the
    /// import keeps them (``MissingLinkPolicy/keep``), so the document's export gives back
    /// the record as the server has it.
    private func prepared(_ json: [UInt8]) -> InstantJSONValue? {
        guard let value = try? InstantJSONValue(parsing: json) else { return nil }
        return normalizedRecord(value)
    }

    /// Imports records into the document: all at once, or (when that fails) one by one,
    /// each that the document refuses reported and left out.
    private func importRecords(_ d: Document, _ items: [InstantJSONValue]) throws {
        guard !items.isEmpty else { return }
        func json(_ items: [InstantJSONValue]) -> [UInt8] {
            var top: [String: InstantJSONValue] = ["format": .string(InstantJSONDocument.instantJSONFormat),
                                                   "quire": .object(["version": .integer(1)]), "annotations": .array(items)]
            // The images and files of the records, as Instant JSON's attachments (fetched
            // on demand).
            var attachments: [String: InstantJSONValue] = [:]
            for item in items {
                guard let (id, type) = Self.attachment(of: item), let bytes = attachmentBytes(id) else { continue }
                var attachment: [String: InstantJSONValue] = ["binary": .string(Data(bytes).base64EncodedString())]
                // A file record without a media type shows a file without one, as its
                // export gives it back; an image's type is needed to read it.
                if item["type"]?.stringValue == "pspdfkit/image" || item["contentType"] != nil {
                    attachment["contentType"] = .string(type)
                }
                attachments[id] = .object(attachment)
            }
            if !attachments.isEmpty { top["attachments"] = .object(attachments) }
            return InstantJSONValue.object(top).canonicalBytes
        }
        if (try? d.importAnnotationsJSON(json(items), options: .synced)) != nil { return }
        for item in items {
            do {
                _ = try d.importAnnotationsJSON(json([item]), options: .synced)
            } catch {
                let id = item["id"]?.stringValue ?? "?"
                client.emit(self, .syncFailed(SyncClientError(.protocolError, "the record \(id.prefix(80)) cannot be shown in the document: \(error)")))
            }
        }
    }

    /// Shows form value and bookmark records in the document: a value through the forms
    /// model (the annotation JSON's `formFieldValues`, which regenerates appearances), a
    /// bookmark through the bookmark manager (replaced whole, with its sort key). One
    /// that the document refuses is reported and left out.
    private func applyFormValuesAndBookmarks(_ d: Document, _ items: [InstantJSONValue]) throws {
        for item in items {
            let id = item["id"]?.stringValue ?? "?"
            do {
                switch LayerRecords.kind(of: item) {
                case .formFieldValue:
                    guard case .object(var fields) = item else { continue }
                    fields["id"] = nil
                    let json = InstantJSONValue.object([
                        "format": .string(InstantJSONDocument.instantJSONFormat), "quire": .object(["version": .integer(1)]),
                        "formFieldValues": .array([.object(fields)]),
                    ])
                    _ = try d.importAnnotationsJSON(json.canonicalBytes, options: .synced)
                case .bookmark:
                    let b = try LayerRecords.bookmark(item)
                    if try d.bookmarks.bookmark(identifier: b.identifier) != nil { try d.bookmarks.remove(identifier: b.identifier) }
                    try d.bookmarks.add(b)
                case .annotation:
                    continue
                }
            } catch {
                client.emit(self, .syncFailed(SyncClientError(.protocolError, "the record \(id.prefix(80)) cannot be shown in the document: \(error)")))
            }
        }
    }

    private func deleteLocal(_ d: Document, _ r: LocalRecord) throws {
        if r.kind == .bookmark {
            if let json = try? InstantJSONValue(parsing: r.json), let id = json["id"]?.stringValue,
               try d.bookmarks.bookmark(identifier: id) != nil {
                try d.bookmarks.remove(identifier: id)
            }
            return
        }
        guard let object = r.object, r.page >= 0 else { return }
        for a in try d.annotations(onPage: r.page) where a.id?.number == object {
            if let id = a.id { try d.deleteAnnotation(id) }
            return
        }
    }

    /// The descriptor's reader of the document's change log.
    private final class LogObserver: ChangeObserver {
        weak var descriptor: SyncDescriptor?
        init(_ descriptor: SyncDescriptor) { self.descriptor = descriptor }
        func changesMade(_ log: [Change], in document: Document) throws { try descriptor?.follow(document, log) }
    }

    /// What the operation changed in the records becomes pending mutations, written
    /// durably before the operation returns (the document's change observer). Under
    /// documentLock (the caller's edit holds it, or takes it here).
    private func follow(_ d: Document, _ log: [Change]) throws {
        let changed: Bool = try documentLock.withLock {
            guard !applying, d === document else { return false }
            // The pages whose annotations the new log entries may have changed; nil: every
            // page (an entry this cannot place, or a log that a save emptied).
            let pages = try changedPages(d, log)
            // Until this operation's changes are recorded, a failure leaves the next
            // operation to compare every page (the shadow is not updated either).
            forceFullScan = true
            var changes: [(String, [UInt8]?)] = []
            var after: (order: [String], records: [String: LocalRecord])
            if let pages {
                after = (shadowOrder, shadow)
                for page in pages.sorted() {
                    let fresh = try exportRecords(d, page: page)
                    // An id that another page's record has (a duplicate /NM), or an object
                    // that another page lists too: the export of the whole document names
                    // them differently; take that one.
                    if fresh.order.contains(where: { id in shadow[id].map { $0.page != page } ?? false })
                        || fresh.records.values.contains(where: { $0.object.map { sharedObjects.contains($0) } ?? false }) {
                        after = try exportRecords(d)
                        break
                    }
                    for (id, r) in shadow where r.page == page && fresh.records[id] == nil { after.records[id] = nil }
                    for id in fresh.order { after.records[id] = fresh.records[id] }
                    after.order = after.order.filter { after.records[$0] != nil }
                    let known = Set(after.order)
                    after.order += fresh.order.filter { !known.contains($0) }
                }
                // Form values and bookmarks are on no page: compared on every edit.
                for (id, r) in after.records where r.page < 0 { after.records[id] = nil }
                after.order = after.order.filter { after.records[$0] != nil }
                for (id, r) in try formValuesAndBookmarks(d) {
                    after.order.append(id)
                    after.records[id] = r
                }
            } else {
                after = try exportRecords(d)
            }
            for id in after.order {
                guard let r = after.records[id] else { continue }
                if shadow[id]?.json != r.json { changes.append((id, r.json)) }
            }
            for id in shadowOrder where after.records[id] == nil { changes.append((id, nil)) }
            if !changes.isEmpty {
                try keepLocalAttachments(d, changes, after.records)
                let store = try openStore()
                let change = try store.transaction {
                    let change = try store.nextChangeID()
                    for (id, json) in changes { try store.recordLocalChange(id, json: json, change: change) }
                    return change
                }
                stateLock.withLock { _lastChangeID = change }
            }
            shadow = after.records
            shadowOrder = after.order
            noteSharedObjects()
            logged = log.count
            forceFullScan = false
            return !changes.isEmpty
        }
        guard changed else { return }
        if state == .clean || state == .unknown { setState(.dirty) }
        scheduleAutoSync()
    }

    /// Adds to ``sharedObjects`` the objects of which the shadow holds two records.
    private func noteSharedObjects() {
        var seen: Set<Int> = []
        for r in shadow.values {
            guard let o = r.object else { continue }
            if !seen.insert(o).inserted { sharedObjects.insert(o) }
        }
    }

    /// The pages whose records the change log's new entries may have changed: the pages of
    /// the annotations changed or deleted, and of the page objects and /Annots arrays
    /// changed; new streams (appearances) and new annotation dictionaries (their page's
    /// /Annots changes with them) add none. nil when an entry cannot be placed (any other
    /// object), when the log is shorter than what was seen (a save), or after a failure:
    /// then every page is compared. The cost of an edit is then that of its pages, not of
    /// the whole document.
    private func changedPages(_ d: Document, _ log: [Change]) throws -> Set<Int>? {
        if forceFullScan || log.count < logged { return nil }
        guard logged < log.count else { return [] }
        // Every page of each object: an object that two pages list is two records, and a
        // change of it changes both.
        var objectPages: [Int: Set<Int>] = [:]
        for r in shadow.values { if let o = r.object { objectPages[o, default: []].insert(r.page) } }
        var pageOf: [Int: Int] = [:]
        for page in try d.pages() {
            if let id = page.id { pageOf[id.number] = page.index }
            if case .reference(let annots)? = page.dictionary["Annots"] { pageOf[annots.number] = page.index }
        }
        var pages = Set<Int>()
        for change in log[logged...] {
            switch change {
            case .setObject(let id, let value):
                if let p = objectPages[id.number] {
                    pages.formUnion(p)
                    continue
                }
                if let p = pageOf[id.number] {
                    pages.insert(p)
                    continue
                }
                switch value {
                case .stream: continue
                case .dictionary(let dict) where dict["Subtype"] != nil: continue
                default: return nil
                }
            case .deleteObject(let id):
                if let p = objectPages[id.number] { pages.formUnion(p) } else if let p = pageOf[id.number] { pages.insert(p) }
            }
        }
        return pages
    }

    /// Schedules the automatic sync, unless one is scheduled already: it runs
    /// `autoSyncDelay` after the first local change not yet pushed (not after the last:
    /// a program that edits without pause still shares its changes), behind a sync
    /// already running. Changes made meanwhile go with it, or with the next one.
    private func scheduleAutoSync(after seconds: Double? = nil) {
        let delay: Double? = stateLock.withLock {
            guard _autoSyncDelay > 0, !autoSyncScheduled, !closed else { return nil }
            autoSyncScheduled = true
            return seconds ?? _autoSyncDelay
        }
        guard let delay else { return }
        worker.asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self else { return }
            let run: Bool = self.stateLock.withLock {
                self.autoSyncScheduled = false
                return !self.closed && self._autoSyncDelay > 0
            }
            if run { self.runSync() }
        }
    }

    /// The wait before retrying after a failure on the network: 0.5, 1, then 2 s, each
    /// with up to half again of random jitter (so that clients cut off together do not
    /// come back in step): at most 3 s.
    static func retryDelay(failures: Int) -> Double {
        let base = Swift.min(0.5 * Double(1 << Swift.min(Swift.max(failures - 1, 0), 2)), 2)
        return base * Double.random(in: 1...1.5)
    }

    // MARK: Sync

    /// Starts a sync (push, then pull) on the worker thread; syncFinished or syncFailed
    /// follows.
    public func sync() {
        worker.async { [self] in runSync() }
    }

    /// Syncs on the calling thread, waiting for the worker's queue; throws what failed.
    /// Never call it from an event handler or the token provider (they run on threads
    /// this waits for).
    public func syncNow() throws {
        var failure: SyncClientError?
        worker.sync {
            do { try performSync() } catch let e as SyncClientError { failure = e } catch { failure = SyncClientError(.storage, "\(error)") }
            afterSync(failure)
        }
        if let failure { throw failure }
    }

    /// Waits until the work queued so far (downloads, syncs) and its events are done;
    /// throws the failure of the last download queued when it failed (and none succeeded
    /// since), so that a download never fails silently. Failed syncs are not thrown (their
    /// changes stay pending and are retried): ``syncNow()`` throws those.
    public func waitIdle() throws {
        worker.sync {}
        events.sync {}
        if let failure = stateLock.withLock({ downloadFailure }) { throw failure }
    }

    /// The client's records: the server's records as last synced with the local changes
    /// not yet acknowledged on top, each canonical (compact, keys sorted, no
    /// `pdfObjectId`), in the order of the records then of local creations. After a sync
    /// that ends clean they equal the server's, byte for byte, and so does the editable
    /// document's export of them (docs/sync-client.md, "The record is the truth").
    public func records() throws -> [(id: String, json: [UInt8])] {
        try documentLock.withLock {
            let store = try openStore()
            guard try store.downloaded else { throw SyncClientError(.state, "\(documentID)/\(layer) is not downloaded") }
            return try store.localView()
        }
    }

    /// The local changes not yet acknowledged by the server: the mutations sent and not
    /// answered (with their client sequence number), then the pending ones, each with the
    /// local change ids it carries.
    public func unacknowledgedChanges() throws -> [LocalMutation] {
        try documentLock.withLock {
            let store = try openStore()
            return try store.outbox() + store.pending()
        }
    }

    /// ``records()`` as annotation JSON: `{"annotations": [...]}`.
    public func recordsJSON() throws -> [UInt8] {
        var out: [UInt8] = Array("{\"annotations\":[".utf8)
        for (i, r) in try records().enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out += r.json
        }
        out += Array("]}".utf8)
        return out
    }

    /// How many times the client found its records differing from the server's and
    /// fetched them again (``SyncEvent/recordsRepaired(_:message:)``), for the life of the
    /// local store.
    public func repairs() throws -> Int64 { Int64(try openStore().meta("repairs") ?? "0") ?? 0 }

    private func runSync() {
        do {
            try performSync()
            afterSync(nil)
        } catch let e as SyncClientError {
            afterSync(e)
        } catch {
            afterSync(SyncClientError(.storage, "\(error)"))
        }
    }

    private func afterSync(_ failure: SyncClientError?) {
        if let failure {
            if failure.kind == .authentication { client.emit(self, .authenticationNeeded) }
            if failure.kind == .forbidden { setState(.invalid) }
            client.emit(self, .syncFailed(failure))
        } else {
            client.emit(self, .syncFinished)
        }
        settle()
        // Local changes still waiting: with automatic sync on, try again soon (the network
        // is back within seconds of coming back), or at once for changes made meanwhile.
        let failures: Int = stateLock.withLock {
            failedSyncs = failure?.kind == .network ? failedSyncs + 1 : 0
            return failedSyncs
        }
        guard failure == nil || failure?.kind == .network, ((try? openStore().pendingCount()) ?? 0) > 0 else { return }
        scheduleAutoSync(after: failure == nil ? nil : Self.retryDelay(failures: failures))
    }

    private func performSync() throws {
        let store = try openStore()
        guard try store.downloaded else { throw SyncClientError(.state, "\(documentID)/\(layer) is not downloaded") }
        try push(store)
        try pull(store)
    }

    /// Orders mutations so that a record comes after the records of the same push it names.
    private func dependencyOrder(_ mutations: [LocalMutation]) -> [LocalMutation] {
        var byID: [String: LocalMutation] = [:]
        for m in mutations { byID[m.id] = m }
        var done = Set<String>()
        var out: [LocalMutation] = []
        for m in mutations {
            // Iterative depth-first walk over references (bounded by the batch; cycles stop).
            var stack: [(String, Bool)] = [(m.id, false)]
            var onPath = Set<String>()
            while let (id, expanded) = stack.popLast() {
                if done.contains(id) { continue }
                guard let mutation = byID[id] else { continue }
                if expanded {
                    done.insert(id)
                    onPath.remove(id)
                    out.append(mutation)
                    continue
                }
                guard !onPath.contains(id) else { continue }
                onPath.insert(id)
                stack.append((id, true))
                if mutation.op == "put", let record = mutation.record, let value = try? InstantJSONValue(parsing: record) {
                    for ref in [value["quire"]?["inReplyTo"]?.stringValue, value["quire"]?["popup"]?.stringValue].compactMap({ $0 })
                    where byID[ref] != nil && !done.contains(ref) {
                        stack.append((ref, false))
                    }
                }
            }
        }
        return out
    }

    private func push(_ store: LocalStore) throws {
        let clientID = try clientID()
        // Attachments uploaded again in this sync because a push found them missing (how
        // often), and those just uploaded again, which the next push does not upload again.
        var reuploads: [String: Int] = [:]
        var fresh: Set<String> = []
        // After a missing attachment, one mutation a push for the rest of this sync: a
        // server without a grace period collects, at each upload, the attachments that no
        // record names yet, so the uploads of one push's new attachments would collect one
        // another (docs/sync-client.md, "Refused pushes").
        var oneAtATime = false
        while true {
            // One transaction: the outbox rows, the pending rows they replace and the next
            // client_seq go together (a crash between them once made a later mutation reuse
            // a client_seq, which the server answered with the earlier one's answer).
            if try store.outbox().isEmpty { try store.transaction { try store.sealPending(order: dependencyOrder) } }
            let outbox = try store.outbox()
            guard !outbox.isEmpty else { return }
            setState(.sendingChanges)
            let batch = Array(outbox.prefix(oneAtATime ? 1 : 200))
            var mutations: [InstantJSONValue] = []
            for m in batch {
                var fields: [String: InstantJSONValue] = [
                    "client_seq": .integer(m.clientSeq ?? 0), "op": .string(m.op), "id": .string(m.id),
                    "base_revision": m.baseRevision.map { .integer($0) } ?? .null,
                ]
                if m.op == "put", let record = m.record { fields["record"] = try InstantJSONValue(parsing: record) }
                // What this change changed: the server merges it with concurrent changes of
                // other fields instead of refusing it (push version 2).
                if m.op == "put", m.baseRevision != nil, let changed = m.fields {
                    fields["fields"] = .array(changed.sorted().map(InstantJSONValue.string))
                }
                mutations.append(.object(fields))
            }
            // The attachments of the puts that may name a new one (a create, a whole
            // record, or a change of the attachment's field), before the push: a put that
            // keeps its attachment is merged onto the server's record, which has it.
            var uploaded = fresh
            fresh = []
            for m in batch where m.op == "put" {
                guard let record = m.record, let value = try? InstantJSONValue(parsing: record),
                      let (sha, _) = Self.attachment(of: value),
                      let key = RecordAttachment.key(ofType: value["type"]?.stringValue),
                      m.baseRevision == nil || m.fields.map({ $0.contains(key) }) ?? true,
                      uploaded.insert(sha).inserted else { continue }
                try uploadAttachment(of: value)
            }
            let body = InstantJSONValue.object(["v": .integer(2), "client_id": .string(clientID),
                                                "mutations": .array(mutations)]).canonicalBytes
            let r = try call("POST", "/documents/\(documentID)/layers/\(layer)/mutations", body: body)
            // The whole push refused, nothing applied (docs/sync-client.md, "Refused
            // pushes"): a missing attachment is uploaded again and the push retried; a
            // record refused on its own is dropped and reported, and the rest pushed again.
            if r.status == 409 || r.status == 422, let refused = Self.refusedMutations(r) {
                fresh = try handleRefusedPush(store, batch, refused, reuploads: &reuploads)
                if refused.contains(where: { $0.attachment != nil }) { oneAtATime = true }
                continue
            }
            guard r.status == 200, let answer = try? InstantJSONValue(parsing: r.body), let results = answer["results"]?.arrayValue,
                  results.count == batch.count else {
                throw SyncClientError(.protocolError, "the push answered \(r.status): \(String(decoding: r.body.prefix(300), as: UTF8.self))")
            }
            var dropped: [(mutation: LocalMutation, reason: String, message: String, changes: [Int64], fields: [String])] = []
            var merged = false
            try documentLock.withLock {
                try store.transaction {
                    for (m, result) in zip(batch, results) {
                        guard let seq = m.clientSeq else { continue }
                        if result["status"]?.stringValue == "accepted", let revision = result["revision"]?.integerValue {
                            if m.op == "put", let value = result["record"].flatMap(normalizedRecord) {
                                // Merged with concurrent changes: the server's record is the
                                // truth; a later local change of it keeps only its own fields.
                                let record = value.canonicalBytes
                                try store.putRecord(m.id, revision: revision, json: record)
                                try store.rebasePending(m.id, on: record)
                                try store.rebaseChained(m.id, revision: revision)
                                merged = true
                                let lost = result["dropped_fields"]?.arrayValue?.compactMap(\.stringValue) ?? []
                                if !lost.isEmpty {
                                    dropped.append((m, "conflict", "the fields \(lost.joined(separator: ", ")) of \(m.id) changed on the server first; the change's other fields were kept",
                                                    m.changes, lost))
                                }
                            } else if m.op == "put", let record = m.record {
                                try store.putRecord(m.id, revision: revision, json: record)
                                try store.rebaseChained(m.id, revision: revision)
                            } else {
                                try store.deleteRecord(m.id)
                                try store.rebaseChained(m.id, revision: nil)
                            }
                        } else {
                            // Rejected: the server's record wins; a later local change of
                            // the same record builds on the dropped one and goes too.
                            let current = result["current"].flatMap { $0 == .null ? nil : normalizedRecord($0) }
                            if let current, let revision = result["current_revision"]?.integerValue {
                                try store.putRecord(m.id, revision: revision, json: current.canonicalBytes)
                            } else {
                                try store.deleteRecord(m.id)
                            }
                            let later = try store.dropPending(m.id)
                            dropped.append((m, result["reason"]?.stringValue ?? "conflict", result["message"]?.stringValue ?? "", m.changes + later,
                                            result["fields"]?.arrayValue?.compactMap(\.stringValue) ?? []))
                        }
                        try store.removeFromOutbox(seq)
                    }
                }
                if !dropped.isEmpty || merged, document != nil { try reconcileDocument(announce: true) }
            }
            for d in dropped {
                client.emit(self, .changeDropped(SyncDroppedChange(id: d.mutation.id, reason: d.reason, message: d.message,
                                                                   clientSeq: d.mutation.clientSeq ?? 0, changes: d.changes,
                                                                   fields: d.fields)))
            }
        }
    }

    private func pull(_ store: LocalStore) throws {
        let clientID = try clientID()
        while true {
            let cursor = try store.cursor
            let r = try call("GET", "/documents/\(documentID)/layers/\(layer)/changes", query: ["since": String(cursor)])
            guard r.status == 200, let answer = try? InstantJSONValue(parsing: r.body) else {
                throw SyncClientError(.protocolError, "the feed answered \(r.status)")
            }
            if answer["reset"]?.boolValue == true {
                setState(.needsReset)
                try refetchLayer()
                return
            }
            guard let seq = answer["seq"]?.integerValue, let changes = answer["changes"]?.arrayValue else {
                throw SyncClientError(.protocolError, "the feed's answer has no seq or changes")
            }
            if !changes.isEmpty { setState(.receivingChanges) }
            prefetchAttachments(changes.compactMap { $0["record"]?.canonicalBytes })
            var changed: [String] = []
            try documentLock.withLock {
                let local = try store.locallyChangedIDs()
                var apply: [(String, InstantJSONValue?)] = []
                try store.transaction {
                    for c in changes {
                        guard let id = c["id"]?.stringValue, let changeSeq = c["seq"]?.integerValue else {
                            throw SyncClientError(.protocolError, "a change has no id or seq")
                        }
                        let known = try store.record(id)
                        if c["op"]?.stringValue == "delete" {
                            try store.deleteRecord(id)
                            if known != nil && !local.contains(id) { apply.append((id, nil)) }
                        } else {
                            guard let record = c["record"].flatMap(normalizedRecord) else {
                                throw SyncClientError(.protocolError, "a put change has no record")
                            }
                            let json = record.canonicalBytes
                            try store.putRecord(id, revision: changeSeq, json: json)
                            // Our own change comes back as we pushed it: nothing to show,
                            // unless the server changed it (creatorName).
                            let own = c["client_id"]?.stringValue == clientID && known?.json == json
                            if !own && !local.contains(id) { apply.append((id, record)) }
                        }
                    }
                    // With more to come, `seq` is the layer's: the next page starts after
                    // this one's last change.
                    let more = answer["more"]?.boolValue == true
                    let next = more ? (changes.last?["seq"]?.integerValue ?? seq) : seq
                    try store.setMeta(["cursor": String(next)])
                }
                if !apply.isEmpty, document != nil {
                    try reconcileDocument(announce: false)
                }
                changed = apply.map(\.0)
            }
            if !changed.isEmpty { client.emit(self, .documentChanged(changed)) }
            if answer["more"]?.boolValue != true {
                // Every change up to `seq` applied: the records must be the server's. A
                // digest that differs means one is not; fetch them again.
                if let text = answer["digest"]?.stringValue, let remote = LayerDigest(hex: text) {
                    let local = try store.digest()
                    if local != remote { try repair(store, local: local, remote: remote, seq: seq) }
                }
                return
            }
        }
    }

    /// The client's records differ from the server's (their digests at `seq` differ):
    /// fetches the layer, keeps it as the server's records (local changes not yet
    /// acknowledged stay on top), shows it, reports the records that differed and counts
    /// the repair. Never expected: a defect of the client, the server, or the store.
    private func repair(_ store: LocalStore, local: LayerDigest, remote: LayerDigest, seq: Int64) throws {
        var before: [String: (Int64, [UInt8])] = [:]
        for r in try store.records() { before[r.id] = (r.revision, r.json) }
        try refetchLayer()
        var differing: [String] = []
        var after: Set<String> = []
        for r in try store.records() {
            after.insert(r.id)
            if let b = before[r.id], b.0 == r.revision, b.1 == r.json { continue }
            differing.append(r.id)
        }
        differing += before.keys.filter { !after.contains($0) }.sorted()
        let count = (Int64(try store.meta("repairs") ?? "0") ?? 0) + 1
        try store.transaction { try store.setMeta(["repairs": String(count)]) }
        client.emit(self, .recordsRepaired(differing, message: "the client's records (digest \(local)) differed from the server's (digest \(remote)) at seq \(seq): \(differing.count) record(s) fetched again"))
    }

    /// The mutations a push refused whole names (`"error": {"code": "invalid_record" |
    /// "missing_attachment", "mutations": [...]}`), or nil for another answer.
    static func refusedMutations(_ r: SyncResponse) -> [(clientSeq: Int64, message: String, attachment: String?)]? {
        guard let error = (try? InstantJSONValue(parsing: r.body))?["error"],
              let code = error["code"]?.stringValue, code == "invalid_record" || code == "missing_attachment",
              let items = error["mutations"]?.arrayValue, !items.isEmpty else { return nil }
        var out: [(clientSeq: Int64, message: String, attachment: String?)] = []
        for item in items {
            guard let seq = item["client_seq"]?.integerValue else { return nil }
            out.append((seq, item["message"]?.stringValue ?? code, code == "missing_attachment" ? item["attachment"]?.stringValue : nil))
        }
        return out
    }

    /// A push refused whole: nothing of it was applied and no answer kept, so its other
    /// mutations go again with the same client_seq. A missing attachment that this client
    /// holds is uploaded again (at most three times in one sync: more means the server
    /// collects it before each push, and the sync fails with the change kept pending); a
    /// record the server refuses on its own, or whose attachment this client cannot
    /// upload, is dropped: its local changes go, the document shows the server's record,
    /// and ``SyncEvent/changeDropped(_:)`` reports it with reason "invalid". Each round
    /// uploads or drops something, so the retries end. Returns the attachments uploaded
    /// again (the next push does not upload them once more).
    private func handleRefusedPush(_ store: LocalStore, _ batch: [LocalMutation],
                                   _ refused: [(clientSeq: Int64, message: String, attachment: String?)],
                                   reuploads: inout [String: Int]) throws -> Set<String> {
        var drop: [(mutation: LocalMutation, message: String)] = []
        var uploaded: Set<String> = []
        for x in refused {
            guard let m = batch.first(where: { $0.clientSeq == x.clientSeq }) else {
                throw SyncClientError(.protocolError, "the push was refused for client_seq \(x.clientSeq), which it did not carry")
            }
            guard let sha = x.attachment else {
                drop.append((m, x.message))
                continue
            }
            let value = m.record.flatMap { try? InstantJSONValue(parsing: $0) }
            guard let value, let (named, type) = Self.attachment(of: value), named == sha,
                  let bytes = readFile(attachmentsDirectory + "/" + sha) else {
                drop.append((m, x.message + "; this client holds no copy of it to upload"))
                continue
            }
            let tries = reuploads[sha, default: 0] + 1
            reuploads[sha] = tries
            guard tries <= 3 else {
                throw SyncClientError(.protocolError, "attachment \(sha) was uploaded again \(tries - 1) times and the push found it missing each time (collected before the push?); the change stays pending")
            }
            let r = try call("PUT", "/documents/\(documentID)/attachments/\(sha)", body: bytes, contentType: type)
            if r.status != 200 && r.status != 201 {
                drop.append((m, x.message + "; the server refused its upload (\(r.status)): \(Self.errorText(r))"))
            } else {
                uploaded.insert(sha)
            }
        }
        guard !drop.isEmpty else { return uploaded }
        var dropped: [(mutation: LocalMutation, message: String, changes: [Int64])] = []
        try documentLock.withLock {
            try store.transaction {
                for d in drop {
                    // The server's record as last synced stays (nothing was applied); a later
                    // local change of the record builds on the dropped one and goes too.
                    let later = try store.dropPending(d.mutation.id)
                    if let seq = d.mutation.clientSeq { try store.removeFromOutbox(seq) }
                    dropped.append((d.mutation, d.message, d.mutation.changes + later))
                }
            }
            if document != nil { try reconcileDocument(announce: true) }
        }
        for d in dropped {
            client.emit(self, .changeDropped(SyncDroppedChange(id: d.mutation.id, reason: "invalid", message: d.message,
                                                               clientSeq: d.mutation.clientSeq ?? 0, changes: d.changes, fields: [])))
        }
        return uploaded
    }

    // MARK: Attachments (issue 33)

    /// Where the attachments of image and file records are kept, by the SHA-256 of their
    /// bytes: those of local records until they are uploaded, those of remote ones once
    /// fetched.
    private var attachmentsDirectory: String { directory + "/attachments" }

    /// The attachment an image or file record names (``RecordAttachment``): its id
    /// (lowercase hexadecimal SHA-256) and media type (`application/octet-stream` when the
    /// record gives none); nil for any other record, or an id that is not a SHA-256.
    static func attachment(of record: InstantJSONValue) -> (id: String, contentType: String)? {
        guard let (id, type) = RecordAttachment.reference(of: record), RecordAttachment.isSHA256Hex(id) else { return nil }
        let isImage = record["type"]?.stringValue == "pspdfkit/image"
        return (id, type ?? (isImage ? "image/png" : "application/octet-stream"))
    }

    /// Keeps the images and files of the records a local change put, from the document's
    /// export of their pages (its `attachments`), so that the push can upload them.
    private func keepLocalAttachments(_ d: Document, _ changes: [(String, [UInt8]?)], _ records: [String: LocalRecord]) throws {
        var pages: [Int: Set<String>] = [:]
        for (id, json) in changes {
            guard let json, let value = try? InstantJSONValue(parsing: json), let (sha, _) = Self.attachment(of: value),
                  !fileExists(attachmentsDirectory + "/" + sha), let page = records[id]?.page, page >= 0 else { continue }
            pages[page, default: []].insert(sha)
        }
        for (page, wanted) in pages {
            let exported = try InstantJSONValue(parsing: d.exportAnnotationsJSON(page: page, prettyPrinted: false))
            for sha in wanted {
                guard let binary = exported["attachments"]?[sha]?["binary"]?.stringValue,
                      let data = Data(base64Encoded: binary) else { continue }
                try makeDirectories(attachmentsDirectory)
                try writeFileDurably(Array(data), to: attachmentsDirectory + "/" + sha)
            }
        }
    }

    /// Uploads the attachment an image or file record names, before each push that
    /// carries the record (the server keeps it by its hash, answers 200 when it has it, and
    /// starts its grace period again: an attachment is never collected while a push naming
    /// it is in flight, docs/sync-protocol.md "Attachments"). A record whose attachment
    /// this client does not hold was made elsewhere, and the server has it.
    private func uploadAttachment(of record: InstantJSONValue) throws {
        guard let (sha, type) = Self.attachment(of: record), let bytes = readFile(attachmentsDirectory + "/" + sha) else {
            return
        }
        // A refusal (4xx) is found by the push: it answers missing_attachment, the upload is
        // tried again and its refusal reported with the dropped change.
        _ = try call("PUT", "/documents/\(documentID)/attachments/\(sha)", body: bytes, contentType: type)
    }

    /// Fetches the images and files that the records among `records` name and this client
    /// does not hold yet, before the document's lock is taken to show them (the import takes
    /// them from the attachments directory then). A failure is left to the import, which
    /// tries again.
    private func prefetchAttachments(_ records: [[UInt8]]) {
        for json in records {
            guard let value = try? InstantJSONValue(parsing: json), let (sha, _) = Self.attachment(of: value),
                  !fileExists(attachmentsDirectory + "/" + sha) else { continue }
            _ = attachmentBytes(sha)
        }
    }

    /// The bytes of attachment `sha`: kept, or fetched from the server and kept; nil when
    /// the server has none (the record's import then fails and is reported).
    private func attachmentBytes(_ sha: String) -> [UInt8]? {
        let path = attachmentsDirectory + "/" + sha
        if let bytes = readFile(path) { return bytes }
        guard let r = try? call("GET", "/documents/\(documentID)/attachments/\(sha)"), r.status == 200,
              RecordAttachment.sha256Hex(r.body) == sha else { return nil }
        try? makeDirectories(attachmentsDirectory)
        try? writeFileDurably(r.body, to: path)
        return r.body
    }

    // MARK: Requests and tokens

    private func checkToken(_ token: String) throws {
        let claims = try SyncTokenClaims(token: token)
        guard claims.documentID == documentID, claims.layer == layer else {
            throw SyncClientError(.invalidArgument, "the token is for \(claims.documentID)/\(claims.layer), not \(documentID)/\(layer)")
        }
    }

    private func currentToken(refresh: Bool) -> String? {
        if !refresh, let t = stateLock.withLock({ token }) { return t }
        guard let provider = client.tokenProvider, let fresh = provider(self), (try? checkToken(fresh)) != nil else {
            return refresh ? nil : stateLock.withLock { token }
        }
        stateLock.withLock { token = fresh }
        return fresh
    }

    /// One request with the token; a 401 asks the token provider once for a fresh token.
    private func call(_ method: String, _ path: String, query: [String: String] = [:], body: [UInt8] = [],
                      contentType: String = "application/json", timeout: Int? = nil) throws -> SyncResponse {
        var refreshed = false
        var token = currentToken(refresh: false)
        while true {
            guard let t = token else {
                throw SyncClientError(.authentication, "no token for \(documentID)/\(layer): reauthenticate")
            }
            let request = SyncRequest(method: method, path: path, query: query,
                                      headers: [("Authorization", "Bearer \(t)")] + (body.isEmpty ? [] : [("Content-Type", contentType)]),
                                      body: body)
            let r: SyncResponse
            do {
                r = try client.transport.send(request, timeoutSeconds: timeout ?? client.configuration.requestTimeoutSeconds)
            } catch let e as SyncClientError {
                throw e
            } catch {
                throw SyncClientError(.network, "the server cannot be reached: \(error)")
            }
            switch r.status {
            case 401:
                if !refreshed, let fresh = currentToken(refresh: true), fresh != t {
                    refreshed = true
                    token = fresh
                    continue
                }
                throw SyncClientError(.authentication, "the server refused the token: \(Self.errorText(r))")
            case 403, 404:
                throw SyncClientError(.forbidden, "the server refused \(documentID)/\(layer): \(Self.errorText(r))")
            case 500...:
                var e = SyncClientError(.network, "the server failed (\(r.status)): \(Self.errorText(r))")
                e.retryAfterSeconds = Self.retryAfter(r)
                throw e
            default:
                return r
            }
        }
    }

    /// The seconds of a 503's `Retry-After` (delay-seconds only, at most 300), or nil.
    static func retryAfter(_ r: SyncResponse) -> Double? {
        guard r.status == 503, let text = r.header("Retry-After"), let seconds = Int(text), seconds >= 0 else { return nil }
        return Double(Swift.min(seconds, 300))
    }

    static func errorText(_ r: SyncResponse) -> String {
        if let v = try? InstantJSONValue(parsing: r.body), let m = v["error"]?["message"]?.stringValue { return m }
        return String(decoding: r.body.prefix(200), as: UTF8.self)
    }

    /// Replaces the token with `token` and checks it with the server (on the worker
    /// thread): reauthenticationFinished and a sync, or reauthenticationFailed. A token for
    /// another document or layer is refused here (invalid argument).
    public func reauthenticate(token: String) throws {
        try checkToken(token)
        worker.async { [self] in
            let old = stateLock.withLock { self.token }
            stateLock.withLock { self.token = token }
            do {
                let cursor = try openStore().cursor
                let r = try call("GET", "/documents/\(documentID)/layers/\(layer)/changes", query: ["since": String(cursor)])
                guard r.status == 200 else { throw SyncClientError(.protocolError, "the check answered \(r.status)") }
                if state == .invalid { stateLock.withLock { _state = .unknown } }
                client.emit(self, .reauthenticationFinished)
                settle()
                if (try? openStore().downloaded) == true { runSync() }
            } catch let e as SyncClientError {
                stateLock.withLock { self.token = e.kind == .network ? token : old }
                client.emit(self, .reauthenticationFailed(e))
            } catch {
                stateLock.withLock { self.token = old }
                client.emit(self, .reauthenticationFailed(SyncClientError(.storage, "\(error)")))
            }
        }
    }

    // MARK: Listening

    /// Starts listening for the server's changes (a long poll on the listener thread);
    /// each change starts a sync on the worker.
    public func startListening() {
        let start: Bool = stateLock.withLock {
            guard !listening, !closed else { return false }
            listening = true
            return true
        }
        guard start else { return }
        listener.async { [self] in listen() }
    }

    public func stopListening() {
        stateLock.withLock { listening = false }
    }

    public var isListening: Bool { stateLock.withLock { listening } }

    /// The listener's loop. After a failure it waits ``retryDelay(failures:)`` (at most
    /// 3 s), or the `Retry-After` of a busy server with jitter, before polling again, and the HTTP transport gives up connecting after a few
    /// seconds, so a listener is back within about five seconds of the network (issue 30:
    /// an exponential back-off to 30 s kept clients away for 25 s after a partition
    /// healed). The first poll that succeeds after a failure also starts a sync when local
    /// changes wait, since the failed syncs that left them may not be retried otherwise.
    private func listen() {
        var failures = 0
        while stateLock.withLock({ listening && !closed }) {
            do {
                let store = try openStore()
                guard try store.downloaded else { sleepWhileListening(1); continue }
                // quire-server's WebSocket when the transport has one and the server offers
                // it; long polls otherwise (and for good once a server answered without one).
                if !socketUnavailable, let sockets = client.transport as? any SyncSocketTransport {
                    try followSocket(sockets, store, recovered: failures > 0)
                    failures = 0
                    continue
                }
                let cursor = try store.cursor
                let r = try call("GET", "/documents/\(documentID)/layers/\(layer)/changes",
                                 query: ["since": String(cursor), "wait": String(client.configuration.listenWaitSeconds)],
                                 timeout: client.configuration.listenWaitSeconds + 30)
                let recovered = failures > 0
                failures = 0
                let changed = (try? InstantJSONValue(parsing: r.body)).map {
                    $0["reset"]?.boolValue == true || !($0["changes"]?.arrayValue?.isEmpty ?? true)
                } ?? false
                let waiting = recovered ? try store.pendingCount() : 0
                if changed || waiting > 0 {
                    worker.async { [self] in runSync() }
                    // Let the sync move the cursor before the next poll.
                    worker.sync {}
                }
            } catch let e as SyncClientError {
                if e.kind == .authentication { client.emit(self, .authenticationNeeded) }
                if e.kind == .forbidden { setState(.invalid) }
                failures += 1
                var delay = e.kind == .authentication ? 5 : Self.retryDelay(failures: failures)
                // A busy server (503 with Retry-After, past its max_listeners) is left alone
                // for that long, with up to half again of jitter so that the refused do not
                // come back together (issue 41: they once spun on an immediate empty 200).
                if let after = e.retryAfterSeconds { delay = Swift.max(delay, after * Double.random(in: 1...1.5)) }
                sleepWhileListening(delay)
            } catch {
                failures += 1
                sleepWhileListening(Self.retryDelay(failures: failures))
            }
        }
    }

    /// Follows the layer over the server's WebSocket until it closes, the listening stops,
    /// or a reset (the sync refetches the layer; the caller connects again from the new
    /// cursor). Each `changes` message with changes starts a sync, as a long poll's answer
    /// does; `presence` messages become ``SyncEvent/presenceChanged(_:)``. A server without
    /// a WebSocket sets ``socketUnavailable`` and returns: the listener long-polls.
    private func followSocket(_ sockets: any SyncSocketTransport, _ store: LocalStore, recovered: Bool) throws {
        guard let token = currentToken(refresh: false) else {
            throw SyncClientError(.authentication, "no token for \(documentID)/\(layer): reauthenticate")
        }
        let hello = InstantJSONValue.object([
            "type": .string("hello"), "token": .string(token), "since": .integer(try store.cursor),
            "client_id": .string(try clientID()),
        ]).canonicalText
        var refused: SyncClientError?
        var reset = false
        var first = true
        do {
            try sockets.follow(path: "/documents/\(documentID)/layers/\(layer)/socket", hello: hello, onMessage: { text in
                guard let message = try? InstantJSONValue(parsing: Array(text.utf8)) else { return }
                switch message["type"]?.stringValue {
                case "changes":
                    let body = message["body"]
                    reset = body?["reset"]?.boolValue == true
                    let changed = reset || !(body?["changes"]?.arrayValue?.isEmpty ?? true)
                    let waiting = first && recovered ? ((try? store.pendingCount()) ?? 0) : 0
                    first = false
                    if changed || waiting > 0 {
                        worker.async { [self] in runSync() }
                        if reset { worker.sync {} }
                    }
                case "presence":
                    if let list = message["body"]?["presence"] { client.emit(self, .presenceChanged(list.canonicalBytes)) }
                case "error":
                    let status = message["status"]?.integerValue ?? 0
                    let why = message["body"]?["error"]?["message"]?.stringValue ?? "status \(status)"
                    if status == 401 { refused = SyncClientError(.authentication, "the server refused the token: \(why)") }
                    if status == 403 || status == 404 { refused = SyncClientError(.forbidden, "the server refused \(documentID)/\(layer): \(why)") }
                default:
                    break
                }
            }, shouldStop: { [self] in reset || !stateLock.withLock({ listening && !closed }) })
        } catch is SyncSocketUnavailable {
            socketUnavailable = true
            return
        }
        if let refused { throw refused }
        if !reset, stateLock.withLock({ listening && !closed }) {
            throw SyncClientError(.network, "the server closed the WebSocket")
        }
    }

    private func sleepWhileListening(_ seconds: Double) {
        var left = seconds
        while left > 0, stateLock.withLock({ listening && !closed }) {
            usleep(100_000)
            left -= 0.1
        }
    }

    // MARK: Local storage

    /// Removes this layer's local store (its SQLite file with -wal and -shm), pending
    /// changes included; the document's PDF stays (other layers share it: see
    /// ``SyncClient/removeUnusedCache()``). The editable document is detached (it keeps
    /// working, unsynced) and the state goes back to unknown.
    public func removeLocalStorage() throws {
        stopListening()
        worker.sync {}
        try documentLock.withLock {
            if let observer { document?.removeChangeObserver(observer) }
            observer = nil
            document?.sharedLock = nil
            document?.structureLockReason = nil
            document = nil
            shadow = [:]
            shadowOrder = []
            stateLock.withLock {
                store?.close()
                store = nil
            }
            for suffix in ["", "-wal", "-shm"] { try removeTree(storePath + suffix) }
        }
        setState(.unknown)
    }

    /// Stops listening, waits for the worker and the queued events, and closes the store.
    func close() {
        stateLock.withLock {
            listening = false
            closed = true
        }
        worker.sync {}
        events.sync {}
        documentLock.withLock {
            stateLock.withLock {
                store?.close()
                store = nil
            }
        }
    }
}
