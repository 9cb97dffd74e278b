// quire pages, merge, split, encrypt, decrypt: page operations and encryption (issue 36,
// docs/pages.md). The rules are the model's (QuireDocument/Pages, Document+Encryption);
// this file parses arguments and prints what an operation reports.
import QuireDocument
import QuireSyntax

let pagesHelp: [String: String] = [
    "pages": """
        usage: quire pages [--password PW] [--full] FILE OPERATION ARGUMENTS -o OUT

        Change the pages of FILE and write the result to OUT (incrementally, unless --full).
        Pages are counted from 1; PAGES is a list such as 1,3,5-7 (a range N-M with N <= M).
        Operations:
          delete PAGES        delete the pages, with their annotations, the form fields of
                              their widgets, the outline items, named destinations and
                              bookmarks that go to them
          move PAGES TO       move the pages, in the order given, so that the first stands
                              at page TO of the result (1 to the page count minus their number)
          rotate PAGES TURNS  turn the pages by TURNS quarter turns clockwise (negative:
                              counterclockwise), added to their own rotation
          insert AT [N]       insert N (default 1) blank US Letter pages before page AT
                              (the page count plus 1 appends)
        What the operation dropped or renamed is printed on standard error. See
        docs/pages.md for what travels with a page.

        Options:
          -o OUT         the file to write
          --full         write the whole file, not FILE's bytes and an update
          --password PW  the user or owner password of an encrypted FILE
          -h, --help     print this help and exit

        Exit status:
          0 written; 1 the file could not be read, the operation was refused or OUT not
          written; 2 a usage error
        """,
    "merge": """
        usage: quire merge [--password PW] FILE FILE... -o OUT

        Write a new document OUT of every page of each FILE, one after the other, with what
        travels with the pages (annotations, form fields merged with a clash of names
        renamed NAME_2, links, outline items, named destinations, page labels, bookmarks)
        and the first file's information dictionary. --password opens every FILE that
        needs one. Warnings are printed on standard error.

        Options:
          -o OUT         the file to write
          --password PW  the password of every encrypted FILE
          -h, --help     print this help and exit

        Exit status:
          0 written; 1 a file could not be read or OUT not written; 2 a usage error
        """,
    "split": """
        usage: quire split [--password PW] [-n N] FILE -o PREFIX

        Write the pages of FILE into new documents of N pages each (default 1), named
        PREFIX-001.pdf, PREFIX-002.pdf, ..., each with what travels with its pages. The
        parts are not encrypted. Prints the name of each file written.

        Options:
          -o PREFIX      the start of the parts' names
          -n N           pages in each part (default 1)
          --password PW  the user or owner password of an encrypted FILE
          -h, --help     print this help and exit

        Exit status:
          0 written; 1 the file could not be read or a part not written; 2 a usage error
        """,
    "encrypt": """
        usage: quire encrypt [--password PW] [--user U] [--owner O] [--aes128]
                             [--permissions LIST] [--keep-metadata] FILE -o OUT

        Write FILE encrypted to OUT (a full save): AES-256 (revision 6) by default,
        AES-128 (revision 4) with --aes128; never RC4. U opens the document with the
        permissions (none: anyone can open it), O with all of them (none: U). LIST is
        comma-separated names of print, modify, copy, annotate, fill-forms, accessibility,
        assemble, print-high-quality, or "all" (the default) or "none". --keep-metadata
        leaves the XMP metadata unencrypted. An encrypted FILE needs its owner password
        (--password).

        Options:
          -o OUT               the file to write
          --user U             the user password (none: anyone can open it)
          --owner O            the owner password (none: U)
          --aes128             AES-128 (revision 4) instead of AES-256
          --permissions LIST   what the user password allows (default all)
          --keep-metadata      leave the XMP metadata unencrypted
          --password PW        the owner password of an encrypted FILE
          -h, --help           print this help and exit

        Exit status:
          0 written; 1 the file could not be read, a password was wrong or OUT not
          written; 2 a usage error
        """,
    "decrypt": """
        usage: quire decrypt --password PW FILE -o OUT

        Write FILE without encryption to OUT (a full save). PW must be the owner password
        (the user password is enough when the file has no other).

        Options:
          -o OUT         the file to write
          --password PW  the owner password
          -h, --help     print this help and exit

        Exit status:
          0 written; 1 the file could not be read, the password was wrong or OUT not
          written; 2 a usage error
        """,
]

