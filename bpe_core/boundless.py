"""BoundlessBPE in its two-phase form: superwords whose share of the vocabulary training finds.

The definition implemented here is the two-phase BoundlessBPE of Schmidt, Tanner and Pinter,
"Faster Superword Tokenization" (arXiv 2604.05192, 2026: the abstract's "two-phase
formulation", which the paper shows gives the merges of the original BoundlessBPE of Schmidt et
al., "Boundless Byte Pair Encoding: Breaking the Pre-tokenization Barrier", COLM 2025). Only
the paper's abstract could be read here, not its numbered sections; the details below were
checked against the authors' reference implementation (github.com/kensho-technologies/
fastboundlessbpe, python/boundlessbpe/train.py: ``pretokenize_super`` and the BoundlessBPE
branch of ``_train_internal_super``), read, not copied.

With ``N = vocab_size - 256`` merges to make:

1. **Phase one** is classical BPE inside the split pattern's pieces (pretokens), ``N`` merges
   (``train_bpe``, the classical trainer), each with the count it had when it was chosen.
2. **Supermerge candidates.** A pretoken is *eligible* when it holds a letter (\\p{L}; the
   authors' ``SIMPLE_MERGE_PATTERN``) and phase one's ``N`` merges make it one token (it is
   "full"). A candidate is a maximal run of two or more consecutive eligible pretokens, as a
   sequence of those tokens. Candidates are counted by frequency, like pieces (" of the": 900
   times): training never holds a whole document.
3. **Phase two** runs BPE over the candidates: the most frequent pair of adjacent tokens
   (both whole pretokens, or superwords made before) becomes a *supermerge*. Each supermerge
   competes with the next of phase one's merges, in phase one's order: the supermerge is taken
   when its count is greater than that merge's count (a tie goes to the regular merge, as in
   the authors' code), else the regular merge is taken and the next one competes. This goes on
   until ``N`` merges are taken (see "When phase one runs out" for a small text). So phase one's merges are kept up to a point, the
   *transition*, that phase two finds by itself (SuperBPE asks for it); the rest of the
   vocabulary is superwords. A supermerge's tokens always exist by then: a pair's count is at
   most the count of the merge that made each of its tokens, and counts never rise from merge to
   merge, so with ties to the regular merge every parent is taken first.

Ids: phase one's kept merges are ``256 .. 255 + transition``, the supermerges follow in the
order they were made. Where this differs from the authors' code, on purpose:

- pairs are counted as this project counts them everywhere (overlapping: "aaa" holds (a, a)
  twice; the authors count it once), and ties between pairs follow ``tie_rule`` ("seen" by
  default: the pair that occurs first; the authors take the smallest pair of bytes);
- no PickyBPE deletions in phase one (the authors' option, off at tau > 1);
- the vocabulary starts from the 256 byte values, as every tokenizer of this project; the
  authors start from the 243 that can occur in UTF-8 text (0xC0, 0xC1 and 0xF5-0xFF never do).
  On UTF-8 text those 13 bytes never occur, so no merge changes; only the ids (each later id is
  13 more here) and the size (``vocab_size`` counts the 13 too, so 13 fewer merges than the
  authors' at the same size) differ;
- where phase two finds no candidate at all (no run of two whole lettered pretokens), phase
  one is kept whole (the authors' loop stops after one regular merge).

**When phase one runs out** of pairs before ``N`` merges (a small text: at 32k on ``english``
it made 9,417), ``stopping`` says what happens:

- ``"authors"`` (the default) is the authors' code: phase two stops at phase one's size (it
  takes at most the merges phase one made), and stops as soon as no candidate pair is left,
  even with phase one's merges left to take. The tokenizer then has fewer than ``N`` merges,
  and ``stop_reason`` says why.
- ``"fill"`` is this project's earlier rule: supermerges fill the vocabulary up to ``N``, and
  when candidates run out, phase one's remaining merges do. Its numbers beside a full run are
  not the algorithm's: at 32k on ``english`` it gives 12.3% fewer tokens, where the authors'
  rule stops near 9.4k merges.

The tokenizer's ``phase_one_merges`` and ``asked_merges`` say whether phase one ran out
(``ran_out_early``), so that a row can say so beside its number.

**Encoding** is the authors' exported form (their export.py, "the SuperBPE trick"): ordinary
BPE, all merges by rank, over a coarser split, ``patterns.WORD_RUN_PATTERNS``: the split
pattern's pieces with runs of consecutive word pieces (the pieces that hold letters) joined.
Phase one's merges come first, so a run's pretokens are merged as before and the supermerges
then join them. So a BoundlessBPE tokenizer is an ordinary BPE tokenizer that every format with
a split pattern holds (tokenizer.json runs in Hugging Face ``tokenizers`` with the same ids).
It differs from the paper's own encoder, which joins only whole eligible pretokens, where a
supermerge's token is also the first piece of a longer word that is not one token (" of" +
" the" inside " of theirs" when " theirs" is " the" + "irs"), or where one of phase one's
merges fits across two word pieces (after a contraction: "'s" + "am"). ``paper_encode`` is the
paper's encoder, to measure the difference (benchmarks/variants.py prints both).

``special_tokens`` (e.g. ``["<|endoftext|>"]``) are as in SuperBPE: the text is cut at them
before either phase splits it, so no merge or supermerge runs across or inside one (a word run
ends at one); they take the ids after all the merges and count in ``vocab_size``.

Only GPT-2's, GPT-4's and GPT-4o's split patterns have a word-run pattern (another pattern is
refused by name). Deterministic: the same merges from text in memory and from a corpus on disk
read by any number of workers (both phases count their pieces in first-seen order, corpus.py).
"""

