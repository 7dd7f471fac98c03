"""``python -m bpe_lab``: the same as the ``bpe-lab`` command."""

from bpe_lab.cli import main

raise SystemExit(main())
