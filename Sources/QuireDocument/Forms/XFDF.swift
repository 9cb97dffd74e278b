import CExpat
import FoundationEssentials
import QuireSyntax

/// XFDF (ISO 19444-1): annotations (with replies and review states) and field values as
/// XML, as Acrobat's comment export and PDFTron's WebViewer write it.
///
/// Export writes `<xfdf xmlns="http://ns.adobe.com/xfdf/" xml:space="preserve">` with
/// `<annots>` (one element per annotation, named by its subtype in lower case: `square`,
/// `highlight`, `ink`, ...; attributes `page` (0-based), `rect`, `name` (/NM), `title`,
/// `subject`, `date`, `creationdate`, `color`, `interior-color`, `opacity`, `flags`,
/// `width`, `inreplyto` (the /NM of the parent), `replyType`, `state`, `statemodel`,
/// `coords`, `start`/`end`/`head`/`tail` of lines, `icon`; children `contents`,
/// `inklist`/`gesture`, `vertices`, `defaultappearance`) and `<fields>` (nested by partial
/// names, each with its `value`s). Links, popups and widgets are not annotations of XFDF.
/// A file attachment (`<fileattachment>`) has its file's name in `file`, its description
/// in `desc`, and its bytes in a `<data MODE="raw" encoding="hex" length="N"
/// mimetype="type/subtype">` child, as Acrobat writes it; import also reads
/// `encoding="base64"` and `filter="FlateDecode"` data, checks `length`, and refuses data
/// that does not decode, or decodes past ``Annotation/AttachedFile/maxBytes``.
/// An image stamp's image is an `<imagedata>` child holding a data URL
/// (`data:image/png;base64,...` or `image/jpeg`), as Apryse's WebViewer and SDK write it
/// (XFDF 3.0 has no element for it): export writes the bytes Quire keeps (the PNG or JPEG
/// given); import reads PNG and JPEG (``XFDF/image(_:)``), refuses anything else.
/// Rich text (/RC) is a `<contents-richtext>` child holding its XHTML `<body>` as
/// elements (XFDF 3.0), sanitized on both ways (``RichText/sanitized(_:)``); the blend mode
/// (/BM) is Quire's own `blend-mode` attribute (XFDF has none; other readers ignore it); a
/// line's caption (/Cap, /CP, /CO) is XFDF 3.0's `caption` (yes or no), `caption-style`
/// (Inline or Top), `caption-offset-h` and `caption-offset-v`.
/// Annotations are listed in each page's drawing order (/Annots): an import gives the
/// annotations it lists, on each page, that order among the places they hold there.
///
/// Import reads the same with Expat: an annotation whose `name` is already on its page is
/// updated, any other is added; `inreplyto` links replies by name after all are read;
/// field values are set with the rules of forms (a value a field refuses is a warning).
/// Hostile XFDF gets a ``PDFError``: no document type declaration is accepted (so no
/// entity, internal or external, is ever expanded: no billion laughs, no file read), at
/// most ``XFDF/maxBytes`` bytes, ``XFDF/maxDepth`` levels and ``XFDF/maxElements`` elements.
public enum XFDF {
    public static let maxBytes = 64 << 20
    public static let maxDepth = 64
    public static let maxElements = 1_000_000

    static let subtypes: [String: String] = [
        "text": "Text", "freetext": "FreeText", "line": "Line", "square": "Square", "circle": "Circle",
        "polygon": "Polygon", "polyline": "PolyLine", "highlight": "Highlight", "underline": "Underline",
        "squiggly": "Squiggly", "strikeout": "StrikeOut", "ink": "Ink", "stamp": "Stamp", "caret": "Caret",
        "fileattachment": "FileAttachment", "sound": "Sound", "redact": "Redact",
    ]
    static let flagNames: [(Int, String)] = [
        (1, "invisible"), (2, "hidden"), (4, "print"), (8, "nozoom"), (16, "norotate"), (32, "noview"),
        (64, "readonly"), (128, "locked"), (256, "togglenoview"), (512, "lockedcontents"),
    ]

