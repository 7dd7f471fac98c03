"""Parity-aware BPE (bpe_core/parity.py) against its definition: known answers worked by hand, a
plain reference written here on random texts, and the corpus trainer with 1 and 2 workers.

The plain reference keeps every language's text as token lists and, before each merge,
measures each language's cost (its tokens, or tokens per byte when the texts are not parallel),
takes the worst (the first given among equals) that still has a pair, counts that language's
pairs the seeds' way and merges the most frequent (the first to occur among equals) in every
language. The first ``global_merges`` merges count the texts joined in order instead. With a
``window``, a language served more than ``alpha * window / languages`` of the last ``window``
parity merges goes after the others (languages plus one when there are global merges: the
authors' script divides alpha by the number of its count columns, one per language and one for
the totals). Special tokens cut every text before it is split.
"""

from __future__ import annotations

from collections import Counter, deque

import pytest
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import best_pair, chunks_of, get_stats, merge

from bpe_core import GPT4_SPLIT_PATTERN, RegexTokenizer
from bpe_core.formats import to_hf_json
from bpe_core.parity import train_parity, train_parity_corpus
from bpe_core.split import cut_at_specials


def naive_parity(texts: dict[str, str], vocab_size: int, pattern: str = GPT4_SPLIT_PATTERN,
                 parallel: bool = True, global_merges: int = 0, tie_rule: str = "seen",
                 window: int = 0, alpha: float = 2, specials: tuple = ()):
    """(merges {pair: id} in order, the language each merge served: a name or None)."""
    streams = [[list(c.encode("utf-8")) for part in cut_at_specials(t, list(specials))
                for c in chunks_of(part, pattern)] for t in texts.values()]
    recent: deque = deque(maxlen=window or None)
    names = list(texts)
    sizes = [sum(map(len, s)) for s in streams]

    def cost(lang: int):
        n = sum(map(len, streams[lang]))
        return n if parallel else (n / sizes[lang] if sizes[lang] else 0.0)

    merges, served = {}, []
    vocab = {i: bytes([i]) for i in range(256)}
    for idx in range(256, vocab_size - len(specials)):
        if idx - 256 < global_merges:
            order = [None]
        else:
            order = sorted(range(len(streams)), key=lambda m: (-cost(m), m))
            if window:
                share = alpha * window / (len(streams) + (1 if global_merges else 0))
                over = [m for m in order if recent.count(m) > share]
                order = [m for m in order if m not in over] + over
        pair = None
        for lang in order:
            stats: dict = {}
            for chunk in (streams[lang] if lang is not None else [c for s in streams for c in s]):
                get_stats(chunk, stats)
            if stats:
                pair = best_pair(stats, vocab, tie_rule)
                break
        if pair is None:
            break
        streams = [[merge(c, pair, idx) for c in s] for s in streams]
        merges[pair] = idx
        vocab[idx] = vocab[pair[0]] + vocab[pair[1]]
        served.append(None if lang is None else names[lang])
        if lang is not None and window:
            recent.append(lang)
    return merges, served


def tokens_of(tok):
    return [tok.vocab[i] for i in tok.merges.values()]


# ---------------------------------------------------------------------------------------------
# Known answers worked by hand


def test_each_merge_serves_the_language_with_the_most_tokens():
    # en "aaaa bb" is 7 tokens, xx "cbcbcb" 6: en is worst, its best pair (a,a) occurs 3 times.
    # Then en has 5 tokens ("aa aa" + " bb"), xx 6: xx is worst, (c,b) occurs 3 times.
    tok = train_parity({"en": "aaaa bb", "xx": "cbcbcb"}, 258)
    assert tokens_of(tok) == [b"aa", b"cb"]
    assert tok.served == ["en", "xx"]
    # Classical BPE on both texts (one per line) merges (a,a) and then (c,b) too, but the third
    # merge differs: classical takes the most frequent pair, (cb,cb) twice in "cb cb cb"; parity
    # asks which language is worst (en 5 tokens, xx 3) and takes en's (aa,aa), once.
    tok = train_parity({"en": "aaaa bb", "xx": "cbcbcb"}, 259)
    assert tokens_of(tok)[2] == b"aaaa" and tok.served[2] == "en"
    classical = RegexTokenizer()
    classical.train("aaaa bb\ncbcbcb", 259)
    assert tokens_of(classical)[2] == b"cbcb"


def test_equal_costs_go_to_the_language_given_first():
    # Both 4 tokens: "a" first -> xy; then a 2, b 4 -> zw; then 2 and 2 -> "a" again: xyxy.
    tok = train_parity({"a": "xyxy", "b": "zwzw"}, 259)
    assert tokens_of(tok) == [b"xy", b"zw", b"xyxy"]
    assert tok.served == ["a", "b", "a"]
    tok = train_parity({"b": "zwzw", "a": "xyxy"}, 259)
    assert tokens_of(tok) == [b"zw", b"xy", b"zwzw"]


