#!/usr/bin/env bash
# Makes the certificate matrix (Tests/SecurityTests/Fixtures/Matrix): one TLS server chain a row,
# each a way a chain or a name can be wrong, and records beside each row what OpenSSL's verifier
# (`openssl verify -purpose sslserver -partial_chain -verify_hostname/-verify_ip`) and curl
# (`curl --cacert`, against scripts/tls_matrix_server.py) say of it. The tests use the committed
# files; run this again only to replace them. Certificates are valid 2020-2120 unless dates are
# the point of the row.
#
# matrix.tsv, one row a line: name, host the client asks for, the chain the server presents
# (leaf first), the client's trust anchors, the verdict the library must give, OpenSSL's and
# curl's verdicts (`accept`, or `reject` and the reason), what the row tries, and the pin if the
# row pins one (`key:NAME`, NAME's public key; `cert:NAME`, NAME's certificate; curl is given
# NAME's public key as --pinnedpubkey for both).
# The expected verdict is `reject` whenever OpenSSL or curl rejects: the library is at least as
# strict as both.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/Tests/SecurityTests/Fixtures/Matrix"
work="$(mktemp -d)"
trap 'kill "${server:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$work"
mkdir -p db/new && touch db/index.txt && echo 1000 > db/serial
cat > ca.cnf <<CNF
[ ca ]
default_ca = matrix
[ matrix ]
database = $work/db/index.txt
new_certs_dir = $work/db/new
serial = $work/db/serial
unique_subject = no
policy = anything
copy_extensions = none
[ anything ]
commonName = optional
CNF

# key NAME [BITS]
key() { openssl genpkey -algorithm RSA -pkeyopt "rsa_keygen_bits:${2:-2048}" -out "$1.key" 2>/dev/null; }
# cert NAME SUBJECT ISSUER(or self) EXTENSIONS [START END] [DIGEST]: NAME.pem, with NAME.key made if absent.
cert() {
    local name="$1" subject="$2" issuer="$3" extensions="$4" start="${5:-20200101000000Z}" end="${6:-21200101000000Z}" digest="${7:-sha256}"
    [ -f "$name.key" ] || key "$name"
    printf '%b\n' "$extensions" > "$name.ext"
    openssl req -new -key "$name.key" -subj "$subject" -out "$name.csr" 2>/dev/null
    if [ "$issuer" = self ]; then
        openssl ca -batch -config ca.cnf -selfsign -keyfile "$name.key" -in "$name.csr" -out "$name.pem" -preserveDN \
            -extfile "$name.ext" -startdate "$start" -enddate "$end" -md "$digest" -notext 2>/dev/null
    else
        openssl ca -batch -config ca.cnf -cert "$issuer.pem" -keyfile "$issuer.key" -in "$name.csr" -out "$name.pem" \
            -preserveDN -extfile "$name.ext" -startdate "$start" -enddate "$end" -md "$digest" -notext 2>/dev/null
    fi
}
ca='basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid'
# leaf SAN [EKU] [KU]
leaf() {
    local text="basicConstraints=critical,CA:FALSE\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid"
    [ -n "$1" ] && text="$text\nsubjectAltName=$1"
    [ "${2-serverAuth}" != none ] && text="$text\nextendedKeyUsage=${2-serverAuth}"
    [ "${3-digitalSignature,keyEncipherment}" != none ] && text="$text\nkeyUsage=critical,${3-digitalSignature,keyEncipherment}"
    printf '%s' "$text"
}

# The hierarchy most rows hang from: root -> intermediate -> leaf.
cert root "/CN=Matrix Root CA" self "$ca"
cert intermediate "/CN=Matrix Intermediate CA" root "$ca"
cert other-root "/CN=Matrix Other Root CA" self "$ca"

rows=()
# row NAME HOST CHAIN ANCHORS EXPECTED WHAT [PIN]
row() { rows+=("$1|$2|$3|$4|$5|$6|${7:-}"); }
# simple NAME HOST EXPECTED WHAT SAN [EKU] [KU]: a leaf under the intermediate, anchored at the root.
simple() {
    cert "$1" "/CN=$2" intermediate "$(leaf "$5" "${6-serverAuth}" "${7-digitalSignature,keyEncipherment}")"
    row "$1" "$2" "$1,intermediate" root "$3" "$4"
}

