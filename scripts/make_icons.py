"""Draws the app's icons (static/icons/*.png) with the standard library only: a red heart on
the felt-green of the table, 192 and 512 px, and a "maskable" 512 px one whose heart stays in
the inner 80% (Android crops that shape to a circle or a squircle). Run it again after a
change: ``python scripts/make_icons.py``. The SVG beside them (icon.svg) is drawn by hand."""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "static" / "icons"
FELT = (21, 87, 54)
HEART = (214, 40, 57)


def _in_heart(x: float, y: float) -> bool:
    """The heart curve (x^2 + y^2 - 1)^3 - x^2 y^3 <= 0, for x, y in about [-1.5, 1.5]."""
    return (x * x + y * y - 1) ** 3 - x * x * y**3 <= 0


def _pixel(
    px: float, py: float, size: int, scale: float, rounded: bool
) -> tuple[int, int, int, int]:
    if rounded:  # a rounded square: the corners are transparent
        r = size * 0.18
        cx = min(max(px, r), size - r)
        cy = min(max(py, r), size - r)
        if math.hypot(px - cx, py - cy) > r:
            return (0, 0, 0, 0)
    # heart coordinates: centred, y upwards
    x = (px - size / 2) / (size * scale / 2.6)
    y = -(py - size * 0.52) / (size * scale / 2.6)
    if _in_heart(x, y):
        return (*HEART, 255)
    return (*FELT, 255)


def _png(size: int, scale: float, rounded: bool) -> bytes:
    rows = []
    samples = ((0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75))  # 4x antialiasing
    for j in range(size):
        row = bytearray([0])
        for i in range(size):
            acc = [0, 0, 0, 0]
            for dx, dy in samples:
                r, g, b, a = _pixel(i + dx, j + dy, size, scale, rounded)
                acc[0] += r * a
                acc[1] += g * a
                acc[2] += b * a
                acc[3] += a
            alpha = acc[3] // 4
            if acc[3]:
                row += bytes((acc[0] // acc[3], acc[1] // acc[3], acc[2] // acc[3], alpha))
            else:
                row += bytes((0, 0, 0, 0))
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
        + chunk(b"IEND", b"")
    )


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, size, scale, rounded in (
        ("icon-192.png", 192, 0.8, True),
        ("icon-512.png", 512, 0.8, True),
        ("maskable-512.png", 512, 0.55, False),  # full bleed, the heart in the safe zone
        ("apple-touch-icon.png", 180, 0.75, False),  # iOS rounds the corners itself
    ):
        (OUT / name).write_bytes(_png(size, scale, rounded))
        print("wrote", OUT / name)


if __name__ == "__main__":
    main()
