import QuireSyntax

/// Images of image stamps (Instant JSON's `pspdfkit/image` with an attachment): JPEG kept
/// as it is (DCTDecode), PNG checked by decoding it and stored with Flate (its own IDAT data
/// with the PNG predictor when it has no alpha; colour and alpha re-compressed, the alpha
/// as an /SMask, when it has). Errors are ``PDFError``s of kind `.format` (not a JPEG or
/// PNG, a PNG whose data does not fill its size, a kind Quire does not read) or `.limit`.
public struct ImageAttachment: Sendable, Equatable {
    /// The most bytes of one attachment (16 MiB).
    public static let maxBytes = 16 << 20
    /// The most pixels of one image, and the widest or tallest.
    public static let maxPixels = 40_000_000
    public static let maxSide = 20_000

    public var width: Int
    public var height: Int
    /// 1 (gray) or 3 (RGB).
    public var components: Int
    /// The image XObject's data, as stored (encoded with `filter`).
    var data: [UInt8]
    var filter: PDFName
    var decodeParms: PDFDictionary?
    /// The alpha channel, Flate-encoded, 8 bits a pixel.
    var alpha: [UInt8]?

    /// The image of `bytes`, whose media type is `contentType` (image/jpeg or image/png).
    public static func read(_ bytes: [UInt8], contentType: String) throws -> ImageAttachment {
        guard bytes.count <= maxBytes else {
            throw PDFError(.limit, "the image is \(bytes.count) bytes long (at most \(maxBytes))")
        }
        switch contentType.lowercased() {
        case "image/jpeg", "image/jpg": return try jpeg(bytes)
        case "image/png": return try png(bytes)
        default: throw PDFError(.format, "images of type \"\(contentType.prefix(40))\" are not supported (image/jpeg or image/png)")
        }
    }

    static func checkSize(_ width: Int, _ height: Int, _ what: String) throws {
        guard width >= 1, height >= 1 else { throw PDFError(.format, "the \(what) has no pixels (\(width) × \(height))") }
        guard width <= maxSide, height <= maxSide, width * height <= maxPixels else {
            throw PDFError(.limit, "the \(what) is \(width) × \(height) pixels (at most \(maxSide) a side and \(maxPixels) in all)")
        }
    }

    /// A JPEG: its size and components from the SOF marker; the bytes stay as they are.
    static func jpeg(_ b: [UInt8]) throws -> ImageAttachment {
        func fail(_ m: String) -> PDFError { PDFError(.format, "the JPEG image \(m)") }
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { throw fail("does not start with the SOI marker") }
        var i = 2
        while i + 1 < b.count {
            guard b[i] == 0xFF else { throw fail("has no marker at byte \(i)") }
            var m = b[i + 1]
            i += 2
            while m == 0xFF, i < b.count { m = b[i]; i += 1 }  // fill bytes
            if m == 0x01 || (0xD0...0xD7).contains(m) { continue }
            if m == 0xD9 || m == 0xDA { throw fail("has no frame header (SOF) before its image data") }
            guard i + 1 < b.count else { break }
            let length = Int(b[i]) << 8 | Int(b[i + 1])
            guard length >= 2, i + length <= b.count else { throw fail("has a segment longer than the file") }
            if (0xC0...0xCF).contains(m) && m != 0xC4 && m != 0xC8 && m != 0xCC {
                guard length >= 8 else { throw fail("has a short frame header") }
                let precision = Int(b[i + 2])
                let height = Int(b[i + 3]) << 8 | Int(b[i + 4])
                let width = Int(b[i + 5]) << 8 | Int(b[i + 6])
                let components = Int(b[i + 7])
                guard precision == 8 else { throw fail("has \(precision)-bit samples (Quire reads 8)") }
                guard components == 1 || components == 3 else {
                    throw fail("has \(components) components (Quire reads gray and RGB JPEGs)")
                }
                try checkSize(width, height, "JPEG image")
                return ImageAttachment(width: width, height: height, components: components, data: b,
                                       filter: "DCTDecode", decodeParms: nil, alpha: nil)
            }
            i += length
        }
        throw fail("ends before its frame header (SOF)")
    }

