/// A PDF file at the level of its syntax: bytes, cross-reference, trailer, and objects that
/// resolve lazily and are cached.
///
/// Opening reads only the header, the cross-reference chain and the trailer; objects are
/// parsed when first asked for. When the cross-reference is missing or wrong, the file is
/// repaired by scanning for `N G obj`, trailers and cross-reference streams, and
/// ``isRepaired`` and ``warnings`` say so. A reference cycle resolves to null.
///
/// Not thread-safe: one thread at a time (resolution fills caches).
public final class PDFFile {
    public let buffer: ByteBuffer
    public let limits: PDFLimits
    /// The version in the `%PDF-M.m` header, if there is one.
    public internal(set) var headerVersion: (major: Int, minor: Int)?
    /// The trailer of the newest revision, with keys missing there taken from older ones.
    public internal(set) var trailer = PDFDictionary()
    /// The form of the newest cross-reference section.
    public internal(set) var xrefForm: XRefForm = .table
    /// The offset of the newest cross-reference section (`startxref`); nil when it was
    /// rebuilt by scanning.
    public internal(set) var startXRef: Int?
    /// Set when the cross-reference had to be rebuilt or objects were found elsewhere than
    /// where it said.
    public internal(set) var isRepaired = false
    /// Damage recovered from, in the order found.
    public internal(set) var warnings: [String] = []
    /// The standard security handler of an encrypted document (nil when the trailer has
    /// no /Encrypt). Strings of indirect objects are decrypted as they are parsed, stream
    /// data in ``decodedData(_:)``; ``rawData(_:)`` stays encrypted.
    public internal(set) var security: StandardSecurityHandler?

    var entries = XRefTable()
    var cache: [Int: PDFObject] = [:]
    var resolving: Set<Int> = []
    /// How many objects may be loading at once, each for the one before (see ``object(_:)``):
    /// real files need a few (an indirect /Length, the object stream an object is in); 16
    /// keeps a hostile chain within a 512 KiB thread's stack in a debug build with ASan
    /// (32 did until lazy reading added a frame or two to each level).
    public static let maxLoadDepth = 16
    /// Object streams opened so far (decoded, header read), each parsing its objects one
    /// at a time as they are asked for.
    var objectStreams: [Int: ObjectStreamReader] = [:]
    /// Object streams the scan decoded, until their objects are parsed.
    var decodedObjectStreams: [Int: ByteBuffer] = [:]
    var scanIndex: [Int: XRefEntry]? = nil
    /// The /Prev chain loops: sections it should have reached may be missing, so objects
    /// it does not name are looked up by scanning.
    var chainBroken = false
    /// A cross-reference section whose object numbers passed `max_objects` (a first
    /// number of 2^32, a /Size of 3 x 10^14): read as damage, so the file is repaired. If
    /// the repair scan then finds objects past the limit too, the file is refused with this
    /// error after all: the limit holds for what repair finds.
    var sectionPastObjectLimit: PDFError? = nil
    /// How many `N G obj` headers the scan passed over because N is past `max_objects`.
    var scannedPastObjectLimit = 0
    var headerOffset = 0
    var totalDecoded = 0
    /// Objects whose strings are never decrypted: the /Encrypt dictionary, an indirect /ID.
    var notEncrypted: Set<Int> = []
    static let maxWarnings = 1000
    /// How many objects were loaded from the bytes (each once, then cached): what tests of
    /// lazy reading count.
    package private(set) var objectLoads = 0
    /// Whether this file continued from the file before its last update (see
    /// ``init(buffer:limits:password:continuing:)``) rather than being read afresh.
    package private(set) var continuedFromPrevious = false

