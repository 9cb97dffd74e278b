import QuireSyntax

// Instant JSON's comments (`pspdfkit/comment` records in the top-level `comments`, each
// with the `rootId` of the annotation whose thread it belongs to) are PDF replies: a note
// (Text annotation) with /IRT to the root and /RT /R, as Quire's own replies are. See
// docs/annotation-json.md, "Comments".

/// A comment of Instant JSON's `comments`: one message of the thread of the annotation
/// `rootId` names.
public struct InstantJSONComment: Codable, Sendable, Equatable {
    public static let type = "pspdfkit/comment"

    /// 1, or 2 with rich text.
    public var v: Int = 1
    public var type: String = InstantJSONComment.type
    /// The comment's id: the reply's /NM.
    public var id: String?
    /// The `id` of the thread's root annotation (a record of the JSON, or an annotation of
    /// the document by /NM or object number).
    public var rootId: String
    public var pageIndex: Int
    /// The reply's object number in the exporting document (ignored on import).
    public var pdfObjectId: Int?
    public var creatorName: String?
    public var createdAt: String?
    public var updatedAt: String?
    /// Plain text (/Contents).
    public var text: String?
    /// Rich text: `text` in the xhtml format (/RC; /Contents is its plain text).
    public var richText: String?
    public var customData: InstantJSONValue?

    public init(rootId: String, pageIndex: Int) {
        self.rootId = rootId
        self.pageIndex = pageIndex
    }

    private enum Keys: String, CodingKey {
        case v, type, id, rootId, pageIndex, pdfObjectId, creatorName, createdAt, updatedAt, text, customData
    }

    private struct FormattedText: Encodable { var format: String; var value: String }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(richText != nil ? Swift.max(v, 2) : v, forKey: .v)
        try c.encode(type, forKey: .type)
        try c.encodeIfPresent(id, forKey: .id)
        try c.encode(rootId, forKey: .rootId)
        try c.encode(pageIndex, forKey: .pageIndex)
        try c.encodeIfPresent(pdfObjectId, forKey: .pdfObjectId)
        try c.encodeIfPresent(creatorName, forKey: .creatorName)
        try c.encodeIfPresent(createdAt, forKey: .createdAt)
        try c.encodeIfPresent(updatedAt, forKey: .updatedAt)
        if let richText {
            try c.encode(FormattedText(format: "xhtml", value: richText), forKey: .text)
        } else {
            try c.encode(text ?? "", forKey: .text)
        }
        try c.encodeIfPresent(customData, forKey: .customData)
    }

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        let vNode = try o.required("v")
        v = try vNode.integer()
        guard v == 1 || v == 2 else { throw vNode.fail("comment version \(v) is not supported (Quire reads 1 and 2)") }
        let typeNode = try o.required("type")
        type = try typeNode.string()
        guard type == InstantJSONComment.type else {
            throw typeNode.fail("\"\(type.prefix(60))\" is not a comment (\(InstantJSONComment.type))")
        }
        id = try o.string("id")
        rootId = try o.required("rootId").string()
        pageIndex = try o.required("pageIndex").integer()
        pdfObjectId = try o.node("pdfObjectId")?.integer()
        creatorName = try o.string("creatorName")
        createdAt = try o.string("createdAt")
        updatedAt = try o.string("updatedAt")
        if let t = o.node("text") {
            if case .string(let s) = t.value {
                text = s
            } else {
                let to = try t.object()
                let format = try to.string("format") ?? "plain"
                switch format {
                case "plain": text = try to.string("value") ?? ""
                case "xhtml": richText = try to.string("value") ?? ""
                default: throw (to.node("format") ?? t).fail("text in the \"\(format.prefix(40))\" format is not supported (plain or xhtml)")
                }
            }
        }
        if let c = o.node("customData") {
            _ = try c.object()
            customData = c.value
        }
    }
}

