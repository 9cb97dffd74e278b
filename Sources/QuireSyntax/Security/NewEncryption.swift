/// Encryption for a document that is about to be written: the standard security handler's
/// /Encrypt dictionary made from passwords and permissions (ISO 32000-2 §7.6.4), and the
/// handler that encrypts the strings and streams written with it.
///
/// Two methods, both AES: AES-256 with revision 6 (ISO 32000-2, the default), and AES-128
/// with revision 4 (PDF 1.6, for readers that predate AES-256). RC4 is never chosen as the
/// cipher of new encryption. Revision 4 still runs RC4 and MD5 inside its password
/// algorithms (Algorithms 3 and 5 compute /O and /U with them): the standard defines them
/// so, and every reader of revision 4 checks them that way.
///
/// Random bytes (the file key of revision 6, salts, IVs) come from the system's
/// cryptographic generator through swift-crypto; hashing and AES are swift-crypto's.
public struct NewEncryption: Sendable, Equatable {
    /// The cipher and revision.
    public enum Method: Sendable, Equatable {
        /// AES-256, /V 5 /R 6 (ISO 32000-2).
        case aes256
        /// AES-128, /V 4 /R 4 (PDF 1.6).
        case aes128
    }

    /// The permission bits of /P (Table 22): what a reader who opened the document with
    /// the user password may do. The owner password gives every permission.
    public struct Permissions: OptionSet, Sendable, Equatable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Bit 3: print.
        public static let print = Permissions(rawValue: 1 << 2)
        /// Bit 4: change the document otherwise than by the operations below.
        public static let modify = Permissions(rawValue: 1 << 3)
        /// Bit 5: copy or extract text and graphics.
        public static let copy = Permissions(rawValue: 1 << 4)
        /// Bit 6: add or change annotations, fill form fields.
        public static let annotate = Permissions(rawValue: 1 << 5)
        /// Bit 9: fill form fields (even without `annotate`).
        public static let fillForms = Permissions(rawValue: 1 << 8)
        /// Bit 10: extract text and graphics for accessibility.
        public static let extractForAccessibility = Permissions(rawValue: 1 << 9)
        /// Bit 11: assemble: insert, rotate, delete pages, make bookmarks and thumbnails.
        public static let assemble = Permissions(rawValue: 1 << 10)
        /// Bit 12: print at full quality.
        public static let printHighQuality = Permissions(rawValue: 1 << 11)

        /// Every permission.
        public static let all: Permissions = [.print, .modify, .copy, .annotate, .fillForms,
                                              .extractForAccessibility, .assemble, .printHighQuality]

        /// The value of /P: these bits, with the bits the standard reserves set as it
        /// requires (7, 8 and 13 to 32 set; 1 and 2 clear).
        public var pValue: Int32 {
            let reserved = Int32(bitPattern: 0xFFFF_F0C0)
            return reserved | (rawValue & Permissions.all.rawValue)
        }