# Extended key usage.
simple eku-server-auth localhost accept "EKU serverAuth" DNS:localhost
simple eku-client-auth localhost reject "EKU clientAuth only: a client certificate" DNS:localhost clientAuth
simple eku-email localhost reject "EKU emailProtection only" DNS:localhost emailProtection
simple eku-code-signing localhost reject "EKU codeSigning only" DNS:localhost codeSigning
simple eku-email-and-code-signing localhost reject "EKU emailProtection and codeSigning" DNS:localhost emailProtection,codeSigning
simple eku-any localhost reject "EKU anyExtendedKeyUsage only" DNS:localhost anyExtendedKeyUsage
simple eku-absent localhost accept "no EKU extension" DNS:localhost none
simple eku-server-and-client localhost accept "EKU serverAuth and clientAuth" DNS:localhost serverAuth,clientAuth
cert client-cn-only "/CN=localhost" intermediate "$(leaf "" clientAuth digitalSignature)"
row client-cn-only localhost "client-cn-only,intermediate" root reject "a client certificate naming the host only in its CN"
# Key usage.
simple ku-non-repudiation localhost reject "keyUsage nonRepudiation only (no digitalSignature, no keyEncipherment)" DNS:localhost serverAuth nonRepudiation
simple ku-cert-sign localhost reject "keyUsage keyCertSign only on a leaf" DNS:localhost serverAuth keyCertSign
simple ku-digital-signature localhost accept "keyUsage digitalSignature only" DNS:localhost serverAuth digitalSignature
simple ku-absent localhost accept "no keyUsage extension" DNS:localhost serverAuth none

# Issuers and paths.
cert not-a-ca "/CN=Matrix CA FALSE issuer" root 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash'
cert issuer-ca-false "/CN=localhost" not-a-ca "$(leaf DNS:localhost)"
row issuer-ca-false localhost "issuer-ca-false,not-a-ca" root reject "issuer marked CA:FALSE"
cert no-constraints "/CN=Matrix issuer without basicConstraints" root 'keyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash'
cert issuer-no-basic-constraints "/CN=localhost" no-constraints "$(leaf DNS:localhost)"
row issuer-no-basic-constraints localhost "issuer-no-basic-constraints,no-constraints" root reject "intermediate without basicConstraints"
cert pathlen0 "/CN=Matrix pathlen 0 CA" root 'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash'
cert pathlen-sub "/CN=Matrix CA under pathlen 0" pathlen0 "$ca"
cert pathlen-exceeded "/CN=localhost" pathlen-sub "$(leaf DNS:localhost)"
row pathlen-exceeded localhost "pathlen-exceeded,pathlen-sub,pathlen0" root reject "a CA below an issuer with pathlen:0"
cert pathlen-within "/CN=localhost" pathlen0 "$(leaf DNS:localhost)"
row pathlen-within localhost "pathlen-within,pathlen0" root accept "a leaf directly below an issuer with pathlen:0"
row missing-intermediate localhost "eku-server-auth" root reject "the server leaves out the intermediate"
row partial-chain-anchor localhost "eku-server-auth,intermediate" intermediate accept "the intermediate is the trust anchor (partial chain)"
row wrong-anchor localhost "eku-server-auth,intermediate" other-root reject "a chain to a root the client does not trust"
cert ca-eku-client "/CN=Matrix intermediate for clientAuth" root "$ca\nextendedKeyUsage=clientAuth"
cert issuer-eku-client "/CN=localhost" ca-eku-client "$(leaf DNS:localhost)"
row issuer-eku-client localhost "issuer-eku-client,ca-eku-client" root reject "an intermediate restricted to clientAuth"
cert unknown-critical "/CN=localhost" intermediate "$(leaf DNS:localhost)\n1.3.6.1.4.1.55555.1=critical,ASN1:NULL"
row unknown-critical localhost "unknown-critical,intermediate" root reject "an unknown critical extension"

