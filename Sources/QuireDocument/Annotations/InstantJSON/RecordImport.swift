import QuireSyntax

extension InstantJSON {
    // MARK: Annotation from record

    /// The annotation a record describes, on page `record.pageIndex` of a document with
    /// `pageCount` pages: everything but the references (/IRT, /Popup), which the
    /// importer resolves. Errors name the field.
    static func fields(of r: InstantJSONAnnotation, kind: Kind, frame: Frame, pageCount: Int,
                       path: String = "annotation") throws -> Annotation {
        func fail(_ field: String, _ message: String) -> PDFError {
            PDFError(.format, "annotation JSON: \(path).\(field): \(message)")
        }
        try validate(r, path: path)
        let q = r.quire ?? InstantJSONQuireFields()
        var subtype = kind.subtype
        if kind.isGeneric {
            guard let s = q.subtype else { throw fail("quire.subtype", "a \(genericType) record needs the PDF subtype") }
            subtype = s
        }
        guard r.pageIndex < pageCount else {
            throw fail("pageIndex", "page \(r.pageIndex) does not exist (the page tree holds \(pageCount) pages)")
        }
        guard r.bbox.count == 4, r.bbox[2] >= 0, r.bbox[3] >= 0 else {
            throw fail("bbox", "the width and height must not be negative")
        }
        var a = Annotation(subtype: subtype, pageIndex: r.pageIndex, rect: frame.rect(r.bbox))
        if let p = q.pdfRect, p.count == 4 {
            let exact = Rect(left: p[0], bottom: p[1], right: p[2], top: p[3])
            if close(frame.bbox(exact), r.bbox) { a.rect = exact }
        }
        a.contents = kind.usesText ? r.text : r.note
        try richText(of: r, kind: kind, into: &a, path: path)
        a.author = r.creatorName
        a.subject = q.subject
        a.name = r.name ?? r.id
        func date(_ iso: String?, _ pdf: String?, _ field: String) throws -> PDFDate? {
            guard let iso else { return nil }
            guard let d = PDFDate(iso8601: iso) else { throw fail(field, "\"\(iso.prefix(40))\" is not an ISO 8601 date (YYYY-MM-DDTHH:MM:SS with Z or ±HH:MM)") }
            if let pdf, let exact = PDFDate(pdf), exact.secondsSinceEpoch == d.secondsSinceEpoch { return exact }
            return d
        }
        a.creationDate = try date(r.createdAt, q.creationDate, "createdAt")
        a.modificationDate = try date(r.updatedAt, q.modificationDate, "updatedAt")
        var flags = Annotation.Flag.print
        for (i, name) in (r.flags ?? []).enumerated() {
            if name == "noPrint" {
                flags &= ~Annotation.Flag.print
            } else if let bit = flagNames.first(where: { $0.0 == name })?.1 {
                flags |= bit
            } else {
                throw fail("flags[\(i)]", "unknown flag \"\(name.prefix(40))\" (noPrint, \(flagNames.map(\.0).joined(separator: ", ")))")
            }
        }
        a.flags = flags | ((q.otherFlags ?? 0) & ~namedFlagBits)
        func color(_ visible: String?, _ exact: [Double]?, _ field: String) throws -> [Double]? {
            if let exact, hex(exact) == visible.map({ $0.uppercased() }) { return exact }
            guard let visible else { return nil }
            guard let c = rgb(hex: visible) else { throw fail(field, "\"\(visible.prefix(40))\" is not a colour (#RRGGBB)") }
            return c
        }
        switch kind.color {
        case .color?: a.color = try color(r.color, q.color, "color")
        case .strokeColor?: a.color = try color(r.strokeColor, q.color, "strokeColor")
        case .borderColor?: a.color = try color(r.borderColor, q.color, "borderColor")
        case .outlineColor?: a.color = try color(r.outlineColor, q.color, "outlineColor")
        case nil: a.color = q.color
        }
        a.interiorColor = kind.fill ? try color(r.fillColor, q.interiorColor, "fillColor") : q.interiorColor
        if let opacity = r.opacity {
            // The model's rule, checked here too: export never writes an opacity outside it.
            if let problem = Annotation.opacityProblem(opacity) { throw fail("opacity", problem) }
            a.opacity = opacity
        }
        switch kind.width {
        case .strokeWidth?: a.borderWidth = r.strokeWidth
        case .lineWidth?: a.borderWidth = r.lineWidth
        case .borderWidth?: a.borderWidth = r.borderWidth
        case nil: a.borderWidth = q.borderWidth
        }
        a.symbol = q.symbol
        a.caption = q.caption ?? false
        a.captionPosition = q.captionPosition
        a.captionOffset = q.captionOffset ?? []
        a.intent = q.intent
        if let m = r.measurementScale {
            var precision = 2
            if let p = r.measurementPrecision {
                guard let d = measurementPrecisions.firstIndex(of: p) ?? measurementFractions[p] else {
                    throw fail("measurementPrecision", "unknown precision \"\(p.prefix(40))\" (\(measurementPrecisions.joined(separator: ", ")), 1/2, 1/4, 1/8, 1/16)")
                }
                precision = d
            }
            let scale = MeasurementScale(fromValue: m.from, fromUnit: m.unitFrom, toValue: m.to, toUnit: m.unitTo, precision: precision)
            if let problem = MeasurementScale.problem(scale) { throw fail("measurementScale", problem) }
            a.measurement = scale
        }
        a.rotation = r.rotation.map { (($0 % 360) + 360) % 360 } ?? 0
        if let mode = r.blendMode {
            guard Annotation.blendModes.contains(upperFirst(mode)) else {
                throw fail("blendMode", "unknown blend mode \"\(mode.prefix(40))\" (\(Annotation.blendModes.map(lowerFirst).joined(separator: ", ")))")
            }
            a.blendMode = upperFirst(mode)
        }
        a.calloutLine = q.calloutLine ?? []
        a.alignment = q.alignment
        // Border style and effect: the shapes' Instant JSON fields, else Quire's.
        if kind.width == .strokeWidth {
            a.borderStyle = q.borderStyle ?? (r.strokeDashArray != nil ? "D" : nil)
            a.dashPattern = q.dashPattern ?? r.strokeDashArray ?? []
            a.cloudyIntensity = r.cloudyBorderIntensity ?? q.cloudyIntensity
            a.rectDifferences = r.cloudyBorderInset.map { [$0[0], $0[3], $0[2], $0[1]] } ?? q.rectDifferences ?? []
        } else {
            a.borderStyle = q.borderStyle
            a.dashPattern = q.dashPattern ?? []
            a.cloudyIntensity = q.cloudyIntensity
            a.rectDifferences = q.rectDifferences ?? []
        }
        // Geometry: the Instant JSON form, refined by the exact PDF values when they agree.
        switch kind.geometry {
        case .rects:
            a.quadPoints = frame.quads(r.rects ?? [])
            if let exact = q.pdfQuadPoints, close(frame.rects(exact), r.rects ?? []) { a.quadPoints = exact }
        case .line:
            let visible = (r.startPoint ?? []) + (r.endPoint ?? [])
            guard visible.isEmpty || visible.count == 4 else { throw fail("endPoint", "a line needs both startPoint and endPoint") }
            a.linePoints = visible.isEmpty ? [] : frame.pdf([r.startPoint!, r.endPoint!])
            if let exact = q.pdfLinePoints {
                let exactVisible = exact.count == 4 ? frame.points(exact).flatMap { $0 } : []
                if close(exactVisible, visible) { a.linePoints = exact }
            }
        case .polygon, .polyline:
            a.vertices = frame.pdf(r.points ?? [])
            if let exact = q.pdfVertices, close(frame.points(exact), r.points ?? []) { a.vertices = exact }
        case .ink:
            let strokes = r.lines?.points ?? []
            a.inkList = strokes.map(frame.pdf)
            if let exact = q.pdfInkList, close(exact.map(frame.points), strokes) { a.inkList = exact }
        case .none:
            break
        }
        if kind.geometry != .rects { a.quadPoints = q.pdfQuadPoints ?? [] }
        if kind.geometry != .line { a.linePoints = q.pdfLinePoints ?? [] }
        if kind.geometry != .polygon && kind.geometry != .polyline { a.vertices = q.pdfVertices ?? [] }
        if kind.geometry != .ink { a.inkList = q.pdfInkList ?? [] }
        if kind.geometry == .line || kind.geometry == .polyline {
            var endings: [String] = []
            if let caps = r.lineCaps {
                func pdf(_ cap: String?, _ field: String) throws -> String {
                    guard let cap else { return "None" }
                    guard let name = lineCapNames.first(where: { $0.json == cap })?.pdf else {
                        throw fail("lineCaps.\(field)", "unknown line cap \"\(cap.prefix(40))\" (\(lineCapNames.map(\.json).joined(separator: ", ")))")
                    }
                    return name
                }
                endings = [try pdf(caps.start, "start"), try pdf(caps.end, "end")]
            }
            if let exact = q.lineEndings, lineCaps(exact) == r.lineCaps { endings = exact }
            a.lineEndings = endings
        } else {
            a.lineEndings = q.lineEndings ?? []
        }
        if kind.font {
            if let align = r.horizontalAlign {
                guard let index = ["left", "center", "right"].firstIndex(of: align) else {
                    throw fail("horizontalAlign", "\"\(align.prefix(40))\" is not left, center or right")
                }
                a.alignment = index
            }
            if let c = r.callout {
                let visible = c.start + (c.knee ?? []) + c.end
                a.calloutLine = frame.pdf([c.start] + (c.knee.map { [$0] } ?? []) + [c.end])
                if let exact = q.calloutLine, exact.count == visible.count, close(frame.points(exact).flatMap { $0 }, visible) {
                    a.calloutLine = exact
                }
                if q.intent == nil { a.intent = "FreeTextCallout" }
                if q.lineEndings == nil, let cap = c.cap {
                    guard let name = lineCapNames.first(where: { $0.json == cap })?.pdf else {
                        throw fail("callout.cap", "unknown line cap \"\(cap.prefix(40))\" (\(lineCapNames.map(\.json).joined(separator: ", ")))")
                    }
                    a.lineEndings = [name]
                }
                if q.rectDifferences == nil, let i = c.innerRectInset, i != [0, 0, 0, 0] {
                    a.rectDifferences = [i[0], i[3], i[2], i[1]]
                }
            }
            if let size = r.fontSize, size <= 0 { throw fail("fontSize", "\(size) is not a font size") }
            if let c = r.fontColor, rgb(hex: c) == nil { throw fail("fontColor", "\"\(c.prefix(40))\" is not a colour (#RRGGBB)") }
            a.defaultAppearance = defaultAppearance(fontSize: r.fontSize, fontColor: r.fontColor)
            if let exact = q.defaultAppearance,
               fontSize(exact) == r.fontSize, fontColor(exact) == r.fontColor?.uppercased() {
                a.defaultAppearance = exact
            }
        } else if kind.redaction {
            // `color` is the overlay text's colour: /DA at 10 points, or Quire's exact /DA.
            if let c = r.color, rgb(hex: c) == nil { throw fail("color", "\"\(c.prefix(40))\" is not a colour (#RRGGBB)") }
            a.defaultAppearance = q.defaultAppearance ?? defaultAppearance(fontSize: r.color.map { _ in 10 }, fontColor: r.color)
            if let exact = q.defaultAppearance, fontColor(exact) != r.color?.uppercased() {
                a.defaultAppearance = defaultAppearance(fontSize: fontSize(exact) ?? 10, fontColor: r.color)
            }
            a.overlayText = r.overlayText
            a.repeatsOverlayText = r.repeatOverlayText ?? false
        } else {
            a.defaultAppearance = q.defaultAppearance
        }
        a.defaultStyle = q.defaultStyle
        func checkName(_ s: String, _ field: String) throws -> String {
            try JSONNode(value: .string(s), path: "\(path).\(field)").pdfName()
        }
        switch kind.icon {
        case .note:
            a.iconName = try r.icon.map { try checkName(upperFirst($0), "icon") }
            if let exact = q.iconName, lowerFirst(exact) == r.icon { a.iconName = exact }
            if a.iconName == nil && r.type == commentMarkerType { a.iconName = "Comment" }  // PSPDFKit's marker icon
        case .stamp:
            a.iconName = try r.stampType.map { try checkName($0, "stampType") }
            if let exact = q.iconName, exact == r.stampType { a.iconName = exact }
        case .file:
            // PushPin, Paperclip, Graph, Tag; PSPDFKit Web writes them lower camel case.
            let known = r.iconName.flatMap { n in Annotation.fileAttachmentIcons.first { $0.lowercased() == n.lowercased() } }
            a.iconName = try known ?? r.iconName.map { try checkName($0, "iconName") }
            if let exact = q.iconName, exact == r.iconName { a.iconName = exact }
        case .none:
            a.iconName = q.iconName
        }
        if let value = r.customData {
            a.customData = value.canonicalText
            if let exact = q.customDataText, (try? InstantJSONValue(parsing: Array(exact.utf8))) == value { a.customData = exact }
        } else if let exact = q.customDataText {
            // Kept only when it never was a JSON object (else the client removed it).
            if case .object? = try? InstantJSONValue(parsing: Array(exact.utf8)) {} else { a.customData = exact }
        }
        // Replies and states (the target itself is resolved by the importer).
        switch q.replyType {
        case nil: a.replyType = nil
        case "reply"?: a.replyType = .reply
        case "group"?: a.replyType = .group
        case let other?: throw fail("quire.replyType", "unknown reply type \"\(other.prefix(40))\" (reply or group)")
        }
        if q.replyType != nil && q.inReplyTo == nil { throw fail("quire.replyType", "a reply type needs quire.inReplyTo") }
        a.state = q.state
        a.stateModel = q.stateModel
        switch (q.state, q.stateModel) {
        case (nil, nil): break
        case (nil, _?): throw fail("quire.state", "a state model needs a state")
        case (_?, nil): throw fail("quire.stateModel", "a state needs a state model (Marked or Review)")
        case (let s?, let m?):
            guard let model = StateModel(rawValue: m) else { throw fail("quire.stateModel", "unknown state model \"\(m.prefix(40))\" (Marked or Review)") }
            guard model.states.contains(s) else {
                throw fail("quire.state", "\"\(s.prefix(40))\" is not a state of the \(m) model (\(model.states.joined(separator: ", ")))")
            }
            // A state without a reply target is unusual but real (iText writes it): the
            // model reads it, so it must round-trip (Annotation.validateState).
        }
        // A measurement's intent and value, when the record does not give them (Nutrient's
        // records carry the scale, not the text): as adding one computes them.
        if a.measurement != nil, let it = Annotation.measurementIntent(a.subtype) {
            if q.intent == nil { a.intent = it }
            if r.note == nil { a.contents = a.measuredText }
        }
        // Actions: /A, or a goTo stored as the link's /Dest.
        if let action = r.action {
            let converted = try self.action(action, pageCount: pageCount, path: "\(path).action")
            if q.actionIsDestination == true, case .goTo(let d?) = converted.kind, converted.next.isEmpty {
                a.destination = d
            } else {
                a.action = converted
            }
        }
        return a
    }

