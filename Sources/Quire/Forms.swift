// Forms of include/quire.h: conversions only; the model lives in QuireDocument/Forms.
import CQuire
import QuireDocument
import QuireSyntax

/// Field `index` of the document's form.
private func field(_ doc: OpaquePointer?, _ index: Int32) throws -> (Document, FormField) {
    let d = try document(doc)
    return (d, try element(try d.formFields(), index, "field"))
}

private func fieldType(_ t: FieldType) -> quire_field_kind {
    switch t {
    case .text: return QUIRE_FIELD_TEXT
    case .checkBox: return QUIRE_FIELD_CHECK_BOX
    case .radioButton: return QUIRE_FIELD_RADIO_BUTTON
    case .comboBox: return QUIRE_FIELD_COMBO_BOX
    case .listBox: return QUIRE_FIELD_LIST_BOX
    case .pushButton: return QUIRE_FIELD_PUSH_BUTTON
    case .signature: return QUIRE_FIELD_SIGNATURE
    case .unknown: return QUIRE_FIELD_UNKNOWN
    }
}

@c @implementation
public func quire_document_form_kind(_ out: UnsafeMutablePointer<quire_form_kind>?, _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_form_kind") {
        let out = try required(out, "out")
        switch try document(doc).formKind() {
        case .none: out.pointee = QUIRE_FORM_NONE
        case .acroForm: out.pointee = QUIRE_FORM_ACROFORM
        case .xfaForeground: out.pointee = QUIRE_FORM_XFA_FOREGROUND
        case .xfaOnly: out.pointee = QUIRE_FORM_XFA_ONLY
        }
    }
}

@c @implementation
public func quire_document_field_count(_ out: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_field_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try document(doc).formFields().count)
    }
}

@c @implementation
public func quire_document_field_index(_ out: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_document_field_index") {
        let out = try required(out, "out")
        let name = String(cString: try required(name, "name"))
        guard let i = try document(doc).formFieldIndex(named: name) else {
            throw CallError(code: QUIRE_ENOTFOUND, message: "no field is named \"\(name)\"")
        }
        out.pointee = Int32(clamping: i)
    }
}

@c @implementation
public func quire_field_name(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                             _ doc: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_field_name") {
        try copyOut(try field(doc, index).1.name, buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_field_get_kind(_ out: UnsafeMutablePointer<quire_field_kind>?, _ doc: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_field_get_kind") {
        let out = try required(out, "out")
        out.pointee = fieldType(try field(doc, index).1.type)
    }
}

@c @implementation
public func quire_field_flags(_ out: UnsafeMutablePointer<UInt32>?, _ doc: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_field_flags") {
        let out = try required(out, "out")
        out.pointee = try field(doc, index).1.flags.rawValue
    }
}

@c @implementation
public func quire_field_max_length(_ out: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_field_max_length") {
        let out = try required(out, "out")
        let f = try field(doc, index).1
        out.pointee = f.type == .text ? f.maxLength.map { Int32(clamping: $0) } ?? -1 : -1
    }
}

@c @implementation
public func quire_field_value_count(_ out: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_field_value_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try field(doc, index).1.values.count)
    }
}

