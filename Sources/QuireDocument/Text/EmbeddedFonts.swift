import CHarfBuzz
import QuireSyntax

/// The Unicode fonts one appearance stream draws with, and the glyphs it uses of each:
/// written into the document as composite fonts (ISO 32000-2 §9.7): a Type0 font with the
/// Identity-H encoding (the codes are glyph ids), a CIDFontType2 descendant with
/// /CIDToGIDMap /Identity and the widths of its glyphs, the font program subset to those
/// glyphs by HarfBuzz's hb-subset (glyph ids kept), and a /ToUnicode CMap that gives each
/// glyph's characters back to text extraction.
final class EmbeddedFonts {
    let chain: FontChain
    /// The glyphs used of each font of the chain, and the characters each stands for.
    private(set) var used: [Int: [UInt32: String]] = [:]

    init(chain: FontChain) {
        self.chain = chain
    }

    /// The resource name of the chain's font `index` in the appearance's /Font.
    static func resourceName(_ index: Int) -> String { "QuireU\(index)" }

    /// The content operators that show `line` with its left end at (x, y), at `size`:
    /// a `Tf`, `Tm` and `TJ` per stretch of glyphs of one font with no offsets. `skew`
    /// slants the glyphs (the text matrix's c: an italic drawn from an upright font);
    /// `stretch` scales them and their advances across (its a).
    func show(_ line: ShapedLine, x: Double, y: Double, size: Double, skew: Double = 0, stretch: Double = 1) -> String {
        let n = Appearance.n
        var ops: [String] = []
        var pen = x
        var k = 0
        let glyphs = line.glyphs
        var currentFont: Int? = nil
        while k < glyphs.count {
            let g = glyphs[k]
            record(g)
            if currentFont != g.font {
                ops.append("/\(EmbeddedFonts.resourceName(g.font)) \(n(size)) Tf")
                currentFont = g.font
            }
            // A stretch: glyphs of this font from k on, without offsets (a glyph with an
            // offset, such as a mark, is a stretch of its own).
            var items = "<" + hex(g.gid) + ">"
            var j = k + 1
            if g.xOffset == 0 && g.yOffset == 0 {
                while j < glyphs.count, glyphs[j].font == g.font, glyphs[j].xOffset == 0, glyphs[j].yOffset == 0 {
                    // The pen moves by the font's width of the glyph before; TJ's number
                    // makes up the difference to the shaped advance (kerning).
                    let previous = glyphs[j - 1]
                    let adjust = chain.fonts[previous.font].advance(previous.gid) - previous.advance
                    if abs(adjust) > 0.01 { items += " \(n(adjust)) " }
                    items += "<" + hex(glyphs[j].gid) + ">"
                    record(glyphs[j])
                    j += 1
                }
            }
            let (gx, gy) = (pen + g.xOffset * size * stretch / 1000, y + g.yOffset * size / 1000)
            ops.append("\(n(stretch)) 0 \(n(skew)) 1 \(n(gx)) \(n(gy)) Tm [\(items)] TJ")
            for m in k..<j { pen += glyphs[m].advance * size * stretch / 1000 }
            k = j
        }
        return ops.joined(separator: "\n")
    }

    private func hex(_ gid: UInt32) -> String {
        let s = String(gid & 0xFFFF, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - s.count) + s
    }

    private func record(_ g: ShapedGlyph) {
        if used[g.font]?[g.gid]?.isEmpty ?? true {
            used[g.font, default: [:]][g.gid] = g.text
        }
    }

    /// Writes the fonts used into `document` and gives their resource entries.
    func write(into document: Document) throws -> [(String, PDFObject)] {
        var out: [(String, PDFObject)] = []
        for index in used.keys.sorted() {
            guard let glyphs = used[index], index < chain.fonts.count else { continue }
            let ref = try writeFont(chain.fonts[index], glyphs: glyphs, into: document)
            out.append((EmbeddedFonts.resourceName(index), .reference(ref)))
        }
        return out
    }

