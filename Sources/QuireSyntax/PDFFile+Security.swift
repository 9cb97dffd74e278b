// The standard security handler of an encrypted file (ISO 32000-2 §7.6): set up from
// /Encrypt, and the strings and streams it decrypts and encrypts.

extension PDFFile {
    /// Builds the security handler when the trailer has /Encrypt (ISO 32000-2 §7.6). The
    /// /Encrypt dictionary is read with decryption off; objects read before (the catalog,
    /// while the cross-reference was checked or rebuilt) are read again, decrypted.
    func setUpSecurity(password: [UInt8]) throws {
        guard let value = trailer["Encrypt"] else { return }
        if case .reference(let id) = value { notEncrypted.insert(id.number) }
        if case .reference(let id)? = trailer["ID"] { notEncrypted.insert(id.number) }
        guard case .dictionary(let dict) = try resolvedForSecurity(value, depth: 3) else {
            warn("the trailer's /Encrypt is not a dictionary; the document is read as not encrypted")
            return
        }
        var documentID: [UInt8] = []
        if let ids = try trailer["ID"].map(object(for:))?.array, let first = ids.first,
           case .string(let s) = try object(for: first) {
            documentID = s.bytes
        }
        security = try StandardSecurityHandler(encryptDictionary: dict, documentID: documentID, password: password)
        cache.removeAll()
        dropObjectStreams()
        decodedObjectStreams.removeAll()
        if xrefForm == .rebuilt {
            // The scan read the headers of object streams still encrypted: scan again.
            scanIndex = nil
            entries = XRefTable(scan().entries)
            cache.removeAll()
            dropObjectStreams()
            decodedObjectStreams.removeAll()
        }
    }

    /// `value` with references resolved, inside dictionaries and arrays down to `depth`
    /// levels (the /Encrypt dictionary's /CF holds dictionaries that may be indirect).
    func resolvedForSecurity(_ value: PDFObject, depth: Int) throws -> PDFObject {
        let resolved = try object(for: value)
        guard depth > 0 else { return resolved }
        switch resolved {
        case .dictionary(let d):
            var out = PDFDictionary()
            for (k, v) in d { out[k] = try resolvedForSecurity(v, depth: depth - 1) }
            return .dictionary(out)
        case .array(let a):
            return .array(try a.map { try resolvedForSecurity($0, depth: depth - 1) })
        default:
            return resolved
        }
    }

    /// Indirect object `id` as parsed from the file, with its strings decrypted (§7.6.2):
    /// recursively through arrays and dictionaries, except in the /Encrypt dictionary, in
    /// cross-reference streams, and in the /Contents of signature dictionaries (which
    /// writers leave unencrypted, as PDFium and qpdf expect). A stream remembers its id,
    /// for the decryption of its data.
    func decrypted(_ value: PDFObject, _ id: ObjectID) -> PDFObject {
        var value = value
        if case .stream(var s) = value {
            s.objectID = id
            value = .stream(s)
        }
        guard let security, !notEncrypted.contains(id.number) else { return value }
        if case .stream(let s) = value, s.dictionary["Type"] == .name("XRef") { return value }
        return PDFFile.mapStrings(value) { security.decryptString($0, object: id) }
    }

    /// `value` with every string passed through `transform`, recursively through arrays,
    /// dictionaries and stream dictionaries, except the /Contents of a signature
    /// dictionary, which writers leave unencrypted (as PDFium and qpdf expect).
    static func mapStrings(_ value: PDFObject, _ transform: ([UInt8]) -> [UInt8]) -> PDFObject {
        switch value {
        case .string(var s):
            s.bytes = transform(s.bytes)
            return .string(s)
        case .array(let a):
            return .array(a.map { mapStrings($0, transform) })
        case .dictionary(let d):
            return .dictionary(mapStrings(d, transform))
        case .stream(var s):
            s.dictionary = mapStrings(s.dictionary, transform)
            return .stream(s)
        default:
            return value
        }
    }

    static func mapStrings(_ d: PDFDictionary, _ transform: ([UInt8]) -> [UInt8]) -> PDFDictionary {
        let type = d["Type"]?.name?.value
        let isSignature = type == "Sig" || type == "DocTimeStamp"
        var out = d
        for (k, v) in d {
            if isSignature && k.value == "Contents" { continue }
            switch v {
            case .string, .array, .dictionary: out[k] = mapStrings(v, transform)
            default: break
            }
        }
        return out
    }

    /// `value`, about to be written as object `id` of this (encrypted) document, with its
    /// strings encrypted for `id`; unchanged when the document is not encrypted.
    public func encryptingStrings(_ value: PDFObject, for id: ObjectID) -> PDFObject {
        guard let security else { return value }
        if case .stream(let s) = value, s.dictionary["Type"] == .name("XRef") { return value }
        return PDFFile.mapStrings(value) { security.encryptString($0, object: id) }
    }
}
