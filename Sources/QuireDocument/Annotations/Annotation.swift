import QuireSyntax

/// How a reply relates to the annotation it answers (/RT, ISO 32000-2 Table 170).
public enum ReplyType: String, Sendable, Equatable {
    /// /R: a reply in a comment thread (the default when /IRT is present).
    case reply = "R"
    /// /Group: grouped with the annotation it points at, shown as one.
    case group = "Group"
}

/// The state models of state replies (ISO 32000-2 §12.5.6.3, Table 172) and their states.
public enum StateModel: String, Sendable, Equatable, CaseIterable {
    case marked = "Marked"
    case review = "Review"

    /// The states of this model.
    public var states: [String] {
        switch self {
        case .marked: return ["Marked", "Unmarked"]
        case .review: return ["Accepted", "Rejected", "Cancelled", "Completed", "None"]
        }
    }
}

/// A move in a page's drawing order (its /Annots, drawn first to last: the last is on top).
public enum AnnotationOrder: Sendable, Equatable, CaseIterable {
    /// One step later (over the next annotation).
    case forward
    /// One step earlier (under the previous annotation).
    case backward
    /// Last: drawn over every other.
    case front
    /// First: drawn under every other.
    case back
}

/// An annotation (ISO 32000-2 §12.5) as a value: what Quire reads of every subtype, and what
/// it writes for the subtypes it creates. Unknown subtypes read as generic annotations
/// (their subtype name and the common entries).
///
/// To change an annotation, change a copy and pass it to ``Document/updateAnnotation(_:)``:
/// only the entries this type models are rewritten, the others are kept as they were.
public struct Annotation: Sendable, Equatable {
    /// The media subtypes, read and kept but never created: their content (a sound, a
    /// movie, a Screen's rendition, rich media, 3D artwork) is in entries that neither the
    /// annotation JSON nor XFDF carries, so a record of one that matches no annotation of
    /// the document is skipped with a warning.
    public static let mediaSubtypes: Set<String> = ["Sound", "Movie", "Screen", "RichMedia", "3D"]
    static let mediaSubtypesReason =
        "Quire reads and keeps sound, movie, screen, rich media and 3D annotations but does not create them: a record cannot carry their media"
    /// The subtypes Quire creates (with a generated appearance).
    public static let creatableSubtypes: Set<String> = [
        "Text", "FreeText", "Line", "Square", "Circle", "Polygon", "PolyLine",
        "Highlight", "Underline", "Squiggly", "StrikeOut", "Ink", "Stamp", "Caret", "FileAttachment", "Redact",
    ]
    /// Annotation flags (Table 167).
    public enum Flag {
        public static let invisible = 1, hidden = 2, print = 4, noZoom = 8, noRotate = 16, noView = 32, readOnly = 64, locked = 128
    }

