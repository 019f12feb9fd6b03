"""What the host says it found when it starts again (host/resume.py found_lines) in the host person's language: it
added an English " (bot)" to a bot's name in every language, and its lines were English. host/main.py passes the
client's words (the `resume_*` keys and `bot_mark`), as it does for the lobby."""

from __future__ import annotations

from pathlib import Path

from client.i18n import LANGS, Words
from host.lobby import Occupant
from host.resume import RESUME_WORDS, found_lines

from host_bots import bot_table


def _found(lang: str, tmp_path: Path) -> str:
    table = bot_table("bavarian", 4, "verified")
    table.seats[0] = Occupant("Anna", b"k" * 32, b"n" * 32, b"", online=True)
    table.seats[1] = Occupant("Vroni (bot)", b"b" * 32, b"m" * 32, b"", bot=True)
    table.seats[2] = Occupant("Sepp (bot)", b"p" * 32, b"o" * 32, b"")  # (a person: their name is theirs)
    words = Words(lang)
    return "\n".join(found_lines(table, tmp_path / "none.wjournal", now=0.0,
                                 words={key: words[key] for key in RESUME_WORDS}))


def test_a_bot_is_marked_and_the_lines_are_said_in_the_hosts_language(tmp_path: Path) -> None:
    en, de, zh = (_found(lang, tmp_path) for lang in ("en", "de", "zh"))
    assert "players: 0 Anna, 1 Vroni (bot), 2 Sepp (bot), 3 free" in en and "for 4 players, deal verified" in en
    assert "Spieler: 0 Anna, 1 Vroni (Bot), 2 Sepp (bot), 3 frei" in de
    assert "für 4 Spieler, Geben verified" in de and "zwischen zwei Partien" in de
    assert "玩家：0 Anna，1 Vroni（机器人），2 Sepp (bot)，3 空" in zh and "，4 名玩家，发牌 verified" in zh
    assert found_lines(bot_table("bavarian", 2, "verified"), tmp_path / "x", now=0.0)[2] == "  players: 0 free, 1 free"


def test_every_language_has_the_words_of_a_restart() -> None:
    for lang in LANGS:
        for key in RESUME_WORDS:
            assert Words(lang)[key] != key and Words(lang)[key].count("{") == RESUME_WORDS[key].count("{"), (lang, key)