    /// Acrobat's `<measure>` element of a scale: `rateValue` (/R), and the number formats
    /// of /X (`axis`), /D (`distance`) and /A (`area`) with their unit (`u`), conversion
    /// factor (`f`) and precision (`d`, 10 to the decimals).
    static func measure(_ m: MeasurementScale) -> String {
        var d = 1
        for _ in 0..<m.precision { d *= 10 }
        func format(_ element: String, _ unit: String, _ factor: Double) -> String {
            "<\(element) d=\"\(d)\" f=\"\(number(factor))\" rd=\".\" rt=\"\" u=\"\(escape(unit))\"/>"
        }
        return "<measure rateValue=\"\(escape(m.ratio))\">" + format("axis", m.toUnit, m.factor) + format("distance", m.toUnit, 1)
            + format("area", "sq " + m.toUnit, 1) + "</measure>"
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\r": out += "&#13;"
            case "\n": out += "&#10;"
            default:
                if c.value < 0x20 && c != "\t" { continue }  // not allowed in XML 1.0
                out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static func number(_ v: Double) -> String {
        Appearance.n(v)
    }

    /// XFDF's colours are "#RRGGBB": the model's one writer and parser (the "#" optional on
    /// reading, as some producers leave it out).
    static func color(_ c: [Double]) -> String? { Annotation.hexColor(c) }

    static func parseColor(_ s: String) -> [Double]? { Annotation.color(hex: s, requireHash: false) }

    /// `a`, read from an element that matched `existing`, with each value XFDF writes with
    /// less precision than the PDF holds taken from `existing` where the element says the
    /// same at that precision: numbers in thousandths, colours in 8 bits a channel, rich
    /// text sanitized, and a cloud's border style (XFDF's one `style` says "cloudy"). So an
    /// element that changes nothing compares equal, and one that changes a field rounds no
    /// other.
    static func keepingPrecision(_ a: Annotation, of existing: Annotation) -> Annotation {
        var a = a
        func same(_ x: [Double], _ y: [Double]) -> Bool { x.map(number) == y.map(number) }
        func keep(_ path: WritableKeyPath<Annotation, [Double]>) {
            if same(a[keyPath: path], existing[keyPath: path]) { a[keyPath: path] = existing[keyPath: path] }
        }
        func keep(_ path: WritableKeyPath<Annotation, Double?>) {
            if let x = a[keyPath: path], let y = existing[keyPath: path], number(x) == number(y) { a[keyPath: path] = y }
        }
        func corners(_ r: Rect) -> [Double] { [r.left, r.bottom, r.right, r.top] }
        if same(corners(a.rect), corners(existing.rect)) { a.rect = existing.rect }
        for path in [\Annotation.quadPoints, \.linePoints, \.vertices, \.rectDifferences, \.calloutLine, \.dashPattern, \.captionOffset] {
            keep(path)
        }
        if a.inkList.count == existing.inkList.count, zip(a.inkList, existing.inkList).allSatisfy({ same($0, $1) }) {
            a.inkList = existing.inkList
        }
        if number(a.opacity) == number(existing.opacity) { a.opacity = existing.opacity }
        keep(\.borderWidth)
        keep(\.cloudyIntensity)
        if let c = a.color, let e = existing.color, color(c) == color(e) { a.color = e }
        if let c = a.interiorColor, let e = existing.interiorColor, color(c) == color(e) { a.interiorColor = e }
        // Rich text compares by what its body holds (the reader writes its own
        // xfa:APIVersion on the body).
        if let r = a.richText, let e = existing.richText, let mine = try? RichText.sanitized(e).xhtml,
            mine.drop(while: { $0 != ">" }) == r.drop(while: { $0 != ">" })
        {
            a.richText = e
        }
        if a.cloudyIntensity != nil, a.borderStyle == nil { a.borderStyle = existing.borderStyle }
        return a
    }

    /// The image of an `<imagedata>` element: a data URL `data:image/png;base64,...` (or
    /// image/jpeg, image/jpg), or bare base64 of a PNG or JPEG (white space skipped). The
    /// image is checked as ``Annotation/StampImage`` checks it (it must decode; at most
    /// ``ImageAttachment/maxBytes``); anything else is a `.format` error.
    static func image(_ text: String) throws -> Annotation.StampImage {
        let chars = text.utf8.filter { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
        var payload = chars[...]
        var declared: String? = nil
        if chars.starts(with: Array("data:".utf8)) {
            guard let comma = chars.firstIndex(of: UInt8(ascii: ",")) else { throw PDFError(.format, "a data URL without a comma") }
            let header = String(decoding: chars[5..<comma], as: UTF8.self).lowercased()
            let parts = header.split(separator: ";").map(String.init)
            guard parts.last == "base64" else { throw PDFError(.format, "a data URL that is not base64 (\"data:\(header.prefix(40))\")") }
            declared = parts.count > 1 ? parts[0] : nil
            payload = chars[(comma + 1)...]
        }
        // Base64 is 4 characters for 3 bytes: refuse a longer text before decoding it.
        guard payload.count / 4 * 3 <= ImageAttachment.maxBytes + 3 else {
            throw PDFError(.limit, "the image is about \(payload.count / 4 * 3) bytes long (at most \(ImageAttachment.maxBytes))")
        }
        guard let data = Data(base64Encoded: Data(payload)) else { throw PDFError(.format, "the image data is not base64") }
        let bytes = [UInt8](data)
        let sniffed: String? = bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) ? "image/png" : bytes.starts(with: [0xFF, 0xD8]) ? "image/jpeg" : nil
        switch declared {
        case "image/png"?, "image/jpeg"?, "image/jpg"?: break
        case nil: guard sniffed != nil else { throw PDFError(.format, "the image is neither PNG nor JPEG") }
        case let other?: throw PDFError(.format, "images of type \"\(other.prefix(40))\" are not supported (image/png or image/jpeg)")
        }
        let type = declared == "image/jpg" ? "image/jpeg" : declared ?? sniffed ?? "image/png"
        return try Annotation.StampImage(bytes: bytes, contentType: type)
    }

    /// The file of a `<data>` element: its text decoded by `encoding` (hex, the default,
    /// or base64; white space skipped), inflated when `filter` is FlateDecode (within
    /// ``Annotation/AttachedFile/maxBytes``), its `length` (when given) the count of the
    /// bytes read or of those decoded, and with the name (default "file"), description and
    /// `mimetype` checked as ``Annotation/AttachedFile`` checks them.
    static func file(_ text: String, _ attrs: [String: String], name: String?, description: String?) throws -> Annotation.AttachedFile {
        let maxBytes = Annotation.AttachedFile.maxBytes
        let digits = text.utf8.filter { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
        var bytes: [UInt8]
        switch (attrs["encoding"] ?? "hex").lowercased() {
        case "hex":
            guard digits.count % 2 == 0 else { throw PDFError(.format, "an odd number of hexadecimal digits") }
            bytes = []
            bytes.reserveCapacity(digits.count / 2)
            var i = 0
            while i < digits.count {
                guard let hi = Hex.value(digits[i]), let lo = Hex.value(digits[i + 1]) else {
                    throw PDFError(.format, "encoding=\"hex\" but the data has a character that is not a hexadecimal digit")
                }
                bytes.append(hi << 4 | lo)
                i += 2
            }
        case "base64":
            guard let data = Data(base64Encoded: Data(digits)) else { throw PDFError(.format, "encoding=\"base64\" but the data is not base64") }
            bytes = [UInt8](data)
        case let other:
            throw PDFError(.format, "encoding=\"\(other.prefix(40))\" is not hex or base64")
        }
        let read = bytes.count
        switch attrs["filter"] {
        case nil: break
        case "FlateDecode"?:
            bytes = try bytes.withUnsafeBufferPointer { input in
                try Filters.inflate(input, budget: DecodeBudget(maxBytes: maxBytes, maxRatio: Int.max,
                                                                bytesLimit: ("attached_file_max_bytes", maxBytes)),
                                    warning: { _ in })
            }
        case let other?:
            throw PDFError(.format, "filter=\"\(other.prefix(40))\" is not FlateDecode")
        }
        guard bytes.count <= maxBytes else {
            throw PDFError(.limit, "the file is \(bytes.count) bytes long (at most \(maxBytes))")
        }
        if let length = attrs["length"] {
            guard let n = Int(length), n == bytes.count || n == read else {
                throw PDFError(.format, "length=\"\(length.prefix(40))\" but the data holds \(bytes.count) bytes")
            }
        }
        return try Annotation.AttachedFile(bytes: bytes, name: name ?? "file", contentType: attrs["mimetype"], description: description)
    }

    /// XFDF's `style` names of /BS /S (XFDF 3.0 §2.5.1; "cloudy" is /BE /S /C).
    static let borderStyles: [(pdf: String, xfdf: String)] = [
        ("S", "solid"), ("D", "dash"), ("B", "bevelled"), ("I", "inset"), ("U", "underline"),
    ]

    static func numbers(_ s: String) -> [Double]? {
        let parts = s.split(whereSeparator: { $0 == "," || $0 == ";" || $0 == " " })
        var out: [Double] = []
        for p in parts {
            guard let v = Double(p), v.isFinite else { return nil }
            out.append(v)
        }
        return out
    }
}

extension Document {
    // MARK: Export

    /// The document's annotations (all but links, popups and widgets) and field values as
    /// XFDF. `progress` (see ``ProgressHandler``) counts two steps per page: its
    /// annotations read, then written; throwing from it stops the export.
    public func exportXFDF(progress: ProgressHandler? = nil) throws -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<xfdf xmlns=\"http://ns.adobe.com/xfdf/\" xml:space=\"preserve\">\n<annots>\n"
        let pageIndices = try pages().indices
        let steps = 2 * pageIndices.count
        var all: [Annotation] = []
        for index in pageIndices {
            try progress?(index, steps)
            all += try annotations(onPage: index)
        }
        // An annotation without /NM is named by its object number, as the annotation JSON's
        // `id` names it, so that importing the export updates it (and replies name it).
        // Not when another annotation's /NM is that number: that name is the other's.
        let namesInUse = Set(all.compactMap(\.name))
        var nameOf: [Int: String] = [:]
        for a in all {
            guard let id = a.id else { continue }
            if let n = a.name ?? (namesInUse.contains(String(id.number)) ? nil : String(id.number)) { nameOf[id.number] = n }
        }
        var lastPage: Int? = nil
        for a in all {
            if a.pageIndex != lastPage {
                lastPage = a.pageIndex
                try progress?(pageIndices.count + a.pageIndex, steps)
            }
            let element = a.subtype.lowercased()
            guard XFDF.subtypes[element] != nil else { continue }
            var attrs: [(String, String)] = [("page", "\(a.pageIndex)"),
                                             ("rect", [a.rect.left, a.rect.bottom, a.rect.right, a.rect.top].map(XFDF.number).joined(separator: ","))]
            if let n = a.id.flatMap({ nameOf[$0.number] }) ?? a.name { attrs.append(("name", n)) }
            if let t = a.author { attrs.append(("title", t)) }
            if let s = a.subject { attrs.append(("subject", s)) }
            if let d = a.modificationDate { attrs.append(("date", d.description)) }
            if let d = a.creationDate { attrs.append(("creationdate", d.description)) }
            if let c = a.color.flatMap(XFDF.color) { attrs.append(("color", c)) }
            if let c = a.interiorColor.flatMap(XFDF.color) { attrs.append(("interior-color", c)) }
            if a.opacity != 1 { attrs.append(("opacity", XFDF.number(a.opacity))) }
            let flags = XFDF.flagNames.filter { a.flags & $0.0 != 0 }.map(\.1)
            if !flags.isEmpty { attrs.append(("flags", flags.joined(separator: ","))) }
            if let w = a.borderWidth { attrs.append(("width", XFDF.number(w))) }
            if let i = a.cloudyIntensity {
                attrs.append(("style", "cloudy"))
                attrs.append(("intensity", XFDF.number(i)))
            } else if let style = a.borderStyle.flatMap({ s in XFDF.borderStyles.first { $0.pdf == s }?.xfdf }) {
                attrs.append(("style", style))
            }
            if !a.dashPattern.isEmpty { attrs.append(("dashes", a.dashPattern.map(XFDF.number).joined(separator: ","))) }
            if let sy = a.symbol { attrs.append(("symbol", sy == "P" ? "paragraph" : "none")) }
            if a.rectDifferences.count == 4 { attrs.append(("fringe", a.rectDifferences.map(XFDF.number).joined(separator: ","))) }
            if let irt = a.inReplyTo {
                if let parent = nameOf[irt.number] {
                    attrs.append(("inreplyto", parent))
                    if let rt = a.replyType { attrs.append(("replyType", rt == .group ? "group" : "reply")) }
                } else {
                    file.warn("XFDF export: annotation \(a.id.map { "\($0.number)" } ?? "?") replies to object \(irt.number), which is no annotation of a page: written without inreplyto")
                }
            } else if let parent = a.inReplyToID {
                // A reply whose parent is gone keeps its link by name (Annotation.inReplyToID).
                attrs.append(("inreplyto", parent))
                if let rt = a.replyType { attrs.append(("replyType", rt == .group ? "group" : "reply")) }
            }
            if let s = a.state { attrs.append(("state", s)) }
            if let m = a.stateModel { attrs.append(("statemodel", m)) }
            if !a.quadPoints.isEmpty { attrs.append(("coords", a.quadPoints.map(XFDF.number).joined(separator: ","))) }
            if a.linePoints.count >= 4 {
                let p = a.linePoints
                attrs.append(("start", "\(XFDF.number(p[0])),\(XFDF.number(p[1]))"))
                attrs.append(("end", "\(XFDF.number(p[2])),\(XFDF.number(p[3]))"))
            }
            if a.lineEndings.count >= 2 && (a.subtype == "Line" || a.subtype == "PolyLine") {
                attrs.append(("head", a.lineEndings[0]))
                attrs.append(("tail", a.lineEndings[1]))
            } else if a.subtype == "FreeText", let head = a.lineEndings.first {
                attrs.append(("head", head))
            }
            if let it = a.intent { attrs.append(("intent", it)) }
            if a.subtype == "Line" {
                // XFDF 3.0's caption attributes of <line>.
                if a.caption { attrs.append(("caption", "yes")) }
                if let style = a.captionPosition { attrs.append(("caption-style", style)) }
                if a.captionOffset.count == 2 {
                    attrs.append(("caption-offset-h", XFDF.number(a.captionOffset[0])))
                    attrs.append(("caption-offset-v", XFDF.number(a.captionOffset[1])))
                }
            }
            if !a.calloutLine.isEmpty { attrs.append(("callout", a.calloutLine.map(XFDF.number).joined(separator: ","))) }
            if let q = a.alignment { attrs.append(("justification", ["left", "centered", "right"][Swift.min(Swift.max(q, 0), 2)])) }
            if let overlay = a.overlayText { attrs.append(("overlay-text", overlay)) }
            if a.repeatsOverlayText { attrs.append(("overlay-text-repeat", "true")) }
            if let icon = a.iconName { attrs.append(("icon", icon)) }
            if a.rotation != 0 { attrs.append(("rotation", "\(a.rotation)")) }
            if let mode = a.blendMode { attrs.append(("blend-mode", mode)) }
            var data = ""
            if a.subtype == "FileAttachment" { data = try xfdfFileData(a, attrs: &attrs) }
            if a.subtype == "Stamp" { data = try xfdfImageData(a) }
            out += "<\(element)" + attrs.map { " \($0.0)=\"\(XFDF.escape($0.1))\"" }.joined() + ">"
            out += data
            if let c = a.contents { out += "<contents>\(XFDF.escape(c))</contents>" }
            // Rich text as XFDF 3.0 carries it: the XHTML body as elements, sanitized.
            if let rc = a.richText, let clean = try? RichText.sanitized(rc) { out += "<contents-richtext>\(clean.xhtml)</contents-richtext>" }
            if let da = a.defaultAppearance { out += "<defaultappearance>\(XFDF.escape(da))</defaultappearance>" }
            if let ds = a.defaultStyle { out += "<defaultstyle>\(XFDF.escape(ds))</defaultstyle>" }
            if !a.inkList.isEmpty {
                out += "<inklist>" + a.inkList.map { stroke in
                    "<gesture>" + stride(from: 0, to: stroke.count - 1, by: 2).map { "\(XFDF.number(stroke[$0])),\(XFDF.number(stroke[$0 + 1]))" }.joined(separator: ";") + "</gesture>"
                }.joined() + "</inklist>"
            }
            if !a.vertices.isEmpty {
                let v = a.vertices
                out += "<vertices>" + stride(from: 0, to: v.count - 1, by: 2).map { "\(XFDF.number(v[$0])),\(XFDF.number(v[$0 + 1]))" }.joined(separator: ";") + "</vertices>"
            }
            if let m = a.measurement { out += XFDF.measure(m) }
            out += "</\(element)>\n"
        }
        out += "</annots>\n<fields>\n"
        // Fields nested by partial names.
        final class Node { var children: [(String, Node)] = []; var values: [String]? = nil }
        let root = Node()
        for f in try formFields() where !f.name.isEmpty && f.type != .pushButton && f.type != .signature {
            var node = root
            for part in f.name.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
                if let next = node.children.first(where: { $0.0 == part })?.1 {
                    node = next
                } else {
                    let next = Node()
                    node.children.append((part, next))
                    node = next
                }
            }
            node.values = f.values
        }
        func write(_ node: Node, depth: Int) {
            guard depth < XFDF.maxDepth else { return }
            for (name, child) in node.children {
                out += "<field name=\"\(XFDF.escape(name))\">"
                for v in child.values ?? [] { out += "<value>\(XFDF.escape(v))</value>" }
                write(child, depth: depth + 1)
                out += "</field>\n"
            }
        }
        write(root, depth: 0)
        out += "</fields>\n</xfdf>\n"
        try progress?(steps, steps)
        return out
    }

