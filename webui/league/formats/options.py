"""What a season format may be asked for beyond its name: its options, declared once.

A format's options are a frozen dataclass (a :class:`FormatOptions`), each field declared with
:func:`option` (its label, help, range, command-line flag); the season stores them as JSON
(``Season.format_options``). The season form, the API's fields and JSON schema and the command
line's flags are all read from these declarations (:func:`Option.json_schema`,
:mod:`webui.web.forms`, :mod:`webui.league.cli`), so a new option is one field here and nothing
else lists it. This module imports no Django.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

OptionValue = int | bool | None
"""What an option holds: a whole number, a yes or no, or nothing (its format's default)."""


class FormatError(ValueError):
    """A season its format cannot hold, or an option it cannot take (raised again by the
    seasons as ``LeagueError``)."""


@dataclass(frozen=True)
class Option:
    """How one option is asked for and checked: by its name in the API, the form, the stored
    JSON and (as ``dest``) the command line; by ``flag`` on the command line."""

    name: str
    kind: type[int] | type[bool]
    default: OptionValue
    label: str
    help: str
    flag: str
    lo: int = 0
    hi: int = 0
    refused: str = ""
    """What a refusal says when a format without this option is given it."""

    def check(self, value: object, label: str | None = None) -> OptionValue:
        """``value`` if this option can hold it (:class:`FormatError` naming ``label``, by
        default the option's name, when not)."""
        name = label or self.name
        if value is None and self.default is None:
            return None
        if self.kind is bool:
            if not isinstance(value, bool):
                raise FormatError(f"{name} must be a bool, not {value!r}")
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise FormatError(
                f"{name} must be a whole number between {self.lo} and {self.hi}, not {value!r}"
            )
        if not self.lo <= value <= self.hi:
            raise FormatError(f"{name} must be between {self.lo} and {self.hi}, not {value}")
        return value

    def is_default(self, value: object) -> bool:
        """Whether ``value`` asks for nothing (left as the option's default)."""
        return value is None or (type(value) is type(self.default) and value == self.default)

    def json_schema(self) -> dict[str, Any]:
        """The option's JSON schema (for the API's description)."""
        schema: dict[str, Any]
        if self.kind is bool:
            schema = {"type": "boolean"}
        else:
            schema = {"type": "integer", "minimum": self.lo, "maximum": self.hi}
        if self.default is None:
            schema = {"anyOf": [schema, {"type": "null"}]}
        return {**schema, "description": self.help}


def option(
    default: OptionValue,
    *,
    label: str,
    help: str,
    flag: str = "",
    lo: int = 0,
    hi: int = 0,
    refused: str = "",
) -> Any:
    """A field of a :class:`FormatOptions` with what its consumers show of it (``flag``:
    its command-line flag, by default ``--`` and its name with dashes)."""
    return dataclasses.field(
        default=default,
        metadata={
            "option": {
                "label": label,
                "help": help,
                "flag": flag,
                "lo": lo,
                "hi": hi,
                "refused": refused,
            }
        },
    )


OptionsT = TypeVar("OptionsT", bound="FormatOptions")


@dataclass(frozen=True)
class FormatOptions:
    """A format's options: subclasses are frozen dataclasses whose fields are :func:`option`
    declarations. The base has none (the formats that take nothing but their name)."""

    _declared: ClassVar[dict[type[FormatOptions], tuple[Option, ...]]] = {}

    @classmethod
    def declared(cls) -> tuple[Option, ...]:
        """Every option, in the order of the fields."""
        found = FormatOptions._declared.get(cls)
        if found is None:
            hints = typing.get_type_hints(cls)
            found = tuple(_option_of(f, hints[f.name]) for f in dataclasses.fields(cls) if f.init)
            FormatOptions._declared[cls] = found
        return found

    @classmethod
    def from_json(cls: type[OptionsT], stored: Mapping[str, Any] | None) -> OptionsT:
        """The options as a season stores them (fields it lacks keep their defaults)."""
        names = {o.name for o in cls.declared()}
        return cls(**{k: v for k, v in (stored or {}).items() if k in names})

    def to_json(self) -> dict[str, OptionValue]:
        """What the season stores: every option by name."""
        return {o.name: getattr(self, o.name) for o in self.declared()}


def _option_of(field: dataclasses.Field[Any], hint: Any) -> Option:
    """The :class:`Option` a dataclass field declares."""
    meta = field.metadata.get("option")
    if meta is None:
        raise TypeError(f"options field {field.name!r} is not declared with option()")
    kinds = [k for k in typing.get_args(hint) if k is not type(None)] if _is_union(hint) else [hint]
    kind = kinds[0] if len(kinds) == 1 and kinds[0] in (int, bool) else None
    if kind is None:
        raise TypeError(f"options field {field.name!r}: an int, a bool or an optional int")
    return Option(
        name=field.name,
        kind=kind,
        default=field.default,  # type: ignore[arg-type]
        label=meta["label"],
        help=meta["help"],
        flag=meta["flag"] or "--" + field.name.replace("_", "-"),
        lo=meta["lo"],
        hi=meta["hi"],
        refused=meta["refused"],
    )


def _is_union(hint: Any) -> bool:
    return typing.get_origin(hint) in (typing.Union, types.UnionType)