@c @implementation
public func quire_field_value(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                              _ doc: OpaquePointer?, _ index: Int32, _ valueIndex: Int32) -> Int32 {
    guarded("quire_field_value") {
        try copyOut(try element(try field(doc, index).1.values, valueIndex, "value"), buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_field_option_count(_ out: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_field_option_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try field(doc, index).1.options.count)
    }
}

@c @implementation
public func quire_field_option(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                               _ doc: OpaquePointer?, _ index: Int32, _ optionIndex: Int32,
                               _ part: quire_field_option_part) -> Int32 {
    guarded("quire_field_option") {
        guard part == QUIRE_FIELD_OPTION_EXPORT || part == QUIRE_FIELD_OPTION_DISPLAY else {
            throw unknownField(part, "quire_field_option_part")
        }
        let option = try element(try field(doc, index).1.options, optionIndex, "option")
        try copyOut(part == QUIRE_FIELD_OPTION_EXPORT ? option.exportValue : option.displayText, buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_field_widget_count(_ out: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_field_widget_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try field(doc, index).1.widgets.count)
    }
}

@c @implementation
public func quire_field_widget(_ outPageIndex: UnsafeMutablePointer<Int32>?, _ outRect: UnsafeMutablePointer<quire_rect>?,
                               _ doc: OpaquePointer?, _ index: Int32, _ widgetIndex: Int32) -> Int32 {
    guarded("quire_field_widget") {
        let w = try element(try field(doc, index).1.widgets, widgetIndex, "widget")
        outPageIndex?.pointee = w.pageIndex.map { Int32(clamping: $0) } ?? -1
        outRect?.pointee = quire_rect(left: w.rect.left, bottom: w.rect.bottom, right: w.rect.right, top: w.rect.top)
    }
}

@c @implementation
public func quire_field_set_value(_ doc: OpaquePointer?, _ index: Int32, _ value: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_field_set_value") {
        let value = String(cString: try required(value, "value"))
        let (d, f) = try field(doc, index)
        try d.setFieldValues([value], of: f)
    }
}

@c @implementation
public func quire_field_set_values(_ doc: OpaquePointer?, _ index: Int32, _ values: UnsafePointer<UnsafePointer<CChar>?>?,
                                   _ count: Int32) -> Int32 {
    guarded("quire_field_set_values") {
        guard count >= 0, values != nil || count == 0 else {
            throw CallError(code: QUIRE_EINVAL, message: "values is NULL but count is \(count)")
        }
        var strings: [String] = []
        for k in 0..<Int(count) {
            guard let p = values?[k] else { throw CallError(code: QUIRE_EINVAL, message: "values[\(k)] is NULL") }
            strings.append(String(cString: p))
        }
        let (d, f) = try field(doc, index)
        try d.setFieldValues(strings, of: f)
    }
}

@c @implementation
public func quire_document_flatten(_ outCount: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?,
                                   _ options: UnsafePointer<quire_flatten_options>?) -> Int32 {
    guarded("quire_document_flatten") {
        let d = try document(doc)
        let o = try options.map { try flattenOptionsVersions.read($0, defaults: flattenOptionsDefaults).value } ?? flattenOptionsDefaults
        let chosen = o.subtypes.map { Set(String(cString: $0).split(separator: ",").map { $0.trimmingCharacters() }.filter { !$0.isEmpty }) }
        let n = try d.flatten(FlattenOptions(subtypes: chosen, keepLinks: o.keep_links != 0),
                              progress: progressHandler(o.progress, o.progress_payload, "flatten", "the document is as it was"))
        outCount?.pointee = Int32(clamping: n)
    }
}

@c @implementation
public func quire_document_export_xfdf(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                       _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_export_xfdf") {
        try copyOut(try document(doc).exportXFDF(), buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_document_import_xfdf(_ outCount: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?,
                                       _ xfdf: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
    guarded("quire_document_import_xfdf") {
        let d = try document(doc)
        guard xfdf != nil || length == 0 else { throw CallError(code: QUIRE_EINVAL, message: "xfdf is NULL") }
        // A size_t past SSIZE_MAX arrives negative: refused, never a copy of that count.
        guard length >= 0 else { throw CallError(code: QUIRE_EINVAL, message: "length \(UInt(bitPattern: length)) is too large") }
        let bytes = xfdf.map { p in p.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) } } ?? []
        let n = try d.importXFDF(bytes)
        outCount?.pointee = Int32(clamping: n)
    }
}

extension Substring {
    fileprivate func trimmingCharacters() -> String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}

@c @implementation
public func quire_field_reset(_ doc: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_field_reset") {
        let (d, f) = try field(doc, index)
        try d.resetField(f)
    }
}
