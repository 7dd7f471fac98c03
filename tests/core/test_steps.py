"""Step-through: the text as it looks after only the first k merges."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import first_merges, naive_encode
from support import KINDS, core_corpus_tokenizer, trained

from bpe_core import BasicTokenizer, TokenSpan

SMALL_TEXT = "The cat sat on the mat. Café “naïve” 東京 👩‍💻 ok\n\n  def f(x): return x\n"


def char_index_of_bytes(text: str) -> list[int]:
    """For each byte of text's UTF-8 encoding, the index of the character it belongs to."""
    owner = []
    for i, ch in enumerate(text):
        owner.extend([i] * len(ch.encode("utf-8")))
    return owner


def char_boundaries(text: str) -> set[int]:
    """Byte offsets where a character starts (and the end of the text)."""
    offsets, pos = {0}, 0
    for ch in text:
        pos += len(ch.encode("utf-8"))
        offsets.add(pos)
    return offsets


def assert_spans_describe_text(tok, text: str, spans: list, k: int) -> None:
    data = text.encode("utf-8")
    owner = char_index_of_bytes(text)
    boundaries = char_boundaries(text)
    position = 0
    for span in spans:
        assert isinstance(span, TokenSpan)
        assert span.byte_start == position, "byte spans must tile the text without gaps"
        assert span.byte_end > span.byte_start
        position = span.byte_end
        assert span.token == data[span.byte_start : span.byte_end]
        assert tok.vocab[span.id] == span.token
        assert span.char_start == owner[span.byte_start]
        assert span.char_end == owner[span.byte_end - 1] + 1
        expected_partial = not (span.byte_start in boundaries and span.byte_end in boundaries)
        assert span.partial == expected_partial
        assert span.new == (k > 0 and span.id == 256 + k - 1)
        assert span.special is False
    assert position == len(data)


@pytest.mark.parametrize("kind", KINDS)
def test_every_step_equals_naive_with_the_first_k_merges(kind, prose_text):
    tok = trained(kind, prose_text[:2000] + SMALL_TEXT, 330)
    merges = tok.merges
    assert len(merges) == 74
    steps = tok.step_through(SMALL_TEXT)
    assert steps.num_merges == len(merges)
    for k in range(len(merges) + 1):
        expected = naive_encode(SMALL_TEXT, first_merges(merges, k), tok.pattern)
        spans = tok.tokens_at_step(SMALL_TEXT, k)
        assert [span.id for span in spans] == expected, f"step {k}"
        assert_spans_describe_text(tok, SMALL_TEXT, spans, k)
        fast = steps.tokens_at(k)
        assert len(fast) == len(expected)
        assert list(fast) == list(spans)


@pytest.mark.parametrize("kind", KINDS)
def test_step_zero_is_bytes_and_last_step_is_encode(kind, code_text):
    tok = core_corpus_tokenizer(kind, "code")
    text = code_text[-1500:] + SMALL_TEXT
    zero = tok.tokens_at_step(text, 0)
    assert [span.id for span in zero] == list(text.encode("utf-8"))
    assert not any(span.new for span in zero)
    last = tok.tokens_at_step(text, len(tok.merges))
    assert [span.id for span in last] == tok.encode_ordinary(text)
    steps = tok.step_through(text)
    assert [span.id for span in steps.tokens_at(len(tok.merges))] == tok.encode_ordinary(text)
    assert len(steps.tokens_at(0)) == len(text.encode("utf-8"))


def test_ascii_char_spans_equal_byte_spans():
    tok = trained("basic", "aaabdaaabac", 259)
    spans = tok.tokens_at_step("aaabdaaabac", 3)
    assert [(s.id, s.byte_start, s.byte_end) for s in spans] == [
        (258, 0, 4), (100, 4, 5), (258, 5, 9), (97, 9, 10), (99, 10, 11)
    ]
    assert [(s.char_start, s.char_end) for s in spans] == [
        (0, 4), (4, 5), (5, 9), (9, 10), (10, 11)
    ]
    assert [s.new for s in spans] == [True, False, True, False, False]
    assert not any(s.partial for s in spans)
    at_two = tok.tokens_at_step("aaabdaaabac", 2)
    assert [s.id for s in at_two] == [257, 98, 100, 257, 98, 97, 99]
    assert [s.new for s in at_two] == [True, False, False, True, False, False, False]


def test_token_ending_inside_a_multibyte_character_is_partial():
    # "é" is C3 A9. In "aéaé..." the pairs (a,C3) and (C3,A9) tie; (a,C3) comes first -> 256.
    tok = BasicTokenizer()
    tok.train("aé" * 10, 257)
    assert tok.merges == {(0x61, 0xC3): 256}
    spans = tok.tokens_at_step("xaé", 1)
    assert [(s.id, s.token) for s in spans] == [(0x78, b"x"), (256, b"a\xc3"), (0xA9, b"\xa9")]
    x, a_c3, a9 = spans
    assert (a_c3.byte_start, a_c3.byte_end, a_c3.char_start, a_c3.char_end) == (1, 3, 1, 3)
    assert a_c3.partial is True and a_c3.new is True
    assert (a9.byte_start, a9.byte_end, a9.char_start, a9.char_end) == (3, 4, 2, 3)
    assert a9.partial is True and a9.new is False
    assert x.partial is False
    # at step 0 every byte of é is its own, partial, token
    zero = tok.tokens_at_step("é", 0)
    assert [(s.id, s.char_start, s.char_end, s.partial) for s in zero] == [
        (0xC3, 0, 1, True), (0xA9, 0, 1, True)
    ]


