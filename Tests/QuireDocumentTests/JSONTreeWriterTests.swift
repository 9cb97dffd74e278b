import FoundationEssentials
import QuireSyntax
import QuireTestSupport
import Testing

@testable import QuireDocument

/// The JSON writer of the annotation export (and of canonical records) against
/// `JSONEncoder`, whose bytes it replaces: the same bytes, pretty-printed and compact, on
/// random values and on the export of every annotated file of the corpus.
@Suite("JSON tree writer")
struct JSONTreeWriterTests {
    private func foundation<T: Encodable>(_ value: T, pretty: Bool) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    private func expectSame<T: Encodable>(
        _ value: T,
        _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for pretty in [false, true] {
            let expected = try foundation(value, pretty: pretty)
            let got = try JSONTreeWriter.encode(value, prettyPrinted: pretty)
            #expect(
                got == expected,
                "\(what), pretty \(pretty): \(String(decoding: got.prefix(300), as: UTF8.self)) vs \(String(decoding: expected.prefix(300), as: UTF8.self))",
                sourceLocation: sourceLocation
            )
        }
    }

    /// A random value: every scalar form (integers at the edges, doubles from random bit
    /// patterns, strings with every control character, quotes, slashes and non-ASCII),
    /// nested and empty containers, keys that sort differently by bytes and by number.
    private func randomValue(_ rng: inout SplitMix64, depth: Int) -> InstantJSONValue {
        let pick = Int.random(in: 0..<(depth > 4 ? 6 : 9), using: &rng)
        switch pick {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2:
            let edges: [Int64] = [0, -1, 1, Int64.max, Int64.min, 1 << 53, -(1 << 53) - 1]
            return .integer(
                Bool.random(using: &rng)
                    ? edges.randomElement(using: &rng) ?? 0 : Int64.random(in: -1_000_000...1_000_000, using: &rng)
            )
        case 3:
            var d = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng))
            if !d.isFinite { d = 0.1 }
            let picks: [Double] = [d, 0.5, -0.0, 1e-7, 1e16, 1e21, 100, 595.28, 1.0 / 3.0, 5e-324, 123456789012.5]
            return .number(picks.randomElement(using: &rng) ?? d)
        case 4, 5:
            let pieces = [
                "a", "\"", "\\", "/", "\n", "\r", "\t", "\u{8}", "\u{C}", "\u{0}", "\u{1F}", "\u{7F}", "é",
                "😀", "\u{2028}", "数据", " ", "<p>", "&amp;",
            ]
            let n = Int.random(in: 0...8, using: &rng)
            return .string((0..<n).map { _ in pieces.randomElement(using: &rng) ?? "" }.joined())
        case 6:
            let n = Int.random(in: 0...4, using: &rng)
            return .array((0..<n).map { _ in randomValue(&rng, depth: depth + 1) })
        default:
            let keys = ["a", "a1", "a10", "a2", "B", "Z", "_", "é", "ab", "", "k\"", "k\n", "annotations", "v"]
            var object: [String: InstantJSONValue] = [:]
            for _ in 0..<Int.random(in: 0...5, using: &rng) {
                object[keys.randomElement(using: &rng) ?? "a"] = randomValue(&rng, depth: depth + 1)
            }
            return .object(object)
        }
    }

    @Test func randomValuesWriteAsJSONEncoderWritesThem() throws {
        var rng = SplitMix64(seed: 20_261_128)
        for k in 0..<2_000 {
            try expectSame(randomValue(&rng, depth: 0), "value \(k)")
        }
    }

    @Test func canonicalTextIsJSONEncodersCompactForm() throws {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<300 {
            let value = randomValue(&rng, depth: 0)
            #expect(Array(value.canonicalText.utf8) == (try foundation(value, pretty: false)))
        }
    }

    @Test func nonFiniteNumbersAreRefusedAsJSONEncoderRefusesThem() {
        #expect(throws: (any Error).self) { try JSONTreeWriter.encode([Double.nan], prettyPrinted: false) }
        #expect(throws: (any Error).self) { try JSONTreeWriter.encode([Double.infinity], prettyPrinted: true) }
    }

    @Test(.enabled(if: corpusDirectory != nil, "needs ../shared/corpus"))
    func everyAnnotatedCorpusFileExportsTheSameBytes() throws {
        let corpus = try #require(corpusDirectory)
        let manifest = try #require(try FileSystem.read(corpus + "/manifest.jsonl"))
        var checked = 0
        for line in manifest.split(separator: UInt8(ascii: "\n")) {
            guard let entry = try? InstantJSONValue(parsing: Array(line)).objectValue,
                let consensus = entry["consensus"]?.objectValue,
                case .integer(let annotations)? = consensus["annots_total"], annotations > 0,
                consensus["is_encrypted"] != .bool(true),
                let path = entry["path"]?.stringValue
            else { continue }
            guard let doc = try? Document(path: corpus + "/" + path),
                let json = try? doc.annotationsInstantJSON(page: nil)
            else { continue }
            try expectSame(json, path)
            checked += 1
        }
        #expect(checked > 100)
    }
}