# Name constraints.
nc() {  # nc NAME CONSTRAINTS
    cert "$1" "/CN=Matrix constrained CA $1" root "$ca\nnameConstraints=critical,$2"
}
nc nc-dns-ca "permitted;DNS:example.localhost"
cert nc-permitted-dns "/CN=api.example.localhost" nc-dns-ca "$(leaf DNS:api.example.localhost)"
row nc-permitted-dns api.example.localhost "nc-permitted-dns,nc-dns-ca" root accept "a name inside a permitted DNS subtree"
cert nc-outside-permitted-dns "/CN=api.other.localhost" nc-dns-ca "$(leaf DNS:api.other.localhost)"
row nc-outside-permitted-dns api.other.localhost "nc-outside-permitted-dns,nc-dns-ca" root reject "a name outside the permitted DNS subtree"
nc nc-excluded-dns-ca "excluded;DNS:blocked.localhost"
cert nc-excluded-dns "/CN=api.blocked.localhost" nc-excluded-dns-ca "$(leaf DNS:api.blocked.localhost)"
row nc-excluded-dns api.blocked.localhost "nc-excluded-dns,nc-excluded-dns-ca" root reject "a name inside an excluded DNS subtree"
cert nc-excluded-dns-cn "/CN=api.blocked.localhost" nc-excluded-dns-ca "$(leaf "")"
row nc-excluded-dns-cn api.blocked.localhost "nc-excluded-dns-cn,nc-excluded-dns-ca" root reject "an excluded name in the CN of a leaf without SANs"
nc nc-ip-ca "permitted;IP:127.0.0.0/255.0.0.0"
cert nc-permitted-ip "/CN=loopback" nc-ip-ca "$(leaf IP:127.0.0.1)"
row nc-permitted-ip 127.0.0.1 "nc-permitted-ip,nc-ip-ca" root accept "an address inside a permitted IP range"
nc nc-other-ip-ca "permitted;IP:10.0.0.0/255.0.0.0"
cert nc-outside-permitted-ip "/CN=loopback" nc-other-ip-ca "$(leaf IP:127.0.0.1)"
row nc-outside-permitted-ip 127.0.0.1 "nc-outside-permitted-ip,nc-other-ip-ca" root reject "an address outside the permitted IP range"
nc nc-excluded-ip-ca "excluded;IP:127.0.0.0/255.0.0.0"
cert nc-excluded-ip "/CN=loopback" nc-excluded-ip-ca "$(leaf IP:127.0.0.1)"
row nc-excluded-ip 127.0.0.1 "nc-excluded-ip,nc-excluded-ip-ca" root reject "an address inside an excluded IP range"

# Dates.
cert expired "/CN=localhost" intermediate "$(leaf DNS:localhost)" 20200101000000Z 20210101000000Z
row expired localhost "expired,intermediate" root reject "an expired leaf"
cert not-yet-valid "/CN=localhost" intermediate "$(leaf DNS:localhost)" 21000101000000Z 21200101000000Z
row not-yet-valid localhost "not-yet-valid,intermediate" root reject "a leaf not yet valid"
cert expired-intermediate "/CN=Matrix expired intermediate" root "$ca" 20200101000000Z 20210101000000Z
cert under-expired-intermediate "/CN=localhost" expired-intermediate "$(leaf DNS:localhost)"
row expired-intermediate localhost "under-expired-intermediate,expired-intermediate" root reject "an expired intermediate"

# Algorithms.
cert sha1 "/CN=localhost" intermediate "$(leaf DNS:localhost)" 20200101000000Z 21200101000000Z sha1
row sha1-signature localhost "sha1,intermediate" root reject "a leaf signed with SHA-1"
cert md5 "/CN=localhost" intermediate "$(leaf DNS:localhost)" 20200101000000Z 21200101000000Z md5
row md5-signature localhost "md5,intermediate" root reject "a leaf signed with MD5"
key rsa1024 1024
cert rsa1024 "/CN=localhost" intermediate "$(leaf DNS:localhost)"
row rsa-1024 localhost "rsa1024,intermediate" root reject "a leaf with an RSA-1024 key"

