// quire redact: mark regions or search matches with Redact annotations and apply them
// (issue 38, docs/redaction.md). The rules are the model's (QuireDocument/Redaction); this
// file parses arguments and prints what applying reports.
import QuireDocument
import QuireSyntax

let redactHelp: [String: String] = [
    "redact": """
    usage: quire redact [--password PW] (--search TEXT | --rect PAGE,X0,Y0,X1,Y1)...
                        [--fill R,G,B | --no-fill] [--overlay TEXT] [--mark-only]
                        [--keep LIST] [--clean LIST] FILE -o OUT

    Remove for good what lies in the regions of FILE and write the result to OUT, in
    full (no earlier revision is kept). The regions are every match of each --search
    (case-insensitive) and each --rect (PAGE counted from 1, the corners in PDF points
    from the page's lower left), together with the Redact annotations FILE already
    has. Text whose glyphs intersect a region, images in it (blanked pixels, or the
    whole image), vector paths wholly inside it, and annotations and form fields that
    intersect it are removed; each region is then filled and the overlay text drawn.
    Prints what was removed; notes (an image removed whole, say) go to standard error.
    See docs/redaction.md for what is removed and what is not.

    Options:
      -o OUT               the file to write
      --search TEXT        redact every match of TEXT (repeatable)
      --rect P,X0,Y0,X1,Y1 redact a rectangle of page P (repeatable)
      --fill R,G,B         the fill colour, components 0 to 1 (default 0,0,0: black)
      --no-fill            leave the regions unfilled
      --overlay TEXT       text drawn in each region
      --mark-only          add the Redact annotations without applying them (written
                           incrementally), for review
      --keep LIST          what not to remove: text, images, graphics, annotations
      --clean LIST         document cleanup: metadata (/Metadata and /Info),
                           files (embedded files), javascript
      --password PW        the owner password of an encrypted FILE
      -h, --help           print this help and exit

    Exit status:
      0 written; 1 the file could not be read, a region was refused (off its page), a
      page could not be read to its end (nothing is applied then), or OUT not written;
      2 a usage error, or nothing to redact
    """
]

struct RedactCommand {
    var path = ""
    var output = ""
    var password: String?
    var searches: [String] = []
    var rects: [(page: Int, rect: Rect)] = []
    var fill: [Double]? = [0, 0, 0]
    var overlay: String?
    var markOnly = false
    var options = RedactionOptions()

    init(arguments: ArraySlice<String>) throws {
        var args = arguments
        var positional: [String] = []
        func value(_ option: String) throws -> String {
            guard let v = args.popFirst() else {
                throw UsageError(message: "\(option) needs a value", command: "redact")
            }
            return v
        }
        func numbers(_ text: String, count: Int, _ option: String) throws -> [Double] {
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
                Double(String($0.filter { $0 != " " }))
            }
            guard parts.count == count, parts.allSatisfy({ $0?.isFinite ?? false }) else {
                throw UsageError(
                    message: "\(option) takes \(count) numbers separated by commas, not '\(text)'",
                    command: "redact"
                )
            }
            return parts.compactMap { $0 }
        }
        while let arg = args.popFirst() {
            switch arg {
            case "-o", "--output": output = try value(arg)
            case "--search": searches.append(try value(arg))
            case "--rect":
                let n = try numbers(try value(arg), count: 5, arg)
                guard n[0] >= 1, n[0] == n[0].rounded(), n[0] <= 1e9 else {
                    throw UsageError(
                        message: "--rect: page \(n[0]) is not a page number (1 or more)",
                        command: "redact"
                    )
                }
                rects.append((Int(n[0]) - 1, Rect(left: n[1], bottom: n[2], right: n[3], top: n[4])))
            case "--fill":
                let c = try numbers(try value(arg), count: 3, arg)
                guard c.allSatisfy({ (0...1).contains($0) }) else {
                    throw UsageError(message: "--fill: each component is between 0 and 1", command: "redact")
                }
                fill = c
            case "--no-fill": fill = nil
            case "--overlay": overlay = try value(arg)
            case "--mark-only": markOnly = true
            case "--keep":
                for item in try value(arg).split(separator: ",") {
                    switch item {
                    case "text": options.text = false
                    case "images": options.images = false
                    case "graphics": options.graphics = false
                    case "annotations": options.annotations = false
                    default:
                        throw UsageError(
                            message: "--keep: unknown '\(item)' (text, images, graphics, annotations)",
                            command: "redact"
                        )
                    }
                }
            case "--clean":
                for item in try value(arg).split(separator: ",") {
                    switch item {
                    case "metadata": options.removeMetadata = true
                    case "files": options.removeEmbeddedFiles = true
                    case "javascript": options.removeJavaScript = true
                    default:
                        throw UsageError(
                            message: "--clean: unknown '\(item)' (metadata, files, javascript)",
                            command: "redact"
                        )
                    }
                }
            case "--password": password = try value(arg)
            case "-h", "--help": throw HelpRequest(command: "redact")
            default:
                if arg.hasPrefix("--password=") {
                    password = String(arg.dropFirst("--password=".count))
                    continue
                }
                if arg.hasPrefix("-") && arg != "-" {
                    throw UsageError(message: "unknown option \(arg)", command: "redact")
                }
                positional.append(arg)
            }
        }
        guard positional.count == 1 else {
            throw UsageError(message: "redact takes exactly one FILE", command: "redact")
        }
        guard !output.isEmpty else { throw UsageError(message: "redact needs -o OUT", command: "redact") }
        path = positional[0]
    }

    func run() throws -> Int32 {
        let document = try Document(path: path, options: OpenOptions(password: password))
        var marked = 0
        for query in searches {
            marked += try document.addRedactions(matching: query, fill: fill, overlayText: overlay).count
        }
        for (page, rect) in rects {
            guard page < (try document.pageCount()) else {
                throw PDFError(
                    .invalidArgument,
                    "--rect: page \(page + 1) does not exist (the document has \(try document.pageCount()))"
                )
            }
            try document.addRedaction(pageIndex: page, regions: [rect], fill: fill, overlayText: overlay)
            marked += 1
        }
        let existing = try document.allAnnotations().filter { $0.subtype == "Redact" }.count
        guard existing > 0 else {
            standardError("quire: nothing to redact: no match, no --rect and no Redact annotation in the file")
            return 2
        }
        if markOnly {
            try document.save(to: output, mode: .incremental)
            print("marked \(marked) region(s); \(existing) Redact annotation(s) to review in \(output)")
            return 0
        }
        let result = try document.applyRedactions(options)
        try document.save(to: output, mode: .full(objectStreams: false))
        print(
            "applied \(result.redactions) redaction(s) on \(result.pages) page(s): removed \(result.glyphsRemoved) glyph(s), "
                + "\(result.imagesRemoved) image(s), \(result.pathsRemoved) path(s), \(result.annotationsRemoved) annotation(s); "
                + "blanked \(result.imagesBlanked) image(s)"
        )
        for note in result.notes { standardError("quire: note: \(note)") }
        return 0
    }
}
