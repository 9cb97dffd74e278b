/// Hexadecimal digits: the one reader and writer of them for every module (issue 32: ten
/// files had their own, one of them accepting a sign).
package enum Hex {
    /// The value of one hexadecimal digit (`0-9`, `a-f`, `A-F`); nil for any other byte.
    @inline(__always)
    package static func value(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }

    /// `bytes` as two hexadecimal digits each, lowercase unless `uppercase`.
    package static func string(_ bytes: some Sequence<UInt8>, uppercase: Bool = false) -> String {
        let digits = uppercase ? upperDigits : lowerDigits
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes that `text` spells, two digits (either case) each; nil for an odd count
    /// or any byte that is not a digit.
    package static func bytes(_ text: some StringProtocol) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var i = 0
        while i < utf8.count {
            guard let hi = value(utf8[i]), let lo = value(utf8[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    private static let lowerDigits = Array("0123456789abcdef".utf8)
    private static let upperDigits = Array("0123456789ABCDEF".utf8)
}
