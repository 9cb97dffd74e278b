#!/usr/bin/env python3
"""The version strings of the README, the docs and the packaging files agree with the header
(issue 40: the README of 0.5 still said 0.4, and its CMake line stopped the build).

The header's QUIRE_VERSION_STRING is the truth. Checked, in README.md, docs/*.md (not the
dated audits), CHANGELOG.md, bindings/cmake/*.in, bindings/python/pyproject.toml and
_raw.py, and the CMake files of the examples and tests:

- "This is version X.Y" states the current MAJOR.MINOR;
- a soname (libquire.so.N...) is the current one, unless its line (or the one before)
  names the older release it belongs to ("A program linked against 0.4 (`libquire.so.0`) ...");
- a wheel name (quire-X.Y.Z-py3-...) and pyproject's version are the current version;
- find_package(Quire X.Y ...) asks for the current MAJOR.MINOR (the package refuses
  any other minor while the major is 0);
- CHANGELOG.md's first release heading is the current version, with "(unreleased)" or the
  date of its release (docs/releasing.md), and its section says no other version's wheel
  or soname (the older sections are history, not checked);
- _raw.py's QUIRE_VERSION_STRING is the header's.

    check_versions.py [ROOT]          exit 1, with each wrong line, if any disagrees
    check_versions.py --self-test     the check catches what issue 40 found
"""

import glob
import os
import re
import sys


def header_version(root):
    text = open(os.path.join(root, "include", "quire.h"), encoding="utf-8").read()
    match = re.search(r'^#define QUIRE_VERSION_STRING "(\d+)\.(\d+)\.(\d+)"', text, re.M)
    if not match:
        raise SystemExit("check_versions: no QUIRE_VERSION_STRING in include/quire.h")
    return tuple(int(part) for part in match.groups())


def soname(version):
    major, minor, _ = version
    return "libquire.so.%d.%d" % (major, minor) if major == 0 else "libquire.so.%d" % major


def files(root):
    names = ["README.md", "CHANGELOG.md", "bindings/python/pyproject.toml", "bindings/python/quire/_raw.py"]
    names += sorted(glob.glob("docs/*.md", root_dir=root))
    names += sorted(glob.glob("bindings/cmake/*.in", root_dir=root))
    names += sorted(glob.glob("examples/**/CMakeLists.txt", root_dir=root, recursive=True))
    names += sorted(glob.glob("Tests/packaging/**/CMakeLists.txt", root_dir=root, recursive=True))
    return [n for n in names if os.path.exists(os.path.join(root, n))]


def older(text, version):
    """Whether `text` names a release older than `version` (such as "0.4")."""
    for match in re.finditer(r"(?<![\d.])(\d+)\.(\d+)(?:\.\d+)?(?![\d])", text):
        if (int(match.group(1)), int(match.group(2))) < version[:2]:
            return True
    return False


def problems_in(name, text, version):
    """Each (line number, line, what is wrong) of file `name` with contents `text`."""
    major, minor, patch = version
    full = "%d.%d.%d" % version
    short = "%d.%d" % (major, minor)
    found = []
    lines = text.splitlines()
    if name == "CHANGELOG.md":
        # Only the current release's section: the older ones are history.
        heads = [k for k, line in enumerate(lines) if line.startswith("## ")]
        lines = lines[: heads[1]] if len(heads) > 1 else lines
    for number, line in enumerate(lines, 1):
        # The sentence may name its release on the line before ("linked against 0.4\n(`libquire.so.0`)").
        context = (lines[number - 2] if number > 1 else "") + " " + line
        for m in re.finditer(r"This is version (\d+\.\d+(?:\.\d+)?)", line):
            if m.group(1) not in (short, full):
                found.append((number, line, "says version %s; the header is %s" % (m.group(1), full)))
        for m in re.finditer(r"libquire\.so\.(\d+(?:\.\d+)*)", line):
            if m.group(0) != soname(version) and not older(context, version):
                found.append((number, line, "soname %s; the header's is %s" % (m.group(0), soname(version))))
        for m in re.finditer(r"\bquire-(\d+\.\d+\.\d+)-py3", line):
            if m.group(1) != full:
                found.append((number, line, "wheel of version %s; the header is %s" % (m.group(1), full)))
        for m in re.finditer(r"find_package\(\s*Quire\s+(\d+(?:\.\d+)*)(?![\d.])", line):
            if m.group(1) not in (short, full):
                found.append((number, line, "find_package(Quire %s); this is %s" % (m.group(1), short)))
        if name.endswith("pyproject.toml"):
            m = re.match(r'\s*version\s*=\s*"([^"]*)"', line)
            if m and m.group(1) != full:
                found.append((number, line, "pyproject version %s; the header is %s" % (m.group(1), full)))
        if name.endswith("_raw.py"):
            m = re.match(r'\s*QUIRE_VERSION_STRING\s*=\s*"([^"]*)"', line)
            if m and m.group(1) != full:
                found.append((number, line, "QUIRE_VERSION_STRING %s; the header is %s" % (m.group(1), full)))
    if name == "CHANGELOG.md":
        m = re.search(r"^## (\S+)(.*)$", text, re.M)
        if not m or m.group(1) != full:
            found.append((0, m.group(0) if m else "", "the first release of CHANGELOG.md is not %s" % full))
        elif not re.fullmatch(r" \((unreleased|\d{4}-\d{2}-\d{2})\)", m.group(2)):
            # docs/releasing.md: a release dates its section (and tags vX.Y.Z); until then it
            # says so.
            found.append((0, m.group(0), "the first CHANGELOG.md heading says neither (unreleased) nor a "
                                         "release date (YYYY-MM-DD): docs/releasing.md"))
    return found


