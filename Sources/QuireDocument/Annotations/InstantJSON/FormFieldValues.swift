import QuireSyntax

// Instant JSON's form data (docs/annotation-json.md, "Form field values"): the top-level
// `formFieldValues` (`pspdfkit/form-field-value` records, read and written) and
// `formFields` (`pspdfkit/form-field/...` records, read: matched by name and checked;
// Quire does not create or redefine fields), and the document-level `pdfId`.

/// The value of a `pspdfkit/form-field-value` record: one string, or an array of strings
/// (PSPDFKit writes arrays for check boxes, combo boxes and list boxes).
public enum InstantJSONFieldValue: Codable, Sendable, Equatable {
    case string(String)
    case strings([String])

    /// The values as a list.
    public var values: [String] {
        switch self {
        case .string(let s): return [s]
        case .strings(let a): return a
        }
    }

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    init(json node: JSONNode) throws {
        switch node.value {
        case .string(let s): self = .string(s)
        case .array: self = .strings(try node.array().map { try $0.string() })
        default: throw node.fail("expected a string or an array of strings, found \(node.found)")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let s): try c.encode(s)
        case .strings(let a): try c.encode(a)
        }
    }
}

/// One record of Instant JSON's `formFieldValues`: the value of the field whose fully
/// qualified name is `name`.
public struct InstantJSONFormFieldValue: Codable, Sendable, Equatable {
    public static let type = "pspdfkit/form-field-value"

    public var v: Int = 1
    public var type: String = InstantJSONFormFieldValue.type
    /// The field's fully qualified name (§12.7.4.2).
    public var name: String
    /// The value; nil (absent or null) means the field has none: an empty text, a button
    /// turned off, a choice field with nothing selected.
    public var value: InstantJSONFieldValue?
    /// PSPDFKit's way to turn on check box or radio button widgets by their index in the
    /// field's widgets; when present, `value` is not used.
    public var optionIndexes: [Int]?

    public init(name: String, value: InstantJSONFieldValue?) {
        self.name = name
        self.value = value
    }

    private enum Keys: String, CodingKey { case v, type, name, value, optionIndexes }

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(v, forKey: .v)
        try c.encode(type, forKey: .type)
        try c.encode(name, forKey: .name)
        try c.encodeIfPresent(value, forKey: .value)
        try c.encodeIfPresent(optionIndexes, forKey: .optionIndexes)
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        let vNode = try o.required("v")
        v = try vNode.integer()
        guard v == 1 else { throw vNode.fail("form field value version \(v) is not supported (Quire reads 1)") }
        let typeNode = try o.required("type")
        type = try typeNode.string()
        guard type == InstantJSONFormFieldValue.type else {
            throw typeNode.fail("\"\(type.prefix(60))\" is not a form field value (\(InstantJSONFormFieldValue.type))")
        }
        name = try o.required("name").string()
        value = try o.node("value").map(InstantJSONFieldValue.init(json:))
        optionIndexes = try o.node("optionIndexes")?.array().map { try $0.integer() }
    }
}

/// One record of Instant JSON's `formFields` (`pspdfkit/form-field/text`, `checkbox`,
/// `radio`, `combobox`, `listbox`, `button`, `signature`): read for its `name` and
/// `type`, which must agree with the document's field of that name. Quire does not
/// create fields or change their definitions (flags, options, labels) from JSON.
public struct InstantJSONFormField: Codable, Sendable, Equatable {
    public static let typePrefix = "pspdfkit/form-field/"

    public var type: String
    public var name: String
    public var pdfObjectId: Int?

