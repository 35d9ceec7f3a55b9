"""simkit's version string, importable without the package's side effects (layers: core and below read it)."""

__version__ = "0.1.0"
