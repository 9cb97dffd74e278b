import CHarfBuzz
import QuireSyntax
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A font file that draws text Quire generates (field values, free text) in scripts a
/// simple font cannot encode: a TrueType font (glyf outlines) read by HarfBuzz, shaped by
/// it and embedded as a subset (``EmbeddedFonts``).
///
/// HarfBuzz objects are immutable once made (`hb_face_make_immutable`,
/// `hb_font_make_immutable`), so one instance is shared by every thread and document.
final class UnicodeFont: @unchecked Sendable {
    /// The file and the face's index in it (a TrueType collection holds several); for a
    /// program read from a PDF, what names it there.
    let path: String
    let index: UInt32
    /// The PostScript name (name ID 6), letters and digits only, or one made from the file name.
    let postScriptName: String
    let unitsPerEm: Double
    /// Font-wide metrics in thousandths of an em: ascender, descender, cap height, and the
    /// bounding box of the head table.
    let ascent: Double, descent: Double, capHeight: Double
    let bbox: [Double]
    let glyphCount: UInt32
    let italicAngle: Double
    let face: OpaquePointer
    let font: OpaquePointer

    /// Loads a face, or says why it cannot serve: the file cannot be read, is not a font,
    /// has no TrueType outlines (a CFF-based OpenType font), or its licence forbids
    /// embedding (OS/2 fsType "restricted").
    static func load(path: String, index: UInt32 = 0) throws -> UnicodeFont {
        guard let blob = hb_blob_create_from_file_or_fail(path) else {
            throw PDFError(.io, "the font file \(path) cannot be read")
        }
        defer { hb_blob_destroy(blob) }
        return try load(blob: blob, path: path, index: index)
    }

    /// Loads a font program held in memory (a PDF's embedded FontFile2, copied), `label`
    /// naming it in messages; it serves under the same conditions as a file.
    static func load(bytes: [UInt8], label: String) throws -> UnicodeFont {
        guard !bytes.isEmpty, bytes.count <= Int(Int32.max) else {
            throw PDFError(.format, "\(label) is not a font program HarfBuzz reads")
        }
        let made = bytes.withUnsafeBufferPointer { b in
            b.baseAddress.map { base in
                base.withMemoryRebound(to: CChar.self, capacity: b.count) {
                    hb_blob_create_or_fail($0, UInt32(b.count), HB_MEMORY_MODE_DUPLICATE, nil, nil)
                }
            } ?? nil
        }
        guard let blob = made else { throw PDFError(.limit, "\(label) cannot be read: out of memory") }
        defer { hb_blob_destroy(blob) }
        return try load(blob: blob, path: label, index: 0)
    }

    private static func load(blob: OpaquePointer, path: String, index: UInt32) throws -> UnicodeFont {
        guard hb_blob_get_length(blob) > 0, index < hb_face_count(blob) else {
            throw PDFError(.format, "\(path) is not a font file HarfBuzz reads (or has no face \(index))")
        }
        guard let face = hb_face_create(blob, index), hb_face_get_glyph_count(face) > 0 else {
            throw PDFError(.format, "\(path) is not a font file HarfBuzz reads")
        }
        /// The first `limit` bytes of a table (the small ones read here), and its length.
        func table(_ tag: String, limit: Int = 64) -> (bytes: [UInt8], length: Int) {
            let t = tag.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard let b = hb_face_reference_table(face, t) else { return ([], 0) }
            defer { hb_blob_destroy(b) }
            var length: UInt32 = 0
            guard let data = hb_blob_get_data(b, &length), length > 0 else { return ([], 0) }
            return (UnsafeRawBufferPointer(start: data, count: Swift.min(Int(length), limit)).map { $0 }, Int(length))
        }
        guard table("glyf", limit: 0).length > 0, table("loca", limit: 0).length > 0 else {
            hb_face_destroy(face)
            throw PDFError(.unsupported, "\(path) has no TrueType outlines (glyf): only TrueType fonts are embedded")
        }
        let os2 = table("OS/2").bytes
        if os2.count >= 10 {
            let fsType = UInt16(os2[8]) << 8 | UInt16(os2[9])
            // Bits 0-3: 2 is "restricted licence embedding", which must not be embedded.
            if fsType & 0x000F == 0x0002 {
                hb_face_destroy(face)
                throw PDFError(.unsupported, "\(path)'s licence does not allow embedding (OS/2 fsType \(fsType))")
            }
        }
        hb_face_make_immutable(face)
        guard let font = hb_font_create(face) else {
            hb_face_destroy(face)
            throw PDFError(.internal, "HarfBuzz could not make a font of \(path)")
        }
        hb_font_make_immutable(font)
        return UnicodeFont(
            path: path,
            index: index,
            face: face,
            font: font,
            head: table("head").bytes,
            post: table("post").bytes
        )
    }

