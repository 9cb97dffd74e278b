// Annotations as JSON, shaped after PSPDFKit's (Nutrient's) Instant JSON and extended with
// what Instant JSON lacks (replies, review states, exact PDF values). The schema, field by
// field, is docs/annotation-json.md; the summary:
//
// - The top level is `{"format": "https://pspdfkit.com/instant-json/v1", "quire": {"version":
//   1, ...}, "annotations": [...]}`; every annotation record has `v: 1`.
// - Records follow Instant JSON: `type` (`pspdfkit/shape/rectangle`, ...), `pageIndex`,
//   `bbox` as [left, top, width, height] in points from the top left of the page's crop box
//   (the media box when there is none), y downwards, the page's /Rotate not applied; point
//   lists flipped the same way; colours as "#RRGGBB"; ISO 8601 dates; flags by name.
// - Everything else the model reads goes in the record's `quire` object. Where an Instant
//   JSON field cannot hold a value exactly (a CMYK colour, a date without a zone, quads that
//   are not rectangles, coordinates that do not survive the flip bit for bit), the exact
//   value is written there too and wins on import as long as it still agrees with the
//   Instant JSON field; a client that changes the Instant JSON field therefore wins.
// - `id` is the annotation's /NM (else its object number, as PSPDFKit does). Import matches
//   a record to the annotation it came from by object (`pdfObjectId`) and then by /NM on the
//   same page, updates it, and creates the others with the NM `name ?? id`: a document's own
//   export imports as a no-op (docs/annotation-json.md, "Identity, updates and replies").

// MARK: - The schema

/// A JSON export of annotations: Instant JSON's document shape with a Quire marker.
public struct InstantJSONDocument: Codable, Sendable, Equatable {
    /// Instant JSON's format marker.
    public static let instantJSONFormat = "https://pspdfkit.com/instant-json/v1"

    /// Instant JSON's `format` (optional on import; when present it must be the v1 marker).
    public var format: String? = InstantJSONDocument.instantJSONFormat
    /// Quire's marker: the version of Quire's extensions (absent in plain Instant JSON).
    public var quire: InstantJSONQuireInfo? = InstantJSONQuireInfo()
    public var annotations: [InstantJSONAnnotation] = []
    /// Instant JSON's comments: replies to the annotation each `rootId` names (absent in
    /// Quire's own exports unless asked for, see ``Document/exportAnnotationsJSON(page:prettyPrinted:instantComments:)``).
    public var comments: [InstantJSONComment]?
    /// Instant JSON's attachments: the images of `pspdfkit/image` records, by
    /// `imageAttachmentId`, and the files of `pspdfkit/file` records, by
    /// `fileAttachmentId` (base64 data and a media type).
    public var attachments: [String: InstantJSONAttachment]?
    /// Instant JSON's form field values (`pspdfkit/form-field-value`): read and written
    /// (a whole-document export has one for every field whose value can be set).
    public var formFieldValues: [InstantJSONFormFieldValue]?
    /// Instant JSON's form field definitions: read (matched by name, checked), not written.
    public var formFields: [InstantJSONFormField]?
    /// Instant JSON's `pdfId`: the trailer /ID of the PDF the JSON was written for.
    public var pdfId: InstantJSONPdfId?
    /// Instant JSON's `skippedPdfObjectIds`: annotation objects of that PDF which the
    /// JSON replaces (by the record of the same `pdfObjectId`) or deletes (no such record).
    public var skippedPdfObjectIds: [Int]?

    public init(annotations: [InstantJSONAnnotation] = []) { self.annotations = annotations }

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    /// Reads the JSON text of a document.
    public init(jsonBytes bytes: [UInt8]) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(parsing: bytes), path: ""))
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        format = try o.string("format")
        if let f = format, f != InstantJSONDocument.instantJSONFormat {
            throw o.node("format")!.fail("\"\(f)\" is not Instant JSON (\"\(InstantJSONDocument.instantJSONFormat)\")")
        }
        quire = try o.node("quire").map(InstantJSONQuireInfo.init(json:))
        formFieldValues = try o.node("formFieldValues")?.array().map(InstantJSONFormFieldValue.init(json:))
        formFields = try o.node("formFields")?.array().map(InstantJSONFormField.init(json:))
        pdfId = try o.node("pdfId").map(InstantJSONPdfId.init(json:))
        skippedPdfObjectIds = try o.node("skippedPdfObjectIds")?.array().map { try $0.integer() }
        // PSPDFKit's form-filling JSON has no annotations: the key may then be left out.
        if formFieldValues == nil && formFields == nil && skippedPdfObjectIds == nil {
            annotations = try o.required("annotations").array().map(InstantJSONAnnotation.init(json:))
        } else {
            annotations = try o.node("annotations")?.array().map(InstantJSONAnnotation.init(json:)) ?? []
        }
        comments = try o.node("comments")?.array().map(InstantJSONComment.init(json:))
        if let a = o.node("attachments") {
            var out: [String: InstantJSONAttachment] = [:]
            for (key, value) in try a.object().fields {
                out[key] = try InstantJSONAttachment(json: JSONNode(value: value, path: "\(a.path).\(key)"))
            }
            attachments = out
        }
    }
}

