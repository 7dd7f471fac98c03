"""Text for parity tests against tiktoken and Hugging Face ``tokenizers``.

``CORPUS`` is a list of ``(name, text)`` pairs chosen to reach the corners of the split patterns
and of byte-level BPE: scripts without spaces, combining marks, emoji sequences, whitespace runs
of every shape, numbers, line endings, contractions in odd cases, text that looks like special
tokens, lone surrogates and control characters. ``random_text()`` is a Hypothesis strategy that
mixes random code points with fragments of the corpus.
"""

from __future__ import annotations

import array
import atexit
import base64
import functools
import gzip
import hashlib
import json
import os
import pydoc_data.topics
import random
import shutil
import sys
import tempfile
import unicodedata
from pathlib import Path

import pytest
import regex
from hypothesis import strategies as st


def _pydoc_sample(chars: int = 6_000) -> str:
    topics = pydoc_data.topics.topics
    return "\n\n".join(topics[key] for key in sorted(topics)[3:9])[:chars]


def _base64_blob() -> str:
    data = random.Random(1234).randbytes(600)
    encoded = base64.b64encode(data).decode("ascii")
    return "\n".join(encoded[i : i + 76] for i in range(0, len(encoded), 76))


CORPUS: list[tuple[str, str]] = [
    ("english", (
        "The quick brown fox jumps over the lazy dog. It's a well-known pangram; "
        "people've used it since the 1880s to test typewriters - and fonts, too!\n"
        "\"Quoted,\" he said. 'Single-quoted,' she replied... (Parentheses) [brackets] {braces}."
    )),
    ("typography", (
        "\u201cCurly quotes\u201d \u2014 em dash \u2013 en dash \u2026 caf\u00e9 na\u00efve "
        "\u00bfQu\u00e9? \u00a1S\u00ed! \u00a9 2024 \u2122 \u00b5s \u00bd \u00bc \u2153"
    )),
    ("python", (
        "def fib(n: int) -> int:\n"
        "    \"\"\"Return the n-th Fibonacci number.\"\"\"\n"
        "    a, b = 0, 1\n"
        "    for _ in range(n):\n"
        "        a, b = b, a + b\n"
        "    return a\n"
        "\n"
        "\n"
        "if __name__ == '__main__':\n"
        "\tprint(f\"{fib(10)=}\")  # tab-indented\n"
        "    x = {'key': [1, 2, 3], \"other\": None}\n"
        "    lambda_ = lambda *args, **kwargs: (args, kwargs)\n"
    )),
    ("javascript", (
        "const add = (a, b) => a + b;\n"
        "function* gen() { yield* [1, 2, 3]; }\n"
        "let s = `template ${add(1, 2)} literal`;\n"
        "if (x !== undefined && y?.z ?? false) { console.log(\"ok\"); }\n"
        "/* block comment */ // line comment\n"
        "export default { name: 'bpe', version: \"0.1.0\" };\n"
    )),
    ("chinese", "\u6211\u7231\u81ea\u7136\u8bed\u8a00\u5904\u7406\u3002\u4eca\u5929\u5929\u6c14"
                "\u5f88\u597d\uff0c\u6211\u4eec\u53bb\u516c\u56ed\u6563\u6b65\u5427\uff01"
                "\u7f16\u7801\u5668\u5c06\u6587\u672c\u5206\u5272\u6210\u8bcd\u5143\u3002"),
    ("japanese", "\u3053\u3093\u306b\u3061\u306f\u4e16\u754c\u3002\u30ab\u30bf\u30ab\u30ca"
                 "\u3068\u3072\u3089\u304c\u306a\u3068\u6f22\u5b57\u3092\u6df7\u305c\u305f"
                 "\u6587\u7ae0\u3067\u3059\u3002\uff8a\uff9d\uff76\uff78\uff76\uff80\uff76\uff85"
                 "\u3082\u3042\u308a\u307e\u3059\u3002"),
    ("korean", "\uc548\ub155\ud558\uc138\uc694, \uc138\uacc4! \ud55c\uad6d\uc5b4 \ubb38\uc7a5"
               "\uc785\ub2c8\ub2e4. \u1100\u1161\u11a8 (conjoining jamo)"),
    ("arabic", "\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645! "
               "\u0647\u0630\u0627 \u0646\u0635 \u0639\u0631\u0628\u064a\u0651 \u0645\u064e"
               "\u0634\u0652\u0643\u064f\u0648\u0644 \u0661\u0662\u0663\u0664\u0665 123."),
    ("hebrew", "\u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd! \u05d6\u05d4\u05d5 "
               "\u05d8\u05e7\u05e1\u05d8 \u05d1\u05e2\u05d1\u05e8\u05d9\u05ea \u05e2\u05dd "
               "\u05de\u05b4\u05e1\u05b0\u05e4\u05b8\u05e8 42 \u200f\u200e mixed RTL/LTR."),
    ("hindi", "\u0928\u092e\u0938\u094d\u0924\u0947 \u0926\u0941\u0928\u093f\u092f\u093e! "
              "\u092f\u0939 \u0939\u093f\u0902\u0926\u0940 \u092e\u0947\u0902 \u090f\u0915 "
              "\u0935\u093e\u0915\u094d\u092f \u0939\u0948\u0964 \u0967\u0968\u0969"),
    ("thai", "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35\u0e0a\u0e32\u0e27\u0e42\u0e25\u0e01 "
             "\u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22\u0e44\u0e21\u0e48\u0e21\u0e35"
             "\u0e0a\u0e48\u0e2d\u0e07\u0e27\u0e48\u0e32\u0e07\u0e23\u0e30\u0e2b\u0e27"
             "\u0e48\u0e32\u0e07\u0e04\u0e33 \u0e51\u0e52\u0e53"),
    ("emoji", (
        "Hi \U0001f44b\U0001f3fd there \U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"
        " family, \U0001f3f3\ufe0f\u200d\U0001f308 flag, \U0001f1fa\U0001f1f8\U0001f1ef\U0001f1f5"
        " flags, \u2764\ufe0f heart, \U0001f9d1\U0001f3ff\u200d\U0001f4bb coder, 1\ufe0f\u20e3"
        " keycap, \U0001f600\U0001f600\U0001f600 repeated, \U0001f3f4\U000e0067\U000e0062"
        "\U000e0073\U000e0063\U000e0074\U000e007f tag sequence"
    )),
    ("combining", (
        "e\u0301 vs \u00e9, a\u0308 vs \u00e4, n\u0303o, "
        "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324\u031e\u0349"
        "a\u0360\u0317\u0326\u0347l\u0300\u0301\u0302\u0303\u0304\u0305\u0306\u0307\u0308"
        "g\u0489o\u0336\u0335\u0334 \u0301leading mark, \u20dd enclosing"
    )),
    ("spaces", "a  b   c    d     e" + " " * 40 + "f" + " " * 7),
    ("tabs", "\tone\t\ttwo\t\t\tthree" + "\t" * 20 + "end\t"),
    ("mixed_whitespace",
     " \t \t\t  \n \n\n\t\n   \n" + " \t" * 15 + "x \u00a0\u00a0y\u3000z\u2003"),
    ("trailing_whitespace", "line with trailing spaces   \nnext line\t\t\n\n   "),
    ("only_spaces", " " * 65),
    ("only_newlines", "\n" * 12),
    ("unicode_spaces",
     "a\x1cb\x1dc\x1ed\x1ff\x85g\u2028h\u2029i\u180ej\u200bk\ufeffl \u2009m\u202fn"),
    ("digits", (
        "1234567890123456789012345 3.14159265358979 1,234,567 -42 +7 0x1F 1e-10 "
        "2024-01-31 12:34:56 $1,000.00 50% \u0663\u0664\u0665 \u2460\u2461 \u00b2\u00b3 "
        "\uff11\uff12\uff13 IV 1st 2nd 3rd 100000000000"
    )),
    ("crlf", "line one\r\nline two\r\n\r\n  indented\r\nend\r\n"),
    ("lone_cr", "old mac\rline endings\r\rand \r\n mixed\n\r done"),
    ("contractions", (
        "I'm you're he's she'd we'll they've it's can't won't DON'T WE'RE I'LL "
        "we'Ve yOu'Re It'S dOn'T 'tis 'S '' ' 's 'll's o'clock rock'n'roll"
    )),
    ("special_lookalikes", (
        "text <|endoftext|> more <|endoftext| <|endoftext <endoftext|> |endoftext|> "
        "<|fim_prefix|><|fim_middle|><|fim_suffix|> <|endofprompt|> <|im_start|> "
        "<||> <|<|endoftext|>|> <|ENDOFTEXT|>"
    )),
    ("lone_surrogates", "before \ud800 middle \udfff after \udc00\ud800 end"),
    ("surrogate_pair_halves", "pair: \ud83d\ude00 and reversed \ude00\ud83d"),
    ("controls",
     "nul\x00byte, bell\x07, backspace\x08, escape\x1b[31mred\x1b[0m, del\x7f, \x0b\x0c vt"),
    ("url", "See https://example.com/path/to/page?query=1&x=%20y#frag-ment or "
            "http://user:pw@127.0.0.1:8080/a_b-c.d~e and mailto:someone@example.org."),
    ("base64", _base64_blob()),
    ("latin_extended", (
        "\u0141\u00f3d\u017a \u017b\u00f3\u0142\u0107 \u00df STRASSE \u0130stanbul \u0131 "
        "\u01c5 \u1e9e \u0149 \ufb01 \u0391\u03b8\u03ae\u03bd\u03b1"
        " \u041c\u043e\u0441\u043a\u0432\u0430 \u0410\u0411\u0412abc"
    )),
    ("punctuation_runs", "!!!??? ... --- ___ *** ### @@@ ;;; ::: /// \\\\\\ |||\n!!!\n\n???\r\n"),
    ("pydoc", _pydoc_sample()),
]

