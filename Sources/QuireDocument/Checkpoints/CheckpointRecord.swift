import QuireSyntax

/// The payload of one change in a checkpoint journal, before framing (and sealing, for an
/// encrypted document). Every kind has a fixed layout:
///
/// - `S` (set an object): `"S"`, number (UInt32 LE), generation (UInt32 LE), then `0` and
///   the object's serialization, or `1`, the length of the stream dictionary's
///   serialization (UInt32 LE), that serialization and the stream's decrypted raw data.
/// - `D` (delete an object): `"D"`, number, generation: 9 bytes, nothing after.
///
/// The journal's other records carry no change: `H` (header: the SHA-256 of the file the
/// changes apply to), `G` (the end of a group: one acknowledged operation), `V` (a save is
/// about to replace the file: the SHA-256 of the new bytes), and `E` (a sealed record).
enum CheckpointRecord {
    /// The payload of `change`; a stream's data is stored decrypted (its dictionary as
    /// it is, since the document's writer encrypts again on save).
    static func encode(_ change: Change, file: PDFFile) throws -> [UInt8] {
        switch change {
        case .setObject(let id, let value):
            var payload = [UInt8(ascii: "S")] + u32(id.number) + u32(id.generation)
            if case .stream(let stream) = value {
                let data = try file.decryptedRawData(stream)
                var dict: [UInt8] = []
                Serializer.write(.dictionary(stream.dictionary), to: &dict)
                payload += [1] + u32(dict.count) + dict + data
            } else {
                payload += [0] + Serializer.bytes(value)
            }
            return payload
        case .deleteObject(let id):
            return [UInt8(ascii: "D")] + u32(id.number) + u32(id.generation)
        }
    }

    /// The change of an `S` or `D` payload. Throws a format error naming what is wrong
    /// with a payload of another length or layout, or an object that does not parse.
    static func decode(_ record: [UInt8]) throws -> Change {
        guard let kind = record.first, kind == UInt8(ascii: "S") || kind == UInt8(ascii: "D") else {
            throw PDFError(.format, "not a change record")
        }
        guard record.count >= 9 else {
            throw PDFError(.format, "a change record of \(record.count) bytes is shorter than its 9-byte head")
        }
        let id = ObjectID(u32(record, 1), u32(record, 5))
        if kind == UInt8(ascii: "D") {
            guard record.count == 9 else {
                throw PDFError(.format, "a deletion record has \(record.count) bytes, not 9")
            }
            return .deleteObject(id)
        }
        guard record.count >= 10 else { throw PDFError(.format, "an object record has no value") }
        let body = Array(record[10...])
        switch record[9] {
        case 0:
            var parser = ObjectParser(ByteBuffer(copying: body))
            return .setObject(id, try parser.parseObject())
        case 1:
            guard body.count >= 4 else { throw PDFError(.format, "a stream record has no dictionary length") }
            let length = u32(body, 0)
            guard length <= body.count - 4 else {
                throw PDFError(.format, "a stream record's dictionary length \(length) exceeds the record")
            }
            var parser = ObjectParser(ByteBuffer(copying: Array(body[4..<(4 + length)])))
            guard let dict = try parser.parseObject().dictionary else {
                throw PDFError(.format, "a stream record's dictionary is not a dictionary")
            }
            return .setObject(id, .stream(PDFStream(dictionary: dict, data: .bytes(Array(body[(4 + length)...])))))
        default:
            throw PDFError(.format, "an object record of value kind \(record[9])")
        }
    }

    private static func u32(_ v: Int) -> [UInt8] {
        let x = UInt32(truncatingIfNeeded: v)
        return [UInt8(truncatingIfNeeded: x), UInt8(truncatingIfNeeded: x >> 8),
                UInt8(truncatingIfNeeded: x >> 16), UInt8(truncatingIfNeeded: x >> 24)]
    }

    private static func u32(_ b: [UInt8], _ at: Int) -> Int {
        Int(b[at]) | Int(b[at + 1]) << 8 | Int(b[at + 2]) << 16 | Int(b[at + 3]) << 24
    }
}

extension Change {
    /// The number of the object the change is about.
    var objectNumber: Int {
        switch self {
        case .setObject(let id, _): return id.number
        case .deleteObject(let id): return id.number
        }
    }
}