    /// The annotation's object; nil for a new annotation, or one written directly (not by
    /// reference) in the page's /Annots.
    public var id: ObjectID?
    /// The page it is on (0-based).
    public var pageIndex: Int
    /// /Subtype: Text, FreeText, Line, Square, ..., or any other name.
    public var subtype: String
    /// /Rect.
    public var rect: Rect
    /// /Contents: the text.
    public var contents: String?
    /// /RC: the rich text (XHTML, ISO 32000-2 §12.7.4.3) of a markup annotation, when /RC is
    /// a text string (an /RC stream is not read, and is kept as it is while this is nil).
    /// ``RichText/sanitized(_:)`` gives the subset the standard allows.
    public var richText: String?
    /// /T: the author; nil for a Widget, whose /T is its form field's name.
    public var author: String?
    /// /Subj.
    public var subject: String?
    /// /NM: the unique name (a UUID for annotations Quire creates).
    public var name: String?
    /// /CreationDate.
    public var creationDate: PDFDate?
    /// /M: the last modification.
    public var modificationDate: PDFDate?
    /// /F (see ``Flag``).
    public var flags: Int = 0
    /// /C: 0 (transparent), 1 (gray), 3 (RGB) or 4 (CMYK) components in 0...1.
    public var color: [Double]?
    /// /IC: the interior colour.
    public var interiorColor: [Double]?
    /// /CA: opacity, 0...1.
    public var opacity: Double = 1
    /// The border width: /BS /W, else the third element of /Border.
    public var borderWidth: Double?
    /// /BS /S, the border style (ISO 32000-2 Table 168): "S" solid, "D" dashed, "B"
    /// beveled, "I" inset, "U" underline (``BorderStyle``); nil when unset (solid).
    public var borderStyle: String?
    /// /BS /D: the dash array of a dashed border (dash and gap lengths); [] when unset (a
    /// dashed border then draws 3 on, 3 off). Read from /Border's fourth element too.
    public var dashPattern: [Double] = []
    /// /BE /I of a cloudy border effect (/BE /S /C, §12.5.4): 0 to 2 in the standard
    /// (viewers accept more); nil when the border has no effect. Drawn on Square, Circle
    /// and Polygon.
    public var cloudyIntensity: Double?
    /// /IT, the intent: FreeTextCallout and FreeTextTypeWriter for FreeText (LineArrow,
    /// LineDimension, PolygonCloud, ... for others); nil when unset.
    public var intent: String?
    /// /CL of a FreeText callout: the line from the point it points at (x1 y1, where the
    /// line ending is drawn), through an optional knee (x2 y2), to the box: 4 or 6 numbers.
    public var calloutLine: [Double] = []
    /// /Q of FreeText and Redact (its overlay text): 0 left, 1 centred, 2 right; nil when
    /// unset (left).
    public var alignment: Int?
    /// /OverlayText of a Redact annotation: the text drawn over the region's fill colour
    /// (/IC) when the redaction is applied, in /DA's font size and colour; nil when unset.
    public var overlayText: String?
    /// /Repeat of a Redact annotation: whether the overlay text is repeated to fill the
    /// region (true) or drawn once (false, the default).
    public var repeatsOverlayText = false
    /// /Sy of a Caret: "P" (a paragraph symbol follows the caret) or "None"; nil when unset.
    public var symbol: String?
    /// /Cap of a Line (ISO 32000-2 Table 178): its /Contents is drawn as a caption, placed
    /// by ``captionPosition`` and ``captionOffset`` (a measured distance's value then takes
    /// that place instead of Quire's own label's). False when unset.
    public var caption = false
    /// /CP of a Line with a caption: "Inline" (centred in the line, which is broken around
    /// it; the default) or "Top" (on top of the line); nil when unset.
    public var captionPosition: String?
    /// /CO of a Line with a caption: its offset from where it would be, along the line
    /// (positive to the right, as the caption reads) and across it (positive up): 2 numbers,
    /// or none.
    public var captionOffset: [Double] = []
    /// /Measure of a measurement (a distance on a Line, a perimeter on a PolyLine, an area
    /// on a Polygon): the scale and precision (``MeasurementScale``). When a program adds
    /// or updates one, its /IT becomes the subtype's dimension intent and its /Contents the
    /// measured value (``measuredText``). nil for an annotation that measures nothing (or
    /// whose /Measure Quire cannot read, which stays in the file until this is set).
    public var measurement: MeasurementScale?
    /// /Rotate of FreeText and Stamp: 0, 90, 180 or 270 degrees counterclockwise, the turn
    /// of its appearance (drawn turned inside /Rect, which covers it); 0 when unset.
    public var rotation = 0
    /// The blend mode of its appearance (/BM, ISO 32000-2 Table 134: Normal, Multiply,
    /// Screen, ...; ``blendModes``), written in the annotation (PDF 2.0 Table 166) and in
    /// the appearance's graphics state; nil when unset (Normal, and Multiply for Highlight).
    public var blendMode: String?
    /// An image (PNG or JPEG) for a Stamp, to be stored and drawn as its appearance when
    /// the annotation is added or updated (Instant JSON's `pspdfkit/image`). Never read
    /// from a document: a stored image stays while this is nil.
    public var image: StampImage?
    /// A file for a FileAttachment, to be embedded (a file specification, /FS) when the
    /// annotation is added or updated. Never read from a document: see ``fileInfo`` and
    /// ``Document/attachedFile(of:)``; a stored file stays while this is nil.
    public var file: AttachedFile?
    /// What a FileAttachment's /FS says of its file (name, media type, description, size),
    /// as read; nil for other subtypes and for one without a file specification.
    public var fileInfo: FileInfo?
    /// /RD: how far the drawing lies inside /Rect (left, bottom, right, top), for Square,
    /// Circle, FreeText and Caret; [] when unset.
    public var rectDifferences: [Double] = []
    /// /Popup.
    public var popup: ObjectID?
    /// /IRT: the annotation this one replies to.
    public var inReplyTo: ObjectID?
    /// The id (its record's `id`: /NM, else its object number) of the annotation this one
    /// replies to, when that annotation is not in the document, so that /IRT cannot name it
    /// (it was deleted, or the record of a synced layer names a record this document lacks).
    /// Links between records are ids and outlive their targets (docs/annotation-json.md,
    /// "Links"). Written as the private entry /QuireIRT, which other viewers ignore; nil
    /// whenever ``inReplyTo`` names an annotation of the document.
    public var inReplyToID: String?
    /// The id of this annotation's popup when the popup is not in the document (as
    /// ``inReplyToID``, for /Popup): the private entry /QuirePopup.
    public var popupID: String?
    /// Its record's `id` when that is not what its /NM gives (a record whose `name` and
    /// `id` differ, made into an annotation by an import): the private entry /QuireID, so
    /// that the annotation JSON names it by the same id in every document (docs/annotation-
    /// json.md, "Ids").
    public var recordID: String?
    /// /RT (meaningful with /IRT; absent means ``ReplyType/reply``).
    public var replyType: ReplyType?
    /// /State and /StateModel of a state reply.
    public var state: String?
    public var stateModel: String?
    /// /QuadPoints of text markup (and links): 8 numbers per quadrilateral.
    public var quadPoints: [Double] = []
    /// /InkList of ink annotations: one list of x, y pairs per stroke.
    public var inkList: [[Double]] = []
    /// /L of lines: x1 y1 x2 y2.
    public var linePoints: [Double] = []
    /// /LE of lines, polylines and free text callouts: the two line ending names.
    public var lineEndings: [String] = []
    /// /Vertices of polygons and polylines: x, y pairs.
    public var vertices: [Double] = []
    /// /DA of free text: the default appearance string (`/Helv 12 Tf 0 g`).
    public var defaultAppearance: String?
    /// /DS of free text: the default style string (§12.7.4.3, Table 388's properties:
    /// `font: 12pt Helvetica; color:#FF0000`), the base style of its rich text and of
    /// its plain contents.
    public var defaultStyle: String?
    /// The font size of free text: the size operand of the `Tf` in /DA (``fontSize(in:)``),
    /// derived from it and nowhere else (issue 32: four places set it by hand, and an
    /// annotation whose /DA said 24 was drawn at 12 when one forgot).
    public var fontSize: Double? { defaultAppearance.flatMap(Annotation.fontSize(in:)) }
    /// /Name: the icon of a note (Comment, Note, Help, ...) or the name of a stamp
    /// (Approved, Draft, ...).
    public var iconName: String?
    /// /A of links (and others): the action.
    public var action: Action?
    /// /Dest of links.
    public var destination: Destination?
    /// Private data for the application (Instant JSON's `customData`), kept as JSON text in
    /// a private entry other viewers ignore.
    public var customData: String?

