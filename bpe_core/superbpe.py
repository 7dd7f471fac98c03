"""SuperBPE (Liu et al., "SuperBPE: Space Travel for Language Models", 2025): tokens that span words.

Training has two stages over the same text:

1. **Stage one** is ordinary BPE with the split pattern (GPT-4's by default), so every token stays
   inside a word piece, until ``transition`` merges have been made (the paper's transition point
   t, counted here in merges, not in vocabulary size).
2. **Stage two** goes on merging over a coarser pre-tokenization that no longer cuts at
   whitespace, so tokens such as " of the" or "by the way" can form. Its split is the one the
   paper's authors release for stage two (their ``extend_tokenizer.sh``): a Hugging Face
   ``Split`` with ``behavior="isolated"`` on

       \\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]{2,}[\\r\\n/]*| +(?!\\S)

   that is, groups of one to three digits, runs of two or more punctuation marks (with an
   optional space before them and line breaks or slashes after them), and runs of spaces that
   end before a line break or the end, are pieces of their own; everything between them
   (letters, the spaces between words, single punctuation marks) is one piece. So a superword
   may run over a space or a comma, but never over a number or a run like "..." or "?!".

**The stage-two rules** (``stage_two=``) say what else stage two may merge:

- ``"authors"`` (the default) is how the authors train it. Hugging Face ``tokenizers`` reads
  the training files line by line, so a stage-two piece ends at every line break (the line
  break is its last character) and no superword crosses one: stage two trains on
  ``STAGE_TWO_LINES_PATTERN``, the split above cut after each line break, as one pattern over
  the whole text. (Encoding is theirs too: the split above over the whole text; since no
  stage-two token holds a line break before its last byte, none is made across one.) And their fork
  of ``tokenizers`` (alisawuffles/tokenizers-superbpe, ``trainer.rs``) skips any merge whose
  token holds ": " (a colon and a space) or more than 4 words, where a word is what lies
  between spaces: the token's bytes split at the space byte (U+0020 only; a tab or a line
  break does not part words), empty parts left out (" of the way" is 3 words, "x, y" 2). A
  skipped pair is never merged.
- ``"open"`` is this project's earlier reading: the split above over the whole text
  (``STAGE_TWO_PATTERN``: a piece runs over line breaks), with no word limit and ": " allowed.
  It makes longer superwords: at 32k on ``english`` stage two made 8,658 tokens with a line
  break inside, 504 with ": " and 12,755 of more than 4 words.

``STAGE_TWO_PATTERN`` and ``STAGE_TWO_LINES_PATTERN`` spell their cuts as patterns whose matches
cover the whole text (a last alternative takes the text between). The trained tokenizer encodes
with ``STAGE_TWO_PATTERN`` under both rules, as the authors' tokenizer.json does, so that every
file format that holds a split pattern (tiktoken's too, which keeps only what its pattern
matches) cuts text the same way.

Stage two starts from each stage-two piece encoded with the stage-one merges, lowest rank first,
exactly as encoding does, and counts pairs inside the stage-two pieces. So the trained tokenizer
is an ordinary BPE tokenizer over ``STAGE_TWO_PATTERN`` with all merges in order: its
tokenizer.json runs in Hugging Face ``tokenizers`` and gives the same ids.

**When stage one runs out.** Stage one makes at most ``transition`` merges; on a small text it
can run out of pairs inside words first (at 32k on ``english``, asked to switch at 90% of the
merges, it ran out at 29%). Stage two then starts early and makes the rest: the tokenizer's
``transition`` is the merges stage one made, and ``asked_transition`` the ones asked for, so a
row can say so beside its number (``ran_out_early``).

``special_tokens`` (e.g. ``["<|endoftext|>"]``) are as in classical training: the text is cut
at them before either stage splits it, so no merge of either stage runs across or inside one;
they take the ids after all the merges and count in ``vocab_size``.

The tie rule is ``train_bpe``'s in both stages (default "seen": the pair whose first occurrence
comes earliest in the text, in the stage's pieces), so the merges are the same from text in
memory and from a corpus on disk read by any number of workers (each stage counts its pieces in
first-seen order, corpus.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

import regex

from .corpus import DEFAULT_BLOCK_BYTES, BytesCallback, CorpusSources, count_pieces
from .merges import apply_merges
from .patterns import GPT4_SPLIT_PATTERN
from .regex_tokenizer import RegexTokenizer
from .split import (
    add_proven_cut,
    compile_pattern,
    cut_at_specials,
    split_by_pattern,
    training_specials,
)
from .text import clean_text
from .training import (
    MergeRecord,
    ProgressCallback,
    TrainResult,
    check_train_options,
    piece_table,
    train_bpe,
)

# on_stage(words, total): a stage (or phase) begins, "stage one" .. "phase two", making at most
# ``total`` merges; ``progress(done, total, record)`` then counts that stage's merges from 1
StageCallback = Callable[[str, int], None]


def stage_words(part: str, stage: int) -> str:
    """"stage one", "phase two": what the progress of a two-part trainer is counting.

    >>> stage_words("stage", 1), stage_words("phase", 2)
    ('stage one', 'phase two')
    """
    return f"{part} {'one' if stage == 1 else 'two'}"

# The paper's released stage-two split (isolated matches; the text between them is a piece too).
STAGE_TWO_ISOLATED = r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r\n/]*| +(?!\S)"
_STARTS = r"\p{N}| ?[^\s\p{L}\p{N}]{2,}| +(?!\S)"  # where one of those matches can begin
# The same cut as a pattern whose matches cover the text: a run of characters where none of the
# isolated matches can begin is the piece between two of them.
STAGE_TWO_PATTERN = STAGE_TWO_ISOLATED + r"|(?:(?!" + _STARTS + r")[\s\S])+"
# The same split read line by line, as the authors' trainer reads its files: inside one line a
# run of line breaks and slashes after punctuation is slashes and then the line's own break,
# and the text between two matches stops after a line break.
STAGE_TWO_LINES_PATTERN = (r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r/]*\n?| +(?!\S)"
                           r"|(?:(?!" + _STARTS + r")[^\n])+\n?|\n")
# A corpus may be cut into blocks right after any line break, inside the text: every match of
# the lines pattern that holds a line break ends there, a match that ends before one is followed
# by the "\n" alternative, and no lookahead reads past a line break (spaces, marks and digits
# stop at it). So the authors' stage two counts a corpus in blocks (the open split, whose pieces
# run over line breaks, has no such rule).
add_proven_cut(STAGE_TWO_LINES_PATTERN, r"(?<=\n)(?=[\s\S])")
STAGE_TWO_RULES = ("authors", "open")
MAX_SUPERWORD_WORDS = 4  # the authors' limit: more words than this in a token is never merged


def words_in(token: bytes) -> int:
    r"""The words of a token as the SuperBPE authors count them: its parts between spaces
    (the byte 0x20 only), empty parts left out.

    >>> words_in(b" of the way"), words_in(b"x, y"), words_in(b"a\nb"), words_in(b"  ")
    (3, 2, 1, 0)
    """
    return sum(1 for part in token.split(b" ") if part)


def authors_allow(token: bytes) -> bool:
    """Whether the authors' stage two may make ``token``: no ": " in it and at most 4 words."""
    return b": " not in token and words_in(token) <= MAX_SUPERWORD_WORDS


