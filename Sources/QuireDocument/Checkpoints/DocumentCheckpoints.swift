import QuireSyntax

extension Document {
    /// Starts keeping checkpoints of this document's unsaved changes (see
    /// ``Checkpointer``). An existing checkpoint is applied first, as unsaved changes, kept
    /// or discarded, as `options.existing` says. Returns whether one was applied.
    ///
    /// Throws: a busy error when another open document holds the same UID; a stale error
    /// when the checkpoint was taken against another version of the file (nothing is
    /// applied, and checkpointing does not start: start again with `.discard` to drop
    /// it); an exists error for ``ExistingCheckpoint/refuse`` and a checkpoint with
    /// unsaved changes; a format error for a damaged checkpoint; an invalid-argument error for a document opened from memory without a UID; a
    /// state error when checkpointing has already started.
    @discardableResult
    public func startCheckpointing(_ options: CheckpointOptions) throws -> Bool {
        guard checkpointer == nil else { throw PDFError(.state, "checkpointing has already started for this document") }
        let started = try Checkpointer(document: self, options: options)
        checkpointer = started
        return started.loadedCheckpoint
    }

    /// Stops checkpointing; the checkpoint file is kept (for a later open to recover)
    /// unless `removingCheckpoint`.
    public func stopCheckpointing(removingCheckpoint: Bool = false) {
        if removingCheckpoint { checkpointer?.remove() }
        checkpointer = nil
    }

    /// Writes a checkpoint of every unsaved change now, and waits until it is on disk.
    /// Throws a state error when checkpointing has not started.
    public func checkpoint() throws {
        guard let checkpointer else { throw PDFError(.state, "checkpointing has not started for this document") }
        try checkpointer.checkpoint()
    }

    /// Writes a checkpoint on a background thread and calls `completion` there.
    public func checkpoint(completion: @escaping @Sendable (PDFError?) -> Void) throws {
        guard let checkpointer else { throw PDFError(.state, "checkpointing has not started for this document") }
        checkpointer.checkpoint(completion: completion)
    }

    /// What the checkpoint that ``startCheckpointing(_:)`` with `options` would find holds,
    /// without applying, locking or changing anything (only the directory and UID of
    /// `options` count).
    public func inspectCheckpoint(_ options: CheckpointOptions) throws -> CheckpointInfo {
        try Checkpointer.inspect(self, options: options)
    }

    /// The checkpoint file, while checkpointing.
    public var checkpointPath: String? { checkpointer?.path }
}