/// The top-level `quire` object.
public struct InstantJSONQuireInfo: Codable, Sendable, Equatable {
    /// The version of Quire's extensions: 1.
    public var version: Int = 1
    /// The number of pages of the exported document.
    public var pageCount: Int?
    /// For the export of one page: its index (absent for a whole document).
    public var pageIndex: Int?

    public init(version: Int = 1, pageCount: Int? = nil, pageIndex: Int? = nil) {
        self.version = version
        self.pageCount = pageCount
        self.pageIndex = pageIndex
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        let v = try o.required("version")
        version = try v.integer()
        guard version == 1 else { throw v.fail("Quire annotation JSON version \(version) is not supported (this Quire reads version 1)") }
        pageCount = try o.node("pageCount")?.integer()
        pageIndex = try o.node("pageIndex")?.integer()
    }
}

/// One annotation record: Instant JSON's fields, and Quire's in `quire`.
public struct InstantJSONAnnotation: Codable, Sendable, Equatable {
    /// The record version: 1 (import also reads 2, whose `text` is `{format, value}`).
    public var v: Int = 1
    /// `pspdfkit/...`, or `quire/generic` for the other PDF subtypes.
    public var type: String
    /// The annotation's /NM; else its object number as a string.
    public var id: String?
    /// The annotation's /NM.
    public var name: String?
    /// The annotation's object number in the exporting document (ignored on import).
    public var pdfObjectId: Int?
    public var pageIndex: Int
    /// [left, top, width, height] in points from the top left of the crop box.
    public var bbox: [Double]
    public var opacity: Double?
    /// noPrint, invisible, hidden, noZoom, noRotate, noView, readOnly, locked,
    /// toggleNoView, lockedContents.
    public var flags: [String]?
    public var createdAt: String?
    public var updatedAt: String?
    public var creatorName: String?
    /// A JSON object for the application.
    public var customData: InstantJSONValue?
    /// The contents, for every type but notes and free text.
    public var note: String?
    /// The contents of notes (`pspdfkit/note`) and free text (`pspdfkit/text`).
    public var text: String?
    /// The rich text of notes and free text: `text` in the xhtml format (`{"format":
    /// "xhtml", "value": ...}`, record version 2), which is /RC; /Contents is its plain text.
    /// When set, `text` is not written.
    public var richText: String?
    /// A note's icon: comment, help, note, ... (the /Name with a lowercase first letter).
    public var icon: String?
    /// A stamp's /Name: Approved, Draft, ...
    public var stampType: String?
    public var color: String?
    public var strokeColor: String?
    public var fillColor: String?
    public var borderColor: String?
    public var fontColor: String?
    public var strokeWidth: Double?
    public var lineWidth: Double?
    public var borderWidth: Double?
    public var fontSize: Double?
    /// Free text: the callout (/CL, /LE, /RD) and the alignment (/Q: left, center, right).
    public var callout: InstantJSONCallout?
    public var horizontalAlign: String?
    /// Redactions: the marked state's border (/C), the text drawn over the fill colour
    /// when applied (/OverlayText) and whether it repeats (/Repeat).
    public var outlineColor: String?
    public var overlayText: String?
    public var repeatOverlayText: Bool?
    /// Shapes: the dash and gap lengths of a dashed stroke (/BS /S /D with /BS /D).
    public var strokeDashArray: [Double]?
    /// Rectangles, ellipses and polygons: the cloudy border's intensity (/BE /S /C /I) and
    /// the cloud's inset from the bbox, [left, top, right, bottom] (/RD).
    public var cloudyBorderIntensity: Double?
    public var cloudyBorderInset: [Double]?
    /// Text markup: one bbox-like rectangle per quadrilateral.
    public var rects: [[Double]]?
    /// Ink: the strokes.
    public var lines: InstantJSONLines?
    /// Lines.
    public var startPoint: [Double]?
    public var endPoint: [Double]?
    public var lineCaps: InstantJSONLineCaps?
    /// Polygons and polylines: the vertices.
    public var points: [[Double]]?
    public var action: InstantJSONAction?
    /// Quire's extensions.
    public var quire: InstantJSONQuireFields?
    /// Written as `isCommentThreadRoot: true` on the root of a thread of Instant JSON
    /// comments; not read (Quire finds threads by their comments' `rootId`).
    public var isCommentThreadRoot: Bool?
    /// `pspdfkit/image`: the key of its image in the document's `attachments`, and the
    /// image's media type (image/jpeg or image/png).
    public var imageAttachmentId: String?
    public var contentType: String?
    /// Measurements (lines, polylines, polygons): the scale (/Measure /R) and the decimals
    /// shown (whole, oneDp, twoDp, threeDp, fourDp; import also reads 1/2, 1/4, 1/8 and 1/16
    /// as the decimals that hold them exactly: 1, 2, 3 and 4).
    public var measurementScale: InstantJSONMeasurementScale?
    public var measurementPrecision: String?
    /// Free text and stamps: /Rotate, 0, 90, 180 or 270.
    public var rotation: Int?
    /// The blend mode (/BM) with a lowercase first letter: normal, multiply, screen, ...
    public var blendMode: String?
    /// `pspdfkit/file`: the key of its file in the document's `attachments` (the file's
    /// SHA-256), the file's name and description (its file specification's /UF and
    /// /Desc), and the icon (/Name: PushPin, Paperclip, Graph or Tag); `contentType` is
    /// the file's media type.
    public var fileAttachmentId: String?
    public var fileName: String?
    public var description: String?
    public var iconName: String?

