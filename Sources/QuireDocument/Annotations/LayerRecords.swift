import QuireSyntax

// The records of a synced layer that are not annotations (issue 33, docs/sync-protocol.md,
// "What a layer holds"): form field values (`pspdfkit/form-field-value`, the shape of
// docs/annotation-json.md) and user bookmarks (`pspdfkit/bookmark`, Instant JSON's shape).
// The sync server checks them with the document's rules (``AnnotationRecordChecker``), the
// client makes them from its editable document and shows them in it, and the layer's
// export writes them into the PDF: one definition of each shape, here.

/// What a record of a layer is.
public enum LayerRecordKind: Sendable, Equatable {
    /// An annotation record of docs/annotation-json.md (replies and states included).
    case annotation
    /// The value of one form field: `{"v": 1, "type": "pspdfkit/form-field-value", "id",
    /// "name", "value"}`.
    case formFieldValue
    /// A user bookmark: `{"v": 1, "type": "pspdfkit/bookmark", "id", "name", "sortKey",
    /// "action"}`.
    case bookmark
}

/// The shapes and keys of the layer records that are not annotations.
public enum LayerRecords {
    /// The `type` of a bookmark record.
    public static let bookmarkType = "pspdfkit/bookmark"
    /// A form value record's key in the layer is this prefix and the field's fully
    /// qualified name: one record per field, whoever fills it.
    public static let formFieldValueIDPrefix = "pspdfkit/form-field-value/"

    /// The kind of a record by its `type` (anything else is an annotation record, which
    /// the annotation checks read).
    public static func kind(of record: InstantJSONValue) -> LayerRecordKind {
        switch record["type"]?.stringValue {
        case InstantJSONFormFieldValue.type?: return .formFieldValue
        case bookmarkType?: return .bookmark
        default: return .annotation
        }
    }

    /// The key of the value record of the field named `name`.
    public static func formFieldValueID(_ name: String) -> String { formFieldValueIDPrefix + name }

    /// The layer record of a form value: export's record with its key as `id`.
    public static func record(_ value: InstantJSONFormFieldValue) -> InstantJSONValue {
        var fields: [String: InstantJSONValue] = [
            "v": .integer(1), "type": .string(InstantJSONFormFieldValue.type),
            "id": .string(formFieldValueID(value.name)),
            "name": .string(value.name),
        ]
        switch value.value {
        case .string(let s)?: fields["value"] = .string(s)
        case .strings(let a)?: fields["value"] = .array(a.map(InstantJSONValue.string))
        case nil: break
        }
        return .object(fields)
    }

    /// The layer record of a bookmark; nil for one whose action has no Instant JSON form
    /// (``Bookmark/Action/other(_:)``), which is not synced.
    public static func record(_ bookmark: Bookmark) -> InstantJSONValue? {
        let action: InstantJSONValue
        switch bookmark.action {
        case .goTo(let page): action = .object(["type": .string("goTo"), "pageIndex": .integer(Int64(page))])
        case .uri(let uri): action = .object(["type": .string("uri"), "uri": .string(uri)])
        case .named(let name): action = .object(["type": .string("named"), "action": .string(name)])
        case .other: return nil
        }
        var fields: [String: InstantJSONValue] = [
            "v": .integer(1), "type": .string(bookmarkType), "id": .string(bookmark.identifier), "action": action,
        ]
        if let name = bookmark.name { fields["name"] = .string(name) }
        if let key = bookmark.sortKey { fields["sortKey"] = .integer(Int64(key)) }
        return .object(fields)
    }

    /// Refuses keys other than `allowed` (a record of the wrong shape is not guessed at).
    static func onlyKeys(_ o: JSONObject, _ allowed: [String], what: String) throws {
        for key in o.fields.keys.sorted() where !allowed.contains(key) {
            throw PDFError(
                .format,
                "annotation JSON: \(o.path): unknown field \"\(key.prefix(60))\" in a \(what) (\(allowed.joined(separator: ", ")))"
            )
        }
    }

