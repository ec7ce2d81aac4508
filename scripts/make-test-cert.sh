#!/usr/bin/env bash
# Makes a throwaway certificate authority and a server certificate it signed, for the TLS tests:
# DIR/ca.pem (trust this), DIR/cert.pem and DIR/key.pem (give these to --tls-cert/--tls-key),
# valid 2 days for 127.0.0.1 and localhost. Never use them for anything else.
set -euo pipefail
dir="${1:?usage: make-test-cert.sh DIR}"
mkdir -p "$dir"
cd "$dir"
ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
openssl req -x509 "${ec[@]}" -days 2 -subj /CN=wterm-test-ca -keyout ca.key -out ca.pem 2>/dev/null
openssl req "${ec[@]}" -subj /CN=127.0.0.1 -keyout key.pem -out leaf.csr 2>/dev/null
printf '%s\n' "subjectAltName=IP:127.0.0.1,DNS:localhost" "basicConstraints=CA:FALSE" \
  "extendedKeyUsage=serverAuth" > leaf.ext
openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
  -extfile leaf.ext -out cert.pem 2>/dev/null
rm -f leaf.csr leaf.ext ca.key ca.srl
chmod 600 key.pem
