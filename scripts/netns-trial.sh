#!/usr/bin/env bash
# The remote trial of issue 37, as a user would run it (root, Linux, after `npm run build`):
# `dsh-acp serve` in its own network namespace, reached from this one over a veth pair with
# link-local addresses only (169.254.37.1 here, .2 there; nothing routable), over TLS with a
# certificate made for the trial. Then, from outside the namespace:
#   1. serve on the link-local address without TLS: refused, with the reason;
#   2. an editor-style client (scripts/netns-trial-client.mjs, the SDK's HTTP and WebSocket
#      clients): a prompt, the connection killed mid-turn, a new connection resuming the session;
#   3. `dsh-acp connect URL` under acpx 0.19.1: a prompt, then acpx killed mid-turn, then a new
#      acpx prompt on the same session.
# Everything is torn down at exit. Usage: sudo scripts/netns-trial.sh [workdir]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${1:-$(mktemp -d /tmp/dsh-acp-netns-XXXXXX)}"
NS=dsh37
HOST_IF=dsh37-host
NS_IF=dsh37-ns
HOST_IP=169.254.37.1
NS_IP=169.254.37.2
PORT=8737
URL_HTTP="https://$NS_IP:$PORT/acp"
URL_WS="wss://$NS_IP:$PORT/acp"
SERVE_PID=""

cleanup() {
  [ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null || true
  ip link del "$HOST_IF" 2>/dev/null || true
  ip netns del "$NS" 2>/dev/null || true
}
trap cleanup EXIT
say() { printf '\n== %s\n' "$*"; }

say "namespace $NS, veth $HOST_IF ($HOST_IP) <-> $NS_IF ($NS_IP), link-local only"
ip netns add "$NS"
ip link add "$HOST_IF" type veth peer name "$NS_IF"
ip link set "$NS_IF" netns "$NS"
ip addr add "$HOST_IP/30" dev "$HOST_IF"
ip link set "$HOST_IF" up
ip netns exec "$NS" ip addr add "$NS_IP/30" dev "$NS_IF"
ip netns exec "$NS" ip link set "$NS_IF" up
ip netns exec "$NS" ip link set lo up
ip netns exec "$NS" ip -brief addr

say "a certificate for $NS_IP (the trial's own; the clients trust it through NODE_EXTRA_CA_CERTS)"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=$NS_IP" \
  -addext "subjectAltName=IP:$NS_IP" -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
export NODE_EXTRA_CA_CERTS="$WORK/cert.pem"

# A model that streams 40 words, 50 ms apart, per turn (long enough to cut a turn in its middle).
node -e '
const words = (t) => Array.from({ length: 40 }, (_, i) => [{ text: `t${t}w${i} ` }, { delayMs: 50 }]).flat()
console.log(JSON.stringify({ turns: Array.from({ length: 12 }, (_, t) => [words(t)]) }))' >"$WORK/model.json"
SERVE=(node "$ROOT/dist/cli.cjs" serve --token-file "$WORK/token" --store "$WORK/store"
  --model "script:$WORK/model.json")

say "1. serve on $NS_IP without TLS"
set +e
ip netns exec "$NS" "${SERVE[@]}" --listen "$NS_IP:$PORT" </dev/null
echo "exit code: $?"
set -e

say "serve on $NS_IP:$PORT with TLS, inside $NS"
ip netns exec "$NS" "${SERVE[@]}" --listen "$NS_IP:$PORT" --tls-cert "$WORK/cert.pem" \
  --tls-key "$WORK/key.pem" </dev/null 2>"$WORK/serve.log" &
SERVE_PID=$!
until grep -q "serving ACP" "$WORK/serve.log" 2>/dev/null; do sleep 0.2; done
sed -n '1,12p' "$WORK/serve.log"
TOKEN="$(cat "$WORK/token")"
echo "healthz from outside the namespace: $(curl -s --cacert "$WORK/cert.pem" "https://$NS_IP:$PORT/healthz")"
echo "no token: HTTP $(curl -s -o /dev/null -w '%{http_code}' --cacert "$WORK/cert.pem" -X POST "$URL_HTTP")"
echo "this namespace's loopback does not reach it: $(curl -s -m 2 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/healthz" || echo 'connection refused')"

say "2. an editor-style client (the SDK's HTTP client, then its WebSocket client)"
for url in "$URL_HTTP" "$URL_WS"; do
  DSH_ACP_TOKEN="$TOKEN" node "$ROOT/scripts/netns-trial-client.mjs" "$url"
done

say "3. dsh-acp connect $URL_HTTP under acpx 0.19.1"
# The bridge writes its pid, so that the trial can kill it (the connection dropping) mid-turn.
AGENT="sh -c 'echo \$\$ >$WORK/connect.pid; exec node $ROOT/dist/cli.cjs connect $URL_HTTP'"
ACPX=(npx -y acpx@0.19.1 --agent "$AGENT" --cwd "$WORK" --approve-all --ttl 30)
export DSH_ACP_TOKEN="$TOKEN"
"${ACPX[@]}" sessions new
"${ACPX[@]}" prompt "first prompt, through the namespace" | tail -c 200
echo
echo "-- a prompt whose bridge is killed (SIGKILL) once 6 words of the turn have come"
"${ACPX[@]}" prompt "second prompt, cut off" >"$WORK/cut.txt" 2>&1 &
ACPX_PID=$!
until grep -q "t1w5 " "$WORK/cut.txt"; do sleep 0.05; done
kill -KILL "$(cat "$WORK/connect.pid")"
wait "$ACPX_PID" && echo "acpx exit 0" || echo "acpx exit $?"
echo "acpx printed: $(tail -c 300 "$WORK/cut.txt")"
echo "-- the next acpx prompt on the same session, through a new bridge"
"${ACPX[@]}" prompt "third prompt" | tail -c 300 || { sleep 2; "${ACPX[@]}" prompt "third prompt, again" | tail -c 300; }
echo
"${ACPX[@]}" sessions list 2>&1 | tail -n 5 || true
say "the server's log"
tail -n 25 "$WORK/serve.log"
