#!/usr/bin/env bash
# Regenerates the PDF fixtures used by PodiumMediaTests.
#
# Each good fixture comes from a different producer, because PDF readers trip over
# producer-specific structure (object streams, linearisation, Type 1 versus TrueType
# fonts, /Rotate); the broken ones cover each error code the ingester promises, and the
# hostile ones (enormous page, decompression bombs, cyclic page tree, too many pages) are
# small files that ask for enormous work.
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

# Hostile inputs: small files that describe enormous work. Written as raw PDF syntax (with an
# exact xref table) so each one says precisely what it is meant to, which no producer would.
"$python" - "$out" "$work" <<'PY'
import sys
import zlib

out, work = sys.argv[1], sys.argv[2]


def write_pdf(path, objects):
    """Writes objects (object n is objects[n - 1], object 1 the catalog) with a correct xref table."""
    data = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(data))
        data += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(data)
    data += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    data += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    data += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    with open(path, "wb") as f:
        f.write(data)


def stream(data, dictionary=b""):
    return b"<< /Length %d %s>>\nstream\n" % (len(data), dictionary) + data + b"\nendstream"


def bomb(head, filler, size):
    """`head` then `filler` repeated to `size` bytes, Flate-compressed twice.

    One Flate layer cannot shrink data more than about 1000 times; the second layer compresses
    the highly repetitive first one again, so hundreds of megabytes fit in a kilobyte or two. Compressed a
    megabyte at a time, so making the file needs no more memory than that.
    """
    inner, outer = zlib.compressobj(9), zlib.compressobj(9)
    chunk = filler * ((1 << 20) // len(filler))
    pieces = [outer.compress(inner.compress(head))]
    for _ in range(size // len(chunk)):
        pieces.append(outer.compress(inner.compress(chunk)))
    pieces += [outer.compress(inner.flush()), outer.flush()]
    return b"".join(pieces)


font = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def one_page(path, media_box, content, filters=b""):
    write_pdf(path, [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [%s] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"
        % media_box,
        stream(content, filters),
        font,
    ])


# 14400 x 14400 pt (200 in square), the largest page PDF allows: must still render at normal sizes.
one_page(f"{out}/enormous-page.pdf", b"0 0 14400 14400",
         b"0.31 0.27 0.90 rg 0 13400 14400 1000 re f\n0 0 0 rg BT /F1 900 Tf 720 7200 Td (Enormous page) Tj ET\n")

# A 1 KB content stream that inflates to 256 MiB: a line of text, then spaces. Readers that stream
# content parse it in bounded memory; one that inflated it whole would hit the memory limit.
one_page(f"{out}/decompression-bomb.pdf", b"0 0 612 792",
         bomb(b"BT /F1 48 Tf 72 400 Td (Decompression bomb) Tj ET\n", b" ", 1 << 28),
         b"/Filter [/FlateDecode /FlateDecode] ")

# The same trick, but the 256 MiB are "0 0 m 1 1 l" over and over: a path that is never painted, so
# it grows without end. Only the memory limit on the tool stops it.
one_page(f"{out}/path-bomb.pdf", b"0 0 612 792",
         bomb(b"BT /F1 48 Tf 72 400 Td (Path bomb) Tj ET\n", b"0 0 m 1 1 l ", 1 << 28),
         b"/Filter [/FlateDecode /FlateDecode] ")

# The root Pages node lists a page, itself, and a child Pages node whose only kid is the root (its
# parent). /Count claims 3 pages; a reader walking the tree naively never stops.
write_pdf(f"{out}/cyclic-page-tree.pdf", [
    b"<< /Type /Catalog /Pages 2 0 R >>",
    b"<< /Type /Pages /Kids [3 0 R 2 0 R 6 0 R] /Count 3 >>",
    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
    stream(b"BT /F1 48 Tf 72 400 Td (Cyclic page tree) Tj ET\n"),
    font,
    b"<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>",
])

# 3000 empty pages, over the default limit of 2000; qpdf packs them into object streams below.
pages = 3000
objects = [b"<< /Type /Catalog /Pages 2 0 R >>", None]
objects += [b"<< /Type /Page /Parent 2 0 R >>"] * pages
kids = b" ".join(b"%d 0 R" % number for number in range(3, pages + 3))
objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d /MediaBox [0 0 612 792] >>" % (kids, pages)
write_pdf(f"{work}/many-pages-tiny.pdf", objects)
PY
qpdf --deterministic-id --object-streams=generate "$work/many-pages-tiny.pdf" "$out/many-pages-tiny.pdf"

ls -l "$out"
