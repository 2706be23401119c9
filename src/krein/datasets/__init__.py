"""Datasets shipped inside the package (no download, ever), synthetic generators and the
preprocessing conventions of Oglic & Gärtner (ICML 2018, Appendix C).

* :func:`list_datasets`, :func:`load_dataset` — UCI/KEEL classification sets, the CPS 1985 wage data,
  scikit-learn's 8×8 digits (and the digits 3-vs-5 task), UCR/UEA time series, the time series extrinsic
  regression sets covid3month and cardanosentiment, splice DNA strings, and the papers' own data: the
  regression sets yacht, airfoil, pm10 (Oglic & Gärtner 2018), the protein and coilyork dissimilarities
  and the aural-sonar and chen-protein similarities (``kind`` ``"dissimilarity"`` / ``"similarity"``:
  ``data`` is the n × n matrix), USPS (with the 3-vs-5 and 4-vs-6 tasks of Luss & d'Aspremont 2009),
  Extended Yale B and the LIBSVM/UCI sets of Liu et al. (2019).  Official splits come as
  ``train_idx``/``test_idx``; see ``data/README.md`` for sources, citations and terms.
* :func:`natural_kernel` — a dataset's kernel matrix under its natural (dis)similarity.
* :func:`make_cylinder_bell_funnel` — cylinder–bell–funnel series (Saito 1994), randomly warped.
* :func:`make_krein_regression` — the synthetic K − K⁻¹ regression of Table 1 (2018).
* :func:`standardize`, :func:`scale_to_unit_range`, :func:`balanced_labels` — Appendix C.
* :func:`binarize_images` — grey-level to binary images (for the Simpson score).
"""

from ._base import binarize_images, list_datasets, load_dataset
from ._natural import natural_kernel
from ._preprocessing import balanced_labels, scale_to_unit_range, standardize
from ._synthetic import make_cylinder_bell_funnel, make_krein_regression

__all__ = [
    "balanced_labels",
    "binarize_images",
    "list_datasets",
    "load_dataset",
    "make_cylinder_bell_funnel",
    "make_krein_regression",
    "natural_kernel",
    "scale_to_unit_range",
    "standardize",
]
