/// How a writer gets what it writes, supplied by the layer that knows about unsaved changes
/// and encryption (the document).
public struct WriterSource {
    /// The current value of indirect object `number` (with unsaved changes applied).
    public var object: (Int) throws -> PDFObject
    /// The bytes to write for a stream that will be written as object `target`: its
    /// encoded data, encrypted for `target` if the output is encrypted.
    public var streamData: (PDFStream, ObjectID) throws -> [UInt8]
    /// `object` with its strings prepared for object `target` (encrypted if the output is
    /// encrypted); identity otherwise.
    public var prepareStrings: (PDFObject, ObjectID) throws -> PDFObject

    public init(object: @escaping (Int) throws -> PDFObject,
                streamData: @escaping (PDFStream, ObjectID) throws -> [UInt8],
                prepareStrings: @escaping (PDFObject, ObjectID) throws -> PDFObject) {
        self.object = object
        self.streamData = streamData
        self.prepareStrings = prepareStrings
    }
}

/// The progress of a long operation (a save, an import or export of annotations, a
/// flatten, a search or the text of a document): called on the operation's thread with
/// the steps done so far and their total, `done` never decreasing and the last call with
/// `done == total`. What a step is belongs to the operation (an object written, a page
/// read, a record imported), so `done / total` is a fraction of the work, not of the time.
/// Throwing cancels the operation, which rethrows the error: one that changes the
/// document undoes its changes first, and a save writes nothing.
public typealias ProgressHandler = (_ done: Int, _ total: Int) throws -> Void

/// Called while a file is written with the objects written so far and their total (the
/// last call has `done == total`); throwing stops the writing, and the error is the
/// writer's (nothing is written anywhere by the writer itself: it returns bytes).
public typealias WriteProgress = ProgressHandler

/// Writes PDF files: incremental updates appended to an existing file (ISO 32000-2
/// §7.5.6), and full rewrites.
public enum Writer {
    /// How often `progress` is called: every this many objects, and once at the end.
    static let progressStep = 64

    /// The objects of an incremental update.
    public struct Update {
        /// Changed and new objects, with the generation to write them with.
        public var objects: [(ObjectID, PDFObject)] = []
        /// Deleted objects: written as free entries with the next generation.
        public var freed: [ObjectID] = []
        /// Trailer entries to set (/Root, /Info); /Size, /Prev and the rest are computed.
        public var trailer = PDFDictionary()

        public init() {}
    }

    /// The bytes to append to `file`'s bytes for `update`: the objects, then a
    /// cross-reference section of the same form as the file's newest (a table after a
    /// table, a stream after a stream), with /Prev pointing at it. Earlier bytes are never
    /// touched, so signatures and earlier revisions survive.
    public static func incrementalUpdate(of file: PDFFile, _ update: Update, source: WriterSource,
                                         progress: WriteProgress? = nil) throws -> [UInt8] {
        guard let previous = file.startXRef else {
            throw PDFError(.unsupported, "the file has no usable cross-reference to append an update to; save it in full instead")
        }
        let base = file.buffer.count
        var out: [UInt8] = []
        if let last = file.buffer.slice((base - 1)..<base).first, last != 0x0A && last != 0x0D { out.append(0x0A) }
        var entries: [Int: XRefEntry] = [:]
        let total = update.objects.count
        for (k, (id, value)) in update.objects.sorted(by: { $0.0 < $1.0 }).enumerated() {
            if k % progressStep == 0 { try progress?(k, total) }
            entries[id.number] = .inFile(offset: base + out.count, generation: id.generation)
            try writeIndirect(id, value, source: source, to: &out)
        }
        try progress?(total, total)
        for id in update.freed where entries[id.number] == nil {
            entries[id.number] = .free
        }
        let freedGenerations = Dictionary(update.freed.map { ($0.number, Swift.max(0, Swift.min($0.generation, 65534)) + 1) },
                                          uniquingKeysWith: { a, _ in a })
        // /Size as the file gives it may be anything up to Int64.max: bounded by the objects
        // limit, past which no object number is read anyway.
        let declaredSize = Swift.min(Int(clamping: file.trailer["Size"]?.integer ?? 0), file.limits.maxObjects)
        var size = Swift.max(declaredSize, (entries.keys.max() ?? 0).saturatingSuccessor)
        guard size < Int.max else { throw PDFError(limit: "max_objects", file.limits.maxObjects, "the object numbers of the update") }
        var trailer = PDFDictionary()
        for key: PDFName in ["Root", "Info", "ID", "Encrypt"] {
            if let v = file.trailer[key] { trailer[key] = v }
        }
        for (k, v) in update.trailer { trailer[k] = v }
        trailer["Prev"] = .integer(Int64(previous))
        let xrefOffset = base + out.count
        switch file.xrefForm {
        case .stream:
            let number = size
            size += 1
            entries[number] = .inFile(offset: xrefOffset, generation: 0)
            trailer["Size"] = .integer(Int64(size))
            try writeXRefStream(number: number, entries: entries, freedGenerations: freedGenerations,
                                trailer: trailer, to: &out)
        case .table, .hybrid, .rebuilt:
            trailer["Size"] = .integer(Int64(size))
            writeXRefTable(entries: entries, freedGenerations: freedGenerations, trailer: trailer, to: &out)
        }
        out += Array("startxref\n\(xrefOffset)\n%%EOF\n".utf8)
        return out
    }

