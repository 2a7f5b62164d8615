#!/usr/bin/env bash
# Installs the clients in other languages that amqp-bench measures beside the Node libraries, and
# builds the Go one: Python kombu + py-amqp and pika, Go amqp091-go, all from Debian (the Python
# package index and the Go module proxy are not needed). Idempotent and quick when everything is
# there already: it installs only what is missing and rebuilds the Go program only when its
# sources or the library changed. Needs root (or sudo) for apt-get; without apt-get it says what
# to install instead and exits 1.
#
#   bash scripts/setup-clients.sh            install what is missing, build adapters/go/bin/
#   bash scripts/setup-clients.sh --check    say what is missing, install nothing (exit 1 if anything is)
#
# Debian's versions are older than upstream (Debian 12: kombu 5.2.4, py-amqp 5.1.1, pika 1.2.0,
# amqp091-go 1.5.0, Go 1.19). To measure others, point the harness at them:
#   BENCH_PYTHON=/path/to/python3     an interpreter whose kombu / pika are the ones to measure
#   GOPATH_AMQP091=/path/to/gopath    a GOPATH holding src/github.com/rabbitmq/amqp091-go (this script builds against it)
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(python3 python3-kombu python3-amqp python3-pika golang-go golang-github-rabbitmq-amqp091-go-dev)
GOPATH_LIB="${GOPATH_AMQP091:-/usr/share/gocode}"
LIB_DIR="$GOPATH_LIB/src/github.com/rabbitmq/amqp091-go"
BIN="adapters/go/bin/amqp091-client"

missing=()
for package in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done

if [[ "${1:-}" == "--check" ]]; then
  [[ ${#missing[@]} -eq 0 ]] && [[ -x "$BIN" ]] && { echo "setup-clients: everything is installed and built"; exit 0; }
  echo "setup-clients: missing: ${missing[*]:-none}${missing[*]:+; }$([[ -x "$BIN" ]] || echo "$BIN not built")"
  exit 1
fi

if [[ ${#missing[@]} -gt 0 ]]; then
  if ! command -v apt-get >/dev/null; then
    echo "setup-clients: no apt-get here; install ${missing[*]} (or their equivalents) by hand" >&2
    exit 1
  fi
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  echo "setup-clients: installing ${missing[*]}"
  # A fresh machine has no package lists yet; a stale list may miss a package.
  $sudo apt-get update -qq >/dev/null || true
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ ! -d "$LIB_DIR" ]]; then
  echo "setup-clients: no amqp091-go under $GOPATH_LIB (GOPATH_AMQP091)" >&2
  exit 1
fi
version=$(dpkg-query -W -f='${Version}' golang-github-rabbitmq-amqp091-go-dev 2>/dev/null | sed 's/-[^-]*$//' || true)
[[ -n "${GOPATH_AMQP091:-}" ]] && version="$(git -C "$LIB_DIR" describe --tags 2>/dev/null || echo "from $GOPATH_LIB")"

# Rebuilt only when a source, the library or its version is newer than the binary.
stamp="adapters/go/bin/.built-with"
wanted="$version $LIB_DIR $(go version 2>/dev/null)"
if [[ -x "$BIN" && -f "$stamp" && "$(cat "$stamp")" == "$wanted" ]] && [[ -z "$(find adapters/go -name '*.go' -newer "$BIN")" ]]; then
  echo "setup-clients: ready (python3-kombu, python3-amqp, python3-pika; $BIN with amqp091-go $version)"
  exit 0
fi
mkdir -p adapters/go/bin
# GOPATH mode: the library's source from Debian, no module download.
(cd adapters/go && GO111MODULE=off GOFLAGS= GOPATH="$GOPATH_LIB" GOCACHE="${GOCACHE:-/tmp/amqp-bench-gocache}" \
  go build -o bin/amqp091-client -ldflags "-X main.libraryVersion=$version -X main.libraryLocation=$LIB_DIR" .)
echo "$wanted" > "$stamp"
echo "setup-clients: built $BIN against amqp091-go $version"