    /// Opens the bytes of a PDF file. `password` opens an encrypted file (as its user or
    /// its owner password); nil is the empty password.
    ///
    /// `continuing` is this file as it was before an incremental update was appended to it
    /// (`buffer` is its bytes and the update's): when the update's cross-reference section
    /// continues that file's (its /Prev is the old `startxref`), only the new section is
    /// read, and the objects and object streams already read that the update does not
    /// touch are kept, instead of reading the whole cross-reference again (a save of one
    /// annotation to a file of 39,000 objects read it twice). Otherwise, and for a
    /// repaired or encrypted file, the file is read afresh.
    public init(buffer: ByteBuffer, limits: PDFLimits = .default, password: [UInt8]? = nil,
                continuing previous: PDFFile? = nil) throws {
        self.buffer = buffer
        self.limits = limits
        readHeader()
        if let previous, buffer.count >= previous.buffer.count {
            if (try? continueFrom(previous)) == true {
                continuedFromPrevious = true
                if buffer.readFailures == 0 { return }
                throw PDFError(.io, buffer.lastReadError ?? "a read of the document failed")
            }
            resetAfterContinuing()
        }
        defer { if let problem = buffer.readError { warn(problem + "; those bytes read as zeros") } }
        do {
            try loadCrossReference()
            // Security comes before the catalog check: the catalog may sit in an encrypted
            // object stream. A wrong password is not damage: it propagates.
            try setUpSecurity(password: password ?? [])
            try requireCatalog()
            try requirePageTreeRoot()
        } catch let e as PDFError where e.kind == .format || e.limitName == "max_nesting_depth" {
            // Damage, including a trailer nested past the limit: rebuild by scanning.
            warn("cross-reference is damaged (\(e.message)); rebuilt by scanning the file")
            security = nil
            notEncrypted.removeAll()
            // A source that cannot be read is not a damaged file: say so rather than repair.
            if let problem = buffer.readError { throw PDFError(.io, problem) }
            let catalogs = try rebuild()
            if let refused = sectionPastObjectLimit, scannedPastObjectLimit > 0 { throw refused }
            try setUpSecurity(password: password ?? [])
            if (try? requireCatalog()) == nil { try findCatalog(among: catalogs) }
        }
        // A source that failed while the cross-reference was read: what it gave is not the
        // file's cross-reference (quire.h: a failure during the open is QUIRE_EIO).
        if buffer.readFailures > 0 { throw PDFError(.io, buffer.lastReadError ?? "a read of the document failed") }
    }

    /// Throws when the catalog's /Pages does not resolve to a dictionary through the
    /// cross-reference: a page tree root that is free, in an object stream that is itself
    /// compressed or not a stream, or at an offset holding something else. PDFium and
    /// MuPDF find such a page tree by scanning the file, and so does the repair this sends
    /// the file to. A catalog without /Pages is not damage to the cross-reference.
    ///
    /// A limit reached while reading it is not damage, and is not this check's to report:
    /// it is met again, as before, when the pages are read.
    func requirePageTreeRoot() throws {
        let root: PDFObject
        do {
            guard let catalog = try dictionary(trailer["Root"]), let pages = catalog["Pages"] else { return }
            root = try object(for: pages)
        } catch let e as PDFError where e.kind == .limit {
            return
        }
        guard root.dictionary != nil else {
            throw PDFError.format("the catalog's /Pages does not resolve to a dictionary")
        }
    }

    /// Throws unless the trailer's /Root resolves to a dictionary.
    func requireCatalog() throws {
        guard let root = trailer["Root"] else { throw PDFError.format("trailer has no /Root") }
        // A stream's dictionary serves too (PDFium reads such files).
        guard try object(for: root).dictionary != nil else {
            throw PDFError.format("/Root does not resolve to a dictionary")
        }
    }

    /// Makes the last of `numbers` that is a /Catalog dictionary the /Root.
    func findCatalog(among numbers: [Int]) throws {
        for n in numbers.reversed() {
            if case .dictionary(let d) = try object(n), d["Type"] == .name("Catalog") {
                trailer["Root"] = .reference(ObjectID(n, 0))
                warn("no usable trailer; the catalog was found by scanning (object \(n))")
                return
            }
        }
        throw PDFError.format("no document catalog found, even by scanning the file")
    }

    /// Whether the trailer has an /Encrypt entry.
    public var isEncrypted: Bool { trailer["Encrypt"] != nil }

    /// The number of objects the cross-reference knows, free ones included.
    public var objectCount: Int { entries.count }

    /// The numbers of the objects in use, ascending.
    public var objectNumbers: [Int] {
        entries.numbersInUse
    }

    /// Where object `number` is, per the cross-reference (nil when it does not say). When
    /// the /Prev chain loops, objects it does not name are looked up by scanning, as they
    /// are when read.
    public func entry(_ number: Int) -> XRefEntry? {
        if let e = entries[number] { return e }
        guard chainBroken, let found = scan().entries[number] else { return nil }
        return found
    }