    /// Options of a full rewrite.
    public struct RewriteOptions: Sendable {
        /// Pack objects into object streams, with a cross-reference stream (PDF 1.5).
        public var objectStreams = false
        /// Objects per object stream.
        public var objectsPerStream = 100
        /// The version to write in the header.
        public var version = (major: 1, minor: 7)

        public init() {}
    }

    /// A complete new file: objects reachable from `trailer` renumbered from 1 in the order
    /// they are reached, unreachable ones dropped, and a fresh cross-reference.
    /// `exempt` names an object written as it is, strings untouched (the /Encrypt dictionary).
    public static func rewrite(trailer original: PDFDictionary, source: WriterSource, exempt: Int? = nil,
                               options: RewriteOptions = RewriteOptions(), progress: WriteProgress? = nil) throws -> [UInt8] {
        // Number the reachable objects breadth-first from the trailer.
        var renumber = Renumbering()
        var order: [Int] = []
        var queue: [Int] = []
        // The value of order[k] is values[k]: the queue is read in the order it was filled,
        // so no dictionary keyed by object number is needed (hashing Int keys, here and in
        // `renumber`, was 4% of the instructions of a full save).
        var values: [PDFObject] = []
        func collect(_ value: PDFObject) {
            switch value {
            case .reference(let id):
                if renumber[id.number] == nil {
                    renumber.set(id.number, order.count + 1)
                    order.append(id.number)
                    queue.append(id.number)
                }
            case .array(let items):
                for item in items where item.mayHoldReferences { collect(item) }
            case .dictionary(let d):
                for e in d.entries where e.value.mayHoldReferences { collect(e.value) }
            case .stream(let s):
                for e in s.dictionary.entries where e.value.mayHoldReferences { collect(e.value) }
            default: break
            }
        }
        var trailer = PDFDictionary()
        for key: PDFName in ["Root", "Info", "Encrypt", "ID"] {
            if let v = original[key] { trailer[key] = v }
        }
        collect(.dictionary(trailer))
        var head = 0
        while head < queue.count {
            let number = queue[head]
            head += 1
            let value = try source.object(number)
            values.append(value)
            collect(value)
        }
        // Objects are written with their references renumbered as they go (see
        // ``Serializer/ReferenceMap``); `remap` renumbers a copy, for the trailer.
        // (A constant: a closure that captures the variable reads it through a box, with an
        // exclusivity check per reference.)
        let numbering = renumber
        let mapping: Serializer.ReferenceMap = { id in numbering[id.number].map { ObjectID($0, 0) } }
        func remap(_ value: PDFObject) -> PDFObject {
            switch value {
            case .reference(let id):
                // A reference to a missing object stays a reference, to a free entry: it
                // still reads as null, and other tools see what the original said.
                guard let n = numbering[id.number] else { return .null }
                return .reference(ObjectID(n, 0))
            case .array(let items): return .array(items.map(remap))
            case .dictionary(let d): return .dictionary(remapped(d))
            case .stream(var s):
                s.dictionary = remapped(s.dictionary)
                return .stream(s)
            default: return value
            }
        }
        /// The entries of `d` remapped, in order; an entry whose value becomes null goes, as
        /// the dictionary's setter drops it. The keys are already distinct: built at once,
        /// not through the setter (a search of the entries per key).
        func remapped(_ d: PDFDictionary) -> PDFDictionary {
            var entries: [(key: PDFName, value: PDFObject)] = []
            entries.reserveCapacity(d.count)
            for e in d.entries {
                let v = remap(e.value)
                if v != .null { entries.append((e.key, v)) }
            }
            return PDFDictionary(uniqueEntries: entries)
        }
        // The second line holds bytes >= 128 so that transfer tools treat the file as binary.
        var out: [UInt8] = Array("%PDF-\(options.version.major).\(options.version.minor)\n%".utf8) + [0xE2, 0xE3, 0xCF, 0xD3, 0x0A]
        var entries: [Int: XRefEntry] = [0: .free]
        let packable: (Int, PDFObject) -> Bool = { old, v in
            guard options.objectStreams, old != exempt else { return false }
            if case .stream = v { return false }
            return true
        }
        var packed: [(Int, PDFObject)] = []
        for (k, old) in order.enumerated() {
            if k % progressStep == 0 { try progress?(k, order.count) }
            guard k < values.count else { continue }
            let value = values[k]
            let new = k + 1  // renumber[old]: numbered in this order from 1
            if value == .null {
                entries[new] = .free  // missing in the original: not written
                continue
            }
            let id = ObjectID(new, 0)
            if packable(old, value) {
                // Strings inside an object stream are not encrypted one by one: the
                // stream is encrypted as a whole (ISO 32000-2 §7.6.2).
                packed.append((new, value))
                continue
            }
            entries[new] = .inFile(offset: out.count, generation: 0)
            if old == exempt {
                out += Array("\(new) 0 obj\n".utf8)
                Serializer.write(value, to: &out, mapping: mapping)
                out += Array("\nendobj\n".utf8)
            } else {
                try writeIndirect(id, value, source: source, to: &out, mapping: mapping)
            }
        }
        var size = order.count + 1
        var newTrailer = PDFDictionary(trailer.entries.map { ($0.key, remap($0.value)) })
        if options.objectStreams {
            // Object streams hold their objects' plain text; each stream is encrypted as
            // a whole like any stream.
            var start = 0
            while start < packed.count {
                let chunk = packed[start..<Swift.min(start + options.objectsPerStream, packed.count)]
                start += chunk.count
                var offsets: [UInt8] = []
                var body: [UInt8] = []
                for (index, (number, value)) in chunk.enumerated() {
                    Serializer.integer(Int64(number), to: &offsets)
                    offsets.append(0x20)
                    Serializer.integer(Int64(body.count), to: &offsets)
                    offsets.append(0x20)
                    Serializer.write(value, to: &body, mapping: mapping)
                    body.append(0x0A)
                    entries[number] = .compressed(stream: size, index: index)
                }
                let data = try Filters.deflate(offsets + body)
                let streamID = ObjectID(size, 0)
                var dict = PDFDictionary()
                dict["Type"] = .name("ObjStm")
                dict["N"] = .integer(Int64(chunk.count))
                dict["First"] = .integer(Int64(offsets.count))
                dict["Filter"] = .name("FlateDecode")
                entries[size] = .inFile(offset: out.count, generation: 0)
                let stream = PDFStream(dictionary: dict, data: .bytes(data))
                try writeIndirect(streamID, .stream(stream), source: source, to: &out)
                size += 1
            }
            let xrefNumber = size
            size += 1
            entries[xrefNumber] = .inFile(offset: out.count, generation: 0)
            newTrailer["Size"] = .integer(Int64(size))
            let xrefOffset = out.count
            try writeXRefStream(number: xrefNumber, entries: entries, freedGenerations: [0: 65535],
                                trailer: newTrailer, to: &out)
            out += Array("startxref\n\(xrefOffset)\n%%EOF\n".utf8)
        } else {
            newTrailer["Size"] = .integer(Int64(size))
            let xrefOffset = out.count
            writeXRefTable(entries: entries, freedGenerations: [0: 65535], trailer: newTrailer, to: &out)
            out += Array("startxref\n\(xrefOffset)\n%%EOF\n".utf8)
        }
        try progress?(order.count, order.count)
        return out
    }

