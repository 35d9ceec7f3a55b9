"""Hebero evaluation protocol: success rates of a policy over the LIBERO tasks.

Each task gets ``episodes`` episodes, all run at once in one
:class:`~simkit.envs.hebero.vector_env.HeberoVectorEnv` (env i runs task i mod K). An episode
succeeds when the goal holds at any step before ``max_steps`` (LIBERO's evaluation ends an
episode at success). Initial object poses are drawn uniformly in x, y inside the box spanned
by the task's demonstrations' start poses when demos are given (``boxes``), else in the BDDL
regions, with collision rejection either way (the env's reset). Metrics (Hebero paper, section 3.4):

* per-task SR = successes / episodes; **Mean SR** = mean over tasks;
* **Long SR** = mean SR over the libero_10 (``long``) tasks, when evaluated;
* **coverage** = number of tasks with SR >= 0.8;
* **SR-AUC** over a series of checkpoints = trapezoidal area under Mean SR against the
  checkpoint position normalised to [0, 1] (one checkpoint: its Mean SR).

Policies: ``zero`` (all-zero actions: the arm holds), ``random`` (uniform in [-1, 1]),
``demo`` (episode e of a task replays, open loop from its first state, a scripted demonstration
recorded with seed (seed, task, e)), or ``module:callable`` -- ``callable(obs (N, 300),
info) -> actions (N, 7)``; with checkpoints, ``callable(checkpoint_path)`` must return such a
function.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.errors import InputError
from simkit.core.progress import Progress
from simkit.envs.hebero.init_wait import LIBERO_WAIT_STEPS

Policy = Callable[[np.ndarray, dict], np.ndarray]
COVERAGE_SR = 0.8  #: a task is covered when its SR reaches this (Hebero paper)


@dataclass
class EvalResult:
    """Success rates of one policy (one checkpoint).

    Attributes:
        task_ids: K task ids. sr: (K,) per-task success rates. episodes: episodes per task.
        mean_sr, long_sr (None without libero_10 tasks), coverage (tasks with SR >= 0.8).
    """

    task_ids: list[str]
    sr: np.ndarray
    episodes: int
    mean_sr: float = 0.0
    long_sr: float | None = None
    coverage: int = 0
    label: str = ""

    def __post_init__(self) -> None:
        self.mean_sr = float(np.mean(self.sr))
        long = [s for t, s in zip(self.task_ids, self.sr) if t.startswith("long/")]
        self.long_sr = float(np.mean(long)) if long else None
        self.coverage = int(np.sum(self.sr >= COVERAGE_SR))


@dataclass
class EvalReport:
    """Results per checkpoint (one entry without checkpoints) and the SR-AUC over them."""

    results: list[EvalResult] = field(default_factory=list)

    @property
    def sr_auc(self) -> float:
        y = np.array([r.mean_sr for r in self.results])
        if len(y) == 1:
            return float(y[0])
        x = np.linspace(0.0, 1.0, len(y))
        return float(np.sum((y[1:] + y[:-1]) / 2 * np.diff(x)))


def load_callable(spec: str) -> Callable:
    """``module:callable`` -> the object.

    Raises:
        InputError: malformed spec, a module that fails to import, or a missing attribute (one line).
    """
    mod_name, sep, attr = spec.partition(":")
    if not sep or not mod_name or not attr:
        raise InputError(None, f"--policy {spec!r}: expected random, zero, demo or module:callable")
    try:
        mod = importlib.import_module(mod_name)
    except Exception as exc:  # any import-time failure of user code is bad input
        raise InputError(
            None, f"--policy {spec!r}: module {mod_name!r} fails to import ({type(exc).__name__}: {exc})"
        ) from None
    obj = mod
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise InputError(None, f"--policy {spec!r}: module {mod_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise InputError(None, f"--policy {spec!r}: {attr!r} is not callable")
    return obj


def _builtin(name: str, seed: int) -> Policy:
    rng = np.random.default_rng(seed)
    if name == "zero":
        return lambda obs, info: np.zeros((len(obs), 7))
    return lambda obs, info: rng.uniform(-1.0, 1.0, (len(obs), 7))


def run_policy(
    env, policy: Policy, max_steps: int, seed: int = 0, options: dict | None = None, label: str = "policy"
) -> np.ndarray:
    """Run every env of ``env`` for one episode from ``reset(seed=seed, options=options)``; (N,) True
    where the goal held. A progress bar (:mod:`simkit.core.progress`) counts the control steps."""
    env.cfg.terminate_on_success = True
    env.cfg.horizon = max_steps
    obs, info = env.reset(seed=seed, options=options)
    success = np.zeros(env.num_envs, bool)
    finished = np.zeros(env.num_envs, bool)
    with Progress(
        f"{label}: control steps of {env.num_envs} envs", max_steps, unit="steps", after_s=2.0
    ) as bar:
        for _ in range(max_steps):
            acts = np.asarray(policy(obs, info), np.float64)
            if acts.shape != (env.num_envs, 7) or not np.all(np.isfinite(acts)):
                raise InputError(
                    None,
                    f"the policy returned actions of shape {acts.shape} (need ({env.num_envs}, 7), finite)",
                )
            obs, _, term, trunc, info = env.step(acts)
            success |= info["success"] & ~finished
            finished |= term | trunc
            bar.advance()
            if finished.all():
                break
    return success


def run_demos(env, seed: int, episodes: int, max_steps: int) -> np.ndarray:
    """Replay one scripted demo per env (task i mod K, episode i // K), all envs in lockstep."""
    from simkit.envs.hebero.demos import demo_env, record_demo

    k = len(env.tasks)
    demos = []
    envs: dict[int, Any] = {}
    with Progress("recording the demos", env.num_envs, unit="demos", after_s=2.0) as bar:
        for i in range(env.num_envs):
            t, e = i % k, i // k
            if t not in envs:
                envs[t] = demo_env(env.task_names[t])
            denv = envs[t]
            demos.append(
                record_demo(denv, int(np.random.SeedSequence([seed, t, e]).generate_state(1)[0]), max_steps)
            )
            bar.advance()
        env.cfg.terminate_on_success = False
        env.cfg.horizon = max_steps + 1
        env.reset(seed=seed)
        for g, grp in enumerate(env.backend.groups):
            env.backend.set_state(
                g, np.arange(len(grp.env_ids)), np.stack([demos[i].states[0] for i in grp.env_ids])
            )
    success = np.zeros(env.num_envs, bool)
    steps = max(d.length for d in demos)
    with Progress(f"demo: control steps of {env.num_envs} envs", steps, unit="steps", after_s=2.0) as bar:
        for t in range(steps):
            acts = np.array([d.actions[t] if t < d.length else np.zeros(7) for d in demos])
            _, _, _, _, info = env.step(acts)
            success |= info["success"]
            bar.advance()
    return success


def evaluate(
    policy: str,
    suite: str = "goal",
    tasks: Sequence[str] | None = None,
    episodes: int = 10,
    max_steps: int = 600,
    seed: int = 0,
    checkpoints: Path | None = None,
    libero_root: str | Path | None = None,
    progress: Callable[[str], None] | None = None,
    boxes: dict[str, dict[str, tuple[float, ...]]] | None = None,
    init_states: str | None = None,
    init_wait: int = LIBERO_WAIT_STEPS,
) -> EvalReport:
    """Evaluate a policy (see the module doc) and return the report.

    ``init_states="libero"`` starts episode e of every task from LIBERO's fixed initial state
    ``e mod 50`` (``reset(options={"init_state": ...})``), the protocol of LIBERO's published
    success rates: after ``init_wait`` zero-action control steps the policy does not see and
    ``max_steps`` does not count (LIBERO's ``libero/lifelong/metric.py`` takes 5,
    :mod:`simkit.envs.hebero.init_wait`); None draws fresh layouts (no wait).

    ``boxes`` (task id -> object -> x-y box, e.g. from demos' start poses) makes resets draw those
    objects uniformly in their boxes (collision rejection); other tasks use the BDDL regions.

    Raises:
        InputError: unknown suite/task/policy, ``episodes`` or ``max_steps`` below 1, a policy module
            that fails to import, an empty checkpoint folder, bad actions.
    """
    from simkit.envs.hebero.tasks import SUITE_CHOICES, task_ids
    from simkit.envs.hebero.vector_env import HeberoVectorEnv

    if episodes < 1:
        raise InputError(None, f"--episodes must be >= 1, not {episodes}")
    if max_steps < 1:
        raise InputError(None, f"--max-steps must be >= 1, not {max_steps}")
    if not tasks and suite not in (None, *SUITE_CHOICES):
        raise InputError(None, f"--suite must be one of {', '.join(SUITE_CHOICES)}, not {suite!r}")
    if init_states not in (None, "libero"):
        raise InputError(None, f"--init-states must be 'libero', not {init_states!r}")
    if init_wait < 0:
        raise InputError(None, f"--init-wait must be >= 0, not {init_wait}")
    if policy == "demo" and (init_states or boxes):
        drop = "--init-states" if init_states else "--demos (reset boxes)"
        raise InputError(None, f"--policy demo replays recorded demos from their own starts; drop {drop}")
    if checkpoints is not None and policy in ("random", "zero", "demo"):
        raise InputError(
            checkpoints,
            f"--checkpoints needs --policy module:callable (callable(path) -> policy), not {policy!r}",
        )
    if checkpoints is not None and not Path(checkpoints).is_dir():
        raise InputError(checkpoints, "--checkpoints: no such folder")
    ids = task_ids(suite, tasks)
    policies: list[tuple[str, Policy | None]] = []
    if policy in ("random", "zero"):
        policies = [(policy, _builtin(policy, seed))]
    elif policy == "demo":
        policies = [("demo", None)]
    else:
        fn = load_callable(policy)
        if checkpoints is None:
            policies = [(policy, fn)]
        else:
            files = (
                sorted(p for p in Path(checkpoints).iterdir() if not p.name.startswith("."))
                if Path(checkpoints).is_dir()
                else []
            )
            if not files:
                raise InputError(checkpoints, "no checkpoint files here")
            policies = [(f.name, fn(f)) for f in files]
    env = HeberoVectorEnv(
        num_envs=len(ids) * episodes,
        tasks=ids,
        libero_root=libero_root,
        horizon=max_steps,
        init_wait=init_wait if init_states == "libero" else 0,
    )
    if boxes:
        env.set_reset_boxes({t: b for t, b in boxes.items() if t in ids})
    options = None
    if init_states == "libero":
        options = {"init_state": (np.arange(env.num_envs) // len(ids)) % 50}
    report = EvalReport()
    for label, pol in policies:
        if progress:
            progress(f"evaluating {label} on {len(ids)} task(s) x {episodes} episode(s)")
        ok = (
            run_demos(env, seed, episodes, max_steps)
            if pol is None
            else run_policy(env, pol, max_steps, seed, options, label=label)
        )
        sr = ok.reshape(episodes, len(ids)).mean(axis=0)
        report.results.append(EvalResult(ids, sr, episodes, label=label))
    env.close()
    return report


def bar_chart(result: EvalResult, path: Path) -> Path:
    """Per-task SR chart (PNG): one horizontal bar per task, labelled with the whole task id (suite
    prefix dropped), best task on top, the Mean SR as a dashed line, the legend above the axes (never on
    a bar); the figure grows with the number of tasks and the length of their names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k = len(result.task_ids)
    names = [t.split("/", 1)[-1] for t in result.task_ids]
    width = 4.5 + 0.075 * max((len(n) for n in names), default=10)  # about 0.075 in per character
    fig, ax = plt.subplots(figsize=(width, 1.6 + 0.26 * k), layout="constrained")
    y = np.arange(k)[::-1]  # the first task at the top
    ax.barh(y, result.sr, color="#4c72b0", height=0.7)
    ax.axvline(result.mean_sr, color="#c44e52", ls="--", label=f"Mean SR {result.mean_sr:.3f}")
    ax.set_yticks(y, names, fontsize=8)
    ax.set_xlim(0, 1.05)  # room for a Mean SR line at 1
    ax.set_ylim(-0.6, k - 0.4)
    ax.set_xlabel("success rate")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(f"policy {result.label}, {result.episodes} episode(s) per task", fontsize=10)
    fig.legend(loc="outside upper right", fontsize=8, frameon=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def summary_lines(report: EvalReport) -> list[str]:
    """The text summary: ``Mean SR``, ``Long SR``, ``coverage`` and (several checkpoints) ``SR-AUC``."""
    last: Any = report.results[-1]
    out = [f"Mean SR {last.mean_sr:.4f}"]
    if last.long_sr is not None:
        out.append(f"Long SR {last.long_sr:.4f}")
    out.append(f"coverage {last.coverage}/{len(last.task_ids)} (SR >= {COVERAGE_SR})")
    if len(report.results) > 1:
        out.append(f"SR-AUC {report.sr_auc:.4f} over {len(report.results)} checkpoints")
    return out
