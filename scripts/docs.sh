#!/usr/bin/env bash
# Builds the documentation and fails on anything wrong with it: compiles every listing of the
# catalogs (the DocumentationSnippets test target; scripts/test.sh runs it) and checks each
# listing is a region of those files, checks the pictures are what scripts/docs-images.py draws
# from BENCHMARKS.md, extracts the symbol graphs and fails unless every public
# symbol has a doc comment, converts the two catalogs with the toolchain's `docc` (warnings, such
# as a broken symbol link, are errors) and merges them into one static site (default
# .build/docs/site, or the first argument). Serve it with
# `python3 -m http.server -d .build/docs/site` and open
# http://127.0.0.1:8000/documentation/afnetworking (DocC's pages load their content with
# fetch, which browsers refuse from file:// addresses). AFN_DOCS_BROWSER_CHECK=1 also renders
# two pages with headless Chromium when it is installed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
started=$SECONDS
work=.build/docs
site="${1:-$work/site}"
docc="${DOCC:-$(dirname "$(readlink -f "$(command -v swift)")")/docc}"
rm -rf "$work/graphs-raw" "$work/graphs" "$work/archives" "$site"
mkdir -p "$work/graphs-raw" "$work/archives"

python3 scripts/docs.py snippets
python3 scripts/docs-images.py --check
swift build --target DocumentationSnippets

# The modules as built, read back: swift-symbolgraph-extract needs the C bridges' module maps.
modules="$(swift build --show-bin-path)/Modules"
extract=(swift-symbolgraph-extract -target "$(uname -m)-unknown-linux-gnu" -I "$modules"
         -minimum-access-level public -skip-inherited-docs -output-dir "$work/graphs-raw")
for bridge in LibcurlBridge OpenSSLBridge PublicSuffixBridge TestServerTLSBridge; do
    extract+=(-Xcc "-fmodule-map-file=$(swift build --show-bin-path)/$bridge.build/module.modulemap"
              -Xcc -I -Xcc "Sources/$bridge/include")
done
for module in AFSerialization AFSession AFTransport AFSecurity AFReachability AFNetworkingTesting; do
    "${extract[@]}" -module-name "$module"
done
python3 scripts/docs.py graphs "$work/graphs-raw" "$work/graphs"

log="$work/docc.log"
: >"$log"
convert() {  # catalog, module
    "$docc" convert "$1" --additional-symbol-graph-dir "$work/graphs/$2" --fallback-display-name "$2" \
        --fallback-bundle-identifier "org.afnetworking.linux.$2" --output-path "$work/archives/$2.doccarchive" \
        --transform-for-static-hosting --warnings-as-errors 2>&1 | tee -a "$log"
    return "${PIPESTATUS[0]}"
}
status=0
convert Sources/AFNetworking/AFNetworking.docc AFNetworking || status=1
convert Sources/Testing/AFNetworkingTesting.docc AFNetworkingTesting || status=1
problems=$(grep -cE '(warning|error):' "$log" || true)
echo "docs: docc reported $problems warnings or errors"
if [ "$status" -ne 0 ] || [ "$problems" -ne 0 ]; then
    exit 1
fi
"$docc" merge "$work/archives/AFNetworking.doccarchive" "$work/archives/AFNetworkingTesting.doccarchive" \
    --synthesized-landing-page-name "AFNetworking for Linux" --output-path "$site" >/dev/null
for page in documentation/afnetworking documentation/afnetworking/httpsessionmanager \
            documentation/afnetworking/gettingstarted documentation/afnetworkingtesting/stubtransport; do
    [ -f "$site/$page/index.html" ] || { echo "docs: the site has no $page"; exit 1; }
done

if [ "${AFN_DOCS_BROWSER_CHECK:-0}" = 1 ]; then
    bash scripts/docs-browser-check.sh "$site"
fi
echo "docs: site in $site ($(find "$site" -name index.html | wc -l) pages), built in $((SECONDS - started)) s;" \
    "read it offline: python3 -m http.server -d $site 8000, then http://127.0.0.1:8000/documentation/afnetworking"