    /// /RC and /Contents of a record. Rich text in `text` (xhtml) is sanitized
    /// (``RichText/sanitized(_:)``) into /RC, and its plain text is /Contents; the exact
    /// `quire.richText` and `quire.contents` are used when `quire.richText` sanitizes to the
    /// same xhtml (the client did not edit the text). For types without rich `text`,
    /// `quire.richText` is /RC as it is; so is it for notes and free text with plain `text`
    /// when it is not well-formed XHTML (export could then not write it as xhtml).
    static func richText(of r: InstantJSONAnnotation, kind: Kind, into a: inout Annotation, path: String) throws {
        func fail(_ field: String, _ error: PDFError) -> PDFError {
            PDFError(error.kind, "annotation JSON: \(path).\(field): \(error.message)")
        }
        let q = r.quire ?? InstantJSONQuireFields()
        if let exact = q.richText, exact.utf8.count > RichText.maxBytes {
            throw fail("quire.richText", PDFError(.limit, "the rich text is \(exact.utf8.count) bytes long (at most \(RichText.maxBytes))"))
        }
        if kind.usesText, let xhtml = r.richText {
            let clean: (xhtml: String, plainText: String)
            do { clean = try RichText.sanitized(xhtml) } catch let e as PDFError { throw fail("text.value", e) }
            a.richText = clean.xhtml
            a.contents = clean.plainText
            if let exact = q.richText, (try? RichText.sanitized(exact))?.xhtml == clean.xhtml {
                a.richText = exact
                a.contents = q.contents ?? clean.plainText
            }
        } else if let exact = q.richText {
            if kind.usesText {
                do {
                    _ = try RichText.sanitized(exact)  // well-formed: it would have been the xhtml text
                } catch let e as PDFError where e.kind == .format {
                    a.richText = exact
                }
            } else {
                a.richText = exact
            }
        }
    }

