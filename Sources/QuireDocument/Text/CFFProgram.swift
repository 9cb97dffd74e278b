/// A CFF font program (Adobe TN 5176, the Compact Font Format; TN 5177, Type 2
/// charstrings): bare (/FontFile3 /Type1C), CID-keyed (/CIDFontType0C) or the `CFF ` table
/// of an OpenType font. Reads the first font of the FontSet: its charset (glyph names or
/// CIDs), built-in encoding, global and local subroutines (per font DICT for a CID-keyed
/// font, through FDSelect) and charstrings; a glyph's box is the control box of the outline
/// its Type 2 charstring draws (hints skipped, flex drawn as its two curves, `endchar`
/// accents composed), scaled by the FontMatrix to 1/1000 em.
final class CFFProgram {
    /// An INDEX: `count` objects whose offsets are read on demand.
    struct Index {
        var count = 0
        var offSize = 1
        var offsets = 0   // position of the offset array
        var dataBase = 0  // position before the first object's byte (offsets are 1-based)
        var end = 0       // position after the INDEX

        func range(_ i: Int, _ b: FontBytes) -> Range<Int>? {
            guard i >= 0, i < count else { return nil }
            func off(_ k: Int) -> Int {
                var v = 0
                for j in 0..<offSize { v = v << 8 | b.u8(offsets + k * offSize + j) }
                return v
            }
            let s = dataBase + off(i), e = dataBase + off(i + 1)
            guard s > dataBase, e >= s, e <= b.count else { return nil }
            return s..<e
        }
    }

    let b: FontBytes
    private var charStrings = Index()
    private var globalSubrs = Index()
    private var localSubrs: [Index] = [Index()]
    private var fdSelect: [UInt8]? = nil
    private var strings = Index()
    /// Glyph index to SID (name-keyed) or CID (CID-keyed).
    private var charset: [Int] = []
    let isCIDKeyed: Bool
    /// The built-in encoding: code to glyph index.
    private(set) var encoding: [Int: Int] = [:]
    private var scaleX = 1.0, scaleY = 1.0
    private lazy var nameToGID: [String: Int] = {
        var out: [String: Int] = [:]
        for (gid, sid) in charset.enumerated() where out[name(sid)] == nil { out[name(sid)] = gid }
        return out
    }()
    private lazy var cidToGID: [Int: Int] = {
        var out: [Int: Int] = [:]
        for (gid, cid) in charset.enumerated() where out[cid] == nil { out[cid] = gid }
        return out
    }()

    init?(_ b: FontBytes) {
        self.b = b
        let hdrSize = b.u8(2)
        guard b.u8(0) == 1, hdrSize >= 4 else { return nil }
        guard let names = CFFProgram.index(b, at: hdrSize),
              let topDicts = CFFProgram.index(b, at: names.end),
              let strings = CFFProgram.index(b, at: topDicts.end),
              let gsubrs = CFFProgram.index(b, at: strings.end),
              let topRange = topDicts.range(0, b) else { return nil }
        self.strings = strings
        globalSubrs = gsubrs
        let top = CFFProgram.dict(b, topRange)
        isCIDKeyed = top[1230] != nil
        if (top[1206]?.first ?? 2) != 2 { return nil }  // CharstringType 1 in CFF: not read
        guard let csOffset = top[17]?.first, let cs = CFFProgram.index(b, at: Int(csOffset)),
              cs.count > 0, cs.count <= FontProgramLimits.maxGlyphs else { return nil }
        charStrings = cs
        if let m = top[1207], m.count == 6, m[0] != 0, m[3] != 0 { scaleX = m[0] * 1000; scaleY = m[3] * 1000 }
        // Private DICT and local subrs (name-keyed); FDArray and FDSelect (CID-keyed).
        if isCIDKeyed {
            if let fdOffset = top[1236]?.first, let fds = CFFProgram.index(b, at: Int(fdOffset)) {
                localSubrs = (0..<min(fds.count, 256)).map { i in
                    guard let r = fds.range(i, b) else { return Index() }
                    return CFFProgram.privateSubrs(b, CFFProgram.dict(b, r))
                }
            }
            if let selOffset = top[1237]?.first { fdSelect = CFFProgram.fdSelect(b, Int(selOffset), cs.count) }
        } else {
            localSubrs = [CFFProgram.privateSubrs(b, top)]
        }
        charset = CFFProgram.charset(b, Int(top[15]?.first ?? 0), cs.count)
        if !isCIDKeyed { encoding = readEncoding(Int(top[16]?.first ?? 0)) }
    }

