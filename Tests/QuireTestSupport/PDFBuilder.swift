import CZlib
import QuireSyntax
#if canImport(Glibc)
import Glibc
#endif

/// A corpus directory: `<repo>/../shared/corpus`, if it is there.
public let corpusDirectory: String? = {
    var path = #filePath
    for _ in 0..<3 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
    let corpus = path + "/../shared/corpus"
    return access(corpus + "/manifest.jsonl", F_OK) == 0 ? corpus : nil
}()

/// Builds small PDF files byte by byte for tests, with correct offsets unless told not to.
public struct PDFBuilder {
    public init() {}

    public var bytes: [UInt8] = Array("%PDF-1.7\n%\u{E2}\u{E3}\n".utf8)
    public var offsets: [Int: Int] = [:]
    /// Where the last table written by `finishWithTable` starts.
    public var lastXRef = 0

    public mutating func append(_ text: String) { bytes += Array(text.utf8) }

    /// Appends `N 0 obj <body> endobj`.
    public mutating func object(_ number: Int, _ body: String) {
        offsets[number] = bytes.count
        append("\(number) 0 obj\n\(body)\nendobj\n")
    }

    /// Appends a stream object with raw `data` and extra dictionary entries.
    public mutating func stream(_ number: Int, _ dict: String, _ data: [UInt8]) {
        offsets[number] = bytes.count
        append("\(number) 0 obj\n<< \(dict) /Length \(data.count) >>\nstream\n")
        bytes += data
        append("\nendstream\nendobj\n")
    }

    /// Appends a classic xref table and trailer for objects 0...max(offsets).
    public mutating func finishWithTable(trailer: String = "/Root 1 0 R", startxrefDelta: Int = 0) {
        let size = (offsets.keys.max() ?? 0) + 1
        let start = bytes.count
        lastXRef = start
        append("xref\n0 \(size)\n")
        for n in 0..<size {
            if let o = offsets[n] {
                append(String(repeating: "0", count: 10 - String(o).count) + "\(o) 00000 n \n")
            } else {
                append("0000000000 65535 f \n")
            }
        }
        append("trailer\n<< /Size \(size) \(trailer) >>\nstartxref\n\(start + startxrefDelta)\n%%EOF\n")
    }

    /// Appends an xref stream (object `number`) with /W [1 4 2], Flate and a PNG Up predictor.
    public mutating func finishWithXRefStream(number: Int, compressed: [Int: (stream: Int, index: Int)] = [:],
                                       trailer: String = "/Root 1 0 R") {
        let start = bytes.count
        offsets[number] = start
        let size = Swift.max((offsets.keys.max() ?? 0), (compressed.keys.max() ?? 0)) + 1
        var rows: [[UInt8]] = []
        for n in 0..<size {
            if let c = compressed[n] {
                rows.append([2] + be(c.stream, 4) + be(c.index, 2))
            } else if let o = offsets[n] {
                rows.append([1] + be(o, 4) + be(0, 2))
            } else {
                rows.append([0] + be(0, 4) + be(65535, 2))
            }
        }
        // PNG Up predictor: each row is its difference from the previous row.
        var predicted: [UInt8] = []
        var previous = [UInt8](repeating: 0, count: 7)
        for row in rows {
            predicted.append(2)
            for k in 0..<7 { predicted.append(row[k] &- previous[k]) }
            previous = row
        }
        let data = PDFBuilder.deflate(predicted)
        append("\(number) 0 obj\n<< /Type /XRef /Size \(size) /W [1 4 2] /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 7 >> \(trailer) /Length \(data.count) >>\nstream\n")
        bytes += data
        append("\nendstream\nendobj\nstartxref\n\(start)\n%%EOF\n")
    }

    func be(_ v: Int, _ width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: v >> (8 * (width - 1 - $0))) }
    }

    public static func deflate(_ data: [UInt8]) -> [UInt8] {
        var size = compressBound(UInt(data.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let status = out.withUnsafeMutableBufferPointer { o in
            data.withUnsafeBufferPointer { i in compress(o.baseAddress, &size, i.baseAddress, UInt(data.count)) }
        }
        precondition(status == Z_OK, "test helper: zlib compress failed")
        return Array(out[0..<Int(size)])
    }

    public var buffer: ByteBuffer { ByteBuffer(copying: bytes) }
}

/// Parses one object from `text`.
public func parse(_ text: String, limits: PDFLimits = .default) throws -> PDFObject {
    var parser = ObjectParser(ByteBuffer(copying: Array(text.utf8)), limits: limits)
    return try parser.parseObject()
}

extension PDFBuilder {
    /// A PDF of `count` empty Letter pages: the catalog (1), the page tree (2), the pages
    /// (3...), and a classic xref table.
    public static func blankPages(_ count: Int) -> [UInt8] {
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        let kids = (0..<count).map { "\(3 + $0) 0 R" }.joined(separator: " ")
        b.object(2, "<< /Type /Pages /Kids [\(kids)] /Count \(count) >>")
        for i in 0..<count { b.object(3 + i, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>") }
        b.finishWithTable()
        return b.bytes
    }
}