    public init(type: String, pageIndex: Int, bbox: [Double]) {
        self.type = type
        self.pageIndex = pageIndex
        self.bbox = bbox
    }

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    private enum Keys: String, CodingKey {
        case v, type, id, name, pdfObjectId, pageIndex, bbox, opacity, flags, createdAt, updatedAt, creatorName,
             customData, note, text, icon, stampType, color, strokeColor, fillColor, borderColor, fontColor,
             strokeWidth, lineWidth, borderWidth, fontSize, rects, lines, startPoint, endPoint, lineCaps, points,
             action, quire, isCommentThreadRoot, imageAttachmentId, contentType, strokeDashArray,
             cloudyBorderIntensity, cloudyBorderInset, callout, horizontalAlign, outlineColor, overlayText,
             repeatOverlayText, measurementScale, measurementPrecision, rotation, blendMode,
             fileAttachmentId, fileName, description, iconName
    }

    private struct FormattedText: Encodable { var format: String; var value: String }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        // Rich text is Instant JSON's version 2 `text` object; other records stay version 1.
        try c.encode(richText != nil ? Swift.max(v, 2) : v, forKey: .v)
        try c.encode(type, forKey: .type)
        try c.encodeIfPresent(id, forKey: .id)
        try c.encodeIfPresent(name, forKey: .name)
        try c.encodeIfPresent(pdfObjectId, forKey: .pdfObjectId)
        try c.encode(pageIndex, forKey: .pageIndex)
        try c.encode(bbox, forKey: .bbox)
        try c.encodeIfPresent(opacity, forKey: .opacity)
        try c.encodeIfPresent(flags, forKey: .flags)
        try c.encodeIfPresent(createdAt, forKey: .createdAt)
        try c.encodeIfPresent(updatedAt, forKey: .updatedAt)
        try c.encodeIfPresent(creatorName, forKey: .creatorName)
        try c.encodeIfPresent(customData, forKey: .customData)
        try c.encodeIfPresent(note, forKey: .note)
        if let richText {
            try c.encode(FormattedText(format: "xhtml", value: richText), forKey: .text)
        } else {
            try c.encodeIfPresent(text, forKey: .text)
        }
        try c.encodeIfPresent(icon, forKey: .icon)
        try c.encodeIfPresent(stampType, forKey: .stampType)
        try c.encodeIfPresent(color, forKey: .color)
        try c.encodeIfPresent(strokeColor, forKey: .strokeColor)
        try c.encodeIfPresent(fillColor, forKey: .fillColor)
        try c.encodeIfPresent(borderColor, forKey: .borderColor)
        try c.encodeIfPresent(fontColor, forKey: .fontColor)
        try c.encodeIfPresent(strokeWidth, forKey: .strokeWidth)
        try c.encodeIfPresent(lineWidth, forKey: .lineWidth)
        try c.encodeIfPresent(borderWidth, forKey: .borderWidth)
        try c.encodeIfPresent(fontSize, forKey: .fontSize)
        try c.encodeIfPresent(strokeDashArray, forKey: .strokeDashArray)
        try c.encodeIfPresent(cloudyBorderIntensity, forKey: .cloudyBorderIntensity)
        try c.encodeIfPresent(cloudyBorderInset, forKey: .cloudyBorderInset)
        try c.encodeIfPresent(callout, forKey: .callout)
        try c.encodeIfPresent(horizontalAlign, forKey: .horizontalAlign)
        try c.encodeIfPresent(outlineColor, forKey: .outlineColor)
        try c.encodeIfPresent(overlayText, forKey: .overlayText)
        try c.encodeIfPresent(repeatOverlayText, forKey: .repeatOverlayText)
        try c.encodeIfPresent(rects, forKey: .rects)
        try c.encodeIfPresent(lines, forKey: .lines)
        try c.encodeIfPresent(startPoint, forKey: .startPoint)
        try c.encodeIfPresent(endPoint, forKey: .endPoint)
        try c.encodeIfPresent(lineCaps, forKey: .lineCaps)
        try c.encodeIfPresent(points, forKey: .points)
        try c.encodeIfPresent(action, forKey: .action)
        try c.encodeIfPresent(quire, forKey: .quire)
        try c.encodeIfPresent(isCommentThreadRoot, forKey: .isCommentThreadRoot)
        try c.encodeIfPresent(imageAttachmentId, forKey: .imageAttachmentId)
        try c.encodeIfPresent(contentType, forKey: .contentType)
        try c.encodeIfPresent(measurementScale, forKey: .measurementScale)
        try c.encodeIfPresent(measurementPrecision, forKey: .measurementPrecision)
        try c.encodeIfPresent(rotation, forKey: .rotation)
        try c.encodeIfPresent(blendMode, forKey: .blendMode)
        try c.encodeIfPresent(fileAttachmentId, forKey: .fileAttachmentId)
        try c.encodeIfPresent(fileName, forKey: .fileName)
        try c.encodeIfPresent(description, forKey: .description)
        try c.encodeIfPresent(iconName, forKey: .iconName)
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        let vNode = try o.required("v")
        v = try vNode.integer()
        guard v == 1 || v == 2 else { throw vNode.fail("record version \(v) is not supported (Quire reads 1 and 2)") }
        let typeNode = try o.required("type")
        type = try typeNode.string()
        if type == InstantJSONFormFieldValue.type || type.hasPrefix(InstantJSONFormField.typePrefix) {
            throw typeNode.fail("\"\(type.prefix(60))\" is form data, not an annotation record (form field values go in the top-level formFieldValues, field definitions in formFields)")
        }
        id = try o.string("id")
        name = try o.string("name")
        pdfObjectId = try o.node("pdfObjectId")?.integer()
        pageIndex = try o.required("pageIndex").integer()
        bbox = try o.required("bbox").numbers(count: 4)
        opacity = try o.node("opacity")?.number()
        flags = try o.node("flags")?.array().map { try $0.string() }
        createdAt = try o.string("createdAt")
        updatedAt = try o.string("updatedAt")
        creatorName = try o.string("creatorName")
        if let c = o.node("customData") {
            _ = try c.object()
            customData = c.value
        }
        note = try o.string("note")
        if let t = o.node("text") {
            if case .string(let s) = t.value {
                text = s
            } else {
                let to = try t.object()
                let format = try to.string("format") ?? "plain"
                switch format {
                case "plain": text = try to.string("value") ?? ""
                case "xhtml": richText = try to.string("value") ?? ""
                default:
                    throw (to.node("format") ?? t).fail("text in the \"\(format.prefix(40))\" format is not supported (plain or xhtml)")
                }
            }
        }
        icon = try o.string("icon")
        stampType = try o.string("stampType")
        color = try o.string("color")
        strokeColor = try o.string("strokeColor")
        fillColor = try o.string("fillColor")
        borderColor = try o.string("borderColor")
        fontColor = try o.string("fontColor")
        strokeWidth = try o.node("strokeWidth")?.number()
        lineWidth = try o.node("lineWidth")?.number()
        borderWidth = try o.node("borderWidth")?.number()
        fontSize = try o.node("fontSize")?.number()
        strokeDashArray = try o.node("strokeDashArray")?.numbers(maxCount: Annotation.maxDashes)
        cloudyBorderIntensity = try o.node("cloudyBorderIntensity")?.number()
        cloudyBorderInset = try o.node("cloudyBorderInset")?.numbers(count: 4)
        callout = try o.node("callout").map(InstantJSONCallout.init(json:))
        horizontalAlign = try o.string("horizontalAlign")
        outlineColor = try o.string("outlineColor")
        overlayText = try o.string("overlayText")
        repeatOverlayText = try o.node("repeatOverlayText")?.bool()
        rects = try o.node("rects")?.array().map { try $0.numbers(count: 4) }
        lines = try o.node("lines").map(InstantJSONLines.init(json:))
        startPoint = try o.node("startPoint")?.numbers(count: 2)
        endPoint = try o.node("endPoint")?.numbers(count: 2)
        lineCaps = try o.node("lineCaps").map(InstantJSONLineCaps.init(json:))
        points = try o.node("points")?.array().map { try $0.numbers(count: 2) }
        action = try o.node("action").map(InstantJSONAction.init(json:))
        quire = try o.node("quire").map(InstantJSONQuireFields.init(json:))
        imageAttachmentId = try o.string("imageAttachmentId")
        contentType = try o.string("contentType")
        measurementScale = try o.node("measurementScale").map(InstantJSONMeasurementScale.init(json:))
        measurementPrecision = try o.string("measurementPrecision")
        rotation = try o.node("rotation")?.integer(in: -3600...3600)
        blendMode = try o.string("blendMode")
        fileAttachmentId = try o.string("fileAttachmentId")
        fileName = try o.string("fileName")
        description = try o.string("description")
        iconName = try o.string("iconName")
    }
}

