// quire: the command-line tool.
//
//   quire info [--json] [--password PW] FILE
//   quire check [--password PW] FILE
//   quire annots [--json] [--password PW] FILE
//   quire thread [--password PW] FILE PAGE ANNOTATION
//   quire fields [--json] [--password PW] FILE
//   quire fill [--password PW] [--full] [--font FILE]... [--values JSON] [--field NAME --value V]... FILE [NAME=VALUE]... -o OUT
//   quire flatten [--password PW] [--full] [--subtypes LIST] [--no-links] FILE -o OUT
//   quire redact [--password PW] (--search TEXT | --rect PAGE,X0,Y0,X1,Y1)... [options] FILE -o OUT
//   quire text [--json] [--page N] [--password PW] FILE
//   quire search [--json] [--page N] [--case] [--word] [--password PW] FILE WORD
//   quire export [--format F] [--page N] [--password PW] [-o OUT] FILE
//   quire import [--format F] [--full] [--json] [--password PW] FILE DATA -o OUT
//   quire pages [--password PW] [--full] FILE OPERATION ARGUMENTS -o OUT
//   quire merge [--password PW] FILE FILE... -o OUT
//   quire split [--password PW] [-n N] FILE -o PREFIX
//   quire encrypt [--password PW] [--user U] [--owner O] [--aes128] [--permissions LIST] FILE -o OUT
//   quire decrypt --password PW FILE -o OUT
//   quire sign --key KEY [--cert CERTS] [options] FILE -o OUT
//   quire verify [--json] [--trust PEM]... FILE
//   quire doctor [--json]
//   quire help [COMMAND], quire COMMAND --help, quire --help, quire --version
//
// `quire info --json` is a contract that tests and outside checks rely on: one JSON object
// with at least pages, pdf_version, encrypted, repaired, warnings, annotations, metadata.
// On a file it cannot open, it prints one line naming the status and exits 1.
import CQuire
import QuireDocument
import QuireSyntax
#if canImport(Glibc)
import Glibc
#endif

// The help texts. `quire --help` is the whole manual: scripts/help2man.py makes the man page
// quire.1 from it and from `quire help COMMAND` of each command, so what is written here is
// what `man quire` says. Its sections are the lines that end in ':' at the margin.
let synopsis = """
    usage: quire info [--json] [--password PW] FILE
           quire check [--password PW] FILE
           quire annots [--json] [--password PW] FILE
           quire thread [--password PW] FILE PAGE ANNOTATION
           quire fields [--json] [--password PW] FILE
           quire fill [--password PW] [--full] [--font FILE]... [--values JSON] [--field NAME --value V]...
                      FILE [NAME=VALUE]... -o OUT
           quire flatten [--password PW] [--full] [--subtypes LIST] [--no-links] FILE -o OUT
           quire redact [--password PW] (--search TEXT | --rect PAGE,X0,Y0,X1,Y1)... [options]
                        FILE -o OUT
           quire text [--json] [--page N] [--password PW] FILE
           quire search [--json] [--page N] [--case] [--word] [--password PW] FILE WORD
           quire export [--format F] [--page N] [--password PW] [-o OUT] FILE
           quire import [--format F] [--full] [--json] [--password PW] FILE DATA -o OUT
           quire pages [--password PW] [--full] FILE OPERATION ARGUMENTS -o OUT
           quire merge [--password PW] FILE FILE... -o OUT
           quire split [--password PW] [-n N] FILE -o PREFIX
           quire encrypt [--password PW] [--user U] [--owner O] [--aes128]
                         [--permissions LIST] [--keep-metadata] FILE -o OUT
           quire decrypt --password PW FILE -o OUT
           quire sign --key KEY [--cert CERTS] [--field NAME] [--page N --rect L,B,R,T]
                      [--pkcs7] [--digest D] [--certify P] [--reason R] FILE -o OUT
           quire verify [--json] [--trust PEM]... [--password PW] FILE
           quire doctor [--json]
           quire help [COMMAND]
           quire --version
    """

