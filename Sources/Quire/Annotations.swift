// Annotations, replies and review states of include/quire.h: conversions only; the model
// lives in QuireDocument/Annotations.
import CQuire
import QuireDocument
import QuireSyntax
#if canImport(Glibc)
import Glibc
#endif

/// What a `quire_annotation *` points at: a snapshot the caller owns and may change.
final class AnnotationBox {
    var annotation: Annotation
    init(_ annotation: Annotation) { self.annotation = annotation }
}

/// What a `quire_annotation_list *` points at.
final class AnnotationListBox {
    let items: [Annotation]
    init(_ items: [Annotation]) { self.items = items }
}

func box(_ handle: OpaquePointer?) throws -> AnnotationBox {
    let handle = try required(handle, "annotation")
    return Unmanaged<AnnotationBox>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
}

func give(_ annotation: Annotation, _ out: UnsafeMutablePointer<OpaquePointer?>?) {
    out?.pointee = OpaquePointer(Unmanaged.passRetained(AnnotationBox(annotation)).toOpaque())
}

func giveList(_ items: [Annotation], _ out: UnsafeMutablePointer<OpaquePointer?>?) {
    out?.pointee = OpaquePointer(Unmanaged.passRetained(AnnotationListBox(items)).toOpaque())
}

func list(_ handle: OpaquePointer?) throws -> AnnotationListBox {
    let handle = try required(handle, "list")
    return Unmanaged<AnnotationListBox>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
}

func cText(_ s: UnsafePointer<CChar>?) -> String? { s.map { String(cString: $0) } }

/// An object number argument that names an annotation.
func annotationID(_ doc: Document, _ number: Int32) throws -> ObjectID {
    guard number > 0, let annotation = try doc.annotation(ObjectID(Int(number))), let id = annotation.id else {
        throw CallError(code: QUIRE_ENOTFOUND, message: "no annotation is object \(number)")
    }
    return id
}

/// Copies numbers to the caller with the length-query pattern for numbers.
func copyOut(numbers: [Double], _ buf: UnsafeMutablePointer<Double>?, _ capacity: Int,
             _ outCount: UnsafeMutablePointer<Int>?) throws {
    try copyOut(numbers, buf, capacity, outCount, terminator: nil, unit: "numbers")
}

func numbersArgument(_ pointer: UnsafePointer<Double>?, _ count: Int, even: Bool = true) throws -> [Double] {
    guard count >= 0, pointer != nil || count == 0 else { throw CallError(code: QUIRE_EINVAL, message: "points is NULL but count is \(count)") }
    guard !even || count % 2 == 0 else { throw CallError(code: QUIRE_EINVAL, message: "\(count) numbers: x, y pairs need an even count") }
    let values = pointer.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    guard values.allSatisfy(\.isFinite) else { throw CallError(code: QUIRE_EINVAL, message: "a point is not a finite number") }
    return values
}

// MARK: Values

@c @implementation
public func quire_annotation_new(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ subtype: UnsafePointer<CChar>?,
                                 _ pageIndex: Int32, _ rect: UnsafePointer<quire_rect>?) -> Int32 {
    guarded("quire_annotation_new") {
        let out = try required(out, "out")
        let subtype = String(cString: try required(subtype, "subtype"))
        guard !subtype.isEmpty else { throw CallError(code: QUIRE_EINVAL, message: "subtype is empty") }
        let r = try required(rect, "rect").pointee
        guard pageIndex >= 0 else { throw CallError(code: QUIRE_EINVAL, message: "page_index \(pageIndex) is negative") }
        guard [r.left, r.bottom, r.right, r.top].allSatisfy(\.isFinite) else {
            throw CallError(code: QUIRE_EINVAL, message: "rect has a coordinate that is not finite")
        }
        give(Annotation(subtype: subtype, pageIndex: Int(pageIndex), rect: Rect(left: r.left, bottom: r.bottom, right: r.right, top: r.top)), out)
    }
}

@c @implementation
public func quire_annotation_free(_ annotation: OpaquePointer?) {
    guard let annotation else { return }
    Unmanaged<AnnotationBox>.fromOpaque(UnsafeRawPointer(annotation)).release()
}

@c @implementation
public func quire_page_annotation(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ doc: OpaquePointer?, _ pageIndex: Int32,
                                  _ index: Int32) -> Int32 {
    guarded("quire_page_annotation") {
        let out = try required(out, "out")
        let d = try document(doc)
        _ = try d.page(at: Int(pageIndex))
        give(try element(try d.annotations(onPage: Int(pageIndex)), index, "annotation"), out)
    }
}

@c @implementation
public func quire_document_annotation(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ doc: OpaquePointer?, _ number: Int32) -> Int32 {
    guarded("quire_document_annotation") {
        let out = try required(out, "out")
        let d = try document(doc)
        guard let a = try d.annotation(try annotationID(d, number)) else {
            throw CallError(code: QUIRE_ENOTFOUND, message: "no annotation is object \(number)")
        }
        give(a, out)
    }
}

