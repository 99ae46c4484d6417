"""What runs inside a child beside the submitted code: the static gate and the names a
submission may use, the same rules at run time (``guard``), the child's entry and the verifier.
``judge.inspection``, in the same layer, reads the traced program.
"""
