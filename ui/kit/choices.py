"""What the sidebar lets a user choose, and how a choice becomes a tokenizer (no Streamlit here)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import PurePath

import bpe_core
from bpe_core import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
from bpe_core.limits import (
    DEFAULT_MEMORY,
    DEFAULT_SECONDS,
    MAX_LINK_PATTERN_CHARS,
    MAX_PATTERN_CHARS,
    MAX_UPLOAD_MB,
    set_untrusted_budget,
)
from ui.kit.special_rule import DEFAULT_RULE, RULES

# label in the sidebar -> (kind, split pattern or preset name)
KINDS: dict[str, tuple[str, str | None]] = {
    "Train: GPT-4 split": ("regex", GPT4_SPLIT_PATTERN),
    "Train: GPT-2 split": ("regex", GPT2_SPLIT_PATTERN),
    "Train: GPT-4o split": ("regex", GPT4O_SPLIT_PATTERN),
    "Train: custom split pattern": ("regex", None),
    "Train: no split (Basic)": ("basic", ""),
    "Pretrained: GPT-2": ("preset", "gpt2"),
    "Pretrained: GPT-4 (cl100k_base)": ("preset", "cl100k_base"),
    "Pretrained: GPT-4o (o200k_base)": ("preset", "o200k_base"),
    "Imported file": ("imported", None),
}
DEFAULT_KIND = "Train: GPT-4 split"

# Short names for links: ?sample=code&kind=gpt2&vocab=1024&step=40 (the text itself never goes in)
KIND_SLUGS = {
    "gpt4": "Train: GPT-4 split",
    "gpt2": "Train: GPT-2 split",
    "gpt4o": "Train: GPT-4o split",
    "custom": "Train: custom split pattern",
    "basic": "Train: no split (Basic)",
    "pretrained-gpt2": "Pretrained: GPT-2",
    "pretrained-cl100k": "Pretrained: GPT-4 (cl100k_base)",
    "pretrained-o200k": "Pretrained: GPT-4o (o200k_base)",
}
# the link's ?family= (ui.kit.families): absent for byte-level, as links made before it
FAMILY_SLUGS = {"sentencepiece": "sentencepiece", "word": "word"}
SAMPLE_SLUGS = {
    "english": "English prose",
    "code": "Source code",
    "multilingual": "Multilingual + emoji",
    "tricky": "Tricky: numbers, contractions, whitespace",
}


def settings_from_query(query: dict[str, str]) -> tuple[dict[str, object], list[str]]:
    """Sidebar values from a link's query, and a note for every part that was not understood.

    >>> settings_from_query({"sample": "code", "kind": "gpt2", "vocab": "1024", "step": "7"})
    ({'sample': 'Source code', 'kind': 'Train: GPT-2 split', 'vocab_size': 1024, 'step': 7}, [])
    >>> settings_from_query({"vocab": "lots"})[1]
    ["the link's vocab 'lots' is not a whole number from 256 to 8192"]
    """
    values: dict[str, object] = {}
    notes = []
    for name, slugs in (("sample", SAMPLE_SLUGS), ("kind", KIND_SLUGS), ("family", FAMILY_SLUGS)):
        raw = query.get(name)
        if raw is None:
            continue
        if raw in slugs:
            values[name] = slugs[raw]
        else:
            notes.append(f"the link's {name} {raw[:30]!r} is not one of {list(slugs)}")
    if "pattern" in query and values.get("kind") == KIND_SLUGS["custom"]:
        values["pattern"] = query["pattern"][:MAX_LINK_PATTERN_CHARS]
    for name, key, low, high in (("vocab", "vocab_size", MIN_VOCAB, MAX_VOCAB),
                                 ("step", "step", 0, 10**6)):
        raw = query.get(name)
        if raw is None:
            continue
        if raw.isascii() and raw.isdigit() and len(raw) <= 9 and low <= int(raw) <= high:
            values[key] = int(raw)
        else:
            notes.append(f"the link's {name} {raw[:30]!r} is not a whole number from {low} to {high}")
    rule = query.get("special")
    if rule is not None:
        if rule in RULES:
            values["special_rule"] = rule
        else:
            notes.append(f"the link's special {rule[:30]!r} is not one of {list(RULES)}")
    return values, notes


def query_from_settings(sample: str | None, kind: str, vocab_size: int, pattern: str,
                        step: int | None, special_rule: str = DEFAULT_RULE,
                        family: str = "byte-level") -> dict[str, str]:
    """The link's query for these sidebar values (the inverse of ``settings_from_query``).

    ``sample`` is None when the text is the user's own: the link then names no sample (a link
    never carries the text, so it cannot bring that text back either).

    >>> query_from_settings("Source code", "Train: GPT-2 split", 300, "", None)
    {'sample': 'code', 'kind': 'gpt2', 'vocab': '300'}
    >>> query_from_settings(None, "Train: GPT-2 split", 300, "", 7)
    {'kind': 'gpt2', 'vocab': '300', 'step': '7'}
    >>> query_from_settings(None, "Train: GPT-2 split", 300, "", None, "special")
    {'kind': 'gpt2', 'vocab': '300', 'special': 'special'}

    The special-token rule is in the link only when it is not the default (older links read as
    before), and so is the family:

    >>> query_from_settings(None, "Train: GPT-2 split", 300, "", None, family="word")
    {'family': 'word', 'vocab': '300'}
    """
    query = {}
    sample_slug = {v: k for k, v in SAMPLE_SLUGS.items()}.get(sample)
    kind_slug = {v: k for k, v in KIND_SLUGS.items()}.get(kind)
    if sample_slug:
        query["sample"] = sample_slug
    if family in FAMILY_SLUGS:  # the family trains at the size; the byte-level kind plays no part
        query["family"] = family
    elif kind_slug:
        query["kind"] = kind_slug
        if kind_slug == "custom":
            query["pattern"] = pattern
    if family in FAMILY_SLUGS or KINDS.get(kind, ("",))[0] in ("regex", "basic"):
        query["vocab"] = str(vocab_size)
    if step is not None:
        query["step"] = str(step)
    if special_rule != DEFAULT_RULE and special_rule in RULES:
        query["special"] = special_rule
    return query

MIN_VOCAB = 256
MAX_VOCAB = 8_192  # with MAX_TRAIN_CHARS: the worst text (random, no repeats) trains in seconds
DEFAULT_VOCAB = 512
# Longer pasted or uploaded text is cut, with a note. At this size the worst text (random, nothing
# repeats) keeps every page's first visit within about 3 s of server time on a 2-core machine and a
# session within about 150 MB (`python benchmarks/limits.py` measures it); at 1,000,000 characters
# Compare took 7-11 s and a session 510 MB, and a classroom shares one server.
MAX_TEXT_CHARS = 200_000
# The sidebar's Text box takes a paste up to this long, and the app keeps the first MAX_TEXT_CHARS
# of it with a note of how many were cut. Streamlit's box refuses, without a word, any change
# longer than its max_chars: with MAX_TEXT_CHARS there, a longer paste left the old text in place.
# About what the uploader takes (10 MB): the server holds the paste once, in the callback that cuts it.
MAX_PASTE_CHARS = MAX_UPLOAD_MB * 1_000_000
# Training reads at most this much of the text (with a note when the text is longer). Text that
# repeats trains fast at any size (each distinct chunk is counted once); random text costs about
# 0.7 s (GPT-4 split) to 1.4 s (no split) at 200,000 characters and vocab 8,192.
MAX_TRAIN_CHARS = MAX_TEXT_CHARS
# Seconds and memory one piece of untrusted work may take (a custom split pattern on the whole
# text, a file's regexes): the policy app.py installs once, which every tokenizer obeys.
REGEX_TIMEOUT = DEFAULT_SECONDS
# CPU seconds of its worker one training of SentencePiece or word BPE may take (and 4 times as
# many of wall time), in DEFAULT_MEMORY: at the caps below, the worst text took 1.8 s
# (SentencePiece, 200,000 characters) and 1.7 s (word BPE, 20,000) at load 7 (docs/LIMITS.md)
TRAIN_SECONDS = 30.0
MAX_SPECIALS = 20


def install_budget() -> None:
    """The app's budget for untrusted work (bpe_core.limits): every split by a pattern that is
    not built in, every tokenizer file's regexes and every read of an upload, every training of
    a SentencePiece-style or word BPE model, on every page. app.py calls it at start, so a page
    added later is bounded with no guard of its own."""
    set_untrusted_budget(REGEX_TIMEOUT, DEFAULT_MEMORY, train_seconds=TRAIN_SECONDS)


@dataclass(frozen=True)
class Settings:
    """Everything that decides a trained tokenizer, besides the text."""

    kind: str  # a KINDS label
    pattern: str  # the split pattern ("" for Basic; the custom one for custom)
    vocab_size: int
    specials: tuple[str, ...]
    family: str = "byte-level"  # ui.kit.families: the family of BPE trained

    @property
    def is_preset(self) -> bool:
        return self.family == "byte-level" and KINDS[self.kind][0] in ("preset", "imported")

    @property
    def preset(self) -> str | None:
        kind, name = KINDS[self.kind]
        return name if kind == "preset" and self.family == "byte-level" else None


def make_settings(kind: str, custom_pattern: str, vocab_size: object, specials_text: str,
                  family: str = "byte-level") -> Settings:
    """Check the sidebar's values and bundle them; ValueError says what to change. A family
    other than byte-level (ui.kit.families) takes the vocabulary size only: it has no split
    pattern and no special tokens of the user's."""
    if kind not in KINDS:
        raise ValueError(f"unknown tokenizer choice {kind!r}")
    if family != "byte-level":
        return Settings(kind, "", _vocab_size(vocab_size), (), family)
    how, pattern = KINDS[kind]
    if how == "regex" and pattern is None:
        pattern = custom_pattern
        if not pattern.strip():
            raise ValueError("Write a split pattern, e.g. \\w+|\\s+|[^\\w\\s]+ (or pick a GPT split).")
        if len(pattern) > MAX_PATTERN_CHARS:
            raise ValueError(f"The split pattern is {len(pattern):,} characters long; write one of at"
                             f" most {MAX_PATTERN_CHARS:,} (GPT-4o's is about 350).")
        bpe_core.RegexTokenizer(pattern)  # raises ValueError with the regex error
    size = _vocab_size(vocab_size)
    specials = parse_specials(specials_text)
    if size < MIN_VOCAB + len(specials):
        raise ValueError(f"The vocabulary size counts the special tokens too: with {len(specials)} "
                         f"of them, make it at least {MIN_VOCAB + len(specials):,} (the 256 "
                         f"bytes and the special tokens).")
    return Settings(kind, pattern or "", size, specials)


