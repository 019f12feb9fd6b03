"""Words on the screen in German, English and Chinese.

Card and rule terms keep their German names in every language (that is what players say at the
table), with the language's explanation beside them where it helps. German is the default for a
German locale, English otherwise; `--lang de|en|zh` chooses.
"""

from __future__ import annotations

from watten_net.cardwords import LANGS as LANGS
from watten_net.cardwords import NICK, RANK_DE, SUIT_DE
from watten_net.cardwords import SUIT_EXPLAIN as _SUIT_EXPLAIN
from watten_net.cardwords import default_lang as default_lang
from watten_net.engine import SIGNAL_NAMES

from .reason_words import MORE_REASONS
from .signal_words import SIGNAL_HELP

FRENCH_MARK = {"E": "♣", "L": "♠", "H": "♥", "S": "♦"}
GERMAN_MARK = {"E": "Ei", "L": "La", "H": "He", "S": "Sc"}
BOT_SUFFIX = " (bot)"  # what the host puts after a bot's name (host/lobby.py), in every language
SUIT_COLOUR = {"E": "class:suit.e", "L": "class:suit.l", "H": "class:suit.h", "S": "class:suit.s"}

TEXT: dict[str, dict[str, str]] = {
    "de": {
        "game": "Spiel", "deal_verified": "Austeilen geprüft ✓",
        "deal_failed": "Austeilen NICHT in Ordnung",
        "host_sees": "Geprüftes Austeilen: der Host kann alle Karten sehen, dieses Spiels und der folgenden",
        "dispute": "STREITFALL",
        "schlag": "Schlag", "trump": "Trumpf", "stake": "Wert", "hidden": "?", "your_turn": "Du bist dran",
        "waiting_for": "Warten auf", "dealer": "Geber", "forehand": "Vorhand", "cutter": "Abheber",
        "team": "Team", "tricks": "Stiche", "score": "Punkte", "bummerl": "Bummerl", "target": "Ziel",
        "gespannt": "gespannt",
        "rules": "Regeln", "flags": "geändert", "your_hand": "Deine Karten", "trick": "Stich",
        "last_trick": "Letzter Stich", "no_last_trick": "Noch kein Stich",
        "help_hint": "? Hilfe · v Protokoll · p letzter Stich · : Befehl",
        "confirm_fold": "Wirklich ablehnen (die Hand geht verloren)? [y/n]",
        "confirm_concede": "Wirklich aufgeben? [y/n]", "confirm_quit": "Tisch verlassen? [y/n]",
        "refused": "Nicht erlaubt", "reconnecting": "Verbindung verloren, verbinde neu …",
        "lobby": "Warten auf Spieler", "seat": "Platz", "free": "frei", "bot": "Bot", "you": "du",
        "stand_in": "ein Bot vertritt", "away_waits": "weg: der Tisch wartet",
        "offline": "offline", "match_over": "Partie vorbei", "won": "gewinnt", "announce": "Ansage",
        "address": "Adresse", "fingerprint": "Zertifikat", "start_key": "[s] starten", "bot_key": "[b] Bot setzen",
        "deal_key": "[d] Geben: geprüft / vertrauenslos",
        "host_blind": "Vertrauensloses Geben: der Host kann deine Karten nicht sehen",
        "cut_prompt": "Du hebst ab: [Enter] irgendwo, oder :cut N ({low}–{high})",
        "series_over": "Serie vorbei", "hint": "Tipp", "thinking": "denke nach …",
        "no_hint": "kein Tipp", "chance": "etwa {pct} % für dein Team",
        "deal_pending": "Austeilen: warte auf die ersten Karten",
        "deal_consistent": "jedes Deck passt zu seinem Siegel ✓ · wartet auf den Schlüssel des Hosts (Partieende)",
        "deal_cards_checked": "jede Karte geprüft ✓ · Zufallswerte am Partieende",
        "signals": "deutet", "tricks_short": "Stiche", "any_key": "Taste",
        "takes_trick": "→ {seat} sticht", "someone": "Jemand",
        "pending_raise": "Gehts? {seat} bietet {value}",
        "answer_raise": "{seat} bietet {value} (Gehts?): [y] annehmen / [f] ablehnen",
        "choose_card": "Karte wählen (1-{n}, ← →), Enter spielt sie",
        "choose_schlag": "Schlag ansagen: 7 8 9 0(=10) u o k a{six} · [w] Schlagwechsel · [b] Bessere",
        "choose_trump": "Trumpf ansagen: [e] Eichel [l] Laub [h] Herz [s] Schellen · [b] Bessere",
        "asks_swap": "{seat} fragt: Schlagwechsel (du sagst den Schlag an, {seat} den Trumpf)?",
        "asks_bessere": "{seat} fragt: neue Karten für beide Ansager (Bessere)?",
        "asks_schadet": "{seat} fragt: Schadet's?",
        "answer": "[y] ja / [n] nein", "schlecken": "Beim Abheben siehst du {card}: nehmen? [y] nehmen / [n] lassen",
        "schlecken_keep": "Beim Abheben siehst du {card}: nehmen darfst du sie nicht · [n] lassen",
        "waiting_to": "Warten auf {names}: {what}",
        "do_raise": "bieten", "do_accept": "annehmen", "do_fold": "ablehnen", "do_concede": "aufgeben",
        "do_schadet": "schadet's?",
        "wait_schlag": "Schlag ansagen", "wait_trump": "Trumpf ansagen", "wait_swap": "Antwort auf den Schlagwechsel",
        "wait_bessere": "Antwort auf Bessere", "wait_cut": "abheben", "wait_schlecken": "die Karte nehmen oder lassen",
        "wait_raise": "Antwort aufs Bieten", "wait_play": "ausspielen",
        "log_title": "Die Partie bisher (↑ ↓ Bild↑ Bild↓ blättern, v oder Esc schließt)",
        "too_small": "Bitte das Fenster auf mindestens 60×20 vergrößern (jetzt {cols}×{rows}).",
        "summary": "Die Partie", "col_hand": "Hand", "col_dealer": "Geber", "col_announced": "Schlag / Trumpf",
        "col_won": "Gewonnen", "col_how": "Wie", "col_points": "Pkt", "final_score": "Endstand",
        "own_check": "Deine eigene Prüfung der Aufzeichnung", "record": "Aufzeichnung",
        "leave_keys": "[q] verlassen · [v] das ganze Protokoll", "check_running": "wird geprüft …",
        "score_so_far": "Stand beim Verlassen",
        "not_over": "die Partie läuft noch (ein Bot spielt für dich; watten-join nochmal holt den Platz zurück)",
    },
    "en": {
        "game": "Game", "deal_verified": "deal verified ✓",
        "deal_failed": "deal check FAILED",
        "host_sees": "Verified deal: the host can see all cards, of this hand and those to come",
        "dispute": "DISPUTE",
        "schlag": "Schlag (striker rank)", "trump": "Trumpf (trump)", "stake": "Stake", "hidden": "?",
        "your_turn": "Your turn", "waiting_for": "Waiting for", "dealer": "dealer", "forehand": "forehand",
        "cutter": "cutter", "team": "Team", "tricks": "tricks", "score": "Points", "bummerl": "Bummerl",
        "target": "target", "gespannt": "gespannt (tight)",
        "rules": "Rules",
        "flags": "changed", "your_hand": "Your cards", "trick": "trick", "last_trick": "Last trick",
        "no_last_trick": "No trick yet", "help_hint": "? help · v log · p last trick · : command",
        "confirm_fold": "Really fold (you lose the hand)? [y/n]", "confirm_concede": "Really concede? [y/n]",
        "confirm_quit": "Leave the table? [y/n]", "refused": "Not allowed",
        "reconnecting": "connection lost, reconnecting…",
        "lobby": "Waiting for players", "seat": "Seat", "free": "free", "bot": "bot", "you": "you",
        "stand_in": "a bot stands in", "away_waits": "away: the table waits",
        "offline": "offline", "match_over": "Match over", "won": "wins", "announce": "Announcement",
        "address": "Address", "fingerprint": "Certificate", "start_key": "[s] start", "bot_key": "[b] add a bot",
        "deal_key": "[d] deal: verified / trustless",
        "host_blind": "Trustless deal: the host cannot see your cards",
        "cut_prompt": "You cut the deck: [Enter] anywhere, or :cut N ({low}–{high})",
        "series_over": "Series over", "hint": "Hint", "thinking": "thinking …",
        "no_hint": "no hint", "chance": "about {pct}% for your side",
        "deal_pending": "deal: waiting for the first cards",
        "deal_consistent": "every deck matched its seal ✓ · waiting for the host's key (match end)",
        "deal_cards_checked": "every card checked ✓ · seeds revealed at the end",
        "signals": "signals", "tricks_short": "tricks", "any_key": "any key",
        "takes_trick": "→ {seat} takes the trick", "someone": "Someone",
        "pending_raise": "Gehts? {seat} raises to {value}",
        "answer_raise": "{seat} raises to {value} (Gehts?): [y] accept / [f] fold",
        "choose_card": "choose a card (1-{n}, ← →), Enter plays it",
        "choose_schlag": "name the Schlag: 7 8 9 0(=10) u o k a{six} · [w] Schlagwechsel · [b] Bessere",
        "choose_trump": "name Trumpf: [e] Eichel [l] Laub [h] Herz [s] Schellen · [b] Bessere",
        "asks_swap": "{seat} asks: Schlagwechsel (you name the Schlag, {seat} Trumpf)?",
        "asks_bessere": "{seat} asks: new cards for both announcers (Bessere)?",
        "asks_schadet": "{seat} asks: schadet's (does it harm us)?",
        "answer": "[y] / [n]", "schlecken": "At the cut you see {card}: take it? [y] take / [n] leave it",
        "schlecken_keep": "At the cut you see {card}: you may not take it · [n] leave it",
        "waiting_to": "Waiting for {names} {what}",
        "do_raise": "raise", "do_accept": "accept", "do_fold": "fold", "do_concede": "concede",
        "do_schadet": "schadet?",
        "wait_schlag": "to name the Schlag", "wait_trump": "to name Trumpf", "wait_swap": "to answer the Schlagwechsel",
        "wait_bessere": "to answer Bessere", "wait_cut": "to cut", "wait_schlecken": "to take or leave the card shown",
        "wait_raise": "to answer the raise", "wait_play": "to play a card",
        "log_title": "The match so far (↑ ↓ PgUp PgDn scroll, v or Esc closes)",
        "too_small": "Please make this window at least 60×20 (now {cols}×{rows}).",
        "summary": "The match", "col_hand": "Hand", "col_dealer": "Dealer", "col_announced": "Schlag / Trumpf",
        "col_won": "Won by", "col_how": "How", "col_points": "Pts", "final_score": "Final score",
        "own_check": "Your own check of the record", "record": "Record", "leave_keys": "[q] leave · [v] the whole log",
        "check_running": "checking …", "score_so_far": "Score when you left",
        "not_over": "the match is not over (a bot plays your seat; watten-join again takes it back)",
    },
    "zh": {
        "game": "对局", "deal_verified": "发牌已验证 ✓",
        "deal_consistent": "一致，等待主机的密钥",
        "deal_failed": "发牌验证失败",
        "host_sees": "可验证发牌：主机能看到所有牌（本局及之后各局）", "dispute": "争议",
        "schlag": "Schlag（点数王）", "trump": "Trumpf（将牌）",
        "stake": "分值", "hidden": "?", "your_turn": "轮到你", "waiting_for": "等待", "dealer": "发牌者",
        "forehand": "先手", "cutter": "切牌者", "team": "队", "tricks": "Stiche（墩）", "score": "分数",
        "bummerl": "Bummerl", "target": "目标", "gespannt": "gespannt（紧绷）",
        "rules": "规则", "flags": "改动",
        "your_hand": "你的牌", "trick": "Stich（墩）", "last_trick": "上一墩", "no_last_trick": "还没有墩",
        "help_hint": "? 帮助 · v 记录 · p 上一墩 · : 命令",
        "confirm_fold": "确定放弃（输掉这一手）？[y/n]", "confirm_concede": "确定认输？[y/n]",
        "confirm_quit": "离开牌桌？[y/n]", "refused": "不允许", "reconnecting": "连接中断，正在重连…",
        "lobby": "等待玩家", "seat": "座位", "free": "空", "bot": "机器人", "you": "你", "offline": "离线",
        "stand_in": "机器人代打", "away_waits": "离开：牌桌等待",
        "match_over": "比赛结束", "won": "获胜", "announce": "叫牌",
        "choose_schlag": "选择 Schlag：7 8 9 0(=10) u o k a{six} · [w] Schlagwechsel（交换）· [b] Bessere（换牌）",
        "choose_trump": "选择 Trumpf：[e] Eichel [l] Laub [h] Herz [s] Schellen · [b] Bessere",
        "address": "地址", "fingerprint": "证书", "start_key": "[s] 开始", "bot_key": "[b] 加机器人",
        "deal_key": "[d] 发牌：可验证 / 无需信任",
        "host_blind": "无需信任发牌：主机看不到你的牌",
        "cut_prompt": "你来切牌：[Enter] 随意切，或 :cut N（{low}–{high}）",
        "series_over": "系列赛结束", "hint": "提示", "thinking": "思考中 …", "no_hint": "没有提示",
        "chance": "你方约 {pct}% 胜率",
        "deal_pending": "发牌：等待第一批牌", "deal_cards_checked": "每张牌都已对照承诺检查 ✓ · 种子在比赛结束时公开",
        "do_raise": "加注", "do_accept": "接受", "do_fold": "放弃", "do_concede": "认输",
        "signals": "暗号", "tricks_short": "墩", "any_key": "任意键", "takes_trick": "→ {seat} 赢得这一墩",
        "someone": "有人", "pending_raise": "Gehts? {seat} 加注到 {value}",
        "answer_raise": "{seat} 加注到 {value}（Gehts?）：[y] 接受 / [f] 放弃",
        "choose_card": "选牌（1-{n}，← →），Enter 出牌", "answer": "[y] 是 / [n] 否",
        "schlecken": "切牌时你看到 {card}：拿吗？[y] 拿 / [n] 不拿",
        "too_small": "请把窗口调到至少 60×20（现在 {cols}×{rows}）。", "leave_keys": "[q] 离开 · [v] 全部记录",
    },
}