/// Instant JSON's measurement scale: `from` `unitFrom` on the page is `to` `unitTo` in the
/// world (Nutrient's `measurementScale`).
public struct InstantJSONMeasurementScale: Codable, Sendable, Equatable {
    public var unitFrom: String
    public var from: Double
    public var unitTo: String
    public var to: Double

    public init(unitFrom: String, from: Double, unitTo: String, to: Double) {
        self.unitFrom = unitFrom
        self.from = from
        self.unitTo = unitTo
        self.to = to
    }

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        unitFrom = try o.required("unitFrom").string()
        unitTo = try o.required("unitTo").string()
        // Nutrient's Web SDK names the values fromValue and toValue in its configuration.
        guard let f = o.node("from") ?? o.node("fromValue") else { throw node.fail("a measurement scale needs from") }
        guard let t = o.node("to") ?? o.node("toValue") else { throw node.fail("a measurement scale needs to") }
        from = try f.number()
        to = try t.number()
    }
}

/// One of Instant JSON's attachments: base64 data and its media type.
public struct InstantJSONAttachment: Codable, Sendable, Equatable {
    public var binary: String
    public var contentType: String?

    public init(binary: String, contentType: String?) {
        self.binary = binary
        self.contentType = contentType
    }

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        binary = try o.required("binary").string()
        contentType = try o.string("contentType")
    }
}

