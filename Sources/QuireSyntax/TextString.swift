/// PDF text strings (ISO 32000-2 §7.9.2.2): PDFDocEncoding, UTF-16BE with a byte order
/// mark, or (PDF 2.0) UTF-8 with a byte order mark.
public enum TextString {
    /// PDFDocEncoding (Annex D, Table D.2) where it differs from Latin-1. Codes marked
    /// undefined there map to U+FFFD.
    static let high: [UInt16] = [
        // 0x80 ... 0x9F
        0x2022, 0x2020, 0x2021, 0x2026, 0x2014, 0x2013, 0x0192, 0x2044,
        0x2039, 0x203A, 0x2212, 0x2030, 0x201E, 0x201C, 0x201D, 0x2018,
        0x2019, 0x201A, 0x2122, 0xFB01, 0xFB02, 0x0141, 0x0152, 0x0160,
        0x0178, 0x017D, 0x0131, 0x0142, 0x0153, 0x0161, 0x017E, 0xFFFD,
        // 0xA0
        0x20AC,
    ]
    /// 0x18 ... 0x1F.
    static let low: [UInt16] = [0x02D8, 0x02C7, 0x02C6, 0x02D9, 0x02DD, 0x02DB, 0x02DA, 0x02DC]

    /// The scalar of one PDFDocEncoding byte.
    static func scalar(_ b: UInt8) -> Unicode.Scalar {
        let v: UInt16
        switch b {
        case 0x18...0x1F: v = low[Int(b - 0x18)]
        case 0x80...0xA0: v = high[Int(b - 0x80)]
        case 0xAD: v = 0xFFFD
        default: v = UInt16(b)
        }
        return Unicode.Scalar(v) ?? "\u{FFFD}"
    }

    /// Decodes a text string; malformed UTF-16 or UTF-8 becomes U+FFFD, never an error.
    public static func decode(_ bytes: [UInt8]) -> String {
        if bytes.count >= 2 && bytes[0] == 0xFE && bytes[1] == 0xFF {
            return utf16(bytes.dropFirst(2), bigEndian: true)
        }
        if bytes.count >= 2 && bytes[0] == 0xFF && bytes[1] == 0xFE {
            return utf16(bytes.dropFirst(2), bigEndian: false)  // not standard, but written
        }
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF {
            return String(decoding: bytes.dropFirst(3), as: UTF8.self)
        }
        // ASCII without the codes 0x18...0x1F (nearly every text string): PDFDocEncoding
        // agrees with UTF-8 there, and one validated copy replaces a scalar at a time.
        if bytes.allSatisfy({ $0 < 0x80 && ($0 < 0x18 || $0 > 0x1F) }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        var scalars = String.UnicodeScalarView()
        scalars.reserveCapacity(bytes.count)
        for b in bytes { scalars.append(scalar(b)) }
        return String(scalars)
    }

    static func utf16(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> String {
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var i = bytes.startIndex
        while i + 1 < bytes.endIndex {
            let a = UInt16(bytes[i]), b = UInt16(bytes[i + 1])
            units.append(bigEndian ? a << 8 | b : b << 8 | a)
            i += 2
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// Encodes `text` in PDFDocEncoding when every character has a code there, else as
    /// UTF-16BE with a byte order mark.
    public static func encode(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        outer: for s in text.unicodeScalars {
            if s.value < 0x80 && !(0x18...0x1F).contains(s.value) || (0xA1...0xFF).contains(s.value) && s.value != 0xAD {
                out.append(UInt8(s.value))
                continue
            }
            for b in UInt8(0x18)...UInt8(0xA0) where scalar(b) == s && s != "\u{FFFD}" {
                out.append(b)
                continue outer
            }
            var utf16: [UInt8] = [0xFE, 0xFF]
            for unit in text.utf16 { utf16.append(UInt8(unit >> 8)); utf16.append(UInt8(unit & 0xFF)) }
            return utf16
        }
        return out
    }
}
