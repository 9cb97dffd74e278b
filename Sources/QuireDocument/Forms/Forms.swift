import QuireSyntax

/// Interactive forms (AcroForm, ISO 32000-2 §12.7): the field tree, values and the rules
/// for setting them. Appearances of changed fields are regenerated (FieldAppearance.swift),
/// so that viewers that only draw appearance streams show the new values. XFA forms are
/// detected and reported (``FormKind``), never filled; JavaScript is never run.

/// The kind of a field (§12.7.5).
public enum FieldType: String, Sendable, CaseIterable {
    case text, checkBox, radioButton, comboBox, listBox, pushButton, signature
    /// A field with no (or an unknown) /FT: listed, never changed.
    case unknown
}

/// What kind of form a document has.
public enum FormKind: Sendable, Equatable {
    /// No /AcroForm, or one without fields.
    case none
    /// An AcroForm.
    case acroForm
    /// An AcroForm with an /XFA entry and fields: XFA viewers draw the XFA form, others
    /// the AcroForm fields (which Quire fills).
    case xfaForeground
    /// /XFA without AcroForm fields: nothing Quire can fill.
    case xfaOnly
}

/// The limits of the field tree walk, with names, so that a hostile tree costs a bounded
/// amount of work and fails with a clear ``PDFErrorKind/limit`` error.
public enum FormLimits {
    /// The deepest field tree (PDFium stops at 32 levels).
    public static let maxFieldDepth = 32
    /// The most field and widget dictionaries one tree may hold.
    public static let maxFieldNodes = 200_000
    /// The largest /MaxLen honoured for comb fields (one cell per character); a larger one
    /// draws as an ordinary text field.
    public static let maxCombCells = 1_000
    /// The longest value accepted for a text field, in characters.
    public static let maxTextLength = 1 << 20
}

/// Field flags (/Ff, §12.7.4.1, Tables 226, 229, 231, 233).
public struct FieldFlags: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let readOnly = FieldFlags(rawValue: 1 << 0)
    public static let required = FieldFlags(rawValue: 1 << 1)
    public static let noExport = FieldFlags(rawValue: 1 << 2)
    public static let multiline = FieldFlags(rawValue: 1 << 12)
    public static let password = FieldFlags(rawValue: 1 << 13)
    public static let noToggleToOff = FieldFlags(rawValue: 1 << 14)
    public static let radio = FieldFlags(rawValue: 1 << 15)
    public static let pushButton = FieldFlags(rawValue: 1 << 16)
    public static let combo = FieldFlags(rawValue: 1 << 17)
    public static let edit = FieldFlags(rawValue: 1 << 18)
    public static let sort = FieldFlags(rawValue: 1 << 19)
    public static let fileSelect = FieldFlags(rawValue: 1 << 20)
    public static let multiSelect = FieldFlags(rawValue: 1 << 21)
    public static let doNotSpellCheck = FieldFlags(rawValue: 1 << 22)
    public static let doNotScroll = FieldFlags(rawValue: 1 << 23)
    public static let comb = FieldFlags(rawValue: 1 << 24)
    public static let radiosInUnison = FieldFlags(rawValue: 1 << 25)
    public static let commitOnSelChange = FieldFlags(rawValue: 1 << 26)
}

/// One widget annotation of a field.
public struct FieldWidget: Sendable, Equatable {
    /// The widget's object (for a field merged with its only widget, the field's).
    public let id: ObjectID
    /// The page it is on (0-based), from /P or from the page whose /Annots lists it; nil
    /// when no page lists it.
    public let pageIndex: Int?
    public let rect: Rect
    /// The names of its normal appearance states other than Off (check boxes and radio
    /// buttons), in file order.
    public let onStates: [String]
}

/// One choice of a choice field (/Opt) or one export value of a button.
public struct FieldOption: Sendable, Equatable {
    /// What is stored in /V.
    public let exportValue: String
    /// What is shown.
    public let displayText: String
}