    /// A file attachment's `file` and `desc` attributes and its `<data>` child (hex). A
    /// file whose hex would not fit an XFDF document this import reads (``XFDF/maxBytes``),
    /// or that cannot be read, is left out with a warning.
    private func xfdfFileData(_ a: Annotation, attrs: inout [(String, String)]) throws -> String {
        if let name = a.fileInfo?.name { attrs.append(("file", name)) }
        if let d = a.fileInfo?.description { attrs.append(("desc", d)) }
        guard let id = a.id else { return "" }
        let file: Annotation.AttachedFile?
        do {
            file = try attachedFile(of: id)
        } catch {
            self.file.warn("XFDF export: the file of annotation \(id.number) cannot be read (\(error)); written without it")
            return ""
        }
        guard let file else { return "" }
        guard 2 * file.bytes.count < XFDF.maxBytes - (1 << 20) else {
            self.file.warn("XFDF export: the file of annotation \(id.number) is \(file.bytes.count) bytes long, too long for XFDF (\(XFDF.maxBytes) bytes in all); written without it")
            return ""
        }
        var out = "<data MODE=\"raw\" encoding=\"hex\" length=\"\(file.bytes.count)\""
        if let type = file.contentType { out += " mimetype=\"\(XFDF.escape(type))\"" }
        return out + ">" + Hex.string(file.bytes, uppercase: true) + "</data>"
    }

