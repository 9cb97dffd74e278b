import CExpat
import QuireSyntax

/// Rich text (ISO 32000-2 §12.7.4.3, the /RC entry of markup annotations): XHTML limited to
/// `body`, `p`, `i`, `b` and `span` (and the line break `br`, kept empty as `<br/>`), with a
/// `style` attribute of a few CSS2 text properties.
///
/// ``sanitized(_:)`` reads XHTML (a fragment such as Instant JSON's `"<p>Hi <b>you</b></p>"`
/// or a whole `<body>` as PDF writers store it) with Expat and keeps only that subset:
/// elements outside it are dropped with their tags (their text stays; `script`, `style`,
/// `head` and `title` go with their content; `em` and `strong` become `i` and `b`),
/// attributes other than `style` are dropped, and of `style` only the allowed properties
/// with plain values are kept. The result is one `<body>` with the namespaces §12.7.4.3
/// asks for, and sanitizing it again gives it back unchanged.
///
/// Hostile input gets a ``PDFError`` of kind `.format` (not well-formed, a document type
/// declaration, an undefined entity) or `.limit` (more than ``maxBytes`` bytes, nesting
/// deeper than ``maxDepth``): no DTD is read, so no entity can expand.
public enum RichText {
    /// The most bytes of XHTML read (1 MiB).
    public static let maxBytes = 1 << 20
    /// The deepest nesting of elements read.
    public static let maxDepth = 64

    /// The XHTML namespace and XFA's, which §12.7.4.3 puts on `body`.
    static let bodyOpen = #"<body xmlns="http://www.w3.org/1999/xhtml" xmlns:xfa="http://www.xfa.org/schema/xfa-data/1.0/""#
    static let allowedElements: Set<String> = ["p", "i", "b", "span"]
    static let renamedElements: [String: String] = ["em": "i", "strong": "b"]
    static let droppedWithContent: Set<String> = ["script", "style", "head", "title"]
    /// §12.7.4.3, Table 388: the style properties of rich text strings.
    static let allowedProperties: Set<String> = [
        "text-align", "vertical-align", "font-size", "font-style", "font-weight", "font-family",
        "font", "color", "text-decoration", "font-stretch",
    ]

    /// The sanitized XHTML of `xhtml` and its plain text (the text of its elements, a line
    /// break between paragraphs), which is what /Contents holds.
    public static func sanitized(_ xhtml: String) throws -> (xhtml: String, plainText: String) {
        let state = try read(xhtml, base: Style())
        let version = state.apiVersion ?? "Quire:1.0"
        let spec = state.spec ?? "2.0.2"
        let xhtml = "\(bodyOpen) xfa:APIVersion=\"\(escape(version, quote: true))\" xfa:spec=\"\(escape(spec, quote: true))\">\(state.out)</body>"
        return (xhtml, state.plain)
    }

