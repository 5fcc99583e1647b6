// QR codes from Debian's qrcode-generator (loaded as a classic script: global `qrcode`).

/** A data: URL of a PNG-like GIF QR code for `text`, or null when the library is missing. */
export function qrDataURL(text, cellSize = 8, margin = 2) {
  const factory = globalThis.qrcode;
  if (typeof factory !== 'function') return null;
  try {
    const qr = factory(0, 'M');
    qr.addData(text);
    qr.make();
    return qr.createDataURL(cellSize, margin);
  } catch (_) {
    return null;
  }
}

/** Sets an <img> to the QR code of `text`; hides its box when no code can be made. */
export function showQR(img, text, cellSize = 8) {
  const url = qrDataURL(text, cellSize);
  const box = img.closest('.qr-box') || img;
  if (!url) {
    box.hidden = true;
    return;
  }
  img.src = url;
  box.hidden = false;
}