# Refusal reasons in words (the host's own sentence is the fallback).
REASONS: dict[str, dict[str, str]] = {
    "de": {
        "not-your-turn": "Du bist nicht dran.", "card-not-in-hand": "Diese Karte hast du nicht.",
        "must-play-trump": "Du musst Trumpf oder einen Kritischen spielen.",
        "raise-pending": "Erst das Bieten beantworten.",
        "raise-twice": "Dein Team hat zuletzt geboten.", "gespannt": "Gespannt: kein Bieten.",
        "raise-cap": "Mehr als ihr braucht, könnt ihr nicht bieten.", "malformed": "Das verstehe ich nicht.",
        "bad-action": "Diese Aktion gibt es nicht.", "bad-card": "Das ist keine Karte.",
        "not-now": "Jetzt nicht.",
        # Joining and leaving (the proof that you hold your key, see watten_net.deal.identity)
        "proof-required": "Der Host verlangt einen Schlüsselnachweis; aktualisiere watten-join.",
        "bad-key-proof": "Der Host hat den Schlüsselnachweis nicht angenommen.",
        "wrong-certificate": "Dein Beitritt galt einem anderen Zertifikat: ein fremder Host hat ihn weitergeleitet. "
                             "Verbinde dich direkt mit dem Host und vergleiche den Fingerabdruck.",
        "insecure-proof": "Dieser Host spricht TLS: ohne --insecure verbinden.",
        "bad-fingerprint": "Der Zertifikats-Fingerabdruck im Beitritt ist unlesbar; aktualisiere watten-join.",
        "nonce-used": "Dieser Nachweis wurde schon einmal benutzt (eine Wiederholung?); versuche es noch einmal.",
        "too-many-joins": "Dieser Tisch nimmt keine Beitritte mehr an; nimm einen anderen Tisch.",
        "rate-limited": "Zu viele Anfragen: kurz warten.",
        "request-too-large": "Die Anfrage ist zu groß.", "bad-name": "Ein Name hat 1 bis 32 Zeichen.",
        "too-many-connections": "Zu viele Verbindungen von dieser Adresse: einige schließen oder kurz warten.",
        "too-many-streams": "Zu viele offene Verbindungen zum Tisch von dieser Adresse.",
        "too-many-seats": "Von dieser Adresse sind schon genug Plätze besetzt.",
        "join-rate-limited": "Zu viele Beitritte von dieser Adresse: kurz warten.",
        "not-all-ready": "Nur der Gastgeber kann starten, bevor alle bereit sind.",
        "stream-replaced": "Eine neuere Verbindung mit deinem Platz hat übernommen.",
    },
    "en": {
        "not-your-turn": "It is not your turn.", "card-not-in-hand": "You do not hold that card.",
        "must-play-trump": "You must play a trump or a Kritischer.", "raise-pending": "Answer the raise first.",
        "raise-twice": "Your side raised last.", "gespannt": "A side is gespannt: no raising.",
        "raise-cap": "You cannot raise beyond the points you need.", "malformed": "That is not an action.",
        "bad-action": "There is no such action.", "bad-card": "That is not a card.",
        "not-now": "Not now.",
        "proof-required": "The host wants a proof that you hold your key; update watten-join.",
        "bad-key-proof": "The host did not accept the proof that you hold your key.",
        "wrong-certificate": "Your join was meant for another certificate: a host in between relayed it. Connect "
                             "to the host directly and compare the fingerprint.",
        "insecure-proof": "This host serves TLS: connect without --insecure.",
        "bad-fingerprint": "The certificate fingerprint in the join cannot be read; update watten-join.",
        "nonce-used": "This proof was used before (a replay?); try again.",
        "too-many-joins": "This table takes no more joins; choose another table.",
        "rate-limited": "Too many requests: wait a moment.",
        "request-too-large": "The request is too large.", "bad-name": "A name has 1 to 32 characters.",
        "too-many-connections": "Too many connections from this address: close some or wait a moment.",
        "too-many-streams": "Too many open table streams from this address.",
        "too-many-seats": "This address already holds as many seats as it may.",
        "join-rate-limited": "Too many joins from this address: wait a moment.",
        "not-all-ready": "Only the host may start before everyone is ready.",
        "stream-replaced": "A newer connection for your seat took over.",
    },
    "zh": {
        "not-your-turn": "还没轮到你。", "card-not-in-hand": "你没有这张牌。",
        "must-play-trump": "你必须出将牌或关键牌。",
        "raise-pending": "请先回应加注。", "raise-twice": "你方刚加过注。", "gespannt": "有一方紧绷：不能加注。",
        "raise-cap": "加注不能超过你们还需要的分数。", "malformed": "无法理解这个动作。", "not-now": "现在不行。",
        "bad-action": "没有这个动作。", "bad-card": "这不是一张牌。",
        "proof-required": "主机要求证明你持有密钥；请更新 watten-join。",
        "bad-key-proof": "主机不接受你持有密钥的证明。",
        "wrong-certificate": "你的加入请求是给另一个证书的：有中间主机转发了它。请直接连接主机并核对指纹。",
        "insecure-proof": "此主机使用 TLS：请不要用 --insecure 连接。",
        "bad-fingerprint": "加入请求中的证书指纹无法读取；请更新 watten-join。",
        "nonce-used": "这个证明已经用过（重放？）；请再试一次。",
        "too-many-joins": "此牌桌不再接受加入；请选择另一张牌桌。",
        "rate-limited": "请求太多：请稍等。", "request-too-large": "请求太大。",
        "bad-name": "名字须为 1 到 32 个字符。",
        "too-many-connections": "这个地址的连接太多：请关闭一些或稍等。",
        "too-many-streams": "这个地址打开的牌桌数据流太多。",
        "too-many-seats": "这个地址占用的座位已达上限。",
        "join-rate-limited": "这个地址加入太频繁：请稍等。",
        "not-all-ready": "在所有人准备好之前，只有主机可以开始。",
        "stream-replaced": "你的座位已由一个更新的连接接管。",
    },
}

