/// Writes PDF objects as bytes (ISO 32000-2 §7.3) such that parsing the output gives the
/// same objects back: reals keep a decimal point, names escape what needs it, strings keep
/// their literal or hexadecimal form.
public enum Serializer {
    /// The bytes of `object`. Streams are written with the dictionary's /Length set to the
    /// length of `data` (the encoded bytes to write).
    ///
    /// Every case appends bytes to `out` directly: the full save of the benchmark's large
    /// document spent 15% of its instructions making Strings of reals and 13% making an
    /// array of each name's bytes (and a hex table per name), then copying them.
    public static func write(_ object: PDFObject, to out: inout [UInt8]) {
        write(object, to: &out, mapping: nil)
    }

    /// New numbers for the references of what is written (a full save renumbers every
    /// object); nil for a reference to an object that is not written, which reads as null:
    /// a dictionary entry with such a value is left out, as the dictionary's setter drops
    /// a null, and an array item is written as `null`.
    public typealias ReferenceMap = (ObjectID) -> ObjectID?

    /// `object`'s bytes with its references renumbered through `mapping` as they are
    /// written: a full save built a renumbered copy of every object before (7% of its
    /// instructions, and as much again to free them).
    public static func write(_ object: PDFObject, to out: inout [UInt8], mapping: ReferenceMap?) {
        switch object {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .integer(let i): integer(i, to: &out)
        case .real(let r): real(r, to: &out)
        case .string(let s): string(s, to: &out)
        case .name(let n): name(n, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (k, item) in items.enumerated() {
                if k > 0 { out.append(0x20) }
                write(item, to: &out, mapping: mapping)
            }
            out.append(UInt8(ascii: "]"))
        case .dictionary(let d): dictionary(d, to: &out, mapping: mapping)
        case .stream:
            // Streams are written by `stream(_:data:to:)`, which knows their data; a stream
            // nested inside another object is invalid PDF, so write its dictionary only.
            if let d = object.dictionary { dictionary(d, to: &out, mapping: mapping) }
        case .reference(var id):
            if let mapping {
                guard let new = mapping(id) else {
                    out.append(contentsOf: "null".utf8)
                    return
                }
                id = new
            }
            integer(Int64(id.number), to: &out)
            out.append(0x20)
            integer(Int64(id.generation), to: &out)
            out.append(0x20)
            out.append(UInt8(ascii: "R"))
        }
    }

    /// `i` in decimal, as `String(i)` writes it.
    static func integer(_ i: Int64, to out: inout [UInt8]) {
        if i < 0 { out.append(UInt8(ascii: "-")) }
        var m = i.magnitude
        if m < 10 {
            out.append(0x30 + UInt8(truncatingIfNeeded: m))
            return
        }
        if m < 100_000_000 {
            // Up to 8 digits (object numbers, offsets, most integers), gathered in one word,
            // last digit lowest, and appended a byte at a time: the buffer and the slice
            // below cost more than the digits.
            var packed: UInt64 = 0
            var count = 0
            while m > 0 {
                packed = packed << 8 | (0x30 + m % 10)
                m /= 10
                count += 1
            }
            while count > 0 {
                out.append(UInt8(truncatingIfNeeded: packed))
                packed >>= 8
                count -= 1
            }
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: UInt64 has at most 20 digits
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while m > 0 && count < buffer.count {
                buffer[buffer.count - 1 - count] = 0x30 + UInt8(truncatingIfNeeded: m % 10)
                m /= 10
                count += 1
            }
            out.append(contentsOf: buffer[(buffer.count - count)...])
        }
    }

    public static func bytes(_ object: PDFObject) -> [UInt8] {
        var out: [UInt8] = []
        write(object, to: &out)
        return out
    }

    static func dictionary(_ d: PDFDictionary, to out: inout [UInt8], mapping: ReferenceMap? = nil) {
        out.append(contentsOf: "<<".utf8)
        for (key, value) in d {
            if let mapping, case .reference(let id) = value, mapping(id) == nil { continue }
            name(key, to: &out)
            out.append(0x20)
            write(value, to: &out, mapping: mapping)
            out.append(0x20)
        }
        out.append(contentsOf: ">>".utf8)
    }

    /// A stream: its dictionary with /Length set to `data.count`, then the data.
    public static func stream(_ dictionary: PDFDictionary, data: [UInt8], to out: inout [UInt8],
                              mapping: ReferenceMap? = nil) {
        var d = dictionary
        // An indirect /Length to an object not written goes, as the other entries would:
        // the new /Length then comes last, where a renumbered copy of the dictionary had it.
        if let mapping, case .reference(let id)? = d["Length"], mapping(id) == nil { d["Length"] = nil }
        d["Length"] = .integer(Int64(data.count))
        Serializer.dictionary(d, to: &out, mapping: mapping)
        out.append(contentsOf: "\nstream\n".utf8)
        out.append(contentsOf: data)
        out.append(contentsOf: "\nendstream".utf8)
    }

    /// `real(r)`'s bytes, appended without making a String for the common cases: an
    /// integral value, and a shortest form without an exponent.
    static func real(_ r: Double, to out: inout [UInt8]) {
        guard r.isFinite else {
            out.append(contentsOf: "0.0".utf8)
            return
        }
        if r == r.rounded() && abs(r) < 1e15 {
            integer(Int64(r), to: &out)
            out.append(contentsOf: ".0".utf8)
            return
        }
        if decimal(r, to: &out) { return }
        let shortest = r.description
        if !shortest.utf8.contains(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            out.append(contentsOf: shortest.utf8)
            return
        }
        out.append(contentsOf: real(r).utf8)
    }

    /// Writes `r` with up to 6 decimals when that is the one shortest form that reads back
    /// as `r` (what `real(r)` gives, without `description`'s digit generation and String,
    /// 8% of a full save of the benchmark's large document); false, writing nothing, when
    /// it is not (more decimals, a magnitude of 1e9 or more, or two shortest forms, where
    /// `description` picks the nearer).
    ///
    /// m / 10^d, with m below 2^53 and d at most 22, is the correctly rounded double of the
    /// decimal m·10^-d (one correctly rounded division of two exact doubles), which is what
    /// parsing that decimal gives; the first d at which some m reads back is the shortest.
    static func decimal(_ r: Double, to out: inout [UInt8]) -> Bool {
        let a = abs(r)
        guard a < 1e9 else { return false }  // a·10^6 stays below 2^53
        var scale = 10.0
        var power: Int64 = 10
        for _ in 1...6 {
            // Rounded half up by truncation (a libm call saved): when some m reads back,
            // a·10^d is within a hair of it, far from a half.
            let m = Double(Int64(a * scale + 0.5))
            if m / scale == a {
                // Another m of as many digits reading back as `r`: leave the choice to
                // `description`.
                if (m - 1) / scale == a || (m + 1) / scale == a { return false }
                let digits = Int64(m)
                if r < 0 { out.append(UInt8(ascii: "-")) }
                integer(digits / power, to: &out)
                out.append(UInt8(ascii: "."))
                var fraction = digits % power
                var place = power / 10
                while place > 0 {
                    out.append(0x30 + UInt8(truncatingIfNeeded: fraction / place))
                    fraction %= place
                    place /= 10
                }
                return true
            }
            scale *= 10
            power *= 10
        }
        return false
    }

    /// A real with a decimal point and no exponent, shortest form that reads back the same.
    static func real(_ r: Double) -> String {
        guard r.isFinite else { return "0.0" }
        if r == r.rounded() && abs(r) < 1e15 { return String(Int64(r)) + ".0" }
        let shortest = r.description
        guard let e = shortest.firstIndex(where: { $0 == "e" || $0 == "E" }) else { return shortest }
        // Expand "d.ddde-N" / "d.ddde+N" without an exponent.
        let mantissa = shortest[..<e]
        let exponent = Int(shortest[shortest.index(after: e)...]) ?? 0
        let negative = mantissa.hasPrefix("-")
        let digits = mantissa.filter { $0.isNumber }
        let pointAt = (mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) } ?? mantissa.count)
            - (negative ? 1 : 0) + exponent
        var text: String
        if pointAt <= 0 {
            text = "0." + String(repeating: "0", count: -pointAt) + digits
        } else if pointAt >= digits.count {
            text = digits + String(repeating: "0", count: pointAt - digits.count) + ".0"
        } else {
            text = String(digits.prefix(pointAt)) + "." + String(digits.dropFirst(pointAt))
        }
        return (negative ? "-" : "") + text
    }

    /// A hexadecimal digit, upper or lower case.
    @inline(__always)
    static func hexDigit(_ v: UInt8, upper: Bool) -> UInt8 {
        v < 10 ? 0x30 + v : (upper ? 0x37 : 0x57) + v
    }

    static func name(_ n: PDFName, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "/"))
        // Nearly every name is printable ASCII without a delimiter or `#`: its UTF-8 is its
        // bytes, appended as they are (`n.bytes` made an array of each name).
        var text = n.value
        let plain = text.withUTF8 { bytes -> Bool in
            for b in bytes where b < 0x21 || b > 0x7E || b == UInt8(ascii: "#") || CharClass.isDelimiter(b) {
                return false
            }
            out.append(contentsOf: bytes)
            return true
        }
        if plain { return }
        for b in n.bytes {
            if b < 0x21 || b > 0x7E || b == UInt8(ascii: "#") || CharClass.isDelimiter(b) {
                out.append(UInt8(ascii: "#"))
                out.append(hexDigit(b >> 4, upper: true))
                out.append(hexDigit(b & 0xF, upper: true))
            } else {
                out.append(b)
            }
        }
    }

    static func string(_ s: PDFString, to out: inout [UInt8]) {
        if s.isHex {
            out.append(UInt8(ascii: "<"))
            for b in s.bytes {
                out.append(hexDigit(b >> 4, upper: false))
                out.append(hexDigit(b & 0xF, upper: false))
            }
            out.append(UInt8(ascii: ">"))
            return
        }
        out.append(UInt8(ascii: "("))
        // Most strings need no escape: their bytes at once, not a byte at a time.
        let plain = s.bytes.withUnsafeBufferPointer { bytes -> Bool in
            for b in bytes where b < 0x20 || b > 0x7E || b == UInt8(ascii: "(") || b == UInt8(ascii: ")") || b == UInt8(ascii: "\\") {
                return false
            }
            out.append(contentsOf: bytes)
            return true
        }
        if plain {
            out.append(UInt8(ascii: ")"))
            return
        }
        for b in s.bytes {
            switch b {
            case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(b)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0x0D: out.append(contentsOf: "\\r".utf8)
            case 0x20...0x7E: out.append(b)
            default:
                // Octal escapes keep the output 7-bit clean and unambiguous.
                out.append(UInt8(ascii: "\\"))
                out.append(0x30 + (b >> 6))
                out.append(0x30 + ((b >> 3) & 7))
                out.append(0x30 + (b & 7))
            }
        }
        out.append(UInt8(ascii: ")"))
    }
}