    /// The glyph named `name`, or nil.
    func glyph(named name: String) -> Int? { isCIDKeyed ? nil : nameToGID[name] }
    /// The glyph of CID `cid` (a CID-keyed font), else the glyph `cid` itself.
    func glyph(cid: Int) -> Int? {
        if isCIDKeyed { return cidToGID[cid] }
        return cid >= 0 && cid < charStrings.count ? cid : nil
    }

    private func name(_ sid: Int) -> String {
        let std = Tables.cffStandardStrings
        if sid >= 0 && sid < std.count { return std[sid] }
        guard let r = strings.range(sid - std.count, b) else { return "" }
        return String(decoding: b.data[r], as: UTF8.self)
    }

    // MARK: Structures

    static func index(_ b: FontBytes, at pos: Int) -> Index? {
        guard b.contains(pos, 2) else { return nil }
        var x = Index()
        x.count = b.u16(pos)
        if x.count == 0 { x.end = pos + 2; return x }
        x.offSize = b.u8(pos + 2)
        guard (1...4).contains(x.offSize) else { return nil }
        x.offsets = pos + 3
        guard b.contains(x.offsets, (x.count + 1) * x.offSize) else { return nil }
        x.dataBase = x.offsets + (x.count + 1) * x.offSize - 1
        var last = 0
        for j in 0..<x.offSize { last = last << 8 | b.u8(x.offsets + x.count * x.offSize + j) }
        x.end = x.dataBase + last
        guard x.end <= b.count else { return nil }
        return x
    }

    /// A DICT's operators (12 x as 1200 + x) and their operands.
    static func dict(_ b: FontBytes, _ r: Range<Int>) -> [Int: [Double]] {
        var out: [Int: [Double]] = [:]
        var operands: [Double] = []
        var i = r.lowerBound
        while i < r.upperBound {
            let v = b.u8(i)
            switch v {
            case 0...21:
                var op = v
                i += 1
                if v == 12 { op = 1200 + b.u8(i); i += 1 }
                out[op] = operands
                operands.removeAll()
            case 28: operands.append(Double(b.i16(i + 1))); i += 3
            case 29: operands.append(Double(b.i32(i + 1))); i += 5
            case 30:
                // Real: nibbles until 0xf.
                var s = ""
                i += 1
                scan: while i < r.upperBound {
                    let byte = b.u8(i)
                    i += 1
                    for nib in [byte >> 4, byte & 15] {
                        switch nib {
                        case 0...9: s += String(nib)
                        case 0xa: s += "."
                        case 0xb: s += "E"
                        case 0xc: s += "E-"
                        case 0xe: s += "-"
                        case 0xf: break scan
                        default: break
                        }
                    }
                    if s.utf8.count > 64 { break }
                }
                operands.append(Double(s) ?? 0)
            case 32...246: operands.append(Double(v - 139)); i += 1
            case 247...250: operands.append(Double((v - 247) * 256 + b.u8(i + 1) + 108)); i += 2
            case 251...254: operands.append(Double(-(v - 251) * 256 - b.u8(i + 1) - 108)); i += 2
            default: i += 1
            }
            if operands.count > FontProgramLimits.maxStack { operands.removeAll() }
        }
        return out
    }

    static func privateSubrs(_ b: FontBytes, _ top: [Int: [Double]]) -> Index {
        guard let p = top[18], p.count == 2, let size = Int(exactly: p[0]), let off = Int(exactly: p[1]),
              b.contains(off, size) else { return Index() }
        let priv = dict(b, off..<(off + size))
        guard let subrs = priv[19]?.first, let rel = Int(exactly: subrs), rel > 0 else { return Index() }
        return index(b, at: off + rel) ?? Index()
    }

