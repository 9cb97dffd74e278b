/// Where an object lives, per the cross-reference (ISO 32000-2 §7.5.4, §7.5.8).
public enum XRefEntry: Sendable, Equatable {
    case free
    /// An object written at byte `offset`.
    case inFile(offset: Int, generation: Int)
    /// Object number `index` of the object stream `stream`.
    case compressed(stream: Int, index: Int)
}

/// The form of the cross-reference of the newest revision.
public enum XRefForm: String, Sendable {
    case table, stream, hybrid
    /// No usable cross-reference: rebuilt by scanning the file.
    case rebuilt
}

/// One parsed cross-reference section: entries and trailer.
struct XRefSection {
    var entries: [(Int, XRefEntry)] = []
    var trailer = PDFDictionary()
    var form: XRefForm = .table
}

/// Reads cross-reference sections. Entries are reported in section order; the caller
/// decides precedence.
struct XRefReader {
    let buffer: ByteBuffer
    let limits: PDFLimits
    /// Decodes the data of an xref stream.
    let decode: (PDFStream) throws -> [UInt8]

    /// The section at `offset`: a table (`xref`) or a stream (`N G obj`). A lazy buffer
    /// reads the bytes it needs (see ``ByteBuffer/withLoaded(from:_:)``).
    func section(at offset: Int) throws -> XRefSection {
        guard offset >= 0 && offset < buffer.count else {
            throw PDFError.format("cross-reference offset \(offset) is outside the file")
        }
        return try buffer.withLoaded(from: offset) { reach in
            var lexer = Lexer(buffer, at: offset)
            lexer.skipWhitespace()
            reach = lexer.position + 4
            if buffer.matches(Array("xref".utf8), at: lexer.position) {
                return try table(at: lexer.position + 4, reach: &reach)
            }
            return try stream(at: lexer.position, reach: &reach)
        }
    }

    /// A classic table (§7.5.4) starting after the `xref` keyword, and its trailer.
    func table(at start: Int, reach: inout Int) throws -> XRefSection {
        var section = XRefSection()
        var lexer = Lexer(buffer, at: start)
        var firstSubsection = true
        defer { reach = Swift.max(reach, lexer.highWater, lexer.position) }
        while true {
            let t = try lexer.next()
            if case .keyword("trailer") = t { break }
            guard case .integer(let first) = t, case .integer(let count) = try lexer.next(),
                  first >= 0, count >= 0 else {
                throw PDFError.format("malformed cross-reference subsection header", at: lexer.tokenStart)
            }
            let (end, overflow) = first.addingReportingOverflow(count)
            guard !overflow, end - 1 <= Int64(limits.maxObjects) else {  // names first ... end-1
                throw PDFError(limit: "max_objects", limits.maxObjects, "object number \(first) + \(count) in a cross-reference section")
            }
            let subsectionStart = section.entries.count
            // Its entries, 20 bytes each (21 for writers that end them with CR CR LF).
            // (count is at most max_objects, which a host may raise to 2^64: clamped first.)
            buffer.ensure(lexer.position..<(lexer.position + Int(Swift.min(count, Int64(buffer.count))) * 21 + 1024))
            for k in 0..<Int(count) {
                let number = Int(first) + k
                lexer.skipWhitespace()
                if let (entry, next) = fastEntry(at: lexer.position) {
                    section.entries.append((number, entry))
                    lexer.position = next
                    continue
                }
                guard case .integer(let off) = try lexer.next(), case .integer(let gen) = try lexer.next(),
                      case .keyword(let kind) = try lexer.next() else {
                    throw PDFError.format("malformed cross-reference entry for object \(number)", at: lexer.tokenStart)
                }
                switch kind {
                case "n": section.entries.append((number, .inFile(offset: Int(off), generation: Int(Swift.max(0, Swift.min(gen, 65535))))))
                case "f": section.entries.append((number, .free))
                default: throw PDFError.format("cross-reference entry of unknown type '\(kind.prefix(8))'", at: lexer.tokenStart)
                }
            }
            if firstSubsection {
                XRefReader.fixOffByOne(&section.entries, subsectionStart..<section.entries.count, first: Int(first))
                firstSubsection = false
            }
        }
        var parser = ObjectParser(buffer, at: lexer.position, limits: limits)
        defer { reach = Swift.max(reach, parser.lexer.highWater) }
        guard case .dictionary(let trailer) = try parser.parseObject() else {
            throw PDFError.format("trailer is not a dictionary", at: lexer.position)
        }
        section.trailer = trailer
        return section
    }

