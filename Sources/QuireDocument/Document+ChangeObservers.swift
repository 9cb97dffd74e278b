import QuireSyntax

// Readers of the change log (after GRDB's `TransactionObserver`): the checkpointer and the
// sync client subscribe the same way, instead of one being wired into the save paths and
// the other into a single closure slot (issue 32).

/// A reader of a document's change log. The document calls it on the thread that made the
/// change, before the operation returns; a throw fails the operation, whose changes stay
/// made (the caller learns that the observer did not take them).
public protocol ChangeObserver: AnyObject {
    /// After each operation (at the end of the outermost ``Document/batch(_:)``, or after
    /// a change outside batches), with the whole change log since the last save: what is
    /// new is the part past what this observer has seen.
    func changesMade(_ log: [Change], in document: Document) throws
    /// Before a save's bytes replace the document's (before the file is renamed into
    /// place, for a save to a file): throwing cancels the save before anything is written.
    func willSave(_ saved: ByteBuffer, of document: Document) throws
    /// After a save: the document continues from `saved`, and the change log is empty.
    func didSave(_ saved: ByteBuffer, of document: Document) throws
}

extension ChangeObserver {
    public func willSave(_ saved: ByteBuffer, of document: Document) throws {}
    public func didSave(_ saved: ByteBuffer, of document: Document) throws {}
}

/// An observer, held weakly: the document never keeps its observers alive (the sync
/// descriptor holds the document, and the document must not hold it).
struct WeakChangeObserver {
    weak var observer: (any ChangeObserver)?
}

extension Document {
    /// Adds `observer`, called after those added before it. The document holds it weakly:
    /// keep it alive as long as it should observe. Adding one twice adds it once.
    public func addChangeObserver(_ observer: any ChangeObserver) {
        changeObservers.removeAll { $0.observer == nil }
        guard !changeObservers.contains(where: { $0.observer === observer }) else { return }
        changeObservers.append(WeakChangeObserver(observer: observer))
    }

    /// Removes `observer`; it is not called again.
    public func removeChangeObserver(_ observer: any ChangeObserver) {
        changeObservers.removeAll { $0.observer == nil || $0.observer === observer }
    }

    /// The observers alive now, in the order they were added.
    var liveChangeObservers: [any ChangeObserver] { changeObservers.compactMap(\.observer) }

    func notifyWillSave(_ saved: ByteBuffer) throws {
        for o in liveChangeObservers { try o.willSave(saved, of: self) }
    }

    func notifyDidSave(_ saved: ByteBuffer, except skipped: (any ChangeObserver)? = nil) throws {
        for o in liveChangeObservers where o !== skipped { try o.didSave(saved, of: self) }
    }
}