    public init(type: String, name: String) {
        self.type = type
        self.name = name
    }

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        let typeNode = try o.required("type")
        type = try typeNode.string()
        guard InstantJSONFormField.fieldType(type) != nil else {
            throw typeNode.fail("unsupported form field type \"\(type.prefix(60))\" (Instant JSON's are \(InstantJSONFormField.types.map { InstantJSONFormField.typePrefix + $0.0 }.joined(separator: ", ")))")
        }
        name = try o.required("name").string()
        pdfObjectId = try o.node("pdfObjectId")?.integer()
    }

    static let types: [(String, [FieldType])] = [
        ("text", [.text]), ("checkbox", [.checkBox]), ("radio", [.radioButton]), ("combobox", [.comboBox]),
        ("listbox", [.listBox]), ("button", [.pushButton]), ("signature", [.signature]),
    ]

    /// The Quire field types an Instant JSON form field type stands for.
    static func fieldType(_ type: String) -> [FieldType]? {
        guard type.hasPrefix(typePrefix) else { return nil }
        let rest = type.dropFirst(typePrefix.count)
        return types.first(where: { $0.0 == rest })?.1
    }
}

/// Instant JSON's `pdfId`: the file identifier (the trailer's /ID) of the PDF the JSON was
/// written for, each string in hexadecimal.
public struct InstantJSONPdfId: Codable, Sendable, Equatable {
    public var permanent: String
    public var changing: String

    public init(permanent: String, changing: String) {
        self.permanent = permanent
        self.changing = changing
    }

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        permanent = try o.required("permanent").string()
        changing = try o.required("changing").string()
    }
}

/// A value that import sets: the field and the values for ``Document/setFieldValues(_:of:)``
/// (nil: clear a combo box without a default through ``Document/resetField(_:)``).
struct PlannedFieldValue {
    let field: FormField
    let values: [String]?
}

extension Document {
    /// The `formFieldValues` of the export: one record for every field whose value can be
    /// set (text, check box, radio button, combo box, list box), with the value as PSPDFKit
    /// writes it (a string for text and radio buttons, an array for check boxes and choice
    /// fields) and no value for a field that has none. A field tree that cannot be read (a
    /// limit) gives a warning and no records.
    func exportedFieldValues() -> [InstantJSONFormFieldValue]? {
        let fields: [FormField]
        do {
            fields = try formFields()
        } catch {
            file.warn("annotation JSON: the form's fields cannot be read (\(error)); formFieldValues left out")
            return nil
        }
        var out: [InstantJSONFormFieldValue] = []
        var seen: Set<String> = []
        for f in fields where !f.name.isEmpty && seen.insert(f.name).inserted {
            guard let value = Document.exportedValue(f, values: f.values) else { continue }
            out.append(InstantJSONFormFieldValue(name: f.name, value: value))
        }
        return out.isEmpty ? nil : out
    }

    /// A field's value `values` as export writes it (PSPDFKit's shapes): `.some(nil)` for
    /// no value, nil for a field whose value is not written (push buttons, signatures,
    /// fields of unknown type).
    static func exportedValue(_ f: FormField, values: [String]) -> InstantJSONFieldValue?? {
        switch f.type {
        case .text:
            return .some(values.isEmpty ? nil : .string(values.joined(separator: "\n")))
        case .radioButton:
            return .some(values.first.flatMap { $0 == "Off" ? nil : .string($0) })
        case .checkBox:
            return .some(values.first.flatMap { $0 == "Off" ? nil : .strings([$0]) })
        case .comboBox, .listBox:
            return .some(values.isEmpty ? nil : .strings(values))
        case .pushButton, .signature, .unknown:
            return nil
        }
    }

    /// The form's values as export writes them (``exportedFieldValues()``), for the sync
    /// client, which keeps each as a record of its layer; empty for a document without a
    /// form, or whose field tree cannot be read.
    public func formFieldValueRecords() -> [InstantJSONFormFieldValue] {
        exportedFieldValues() ?? []
    }

