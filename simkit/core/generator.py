"""The Generator protocol.

A generator is one scene compiler plus one or more backends. The engine calls,
in each worker process::

    gen = GeneratorClass()
    gen.setup(config)              # once per worker: open physics clients, load scenes
    ep = gen.generate(index, rng)  # many times; returns an Episode, never writes files
    gen.teardown()                 # once

``generate`` must depend only on ``(config, index, rng)``; the engine derives
``rng`` from (master seed, generator name, index) (see :mod:`simkit.core.seeding`).
It raises :class:`~simkit.core.errors.SampleRejected` when the sample fails the
generator's own checks (the engine redraws it from a derived seed) and
:class:`~simkit.core.errors.TransientError` for failures worth retrying.

Subclasses set the class attributes below; heavy imports (pybullet, bpy,
mujoco, ...) belong inside ``setup``/``generate`` so that ``simkit list`` stays
instant.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np
from pydantic import BaseModel, ConfigDict

from simkit.core.episode import Episode
from simkit.core.fields import FieldSpec, required_names
from simkit.core.images import default_contact_sheet


class GeneratorConfig(BaseModel):
    """Base of every generator's config model: unknown keys are errors, values are validated on assignment."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, frozen=False, allow_inf_nan=False)


ConfigT = TypeVar("ConfigT", bound=GeneratorConfig)


class Generator(ABC, Generic[ConfigT]):
    """Base class of all generators (see the module docstring for the life cycle).

    Parametrised by the config model, ``class DotsGenerator(Generator[DotsConfig])``, so that
    ``self.config`` and ``setup(config)`` are typed with it.

    Class attributes:
        name: registry name, ``[a-z0-9-]`` (used in episode keys and seeds).
        version: generator version string, recorded in every episode.
        description: one line for ``simkit list``.
        extra: the pip extra that provides the backend (``pip install 'simkit[extra]'``).
        requires: the optional modules (top-level import names) that ``generate`` needs under the default
            config; :meth:`setup` checks that they and those of the required fields' codecs (FLAC:
            soundfile, MP4: av, EXR: OpenEXR) are installed, so that a missing one is one
            :class:`~simkit.core.errors.ExtraMissing` naming ``extra`` before anything is generated.
        Config: the pydantic config model (subclass of :class:`GeneratorConfig`).
        fields: the declared episode fields (:class:`~simkit.core.fields.FieldSpec`), the corpus contract.
        required_fields: fields every episode must have (``validate`` checks them); derived from
            ``fields`` (those with ``required=True``) when a subclass declares ``fields``.
        smoke_config: config overrides that make a tiny episode on a CPU in a few seconds (the smoke
            test generates 2 episodes of every registered generator with them).
        structural_params / surface_params: names of the parameters of each kind,
            as documentation for users; every episode records the values.
        config_params: recorded parameters that are config values verbatim (written into corpus.json;
            ``validate`` and the readers check each episode's against corpus.json's config).
    """

    name: ClassVar[str] = ""
    version: ClassVar[str] = "0"
    description: ClassVar[str] = ""
    extra: ClassVar[str] = ""
    requires: ClassVar[tuple[str, ...]] = ()
    Config: ClassVar[type[GeneratorConfig]] = GeneratorConfig
    fields: ClassVar[tuple[FieldSpec, ...]] = ()
    required_fields: ClassVar[tuple[str, ...]] = ()
    smoke_config: ClassVar[dict[str, Any]] = {}
    structural_params: ClassVar[tuple[str, ...]] = ()
    surface_params: ClassVar[tuple[str, ...]] = ()
    config_params: ClassVar[tuple[str, ...]] = ()
    #: how many times a sample rejected by the generator's checks is redrawn before the episode fails
    max_redraws: ClassVar[int] = 10

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "fields" in cls.__dict__ and "required_fields" not in cls.__dict__:
            cls.required_fields = required_names(cls.fields)
        undeclared = set(cls.required_fields) - {f.name for f in cls.fields} if cls.fields else set()
        if undeclared:
            raise TypeError(
                f"{cls.__name__}: required_fields {sorted(undeclared)} are not declared in fields"
            )

    def __init__(self) -> None:
        #: the validated config; ``None`` until the engine calls :meth:`setup`
        self.config: ConfigT = None  # type: ignore[assignment]

    # -- life cycle -------------------------------------------------------------------------
    def setup(self, config: ConfigT) -> None:
        """Prepare per-worker state. The default checks that :meth:`required_modules` are installed
        (without importing them) and stores the config as ``self.config``; subclasses call it first.

        Raises:
            ExtraMissing: a required module is not installed (naming the generator's ``extra`` when it
                installs the module).
        """
        from simkit.core.errors import require_installed
        from simkit.core.extras import extra_for

        for module in self.required_modules():
            require_installed(module, extra_for(module, self.extra) or self.extra or None)
        self.config = config

    @classmethod
    def required_modules(cls) -> tuple[str, ...]:
        """``requires`` followed by the modules of the required fields' codecs (each once, in that order);
        an optional field's codec module is needed only by the configs that produce the field."""
        from simkit.core.extras import CODEC_MODULES

        codecs = [CODEC_MODULES[f.codec] for f in cls.fields if f.required and f.codec in CODEC_MODULES]
        return tuple(dict.fromkeys([*cls.requires, *codecs]))

    @abstractmethod
    def generate(self, index: int, rng: np.random.Generator) -> Episode:
        """Produce episode ``index`` using only ``rng`` for randomness."""

    def teardown(self) -> None:
        """Release per-worker state (physics clients, Blender sessions)."""

    # -- metadata ---------------------------------------------------------------------------
    def backend_versions(self) -> dict[str, str]:
        """Versions of the backends this generator uses, recorded in every episode and corpus.json."""
        return {}

    # -- validate / inspect hooks -----------------------------------------------------------
    def check(self, sample: dict[str, Any]) -> list[str]:
        """The generator's own checks on one decoded stored sample (``simkit validate``).

        ``sample`` maps field name -> decoded value (``meta`` included). Return a list of
        problems (empty when the sample is good). The default checks nothing more.
        """
        return []

    def check_summary(self) -> list[str]:
        """Corpus-level lines after ``check`` has seen every sample (``simkit validate`` prints them as
        notes), e.g. an agreement rate the per-sample checks tallied. The default has none."""
        return []

    @classmethod
    def corpus_summary(cls, config: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
        """The generator's own corpus-level numbers from the manifest ``rows`` (``index``, ``status``,
        ``redraws``, ``error`` per episode) and the run's ``config`` (JSON form), e.g. a success rate
        per task from the redraw counts. Stored as corpus.json's ``summary`` and printed by ``simkit
        generate`` (:meth:`summary_lines`); the default has none (``{}``: no ``summary`` key)."""
        return {}

    @classmethod
    def summary_lines(cls, summary: dict[str, Any]) -> list[str]:
        """The lines ``simkit generate`` prints for a :meth:`corpus_summary` (default: none)."""
        return []

    def inspect(self, samples: list[dict[str, Any]], out_dir: Path) -> list[Path]:
        """Write pictures a person can look at (contact sheets, plots) for ``samples``; return their paths.

        The default tiles the first image field of each sample, if any.
        """
        return default_contact_sheet(samples, out_dir)


def module_versions(*modules: str) -> dict[str, str]:
    """``{module: its __version__}`` for :meth:`Generator.backend_versions`; ``"missing"`` for a module that
    cannot be imported or has no ``__version__``."""
    out = {}
    for mod in modules:
        try:
            out[mod] = __import__(mod).__version__
        except (ImportError, AttributeError):
            out[mod] = "missing"
    return out
