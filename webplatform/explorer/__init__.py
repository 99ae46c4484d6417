"""The policy explorer: a learner's function run under every checkpoint policy on the background
lane, and the table, the chart and the plan that fits a budget (``judge.explorer.explore``)."""
