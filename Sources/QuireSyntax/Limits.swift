/// Limits that bound the memory and time any input can cost. Every one has a name, a
/// default, and a clear ``PDFError`` of kind ``PDFErrorKind/limit`` when exceeded.
public struct PDFLimits: Sendable, Equatable {
    /// Deepest nesting of arrays and dictionaries inside one object.
    public var maxNestingDepth: Int = 256
    /// Deepest page tree.
    public var maxPageTreeDepth: Int = 64
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

    /// The defaults.
    public static let `default` = PDFLimits()
}