HELP: dict[str, str] = {
    "en": """Keys
  ← → or 1-5  choose a card    Enter / Space  play it (a digit alone never plays)
  r  raise (Gehts?)    y  accept    f  fold    c  concede (fold and concede ask first)
  Announcing: 7 8 9 0(=10) u o k a (6 with the Weli in the deck) name the Schlag · e l h s name Trumpf
  w  ask for a Schlagwechsel (swap)    b  ask for Bessere (new cards)
  y / n  answer a question, take or leave the card shown at the cut (Schlecken)
  :  command line: 'play HK', a card as shown ('♥K', 'Herz König'), 'signal max', 'schadet?'; Tab completes
  g  signal to your partner (opens the command line with 'signal ')
Looking only, never an action: p the last trick · v the whole log (↑ ↓ PgUp PgDn) · i a hint · ? this help
  q  leave the table (asks first) · Esc closes help, the log or a question
The header says what your client has checked of the deal; the lobby says whether the host can see the cards.
Terms: Schlag = the striker rank named each hand; Trumpf = trump suit;
  Kritische = Max (HK), Belli (S7), Spitz (E7); gespannt = a side near the target (no raising);
  Bummerl = a lost match.""",
    "de": """Tasten
  ← → oder 1-5  Karte wählen    Enter / Leertaste  ausspielen (eine Ziffer allein spielt nie)
  r  bieten (Gehts?)    y  annehmen    f  ablehnen    c  aufgeben (ablehnen und aufgeben fragen nach)
  Ansage: 7 8 9 0(=10) u o k a (6 mit dem Weli im Blatt) sagen den Schlag an · e l h s den Trumpf
  w  um einen Schlagwechsel fragen    b  um eine Bessere fragen (neue Karten)
  y / n  Fragen beantworten; beim Abheben die gezeigte Karte nehmen oder lassen (Schlecken)
  :  Befehlszeile: 'play HK', eine Karte wie gezeigt ('♥K', 'Herz König'), 'signal max', 'schadet?'; Tab ergänzt
  g  dem Partner deuten (öffnet die Befehlszeile mit 'signal ')
Nur schauen, nie eine Aktion: p letzter Stich · v das ganze Protokoll (↑ ↓ Bild↑ Bild↓) · i Tipp · ? Hilfe
  q  Tisch verlassen (fragt nach) · Esc schließt Hilfe, Protokoll oder Frage
Oben steht, was dein Programm vom Austeilen geprüft hat; im Warteraum, ob der Host die Karten sehen kann.
Kritische: der Max (HK, Herz-König), der Belli (S7, Schellen-Sieben), der Spitz (E7, Eichel-Sieben);
  gespannt: eine Seite kurz vor dem Ziel (dann wird nicht mehr geboten); Bummerl: eine verlorene Partie.""",
    "zh": """按键
  ← → 或 1-5 选牌    Enter / 空格 出牌（只按数字不会出牌）
  r 加注（Gehts?）  y 接受  f 放弃  c 认输（放弃和认输会先确认）
  叫牌：7 8 9 0(=10) u o k a（牌里有 Weli 时还有 6）叫 Schlag · e l h s 叫 Trumpf
  w 请求 Schlagwechsel（交换）  b 请求 Bessere（换牌）
  y / n 回答问题，切牌时拿或不拿亮出的牌（Schlecken）
  : 命令行（'play HK'、'♥K'、'Herz König'、'signal max'、'schadet?'）；Tab 补全
  g 给搭档打暗号（打开命令行并填入 'signal '）
只看不动：p 上一墩 · v 全部记录 · i 提示 · ? 帮助 · q 离开（先确认）
顶行显示你的客户端已检查了发牌的哪些部分；大厅显示主机能否看到牌。
术语：Schlag＝每手叫的点数王；Trumpf＝将牌花色；Kritische＝Max (HK)、Belli (S7)、Spitz (E7)；
  gespannt＝接近目标分（不能加注）；Bummerl＝输掉一局。""",
}


