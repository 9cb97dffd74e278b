// quire: the command-line tool.
//
//   quire info [--json] [--password PW] FILE
//
// `quire info --json` is a contract that tests and outside checks rely on: one JSON object
// with at least pages, pdf_version, encrypted, repaired, warnings, annotations, metadata.
// On a file it cannot open, it prints one line naming the status and exits 1.
import QuireDocument
#if canImport(Glibc)
import Glibc
#endif

let usage = """
    usage: quire info [--json] [--password PW] FILE
           quire --version

    commands:
      info    print what the document is: pages, version, encryption, repair, metadata
    """

func standardError(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
}

struct UsageError: Error { let message: String }

struct InfoCommand {
    var json = false
    var password: String?
    var path: String = ""

    init(arguments: ArraySlice<String>) throws {
        var args = arguments
        var paths: [String] = []
        while let arg = args.popFirst() {
            switch arg {
            case "--json": json = true
            case "--password":
                guard let pw = args.popFirst() else { throw UsageError(message: "--password needs a value") }
                password = pw
            case "-h", "--help": throw UsageError(message: "")
            default:
                if arg.hasPrefix("--password=") { password = String(arg.dropFirst("--password=".count)); continue }
                if arg.hasPrefix("-") && arg != "-" { throw UsageError(message: "unknown option \(arg)") }
                paths.append(arg)
            }
        }
        guard paths.count == 1 else { throw UsageError(message: "info takes exactly one FILE") }
        path = paths[0]
    }

    func run() throws {
        let document = try Document(path: path, options: OpenOptions(password: password))
        let pages = try document.pages()
        var annotationsPerPage: [Int] = []
        for page in pages { annotationsPerPage.append(try page.annotationCount()) }
        let version = document.pdfVersion()
        let metadata = try document.metadata()
        let firstBox = try pages.first.map { try $0.box(.media) }
        if json {
            let object = JSON.object([
                ("pages", .int(pages.count)),
                ("pdf_version", .string("\(version.major).\(version.minor)")),
                ("encrypted", .bool(document.isEncrypted)),
                ("repaired", .bool(document.isRepaired)),
                ("warnings", .int(document.warnings.count)),
                ("annotations", .int(annotationsPerPage.reduce(0, +))),
                ("metadata", .object(metadata.map { ($0.key, JSON.string($0.value)) })),
                ("warning_messages", .array(document.warnings.map(JSON.string))),
            ])
            print(object.text)
            return
        }
        print("File:         \(path)")
        print("Pages:        \(pages.count)")
        print("PDF version:  \(version.major).\(version.minor)")
        print("Encrypted:    \(document.isEncrypted ? "yes" : "no")")
        print("Repaired:     \(document.isRepaired ? "yes" : "no")")
        print("Annotations:  \(annotationsPerPage.reduce(0, +))")
        if let box = firstBox { print("Page 1 size:  \(box.width) x \(box.height) pt") }
        for (key, value) in metadata { print("\(key + ":")\(String(repeating: " ", count: max(1, 14 - key.count - 1)))\(value)") }
        for warning in document.warnings { print("Warning:      \(warning)") }
    }
}

func main() -> Int32 {
    let arguments = CommandLine.arguments.dropFirst()
    guard let command = arguments.first else {
        standardError(usage)
        return 2
    }
    do {
        switch command {
        case "info":
            try InfoCommand(arguments: arguments.dropFirst()).run()
        case "--version", "version":
            print("quire 0.1.0")
        case "-h", "--help", "help":
            print(usage)
        default:
            throw UsageError(message: "unknown command '\(command)'")
        }
        return 0
    } catch let e as UsageError {
        if !e.message.isEmpty { standardError("quire: \(e.message)") }
        standardError(usage)
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
