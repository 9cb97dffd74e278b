import QuireSyntax
/// A Type 1 font program (Adobe Type 1 Font Format): the /FontFile of a PDF, PFA (clear
/// text then eexec-encrypted binary or hex) or PFB (segments). Reads the clear text's
/// /Encoding and /FontMatrix, decrypts the private part (eexec, r = 55665), and keeps the
/// /Subrs and /CharStrings (each decrypted with r = 4330 and /lenIV). A glyph's box is the
/// control box of the outline its charstring draws (hints skipped; flex drawn as its
/// curves, without the reference point; `seac` accents composed).
final class Type1Program {
    private var subrs: [[UInt8]] = []
    private var charStrings: [String: [UInt8]] = [:]
    /// The built-in encoding: code to glyph name.
    private(set) var encoding: [Int: String] = [:]
    private var scaleX = 1.0, scaleY = 1.0

    /// Most /Subrs and /CharStrings entries read.
    static let maxEntries = 65_536

    init?(_ input: [UInt8]) {
        var bytes = input
        if input.first == 0x80 { bytes = Type1Program.pfbPayload(input) }
        guard let eexec = Type1Program.find(Array("eexec".utf8), in: bytes, from: 0) else { return nil }
        readClearText(bytes[..<eexec])
        var start = eexec + 5
        while start < bytes.count, [0x20, 0x0d, 0x0a, 0x09].contains(bytes[start]) { start += 1 }
        guard start < bytes.count else { return nil }
        let priv = Type1Program.decrypt(Type1Program.binary(bytes[start...]), key: 55665, skip: 4)
        readPrivate(priv)
        if charStrings.isEmpty { return nil }
    }

    /// The glyph named `name` exists.
    func has(_ name: String) -> Bool { charStrings[name] != nil }

    /// The box of the glyph named `name`, in 1/1000 em; nil when the font lacks it.
    func box(named name: String) -> GlyphBox? {
        guard let cs = charStrings[name] else { return nil }
        var run = Type1Run(program: self)
        guard run.execute(cs, depth: 0) else { return nil }
        guard let raw = run.bounds.box else { return GlyphBox(left: 0, bottom: 0, right: 0, top: 0) }
        return GlyphBox(left: raw.left * scaleX, bottom: raw.bottom * scaleY, right: raw.right * scaleX, top: raw.top * scaleY)
    }

    // MARK: Reading

    /// The payload of a PFB's ASCII and binary segments, in order.
    static func pfbPayload(_ d: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i + 6 <= d.count, d[i] == 0x80, d[i + 1] == 1 || d[i + 1] == 2 {
            let n = Int(d[i + 2]) | Int(d[i + 3]) << 8 | Int(d[i + 4]) << 16 | Int(d[i + 5]) << 24
            let s = i + 6
            let e = s + min(n, d.count - s)
            out.append(contentsOf: d[s..<e])
            i = e
        }
        return out
    }

