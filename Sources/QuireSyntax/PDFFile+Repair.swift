// Repairing a file whose cross-reference is missing or wrong: scanning the bytes for
// `N G obj`, trailers and cross-reference streams, and rebuilding the table from them.

extension PDFFile {
    /// Finds every `N G obj`, `trailer` and cross-reference stream by scanning the bytes.
    func scan() -> (entries: [Int: XRefEntry], trailers: [PDFDictionary], catalogs: [Int]) {
        if let index = scanIndex { return (index, [], []) }
        var found: [Int: XRefEntry] = [:]
        var trailers: [PDFDictionary] = []
        var catalogs: [Int] = []
        var objectStreamNumbers: [Int] = []
        var xrefStreams: [Int] = []
        var trailerOffsets: [Int] = []
        let failuresBefore = buffer.readFailures
        // A scan of bytes a failing source left as zeros is not kept.
        defer { if buffer.readFailures != failuresBefore { scanIndex = nil } }
        buffer.loadAll()  // a lazy buffer: the scan reads every byte
        let b = buffer.bytes
        let trailerKeyword = Array("trailer".utf8)
        var i = 0
        while i < b.count {
            let c = b[i]
            let boundary = i == 0 || !CharClass.isRegular(b[i - 1])
            if boundary && CharClass.isDigit(c), let (n, g, end) = objectHeader(at: i) {
                found[n] = .inFile(offset: i, generation: g)
                // Peek at the start of the object to find catalogs and special streams.
                let peekEnd = end + 512
                if buffer.contains("/Catalog", from: end, to: peekEnd) { catalogs.append(n) }
                if buffer.contains("/ObjStm", from: end, to: peekEnd) { objectStreamNumbers.append(n) }
                if buffer.contains("/XRef", from: end, to: peekEnd) { xrefStreams.append(i) }
                i = end
                continue
            }
            if boundary && c == UInt8(ascii: "t") && buffer.matches(trailerKeyword, at: i) {
                trailerOffsets.append(i + trailerKeyword.count)
                i += trailerKeyword.count
                continue
            }
            i += 1
        }
        // The trailers, parsed from the last (the one that wins) backwards. Each parse may
        // run far: `trailer` in a comment or a string inside another trailer, or an
        // unterminated string, reads on to the end of the file. So parsing stops once four
        // times the file has been read, which bounds N keywords to O(size), not O(N · size).
        var parsedBytes = 0
        let parseBudget = 4 * b.count + (1 << 20)
        for offset in trailerOffsets.reversed() where parsedBytes <= parseBudget {
            var parser = ObjectParser(buffer, at: offset, limits: limits)
            if case .dictionary(let d)? = try? parser.parseObject() { trailers.append(d) }
            parsedBytes += Swift.max(parser.position - offset, 1)
        }
        trailers.reverse()
        scanIndex = found
        let reader = reader()
        for offset in xrefStreams {
            if let s = try? reader.stream(at: offset) {
                trailers.append(s.trailer)
                // Only entries that name, as the object stream, another object found in
                // the file: a damaged stream may say an object is in itself, or in an
                // object that does not exist, and the object streams' own headers (below)
                // then say where it is.
                for (n, e) in s.entries {
                    if case .compressed(let stream, _) = e, stream != n, case .inFile? = found[stream], found[n] == nil { found[n] = e }
                }
            }
        }
        scanIndex = found
        // Each object stream is read where the scan found it, not through the
        // cross-reference being repaired: a damaged one that says the stream is free (an
        // empty or zeroed cross-reference stream) left its objects unindexed, and a file
        // whose catalog and page tree live in an object stream opened with no pages, where
        // PDFium and MuPDF (whose repair reads scanned object streams too) find them. The
        // usual limits hold: the stream decodes within max_stream_bytes and
        // max_total_decoded_bytes, and its header names objects up to max_objects only.
        // Catalogs among a stream's objects count as the ones the scan peeks at: a file
        // whose only trailer cannot be read (a cross-reference stream of no data) has its
        // catalog found there, as MuPDF's repair finds it.
        // A cross-reference stream's entry that places an object in a stream the scan did
        // not find to be an object stream (the cross-reference stream itself, say) gives way
        // to the header of a real one that holds the object.
        let objectStreamSet = Set(objectStreamNumbers)
        for n in objectStreamNumbers {
            guard case .inFile(let offset, _)? = found[n], let header = try? objectStreamHeader(n, at: offset) else { continue }
            for (index, number) in header.pairs {
                switch found[number] {
                case nil: found[number] = .compressed(stream: n, index: index)
                case .compressed(let stream, _)? where !objectStreamSet.contains(stream):
                    found[number] = .compressed(stream: n, index: index)
                default: break
                }
            }
            catalogs += header.catalogs.filter { number in
                if case .compressed(let stream, _)? = found[number] { return stream == n }
                return false
            }
        }
        scanIndex = found
        return (found, trailers, catalogs)
    }

    /// `N G obj` at `p`: the numbers and the offset after `obj`.
    func objectHeader(at p: Int) -> (Int, Int, Int)? {
        let b = buffer.bytes
        var i = p
        func integer() -> Int? {
            let s = i
            var v = 0
            while i < b.count && CharClass.isDigit(b[i]) && i - s < 10 { v = v * 10 + Int(b[i] - 0x30); i += 1 }
            return i > s && (i >= b.count || !CharClass.isDigit(b[i])) ? v : nil
        }
        func spaces() -> Bool {
            let s = i
            while i < b.count && CharClass.isWhitespace(b[i]) { i += 1 }
            return i > s
        }
        guard let n = integer(), spaces(), let g = integer() else { return nil }
        _ = spaces()
        guard i + 3 <= b.count, b[i] == UInt8(ascii: "o"), b[i + 1] == UInt8(ascii: "b"), b[i + 2] == UInt8(ascii: "j"),
              i + 3 == b.count || !CharClass.isRegular(b[i + 3]) else { return nil }
        guard n <= limits.maxObjects else {
            scannedPastObjectLimit += 1
            return nil
        }
        return (n, g, i + 3)
    }

    /// Rebuilds the cross-reference and the trailer by scanning. Returns the objects that
    /// look like catalogs, for when no trailer names a usable one.
    func rebuild() throws -> [Int] {
        isRepaired = true
        xrefForm = .rebuilt
        startXRef = nil
        cache.removeAll()
        dropObjectStreams()
        decodedObjectStreams.removeAll()
        scanIndex = nil
        let (found, trailers, catalogs) = scan()
        entries = XRefTable(found)
        guard !found.isEmpty else {
            throw PDFError.format(headerVersion == nil ? "not a PDF file (no %PDF header and no objects)"
                                                       : "no objects found in the file")
        }
        let saved = trailer
        trailer = PDFDictionary()
        // The last trailer whose /Root is a dictionary wins; keys it lacks come from the
        // earlier trailers and the damaged chain. An encrypted file's catalog may not read
        // before its security is set up: then the last trailer with a /Root is taken, and
        // checked afterwards.
        for candidate in trailers.reversed() {
            guard let root = candidate["Root"], try object(for: root).dictionary != nil else { continue }
            for (k, v) in candidate where trailer[k] == nil { trailer[k] = v }
        }
        if trailer["Root"] == nil, let candidate = trailers.last(where: { $0["Root"] != nil && $0["Encrypt"] != nil }) {
            trailer = candidate
        }
        for (k, v) in saved where trailer[k] == nil && !["Prev", "XRefStm", "Root"].contains(k.value) {
            trailer[k] = v
        }
        cache.removeAll()
        return catalogs
    }
}
