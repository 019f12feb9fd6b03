"""Every other refusal reason in words, English, German and Chinese: what client/i18n.py's REASONS did not say.

A person sees a reason's words where the host refuses a request of theirs ("Not allowed: …") and where their own
client catches the host breaking the protocol (the header's "deal check FAILED: …"). Without words the host's own
English sentence (or this seat's) was shown, in every language: found in the newcomers' playtests (`wrong-series`,
`second-header`). tests/test_reasons.py holds every Reason to words in every language.
"""

from __future__ import annotations

# reason -> (English, German, Chinese)
MORE_REASONS: dict[str, tuple[str, str, str]] = {
    # -- the rules (what a seat's move may be)
    "bad-cut": ("Cut between 4 cards and all but 4.", "Abheben: mindestens 4 Karten, höchstens alle bis auf 4.",
                "切牌：至少 4 张，最多留下 4 张。"),
    "bad-schlag": ("That is no Schlag at this table.", "Diesen Schlag gibt es an diesem Tisch nicht.",
                   "这张桌子没有这个 Schlag。"),
    "bad-trump": ("That is no trump suit.", "Diese Trumpffarbe gibt es nicht.", "没有这个 Trumpf 花色。"),
    "blind-not-trustless": ("Blind cannot be dealt trustless.", "Blind geht nicht mit vertrauenslosem Geben.",
                            "Blind 不能用无需信任发牌。"),
    "card-seen-twice": ("The same card cannot lie at two places.", "Dieselbe Karte kann nicht an zwei Stellen liegen.",
                        "同一张牌不能在两个位置。"),
    "match-not-over": ("The match is not over yet.", "Die Partie ist noch nicht vorbei.", "比赛还没结束。"),
    "match-over": ("The match is over.", "Die Partie ist vorbei.", "比赛已经结束。"),
    "no-concede": ("Conceding is not part of these rules.", "Aufgeben gibt es bei diesen Regeln nicht.",
                   "这套规则不能认输。"),
    "no-deck": ("Not now: the cards are not shuffled yet.", "Jetzt nicht: die Karten sind noch nicht gemischt.",
                "现在不行：牌还没洗好。"),
    "no-deck-needed": ("The table needs no deck now.", "Der Tisch braucht jetzt kein Deck.", "牌桌现在不需要牌。"),
    "no-maschine": ("A Maschine scores nothing at this table.", "Eine Maschine zählt an diesem Tisch nichts.",
                    "这张桌子 Maschine 不计分。"),
    "no-partner": ("You have no partner to signal to.", "Du hast keinen Partner zum Deuten.", "你没有搭档可以打暗号。"),
    "no-position": ("A card is played from its place in the deck.", "Eine Karte wird von ihrem Platz im Deck gespielt.",
                    "出牌须附上它在牌堆中的位置。"),
    "no-raise": ("There is no raise to answer.", "Es gibt kein Bieten zu beantworten.", "没有需要回应的加注。"),
    "no-signals": ("Signals are off at this table.", "An diesem Tisch wird nicht gedeutet.", "这张桌子不能打暗号。"),
    "no-such-seat": ("There is no such seat.", "Diesen Platz gibt es nicht.", "没有这个座位。"),
    "not-a-maschine": ("Those cards are no Maschine.", "Diese Karten sind keine Maschine.", "这些牌不是 Maschine。"),
    "not-gespannt": ("Only a gespannt side may concede.", "Aufgeben darf nur eine gespannte Seite.",
                     "只有紧绷（gespannt）的一方可以认输。"),
    "not-in-deck": ("That card is not in this deck.", "Diese Karte ist nicht in diesem Deck.", "这副牌里没有这张牌。"),
    "not-your-position": ("That card was not dealt to you.", "Diese Karte wurde nicht dir gegeben.",
                          "这张牌不是发给你的。"),
    "nothing-to-open": ("You have no card to show now.", "Du musst jetzt keine Karte zeigen.", "你现在没有牌要亮。"),
    "opening-mismatch": ("That place in the deck holds another card.", "An dieser Stelle im Deck liegt eine andere "
                         "Karte.", "牌堆的这个位置是另一张牌。"),
    "own-raise": ("Only the other side answers a raise.", "Nur die andere Seite beantwortet ein Bieten.",
                  "加注只能由对方回应。"),
    "position-aside": ("That card was put aside at the Bessere.", "Diese Karte wurde bei der Bessere weggelegt.",
                       "这张牌在 Bessere 时被放到一边了。"),
    "position-played": ("That card was played already.", "Diese Karte ist schon gespielt.", "这张牌已经出过了。"),
    "schadet-pending": ("Your partner has not answered 'schadet?' yet.", "Dein Partner hat auf „Schadet's?“ noch "
                        "nicht geantwortet.", "搭档还没回答 schadet's?。"),
    "series-over": ("The series is over: a side has reached the Bummerl limit.", "Die Serie ist vorbei: eine Seite "
                    "hat die Bummerl-Grenze erreicht.", "系列赛结束：有一方已达到 Bummerl 上限。"),
    "settling": ("The hand is over: the cards it needs are being shown.", "Die Hand ist vorbei: die nötigen Karten "
                 "werden aufgedeckt.", "这一手已结束：正在亮出需要的牌。"),
    "wrong-positions": ("Show exactly the cards asked for.", "Zeige genau die verlangten Karten.",
                        "只亮出要求的那几张牌。"),
    # -- the deal's protocol, as the host refuses a message of this seat's client
    "bad-chain-head": ("Your client's message did not follow its last one; it catches up by itself.",
                       "Die Nachricht deines Programms passte nicht zur letzten; es holt das selbst nach.",
                       "你的客户端消息没有接上上一条；它会自动补上。"),
    "bad-envelope": ("Your client sent a message the host cannot read.", "Dein Programm hat eine Nachricht "
                     "geschickt, die der Host nicht lesen kann.", "你的客户端发送了主机无法读取的消息。"),
    "bad-opening": ("A card's opening does not match its seal.", "Das Aufdecken einer Karte passt nicht zu ihrem "
                    "Siegel.", "亮牌与它的承诺不符。"),
    "bad-payload": ("Your client sent a message the host cannot read.", "Dein Programm hat eine Nachricht "
                    "geschickt, die der Host nicht lesen kann.", "你的客户端发送了主机无法读取的消息。"),
    "bad-seat": ("That message names another seat.", "Diese Nachricht nennt einen anderen Platz.",
                 "这条消息指向另一个座位。"),
    "bad-signature": ("A signature does not verify.", "Eine Unterschrift stimmt nicht.", "签名验证失败。"),
    "commitment-mismatch": ("A card does not match its commitment.", "Eine Karte passt nicht zu ihrer Festlegung.",
                            "一张牌与它的承诺不符。"),
    "dealing": ("Not now: the cards are being dealt.", "Jetzt nicht: die Karten werden gerade ausgeteilt.",
                "现在不行：正在发牌。"),
    "game-started": ("The game has already started.", "Das Spiel hat schon begonnen.", "游戏已经开始了。"),
    "incomplete-opening": ("Not every card asked for was shown.", "Nicht alle verlangten Karten wurden gezeigt.",
                           "要求的牌没有全部亮出。"),
    "must-seal": ("You know that card: it is shared sealed, for one seat only.", "Du kennst diese Karte: sie wird "
                  "nur versiegelt für einen Platz geteilt.", "你知道这张牌：只能密封后分享给一个座位。"),
    "no-opening": ("The card's opening is missing.", "Das Aufdecken der Karte fehlt.", "缺少这张牌的亮牌。"),
    "not-asked": ("That card is not asked for here.", "Diese Karte ist hier nicht gefragt.", "这里不需要这张牌。"),
    "not-away": ("That seat is not away.", "Dieser Platz ist nicht weg.", "这个座位没有离开。"),
    "not-trustless": ("This table deals verified, not trustless.", "Dieser Tisch gibt geprüft, nicht vertrauenslos.",
                      "这张桌子是可验证发牌，不是无需信任发牌。"),
    "own-card": ("A seat never shares its own cards.", "Ein Platz teilt nie seine eigenen Karten.",
                 "座位从不分享自己的牌。"),
    "stale-envelope-seq": ("Your client was a step behind; it catches up by itself.", "Dein Programm war einen "
                           "Schritt zurück; es holt das selbst nach.", "你的客户端落后了一步；它会自动补上。"),
    "stand-in-mismatch": ("The stand-in's move is not the one the rules give.", "Der Zug des Vertreters ist nicht der "
                          "von den Regeln vorgegebene.", "代打的出牌与规则给出的不符。"),
    "stood-in": ("A bot plays your seat while you are away: reconnect first.", "Ein Bot spielt deinen Platz, solange "
                 "du weg bist: erst neu verbinden.", "你离开期间由机器人代打：请先重新连接。"),
    "unexpected-message": ("Not now.", "Jetzt nicht.", "现在不行。"),
    "unknown-type": ("Your client sent a message this host does not know; update one of them.", "Dein Programm hat "
                     "eine Nachricht geschickt, die dieser Host nicht kennt; eines von beiden aktualisieren.",
                     "你的客户端发送了主机不认识的消息；请更新其中一方。"),
    "wrong-game": ("That message belongs to another game.", "Diese Nachricht gehört zu einem anderen Spiel.",
                   "这条消息属于另一局。"),
    "wrong-hand": ("That message belongs to another hand.", "Diese Nachricht gehört zu einer anderen Hand.",
                   "这条消息属于另一手。"),
    "wrong-hash": ("A fingerprint in the message does not match.", "Ein Fingerabdruck in der Nachricht passt nicht.",
                   "消息中的指纹不符。"),
    "wrong-seat": ("That message is not this seat's to send.", "Diese Nachricht darf dieser Platz nicht schicken.",
                   "这条消息不该由这个座位发送。"),
    # -- the trustless deal's maths
    "invalid-point": ("A value of the trustless deal is no valid point.", "Ein Wert des vertrauenslosen Gebens ist "
                      "kein gültiger Punkt.", "无需信任发牌中的一个值不是有效的点。"),
    "non-canonical-scalar": ("A value of the trustless deal is not written the one right way.", "Ein Wert des "
                             "vertrauenslosen Gebens ist nicht richtig geschrieben.",
                             "无需信任发牌中的一个值写法不规范。"),
    "wrong-context": ("That step belongs to another game, hand or seat.", "Dieser Schritt gehört zu einem anderen "
                      "Spiel, einer anderen Hand oder einem anderen Platz.", "这一步属于另一局、另一手或另一个座位。"),
    "out-of-turn": ("Not now: that step of the deal is not due.", "Jetzt nicht: dieser Schritt des Gebens ist nicht "
                    "dran.", "现在不行：还没到发牌的这一步。"),
    "conflicting-message": ("A second, different key from the same seat.", "Ein zweiter, anderer Schlüssel vom "
                            "selben Platz.", "同一座位发来了第二个不同的密钥。"),
    "bad-shuffle-proof": ("A shuffle's proof does not verify.", "Der Nachweis eines Mischens stimmt nicht.",
                          "洗牌证明验证失败。"),
    "bad-decryption-proof": ("A card's unlocking proof does not verify.", "Der Nachweis beim Aufdecken einer Karte "
                             "stimmt nicht.", "解密证明验证失败。"),
    "degenerate-key": ("The joint key would hide nothing.", "Der gemeinsame Schlüssel würde nichts verbergen.",
                       "联合密钥什么也隐藏不了。"),
    "not-a-card": ("An unlocked card is no card of the deck.", "Eine aufgedeckte Karte gehört nicht zum Deck.",
                   "解密出的牌不是这副牌里的牌。"),
    # -- the table and its lobby
    "bad-nonce": ("The join's proof is malformed; update watten-join.", "Der Nachweis im Beitritt ist fehlerhaft; "
                  "aktualisiere watten-join.", "加入请求的证明格式错误；请更新 watten-join。"),
    "bad-public-key": ("The key in the join is malformed; update watten-join.", "Der Schlüssel im Beitritt ist "
                       "fehlerhaft; aktualisiere watten-join.", "加入请求中的密钥格式错误；请更新 watten-join。"),
    "bad-request": ("The host cannot read that request.", "Der Host kann diese Anfrage nicht lesen.",
                    "主机无法读取这个请求。"),
    "bad-setting": ("That is no setting of this table.", "Diese Einstellung gibt es an diesem Tisch nicht.",
                    "这张桌子没有这个设置。"),
    "bad-token": ("The host does not know your seat's token: join again.", "Der Host kennt den Schlüssel deines "
                  "Platzes nicht: tritt neu bei.", "主机不认识你座位的令牌：请重新加入。"),
    "game-not-started": ("The game has not started yet.", "Das Spiel hat noch nicht begonnen.", "游戏还没开始。"),
    "no-token": ("You hold no seat at this table: join first.", "Du hast keinen Platz an diesem Tisch: erst "
                 "beitreten.", "你在这张桌子没有座位：请先加入。"),
    "not-enough-players": ("Not enough players to start.", "Zu wenige Spieler zum Starten.", "玩家不够，不能开始。"),
    "not-supported": ("This table does not offer that.", "Das bietet dieser Tisch nicht an.", "这张桌子不支持这个。"),
    "protocol-version": ("The host and watten-join speak different versions: update the older one.", "Host und "
                         "watten-join sprechen verschiedene Versionen: das ältere aktualisieren.",
                         "主机和 watten-join 的版本不同：请更新较旧的一方。"),
    "seat-taken": ("That seat is taken.", "Dieser Platz ist besetzt.", "这个座位已有人。"),
    "subscriber-lagging": ("Your connection fell behind; the client catches up by itself.", "Deine Verbindung ist "
                           "zurückgefallen; das Programm holt von selbst auf.", "你的连接落后了；客户端会自动追上。"),
    "table-full": ("The table is full.", "Der Tisch ist voll.", "牌桌已满。"),
    "unknown-table": ("The host has no such table.", "Diesen Tisch gibt es beim Host nicht.", "主机没有这张牌桌。"),
    # -- no refusal: the host's own failure, a call it does not offer
    "internal-error": ("The host failed (its fault, not yours); try again.", "Der Host hatte einen Fehler (nicht "
                       "deiner); versuche es noch einmal.", "主机出错（不是你的问题）；请再试一次。"),
    "unimplemented": ("This host does not offer that; update it.", "Das bietet dieser Host nicht an; aktualisiere ihn.",
                      "这个主机不提供这个功能；请更新它。"),
    # -- this seat's client catching the host breaking the protocol (shown after "deal check FAILED: ")
    "bad-abort": ("the host ended the match without a valid reason", "der Host hat die Partie ohne gültigen Grund "
                  "beendet", "主机无正当理由结束了比赛"),
    "bad-checkpoint": ("the host's checkpoint does not match the game", "der Zwischenstand des Hosts passt nicht zum "
                       "Spiel", "主机的检查点与对局不符"),
    "bad-deal-open": ("the host's opening of the deal does not match its seal", "das Aufdecken des Hosts passt "
                      "nicht zu seinem Siegel", "主机公开的发牌与它的封印不符"),
    "bad-deck-prepare": ("the host's prepared deck is wrong", "das vorbereitete Deck des Hosts ist falsch",
                         "主机准备的牌不对"),
    "bad-deck-sealed": ("the host's sealed deck is wrong", "das versiegelte Deck des Hosts ist falsch",
                        "主机封好的牌不对"),
    "bad-delivery": ("a card the host gave you does not match its seal", "eine Karte vom Host passt nicht zu ihrem "
                     "Siegel", "主机发给你的一张牌与封印不符"),
    "bad-key-reveal": ("the host's key does not match what it promised", "der Schlüssel des Hosts passt nicht zu "
                       "seinem Versprechen", "主机的密钥与它的承诺不符"),
    "bad-key-set": ("the host's set of keys is wrong", "die Schlüsselliste des Hosts ist falsch", "主机的密钥集不对"),
    "bad-relay": ("the host passed on a message that is wrong", "der Host hat eine falsche Nachricht weitergegeben",
                  "主机转发了一条错误的消息"),
    "bad-reveal": ("the host's reveal at the end does not match", "das Aufdecken des Hosts am Ende passt nicht",
                   "主机最后公开的内容不符"),
    "bad-sealed-share": ("a sealed share the host passed on is wrong", "ein versiegelter Anteil vom Host ist falsch",
                         "主机转发的密封份额不对"),
    "bad-share-request": ("the host asked for shares it should not", "der Host hat Anteile verlangt, die ihm nicht "
                          "zustehen", "主机索要了不该要的份额"),
    "card-commit-mismatch": ("a card does not match its commitment", "eine Karte passt nicht zu ihrer Festlegung",
                             "一张牌与它的承诺不符"),
    "chain-gap": ("the host left a gap in the game's chain", "der Host hat eine Lücke in der Kette des Spiels "
                  "gelassen", "主机在对局链中留下了空缺"),
    "chain-link": ("the game's chain is broken", "die Kette des Spiels ist unterbrochen", "对局链断了"),
    "deal-mismatch": ("the deal does not match what was sealed", "das Austeilen passt nicht zum Versiegelten",
                      "发牌与封印的内容不符"),
    "fork": ("the host showed two different games", "der Host hat zwei verschiedene Spielverläufe gezeigt",
             "主机展示了两个不同的对局"),
    "host-key-mismatch": ("the host signs with another key than before", "der Host unterschreibt mit einem anderen "
                          "Schlüssel als vorher", "主机使用了与之前不同的密钥签名"),
    "not-in-roster": ("a message names a seat that is not at the table", "eine Nachricht nennt einen Platz, den es "
                      "am Tisch nicht gibt", "消息中有不在牌桌上的座位"),
    "not-their-card": ("a card was played that its seat was not dealt", "eine Karte wurde gespielt, die der Platz nie "
                       "bekommen hat", "有人出了不是发给他的牌"),
    "played-twice": ("a card was played twice", "eine Karte wurde zweimal gespielt", "一张牌被出了两次"),
    "replay-mismatch": ("the host's game does not follow the rules", "der Spielverlauf des Hosts folgt nicht den "
                        "Regeln", "主机的对局过程不符合规则"),
    "score-mismatch": ("the host's score is wrong", "der Spielstand des Hosts ist falsch", "主机的比分不对"),
    "second-header": ("the host offered a second, different start for this game", "der Host hat für dieses Spiel "
                      "einen zweiten, anderen Anfang angeboten", "主机为这局提供了第二个不同的开局"),
    "seed-mismatch": ("the host's random values do not match its seal", "die Zufallswerte des Hosts passen nicht zu "
                      "seinem Siegel", "主机的随机值与它的封印不符"),
    "share-not-due": ("the host asked for a card's share the rules do not give it", "der Host hat einen Anteil "
                      "einer Karte verlangt, den die Regeln nicht vorsehen", "主机索要了规则不允许的牌份额"),
    "wrong-series": ("the host's new match does not follow the last one (its score or Bummerl)", "die neue Partie "
                     "des Hosts passt nicht zur letzten (Stand oder Bummerl)", "主机的新比赛与上一场接不上（比分或 "
                     "Bummerl）"),
    "short-step-timeout": ("the host asks for a deal-step timeout under 5 s", "der Host verlangt für Austeil-Schritte "
                           "eine Zeitgrenze unter 5 s", "主机要求的发牌步骤时限不到 5 秒"),
    "other-terms": ("the host's game has other rules than the table you joined", "das Spiel des Hosts hat andere "
                    "Regeln als der Tisch, an den du dich gesetzt hast", "主机的对局规则与你加入的牌桌不同"),
    "bot-not-host-run": ("the host's roster lets one of its bots reveal its game key after the people's",
                         "der Host lässt einen seiner Bots seinen Spielschlüssel erst nach denen der Leute zeigen",
                         "主机让它的一个机器人在玩家之后才公开游戏密钥"),
}