/// A terminal field of the form: a value and its widgets.
public struct FormField: Sendable {
    /// The terminal field dictionary's object.
    public let id: ObjectID
    /// The fully qualified name: the partial names (/T) of its ancestors and its own,
    /// joined with periods (§12.7.4.2).
    public let name: String
    /// /TU, the name shown to users.
    public let alternateName: String?
    public let type: FieldType
    public let flags: FieldFlags
    /// The value: one string for text, combo boxes and buttons ("Off" when a button is
    /// off), any number for list boxes; empty when unset.
    public let values: [String]
    /// The default value (/DV), in the same form.
    public let defaultValues: [String]
    /// Choices of choice fields (/Opt); the on-states of buttons (their export values
    /// through /Opt when there is one).
    public let options: [FieldOption]
    /// /MaxLen of text fields.
    public let maxLength: Int?
    /// The default appearance string (/DA, inherited, else the form's).
    public let defaultAppearance: String?
    /// /Q: 0 left, 1 centred, 2 right.
    public let quadding: Int
    public let widgets: [FieldWidget]
    /// Other terminal field objects with the same fully qualified name (one field to
    /// viewers): setting a value sets it on each.
    public internal(set) var sameNameIDs: [ObjectID] = []

    public var isReadOnly: Bool { flags.contains(.readOnly) }
    public var isRequired: Bool { flags.contains(.required) }
    /// The value as one string: list boxes' selections joined with newlines.
    public var value: String { values.joined(separator: "\n") }
}

/// The fields of a document as ``Document/formFields()`` lists them, with the index of the
/// first field of each name: what the document caches between changes.
struct FormFieldTable {
    var fields: [FormField]
    var indexByName: [String: Int]
}

/// The attributes a field inherits from its ancestors (§12.7.4.1, Table 226).
private struct Inherited {
    var ft: PDFName?
    var ff: PDFObject?
    var v: PDFObject?
    var dv: PDFObject?
    var da: PDFObject?
    var q: PDFObject?
    var opt: PDFObject?
    var maxLen: PDFObject?
    var dr: PDFObject?

    func merged(with d: PDFDictionary) -> Inherited {
        var r = self
        if let n = d["FT"]?.name { r.ft = n }
        if let x = d["Ff"] { r.ff = x }
        if let x = d["V"] { r.v = x }
        if let x = d["DV"] { r.dv = x }
        if let x = d["DA"] { r.da = x }
        if let x = d["Q"] { r.q = x }
        if let x = d["Opt"] { r.opt = x }
        if let x = d["MaxLen"] { r.maxLen = x }
        if let x = d["DR"] { r.dr = x }
        return r
    }
}

extension Document {
    // MARK: Reading

    /// The /AcroForm dictionary, if any.
    func acroForm() throws -> PDFDictionary? {
        try dictionary(try catalog()["AcroForm"])
    }

    /// What kind of form the document has.
    public func formKind() throws -> FormKind {
        guard let form = try acroForm() else { return .none }
        let hasFields = !((try form["Fields"].map(resolve)?.array) ?? []).isEmpty
        let hasXFA = !((try form["XFA"].map(resolve)) ?? .null).isNull
        switch (hasFields, hasXFA) {
        case (true, true): return .xfaForeground
        case (true, false): return .acroForm
        case (false, true): return .xfaOnly
        case (false, false): return .none
        }
    }

    /// Every terminal field of the form, in tree order (depth first, /Kids order).
    ///
    /// The walk keeps its own stack, detects cycles (a field listed under itself is skipped
    /// with a warning) and stops with a limit error past ``FormLimits/maxFieldDepth``
    /// levels or ``FormLimits/maxFieldNodes`` dictionaries.
    ///
    /// The result (or the error) is cached until the document changes: any change of an
    /// object (the annotation API, JSON or XFDF import, a value set here), a save that
    /// continues from new bytes or a checkpoint loaded drops it with the other caches of
    /// the model (``invalidateModel()``), so reading every field one call at a time, as the
    /// C API and the Python binding do, walks the tree once.
    public func formFields() throws -> [FormField] {
        try formFieldTable().fields
    }

    /// The cached field list with its index by name (see ``formFields()``).
    func formFieldTable() throws -> FormFieldTable {
        if let formFieldsCache { return try formFieldsCache.get() }
        let result = Result { () throws -> FormFieldTable in
            let fields = try readFormFields()
            var byName: [String: Int] = [:]
            for (i, f) in fields.enumerated() where byName[f.name] == nil { byName[f.name] = i }
            return FormFieldTable(fields: fields, indexByName: byName)
        }
        formFieldsCache = result
        return try result.get()
    }