    /// Checks `formFields` and `formFieldValues` against the document's form, with the
    /// rules of ``setFieldValues(_:of:)``, without changing anything; returns the values
    /// to set (a value equal to the field's current one is left out, so a document's own
    /// export sets nothing). Every error names the record.
    func plannedFieldValues(_ json: InstantJSONDocument) throws -> [PlannedFieldValue] {
        let values = json.formFieldValues ?? []
        let definitions = json.formFields ?? []
        if values.isEmpty && definitions.isEmpty { return [] }
        var byName: [String: FormField] = [:]
        for f in try formFields() where byName[f.name] == nil { byName[f.name] = f }
        for (i, d) in definitions.enumerated() {
            let path = "annotation JSON: formFields[\(i)]"
            guard let f = byName[d.name] else {
                file.warn("\(path): the document has no field \"\(d.name.prefix(80))\"; skipped (the annotation JSON does not create form fields)")
                continue
            }
            if let types = InstantJSONFormField.fieldType(d.type), !types.contains(f.type) {
                throw PDFError(.format, "\(path).type: field \"\(d.name.prefix(80))\" is a \(f.type.rawValue) field in the document, not \(d.type)")
            }
        }
        var planned: [PlannedFieldValue] = []
        var named: Set<String> = []
        for (i, r) in values.enumerated() {
            let path = "annotation JSON: formFieldValues[\(i)]"
            guard !r.name.isEmpty else { throw PDFError(.format, "\(path).name: must not be empty") }
            guard named.insert(r.name).inserted else {
                throw PDFError(.format, "\(path).name: \"\(r.name.prefix(80))\" is the name of an earlier value too")
            }
            guard let field = byName[r.name] else {
                throw PDFError(.format, "\(path).name: the document has no field \"\(r.name.prefix(80))\"")
            }
            if let p = try Document.plannedValue(r, field, path: path) { planned.append(p) }
        }
        return planned
    }

