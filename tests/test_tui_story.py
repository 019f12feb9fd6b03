"""The table tells the story, read off an 80x24 terminal: who named, raised, folded and won, in English and German,
with four, six and two players; Blind hides the partner's announcement; the layout keeps every seat, the hand and
every trick slot from 120x40 down to 60x20, and below that says so in one line.

Real processes in tmux (tests/tmuxutil.py); every wait polls the screen with a deadline.
"""

from __future__ import annotations

import re
import time

import pytest

from tmuxutil import Tmux, have_tmux, python

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(not have_tmux(), reason="tmux is not installed (.ci/run installs it)"),
]

# What a person reads in the prompt, and the key they press for it (per language)
ANSWERS = {
    "en": [("At the cut you see", ["n"]), ("Your turn: name the Schlag", ["o"]), ("Your turn: name Trumpf", ["l"]),
           ("? [y] / [n]", ["n"]), ("[y] accept / [f] fold", ["y"])],
    "de": [("Beim Abheben siehst du", ["n"]), ("Du bist dran: Schlag ansagen", ["o"]),
           ("Du bist dran: Trumpf ansagen", ["l"]), ("[y] ja / [n] nein", ["n"]), ("[y] annehmen", ["y"])],
}
PLAY = {"en": r"Your turn: (choose a card|Enter plays your last card)",
        "de": r"Du bist dran: (Karte wählen|Enter spielt deine letzte Karte)"}
HAND = {"en": r"Your cards:\s+1:", "de": r"Deine Karten:\s+1:"}
RAISE = "[r] "
SEAT_ROW = re.compile(r"(?m)^(?:▶ |  )(\d) .*\[\d\] +(·|[♣♠♥♦]\S+)")


def bottom(screen: str) -> str:
    """The hand, the prompt (it may wrap onto a second row) and the message line, joined."""
    lines = [line.strip() for line in screen.rstrip().splitlines() if line.strip()]
    return " ".join(lines[-5:-1])


class Player:
    """A person at one tmux session: answers what is asked, plays cards by digit and Enter, raises once if told."""

    def __init__(self, tmux: Tmux, name: str, lang: str = "en", *, raise_once: bool = False,
                 fold: bool = False) -> None:
        self.tmux, self.name, self.lang = tmux, name, lang
        self.raise_once, self.fold = raise_once, fold
        self.card = 0

    def step(self) -> str:
        screen = self.tmux.screen(self.name)
        asked = bottom(screen)
        if "[y/n]" in asked:  # (our own fold, confirmed)
            self.tmux.keys(self.name, "y")
            return screen
        if self.fold and "[f] fold" in asked:
            self.tmux.keys(self.name, "f")
            return screen
        if self.raise_once and RAISE in asked:
            self.raise_once = False
            self.tmux.keys(self.name, "r")
            return screen
        for question, keys in ANSWERS[self.lang]:
            if question in asked:
                self.tmux.keys(self.name, *keys)
                return screen
        if re.search(PLAY[self.lang], asked) and re.search(HAND[self.lang], screen):
            self.card = self.card % 5 + 1  # a refused card leaves a reason on screen: the next one is tried
            self.tmux.keys(self.name, str(self.card), "Enter")
        return screen


WHOLE_LOG_EVERY = 10.0  # seconds: how often play_until reads the whole log for a line the screen may have missed


def play_until(players: list[Player], pattern: str, timeout: float = 150.0) -> str:
    """Every player answers and plays until `pattern` is in the first player's log (read whole, `v`)."""
    deadline = time.monotonic() + timeout
    regex = re.compile(pattern)
    seen: list[str] = []  # every log line the first player's screen showed on the way (a line can scroll out of the
    # whole log's pages by the time the pattern shows, when a hand ends and the next begins at once)
    look_back = time.monotonic() + WHOLE_LOG_EVERY
    while time.monotonic() < deadline:
        for player in players:
            player.step()
        screen = players[0].tmux.screen(players[0].name)
        seen.extend(line.rstrip() for line in screen.splitlines() if line.strip())
        found = regex.search(screen) or regex.search("\n".join(seen))
        if not found and time.monotonic() >= look_back:
            # (a line can come and scroll out of the screen's log between two looks, under load: when a bot folds a
            # raise the hand ends and the next one's lines follow at once; the whole log still holds it)
            look_back = time.monotonic() + WHOLE_LOG_EVERY
            found = regex.search(whole_log(players[0]))
        if found:
            # (the whole log first, in its order: a line the screen showed too stays in its hand's place, not where
            # the screen showed it, e.g. a raise still on screen after its hand's header had scrolled away)
            return "\n".join(dict.fromkeys([*whole_log(players[0]).splitlines(), *seen]))
        time.sleep(0.2)
    raise AssertionError(f"{pattern!r} never showed:\n" + "\n\n".join(p.tmux.screen(p.name) for p in players))


