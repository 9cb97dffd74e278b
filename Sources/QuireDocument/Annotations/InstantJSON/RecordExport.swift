import QuireSyntax

extension InstantJSON {
    // MARK: Record from annotation (the Instant JSON fields)

    /// The Instant JSON fields of `a`, without Quire's exactness fields (see ``record``).
    static func visibleRecord(_ a: Annotation, kind: Kind, frame: Frame) -> InstantJSONAnnotation {
        var r = InstantJSONAnnotation(type: kind.type, pageIndex: a.pageIndex, bbox: frame.bbox(a.rect))
        r.name = a.name
        r.pdfObjectId = a.id?.number
        r.opacity = a.opacity == 1 ? nil : a.opacity
        let flags = flagList(a.flags)
        r.flags = flags.isEmpty ? nil : flags
        r.createdAt = a.creationDate?.iso8601
        r.updatedAt = a.modificationDate?.iso8601
        r.creatorName = a.author
        if let text = a.customData, let value = try? InstantJSONValue(parsing: Array(text.utf8)), case .object = value {
            r.customData = value
        }
        if kind.usesText {
            if let rc = a.richText, let clean = try? RichText.sanitized(rc) {
                r.richText = clean.xhtml
            } else {
                r.text = a.contents
            }
        } else {
            r.note = a.contents
        }
        switch kind.color {
        case .color?: r.color = hex(a.color)
        case .strokeColor?: r.strokeColor = hex(a.color)
        case .borderColor?: r.borderColor = hex(a.color)
        case .outlineColor?: r.outlineColor = hex(a.color)
        case nil: break
        }
        if kind.redaction {
            r.overlayText = a.overlayText
            r.repeatOverlayText = a.repeatsOverlayText ? true : nil
            r.color = fontColor(a.defaultAppearance)
        }
        if kind.fill { r.fillColor = hex(a.interiorColor) }
        let width = a.borderWidth.flatMap { $0.isFinite ? $0 : nil }
        switch kind.width {
        case .strokeWidth?: r.strokeWidth = width
        case .lineWidth?: r.lineWidth = width
        case .borderWidth?: r.borderWidth = width
        case nil: break
        }
        if kind.width == .strokeWidth {
            // Shapes: a dashed stroke, and a cloudy border with its inset.
            if a.borderStyle == "D" { r.strokeDashArray = strokeDashArray(a.dashPattern) }
            r.cloudyBorderIntensity = a.cloudyIntensity
            r.cloudyBorderInset = inset(a.rectDifferences)
        }
        switch kind.geometry {
        case .rects:
            if !a.quadPoints.isEmpty { r.rects = frame.rects(a.quadPoints) }
        case .line:
            if a.linePoints.count == 4 {
                r.startPoint = frame.point(a.linePoints[0], a.linePoints[1])
                r.endPoint = frame.point(a.linePoints[2], a.linePoints[3])
            }
            r.lineCaps = lineCaps(a.lineEndings)
        case .polygon, .polyline:
            if !a.vertices.isEmpty { r.points = frame.points(a.vertices) }
            if kind.geometry == .polyline { r.lineCaps = lineCaps(a.lineEndings) }
        case .ink:
            if !a.inkList.isEmpty {
                let strokes = a.inkList.map { frame.points($0.filter(\.isFinite)) }
                r.lines = InstantJSONLines(points: strokes, intensities: strokes.map { Array(repeating: 0.5, count: $0.count) })
            }
        case .none:
            break
        }
        if let m = a.measurement {
            r.measurementScale = InstantJSONMeasurementScale(unitFrom: m.fromUnit, from: m.fromValue, unitTo: m.toUnit, to: m.toValue)
            r.measurementPrecision = measurementPrecisions.indices.contains(m.precision) ? measurementPrecisions[m.precision] : nil
        }
        r.rotation = a.rotation == 0 ? nil : a.rotation
        r.blendMode = a.blendMode.map(lowerFirst)
        if kind.font {
            // Free text: alignment and callout.
            r.horizontalAlign = a.alignment.map { ["left", "center", "right"][Swift.min(Swift.max($0, 0), 2)] }
            let cl = a.calloutLine
            if cl.count == 4 || cl.count == 6 {
                r.callout = InstantJSONCallout(
                    start: frame.point(cl[0], cl[1]), knee: cl.count == 6 ? frame.point(cl[2], cl[3]) : nil,
                    end: frame.point(cl[cl.count - 2], cl[cl.count - 1]), cap: lineCaps(a.lineEndings)?.start,
                    innerRectInset: inset(a.rectDifferences) ?? [0, 0, 0, 0])
            }
        }
        if kind.font, let da = a.defaultAppearance {
            r.fontSize = fontSize(da)
            r.fontColor = fontColor(da)
        }
        switch kind.icon {
        case .note: r.icon = a.iconName.map(lowerFirst)
        case .stamp: r.stampType = a.iconName
        case .file: r.iconName = a.iconName
        case .none: break
        }
        var q = InstantJSONQuireFields()
        if kind.isGeneric { q.subtype = a.subtype }
        q.subject = a.subject
        q.replyType = !a.isReply ? nil : a.replyType.map { $0 == .reply ? "reply" : "group" }
        q.state = a.state
        q.stateModel = a.stateModel
        let other = a.flags & ~namedFlagBits
        q.otherFlags = other == 0 ? nil : other
        r.quire = q
        return r
    }

