import CFontconfig
import Synchronization

/// The system's fonts by family name (rich text's `font-family`, a composite font's
/// /BaseFont), found through the system fontconfig (Debian's libfontconfig1) with its
/// configuration (`FONTCONFIG_FILE` read once, when the first family is looked up).
///
/// A family is found only when fontconfig's best match for it is of that family (blanks
/// and case aside): fontconfig always answers with some font, and its substitutes (Arial
/// to Liberation Sans, any name to DejaVu Sans) are not the family asked for. The face is
/// the family's bold, italic or bold italic one when the family has it. Answers are cached
/// for the process (at most ``maxFamilies`` names; later names are looked up each time).
enum SystemFonts {
    /// A face of a family: its file, and whether it is bold (weight semibold or more) and
    /// italic (or oblique).
    struct Face: Sendable, Equatable {
        var path: String
        var index: Int
        var bold: Bool
        var italic: Bool
    }

    /// The most family names (with their weight and slant) whose answers are kept.
    static let maxFamilies = 512
    /// The longest family name looked up (longer names are no family).
    static let maxNameLength = 128
    /// The most families one appearance looks up among the system's fonts (rich text
    /// naming more draws the others as if no system font had them).
    static let maxLookupsPerAppearance = 32

    private struct State: ~Copyable {
        var config: OpaquePointer? = nil
        var initialised = false
        var found: [String: Face?] = [:]
    }
    private static let state = Mutex(State())

    /// Blanks, hyphens and case removed: how family names are compared.
    static func normalized(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { $0 != " " && $0 != "-" && $0 != "_" }.map(Character.init))
    }

    /// The face of `family` closest to `bold` and `italic`, or nil when the system has no
    /// font of that family (or fontconfig is not usable).
    static func face(family: String, bold: Bool, italic: Bool) -> Face? {
        let name = family.trimmingBlanks()
        guard !name.isEmpty, name.utf8.count <= maxNameLength, !name.utf8.contains(0) else { return nil }
        let key = normalized(name) + "|\(bold)|\(italic)"
        return state.withLock { s -> Face? in
            if let known = s.found[key] { return known }
            if !s.initialised {
                s.initialised = true
                s.config = FcInitLoadConfigAndFonts()
            }
            guard let config = s.config else { return nil }
            let answer = match(config, name, bold: bold, italic: italic)
            if s.found.count < maxFamilies { s.found[key] = answer }
            return answer
        }
    }

    /// fontconfig's best match for the family, weight and slant, when it is of that family.
    private static func match(_ config: OpaquePointer, _ family: String, bold: Bool, italic: Bool) -> Face? {
        guard let pattern = FcPatternCreate() else { return nil }
        defer { FcPatternDestroy(pattern) }
        _ = family.withCString { c in
            c.withMemoryRebound(to: FcChar8.self, capacity: family.utf8.count + 1) {
                FcPatternAddString(pattern, FC_FAMILY, $0)
            }
        }
        _ = FcPatternAddInteger(pattern, FC_WEIGHT, bold ? FC_WEIGHT_BOLD : FC_WEIGHT_REGULAR)
        _ = FcPatternAddInteger(pattern, FC_SLANT, italic ? FC_SLANT_ITALIC : FC_SLANT_ROMAN)
        guard FcConfigSubstitute(config, pattern, FcMatchPattern) != 0 else { return nil }
        FcDefaultSubstitute(pattern)
        var result = FcResultNoMatch
        guard let found = FcFontMatch(config, pattern, &result) else { return nil }
        defer { FcPatternDestroy(found) }
        func string(_ object: String, _ n: Int32) -> String? {
            var value: UnsafeMutablePointer<FcChar8>? = nil
            guard FcPatternGetString(found, object, n, &value) == FcResultMatch, let value else { return nil }
            return String(cString: value)
        }
        // The match's family names (a font may have several: "DejaVu Sans" and "DejaVu
        // Sans Condensed").
        let wanted = normalized(family)
        var k: Int32 = 0
        var same = false
        while k < 16, let f = string(FC_FAMILY, k) {
            if normalized(f) == wanted { same = true }
            k += 1
        }
        guard same, let file = string(FC_FILE, 0) else { return nil }
        var index: Int32 = 0
        var weight: Int32 = Int32(FC_WEIGHT_REGULAR)
        var slant: Int32 = Int32(FC_SLANT_ROMAN)
        _ = FcPatternGetInteger(found, FC_INDEX, 0, &index)
        _ = FcPatternGetInteger(found, FC_WEIGHT, 0, &weight)
        _ = FcPatternGetInteger(found, FC_SLANT, 0, &slant)
        return Face(path: file, index: Int(index), bold: weight >= FC_WEIGHT_DEMIBOLD, italic: slant > FC_SLANT_ROMAN)
    }
}

extension String {
    /// The string without blanks at either end.
    fileprivate func trimmingBlanks() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