@c @implementation
public func quire_annotation_id(_ outNumber: UnsafeMutablePointer<Int32>?, _ annotation: OpaquePointer?) -> Int32 {
    guarded("quire_annotation_id") {
        let out = try required(outNumber, "out_number")
        guard let id = try box(annotation).annotation.id else {
            throw CallError(code: QUIRE_ENOTFOUND, message: "the annotation is not an object of a document (not added yet, or written directly in /Annots)")
        }
        out.pointee = Int32(clamping: id.number)
    }
}

@c @implementation
public func quire_annotation_page_index(_ out: UnsafeMutablePointer<Int32>?, _ annotation: OpaquePointer?) -> Int32 {
    guarded("quire_annotation_page_index") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try box(annotation).annotation.pageIndex)
    }
}

@c @implementation
public func quire_annotation_subtype(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                     _ annotation: OpaquePointer?) -> Int32 {
    guarded("quire_annotation_subtype") {
        _ = try required(outLen, "out_len")
        try copyOut(try box(annotation).annotation.subtype, buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_annotation_rect(_ out: UnsafeMutablePointer<quire_rect>?, _ annotation: OpaquePointer?) -> Int32 {
    guarded("quire_annotation_rect") {
        let out = try required(out, "out")
        let r = try box(annotation).annotation.rect
        out.pointee = quire_rect(left: r.left, bottom: r.bottom, right: r.right, top: r.top)
    }
}

@c @implementation
public func quire_annotation_set_rect(_ annotation: OpaquePointer?, _ rect: UnsafePointer<quire_rect>?) -> Int32 {
    guarded("quire_annotation_set_rect") {
        let b = try box(annotation)
        let r = try required(rect, "rect").pointee
        guard [r.left, r.bottom, r.right, r.top].allSatisfy(\.isFinite) else {
            throw CallError(code: QUIRE_EINVAL, message: "rect has a coordinate that is not finite")
        }
        b.annotation.rect = Rect(left: r.left, bottom: r.bottom, right: r.right, top: r.top)
    }
}

/// A constant that is not of the family the call takes (a constant of another family, or
/// any number, arriving through a binding).
func unknownField<F: RawRepresentable>(_ field: F, _ family: String) -> CallError where F.RawValue: BinaryInteger {
    CallError(code: QUIRE_EINVAL, message: "field 0x\(String(field.rawValue, radix: 16)) is not one of the \(family) values")
}

@c @implementation
public func quire_annotation_string(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                    _ annotation: OpaquePointer?, _ field: quire_annot_string_field) -> Int32 {
    guarded("quire_annotation_string") {
        _ = try required(outLen, "out_len")
        let a = try box(annotation).annotation
        let value: String?
        switch field {
        case QUIRE_ANNOT_CONTENTS: value = a.contents
        case QUIRE_ANNOT_AUTHOR: value = a.author
        case QUIRE_ANNOT_SUBJECT: value = a.subject
        case QUIRE_ANNOT_UNIQUE_NAME: value = a.name
        case QUIRE_ANNOT_CREATION_DATE: value = a.creationDate?.description
        case QUIRE_ANNOT_MODIFICATION_DATE: value = a.modificationDate?.description
        case QUIRE_ANNOT_STATE: value = a.state
        case QUIRE_ANNOT_STATE_MODEL: value = a.stateModel
        case QUIRE_ANNOT_REPLY_TYPE: value = a.isReply ? (a.replyType ?? .reply).rawValue : nil
        case QUIRE_ANNOT_DEFAULT_APPEARANCE: value = a.defaultAppearance
        case QUIRE_ANNOT_ICON: value = a.iconName
        case QUIRE_ANNOT_LINE_START: value = a.lineEndings.first
        case QUIRE_ANNOT_LINE_END: value = a.lineEndings.count > 1 ? a.lineEndings[1] : nil
        case QUIRE_ANNOT_CUSTOM_DATA: value = a.customData
        case QUIRE_ANNOT_IN_REPLY_TO_ID: value = a.inReplyTo == nil ? a.inReplyToID : nil
        case QUIRE_ANNOT_BORDER_STYLE: value = a.borderStyle
        case QUIRE_ANNOT_SYMBOL: value = a.symbol
        case QUIRE_ANNOT_INTENT: value = a.intent
        case QUIRE_ANNOT_FILE_NAME: value = a.file?.name ?? a.fileInfo?.name
        case QUIRE_ANNOT_FILE_DESCRIPTION: value = a.file.map { $0.description } ?? a.fileInfo?.description
        case QUIRE_ANNOT_FILE_CONTENT_TYPE: value = a.file.map { $0.contentType } ?? a.fileInfo?.contentType
        case QUIRE_ANNOT_OVERLAY_TEXT: value = a.overlayText
        case QUIRE_ANNOT_MEASURE_FROM_UNIT: value = a.measurement?.fromUnit
        case QUIRE_ANNOT_MEASURE_TO_UNIT: value = a.measurement?.toUnit
        case QUIRE_ANNOT_BLEND_MODE: value = a.blendMode
        case QUIRE_ANNOT_RICH_TEXT: value = a.richText
        case QUIRE_ANNOT_CAPTION_POSITION: value = a.captionPosition
        case QUIRE_ANNOT_DEFAULT_STYLE: value = a.defaultStyle
        default: throw unknownField(field, "quire_annot_string_field")
        }
        guard let value else { throw CallError(code: QUIRE_ENOTFOUND, message: "the field 0x\(String(field.rawValue, radix: 16)) is not set") }
        try copyOut(value, buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_annotation_set_string(_ annotation: OpaquePointer?, _ field: quire_annot_string_field, _ text: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_annotation_set_string") {
        let b = try box(annotation)
        let value = cText(text)
        func date() throws -> PDFDate? {
            guard let value else { return nil }
            guard let d = PDFDate.strict(value) else { throw CallError(code: QUIRE_EINVAL, message: "'\(value)' is not a PDF date (D:YYYYMMDDHHmmSSOHH'mm)") }
            return d
        }
        func ending(_ k: Int) {
            var le = b.annotation.lineEndings
            while le.count < 2 { le.append("None") }
            le[k] = value ?? "None"
            b.annotation.lineEndings = le.allSatisfy { $0 == "None" } ? [] : le
        }
        switch field {
        case QUIRE_ANNOT_CONTENTS: b.annotation.contents = value
        case QUIRE_ANNOT_AUTHOR: b.annotation.author = value
        case QUIRE_ANNOT_SUBJECT: b.annotation.subject = value
        case QUIRE_ANNOT_UNIQUE_NAME: b.annotation.name = value
        case QUIRE_ANNOT_CREATION_DATE: b.annotation.creationDate = try date()
        case QUIRE_ANNOT_MODIFICATION_DATE: b.annotation.modificationDate = try date()
        case QUIRE_ANNOT_STATE: b.annotation.state = value
        case QUIRE_ANNOT_STATE_MODEL: b.annotation.stateModel = value
        case QUIRE_ANNOT_REPLY_TYPE:
            guard let value else { b.annotation.replyType = nil; return }
            guard let rt = ReplyType(rawValue: value) else { throw CallError(code: QUIRE_EINVAL, message: "reply type '\(value)' is not R or Group") }
            b.annotation.replyType = rt
        case QUIRE_ANNOT_DEFAULT_APPEARANCE: b.annotation.defaultAppearance = value
        case QUIRE_ANNOT_ICON: b.annotation.iconName = value
        case QUIRE_ANNOT_LINE_START: ending(0)
        case QUIRE_ANNOT_LINE_END: ending(1)
        case QUIRE_ANNOT_CUSTOM_DATA: b.annotation.customData = value
        case QUIRE_ANNOT_IN_REPLY_TO_ID:
            throw CallError(code: QUIRE_EINVAL, message: "QUIRE_ANNOT_IN_REPLY_TO_ID is read-only (quire_document_set_in_reply_to links a reply)")
        case QUIRE_ANNOT_BORDER_STYLE:
            if let value { try Annotation.validate(borderStyle: value) }
            b.annotation.borderStyle = value
        case QUIRE_ANNOT_SYMBOL:
            if let value { try Annotation.validate(symbol: value) }
            b.annotation.symbol = value
        case QUIRE_ANNOT_INTENT:
            if let value { try Annotation.validate(intent: value) }
            b.annotation.intent = value
        case QUIRE_ANNOT_FILE_NAME, QUIRE_ANNOT_FILE_DESCRIPTION, QUIRE_ANNOT_FILE_CONTENT_TYPE:
            throw CallError(code: QUIRE_EINVAL, message: "the file's fields are read-only (quire_annotation_set_file gives the file with them)")
        case QUIRE_ANNOT_OVERLAY_TEXT: b.annotation.overlayText = value
        case QUIRE_ANNOT_MEASURE_FROM_UNIT, QUIRE_ANNOT_MEASURE_TO_UNIT:
            throw CallError(code: QUIRE_EINVAL, message: "the scale's units are read-only (quire_annotation_set_measurement sets the scale)")
        case QUIRE_ANNOT_BLEND_MODE:
            if let value { try Annotation.validate(blendMode: value) }
            b.annotation.blendMode = value
        case QUIRE_ANNOT_RICH_TEXT:
            guard let value else { b.annotation.richText = nil; return }
            try b.annotation.setRichText(value)
        case QUIRE_ANNOT_CAPTION_POSITION:
            if let value { try Annotation.validate(captionPosition: value) }
            b.annotation.captionPosition = value
        case QUIRE_ANNOT_DEFAULT_STYLE: b.annotation.defaultStyle = value
        default: throw unknownField(field, "quire_annot_string_field")
        }
    }
}

@c @implementation
public func quire_annotation_number(_ out: UnsafeMutablePointer<Double>?, _ annotation: OpaquePointer?,
                                    _ field: quire_annot_number_field) -> Int32 {
    guarded("quire_annotation_number") {
        let out = try required(out, "out")
        let a = try box(annotation).annotation
        let value: Double?
        switch field {
        case QUIRE_ANNOT_OPACITY: value = a.opacity
        case QUIRE_ANNOT_BORDER_WIDTH: value = a.borderWidth
        case QUIRE_ANNOT_FONT_SIZE: value = a.fontSize
        case QUIRE_ANNOT_FLAGS: value = Double(a.flags)
        case QUIRE_ANNOT_CLOUDY_INTENSITY: value = a.cloudyIntensity
        case QUIRE_ANNOT_ALIGNMENT: value = a.alignment.map(Double.init)
        case QUIRE_ANNOT_REPEAT: value = a.repeatsOverlayText ? 1 : 0
        case QUIRE_ANNOT_MEASURE_FROM_VALUE: value = a.measurement?.fromValue
        case QUIRE_ANNOT_MEASURE_TO_VALUE: value = a.measurement?.toValue
        case QUIRE_ANNOT_MEASURE_PRECISION: value = a.measurement.map { Double($0.precision) }
        case QUIRE_ANNOT_MEASURED_VALUE: value = a.measuredValue
        case QUIRE_ANNOT_ROTATION: value = Double(a.rotation)
        case QUIRE_ANNOT_CAPTION: value = a.caption ? 1 : 0
        default: throw unknownField(field, "quire_annot_number_field")
        }
        guard let value else { throw CallError(code: QUIRE_ENOTFOUND, message: "the field 0x\(String(field.rawValue, radix: 16)) is not set") }
        out.pointee = value
    }
}

@c @implementation
public func quire_annotation_set_number(_ annotation: OpaquePointer?, _ field: quire_annot_number_field, _ value: Double) -> Int32 {
    guarded("quire_annotation_set_number") {
        let b = try box(annotation)
        guard value.isFinite else { throw CallError(code: QUIRE_EINVAL, message: "the value is not a finite number") }
        switch field {
        case QUIRE_ANNOT_OPACITY:
            guard (0...1).contains(value) else { throw CallError(code: QUIRE_EINVAL, message: "opacity \(value) is not between 0 and 1") }
            b.annotation.opacity = value
        case QUIRE_ANNOT_BORDER_WIDTH:
            guard value >= 0 else { throw CallError(code: QUIRE_EINVAL, message: "border width \(value) is negative") }
            b.annotation.borderWidth = value
        case QUIRE_ANNOT_FLAGS:
            guard value >= 0, value <= Double(UInt32.max), value == value.rounded() else {
                throw CallError(code: QUIRE_EINVAL, message: "flags \(value) is not an unsigned 32-bit integer")
            }
            b.annotation.flags = Int(value)
        case QUIRE_ANNOT_FONT_SIZE:
            throw CallError(code: QUIRE_EINVAL, message: "the font size is read from the default appearance: set QUIRE_ANNOT_DEFAULT_APPEARANCE")
        case QUIRE_ANNOT_CLOUDY_INTENSITY:
            try Annotation.validate(cloudyIntensity: value)
            b.annotation.cloudyIntensity = value == 0 ? nil : value
        case QUIRE_ANNOT_ALIGNMENT:
            guard value == value.rounded(), let q = Int(exactly: value) else {
                throw CallError(code: QUIRE_EINVAL, message: "alignment \(value) is not 0, 1 or 2")
            }
            try Annotation.validate(alignment: q)
            b.annotation.alignment = q
        case QUIRE_ANNOT_REPEAT:
            guard value == 0 || value == 1 else { throw CallError(code: QUIRE_EINVAL, message: "repeat \(value) is not 0 or 1") }
            b.annotation.repeatsOverlayText = value == 1
        case QUIRE_ANNOT_MEASURE_FROM_VALUE, QUIRE_ANNOT_MEASURE_TO_VALUE, QUIRE_ANNOT_MEASURE_PRECISION:
            throw CallError(code: QUIRE_EINVAL, message: "the scale is set as a whole by quire_annotation_set_measurement")
        case QUIRE_ANNOT_MEASURED_VALUE:
            throw CallError(code: QUIRE_EINVAL, message: "the measured value is computed from the geometry and the scale")
        case QUIRE_ANNOT_ROTATION:
            guard value == value.rounded(), let turn = Int(exactly: value) else {
                throw CallError(code: QUIRE_EINVAL, message: "rotation \(value) is not 0, 90, 180 or 270")
            }
            try Annotation.validate(rotation: turn, subtype: b.annotation.subtype)
            b.annotation.rotation = turn
        case QUIRE_ANNOT_CAPTION:
            guard value == 0 || value == 1 else { throw CallError(code: QUIRE_EINVAL, message: "caption \(value) is not 0 or 1") }
            b.annotation.caption = value == 1
        default: throw unknownField(field, "quire_annot_number_field")
        }
    }
}

@c @implementation
public func quire_annotation_color(_ out: UnsafeMutablePointer<Double>?, _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?,
                                   _ annotation: OpaquePointer?, _ which: quire_annot_color_field) -> Int32 {
    guarded("quire_annotation_color") {
        _ = try required(outCount, "out_count")
        let a = try box(annotation).annotation
        let color: [Double]
        switch which {
        case QUIRE_ANNOT_COLOR: color = a.color ?? []
        case QUIRE_ANNOT_INTERIOR_COLOR: color = a.interiorColor ?? []
        default: throw unknownField(which, "quire_annot_color_field")
        }
        try copyOut(numbers: color.count <= 4 ? color : [], out, capacity, outCount)
    }
}

@c @implementation
public func quire_annotation_set_color(_ annotation: OpaquePointer?, _ which: quire_annot_color_field, _ components: UnsafePointer<Double>?,
                                       _ count: Int) -> Int32 {
    guarded("quire_annotation_set_color") {
        let b = try box(annotation)
        guard [0, 1, 3, 4].contains(count) else { throw CallError(code: QUIRE_EINVAL, message: "a colour has 0, 1, 3 or 4 components, not \(count)") }
        let c = try numbersArgument(components, count, even: false)
        guard c.allSatisfy({ (0...1).contains($0) }) else { throw CallError(code: QUIRE_EINVAL, message: "colour components are between 0 and 1") }
        switch which {
        case QUIRE_ANNOT_COLOR: b.annotation.color = c.isEmpty ? nil : c
        case QUIRE_ANNOT_INTERIOR_COLOR: b.annotation.interiorColor = c.isEmpty ? nil : c
        default: throw unknownField(which, "quire_annot_color_field")
        }
    }
}

@c @implementation
public func quire_annotation_points(_ buf: UnsafeMutablePointer<Double>?, _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?,
                                    _ annotation: OpaquePointer?, _ kind: quire_annot_points_field) -> Int32 {
    guarded("quire_annotation_points") {
        _ = try required(outCount, "out_count")
        let a = try box(annotation).annotation
        switch kind {
        case QUIRE_ANNOT_QUAD_POINTS: try copyOut(numbers: a.quadPoints, buf, capacity, outCount)
        case QUIRE_ANNOT_LINE: try copyOut(numbers: a.linePoints, buf, capacity, outCount)
        case QUIRE_ANNOT_VERTICES: try copyOut(numbers: a.vertices, buf, capacity, outCount)
        case QUIRE_ANNOT_DASH_PATTERN: try copyOut(numbers: a.dashPattern, buf, capacity, outCount)
        case QUIRE_ANNOT_RECT_DIFFERENCES: try copyOut(numbers: a.rectDifferences, buf, capacity, outCount)
        case QUIRE_ANNOT_CALLOUT_LINE: try copyOut(numbers: a.calloutLine, buf, capacity, outCount)
        case QUIRE_ANNOT_CAPTION_OFFSET: try copyOut(numbers: a.captionOffset, buf, capacity, outCount)
        default: throw unknownField(kind, "quire_annot_points_field")
        }
    }
}

@c @implementation
public func quire_annotation_set_points(_ annotation: OpaquePointer?, _ kind: quire_annot_points_field, _ points: UnsafePointer<Double>?,
                                        _ count: Int) -> Int32 {
    guarded("quire_annotation_set_points") {
        let b = try box(annotation)
        // Points come in x, y pairs; the other lists have their own rules in the model.
        let values = try numbersArgument(points, count, even: [QUIRE_ANNOT_QUAD_POINTS, QUIRE_ANNOT_LINE, QUIRE_ANNOT_VERTICES].contains(kind))
        switch kind {
        case QUIRE_ANNOT_QUAD_POINTS:
            guard values.count % 8 == 0 else { throw CallError(code: QUIRE_EINVAL, message: "quad points come in groups of 8 numbers") }
            b.annotation.quadPoints = values
        case QUIRE_ANNOT_LINE:
            guard values.isEmpty || values.count == 4 else { throw CallError(code: QUIRE_EINVAL, message: "a line is 4 numbers: x1 y1 x2 y2") }
            b.annotation.linePoints = values
        case QUIRE_ANNOT_VERTICES: b.annotation.vertices = values
        case QUIRE_ANNOT_DASH_PATTERN:
            try Annotation.validate(dashPattern: values)
            b.annotation.dashPattern = values
        case QUIRE_ANNOT_RECT_DIFFERENCES:
            try Annotation.validate(rectDifferences: values)
            b.annotation.rectDifferences = values
        case QUIRE_ANNOT_CALLOUT_LINE:
            try Annotation.validate(calloutLine: values)
            b.annotation.calloutLine = values
        case QUIRE_ANNOT_CAPTION_OFFSET:
            try Annotation.validate(captionOffset: values)
            b.annotation.captionOffset = values
        default: throw unknownField(kind, "quire_annot_points_field")
        }
    }
}

/// The bytes of a `data`, `length` argument, copied (nil for NULL and 0: "remove"):
/// QUIRE_EINVAL for NULL data with a length or a size_t past SSIZE_MAX (it arrives
/// negative: refused, never a copy of that count), QUIRE_ELIMIT past `limit`.
func bytesArgument(_ data: UnsafeRawPointer?, _ length: Int, limit: Int, what: String) throws -> [UInt8]? {
    guard data != nil || length == 0 else { throw CallError(code: QUIRE_EINVAL, message: "data is NULL but length is \(UInt(bitPattern: length))") }
    guard length >= 0 else { throw CallError(code: QUIRE_EINVAL, message: "length \(UInt(bitPattern: length)) is too large") }
    guard let data else { return nil }
    guard length <= limit else { throw CallError(code: QUIRE_ELIMIT, message: "\(what) is \(length) bytes long (at most \(limit))") }
    return Array(UnsafeRawBufferPointer(start: data, count: length))
}

/// A stamp image from a call's arguments (`quire_annotation_set_image`, the tool manager's
/// stamp image): nil for NULL `data`; else `content_type` is required and the image checked.
func imageArgument(_ data: UnsafeRawPointer?, _ length: Int, _ contentType: UnsafePointer<CChar>?) throws -> Annotation.StampImage? {
    guard let bytes = try bytesArgument(data, length, limit: ImageAttachment.maxBytes, what: "the image") else { return nil }
    guard let type = cText(contentType) else { throw CallError(code: QUIRE_EINVAL, message: "content_type is NULL") }
    return try Annotation.StampImage(bytes: bytes, contentType: type)
}

/// A file to embed from a call's arguments (`quire_annotation_set_file`, the tool manager's
/// attachment): nil for NULL `data`; else `file_name` is required and the file checked.
func fileArgument(_ data: UnsafeRawPointer?, _ length: Int, _ fileName: UnsafePointer<CChar>?,
                  _ contentType: UnsafePointer<CChar>?, _ description: UnsafePointer<CChar>?) throws -> Annotation.AttachedFile? {
    guard let bytes = try bytesArgument(data, length, limit: Annotation.AttachedFile.maxBytes, what: "the file") else { return nil }
    guard let name = cText(fileName) else { throw CallError(code: QUIRE_EINVAL, message: "file_name is NULL") }
    return try Annotation.AttachedFile(bytes: bytes, name: name, contentType: cText(contentType), description: cText(description))
}

@c @implementation
public func quire_annotation_set_image(_ annotation: OpaquePointer?, _ data: UnsafeRawPointer?, _ length: Int,
                                       _ contentType: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_annotation_set_image") {
        let b = try box(annotation)
        b.annotation.image = try imageArgument(data, length, contentType)
    }
}

@c @implementation
public func quire_annotation_set_file(_ annotation: OpaquePointer?, _ data: UnsafeRawPointer?, _ length: Int,
                                      _ fileName: UnsafePointer<CChar>?, _ contentType: UnsafePointer<CChar>?,
                                      _ description: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_annotation_set_file") {
        let b = try box(annotation)
        b.annotation.file = try fileArgument(data, length, fileName, contentType, description)
    }
}

@c @implementation
public func quire_annotation_set_measurement(_ annotation: OpaquePointer?, _ fromValue: Double, _ fromUnit: UnsafePointer<CChar>?,
                                             _ toValue: Double, _ toUnit: UnsafePointer<CChar>?, _ precision: Int32) -> Int32 {
    guarded("quire_annotation_set_measurement") {
        let b = try box(annotation)
        guard let from = cText(fromUnit) else { b.annotation.measurement = nil; return }
        guard let to = cText(toUnit) else { throw CallError(code: QUIRE_EINVAL, message: "to_unit is NULL") }
        let scale = MeasurementScale(fromValue: fromValue, fromUnit: from, toValue: toValue, toUnit: to, precision: Int(precision))
        try Annotation.validate(measurement: scale, subtype: b.annotation.subtype)
        b.annotation.measurement = scale
    }
}

@c @implementation
public func quire_document_annotation_file(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                           _ doc: OpaquePointer?, _ number: Int32) -> Int32 {
    guarded("quire_document_annotation_file") {
        _ = try required(outLen, "out_len")
        let d = try document(doc)
        let id = try annotationID(d, number)
        guard try d.annotation(id) != nil else { throw CallError(code: QUIRE_ENOTFOUND, message: "no annotation is object \(number)") }
        guard let file = try d.attachedFile(of: id) else {
            throw CallError(code: QUIRE_ENOTFOUND, message: "annotation \(number) embeds no file")
        }
        try copyOut(bytes: file.bytes, buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_annotation_ink_stroke_count(_ out: UnsafeMutablePointer<Int32>?, _ annotation: OpaquePointer?) -> Int32 {
    guarded("quire_annotation_ink_stroke_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try box(annotation).annotation.inkList.count)
    }
}

@c @implementation
public func quire_annotation_ink_stroke(_ buf: UnsafeMutablePointer<Double>?, _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?,
                                        _ annotation: OpaquePointer?, _ stroke: Int32) -> Int32 {
    guarded("quire_annotation_ink_stroke") {
        _ = try required(outCount, "out_count")
        try copyOut(numbers: try element(try box(annotation).annotation.inkList, stroke, "ink stroke"), buf, capacity, outCount)
    }
}

@c @implementation
public func quire_annotation_add_ink_stroke(_ annotation: OpaquePointer?, _ points: UnsafePointer<Double>?, _ count: Int) -> Int32 {
    guarded("quire_annotation_add_ink_stroke") {
        let b = try box(annotation)
        if points == nil && count == 0 { b.annotation.inkList = []; return }
        let values = try numbersArgument(points, count)
        guard !values.isEmpty else { throw CallError(code: QUIRE_EINVAL, message: "a stroke needs at least one point") }
        b.annotation.inkList.append(values)
    }
}

@c @implementation
public func quire_annotation_is_reply(_ out: UnsafeMutablePointer<Int32>?, _ annotation: OpaquePointer?) -> Int32 {
    guarded("quire_annotation_is_reply") {
        let out = try required(out, "out")
        out.pointee = try box(annotation).annotation.isReply ? 1 : 0
    }
}

@c @implementation
public func quire_annotation_in_reply_to(_ outNumber: UnsafeMutablePointer<Int32>?, _ annotation: OpaquePointer?) -> Int32 {
    guarded("quire_annotation_in_reply_to") {
        let out = try required(outNumber, "out_number")
        let a = try box(annotation).annotation
        guard let target = a.inReplyTo else {
            if let id = a.inReplyToID {
                throw CallError(code: QUIRE_ENOTFOUND, message: "the annotation replies to \"\(id.prefix(80))\", which is not in the document")
            }
            throw CallError(code: QUIRE_ENOTFOUND, message: "the annotation is not a reply")
        }
        out.pointee = Int32(clamping: target.number)
    }
}

// MARK: Document operations

@c @implementation
public func quire_document_add_annotation(_ doc: OpaquePointer?, _ annotation: OpaquePointer?) -> Int32 {
    guarded("quire_document_add_annotation") {
        let d = try document(doc)
        let b = try box(annotation)
        b.annotation = try d.addAnnotation(b.annotation)
    }
}

@c @implementation
public func quire_document_update_annotation(_ doc: OpaquePointer?, _ annotation: OpaquePointer?) -> Int32 {
    guarded("quire_document_update_annotation") {
        let d = try document(doc)
        let b = try box(annotation)
        try d.updateAnnotation(b.annotation)
        if let id = b.annotation.id, let stored = try d.annotation(id) { b.annotation = stored }
    }
}

@c @implementation
public func quire_document_delete_annotation(_ doc: OpaquePointer?, _ number: Int32) -> Int32 {
    guarded("quire_document_delete_annotation") {
        let d = try document(doc)
        try d.deleteAnnotation(try annotationID(d, number))
    }
}

@c @implementation
public func quire_document_move_annotation(_ outMoved: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?, _ number: Int32,
                                           _ order: quire_annot_order) -> Int32 {
    guarded("quire_document_move_annotation") {
        let d = try document(doc)
        let o = try annotationOrder(order)
        let moved = try d.moveAnnotation(try annotationID(d, number), o)
        outMoved?.pointee = moved ? 1 : 0
    }
}

/// The model's move of a `quire_annot_order`.
func annotationOrder(_ order: quire_annot_order) throws -> AnnotationOrder {
    switch order {
    case QUIRE_ANNOT_FORWARD: return .forward
    case QUIRE_ANNOT_BACKWARD: return .backward
    case QUIRE_ANNOT_TO_FRONT: return .front
    case QUIRE_ANNOT_TO_BACK: return .back
    default: throw unknownField(order, "quire_annot_order")
    }
}

@c @implementation
public func quire_document_add_reply(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ doc: OpaquePointer?, _ target: Int32,
                                     _ author: UnsafePointer<CChar>?, _ contents: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_document_add_reply") {
        let d = try document(doc)
        let contents = String(cString: try required(contents, "contents"))
        let reply = try d.addReply(to: try annotationID(d, target), author: cText(author), contents: contents)
        give(reply, out)
    }
}

@c @implementation
public func quire_document_add_state_reply(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ doc: OpaquePointer?, _ target: Int32,
                                           _ author: UnsafePointer<CChar>?, _ model: UnsafePointer<CChar>?,
                                           _ state: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_document_add_state_reply") {
        let d = try document(doc)
        let modelName = String(cString: try required(model, "model"))
        let state = String(cString: try required(state, "state"))
        guard let m = StateModel(rawValue: modelName) else {
            throw CallError(code: QUIRE_EINVAL, message: "state model '\(modelName)' is not Marked or Review")
        }
        let reply = try d.addStateReply(to: try annotationID(d, target), author: cText(author), model: m, state: state)
        give(reply, out)
    }
}

@c @implementation
public func quire_document_set_in_reply_to(_ doc: OpaquePointer?, _ number: Int32, _ target: Int32) -> Int32 {
    guarded("quire_document_set_in_reply_to") {
        let d = try document(doc)
        let id = try annotationID(d, number)
        try d.setInReplyTo(id, target == -1 ? nil : try annotationID(d, target))
    }
}

@c @implementation
public func quire_document_set_replies_enabled(_ doc: OpaquePointer?, _ enabled: Int32) -> Int32 {
    guarded("quire_document_set_replies_enabled") {
        try document(doc).repliesEnabled = enabled != 0
    }
}

@c @implementation
public func quire_document_replies_enabled(_ out: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_replies_enabled") {
        let out = try required(out, "out")
        out.pointee = try document(doc).repliesEnabled ? 1 : 0
    }
}

@c @implementation
public func quire_document_comments(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ doc: OpaquePointer?, _ number: Int32) -> Int32 {
    guarded("quire_document_comments") {
        let out = try required(out, "out")
        let d = try document(doc)
        giveList(try d.comments(for: try annotationID(d, number)), out)
    }
}

@c @implementation
public func quire_document_review_summary(_ outCurrent: UnsafeMutablePointer<OpaquePointer?>?,
                                          _ outHistory: UnsafeMutablePointer<OpaquePointer?>?, _ doc: OpaquePointer?,
                                          _ number: Int32) -> Int32 {
    guarded("quire_document_review_summary") {
        let d = try document(doc)
        let summary = try d.reviewSummary(for: try annotationID(d, number))
        if let outCurrent { giveList(summary.current, outCurrent) }
        if let outHistory { giveList(summary.history, outHistory) }
    }
}

@c @implementation
public func quire_document_search_annotations(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ doc: OpaquePointer?,
                                              _ text: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_document_search_annotations") {
        let out = try required(out, "out")
        let d = try document(doc)
        giveList(try d.searchAnnotations(String(cString: try required(text, "text"))), out)
    }
}

@c @implementation
public func quire_annotation_list_count(_ out: UnsafeMutablePointer<Int32>?, _ handle: OpaquePointer?) -> Int32 {
    guarded("quire_annotation_list_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try list(handle).items.count)
    }
}

@c @implementation
public func quire_annotation_list_get(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ handle: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_annotation_list_get") {
        let out = try required(out, "out")
        give(try element(try list(handle).items, index, "list"), out)
    }
}

@c @implementation
public func quire_annotation_list_free(_ handle: OpaquePointer?) {
    guard let handle else { return }
    Unmanaged<AnnotationListBox>.fromOpaque(UnsafeRawPointer(handle)).release()
}

// MARK: JSON

@c @implementation
public func quire_document_export_annotations_json(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int,
                                                   _ outLen: UnsafeMutablePointer<Int>?, _ doc: OpaquePointer?,
                                                   _ pageIndex: Int32) -> Int32 {
    guarded("quire_document_export_annotations_json") {
        _ = try required(outLen, "out_len")
        let d = try document(doc)
        if pageIndex != -1 { _ = try d.page(at: Int(pageIndex)) }
        try copyOut(bytes: try d.exportAnnotationsJSON(page: pageIndex == -1 ? nil : Int(pageIndex)), buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_document_export_annotations_json_instant_comments(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int,
                                                                    _ outLen: UnsafeMutablePointer<Int>?, _ doc: OpaquePointer?,
                                                                    _ pageIndex: Int32) -> Int32 {
    guarded("quire_document_export_annotations_json_instant_comments") {
        _ = try required(outLen, "out_len")
        let d = try document(doc)
        if pageIndex != -1 { _ = try d.page(at: Int(pageIndex)) }
        let page = pageIndex == -1 ? nil : Int(pageIndex)
        try copyOut(bytes: try d.exportAnnotationsJSON(page: page, prettyPrinted: true, instantComments: true), buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_document_import_annotations_json(_ outCount: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?,
                                                   _ json: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
    guarded("quire_document_import_annotations_json") {
        let d = try document(doc)
        let json = try required(json, "json")
        guard length >= 0 else { throw CallError(code: QUIRE_EINVAL, message: "length is negative") }
        let bytes = Array(UnsafeRawBufferPointer(start: json, count: length))
        let imported = try d.importAnnotationsJSON(bytes)
        outCount?.pointee = Int32(clamping: imported.count)
    }
}
