"""What each partner signal means (docs/rules.md section 9 names them; docs/rules-decisions.md "Signals" says what
each means), in the screen's language: the log says it beside the signal, the help lists them all.

Said of the sender ("holds the Max"), so that one sentence serves a partner's signal and one's own. The card names
stay German, as everywhere on the table.
"""

from __future__ import annotations

SIGNAL_MEANING: dict[str, dict[str, str]] = {
    "en": {
        "max": "holds the Max", "belli": "holds the Belli", "weli": "holds the Weli", "spitz": "holds the Spitz",
        "bugl": "holds the Bugl", "rechter": "holds the Rechte, the Hauptschlag", "guate": "holds the Guate",
        "trumpf": "holds a trump", "schlag": "holds a Schlag card",
        "nix": "holds no Kritischer, Rechte or Guate", "nimm": "take this trick", "lass": "let this trick go",
    },
    "de": {
        "max": "hat den Max", "belli": "hat den Belli", "weli": "hat den Weli", "spitz": "hat den Spitz",
        "bugl": "hat den Bugl", "rechter": "hat den Rechten, den Hauptschlag", "guate": "hat den Guaten",
        "trumpf": "hat Trumpf", "schlag": "hat einen Schlag",
        "nix": "hat keinen Kritischen, Rechten oder Guaten", "nimm": "stich du", "lass": "lass den Stich aus",
    },
    "zh": {
        "max": "有 Max", "belli": "有 Belli", "weli": "有 Weli", "spitz": "有 Spitz", "bugl": "有 Bugl",
        "rechter": "有 Rechter（Hauptschlag）", "guate": "有 Guate", "trumpf": "有将牌", "schlag": "有 Schlag 牌",
        "nix": "没有 Kritische、Rechter 或 Guate", "nimm": "这一墩你来拿", "lass": "这一墩别拿",
    },
}

# The help's lines (the card signals share one meaning)
SIGNAL_HELP: dict[str, str] = {
    "en": "Signals (g), seen by your partner only:\n"
          "  max belli weli spitz bugl rechter guate: the sender holds that card\n"
          "  trumpf: a trump · schlag: a Schlag card · nix: no Kritischer, Rechte or Guate\n"
          "  nimm: take this trick · lass: let this trick go",
    "de": "Deuten (g), nur der Partner sieht es:\n"
          "  max belli weli spitz bugl rechter guate: wer deutet, hat diese Karte\n"
          "  trumpf: einen Trumpf · schlag: einen Schlag · nix: keinen Kritischen, Rechten oder Guaten\n"
          "  nimm: stich du · lass: lass den Stich aus",
    "zh": "暗号（g，只有搭档看得到）：\n"
          "  max belli weli spitz bugl rechter guate：打暗号的人有这张牌\n"
          "  trumpf：有将牌 · schlag：有 Schlag 牌 · nix：没有 Kritische、Rechter 或 Guate\n"
          "  nimm：这一墩你来拿 · lass：这一墩别拿",
}


def signal_meaning(lang: str, name: str) -> str:
    """What signal `name` means in `lang` ("" for a name no rule knows: a broken or hostile host's)."""
    return SIGNAL_MEANING.get(lang, SIGNAL_MEANING["en"]).get(name, "")
