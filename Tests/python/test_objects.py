"""Low-level values: the Python mapping of PDF values both ways, reading objects against
pikepdf, stream data against pikepdf, and editing (set, set a key, add, delete)."""

from __future__ import annotations

import math
import zlib
from decimal import Decimal
from pathlib import Path
from typing import Any, Dict

import pytest

import quire
from quire import Name, Reference, Stream, String

from conftest import ANNOTS
from pdfpeers import pikepdf_module

ENC_R2 = "qpdf/qpdf/qtest/qpdf/enc-R2,V1,U=view,O=master.pdf"  # RC4 40, user "view"
ENC_R6 = "qpdf/qpdf/qtest/qpdf/enc-XI-R6,V5,U=view,O=master.pdf"  # AES-256, owner "master"
XREF_STREAM = "pdfminer/samples/contrib/pagelabels.pdf"  # cross-reference stream, object streams


@pytest.fixture(scope="module")
def pikepdf() -> Any:
    return pikepdf_module()


# ----------------------------------------------------------------------------------------
# The mapping, without a document
# ----------------------------------------------------------------------------------------

# (PDF syntax, the Python value Quire reads from it)
PARSED = [
    ("null", None),
    ("true", True),
    ("false", False),
    ("0", 0),
    ("-17", -17),
    ("+4", 4),
    ("9223372036854775807", 9223372036854775807),
    ("1.5", 1.5),
    ("-.25", -0.25),
    ("612.0", 612.0),
    ("/Type", Name("Type")),
    ("/", Name("")),
    ("/A#20B", Name("A B")),
    ("/Lime#23Green", Name("Lime#Green")),
    ("/caf#C3#A9", Name("café")),
    ("(Hello)", String(b"Hello")),
    ("(a\\)b\\(c\\\\)", String(b"a)b(c\\")),
    ("(\\000\\377)", String(b"\x00\xff")),
    ("<48656C6C6F>", String(b"Hello")),
    ("<486>", String(b"H`")),
    ("<>", String(b"")),
    ("12 0 R", Reference(12, 0)),
    ("3 5 R", Reference(3, 5)),
    ("[]", []),
    ("[1 (two) /Three [4.5] << /Five 5 >>]", [1, String(b"two"), Name("Three"), [4.5], {"Five": 5}]),
    ("<< >>", {}),
    (
        "<< /Type /Annot /Rect [0 0 612 792] /P 4 0 R /Contents (Note) /Open true >>",
        {"Type": Name("Annot"), "Rect": [0, 0, 612, 792], "P": Reference(4, 0), "Contents": String(b"Note"), "Open": True},
    ),
]


@pytest.mark.parametrize(("syntax", "expected"), PARSED, ids=[p[0] for p in PARSED])
def test_parse_gives_the_python_value(syntax: str, expected: Any):
    value = quire.parse(syntax)
    assert value == expected
    assert type(value) is type(expected)


@pytest.mark.parametrize(("syntax", "expected"), PARSED, ids=[p[0] for p in PARSED])
def test_python_values_round_trip_through_the_library(syntax: str, expected: Any):
    # Python -> PDF syntax -> quire_value_parse -> walk -> Python: the same value.
    assert quire.parse(quire.unparse(expected)) == expected
    assert quire.parse(quire._objects.pdf_syntax(expected)) == expected


def test_the_types_of_the_mapping():
    value = quire.parse("<< /N /X /S (x) /R 1 0 R /I 1 /F 1.0 /A [] /D << >> /B true >>")
    assert type(value) is dict
    assert all(type(key) is str for key in value)
    assert isinstance(value["N"], str) and type(value["N"]) is Name
    assert isinstance(value["S"], bytes) and type(value["S"]) is String
    assert type(value["R"]) is Reference and value["R"] == (1, 0)
    assert type(value["I"]) is int and type(value["F"]) is float
    assert type(value["A"]) is list and type(value["D"]) is dict and value["B"] is True
    # A name equals its text, and a string equals its bytes.
    assert Name("Type") == "Type" and String(b"x") == b"x"
    assert repr(Name("Type")) == "Name('Type')" and repr(Reference(3, 0)) == "Reference(3, 0)"


