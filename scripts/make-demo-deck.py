#!/usr/bin/python3
"""Draws Podium's demo deck, Public/demo/podium-demo.pdf: six 16:9 slides that introduce Podium.

Uses only Python 3 and pycairo (Debian: python3-cairo), so the deck can be rebuilt anywhere the
server builds. Run from the repository root or anywhere else:

    /usr/bin/python3 scripts/make-demo-deck.py [output.pdf]
"""

import math
import os
import sys

import cairo

WIDTH, HEIGHT = 1280, 720  # points: 16:9
FONT = "DejaVu Sans"

NAVY = (0.059, 0.090, 0.165)  # #0F172A
NAVY_LIGHT = (0.118, 0.161, 0.259)  # #1E293B
INDIGO = (0.310, 0.275, 0.898)  # #4F46E5
INDIGO_SOFT = (0.878, 0.906, 1.0)  # #E0E7FF
INDIGO_PALE = (0.933, 0.949, 1.0)  # #EEF2FF
PAPER = (0.973, 0.980, 0.988)  # #F8FAFC
INK = (0.059, 0.090, 0.165)  # #0F172A
MUTED = (0.392, 0.455, 0.545)  # #64748B
LINE = (0.886, 0.910, 0.941)  # #E2E8F0
WHITE = (1, 1, 1)
LASER = (0.937, 0.267, 0.267)  # #EF4444

TOTAL = 6


# ---------------------------------------------------------------- drawing helpers


def rounded(ctx, x, y, w, h, r):
    """Adds a rounded rectangle to the current path."""
    ctx.new_sub_path()
    ctx.arc(x + w - r, y + r, r, -math.pi / 2, 0)
    ctx.arc(x + w - r, y + h - r, r, 0, math.pi / 2)
    ctx.arc(x + r, y + h - r, r, math.pi / 2, math.pi)
    ctx.arc(x + r, y + r, r, math.pi, 3 * math.pi / 2)
    ctx.close_path()


def fill_rounded(ctx, x, y, w, h, r, color):
    ctx.set_source_rgb(*color)
    rounded(ctx, x, y, w, h, r)
    ctx.fill()


def text(ctx, x, y, s, size, color=INK, bold=False, align="left"):
    """Draws one line with its baseline at y; returns its advance width."""
    weight = cairo.FONT_WEIGHT_BOLD if bold else cairo.FONT_WEIGHT_NORMAL
    ctx.select_font_face(FONT, cairo.FONT_SLANT_NORMAL, weight)
    ctx.set_font_size(size)
    advance = ctx.text_extents(s).x_advance
    if align == "center":
        x -= advance / 2
    elif align == "right":
        x -= advance
    ctx.set_source_rgb(*color)
    ctx.move_to(x, y)
    ctx.show_text(s)
    # show_text leaves a current point; without this the next arc would start with a line from it.
    ctx.new_path()
    return advance


def wrapped(ctx, x, y, s, size, width, color=INK, leading=1.35, bold=False):
    """Draws s wrapped to width; returns the baseline after the last line."""
    ctx.select_font_face(FONT, cairo.FONT_SLANT_NORMAL, cairo.FONT_WEIGHT_BOLD if bold else cairo.FONT_WEIGHT_NORMAL)
    ctx.set_font_size(size)
    line = ""
    for word in s.split():
        candidate = f"{line} {word}".strip()
        if line and ctx.text_extents(candidate).x_advance > width:
            text(ctx, x, y, line, size, color, bold)
            y += size * leading
            line = word
        else:
            line = candidate
    if line:
        text(ctx, x, y, line, size, color, bold)
        y += size * leading
    return y


def light_slide(ctx, number, title, kicker):
    """The frame of a content slide: paper background, kicker, title, accent rule and page number."""
    ctx.set_source_rgb(*PAPER)
    ctx.paint()
    ctx.set_source_rgb(*INDIGO)
    ctx.rectangle(0, 0, 14, HEIGHT)
    ctx.fill()
    text(ctx, 96, 112, kicker.upper(), 20, INDIGO, bold=True)
    text(ctx, 96, 180, title, 56, INK, bold=True)
    footer(ctx, number, MUTED)


def footer(ctx, number, color):
    text(ctx, 96, HEIGHT - 44, "Podium", 18, color, bold=True)
    text(ctx, WIDTH - 96, HEIGHT - 44, f"{number} / {TOTAL}", 18, color, align="right")


