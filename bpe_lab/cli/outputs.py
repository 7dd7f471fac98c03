"""What the command line writes, and how: every output is written into a temporary folder beside
its destination and renamed into place only when complete, so an interrupted run leaves either
the old file or the new one, never half of one.

The tokenizer files are written by the tokenizer's own save methods (``tok.save``,
``save_hf``, ``save_tiktoken``, ``save_gpt2``), which also write bpe_core's sidecar where the
format needs one; this module only chooses the names and moves the results into place.

Formats (``--format``) and what ``--out PATH`` becomes:

    minbpe     PATH (must end in .model) and PATH with .vocab instead (minbpe's readable list)
    hf         PATH, a Hugging Face tokenizer.json
    tiktoken   PATH, tiktoken's base64 ranks
    gpt2       PATH/ a folder with vocab.json and merges.txt (GPT-2's byte alphabet)
    cs336      PATH/ a folder with vocab.json and merges.txt as Stanford CS336's test fixtures
               have them: merges.txt without the "#version" line (CS336's reader would take it
               for a merge); ids as bpe_core numbers them (bytes 0-255, merges, specials last)

Token ids (``bpe-lab encode``) go in a NumPy ``.npy`` file (format 1.0, written with the
standard library): ``numpy.load(PATH)`` gives a 1-D array of uint16 when every id fits in
16 bits (vocabularies up to 65,536 ids), else uint32.

An existing ``--out`` is replaced only when bpe-lab can tell it wrote it (``--force`` replaces
anything but a folder): a tokenizer file whose bpe-lab sidecar describes it (its SHA-256), or
that bpe_core reads as the format asked for and writes again byte for byte (a .model,
tokenizer.json or tiktoken file of its own writing); a gpt2/cs336 folder whose sidecar describes
its vocab.json and merges.txt and that holds nothing else; an .npy whose 128-byte header is
exactly the one this module writes for its size. A shell script named ``x.model`` or a text
file given to ``--format hf`` is refused, naming ``--force``.
"""

from __future__ import annotations

import array
import os
import shutil
import signal
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import BinaryIO

from bpe_core import Tokenizer
from bpe_core.formats import to_gpt2_files

from .inputs import UsageError

FORMATS = ("minbpe", "hf", "tiktoken", "gpt2", "cs336")
FOLDER_FORMATS = ("gpt2", "cs336")
FOLDER_FILES = ("vocab.json", "merges.txt")

try:  # bpe_core's sidecar (pattern, special tokens and history beside a file), when it has one
    from bpe_core.sidecar import sidecar_path as _sidecar_path
except ImportError:  # pragma: no cover - an older bpe_core: no sidecars to look after
    _sidecar_path = None


def sidecar_name(name: str) -> str | None:
    return None if _sidecar_path is None else os.path.basename(_sidecar_path(name))


FORCE_HINT = "name another path, or pass --force to replace it"
MAX_OWN_CHECK_BYTES = 512 << 20  # an existing --out larger than this is not read to recognise it


