import QuireDocument

/// The fields of an annotation record, for merging concurrent changes (docs/sync-protocol.md,
/// "Field-level merge"): the one rule the server merges by and the client says what it
/// changed by (issue 33).
///
/// A field is a top-level key of the record, or a key of its `quire` object, named
/// `quire.KEY`. Keys that carry one value together are one field, so that a merge never
/// takes half of it from each side:
///
/// | field | keys |
/// | --- | --- |
/// | `geometry` | `bbox`, `rects`, `lines`, `points`, `startPoint`, `endPoint`, `quire.pdfRect`, `quire.pdfQuadPoints`, `quire.pdfInkList`, `quire.pdfLinePoints`, `quire.pdfVertices` |
/// | `text` | `text`, `v` (2 for rich text), `quire.contents`, `quire.richText` |
/// | `colour` | `color`, `strokeColor`, `fillColor`, `borderColor`, `quire.color`, `quire.interiorColor` |
/// | `font` | `fontSize`, `fontColor`, `quire.defaultAppearance` |
/// | `width` | `strokeWidth`, `lineWidth`, `borderWidth`, `quire.borderWidth` |
/// | `lineEndings` | `lineCaps`, `quire.lineEndings` |
/// | `author` | `creatorName` |
/// | `flags` | `flags`, `quire.otherFlags` |
/// | `customData` | `customData`, `quire.customDataText` |
/// | `reply` | `quire.inReplyTo`, `quire.replyType` |
/// | `state` | `quire.state`, `quire.stateModel` |
/// | `icon` | `icon`, `stampType`, `quire.iconName` |
/// | any other key | itself (`opacity`, `note`, `action`, `quire.popup`, `quire.subject`, ...) |
///
/// Not fields: the record's identity (`id`, `type`, `pageIndex`, `pdfObjectId`,
/// `quire.subtype`, `createdAt`, `quire.creationDate`), which a change never makes differ,
/// and its stamps (`updatedAt`, `quire.modificationDate`), which every change sets: a merge
/// takes them from the change it applies last.
public enum RecordFields {
    /// Keys that name the record rather than hold its content.
    static let identity: Set<String> = ["id", "type", "pageIndex", "pdfObjectId", "quire.subtype", "createdAt", "quire.creationDate"]
    /// Keys every change sets.
    static let stamps: Set<String> = ["updatedAt", "quire.modificationDate"]

    static let groups: [String: String] = {
        let table: [String: [String]] = [
            "geometry": ["bbox", "rects", "lines", "points", "startPoint", "endPoint", "quire.pdfRect", "quire.pdfQuadPoints",
                         "quire.pdfInkList", "quire.pdfLinePoints", "quire.pdfVertices"],
            "text": ["text", "v", "quire.contents", "quire.richText"],
            "colour": ["color", "strokeColor", "fillColor", "borderColor", "quire.color", "quire.interiorColor"],
            "font": ["fontSize", "fontColor", "quire.defaultAppearance"],
            "width": ["strokeWidth", "lineWidth", "borderWidth", "quire.borderWidth"],
            "lineEndings": ["lineCaps", "quire.lineEndings"],
            "author": ["creatorName"],
            "flags": ["flags", "quire.otherFlags"],
            "customData": ["customData", "quire.customDataText"],
            "reply": ["quire.inReplyTo", "quire.replyType"],
            "state": ["quire.state", "quire.stateModel"],
            "icon": ["icon", "stampType", "quire.iconName"],
        ]
        var out: [String: String] = [:]
        for (field, keys) in table { for key in keys { out[key] = field } }
        return out
    }()

    /// The field of key `key` (a top-level key, or `quire.KEY`); nil for identity and stamps.
    public static func field(ofKey key: String) -> String? {
        if identity.contains(key) || stamps.contains(key) { return nil }
        return groups[key] ?? key
    }

    /// The record's keys, with those of its `quire` object as `quire.KEY` (a `quire` that is
    /// not an object is a key of its own).
    static func flattened(_ record: [String: InstantJSONValue]) -> [String: InstantJSONValue] {
        var out: [String: InstantJSONValue] = [:]
        for (key, value) in record {
            if key == "quire", let inner = value.objectValue {
                for (k, v) in inner { out["quire." + k] = v }
            } else {
                out[key] = value
            }
        }
        return out
    }

    static func unflattened(_ keys: [String: InstantJSONValue]) -> [String: InstantJSONValue] {
        var out: [String: InstantJSONValue] = [:]
        var quire: [String: InstantJSONValue] = [:]
        for (key, value) in keys {
            if key.hasPrefix("quire.") { quire[String(key.dropFirst(6))] = value } else { out[key] = value }
        }
        // An empty `quire` says nothing: the annotation JSON leaves it out (docs/annotation-
        // json.md), so a merged record does too, or it would differ from every client's.
        if !quire.isEmpty { out["quire"] = .object(quire) }
        return out
    }

    /// The fields whose values differ between `old` and `new`.
    public static func changed(from old: [String: InstantJSONValue], to new: [String: InstantJSONValue]) -> Set<String> {
        let a = flattened(old), b = flattened(new)
        var out: Set<String> = []
        for key in Set(a.keys).union(b.keys) where a[key] != b[key] {
            if let field = field(ofKey: key) { out.insert(field) }
        }
        return out
    }

    /// `base` with the values of `fields` taken from `source` (a key of those fields that
    /// `source` lacks is removed), and `source`'s stamps when any field is taken.
    public static func taking(_ fields: Set<String>, from source: [String: InstantJSONValue],
                              into base: [String: InstantJSONValue]) -> [String: InstantJSONValue] {
        guard !fields.isEmpty else { return base }
        var out = flattened(base)
        let from = flattened(source)
        for key in Set(out.keys).union(from.keys) {
            let taken: Bool
            if stamps.contains(key) {
                taken = true
            } else if let field = field(ofKey: key) {
                taken = fields.contains(field)
            } else {
                taken = false
            }
            if taken { out[key] = from[key] }
        }
        return unflattened(out)
    }
}
