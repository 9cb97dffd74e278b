import QuireSyntax

// The rules of the annotation model: what a value of each field may be for Quire to write
// it. Every way in checks the same rules: ``Document/addAnnotation(_:)`` (every field),
// ``Document/updateAnnotation(_:)`` (the fields that changed: a value the file already had
// is kept as it was read, even outside the rules), the annotation JSON import (as those
// two, each error naming the JSON field) and the C setters, which check the one value they
// set when it is set.

extension Annotation {
    /// The fields that have rules.
    enum Field: CaseIterable {
        case subtype, pageIndex, rect, opacity, borderWidth, flags, color, interiorColor
        case quadPoints, linePoints, vertices, inkList, author
        case borderStyle, dashPattern, cloudyIntensity, rectDifferences, symbol, image, file
        case intent, calloutLine, alignment, measurement, rotation, blendMode, captionPosition, captionOffset

        /// How messages name the field.
        var label: String {
            switch self {
            case .subtype: return "subtype"
            case .pageIndex: return "page index"
            case .rect: return "rect"
            case .opacity: return "opacity"
            case .borderWidth: return "border width"
            case .flags: return "flags"
            case .color: return "colour"
            case .interiorColor: return "interior colour"
            case .quadPoints: return "quad points"
            case .linePoints: return "line"
            case .vertices: return "vertices"
            case .inkList: return "ink list"
            case .author: return "author"
            case .borderStyle: return "border style"
            case .dashPattern: return "dash pattern"
            case .cloudyIntensity: return "cloudy intensity"
            case .rectDifferences: return "rect differences"
            case .symbol: return "symbol"
            case .image: return "image"
            case .file: return "file"
            case .intent: return "intent"
            case .calloutLine: return "callout line"
            case .alignment: return "alignment"
            case .measurement: return "measurement"
            case .rotation: return "rotation"
            case .blendMode: return "blend mode"
            case .captionPosition: return "caption position"
            case .captionOffset: return "caption offset"
            }
        }
    }

    /// A broken rule: the field, and what is wrong with its value (without the field's
    /// name, so that the JSON import can name its own field instead).
    struct RuleViolation: Equatable {
        let field: Field
        let problem: String

        /// The error the model throws: `PDFError(.invalidArgument)`, "field: problem".
        var error: PDFError { PDFError(.invalidArgument, "\(field.label): \(problem)") }
    }

    // MARK: One value

    static func subtypeProblem(_ subtype: String) -> String? {
        subtype.isEmpty ? "must not be empty" : nil
    }

    static func pageIndexProblem(_ index: Int) -> String? {
        index < 0 ? "\(index) is negative" : nil
    }

    static func rectProblem(_ rect: Rect) -> String? {
        [rect.left, rect.bottom, rect.right, rect.top].allSatisfy(\.isFinite) ? nil : "\(rect) has a coordinate that is not finite"
    }

    static func opacityProblem(_ opacity: Double) -> String? {
        (0...1).contains(opacity) ? nil : "\(opacity) is not between 0 and 1"
    }

    static func borderWidthProblem(_ width: Double?) -> String? {
        guard let width else { return nil }
        if !width.isFinite { return "\(width) is not a finite number" }
        return width < 0 ? "\(width) is negative" : nil
    }

    static func flagsProblem(_ flags: Int) -> String? {
        (0...Int(UInt32.max)).contains(flags) ? nil : "\(flags) is not an unsigned 32-bit integer"
    }

    static func colorProblem(_ color: [Double]?) -> String? {
        guard let color else { return nil }
        guard [0, 1, 3, 4].contains(color.count) else {
            return "\(color.count) components (a colour has 0, 1, 3 or 4: none, gray, RGB or CMYK)"
        }
        if let bad = color.first(where: { !(0...1).contains($0) }) { return "the component \(bad) is not between 0 and 1" }
        return nil
    }

    /// Numbers that are not all finite, and a count that is not a multiple of `groups`.
    static func numbersProblem(_ values: [Double], groups: Int, _ rule: String) -> String? {
        guard values.count % groups == 0 else { return "\(values.count) numbers (\(rule))" }
        if let bad = values.first(where: { !$0.isFinite }) { return "\(bad) is not a finite number" }
        return nil
    }

