"""Join codes and nicknames as people type them (issue 44). No Streamlit here; ui/classroom/rooms.py
re-exports every name (``from ui.classroom.rooms import normal_code`` keeps working).

- A join code: 8 characters from 31 that cannot be misread on a projector (no 0/O, 1/I/L). A typed
  code is folded with NFKC first (``５ＨＭＤ２ＧＳＴ``, typed with an IME left on, is ``5HMD2GST``),
  then upper-cased, its spaces and dashes dropped.
- A nickname is counted in what a person sees: grapheme clusters (the ``regex`` module's ``\\X``),
  so that 👨‍👩‍👧‍👦 (seven code points, eleven UTF-16 units) is one, and a cut never splits one.
  Control and format characters that stand alone (right-to-left overrides, zero-width spaces)
  are dropped; those inside a cluster that joins what a person sees (the zero-width joiner of an
  emoji sequence, a flag's tag characters) are kept. A longer name is cut at MAX_NICKNAME
  graphemes (``cut_nickname`` says whether it was, so the page can say so).
"""

from __future__ import annotations

import secrets
import unicodedata

import regex

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
MAX_NICKNAME = 24  # graphemes: what a person sees as characters
MAX_TYPED_NICKNAME = 400  # characters read of a pasted nickname at all (the field's own limit)
_DASHES = "-‐‑‒–—―−"
_GRAPHEME = regex.compile(r"\X")


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(typed: str) -> str | None:
    """A typed join code in its stored form (NFKC, upper case, no spaces or dashes), or None when
    it cannot be one.

    >>> normal_code(" abcd-efgh "), normal_code("ABCD"), normal_code("ABCD-EFG0")
    ('ABCDEFGH', None, None)
    >>> normal_code("５ＨＭＤ２ＧＳＴ"), normal_code("5hmd 2gst")
    ('5HMD2GST', '5HMD2GST')
    """
    if not isinstance(typed, str):
        return None
    folded = unicodedata.normalize("NFKC", typed[:100]).upper()
    code = "".join(c for c in folded if not c.isspace() and c not in _DASHES)
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        return None
    return code


def show_code(code: str) -> str:
    """``ABCD-EFGH``: the code as the projector shows it."""
    return code[:4] + "-" + code[4:]


def _visible(cluster: str) -> str:
    """A grapheme cluster without its control characters; "" for a cluster of nothing visible
    (a lone format character: a bidi override, a zero-width space)."""
    kept = [c for c in cluster if c.isspace() or unicodedata.category(c) not in ("Cc", "Cs",
                                                                              "Co", "Cn")]
    if all(unicodedata.category(c) == "Cf" for c in kept if not c.isspace()):
        return " " if any(c.isspace() for c in kept) else ""
    return "".join(kept)


def cut_nickname(name: str | None) -> tuple[str, bool]:
    """(the nickname as stored, whether it was cut at MAX_NICKNAME graphemes).

    >>> cut_nickname("👨\\u200d👩\\u200d👧\\u200d👦 Ann")
    ('👨\\u200d👩\\u200d👧\\u200d👦 Ann', False)
    >>> cut_nickname("x" * 30)
    ('xxxxxxxxxxxxxxxxxxxxxxxx', True)
    """
    if not name or not isinstance(name, str):
        return "", False
    clusters = [_visible(g) for g in _GRAPHEME.findall(name[:MAX_TYPED_NICKNAME])]
    folded = " ".join("".join(clusters).split())
    graphemes = _GRAPHEME.findall(folded)
    cut = len(graphemes) > MAX_NICKNAME or len(name) > MAX_TYPED_NICKNAME
    return "".join(graphemes[:MAX_NICKNAME]).rstrip(), cut


def clean_nickname(name: str | None) -> str:
    """A nickname as stored: lone control and format characters dropped, spaces folded, at most
    MAX_NICKNAME graphemes. It is still user text: shown escaped, always.

    >>> clean_nickname("  <b>Ann</b>\\u202e\\n ")
    '<b>Ann</b>'
    """
    return cut_nickname(name)[0]