def refuse_not_regular(out: str) -> None:
    """Refuse an existing ``--out`` that is not a regular file (a symbolic link, a named pipe, a
    device, a socket), even with ``--force``: replacing it would replace what it stands for, or
    write into it (``/dev/full``), not a file of ours."""
    try:
        mode = os.lstat(out).st_mode
    except FileNotFoundError:
        return
    except OSError as e:
        raise UsageError(f"--out {out}: cannot look at it: {e.strerror or e}") from None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return
    kind = ("a symbolic link" if stat.S_ISLNK(mode) else "a named pipe (FIFO)" if stat.S_ISFIFO(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    raise UsageError(f"--out {out} is {kind}; --force replaces only regular files: name a new"
                     " path, or remove it first")


def check_parent(out: str, option: str = "--out") -> None:
    """Refuse an output path whose folder does not exist or cannot be written in."""
    parent = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(parent):
        raise UsageError(f"{option} {out}: the folder {parent} does not exist; create it first")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {out}: cannot write in {parent} (permission denied)")


def check_out(fmt: str, out: str, force: bool = False) -> None:
    """Refuse, before any work, an ``--out`` that cannot be written as ``fmt``, or that would
    replace a file bpe-lab did not write (unless ``force``)."""
    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt!r} is not one this tool writes: use one of"
                         f" {', '.join(FORMATS)}")
    check_parent(out)
    refuse_not_regular(out)
    if fmt == "minbpe" and not out.endswith(".model"):
        raise UsageError(f"--out {out}: a minbpe file is named NAME.model (its readable NAME.vocab"
                         f" goes beside it); try --out {out}.model")
    if fmt == "minbpe":
        refuse_not_regular(out[: -len(".model")] + ".vocab")
    if fmt in FOLDER_FORMATS:
        if os.path.exists(out) and not os.path.isdir(out):
            raise UsageError(f"--out {out} is a file, but --format {fmt} writes a folder (with"
                             f" {' and '.join(FOLDER_FILES)}); name a new folder")
        strangers = _not_ours(out)
        if strangers:
            raise UsageError(f"--out {out} is a folder with other files in it ({strangers[0]},"
                             " ...); name a new or empty folder, so that nothing of yours is"
                             " replaced")
        if not force and os.path.isdir(out) and os.listdir(out) and not _our_folder(out):
            raise UsageError(f"--out {out} holds {' or '.join(FOLDER_FILES)} that bpe-lab did"
                             " not write (their bpe-lab sidecar does not describe them); "
                             + FORCE_HINT)
    elif os.path.isdir(out):
        raise UsageError(f"--out {out} is a folder; --format {fmt} writes one file: name it,"
                         f" e.g. {os.path.join(out, 'tokenizer' + _suffix(fmt))}")
    elif not force:
        _check_single_file(fmt, out)


def _check_single_file(fmt: str, out: str) -> None:
    """Refuse to replace ``out`` (or the files written beside it) unless bpe-lab wrote it."""
    if os.path.lexists(out):
        if not os.path.isfile(out) or os.path.islink(out):
            raise UsageError(f"--out {out} exists and is not a regular file; " + FORCE_HINT)
        if not _our_file(fmt, out):
            raise UsageError(f"--out {out} exists and is not a {_FORMAT_WORDS[fmt]} that bpe-lab"
                             f" wrote (no bpe-lab sidecar describes it, and it is not what"
                             f" bpe_core writes for the tokenizer it holds); " + FORCE_HINT)
    beside = [out[: -len(".model")] + ".vocab"] if fmt == "minbpe" else []
    side = sidecar_name(out)
    if side:
        beside.append(os.path.join(os.path.dirname(out), side))
    for other in beside:
        if not os.path.lexists(other):
            continue
        if other.endswith(".vocab") and os.path.isfile(out) and not os.path.islink(other):
            continue  # the .vocab of a .model bpe-lab wrote (checked above)
        if other.endswith(".json") and os.path.isfile(other) and not os.path.islink(other) \
                and _is_sidecar_file(other):
            continue  # an earlier sidecar: replaced or removed by the save
        raise UsageError(f"--out {out} would replace {other}, which bpe-lab did not write"
                         f" beside it; " + FORCE_HINT)


_FORMAT_WORDS = {"minbpe": "minbpe .model", "hf": "tokenizer.json", "tiktoken": "tiktoken file"}


def read_small(path: str) -> bytes | None:
    try:
        if os.path.getsize(path) > MAX_OWN_CHECK_BYTES:
            return None
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def _is_sidecar_file(path: str) -> bool:
    from bpe_core.sidecar import is_sidecar

    data = read_small(path)
    return data is not None and is_sidecar(data)


