/// The standard security handler of ISO 32000-2 §7.6.4: password authentication, the file
/// encryption key, and the decryption and encryption of strings and streams.
///
/// Supported: /V 1 and 2 with /R 2 and 3 (RC4, 40 to 128-bit keys); /V 4 with /R 4 and crypt
/// filters (/CF, /StmF, /StrF, /EFF; /CFM /None, /V2 = RC4, /AESV2 = AES-128-CBC); /V 5 with
/// /R 5 (Adobe's extension level 3) and /R 6 (ISO 32000-2, the hardened hash of algorithm
/// 2.B), /CFM /AESV3 = AES-256-CBC; the /Identity crypt filter and /EncryptMetadata false.
///
/// A password is tried as the user password, then as the owner password. For /R 2 to 4 it
/// is PDFDocEncoding bytes (a UTF-8 password that is not ASCII is also tried converted to
/// PDFDocEncoding); for /R 5 and 6 it is UTF-8, truncated to 127 bytes. SASLprep (RFC 4013),
/// which ISO 32000-2 asks for before that, is not applied: it only changes passwords with
/// unusual Unicode (mapped-to-nothing characters, compatibility forms), which writers
/// rarely produce; qpdf and pdf.js skip it too.
///
/// Malformed encrypted data never traps: AES data of a length that is not a whole number of
/// blocks is decrypted as far as its whole blocks go, bad padding is kept, and data shorter
/// than an IV is returned as it is.
///
/// Immutable once built, hence `Sendable`.
public final class StandardSecurityHandler: Sendable {
    /// How a crypt filter transforms data.
    enum Method: Equatable, Sendable {
        case identity
        case rc4
        case aes128
        case aes256
        /// A /CFM that Quire does not know; an error only when a filter using it is applied.
        case unknown(String)
    }

    /// A crypt filter (§7.6.6): its method and whether it needs the document key at open.
    struct CryptFilter: Sendable {
        var method: Method
        /// /Length of the filter in bits, if given.
        var lengthBits: Int?
        /// /AuthEvent /EFOpen: only embedded files use the filter, and the password is
        /// asked for when one is opened.
        var onEmbeddedFileOpen = false

        static let identity = CryptFilter(method: .identity)
    }

    /// The /V entry: the algorithm.
    public let version: Int
    /// The /R entry: the revision of the standard security handler.
    public let revision: Int
    /// The /P entry: the user access permissions (Table 22), as a signed 32-bit value.
    public let permissions: Int32
    /// Whether the password given is the owner password.
    public let authenticatedAsOwner: Bool
    /// Whether a password opened the document. False only for a document whose strings
    /// and streams are not encrypted (/StmF and /StrF /Identity) and whose embedded files
    /// are (/EFF with /AuthEvent /EFOpen), opened with a password that is not its own:
    /// its embedded files then cannot be decrypted.
    public let isAuthenticated: Bool
    /// The /EncryptMetadata entry (default true): whether the metadata stream is encrypted.
    public let encryptMetadata: Bool
    /// The method of streams (of strings if streams are not encrypted): "RC4-40",
    /// "RC4-128" (RC4 with the key length in bits), "AES-128", "AES-256", or "none".
    public let method: String
    /// The length of the file encryption key in bytes.
    public let keyLength: Int
    /// The /EFF crypt filter, for embedded file streams (/V 4 and 5); nil for /V 1 and 2,
    /// where embedded files use the stream method.
    public let embeddedFileFilter: PDFName?

    private let fileKey: [UInt8]?
    var fileKeyForDerivation: [UInt8]? { fileKey }
    private let streamFilter: CryptFilter
    private let stringFilter: CryptFilter
    private let filters: [String: CryptFilter]

    /// The padding string of Algorithm 2, step (a).
    static let padding: [UInt8] = [
        0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
        0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A,
    ]

    /// The entries of the encryption dictionary that key derivation uses.
    struct Parameters {
        var revision: Int
        /// /O and /U, padded with zeros or cut to 32 (/R 2–4) or 48 (/R 5–6) bytes.
        var o: [UInt8]
        var u: [UInt8]
        var oe: [UInt8]?
        var ue: [UInt8]?
        var permissions: Int32
        var documentID: [UInt8]
        var encryptMetadata: Bool
        /// The key length in bytes (/R 2–4).
        var keyLength: Int
    }