    static func quadPointsProblem(_ quads: [Double]) -> String? {
        numbersProblem(quads, groups: 8, "quad points come in groups of 8: x1 y1 ... x4 y4 for each quadrilateral")
    }

    static func linePointsProblem(_ line: [Double]) -> String? {
        guard line.isEmpty || line.count == 4 else { return "\(line.count) numbers (a line is 4: x1 y1 x2 y2, or none)" }
        return numbersProblem(line, groups: 1, "")
    }

    static func verticesProblem(_ vertices: [Double]) -> String? {
        numbersProblem(vertices, groups: 2, "vertices are x, y pairs")
    }

    static func inkStrokeProblem(_ stroke: [Double]) -> String? {
        guard !stroke.isEmpty else { return "an empty stroke (a stroke has at least one point)" }
        return numbersProblem(stroke, groups: 2, "a stroke is x, y pairs")
    }

    /// A widget's /T is the partial name of its form field (the widget and its field share
    /// one dictionary), not an author: widgets read without an author, and one cannot be
    /// given to them, which would rename the field.
    static func widgetAuthorProblem(_ author: String?) -> String? {
        author == nil ? nil : "a widget's /T is the name of its form field, not an author; a widget has no author (rename a field through the form, not its widget)"
    }

    static func borderStyleProblem(_ style: String?) -> String? {
        guard let style, !BorderStyle.all.contains(style) else { return nil }
        return "\(style.prefix(40)) is not a border style (S solid, D dashed, B beveled, I inset, U underline)"
    }

    /// The most numbers of a dash array.
    static let maxDashes = 16

    static func dashPatternProblem(_ dash: [Double]) -> String? {
        guard !dash.isEmpty else { return nil }
        if dash.count > maxDashes { return "\(dash.count) numbers (at most \(maxDashes))" }
        if let bad = dash.first(where: { !$0.isFinite || $0 < 0 }) { return "\(bad) is not a finite length of 0 or more" }
        return dash.allSatisfy({ $0 == 0 }) ? "every length is 0 (ISO 32000-2 §8.4.3.6 forbids it)" : nil
    }

    /// The greatest cloudy intensity (the standard names 0 to 2; PSPDFKit's viewers write
    /// up to 5 and draw more).
    static let maxCloudyIntensity = 10.0

    static func cloudyIntensityProblem(_ intensity: Double?) -> String? {
        guard let intensity else { return nil }
        return intensity.isFinite && (0...maxCloudyIntensity).contains(intensity) ? nil
            : "\(intensity) is not between 0 and \(Int(maxCloudyIntensity))"
    }

    static func rectDifferencesProblem(_ rd: [Double]) -> String? {
        guard !rd.isEmpty else { return nil }
        guard rd.count == 4 else { return "\(rd.count) numbers (left, bottom, right, top: 4, or none)" }
        if let bad = rd.first(where: { !$0.isFinite || $0 < 0 }) { return "\(bad) is not a finite distance of 0 or more" }
        return nil
    }

    static func calloutLineProblem(_ line: [Double]) -> String? {
        guard line.isEmpty || line.count == 4 || line.count == 6 else {
            return "\(line.count) numbers (a callout line is 4 or 6: x1 y1 [x2 y2] x3 y3, or none)"
        }
        return numbersProblem(line, groups: 2, "")
    }

    static func captionPositionProblem(_ position: String?) -> String? {
        guard let position, position != "Inline", position != "Top" else { return nil }
        return "\(position.prefix(40)) is not a caption position (Inline or Top)"
    }

    static func captionOffsetProblem(_ offset: [Double]) -> String? {
        guard offset.isEmpty || offset.count == 2 else {
            return "\(offset.count) numbers (a caption offset is 2: along the line and across it, or none)"
        }
        return numbersProblem(offset, groups: 1, "")
    }

    static func alignmentProblem(_ q: Int?) -> String? {
        guard let q, !(0...2).contains(q) else { return nil }
        return "\(q) is not an alignment (0 left, 1 centred, 2 right)"
    }

    static func symbolProblem(_ symbol: String?) -> String? {
        guard let symbol, symbol != "P", symbol != "None" else { return nil }
        return "\(symbol.prefix(40)) is not a caret symbol (P or None)"
    }