    /// The index in ``formFields()`` of the field named `name`, if any.
    public func formFieldIndex(named name: String) throws -> Int? {
        try formFieldTable().indexByName[name]
    }

    private func readFormFields() throws -> [FormField] {
        guard let form = try acroForm(), let fields = form["Fields"],
              let top = try resolve(fields).array else { return [] }
        var formInherited = Inherited()
        formInherited.da = form["DA"]
        formInherited.q = form["Q"]
        formInherited.dr = form["DR"]
        let pageOf = try widgetPages()
        var out: [FormField] = []
        var seen: Set<Int> = []
        var nodes = 0
        struct Step { let object: PDFObject; let parentName: String?; let inherited: Inherited; let depth: Int }
        var stack: [Step] = top.reversed().map { Step(object: $0, parentName: nil, inherited: formInherited, depth: 1) }
        while let step = stack.popLast() {
            nodes += 1
            guard nodes <= FormLimits.maxFieldNodes else {
                throw PDFError(limit: "max_field_nodes", FormLimits.maxFieldNodes, "the dictionaries of the field tree")
            }
            guard step.depth <= FormLimits.maxFieldDepth else {
                throw PDFError(limit: "max_field_depth", FormLimits.maxFieldDepth, "the depth of the field tree")
            }
            guard let id = step.object.reference else {
                if step.object.dictionary != nil || (try? dictionary(step.object)) != nil {
                    file.warn("a field that is not an indirect object is skipped")
                }
                continue
            }
            guard !seen.contains(id.number) else {
                file.warn("the field tree lists object \(id.number) twice (a cycle or a shared kid); listed once")
                continue
            }
            seen.insert(id.number)
            guard let d = try dictionary(step.object) else { continue }
            let partial = d["T"].flatMap { try? resolve($0).string?.text }
            let name: String?
            switch (step.parentName, partial) {
            case (let p?, let t?): name = p + "." + t
            case (nil, let t?): name = t
            case (let p, nil): name = p
            }
            let inherited = step.inherited.merged(with: d)
            let kids = try d["Kids"].map { try resolve($0).array ?? [] } ?? []
            // Kids with /T are fields; kids without it are this field's widgets.
            var fieldKids: [PDFObject] = []
            var widgetKids: [(ObjectID, PDFDictionary)] = []
            for kid in kids {
                guard let kd = try dictionary(kid) else { continue }
                if kd["T"] != nil || (kd["Kids"] != nil && kd["Subtype"]?.name != "Widget") {
                    fieldKids.append(kid)
                } else if let kidID = kid.reference {
                    guard !seen.contains(kidID.number) else {
                        file.warn("widget object \(kidID.number) is listed twice in the field tree; listed once")
                        continue
                    }
                    seen.insert(kidID.number)
                    nodes += 1
                    widgetKids.append((kidID, kd))
                }
            }
            if !fieldKids.isEmpty {
                for kid in fieldKids.reversed() {
                    stack.append(Step(object: kid, parentName: name, inherited: inherited, depth: step.depth + 1))
                }
                if widgetKids.isEmpty { continue }
            }
            var widgets = widgetKids
            if kids.isEmpty { widgets = [(id, d)] }  // a field merged with its only widget
            guard !widgets.isEmpty || kids.isEmpty else { continue }
            out.append(try makeField(id: id, dictionary: d, name: name ?? "", inherited: inherited,
                                     widgets: widgets, pageOf: pageOf))
        }
        return merged(out)
    }

    /// Terminal fields that share a fully qualified name are one field (a node without /T
    /// between a field and its widgets makes a second terminal field of the same name;
    /// PDFium joins them too): the first keeps its object and value and gets the widgets
    /// and options of the others.
    private func merged(_ fields: [FormField]) -> [FormField] {
        var firstIndex: [String: Int] = [:]
        var out: [FormField] = []
        for f in fields {
            guard !f.name.isEmpty, let i = firstIndex[f.name], out[i].type == f.type else {
                if !f.name.isEmpty && firstIndex[f.name] == nil { firstIndex[f.name] = out.count }
                out.append(f)
                continue
            }
            let first = out[i]
            var options = first.options
            for o in f.options where !options.contains(o) { options.append(o) }
            var joined = FormField(id: first.id, name: first.name, alternateName: first.alternateName, type: first.type,
                               flags: first.flags, values: first.values, defaultValues: first.defaultValues,
                               options: options, maxLength: first.maxLength, defaultAppearance: first.defaultAppearance,
                               quadding: first.quadding, widgets: first.widgets + f.widgets.filter { w in !first.widgets.contains(w) })
            joined.sameNameIDs = first.sameNameIDs + (f.id == first.id ? [] : [f.id])
            out[i] = joined
        }
        return out
    }