    /// Reads a bookmark record: `v` 1, `type`, a non-empty `id`, `name` (optional text),
    /// `sortKey` (optional integer), `action` (`goTo` with `pageIndex`, `uri` with `uri`,
    /// `named` with `action`); nothing else.
    public static func bookmark(_ value: InstantJSONValue, path: String = "record") throws -> Bookmark {
        let node = JSONNode(value: value, path: path)
        let o = try node.object()
        try onlyKeys(o, ["v", "type", "id", "name", "sortKey", "action"], what: "bookmark record")
        let vNode = try o.required("v")
        guard try vNode.integer() == 1 else { throw vNode.fail("bookmark record version must be 1") }
        let typeNode = try o.required("type")
        guard try typeNode.string() == bookmarkType else {
            throw typeNode.fail("a bookmark record's type is \(bookmarkType)")
        }
        let idNode = try o.required("id")
        let id = try idNode.string()
        guard !id.isEmpty else { throw idNode.fail("must not be empty") }
        let name = try o.string("name")
        let sortKey = try o.node("sortKey")?.integer(in: Int64(Int32.min)...Int64(Int32.max))
        let actionNode = try o.required("action")
        let a = try actionNode.object()
        let kindNode = try a.required("type")
        let action: Bookmark.Action
        switch try kindNode.string() {
        case "goTo":
            try onlyKeys(a, ["type", "pageIndex"], what: "goTo action")
            action = .goTo(pageIndex: try a.required("pageIndex").integer())
        case "uri":
            try onlyKeys(a, ["type", "uri"], what: "uri action")
            action = .uri(try a.required("uri").string())
        case "named":
            try onlyKeys(a, ["type", "action"], what: "named action")
            action = .named(try a.required("action").string())
        case let other:
            throw kindNode.fail("a bookmark's action is goTo, uri or named, not \"\(other.prefix(60))\"")
        }
        return Bookmark(identifier: id, action: action, name: name, sortKey: sortKey)
    }
}

extension AnnotationRecordChecker {
    /// Checks a form value record as the document's form takes it: the shape (`v` 1,
    /// `type`, `id` the field's key, `name`, `value`; nothing else: `optionIndexes` is not
    /// synced), a field the document has, and the forms model's rules for the value
    /// (``Document/plannedValue(_:_:path:)``: options, states, /MaxLen, read-only,
    /// NoToggleToOff, ...), against the field as the PDF has it. The value must also be
    /// written as export writes it (an array for check boxes and choice fields, export
    /// values rather than display texts), so that every client shows the record it holds;
    /// an empty text and no value are the same. Errors name the field, as import's do.
    public func checkFormFieldValue(
        _ value: InstantJSONValue,
        path: String = "record"
    ) throws -> InstantJSONFormFieldValue {
        let node = JSONNode(value: value, path: path)
        let o = try node.object()
        try LayerRecords.onlyKeys(o, ["v", "type", "id", "name", "value"], what: "form field value record")
        let r = try InstantJSONFormFieldValue(json: node)
        guard !r.name.isEmpty else { throw PDFError(.format, "annotation JSON: \(path).name: must not be empty") }
        guard o.fields["id"]?.stringValue == LayerRecords.formFieldValueID(r.name) else {
            throw PDFError(
                .format,
                "annotation JSON: \(path).id: a form value's id is \(LayerRecords.formFieldValueIDPrefix) and the field's name"
            )
        }
        guard let formFields else {
            throw PDFError(
                .unsupported,
                "annotation JSON: \(path): the document's form cannot be read (\(formError ?? "?"))"
            )
        }
        guard let field = formFields[r.name] else {
            throw PDFError(.format, "annotation JSON: \(path).name: the document has no field \"\(r.name.prefix(80))\"")
        }
        let planned = try Document.plannedValue(r, field, path: "annotation JSON: \(path)")
        let result = planned.map { $0.values ?? [] } ?? field.values
        guard case .some(let canonical) = Document.exportedValue(field, values: result) else {
            throw PDFError(
                .unsupported,
                "annotation JSON: \(path).name: field \"\(r.name.prefix(80))\" is a \(field.type.rawValue) field, whose value Quire does not set"
            )
        }
        func isEmpty(_ v: InstantJSONFieldValue?) -> Bool { v == nil || v == .string("") }
        let same = r.value == canonical || (field.type == .text && isEmpty(r.value) && isEmpty(canonical))
        guard same else {
            let shown =
                canonical.map {
                    LayerRecords.record(InstantJSONFormFieldValue(name: r.name, value: $0))["value"]?.canonicalText
                        ?? "?"
                } ?? "no value"
            throw PDFError(
                .format,
                "annotation JSON: \(path).value: field \"\(r.name.prefix(80))\" takes this value as \(shown.prefix(200)) (as export writes it)"
            )
        }
        return r
    }

    /// Checks a bookmark record (``LayerRecords/bookmark(_:path:)``), and that a go-to
    /// bookmark's page exists.
    public func checkBookmark(_ value: InstantJSONValue, path: String = "record") throws -> Bookmark {
        let b = try LayerRecords.bookmark(value, path: path)
        if case .goTo(let page) = b.action, page >= pageCount || page >= pagesHeld {
            throw PDFError(
                .format,
                "annotation JSON: \(path).action.pageIndex: page \(page) does not exist (the document has \(pageCount) pages)"
            )
        }
        return b
    }
}