    /// Builds the handler and authenticates `password`.
    ///
    /// - Parameters:
    ///   - encryptDictionary: the /Encrypt dictionary, with its values resolved (its /CF
    ///     and the filters in it as direct dictionaries).
    ///   - documentID: the first element of the trailer's /ID; empty when there is none.
    ///   - password: the user or owner password; empty for none.
    /// - Throws: ``PDFErrorKind/password`` if the password opens neither as the user nor as
    ///   the owner password; ``PDFErrorKind/unsupported`` for another security handler
    ///   than /Standard, or a /V, /R or crypt filter method that is not supported.
    public init(encryptDictionary dict: PDFDictionary, documentID: [UInt8], password: [UInt8]) throws {
        let handlerName = dict["Filter"]?.name?.value ?? "Standard"
        guard handlerName == "Standard" else {
            throw PDFError(.unsupported, "the document is encrypted with the security handler /\(handlerName); only the standard security handler (/Standard) is supported")
        }
        let v = Int(clamping: dict["V"]?.integer ?? 0)
        let r = Int(clamping: dict["R"]?.integer ?? 0)
        guard [0, 1, 2, 4, 5].contains(v) else {
            throw PDFError(.unsupported, "encryption algorithm /V \(v) of the standard security handler is not supported (1, 2, 4 and 5 are)")
        }
        guard (2...6).contains(r) else {
            throw PDFError(.unsupported, "revision /R \(r) of the standard security handler is not supported (2 to 6 are)")
        }
        guard v != 5 || r >= 5 else {
            throw PDFError(.unsupported, "encryption algorithm /V 5 with revision /R \(r) is not supported (/V 5 needs /R 5 or 6)")
        }
        version = v
        revision = r
        // /P is a 32-bit field; some writers write it unsigned (4294967292 for -4).
        let permissions = Int32(truncatingIfNeeded: dict["P"]?.integer ?? 0)
        self.permissions = permissions
        var encryptMetadata = true
        if case .bool(let b)? = dict["EncryptMetadata"] { encryptMetadata = b }
        self.encryptMetadata = encryptMetadata

        // Crypt filters (§7.6.6). Before /V 4, strings and streams are RC4.
        var filters: [String: CryptFilter] = [:]
        var streamFilter: CryptFilter
        var stringFilter: CryptFilter
        if v >= 4 {
            if let cf = dict["CF"]?.dictionary {
                for (name, value) in cf {
                    guard let d = value.dictionary else { continue }
                    let cfm = d["CFM"]?.name?.value ?? "None"
                    let method: Method
                    switch cfm {
                    case "None", "Identity": method = .identity
                    case "V2": method = .rc4
                    case "AESV2": method = .aes128
                    case "AESV3": method = .aes256
                    default: method = .unknown(cfm)
                    }
                    filters[name.value] = CryptFilter(method: method,
                                                      lengthBits: d["Length"]?.integer.map { Int(clamping: $0) },
                                                      onEmbeddedFileOpen: d["AuthEvent"]?.name?.value == "EFOpen")
                }
            }
            func lookup(_ key: PDFName) throws -> CryptFilter {
                let name = dict[key]?.name?.value ?? "Identity"
                if name == "Identity" { return .identity }
                guard let f = filters[name] else {
                    throw PDFError(.unsupported, "the crypt filter /\(name) named by /\(key.value) is not defined in the /Encrypt dictionary's /CF")
                }
                if case .unknown(let cfm) = f.method {
                    throw PDFError(.unsupported, "crypt filter method /\(cfm) (of the crypt filter /\(name)) is not supported")
                }
                return f
            }
            streamFilter = try lookup("StmF")
            stringFilter = try lookup("StrF")
            // /EFF defaults to /StmF. An unknown method there fails only when an embedded
            // file is decrypted: the document still opens.
            embeddedFileFilter = dict["EFF"]?.name ?? dict["StmF"]?.name ?? "Identity"
        } else {
            streamFilter = CryptFilter(method: .rc4)
            stringFilter = streamFilter
            embeddedFileFilter = nil
        }

        // The key length in bytes: 32 for /R 5 and 6; else from /Length (§7.6.4.2, Table 21)
        // or, for /V 4, from the crypt filter. Lengths of a crypt filter under 40 are in
        // bytes (PDF 1.6 said bytes, PDF 2.0 says bits; PDFium reads both the same way).
        var keyLengths: [Int]
        if r >= 5 {
            keyLengths = [32]
        } else if r == 2 {
            keyLengths = [5]
        } else {
            func clampBits(_ bits: Int) -> Int { Swift.max(40, Swift.min(128, bits)) / 8 }
            if v >= 4 {
                let used = [streamFilter, stringFilter].first { $0.method != .identity }
                    ?? (dict["EFF"]?.name).flatMap { filters[$0.value] }
                if used?.method == .aes128 {
                    keyLengths = [16]
                } else if let bits = used?.lengthBits {
                    // Bytes below 40 (some writers), bits otherwise; clamped first, so that
                    // a /Length near Int.min cannot overflow the product.
                    let b = Swift.max(0, Swift.min(bits, 4096))
                    keyLengths = [clampBits(b < 40 ? b * 8 : b)]
                } else if let bits = dict["Length"]?.integer, (40...128).contains(bits) {
                    keyLengths = [Int(bits) / 8]
                } else {
                    keyLengths = [16]
                }
            } else if let bits = dict["Length"]?.integer, (40...128).contains(bits), bits % 8 == 0 {
                keyLengths = [Int(bits) / 8]
            } else {
                // /Length missing or invalid: the default 40 bits, then 128, as qpdf manages.
                keyLengths = [5, 16]
            }
        }
        if r < 5 && (streamFilter.method == .aes256 || stringFilter.method == .aes256) {
            throw PDFError(.unsupported, "crypt filter method /AESV3 needs revision /R 5 or 6, not \(r)")
        }
        self.streamFilter = streamFilter
        self.stringFilter = stringFilter
        self.filters = filters

        let methodFilter = streamFilter.method != .identity ? streamFilter : stringFilter
        func describe(_ m: Method, _ bytes: Int) -> String {
            switch m {
            case .identity: return "none"
            case .rc4: return "RC4-\(bytes * 8)"
            case .aes128: return "AES-128"
            case .aes256: return "AES-256"
            case .unknown(let name): return name
            }
        }

        // Authentication: each candidate form of the password, as user then as owner.
        let length = r >= 5 ? 48 : 32
        func fixed(_ key: PDFName, _ count: Int) -> [UInt8] {
            let b = dict[key]?.string?.bytes ?? []
            return b.count >= count ? Array(b.prefix(count)) : b + [UInt8](repeating: 0, count: count - b.count)
        }
        var parameters = Parameters(revision: r, o: fixed("O", length), u: fixed("U", length),
                                    oe: dict["OE"]?.string?.bytes, ue: dict["UE"]?.string?.bytes,
                                    permissions: permissions, documentID: documentID,
                                    encryptMetadata: encryptMetadata, keyLength: keyLengths[0])
        let candidates = StandardSecurityHandler.passwordCandidates(password, revision: r)
        var result: (key: [UInt8], owner: Bool)? = nil
        search: for n in keyLengths {
            parameters.keyLength = n
            for pw in candidates {
                if let key = StandardSecurityHandler.authenticateUser(parameters, pw) {
                    result = (key, StandardSecurityHandler.authenticateOwner(parameters, pw) != nil)
                    break search
                }
            }
            for pw in candidates {
                if let key = StandardSecurityHandler.authenticateOwner(parameters, pw) {
                    result = (key, true)
                    break search
                }
            }
        }
        if let result {
            fileKey = result.key
            authenticatedAsOwner = result.owner
            isAuthenticated = true
            keyLength = result.key.count
        } else if v >= 4 && streamFilter.method == .identity && stringFilter.method == .identity {
            // Only embedded files are encrypted (/AuthEvent /EFOpen): the document opens
            // without the password, as in PDFium; its embedded files cannot be decrypted.
            fileKey = nil
            authenticatedAsOwner = false
            isAuthenticated = false
            keyLength = parameters.keyLength
        } else {
            let given = password.isEmpty ? "no password was given, and the empty password" : "the password given"
            throw PDFError(.password, "wrong password: \(given) is neither the user nor the owner password of this document (standard security handler, revision \(r), \(describe(methodFilter.method, keyLengths[0])))")
        }
        method = describe(methodFilter.method, keyLength)
    }