    /// An image stamp's `<imagedata>` child: its image's bytes as a data URL. An image
    /// whose base64 would not fit an XFDF document this import reads (``XFDF/maxBytes``), or
    /// that cannot be read, is left out with a warning.
    private func xfdfImageData(_ a: Annotation) throws -> String {
        guard let id = a.id else { return "" }
        let image: (bytes: [UInt8], contentType: String)?
        do {
            image = try imageAttachment(of: id)
        } catch {
            file.warn("XFDF export: the image of stamp \(id.number) cannot be read (\(error)); written without it")
            return ""
        }
        guard let image else { return "" }
        guard image.bytes.count / 3 * 4 < XFDF.maxBytes - (1 << 20) else {
            file.warn("XFDF export: the image of stamp \(id.number) is \(image.bytes.count) bytes long, too long for XFDF (\(XFDF.maxBytes) bytes in all); written without it")
            return ""
        }
        return "<imagedata>data:\(XFDF.escape(image.contentType));base64,\(Data(image.bytes).base64EncodedString())</imagedata>"
    }

    // MARK: Import

    /// Imports XFDF (see ``XFDF``): returns the number of annotations added or updated and
    /// of field values set. All or nothing (``allOrNothing(_:)``): on an error, or when
    /// `progress` (see ``ProgressHandler``; a step per annotation and per field) throws to
    /// cancel, nothing is imported. A value a field refuses is a warning, not an error.
    @discardableResult
    public func importXFDF(_ bytes: [UInt8], progress: ProgressHandler? = nil) throws -> Int {
        let reader = try XFDFReader.read(bytes)
        let steps = reader.annotations.count + reader.fields.count
        var done = 0
        return try allOrNothing {
            try progress?(0, steps)
            var count = 0
            var byName: [String: ObjectID] = [:]
            let present = try allAnnotations()
            for a in present { if let n = a.name, let id = a.id { byName[n] = id } }
            // One without /NM by its object number, as the export names it (when no /NM is that).
            for a in present where a.name == nil {
                if let id = a.id, byName[String(id.number)] == nil { byName[String(id.number)] = id }
            }
            var pendingReplies: [(ObjectID, String, ReplyType?)] = []
            var importedIDs: [ObjectID?] = []
            for record in reader.annotations {
                var a = record.annotation
                var existing = try a.name.flatMap { n in try byName[n].flatMap { try annotation($0) } }
                // An annotation without /NM matches by its number only an element of its subtype.
                if let e = existing, e.name == nil, e.subtype != a.subtype { existing = nil }
                let id: ObjectID
                if let existing, let eid = existing.id, existing.pageIndex == a.pageIndex {
                    a.id = eid
                    if existing.name == nil { a.name = nil }  // it stays without /NM
                    a = XFDF.keepingPrecision(a, of: existing)
                    a.replyType = record.replyType ?? existing.replyType  // the reply loop below sets a new one
                    a.inReplyTo = existing.inReplyTo
                    a.inReplyToID = existing.inReplyToID
                    a.popup = existing.popup
                    a.popupID = existing.popupID
                    // What XFDF has no element for stays as it is: custom data, the record id
                    // of a synced layer, an action or destination.
                    a.customData = existing.customData
                    a.recordID = existing.recordID
                    a.action = existing.action
                    a.destination = existing.destination
                    // The image or file it already has is not stored again.
                    if let image = a.image, let stored = try? imageAttachment(of: eid), stored.bytes == image.bytes,
                       stored.contentType == image.contentType {
                        a.image = nil
                    }
                    if let file = a.file, (try? attachedFile(of: eid)) == file {
                        a.file = nil
                        a.fileInfo = existing.fileInfo
                    }
                    // An element that changes nothing leaves the annotation as it is (no new
                    // /M, so a synced layer pushes nothing for it).
                    var same = a
                    same.modificationDate = existing.modificationDate
                    if same != existing { try updateAnnotation(a) }
                    id = eid
                } else if Annotation.mediaSubtypes.contains(a.subtype) {
                    // Read and kept, not created (a `sound` element that matches none).
                    file.warn("XFDF: the \(a.subtype) annotation \"\(a.name ?? "")\" on page \(a.pageIndex + 1) is not in the document; skipped (\(Annotation.mediaSubtypesReason))")
                    importedIDs.append(nil)
                    done += 1
                    try progress?(done, steps)
                    continue
                } else {
                    guard let added = try addAnnotation(a).id else { importedIDs.append(nil); continue }
                    id = added
                }
                if let n = a.name { byName[n] = id }
                importedIDs.append(id)
                // A link the annotation already keeps by name to an absent parent stays as it is.
                if let parent = record.inReplyTo, existing?.inReplyToID != parent {
                    pendingReplies.append((id, parent, record.replyType))
                }
                count += 1
                done += 1
                try progress?(done, steps)
            }
            // The drawing order: the annotations of each page take, among the places they
            // hold in its /Annots, the order of the XFDF (which lists them as /Annots does).
            var order: [Int: [ObjectID]] = [:]
            for (record, id) in zip(reader.annotations, importedIDs) { if let id { order[record.annotation.pageIndex, default: []].append(id) } }
            for (page, ids) in order.sorted(by: { $0.key < $1.key }) where ids.count > 1 { try orderAnnotations(ids, onPage: page) }
            for (id, parent, replyType) in pendingReplies {
                guard let target = byName[parent] else {
                    throw PDFError(.format, "XFDF: an annotation replies to \"\(parent)\", which is not in the document nor the XFDF")
                }
                if try annotation(id)?.inReplyTo != target { try setInReplyTo(id, target) }  // else nothing to write
                if let replyType, var a = try annotation(id), a.replyType != replyType {
                    a.replyType = replyType
                    try updateAnnotation(a)
                }
            }
            for (name, values) in reader.fields {
                do {
                    let field = try formField(named: name)
                    try setFieldValues(field.type == .listBox ? values : [values.first ?? ""], of: field)
                    count += 1
                } catch let e as PDFError {
                    file.warn("XFDF: field \"\(name)\" not set: \(e.message)")
                }
                done += 1
                try progress?(done, steps)
            }
            if done != steps { try progress?(steps, steps) }  // an annotation that was not stored
            return count
        }
    }
}

