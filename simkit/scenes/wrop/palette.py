"""The surface palette: named colours, finishes, floor and sky tones (surface parameters only).

Colours are sRGB triples in [0, 1]; names are what prompts say ("the red ball").
The object colours are chosen to be far apart in hue so that identities stay
distinguishable after H.264 compression at low resolution.
"""

from __future__ import annotations

import numpy as np

from simkit.scenes.wrop.spec import Material

#: object colours, name -> sRGB
COLOURS: dict[str, tuple[float, float, float]] = {
    "red": (0.85, 0.12, 0.10),
    "orange": (0.95, 0.50, 0.08),
    "yellow": (0.95, 0.85, 0.15),
    "green": (0.15, 0.65, 0.20),
    "teal": (0.05, 0.60, 0.60),
    "blue": (0.12, 0.30, 0.85),
    "purple": (0.50, 0.20, 0.70),
    "pink": (0.95, 0.45, 0.70),
    "white": (0.92, 0.92, 0.92),
    "brown": (0.50, 0.30, 0.15),
}

#: finishes: name -> (roughness, metallic)
FINISHES: dict[str, tuple[float, float]] = {
    "matte": (0.85, 0.0),
    "satin": (0.45, 0.0),
    "glossy": (0.15, 0.0),
    "metal": (0.30, 0.9),
}

#: floor tones, name -> sRGB (muted, never one of COLOURS)
FLOORS: dict[str, tuple[float, float, float]] = {
    "light grey": (0.62, 0.62, 0.60),
    "sand": (0.70, 0.62, 0.48),
    "slate": (0.38, 0.40, 0.44),
    "sage": (0.52, 0.58, 0.50),
}

#: sky / background tones
SKIES: dict[str, tuple[float, float, float]] = {
    "pale blue": (0.72, 0.80, 0.90),
    "warm white": (0.92, 0.90, 0.85),
    "grey": (0.70, 0.70, 0.72),
    "dusk": (0.60, 0.55, 0.65),
}


def pick_colours(rng: np.random.Generator, slots: list[str]) -> dict[str, str]:
    """Distinct colour names for ``slots`` (at most ``len(COLOURS)``), drawn without replacement."""
    names = list(COLOURS)
    if len(slots) > len(names):
        raise ValueError(f"{len(slots)} colour slots but only {len(names)} palette colours")
    idx = rng.permutation(len(names))[: len(slots)]
    return {slot: names[i] for slot, i in zip(slots, idx)}


def material(
    colour: str, finish: str = "matte", pattern: str = "plain", scale: float = 4.0, contrast: float = 0.0
) -> Material:
    """The :class:`Material` of a palette colour name (object colours or floor tones), finish and procedural
    ``pattern`` (:data:`simkit.core.scene.PATTERNS`; ``scale`` features per metre, ``contrast`` in [0, 1))."""
    rgb = COLOURS.get(colour) or FLOORS.get(colour) or SKIES.get(colour)
    if rgb is None:
        raise KeyError(f"unknown palette colour {colour!r}")
    rough, metal = FINISHES[finish]
    return Material(colour, rgb, rough, metal, pattern, scale, contrast)
