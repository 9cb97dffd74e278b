// Low-level objects, editing and saving of include/quire.h: conversions only; the logic
// lives in QuireDocument and QuireSyntax.
import CQuire
import QuireDocument
import QuireSyntax
#if canImport(Glibc)
import Glibc
#endif

/// What a `quire_value *` points at: a copy of a PDF value, owned by the caller.
final class ValueBox {
    let value: PDFObject
    init(_ value: PDFObject) { self.value = value }
}

func handle(_ value: PDFObject) -> OpaquePointer {
    OpaquePointer(Unmanaged.passRetained(ValueBox(value)).toOpaque())
}

/// The value behind a handle.
@inline(__always)
func value(_ handle: OpaquePointer?, _ name: StaticString = "value") throws -> PDFObject {
    let handle = try required(handle, name)
    return Unmanaged<ValueBox>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue().value
}

/// Writes a new value handle to `out`.
func give(_ object: PDFObject, _ out: UnsafeMutablePointer<OpaquePointer?>?) throws {
    let out = try required(out, "out")
    out.pointee = handle(object)
}

func wrongType(_ object: PDFObject, _ expected: String) -> CallError {
    CallError(code: QUIRE_EINVAL, message: "the value is a \(object.typeName), not \(expected)")
}

/// A C string argument as a PDF name (its UTF-8 bytes).
func nameArgument(_ key: UnsafePointer<CChar>?, _ what: StaticString = "key") throws -> PDFName {
    let key = try required(key, what)
    return PDFName(bytes: Array(UnsafeBufferPointer(start: UnsafeRawPointer(key).assumingMemoryBound(to: UInt8.self), count: strlen(key))))
}

// MARK: Document structure

@c @implementation
public func quire_document_xref_form(_ out: UnsafeMutablePointer<quire_xref_form>?, _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_xref_form") {
        let out = try required(out, "out")
        switch try document(doc).file.xrefForm {
        case .table: out.pointee = QUIRE_XREF_TABLE
        case .stream: out.pointee = QUIRE_XREF_STREAM
        case .hybrid: out.pointee = QUIRE_XREF_HYBRID
        case .rebuilt: out.pointee = QUIRE_XREF_REBUILT
        }
    }
}

@c @implementation
public func quire_document_object_count(_ out: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_object_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try document(doc).objectCount)
    }
}

@c @implementation
public func quire_document_is_linearized(_ out: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_is_linearized") {
        let out = try required(out, "out")
        out.pointee = try document(doc).file.isLinearized ? 1 : 0
    }
}

@c @implementation
public func quire_document_encryption(_ outMethod: UnsafeMutablePointer<quire_encryption_method>?, _ outRevision: UnsafeMutablePointer<Int32>?,
                                      _ outPermissions: UnsafeMutablePointer<UInt32>?, _ outIsOwner: UnsafeMutablePointer<Int32>?,
                                      _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_encryption") {
        let security = try document(doc).file.security
        var method = QUIRE_ENCRYPTION_NONE
        switch security?.method {
        case "RC4-40"?: method = QUIRE_ENCRYPTION_RC4_40
        case "RC4-128"?: method = QUIRE_ENCRYPTION_RC4_128
        case "AES-128"?: method = QUIRE_ENCRYPTION_AES_128
        case "AES-256"?: method = QUIRE_ENCRYPTION_AES_256
        case nil: method = QUIRE_ENCRYPTION_NONE
        default: method = QUIRE_ENCRYPTION_IDENTITY
        }
        outMethod?.pointee = method
        outRevision?.pointee = Int32(clamping: security?.revision ?? 0)
        outPermissions?.pointee = security.map { UInt32(bitPattern: $0.permissions) } ?? UInt32.max
        outIsOwner?.pointee = security?.authenticatedAsOwner == true ? 1 : 0
    }
}

// MARK: Values

@c @implementation
public func quire_value_free(_ value: OpaquePointer?) {
    guard let value else { return }
    Unmanaged<ValueBox>.fromOpaque(UnsafeRawPointer(value)).release()
}

@c @implementation
public func quire_document_trailer(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_trailer") {
        _ = try required(out, "out")
        try give(.dictionary(try document(doc).trailer), out)
    }
}

@c @implementation
public func quire_document_object(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ doc: OpaquePointer?, _ number: Int32) -> Int32 {
    guarded("quire_document_object") {
        _ = try required(out, "out")
        let d = try document(doc)
        guard number >= 0 else { throw CallError(code: QUIRE_ERANGE, message: "object number \(number) is negative") }
        try give(try d.object(Int(number)), out)
    }
}

