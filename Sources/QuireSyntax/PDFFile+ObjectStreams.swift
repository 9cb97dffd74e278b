// Object streams (ISO 32000-2 §7.5.7): their headers, the readers that parse their objects
// one at a time, and how much of their decoded data stays in memory.

extension PDFFile {
    /// The (index, number) pairs at the start of object stream `number`, the object at
    /// `offset` (§7.5.7), for the scan. The decoded data is kept for ``decodedObjectStream(_:)``, so that repairing a
    /// file decodes each object stream once, not twice (nor counts it twice against
    /// `max_total_decoded_bytes`); its objects are still parsed only when asked for.
    ///
    /// Also the objects whose bytes hold "/Catalog", as the scan peeks at the objects of the
    /// file: each object's bytes run from its offset to the next offset in order (so the
    /// whole stream is searched once, whatever order or overlap a hostile header has).
    func objectStreamHeader(_ number: Int, at offset: Int) throws -> (pairs: [(Int, Int)], catalogs: [Int]) {
        guard case .stream(let stream)? = try parse(number, at: offset) else { return ([], []) }
        let data = ByteBuffer(copying: try decodedData(stream))
        if objectStreams[number] == nil { decodedObjectStreams[number] = data }
        let offsets = try objectStreamOffsets(stream, data)
        let first = Int(clamping: stream.dictionary["First"]?.integer ?? 0)
        var catalogs: [Int] = []
        let starts = offsets.map { (number: $0.number, start: first.addingReportingOverflow($0.offset).partialValue) }
            .filter { $0.start >= 0 && $0.start < data.count }
            .sorted { $0.start < $1.start }
        for (k, object) in starts.enumerated() {
            let end = k + 1 < starts.count ? starts[k + 1].start : data.count
            if data.contains("/Catalog", from: object.start, to: end) { catalogs.append(object.number) }
        }
        return (offsets.enumerated().map { ($0.offset, $0.element.number) }, catalogs)
    }

    /// The header of an object stream whose decoded data is `data`: up to /N pairs of
    /// object number and offset (relative to /First), stopping at the first malformed pair.
    func objectStreamOffsets(_ stream: PDFStream, _ data: ByteBuffer) throws -> [(number: Int, offset: Int)] {
        let n = Int(clamping: stream.dictionary["N"]?.integer ?? 0)
        var lexer = Lexer(data)
        var pairs: [(number: Int, offset: Int)] = []
        for _ in 0..<Swift.max(0, Swift.min(n, data.count / 2)) {
            guard case .integer(let num) = try lexer.next(), case .integer(let off) = try lexer.next(),
                  num >= 0, num <= Int64(limits.maxObjects), off >= 0 else { break }
            pairs.append((Int(num), Int(off)))
        }
        return pairs
    }

    /// Object `number` from object stream `stream`; nil when the stream does not hold it.
    ///
    /// Only that object is parsed: the stream is decoded and its header read once, and
    /// each object is parsed when it is first asked for (page 3,000 of a document whose
    /// pages share object streams with 36,000 annotations parses pages, not annotations).
    func compressedObject(_ number: Int, stream: Int, index: Int) throws -> PDFObject? {
        // An object stream cannot itself be in an object stream (ISO 32000-2 §7.5.7): a
        // cross-reference saying so would chain stream after stream (or name an object as
        // its own stream).
        if objectStreams[stream] == nil, case .compressed? = entries[stream] {
            warn("object stream \(stream) is itself said to be in an object stream; its objects are not read from it")
            objectStreams[stream] = ObjectStreamReader(empty: ())
        }
        let known = objectStreams[stream]
        if let known, !known.needsData(for: number) {
            defer { keepResident(stream) }
            return known.object(number, limits: limits, warn: warn)
        }
        // Opened now, or decoded again after its data was let go (see ``keepResident(_:)``).
        let failuresBefore = buffer.readFailures
        let (data, header) = try decodedObjectStream(stream)
        /// A reader of `data`, its header read.
        func open() throws -> ObjectStreamReader {
            ObjectStreamReader(number: stream, data: data, first: header.first, pairs: try objectStreamOffsets(header.stream, data))
        }
        // Decoded from a source that failed meanwhile: used for this object, not kept (see
        // ``object(_:)``).
        guard buffer.readFailures == failuresBefore else { return try open().object(number, limits: limits, warn: warn) }
        let reader: ObjectStreamReader
        if let known {
            known.restore(data)
            reader = known
        } else {
            reader = try open()
            objectStreams[stream] = reader
        }
        defer { keepResident(stream) }
        return reader.object(number, limits: limits, warn: warn)
    }