def test_whole_multibyte_tokens_are_not_partial():
    tok = BasicTokenizer()
    tok.train("日本日本日本", 258)  # 日 = E6 97 A5
    assert tok.vocab[257] == "日".encode()
    spans = tok.tokens_at_step("日本", 2)
    assert spans[0].id == 257
    assert (spans[0].char_start, spans[0].char_end, spans[0].partial) == (0, 1, False)
    assert (spans[0].byte_start, spans[0].byte_end) == (0, 3)


@settings(max_examples=40, deadline=None)
@given(text=st.text(max_size=80), kind=st.sampled_from(KINDS), k=st.integers(0, 200))
def test_random_text_spans_are_consistent(text, kind, k):
    tok = core_corpus_tokenizer(kind, "prose")
    spans = tok.tokens_at_step(text, k)
    assert [span.id for span in spans] == naive_encode(
        text, first_merges(tok.merges, k), tok.pattern
    )
    assert_spans_describe_text(tok, text, spans, k)


def test_step_through_returns_one_span_per_token(prose_text):
    tok = core_corpus_tokenizer("gpt4", "prose")
    text = prose_text[:5000]
    steps = tok.step_through(text)
    assert steps.num_merges == len(tok.merges)
    for k in (0, 1, 50, 100, steps.num_merges):
        spans = steps.tokens_at(k)
        expected = naive_encode(text, first_merges(tok.merges, k), tok.pattern)
        assert len(spans) == len(expected)
        assert [span.id for span in spans] == expected


def test_head_gives_the_first_tokens_at_every_step_and_keeps_partial_flags():
    from bpe_core import BasicTokenizer

    text = "é" * 40 + " naïve café " * 20
    tok = BasicTokenizer()
    tok.train("aé" * 50 + text, 300)
    steps = tok.step_through(text)
    for limit in (1, 7, 33, 100, 10_000):
        head = steps.head(limit)
        assert head.num_bytes <= limit or head is steps
        for k in range(0, tok.num_merges + 1, 5):
            full = steps.tokens_at(k)
            assert head.tokens_at(k) == full[: len(head.tokens_at(k))]
    # a head that ends inside a character keeps the partial flag of the token that ends there
    tok = BasicTokenizer()
    tok.train("aé" * 10, 257)  # one merge: "a" + the first byte of "é" (ties go to the first)
    assert tok.vocab[256] == b"a\xc3"
    head = tok.step_through("aéaé").head(2)
    (only,) = head.tokens_at(1)
    assert only.token == b"a\xc3" and only.partial


def tokens_from_melt(steps, k: int) -> list[tuple[int, int]]:
    """``(byte start, id)`` of the tokens after k merges, from ``melt_steps`` alone: what a
    browser draws from it. A run of one byte is that byte's token; a special token's run is its
    id; any other run is the token made by the last merge inside it (its largest melt step)."""
    tok = steps.tokenizer
    melt = steps.melt_steps()
    data = b"".join(tok.vocab[t] for t in steps.final)
    made_at = [0, *tok.merges.values()]  # made_at[s]: the id merge s made
    special_at = {start: t for t, start, special in zip(steps.final, steps.starts, steps.special)
                  if special}
    byte_ids = tok.byte_token_ids
    out, start = [], 0
    for b in range(1, steps.num_bytes + 1):
        if b < steps.num_bytes and melt[b - 1] <= k:
            continue  # joined by step k: the same token goes on
        if start in special_at:
            out.append((start, special_at[start]))
        elif b - start == 1:
            out.append((start, byte_ids[data[start]]))
        else:
            out.append((start, made_at[max(melt[start:b - 1])]))
        start = b
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_melt_steps_alone_give_the_tokens_at_every_step(kind, prose_text):
    """One number per byte boundary is the whole step-through (issue 14's data for the
    browser): the tokens it gives equal tokens_at(k), with emoji, CJK and a special token."""
    text = "Hello wörld 👋🏽 你好, tokens!<|endoftext|>  hello again\n\n" * 3
    tok = trained(kind, prose_text + text, 400)
    tok.register_special_tokens({"<|endoftext|>": 100_000})
    steps = tok.step_through(text, allowed_special="all")
    assert len(steps.melt_steps()) == steps.num_bytes - 1
    for k in sorted({0, 1, 2, tok.num_merges // 3, tok.num_merges // 2, tok.num_merges}):
        assert tokens_from_melt(steps, k) == [(s.byte_start, s.id) for s in steps.tokens_at(k)]


def test_melt_steps_of_a_preset_give_its_tokens():
    from bpe_core import load_pretrained

    tok = load_pretrained("o200k_base")
    steps = tok.step_through("Tokenization 🌍 ist schön; 日本語のテキスト. 12345", "all")
    for k in (0, 500, 5_000, 50_000, tok.num_merges):
        assert tokens_from_melt(steps, k) == [(s.byte_start, s.id) for s in steps.tokens_at(k)]
    assert steps.melt_steps().itemsize == 4  # four bytes a boundary, whatever the vocabulary
