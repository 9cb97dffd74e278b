import Testing
@testable import QuireSyntax
import QuireTestSupport

@Suite("Filters (§7.4)")
struct FilterTests {
    let budget = DecodeBudget(maxBytes: 1 << 20, maxRatio: 1000)

    func decode(_ filter: String, _ data: [UInt8], parms: String = "") throws -> [UInt8] {
        var b = PDFBuilder()
        minimalPages(&b)
        b.stream(4, "/Filter \(filter) \(parms)", data)
        b.finishWithTable()
        let file = try PDFFile(buffer: b.buffer)
        guard case .stream(let s) = try file.object(4) else { throw PDFError(.format, "not a stream") }
        return try file.decodedData(s)
    }

    @Test func flate() throws {
        let text = Array(String(repeating: "Quire ", count: 100).utf8)
        #expect(try decode("/FlateDecode", PDFBuilder.deflate(text)) == text)
        // Truncated: what decodes is returned, with a warning.
        let cut = Array(PDFBuilder.deflate(text).dropLast(4))
        #expect(try decode("/FlateDecode", cut).count > 0)
        #expect(throws: PDFError.self) { try decode("/FlateDecode", Array("not zlib".utf8)) }
    }

    @Test func flateBomb() throws {
        let zeros = [UInt8](repeating: 0, count: 8 << 20)
        let bomb = PDFBuilder.deflate(zeros)
        #expect(bomb.count < 10_000)
        var b = PDFBuilder()
        minimalPages(&b)
        b.stream(4, "/Filter /FlateDecode", bomb)
        b.finishWithTable()
        let file = try PDFFile(buffer: b.buffer)
        guard case .stream(let s) = try file.object(4) else { Issue.record("not a stream"); return }
        let error = #expect(throws: PDFError.self) { try file.decodedData(s) }
        #expect(error?.kind == .limit)
        #expect(error?.message.contains("max_decompression_ratio") == true)
        var limits = PDFLimits()
        limits.maxStreamBytes = 1 << 20
        limits.maxDecompressionRatio = 1 << 30
        let f2 = try PDFFile(buffer: b.buffer, limits: limits)
        let e2 = #expect(throws: PDFError.self) { try f2.decodedData(s) }
        #expect(e2?.message.contains("max_stream_bytes") == true)
    }

    @Test func chainedAndParms() throws {
        let text = Array("chained filters".utf8)
        let hex = Array(PDFBuilder.deflate(text).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined().utf8) + [UInt8(ascii: ">")]
        #expect(try decode("[/ASCIIHexDecode /FlateDecode]", hex, parms: "/DecodeParms [null null]") == text)
    }

    @Test func asciiHexAndAscii85() throws {
        #expect(try decode("/AHx", Array("48 65 6C 6C 6F>".utf8)) == Array("Hello".utf8))
        #expect(try decode("/ASCIIHexDecode", Array("414>".utf8)) == [0x41, 0x40])
        // "Man " and "sure." in Ascii85 (from the encoding's own examples).
        #expect(try decode("/ASCII85Decode", Array("9jqo^F*2M7/c~>".utf8)) == Array("Man sure.".utf8))
        #expect(try decode("/A85", Array("z~>".utf8)) == [0, 0, 0, 0])
    }

    @Test func runLength() throws {
        // 3 literal bytes, then 'z' repeated 4 times (257 - 253), then end of data.
        #expect(try decode("/RunLengthDecode", [2, 0x61, 0x62, 0x63, 253, 0x7A, 128]) == Array("abczzzz".utf8))
    }

    @Test func lzw() throws {
        // The example of ISO 32000-2 §7.4.4.2: 45 45 45 45 45 65 45 45 45 66.
        let encoded: [UInt8] = [0x80, 0x0B, 0x60, 0x50, 0x22, 0x0C, 0x0C, 0x85, 0x01]
        #expect(try decode("/LZWDecode", encoded) == [45, 45, 45, 45, 45, 65, 45, 45, 45, 66])
    }

    @Test func pngPredictors() throws {
        // Two rows of 3 bytes: Sub then Up then Average then Paeth on a third row.
        let raw: [UInt8] = [1, 10, 5, 5, 2, 1, 1, 1, 3, 0, 0, 0, 4, 1, 1, 1]
        let out = try Filters.unpredict(raw, predictor: 12, colors: 1, bitsPerComponent: 8, columns: 3)
        #expect(out == [10, 15, 20, 11, 16, 21, 5, 10, 15, 6, 11, 16])
        #expect(throws: PDFError.self) { try Filters.unpredict(raw, predictor: 12, colors: 0, bitsPerComponent: 8, columns: 3) }
    }

    /// The PNG predictors against the specification's definition, written plainly (rows
    /// padded with zeros, a zero row before the first), on random rows of every filter type,
    /// several pixel widths, and data cut at every length (a partial last row).
    @Test func pngPredictorsMatchTheirDefinition() throws {
        func reference(_ data: [UInt8], bpp: Int, rowBytes: Int) -> [UInt8] {
            var out: [UInt8] = []
            var previous = [UInt8](repeating: 0, count: rowBytes)
            var i = 0
            while i < data.count {
                let type = data[i]
                let available = max(0, min(rowBytes, data.count - i - 1))
                var row = [UInt8](repeating: 0, count: rowBytes)
                for k in 0..<available { row[k] = data[i + 1 + k] }
                for k in 0..<rowBytes {
                    let left = k >= bpp ? Int(row[k - bpp]) : 0, up = Int(previous[k])
                    let upLeft = k >= bpp ? Int(previous[k - bpp]) : 0
                    let add: Int
                    switch type {
                    case 1: add = left
                    case 2: add = up
                    case 3: add = (left + up) / 2
                    case 4:
                        let p = left + up - upLeft
                        let (pa, pb, pc) = (abs(p - left), abs(p - up), abs(p - upLeft))
                        add = pa <= pb && pa <= pc ? left : (pb <= pc ? up : upLeft)
                    default: add = 0
                    }
                    row[k] = row[k] &+ UInt8(add & 0xFF)
                }
                out += row[0..<available]
                previous = row
                i += rowBytes + 1
            }
            return out
        }
        var state: UInt64 = 12345
        func next() -> UInt8 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        for (colors, columns) in [(1, 7), (3, 5), (4, 2), (2, 1)] {
            let rowBytes = colors * columns
            var data: [UInt8] = []
            for _ in 0..<6 {
                data.append(next() % 5)
                for _ in 0..<rowBytes { data.append(next()) }
            }
            for length in 0...data.count {
                let cut = Array(data[0..<length])
                let out = try Filters.unpredict(cut, predictor: 15, colors: colors, bitsPerComponent: 8, columns: columns)
                #expect(out == reference(cut, bpp: colors, rowBytes: rowBytes), "colors \(colors) columns \(columns) length \(length)")
            }
        }
    }

    @Test func imageCodecsPassThrough() throws {
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]
        #expect(try decode("/DCTDecode", jpeg) == jpeg)
        #expect(throws: PDFError.self) { try decode("/NoSuchFilter", jpeg) }
    }
}
