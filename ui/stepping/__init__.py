"""Step through the merges: the merge at each step and why it won (``merges``), and the
in-browser view that draws the tokens after any k merges (``component``).
"""
