// quire text and quire search: the text of pages, with character boxes (issue 18).
import QuireDocument
import QuireSyntax

let textHelp: [String: String] = [
    "text": """
        usage: quire text [--json] [--page N] [--password PW] FILE

        Print the text of FILE, page by page (pages separated by a form feed), in the order
        the content streams show it, with a line break between lines and a space between
        words that the file positions apart.

        Options:
          --page N       only page N (from 1)
          --json         print a JSON array instead, one object per page with page (from
                         1), text, warnings, and chars: one object per character with
                         text, quad (8 numbers in /QuadPoints order: upper-left,
                         upper-right, lower-left, lower-right, in PDF user space), box
                         ([left bottom right top]), size (the font size in user space),
                         font and generated (true for the spaces and line breaks Quire
                         inserts)
          --password PW  the user or owner password of an encrypted file
          -h, --help     print this help and exit

        Exit status:
          0 the text was printed; 1 the file could not be read (or has no page N); 2 a
          usage error
        """,
    "search": """
        usage: quire search [--json] [--page N] [--case] [--word] [--password PW] FILE WORD

        Print every match of WORD (any text; white space matches any white space, line
        breaks included, and a word hyphenated at a line end matches unhyphenated) in
        FILE, one a line: the page (from 1), the matched text and its quads' bounds
        [left bottom right top].

        Options:
          --page N       only page N (from 1)
          --case         match case exactly (default: case-insensitive)
          --word         whole words only
          --json         print a JSON array, one object per match with page, text, first
                         and last (character indices on the page, as quire text --json
                         numbers them) and quads (arrays of 8 numbers, /QuadPoints order)
          --password PW  the user or owner password of an encrypted file
          -h, --help     print this help and exit

        Exit status:
          0 at least one match; 1 the file could not be read; 2 a usage error; 3 no match
        """,
]

/// Takes `--page N`, `--case` and `--word` out of `arguments`.
private func textOptions(_ arguments: ArraySlice<String>, command: String, flags: Set<String>)
    throws -> (rest: ArraySlice<String>, page: Int?, flags: Set<String>) {
    var rest: [String] = []
    var page: Int? = nil
    var seen: Set<String> = []
    var args = arguments
    while let arg = args.popFirst() {
        if arg == "--page" || arg.hasPrefix("--page=") {
            let value = arg == "--page" ? args.popFirst() : String(arg.dropFirst("--page=".count))
            guard let v = value, let n = Int(v), n >= 1 else {
                throw UsageError(message: "--page needs a page number from 1", command: command)
            }
            page = n
        } else if flags.contains(arg) {
            seen.insert(arg)
        } else {
            rest.append(arg)
        }
    }
    return (rest[...], page, seen)
}

/// A coordinate as the tool prints it: in points, to a ten-thousandth (the arithmetic of
/// text positions leaves noise such as 100.02000000000001 in the last digits).
private func printed(_ v: Double) -> Double { (v * 10_000).rounded() / 10_000 }

private func quadJSON(_ q: TextQuad) -> InstantJSONValue { .array(q.quadPoints.map { .number(printed($0)) }) }

private func pagesToRead(_ document: Document, _ page: Int?) throws -> [Int] {
    let count = try document.pageCount()
    if let page {
        guard page <= count else { throw PDFError(.range, "the document has \(count) pages, not \(page)") }
        return [page - 1]
    }
    return Array(0..<count)
}

/// `quire text`.
struct TextCommand {
    let arguments: FileArguments
    let page: Int?

    init(arguments: ArraySlice<String>) throws {
        let (rest, page, _) = try textOptions(arguments, command: "text", flags: [])
        self.page = page
        self.arguments = try FileArguments(arguments: rest, command: "text", allowJSON: true)
    }

    func run() throws {
        let document = try arguments.open()
        var out: [InstantJSONValue] = []
        for (k, index) in try pagesToRead(document, page).enumerated() {
            let text = try document.textPage(at: index)
            if arguments.json {
                let chars = text.characters.map { c -> InstantJSONValue in
                    let b = c.quad.bounds, g = c.glyphQuad.bounds
                    return .object([
                        "text": .string(c.text),
                        "quad": quadJSON(c.quad),
                        "box": .array([b.left, b.bottom, b.right, b.top].map(InstantJSONValue.number)),
                        "size": .number(c.fontSize),
                        "font": .string(c.fontName),
                        "generated": .bool(c.isGenerated),
                        // The glyph's own box (outline or AFM); null where not known.
                        "glyph_box": c.hasGlyphBox
                            ? .array([g.left, g.bottom, g.right, g.top].map(InstantJSONValue.number)) : .null,
                    ])
                }
                out.append(.object([
                    "page": .integer(Int64(index + 1)),
                    "text": .string(text.text),
                    "warnings": .array(text.warnings.map(InstantJSONValue.string)),
                    "chars": .array(chars),
                ]))
            } else {
                if k > 0 { print("\u{0C}", terminator: "") }
                print(text.text)
            }
        }
        if arguments.json { print(InstantJSONValue.array(out).text) }
    }
}

/// `quire search`.
struct SearchCommand {
    let arguments: FileArguments
    let page: Int?
    let options: TextSearchOptions

    init(arguments: ArraySlice<String>) throws {
        let (rest, page, flags) = try textOptions(arguments, command: "search", flags: ["--case", "--word"])
        self.page = page
        options = TextSearchOptions(caseSensitive: flags.contains("--case"), wholeWord: flags.contains("--word"))
        self.arguments = try FileArguments(arguments: rest, command: "search", allowJSON: true, extra: 1)
    }

    func run() throws -> Int32 {
        let document = try arguments.open()
        let word = arguments.rest.first ?? ""
        guard !word.trimmingWhitespace.isEmpty else { throw UsageError(message: "WORD is empty", command: "search") }
        var out: [InstantJSONValue] = []
        var found = 0
        for index in try pagesToRead(document, page) {
            for m in try document.textPage(at: index).search(word, options: options) {
                found += 1
                if arguments.json {
                    out.append(.object([
                        "page": .integer(Int64(index + 1)),
                        "text": .string(m.span.text),
                        "first": .integer(Int64(m.span.range.lowerBound)),
                        "last": .integer(Int64(m.span.range.upperBound - 1)),
                        "quads": .array(m.span.quads.map(quadJSON)),
                    ]))
                } else {
                    let b = m.span.bounds
                    print("page \(index + 1)  \"\(m.span.text.split(separator: "\n").joined(separator: " "))\"  [\(printed(b.left)) \(printed(b.bottom)) \(printed(b.right)) \(printed(b.top))]")
                }
            }
        }
        if arguments.json { print(InstantJSONValue.array(out).text) }
        return found > 0 ? 0 : 3
    }
}

extension String {
    var trimmingWhitespace: Substring {
        let s = drop { $0.isWhitespace }
        return s.reversed().drop { $0.isWhitespace }.isEmpty ? "" : s
    }
}