from __future__ import annotations

from collections.abc import Iterable

import regex

from .corpus import DEFAULT_BLOCK_BYTES, BytesCallback, CorpusSources
from .merges import apply_merges
from .patterns import GPT4_SPLIT_PATTERN, WORD_RUN_PATTERNS
from .split import compile_pattern, split_by_pattern
from .superbpe import (
    StageCallback,
    SuperBPETokenizer,
    corpus_counter,
    count_split,
    plan_merges,
    stage_words,
)
from .text import clean_text
from .training import (
    MergeRecord,
    ProgressCallback,
    TrainResult,
    check_train_options,
    train_bpe,
)

_LETTER = regex.compile(r"\p{L}")
STOPPING_RULES = ("authors", "fill")


class BoundlessTokenizer(SuperBPETokenizer):
    """A two-phase BoundlessBPE tokenizer: ``pattern`` is the word-run split (what encoding
    uses), ``stage_one_pattern`` the split of phase one, ``transition`` how many of phase one's
    merges phase two kept (ids ``256 .. 255 + transition``); the later ids are supermerges.

    >>> tok = train_boundless("ab ab ab ab cd", 260)
    >>> [tok.vocab[i] for i in range(256, 260)], tok.transition, tok.superword_ids()
    ([b'ab', b' ab', b' c', b' ab ab'], 3, [259])
    """

    variant = "boundless"
    variant_title = "BoundlessBPE"
    part = "phase"

    def __init__(self, pattern: str | None = None, *, stage_one_pattern: str = GPT4_SPLIT_PATTERN,
                 transition: int = 0, phase_one_merges: int | None = None,
                 asked_merges: int | None = None, stopping: str = "authors", **data) -> None:
        super().__init__(WORD_RUN_PATTERNS[GPT4_SPLIT_PATTERN] if pattern is None else pattern,
                         stage_one_pattern=stage_one_pattern, transition=transition, **data)
        del self.asked_transition, self.stage_two  # SuperBPE's settings, not BoundlessBPE's
        self.phase_one_merges = transition if phase_one_merges is None else phase_one_merges
        self.asked_merges = self.phase_one_merges if asked_merges is None else asked_merges
        self.stopping = stopping

    @property
    def ran_out_early(self) -> bool:
        """Whether phase one ran out of pairs before the merges asked for."""
        return self.phase_one_merges < self.asked_merges

    def superword_ids(self) -> list[int]:
        """The supermerges' ids: every one joins two or more whole pretokens."""
        return [i for i in self.merges.values() if self.is_stage_two(i)]