    /// One more than the highest object number in use or named by /Size: the number a new
    /// object gets.
    public var nextObjectNumber: Int {
        Swift.max((entries.maxNumber ?? 0).saturatingSuccessor, Int(clamping: trailer["Size"]?.integer ?? 0))
    }

    /// Whether the file is linearized: the first object after the header is a dictionary
    /// with /Linearized whose /L is the file's length (ISO 32000-2 Annex F).
    public var isLinearized: Bool {
        let parsed: PDFObject? = buffer.withLoaded(from: headerOffset) { reach in
            var lexer = Lexer(buffer, at: headerOffset)
            lexer.skipWhitespace()  // the %PDF-x.y header and the binary line are comments
            var parser = ObjectParser(buffer, at: lexer.position, limits: limits)
            defer { reach = Swift.max(lexer.position, parser.lexer.highWater) }
            guard lexer.position < Swift.min(buffer.count, headerOffset + 1024) else { return nil }
            return try? parser.parseIndirectObject().1
        }
        guard let value = parsed else { return false }
        // A file changed after it was linearized (an incremental update) is not linearized
        // any more: /L no longer equals its length (Annex F.2.2, qpdf's rule).
        guard let dict = value.dictionary, dict["Linearized"] != nil else { return false }
        let length = dict["L"]?.integer
        return length == Int64(buffer.count) || length == Int64(buffer.count - headerOffset)
    }

    /// Records a warning (deduplicated, bounded).
    public func warn(_ message: String) {
        guard warnings.count < PDFFile.maxWarnings else { return }
        if warnings.last != message { warnings.append(message) }
    }

    // MARK: Header and cross-reference

    func readHeader() {
        let marker = Array("%PDF-".utf8)
        // The first kilobyte, where the header is, then up to a megabyte (read lazily).
        guard let at = buffer.firstIndex(of: marker, from: 0, to: Swift.min(buffer.count, 1024))
                ?? buffer.firstIndex(of: marker, from: 0, to: Swift.min(buffer.count, 1024 * 1024)) else {
            return
        }
        if at > 0 { warn("\(at) bytes of junk before the %PDF header") }
        headerOffset = at
        var p = at + marker.count
        var major = 0, minor = 0
        while let b = buffer[checked: p], CharClass.isDigit(b) { major = major * 10 + Int(b - 0x30); p += 1; if major > 99 { return } }
        guard buffer[checked: p] == UInt8(ascii: ".") else { return }
        p += 1
        while let b = buffer[checked: p], CharClass.isDigit(b) { minor = minor * 10 + Int(b - 0x30); p += 1; if minor > 99 { return } }
        headerVersion = (major, minor)
    }

    func reader() -> XRefReader {
        XRefReader(buffer: buffer, limits: limits, decode: { [unowned self] in try self.decodedData($0) })
    }

    /// The offset the file's last `startxref` gives.
    func lastStartXRef() throws -> Int {
        let keyword = Array("startxref".utf8)
        // The last 4 KB, then 64 KB, first: a lazy buffer then reads only the end of the file.
        guard let at = buffer.lastIndex(of: keyword, from: Swift.max(0, buffer.count - 4096))
                ?? buffer.lastIndex(of: keyword, from: Swift.max(0, buffer.count - (64 << 10)))
                ?? buffer.lastIndex(of: keyword) else {
            throw PDFError.format("no 'startxref'")
        }
        var lexer = Lexer(buffer, at: at + keyword.count)
        guard case .integer(let start) = try lexer.next(), start >= 0, let offset = Int(exactly: start) else {
            throw PDFError.format("'startxref' is not followed by an offset", at: at)
        }
        return offset
    }

