import FoundationEssentials
import QuireDocument
import QuireSyntax
import X509

extension Document {
    /// The normal appearance of a signed widget of `rect`: a thin frame, the ink of the
    /// Signature tool's annotation when `options.look` names one (in the upper part), and
    /// lines of Helvetica saying who signed, when, why and where.
    func makeAppearance(_ options: SigningOptions, rect: Rect) throws -> ObjectID {
        let w = rect.width, h = rect.height
        var lines: [String] = []
        let name = options.name ?? options.identity.certificate.subject.commonName ?? "unknown signer"
        lines.append("Digitally signed by \(name)")
        let date = PDFDate(secondsSinceEpoch: Int(options.signingTime.timeIntervalSince1970.rounded(.down)))
        lines.append("Date: \(date.iso8601)")
        if let r = options.reason, !r.isEmpty { lines.append("Reason: \(r)") }
        if let l = options.location, !l.isEmpty { lines.append("Location: \(l)") }
        var content = "q 0 0 0 RG 0.5 w 0.25 0.25 \(num(w - 0.5)) \(num(h - 0.5)) re S Q\n"
        var resources = PDFDictionary()
        var textHeight = h
        if case .ink(let inkID) = options.look {
            guard let ink = try annotation(inkID), ink.subtype == "Ink" else {
                throw PDFError(.invalidArgument, "object \(inkID) is not an ink annotation")
            }
            guard let annot = try dictionary(.reference(inkID)), let ap = try dictionary(annot["AP"]),
                  let normal = ap["N"]?.reference, let form = try dictionary(.reference(normal)) else {
                throw PDFError(.invalidArgument, "the ink annotation \(inkID) has no normal appearance to sign with")
            }
            let bbox = try resolve(form["BBox"] ?? .null).array?.compactMap { try? resolve($0).number } ?? []
            guard bbox.count == 4 else { throw PDFError(.format, "the ink appearance has no /BBox") }
            let box = Rect(left: bbox[0], bottom: bbox[1], right: bbox[2], top: bbox[3])
            textHeight = h * 0.35
            let area = Rect(left: 2, bottom: textHeight, right: w - 2, top: h - 2)
            if box.width > 0 && box.height > 0 && area.width > 0 && area.height > 0 {
                let scale = Swift.min(area.width / box.width, area.height / box.height)
                let tx = area.left + (area.width - box.width * scale) / 2 - box.left * scale
                let ty = area.bottom + (area.height - box.height * scale) / 2 - box.bottom * scale
                content += "q \(num(scale)) 0 0 \(num(scale)) \(num(tx)) \(num(ty)) cm /Ink Do Q\n"
                resources["XObject"] = .dictionary(PDFDictionary([("Ink", .reference(normal))]))
            }
        }
        // The text: as large as fits, at most 10 points.
        let longest = lines.map(\.count).max() ?? 1
        var size = Swift.min(10, (textHeight - 4) / (Double(lines.count) * 1.2), (w - 6) / (Double(longest) * 0.55))
        size = Swift.max(size, 1)
        let font = PDFDictionary([("Type", .name("Font")), ("Subtype", .name("Type1")), ("BaseFont", .name("Helvetica")),
                                  ("Encoding", .name("WinAnsiEncoding"))])
        resources["Font"] = .dictionary(PDFDictionary([("Helv", .dictionary(font))]))
        var text: [UInt8] = Array("BT 0 g /Helv \(num(size)) Tf \(num(size * 1.2)) TL 3 \(num(textHeight - 2 - size)) Td\n".utf8)
        for (k, line) in lines.enumerated() {
            if k > 0 { text += Array("T* ".utf8) }
            Serializer.write(.string(PDFString(bytes: Self.winAnsi(line))), to: &text)
            text += Array(" Tj\n".utf8)
        }
        text += Array("ET\n".utf8)
        let data = Array(content.utf8) + text
        var dict = PDFDictionary()
        dict["Type"] = .name("XObject")
        dict["Subtype"] = .name("Form")
        dict["BBox"] = .array([.integer(0), .integer(0), .real(w), .real(h)])
        dict["Resources"] = .dictionary(resources)
        return try addStream(dict, data: data)
    }

    /// `text` in WinAnsiEncoding as far as Latin-1 goes (others become `?`).
    static func winAnsi(_ text: String) -> [UInt8] {
        text.unicodeScalars.map { $0.value < 256 && ($0.value >= 0x20 && $0.value < 0x7F || $0.value >= 0xA0) ? UInt8($0.value) : UInt8(ascii: "?") }
    }
}

/// A number for a content stream: at most 3 decimals, no exponent.
func num(_ v: Double) -> String {
    guard v.isFinite else { return "0" }
    let r = (v * 1000).rounded() / 1000
    if r == r.rounded() && abs(r) < 1e15 { return String(Int(r)) }
    var s = String(r)
    if s.contains("e") { s = String(Int(r)) }
    return s
}
