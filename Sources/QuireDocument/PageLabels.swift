import QuireSyntax

/// A range of page labels (ISO 32000-2 §12.4.2): from `startIndex` up to the next range,
/// pages are labelled `prefix` followed by a number counted from `start` in `style`.
public struct PageLabelRange: Sendable, Equatable {
    /// The numbering style (/S, Table 161).
    public enum Style: String, Sendable, Equatable, CaseIterable {
        /// /D: 1, 2, 3.
        case decimal = "D"
        /// /R: I, II, III.
        case upperRoman = "R"
        /// /r: i, ii, iii.
        case lowerRoman = "r"
        /// /A: A to Z, then AA to ZZ, then AAA...
        case upperLetters = "A"
        /// /a: a to z, then aa to zz, then aaa...
        case lowerLetters = "a"
    }

    /// The index of the first page of the range (the number tree's key).
    public var startIndex: Int
    /// /S; nil when absent or unknown: the labels are the prefix alone.
    public var style: Style?
    /// /P; empty when absent.
    public var prefix: String
    /// /St, the number of the range's first page; 1 when absent.
    public var start: Int

    public init(startIndex: Int, style: Style?, prefix: String = "", start: Int = 1) {
        self.startIndex = startIndex
        self.style = style
        self.prefix = prefix
        self.start = start
    }

    /// The label of the page at `index`, which must be at or past `startIndex`.
    public func label(at index: Int) -> String {
        let (offset, o1) = index.subtractingReportingOverflow(startIndex)
        let (number, o2) = start.addingReportingOverflow(offset)
        guard let style else { return prefix }
        return prefix + PageLabelRange.format(o1 || o2 ? Int.max : number, style)
    }

    /// The roman numerals of numbers past this are written in decimal (a label is at
    /// most about 115 characters).
    public static let maxRoman = 100_000
    /// The letters of numbers past this (100 repeated letters) are written in decimal.
    public static let maxLetters = 2_600
    /// The most bytes ``Document/pageLabels()`` returns over all pages (64 MiB); more
    /// fails with a ``PDFErrorKind/limit`` error naming `max_page_labels_bytes`.
    public static let maxTotalBytes = 64 << 20

    /// `number` in `style`. Numbers that a style cannot write (below 1 for roman numerals
    /// and letters, or past ``maxRoman`` and ``maxLetters``) are written in decimal.
    public static func format(_ number: Int, _ style: Style) -> String {
        switch style {
        case .decimal:
            return String(number)
        case .upperRoman, .lowerRoman:
            guard number >= 1 && number <= maxRoman else { return String(number) }
            let roman = romanNumeral(number)
            return style == .upperRoman ? roman : roman.lowercased()
        case .upperLetters, .lowerLetters:
            guard number >= 1 && number <= maxLetters else { return String(number) }
            let base: UInt8 = style == .upperLetters ? 0x41 : 0x61
            let letter = Character(Unicode.Scalar(base + UInt8((number - 1) % 26)))
            return String(repeating: letter, count: (number - 1) / 26 + 1)
        }
    }

    static func romanNumeral(_ number: Int) -> String {
        let table: [(Int, String)] = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
                                      (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
        var n = number, out = ""
        for (value, numeral) in table {
            while n >= value {
                out += numeral
                n -= value
            }
        }
        return out
    }
}

extension Document {
    /// The ranges of the catalog's /PageLabels number tree (§12.4.2), sorted by their
    /// first page; nil when there is no /PageLabels. Keys that are negative or past the
    /// last page, values that are not dictionaries, and repeated keys (the first is
    /// kept) are left out with a warning; an unknown /S is read as no style. Read once and
    /// kept until the document changes: labelling every page one call at a time (the C
    /// API's quire_page_label) reread and sorted the tree per page.
    public func pageLabelRanges() throws -> [PageLabelRange]? {
        if let cached = pageLabelRangesCache { return cached }
        let ranges = try readPageLabelRanges()
        pageLabelRangesCache = .some(ranges)
        return ranges
    }

    private func readPageLabelRanges() throws -> [PageLabelRange]? {
        guard let root = try catalog()["PageLabels"], try dictionary(root) != nil else { return nil }
        let pageCount = try pageCount()  // labels number every counted page
        var ranges: [PageLabelRange] = []
        var keys: Set<Int> = []
        for (key, value) in try NumberTree(document: self, root: root).entries() {
            guard key >= 0 && key < Swift.max(pageCount, 1) else {
                file.warn("page label range at page index \(key) is outside the document; ignored")
                continue
            }
            guard keys.insert(key).inserted else {
                file.warn("page label range at page index \(key) is defined twice; the first is used")
                continue
            }
            // A stream's dictionary is no page label dictionary (PDFium and qpdf agree).
            guard case .dictionary(let dict) = try resolve(value) else {
                file.warn("page label range at page index \(key) is not a dictionary; ignored")
                continue
            }
            var style: PageLabelRange.Style? = nil
            if let s = try dict["S"].map(resolve) {
                style = s.name.flatMap { PageLabelRange.Style(rawValue: $0.value) }
                if style == nil {
                    file.warn("page label range at page index \(key) has an unknown style /S; its labels are the prefix alone")
                }
            }
            var start = 1
            if let st = try dict["St"].map(resolve)?.integer { start = Int(clamping: st) }
            ranges.append(PageLabelRange(startIndex: key, style: style, prefix: try text(dict["P"]) ?? "", start: start))
        }
        // A number tree is sorted, but a damaged one may not be.
        ranges.sort { $0.startIndex < $1.startIndex }
        return ranges
    }

    /// The label of the page at `index`, such as "iii" or "A-4"; nil when the document
    /// has no /PageLabels. A page before the first range is labelled with its page
    /// number in decimal (index + 1), as PDFium does. Throws a range error when `index`
    /// is not a page index.
    public func pageLabel(at index: Int) throws -> String? {
        let count = try pageCount()
        guard index >= 0 && index < count else {
            throw PDFError(.range, "page index \(index) is out of range (the document has \(count) pages)")
        }
        guard let ranges = try pageLabelRanges() else { return nil }
        // The last range starting at or before `index` (ranges are sorted by start).
        var low = 0, high = ranges.count
        while low < high {
            let mid = (low + high) / 2
            if ranges[mid].startIndex <= index { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return String(index + 1) }
        return ranges[low - 1].label(at: index)
    }

    /// The label of every page, in page order; nil when the document has no /PageLabels.
    /// See ``pageLabel(at:)``. At most ``PageLabelRange/maxTotalBytes`` in all.
    public func pageLabels() throws -> [String]? {
        guard let ranges = try pageLabelRanges() else { return nil }
        let count = try pageCount()
        var labels: [String] = []
        labels.reserveCapacity(count)
        var next = 0, total = 0
        var current: PageLabelRange? = nil
        for index in 0..<count {
            while next < ranges.count && ranges[next].startIndex <= index {
                current = ranges[next]
                next += 1
            }
            let label = current?.label(at: index) ?? String(index + 1)
            total += label.utf8.count
            guard total <= PageLabelRange.maxTotalBytes else {
                throw PDFError(limit: "max_page_labels_bytes", PageLabelRange.maxTotalBytes, "the size of the page labels")
            }
            labels.append(label)
        }
        return labels
    }
}
