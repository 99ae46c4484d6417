"""The sandbox's own processes: hardening a child (each layer applied and checked from one
table), the probe that learns which layers hold, and the zygote server that forks the children.
"""
