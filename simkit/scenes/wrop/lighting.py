"""Lighting set-ups of the WROP scenes (a surface parameter: they change the look, never the physics).

Each set-up is a backend-neutral description, a :class:`~simkit.core.scene.Sun`, a world (sky) strength
and a list of :class:`~simkit.core.scene.Lamp`, built from the drawn sun azimuth, elevation and strength:

=============== ==================================================================================
``sun_sky``     the drawn sun (3 deg disc, crisp shadows) under a sky of strength 1
``overcast``    soft world light: a weaker sun with a 40 deg disc (blurred shadows), sky strength 1.3
``three_point`` studio: key, fill and rim square area lights (power ratio 1 : 0.45 : 0.7) around the
                scene centre, no sun, sky strength 0.5 (the classic three-point set-up)
``warm_spot``   a warm spot light from above the camera on the scene centre, a weak warm sun, sky
                strength 0.6 (an indoor lamp)
``evening``     a low (6-14 deg), orange sun casting long shadows, sky strength 0.8
=============== ==================================================================================

Lamp powers are set so that the mean brightness of a standard scene stays within a factor of about two of
``sun_sky`` (tested on Cycles renders), so no set-up makes identities illegible. The warm light colours are
half-way (in linear RGB) between white and the sRGB colour of a 3000 K / 2500 K black body (CIE 1931
2-deg observer: sRGB (255, 180, 107) and (255, 161, 72)), so blue and green objects keep their hue.
Visibility (ray casts) does not depend on lighting.
"""

from __future__ import annotations

import numpy as np

from simkit.core.scene import Lamp, Sun

LIGHTINGS: tuple[str, ...] = ("sun_sky", "overcast", "three_point", "warm_spot", "evening")

#: warm light colours (linear RGB): half white, half a 3000 K / 2500 K black body (linearised sRGB
#: (1, 0.456, 0.147) and (1, 0.356, 0.065))
WARM_3000K = (1.0, 0.728, 0.574)
WARM_2500K = (1.0, 0.678, 0.533)

#: the point the studio lamps aim at (the scenes' centre, m)
CENTRE = (0.0, 0.0, 0.4)


def _around(azimuth_deg: float, elevation_deg: float, distance: float) -> tuple[float, float, float]:
    """A point ``distance`` m from :data:`CENTRE` at ``azimuth_deg`` (0: the camera's -y side, positive
    toward +x) and ``elevation_deg`` above the horizon."""
    a, e = np.radians(azimuth_deg), np.radians(elevation_deg)
    c = np.asarray(CENTRE) + distance * np.array([np.sin(a) * np.cos(e), -np.cos(a) * np.cos(e), np.sin(e)])
    return (float(c[0]), float(c[1]), float(c[2]))


def lighting(
    name: str, sun_azimuth_deg: float, sun_elevation_deg: float, sun_strength: float
) -> tuple[Sun, float, list[Lamp]]:
    """(sun, world strength, lamps) of set-up ``name`` (one of :data:`LIGHTINGS`) for the drawn sun.

    Raises:
        ValueError: unknown set-up name.
    """
    az, el = np.radians(sun_azimuth_deg), np.radians(sun_elevation_deg)
    if name == "sun_sky":
        return Sun(az, el, sun_strength), 1.0, []
    if name == "overcast":
        return Sun(az, el, 0.6 * sun_strength, angle=float(np.radians(40.0))), 1.3, []
    side = 1.0 if sun_azimuth_deg >= 0 else -1.0  # the key light follows the drawn sun's side
    if name == "three_point":
        key = Lamp("area", _around(side * 40.0, 40.0, 6.0), CENTRE, 500.0 * sun_strength / 3, size=2.5)
        fill = Lamp("area", _around(-side * 50.0, 20.0, 6.0), CENTRE, 230.0 * sun_strength / 3, size=3.0)
        rim = Lamp("area", _around(side * 160.0, 45.0, 6.0), CENTRE, 360.0 * sun_strength / 3, size=2.0)
        return Sun(az, el, 0.0), 0.5, [key, fill, rim]
    if name == "warm_spot":
        spot = Lamp(
            "spot",
            _around(side * 15.0, 55.0, 6.5),
            CENTRE,
            3000.0 * sun_strength / 3,
            WARM_3000K,
            size=0.3,
            spot_deg=75.0,
        )
        return Sun(az, el, 0.6, WARM_3000K), 0.6, [spot]
    if name == "evening":
        low = 6.0 + (sun_elevation_deg - 35.0) / 35.0 * 8.0  # the drawn 35..70 deg mapped to 6..14 deg
        return Sun(az, np.radians(low), 1.4 * sun_strength, WARM_2500K), 0.8, []
    raise ValueError(f"unknown lighting set-up {name!r}; known: {list(LIGHTINGS)}")
