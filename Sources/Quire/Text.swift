// Text (issue 18): quire_page_text_*, quire_text_*, search and markup from text. The rules
// live in QuireDocument/Text; this file only converts types and errors.
import CQuire
import QuireDocument
import QuireSyntax
import Synchronization

/// What a `quire_text_page *` points at: the page's text and its words, made once.
final class TextPageBox {
    let page: TextPage
    lazy var words: [TextSpan] = page.words
    private let infos = Mutex<(infos: [quire_text_char_info], fonts: [String])?>(nil)
    /// Every character as `quire_text_char_info` (the current version), and the page's
    /// font names by index: made once (under a lock: a text page may be read from any
    /// thread), for `quire_text_page_char_infos` and its length query.
    var charInfos: (infos: [quire_text_char_info], fonts: [String]) {
        infos.withLock { cached in
            if let cached { return cached }
            let made = TextPageBox.charInfos(page)
            cached = made
            return made
        }
    }
    init(_ page: TextPage) { self.page = page }

    static func charInfos(_ page: TextPage) -> (infos: [quire_text_char_info], fonts: [String]) {
        var fonts: [String] = []
        var fontIndex: [String: Int32] = [:]
        var previous: (String, Int32)? = nil
        var infos: [quire_text_char_info] = []
        infos.reserveCapacity(page.characters.count)
        var offset = 0
        let size = UInt32(MemoryLayout<quire_text_char_info>.size)
        for (i, c) in page.characters.enumerated() {
            var info = quire_text_char_info()
            info.size = size
            info.version = QUIRE_TEXT_CHAR_INFO_VERSION_VALUE
            info.code_point = c.text.unicodeScalars.first?.value ?? 0
            let length = c.text.utf8.count
            info.text_offset = UInt32(clamping: offset)
            info.text_len = UInt32(clamping: length)
            offset += length
            if let (name, index) = previous, name == c.fontName {  // most characters: the font of the one before
                info.font_index = index
            } else if let index = fontIndex[c.fontName] {
                info.font_index = index
            } else {
                let index = Int32(clamping: fonts.count)
                fontIndex[c.fontName] = index
                fonts.append(c.fontName)
                info.font_index = index
            }
            previous = (c.fontName, info.font_index)
            info.line = Int32(clamping: c.line)
            info.font_size = c.fontSize
            let b = c.quad.bounds, g = c.glyphQuad.bounds
            info.box = quire_rect(left: b.left, bottom: b.bottom, right: b.right, top: b.top)
            info.glyph_box = quire_rect(left: g.left, bottom: g.bottom, right: g.right, top: g.top)
            var flags: UInt32 = 0
            if c.isGenerated { flags |= UInt32(QUIRE_TEXT_CHAR_GENERATED) }
            if c.hasGlyphBox { flags |= UInt32(QUIRE_TEXT_CHAR_HAS_GLYPH_BOX) }
            if let q = page.characterQuad(i) {
                flags |= UInt32(QUIRE_TEXT_CHAR_HAS_QUAD)
                info.quad = quire_quad(x1: q.upperLeft.x, y1: q.upperLeft.y, x2: q.upperRight.x, y2: q.upperRight.y,
                                       x3: q.lowerLeft.x, y3: q.lowerLeft.y, x4: q.lowerRight.x, y4: q.lowerRight.y)
            }
            info.flags = flags
            infos.append(info)
        }
        return (infos, fonts)
    }
}

/// QUIRE_TEXT_CHAR_INFO_VERSION as the struct's field type.
private let QUIRE_TEXT_CHAR_INFO_VERSION_VALUE = UInt32(QUIRE_TEXT_CHAR_INFO_VERSION)

/// What a `quire_text_match_list *` points at.
final class TextMatchListBox {
    let matches: [TextMatch]
    init(_ matches: [TextMatch]) { self.matches = matches }
}

private func textPage(_ handle: OpaquePointer?) throws -> TextPageBox {
    let handle = try required(handle, "text")
    return Unmanaged<TextPageBox>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
}

private func matchList(_ handle: OpaquePointer?) throws -> TextMatchListBox {
    let handle = try required(handle, "list")
    return Unmanaged<TextMatchListBox>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
}

