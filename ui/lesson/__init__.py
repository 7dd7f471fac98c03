"""The guided lesson: the seed tutorials' path, step by step, on the class's own text
(``tutorial``).
"""