    /// Continues from `previous`, the file before an update was appended to it (see
    /// ``init(buffer:limits:password:continuing:)``): true when the update's section was
    /// read and merged over `previous`'s cross-reference; false, with nothing changed, when
    /// the file must be read afresh.
    func continueFrom(_ previous: PDFFile) throws -> Bool {
        guard previous.startXRef != nil, !previous.isRepaired, !previous.chainBroken, previous.security == nil,
              previous.trailer["Encrypt"] == nil, previous.xrefForm != .rebuilt, previous.headerOffset == headerOffset,
              previous.buffer.readFailures == 0, headerVersion != nil else { return false }
        let start = try lastStartXRef()
        guard start >= previous.buffer.count, start < buffer.count, start != previous.startXRef else { return false }
        let section = try readSection(reader(), at: start)
        guard let prev = section.trailer["Prev"]?.integer, Int(exactly: prev) == previous.startXRef,
              section.trailer["XRefStm"] == nil, section.trailer["Encrypt"] == nil else { return false }
        // The section's own entries, merged as ``loadCrossReference()`` merges one section,
        // then over the older ones.
        var update = XRefTable()
        update.mergeKeepingCurrent(section.entries, free: false)
        update.mergeKeepingCurrent(section.entries, free: true)
        var merged = previous.entries
        update.forEach { merged[$0] = $1 }
        // The trailer as the chain merges it: the newest section's keys, in its order,
        // then those of the older ones it lacks.
        var newTrailer = PDFDictionary()
        for (key, value) in section.trailer where !Self.sectionOnlyKeys.contains(key.value) { newTrailer[key] = value }
        for (key, value) in previous.trailer where newTrailer[key] == nil { newTrailer[key] = value }
        // What was read stays, except what the update replaces, and a stream whose data
        // was not where its /Length said (found by looking for `endstream`, which the
        // bytes after the old end can change) or whose indirect /Length the update
        // replaces.
        var kept = previous.cache
        update.forEach { number, _ in kept[number] = nil }
        for (number, value) in kept {
            // An object in an object stream that the update replaces or deletes: read
            // again (from wherever the update's entries now say, if anywhere).
            if case .compressed(let stream, _)? = merged[number], update[stream] != nil {
                kept[number] = nil
                continue
            }
            guard case .stream(let s) = value, case .file(_, let length) = s.data else { continue }
            switch s.dictionary["Length"] {
            case .integer(let declared)? where declared == Int64(length):
                break
            case .reference(let r)? where update[r.number] == nil
                    && (try? previous.object(r.number))?.integer == Int64(length):
                break
            default:
                kept[number] = nil
            }
        }
        var streams = previous.objectStreams
        update.forEach { number, _ in streams[number] = nil }
        entries = merged
        trailer = newTrailer
        xrefForm = section.form
        cache = kept
        objectStreams = streams
        residentStreams = previous.residentStreams.filter { streams[$0] != nil }
        residentBytes = residentStreams.reduce(0) { $0 + (streams[$1]?.residentBytes ?? 0) }
        totalDecoded += previous.totalDecoded
        startXRef = start
        try requireCatalog()
        try requirePageTreeRoot()
        return true
    }

    /// Back to the state before ``continueFrom(_:)``, which gave way to reading the file
    /// afresh.
    func resetAfterContinuing() {
        entries = XRefTable()
        trailer = PDFDictionary()
        xrefForm = .table
        cache = [:]
        objectStreams = [:]
        residentStreams = []
        residentBytes = 0
        decodedObjectStreams = [:]
        totalDecoded = 0
        startXRef = nil
        sectionPastObjectLimit = nil
        warnings = []
    }

    /// The keys of a section's trailer (or cross-reference stream's dictionary) that
    /// describe that section alone, and are not the document's trailer.
    static let sectionOnlyKeys: Set<String> = ["Prev", "XRefStm", "W", "Index", "Filter", "DecodeParms", "Length", "Type"]

