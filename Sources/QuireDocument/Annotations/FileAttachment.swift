import QuireSyntax

// FileAttachment annotations (ISO 32000-2 §12.5.6.15): a file embedded in the document
// (§7.11.4), shown on the page as an icon (/Name: PushPin, Paperclip, Graph or Tag).

extension Annotation {
    /// A file to attach to a FileAttachment annotation (``file``): stored in the document
    /// as an embedded file stream (Flate-compressed, with /Params /Size and /Subtype the
    /// media type) under a file specification (/FS: /F and /UF the name, /Desc the
    /// description) when the annotation is added or updated.
    public struct AttachedFile: Sendable, Equatable {
        /// The most bytes of one attached file (64 MiB).
        public static let maxBytes = 64 << 20
        /// The longest file name and description, in characters.
        public static let maxNameLength = 1024
        public static let maxDescriptionLength = 65_536

        public var bytes: [UInt8]
        /// The file's name (no directory), as viewers offer it when they save the file.
        public var name: String
        /// Its media type ("application/pdf"), or nil for none.
        public var contentType: String?
        /// A description shown by viewers, or nil.
        public var description: String?

        /// A file to attach, checked: `PDFError` `.invalidArgument` for an empty name, a
        /// name with a path separator or a NUL, a media type that is not type/subtype, a
        /// name or description past its limit; `.limit` past ``maxBytes``.
        public init(bytes: [UInt8], name: String, contentType: String? = nil, description: String? = nil) throws {
            guard bytes.count <= AttachedFile.maxBytes else {
                throw PDFError(.limit, "the file is \(bytes.count) bytes long (at most \(AttachedFile.maxBytes))")
            }
            if let problem = AttachedFile.nameProblem(name) {
                throw PDFError(.invalidArgument, "file name: \(problem)")
            }
            if let contentType, let problem = AttachedFile.contentTypeProblem(contentType) {
                throw PDFError(.invalidArgument, "content type: \(problem)")
            }
            if let description, description.count > AttachedFile.maxDescriptionLength {
                throw PDFError(
                    .invalidArgument,
                    "description: longer than \(AttachedFile.maxDescriptionLength) characters"
                )
            }
            self.bytes = bytes
            self.name = name
            self.contentType = contentType.flatMap { $0.isEmpty ? nil : $0.lowercased() }
            self.description = description
        }

        /// A file read from a document, as it is.
        init(unchecked bytes: [UInt8], name: String, contentType: String?, description: String?) {
            self.bytes = bytes
            self.name = name
            self.contentType = contentType
            self.description = description
        }

        /// What its file specification will say of it.
        var info: FileInfo {
            FileInfo(name: name, contentType: contentType, description: description, size: bytes.count)
        }

        /// Why `name` cannot be a file's name (empty, too long, a path separator or a
        /// NUL), or nil.
        public static func nameProblem(_ name: String) -> String? {
            if name.isEmpty { return "must not be empty" }
            if name.count > maxNameLength { return "longer than \(maxNameLength) characters" }
            if name.contains(where: { $0 == "/" || $0 == "\\" || $0 == "\0" }) {
                return "\"\(name.prefix(60))\" has a path separator or a NUL (give the file's name only)"
            }
            return nil
        }

        /// Why `type` is not a media type (type/subtype), or nil; empty is none.
        public static func contentTypeProblem(_ type: String) -> String? {
            if type.isEmpty { return nil }
            let parts = type.split(separator: "/", omittingEmptySubsequences: false)
            let token = { (s: Substring) in
                !s.isEmpty && s.utf8.count <= 127 && s.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != 0x2F }
            }
            return parts.count == 2 && token(parts[0]) && token(parts[1])
                ? nil : "\"\(type.prefix(60))\" is not a media type (type/subtype)"
        }
    }

    /// The icons of /Name for a FileAttachment (Table 187), which Quire draws.
    public static let fileAttachmentIcons = ["PushPin", "Paperclip", "Graph", "Tag"]
}