def stage_two_split(rules: str, stage_two_pattern: str | None) -> tuple[str, str]:
    """(the split stage two trains on, the pattern the tokenizer encodes with) for ``rules``
    ("authors" or "open") and the pattern given (None: the paper's); ValueError for other
    rules. A pattern given is used for both, as given."""
    if rules not in STAGE_TWO_RULES:
        raise ValueError(f"stage_two must be one of {', '.join(map(repr, STAGE_TWO_RULES))}"
                         f" (the authors' rules, or this project's earlier open ones), not"
                         f" {rules!r}")
    if stage_two_pattern is not None:
        return stage_two_pattern, stage_two_pattern
    return (STAGE_TWO_LINES_PATTERN if rules == "authors" else STAGE_TWO_PATTERN,
            STAGE_TWO_PATTERN)



class SuperBPETokenizer(RegexTokenizer):
    """A SuperBPE tokenizer: ``pattern`` is the stage-two split (what encoding uses),
    ``stage_one_pattern`` the split of stage one, ``transition`` how many merges stage one made
    (ids ``256 .. 255 + transition``); the later merges are stage two's. ``asked_transition``:
    the merges stage one was asked for (more than ``transition`` when it ran out early);
    ``stage_two``: the stage-two rules it was trained with ("authors" or "open").

    >>> tok = train_superbpe("a b a b", 259, transition=1)
    >>> [tok.vocab[i] for i in range(256, 259)], tok.encode("a b a b")
    ([b' b', b'a b', b'a b '], [258, 257])
    >>> tok.superword_ids(), tok.is_stage_two(256), tok.is_stage_two(257)
    ([257, 258], False, True)
    """

    variant = "superbpe"
    variant_title = "SuperBPE"
    part = "stage"  # what its two parts are called (BoundlessBPE: "phase")

    def __init__(self, pattern: str | None = None, *, stage_one_pattern: str = GPT4_SPLIT_PATTERN,
                 transition: int = 0, asked_transition: int | None = None,
                 stage_two: str = "authors", **data) -> None:
        super().__init__(STAGE_TWO_PATTERN if pattern is None else pattern, **data)
        self.stage_one_pattern = stage_one_pattern
        self.transition = transition
        self.asked_transition = transition if asked_transition is None else asked_transition
        self.stage_two = stage_two

    @property
    def ran_out_early(self) -> bool:
        """Whether the first stage (or phase) stopped before the point it was asked for."""
        return self.transition < self.asked_transition

    def is_stage_two(self, idx: int) -> bool:
        """Whether token ``idx`` was made in stage two."""
        return idx >= 256 + self.transition and idx in self.parents

    def superword_ids(self) -> list[int]:
        """The ids of the tokens that bridge a word boundary (see ``is_superword``)."""
        return [i for i in self.merges.values() if is_superword(self.vocab[i])]