    /// The field with fully qualified name `name`.
    public func formField(named name: String) throws -> FormField {
        let table = try formFieldTable()
        guard let i = table.indexByName[name] else {
            throw PDFError(.notFound, "no field is named \"\(name)\"")
        }
        return table.fields[i]
    }

    /// The page index of every annotation object listed in a page's /Annots.
    private func widgetPages() throws -> [Int: Int] {
        var map: [Int: Int] = [:]
        for page in try pages() {
            guard let annots = page.dictionary["Annots"], let array = try resolve(annots).array else { continue }
            for item in array { if let r = item.reference, map[r.number] == nil { map[r.number] = page.index } }
        }
        return map
    }

    private func makeField(id: ObjectID, dictionary d: PDFDictionary, name: String, inherited: Inherited,
                           widgets: [(ObjectID, PDFDictionary)], pageOf: [Int: Int]) throws -> FormField {
        let flags = FieldFlags(rawValue: UInt32(truncatingIfNeeded: (try inherited.ff.map(resolve)?.integer) ?? 0))
        let type: FieldType
        switch inherited.ft?.value {
        case "Tx": type = .text
        case "Ch": type = flags.contains(.combo) ? .comboBox : .listBox
        case "Sig": type = .signature
        case "Btn":
            type = flags.contains(.pushButton) ? .pushButton : flags.contains(.radio) ? .radioButton : .checkBox
        default: type = .unknown
        }
        var fieldWidgets: [FieldWidget] = []
        for (wid, wd) in widgets {
            let rect = (try? self.rect(wd["Rect"])) ?? nil
            var states: [String] = []
            if let ap = try dictionary(wd["AP"]), let n = ap["N"], case .dictionary(let states_) = try resolve(n) {
                states = states_.keys.map(\.value).filter { $0 != "Off" }
            }
            fieldWidgets.append(FieldWidget(id: wid, pageIndex: pageOf[wid.number], rect: rect ?? Rect(left: 0, bottom: 0, right: 0, top: 0),
                                            onStates: states))
        }
        let opt = try optionList(inherited.opt)
        var options: [FieldOption] = []
        switch type {
        case .comboBox, .listBox:
            options = opt
        case .checkBox, .radioButton:
            // On-states in first-seen order; through /Opt (an export value per widget) when
            // the states are indices into it.
            var names: [String] = []
            for w in fieldWidgets { for s in w.onStates where !names.contains(s) { names.append(s) } }
            options = names.map { s in
                if let i = Int(s), i >= 0, i < opt.count { return FieldOption(exportValue: s, displayText: opt[i].exportValue) }
                return FieldOption(exportValue: s, displayText: s)
            }
        default:
            break
        }
        let values = try fieldValues(inherited.v, type: type)
        let defaults = try fieldValues(inherited.dv, type: type)
        let maxLen = try inherited.maxLen.map(resolve)?.integer.map { Int(clamping: $0) }
        let da = try inherited.da.map(resolve)?.string?.text
        let q = Int(clamping: (try inherited.q.map(resolve)?.integer) ?? 0)
        let tu = try d["TU"].map(resolve)?.string?.text
        return FormField(id: id, name: name, alternateName: tu, type: type, flags: flags,
                         values: type == .checkBox || type == .radioButton ? (values.isEmpty ? ["Off"] : values) : values,
                         defaultValues: defaults, options: options, maxLength: maxLen, defaultAppearance: da,
                         quadding: (0...2).contains(q) ? q : 0, widgets: fieldWidgets)
    }