    /// One record's value for `field`, checked; nil when it is the field's value already.
    /// The forms model's rules for a value (options, /MaxLen, read-only, ...), in one
    /// place: import uses it, and so does the sync server's check of a form value record
    /// (``AnnotationRecordChecker/checkFormFieldValue(_:path:)``).
    static func plannedValue(_ r: InstantJSONFormFieldValue, _ field: FormField, path: String) throws -> PlannedFieldValue? {
        let name = "\"\(field.name.prefix(80))\""
        var wanted = r.value?.values ?? []
        if let indexes = r.optionIndexes {
            guard field.type == .checkBox || field.type == .radioButton else {
                throw PDFError(.format, "\(path).optionIndexes: field \(name) is a \(field.type.rawValue) field; optionIndexes are for check boxes and radio buttons")
            }
            var states: [String] = []
            for (k, index) in indexes.enumerated() {
                guard index < field.widgets.count else {
                    throw PDFError(.format, "\(path).optionIndexes[\(k)]: field \(name) has \(field.widgets.count) widgets, no widget \(index)")
                }
                guard let state = field.widgets[index].onStates.first else {
                    throw PDFError(.format, "\(path).optionIndexes[\(k)]: widget \(index) of field \(name) has no on state")
                }
                if !states.contains(state) { states.append(state) }
            }
            guard states.count <= 1 else {
                throw PDFError(.unsupported, "\(path).optionIndexes: the widgets have different states (\(states.joined(separator: ", "))); Quire sets one state per field")
            }
            wanted = states
        }
        switch field.type {
        case .text:
            guard wanted.count <= 1 else {
                throw PDFError(.format, "\(path).value: field \(name) is a text field, which takes one string, not \(wanted.count)")
            }
            let text = wanted.first ?? ""
            if text == (field.values.first ?? "") { return nil }
            try checkWritable(field, path: path)
            guard text.count <= FormLimits.maxTextLength else {
                throw PDFError(.limit, "\(path).value: \(text.count) characters, more than a text field takes (max_text_length \(FormLimits.maxTextLength))")
            }
            if let m = field.maxLength, m >= 0, text.count > m {
                throw PDFError(.range, "\(path).value: field \(name) takes at most \(m) characters (/MaxLen); the value has \(text.count)")
            }
            return PlannedFieldValue(field: field, values: [text])
        case .checkBox, .radioButton:
            guard wanted.count <= 1 else {
                throw PDFError(.format, "\(path).value: field \(name) is a \(field.type == .checkBox ? "check box" : "radio button") field with one state at a time, not \(wanted.count)")
            }
            let raw = wanted.first ?? "Off"
            // The value the field has (even one its states do not allow): nothing to set.
            if raw == (field.values.first ?? "Off") { return nil }
            var state = raw
            if raw != "Off", !field.options.contains(where: { $0.exportValue == raw }) {
                if let o = field.options.first(where: { $0.displayText == raw }) {
                    state = o.exportValue
                } else if !(field.options.isEmpty && field.type == .checkBox) {
                    let choices = (["Off"] + field.options.map(\.exportValue)).joined(separator: ", ")
                    throw PDFError(.format, "\(path).value: \"\(raw.prefix(80))\" is not a state of field \(name) (\(choices))")
                }
            }
            if state == (field.values.first ?? "Off") { return nil }
            try checkWritable(field, path: path)
            if state == "Off" && field.type == .radioButton && field.flags.contains(.noToggleToOff) && field.values != ["Off"] {
                throw PDFError(.state, "\(path).value: radio group \(name) cannot be turned off (NoToggleToOff)")
            }
            return PlannedFieldValue(field: field, values: [state])
        case .comboBox, .listBox:
            // The value the field has (even one that is not an option): nothing to set.
            if wanted == field.values { return nil }
            var exports: [String] = []
            for (k, v) in wanted.enumerated() {
                if let o = field.options.first(where: { $0.exportValue == v }) ?? field.options.first(where: { $0.displayText == v }) {
                    exports.append(o.exportValue)
                } else if field.type == .comboBox && field.flags.contains(.edit) {
                    guard v.count <= FormLimits.maxTextLength else {
                        throw PDFError(.limit, "\(path).value: \(v.count) characters, more than a field takes (max_text_length \(FormLimits.maxTextLength))")
                    }
                    exports.append(v)
                } else {
                    throw PDFError(.format, "\(path).value\(r.value.map { if case .strings = $0 { return "[\(k)]" } else { return "" } } ?? ""): \"\(v.prefix(80))\" is not an option of field \(name)")
                }
            }
            if exports == field.values { return nil }
            try checkWritable(field, path: path)
            if field.type == .comboBox {
                guard exports.count <= 1 else {
                    throw PDFError(.format, "\(path).value: field \(name) is a combo box, which takes one value, not \(exports.count)")
                }
                if exports.isEmpty {
                    // Cleared: only resetField clears a combo box, and it sets /DV when there is one.
                    guard field.defaultValues.isEmpty else {
                        throw PDFError(.unsupported, "\(path).value: combo box \(name) cannot be left without a value (it has a default value, which a reset would set)")
                    }
                    return PlannedFieldValue(field: field, values: nil)
                }
            } else if exports.count > 1 && !field.flags.contains(.multiSelect) {
                throw PDFError(.format, "\(path).value: list box \(name) is not multi-select: one value, not \(exports.count)")
            }
            return PlannedFieldValue(field: field, values: exports)
        case .pushButton, .signature, .unknown:
            if wanted.isEmpty && r.optionIndexes == nil { return nil }
            throw PDFError(.unsupported, "\(path).value: field \(name) is a \(field.type == .unknown ? "field of unknown type" : field.type.rawValue + " field"), whose value Quire does not set")
        }
    }

    private static func checkWritable(_ field: FormField, path: String) throws {
        if field.isReadOnly {
            throw PDFError(.state, "\(path).value: field \"\(field.name.prefix(80))\" is read-only")
        }
    }

    /// Sets the planned values (checked by ``plannedFieldValues(_:)``) through the forms model.
    func applyFieldValues(_ planned: [PlannedFieldValue]) throws {
        for p in planned {
            if let values = p.values {
                try setFieldValues(values, of: p.field)
            } else {
                try resetField(p.field)
            }
        }
    }

    /// The file identifier as Instant JSON's `pdfId` (lowercase hexadecimal).
    var instantPdfId: InstantJSONPdfId? {
        documentIDHex.map { InstantJSONPdfId(permanent: $0.permanent, changing: $0.changing) }
    }

    /// Whether the JSON's `pdfId` names another file than this one: its `permanent`
    /// identifier differs from this document's (either case of hexadecimal). False when
    /// either has none.
    func pdfIdNamesAnotherFile(_ json: InstantJSONDocument) -> Bool {
        guard let theirs = json.pdfId, let ours = documentIDHex else { return false }
        return theirs.permanent.lowercased() != ours.permanent
    }
}
