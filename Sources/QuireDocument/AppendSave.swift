import QuireSyntax
#if canImport(Glibc)
import Glibc
#endif

extension Document {
    /// Appends the unsaved changes to `path`, the file the document was read from (or last
    /// saved to), in place: the update alone is written, not a copy of the file, so the
    /// cost is the change's (ISO 32000-2 §7.5.6, incremental updates). Then the document
    /// continues from the appended file.
    ///
    /// Refused, with nothing written: a document not read from `path` (`invalidArgument`),
    /// or read from memory, or whose cross-reference was rebuilt by repair (`unsupported`,
    /// as for any incremental save of such a file); a file that changed since it was read
    /// (`stale`: its identity, size, times, or its first or last 4 KB differ); a file
    /// another Quire process is appending to (`busy`). The order of the writes keeps the
    /// file readable whatever happens (``AppendInPlace``): until its last write, a one-page
    /// `startxref ... %%EOF` tail, the old revision is the file's.
    ///
    /// Checkpoints follow the same protocol as an atomic save: the new bytes' identity is
    /// recorded before the file is written, and the journal emptied after it is durable.
    /// With no unsaved changes nothing is written.
    public func saveAppendingInPlace(to path: String, progress: WriteProgress? = nil) throws {
        guard let source = sourcePath, Checkpointer.samePath(source, path) else {
            throw PDFError(.invalidArgument, "an append in place writes to the file the document was read from or last saved to"
                           + (sourcePath.map { " ('\($0)')" } ?? " (it was read from memory)") + ", not '\(path)'")
        }
        guard let origin = file.buffer.origin else {
            throw PDFError(.stale, "'\(path)' is not known to be unchanged since it was read (it changed while it was read, "
                           + "or was written by another save since): save it with an atomic save instead")
        }
        var update = try incrementalUpdate(progress: progress)
        guard !update.isEmpty else { return }
        // The tail: the update's last `startxref` (the writer ends every update with it).
        let keyword = Array("startxref".utf8)
        guard let tailStart = stride(from: update.count - keyword.count, through: Swift.max(0, update.count - 256), by: -1)
            .first(where: { update[$0..<($0 + keyword.count)].elementsEqual(keyword) }) else {
            throw PDFError(.internal, "an incremental update that does not end with startxref")
        }
        let tailLength = update.count - tailStart
        let pad = AppendInPlace.padding(beforeTailAt: origin.size + tailStart, tailLength: tailLength)
        if pad > 0 { update.insert(contentsOf: repeatElement(UInt8(ascii: "\n"), count: pad), at: tailStart) }
        let buffer = try file.buffer.appending(update)
        try notifyWillSave(buffer)
        // The first and last 4 KB are what the unchanged-file check compares.
        let after = try file.buffer.withBytes(loading: [0..<4096, Swift.max(0, origin.size - 4096)..<origin.size]) { expected in
            try update.withUnsafeBytes { u in
                try AppendInPlace.appendInPlace(update: u, tailLength: tailLength, origin: origin,
                                                expected: UnsafeRawBufferPointer(expected))
            }
        }
        lastSavePrefixCopy = nil
        buffer.origin = after
        buffer.sourceFileChanged(to: after)  // the lazy reader's file is the one appended to
        try reload(from: buffer, appended: true)
        try notifyDidSave(buffer)
    }
}