/// Reads XFDF with Expat into annotations and field values.
final class XFDFReader {
    struct Record {
        var annotation: Annotation
        var inReplyTo: String?
        /// `replyType` when the element has one.
        var replyType: ReplyType?
    }
    var annotations: [Record] = []
    var fields: [(String, [String])] = []
    var problem: PDFError?
    private var depth = 0
    private var elements = 0
    private var current: Record?
    private var text = ""
    private var capturing: String?
    private var fieldPath: [String] = []
    private var fieldValues: [[String]] = []
    private var gestures: [[Double]] = []
    /// The attributes of the `<data>` element being read.
    private var dataAttributes: [String: String] = [:]
    /// How deep inside `<contents-richtext>` the element being read is.
    private var richDepth = 0

    static func read(_ bytes: [UInt8]) throws -> XFDFReader {
        guard bytes.count <= XFDF.maxBytes else {
            throw PDFError(limit: "xfdf_max_bytes", XFDF.maxBytes, "the bytes of an XFDF document")
        }
        let reader = XFDFReader()
        guard let parser = XML_ParserCreateNS("UTF-8", 0x20) else {
            throw PDFError(.limit, "XFDF cannot be read: out of memory")
        }
        defer { XML_ParserFree(parser) }
        XML_SetUserData(parser, Unmanaged.passUnretained(reader).toOpaque())
        XML_SetParamEntityParsing(parser, XML_PARAM_ENTITY_PARSING_NEVER)
        // No document type declaration at all: no entity can be defined, so none expands.
        XML_SetStartDoctypeDeclHandler(parser) { user, _, _, _, _ in
            guard let user else { return }
            let r = Unmanaged<XFDFReader>.fromOpaque(user).takeUnretainedValue()
            if r.problem == nil { r.problem = PDFError(.format, "XFDF: a document type declaration (DOCTYPE) is not accepted") }
        }
        XML_SetElementHandler(parser, { user, name, attributes in
            guard let user, let name else { return }
            Unmanaged<XFDFReader>.fromOpaque(user).takeUnretainedValue().start(String(cString: name), attributes)
        }, { user, name in
            guard let user, let name else { return }
            Unmanaged<XFDFReader>.fromOpaque(user).takeUnretainedValue().end(String(cString: name))
        })
        XML_SetCharacterDataHandler(parser) { user, s, length in
            guard let user, let s, length > 0 else { return }
            let buffer = UnsafeRawBufferPointer(start: s, count: Int(length)).bindMemory(to: UInt8.self)
            let r = Unmanaged<XFDFReader>.fromOpaque(user).takeUnretainedValue()
            guard r.capturing != nil && r.text.utf8.count < XFDF.maxBytes else { return }
            let chunk = String(decoding: buffer, as: UTF8.self)
            // Rich text is kept as XHTML: its characters escaped again.
            r.text += r.capturing == "contents-richtext" ? RichText.escape(chunk, quote: false) : chunk
        }
        // Fed in pieces, so that a problem found by a handler stops the parse early.
        var status = XML_STATUS_OK
        var start = 0
        let chunk = 1 << 16
        repeat {
            let end = Swift.min(start + chunk, bytes.count)
            let isFinal: Int32 = end == bytes.count ? 1 : 0
            status = bytes.withUnsafeBufferPointer { b in
                guard let base = b.baseAddress else { return XML_Parse(parser, nil, 0, isFinal) }
                return (base + start).withMemoryRebound(to: CChar.self, capacity: end - start) {
                    XML_Parse(parser, $0, Int32(end - start), isFinal)
                }
            }
            start = end
        } while status == XML_STATUS_OK && reader.problem == nil && start < bytes.count
        if let problem = reader.problem { throw problem }
        guard status == XML_STATUS_OK else {
            let code = XML_GetErrorCode(parser)
            let message = XML_ErrorString(code).map { String(cString: $0) } ?? "error \(code.rawValue)"
            throw PDFError(.format, "XFDF is not well-formed XML: \(message) at line \(XML_GetCurrentLineNumber(parser))")
        }
        return reader
    }

