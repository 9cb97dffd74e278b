import Foundation
import QuireDocument
import QuireSyntax
import QuireTestSupport
import Testing

/// Lazy reading (issue 17, ByteBuffer's lazy buffers): a document read through 64-byte
/// blocks, so that nearly every parse runs past the bytes read and is run again, reads
/// exactly as the same bytes read whole; cut short, it reads as damage, never a trap.
@Suite struct LazyReadingTests {
    /// Every `step`-th corpus PDF (by sorted path) under 2 MB.
    static func corpusFiles(step: Int) -> [String] {
        guard let corpus = corpusDirectory,
              let enumerator = FileManager.default.enumerator(atPath: corpus) else { return [] }
        var paths: [String] = []
        while let next = enumerator.nextObject() as? String {
            guard next.lowercased().hasSuffix(".pdf") else { continue }
            let full = corpus + "/" + next
            if let size = (try? FileManager.default.attributesOfItem(atPath: full))?[.size] as? Int, size < 2 << 20 {
                paths.append(full)
            }
        }
        return paths.sorted().enumerated().filter { $0.offset % step == 0 }.map(\.element)
    }

    /// What a test compares: page count, repair, each page's annotations, the objects.
    static func summary(_ document: Document) -> String {
        var out = ""
        let pages = (try? document.pageCount()) ?? -1
        out += "pages \(pages) repaired \(document.isRepaired)\n"
        for k in 0..<Swift.min(Swift.max(pages, 0), 30) {
            let annotations = (try? document.annotations(onPage: k)) ?? []
            out += "\(k): " + annotations.map { "\($0.subtype) \($0.rect) \($0.contents ?? "")" }.joined(separator: "; ") + "\n"
        }
        for number in document.file.objectNumbers.prefix(300) {
            // In PDF syntax: a dictionary's description shows its hash index, whose order
            // differs between any two instances.
            let value = (try? document.object(number)).map { String(decoding: Serializer.bytes($0), as: UTF8.self) } ?? "error"
            var data = ""
            if case .stream(let s)? = try? document.object(number) {
                data = (try? document.streamData(s, decoded: false)).map { " data \($0.count) \($0.reduce(0) { ($1 &+ $0 &* 31) })" } ?? " data error"
            }
            out += "\(number) \(value)\(data)\n"
        }
        return out
    }

    @Test func corpusFilesReadTheSameThroughSmallBlocks() throws {
        let files = Self.corpusFiles(step: Int(ProcessInfo.processInfo.environment["QUIRE_LAZY_TEST_STEP"] ?? "") ?? 7)
        try #require(!files.isEmpty || corpusDirectory == nil)
        var differ: [String] = []
        for path in files {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let bytes = [UInt8](data)
            let eager = (try? Document(data: bytes)).map(Self.summary) ?? "unopened"
            let buffer = try ByteBuffer.lazy(MemorySource(bytes), size: bytes.count, blockShift: 6)
            let lazy = (try? Document(buffer: buffer)).map(Self.summary) ?? "unopened"
            if eager != lazy {
                differ.append(path)
                let e = eager.split(separator: "\n"), l = lazy.split(separator: "\n")
                if let k = (0..<Swift.min(e.count, l.count)).first(where: { e[$0] != l[$0] }) { let a = Array(e[k].utf8), b = Array(l[k].utf8); let c = (0..<Swift.min(a.count, b.count)).first(where: { a[$0] != b[$0] }) ?? 0; print("DIFF \(path)\n  eager: \(String(decoding: a[Swift.max(0, c - 200)..<Swift.min(a.count, c + 150)], as: UTF8.self))\n  lazy:  \(String(decoding: b[Swift.max(0, c - 200)..<Swift.min(b.count, c + 150)], as: UTF8.self))") }
                else { print("DIFF \(path) lengths \(e.count) \(l.count)") }
            }
        }
        #expect(differ.isEmpty, "read differently through 64-byte blocks: \(differ.prefix(10))")
    }

    @Test func aSourceCutShortAfterTheOpenReadsAsDamage() throws {
        for path in Self.corpusFiles(step: 61) {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let bytes = [UInt8](data)
            let eager = (try? Document(data: bytes)).map(Self.summary)
            for fraction in [0, 1, 2, 3] {
                let source = MemorySource(bytes)
                guard let buffer = try? ByteBuffer.lazy(source, size: bytes.count, blockShift: 8),
                      let document = try? Document(buffer: buffer) else { continue }
                source.available = bytes.count * fraction / 4
                let summary = Self.summary(document)
                _ = try? document.saved(.incremental)
                _ = try? document.saved(.full(objectStreams: false))
                // What differs from the whole file's reading is what could not be read.
                #expect(summary == eager || buffer.readError != nil, "\(path) cut at \(fraction)/4")
            }
        }
    }

    @Test func blocksAreReadOnceAndOnlyWhenAsked() throws {
        // A file with a large stream no call reads: opening and reading the page does not
        // read it.
        var builder = PDFBuilder()
        builder.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        builder.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        builder.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] /Resources << /XObject << /Im 4 0 R >> >> >>")
        builder.stream(4, "/Type /XObject /Subtype /Image /Width 1000 /Height 1000 /ColorSpace /DeviceGray /BitsPerComponent 8",
                       [UInt8](repeating: 7, count: 1_000_000))
        builder.finishWithTable()
        let source = MemorySource(builder.bytes)
        let buffer = try ByteBuffer.lazy(source, size: builder.bytes.count, blockShift: 12)
        let document = try Document(buffer: buffer)
        #expect(try document.pageCount() == 1)
        _ = try document.annotations(onPage: 0)
        _ = try document.object(4)  // the stream's dictionary, not its data
        #expect(source.asked < 64 << 10, "asked for \(source.asked) bytes")
        guard case .stream(let image) = try document.object(4) else {
            Issue.record("object 4 is not a stream")
            return
        }
        #expect(try document.streamData(image, decoded: false).count == 1_000_000)
        let afterData = source.asked
        #expect(afterData >= 1_000_000 && afterData < 1_000_000 + (128 << 10))
        _ = try document.streamData(image, decoded: false)
        #expect(source.asked == afterData)  // read once
    }
}
