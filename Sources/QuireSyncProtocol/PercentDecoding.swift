/// Percent-decodes one path segment; nil for a malformed escape or bytes that are not UTF-8.
package func percentDecoded(_ s: Substring) -> String? {
    guard s.utf8.contains(UInt8(ascii: "%")) else { return String(s) }
    var out: [UInt8] = []
    var it = Array(s.utf8)[...]
    func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x37
        case 0x61...0x66: return c - 0x57
        default: return nil
        }
    }
    while let c = it.popFirst() {
        if c == UInt8(ascii: "%") {
            guard let h = it.popFirst().flatMap(hex), let l = it.popFirst().flatMap(hex) else { return nil }
            out.append(h << 4 | l)
        } else {
            out.append(c)
        }
    }
    return String(validating: out, as: UTF8.self)
}