def _described_by_sidecar(files: dict[str, str], side_path: str) -> bool:
    """Whether the bpe-lab sidecar at ``side_path`` describes ``files`` (role -> path)."""
    from bpe_core.sidecar import read_sidecar

    side_data = read_small(side_path) if os.path.isfile(side_path) else None
    if side_data is None:
        return False
    try:
        side = read_sidecar(side_data, side_path)
        contents = {role: (path, read_small(path) or b"") for role, path in files.items()}
        side.check_files(contents)
    except ValueError:
        return False
    return True


def _our_file(fmt: str, out: str) -> bool:
    """Whether the file at ``out`` is one bpe-lab wrote as ``fmt`` (see the module)."""
    from bpe_core.sidecar import sidecar_path

    if _described_by_sidecar({"file": out}, sidecar_path(out)):
        return True
    data = read_small(out)
    if data is None:
        return False
    from bpe_core import read_tokenizer
    from bpe_core.formats import to_hf_json, to_minbpe, to_tiktoken

    try:
        if fmt == "minbpe":
            return to_minbpe(read_tokenizer(data, "x.model"))[0].encode("utf-8") == data
        if fmt == "hf":
            return to_hf_json(read_tokenizer(data, "tokenizer.json")).encode("utf-8") == data
        tok = read_tokenizer(data, "ranks", pattern="", special_tokens={})
        return to_tiktoken(tok) == data
    except (ValueError, RecursionError):
        return False


def _our_folder(out: str) -> bool:
    from bpe_core.sidecar import sidecar_path

    vocab, merges = (os.path.join(out, n) for n in FOLDER_FILES)
    return _described_by_sidecar({"vocab": vocab, "merges": merges}, sidecar_path(vocab))


def _suffix(fmt: str) -> str:
    return {"minbpe": ".model", "hf": ".json", "tiktoken": ".tiktoken"}.get(fmt, "")


def _ours(name: str) -> bool:
    """Whether a file in a gpt2/cs336 folder is one that saving such a folder writes."""
    names = set(FOLDER_FILES) | {sidecar_name(n) for n in FOLDER_FILES if sidecar_name(n)}
    return name in names


def _not_ours(folder: str) -> list[str]:
    if not os.path.isdir(folder):
        return []
    return sorted(n for n in os.listdir(folder) if not _ours(n)
                  or not os.path.isfile(os.path.join(folder, n)))


@contextmanager
def uninterrupted() -> Iterator[None]:
    """Ctrl-C is ignored for the few renames that put a complete output in place, so that an
    interrupted run has either written everything or nothing (the main thread only)."""
    try:
        before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: signals go to the main thread anyway
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


@contextmanager
def staging(out: str) -> Iterator[str]:
    """A new temporary folder beside ``out`` (same file system, so renames are atomic), removed
    afterwards with whatever is left in it, also after an error or Ctrl-C."""
    parent = os.path.dirname(os.path.abspath(out))
    with uninterrupted():  # a Ctrl-C between making the folder and the try would leave it behind
        folder = tempfile.mkdtemp(prefix=f".{os.path.basename(out)}.", suffix=".partial",
                                  dir=parent)
    try:
        yield folder
    finally:
        with uninterrupted():  # nor may one stop its removal half way
            shutil.rmtree(folder, ignore_errors=True)


def save(tok: Tokenizer, fmt: str, out: str, force: bool = False) -> str:
    """Write ``tok`` as ``fmt`` at ``out`` (see the module's docstring); what was written, in
    words: ``tok.model (with tok.vocab)``, ``tok/ (vocab.json, merges.txt, ...)``."""
    check_out(fmt, out, force)
    with staging(out) as folder:
        if fmt in FOLDER_FORMATS:
            inner = os.path.join(folder, "out")
            os.mkdir(inner)
            _write_folder(tok, fmt, inner)
            names = sorted(os.listdir(inner), key=lambda n: (n not in FOLDER_FILES, n))
            with uninterrupted():
                _replace_folder(inner, out)
            return f"{out.rstrip(os.sep)}{os.sep} ({', '.join(names)})"
        name = os.path.basename(out)
        if fmt == "minbpe":
            tok.save(os.path.join(folder, name[: -len(".model")]))
        elif fmt == "hf":
            tok.save_hf(os.path.join(folder, name))
        else:
            tok.save_tiktoken(os.path.join(folder, name))
        with uninterrupted():
            others = _move_files(folder, name, os.path.dirname(os.path.abspath(out)), out)
        return f"{out} (with {', '.join(others)})" if others else out


