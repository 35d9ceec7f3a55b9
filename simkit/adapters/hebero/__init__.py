"""Exporters of ``hebero-demos`` corpora for robot-learning code.

:mod:`simkit.adapters.hebero.demos` turns one corpus sample into LIBERO's per-step observation
arrays; :mod:`simkit.adapters.hebero.libero_hdf5` writes LIBERO's (and robomimic's) HDF5 layout,
one file per task; :mod:`simkit.adapters.hebero.lerobot` writes a LeRobotDataset v3.0 folder
(parquet + mp4, without importing lerobot). Like every adapter they read corpora only: what needs
the task model (the MJCF text, end-effector orientations) comes in a :class:`~.demos.TaskInfo`
that the caller builds (``simkit.commands.hebero`` builds it with :mod:`simkit.envs.hebero`).
"""
