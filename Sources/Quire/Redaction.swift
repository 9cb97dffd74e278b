// The redaction functions of include/quire/redaction.h: argument checks and conversions
// only; the rules live in QuireDocument (Redaction/).
import CQuire
import QuireDocument
import QuireSyntax

let redactionOptionsVersions = StructVersions<quire_redaction_options>(
    name: "options",
    sizes: [MemoryLayout<quire_redaction_options>.size]
)
let redactionResultVersions = StructVersions<quire_redaction_result>(
    name: "out",
    sizes: [MemoryLayout<quire_redaction_result>.size]
)

var redactionOptionsDefaults: quire_redaction_options {
    quire_redaction_options(
        version: redactionOptionsVersions.current,
        text: 1,
        images: 1,
        graphics: 1,
        annotations: 1,
        remove_metadata: 0,
        remove_embedded_files: 0,
        remove_javascript: 0
    )
}

/// The fill colour argument: NULL with 0 for none.
private func fillColor(_ fill: UnsafePointer<Double>?, _ count: Int) throws -> [Double]? {
    guard count != 0 else { return nil }
    guard count > 0, count <= 4 else {
        throw CallError(code: QUIRE_EINVAL, message: "fill_count \(UInt(bitPattern: count)) is not 1, 3 or 4")
    }
    let fill = try required(fill, "fill")
    return Array(UnsafeBufferPointer(start: fill, count: count))
}

@c @implementation
public func quire_redaction_options_init(
    _ options: UnsafeMutablePointer<quire_redaction_options>?,
    _ version: UInt32
) -> Int32 {
    guarded("quire_redaction_options_init") {
        try redactionOptionsVersions.initialize(options, version: version, defaults: redactionOptionsDefaults)
    }
}

@c @implementation
public func quire_page_add_redaction(
    _ out: UnsafeMutablePointer<OpaquePointer?>?,
    _ doc: OpaquePointer?,
    _ pageIndex: Int32,
    _ rects: UnsafePointer<Double>?,
    _ count: Int,
    _ fill: UnsafePointer<Double>?,
    _ fillCount: Int,
    _ overlayText: UnsafePointer<CChar>?
) -> Int32 {
    guarded("quire_page_add_redaction") {
        let d = try document(doc)
        guard count > 0, count % 4 == 0, count <= 400_000 else {
            throw CallError(
                code: QUIRE_EINVAL,
                message: "count \(UInt(bitPattern: count)) is not 4 numbers per rectangle (4 to 400000)"
            )
        }
        let rects = try required(rects, "rects")
        guard pageIndex >= 0, pageIndex < Int32(clamping: try d.pageCount()) else {
            throw CallError(code: QUIRE_ERANGE, message: "page \(pageIndex) does not exist")
        }
        let n = Array(UnsafeBufferPointer(start: rects, count: count))
        let regions = stride(from: 0, to: n.count, by: 4).map {
            Rect(left: n[$0], bottom: n[$0 + 1], right: n[$0 + 2], top: n[$0 + 3])
        }
        let a = try d.addRedaction(
            pageIndex: Int(pageIndex),
            regions: regions,
            fill: try fillColor(fill, fillCount),
            overlayText: cText(overlayText)
        )
        if let out { give(a, out) }
    }
}

@c @implementation
public func quire_document_add_redactions_matching(
    _ outCount: UnsafeMutablePointer<Int32>?,
    _ doc: OpaquePointer?,
    _ query: UnsafePointer<CChar>?,
    _ options: UnsafePointer<quire_text_search_options>?,
    _ fill: UnsafePointer<Double>?,
    _ fillCount: Int,
    _ overlayText: UnsafePointer<CChar>?
) -> Int32 {
    guarded("quire_document_add_redactions_matching") {
        let d = try document(doc)
        let query = try cText(required(query, "query")) ?? ""
        let c =
            try options.map { try searchOptionsVersions.read($0, defaults: searchOptionsDefaults).value }
            ?? searchOptionsDefaults
        guard c.max_matches >= 0 else {
            throw CallError(code: QUIRE_EINVAL, message: "options.max_matches is negative")
        }
        let search = TextSearchOptions(
            caseSensitive: c.match_case != 0,
            wholeWord: c.whole_word != 0,
            maxMatches: Int(c.max_matches)
        )
        let added = try d.addRedactions(
            matching: query,
            options: search,
            fill: try fillColor(fill, fillCount),
            overlayText: cText(overlayText)
        )
        outCount?.pointee = Int32(clamping: added.count)
    }
}

@c @implementation
public func quire_document_apply_redactions(
    _ out: UnsafeMutablePointer<quire_redaction_result>?,
    _ doc: OpaquePointer?,
    _ options: UnsafePointer<quire_redaction_options>?
) -> Int32 {
    guarded("quire_document_apply_redactions") {
        let d = try document(doc)
        if let out { _ = try redactionResultVersions.read(UnsafePointer(out), defaults: quire_redaction_result()) }
        let o =
            try options.map { try redactionOptionsVersions.read($0, defaults: redactionOptionsDefaults).value }
            ?? redactionOptionsDefaults
        var options = RedactionOptions()
        options.text = o.text != 0
        options.images = o.images != 0
        options.graphics = o.graphics != 0
        options.annotations = o.annotations != 0
        options.removeMetadata = o.remove_metadata != 0
        options.removeEmbeddedFiles = o.remove_embedded_files != 0
        options.removeJavaScript = o.remove_javascript != 0
        let r = try d.applyRedactions(options)
        if let out {
            let value = quire_redaction_result(
                version: 0,
                redactions: Int32(clamping: r.redactions),
                pages: Int32(clamping: r.pages),
                glyphs_removed: Int32(clamping: r.glyphsRemoved),
                images_removed: Int32(clamping: r.imagesRemoved),
                images_blanked: Int32(clamping: r.imagesBlanked),
                paths_removed: Int32(clamping: r.pathsRemoved),
                annotations_removed: Int32(clamping: r.annotationsRemoved)
            )
            try redactionResultVersions.write(value, to: out)
        }
    }
}
