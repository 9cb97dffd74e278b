import CZlib

/// The budget a decoder may spend: the per-stream cap and ratio from ``PDFLimits``.
public struct DecodeBudget: Sendable {
    public let maxBytes: Int
    public var maxRatio: Int
    /// The limit `maxBytes` comes from, and its value, for the error.
    public var bytesLimit: (name: String, value: Int)

    /// A negative `maxBytes` (a document already past its total) is 0.
    public init(maxBytes: Int, maxRatio: Int, bytesLimit: (name: String, value: Int)? = nil) {
        self.maxBytes = Swift.max(0, maxBytes)
        self.maxRatio = maxRatio
        self.bytesLimit = bytesLimit ?? ("max_stream_bytes", maxBytes)
    }

    /// Throws when `produced` bytes from `consumed` input exceed the budget.
    func check(produced: Int, consumed: Int, what: String) throws {
        if produced > maxBytes {
            throw PDFError(limit: bytesLimit.name, bytesLimit.value, "\(what): the decoded size")
        }
        // The ratio is checked past 1 MiB only: small streams of one repeated byte are
        // legitimate and harmless.
        if produced > (1 << 20) && produced / Swift.max(consumed, 1) > maxRatio {
            throw PDFError(limit: "max_decompression_ratio", maxRatio, "\(what): the decompression ratio")
        }
    }
}

/// Decoders for the standard filters (ISO 32000-2 §7.4). Damage inside compressed data is
/// tolerated the way other readers do: the bytes decoded before the damage are returned,
/// and `warning` says so.
public enum Filters {
    /// FlateDecode (§7.4.4) through the system zlib. Accepts zlib-wrapped data and, when
    /// the header is wrong, raw deflate data.
    public static func inflate(_ input: UnsafeBufferPointer<UInt8>, budget: DecodeBudget,
                               warning: (String) -> Void) throws -> [UInt8] {
        do {
            return try inflate(input, windowBits: 15, budget: budget, warning: warning)
        } catch let e as PDFError where e.kind == .format {
            // Some writers omit the zlib header: try raw deflate before giving up.
            if let raw = try? inflate(input, windowBits: -15, budget: budget, warning: { _ in }) {
                warning("FlateDecode stream without a zlib header; decoded as raw deflate")
                return raw
            }
            throw e
        }
    }