    /// The bytes of decoded object streams held now (for tests).
    package var residentObjectStreamBytes: Int { residentBytes }

    /// Notes that object stream `number` was just used, and lets the data of the streams
    /// used longest ago go while the resident ones pass
    /// ``maxResidentObjectStreamBytes`` (never the one just used).
    func keepResident(_ number: Int) {
        guard let reader = objectStreams[number] else { return }
        if residentStreams.last != number {
            if let k = residentStreams.lastIndex(of: number) {
                residentStreams.remove(at: k)
            } else {
                residentBytes += reader.residentBytes
            }
            residentStreams.append(number)
        }
        // A stream whose objects are all parsed let its data go by itself.
        if reader.residentBytes == 0 {
            residentStreams.removeLast()
            residentBytes = residentStreams.reduce(0) { $0 + (objectStreams[$1]?.residentBytes ?? 0) }
            return
        }
        while residentBytes > maxResidentObjectStreamBytes, residentStreams.count > 1 {
            let oldest = residentStreams.removeFirst()
            residentBytes -= objectStreams[oldest]?.releaseData() ?? 0
        }
    }

    /// Forgets every object stream opened (their objects are read again when asked for).
    func dropObjectStreams() {
        objectStreams.removeAll()
        residentStreams.removeAll()
        residentBytes = 0
    }

    /// Object stream `number` decoded, with its dictionary and /First (its header of
    /// numbers and offsets is read by ``objectStreamOffsets(_:_:)`` when a reader is made:
    /// decoded again, a stream keeps the reader it had).
    func decodedObjectStream(_ number: Int) throws -> (data: ByteBuffer, header: (stream: PDFStream, first: Int)) {
        guard case .stream(let stream) = try object(number) else {
            throw PDFError.format("object stream \(number) is not a stream")
        }
        let data = try decodedObjectStreams.removeValue(forKey: number) ?? ByteBuffer(copying: decodedData(stream))
        let n = Int(clamping: stream.dictionary["N"]?.integer ?? 0)
        let first = Int(clamping: stream.dictionary["First"]?.integer ?? 0)
        guard n >= 0, first >= 0, first <= data.count else {
            throw PDFError.format("object stream \(number) has an invalid /N or /First")
        }
        return (data, (stream, first))
    }
}

/// The objects of one object stream (§7.5.7), parsed one at a time as they are asked for;
/// the decoded data is let go once every object it holds has been parsed.
final class ObjectStreamReader {
    private let number: Int
    private var data: ByteBuffer?
    private let first: Int
    /// The header's pairs kept: for each object number its first pair, among those whose
    /// offset (relative to /First) lies within the data; in header order.
    private var numbers: [Int] = []
    private var offsets: [Int] = []
    /// Where each number's pair is, when the numbers are not in ascending order (else a
    /// binary search finds it: the common case, without hashing every number).
    private var positions: [Int: Int]? = nil
    /// For each pair, the pair whose parse it shares (the first at its offset), when two
    /// pairs share an offset; nil when the offsets ascend (no two can share one).
    private var sharedWith: [Int]? = nil
    /// What parsing at each pair's offset gave (nil inside: not an object), by pair.
    private var parsed: [PDFObject??]
    private var unparsed: Int
    /// A header whose entries all point at one large object (or into it) made every entry
    /// parse it again: a 1.8 KB file took 26 s and 2.9 GB. One offset is parsed once and
    /// shared; past four times the data in all, the rest read as null.
    private var consumed = 0
    private let budget: Int
    private var warnedOverBudget = false