# ---------------------------------------------------------------------------------------------- joining and signals
# (issue 12, items 3 and 9) One block, added to the tables above, so that other additions to them stay apart.
_SIGNALS = " ".join(SIGNAL_NAMES)
_JOINING: dict[str, dict[str, str]] = {
    "de": {
        "join_first": "Erste Verbindung zu {where}.\nDer Fingerabdruck seines Zertifikats ist:\n\n{fingerprint}\n\n"
                      "Vergleiche ihn mit dem Fingerabdruck auf dem Bildschirm des Hosts\n(watten-host zeigt ihn beim "
                      "Start).",
        "join_match": "Stimmt er überein? [j/N] ",
        "join_not_confirmed": "Zertifikat nicht bestätigt: {where} hat nichts von dir bekommen.",
        "lan_tables": "Watten-Tische im LAN:", "lan_which": "Welcher Tisch",
        "lan_number": "Gib eine Zahl von 1 bis {count} ein.",
        "join_name": "Dein Name", "join_default_name": "Spieler",
        "join_name_bad": "Ein Name hat 1 bis 32 druckbare Zeichen.",
        "join_as": "Du spielst als {name} (gemerkt; --name ändert ihn).",
        "join_back": "Zurück an Platz {seat} als {name}.",
        "join_abandoned": "Achtung: dieser Host hat schon {count} Partie(n) abgebrochen, nachdem alle Spielschlüssel "
                          "feststanden, als er jedes Austeilen kannte.",
        "join_full": "Der Tisch bei {where} ist voll: alle {n} Plätze sind besetzt.",
        "join_playing": "Am Tisch bei {where} läuft ein Spiel, alle {n} Plätze sind besetzt.",
        "join_free_seats": "Freie Plätze:", "join_seat_prompt": "Platz ({choices})",
        "join_seat_team": "Platz {seat} — mit {partners} gegen {opponents}",
        "join_seat_duel": "Platz {seat} — gegen {opponents}",
        "join_seat_three": "Platz {seat} — mit {others}",
        "join_three_note": "Zu dritt zählt jeder für sich; jede Hand spielt die Vorhand allein gegen die zwei anderen.",
        "join_seat_free": "Platz {seat} (frei)", "join_and": " und ",
        "join_seat_wrong": "„{answer}“ ist kein freier Platz; antworte mit {choices}.",
        "join_seat_gone": "Platz {seat} wurde eben besetzt; wähle einen anderen.",
        "join_no_answer": "Keine Antwort: nicht beigetreten.",
        "join_gave_up": "Nach {tries} Antworten kein Platz gewählt: nicht beigetreten.",
    },
    "en": {
        "join_first": "First connection to {where}.\nIts certificate fingerprint is:\n\n{fingerprint}\n\n"
                      "Compare it with the fingerprint on the host's screen\n(watten-host prints it when it starts).",
        "join_match": "Does it match? [y/N] ",
        "join_not_confirmed": "The certificate was not confirmed: nothing of yours was sent to {where}.",
        "lan_tables": "Watten tables on the LAN:", "lan_which": "Which table",
        "lan_number": "Type a number from 1 to {count}.",
        "join_name": "Your name", "join_default_name": "Player",
        "join_name_bad": "A name has 1 to 32 printable characters.",
        "join_as": "You play as {name} (remembered; --name changes it).",
        "join_back": "Back at seat {seat} as {name}.",
        "join_abandoned": "Warning: this host has abandoned {count} match(es) after every game key was fixed, when it "
                          "knew every deal.",
        "join_full": "The table at {where} is full: all {n} seats are taken.",
        "join_playing": "A game is under way at the table at {where}, and all {n} seats are taken.",
        "join_free_seats": "Free seats:", "join_seat_prompt": "Seat ({choices})",
        "join_seat_team": "seat {seat} — with {partners} against {opponents}",
        "join_seat_duel": "seat {seat} — against {opponents}",
        "join_seat_three": "seat {seat} — with {others}",
        "join_three_note": "Three players: each keeps a score of their own; each hand the forehand plays alone against "
                           "the other two.",
        "join_seat_free": "seat {seat} (free)", "join_and": " and ",
        "join_seat_wrong": "'{answer}' is no free seat; answer {choices}.",
        "join_seat_gone": "Seat {seat} was just taken; choose another.",
        "join_no_answer": "No answer: nothing was joined.",
        "join_gave_up": "No seat chosen after {tries} answers: nothing was joined.",
    },
    "zh": {
        "join_first": "首次连接 {where}。\n它的证书指纹是：\n\n{fingerprint}\n\n"
                      "请与主机屏幕上的指纹核对（watten-host 启动时会显示）。",
        "join_match": "是否一致？[y/N] ",
        "join_not_confirmed": "证书未确认：没有向 {where} 发送任何你的信息。",
        "lan_tables": "局域网上的 Watten 牌桌：", "lan_which": "选哪一桌",
        "lan_number": "请输入 1 到 {count} 之间的数字。",
        "join_name": "你的名字", "join_default_name": "玩家", "join_name_bad": "名字须为 1 到 32 个可打印字符。",
        "join_as": "你的名字是 {name}（已记住；--name 可更改）。",
        "join_back": "回到座位 {seat}，名字 {name}。",
        "join_abandoned": "警告：这个主机已有 {count} 局在所有对局密钥确定之后（它已知道每次发牌）被中止。",
        "join_full": "{where} 的牌桌已满：{n} 个座位都有人。",
        "join_playing": "{where} 的牌桌正在对局，{n} 个座位都有人。",
        "join_free_seats": "空座位：", "join_seat_prompt": "座位（{choices}）",
        "join_seat_team": "座位 {seat} — 与 {partners} 一队，对 {opponents}",
        "join_seat_duel": "座位 {seat} — 对 {opponents}",
        "join_seat_three": "座位 {seat} — 与 {others} 同桌",
        "join_three_note": "三人局：各自计分；每手由先手独自对另外两人。",
        "join_seat_free": "座位 {seat}（空）", "join_and": "、",
        "join_seat_wrong": "「{answer}」不是空座位；请回答 {choices}。",
        "join_seat_gone": "座位 {seat} 刚被占用；请另选一个。",
        "join_no_answer": "没有回答：未加入。",
        "join_gave_up": "回答 {tries} 次仍未选定座位：未加入。",
    },
}
_SIGNAL_REASONS = {
    "de": {"unknown-signal": f"Unbekanntes Zeichen; die Zeichen: {_SIGNALS}."},
    "en": {"unknown-signal": f"Unknown signal; the signals: {_SIGNALS}."},
    "zh": {"unknown-signal": f"没有这个暗号；暗号有：{_SIGNALS}。"},
}
for _lang in LANGS:
    TEXT[_lang].update(_JOINING[_lang])
    REASONS[_lang].update(_SIGNAL_REASONS[_lang])