    /// Reads `xhtml` with Expat into a ``Sanitizer`` (its sanitized text and its styled
    /// runs, from `base`).
    static func read(_ xhtml: String, base: Style) throws -> Sanitizer {
        let bytes = Array(xhtml.utf8)
        guard bytes.count <= maxBytes else {
            throw PDFError(.limit, "the rich text is \(bytes.count) bytes long (at most \(maxBytes))")
        }
        // An XML declaration at the start is allowed (PDF writers put one before <body>);
        // the text is then wrapped in an element of its own, so that a fragment of several
        // paragraphs is one document and a document type declaration cannot occur.
        var body = Substring(xhtml)
        if let start = body.firstIndex(where: { !$0.isWhitespace }), body[start...].hasPrefix("<?xml") {
            guard let end = body.firstRange(of: "?>") else {
                throw PDFError(.format, "the rich text is not well-formed XHTML: an unterminated XML declaration")
            }
            body = body[end.upperBound...]
        }
        let wrapped = Array("<quire-rich-text>\(body)</quire-rich-text>".utf8)
        let state = Sanitizer(base: base)
        guard let parser = XML_ParserCreate("UTF-8") else {
            throw PDFError(.limit, "the rich text cannot be read: out of memory")
        }
        defer { XML_ParserFree(parser) }
        let box = Unmanaged.passUnretained(state)
        XML_SetUserData(parser, box.toOpaque())
        XML_SetElementHandler(parser, { user, name, attributes in
            guard let user, let name else { return }
            Unmanaged<Sanitizer>.fromOpaque(user).takeUnretainedValue().start(String(cString: name), attributes)
        }, { user, name in
            guard let user else { return }
            Unmanaged<Sanitizer>.fromOpaque(user).takeUnretainedValue().end()
        })
        XML_SetCharacterDataHandler(parser, { user, text, length in
            guard let user, let text, length > 0 else { return }
            let buffer = UnsafeRawBufferPointer(start: text, count: Int(length)).bindMemory(to: UInt8.self)
            Unmanaged<Sanitizer>.fromOpaque(user).takeUnretainedValue().text(String(decoding: buffer, as: UTF8.self))
        })
        XML_SetParamEntityParsing(parser, XML_PARAM_ENTITY_PARSING_NEVER)
        let status = wrapped.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { base in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { XML_Parse(parser, $0, Int32(buffer.count), 1) }
            } ?? XML_STATUS_ERROR
        }
        if let problem = state.problem { throw problem }
        guard status == XML_STATUS_OK else {
            let code = XML_GetErrorCode(parser)
            let message = XML_ErrorString(code).map { String(cString: $0) } ?? "error \(code.rawValue)"
            let line = XML_GetCurrentLineNumber(parser)
            throw PDFError(.format, "the rich text is not well-formed XHTML: \(message) at line \(line)")
        }
        return state
    }

    /// The style attribute with the allowed properties of plain values only.
    static func sanitizedStyle(_ style: String) -> String {
        var kept: [String] = []
        for declaration in style.split(separator: ";") {
            guard let colon = declaration.firstIndex(of: ":") else { continue }
            let property = declaration[..<colon].trimmingWhitespace().lowercased()
            let value = declaration[declaration.index(after: colon)...].trimmingWhitespace()
            guard allowedProperties.contains(property), !value.isEmpty, value.count <= 200,
                  value.unicodeScalars.allSatisfy({ s in
                      (s.value >= 0x30 && s.value <= 0x39) || (s.value | 0x20 >= 0x61 && s.value | 0x20 <= 0x7A)
                          || " #.,%-'\"/+".unicodeScalars.contains(s)
                  }) else { continue }
            kept.append("\(property):\(value)")
        }
        return kept.joined(separator: ";")
    }

    static func escape(_ s: String, quote: Bool) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where quote: out += "&quot;"
            case "\r": out += "&#13;"  // kept through a second reading (XML normalises CR)
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// Expat's handlers write here.
    final class Sanitizer {
        var out = ""
        var plain = ""
        /// For each open element: the end tag to write (nil: none, the tag was dropped).
        var stack: [String?] = []
        /// The depth at which an element dropped with its content began.
        var skipFrom: Int?
        var sawParagraph = false
        var apiVersion: String?
        var spec: String?
        var problem: PDFError?
        /// The style of each open element (``stack``'s), and the paragraphs of styled runs
        /// read so far (``RichText/paragraphs(_:base:)``).
        var styles: [Style]
        var paragraphs: [Paragraph] = [Paragraph()]
        /// Whether the last paragraph was opened by a `p` or a `br` (the first is not).
        var paragraphOpened = false

        init(base: Style) { styles = [base] }

        /// The style inside a new element: `parent`, `element`'s own (b, i) and its style
        /// attribute's.
        private func style(_ element: String?, _ attribute: String?, parent: Style) -> Style {
            var style = parent
            if element == "b" { style.bold = true }
            if element == "i" { style.italic = true }
            if let attribute { style.apply(css: RichText.sanitizedStyle(attribute)) }
            return style
        }

        func start(_ name: String, _ attributes: UnsafeMutablePointer<UnsafePointer<XML_Char>?>?) {
            guard problem == nil else { return }
            var attrs: [String: String] = [:]
            if let attributes {
                var i = 0
                while let key = attributes[i], let value = attributes[i + 1] {
                    attrs[String(cString: key)] = String(cString: value)
                    i += 2
                }
            }
            let parent = styles.last ?? Style()
            defer {
                // Each element pushed on ``stack`` has its style here.
                while styles.count < stack.count + 1 { styles.append(parent) }
                if stack.count > RichText.maxDepth + 1 { problem = PDFError(.limit, "the rich text nests elements deeper than \(RichText.maxDepth)") }
            }
            if skipFrom != nil || (stack.isEmpty && name != "quire-rich-text") {
                stack.append(nil)
                return
            }
            if name.lowercased() == "br" {
                // A line break, kept as `<br/>` (XHTML's; writers put it in /RC, and
                // Acrobat reads it) and a line end of the plain text.
                paragraphs.append(Paragraph(alignment: paragraphs[paragraphs.count - 1].alignment))
                paragraphOpened = true
                out += "<br/>"
                plain += "\n"
                stack.append(nil)
                return
            }
            if RichText.droppedWithContent.contains(name.lowercased()) {
                skipFrom = stack.count
                stack.append(nil)
                return
            }
            if name == "body" {
                func safe(_ s: String?) -> String? {
                    guard let s, s.count <= 64, s.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "<" && $0 != "&" }) else { return nil }
                    return s
                }
                apiVersion = apiVersion ?? safe(attrs["xfa:APIVersion"])
                spec = spec ?? safe(attrs["xfa:spec"])
                // The body's style (Acrobat writes the defaults there) is drawn, not kept.
                styles.append(style(nil, attrs["style"], parent: parent))
                stack.append(nil)
                return
            }
            guard stack.count >= 1, let element = RichText.renamedElements[name] ?? (RichText.allowedElements.contains(name) ? name : nil) else {
                stack.append(nil)
                return
            }
            let inner = self.style(element, attrs["style"], parent: parent)
            if element == "p" {
                if sawParagraph || !plain.isEmpty { plain += "\n" }
                // The text before the first paragraph (none, or the body's whitespace) is
                // not a line of its own.
                if paragraphOpened || !paragraphs[paragraphs.count - 1].runs.isEmpty { paragraphs.append(Paragraph()) }
                paragraphOpened = true
                sawParagraph = true
                paragraphs[paragraphs.count - 1].alignment = inner.alignment
            }
            styles.append(inner)
            let style = attrs["style"].map(RichText.sanitizedStyle) ?? ""
            out += style.isEmpty ? "<\(element)>" : "<\(element) style=\"\(RichText.escape(style, quote: true))\">"
            stack.append("</\(element)>")
        }

        func end() {
            guard problem == nil, let last = stack.popLast() else { return }
            if styles.count > 1 { styles.removeLast() }
            if let tag = last, skipFrom == nil { out += tag }
            if let from = skipFrom, stack.count == from { skipFrom = nil }
        }

        func text(_ s: String) {
            guard problem == nil, skipFrom == nil, !stack.isEmpty else { return }
            out += RichText.escape(s, quote: false)
            plain += s
            // As XHTML lays text out: whitespace between paragraphs (outside p, span, b and
            // i: a pretty-printed body's) is not drawn, and a line end is a space; lines
            // break at paragraphs and at `br`.
            let inElement = stack.last.flatMap { $0 } != nil
            if !inElement && s.allSatisfy(\.isWhitespace) { return }
            let line = String(s.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
            let style = styles.last ?? Style()
            if let last = paragraphs[paragraphs.count - 1].runs.last, last.style == style {
                paragraphs[paragraphs.count - 1].runs[paragraphs[paragraphs.count - 1].runs.count - 1].text += line
            } else {
                paragraphs[paragraphs.count - 1].runs.append(Run(text: line, style: style))
            }
        }
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
