#!/usr/bin/env python3
"""The style of the tree, pinned in its configuration files and checked: `make style` (and
.ci/run) check it, `make format` fixes what a formatter can fix.

    python3 scripts/style.py check          # make style: report and fail on any finding
    python3 scripts/style.py format         # make format: format every file not pending
    python3 scripts/style.py format FILE... # format these files and take them off the list
    python3 scripts/style.py baseline       # list as pending every file not yet formatted

What is checked, file by file (the files git tracks or would add):

- every text file (.editorconfig): no trailing whitespace, a newline at the end;
- Python (ruff.toml): `ruff check` on every file (lint findings have no exemption), and
  `ruff format --check`;
- C (.clang-format): `clang-format --dry-run -Werror`;
- Swift (.swift-format, swift-nio's settings): `swift format lint --strict` (the
  toolchain's own swift-format).

The formatters run on the files that are formatted already, so a change that unformats
one fails the check. The files not yet formatted are listed in scripts/style-pending.txt
(wholesale reformatting of sources other people are editing would conflict with all of
their work): the check skips them, and fails on a listed file that has become formatted,
so the list only shrinks. Format a file when you are changing it anyway:
`python3 scripts/style.py format Sources/QuireSyntax/Lexer.swift` formats it and takes it
off the list. New files are not pending: format them before committing. `baseline`
rewrites the list from the tree (every file a formatter would change); it is for merging
work that was written before a file's style was checked, not for new code.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

ROOT = Path(__file__).resolve().parent.parent
PENDING = ROOT / "scripts" / "style-pending.txt"

# What the whitespace rules (.editorconfig) apply to: text the project writes.
TEXT_SUFFIXES = (
    ".swift",
    ".py",
    ".c",
    ".h",
    ".cpp",
    ".sh",
    ".md",
    ".toml",
    ".txt",
    ".in",
    ".cmake",
    ".map",
    ".yml",
    ".yaml",
    ".html",
    ".js",
    ".css",
    ".json",
)
TEXT_NAMES = ("Makefile", ".gitignore", ".editorconfig", ".clang-format", ".swift-format", "run")
# Text that is data, kept byte for byte: corpus lists, expected outputs, generated results.
NOT_TEXT = ("Tests/fuzz/regressions/", "Tests/corpus/known-differences.txt", "bench/results.json")

HINTS = {
    "ruff": "ruff is not installed: scripts/install-deps.sh (or pip install -r scripts/requirements-style.txt)",
    "clang-format": "clang-format is not installed: scripts/install-deps.sh (or apt-get install clang-format)",
    "swift": "swift is not on PATH (swift format ships with the toolchain)",
}


def tracked() -> List[str]:
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sorted(f for f in set(out.splitlines()) if (ROOT / f).is_file())


def kind(path: str) -> Optional[str]:
    if path.endswith(".py"):
        return "python"
    if path.endswith((".c", ".h", ".cpp")):
        return "c"
    if path.endswith(".swift"):
        return "swift"
    return None


def read_pending() -> List[str]:
    if not PENDING.exists():
        return []
    return [line.strip() for line in PENDING.read_text().splitlines() if line.strip() and not line.startswith("#")]


def write_pending(paths: Sequence[str]) -> None:
    header = PENDING.read_text().split("\n\n", 1)[0] if PENDING.exists() else ""
    if not header.startswith("#"):
        header = (
            "# Files not yet formatted, which `make style` skips (scripts/style.py): the list only\n"
            "# shrinks. `python3 scripts/style.py format FILE` formats one and takes it off."
        )
    PENDING.write_text(header + "\n\n" + "".join(p + "\n" for p in sorted(set(paths))))


def tool(name: str) -> str:
    found = shutil.which(name)
    if not found:
        sys.exit("style: " + HINTS[name])
    return found


def run(argv: List[str]) -> Tuple[int, str]:
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    return done.returncode, (done.stdout + done.stderr).strip()


def chunks(paths: Sequence[str], size: int = 40) -> List[List[str]]:
    return [list(paths[i : i + size]) for i in range(0, len(paths), size)]


# ---- one formatter per language: which files it would change ---------------------------------


def unformatted_python(paths: Sequence[str]) -> Set[str]:
    if not paths:
        return set()
    _, out = run([tool("ruff"), "format", "--check", *paths])
    bad = set()
    for line in out.splitlines():
        # ruff 0.17: "unformatted: File would be reformatted" then " --> PATH:LINE:COLUMN";
        # older: "Would reformat: PATH".
        found = re.match(r"\s*--> (.+?):\d+:\d+$", line) or re.match(r"Would reformat: (.+)$", line)
        if found and found.group(1).strip() in paths:
            bad.add(found.group(1).strip())
    return bad


def unformatted_c(paths: Sequence[str]) -> Set[str]:
    bad = set()
    clang_format = tool("clang-format")
    for path in paths:
        code, _ = run([clang_format, "--style=file", "--dry-run", "-Werror", path])
        if code != 0:
            bad.add(path)
    return bad


def swift_findings(paths: Sequence[str]) -> Dict[str, List[str]]:
    swift = tool("swift")
    found: Dict[str, List[str]] = {}
    for group in chunks(paths):
        _, out = run([swift, "format", "lint", "--strict", *group])
        for line in out.splitlines():
            path = line.split(":", 1)[0]
            if path in group:
                found.setdefault(path, []).append(line)
    return found


def unformatted_swift(paths: Sequence[str]) -> Set[str]:
    return set(swift_findings(paths))


UNFORMATTED: Dict[str, Callable[[Sequence[str]], Set[str]]] = {
    "python": unformatted_python,
    "c": unformatted_c,
    "swift": unformatted_swift,
}


def format_files(paths: Sequence[str]) -> None:
    by_kind: Dict[str, List[str]] = {}
    for p in paths:
        k = kind(p)
        if k:
            by_kind.setdefault(k, []).append(p)
    if by_kind.get("python"):
        run([tool("ruff"), "format", "--quiet", *by_kind["python"]])
        run([tool("ruff"), "check", "--fix", "--quiet", *by_kind["python"]])
    for path in by_kind.get("c", []):
        run([tool("clang-format"), "--style=file", "-i", path])
    for group in chunks(by_kind.get("swift", [])):
        run([tool("swift"), "format", "format", "--in-place", *group])


# ---- the checks -------------------------------------------------------------------------------


def is_text(path: str) -> bool:
    if path.startswith(NOT_TEXT):
        return False
    return path.endswith(TEXT_SUFFIXES) or Path(path).name in TEXT_NAMES


def whitespace_findings(paths: Sequence[str]) -> List[str]:
    found = []
    for path in paths:
        if not is_text(path):
            continue
        try:
            text = (ROOT / path).read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if text and not text.endswith("\n"):
            found.append("%s: no newline at the end" % path)
        for number, line in enumerate(text.split("\n"), 1):
            if line != line.rstrip(" \t"):
                found.append("%s:%d: trailing whitespace" % (path, number))
    return found


def check() -> int:
    files = tracked()
    pending = read_pending()
    failures: List[str] = []
    gone = [p for p in pending if p not in files]
    if gone:
        # A file renamed or removed: not a style finding (a merge would trip on it), but
        # the list should say so; `baseline` or `format FILE` rewrites it without them.
        print("style: %d files of %s are gone: %s" % (len(gone), PENDING.relative_to(ROOT), " ".join(gone)))

    ws = whitespace_findings(files)
    failures += ws
    print("style: whitespace (.editorconfig): %d findings" % len(ws))

    python = [f for f in files if kind(f) == "python"]
    code, out = run([tool("ruff"), "check", "--quiet", *python])
    if code != 0:
        failures += out.splitlines()
    print("style: ruff check: %s" % ("clean" if code == 0 else "findings"))

    for language in ("python", "c", "swift"):
        paths = [f for f in files if kind(f) == language]
        todo = [f for f in paths if f not in pending]
        listed = [f for f in paths if f in pending]
        if language == "swift":
            findings = swift_findings(todo)
            for lines in findings.values():
                failures += lines[:20] + (["... and %d more" % (len(lines) - 20)] if len(lines) > 20 else [])
            bad = set(findings)
        else:
            bad = UNFORMATTED[language](todo)
            failures += ["%s: not formatted (python3 scripts/style.py format %s)" % (p, p) for p in sorted(bad)]
        done_now = sorted(set(listed) - UNFORMATTED[language](listed))
        failures += ["%s: formatted now: take it off %s" % (p, PENDING.relative_to(ROOT)) for p in done_now]
        print(
            "style: %-6s %3d files checked, %d not formatted; %d pending (not checked)"
            % (language, len(todo), len(bad), len(listed))
        )

    if failures:
        print("\n".join(failures), file=sys.stderr)
        print(
            "style: %d findings (make format fixes formatting; see scripts/style.py)" % len(failures), file=sys.stderr
        )
        return 1
    print("style: clean")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["check", "format", "baseline"])
    parser.add_argument("files", nargs="*")
    options = parser.parse_args()
    if options.command == "check":
        return check()
    pending = read_pending()
    if options.command == "format":
        if options.files:
            paths = [str(Path(f).resolve().relative_to(ROOT)) for f in options.files]
            format_files(paths)
            write_pending([p for p in pending if p not in paths])
        else:
            format_files([f for f in tracked() if kind(f) and f not in pending])
        return 0
    # baseline: every file a formatter would change is pending.
    files = tracked()
    bad: Set[str] = set()
    for language, unformatted in UNFORMATTED.items():
        bad |= unformatted([f for f in files if kind(f) == language])
    write_pending(sorted(bad))
    print("style: %d files pending in %s" % (len(bad), PENDING.relative_to(ROOT)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