    /// The common 20-byte entry `oooooooooo ggggg n` without the lexer; nil otherwise.
    @inline(__always)
    func fastEntry(at p: Int) -> (XRefEntry, Int)? {
        let b = buffer.bytes
        guard p + 18 <= b.count, b[p + 10] == 0x20, b[p + 16] == 0x20 else { return nil }
        var off = 0, gen = 0
        for k in 0..<10 { let d = b[p + k]; guard CharClass.isDigit(d) else { return nil }; off = off * 10 + Int(d - 0x30) }
        for k in 11..<16 { let d = b[p + k]; guard CharClass.isDigit(d) else { return nil }; gen = gen * 10 + Int(d - 0x30) }
        let next = p + 18
        guard next >= b.count || !CharClass.isRegular(b[next]) else { return nil }
        switch b[p + 17] {
        case UInt8(ascii: "n"): return (.inFile(offset: off, generation: gen), next)
        case UInt8(ascii: "f"): return (.free, next)
        default: return nil
        }
    }

    /// A writer bug seen in the wild (pdf.js and PDFium correct it too): a first
    /// subsection that says it starts at object 1 but begins with object 0's free entry.
    /// Its entries are then shifted down by one.
    static func fixOffByOne(_ entries: inout [(Int, XRefEntry)], _ range: Range<Int>, first: Int) {
        let range = range.clamped(to: entries.indices)
        guard first == 1, let start = range.first, entries[start].1 == .free else { return }
        for k in range { entries[k].0 -= 1 }
    }

    /// A cross-reference stream (§7.5.8) at `offset`.
    func stream(at offset: Int) throws -> XRefSection {
        try buffer.withLoaded(from: offset) { try stream(at: offset, reach: &$0) }
    }

    func stream(at offset: Int, reach: inout Int) throws -> XRefSection {
        var parser = ObjectParser(buffer, at: offset, limits: limits)
        defer { reach = Swift.max(reach, parser.lexer.highWater) }
        let (_, object) = try parser.parseIndirectObject()
        guard case .stream(let stream) = object else {
            throw PDFError.format("cross-reference offset does not point at 'xref' or a stream", at: offset)
        }
        var section = try streamEntries(stream)
        section.form = .stream
        return section
    }

