// quire fields, quire fill: the form commands.
import QuireDocument
import QuireSyntax

let formsHelp: [String: String] = [
    "fields": """
        usage: quire fields [--json] [--password PW] FILE

        List the fields of the form of FILE, one a line: the fully qualified name, the
        type (text, checkBox, radioButton, comboBox, listBox, pushButton, signature,
        unknown), the value, then "read-only" and "required" when the field is, and the
        options or on-states a value may take ("options: ..."). The first line says what
        kind of form FILE has (none, acroForm, xfaForeground, xfaOnly: XFA forms are
        reported, never filled).

        Options:
          --json         print one JSON object instead: form (the kind) and fields, an array
                         of objects with name, type, value (a string, an array for list
                         boxes, or null), read_only, required, options (export values),
                         widgets (an array of {page, rect}; page from 0, null when no
                         page lists the widget)
          --password PW  the user or owner password of an encrypted file
          -h, --help     print this help and exit

        Exit status:
          0 the fields were listed; 1 the file could not be read; 2 a usage error
        """,
    "fill": """
        usage: quire fill [--password PW] [--full] [--values JSON] [--field NAME --value V]... FILE [NAME=VALUE]... -o OUT

        Set fields of FILE and write the result to OUT, incrementally (FILE's bytes, then
        the changes) unless --full. The appearances of the changed fields are regenerated.
        A check box or radio group takes "Off" or one of its on-states (see quire fields);
        a multi-select list box takes several values (a JSON array, or values separated by
        newlines). The rules of ISO 32000-2 §12.7 apply: a read-only field, a value longer
        than /MaxLen, a value that is not an option, stop the command with status 1 and
        nothing written. Values are set in the order given: --values first, then each
        --field, then each NAME=VALUE.

        NAME=VALUE splits at the first '=', so a field whose name has one
        ("Calculated.5 Val=num*2") is named with --field or in --values.

        Options:
          -o OUT         the file to write (required; may be FILE itself)
          --field NAME   the field that the next --value sets (any name, '=' included)
          --value V      the value for the --field before it
          --values JSON  a JSON file (- for standard input) of one object: each key a
                         field's full name, each value a string or, for a list box, an
                         array of strings ({"Name": "Ada", "Colours": ["red", "blue"]});
                         numbers and booleans are set as their JSON text
          --full         rewrite the whole file instead of appending an update
          --password PW  the user or owner password of an encrypted file
          -h, --help     print this help and exit

        Exit status:
          0 written; 1 the file could not be read, a field is missing or refused its value
          (one line on standard error names the status); 2 a usage error
        """,
    "flatten": """
        usage: quire flatten [--password PW] [--full] [--subtypes LIST] [--no-links] FILE -o OUT

        Burn the annotations of FILE into its pages (their normal appearances, drawn where
        they were) and remove them, then write OUT: the pages look the same and nothing
        remains editable. Replies and hidden annotations are removed, not drawn; links
        stay unless --no-links; with no widget left, the form is removed too.

        Options:
          -o OUT           the file to write (required)
          --subtypes LIST  only these subtypes, comma-separated (Widget for form fields,
                           Highlight, Ink, ...); the default is all but Link and Popup
          --no-links       remove links too
          --full           rewrite the whole file instead of appending an update
          --password PW    the user or owner password of an encrypted file
          -h, --help       print this help and exit

        Exit status:
          0 written; 1 the file could not be read or written; 2 a usage error
        """,
]

struct FlattenCommand {
    var password: String?
    var path = ""
    var output = ""
    var full = false
    var subtypes: Set<String>? = nil
    var keepLinks = true

