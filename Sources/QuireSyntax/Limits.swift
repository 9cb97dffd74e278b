/// Limits that bound the memory and time any input can cost. Every one has a name, a
/// default, and a clear ``PDFError`` of kind ``PDFErrorKind/limit`` when exceeded.
public struct PDFLimits: Sendable, Equatable {
    /// Deepest nesting of arrays and dictionaries inside one object.
    public var maxNestingDepth: Int = 256
    /// Deepest page tree (PDFium's bound; the tree is walked without recursion).
    public var maxPageTreeDepth: Int = 1024
    /// Most pages a page tree may expand to. A node may appear in several branches
    /// (viewers show it once per branch), so a small file could otherwise expand to an
    /// exponential number of pages. PDFium's bound.
    public var maxPages: Int = 1_048_575
    /// Most cross-reference sections followed through `/Prev` and `/XRefStm`.
    public var maxXRefChain: Int = 1024
    /// Highest object number accepted.
    public var maxObjects: Int = 10_000_000
    /// Most bytes one stream may decode to.
    public var maxStreamBytes: Int = 256 << 20
    /// Most bytes all streams of a document together may decode to.
    public var maxTotalDecodedBytes: Int = 2 << 30
    /// Largest ratio of decoded to encoded size of one stream (applies past 1 MiB decoded,
    /// so that small, highly compressible streams stay readable).
    public var maxDecompressionRatio: Int = 1000

    public init() {}

    /// The nesting limit is capped here whatever its setting. The parser keeps its own
    /// stack, but the code that walks a parsed object's nesting (comparing, remapping and
    /// serializing it for a save, converting it for the C interface, releasing it) recurses
    /// on the caller's stack, which may be small (a thread of a Python or server host). At
    /// 4096, a full save of an object nested that deep overflowed an 8 MiB stack under
    /// AddressSanitizer (2.5 KiB per level); 1024 keeps the worst case near 2.5 MiB there
    /// and far less in a release build. qpdf stops at 500.
    public static let recursionCap = 1024
    var effectiveNestingDepth: Int { Swift.min(maxNestingDepth, PDFLimits.recursionCap) }

    /// The defaults.
    public static let `default` = PDFLimits()
}

extension Int {
    /// One more, or `Int.max` when this is `Int.max`: for "one past the highest number"
    /// computed from numbers a file or a host setting can push to the top of the range.
    public var saturatingSuccessor: Int { self == .max ? .max : self + 1 }
}