CORPUS_NAMES = [name for name, _ in CORPUS]
CORPUS_TEXT = dict(CORPUS)
JOINED = "\n".join(text for _, text in CORPUS)


def has_lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


_UNASSIGNED = regex.compile(r"\p{Cn}")


def tables_agree(char: str) -> bool:
    """False for a character assigned in a Unicode version newer than 14 (Python 3.11's tables,
    and about tiktoken's): the regex module (2026.11) knows it as a letter or a mark, tiktoken's
    Rust engine as unassigned, so the two splits differ there (docs/API.md, "Pretrained", says
    how many). Random text leaves those out; every other code point is in play."""
    return not (unicodedata.category(char) == "Cn" and not _UNASSIGNED.match(char))


def random_text(*, surrogates: bool = False) -> st.SearchStrategy[str]:
    """Random text: arbitrary code points mixed with fragments of the corpus and whitespace.

    With ``surrogates=True`` the code points may include lone surrogates.
    """
    chars = st.characters(codec=None, exclude_categories=() if surrogates else ("Cs",)).filter(
        tables_agree)
    fragments = [text[i : i + 12] for _, text in CORPUS for i in range(0, min(len(text), 120), 7)]
    pieces = st.one_of(
        st.text(chars, max_size=8),
        st.sampled_from(fragments),
        st.sampled_from(
            [" ", "  ", "\n", "\r\n", "\t", " \n ", "'s", "'LL", "123", "<|endoftext|>"]
        ),
    )
    return st.lists(pieces, max_size=12).map("".join)


