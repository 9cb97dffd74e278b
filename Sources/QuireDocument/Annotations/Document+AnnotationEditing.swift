import QuireSyntax

// The document's changing operations, each one batch: the changes an operation makes
// reach the checkpoint journal as one group, so that recovery never applies half of one
// (an annotation without its place in the page's /Annots, say).

extension Document {
    /// Adds `annotation` to its page: a new object with a unique name, dates and a
    /// generated appearance. Returns it as stored (with its id). Every field must keep the
    /// model's rules (``Annotation/validate(changedFrom:)``), else `PDFError(.invalidArgument)`
    /// names the field.
    @discardableResult
    public func addAnnotation(_ annotation: Annotation) throws -> Annotation {
        try batch { try addAnnotationUnbatched(annotation) }
    }

    /// Writes the changed copy `annotation` back to its object, with a new modification
    /// date and appearance. The fields that changed must keep the model's rules
    /// (``Annotation/validate(changedFrom:)``), else `PDFError(.invalidArgument)` names the
    /// field; values the annotation already had are written back as they were.
    public func updateAnnotation(_ annotation: Annotation) throws {
        try batch { try updateAnnotationUnbatched(annotation) }
    }

    /// Deletes annotation `id` and its popup: they leave the page's /Annots and are freed.
    public func deleteAnnotation(_ id: ObjectID) throws {
        try batch { try deleteAnnotationUnbatched(id) }
    }

    /// Moves annotation `id` in its page's drawing order (/Annots: later is drawn on top)
    /// by `order`. Returns whether anything moved (an annotation already on top does not
    /// move forward). Popups, which are not drawn, are stepped over.
    @discardableResult
    public func moveAnnotation(_ id: ObjectID, _ order: AnnotationOrder) throws -> Bool {
        try batch { try moveAnnotationUnbatched(id, order) }
    }

    /// Adds a text reply by `author` to annotation `target`.
    @discardableResult
    public func addReply(to target: ObjectID, author: String?, contents: String) throws -> Annotation {
        try batch { try addReplyUnbatched(to: target, author: author, contents: contents) }
    }

    /// Adds a state reply to annotation `target` in `model`.
    @discardableResult
    public func addStateReply(to target: ObjectID, author: String?, model: StateModel, state: String) throws -> Annotation {
        try batch { try addStateReplyUnbatched(to: target, author: author, model: model, state: state) }
    }

    /// Sets or clears the /IRT of annotation `id`.
    public func setInReplyTo(_ id: ObjectID, _ target: ObjectID?) throws {
        try batch { try setInReplyToUnbatched(id, target) }
    }

    /// Imports parsed records (see ``importAnnotationsJSON(_:options:progress:)``): all or nothing.
    public func importAnnotations(_ json: InstantJSONDocument, options: AnnotationImportOptions = AnnotationImportOptions(),
                                  progress: ProgressHandler? = nil) throws -> [Annotation] {
        try allOrNothing { try importAnnotationsUnbatched(json, options: options, progress: progress) }
    }
}
