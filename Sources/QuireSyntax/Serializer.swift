/// Writes PDF objects as bytes (ISO 32000-2 §7.3) such that parsing the output gives the
/// same objects back: reals keep a decimal point, names escape what needs it, strings keep
/// their literal or hexadecimal form.
public enum Serializer {
    /// The bytes of `object`. Streams are written with the dictionary's /Length set to the
    /// length of `data` (the encoded bytes to write).
    public static func write(_ object: PDFObject, to out: inout [UInt8]) {
        switch object {
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .integer(let i): out += Array(String(i).utf8)
        case .real(let r): out += Array(real(r).utf8)
        case .string(let s): string(s, to: &out)
        case .name(let n): name(n, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (k, item) in items.enumerated() {
                if k > 0 { out.append(0x20) }
                write(item, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .dictionary(let d): dictionary(d, to: &out)
        case .stream:
            // Streams are written by `stream(_:data:to:)`, which knows their data; a stream
            // nested inside another object is invalid PDF, so write its dictionary only.
            if let d = object.dictionary { dictionary(d, to: &out) }
        case .reference(let id): out += Array("\(id.number) \(id.generation) R".utf8)
        }
    }

    public static func bytes(_ object: PDFObject) -> [UInt8] {
        var out: [UInt8] = []
        write(object, to: &out)
        return out
    }

    static func dictionary(_ d: PDFDictionary, to out: inout [UInt8]) {
        out += Array("<<".utf8)
        for (key, value) in d {
            name(key, to: &out)
            out.append(0x20)
            write(value, to: &out)
            out.append(0x20)
        }
        out += Array(">>".utf8)
    }

    /// A stream: its dictionary with /Length set to `data.count`, then the data.
    public static func stream(_ dictionary: PDFDictionary, data: [UInt8], to out: inout [UInt8]) {
        var d = dictionary
        d["Length"] = .integer(Int64(data.count))
        Serializer.dictionary(d, to: &out)
        out += Array("\nstream\n".utf8)
        out += data
        out += Array("\nendstream".utf8)
    }

    /// A real with a decimal point and no exponent, shortest form that reads back the same.
    static func real(_ r: Double) -> String {
        guard r.isFinite else { return "0.0" }
        if r == r.rounded() && abs(r) < 1e15 { return String(Int64(r)) + ".0" }
        let shortest = "\(r)"
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

    static func name(_ n: PDFName, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "/"))
        let hex = Array("0123456789ABCDEF".utf8)
        for b in n.bytes {
            if b < 0x21 || b > 0x7E || b == UInt8(ascii: "#") || CharClass.isDelimiter(b) {
                out.append(UInt8(ascii: "#"))
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0xF)])
            } else {
                out.append(b)
            }
        }
    }

    static func string(_ s: PDFString, to out: inout [UInt8]) {
        if s.isHex {
            let hex = Array("0123456789abcdef".utf8)
            out.append(UInt8(ascii: "<"))
            for b in s.bytes {
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0xF)])
            }
            out.append(UInt8(ascii: ">"))
            return
        }
        out.append(UInt8(ascii: "("))
        for b in s.bytes {
            switch b {
            case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(b)
            case 0x0A: out += Array("\\n".utf8)
            case 0x0D: out += Array("\\r".utf8)
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
