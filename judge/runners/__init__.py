"""The parent's side of the process boundary: capped pipes, the wall-clock kill and what a
child's end means (``boundary``), and the runners that stand on it (the zygote, the default; a
fresh interpreter per child, the benchmark's baseline).
"""
