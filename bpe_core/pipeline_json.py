"""Reading a Hugging Face ``tokenizer.json``'s text pipeline: its normalizer, pre-tokenizer,
added tokens, post-processor and decoder, checked key by key and made into a ``Pipeline``
(``pipeline.py``, which runs it). Everything a file may say that would change ids and is not
followed is refused with the key named; what changes only a model's input (padding, a
post-processor's added tokens) is listed as ignored.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

import regex

from .decoders import read_decoder
from .limits import check_pattern
from .oniguruma import compile_translated, from_oniguruma
from .patterns import BYTE_LEVEL_PATTERN
from .pipeline import (
    BEHAVIORS,
    HF_PUNCTUATION,
    HF_WHITE,
    HF_WORD_CHAR,
    AddedToken,
    Normalize,
    Pipeline,
    Step,
    lowercase,
    split_regex,
    strip_accents,
    unicode_normal_form,
)
from .text import GPT2_CHAR_TO_BYTE, shorten

# -- reading tokenizer.json -------------------------------------------------------------------


def _unsupported(name: str, key: str, what: object, hint: str, after: str = "") -> ValueError:
    """``<file>: <key> <what><after> is not supported``: ``what`` is quoted, ``after`` is not
    (so a closing parenthesis stays outside the quotes)."""
    return ValueError(f"{name}: {key} {shorten(what, 60)}{after} is not supported: it would"
                      f" change the ids and bpe_core cannot do it exactly. {hint}")


def _regex_of(obj: object, name: str, key: str) -> str:
    """A Split or Replace pattern: ``{"String": s}`` (literal) or ``{"Regex": r}`` (Oniguruma)."""
    if isinstance(obj, dict) and isinstance(obj.get("String"), str):
        return regex.escape(obj["String"])
    if isinstance(obj, dict) and isinstance(obj.get("Regex"), str):
        try:
            return from_oniguruma(obj["Regex"])
        except ValueError as e:
            raise ValueError(f"{name}: key '{key}': {e}") from None
    raise ValueError(f"{name}: key '{key}' should be {{\"String\": ...}} or {{\"Regex\": ...}},"
                     f" found {shorten(obj)}")


def _compile(pattern: str, name: str, key: str) -> regex.Pattern:
    check_pattern(pattern, f"{name}: the pattern of key '{key}'", max_chars=None)
    try:
        return compile_translated(pattern)
    except (regex.error, OverflowError, RecursionError) as e:
        raise ValueError(f"{name}: key '{key}' is not a regex this tool reads ({e})") from None


_REQUIRED = object()


def _flag(step: dict, field: str, name: str, key: str, default: object = _REQUIRED) -> bool:
    """A true/false field of a step, as strict as Hugging Face's reader (which refuses a
    missing field that has no default, and anything but a boolean)."""
    value = step.get(field, default)
    if not isinstance(value, bool):
        raise ValueError(f"{name}: key '{key}.{field}' should be true or false, found"
                         f" {'nothing' if value is _REQUIRED else shorten(value)}")
    return value


def _steps(obj: object, name: str, key: str, list_key: str) -> list[tuple[str, dict]]:
    """Flatten a Sequence: ``[(key path, step object)]``."""
    if not isinstance(obj, dict):
        raise ValueError(f"{name}: key '{key}' should be an object")
    if obj.get("type") != "Sequence":
        return [(key, obj)]
    items = obj.get(list_key)
    if not isinstance(items, list):
        raise ValueError(f"{name}: key '{key}.{list_key}' should be a list")
    out = []
    for k, item in enumerate(items):
        out += _steps(item, name, f"{key}.{list_key}[{k}]", list_key)
    return out


def _normalizer(obj: object, name: str) -> tuple[list[Normalize], list[str]]:
    steps, described = [], []
    for key, step in _steps(obj, name, "normalizer", "normalizers"):
        kind = step.get("type")
        if kind in ("NFC", "NFD", "NFKC", "NFKD"):
            steps.append(lambda s, _, form=kind: unicode_normal_form(form, s))
            described.append(f"normalize Unicode ({kind})")
        elif kind == "Lowercase":
            steps.append(lambda s, _: lowercase(s))
            described.append("lowercase")
        elif kind == "StripAccents":
            steps.append(lambda s, _: strip_accents(s))
            described.append("strip accents (combining marks)")
        elif kind == "Strip":
            left, right = (_flag(step, "strip_left", name, key), _flag(step, "strip_right", name, key))
            strip = regex.compile(("^" + HF_WHITE + "+" if left else "(?!)") + "|"
                                  + (HF_WHITE + r"+\Z" if right else "(?!)"))
            steps.append(lambda s, _, strip=strip: strip.sub("", s))
            described.append("strip whitespace" + ("" if left and right else
                                                   " on the left" if left else " on the right"))
        elif kind == "Replace":
            pattern = _compile(_regex_of(step.get("pattern"), name, key + ".pattern"), name, key)
            content = step.get("content")
            if not isinstance(content, str):
                raise ValueError(f"{name}: key '{key}.content' should be a string")
            steps.append(lambda s, timeout, p=pattern, c=content: p.sub(lambda _: c, s,
                                                                        timeout=timeout))
            described.append(f"replace {shorten(step.get('pattern'), 40)} by {shorten(content, 20)}")
        elif kind == "Prepend":
            prefix = step.get("prepend")
            if not isinstance(prefix, str):
                raise ValueError(f"{name}: key '{key}.prepend' should be a string")
            steps.append(lambda s, _, p=prefix: p + s if s else s)
            described.append(f"prepend {shorten(prefix, 20)}")
        else:
            raise _unsupported(name, f"key '{key}' (normalizer type", kind,
                               "bpe_core reads NFC, NFD, NFKC, NFKD, Lowercase, StripAccents,"
                               " Strip, Replace, Prepend and Sequence of these; remove the"
                               " normalizer or use the tokenizers library.", after=")")
    return steps, described


def _pre_tokenizer(obj: object, name: str) -> tuple[list[Step], list[str], tuple | None]:
    """The steps, their description, and ``(pattern, prefix_space, byte_level_regex)`` when the
    whole pre-tokenizer is a plain split pattern (no step list needed)."""
    items = _steps(obj, name, "pre_tokenizer", "pretokenizers")
    steps: list[Step] = []
    described: list[str] = []
    byte_level = None
    simple: list[str] = []  # the regexes when every step is an Isolated Split
    for key, step in items:
        kind = step.get("type")
        if byte_level is not None:
            raise ValueError(f"{name}: key '{key}' comes after the ByteLevel pre-tokenizer, which"
                             " turns text into byte symbols; bpe_core reads ByteLevel last only")
        if kind == "ByteLevel":
            byte_level = step
            prefix = _flag(step, "add_prefix_space", name, key)
            use_regex = _flag(step, "use_regex", name, key, True)
            compiled = regex.compile(BYTE_LEVEL_PATTERN)
            split = split_regex(compiled, "Isolated", False)

            def byte_level_step(piece, timeout, prefix=prefix, use_regex=use_regex, split=split):
                if prefix and not piece.startswith(" "):
                    piece = " " + piece
                return split(piece, timeout) if use_regex else [piece]

            steps.append(byte_level_step)
            described.append("ByteLevel: " + ", ".join(
                (["a space before every piece"] if prefix else [])
                + (["split with GPT-2's regex"] if use_regex else []) or ["bytes"]))
            if use_regex:
                simple.append(BYTE_LEVEL_PATTERN)
            if prefix:
                simple.append("not simple")
            continue
        if kind == "Split":
            pattern = _regex_of(step.get("pattern"), name, key + ".pattern")
            behavior, invert = step.get("behavior"), _flag(step, "invert", name, key)
            if behavior not in BEHAVIORS:
                raise ValueError(f"{name}: key '{key}.behavior' is {shorten(behavior)}; expected"
                                 f" one of {', '.join(BEHAVIORS)}")
            compiled = _compile(pattern, name, key + ".pattern")
            simple.append(pattern if behavior == "Isolated" and not invert else "not simple")
        elif kind == "Digits":
            individual = _flag(step, "individual_digits", name, key, False)
            behavior = "Isolated" if individual else "Contiguous"
            compiled, invert, pattern = regex.compile(r"\p{N}"), False, "not simple"
            simple.append(pattern)
        elif kind == "Punctuation":
            behavior, invert = step.get("behavior", "Isolated"), False
            if behavior not in BEHAVIORS:
                raise ValueError(f"{name}: key '{key}.behavior' is {shorten(behavior)}")
            compiled = regex.compile(HF_PUNCTUATION)
            simple.append("not simple")
        elif kind == "Whitespace":
            compiled = regex.compile(f"{HF_WORD_CHAR}+|[^{HF_WORD_CHAR[1:-1]}{HF_WHITE}]+")  # \\w+|[^\\w\\s]+
            behavior, invert = "Removed", True
            simple.append("not simple")
        elif kind == "WhitespaceSplit":
            compiled, behavior, invert = regex.compile(HF_WHITE), "Removed", False
            simple.append("not simple")
        elif kind == "CharDelimiterSplit" and isinstance(step.get("delimiter"), str):
            compiled = regex.compile(regex.escape(step["delimiter"]))
            behavior, invert = "Removed", False
            simple.append("not simple")
        else:
            raise _unsupported(name, f"key '{key}' (pre-tokenizer type", kind,
                               "bpe_core reads byte-level BPE: ByteLevel, Split, Digits,"
                               " Punctuation, Whitespace, WhitespaceSplit, CharDelimiterSplit"
                               " and Sequence of these.", after=")")
        steps.append(split_regex(compiled, behavior, invert))
        described.append(f"{kind} ({behavior}{', inverted' if invert else ''})"
                         + (f": {shorten(step.get('pattern'), 60)}" if kind == "Split" else ""))
    if byte_level is None:
        raise ValueError(f"{name}: key 'pre_tokenizer' has no ByteLevel step, so the model sees"
                         " characters; bpe_core reads byte-level and SentencePiece-style BPE only")
    plain = None
    if "not simple" not in simple and len(simple) <= 1:
        plain = simple[0] if simple else ""
    return steps, described, plain


_ADDS_TOKENS = ("TemplateProcessing", "BertProcessing", "RobertaProcessing")


def _decodes_as_itself(text: str) -> bool:
    """Whether the ByteLevel decoder gives ``text`` back (an added token's content goes through
    it too: GPT-2's table turns "é" into the byte 0xE9, so "<café>" decodes to "<caf\ufffd>")."""
    # isascii first: at C speed over a file's 8 million characters of added tokens (a fuzzed
    # ladder a, aa, ... of 4,000), where the loop took over 2 s under a fuzzer's tracing
    return text.isascii() or all(ch.isascii() or ch not in GPT2_CHAR_TO_BYTE for ch in text)


def _added_id(content: str, vocab: dict, given: dict[str, int], last: int | None) -> int:
    """The id tokenizers (0.23) gives an added token as it reads the file, whatever id the file
    writes: the id it already has (an added token or a vocabulary entry of that content), else
    the next one after the vocabulary and the added tokens so far (``last``: the highest id
    ``given`` holds, kept by the caller: taking the max anew made 4,000 tokens quadratic)."""
    if content in given:
        return given[content]
    known = vocab.get(content)
    if isinstance(known, int) and not isinstance(known, bool):
        return known
    return last + 1 if last is not None and last >= len(vocab) else len(vocab)


def _has_regex(obj: object) -> bool:
    """Whether a normalizer or pre-tokenizer object holds a ``{"Regex": ...}`` (the file's own
    regex, which may backtrack: run in a worker when a budget applies)."""
    if isinstance(obj, dict):
        return "Regex" in obj or any(map(_has_regex, obj.values()))
    return isinstance(obj, list) and any(map(_has_regex, obj))


def read_hf_pipeline(
    document: dict, name: str
) -> tuple[Pipeline | None, str, dict[str, int], list[str]]:
    """What a tokenizer.json does before BPE: ``(pipeline or None, split pattern, special
    tokens, what encode() leaves out)``. None when the plain split pattern says it all."""
    model = document["model"]
    for key, harmless in (("dropout", (None, 0, 0.0)), ("continuing_subword_prefix", (None, "")),
                          ("end_of_word_suffix", (None, ""))):
        if model.get(key) not in harmless:
            raise _unsupported(name, f"key 'model.{key}' =", model.get(key),
                               "Set it to null to read the file (or use the tokenizers library).")
    ignore_merges = model.get("ignore_merges") is True
    added: list[AddedToken] = []
    raw = document.get("added_tokens") or []
    if not isinstance(raw, list):
        raise ValueError(f"{name}: key 'added_tokens' should be a list")
    vocab = model.get("vocab") if isinstance(model.get("vocab"), dict) else {}
    ids_given: dict[str, int] = {}  # content -> the id tokenizers gives it (see _added_id)
    last_given: int | None = None  # the highest id in ids_given
    renumbered: list[str] = []
    for k, entry in enumerate(raw):
        if not (isinstance(entry, dict) and isinstance(entry.get("content"), str)
                and isinstance(entry.get("id"), int) and entry["content"]):
            raise ValueError(f"{name}: key 'added_tokens[{k}]' needs 'content' (a non-empty"
                             " string) and 'id'")
        content = entry["content"]
        idx = _added_id(content, vocab, ids_given, last_given)
        if idx != entry["id"]:
            renumbered.append(f"{shorten(content, 30)}: {entry['id']} -> {idx}")
        if content in ids_given:
            continue  # listed twice: the first entry stands, as in tokenizers
        ids_given[content] = idx
        last_given = idx if last_given is None else max(last_given, idx)
        special = entry.get("special", False) is True
        flags = {f: entry.get(f, f == "normalized" and not special) is True
                 for f in ("single_word", "lstrip", "rstrip", "normalized")}
        added.append(AddedToken(content, idx, special, **flags))
    specials = {t.content: t.id for t in added if t.special}
    normalizer, described = ([], [])
    if document.get("normalizer") is not None:
        normalizer, described = _normalizer(document["normalizer"], name)
    pre = document.get("pre_tokenizer")
    if pre is None:
        raise ValueError(f"{name}: key 'pre_tokenizer' is null, so the model would see"
                         " characters; bpe_core reads byte-level and SentencePiece-style BPE only")
    steps, pre_described, plain = _pre_tokenizer(pre, name)
    ignored = []
    if renumbered:
        ignored.append(
            f"added_tokens: {len(renumbered)} take the id Hugging Face's tokenizers gives them,"
            " not the file's (a token the vocabulary already holds keeps its vocabulary id, and"
            " the others are numbered on after the vocabulary, whatever the file says): "
            + ", ".join(renumbered[:5]) + (" ..." if len(renumbered) > 5 else ""))
    post = document.get("post_processor")
    kinds = [s.get("type") for _, s in _steps(post, name, "post_processor", "processors")
             ] if isinstance(post, dict) else []
    if any(kind in _ADDS_TOKENS for kind in kinds):
        ignored.append("post_processor: the file adds tokens around each text (such as a"
                       " beginning-of-text token) for a model's input; encode() gives the"
                       " text's own ids, like tiktoken. Add them yourself where a model needs them.")
    for key in ("truncation", "padding"):
        if document.get(key) is not None:
            ignored.append(f"{key}: the file {'cuts' if key == 'truncation' else 'pads'} a"
                           " model's input to a length; encode() gives every id of the text.")
    decoder, not_followed = read_decoder(document.get("decoder"), name)
    ignored += not_followed
    if decoder is not None and decoder.byte_level and all(
            map(_decodes_as_itself, (t.content for t in added))):
        decoder = None  # the bytes' text is the ByteLevel decoder's (Tokenizer.decode)
    needs = (normalizer or plain is None or ignore_merges or decoder is not None
             or any(not t.special or t.single_word or t.lstrip or t.rstrip or t.normalized
                    for t in added))
    if not needs:
        return None, plain or "", specials, ignored
    if ignore_merges:
        described.append("ignore_merges: a piece that is a whole token is that token")
    if any(not t.special for t in added):
        described.append(f"{sum(not t.special for t in added)} added tokens that always match")
    if decoder is not None:
        described.append(f"decoder: {decoder.described}")
    pipeline = Pipeline(
        normalizer=normalizer,
        pre_tokenizer=None if plain is not None else steps,
        added=added,
        ignore_merges=ignore_merges,
        described=described + ([] if plain is not None else pre_described),
        ignored=ignored,
        json={"normalizer": document.get("normalizer"), "pre_tokenizer": pre,
              "decoder": document.get("decoder")},
        decoder=decoder,
        untrusted=_has_regex(document.get("normalizer")) or _has_regex(pre),
    )
    return pipeline, plain or "", specials, ignored


# -- the pipeline as its file says it, rebuilt in a worker process ---------------------------


class PipelineSpec:
    """A pipeline as plain data (the file's normalizer and pre-tokenizer objects, the added
    tokens, the split pattern), which a worker process rebuilds once (``pieces_here``)."""

    def __init__(self, normalizer: object, pre_tokenizer: object, added: tuple, pattern: str) -> None:
        self.normalizer, self.pre_tokenizer, self.added, self.pattern = (
            normalizer, pre_tokenizer, added, pattern)
        self.key = f"pipeline-{uuid.uuid4().hex}"
        self.built: tuple | None = None  # (pipeline, split), in the worker

    def __getstate__(self) -> dict:
        return {**self.__dict__, "built": None}

    def build(self) -> tuple[Pipeline, Callable[..., list[str]]]:
        if self.built is None:
            from .split import compile_pattern, split_by_pattern

            name = "the tokenizer file"
            normalizer = [] if self.normalizer is None else _normalizer(self.normalizer, name)[0]
            steps, _, plain = _pre_tokenizer(self.pre_tokenizer, name)
            pipeline = Pipeline(normalizer=normalizer, added=list(self.added),
                                pre_tokenizer=None if plain is not None else steps)
            compiled = compile_pattern(self.pattern, max_chars=None)

            def split(piece: str, deadline: float | None = None) -> list[str]:
                if pipeline.pre_tokenizer is not None:
                    return pipeline.pre_tokenize(piece, lambda: None)
                if compiled is None:
                    return [piece] if piece else []
                return split_by_pattern(compiled, piece, budget=None)

            self.built = (pipeline, split)
        return self.built


def pieces_here(spec: PipelineSpec, text: str, allowed: dict[str, int],
                split_only: bool = False) -> list[tuple[str, int | None]]:
    """``Pipeline.pieces`` of the pipeline ``spec`` describes (``split_only``: the split
    alone): what a worker process runs."""
    pipeline, split = spec.build()
    if split_only:
        return [(chunk, None) for chunk in split(text)]
    return pipeline.pieces(text, allowed, split)


def spec_of(pipeline: Pipeline, pattern: str) -> PipelineSpec:
    """What a worker process needs to run ``pipeline.pieces`` as ``pipeline`` does (with the
    tokenizer's split ``pattern``), made once and kept by the worker between calls."""
    spec = pipeline.worker_spec
    if spec is None or spec.pattern != pattern:
        spec = pipeline.worker_spec = PipelineSpec(pipeline.json.get("normalizer"),
                                             pipeline.json.get("pre_tokenizer"),
                                             tuple(pipeline.added.values()), pattern)
    return spec