def _vocab_size(vocab_size: object) -> int:
    try:
        size = int(vocab_size)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        raise ValueError(f"The vocabulary size must be a whole number, not {vocab_size!r}.") from None
    if not MIN_VOCAB <= size <= MAX_VOCAB:
        raise ValueError(
            f"The vocabulary size must be between {MIN_VOCAB} (the 256 bytes) and {MAX_VOCAB:,}."
        )
    return size


def parse_specials(text: str) -> tuple[str, ...]:
    """Special tokens written one per line or separated by commas.

    >>> parse_specials("<|endoftext|>, <|pad|>")
    ('<|endoftext|>', '<|pad|>')
    """
    parts = [p.strip() for line in text.splitlines() for p in line.split(",")]
    specials = tuple(dict.fromkeys(p for p in parts if p))
    if len(specials) > MAX_SPECIALS:
        raise ValueError(f"At most {MAX_SPECIALS} special tokens, please.")
    for s in specials:
        if len(s) > 100:
            raise ValueError(f"The special token {s[:20]!r}… is too long (100 characters at most).")
    return specials


def text_problem(text: str | None) -> str | None:
    """Why a text cannot be trained on, or None.

    >>> text_problem("  \\n")
    'The text is only whitespace: paste some text or pick a sample to train on.'
    """
    if not text:
        return "The text is empty: paste some text or pick a sample to train on."
    if text.isspace():
        return "The text is only whitespace: paste some text or pick a sample to train on."
    return None


