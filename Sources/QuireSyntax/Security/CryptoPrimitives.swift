import Crypto
import CryptoExtras
import FoundationEssentials

/// The hash functions and block cipher modes of the standard security handler, on top of
/// swift-crypto. Inputs and outputs are byte arrays; nothing here traps on malformed input.
enum CryptoPrimitives {
    static func md5(_ data: [UInt8]) -> [UInt8] { Array(Insecure.MD5.hash(data: data)) }
    static func sha256(_ data: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: data)) }
    static func sha384(_ data: [UInt8]) -> [UInt8] { Array(SHA384.hash(data: data)) }
    static func sha512(_ data: [UInt8]) -> [UInt8] { Array(SHA512.hash(data: data)) }

    /// AES-CBC without padding: `data` must be a whole number of blocks. Returns nil if the
    /// key, the IV or the length is invalid.
    static func aesCBCEncryptNoPadding(key: [UInt8], iv: [UInt8], _ data: [UInt8]) -> [UInt8]? {
        guard [16, 24, 32].contains(key.count), iv.count == 16, data.count % 16 == 0 else { return nil }
        guard let iv = try? AES._CBC.IV(ivBytes: iv),
              let out = try? AES._CBC.encrypt(data, using: SymmetricKey(data: key), iv: iv, noPadding: true)
        else { return nil }
        return Array(out)
    }

    /// AES-CBC decryption without padding removal: `data` must be a whole number of blocks.
    static func aesCBCDecryptNoPadding(key: [UInt8], iv: [UInt8], _ data: [UInt8]) -> [UInt8]? {
        guard [16, 24, 32].contains(key.count), iv.count == 16, data.count % 16 == 0 else { return nil }
        if data.isEmpty { return [] }
        guard let iv = try? AES._CBC.IV(ivBytes: iv),
              let out = try? AES._CBC.decrypt(data, using: SymmetricKey(data: key), iv: iv, noPadding: true)
        else { return nil }
        return Array(out)
    }

    /// AES-CBC with PKCS#7 padding (ISO 32000-2 §7.6.3.1), the IV given.
    static func aesCBCEncryptPadded(key: [UInt8], iv: [UInt8], _ data: [UInt8]) -> [UInt8]? {
        guard [16, 24, 32].contains(key.count), iv.count == 16 else { return nil }
        guard let iv = try? AES._CBC.IV(ivBytes: iv),
              let out = try? AES._CBC.encrypt(data, using: SymmetricKey(data: key), iv: iv, noPadding: false)
        else { return nil }
        return Array(out)
    }

    /// AES-ECB of whole blocks: each block on its own, as CBC with a zero IV.
    static func aesECBEncrypt(key: [UInt8], _ data: [UInt8]) -> [UInt8]? {
        ecb(data) { aesCBCEncryptNoPadding(key: key, iv: [UInt8](repeating: 0, count: 16), $0) }
    }

    static func aesECBDecrypt(key: [UInt8], _ data: [UInt8]) -> [UInt8]? {
        ecb(data) { aesCBCDecryptNoPadding(key: key, iv: [UInt8](repeating: 0, count: 16), $0) }
    }

    private static func ecb(_ data: [UInt8], _ block: ([UInt8]) -> [UInt8]?) -> [UInt8]? {
        guard data.count % 16 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(data.count)
        var i = 0
        while i < data.count {
            guard let b = block(Array(data[i..<(i + 16)])) else { return nil }
            out += b
            i += 16
        }
        return out
    }

    /// `count` cryptographically random bytes.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}
