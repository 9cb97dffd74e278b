import QuireSyntax

/// A change of a document's encryption, written by its next full save.
public enum EncryptionChange: Sendable, Equatable {
    /// Encrypt with these passwords and permissions (replacing any encryption it has).
    case encrypt(NewEncryption)
    /// Write the document without encryption.
    case decrypt
}

/// What a full save needs to write an encryption change: the trailer, the handler that
/// encrypts (nil: none) and the /Encrypt dictionary as an object of its own.
struct EncryptionPlan {
    var trailer: PDFDictionary
    var output: StandardSecurityHandler?
    /// The /Encrypt dictionary, under a number no object of the document has.
    var encryptObject: (number: Int, value: PDFObject)?
    /// The header version the encryption needs: 1.7 for AES-256 (Adobe's extension level 8,
    /// ISO 32000-2), 1.6 for AES-128.
    var minimumVersion: (Int, Int)
}

extension Document {
    // MARK: Encryption

    /// The encryption change the next full save writes; nil when there is none.
    public var pendingEncryptionChange: EncryptionChange? { pendingEncryption }

    /// Encrypts the document, changes its passwords and permissions, or (`nil`) removes
    /// its encryption, at the next save, which must be a full save: an incremental update
    /// cannot change a file's encryption (ISO 32000-2 §7.6: one /Encrypt dictionary, in the
    /// trailer, for every revision). An incremental save with a change pending throws
    /// `.state`. The change replaces any earlier pending one.
    ///
    /// - New encryption is AES: AES-256 (/V 5 /R 6) unless `encryption.method` asks for
    ///   AES-128 (/V 4 /R 4); never RC4.
    /// - A document that is encrypted changes only with its owner password: the password
    ///   it was opened with, when that is the owner password, or `ownerPassword`. A wrong
    ///   `ownerPassword` (or none, for a document opened with its user password) throws
    ///   `.password`, and nothing changes.
    /// - After the save, the document continues from the saved bytes, opened with the new
    ///   owner password (the user password when there is no owner password; none after
    ///   decryption). Checkpoints and incremental saves then work on the encrypted file.
    /// - Refused with `.state` for a synced document (``structureLockReason``), and with
    ///   `.invalidArgument` for a password that the method cannot hold
    ///   (``NewEncryption/validate()``).
    public func setEncryption(_ encryption: NewEncryption?, ownerPassword: String? = nil) throws {
        try checkStructureEditable("its encryption cannot change")
        try checkOwner(ownerPassword)
        if let encryption {
            try encryption.validate()
            pendingEncryption = .encrypt(encryption)
        } else {
            pendingEncryption = isEncrypted ? .decrypt : nil
        }
    }

    /// Drops a pending encryption change: the next save keeps the document's encryption.
    public func cancelEncryptionChange() {
        pendingEncryption = nil
    }

    /// Throws `.password` unless the caller may change this document's encryption: the
    /// document is not encrypted, or it was opened with its owner password (and
    /// `ownerPassword`, if given, is it too), or `ownerPassword` is its owner password.
    private func checkOwner(_ ownerPassword: String?) throws {
        guard isEncrypted, let security = file.security else { return }
        guard security.isAuthenticated else {
            throw PDFError(.password, "the document was opened without its password; its encryption cannot change")
        }
        if ownerPassword == nil && security.authenticatedAsOwner { return }
        guard let ownerPassword else {
            throw PDFError(.password, "the document was opened with its user password: changing or removing its encryption needs the owner password")
        }
        guard let dict = try encryptDictionary(),
              StandardSecurityHandler.isOwnerPassword(Array(ownerPassword.utf8), encryptDictionary: dict,
                                                      documentID: try identifierStrings().first ?? []) else {
            throw PDFError(.password, "wrong owner password: it does not open this document as its owner; nothing changed")
        }
    }

    /// The /Encrypt dictionary with its /CF filters resolved, as the security handler reads it.
    private func encryptDictionary() throws -> PDFDictionary? {
        guard let value = trailer["Encrypt"], var dict = try file.dictionary(value) else { return nil }
        if let cf = try file.dictionary(dict["CF"]) {
            var filters = PDFDictionary()
            for (name, f) in cf { filters[name] = try file.dictionary(f).map { .dictionary($0) } }
            dict["CF"] = .dictionary(filters)
        }
        return dict
    }

    /// The elements of the trailer's /ID that are strings, as bytes (direct or indirect),
    /// as the security handler reads them (``documentID`` wants exactly two).
    private func identifierStrings() throws -> [[UInt8]] {
        guard let ids = try trailer["ID"].map({ try file.object(for: $0) })?.array else { return [] }
        return try ids.compactMap { try file.object(for: $0).string?.bytes }
    }

    /// Throws `.state` when page operations and encryption changes are refused on this
    /// document (``structureLockReason``), saying `what` cannot be done.
    func checkStructureEditable(_ what: String) throws {
        if let reason = structureLockReason {
            throw PDFError(.state, "\(what): \(reason)")
        }
    }

    /// Throws `.state` when an encryption change is pending: only a full save writes it.
    func refuseIncrementalEncryptionChange() throws {
        guard pendingEncryption != nil else { return }
        throw PDFError(.state, "the document's encryption changes at the next save, which must be a full save: an incremental update keeps the encryption of the file it is appended to")
    }

    /// The trailer, handler and /Encrypt object of a full save that writes `change`.
    func encryptionPlan(_ change: EncryptionChange) throws -> EncryptionPlan {
        var trailer = PDFDictionary()
        for (key, value) in file.trailer where key != "Encrypt" && key != "ID" { trailer[key] = value }
        // /ID: the permanent identifier kept (it names the document), the second made anew
        // (§14.4: it changes with each version). Written direct.
        let existing = try identifierStrings()
        let permanent = existing.first.flatMap { $0.isEmpty ? nil : $0 } ?? NewEncryption.newDocumentID()
        trailer["ID"] = .array([.string(PDFString(bytes: permanent, isHex: true)),
                                .string(PDFString(bytes: NewEncryption.newDocumentID(), isHex: true))])
        switch change {
        case .decrypt:
            return EncryptionPlan(trailer: trailer, output: nil, encryptObject: nil, minimumVersion: (1, 0))
        case .encrypt(let settings):
            let (dict, handler) = try settings.makeHandler(documentID: permanent)
            let number = changes.nextNumber
            guard number <= options.limits.maxObjects else {
                throw PDFError(limit: "max_objects", options.limits.maxObjects, "the object number of the /Encrypt dictionary")
            }
            trailer["Encrypt"] = .reference(ObjectID(number, 0))
            return EncryptionPlan(trailer: trailer, output: handler, encryptObject: (number, .dictionary(dict)),
                                  minimumVersion: settings.method == .aes256 ? (1, 7) : (1, 6))
        }
    }
}