    static func measurementProblem(_ scale: MeasurementScale?, subtype: String) -> String? {
        guard let scale else { return nil }
        if measurementIntent(subtype) == nil { return "only a Line (distance), PolyLine (perimeter) or Polygon (area) measures, not a \(subtype.prefix(40))" }
        return MeasurementScale.problem(scale)
    }

    static func rotationProblem(_ rotation: Int, subtype: String) -> String? {
        guard rotation != 0 else { return nil }
        guard [90, 180, 270].contains(rotation) else { return "\(rotation) is not 0, 90, 180 or 270" }
        return subtype == "FreeText" || subtype == "Stamp" ? nil : "only FreeText and Stamp turn, not a \(subtype.prefix(40))"
    }

    static func blendModeProblem(_ mode: String?) -> String? {
        guard let mode, !blendModes.contains(mode) else { return nil }
        return "\(mode.prefix(40)) is not a blend mode (\(blendModes.joined(separator: ", ")))"
    }

    static func inkListProblem(_ strokes: [[Double]]) -> String? {
        for (k, stroke) in strokes.enumerated() {
            if let problem = inkStrokeProblem(stroke) { return "stroke \(k): \(problem)" }
        }
        return nil
    }

    /// The first rule that `self` breaks, among the fields that differ from `previous`
    /// (every field when it is nil), in the order of ``Field``.
    func ruleViolation(changedFrom previous: Annotation? = nil) -> RuleViolation? {
        func check<T: Equatable>(_ key: KeyPath<Annotation, T>, _ problem: (T) -> String?) -> String? {
            if let previous, previous[keyPath: key] == self[keyPath: key] { return nil }
            return problem(self[keyPath: key])
        }
        for field in Field.allCases {
            let problem: String?
            switch field {
            case .subtype: problem = check(\.subtype, Annotation.subtypeProblem)
            case .pageIndex: problem = check(\.pageIndex, Annotation.pageIndexProblem)
            case .rect: problem = check(\.rect, Annotation.rectProblem)
            case .opacity: problem = check(\.opacity, Annotation.opacityProblem)
            case .borderWidth: problem = check(\.borderWidth, Annotation.borderWidthProblem)
            case .flags: problem = check(\.flags, Annotation.flagsProblem)
            case .color: problem = check(\.color, Annotation.colorProblem)
            case .interiorColor: problem = check(\.interiorColor, Annotation.colorProblem)
            case .quadPoints: problem = check(\.quadPoints, Annotation.quadPointsProblem)
            case .linePoints: problem = check(\.linePoints, Annotation.linePointsProblem)
            case .vertices: problem = check(\.vertices, Annotation.verticesProblem)
            case .inkList: problem = check(\.inkList, Annotation.inkListProblem)
            case .author: problem = subtype == "Widget" ? check(\.author, Annotation.widgetAuthorProblem) : nil
            case .borderStyle: problem = check(\.borderStyle, Annotation.borderStyleProblem)
            case .dashPattern: problem = check(\.dashPattern, Annotation.dashPatternProblem)
            case .cloudyIntensity: problem = check(\.cloudyIntensity, Annotation.cloudyIntensityProblem)
            case .rectDifferences: problem = check(\.rectDifferences, Annotation.rectDifferencesProblem)
            case .symbol: problem = check(\.symbol, Annotation.symbolProblem)
            case .intent: problem = check(\.intent) { $0.map { $0.isEmpty ? "must not be empty" : nil } ?? nil }
            case .calloutLine: problem = check(\.calloutLine, Annotation.calloutLineProblem)
            case .alignment: problem = check(\.alignment, Annotation.alignmentProblem)
            case .measurement: problem = check(\.measurement) { Annotation.measurementProblem($0, subtype: subtype) }
            case .rotation: problem = check(\.rotation) { Annotation.rotationProblem($0, subtype: subtype) }
            case .blendMode: problem = check(\.blendMode, Annotation.blendModeProblem)
            case .captionPosition: problem = check(\.captionPosition, Annotation.captionPositionProblem)
            case .captionOffset: problem = check(\.captionOffset, Annotation.captionOffsetProblem)
            case .image: problem = image != nil && subtype != "Stamp" ? "only a Stamp has an image, not a \(subtype.prefix(40))" : nil
            case .file:
                problem = file != nil && subtype != "FileAttachment" ? "only a FileAttachment has a file, not a \(subtype.prefix(40))" : nil
            }
            if let problem { return RuleViolation(field: field, problem: problem) }
        }
        return nil
    }

