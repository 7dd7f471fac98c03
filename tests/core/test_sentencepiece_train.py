"""bpe_core's SentencePiece-style BPE trainer against the `sentencepiece` package's (issue 46).

Each test trains `sentencepiece` here (model_type="bpe", the "identity" normalization, every
line of the input file: input_sentence_size=0) on a text written to tmp_path, reads the .model
it wrote, and asserts that bpe_core's pieces are the same: strings, order, scores, types. Where
`sentencepiece` refuses (a vocabulary smaller than its special pieces and characters, or larger
than the text's pairs allow), bpe_core refuses too, with the same number.
"""

from __future__ import annotations

import random
import re
import struct
from pathlib import Path

import pytest
import sentencepiece as spm

from bpe_core.sentencepiece.train import REFUSED_OPTIONS, train_pieces

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "assets" / "samples"

# letters of several scripts, CJK with kana, Hangul, Arabic, emoji and digits: random words
# from them make many pairs from a short text (4 KB reaches 4,000 pieces)
_ALPHABETS = ("abcdefghijklmnopqrstuvwxyzéèüß", "абвгдежзийклмнопрстуфхцчшщыэюя",
              "αβγδεζηθικλμνξοπρστυφχψω", "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年",
              "あいうえおかきくけこさしすせそたちつてとなにぬねのアイウエオカキクケコー",
              "가나다라마바사아자차카타파하", "ابتثجحخدذرزسشصضطظعغفقكلمنهوي",
              "😀🚀👩💻🇫🇷❤🎉🔥✨", "0123456789")


def _mix(lines: int, seed: int = 46) -> str:
    rng = random.Random(seed)
    out = []
    for _ in range(lines):
        words = ("".join(rng.choice(chars) for _ in range(rng.randint(1, 6)))
                 for chars in (rng.choice(_ALPHABETS) for _ in range(rng.randint(3, 12))))
        out.append(" ".join(words))
    return "\n".join(out)


def _read(*paths: Path) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in paths)


TEXTS = {
    "prose": lambda: _read(SAMPLES / "english.txt", ROOT / "README.md", ROOT / "docs" / "DESIGN.md"),
    "code": lambda: _read(SAMPLES / "code.py.txt", ROOT / "bpe_core" / "training.py",
                          ROOT / "bpe_core" / "merges.py"),
    "multilingual": lambda: _read(SAMPLES / "multilingual.txt") + "\n" + _mix(100),
}
OPTIONS = {"plain": {}, "byte_fallback": {"byte_fallback": True}, "split_digits": {"split_digits": True}}


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    return {name: make() for name, make in TEXTS.items()}


def _model_pieces(data: bytes) -> list[tuple[str, float, int]]:
    """(piece, score, type) of a .model: ModelProto field 1, SentencePiece fields 1, 2, 3."""
    def varint(buf: bytes, i: int) -> tuple[int, int]:
        n = shift = 0
        while True:
            b = buf[i]
            i += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return n, i

    def fields(buf: bytes):
        i = 0
        while i < len(buf):
            key, i = varint(buf, i)
            kind = key & 7
            if kind == 0:
                value, i = varint(buf, i)
            elif kind == 1:
                value, i = buf[i:i + 8], i + 8
            elif kind == 2:
                size, i = varint(buf, i)
                value, i = buf[i:i + size], i + size
            elif kind == 5:
                value, i = buf[i:i + 4], i + 4
            else:
                raise AssertionError(f"wire type {kind}")
            yield key >> 3, value

    out = []
    for number, body in fields(data):
        if number != 1:
            continue
        piece, score, kind = "", 0.0, 1
        for n, value in fields(body):
            if n == 1:
                piece = value.decode("utf-8")
            elif n == 2:
                score = struct.unpack("<f", value)[0]
            elif n == 3:
                kind = value
        out.append((piece, score, kind))
    return out