    private init(path: String, index: UInt32, face: OpaquePointer, font: OpaquePointer, head: [UInt8], post: [UInt8]) {
        self.path = path
        self.index = index
        self.face = face
        self.font = font
        let upem = Double(Swift.max(hb_face_get_upem(face), 16))
        unitsPerEm = upem
        glyphCount = hb_face_get_glyph_count(face)
        func metric(_ tag: hb_ot_metrics_tag_t) -> Double? {
            var v: hb_position_t = 0
            return hb_ot_metrics_get_position(font, tag, &v) != 0 ? Double(v) * 1000 / upem : nil
        }
        ascent = metric(HB_OT_METRICS_TAG_HORIZONTAL_ASCENDER) ?? 800
        descent = metric(HB_OT_METRICS_TAG_HORIZONTAL_DESCENDER) ?? -200
        capHeight = metric(HB_OT_METRICS_TAG_CAP_HEIGHT) ?? ascent
        // head: xMin, yMin, xMax, yMax as int16 at 36.
        if head.count >= 44 {
            let v = (0..<4).map { k in
                Double(Int16(bitPattern: UInt16(head[36 + 2 * k]) << 8 | UInt16(head[37 + 2 * k]))) * 1000 / upem
            }
            bbox = v
        } else {
            bbox = [0, descent, 1000, ascent]
        }
        // post: italicAngle, a 16.16 fixed number at 4.
        if post.count >= 8 {
            let raw = Int32(
                bitPattern: UInt32(post[4]) << 24 | UInt32(post[5]) << 16 | UInt32(post[6]) << 8 | UInt32(post[7])
            )
            italicAngle = Double(raw) / 65536
        } else {
            italicAngle = 0
        }
        var buffer = [CChar](repeating: 0, count: 128)
        var size = UInt32(buffer.count)
        _ = hb_ot_name_get_utf8(
            face,
            hb_ot_name_id_t(HB_OT_NAME_ID_POSTSCRIPT_NAME),
            nil,  // HB_LANGUAGE_INVALID: the English name (the default language is the locale's, "c")
            &size,
            &buffer
        )
        var name = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        if name.isEmpty {
            let file = path.split(separator: "/").last.map(String.init) ?? "Font"
            name = String(file.prefix(while: { $0 != "." })).filter {
                $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-")
            }
        }
        postScriptName = name.isEmpty ? "Font" : String(name.prefix(60))
    }

    deinit {
        hb_font_destroy(font)
        hb_face_destroy(face)
    }

    /// The glyph the font's cmap gives `scalar`, or nil.
    func glyph(_ scalar: Unicode.Scalar) -> UInt32? {
        var g: hb_codepoint_t = 0
        return hb_font_get_nominal_glyph(font, scalar.value, &g) != 0 && g != 0 ? g : nil
    }

    /// The advance of glyph `gid` in thousandths of an em (its hmtx width).
    func advance(_ gid: UInt32) -> Double {
        Double(hb_font_get_glyph_h_advance(font, gid)) * 1000 / unitsPerEm
    }
}