extension Document {
    /// Stores `file` as an embedded file stream and returns its file specification (/FS).
    func storeAttachedFile(_ file: Annotation.AttachedFile) throws -> PDFObject {
        var params = PDFDictionary([("Size", .integer(Int64(file.bytes.count)))])
        params["ModDate"] = .string(PDFString(text: PDFDate.now().description))
        var stream = PDFDictionary([("Type", .name("EmbeddedFile")), ("Filter", .name("FlateDecode"))])
        stream["Params"] = .dictionary(params)
        if let type = file.contentType { stream["Subtype"] = .name(PDFName(type)) }
        let data = try addStream(stream, data: try Filters.deflate(file.bytes))
        var spec = PDFDictionary([("Type", .name("Filespec"))])
        spec["F"] = .string(PDFString(text: file.name))
        spec["UF"] = .string(PDFString(text: file.name))
        if let d = file.description { spec["Desc"] = .string(PDFString(text: d)) }
        spec["EF"] = .dictionary(PDFDictionary([("F", .reference(data)), ("UF", .reference(data))]))
        return .reference(try addObject(.dictionary(spec)))
    }

    /// The file that FileAttachment annotation `id` holds (its /FS's embedded file: /UF,
    /// else /F), decoded, with its name, media type and description; nil when it has none
    /// (no /FS, or a file specification that refers to a file outside the document).
    /// Throws `PDFError(.limit)` for a file past ``Annotation/AttachedFile/maxBytes``
    /// decoded, and the stream's decoding errors.
    public func attachedFile(of id: ObjectID) throws -> Annotation.AttachedFile? {
        guard case .dictionary(let annotation) = try object(id.number),
            let spec = try dictionary(annotation["FS"]),
            let info = try fileSpecificationInfo(spec),
            let ef = try dictionary(spec["EF"])
        else { return nil }
        guard case .stream(let s) = try resolve(ef["UF"] ?? ef["F"] ?? .null) else { return nil }
        let bytes = try streamData(s, decoded: true)
        guard bytes.count <= Annotation.AttachedFile.maxBytes else {
            throw PDFError(
                .limit,
                "the attached file is \(bytes.count) bytes long (at most \(Annotation.AttachedFile.maxBytes))"
            )
        }
        return Annotation.AttachedFile(
            unchecked: bytes,
            name: info.name ?? "file",
            contentType: info.contentType,
            description: info.description
        )
    }

    /// What a file specification says of its file: the name (/UF, else /F, its last path
    /// component), the media type (/EF's stream's /Subtype), the description (/Desc) and
    /// the size (/Params /Size). Nil for a specification that is not a dictionary.
    func fileSpecificationInfo(_ spec: PDFDictionary) throws -> Annotation.FileInfo? {
        func text(_ key: PDFName) throws -> String? {
            guard case .string(let s) = try resolve(spec[key] ?? .null) else { return nil }
            return s.text
        }
        var info = Annotation.FileInfo()
        if let name = try text("UF") ?? text("F") {
            // A path's last component: /F may be a platform path (§7.11.2).
            let last =
                name.split(whereSeparator: { $0 == "/" || $0 == "\\" || $0 == ":" }).last.map(String.init) ?? name
            info.name = last.isEmpty ? nil : last
        }
        info.description = try text("Desc")
        if let ef = try dictionary(spec["EF"]), case .stream(let s) = try resolve(ef["UF"] ?? ef["F"] ?? .null) {
            info.contentType = try resolve(s.dictionary["Subtype"] ?? .null).name?.value
            if let params = try dictionary(s.dictionary["Params"]),
                let size = try resolve(params["Size"] ?? .null).integer, size >= 0
            {
                info.size = Int(clamping: size)
            }
        }
        return info
    }
}

extension Annotation {
    /// What a FileAttachment's file specification says of its file (read with the
    /// annotation; the bytes are ``Document/attachedFile(of:)``).
    public struct FileInfo: Sendable, Equatable {
        public var name: String?
        public var contentType: String?
        public var description: String?
        /// The size its /Params give, when they give one.
        public var size: Int?

        public init(name: String? = nil, contentType: String? = nil, description: String? = nil, size: Int? = nil) {
            self.name = name
            self.contentType = contentType
            self.description = description
            self.size = size
        }
    }
}