class Words:
    """The client's words in one language (`--lang`), with the card suit marks (`--suits`) and refusal reasons."""

    def __init__(self, lang: str, suits: str = "french") -> None:
        if lang not in LANGS:
            raise ValueError(f"--lang must be one of {', '.join(LANGS)}")
        self.lang = lang
        self.marks = FRENCH_MARK if suits == "french" else GERMAN_MARK

    def __getitem__(self, key: str) -> str:
        return TEXT[self.lang].get(key) or TEXT["en"].get(key, key)

    def reason(self, reason: str, fallback: str) -> str:
        return REASONS[self.lang].get(reason) or fallback or reason

    def seat_label(self, name: str, bot: bool) -> str:
        """A seat's name as shown (already `visible`), a bot's marked in this language: the host names its bots
        "Vroni (bot)" in the roster, and that name stays the record's; a German screen reads "Vroni (Bot)", a
        Chinese one "Vroni（机器人）" (found playing: "(bot)" in every language). A person's name is never touched,
        whatever it ends with."""
        if bot and name.endswith(BOT_SUFFIX):
            return name[: -len(BOT_SUFFIX)] + self["bot_mark"]
        return name

    def card_short(self, card: str) -> str:
        """`HK` -> '♥K' (or 'HeK'): compact, for hands and tricks."""
        return self.marks[card[0]] + card[1:]

    def card_name(self, card: str) -> str:
        """German name, with the nickname and (outside German) the language's suit name."""
        name = f"{SUIT_DE[card[0]]} {RANK_DE[card[1:]]}"
        if card in NICK:
            name += f" ({NICK[card]})"
        if self.lang != "de":
            name += f" — {_SUIT_EXPLAIN[self.lang][card[0]]}"
        return name

    def suit(self, suit: str) -> str:
        if self.lang == "de":
            return f"{self.marks[suit]} {SUIT_DE[suit]}"
        return f"{self.marks[suit]} {SUIT_DE[suit]} ({_SUIT_EXPLAIN[self.lang][suit]})"

    def rank(self, rank: str) -> str:
        return f"{rank} ({RANK_DE[rank]})" if rank in RANK_DE else rank

    def help(self) -> str:
        """The help, its Kritische written as the table shows cards ("Max (♥K)", not the notation's "HK")."""
        text = HELP.get(self.lang, HELP["en"])
        for name, card in (("Max", "HK"), ("Belli", "S7"), ("Spitz", "E7")):
            text = text.replace(f"{name} ({card}", f"{name} ({self.card_short(card)}")
        # (the example of a card as shown, as this table shows it: '♥K' read wrong with --suits german's 'HeK')
        return text.replace("'♥K'", f"'{self.card_short('HK')}'")


# ---- play again and the lobby the host arranges (issue 13 items 3 and 4): one block, kept together
REASONS["de"]["person-seated"] = "Auf diesem Platz sitzt jemand, der da ist: nur er selbst kann ihn freigeben."
REASONS["en"]["person-seated"] = "Somebody who is at the table holds that seat: only they can leave it."
REASONS["zh"]["person-seated"] = "这个座位上的人还在桌旁：只有他自己能离开。"
for _lang, _again, _waiting in (("de", "[n] noch ein Spiel", "warte auf"), ("en", "[n] another match", "waiting for"),
                                ("zh", "[n] 再来一局", "等待")):
    TEXT[_lang]["again"] = _again
    TEXT[_lang]["again_waiting"] = _waiting

# ---- spectators and table chat (issue 13 items 5 and 6): one block, kept together
for _lang, _words in (
    ("de", {"watching": "{count} schauen zu", "spectator": "Zuschauer", "chat_key": "[t] sagen",
            "chat_prompt": "sagen: ", "said": "{name}: {text}", "watch_joined": "{name} schaut zu",
            "watch_left": "{name} schaut nicht mehr zu", "watch_over": "Das Spiel ist aus · [q] gehen"}),
    ("en", {"watching": "{count} watching", "spectator": "Spectator", "chat_key": "[t] talk",
            "chat_prompt": "say: ", "said": "{name}: {text}", "watch_joined": "{name} is watching",
            "watch_left": "{name} stopped watching", "watch_over": "The match is over · [q] leave"}),
    ("zh", {"watching": "{count} 人观看", "spectator": "观众", "chat_key": "[t] 聊天",
            "chat_prompt": "说：", "said": "{name}：{text}", "watch_joined": "{name} 在观看",
            "watch_left": "{name} 不再观看", "watch_over": "本局结束 · [q] 离开"}),
):
    TEXT[_lang].update(_words)
