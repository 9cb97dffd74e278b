import QuireSyntax

extension Document {
    /// The record id of `annotation`, an annotation of this document as read from it: the
    /// `id` of its record in the annotation JSON and on the sync server (what the sync
    /// client's events name), by the one rule of ``annotationRecordIDs(pages:eachPage:)``.
    /// Ids are made unique in page order, so this reads the annotations of every page up to
    /// the annotation's. nil when its page does not list it (an annotation not added yet,
    /// or one deleted since; a direct dictionary of /Annots is found by its value).
    public func recordID(of annotation: Annotation) throws -> String? {
        let page = annotation.pageIndex
        guard page >= 0, page < (try pages().count) else { return nil }
        for (a, id) in try annotationRecordIDs(pages: Array(0...page)) where a.pageIndex == page {
            if let object = annotation.id {
                if a.id == object { return id }
            } else if a.id == nil && a == annotation {
                return id
            }
        }
        return nil
    }

    /// The annotation whose record id (``recordID(of:)``) is `id`, read from its page; nil
    /// when no annotation has it. Reads the annotations of every page: a caller that looks
    /// up many ids reads the annotation JSON once instead.
    public func annotation(recordID id: String) throws -> Annotation? {
        try annotationRecordIDs(pages: Array(try pages().indices)).first { $0.id == id }?.annotation
    }
}
