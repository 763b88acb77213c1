"""What a secret looks like: vendors' formats, names that hold secrets, and value shapes.

`formats` (found from anchors in one scan), `names` (a name read as its parts), `values` (random,
placeholder, version, type, prose, reference) and `assign` (the syntaxes that put a value under
a name) are read by `ctxguard.redact`, which does the replacing.
"""
