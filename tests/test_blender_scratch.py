"""Blender's temporary folders live in the process's scratch folder, which the next run removes when the
process that made it was killed (no `blender_*` or frame folders pile up in $TMPDIR)."""

from __future__ import annotations

import os
import subprocess
import sys

from simkit.core.scratch import SCRATCH_PREFIX, remove_dead

KILLED_AFTER_BPY = (
    "import os, signal\n"
    "import simkit.renderers.blender.session as s\n"
    "bpy = s._import_bpy()\n"
    "print(bpy.app.tempdir, flush=True)\n"
    "assert os.environ['TMPDIR'] == {tmp!r}\n"
    "os.kill(os.getpid(), signal.SIGKILL)\n"
)


def _python(code: str, tmp) -> subprocess.CompletedProcess:
    env = dict(os.environ, TMPDIR=str(tmp))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)


def test_blender_session_folder_is_inside_the_scratch_and_the_next_run_removes_it(tmp_path):
    p = _python(KILLED_AFTER_BPY.format(tmp=str(tmp_path)), tmp_path)
    assert p.returncode == -9, p.stderr
    session = p.stdout.strip().splitlines()[-1]
    scratch = [d for d in tmp_path.iterdir() if d.name.startswith(SCRATCH_PREFIX)]
    assert len(scratch) == 1 and session.startswith(str(scratch[0]) + os.sep)
    assert os.path.basename(session.rstrip(os.sep)).startswith("blender_") and os.path.isdir(session)
    assert [d.name for d in tmp_path.iterdir()] == [scratch[0].name]  # nothing else in $TMPDIR
    # the next run (any simkit process that needs a scratch folder) removes the killed one's
    p = _python("from simkit.core.scratch import process_scratch; print(process_scratch())", tmp_path)
    assert p.returncode == 0, p.stderr
    assert not scratch[0].exists()
    assert list(tmp_path.iterdir()) == []  # and its own is removed when it exits normally


def test_remove_dead_keeps_folders_of_live_processes(tmp_path):
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    mine = tmp_path / f"{SCRATCH_PREFIX}{os.getpid()}-abc"
    gone = tmp_path / f"{SCRATCH_PREFIX}{int(dead.stdout)}-xyz"
    other = tmp_path / "blender_user"
    for d in (mine, gone, other):
        d.mkdir()
    assert remove_dead(tmp_path, SCRATCH_PREFIX) == 1
    assert sorted(d.name for d in tmp_path.iterdir()) == sorted([mine.name, other.name])
