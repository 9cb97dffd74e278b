/// Glyph boxes from embedded font programs (issue 18): the bounding box of each glyph's
/// outline, as PDFium's `FPDFText_GetCharBox` reports it (FreeType's unscaled glyph
/// metrics: the control box of the outline, in thousandths of an em).
///
/// Three formats are read: TrueType (`glyf`/`loca`/`cmap`/`head`, from /FontFile2 or an
/// OpenType /FontFile3), CFF (bare, CID-keyed, or inside OpenType; Type 2 charstrings) and
/// Type 1 (/FontFile: PFA or PFB, eexec-encrypted, Type 1 charstrings). Every parser here
/// reads hostile bytes: reads past the end give 0 (and the structure checks that follow
/// reject the font), and charstring interpretation has the operation, stack and call-depth
/// limits of ``FontProgramLimits``. A font that does not parse gives no program: its
/// characters keep the ascent-to-descent box.

/// A glyph's bounding box in glyph space units (1/1000 em for the fonts of a PDF).
public struct GlyphBox: Sendable, Equatable {
    public var left: Double
    public var bottom: Double
    public var right: Double
    public var top: Double
    public init(left: Double, bottom: Double, right: Double, top: Double) {
        self.left = left; self.bottom = bottom; self.right = right; self.top = top
    }
    var isEmpty: Bool { right <= left || top <= bottom }
    func union(_ o: GlyphBox) -> GlyphBox {
        GlyphBox(left: min(left, o.left), bottom: min(bottom, o.bottom), right: max(right, o.right), top: max(top, o.top))
    }
}

/// Limits of font program parsing.
public enum FontProgramLimits {
    /// Most charstring operators (and operands) interpreted for one glyph, subroutines
    /// and accent compositions included.
    public static let maxOperations = 50_000
    /// Deepest subroutine nesting (the Type 2 charstring format allows 10).
    public static let maxCallDepth = 10
    /// Largest operand stack (Type 2 allows 48; Type 1 fonts need less).
    public static let maxStack = 48
    /// Largest font program read (bytes, after decoding).
    public static let maxProgramBytes = 64 << 20
    /// Most glyphs a font program may declare.
    public static let maxGlyphs = 65_536
}

/// Big-endian reads from bytes; out of range reads give 0.
struct FontBytes {
    let data: [UInt8]
    init(_ data: [UInt8]) { self.data = data }
    var count: Int { data.count }
    @inline(__always) func u8(_ i: Int) -> Int { i >= 0 && i < data.count ? Int(data[i]) : 0 }
    func u16(_ i: Int) -> Int { u8(i) << 8 | u8(i + 1) }
    func i16(_ i: Int) -> Int { let v = u16(i); return v >= 0x8000 ? v - 0x10000 : v }
    func u32(_ i: Int) -> Int { u16(i) << 16 | u16(i + 2) }
    func i32(_ i: Int) -> Int { let v = u32(i); return v >= 0x8000_0000 ? v - 0x1_0000_0000 : v }
    func contains(_ offset: Int, _ length: Int) -> Bool {
        offset >= 0 && length >= 0 && offset <= data.count && length <= data.count - offset
    }
    func tag(_ i: Int) -> String {
        String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: u8(i + $0)) }, as: UTF8.self)
    }
}

/// The glyph outline source of an embedded font.
enum FontProgram {
    case trueType(TrueTypeProgram)
    case cff(CFFProgram)
    case type1(Type1Program)

    /// Reads an embedded font program: `key` is the font descriptor key it came from
    /// (FontFile, FontFile2, FontFile3).
    static func read(_ bytes: [UInt8], key: String) -> FontProgram? {
        guard bytes.count >= 4, bytes.count <= FontProgramLimits.maxProgramBytes else { return nil }
        let b = FontBytes(bytes)
        let tag = b.tag(0)
        if tag == "OTTO" || tag == "true" || tag == "ttcf" || b.u32(0) == 0x0001_0000 {
            guard let tt = TrueTypeProgram(b) else { return nil }
            if let cff = tt.table("CFF ") {
                return CFFProgram(FontBytes(Array(bytes[cff.offset ..< cff.offset + cff.length]))).map { .cff($0) }
            }
            return tt.hasOutlines ? .trueType(tt) : nil
        }
        if b.u8(0) == 1 && b.u8(2) >= 4 && b.u8(2) < bytes.count, let cff = CFFProgram(b) { return .cff(cff) }
        if key == "FontFile" || bytes.starts(with: Array("%!".utf8)) || b.u8(0) == 0x80 {
            return Type1Program(bytes).map { .type1($0) }
        }
        return nil
    }
}