def check(root):
    version = header_version(root)
    failures = []
    names = files(root)
    for name in names:
        text = open(os.path.join(root, name), encoding="utf-8").read()
        for number, line, why in problems_in(name, text, version):
            failures.append("%s:%d: %s\n    %s" % (name, number, why, line.strip()))
    for failure in failures:
        print(failure)
    print("check_versions: %d files against quire.h %s (soname %s): %s"
          % (len(names), "%d.%d.%d" % version, soname(version),
             "%d wrong" % len(failures) if failures else "all agree"))
    return 1 if failures else 0


def self_test():
    """What the README of 0.5 said (issue 40), each line caught; the right lines pass."""
    version = (0, 5, 0)
    wrong = {
        "README.md": [
            "This is version 0.4. Documents open from a path",
            "| `build/lib/libquire.so.0`, `build/lib/libquire.so` | the library (soname `libquire.so.0`) |",
            "make wheel     # build/dist/quire-0.4.0-py3-none-manylinux_2_35_x86_64.whl",
            "find_package(Quire 0.4 REQUIRED)        # before 1.0: 0.4.x only",
        ],
        "bindings/cmake/QuireConfig.cmake.in": ["#   find_package(Quire 0.4 REQUIRED)"],
        "bindings/python/pyproject.toml": ['version = "0.4.0"'],
        "CHANGELOG.md": ["# Changelog", "", "## 0.4.0 (unreleased)"],
        "CHANGELOG.md (undated)": ["# Changelog", "", "## 0.5.0 (soon)"],
        "docs/cmake.md": ["find_package(Quire 0.4.1 REQUIRED)"],
    }
    right = {
        "README.md": [
            "This is version 0.5 (unreleased).",
            "| `build/lib/libquire.so.0.5` | the library (soname `libquire.so.0.5`) |",
            "build/dist/quire-0.5.0-py3-none-manylinux_2_35_x86_64.whl",
            "find_package(Quire 0.5 REQUIRED)",
        ],
        "docs/abi.md": ["A program linked against 0.4 (`libquire.so.0`) is therefore never loaded with 0.5"],
        "CHANGELOG.md": ["# Changelog", "", "## 0.5.0 (unreleased)", "## 0.4.0 (unreleased)",
                         "- `make wheel`: `quire-0.4.0-py3-none-manylinux_2_35_x86_64.whl`"],
        "CHANGELOG.md (released)": ["# Changelog", "", "## 0.5.0 (2027-01-15)"],
        "bindings/cmake/QuireConfigVersion.cmake.in": ["# A range (find_package(Quire 1.2...1.5)): within it"],
    }
    ok = True
    for name, lines in wrong.items():
        if name.startswith("CHANGELOG.md"):
            caught = len(problems_in("CHANGELOG.md", "\n".join(lines), version))
            expected = 1
        else:
            caught = sum(1 for line in lines if problems_in(name, line, version))
            expected = len(lines)
        if caught != expected:
            print("self-test: %d of %d wrong lines of %s caught" % (caught, expected, name))
            ok = False
    for name, lines in right.items():
        text = "\n".join(lines)
        name = name.split(" (")[0]
        if problems_in(name, text, version):
            print("self-test: right lines of %s refused: %s" % (name, problems_in(name, text, version)))
            ok = False
    print("check_versions: self-test %s" % ("passed" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(check(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")))