/// The options these commands share: --password, --full, -o, and positional arguments.
struct PageCommandArguments {
    var password: String?
    var output = ""
    var full = false
    var positional: [String] = []
    var options: [String: String] = [:]
    var flags: Set<String> = []

    /// `valued` are the options that take a value; `switches` those that do not.
    init(_ arguments: ArraySlice<String>, command: String, valued: Set<String> = [], switches: Set<String> = []) throws {
        var args = arguments
        while let arg = args.popFirst() {
            switch arg {
            case "-o", "--output":
                guard let o = args.popFirst() else { throw UsageError(message: "-o needs a file", command: command) }
                output = o
            case "--password":
                guard let pw = args.popFirst() else { throw UsageError(message: "--password needs a value", command: command) }
                password = pw
            case "-h", "--help": throw HelpRequest(command: command)
            case _ where valued.contains(arg):
                guard let v = args.popFirst() else { throw UsageError(message: "\(arg) needs a value", command: command) }
                options[arg] = v
            case _ where switches.contains(arg): flags.insert(arg)
            default:
                if arg.hasPrefix("--password=") { password = String(arg.dropFirst("--password=".count)); continue }
                // A negative number is an argument (rotate -1), not an option.
                if arg.hasPrefix("-") && arg != "-" && Int(arg) == nil {
                    throw UsageError(message: "unknown option \(arg)", command: command)
                }
                positional.append(arg)
            }
        }
        guard !output.isEmpty else { throw UsageError(message: "\(command) needs -o", command: command) }
    }

    func open(_ path: String) throws -> Document {
        try Document(path: path, options: OpenOptions(password: password))
    }
}

/// 1-based PAGES ("1,3,5-7") as 0-based indices; a reversed or empty range is a usage error.
func pageList(_ text: String, command: String) throws -> [Int] {
    var out: [Int] = []
    for part in text.split(separator: ",", omittingEmptySubsequences: false) {
        let bounds = part.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = bounds.first.flatMap({ Int($0) }), first >= 1,
              let last = bounds.count == 2 ? Int(bounds[1]) : first, last >= first else {
            throw UsageError(message: "'\(part)' is not a page or a range N-M of pages counted from 1 (N <= M)", command: command)
        }
        guard last - first < 1 << 20 else { throw UsageError(message: "the range '\(part)' is too long", command: command) }
        out += (first - 1)...(last - 1)
    }
    return out
}

func printReport(_ report: PageEditReport) {
    for rename in report.renamedFields { standardError("quire: renamed field \(rename.from) to \(rename.to)") }
    for warning in report.warnings { standardError("quire: warning: \(warning)") }
}

struct PagesCommand {
    let arguments: PageCommandArguments

    init(arguments: ArraySlice<String>) throws {
        self.arguments = try PageCommandArguments(arguments, command: "pages", switches: ["--full"])
    }

    func run() throws {
        let p = arguments.positional
        guard p.count >= 2 else { throw UsageError(message: "pages takes FILE and an operation", command: "pages") }
        let document = try arguments.open(p[0])
        let rest = Array(p.dropFirst(2))
        func number(_ i: Int, _ what: String) throws -> Int {
            guard i < rest.count, let n = Int(rest[i]) else { throw UsageError(message: "\(p[1]) needs \(what)", command: "pages") }
            return n
        }
        // The model counts pages from 0; the command's user from 1, and so do its messages.
        let count = try document.pages().count
        func pages(_ text: String) throws -> [Int] {
            let list = try pageList(text, command: "pages")
            if let bad = list.first(where: { $0 >= count }) {
                throw PDFError(.range, "page \(bad + 1) is out of range (the document has \(count) page\(count == 1 ? "" : "s"))")
            }
            return list
        }
        let report: PageEditReport
        switch p[1] {
        case "delete" where rest.count == 1:
            report = try document.deletePages(try pages(rest[0]))
        case "move" where rest.count == 2:
            let moving = try pages(rest[0]), to = try number(1, "TO"), last = count - moving.count + 1
            guard (1...max(1, last)).contains(to) else {
                throw PDFError(.range, "TO \(to) is out of range (1 to \(last) for \(moving.count) page\(moving.count == 1 ? "" : "s") of \(count))")
            }
            report = try document.movePages(moving, to: to - 1)
        case "rotate" where rest.count == 2:
            report = try document.rotatePages(try pages(rest[0]), by: try number(1, "TURNS"))
        case "insert" where rest.count == 1 || rest.count == 2:
            let at = try number(0, "AT")
            guard (1...(count + 1)).contains(at) else {
                throw PDFError(.range, "AT \(at) is out of range (1 to \(count + 1): before a page, or after the last)")
            }
            report = try document.insertBlankPages(at: at - 1, count: rest.count == 2 ? try number(1, "N") : 1)
        case "delete", "move", "rotate", "insert":
            throw UsageError(message: "wrong number of arguments for \(p[1])", command: "pages")
        default:
            throw UsageError(message: "unknown operation '\(p[1])' (delete, move, rotate, insert)", command: "pages")
        }
        printReport(report)
        try document.save(to: arguments.output, mode: arguments.flags.contains("--full") ? .full(objectStreams: false) : .incremental)
    }
}

