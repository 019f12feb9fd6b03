"""`Rules`: every regional system of docs/rules.md as one frozen value built from orthogonal flags.

A table starts from a preset (`Rules.preset("bavarian")`) and may change any flag with
`dataclasses.replace`; every combination is validated on construction, so an impossible table
(a Weli role without a Weli, more cards dealt than the deck holds, ...) fails at once with a
sentence that says what to change. `to_json()` is the canonical form hashed into deal commitments.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .cards import DECK_SIZES, WELI, Card, canonical_deck

FOLLOW_MODES = ("none", "hauptschlag-lead", "trump-lead")
WELI_ROLES = ("lowest-bell", "lowest-trump")
BESSERE_MODELS = ("announcers-agree", "redeal-penalty")
TIGHT_POLICIES = ("three-or-concede", "base-two")
RAISE_CAPS = ("target", "none")
RAISE_FROMS = ("first-packet", "trump")  # raise from the first packet on (the announcement too), or after the trump
PLAYER_COUNTS = (2, 3, 4, 6)
SIGNAL_NAMES = (
    "max", "belli", "weli", "spitz", "bugl", "rechter", "guate", "trumpf", "schlag", "nix", "nimm", "lass",
)


def first_packet_size(hand_size: int) -> int:
    """Cards in the first packet of a deal: 3 then 2 for five cards, 2 then 1 for three (decision)."""
    return 3 if hand_size == 5 else 2


@dataclass(frozen=True)
class Rules:
    """The flags of docs/rules.md. The defaults are the Bavarian preset for four players."""

    deck: int = 32
    kritische: tuple[str, ...] = ("HK", "S7", "E7")
    bugl: bool = False
    guate: bool = False
    guate_on_weli_schlag: str | None = None
    weli_role: str | None = None
    follow: str = "hauptschlag-lead"
    follow_released: bool = True
    schadet: bool = False
    blind: bool = False
    announce_after: int = 3
    schlagwechsel: bool = True
    bessere: str | None = "announcers-agree"
    schlecken: bool = True
    schlecken_bluff: bool = True
    maschine_points: int = 2
    raise_step: int = 1
    raise_cap: str = "target"
    raise_from: str = "first-packet"
    tight: str = "three-or-concede"
    target: int = 15
    bummerl_limit: int = 3
    schneider: bool = False
    signals: bool = True
    hand_size: int = 5
    tricks_to_win: int = 3
    players: int = 4

    _hash: int = field(default=0, init=False, repr=False, compare=False)

    PRESET_NAMES: ClassVar[tuple[str, ...]] = (
        "bavarian", "bavarian-11", "kritischer-turnier", "tyrolean", "austrian",
        "south-tyrolean", "blind", "wurf",
    )

    def __post_init__(self) -> None:
        if isinstance(self.kritische, list):
            object.__setattr__(self, "kritische", tuple(self.kritische))
        self._validate()
        object.__setattr__(self, "_hash", hash(self._values()))
        names = (("SU",) if self.bugl else ()) + self.kritische
        object.__setattr__(self, "_kritische_cards", tuple(Card.parse(k) for k in names))

    def __hash__(self) -> int:
        # Cached: rules are looked up in caches on hot paths, and a frozen dataclass rehashes every field.
        return self._hash

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self) if f.compare)

    # ------------------------------------------------------------------ presets
    @classmethod
    def preset(cls, name: str, players: int = 4) -> Rules:
        """A preset of docs/rules.md section 10, for `players` players (2, 3, 4 or 6)."""
        key = name.strip().lower().replace("_", "-")
        if key not in cls.PRESET_NAMES:
            raise ValueError(f"unknown preset {name!r}; the presets are: {', '.join(cls.PRESET_NAMES)}")
        bavarian: dict[str, Any] = {}
        flags: dict[str, Any]
        if key == "bavarian":
            flags = bavarian
        elif key == "bavarian-11":
            flags = {"target": 11}
        elif key == "kritischer-turnier":
            flags = {"raise_step": 2}
        elif key == "wurf":
            flags = {"hand_size": 3, "tricks_to_win": 2}
        elif key == "tyrolean":
            flags = {**_PLAIN, "deck": 33, "kritische": ("HK", "S7", "S6", "E7"), "signals": True, "target": 18}
        elif key == "austrian":
            # Signals: seeds 001 and 002 forbid them only in Blind.
            flags = {**_PLAIN, "deck": 36, "kritische": ("HK", "S6", "E7"), "bugl": False, "signals": True}
        elif key == "south-tyrolean":
            flags = {**_SOUTH_TYROLEAN}
        else:  # blind
            flags = {**_SOUTH_TYROLEAN, "blind": True, "signals": False}
        if key in ("south-tyrolean", "blind") and players == 6:
            # docs/rules.md section 8: six South Tyrolean players hold three cards each.
            flags.update(hand_size=3, tricks_to_win=2, announce_after=2)
        return cls(players=players, **flags)

    def preset_name(self) -> str | None:
        """The preset these rules equal (for their player count), if any."""
        for name in self.PRESET_NAMES:
            try:
                if Rules.preset(name, self.players) == self:
                    return name
            except ValueError:
                continue
        return None

    def differences(self, base: Rules) -> dict[str, Any]:
        """Flags whose value differs from `base` (for showing a table's rules as 'preset + changes')."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.compare and getattr(self, f.name) != getattr(base, f.name)
        }

    # ------------------------------------------------------------------ canonical form
    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.compare:
                value = getattr(self, f.name)
                out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    def to_json(self) -> str:
        """Canonical JSON (sorted keys, compact): hashed into every deal commitment."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=True)

    @classmethod
    def from_json(cls, text: str) -> Rules:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("rules JSON must be an object")
        names = {f.name for f in dataclasses.fields(cls) if f.init}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown rule flags: {', '.join(sorted(unknown))}")
        if "kritische" in data:
            data["kritische"] = tuple(data["kritische"])
        return cls(**data)

    def with_flag(self, name: str, text: str) -> Rules:
        """`--set name=text`: parse `text` by the flag's type and return the changed rules."""
        return dataclasses.replace(self, **{name: parse_flag(name, text)})

    # ------------------------------------------------------------------ derived facts
    @property
    def deck_size(self) -> int:
        return self.deck

    @property
    def kritische_cards(self) -> tuple[Card, ...]:
        """The Kritische in order, highest first, the Bugl included when `bugl` is on."""
        try:
            return self._kritische_cards  # type: ignore[no-any-return,attr-defined]
        except AttributeError:  # during validation, before __post_init__ has cached them
            names = (("SU",) if self.bugl else ()) + self.kritische
            return tuple(Card.parse(k) for k in names)

    @property
    def has_weli(self) -> bool:
        return self.deck == 33

    @property
    def first_packet(self) -> int:
        return first_packet_size(self.hand_size)

    # ------------------------------------------------------------------ validation
    def _validate(self) -> None:
        self._validate_deck()
        self._validate_kritische()
        self._validate_weli()
        self._validate_play()
        self._validate_stakes()
        self._validate_sizes()

    def _validate_deck(self) -> None:
        if self.deck not in DECK_SIZES:
            raise _bad(f"deck must be one of {DECK_SIZES}, not {self.deck!r}")
        if self.players not in PLAYER_COUNTS:
            raise _bad(f"players must be one of {PLAYER_COUNTS}, not {self.players!r}")

    def _validate_kritische(self) -> None:
        deck = set(canonical_deck(self.deck))
        seen: set[str] = set()
        for name in self.kritische:
            try:
                card = Card.parse(name)
            except ValueError:
                raise _bad(f"Kritischer {name!r} is not a card") from None
            if card not in deck:
                raise _bad(f"Kritischer {name} is not in a {self.deck}-card deck")
            if card.text in seen:
                raise _bad(f"Kritischer {name} is listed twice")
            seen.add(card.text)
            if card.text != name:
                raise _bad(f"write the Kritischer as {card.text}, not {name!r}")
        if self.bugl and "SU" in seen:
            raise _bad("with bugl the SU is the Bugl; do not list it in kritische as well")
        if self.bugl and not self.kritische:
            raise _bad("bugl needs Kritische (it ranks above the Max)")

    def _validate_weli(self) -> None:
        weli_is_kritisch = WELI in self.kritische  # (each is written as its card's text, checked before)
        if self.weli_role is not None:
            if self.weli_role not in WELI_ROLES:
                raise _bad(f"weli_role must be one of {WELI_ROLES} or None, not {self.weli_role!r}")
            if self.deck != 33:
                raise _bad(f"weli_role needs the Weli, which only the 33-card deck has (deck is {self.deck})")
            if weli_is_kritisch:
                raise _bad("the Weli is a Kritischer here, so it has no weli_role; set weli_role to None")
        elif self.deck == 33 and not weli_is_kritisch:
            raise _bad("a 33-card deck without the Weli among the Kritische needs a weli_role")
        if self.guate_on_weli_schlag is not None:
            if self.guate_on_weli_schlag != "trump7":
                raise _bad("guate_on_weli_schlag must be None or 'trump7'")
            if not self.guate or self.deck != 33:
                raise _bad("guate_on_weli_schlag needs guate and the 33-card deck")

    def _validate_play(self) -> None:
        """Following, schadet, signals, the Bessere, the Schlecken and the Maschine."""
        if self.follow not in FOLLOW_MODES:
            raise _bad(f"follow must be one of {FOLLOW_MODES}, not {self.follow!r}")
        if self.schadet and self.follow != "hauptschlag-lead":
            raise _bad("schadet belongs to follow='hauptschlag-lead'")
        if self.schadet and self.players not in (4, 6):
            raise _bad("schadet asks a partner, so it needs 4 or 6 players")
        if self.blind and self.signals:
            raise _bad("signals are off in blind (the partners do not know the announcement)")
        if self.bessere is not None and self.bessere not in BESSERE_MODELS:
            raise _bad(f"bessere must be one of {BESSERE_MODELS} or None, not {self.bessere!r}")
        if self.schlecken and not self.kritische_cards:
            raise _bad("schlecken takes Kritische at the cut, so it needs Kritische")
        if self.schlecken_bluff and not self.schlecken:
            raise _bad("schlecken_bluff needs schlecken")
        if not isinstance(self.maschine_points, int) or self.maschine_points < 0:
            raise _bad("maschine_points must be 0 (off) or more")
        if self.maschine_points and not self.kritische_cards:
            raise _bad("a Maschine is all the Kritische in one hand, so it needs Kritische")

    def _validate_stakes(self) -> None:
        """Raising, the tight policy, the target and the Bummerl."""
        if not isinstance(self.raise_step, int) or self.raise_step < 1:
            raise _bad("raise_step must be 1 or more")
        if self.raise_cap not in RAISE_CAPS:
            raise _bad(f"raise_cap must be one of {RAISE_CAPS}")
        if self.raise_from not in RAISE_FROMS:
            raise _bad(f"raise_from must be one of {RAISE_FROMS}, not {self.raise_from!r}")
        if self.tight not in TIGHT_POLICIES:
            raise _bad(f"tight must be one of {TIGHT_POLICIES}")
        if not isinstance(self.target, int) or not 3 <= self.target <= 99:
            raise _bad("target must be between 3 and 99 (the usual ones are 11, 13, 15, 18 and 21)")
        if not isinstance(self.bummerl_limit, int) or self.bummerl_limit < 1:
            raise _bad("bummerl_limit must be 1 or more")

    def _validate_sizes(self) -> None:
        """The hand, the tricks, the announcement and the deck's room for every hand."""
        if self.hand_size not in (3, 5):
            raise _bad("hand_size must be 5 (packets of 3 and 2) or 3 (Wurf: packets of 2 and 1)")
        if self.tricks_to_win != self.hand_size // 2 + 1:
            raise _bad(
                f"tricks_to_win={self.tricks_to_win} does not decide a {self.hand_size}-card hand; "
                f"use {self.hand_size // 2 + 1}"
            )
        if self.announce_after not in (self.first_packet, self.hand_size):
            raise _bad(
                f"announce_after must be {self.first_packet} (after the first packet) or "
                f"{self.hand_size} (after the whole deal)"
            )
        if self.players * self.hand_size > self.deck:
            raise _bad(
                f"{self.players} players with {self.hand_size} cards need {self.players * self.hand_size} "
                f"cards, the deck has {self.deck}"
            )


