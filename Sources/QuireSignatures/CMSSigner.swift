import FoundationEssentials
import QuireDocument
import SwiftASN1
import X509

/// Asks a time-stamping authority for a token: called with an RFC 3161 TimeStampReq (DER)
/// and returns the authority's TimeStampResp (DER), exactly what an HTTP TSA takes and
/// gives (`application/timestamp-query`, `application/timestamp-reply`). Quire never opens
/// a connection itself; throwing aborts the signing.
public typealias TimeStampCallback = (_ request: [UInt8]) throws -> [UInt8]

/// Makes the CMS SignedData of a PDF signature.
enum CMSSigner {
    /// A detached SignedData over a document whose digest is `documentDigest`:
    /// content-type, message-digest and signing-certificate-v2 signed attributes, plus
    /// signing-time when `signingTime` is given (adbe.pkcs7.detached; PAdES forbids it), and
    /// a signature time-stamp token from `timestamp` as an unsigned attribute (PAdES B-T).
    static func sign(documentDigest: [UInt8], digest: DigestAlgorithm, identity: SigningIdentity, signingTime: Date?,
                     timestamp: TimeStampCallback?) throws -> [UInt8] {
        let (algorithm, algorithmID) = try identity.signatureAlgorithm(digest)
        var attrs: [CMSAttr] = [
            CMSAttr(OID.contentType, [try ASN1Any(erasing: OID.data)]),
            CMSAttr(OID.messageDigest, [try ASN1Any(erasing: ASN1OctetString(contentBytes: documentDigest[...]))]),
            CMSAttr(OID.signingCertificateV2, [try SigningCertificateV2(certificate: identity.certificate).asn1Any()]),
        ]
        if let signingTime {
            attrs.append(CMSAttr(OID.signingTime, [try ASN1Any(erasing: UTCTime(signingTime.utcComponents()))]))
        }
        let toSign = try SignerInfo.signedAttributesDER(attrs)
        let signature = try identity.privateKey.sign(bytes: toSign, signatureAlgorithm: algorithm).rawRepresentation
        let sid = SignerID.issuerAndSerial(IssuerAndSerial(issuer: identity.certificate.issuer,
                                                           serial: identity.certificate.serialNumber.bytes))
        var info = SignerInfo(sid: sid, digestAlgorithm: .digest(digest), signedAttrs: attrs,
                              signatureAlgorithm: algorithmID, signature: signature[...])
        if let timestamp {
            let token = try timeStampToken(for: signature, digest: digest, callback: timestamp)
            info.unsignedAttrs = [CMSAttr(OID.signatureTimeStampToken, [ASN1Any(berEncoded: try BER.parse(token))])]
        }
        let data = SignedData(digestAlgorithms: [.digest(digest)], contentType: OID.data, content: nil,
                              certificates: [identity.certificate] + identity.chain, signerInfos: [info])
        return try data.contentInfoDER()
    }

    /// A time-stamp token over `signature` (RFC 3161 with a nonce), checked: the token's
    /// imprint and nonce are the request's.
    static func timeStampToken(for signature: [UInt8], digest: DigestAlgorithm, callback: TimeStampCallback) throws -> [UInt8] {
        var nonce = [UInt8](repeating: 0, count: 8)
        var rng = SystemRandomNumberGenerator()
        for i in nonce.indices { nonce[i] = UInt8.random(in: 0...255, using: &rng) }
        nonce[0] &= 0x7F  // a positive INTEGER
        if nonce[0] == 0 { nonce[0] = 1 }  // minimal encoding
        let imprint = MessageImprint(algorithm: digest, hash: digest.digest(signature)[...])
        let request = try TimeStampRequest(imprint: imprint, nonce: nonce[...]).der()
        let response: [UInt8]
        do {
            response = try callback(request)
        } catch let e as SignatureError {
            throw e
        } catch {
            throw SignatureError.timestamp("the time-stamping callback failed: \(error)")
        }
        let token: [UInt8]
        do {
            token = try TimeStampResponse.token(fromResponse: response)
            let signed = try SignedData(contentInfo: token[...])
            guard signed.contentType == OID.tstInfo, let content = signed.content else {
                throw SignatureError.timestamp("the time-stamp token does not hold a TSTInfo")
            }
            let info = try TSTInfo(der: content)
            guard info.imprint == imprint else { throw SignatureError.timestamp("the time-stamp token is over other data") }
            guard info.nonce == nonce[...] else { throw SignatureError.timestamp("the time-stamp token's nonce is not the request's") }
        } catch let e as SignatureError {
            throw e
        } catch {
            throw SignatureError.timestamp("the time-stamp response cannot be read: \(error)")
        }
        return token
    }
}

extension Date {
    /// This instant in UTC, for ASN.1 times (PDFDate's calendar arithmetic).
    func utcComponents() -> (year: Int, month: Int, day: Int, hours: Int, minutes: Int, seconds: Int) {
        let d = PDFDate(secondsSinceEpoch: Int(timeIntervalSince1970.rounded(.down)))
        return (d.year, d.month, d.day, d.hour, d.minute, d.second)
    }

    /// From an ASN.1 GeneralizedTime.
    init(_ time: GeneralizedTime) {
        let d = PDFDate(year: time.year, month: time.month, day: time.day, hour: time.hours, minute: time.minutes,
                        second: time.seconds, utcOffsetMinutes: 0)
        self = Date(timeIntervalSince1970: Double(d.secondsSinceEpoch) + time.fractionalSeconds)
    }

    /// From an ASN.1 UTCTime.
    init(_ time: UTCTime) {
        let d = PDFDate(year: time.year, month: time.month, day: time.day, hour: time.hours, minute: time.minutes,
                        second: time.seconds, utcOffsetMinutes: 0)
        self = Date(timeIntervalSince1970: Double(d.secondsSinceEpoch))
    }
}

extension UTCTime {
    init(_ c: (year: Int, month: Int, day: Int, hours: Int, minutes: Int, seconds: Int)) throws {
        try self.init(year: c.year, month: c.month, day: c.day, hours: c.hours, minutes: c.minutes, seconds: c.seconds)
    }
}