@c @implementation
public func quire_document_resolve(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ doc: OpaquePointer?,
                                   _ valueHandle: OpaquePointer?) -> Int32 {
    guarded("quire_document_resolve") {
        _ = try required(out, "out")
        let d = try document(doc)
        try give(try d.resolve(try value(valueHandle)), out)
    }
}

@c @implementation
public func quire_value_get_kind(_ out: UnsafeMutablePointer<quire_value_kind>?, _ valueHandle: OpaquePointer?) -> Int32 {
    guarded("quire_value_get_kind") {
        let out = try required(out, "out")
        switch try value(valueHandle) {
        case .null: out.pointee = QUIRE_VALUE_NULL
        case .bool: out.pointee = QUIRE_VALUE_BOOL
        case .integer: out.pointee = QUIRE_VALUE_INTEGER
        case .real: out.pointee = QUIRE_VALUE_REAL
        case .string: out.pointee = QUIRE_VALUE_STRING
        case .name: out.pointee = QUIRE_VALUE_NAME
        case .array: out.pointee = QUIRE_VALUE_ARRAY
        case .dictionary: out.pointee = QUIRE_VALUE_DICTIONARY
        case .stream: out.pointee = QUIRE_VALUE_STREAM
        case .reference: out.pointee = QUIRE_VALUE_REFERENCE
        }
    }
}

@c @implementation
public func quire_value_bool(_ out: UnsafeMutablePointer<Int32>?, _ valueHandle: OpaquePointer?) -> Int32 {
    guarded("quire_value_bool") {
        let out = try required(out, "out")
        let v = try value(valueHandle)
        guard case .bool(let b) = v else { throw wrongType(v, "a boolean") }
        out.pointee = b ? 1 : 0
    }
}

@c @implementation
public func quire_value_integer(_ out: UnsafeMutablePointer<Int64>?, _ valueHandle: OpaquePointer?) -> Int32 {
    guarded("quire_value_integer") {
        let out = try required(out, "out")
        let v = try value(valueHandle)
        guard case .integer(let i) = v else { throw wrongType(v, "an integer") }
        out.pointee = i
    }
}

@c @implementation
public func quire_value_number(_ out: UnsafeMutablePointer<Double>?, _ valueHandle: OpaquePointer?) -> Int32 {
    guarded("quire_value_number") {
        let out = try required(out, "out")
        let v = try value(valueHandle)
        guard let n = v.number else { throw wrongType(v, "a number") }
        out.pointee = n
    }
}

@c @implementation
public func quire_value_reference(_ outNumber: UnsafeMutablePointer<Int32>?, _ outGeneration: UnsafeMutablePointer<Int32>?,
                                  _ valueHandle: OpaquePointer?) -> Int32 {
    guarded("quire_value_reference") {
        let number = try required(outNumber, "out_number")
        let generation = try required(outGeneration, "out_generation")
        let v = try value(valueHandle)
        guard case .reference(let id) = v else { throw wrongType(v, "a reference") }
        number.pointee = Int32(clamping: id.number)
        generation.pointee = Int32(clamping: id.generation)
    }
}

@c @implementation
public func quire_value_bytes(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                              _ valueHandle: OpaquePointer?) -> Int32 {
    guarded("quire_value_bytes") {
        _ = try required(outLen, "out_len")
        switch try value(valueHandle) {
        case .string(let s): try copyOut(bytes: s.bytes, buf, bufSize, outLen)
        case .name(let n): try copyOut(bytes: n.bytes, buf, bufSize, outLen)
        case let v: throw wrongType(v, "a string or a name")
        }
    }
}

@c @implementation
public func quire_value_text(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                             _ valueHandle: OpaquePointer?) -> Int32 {
    guarded("quire_value_text") {
        _ = try required(outLen, "out_len")
        let v = try value(valueHandle)
        guard case .string(let s) = v else { throw wrongType(v, "a string") }
        try copyOut(s.text, buf, bufSize, outLen)
    }
}

/// The dictionary of a dictionary or stream value.
func dictionaryOf(_ v: PDFObject) throws -> PDFDictionary {
    guard let d = v.dictionary else { throw wrongType(v, "a dictionary or a stream") }
    return d
}

@c @implementation
public func quire_value_count(_ out: UnsafeMutablePointer<Int32>?, _ valueHandle: OpaquePointer?) -> Int32 {
    guarded("quire_value_count") {
        let out = try required(out, "out")
        let v = try value(valueHandle)
        if case .array(let a) = v { out.pointee = Int32(clamping: a.count); return }
        out.pointee = Int32(clamping: try dictionaryOf(v).count)
    }
}

