#!/usr/bin/env bash
# Makes the committed test certificates with OpenSSL (run again only to replace them; the tests
# use the committed files, so they do not depend on the day they were made). Valid until 2056,
# except expired.pem. Also writes pins.txt: each certificate's SPKI SHA-256 pin, computed by
# OpenSSL, for the tests to compare against. `make-fixture-certificates.sh client` replaces only
# the client identities for mutual TLS (client-ca, client, other-client), keeping the rest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/Tests/SecurityTests/Fixtures"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
days=11000   # about 30 years
only="${1:-all}"

key() { openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1.key" 2>/dev/null; }
ca_ext() { printf 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\n' > "$1"; }
leaf_ext() { printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=%s\n' "$2" > "$1"; }
sign() {  # name subject issuer ext
    openssl req -new -key "$1.key" -subj "$2" -out "$1.csr"
    openssl x509 -req -in "$1.csr" -CA "$3.pem" -CAkey "$3.key" -CAcreateserial -days "$days" -sha256 -extfile "$4" -out "$1.pem" 2>/dev/null
}

# Client identities for mutual TLS: a CA of their own (the mTLS test server trusts only it), a
# client it signed (PEM, PEM with an encrypted key, PKCS#12), and a client of another CA.
make_client_fixtures() {
    key client-ca
    openssl req -x509 -new -key client-ca.key -subj "/CN=AFNetworking Test Client CA" -days "$days" -sha256 \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" -out client-ca.pem
    printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n' > client.ext
    key client
    sign client "/O=AFNetworking Tests/CN=afn-test-client" client-ca client.ext
    cp "$out/root-ca.pem" "$out/root-ca.key" .
    key other-client
    sign other-client "/O=AFNetworking Tests/CN=afn-other-client" root-ca client.ext
    mkdir -p "$out"
    for name in client-ca client other-client; do
        openssl x509 -in "$name.pem" -out "$out/$name.pem"
        cp "$name.key" "$out/$name.key"
    done
    openssl pkey -in client.key -aes256 -passout pass:afn-fixture -out "$out/client-encrypted.key"
    openssl pkcs12 -export -inkey client.key -in client.pem -certfile client-ca.pem -passout pass:afn-fixture \
        -name afn-test-client -out "$out/client.p12"
}

make_server_fixtures() {
key root-ca
ca_ext ca.ext
openssl req -x509 -new -key root-ca.key -subj "/CN=AFNetworking Test Root CA" -days "$days" -sha256 \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" -out root-ca.pem
key intermediate-ca
sign intermediate-ca "/CN=AFNetworking Test Intermediate CA" root-ca ca.ext

key localhost
leaf_ext localhost.ext "DNS:localhost,IP:127.0.0.1,IP:0:0:0:0:0:0:0:1"
sign localhost "/CN=localhost" root-ca localhost.ext
key chained-localhost
sign chained-localhost "/CN=localhost" intermediate-ca localhost.ext
key wrong-host
leaf_ext wrong-host.ext "DNS:wrong.example"
sign wrong-host "/CN=wrong.example" root-ca wrong-host.ext
key wildcard
leaf_ext wildcard.ext "DNS:*.example.test"
sign wildcard "/CN=*.example.test" root-ca wildcard.ext
key no-san
printf 'basicConstraints=critical,CA:FALSE\n' > no-san.ext
sign no-san "/CN=common-name.example" root-ca no-san.ext
key self-signed
openssl req -x509 -new -key self-signed.key -subj "/CN=localhost" -days "$days" -sha256 \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -out self-signed.pem

# An expired leaf needs `openssl ca`: `req`/`x509` take no dates in the past.
key expired
mkdir -p ca/newcerts && touch ca/index.txt && echo 1000 > ca/serial
cat > ca.cnf <<CNF
[ ca ]
default_ca = test
[ test ]
dir = $work/ca
database = \$dir/index.txt
new_certs_dir = \$dir/newcerts
serial = \$dir/serial
default_md = sha256
policy = anything
copy_extensions = copy
[ anything ]
commonName = supplied
CNF
openssl req -new -key expired.key -subj "/CN=localhost" -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -out expired.csr
openssl ca -batch -config ca.cnf -cert root-ca.pem -keyfile root-ca.key -in expired.csr -out expired.pem \
    -startdate 20200101000000Z -enddate 20210101000000Z -notext 2>/dev/null

mkdir -p "$out"
: > "$out/pins.txt"
for name in root-ca intermediate-ca localhost chained-localhost wrong-host wildcard no-san self-signed expired; do
    openssl x509 -in "$name.pem" -out "$out/$name.pem"
    openssl x509 -in "$name.pem" -outform DER -out "$out/$name.der"
    cp "$name.key" "$out/$name.key"
    pin="$(openssl x509 -in "$name.pem" -pubkey -noout | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64)"
    echo "$name $pin" >> "$out/pins.txt"
done
cat "$out/chained-localhost.pem" "$out/intermediate-ca.pem" > "$out/chained-localhost-fullchain.pem"
cat "$out/root-ca.pem" "$out/intermediate-ca.pem" > "$out/ca-bundle.pem"
}

if [ "$only" != client ]; then make_server_fixtures; fi
make_client_fixtures
echo "fixtures written to $out"