def word_run_pattern(pattern: str) -> str:
    """The word-run split of ``pattern`` (GPT-2's, GPT-4's or GPT-4o's), or ValueError."""
    runs = WORD_RUN_PATTERNS.get(pattern)
    if runs is None:
        raise ValueError("BoundlessBPE needs GPT-2's, GPT-4's or GPT-4o's split pattern (it joins"
                         " their word pieces into runs); train with one of them (GPT4_SPLIT_PATTERN"
                         " is the default)")
    return runs


def candidates(runs: Iterable[tuple[bytes, int]], pattern: str,
               merges: dict[tuple[int, int], int]) -> dict[tuple[int, ...], int]:
    """Supermerge candidates from the word runs' counts (first-seen order): each run cut back
    into ``pattern``'s pieces, each piece encoded with ``merges``, and every maximal stretch of
    two or more pieces that hold a letter and are one token, as those tokens, added up."""
    compiled = compile_pattern(pattern)
    token_of: dict[str, int | None] = {}  # pretoken -> its one token, or None (not eligible)
    out: dict[tuple[int, ...], int] = {}

    def add(stretch: list[int], n: int) -> None:
        if len(stretch) >= 2:
            key = tuple(stretch)
            out[key] = out.get(key, 0) + n

    for run, n in runs:
        text = run.decode("utf-8")
        if not _LETTER.search(text):
            continue
        stretch: list[int] = []
        for piece in split_by_pattern(compiled, text):
            if piece not in token_of:
                ids = apply_merges(list(piece.encode("utf-8")), merges)
                token_of[piece] = ids[0] if len(ids) == 1 and _LETTER.search(piece) else None
            token = token_of[piece]
            if token is None:
                add(stretch, n)
                stretch = []
            else:
                stretch.append(token)
        add(stretch, n)
    return out


def check_stopping(stopping: object) -> str:
    if stopping not in STOPPING_RULES:
        raise ValueError(f"stopping must be one of {', '.join(map(repr, STOPPING_RULES))} (the"
                         f" authors' rule, or this project's rule that fills the vocabulary),"
                         f" not {stopping!r}")
    return stopping


