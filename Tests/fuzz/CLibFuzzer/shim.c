// Empty: the target exists for its header, include/CLibFuzzer.h.