def test_a_dictionary_entry_with_a_null_value_is_absent():
    # ISO 32000-2 §7.3.7: such an entry is the same as no entry.
    assert quire.parse("<< /A null /B 1 >>") == {"B": 1}


def test_plain_bytes_and_tuples_are_accepted():
    assert quire.unparse([b"\x00\xff", bytearray(b"ab"), (1, 2)]) == quire.unparse(
        [String(b"\x00\xff"), String(b"ab"), [1, 2]]
    )


def test_strings_keep_every_byte():
    every_byte = bytes(range(256))
    assert quire.parse(quire.unparse(every_byte)) == every_byte


def test_names_keep_their_bytes():
    for name in ["A B", "a/b", "x#y", "(paren)", "tab\tnew\nline", "日本", "\udcff\udc80"]:
        assert quire.parse(quire.unparse(Name(name))) == name, name
    assert Name("\udcff").raw == b"\xff"
    assert quire.parse("/#FF") == Name("\udcff")


def test_string_text_is_decoded_by_the_library():
    assert String(b"Hello").text == "Hello"
    assert String(b"\xfe\xff\x00H\x00\xe9").text == "Hé"  # UTF-16BE with a BOM
    assert String(b"\xef\xbb\xbfH\xc3\xa9").text == "Hé"  # UTF-8 with a BOM (PDF 2.0)
    assert String(b"\x80\xa0").text == "\u2022\u20ac"  # PDFDocEncoding: bullet, euro
    for text in ["plain", "café", "日本語", "emoji \U0001f600", ""]:
        assert String.from_text(text).text == text
    assert String.from_text("plain") == b"plain"
    assert String.from_text("é").startswith(b"\xfe\xff")


def test_reals_are_written_without_an_exponent():
    # The binding's writing (what it hands to quire_value_parse): the shortest digits.
    syntax = quire._objects.pdf_syntax
    assert syntax(1e-7) == b"0.0000001"
    assert syntax(1e16) == b"10000000000000000.0"
    assert syntax(-0.0) == b"-0.0"
    assert syntax(2.0) == b"2.0" and syntax(0.1) == b"0.1"
    assert quire.parse(quire.unparse(1e16)) == 1e16
    assert type(quire.parse(quire.unparse(2.0))) is float


# (Reals were summed digit by digit, so not correctly rounded, before a69b569.)
@pytest.mark.parametrize("number", [0.3, 0.000001, 0.1 + 0.2, 0.7])
def test_reals_round_trip_exactly(number: float):
    assert quire.parse(quire._objects.pdf_syntax(number)) == number
    assert quire.parse(quire.unparse(number)) == number


def test_the_smallest_integer_stays_an_integer():
    assert quire.parse("-9223372036854775808") == -(1 << 63)
    assert type(quire.parse("-9223372036854775808")) is int


def test_values_that_are_not_pdf_are_refused():
    with pytest.raises(TypeError, match=r"quire.Name\('Annot'\)"):
        quire.unparse("Annot")  # a plain str: a name or a string?
    with pytest.raises(TypeError, match="not a PDF value"):
        quire.unparse(object())
    with pytest.raises(TypeError, match="keys are str"):
        quire.unparse({1: 2})
    with pytest.raises(OverflowError):
        quire.unparse(1 << 63)
    with pytest.raises(quire.InvalidArgumentError):
        quire.unparse(math.nan)
    with pytest.raises(quire.InvalidArgumentError):
        quire.unparse(math.inf)
    with pytest.raises(quire.InvalidArgumentError, match="NUL"):
        quire.unparse(Name("a\0b"))
    with pytest.raises(quire.InvalidArgumentError):
        quire.unparse(Reference(-1, 0))


