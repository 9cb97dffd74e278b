#!/usr/bin/env bash
# The fuzz corpus: the inputs the long runs found that the seeds do not cover, kept in the
# tree as one archive (Tests/fuzz/corpus.tar.xz: about 1 MB for some 12,000 small files)
# rather than as loose files, and unpacked where the fuzz scripts read it.
#
#   Tests/fuzz/corpus.sh unpack   unpacks the archive into .build/fuzz-corpus/<target>/ (again
#                                 only when the archive changed) and prints that directory
#   Tests/fuzz/corpus.sh pack     writes the archive from .build/fuzz-corpus/ (what run-long.sh
#                                 does after merging a chunk's finds); the same files give the
#                                 same bytes (sorted names, no owners, no times)
#
# run.sh (make fuzz) reads the unpacked corpus; run-long.sh merges into it and packs it.
set -euo pipefail
cd "$(dirname "$0")/../.."
ARCHIVE=Tests/fuzz/corpus.tar.xz
DIR=.build/fuzz-corpus
STAMP=$DIR/.archive-sha256

case ${1:-} in
    unpack)
        sum=$(sha256sum "$ARCHIVE" | cut -d' ' -f1)
        if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$sum" ]; then
            rm -rf "$DIR"
            mkdir -p "$DIR"
            tar -xJf "$ARCHIVE" -C "$DIR"
            echo "$sum" > "$STAMP"
        fi
        echo "$DIR"
        ;;
    pack)
        [ -d "$DIR" ] || { echo "corpus.sh: $DIR is missing: nothing to pack" >&2; exit 1; }
        targets=$(cd "$DIR" && find . -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | LC_ALL=C sort)
        # shellcheck disable=SC2086 # one word a target
        tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --mode=u=rwX,go=rX \
            -cf - -C "$DIR" $targets | xz -9 -T1 > "$ARCHIVE.tmp"
        mv -f "$ARCHIVE.tmp" "$ARCHIVE"
        sha256sum "$ARCHIVE" | cut -d' ' -f1 > "$STAMP"
        echo "corpus.sh: $ARCHIVE: $(find "$DIR" -type f ! -name .archive-sha256 | wc -l) files, $(du -h "$ARCHIVE" | cut -f1)" >&2
        ;;
    *)
        sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
        exit 2
        ;;
esac