def test_texts_that_are_not_parallel_compare_tokens_per_byte():
    texts = {"a": "xyxyxyxy", "b": "zw"}
    # Parallel: a has 8 tokens against b's 2, then 4 against 2, then 2 against 2 (a first).
    assert tokens_of(train_parity(texts, 259)) == [b"xy", b"xyxy", b"xyxyxyxy"]
    # Not parallel: 1 token per byte each (a first: xy); then a 4/8 = 0.5 and b 2/2 = 1: zw.
    tok = train_parity(texts, 258, parallel=False)
    assert tokens_of(tok) == [b"xy", b"zw"] and tok.served == ["a", "b"]


def test_a_language_with_nothing_left_to_merge_is_passed_over():
    # "q" is one token and stays the worst of nothing: "a" gets every merge.
    tok = train_parity({"a": "xyxy", "q": "q"}, 259, parallel=False)
    assert tokens_of(tok) == [b"xy", b"xyxy"]
    assert tok.stop_reason and "2 merges" in tok.stop_reason


def test_global_merges_are_classical_first():
    tok = train_parity({"en": "aaaa bb", "xx": "cbcbcb"}, 259, global_merges=3)
    classical = RegexTokenizer()
    classical.train("aaaa bb\ncbcbcb", 259)
    assert list(tok.merges.items()) == list(classical.merges.items())
    assert tok.served == [None, None, None]


def test_the_moving_window_passes_over_a_language_served_more_than_its_share():
    # Two languages, window 2, alpha 1: a language served more than 1 * 2 / 2 = 1 of the last 2
    # merges goes last. "a" has 16 tokens, "b" 4. Without the window "a" stays worst for three
    # merges: xy (a 8), xyxy (a 4), then a 4 = b 4 and "a" comes first: xyxyxyxy.
    texts = {"a": "xy" * 8, "b": "zwzw"}
    assert tokens_of(train_parity(texts, 259)) == [b"xy", b"xyxy", b"xyxyxyxy"]
    # With it, "a" has 2 of the last 2 merges at the third: "b" is served, though not worse.
    tok = train_parity(texts, 259, window=2, alpha=1)
    assert tokens_of(tok) == [b"xy", b"xyxy", b"zw"] and tok.served == ["a", "a", "b"]
    # alpha 2 allows 2 of 2: the window changes nothing.
    assert tokens_of(train_parity(texts, 259, window=2)) == [b"xy", b"xyxy", b"xyxyxyxy"]
    # Global merges do not enter the window, but they count as one more column in the share
    # (the authors' alpha / (languages + 1)): 1 * 2 / 3, so after one global xy and "a"'s xyxy,
    # "a" holds 1 of the last 2 merges, more than 2/3, and "b" is served.
    tok = train_parity(texts, 259, window=2, alpha=1, global_merges=1)
    assert tok.served == [None, "a", "b"]
    # With alpha 2 the share is 4/3: "a"'s one merge is within it, and "a" is served again.
    assert train_parity(texts, 259, window=2, alpha=2, global_merges=1).served == [None, "a", "a"]


def test_a_language_over_its_share_is_served_when_no_other_has_a_pair():
    tok = train_parity({"a": "xy" * 8, "b": "q"}, 259, window=2, alpha=1)
    assert tokens_of(tok) == [b"xy", b"xyxy", b"xyxyxyxy"]


@pytest.mark.parametrize(("options", "message"), [
    ({"window": -1}, "window must be a whole number"),
    ({"window": 1.5}, "window must be a whole number"),
    ({"window": 10, "alpha": 0.5}, "alpha must be a number of at least 1"),
])
def test_bad_window_settings_are_refused_by_name(options, message):
    with pytest.raises(ValueError, match=message):
        train_parity({"a": "xy"}, 300, **options)


def test_special_tokens_are_never_merged_across_and_take_the_ids_after_the_merges():
    # Without cutting, "b<" ... would be pairs; cut at <|e|>, "ab" and "cd" are all there is.
    texts = {"en": "ab<|e|>ab<|e|>", "xx": "cd<|e|>cd"}
    tok = train_parity(texts, 256 + 3 + 1, special_tokens=["<|e|>"])
    assert tokens_of(tok) == [b"ab", b"cd"] and tok.num_merges == 2
    assert tok.special_tokens == {"<|e|>": 258}
    assert tok.encode("ab<|e|>cd", allowed_special="all") == [256, 258, 257]
    assert not any(b"<" in t or b"|" in t for t in tokens_of(tok))
    with pytest.raises(ValueError, match="no room for the 256 bytes and 2 special tokens"):
        train_parity(texts, 257, special_tokens=["<|e|>", "<|f|>"])


