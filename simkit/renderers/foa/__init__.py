"""First-order Ambisonics (FOA) renderer shared by the ``foa-qa`` and ``foa-nav`` generators.

Public API (all AmbiX: ACN order W, Y, Z, X with SN3D normalisation; listener frame +x ahead,
+y left, +z up; azimuth counter-clockwise from ahead, +90 deg = left; SI units):

- encoding: :func:`sn3d_gains`, :func:`direction_to_unit`, :func:`unit_to_direction`,
  :func:`rotation_matrix`, :func:`rotate_foa`, :func:`rotate_listener`,
  :func:`acn_sn3d_to_fuma`, :func:`fuma_to_acn_sn3d`
- geometry: :class:`Trajectory`, :class:`PolarTrajectory`, :class:`ListenerPose`
- rendering: :class:`Source`, :func:`render_foa` (smooth gain interpolation, fractional delay
  and Doppler, image-source early reflections and a diffuse tail in a :class:`ShoeboxRoom`)
- mixing: :func:`scale_to_snr`, :func:`snr_db`, :func:`ambient_bed`, :func:`peak_normalise`
- features: :func:`foa_features` (5 x 128 x T), :func:`estimate_doa`
- windows (import :mod:`simkit.renderers.foa.windows`): one FOA window per pose of a stepping
  agent, ``render_windows`` and ``intensity_direction`` (sound-guided navigation)

See ``docs/foa.md`` for the formulas and their sources. Needs the ``audio`` extra (scipy).
"""

from simkit.renderers.foa.encoding import (
    ACN_CHANNELS,
    FUMA_CHANNELS,
    acn_sn3d_to_fuma,
    ambisonics_comment,
    direction_to_unit,
    fuma_to_acn_sn3d,
    listener_to_seed_camera,
    rotate_foa,
    rotate_listener,
    rotation_matrix,
    seed_camera_to_listener,
    sn3d_gains,
    sn3d_gains_from_unit,
    unit_to_direction,
)
from simkit.renderers.foa.features import (
    estimate_direction,
    estimate_directions,
    estimate_doa,
    foa_features,
    mel_filterbank,
    n_frames,
)
from simkit.renderers.foa.geometry import ListenerPose, PolarTrajectory, Trajectory
from simkit.renderers.foa.mix import (
    SNR_CHOICES_DB,
    ambient_bed,
    peak_normalise,
    scale_to_snr,
    snr_db,
    w_power,
)
from simkit.renderers.foa.render import SPEED_OF_SOUND, Source, render_foa
from simkit.renderers.foa.room import (
    OCTAVE_BANDS_HZ,
    ShoeboxRoom,
    diffuse_tail,
    diffuse_tail_bands,
    octave_band_weights,
)

__all__ = [
    "ACN_CHANNELS",
    "FUMA_CHANNELS",
    "OCTAVE_BANDS_HZ",
    "SNR_CHOICES_DB",
    "SPEED_OF_SOUND",
    "ListenerPose",
    "PolarTrajectory",
    "ShoeboxRoom",
    "Source",
    "Trajectory",
    "acn_sn3d_to_fuma",
    "ambient_bed",
    "ambisonics_comment",
    "diffuse_tail",
    "diffuse_tail_bands",
    "direction_to_unit",
    "estimate_direction",
    "estimate_directions",
    "estimate_doa",
    "foa_features",
    "fuma_to_acn_sn3d",
    "listener_to_seed_camera",
    "mel_filterbank",
    "n_frames",
    "octave_band_weights",
    "peak_normalise",
    "render_foa",
    "rotate_foa",
    "rotate_listener",
    "rotation_matrix",
    "scale_to_snr",
    "seed_camera_to_listener",
    "sn3d_gains",
    "sn3d_gains_from_unit",
    "snr_db",
    "unit_to_direction",
    "w_power",
]
