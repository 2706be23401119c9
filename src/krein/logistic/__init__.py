"""Kernel logistic regression with indefinite kernels (Liu et al. 2019): IKLR by CCCP and CCICP."""

from ._iklr import DEFAULT_LEARNING_RATE, IndefiniteLogisticRegression

__all__ = ["DEFAULT_LEARNING_RATE", "IndefiniteLogisticRegression"]
