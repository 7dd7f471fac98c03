"""The merge forest: every token as the tree of the merges that made it (``trees``), and its
Altair chart (``chart``).
"""