    /// Follows `startxref` and the /Prev chain.
    func loadCrossReference() throws {
        let start = try lastStartXRef()
        let reader = reader()
        var offset: Int? = Int(start)
        var visited: Set<Int> = []
        var first = true
        while let off = offset {
            if visited.contains(off) {
                warn("cross-reference /Prev chain loops back to byte \(off); objects it does not reach are found by scanning")
                chainBroken = true
                isRepaired = true
                break
            }
            visited.insert(off)
            if visited.count > limits.maxXRefChain {
                throw PDFError(limit: "max_xref_chain", limits.maxXRefChain, "the number of cross-reference sections")
            }
            var section: XRefSection
            do {
                section = try readSection(reader, at: off)
            } catch let e as PDFError where e.kind != .limit && headerOffset > 0 && off < buffer.count - headerOffset {
                // Offsets counted from the %PDF header rather than the start of the file.
                section = try readSection(reader, at: off + headerOffset)
                _ = e
            }
            if first { xrefForm = section.form }
            // Hybrid files: the table's free entries yield to the /XRefStm stream (§7.5.8.4).
            var stmEntries: [(Int, XRefEntry)] = []
            if section.form == .table, let stm = section.trailer["XRefStm"]?.integer, stm >= 0 {
                if let s = try? reader.section(at: Int(stm)) {
                    stmEntries = s.entries
                    if first { xrefForm = .hybrid }
                } else {
                    warn("/XRefStm at byte \(stm) is unreadable; ignored")
                }
            }
            // Newer sections win, and within one the first entry of a number: merged keeping
            // what is there.
            entries.mergeKeepingCurrent(section.entries, free: false)
            entries.mergeKeepingCurrent(stmEntries)
            entries.mergeKeepingCurrent(section.entries, free: true)
            for (key, value) in section.trailer where trailer[key] == nil && !Self.sectionOnlyKeys.contains(key.value) {
                trailer[key] = value
            }
            first = false
            if let prev = section.trailer["Prev"]?.integer, prev >= 0, prev < buffer.count {
                offset = Int(prev)
            } else {
                offset = nil
            }
        }
        // A chain that loops has no sound section to append an update to.
        startXRef = chainBroken ? nil : start
    }

    /// The section at `offset`. Object numbers past `max_objects` in it are damage (a
    /// format error, which sends the file to repair), not a reason to refuse the file:
    /// PDFium and MuPDF open such files by scanning, and the limit still holds for the
    /// objects the scan finds (see ``sectionPastObjectLimit``).
    func readSection(_ reader: XRefReader, at offset: Int) throws -> XRefSection {
        do {
            return try reader.section(at: offset)
        } catch let e as PDFError where e.limitName == "max_objects" {
            if sectionPastObjectLimit == nil { sectionPastObjectLimit = e }
            throw PDFError.format("cross-reference section at byte \(offset) names object numbers past the limit max_objects=\(limits.maxObjects)")
        }
    }

    // MARK: Objects

    /// The value of indirect object `number`. A missing, free or unreadable object is
    /// null (with a warning for the unreadable); a cycle is null. Limits still throw.
    public func object(_ number: Int) throws -> PDFObject {
        if let cached = cache[number] { return cached }
        if resolving.contains(number) {
            warn("reference cycle through object \(number); resolved as null")
            return .null
        }
        // Loading an object can load others (an indirect /Length, the object stream it is
        // in, a /Filter kept in another object), each one more level of recursion: a chain
        // of 12,000 such links overflowed the stack. Past the limit the object reads as
        // null for this caller and is not cached, so it still loads when asked for itself.
        if resolving.count >= PDFFile.maxLoadDepth {
            warn("object \(number) is reached through more than \(PDFFile.maxLoadDepth) objects that load each other; resolved as null there")
            return .null
        }
        resolving.insert(number)
        defer { resolving.remove(number) }
        objectLoads += 1
        let failuresBefore = buffer.readFailures
        let value: PDFObject
        do {
            value = try load(number)
        } catch let e as PDFError where e.kind == .limit && e.limitName != "max_nesting_depth" {
            // Document-wide limits stop the call; an object nested too deep is only that
            // object's problem and reads as null below, as in qpdf.
            throw e
        } catch let e as PDFError {
            warn("object \(number) is unreadable (\(e.message)); treated as null")
            value = .null
        }
        // Read while the source failed (a host's read callback, a file changed in place): an
        // I/O error for this call, and read again when next asked for. Never a null that
        // callers would build on (and an edit would save).
        guard buffer.readFailures == failuresBefore else {
            let reason = buffer.lastReadError ?? "a read failed"
            warn("object \(number) could not be read: \(reason); it is read again when next asked for")
            throw PDFError(.io, "object \(number) could not be read: \(reason)")
        }
        cache[number] = value
        return value
    }

    /// Follows `value` while it is a reference.
    public func object(for value: PDFObject) throws -> PDFObject {
        if case .reference(let id) = value { return try object(id.number) }
        return value
    }

    /// `value` resolved, as a dictionary (a stream's dictionary counts), or nil.
    public func dictionary(_ value: PDFObject?) throws -> PDFDictionary? {
        guard let value else { return nil }
        return try object(for: value).dictionary
    }