# Names.
simple wildcard a.example.localhost accept "*.example.localhost for a.example.localhost" 'DNS:*.example.localhost'
row wildcard-two-labels a.b.example.localhost "wildcard,intermediate" root reject "*.example.localhost for a.b.example.localhost"
row wildcard-bare-domain example.localhost "wildcard,intermediate" root reject "*.example.localhost for example.localhost"
simple wildcard-top-level a.localhost reject "*.localhost, a wildcard over a top-level name (like *.com)" 'DNS:*.localhost'
simple wildcard-partial foo.example.localhost reject "f*.example.localhost, a partial wildcard" 'DNS:f*.example.localhost'
simple wildcard-idn a.xn--bcher-kva.localhost accept "*.xn--bcher-kva.localhost for a.xn--bcher-kva.localhost" 'DNS:*.xn--bcher-kva.localhost'
simple wildcard-in-a-label xn--bcher-kva.example.localhost reject "xn--*.example.localhost, a wildcard inside an A-label" 'DNS:xn--*.example.localhost'
simple ip-san-for-dns-name localhost reject "only an IP SAN, asked for by name" IP:127.0.0.1
simple dns-san-for-ip 127.0.0.1 reject "the address as a DNS SAN, asked for by address" DNS:127.0.0.1
simple ip-san 127.0.0.1 accept "an IP SAN for the address" IP:127.0.0.1
simple wildcard-for-ip 127.0.0.1 reject "a wildcard DNS SAN for an address" 'DNS:*.0.0.1'
cert cn-ignored "/CN=localhost" intermediate "$(leaf DNS:other.localhost)"
row cn-ignored-with-san localhost "cn-ignored,intermediate" root reject "a CN naming the host beside SANs that do not"
cert cn-only "/CN=localhost" intermediate "$(leaf "")"
row cn-only localhost "cn-only,intermediate" root accept "the host in the CN of a server certificate without SANs"
simple san-trailing-dot localhost reject "a SAN with a trailing dot (localhost.) for localhost" DNS:localhost.
row host-trailing-dot localhost. "eku-server-auth,intermediate" root reject "localhost. (with a trailing dot) for a SAN localhost"
simple upper-case localhost accept "a SAN in upper case (LOCALHOST)" DNS:LOCALHOST
simple wrong-name localhost reject "a SAN naming another host" DNS:other.localhost

# Self-signed leaves.
cert self-signed "/CN=localhost" self "$(leaf DNS:localhost)"
row self-signed localhost "self-signed" root reject "a self-signed leaf the client does not trust"
row self-signed-anchored localhost "self-signed" self-signed accept "a self-signed leaf that is itself the trust anchor"

# Cross-signing: the intermediate's key also certified by an old root, in a cross certificate
# that has expired. Presented with the cross certificate, the chain to the trusted root is valid.
cert old-root "/CN=Matrix Old Root CA" self "$ca" 20000101000000Z 21200101000000Z
cp intermediate.key cross.key
cert cross "/CN=Matrix Intermediate CA" old-root "$ca" 20000101000000Z 20100101000000Z
row cross-signed-valid-path localhost "eku-server-auth,cross,intermediate" root accept "leaf, intermediate and an expired cross certificate; the root is trusted"
row cross-signed-expired-path localhost "eku-server-auth,cross" old-root reject "only the path through the expired cross certificate reaches a trusted root"

# Pinning: a pin is looked for in the chain that verified (leaf to anchor), never among extra
# certificates the server sends: an impostor holding any valid certificate for the host appends
# the real server's, which is public (OkHttp's CVE-2016-2402; curl's --pinnedpubkey checks the leaf).
row pin-leaf-key localhost "eku-server-auth,intermediate" root accept "the leaf's public key pinned" key:eku-server-auth
row pin-key-appended localhost "eku-server-auth,intermediate,ku-digital-signature" root reject "the pinned key only in another valid certificate for the host, appended after the chain" key:ku-digital-signature
row pin-key-unrelated-extra localhost "eku-server-auth,intermediate,self-signed" root reject "the pinned key only in an unrelated extra certificate" key:self-signed
row pin-certificate-appended localhost "eku-server-auth,intermediate,ku-digital-signature" root reject "the pinned certificate only appended after the chain" cert:ku-digital-signature