def _write_folder(tok: Tokenizer, fmt: str, folder: str) -> None:
    vocab_path, merges_path = (os.path.join(folder, n) for n in FOLDER_FILES)
    if fmt == "gpt2":
        tok.save_gpt2(vocab_path, merges_path)
        return
    # CS336: GPT-2's files without the "#version" line. to_gpt2_files is the one writer of the
    # byte alphabet; the sidecar (pattern, special tokens, history) is bpe_core's own.
    vocab_text, merges_text = to_gpt2_files(tok)
    if merges_text.startswith("#version"):
        merges_text = merges_text.split("\n", 1)[1]
    files = {"vocab": (vocab_path, vocab_text.encode("utf-8")),
             "merges": (merges_path, merges_text.encode("utf-8"))}
    try:
        from bpe_core.sidecar import write_with_sidecar
    except ImportError:  # pragma: no cover - an older bpe_core: the two files only
        for path, data in files.values():
            with open(path, "wb") as f:
                f.write(data)
        return
    write_with_sidecar("gpt2", tok, files, needed=True)


def _move_files(folder: str, main: str, parent: str, out: str) -> list[str]:
    """(The paths of the other files written, beside ``out``.)"""
    """Move what the save wrote from ``folder`` into ``parent``: the other files first (the
    .vocab, the sidecar), the main file last, so that a complete main file means a complete
    save. A sidecar of an earlier save that this one does not replace is removed first."""
    written = sorted(os.listdir(folder))
    side = sidecar_name(main)
    if side and side not in written and os.path.exists(os.path.join(parent, side)):
        os.remove(os.path.join(parent, side))
    others = [n for n in written if n != main]
    for n in others:
        os.replace(os.path.join(folder, n), os.path.join(parent, n))
    os.replace(os.path.join(folder, main), out)
    return [os.path.join(os.path.dirname(out), n) for n in others]


def _replace_folder(new: str, out: str) -> None:
    """Put the folder ``new`` at ``out``; an earlier output there (only files such a save
    writes: ``check_out`` made sure) is set aside first and removed after."""
    if not os.path.exists(out):
        os.rename(new, out)
        return
    if not os.listdir(out):
        os.rmdir(out)
        os.rename(new, out)
        return
    old = new + ".old"
    os.rename(out, old)
    os.rename(new, out)
    shutil.rmtree(old, ignore_errors=True)


# -- token ids as a .npy file ----------------------------------------------------------------

NPY_MAGIC = b"\x93NUMPY\x01\x00"
NPY_HEADER_BYTES = 128  # magic, length and the header dict, padded: room for any 1-D shape


def id_dtype(max_id: int) -> str:
    """``"uint16"`` when every id up to ``max_id`` fits in 16 bits, else ``"uint32"``."""
    return "uint16" if max_id < 2**16 else "uint32"


def _npy_header(dtype: str, count: int) -> bytes:
    descr = {"uint16": "<u2", "uint32": "<u4"}[dtype]
    text = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({count},), }}"
    room = NPY_HEADER_BYTES - len(NPY_MAGIC) - 2
    text = text.ljust(room - 1) + "\n"
    return NPY_MAGIC + len(text).to_bytes(2, "little") + text.encode("latin-1")


