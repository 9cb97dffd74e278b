import QuireSyntax

/// A CMap (ISO 32000-2 §9.7.5, Adobe Technical Note #5014) as text extraction needs it:
/// the codespace ranges that split a string into codes, the code-to-CID mappings of an
/// encoding CMap, and the code-to-Unicode mappings of a /ToUnicode CMap (§9.10.3). Read
/// with the syntax module's lexer; what the lexer cannot read ends the CMap where it is.
struct CMap: Sendable {
    /// Codespace ranges: byte length, low and high code of that length.
    struct Range: Sendable { var bytes: Int; var low: UInt32; var high: UInt32 }
    var codespace: [Range] = []
    /// CID ranges: codes `low...high` map to `cid + (code - low)`.
    var cidRanges: [(bytes: Int, low: UInt32, high: UInt32, cid: UInt32)] = []
    var cidSingles: [UInt64: UInt32] = [:]
    /// Unicode mappings (bfchar), by code with its byte length in the top bits.
    var unicode: [UInt64: String] = [:]
    /// Unicode ranges (bfrange with a start string): the last UTF-16 unit counts up.
    var unicodeRanges: [(bytes: Int, low: UInt32, high: UInt32, start: [UInt16])] = []
    /// `/WMode 1`: vertical writing.
    var vertical = false
    /// Identity: two-byte codes, CID = code.
    var isIdentity = false

    /// Most mappings one CMap may define (a range counts once): bounds memory and time.
    static let maxEntries = 200_000

    static func key(_ code: UInt32, _ bytes: Int) -> UInt64 { UInt64(bytes) << 32 | UInt64(code) }

    /// Identity-H or Identity-V.
    static func identity(vertical: Bool) -> CMap {
        var c = CMap()
        c.codespace = [Range(bytes: 2, low: 0, high: 0xFFFF)]
        c.isIdentity = true
        c.vertical = vertical
        return c
    }

    /// The predefined CMap `name`, for those text extraction handles: Identity-H/V. The
    /// others (CJK encodings) are not built in; nil (the font then reads two-byte codes
    /// as CIDs, which is right for the UCS2/UTF16 CMaps and wrong for the rest).
    static func predefined(_ name: String) -> CMap? {
        switch name {
        case "Identity-H": return identity(vertical: false)
        case "Identity-V": return identity(vertical: true)
        default:
            // "H" and "V" themselves: Adobe-Japan1's JIS X 0208 CMaps (pdfminer simple3.pdf).
            if name == "V" || name.hasSuffix("-V") { var c = identity(vertical: true); c.isIdentity = false; return c }
            if name == "H" || name.hasSuffix("-H") || name.contains("UCS2") || name.contains("UTF16") {
                var c = identity(vertical: false); c.isIdentity = false; return c
            }
            return nil
        }
    }

