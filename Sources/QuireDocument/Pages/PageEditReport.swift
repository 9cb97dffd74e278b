import QuireSyntax

/// What a page operation did beyond the pages themselves: the fields it renamed, the
/// pages it made, and what it left out or changed that the caller may want to know.
public struct PageEditReport: Sendable, Equatable {
    /// A field renamed because its name was taken (docs/pages.md, "Forms"): its partial
    /// name (/T) at the top of the field tree, before and after. Every field below it
    /// follows (its fully qualified name begins with the new name).
    public struct FieldRename: Sendable, Equatable {
        public var from: String
        public var to: String
        public init(from: String, to: String) {
            self.from = from
            self.to = to
        }
    }

    /// The indexes the new pages have (inserted or imported), in order; empty for other
    /// operations.
    public var newPages: Range<Int> = 0..<0
    /// Fields renamed because their names were taken, in the order met.
    public var renamedFields: [FieldRename] = []
    /// What the operation dropped or changed besides the pages (a structure tree dropped, a
    /// named destination not added, a signature that no longer covers its document), in
    /// order. Each is also added to the document's warnings.
    public var warnings: [String] = []

    public init() {}
}