    /// The local name of a namespaced name ("http://ns.adobe.com/xfdf/ square" -> "square").
    private func local(_ name: String) -> String {
        name.split(separator: " ").last.map(String.init) ?? name
    }

    private func fail(_ message: String) {
        if problem == nil { problem = PDFError(.format, "XFDF: " + message) }
    }

    /// Applies `change` to the annotation being read; an error it throws is the reader's
    /// problem, naming `what` ("the data of file attachment") and the annotation.
    private func changeAnnotation(_ what: String, _ change: (inout Annotation) throws -> Void) {
        guard var a = current?.annotation else { return }
        do {
            try change(&a)
        } catch let e as PDFError {
            problem = PDFError(e.kind, "XFDF: \(what) \"\((a.name ?? "").prefix(60))\": \(e.message)")
            return
        } catch {
            return fail("\(what) \"\((a.name ?? "").prefix(60))\": \(error)")
        }
        current?.annotation = a
    }

    func start(_ qualified: String, _ attributes: UnsafeMutablePointer<UnsafePointer<XML_Char>?>?) {
        guard problem == nil else { return }
        depth += 1
        elements += 1
        if depth > XFDF.maxDepth { problem = PDFError(limit: "xfdf_max_depth", XFDF.maxDepth, "the nesting of XFDF elements"); return }
        if elements > XFDF.maxElements { problem = PDFError(limit: "xfdf_max_elements", XFDF.maxElements, "the elements of an XFDF document"); return }
        var attrs: [String: String] = [:]
        if let attributes {
            var i = 0
            while let key = attributes[i], let value = attributes[i + 1] {
                attrs[local(String(cString: key))] = String(cString: value)
                i += 2
            }
        }
        let name = local(qualified)
        if capturing == "contents-richtext" {
            // Inside rich text: the element as XHTML, with its style (sanitized at the end).
            richDepth += 1
            text += attrs["style"].map { "<\(name) style=\"\(RichText.escape($0, quote: true))\">" } ?? "<\(name)>"
            return
        }
        switch name {
        case "contents-richtext" where current != nil:
            capturing = name
            richDepth = 0
            text = ""
        case "contents", "defaultappearance", "defaultstyle", "gesture", "vertices", "value":
            capturing = name
            text = ""
        case "field":
            fieldPath.append(attrs["name"] ?? "")
            fieldValues.append([])
        case "inklist":
            gestures = []
        case "measure":
            measureRatio = attrs["rateValue"]
            measurePrecision = nil
        case "distance", "axis":
            if measurePrecision == nil || name == "distance", let d = attrs["d"].flatMap(Double.init).flatMap(MeasurementScale.decimals(denominator:)) {
                measurePrecision = d
            }
        case "data" where current?.annotation.subtype == "FileAttachment":
            capturing = name
            text = ""
            dataAttributes = attrs
        case "imagedata" where current?.annotation.subtype == "Stamp":
            capturing = name
            text = ""
        default:
            if let subtype = XFDF.subtypes[name], current == nil, depth >= 2 {
                startAnnotation(subtype, attrs)
            }
        }
    }