    /// Adds to `r` the exact values that its Instant JSON fields do not reproduce: import
    /// of the record then gives back `a` field for field.
    static func addExactValues(_ r: inout InstantJSONAnnotation, _ a: Annotation, kind: Kind, frame: Frame) throws {
        var q = r.quire ?? InstantJSONQuireFields()
        guard let back = try? fields(of: r, kind: kind, frame: frame, pageCount: Int.max) else {
            // The record breaks one of Quire's rules (a state without a reply, say): it will
            // not import, but it keeps every value.
            q.pdfRect = [a.rect.left, a.rect.bottom, a.rect.right, a.rect.top]
            q.creationDate = a.creationDate?.description
            q.modificationDate = a.modificationDate?.description
            q.color = a.color
            q.interiorColor = a.interiorColor
            q.borderWidth = a.borderWidth.flatMap { $0.isFinite ? $0 : nil }
            q.pdfQuadPoints = a.quadPoints.isEmpty ? nil : a.quadPoints
            q.pdfInkList = a.inkList.isEmpty ? nil : a.inkList.map { $0.filter(\.isFinite) }
            q.pdfLinePoints = a.linePoints.isEmpty ? nil : a.linePoints
            q.pdfVertices = a.vertices.isEmpty ? nil : a.vertices
            q.lineEndings = a.lineEndings.isEmpty ? nil : a.lineEndings
            q.defaultAppearance = a.defaultAppearance
            q.defaultStyle = a.defaultStyle
            q.borderStyle = a.borderStyle
            q.symbol = a.symbol
            q.caption = a.caption ? true : nil
            q.captionPosition = a.captionPosition
            q.captionOffset = a.captionOffset.isEmpty ? nil : a.captionOffset
            q.intent = a.intent
            q.calloutLine = a.calloutLine.isEmpty ? nil : a.calloutLine
            q.alignment = a.alignment
            q.dashPattern = a.dashPattern.isEmpty ? nil : a.dashPattern
            q.cloudyIntensity = a.cloudyIntensity
            q.rectDifferences = a.rectDifferences.isEmpty ? nil : a.rectDifferences
            q.iconName = a.iconName
            q.customDataText = a.customData
            q.richText = a.richText
            q.contents = r.richText != nil ? a.contents : nil
            r.quire = q
            return
        }
        if back.rect != a.rect { q.pdfRect = [a.rect.left, a.rect.bottom, a.rect.right, a.rect.top] }
        if back.creationDate != a.creationDate { q.creationDate = a.creationDate?.description }
        if back.modificationDate != a.modificationDate { q.modificationDate = a.modificationDate?.description }
        if back.color != a.color { q.color = a.color }
        if back.interiorColor != a.interiorColor { q.interiorColor = a.interiorColor }
        if back.borderWidth != a.borderWidth, a.borderWidth?.isFinite ?? true { q.borderWidth = a.borderWidth }
        if back.quadPoints != a.quadPoints { q.pdfQuadPoints = a.quadPoints }
        if back.inkList != a.inkList { q.pdfInkList = a.inkList.map { $0.filter(\.isFinite) } }
        if back.linePoints != a.linePoints { q.pdfLinePoints = a.linePoints }
        if back.vertices != a.vertices { q.pdfVertices = a.vertices }
        if back.lineEndings != a.lineEndings { q.lineEndings = a.lineEndings }
        if back.defaultAppearance != a.defaultAppearance { q.defaultAppearance = a.defaultAppearance }
        if back.defaultStyle != a.defaultStyle { q.defaultStyle = a.defaultStyle }
        if back.borderStyle != a.borderStyle { q.borderStyle = a.borderStyle }
        if back.symbol != a.symbol { q.symbol = a.symbol }
        if back.caption != a.caption { q.caption = a.caption }
        if back.captionPosition != a.captionPosition { q.captionPosition = a.captionPosition }
        if back.captionOffset != a.captionOffset { q.captionOffset = a.captionOffset }
        if back.intent != a.intent { q.intent = a.intent }
        if back.calloutLine != a.calloutLine { q.calloutLine = a.calloutLine }
        if back.alignment != a.alignment { q.alignment = a.alignment }
        if back.dashPattern != a.dashPattern { q.dashPattern = a.dashPattern }
        if back.cloudyIntensity != a.cloudyIntensity { q.cloudyIntensity = a.cloudyIntensity }
        if back.rectDifferences != a.rectDifferences { q.rectDifferences = a.rectDifferences }
        if back.iconName != a.iconName { q.iconName = a.iconName }
        if back.customData != a.customData { q.customDataText = a.customData }
        if back.richText != a.richText || back.contents != a.contents {
            q.richText = a.richText
            if back.contents != a.contents { q.contents = a.contents }
        }
        r.quire = q.isEmpty ? nil : q
    }

    /// Instant JSON's `measurementPrecision` names, by decimals.
    static let measurementPrecisions = ["whole", "oneDp", "twoDp", "threeDp", "fourDp"]
    /// The fractions it also names, by the decimals that hold them exactly.
    static let measurementFractions = ["1/2": 1, "1/4": 2, "1/8": 3, "1/16": 4]

    /// Instant JSON's dash array of /BS /D: two lengths, dash and gap (an empty /D is the
    /// standard's default, 3 on and 3 off; one length is as long on as off).
    static func strokeDashArray(_ dash: [Double]) -> [Double] {
        switch dash.count {
        case 0: return [3, 3]
        case 1: return [dash[0], dash[0]]
        default: return dash
        }
    }

    /// Instant JSON's inset, [left, top, right, bottom], of /RD [left bottom right top].
    static func inset(_ rd: [Double]) -> [Double]? {
        rd.count == 4 ? [rd[0], rd[3], rd[2], rd[1]] : nil
    }
}
