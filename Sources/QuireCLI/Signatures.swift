// quire sign, quire verify: digital signatures (docs/signatures.md).
import FoundationEssentials
import QuireDocument
import QuireSignatures
import QuireSyntax
import X509

let signaturesHelp: [String: String] = [
    "sign": """
        usage: quire sign --key KEY [--cert CERTS] [--key-password PW] [--field NAME] [--page N --rect L,B,R,T]
                          [--pkcs7] [--digest sha256|sha384|sha512] [--certify 1|2|3] [--name N] [--reason R]
                          [--location L] [--invisible] [--password PW] FILE -o OUT

        Sign FILE and write the signed file to OUT: FILE's bytes unchanged, then one
        incremental update with the signature field, its appearance and the signature
        (PAdES B-B, ETSI.CAdES.detached, unless --pkcs7). The signature covers every byte
        of OUT but its own /Contents.

        Options:
          -o OUT             the file to write (required; may be FILE itself)
          --key KEY          the signer's private key: a PEM file (which may hold the
                             certificates too) or a PKCS#12 file (.p12, .pfx)
          --cert CERTS       a PEM file of the signer's certificate and its chain
          --key-password PW  the password of an encrypted PEM key or of the PKCS#12 file
          --field NAME       the signature field to sign (an existing unsigned one), or the
                             name of the new field
          --page N           the page of a new field, from 1 (default 1)
          --rect L,B,R,T     the rectangle of a new field in points; without it the
                             signature is invisible
          --invisible        no appearance on the page
          --pkcs7            adbe.pkcs7.detached instead of PAdES
          --digest D         sha256 (default), sha384 or sha512
          --certify P        a certification signature with DocMDP permission P: 1 no
                             change, 2 form filling and signing, 3 also annotations
          --name, --reason, --location  what the signature says
          --password PW      the user or owner password of an encrypted file
          -h, --help         print this help and exit

        Exit status:
          0 signed; 1 the file, the key or the signing failed; 2 a usage error
        """,
    "verify": """
        usage: quire verify [--json] [--trust PEM]... [--password PW] FILE

        Validate every signature of FILE: its integrity (the digest over /ByteRange), what
        it covers and what changed after it (allowed or not by its DocMDP permissions), its
        CMS signature, and its signer's chain to the trust roots at the signing time. One
        block per signature, then a summary line.

        Options:
          --trust PEM    a PEM file of trust root certificates (repeatable); without any,
                         no signer is trusted
          --json         print one JSON array instead, an object per signature: field,
                         signer, subfilter, valid, intact, signature_valid, trusted,
                         coverage, modification, pades, time, timestamp, problems
          --password PW  the user or owner password of an encrypted file
          -h, --help     print this help and exit

        Exit status:
          0 every signature is valid; 3 the file has a signature that is not valid, or
          none; 1 the file could not be read; 2 a usage error
        """,
]

/// The text of the file at `path`.
private func readFile(_ path: String) throws -> [UInt8] {
    try ByteBuffer.read(path: path).loadedCopy()
}

struct SignCommand {
    var file: FileArguments
    var output = ""
    var options: SigningOptions

    init(arguments: ArraySlice<String>) throws {
        var args = arguments
        var rest: [String] = []
        var key: String?, cert: String?, keyPassword: String?
        var field: String?, page = 1, rect: Rect?, pkcs7 = false, digest = DigestAlgorithm.sha256
        var certify: DocMDPPermission?, name: String?, reason: String?, location: String?, invisible = false
        func value(_ option: String) throws -> String {
            guard let v = args.popFirst() else { throw UsageError(message: "\(option) needs a value", command: "sign") }
            return v
        }
        while let arg = args.popFirst() {
            switch arg {
            case "-o": output = try value(arg)
            case "--key": key = try value(arg)
            case "--cert": cert = try value(arg)
            case "--key-password": keyPassword = try value(arg)
            case "--field": field = try value(arg)
            case "--page":
                guard let n = Int(try value(arg)), n >= 1 else { throw UsageError(message: "--page takes a page number from 1", command: "sign") }
                page = n
            case "--rect":
                let parts = try value(arg).split(separator: ",").compactMap { Double($0) }
                guard parts.count == 4, parts.allSatisfy(\.isFinite) else {
                    throw UsageError(message: "--rect takes four numbers L,B,R,T", command: "sign")
                }
                rect = Rect(left: parts[0], bottom: parts[1], right: parts[2], top: parts[3])
            case "--invisible": invisible = true
            case "--pkcs7": pkcs7 = true
            case "--digest":
                switch try value(arg).lowercased() {
                case "sha256": digest = .sha256
                case "sha384": digest = .sha384
                case "sha512": digest = .sha512
                default: throw UsageError(message: "--digest takes sha256, sha384 or sha512", command: "sign")
                }
            case "--certify":
                guard let p = Int(try value(arg)).flatMap(DocMDPPermission.init(rawValue:)) else {
                    throw UsageError(message: "--certify takes 1, 2 or 3", command: "sign")
                }
                certify = p
            case "--name": name = try value(arg)
            case "--reason": reason = try value(arg)
            case "--location": location = try value(arg)
            case "-h", "--help": throw HelpRequest(command: "sign")
            default: rest.append(arg)
            }
        }
        file = try FileArguments(arguments: rest[...], command: "sign", allowJSON: false)
        guard !output.isEmpty else { throw UsageError(message: "sign needs -o OUT", command: "sign") }
        guard let key else { throw UsageError(message: "sign needs --key KEY", command: "sign") }
        let keyBytes = try readFile(key)
        let identity: SigningIdentity
        do {
            if keyBytes.first == 0x30 {  // DER: a PKCS#12 file
                identity = try SigningIdentity(pkcs12: keyBytes, password: keyPassword ?? "")
            } else {
                let certs = try cert.map { String(decoding: try readFile($0), as: UTF8.self) }
                identity = try SigningIdentity(pem: String(decoding: keyBytes, as: UTF8.self), certificatesPEM: certs, password: keyPassword)
            }
        } catch let e as SignatureError {
            throw PDFError(.invalidArgument, e.description)
        }
        options = SigningOptions(identity: identity)
        options.fieldName = field
        options.page = page - 1
        options.rect = rect
        options.subFilter = pkcs7 ? .pkcs7 : .pades
        options.digest = digest
        options.certification = certify
        options.name = name
        options.reason = reason
        options.location = location
        options.look = invisible || (rect == nil && field == nil) ? .invisible : .text
    }