    func load(_ number: Int) throws -> PDFObject {
        var entry = entries[number]
        if entry == nil, isRepaired { entry = scanIndex?[number] }
        if entry == nil, chainBroken, let found = scan().entries[number] {
            isRepaired = true
            warn("object \(number) is not in the cross-reference; found by scanning")
            entries[number] = found  // known from now on: it can be edited like any other
            entry = found
        }
        switch entry {
        case nil, .free?:
            return .null
        case .inFile(let offset, _)?:
            // Offsets come from the file: compare before adding, so a huge one cannot overflow.
            let shifted = headerOffset > 0 && offset >= 0 && offset < buffer.count - headerOffset
            let failuresBefore = buffer.readFailures
            if let value = try parse(number, at: offset) ?? (shifted ? try parse(number, at: offset + headerOffset) : nil) {
                return value
            }
            // Not there because the source failed: not damage to repair by scanning (which
            // would read the whole file again for every such object).
            if buffer.readFailures != failuresBefore {
                throw PDFError(.io, "object \(number) could not be read: \(buffer.lastReadError ?? "a read failed")")
            }
            // The cross-reference points at the wrong bytes: look the object up by scanning.
            let index = scan().entries
            if case .inFile(let real, _)? = index[number], real != offset, let value = try parse(number, at: real) {
                isRepaired = true
                warn("cross-reference offset of object \(number) is wrong; found at byte \(real) by scanning")
                return value
            }
            if case .compressed? = index[number] {
                isRepaired = true
                entries[number] = index[number]
                return try load(number)
            }
            throw PDFError.format("no object \(number) at byte \(offset)")
        case .compressed(let stream, let index)?:
            let problem: String
            do {
                if let value = try compressedObject(number, stream: stream, index: index) { return value }
                problem = "is not in object stream \(stream)"
            } catch let e as PDFError where e.kind == .format {
                problem = "is in object stream \(stream), which is unreadable (\(e.message))"
            }
            // The cross-reference names a stream that is itself compressed (or is this very
            // object), is not a stream, or lacks the object: PDFium and MuPDF find the
            // object by scanning, and so does this.
            switch scan().entries[number] {
            case .inFile(let real, _)?:
                if let value = try parse(number, at: real) {
                    isRepaired = true
                    warn("object \(number) \(problem); found at byte \(real) by scanning")
                    return value
                }
            case .compressed(let other, let otherIndex)? where other != stream && other != number:
                if let value = try compressedObject(number, stream: other, index: otherIndex) {
                    isRepaired = true
                    warn("object \(number) \(problem); found in object stream \(other) by scanning")
                    return value
                }
            default:
                break
            }
            throw PDFError.format("object \(number) \(problem)")
        }
    }

    /// The object at `offset` if it is object `number`; nil if something else is there.
    func parse(_ number: Int, at offset: Int) throws -> PDFObject? {
        guard offset > 0 || (offset == 0 && headerOffset == 0 && buffer[checked: 0].map(CharClass.isDigit) == true),
              offset < buffer.count else { return nil }
        // Each load of an object can load another (an indirect /Length): a buffer read
        // whole parses without the lazy reader's closures, whose frames a chain of such
        // loads would add on the caller's stack (a 512 KiB thread, in a debug build).
        guard buffer.isLazy else {
            var reach = 0
            return try parseObject(number, at: offset, reach: &reach)
        }
        return try buffer.withLoaded(from: offset) { try self.parseObject(number, at: offset, reach: &$0) }
    }

    /// The object at `offset` if it is object `number`, parsed; `reach` is how far the
    /// parse read (see ``ByteBuffer/withLoaded(from:_:)``).
    func parseObject(_ number: Int, at offset: Int, reach: inout Int) throws -> PDFObject? {
        var parser = ObjectParser(buffer, at: offset, limits: limits)
        defer { reach = parser.lexer.highWater }
        parser.resolveLength = { [unowned self] id in
            guard id.number != number, let l = try? self.object(id.number).integer else { return nil }
            return Int(exactly: l)
        }
        parser.onWarning = { [unowned self] in self.warn($0) }
        do {
            let (id, value) = try parser.parseIndirectObject()
            return id.number == number ? decrypted(value, id) : nil
        } catch let e as PDFError where e.kind == .format {
            return nil
        }
    }

