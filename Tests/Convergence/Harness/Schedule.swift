import Dispatch
import FoundationEssentials
import JWTKit
import QuireDocument
import QuireSync
import QuireSyncClient
import QuireSyntax
import QuireTestSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

// One schedule of a convergence run (issue 30): N clients of one layer, a seeded random
// sequence of what users and the network do, then quiescence, then the checks:
//
// - every client's records (its store) equal the server's, byte for byte in canonical
//   JSON, and so does its document's export of them;
// - the layer equals its feed replayed from the layer's first records;
// - every local change the user made is on the server, or was reported dropped by a
//   CHANGE_DROPPED naming its local change id (none lost);
// - every mutation was applied at most once, and each client's in the order it made them.

/// How a run draws its schedules.
public struct ConvergenceOptions: Sendable {
    /// The run's seed: schedule i draws from a generator seeded by (seed, i).
    public var seed: UInt64 = 1
    public var clients: ClosedRange<Int> = 3...6
    public var steps: ClosedRange<Int> = 30...80
    /// Faults of the network (loss, duplicates, delays, interleavings, cuts) and crashes.
    public var faults = true
    /// Where schedules keep their files (a tmpfs when there is one: the stores fsync).
    public var directory: String
    /// Print each step.
    public var trace = false
    /// Keep a failing schedule's files.
    public var keepFailures = true
    public init(directory: String) { self.directory = directory }
}

/// What one schedule did and found.
public struct ScheduleReport: Sendable {
    public var schedule: Int
    public var clients = 0
    public var steps = 0
    public var edits = 0
    public var syncs = 0
    public var accepted = 0
    public var droppedChanges = 0
    /// Puts the server merged field by field with concurrent changes.
    public var merges = 0
    /// Edits of the record kinds beside annotations (issue 33): form fills, bookmark
    /// changes, image stamps.
    public var formFills = 0
    public var bookmarkEdits = 0
    public var imageStamps = 0
    public var fileAttachments = 0
    /// Pushes refused whole because an attachment was gone (409 missing_attachment: the
    /// server has no grace period), each followed by an upload again.
    public var missingAttachments = 0
    public var repairs: Int64 = 0
    public var faults: [String: Int] = [:]
    public var divergences: [String] = []
    public var lost: [String] = []
    public var duplicated: [String] = []
    public var disordered: [String] = []
    public var errors: [String] = []
    public var seconds = 0.0
    public var failed: Bool { !(divergences.isEmpty && lost.isEmpty && duplicated.isEmpty && disordered.isEmpty && errors.isEmpty) }

    public var problems: [String] {
        divergences.map { "divergence: " + $0 } + lost.map { "lost: " + $0 } + duplicated.map { "duplicated: " + $0 }
            + disordered.map { "out of order: " + $0 } + errors.map { "error: " + $0 }
    }
}

/// The signing key of every run of this process (ES256: quick to make).
let runKey = ES256PrivateKey()

func token(user: String) throws -> String {
    try blocking {
        try await TestTokenClaims(user: user, expiresIn: 86_400).signed { await $0.add(ecdsa: runKey) }
    }
}

/// The last local change a client made to a record: what must reach the server unless a
/// CHANGE_DROPPED names it.
struct Expectation {
    var change: Int64
    /// "put", "delete", or "none" (created and deleted before it ever left).
    var op: String
    var record: [UInt8]?
    /// The fields the client's change changed (``RecordFields``): a merge on the server
    /// keeps those of `record` and may take the others from other clients' changes.
    var fields: Set<String>? = nil
}

/// One user's client.
final class SimClient: @unchecked Sendable {
    let index: Int
    let user: String
    let directory: String
    let token: String
    var client: SyncClient
    var descriptor: SyncDescriptor
    var offline = false
    /// Local change ids reported dropped.
    let dropped = Mutex<Set<Int64>>([])
    let repairs = Mutex<Int64>(0)
    var expected: [String: Expectation] = [:]
    /// The user's tool manager on the editable document (made on first use).
    var tools: ToolManager?
    var clientID: String { (try? descriptor.clientID()) ?? "?" }