    private func writeFont(_ font: UnicodeFont, glyphs: [UInt32: String], into document: Document) throws -> ObjectID {
        let gids = Set(glyphs.keys).union([0]).sorted()
        let program = try subset(font, gids: gids)
        // The subset tag (§9.6.5): six capitals from a hash of the glyphs and the font.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for v in gids.map(UInt64.init) + font.postScriptName.utf8.map(UInt64.init) {
            hash = (hash ^ v) &* 0x100_0000_01b3
        }
        var tag = ""
        for _ in 0..<6 {
            tag.append(Character(Unicode.Scalar(UInt8(65 + hash % 26))))
            hash /= 26
        }
        let baseName = PDFName(tag + "+" + font.postScriptName)
        let compressed = try Filters.deflate(program)
        let file = try document.addStream(
            PDFDictionary([
                ("Length1", .integer(Int64(program.count))), ("Filter", .name("FlateDecode")),
            ]),
            data: compressed
        )
        let num = Annotation.number
        let r = { (v: Double) in num(v.rounded()) }
        let descriptor = try document.addObject(
            .dictionary(
                PDFDictionary([
                    ("Type", .name("FontDescriptor")), ("FontName", .name(baseName)),
                    // Symbolic (bit 3): its glyphs are not the standard Latin set.
                    ("Flags", .integer(4)),
                    ("FontBBox", .array(font.bbox.map(r))),
                    ("ItalicAngle", num(font.italicAngle)),
                    ("Ascent", r(font.ascent)), ("Descent", r(font.descent)), ("CapHeight", r(font.capHeight)),
                    ("StemV", .integer(80)),
                    ("FontFile2", .reference(file)),
                ])
            )
        )
        // /W: runs of consecutive glyph ids, each with its widths.
        var w: [PDFObject] = []
        var k = 0
        while k < gids.count {
            var j = k + 1
            while j < gids.count && gids[j] == gids[j - 1] + 1 { j += 1 }
            w.append(.integer(Int64(gids[k])))
            w.append(.array(gids[k..<j].map { r(font.advance($0)) }))
            k = j
        }
        let cidFont = try document.addObject(
            .dictionary(
                PDFDictionary([
                    ("Type", .name("Font")), ("Subtype", .name("CIDFontType2")), ("BaseFont", .name(baseName)),
                    (
                        "CIDSystemInfo",
                        .dictionary(
                            PDFDictionary([
                                ("Registry", .string(PDFString(text: "Adobe"))),
                                ("Ordering", .string(PDFString(text: "Identity"))),
                                ("Supplement", .integer(0)),
                            ])
                        )
                    ),
                    ("FontDescriptor", .reference(descriptor)),
                    ("DW", .integer(1000)),
                    ("W", .array(w)),
                    ("CIDToGIDMap", .name("Identity")),
                ])
            )
        )
        let toUnicode = try document.addStream(
            PDFDictionary([("Filter", .name("FlateDecode"))]),
            data: try Filters.deflate(Array(EmbeddedFonts.toUnicodeCMap(glyphs).utf8))
        )
        return try document.addObject(
            .dictionary(
                PDFDictionary([
                    ("Type", .name("Font")), ("Subtype", .name("Type0")), ("BaseFont", .name(baseName)),
                    ("Encoding", .name("Identity-H")),
                    ("DescendantFonts", .array([.reference(cidFont)])),
                    ("ToUnicode", .reference(toUnicode)),
                ])
            )
        )
    }

    /// The font program with only `gids` (and the glyphs their composites use), glyph ids
    /// kept, without the layout tables (the shaping is done).
    private func subset(_ font: UnicodeFont, gids: [UInt32]) throws -> [UInt8] {
        guard let input = hb_subset_input_create_or_fail() else {
            throw PDFError(.internal, "HarfBuzz could not subset \(font.path): out of memory")
        }
        defer { hb_subset_input_destroy(input) }
        let set = hb_subset_input_glyph_set(input)
        for g in gids { hb_set_add(set, g) }
        hb_subset_input_set_flags(input, HB_SUBSET_FLAGS_RETAIN_GIDS.rawValue)
        let drop = hb_subset_input_set(input, HB_SUBSET_SETS_DROP_TABLE_TAG)
        for t in ["GSUB", "GPOS", "GDEF", "BASE", "JSTF", "MATH", "morx", "kerx", "kern", "DSIG", "vhea", "vmtx"] {
            hb_set_add(drop, t.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }
        guard let face = hb_subset_or_fail(font.face, input) else {
            throw PDFError(.unsupported, "HarfBuzz could not subset the font \(font.path)")
        }
        defer { hb_face_destroy(face) }
        guard let blob = hb_face_reference_blob(face) else {
            throw PDFError(.internal, "HarfBuzz gave no subset of \(font.path)")
        }
        defer { hb_blob_destroy(blob) }
        var length: UInt32 = 0
        guard let data = hb_blob_get_data(blob, &length), length > 0 else {
            throw PDFError(.unsupported, "HarfBuzz gave an empty subset of \(font.path)")
        }
        return UnsafeRawBufferPointer(start: data, count: Int(length)).map { $0 }
    }

    /// A /ToUnicode CMap (§9.10.3) from glyph ids (the codes under Identity-H) to text (at
    /// most 128 UTF-16 units a glyph: §9.10.3 allows 512 bytes).
    static func toUnicodeCMap(_ glyphs: [UInt32: String]) -> String {
        func hex16(_ v: UInt32) -> String {
            let s = String(v, radix: 16, uppercase: true)
            return String(repeating: "0", count: Swift.max(0, 4 - s.count)) + s
        }
        let entries = glyphs.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }
            .map { "<\(hex16($0.key & 0xFFFF))> <\($0.value.utf16.prefix(128).map { hex16(UInt32($0)) }.joined())>" }
        var out = """
            /CIDInit /ProcSet findresource begin
            12 dict begin
            begincmap
            /CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def
            /CMapName /Adobe-Identity-UCS def
            /CMapType 2 def
            1 begincodespacerange
            <0000> <FFFF>
            endcodespacerange

            """
        var k = 0
        while k < entries.count {
            let block = entries[k..<Swift.min(k + 100, entries.count)]
            out += "\(block.count) beginbfchar\n" + block.joined(separator: "\n") + "\nendbfchar\n"
            k += 100
        }
        out += "endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n"
        return out
    }
}