    // The state of the object streams (PDFFile+ObjectStreams.swift).
    /// How many bytes of decoded object streams stay in memory while they still hold
    /// objects not parsed: past it, the streams used longest ago let their data go, and are
    /// decoded again if another of their objects is asked for. Looking up page 3,000 of
    /// large.pdf kept 13 MB of streams whose annotations no one read.
    package var maxResidentObjectStreamBytes = 4 << 20
    /// The object streams holding decoded data, least recently used first, and their bytes.
    var residentStreams: [Int] = []
    var residentBytes = 0

    // MARK: Streams

    /// The stream's encoded bytes, as stored in the file; an I/O error when a lazy buffer
    /// could not read them (rather than zeros in their place).
    public func loadedRawData(_ stream: PDFStream) throws -> [UInt8] {
        switch stream.data {
        case .bytes(let b): return b
        case .file(let offset, let length): return try (stream.source ?? buffer).loadedSlice(offset..<(offset + length))
        }
    }

    /// The stream's encoded bytes, as stored in the file.
    public func rawData(_ stream: PDFStream) -> [UInt8] {
        switch stream.data {
        case .bytes(let b): return b
        case .file(let offset, let length): return (stream.source ?? buffer).slice(offset..<(offset + length))
        }
    }

    /// The stream's data with its filters undone (ISO 32000-2 §7.4). Image codecs (DCT,
    /// JPX, CCITT, JBIG2) are left encoded: the result stops before them.
    public func decodedData(_ stream: PDFStream) throws -> [UInt8] {
        let (filters, parms) = try filterChain(stream)
        var data = try decryptedRawData(stream)
        let encodedSize = data.count
        for (k, filter) in filters.enumerated() {
            guard case .name(let name) = filter else { throw PDFError.format("stream filter is not a name") }
            let parm = k < parms.count ? try dictionary(parms[k]) : nil
            // Past the total (an unfiltered stream took it there), 0: every later decode
            // fails at the limit, as it should, instead of getting a negative budget.
            let remaining = Swift.max(0, limits.maxTotalDecodedBytes - totalDecoded)
            let budget = remaining < limits.maxStreamBytes
                ? DecodeBudget(maxBytes: remaining, maxRatio: limits.maxDecompressionRatio,
                               bytesLimit: ("max_total_decoded_bytes", limits.maxTotalDecodedBytes))
                : DecodeBudget(maxBytes: limits.maxStreamBytes, maxRatio: limits.maxDecompressionRatio,
                               bytesLimit: ("max_stream_bytes", limits.maxStreamBytes))
            let warnFilter: (String) -> Void = { [unowned self] in self.warn($0) }
            switch name.value {
            case "FlateDecode", "Fl":
                data = try data.withUnsafeBufferPointer { try Filters.inflate($0, budget: budget, warning: warnFilter) }
                data = try predict(data, parm)
            case "LZWDecode", "LZW":
                let early = (parm?["EarlyChange"]?.integer ?? 1) != 0
                data = try data.withUnsafeBufferPointer { try Filters.lzw($0, earlyChange: early, budget: budget) }
                data = try predict(data, parm)
            case "ASCIIHexDecode", "AHx":
                data = data.withUnsafeBufferPointer { Filters.asciiHex($0) }
            case "ASCII85Decode", "A85":
                data = try data.withUnsafeBufferPointer { try Filters.ascii85($0) }
            case "RunLengthDecode", "RL":
                data = try data.withUnsafeBufferPointer { try Filters.runLength($0, budget: budget) }
            case "DCTDecode", "DCT", "JPXDecode", "CCITTFaxDecode", "CCF", "JBIG2Decode":
                return data  // image codecs: passed through undecoded
            case "Crypt":
                continue  // applied before the other filters, by decryptedRawData(_:)
            default:
                throw PDFError(.unsupported, "unknown stream filter /\(name.value)")
            }
            if data.count > limits.maxStreamBytes {
                throw PDFError(limit: "max_stream_bytes", limits.maxStreamBytes, "the decoded size of a stream")
            }
        }
        if data.count > (1 << 20) && data.count / Swift.max(encodedSize, 1) > limits.maxDecompressionRatio {
            throw PDFError(limit: "max_decompression_ratio", limits.maxDecompressionRatio, "the decompression ratio of a stream")
        }
        totalDecoded += data.count
        if totalDecoded > limits.maxTotalDecodedBytes {
            throw PDFError(limit: "max_total_decoded_bytes", limits.maxTotalDecodedBytes, "the decoded size of all streams")
        }
        return data
    }