_SUPERWORD = regex.compile(r"[\p{L}\p{N}\p{M}]\s|\S\s+\S")


def is_superword(token: bytes) -> bool:
    r"""Whether a token spans a word boundary: whitespace after a letter, digit or mark, or
    between two characters that are not whitespace (" the" is a word with its space; " of the",
    "the\n" and "x, y" are superwords; ".\n", which GPT-4's split pattern makes too, is not).

    >>> [is_superword(t) for t in (b" the", b" of the", b"the\n", b"x, y", b".\n", b"\n\n")]
    [False, True, True, True, False, False]
    """
    return _SUPERWORD.search(token.decode("utf-8", "replace")) is not None


def check_transition(transition: object, num_merges: int) -> int:
    if isinstance(transition, bool) or not isinstance(transition, int) or transition < 0:
        raise ValueError(f"transition must be a whole number of merges, 0 or more, not {transition!r}")
    if transition > num_merges:
        raise ValueError(
            f"transition {transition} is more merges than the vocabulary has room for"
            f" ({num_merges}); give a transition of at most {num_merges} (the vocabulary size"
            " minus 256 and the special tokens)"
        )
    return transition


def stage_two_chunks(
    pieces: Iterable[tuple[bytes, int]], merges: dict[tuple[int, int], int]
) -> Iterable[tuple[list[int], int]]:
    """Each stage-two piece as stage one's merges encode it, with its count, in the same order."""
    for piece, n in pieces:
        yield apply_merges(list(piece), merges), n