let usage = """
    quire \(QUIRE_VERSION_STRING): read, check, fill, flatten, export and import the annotations and forms of PDF documents

    \(synopsis)

    Quire is a PDF annotation and collaboration engine; this tool shows what it reads in a
    file. It opens classic and stream cross-references, object streams, incremental
    updates and damaged files (repaired by scanning, with warnings), and encrypted files
    (RC4 40 and 128, AES-128, AES-256) with the empty password or --password. It never
    changes the file: fill, flatten, redact, import, pages, merge, split, encrypt and decrypt
    write their result to another file (-o OUT), unless told to write it over FILE.

    Commands:
      info      print what the document is: pages, PDF version, encryption, repair,
                annotations, replies, outline, cross-reference form, metadata, warnings;
                with --json, one JSON object
      check     read every object and decode every stream, and report damage and
                warnings, like qpdf --check
      annots    list every annotation: page, object number, subtype, rectangle, author,
                contents, reply parent and review state; with --json, a JSON array
      thread    print the comments (the annotation and its text replies, by date) and the
                review summary of the annotation whose /NM is ANNOTATION on page PAGE
      fields    list the fields of the form: name, type, value, flags, options
      fill      set field values (NAME=VALUE, --field NAME --value V, or a JSON file of
                values), regenerate their appearances and write the result to -o OUT
      flatten   burn the annotations and form fields into the pages and write -o OUT
      redact    remove for good the text, images and graphics in regions or search
                matches, and write -o OUT in full
      text      print the text of the pages; with --json, every character with its quad
      search    print every match of a word or phrase, with its page and position
      export    write the annotations (and field values) as annotation JSON or XFDF
      import    import annotation JSON or XFDF into a document and write -o OUT
      pages     delete, move, rotate or insert pages, with what hangs on them, and write
                -o OUT
      merge     write the pages of several files into one, -o OUT
      split     write the pages of a file into files of N pages, -o PREFIX
      encrypt   encrypt a file (AES-256, or AES-128), or change its passwords and
                permissions, and write -o OUT
      decrypt   remove the encryption of a file with its owner password, -o OUT
      doctor    print what this build is and where it looks, for bug reports
      help      print this text, or the help of COMMAND (the same as quire COMMAND --help)

    Options:
      --json         info, annots, fields, text, search, import and doctor: print JSON
                     instead of text, one value on standard output that jq reads (quire
                     help COMMAND lists its fields); export writes JSON by default
      --password PW  the user or owner password of an encrypted file (also --password=PW)
      -h, --help     print the help (of the command, after one) and exit
      --version      print "quire VERSION" and exit

    Exit status:
      0    success; for check, the file is clean
      1    the file could not be opened or read: one line on standard error names the
           status and says why, such as "quire: QUIRE_EFORMAT: ..." or
           "quire: QUIRE_EPASSWORD: ..."
      2    a usage error (the message and the usage on standard error); for check, the
           file has errors
      3    check: the file has warnings but no errors

    Examples:
      quire info file.pdf
      quire info --json --password secret file.pdf
      quire check file.pdf || echo "damaged or suspicious"
      quire annots --json file.pdf
      quire thread file.pdf 1 note-1
      quire export file.pdf | jq '.annotations | length'
      quire import file.pdf notes.xfdf -o reviewed.pdf
      quire fill form.pdf --field 'Calculated.5 Val=num*2' --value 10 -o filled.pdf

    See also:
      qpdf(1), pdfinfo(1); the C library libquire and its header quire.h, the Python
      package quire (import quire)
    """