    // MARK: Decryption and encryption

    /// `bytes`, a string of indirect object `object`, decrypted with the string filter
    /// (/StrF). Malformed data is returned as far as it decrypts, never an error.
    public func decryptString(_ bytes: [UInt8], object: ObjectID) -> [UInt8] {
        (try? apply(stringFilter, bytes, object, encrypt: false)) ?? bytes
    }

    /// `bytes`, the raw data of stream `object`, decrypted. `cryptFilter` is the /Name of a
    /// /Crypt filter in the stream's own /DecodeParms (§7.4.10), or nil for the default
    /// stream filter (/StmF).
    /// - Throws: ``PDFErrorKind/unsupported`` for a crypt filter that the /Encrypt
    ///   dictionary does not define or whose method is unknown; ``PDFErrorKind/password``
    ///   for an embedded file when the document was opened without its password.
    public func decryptStream(_ bytes: [UInt8], object: ObjectID, cryptFilter: PDFName? = nil) throws -> [UInt8] {
        try apply(filter(cryptFilter), bytes, object, encrypt: false)
    }

    /// `bytes` encrypted as a string of indirect object `object` (/StrF): the inverse of
    /// ``decryptString(_:object:)``. AES output is a random IV followed by the ciphertext.
    public func encryptString(_ bytes: [UInt8], object: ObjectID) -> [UInt8] {
        (try? apply(stringFilter, bytes, object, encrypt: true)) ?? bytes
    }

