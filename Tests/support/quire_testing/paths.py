"""Where things are: the repository, the shared corpus, the sample PDF, the programs."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict

REPO = Path(__file__).resolve().parents[3]
#: The shared corpus of real PDF files, beside the repository (QUIRE_CORPUS overrides it).
CORPUS = Path(os.environ.get("QUIRE_CORPUS") or REPO.parent / "shared" / "corpus")
MANIFEST = CORPUS / "manifest.jsonl"
SAMPLE = REPO / "examples" / "sample.pdf"
HEADER = REPO / "include" / "quire.h"
BINDING_DIR = REPO / "bindings" / "python"
BUILD = REPO / "build"
#: The command-line tool and the sync server under test: `make`'s, unless QUIRE_CLI or
#: QUIRE_SERVER names another (an installed one, say).
QUIRE_CLI = Path(os.environ.get("QUIRE_CLI") or BUILD / "bin" / "quire")
QUIRE_SERVER = Path(os.environ.get("QUIRE_SERVER") or BUILD / "bin" / "quire-server")


def corpus_file(relative: str) -> Path:
    """The corpus file at ``relative``; skips the calling test when it is absent."""
    import pytest

    if not CORPUS.is_dir():
        pytest.skip("the PDF corpus is not at %s (it ships beside the repository as shared/corpus)" % CORPUS)
    path = CORPUS / relative
    if not path.is_file():
        pytest.skip("corpus file %s is missing" % path)
    return path


def read_manifest() -> Dict[str, Dict[str, Any]]:
    """The corpus manifest, by path; skips the calling test when it is absent."""
    import pytest

    if not MANIFEST.is_file():
        pytest.skip("the corpus manifest is not at %s" % MANIFEST)
    rows: Dict[str, Dict[str, Any]] = {}
    with MANIFEST.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                row = json.loads(line)
                rows[row["path"]] = row
    return rows
