import QuireSyntax

// What the tool manager's undo needs of the object layer: the state of an object (its
// value, or absent), a record of the objects an operation touched with their values
// before it, a comparison that survives a save, and the restoration of a deleted object
// under its own number (so that an undone deletion brings back the same object, and
// nothing that names it has to be renumbered).

/// An indirect object's state: absent (free, missing or deleted), or present with a value
/// and the generation it is written with.
public enum ObjectState: Sendable, Equatable {
    case absent
    case present(PDFObject, generation: Int)

    /// The value, when present.
    public var value: PDFObject? {
        if case .present(let v, _) = self { return v }
        return nil
    }
}

/// The objects an operation changed, each with its state before its first change, in the
/// order they were first changed.
final class ObjectChangeRecord {
    private(set) var before: [Int: ObjectState] = [:]
    private(set) var order: [Int] = []

    func note(_ number: Int, _ state: ObjectState) {
        guard before[number] == nil else { return }
        before[number] = state
        order.append(number)
    }
}

extension Document {
    /// The state of object `number` now.
    public func objectState(_ number: Int) throws -> ObjectState {
        guard isInUse(number) else { return .absent }
        return .present(try object(number), generation: currentGeneration(number))
    }

    /// The generation object `number` is written with.
    func currentGeneration(_ number: Int) -> Int {
        if let g = changes.generations[number] { return g }
        if case .inFile(_, let g)? = file.entry(number) { return g }
        return 0
    }

    /// Runs `body` as one batch (``batch(_:)``), noting every object it changes with its
    /// state before the first change. The batch begins at the first change: a call that
    /// changes nothing (most pointer events) does not wake the checkpoint journal and the
    /// change follower, which a batch does when it ends. Records do not nest: an inner call
    /// runs `body` as an ordinary batch (the outer record sees its changes).
    func recordingObjectChanges<T>(_ record: ObjectChangeRecord, _ body: () throws -> T) throws -> T {
        guard changes.willChange == nil else { return try batch(body) }
        let set = changes
        var began = false
        set.willChange = { [unowned self, unowned record] number in
            if !began {
                // What batch() does on entry, at the first change: nothing was logged since
                // `body` started, so the batch covers every change it makes.
                began = true
                if batchDepth == 0 { set.beginBatch() }
                batchDepth += 1
            }
            // Called before the change: the value read now is the one before it.
            record.note(number, (try? self.objectState(number)) ?? .absent)
        }
        func end() {
            set.willChange = nil
            guard began else { return }
            batchDepth -= 1
            if batchDepth == 0 { set.endBatch() }
        }
        let result: T
        do {
            result = try body()
        } catch {
            end()
            if began { try? journalChanges() }
            throw error
        }
        end()
        if began { try journalChanges() }
        return result
    }

    /// Whether two states of one object are the same object: equal values, where a stream
    /// that a save wrote and the document read back counts as the stream it wrote (its
    /// /Length added, its data now in the file).
    func sameState(_ a: ObjectState, _ b: ObjectState) -> Bool {
        switch (a, b) {
        case (.absent, .absent): return true
        case (.present(let x, let gx), .present(let y, let gy)):
            guard gx == gy else { return false }
            if x == y { return true }
            guard case .stream(let s) = x, case .stream(let t) = y else { return false }
            var ds = s.dictionary, dt = t.dictionary
            ds["Length"] = nil
            dt["Length"] = nil
            guard ds == dt else { return false }
            guard let a = try? streamData(s, decoded: false), let b = try? streamData(t, decoded: false) else { return false }
            return a == b
        default: return false
        }
    }

    /// Brings back object `number`, which is not in use (deleted, or freed), with `value`
    /// and `generation`: undo gives an undone deletion back its own object, so that the
    /// references to it (in /Annots, /IRT, /Popup, /Parent) hold again and nothing is
    /// renumbered. Throws `.range` for a number in use or never allocated (0, or past the
    /// highest object number of the document and its changes), and `.invalidArgument` for
    /// a null value.
    func restoreObject(_ number: Int, _ value: PDFObject, generation: Int) throws {
        guard number > 0, number < changes.nextNumber else {
            throw PDFError(.range, "object \(number) was never part of the document: it cannot be restored")
        }
        guard !isInUse(number) else { throw PDFError(.range, "object \(number) is in use: it cannot be restored") }
        guard value != .null else { throw PDFError(.invalidArgument, "object \(number) cannot be restored as null") }
        guard (0...65_535).contains(generation) else {
            throw PDFError(.range, "the generation \(generation) of object \(number) is not in 0...65535")
        }
        changes.set(ObjectID(number, generation), value)
        invalidateModel(after: number, value)
        try journalChanges()
    }

    /// Sets object `number` to `state`: replaced, restored under its number, or deleted.
    func setObjectState(_ number: Int, _ state: ObjectState) throws {
        switch state {
        case .absent:
            if isInUse(number) { try deleteObject(number) }
        case .present(let value, let generation):
            if isInUse(number) {
                if currentGeneration(number) == generation {
                    try setObject(number, value)
                } else {
                    try deleteObject(number)
                    try restoreObject(number, value, generation: generation)
                }
            } else {
                try restoreObject(number, value, generation: generation)
            }
        }
    }

    // MARK: Pages' /Annots

    /// The entries of a page dictionary's /Annots (inline, or the array it refers to, read
    /// through `lookup`).
    func annotsEntries(of page: PDFDictionary, lookup: (Int) throws -> PDFObject?) rethrows -> [PDFObject] {
        switch page["Annots"] {
        case .array(let a)?: return a
        case .reference(let r)?: return try lookup(r.number)?.array ?? []
        default: return []
        }
    }

    /// Sets the /Annots entry of page object `pageNumber` to `entry` exactly (nil removes
    /// it), or, when it refers to an array object in use, that array to `entry`'s array.
    func restoreAnnotsEntry(page pageNumber: Int, _ entry: PDFObject?, arrayValue: [PDFObject]?) throws {
        guard case .dictionary(let dict) = try object(pageNumber) else {
            throw PDFError(.format, "page object \(pageNumber) is not a dictionary")
        }
        if case .reference(let r)? = dict["Annots"], entry == dict["Annots"], isInUse(r.number), let arrayValue {
            try setObject(r.number, .array(arrayValue))
        } else if dict["Annots"] != entry {
            try setValue(entry, forKey: "Annots", inObject: pageNumber)
        }
    }
}
