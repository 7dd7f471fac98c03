"""tiktoken's ``tiktoken.registry`` under bpe_core's name: the encodings by name, found as
tiktoken finds them.

tiktoken looks in the namespace package ``tiktoken_ext``: every module there (in any folder of
``sys.path`` that has a ``tiktoken_ext`` folder) defines ``ENCODING_CONSTRUCTORS``, a dict of
encoding name -> a function that returns ``Encoding``'s arguments. So does this module: a plugin
written for tiktoken (``tiktoken_ext/myplugin.py``) is found here, in the same order, with the
same errors. ``tiktoken_ext.openai_public`` (tiktoken's own seven encodings, which fetch their
files) is stood in for by the encodings that ship with bpe_core (pretrained.py), read offline;
it is not imported. Fetching is a plugin's own business: its constructor runs as it is written.
As in tiktoken, the plugins are looked up once per process, on the first call.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import threading
from collections.abc import Callable, Sequence
from typing import Any

from .core import Encoding
from .pretrained import built_in_names, encoding_args, shared_encoding
from .text import shorten

__all__ = ["ENCODINGS", "ENCODING_CONSTRUCTORS", "get_encoding", "list_encoding_names"]

BUILT_IN = "tiktoken_ext.openai_public"  # tiktoken's own plugin: bpe_core's shipped encodings
_lock = threading.RLock()
ENCODINGS: dict[str, Encoding] = {}
ENCODING_CONSTRUCTORS: dict[str, Callable[[], dict[str, Any]]] | None = None
# in the order of tiktoken 0.14's tiktoken_ext/openai_public.py
OPENAI_PUBLIC = ("gpt2", "r50k_base", "p50k_base", "p50k_edit", "cl100k_base", "o200k_base",
                 "o200k_harmony")
_BUILT_IN_CONSTRUCTORS = {name: functools.partial(encoding_args, name)
                          for name in sorted(built_in_names(), key=OPENAI_PUBLIC.index)}


@functools.lru_cache
def _available_plugin_modules() -> Sequence[str]:
    """The plugin modules, as tiktoken lists them (``pkgutil.iter_modules`` over the namespace
    package ``tiktoken_ext``), with ``tiktoken_ext.openai_public`` last when it is not there."""
    try:
        import tiktoken_ext
    except ImportError:
        mods = []
    else:
        mods = [name for _, name, _ in pkgutil.iter_modules(tiktoken_ext.__path__,
                                                           tiktoken_ext.__name__ + ".")]
    if BUILT_IN not in mods:
        mods.append(BUILT_IN)
    return mods


def _find_constructors() -> dict[str, Callable[[], dict[str, Any]]]:
    """``ENCODING_CONSTRUCTORS``, filled from the plugins on the first call."""
    global ENCODING_CONSTRUCTORS
    with _lock:
        if ENCODING_CONSTRUCTORS is not None:
            return ENCODING_CONSTRUCTORS
        found: dict[str, Callable[[], dict[str, Any]]] = {}
        ENCODING_CONSTRUCTORS = found
        try:
            for mod_name in _available_plugin_modules():
                if mod_name == BUILT_IN:
                    constructors = _BUILT_IN_CONSTRUCTORS
                else:
                    try:
                        constructors = importlib.import_module(mod_name).ENCODING_CONSTRUCTORS
                    except AttributeError as e:
                        raise ValueError(f"tiktoken plugin {mod_name} does not define"
                                         " ENCODING_CONSTRUCTORS") from e
                for enc_name, constructor in constructors.items():
                    if enc_name in found:
                        raise ValueError(f"Duplicate encoding name {enc_name} in tiktoken plugin"
                                         f" {mod_name}")
                    found[enc_name] = constructor
        except Exception:
            ENCODING_CONSTRUCTORS = None  # the next call raises the same error again
            raise
        return found


def get_encoding(encoding_name: str) -> Encoding:
    """tiktoken's ``get_encoding``: the encoding of that name, one per process, the same object
    on every call. bpe_core's own seven are shared, read-only tokenizers; a plugin's is
    ``Encoding(**constructor())``. ValueError for a name no plugin defines, as tiktoken's."""
    if not isinstance(encoding_name, str):
        raise ValueError(f"Expected a string in get_encoding, got {type(encoding_name)}")
    found = ENCODINGS.get(encoding_name)
    if found is not None:
        return found
    with _lock:
        if encoding_name in ENCODINGS:
            return ENCODINGS[encoding_name]
        constructors = _find_constructors()
        if encoding_name not in constructors:
            raise ValueError(
                f"unknown encoding {shorten(encoding_name)}; the encodings known are"
                f" {', '.join(constructors)} (plugins found:"
                f" {list(_available_plugin_modules())})")
        constructor = constructors[encoding_name]
        if constructor is _BUILT_IN_CONSTRUCTORS.get(encoding_name):
            enc: Encoding = shared_encoding(encoding_name)
        else:
            enc = Encoding(**constructor())
        ENCODINGS[encoding_name] = enc
        return enc


def list_encoding_names() -> list[str]:
    """Every encoding name the plugins define, bpe_core's seven included, in tiktoken's order."""
    return list(_find_constructors())
