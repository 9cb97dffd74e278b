import Testing
import FoundationEssentials
import QuireDocument
import QuireSyntax
import QuireTestSupport

/// Issue 23: Instant JSON as PSPDFKit writes it: comments, comment markers, xhtml text.
/// The fixtures follow the shapes of Nutrient's public guides: the comment record of
/// https://nutrient.io/guides/document-engine/json/schema/comments (type, v, rootId,
/// pageIndex, pdfObjectId null, creatorName, createdAt, updatedAt, text, customData), the
/// `InstantJSON` interface of https://www.nutrient.io/api/web/interfaces/InstantJSON.html
/// (top-level `comments`), and the v2 `text: {format, value}` of the annotation schema.
private func twoPages() throws -> Document {
    try document { b in
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>")
        b.object(4, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>")
    }
}

private let threadJSON = #"""
{
  "format": "https://pspdfkit.com/instant-json/v1",
  "annotations": [
    {"v": 1, "type": "pspdfkit/comment-marker", "id": "01F46WTF5X3J1WEN6J2YXWHHEW", "pageIndex": 0,
     "bbox": [100, 100, 20, 20], "createdAt": "2021-04-26T10:50:30.650Z", "updatedAt": "2021-04-26T10:50:30.650Z"},
    {"v": 2, "type": "pspdfkit/markup/highlight", "id": "01F46WTF5X3J1WEN6J2YXWHHEX", "pageIndex": 0,
     "bbox": [72, 300, 200, 14], "rects": [[72, 300, 200, 14]], "color": "#FFFF00", "isCommentThreadRoot": true}
  ],
  "comments": [
    {"type": "pspdfkit/comment", "v": 1, "id": "01F46WTF5X3J1WEN6J2YXWHHF0", "rootId": "01F46WTF5X3J1WEN6J2YXWHHEW",
     "pageIndex": 0, "pdfObjectId": null, "creatorName": null, "createdAt": "2021-04-26T10:50:30.650Z",
     "updatedAt": "2021-04-26T10:50:30.650Z", "text": "This is a comment.", "customData": null},
    {"type": "pspdfkit/comment", "v": 2, "id": "01F46WTF5X3J1WEN6J2YXWHHF1", "rootId": "01F46WTF5X3J1WEN6J2YXWHHEW",
     "pageIndex": 0, "creatorName": "Ada", "createdAt": "2021-04-26T11:00:00Z", "updatedAt": "2021-04-26T11:05:00Z",
     "text": {"format": "xhtml", "value": "<p>I <b>agree</b>, see <a href=\"https://example.com\">this</a></p><p>Second</p>"},
     "customData": {"ticket": "DOC-1"}},
    {"type": "pspdfkit/comment", "v": 2, "id": "01F46WTF5X3J1WEN6J2YXWHHF2", "rootId": "01F46WTF5X3J1WEN6J2YXWHHEX",
     "pageIndex": 0, "creatorName": "Bob", "createdAt": "2021-04-27T09:00:00Z",
     "text": {"format": "plain", "value": "Why highlighted?"}}
  ]
}
"""#

/// A PNG written by hand (8-bit, no interlace; the data through Filters.deflate with filter
/// byte 0 on each row): IHDR says `claimedWidth` × `height`, the data holds `width` columns.
private func png(width: Int, height: Int, colorType: UInt8 = 6, claimedWidth: Int? = nil, interlace: UInt8 = 0,
                 depth: UInt8 = 8) throws -> [UInt8] {
    let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(colorType)] ?? 4
    var raw: [UInt8] = []
    for y in 0..<height {
        raw.append(0)
        for x in 0..<width { for c in 0..<channels { raw.append(UInt8((x * 40 + y * 7 + c * 90) & 0xFF)) } }
    }
    func be(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] { be(body.count) + Array(type.utf8) + body + [0, 0, 0, 0] }
    let ihdr = be(claimedWidth ?? width) + be(height) + [depth, colorType, 0, 0, interlace]
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr)
        + chunk("IDAT", try Filters.deflate(raw)) + chunk("IEND", [])
}

/// The start of a baseline JPEG: SOI, APP0 (JFIF), SOF0 of `width` × `height` with
/// `components` components (the image data does not matter to the import).
private func jpegHeader(width: Int, height: Int, components: UInt8 = 3) -> [UInt8] {
    var out: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]
    out += Array("JFIF".utf8)
    out += [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
    let length = UInt8(8 + 3 * Int(components))
    out += [0xFF, 0xC0, 0x00, length, 8]
    out += [UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), components]
    for c in 0..<components { out += [c + 1, 0x11, 0] }
    out += [0xFF, 0xD9]
    return out
}

private func imageJSON(_ bytes: [UInt8], type: String = "image/png", binary: String? = nil, id: String = "img") -> String {
    let b64 = binary ?? Data(bytes).base64EncodedString()
    return #"{"format": "https://pspdfkit.com/instant-json/v1", "annotations": [{"v": 1, "type": "pspdfkit/image", "id": "stamp-1", "pageIndex": 0, "bbox": [100, 100, 80, 40], "imageAttachmentId": "\#(id)", "contentType": "\#(type)", "opacity": 1}], "attachments": {"img": {"binary": "\#(b64)", "contentType": "\#(type)"}}}"#
}

/// A `pspdfkit/file` record with its attachment (`key` defaults to the bytes' SHA-256).
private func fileJSON(_ bytes: [UInt8], key: String? = nil, binary: String? = nil, name: String = "notes.txt",
                      type: String = "text/plain", description: String = "Minutes") -> String {
    let b64 = binary ?? Data(bytes).base64EncodedString()
    let id = key ?? Hex.string(JournalCodec.sha256(bytes)).lowercased()
    return #"{"format": "https://pspdfkit.com/instant-json/v1", "annotations": [{"v": 1, "type": "pspdfkit/file", "id": "file-1", "pageIndex": 0, "bbox": [100, 100, 20, 20], "fileAttachmentId": "\#(id)", "fileName": "\#(name)", "description": "\#(description)", "contentType": "\#(type)", "iconName": "paperclip"}], "attachments": {"\#(id)": {"binary": "\#(b64)", "contentType": "\#(type)"}}}"#
}

@Suite struct InstantJSONCommentsTests {
    @Test func fileAttachmentsImportAndExportTheirFile() throws {
        let bytes = Array("the minutes of the meeting\n".utf8) + (0..<256).map { UInt8($0) }
        let sha = Hex.string(JournalCodec.sha256(bytes)).lowercased()
        let doc = try twoPages()
        let made = try doc.importAnnotationsJSON(Array(fileJSON(bytes).utf8))
        #expect(made.map(\.subtype) == ["FileAttachment"])
        let id = try #require(made[0].id)
        let file = try #require(try doc.attachedFile(of: id))
        #expect(file.bytes == bytes && file.name == "notes.txt" && file.contentType == "text/plain"
                && file.description == "Minutes")
        #expect(made[0].iconName == "Paperclip")  // PSPDFKit Web's lower camel case read
        let exported = try doc.exportAnnotationsJSON(page: nil)
        let json = try InstantJSONDocument(jsonBytes: exported)
        let record = try #require(json.annotations.first)
        #expect(record.type == "pspdfkit/file" && record.fileAttachmentId == sha && record.fileName == "notes.txt")
        #expect(record.description == "Minutes" && record.contentType == "text/plain" && record.iconName == "Paperclip")
        #expect(json.attachments?[sha]?.binary == Data(bytes).base64EncodedString())
        #expect(json.attachments?[sha]?.contentType == "text/plain")
        // A no-op again, and the same records in another document, saved and reopened.
        _ = try doc.importAnnotationsJSON(exported)
        #expect(try doc.exportAnnotationsJSON(page: nil) == exported)
        let other = try twoPages()
        _ = try other.importAnnotationsJSON(exported)
        #expect(try other.exportAnnotationsJSON(page: nil) == exported)
        let reread = try InstantJSONDocument(jsonBytes: try Document(data: try other.saved(.incremental)).exportAnnotationsJSON(page: nil))
        #expect(reread.annotations == json.annotations && reread.attachments == json.attachments)
        // The record alone (as a sync layer holds it): it updates the annotation, whose
        // file stays; a new document refuses it.
        var alone = json
        alone.attachments = nil
        alone.annotations[0].opacity = 0.5
        _ = try doc.importAnnotations(alone)
        let again = try InstantJSONDocument(jsonBytes: try doc.exportAnnotationsJSON(page: nil))
        #expect(again.attachments?[sha]?.binary == Data(bytes).base64EncodedString() && again.annotations[0].opacity == 0.5)
        let error = #expect(throws: PDFError.self) { try twoPages().importAnnotations(alone) }
        #expect(error?.message.contains("annotations[0].fileAttachmentId: no attachment") == true)
        // Another file replaces it.
        let next = Array("version 2".utf8)
        _ = try doc.importAnnotationsJSON(Array(fileJSON(next, name: "v2.txt").utf8))
        #expect(try doc.attachedFile(of: id)?.bytes == next && (try doc.attachedFile(of: id)?.name) == "v2.txt")
    }

    @Test func malformedFilesChangeNothing() throws {
        let doc = try twoPages()
        _ = try doc.addAnnotation(Annotation(subtype: "Square", pageIndex: 0, rect: Rect(left: 0, bottom: 0, right: 9, top: 9)))
        let before = try doc.saved(.incremental)
        let good = Array("attached".utf8)
        let cases: [(String, String)] = [
            (fileJSON(good, binary: "not base64!!"), "binary: not base64"),
            (fileJSON(good, key: String(repeating: "0", count: 64)), "the file's SHA-256 is"),
            (fileJSON(good, name: "../etc/passwd"), "annotations[0].fileName:"),
            (fileJSON(good, name: ""), "annotations[0].fileName: must not be empty"),
            (fileJSON(good, type: "text"), "annotations[0].contentType:"),
            (fileJSON(good, binary: String(repeating: "A", count: 90 << 20)), "characters of base64"),
        ]
        for (text, expected) in cases {
            let error = #expect(throws: PDFError.self, "\(expected)") { try doc.importAnnotationsJSON(Array(text.utf8)) }
            #expect(error?.message.contains(expected) == true, "\(error?.message.prefix(300) ?? "") does not contain \(expected)")
        }
        #expect(try doc.saved(.incremental) == before)
    }

    @Test func imageStampsImportAndExportTheirAttachment() throws {
        for (bytes, type) in [(try png(width: 4, height: 3), "image/png"), (try png(width: 4, height: 3, colorType: 2), "image/png"),
                              (jpegHeader(width: 16, height: 8), "image/jpeg")] {
            let doc = try twoPages()
            let made = try doc.importAnnotationsJSON(Array(imageJSON(bytes, type: type).utf8))
            #expect(made.map(\.subtype) == ["Stamp"])
            let exported = try doc.exportAnnotationsJSON(page: nil)
            let json = try InstantJSONDocument(jsonBytes: exported)
            let record = try #require(json.annotations.first)
            #expect(record.type == "pspdfkit/image" && record.contentType == type)
            let key = try #require(record.imageAttachmentId)
            #expect(json.attachments?[key]?.binary == Data(bytes).base64EncodedString())
            // The appearance draws the image XObject.
            let id = try #require(made[0].id)
            let dict = try #require(try doc.object(id.number).dictionary)
            let ap = try #require(try doc.dictionary(dict["AP"]))
            guard case .reference(let n)? = ap["N"], case .stream(let form) = try doc.object(n.number) else {
                Issue.record("no appearance stream"); continue
            }
            #expect(String(decoding: try doc.streamData(form, decoded: true), as: UTF8.self).contains("/Im0 Do"))
            // A no-op again, and the same records in another document.
            _ = try doc.importAnnotationsJSON(exported)
            #expect(try doc.exportAnnotationsJSON(page: nil) == exported)
            let other = try twoPages()
            _ = try other.importAnnotationsJSON(exported)
            #expect(try other.exportAnnotationsJSON(page: nil) == exported)
            // The record alone, without its attachment (as the sync server holds it): it
            // updates the stamp, whose image stays; a new document refuses it.
            var alone = json
            alone.attachments = nil
            alone.annotations[0].opacity = 0.5
            _ = try doc.importAnnotations(alone)
            let again = try InstantJSONDocument(jsonBytes: try doc.exportAnnotationsJSON(page: nil))
            #expect(again.attachments?[key]?.binary == Data(bytes).base64EncodedString() && again.annotations[0].opacity == 0.5)
            let error = #expect(throws: PDFError.self) { try twoPages().importAnnotations(alone) }
            #expect(error?.message.contains("annotations[0].imageAttachmentId: no attachment") == true)
        }
    }

    @Test func malformedImagesChangeNothing() throws {
        let doc = try twoPages()
        _ = try doc.addAnnotation(Annotation(subtype: "Square", pageIndex: 0, rect: Rect(left: 0, bottom: 0, right: 9, top: 9)))
        let before = try doc.saved(.incremental)
        let good = try png(width: 4, height: 3)
        let cases: [(String, String)] = [
            (imageJSON(good, binary: "not base64!!"), "attachments.img.binary: not base64"),
            (imageJSON(good, id: "missing"), "annotations[0].imageAttachmentId: no attachment \"missing\""),
            (imageJSON(try png(width: 4, height: 3, claimedWidth: 400)), "where its size (400 × 3) needs"),
            (imageJSON(try png(width: 4, height: 3, claimedWidth: 2)), "more data than its size (2 × 3)"),
            (imageJSON(try png(width: 4, height: 3, colorType: 3)), "uses a palette"),
            (imageJSON(try png(width: 4, height: 3, interlace: 1)), "is interlaced"),
            (imageJSON(try png(width: 4, height: 3, depth: 16)), "16-bit samples"),
            (imageJSON(try png(width: 4, height: 3, claimedWidth: 100_000)), "at most 20000 a side"),
            (imageJSON(Array(good.prefix(40))), "has no IEND chunk (truncated)"),
            (imageJSON(Array(good.prefix(60))), "chunk longer than the file"),
            (imageJSON(Array("GIF89a".utf8), type: "image/gif"), "images of type \"image/gif\" are not supported"),
            (imageJSON(Array(jpegHeader(width: 16, height: 8).prefix(12)), type: "image/jpeg"), "the JPEG image"),
            (imageJSON(jpegHeader(width: 0, height: 8), type: "image/jpeg"), "has no pixels"),
            (imageJSON(good, binary: String(repeating: "A", count: 30 << 20)), "characters of base64"),
        ]
        for (text, expected) in cases {
            let error = #expect(throws: PDFError.self, "\(expected)") { try doc.importAnnotationsJSON(Array(text.utf8)) }
            #expect(error?.message.contains(expected) == true, "\(error?.message.prefix(300) ?? "") does not contain \(expected)")
        }
        #expect(try doc.saved(.incremental) == before)
    }

    @Test func richTextIsSanitized() throws {
        let input = #"<p style="color:#FF0000; background: url(x); font-weight: bold">Hi <b>you</b> <em>there</em><script>alert(1)</script><a href="x" onclick="y">link</a> &amp; &lt;tag&gt;</p><div>plain</div>"#
        let clean = try RichText.sanitized(input)
        #expect(clean.xhtml.hasPrefix(#"<body xmlns="http://www.w3.org/1999/xhtml" xmlns:xfa="http://www.xfa.org/schema/xfa-data/1.0/" xfa:APIVersion="#))
        #expect(clean.xhtml.hasSuffix(#"><p style="color:#FF0000;font-weight:bold">Hi <b>you</b> <i>there</i>link &amp; &lt;tag&gt;</p>plain</body>"#))
        #expect(!clean.xhtml.contains("script") && !clean.xhtml.contains("alert") && !clean.xhtml.contains("href") && !clean.xhtml.contains("url("))
        #expect(clean.plainText == "Hi you therelink & <tag>plain")
        // Sanitizing again gives the same text (the import of an export changes nothing).
        let again = try RichText.sanitized(clean.xhtml)
        #expect(again.xhtml == clean.xhtml && again.plainText == clean.plainText)
        // A body as PDF writers store it in /RC, with an XML declaration.
        let acrobat = #"<?xml version="1.0"?><body xmlns="http://www.w3.org/1999/xhtml" xmlns:xfa="http://www.xfa.org/schema/xfa-data/1.0/" xfa:APIVersion="Acrobat:11.0.0" xfa:spec="2.0.2"><p dir="ltr"><span style="font-size:10.0pt;xfa-spacerun:yes">One</span></p><p>Two</p></body>"#
        let a = try RichText.sanitized(acrobat)
        #expect(a.xhtml.contains(#"xfa:APIVersion="Acrobat:11.0.0" xfa:spec="2.0.2"><p><span style="font-size:10.0pt">One</span></p><p>Two</p></body>"#))
        #expect(a.plainText == "One\nTwo")
    }

    @Test func hostileRichTextIsRefused() throws {
        let cases: [(String, PDFErrorKind, String)] = [
            (#"<!DOCTYPE lol [<!ENTITY a "aaaa">]><p>&a;</p>"#, .format, "not well-formed"),
            ("<p>&lol;</p>", .format, "undefined entity"),
            ("<p>unclosed", .format, "not well-formed"),
            ("<p>a</p></quire-rich-text><quire-rich-text>", .format, "not well-formed"),
            (String(repeating: "<span>", count: 200) + "x" + String(repeating: "</span>", count: 200), .limit, "deeper than 64"),
            ("<p>" + String(repeating: "x", count: 10 << 20) + "</p>", .limit, "at most 1048576"),
        ]
        for (input, kind, message) in cases {
            let error = #expect(throws: PDFError.self) { try RichText.sanitized(input) }
            #expect(error?.kind == kind, "\(input.prefix(60))")
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "") lacks \(message)")
        }
    }

    @Test func commentsImportAsReplies() throws {
        let doc = try twoPages()
        let made = try doc.importAnnotationsJSON(Array(threadJSON.utf8))
        #expect(made.map(\.subtype) == ["Text", "Highlight", "Text", "Text", "Text"])
        let marker = made[0], highlight = made[1]
        #expect(marker.iconName == "Comment" && marker.name == "01F46WTF5X3J1WEN6J2YXWHHEW")
        let first = made[2], second = made[3], third = made[4]
        #expect(first.inReplyTo == marker.id && first.replyType == .reply && first.contents == "This is a comment.")
        #expect(first.richText == nil && first.author == nil && first.customData == nil)
        #expect(first.creationDate == PDFDate(year: 2021, month: 4, day: 26, hour: 10, minute: 50, second: 30))
        #expect(first.rect == Rect(left: 100, bottom: 672, right: 120, top: 692))  // at the root's top left
        #expect(second.inReplyTo == marker.id && second.author == "Ada" && second.customData == #"{"ticket":"DOC-1"}"#)
        #expect(second.contents == "I agree, see this\nSecond")
        #expect(second.richText?.contains("<p>I <b>agree</b>, see this</p><p>Second</p>") == true)
        #expect(third.inReplyTo == highlight.id && third.contents == "Why highlighted?" && third.author == "Bob")
        // /RC is a text string in the PDF, /Contents the plain text.
        let secondID = try #require(second.id), markerID = try #require(marker.id)
        let dict = try #require(try doc.object(secondID.number).dictionary)
        #expect(dict["RC"]?.string?.text == second.richText)
        #expect(dict["IRT"] == .reference(markerID))
        // The same JSON again changes nothing; the document's export imports as a no-op.
        let before = try doc.exportAnnotationsJSON(page: nil)
        _ = try doc.importAnnotationsJSON(Array(threadJSON.utf8))
        #expect(try doc.exportAnnotationsJSON(page: nil) == before)
        #expect(try doc.allAnnotations().count == 5)
        _ = try doc.importAnnotationsJSON(before)
        #expect(try doc.exportAnnotationsJSON(page: nil) == before)
        // The export writes the rich reply as xhtml text (record version 2).
        let exported = try InstantJSONDocument(jsonBytes: before)
        let rich = try #require(exported.annotations.first { $0.id == "01F46WTF5X3J1WEN6J2YXWHHF1" })
        #expect(rich.richText == second.richText && rich.text == nil)
        #expect(String(decoding: before, as: UTF8.self).contains(#""format" : "xhtml""#))
        // Into another document: the same annotations, field by field.
        let other = try twoPages()
        _ = try other.importAnnotationsJSON(before)
        #expect(try other.exportAnnotationsJSON(page: nil) == before)
    }

    @Test func instantCommentsExportAndImport() throws {
        let doc = try twoPages()
        _ = try doc.importAnnotationsJSON(Array(threadJSON.utf8))
        let bytes = try doc.exportAnnotationsJSON(page: nil, prettyPrinted: true, instantComments: true)
        let json = try InstantJSONDocument(jsonBytes: bytes)
        #expect(json.annotations.map(\.type) == ["pspdfkit/comment-marker", "pspdfkit/markup/highlight"])
        let comments = try #require(json.comments)
        #expect(comments.map(\.rootId) == ["01F46WTF5X3J1WEN6J2YXWHHEW", "01F46WTF5X3J1WEN6J2YXWHHEW", "01F46WTF5X3J1WEN6J2YXWHHEX"])
        #expect(comments[1].richText != nil && comments[1].creatorName == "Ada" && comments[1].customData != nil)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#""isCommentThreadRoot" : true"#) && text.contains(#""type" : "pspdfkit/comment""#))
        // Imported into the same document, nothing changes; into another, the same thread.
        let before = try doc.exportAnnotationsJSON(page: nil)
        _ = try doc.importAnnotationsJSON(bytes)
        #expect(try doc.exportAnnotationsJSON(page: nil) == before)
        let other = try twoPages()
        _ = try other.importAnnotationsJSON(bytes)
        #expect(try other.exportAnnotationsJSON(page: nil, prettyPrinted: true, instantComments: true) == bytes)
        let replies = try other.allAnnotations().filter(\.isReply)
        #expect(replies.map(\.contents) == ["This is a comment.", "I agree, see this\nSecond", "Why highlighted?"])
    }

    @Test func malformedCommentsChangeNothing() throws {
        let doc = try twoPages()
        _ = try doc.addAnnotation(Annotation(subtype: "Square", pageIndex: 0, rect: Rect(left: 0, bottom: 0, right: 9, top: 9)))
        let before = try doc.saved(.incremental)
        func withComments(_ comments: String) -> String {
            #"{"annotations": [{"v": 1, "type": "pspdfkit/comment-marker", "id": "root", "pageIndex": 0, "bbox": [1, 2, 20, 20]}], "comments": [\#(comments)]}"#
        }
        func comment(_ id: String, root: String, _ extra: String = "") -> String {
            #"{"type": "pspdfkit/comment", "v": 1, "id": "\#(id)", "rootId": "\#(root)", "pageIndex": 0, "text": "x"\#(extra)}"#
        }
        let huge = String(repeating: "<b>x</b>", count: (10 << 20) / 8)
        let cases: [(String, String)] = [
            (withComments(comment("c1", root: "nobody")), "comments[0].rootId: no annotation \"nobody\""),
            (withComments(comment("c1", root: "c2") + "," + comment("c2", root: "c1")), "comments[0].rootId: the comments make a cycle"),
            (withComments(comment("c1", root: "c1")), "comments[0].rootId: the comments make a cycle"),
            (withComments(comment("c1", root: "root") + "," + comment("c2", root: "c1")), "comments[1].rootId: \"c1\" is a comment"),
            (withComments(comment("c1", root: "root", #", "pageIndex": 1"#).replacing(#""pageIndex": 0, "#, with: "")), "comments[0].pageIndex: the comment is on page 1"),
            (withComments(comment("root", root: "root")), "comments[0].id: \"root\" is the id of an earlier record"),
            (withComments(#"{"type": "pspdfkit/comment", "v": 1, "pageIndex": 0, "text": "x"}"#), "comments[0]: missing field \"rootId\""),
            (withComments(#"{"type": "pspdfkit/note", "v": 1, "rootId": "root", "pageIndex": 0}"#), "comments[0].type: \"pspdfkit/note\" is not a comment"),
            (withComments(comment("c1", root: "root", #", "createdAt": "yesterday""#)), "comments[0].createdAt: \"yesterday\" is not an ISO 8601 date"),
            (withComments(#"{"type": "pspdfkit/comment", "v": 2, "id": "c", "rootId": "root", "pageIndex": 0, "text": {"format": "xhtml", "value": "<p>a"}}"#), "comments[0].text.value: the rich text is not well-formed"),
            (withComments(#"{"type": "pspdfkit/comment", "v": 2, "id": "c", "rootId": "root", "pageIndex": 0, "text": {"format": "xhtml", "value": "\#(huge)"}}"#), "comments[0].text.value: the rich text is"),
            (#"{"annotations": [{"v": 2, "type": "pspdfkit/note", "pageIndex": 0, "bbox": [1, 2, 3, 4], "text": {"format": "xhtml", "value": "<!DOCTYPE x [<!ENTITY e \"boom\">]><p>&e;</p>"}}]}"#, "annotations[0].text.value: the rich text is not well-formed"),
        ]
        for (text, expected) in cases {
            let error = #expect(throws: PDFError.self, "\(text.prefix(160))") { try doc.importAnnotationsJSON(Array(text.utf8)) }
            #expect(error?.message.contains(expected) == true, "\(error?.message.prefix(300) ?? "") does not contain \(expected)")
        }
        #expect(try doc.saved(.incremental) == before)
        #expect(try doc.allAnnotations().count == 1)
    }

    @Test func richTextOfOtherTypesTravelsExactly() throws {
        // A highlight whose /RC is Acrobat's (not the sanitized form) and whose /Contents is not
        // its plain text: both come back exactly, in this document and in another.
        let doc = try twoPages()
        var h = Annotation(subtype: "Highlight", pageIndex: 0, rect: Rect(left: 72, bottom: 700, right: 300, top: 714))
        h.quadPoints = [72, 714, 300, 714, 72, 700, 300, 700]
        h.contents = "Check\r"
        h.richText = #"<?xml version="1.0"?><body xmlns="http://www.w3.org/1999/xhtml"><p dir="ltr">Check</p></body>"#
        _ = try doc.addAnnotation(h)
        var n = Annotation(subtype: "Text", pageIndex: 0, rect: Rect(left: 10, bottom: 10, right: 30, top: 30))
        n.contents = "Other /Contents"
        n.richText = #"<body xmlns="http://www.w3.org/1999/xhtml"><p style="font-family:Helvetica;xfa-spacerun:yes">Rich</p></body>"#
        _ = try doc.addAnnotation(n)
        var broken = Annotation(subtype: "Text", pageIndex: 1, rect: Rect(left: 10, bottom: 10, right: 30, top: 30))
        broken.contents = "Broken"
        broken.richText = "<p>not closed"
        _ = try doc.addAnnotation(broken)
        let bytes = try doc.exportAnnotationsJSON(page: nil)
        _ = try doc.importAnnotationsJSON(bytes)
        #expect(try doc.exportAnnotationsJSON(page: nil) == bytes)
        let other = try twoPages()
        _ = try other.importAnnotationsJSON(bytes)
        let a = try doc.allAnnotations(), b = try other.allAnnotations()
        #expect(a.map(\.richText) == b.map(\.richText) && a.map(\.contents) == b.map(\.contents))
        #expect(b[0].richText == h.richText && b[1].richText == n.richText && b[2].richText == "<p>not closed")
        // A client that edits the xhtml text gets its edit: the exact values no longer apply.
        var json = try InstantJSONDocument(jsonBytes: bytes)
        let i = try #require(json.annotations.firstIndex { $0.richText != nil })
        json.annotations[i].richText = "<p>Edited</p>"
        let edited = try other.importAnnotations(json)
        #expect(edited[i].contents == "Edited" && edited[i].richText?.hasSuffix("<p>Edited</p></body>") == true)
    }
}