        /// The permissions that a /P value grants.
        public init(pValue: Int32) {
            self.init(rawValue: pValue & Permissions.all.rawValue)
        }
    }

    public var method: Method
    /// The password that opens the document with `permissions`; empty: anyone can open it.
    public var userPassword: String
    /// The password that opens the document with every permission. Empty: the user
    /// password serves as the owner password too (as qpdf and pikepdf do).
    public var ownerPassword: String
    public var permissions: Permissions
    /// Whether the XMP metadata stream is encrypted too (/EncryptMetadata): false leaves it
    /// readable by indexers that do not have the password.
    public var encryptMetadata: Bool

    public init(method: Method = .aes256, userPassword: String = "", ownerPassword: String = "",
                permissions: Permissions = .all, encryptMetadata: Bool = true) {
        self.method = method
        self.userPassword = userPassword
        self.ownerPassword = ownerPassword
        self.permissions = permissions
        self.encryptMetadata = encryptMetadata
    }

    /// The owner password in effect: the user password when none is given.
    public var effectiveOwnerPassword: String { ownerPassword.isEmpty ? userPassword : ownerPassword }

    /// The longest password accepted, in UTF-8 bytes: revision 6 reads 127 bytes of a
    /// password (§7.6.4.3.3), revision 4 32 bytes of its PDFDocEncoding (Algorithm 2).
    public static let maxPasswordBytes = 127

    /// Checks the passwords: UTF-8 of at most ``maxPasswordBytes`` bytes (AES-256), or text
    /// that PDFDocEncoding holds, of at most 32 bytes (AES-128, whose algorithms take 32
    /// bytes of PDFDocEncoding). Throws `.invalidArgument` naming the password.
    public func validate() throws {
        for (name, password) in [("user", userPassword), ("owner", ownerPassword)] {
            switch method {
            case .aes256:
                guard password.utf8.count <= Self.maxPasswordBytes else {
                    throw PDFError(.invalidArgument, "the \(name) password is \(password.utf8.count) bytes of UTF-8; AES-256 (revision 6) reads at most \(Self.maxPasswordBytes)")
                }
            case .aes128:
                let encoded = Self.pdfDocEncoded(password)
                guard let encoded else {
                    throw PDFError(.invalidArgument, "the \(name) password has characters that PDFDocEncoding does not hold, which AES-128 (revision 4) passwords are written in; use AES-256")
                }
                guard encoded.count <= 32 else {
                    throw PDFError(.invalidArgument, "the \(name) password is \(encoded.count) bytes long; AES-128 (revision 4) reads at most 32 (use AES-256 for longer ones)")
                }
            }
        }
    }

    /// `text` in PDFDocEncoding, or nil when it has a character PDFDocEncoding lacks.
    static func pdfDocEncoded(_ text: String) -> [UInt8]? {
        let encoded = TextString.encode(text)
        if encoded.count >= 2 && encoded[0] == 0xFE && encoded[1] == 0xFF { return nil }
        return encoded
    }

    /// The password bytes of `password` for this method: UTF-8 cut to 127 bytes (revision
    /// 6), PDFDocEncoding (revision 4).
    func passwordBytes(_ password: String) -> [UInt8] {
        switch method {
        case .aes256: return Array(Array(password.utf8).prefix(Self.maxPasswordBytes))
        case .aes128: return Self.pdfDocEncoded(password) ?? Array(password.utf8)
        }
    }

    /// The /Encrypt dictionary for a document whose /ID begins with `documentID`, and the
    /// handler that encrypts with it (authenticated with the owner password).
    ///
    /// The dictionary is checked by reading it back: the handler returned is the one the
    /// standard security handler builds from the dictionary and the owner password, and
    /// the user password must open it too, so what is written is what readers will read.
    public func makeHandler(documentID: [UInt8]) throws -> (dictionary: PDFDictionary, handler: StandardSecurityHandler) {
        try validate()
        let user = passwordBytes(userPassword)
        let owner = passwordBytes(effectiveOwnerPassword)
        let p = permissions.pValue
        var dict = PDFDictionary()
        dict["Filter"] = .name("Standard")
        func string(_ bytes: [UInt8]) -> PDFObject { .string(PDFString(bytes: bytes, isHex: true)) }
        switch method {
        case .aes256:
            let fileKey = CryptoPrimitives.randomBytes(32)
            let userValidationSalt = CryptoPrimitives.randomBytes(8), userKeySalt = CryptoPrimitives.randomBytes(8)
            // Algorithm 8: /U and /UE.
            let u = StandardSecurityHandler.hardenedHash(user, salt: userValidationSalt, userKey: []) + userValidationSalt + userKeySalt
            let userKey = StandardSecurityHandler.hardenedHash(user, salt: userKeySalt, userKey: [])
            // Algorithm 9: /O and /OE, over the 48 bytes of /U.
            let ownerValidationSalt = CryptoPrimitives.randomBytes(8), ownerKeySalt = CryptoPrimitives.randomBytes(8)
            let o = StandardSecurityHandler.hardenedHash(owner, salt: ownerValidationSalt, userKey: u) + ownerValidationSalt + ownerKeySalt
            let ownerKey = StandardSecurityHandler.hardenedHash(owner, salt: ownerKeySalt, userKey: u)
            let zeroIV = [UInt8](repeating: 0, count: 16)
            // Algorithm 10: /Perms, the permissions encrypted with the file key.
            let bits = UInt32(bitPattern: p)
            var perms: [UInt8] = [UInt8(truncatingIfNeeded: bits), UInt8(truncatingIfNeeded: bits >> 8),
                                  UInt8(truncatingIfNeeded: bits >> 16), UInt8(truncatingIfNeeded: bits >> 24),
                                  0xFF, 0xFF, 0xFF, 0xFF, encryptMetadata ? 0x54 : 0x46, 0x61, 0x64, 0x62]
            perms += CryptoPrimitives.randomBytes(4)
            guard let ue = CryptoPrimitives.aesCBCEncryptNoPadding(key: userKey, iv: zeroIV, fileKey),
                  let oe = CryptoPrimitives.aesCBCEncryptNoPadding(key: ownerKey, iv: zeroIV, fileKey),
                  let permsValue = CryptoPrimitives.aesECBEncrypt(key: fileKey, perms) else {
                throw PDFError(.internal, "AES-256 key wrapping failed")
            }
            dict["V"] = .integer(5)
            dict["R"] = .integer(6)
            dict["Length"] = .integer(256)
            dict["CF"] = .dictionary(PDFDictionary([("StdCF", .dictionary(PDFDictionary([
                ("AuthEvent", .name("DocOpen")), ("CFM", .name("AESV3")), ("Length", .integer(32)),
            ])))]))
            dict["StmF"] = .name("StdCF")
            dict["StrF"] = .name("StdCF")
            dict["O"] = string(o)
            dict["U"] = string(u)
            dict["OE"] = string(oe)
            dict["UE"] = string(ue)
            dict["P"] = .integer(Int64(p))
            dict["Perms"] = string(permsValue)
        case .aes128:
            var parameters = StandardSecurityHandler.Parameters(
                revision: 4, o: [], u: [], oe: nil, ue: nil, permissions: p, documentID: documentID,
                encryptMetadata: encryptMetadata, keyLength: 16)
            // Algorithm 3: /O, the padded user password encrypted with a key from the owner
            // password (the inverse of Algorithm 7, which the handler reads it with).
            var h = CryptoPrimitives.md5(StandardSecurityHandler.padded(owner))
            for _ in 0..<50 { h = CryptoPrimitives.md5(h) }
            let ownerKey = Array(h.prefix(16))
            var o = StandardSecurityHandler.padded(user)
            for i in 0...19 { o = RC4.crypt(key: ownerKey.map { $0 ^ UInt8(i) }, o) }
            parameters.o = o
            // Algorithm 2: the file key; Algorithm 5: /U.
            let fileKey = StandardSecurityHandler.legacyFileKey(parameters, paddedPassword: StandardSecurityHandler.padded(user))
            var x = RC4.crypt(key: fileKey, CryptoPrimitives.md5(StandardSecurityHandler.padding + documentID))
            for i in 1...19 { x = RC4.crypt(key: fileKey.map { $0 ^ UInt8(i) }, x) }
            let u = x + CryptoPrimitives.randomBytes(16)
            dict["V"] = .integer(4)
            dict["R"] = .integer(4)
            dict["Length"] = .integer(128)
            dict["CF"] = .dictionary(PDFDictionary([("StdCF", .dictionary(PDFDictionary([
                ("AuthEvent", .name("DocOpen")), ("CFM", .name("AESV2")), ("Length", .integer(16)),
            ])))]))
            dict["StmF"] = .name("StdCF")
            dict["StrF"] = .name("StdCF")
            dict["O"] = string(o)
            dict["U"] = string(u)
            dict["P"] = .integer(Int64(p))
        }
        if !encryptMetadata { dict["EncryptMetadata"] = .bool(false) }
        // Read back as any reader will: the owner password must open it as the owner, and
        // the user password as a user.
        let handler = try StandardSecurityHandler(encryptDictionary: dict, documentID: documentID, password: owner)
        let asUser = try StandardSecurityHandler(encryptDictionary: dict, documentID: documentID, password: user)
        guard handler.authenticatedAsOwner, asUser.isAuthenticated, handler.fileKeyForDerivation == asUser.fileKeyForDerivation else {
            throw PDFError(.internal, "the new /Encrypt dictionary does not read back with its passwords")
        }
        return (dict, handler)
    }

    /// A new document identifier (the first and second elements of /ID, §14.4): 16
    /// random bytes.
    public static func newDocumentID() -> [UInt8] { CryptoPrimitives.randomBytes(16) }
}

extension StandardSecurityHandler {
    /// Whether `password` is this document's owner password: checked against the same
    /// /Encrypt dictionary, whatever password opened the document.
    public static func isOwnerPassword(_ password: [UInt8], encryptDictionary: PDFDictionary, documentID: [UInt8]) -> Bool {
        guard let handler = try? StandardSecurityHandler(encryptDictionary: encryptDictionary, documentID: documentID,
                                                         password: password) else { return false }
        return handler.authenticatedAsOwner
    }
}