/// The help of each command: `quire help COMMAND` and `quire COMMAND --help`.
let commandHelp: [String: String] = [
    "info": """
        usage: quire info [--json] [--password PW] FILE

        Print what the document FILE is. As text: the file, pages, PDF version, whether it
        is encrypted and was repaired, annotations, replies and review states, outline
        items, the cross-reference form and object count, encryption, the size of page 1,
        the metadata (Info dictionary) and every warning.

        Options:
          --json         print one JSON object instead, a stable contract. Its fields:
                         pages (the page count: the root's /Count when usable),
                         pdf_version ("1.7"), encrypted, repaired (booleans), warnings (a
                         count), annotations (the total over all pages),
                         annotations_per_page (one count per page, 0 for a page missing
                         from the page tree), metadata (an object), xref ("table",
                         "stream", "hybrid" or "rebuilt"), objects, linearized,
                         outline_items, replies and states (annotations with /IRT and with
                         /State), encryption (null, or an object with method, revision,
                         permissions and owner), warning_messages (an array)
          --password PW  the user or owner password of an encrypted file
          -h, --help     print this help and exit

        Exit status:
          0 the document was read; 1 it could not be (one line on standard error names the
          status, "quire: QUIRE_EFORMAT: ..."); 2 a usage error
        """,
    "check": """
        usage: quire check [--password PW] FILE

        Read every object of FILE and decode every stream, like qpdf --check, and print the
        PDF version, encryption, linearization, cross-reference form, page count, then one
        line per warning ("WARNING: ...") and per error ("ERROR: object N: ...").

        Options:
          --password PW  the user or owner password of an encrypted file
          -h, --help     print this help and exit

        Exit status (qpdf's):
          0 the file is clean; 3 warnings only (damage that was worked around); 2 errors
          (objects or streams that cannot be read), or a usage error; 1 the file could not
          be opened
        """,
    "annots": """
        usage: quire annots [--json] [--password PW] FILE

        List every annotation of FILE, one a line: the page (from 1), the object number,
        the subtype, the rectangle [left bottom right top], then its name (NM "..."), the
        author ("by ..."), the
        annotation it replies to ("replies to N"), its review state ("state Review/Accepted")
        and its contents, when it has them; for text markup, the text its quads cover
        ("marks ...").

        Options:
          --json         print a JSON array instead, one object per annotation with page,
                         id (the object number, or null), subtype, rect, name (/NM),
                         author, contents, created, in_reply_to (an object number or null),
                         state and state_model, and for text markup (Highlight,
                         Underline, StrikeOut, Squiggly) text: the page text its quads
                         cover
          --password PW  the user or owner password of an encrypted file
          -h, --help     print this help and exit

        Exit status:
          0 the annotations were listed; 1 the file could not be read; 2 a usage error
        """,
    "thread": """
        usage: quire thread [--password PW] FILE PAGE ANNOTATION

        Print the thread of ANNOTATION on page PAGE (from 1) of FILE: ANNOTATION is its name
        (/NM) or, for an annotation without a name, its object number, as `quire annots`
        lists them (a name wins over an object number that spells the same). When several
        annotations of the page share the name, the first is used, with a warning. Printed:
        its comments (the annotation and its text replies, by creation date, with
        their authors), the review state each author has set last, and the history of
        review states.

        Options:
          --password PW  the user or owner password of an encrypted file
          -h, --help     print this help and exit

        Exit status:
          0 the thread was printed; 1 the file could not be read, or page PAGE has no
          such annotation (QUIRE_ENOTFOUND); 2 a usage error
        """,
    "help": """
        usage: quire help [COMMAND]

        Print the help of quire, or of COMMAND (info, check, annots, thread, fields, fill,
        flatten, redact, text, search, export, import, pages, merge, split, encrypt, decrypt,
        sign, verify, doctor).
        """,
]

func standardError(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
}

/// A usage error: the message, then the usage of `command` (of quire when nil), on stderr.
struct UsageError: Error {
    let message: String
    var command: String? = nil
}

/// `-h`/`--help` after a command: its help on stdout, exit 0.
struct HelpRequest: Error { let command: String }

