#!/usr/bin/env bash
# Regenerates the PDF fixtures used by PodiumMediaTests.
#
# Each good fixture comes from a different producer, because PDF readers trip over
# producer-specific structure (object streams, linearisation, Type 1 versus TrueType
# fonts, /Rotate); the broken ones cover each error code the ingester promises.
#
# Needs: python3 with cairo (Debian python3-cairo), ghostscript (ps2pdf), poppler-utils
# (pdftocairo, pdftoppm) and qpdf. Run from anywhere: bash Tests/Fixtures/make-fixtures.sh
set -euo pipefail

out="$(cd "$(dirname "$0")" && pwd)/pdf"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Debian's python3-cairo is installed for the system interpreter, not for a pyenv one.
python=/usr/bin/python3
[ -x "$python" ] || python=python3

# 1. cairo: three slides, 16:9, 4:3, 16:9, with a title and text on every page.
"$python" - "$out/cairo-slides.pdf" <<'PY'
import sys
import cairo

surface = cairo.PDFSurface(sys.argv[1], 960, 540)
surface.set_metadata(cairo.PDFMetadata.TITLE, "Cairo Slides")
surface.set_metadata(cairo.PDFMetadata.CREATE_DATE, "2025-01-01T00:00:00Z")
ctx = cairo.Context(surface)
pages = [(960, 540, "First slide wide"), (720, 540, "Second slide classic"), (960, 540, "Third slide wide")]
for number, (width, height, words) in enumerate(pages, start=1):
    surface.set_size(width, height)
    ctx.set_source_rgb(0.31, 0.27, 0.90)
    ctx.rectangle(0, 0, width, 60)
    ctx.fill()
    ctx.set_source_rgb(0.1, 0.1, 0.2)
    ctx.select_font_face("DejaVu Sans", cairo.FONT_SLANT_NORMAL, cairo.FONT_WEIGHT_NORMAL)
    ctx.set_font_size(40)
    ctx.move_to(60, height / 2)
    ctx.show_text(words)
    ctx.set_font_size(20)
    ctx.move_to(60, height - 40)
    ctx.show_text(f"Page {number}")
    ctx.show_page()
surface.finish()
PY

# 2. Ghostscript: two A4 portrait pages from PostScript, title set with pdfmark.
cat >"$work/a4.ps" <<'PS'
%!PS-Adobe-3.0
%%Pages: 2
%%DocumentMedia: A4 595 842 0 () ()
<< /PageSize [595 842] >> setpagedevice
[ /Title (Ghostscript A4) /DOCINFO pdfmark
/Helvetica findfont 28 scalefont setfont
72 760 moveto (Ghostscript page one) show
72 720 moveto (Portrait A4 paper) show
showpage
/Helvetica findfont 28 scalefont setfont
72 760 moveto (Ghostscript page two) show
newpath 72 400 moveto 520 400 lineto stroke
showpage
PS
ps2pdf -sPAPERSIZE=a4 "$work/a4.ps" "$out/ghostscript-a4.pdf"

# 3. pdftocairo re-encodes the Ghostscript file (other font embedding, no Info title).
pdftocairo -pdf "$out/ghostscript-a4.pdf" "$out/recoded.pdf"

# 4. qpdf: object streams and linearisation, which older readers handle badly.
qpdf --deterministic-id --object-streams=generate --linearize "$out/cairo-slides.pdf" "$out/linearized.pdf"

# 5. qpdf: page 1 rotated by /Rotate 90, so it displays as landscape 842 x 595.
qpdf --deterministic-id --rotate=+90:1 "$out/ghostscript-a4.pdf" "$out/rotated.pdf"

# 6. Encrypted with an owner password only: anyone may open it, so ingest must accept it.
qpdf --encrypt "" owner-secret 256 -- "$out/cairo-slides.pdf" "$out/owner-locked.pdf"

# Broken inputs, one per error code.
: >"$out/empty.pdf"
pdftoppm -png -scale-to 16 -f 1 -l 1 -singlefile "$out/cairo-slides.pdf" "$work/tiny"
cp "$work/tiny.png" "$out/not-a-pdf.pdf"
size=$(stat -c %s "$out/cairo-slides.pdf")
head -c $((size * 40 / 100)) "$out/cairo-slides.pdf" >"$out/truncated.pdf"
"$python" - "$out/garbage.pdf" <<'PY'
import random
import sys

random.seed(1729)  # fixed, so regenerating gives the same bytes
with open(sys.argv[1], "wb") as f:
    f.write(b"%PDF-1.7\n")
    f.write(bytes(random.getrandbits(8) for _ in range(4096)))
PY
qpdf --encrypt user-secret owner-secret 256 -- "$out/cairo-slides.pdf" "$out/encrypted.pdf"

ls -l "$out"
