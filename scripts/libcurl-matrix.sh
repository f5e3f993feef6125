#!/usr/bin/env bash
# Runs the transport, security and session tests again against other libcurl and OpenSSL builds
# than the system's, without touching the system, and fails when a variant's outcome differs
# from the one written down in scripts/libcurl-matrix.expected.
#
# The libraries come from Debian's archive through a private apt configuration under
# .build-matrix/apt (its own sources, lists and cache: the system's apt state is neither read
# for sources nor written), are unpacked with `dpkg-deb -x` under .build-matrix/<variant>, and
# are put first with LD_LIBRARY_PATH for the already-built test binary and the `afn` example
# (FoundationNetworking links libcurl.so.4 and follows LD_LIBRARY_PATH too). Variants:
#   backports  bookworm-backports' libcurl 8.14.1 on the system's OpenSSL 3
#   bullseye   Debian 11's libcurl 7.74.0 on its OpenSSL 1.1.1w, with the libraries that build
#              links from the same suite (the system's libssl.so.3 stays on the machine, as on a
#              system that has both)
#   gnutls     Debian 12's libcurl3-gnutls 7.88.1 loaded as libcurl.so.4 through the shim of
#              scripts/libcurl-shim.c (FoundationNetworking links libcurl's CURL_OPENSSL_4
#              symbol versions, which the GnuTLS build does not have)
# Each variant first runs the policy probes: the `afn` example against the TLS servers with a
# pin that does not match, a certificate for another host under --ca and under the default
# policy, and a self-signed certificate; each must fail, and the server's access log must not
# show the request (a request the policy could not check is a failure on every variant). Then
# the tests: a crash or a hang is always a failure; a failing test must be named for that
# variant in the expectations file, and a named one that passes is a failure too (the list
# stays exact). On a variant whose transport refuses, the pinned probe must be refused with the
# reason written down, and the TLS test servers must receive no request at all.
#
# Usage: bash scripts/libcurl-matrix.sh [VARIANT...]   (default: all; builds the tests first
# with `swift build --build-tests`, which `swift test` reuses). Run by .ci/run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
matrix="$root/.build-matrix"
expectations="$root/scripts/libcurl-matrix.expected"
fixtures="$root/Tests/SecurityTests/Fixtures"
modules="TransportTests SecurityTests SessionTests"
multiarch="$(cc -print-multiarch)"
all_variants="backports bullseye gnutls"
variants="${*:-$all_variants}"
# A module's run is stopped after this long (each takes 1-90 s when nothing hangs): a hang is
# reported as such, and the matrix stays within its share of CI's time.
module_timeout=200

# The packages of each variant, as PACKAGE/SUITE-PATTERN: the newest version in the suites
# matching the pattern (a point release or a security update).
variant_packages() {
    case "$1" in
        backports) echo "libcurl4/bookworm-backports" ;;
        bullseye) echo "libcurl4/bullseye libssl1.1/bullseye libldap-2.4-2/bullseye libnghttp2-14/bullseye
                        librtmp1/bullseye libssh2-1/bullseye libpsl5/bullseye libbrotli1/bullseye" ;;
        gnutls) echo "libcurl3-gnutls/bookworm" ;;
        *) echo "libcurl-matrix: unknown variant $1 (known: $all_variants)" >&2; return 1 ;;
    esac
}

apt_options=(-o "Dir::Etc::sourcelist=$matrix/apt/sources.list" -o "Dir::Etc::sourceparts=$matrix/apt/sources.list.d"
             -o "Dir::State::Lists=$matrix/apt/lists" -o "Dir::Cache=$matrix/apt/cache"
             -o "Dir::State::status=$matrix/apt/status" -o "APT::Sandbox::User=root")

fetch() {
    mkdir -p "$matrix/apt/lists/partial" "$matrix/apt/cache/archives/partial" "$matrix/apt/sources.list.d"
    : >"$matrix/apt/status"
    local keyring=/usr/share/keyrings/debian-archive-keyring.gpg suite
    : >"$matrix/apt/sources.list"
    for suite in bookworm bookworm-updates bookworm-backports bullseye bullseye-updates; do
        echo "deb [signed-by=$keyring] http://deb.debian.org/debian $suite main" >>"$matrix/apt/sources.list"
    done
    for suite in bookworm-security bullseye-security; do
        echo "deb [signed-by=$keyring] http://deb.debian.org/debian-security $suite main" >>"$matrix/apt/sources.list"
    done
    apt-get -qq "${apt_options[@]}" update
}

# newest_version PACKAGE SUITE: the newest version of PACKAGE in SUITE or its -updates and
# -security suites.
newest_version() {
    apt-cache "${apt_options[@]}" madison "$1" | awk -F' [|] ' -v suite="$2" \
        '{ split($3, where, " "); s = where[2]; sub(/\/.*/, "", s)
           if (s == suite || s == suite "-updates" || s == suite "-security") print $2 }' |
        while read -r version; do echo "$version"; done | sort -u |
        { best=""; while read -r v; do
              if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then best="$v"; fi
          done; echo "$best"; }
}

