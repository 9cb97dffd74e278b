import QuireSyntax

extension Document {
    /// The file identifier (ISO 32000-2 §14.4): the trailer's /ID, an array of two byte
    /// strings. The first is permanent, set when the file was created; the second changes
    /// with each revision. Nil when there is no /ID, and nil with a warning when it is
    /// not an array of two strings. The strings are never encrypted (§7.6.1).
    public var documentID: (permanent: [UInt8], changing: [UInt8])? {
        guard let value = trailer["ID"] else { return nil }
        // Resolution can only fail on a limit; an /ID past a limit is no /ID.
        guard let array = (try? resolve(value))?.array, array.count >= 2,
              let permanent = (try? resolve(array[0]))?.string,
              let changing = (try? resolve(array[1]))?.string else {
            file.warn("the trailer's /ID is not an array of two strings; ignored")
            return nil
        }
        if array.count > 2 { file.warn("the trailer's /ID has \(array.count) elements; the first two are used") }
        return (permanent.bytes, changing.bytes)
    }

    /// ``documentID`` in lowercase hexadecimal.
    public var documentIDHex: (permanent: String, changing: String)? {
        guard let id = documentID else { return nil }
        return (Document.hex(id.permanent), Document.hex(id.changing))
    }

    static func hex(_ bytes: [UInt8]) -> String { Hex.string(bytes) }
}