mkdir -p "$out"
rm -f "$out"/*.pem "$out"/*.key "$out/matrix.tsv"
declare -A copied
for entry in "${rows[@]}"; do
    IFS='|' read -r name host chain anchors expected what pin <<<"$entry"
    for file in ${chain//,/ } ${anchors//,/ }; do
        [ -n "${copied[$file]:-}" ] && continue
        copied[$file]=1
        openssl x509 -in "$file.pem" -out "$out/$file.pem"
    done
    leaf_file="${chain%%,*}"
    [ -f "$out/$leaf_file.key" ] || cp "$leaf_file.key" "$out/$leaf_file.key"
done

# OpenSSL's verdicts.
verdicts_openssl=()
for entry in "${rows[@]}"; do
    IFS='|' read -r name host chain anchors expected what pin <<<"$entry"
    leaf_file="${chain%%,*}"
    cat /dev/null > untrusted.pem
    for file in $(echo "${chain#"$leaf_file"}" | tr ',' ' '); do cat "$out/$file.pem" >> untrusted.pem; done
    cat /dev/null > anchors.pem
    for file in ${anchors//,/ }; do cat "$out/$file.pem" >> anchors.pem; done
    if [[ "$host" =~ ^[0-9.]+$ ]]; then name_check=(-verify_ip "$host"); else name_check=(-verify_hostname "$host"); fi
    untrusted=()
    [ -s untrusted.pem ] && untrusted=(-untrusted untrusted.pem)
    if message="$(openssl verify -purpose sslserver -partial_chain "${name_check[@]}" -CAfile anchors.pem "${untrusted[@]}" "$out/$leaf_file.pem" 2>&1)"; then
        verdicts_openssl+=("accept")
    else
        reason="$(grep -o 'error [0-9]* at [0-9]* depth lookup: .*' <<<"$message" | head -1 || true)"
        verdicts_openssl+=("reject: ${reason:-$message}")
    fi
done

# curl's verdicts, against the matrix server.
for entry in "${rows[@]}"; do
    IFS='|' read -r name host chain anchors expected what pin <<<"$entry"
    printf '%s\t%s\t%s\n' "$name" "$host" "$chain"
done > rows.tsv
python3 "$root/scripts/tls_matrix_server.py" "$out" rows.tsv > ports.txt 2>server.log &
server=$!
for _ in $(seq 100); do grep -q '^ready' ports.txt 2>/dev/null && break; sleep 0.1; done
verdicts_curl=()
for entry in "${rows[@]}"; do
    IFS='|' read -r name host chain anchors expected what pin <<<"$entry"
    port="$(awk -v row="$name" '$1 == row { print $2 }' ports.txt)"
    cat /dev/null > anchors.pem
    for file in ${anchors//,/ }; do cat "$out/$file.pem" >> anchors.pem; done
    pinning=()
    [ -n "$pin" ] && pinning=(--pinnedpubkey "sha256//$(openssl x509 -in "$out/${pin#*:}.pem" -pubkey -noout \
        | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64)")
    if curl -s -o /dev/null --max-time 10 --cacert anchors.pem "${pinning[@]}" "https://$host:$port/"; then
        verdicts_curl+=("accept")
    else
        verdicts_curl+=("reject: exit $?")
    fi
done

{
    printf '# name\thost\tchain\tanchors\texpected\topenssl\tcurl\twhat\tpin\n'
    for index in "${!rows[@]}"; do
        IFS='|' read -r name host chain anchors expected what pin <<<"${rows[$index]}"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$host" "$chain" "$anchors" "$expected" \
            "${verdicts_openssl[$index]}" "${verdicts_curl[$index]}" "$what" "$pin"
    done
} > "$out/matrix.tsv"

# The library must be at least as strict as both: an expected `accept` that either refuses is an
# error in the matrix.
status=0
while IFS=$'\t' read -r name host chain anchors expected openssl_verdict curl_verdict what pin; do
    [[ "$name" == \#* ]] && continue
    if [ "$expected" = accept ] && { [ "$openssl_verdict" != accept ] || [ "$curl_verdict" != accept ]; }; then
        echo "row $name: expected accept, but openssl says '$openssl_verdict' and curl '$curl_verdict'" >&2
        status=1
    fi
    if [ "$expected" = reject ] && [ "$openssl_verdict" = accept ] && [ "$curl_verdict" = accept ]; then
        echo "note: row $name: expected reject, accepted by both openssl and curl" >&2
    fi
done < "$out/matrix.tsv"
echo "matrix of ${#rows[@]} rows written to $out"
exit $status