    // MARK: The public checks

    /// Checks the fields that have rules, and throws `PDFError(.invalidArgument)` naming the
    /// first one that breaks its rule ("opacity: 1.5 is not between 0 and 1"):
    ///
    /// - ``subtype`` is not empty; ``pageIndex`` is not negative; ``rect`` is finite;
    /// - ``opacity`` is in 0...1; ``borderWidth`` is finite and not negative; ``flags``
    ///   is an unsigned 32-bit integer (/F);
    /// - ``color`` and ``interiorColor`` have 0, 1, 3 or 4 components, each in 0...1;
    /// - ``quadPoints`` come in groups of 8 numbers, ``linePoints`` are 4 numbers or none,
    ///   ``vertices`` and each stroke of ``inkList`` are x, y pairs (a stroke has at least
    ///   one), and every number is finite;
    /// - a Widget has no ``author`` (its /T is its form field's name);
    /// - ``borderStyle`` is S, D, B, I or U; ``dashPattern`` is at most 16 finite lengths
    ///   of 0 or more, not all 0; ``cloudyIntensity`` is in 0...10; ``rectDifferences`` is
    ///   4 finite distances of 0 or more, or none; ``symbol`` is P or None; only a Stamp
    ///   has an ``image`` and only a FileAttachment a ``file``; ``intent`` is not empty; ``calloutLine`` is 4 or 6 finite
    ///   numbers, or none; ``alignment`` is 0, 1 or 2; only a Line, PolyLine or Polygon
    ///   has a ``measurement``, of values above 0, known units and 0 to 4 decimals; only
    ///   FreeText and Stamp have a ``rotation``, 0, 90, 180 or 270; ``blendMode`` is one of
    ///   ``blendModes``; ``captionPosition`` is Inline or Top and ``captionOffset`` 2 finite
    ///   numbers or none. (Line endings have no rule: a name
    ///   that is not in Table 179 is drawn as None, as viewers do.)
    ///
    /// With `previous` (the annotation as the document has it), only the fields that differ
    /// from it are checked: a value that a file already had is kept as it was read, even
    /// when it breaks a rule (a colour with components of 0 to 255, say), so that changing
    /// another field does not fail on it. ``Document/addAnnotation(_:)`` checks every field
    /// and ``Document/updateAnnotation(_:)`` the changed ones; /State and /StateModel have
    /// their own check there.
    public func validate(changedFrom previous: Annotation? = nil) throws {
        if let violation = ruleViolation(changedFrom: previous) { throw violation.error }
    }

    /// Checks a value for ``subtype`` (not empty), as ``validate(changedFrom:)`` does.
    public static func validate(subtype: String) throws {
        try check(.subtype, subtypeProblem(subtype))
    }

    /// Checks a value for ``pageIndex`` (not negative).
    public static func validate(pageIndex: Int) throws {
        try check(.pageIndex, pageIndexProblem(pageIndex))
    }

    /// Checks a value for ``rect`` (every coordinate finite).
    public static func validate(rect: Rect) throws {
        try check(.rect, rectProblem(rect))
    }

    /// Checks a value for ``opacity`` (in 0...1).
    public static func validate(opacity: Double) throws {
        try check(.opacity, opacityProblem(opacity))
    }

    /// Checks a value for ``borderWidth`` (finite, not negative).
    public static func validate(borderWidth: Double) throws {
        try check(.borderWidth, borderWidthProblem(borderWidth))
    }

    /// Checks a value for ``flags`` (0 to 2^32 - 1).
    public static func validate(flags: Int) throws {
        try check(.flags, flagsProblem(flags))
    }

    /// Checks a value for ``color`` (0, 1, 3 or 4 components, each in 0...1).
    public static func validate(color: [Double]) throws {
        try check(.color, colorProblem(color))
    }

    /// Checks a value for ``interiorColor`` (0, 1, 3 or 4 components, each in 0...1).
    public static func validate(interiorColor: [Double]) throws {
        try check(.interiorColor, colorProblem(interiorColor))
    }