def _two_phases(phase_one: Iterable[tuple[bytes, int]], phase_two: callable, pattern: str,
                num_merges: int, progress: ProgressCallback | None,
                on_stage: StageCallback | None, options: dict,
                stopping: str = "authors") -> tuple[TrainResult, int, int]:
    """Phase one on ``phase_one``'s pieces, then phase two on the word runs ``phase_two()``
    gives (called after phase one, so a corpus is read a second time only then). Returns the
    merges in id order, the transition and how many merges phase one made. ``on_stage`` is
    told as each phase begins ("phase one", ``num_merges``, then "phase two", the merges it may
    take); ``progress`` counts phase one's merges, then the merges phase two has taken (kept
    regular ones and supermerges), each from 1. ``stopping``: see the module."""
    stopped = False

    def first_progress(done: int, _total: int, record: MergeRecord) -> bool | None:
        nonlocal stopped
        if progress is not None and progress(done, num_merges, record) is False:
            stopped = True
            return False
        return None

    if on_stage is not None:
        on_stage(stage_words("phase", 1), num_merges)
    one = train_bpe(phase_one, num_merges, first_progress, **options)
    regular = one.history
    if stopped:
        return one, len(one.merges), len(one.merges)
    # the authors stop at phase one's size; this project's "fill" rule goes on to num_merges
    target = num_merges if stopping == "fill" else min(num_merges, len(regular))
    vocab = {i: bytes([i]) for i in range(256)}
    for record in regular:
        vocab[record.id] = record.token
    found = candidates(phase_two(), pattern, one.merges)
    chunks = list(found.items())
    if on_stage is not None:
        on_stage(stage_words("phase", 2), target)

    kept = 0  # phase one's merges taken so far
    supers: list[MergeRecord] = []  # the supermerges taken, in order (phase-two ids)
    first_super = 256 + len(regular)  # train_bpe's ids for phase two start after phase one's

    def taken() -> int:
        return kept + len(supers)

    def take_regular_while(keep) -> bool | None:
        """Take phase one's merges while ``keep(record)`` and room is left; False: stopped."""
        nonlocal kept
        while kept < len(regular) and taken() < target and keep(regular[kept]):
            kept += 1
            if progress is not None and progress(taken(), target,
                                                 regular[kept - 1]) is False:
                return False
        return None

    def second_progress(done: int, _total: int, record: MergeRecord) -> bool | None:
        nonlocal stopped
        # parents first (never needed, see the module's docstring), then every regular merge
        # that occurs at least as often (ties go to the regular merge)
        need = max((p for p in record.pair if 256 <= p < first_super), default=255) - 255
        if take_regular_while(lambda r: r.id - 255 <= need or r.count >= record.count) is False:
            stopped = True
            return False
        if taken() >= target:
            return False
        supers.append(record)
        if progress is not None and progress(taken(), target, record) is False:
            stopped = True
            return False
        return False if taken() >= target else None

    train_bpe(chunks, num_merges, second_progress, base_vocab=vocab, **options)
    # Candidates ran out (or none was left frequent enough): the authors stop there, unless
    # there was no candidate at all (their loop would stop after one merge; phase one is kept
    # whole here); "fill" takes phase one's remaining merges.
    if not stopped and (stopping == "fill" or not chunks) \
            and take_regular_while(lambda r: True) is False:
        stopped = True

    # ids: phase one's kept merges, then the supermerges renumbered after them
    new_id = {r.id: 256 + kept + k for k, r in enumerate(supers)}

    def renumber(i: int) -> int:
        return new_id.get(i, i)

    merges: dict[tuple[int, int], int] = {}
    history: list[MergeRecord] = []
    for r in [*regular[:kept], *supers]:
        pair = (renumber(r.pair[0]), renumber(r.pair[1]))
        merges[pair] = renumber(r.id)
        history.append(MergeRecord(pair, renumber(r.id), r.token, r.count))
    reason = None
    if stopped:
        reason = f"stopped by the progress callback after {taken()} merges"
    elif taken() < num_merges:
        what = (f"{kept} of phase one, {len(supers)} supermerge{'' if len(supers) == 1 else 's'}")
        if stopping == "authors" and len(regular) < num_merges and taken() == len(regular):
            reason = (f"phase one ran out after {len(regular)} merges, and the authors' rule"
                      f" stops at phase one's size ({what})")
        elif stopping == "authors" and taken() < target:
            reason = f"no supermerge candidate left after {taken()} merges ({what})"
        else:
            reason = f"no merge left after {taken()} merges ({what})"
    return TrainResult(merges, history, reason), kept, len(regular)


def _check(vocab_size: object, special_tokens: object, tie_rule: str, min_frequency: int,
           max_token_bytes: int | None) -> tuple[list[str], int, dict]:
    """(the special tokens, the number of merges, train_bpe's options), or ValueError."""
    specials, num_merges = plan_merges(vocab_size, 0, special_tokens)
    check_train_options(tie_rule, min_frequency, max_token_bytes)
    return specials, num_merges, {"tie_rule": tie_rule, "min_frequency": min_frequency,
                                  "max_token_bytes": max_token_bytes}


def _boundless_tokenizer(result: TrainResult, kept: int, made: int, asked: int, stopping: str,
                         pattern: str, specials: list[str]) -> BoundlessTokenizer:
    first = 256 + len(result.merges)  # the special tokens take the ids after the merges
    tok = BoundlessTokenizer(word_run_pattern(pattern), stage_one_pattern=pattern,
                             transition=kept, phase_one_merges=made, asked_merges=asked,
                             stopping=stopping, merges=result.merges,
                             special_tokens={s: first + i for i, s in enumerate(specials)})
    tok.history = result.history
    tok.stop_reason = result.stop_reason
    return tok