    /// A PNG: 8-bit gray, gray with alpha, RGB or RGBA, not interlaced. Its data is decoded
    /// to check that it fills the size IHDR gives.
    static func png(_ b: [UInt8]) throws -> ImageAttachment {
        func fail(_ m: String) -> PDFError { PDFError(.format, "the PNG image \(m)") }
        guard b.count >= 8, Array(b[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else {
            throw fail("does not start with the PNG signature")
        }
        func u32(_ at: Int) -> Int { Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3]) }
        var i = 8
        var header: [UInt8]?
        var idat: [UInt8] = []
        var ended = false
        while i + 8 <= b.count {
            let length = u32(i)
            let type = String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)
            guard length <= b.count - i - 12 else { throw fail("has a \(type) chunk longer than the file") }
            let body = Array(b[(i + 8)..<(i + 8 + length)])
            if header == nil && type != "IHDR" { throw fail("does not start with IHDR") }
            switch type {
            case "IHDR": header = body
            case "IDAT": idat += body
            case "IEND": ended = true
            case "PLTE": break
            default: break
            }
            i += 12 + length
            if ended { break }
        }
        guard let h = header, h.count == 13 else { throw fail("has no valid IHDR chunk") }
        guard ended else { throw fail("has no IEND chunk (truncated)") }
        let width = Int(h[0]) << 24 | Int(h[1]) << 16 | Int(h[2]) << 8 | Int(h[3])
        let height = Int(h[4]) << 24 | Int(h[5]) << 16 | Int(h[6]) << 8 | Int(h[7])
        let depth = Int(h[8]), colorType = Int(h[9]), interlace = Int(h[12])
        try checkSize(width, height, "PNG image")
        let channels: Int
        switch colorType {
        case 0: channels = 1
        case 2: channels = 3
        case 4: channels = 2
        case 6: channels = 4
        case 3: throw fail("uses a palette (colour type 3), which Quire does not read: convert it to RGB")
        default: throw fail("has an unknown colour type \(colorType)")
        }
        guard depth == 8 else { throw fail("has \(depth)-bit samples (Quire reads 8-bit PNGs)") }
        guard interlace == 0 else { throw fail("is interlaced (Adam7), which Quire does not read") }
        guard h[10] == 0, h[11] == 0 else { throw fail("has an unknown compression or filter method") }
        let expected = (width * channels + 1) * height
        let budget = DecodeBudget(maxBytes: expected, maxRatio: Int.max / 2, bytesLimit: ("image_pixels", maxPixels))
        let inflated: [UInt8]
        do {
            inflated = try idat.withUnsafeBufferPointer { try Filters.inflate($0, budget: budget, warning: { _ in }) }
        } catch let e as PDFError where e.kind == .limit {
            throw fail("holds more data than its size (\(width) × \(height)) needs")
        }
        guard inflated.count == expected else {
            throw fail("holds \(inflated.count) bytes of pixels where its size (\(width) × \(height)) needs \(expected)")
        }
        let pixels = try Filters.unpredict(inflated, predictor: 15, colors: channels, bitsPerComponent: 8, columns: width)
        guard pixels.count == width * channels * height else { throw fail("has rows that do not decode") }
        if channels == 1 || channels == 3 {
            // Its own data, with the PNG predictor: nothing to re-encode.
            let parms = PDFDictionary([("Predictor", .integer(15)), ("Colors", .integer(Int64(channels))),
                                       ("BitsPerComponent", .integer(8)), ("Columns", .integer(Int64(width)))])
            return ImageAttachment(width: width, height: height, components: channels, data: idat,
                                   filter: "FlateDecode", decodeParms: parms, alpha: nil)
        }
        let colors = channels - 1
        var color = [UInt8](), alpha = [UInt8]()
        color.reserveCapacity(width * height * colors)
        alpha.reserveCapacity(width * height)
        var p = 0
        while p + channels <= pixels.count {
            color.append(contentsOf: pixels[p..<(p + colors)])
            alpha.append(pixels[p + colors])
            p += channels
        }
        return ImageAttachment(width: width, height: height, components: colors, data: try Filters.deflate(color),
                               filter: "FlateDecode", decodeParms: nil, alpha: try Filters.deflate(alpha))
    }
}

extension Document {
    /// The private entry of an image stamp: `/Image` (the image XObject), `/Data` (the
    /// attachment's bytes as imported, unfiltered) and `/ContentType`.
    static let imageKey: PDFName = "QuireImage"

    /// Stores `image` (from `bytes` of `contentType`) and returns the stamp's private entry.
    func addImage(_ image: ImageAttachment, bytes: [UInt8], contentType: String) throws -> PDFObject {
        var dict = PDFDictionary([
            ("Type", .name("XObject")), ("Subtype", .name("Image")),
            ("Width", .integer(Int64(image.width))), ("Height", .integer(Int64(image.height))),
            ("ColorSpace", .name(image.components == 1 ? "DeviceGray" : "DeviceRGB")),
            ("BitsPerComponent", .integer(8)), ("Filter", .name(image.filter)),
        ])
        if let parms = image.decodeParms { dict["DecodeParms"] = .dictionary(parms) }
        if let alpha = image.alpha {
            let mask = try addStream(PDFDictionary([
                ("Type", .name("XObject")), ("Subtype", .name("Image")),
                ("Width", .integer(Int64(image.width))), ("Height", .integer(Int64(image.height))),
                ("ColorSpace", .name("DeviceGray")), ("BitsPerComponent", .integer(8)), ("Filter", .name("FlateDecode")),
            ]), data: alpha)
            dict["SMask"] = .reference(mask)
        }
        let xobject = try addStream(dict, data: image.data)
        let data = try addStream(PDFDictionary(), data: bytes)
        return .dictionary(PDFDictionary([
            ("Image", .reference(xobject)), ("Data", .reference(data)),
            ("ContentType", .string(PDFString(text: contentType))),
        ]))
    }

    /// Stores a stamp's image (``Annotation/image``): the private entry its appearance is
    /// drawn from, and its JSON export gives back.
    func storeImage(_ image: Annotation.StampImage) throws -> PDFObject {
        try addImage(ImageAttachment.read(image.bytes, contentType: image.contentType), bytes: image.bytes,
                     contentType: image.contentType.lowercased() == "image/jpg" ? "image/jpeg" : image.contentType.lowercased())
    }

    /// The attachment of an image stamp (its bytes and content type), nil for other stamps.
    func imageAttachment(of id: ObjectID) throws -> (bytes: [UInt8], contentType: String)? {
        guard case .dictionary(let d) = try object(id.number), let entry = try dictionary(d[Document.imageKey]),
              case .reference(let dataID)? = entry["Data"], case .stream(let s) = try object(dataID.number),
              case .string(let type)? = try entry["ContentType"].map(resolve) else { return nil }
        return (try streamData(s, decoded: false), type.text)
    }
}