// MARK: - TrueType

/// A TrueType (or OpenType) font's tables: the per-glyph boxes of `glyf` (through `loca`),
/// `head.unitsPerEm`, and the `cmap` subtables (formats 0, 4, 6 and 12).
final class TrueTypeProgram {
    let b: FontBytes
    private var tables: [String: (offset: Int, length: Int)] = [:]
    private(set) var unitsPerEm = 1000.0
    private var locaLong = false
    private(set) var numGlyphs = 0
    /// (platform, encoding, offset of the subtable).
    private var cmaps: [(platform: Int, encoding: Int, offset: Int)] = []

    init?(_ b: FontBytes) {
        self.b = b
        var base = 0
        if b.tag(0) == "ttcf" {
            guard b.u32(8) > 0 else { return nil }
            base = b.u32(12)
        }
        let n = b.u16(base + 4)
        guard n > 0, n < 512, b.contains(base + 12, n * 16) else { return nil }
        for i in 0..<n {
            let r = base + 12 + i * 16
            let off = b.u32(r + 8), len = b.u32(r + 12)
            if b.contains(off, len) { tables[b.tag(r)] = (off, len) }
        }
        if let head = tables["head"], head.length >= 54 {
            let u = b.u16(head.offset + 18)
            if u >= 16 && u <= 16384 { unitsPerEm = Double(u) }
            locaLong = b.i16(head.offset + 50) == 1
        }
        if let maxp = tables["maxp"], maxp.length >= 6 { numGlyphs = b.u16(maxp.offset + 4) }
        if let cmap = tables["cmap"], cmap.length >= 4 {
            let count = b.u16(cmap.offset + 2)
            for i in 0..<min(count, 64) {
                let r = cmap.offset + 4 + i * 8
                guard b.contains(r, 8) else { break }
                let off = cmap.offset + b.u32(r + 4)
                if b.contains(off, 4) { cmaps.append((b.u16(r), b.u16(r + 2), off)) }
            }
        }
    }

    func table(_ tag: String) -> (offset: Int, length: Int)? { tables[tag] }
    var hasOutlines: Bool { tables["glyf"] != nil && tables["loca"] != nil }

    func hasCmap(_ platform: Int, _ encoding: Int) -> Bool {
        cmaps.contains { $0.platform == platform && $0.encoding == encoding }
    }

    /// The glyph of `code` in subtable (`platform`, `encoding`), or nil (0: .notdef).
    func glyph(_ code: Int, platform: Int, encoding: Int) -> Int? {
        guard let sub = cmaps.first(where: { $0.platform == platform && $0.encoding == encoding }) else { return nil }
        let o = sub.offset
        let g: Int
        switch b.u16(o) {
        case 0:
            guard code >= 0 && code < 256 else { return nil }
            g = b.u8(o + 6 + code)
        case 4:
            let segX2 = b.u16(o + 6)
            guard segX2 > 0, segX2 % 2 == 0, b.contains(o + 14, segX2 * 4 + 2) else { return nil }
            let ends = o + 14, starts = ends + segX2 + 2, deltas = starts + segX2, ranges = deltas + segX2
            // Binary search of the segment whose end is >= code.
            var lo = 0, hi = segX2 / 2 - 1, seg = -1
            while lo <= hi {
                let mid = (lo + hi) / 2
                if b.u16(ends + mid * 2) >= code { seg = mid; hi = mid - 1 } else { lo = mid + 1 }
            }
            guard seg >= 0 else { return nil }
            let start = b.u16(starts + seg * 2)
            guard code >= start else { return nil }
            let delta = b.u16(deltas + seg * 2), rangeOffset = b.u16(ranges + seg * 2)
            if rangeOffset == 0 {
                g = (code + delta) & 0xFFFF
            } else {
                let at = ranges + seg * 2 + rangeOffset + (code - start) * 2
                guard b.contains(at, 2) else { return nil }
                let v = b.u16(at)
                g = v == 0 ? 0 : (v + delta) & 0xFFFF
            }
        case 6:
            let first = b.u16(o + 6), n = b.u16(o + 8)
            guard code >= first && code < first + n else { return nil }
            g = b.u16(o + 10 + (code - first) * 2)
        case 12:
            let n = b.u32(o + 12)
            guard n > 0, b.contains(o + 16, n * 12) else { return nil }
            var lo = 0, hi = n - 1
            while lo <= hi {
                let mid = (lo + hi) / 2, r = o + 16 + mid * 12
                let s = b.u32(r), e = b.u32(r + 4)
                if code < s { hi = mid - 1 } else if code > e { lo = mid + 1 } else { return b.u32(r + 8) + (code - s) }
            }
            return nil
        default:
            return nil
        }
        return g == 0 ? nil : g
    }