    static func fdSelect(_ b: FontBytes, _ pos: Int, _ n: Int) -> [UInt8]? {
        switch b.u8(pos) {
        case 0:
            guard b.contains(pos + 1, n) else { return nil }
            return Array(b.data[(pos + 1)..<(pos + 1 + n)])
        case 3:
            let ranges = b.u16(pos + 1)
            guard b.contains(pos + 3, ranges * 3 + 2) else { return nil }
            var out = [UInt8](repeating: 0, count: n)
            for k in 0..<ranges {
                let first = b.u16(pos + 3 + k * 3), fd = b.u8(pos + 3 + k * 3 + 2)
                let next = min(b.u16(pos + 3 + (k + 1) * 3), n)
                if first < next { for g in first..<next { out[g] = UInt8(fd) } }
            }
            return out
        default:
            return nil
        }
    }

    /// Glyph index to SID/CID. Offsets 0, 1, 2 are the predefined ISOAdobe, Expert and
    /// ExpertSubset charsets; ISOAdobe is SID = GID, the expert ones are not read.
    static func charset(_ b: FontBytes, _ pos: Int, _ n: Int) -> [Int] {
        if pos <= 2 { return pos == 0 ? Array(0..<n) : [0] }
        var out = [0]
        out.reserveCapacity(n)
        let format = b.u8(pos)
        var i = pos + 1
        while out.count < n && i < b.count {
            switch format {
            case 0:
                out.append(b.u16(i)); i += 2
            case 1, 2:
                let first = b.u16(i)
                let left = format == 1 ? b.u8(i + 2) : b.u16(i + 2)
                i += format == 1 ? 3 : 4
                for k in 0...left where out.count < n { out.append(first + k) }
            default:
                return out
            }
        }
        return out
    }

    private func readEncoding(_ pos: Int) -> [Int: Int] {
        var out: [Int: Int] = [:]
        if pos == 0 {
            // StandardEncoding: code to name to glyph.
            let std = BaseEncoding.standard.glyphNames
            for (code, n) in std.enumerated() { if let n, let g = nameToGID[n] { out[code] = g } }
            return out
        }
        if pos == 1 { return out }  // ExpertEncoding: not read
        let format = b.u8(pos) & 0x7f
        if format == 0 {
            let n = b.u8(pos + 1)
            for k in 0..<n { out[b.u8(pos + 2 + k)] = k + 1 }
        } else if format == 1 {
            let ranges = b.u8(pos + 1)
            var gid = 1
            for k in 0..<ranges {
                let first = b.u8(pos + 2 + k * 2), left = b.u8(pos + 3 + k * 2)
                for c in first...(first + left) where c < 256 { out[c] = gid; gid += 1 }
            }
        }
        return out
    }

    // MARK: Charstrings

    /// The box of glyph `gid`, in 1/1000 em; nil when it does not exist or does not run.
    func box(_ gid: Int) -> GlyphBox? {
        guard let r = charStrings.range(gid, b) else { return nil }
        var run = Type2Run(program: self)
        let fd = fdSelect.map { gid < $0.count ? Int($0[gid]) : 0 } ?? 0
        run.local = fd < localSubrs.count ? localSubrs[fd] : Index()
        guard run.execute(r, depth: 0) else { return nil }
        guard let raw = run.bounds.box else { return GlyphBox(left: 0, bottom: 0, right: 0, top: 0) }
        return GlyphBox(left: raw.left * scaleX, bottom: raw.bottom * scaleY, right: raw.right * scaleX, top: raw.top * scaleY)
    }

    fileprivate func subr(_ index: Index, _ n: Int) -> Range<Int>? {
        let bias = index.count < 1240 ? 107 : index.count < 33900 ? 1131 : 32768
        return index.range(n + bias, b)
    }