def test_nesting_is_bounded_both_ways():
    deep: Any = 1
    for _ in range(quire.MAX_NESTING_DEPTH):
        deep = [deep]
    assert quire.parse(quire.unparse(deep)) == deep  # exactly the limit: fine
    with pytest.raises(quire.LimitError):
        quire.unparse([deep])
    with pytest.raises(quire.LimitError):
        quire.parse("[" * 300 + "]" * 300)
    loop: Any = []
    loop.append(loop)
    with pytest.raises(quire.LimitError):
        quire.unparse(loop)
    looping_dict: Dict[str, Any] = {}
    looping_dict["Self"] = looping_dict
    with pytest.raises(quire.LimitError):
        quire.unparse(looping_dict)


def test_parse_errors():
    for bad in ["", "[1 2", "1 2", ")", "1e5", "<< /A 1", "<< /A >>"]:
        with pytest.raises(quire.FormatError):
            quire.parse(bad)


# ----------------------------------------------------------------------------------------
# Reading objects, against pikepdf
# ----------------------------------------------------------------------------------------


def _from_pikepdf(pikepdf: Any, obj: Any, top: bool = True) -> Any:
    """A pikepdf object in this binding's mapping: indirect objects below the top are
    references; reals are floats."""
    if not top and getattr(obj, "is_indirect", False):
        return Reference(*obj.objgen)
    if isinstance(obj, pikepdf.Stream):
        return {k[1:]: _from_pikepdf(pikepdf, v, False) for k, v in obj.stream_dict.items()}
    if isinstance(obj, pikepdf.Dictionary):
        return {k[1:]: _from_pikepdf(pikepdf, v, False) for k, v in obj.items()}
    if isinstance(obj, pikepdf.Array):
        return [_from_pikepdf(pikepdf, v, False) for v in obj]
    if isinstance(obj, pikepdf.Name):
        return Name(str(obj)[1:])
    if isinstance(obj, pikepdf.String):
        return bytes(obj)
    if isinstance(obj, Decimal):
        return float(obj)
    if obj is None or isinstance(obj, (bool, int)):
        return obj
    raise AssertionError("unexpected pikepdf object %r" % (obj,))


def _same(ours: Any, theirs: Any, where: str = "") -> None:
    """Equal values, reals exactly (qpdf's decimal text, read as a double, against
    Quire's double), and a bool only equal to a bool."""
    if isinstance(ours, Stream):
        ours = ours.dictionary
    if isinstance(ours, float) or isinstance(theirs, float):
        assert ours == theirs, "%s: %r != %r" % (where, ours, theirs)
    elif isinstance(ours, dict):
        assert isinstance(theirs, dict) and sorted(ours) == sorted(theirs), where
        for key in ours:
            _same(ours[key], theirs[key], "%s/%s" % (where, key))
    elif isinstance(ours, list):
        assert isinstance(theirs, list) and len(ours) == len(theirs), where
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _same(a, b, "%s[%d]" % (where, i))
    elif isinstance(ours, bool) or isinstance(theirs, bool):
        assert ours is theirs, "%s: %r != %r" % (where, ours, theirs)
    else:
        assert ours == theirs, "%s: %r != %r" % (where, ours, theirs)


@pytest.mark.parametrize(
    ("path", "password"),
    [(ANNOTS, None), (XREF_STREAM, None), (ENC_R2, "view"), (ENC_R6, "master")],
)
def test_every_object_reads_as_pikepdf_reads_it(corpus, pikepdf, path: str, password: str):
    file = corpus(path)
    # inherit_page_attributes=False: pikepdf would otherwise copy /MediaBox and the like
    # from the page tree nodes into the pages while opening.
    opened = pikepdf.open(file, password=password or "", inherit_page_attributes=False)
    with quire.Document(file, password) as document, opened as pdf:
        compared = 0
        for number in range(1, int(pdf.trailer.Size)):
            obj = pdf.get_object(number, 0)  # these files have only generation 0
            if isinstance(obj, pikepdf.Dictionary) and obj.get("/Type") in ("/XRef", "/ObjStm"):
                continue  # structure, not content: Quire does not hand these out
            ours = document.get_object(number)
            assert isinstance(ours, Stream) == isinstance(obj, pikepdf.Stream), "object %d" % number
            theirs = _from_pikepdf(pikepdf, obj)
            if isinstance(ours, Stream) and isinstance(ours.get("Length"), Reference):
                # qpdf replaces an indirect /Length with its value; Quire keeps what the
                # file says.
                assert document.resolve(ours["Length"]) == theirs["Length"]
                ours = dict(ours.dictionary, Length=theirs["Length"])
            _same(ours, theirs, "object %d" % number)
            compared += 1
        assert compared > 10
        # The trailer: the same entries, less what describes the file structure.
        trailer = document.trailer
        assert trailer["Root"] == Reference(*pdf.trailer.Root.objgen)
        assert trailer.get("Size") == int(pdf.trailer.Size)


