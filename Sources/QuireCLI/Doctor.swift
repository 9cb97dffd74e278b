// quire doctor: what this build of Quire is and where it looks, for bug reports (issue 40).
import CQuire
import QuireDocument
import QuireSyntax
#if canImport(Glibc)
import Glibc
#endif

let doctorHelp: [String: String] = [
    "doctor": """
        usage: quire doctor [--json]

        Print what this build of Quire is, for a bug report: the version, the ABI and the
        soname of the library built with this tool, the build (release or debug), the
        features built in (the sync service; the sync client's HTTP client and its TLS,
        which a build with QUIRE_NO_SERVER lacks; the PostgreSQL store of quire-server),
        the directory checkpoints go to by default and the environment variables that
        decide it, the default limits on hostile input, the platform, and where this
        program, the library and quire-server are. The C library says the same of itself
        through quire_build_info, and Python through quire.build_info().

        Options:
          --json         print one JSON object: version, abi, soname, build, features
                         (sync_service, sync_client, tls, postgresql: booleans),
                         checkpoint_directory, environment, limits, platform, and
                         program, library and server (paths, or null when not found)
          -h, --help     print this help and exit

        Exit status:
          0 printed; 2 a usage error
        """,
]

/// `quire doctor`.
struct DoctorCommand {
    var json = false

    init(arguments: ArraySlice<String>) throws {
        for arg in arguments {
            switch arg {
            case "--json": json = true
            case "-h", "--help": throw HelpRequest(command: "doctor")
            default: throw UsageError(message: arg.hasPrefix("-") ? "unknown option \(arg)" : "doctor takes no FILE", command: "doctor")
            }
        }
    }

    /// What the library and quire-server of this build have: Package.swift defines
    /// QUIRE_SYNC_HTTP for this tool when it builds them with the HTTP client (not with
    /// QUIRE_NO_SERVER), the condition under which libquire.so has it.
    static var features: [String: Bool] {
        #if QUIRE_SYNC_HTTP
        let http = true
        #else
        let http = false
        #endif
        // The PostgreSQL store is quire-server's (Sources/QuireSyncPostgres), built with it.
        return ["sync_service": true, "sync_client": http, "tls": http, "postgresql": http]
    }

    /// This program's path (/proc/self/exe), or nil.
    static func programPath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func run() throws {
        let program = DoctorCommand.programPath()
        let directory = program.map { String($0[..<($0.lastIndex(of: "/") ?? $0.startIndex)]) }
        let soname = BuildInfo.abi(of: QUIRE_VERSION_STRING).soname
        func existing(_ path: String?) -> InstantJSONValue {
            guard let path, let resolved = realpath(path, nil) else { return .null }
            defer { free(resolved) }
            return .string(String(cString: resolved))
        }
        // Installed (PREFIX/bin and PREFIX/lib) or in the build tree (build/bin, build/lib).
        let library = existing(directory.map { $0 + "/../lib/" + soname })
        let server = existing(directory.map { $0 + "/quire-server" })
        let info = BuildInfo.json(version: QUIRE_VERSION_STRING, features: DoctorCommand.features,
                                  extra: ["program": program.map(InstantJSONValue.string) ?? .null,
                                          "library": library, "server": server])
        if json {
            print(info.text)
            return
        }
        guard case .object(let o) = info else { return }
        func text(_ v: InstantJSONValue?) -> String {
            switch v {
            case .string(let s)?: return s
            case .integer(let n)?: return String(n)
            case .bool(let b)?: return b ? "yes" : "no"
            default: return "(none)"
            }
        }
        func fields(_ v: InstantJSONValue?) -> [(String, InstantJSONValue)] {
            guard case .object(let f)? = v else { return [] }
            return f.sorted { $0.key < $1.key }
        }
        print("quire:                \(text(o["version"])) (\(text(o["build"])) build)")
        print("ABI:                  \(text(o["abi"])) (soname \(text(o["soname"])))")
        print("Features:             " + fields(o["features"]).map { "\($0.0) \(text($0.1))" }.joined(separator: ", "))
        print("Checkpoint directory: \(text(o["checkpoint_directory"]))")
        print("Environment:          " + fields(o["environment"]).map { "\($0.0)=\(text($0.1))" }.joined(separator: " "))
        print("Limits:               " + fields(o["limits"]).map { "\($0.0)=\(text($0.1))" }.joined(separator: " "))
        print("Platform:             " + fields(o["platform"]).map { text($0.1) }.joined(separator: " "))
        print("Program:              \(text(o["program"]))")
        print("Library:              \(text(o["library"]))")
        print("quire-server:         \(text(o["server"]))")
    }
}
