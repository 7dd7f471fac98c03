"""bpe-lab's command line (``bpe-lab train | encode | check | info``), over bpe_core.

It lives outside ``bpe_core`` because it uses more than the standard library (tqdm for the
progress bars; Dask's ``distributed`` when asked to count on a cluster), and bpe_core stays
standard library + ``regex``. ``cli.py`` parses the arguments, ``commands.py`` runs them,
``inputs.py`` checks what comes in, ``outputs.py`` writes what goes out (temporary file, then a
rename), ``progress.py`` draws the bars and the summary line.
"""