@c @implementation
public func quire_value_array_get(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ valueHandle: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_value_array_get") {
        _ = try required(out, "out")
        let v = try value(valueHandle)
        guard case .array(let a) = v else { throw wrongType(v, "an array") }
        try give(try element(a, index, "array"), out)
    }
}

@c @implementation
public func quire_value_dict_key(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                 _ valueHandle: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_value_dict_key") {
        _ = try required(outLen, "out_len")
        let d = try dictionaryOf(try value(valueHandle))
        try copyOut(bytes: try element(d.keys, index, "dictionary entry").bytes, buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_value_dict_get(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ valueHandle: OpaquePointer?,
                                 _ key: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_value_dict_get") {
        _ = try required(out, "out")
        let d = try dictionaryOf(try value(valueHandle))
        let name = try nameArgument(key)
        guard let found = d[name] else {
            throw CallError(code: QUIRE_ENOTFOUND, message: "the dictionary has no key /\(name.value)")
        }
        try give(found, out)
    }
}

@c @implementation
public func quire_value_to_pdf(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                               _ valueHandle: OpaquePointer?) -> Int32 {
    guarded("quire_value_to_pdf") {
        _ = try required(outLen, "out_len")
        try copyOut(bytes: Serializer.bytes(try value(valueHandle)), buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_value_parse(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ syntax: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
    guarded("quire_value_parse") {
        _ = try required(out, "out")
        let syntax = try required(syntax, "pdf_syntax")
        guard length >= 0 else { throw CallError(code: QUIRE_EINVAL, message: "length is negative") }
        try give(try ObjectParser.parseStrict(ByteBuffer(copying: UnsafeRawPointer(syntax), count: length)), out)
    }
}

@c @implementation
public func quire_document_stream_data(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                       _ doc: OpaquePointer?, _ stream: OpaquePointer?, _ form: quire_stream_form) -> Int32 {
    guarded("quire_document_stream_data") {
        _ = try required(outLen, "out_len")
        let d = try document(doc)
        let v = try value(stream, "stream")
        guard case .stream(let s) = v else { throw wrongType(v, "a stream") }
        guard form == QUIRE_STREAM_DECODED || form == QUIRE_STREAM_RAW else {
            throw CallError(code: QUIRE_EINVAL, message: "form 0x\(String(form.rawValue, radix: 16)) is not QUIRE_STREAM_DECODED or QUIRE_STREAM_RAW")
        }
        try copyOut(bytes: try d.streamData(s, decoded: form == QUIRE_STREAM_DECODED), buf, bufSize, outLen)
    }
}

// MARK: Editing

/// An object number argument: non-negative.
func objectNumber(_ number: Int32) throws -> Int {
    guard number > 0 else { throw CallError(code: number == 0 ? QUIRE_EINVAL : QUIRE_ERANGE, message: "object number \(number) cannot be edited") }
    return Int(number)
}

@c @implementation
public func quire_document_set_object(_ doc: OpaquePointer?, _ number: Int32, _ valueHandle: OpaquePointer?) -> Int32 {
    guarded("quire_document_set_object") {
        let d = try document(doc)
        let v = try value(valueHandle)
        try d.setObject(try objectNumber(number), v)
    }
}

@c @implementation
public func quire_document_set_dict_value(_ doc: OpaquePointer?, _ number: Int32, _ key: UnsafePointer<CChar>?,
                                          _ valueHandle: OpaquePointer?) -> Int32 {
    guarded("quire_document_set_dict_value") {
        let d = try document(doc)
        let name = try nameArgument(key)
        let v = try valueHandle.map { try value($0) }
        try d.setValue(v, forKey: name, inObject: try objectNumber(number))
    }
}

@c @implementation
public func quire_document_add_object(_ outNumber: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?, _ valueHandle: OpaquePointer?) -> Int32 {
    guarded("quire_document_add_object") {
        let out = try required(outNumber, "out_number")
        let d = try document(doc)
        out.pointee = Int32(clamping: try d.addObject(try value(valueHandle)).number)
    }
}

@c @implementation
public func quire_document_add_stream(_ outNumber: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?, _ dict: OpaquePointer?,
                                      _ data: UnsafeRawPointer?, _ size: Int) -> Int32 {
    guarded("quire_document_add_stream") {
        let out = try required(outNumber, "out_number")
        let d = try document(doc)
        guard data != nil || size == 0 else { throw CallError(code: QUIRE_EINVAL, message: "data is NULL but size is \(size)") }
        // size_t arrives as Int: 2^63 and more is negative here.
        guard size >= 0 else { throw CallError(code: QUIRE_EINVAL, message: "size \(UInt(bitPattern: size)) is larger than any buffer") }
        var dictionary = PDFDictionary()
        if let dict {
            let v = try value(dict, "dict")
            guard case .dictionary(let given) = v else { throw wrongType(v, "a dictionary") }
            dictionary = given
        }
        let bytes = data.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) } ?? []
        out.pointee = Int32(clamping: try d.addStream(dictionary, data: bytes).number)
    }
}

@c @implementation
public func quire_document_delete_object(_ doc: OpaquePointer?, _ number: Int32) -> Int32 {
    guarded("quire_document_delete_object") {
        let d = try document(doc)
        try d.deleteObject(try objectNumber(number))
    }
}

@c @implementation
public func quire_document_has_unsaved_changes(_ out: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_has_unsaved_changes") {
        let out = try required(out, "out")
        out.pointee = try document(doc).hasUnsavedChanges ? 1 : 0
    }
}

// MARK: Saving

let saveOptionsVersions = StructVersions<quire_save_options>(
    name: "options",
    // Version 1 ends with object_streams: 12 bytes (the padding before `progress` is not
    // version 1's, and a version 1 caller's struct may end right there).
    sizes: [(MemoryLayout<quire_save_options>.offset(of: \.object_streams) ?? 8) + MemoryLayout<Int32>.size,
            MemoryLayout<quire_save_options>.size])

var saveOptionsDefaults: quire_save_options {
    quire_save_options(version: saveOptionsVersions.current, mode: QUIRE_SAVE_INCREMENTAL, object_streams: 0,
                       progress: nil, progress_payload: nil)
}

/// The save mode (and whether it appends in place) and the progress callback of the
/// caller's options.
func saveOptions(_ pointer: UnsafePointer<quire_save_options>?) throws -> (mode: SaveMode, inPlace: Bool, progress: WriteProgress?) {
    guard let pointer else { return (.incremental, false, nil) }
    let options = try saveOptionsVersions.read(pointer, defaults: saveOptionsDefaults).value
    let mode: SaveMode
    var inPlace = false
    switch options.mode {
    case QUIRE_SAVE_INCREMENTAL: mode = .incremental
    case QUIRE_SAVE_FULL: mode = .full(objectStreams: options.object_streams != 0)
    case QUIRE_SAVE_APPEND_IN_PLACE:
        mode = .incremental
        inPlace = true
    default: throw CallError(code: QUIRE_EINVAL, message: "options.mode 0x\(String(options.mode.rawValue, radix: 16)) is not a QUIRE_SAVE_* value")
    }
    return (mode, inPlace, progressHandler(options.progress, options.progress_payload, "save", "nothing was written"))
}

@c @implementation
public func quire_save_options_init(_ options: UnsafeMutablePointer<quire_save_options>?, _ version: UInt32) -> Int32 {
    guarded("quire_save_options_init") {
        try saveOptionsVersions.initialize(options, version: version, defaults: saveOptionsDefaults)
    }
}

@c @implementation
public func quire_document_save(_ doc: OpaquePointer?, _ options: UnsafePointer<quire_save_options>?, _ path: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_document_save") {
        let d = try document(doc)
        let path = String(cString: try required(path, "path"))
        let (mode, inPlace, progress) = try saveOptions(options)
        if inPlace {
            try d.saveAppendingInPlace(to: path, progress: progress)
        } else {
            try d.save(to: path, mode: mode, progress: progress)
        }
    }
}

@c @implementation
public func quire_document_save_to_callback(_ doc: OpaquePointer?, _ options: UnsafePointer<quire_save_options>?,
                                            _ write: quire_write_fn?, _ payload: UnsafeMutableRawPointer?) -> Int32 {
    guarded("quire_document_save_to_callback") {
        let d = try document(doc)
        let write = try required(write, "write")
        let (mode, inPlace, progress) = try saveOptions(options)
        guard !inPlace else {
            throw CallError(code: QUIRE_EINVAL, message: "QUIRE_SAVE_APPEND_IN_PLACE writes to the document's own file: use quire_document_save")
        }
        try d.save(mode: mode, progress: progress) { piece in
            guard write(piece.baseAddress, piece.count, payload) == 0 else {
                throw CallError(code: QUIRE_EUSER, message: "the write callback returned non-zero; nothing was saved")
            }
        }
    }
}