    /// Which crypt filter applies to a stream (§7.6.2, §7.4.10): nil when the stream is
    /// not encrypted (a cross-reference stream, the metadata stream when /EncryptMetadata
    /// is false, or the /Encrypt or /ID object); else the crypt filter's name, where nil
    /// inside means the default /StmF. A /Crypt filter, first in /Filter, names its filter
    /// in its /DecodeParms /Name (default /Identity); an embedded file uses /EFF.
    func cryptFilter(_ stream: PDFStream, _ id: ObjectID, _ security: StandardSecurityHandler,
                     writing: Bool = false) throws -> PDFName?? {
        let type = stream.dictionary["Type"]?.name?.value
        // When writing, `id` is the number in the new file: the original file's exempt
        // numbers (its /Encrypt and /ID objects) say nothing about it.
        if type == "XRef" || (!writing && notEncrypted.contains(id.number)) { return .none }
        let (filters, parms) = try filterChain(stream)
        if let k = filters.firstIndex(of: .name("Crypt")) {
            let parm = k < parms.count ? try dictionary(parms[k]) : nil
            return .some(parm?["Name"]?.name ?? "Identity")
        }
        if type == "Metadata" && !security.encryptMetadata { return .none }
        if type == "EmbeddedFile" { return .some(security.embeddedFileFilter) }
        return .some(nil)
    }

    /// The stream's /Filter and /DecodeParms as arrays, references resolved.
    func filterChain(_ stream: PDFStream) throws -> (filters: [PDFObject], parms: [PDFObject]) {
        var filters: [PDFObject] = []
        var parms: [PDFObject] = []
        switch try stream.dictionary["Filter"].map(object(for:)) {
        case .name(let n)?: filters = [.name(n)]
        case .array(let a)?: filters = try a.map(object(for:))
        default: break
        }
        switch try stream.dictionary["DecodeParms"].map(object(for:)) {
        case .dictionary(let d)?: parms = [.dictionary(d)]
        case .array(let a)?: parms = try a.map(object(for:))
        default: break
        }
        return (filters, parms)
    }

    /// The stream's data as stored, decrypted if the document is encrypted: still encoded
    /// with its filters. Data held in memory (`.bytes`) is plain already.
    public func decryptedRawData(_ stream: PDFStream) throws -> [UInt8] {
        let data = try loadedRawData(stream)
        guard let security, let id = stream.objectID, case .file = stream.data,
              case .some(let filter) = try cryptFilter(stream, id, security) else { return data }
        try checkOwnBytes(stream)
        return try security.decryptStream(data, object: id, cryptFilter: filter)
    }

    /// Encrypted data is decrypted with the key of its object in this file: a stream read
    /// from other bytes (before the document was saved in full and renumbered) cannot be.
    func checkOwnBytes(_ stream: PDFStream) throws {
        if let source = stream.source, source !== buffer {
            throw PDFError(.state, "this stream was read before the document was saved; read it again from the document")
        }
    }

    /// The bytes to write for `stream` as object `target` of this document: its encoded
    /// data, encrypted for `target` when the document is encrypted. Data still encrypted
    /// for the same object is copied as it is.
    public func streamDataForWriting(_ stream: PDFStream, as target: ObjectID) throws -> [UInt8] {
        guard let security, case .some(let filter) = try cryptFilter(stream, target, security, writing: true) else {
            return try decryptedRawData(stream)
        }
        if case .file = stream.data, stream.objectID == target, stream.source == nil || stream.source === buffer {
            return try loadedRawData(stream)
        }
        return try security.encryptStream(decryptedRawData(stream), object: target, cryptFilter: filter)
    }

    func predict(_ data: [UInt8], _ parm: PDFDictionary?) throws -> [UInt8] {
        guard let parm, let predictor = parm["Predictor"]?.integer, predictor > 1 else { return data }
        return try Filters.unpredict(data, predictor: Int(clamping: predictor),
                                     colors: Int(clamping: parm["Colors"]?.integer ?? 1),
                                     bitsPerComponent: Int(clamping: parm["BitsPerComponent"]?.integer ?? 8),
                                     columns: Int(clamping: parm["Columns"]?.integer ?? 1))
    }
}
