"""The command-line tool's contract: `quire info --json` and `quire check`.

Later work and outside checks parse this output, so its fields are tested here against the
corpus manifest (what PDFium, qpdf and MuPDF report) rather than against Quire itself.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import quire as quire_module

from conftest import CORPUS, MANIFEST, page_tree_pdf
from quire_testing.peers import peer
from quire_testing.paths import QUIRE_CLI

CLI = QUIRE_CLI  # make's build/bin/quire, or $QUIRE_CLI

pytestmark = pytest.mark.skipif(not CLI.exists(), reason="build/bin/quire is missing: run make")


def quire(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, timeout=60)


def manifest_row(path: str) -> dict:
    for line in MANIFEST.open():
        row = json.loads(line)
        if row["path"] == path:
            return row
    raise KeyError(path)


needs_corpus = pytest.mark.skipif(not MANIFEST.exists(), reason="needs ../shared/corpus")

CONTRACT = {"pages": int, "pdf_version": str, "encrypted": bool, "repaired": bool, "warnings": int,
            "annotations": int, "metadata": dict, "xref": str, "objects": int, "linearized": bool,
            "outline_items": int, "annotations_per_page": list}


@needs_corpus
@pytest.mark.parametrize("path", [
    "pdfium/testing/resources/annots.pdf",                  # classic table, annotations
    "pypdf/resources/outline-without-title.pdf",             # outline
    "pdfium/testing/resources/linearized.pdf",               # linearized
    "pdfplumber/tests/pdfs/issue-463-example.pdf",           # cross-reference stream
])
def test_info_json_agrees_with_the_peers(path: str) -> None:
    row = manifest_row(path)
    result = quire("info", "--json", str(CORPUS / path))
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout)
    for key, kind in CONTRACT.items():
        assert isinstance(info[key], kind), key
    assert "encryption" in info
    assert info["pages"] == row["consensus"]["page_count_majority"]
    assert info["annotations"] == row["consensus"]["annots_total_majority"]
    assert sum(info["annotations_per_page"]) == info["annotations"]
    assert len(info["annotations_per_page"]) == info["pages"]
    assert info["outline_items"] == row["consensus"]["outline_items_majority"]
    assert info["encrypted"] is False and info["encryption"] is None
    assert info["xref"] == ("stream" if row["pikepdf"]["xref_stream"] else "table")
    assert info["linearized"] == row["pikepdf"]["is_linearized"]
    assert info["pdf_version"] == row["pikepdf"]["pdf_version"]


@needs_corpus
def test_info_json_on_an_encrypted_file() -> None:
    # qpdf's test file: user password "view", owner "master"; MuPDF reports RC4 128 bit, R3.
    path = CORPUS / "qpdf/qpdf/qtest/qpdf/enc-R3,V2,U=view,O=master.pdf"
    refused = quire("info", "--json", str(path))
    assert refused.returncode == 1
    assert refused.stderr.startswith("quire: QUIRE_EPASSWORD: ")
    assert len(refused.stderr.strip().splitlines()) == 1
    info = json.loads(quire("info", "--json", "--password", "view", str(path)).stdout)
    assert info["encrypted"] is True
    assert info["encryption"]["method"] == "RC4-128" and info["encryption"]["revision"] == 3
    assert info["encryption"]["owner"] is False
    owner = json.loads(quire("info", "--json", "--password=master", str(path)).stdout)
    assert owner["encryption"]["owner"] is True
    # The manifest has no page count for it (the peers were given no password): ask qpdf.
    pikepdf = peer("pikepdf")
    with pikepdf.open(path, password="view") as pdf:
        assert owner["pages"] == info["pages"] == len(pdf.pages)


def test_unopenable_files_give_one_line_and_exit_1(tmp_path: Path) -> None:
    missing = quire("info", "--json", str(tmp_path / "nope.pdf"))
    assert missing.returncode == 1 and missing.stdout == ""
    assert missing.stderr.startswith("quire: QUIRE_ENOTFOUND: ")
    garbage = tmp_path / "garbage.pdf"
    garbage.write_bytes(b"this is not a PDF at all\n" * 10)
    bad = quire("info", "--json", str(garbage))
    assert bad.returncode == 1
    assert bad.stderr.startswith("quire: QUIRE_EFORMAT: ") and len(bad.stderr.strip().splitlines()) == 1


def test_usage_errors_exit_2() -> None:
    assert quire().returncode == 2
    assert quire("frobnicate").returncode == 2
    assert quire("info").returncode == 2
    assert quire("info", "--password").returncode == 2


@needs_corpus
def test_check_exit_codes() -> None:
    # A clean file, a damaged one (qpdf --check warns on it too: manifest qpdf_check), and
    # a file that cannot be opened.
    clean = quire("check", str(CORPUS / "pdfium/testing/resources/annots.pdf"))
    assert clean.returncode == 0, clean.stdout
    assert "No syntax or stream encoding errors found" in clean.stdout
    damaged = quire("check", str(CORPUS / "qpdf/qpdf/qtest/qpdf/bad3.pdf"))
    assert damaged.returncode in (2, 3)
    assert "WARNING:" in damaged.stdout or "ERROR:" in damaged.stdout
    assert quire("check", str(CORPUS / "nonexistent.pdf")).returncode == 1


def test_missing_pages_are_counted_and_reported(tmp_path: Path) -> None:
    # /Count 4 over 2 pages, the second with an annotation: PDFium's page count (4), one
    # annotations_per_page entry per counted page (0 for the missing ones), and `check`
    # reports the missing pages as a warning.
    path = tmp_path / "count4.pdf"
    path.write_bytes(page_tree_pdf(b"4", 2, annotated=1))
    result = quire("info", "--json", str(path))
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout)
    assert info["pages"] == 4
    assert info["annotations_per_page"] == [0, 1, 0, 0]
    assert info["annotations"] == 1
    assert any("pages 3 to 4 cannot be loaded" in w for w in info["warning_messages"])
    text = quire("info", str(path))
    assert text.returncode == 0 and "Pages:        4 (2 in the page tree)" in text.stdout
    check = quire("check", str(path))
    assert check.returncode == 3, check.stdout
    assert "Pages: 4" in check.stdout
    assert any(line.startswith("WARNING:") and "/Count says 4" in line for line in check.stdout.splitlines())


def test_version_is_the_library_version():
    # Both come from QUIRE_VERSION_STRING of the header, never from a copy of it.
    result = quire("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == "quire " + quire_module.version()