class IdWriter:
    """Appends ids to an open ``.npy`` file of ``dtype``; ``finish()`` writes the count into the
    header (the header has a fixed size, so it is rewritten in place)."""

    def __init__(self, f: BinaryIO, dtype: str) -> None:
        self.f = f
        self.dtype = dtype
        self.typecode = next(c for c in ("H", "I", "L")
                             if array.array(c).itemsize == (2 if dtype == "uint16" else 4))
        self.count = 0
        f.write(_npy_header(dtype, 0))

    def write(self, ids: list[int]) -> None:
        self.write_bytes(array.array(self.typecode, ids).tobytes())

    def write_bytes(self, data: bytes) -> None:
        """Ids already packed as ``array(self.typecode, ids).tobytes()`` (in a worker)."""
        if sys.byteorder == "big":  # pragma: no cover - .npy says little-endian
            block = array.array(self.typecode)
            block.frombytes(data)
            block.byteswap()
            data = block.tobytes()
        self.f.write(data)
        self.count += len(data) // array.array(self.typecode).itemsize

    def finish(self) -> None:
        self.f.flush()
        self.f.seek(0)
        self.f.write(_npy_header(self.dtype, self.count))
        self.f.seek(0, os.SEEK_END)


def check_ids_out(out: str, force: bool = False) -> None:
    """Refuse, before any work, an ``--out`` for ids that cannot be written, or that would
    replace a file that is not an .npy this module wrote (unless ``force``)."""
    parent = os.path.dirname(os.path.abspath(out))
    if os.path.isdir(out):
        raise UsageError(f"--out {out} is a folder: name the .npy file to write, e.g."
                         f" {os.path.join(out, 'ids.npy')}")
    if not os.path.isdir(parent):
        raise UsageError(f"--out {out}: the folder {parent} does not exist; create it first")
    refuse_not_regular(out)
    if force or not os.path.lexists(out):
        return
    if not os.path.isfile(out) or os.path.islink(out) or not _our_ids(out):
        raise UsageError(f"--out {out} exists and is not an .npy file of token ids that"
                         " bpe-lab wrote; " + FORCE_HINT)


def _our_ids(path: str) -> bool:
    """Whether ``path`` starts with the exact header ``write_ids`` gives a file of its size."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(NPY_HEADER_BYTES)
    for dtype, itemsize in (("uint16", 2), ("uint32", 4)):
        count, left = divmod(size - NPY_HEADER_BYTES, itemsize)
        if count >= 0 and not left and head == _npy_header(dtype, count):
            return True
    return False


def write_ids(out: str, dtype: str, fill: Callable[[IdWriter], None],
              force: bool = False) -> None:
    """Write a .npy file at ``out`` through a temporary file and a rename: ``fill(writer)``
    writes the ids."""
    check_ids_out(out, force)
    with staging(out) as folder:
        temp = os.path.join(folder, os.path.basename(out))
        with open(temp, "wb") as f:
            writer = IdWriter(f, dtype)
            fill(writer)
            writer.finish()
        with uninterrupted():
            os.replace(temp, out)


def read_ids(path: str) -> tuple[str, list[int]]:
    """``(dtype, ids)`` of a .npy file this module wrote (for tests and ``info``), without numpy."""
    with open(path, "rb") as f:
        head = f.read(NPY_HEADER_BYTES)
        if not head.startswith(NPY_MAGIC):
            raise ValueError(f"{path} is not a .npy file")
        length = int.from_bytes(head[8:10], "little")
        f.seek(10 + length)
        header = head[10:10 + length].decode("latin-1")
        dtype = "uint16" if "'<u2'" in header else "uint32"
        typecode = next(c for c in ("H", "I", "L")
                        if array.array(c).itemsize == (2 if dtype == "uint16" else 4))
        ids = array.array(typecode)
        ids.frombytes(f.read())
    if sys.byteorder == "big":  # pragma: no cover
        ids.byteswap()
    return dtype, ids.tolist()