    init(arguments: ArraySlice<String>) throws {
        var args = arguments
        var positional: [String] = []
        while let arg = args.popFirst() {
            switch arg {
            case "-o", "--output":
                guard let o = args.popFirst() else { throw UsageError(message: "-o needs a file", command: "flatten") }
                output = o
            case "--full": full = true
            case "--no-links": keepLinks = false
            case "--subtypes":
                guard let s = args.popFirst() else { throw UsageError(message: "--subtypes needs a list", command: "flatten") }
                subtypes = Set(s.split(separator: ",").map(String.init))
            case "--password":
                guard let pw = args.popFirst() else { throw UsageError(message: "--password needs a value", command: "flatten") }
                password = pw
            case "-h", "--help": throw HelpRequest(command: "flatten")
            default:
                if arg.hasPrefix("--password=") { password = String(arg.dropFirst("--password=".count)); continue }
                if arg.hasPrefix("-") && arg != "-" { throw UsageError(message: "unknown option \(arg)", command: "flatten") }
                positional.append(arg)
            }
        }
        guard positional.count == 1 else { throw UsageError(message: "flatten takes exactly one FILE", command: "flatten") }
        guard !output.isEmpty else { throw UsageError(message: "flatten needs -o OUT", command: "flatten") }
        path = positional[0]
    }

    func run() throws {
        let document = try Document(path: path, options: OpenOptions(password: password))
        try document.flatten(FlattenOptions(subtypes: subtypes, keepLinks: keepLinks))
        try document.save(to: output, mode: full ? .full(objectStreams: false) : .incremental)
    }
}

struct FieldsCommand {
    let arguments: FileArguments

    init(arguments: ArraySlice<String>) throws {
        self.arguments = try FileArguments(arguments: arguments, command: "fields", allowJSON: true)
    }

    func run() throws {
        let document = try arguments.open()
        let kind = try document.formKind()
        let fields = try document.formFields()
        if arguments.json {
            let items: [InstantJSONValue] = fields.map { f in
                let value: InstantJSONValue = f.type == .listBox ? .array(f.values.map(InstantJSONValue.string))
                    : f.values.first.map(InstantJSONValue.string) ?? .null
                return .object([
                    "name": .string(f.name),
                    "type": .string(f.type.rawValue),
                    "value": value,
                    "read_only": .bool(f.isReadOnly),
                    "required": .bool(f.isRequired),
                    "options": .array(f.options.map { .string($0.exportValue) }),
                    "widgets": .array(f.widgets.map { w in
                        .object([
                            "page": w.pageIndex.map { integer($0) } ?? .null,
                            "rect": .array([w.rect.left, w.rect.bottom, w.rect.right, w.rect.top].map(InstantJSONValue.number)),
                        ])
                    }),
                ])
            }
            print(InstantJSONValue.object(["form": .string(kindName(kind)), "fields": .array(items)]).text)
            return
        }
        print("Form: \(kindName(kind)), \(fields.count) field\(fields.count == 1 ? "" : "s")")
        for f in fields {
            var line = "\(f.name)  \(f.type.rawValue)  \"\(f.value.split(separator: "\n").joined(separator: "|"))\""
            if f.isReadOnly { line += "  read-only" }
            if f.isRequired { line += "  required" }
            if !f.options.isEmpty { line += "  options: " + f.options.map(\.exportValue).joined(separator: ", ") }
            print(line)
        }
    }

    private func kindName(_ k: FormKind) -> String {
        switch k {
        case .none: return "none"
        case .acroForm: return "acroForm"
        case .xfaForeground: return "xfaForeground"
        case .xfaOnly: return "xfaOnly"
        }
    }
}

struct FillCommand {
    var password: String?
    var path = ""
    var output = ""
    var full = false
    /// Each field's values, in the order they are set.
    var assignments: [(name: String, values: [String])] = []
    /// Names of NAME=VALUE arguments whose value holds another '=' (the name may have been meant to).
    var splitAtFirst: Set<String> = []