    /// Parses CMap `data`. `usecmap` of a predefined Identity CMap is honoured.
    static func parse(_ data: [UInt8]) -> CMap {
        var cmap = CMap()
        let buffer = ByteBuffer(copying: data)
        var lexer = Lexer(buffer)
        var operands: [Token] = []
        var entries = 0
        func code(_ t: Token) -> (UInt32, Int)? {
            guard case .string(let s) = t, (1...4).contains(s.bytes.count) else { return nil }
            var v: UInt32 = 0
            for b in s.bytes { v = v << 8 | UInt32(b) }
            return (v, s.bytes.count)
        }
        func int(_ t: Token) -> UInt32? {
            if case .integer(let i) = t, i >= 0, i <= Int64(UInt32.max) { return UInt32(i) }
            return nil
        }
        func utf16(_ bytes: [UInt8]) -> [UInt16] {
            var units: [UInt16] = []
            var i = 0
            while i + 1 < bytes.count { units.append(UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1])); i += 2 }
            if i < bytes.count { units.append(UInt16(bytes[i])) }
            return units
        }
        var inBlock: String? = nil
        var arrayItems: [Token]? = nil
        while entries < maxEntries {
            guard let token = try? lexer.next() else { break }
            if token == .eof { break }
            if arrayItems != nil {
                if token == .arrayEnd {
                    operands.append(.keyword("[array]"))
                    // bfrange with an array of strings: one mapping per code.
                    if inBlock == "bfrange", operands.count >= 3, let (lo, n) = code(operands[operands.count - 3]),
                       let (hi, _) = code(operands[operands.count - 2]), hi >= lo, let items = arrayItems {
                        for (k, item) in items.enumerated() where UInt32(k) <= hi - lo {
                            if case .string(let s) = item {
                                cmap.unicode[key(lo + UInt32(k), n)] = String(decoding: utf16(s.bytes), as: UTF16.self)
                                entries += 1
                            }
                        }
                        operands.removeAll()
                    }
                    arrayItems = nil
                } else {
                    arrayItems?.append(token)
                    if (arrayItems?.count ?? 0) > 65_536 { break }
                }
                continue
            }
            switch token {
            case .arrayStart: arrayItems = []
            case .keyword(let k):
                switch k {
                case "begincodespacerange": inBlock = "codespace"; operands.removeAll()
                case "begincidrange": inBlock = "cidrange"; operands.removeAll()
                case "begincidchar": inBlock = "cidchar"; operands.removeAll()
                case "beginbfchar": inBlock = "bfchar"; operands.removeAll()
                case "beginbfrange": inBlock = "bfrange"; operands.removeAll()
                case "endcodespacerange", "endcidrange", "endcidchar", "endbfchar", "endbfrange":
                    inBlock = nil; operands.removeAll()
                case "usecmap":
                    if case .name(let n)? = operands.last, let base = predefined(n.value) {
                        if cmap.codespace.isEmpty { cmap.codespace = base.codespace }
                        cmap.isIdentity = base.isIdentity && cmap.cidRanges.isEmpty && cmap.cidSingles.isEmpty
                    }
                    operands.removeAll()
                case "def":
                    if operands.count >= 2, case .name(let n) = operands[operands.count - 2], n.value == "WMode",
                       case .integer(let v) = operands[operands.count - 1] {
                        cmap.vertical = v == 1
                    }
                    operands.removeAll()
                default:
                    operands.removeAll()
                }
            default:
                guard let block = inBlock else {
                    operands.append(token)
                    if operands.count > 16 { operands.removeFirst() }
                    continue
                }
                operands.append(token)
                switch block {
                case "codespace" where operands.count == 2:
                    if let (lo, n) = code(operands[0]), let (hi, m) = code(operands[1]), n == m {
                        cmap.codespace.append(Range(bytes: n, low: lo, high: hi)); entries += 1
                    }
                    operands.removeAll()
                case "cidrange" where operands.count == 3:
                    if let (lo, n) = code(operands[0]), let (hi, _) = code(operands[1]), hi >= lo, let cid = int(operands[2]) {
                        cmap.cidRanges.append((n, lo, hi, cid)); entries += 1
                    }
                    operands.removeAll()
                case "cidchar" where operands.count == 2:
                    if let (c, n) = code(operands[0]), let cid = int(operands[1]) { cmap.cidSingles[key(c, n)] = cid; entries += 1 }
                    operands.removeAll()
                case "bfchar" where operands.count == 2:
                    if let (c, n) = code(operands[0]) {
                        if case .string(let s) = operands[1] {
                            cmap.unicode[key(c, n)] = String(decoding: utf16(s.bytes), as: UTF16.self)
                        } else if case .name(let g) = operands[1], let u = GlyphNames.unicode(for: g.value) {
                            cmap.unicode[key(c, n)] = u
                        }
                        entries += 1
                    }
                    operands.removeAll()
                case "bfrange" where operands.count == 3:
                    if let (lo, n) = code(operands[0]), let (hi, _) = code(operands[1]), hi >= lo,
                       case .string(let s) = operands[2] {
                        cmap.unicodeRanges.append((n, lo, hi, utf16(s.bytes))); entries += 1
                    }
                    operands.removeAll()
                default:
                    if operands.count > 3 { operands.removeAll() }
                }
            }
        }
        return cmap
    }

    /// Splits `bytes` into codes by the codespace ranges (§9.7.6.2): the shortest prefix
    /// that falls in a range of its length; a byte sequence in no range takes the length
    /// of the shortest range whose first bytes match (one byte at worst).
    func codes(_ bytes: [UInt8]) -> [(code: UInt32, bytes: Int)] {
        var out: [(UInt32, Int)] = []
        out.reserveCapacity(bytes.count / 2 + 1)
        if codespace.isEmpty {
            var i = 0
            while i + 1 < bytes.count { out.append((UInt32(bytes[i]) << 8 | UInt32(bytes[i + 1]), 2)); i += 2 }
            return out
        }
        var i = 0
        while i < bytes.count {
            var matched: (UInt32, Int)? = nil
            var v: UInt32 = 0
            for n in 1...4 where i + n <= bytes.count {
                v = v << 8 | UInt32(bytes[i + n - 1])
                if codespace.contains(where: { $0.bytes == n && v >= $0.low && v <= $0.high }) {
                    matched = (v, n)
                    break
                }
            }
            if matched == nil {
                let n = Swift.min(codespace.map(\.bytes).min() ?? 1, bytes.count - i)
                var w: UInt32 = 0
                for k in 0..<n { w = w << 8 | UInt32(bytes[i + k]) }
                matched = (w, Swift.max(n, 1))
            }
            guard let m = matched else { break }
            out.append(m)
            i += m.1
        }
        return out
    }

    /// The CID of `code` (an encoding CMap); identity when the CMap does not map it.
    func cid(_ code: UInt32, bytes: Int) -> UInt32 {
        if isIdentity { return code }
        if let c = cidSingles[CMap.key(code, bytes)] { return c }
        for r in cidRanges where r.bytes == bytes && code >= r.low && code <= r.high { return r.cid &+ (code - r.low) }
        if cidRanges.isEmpty && cidSingles.isEmpty { return code }
        return 0
    }

    /// The Unicode text of `code` (a /ToUnicode CMap), or nil.
    func text(_ code: UInt32, bytes: Int) -> String? {
        if let s = unicode[CMap.key(code, bytes)] { return s }
        for r in unicodeRanges where code >= r.low && code <= r.high && (r.bytes == bytes || unicodeRanges.count == 1) {
            guard var units = Optional(r.start), let last = units.last else { return nil }
            units[units.count - 1] = last &+ UInt16(truncatingIfNeeded: code - r.low)
            return String(decoding: units, as: UTF16.self)
        }
        // A code written with more bytes than the ToUnicode CMap's keys (or fewer).
        if unicodeRanges.isEmpty || bytes > 0 {
            for n in 1...4 where n != bytes {
                if let s = unicode[CMap.key(code, n)] { return s }
            }
        }
        return nil
    }

    var hasUnicode: Bool { !unicode.isEmpty || !unicodeRanges.isEmpty }
}

