import QuireSyntax

// An annotation object that two pages list (a damaged or carelessly merged file) is two
// records (`9` and `9#1`, ``Document/annotationRecordIDs(pages:eachPage:)``) but one object:
// the document cannot show the two records with different values. A synced layer may hold
// exactly that (two users edited the two records), so the page whose record changes gets
// its own copy first.

extension Document {
    /// Gives page `pageIndex` its own copy of annotation object `number` when another page
    /// lists the object too, so that the two listings can differ. The copy is a new object
    /// with the same entries, its /P the page, and its record id (what the annotation JSON
    /// called this page's listing: `9#1`) pinned as /QuireID, so every record keeps its id;
    /// the page's /Annots lists the copy instead, and the page's replies and popups that
    /// pointed at the object (/IRT, /Parent) point at the copy. The object keeps the record
    /// id its remaining listing had, pinned too when one page alone lists it. Returns the copy's id, or nil (nothing
    /// changed) when no other page lists the object or this page does not.
    @discardableResult
    public func separateSharedAnnotation(_ number: Int, onPage pageIndex: Int) throws -> ObjectID? {
        let listings = try annotationRecordIDs(pages: Array(try pages().indices)).filter {
            $0.annotation.id?.number == number
        }
        guard let mine = listings.first(where: { $0.annotation.pageIndex == pageIndex }),
            listings.contains(where: { $0.annotation.pageIndex != pageIndex }),
            let original = mine.annotation.id,
            let entries = try dictionary(.reference(original))
        else { return nil }
        let page = try self.page(at: pageIndex)
        guard let pageID = page.id else {
            throw PDFError(.unsupported, "page \(pageIndex + 1) is a direct object; its annotations cannot be changed")
        }
        let others = listings.filter { $0.annotation.pageIndex != pageIndex }
        return try allOrNothing {
            var copy = entries
            copy["P"] = .reference(pageID)
            copy[Annotation.recordIDKey] = .string(PDFString(text: mine.id))
            let id = try addObject(.dictionary(copy))
            let annots = try page.dictionary["Annots"].map(resolve)?.array ?? []
            try setAnnots(page, annots.map { $0.reference?.number == number ? .reference(id) : $0 })
            // The page's replies and popups that point at the object point at the copy.
            for entry in annots {
                guard let other = entry.reference, other.number != number, let d = try dictionary(entry) else {
                    continue
                }
                for key: PDFName in ["IRT", "Parent"] where d[key]?.reference?.number == number {
                    try setValue(.reference(id), forKey: key, inObject: other.number)
                }
            }
            // The object, listed by one page now, keeps the id it had there (`9#1`), which
            // its place among the listings gave it.
            if others.count == 1, let other = others.first, entries[Annotation.recordIDKey] == nil {
                try setValue(.string(PDFString(text: other.id)), forKey: Annotation.recordIDKey, inObject: number)
            }
            return id
        }
    }
}