def whole_log(player: Player) -> str:
    """The whole match's log: `v` opens it, Page Up scrolls back; wrapped lines are joined again."""
    tmux, name = player.tmux, player.name
    tmux.keys(name, "v")
    pages = [tmux.wait_for(name, LOG_TITLE).string]
    for _ in range(8):
        if re.search(r"(?m)^── Hand 1:", pages[-1]):  # (the log's first line: nothing older to read)
            break
        tmux.keys(name, "PageUp")
        # (each page once the client has drawn it, not after a fixed pause: a page read too early is the one before
        # again, and the oldest lines are missed. A Page Up may leave the rows as they are: it moves the log's cursor
        # ten lines back, and the window scrolls only once the cursor would leave it: then the next one does.)
        try:
            pages.append(tmux.wait_until(name, lambda screen, before=pages[-1]: scrolled_back(screen, before),
                                         "an older page of the log", timeout=2))
        except AssertionError:
            pages.append(tmux.screen(name))
    tmux.keys(name, "v")
    lines: list[str] = []
    for page in reversed(pages):
        for line in page.splitlines():
            if line.startswith("    ") and lines:
                lines[-1] += " " + line.strip()
            elif line.strip():
                lines.append(line.rstrip())
    return "\n".join(dict.fromkeys(lines))


LOG_TITLE = r"The match so far|Die Partie bisher"


def scrolled_back(screen: str, before: str) -> bool:
    """Whether the whole log on `screen` shows an older page than on `before`: its top row is new (lines the bots
    add meanwhile come in at the bottom, and move a row that was on screen already to the top)."""
    rows = screen.splitlines()
    at = next((i for i, row in enumerate(rows) if re.search(LOG_TITLE, row)), None)
    top = next((row for row in rows[at + 1:] if row.strip()), None) if at is not None else None
    return top is not None and top not in before.splitlines()


def host(tmux: Tmux, *args: str, lang: str = "en", width: int = 80, height: int = 24) -> None:
    tmux.new("host", python("host.main", "--port", "0", "--bind", "127.0.0.1", "--insecure", "--autostart",
                            "--lang", lang, "--bot-delay", "0.05", *args), width=width, height=height)


def test_four_players_in_english_a_whole_hand_with_a_raise_is_told_at_80x24(tmux: Tmux) -> None:
    host(tmux, "--bots", "3", "--name", "Anna")
    anna = Player(tmux, "host", raise_once=True)
    # A hand can end before Anna may raise (a bot shows a Maschine, or folds a bot's raise): the hand told is the
    # one in which she raised.
    before = play_until([anna], r"Anna raises: Gehts\? to \d+", timeout=400)
    # (the hand whose header comes before her raise: the log read may already go on into the next hand, e.g. when
    # the hand she raised in ended at once with a Maschine)
    raise_at = [m.start() for m in re.finditer(r"(?m)^Anna raises: Gehts\? to \d+", before)][-1]
    hand = re.findall(r"(?m)^── Hand (\d+):", before[:raise_at])[-1]
    log = play_until([anna], rf"Hand {hand}: .* (win|wins) \d+|Hand {hand}: nobody scores")
    # (this hand's lines, the log's lines read once each; the bots may have played on into the next hand meanwhile)
    told = log[log.index(f"── Hand {hand}:"):].split(f"── Hand {int(hand) + 1}:")[0]
    assert re.search(r"(?m)^\S.* names the Schlag: \S+", log), log
    assert re.search(r"(?m)^\S.* names Trumpf: [♣♠♥♦] \w+", log), log
    raised = re.search(r"(?m)^Anna raises: Gehts\? to (\d+)$", told)  # (3, or 4 when a bot raised first)
    assert raised is not None, log
    value = int(raised.group(1))
    assert re.search(rf"(?m)^.+ (accepts: the stake is {value}|folds: the raisers score {value - 1})$", log), log
    result = re.search(rf"(?m)^Hand {hand}: (.+) win (\d+) \((.+)\) · score (\d+)–(\d+)$", told)
    assert result is not None, log
    tricks = re.findall(r"(?m)^Trick (\d): (.+) → (.+) \((\d)–(\d)\)$", told)
    assert [int(t[0]) for t in tricks] == list(range(1, len(tricks) + 1))  # every trick, each with its winner
    if result.group(3).endswith(" folded"):  # a fold decided it: the log says who folded, and the result too
        folder = result.group(3).removesuffix(" folded")
        assert re.search(rf"(?m)^{re.escape(folder)} folds: the raisers score \d+$", log), log
    elif result.group(3) == "Maschine":  # (shown before the first lead, after her raise: no trick, the log says who)
        assert re.search(r"(?m)^.+ shows a Maschine: ([♣♠♥♦]\S+ ?)+$", told) and not tricks, log
    else:
        assert re.fullmatch(r"tricks \d–\d", result.group(3)) and len(tricks) >= 3, log
    screen = tmux.screen("host")
    assert all(len(line) <= 80 for line in screen.splitlines())