def test_strings_of_an_encrypted_document_are_decrypted(corpus, pikepdf):
    file = corpus(ENC_R6)
    with quire.Document(file, "view") as document, pikepdf.open(file, password="view") as pdf:
        info = document.resolve(document.trailer["Info"])
        for key, value in pdf.docinfo.items():
            assert info[key[1:]] == bytes(value)
            assert info[key[1:]].text == str(value)


@pytest.mark.parametrize(("path", "password"), [(ANNOTS, None), (XREF_STREAM, None), (ENC_R2, "view"), (ENC_R6, "view")])
def test_stream_data_is_what_pikepdf_reads(corpus, pikepdf, path: str, password: str):
    file = corpus(path)
    with quire.Document(file, password) as document, pikepdf.open(file, password=password or "") as pdf:
        streams = 0
        for obj in pdf.objects:
            if not isinstance(obj, pikepdf.Stream) or obj.get("/Type") in ("/XRef", "/ObjStm"):
                continue
            stream = document.get_object(obj.objgen[0])
            assert isinstance(stream, Stream)
            assert document.stream_data(stream, decoded=False) == obj.read_raw_bytes()
            assert stream.read(decoded=False) == obj.read_raw_bytes()
            try:
                expected = obj.read_bytes()
            except pikepdf.PdfError:
                continue  # a filter qpdf does not decode either
            if obj.get("/Filter") in ("/DCTDecode", "/JPXDecode") or (
                isinstance(obj.get("/Filter"), pikepdf.Array) and obj.get("/Filter")[-1] in ("/DCTDecode", "/JPXDecode")
            ):
                continue  # image codecs: Quire leaves them encoded, as documented
            assert document.stream_data(stream) == expected, "object %d" % obj.objgen[0]
            streams += 1
        assert streams > 0


def test_a_stream_is_a_read_only_mapping(annots_pdf: Path):
    with quire.Document(annots_pdf) as document:
        contents = document.resolve(document.get_object(3)["Contents"])
        assert isinstance(contents, Stream)
        assert contents["Length"] == 486 and dict(contents) == contents.dictionary == {"Length": 486}
        assert len(contents) == 1 and list(contents) == ["Length"]
        assert contents.document is document
        assert contents != {"Length": 486} and contents == contents
        with pytest.raises(TypeError):
            contents["Length"] = 1  # type: ignore[index]
        data = contents.read()
        assert data.startswith(b"BT\n") and len(data) == 486


def test_a_stream_is_used_only_with_its_document(annots_pdf: Path):
    with quire.Document(annots_pdf) as first, quire.Document(annots_pdf) as second:
        stream = first.get_object(5)
        assert isinstance(stream, Stream)
        with pytest.raises(quire.InvalidArgumentError, match="cannot be used with"):
            second.stream_data(stream)
        with pytest.raises(quire.InvalidArgumentError):
            second.set_object(5, stream)
        with pytest.raises(TypeError):
            first.stream_data({"Length": 3})  # type: ignore[arg-type]


def test_a_stream_outlives_the_document_handle_safely(annots_pdf: Path):
    document = quire.Document(annots_pdf)
    stream = document.get_object(5)
    document.close()
    assert stream["Length"] == 486  # the dictionary is Python's
    with pytest.raises(quire.StateError):
        stream.read()
    del document
    import gc

    gc.collect()
    with pytest.raises(quire.StateError):
        stream.read()


