"""The terminal table's colours (prompt-toolkit style classes), shared by the live table and `watten-replay`."""

from __future__ import annotations

from prompt_toolkit.styles import Style

STYLE = Style.from_dict({
    "title": "bold reverse", "fingerprint": "bold", "ok": "ansigreen bold", "error": "ansired bold",
    "dim": "ansibrightblack", "heading": "bold underline", "active": "ansiyellow bold", "you": "bold",
    "alert": "ansimagenta bold", "label": "", "value": "bold", "score": "", "key": "ansicyan",
    "suit.h": "ansired", "suit.s": "ansiyellow", "suit.e": "ansibrightblack", "suit.l": "ansigreen",
    "seat": "",
})
