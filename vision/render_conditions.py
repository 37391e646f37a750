"""How hard a rendered frame is: camera pose ranges, light, and image damage.

`clean` is a well-lit frame from nearly straight above, `museum` is what the
kiosk sees on a normal day (tilt up to 25 degrees, spotlights, soft shadows,
glare, JPEG), `hard` adds dim light, strong glare, blur and heavy compression.
The camera ranges (600-800 mm, up to 25 degrees, slight distortion) are the
ones docs/hardware.md allows.
"""
from __future__ import annotations

from dataclasses import dataclass

CONDITIONS = ("clean", "museum", "hard")


@dataclass(frozen=True)
class Conditions:
    max_tilt_deg: float
    distance_mm: tuple[float, float]
    distortion: float                  # largest |k1|
    fill: tuple[float, float]          # marker area / image, limiting axis
    exposure: tuple[float, float]      # overall brightness factor
    gradient: float                    # daylight falloff across the board
    spots: tuple[int, int]             # number of spotlights
    spot_strength: tuple[float, float]
    colour_cast: float                 # per-light colour temperature spread
    shadow: tuple[float, float]        # how much of the key light a piece blocks
    shadow_blur_mm: tuple[float, float]
    glare: tuple[int, int]             # number of glare patches
    glare_strength: tuple[float, float]
    noise: tuple[float, float]         # sensor noise sigma, grey levels
    blur: tuple[float, float]          # gaussian blur sigma, pixels
    jpeg: tuple[int, int]              # JPEG quality
    piece_offset_mm: float             # how far off centre a visitor leaves a piece
    specular: float                    # chance a piece top carries a highlight


def conditions(name: str) -> Conditions:
    if name == "clean":
        return Conditions(10, (600, 800), 0.02, (0.88, 0.96), (0.8, 0.92), 0.05, (0, 1), (0.2, 0.4),
                          0.02, (0.25, 0.4), (2, 4), (0, 0), (0, 0), (0.5, 1.5), (0.0, 0.3), (92, 98), 1.0, 0.0)
    if name == "museum":
        return Conditions(25, (600, 800), 0.08, (0.82, 0.96), (0.65, 0.98), 0.3, (1, 3), (0.3, 0.8),
                          0.08, (0.35, 0.65), (2, 7), (0, 1), (0.15, 0.45), (1.5, 4.0), (0.0, 0.9), (70, 92), 2.5, 0.3)
    if name == "hard":
        return Conditions(25, (600, 800), 0.12, (0.8, 0.96), (0.5, 0.85), 0.5, (2, 4), (0.4, 1.1),
                          0.14, (0.5, 0.8), (2, 9), (1, 2), (0.25, 0.6), (3.0, 6.0), (0.5, 1.2), (45, 70), 4.0, 0.6)
    raise ValueError(f"condition must be one of {', '.join(CONDITIONS)}, not {name!r}")