    /// Old object numbers to new ones, for a full save: a flat array for the numbers of
    /// real files (below 2^21), a dictionary past that, so that a hostile reference to
    /// object 9,999,999 costs no 40 MB. Hashing an Int per reference, once to number it and
    /// once to write it, was 5% of a full save of the benchmark's large document.
    struct Renumbering {
        private var dense: [Int32] = []  // 0: not numbered
        private var sparse: [Int: Int] = [:]
        static let denseLimit = 1 << 21

        subscript(old: Int) -> Int? {
            if old >= 0 && old < dense.count {
                let n = dense[old]
                return n == 0 ? nil : Int(n)
            }
            if old >= 0 && old < Self.denseLimit { return nil }
            return sparse[old]
        }

        mutating func set(_ old: Int, _ new: Int) {
            guard old >= 0 && old < Self.denseLimit && new > 0 && new < Int(Int32.max) else {
                sparse[old] = new
                return
            }
            if old >= dense.count {
                let size = Swift.min(Swift.max(old + 1, 2 * dense.count, 1024), Self.denseLimit)
                dense.append(contentsOf: repeatElement(0, count: size - dense.count))
            }
            dense[old] = Int32(new)
        }
    }

    // MARK: Pieces

    /// `N G obj ... endobj` for `value`, strings and stream data prepared through `source`,
    /// references renumbered through `mapping` (the stream's data is that of `value` as read,
    /// its references in the numbers of the file it was read from).
    static func writeIndirect(_ id: ObjectID, _ value: PDFObject, source: WriterSource, to out: inout [UInt8],
                              mapping: Serializer.ReferenceMap? = nil) throws {
        Serializer.integer(Int64(id.number), to: &out)
        out.append(0x20)
        Serializer.integer(Int64(id.generation), to: &out)
        out.append(contentsOf: " obj\n".utf8)
        let prepared = try source.prepareStrings(value, id)
        if case .stream(let s) = prepared {
            let data: [UInt8]
            if case .stream(let original) = value { data = try source.streamData(original, id) } else { data = [] }
            Serializer.stream(s.dictionary, data: data, to: &out, mapping: mapping)
        } else {
            Serializer.write(prepared, to: &out, mapping: mapping)
        }
        out.append(contentsOf: "\nendobj\n".utf8)
    }

