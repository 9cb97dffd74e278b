import QuireSyntax
#if canImport(Glibc)
import Glibc
#endif

/// What a build of Quire is and where it looks, for bug reports (`quire doctor`,
/// `quire_build_info`, Python's `quire.build_info()`): one JSON object whose keys the
/// callers share, so that the library and the command-line tool describe themselves alike.
/// The version and the features are the caller's (each binary knows what it was built
/// with); the rest is the model's.
public enum BuildInfo {
    /// The soname of `version` ("0.5.0" gives libquire.so.0.5: while the major version is 0
    /// a minor release may break the ABI, docs/abi.md), and the ABI version in it.
    public static func abi(of version: String) -> (abi: String, soname: String) {
        let parts = version.split(separator: ".")
        let major = parts.first.map(String.init) ?? "0"
        let abi = major == "0" && parts.count > 1 ? "\(major).\(parts[1])" : major
        return (abi, "libquire.so.\(abi)")
    }

    /// The object: `version`, `abi`, `soname`, `features` (each a boolean), `build`
    /// ("release" or "debug"), `checkpoint_directory` (where checkpoints go by default for
    /// this process's environment), `environment` (the variables that change what Quire
    /// does, as set: XDG_STATE_HOME, HOME, QUIRE_LIBRARY), `limits` (the defaults of the
    /// open options) and `platform` (uname: system, release, machine). `extra` adds keys.
    public static func json(version: String, features: [String: Bool],
                            extra: [String: InstantJSONValue] = [:]) -> InstantJSONValue {
        let (abi, soname) = abi(of: version)
        let limits = PDFLimits.default
        var environment: [String: InstantJSONValue] = [:]
        for name in ["XDG_STATE_HOME", "HOME", "QUIRE_LIBRARY"] {
            environment[name] = getenv(name).map { .string(String(cString: $0)) } ?? .null
        }
        var object: [String: InstantJSONValue] = [
            "version": .string(version),
            "abi": .string(abi),
            "soname": .string(soname),
            "features": .object(features.mapValues(InstantJSONValue.bool)),
            "build": .string(isDebugBuild ? "debug" : "release"),
            "checkpoint_directory": .string(CheckpointOptions.defaultDirectory()),
            "environment": .object(environment),
            "limits": .object([
                "max_nesting_depth": .integer(Int64(limits.maxNestingDepth)),
                "max_page_tree_depth": .integer(Int64(limits.maxPageTreeDepth)),
                "max_pages": .integer(Int64(limits.maxPages)),
                "max_xref_chain": .integer(Int64(limits.maxXRefChain)),
                "max_objects": .integer(Int64(limits.maxObjects)),
                "max_stream_bytes": .integer(Int64(limits.maxStreamBytes)),
                "max_total_decoded_bytes": .integer(Int64(limits.maxTotalDecodedBytes)),
                "max_decompression_ratio": .integer(Int64(limits.maxDecompressionRatio)),
            ]),
            "platform": platform,
        ]
        for (key, value) in extra { object[key] = value }
        return .object(object)
    }

    private static var isDebugBuild: Bool {
        #if DEBUG
        return true
        #else
        return false
        #endif
    }

    /// uname(2): the system, its release and the machine.
    private static var platform: InstantJSONValue {
        var names = utsname()
        guard uname(&names) == 0 else { return .null }
        func field<T>(_ value: T) -> InstantJSONValue {
            withUnsafeBytes(of: value) { raw in
                .string(String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self))
            }
        }
        return .object(["system": field(names.sysname), "release": field(names.release), "machine": field(names.machine)])
    }
}
