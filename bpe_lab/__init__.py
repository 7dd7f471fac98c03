"""The lab around the library: what bpe-lab measures and checks with ``bpe_core``, and its command.

- ``check/``: a learner's own merges checked against the reference, with the known mistake that
  explains a difference (the Check your BPE page, ``bpe-lab check``).
- ``who_pays/``: who pays for tokens: the language tax over a parallel text in 33 languages,
  what numbers cost, vocabulary health and the report card (the app's last four pages).
- ``cli/``: the ``bpe-lab`` command (``train | encode | check | info``).

It lives outside ``bpe_core`` so that ``import bpe_core`` loads the tokenizer library alone, and
because the command uses more than the standard library (tqdm for the progress bars; Dask's
``distributed`` when asked to count on a cluster), while bpe_core stays standard library +
``regex``. Everything here imports ``bpe_core``; nothing in ``bpe_core`` imports this package.
"""
