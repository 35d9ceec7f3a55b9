"""Gymnasium environments. Importing this module registers ``simkit/Packing-v0``.

``simkit/Packing-v0`` -- closed-loop box packing (PackLab paper) with pybullet
physics at every step::

    import gymnasium as gym
    import simkit.envs.packing.env  # registers the id
    env = gym.make("simkit/Packing-v0", tier="hard")

Each ``reset`` draws a fresh layout-first case from the tier with the env's ``np_random``
(:func:`simkit.scenes.packing.layout.compile_case`), or one of the given ``cases``
(``cases="bench"``: the shipped bench cases of that tier).

Observation (``gymnasium.spaces.Dict``), all int32, sizes fixed per tier (the tier's largest
container, :data:`simkit.scenes.packing.layout.TIERS`):

- ``heightmap`` (L_max, W_max): PackLab's H_t in grid cells (2.5 cm); cells beyond the current
  container's L x W are set to the container height (they are wall, not free floor); values are
  clipped to [0, H_max].
- ``buffer`` (B, 3): the visible items' (l, w, h) in cells, arrival order; empty slots are 0.
- ``container`` (3,): the current container's (L, W, H) in cells.

Action (``gymnasium.spaces.MultiDiscrete([B, 2, L_max, W_max])``): (buffer slot, orientation
0/1 = 0 or 90 degrees about z, x cell, y cell) -- the footprint's min corner; z comes from the
heightmap (PackLab eq. 2).

Invalid-action rule: an action that cannot be executed -- an empty buffer slot, a footprint that
leaves the container, or a top above the container height -- discards the selected item (the
oldest buffered item when the slot is empty): it stays unpacked, the reward is 0 and
``info["invalid_action"]`` is True. Every step therefore consumes one item, and an episode lasts
exactly as many steps as the case has items (``terminated`` then becomes True; there is no
truncation).

Reward: the placed item's volume / the case's total item volume when physics accepts the
placement (settled, upright, centre inside the container), else 0; the return is then the
success ratio of the physically valid placements. ``info`` per step: ``invalid_action``,
``item_id``, ``physics_valid``, ``physics_reason``; the last step's ``info`` adds the episode
metrics (``success_ratio``, ``compactness``, ``overall``, ...; PackLab eqs. 11-13) and the number
of geometric-checker ``violations``.

Support rule (``support``): ``None`` (default) executes any placement and lets physics judge it;
``"com"``, ``"area:F"`` or ``"full"`` (:func:`simkit.scenes.packing.support.parse_support`, the
rules of ``simkit eval packing --support``) make a placement that does not meet the rule an
invalid action (item discarded, reward 0), and the final check uses the rule.

pybullet is imported on the first ``reset`` (not at import): ``physics=False`` runs the same
env on geometry only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
from gymnasium import spaces

if TYPE_CHECKING:
    from simkit.sims.packing.episode import PackingEpisode
    from simkit.sims.packing.physics import PackingPhysics

ENV_ID = "simkit/Packing-v0"


def _tier_limits(tier: str) -> tuple[int, int, int, int]:
    """(L_max, W_max, H_max, buffer size) of a tier (``mixed``: the maxima over all tiers), 2.5 cm cells."""
    from simkit.scenes.packing.layout import TIERS

    names = list(TIERS) if tier == "mixed" else [tier]
    if any(n not in TIERS for n in names):
        raise ValueError(f"unknown tier {tier!r}; choose one of {', '.join(TIERS)} or 'mixed'")
    specs = [TIERS[n] for n in names]
    return (
        max(s.length[1] for s in specs),
        max(s.width[1] for s in specs),
        max(s.layers[1] * s.layer_height[1] for s in specs),
        max(s.buffer_size for s in specs),
    )


class PackingEnv(gymnasium.Env):
    """Closed-loop packing env (module docstring).

    Args:
        tier: ``easy`` | ``medium`` | ``hard`` | ``mixed`` (a tier drawn uniformly at each reset).
        cases: None (compile a fresh case at each reset), ``"bench"`` (the shipped bench cases of the
            tier) or a list of :class:`~simkit.scenes.packing.case.EvalCase` (single-variant items on
            the 2.5 cm grid, fitting the tier's limits).
        physics: run pybullet at every step (default) or geometry only.
        physics_kwargs: :class:`~simkit.sims.packing.physics.PackingPhysics` options
            (default :data:`simkit.sims.packing.physics.EVAL_PHYSICS`).
        support: None, ``"com"``, ``"area:F"`` or ``"full"`` (module docstring).

    Raises:
        SimkitError: a bad ``support`` value.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        tier: str = "easy",
        cases: Any = None,
        physics: bool = True,
        physics_kwargs: dict | None = None,
        support: str | None = None,
    ) -> None:
        super().__init__()
        from simkit.scenes.packing.support import parse_support

        self.support = None if support is None else parse_support(support)
        self.tier = tier
        self.L, self.W, self.H, self.B = _tier_limits(tier)
        if isinstance(cases, str):
            if cases != "bench":
                raise ValueError(f"cases must be None, 'bench' or a list of EvalCase, got {cases!r}")
            from simkit.scenes.packing.bench import load_bench

            cases = load_bench(tiers=None if tier == "mixed" else [tier])
        self.cases = list(cases) if cases is not None else None
        if self.cases is not None:
            for c in self.cases:
                L, W, H = c.container.size
                if L > self.L or W > self.W or H > self.H or c.buffer_size > self.B:
                    raise ValueError(
                        f"case {c.name} exceeds the {tier} tier limits "
                        f"({self.L}x{self.W}x{self.H}, buffer {self.B})"
                    )
        self.use_physics = physics
        self.physics_kwargs = physics_kwargs
        self.observation_space = spaces.Dict(
            {
                "heightmap": spaces.Box(0, self.H, shape=(self.L, self.W), dtype=np.int32),
                "buffer": spaces.Box(0, max(self.L, self.W, self.H), shape=(self.B, 3), dtype=np.int32),
                "container": spaces.Box(0, max(self.L, self.W, self.H), shape=(3,), dtype=np.int32),
            }
        )
        self.action_space = spaces.MultiDiscrete([self.B, 2, self.L, self.W])
        self._physics: PackingPhysics | None = None
        self._ep: PackingEpisode | None = None

    # -- helpers ------------------------------------------------------------------------------
    def _new_case(self):
        from simkit.scenes.packing.case import from_packing_case

        if self.cases is not None:
            return self.cases[int(self.np_random.integers(len(self.cases)))]
        from simkit.scenes.packing.layout import TIERS, compile_case

        tier = self.tier
        if tier == "mixed":
            names = list(TIERS)
            tier = names[int(self.np_random.integers(len(names)))]
        return from_packing_case(compile_case(tier, self.np_random), name=f"{tier}-generated")

    def _obs(self) -> dict[str, np.ndarray]:
        ep = self._ep
        assert ep is not None, "reset() first"
        L, W, H = ep.case.container.size
        hm = np.full((self.L, self.W), H, dtype=np.int32)
        hm[:L, :W] = ep.heightmap
        buf = np.zeros((self.B, 3), dtype=np.int32)
        for i, it in enumerate(ep.buffer[: self.B]):
            buf[i] = it.box.size
        top = max(self.L, self.W, self.H)
        return {
            "heightmap": np.clip(hm, 0, self.H),
            "buffer": np.clip(buf, 0, top),
            "container": np.array([L, W, H], dtype=np.int32),
        }

    # -- gymnasium API --------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        from simkit.sims.packing.episode import PackingEpisode

        case = self._new_case()
        if self.use_physics and self._physics is None:
            from simkit.sims.packing.physics import EVAL_PHYSICS, PackingPhysics

            self._physics = PackingPhysics(
                case.container, **(EVAL_PHYSICS if self.physics_kwargs is None else self.physics_kwargs)
            )
        self._ep = PackingEpisode(case, self._physics, self.support)
        return self._obs(), {"case": case.name, "items": len(case.items)}

    def step(self, action):
        from simkit.scenes.packing.case import Action

        if self._ep is None or self._ep.done:
            raise RuntimeError("call reset() before step() (the episode is over)")
        a = np.asarray(action).astype(np.int64).reshape(-1)
        act = Action(int(a[0]), int(a[1]), int(a[2]), int(a[3]))
        ep = self._ep
        rec = ep.step(act)
        reward = 0.0
        if not rec.discarded and (rec.physics is None or rec.physics["valid"]):
            reward = ep.items[rec.item_id].volume / ep.case.total_volume
        info: dict[str, Any] = {
            "invalid_action": bool(rec.discarded),
            "item_id": int(rec.item_id),
            "physics_valid": bool(rec.physics is None or rec.physics["valid"]),
            "physics_reason": "" if rec.physics is None else rec.physics["reason"],
        }
        terminated = ep.done
        if terminated:
            m, viol, _ = ep.finish(check=True)
            info.update(m.to_dict())
            info["violations"] = len(viol)
        return self._obs(), float(reward), terminated, False, info

    def close(self) -> None:
        if self._physics is not None:
            self._physics.close()
            self._physics = None
        super().close()


def register() -> None:
    """Register ``simkit/Packing-v0`` with Gymnasium (idempotent; done on import)."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="simkit.envs.packing.env:PackingEnv")


register()
