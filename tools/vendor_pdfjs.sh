#!/bin/sh
# Re-vendor PDF.js (npm pdfjs-dist) into static/vendor/pdfjs/: the reader loads nothing from
# elsewhere at run time. Usage: tools/vendor_pdfjs.sh [VERSION]  (default: the version pinned
# below; `make vendor-pdfjs PDFJS_VERSION=x.y.z`). Needs npm (only `npm pack`: no install).
# Versions before 6.2.108 run a malicious PDF's JavaScript (issue 26): refuse them.
set -eu
VERSION="${1:-6.5.438}"
case "$VERSION" in
  [0-5].*|6.[01].*|6.2.[0-9]|6.2.[0-9][0-9]|6.2.10[0-7]) echo "pdfjs-dist $VERSION is older than 6.2.108: refused" >&2; exit 1;;
esac
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="$ROOT/static/vendor/pdfjs"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
(cd "$WORK" && npm pack --silent "pdfjs-dist@$VERSION" >/dev/null && tar xzf pdfjs-dist-*.tgz)
PKG="$WORK/package"
rm -rf "$DEST"
mkdir -p "$DEST/build" "$DEST/wasm" "$DEST/standard_fonts" "$DEST/cmaps" "$DEST/iccs"
# The minified library and its worker only: no source maps, no legacy build (the reader targets
# current browsers), no renderer or scripting sandbox (scripting is off), no pdf_viewer (ours).
cp "$PKG/build/pdf.min.mjs" "$PKG/build/pdf.worker.min.mjs" "$DEST/build/"
# WebAssembly decoders (JPEG 2000, JBIG2, colour management); the QuickJS one serves scripting only.
cp "$PKG/wasm/openjpeg.wasm" "$PKG/wasm/jbig2.wasm" "$PKG/wasm/qcms_bg.wasm" "$DEST/wasm/"
cp "$PKG"/wasm/LICENSE_OPENJPEG "$PKG"/wasm/LICENSE_PDFJS_OPENJPEG "$PKG"/wasm/LICENSE_JBIG2 \
  "$PKG"/wasm/LICENSE_PDFJS_JBIG2 "$PKG"/wasm/LICENSE_QCMS "$PKG"/wasm/LICENSE_PDFJS_QCMS "$DEST/wasm/"
cp -R "$PKG/standard_fonts/." "$DEST/standard_fonts/"
cp -R "$PKG/cmaps/." "$DEST/cmaps/"
cp -R "$PKG/iccs/." "$DEST/iccs/"
cp "$PKG/LICENSE" "$DEST/LICENSE"
echo "$VERSION" > "$DEST/VERSION"
cat > "$DEST/README.md" <<README
# PDF.js $VERSION (npm \`pdfjs-dist\`), vendored for the reader

Only what the reader (static/js/reader/) loads: \`build/pdf.min.mjs\` and its worker
\`build/pdf.worker.min.mjs\`, the WebAssembly image decoders in \`wasm/\`, the standard fonts,
the CMaps and the ICC profile. Licence: Apache-2.0 (\`LICENSE\`; the decoders' own in \`wasm/\`).

Update: \`make vendor-pdfjs PDFJS_VERSION=x.y.z\` (tools/vendor_pdfjs.sh, which refuses anything
older than 6.2.108), then run the reader's tests (tests/test_pdfs_reader.py, tests/browser/test_reader.py).
README
echo "pdfjs-dist $VERSION vendored into $DEST"
