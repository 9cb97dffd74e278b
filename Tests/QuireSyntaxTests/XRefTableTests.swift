@testable import QuireSyntax
import Testing

/// The merged cross-reference's table (dense numbers in an array, far ones in a
/// dictionary) against a plain dictionary, on random mixes of sets, replacements and
/// removals over dense, far and negative numbers.
@Suite struct XRefTableTests {
    @Test func behavesAsADictionary() {
        var state: UInt64 = 99
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: state >> 33) % n
        }
        for round in 0..<20 {
            var table = XRefTable()
            var model: [Int: XRefEntry] = [:]
            for _ in 0..<2000 {
                let number: Int
                switch next(10) {
                case 0: number = 1 << 31 + next(1000)  // far past the others
                case 1: number = -1 - next(5)
                case 2: number = 4096 * (1 + next(40)) + next(10)  // just past the array
                default: number = next(round * 500 + 100)
                }
                let entry: XRefEntry? = switch next(6) {
                case 0: nil
                case 1: .free
                case 2: .compressed(stream: next(50), index: next(50))
                case 3: .inFile(offset: next(1 << 20), generation: next(3))
                default:  // what does not fit in 64 bits, and the edges of what does
                    [XRefEntry.inFile(offset: 1 << 46, generation: 0), .inFile(offset: (1 << 46) - 1, generation: 65535),
                     .inFile(offset: 5, generation: 65536), .inFile(offset: -1, generation: 0),
                     .compressed(stream: 1 << 31, index: 0), .compressed(stream: (1 << 31) - 1, index: (1 << 31) - 1),
                     .compressed(stream: 3, index: -2), .inFile(offset: Int.max, generation: Int.max)][next(8)]
                }
                table[number] = entry
                model[number] = entry
                #expect(table[number] == model[number])
            }
            #expect(table.count == model.count)
            for (number, entry) in model { #expect(table[number] == entry) }
            var seen: [Int: XRefEntry] = [:]
            table.forEach { seen[$0] = $1 }
            let same = seen == model
            #expect(same)
            let inUse = table.numbersInUse == model.filter { $0.value != .free }.keys.sorted()
            #expect(inUse)
            #expect(table.maxNumber == model.keys.max())
            var merged = table
            merged.mergeKeepingCurrent([(5, .free), (1 << 40, .free)])
            #expect(merged[5] == (model[5] ?? .free))
            #expect(merged[1 << 40] == .free)
            // A section merged under what is there, objects then free entries, as the
            // cross-reference chain merges one.
            var section: [(Int, XRefEntry)] = []
            for _ in 0..<500 {
                let number = next(3) == 0 ? next(1 << 20) : next(round * 700 + 200)
                section.append((number, next(3) == 0 ? .free : .inFile(offset: next(1000), generation: 0)))
            }
            var expected = model
            for free in [false, true] {
                for (number, entry) in section where (entry == .free) == free && expected[number] == nil { expected[number] = entry }
            }
            var table2 = table
            table2.mergeKeepingCurrent(section, free: false)
            table2.mergeKeepingCurrent(section, free: true)
            var seen2: [Int: XRefEntry] = [:]
            table2.forEach { seen2[$0] = $1 }
            let mergedSame = seen2 == expected && table2.count == expected.count
            #expect(mergedSame)
        }
        #expect(XRefTable([3: .free, 1 << 50: .free]).count == 2)
    }
}