    static func inflate(_ input: UnsafeBufferPointer<UInt8>, windowBits: Int32,
                        budget: DecodeBudget, warning: (String) -> Void) throws -> [UInt8] {
        var stream = z_stream()
        guard inflateInit2_(&stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw PDFError(.internal, "zlib inflateInit2 failed")
        }
        defer { inflateEnd(&stream) }
        // The Adler-32 of the decoded data is not computed: a mismatch only ever gave a
        // warning after the data was kept, and computing it was an eighth of reading the
        // object streams of a large file.
        if windowBits > 0 { _ = inflateValidate(&stream, 0) }
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
        stream.avail_in = UInt32(truncatingIfNeeded: Swift.min(input.count, Int(UInt32.max)))
        // zlib writes straight into the result's storage; when it is full, the storage
        // doubles (one copy of what is decoded so far). Before, every byte went through a
        // 64 KiB scratch buffer and was appended from there: a second copy of everything,
        // and inflating a large image took twice as long as qpdf. The capacity stops one
        // byte past the budget, so that going over it is seen.
        let cap = budget.maxBytes.saturatingSuccessor
        var capacity = Swift.min(Swift.max(input.count * 4, 4096), cap)
        var output: [UInt8] = []
        var outcome: Int32? = nil  // the status that ended decoding
        while outcome == nil {
            let previous = output
            var thrown: Error? = nil
            output = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                count = 0
                guard let base = buffer.baseAddress else { return }
                previous.withUnsafeBufferPointer { p in
                    if let from = p.baseAddress, p.count > 0 { base.initialize(from: from, count: p.count) }
                }
                count = previous.count
                while count < capacity {
                    let room = Swift.min(capacity - count, Int(UInt32.max))
                    stream.next_out = base + count
                    stream.avail_out = UInt32(room)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    let produced = room - Int(stream.avail_out)
                    count += produced
                    do {
                        try budget.check(produced: count, consumed: Int(stream.total_in), what: "FlateDecode")
                    } catch {
                        thrown = error
                        return
                    }
                    if status == Z_OK && (produced > 0 || stream.avail_in > 0) {
                        continue  // room left: call again; no room left: the loop ends, and grows
                    }
                    outcome = status
                    return
                }
            }
            if let thrown { throw thrown }
            if outcome == nil {
                guard capacity < cap else {
                    throw PDFError(limit: budget.bytesLimit.name, budget.bytesLimit.value, "FlateDecode: the decoded size")
                }
                capacity = capacity > cap / 2 ? cap : capacity * 2
            }
        }
        switch outcome {
        case Z_STREAM_END?:
            return output
        case Z_OK?:
            // No input left and nothing produced: the data ends before the end marker.
            if output.isEmpty { throw PDFError.format("FlateDecode: no data") }
            warning("FlateDecode stream ends early; \(output.count) bytes decoded")
            return output
        case Z_BUF_ERROR?:
            if output.isEmpty { throw PDFError.format("FlateDecode: truncated data") }
            warning("FlateDecode stream is truncated; \(output.count) bytes decoded")
            return output
        default:
            if output.isEmpty {
                throw PDFError.format("FlateDecode: corrupt data (zlib status \(outcome ?? 0))")
            }
            warning("FlateDecode stream is corrupt after \(output.count) decoded bytes; the rest is dropped")
            return output
        }
    }

    /// Undoes a PNG (10–15) or TIFF (2) predictor (§7.4.4.4).
    public static func unpredict(_ data: [UInt8], predictor: Int, colors: Int, bitsPerComponent: Int,
                                 columns: Int) throws -> [UInt8] {
        guard predictor >= 2 else { return data }
        guard (1...32).contains(colors), [1, 2, 4, 8, 16].contains(bitsPerComponent),
              columns >= 1, columns <= 1 << 24 else {
            throw PDFError.format("invalid predictor parameters (Colors \(colors), BitsPerComponent \(bitsPerComponent), Columns \(columns))")
        }
        let bpp = Swift.max(1, (colors * bitsPerComponent + 7) / 8)
        let rowBytes = (colors * bitsPerComponent * columns + 7) / 8
        if predictor == 2 {
            guard bitsPerComponent == 8 else { return data }  // only the common case
            var out = data
            var i = 0
            while i < out.count {
                let rowEnd = Swift.min(i + rowBytes, out.count)
                var j = i + bpp
                while j < rowEnd { out[j] = out[j] &+ out[j - bpp]; j += 1 }
                i += rowBytes
            }
            return out
        }
        // PNG: each row starts with its own filter type byte. The row buffers are no
        // longer than the data: /Columns 16777216 /Colors 32 /BitsPerComponent 16 claims
        // rows of 1 GiB, and a few bytes of data would otherwise allocate two of them and
        // loop over them, past every decode limit. Such a row is the only, partial, row.
        let width = Swift.min(rowBytes, data.count)
        guard width > 0 else { return [] }
        // Each row is undone in place in the output, against the row before it there (a
        // row of zeros before the first): pointer loops, no row buffers copied per row (a
        // cross-reference stream of 39,000 rows of 7 bytes spent more on the copies and
        // appends than on the filters).
        let zeros = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: width)
        defer { zeros.deallocate() }
        zeros.initialize(repeating: 0)
        return try data.withUnsafeBufferPointer { src in
            try [UInt8](unsafeUninitializedCapacity: data.count) { out, count in
                count = 0
                guard let base = src.baseAddress, let outBase = out.baseAddress, let zero = zeros.baseAddress else { return }
                var pp = UnsafePointer(zero)
                var i = 0
                while i < src.count {
                    let type = src[i]
                    let available = Swift.max(0, Swift.min(rowBytes, src.count - i - 1))
                    let rp = outBase + count
                    let sp = base + i + 1
                    // Each filter reads the row from the data and writes it undone (UInt8 is
                    // trivial: the output's memory is written without being read first).
                    switch type {
                    case 0:
                        if available > 0 { rp.initialize(from: sp, count: available) }
                    case 1:
                        var k = 0
                        while k < Swift.min(bpp, available) { rp[k] = sp[k]; k += 1 }
                        while k < available { rp[k] = sp[k] &+ rp[k - bpp]; k += 1 }
                    case 2:
                        var k = 0
                        while k < available { rp[k] = sp[k] &+ pp[k]; k += 1 }
                    case 3:
                        for k in 0..<available {
                            let left: UInt8 = k >= bpp ? rp[k - bpp] : 0
                            rp[k] = sp[k] &+ UInt8((Int(left) + Int(pp[k])) / 2)
                        }
                    case 4:
                        for k in 0..<available {
                            let left: UInt8 = k >= bpp ? rp[k - bpp] : 0
                            let up = pp[k]
                            let upLeft: UInt8 = k >= bpp ? pp[k - bpp] : 0
                            let p = Int(left) + Int(up) - Int(upLeft)
                            let pa = abs(p - Int(left)), pb = abs(p - Int(up)), pc = abs(p - Int(upLeft))
                            rp[k] = sp[k] &+ ((pa <= pb && pa <= pc) ? left : (pb <= pc ? up : upLeft))
                        }
                    default:
                        throw PDFError.format("unknown PNG predictor type \(type)")
                    }
                    count += available
                    pp = UnsafePointer(rp)
                    i += rowBytes + 1
                }
            }
        }
    }

    /// ASCIIHexDecode (§7.4.2).
    public static func asciiHex(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(input.count / 2)
        var high: UInt8? = nil
        for b in input {
            if b == UInt8(ascii: ">") { break }
            guard let v = Hex.value(b) else { continue }
            if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
        }
        if let h = high { out.append(h << 4) }
        return out
    }

    /// ASCII85Decode (§7.4.3).
    public static func ascii85(_ input: UnsafeBufferPointer<UInt8>) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(input.count * 4 / 5)
        var group: [UInt32] = []
        func flush(_ count: Int) {
            var value: UInt32 = 0
            for k in 0..<5 { value = value &* 85 &+ (k < group.count ? group[k] : 84) }
            for k in 0..<(count - 1) { out.append(UInt8(truncatingIfNeeded: value >> (24 - 8 * k))) }
        }
        var i = 0
        // An optional `<~` prefix.
        if input.count >= 2 && input[0] == UInt8(ascii: "<") && input[1] == UInt8(ascii: "~") { i = 2 }
        while i < input.count {
            let b = input[i]
            i += 1
            if CharClass.isWhitespace(b) { continue }
            if b == UInt8(ascii: "~") { break }
            if b == UInt8(ascii: "z") && group.isEmpty { out.append(contentsOf: [0, 0, 0, 0]); continue }
            guard b >= 0x21 && b <= 0x75 else {
                throw PDFError.format("ASCII85Decode: invalid character \(b)")
            }
            group.append(UInt32(b - 0x21))
            if group.count == 5 { flush(5); group.removeAll(keepingCapacity: true) }
        }
        if group.count >= 2 { flush(group.count) }
        return out
    }

    /// RunLengthDecode (§7.4.5).
    public static func runLength(_ input: UnsafeBufferPointer<UInt8>, budget: DecodeBudget) throws -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < input.count {
            let n = Int(input[i])
            i += 1
            if n == 128 { break }
            if n < 128 {
                let end = Swift.min(i + n + 1, input.count)
                out.append(contentsOf: input[i..<end])
                i = end
            } else if i < input.count {
                out.append(contentsOf: repeatElement(input[i], count: 257 - n))
                i += 1
            }
            try budget.check(produced: out.count, consumed: i, what: "RunLengthDecode")
        }
        return out
    }

    /// LZWDecode (§7.4.4), with /EarlyChange (default 1).
    public static func lzw(_ input: UnsafeBufferPointer<UInt8>, earlyChange: Bool,
                           budget: DecodeBudget) throws -> [UInt8] {
        var out: [UInt8] = []
        var table: [[UInt8]] = (0..<256).map { [UInt8($0)] }
        table.append([]); table.append([])  // 256 clear, 257 end of data
        var codeLength = 9
        var bitBuffer: UInt32 = 0
        var bitCount = 0
        var previous: [UInt8]? = nil
        var i = 0
        while true {
            while bitCount < codeLength {
                guard i < input.count else { return out }
                bitBuffer = (bitBuffer << 8) | UInt32(input[i])
                bitCount += 8
                i += 1
            }
            let code = Int((bitBuffer >> UInt32(bitCount - codeLength)) & ((1 << UInt32(codeLength)) - 1))
            bitCount -= codeLength
            if code == 256 {
                table.removeSubrange(258...)
                codeLength = 9
                previous = nil
                continue
            }
            if code == 257 { return out }
            var entry: [UInt8]
            if code < table.count {
                entry = table[code]
                if let p = previous, table.count < 4096 { table.append(p + [entry[0]]) }
            } else if let p = previous, code == table.count {
                entry = p + [p[0]]
                if table.count < 4096 { table.append(entry) }
            } else {
                throw PDFError.format("LZWDecode: invalid code \(code)")
            }
            out.append(contentsOf: entry)
            try budget.check(produced: out.count, consumed: i, what: "LZWDecode")
            previous = entry
            // A full table stays as it is until the encoder sends a clear code.
            let next = table.count + (earlyChange ? 1 : 0)
            codeLength = next >= 2048 ? 12 : next >= 1024 ? 11 : next >= 512 ? 10 : 9
        }
    }
}

extension Filters {
    /// FlateDecode's encoder: zlib-wrapped deflate at the default level.
    public static func deflate(_ input: [UInt8]) throws -> [UInt8] {
        var size = compressBound(UInt(input.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let status = out.withUnsafeMutableBufferPointer { o in
            input.withUnsafeBufferPointer { i in
                compress2(o.baseAddress, &size, i.baseAddress, UInt(input.count), Z_DEFAULT_COMPRESSION)
            }
        }
        guard status == Z_OK else { throw PDFError(.internal, "zlib compress2 failed with status \(status)") }
        return Array(out[0..<Int(size)])
    }
}
