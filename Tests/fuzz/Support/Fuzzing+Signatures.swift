// Target (e), FuzzSignatures: the CMS of a signature and the signature dictionary, as
// validation reads them (issue 37). Shared with the Swift tests, which replay
// Tests/fuzz/regressions/sig/ and mutated real signatures through this very function.
import QuireDocument
import QuireSignatures

extension Fuzzing {
    /// The most input bytes used: a CMS blob larger than this is cut.
    public static let maxSignatureInput = 1 << 16

    /// Validates the signature of a one-page file built around `data`. The first byte picks
    /// what the rest is: even, the bytes of /Contents (a CMS SignedData, hostile) in a
    /// signature dictionary with an exact /ByteRange, so the CMS reader, the signed
    /// attributes, the certificates and the time-stamp token are reached; odd, PDF syntax
    /// spliced into the signature dictionary (its /ByteRange, /Contents, /SubFilter,
    /// /Reference, /M ...), in a file certified through /Perms /DocMDP, so the dictionary's
    /// reader, the range checks and the DocMDP rules are. Then the certification and the
    /// guard's view of it are read, and an annotation is tried against the guard.
    public static func signatures(_ data: [UInt8]) {
        guard let selector = data.first else { return }
        let rest = Array(data.dropFirst().prefix(maxSignatureInput))
        let pdf = selector & 1 == 0 ? signedFile(contents: rest) : signedFile(dictionary: rest)
        guard let document = try? Document(data: pdf, options: OpenOptions(limits: limits)) else { return }
        _ = try? document.signatures(ValidationOptions(trustRoots: []))
        _ = try? document.certification()
        _ = try? document.certificationBrokenByUnsavedChanges()
        var note = Annotation(subtype: "Text", pageIndex: 0, rect: Rect(left: 10, bottom: 10, right: 30, top: 30))
        note.contents = "fuzz"
        _ = try? document.addAnnotation(note)
        _ = try? document.certificationBrokenByUnsavedChanges()
    }

    /// A one-page file whose signature field's /V has `contents` as /Contents and a
    /// /ByteRange that leaves out exactly its hex string.
    public static func signedFile(contents: [UInt8]) -> [UInt8] {
        let hex = contents.map { b -> String in
            let s = String(b, radix: 16, uppercase: true)
            return s.count == 1 ? "0" + s : s
        }.joined()
        let placeholder = "[0 0000000000 0000000000 0000000000]"
        let sig = "<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached /ByteRange \(placeholder) "
            + "/Contents <\(hex)> /M (D:20250101000000Z) >>"
        var file = file(signature: Array(sig.utf8), certified: false)
        // The gap: from the '<' of /Contents to its '>'.
        guard let rangeAt = firstIndex(of: Array(placeholder.utf8), in: file),
              let open = firstIndex(of: Array("/Contents <".utf8), in: file) else { return file }
        let gapStart = open + "/Contents ".utf8.count
        let gapEnd = gapStart + hex.utf8.count + 2
        func ten(_ n: Int) -> String { let s = String(n); return String(repeating: "0", count: max(0, 10 - s.count)) + s }
        let filled = Array("[0 \(ten(gapStart)) \(ten(gapEnd)) \(ten(file.count - gapEnd))]".utf8)
        if filled.count == placeholder.utf8.count { file.replaceSubrange(rangeAt..<(rangeAt + filled.count), with: filled) }
        return file
    }

    /// A one-page file, certified through /Perms /DocMDP, whose signature dictionary is
    /// `<< /Type /Sig ` + `entries` + ` >>`.
    public static func signedFile(dictionary entries: [UInt8]) -> [UInt8] {
        file(signature: Array("<< /Type /Sig ".utf8) + entries + Array(" >>".utf8), certified: true)
    }

    /// Objects 1 to 5 (catalog, pages, page, signature field and widget, signature
    /// dictionary) with a cross-reference table of their true offsets.
    private static func file(signature: [UInt8], certified: Bool) -> [UInt8] {
        let perms = certified ? " /Perms << /DocMDP 5 0 R >>" : ""
        let objects: [[UInt8]] = [
            Array("<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] /SigFlags 3 >>\(perms) >>".utf8),
            Array("<< /Type /Pages /Kids [3 0 R] /Count 1 >>".utf8),
            Array("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Annots [4 0 R] >>".utf8),
            Array("<< /Type /Annot /Subtype /Widget /FT /Sig /T (Sig1) /Rect [0 0 0 0] /P 3 0 R /F 132 /V 5 0 R >>".utf8),
            signature,
        ]
        var out = Array("%PDF-1.7\n%\u{E2}\u{E3}\u{CF}\u{D3}\n".utf8)
        var offsets: [Int] = []
        for (i, body) in objects.enumerated() {
            offsets.append(out.count)
            out += Array("\(i + 1) 0 obj\n".utf8) + body + Array("\nendobj\n".utf8)
        }
        let xref = out.count
        var table = "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for o in offsets {
            let s = String(o)
            table += String(repeating: "0", count: max(0, 10 - s.count)) + s + " 00000 n \n"
        }
        table += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return out + Array(table.utf8)
    }

    private static func firstIndex(of needle: [UInt8], in hay: [UInt8]) -> Int? {
        guard !needle.isEmpty, hay.count >= needle.count else { return nil }
        for i in 0...(hay.count - needle.count) where hay[i] == needle[0] && hay[i..<(i + needle.count)].elementsEqual(needle) {
            return i
        }
        return nil
    }
}
