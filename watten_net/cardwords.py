"""Card names and the choice of language, shared by the client's screen and `watten-verify --show` / `watten-stats`.

Below both (watten_net must not import client/): card and rule terms keep their German names in every language,
as players say them at the table, with the language's explanation of a suit beside it where it helps.
"""

from __future__ import annotations

import locale
import os

LANGS = ("de", "en", "zh")

SUIT_DE = {"E": "Eichel", "L": "Laub", "H": "Herz", "S": "Schellen"}
RANK_DE = {"6": "Sechs", "7": "Sieben", "8": "Acht", "9": "Neun", "10": "Zehn", "U": "Unter", "O": "Ober",
           "K": "König", "A": "Ass"}
NICK = {"HK": "Max", "S7": "Belli", "E7": "Spitz", "S6": "Weli", "SU": "Bugl"}
SUIT_EXPLAIN = {
    "en": {"E": "Acorns ♣", "L": "Leaves ♠", "H": "Hearts ♥", "S": "Bells ♦"},
    "zh": {"E": "橡子 ♣", "L": "树叶 ♠", "H": "红心 ♥", "S": "铃铛 ♦"},
}


def default_lang(env: dict[str, str] | None = None) -> str:
    """German for a German locale (de_*), Chinese for zh_*, else English."""
    environ = env if env is not None else dict(os.environ)
    for name in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = environ.get(name, "")
        if value:
            code = value.split(":")[0][:2].lower()
            return code if code in LANGS else "en"
    try:
        code = (locale.getlocale()[0] or "en")[:2].lower()
    except ValueError:
        code = "en"
    return code if code in LANGS else "en"


def card_words(card: str) -> str:
    """`HK` -> "Herz König (Max)": the German name with its nickname (the same in every language).

    >>> card_words("S10"), card_words("E7")
    ('Schellen Zehn', 'Eichel Sieben (Spitz)')
    """
    if len(card) < 2 or card[0] not in SUIT_DE or card[1:] not in RANK_DE:
        return card  # (not a card this deck has: shown as it is, by the caller through `visible`)
    name = f"{SUIT_DE[card[0]]} {RANK_DE[card[1:]]}"
    return f"{name} ({NICK[card]})" if card in NICK else name


def suit_words(suit: str, lang: str) -> str:
    """`H` -> "Herz" in German, "Herz (Hearts ♥)" in English.

    >>> suit_words("L", "de"), suit_words("L", "en")
    ('Laub', 'Laub (Leaves ♠)')
    """
    if suit not in SUIT_DE:
        return suit
    if lang not in SUIT_EXPLAIN:
        return SUIT_DE[suit]
    return f"{SUIT_DE[suit]} ({SUIT_EXPLAIN[lang][suit]})"


def rank_words(rank: str) -> str:
    """`K` -> "König"."""
    return RANK_DE.get(rank, rank)


def record_name(fingerprint: str, party: str) -> str:
    """A record's file name: the game fingerprint as the screen shows it ("eb68 83e7 655b 66e1") and whose it is.

    >>> record_name("eb68 83e7 655b 66e1", "seat2")
    'watten-eb68-83e7-655b-66e1-seat2.wrec'
    """
    return f"watten-{fingerprint.replace(' ', '-')}-{party}.wrec"