    init(arguments: ArraySlice<String>) throws {
        var args = arguments
        var positional: [String] = []
        var fromOptions: [(name: String, values: [String])] = []
        var valuesFile: String?
        var pendingField: String?
        while let arg = args.popFirst() {
            switch arg {
            case "-o", "--output":
                guard let o = args.popFirst() else { throw UsageError(message: "-o needs a file", command: "fill") }
                output = o
            case "--full": full = true
            case "--password":
                guard let pw = args.popFirst() else { throw UsageError(message: "--password needs a value", command: "fill") }
                password = pw
            case "--field":
                guard let name = args.popFirst() else { throw UsageError(message: "--field needs a NAME", command: "fill") }
                if let pending = pendingField { throw UsageError(message: "--field \(pending) has no --value", command: "fill") }
                pendingField = name
            case "--value":
                guard let value = args.popFirst() else { throw UsageError(message: "--value needs a value", command: "fill") }
                guard let name = pendingField else { throw UsageError(message: "--value \(value) comes after no --field NAME", command: "fill") }
                fromOptions.append((name, [value]))
                pendingField = nil
            case "--values":
                guard let file = args.popFirst() else { throw UsageError(message: "--values needs a JSON file (or -)", command: "fill") }
                guard valuesFile == nil else { throw UsageError(message: "--values is given twice", command: "fill") }
                valuesFile = file
            case "-h", "--help": throw HelpRequest(command: "fill")
            default:
                if arg.hasPrefix("--password=") { password = String(arg.dropFirst("--password=".count)); continue }
                if arg.hasPrefix("-") && arg != "-" && !arg.contains("=") { throw UsageError(message: "unknown option \(arg)", command: "fill") }
                positional.append(arg)
            }
        }
        if let pending = pendingField { throw UsageError(message: "--field \(pending) has no --value", command: "fill") }
        guard let first = positional.first else { throw UsageError(message: "fill takes FILE", command: "fill") }
        guard !output.isEmpty else { throw UsageError(message: "fill needs -o OUT", command: "fill") }
        path = first
        if let valuesFile { assignments += try FillCommand.values(from: valuesFile) }
        assignments += fromOptions
        for a in positional.dropFirst() {
            guard let eq = a.firstIndex(of: "="), eq != a.startIndex else {
                throw UsageError(message: "'\(a)' is not NAME=VALUE (name a field with '=' in it with --field NAME --value V)", command: "fill")
            }
            assignments.append((String(a[..<eq]), [String(a[a.index(after: eq)...])]))
            if a[a.index(after: eq)...].contains("=") { splitAtFirst.insert(String(a[..<eq])) }
        }
        guard !assignments.isEmpty else { throw UsageError(message: "fill takes at least one value (NAME=VALUE, --field NAME --value V, or --values JSON)", command: "fill") }
    }

    /// The values of a --values file: one JSON object of names to strings or arrays.
    static func values(from file: String) throws -> [(name: String, values: [String])] {
        let bytes = file == "-" ? try readStandardInput() : try ByteBuffer.read(path: file).loadedCopy()
        let where_ = file == "-" ? "standard input" : file
        let json: InstantJSONValue
        do {
            json = try InstantJSONValue(parsing: bytes)
        } catch let e as PDFError {
            throw PDFError(.format, "--values \(where_): \(e.message)")
        }
        guard case .object(let object) = json else {
            throw PDFError(.format, "--values \(where_): not a JSON object of field names to values")
        }
        func text(_ v: InstantJSONValue, _ name: String) throws -> String {
            switch v {
            case .string(let s): return s
            case .integer(let n): return String(n)
            case .number, .bool: return v.text
            default: throw PDFError(.format, "--values \(where_): the value of \"\(name)\" is not a string, a number, a boolean or an array of strings")
            }
        }
        // In the order of the names, so that a run is repeatable (JSON objects are unordered).
        return try object.keys.sorted().map { name in
            guard let value = object[name] else { return (name, []) }
            if case .array(let items) = value { return (name, try items.map { try text($0, name) }) }
            return (name, [try text(value, name)])
        }
    }

    func run() throws {
        let document = try Document(path: path, options: OpenOptions(password: password))
        for (name, values) in assignments {
            if values.count == 1 {
                do {
                    try document.setFieldValue(values[0], named: name)
                } catch let e as PDFError where e.kind == .notFound && splitAtFirst.contains(name) {
                    // "Val=num*2=10" is the field "Val" set to "num*2=10": say how to name the other.
                    throw PDFError(e.kind, "\(e.message) (NAME=VALUE splits at the first '='; name a field with '=' in it with --field NAME --value V)")
                }
            } else {
                try document.setFieldValues(values, of: try document.formField(named: name))
            }
        }
        try document.save(to: output, mode: full ? .full(objectStreams: false) : .incremental)
    }
}
