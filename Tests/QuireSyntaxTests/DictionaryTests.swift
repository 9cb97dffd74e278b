import Testing
@testable import QuireSyntax
import QuireTestSupport

@Suite("PDFDictionary")
struct DictionaryTests {
    /// Past `indexThreshold` entries a dictionary keeps a hash index; every lookup, set,
    /// replacement and removal must give what a plain scan of the entries gives, in the
    /// same order, as the dictionary grows past the threshold and shrinks below it.
    @Test func indexAgreesWithAScanOfTheEntries() {
        var rng = SplitMix64(state: 7)
        var dict = PDFDictionary()
        var model: [(key: PDFName, value: PDFObject)] = []
        for step in 0..<20_000 {
            // Grow to about 60 keys, shrink to a few, and grow again.
            let phase = (step / 2_000) % 2 == 0
            let key = PDFName("K\(rng.next(60))")
            let value: PDFObject = rng.next(phase ? 5 : 2) == 0 ? .null : .integer(Int64(step))
            dict[key] = value
            if let i = model.firstIndex(where: { $0.key == key }) {
                if value == .null { model.remove(at: i) } else { model[i].value = value }
            } else if value != .null {
                model.append((key, value))
            }
            let probe = PDFName("K\(rng.next(64))")
            #expect(dict[probe] == model.first { $0.key == probe }?.value, "step \(step)")
            if step % 97 == 0 {
                #expect(dict.keys == model.map(\.key), "step \(step)")
                for (k, v) in model { #expect(dict[k] == v, "step \(step)") }
            }
        }
        #expect(dict == PDFDictionary(model.map { ($0.key, $0.value) }))
    }

    @Test func largeDictionariesFromEveryInitializer() {
        let n = 1_000
        let pairs = (0..<n).map { (PDFName("K\($0)"), PDFObject.integer(Int64($0))) }
        // A key given twice keeps its last value, in its first place; a null removes it.
        let withDuplicates = PDFDictionary(pairs + [(PDFName("K5"), .integer(-5)), (PDFName("K6"), .null)])
        #expect(withDuplicates.count == n - 1)
        #expect(withDuplicates["K5"] == .integer(-5) && withDuplicates["K6"] == nil)
        #expect(withDuplicates.keys.first(where: { $0 == "K5" }) != nil && withDuplicates.keys[5] == "K5")
        #expect(withDuplicates["K7"] == .integer(7) && withDuplicates.keys[6] == "K7")
        let parsed = PDFDictionary(uniqueEntries: pairs.map { (key: $0.0, value: $0.1) })
        #expect(parsed["K999"] == .integer(999) && parsed["K1000"] == nil)
        var copy = parsed
        copy["K0"] = nil
        #expect(copy["K999"] == .integer(999) && copy.keys.first == "K1" && copy.count == n - 1)
        #expect(parsed["K0"] == .integer(0))  // a value: the copy's change is its own
    }
}
