/// The RC4 stream cipher, which the standard security handler uses for revisions 2 to 4
/// (ISO 32000-2 §7.6.3). swift-crypto does not provide it, for good reason: it is broken,
/// and PDF is one of the few places where it must still be read (and written, for old
/// readers).
///
/// Encryption and decryption are the same operation.
struct RC4 {
    private var state: [UInt8]
    private var i: UInt8 = 0
    private var j: UInt8 = 0

    /// A cipher keyed with `key` (1 to 256 bytes are meaningful; an empty key is treated
    /// as a single zero byte rather than trapping).
    init(key: [UInt8]) {
        let key = key.isEmpty ? [0] : key
        state = (0...255).map { UInt8($0) }
        var j: UInt8 = 0
        for i in 0..<256 {
            j = j &+ state[i] &+ key[i % key.count]
            state.swapAt(i, Int(j))
        }
    }

    /// XORs `data` with the next bytes of the key stream.
    mutating func process(_ data: [UInt8]) -> [UInt8] {
        var out = data
        state.withUnsafeMutableBufferPointer { s in
            for k in 0..<out.count {
                i = i &+ 1
                j = j &+ s[Int(i)]
                s.swapAt(Int(i), Int(j))
                out[k] ^= s[Int(s[Int(i)] &+ s[Int(j)])]
            }
        }
        return out
    }

    /// `data` encrypted (or decrypted) with a fresh cipher keyed with `key`.
    static func crypt(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        var cipher = RC4(key: key)
        return cipher.process(data)
    }
}