    init(index: Int, directory: String, transport: ScheduledTransport) throws {
        self.index = index
        user = "user\(index)"
        self.directory = directory
        token = try runToken(user)
        (client, descriptor) = try SimClient.open(directory, transport, token)
        attach()
    }

    static func open(_ directory: String, _ transport: ScheduledTransport, _ token: String) throws -> (SyncClient, SyncDescriptor) {
        var configuration = SyncClientConfiguration()
        configuration.autoSyncDelay = 0  // the schedule decides when each client syncs
        let client = try SyncClient(transport: transport, dataDirectory: directory, configuration: configuration)
        client.tokenProvider = { _ in token }
        return (client, try client.descriptor(forJWT: token))
    }

    func attach() {
        client.eventHandler = { [weak self] _, event in
            switch event {
            case .changeDropped(let d): self?.dropped.withLock { $0.formUnion(d.changes) }
            case .recordsRepaired: self?.repairs.withLock { $0 += 1 }
            default: break
            }
        }
    }

    /// A crash and a restart: the process's memory is gone, its data directory stays.
    func restart(_ transport: ScheduledTransport) throws {
        client.close()
        (client, descriptor) = try SimClient.open(directory, transport, token)
        attach()
    }
}

private let tokenCache = Mutex<[String: String]>([:])

func runToken(_ user: String) throws -> String {
    if let t = tokenCache.withLock({ $0[user] }) { return t }
    let t = try token(user: user)
    tokenCache.withLock { $0[user] = t }
    return t
}