    private func optionList(_ value: PDFObject?) throws -> [FieldOption] {
        guard let value, let array = try resolve(value).array else { return [] }
        var out: [FieldOption] = []
        for item in array.prefix(FormLimits.maxFieldNodes) {
            switch try resolve(item) {
            case .string(let s): out.append(FieldOption(exportValue: s.text, displayText: s.text))
            case .array(let pair) where pair.count >= 2:
                let e = (try resolve(pair[0]).string?.text) ?? ""
                let t = (try resolve(pair[1]).string?.text) ?? e
                out.append(FieldOption(exportValue: e, displayText: t))
            case .name(let n): out.append(FieldOption(exportValue: n.value, displayText: n.value))
            default: continue
            }
        }
        return out
    }

    private func fieldValues(_ value: PDFObject?, type: FieldType) throws -> [String] {
        guard let value else { return [] }
        switch try resolve(value) {
        case .string(let s): return [s.text]
        case .name(let n): return [n.value]
        case .array(let items):
            return try items.prefix(FormLimits.maxFieldNodes).compactMap { item in
                switch try resolve(item) {
                case .string(let s): return s.text
                case .name(let n): return n.value
                default: return nil
                }
            }
        case .stream(let s) where type == .text:
            return [PDFString(bytes: (try? streamData(s, decoded: true)) ?? []).text]
        case .dictionary where type == .signature:
            return ["signed"]
        default:
            return []
        }
    }

    // MARK: Changing values

