"""Problem packages: the model a package becomes, loading and validating one from its files,
its content hash, what its child may use (``limits``), archives, the bank's track.
"""