    /// The bytes and media type of a stamp's image (``image``).
    public struct StampImage: Sendable, Equatable {
        public var bytes: [UInt8]
        /// image/png or image/jpeg.
        public var contentType: String

        /// The image of `bytes`, checked: it must decode (``ImageAttachment/read(_:contentType:)``:
        /// `PDFError` `.format` or `.limit` otherwise).
        public init(bytes: [UInt8], contentType: String) throws {
            _ = try ImageAttachment.read(bytes, contentType: contentType)
            self.bytes = bytes
            self.contentType = contentType
        }
    }

    public init(subtype: String, pageIndex: Int, rect: Rect) {
        self.subtype = subtype
        self.pageIndex = pageIndex
        self.rect = rect
    }

    /// Whether it replies to another annotation (has /IRT, or the id of a reply target that
    /// is not in the document).
    public var isReply: Bool { inReplyTo != nil || inReplyToID != nil }

    /// Whether it is a state reply (a reply with /State).
    public var isStateReply: Bool { isReply && state != nil }

    /// The private catalog-ignored key for ``customData``.
    static let customDataKey: PDFName = "QuireCustomData"
    /// The private keys of ``inReplyToID`` and ``popupID``.
    static let inReplyToIDKey: PDFName = "QuireIRT"
    static let popupIDKey: PDFName = "QuirePopup"
    static let recordIDKey: PDFName = "QuireID"

