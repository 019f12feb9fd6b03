"""Players that see only their own seat's view: they choose among the legal actions the host offers.

`Bot.choose(view)` takes a `BotView`-like object (what a seat may see: its hand, the public state and
its legal actions) and never anything else, so the same bot runs inside the host and as a separate
`watten-join --bot` process.
"""

from __future__ import annotations

from .base import LEVELS, Bot, BotView, make_bot

__all__ = ["LEVELS", "Bot", "BotView", "make_bot"]