/// Instant JSON's ink lines: the points of each stroke and their pressure (Quire writes
/// 0.5, Instant JSON's default, and ignores them on import).
public struct InstantJSONLines: Codable, Sendable, Equatable {
    public var points: [[[Double]]]
    public var intensities: [[Double]]?

    public init(points: [[[Double]]], intensities: [[Double]]? = nil) {
        self.points = points
        self.intensities = intensities
    }

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        points = try o.required("points").array().map { try $0.array().map { try $0.numbers(count: 2) } }
        intensities = try o.node("intensities")?.array().map { try $0.array().map { try $0.number() } }
    }
}

/// Instant JSON's line caps: the ending at each end (absent: none).
public struct InstantJSONLineCaps: Codable, Sendable, Equatable {
    public var start: String?
    public var end: String?

    public init(start: String? = nil, end: String? = nil) {
        self.start = start
        self.end = end
    }

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        start = try o.string("start")
        end = try o.string("end")
    }
}

/// A free text's callout: the line from `start` (where `cap`, the line ending, is drawn)
/// through `knee` to `end`, and the text box's inset from the bbox, [left, top, right,
/// bottom] (Nutrient's Instant JSON).
public struct InstantJSONCallout: Codable, Sendable, Equatable {
    public var start: [Double]
    public var knee: [Double]?
    public var end: [Double]
    public var cap: String?
    public var innerRectInset: [Double]?

