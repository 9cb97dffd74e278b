import CQuireJPEG
import QuireSyntax

/// What applying redactions removes besides the text, and what else it cleans
/// (``Document/applyRedactions(_:progress:)``).
public struct RedactionOptions: Sendable, Equatable {
    /// Glyphs whose box intersects a region.
    public var text = true
    /// Images drawn in a region: removed when a region covers them, else their pixels in
    /// the region blanked.
    public var images = true
    /// Vector paths that lie wholly inside a region.
    public var graphics = true
    /// Annotations and form widgets that intersect a region.
    public var annotations = true
    /// Document cleanup: the catalog's /Metadata and the trailer's /Info.
    public var removeMetadata = false
    /// Document cleanup: the /EmbeddedFiles name tree, /AF of the catalog, and FileAttachment
    /// annotations.
    public var removeEmbeddedFiles = false
    /// Document cleanup: the /JavaScript name tree, the catalog's /OpenAction when it is a
    /// script, and the catalog's /AA.
    public var removeJavaScript = false

    public init() {}
}

/// What ``Document/applyRedactions(_:progress:)`` did.
public struct RedactionResult: Sendable, Equatable {
    /// Redact annotations applied (and removed).
    public var redactions = 0
    /// Pages whose content changed.
    public var pages = 0
    public var glyphsRemoved = 0
    /// Images (XObjects and inline images) removed whole.
    public var imagesRemoved = 0
    /// Images whose pixels in a region were blanked (decoded, blanked, re-encoded).
    public var imagesBlanked = 0
    public var pathsRemoved = 0
    /// Annotations and widgets removed because they intersect a region (not the Redact
    /// annotations themselves).
    public var annotationsRemoved = 0
    /// What was done differently from the rules (an image removed whole because its filter
    /// cannot be re-encoded, say), one sentence each.
    public var notes: [String] = []

    public init() {}
}

/// The rewrite of one page's content streams by a redaction: ``ContentTextInterpreter``
/// reads the content (one home for what each operator does) and tells this what it met,
/// with the byte range of each operator; this decides what goes and collects the edits of
/// each stream (the page's, and each form XObject's, as a frame).
final class ContentRedaction {
    struct Edit {
        var start: Int, end: Int
        var bytes: [UInt8]
    }

    /// The edits of one stream being read.
    struct Frame {
        var data: [UInt8]
        var edits: [Edit] = []
        /// XObjects added to the stream's resources: rewritten copies, each drawn by one
        /// placement under its own name (``ContentRedaction/place(_:of:drawnWith:from:to:)``).
        var xobjects: [PDFName: PDFObject] = [:]
        /// How many `Do` of each name the stream has, and how many of them now draw a copy
        /// or were removed.
        var draws: [PDFName: Int] = [:]
        var replaced: [PDFName: Int] = [:]
        /// The byte ranges of the current path's construction operators.
        var pathRanges: [Range<Int>] = []
        var pathBox: (minX: Double, minY: Double, maxX: Double, maxY: Double)? = nil
        var clips = false
        /// Marked content open: the operator's range, its tag, whether its properties carry
        /// replacement text (/ActualText, /Alt, /E), and the glyphs removed when it opened.
        var marked: [(start: Int, end: Int, tag: PDFName?, hasText: Bool, removedAtOpen: Int)] = []

        var changed: Bool { !edits.isEmpty || !xobjects.isEmpty }

        /// The stream's XObject resources `xobjects` with the copies added, and without the
        /// originals that no `Do` of the stream draws any more (each placement drew a copy
        /// or went): an original left there would keep what was redacted in the file.
        func resources(_ xobjects: PDFDictionary) -> PDFDictionary {
            var out = xobjects
            for (name, count) in replaced where count >= (draws[name] ?? 0) { out[name] = nil }
            for (k, v) in self.xobjects { out[k] = v }
            return out
        }

