"""Kernels with log-space hyperparameters, analytic gradients and arithmetic.

The vectorial kernels of Appendix D of Oglic & Gärtner (2018) (GAUSS, RL-GAUSS, SIGMOID, RL-SIGMOID,
DELTA-GAUSS, EPANECHNIKOV), the TL1 kernel of Liu et al. (2019), polynomial and linear kernels; sums,
differences, elementwise products, scalings and powers of kernels; memory-bounded block evaluation;
:class:`DistanceKernel`, the Gaussian or the double centring of a structured distance (DTW, edit, SPD,
...; from :mod:`krein.dissimilarity`, the layer below) on objects packed into rows by
:func:`pack_objects`, whose scale and reference objects are fixed by :meth:`Kernel.fit`.
Estimators accept a :class:`Kernel`, one of the names in :data:`KERNEL_NAMES`, or ``"precomputed"``.
"""

from __future__ import annotations

from ._base import Hyperparameter, Kernel
from ._blocks import block_rows, kernel_blocks, streamed_gram
from ._composite import Constant, Difference, Power, Product, Scaled, Sum
from ._distance import DistanceKernel, pack_objects, unpack_objects
from ._initialization import APPENDIX_D_CLASSES, APPENDIX_D_KERNELS, initial_kernel, initial_kernel_like
from ._vectorial import (
    ARDGaussian,
    ARDSigmoid,
    DeltaGaussian,
    Epanechnikov,
    Gaussian,
    Linear,
    Polynomial,
    Sigmoid,
    TruncatedL1,
)

__all__ = [
    "APPENDIX_D_CLASSES",
    "APPENDIX_D_KERNELS",
    "ARDGaussian",
    "ARDSigmoid",
    "Constant",
    "DeltaGaussian",
    "Difference",
    "DistanceKernel",
    "Epanechnikov",
    "Gaussian",
    "Hyperparameter",
    "KERNEL_NAMES",
    "Kernel",
    "Linear",
    "Polynomial",
    "Power",
    "Product",
    "Scaled",
    "Sigmoid",
    "Sum",
    "TruncatedL1",
    "block_rows",
    "initial_kernel",
    "initial_kernel_like",
    "kernel_blocks",
    "make_kernel",
    "pack_objects",
    "streamed_gram",
    "unpack_objects",
]

#: Kernel names accepted wherever an estimator takes ``kernel=`` (aliases map to the same class).
KERNEL_NAMES = {
    "gaussian": Gaussian,
    "gauss": Gaussian,
    "rbf": Gaussian,
    "ard_gaussian": ARDGaussian,
    "rl_gauss": ARDGaussian,
    "sigmoid": Sigmoid,
    "ard_sigmoid": ARDSigmoid,
    "rl_sigmoid": ARDSigmoid,
    "delta_gaussian": DeltaGaussian,
    "delta_gauss": DeltaGaussian,
    "epanechnikov": Epanechnikov,
    "tl1": TruncatedL1,
    "truncated_l1": TruncatedL1,
    "polynomial": Polynomial,
    "poly": Polynomial,
    "linear": Linear,
}


def make_kernel(kernel: Kernel | str, name: str = "kernel") -> Kernel | str:
    """Resolve an estimator's ``kernel`` argument.

    Parameters
    ----------
    kernel : Kernel, str
        A :class:`Kernel` instance (a copy is returned, so fitting never mutates the user's object),
        a name from :data:`KERNEL_NAMES` (default hyperparameters; case and ``-`` are ignored), or
        ``"precomputed"``.
    name : str, default="kernel"
        Argument name used in error messages.

    Returns
    -------
    Kernel or "precomputed"
    """
    if isinstance(kernel, Kernel):
        # the user's values are checked before the copy goes through log space, where eta=-1
        # would become NaN and be reported as "got nan"
        kernel._check_all(None)
        return kernel.clone_with_theta(kernel.theta)
    if isinstance(kernel, str):
        key = kernel.lower().replace("-", "_")
        if key == "precomputed":
            return "precomputed"
        if key in KERNEL_NAMES:
            return KERNEL_NAMES[key]()
        raise ValueError(
            f"Unknown {name} {kernel!r}; use a krein.kernels.Kernel instance, 'precomputed', or one "
            f"of {sorted(KERNEL_NAMES)}."
        )
    raise TypeError(
        f"{name} must be a krein.kernels.Kernel, a kernel name or 'precomputed', got {type(kernel).__name__}."
    )