    static func find(_ needle: [UInt8], in hay: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, hay.count >= needle.count, from <= hay.count - needle.count else { return nil }
        var i = from
        while i <= hay.count - needle.count {
            if hay[i] == first && hay[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    /// The encrypted part as bytes: hex when its first four bytes are hex digits.
    static func binary(_ s: ArraySlice<UInt8>) -> [UInt8] {
        let head = s.prefix(4)
        guard head.count == 4, head.allSatisfy({ Hex.value($0) != nil }) else { return Array(s) }
        var out: [UInt8] = []
        out.reserveCapacity(s.count / 2)
        var high: UInt8? = nil
        for c in s {
            guard let v = Hex.value(c) else { continue }
            if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
        }
        return out
    }

    static func decrypt(_ d: [UInt8], key: UInt16, skip: Int) -> [UInt8] {
        var r = key
        var out = [UInt8]()
        out.reserveCapacity(d.count)
        for c in d {
            out.append(c ^ UInt8(truncatingIfNeeded: r >> 8))
            r = (UInt16(c) &+ r) &* 52845 &+ 22719
        }
        return skip >= 0 && skip <= out.count ? Array(out[skip...]) : []
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09 || c == 0x0c || c == 0 }
    private static func isDelimiter(_ c: UInt8) -> Bool { isSpace(c) || c == 0x2f || c == 0x5b || c == 0x5d || c == 0x7b || c == 0x7d || c == 0x28 || c == 0x29 }

    /// A token reader over PostScript text: names, numbers and keywords.
    struct Tokens {
        let d: [UInt8]
        var i: Int
        mutating func next() -> String? {
            while i < d.count && Type1Program.isSpace(d[i]) { i += 1 }
            guard i < d.count else { return nil }
            let s = i
            i += 1
            if d[s] == 0x2f {  // a name keeps its slash
                while i < d.count && !Type1Program.isDelimiter(d[i]) { i += 1 }
            } else if !Type1Program.isDelimiter(d[s]) {
                while i < d.count && !Type1Program.isDelimiter(d[i]) { i += 1 }
            }
            return String(decoding: d[s..<i], as: UTF8.self)
        }
    }

    private func readClearText(_ text: ArraySlice<UInt8>) {
        let d = Array(text)
        if let m = Type1Program.find(Array("/FontMatrix".utf8), in: d, from: 0) {
            var t = Tokens(d: d, i: m + 11)
            var values: [Double] = []
            while values.count < 6, let tok = t.next(), tok != "]" || values.isEmpty {
                if let v = Double(tok) { values.append(v) } else if tok != "[" && tok != "{" { break }
            }
            if values.count == 6, values[0] != 0, values[3] != 0 { scaleX = values[0] * 1000; scaleY = values[3] * 1000 }
        }
        guard let e = Type1Program.find(Array("/Encoding".utf8), in: d, from: 0) else { return }
        var t = Tokens(d: d, i: e + 9)
        if t.next() == "StandardEncoding" {
            for (code, name) in BaseEncoding.standard.glyphNames.enumerated() { if let name { encoding[code] = name } }
            return
        }
        // `dup code /name put`, until `readonly def` or `def`.
        var last: [String] = []
        var count = 0
        while let tok = t.next(), tok != "def", count < 4096 {
            count += 1
            last.append(tok)
            if last.count > 4 { last.removeFirst() }
            if tok == "put", last.count == 4, last[0] == "dup", let code = Int(last[1]), (0..<256).contains(code), last[2].hasPrefix("/") {
                encoding[code] = String(last[2].dropFirst())
            }
        }
    }

    private func readPrivate(_ d: [UInt8]) {
        var lenIV = 4
        if let p = Type1Program.find(Array("/lenIV".utf8), in: d, from: 0) {
            var t = Tokens(d: d, i: p + 6)
            if let v = t.next().flatMap({ Int($0) }), v >= -1, v < 256 { lenIV = v }
        }
        func charstring(_ s: ArraySlice<UInt8>) -> [UInt8] {
            lenIV < 0 ? Array(s) : Type1Program.decrypt(Array(s), key: 4330, skip: lenIV)
        }
        /// After `len RD `: the binary and the position after it.
        func binaryAt(_ t: inout Tokens, length: Int) -> ArraySlice<UInt8>? {
            let s = t.i + 1  // one space after RD / -|
            guard length >= 0, s <= d.count, length <= d.count - s else { return nil }
            t.i = s + length
            return d[s..<(s + length)]
        }
        if let p = Type1Program.find(Array("/Subrs".utf8), in: d, from: 0) {
            var t = Tokens(d: d, i: p + 6)
            if let n = t.next().flatMap({ Int($0) }), n > 0, n <= Type1Program.maxEntries {
                subrs = Array(repeating: [], count: n)
                _ = t.next()  // array
                while let tok = t.next(), tok == "dup" {
                    guard let idx = t.next().flatMap({ Int($0) }), let len = t.next().flatMap({ Int($0) }),
                          t.next() != nil, let bin = binaryAt(&t, length: len) else { break }
                    if idx >= 0 && idx < n { subrs[idx] = charstring(bin) }
                    _ = t.next()  // NP / noaccess put
                }
            }
        }
        guard let c = Type1Program.find(Array("/CharStrings".utf8), in: d, from: 0) else { return }
        var t = Tokens(d: d, i: c + 12)
        var count = 0
        while let tok = t.next(), tok != "end", count < Type1Program.maxEntries {
            guard tok.hasPrefix("/") else { continue }
            let save = t
            guard let len = t.next().flatMap({ Int($0) }), let rd = t.next(), rd == "RD" || rd == "-|",
                  let bin = binaryAt(&t, length: len) else { t = save; continue }
            charStrings[String(tok.dropFirst())] = charstring(bin)
            count += 1
        }
    }

    // MARK: Charstrings

    fileprivate struct Type1Run {
        unowned let program: Type1Program
        var stack: [Double] = []
        var psStack: [Double] = []
        var bounds = OutlineBounds()
        var operations = 0
        var ended = false
        var flex = 0  // 0: not in flex; else 1 + rmovetos seen
        var sbx = 0.0
        var accent = false

        init(program: Type1Program) { self.program = program }

        mutating func execute(_ cs: [UInt8], depth: Int) -> Bool {
            var i = 0
            while i < cs.count && !ended {
                operations += 1
                if operations > FontProgramLimits.maxOperations { return false }
                let v = Int(cs[i])
                if v >= 32 {
                    let value: Int
                    switch v {
                    case 32...246: value = v - 139; i += 1
                    case 247...250: value = (v - 247) * 256 + (i + 1 < cs.count ? Int(cs[i + 1]) : 0) + 108; i += 2
                    case 251...254: value = -(v - 251) * 256 - (i + 1 < cs.count ? Int(cs[i + 1]) : 0) - 108; i += 2
                    default:
                        var x: UInt32 = 0
                        for k in 1...4 { x = x << 8 | UInt32(i + k < cs.count ? cs[i + k] : 0) }
                        value = Int(Int32(bitPattern: x)); i += 5
                    }
                    guard stack.count < FontProgramLimits.maxStack else { return false }
                    stack.append(Double(value))
                    continue
                }
                i += 1
                let s = stack
                func arg(_ k: Int) -> Double { k < s.count ? s[k] : 0 }
                switch v {
                case 13:  // hsbw
                    sbx = arg(0)
                    bounds.moveTo(arg(0), 0)
                case 21, 22, 4:  // rmoveto hmoveto vmoveto
                    let dx = v == 21 ? arg(0) : v == 22 ? arg(0) : 0
                    let dy = v == 21 ? arg(1) : v == 4 ? arg(0) : 0
                    if flex > 0 {
                        // Flex: the first point is the reference point, the others the
                        // curves' points; the outline is drawn through the latter.
                        flex += 1
                        if flex == 2 { bounds.moveTo(bounds.x + dx, bounds.y + dy) } else { bounds.lineTo(dx, dy) }
                    } else {
                        bounds.moveTo(bounds.x + dx, bounds.y + dy)
                    }
                case 5: bounds.lineTo(arg(0), arg(1))
                case 6: bounds.lineTo(arg(0), 0)
                case 7: bounds.lineTo(0, arg(0))
                case 8: bounds.curveTo(arg(0), arg(1), arg(2), arg(3), arg(4), arg(5))
                case 30: bounds.curveTo(0, arg(0), arg(1), arg(2), arg(3), 0)
                case 31: bounds.curveTo(arg(0), 0, arg(1), arg(2), 0, arg(3))
                case 10:  // callsubr
                    guard depth < FontProgramLimits.maxCallDepth, let n = stack.popLast(), let k = Int(exactly: n),
                          k >= 0, k < program.subrs.count else { return false }
                    guard execute(program.subrs[k], depth: depth + 1) else { return false }
                    continue  // the subroutine's results stay on the stack
                case 11:
                    return true
                case 14:
                    ended = true
                case 12:
                    let e = i < cs.count ? Int(cs[i]) : -1
                    i += 1
                    switch e {
                    case 7:  // sbw
                        sbx = arg(0)
                        bounds.moveTo(arg(0), arg(1))
                    case 6:  // seac: asb adx ady bchar achar
                        guard !accent else { ended = true; break }
                        let std = BaseEncoding.standard.glyphNames
                        func glyph(_ code: Double) -> [UInt8]? {
                            guard let c = Int(exactly: code), c >= 0, c < 256, let n = std[c] else { return nil }
                            return program.charStrings[n]
                        }
                        for (isAccent, code) in [(false, arg(3)), (true, arg(4))] {
                            guard let g = glyph(code) else { continue }
                            var sub = Type1Run(program: program)
                            sub.accent = true
                            sub.operations = operations
                            _ = sub.execute(g, depth: depth + 1)
                            operations = sub.operations
                            // The accent's origin is moved by (adx - asb, ady) from the base's.
                            bounds.include(sub.bounds.box, dx: isAccent ? arg(1) - arg(0) : 0, dy: isAccent ? arg(2) : 0)
                        }
                        ended = true
                    case 12:  // div
                        if stack.count >= 2, let y = stack.popLast(), let x = stack.popLast() { stack.append(y == 0 ? 0 : x / y) }
                        continue
                    case 16:  // callothersubr: n args othersubr#
                        guard let o = stack.popLast(), let n = stack.popLast().flatMap({ Int(exactly: $0) }), n >= 0, n <= stack.count else {
                            stack.removeAll(); continue
                        }
                        let args = Array(stack.suffix(n))
                        stack.removeLast(n)
                        switch o {
                        case 1: flex = 1
                        case 0:
                            flex = 0
                            psStack = [bounds.y, bounds.x]  // `pop pop setcurrentpoint` read the end point
                        default:
                            psStack = args  // hint replacement and the like: handed back to `pop`
                        }
                        continue
                    case 17:  // pop
                        if let x = psStack.popLast(), stack.count < FontProgramLimits.maxStack { stack.append(x) }
                        continue
                    case 33:  // setcurrentpoint
                        bounds.moveTo(arg(0), arg(1))
                    default:
                        break  // dotsection, vstem3, hstem3
                    }
                default:
                    break  // hstem, vstem, closepath, unknown
                }
                stack.removeAll()
            }
            return true
        }
    }
}
