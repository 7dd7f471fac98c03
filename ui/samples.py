"""The built-in sample texts shipped in assets/samples/."""

from __future__ import annotations

from pathlib import Path

SAMPLES_DIR = Path(__file__).resolve().parent.parent / "assets" / "samples"

# label shown in the app -> file name under assets/samples/, in display order
SAMPLE_FILES: dict[str, str] = {
    "English prose": "english.txt",
    "Source code": "code.py.txt",
    "Multilingual + emoji": "multilingual.txt",
    "Tricky: numbers, contractions, whitespace": "tricky.txt",
}


def load_samples() -> dict[str, str]:
    """Read every sample text, keyed by its label, in display order.

    Files are read as UTF-8 with ``newline=""`` so line ends stay exactly as stored
    (the tricky sample keeps its CRLF lines).

    >>> list(load_samples())[0]
    'English prose'
    """
    samples: dict[str, str] = {}
    for label, name in SAMPLE_FILES.items():
        with open(SAMPLES_DIR / name, encoding="utf-8", newline="") as f:
            samples[label] = f.read()
    return samples