def _two_stages(
    stage_one: Iterable[tuple[bytes, int]],
    stage_two: callable,
    num_merges: int,
    transition: int,
    progress: ProgressCallback | None,
    on_stage: StageCallback | None,
    options: dict,
    allow: Callable[[bytes], bool] | None = None,
) -> tuple[TrainResult, int]:
    """Train stage one on ``stage_one``'s pieces, then stage two on ``stage_two()``'s pieces
    (called after stage one, so a corpus is read a second time only then), making only the
    tokens ``allow`` allows. ``progress`` counts each stage's merges from 1, ``on_stage`` says
    which stage it counts."""
    stopped = False

    def first_progress(done: int, total: int, record: MergeRecord) -> bool | None:
        nonlocal stopped
        if progress is not None and progress(done, transition, record) is False:
            stopped = True
            return False
        return None

    if on_stage is not None:
        on_stage(stage_words("stage", 1), transition)
    one = train_bpe(stage_one, transition, first_progress, **options)
    made = len(one.merges)
    if stopped or made == num_merges:
        return one, made
    if on_stage is not None:
        on_stage(stage_words("stage", 2), num_merges - made)

    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), idx in one.merges.items():
        vocab[idx] = vocab[a] + vocab[b]
    two = train_bpe(stage_two_chunks(stage_two(), one.merges), num_merges - made,
                    progress, base_vocab=vocab, allow=allow, **options)
    merges = {**one.merges, **two.merges}
    reason = two.stop_reason and f"stage two (after {made} merges of stage one): {two.stop_reason}"
    return TrainResult(merges, one.history + two.history, reason), made


def _options(tie_rule: str, min_frequency: int, max_token_bytes: int | None,
             candidates: int) -> dict:
    check_train_options(tie_rule, min_frequency, max_token_bytes)
    return {"tie_rule": tie_rule, "min_frequency": min_frequency,
            "max_token_bytes": max_token_bytes, "candidates": candidates}


def _superbpe_tokenizer(result: TrainResult, made: int, pattern: str, stage_two_pattern: str,
                        specials: list[str], asked: int, rules: str) -> SuperBPETokenizer:
    first = 256 + len(result.merges)  # the special tokens take the ids after the merges
    tok = SuperBPETokenizer(stage_two_pattern, stage_one_pattern=pattern, transition=made,
                            asked_transition=asked, stage_two=rules, merges=result.merges,
                            special_tokens={s: first + i for i, s in enumerate(specials)})
    tok.history = result.history
    tok.stop_reason = result.stop_reason
    return tok


def count_split(text: str, pattern: str, specials: list[str]) -> Iterable[tuple[bytes, int]]:
    compiled = compile_pattern(pattern)
    pieces: Counter[str] = Counter()
    for part in cut_at_specials(text, specials):
        pieces.update(split_by_pattern(compiled, part) if compiled else [part])
    return ((p.encode("utf-8"), n) for p, n in pieces.items() if p)


def corpus_counter(sources: CorpusSources, specials: list[str], **read: object,
                   ) -> Callable[[str], Iterable[tuple[bytes, int]]]:
    """``counted(split)``: the corpus's pieces under the split pattern ``split``, counted with
    ``count_pieces`` (``read``: its workers, errors, block_bytes, on_bytes) into a compact
    ``PieceTable``. A two-part trainer counts the corpus twice (SuperBPE's stages, BoundlessBPE's
    phases): an iterator of str is read once here and kept for the second count."""
    texts = None
    if not isinstance(sources, (str, list, tuple)) and not hasattr(sources, "__fspath__"):
        texts = list(sources)

    def counted(split: str) -> Iterable[tuple[bytes, int]]:
        source = iter(texts) if texts is not None else sources
        return piece_table(count_pieces(source, pattern=split, special_tokens=specials,
                                        **read).counts)

    return counted