# ---------------------------------------------------------------------------------------------
# References built from OpenAI's published files, as they ship in bpe_core/data (no network).

# The SHA-256 of each file as OpenAI publishes it: the hashes tiktoken 0.14 expects
# (tiktoken_ext/openai_public.py, ``expected_hash``, ``vocab_bpe_hash``, ``encoder_json_hash``).
# Written here, not read from bpe_core, so that they check the shipped files independently.
PUBLISHED_SHA256 = {
    "gpt2/encoder.json": "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
    "gpt2/vocab.bpe": "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
    "cl100k_base.tiktoken": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base.tiktoken": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}
SHIPPED = Path(__file__).resolve().parents[1] / "bpe_core" / "data"


def tiktoken_text_of_compact(data: bytes) -> bytes:
    """The ``.tiktoken`` text that a compact ``NAME.bpe`` stands for (its layout: little-endian
    32-bit numbers: the token count, the ranks of bytes 0..255, then the two parents of each
    longer token in rank order), written out independently of bpe_core."""
    numbers = array.array("I", data)
    if sys.byteorder != "little":
        numbers.byteswap()
    count, byte_ranks, pairs = numbers[0], numbers[1:257], numbers[257:]
    tokens: list[bytes | None] = [None] * count
    for byte, rank in enumerate(byte_ranks):
        tokens[rank] = bytes([byte])
    later = iter(zip(pairs[0::2], pairs[1::2]))
    for rank in range(count):
        if tokens[rank] is None:
            a, b = next(later)
            tokens[rank] = tokens[a] + tokens[b]
    return b"".join(base64.b64encode(t) + b" %d\n" % rank for rank, t in enumerate(tokens))


@functools.cache
def openai_files_dir() -> Path:
    """A folder with OpenAI's four files (``gpt2/encoder.json``, ``gpt2/vocab.bpe``,
    ``cl100k_base.tiktoken``, ``o200k_base.tiktoken``), made once per test session from what
    ships in bpe_core/data (GPT-2's gzipped files; the compact ``NAME.bpe.gz`` rebuilt into the
    ``.tiktoken`` text here, without bpe_core's loader), after each one's SHA-256 is checked
    against the published hash. A missing or different file fails the test that asked (never a
    skip)."""
    folder = Path(tempfile.mkdtemp(prefix="openai-files-"))
    (folder / "gpt2").mkdir()
    for name, sha256 in PUBLISHED_SHA256.items():
        tiktoken = name.endswith(".tiktoken")
        if not tiktoken:
            packed = SHIPPED / (Path(name).name + ".gz")
        else:
            packed = SHIPPED / (name.removesuffix(".tiktoken") + ".bpe.gz")
        if not packed.is_file():
            pytest.fail(f"{packed} does not ship with the project", pytrace=False)
        data = gzip.decompress(packed.read_bytes())
        if tiktoken:
            data = tiktoken_text_of_compact(data)
        if hashlib.sha256(data).hexdigest() != sha256:
            pytest.fail(f"{packed} is not OpenAI's {name}: its SHA-256 is not {sha256}",
                        pytrace=False)
        (folder / name).write_bytes(data)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def gpt2_ranks(directory: Path) -> dict[bytes, int]:
    """GPT-2's encoder.json as tiktoken ranks: token bytes -> id, without <|endoftext|>."""
    from bpe_core.formats import bytes_to_unicode

    byte_of = {c: b for b, c in bytes_to_unicode().items()}
    encoder = json.loads((directory / "gpt2" / "encoder.json").read_text(encoding="utf-8"))
    return {
        bytes(byte_of[c] for c in s): idx for s, idx in encoder.items() if s != "<|endoftext|>"
    }


@functools.cache
def _tiktoken_reference(name: str, directory: Path):
    import tiktoken
    import tiktoken.load

    from bpe_core import PRESETS

    os.environ["TIKTOKEN_CACHE_DIR"] = ""  # tiktoken caches files by path; never reuse one
    if name == "gpt2":
        ranks = gpt2_ranks(directory)
    else:
        ranks = tiktoken.load.load_tiktoken_bpe(str(directory / f"{name}.tiktoken"))
    preset = PRESETS[name]
    return tiktoken.Encoding(
        f"reference-{name}",
        pat_str=preset["pattern"],
        mergeable_ranks=ranks,
        special_tokens=preset["special_tokens"],
    )


def tiktoken_reference(name: str):
    """tiktoken's own encoder for a preset, built from OpenAI's files (once per session)."""
    return _tiktoken_reference(name, openai_files_dir())


# Where tiktoken 0.14 fetches each file (tiktoken_ext/openai_public.py); it caches a file under
# the SHA-1 of its address in TIKTOKEN_CACHE_DIR (tiktoken/load.py, read_file_cached).
_BLOB = "https://openaipublic.blob.core.windows.net/"
TIKTOKEN_URLS = {
    "gpt2/vocab.bpe": _BLOB + "gpt-2/encodings/main/vocab.bpe",
    "gpt2/encoder.json": _BLOB + "gpt-2/encodings/main/encoder.json",
    "cl100k_base.tiktoken": _BLOB + "encodings/cl100k_base.tiktoken",
    "o200k_base.tiktoken": _BLOB + "encodings/o200k_base.tiktoken",
    "r50k_base.tiktoken": _BLOB + "encodings/r50k_base.tiktoken",
    "p50k_base.tiktoken": _BLOB + "encodings/p50k_base.tiktoken",
}


@functools.cache
def tiktoken_cache_dir() -> Path:
    """A TIKTOKEN_CACHE_DIR holding every file tiktoken's seven encodings read, so that
    ``tiktoken.get_encoding`` works offline with tiktoken's own definitions and hash checks.
    GPT-3's and Codex's files are written here from GPT-2's encoder.json (r50k_base: its ranks;
    p50k_base: plus runs of 2 to 25 spaces as 50257..50280), without bpe_core; tiktoken itself
    checks them against the SHA-256 it expects, so a wrong guess fails loudly."""
    source = openai_files_dir()
    folder = Path(tempfile.mkdtemp(prefix="tiktoken-cache-"))
    ranks = sorted(gpt2_ranks(source).items(), key=lambda item: item[1])
    spaces = [(b" " * n, 50255 + n) for n in range(2, 26)]
    written = {
        "r50k_base.tiktoken": ranks,
        "p50k_base.tiktoken": ranks + spaces,
    }
    for name, url in TIKTOKEN_URLS.items():
        target = folder / hashlib.sha1(url.encode()).hexdigest()
        if name in written:
            target.write_bytes(b"".join(base64.b64encode(t) + b" %d\n" % r
                                        for t, r in written[name]))
        else:
            shutil.copy(source / name, target)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


@functools.cache
def pretrained(name: str):
    """``load_pretrained(name)``, loaded once per session; callers must not modify it."""
    from bpe_core import load_pretrained

    return load_pretrained(name)


@functools.cache
def tiktoken_harmony():
    """tiktoken's own o200k_harmony (gpt-oss's chat encoding), built by tiktoken_ext's own
    constructor, which reads the published o200k file from disk here instead of the network."""
    import tiktoken
    import tiktoken_ext.openai_public as public

    path = str(openai_files_dir() / "o200k_base.tiktoken")
    original = public.load_tiktoken_bpe
    public.load_tiktoken_bpe = lambda url, expected_hash=None: original(path, expected_hash)
    try:
        return tiktoken.Encoding(**public.o200k_harmony())
    finally:
        public.load_tiktoken_bpe = original