def test_a_stream_read_before_a_full_save_is_stale(annots_pdf: Path):
    # A full save renumbers objects and moves stream data; the library would read the new
    # file at the old offset (see the report), so the binding refuses instead.
    with quire.Document(annots_pdf) as document:
        stream = document.get_object(5)
        assert isinstance(stream, Stream)
        document.save_to_bytes()  # incremental: the old bytes stay where they were
        assert stream.read().startswith(b"BT")
        document.save_to_bytes(full=True)
        with pytest.raises(quire.StateError, match="read it again"):
            stream.read()


# ----------------------------------------------------------------------------------------
# Editing
# ----------------------------------------------------------------------------------------

ROUND_TRIPS = [
    None,
    True,
    -3,
    2.5,
    Name("Squiggly"),
    String(b"\x00binary\xff"),
    String.from_text("Grüße"),
    Reference(2, 0),
    [1, [2, [3, {"Deep": [Name("X")]}]]],
    {"Type": Name("Annot"), "Subtype": Name("Text"), "Rect": [10, 20.5, 30, 40], "Contents": String(b"Hi")},
]


@pytest.mark.parametrize("value", ROUND_TRIPS, ids=[repr(v)[:40] for v in ROUND_TRIPS])
def test_set_then_get_gives_the_value_back(annots_pdf: Path, value: Any):
    with quire.Document(annots_pdf) as document:
        number = document.add_object(Name("Placeholder")).number
        document.set_object(number, value)
        assert document.get_object(number) == value
        # And after a save, from the saved bytes.
        saved = document.save_to_bytes()
        assert document.get_object(number) == value
    with quire.Document.from_bytes(saved) as reopened:
        assert reopened.get_object(number) == value


@pytest.mark.parametrize(("syntax", "expected"), PARSED, ids=[p[0] for p in PARSED])
def test_parse_then_set_then_get(annots_pdf: Path, syntax: str, expected: Any):
    with quire.Document(annots_pdf) as document:
        reference = document.add_object(quire.parse(syntax))
        assert document.get_object(reference) == expected
        if not isinstance(expected, Reference):
            assert document.resolve(reference) == expected


def test_set_dict_value_sets_and_removes(annots_pdf: Path):
    with quire.Document(annots_pdf) as document:
        assert not document.has_unsaved_changes
        document.set_dict_value(3, "Rotate", 90)
        assert document.has_unsaved_changes
        assert document.get_object(3)["Rotate"] == 90
        assert document.pages[0].rotation == 90  # the model sees the edit
        document.set_dict_value(Reference(3, 0), "Rotate", None)
        assert "Rotate" not in document.get_object(3)
        assert document.pages[0].rotation == 0
        # On a stream, the stream's dictionary.
        document.set_dict_value(5, "Note", String(b"x"))
        stream = document.get_object(5)
        assert isinstance(stream, Stream) and stream["Note"] == b"x"
        assert stream.read().startswith(b"BT")
        with pytest.raises(quire.InvalidArgumentError):
            document.set_dict_value(document.add_object(1), "Key", 2)  # not a dictionary
        with pytest.raises(quire.IndexOutOfRangeError):
            document.set_dict_value(10_000, "Key", 2)
        with pytest.raises(TypeError):
            document.set_dict_value(3, "Key", stream)


def test_add_object_numbers_and_references(annots_pdf: Path):
    with quire.Document(annots_pdf) as document:
        count = document.object_count
        first = document.add_object({"A": 1})
        second = document.add_object([first])
        assert first == Reference(count, 0) and second == Reference(count + 1, 0)
        assert document.object_count == count + 2
        assert document.get_object(second) == [first]
        assert document.resolve(document.get_object(second)[0]) == {"A": 1}


def test_resolve_follows_chains_and_copies_the_rest(annots_pdf: Path):
    with quire.Document(annots_pdf) as document:
        target = document.add_object({"End": True})
        middle = document.add_object(target)
        assert document.resolve(middle) == {"End": True}
        assert document.resolve([middle]) == [middle]  # only the outer value
        assert document.resolve(7) == 7
        assert document.resolve(Reference(10_000, 0)) is None
        loop_a = document.add_object(None)
        loop_b = document.add_object(loop_a)
        document.set_object(loop_a, loop_b)
        assert document.resolve(loop_a) is None  # a cycle gives null