    /// The annotation model's rules (``Annotation/validate(changedFrom:)``) for `a`, the
    /// annotation that `r` gives: of every field for a new annotation, of the changed ones
    /// for an update of `previous`, as addAnnotation and updateAnnotation check them. A
    /// broken rule is a `PDFError(.format)` naming the record's field that holds the value
    /// (only the exact `quire` fields and widths can break one: the other Instant JSON
    /// fields cannot hold a value outside the rules).
    static func checkRules(_ a: Annotation, changedFrom previous: Annotation?, record r: InstantJSONAnnotation,
                           path: String) throws {
        guard let violation = a.ruleViolation(changedFrom: previous) else { return }
        let kind = self.kind(type: r.type)
        let q = r.quire ?? InstantJSONQuireFields()
        let field: String
        switch violation.field {
        case .subtype: field = kind?.isGeneric ?? true ? "quire.subtype" : "type"
        case .pageIndex: field = "pageIndex"
        case .rect: field = q.pdfRect != nil ? "quire.pdfRect" : "bbox"
        case .opacity: field = "opacity"
        case .borderWidth:
            switch kind?.width {
            case .strokeWidth?: field = "strokeWidth"
            case .lineWidth?: field = "lineWidth"
            case .borderWidth?: field = "borderWidth"
            case nil: field = "quire.borderWidth"
            }
        case .flags: field = "quire.otherFlags"
        case .color: field = "quire.color"
        case .interiorColor: field = "quire.interiorColor"
        case .quadPoints: field = "quire.pdfQuadPoints"
        case .linePoints: field = "quire.pdfLinePoints"
        case .vertices: field = "quire.pdfVertices"
        case .inkList: field = q.pdfInkList != nil && a.inkList == q.pdfInkList ? "quire.pdfInkList" : "lines.points"
        case .author: field = "creatorName"  // widgets are skipped before the rules: not met
        case .borderStyle: field = "quire.borderStyle"
        case .symbol: field = "quire.symbol"
        case .captionPosition: field = "quire.captionPosition"
        case .captionOffset: field = "quire.captionOffset"
        case .intent: field = "quire.intent"
        case .calloutLine: field = q.calloutLine != nil ? "quire.calloutLine" : "callout"
        case .alignment: field = "quire.alignment"
        case .measurement: field = "measurementScale"
        case .rotation: field = "rotation"
        case .blendMode: field = "blendMode"
        case .image: field = "imageAttachmentId"
        case .file: field = "fileAttachmentId"
        case .dashPattern: field = q.dashPattern != nil ? "quire.dashPattern" : "strokeDashArray"
        case .cloudyIntensity: field = r.cloudyBorderIntensity != nil ? "cloudyBorderIntensity" : "quire.cloudyIntensity"
        case .rectDifferences: field = r.cloudyBorderInset != nil ? "cloudyBorderInset" : "quire.rectDifferences"
        }
        throw PDFError(.format, "annotation JSON: \(path).\(field): \(violation.problem)")
    }

