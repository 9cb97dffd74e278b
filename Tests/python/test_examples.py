"""examples/python/pdfinfo.py, run as a user runs it: PYTHONPATH=bindings/python."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import quire

from conftest import ENCRYPTED, REPO, REPORTLAB
from quire_testing.library import child_env

PDFINFO = REPO / "examples" / "python" / "pdfinfo.py"


def run_pdfinfo(arguments: List[str]) -> subprocess.CompletedProcess:
    # The package and library under test, wherever they came from (Tests/support).
    env = child_env()
    return subprocess.run(
        [sys.executable, str(PDFINFO)] + arguments, env=env, capture_output=True, text=True, cwd=str(REPO)
    )


def fields(output: str) -> Dict[str, List[str]]:
    """{label: [values]} of pdfinfo's "Label:   value" lines."""
    result: Dict[str, List[str]] = {}
    for line in output.splitlines():
        label, _, value = line.partition(":")
        result.setdefault(label, []).append(value.strip())
    return result


def test_pdfinfo_on_annots(annots_pdf: Path):
    result = run_pdfinfo([str(annots_pdf)])
    assert result.returncode == 0, result.stderr
    info = fields(result.stdout)
    assert info["Pages"] == ["2"]
    assert info["PDF version"] == ["1.7"]
    assert info["Encrypted"] == ["no"]
    assert info["Repaired"] == ["no"]
    assert info["Page 1 size"] == ["612 x 792 pts (216 x 279 mm), rotated 0 degrees, 9 annotations"]
    assert info["Page 2 size"] == ["612 x 792 pts (216 x 279 mm), rotated 0 degrees, 3 annotations"]
    assert "Warning" not in info
    assert result.stderr == ""


def test_pdfinfo_on_the_sample(sample_pdf: Path):
    result = run_pdfinfo([str(sample_pdf.relative_to(REPO)) if REPO in sample_pdf.parents else str(sample_pdf)])
    assert result.returncode == 0, result.stderr
    assert "Pages:" in result.stdout


def test_pdfinfo_on_missing_pages(corpus):
    # The page tree root says /Count 3 over one page: 3 pages, as PDFium counts, 2 missing.
    result = run_pdfinfo([str(corpus("pdfium/testing/resources/unsupported_feature.pdf"))])
    assert result.returncode == 0, result.stderr
    info = fields(result.stdout)
    assert info["Pages"] == ["3"]
    assert info["Page 1 size"] == ["612 x 792 pts (216 x 279 mm), rotated 0 degrees, 0 annotations"]
    assert info["Page 2 size"] == info["Page 3 size"] == ["missing from the page tree"]
    assert any("/Count says 3" in w for w in info["Warning"])


def test_pdfinfo_prints_metadata(corpus):
    result = run_pdfinfo([str(corpus(REPORTLAB))])
    assert result.returncode == 0, result.stderr
    info = fields(result.stdout)
    assert info["Title"] == ["untitled"] and info["Author"] == ["anonymous"]
    assert result.stdout.splitlines()[0].startswith("Author:")  # metadata first, in file order


def test_pdfinfo_without_password(corpus):
    result = run_pdfinfo([str(corpus(ENCRYPTED))])
    assert result.returncode == 1
    assert len(result.stderr.strip().splitlines()) == 1 and "password" in result.stderr


def test_pdfinfo_with_password(corpus):
    path = str(corpus(ENCRYPTED))
    result = run_pdfinfo([path, "--password", "view"])
    assert result.returncode == 0, result.stderr
    info = fields(result.stdout)
    assert info["Pages"] == ["30"] and info["Encrypted"] == ["yes"]


def test_pdfinfo_errors_are_one_line(tmp_path: Path):
    result = run_pdfinfo([str(tmp_path / "missing.pdf")])
    assert result.returncode == 1 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith("pdfinfo: %s: " % (tmp_path / "missing.pdf"))
    garbage = tmp_path / "garbage.pdf"
    garbage.write_bytes(b"not a pdf\n" * 50)
    result = run_pdfinfo([str(garbage)])
    assert result.returncode == 1 and len(result.stderr.strip().splitlines()) == 1
    result = run_pdfinfo([])
    assert result.returncode == 2  # usage error, from argparse


def test_pdfinfo_on_a_repaired_file(corpus):
    from conftest import DAMAGED

    result = run_pdfinfo([str(corpus(DAMAGED))])
    assert result.returncode == 0, result.stderr
    info = fields(result.stdout)
    assert info["Repaired"] == ["yes"] and info["Pages"] == ["1"]
    assert info["Warning"] and all(info["Warning"])


ANNOTATE = REPO / "examples" / "python" / "annotate.py"


def run_annotate(arguments: List[str]) -> subprocess.CompletedProcess:
    # The package and library under test, wherever they came from (Tests/support).
    env = child_env()
    return subprocess.run(
        [sys.executable, str(ANNOTATE)] + arguments, env=env, capture_output=True, text=True, cwd=str(REPO)
    )


def test_annotate_adds_a_note_in_place(annots_pdf: Path, tmp_path: Path):
    import shutil

    from pdfpeers import PeerMissing, pdfium_counts, pikepdf_counts

    file = tmp_path / "annots.pdf"
    shutil.copyfile(annots_pdf, file)
    original = file.read_bytes()
    result = run_annotate([str(file), "Checked", "--page", "2", "--at", "100", "700"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "page 2 now has 4 annotations"
    saved = file.read_bytes()
    assert saved.startswith(original) and len(saved) - len(original) < 16 * 1024
    with quire.Document(file) as document:
        assert [page.annotation_count for page in document.pages] == [9, 4]
    try:
        assert pikepdf_counts(saved) == pdfium_counts(saved) == (2, 13)
    except PeerMissing:
        pass  # Quire's own reading above is the check then


def test_annotate_to_another_file_in_full(corpus, tmp_path: Path):
    source = corpus(ENCRYPTED)
    output = tmp_path / "out.pdf"
    result = run_annotate([str(source), "Note", "--password", "view", "--output", str(output), "--full"])
    assert result.returncode == 0, result.stderr
    with quire.Document(output, "view") as document:
        assert document.is_encrypted and document.pages[0].annotation_count == 1


def test_annotate_errors_are_one_line(annots_pdf: Path, corpus, tmp_path: Path):
    result = run_annotate([str(annots_pdf), "x", "--page", "3", "--output", str(tmp_path / "o.pdf")])
    assert result.returncode == 1 and "no page 3" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    result = run_annotate([str(corpus(ENCRYPTED)), "x"])
    assert result.returncode == 1 and "password" in result.stderr
    assert not (tmp_path / "o.pdf").exists()
