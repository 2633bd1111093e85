"""Text that is always safe to encode, hash, embed and print.

Python strings may hold what UTF-8 cannot encode: lone surrogates, which is how Python decodes bytes that
are not UTF-8 (command-line arguments, file names, ``json.loads("\\ud800")``), and how a broken LM reply
or tokenizer can hand them on. One such character made ``str.encode()`` raise deep in the run (the
retrieval cache key, the trace's request key, the embedder), so everything on the run path goes through
the helpers here. A terminal is another consumer with its own hazards: corpus text or an LM reply that
holds escape sequences can clear the screen, recolour it or ring the bell, so what the command line
prints is passed through :func:`printable`.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")
# ANSI/VT escape sequences: CSI (ESC [ or 8-bit 0x9b, parameters, final byte), OSC (ESC ] or 0x9d, up to
# BEL or ST), other two-byte escapes.
_ESCAPE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[@-Z\\-_]"
)
# C0 and C1 control characters except tab and newline, DEL, and the bidirectional overrides and
# isolates that can make printed text read differently from what it is.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def has_lone_surrogates(text: str) -> bool:
    """Whether ``text`` holds a code point that UTF-8 cannot encode (a lone surrogate)."""
    return _SURROGATE.search(text) is not None


def first_lone_surrogate(text: str) -> int | None:
    """Index of the first lone surrogate in ``text``, or ``None``."""
    match = _SURROGATE.search(text)
    return None if match is None else match.start()


def scrub_surrogates(text: str) -> str:
    """``text`` with surrogate pairs joined into their characters and lone surrogates replaced by U+FFFD."""
    if not has_lone_surrogates(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def utf8_bytes(text: str) -> bytes:
    """UTF-8 bytes of any Python string, lone surrogates included (for hashing: keys stay distinct)."""
    return text.encode("utf-8", "surrogatepass")


def printable(text: str) -> str:
    """``text`` as it may reach a terminal: escape sequences and control characters removed (tab and
    newline kept; a lone carriage return becomes a newline), lone surrogates replaced by U+FFFD."""
    text = scrub_surrogates(text)
    text = _ESCAPE.sub("", text).replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", text)


_JSON_UNSAFE = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal_json(json_text: str) -> str:
    """JSON text with the characters JSON leaves raw but a terminal obeys (DEL, C1 controls such as the
    8-bit CSI, bidirectional overrides) written as ``\\uXXXX`` escapes: the same JSON value, inert on screen.
    (JSON already escapes C0 controls, ESC included; these characters can only occur inside strings.)"""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json_text)


def one_line(text: str) -> str:
    """:func:`printable` on one line: newlines and tabs become spaces."""
    return " ".join(printable(text).split())


__all__ = ["first_lone_surrogate", "has_lone_surrogates", "one_line", "printable", "scrub_surrogates", "terminal_json",
           "utf8_bytes"]