    /// Sets the value of the field named `name` (see ``setFieldValues(_:of:)``).
    public func setFieldValue(_ value: String, named name: String) throws {
        let field = try formField(named: name)
        try setFieldValues(field.type == .listBox && value.contains("\n")
                           ? value.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) : [value],
                           of: field)
    }

    /// Sets a field's value with the rules of ISO 32000-2 §12.7 and regenerates the
    /// appearances of its widgets:
    ///
    /// - read-only fields, push buttons, signatures and fields of unknown type are refused
    ///   (``PDFErrorKind/state``, ``PDFErrorKind/unsupported``);
    /// - text: one string, at most /MaxLen characters when there is one (a longer value is
    ///   refused with ``PDFErrorKind/range``);
    /// - check boxes and radio buttons: "Off" or one of the on-states (or its export value
    ///   through /Opt); a radio group turns on the widgets with that state and the others
    ///   off; "Off" is refused for a radio group with NoToggleToOff;
    /// - combo boxes: one of the options (export value or display text), or any text with
    ///   the Edit flag; list boxes: options only, several only with MultiSelect.
    ///
    /// The changes are one batch of the document's editing path (checkpoints see them).
    public func setFieldValues(_ values: [String], of field: FormField) throws {
        if field.isReadOnly {
            throw PDFError(.state, "field \"\(field.name)\" is read-only")
        }
        try checkCertification(allows: .formFilling)
        noteModification(.formFilling)
        try batch {
            switch field.type {
            case .text:
                guard values.count == 1, let text = values.first else {
                    throw PDFError(.invalidArgument, "a text field takes one value, not \(values.count)")
                }
                guard text.count <= FormLimits.maxTextLength else {
                    throw PDFError(limit: "max_text_length", FormLimits.maxTextLength, "the characters of a text field's value")
                }
                if let m = field.maxLength, m >= 0, text.count > m {
                    throw PDFError(.range, "field \"\(field.name)\" takes at most \(m) characters (/MaxLen); the value has \(text.count)")
                }
                // The appearance first: a character no font has fails here, before /V changed.
                try regenerateTextAppearances(field, text: text)
                try setFieldEntry("V", .string(PDFString(text: text)), of: field)
            case .checkBox, .radioButton:
                guard values.count == 1, let raw = values.first else {
                    throw PDFError(.invalidArgument, "a button takes one value, not \(values.count)")
                }
                var state = raw
                if raw != "Off", !field.options.contains(where: { $0.exportValue == raw }) {
                    if let o = field.options.first(where: { $0.displayText == raw }) {
                        state = o.exportValue
                    } else if field.options.isEmpty && field.type == .checkBox {
                        state = raw  // no appearance states: one is generated for it
                    } else {
                        let choices = (["Off"] + field.options.map(\.exportValue)).joined(separator: ", ")
                        throw PDFError(.invalidArgument, "\"\(raw)\" is not a state of field \"\(field.name)\" (\(choices))")
                    }
                }
                if state == "Off" && field.type == .radioButton && field.flags.contains(.noToggleToOff) && field.values != ["Off"] {
                    throw PDFError(.state, "radio group \"\(field.name)\" cannot be turned off (NoToggleToOff)")
                }
                try setFieldEntry("V", .name(PDFName(state)), of: field)
                try setButtonStates(field, state: state)
            case .comboBox, .listBox:
                var exports: [String] = []
                for v in values {
                    if let o = field.options.first(where: { $0.exportValue == v }) ?? field.options.first(where: { $0.displayText == v }) {
                        exports.append(o.exportValue)
                    } else if field.type == .comboBox && field.flags.contains(.edit) {
                        exports.append(v)
                    } else {
                        throw PDFError(.invalidArgument, "\"\(v)\" is not an option of field \"\(field.name)\"")
                    }
                }
                if field.type == .comboBox && exports.count != 1 {
                    throw PDFError(.invalidArgument, "a combo box takes one value, not \(exports.count)")
                }
                if exports.count > 1 && !field.flags.contains(.multiSelect) {
                    throw PDFError(.invalidArgument, "list box \"\(field.name)\" is not multi-select: one value, not \(exports.count)")
                }
                let value: PDFObject = exports.count == 1 ? .string(PDFString(text: exports[0]))
                    : .array(exports.map { .string(PDFString(text: $0)) })
                let indices = exports.compactMap { e in field.options.firstIndex(where: { $0.exportValue == e }) }.sorted()
                // The appearance first: a character no font has fails here, before /V changed.
                if field.type == .comboBox {
                    let shown = field.options.first(where: { $0.exportValue == exports[0] })?.displayText ?? exports[0]
                    try regenerateTextAppearances(field, text: shown)
                } else {
                    try regenerateListAppearances(field, selected: Set(indices))
                }
                try setFieldEntry("V", exports.isEmpty ? nil : value, of: field)
                try setFieldEntry("I", indices.isEmpty || field.type == .comboBox ? nil : .array(indices.map { .integer(Int64($0)) }), of: field)
            case .pushButton:
                throw PDFError(.unsupported, "push button \"\(field.name)\" has no value")
            case .signature:
                throw PDFError(.unsupported, "signature field \"\(field.name)\" is read-only information: Quire does not sign")
            case .unknown:
                throw PDFError(.unsupported, "field \"\(field.name)\" has no known type (/FT)")
            }
        }
    }

    /// Resets a field to its default value (/DV), or clears it when it has none.
    public func resetField(_ field: FormField) throws {
        if field.isReadOnly { throw PDFError(.state, "field \"\(field.name)\" is read-only") }
        try checkCertification(allows: .formFilling)
        noteModification(.formFilling)
        switch field.type {
        case .checkBox, .radioButton:
            let dv = field.defaultValues.first ?? "Off"
            try batch {
                try setFieldEntry("V", .name(PDFName(dv)), of: field)
                try setButtonStates(field, state: dv)
            }
        case .text, .comboBox:
            if let dv = field.defaultValues.first {
                try setFieldValues([dv], of: field)
            } else {
                try batch {
                    try setFieldEntry("V", nil, of: field)
                    try regenerateTextAppearances(field, text: "")
                }
            }
        case .listBox:
            try setFieldValues(field.defaultValues, of: field)
        case .pushButton, .signature, .unknown:
            break
        }
    }

    /// Sets `key` of the field's dictionary and of the other field objects of its name.
    private func setFieldEntry(_ key: PDFName, _ value: PDFObject?, of field: FormField) throws {
        for id in [field.id] + field.sameNameIDs {
            try setValue(value, forKey: key, inObject: id.number)
        }
    }

    /// Turns each widget's /AS to `state` where it has that appearance state, else Off.
    /// A check box whose widgets have no appearance states gets generated ones.
    private func setButtonStates(_ field: FormField, state: String) throws {
        for w in field.widgets {
            let hasState = w.onStates.contains(state)
            if !hasState && w.onStates.isEmpty && field.type == .checkBox && state != "Off" {
                try generateCheckAppearance(field, widget: w, onState: state)
            }
            try setValue(.name(PDFName(hasState || (w.onStates.isEmpty && field.type == .checkBox) ? state : "Off")),
                         forKey: "AS", inObject: w.id.number)
        }
    }
}

