// libFuzzer target (e) digital signatures: the CMS of /Contents and the signature dictionary, as
// validation reads them (Fuzzing.signatures).
//
// Built only by `make fuzz` (QUIRE_FUZZ=1 swift build -Xswiftc -sanitize=fuzzer,address; see
// Tests/fuzz/README.md). main() is this file's top-level code, which hands the command line
// to libFuzzer's driver: SwiftPM links executables with main defined as the module's own
// entry point, so libFuzzer's main() cannot be used. The work itself is in
// QuireFuzzSupport, shared with the regression tests that replay every input that once
// failed.
import CLibFuzzer
import QuireFuzzSupport
#if canImport(Glibc)
import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    Fuzzing.signatures(bytes)
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzTestOneInput))