struct MergeCommand {
    let arguments: PageCommandArguments

    init(arguments: ArraySlice<String>) throws {
        self.arguments = try PageCommandArguments(arguments, command: "merge")
        guard !self.arguments.positional.isEmpty else { throw UsageError(message: "merge takes at least one FILE", command: "merge") }
    }

    func run() throws {
        let merged = try Document.merged(try arguments.positional.map { try arguments.open($0) })
        for warning in merged.warnings { standardError("quire: warning: \(warning)") }
        try merged.save(to: arguments.output, mode: .full(objectStreams: false))
    }
}

struct SplitCommand {
    let arguments: PageCommandArguments
    let size: Int

    init(arguments: ArraySlice<String>) throws {
        self.arguments = try PageCommandArguments(arguments, command: "split", valued: ["-n"])
        guard self.arguments.positional.count == 1 else { throw UsageError(message: "split takes exactly one FILE", command: "split") }
        guard let n = Int(self.arguments.options["-n"] ?? "1"), n >= 1 else {
            throw UsageError(message: "-n takes a number of pages from 1", command: "split")
        }
        size = n
    }

    func run() throws {
        let document = try arguments.open(arguments.positional[0])
        let count = try document.pages().count
        var part = 0
        for start in stride(from: 0, to: count, by: size) {
            part += 1
            let extracted = try document.extractPages(Array(start..<min(start + size, count)))
            let digits = String(part)
            let name = "\(arguments.output)-\(String(repeating: "0", count: max(0, 3 - digits.count)))\(digits).pdf"
            try extracted.save(to: name, mode: .full(objectStreams: false))
            print(name)
        }
    }
}

struct EncryptCommand {
    let arguments: PageCommandArguments
    let decrypt: Bool

    static let permissionNames: [String: NewEncryption.Permissions] = [
        "print": .print, "modify": .modify, "copy": .copy, "annotate": .annotate, "fill-forms": .fillForms,
        "accessibility": .extractForAccessibility, "assemble": .assemble, "print-high-quality": .printHighQuality,
        "all": .all, "none": [],
    ]

    init(arguments: ArraySlice<String>, decrypt: Bool) throws {
        let command = decrypt ? "decrypt" : "encrypt"
        self.arguments = try PageCommandArguments(arguments, command: command,
                                                  valued: decrypt ? [] : ["--user", "--owner", "--permissions"],
                                                  switches: decrypt ? [] : ["--aes128", "--keep-metadata"])
        self.decrypt = decrypt
        guard self.arguments.positional.count == 1 else { throw UsageError(message: "\(command) takes exactly one FILE", command: command) }
        if decrypt && self.arguments.password == nil { throw UsageError(message: "decrypt needs --password", command: command) }
    }

    func run() throws {
        let document = try arguments.open(arguments.positional[0])
        if decrypt {
            try document.setEncryption(nil, ownerPassword: arguments.password)
        } else {
            var permissions: NewEncryption.Permissions = []
            for name in (arguments.options["--permissions"] ?? "all").split(separator: ",") {
                guard let p = Self.permissionNames[String(name)] else {
                    throw UsageError(message: "unknown permission '\(name)'", command: "encrypt")
                }
                permissions.formUnion(p)
            }
            let settings = NewEncryption(method: arguments.flags.contains("--aes128") ? .aes128 : .aes256,
                                         userPassword: arguments.options["--user"] ?? "",
                                         ownerPassword: arguments.options["--owner"] ?? "",
                                         permissions: permissions,
                                         encryptMetadata: !arguments.flags.contains("--keep-metadata"))
            try document.setEncryption(settings, ownerPassword: arguments.password)
        }
        try document.save(to: arguments.output, mode: .full(objectStreams: false))
    }
}
