"""Build hook: also put ``simkit-gymnasium.pth`` into editable wheels (``pip install -e .``).

Regular wheels get the file through ``[tool.setuptools.data-files]`` in pyproject.toml;
setuptools' editable wheels skip data files, so this adds the same one-line file to them.
The line imports :mod:`simkit.envs.gym_hook`, which registers simkit's Gymnasium environments
when Gymnasium's registry is imported. Everything else is configured in pyproject.toml.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.editable_wheel import editable_wheel

PTH = Path(__file__).resolve().parent / "simkit-gymnasium.pth"


class EditableWheelWithPth(editable_wheel):
    """``editable_wheel`` whose wheel also carries ``simkit-gymnasium.pth``."""

    def _select_strategy(self, name, tag, build_lib):
        strategy = super()._select_strategy(name, tag, build_lib)

        class WithPth:
            def __call__(self, wheel, files, mapping):
                strategy(wheel, files, mapping)
                wheel.writestr(PTH.name, PTH.read_bytes())

            def __enter__(self):
                strategy.__enter__()
                return self

            def __exit__(self, *exc):
                return strategy.__exit__(*exc)

        return WithPth()


setup(cmdclass={"editable_wheel": EditableWheelWithPth})
