"""The views of the Tokens, Step through merges and Compare pages for a SentencePiece or word-BPE
tokenizer (the sidebar's family, ``ui.kit.families``); its pieces
(``ui.kit.family_tokens``) are drawn by ``ui.kit.tokens_html``. Every derived list goes through the session's one cache
(``state.derived``)."""

from __future__ import annotations

from collections import Counter

import pandas as pd
import streamlit as st

from bpe_core.sentencepiece import SentencePieceBPE
from bpe_core.word_bpe import CLIPWordBPE, WordBPE
from ui.kit.escape import md_escape
from ui.kit.families import family_of, family_title
from ui.kit.family_tokens import (
    after_merges,
    family_pieces,
    merge_tree,
    merges_made,
    piece_text,
    same_ids,
    tree_lines,
)
from ui.kit.state import derived, projector_mode, tokenizer_label
from ui.kit.tokens_html import MAX_IDS, cap_note, token_counts, tokens_html

WHAT_MARKS = {
    "byte-level": "Byte-level BPE as its file's own tool reads it (mistral-common's ids for a "
                  "tekken.json): a part of a character is drawn as its bytes. Hover a token for "
                  "its id.",
    "sentencepiece": "▁ marks a space (SentencePiece writes every space so); a piece such as "
                     "<0xE4> is one byte of a character no piece holds (byte fallback). Hover "
                     "a piece for its id.",
    "word": "Words are cut at spaces first, and a space is no token: </w> marks the end of a "
            "word, as the merges spell it. subword-nmt gives pieces, not ids.",
}


def what_marks(tok: object) -> str:
    """What the drawn marks of ``tok``'s pieces mean (CLIP's word BPE over bytes has ids)."""
    if isinstance(tok, CLIPWordBPE):
        return ("Words are cut first, and a space is no token: </w> marks the end of a word, as "
                "CLIP's merges spell it; a part of a character is drawn as its bytes. Hover a "
                "piece for CLIPTokenizer's id.")
    return WHAT_MARKS[family_of(tok)]


def no_merge_order(tok: object, view: str) -> bool:
    """Whether ``view`` (Step through merges, the Merge forest) cannot draw ``tok``'s merges (a
    CLIP merges file, a tekken.json: only SentencePiece models and subword-nmt codes so far);
    if so, it says so by name, with the pages that show it."""
    if isinstance(tok, (SentencePieceBPE, WordBPE)):
        return False
    st.info(md_escape(f"The sidebar's tokenizer ({tokenizer_label(plain=True)}, "
                      f"{family_title(tok)} BPE) is a {type(tok).__name__}: {view} draws the "
                      "merges of bpe_core's byte-level tokenizers, SentencePiece models and "
                      "subword-nmt codes only so far. The Tokens and Compare with GPT pages "
                      "show it."))
    return True


def pieces_of(tok: object, text: str) -> list:
    """The text's pieces under ``tok``, kept in the session's cache."""
    return derived("family pieces", tok, text, lambda: family_pieces(tok, text), by_rule=False)


def _draw_pieces(pieces: list, *, ids: bool = False, name: str = "Tokens") -> None:
    body, missing = tokens_html(pieces, ids=ids, large=projector_mode(), name=name)
    st.html(body)
    note = cap_note(len(pieces) - missing, len(pieces))
    if note:
        st.caption(note)


def tokens_view(tok: object, text: str) -> None:
    """The Tokens page for a SentencePiece or word-BPE tokenizer: counts, the pieces drawn as
    what they are, and the ids (SentencePiece's)."""
    pieces = pieces_of(tok, text)
    for col, (label, value) in zip(st.columns(4), token_counts(text, pieces).items(),
                                   strict=True):
        col.metric(label, value)
    st.caption(f"Tokenizer: {tokenizer_label()} · {md_escape(what_marks(tok))}")
    has_ids = not isinstance(tok, WordBPE)
    ids = st.toggle("Ids instead of text", key="tokens_family_ids", disabled=not has_ids)
    _draw_pieces(pieces, ids=ids and has_ids)
    fallback = sum(p.kind == "byte" for p in pieces)
    if fallback:
        st.caption(f"{fallback:,} pieces are bytes of characters no piece holds (byte fallback).")
    if has_ids:
        with st.expander(f"Token ids ({len(pieces):,})"):
            st.code(", ".join(str(p.id) for p in pieces[:MAX_IDS]), language=None,
                    wrap_lines=True)
            note = cap_note(min(len(pieces), MAX_IDS), len(pieces), "ids")
            if note:
                st.caption(note)
    else:
        with st.expander(f"As subword-nmt writes it ({len(pieces):,} pieces)"):
            st.code(derived("family segmentation", tok, text, lambda: tok.apply(text),
                            by_rule=False)[:200_000], language=None, wrap_lines=True)


