// quire export and quire import: a document's annotations as annotation JSON or XFDF, out
// and in (issue 40), for scripts: JSON on standard output pipes into jq.
import QuireDocument
import QuireSyntax
#if canImport(Glibc)
import Glibc
#endif

let exchangeHelp: [String: String] = [
    "export": """
        usage: quire export [--format F] [--page N] [--password PW] [-o OUT] FILE

        Write the annotations of FILE (with replies and review states) to standard output,
        or to OUT: as annotation JSON (Instant JSON with Quire's extensions,
        docs/annotation-json.md; the whole document's export has the form's field values
        too), or as XFDF (ISO 19444-1: the annotations but links, popups and widgets, and
        the field values; docs/forms.md). The output is deterministic: the same
        annotations give the same bytes. quire export FILE | jq '.annotations | length'
        counts them.

        Options:
          --format F     json (the default), instant-comments (JSON with the replies that
                         Instant comments can hold written as "comments") or xfdf
          --page N       JSON: only page N (from 1)
          -o OUT         write OUT instead of standard output (atomically: a temporary
                         file renamed over OUT)
          --password PW  the user or owner password of an encrypted file
          -h, --help     print this help and exit

        Exit status:
          0 exported; 1 the file could not be read or OUT written; 2 a usage error
        """,
    "import": """
        usage: quire import [--format F] [--full] [--json] [--password PW] FILE DATA -o OUT

        Import the annotations of DATA (a file, or - for standard input) into FILE and
        write the result to OUT, incrementally (FILE's bytes, then the changes) unless
        --full; a file repaired when read is written in full, with a note on standard
        error. An annotation whose name (/NM) is already on its page is updated, any other
        is added; replies are linked by name; field values are set. The import is all or
        nothing: on an error, nothing is written.

        Options:
          --format F     json or xfdf; by default, what DATA holds (XFDF starts with '<',
                         after any byte order mark and white space)
          -o OUT         the file to write (required; may be FILE itself)
          --full         rewrite the whole file instead of appending an update
          --json         print one JSON object: imported (the annotations created or
                         updated, and for XFDF the field values set), format, output and
                         warnings (an array)
          --password PW  the user or owner password of an encrypted file
          -h, --help     print this help and exit

        Exit status:
          0 imported and written; 1 FILE could not be read, DATA does not import (one line
          on standard error names the status and the field), or OUT could not be written;
          2 a usage error
        """,
]

/// The arguments of export and import: options with a value, flags, and positionals.
private struct ExchangeArguments {
    var values: [String: String] = [:]
    var flags: Set<String> = []
    var positional: [String] = []

    init(_ arguments: ArraySlice<String>, command: String, valued: Set<String>, flags allowed: Set<String>) throws {
        var args = arguments
        while let arg = args.popFirst() {
            if arg == "-h" || arg == "--help" { throw HelpRequest(command: command) }
            if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--"), valued.contains(String(arg[..<eq])) {
                values[String(arg[..<eq])] = String(arg[arg.index(after: eq)...])
            } else if valued.contains(arg) || arg == "--output" && valued.contains("-o") {
                guard let v = args.popFirst() else { throw UsageError(message: "\(arg) needs a value", command: command) }
                values[arg == "--output" ? "-o" : arg] = v
            } else if allowed.contains(arg) {
                flags.insert(arg)
            } else if arg.hasPrefix("-") && arg != "-" {
                throw UsageError(message: "unknown option \(arg)", command: command)
            } else {
                positional.append(arg)
            }
        }
    }
}

/// Writes `bytes` to `path` atomically (a temporary file beside it, renamed over it).
private func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    try AtomicFile.write(bytes, to: path)
}

/// `quire export`.
struct ExportCommand {
    var password: String?
    var path = ""
    var output: String?
    var format = "json"
    var page: Int?

    init(arguments: ArraySlice<String>) throws {
        let a = try ExchangeArguments(arguments, command: "export", valued: ["--format", "--page", "-o", "--password"], flags: [])
        guard a.positional.count == 1 else { throw UsageError(message: "export takes exactly one FILE", command: "export") }
        path = a.positional[0]
        password = a.values["--password"]
        output = a.values["-o"]
        if let f = a.values["--format"] {
            guard ["json", "instant-comments", "xfdf"].contains(f) else {
                throw UsageError(message: "--format is json, instant-comments or xfdf, not '\(f)'", command: "export")
            }
            format = f
        }
        if let p = a.values["--page"] {
            guard let n = Int(p), n >= 1 else { throw UsageError(message: "--page needs a page number from 1", command: "export") }
            guard format != "xfdf" else { throw UsageError(message: "--page is for JSON: XFDF is the whole document", command: "export") }
            page = n
        }
    }

