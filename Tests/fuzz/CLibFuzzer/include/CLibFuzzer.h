// libFuzzer's driver, for fuzz targets whose main() is their own (see Package.swift).
#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer with the command line and the function to fuzz (libFuzzer's runtime,
/// linked by -sanitize=fuzzer, defines it; LLVM 11 and later).
int LLVMFuzzerRunDriver(int *argc, char ***argv,
                        int (*callback)(const uint8_t *data, size_t size));
