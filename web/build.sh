#!/usr/bin/env bash
# Builds the playground into web/dist/: urchin compiled to WebAssembly, its
# wasm-bindgen loader, the page, and the examples and lessons of examples/
# (embedded, so that the page makes no request once loaded). Serve the
# folder with any static server: `cd web/dist && python3 -m http.server`.
#
# Needs the wasm32-unknown-unknown target (`rustup target add
# wasm32-unknown-unknown`) and the wasm-bindgen CLI at the version of
# Cargo.lock's wasm-bindgen (the script says which). The `web` profile
# (Cargo.toml) optimises for size; binaryen's wasm-opt -Oz would take 12%
# more off the module but not off its gzipped size, for minutes of build.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
dist=web/dist

want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
if [ "$have" != "$want" ]; then
  echo "web/build.sh: wasm-bindgen $want is needed (found: ${have:-none});" >&2
  echo "  cargo install wasm-bindgen-cli --version $want" >&2
  exit 1
fi

cargo build --profile web --target wasm32-unknown-unknown -p urchin-web
rm -rf "$dist"
mkdir -p "$dist"
wasm-bindgen --target web --no-typescript --remove-name-section \
  --remove-producers-section --out-dir "$dist" \
  target/wasm32-unknown-unknown/web/urchin_web.wasm
cp web/static/* "$dist/"
python3 web/lessons.py examples > "$dist/lessons.js"

wasm=$dist/urchin_web_bg.wasm
echo "web/build.sh: $dist: $(du -sh "$dist" | cut -f1); $(basename "$wasm"): $(stat -c %s "$wasm") bytes, $(gzip -9 -c "$wasm" | wc -c) gzipped"