/// The help of a command, or of quire.
func help(_ command: String?) -> String? {
    guard let command else { return usage }
    return commandHelp[command] ?? formsHelp[command] ?? textHelp[command] ?? exchangeHelp[command] ?? pagesHelp[command] ?? signaturesHelp[command] ?? doctorHelp[command]
        ?? redactHelp[command]
}

/// The options every command that opens a file takes.
struct FileArguments {
    var json = false
    var password: String?
    var path: String = ""

    /// The positional arguments after FILE.
    var rest: [String] = []

    init(arguments: ArraySlice<String>, command: String, allowJSON: Bool, extra: Int = 0) throws {
        var args = arguments
        var paths: [String] = []
        while let arg = args.popFirst() {
            switch arg {
            case "--json" where allowJSON: json = true
            case "--password":
                guard let pw = args.popFirst() else { throw UsageError(message: "--password needs a value", command: command) }
                password = pw
            case "-h", "--help": throw HelpRequest(command: command)
            default:
                if arg.hasPrefix("--password=") { password = String(arg.dropFirst("--password=".count)); continue }
                if arg.hasPrefix("-") && arg != "-" { throw UsageError(message: "unknown option \(arg)", command: command) }
                paths.append(arg)
            }
        }
        guard paths.count == 1 + extra else {
            throw UsageError(message: extra == 0 ? "\(command) takes exactly one FILE" : "\(command) takes FILE and \(extra) more arguments", command: command)
        }
        path = paths[0]
        rest = Array(paths.dropFirst())
    }

    func open() throws -> Document {
        try Document(path: path, options: OpenOptions(password: password))
    }
}

struct InfoCommand {
    let arguments: FileArguments
    var json: Bool { arguments.json }
    var path: String { arguments.path }

    init(arguments: ArraySlice<String>) throws {
        self.arguments = try FileArguments(arguments: arguments, command: "info", allowJSON: true)
    }

    func run() throws {
        let document = try arguments.open()
        let pageCount = try document.pageCount()
        let pages = try document.pages()
        // One entry per counted page: a page that the root's /Count counts but the page
        // tree does not hold cannot be loaded and has 0.
        var annotationsPerPage = [Int](repeating: 0, count: pageCount)
        for page in pages { annotationsPerPage[page.index] = try page.annotationCount() }
        let version = document.pdfVersion()
        let metadata = try document.metadata()
        let firstBox = try pages.first.map { try $0.box(.media) }
        let outlineItems = try document.outlineItemCount()
        let annotations = try document.allAnnotations()
        let replies = annotations.filter(\.isReply).count
        let states = annotations.filter { $0.state != nil }.count
        if json {
            // A key the Info dictionary has twice (two names that read as the same text)
            // keeps its last value, as JSON readers do with a repeated key.
            let info = Dictionary(metadata.map { ($0.key, InstantJSONValue.string($0.value)) }, uniquingKeysWith: { _, last in last })
            let object = InstantJSONValue.object([
                "pages": integer(pageCount),
                "pdf_version": .string("\(version.major).\(version.minor)"),
                "encrypted": .bool(document.isEncrypted),
                "repaired": .bool(document.isRepaired),
                "warnings": integer(document.warnings.count),
                "annotations": integer(annotationsPerPage.reduce(0, +)),
                "metadata": .object(info),
                "xref": .string(xrefName(document.file.xrefForm)),
                "objects": integer(document.objectCount),
                "linearized": .bool(document.file.isLinearized),
                "outline_items": integer(outlineItems),
                "annotations_per_page": .array(annotationsPerPage.map(integer)),
                "replies": integer(replies),
                "states": integer(states),
                "encryption": encryption(document),
                "warning_messages": .array(document.warnings.map(InstantJSONValue.string)),
            ])
            print(object.text)
            return
        }
        print("File:         \(path)")
        print("Pages:        \(pageCount)\(pages.count < pageCount ? " (\(pages.count) in the page tree)" : "")")
        print("PDF version:  \(version.major).\(version.minor)")
        print("Encrypted:    \(document.isEncrypted ? "yes" : "no")")
        print("Repaired:     \(document.isRepaired ? "yes" : "no")")
        print("Annotations:  \(annotationsPerPage.reduce(0, +))")
        print("Replies:      \(replies) (\(states) with a review state)")
        print("Outline:      \(outlineItems) items")
        print("Xref:         \(xrefName(document.file.xrefForm)), \(document.objectCount) objects\(document.file.isLinearized ? ", linearized" : "")")
        if let security = document.file.security {
            print("Encryption:   \(security.method), revision \(security.revision), \(security.authenticatedAsOwner ? "owner" : "user") password")
        }
        if let box = firstBox { print("Page 1 size:  \(box.width) x \(box.height) pt") }
        for (key, value) in metadata { print("\(key + ":")\(String(repeating: " ", count: max(1, 14 - key.count - 1)))\(value)") }
        for warning in document.warnings { print("Warning:      \(warning)") }
    }
}

