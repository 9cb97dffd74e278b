#!/usr/bin/env bash
# Two clients' notes converging through quire-server, with curl (`make demo` runs it).
#
#   examples/sync_demo.sh [path/to/quire-server]      (default: build/bin/quire-server)
#
# Starts quire-server on a free loopback port with a SQLite store in build/sync-demo/,
# uploads examples/sample.pdf through the admin API, mints two JWTs with
# examples/python/mint_jwt.py (alice and bob, layer "review"), has each push a note from
# its own client id, has each fetch the other's note through the change feed; then two
# reviewers with libquire's sync client, examples/c/instant_sync.c and
# examples/python/instant_review.py, at once on layer "instant" (download, notes and
# replies, the other's changes arriving, offline edits, back online, converged); and stops
# the server with SIGTERM.
set -euo pipefail
cd "$(dirname "$0")/.."
SERVER=${1:-build/bin/quire-server}
PYTHON=${PYTHON:-python3}
DIR=build/sync-demo
rm -rf "$DIR" && mkdir -p "$DIR"

# The backend's key pair (the server gets only the public key) and the admin token.
$PYTHON examples/python/mint_jwt.py --new-key "$DIR/backend.pem"
$PYTHON -c 'import secrets; print(secrets.token_hex(16))' > "$DIR/admin-token"
PORT=$($PYTHON -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT

"$SERVER" --port "$PORT" --store "sqlite://$DIR/quire.db" --public-key "$DIR/backend.pub.pem" \
    --admin-token-file "$DIR/admin-token" --log-level warning &
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -sf "$URL/healthz" >/dev/null && break; sleep 0.1; done
echo "quire-server on $URL, store $DIR/quire.db"

echo "-- upload examples/sample.pdf as document 'sample' (admin API)"
curl -sS -X POST "$URL/admin/documents?id=sample" -H "Authorization: Token $(cat "$DIR/admin-token")" \
    -H "Content-Type: application/pdf" --data-binary @examples/sample.pdf
echo

ALICE=$($PYTHON examples/python/mint_jwt.py "$DIR/backend.pem" --document sample --layer review --user alice)
BOB=$($PYTHON examples/python/mint_jwt.py "$DIR/backend.pem" --document sample --layer review --user bob)
LAYER=$URL/documents/sample/layers/review

push() {  # push TOKEN CLIENT_ID NOTE_ID TEXT Y: one put of a new note on page 1
    curl -sS -X POST "$LAYER/mutations" -H "Authorization: Bearer $1" -H "Content-Type: application/json" \
        -d '{"client_id": "'"$2"'", "mutations": [{"client_seq": 1, "op": "put", "id": "'"$3"'",
             "base_revision": null, "record": {"v": 1, "type": "pspdfkit/note", "id": "'"$3"'",
             "pageIndex": 0, "bbox": [500, '"$5"', 24, 24], "text": "'"$4"'"}}]}'
    echo
}
changes() {  # changes TOKEN SINCE: the feed after SINCE, one line per change
    curl -sS "$LAYER/changes?since=$2" -H "Authorization: Bearer $1" | $PYTHON -c '
import json, sys
feed = json.load(sys.stdin)
for c in feed["changes"]:
    print("   seq %d: %s %s by %s (client %s): %s" % (c["seq"], c["op"], c["id"], c["user_id"],
          c["client_id"], c["record"]["text"]))'
}

echo "-- alice pushes a note from client alice-laptop"
push "$ALICE" alice-laptop note-from-alice "The figure on this page needs a caption" 100
echo "-- bob pushes a note from client bob-phone"
push "$BOB" bob-phone note-from-bob "Agreed, and the axis labels too" 140
echo "-- bob pulls the changes since 0: alice's note reaches him"
changes "$BOB" 0
echo "-- alice pulls the changes since 1 (her own push): bob's note reaches her"
changes "$ALICE" 1

echo "-- both layers fetched again: the same records?"
a=$(curl -sS "$LAYER" -H "Authorization: Bearer $ALICE")
b=$(curl -sS "$LAYER" -H "Authorization: Bearer $BOB")
[ "$a" = "$b" ] && echo "   converged: $(echo "$a" | $PYTHON -c 'import json,sys; d=json.load(sys.stdin); print(len(d["records"]), "records at seq", d["seq"])')" \
    || { echo "   NOT converged" >&2; exit 1; }

# The sync client in libquire: two reviewers at once, the C one (examples/c/instant_sync.c)
# and the Python one (examples/python/instant_review.py), each with its own data directory:
# download, a note and a reply, sync, the other's note arriving, an offline note, back
# online, converged on the same annotations.
echo "-- two reviewers with libquire's sync client: carol (C) and dave (Python), layer 'instant'"
CAROL=$($PYTHON examples/python/mint_jwt.py "$DIR/backend.pem" --document sample --layer instant --user carol)
DAVE=$($PYTHON examples/python/mint_jwt.py "$DIR/backend.pem" --document sample --layer instant --user dave)
make -s -C examples/c instant_sync
examples/c/instant_sync "$URL" "$CAROL" "$DIR/carol" carol > "$DIR/carol.log" 2>&1 &
C_PID=$!
PYTHONPATH=bindings/python $PYTHON examples/python/instant_review.py "$URL" "$DAVE" "$DIR/dave" dave \
    > "$DIR/dave.log" 2>&1 &
P_PID=$!
status=0
wait "$C_PID" || status=1
wait "$P_PID" || status=1
cat "$DIR/carol.log" "$DIR/dave.log"
[ "$status" = 0 ] || { echo "   a reviewer failed" >&2; exit 1; }
c=$(sed -n 's/.*converged: \([0-9]*\) annotations.*/\1/p' "$DIR/carol.log")
p=$(sed -n 's/.*converged: \([0-9]*\) annotations.*/\1/p' "$DIR/dave.log")
[ -n "$c" ] && [ "$c" = "$p" ] && echo "   converged: both reviewers hold $c annotations" \
    || { echo "   NOT converged ($c and $p annotations)" >&2; exit 1; }

kill -TERM "$SERVER_PID"
wait "$SERVER_PID" && echo "-- quire-server stopped (SIGTERM, exit status 0)"
trap - EXIT