    /// Checks a value for ``quadPoints`` (groups of 8 finite numbers).
    public static func validate(quadPoints: [Double]) throws {
        try check(.quadPoints, quadPointsProblem(quadPoints))
    }

    /// Checks a value for ``linePoints`` (4 finite numbers, or none).
    public static func validate(linePoints: [Double]) throws {
        try check(.linePoints, linePointsProblem(linePoints))
    }

    /// Checks a value for ``vertices`` (x, y pairs of finite numbers).
    public static func validate(vertices: [Double]) throws {
        try check(.vertices, verticesProblem(vertices))
    }

    /// Checks one stroke for ``inkList`` (at least one x, y pair of finite numbers).
    public static func validate(inkStroke: [Double]) throws {
        try check(.inkList, inkStrokeProblem(inkStroke))
    }

    /// Checks a value for ``borderStyle`` (S, D, B, I or U).
    public static func validate(borderStyle: String) throws {
        try check(.borderStyle, borderStyleProblem(borderStyle))
    }

    /// Checks a value for ``calloutLine`` (4 or 6 finite numbers, or none).
    public static func validate(calloutLine: [Double]) throws {
        try check(.calloutLine, calloutLineProblem(calloutLine))
    }

    /// Checks a value for ``captionPosition`` (Inline or Top).
    public static func validate(captionPosition: String) throws {
        try check(.captionPosition, captionPositionProblem(captionPosition))
    }

    /// Checks a value for ``captionOffset`` (2 finite numbers, or none).
    public static func validate(captionOffset: [Double]) throws {
        try check(.captionOffset, captionOffsetProblem(captionOffset))
    }

    /// Checks a value for ``alignment`` (0, 1 or 2).
    public static func validate(alignment: Int) throws {
        try check(.alignment, alignmentProblem(alignment))
    }

    /// Checks a value for ``intent`` (not empty).
    public static func validate(intent: String) throws {
        try check(.intent, intent.isEmpty ? "must not be empty" : nil)
    }

    /// Checks a value for ``symbol`` (P or None).
    public static func validate(symbol: String) throws {
        try check(.symbol, symbolProblem(symbol))
    }

    /// Checks a value for ``dashPattern``.
    public static func validate(dashPattern: [Double]) throws {
        try check(.dashPattern, dashPatternProblem(dashPattern))
    }

    /// Checks a value for ``cloudyIntensity`` (0...10).
    public static func validate(cloudyIntensity: Double) throws {
        try check(.cloudyIntensity, cloudyIntensityProblem(cloudyIntensity))
    }

    /// Checks a value for ``rectDifferences`` (4 distances of 0 or more, or none).
    public static func validate(rectDifferences: [Double]) throws {
        try check(.rectDifferences, rectDifferencesProblem(rectDifferences))
    }

    /// Checks a scale for ``measurement`` of a `subtype` annotation.
    public static func validate(measurement: MeasurementScale, subtype: String) throws {
        try check(.measurement, measurementProblem(measurement, subtype: subtype))
    }

    /// Checks a value for ``rotation`` of a `subtype` annotation (0, 90, 180 or 270, on
    /// FreeText and Stamp).
    public static func validate(rotation: Int, subtype: String) throws {
        try check(.rotation, rotationProblem(rotation, subtype: subtype))
    }

    /// Checks a value for ``blendMode``.
    public static func validate(blendMode: String) throws {
        try check(.blendMode, blendModeProblem(blendMode))
    }

    private static func check(_ field: Field, _ problem: String?) throws {
        if let problem { throw RuleViolation(field: field, problem: problem).error }
    }
}

extension Annotation {
    /// Text markup (Highlight, Underline, Squiggly, StrikeOut) needs /QuadPoints (ISO 32000-2
    /// §12.5.6.10), which viewers draw instead of /Rect: one without them gets its
    /// rectangle as its one quadrilateral (upper left, upper right, lower left, lower right,
    /// the order viewers read), when a program adds or updates it. The JSON import leaves
    /// its records as they are, so that importing an export changes nothing.
    mutating func defaultQuadPoints() {
        guard ["Highlight", "Underline", "Squiggly", "StrikeOut"].contains(subtype), quadPoints.isEmpty else { return }
        quadPoints = [rect.left, rect.top, rect.right, rect.top, rect.left, rect.bottom, rect.right, rect.bottom]
    }
}