def test_a_parity_tokenizer_json_keeps_its_special_token_in_hf_tokenizers(tmp_path):
    texts = {"en": "the cat sat<|endoftext|>the cat", "el": "η γάτα<|endoftext|>η γάτα"}
    tok = train_parity(texts, 256 + 12 + 1, special_tokens=["<|endoftext|>"])
    path = tmp_path / "tokenizer.json"
    path.write_text(to_hf_json(tok), encoding="utf-8")
    hf = tokenizers.Tokenizer.from_file(str(path))
    eot = 256 + tok.num_merges
    assert hf.token_to_id("<|endoftext|>") == eot == tok.special_tokens["<|endoftext|>"]
    text = "the cat<|endoftext|>η γάτα"
    assert hf.encode(text).ids == tok.encode(text, allowed_special="all")
    assert tok.encode(text, allowed_special="all").count(eot) == 1


def test_bad_languages_are_refused_by_name():
    with pytest.raises(ValueError, match="at least one language"):
        train_parity({}, 300)
    with pytest.raises(TypeError, match="dict of language name"):
        train_parity(["a b"], 300)


# ---------------------------------------------------------------------------------------------
# The plain reference on random texts

WORDS = st.sampled_from(["the", "of", "la", "de", "é", "😄", "12", "ab", " ", "\n", "ναι", "的"])
TEXT = st.lists(WORDS, max_size=25).map("".join) | st.text(max_size=40)
TEXTS = st.dictionaries(st.sampled_from(["en", "fr", "el", "zh", "xx"]), TEXT, min_size=1,
                        max_size=4)


@settings(max_examples=100, deadline=None)
@given(texts=TEXTS, merges=st.integers(0, 60), parallel=st.booleans(),
       global_merges=st.integers(0, 5), tie_rule=st.sampled_from(["seen", "ids", "bytes"]),
       window=st.sampled_from([0, 0, 1, 3, 8]), alpha=st.sampled_from([1, 1.5, 2]),
       specials=st.sampled_from([(), ("<|e|>",), ("ab", "<s>")]))
def test_matches_the_plain_reference(texts, merges, parallel, global_merges, tie_rule, window,
                                     alpha, specials):
    tok = train_parity(texts, 256 + len(specials) + merges, parallel=parallel,
                       global_merges=global_merges, tie_rule=tie_rule, window=window,
                       alpha=alpha, special_tokens=list(specials))
    expected, served = naive_parity(texts, 256 + len(specials) + merges, parallel=parallel,
                                    global_merges=global_merges, tie_rule=tie_rule,
                                    window=window, alpha=alpha, specials=specials)
    assert list(tok.merges.items()) == list(expected.items())
    assert tok.served == served


# ---------------------------------------------------------------------------------------------
# From files on disk: the same merges with 1 and 2 workers

DOCS = {
    "en": "The cat sat on the mat.\nThe dog sat on the log.\n" * 20,
    "el": "Η γάτα κάθισε στο χαλί.\nΟ σκύλος κάθισε στο κούτσουρο.\n" * 20,
    "hi": "बिल्ली चटाई पर बैठी।\nकुत्ता लकड़ी पर बैठा।\n" * 20,
}


def test_corpus_gives_the_merges_of_the_texts_with_one_and_two_workers(tmp_path):
    paths = {}
    for name, text in DOCS.items():
        path = tmp_path / f"{name}.txt"
        path.write_bytes(text.encode("utf-8"))
        paths[name] = str(path)
    expected = train_parity(DOCS, 400, parallel=False)
    for workers in (1, 2):
        tok = train_parity_corpus(paths, 400, workers=workers, block_bytes=120)
        assert list(tok.merges.items()) == list(expected.merges.items())
        assert tok.served == expected.served and tok.languages == ["en", "el", "hi"]


def test_corpus_with_special_tokens_and_a_window_gives_the_merges_of_the_texts(tmp_path):
    docs = {name: text.replace(".\n", ".<|endoftext|>") for name, text in DOCS.items()}
    paths = {}
    for name, text in docs.items():
        path = tmp_path / f"{name}.txt"
        path.write_bytes(text.encode("utf-8"))
        paths[name] = str(path)
    options = {"special_tokens": ["<|endoftext|>"], "window": 20, "alpha": 1}
    expected = train_parity(docs, 401, parallel=False, **options)
    assert expected.special_tokens == {"<|endoftext|>": 256 + expected.num_merges}
    assert not any(b"<|" in expected.vocab[i] for i in expected.merges.values())
    for workers in (1, 2):
        tok = train_parity_corpus(paths, 401, workers=workers, block_bytes=120, **options)
        assert list(tok.merges.items()) == list(expected.merges.items())
        assert tok.special_tokens == expected.special_tokens and tok.served == expected.served


