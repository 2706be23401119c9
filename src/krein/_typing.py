"""Type aliases shared by the estimators' signatures (``tests/test_type_hints.py`` checks that the
literal sets match the parameter constraints)."""

from __future__ import annotations

from typing import Literal, TypeAlias

import numpy as np

#: What ``random_state`` accepts (scikit-learn's ``check_random_state``): a seed, a RandomState or None.
RandomStateLike: TypeAlias = int | np.random.RandomState | None
#: A number or ``"auto"``, the estimator's rule (e.g. a penalty scaled to the kernel's spectrum).
FloatOrAuto: TypeAlias = float | Literal["auto"]
#: The Nyström landmark samplers (``krein.representation.LANDMARK_METHODS``).
LandmarkMethod: TypeAlias = Literal["uniform", "leverage", "kmeans++"]
#: The Nyström landmark ranks (``krein.representation.LANDMARK_RANKS``).
LandmarkRank: TypeAlias = Literal["validated", "full"]