func xrefName(_ form: XRefForm) -> String {
    switch form {
    case .table: return "table"
    case .stream: return "stream"
    case .hybrid: return "hybrid"
    case .rebuilt: return "rebuilt"
    }
}

/// A count or number as JSON.
func integer(_ n: Int) -> InstantJSONValue { .integer(Int64(n)) }

func encryption(_ document: Document) -> InstantJSONValue {
    guard let security = document.file.security else { return .null }
    return .object(["method": .string(security.method), "revision": integer(security.revision),
                    "permissions": .integer(Int64(UInt32(bitPattern: security.permissions))),
                    "owner": .bool(security.authenticatedAsOwner)])
}

/// `quire check`: reads every object and decodes every stream, like `qpdf --check`.
struct CheckCommand {
    let arguments: FileArguments

    init(arguments: ArraySlice<String>) throws {
        self.arguments = try FileArguments(arguments: arguments, command: "check", allowJSON: false)
    }

    /// The exit status: 0 clean, 3 warnings only, 2 errors (qpdf's convention).
    func run() throws -> Int32 {
        let document = try arguments.open()
        let file = document.file
        let version = document.pdfVersion()
        print("checking \(arguments.path)")
        print("PDF Version: \(version.major).\(version.minor)")
        if let security = file.security {
            print("File is encrypted: \(security.method), revision \(security.revision)")
        } else {
            print("File is not encrypted")
        }
        print("File is \(file.isLinearized ? "" : "not ")linearized")
        print("Cross-reference: \(xrefName(file.xrefForm)), \(document.objectCount) objects")
        var errors: [String] = []
        do {
            // Pages that the root's /Count counts but the tree does not hold are damage
            // worked around: the page tree's warning reports them, with the others.
            let count = try document.pageCount()
            let existing = try document.pages().count
            print("Pages: \(count)\(existing < count ? " (\(existing) in the page tree)" : "")")
        } catch let e as PDFError {
            errors.append("page tree: \(e.message)")
        }
        for number in file.objectNumbers {
            do {
                if case .stream(let stream) = try file.object(number) {
                    _ = try file.decodedData(stream)
                }
            } catch let e as PDFError where e.kind == .unsupported {
                file.warn("object \(number): \(e.message)")
            } catch let e as PDFError {
                errors.append("object \(number): \(e.message)")
            }
        }
        for warning in file.warnings { print("WARNING: \(warning)") }
        for error in errors { print("ERROR: \(error)") }
        if errors.isEmpty && file.warnings.isEmpty {
            print("No syntax or stream encoding errors found; the file appears to be valid")
            return 0
        }
        return errors.isEmpty ? 3 : 2
    }
}