def steps_view(tok: object, text: str) -> None:
    """Step through merges for a SentencePiece or word-BPE tokenizer: the text's pieces after
    the first k merges (word BPE: its first k merges, as ``apply_bpe --merges k``;
    SentencePiece: its first k merged pieces, in the order training chose them)."""
    if no_merge_order(tok, "Step through merges"):
        return
    made = derived("family merges", tok, None, lambda: merges_made(tok))
    total = len(made)
    if total == 0:
        st.info("This tokenizer learned no merge: every piece is one character.")
        _draw_pieces(pieces_of(tok, text))
        return
    st.caption(f"Tokenizer: {tokenizer_label()} · {total:,} merges")
    k = st.slider("Merges applied", 0, total, total, key="family_step",
                  help="The text's pieces with only the first k merges learned.")
    pieces = derived(("family step", k), tok, text, by_rule=False,
                     make=lambda: same_ids(family_pieces(after_merges(tok, k), text), tok))
    if k:
        if isinstance(tok, WordBPE):
            a, b = tok.merges[k - 1]
            st.markdown(f"Merge {k:,} of {total:,}: “{md_escape(a)}” + “{md_escape(b)}” → "
                        f"“{md_escape(made[k - 1])}”")
        else:
            st.markdown(f"Merge {k:,} of {total:,}: the piece “{md_escape(made[k - 1])}”")
        new = sum(piece_text(p) == made[k - 1] for p in pieces)
        st.caption(f"{len(pieces):,} pieces after {k:,} merges; {new:,} made by merge {k:,}.")
    else:
        st.caption(f"{len(pieces):,} pieces before any merge: one a character.")
    _draw_pieces(pieces, name=f"Tokens after {k:,} merges")


MAX_FOREST_PIECES = 500  # the text's merged pieces offered, the most used first


def forest_view(tok: object, text: str) -> None:
    """The Merge forest for a SentencePiece or word-BPE tokenizer: a piece of the text as the
    tree of the merges that made it, and the text's merged pieces with their merge numbers."""
    if no_merge_order(tok, "the Merge forest"):
        return
    made = derived("family merges", tok, None, lambda: merges_made(tok))
    number = {p: i + 1 for i, p in reversed(list(enumerate(made)))}
    uses = Counter(t for t in map(piece_text, pieces_of(tok, text)) if t in number)
    st.caption(f"Tokenizer: {tokenizer_label()}")
    if not uses:
        st.info("No piece of this text was made by a merge: every piece is one character.")
        return
    offered = [p for p, _ in uses.most_common(MAX_FOREST_PIECES)]
    st.header("Piece tree")
    piece = st.selectbox("A piece of the text (the most used first)", offered,
                         key="forest_family_piece",
                         format_func=lambda p: f"{p}  (merge {number[p]:,}, {uses[p]:,}×)")
    if piece not in number:  # (the text or the tokenizer changed under the choice)
        piece = offered[0]
    tree = derived(("family tree", piece), tok, None, lambda: merge_tree(tok, piece, made))
    st.code("\n".join(tree_lines(tree)), language=None)
    if isinstance(tok, WordBPE):
        st.caption("Each merge joins the two symbols written under it; </w> ends a word.")
    else:
        st.caption("A SentencePiece model keeps pieces, not pairs: under each piece, the pieces "
                   "its encoder cuts it into with only the merges before it. ▁ is a space.")
    st.header("The text's merged pieces")
    frame = pd.DataFrame({"merge": [number[p] for p in offered], "piece": offered,
                          "uses in the text": [uses[p] for p in offered]})
    st.dataframe(frame.sort_values("merge"), hide_index=True, key="forest_family_table")


def beside_gpt(tok: object, text: str) -> None:
    """Compare with GPT: the family's pieces, before the GPT tokenizers' rows."""
    pieces = pieces_of(tok, text)
    st.subheader(f"Yours: {family_title(tok)}")
    st.metric("Tokens", f"{len(pieces):,}")
    st.caption(md_escape(what_marks(tok)))
    _draw_pieces(pieces, name=f"Your tokens ({tokenizer_label(plain=True)})")