    /// The entries of an xref stream, given its parsed stream object.
    func streamEntries(_ stream: PDFStream) throws -> XRefSection {
        let dict = stream.dictionary
        guard let w = dict["W"]?.array?.compactMap({ $0.integer.map(Int.init) }), w.count == 3,
              w.allSatisfy({ $0 >= 0 && $0 <= 8 }) else {
            throw PDFError.format("cross-reference stream without a valid /W")
        }
        let size = dict["Size"]?.integer.map(Int.init) ?? 0
        var index: [Int] = [0, size]
        if let i = dict["Index"]?.array {
            index = i.compactMap { $0.integer.map(Int.init) }
        }
        guard index.count % 2 == 0, index.allSatisfy({ $0 >= 0 }) else {
            throw PDFError.format("cross-reference stream with a malformed /Index")
        }
        let data = try decode(stream)
        let rowSize = w[0] + w[1] + w[2]
        guard rowSize > 0 else { throw PDFError.format("cross-reference stream with /W [0 0 0]") }
        var section = XRefSection()
        section.trailer = dict
        var named = 0  // how many entries /Index names (saturating)
        for k in stride(from: 1, to: index.count, by: 2) { named = named.addingReportingOverflow(index[k]).overflow ? Int.max : named + index[k] }
        section.entries.reserveCapacity(Swift.min(data.count / rowSize, limits.maxObjects, named))
        var row = 0
        // Over the bytes, without a bounds check per byte (this loop was 15% of opening a
        // file of 39,000 objects); `at + rowSize <= data.count` is checked per row.
        try data.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return }
            @inline(__always) func field(_ start: Int, _ width: Int) -> Int {
                var v = 0
                for k in 0..<width { v = (v << 8) | Int(base[start + k]) }
                return v
            }
            var pair = 0
            rows: while pair < index.count {
                let first = index[pair], count = index[pair + 1]
                pair += 2
                let (end, overflow) = first.addingReportingOverflow(count)
                guard !overflow, end - 1 <= limits.maxObjects else {  // names first ... end-1
                    throw PDFError(limit: "max_objects", limits.maxObjects, "object number \(first) + \(count) in a cross-reference stream")
                }
                for k in 0..<count {
                    let at = row * rowSize
                    guard at + rowSize <= bytes.count else { break rows }  // short data: keep what is there
                    row += 1
                    let type = w[0] == 0 ? 1 : field(at, w[0])
                    let f2 = field(at + w[0], w[1])
                    let f3 = field(at + w[0] + w[1], w[2])
                    switch type {
                    case 0: section.entries.append((first + k, .free))
                    case 1: section.entries.append((first + k, .inFile(offset: f2, generation: Swift.max(0, Swift.min(f3, 65535)))))
                    case 2: section.entries.append((first + k, .compressed(stream: f2, index: f3)))
                    default: break  // unknown types are references to null (§7.5.8.3)
                    }
                }
            }
        }
        if index.count >= 2 { XRefReader.fixOffByOne(&section.entries, 0..<index[1], first: index[0]) }
        return section
    }
}

/// The merged cross-reference: where each object number is. Object numbers are dense in
/// real files (1 to /Size), so they index an array; a number far past the others (a
/// damaged or hostile section) goes to a dictionary instead, so that memory follows the
/// number of entries, not the largest number. A dictionary for all of them cost a third of
/// opening a file of 39,000 objects (hashing each number on every insert and lookup).
struct XRefTable {
    /// Entries packed in 64 bits (see ``pack(_:)``); 0 is no entry, 1 an entry kept in
    /// `sparse` because it does not fit (an offset past 2^46, a generation past 65,535...).
    private var dense: [UInt64] = []
    private var sparse: [Int: XRefEntry] = [:]
    /// How many numbers have an entry (free ones included).
    private(set) var count = 0

    private static let inSparse: UInt64 = 1

    /// An entry in 64 bits: two bits of kind, then an offset of 46 bits and a generation of
    /// 16, or an object stream's number and an index of 31 bits each; nil when it does not
    /// fit. A third of the memory of an optional enum (39,606 entries: 317 KB, not 950).
    @inline(__always) static func pack(_ entry: XRefEntry) -> UInt64? {
        switch entry {
        case .free:
            return 1 << 62
        case .inFile(let offset, let generation):
            guard offset >= 0, offset < 1 << 46, generation >= 0, generation < 1 << 16 else { return nil }
            return 2 << 62 | UInt64(generation) << 46 | UInt64(offset)
        case .compressed(let stream, let index):
            guard stream >= 0, stream < 1 << 31, index >= 0, index < 1 << 31 else { return nil }
            return 3 << 62 | UInt64(stream) << 31 | UInt64(index)
        }
    }

    @inline(__always) static func unpack(_ bits: UInt64) -> XRefEntry {
        switch bits >> 62 {
        case 1: return .free
        case 2: return .inFile(offset: Int(bits & (1 << 46 - 1)), generation: Int(bits >> 46 & 0xFFFF))
        default: return .compressed(stream: Int(bits >> 31 & (1 << 31 - 1)), index: Int(bits & (1 << 31 - 1)))
        }
    }

    init() {}

    init(_ entries: [Int: XRefEntry]) {
        for (number, entry) in entries { self[number] = entry }
    }

    /// The entry in the array at `number` (which is within it).
    @inline(__always) private func denseEntry(_ number: Int) -> XRefEntry? {
        let bits = dense[number]
        if bits == 0 { return nil }
        return bits == Self.inSparse ? sparse[number] : Self.unpack(bits)
    }