    private func startAnnotation(_ subtype: String, _ attrs: [String: String]) {
        guard let pageText = attrs["page"], let page = Int(pageText), page >= 0 else { return fail("an annotation without a valid page") }
        guard let r = attrs["rect"].flatMap(XFDF.numbers), r.count == 4 else { return fail("an annotation without a valid rect") }
        var a = Annotation(subtype: subtype, pageIndex: page, rect: Rect(left: r[0], bottom: r[1], right: r[2], top: r[3]))
        a.name = attrs["name"]
        a.author = attrs["title"]
        a.subject = attrs["subject"]
        a.modificationDate = attrs["date"].flatMap { PDFDate($0) }
        a.creationDate = attrs["creationdate"].flatMap { PDFDate($0) }
        a.color = attrs["color"].flatMap(XFDF.parseColor)
        a.interiorColor = attrs["interior-color"].flatMap(XFDF.parseColor)
        if let o = attrs["opacity"].flatMap(Double.init), o.isFinite { a.opacity = o }
        if let f = attrs["flags"] {
            let names = f.split(separator: ",").map { $0.filter { !$0.isWhitespace }.lowercased() }
            a.flags = XFDF.flagNames.filter { names.contains($0.1) }.reduce(0) { $0 | $1.0 }
        }
        if let w = attrs["width"].flatMap(Double.init), w.isFinite { a.borderWidth = w }
        a.state = attrs["state"]
        a.stateModel = attrs["statemodel"]
        if let c = attrs["coords"].flatMap(XFDF.numbers) { a.quadPoints = c }
        if let s = attrs["start"].flatMap(XFDF.numbers), let e = attrs["end"].flatMap(XFDF.numbers), s.count == 2, e.count == 2 {
            a.linePoints = s + e
        }
        if let h = attrs["head"], let t = attrs["tail"] { a.lineEndings = [h, t] } else if subtype == "FreeText", let h = attrs["head"] { a.lineEndings = [h] }
        a.intent = attrs["intent"]
        if subtype == "Line" {
            a.caption = attrs["caption"].map { ["yes", "true", "1"].contains($0.lowercased()) } ?? false
            // A style the model refuses, or an offset that is not a number, reads as unset.
            a.captionPosition = attrs["caption-style"].flatMap { Annotation.captionPositionProblem($0) == nil ? $0 : nil }
            if let h = attrs["caption-offset-h"].flatMap(Double.init), let v = attrs["caption-offset-v"].flatMap(Double.init),
               h.isFinite, v.isFinite {
                a.captionOffset = [h, v]
            }
        }
        if let cl = attrs["callout"].flatMap(XFDF.numbers), cl.count == 4 || cl.count == 6 { a.calloutLine = cl }
        if let j = attrs["justification"] { a.alignment = ["left", "centered", "right"].firstIndex(of: j.lowercased()) }
        switch attrs["style"] {
        case "cloudy"?:
            a.cloudyIntensity = attrs["intensity"].flatMap(Double.init).flatMap { $0.isFinite ? $0 : nil } ?? 1
        case let style?:
            a.borderStyle = XFDF.borderStyles.first { $0.xfdf == style }?.pdf
        case nil:
            break
        }
        if let d = attrs["dashes"].flatMap(XFDF.numbers), !d.isEmpty { a.dashPattern = d }
        if let rd = attrs["fringe"].flatMap(XFDF.numbers), rd.count == 4 { a.rectDifferences = rd }
        if subtype == "Redact" {
            a.overlayText = attrs["overlay-text"]
            a.repeatsOverlayText = attrs["overlay-text-repeat"].map { $0.lowercased() == "true" || $0 == "1" } ?? false
        }
        if subtype == "Caret", let sy = attrs["symbol"] { a.symbol = sy.lowercased() == "paragraph" || sy == "P" ? "P" : "None" }
        a.iconName = attrs["icon"]
        if let turn = attrs["rotation"].flatMap(Int.init), turn % 90 == 0 { a.rotation = ((turn % 360) + 360) % 360 }
        if let mode = attrs["blend-mode"], (try? Annotation.validate(blendMode: mode)) != nil { a.blendMode = mode }
        if subtype == "FileAttachment" {
            a.fileInfo = Annotation.FileInfo(name: attrs["file"], description: attrs["desc"])
        }
        let replyType: ReplyType? = attrs["replyType"].map { $0.lowercased() == "group" ? .group : .reply }
        current = Record(annotation: a, inReplyTo: attrs["inreplyto"], replyType: replyType)
    }