/// CID to Unicode of the Adobe CJK character collections (Adobe-Japan1, -GB1, -CNS1,
/// -Korea1), for composite fonts without /ToUnicode whose CIDs are known (an Identity or
/// embedded encoding CMap). Generated from Adobe's UCS2 CMaps (CIDUnicode.generated.swift,
/// scripts/gen_cid_unicode.py); each collection is parsed on first use, then immutable.
enum CIDUnicode {
    /// Sorted runs: first CID, first code point, length.
    typealias Runs = [(cid: UInt32, scalar: UInt32, count: UInt32)]

    private static let japan1 = parse("Japan1")
    private static let gb1 = parse("GB1")
    private static let cns1 = parse("CNS1")
    private static let korea1 = parse("Korea1")

    /// The runs of collection `ordering` (registry Adobe), or nil for another one.
    static func runs(ordering: String) -> Runs? {
        switch ordering {
        case "Japan1": return japan1
        case "GB1": return gb1
        case "CNS1": return cns1
        case "Korea1": return korea1
        default: return nil
        }
    }

    private static func parse(_ ordering: String) -> Runs {
        guard let text = CIDUnicodeData.collections.first(where: { $0.ordering == ordering })?.runs else { return [] }
        var out: Runs = []
        var cid: UInt32 = 0
        // Split on bytes (the text is ASCII): on Characters, grapheme breaking over the
        // whole table was 92 million instructions for Japan1 (issue 41).
        for line in text.utf8.split(separator: UInt8(ascii: "\n")) {
            let p = line.split(separator: UInt8(ascii: " ")).map { Substring($0) }
            guard p.count >= 2, let delta = UInt32(p[0]), let u = UInt32(p[1], radix: 16) else { continue }
            cid &+= delta
            out.append((cid, u, p.count > 2 ? UInt32(p[2]) ?? 1 : 1))
        }
        return out
    }

    /// The text of `cid` in `runs`, or nil.
    static func text(_ cid: UInt32, in runs: Runs) -> String? {
        var lo = 0, hi = runs.count - 1
        while lo <= hi {
            let mid = (lo + hi) / 2
            let r = runs[mid]
            if cid < r.cid { hi = mid - 1 } else if cid >= r.cid &+ r.count { lo = mid + 1 } else {
                return Unicode.Scalar(r.scalar + (cid - r.cid)).map { String(Character($0)) }
            }
        }
        return nil
    }
}
