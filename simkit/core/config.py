"""Generator configuration: a YAML file plus ``--set key=value`` overrides, validated by pydantic.

``--set`` values are parsed as YAML scalars/flow values (``--set n_objects=5``,
``--set tiers=[easy,hard]``, ``--set render.engine=cycles``); dotted keys reach
into nested models. Unknown keys and invalid values raise one
:class:`~simkit.core.errors.InputError` that lists the valid keys.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from simkit.core.errors import InputError


def _valid_keys(model: type[BaseModel], prefix: str = "") -> list[str]:
    keys = []
    for name, info in model.model_fields.items():
        ann = info.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            keys.extend(_valid_keys(ann, f"{prefix}{name}."))
        else:
            keys.append(f"{prefix}{name}")
    return keys


def describe_fields(model: type[BaseModel]) -> list[tuple[str, str, str]]:
    """(key, default, description) rows for the help of a config model."""
    rows = []
    for key in _valid_keys(model):
        sub: Any = model
        info = None
        for part in key.split("."):
            info = sub.model_fields[part]
            sub = info.annotation
        default = info.get_default(call_default_factory=True) if info is not None else None
        rows.append((key, repr(default), (info.description or "") if info else ""))
    return rows


def _set_dotted(data: dict, key: str, value: Any) -> None:
    parts = key.split(".")
    cur = data
    for part in parts[:-1]:
        nxt = cur.get(part)
        if not isinstance(nxt, dict):
            nxt = {}
            cur[part] = nxt
        cur = nxt
    cur[parts[-1]] = value


def parse_overrides(sets: list[str]) -> dict[str, Any]:
    """``["a=1", "b.c=x"]`` -> ``{"a": 1, "b": {"c": "x"}}`` (values parsed as YAML)."""
    data: dict[str, Any] = {}
    for item in sets:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise InputError(None, f"--set expects key=value, got {item!r}")
        try:
            value = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError:
            value = raw
        _set_dotted(data, key.strip(), value)
    return data


def _deep_update(base: dict, upd: dict) -> dict:
    for k, v in upd.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            _deep_update(base[k], v)
        else:
            base[k] = v
    return base


def build_config(
    model: type[BaseModel],
    path: str | Path | None = None,
    sets: list[str] | None = None,
    base: dict[str, Any] | None = None,
) -> BaseModel:
    """Validate ``base`` <- YAML file ``path`` <- ``sets`` against ``model``.

    Raises:
        InputError: unreadable/malformed YAML, unknown keys or invalid values (names the
            file or ``--set``, the key, the reason and the valid keys).
    """
    data: dict[str, Any] = dict(base or {})
    source = "--set"
    if path is not None:
        p = Path(path)
        try:
            loaded = yaml.safe_load(p.read_text(encoding="utf-8"))
        except OSError as exc:
            raise InputError(p, f"cannot read config: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise InputError(p, "not a text (UTF-8) YAML file") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            raise InputError(
                p,
                f"malformed YAML: {getattr(exc, 'problem', exc)}",
                line=mark.line + 1 if mark else None,
                column=mark.column + 1 if mark else None,
            ) from None
        if loaded is None:
            loaded = {}
        if not isinstance(loaded, dict):
            raise InputError(p, "a config file must be a mapping of key: value")
        _deep_update(data, loaded)
        source = str(p)
    if sets:
        _deep_update(data, parse_overrides(sets))
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = ".".join(str(x) for x in err["loc"]) or "(root)"
            if err["type"] == "extra_forbidden":
                problems.append(f"unknown key {loc!r}")
            else:
                problems.append(f"{loc}: {err['msg']} (got {err.get('input')!r})")
        valid = ", ".join(_valid_keys(model))
        where = source if path is not None else None
        raise InputError(where, "invalid config: " + "; ".join(problems) + f". Valid keys: {valid}") from None