def _bad(message: str) -> ValueError:
    return ValueError(f"inconsistent rules: {message}")

_PLAIN: dict[str, Any] = {
    "schlecken": False, "schlecken_bluff": False, "maschine_points": 0, "schlagwechsel": False, "bessere": None,
}
_SOUTH_TYROLEAN: dict[str, Any] = {
    **_PLAIN, "deck": 33, "kritische": (), "guate": True, "follow": "trump-lead", "weli_role": "lowest-bell",
    "signals": True,
}

_FLAG_TYPES = {f.name: f.type for f in dataclasses.fields(Rules) if f.init}


def parse_flag(name: str, text: str) -> Any:
    """Turn `--set name=text` into a flag value of the right type, with a clear error."""
    if name not in _FLAG_TYPES:
        raise ValueError(f"unknown rule flag {name!r}; the flags are: {', '.join(sorted(_FLAG_TYPES))}")
    kind = str(_FLAG_TYPES[name])
    raw = text.strip()
    if kind == "bool":
        low = raw.lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"flag {name} takes yes/no (or true/false, on/off), not {text!r}")
    if kind == "int":
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"flag {name} takes a whole number, not {text!r}") from None
    if kind.startswith("tuple"):
        return tuple(p for p in raw.replace(",", " ").split() if p)
    if "None" in kind and raw.lower() in ("", "none", "off", "no"):
        return None
    return raw
