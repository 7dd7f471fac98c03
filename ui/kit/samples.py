"""The built-in sample texts shipped in assets/samples/."""

from __future__ import annotations

from pathlib import Path

SAMPLES_DIR = Path(__file__).resolve().parents[2] / "assets" / "samples"

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


def sample_label(text: str, samples: dict[str, str], chosen: str | None = None) -> str | None:
    """The label of the sample whose text ``text`` is (``chosen`` first), or None: the user's
    own text, which the sidebar must not call a sample.

    >>> shipped = {"Prose": "Once upon a time", "Code": "x = 1"}
    >>> sample_label("x = 1", shipped, "Prose"), sample_label("x = 2", shipped, "Code")
    ('Code', None)
    """
    if chosen in samples and samples[chosen] == text:
        return chosen
    return next((label for label, sample in samples.items() if sample == text), None)