    public init(start: [Double], knee: [Double]?, end: [Double], cap: String?, innerRectInset: [Double]?) {
        self.start = start
        self.knee = knee
        self.end = end
        self.cap = cap
        self.innerRectInset = innerRectInset
    }

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        start = try o.required("start").numbers(count: 2)
        knee = try o.node("knee")?.numbers(count: 2)
        end = try o.required("end").numbers(count: 2)
        cap = try o.string("cap")
        innerRectInset = try o.node("innerRectInset")?.numbers(count: 4)
    }
}

/// Quire's fields of a record (the `quire` object). Values here are PDF values: names as
/// in the file, coordinates in PDF user space (not flipped), dates in PDF form.
public struct InstantJSONQuireFields: Codable, Sendable, Equatable {
    /// The PDF /Subtype, for `quire/generic` records.
    public var subtype: String?
    /// /Subj.
    public var subject: String?
    /// The `id` of the annotation this one replies to (/IRT): a record of the same JSON,
    /// or an annotation of the importing document with that /NM.
    public var inReplyTo: String?
    /// /RT: "reply" or "group".
    public var replyType: String?
    /// /State and /StateModel of a state reply (Marked: Marked, Unmarked; Review:
    /// Accepted, Rejected, Cancelled, Completed, None).
    public var state: String?
    public var stateModel: String?
    /// The `id` of this annotation's popup annotation (/Popup).
    public var popup: String?
    /// The dates in PDF form, when ISO 8601 in `createdAt`/`updatedAt` loses something
    /// (a date without a time zone).
    public var creationDate: String?
    public var modificationDate: String?
    /// Bits of /F that have no Instant JSON name (bits 11 and up).
    public var otherFlags: Int?
    /// /C and /IC exactly (0, 1, 3 or 4 components), when "#RRGGBB" cannot hold them or
    /// the type has no field for them.
    public var color: [Double]?
    public var interiorColor: [Double]?
    /// The border width, for types without a width field.
    public var borderWidth: Double?
    /// Exact PDF geometry, when the flipped Instant JSON form does not reproduce it bit for
    /// bit, or the type has no Instant JSON form for it: /Rect [l b r t], /QuadPoints,
    /// /InkList, /L, /Vertices.
    public var pdfRect: [Double]?
    public var pdfQuadPoints: [Double]?
    public var pdfInkList: [[Double]]?
    public var pdfLinePoints: [Double]?
    public var pdfVertices: [Double]?
    /// /LE as PDF names, when `lineCaps` cannot hold them.
    public var lineEndings: [String]?
    /// /DA of free text, when `fontSize` and `fontColor` do not rebuild it.
    public var defaultAppearance: String?
    /// /DS of free text (the default style string), which no Instant JSON field holds.
    public var defaultStyle: String?
    /// /Sy of a Caret (P or None).
    public var symbol: String?
    /// A Line's caption: /Cap (true; absent when false), /CP (Inline or Top) and /CO (2
    /// numbers). Nutrient's schema has no caption.
    public var caption: Bool?
    public var captionPosition: String?
    public var captionOffset: [Double]?
    /// /IT, when the record's fields do not give it (a callout gives FreeTextCallout).
    public var intent: String?
    /// /CL and /Q exactly, when `callout` and `horizontalAlign` do not hold them.
    public var calloutLine: [Double]?
    public var alignment: Int?
    /// /BS /S as a PDF name (S, D, B, I, U), when `strokeDashArray` does not give it.
    public var borderStyle: String?
    /// /BS /D exactly, when `strokeDashArray` does not hold it.
    public var dashPattern: [Double]?
    /// /BE /I and /RD, for types without `cloudyBorderIntensity` and `cloudyBorderInset`.
    public var cloudyIntensity: Double?
    public var rectDifferences: [Double]?
    /// /Name, when `icon`/`stampType` cannot hold it.
    public var iconName: String?
    /// The exact text of the custom data, when it is not the canonical text of
    /// `customData` (or not a JSON object at all).
    public var customDataText: String?
    /// /RC exactly: for types whose `text` cannot hold rich text, and when the sanitized
    /// xhtml of `text` and its plain text do not give back /RC and /Contents.
    public var richText: String?
    /// /Contents exactly, when it is not the plain text of the xhtml `text`.
    public var contents: String?
    /// `action` (a goTo) is the link's /Dest rather than an /A action.
    public var actionIsDestination: Bool?
    /// Text markup (Highlight, Underline, StrikeOut, Squiggly): the text of the page under
    /// its quads (PSPDFKit's `highlightedString`; issue 18). Written by export, read from
    /// the document each time: import ignores it, so a round trip stays idempotent.
    public var markedText: String?

