"""What every tokenizer shares: the seeds' helpers, encoding by merge rank, decoding, special tokens.

A subclass only says how text is cut into chunks (``BasicTokenizer``: not at all;
``RegexTokenizer``: with a split pattern). Data, with shapes:

    merges:          (int, int) -> int   in merge order; the new id is also the merge's priority
    vocab:           int -> bytes        every byte, every merged token, every special token
    special_tokens:  str -> int          e.g. {"<|endoftext|>": 100257}
    history:         list[MergeRecord]   what training chose, step by step, with counts
    byte_ids:        None, or 256 ids    the id of each single byte when it is not the byte's value
                                         (GPT vocabularies number their bytes in their own order)
"""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Iterable, Mapping
from itertools import islice
from typing import TYPE_CHECKING

from .chunking import SplitMethods, _check_text
from .corpus import (
    DEFAULT_BLOCK_BYTES,
    BytesCallback,
    CorpusSources,
    PieceCounts,
    PipelineSplit,
    count_pieces,
)
from .encoders import dropout_merges
from .limits import MAX_VOCAB_SIZE
from .merges import (  # noqa: F401 - get_stats and merge: the seeds' names, read from here too
    SHORT_CHUNK,
    EncodeTrace,
    TraceStep,
    apply_merges,
    get_stats,
    merge,
    merge_chunks,
    trace_merges,
)
from .saving import FileMethods
from .split import (  # noqa: F401 - MAX_REPEAT, cut_at_specials, training_specials: read from here too
    BUILT_IN_PATTERNS,
    MAX_REPEAT,
    compile_pattern,
    cut_at_specials,
    split_by_pattern,
    time_left,
    training_specials,
)
from .text import (  # noqa: F401 - render_token and replace_control_characters: the seeds' names
    MAX_TOKEN_ID,
    TokenIdOverflowError,
    UnknownTokenError,
    WrongTypeError,
    bad_id_error,
    clean_text,
    gpt2_string,
    id_problem,
    render_token,
    replace_control_characters,
    shorten,
)
from .tiktoken_api import TiktokenMethods
from .training import MergeRecord, ProgressCallback, check_train_options, piece_table, train_bpe
from .words import WHOLE_TOKENS, WORD_PATTERNS, encode_ordinary_text

if TYPE_CHECKING:
    from .pipeline import Pipeline
    from .steps import StepThrough, TokenSpan

CACHE_SIZE = 50_000  # chunks remembered by encode_ordinary (then the cache starts afresh)
CACHE_MAX_CHUNK = 100  # longer chunks are not remembered
_WHOLE = frozenset({int, bool})  # the ids' types that need no look at each id
# built on first use (see token_ids)
DERIVED_LOOKUPS = ("_token_ids", "_parents", "_step_of", "_sorted_tokens", WHOLE_TOKENS)


def _check_vocab_size(vocab_size: object) -> int:
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise ValueError(
            f"vocab_size must be a whole number such as 512, not {shorten(vocab_size)}"
        )
    if vocab_size < 256:
        raise ValueError(
            f"vocab_size must be at least 256 (one token per byte value); got {vocab_size}"
        )
    if vocab_size > MAX_VOCAB_SIZE:
        raise ValueError(
            f"vocab_size {vocab_size} is too large: use at most {MAX_VOCAB_SIZE:,}"
            " (GPT-4o has about 200 000)"
        )
    return vocab_size


# ----------------------------------------------------------------------------------------------