def bullet(ctx, x, y, headline, detail, width):
    """A numbered-style bullet: indigo dot, bold headline, muted detail; returns the next y."""
    ctx.set_source_rgb(*INDIGO)
    ctx.arc(x + 8, y - 9, 8, 0, 2 * math.pi)
    ctx.fill()
    text(ctx, x + 36, y, headline, 28, INK, bold=True)
    return wrapped(ctx, x + 36, y + 38, detail, 21, width - 36, MUTED) + 34


def logo(ctx, x, y, scale, color):
    """Podium's mark: three steps of a podium, the middle one highest."""
    for dx, h in ((0, 28), (26, 44), (52, 20)):
        fill_rounded(ctx, x + dx * scale, y + (44 - h) * scale, 24 * scale, h * scale, 3 * scale, color)


def mini_slide(ctx, x, y, w, h, dark=False):
    """A small slide as devices show it: title bar, lines of text and a chart block."""
    fill_rounded(ctx, x, y, w, h, max(2, w * 0.02), NAVY if dark else WHITE)
    bar = INDIGO if not dark else WHITE
    fill_rounded(ctx, x + w * 0.08, y + h * 0.14, w * 0.5, h * 0.1, 2, bar)
    for i in range(3):
        fill_rounded(ctx, x + w * 0.08, y + h * (0.36 + i * 0.14), w * (0.42 - i * 0.06), h * 0.06, 2, LINE)
    for i, level in enumerate((0.35, 0.55, 0.8)):
        bh = h * 0.5 * level
        fill_rounded(ctx, x + w * (0.62 + i * 0.1), y + h * 0.82 - bh, w * 0.07, bh, 1.5, INDIGO_SOFT if i < 2 else INDIGO)


# ---------------------------------------------------------------- slides


def slide_title(ctx):
    ctx.set_source_rgb(*NAVY)
    ctx.paint()
    # Soft indigo glow in the corner, as a radial gradient.
    glow = cairo.RadialGradient(1100, 120, 0, 1100, 120, 620)
    glow.add_color_stop_rgba(0, *INDIGO, 0.55)
    glow.add_color_stop_rgba(1, *INDIGO, 0)
    ctx.set_source(glow)
    ctx.paint()
    logo(ctx, 96, 120, 1.4, INDIGO_SOFT)
    text(ctx, 210, 170, "Podium", 30, WHITE, bold=True)
    text(ctx, 96, 360, "Welcome to Podium", 88, WHITE, bold=True)
    ctx.set_source_rgb(*INDIGO)
    ctx.rectangle(96, 400, 160, 8)
    ctx.fill()
    wrapped(ctx, 96, 470, "Present a PDF to the room and to the world: every phone, tablet, laptop and projector "
            "follows your slides in real time.", 28, 880, INDIGO_SOFT)
    text(ctx, 96, HEIGHT - 44, "Self-hosted  ·  No app to install  ·  Live polls and questions", 18, MUTED)
    text(ctx, WIDTH - 96, HEIGHT - 44, f"1 / {TOTAL}", 18, MUTED, align="right")


def slide_join(ctx):
    light_slide(ctx, 2, "Join from any device", "Step one")
    y = 270
    y = bullet(ctx, 96, y, "Scan the code or open the link", "The camera app is enough: no account, no install.", 620)
    y = bullet(ctx, 96, y, "Or type the join code", "Six characters, easy to read out to the back row.", 620)
    bullet(ctx, 96, y, "You are in", "Your screen shows the presenter's page at once.", 620)

    # The join card: what the presenter's J key puts on the screen, with a stylised QR code. Not an
    # example code: a room following the demo deck would type it (this session's code is the
    # console's, shown full screen by J).
    cx, cy, cw, ch = 780, 200, 400, 440
    ctx.set_source_rgba(*NAVY, 0.08)
    rounded(ctx, cx + 6, cy + 10, cw, ch, 28)
    ctx.fill()
    fill_rounded(ctx, cx, cy, cw, ch, 28, WHITE)
    text(ctx, cx + cw / 2, cy + 62, "JOIN CODE", 18, MUTED, bold=True, align="center")
    text(ctx, cx + cw / 2, cy + 128, "Press J", 56, INDIGO, bold=True, align="center")
    qr(ctx, cx + cw / 2 - 105, cy + 160, 210)
    text(ctx, cx + cw / 2, cy + ch - 36, "for this session's code and QR", 18, MUTED, align="center")