    init(number: Int, data: ByteBuffer, first: Int, pairs: [(number: Int, offset: Int)]) {
        self.number = number
        self.data = data
        self.first = first
        budget = 4 * (data.count - first) + 4096
        numbers.reserveCapacity(pairs.count)
        offsets.reserveCapacity(pairs.count)
        var ascendingNumbers = true, ascendingOffsets = true
        var seen: [Int: Int] = [:]  // only once the numbers stop ascending
        for (num, off) in pairs where off <= data.count - first {
            if ascendingNumbers, let last = numbers.last, num <= last {
                ascendingNumbers = false
                for (k, n) in numbers.enumerated() where seen[n] == nil { seen[n] = k }
            }
            if !ascendingNumbers {
                guard seen[num] == nil else { continue }  // the first pair of a number wins
                seen[num] = numbers.count
            }
            if let last = offsets.last, off <= last { ascendingOffsets = false }
            numbers.append(num)
            offsets.append(off)
        }
        if !ascendingNumbers { positions = seen }
        var distinct = offsets.count
        if !ascendingOffsets {
            var firstAt: [Int: Int] = [:]
            var shared = Array(offsets.indices)
            for (k, off) in offsets.enumerated() {
                if let j = firstAt[off] { shared[k] = j } else { firstAt[off] = k }
            }
            sharedWith = shared
            distinct = firstAt.count
        }
        parsed = Array(repeating: nil, count: offsets.count)
        unparsed = distinct
        if unparsed == 0 { self.data = nil }
    }

    /// A stream whose objects are not read (it is said to be in an object stream itself).
    init(empty: ()) {
        number = 0
        data = nil
        first = 0
        budget = 0
        parsed = []
        unparsed = 0
    }

    /// The pair whose parse gives object `num`, if the header names it.
    private func slot(_ num: Int) -> Int? {
        let k: Int
        if let positions {
            guard let found = positions[num] else { return nil }
            k = found
        } else {
            var low = 0, high = numbers.count
            while low < high {
                let mid = (low + high) / 2
                if numbers[mid] < num { low = mid + 1 } else { high = mid }
            }
            guard low < numbers.count, numbers[low] == num else { return nil }
            k = low
        }
        return sharedWith?[k] ?? k
    }

    /// The bytes of decoded data it holds.
    var residentBytes: Int { data?.count ?? 0 }

    /// Whether object `num` is yet to be parsed and the data was let go.
    func needsData(for num: Int) -> Bool {
        guard data == nil, unparsed > 0, let k = slot(num) else { return false }
        return parsed[k] == nil
    }

    /// The decoded data again, after ``releaseData()``.
    func restore(_ data: ByteBuffer) {
        if unparsed > 0 { self.data = data }
    }

    /// Lets the decoded data go (objects not parsed yet need ``restore(_:)``); returns
    /// its bytes.
    func releaseData() -> Int {
        defer { data = nil }
        return residentBytes
    }

    /// Object `num`, parsed now if it was not; nil when the stream does not hold it.
    func object(_ num: Int, limits: PDFLimits, warn: (String) -> Void) -> PDFObject? {
        guard let k = slot(num) else { return nil }
        if let done = parsed[k] { return done }
        guard let data else { return nil }
        guard consumed <= budget else {
            if !warnedOverBudget {
                warnedOverBudget = true
                warn("object stream \(number): its header's objects overlap, and reading them would read its data more than four times; the rest are null")
            }
            return nil
        }
        let off = offsets[k]
        var parser = ObjectParser(data, limits: limits)
        parser.position = first + off
        let value = try? parser.parseObject()
        consumed += Swift.max(1, parser.position - (first + off))
        parsed[k] = .some(value)
        unparsed -= 1
        if unparsed == 0 { self.data = nil }
        return value
    }
}