def test_add_stream_and_read_it_back(annots_pdf: Path, pikepdf):
    text = b"q 1 0 0 RG 10 10 100 100 re S Q\n" * 50
    with quire.Document(annots_pdf) as document:
        plain = document.add_stream(None, text)
        packed = document.add_stream({"Filter": Name("FlateDecode")}, zlib.compress(text))
        for reference in (plain, packed):
            stream = document.get_object(reference)
            assert isinstance(stream, Stream)
            assert stream.read() == text
        assert document.get_object(packed).read(decoded=False) == zlib.compress(text)
        saved = document.save_to_bytes(full=False)
    with pikepdf.open(__import__("io").BytesIO(saved)) as pdf:
        assert pdf.get_object(plain.number, 0).read_bytes() == text
        assert pdf.get_object(packed.number, 0).read_bytes() == text
        assert int(pdf.get_object(packed.number, 0).Length) == len(zlib.compress(text))


def test_set_object_copies_a_stream_with_its_data(annots_pdf: Path):
    with quire.Document(annots_pdf) as document:
        contents = document.get_object(5)
        assert isinstance(contents, Stream)
        copy = document.add_object(None)
        document.set_object(copy, contents)
        copied = document.get_object(copy)
        assert isinstance(copied, Stream) and copied.read() == contents.read()
        with pytest.raises(TypeError, match="indirect object"):
            document.set_object(copy, [contents])


def test_delete_object(annots_pdf: Path):
    with quire.Document(annots_pdf) as document:
        annots = document.get_object(4)["Annots"]
        assert document.pages[1].annotation_count == 3
        document.delete_object(annots[0])
        assert document.get_object(annots[0]) is None
        assert document.resolve(annots[0]) is None
        assert document.pages[1].annotation_count == 2  # a reference to null is skipped
        with pytest.raises(quire.InvalidArgumentError, match="catalog"):
            document.delete_object(document.trailer["Root"])
        with pytest.raises(quire.InvalidArgumentError):
            document.delete_object(0)
        with pytest.raises(quire.IndexOutOfRangeError):
            document.delete_object(annots[0])  # no longer in use
        saved = document.save_to_bytes()
    with quire.Document.from_bytes(saved) as reopened:
        assert reopened.get_object(annots[0]) is None
        assert reopened.pages[1].annotation_count == 2


def test_the_encrypt_dictionary_cannot_be_edited(corpus):
    with quire.Document(corpus(ENC_R2), "view") as document:
        encrypt = document.trailer["Encrypt"]
        assert isinstance(encrypt, Reference)
        with pytest.raises(quire.InvalidArgumentError):
            document.set_object(encrypt, {})
        with pytest.raises(quire.InvalidArgumentError):
            document.delete_object(encrypt)


def test_object_numbers_are_checked(annots_pdf: Path):
    with quire.Document(annots_pdf) as document:
        assert document.get_object(10_000) is None  # missing: null
        with pytest.raises(quire.IndexOutOfRangeError):
            document.get_object(-1)
        with pytest.raises(quire.IndexOutOfRangeError):
            document.get_object(1 << 40)
        with pytest.raises(quire.InvalidArgumentError):
            document.set_object(0, 1)
        with pytest.raises(quire.IndexOutOfRangeError):
            document.set_object(10_000, 1)
        with pytest.raises(TypeError):
            document.get_object("3")  # type: ignore[arg-type]
        assert not document.has_unsaved_changes


def test_objects_of_a_closed_document(annots_pdf: Path):
    document = quire.Document(annots_pdf)
    document.close()
    for call in (
        lambda: document.trailer,
        lambda: document.get_object(1),
        lambda: document.resolve(Reference(1, 0)),
        lambda: document.set_object(3, {}),
        lambda: document.add_object(1),
        lambda: document.has_unsaved_changes,
        lambda: document.save_to_bytes(),
        lambda: document.outline,
    ):
        with pytest.raises(quire.StateError):
            call()