    public init() {}

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        subtype = try o.node("subtype")?.pdfName()
        subject = try o.string("subject")
        inReplyTo = try o.string("inReplyTo")
        replyType = try o.string("replyType")
        state = try o.string("state")
        stateModel = try o.string("stateModel")
        popup = try o.string("popup")
        creationDate = try o.string("creationDate")
        modificationDate = try o.string("modificationDate")
        otherFlags = try o.node("otherFlags")?.integer(in: Int64.min...Int64.max)
        color = try o.node("color")?.numbers(maxCount: 4)
        interiorColor = try o.node("interiorColor")?.numbers(maxCount: 4)
        borderWidth = try o.node("borderWidth")?.number()
        pdfRect = try o.node("pdfRect")?.numbers(count: 4)
        pdfQuadPoints = try o.node("pdfQuadPoints")?.numbers()
        pdfInkList = try o.node("pdfInkList")?.array().map { try $0.numbers() }
        pdfLinePoints = try o.node("pdfLinePoints")?.numbers()
        pdfVertices = try o.node("pdfVertices")?.numbers()
        lineEndings = try o.node("lineEndings")?.array().map { try $0.pdfName() }
        defaultAppearance = try o.string("defaultAppearance")
        defaultStyle = try o.string("defaultStyle")
        borderStyle = try o.node("borderStyle")?.pdfName()
        symbol = try o.node("symbol")?.pdfName()
        caption = try o.node("caption")?.bool()
        captionPosition = try o.node("captionPosition")?.pdfName()
        captionOffset = try o.node("captionOffset")?.numbers(maxCount: 2)
        intent = try o.node("intent")?.pdfName()
        calloutLine = try o.node("calloutLine")?.numbers(maxCount: 6)
        alignment = try o.node("alignment")?.integer(in: 0...2)
        dashPattern = try o.node("dashPattern")?.numbers(maxCount: Annotation.maxDashes)
        cloudyIntensity = try o.node("cloudyIntensity")?.number()
        rectDifferences = try o.node("rectDifferences")?.numbers(count: 4)
        iconName = try o.node("iconName")?.pdfName()
        customDataText = try o.string("customDataText")
        richText = try o.string("richText")
        contents = try o.string("contents")
        actionIsDestination = try o.node("actionIsDestination")?.bool()
    }

    var isEmpty: Bool { self == InstantJSONQuireFields() }
}

/// An action: Instant JSON's action objects (goTo, goToRemote, uri, named, launch,
/// javascript) with `subAction`, and Quire's details in `quire`.
public struct InstantJSONAction: Codable, Sendable, Equatable {
    public var type: String
    /// goTo: the target page.
    public var pageIndex: Int?
    /// uri.
    public var uri: String?
    /// named: nextPage, prevPage, firstPage, lastPage, ... (the /N name, first letter
    /// lowercase).
    public var action: String?
    /// launch: the file.
    public var filePath: String?
    /// goToRemote: the file, and a named destination in it.
    public var relativePath: String?
    public var namedDestination: String?
    public var newWindow: Bool?
    /// javascript.
    public var script: String?
    /// /Next: the actions after this one (`subAction` when there is one, `quire.next`
    /// when there are more).
    public var next: [InstantJSONAction] = []
    /// uri: /IsMap.
    public var isMap: Bool?
    /// goTo and goToRemote: the view (fit and its parameters, in PDF user space), the
    /// destination's name, and for goToRemote the page of an explicit destination.
    public var destination: InstantJSONDestination?
    /// named: the exact /N when lowercasing its first letter loses it.
    public var pdfName: String?