unpack() {
    local variant="$1" item package suite version
    rm -rf "${matrix:?}/$variant"
    mkdir -p "$matrix/$variant/root" "$matrix/$variant/debs"
    for item in $(variant_packages "$variant"); do
        package="${item%%/*}" suite="${item#*/}"
        version="$(newest_version "$package" "$suite")"
        if [ -z "$version" ]; then
            echo "libcurl-matrix: $package is not in $suite" >&2
            return 1
        fi
        (cd "$matrix/$variant/debs" && apt-get -qq "${apt_options[@]}" download "$package=$version")
        dpkg-deb -x "$(echo "$matrix/$variant/debs/${package}_"*.deb)" "$matrix/$variant/root"
        echo "$package $version" >>"$matrix/$variant/packages"
    done
    if [ "$variant" = gnutls ]; then
        mkdir -p "$matrix/$variant/shim"
        cc -O2 -Wall -Wextra -Werror -shared -fPIC -Wl,-soname,libcurl.so.4 \
            -Wl,--version-script="$root/scripts/libcurl-shim.map" -DSHIM_TARGET='"libcurl-gnutls.so.4"' \
            "$root/scripts/libcurl-shim.c" -ldl -o "$matrix/$variant/shim/libcurl.so.4"
    fi
}

library_path() {
    local variant="$1" path="$matrix/$1/root/usr/lib/$multiarch:$matrix/$1/root/lib/$multiarch"
    [ "$variant" = gnutls ] && path="$matrix/$variant/shim:$path"
    echo "$path"
}

# What the variant's processes load: libcurl.so.4 (and libssl) from the variant, nothing missing.
check_libraries() {
    local variant="$1" path binary="$2" listing
    path="$(library_path "$variant")"
    listing="$(LD_LIBRARY_PATH="$path" ldd "$binary")"
    if grep -q "not found" <<<"$listing"; then
        echo "libcurl-matrix: $variant: missing libraries:" >&2
        grep "not found" <<<"$listing" >&2
        return 1
    fi
    if ! grep -q "libcurl.so.4 => $matrix/$variant/" <<<"$listing"; then
        echo "libcurl-matrix: $variant: the test binary does not load the variant's libcurl:" >&2
        grep libcurl <<<"$listing" >&2
        return 1
    fi
    LD_LIBRARY_PATH="$path" python3 -c 'import ctypes; f = ctypes.CDLL("libcurl.so.4").curl_version; f.restype = ctypes.c_char_p; print(f().decode())'
}

# probe NAME URL ARGUMENTS...: runs `afn get URL?probe=NAME` under the variant and records its
# exit status and output for the judgement. trusted_probe: the same where the system's trust
# store (/etc/ssl/certs, in a private mount namespace) holds only the fixture root, so that
# libcurl's own verification accepts the fixture certificates and only the policy can refuse.
probe() {
    local name="$1" url="$2"
    shift 2
    local status=0
    LD_LIBRARY_PATH="$library_path" timeout 60 "$afn" get "$url/get?probe=$name" --timeout 20 "$@" \
        >"$run/probe-$name.out" 2>&1 || status=$?
    echo "$status" >"$run/probe-$name.status"
}
trusted_probe() {
    local name="$1" url="$2"
    shift 2
    local status=0
    timeout 60 unshare -r -m sh -c 'mount --bind "$1" /etc/ssl/certs && shift && exec "$@"' sh "$matrix/trusted-certs" \
        env LD_LIBRARY_PATH="$library_path" "$afn" get "$url/get?probe=$name" --timeout 20 "$@" \
        >"$run/probe-$name.out" 2>&1 || status=$?
    echo "$status" >"$run/probe-$name.status"
}