    /// Consecutive runs of the sorted object numbers.
    static func runs(_ numbers: [Int]) -> [(first: Int, count: Int)] {
        var result: [(Int, Int)] = []
        for n in numbers.sorted() {
            if let last = result.last, last.0 + last.1 == n {
                result[result.count - 1].1 += 1
            } else {
                result.append((n, 1))
            }
        }
        return result
    }

    static func writeXRefTable(entries: [Int: XRefEntry], freedGenerations: [Int: Int], trailer: PDFDictionary,
                               to out: inout [UInt8]) {
        out += Array("xref\n".utf8)
        for run in runs(Array(entries.keys)) {
            out += Array("\(run.first) \(run.count)\n".utf8)
            for n in run.first..<(run.first + run.count) {
                switch entries[n] {
                case .inFile(let offset, let generation)?:
                    out += Array((pad(offset, 10) + " " + pad(generation, 5) + " n \n").utf8)
                default:
                    out += Array(("0000000000 " + pad(freedGenerations[n] ?? 65535, 5) + " f \n").utf8)
                }
            }
        }
        out += Array("trailer\n".utf8)
        Serializer.write(.dictionary(trailer), to: &out)
        out.append(0x0A)
    }

    static func writeXRefStream(number: Int, entries: [Int: XRefEntry], freedGenerations: [Int: Int],
                                trailer: PDFDictionary, to out: inout [UInt8]) throws {
        let maxOffset = entries.values.reduce(0) { m, e in
            if case .inFile(let o, _) = e { return Swift.max(m, o) }
            if case .compressed(let s, _) = e { return Swift.max(m, s) }
            return m
        }
        var width = 1
        while width < 8 && maxOffset >> (8 * width) != 0 { width += 1 }
        var data: [UInt8] = []
        var index: [PDFObject] = []
        for run in runs(Array(entries.keys)) {
            index += [.integer(Int64(run.first)), .integer(Int64(run.count))]
            for n in run.first..<(run.first + run.count) {
                let (type, f2, f3): (UInt8, Int, Int)
                switch entries[n] {
                case .inFile(let offset, let generation)?: (type, f2, f3) = (1, offset, generation)
                case .compressed(let stream, let i)?: (type, f2, f3) = (2, stream, i)
                default: (type, f2, f3) = (0, 0, freedGenerations[n] ?? 0)
                }
                data.append(type)
                for k in stride(from: width - 1, through: 0, by: -1) { data.append(UInt8(truncatingIfNeeded: f2 >> (8 * k))) }
                data.append(UInt8(truncatingIfNeeded: f3 >> 8))
                data.append(UInt8(truncatingIfNeeded: f3))
            }
        }
        var dict = trailer
        dict["Type"] = .name("XRef")
        dict["W"] = .array([.integer(1), .integer(Int64(width)), .integer(2)])
        dict["Index"] = .array(index)
        dict["Filter"] = .name("FlateDecode")
        out += Array("\(number) 0 obj\n".utf8)
        // Cross-reference streams are never encrypted (§7.6.3).
        Serializer.stream(dict, data: try Filters.deflate(data), to: &out)
        out += Array("\nendobj\n".utf8)
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let s = String(value)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