def plan_merges(vocab_size: object, transition: object, special_tokens: object,
                ) -> tuple[list[str], int]:
    """(the special tokens, the number of merges), or ValueError (BoundlessBPE's too)."""
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 256:
        raise ValueError(f"vocab_size must be a whole number of at least 256, not {vocab_size!r}")
    specials = training_specials(special_tokens)
    if vocab_size < 256 + len(specials):
        raise ValueError(f"vocab_size {vocab_size} has no room for the 256 bytes and"
                         f" {len(specials)} special tokens; it must be at least"
                         f" {256 + len(specials)}")
    num_merges = vocab_size - 256 - len(specials)
    check_transition(transition, num_merges)
    return specials, num_merges


def train_superbpe(
    text: str,
    vocab_size: int,
    transition: int,
    *,
    pattern: str = GPT4_SPLIT_PATTERN,
    stage_two: str = "authors",
    stage_two_pattern: str | None = None,
    special_tokens: Iterable[str] | None = None,
    progress: ProgressCallback | None = None,
    on_stage: StageCallback | None = None,
    tie_rule: str = "seen",
    min_frequency: int = 0,
    max_token_bytes: int | None = None,
    candidates: int = 0,
) -> SuperBPETokenizer:
    """Train SuperBPE on ``text``: ``transition`` merges of stage one (inside ``pattern``'s
    pieces), then stage two (inside ``stage_two_pattern``'s) up to ``vocab_size``.
    ``stage_two``: "authors" (the default: line by line, at most 4 words, no ": ") or "open"
    (this project's earlier rules: over line breaks, no limit); see the module.
    ``stage_two_pattern`` replaces the paper's split, for training and encoding alike (the word
    and ": " rules stay; a line rule is then the pattern's own).
    ``on_stage(words, total)`` is told as each stage begins ("stage one", ``transition``; then
    "stage two", the merges left), and ``progress(done, total, record)`` counts that stage's
    merges from 1 to at most ``total``; False stops training.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    specials, num_merges = plan_merges(vocab_size, transition, special_tokens)
    split, encoding = stage_two_split(stage_two, stage_two_pattern)
    options = _options(tie_rule, min_frequency, max_token_bytes, candidates)
    text = clean_text(text)
    result, made = _two_stages(count_split(text, pattern, specials),
                               lambda: count_split(text, split, specials),
                               num_merges, transition, progress, on_stage, options,
                               authors_allow if stage_two == "authors" else None)
    return _superbpe_tokenizer(result, made, pattern, encoding, specials, transition, stage_two)


def train_superbpe_corpus(
    sources: CorpusSources,
    vocab_size: int,
    transition: int,
    *,
    pattern: str = GPT4_SPLIT_PATTERN,
    stage_two: str = "authors",
    stage_two_pattern: str | None = None,
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
) -> SuperBPETokenizer:
    """``train_superbpe`` on a corpus read from disk (files, a path or a list of paths; an
    iterator of str is read once and kept, since stage two reads the text again). Each stage
    counts its pieces with ``count_pieces`` in ``workers`` processes; the merges are exactly
    ``train_superbpe``'s on the joined text. Under the authors' rules stage two's blocks are cut
    after line breaks; with ``stage_two="open"`` its pieces run over line breaks, so the corpus
    is cut only right after a special token (a corpus without one is counted in one block, up to
    the block limit).
    """
    specials, num_merges = plan_merges(vocab_size, transition, special_tokens)
    split, encoding = stage_two_split(stage_two, stage_two_pattern)
    options = _options(tie_rule, min_frequency, max_token_bytes, 0)
    counted = corpus_counter(sources, specials, workers=workers, errors=errors,
                             block_bytes=block_bytes, on_bytes=on_bytes)
    result, made = _two_stages(counted(pattern), lambda: counted(split), num_merges,
                               transition, progress, on_stage, options,
                               authors_allow if stage_two == "authors" else None)
    return _superbpe_tokenizer(result, made, pattern, encoding, specials, transition, stage_two)

