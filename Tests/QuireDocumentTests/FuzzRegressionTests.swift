import Testing
import QuireDocument
import QuireSyntax
import QuireFuzzSupport
#if canImport(Glibc)
import Glibc
#endif

// Every input that once made a fuzz target crash, hang or run out of memory is kept in
// Tests/fuzz/regressions/<target>/ (walk, edit, json) and replayed here through the very
// function that target runs (QuireFuzzSupport.Fuzzing). A test passes when the function
// returns: before the fix, the process trapped. Where the fix gives a result worth
// pinning, FuzzFindingTests below checks it too.

/// Tests/fuzz/regressions, from this file's path.
private let regressionsDirectory: String = {
    var path = #filePath
    for _ in 0..<3 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
    return path + "/Tests/fuzz/regressions"
}()

/// The files of one target's directory, sorted, with their bytes.
func inputs(_ target: String) -> [(name: String, bytes: [UInt8])] {
    let directory = regressionsDirectory + "/" + target
    guard let dir = opendir(directory) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        if !name.hasPrefix(".") && name != "README.md" { names.append(name) }
    }
    return names.sorted().compactMap { name in
        guard let f = fopen(directory + "/" + name, "rb") else { return nil }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return (name, bytes)
    }
}

@Suite("Fuzz regressions (Tests/fuzz/regressions)")
struct FuzzRegressionTests {
    @Test func directoriesAreThere() {
        // A moved directory would make the replays below pass vacuously.
        for target in ["walk", "edit", "json"] {
            #expect(opendir(regressionsDirectory + "/" + target).map { closedir($0); return true } ?? false,
                    "\(regressionsDirectory)/\(target) is missing")
        }
    }

    @Test func walk() {
        for (name, bytes) in inputs("walk") {
            _ = name
            Fuzzing.walk(bytes)
        }
    }

    @Test func edit() {
        for (name, bytes) in inputs("edit") {
            _ = name
            Fuzzing.edit(bytes)
            Fuzzing.walk(bytes)
        }
    }

    @Test func json() {
        for (name, bytes) in inputs("json") {
            _ = name
            Fuzzing.importJSON(bytes)
        }
    }
}

/// What the fixed code gives for the inputs of Tests/fuzz/regressions that have a result
/// worth pinning.
@Suite("Fuzz findings")
struct FuzzFindingTests {
    /// `regressions/edit/*`: a FreeText with a font size of 0 or nan in /DA, and a Stamp
    /// whose /Rect is ±1.7e308 wide (an infinite width), trapped in Int() while laying out
    /// the appearance of the changed annotation. They now update with an appearance.
    @Test func appearancesOfHostileGeometry() throws {
        for name in ["freetext-zero-font-size.pdf", "freetext-nan-font-size.pdf", "stamp-infinite-width.pdf"] {
            let bytes = try #require(inputs("edit").first { $0.name == name }?.bytes, "\(name) is missing")
            let doc = try Document(data: bytes)
            var a = try #require(try doc.annotations(onPage: 0).first)
            a.contents = "changed"
            try doc.updateAnnotation(a)
            let reread = try Document(data: try doc.saved(.incremental))
            let dict = try #require(try reread.annotations(onPage: 0).first?.id).number
            #expect(try reread.object(dict).dictionary?["AP"] != nil, "\(name)")
            #expect(try reread.annotations(onPage: 0).first?.contents == "changed")
            #expect(Fuzzing.edit(bytes) != nil)
        }
    }

    /// `regressions/walk/predictor-gigabyte-row.pdf`: /Columns 16777216 /Colors 32
    /// /BitsPerComponent 16 makes a PNG predictor row of 1 GiB; ten bytes of data allocated
    /// two such rows and looped over them (libFuzzer: timeout, and 2 GiB of memory). The
    /// data is one partial row: Up from zeros gives the bytes themselves.
    @Test func predictorRowLongerThanTheData() throws {
        let bytes = try #require(inputs("walk").first { $0.name == "predictor-gigabyte-row.pdf" }?.bytes)
        let doc = try Document(data: bytes)
        guard case .stream(let s) = try doc.object(4) else { Issue.record("not a stream"); return }
        #expect(try doc.streamData(s, decoded: true) == [1, 2, 3, 4, 5, 6, 7, 8, 9])
    }
}
