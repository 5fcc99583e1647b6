#!/usr/bin/python3
"""Makes the Office corpus the deck tests use, with LibreOffice itself (python3-uno).

Usage: make-corpus.py OUTPUT_DIR [--slides N]

Writes, into OUTPUT_DIR:
  slides.pptx  3 slides, each with a title (placeholder) and speaker notes (slide 2 has none)
  slides.odp   the same deck in OpenDocument
  slides.ppt   the same deck in PowerPoint 97 (OLE2)
  letter.docx  a two-page text document
  letter.odt   the same in OpenDocument
  locked.odp   slides.odp saved with the password "podium" (ODF encryption)
  big.pptx     with --slides N: N slides with titles and notes (the benchmark's deck)

Run with Debian's /usr/bin/python3 (python3-uno is built for it). It starts its own headless
soffice with a private profile in a temporary directory and stops it at the end.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import uno
from com.sun.star.beans import PropertyValue

SLIDES = [
    ("Welcome to Podium", "Say hello & smile.\nMention the Wi-Fi code."),
    ("Why decks matter", ""),
    ("Thank you", "Ask for questions.\nÜberraschung: ünïcödé notes."),
]


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


def connect(work):
    pipe = "podium-corpus-%d" % os.getpid()
    profile = "file://" + os.path.join(work, "profile")
    soffice = subprocess.Popen(
        ["soffice", "--headless", "--invisible", "--nologo", "--norestore", "-env:UserInstallation=" + profile,
         "--accept=pipe,name=%s;urp;" % pipe],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    for _ in range(600):
        try:
            context = resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe)
            break
        except Exception:
            time.sleep(0.1)
    else:
        soffice.kill()
        raise SystemExit("soffice did not start")
    desktop = context.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
    return soffice, desktop


def impress(desktop, slides):
    doc = desktop.loadComponentFromURL("private:factory/simpress", "_blank", 0, (prop("Hidden", True),))
    pages = doc.DrawPages
    while pages.Count < len(slides):
        pages.insertNewByIndex(pages.Count - 1)
    for index, (title, notes) in enumerate(slides):
        page = pages.getByIndex(index)
        page.Layout = 1  # title, content
        for i in range(page.Count):
            shape = page.getByIndex(i)
            kind = shape.getShapeType()
            if kind == "com.sun.star.presentation.TitleTextShape":
                shape.setString(title)
            elif kind == "com.sun.star.presentation.OutlinerShape":
                shape.setString("Point one of slide %d\nPoint two" % (index + 1))
        if notes:
            notes_page = page.getNotesPage()
            for i in range(notes_page.Count):
                shape = notes_page.getByIndex(i)
                if shape.getShapeType() == "com.sun.star.presentation.NotesShape":
                    shape.setString(notes)
    return doc


def writer(desktop):
    doc = desktop.loadComponentFromURL("private:factory/swriter", "_blank", 0, (prop("Hidden", True),))
    text = doc.Text
    cursor = text.createTextCursor()
    text.insertString(cursor, "A letter to the audience", False)
    text.insertControlCharacter(cursor, 0, False)  # paragraph break
    text.insertString(cursor, "Dear audience, " + "thank you for coming. " * 40, False)
    cursor.BreakType = uno.Enum("com.sun.star.style.BreakType", "PAGE_BEFORE")
    text.insertControlCharacter(cursor, 0, False)
    text.insertString(cursor, "Page two of the letter.", False)
    return doc


def save(doc, path, filter_name, password=None):
    args = [prop("FilterName", filter_name), prop("Overwrite", True)]
    if password:
        args.append(prop("Password", password))
    doc.storeToURL("file://" + os.path.abspath(path), tuple(args))


def main():
    out = sys.argv[1]
    count = int(sys.argv[sys.argv.index("--slides") + 1]) if "--slides" in sys.argv else 0
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="podium-corpus-")
    soffice, desktop = connect(work)
    try:
        if count:
            big = [("Slide %d: a title" % n, "Notes for slide %d." % n) for n in range(1, count + 1)]
            doc = impress(desktop, big)
            save(doc, os.path.join(out, "big.pptx"), "Impress MS PowerPoint 2007 XML")
            doc.close(True)
        else:
            doc = impress(desktop, SLIDES)
            save(doc, os.path.join(out, "slides.pptx"), "Impress MS PowerPoint 2007 XML")
            save(doc, os.path.join(out, "slides.odp"), "impress8")
            save(doc, os.path.join(out, "slides.ppt"), "MS PowerPoint 97")
            save(doc, os.path.join(out, "locked.odp"), "impress8", password="podium")
            doc.close(True)
            doc = writer(desktop)
            save(doc, os.path.join(out, "letter.docx"), "MS Word 2007 XML")
            save(doc, os.path.join(out, "letter.odt"), "writer8")
            doc.close(True)
    finally:
        try:
            desktop.terminate()
        except Exception:
            pass
        try:
            soffice.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(soffice.pid, 9)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