    /// The border styles of /BS /S (Table 168).
    public enum BorderStyle {
        public static let all = ["S", "D", "B", "I", "U"]
    }
    /// The line endings of /LE (Table 179), all of which Quire draws.
    /// The blend modes of /BM (ISO 32000-2 Table 134 and 135).
    public static let blendModes = ["Normal", "Multiply", "Screen", "Overlay", "Darken", "Lighten", "ColorDodge",
                                    "ColorBurn", "HardLight", "SoftLight", "Difference", "Exclusion", "Hue",
                                    "Saturation", "Color", "Luminosity"]
    public static let lineEndingNames = ["None", "Square", "Circle", "Diamond", "OpenArrow", "ClosedArrow",
                                         "Butt", "ROpenArrow", "RClosedArrow", "Slash"]
}

// MARK: Reading

extension Annotation {
    /// The entries ``init(_:id:pageIndex:document:)`` reads, in the order of their names in
    /// `readNames`: one pass over the dictionary finds them all, where a lookup per key
    /// scanned the entries 30 times per annotation (a quarter of the instructions of reading
    /// a page's annotations). Each entry's key is compared only with the names of its
    /// length (a hash of each key cost as much as the scans).
    private enum Key: Int, CaseIterable {
        case subtype, rect, contents, richText, author, subject, uniqueName, creationDate, modificationDate,
             flags, color, interiorColor, opacity, borderStyle, border, popup, inReplyTo, replyType, state,
             stateModel, quadPoints, inkList, line, lineEndings, vertices, defaultAppearance, iconName,
             action, destination, customData, inReplyToID, popupID, recordID, borderEffect, rectDifferences, symbol,
             intent, calloutLine, alignment, overlayText, repeatsOverlayText, fileSpec, measure, rotate, blendMode,
             caption, captionPosition, captionOffset, defaultStyle
    }
    private static let readNames: [PDFName] = [
        "Subtype", "Rect", "Contents", "RC", "T", "Subj", "NM", "CreationDate", "M", "F", "C", "IC", "CA",
        "BS", "Border", "Popup", "IRT", "RT", "State", "StateModel", "QuadPoints", "InkList", "L", "LE",
        "Vertices", "DA", "Name", "A", "Dest", customDataKey, inReplyToIDKey, popupIDKey, recordIDKey,
        "BE", "RD", "Sy", "IT", "CL", "Q", "OverlayText", "Repeat", "FS", "Measure", "Rotate", "BM",
        "Cap", "CP", "CO", "DS",
    ]
    private static let readSlotsByLength: [[(name: PDFName, slot: Int)]] = {
        var table = [[(name: PDFName, slot: Int)]](repeating: [], count: 16)
        for (i, name) in readNames.enumerated() {
            let n = name.value.utf8.count
            if n < table.count { table[n].append((name, i)) }
        }
        return table
    }()