run_variant() {
    local variant="$1" module classes status name variable
    run="$matrix/$variant/run"
    rm -rf "$run"
    mkdir -p "$run"
    library_path="$(library_path "$variant")"
    echo "libcurl-matrix: $variant: $(check_libraries "$variant" "$tests")"
    check_libraries "$variant" "$afn" >/dev/null
    # Where each TLS server's access log stands before this variant's requests.
    for name in LOCALHOST CHAINED_LOCALHOST EXPIRED WRONG_HOST SELF_SIGNED MTLS; do
        variable="AFN_TLS_${name}_LOG"
        echo "$name ${!variable} $(wc -l <"${!variable}")" >>"$run/access-logs"
    done
    probe pinned "$AFN_TLS_LOCALHOST_URL" --pin-mode public-key --pin "$fixtures/localhost.pem" --ca "$fixtures/root-ca.pem"
    probe pin-mismatch "$AFN_TLS_LOCALHOST_URL" --pin-mode public-key --pin "$fixtures/wrong-host.pem" --ca "$fixtures/root-ca.pem"
    probe other-host-under-ca "$AFN_TLS_WRONG_HOST_URL" --ca "$fixtures/root-ca.pem"
    probe other-host-default "$AFN_TLS_WRONG_HOST_URL"
    probe self-signed-default "$AFN_TLS_SELF_SIGNED_URL"
    trusted_probe trusted-default "$AFN_TLS_LOCALHOST_URL"
    trusted_probe trusted-other-host "$AFN_TLS_WRONG_HOST_URL"
    trusted_probe trusted-pin-mismatch "$AFN_TLS_LOCALHOST_URL" --pin-mode public-key --pin "$fixtures/wrong-host.pem"
    trusted_probe trusted-proxy-anchors "$AFN_TLS_LOCALHOST_URL" --ca "$fixtures/root-ca.pem" \
        --proxy "$AFN_PROXY_TLS_URL" --proxy-cacert "$fixtures/client-ca.pem"
    # Where the transport refuses (the pinned probe failed), a default manager runs on
    # URLSession's own protocol: the session tests then expect that protocol's behaviour, as in
    # scripts/test.sh's second run.
    local transport=libcurl
    [ "$(cat "$run/probe-pinned.status")" = 0 ] || transport=urlSession
    for module in $modules; do
        classes="$("$tests" --list-tests | grep "^$module\." | cut -d/ -f1 | sort -u | paste -sd, -)"
        # Where the transport refuses, the transport's and the session's tests have no libcurl
        # transport to run on: their managers fall back to URLSession's own protocol, which
        # scripts/test.sh tests on the system's libcurl (AFN_TEST_TRANSPORT=urlSession), and
        # whose faults are not this transport's (FoundationNetworking traps on a reset inside a
        # head). What holds there is the stubbed transport, the refusal, the probes above (pinned managers send
        # nothing, default ones fall back) and the facts of the libcurl loaded, which these
        # classes assert.
        if [ "$transport" = urlSession ]; then
            case "$module" in
                TransportTests) classes="TransportTests.CurlTransportLoadingTests,TransportTests.LibcurlCompatibilityTests" ;;
                # The stubbed transport needs no libcurl: the manager's own tasks and every
                # stub-driven test of a transfer's behaviour hold here too.
                SessionTests) classes="$("$tests" --list-tests | grep -E '^SessionTests\.(ManagedDataTask(Concurrency)?Tests|[A-Za-z]+StubTests)/' \
                    | cut -d/ -f1 | sort -u | paste -sd, -)" ;;
            esac
        fi
        local started=$SECONDS
        status=0
        # A private temporary directory (short: Unix socket paths are made under it), since
        # downloads are staged per user under $TMPDIR.
        local tmp
        tmp="$(mktemp -d)"
        TMPDIR="$tmp" LD_LIBRARY_PATH="$library_path" AFN_TEST_TRANSPORT="$transport" timeout --kill-after=10 "$module_timeout" "$tests" "$classes" \
            >"$run/$module.log" 2>&1 || status=$?
        rm -rf "$tmp"
        echo "$status" >"$run/$module.status"
        echo "libcurl-matrix: $variant: $module (managers on $transport): exit $status in $((SECONDS - started)) s"
    done
    python3 "$root/scripts/libcurl-matrix-judge.py" "$expectations" "$variant" "$run" $modules
}

tests="$root/.build/debug/AFNetworkingPackageTests.xctest"
afn="$root/.build/debug/afn"
swift build --build-tests
started=$SECONDS
# The trust store of the trusted probes: the fixture root, as a bundle and by its hash.
rm -rf "$matrix/trusted-certs"
mkdir -p "$matrix/trusted-certs"
cp "$fixtures/root-ca.pem" "$matrix/trusted-certs/ca-certificates.crt"
ln -s ca-certificates.crt "$matrix/trusted-certs/$(openssl x509 -in "$fixtures/root-ca.pem" -noout -hash).0"
fetch
for variant in $variants; do
    unpack "$variant"
done
echo "libcurl-matrix: libraries fetched and unpacked in $((SECONDS - started)) s"

source "$root/scripts/httpbin.sh"
source "$root/scripts/tls-servers.sh"
test_servers_serve
failed=""
for variant in $variants; do
    run_variant "$variant" || failed="$failed $variant"
done
echo "libcurl-matrix: $((SECONDS - started)) s in all"
if [ -n "$failed" ]; then
    echo "libcurl-matrix: FAILED:$failed (outcomes differ from scripts/libcurl-matrix.expected)"
    exit 1
fi
echo "libcurl-matrix: every variant as expected: $variants"
