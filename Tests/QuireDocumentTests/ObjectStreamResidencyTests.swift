import Foundation
@testable import QuireSyntax
import QuireDocument
import QuireTestSupport
import Testing

/// Object streams keep their decoded data only up to a budget; past it, the streams used
/// longest ago let it go and are decoded again when another of their objects is asked for
/// (issue 17: page 3,000 of large.pdf kept 13 MB of streams). With no budget at all,
/// every switch between streams decodes again: the objects must read the same.
@Suite struct ObjectStreamResidencyTests {
    @Test func objectsReadTheSameWhenStreamsLetTheirDataGo() throws {
        let files = LazyReadingTests.corpusFiles(step: 7)
        try #require(!files.isEmpty || corpusDirectory == nil)
        var compared = 0
        var differ: [String] = []
        for (k, path) in files.enumerated() {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let bytes = [UInt8](data)
            guard let whole = try? PDFFile(buffer: ByteBuffer(copying: bytes)),
                  let tight = try? PDFFile(buffer: ByteBuffer(copying: bytes)) else { continue }
            guard whole.objectNumbers.contains(where: { if case .compressed? = whole.entry($0) { true } else { false } }) else { continue }
            tight.maxResidentObjectStreamBytes = 0
            // In an order that jumps between streams, each object twice.
            var numbers = whole.objectNumbers
            var state = UInt64(k + 1)
            for i in stride(from: numbers.count - 1, to: 0, by: -1) {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                numbers.swapAt(i, Int(state >> 33) % (i + 1))
            }
            for number in numbers + numbers.reversed() {
                let a = (try? whole.object(number)).map { Serializer.bytes($0) }
                let b = (try? tight.object(number)).map { Serializer.bytes($0) }
                if a != b {
                    differ.append("\(path) object \(number)")
                    break
                }
            }
            compared += 1
        }
        #expect(differ.isEmpty, "\(differ)")
        if corpusDirectory != nil { #expect(compared > 20) }
    }

    @Test func headersOutOfOrderWithRepeatsAndSharedOffsets() throws {
        // Numbers out of order, 12 named twice (its first pair wins), 10 and 11 at one
        // offset (parsed once, shared), 13 past the data (not in the stream).
        let header = "12 0 10 4 12 8 11 4 13 999 "
        let body = "(a) (b) (c)"
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [] /Count 0 >>")
        b.stream(5, "/Type /ObjStm /N 5 /First \(header.utf8.count)", Array((header + body).utf8))
        b.finishWithXRefStream(number: 7, compressed: [10: (5, 1), 11: (5, 3), 12: (5, 0), 13: (5, 4)])
        for budget in [4 << 20, 0] {
            let file = try PDFFile(buffer: ByteBuffer(copying: b.bytes))
            file.maxResidentObjectStreamBytes = budget
            #expect(try file.object(12).string?.text == "a")
            #expect(try file.object(11).string?.text == "b")
            #expect(try file.object(10).string?.text == "b")
            #expect((try? file.object(13)) ?? .null == .null)
            #expect(file.residentObjectStreamBytes == 0)  // two distinct offsets, both parsed
        }
    }

    @Test func streamsLetGoAreDecodedAgain() throws {
        // Two object streams of three objects each; a budget of 0 keeps only the one just
        // used. Reading 10, 20, 11, 21, 12, 22 switches every time.
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [] /Count 0 >>")
        for (stream, first) in [(5, 10), (6, 20)] {
            let header = (0..<3).map { "\(first + $0) \($0 * 4) " }.joined()
            let body = (0..<3).map { "(\(first + $0))" }.joined(separator: " ")
            b.stream(stream, "/Type /ObjStm /N 3 /First \(header.utf8.count)", Array((header + body).utf8))
        }
        var compressed: [Int: (stream: Int, index: Int)] = [:]
        for k in 0..<3 { compressed[10 + k] = (5, k); compressed[20 + k] = (6, k) }
        b.finishWithXRefStream(number: 7, compressed: compressed)
        let file = try PDFFile(buffer: ByteBuffer(copying: b.bytes))
        file.maxResidentObjectStreamBytes = 0
        for number in [10, 20, 11, 21, 12, 22, 10, 22] {
            #expect(try file.object(number).string?.text == "\(number)")
        }
        #expect(file.residentObjectStreamBytes == 0)  // every stream's objects all parsed
    }
}