    public init(type: String) { self.type = type }

    private enum Keys: String, CodingKey {
        case type, pageIndex, uri, action, filePath, relativePath, namedDestination, newWindow, script, subAction, quire
    }

    private struct Extension: Codable {
        var isMap: Bool?
        var destination: InstantJSONDestination?
        var pdfName: String?
        var next: [InstantJSONAction]?
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(type, forKey: .type)
        try c.encodeIfPresent(pageIndex, forKey: .pageIndex)
        try c.encodeIfPresent(uri, forKey: .uri)
        try c.encodeIfPresent(action, forKey: .action)
        try c.encodeIfPresent(filePath, forKey: .filePath)
        try c.encodeIfPresent(relativePath, forKey: .relativePath)
        try c.encodeIfPresent(namedDestination, forKey: .namedDestination)
        try c.encodeIfPresent(newWindow, forKey: .newWindow)
        try c.encodeIfPresent(script, forKey: .script)
        if let first = next.first { try c.encode(first, forKey: .subAction) }
        let ext = Extension(isMap: isMap, destination: destination, pdfName: pdfName, next: next.count > 1 ? next : nil)
        if ext.isMap != nil || ext.destination != nil || ext.pdfName != nil || ext.next != nil {
            try c.encode(ext, forKey: .quire)
        }
    }

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        type = try o.required("type").string()
        pageIndex = try o.node("pageIndex")?.integer()
        uri = try o.string("uri")
        action = try o.string("action")
        filePath = try o.string("filePath")
        relativePath = try o.string("relativePath")
        namedDestination = try o.string("namedDestination")
        newWindow = try o.node("newWindow")?.bool()
        script = try o.string("script")
        let sub = try o.node("subAction").map(InstantJSONAction.init(json:))
        if let q = try o.node("quire")?.object() {
            isMap = try q.node("isMap")?.bool()
            destination = try q.node("destination").map(InstantJSONDestination.init(json:))
            pdfName = try q.node("pdfName")?.pdfName()
            if let more = try q.node("next")?.array().map(InstantJSONAction.init(json:)), more.first == sub {
                next = more
            }
        }
        if next.isEmpty, let sub { next = [sub] }
    }
}

/// A destination's view (ISO 32000-2 Table 149), in PDF user space.
public struct InstantJSONDestination: Codable, Sendable, Equatable {
    /// goToRemote with an explicit destination: the page in the other document.
    public var pageIndex: Int?
    /// XYZ, Fit, FitH, FitV, FitR, FitB, FitBH, FitBV.
    public var fit: String
    public var left: Double?
    public var top: Double?
    public var right: Double?
    public var bottom: Double?
    public var zoom: Double?
    /// The named destination it was given by (UTF-8).
    public var name: String?
    /// The named destination's bytes in hexadecimal, for a name that is not UTF-8 (`name`
    /// is then absent): names are byte strings, and a lossy `name` would not find it again.
    public var nameHex: String?

    public init(fit: String) { self.fit = fit }

    /// The name's bytes: `nameHex` decoded, else `name` as UTF-8.
    func nameBytes() -> [UInt8]? {
        if let hex = nameHex { return InstantJSON.bytes(hex: hex) }
        return name.map { Array($0.utf8) }
    }

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        pageIndex = try o.node("pageIndex")?.integer()
        let f = try o.required("fit")
        fit = try f.string()
        guard ["XYZ", "Fit", "FitH", "FitV", "FitR", "FitB", "FitBH", "FitBV"].contains(fit) else {
            throw f.fail("unknown fit \"\(fit)\" (XYZ, Fit, FitH, FitV, FitR, FitB, FitBH or FitBV)")
        }
        left = try o.node("left")?.number()
        top = try o.node("top")?.number()
        right = try o.node("right")?.number()
        bottom = try o.node("bottom")?.number()
        zoom = try o.node("zoom")?.number()
        name = try o.string("name")
        if let h = o.node("nameHex") {
            let hex = try h.string()
            guard InstantJSON.bytes(hex: hex) != nil else { throw h.fail("not an even number of hexadecimal digits") }
            nameHex = hex
        }
    }
}
