// header_cxx.cpp: include/quire.h compiled as C++11 (g++ -std=c++11 -Wall -Wextra -Werror
// -pedantic, plus -Wold-style-cast and -Wzero-as-null-pointer-constant, which C++ projects
// commonly turn on and which a header's macros must not trip). The checks are those of
// header_c99.c, compiled as C++; `nm -u` of this object must show the functions unmangled,
// which proves the header's extern "C" block.
#include "header_c99.c"
