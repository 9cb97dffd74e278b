import QuireDocument
import QuireFuzzSupport
import QuireSignatures
import QuireSyntax
import Testing
#if canImport(Glibc)
import Glibc
#endif

// The fuzz target FuzzSignatures (Tests/fuzz/Targets/FuzzSignatures) runs
// Fuzzing.signatures: here the same function gets the inputs of Tests/fuzz/regressions/sig/
// and mutations of a real signature's CMS, so `swift test` covers it without libFuzzer.
// A run passes when the function returns: a trap would end the process.

@Suite("FuzzSignatures") struct FuzzSignaturesTests {
    /// Tests/fuzz/regressions/sig, from this file's path.
    static let directory: String = {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
        return path + "/Tests/fuzz/regressions/sig"
    }()

    static func inputs() -> [[UInt8]] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var out: [[UInt8]] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            guard !name.hasPrefix("."), let f = fopen(directory + "/" + name, "rb") else { continue }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = fread(&chunk, 1, chunk.count, f)
                if n <= 0 { break }
                bytes += chunk[0..<n]
            }
            fclose(f)
            out.append(bytes)
        }
        return out
    }

    @Test func regressionsReplay() {
        let inputs = Self.inputs()
        #expect(inputs.count >= 2, "\(Self.directory) is missing or empty")
        for bytes in inputs { Fuzzing.signatures(bytes) }
    }

    /// The file the target builds around a real CMS reaches the CMS reader: the signer is
    /// read, and the digest (over another document) is reported as not matching.
    @Test func theTargetReachesTheCMSReader() throws {
        let pki = try TestPKI()
        let signed = try Document(data: onePagePDF()).signed(SigningOptions(identity: try pki.identity()))
        let cms = try #require(try Self.contents(of: signed))
        let file = Fuzzing.signedFile(contents: cms)
        let report = try #require(try Document(data: file).signatures(ValidationOptions(trustRoots: [pki.root])).first)
        #expect(report.signerName == "Alice Signer")
        #expect(report.problems.contains(.digestMismatch), "\(report.problems)")
        #expect(report.byteRange.count == 4 && report.byteRange[0] == 0 && report.byteRange[2] + report.byteRange[3] == file.count)
        // The dictionary mode reaches the DocMDP reading: the file is certified with P=1.
        let certified = try Document(data: Fuzzing.signedFile(dictionary: Array("/ByteRange [0 1 2 3] /Contents <00> /Reference [<< /TransformMethod /DocMDP /TransformParams << /P 1 /V /1.2 >> >>]".utf8)))
        #expect(try certified.certification()?.permission == .noChanges)
        // Mutations of the real CMS: bytes changed, cut, extended.
        var rng = SystemRandomNumberGenerator()
        for trial in 0..<150 {
            var bytes = cms
            switch trial % 3 {
            case 0: for _ in 0..<Int.random(in: 1...8, using: &rng) { bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            case 1: bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &rng)))
            default: bytes.insert(contentsOf: (0..<Int.random(in: 1...16, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }, at: Int.random(in: 0..<bytes.count, using: &rng))
            }
            Fuzzing.signatures([0] + bytes)
        }
    }

    /// The bytes of the first signature's /Contents (its hex string decoded).
    static func contents(of file: [UInt8]) throws -> [UInt8]? {
        guard let r = try Document(data: file).signatures(ValidationOptions(trustRoots: [])).first, r.byteRange.count == 4 else { return nil }
        let hex = file[(r.byteRange[1] + 1)..<(r.byteRange[2] - 1)]
        var out: [UInt8] = []
        var i = hex.startIndex
        while i + 1 < hex.endIndex, let v = UInt8(String(decoding: hex[i..<(i + 2)], as: UTF8.self), radix: 16) {
            out.append(v)
            i += 2
        }
        // The DER SEQUENCE's own length, not the zeros that pad /Contents.
        guard out.count > 2 else { return nil }
        var length = Int(out[1]), header = 2
        if length & 0x80 != 0 {
            let n = length & 0x7F
            guard n > 0, n <= 4, out.count > 2 + n else { return nil }
            length = out[2..<(2 + n)].reduce(0) { $0 << 8 | Int($1) }
            header += n
        }
        return Array(out.prefix(header + length))
    }
}