# ---------------------------------------------------------------------------------------------
# The hybrid and the window together, on the 33 parallel texts that ship with the package


def authors_hybrid_window(texts: dict[str, str], num_merges: int, global_merges: int,
                          window: int, alpha: float = 2):
    """The authors' rule (Foroutan et al., their learn_bpe_moving_window), written from its
    definition: the first ``global_merges`` merges by the totals; then the language with the
    most tokens, unless it holds more than ``alpha / columns`` of a full window of ``window``
    parity merges (columns: one per language, plus one for the totals when there are global
    merges), in which case the next worst, and so on. Pairs are counted over each language's
    distinct pieces in first-seen order (ties: the first seen), merged left to right."""
    names = list(texts)
    langs = [[(tuple(p.encode("utf-8")), n)
              for p, n in Counter(chunks_of(t, GPT4_SPLIT_PATTERN)).items()]
             for t in texts.values()]
    share = alpha / (len(langs) + (1 if global_merges else 0))
    recent: deque = deque(maxlen=window)
    merges, served = [], []

    def pair_counts(languages):
        stats: dict = {}
        for pieces in languages:
            for ids, n in pieces:
                for pair in zip(ids, ids[1:]):
                    stats[pair] = stats.get(pair, 0) + n
        return stats

    for step in range(num_merges):
        if step < global_merges:
            stats, who = pair_counts(langs), None
        else:
            lengths = [sum(len(ids) * n for ids, n in pieces) for pieces in langs]
            valid = list(range(len(langs)))
            while True:
                who = max(valid, key=lambda m: (lengths[m], -m))
                if recent.count(who) / window <= share:
                    break
                valid.remove(who)
                if not valid:  # every language over its share: the authors' script fails
                    # here (an argmax over nothing); this library serves the worst of all
                    who = max(range(len(langs)), key=lambda m: (lengths[m], -m))
                    break
            recent.append(who)
            stats = pair_counts([langs[who]])
        most = max(stats.values())
        pair = next(p for p, c in stats.items() if c == most)
        merges.append(pair)
        served.append(None if who is None else names[who])
        for m, pieces in enumerate(langs):
            langs[m] = [(tuple(merge(list(ids), pair, 256 + step)) if pair[0] in ids else ids, n)
                        for ids, n in pieces]
    return merges, served


def test_hybrid_with_a_window_makes_the_authors_merges_on_the_parallel_texts():
    # The authors divide alpha by the languages plus one when global merges are on; dividing by
    # the languages alone departs from their merges at merge 112 here.
    from bpe_lab.who_pays.languages import load_parallel
    texts = {lang.code: "\n".join(lang.lines) for lang in load_parallel()}
    assert len(texts) == 33
    tok = train_parity(texts, 1500, global_merges=100, window=100)
    merges, served = authors_hybrid_window(texts, 1500 - 256, global_merges=100, window=100)
    assert len(tok.merges) == 1244
    assert list(tok.merges) == merges
    assert tok.served == served


# ---------------------------------------------------------------------------------------------
# The compression claim over folds of the parallel texts (bpe_lab.who_pays.parity)


def test_each_fold_holds_out_its_own_lines_and_trains_on_the_rest():
    from bpe_lab.who_pays.costs import measure_text
    from bpe_lab.who_pays.languages import load_parallel
    from bpe_lab.who_pays.parity import fold_lines, parity_folds

    languages = load_parallel()
    held = fold_lines(languages, 3)
    assert [list(h) for h in held] == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9, 10], [11, 12, 13, 14, 15]]
    folds = parity_folds(languages, 300, folds=3)
    for fold, lines in zip(folds, held):
        assert (fold.train_lines, fold.test_lines) == (16 - len(lines), len(lines))
        texts = {lang.code: "\n".join(x for k, x in enumerate(lang.lines) if k not in lines)
                 for lang in languages}
        classical = RegexTokenizer()
        classical.train("\n".join(texts.values()), 300)
        parity = train_parity(texts, 300, parallel=True)
        for lang, row in zip(languages, fold.rows):
            measured = "\n".join(lang.lines[k] for k in lines)
            assert row.classical_tokens == measure_text(classical, measured).tokens
            assert row.parity_tokens == measure_text(parity, measured).tokens
    with pytest.raises(ValueError, match="folds must be from 2 to 16"):
        fold_lines(languages, 17)