def _reference(tmp_path: Path, text: str, vocab_size: int, **options) -> list | str:
    """sentencepiece's pieces from the .model it writes, or its error message."""
    source = tmp_path / "input.txt"
    source.write_text(text, encoding="utf-8")
    prefix = tmp_path / "m"
    try:
        spm.SentencePieceTrainer.train(
            input=str(source), model_prefix=str(prefix), vocab_size=vocab_size, model_type="bpe",
            character_coverage=options.pop("character_coverage", 1.0),
            normalization_rule_name="identity", input_sentence_size=0,
            shuffle_input_sentence=False, num_threads=1, minloglevel=2, **options)
    except RuntimeError as e:
        return str(e)
    data = (tmp_path / "m.model").read_bytes()
    processor = spm.SentencePieceProcessor(model_file=str(tmp_path / "m.model"))
    pieces = _model_pieces(data)
    # the processor reads the same file: ids, pieces, scores and its own type questions agree
    assert [processor.id_to_piece(i) for i in range(processor.get_piece_size())] == [p for p, _, _ in pieces]
    assert [processor.get_score(i) for i in range(len(pieces))] == [s for _, s, _ in pieces]
    assert [i for i in range(len(pieces)) if processor.is_byte(i)] == [i for i, p in enumerate(pieces) if p[2] == 6]
    assert [i for i in range(len(pieces)) if processor.is_control(i)] == [i for i, p in enumerate(pieces) if p[2] == 3]
    assert [i for i in range(len(pieces)) if processor.is_unknown(i)] == [i for i, p in enumerate(pieces) if p[2] == 2]
    return pieces


def _assert_same(tmp_path: Path, text: str, vocab_size: int, **options) -> None:
    expected = _reference(tmp_path, text, vocab_size, **dict(options))
    if isinstance(expected, str):
        with pytest.raises(ValueError) as refused:
            train_pieces(text, vocab_size, **options)
        # the same bound: "vs 632" / "<= 3992" in sentencepiece's message, the number in ours
        bound = re.search(r"(?:vs|<=) (\d+)", expected)
        assert bound, expected
        assert bound.group(1) in str(refused.value).replace(",", ""), (expected, refused.value)
        return
    got = [tuple(p) for p in train_pieces(text, vocab_size, **options)]
    assert len(got) == len(expected) == vocab_size
    first = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), None)
    assert first is None, f"piece {first}: bpe_core {got[first]} sentencepiece {expected[first]}"


@pytest.mark.parametrize("option", list(OPTIONS))
@pytest.mark.parametrize("vocab_size", [500, 1000, 4000])
@pytest.mark.parametrize("name", list(TEXTS))
def test_pieces_equal_sentencepiece(texts, tmp_path, name, vocab_size, option):
    _assert_same(tmp_path, texts[name], vocab_size, **OPTIONS[option])


@pytest.mark.parametrize("options", [
    {"split_by_whitespace": False},
    {"split_by_unicode_script": False, "split_by_number": False},
    {"max_sentencepiece_length": 4, "add_dummy_prefix": False},
    {"remove_extra_whitespaces": False, "split_digits": True, "byte_fallback": True},
    {"user_defined_symbols": ["<x>", "def"], "control_symbols": ["<c>"], "pad_id": 3},
    {"unk_id": 5, "bos_id": -1, "character_coverage": 0.995},
], ids=lambda o: ",".join(o))
def test_other_options_equal_sentencepiece(tmp_path, options):
    """The other options that change pieces, on the samples with special pieces' text in them."""
    text = _read(SAMPLES / "multilingual.txt", SAMPLES / "tricky.txt", SAMPLES / "code.py.txt")
    text += "\nfirst <s> second</s>third  <x>fourth\t<c> def   fifth <unk>\n" * 3
    _assert_same(tmp_path, text, 900, **options)


def test_options_it_does_not_follow_are_refused_by_name():
    for name in sorted(REFUSED_OPTIONS)[:3] + ["treat_whitespace_as_suffix"]:
        with pytest.raises(ValueError, match=f"option {name} is not supported"):
            train_pieces("a b c", 50, **{name: True})
    with pytest.raises(ValueError, match="normalization 'nmt_nfkc' is not supported"):
        train_pieces("a b c", 50, normalization_rule_name="nmt_nfkc")
    with pytest.raises(ValueError, match="vocab_size must be a whole number"):
        train_pieces("a b c", 0)
