import QuireSyntax

// Page operations through the tool manager: each is one undo step, like an annotation's
// change (docs/pages.md, "Undo"). The document's own operations do the work; the manager
// records the objects they change, so that undo puts each back exactly and refuses, as for
// any step, when one of them was changed outside the manager since.

extension ToolManager {
    /// ``Document/insertBlankPages(at:count:mediaBox:rotation:)`` as one undo step.
    @discardableResult
    public func insertBlankPages(at index: Int, count: Int = 1, mediaBox: Rect = .letter, rotation: Int = 0) throws -> PageEditReport {
        try pageStep("Insert \(Self.pages(count))") {
            try document.insertBlankPages(at: index, count: count, mediaBox: mediaBox, rotation: rotation)
        }
    }

    /// ``Document/deletePages(_:)`` as one undo step.
    @discardableResult
    public func deletePages(_ indices: [Int]) throws -> PageEditReport {
        try pageStep("Delete \(Self.pages(indices.count))") { try document.deletePages(indices) }
    }

    /// ``Document/movePages(_:to:)`` as one undo step.
    @discardableResult
    public func movePages(_ indices: [Int], to: Int) throws -> PageEditReport {
        try pageStep("Move \(Self.pages(indices.count))") { try document.movePages(indices, to: to) }
    }

    /// ``Document/rotatePages(_:by:)`` as one undo step.
    @discardableResult
    public func rotatePages(_ indices: [Int], by quarterTurns: Int) throws -> PageEditReport {
        try pageStep("Rotate \(Self.pages(indices.count))") { try document.rotatePages(indices, by: quarterTurns) }
    }

    /// ``Document/importPages(from:pages:at:)`` as one undo step.
    @discardableResult
    public func importPages(from source: Document, pages indices: [Int]? = nil, at index: Int) throws -> PageEditReport {
        let count = try indices?.count ?? source.pages().count
        return try pageStep("Import \(Self.pages(count))") { try document.importPages(from: source, pages: indices, at: index) }
    }

    /// ``Document/setPageBox(_:_:onPages:)`` as one undo step.
    @discardableResult
    public func setPageBox(_ box: PageBox, _ rect: Rect?, onPages indices: [Int]) throws -> PageEditReport {
        try pageStep("Change the \(box.name) box of \(Self.pages(indices.count))") {
            try document.setPageBox(box, rect, onPages: indices)
        }
    }

    private func pageStep(_ description: String, _ body: () throws -> PageEditReport) throws -> PageEditReport {
        try commit()
        let report = try step(description: description, body)
        // Pages moved: what was selected may be elsewhere, or gone.
        select(nil)
        return report
    }

    private static func pages(_ n: Int) -> String { n == 1 ? "1 page" : "\(n) pages" }
}