    func run() throws {
        let document = try file.open()
        try document.sign(options, to: output)
        print("signed: \(output)")
    }
}

struct VerifyCommand {
    var file: FileArguments
    var trust: [String] = []

    init(arguments: ArraySlice<String>) throws {
        var args = arguments
        var rest: [String] = []
        while let arg = args.popFirst() {
            switch arg {
            case "--trust":
                guard let v = args.popFirst() else { throw UsageError(message: "--trust needs a value", command: "verify") }
                trust.append(v)
            default: rest.append(arg)
            }
        }
        file = try FileArguments(arguments: rest[...], command: "verify", allowJSON: true)
    }

    func run() throws -> Int32 {
        var roots: [Certificate] = []
        for path in trust {
            do {
                roots += try SigningIdentity.certificates(pem: String(decoding: try readFile(path), as: UTF8.self))
            } catch let e as SignatureError {
                throw PDFError(.invalidArgument, "\(path): \(e.description)")
            }
        }
        let document = try file.open()
        let reports = try document.signatures(ValidationOptions(trustRoots: roots))
        if file.json {
            let items: [InstantJSONValue] = reports.map { r in
                .object([
                    "field": .string(r.fieldName),
                    "signer": r.signerName.map(InstantJSONValue.string) ?? .null,
                    "subfilter": r.subFilter.map(InstantJSONValue.string) ?? .null,
                    "valid": .bool(r.isValid),
                    "intact": .bool(r.intact),
                    "signature_valid": .bool(r.signatureValid),
                    "trusted": .bool(r.trusted),
                    "coverage": .string(r.coverage.rawValue),
                    "modification": r.modification.map { .string($0.name) } ?? .null,
                    "certification": r.certification.map { integer($0.rawValue) } ?? .null,
                    "pades": r.padesLevel.map(InstantJSONValue.string) ?? .null,
                    "time": r.claimedTime.map { .string(PDFDate(secondsSinceEpoch: Int($0.timeIntervalSince1970)).iso8601) } ?? .null,
                    "timestamp": r.timestamp.map { t in
                        .object(["time": .string(PDFDate(secondsSinceEpoch: Int(t.time.timeIntervalSince1970)).iso8601),
                                 "intact": .bool(t.intact), "trusted": .bool(t.trusted)])
                    } ?? .null,
                    "problems": .array(r.problems.map { .string($0.description) }),
                ])
            }
            print(InstantJSONValue.array(items).text)
        } else {
            for r in reports {
                print("\(r.fieldName): \(r.isValid ? "VALID" : "NOT VALID")")
                print("  signer: \(r.signerName ?? "(unknown)")  subfilter: \(r.subFilter ?? "(none)")"
                      + (r.padesLevel.map { "  PAdES \($0)" } ?? ""))
                if let t = r.claimedTime { print("  signed: \(PDFDate(secondsSinceEpoch: Int(t.timeIntervalSince1970)).iso8601)") }
                if let t = r.timestamp {
                    print("  time stamp: \(PDFDate(secondsSinceEpoch: Int(t.time.timeIntervalSince1970)).iso8601)"
                          + " (\(t.intact ? "intact" : "broken"), \(t.trusted ? "trusted" : "untrusted"))")
                }
                print("  intact: \(r.intact)  signature: \(r.signatureValid)  trusted: \(r.trusted)  coverage: \(r.coverage.rawValue)")
                if let c = r.certification { print("  certification: DocMDP P=\(c.rawValue)") }
                if let m = r.modification { print("  changed after signing: \(m)" + (r.changesAllowed ? " (allowed)" : " (not allowed)")) }
                for p in r.problems { print("  problem: \(p)") }
            }
            let valid = reports.filter(\.isValid).count
            print("\(reports.count) signature\(reports.count == 1 ? "" : "s"), \(valid) valid")
        }
        return !reports.isEmpty && reports.allSatisfy(\.isValid) ? 0 : 3
    }
}

extension ModificationKind {
    /// The JSON name of the kind.
    var name: String {
        switch self {
        case .validationData: return "validation_data"
        case .formFilling: return "form_filling"
        case .annotations: return "annotations"
        case .other: return "other"
        }
    }
}