extension Document {
    /// The records that the comments of `json` stand for: a note replying to its root (/IRT,
    /// /RT /R), 20 by 20 points at the top left of the root, with the comment's id, author,
    /// dates, text and custom data. A comment whose id names a note of the document on its
    /// page (an earlier import of it) keeps that note's other fields, so that importing the
    /// same comments again changes nothing. Errors name `comments[i]`.
    func commentRecords(_ json: InstantJSONDocument) throws -> [InstantJSONAnnotation] {
        guard let comments = json.comments, !comments.isEmpty else { return [] }
        var annotationRecord: [String: InstantJSONAnnotation] = [:]
        for r in json.annotations {
            if let id = r.id, annotationRecord[id] == nil { annotationRecord[id] = r }
        }
        for r in json.annotations {
            if let name = r.name, annotationRecord[name] == nil { annotationRecord[name] = r }
        }
        var commentIndex: [String: Int] = [:]
        for (k, c) in comments.enumerated() {
            guard let id = c.id else { continue }
            if commentIndex[id] != nil || annotationRecord[id] != nil {
                throw PDFError(.format, "annotation JSON: comments[\(k)].id: \"\(id.prefix(60))\" is the id of an earlier record or comment too")
            }
            commentIndex[id] = k
        }
        var byName: [String: Annotation] = [:]
        var byNumber: [Int: Annotation] = [:]
        for a in try allAnnotations() {
            if let name = a.name, byName[name] == nil { byName[name] = a }
            if let id = a.id { byNumber[id.number] = a }
        }
        var records: [InstantJSONAnnotation] = []
        var exportedPages: [Int: [InstantJSONAnnotation]] = [:]
        func exported(_ page: Int) throws -> [InstantJSONAnnotation] {
            if let e = exportedPages[page] { return e }
            let e = try annotationsInstantJSON(page: page).annotations
            exportedPages[page] = e
            return e
        }
        for (k, c) in comments.enumerated() {
            let path = "comments[\(k)]"
            // The root: a record of the JSON, else an annotation of the document.
            if commentIndex[c.rootId] != nil {
                // Comments answer the thread's root annotation, never another comment.
                var seen: Set<Int> = [k]
                var cursor = c.rootId
                while let j = commentIndex[cursor] {
                    if !seen.insert(j).inserted || j == k {
                        throw PDFError(.format, "annotation JSON: \(path).rootId: the comments make a cycle (\"\(c.rootId.prefix(60))\" leads back to this comment)")
                    }
                    cursor = comments[j].rootId
                }
                throw PDFError(.format, "annotation JSON: \(path).rootId: \"\(c.rootId.prefix(60))\" is a comment; a comment's rootId names the annotation that starts its thread")
            }
            let rootBBox: [Double]
            let rootPage: Int
            if let r = annotationRecord[c.rootId] {
                rootBBox = r.bbox
                rootPage = r.pageIndex
            } else if let a = byName[c.rootId] ?? InstantJSON.digits(c.rootId).flatMap({ byNumber[$0] }) {
                let frame = try InstantJSON.Frame(page(at: a.pageIndex))
                rootBBox = frame.bbox(a.rect)
                rootPage = a.pageIndex
            } else {
                throw PDFError(.format, "annotation JSON: \(path).rootId: no annotation \"\(c.rootId.prefix(60))\" in the JSON or the document")
            }
            guard c.pageIndex == rootPage else {
                throw PDFError(.format, "annotation JSON: \(path).pageIndex: the comment is on page \(c.pageIndex), its root \"\(c.rootId.prefix(60))\" on page \(rootPage); a comment is on the page of its thread")
            }
            var r: InstantJSONAnnotation
            if let id = c.id, let existing = byName[id], existing.pageIndex == c.pageIndex, existing.subtype == "Text",
               let previous = try exported(c.pageIndex).first(where: { $0.name == id }) {
                r = previous
                r.pdfObjectId = nil
            } else {
                r = InstantJSONAnnotation(type: "pspdfkit/note", pageIndex: c.pageIndex,
                                          bbox: [rootBBox.first ?? 0, rootBBox.dropFirst().first ?? 0, 20, 20])
                r.flags = ["noZoom", "noRotate"]
                r.icon = "comment"
            }
            r.v = c.richText != nil ? 2 : 1
            r.id = c.id
            r.name = c.id
            r.creatorName = c.creatorName
            r.createdAt = c.createdAt
            r.updatedAt = c.updatedAt
            r.text = c.richText == nil ? (c.text ?? "") : nil
            r.richText = c.richText
            r.customData = c.customData
            var q = r.quire ?? InstantJSONQuireFields()
            if q.richText != nil, c.richText == nil { q.richText = nil; q.contents = nil }
            q.inReplyTo = c.rootId
            q.replyType = "reply"
            q.state = nil
            q.stateModel = nil
            r.quire = q
            records.append(r)
        }
        return records
    }

    /// `json` with the replies of its records written as Instant JSON comments: a note that
    /// replies (`/RT /R` or none, no state) to a record of the JSON that is not itself a
    /// reply becomes a `pspdfkit/comment` of that root; the root gets
    /// `isCommentThreadRoot`, and a root note without text becomes a
    /// `pspdfkit/comment-marker`. What a comment cannot hold (the reply's rectangle, flags,
    /// colour, icon, Quire's exact fields) is left out.
    static func withInstantComments(_ json: InstantJSONDocument) -> InstantJSONDocument {
        var out = json
        var index: [String: Int] = [:]
        for (i, r) in json.annotations.enumerated() { if let id = r.id { index[id] = i } }
        var comments: [InstantJSONComment] = []
        var keep: [InstantJSONAnnotation] = []
        var roots: Set<Int> = []
        for r in json.annotations {
            if r.type == "pspdfkit/note", let q = r.quire, let root = q.inReplyTo, q.state == nil,
               q.replyType == nil || q.replyType == "reply", q.popup == nil,
               let j = index[root], json.annotations[j].quire?.inReplyTo == nil {
                var c = InstantJSONComment(rootId: root, pageIndex: r.pageIndex)
                c.id = r.id
                c.pdfObjectId = r.pdfObjectId
                c.creatorName = r.creatorName
                c.createdAt = r.createdAt
                c.updatedAt = r.updatedAt
                c.text = r.text
                c.richText = r.richText
                c.customData = r.customData
                comments.append(c)
                roots.insert(j)
            } else {
                keep.append(r)
            }
        }
        guard !comments.isEmpty else { return json }
        out.annotations = []
        for r in keep {
            var r = r
            if let id = r.id, let j = index[id], roots.contains(j) {
                r.isCommentThreadRoot = true
                if r.type == "pspdfkit/note", (r.text ?? "").isEmpty, r.richText == nil { r.type = InstantJSON.commentMarkerType }
            }
            out.annotations.append(r)
        }
        out.comments = comments
        return out
    }
}
