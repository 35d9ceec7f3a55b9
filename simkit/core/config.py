"""Generator configuration: a YAML file plus ``--set key=value`` overrides, validated by pydantic.

``--set`` values are parsed as YAML scalars/flow values (``--set n_objects=5``,
``--set tiers=[easy,hard]``, ``--set render.engine=cycles``); dotted keys reach
into nested models. Unknown keys and invalid values raise one
:class:`~simkit.core.errors.InputError` that lists the valid keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import yaml
from pydantic import BaseModel, ValidationError

from simkit.core.errors import InputError, short_repr, short_text

#: largest YAML config file read, in bytes (a config is a few kB; this bounds the reader's memory)
MAX_YAML_BYTES = 4 * 2**20
#: most values a YAML document may hold once its aliases are expanded (an alias "bomb" of 9 aliases
#: nested 8 deep stands for 9**8 values in a few hundred bytes)
MAX_YAML_VALUES = 100_000


class YamlRefused(ValueError):
    """A YAML document over :data:`MAX_YAML_BYTES` or :data:`MAX_YAML_VALUES`, or holding a value Python
    cannot build (an integer of more than 4300 digits)."""


def _expanded_size(node: Any, memo: dict[int, int], limit: int) -> int:
    """Values under a composed YAML node with every alias expanded, counted up to ``limit + 1``."""
    key = id(node)
    if key in memo:
        return memo[key]
    memo[key] = limit + 1  # a node seen again while it is being counted is a cycle: too large
    if isinstance(node, yaml.MappingNode):
        children = [n for pair in node.value for n in pair]
    elif isinstance(node, yaml.SequenceNode):
        children = list(node.value)
    else:
        children = []
    total = 1
    for child in children:
        total = min(limit + 1, total + _expanded_size(child, memo, limit))
        if total > limit:
            break
    memo[key] = total
    return total


#: deepest nesting of flow collections (``[`` / ``{``) a YAML config may have (the YAML scanner slows down
#: with the square of the depth: 20,000 ``[`` take seconds)
MAX_YAML_DEPTH = 100


def _flow_depth(text: str) -> int:
    """Deepest nesting of ``[``/``{`` outside quoted scalars (an upper bound of what the parser sees)."""
    import re

    depth = deepest = 0
    quote = ""
    for m in re.finditer(r"[\[\]{}'\"]", text):
        ch = m.group()
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth = max(0, depth - 1)
    return deepest


def load_yaml(text: str) -> Any:
    """Parse one YAML document with the safe loader, bounded in size and in alias expansion.

    Raises:
        YamlRefused: ``text`` is over :data:`MAX_YAML_BYTES` characters, nests too deeply, expands to
            more than :data:`MAX_YAML_VALUES` values, or holds a value that cannot be built.
        yaml.YAMLError: malformed YAML.
    """
    if len(text) > MAX_YAML_BYTES:
        raise YamlRefused(f"{len(text)} characters, more than the {MAX_YAML_BYTES} a config may have")
    if _flow_depth(text) > MAX_YAML_DEPTH:
        raise YamlRefused(f"nests [ ] or {{ }} more than {MAX_YAML_DEPTH} levels deep")
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _expanded_size(node, {}, MAX_YAML_VALUES) > MAX_YAML_VALUES:
            raise YamlRefused(
                f"expands to more than {MAX_YAML_VALUES} values through its aliases (&anchor / *alias)"
            )
        return loader.construct_document(node)
    except (ValueError, OverflowError) as exc:
        if isinstance(exc, YamlRefused):
            raise
        raise YamlRefused(f"holds a value that cannot be read ({short_text(str(exc), 120)})") from None
    except RecursionError:
        raise YamlRefused("nested too deeply") from None
    finally:
        loader.dispose()


def _read_bounded(p: Path) -> str:
    """The text of config file ``p``, reading at most :data:`MAX_YAML_BYTES` + 1 bytes, so that a special
    file without an end (``/dev/zero``, a pipe that never closes its writer) is refused, not read until
    memory runs out.

    Raises:
        YamlRefused: more than :data:`MAX_YAML_BYTES` bytes (a regular file by its size, before reading).
        OSError: ``p`` cannot be opened or read (a folder, no permission, missing).
        UnicodeDecodeError: not UTF-8 text.
    """
    if p.is_file() and p.stat().st_size > MAX_YAML_BYTES:
        raise YamlRefused(f"{p.stat().st_size} bytes, more than the {MAX_YAML_BYTES} a config may have")
    with p.open("rb") as fh:
        data = fh.read(MAX_YAML_BYTES + 1)
    if len(data) > MAX_YAML_BYTES:
        raise YamlRefused(f"more than the {MAX_YAML_BYTES} bytes a config may have (reading stopped there)")
    return data.decode("utf-8")


def _valid_keys(model: type[BaseModel], prefix: str = "") -> list[str]:
    keys = []
    for name, info in model.model_fields.items():
        ann = info.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            keys.extend(_valid_keys(ann, f"{prefix}{name}."))
        else:
            keys.append(f"{prefix}{name}")
    return keys


@dataclass(frozen=True)
class ConfigKey:
    """One key of a config model, as ``simkit config NAME`` shows it.

    Attributes:
        key: dotted key (``physics.friction``), the name ``--set`` and YAML files use.
        type: the annotation as text (``float``, ``tuple[int, int]``, ``Literal['qa', 'foa-static']``).
        default: the default value as JSON data.
        range: the declared bounds (``>= 0, <= 1``) or choices (``qa | foa-static``), ``""`` if none.
        description: the field's description.
    """

    key: str
    type: str
    default: Any
    range: str
    description: str


_BOUNDS = (
    ("ge", ">="),
    ("gt", ">"),
    ("le", "<="),
    ("lt", "<"),
    ("min_length", "len >="),
    ("max_length", "len <="),
)


def _type_text(ann: Any) -> str:
    if get_origin(ann) is Literal:
        return "Literal[" + ", ".join(repr(a) for a in get_args(ann)) + "]"
    if isinstance(ann, type) and not get_args(ann):
        return ann.__name__
    return str(ann).replace("typing.", "")


def _range_text(info: Any) -> str:
    if get_origin(info.annotation) is Literal:
        return " | ".join(str(a) for a in get_args(info.annotation))
    parts = []
    for meta in info.metadata:
        for attr, sign in _BOUNDS:
            value = getattr(meta, attr, None)
            if value is not None:
                parts.append(f"{sign} {value}")
    return ", ".join(parts)


def config_keys(model: type[BaseModel]) -> list[ConfigKey]:
    """Every leaf key of ``model`` (nested models flattened to dotted keys) with type, default, range.

    Raises:
        pydantic.ValidationError: the model has no valid default (every generator config must have one).
    """
    defaults = model().model_dump(mode="json")
    rows = []
    for key in _valid_keys(model):
        sub: Any = model
        value: Any = defaults
        for part in key.split("."):
            info = sub.model_fields[part]
            sub = info.annotation
            value = value[part]
        rows.append(
            ConfigKey(key, _type_text(info.annotation), value, _range_text(info), info.description or "")
        )
    return rows


def _yaml_value(value: Any) -> str:
    return (
        yaml.safe_dump(value, default_flow_style=True, sort_keys=True, width=10_000)
        .strip()
        .removesuffix("...")
        .strip()
    )


def _yaml_lines(model: type[BaseModel], defaults: dict[str, Any], indent: str) -> list[str]:
    lines = []
    for name, info in model.model_fields.items():
        ann = info.annotation
        note = "; ".join(x for x in (info.description or "", _type_text(ann), _range_text(info)) if x)
        lines.append(f"{indent}# {note}")
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            lines.append(f"{indent}{name}:")
            lines += _yaml_lines(ann, defaults[name], indent + "  ")
        else:
            lines.append(f"{indent}{name}: {_yaml_value(defaults[name])}")
    return lines


def starter_yaml(model: type[BaseModel], title: str) -> str:
    """A YAML config holding every key at its default, each under a comment with its description,
    type and range; ``build_config(model, path)`` accepts it unchanged (``simkit config NAME --yaml``)."""
    head = [f"# {title}: every key at its default; edit, then pass with --config FILE"]
    return "\n".join(head + _yaml_lines(model, model().model_dump(mode="json"), "")) + "\n"


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
            value = load_yaml(raw) if raw.strip() else ""
        except YamlRefused as exc:
            raise InputError(None, f"--set {key.strip()}: value of {len(raw)} characters {exc}") from None
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
            loaded = load_yaml(_read_bounded(p))
        except YamlRefused as exc:
            raise InputError(p, f"config refused: {exc}") from None
        except OSError as exc:
            raise InputError(p, f"cannot read config: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise InputError(p, "not a text (UTF-8) YAML file") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            raise InputError(
                p,
                "malformed YAML: " + short_text(" ".join(str(getattr(exc, "problem", None) or exc).split())),
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
        errors = exc.errors()
        for err in errors[:8]:
            loc = short_text(".".join(str(x) for x in err["loc"]) or "(root)")
            if err["type"] == "extra_forbidden":
                problems.append(f"unknown key {loc!r}")
            else:
                problems.append(f"{loc}: {short_text(err['msg'])} (got {short_repr(err.get('input'))})")
        if len(errors) > 8:
            problems.append(f"and {len(errors) - 8} more")
        valid = ", ".join(_valid_keys(model))
        where = source if path is not None else None
        raise InputError(where, "invalid config: " + "; ".join(problems) + f". Valid keys: {valid}") from None
