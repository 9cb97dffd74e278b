import Testing
import QuireDocument
import QuireSyntax

@Suite("JSON values as text")
struct JSONValueTests {
    @Test func textIsOneLineWithSortedKeys() {
        let value = InstantJSONValue.object([
            "pages": .integer(2), "annotations_per_page": .array([.integer(9), .integer(3)]),
            "encryption": .null, "linearized": .bool(false), "metadata": .object([:]), "list": .array([]),
        ])
        #expect(value.text == #"{"annotations_per_page": [9, 3], "encryption": null, "linearized": false, "list": [], "metadata": {}, "pages": 2}"#)
    }

    @Test func numbers() {
        // Integral numbers without a fraction (the command-line tool's rectangles), others
        // in the shortest form that reads back, and what JSON cannot hold as null.
        let cases: [(Double, String)] = [
            (612, "612"), (-0.0, "0"), (0.5, "0.5"), (595.28, "595.28"), (1e20, "1e+20"), (1e-7, "1e-07"),
            (.infinity, "null"), (-.infinity, "null"), (.nan, "null"),
        ]
        for (d, text) in cases { #expect(InstantJSONValue.number(d).text == text, "\(d)") }
        #expect(InstantJSONValue.integer(Int64.min).text == "-9223372036854775808")
    }

    @Test func stringsAreEscaped() {
        let s = "a\"b\\c\nd\re\tf\u{1}g/h é 😀"
        #expect(InstantJSONValue.string(s).text == #""a\"b\\c\nd\re\tf\u0001g/h é 😀""#)
        #expect(InstantJSONValue.object(["\u{1F}k\"": .string("")]).text == #"{"\u001fk\"": ""}"#)
    }

    @Test func textReadsBackAsTheSameValue() throws {
        let value = InstantJSONValue.object([
            "a": .array([.integer(1), .number(2.5), .string("x\u{0}y"), .null, .bool(true)]),
            "b": .object(["c": .number(-1e300), "d": .string("\\\"")]),
        ])
        #expect(try InstantJSONValue(parsing: Array(value.text.utf8)) == value)
    }
}