    func run() throws {
        let document = try Document(path: path, options: OpenOptions(password: password))
        let bytes: [UInt8]
        if format == "xfdf" {
            bytes = Array(try document.exportXFDF().utf8)
        } else {
            if let page, page > (try document.pageCount()) {
                throw PDFError(.range, "the document has \(try document.pageCount()) pages, not \(page)")
            }
            bytes = try document.exportAnnotationsJSON(page: page.map { $0 - 1 }, prettyPrinted: true,
                                                       instantComments: format == "instant-comments") + [0x0A]
        }
        if let output {
            try writeFile(output, bytes)
        } else {
            try writeStandardOutput(bytes)
        }
    }
}

/// Writes all of `bytes` to standard output.
func writeStandardOutput(_ bytes: [UInt8]) throws {
    try bytes.withUnsafeBytes { raw in
        var offset = 0
        while offset < raw.count {
            guard let base = raw.baseAddress else { return }
            let n = write(1, base + offset, raw.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw PDFError(.io, "standard output: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }
}

/// All of standard input.
func readStandardInput() throws -> [UInt8] {
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            throw PDFError(.io, "standard input: \(String(cString: strerror(errno)))")
        }
        if n == 0 { return out }
        out += chunk[0..<n]
    }
}

/// `quire import`.
struct ImportCommand {
    var password: String?
    var path = ""
    var data = ""
    var output = ""
    var format: String?
    var full = false
    var json = false

    init(arguments: ArraySlice<String>) throws {
        let a = try ExchangeArguments(arguments, command: "import", valued: ["--format", "-o", "--password"],
                                      flags: ["--full", "--json"])
        guard a.positional.count == 2 else { throw UsageError(message: "import takes FILE and DATA", command: "import") }
        path = a.positional[0]
        data = a.positional[1]
        password = a.values["--password"]
        guard let o = a.values["-o"], !o.isEmpty else { throw UsageError(message: "import needs -o OUT", command: "import") }
        output = o
        if let f = a.values["--format"] {
            guard ["json", "xfdf"].contains(f) else { throw UsageError(message: "--format is json or xfdf, not '\(f)'", command: "import") }
            format = f
        }
        full = a.flags.contains("--full")
        json = a.flags.contains("--json")
    }

    /// XFDF when the first byte after a byte order mark and white space is '<'.
    static func looksLikeXML(_ bytes: [UInt8]) -> Bool {
        var rest = bytes[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        return rest.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "<")
    }

    func run() throws {
        let document = try Document(path: path, options: OpenOptions(password: password))
        let bytes: [UInt8]
        if data == "-" {
            bytes = try readStandardInput()
        } else {
            bytes = try ByteBuffer.read(path: data).loadedCopy()
        }
        let chosen = format ?? (ImportCommand.looksLikeXML(bytes) ? "xfdf" : "json")
        let warningsBefore = document.warnings.count
        let count = chosen == "xfdf" ? try document.importXFDF(bytes) : try document.importAnnotationsJSON(bytes).count
        // The import's own warnings (a field value refused): read before the save, which
        // starts the document's warnings afresh.
        let warnings = document.warnings.dropFirst(warningsBefore).map(InstantJSONValue.string)
        var mode: SaveMode = full ? .full(objectStreams: false) : .incremental
        if !full && document.isRepaired {
            standardError("quire import: \(path) was repaired when read, so it has no sound cross-reference to append to: saving in full")
            mode = .full(objectStreams: false)
        }
        try document.save(to: output, mode: mode)
        if json {
            print(InstantJSONValue.object([
                "imported": integer(count), "format": .string(chosen), "output": .string(output),
                "warnings": .array(Array(warnings)),
            ]).text)
        } else {
            print("imported \(count) \(chosen == "xfdf" ? "annotations and field values" : "annotations") into \(output)")
        }
    }
}