    /// `bytes` encrypted as the data of stream `object`: the inverse of
    /// ``decryptStream(_:object:cryptFilter:)``.
    public func encryptStream(_ bytes: [UInt8], object: ObjectID, cryptFilter: PDFName? = nil) throws -> [UInt8] {
        try apply(filter(cryptFilter), bytes, object, encrypt: true)
    }

    private func filter(_ name: PDFName?) throws -> CryptFilter {
        guard let name else { return streamFilter }
        if name.value == "Identity" { return .identity }
        // Before /V 4 there are no named crypt filters: any name other than /Identity
        // means the default.
        guard version >= 4 else { return streamFilter }
        guard let f = filters[name.value] else {
            throw PDFError(.unsupported, "the crypt filter /\(name.value) is not defined in the /Encrypt dictionary's /CF")
        }
        return f
    }

    private func apply(_ filter: CryptFilter, _ bytes: [UInt8], _ id: ObjectID, encrypt: Bool) throws -> [UInt8] {
        if filter.method == .identity { return bytes }
        guard let fileKey else {
            throw PDFError(.password, "this data is encrypted with a crypt filter that needs the document's password, and the document was opened without it")
        }
        switch filter.method {
        case .identity:
            return bytes
        case .unknown(let name):
            throw PDFError(.unsupported, "crypt filter method /\(name) is not supported")
        case .rc4:
            return RC4.crypt(key: objectKey(fileKey, id, aes: false), bytes)
        case .aes128:
            let key = objectKey(fileKey, id, aes: true)
            return encrypt ? StandardSecurityHandler.aesEncrypt(key: key, bytes) : StandardSecurityHandler.aesDecrypt(key: key, bytes)
        case .aes256:
            return encrypt ? StandardSecurityHandler.aesEncrypt(key: fileKey, bytes) : StandardSecurityHandler.aesDecrypt(key: fileKey, bytes)
        }
    }