def cap_text(text: str, limit: int = MAX_TEXT_CHARS, what: str = "Using") -> tuple[str, str | None]:
    """The text cut to ``limit`` characters, and a note when something was cut, saying how much.

    >>> cap_text("abcdef", 4)
    ('abcd', 'Using the first 4 of 6 characters: the last 2 were cut.')
    """
    if len(text) <= limit:
        return text, None
    return text[:limit], (f"{what} the first {limit:,} of {len(text):,} characters: the last"
                          f" {len(text) - limit:,} were cut.")


# The command line's names for the app's split patterns (bpe-lab train --pattern)
CLI_PATTERNS = {GPT4_SPLIT_PATTERN: "gpt4", GPT2_SPLIT_PATTERN: "gpt2", GPT4O_SPLIT_PATTERN: "gpt4o",
                "": "none", "gpt2": "gpt2", "cl100k_base": "gpt4", "o200k_base": "gpt4o"}
PASTE_CORPUS = "my-text.txt"  # the file name offered for a pasted text


def train_command(corpus: str, kind: str, pattern: str, vocab_size: object,
                  specials_text: str, family: str = "byte-level") -> str | None:
    """The ``bpe-lab train`` command that trains the sidebar's choice on all of ``corpus`` (a
    file the app could take only the start of), writing a .model that Export & import opens.

    The command line counts special tokens in ``--vocab-size``, as the app does; a pretrained
    choice trains with its split pattern, and an
    imported one or a value that does not check out with the defaults.

    >>> train_command("notes.txt", "Train: GPT-2 split", "", 1024, "<|endoftext|>")
    "bpe-lab train notes.txt --vocab-size=1024 --pattern=gpt2 '--special-token=<|endoftext|>' --out notes.model"
    >>> train_command("my notes.md", "Train: custom split pattern", "[a-z]+| ", 512, "")
    "bpe-lab train 'my notes.md' --vocab-size=512 '--pattern=[a-z]+| ' --out my-notes.model"

    SentencePiece trains as the app trains it (byte fallback, every space kept); word BPE has no
    ``bpe-lab train`` (None):

    >>> train_command("notes.txt", "", "", 1024, "", "sentencepiece")
    'bpe-lab train notes.txt --family sentencepiece --vocab-size=1024 --byte-fallback --keep-whitespace --out notes.model'
    >>> train_command("notes.txt", "", "", 1024, "", "word") is None
    True
    """
    if family == "word":
        return None
    try:
        size = int(vocab_size)  # type: ignore[call-overload]
        specials = parse_specials(specials_text)
    except (TypeError, ValueError):
        size, specials = DEFAULT_VOCAB, ()
    size = min(max(size, MIN_VOCAB), MAX_VOCAB)
    how, fixed = KINDS.get(kind, ("imported", None))
    if how == "imported":
        pattern = GPT4_SPLIT_PATTERN
    elif fixed is not None:
        pattern = fixed
    stem = "-".join(PurePath(corpus).stem.split()).lstrip("-") or "corpus"
    if corpus.startswith("-"):  # a file name, not an option
        corpus = "./" + corpus
    if family == "sentencepiece":
        return shlex.join(["bpe-lab", "train", corpus, "--family", "sentencepiece",
                           f"--vocab-size={size}", "--byte-fallback", "--keep-whitespace",
                           "--out", f"{stem}.model"])
    # --option=value: a pattern or a special token starting with "-" is not read as an option
    words = ["bpe-lab", "train", corpus, f"--vocab-size={max(size, 256 + len(specials))}",
             f"--pattern={CLI_PATTERNS.get(pattern, pattern)}"]
    words += [f"--special-token={special}" for special in specials]
    return shlex.join([*words, "--out", f"{stem}.model"])