def qr(ctx, x, y, size):
    """An illustrative QR-like pattern (finder squares and a fixed module pattern), not a real code."""
    n = 25
    m = size / n
    ctx.set_source_rgb(*INK)
    seed = 7
    for row in range(n):
        for col in range(n):
            in_finder = (row < 8 and col < 8) or (row < 8 and col >= n - 8) or (row >= n - 8 and col < 8)
            if in_finder:
                continue
            seed = (seed * 1103515245 + 12345) % (1 << 31)
            if (seed >> 16) % 5 < 2:
                ctx.rectangle(x + col * m, y + row * m, m, m)
    ctx.fill()
    for fx, fy in ((0, 0), (n - 7, 0), (0, n - 7)):
        ctx.set_source_rgb(*INK)
        ctx.rectangle(x + fx * m, y + fy * m, 7 * m, 7 * m)
        ctx.fill()
        ctx.set_source_rgb(*WHITE)
        ctx.rectangle(x + (fx + 1) * m, y + (fy + 1) * m, 5 * m, 5 * m)
        ctx.fill()
        ctx.set_source_rgb(*INDIGO)
        ctx.rectangle(x + (fx + 2) * m, y + (fy + 2) * m, 3 * m, 3 * m)
        ctx.fill()


def slide_follow(ctx):
    light_slide(ctx, 3, "Follow along live", "Step two")
    # A laptop, a tablet and a phone all showing the same slide.
    # Laptop
    fill_rounded(ctx, 96, 250, 460, 290, 16, NAVY)
    mini_slide(ctx, 112, 266, 428, 241)
    ctx.set_source_rgb(*NAVY_LIGHT)
    rounded(ctx, 56, 540, 540, 20, 8)
    ctx.fill()
    # Tablet and phone stand on the same line as the laptop's base.
    fill_rounded(ctx, 660, 240, 250, 320, 20, NAVY)
    mini_slide(ctx, 672, 336, 226, 127)
    fill_rounded(ctx, 960, 310, 130, 250, 18, NAVY)
    mini_slide(ctx, 968, 403, 114, 64)
    # Sync waves above the devices.
    ctx.set_source_rgb(*INDIGO)
    ctx.set_line_width(4)
    for r in (18, 34, 50):
        ctx.arc(1150, 290, r, -math.pi * 0.8, -math.pi * 0.2)
        ctx.stroke()
    ctx.arc(1150, 290, 7, 0, 2 * math.pi)
    ctx.fill()
    text(ctx, 96, 622, "The presenter turns the page and every screen follows. Late arrivals land on the current page.",
         21, MUTED)


def slide_zoom(ctx):
    light_slide(ctx, 4, "Zoom and point", "Show the detail")
    y = 270
    y = bullet(ctx, 96, y, "Zoom into any detail", "Pinch, scroll or drag a box to zoom in.", 530)
    y = bullet(ctx, 96, y, "Point with a laser", "The dot lands on the same word everywhere.", 530)
    bullet(ctx, 96, y, "Draw as you talk", "Ink appears live and stays with the page.", 530)

    # A page with a zoom frame and a laser dot.
    px, py, pw, ph = 672, 230, 512, 288
    ctx.set_source_rgba(*NAVY, 0.08)
    rounded(ctx, px + 6, py + 10, pw, ph, 18)
    ctx.fill()
    mini_slide(ctx, px, py, pw, ph)
    ctx.set_source_rgb(*INDIGO)
    ctx.set_line_width(4)
    ctx.set_dash([14, 8])
    rounded(ctx, px + pw * 0.58, py + ph * 0.30, pw * 0.36, ph * 0.58, 8)
    ctx.stroke()
    ctx.set_dash([])
    # Laser: a red dot with a glow.
    lx, ly = px + pw * 0.845, py + ph * 0.47
    glow = cairo.RadialGradient(lx, ly, 0, lx, ly, 34)
    glow.add_color_stop_rgba(0, *LASER, 0.55)
    glow.add_color_stop_rgba(1, *LASER, 0)
    ctx.set_source(glow)
    ctx.arc(lx, ly, 34, 0, 2 * math.pi)
    ctx.fill()
    ctx.set_source_rgb(*LASER)
    ctx.arc(lx, ly, 9, 0, 2 * math.pi)
    ctx.fill()
    # An ink stroke under the heading of the page.
    ctx.set_source_rgb(*LASER)
    ctx.set_line_width(5)
    ctx.set_line_cap(cairo.LINE_CAP_ROUND)
    ctx.move_to(px + pw * 0.07, py + ph * 0.3)
    ctx.curve_to(px + pw * 0.2, py + ph * 0.33, px + pw * 0.4, py + ph * 0.27, px + pw * 0.6, py + ph * 0.31)
    ctx.stroke()
    text(ctx, px + pw / 2, py + ph + 60, "Zoom frame, laser pointer and ink, on every device", 20, MUTED,
         align="center")