    /// Algorithm 1 (§7.6.3.3): the key of one object, for RC4 and AES-128.
    private func objectKey(_ fileKey: [UInt8], _ id: ObjectID, aes: Bool) -> [UInt8] {
        var input = fileKey
        let n = id.number, g = id.generation
        input += [UInt8(truncatingIfNeeded: n), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n >> 16),
                  UInt8(truncatingIfNeeded: g), UInt8(truncatingIfNeeded: g >> 8)]
        if aes { input += [0x73, 0x41, 0x6C, 0x54] }  // "sAlT"
        return Array(CryptoPrimitives.md5(input).prefix(Swift.min(fileKey.count + 5, 16)))
    }

    /// AES-CBC decryption of IV + ciphertext (§7.6.3.1). Tolerant like PDFium and qpdf: data
    /// shorter than the IV is returned as it is; a trailing partial block is dropped;
    /// padding is removed only when it is valid PKCS#7.
    static func aesDecrypt(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        guard data.count >= 16 else { return data }
        let iv = Array(data[0..<16])
        let whole = (data.count - 16) / 16 * 16
        guard whole > 0 else { return [] }
        guard var plain = CryptoPrimitives.aesCBCDecryptNoPadding(key: key, iv: iv, Array(data[16..<(16 + whole)])) else {
            return data
        }
        if let pad = plain.last, pad >= 1, pad <= 16, Int(pad) <= plain.count,
           plain[(plain.count - Int(pad))...].allSatisfy({ $0 == pad }) {
            plain.removeLast(Int(pad))
        }
        return plain
    }

    /// AES-CBC encryption with a random IV, which leads the output, and PKCS#7 padding.
    static func aesEncrypt(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        let iv = CryptoPrimitives.randomBytes(16)
        guard let body = CryptoPrimitives.aesCBCEncryptPadded(key: key, iv: iv, data) else { return data }
        return iv + body
    }

    // MARK: Authentication

    /// The forms of `password` to try: as given, and for /R 2–4 a non-ASCII UTF-8 password
    /// converted to PDFDocEncoding; for /R 5–6 a password that is not UTF-8 read as
    /// Latin-1 and converted to UTF-8. /R 5–6 passwords are cut to 127 bytes.
    static func passwordCandidates(_ password: [UInt8], revision: Int) -> [[UInt8]] {
        var list = [password]
        let utf8 = String(validating: password, as: UTF8.self)
        if revision >= 5 {
            if utf8 == nil {
                var scalars = String.UnicodeScalarView()
                for b in password { scalars.append(Unicode.Scalar(b)) }
                list.append(Array(String(scalars).utf8))
            }
            list = list.map { Array($0.prefix(127)) }
        } else if let text = utf8, password.contains(where: { $0 >= 0x80 }) {
            let encoded = TextString.encode(text)
            if !(encoded.count >= 2 && encoded[0] == 0xFE && encoded[1] == 0xFF) { list.append(encoded) }
        }
        return list
    }

    /// The password padded or cut to 32 bytes (Algorithm 2, step a).
    static func padded(_ password: [UInt8]) -> [UInt8] {
        let head = Array(password.prefix(32))
        return head + padding.prefix(32 - head.count)
    }

    /// The file key when `password` is the user password; nil otherwise.
    static func authenticateUser(_ p: Parameters, _ password: [UInt8]) -> [UInt8]? {
        if p.revision >= 5 {
            let salt = Array(p.u[32..<40]), keySalt = Array(p.u[40..<48])
            guard hash(p.revision, password, salt: salt, userKey: []) == Array(p.u[0..<32]) else { return nil }
            return unwrapKey(hash(p.revision, password, salt: keySalt, userKey: []), p.ue)
        }
        let key = legacyFileKey(p, paddedPassword: padded(password))
        return legacyUserMatches(p, key: key) ? key : nil
    }

    /// The file key when `password` is the owner password; nil otherwise.
    static func authenticateOwner(_ p: Parameters, _ password: [UInt8]) -> [UInt8]? {
        if p.revision >= 5 {
            let salt = Array(p.o[32..<40]), keySalt = Array(p.o[40..<48]), u = Array(p.u[0..<48])
            guard hash(p.revision, password, salt: salt, userKey: u) == Array(p.o[0..<32]) else { return nil }
            return unwrapKey(hash(p.revision, password, salt: keySalt, userKey: u), p.oe)
        }
        // Algorithm 7: the owner password decrypts /O into the padded user password.
        let userPassword = legacyUserPasswordFromOwner(p, ownerPassword: password)
        let key = legacyFileKey(p, paddedPassword: userPassword)
        return legacyUserMatches(p, key: key) ? key : nil
    }

    /// Algorithm 2 (§7.6.4.3.2): the file key of /R 2–4 from the padded user password.
    static func legacyFileKey(_ p: Parameters, paddedPassword: [UInt8]) -> [UInt8] {
        let bits = UInt32(bitPattern: p.permissions)
        var input = paddedPassword + p.o
        input += [UInt8(truncatingIfNeeded: bits), UInt8(truncatingIfNeeded: bits >> 8),
                  UInt8(truncatingIfNeeded: bits >> 16), UInt8(truncatingIfNeeded: bits >> 24)]
        input += p.documentID
        if p.revision >= 4 && !p.encryptMetadata { input += [0xFF, 0xFF, 0xFF, 0xFF] }
        var h = CryptoPrimitives.md5(input)
        let n = p.revision == 2 ? 5 : p.keyLength
        if p.revision >= 3 {
            for _ in 0..<50 { h = CryptoPrimitives.md5(Array(h.prefix(n))) }
        }
        return Array(h.prefix(n))
    }

    /// Algorithms 4 and 5 (§7.6.4.4.3–4): whether `key` reproduces /U.
    static func legacyUserMatches(_ p: Parameters, key: [UInt8]) -> Bool {
        if p.revision == 2 {
            return RC4.crypt(key: key, padding) == p.u
        }
        var x = RC4.crypt(key: key, CryptoPrimitives.md5(padding + p.documentID))
        for i in 1...19 {
            x = RC4.crypt(key: key.map { $0 ^ UInt8(i) }, x)
        }
        return x.prefix(16) == p.u.prefix(16)
    }

    /// Algorithm 7 (§7.6.4.4.6): the padded user password that /O holds, decrypted with a
    /// key from the owner password (Algorithm 3, steps a–d).
    static func legacyUserPasswordFromOwner(_ p: Parameters, ownerPassword: [UInt8]) -> [UInt8] {
        var h = CryptoPrimitives.md5(padded(ownerPassword))
        if p.revision >= 3 {
            for _ in 0..<50 { h = CryptoPrimitives.md5(h) }
        }
        let key = Array(h.prefix(p.revision == 2 ? 5 : p.keyLength))
        if p.revision == 2 { return RC4.crypt(key: key, p.o) }
        var x = p.o
        for i in stride(from: 19, through: 0, by: -1) {
            x = RC4.crypt(key: key.map { $0 ^ UInt8(i) }, x)
        }
        return x
    }

    /// The hash of /R 5 (SHA-256) or /R 6 (Algorithm 2.B).
    static func hash(_ revision: Int, _ password: [UInt8], salt: [UInt8], userKey: [UInt8]) -> [UInt8] {
        if revision == 5 { return CryptoPrimitives.sha256(password + salt + userKey) }
        return hardenedHash(password, salt: salt, userKey: userKey)
    }

    /// Algorithm 2.B (§7.6.4.3.4): the hash of /R 6.
    static func hardenedHash(_ password: [UInt8], salt: [UInt8], userKey: [UInt8]) -> [UInt8] {
        var k = CryptoPrimitives.sha256(password + salt + userKey)
        var round = 0
        while true {
            let block = password + k + userKey
            var k1: [UInt8] = []
            k1.reserveCapacity(block.count * 64)
            for _ in 0..<64 { k1 += block }
            // 64 copies: always a whole number of AES blocks.
            guard let e = CryptoPrimitives.aesCBCEncryptNoPadding(key: Array(k[0..<16]), iv: Array(k[16..<32]), k1),
                  let last = e.last else { break }
            // The first 16 bytes as a 128-bit big-endian number, modulo 3: as 256 ≡ 1 (mod
            // 3), that is the sum of the bytes modulo 3.
            switch e.prefix(16).reduce(0, { $0 + Int($1) }) % 3 {
            case 0: k = CryptoPrimitives.sha256(e)
            case 1: k = CryptoPrimitives.sha384(e)
            default: k = CryptoPrimitives.sha512(e)
            }
            round += 1
            // At least 64 rounds, then until the last byte of E is at most round - 32
            // (at most 288 rounds, since a byte is at most 255).
            if round >= 64 && Int(last) <= round - 32 { break }
        }
        return Array(k.prefix(32))
    }

    /// /OE or /UE decrypted with the intermediate key: AES-256, no padding, a zero IV.
    static func unwrapKey(_ intermediate: [UInt8], _ wrapped: [UInt8]?) -> [UInt8]? {
        guard let wrapped, wrapped.count >= 32 else { return nil }
        return CryptoPrimitives.aesCBCDecryptNoPadding(key: intermediate, iv: [UInt8](repeating: 0, count: 16),
                                                       Array(wrapped.prefix(32)))
    }
}