REASONS["de"].update({
    "spectator": "Du schaust zu: Zuschauer können nicht mitspielen.",
    "no-spectators": "An diesem Tisch schauen schon 16 zu, mehr geht nicht: später noch einmal versuchen.",
    "bad-chat": "Eine Nachricht hat 1 bis 200 Zeichen.",
    "chat-rate-limited": "Zu viele Nachrichten: kurz warten.",
})
REASONS["en"].update({
    "spectator": "You are watching: spectators cannot play.",
    "no-spectators": "16 people are watching this table already, the most it takes: try again later.",
    "bad-chat": "A message has 1 to 200 characters.",
    "chat-rate-limited": "Too many messages: wait a moment.",
})
REASONS["zh"].update({
    "spectator": "你在观看：观众不能出牌。",
    "no-spectators": "这张桌子已有 16 人观看，不能再多：请稍后再试。",
    "bad-chat": "消息须为 1 到 200 个字符。",
    "chat-rate-limited": "消息太多：请稍等。",
})
for _lang, _line, _before in (
        # (before the signal's line: the lines first named here, "l last trick", had become "p", so the chat's
        # key was in no help at all)
        ("en", "  t  table chat: one line to everyone at the table, spectators too\n", "  g  signal to your partner"),
        ("de", "  t  Tischgespräch: eine Zeile an alle am Tisch, auch Zuschauer\n", "  g  dem Partner deuten"),
        ("zh", "  t 桌上聊天：一行发给桌旁所有人，观众也能看到\n", "  g 给搭档打暗号")):
    HELP[_lang] = HELP[_lang].replace(_before, _line + _before, 1)

# ---- what each partner signal means (client/signal_words.py), before the help's terms
for _lang, _before in (("en", "Terms:"), ("de", "Kritische:"), ("zh", "术语：")):
    HELP[_lang] = HELP[_lang].replace(_before, SIGNAL_HELP[_lang] + "\n" + _before, 1)

# ---- leaving is clear (issue 13 item 8): one block, kept together
for _lang, _words in (
    ("de", {"confirm_quit_host": "Das beendet das Spiel für alle. Wirklich gehen? [y/n]",
            "host_left": "der Host ist gegangen – warte, bis er wieder da ist …"}),
    ("en", {"confirm_quit_host": "This ends the game for everyone. Leave? [y/n]",
            "host_left": "the host has left – waiting for it to come back…"}),
    ("zh", {"confirm_quit_host": "这会结束所有人的这局游戏。确定离开？[y/n]", "host_left": "主机已离开——等待它回来…"}),
):
    TEXT[_lang].update(_words)
REASONS["de"]["host-left"] = ("Der Host hat den Tisch verlassen. Deine Aufzeichnung bleibt; startet er wieder, bist du "
                              "gleich zurück am Tisch.")
REASONS["en"]["host-left"] = ("The host has left the table. Your record is kept; you are back at the table as soon as "
                              "the host is started again.")
REASONS["zh"]["host-left"] = "主机已离开牌桌。你的记录会保留；主机重新启动后你会马上回到牌桌。"

# ---- a move out of turn says what the table waits for ("Not now: the table waits for Vroni to cut."): one block
for _lang, _words in (
    ("de", {"table_waits_to": "der Tisch wartet auf {names} – {what}",
            "table_waits_for": "der Tisch wartet auf {names}", "sentence_end": "."}),
    ("en", {"table_waits_to": "the table waits for {names} {what}",
            "table_waits_for": "the table waits for {names}", "sentence_end": "."}),
    # (Chinese had none of the words for what the table waits for: its prompt line was English till now)
    # (a space after the names, as in the log's "Vroni（机器人） 切牌": "等待 Anna叫 Schlag" ran name and deed together)
    ("zh", {"table_waits_to": "牌桌在等 {names} {what}", "table_waits_for": "牌桌在等 {names}", "sentence_end": "。",
            "waiting_to": "等待 {names} {what}",
            "wait_schlag": "叫 Schlag", "wait_trump": "叫 Trumpf", "wait_swap": "回答 Schlagwechsel（交换）",
            "wait_bessere": "回答 Bessere（换牌）", "wait_cut": "切牌", "wait_schlecken": "拿或不拿切牌时看到的牌",
            "wait_raise": "回答加注", "wait_play": "出牌"}),
):
    TEXT[_lang].update(_words)

# ---- a move at the wrong moment while the table waits for this seat itself ("Not now: it is your turn to play a
# card.", not "the table waits for Anna (you) to play a card"): one block
for _lang, _words in (
    ("de", {"table_waits_you_to": "du bist dran – {what}", "table_waits_you": "du bist dran"}),
    ("en", {"table_waits_you_to": "it is your turn {what}", "table_waits_you": "it is your turn"}),
    ("zh", {"table_waits_you_to": "轮到你{what}", "table_waits_you": "轮到你"}),
):
    TEXT[_lang].update(_words)

# ---- a key that means nothing at this moment says so (it did nothing, silently), and the prompt for the last card
# has no range "(1-1)": one block
for _lang, _words in (
    ("de", {"no_such_key": "[{key}] bedeutet gerade nichts · ? zeigt die Tasten",
            "last_card": "Enter spielt deine letzte Karte"}),
    ("en", {"no_such_key": "[{key}] does nothing now · ? shows the keys", "last_card": "Enter plays your last card"}),
    ("zh", {"no_such_key": "[{key}] 现在没有作用 · ? 显示按键", "last_card": "Enter 出你的最后一张牌"}),
):
    TEXT[_lang].update(_words)

# (Chinese had no words for the Schlagwechsel question: its prompt was English)
TEXT["zh"]["asks_swap"] = "{seat} 问：Schlagwechsel（交换）——你叫 Schlag，{seat} 叫 Trumpf？"

# ---- the lobby of a full table says who starts (it said "Waiting for players"): one block
for _lang, _words in (
    ("de", {"lobby_full": "Alle Plätze besetzt: der Host startet das Spiel",
            "lobby_full_host": "Alle Plätze besetzt: [s] startet das Spiel"}),
    ("en", {"lobby_full": "Every seat is taken: the host starts the game",
            "lobby_full_host": "Every seat is taken: [s] starts the game"}),
    ("zh", {"lobby_full": "座位已满：由主机开始游戏", "lobby_full_host": "座位已满：按 [s] 开始游戏"}),
):
    TEXT[_lang].update(_words)

