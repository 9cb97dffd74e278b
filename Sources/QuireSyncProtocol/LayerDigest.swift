import Crypto
import QuireDocument
import QuireSyntax

/// The digest of a layer's records at one sequence number: the XOR, over its records, of
/// the first 16 bytes of SHA-256(`id` NUL `revision` NUL `record`), where `record` is the
/// record's canonical JSON (compact, keys sorted) without `pdfObjectId` (object numbers are
/// each file's own, and clients keep records without them).
///
/// An XOR is kept up to date one record at a time (a put removes the old record's term and
/// adds the new one's; a delete removes its term), so the server stores it with the layer
/// and answers it with the feed at no cost, and a client keeps its own the same way. Two
/// sets of records with the same digest are, but for a 2^-128 chance, the same: a client
/// whose digest differs from the server's after a pull holds a record that differs from
/// the server's, and fetches the layer again (docs/sync-client.md, "The record is the
/// truth"). The rule is the protocol's: one home, here, for the server and the client.
public struct LayerDigest: Sendable, Equatable, CustomStringConvertible {
    public static let byteCount = 16
    public private(set) var bytes: [UInt8]

    /// The digest of no records.
    public init() { bytes = [UInt8](repeating: 0, count: Self.byteCount) }

    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// From its lowercase hexadecimal form (as the protocol carries it).
    public init?(hex: String) {
        guard !hex.utf8.contains(where: { (0x41...0x46).contains($0) }), let b = Hex.bytes(hex), b.count == Self.byteCount else {
            return nil
        }
        bytes = b
    }

    public var hex: String { Hex.string(bytes) }

    public var description: String { hex }

    /// Adds the term of a record, or removes it (the same XOR). `record` is its canonical
    /// JSON without `pdfObjectId` (``normalizedRecord(_:)``).
    public mutating func toggle(id: String, revision: Int64, record: [UInt8]) {
        var hasher = SHA256()
        hasher.update(data: Array(id.utf8) + [0] + Array(String(revision).utf8) + [0])
        hasher.update(data: record)
        let hash = Array(hasher.finalize())
        for i in 0..<Self.byteCount { bytes[i] ^= hash[i] }
    }

    /// The digest of `records` (id, revision, canonical JSON as stored).
    public static func of(_ records: [(id: String, revision: Int64, json: [UInt8])]) -> LayerDigest {
        var d = LayerDigest()
        for r in records { d.toggle(id: r.id, revision: r.revision, record: normalizedRecord(r.json)) }
        return d
    }

    /// A record's canonical JSON without `pdfObjectId`: the bytes themselves when they hold
    /// no such key (what clients push), else parsed, without it, and written again.
    public static func normalizedRecord(_ json: [UInt8]) -> [UInt8] {
        let key = Array("\"pdfObjectId\"".utf8)
        guard json.count >= key.count, json.indices.dropLast(key.count - 1).contains(where: { i in
            json[i] == key[0] && Array(json[i..<(i + key.count)]) == key
        }) else { return json }
        guard let value = try? InstantJSONValue(parsing: json), case .object(var fields) = value else { return json }
        fields["pdfObjectId"] = nil
        return Array(InstantJSONValue.object(fields).canonicalText.utf8)
    }
}
