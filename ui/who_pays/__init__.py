"""Who pays for tokens: the tables and charts of the last four pages (``languages``,
``numbers``, ``health``, ``report``), over ``bpe_lab.who_pays``.
"""