# ---- the host's own lobby (how friends join, the certificate, the keys to arrange seats): host/main.py passes these
# to host/addresses.py, which imports nothing of the client: one block
for _lang, _words in (
    ("de", {"lobby_only_here": "Nur dieser Rechner kann beitreten: {command}",
            "lobby_loopback": "(lauscht nur auf Loopback; --bind 0.0.0.0 lässt das LAN herein)",
            "lobby_join_with": "Beitreten:", "lobby_or": "oder:", "lobby_announced": "(im LAN angekündigt)",
            "lobby_more": "… und {more} weitere (siehe die Startmeldung)",
            "lobby_no_address": "Keine Netzwerkadresse ist aktiv: Freunde erreichen diesen Rechner noch nicht",
            "lobby_tls": "TLS-Fingerabdruck",
            "lobby_plaintext": "unverschlüsselt (--insecure): jeder im Netz kann das Spiel mitlesen",
            "lobby_keys": "[x] N: Platz N freigeben (eines Bots)   [m] N M: Plätze N und M tauschen"}),
    ("en", {"lobby_only_here": "Only this machine can join: {command}",
            "lobby_loopback": "(listening on loopback only; --bind 0.0.0.0 lets the LAN in)",
            "lobby_join_with": "Join with:", "lobby_or": "or:", "lobby_announced": "(announced on the LAN)",
            "lobby_more": "… and {more} more (see the start banner)",
            "lobby_no_address": "No network address is up: friends cannot reach this machine yet",
            "lobby_tls": "TLS fingerprint",
            "lobby_plaintext": "plaintext (--insecure): anyone on the network can read the game",
            "lobby_keys": "[x] N: free seat N (a bot's)   [m] N M: swap seats N and M"}),
    ("zh", {"lobby_only_here": "只有本机可以加入：{command}",
            "lobby_loopback": "（只监听本机回环地址；--bind 0.0.0.0 让局域网加入）",
            "lobby_join_with": "加入：", "lobby_or": "或：", "lobby_announced": "（已在局域网公布）",
            "lobby_more": "… 还有 {more} 个地址（见启动信息）",
            "lobby_no_address": "没有可用的网络地址：朋友暂时连不上本机",
            "lobby_tls": "TLS 指纹",
            "lobby_plaintext": "明文（--insecure）：网络上任何人都能看到本局",
            "lobby_keys": "[x] N：空出 N 号座位（机器人的）   [m] N M：交换 N 号和 M 号座位"}),
):
    TEXT[_lang].update(_words)

# ---- what the host found when it starts again (host/resume.py found_lines; host/main.py passes these): one block
for _lang, _words in (
    ("de", {"resume_left_off": "unterbrochen {when} (vor {ago} Minuten), Partie {match} an Tisch {table}",
            "resume_rules": "Regeln:  {rules}, Geben {deal}", "resume_preset": "{preset} für {players} Spieler",
            "resume_players": "Spieler: {people}", "resume_score": "Stand:   {score}",
            "resume_free": "{seat} frei", "resume_and": ", ",
            "resume_between": "zwischen zwei Partien: Partie {match} ist vorbei, die nächste hat nicht begonnen",
            "resume_no_hand": "noch keine Hand gegeben", "resume_in_hand": "{scores} in Hand {hand}",
            "resume_abandoned": ", abgebrochen (ihr Ende wartet auf die Unterschriften der Spieler)"}),
    ("en", {"resume_left_off": "left off {when} ({ago} min ago), match {match} at table {table}",
            "resume_rules": "rules:   {rules}, deal {deal}", "resume_preset": "{preset} for {players} players",
            "resume_players": "players: {people}", "resume_score": "score:   {score}",
            "resume_free": "{seat} free", "resume_and": ", ",
            "resume_between": "between matches: match {match} is over, the next has not begun",
            "resume_no_hand": "no hand dealt yet", "resume_in_hand": "{scores} in hand {hand}",
            "resume_abandoned": ", abandoned (its end waits for the players' signatures)"}),
    ("zh", {"resume_left_off": "中断于 {when}（{ago} 分钟前），第 {match} 场比赛，牌桌 {table}",
            "resume_rules": "规则：{rules}，发牌 {deal}", "resume_preset": "{preset}，{players} 名玩家",
            "resume_players": "玩家：{people}", "resume_score": "比分：{score}",
            "resume_free": "{seat} 空", "resume_and": "，",
            "resume_between": "两场比赛之间：第 {match} 场已结束，下一场还没开始",
            "resume_no_hand": "还没有发牌", "resume_in_hand": "{scores}，第 {hand} 手",
            "resume_abandoned": "，已中止（其结束等待玩家签名）"}),
):
    TEXT[_lang].update(_words)

# ---- a move refused while nobody is to move (the seats sign the deal's steps, the host deals): what the table waits
# for then, after "Not now:" (it read "Not allowed: Not now."): one block
for _lang, _words in (
    ("de", {"wait_sign": "ihren Teil zum Austeilen beitragen", "deal_being_checked": "das Austeilen wird geprüft",
            "wait_shuffle": "mischen", "wait_keys": "den Schlüssel fürs Mischen geben",
            "wait_shares": "ihr Schloss von den Karten nehmen"}),
    ("en", {"wait_sign": "to do their part of the deal", "deal_being_checked": "the deal is being checked",
            "wait_shuffle": "to shuffle", "wait_keys": "to give their key for the shuffle",
            "wait_shares": "to take their lock off the cards"}),
    ("zh", {"wait_sign": "完成各自的发牌步骤", "deal_being_checked": "正在检查发牌",
            "wait_shuffle": "洗牌", "wait_keys": "提交洗牌用的密钥", "wait_shares": "解开各自加在牌上的锁"}),
):
    TEXT[_lang].update(_words)

# ---- the host's step clock beside the rules (a seat that leaves a step of the deal's protocol, which its client sends
# by itself, unanswered that long gets a bot standing in): one block
for _lang, _words in (
    ("de", {"step_clock": "Austeil-Schritte: nach {seconds} s springt ein Bot ein",
            "no_step_clock": "Austeil-Schritte: ohne Zeitgrenze"}),
    ("en", {"step_clock": "deal steps: a bot stands in after {seconds} s",
            "no_step_clock": "deal steps: no time limit"}),
    ("zh", {"step_clock": "发牌步骤：{seconds} 秒无应答由机器人代打", "no_step_clock": "发牌步骤：不限时"}),
):
    TEXT[_lang].update(_words)

# ---- a hint in words (it read "Hint: play SU", the rules' notation, on every screen): one block, kept together
for _lang, _words in (
    ("de", {"do_play": "{card} spielen", "do_cut": "bei {n} abheben", "do_take": "die gezeigte Karte nehmen",
            "do_keep": "die gezeigte Karte liegen lassen", "do_swap": "nach einem Schlagwechsel fragen",
            "do_bessere": "nach Bessere fragen", "ask_swap": "Schlagwechsel", "ask_bessere": "Bessere",
            "ask_schadet": "Schadet's", "say_yes": "ja", "say_no": "nein"}),
    ("en", {"do_play": "play {card}", "do_cut": "cut at {n}", "do_take": "take the card shown",
            "do_keep": "leave the card shown", "do_swap": "ask for a Schlagwechsel", "do_bessere": "ask for Bessere",
            "ask_swap": "Schlagwechsel", "ask_bessere": "Bessere", "ask_schadet": "Schadet's", "say_yes": "yes",
            "say_no": "no"}),
    ("zh", {"do_play": "出 {card}", "do_cut": "切 {n} 张", "do_take": "拿切牌时看到的牌",
            "do_keep": "不拿切牌时看到的牌", "do_swap": "请求 Schlagwechsel", "do_bessere": "请求 Bessere",
            "ask_swap": "Schlagwechsel",
            "ask_bessere": "Bessere", "ask_schadet": "Schadet's", "say_yes": "是", "say_no": "否"}),
):
    TEXT[_lang].update(_words)

