import QuireSyntax

/// The scale and precision of a measurement annotation (ISO 32000-2 §12.9): a distance
/// (Line), a perimeter (PolyLine) or an area (Polygon), written as a rectilinear measure
/// dictionary (/Measure, /Subtype /RL) whose scale ratio (/R) is "`fromValue` `fromUnit` =
/// `toValue` `toUnit`": that much on the page is that much in the world ("1 in = 2 ft").
///
/// The units are Nutrient's (Instant JSON's `measurementScale`): on the page pt, in, mm or
/// cm; in the world those and ft, m, yd, km or mi. The precision is the number of decimals
/// shown, 0 to 4 (`measurementPrecision` whole, oneDp ... fourDp).
public struct MeasurementScale: Sendable, Equatable {
    public var fromValue: Double
    public var fromUnit: String
    public var toValue: Double
    public var toUnit: String
    /// Decimals shown, 0 to 4.
    public var precision: Int

    /// The units of the page side and of the world side.
    public static let fromUnits = ["pt", "in", "mm", "cm"]
    public static let toUnits = ["pt", "in", "mm", "cm", "ft", "m", "yd", "km", "mi"]
    /// The most decimals shown.
    public static let maxPrecision = 4

    public init(
        fromValue: Double = 1,
        fromUnit: String = "in",
        toValue: Double = 1,
        toUnit: String = "in",
        precision: Int = 2
    ) {
        self.fromValue = fromValue
        self.fromUnit = fromUnit
        self.toValue = toValue
        self.toUnit = toUnit
        self.precision = precision
    }

    /// PDF points (1/72 in) in one `unit`; nil for a unit Quire does not know.
    public static func points(per unit: String) -> Double? {
        switch unit {
        case "pt": return 1
        case "in": return 72
        case "mm": return 72 / 25.4
        case "cm": return 72 / 2.54
        case "ft": return 72 * 12
        case "yd": return 72 * 36
        case "m": return 7200 / 2.54
        case "km": return 7_200_000 / 2.54
        case "mi": return 72 * 63360
        default: return nil
        }
    }

    /// What is wrong with the scale, or nil: values finite and above 0, known units, a
    /// precision of 0 to 4.
    static func problem(_ s: MeasurementScale?) -> String? {
        guard let s else { return nil }
        guard s.fromValue.isFinite, s.fromValue > 0, s.fromValue <= 1e9 else {
            return "the page value \(s.fromValue) is not a number above 0 (at most 1e9)"
        }
        guard s.toValue.isFinite, s.toValue > 0, s.toValue <= 1e9 else {
            return "the world value \(s.toValue) is not a number above 0 (at most 1e9)"
        }
        guard fromUnits.contains(s.fromUnit) else {
            return "\(s.fromUnit.prefix(20)) is not a page unit (\(fromUnits.joined(separator: ", ")))"
        }
        guard toUnits.contains(s.toUnit) else {
            return "\(s.toUnit.prefix(20)) is not a world unit (\(toUnits.joined(separator: ", ")))"
        }
        guard (0...maxPrecision).contains(s.precision) else {
            return "precision \(s.precision) is not 0 to \(maxPrecision) decimals"
        }
        return nil
    }

    /// World units per PDF point: the conversion factor of the measure dictionary's /X.
    public var factor: Double {
        toValue / (fromValue * (MeasurementScale.points(per: fromUnit) ?? 1))
    }

    /// The scale ratio /R: "1 in = 2 ft".
    public var ratio: String {
        "\(MeasurementScale.plain(fromValue)) \(fromUnit) = \(MeasurementScale.plain(toValue)) \(toUnit)"
    }

    /// The scale of a ratio written "A u = B v" (/R, XFDF's `rateValue`), nil for another form.
    public init?(ratio: String, precision: Int) {
        let sides = ratio.split(separator: "=", omittingEmptySubsequences: false)
        guard sides.count == 2 else { return nil }
        func side(_ s: Substring) -> (Double, String)? {
            let parts = s.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count == 2, let v = Double(parts[0]) else { return nil }
            return (v, String(parts[1]))
        }
        guard let from = side(sides[0]), let to = side(sides[1]) else { return nil }
        let s = MeasurementScale(
            fromValue: from.0,
            fromUnit: from.1,
            toValue: to.0,
            toUnit: to.1,
            precision: Swift.min(Swift.max(precision, 0), MeasurementScale.maxPrecision)
        )
        guard MeasurementScale.problem(s) == nil else { return nil }
        self = s
    }

    /// The decimals of a number format's precision /D (XFDF's `d`): 10 to the decimals,
    /// so 100 is 2 (0 to 4; nil for a value below 1 or not finite).
    static func decimals(denominator d: Double) -> Int? {
        guard d.isFinite, d >= 1 else { return nil }
        var p = 0
        var scale = 1.0
        while scale < d && p < maxPrecision {
            scale *= 10
            p += 1
        }
        return p
    }

    /// `value` with `precision` decimals and its unit, as viewers show a measurement:
    /// "12.50 cm", "3.14 sq cm" for an area.
    public func text(_ value: Double, area: Bool) -> String {
        MeasurementScale.fixed(value, decimals: precision) + (area ? " sq " : " ") + toUnit
    }