def slide_poll(ctx):
    light_slide(ctx, 5, "Ask the room", "Live polls")
    text(ctx, 96, 250, "How did you join today?", 30, INK)
    answers = [("Phone", 46), ("Laptop", 31), ("Tablet", 15), ("Link on the projector", 8)]
    total = sum(v for _, v in answers)
    top = max(v for _, v in answers)
    x0, bar_w, y = 96, 760, 300
    for label, votes in answers:
        share = votes / total
        fill_rounded(ctx, x0, y, bar_w, 56, 12, INDIGO_PALE)
        w = max(24, bar_w * votes / top)
        fill_rounded(ctx, x0, y, w, 56, 12, INDIGO if votes == top else (0.506, 0.549, 0.973))
        ctx.select_font_face(FONT, cairo.FONT_SLANT_NORMAL, cairo.FONT_WEIGHT_BOLD)
        ctx.set_font_size(22)
        if ctx.text_extents(label).x_advance + 44 <= w:
            text(ctx, x0 + 22, y + 37, label, 22, WHITE, bold=True)
        else:  # a short bar: the label goes after it, in ink, so it stays readable
            text(ctx, x0 + w + 18, y + 37, label, 22, INK, bold=True)
        text(ctx, x0 + bar_w + 24, y + 38, f"{share:.0%}", 28, INK, bold=True)
        y += 76
    # Side card with the totals.
    fill_rounded(ctx, 1000, 300, 184, 284, 24, NAVY)
    text(ctx, 1092, 390, str(total), 64, WHITE, bold=True, align="center")
    text(ctx, 1092, 428, "answers", 20, INDIGO_SOFT, align="center")
    text(ctx, 1092, 510, "results update", 17, INDIGO_SOFT, align="center")
    text(ctx, 1092, 534, "as people vote", 17, INDIGO_SOFT, align="center")


def slide_thanks(ctx):
    ctx.set_source_rgb(*NAVY)
    ctx.paint()
    glow = cairo.RadialGradient(180, 620, 0, 180, 620, 640)
    glow.add_color_stop_rgba(0, *INDIGO, 0.5)
    glow.add_color_stop_rgba(1, *INDIGO, 0)
    ctx.set_source(glow)
    ctx.paint()
    logo(ctx, WIDTH / 2 - 54, 150, 1.4, INDIGO_SOFT)
    text(ctx, WIDTH / 2, 340, "Thank you", 96, WHITE, bold=True, align="center")
    text(ctx, WIDTH / 2, 410, "Questions? Ask them in Podium, anonymously if you like.", 28, INDIGO_SOFT,
         align="center")
    fill_rounded(ctx, WIDTH / 2 - 190, 460, 380, 64, 32, INDIGO)
    text(ctx, WIDTH / 2, 502, "Upload your own deck", 24, WHITE, bold=True, align="center")
    footer(ctx, 6, MUTED)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "Public", "demo", "podium-demo.pdf")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    surface = cairo.PDFSurface(out, WIDTH, HEIGHT)
    surface.set_metadata(cairo.PDFMetadata.TITLE, "Welcome to Podium")
    surface.set_metadata(cairo.PDFMetadata.AUTHOR, "Podium")
    surface.set_metadata(cairo.PDFMetadata.SUBJECT, "A short tour of Podium, the self-hosted live presentation server")
    surface.set_metadata(cairo.PDFMetadata.CREATOR, "scripts/make-demo-deck.py")
    # A fixed date keeps the file identical from run to run.
    surface.set_metadata(cairo.PDFMetadata.CREATE_DATE, "2025-01-01T00:00:00Z")
    ctx = cairo.Context(surface)
    for draw in (slide_title, slide_join, slide_follow, slide_zoom, slide_poll, slide_thanks):
        ctx.save()
        draw(ctx)
        ctx.restore()
        ctx.show_page()
    surface.finish()
    print(f"wrote {out} ({os.path.getsize(out)} bytes)")


if __name__ == "__main__":
    main()