/// One annotation as JSON, for `quire annots --json`.
func json(_ a: Annotation) -> InstantJSONValue {
    func text(_ s: String?) -> InstantJSONValue { s.map(InstantJSONValue.string) ?? .null }
    func number(_ id: ObjectID?) -> InstantJSONValue { id.map { integer($0.number) } ?? .null }
    let rect = [a.rect.left, a.rect.bottom, a.rect.right, a.rect.top].map(InstantJSONValue.number)
    return .object([
        "page": integer(a.pageIndex + 1),
        "id": number(a.id),
        "subtype": .string(a.subtype),
        "rect": .array(rect),
        "name": text(a.name),
        "author": text(a.author),
        "contents": text(a.contents),
        "created": text(a.creationDate?.description),
        "in_reply_to": number(a.inReplyTo),
        "state": text(a.state),
        "state_model": text(a.stateModel),
    ])
}

/// `quire annots`: every annotation, with its page, subtype, rect, author, contents and
/// reply parent.
struct AnnotsCommand {
    let arguments: FileArguments

    init(arguments: ArraySlice<String>) throws {
        self.arguments = try FileArguments(arguments: arguments, command: "annots", allowJSON: true)
    }

    func run() throws {
        let document = try arguments.open()
        let all = try document.allAnnotations()
        // The text a markup annotation covers (issue 18), as PSPDFKit's highlightedString.
        func marked(_ a: Annotation) -> String? {
            guard Annotation.textMarkupSubtypes.contains(a.subtype), !a.quadPoints.isEmpty else { return nil }
            return try? document.markedText(of: a)
        }
        if arguments.json {
            print(InstantJSONValue.array(all.map { a in
                guard case .object(var fields) = json(a), let text = marked(a) else { return json(a) }
                fields["text"] = .string(text)
                return .object(fields)
            }).text)
            return
        }
        for a in all {
            let r = a.rect
            var line = "page \(a.pageIndex + 1)  \(a.id.map { "\($0.number)" } ?? "-")  \(a.subtype)  [\(r.left) \(r.bottom) \(r.right) \(r.top)]"
            if let name = a.name { line += "  NM \"\(name)\"" }
            if let author = a.author { line += "  by \(author)" }
            if let target = a.inReplyTo { line += "  replies to \(target.number)" }
            if let state = a.state { line += "  state \(a.stateModel ?? "?")/\(state)" }
            if let contents = a.contents, !contents.isEmpty { line += "  \"" + contents.split(separator: "\n").joined(separator: " ") + "\"" }
            if let text = marked(a), !text.isEmpty { line += "  marks \"" + text.split(separator: "\n").joined(separator: " ") + "\"" }
            print(line)
        }
    }
}

/// `quire thread FILE PAGE NM`: an annotation's comments and review summary.
struct ThreadCommand {
    let arguments: FileArguments

    init(arguments: ArraySlice<String>) throws {
        self.arguments = try FileArguments(arguments: arguments, command: "thread", allowJSON: false, extra: 2)
    }

    func run() throws {
        let document = try arguments.open()
        guard let page = Int(arguments.rest[0]), page >= 1 else {
            throw UsageError(message: "PAGE must be a page number from 1", command: "thread")
        }
        let wanted = arguments.rest[1]
        let onPage = try document.annotations(onPage: page - 1)
        let named = onPage.filter { $0.name == wanted }
        if named.count > 1 {
            standardError("quire thread: warning: \(named.count) annotations of page \(page) are named \(wanted); the first (object \(named[0].id.map { String($0.number) } ?? "-")) is used")
        }
        let byNumber = Int(wanted).flatMap { n in onPage.first { $0.id?.number == n } }
        guard let root = named.first ?? byNumber, let id = root.id else {
            throw PDFError(.notFound, "page \(page) has no annotation named \(wanted)" + (Int(wanted) != nil ? " and no annotation object \(wanted)" : ""))
        }
        print("Comments:")
        for (k, c) in try document.comments(for: id).enumerated() {
            let indent = k == 0 ? "  " : "    "
            print("\(indent)\(c.creationDate?.description ?? "(no date)")  \(c.author ?? "(no author)"): \(c.contents ?? "")")
        }
        let summary = try document.reviewSummary(for: id)
        print("Review:")
        if summary.current.isEmpty { print("  (no review states)") }
        for s in summary.current { print("  \(s.author ?? "(no author)"): \(s.state ?? "") (\(s.stateModel ?? ""))") }
        print("History:")
        for s in summary.history {
            print("  \(s.creationDate?.description ?? "(no date)")  \(s.author ?? "(no author)") set \(s.stateModel ?? "")/\(s.state ?? "")")
        }
    }
}

