import FoundationEssentials
import QuireSyntax

/// The id rules of the protocol (docs/sync-protocol.md), for the server and the client
/// alike.
package enum SyncIDs {
    /// `[A-Za-z0-9._-]{1,128}`, not `.` or `..`: document ids, layer names, client ids.
    package static func isValid(_ s: String) -> Bool {
        let utf8 = s.utf8
        guard (1...128).contains(utf8.count), s != ".", s != ".." else { return false }
        return utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
        }
    }

    /// `[A-Za-z0-9-]{1,64}`: a request id the caller may choose.
    package static func isValidRequestID(_ s: String) -> Bool {
        let utf8 = s.utf8
        guard (1...64).contains(utf8.count) else { return false }
        return utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == UInt8(ascii: "-")
        }
    }

    /// A new ULID: 48 bits of milliseconds and 80 random bits in Crockford's base 32.
    package static func ulid(now: Date = Date()) -> String {
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
        let ms = UInt64(max(0, min(now.timeIntervalSince1970 * 1000, Double(UInt64(1) << 47))))
        var rng = SystemRandomNumberGenerator()
        let high = UInt64.random(in: 0...UInt64.max, using: &rng) & 0xFFFF  // 16 bits
        let low = UInt64.random(in: 0...UInt64.max, using: &rng)            // 64 bits
        // 128 bits: ms (48) | high (16) | low (64), written as 26 characters of 5 bits
        // (the first character carries the top 3 bits).
        let hi: UInt64 = ms << 16 | high
        var out: [UInt8] = []
        for i in 0..<26 {
            let bit = 125 - 5 * i  // the low bit of this character's group, from 128 bits
            var v: UInt64 = 0
            for k in 0..<5 {
                let b = bit + k
                guard b < 128 else { continue }
                let set = b >= 64 ? (hi >> UInt64(b - 64)) & 1 : (low >> UInt64(b)) & 1
                v |= set << UInt64(k)
            }
            out.append(alphabet[Int(v)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// 32 random hexadecimal digits: a generated request id.
    package static func randomHex() -> String {
        var rng = SystemRandomNumberGenerator()
        return Hex.string((0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) })
    }

    /// A new record id for an imported annotation whose id is taken: a lowercase UUID, as
    /// Quire names the annotations it creates.
    package static func uuid() -> String { UUID().uuidString.lowercased() }
}