    /// A `pspdfkit/file` record's description of its file, checked as
    /// ``Annotation/AttachedFile`` checks a file it is given: `fileName` (absent: "file")
    /// a name without a path separator, `contentType` a media type, `description` within
    /// its limit. Errors name the field.
    static func checkFileFields(_ r: InstantJSONAnnotation, path: String) throws {
        guard r.type == fileType else { return }
        if let problem = Annotation.AttachedFile.nameProblem(r.fileName ?? "file") {
            throw PDFError(.format, "annotation JSON: \(path).fileName: \(problem)")
        }
        if let type = r.contentType, let problem = Annotation.AttachedFile.contentTypeProblem(type) {
            throw PDFError(.format, "annotation JSON: \(path).contentType: \(problem)")
        }
        if let d = r.description, d.count > Annotation.AttachedFile.maxDescriptionLength {
            throw PDFError(.format, "annotation JSON: \(path).description: longer than \(Annotation.AttachedFile.maxDescriptionLength) characters")
        }
    }

    /// The checks that reading JSON makes, for records built in code: every number finite
    /// and in range, points of two numbers, rectangles of four, colours of at most four.
    static func validate(_ r: InstantJSONAnnotation, path: String) throws {
        func fail(_ field: String, _ message: String) -> PDFError {
            PDFError(.format, "annotation JSON: \(path).\(field): \(message)")
        }
        func check(_ v: Double?, _ field: String) throws {
            guard let v else { return }
            guard v.isFinite, abs(v) <= maxMagnitude else {
                throw fail(field, "the number \(v) is out of range (at most \(Int(maxMagnitude)) in magnitude)")
            }
        }
        func check(_ values: [Double]?, _ field: String, count: Int? = nil, maxCount: Int? = nil) throws {
            guard let values else { return }
            if let count, values.count != count { throw fail(field, "expected \(count) numbers, found \(values.count)") }
            if let maxCount, values.count > maxCount { throw fail(field, "expected at most \(maxCount) numbers, found \(values.count)") }
            for (i, v) in values.enumerated() { try check(v, "\(field)[\(i)]") }
        }
        guard r.pageIndex >= 0 else { throw fail("pageIndex", "the integer \(r.pageIndex) is out of range") }
        try check(r.bbox, "bbox", count: 4)
        try check(r.opacity, "opacity")
        try check(r.strokeWidth, "strokeWidth")
        try check(r.lineWidth, "lineWidth")
        try check(r.borderWidth, "borderWidth")
        try check(r.fontSize, "fontSize")
        try check(r.strokeDashArray, "strokeDashArray", maxCount: Annotation.maxDashes)
        try check(r.cloudyBorderIntensity, "cloudyBorderIntensity")
        try check(r.cloudyBorderInset, "cloudyBorderInset", count: 4)
        if let c = r.callout {
            try check(c.start, "callout.start", count: 2)
            try check(c.knee, "callout.knee", count: 2)
            try check(c.end, "callout.end", count: 2)
            try check(c.innerRectInset, "callout.innerRectInset", count: 4)
        }
        for (i, rect) in (r.rects ?? []).enumerated() { try check(rect, "rects[\(i)]", count: 4) }
        try check(r.startPoint, "startPoint", count: 2)
        try check(r.endPoint, "endPoint", count: 2)
        for (i, p) in (r.points ?? []).enumerated() { try check(p, "points[\(i)]", count: 2) }
        for (i, stroke) in (r.lines?.points ?? []).enumerated() {
            for (k, p) in stroke.enumerated() { try check(p, "lines.points[\(i)][\(k)]", count: 2) }
        }
        if let q = r.quire {
            try check(q.color, "quire.color", maxCount: 4)
            try check(q.interiorColor, "quire.interiorColor", maxCount: 4)
            try check(q.borderWidth, "quire.borderWidth")
            try check(q.dashPattern, "quire.dashPattern", maxCount: Annotation.maxDashes)
            try check(q.cloudyIntensity, "quire.cloudyIntensity")
            try check(q.rectDifferences, "quire.rectDifferences", count: 4)
            try check(q.calloutLine, "quire.calloutLine", maxCount: 6)
            try check(q.pdfRect, "quire.pdfRect", count: 4)
            try check(q.pdfQuadPoints, "quire.pdfQuadPoints")
            for (i, stroke) in (q.pdfInkList ?? []).enumerated() { try check(stroke, "quire.pdfInkList[\(i)]") }
            try check(q.pdfLinePoints, "quire.pdfLinePoints")
            try check(q.pdfVertices, "quire.pdfVertices")
        }
        func check(_ a: InstantJSONAction, _ field: String) throws {
            if let page = a.pageIndex, page < 0 { throw fail("\(field).pageIndex", "the integer \(page) is out of range") }
            if let d = a.destination {
                if let page = d.pageIndex, page < 0 { throw fail("\(field).quire.destination.pageIndex", "the integer \(page) is out of range") }
                try check([d.left, d.top, d.right, d.bottom, d.zoom].compactMap { $0 }, "\(field).quire.destination")
            }
            for (i, n) in a.next.enumerated() { try check(n, "\(field).next[\(i)]") }
        }
        if let a = r.action { try check(a, "action") }
    }
}
