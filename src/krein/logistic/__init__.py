"""Kernel logistic regression with indefinite kernels (Liu et al. 2019): IKLR by CCCP and CCICP."""

from ._iklr import IndefiniteLogisticRegression

__all__ = ["IndefiniteLogisticRegression"]
