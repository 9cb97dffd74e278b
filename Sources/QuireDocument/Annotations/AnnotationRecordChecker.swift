import QuireSyntax

/// What importing one annotation record into a document checks, without the document and
/// without changing anything: for the sync server, which checks every record a client puts
/// against the document's pages (docs/sync-protocol.md) and must not open the PDF or import
/// into a copy of it for each one.
///
/// It holds what the checks read of the document (the page count, the crop box of each
/// page, which pages are direct objects), read once by ``init(_:)``; it is a value and
/// `Sendable`, so one checker serves every thread. ``check(_:)`` runs the checks of
/// ``Document/importAnnotationsJSON(_:)`` that concern the record alone: its type, its page,
/// every field (numbers, colours, dates, flags, line caps, states, reply types, actions and
/// their destinations). What concerns other records (reply and popup targets, cycles,
/// duplicate ids) is the caller's, who knows the other records.
public struct AnnotationRecordChecker: Sendable {
    /// The page count of the document (the page tree's /Count).
    public let pageCount: Int
    /// The crop box's left and top of every page the page tree holds.
    private let frames: [Frame]
    /// The pages the page tree holds (the /Count may count more).
    var pagesHeld: Int { frames.count }

    private struct Frame: Sendable {
        let left: Double
        let top: Double
        /// A page that is a direct object: its /Annots cannot change.
        let direct: Bool
    }

    /// The form's fields by fully qualified name (the first of a name), for the checks of
    /// form value records (``checkFormFieldValue(_:path:)``); nil when the field tree
    /// cannot be read, `formError` then says why.
    let formFields: [String: FormField]?
    let formError: String?

    /// Reads the pages of `document`, and its form's fields.
    public init(_ document: Document) throws {
        pageCount = try document.pageCount()
        frames = try document.pages().map { page in
            let crop = try page.box(.crop)
            return Frame(left: crop.left, top: crop.top, direct: page.id == nil)
        }
        do {
            var byName: [String: FormField] = [:]
            for f in try document.formFields() where byName[f.name] == nil { byName[f.name] = f }
            formFields = byName
            formError = nil
        } catch {
            formFields = nil
            formError = "\(error)"
        }
    }

    /// Reads one record from its parsed JSON (an object), as import reads each item of
    /// `annotations`. Errors are `PDFError(.format)` naming the field, under `path`.
    public static func record(_ value: InstantJSONValue, path: String = "record") throws -> InstantJSONAnnotation {
        try InstantJSONAnnotation(json: JSONNode(value: value, path: path))
    }

    /// Checks `record` as import would check it for this document: a `PDFError(.format)`
    /// naming the field for anything import refuses in the record alone, or
    /// `PDFError(.unsupported)` for a page that cannot take annotations.
    public func check(_ record: InstantJSONAnnotation, path: String = "record") throws {
        guard let kind = InstantJSON.kind(type: record.type) else {
            throw PDFError(.format, "annotation JSON: \(path).type: unsupported annotation type \"\(record.type.prefix(60))\" (Quire reads \(InstantJSON.kinds.map(\.type).joined(separator: ", ")) and \(InstantJSON.genericType))")
        }
        guard record.pageIndex >= 0 && record.pageIndex < pageCount else {
            throw PDFError(.format, "annotation JSON: \(path).pageIndex: page \(record.pageIndex) does not exist (the document has \(pageCount) pages)")
        }
        guard record.pageIndex < frames.count else {
            throw PDFError(.format, "annotation JSON: \(path).pageIndex: page \(record.pageIndex) does not exist (it is counted by the page tree's /Count (\(pageCount)) but the tree holds only \(frames.count))")
        }
        let frame = frames[record.pageIndex]
        guard !frame.direct else {
            throw PDFError(.unsupported, "page \(record.pageIndex + 1) is a direct object; its annotations cannot be changed")
        }
        if let name = record.name ?? record.id, name.isEmpty {
            throw PDFError(.format, "annotation JSON: \(path).\(record.name != nil ? "name" : "id"): must not be empty")
        }
        _ = try InstantJSON.fields(of: record, kind: kind, frame: InstantJSON.Frame(left: frame.left, top: frame.top),
                                   pageCount: frames.count, path: path)
        try InstantJSON.checkFileFields(record, path: path)
    }
}