    /// The interpretation of one glyph's Type 2 charstring.
    fileprivate struct Type2Run {
        unowned let program: CFFProgram
        var local = Index()
        var stack: [Double] = []
        var bounds = OutlineBounds()
        var stems = 0
        var sawWidth = false
        var operations = 0
        var ended = false
        var accentDepth = 0

        init(program: CFFProgram) { self.program = program; stack.reserveCapacity(FontProgramLimits.maxStack) }

        /// Drops the optional width in front of the arguments of the first stack-clearing
        /// operator, when the count says it is there.
        mutating func width(_ extra: Bool) {
            if !sawWidth { sawWidth = true; if extra && !stack.isEmpty { stack.removeFirst() } }
        }

        mutating func execute(_ r: Range<Int>, depth: Int) -> Bool {
            let b = program.b
            var i = r.lowerBound
            while i < r.upperBound && !ended {
                operations += 1
                if operations > FontProgramLimits.maxOperations { return false }
                let v = b.u8(i)
                if v >= 32 || v == 28 {
                    let value: Double
                    switch v {
                    case 28: value = Double(b.i16(i + 1)); i += 3
                    case 32...246: value = Double(v - 139); i += 1
                    case 247...250: value = Double((v - 247) * 256 + b.u8(i + 1) + 108); i += 2
                    case 251...254: value = Double(-(v - 251) * 256 - b.u8(i + 1) - 108); i += 2
                    default: value = Double(b.i32(i + 1)) / 65536; i += 5
                    }
                    guard stack.count < FontProgramLimits.maxStack else { return false }
                    stack.append(value)
                    continue
                }
                i += 1
                let s = stack
                switch v {
                case 1, 3, 18, 23:  // hstem vstem hstemhm vstemhm
                    width(s.count % 2 == 1)
                    stems += stack.count / 2
                    stack.removeAll()
                case 19, 20:  // hintmask cntrmask
                    width(s.count % 2 == 1)
                    stems += stack.count / 2
                    stack.removeAll()
                    i += (stems + 7) / 8
                case 21:  // rmoveto
                    width(s.count > 2)
                    let a = stack.suffix(2)
                    if a.count == 2 { bounds.moveTo(bounds.x + a[a.startIndex], bounds.y + a[a.startIndex + 1]) }
                    stack.removeAll()
                case 22, 4:  // hmoveto vmoveto
                    width(s.count > 1)
                    let d = stack.last ?? 0
                    if v == 22 { bounds.moveTo(bounds.x + d, bounds.y) } else { bounds.moveTo(bounds.x, bounds.y + d) }
                    stack.removeAll()
                case 5:  // rlineto
                    var k = 0
                    while k + 1 < s.count { bounds.lineTo(s[k], s[k + 1]); k += 2 }
                    stack.removeAll()
                case 6, 7:  // hlineto vlineto
                    var horizontal = v == 6
                    for d in s { if horizontal { bounds.lineTo(d, 0) } else { bounds.lineTo(0, d) }; horizontal.toggle() }
                    stack.removeAll()
                case 8, 24, 25:  // rrcurveto rcurveline rlinecurve
                    var k = 0
                    if v == 25 {
                        while s.count - k > 6 && k + 1 < s.count { bounds.lineTo(s[k], s[k + 1]); k += 2 }
                    }
                    while k + 5 < s.count {
                        bounds.curveTo(s[k], s[k + 1], s[k + 2], s[k + 3], s[k + 4], s[k + 5]); k += 6
                    }
                    if v == 24 && k + 1 < s.count { bounds.lineTo(s[k], s[k + 1]) }
                    stack.removeAll()
                case 26, 27:  // vvcurveto hhcurveto
                    var k = 0
                    var first = 0.0
                    if s.count % 4 == 1 { first = s[0]; k = 1 }
                    while k + 3 < s.count {
                        if v == 26 { bounds.curveTo(first, s[k], s[k + 1], s[k + 2], 0, s[k + 3]) } else {
                            bounds.curveTo(s[k], first, s[k + 1], s[k + 2], s[k + 3], 0)
                        }
                        first = 0
                        k += 4
                    }
                    stack.removeAll()
                case 30, 31:  // vhcurveto hvcurveto
                    var k = 0
                    var vertical = v == 30
                    while s.count - k >= 4 {
                        let last = s.count - k == 5 ? s[k + 4] : 0
                        // A curve that starts vertical ends horizontal, and the reverse; the
                        // last curve's fifth argument is its other end coordinate.
                        if vertical { bounds.curveTo(0, s[k], s[k + 1], s[k + 2], s[k + 3], last) } else {
                            bounds.curveTo(s[k], 0, s[k + 1], s[k + 2], last, s[k + 3])
                        }
                        k += s.count - k == 5 ? 5 : 4
                        vertical.toggle()
                    }
                    stack.removeAll()
                case 10, 29:  // callsubr callgsubr
                    guard depth < FontProgramLimits.maxCallDepth, let n = stack.popLast(), let k = Int(exactly: n.rounded(.down)),
                          let sub = program.subr(v == 10 ? local : program.globalSubrs, k) else { return false }
                    guard execute(sub, depth: depth + 1) else { return false }
                case 11:  // return
                    return true
                case 14:  // endchar, with the accent composition of seac
                    width(s.count == 1 || s.count == 5)
                    if stack.count >= 4, accentDepth == 0 {
                        let n = stack.count
                        let adx = stack[n - 4], ady = stack[n - 3]
                        let std = BaseEncoding.standard.glyphNames
                        func gid(_ code: Double) -> Int? {
                            guard let c = Int(exactly: code), c >= 0, c < 256, let name = std[c] else { return nil }
                            return program.glyph(named: name)
                        }
                        for (code, dx, dy) in [(stack[n - 2], 0.0, 0.0), (stack[n - 1], adx, ady)] {
                            guard let g = gid(code), let r = program.charStrings.range(g, b) else { continue }
                            var sub = Type2Run(program: program)
                            sub.local = local
                            sub.accentDepth = 1
                            sub.operations = operations
                            _ = sub.execute(r, depth: depth + 1)
                            operations = sub.operations
                            bounds.include(sub.bounds.box, dx: dx, dy: dy)
                        }
                    }
                    stack.removeAll()
                    ended = true
                case 12:
                    let e = b.u8(i)
                    i += 1
                    switch e {
                    case 35:  // flex
                        if s.count >= 12 {
                            bounds.curveTo(s[0], s[1], s[2], s[3], s[4], s[5])
                            bounds.curveTo(s[6], s[7], s[8], s[9], s[10], s[11])
                        }
                    case 34:  // hflex
                        if s.count >= 7 {
                            bounds.curveTo(s[0], 0, s[1], s[2], s[3], 0)
                            bounds.curveTo(s[4], 0, s[5], -s[2], s[6], 0)
                        }
                    case 36:  // hflex1
                        if s.count >= 9 {
                            bounds.curveTo(s[0], s[1], s[2], s[3], s[4], 0)
                            bounds.curveTo(s[5], 0, s[6], s[7], s[8], -(s[1] + s[3] + s[7]))
                        }
                    case 37:  // flex1
                        if s.count >= 11 {
                            let dx = s[0] + s[2] + s[4] + s[6] + s[8], dy = s[1] + s[3] + s[5] + s[7] + s[9]
                            bounds.curveTo(s[0], s[1], s[2], s[3], s[4], s[5])
                            if abs(dx) > abs(dy) { bounds.curveTo(s[6], s[7], s[8], s[9], s[10], -dy) } else {
                                bounds.curveTo(s[6], s[7], s[8], s[9], -dx, s[10])
                            }
                        }
                    case 9: if let a = stack.popLast() { stack.append(abs(a)) }; continue
                    case 14: if let a = stack.popLast() { stack.append(-a) }; continue
                    case 10, 11, 12, 24:  // add sub div mul
                        guard stack.count >= 2, let y = stack.popLast(), let x = stack.popLast() else { return false }
                        stack.append(e == 10 ? x + y : e == 11 ? x - y : e == 24 ? x * y : (y == 0 ? 0 : x / y))
                        continue
                    case 18: _ = stack.popLast(); continue  // drop
                    case 27: if let a = stack.last, stack.count < FontProgramLimits.maxStack { stack.append(a) }; continue
                    case 28: if stack.count >= 2 { stack.swapAt(stack.count - 1, stack.count - 2) }; continue
                    default: break  // other operators: arguments dropped
                    }
                    stack.removeAll()
                default:
                    stack.removeAll()  // reserved operators
                }
            }
            return true
        }
    }
}
