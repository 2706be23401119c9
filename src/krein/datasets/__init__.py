"""Datasets shipped inside the package (no download, ever), synthetic generators and the
preprocessing conventions of Oglic & Gärtner (ICML 2018, Appendix C).

* :func:`list_datasets`, :func:`load_dataset` — UCI/KEEL classification sets, the CPS 1985 wage
  data, scikit-learn's 8×8 digits (and the digits 3-vs-5 task), UCR/UEA time series, splice DNA
  strings; see ``data/README.md`` for sources, citations and licences.
* :func:`natural_kernel` — a dataset's kernel matrix under its natural (dis)similarity.
* :func:`make_krein_regression` — the synthetic K − K⁻¹ regression of Table 1 (2018).
* :func:`standardize`, :func:`scale_to_unit_range`, :func:`balanced_labels` — Appendix C.
* :func:`binarize_images` — grey-level to binary images (for the Simpson score).
"""

from ._base import binarize_images, list_datasets, load_dataset
from ._natural import natural_kernel
from ._preprocessing import balanced_labels, scale_to_unit_range, standardize
from ._synthetic import make_krein_regression

__all__ = [
    "balanced_labels",
    "binarize_images",
    "list_datasets",
    "load_dataset",
    "make_krein_regression",
    "natural_kernel",
    "scale_to_unit_range",
    "standardize",
]
