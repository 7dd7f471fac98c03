"""Export and import: the bytes of every download and reading uploaded files (``files``).
"""