    /// Acrobat's `<measure>` of a measurement: its scale ratio, and the precision of its
    /// `distance` (else `axis`) number format.
    private var measureRatio: String?
    private var measurePrecision: Int?

    func end(_ qualified: String) {
        guard problem == nil else { return }
        defer { depth -= 1 }
        let name = local(qualified)
        if capturing == "contents-richtext" && richDepth > 0 {
            richDepth -= 1
            text += "</\(name)>"
            return
        }
        switch name {
        case "contents-richtext" where capturing == name:
            capturing = nil
            changeAnnotation("the rich text of annotation") { a in
                let clean = try RichText.sanitized(text)
                a.richText = clean.xhtml
                if a.contents == nil { a.contents = clean.plainText }
            }
        case "contents": current?.annotation.contents = text; capturing = nil
        case "defaultappearance": current?.annotation.defaultAppearance = text; capturing = nil
        case "defaultstyle": current?.annotation.defaultStyle = text; capturing = nil
        case "gesture":
            capturing = nil
            guard let points = XFDF.numbers(text), points.count % 2 == 0 else { return fail("a gesture that is not x,y pairs") }
            gestures.append(points)
        case "inklist": current?.annotation.inkList = gestures
        case "measure":
            guard let ratio = measureRatio else { return fail("a measure without a rateValue") }
            guard let scale = MeasurementScale(ratio: ratio, precision: measurePrecision ?? 2) else {
                return fail("the measure rateValue \"\(ratio.prefix(60))\" is not \"A unit = B unit\" in units Quire knows")
            }
            current?.annotation.measurement = scale
        case "data" where capturing == "data":
            capturing = nil
            changeAnnotation("the data of file attachment") { [dataAttributes] a in
                a.file = try XFDF.file(text, dataAttributes, name: a.fileInfo?.name, description: a.fileInfo?.description)
            }
        case "imagedata" where capturing == "imagedata":
            capturing = nil
            changeAnnotation("the imagedata of stamp") { a in a.image = try XFDF.image(text) }
        case "vertices":
            capturing = nil
            guard let points = XFDF.numbers(text), points.count % 2 == 0 else { return fail("vertices that are not x,y pairs") }
            current?.annotation.vertices = points
        case "value":
            capturing = nil
            if !fieldValues.isEmpty { fieldValues[fieldValues.count - 1].append(text) }
        case "field":
            if let values = fieldValues.popLast(), !values.isEmpty {
                fields.append((fieldPath.joined(separator: "."), values))
            }
            _ = fieldPath.popLast()
        default:
            if let subtype = XFDF.subtypes[name], let record = current, record.annotation.subtype == subtype {
                annotations.append(record)
                current = nil
            }
        }
    }
}