    /// Reads an annotation dictionary.
    init(_ source: PDFDictionary, id: ObjectID?, pageIndex: Int, document: Document) throws {
        // The entries read, by Key (the dictionary's keys are distinct).
        var slots = [PDFObject?](repeating: nil, count: Annotation.readNames.count)
        let table = Annotation.readSlotsByLength
        for (key, value) in source {
            let n = key.value.utf8.count
            guard n < table.count else { continue }
            for candidate in table[n] where candidate.name == key {
                if candidate.slot < slots.count { slots[candidate.slot] = value }
                break
            }
        }
        // A constant for the functions below: a variable they capture was read with a
        // dynamic exclusivity check per access (2% of reading annotations).
        let found = slots
        func entry(_ key: Key) -> PDFObject? { key.rawValue < found.count ? found[key.rawValue] : nil }
        // `document.resolve` for a reference; any other value is its own value (most are:
        // a call per value and per number of an array was 2% of reading annotations).
        func resolved(_ v: PDFObject) throws -> PDFObject {
            if case .reference = v { return try document.resolve(v) }
            return v
        }
        func text(_ key: Key) throws -> String? {
            guard let v = entry(key), case .string(let s) = try resolved(v) else { return nil }
            return s.text
        }
        func numbers(_ key: Key) throws -> [Double]? {
            guard let v = entry(key), let array = try resolved(v).array else { return nil }
            var out: [Double] = []
            out.reserveCapacity(array.count)
            for item in array {
                guard let n = try resolved(item).number, n.isFinite else { return nil }
                out.append(n)
            }
            return out
        }
        func nameValue(_ key: Key) throws -> String? {
            guard let v = entry(key) else { return nil }
            return try resolved(v).name?.value
        }
        self.init(subtype: try nameValue(.subtype) ?? "Unknown", pageIndex: pageIndex, rect: .letter)
        self.id = id
        if let r = try numbers(.rect), r.count == 4 {
            rect = Rect(left: r[0], bottom: r[1], right: r[2], top: r[3])
        } else {
            rect = Rect(left: 0, bottom: 0, right: 0, top: 0)
        }
        contents = try text(.contents)
        richText = try text(.richText)
        // A widget's /T is its form field's partial name (ISO 32000-2 §12.7.4), not an
        // author: "Widget by Combo1" was the field's name read as one (issue 40).
        author = subtype == "Widget" ? nil : try text(.author)
        subject = try text(.subject)
        name = try text(.uniqueName)
        creationDate = try text(.creationDate).flatMap { PDFDate($0) }
        modificationDate = try text(.modificationDate).flatMap { PDFDate($0) }
        flags = Int(clamping: try entry(.flags).map(resolved)?.integer ?? 0)
        color = try numbers(.color)
        interiorColor = try numbers(.interiorColor)
        if let ca = try entry(.opacity).map(resolved)?.number, ca.isFinite { opacity = Swift.min(Swift.max(ca, 0), 1) }
        let bs = try document.dictionary(entry(.borderStyle))
        if let bs, let w = try bs["W"].map(document.resolve)?.number {
            borderWidth = w
        } else if let border = try numbers(.border), border.count >= 3 {
            borderWidth = border[2]
        }
        if let bs {
            borderStyle = try bs["S"].map(document.resolve)?.name?.value
            if let d = try bs["D"].map(document.resolve)?.array {
                dashPattern = try d.compactMap { try document.resolve($0).number }.filter(\.isFinite)
            }
        } else if let border = try entry(.border).map(resolved)?.array, border.count >= 4,
                  let d = try resolved(border[3]).array {
            // /Border [h v w [dash]] (§12.5.2, Table 166): a dashed border.
            dashPattern = try d.compactMap { try resolved($0).number }.filter(\.isFinite)
            if !dashPattern.isEmpty { borderStyle = "D" }
        }
        if let be = try document.dictionary(entry(.borderEffect)), try be["S"].map(document.resolve)?.name?.value == "C" {
            let i = try be["I"].map(document.resolve)?.number ?? 0
            cloudyIntensity = i.isFinite ? i : 0
        }
        if let rd = try numbers(.rectDifferences), rd.count == 4 { rectDifferences = rd }
        symbol = try nameValue(.symbol)
        intent = try nameValue(.intent)
        if Annotation.measurementIntent(subtype) != nil, let m = try document.dictionary(entry(.measure)) {
            measurement = try MeasurementScale(m, document: document)
        }
        if subtype == "FreeText" || subtype == "Stamp", let turn = try entry(.rotate).map(resolved)?.integer {
            // A multiple of 90 (Acrobat writes 0, 90, 180, 270), normalised; others read as 0.
            let t = Int(clamping: turn)
            if t % 90 == 0 { rotation = ((t % 360) + 360) % 360 }
        }
        if let bm = try nameValue(.blendMode), Annotation.blendModes.contains(bm) { blendMode = bm }
        if let cl = try numbers(.calloutLine), cl.count == 4 || cl.count == 6 { calloutLine = cl }
        if subtype == "Line" {
            if case .bool(let cap)? = try entry(.caption).map(resolved) { caption = cap }
            captionPosition = try nameValue(.captionPosition)
            if let co = try numbers(.captionOffset), co.count == 2 { captionOffset = co }
        }
        // /Q of FreeText (a widget's /Q is its field's quadding, read by the form).
        if subtype == "FreeText" || subtype == "Redact", let q = try entry(.alignment).map(resolved)?.integer, (0...2).contains(q) {
            alignment = Int(q)
        }
        if subtype == "Redact" {
            overlayText = try text(.overlayText)
            if case .bool(let repeats)? = try entry(.repeatsOverlayText).map(resolved) { repeatsOverlayText = repeats }
        }
        // Values outside the model's rules read as unset (the entries stay in the file until
        // the field is set): a record exported from this annotation then imports anywhere.
        if Annotation.borderStyleProblem(borderStyle) != nil { borderStyle = nil }
        if Annotation.dashPatternProblem(dashPattern) != nil { dashPattern = [] }
        if let c = cloudyIntensity { cloudyIntensity = Swift.min(Swift.max(c, 0), Annotation.maxCloudyIntensity) }
        if Annotation.rectDifferencesProblem(rectDifferences) != nil { rectDifferences = [] }
        if Annotation.captionPositionProblem(captionPosition) != nil { captionPosition = nil }
        if Annotation.captionOffsetProblem(captionOffset) != nil { captionOffset = [] }
        // A reference to a missing or free object is null (§7.3.10), as qpdf and MuPDF read it.
        popup = entry(.popup)?.reference.flatMap { document.isInUse($0.number) ? $0 : nil }
        inReplyTo = entry(.inReplyTo)?.reference.flatMap { document.isInUse($0.number) ? $0 : nil }
        // The ids of link targets that are not in the document: only while no object names them.
        if inReplyTo == nil { inReplyToID = try text(.inReplyToID).flatMap { $0.isEmpty ? nil : $0 } }
        if popup == nil { popupID = try text(.popupID).flatMap { $0.isEmpty ? nil : $0 } }
        recordID = try text(.recordID).flatMap { $0.isEmpty ? nil : $0 }
        if let rt = try nameValue(.replyType) { replyType = ReplyType(rawValue: rt) }
        state = try text(.state) ?? nameValue(.state)
        stateModel = try text(.stateModel) ?? nameValue(.stateModel)
        quadPoints = try numbers(.quadPoints) ?? []
        if let ink = try entry(.inkList).map(document.resolve)?.array {
            inkList = try ink.compactMap { stroke in
                try document.resolve(stroke).array?.compactMap { try document.resolve($0).number }
            }
        }
        linePoints = try numbers(.line) ?? []
        if let le = try entry(.lineEndings).map(document.resolve) {
            // An array of two names, or one name (a FreeText callout's, §12.5.6.6).
            if let array = le.array {
                lineEndings = try array.compactMap { try document.resolve($0).name?.value }
            } else if let one = le.name?.value {
                lineEndings = [one]
            }
        }
        vertices = try numbers(.vertices) ?? []
        defaultAppearance = try text(.defaultAppearance)
        defaultStyle = try text(.defaultStyle)
        iconName = try nameValue(.iconName)
        if let a = entry(.action) { action = try document.action(a) }
        if let d = entry(.destination) { destination = try document.destination(d) }
        customData = try text(.customData)
        // What the file specification says is informative: a damaged one reads as none,
        // never as a page whose annotations cannot be read.
        if subtype == "FileAttachment", let spec = (try? document.dictionary(entry(.fileSpec))) ?? nil {
            fileInfo = (try? document.fileSpecificationInfo(spec)) ?? nil
        }
    }