    /// The box of glyph `gid` from its `glyf` header, in 1/1000 em; an empty glyph has the
    /// empty box at the origin; nil for a glyph the font does not have.
    func box(_ gid: Int) -> GlyphBox? {
        guard let glyf = tables["glyf"], let loca = tables["loca"], gid >= 0, gid < max(numGlyphs, 1) else { return nil }
        let start: Int, end: Int
        if locaLong {
            guard loca.length >= (gid + 2) * 4 else { return nil }
            start = b.u32(loca.offset + gid * 4); end = b.u32(loca.offset + gid * 4 + 4)
        } else {
            guard loca.length >= (gid + 2) * 2 else { return nil }
            start = b.u16(loca.offset + gid * 2) * 2; end = b.u16(loca.offset + gid * 2 + 2) * 2
        }
        if end <= start { return GlyphBox(left: 0, bottom: 0, right: 0, top: 0) }
        guard end - start >= 10, end <= glyf.length else { return nil }
        let g = glyf.offset + start
        let s = 1000 / unitsPerEm
        // A simple glyph's box from its points (FreeType measures the outline, and some
        // fonts' headers give every glyph the em box); a composite glyph's from its header.
        if b.i16(g) > 0, let p = pointBounds(g, glyf.offset + end) {
            return GlyphBox(left: Double(p.0) * s, bottom: Double(p.1) * s, right: Double(p.2) * s, top: Double(p.3) * s)
        }
        return GlyphBox(left: Double(b.i16(g + 2)) * s, bottom: Double(b.i16(g + 4)) * s,
                        right: Double(b.i16(g + 6)) * s, top: Double(b.i16(g + 8)) * s)
    }

    /// The box of every point (on and off the curve) of the simple glyph at `g`, whose
    /// data ends at `end`; nil when the data runs out.
    private func pointBounds(_ g: Int, _ end: Int) -> (Int, Int, Int, Int)? {
        let contours = b.i16(g)
        let endPts = g + 10
        guard contours > 0, endPts + contours * 2 + 2 <= end else { return nil }
        let points = b.u16(endPts + (contours - 1) * 2) + 1
        var i = endPts + contours * 2
        i += 2 + b.u16(i)  // instructions
        guard i <= end else { return nil }
        var flags = [UInt8]()
        flags.reserveCapacity(points)
        while flags.count < points {
            guard i < end else { return nil }
            let f = UInt8(truncatingIfNeeded: b.u8(i))
            i += 1
            flags.append(f)
            if f & 8 != 0 {
                guard i < end else { return nil }
                let repeats = b.u8(i)
                i += 1
                for _ in 0..<repeats where flags.count < points { flags.append(f) }
            }
        }
        var xs = [Int](repeating: 0, count: points), ys = xs
        for (axis, short, same) in [(0, UInt8(2), UInt8(16)), (1, UInt8(4), UInt8(32))] {
            var v = 0
            for k in 0..<points {
                let f = flags[k]
                if f & short != 0 {
                    guard i < end else { return nil }
                    v += f & same != 0 ? b.u8(i) : -b.u8(i)
                    i += 1
                } else if f & same == 0 {
                    guard i + 1 < end else { return nil }
                    v += b.i16(i)
                    i += 2
                }
                if axis == 0 { xs[k] = v } else { ys[k] = v }
            }
        }
        guard let x0 = xs.min(), let x1 = xs.max(), let y0 = ys.min(), let y1 = ys.max() else { return nil }
        return (x0, y0, x1, y1)
    }
}