/// The PDF every schedule starts from: three pages, with a square that has a reply and a
/// review state, and a highlight, as a layer's first records (revision 0); and what real
/// files hold that ids must survive (examples/sample.pdf has each): a link whose object
/// two pages list in their /Annots, annotations without /NM, and two with the same /NM.
public func startingPDF() throws -> [UInt8] {
    let doc = try Document(data: PDFBuilder.blankPages(3))
    var square = Annotation(subtype: "Square", pageIndex: 0, rect: Rect(left: 100, bottom: 500, right: 300, top: 600))
    square.name = "init-sq"
    square.author = "init"
    square.contents = "Check this"
    square.color = [1, 0, 0]
    let sq = try doc.addAnnotation(square)
    _ = try doc.addReply(to: try sq.id.orThrow(), author: "init", contents: "first reply")
    _ = try doc.addStateReply(to: try sq.id.orThrow(), author: "init", model: .review, state: "Accepted")
    var highlight = Annotation(subtype: "Highlight", pageIndex: 1, rect: Rect(left: 72, bottom: 700, right: 300, top: 714))
    highlight.name = "init-hl"
    highlight.author = "init"
    highlight.quadPoints = [72, 714, 300, 714, 72, 700, 300, 700]
    highlight.color = [1, 1, 0]
    _ = try doc.addAnnotation(highlight)
    func object(_ subtype: PDFName, _ rect: [Double], _ extra: [(PDFName, PDFObject)] = []) throws -> PDFObject {
        .reference(try doc.addObject(.dictionary(PDFDictionary([
            ("Type", .name("Annot")), ("Subtype", .name(subtype)), ("Rect", .array(rect.map { .real($0) })),
            ("F", .integer(4)),
        ] + extra))))
    }
    let link = try object("Link", [50, 50, 150, 70], [("Border", .array([.integer(0), .integer(0), .integer(0)]))])
    let unnamed = try object("Square", [300, 300, 350, 340], [("C", .array([.integer(0), .integer(0), .integer(1)])),
                                                            ("Contents", .string(PDFString(text: "no /NM")))])
    let twin1 = try object("Text", [400, 400, 420, 420], [("NM", .string(PDFString(text: "twin"))),
                                                        ("Contents", .string(PDFString(text: "first twin")))])
    let twin2 = try object("Text", [400, 450, 420, 470], [("NM", .string(PDFString(text: "twin"))),
                                                        ("Contents", .string(PDFString(text: "second twin")))])
    for (index, added) in [(0, [link, unnamed, twin1]), (1, [link, twin2])] {
        let page = try doc.page(at: index)
        let pageID = try page.id.orThrow("a page without an object")
        let annots = try page.dictionary["Annots"].map { try doc.resolve($0) }?.array ?? []
        try doc.setValue(.array(annots + added), forKey: "Annots", inObject: pageID.number)
    }
    // A form on page 3 (issue 33: form values sync): a text field of at most 24
    // characters, a check box (Yes/Off), a multi-select list box, and a read-only text
    // field (which no schedule fills: the tests' refused value).
    let page3 = try doc.page(at: 2)
    let page3ID = try page3.id.orThrow("a page without an object")
    func appearance() throws -> PDFObject {
        .reference(try doc.addObject(.stream(PDFStream(dictionary: PDFDictionary([
            ("Type", .name("XObject")), ("Subtype", .name("Form")), ("BBox", .array([0, 0, 20, 20].map { .integer($0) })),
        ]), data: .bytes([])))))
    }
    let states = PDFObject.dictionary(PDFDictionary([("N", .dictionary(PDFDictionary([("Yes", try appearance()), ("Off", try appearance())])))]))
    func field(_ entries: [(PDFName, PDFObject)], _ rect: [Double]) throws -> PDFObject {
        .reference(try doc.addObject(.dictionary(PDFDictionary([
            ("Type", .name("Annot")), ("Subtype", .name("Widget")), ("Rect", .array(rect.map { .real($0) })), ("F", .integer(4)),
            ("P", .reference(page3ID)),
        ] + entries))))
    }
    let name = try field([("FT", .name("Tx")), ("T", .string(PDFString(text: "name"))), ("MaxLen", .integer(24))], [72, 700, 300, 720])
    let agree = try field([("FT", .name("Btn")), ("T", .string(PDFString(text: "agree"))), ("V", .name("Off")), ("AS", .name("Off")),
                           ("AP", states)], [72, 650, 92, 670])
    let fruit = try field([("FT", .name("Ch")), ("Ff", .integer(2_097_152)), ("T", .string(PDFString(text: "fruit"))),
                           ("Opt", .array(["Apple", "Banana", "Cherry"].map { .string(PDFString(text: $0)) }))], [72, 540, 300, 630])
    let locked = try field([("FT", .name("Tx")), ("Ff", .integer(1)), ("T", .string(PDFString(text: "locked"))),
                            ("V", .string(PDFString(text: "fixed")))], [72, 500, 300, 520])
    let helv = PDFObject.dictionary(PDFDictionary([("Type", .name("Font")), ("Subtype", .name("Type1")), ("BaseFont", .name("Helvetica"))]))
    let form = PDFDictionary([
        ("Fields", .array([name, agree, fruit, locked])), ("DA", .string(PDFString(text: "/Helv 0 Tf 0 g"))),
        ("DR", .dictionary(PDFDictionary([("Font", .dictionary(PDFDictionary([("Helv", helv)])))]))),
    ])
    let root = try (doc.trailer["Root"]?.reference).orThrow("no catalog object")
    try doc.setValue(.dictionary(form), forKey: "AcroForm", inObject: root.number)
    try doc.setValue(.array([name, agree, fruit, locked]), forKey: "Annots", inObject: page3ID.number)
    return try doc.saved(.full(objectStreams: false))
}

/// The bytes of shared file `n` (0...3), for file attachments: a few hundred bytes, every
/// byte value among them.
public func testFile(_ n: Int) -> [UInt8] {
    Array("file \(n)\n".utf8) + (0..<256).map { UInt8(($0 * (n + 1)) & 0xFF) }
}

/// A 4 × 3 RGB PNG of one grey shade (0...3), for image stamps.
public func testPNG(shade: Int) -> [UInt8] {
    func be(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] { be(body.count) + Array(type.utf8) + body + [0, 0, 0, 0] }
    let level = UInt8(truncatingIfNeeded: 60 * shade)
    var raw: [UInt8] = []
    for _ in 0..<3 { raw += [0] + [UInt8](repeating: level, count: 4 * 3) }
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", be(4) + be(3) + [8, 2, 0, 0, 0])
        + chunk("IDAT", PDFBuilder.deflate(raw)) + chunk("IEND", [])
}

struct Missing: Error, CustomStringConvertible {
    let what: String
    var description: String { what }
}

extension Optional {
    func orThrow(_ what: String = "a value is missing") throws -> Wrapped {
        guard let v = self else { throw Missing(what: what) }
        return v
    }
}