    /// Sets the array's slot `number` (within it), keeping `count`.
    @inline(__always) private mutating func setDense(_ number: Int, _ entry: XRefEntry?) {
        let old = dense[number]
        count += (entry != nil ? 1 : 0) - (old != 0 ? 1 : 0)
        if old == Self.inSparse { sparse[number] = nil }
        guard let entry else {
            dense[number] = 0
            return
        }
        if let bits = Self.pack(entry) {
            dense[number] = bits
        } else {
            dense[number] = Self.inSparse
            sparse[number] = entry
        }
    }

    subscript(number: Int) -> XRefEntry? {
        get {
            if number >= 0 && number < dense.count { return denseEntry(number) }
            return sparse.isEmpty ? nil : sparse[number]
        }
        set {
            if number >= 0 && number < dense.count {
                setDense(number, newValue)
                return
            }
            if Self.withinReach(number, entries: count) {
                grow(to: number + 1)
                setDense(number, newValue)
                return
            }
            let previous = sparse[number]
            count += (newValue != nil ? 1 : 0) - (previous != nil ? 1 : 0)
            sparse[number] = newValue
        }
    }

    /// Whether `number` goes in the array, which grows up to it, when the table holds
    /// `entries`: within twice the entries (and a few thousand), so that the array's
    /// memory follows the entries, not the largest number.
    private static func withinReach(_ number: Int, entries: Int) -> Bool {
        number >= 0 && number < Swift.max(4096, 2 * entries + 4096)
    }

    /// The array made `size` long, with what the dictionary held for the numbers it now
    /// covers moved into it.
    private mutating func grow(to size: Int) {
        let old = dense.count
        guard size > old else { return }
        dense.reserveCapacity(Swift.max(size, 2 * old))
        dense.append(contentsOf: repeatElement(0, count: size - old))
        if !sparse.isEmpty {
            for key in sparse.keys where key >= old && key < size {
                if let entry = sparse[key], let bits = Self.pack(entry) {
                    dense[key] = bits
                    sparse[key] = nil
                } else {
                    dense[key] = Self.inSparse
                }
            }
        }
    }

    /// Sets the entries of `section` that have none yet (an older section yields to the
    /// newer ones merged before it; within a section the first entry of a number wins).
    mutating func mergeKeepingCurrent(_ section: [(Int, XRefEntry)], free: Bool? = nil) {
        // The array grown once for the section's numbers within reach.
        var top = -1
        for (number, _) in section where number > top { top = number }
        if top >= dense.count && Self.withinReach(top, entries: count + section.count) { grow(to: top + 1) }
        for (number, entry) in section {
            if let free, (entry == .free) != free { continue }
            if number >= 0 && number < dense.count {
                if dense[number] == 0 {
                    setDense(number, entry)
                }
            } else if self[number] == nil {
                self[number] = entry
            }
        }
    }

    /// Every number with an entry and its entry, in no particular order.
    func forEach(_ body: (Int, XRefEntry) throws -> Void) rethrows {
        for (number, bits) in dense.enumerated() where bits != 0 && bits != Self.inSparse {
            try body(number, Self.unpack(bits))
        }
        for (number, entry) in sparse { try body(number, entry) }  // those marked in the array too
    }

    /// The numbers whose entry is not free, ascending.
    var numbersInUse: [Int] {
        var numbers: [Int] = []
        numbers.reserveCapacity(count)
        for (number, bits) in dense.enumerated() where bits != 0 && bits != Self.inSparse && bits >> 62 != 1 {
            numbers.append(number)
        }
        if !sparse.isEmpty {
            numbers += sparse.compactMap { $0.value == .free ? nil : $0.key }
            numbers.sort()  // a far number may be negative (a hostile section's)
        }
        return numbers
    }

    /// The largest number with an entry, if any.
    var maxNumber: Int? {
        let denseMax = dense.lastIndex(where: { $0 != 0 })
        guard let sparseMax = sparse.keys.max() else { return denseMax }
        return Swift.max(denseMax ?? sparseMax, sparseMax)
    }
}
