import Crypto
import QuireDocument

/// The attachment a layer record names (docs/sync-protocol.md, "Attachments"): the image
/// of an image annotation (`pspdfkit/image`, `imageAttachmentId`) or the file of a file
/// attachment annotation (`pspdfkit/file`, `fileAttachmentId`), by the lowercase
/// hexadecimal SHA-256 of its bytes. The one rule the server checks pushes by, collects
/// attachments by and writes exports with, and the client uploads and fetches by.
public enum RecordAttachment {
    /// An image record's attachment key.
    public static let imageKey = "imageAttachmentId"
    /// A file record's attachment key.
    public static let fileKey = "fileAttachmentId"

    /// The key that records of `type` name their attachment by; nil for other types.
    public static func key(ofType type: String?) -> String? {
        switch type {
        case "pspdfkit/image": return imageKey
        case "pspdfkit/file": return fileKey
        default: return nil
        }
    }

    /// The attachment `record` names: its id (whatever the record says, checked or not)
    /// and the record's media type; nil when it names none.
    public static func reference(of record: InstantJSONValue) -> (id: String, contentType: String?)? {
        guard let key = key(ofType: record["type"]?.stringValue), let id = record[key]?.stringValue else { return nil }
        return (id, record["contentType"]?.stringValue)
    }

    /// The attachment id of a record's compact JSON; nil when it names none or does not parse.
    public static func id(ofRecordJSON json: [UInt8]) -> String? {
        guard let value = try? InstantJSONValue(parsing: json) else { return nil }
        return reference(of: value)?.id
    }

    /// 64 lowercase hexadecimal digits.
    public static func isSHA256Hex(_ s: String) -> Bool {
        s.utf8.count == 64 && s.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The lowercase hexadecimal SHA-256 of `bytes`.
    public static func sha256Hex(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined()
    }
}