func main() -> Int32 {
    let arguments = CommandLine.arguments.dropFirst()
    guard let command = arguments.first else {
        standardError(synopsis)
        standardError("Run 'quire --help' for the commands and options.")
        return 2
    }
    do {
        switch command {
        case "info":
            try InfoCommand(arguments: arguments.dropFirst()).run()
        case "check":
            return try CheckCommand(arguments: arguments.dropFirst()).run()
        case "annots":
            try AnnotsCommand(arguments: arguments.dropFirst()).run()
        case "thread":
            try ThreadCommand(arguments: arguments.dropFirst()).run()
        case "fields":
            try FieldsCommand(arguments: arguments.dropFirst()).run()
        case "fill":
            try FillCommand(arguments: arguments.dropFirst()).run()
        case "flatten":
            try FlattenCommand(arguments: arguments.dropFirst()).run()
        case "redact":
            return try RedactCommand(arguments: arguments.dropFirst()).run()
        case "text":
            try TextCommand(arguments: arguments.dropFirst()).run()
        case "search":
            return try SearchCommand(arguments: arguments.dropFirst()).run()
        case "export":
            try ExportCommand(arguments: arguments.dropFirst()).run()
        case "import":
            try ImportCommand(arguments: arguments.dropFirst()).run()
        case "pages":
            try PagesCommand(arguments: arguments.dropFirst()).run()
        case "merge":
            try MergeCommand(arguments: arguments.dropFirst()).run()
        case "split":
            try SplitCommand(arguments: arguments.dropFirst()).run()
        case "encrypt", "decrypt":
            try EncryptCommand(arguments: arguments.dropFirst(), decrypt: command == "decrypt").run()
        case "sign":
            try SignCommand(arguments: arguments.dropFirst()).run()
        case "verify":
            return try VerifyCommand(arguments: arguments.dropFirst()).run()
        case "doctor":
            try DoctorCommand(arguments: arguments.dropFirst()).run()
        case "--version", "version":
            print("quire \(QUIRE_VERSION_STRING)")
        case "-h", "--help":
            print(usage)
        case "help":
            let rest = arguments.dropFirst()
            guard rest.count <= 1 else { throw UsageError(message: "help takes at most one COMMAND", command: "help") }
            guard let text = help(rest.first) else { throw UsageError(message: "unknown command '\(rest.first ?? "")'") }
            print(text)
        default:
            throw UsageError(message: "unknown command '\(command)'")
        }
        return 0
    } catch let h as HelpRequest {
        print(help(h.command) ?? usage)
        return 0
    } catch let e as UsageError {
        if !e.message.isEmpty { standardError("quire: \(e.message)") }
        if let command = e.command, let text = help(command) {
            standardError(String(text.prefix { $0 != "\n" }))
            standardError("Run 'quire help \(command)' for its options.")
        } else {
            standardError(synopsis)
            standardError("Run 'quire --help' for the commands and options.")
        }
        return 2
    } catch let e as PDFError {
        standardError("quire: \(e.kind.statusName): \(e.message.split(separator: "\n").joined(separator: " "))")
        return 1
    } catch {
        standardError("quire: QUIRE_EINTERNAL: \(error)")
        return 1
    }
}

exit(main())