// MARK: - Outline bounds

/// The control box of an outline as charstrings draw it: every point of a drawn segment
/// (control points included, as FreeType's unscaled metrics count them); a moveto counts
/// once something is drawn from it.
struct OutlineBounds {
    var x = 0.0, y = 0.0
    var box: GlyphBox? = nil
    private var pendingMove = true

    mutating func moveTo(_ nx: Double, _ ny: Double) { x = nx; y = ny; pendingMove = true }
    private mutating func add(_ px: Double, _ py: Double) {
        if let b = box {
            box = GlyphBox(left: min(b.left, px), bottom: min(b.bottom, py), right: max(b.right, px), top: max(b.top, py))
        } else {
            box = GlyphBox(left: px, bottom: py, right: px, top: py)
        }
    }
    private mutating func start() {
        if pendingMove { add(x, y); pendingMove = false }
    }
    mutating func lineTo(_ dx: Double, _ dy: Double) {
        start(); x += dx; y += dy; add(x, y)
    }
    mutating func curveTo(_ d1x: Double, _ d1y: Double, _ d2x: Double, _ d2y: Double, _ d3x: Double, _ d3y: Double) {
        start()
        let x1 = x + d1x, y1 = y + d1y, x2 = x1 + d2x, y2 = y1 + d2y
        x = x2 + d3x; y = y2 + d3y
        add(x1, y1); add(x2, y2); add(x, y)
    }
    /// Adds `other` (a composed glyph's box), moved by (`dx`, `dy`).
    mutating func include(_ other: GlyphBox?, dx: Double, dy: Double) {
        guard let o = other else { return }
        add(o.left + dx, o.bottom + dy); add(o.right + dx, o.top + dy)
    }
}

/// Reading embedded font programs directly, for tools and the fuzz target (`FuzzFont`):
/// what text extraction does with a /FontFile, /FontFile2 or /FontFile3 stream.
public enum EmbeddedFontProgram {
    /// The format `bytes` parse as ("TrueType", "CFF", "Type1"), or nil when they do not.
    /// `key` is the font descriptor key the program came from (`FontFile` is Type 1).
    public static func format(_ bytes: [UInt8], key: String) -> String? {
        switch FontProgram.read(bytes, key: key) {
        case .trueType?: return "TrueType"
        case .cff?: return "CFF"
        case .type1?: return "Type1"
        case nil: return nil
        }
    }

    /// The boxes (1/1000 em) of glyphs `0 ..< count` (TrueType and CFF: by glyph index,
    /// CID-keyed CFF by CID; Type 1: the glyphs of the built-in encoding's codes `0 ..<
    /// count`), and of the glyphs named in `names`. Empty when the program does not parse.
    public static func glyphBoxes(_ bytes: [UInt8], key: String, count: Int, names: [String] = []) -> [GlyphBox?] {
        guard let program = FontProgram.read(bytes, key: key) else { return [] }
        let n = max(0, min(count, FontProgramLimits.maxGlyphs))
        switch program {
        case .trueType(let tt):
            var out = (0..<n).map { tt.box($0) }
            for name in names {
                let u = GlyphNames.unicode(for: name)?.unicodeScalars.first.map { Int($0.value) } ?? 0
                out.append(tt.glyph(u, platform: 3, encoding: 1).flatMap { tt.box($0) })
            }
            return out
        case .cff(let cff):
            return (0..<n).map { cff.glyph(cid: $0).flatMap { cff.box($0) } } + names.map { cff.glyph(named: $0).flatMap { cff.box($0) } }
        case .type1(let t1):
            return (0..<n).map { t1.encoding[$0].flatMap { t1.box(named: $0) } } + names.map { t1.box(named: $0) }
        }
    }
}
