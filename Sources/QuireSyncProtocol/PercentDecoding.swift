import QuireSyntax

/// Percent-decodes one path segment; nil for a malformed escape or bytes that are not UTF-8.
package func percentDecoded(_ s: Substring) -> String? {
    guard s.utf8.contains(UInt8(ascii: "%")) else { return String(s) }
    var out: [UInt8] = []
    var it = Array(s.utf8)[...]
    while let c = it.popFirst() {
        if c == UInt8(ascii: "%") {
            guard let h = it.popFirst().flatMap(Hex.value), let l = it.popFirst().flatMap(Hex.value) else { return nil }
            out.append(h << 4 | l)
        } else {
            out.append(c)
        }
    }
    return String(validating: out, as: UTF8.self)
}
