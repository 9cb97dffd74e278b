import QuireSyntax

extension BookmarkManager {
    /// The key that marks outline items made by ``exportToOutline(order:)``: its value is
    /// the bookmark's identifier.
    public static let outlineMarkerKey: PDFName = "QUIR_Bookmark"
}

extension Document {
    /// Writes the bookmarks into the outline (the table of contents, §12.3.3), so that
    /// other viewers show them: one top-level item per bookmark, in `order` (by default the
    /// manager's ``BookmarkManager/sortOrder``), after the document's own items.
    ///
    /// Items a previous export made (marked with ``BookmarkManager/outlineMarkerKey``) are
    /// replaced, so exporting again does not duplicate them; the document's own items are
    /// left as they are. The changes are unsaved changes, like any other. Returns the
    /// number of items written. Throws a format error, and changes nothing, when the
    /// top level of the outline is damaged (a cycle, an item that is not an indirect
    /// dictionary).
    @discardableResult
    public func exportBookmarksToOutline(order: BookmarkSortOrder? = nil) throws -> Int {
        try batch { try exportBookmarksToOutlineUnbatched(order: order) }
    }

    private func exportBookmarksToOutlineUnbatched(order: BookmarkSortOrder?) throws -> Int {
        let list = try bookmarks.bookmarks(sortedBy: order ?? bookmarks.sortOrder)
        guard let rootID = trailer["Root"]?.reference else {
            throw PDFError(.unsupported, "the catalog is not an indirect object, so no outline can be added to it")
        }

        // The outline root, if there is one, and its top-level items.
        var outlinesID: ObjectID? = nil
        var outlines = PDFDictionary([("Type", .name("Outlines"))])
        var top: [(ObjectID, PDFDictionary)] = []
        if let value = try catalog()["Outlines"] {
            guard let id = value.reference, let dict = try dictionary(value) else {
                throw PDFError(.format, "the catalog's /Outlines is not an indirect dictionary; the outline is not changed")
            }
            outlinesID = id
            outlines = dict
            var seen: Set<Int> = [id.number]
            var next = dict["First"]
            while let value = next, !value.isNull {
                guard let itemID = value.reference, let item = try dictionary(value) else {
                    throw PDFError(.format, "an outline item at the top level is not an indirect dictionary; the outline is not changed")
                }
                guard seen.insert(itemID.number).inserted else {
                    throw PDFError(.format, "the top level of the outline has a cycle at \(itemID); the outline is not changed")
                }
                guard top.count < OutlineItem.maxItems else {
                    throw PDFError(limit: "max_outline_items", OutlineItem.maxItems, "the number of outline items")
                }
                top.append((itemID, item))
                next = item["Next"]
            }
        }

        let kept = top.filter { $0.1[BookmarkManager.outlineMarkerKey] == nil }
        let removed = top.count - kept.count
        let parent = try outlinesID ?? addObject(.dictionary(outlines))

        // New items, one per bookmark.
        var items: [(ObjectID, PDFDictionary)] = kept
        for b in list {
            var item = PDFDictionary()
            item["Title"] = .string(PDFString(text: b.outlineTitle))
            item["Parent"] = .reference(parent)
            let action = try BuiltInBookmarkProvider.actionDictionary(b.action, self)
            if case .goTo = b.action { item["Dest"] = action["D"] } else { item["A"] = .dictionary(action) }
            item[BookmarkManager.outlineMarkerKey] = .string(PDFString(text: b.identifier))
            items.append((try addObject(.dictionary(item)), item))
        }

        // Link them: /Prev and /Next, then the root's /First, /Last and /Count.
        for (k, (id, item)) in items.enumerated() {
            var linked = item
            linked["Prev"] = k > 0 ? .reference(items[k - 1].0) : nil
            linked["Next"] = k + 1 < items.count ? .reference(items[k + 1].0) : nil
            if linked != item || k >= kept.count { try setObject(id.number, .dictionary(linked)) }
        }
        for (id, item) in top where item[BookmarkManager.outlineMarkerKey] != nil {
            try deleteObject(id.number)
        }
        let oldCount = Int(clamping: try outlines["Count"].map(resolve)?.integer ?? Int64(top.count))
        var root = outlines
        root["First"] = items.first.map { .reference($0.0) }
        root["Last"] = items.last.map { .reference($0.0) }
        // /Count as the file gives it is any integer: bounded by the outline's item limit.
        let visible = Swift.max(0, Swift.min(oldCount, OutlineItem.maxItems)) - removed + list.count
        root["Count"] = items.isEmpty ? nil : .integer(Int64(Swift.max(visible, items.count)))
        try setObject(parent.number, .dictionary(root))
        if outlinesID == nil {
            try setValue(.reference(parent), forKey: "Outlines", inObject: rootID.number)
        }
        return list.count
    }
}

extension Bookmark {
    /// The title of the outline item an export makes: the name, else what the action does.
    var outlineTitle: String {
        if let name, !name.isEmpty { return name }
        switch action {
        case .goTo(let index): return "Page \(index + 1)"
        case .uri(let uri): return uri
        case .named(let name): return name
        case .other(let dict): return dict["S"]?.name?.value ?? "Bookmark"
        }
    }
}
