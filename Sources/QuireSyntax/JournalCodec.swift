import CZlib
import Crypto

/// The framing of an append-only journal (the checkpointer's file): records of
/// `[length: UInt32 LE][CRC-32 of the payload: UInt32 LE][payload]`. A reader stops at the
/// first record that is short or whose checksum does not match: a torn last record (the
/// process died in the middle of a write) is dropped, never misread.
public enum JournalCodec {
    /// The most bytes one record may hold (a stream of a change is one record).
    public static let maxRecord = 1 << 30

    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            var crc: UInt = CZlib.crc32(0, nil, 0)
            guard let base = buffer.baseAddress else { return UInt32(truncatingIfNeeded: crc) }
            var offset = 0
            while offset < buffer.count {  // zlib takes a 32-bit length
                let n = Swift.min(buffer.count - offset, 1 << 30)
                crc = CZlib.crc32(crc, base + offset, UInt32(n))
                offset += n
            }
            return UInt32(truncatingIfNeeded: crc)
        }
    }

    /// Appends the framed `payload` to `out`.
    public static func frame(_ payload: [UInt8], to out: inout [UInt8]) {
        let length = UInt32(truncatingIfNeeded: payload.count)
        let crc = crc32(payload)
        for v in [length, crc] {
            out += [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8),
                    UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 24)]
        }
        out += payload
    }

    /// The payloads of the whole records in `bytes` from `start`, and the offset where the
    /// whole records end (what follows is torn or damaged and is to be dropped).
    public static func records(_ bytes: [UInt8], from start: Int = 0) -> (payloads: [[UInt8]], end: Int) {
        let found = framedRecords(bytes, from: start)
        return (found.map(\.payload), found.last?.end ?? start)
    }

    /// The whole records in `bytes` from `start`, each with the offset just past it.
    public static func framedRecords(_ bytes: [UInt8], from start: Int = 0) -> [(payload: [UInt8], end: Int)] {
        var payloads: [(payload: [UInt8], end: Int)] = []
        var p = start
        func u32(_ at: Int) -> Int {
            Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        while p + 8 <= bytes.count {
            let length = u32(p)
            guard length <= maxRecord, length <= bytes.count - p - 8 else { break }
            let payload = Array(bytes[(p + 8)..<(p + 8 + length)])
            guard crc32(payload) == UInt32(u32(p + 4)) else { break }
            p += 8 + length
            payloads.append((payload, p))
        }
        return payloads
    }

    /// SHA-256 of `bytes`.
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: bytes)) }

    /// SHA-256 of all the bytes of `buffer`, in pieces: a lazy buffer is not kept in
    /// memory for it (see ``ByteBuffer/forEachChunk(_:)``).
    public static func sha256(_ buffer: ByteBuffer) throws -> [UInt8] {
        var hasher = SHA256()
        try buffer.forEachChunk { hasher.update(bufferPointer: $0) }
        return Array(hasher.finalize())
    }

    /// SHA-256 of a buffer, without copying it.
    public static func sha256(_ buffer: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bufferPointer: UnsafeRawBufferPointer(buffer))
        return Array(hasher.finalize())
    }

    /// `plaintext` sealed with AES-256-GCM under `key` (32 bytes): nonce, ciphertext, tag.
    public static func seal(_ plaintext: [UInt8], key: [UInt8]) throws -> [UInt8] {
        do {
            let box = try AES.GCM.seal(plaintext, using: SymmetricKey(data: key))
            guard let combined = box.combined else { throw PDFError(.internal, "AES-GCM gave no combined form") }
            return Array(combined)
        } catch let e as PDFError {
            throw e
        } catch {
            throw PDFError(.internal, "AES-GCM sealing failed: \(error)")
        }
    }

    /// The plaintext of `sealed`; nil when it does not authenticate under `key`.
    public static func open(_ sealed: [UInt8], key: [UInt8]) -> [UInt8]? {
        guard let box = try? AES.GCM.SealedBox(combined: sealed),
              let plain = try? AES.GCM.open(box, using: SymmetricKey(data: key)) else { return nil }
        return Array(plain)
    }
}

extension StandardSecurityHandler {
    /// A key for data the library keeps outside the PDF about this document (checkpoints),
    /// derived from the file encryption key: whoever cannot open the document cannot read
    /// them. Nil when the file key is not known.
    public var derivedJournalKey: [UInt8]? {
        guard let key = fileKeyForDerivation else { return nil }
        return JournalCodec.sha256(key + Array("quire checkpoint journal v1".utf8))
    }
}
