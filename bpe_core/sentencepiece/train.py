"""Train SentencePiece-style BPE: the pieces of the ``sentencepiece`` package's BPE trainer.

``train_pieces(text, vocab_size, ...)`` gives what ``SentencePieceTrainer.train(model_type="bpe",
normalization_rule_name="identity", ...)`` writes in its model, piece for piece: the same
strings in the same order, the same scores and the same types. What is learnt from
sentencepiece's ``trainer_interface.cc`` (read, not copied), in the order it happens:

1. each line (a ``str`` is cut at ``"\\n"``) longer than ``max_sentence_length`` bytes of UTF-8,
   or holding ``▅`` (U+2585, its mark for an unknown character), is left out;
2. normalizing (the "identity" rule): spaces at the ends dropped and runs of spaces made one
   (``remove_extra_whitespaces``), a space put first (``add_dummy_prefix``), every space written
   ``▁``; then every special piece's text (``<unk>``, ``<s>``, ``</s>``, the byte pieces
   ``<0x00>``... with byte fallback, user-defined and control symbols) becomes U+001F, which no
   piece may cross (sentencepiece 0.2.3's mark; older releases used a tab); a line left empty
   is dropped;
3. the characters are counted; the most frequent (ties by code point) are kept until they cover
   ``character_coverage`` of all characters; U+001F is never kept; any other character left out
   becomes ``▅``, which no piece may hold;
4. with ``split_by_whitespace`` a line is cut into words before each ``▁``, and the distinct
   words are counted and sorted (most frequent first, ties by string);
5. the merge loop (``merge_steps``) chooses ``vocab_size`` less the special pieces less the kept
   characters pieces;
6. the model: the special pieces at their ids (score 0), then the chosen pieces in order, then
   the kept characters (most frequent first, ties by code point); the n-th of these scores -n.

A piece is valid (``PieceRules``) when it has 1 to ``max_piece_length`` characters, no U+001F,
``▅`` or NUL; ``▁`` only first (or, without ``split_by_whitespace``, anywhere but last); with
``split_by_unicode_script``, one script (Hiragana and Katakana count as Han, a combining mark as
the script before it; digits are the script "Common" unless ``split_by_number`` is off, when they
join any script); with ``split_digits``, a digit only alone.

The work is linear in the text (each distinct word is laid out once) plus, per piece, the places
of the merged pair and a heap step; the text is bounded by ``MAX_SPM_TRAIN_CHARS``.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import NamedTuple

import regex

from ..limits import MAX_SPM_TRAIN_CHARS, MAX_VOCAB_SIZE
from ..limits.budget import run_bounded, train_budget
from .merge_steps import MergeLoop, run
from .model import SPACE, SentencePieceBPE, float32
from .proto import BYTE, CONTROL, NORMAL, UNKNOWN, USER_DEFINED

UNK_CHAR = "\u2585"  # ▅, what a character left out becomes while training
BOUNDARY = "\x1f"  # what a special piece's text becomes while training (U+001F); no piece crosses it


# sentencepiece's training options that bpe_core does not follow: refused by name when given
REFUSED_OPTIONS = frozenset({
    "model_type", "treat_whitespace_as_suffix", "allow_whitespace_only_pieces",
    "hard_vocab_limit", "use_all_vocab", "required_chars", "pretokenization_delimiter",
    "input_format", "input_sentence_size", "shuffle_input_sentence", "seed_sentencepiece_size",
    "self_test_sample_size", "enable_differential_privacy", "differential_privacy_noise_level",
    "differential_privacy_clipping_threshold", "normalization_rule_tsv", "denormalization_rule_tsv",
    "vocabulary_output_piece_score", "byte_fallback_piece", "unk_surface", "num_threads",
    "train_extremely_large_corpus", "escape_whitespaces",
})


class TrainedPiece(NamedTuple):
    piece: str
    score: float
    type: int  # NORMAL, UNKNOWN, CONTROL, USER_DEFINED, BYTE


# Unicode's scripts by their four-letter codes (the `regex` package knows each as \p{sc=...});
# a character in none of them is "Common", as sentencepiece's table has it.
_SCRIPTS = (
    "Zyyy Latn Bopo Zinh Grek Copt Cyrl Armn Hebr Arab Syrc Thaa Nkoo Samr Mand Deva Beng Guru "
    "Gujr Orya Taml Telu Knda Mlym Sinh Thai Laoo Tibt Mymr Geor Hang Ethi Cher Cans Ogam Runr "
    "Tglg Hano Buhd Tagb Khmr Mong Limb Tale Talu Bugi Lana Bali Sund Batk Lepc Olck Brai Glag "
    "Tfng Hani Hira Kana Yiii Lisu Vaii Bamu Sylo Phag Saur Kali Rjng Java Cham Tavt Mtei Linb "
    "Lyci Cari Ital Goth Perm Ugar Xpeo Dsrt Shaw Osma Osge Elba Aghb Vith Todr Lina Cprt Armi "
    "Palm Nbat Hatr Phnx Lydi Sidt Mero Merc Khar Sarb Narb Mani Avst Prti Phli Phlp Orkh Hung "
    "Rohg Gara Yezi Sogo Sogd Ougr Chrs Elym Brah Kthi Sora Cakm Mahj Shrd Khoj Mult Sind Gran "
    "Tutg Newa Tirh Sidd Modi Takr Ahom Dogr Wara Diak Nand Zanb Soyo Pauc Sunu Bhks Marc Gonm "
    "Gong Tols Maka Kawi Xsux Cpmn Egyp Hluw Gukh Mroo Tnsa Bass Hmng Krai Medf Berf Miao Tang "
    "Nshu Kits Dupl Sgnw Hmnp Toto Wcho Nagm Onao Tayo Mend Adlm"
).split()


@functools.cache  # compiled at the first use, not at import (0.1 s of CPU that every
def _script_matcher() -> regex.Pattern[str]:  # import bpe_core and worker process paid)
    parts = []
    for name in _SCRIPTS:
        try:
            regex.compile(rf"\p{{sc={name}}}")
        except regex.error:  # a script newer than the installed `regex` knows
            continue
        parts.append(rf"(?P<{name}>\p{{sc={name}}})")
    return regex.compile("|".join(parts))


_script_cache: dict[str, str] = {}
_ANY = ""  # sentencepiece's "any script": joins with every script


def script_of(c: str) -> str:
    """The script sentencepiece gives ``c`` for splitting, before its special cases."""
    s = _script_cache.get(c)
    if s is None:
        m = _script_matcher().match(c)
        s = _script_cache[c] = m.lastgroup if m and m.lastgroup else "Zyyy"
    return s


def _is_digit(c: str) -> bool:
    return "0" <= c <= "9" or "\uff10" <= c <= "\uff19"


class PieceRules(NamedTuple):
    """Which strings may become pieces (sentencepiece's IsValidSentencePiece)."""

    max_piece_length: int
    split_by_whitespace: bool
    split_by_unicode_script: bool
    split_by_number: bool
    split_digits: bool

    def valid(self, piece: str) -> bool:
        n = len(piece)
        if n == 0 or n > self.max_piece_length:
            return False
        prev = _ANY
        for pos, c in enumerate(piece):
            if c in (UNK_CHAR, "\0", BOUNDARY, " "):
                return False
            if c == SPACE:
                if pos > 0 and (self.split_by_whitespace or pos == n - 1):
                    return False
                continue
            s = script_of(c)
            if s in ("Hira", "Kana") or c == "\u30fc":
                s = "Hani"
            elif s == "Zinh":
                s = prev
            digit = _is_digit(c)
            if digit and not self.split_by_number:
                s = _ANY
            if digit and self.split_digits and n > 1:
                return False
            if self.split_by_unicode_script and s != _ANY and prev != _ANY and prev != s:
                return False
            prev = s
        return True


def _check_int(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be a whole number from {low:,} to {high:,}, not {value!r}")
    return value


def meta_pieces(vocab_size: int, *, unk_id: int, bos_id: int, eos_id: int, pad_id: int,
                unk_piece: str, bos_piece: str, eos_piece: str, pad_piece: str,
                control_symbols: Iterable[str], user_defined_symbols: Iterable[str],
                byte_fallback: bool) -> dict[int, tuple[str, int]]:
    """id -> (piece, type) of the special pieces, where sentencepiece puts them."""
    meta: dict[int, tuple[str, int]] = {}
    for name, sid, piece in (("unk", unk_id, unk_piece), ("bos", bos_id, bos_piece),
                             ("eos", eos_id, eos_piece), ("pad", pad_id, pad_piece)):
        if not isinstance(piece, str) or not piece:
            raise ValueError(f"{name}_piece must be a non-empty string, not {piece!r}")
        _check_int(f"{name}_id", sid, -1, MAX_VOCAB_SIZE)
        if sid < 0:
            if name == "unk":
                raise ValueError("unk_id must be 0 or more: the model needs an unknown piece")
            continue
        if sid >= vocab_size or sid in meta or (name != "unk" and piece == unk_piece):
            raise ValueError(f"{name}_id {sid} is taken or not below vocab_size {vocab_size}")
        meta[sid] = (piece, UNKNOWN if name == "unk" else CONTROL)
    named = {piece: sid for sid, (piece, _) in meta.items() if sid != unk_id}
    seen: set[str] = set()
    free = 0
    extra = [(s, CONTROL) for s in control_symbols] + [(s, USER_DEFINED) for s in user_defined_symbols]
    if byte_fallback:
        extra += [(f"<0x{i:02X}>", BYTE) for i in range(256)]
    for piece, kind in extra:
        if not isinstance(piece, str) or not piece:
            raise ValueError(f"a special symbol must be a non-empty string, not {piece!r}")
        if piece in seen or piece == unk_piece:
            raise ValueError(f"{piece!r} is already defined: special symbols must differ")
        seen.add(piece)
        if piece in named:
            meta[named[piece]] = (piece, kind)
            continue
        while free in meta:
            free += 1
        meta[free] = (piece, kind)
    if len(meta) > vocab_size:
        raise ValueError(f"vocab_size {vocab_size} is smaller than the {len(meta)} special pieces")
    return meta


def _normalize(line: str, add_dummy_prefix: bool, remove_extra_whitespaces: bool) -> str:
    """sentencepiece's normalizer with the identity rule: only the space is whitespace."""
    if remove_extra_whitespaces:
        line = re.sub(" +", " ", line.strip(" "))
        if not line:
            return ""
    text = (SPACE if add_dummy_prefix else "") + line.replace(" ", SPACE)
    return text.rstrip(SPACE) if remove_extra_whitespaces else text


def _lines(text_or_lines: str | Iterable[str]) -> list[str]:
    lines = text_or_lines.split("\n") if isinstance(text_or_lines, str) else list(text_or_lines)
    total = 0
    for line in lines:
        if not isinstance(line, str):
            raise ValueError(f"train_pieces reads text: a line is {type(line).__name__}, not str")
        total += len(line)
    if total > MAX_SPM_TRAIN_CHARS:
        raise ValueError(f"the training text is {total:,} characters long; "
                         f"train on at most {MAX_SPM_TRAIN_CHARS:,} (MAX_SPM_TRAIN_CHARS)")
    return lines


def train_pieces(
    text_or_lines: str | Iterable[str],
    vocab_size: int,
    *,
    byte_fallback: bool = False,
    character_coverage: float = 1.0,
    split_by_whitespace: bool = True,
    split_digits: bool = False,
    split_by_unicode_script: bool = True,
    split_by_number: bool = True,
    max_piece_length: int = 16,
    add_dummy_prefix: bool = True,
    remove_extra_whitespaces: bool = True,
    max_sentence_length: int = 4192,
    normalization_rule_name: str = "identity",
    unk_id: int = 0,
    bos_id: int = 1,
    eos_id: int = 2,
    pad_id: int = -1,
    unk_piece: str = "<unk>",
    bos_piece: str = "<s>",
    eos_piece: str = "</s>",
    pad_piece: str = "<pad>",
    control_symbols: Iterable[str] = (),
    user_defined_symbols: Iterable[str] = (),
    progress: Callable[[int, int, str], object] | None = None,
    **other: object,
) -> list[TrainedPiece]:
    """The pieces of sentencepiece's BPE trainer on this text: ``(piece, score, type)`` by id.

    The options are sentencepiece's, under its names (``max_piece_length`` is its
    ``max_sentencepiece_length``). Its other options are refused by name (``REFUSED_OPTIONS``),
    and so is a normalization other than "identity". A ValueError says why, as sentencepiece
    would refuse: a vocabulary smaller than the special pieces and characters, or larger than
    the pairs the text can make. ``progress(done, total, piece)`` is called after each merged
    piece.
    """
    if "max_sentencepiece_length" in other:
        max_piece_length = other.pop("max_sentencepiece_length")  # type: ignore[assignment]
    if other.get("model_type", "bpe") in ("bpe", "BPE"):
        other.pop("model_type", None)
    for name in other:
        if name in REFUSED_OPTIONS:
            raise ValueError(f"the sentencepiece option {name} is not supported by bpe_core's trainer")
        raise TypeError(f"train_pieces() got an unexpected keyword argument {name!r}")
    if normalization_rule_name != "identity":
        raise ValueError(f"the normalization {normalization_rule_name!r} is not supported: "
                         "bpe_core trains with normalization_rule_name='identity' only")
    vocab_size = _check_int("vocab_size", vocab_size, 1, MAX_VOCAB_SIZE)
    max_piece_length = _check_int("max_piece_length", max_piece_length, 1, 512)
    max_sentence_length = _check_int("max_sentence_length", max_sentence_length, 10, 1 << 30)
    if isinstance(character_coverage, bool) or not isinstance(character_coverage, (int, float)) \
            or not 0.98 <= character_coverage <= 1.0:
        raise ValueError(f"character_coverage must be from 0.98 to 1.0, not {character_coverage!r}")
    meta = meta_pieces(vocab_size, unk_id=unk_id, bos_id=bos_id, eos_id=eos_id, pad_id=pad_id,
                       unk_piece=unk_piece, bos_piece=bos_piece, eos_piece=eos_piece,
                       pad_piece=pad_piece, control_symbols=list(control_symbols),
                       user_defined_symbols=list(user_defined_symbols),
                       byte_fallback=byte_fallback)
    specials = sorted({p for p, _ in meta.values()}, key=len, reverse=True)
    special = re.compile("|".join(map(re.escape, specials)))

    sentences: list[str] = []
    for line in _lines(text_or_lines):
        if not line or len(line.encode("utf-8", "surrogatepass")) > max_sentence_length:
            continue
        if UNK_CHAR in line:
            continue
        if any("\ud800" <= c <= "\udfff" for c in line):
            raise ValueError("the training text holds a lone surrogate, which is not Unicode text")
        s = special.sub(BOUNDARY, _normalize(line, add_dummy_prefix, remove_extra_whitespaces))
        if s:
            sentences.append(s)
    if not sentences:
        raise ValueError("the training text has no line to learn from")

    chars = Counter()
    for s in sentences:
        chars.update(s)
    chars.pop("\0", None)
    total = sum(chars.values()) or 1
    kept: dict[str, int] = {}
    covered = 0
    goal = float32(character_coverage)
    for c, n in sorted(chars.items(), key=lambda cn: (-cn[1], cn[0])):
        if float32(covered / total) >= goal:
            break
        covered += n
        if c != BOUNDARY:
            kept[c] = n
    if len(kept) + len(meta) > vocab_size:
        raise ValueError(f"vocab_size {vocab_size} is smaller than the {len(meta)} special pieces "
                         f"and {len(kept)} characters: use at least {len(kept) + len(meta)}")
    if len(kept) < len(chars):
        sentences = ["".join(c if c in kept else UNK_CHAR for c in s) for s in sentences]

    if split_by_whitespace:
        words = Counter()
        for s in sentences:
            words.update(s[i:j] for i, j in _word_spans(s))
        pairs = sorted(words.items(), key=lambda wn: (-wn[1], wn[0]))
    else:
        pairs = [(s, 1) for s in sentences]
    rules = PieceRules(max_piece_length, split_by_whitespace, split_by_unicode_script,
                       split_by_number, split_digits)
    wanted = vocab_size - len(meta) - len(kept)
    chosen = run(MergeLoop(pairs, UNK_CHAR, rules.valid), wanted, progress)
    if len(chosen) < wanted:
        most = len(meta) + len(chosen) + len(kept)
        raise ValueError(f"vocab_size {vocab_size} is too high for this text: "
                         f"sentencepiece's BPE finds at most {most:,} pieces in it")

    body = [TrainedPiece(p, -float(i), NORMAL) for i, p in enumerate(chosen)]
    for c, _ in sorted(kept.items(), key=lambda cn: (-cn[1], cn[0])):
        body.append(TrainedPiece(c, -float(len(body)), NORMAL))
    out: list[TrainedPiece] = []
    rest = iter(body)
    for i in range(vocab_size):
        if i in meta:
            piece, kind = meta[i]
            out.append(TrainedPiece(piece, 0.0, kind))
        else:
            out.append(next(rest))
    return out


def _word_spans(s: str) -> Iterable[tuple[int, int]]:
    """Where sentencepiece cuts a line into words: before every ``▁`` (and at the start)."""
    start = 0
    for i in range(1, len(s)):
        if s[i] == SPACE:
            yield start, i
            start = i
    yield start, len(s)


# the trainer's options that the model needs too: how text is normalized, byte fallback, and
# the special pieces' texts (their ids are where train_pieces puts them)
MODEL_OPTIONS = ("add_dummy_prefix", "remove_extra_whitespaces", "byte_fallback", "unk_piece",
                 "bos_piece", "eos_piece", "pad_piece")


def train_sentencepiece(text_or_lines: str | Iterable[str], vocab_size: int,
                        **options: object):
    """A ``SentencePieceBPE`` trained as sentencepiece's BPE trainer trains: ``train_pieces``'
    pieces, with the trainer's options that encoding follows too (``MODEL_OPTIONS``) given to
    ``SentencePieceBPE.from_pieces``. Its ``encode`` gives the ids ``sentencepiece`` gives with
    the model it trains from the same text and options; ``to_model_file`` writes it as a
    ``tokenizer.model``. ``name=`` names the model; the other options are ``train_pieces``'.

    Under a training budget (``limits.train_budget()``: the app's) it trains in a worker
    process that is killed past it (``BudgetExceeded`` names the limit), its ``progress`` called
    here at most every ``limits.budget.PROGRESS_EVERY`` seconds."""
    budget = train_budget()
    if budget is not None:
        progress = options.pop("progress", None)
        lines = text_or_lines if isinstance(text_or_lines, str) else list(text_or_lines)
        return run_bounded("bpe_core.sentencepiece.train:train_here", (lines, vocab_size, options),
                           budget, what="SentencePiece's training", progress=progress,
                           fix="train on a shorter text or at a smaller vocabulary size")
    name = options.pop("name", "sentencepiece BPE")
    pieces = train_pieces(text_or_lines, vocab_size, **options)
    defaults = {"byte_fallback": False, "add_dummy_prefix": True,
                "remove_extra_whitespaces": True, "unk_piece": "<unk>", "bos_piece": "<s>",
                "eos_piece": "</s>", "pad_piece": "<pad>"}
    model_options = {key: options.get(key, defaults[key]) for key in MODEL_OPTIONS}
    return SentencePieceBPE.from_pieces(pieces, name=name, **model_options)


def train_here(text_or_lines: str | list[str], vocab_size: int, options: dict,
               progress: Callable[[int, int, str], object] | None = None):
    """``train_sentencepiece`` in this process (a worker's call, within its budget)."""
    return train_sentencepiece(text_or_lines, vocab_size, progress=progress, **options)