        /// The stream's bytes with the edits made (edits that overlap an earlier one are
        /// dropped; they cannot arise from one reading).
        func rewritten() -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(data.count)
            var position = 0
            for e in edits.sorted(by: { $0.start < $1.start }) {
                let start = Swift.min(Swift.max(e.start, 0), data.count)
                let end = Swift.min(Swift.max(e.end, start), data.count)
                guard start >= position else { continue }
                out += data[position..<start]
                out += e.bytes
                position = end
            }
            out += data[position...]
            return out
        }
    }

    let document: Document
    let regions: [RedactionRegion]
    let options: RedactionOptions
    let pageNumber: Int
    var frames: [Frame] = []
    var pageFrame: Frame? = nil
    /// Why the page cannot be redacted (damage that stopped the reading).
    private(set) var failure: String? = nil
    /// Glyphs shown by the current text operator: their byte range in their string, whether
    /// they go, and their displacement in thousandths of text space.
    var shown: [(offset: Int, count: Int, removed: Bool, displacement: Double)] = []
    var result = RedactionResult()
    /// Copies of XObjects placed on this page (for their new names).
    private var copies = 0

    init(document: Document, regions: [RedactionRegion], options: RedactionOptions, pageNumber: Int) {
        self.document = document
        self.regions = regions
        self.options = options
        self.pageNumber = pageNumber
    }

    func fail(_ message: String) {
        if failure == nil { failure = message }
    }

    /// Starts a frame for a stream about to be read.
    func begin(_ data: [UInt8]) {
        frames.append(Frame(data: data))
    }

    private func edit(_ start: Int, _ end: Int, _ text: String) {
        guard !frames.isEmpty else { return }
        frames[frames.count - 1].edits.append(Edit(start: start, end: end, bytes: Array(text.utf8)))
    }

    // MARK: Geometry

    /// Whether `box` overlaps a region by more than a hundredth of a point each way (a box
    /// of no width, such as a zero-width glyph, overlaps when it touches;
    /// ``RedactionRegion/intersects(_:)``: a turned region by its polygon).
    func intersects(_ box: Rect) -> Bool {
        regions.contains { $0.intersects(box) }
    }

    /// Whether one region holds all of `box`.
    func inside(_ box: Rect) -> Bool {
        regions.contains { $0.contains(box) }
    }

    /// The box of the unit square through `ctm` (where an image is drawn).
    static func unitSquare(_ ctm: TextMatrix) -> Rect {
        let p = [ctm.apply(0, 0), ctm.apply(1, 0), ctm.apply(0, 1), ctm.apply(1, 1)]
        return Rect(
            left: p.map(\.x).min() ?? 0,
            bottom: p.map(\.y).min() ?? 0,
            right: p.map(\.x).max() ?? 0,
            top: p.map(\.y).max() ?? 0
        )
    }

    // MARK: Text

    func glyph(offset: Int, count: Int, box: Rect, displacement: Double) {
        let removed = options.text && intersects(box)
        shown.append((offset, count, removed, displacement.isFinite ? displacement : 0))
    }

    /// A text-showing operator (`Tj`, `'`, `"`, `TJ`) has shown `strings` (each with where
    /// its glyphs begin in ``shown``); `items` are the TJ array's. When a glyph goes, the
    /// operator becomes a TJ without it, a number in its place moving what follows by its
    /// displacement: the text that stays keeps its positions.
    func shownText(
        _ op: String,
        _ n: [Double],
        _ strings: [(PDFString, Int)],
        numbers items: [PDFObject],
        from: Int,
        to: Int
    ) {
        defer { shown.removeAll(keepingCapacity: true) }
        guard shown.contains(where: \.removed) else { return }
        var ranges: [Range<Int>] = []
        for (k, s) in strings.enumerated() {
            let end = k + 1 < strings.count ? strings[k + 1].1 : shown.count
            ranges.append(Swift.min(s.1, end)..<Swift.max(s.1, end))
        }
        var out: [PDFObject] = []
        func number(_ v: Double) {
            guard v.isFinite else { return }
            if case .real(let last)? = out.last, (last + v).isFinite {
                out[out.count - 1] = .real(last + v)
            } else {
                out.append(.real(v))
            }
        }
        func add(_ s: PDFString, _ range: Range<Int>) {
            let bytes = s.bytes
            var run: [UInt8] = []
            for i in range where i >= 0 && i < shown.count {
                let g = shown[i]
                let lo = Swift.min(g.offset, bytes.count)
                let hi = Swift.min(g.offset + g.count, bytes.count)
                if g.removed {
                    if !run.isEmpty {
                        out.append(.string(PDFString(bytes: run, isHex: s.isHex)))
                        run = []
                    }
                    number(-g.displacement)
                    result.glyphsRemoved += 1
                } else {
                    run += bytes[lo..<hi]
                }
            }
            if !run.isEmpty { out.append(.string(PDFString(bytes: run, isHex: s.isHex))) }
        }
        if op == "TJ" {
            var k = 0
            for item in items {
                switch item {
                case .string(let s) where k < ranges.count:
                    add(s, ranges[k])
                    k += 1
                case .integer, .real:
                    number(item.number ?? 0)
                default: break
                }
            }
        } else if let first = strings.first, let range = ranges.first {
            add(first.0, range)
        }
        // Strings may hold any bytes: the array is written as bytes, not through a String.
        var bytes: [UInt8] = Array("\n".utf8)
        if op == "'" { bytes += Array("T* ".utf8) }
        if op == "\"", n.count >= 3 {
            bytes += Array("\(Appearance.n(n[n.count - 3])) Tw \(Appearance.n(n[n.count - 2])) Tc T* ".utf8)
        }
        bytes += Serializer.bytes(.array(out)) + Array(" TJ\n".utf8)
        if !frames.isEmpty {
            frames[frames.count - 1].edits.append(Edit(start: from, end: to, bytes: bytes))
        }
    }

    // MARK: Marked content

    func openMarked(_ tag: PDFName?, properties: PDFDictionary?, from: Int, to: Int) {
        guard !frames.isEmpty else { return }
        let hasText = properties.map { $0["ActualText"] != nil || $0["Alt"] != nil || $0["E"] != nil } ?? false
        frames[frames.count - 1].marked.append((from, to, tag, hasText, result.glyphsRemoved))
    }

    /// At EMC: marked content whose glyphs lost some gives up its replacement text too (it
    /// becomes `/Tag BMC`).
    func closeMarked() {
        guard !frames.isEmpty, let m = frames[frames.count - 1].marked.popLast() else { return }
        guard m.hasText, result.glyphsRemoved > m.removedAtOpen else { return }
        let tag = m.tag.map { String(decoding: Serializer.bytes(.name($0)), as: UTF8.self) } ?? "/Span"
        edit(m.start, m.end, "\n\(tag) BMC\n")
    }

    // MARK: Paths and inline images

    /// Every operator passes here first, with the state before it.
    func step(
        _ op: String,
        _ n: [Double],
        _ operands: [PDFObject],
        from: Int,
        to: Int,
        state: ContentTextInterpreter.GState
    ) {
        guard !frames.isEmpty else { return }
        let k = frames.count - 1
        func point(_ x: Double, _ y: Double) {
            let p = state.ctm.apply(x, y)
            guard p.x.isFinite, p.y.isFinite else { return }
            if let b = frames[k].pathBox {
                frames[k].pathBox = (
                    Swift.min(b.minX, p.x), Swift.min(b.minY, p.y), Swift.max(b.maxX, p.x), Swift.max(b.maxY, p.y)
                )
            } else {
                frames[k].pathBox = (p.x, p.y, p.x, p.y)
            }
        }
        func arg(_ i: Int, of count: Int) -> Double {
            let j = n.count - count + i
            return j >= 0 && j < n.count ? n[j] : 0
        }
        switch op {
        case "m", "l", "c", "v", "y", "re", "h":
            frames[k].pathRanges.append(from..<Swift.max(from, to))
            switch op {
            case "m", "l": point(arg(0, of: 2), arg(1, of: 2))
            case "c": for i in 0..<3 { point(arg(2 * i, of: 6), arg(2 * i + 1, of: 6)) }
            case "v", "y": for i in 0..<2 { point(arg(2 * i, of: 4), arg(2 * i + 1, of: 4)) }
            case "re":
                let x = arg(0, of: 4)
                let y = arg(1, of: 4)
                let w = arg(2, of: 4)
                let h = arg(3, of: 4)
                point(x, y)
                point(x + w, y)
                point(x, y + h)
                point(x + w, y + h)
            default: break
            }
        case "W", "W*":
            frames[k].clips = true
        case "S", "s", "f", "F", "f*", "B", "B*", "b", "b*", "n":
            defer {
                frames[k].pathRanges = []
                frames[k].pathBox = nil
                frames[k].clips = false
            }
            guard options.graphics, op != "n", !frames[k].pathRanges.isEmpty, let b = frames[k].pathBox else { return }
            // A stroke reaches half the line width past the path (in page space).
            let strokes = ["S", "s", "B", "B*", "b", "b*"].contains(op)
            let scale = (abs(state.ctm.a * state.ctm.d - state.ctm.b * state.ctm.c)).squareRoot()
            let reach = strokes ? Swift.max(state.lineWidth, 1) * Swift.max(scale, 1e-9) / 2 : 0
            let box = Rect(left: b.minX - reach, bottom: b.minY - reach, right: b.maxX + reach, top: b.maxY + reach)
            guard box.left.isFinite, box.right.isFinite, inside(box) else { return }
            result.pathsRemoved += 1
            // A path that also clips keeps its clip (painted by nothing: `n`); otherwise its
            // construction goes too. Operators between them (colours that writers put
            // there, which viewers accept) stay.
            if frames[k].clips {
                edit(from, to, "\nn\n")
            } else {
                for r in frames[k].pathRanges { edit(r.lowerBound, r.upperBound, "\n") }
                edit(from, to, "\n")
            }
        case "RG", "rg", "G", "g", "K", "k", "CS", "cs", "SC", "SCN", "sc", "scn", "w", "J", "j", "M", "d", "ri", "i",
            "gs":
            break  // misplaced in a path, but read by viewers: the path goes on
        default:
            frames[k].pathRanges = []
            frames[k].pathBox = nil
            frames[k].clips = false
        }
    }

    /// An inline image (`BI` ... `EI`) in the bytes `from..<to`: removed when a region
    /// covers it, else written again with its pixels in the regions blanked, as image
    /// XObjects are (``blank(_:ctm:)``); removed whole when Quire cannot re-encode it (a
    /// colour space named in the resources, JPX, JBIG2, CCITT).
    func inlineImage(ctm: TextMatrix, from: Int, to: Int) {
        let box = ContentRedaction.unitSquare(ctm)
        guard options.images, !frames.isEmpty, intersects(box) else { return }
        let data = frames[frames.count - 1].data
        if !inside(box), from >= 0, from < to, to <= data.count,
            let blanked = blankedInlineImage(Array(data[from..<to]), ctm: ctm)
        {
            result.imagesBlanked += 1
            frames[frames.count - 1].edits.append(Edit(start: from, end: to, bytes: blanked))
            return
        }
        result.imagesRemoved += 1
        edit(from, to, "\n")
    }

    /// The inline image `bytes` (from `BI` to `EI`) with its pixels in the regions blanked,
    /// as `BI` ... `EI` again (the dictionary's keys in full, which §8.9.7 allows); nil when
    /// it cannot be read or re-encoded.
    func blankedInlineImage(_ bytes: [UInt8], ctm: TextMatrix) -> [UInt8]? {
        let keys: [String: String] = [
            "BPC": "BitsPerComponent", "CS": "ColorSpace", "D": "Decode", "DP": "DecodeParms", "F": "Filter",
            "H": "Height", "IM": "ImageMask", "I": "Interpolate", "W": "Width", "L": "Length",
        ]
        var parser = ObjectParser(ByteBuffer(copying: bytes), limits: document.options.limits)
        guard case .keyword("BI")? = try? parser.lexer.next() else { return nil }
        var dict = PDFDictionary()
        while true {
            guard let token = try? parser.lexer.next() else { return nil }
            if case .keyword("ID") = token { break }
            guard case .name(let key) = token, dict.count < 64, let value = try? parser.parseObject() else {
                return nil
            }
            dict[PDFName(keys[key.value] ?? key.value)] = value
        }
        // One white-space byte after ID; the data ends before the white space before `EI`.
        let start = parser.position + 1
        var end = bytes.count - 2
        guard start <= end, bytes[end] == UInt8(ascii: "E"), bytes[end + 1] == UInt8(ascii: "I") else { return nil }
        if end > start, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[end - 1]) { end -= 1 }
        if end > start, bytes[end] == 0x0A, bytes[end - 1] == 0x0D { end -= 1 }
        dict["Length"] = nil
        guard let blanked = try? blank(PDFStream(dictionary: dict, data: .bytes(Array(bytes[start..<end]))), ctm: ctm)
        else { return nil }
        let data = document.file.rawData(blanked)
        // Data that holds `EI` between white space would end the image early for a viewer
        // that scans for it: then the image goes whole.
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 || b == 0x0C || b == 0x00 }
        for i in 1..<Swift.max(1, data.count - 1)
        where data[i] == UInt8(ascii: "E") && data[i + 1] == UInt8(ascii: "I") && isSpace(data[i - 1])
            && (i + 2 >= data.count || isSpace(data[i + 2]))
        {
            return nil
        }
        var out: [UInt8] = Array("\nBI".utf8)
        for (key, value) in blanked.dictionary where key.value != "Length" {
            out += Array(" ".utf8) + Serializer.bytes(.name(key)) + Array(" ".utf8) + Serializer.bytes(value)
        }
        return out + Array(" ID ".utf8) + data + Array("\nEI\n".utf8)
    }

    // MARK: XObjects

    /// A form XObject was read in the frame on top: when it changed, a rewritten copy is
    /// drawn in its place at this placement only (``place(_:of:drawnWith:from:to:)``).
    func endForm(
        _ name: PDFName,
        stream: PDFStream,
        resources: PDFDictionary,
        drawnWith parent: PDFDictionary,
        from: Int,
        to: Int
    ) {
        guard let frame = frames.popLast(), frame.changed, failure == nil, !frames.isEmpty else { return }
        do {
            let raw = frame.rewritten()
            var plain = stream.dictionary
            for key: PDFName in ["Length", "Filter", "DecodeParms", "F", "FFilter", "FDecodeParms"] { plain[key] = nil }
            if !frame.xobjects.isEmpty || !frame.replaced.isEmpty {
                var res = resources
                res["XObject"] = .dictionary(
                    frame.resources((try document.dictionary(res["XObject"])) ?? PDFDictionary())
                )
                plain["Resources"] = .dictionary(res)
            }
            var stored = plain
            stored["Filter"] = .name("FlateDecode")
            let id = try document.addStream(stored, data: try Filters.deflate(raw))
            place(id, of: name, drawnWith: parent, from: from, to: to)
        } catch {
            fail("form XObject /\(name.value) cannot be rewritten: \(error)")
        }
    }

    /// XObject `name`, drawn by the `Do` at `from..<to` of the stream on top, is drawn
    /// there as `copy` (a rewritten form, a blanked image): under a new name added to that
    /// stream's resources, the `Do` renamed. The original keeps its name, so the other
    /// placements of the same XObject, on this page or others, draw it as they did: a form
    /// drawn twice, with a region over one placement, loses its content there only.
    func place(_ copy: ObjectID, of name: PDFName, drawnWith resources: PDFDictionary, from: Int, to: Int) {
        guard !frames.isEmpty else { return }
        let taken = Set(((try? document.dictionary(resources["XObject"])) ?? PDFDictionary()).keys)
        var fresh: PDFName
        repeat {
            copies += 1
            fresh = PDFName("\(name.value)_R\(copies)")
        } while taken.contains(fresh) || frames[frames.count - 1].xobjects[fresh] != nil
        frames[frames.count - 1].xobjects[fresh] = .reference(copy)
        frames[frames.count - 1].replaced[name, default: 0] += 1
        frames[frames.count - 1].edits.append(
            Edit(start: from, end: to, bytes: Array("\n".utf8) + Serializer.bytes(.name(fresh)) + Array(" Do\n".utf8))
        )
    }

    /// `Do` of `name` at `ctm`: an image in a region is removed (covered whole) or has its
    /// pixels in the regions blanked; forms were read already.
    func drawn(_ name: PDFName, resources: PDFDictionary, ctm: TextMatrix, from: Int, to: Int) {
        if !frames.isEmpty { frames[frames.count - 1].draws[name, default: 0] += 1 }
        guard options.images, !frames.isEmpty,
            let xobjects = try? document.dictionary(resources["XObject"]),
            let ref = xobjects[name],
            case .stream(let original)? = try? document.resolve(ref),
            (try? document.resolve(original.dictionary["Subtype"] ?? .null))?.name?.value == "Image"
        else { return }
        let box = ContentRedaction.unitSquare(ctm)
        guard intersects(box) else { return }
        if inside(box) {
            result.imagesRemoved += 1
            frames[frames.count - 1].replaced[name, default: 0] += 1
            edit(from, to, "\n")
            return
        }
        do {
            if let blanked = try blank(original, ctm: ctm) {
                let id = try document.addObject(.stream(blanked))
                place(id, of: name, drawnWith: resources, from: from, to: to)
                result.imagesBlanked += 1
                return
            }
        } catch {
            fail("image /\(name.value) cannot be blanked: \(error)")
            return
        }
        result.imagesRemoved += 1
        result.notes.append(
            "page \(pageNumber): image /\(name.value) lies partly in a region and is removed whole: "
                + "its encoding (\(filterNames(original).joined(separator: ", "))) is not one Quire re-encodes"
        )
        frames[frames.count - 1].replaced[name, default: 0] += 1
        edit(from, to, "\n")
    }

    func filterNames(_ s: PDFStream) -> [String] {
        guard let f = try? document.resolve(s.dictionary["Filter"] ?? .null) else { return [] }
        if let name = f.name { return [name.value] }
        return (f.array ?? []).compactMap { (try? document.resolve($0))?.name?.value }
    }

    /// Components per pixel of an image's colour space; nil for one not known.
    func components(_ s: PDFStream) -> Int? {
        let d = s.dictionary
        if case .bool(true)? = try? document.resolve(d["ImageMask"] ?? .null) { return 1 }
        guard let cs = try? document.resolve(d["ColorSpace"] ?? .null) else { return nil }
        func count(_ cs: PDFObject, depth: Int) -> Int? {
            guard depth < 4 else { return nil }
            if let name = cs.name?.value {
                switch name {
                case "DeviceGray", "G", "CalGray", "Indexed", "I", "Separation": return 1
                case "DeviceRGB", "RGB", "CalRGB", "Lab": return 3
                case "DeviceCMYK", "CMYK": return 4
                default:
                    // A named colour space of the resources is not resolved here.
                    return nil
                }
            }
            guard let a = cs.array, let first = a.first.flatMap({ (try? document.resolve($0))?.name?.value }) else {
                return nil
            }
            switch first {
            case "Indexed", "I", "Separation": return 1
            case "ICCBased":
                guard a.count >= 2, case .stream(let icc)? = try? document.resolve(a[1]),
                    let n = (try? document.resolve(icc.dictionary["N"] ?? .null))?.integer, (1...4).contains(n)
                else { return nil }
                return Int(n)
            case "DeviceN":
                guard a.count >= 2, let names = (try? document.resolve(a[1]))?.array, (1...32).contains(names.count)
                else { return nil }
                return names.count
            case "CalGray": return 1
            case "CalRGB", "Lab": return 3
            default: return nil
            }
        }
        return count(cs, depth: 0)
    }

    /// Image `s`, drawn at `ctm`, with its pixels in the regions blanked (0 samples: black
    /// in gray and RGB, no ink in CMYK, not painted in a stencil mask). A JPEG (DCTDecode
    /// last) is re-encoded as a JPEG with the source's tables (``blankJPEG(_:ctm:)``);
    /// other data is Flate-encoded. Nil when its data is in an encoding Quire does not
    /// re-encode (JPX, JBIG2, CCITT) or its layout is not one it knows.
    func blank(_ s: PDFStream, ctm: TextMatrix) throws -> PDFStream? {
        let filters = filterNames(s)
        if let last = filters.last, last == "DCTDecode" || last == "DCT" { return try blankJPEG(s, ctm: ctm) }
        let codecs: Set<String> = ["DCTDecode", "DCT", "JPXDecode", "JBIG2Decode", "CCITTFaxDecode", "CCF"]
        guard !filters.contains(where: codecs.contains) else { return nil }
        let d = s.dictionary
        func int(_ key: PDFName) -> Int? {
            guard let v = (try? document.resolve(d[key] ?? .null))?.integer, v > 0, v <= 1 << 20 else { return nil }
            return Int(v)
        }
        let mask: Bool
        if case .bool(true)? = try? document.resolve(d["ImageMask"] ?? .null) { mask = true } else { mask = false }
        guard let w = int("Width"), let h = int("Height"), let comps = components(s) else { return nil }
        let bpc = mask ? 1 : (int("BitsPerComponent") ?? 8)
        guard [1, 2, 4, 8, 16].contains(bpc) else { return nil }
        let bitsPerPixel = comps * bpc
        let rowBytes = (w * bitsPerPixel + 7) / 8
        guard w * h <= 200_000_000 else { return nil }
        var data = try document.file.decodedData(s)
        guard data.count >= rowBytes * h else { return nil }
        // A stencil mask paints where its bit is 0 (with the default /Decode [0 1]).
        var fillBit: UInt8 = 0
        if mask {
            let decode = (try? document.resolve(d["Decode"] ?? .null))?.array?.compactMap(\.number) ?? [0, 1]
            fillBit = decode.first == 1 ? 0 : 1
        }
        let blanked = data.withUnsafeMutableBufferPointer {
            blankPixels($0, width: w, height: h, bitsPerPixel: bitsPerPixel, fillBit: fillBit, ctm: ctm)
        }
        guard blanked else { return nil }
        var dict = d
        for key: PDFName in ["Length", "Filter", "DecodeParms", "F", "FFilter", "FDecodeParms"] { dict[key] = nil }
        dict["Filter"] = .name("FlateDecode")
        return PDFStream(dictionary: dict, data: .bytes(try Filters.deflate(Array(data.prefix(rowBytes * h)))))
    }

    /// A JPEG image (DCTDecode, after any other filters) with its pixels in the regions
    /// blanked and encoded again as a JPEG by the system libjpeg, with the source's
    /// quantization tables, sampling factors, colour space and progression
    /// (Sources/CQuireJPEG): the image keeps its filter and its quality, and the pixels
    /// outside the regions change only by one more round of the same quantization. Nil
    /// when libjpeg cannot read it (a 12-bit JPEG, damage it gives up on) or its
    /// components are not its colour space's.
    func blankJPEG(_ s: PDFStream, ctm: TextMatrix) throws -> PDFStream? {
        let d = s.dictionary
        guard let comps = components(s) else { return nil }
        if case .bool(true)? = try? document.resolve(d["ImageMask"] ?? .null) { return nil }
        // The DCT filter's own parameters (the last of an array of them).
        let parms = try? document.resolve(d["DecodeParms"] ?? .null)
        let dctParms = (parms?.array.flatMap { $0.last }).flatMap { try? document.resolve($0) } ?? parms
        let transform =
            (try? document.resolve(dctParms?.dictionary?["ColorTransform"] ?? .null))?.integer.map(Int32.init) ?? -1
        let jpeg = try document.file.decodedData(s)
        final class Edit {
            let redaction: ContentRedaction
            let ctm: TextMatrix
            let components: Int
            init(_ redaction: ContentRedaction, _ ctm: TextMatrix, _ components: Int) {
                self.redaction = redaction
                self.ctm = ctm
                self.components = components
            }
        }
        let edit = Edit(self, ctm, comps)
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = jpeg.withUnsafeBufferPointer { input in
            qjpeg_recode(
                input.baseAddress,
                input.count,
                transform,
                200_000_000,
                { samples, width, height, components, payload in
                    guard let samples, let payload, width > 0, height > 0 else { return 1 }
                    let edit = Unmanaged<Edit>.fromOpaque(payload).takeUnretainedValue()
                    guard Int(components) == edit.components else { return 1 }
                    let count = Int(width) * Int(height) * Int(components)
                    let blanked = edit.redaction.blankPixels(
                        UnsafeMutableBufferPointer(start: samples, count: count),
                        width: Int(width),
                        height: Int(height),
                        bitsPerPixel: 8 * Int(components),
                        fillBit: 0,
                        ctm: edit.ctm
                    )
                    return blanked ? 0 : 1
                },
                Unmanaged.passUnretained(edit).toOpaque(),
                &out,
                &size,
                &message,
                message.count
            )
        }
        defer { qjpeg_free(out) }
        guard status == 0, let out, size > 0 else {
            if status < 0 {
                let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                result.notes.append("page \(pageNumber): a JPEG image cannot be re-encoded (\(text))")
            }
            return nil
        }
        var dict = d
        for key: PDFName in ["Length", "Filter", "DecodeParms", "F", "FFilter", "FDecodeParms"] { dict[key] = nil }
        dict["Filter"] = .name("DCTDecode")
        dict["BitsPerComponent"] = .integer(8)
        if let dctParms, dctParms.dictionary != nil { dict["DecodeParms"] = dctParms }
        return PDFStream(dictionary: dict, data: .bytes(Array(UnsafeBufferPointer(start: out, count: size))))
    }

    /// Blanks the pixels of `data` (an image of `width` x `height`, rows top first, each
    /// row whole bytes of `bitsPerPixel` bits a pixel) that lie in the regions, the image
    /// drawn at `ctm`: a pixel that a region's box touches, or whose centre lies in a
    /// turned region's polygon. Each bit becomes `fillBit`. False when `ctm` maps no area
    /// or the data is too short for the image.
    func blankPixels(
        _ data: UnsafeMutableBufferPointer<UInt8>,
        width w: Int,
        height h: Int,
        bitsPerPixel: Int,
        fillBit: UInt8,
        ctm: TextMatrix
    ) -> Bool {
        let rowBytes = (w * bitsPerPixel + 7) / 8
        guard data.count >= rowBytes * h else { return false }
        // The inverse of ctm maps page space onto the image's unit square.
        let det = ctm.a * ctm.d - ctm.b * ctm.c
        guard det != 0, det.isFinite else { return false }
        func toUnit(_ x: Double, _ y: Double) -> (Double, Double) {
            let px = x - ctm.e
            let py = y - ctm.f
            return ((ctm.d * px - ctm.c * py) / det, (-ctm.b * px + ctm.a * py) / det)
        }
        for region in regions {
            let r = region.bounds
            let corners =
                region.polygon.map { $0.map { toUnit($0.x, $0.y) } }
                ?? [toUnit(r.left, r.bottom), toUnit(r.right, r.bottom), toUnit(r.left, r.top), toUnit(r.right, r.top)]
            // A turned region blanks the pixels whose centre lies in its polygon.
            let shape = region.polygon == nil ? nil : corners.map { RedactionRegion.Point(x: $0.0, y: $0.1) }
            func held(_ x: Int, _ y: Int) -> Bool {
                guard let shape else { return true }
                let centre = RedactionRegion.Point(
                    x: (Double(x) + 0.5) / Double(w),
                    y: 1 - (Double(y) + 0.5) / Double(h)
                )
                return RedactionRegion.convex(shape, holds: centre)
            }
            let u0 = corners.map(\.0).min() ?? 0
            let u1 = corners.map(\.0).max() ?? 0
            let v0 = corners.map(\.1).min() ?? 0
            let v1 = corners.map(\.1).max() ?? 0
            guard u1 > 0, u0 < 1, v1 > 0, v0 < 1 else { continue }
            // Clamped as doubles first: a region far off the image maps far outside it.
            func pixel(_ v: Double, _ size: Int) -> Int { Int(Swift.min(Swift.max(v, 0), Double(size))) }
            let x0 = pixel((u0 * Double(w)).rounded(.down), w)
            let x1 = pixel((u1 * Double(w)).rounded(.up), w)
            // Row 0 is the top of the image (v = 1).
            let y0 = pixel(((1 - v1) * Double(h)).rounded(.down), h)
            let y1 = pixel(((1 - v0) * Double(h)).rounded(.up), h)
            guard x0 < x1, y0 < y1 else { continue }
            for y in y0..<y1 {
                let row = y * rowBytes
                if bitsPerPixel % 8 == 0 && shape == nil && fillBit == 0 {
                    let bpp = bitsPerPixel / 8
                    for i in (row + x0 * bpp)..<(row + x1 * bpp) { data[i] = 0 }
                } else {
                    for x in x0..<x1 where held(x, y) {
                        for bit in (x * bitsPerPixel)..<((x + 1) * bitsPerPixel) {
                            let i = row + bit / 8
                            let m = UInt8(0x80) >> UInt8(bit % 8)
                            data[i] = fillBit == 1 ? data[i] | m : data[i] & ~m
                        }
                    }
                }
            }
        }
        return true
    }
}