/// Characters `first ..< first + count` of `page`, or an error.
private func characterRange(_ page: TextPage, _ first: Int32, _ count: Int32) throws -> Range<Int> {
    guard count >= 0 else { throw CallError(code: QUIRE_EINVAL, message: "count is negative (\(count))") }
    let n = page.characters.count
    guard first >= 0, Int(first) <= n, Int(count) <= n - Int(first) else {
        throw CallError(code: QUIRE_ERANGE, message: "characters \(first) to \(Int(first) + Int(count) - 1) are out of range (the page has \(n))")
    }
    return Int(first)..<(Int(first) + Int(count))
}

private let textCharVersions = StructVersions<quire_text_char>(
    name: "char",
    sizes: [MemoryLayout<quire_text_char>.offset(of: \.glyph_box) ?? 0, MemoryLayout<quire_text_char>.size])
private var textCharDefaults: quire_text_char {
    quire_text_char(version: textCharVersions.current,
                    box: quire_rect(left: 0, bottom: 0, right: 0, top: 0), font_size: 0, is_generated: 0, line: 0,
                    glyph_box: quire_rect(left: 0, bottom: 0, right: 0, top: 0), has_glyph_box: 0)
}

let searchOptionsVersions = StructVersions<quire_text_search_options>(
    // Version 1 ends with max_matches: 16 bytes (the padding before `progress` is not
    // version 1's, and a version 1 caller's struct may end right there).
    name: "options", sizes: [(MemoryLayout<quire_text_search_options>.offset(of: \.max_matches) ?? 12) + MemoryLayout<Int32>.size,
                             MemoryLayout<quire_text_search_options>.size])
var searchOptionsDefaults: quire_text_search_options {
    quire_text_search_options(version: searchOptionsVersions.current, match_case: 0, whole_word: 0, max_matches: 0,
                              progress: nil, progress_payload: nil)
}

@c @implementation
public func quire_text_char_init(_ out: UnsafeMutablePointer<quire_text_char>?, _ version: UInt32) -> Int32 {
    guarded("quire_text_char_init") {
        try textCharVersions.initialize(out, version: version, defaults: textCharDefaults)
    }
}

@c @implementation
public func quire_text_search_options_init(_ options: UnsafeMutablePointer<quire_text_search_options>?, _ version: UInt32) -> Int32 {
    guarded("quire_text_search_options_init") {
        try searchOptionsVersions.initialize(options, version: version, defaults: searchOptionsDefaults)
    }
}

@c @implementation
public func quire_page_text_load(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ doc: OpaquePointer?, _ pageIndex: Int32) -> Int32 {
    guarded("quire_page_text_load") {
        let out = try required(out, "out")
        let d = try document(doc)
        let page = try d.textPage(at: Int(pageIndex))
        out.pointee = OpaquePointer(Unmanaged.passRetained(TextPageBox(page)).toOpaque())
    }
}

@c @implementation
public func quire_text_page_free(_ text: OpaquePointer?) {
    guard let text else { return }
    Unmanaged<TextPageBox>.fromOpaque(UnsafeRawPointer(text)).release()
}

@c @implementation
public func quire_text_page_index(_ out: UnsafeMutablePointer<Int32>?, _ text: OpaquePointer?) -> Int32 {
    guarded("quire_text_page_index") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try textPage(text).page.pageIndex)
    }
}

@c @implementation
public func quire_text_page_char_count(_ out: UnsafeMutablePointer<Int32>?, _ text: OpaquePointer?) -> Int32 {
    guarded("quire_text_page_char_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try textPage(text).page.characters.count)
    }
}