def test_six_players_in_german_a_whole_hand_is_told_at_80x24(tmux: Tmux) -> None:
    host(tmux, "--players", "6", "--bots", "5", "--name", "Anna", lang="de")
    anna = Player(tmux, "host", "de")
    deadline = time.monotonic() + 90  # (Anna may be the cutter: a Schlecken question comes before her cards)
    while not re.search(HAND["de"], tmux.screen("host")) and time.monotonic() < deadline:
        anna.step()
        time.sleep(0.2)
    tmux.wait_for("host", HAND["de"])
    assert {m.group(1) for m in SEAT_ROW.finditer(tmux.screen("host"))} == {"0", "1", "2", "3", "4", "5"}
    log = play_until([anna], r"Hand 1: .* schreiben \d+|Hand 1: niemand schreibt")
    for hand in (2, 3):  # (a hand decided without a trick, by a Maschine or a fold: the next one is read too)
        if re.search(r"(?m)^Stich 1: ", log):
            break
        log += "\n" + play_until([anna], rf"Hand {hand}: .* schreiben \d+|Hand {hand}: niemand schreibt")
    assert re.search(r"(?m)^\S.* sagt den Schlag an: \S+", log), log
    assert re.search(r"(?m)^\S.* sagt Trumpf an: [♣♠♥♦] \w+", log), log
    assert re.search(r"(?m)^Stich 1: .+ → .+ \(\d–\d\)$", log), log
    assert re.search(r"(?m)^Hand 1: .+ schreiben \d+ \(.+\) · Stand \d+–\d+$", log), log


def test_a_hand_decided_by_a_fold_says_who_folded_on_both_screens(tmux: Tmux) -> None:
    host(tmux, "--players", "2", "--name", "Hanna")
    port = tmux.wait_for("host", r"watten-join \S+:(\d+)").group(1)
    other = {"WATTEN_CONFIG_DIR": tmux.env["WATTEN_CONFIG_DIR"] + "-josef"}
    tmux.new("join", python("client.main", "--insecure", "--lang", "en", "--name", "Josef", f"127.0.0.1:{port}"),
             env=other, width=80, height=24)
    hanna = Player(tmux, "host", raise_once=True)
    josef = Player(tmux, "join", fold=True)
    log = play_until([hanna, josef], r"Hand 1: .* win \d+")
    assert re.search(r"(?m)^Hanna raises: Gehts\? to 3$", log), log
    assert re.search(r"(?m)^Josef folds: the raisers score 2$", log), log
    assert re.search(r"(?m)^Hand 1: Hanna win 2 \(Josef folded\)", log), log
    joined = whole_log(josef)
    assert re.search(r"(?m)^Hand 1: Hanna win 2 \(Josef folded\)", joined), joined


def test_blind_hides_the_partners_announcement_in_the_log(tmux: Tmux) -> None:
    host(tmux, "--bots", "3", "--name", "Anna", "--rules", "blind")
    anna = Player(tmux, "host")
    screen = tmux.wait_for("host", r"(?m)^  2 (\S+)", timeout=90)
    partner = screen.group(1)
    # The partner (seat 2) announces when it deals or leads, and Anna then does not: within four hands it happens.
    log = play_until([anna], rf"{re.escape(partner)}.* named (the Schlag|Trumpf) \(hidden: Blind\)", timeout=300)
    assert not re.search(rf"(?m)^{re.escape(partner)}.* names (the Schlag|Trumpf):", log), log
    hidden = log.index("(hidden: Blind)")
    revealed = re.search(r"Revealed: Schlag (\S+) \(\w+\), Trumpf", log[hidden:])
    if revealed is not None:  # (the hand may still run: then the rank is nowhere before its end)
        before = log[:hidden + revealed.start()].rsplit("── Hand", 1)[-1]
        assert "names the Schlag" not in before or partner not in before


def test_resizing_keeps_every_seat_the_hand_and_every_trick_slot(tmux: Tmux) -> None:
    host(tmux, "--players", "6", "--bots", "5", "--name", "Anna", width=80, height=24)
    anna = Player(tmux, "host")
    deadline = time.monotonic() + 90
    while not re.search(HAND["en"], tmux.screen("host")) and time.monotonic() < deadline:
        anna.step()
        time.sleep(0.2)
    for width, height in ((80, 24), (60, 20), (120, 40)):
        tmux.resize("host", width, height)
        # (polled, not read once after a fixed pause: until the client has redrawn, the screen is tmux's rewrap of
        # the old rows, blank, or half written, for longer than any pause when the machine is busy)
        tmux.wait_until("host", lambda s, width=width: redrawn(s, width),
                        f"every seat, the hand and the score in {width}x{height}, no row wider")
    tmux.resize("host", 40, 15)
    tmux.wait_for("host", r"Please make this window at least\s+60×20\s+\(now 40×15\)")  # (wrapped in 40 columns)
    tmux.resize("host", 80, 24)
    tmux.wait_for("host", HAND["en"])


def redrawn(screen: str, width: int) -> bool:
    """The six-seat table drawn whole at `width` columns: every seat's row with its trick slot, the hand, the score
    (narrow: without the seats), and no row wider than the window."""
    return ({m.group(1) for m in SEAT_ROW.finditer(screen)} == {"0", "1", "2", "3", "4", "5"}
            and re.search(HAND["en"], screen) is not None
            and re.search(r"Team A( \(0\+2\+4\))?: \d+", screen) is not None
            and all(len(line) <= width for line in screen.splitlines()))