    /// A default appearance string (/DA, §12.7.4.3) with Helvetica at `fontSize` and the
    /// text colour `color` (0, 1 gray, 3 RGB components; black by default): the one writer
    /// of /DA for the annotations Quire makes (tools, annotation JSON, XFDF).
    public static func defaultAppearance(fontSize: Double, color: [Double]? = nil) -> String {
        func n(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v) }
        var da = "/Helv \(n(fontSize)) Tf"
        switch color?.count {
        case 3?: da += " " + (color ?? []).map(n).joined(separator: " ") + " rg"
        case 1?: da += " \(n(color?[0] ?? 0)) g"
        default: da += " 0 g"
        }
        return da
    }

    /// The size operand of the `Tf` operator in a default appearance string.
    public static func fontSize(in da: String) -> Double? {
        let tokens = da.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" })
        guard let tf = tokens.lastIndex(of: "Tf"), tf >= 1 else { return nil }
        return Double(tokens[tf - 1])
    }
}

// MARK: Writing

extension Annotation {
    /// `dict` with the entries this type models set from it; other entries are kept. With
    /// `previous` (the annotation as read), only the fields that changed are written, so an
    /// entry the model could not read (a malformed date, a /T written as a name) survives
    /// an unrelated change.
    func written(into original: PDFDictionary, pageObject: ObjectID?, previous: Annotation? = nil) -> PDFDictionary {
        var d = original
        func changed<T: Equatable>(_ field: KeyPath<Annotation, T>) -> Bool {
            previous.map { $0[keyPath: field] != self[keyPath: field] } ?? true
        }
        func text(_ key: PDFName, _ value: String?) { d[key] = value.map { .string(PDFString(text: $0)) } }
        func numbers(_ key: PDFName, _ value: [Double]?) {
            d[key] = value.flatMap { $0.isEmpty ? nil : .array($0.map(Annotation.number)) }
        }
        d["Type"] = .name("Annot")
        d["Subtype"] = .name(PDFName(subtype))
        d["Rect"] = .array([rect.left, rect.bottom, rect.right, rect.top].map(Annotation.number))
        if let pageObject { d["P"] = .reference(pageObject) }
        if changed(\.contents) { text("Contents", contents) }
        // An /RC stream (a reference the model does not read as text) stays while richText is nil.
        if changed(\.richText), richText != nil || previous?.richText != nil || d["RC"]?.reference == nil { text("RC", richText) }
        if changed(\.author) { text("T", author) }
        if changed(\.subject) { text("Subj", subject) }
        if changed(\.name) { text("NM", name) }
        if changed(\.creationDate) { text("CreationDate", creationDate?.description) }
        if changed(\.modificationDate) { text("M", modificationDate?.description) }
        if changed(\.flags) { d["F"] = flags == 0 ? nil : .integer(Int64(flags)) }
        if changed(\.color) { numbers("C", color) }
        if changed(\.interiorColor) { numbers("IC", interiorColor) }
        if changed(\.opacity) { d["CA"] = opacity < 1 ? Annotation.number(opacity) : nil }
        if (changed(\.borderWidth) && borderWidth != nil) || changed(\.borderStyle) || changed(\.dashPattern) {
            var bs = d["BS"]?.dictionary ?? PDFDictionary()
            if let w = borderWidth { bs["W"] = Annotation.number(w) }
            if changed(\.borderStyle) { bs["S"] = borderStyle.map { .name(PDFName($0)) } }
            if changed(\.dashPattern) { bs["D"] = dashPattern.isEmpty ? nil : .array(dashPattern.map(Annotation.number)) }
            d["BS"] = bs.isEmpty ? nil : .dictionary(bs)
            d["Border"] = nil
        }
        if changed(\.cloudyIntensity) {
            d["BE"] = cloudyIntensity.map { .dictionary(PDFDictionary([("S", .name("C")), ("I", Annotation.number($0))])) }
        }
        if changed(\.rectDifferences) { numbers("RD", rectDifferences.count == 4 ? rectDifferences : nil) }
        if changed(\.symbol) { d["Sy"] = symbol.map { .name(PDFName($0)) } }
        if changed(\.intent) { d["IT"] = intent.map { .name(PDFName($0)) } }
        if changed(\.measurement) { d["Measure"] = measurement.map { .dictionary($0.dictionary()) } }
        if changed(\.rotation) { d["Rotate"] = rotation == 0 ? nil : .integer(Int64(rotation)) }
        if changed(\.blendMode) { d["BM"] = blendMode.map { .name(PDFName($0)) } }
        if changed(\.calloutLine) { numbers("CL", calloutLine) }
        if changed(\.caption) { d["Cap"] = caption ? .bool(true) : nil }
        if changed(\.captionPosition) { d["CP"] = captionPosition.map { .name(PDFName($0)) } }
        if changed(\.captionOffset) { numbers("CO", captionOffset.count == 2 ? captionOffset : nil) }
        if changed(\.alignment) { d["Q"] = alignment.map { .integer(Int64($0)) } }
        if changed(\.overlayText) { text("OverlayText", overlayText) }
        if changed(\.repeatsOverlayText) { d["Repeat"] = repeatsOverlayText ? .bool(true) : nil }
        if changed(\.popup) { d["Popup"] = popup.map { .reference($0) } }
        if changed(\.inReplyTo) { d["IRT"] = inReplyTo.map { .reference($0) } }
        if changed(\.inReplyTo) || changed(\.inReplyToID) || changed(\.replyType) {
            d["RT"] = !isReply ? nil : replyType.map { .name(PDFName($0.rawValue)) }
        }
        // A link's id is kept only while no object names its target.
        if changed(\.inReplyToID) || changed(\.inReplyTo) { text(Annotation.inReplyToIDKey, inReplyTo == nil ? inReplyToID : nil) }
        if changed(\.popupID) || changed(\.popup) { text(Annotation.popupIDKey, popup == nil ? popupID : nil) }
        if changed(\.recordID) { text(Annotation.recordIDKey, recordID) }
        if changed(\.state) { text("State", state) }
        if changed(\.stateModel) { text("StateModel", stateModel) }
        if changed(\.quadPoints) { numbers("QuadPoints", quadPoints) }
        if changed(\.inkList) { d["InkList"] = inkList.isEmpty ? nil : .array(inkList.map { .array($0.map(Annotation.number)) }) }
        if changed(\.linePoints) { numbers("L", linePoints) }
        if changed(\.lineEndings) {
            if subtype == "FreeText" {
                d["LE"] = lineEndings.first.map { .name(PDFName($0)) }  // one name (§12.5.6.6)
            } else {
                d["LE"] = lineEndings.isEmpty ? nil : .array(lineEndings.map { .name(PDFName($0)) })
            }
        }
        if changed(\.vertices) { numbers("Vertices", vertices) }
        if changed(\.defaultAppearance) { text("DA", defaultAppearance) }
        if changed(\.defaultStyle) { text("DS", defaultStyle) }
        if changed(\.iconName) { d["Name"] = iconName.map { .name(PDFName($0)) } }
        if changed(\.customData) { text(Annotation.customDataKey, customData) }
        return d
    }

    /// An integer when the value is integral, else a real.
    static func number(_ v: Double) -> PDFObject {
        v == v.rounded() && abs(v) < 1e15 ? .integer(Int64(v)) : .real(v)
    }
}