@c @implementation
public func quire_text_page_text(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                 _ text: OpaquePointer?) -> Int32 {
    guarded("quire_text_page_text") {
        _ = try required(outLen, "out_len")
        try copyOut(try textPage(text).page.text, buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_text_page_range_text(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                       _ text: OpaquePointer?, _ first: Int32, _ count: Int32) -> Int32 {
    guarded("quire_text_page_range_text") {
        _ = try required(outLen, "out_len")
        let page = try textPage(text).page
        try copyOut(page.span(try characterRange(page, first, count)).text, buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_text_page_char(_ out: UnsafeMutablePointer<quire_text_char>?, _ text: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_text_page_char") {
        let out = try required(out, "out")
        let c = try element(try textPage(text).page.characters, index, "character")
        let b = c.quad.bounds
        var value = textCharDefaults
        value.box = quire_rect(left: b.left, bottom: b.bottom, right: b.right, top: b.top)
        value.font_size = c.fontSize
        value.is_generated = c.isGenerated ? 1 : 0
        value.line = Int32(clamping: c.line)
        let g = c.glyphQuad.bounds
        value.glyph_box = quire_rect(left: g.left, bottom: g.bottom, right: g.right, top: g.top)
        value.has_glyph_box = c.hasGlyphBox ? 1 : 0
        try textCharVersions.write(value, to: out)
    }
}

@c @implementation
public func quire_text_page_char_text(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                      _ text: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_text_page_char_text") {
        _ = try required(outLen, "out_len")
        try copyOut(try element(try textPage(text).page.characters, index, "character").text, buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_text_page_char_font(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                      _ text: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_text_page_char_font") {
        _ = try required(outLen, "out_len")
        try copyOut(try element(try textPage(text).page.characters, index, "character").fontName, buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_text_page_char_infos(_ buf: UnsafeMutableRawPointer?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                       _ outCount: UnsafeMutablePointer<Int32>?, _ text: OpaquePointer?, _ version: UInt32) -> Int32 {
    guarded("quire_text_page_char_infos") {
        let outLen = try required(outLen, "out_len")
        let outCount = try required(outCount, "out_count")
        let box = try textPage(text)
        let infos = box.charInfos.infos
        try checkBulkRead(version: version, current: QUIRE_TEXT_CHAR_INFO_VERSION_VALUE, of: "quire_text_char_info",
                          count: infos.count, of: "characters")
        // One version so far: its structs are the array's elements, stride = size.
        let needed = infos.count * MemoryLayout<quire_text_char_info>.stride
        guard let buf else {
            guard bufSize == 0 else { throw CallError(code: QUIRE_EINVAL, message: "the buffer is NULL but its size is \(bufSize)") }
            outLen.pointee = needed
            outCount.pointee = Int32(infos.count)
            return
        }
        let align = MemoryLayout<quire_text_char_info>.alignment
        guard Int(bitPattern: buf) % align == 0 else {
            throw CallError(code: QUIRE_EINVAL, message: "the buffer is not aligned to \(align) bytes (malloc's memory is)")
        }
        guard bufSize >= needed else {
            outLen.pointee = needed
            throw CallError(code: QUIRE_EBUFS, message: "a buffer of \(bufSize) bytes is too small; \(needed) are needed")
        }
        infos.withUnsafeBytes { source in
            if let base = source.baseAddress, needed > 0 { buf.copyMemory(from: base, byteCount: needed) }
        }
        outLen.pointee = needed
        outCount.pointee = Int32(infos.count)
    }
}

@c @implementation
public func quire_text_page_font_count(_ out: UnsafeMutablePointer<Int32>?, _ text: OpaquePointer?) -> Int32 {
    guarded("quire_text_page_font_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try textPage(text).charInfos.fonts.count)
    }
}

@c @implementation
public func quire_text_page_font_name(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                      _ text: OpaquePointer?, _ fontIndex: Int32) -> Int32 {
    guarded("quire_text_page_font_name") {
        _ = try required(outLen, "out_len")
        try copyOut(try element(try textPage(text).charInfos.fonts, fontIndex, "font"), buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_text_page_line_count(_ out: UnsafeMutablePointer<Int32>?, _ text: OpaquePointer?) -> Int32 {
    guarded("quire_text_page_line_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try textPage(text).page.lines.count)
    }
}

@c @implementation
public func quire_text_page_line(_ outFirst: UnsafeMutablePointer<Int32>?, _ outCount: UnsafeMutablePointer<Int32>?,
                                 _ text: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_text_page_line") {
        let outFirst = try required(outFirst, "out_first")
        let outCount = try required(outCount, "out_count")
        let line = try element(try textPage(text).page.lines, index, "line")
        outFirst.pointee = Int32(clamping: line.range.lowerBound)
        outCount.pointee = Int32(clamping: line.range.count)
    }
}

@c @implementation
public func quire_text_page_word_count(_ out: UnsafeMutablePointer<Int32>?, _ text: OpaquePointer?) -> Int32 {
    guarded("quire_text_page_word_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try textPage(text).words.count)
    }
}

@c @implementation
public func quire_text_page_word(_ outFirst: UnsafeMutablePointer<Int32>?, _ outCount: UnsafeMutablePointer<Int32>?,
                                 _ text: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_text_page_word") {
        let outFirst = try required(outFirst, "out_first")
        let outCount = try required(outCount, "out_count")
        let word = try element(try textPage(text).words, index, "word")
        outFirst.pointee = Int32(clamping: word.range.lowerBound)
        outCount.pointee = Int32(clamping: word.range.count)
    }
}

@c @implementation
public func quire_text_page_range_quads(_ buf: UnsafeMutablePointer<Double>?, _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?,
                                        _ text: OpaquePointer?, _ first: Int32, _ count: Int32) -> Int32 {
    guarded("quire_text_page_range_quads") {
        _ = try required(outCount, "out_count")
        let page = try textPage(text).page
        let span = page.span(try characterRange(page, first, count))
        try copyOut(numbers: span.quads.flatMap(\.quadPoints), buf, capacity, outCount)
    }
}

@c @implementation
public func quire_text_page_char_at(_ out: UnsafeMutablePointer<Int32>?, _ text: OpaquePointer?, _ x: Double, _ y: Double) -> Int32 {
    guarded("quire_text_page_char_at") {
        let out = try required(out, "out")
        guard x.isFinite, y.isFinite else { throw CallError(code: QUIRE_EINVAL, message: "the point is not finite") }
        guard let index = try textPage(text).page.characterIndex(at: TextPoint(x: x, y: y)) else {
            throw CallError(code: QUIRE_ENOTFOUND, message: "the page has no text")
        }
        out.pointee = Int32(clamping: index)
    }
}

@c @implementation
public func quire_text_page_select(_ outFirst: UnsafeMutablePointer<Int32>?, _ outCount: UnsafeMutablePointer<Int32>?,
                                   _ text: OpaquePointer?, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Int32 {
    guarded("quire_text_page_select") {
        let outFirst = try required(outFirst, "out_first")
        let outCount = try required(outCount, "out_count")
        guard [x0, y0, x1, y1].allSatisfy(\.isFinite) else { throw CallError(code: QUIRE_EINVAL, message: "a point is not finite") }
        guard let span = try textPage(text).page.select(from: TextPoint(x: x0, y: y0), to: TextPoint(x: x1, y: y1)) else {
            throw CallError(code: QUIRE_ENOTFOUND, message: "the page has no text")
        }
        outFirst.pointee = Int32(clamping: span.range.lowerBound)
        outCount.pointee = Int32(clamping: span.range.count)
    }
}

@c @implementation
public func quire_text_page_warning_count(_ out: UnsafeMutablePointer<Int32>?, _ text: OpaquePointer?) -> Int32 {
    guarded("quire_text_page_warning_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try textPage(text).page.warnings.count)
    }
}

@c @implementation
public func quire_text_page_warning(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                    _ text: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_text_page_warning") {
        _ = try required(outLen, "out_len")
        try copyOut(try element(try textPage(text).page.warnings, index, "warning"), buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_document_search_text(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ doc: OpaquePointer?,
                                       _ query: UnsafePointer<CChar>?, _ options: UnsafePointer<quire_text_search_options>?,
                                       _ pageIndex: Int32) -> Int32 {
    guarded("quire_document_search_text") {
        let out = try required(out, "out")
        let d = try document(doc)
        let q = String(cString: try required(query, "query"))
        guard q.contains(where: { !$0.isWhitespace }) else { throw CallError(code: QUIRE_EINVAL, message: "the query is empty") }
        let o = options.map { try? searchOptionsVersions.read($0, defaults: searchOptionsDefaults).value }
        if let options { _ = try searchOptionsVersions.read(options, defaults: searchOptionsDefaults) }
        let c = (o ?? nil) ?? searchOptionsDefaults
        guard c.max_matches >= 0 else { throw CallError(code: QUIRE_EINVAL, message: "options.max_matches is negative") }
        let searchOptions = TextSearchOptions(caseSensitive: c.match_case != 0, wholeWord: c.whole_word != 0,
                                              maxMatches: Int(c.max_matches))
        let progress = progressHandler(c.progress, c.progress_payload, "search", "no list was made")
        let matches: [TextMatch]
        if pageIndex == -1 {
            matches = try d.searchText(q, options: searchOptions, progress: progress)
        } else {
            try progress?(0, 1)
            matches = try d.textPage(at: Int(pageIndex)).search(q, options: searchOptions)
            try progress?(1, 1)
        }
        out.pointee = OpaquePointer(Unmanaged.passRetained(TextMatchListBox(matches)).toOpaque())
    }
}

@c @implementation
public func quire_text_match_list_count(_ out: UnsafeMutablePointer<Int32>?, _ list: OpaquePointer?) -> Int32 {
    guarded("quire_text_match_list_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try matchList(list).matches.count)
    }
}

@c @implementation
public func quire_text_match_list_get(_ outPage: UnsafeMutablePointer<Int32>?, _ outFirst: UnsafeMutablePointer<Int32>?,
                                      _ outCount: UnsafeMutablePointer<Int32>?, _ list: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_text_match_list_get") {
        let outPage = try required(outPage, "out_page_index")
        let outFirst = try required(outFirst, "out_first")
        let outCount = try required(outCount, "out_count")
        let m = try element(try matchList(list).matches, index, "match")
        outPage.pointee = Int32(clamping: m.pageIndex)
        outFirst.pointee = Int32(clamping: m.span.range.lowerBound)
        outCount.pointee = Int32(clamping: m.span.range.count)
    }
}

@c @implementation
public func quire_text_match_list_text(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                       _ list: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_text_match_list_text") {
        _ = try required(outLen, "out_len")
        try copyOut(try element(try matchList(list).matches, index, "match").span.text, buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_text_match_list_quads(_ buf: UnsafeMutablePointer<Double>?, _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?,
                                        _ list: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_text_match_list_quads") {
        _ = try required(outCount, "out_count")
        let m = try element(try matchList(list).matches, index, "match")
        try copyOut(numbers: m.span.quads.flatMap(\.quadPoints), buf, capacity, outCount)
    }
}

@c @implementation
public func quire_text_match_list_free(_ list: OpaquePointer?) {
    guard let list else { return }
    Unmanaged<TextMatchListBox>.fromOpaque(UnsafeRawPointer(list)).release()
}

@c @implementation
public func quire_document_add_text_markup(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ doc: OpaquePointer?,
                                           _ text: OpaquePointer?, _ kind: quire_text_markup,
                                           _ first: Int32, _ count: Int32) -> Int32 {
    guarded("quire_document_add_text_markup") {
        let d = try document(doc)
        let page = try textPage(text).page
        let subtype: String
        switch kind {
        case QUIRE_TEXT_MARKUP_HIGHLIGHT: subtype = "Highlight"
        case QUIRE_TEXT_MARKUP_UNDERLINE: subtype = "Underline"
        case QUIRE_TEXT_MARKUP_STRIKEOUT: subtype = "StrikeOut"
        case QUIRE_TEXT_MARKUP_SQUIGGLY: subtype = "Squiggly"
        default:
            throw CallError(code: QUIRE_EINVAL, message: "kind 0x\(String(kind.rawValue, radix: 16)) is not a QUIRE_TEXT_MARKUP_* value")
        }
        let range = try characterRange(page, first, count)
        let quads = page.span(range).quads
        guard !quads.isEmpty else {
            throw CallError(code: QUIRE_EINVAL, message: "characters \(first) to \(Int(first) + Int(count) - 1) cover no glyph")
        }
        let a = try d.addTextMarkup(subtype, pageIndex: page.pageIndex, quads: quads)
        if let out { give(a, out) }
    }
}

@c @implementation
public func quire_annotation_marked_text(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                         _ doc: OpaquePointer?, _ annotation: OpaquePointer?) -> Int32 {
    guarded("quire_annotation_marked_text") {
        _ = try required(outLen, "out_len")
        let d = try document(doc)
        let a = try box(annotation).annotation
        try copyOut(try d.markedText(of: a), buf, bufSize, outLen)
    }
}
