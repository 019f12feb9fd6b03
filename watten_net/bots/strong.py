"""The `easy`, `medium` and `strong` levels: determinized sampling (perfect-information Monte Carlo).

At every decision the bot reads its `BotView` (and nothing else) into what its seat knows
(`sampling.Knowledge`), samples the hidden cards consistently with it, builds an engine `Match` per
sample that reaches the same public state, applies each candidate action there and plays the sampled
world to the end of the hand (`playout.Playouts`). The candidate with the best average *match equity*
(the chance to win the match from the scores after the hand, `playout.equity`) is chosen, so the stake,
the score and gespannt all count; the same samples serve every candidate (common random numbers).

- Card play, conceding, accepting or folding a raise, and every announcement step (Schlag, trump,
  Schlagwechsel, Bessere and their answers) are decided that way.
- Raising compares, over the same samples, the equity of playing on at the stake with the equity of
  raising: the other side answers as the heuristic would from its sampled cards (folding gives the stake
  now), and if it accepts the hand is played for one step more. Rarely (`BLUFF_RATE`) it raises a hand
  that is not good enough.
- The cut is random; Schlecken takes every Kritischer and bluffs rarely; a `schadet?` is answered by the
  heuristic rule.
- Signals: it tells its partner its Kritische, its Rechter or Guate, or `trumpf` / `nix` (at most two per
  hand), and reads the partner's signals as constraints on the samples.

The levels trade strength for time: samples per decision, a deterministic budget of engine steps, and a
wall-clock cap as a safety net. With the same seed and the same views the choices are the same (the
wall-clock cap only cuts a search on a machine much slower than the step budget assumes; pass
`time_limit=None` for strict reproducibility).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from watten_net.engine import Rules, ranking
from watten_net.engine.notation import Phase, Verb
from watten_net.engine.seating import seating_for

from .base import Bot, BotView
from .heuristic import HeuristicBot, heuristic_action
from .playout import CARD_OF, Playouts, equity, outcome
from .sampling import RESAMPLE, Deal, Knowledge, Sampler, build_world

BLUFF_RATE = 0.03  # raises with a hand that does not justify one (decided per decision where raising is legal)
BLUFF_MIN_CHANCE = 0.3  # ... but only with at least this chance to win the hand
RAISE_MARGIN = 0.01  # match equity a raise must gain over playing on (the other side may raise back later)
SCHLECKEN_BLUFF_RATE = 0.02  # take a card at the cut that is no Kritischer (costs 2 unless a Kritischer is played)
MAX_SIGNALS = 2  # per hand (the engine allows 3)
MAX_SCHLAG_CANDIDATES = 4  # Schlag ranks searched (the ranks held most, and the heuristic's pick)
MIN_SAMPLES = 2  # a search stops for its budgets only after this many usable samples
DEALING_SHARE = 0.3  # at most this share of the time limit goes to drawing deals (before any playout)
SIGNAL_NAMES_BY_CARD = {"HK": "max", "S7": "belli", "E7": "spitz", "SU": "bugl", "S6": "weli"}


@dataclass(frozen=True)
class LevelSettings:
    """The search budget of one strength level (easy, medium, strong): worlds sampled and engine steps per decision."""

    samples: int  # sampled worlds per decision
    max_steps: int  # engine steps of playouts per decision: the deterministic time budget
    time_limit: float  # seconds: wall-clock safety cap per decision


LEVEL_SETTINGS = {
    "easy": LevelSettings(samples=8, max_steps=4_000, time_limit=0.08),
    "medium": LevelSettings(samples=32, max_steps=15_000, time_limit=0.15),
    "strong": LevelSettings(samples=112, max_steps=52_000, time_limit=0.25),
}
STRONG_LEVELS = tuple(LEVEL_SETTINGS)
_DEFAULT_LIMIT = -1.0


@dataclass(frozen=True)
class Option:
    """One action the strong bot weighed, with its estimated match equity and chance of winning the hand."""

    action: str
    equity: float  # expected match equity after the hand
    chance: float  # chance that this seat's side wins the hand


@dataclass(frozen=True)
class Advice:
    """A decision with its reasons: the action, the estimated chance of winning the hand, what was compared."""

    action: str | None
    chance: float | None  # chance that this seat's side wins the hand with `action` (None: not estimated)
    options: tuple[Option, ...] = ()
    samples: int = 0


class StrongBot(Bot):
    """Perfect-information Monte Carlo from the seat's own view. `fallbacks` counts searches that could not run."""

    level = "strong"

    def __init__(
        self, seed: int | None = None, level: str = "strong", *, samples: int | None = None,
        time_limit: float | None = _DEFAULT_LIMIT,
    ) -> None:
        super().__init__(seed)
        if level not in LEVEL_SETTINGS:
            raise ValueError(f"unknown strong level {level!r}; the levels are: {', '.join(LEVEL_SETTINGS)}")
        settings = LEVEL_SETTINGS[level]
        self.level = level
        self.samples = samples if samples is not None else settings.samples
        self.max_steps = settings.max_steps * self.samples // settings.samples
        self.time_limit = settings.time_limit if time_limit == _DEFAULT_LIMIT else time_limit
        self.fallbacks = 0
        self.last: Advice | None = None
        self._heuristic = HeuristicBot(self.rng.getrandbits(32))  # fallback, and the others' policy in playouts

    # ------------------------------------------------------------------------------------------ interface
    def choose(self, view: BotView) -> str | None:
        if not view.legal_actions:
            return None
        advice = self.advise(view)
        self.last = advice
        if advice.action is None or advice.action in view.legal_actions:
            return advice.action
        self.fallbacks += 1  # a safety net: never send an illegal action
        return Bot.decide(self, view)

    def decide(self, view: BotView) -> str:
        return self.choose(view) or Bot.decide(self, view)

    def advise(self, view: BotView, *, signals: bool = True) -> Advice:
        """The action for this view, with its estimated chance. `signals=False`: the move itself, no table talk."""
        legal = view.legal_actions
        rules = view.rules
        if not legal:
            return Advice(None, None)
        if rules is None:
            return self._fallback(view, counted=True)
        cuts = [a for a in legal if a.startswith("cut ")]
        if cuts:
            return Advice(self.rng.choice(cuts), None)  # where the deck is cut cannot be judged from a seat
        if Verb.KEEP in legal:
            return Advice(self._schlecken(view, rules), None)
        if "schadet yes" in legal:
            return self._fallback(view)
        moves = [a for a in legal if not a.startswith("signal ") and a not in (Verb.RAISE, Verb.CONCEDE)]
        if not moves:
            return Advice(None, None)  # not this seat's turn: only table talk is on offer
        if signals:
            signal = self._signal(view, rules)
            if signal is not None:
                return Advice(signal, None)
        kn = Knowledge.of(view)
        if kn is None:
            return self._fallback(view, counted=True)
        if view.phase == Phase.ANNOUNCE:
            if Verb.ACCEPT in legal:  # a raise during the announcement (docs/rules.md 6)
                return self._search(kn, ["accept", "fold"], raising=False)
            if Verb.RAISE in legal and heuristic_action(view, rules, self._heuristic) == Verb.RAISE:
                return Advice("raise", None)  # by rule: the Kritische held, before anything is named
            return self._search(kn, self._announce_candidates(view, rules), raising=False)
        if view.phase != Phase.PLAY:
            return self._fallback(view, counted=True)
        if Verb.ACCEPT in legal:
            return self._search(kn, ["accept", "fold"], raising=False)
        candidates = [a for a in legal if a.startswith("play ")]
        if Verb.CONCEDE in legal:
            candidates.append("concede")
        return self._search(kn, candidates, raising=Verb.RAISE in legal)

    # ------------------------------------------------------------------------------------------ rule decisions
    def _fallback(self, view: BotView, *, counted: bool = False) -> Advice:
        """The heuristic's choice: by rule (a `schadet?` answer), or when a search cannot run (`counted`)."""
        self.fallbacks += counted
        if view.rules is None:
            return Advice(Bot.decide(self, view), None)
        return Advice(heuristic_action(view, view.rules, self._heuristic), None)

    def _schlecken(self, view: BotView, rules: Rules) -> str:
        seen = view.extra.get("schlecken_card", "")
        if Verb.TAKE not in view.legal_actions or seen not in CARD_OF:
            return "keep"
        if CARD_OF[seen] in rules.kritische_cards:
            return "take"
        return "take" if self.rng.random() < SCHLECKEN_BLUFF_RATE else "keep"

    def _signal(self, view: BotView, rules: Rules) -> str | None:
        """The next thing to tell the partner: the Kritische held, the Rechter or Guate, else `trumpf` or `nix`."""
        legal = view.legal_actions
        if not any(a.startswith("signal ") for a in legal):
            return None
        sent = [name for seat, name in view.signals if seat == view.seat]
        if len(sent) >= MAX_SIGNALS:
            return None
        hand = [CARD_OF[c] for c in view.hand]
        facts: list[str] = []
        for card in rules.kritische_cards:
            if card in hand:
                name = SIGNAL_NAMES_BY_CARD.get(card.text)
                facts.append("belli" if card.text == "S6" and rules.deck == 36 else name or "")
        if view.schlag and view.trump and view.phase == Phase.PLAY:
            rk = ranking(rules, view.schlag, view.trump)
            if rk.hauptschlag in hand:
                facts.append("rechter")
            if rk.guate is not None and rk.guate in hand:
                facts.append("guate")
            if not facts:
                trumps = sum(1 for c in hand if c in rk.trump_cards)
                facts.append("trumpf" if trumps >= 2 else "nix")
        for name in facts:
            if name and name not in sent and f"signal {name}" in legal:
                return f"signal {name}"
        return None

    def _announce_candidates(self, view: BotView, rules: Rules) -> list[str]:
        legal = [a for a in view.legal_actions if not a.startswith("signal ") and a != Verb.RAISE]
        ranks = [a for a in legal if a.startswith("schlag ")]
        if not ranks:
            return legal
        held = Counter(c.rank for c in (CARD_OF[t] for t in view.hand) if c not in rules.kritische_cards)
        best = sorted(ranks, key=lambda a: -held[a.split()[1]])[:MAX_SCHLAG_CANDIDATES]
        pick = heuristic_action(view, rules, self._heuristic)
        if pick is not None and pick.startswith("schlag ") and pick not in best:
            best.append(pick)
        return best + [a for a in legal if not a.startswith("schlag ")]

    # ------------------------------------------------------------------------------------------ the search
    def _deals(self, sampler: Sampler, start: float) -> list[Deal]:
        """The sampled deals, weighed by how well they explain the public choices (importance resampling)."""
        drawn: list[Deal] = []
        limit = None if self.time_limit is None else self.time_limit * DEALING_SHARE
        for _ in range(self.samples * RESAMPLE):
            deal = sampler.deal(self.rng)
            if deal is not None:
                drawn.append(deal)
            if limit is not None and drawn and time.perf_counter() - start > limit:
                break
        if not drawn:
            return []
        weights = [d.weight for d in drawn]
        if max(weights) == min(weights):
            return drawn[: self.samples]
        return self.rng.choices(drawn, weights=weights, k=self.samples)

    def _search(self, kn: Knowledge, candidates: Sequence[str], *, raising: bool) -> Advice:
        start = time.perf_counter()
        me = kn.seat
        scorer = kn.scorer
        before = kn.scorer_scores
        playouts = Playouts(self._heuristic)
        deals = self._deals(Sampler(kn), start)
        equity_sum = [0.0] * len(candidates)
        wins: list[list[bool]] = []
        folds: list[bool] = []
        used = 0
        for deal in deals:
            if used >= MIN_SAMPLES and (
                playouts.steps >= self.max_steps
                or (self.time_limit is not None and time.perf_counter() - start > self.time_limit)
            ):
                break
            world = build_world(kn, deal)
            if world is None:
                continue
            legal_here = world.legal_actions(me)
            if any(a not in legal_here for a in candidates) or (raising and Verb.RAISE not in legal_here):
                continue
            row = [False] * len(candidates)
            for i, action in enumerate(candidates):
                after, _ = world.apply(me, action)
                end = playouts.finish(after)
                value, won = outcome(end, scorer, before)
                equity_sum[i] += value
                row[i] = won
            wins.append(row)
            if raising:
                raised, _ = world.apply(me, "raise")
                folds.append(playouts.answer_raise(raised, raised.waiting_for[0]) == Verb.FOLD)
            used += 1
        if not used:
            return self._fallback(kn.view, counted=True)
        options = tuple(
            Option(a, equity_sum[i] / used, sum(1 for row in wins if row[i]) / used) for i, a in enumerate(candidates)
        )
        best = max(range(len(options)), key=lambda i: options[i].equity)
        choice = options[best]
        if raising and self._should_raise(kn, [row[best] for row in wins], folds):
            return Advice("raise", choice.chance, options, used)
        return Advice(choice.action, choice.chance, options, used)

    def _should_raise(self, kn: Knowledge, won: Sequence[bool], folds: Sequence[bool]) -> bool:
        """Raise when it gains match equity over playing on (folds win the stake now), or rarely as a bluff."""
        view = kn.view
        stake = view.stake
        higher = stake + kn.rules.raise_step
        hold = raise_ = 0.0
        for win, fold in zip(won, folds, strict=True):
            hold += self._equity_if(kn, win, stake)
            raise_ += self._equity_if(kn, True, stake) if fold else self._equity_if(kn, win, higher)
        n = len(won)
        if all(won) or raise_ / n > hold / n + RAISE_MARGIN:
            return True  # a hand won in every sample is raised whatever the answer: a fold still pays the stake
        chance = sum(won) / n
        return chance >= BLUFF_MIN_CHANCE and not view.tricks and self.rng.random() < BLUFF_RATE

    def _equity_if(self, kn: Knowledge, win: bool, points: int) -> float:
        """Match equity after the hand if this seat's side wins (or loses) it at `points`."""
        rules = kn.rules
        view = kn.view
        side = kn.side if win else 1 - kn.side
        loser = 1 - side
        if rules.tight == "base-two" and len(view.gespannt) == 2 and view.gespannt[loser]:
            points = min(points, 2)
        scores = list(kn.scorer_scores)
        for s in seating_for(rules).side_scorers_of[kn.dealer][side]:
            scores[s] += points
        own = scores[kn.scorer]
        other = max(s for i, s in enumerate(scores) if i != kn.scorer)
        return equity(rules, own, other)


def hint(view: BotView, level: str = "strong", seed: int = 0) -> tuple[str | None, float | None]:
    """What the strong bot would do in this view, and its estimated chance that the seat's side wins the hand.

    For a hint key in the terminal client: the move itself (no signal), from the view alone. The chance is
    None where the bot decides by rule (the cut, Schlecken) or cannot search.
    """
    advice = StrongBot(seed, level).advise(view, signals=False)
    return advice.action, advice.chance

