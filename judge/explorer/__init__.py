"""The policy explorer: every checkpoint plan of a learner's function, each measured as a verdict is.

``explore`` runs it (plans, measures, ranks, renders); ``plans`` lists what is tried and the code of
each; ``loops`` finds a learner's Python loop over blocks and rewrites it for a placement;
``harness`` applies a plan while the function is traced; ``layer_kinds`` sorts labelled names into
attention and MLP; ``rewrite_check`` measures a plan's code written into the function;
``function_reading`` reads which function, and which of its parameters, the explorer is asked about;
``rows`` holds what an exploration found, the plans no other beats and the cheapest within a budget.
"""