def train_boundless(
    text: str,
    vocab_size: int,
    *,
    pattern: str = GPT4_SPLIT_PATTERN,
    stopping: str = "authors",
    special_tokens: Iterable[str] | None = None,
    progress: ProgressCallback | None = None,
    on_stage: StageCallback | None = None,
    tie_rule: str = "seen",
    min_frequency: int = 0,
    max_token_bytes: int | None = None,
) -> BoundlessTokenizer:
    """Train two-phase BoundlessBPE on ``text`` up to ``vocab_size`` (see the module;
    ``stopping``: "authors", the default, or "fill").
    ``on_stage(words, total)`` is told as each phase begins ("phase one", then "phase two",
    each at most ``total`` = the merges), and ``progress(done, total, record)`` counts that
    phase's merges from 1 (phase one's learned, then phase two's taken); False stops training."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    specials, num_merges, options = _check(vocab_size, special_tokens, tie_rule, min_frequency,
                                           max_token_bytes)
    runs = word_run_pattern(pattern)
    check_stopping(stopping)
    text = clean_text(text)
    result, kept, made = _two_phases(count_split(text, pattern, specials),
                                     lambda: count_split(text, runs, specials), pattern,
                                     num_merges, progress, on_stage, options, stopping)
    return _boundless_tokenizer(result, kept, made, num_merges, stopping, pattern, specials)


def train_boundless_corpus(
    sources: CorpusSources,
    vocab_size: int,
    *,
    pattern: str = GPT4_SPLIT_PATTERN,
    stopping: str = "authors",
    special_tokens: Iterable[str] | None = None,
    workers: int | None = None,
    errors: str = "strict",
    block_bytes: int = DEFAULT_BLOCK_BYTES,
    on_bytes: BytesCallback | None = None,
    progress: ProgressCallback | None = None,
    on_stage: StageCallback | None = None,
    tie_rule: str = "seen",
    min_frequency: int = 0,
    max_token_bytes: int | None = None,
) -> BoundlessTokenizer:
    """``train_boundless`` on a corpus read from disk (files, a path or a list of paths; an
    iterator of str is read once and kept, since phase two reads the text again). Phase one
    counts the pattern's pieces and phase two the word runs, each with ``count_pieces`` in
    ``workers`` processes, blocks cut beside line breaks (no run holds one); the merges are
    exactly ``train_boundless``'s on the joined text."""
    specials, num_merges, options = _check(vocab_size, special_tokens, tie_rule, min_frequency,
                                           max_token_bytes)
    runs = word_run_pattern(pattern)
    check_stopping(stopping)
    counted = corpus_counter(sources, specials, workers=workers, errors=errors,
                             block_bytes=block_bytes, on_bytes=on_bytes)

    result, kept, made = _two_phases(counted(pattern), lambda: counted(runs), pattern,
                                     num_merges, progress, on_stage, options, stopping)
    return _boundless_tokenizer(result, kept, made, num_merges, stopping, pattern, specials)


def paper_encode(tok: BoundlessTokenizer, text: str) -> list[int]:
    """``text`` encoded as the paper's own encoder does: phase one's kept merges inside each
    pretoken, then the supermerges, by rank, over each run of consecutive pretokens that hold a
    letter and are one token (see the module for where this differs from ``tok.encode``).
    Ordinary text only (no special tokens)."""
    first_super = 256 + tok.transition
    regular = {p: i for p, i in tok.merges.items() if i < first_super}
    supers = {p: i for p, i in tok.merges.items() if i >= first_super}
    compiled = compile_pattern(tok.stage_one_pattern)
    out: list[int] = []
    stretch: list[int] = []
    for piece in split_by_pattern(compiled, clean_text(text)):
        ids = apply_merges(list(piece.encode("utf-8")), regular)
        if len(ids) == 1 and _LETTER.search(piece):
            stretch.append(ids[0])
            continue
        out += apply_merges(stretch, supers) if stretch else []
        stretch = []
        out += ids
    out += apply_merges(stretch, supers) if stretch else []
    return out