def train_tokenizer(text: str, settings: Settings, progress=None, candidates: int = 6,
                    variant: dict | None = None):
    """A new tokenizer trained on ``text`` as ``settings`` say, by the library's own path:
    ``train(special_tokens=...)`` cuts the text at the special tokens (no merge is learned across
    or inside them) and counts them in the vocabulary size, their ids after the merges (as CS336
    and ``bpe-lab train`` do).

    ``variant`` (the Variants page) holds more ``Tokenizer.train`` options: ``tie_rule``,
    ``min_frequency``, ``max_token_bytes``, and ``specials_as_text``: train over the special
    tokens' text as over any other, and add them after the merges, outside the vocabulary size
    (minbpe's ``register_special_tokens``).
    """
    how, _ = KINDS[settings.kind]
    if how == "basic":
        tok = bpe_core.BasicTokenizer()
    else:
        tok = bpe_core.RegexTokenizer(settings.pattern)  # bounded by the app's budget
    options = dict(variant or {})
    as_text = options.pop("specials_as_text", False) and bool(settings.specials)
    if settings.specials and not as_text:
        options["special_tokens"] = list(settings.specials)
    tok.train(text, settings.vocab_size, progress=progress, candidates=candidates, **options)
    if as_text:
        start = max(tok.vocab) + 1
        tok.register_special_tokens({s: start + i for i, s in enumerate(settings.specials)})
    return tok
