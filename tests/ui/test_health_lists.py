"""ui/who_pays/health.py: the Vocabulary health page's lists, searches and tables, on small vocabularies
worked by hand."""

from __future__ import annotations

from collections import Counter

from bpe_core import GPT4_SPLIT_PATTERN, BasicTokenizer, RegexTokenizer, Tokenizer
from bpe_lab.who_pays.health import (
    HEALTH_KINDS,
    HEALTHY,
    NEVER_PRODUCED,
    PARTIAL_UTF8,
    STEPPING_STONE,
    TokenHealth,
    classify_tokens,
    vocabulary_defects,
)
from ui.forest.trees import vocab_order
from ui.who_pays import health as he


def aaab():
    tok = BasicTokenizer()
    tok.train("aaabdaaabac", 259)  # 256 aa, 257 aaa, 258 aaab
    return tok


def test_each_kind_is_listed_in_its_order():
    tok = BasicTokenizer()
    tok.train("in in in he he", 258)  # "in" and "n " tie: the pair seen first wins
    assert [tok.vocab[256], tok.vocab[257]] == [b"in", b"in "]
    # "in " 40 times (so "in" 40 times inside it), "in" once on its own; "a" 3, "b" and "c" 10
    counts = Counter({257: 40, 256: 1, 97: 3, 98: 10, 99: 10})
    view = he.health_view(tok, counts, vocabulary_defects(tok))
    assert list(view.ids) == list(HEALTH_KINDS)
    assert view.ids[STEPPING_STONE] == [256]  # 1 of 41 uses on its own
    # most used first, then by id; bytes used only inside longer tokens ("i", "n", " ") last
    assert view.ids[HEALTHY] == [257, 98, 99, 97, 32, 105, 110]
    assert view.ids[NEVER_PRODUCED][:3] == [0, 1, 2]  # by id
    assert view.ids[PARTIAL_UTF8] == list(range(128, 256))
    assert view.total == 258 and view.inside[256] == 40
    assert {k.kind: k.tokens for k in view.summary}[HEALTHY] == 7
    rows = he.view_rows(tok, view, [256, 257])
    assert rows == [r for r in classify_tokens(tok, counts) if r.id in (256, 257)]


def test_search_by_text_ignores_case_and_puts_an_exact_id_first():
    h, e, t, x = map(ord, "hetx")
    tok = Tokenizer(merges={(h, e): 256, (t, 256): 257, (x, ord("4")): 258, (258, ord("0")): 259})
    assert [tok.vocab[i] for i in range(256, 260)] == [b"he", b"the", b"x4", b"x40"]
    ids = [84, 116, 256, 257, 40, 259]  # T, t, he, the, "(", x40
    found, matched = he.find_health_rows(tok, ids, "TH", 10)
    assert found == [257] and matched == 1
    found, matched = he.find_health_rows(tok, ids, "t", 10)
    assert found == [84, 116, 257] and matched == 3
    found, matched = he.find_health_rows(tok, ids, " 40 ", 10)  # the id 40, then the text "40"
    assert found == [40, 259] and matched == 2
    found, matched = he.find_health_rows(tok, ids, "", 2)  # no search: the first ids, all counted
    assert found == [84, 116] and matched == 6
    found, matched = he.find_health_rows(tok, ids, "e", 1)  # capped at the limit, all counted
    assert found == [256] and matched == 2


def test_half_characters_are_found_by_their_bytes():
    tok = RegexTokenizer()
    tok.train("€€ €€", 257)
    assert tok.vocab[256] == b"\xe2\x82"
    ids = [200, 256]
    assert he.find_health_rows(tok, ids, "e2 82", 10, spelled=True) == ([256], 1)
    assert he.find_health_rows(tok, ids, "⟨C8", 10, spelled=True) == ([200], 1)
    assert he.find_health_rows(tok, ids, "e2 82", 10) == ([], 0)  # not spelled: text only


def test_the_vocabulary_s_kept_texts_give_the_same_matches():
    tok = RegexTokenizer()
    tok.train("the cat sat on the mat; the hat", 280)
    ids = list(tok.vocab)
    ordered = vocab_order(tok, "by id")
    for query in ("at", "TH", " ", "256", "2"):
        assert he.find_health_rows(tok, ids, query, 50, ordered=ordered) == he.find_health_rows(
            tok, ids, query, 50)


def test_the_table_spells_tokens_as_every_page_does():
    long = "é".encode() * 80  # 160 bytes: cut in the cell

    def row(idx, token, kind, count=0, inside=0, reason=""):
        return TokenHealth(idx, token, "", kind, count, inside, reason)

    frame = he.health_frame([row(256, b"\xe2\x82", PARTIAL_UTF8, 2, 7, "ends inside a character"),
                             row(257, b" <b>hi</b>\n", HEALTHY, 4),
                             row(258, long, NEVER_PRODUCED)])
    assert list(frame.columns) == ["id", "token", "bytes", "on its own", "inside longer tokens",
                                   "why"]
    assert frame["token"].tolist() == ["⟨e2 82⟩", "·<b>hi</b>↵", "é" * 50 + "… (160 bytes)"]
    assert frame["bytes"].tolist() == [2, 11, 160]
    assert frame.iloc[0][["on its own", "inside longer tokens", "why"]].tolist() == [
        2, 7, "ends inside a character"]
    assert he.health_frame([]).empty


def test_the_summary_table_has_a_row_per_kind():
    tok = aaab()
    view = he.health_view(tok, Counter(tok.encode("aaab")), vocabulary_defects(tok))
    frame = he.health_summary_frame(view.summary)
    assert frame["kind"].tolist() == list(HEALTH_KINDS)
    by_kind = frame.set_index("kind")
    assert by_kind.loc[PARTIAL_UTF8, "tokens"] == 128
    assert by_kind.loc[PARTIAL_UTF8, "% of the vocabulary"] == "49.4%"  # 128 of 259
    # "aaab" once: a and b are used inside it, aa and aaa are stepping stones
    assert by_kind.loc[STEPPING_STONE].tolist()[:2] == [2, "0.8%"]
    assert by_kind.loc[HEALTHY, "tokens"] == 3  # a, b, aaab
    assert by_kind.loc[NEVER_PRODUCED, "tokens"] == 128 - 2


def test_every_kind_has_a_key_and_an_explanation():
    assert set(he.HEALTH_SLUGS) == set(he.HEALTH_EXPLAINED) == set(HEALTH_KINDS)
    assert len(set(he.HEALTH_SLUGS.values())) == len(HEALTH_KINDS)
    assert "5%" in he.HEALTH_EXPLAINED[STEPPING_STONE]


def test_the_pattern_note_says_which_split_was_checked():
    assert "no split pattern" in he.pattern_note(BasicTokenizer(), "its own")
    assert "own split pattern" in he.pattern_note(RegexTokenizer(GPT4_SPLIT_PATTERN), "its own")
    assert "GPT-4o's split pattern" in he.pattern_note(BasicTokenizer(), "GPT-4o")
    assert list(he.HEALTH_PATTERNS) == ["its own", "GPT-2", "GPT-4", "GPT-4o"]
