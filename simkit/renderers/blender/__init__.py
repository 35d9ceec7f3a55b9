"""Blender (``bpy``) backend: a persistent per-process session that renders backend-neutral scenes
(:mod:`simkit.core.scene`) and measures them.

Importing this package does not import ``bpy``; :func:`get_session` does (lazily),
so ``simkit list`` stays instant. See :mod:`.session` and :mod:`.visibility`.
"""

from simkit.renderers.blender.session import (
    ENGINES,
    BlenderBacked,
    BlenderSession,
    RenderSettings,
    blender_version,
    get_session,
)

__all__ = ["ENGINES", "BlenderBacked", "BlenderSession", "RenderSettings", "blender_version", "get_session"]