    /// `v` with exactly `decimals` decimals, rounded half away from zero.
    static func fixed(_ v: Double, decimals: Int) -> String {
        guard v.isFinite else { return "0" }
        var scale = 1.0
        for _ in 0..<Swift.max(0, decimals) { scale *= 10 }
        let scaled = (abs(v) * scale).rounded()
        guard scaled < 9e15 else { return plain(v) }
        let units = Int64(scaled)
        let whole = units / Int64(scale)
        var out = (v < 0 && units != 0 ? "-" : "") + String(whole)
        if decimals > 0 {
            let frac = String(units % Int64(scale))
            out += "." + String(repeating: "0", count: decimals - frac.count) + frac
        }
        return out
    }

    /// An integer without a decimal point, else the shortest decimal.
    static func plain(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }

    // MARK: The measure dictionary

    /// The measure dictionary (Table 266, with number formats of Table 267): /X converts
    /// points along x (and y) to world units; /D (distance) and /A (area) take /X's units
    /// (/C 1), with `precision` decimals (/D 10^precision, /F /D).
    func dictionary() -> PDFDictionary {
        var d = 1
        for _ in 0..<precision { d *= 10 }
        func format(_ unit: String, _ factor: Double) -> PDFObject {
            .array([
                .dictionary(
                    PDFDictionary([
                        ("Type", .name("NumberFormat")), ("U", .string(PDFString(text: unit))), ("C", .real(factor)),
                        ("F", .name("D")), ("D", .integer(Int64(d))), ("RD", .string(PDFString(text: "."))),
                    ])
                )
            ])
        }
        return PDFDictionary([
            ("Type", .name("Measure")), ("Subtype", .name("RL")), ("R", .string(PDFString(text: ratio))),
            ("X", format(toUnit, factor)), ("D", format(toUnit, 1)), ("A", format("sq " + toUnit, 1)),
        ])
    }

    /// The scale a measure dictionary gives: its ratio when /R reads "A u = B v" in units
    /// Quire knows, else 1 pt = /X's factor in /X's unit; nil when neither works (another
    /// subtype, such as a geospatial /GEO, or unknown units). Precision from /X's /D.
    init?(_ measure: PDFDictionary, document: Document) throws {
        guard try measure["Subtype"].map(document.resolve)?.name?.value ?? "RL" == "RL" else { return nil }
        let x = try measure["X"].map(document.resolve)?.array?.first.map(document.resolve)?.dictionary
        var precision = 2
        if let x, let d = try x["D"].map(document.resolve)?.number.flatMap(MeasurementScale.decimals(denominator:)) {
            precision = d
        }
        if case .string(let r)? = try measure["R"].map(document.resolve),
            let s = MeasurementScale(ratio: r.text, precision: precision)
        {
            self = s
            return
        }
        guard let x, case .string(let u)? = try x["U"].map(document.resolve),
            let c = try x["C"].map(document.resolve)?.number
        else { return nil }
        let s = MeasurementScale(fromValue: 1, fromUnit: "pt", toValue: c, toUnit: u.text, precision: precision)
        guard MeasurementScale.problem(s) == nil else { return nil }
        self = s
    }
}

extension Annotation {
    /// The intent a measurement of this subtype has (/IT): LineDimension (a distance, on a
    /// Line), PolyLineDimension (a perimeter) and PolygonDimension (an area); nil for other
    /// subtypes, which measure nothing.
    public static func measurementIntent(_ subtype: String) -> String? {
        switch subtype {
        case "Line": return "LineDimension"
        case "PolyLine": return "PolyLineDimension"
        case "Polygon": return "PolygonDimension"
        default: return nil
        }
    }

    /// The measured value in the scale's world units (square units for an area): the
    /// length of /L, the length of the /Vertices path, or the area the /Vertices enclose
    /// (the shoelace formula); nil without a scale or geometry.
    public var measuredValue: Double? {
        guard let scale = measurement, MeasurementScale.problem(scale) == nil else { return nil }
        let f = scale.factor
        func length(_ v: [Double]) -> Double {
            var total = 0.0
            var i = 2
            while i + 1 < v.count {
                let dx = v[i] - v[i - 2]
                let dy = v[i + 1] - v[i - 1]
                total += (dx * dx + dy * dy).squareRoot()
                i += 2
            }
            return total
        }
        switch subtype {
        case "Line":
            guard linePoints.count == 4 else { return nil }
            return length(linePoints) * f
        case "PolyLine":
            guard vertices.count >= 4 else { return nil }
            return length(vertices) * f
        case "Polygon":
            guard vertices.count >= 6 else { return nil }
            let n = vertices.count / 2
            var twice = 0.0
            for k in 0..<n {
                let j = (k + 1) % n
                twice += vertices[2 * k] * vertices[2 * j + 1] - vertices[2 * j] * vertices[2 * k + 1]
            }
            return abs(twice) / 2 * f * f
        default:
            return nil
        }
    }

    /// The measured value as viewers show it in /Contents ("12.50 cm"), nil as
    /// ``measuredValue``.
    public var measuredText: String? {
        guard let v = measuredValue, let scale = measurement else { return nil }
        return scale.text(v, area: subtype == "Polygon")
    }

    /// A measurement's intent and /Contents follow its scale and geometry: set when a
    /// program adds it, or updates one whose scale or geometry changed from `previous`.
    mutating func applyMeasurement(previous: Annotation? = nil) {
        guard measurement != nil, let it = Annotation.measurementIntent(subtype) else { return }
        if let previous, previous.measurement == measurement, previous.linePoints == linePoints,
            previous.vertices == vertices, previous.intent == intent
        {
            return
        }
        intent = it
        if let text = measuredText { contents = text }
    }
}
