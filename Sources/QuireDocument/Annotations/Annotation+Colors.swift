// Colours as text: the one parser and the one writer of "#RRGGBB" for the model, which
// annotation JSON and XFDF both use (issue 32: XFDF read "#-00001" as white and "#+0000F"
// as (0, 0, 0.059) through Int(_:radix:), which accepts a sign, where JSON refused both).

extension Annotation {
    /// "#RRGGBB" of a gray (1), RGB (3) or CMYK (4) colour, each component clamped to 0...1
    /// (CMYK converted naively: r = (1 - c)(1 - k), ...); nil for none (0 components,
    /// transparent) or another count.
    public static func hexColor(_ c: [Double]?) -> String? {
        guard let c else { return nil }
        let rgb: [Double]
        switch c.count {
        case 1: rgb = [c[0], c[0], c[0]]
        case 3: rgb = c
        case 4: rgb = [(1 - c[0]) * (1 - c[3]), (1 - c[1]) * (1 - c[3]), (1 - c[2]) * (1 - c[3])]
        default: return nil
        }
        let digits = Array("0123456789ABCDEF")
        var s = "#"
        for v in rgb {
            let b = Int((Swift.min(Swift.max(v.isFinite ? v : 0, 0), 1) * 255).rounded())
            s.append(digits[b / 16])
            s.append(digits[b % 16])
        }
        return s
    }

    /// The RGB colour of "#RRGGBB": exactly six hexadecimal digits (either case) after the
    /// "#" (without it too when `requireHash` is false), nothing else: no sign, no space.
    public static func color(hex s: String, requireHash: Bool = true) -> [Double]? {
        var chars = Array(s.utf8)
        if chars.first == UInt8(ascii: "#") {
            chars.removeFirst()
        } else if requireHash {
            return nil
        }
        guard chars.count == 6 else { return nil }
        func digit(_ c: UInt8) -> Int? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(c - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(c - UInt8(ascii: "A")) + 10
            default: return nil
            }
        }
        var out: [Double] = []
        for i in stride(from: 0, to: 6, by: 2) {
            guard let hi = digit(chars[i]), let lo = digit(chars[i + 1]) else { return nil }
            out.append(Double(hi * 16 + lo) / 255)
        }
        return out
    }
}
