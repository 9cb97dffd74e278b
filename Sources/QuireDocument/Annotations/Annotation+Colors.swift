import QuireSyntax

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
        return "#" + Hex.string(rgb.map { UInt8((Swift.min(Swift.max($0.isFinite ? $0 : 0, 0), 1) * 255).rounded()) }, uppercase: true)
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
        guard let bytes = Hex.bytes(String(decoding: chars, as: UTF8.self)) else { return nil }
        return bytes.map { Double($0) / 255 }
    }
}
