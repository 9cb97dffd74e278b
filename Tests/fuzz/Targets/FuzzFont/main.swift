// libFuzzer target (d) embedded font programs (issue 18): TrueType, CFF (bare, CID-keyed,
// OpenType) and Type 1 (PFA, PFB) parsed and their glyphs' boxes read by running the
// charstrings, as text extraction does for a character's glyph box.
//
// Built only by `make fuzz` (see Tests/fuzz/README.md and FuzzJSON/main.swift for why
// main() is this file's top-level code). The work is Fuzzing.font in QuireFuzzSupport,
// shared with the regression tests that replay every input that once failed.
import CLibFuzzer
import QuireFuzzSupport
#if canImport(Glibc)
import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    Fuzzing.font(bytes)
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzTestOneInput))
