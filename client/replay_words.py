"""`watten-replay`'s own words in German, English and Chinese (the table's words are client/i18n.py's)."""

from __future__ import annotations

REPLAY: dict[str, dict[str, str]] = {
    "en": {
        "cards": "Cards (as far as the record shows them)", "stand_in": " (the stand-in, for a seat away)",
        "sealed": "▒▒ sealed: a trustless card nobody opened",
        "verified": "verified ✓", "failed": "FAILED", "abandoned": "abandoned (every deal verified)",
        "disputed-proven": "DISPUTED (proven): the host's own signatures contradict it",
        "disputed-claimed": "DISPUTED (claimed by the record's owner; otherwise verified)",
        "record": "Record", "plays": "{who} plays {card}: {name}", "step": "Step {at}/{of}", "hand": "hand {hand}",
        "start": "the table before the first move",
        "end": "the end of the record", "stopped": "the record ends here: the match went no further",
        "failed_here": "the record fails at envelope {n}: the replay stops here",
        "keys": "→ next · ← back · ] [ trick · PgDn PgUp hand · Home End · ? help · q quit",
        "help": "watten-replay: a recorded match, move by move\n\n"
                "  → or n        the next move\n  ← or b        the move before\n"
                "  ] and [       the next / previous trick\n  PgDn and PgUp the next / previous hand\n"
                "  Home and End  the first / last move\n  ? or Esc      this help\n  q             quit\n\n"
                "Every seat's cards are shown as far as the record reveals them: a verified deal's every card, "
                "recomputed from the seeds; a trustless deal's opened cards (▒▒: never opened). The first line "
                "is watten-verify's verdict on the record.",
    },
    "de": {
        "cards": "Karten (soweit die Aufzeichnung sie zeigt)", "stand_in": " (der Vertreter, der Platz war weg)",
        "sealed": "▒▒ versiegelt: eine Karte des vertrauenslosen Gebens, die niemand geöffnet hat",
        "verified": "geprüft ✓", "failed": "FEHLERHAFT", "abandoned": "abgebrochen (jedes Geben geprüft)",
        "disputed-proven": "STRITTIG (bewiesen): die eigenen Unterschriften des Hosts widersprechen ihm",
        "disputed-claimed": "STRITTIG (vom Besitzer der Aufzeichnung behauptet; sonst geprüft)",
        "record": "Aufzeichnung", "plays": "{who} spielt {card}: {name}", "step": "Zug {at}/{of}",
        "hand": "Hand {hand}", "start": "der Tisch vor dem ersten Zug",
        "end": "das Ende der Aufzeichnung", "stopped": "die Aufzeichnung endet hier: weiter ging die Partie nicht",
        "failed_here": "die Aufzeichnung scheitert an Umschlag {n}: die Wiedergabe endet hier",
        "keys": "→ vor · ← zurück · ] [ Stich · Bild↓ Bild↑ Hand · Pos1 Ende · ? Hilfe · q beenden",
        "help": "watten-replay: eine aufgezeichnete Partie, Zug für Zug\n\n"
                "  → oder n        der nächste Zug\n  ← oder b        der Zug davor\n"
                "  ] und [         der nächste / vorige Stich\n  Bild↓ und Bild↑ die nächste / vorige Hand\n"
                "  Pos1 und Ende   der erste / letzte Zug\n  ? oder Esc      diese Hilfe\n  q               beenden\n\n"
                "Die Karten jedes Platzes, soweit die Aufzeichnung sie zeigt: beim geprüften Geben jede Karte, aus "
                "den Seeds nachgerechnet; beim vertrauenslosen die geöffneten (▒▒: nie geöffnet). Die erste Zeile "
                "ist das Urteil von watten-verify.",
    },
    "zh": {
        "cards": "手牌（记录所显示的）", "stand_in": "（代打：该座位离开）",
        "sealed": "▒▒ 密封：无信任发牌中从未打开的牌",
        "verified": "已验证 ✓", "failed": "验证失败", "abandoned": "已中止（每次发牌均已验证）",
        "disputed-proven": "有争议（已证明）：主机自己的签名与其矛盾",
        "disputed-claimed": "有争议（记录所有者声称；其余已验证）",
        "record": "记录", "plays": "{who} 出 {card}：{name}", "step": "第 {at}/{of} 步", "hand": "第 {hand} 手",
        "start": "第一步之前的牌桌",
        "end": "记录结束", "stopped": "记录到此结束：比赛没有继续",
        "failed_here": "记录在信封 {n} 处验证失败：回放到此为止",
        "keys": "→ 下一步 · ← 上一步 · ] [ 墩 · PgDn PgUp 手 · Home End · ? 帮助 · q 退出",
        "help": "watten-replay：逐步回放一场记录的比赛\n\n"
                "  → 或 n        下一步\n  ← 或 b        上一步\n  ] 和 [        下一墩 / 上一墩\n"
                "  PgDn 和 PgUp  下一手 / 上一手\n  Home 和 End   第一步 / 最后一步\n  ? 或 Esc      帮助\n"
                "  q             退出\n\n每个座位的牌按记录所能显示的展示：验证发牌的每张牌都由种子重算；"
                "无信任发牌只显示已打开的牌（▒▒：从未打开）。第一行是 watten-verify 对记录的结论。",
    },
}


def said(lang: str, key: str) -> str:
    return REPLAY.get(lang, REPLAY["en"]).get(key) or REPLAY["en"][key]