class Tokenizer(SplitMethods, TiktokenMethods, FileMethods):
    """Byte-level BPE: train, encode, decode, save. Subclasses decide how text is split.

    How text is cut comes from ``SplitMethods`` (chunking.py), tiktoken's names and its
    special-token rule from ``TiktokenMethods`` (tiktoken_api.py),
    saving from ``FileMethods`` (saving.py)."""

    splits = True  # whether it uses a split pattern (BasicTokenizer: no)
    family = "byte-level"  # the BPE family (SentencePieceBPE says "sentencepiece", word_bpe's "word")

    def __init__(
        self,
        pattern: str = "",
        *,
        timeout: float | None = None,
        merges: dict[tuple[int, int], int] | None = None,
        byte_ids: list[int] | None = None,
        special_tokens: dict[str, int] | None = None,
        name: str | None = None,
        title: str | None = None,
        pipeline: Pipeline | None = None,
        ignored: list[str] | None = None,
        special_aliases: dict[str, int] | None = None,
    ) -> None:
        """A tokenizer from plain data: every loader builds one this way.

        ``merges`` in merge order (``(a, b) -> new id``), ``byte_ids`` when single bytes are not
        ids 0..255, ``special_tokens`` checked as ``register_special_tokens`` does; ``name`` and
        ``title`` say which published tokenizer it is (``"cl100k_base"``, ``"GPT-4 (cl100k_base)"``).
        ``pipeline``: what a Hugging Face tokenizer.json does before BPE (pipeline.py);
        ``ignored``: what its file said that ``encode`` leaves out, and why (shown to users).
        ``special_aliases``: second spellings of special tokens, matched in text as those tokens
        and decoded as their first spelling (tiktoken's o200k_harmony names 200018 twice).
        """
        self.merges: dict[tuple[int, int], int] = dict(merges or {})
        self.special_tokens: dict[str, int] = {}
        self.history: list[MergeRecord] = []
        self.stop_reason: str | None = None
        self.byte_ids: list[int] | None = None if byte_ids is None else list(byte_ids)
        self.timeout = timeout  # seconds a split may take before ValueError (None: no bound)
        self.from_file = False  # its patterns came from a file (files.build): bounded by default
        self.name = name
        self.title = title
        self.pipeline = pipeline
        self.ignored: list[str] = list(ignored or [])
        self.pattern = pattern
        self._rebuild()
        if special_tokens:
            self.register_special_tokens(special_tokens)
        self.special_aliases: dict[str, int] = dict(special_aliases or {})
        stray = [s for s, idx in self.special_aliases.items()
                 if idx not in self.special_tokens.values() or s in self.special_tokens]
        if stray:
            raise ValueError(f"special alias {shorten(stray[0])} must name the id of another"
                             " special token")

    # -- training ----------------------------------------------------------------------------

    def train(
        self,
        text: str,
        vocab_size: int,
        *,
        verbose: bool = False,
        progress: ProgressCallback | None = None,
        candidates: int = 0,
        tie_rule: str = "seen",
        special_tokens: Iterable[str] | None = None,
        min_frequency: int = 0,
        max_token_bytes: int | None = None,
    ) -> None:
        """Learn ``vocab_size - 256`` merges from ``text`` with the seeds' rule (see training.py).

        ``progress(done, total, record)`` is called after every merge; returning False stops
        training there. ``stop_reason`` says why training stopped early (None if it did not).
        ``candidates=n`` keeps the n best pairs of every step in ``history`` ("why this merge").

        The variants (training.py): ``tie_rule`` "seen" (the seeds'), "bytes" (CS336's) or "ids";
        ``min_frequency`` and ``max_token_bytes`` as in ``train_bpe``. ``special_tokens``, e.g.
        ``["<|endoftext|>"]``: the text is cut at them before it is split and counted, so no
        merge is learned across or inside them; they become the tokenizer's special tokens, with
        the ids after the merges, and count in ``vocab_size`` (as CS336 counts them).

        >>> from bpe_core import BasicTokenizer
        >>> tok = BasicTokenizer()
        >>> tok.train("ab<|x|>ab<|x|>ba", 258, special_tokens=["<|x|>"])
        >>> tok.vocab[256], tok.special_tokens
        (b'ab', {'<|x|>': 257})
        """
        text = clean_text(_check_text(text))
        specials, num_merges = self._training_plan(vocab_size, special_tokens)
        parts = cut_at_specials(text, specials)
        if self.pipeline is None:
            pieces = [piece for part in parts for piece in self.split(part)]
        else:  # normalized and pre-tokenized as encode does; its added tokens are not learned
            pieces = [
                chunk for part in parts for chunk, idx in self.chunks(part, "none") if idx is None
            ]
        chunk_counts = Counter(pieces)
        self._learn(
            ((chunk.encode("utf-8"), n) for chunk, n in chunk_counts.items()), num_merges,
            specials if special_tokens is not None else None, progress=progress, verbose=verbose,
            candidates=candidates, tie_rule=tie_rule, min_frequency=min_frequency,
            max_token_bytes=max_token_bytes,
        )

    def train_corpus(
        self,
        sources: CorpusSources,
        vocab_size: int,
        *,
        workers: int | None = None,
        errors: str = "strict",
        block_bytes: int = DEFAULT_BLOCK_BYTES,
        client: object = None,
        on_bytes: BytesCallback | None = None,
        verbose: bool = False,
        progress: ProgressCallback | None = None,
        candidates: int = 0,
        tie_rule: str = "seen",
        special_tokens: Iterable[str] | None = None,
        min_frequency: int = 0,
        max_token_bytes: int | None = None,
    ) -> PieceCounts:
        """``train`` on a corpus read from disk: files (a path or a list of paths) or an iterator
        of str. The merges are exactly ``train``'s on the concatenated text (see corpus.py).

        The pieces are counted in ``workers`` processes (default: every core; 1: in this
        process) or on a Dask cluster (``client``, a ``dask.distributed.Client``); the merge loop
        runs here (with 2 workers or more, a large table is laid out with one helper process).
        ``on_bytes(done, total)`` reports the reading (total None for an iterator),
        ``progress`` the merges, as in ``train``; ``errors="replace"`` reads bytes that are not
        UTF-8 as U+FFFD instead of stopping. Every other option is ``train``'s. A tokenizer read
        from a tokenizer.json with a ``pipeline`` counts its normalized, pre-tokenized chunks as
        ``train`` does (its added tokens are not learned); blocks are cut only where the
        pipeline gives the same chunks with and without the cut. Returns what
        the reading measured (``counts`` left empty: the table is freed once laid out). Bad input
        raises ``CorpusError`` (a ValueError) naming the file and the fix.

        >>> from bpe_core import BasicTokenizer
        >>> tok = BasicTokenizer()
        >>> _ = tok.train_corpus(iter(["ab<|x|>a", "b<|x|>ba"]), 258, special_tokens=["<|x|>"])
        >>> tok.vocab[256], tok.special_tokens
        (b'ab', {'<|x|>': 257})
        """
        specials, num_merges = self._training_plan(vocab_size, special_tokens)
        check_train_options(tie_rule, min_frequency, max_token_bytes)
        counted = count_pieces(
            sources, special_tokens=specials, workers=workers,
            pattern=self.pattern if self.pipeline is None else PipelineSplit(self, split_from_json),
            errors=errors, block_bytes=block_bytes, on_bytes=on_bytes, client=client,
            timeout=self.timeout,
        )
        self._learn(
            piece_table(counted.counts), num_merges,
            specials if special_tokens is not None else None, progress=progress, verbose=verbose,
            candidates=candidates, tie_rule=tie_rule, min_frequency=min_frequency,
            max_token_bytes=max_token_bytes, parallel=counted.workers >= 2 and client is None,
        )
        return counted

    def _training_plan(self, vocab_size: object, special_tokens: object) -> tuple[list[str], int]:
        """The special tokens to train with and the number of merges, or ValueError."""
        vocab_size = _check_vocab_size(vocab_size)
        specials = training_specials(special_tokens)
        num_merges = vocab_size - 256 - len(specials)
        if num_merges < 0:
            raise ValueError(
                f"vocab_size {vocab_size} has no room for the 256 bytes and {len(specials)}"
                f" special tokens; it must be at least {256 + len(specials)}"
            )
        current = {} if special_tokens is not None else self.special_tokens
        added = [t.id for t in self.pipeline.added.values()] if self.pipeline is not None else []
        clash = sorted(i for i in [*current.values(), *added] if 256 <= i < vocab_size)
        if clash:
            raise ValueError(
                f"special token id {clash[0]} lies inside the ids training will create"
                f" (256..{vocab_size - 1}); register special tokens after training, or give"
                f" them ids of {vocab_size} or more"
            )
        return specials, num_merges

    def _learn(
        self,
        chunks: Iterable[tuple[bytes, int]],
        num_merges: int,
        specials: list[str] | None,
        **options,
    ) -> None:
        """Run the trainer on ``(chunk bytes, occurrences)`` in first-seen order and keep what
        it learned; ``specials`` (None: keep the current ones) get the ids after the merges."""
        result = train_bpe(chunks, num_merges, **options)
        self.byte_ids = None
        self.merges = result.merges
        self.history = result.history
        self.stop_reason = result.stop_reason
        if specials is not None:
            first = 256 + len(self.merges)
            self.special_tokens = {s: first + i for i, s in enumerate(specials)}
            self.special_aliases = {}
        self._rebuild()

    # -- vocabulary --------------------------------------------------------------------------

    def _rebuild(self) -> None:
        """Derive the vocabulary and lookups from merges and special tokens."""
        byte_ids = range(256) if self.byte_ids is None else self.byte_ids
        vocab = dict(zip(byte_ids, map(bytes, zip(range(256)))))
        for (p0, p1), idx in self.merges.items():
            vocab[idx] = vocab[p0] + vocab[p1]
        for name in DERIVED_LOOKUPS:  # token_ids, parents, step_of: built again when asked
            self.__dict__.pop(name, None)
        if self.pipeline is not None:  # added tokens that are not special, e.g. "<tool>"
            for added in self.pipeline.added.values():
                if not added.special:
                    vocab.setdefault(added.id, added.content.encode("utf-8"))
        for special, idx in self.special_tokens.items():
            vocab[idx] = special.encode("utf-8")
        self.vocab: dict[int, bytes] = vocab
        self._cache = {}

    # Lookups derived from the merges, built on first use (a GPT vocabulary loads without them):

    @property
    def token_ids(self) -> dict[bytes, int]:
        """bytes -> id of every ordinary token (encode_single_token, ignore_merges)."""
        found = self.__dict__.get("_token_ids")
        if found is None:
            ordinary = [*self.byte_token_ids, *self.merges.values()]
            found = self.__dict__["_token_ids"] = dict(zip(map(self.vocab.__getitem__, ordinary),
                                                           ordinary))
        return found

    @property
    def parents(self) -> dict[int, tuple[int, int]]:
        """id -> the two ids it was merged from."""
        found = self.__dict__.get("_parents")
        if found is None:
            found = self.__dict__["_parents"] = dict(zip(self.merges.values(), self.merges))
        return found

    @property
    def step_of(self) -> dict[int, int]:
        """The merge step that created each token: 1 for the first merge (bytes and special
        tokens are not in it: 0)."""
        found = self.__dict__.get("_step_of")
        if found is None:
            found = self.__dict__["_step_of"] = dict(zip(self.merges.values(),
                                                         range(1, len(self.merges) + 1)))
        return found

    def copy(self) -> Tokenizer:
        """An independent copy: training or changing one never changes the other.

        Cheap (no vocabulary is rebuilt): each dict and list is copied, their items are
        immutable (bytes, ints, tuples); the compiled pattern, a tokenizer.json's ``pipeline``
        and the lookups derived from the merges (``DERIVED_LOOKUPS``: never changed in place,
        dropped when the merges change), which nothing changes once built, are shared.
        ``load_pretrained`` hands out copies of one cached tokenizer per process this way.
        """
        other = object.__new__(type(self))
        for key, value in vars(self).items():
            if key in DERIVED_LOOKUPS and type(value) in (dict, list):
                pass
            elif isinstance(value, Mapping):
                value = dict(value)
            elif isinstance(value, list):
                value = list(value)
            object.__setattr__(other, key, value)
        object.__setattr__(other, "_cache", {})
        return other

    @property
    def vocab_size(self) -> int:
        """How many tokens there are (minbpe's count; tiktoken's ``n_vocab`` is the largest id + 1)."""
        return len(self.vocab)

    @property
    def byte_token_ids(self) -> list[int]:
        """The ids of the 256 single bytes, in byte order."""
        return list(range(256)) if self.byte_ids is None else list(self.byte_ids)

    @property
    def num_merges(self) -> int:
        return len(self.merges)

    def register_special_tokens(self, special_tokens: dict[str, int]) -> None:
        """Add special tokens, e.g. ``{"<|endoftext|>": 100257}``; ids must be unused.

        All or nothing: if one entry is refused (ValueError), none is added.
        """
        if not isinstance(special_tokens, dict):
            raise ValueError("special tokens must be a dict such as {'<|endoftext|>': 100257}")
        taken = {idx: shorten(s) for s, idx in self.special_tokens.items()}
        for special, idx in special_tokens.items():
            if not isinstance(special, str) or not special:
                raise ValueError(f"a special token must be a non-empty str, not {shorten(special)}")
            name = shorten(special)
            if any(ch in special for ch in "\r\n"):
                raise ValueError(f"special token {name} must not contain a line break")
            if clean_text(special) != special:
                raise ValueError(f"special token {name} is not valid text (it has a lone"
                                 " surrogate, which UTF-8 cannot encode)")
            if id_problem(idx):
                raise ValueError(f"the id {shorten(idx, 40)} of special token {name}"
                                 f" {id_problem(idx)}")
            if special in self.special_tokens and self.special_tokens[special] == idx:
                continue
            if special in self.special_tokens:
                raise ValueError(
                    f"{name} is already a special token with id {self.special_tokens[special]}"
                )
            if idx in taken or idx in self.vocab:
                used = taken.get(idx, f"token {idx}")
                raise ValueError(
                    f"id {idx} for {name} is already used by {used}; choose an id of"
                    f" {max(max(self.vocab), *taken, idx) + 1} or more"
                )
            taken[idx] = name
        added = {s: idx for s, idx in special_tokens.items() if s not in self.special_tokens}
        self.special_tokens = {**self.special_tokens, **added}
        # the derived lookups: only the vocabulary has special tokens in it (see _rebuild)
        self.vocab = {**self.vocab, **{idx: s.encode("utf-8") for s, idx in added.items()}}
        self._cache = {}

    # -- encoding ----------------------------------------------------------------------------

    def _whole_token_ids(self) -> Mapping[bytes, int]:
        """With ``ignore_merges`` (a tokenizer.json's flag), a chunk that is a whole token is
        that token, whatever the merges would make of it: then the ids of the tokens by their
        bytes, else nothing. A shipped vocabulary whose every token merges to itself
        (``WHOLE_TOKENS``, set by ``load_pretrained``; dropped when the merges change) takes the
        same shortcut: there it gives what merging gives."""
        if self.__dict__.get(WHOLE_TOKENS) or (
            self.pipeline is not None and self.pipeline.ignore_merges
        ):
            return self.token_ids
        return {}

    def _merge_chunk(self, chunk: str) -> list[int]:
        data = chunk.encode("utf-8")
        ids = list(data) if self.byte_ids is None else list(map(self.byte_ids.__getitem__, data))
        return apply_merges(ids, self.merges)

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode text, treating special-token text as ordinary text."""
        text = _check_text(text)
        try:
            return self._encode_ordinary(text)
        except UnicodeEncodeError:
            return self._encode_ordinary(clean_text(text))

    def _encode_ordinary(self, text: str) -> list[int]:
        ids: list[int] = []
        if self.pipeline is not None:  # its added tokens match in ordinary text too
            for chunk, idx in self.chunks(text, "none"):
                ids += self.encode_chunk(chunk) if idx is None else [idx]
            return ids
        if self._by_words():
            return encode_ordinary_text(self, text, self._cache)
        for chunk in self.split(text):
            ids += self.encode_chunk(chunk)
        return ids

    def _by_words(self) -> bool:
        """Whether text may be encoded a word at a time (``words.py``): a pattern known to allow
        it, no pipeline, and no timeout (the words are split one by one)."""
        return self.pipeline is None and self.timeout is None and self._pattern in WORD_PATTERNS

    def encode_chunk(self, chunk: str) -> list[int]:
        """One chunk's ids (a chunk of ``chunks()``: no further split), by merge rank."""
        chunk_ids = self._cache.get(chunk)
        return chunk_ids if chunk_ids is not None else self.encode_chunks([chunk])[0]

    def encode_chunks(self, chunks: list[str]) -> list[list[int]]:
        """``encode_chunk`` of each of ``chunks``, at a lower cost per chunk (``words.py``: a text's
        new chunks are encoded together). Chunks of up to ``CACHE_MAX_CHUNK`` characters are
        remembered, since text repeats its words: ``CACHE_SIZE`` of them, then afresh."""
        cache = self._cache
        out = list(map(cache.get, chunks))
        if None not in out:
            return out
        every_one = out.count(None) == len(out)  # none known: a first encode
        new = chunks if every_one else [chunk for chunk, ids in zip(chunks, out) if ids is None]
        data = list(map(str.encode, new))
        whole = list(map(self._whole_token_ids().get, data))
        if None in whole:  # the chunks that are not whole tokens are merged, all in one call
            if self._merge_chunk.__func__ is vars(Tokenizer)["_merge_chunk"]:  # not overridden
                merged = iter(merge_chunks([d for d, idx in zip(data, whole) if idx is None],
                                           self.merges, self.byte_ids)).__next__
            else:  # a subclass's own merge of one chunk
                merged = map(self._merge_chunk, [c for c, idx in zip(new, whole)
                                                 if idx is None]).__next__
            new_ids = [[idx] if idx is not None else merged() for idx in whole]
        else:
            new_ids = [[idx] for idx in whole]
        if len(cache) + len(new) > CACHE_SIZE:
            cache.clear()
        if len(new) <= CACHE_SIZE and max(map(len, new)) <= CACHE_MAX_CHUNK:
            cache.update(zip(new, new_ids))
        else:
            cache.update(islice(((c, ids) for c, ids in zip(new, new_ids)
                                 if len(c) <= CACHE_MAX_CHUNK), CACHE_SIZE))
        if every_one:
            return new_ids
        fresh = iter(new_ids).__next__
        return [ids if ids is not None else fresh() for ids in out]

    def encode(
        self,
        text: str,
        allowed_special: object = "none_raise",
        disallowed_special: object = "all",
        *,
        dropout: float = 0.0,
        seed: int | None = None,
    ) -> list[int]:
        """Encode text, with tiktoken's rules for special tokens (and minbpe's words for them).

        ``allowed_special``: the special tokens whose text becomes their id: "all", a set, or
        none (the default; minbpe's "none_raise"). ``disallowed_special``: the special tokens
        whose text is an error ("all", the default, means every one not allowed; ``()`` means
        none: their text is encoded as ordinary text, as minbpe's "none" does).

        ``dropout=p`` (BPE-dropout, see ``encoders.dropout_merges``): each possible merge is
        skipped with probability p at every step, so a text gets other tokenizations (mostly
        with more tokens); ``seed`` makes them repeatable (None: a new one every call). Special
        tokens stay whole; a tokenizer.json's ``ignore_merges`` is not applied then, as in
        Hugging Face's BPE (tokenizers 0.23 keeps a chunk that is a whole token only when
        dropout is off).

        >>> from bpe_core import BasicTokenizer
        >>> tok = BasicTokenizer()
        >>> tok.train("aaabdaaabac", 259)
        >>> tok.encode("aaab"), tok.encode("aaab", dropout=1.0)
        ([258], [97, 97, 97, 98])
        """
        if isinstance(dropout, bool) or not isinstance(dropout, int | float) or not (
            0 <= dropout <= 1
        ):
            raise ValueError(f"dropout must be a probability from 0 to 1, such as 0.1, not"
                             f" {shorten(dropout)}")
        ids: list[int] = []
        if dropout == 0 and self._by_words():  # a word at a time, from the cache
            for piece, special_id in self.segments(text, allowed_special, disallowed_special):
                if special_id is None:
                    ids += encode_ordinary_text(self, piece, self._cache)
                else:
                    ids.append(special_id)
            return ids
        if dropout == 0:  # plain BPE: short chunks come from the cache
            for chunk, special_id in self.chunks(text, allowed_special, disallowed_special):
                if special_id is None:
                    ids += self.encode_chunk(chunk)
                else:
                    ids.append(special_id)
            return ids
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise ValueError(f"seed must be a whole number or None, not {shorten(seed)}")
        rng = random.Random(seed)  # once per call: the same seed gives the same tokens
        byte_ids = self.byte_token_ids
        for chunk, special_id in self.chunks(text, allowed_special, disallowed_special):
            if special_id is None:  # never cached: each call draws anew
                chunk_ids = [byte_ids[b] for b in chunk.encode("utf-8")]
                ids += dropout_merges(chunk_ids, self.merges, dropout, rng)
            else:
                ids.append(special_id)
        return ids

    def segments(
        self, text: str, allowed_special: object = "none_raise", disallowed_special: object = "all"
    ) -> list[tuple[str, int | None]]:
        """Cut text at the allowed special tokens: ``[(piece, special id or None), ...]``."""
        text = clean_text(_check_text(text))
        special = self._allowed_specials(text, allowed_special, disallowed_special)
        # leftmost-longest ("<|a|>b" wins over "<|a|>"), as a tokenizer.json's added tokens match
        return self._find_specials(text, special)

    # -- decoding ----------------------------------------------------------------------------

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The bytes of a token sequence (join first, decode after: tokens may split characters)."""
        if isinstance(ids, str):  # tiktoken's TypeError (a str is no list of ids)
            raise WrongTypeError(f"decode takes a list of token ids, not a str ({shorten(ids)})")
        ids = ids if isinstance(ids, (list, tuple)) else list(ids)
        try:
            data = b"".join(map(self.vocab.__getitem__, ids))
        except (KeyError, TypeError) as e:
            raise bad_id_error(e, self.vocab) from None
        for kind in set(map(type, ids)) - _WHOLE:  # 1.0 or Decimal(1) find token 1 in a dict
            if not hasattr(kind, "__index__"):  # tiktoken's TypeError; numpy's ints pass
                bad = next(i for i in ids if type(i) is kind)
                raise WrongTypeError(f"token ids are whole numbers, not {shorten(bad)}")
        return data

    def decode_single_token_bytes(self, idx: int) -> bytes:
        """The bytes of one token, e.g. ``decode_single_token_bytes(256) == b"e "``."""
        return self.decode_bytes([idx])

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """Text of a token sequence; invalid UTF-8 becomes U+FFFD with ``errors="replace"``.

        A tokenizer read from a tokenizer.json whose ``decoder`` spells text otherwise decodes
        as Hugging Face does (``pipeline.decoder``, decoders.py); ``decode_bytes`` stays the
        bytes.
        """
        decoder = None if self.pipeline is None else self.pipeline.decoder
        if decoder is not None:
            ids = list(ids)
            self.decode_bytes(ids)  # an unknown id is an error, as below
            return decoder.decode(self._token_strings(ids))
        return self.decode_bytes(ids).decode("utf-8", errors=errors)

    def _token_strings(self, ids: list[int]) -> list[str]:
        """How a tokenizer.json spells each token: an added token's content, else its bytes in
        GPT-2's byte characters."""
        added = {idx: s for s, idx in self.special_tokens.items()}
        if self.pipeline is not None:
            added.update({t.id: t.content for t in self.pipeline.added.values()})
        return [added[i] if i in added else gpt2_string(self.vocab[i]) for i in ids]

    # -- stepping through merges ------------------------------------------------------------

    def step_through(self, text: str, allowed_special: object = "none_raise") -> StepThrough:
        """Precompute ``text`` so that its tokens after any number of merges come back fast."""
        from .steps import StepThrough

        return StepThrough(self, text, allowed_special)

    def trace(self, text: str) -> EncodeTrace:
        """Every merge ``encode_ordinary(text)`` makes, in the order it makes them, chunk by chunk.

        >>> from bpe_core import BasicTokenizer
        >>> tok = BasicTokenizer()
        >>> tok.train("aaabdaaabac", 259)
        >>> [(s.pair, s.new) for s in tok.trace("aaab").steps]
        [((97, 97), 256), ((256, 97), 257), ((257, 98), 258)]
        """
        pieces = self.chunks(text, "none")
        chunks = [chunk for chunk, _ in pieces]
        start: list[list[int]] = []
        steps: list[TraceStep] = []
        final: list[int] = []
        for c, (chunk, added) in enumerate(pieces):
            whole = added if added is not None else self._whole_token_ids().get(chunk.encode())
            if whole is not None:
                start.append([whole])
                final += start[-1]  # an added token, or a whole token (ignore_merges)
                continue
            data = chunk.encode("utf-8")
            ids = list(data) if self.byte_ids is None else [self.byte_ids[b] for b in data]
            start.append(ids)
            last = ids
            for a, b, new, position, after in trace_merges(ids, self.merges):
                steps.append(TraceStep(c, a, b, new, self.step_of.get(new, 0), position, after))
                last = list(after)
            final += last
        return EncodeTrace(chunks, start, steps, final)

    def tokens_at_step(
        self, text: str, k: int, allowed_special: object = "none_raise"
    ) -> list[TokenSpan]:
        """``text`` tokenized with only the first ``k`` merges, with byte and character spans."""
        return self.step_through(text, allowed_special).tokens_at(k)

    # -- minbpe's load (saving: saving.py) ----------------------------------------------------

    def load(self, model_file: str) -> None:
        """Read a minbpe ``.model`` file into this tokenizer, as minbpe does::

            tok = RegexTokenizer()
            tok.load("toy.model")

        All or nothing: a bad file is a ValueError and the tokenizer stays as it was.
        The training history comes back from the sidecar ``save`` writes beside the file.
        ``bpe_core.load(path)`` reads every format and returns a new tokenizer.
        """
        from .formats import parse_minbpe
        from .sidecar import read_sidecar, sidecar_path

        name = os.fspath(model_file)
        try:
            with open(name, "rb") as f:
                data = f.read(64 * 1024 * 1024 + 1)
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ValueError(f"cannot read {name} as a .model file: {e}") from e
        if len(data) > 64 * 1024 * 1024:
            raise ValueError(f"{name} is too large for a .model file")
        pattern, special_tokens, merges = parse_minbpe(text, name)
        if pattern and not self.splits:
            raise ValueError(f"{name} has a split pattern, which a {type(self).__name__} does not"
                             " use; load it into a RegexTokenizer (or use bpe_core.load)")
        try:
            fresh = Tokenizer(pattern, timeout=self.timeout, special_tokens=special_tokens,
                              merges={pair: 256 + i for i, pair in enumerate(merges)})
        except ValueError as e:
            raise ValueError(f"{name}: {e}") from None
        side_name = sidecar_path(name)
        if os.path.exists(side_name):
            with open(side_name, "rb") as f:
                side = read_sidecar(f.read(), side_name)
            if side.format != "minbpe":
                raise ValueError(f"{side_name} describes a {side.format} file, not a .model file")
            side.check_files({"file": (name, data)})
            fresh.history = side.records(fresh)
        for lookup in DERIVED_LOOKUPS:  # this tokenizer's, built from its old merges
            self.__dict__.pop(lookup, None)
        fresh.from_file = True  # its pattern is the file's: bounded as a file's (limits)
        self.__dict__.update(fresh.__dict__)

    def __repr__(self) -> str:
        kind = type(self).__name__
        return f"<{kind} {self.vocab_size} tokens, {self.num_merges} merges>"


def split_from_json(json_text: str) -> Tokenizer:
    """A tokenizer that cuts text as the tokenizer.json ``json_text`` does (its split pattern and
    pipeline; no merges needed): how a worker process gets a pipeline, whose closures pickle
    cannot carry (``corpus.PipelineSplit``)."""
    from .formats import parse_hf_json

    data = parse_hf_json(json_text)
    return Tokenizer(data.pattern, pipeline=data.pipeline)
