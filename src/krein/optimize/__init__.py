"""Solvers shared by the estimators: secular equations, projections, rank-one eigen-updates, CCCP.

The modules here are private (``krein.optimize._name``); each estimator module imports what it needs.
"""