# ---- the card at the cut that is no Kritischer: taking it is a bluff (docs/rules.md 5.8), said before, not only after
TEXT["de"]["schlecken_bluff"] = "kein Kritischer: Nehmen ist ein Bluff (2 Punkte für die anderen, spielst du keinen)"
TEXT["en"]["schlecken_bluff"] = "no Kritischer: taking it is a bluff (2 points to the others if you play none)"
TEXT["zh"]["schlecken_bluff"] = "不是 Kritische：拿它是虚张声势（若你没出 Kritische，对方得 2 分）"

# ---- the host's [x] N and [m] N M as typed so far, on the message line (nothing showed till the seats moved)
TEXT["de"]["lobby_typed"] = "{keys} … (Platznummern; jede andere Taste bricht ab)"
TEXT["en"]["lobby_typed"] = "{keys} … (seat numbers; any other key cancels)"
TEXT["zh"]["lobby_typed"] = "{keys} …（座位号；按其他键取消）"

# ---- every other reason in words (a German or Chinese screen showed the host's English sentence): one block
for _reason, _said in MORE_REASONS.items():
    for _lang, _text in zip(("en", "de", "zh"), _said, strict=True):
        REASONS[_lang].setdefault(_reason, _text)

# ---- a bot's marker after its name, in the screen's language (the roster's name ends " (bot)"): one block
for _lang, _mark in (("de", " (Bot)"), ("en", " (bot)"), ("zh", "（机器人）")):
    TEXT[_lang]["bot_mark"] = _mark
# (a Chinese refusal read "不允许: …" with a Latin colon between Chinese clauses)
for _lang, _colon in (("de", ": "), ("en", ": "), ("zh", "：")):
    TEXT[_lang]["colon"] = _colon
# a word set beside a name: "Anna (du)", "Anna（你）" (a Chinese screen read "Anna (你)" and "(空)" with Latin brackets)
for _lang, _aside in (("de", "{name} ({text})"), ("en", "{name} ({text})"), ("zh", "{name}（{text}）")):
    TEXT[_lang]["aside"] = _aside
# a verified record's note at the match's end: an abandoned match read "deal check FAILED: the host ended the match
# at hand 3, 5:0 (host-shutdown); it knew every deal", in English on every screen
for _lang, _words in (
    ("de", {"check_abandoned": "der Host hat die Partie vorzeitig beendet",
            "check_disputed-claimed": "du hast Einspruch gegen den Host erhoben"}),
    ("en", {"check_abandoned": "the host ended the match early",
            "check_disputed-claimed": "you disputed what the host did"}),
    ("zh", {"check_abandoned": "主机提前结束了比赛", "check_disputed-claimed": "你对主机的做法提出了异议"}),
):
    TEXT[_lang].update(_words)
# ---- the match's end says which side is the reader's (a newcomer read "Match over: Team B wins" without knowing)
for _lang, _words in (
    ("de", {"your_side_lost": "deine Seite hat verloren", "you_lost": "du hast verloren"}),
    ("en", {"your_side_lost": "your side lost", "you_lost": "you lost"}),
    ("zh", {"your_side_lost": "你方输了", "you_lost": "你输了"}),
):
    TEXT[_lang].update(_words)
# ---- [p] at a new hand's first trick shows the last trick of the hand before, labelled with its hand
TEXT["de"]["last_trick_of"] = "Letzter Stich von Hand {hand}"
TEXT["en"]["last_trick_of"] = "Last trick of hand {hand}"
TEXT["zh"]["last_trick_of"] = "第 {hand} 手的最后一墩"
# ---- the lobby's keys line: the keys that work there ("v log · p last trick" did nothing in the lobby; the log
# holds the table talk)
TEXT["de"]["lobby_hint"] = "? Hilfe · t sagen · v Gesagtes · q gehen"
TEXT["en"]["lobby_hint"] = "? help · t talk · v what was said · q leave"
TEXT["zh"]["lobby_hint"] = "? 帮助 · t 聊天 · v 聊天记录 · q 离开"
# the cards of a trick one after the other ("第 1 墩：Loisl ♦10, Resi ♥9" had a Latin comma)
for _lang, _sep in (("de", ", "), ("en", ", "), ("zh", "，")):
    TEXT[_lang]["list_sep"] = _sep

# ---- the Chinese words that were missing (the screen showed English: the Bessere and Schadet's questions, the
# match's summary and the log's title): one block
TEXT["zh"].update({
    "asks_bessere": "{seat} 问：两位叫牌者都换新牌（Bessere）？",
    "asks_schadet": "{seat} 问：schadet's（对我们有害吗）？",
    "schlecken_keep": "切牌时你看到 {card}：你不能拿 · [n] 不拿",
    "do_schadet": "schadet?",
    "check_running": "检查中 …",
    "summary": "本场比赛", "col_hand": "手", "col_dealer": "发牌者", "col_announced": "Schlag / Trumpf",
    "col_won": "赢家", "col_how": "方式", "col_points": "分", "final_score": "最终比分",
    "own_check": "你自己对记录的检查", "record": "记录", "score_so_far": "你离开时的比分",
    "log_title": "比赛记录（↑ ↓ PgUp PgDn 翻页，v 或 Esc 关闭）",
    "not_over": "比赛还没结束（机器人替你打；再运行 watten-join 即可回到座位）",
})
# ---- the step timeout in the signed header (a seat refuses one under its floor, 5 s: `short-step-timeout`, the seat's
# own reason, never a host refusal, so a line of the screen rather than one of the REASONS): one block, kept together
TEXT["de"]["short_step_timeout"] = ("Der Host verlangt {seconds} s Zeitgrenze für Austeil-Schritte, unter 5 s: ein Bot "
                                    "könnte für dich spielen, bevor dein Programm antworten kann. Nichts "
                                    "unterschrieben; der Host muss mindestens 5 s (oder 0: keine Grenze) nehmen.")
TEXT["en"]["short_step_timeout"] = ("The host asks for a deal-step timeout of {seconds} s, under 5 s: a bot could "
                                    "take your seat before your client can answer. Nothing signed; the host must use "
                                    "at least 5 s (or 0: no limit).")
TEXT["zh"]["short_step_timeout"] = ("主机要求的发牌步骤时限为 {seconds} 秒，不到 5 秒："
                                    "你的客户端还来不及应答，机器人就可能替你出牌。"
                                    "未签署任何内容；主机须至少设 5 秒（或 0：不限时）。")