/// The fonts that draw text in generated appearances when the font of the default
/// appearance (/DA) cannot (docs/forms.md, "Text in any script").
///
/// For each character, the first font of this order that has a glyph for it:
///
/// 1. the font files given to the document (``Document/appearanceFontFiles``: `quire_document_add_font`,
///    `Document.add_font`, `quire fill --font`), in the order given;
/// 2. the files of the `QUIRE_FONTS` environment variable (paths separated by `:`);
/// 3. the system's fonts, found at run time in this order (``systemCandidates``): DejaVu
///    Sans (Debian's `fonts-dejavu-core`: Latin, Greek, Cyrillic, Armenian, Georgian, Hebrew,
///    Arabic, many symbols), Noto Sans and its script fonts (`fonts-noto-core`: Hebrew,
///    Arabic, Devanagari, Thai and the others), Droid Sans Fallback (`fonts-droid-fallback`:
///    Chinese, Japanese, Korean), WenQuanYi Zen Hei (`fonts-wqy-zenhei`), FreeSans and
///    FreeSerif (`fonts-freefont-ttf`).
///
/// Only TrueType fonts (glyf outlines) whose licence allows embedding serve; others are
/// skipped. A character no font has is not drawn as a substitute: the call that sets the
/// text fails (``PDFErrorKind/unsupported``, naming the character), and an appearance
/// regenerated for text already in the file (flattening) leaves it out with a warning.
public enum AppearanceFonts {
    /// The system font files tried, in order, after the document's and `QUIRE_FONTS`'s. A
    /// path ending in `*.ttf` stands for the files of its directory that match, sorted.
    public static let systemCandidates: [String] = [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
        "/usr/share/fonts/truetype/noto/NotoSansHebrew-Regular.ttf",
        "/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf",
        "/usr/share/fonts/truetype/noto/NotoNaskhArabic-Regular.ttf",
        "/usr/share/fonts/truetype/noto/NotoSansSymbols-Regular.ttf",
        "/usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf",
        "/usr/share/fonts/truetype/noto/NotoSans*-Regular.ttf",
        "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
        "/usr/share/fonts/truetype/droid/DroidSansFallback.ttf",
        "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
        "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
        "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
        "/usr/share/fonts/truetype/freefont/FreeSerif.ttf",
    ]

    /// The most font files the fallback order holds (a `QUIRE_FONTS` or a directory of
    /// thousands is cut there).
    public static let maxFonts = 256

    /// Loaded fonts by path, shared by every document; a file that cannot serve is
    /// remembered as nil.
    private static let cache = FontCache()

    /// The font of `path`, loaded once.
    static func font(_ path: String) throws -> UnicodeFont {
        try cache.font(path)
    }

    /// The system's fonts and `QUIRE_FONTS`'s that can serve, in order (expanded once).
    static func defaultFonts() -> [UnicodeFont] {
        cache.defaults {
            var paths: [String] = []
            if let env = getenv("QUIRE_FONTS") {
                paths += String(cString: env).split(separator: ":").map(String.init).filter { !$0.isEmpty }
            }
            for candidate in systemCandidates {
                if candidate.hasSuffix("*-Regular.ttf") {
                    paths += directoryMatches(candidate)
                } else {
                    paths.append(candidate)
                }
            }
            var seen: Set<String> = []
            var fonts: [UnicodeFont] = []
            for p in paths where seen.insert(p).inserted && fonts.count < maxFonts {
                if let f = try? cache.font(p) { fonts.append(f) }
            }
            return fonts
        }
    }

    /// The files of `pattern`'s directory whose names begin with its prefix and end with
    /// its suffix around `*`, sorted.
    private static func directoryMatches(_ pattern: String) -> [String] {
        guard let slash = pattern.lastIndex(of: "/"), let star = pattern.firstIndex(of: "*") else { return [] }
        let dir = String(pattern[..<slash])
        let prefix = String(pattern[pattern.index(after: slash)..<star])
        let suffix = String(pattern[pattern.index(after: star)...])
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var names: [String] = []
        while let entry = readdir(d), names.count < maxFonts {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name.hasPrefix(prefix), name.hasSuffix(suffix), name.count > prefix.count + suffix.count {
                names.append(name)
            }
        }
        return names.sorted().map { dir + "/" + $0 }
    }
}

/// The process-wide cache of loaded fonts, behind a lock.
private final class FontCache: Sendable {
    private struct State {
        var fonts: [String: UnicodeFont] = [:]
        var failures: [String: PDFError] = [:]
        var defaults: [UnicodeFont]? = nil
    }
    private let state = Mutex(State())

    func font(_ path: String) throws -> UnicodeFont {
        if let f = state.withLock({ $0.fonts[path] }) { return f }
        if let e = state.withLock({ $0.failures[path] }) { throw e }
        do {
            let f = try UnicodeFont.load(path: path)
            return state.withLock { s in
                if let existing = s.fonts[path] { return existing }
                s.fonts[path] = f
                return f
            }
        } catch let e as PDFError {
            state.withLock { $0.failures[path] = e }
            throw e
        }
    }

    func defaults(_ make: () -> [UnicodeFont]) -> [UnicodeFont] {
        if let list = state.withLock({ $0.defaults }) { return list }
        let list = make()
        return state.withLock { s in
            if let existing = s.defaults { return existing }
            s.defaults = list
            return list
        }
    }
}
