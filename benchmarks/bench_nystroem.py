"""Benchmarks of krein.nystroem (Oglic & Gärtner 2019): each case times krein and a peer in one run.

1. Streamed low-rank Kreĭn ridge fit, ``KreinRidge(n_components=1000, working_memory=256).fit``
   (n = 10⁶, d = 20, m = 1000, DELTA-GAUSS) against one chunked
   computation of the features' Gram matrix Φᵀ Φ by plain GEMMs (kernel block, Φ block = K block · R,
   Φᵀ Φ += Φ blockᵀ Φ block): the fit's steps before issue 39, two n·m² products where one suffices
   (Φᵀ Φ = Rᵀ (CᵀC) R), so not a floor; the floor, the chunked CᵀC alone, is that of
   ``benchmarks/bench_floor.py``. Targets: time ratio ≤ 2, peak memory ≤ data + 1.5 GB.
2. KreinRidgeClassifier(n_components=1000) against scikit-learn Nystroem + RidgeClassifier at
   n = 2·10⁵ (Gaussian kernel for both, so the work is the same). Target: time ratio ≤ 1; memory ratio.
3. One-shot eigendecomposition (Sec. 2.2) against Gisbrecht–Schleif (Appendix B) at n = 10⁵,
   m = 1000, from the same K_XZ and K_ZZ. The paper's flop counts predict about 2×.

4. The landmark block of an indefinite kernel (issue 17): relative Frobenius error ‖K − K̃‖/‖K‖ of
   ``IndefiniteNystroem(n_components=m)`` divided by the Eckart–Young optimum at the same rank (the
   number of features it keeps), median over 5 seeds, for five treatments of ``K_ZZ``: the plain
   Eq. (3) (``landmark_rank="full"``), a fixed spectral cutoff (``rcond=1e-2``), the projected form
   restricted to the span of the landmark columns with its core fitted on a 4m-row sketch
   (``W = C_S⁺ K_SS C_S⁺ᵀ``), the pseudo-inverse truncated to the K_ZZ rank of least held-out error
   ("K_ZZ min", the default before the error-controlled truncation), and the default
   (``landmark_rank="validated"``: that, then the one-shot eigendecomposition truncated to the
   smallest rank of least held-out error (issue 31; before it, the largest rank within one standard
   error whose error was certified within 2× of the Eckart–Young error of ``K̃``, which case 4's
   ratio ≤ 2 was written for); probe columns drawn by importance sampling from the diagonal
   residual). The default is then shown
   in detail: its rank, error, estimate, its error over the least error of any approximation of that
   rank with range in the span of the landmark columns (what the treatment of K_ZZ can reach; the
   rest of the ratio to Eckart–Young is the landmarks'), and over the error of "K_ZZ min" (the price
   of the smaller rank). Kernels: Appendix D of Oglic & Gärtner (2018) and TL1 on MAGIC (n = 1000,
   standardized), Sigmoid(η=1) on N(0, I₆), edit distance on ``splice-strings``, DTW on ``gunpoint``,
   the similarity sets ``aural-sonar`` and ``chen-protein``; m ∈ {50, 100, 200, 400} (m < n). Target: ratio ≤ 2, error never above 1. Then the
   samplers of Sec. 2.3 under the default: median error of leverage and K-means++ over uniform.
5. Fit time of the default ``KreinRidge(n_components=1000)`` (streamed, centred, Eq. (3), 64 probe
   columns for the error estimate) against the path before issue 17 (plain Eq. (3):
   ``L = K_XZ U|D|^{-1/2}``, ``LᵀL`` and ``Lᵀy`` in one streamed pass, the one-shot
   eigendecomposition), n = 10⁵, DELTA-GAUSS. Target: ratio ≤ 1.2. Then the fit of the default
   ``IndefiniteNystroem(n_components=1000)`` (validated K_ZZ rank and the error-controlled one-shot
   truncation) against the same fit without the truncation (the validated rank alone). Case 5 times
   CPU seconds of the (single-threaded) measuring process, robust to other jobs on a shared machine.

6. Issue 31, the default never worse than the plain formula: on GAUSS, SIGMOID, DELTA-GAUSS and TL1
   (MAGIC, as in case 4) and a Gaussian on N(0, I₆), the default's error over the least of Eq. (3)
   (``landmark_rank="full"``) and the truncations ``rank ∈ {m/8, m/4, m/2, m}`` on the same landmarks
   (target ≤ 1.02, error never above 1), over scikit-learn's ``Nystroem`` on the same landmarks on the
   positive definite Gaussians (target ≤ 1); then ``approximation_error_`` over the true error for
   every combination of ``rank ∈ {None, m/4}``, ``center`` and sampler (target within 1.5×; with
   ``center=True`` the error is that of ``H K H``). Median (ratios) and worst cell over the seeds.

Every measurement of cases 1–3 and 5 runs in a fresh process so that its peak resident memory
(``ru_maxrss``) is its own; memory is reported beyond the resident size once the data are generated.

Usage: ``python benchmarks/bench_nystroem.py [--scale 0.1] [--cases 1 2 3 4 5 6] [--repeat 3] [--blas-threads 1]
[--landmarks 500]`` (``--landmarks``: m of cases 1 and 5; issue 30 measures case 1 with
``--scale 0.2 --landmarks 500``).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import time

import numpy as np

WORKING_MEMORY = 256  # MiB per block of kernel rows


def _rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _data(n, d, seed=0, classes=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.standard_normal(n)
    return X, (np.where(y > np.median(y), 1, -1) if classes else y)


def _measure_once(target, args, threads):
    if threads is not None:  # read by the BLAS of the spawned process when it loads
        for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[variable] = str(threads)
    with mp.get_context("spawn").Pool(1) as pool:
        return pool.apply(target, args)


def _measure_pair(first, second, args_first, args_second, threads, repeat):
    """Time two computations alternately ``repeat`` times, each in a fresh process; keep each one's
    fastest run (seconds, peak MiB beyond the data, extra). Alternation and the minimum make the
    ratio robust to other jobs on a shared machine."""
    runs = [[], []]
    for _ in range(repeat):
        runs[0].append(_measure_once(first, args_first, threads))
        runs[1].append(_measure_once(second, args_second, threads))
    return tuple(min(r, key=lambda result: result[0]) for r in runs)


# --------------------------------------------------------------------------- case 1
def _delta_gauss(d):
    from krein.kernels import DeltaGaussian

    return DeltaGaussian(eta1=np.sqrt(d), eta2=2 * np.sqrt(d))


def features_gram(n, d, m):
    """The Gram matrix of the features Φ = C R by two GEMMs per block (not a floor: bench_floor.py)."""
    from krein.kernels import block_rows
    from krein.nystroem import landmark_factor, uniform_landmarks

    X, _ = _data(n, d)
    base = _rss_mib()
    kernel = _delta_gauss(d)
    Z = X[uniform_landmarks(n, m, 0)]
    right = landmark_factor(kernel(Z)).right
    start = time.perf_counter()
    gram = np.zeros((right.shape[1],) * 2)
    step = block_rows(m, WORKING_MEMORY, copies=2)
    for first in range(0, n, step):
        features = kernel(X[first : first + step], Z) @ right
        gram += features.T @ features
    return time.perf_counter() - start, _rss_mib() - base, float(np.trace(gram))


def streamed_krein_ridge(n, d, m, lambda_plus=1e-3, lambda_minus=1e-3):
    """The low-rank Kreĭn LSM (Sec. 2.4) fitted by the estimator in one streamed pass."""
    from krein.least_squares import KreinRidge

    X, y = _data(n, d)
    base = _rss_mib()
    start = time.perf_counter()
    model = KreinRidge(
        _delta_gauss(d),
        lambda_plus=lambda_plus,
        lambda_minus=lambda_minus,
        n_components=m,
        random_state=0,
        working_memory=WORKING_MEMORY,
    ).fit(X, y)
    seconds = time.perf_counter() - start
    assert model.representation_._vectors is None  # streamed: no n×r array was held
    return seconds, _rss_mib() - base, f"KreinRidge(n_components={m}, working_memory=...).fit"


# --------------------------------------------------------------------------- case 2
def krein_classifier(n, d, m, eta):
    from krein.kernels import Gaussian
    from krein.least_squares import KreinRidgeClassifier

    X, y = _data(n, d, classes=True)
    base = _rss_mib()
    start = time.perf_counter()
    model = KreinRidgeClassifier(
        Gaussian(eta), lambda_plus=1e-4, lambda_minus=1e-4, n_components=m, random_state=0
    ).fit(X, y)
    seconds = time.perf_counter() - start
    return seconds, _rss_mib() - base, float(model.score(X[:20000], y[:20000]))


def sklearn_classifier(n, d, m, eta):
    from sklearn.kernel_approximation import Nystroem
    from sklearn.linear_model import RidgeClassifier
    from sklearn.pipeline import make_pipeline

    X, y = _data(n, d, classes=True)
    base = _rss_mib()
    start = time.perf_counter()
    model = make_pipeline(
        Nystroem(kernel="rbf", gamma=1 / (2 * eta**2), n_components=m, random_state=0),
        RidgeClassifier(alpha=1e-4 * n),
    ).fit(X, y)
    seconds = time.perf_counter() - start
    return seconds, _rss_mib() - base, float(model.score(X[:20000], y[:20000]))


# --------------------------------------------------------------------------- case 3
def eigendecomposition(method, n, d, m):
    from krein.nystroem import gisbrecht_schleif_eigendecomposition, one_shot_eigendecomposition

    X, _ = _data(n, d)
    kernel = _delta_gauss(d)
    Z = X[np.random.default_rng(0).choice(n, m, replace=False)]
    K_XZ, K_ZZ = kernel(X, Z), kernel(Z)
    base = _rss_mib()
    start = time.perf_counter()
    if method == "one-shot":
        result = one_shot_eigendecomposition(K_XZ, K_ZZ)
        values, vectors = result.values, result.vectors
    else:
        values, vectors = gisbrecht_schleif_eigendecomposition(K_XZ, K_ZZ)
    seconds = time.perf_counter() - start
    orthogonality = float(np.max(np.abs(vectors[:, :50].T @ vectors[:, :50] - np.eye(50))))
    return seconds, _rss_mib() - base, (float(values[0]), orthogonality)


# --------------------------------------------------------------------------- case 4
BLOCK_TREATMENTS = ("Eq. (3)", "cutoff", "sketch", "K_ZZ min", "default")
LANDMARK_COUNTS = (50, 100, 200, 400)


def comparison_kernels(n):
    """``(name, kernel, X)`` triples: a Kernel with its inputs, or "precomputed" with the matrix."""
    from krein.datasets import natural_kernel
    from krein.experiments.oglic2019 import standardized_sample
    from krein.kernels import Sigmoid, TruncatedL1, initial_kernel

    X = standardized_sample("magic", n, 0)
    names = ("GAUSS", "RL-GAUSS", "SIGMOID", "RL-SIGMOID", "DELTA-GAUSS", "EPANECHNIKOV")
    cases = [(name, initial_kernel(name, X, random_state=0), X) for name in names]
    scaled = (X - X.min(axis=0)) / np.ptp(X, axis=0)  # TL1 on [0, 1] features, τ = 0.7 d (IKLR, Sec. V-A)
    cases.append(("TL1", TruncatedL1(), scaled))
    cases.append(("SIG(1) N(0,I)", Sigmoid(1.0), np.random.default_rng(0).standard_normal((n, 6))))
    for name, label in (
        ("splice-strings", "splice edit"),
        ("gunpoint", "gunpoint DTW"),
        ("aural-sonar", "aural-sonar"),
        ("chen-protein", "chen-protein"),
    ):
        K, _, _ = natural_kernel(name, max_samples=n)
        cases.append((label, "precomputed", K))
    return cases


def _sketched_core(K, landmarks, rng):
    """The projected form with its core fitted on a 4m-row sketch S ⊇ Z: ``K̃ = C W Cᵀ``,
    ``W = C_S⁺ K_SS C_S⁺ᵀ`` (least squares on the sketch; the full ``P_C K P_C`` costs n²m)."""
    others = np.setdiff1d(np.arange(K.shape[0]), landmarks)
    extra = rng.choice(others, size=min(others.size, 3 * landmarks.size), replace=False)
    sketch = np.concatenate([landmarks, extra])
    C_S_pinv = np.linalg.pinv(K[np.ix_(sketch, landmarks)])
    core = C_S_pinv @ K[np.ix_(sketch, sketch)] @ C_S_pinv.T
    C = K[:, landmarks]
    return C @ core @ C.T, int(np.linalg.matrix_rank(core))


def _validated_block(kernel, X, m, seed):
    """``K̃`` of the validated landmark block without the error-controlled truncation (the rule before
    it): the same landmarks and probe columns as ``IndefiniteNystroem(random_state=seed)``."""
    import warnings

    from krein.nystroem import uniform_landmarks
    from krein.representation import KernelColumns
    from krein.representation._nystroem import one_shot

    columns = KernelColumns(kernel, X)
    rng = np.random.RandomState(seed)
    indices = uniform_landmarks(columns.n, m, rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep, _ = one_shot(columns, indices, rng, landmark_rank="validated", center=False, working_memory=None)
    vectors = columns.columns(indices) @ rep.extension
    return (vectors * rep.values) @ vectors.T, rep.values.size, rep.approximation_error


def block_treatment_errors(kernel, X, K, m, seed, landmarks="uniform"):
    """``{treatment: (relative error, rank, estimate)}`` of the treatments of K_ZZ (case 4), all with
    the landmarks of ``IndefiniteNystroem(random_state=seed)``; only the default for other samplers."""
    import warnings

    from krein.nystroem import IndefiniteNystroem

    norm = np.linalg.norm(K)
    settings = {"default": {}, "Eq. (3)": {"landmark_rank": "full"}}
    settings["cutoff"] = {"landmark_rank": "full", "rcond": 1e-2}
    results, indices = {}, None
    for treatment in settings if landmarks == "uniform" else ("default",):
        model = IndefiniteNystroem(kernel, n_components=m, landmarks=landmarks, random_state=seed)
        with warnings.catch_warnings():  # poor approximations and all-zero kernel rows are measured
            warnings.simplefilter("ignore")
            model.set_params(**settings[treatment]).fit(X)
            features = model.transform(X if kernel != "precomputed" else K)
        indices = model.component_indices_ if indices is None else indices
        error = np.linalg.norm(K - (features * model.signature_) @ features.T) / norm
        results[treatment] = (error, features.shape[1], model.approximation_error_)
    if landmarks == "uniform":
        approximation, rank = _sketched_core(K, indices, np.random.default_rng(seed))
        results["sketch"] = (np.linalg.norm(K - approximation) / norm, rank, np.nan)
        approximation, rank, estimate = _validated_block(kernel, X, m, seed)
        results["K_ZZ min"] = (np.linalg.norm(K - approximation) / norm, rank, estimate)
    return results, indices


def _tail(magnitudes, norm):
    """``tail[k]``: the relative error of the best rank-k approximation from eigenvalue magnitudes."""
    squares = np.sort(magnitudes)[::-1] ** 2
    return np.append(np.sqrt(np.maximum(np.cumsum(squares[::-1])[::-1], 0.0)), 0.0) / norm


def _span_optimum(K, indices, rank):
    """Least relative error of a rank-``rank`` approximation ``Q M Qᵀ`` with range in span ``K_XZ``:
    ``‖K − P K P‖² + Σ_{j>rank} μⱼ²`` with ``μ`` the eigenvalues of ``Qᵀ K Q`` (costs n²m)."""
    Q, _ = np.linalg.qr(K[:, indices])
    mu = np.abs(np.linalg.eigvalsh(Q.T @ K @ Q))
    norm = np.linalg.norm(K)
    outside = max(norm**2 - np.sum(mu**2), 0.0)
    return np.sqrt(outside + (_tail(mu, norm)[min(rank, mu.size)] * norm) ** 2) / norm


def _cell(value):
    """8 characters: 3 significant digits, or 2 in exponent form from 1000 on."""
    return f"{value:>8.3g}" if value < 1e3 else f"{value:>8.1e}"


def _kernel_rows(case):
    """Case-4 lines of one kernel: treatments, the default in detail, samplers (in a worker process)."""
    name, kernel, X, seeds = case
    K = kernel(X) if kernel != "precomputed" else X
    tail = _tail(np.abs(np.linalg.eigvalsh(K)), np.linalg.norm(K))
    tiny = np.finfo(float).tiny
    treatments, details, samplers = [], [], []
    for m in LANDMARK_COUNTS:
        if m >= K.shape[0]:
            continue
        ratios = {t: [] for t in (*BLOCK_TREATMENTS, "kmeans++")}
        default, by_sampler = [], {s: [] for s in ("uniform", "leverage", "kmeans++")}
        for seed in range(seeds):
            results, indices = block_treatment_errors(kernel, X, K, m, seed)
            for sampler in ("leverage", "kmeans++"):
                results[sampler] = block_treatment_errors(kernel, X, K, m, seed, sampler)[0]["default"]
            for treatment in ratios:
                error, rank = results[treatment][:2]
                ratios[treatment].append(error / max(tail[min(rank, tail.size - 1)], tiny))
            error, rank, estimate = results["default"]
            span = error / _span_optimum(K, indices, rank)
            default.append((rank, error, estimate, estimate / error, span, error / results["K_ZZ min"][0]))
            for sampler in by_sampler:
                by_sampler[sampler].append(results["default" if sampler == "uniform" else sampler][0])
        treatments.append(f"    {name:<13}{m:>4}" + "".join(_cell(np.median(r)) for r in ratios.values()))
        rank, error, estimate, quotient, span, excess = np.median(np.array(default), axis=0)
        details.append(
            f"    {name:<13}{m:>4}{rank:>6.0f}{error:>9.2e}{estimate:>9.2e}{quotient:>8.2f}{span:>8.2f}"
            f"{excess:>8.2f}"
        )
        samplers.append((name, m, {s: float(np.median(e)) for s, e in by_sampler.items()}))
    return treatments, details, samplers


def landmark_block_comparison(n, seeds, workers):
    """Print case 4: error / Eckart–Young per kernel and m, the default in detail, the samplers."""
    cases = [(name, kernel, X, seeds) for name, kernel, X in comparison_kernels(n)]
    with mp.get_context("spawn").Pool(workers) as pool:
        rows = list(pool.imap(_kernel_rows, cases))
    print(f"[4] ‖K − K̃‖/‖K‖ over the Eckart–Young optimum at the same rank; median of {seeds} seeds")
    print("    uniform landmarks; 'K_ZZ min': validated K_ZZ rank without the one-shot truncation;")
    print("    'km++': the default with K-means++ landmarks")
    header = "".join(f"{t:>8}" for t in ("Eq.(3)", "cutoff", "sketch", "K_ZZmin", "default", "km++"))
    print(f"    {'kernel':<13}{'m':>4}{header}")
    print("\n".join(line for treatments, _, _ in rows for line in treatments))
    print("    the default (uniform landmarks): rank, error, estimate, estimate / error, error over")
    print("    the least error of a rank-r approximation with range in span K_XZ ('span'), error")
    print("    over that of 'K_ZZ min' (the price of the smaller rank)")
    print(
        f"    {'kernel':<13}{'m':>4}{'rank':>6}{'error':>9}{'estimate':>9}{'est/err':>8}{'span':>8}"
        f"{'/min':>8}"
    )
    print("\n".join(line for _, details, _ in rows for line in details))
    print("    samplers under the default (median error of 'leverage' and 'kmeans++' / 'uniform'):")
    print(f"    {'kernel':<13}{'m':>4}{'uniform':>10}{'leverage':>10}{'kmeans++':>10}")
    for name, m, medians in (row for _, _, samplers in rows for row in samplers):
        base = medians["uniform"]
        print(
            f"    {name:<13}{m:>4}{base:>10.3g}{medians['leverage'] / base:>10.2f}"
            f"{medians['kmeans++'] / base:>10.2f}"
        )


# --------------------------------------------------------------------------- case 6
def _issue31_kernels(n):
    """The kernels of case 6: GAUSS, SIGMOID, DELTA-GAUSS and TL1 of case 4, and a Gaussian on N(0, I₆)."""
    from krein.kernels import Gaussian

    chosen = [c for c in comparison_kernels(n) if c[0] in ("GAUSS", "SIGMOID", "DELTA-GAUSS", "TL1")]
    return chosen + [("GAUSS N(0,I)", Gaussian(), np.random.default_rng(0).standard_normal((n, 6)))]


def _issue31_rows(case):
    """Case-6 lines of one kernel (in a worker process)."""
    import warnings

    from sklearn.kernel_approximation import Nystroem

    from krein.nystroem import IndefiniteNystroem

    name, kernel, X, seeds = case
    K = kernel(X)
    norm = np.linalg.norm(K)
    n = K.shape[0]
    centred = K - K.mean(axis=0) - K.mean(axis=1)[:, None] + K.mean()
    positive = np.linalg.eigvalsh(K)[0] > -1e-10 * np.abs(K).max()
    defaults, estimates = [], []
    for m in LANDMARK_COUNTS:
        if m >= n:
            continue
        ratios, errors, peers, quotients = [], [], [], []
        for seed in range(seeds):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fitted = {
                    label: IndefiniteNystroem(kernel, n_components=m, random_state=seed, **options).fit(X)
                    for label, options in [
                        ("default", {}),
                        ("Eq. (3)", {"landmark_rank": "full"}),
                        *[(f"rank {k}", {"rank": k}) for k in (m // 8, m // 4, m // 2, m)],
                    ]
                }
                for rank in (None, m // 4):
                    for center in (False, True):
                        for sampler in ("uniform", "leverage", "kmeans++"):
                            model = IndefiniteNystroem(
                                kernel,
                                n_components=m,
                                rank=rank,
                                center=center,
                                landmarks=sampler,
                                random_state=seed,
                            ).fit(X)
                            target = centred if center else K
                            true = np.linalg.norm(target - model.approximate_kernel(X)) / np.linalg.norm(
                                target
                            )
                            quotients.append(model.approximation_error_ / true)
            error = {
                label: np.linalg.norm(K - model.approximate_kernel(X)) / norm
                for label, model in fitted.items()
            }
            errors.append(error["default"])
            ratios.append(error["default"] / min(v for label, v in error.items() if label != "default"))
            if positive:
                Z = fitted["default"].component_indices_
                peer = Nystroem(kernel="precomputed", n_components=m).fit(K[np.ix_(Z, Z)])
                features = peer.transform(K[:, Z])
                peers.append(error["default"] / (np.linalg.norm(K - features @ features.T) / norm))
        peer_cell = f"{np.median(peers):>9.4f}{np.max(peers):>9.4f}" if peers else f"{'—':>9}{'—':>9}"
        defaults.append(
            f"    {name:<13}{m:>4}{np.median(errors):>9.3g}{np.median(ratios):>9.4f}{np.max(ratios):>9.4f}"
            + peer_cell
        )
        q = np.array(quotients)
        estimates.append(f"    {name:<13}{m:>4}{np.median(q):>9.3f}{q.min():>9.3f}{q.max():>9.3f}")
    return defaults, estimates


def default_against_plain(n, seeds, workers):
    """Print case 6 (issue 31)."""
    cases = [(name, kernel, X, seeds) for name, kernel, X in _issue31_kernels(n)]
    with mp.get_context("spawn").Pool(workers) as pool:
        rows = list(pool.imap(_issue31_rows, cases))
    print(f"[6] the default against the plain formula and the truncations (median / worst of {seeds} seeds)")
    print("    error: the default's ‖K − K̃‖/‖K‖ (≤ 1); /best: over the least of Eq. (3) and rank m/8, m/4,")
    print(
        "    m/2, m (target ≤ 1.02); /sklearn: over scikit-learn's Nystroem on the same landmarks (PSD only)"
    )
    print(f"    {'kernel':<13}{'m':>4}{'error':>9}{'/best':>9}{'worst':>9}{'/sklearn':>9}{'worst':>9}")
    print("\n".join(line for defaults, _ in rows for line in defaults))
    print(
        "    approximation_error_ / true error over rank ∈ {None, m/4} × center × sampler (target 1/1.5–1.5)"
    )
    print(f"    {'kernel':<13}{'m':>4}{'median':>9}{'min':>9}{'max':>9}")
    print("\n".join(line for _, estimates in rows for line in estimates))


# --------------------------------------------------------------------------- case 5
def todays_fit(n, d, m):
    """The low-rank Kreĭn ridge fit before issue 17: plain Eq. (3), ``L = K_XZ R``, ``LᵀL``, ``Lᵀy``
    streamed in one pass, the one-shot eigendecomposition and the ridge solution."""
    from krein.kernels import block_rows
    from krein.nystroem import landmark_factor, uniform_landmarks
    from krein.representation._approximation import eigen_from_gram

    X, y = _data(n, d)
    base = _rss_mib()
    kernel = _delta_gauss(d)
    start = time.process_time()
    Z = X[uniform_landmarks(n, m, 0)]
    factor = landmark_factor(kernel(Z))
    right = factor.right
    y = y - y.mean()
    gram, moment = np.zeros((right.shape[1],) * 2), np.zeros(right.shape[1])
    step = block_rows(m, None, copies=2)
    for first in range(0, n, step):
        features = kernel(X[first : first + step], Z) @ right
        gram += features.T @ features
        moment += features.T @ y[first : first + step]
    values, W = eigen_from_gram(gram, factor.signature)
    coef = (W.T @ moment) / (values + n * 1e-3 * np.sign(values))
    dual = (right @ W) @ coef
    return time.process_time() - start, _rss_mib() - base, float(dual[0])


def default_fit(n, d, m):
    from krein.least_squares import KreinRidge

    X, y = _data(n, d)
    base = _rss_mib()
    start = time.process_time()
    model = KreinRidge(_delta_gauss(d), lambda_plus=1e-3, lambda_minus=1e-3, n_components=m, random_state=0)
    model.fit(X, y)
    return time.process_time() - start, _rss_mib() - base, model.representation_.approximation_error


def nystroem_fit(n, d, m, error_controlled):
    """The streamed one-shot fit of ``IndefiniteNystroem``'s representation (validated K_ZZ rank)."""
    from krein.nystroem import nystroem_representation

    X, _ = _data(n, d)
    base = _rss_mib()
    start = time.process_time()
    rep, _ = nystroem_representation(
        _delta_gauss(d), X, n_components=m, random_state=0, error_controlled=error_controlled, warn_poor=False
    )
    return time.process_time() - start, _rss_mib() - base, rep.values.size


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every n by this factor")
    parser.add_argument("--cases", type=int, nargs="*", default=[1, 2, 3, 4, 5, 6])
    parser.add_argument("--landmarks", type=int, default=1000, help="m of cases 1 and 5")
    parser.add_argument("--seeds", type=int, default=5, help="seeds per cell of case 4")
    parser.add_argument("--workers", type=int, default=2, help="processes for the kernels of case 4")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="alternate the two sides this many times and keep each one's fastest run",
    )
    parser.add_argument(
        "--blas-threads",
        type=int,
        default=None,
        help="BLAS threads for both sides (e.g. 1 on a machine shared with other jobs)",
    )
    args = parser.parse_args()
    d, m = 20, args.landmarks
    print(
        f"BLAS threads: {args.blas_threads or 'library default'}; fastest of {args.repeat} alternating runs"
    )

    if 1 in args.cases:
        n = int(1_000_000 * args.scale)
        data_mib = n * d * 8 / 2**20
        (gemm_s, gemm_mib, _), (fit_s, fit_mib, how) = _measure_pair(
            features_gram, streamed_krein_ridge, (n, d, m), (n, d, m), args.blas_threads, args.repeat
        )
        print(f"[1] n={n}, d={d}, m={m}, DELTA-GAUSS, working_memory={WORKING_MEMORY} MiB ({how})")
        print(f"    chunked (C·R)ᵀ(C·R) by GEMMs: {gemm_s:.1f} s; streamed Kreĭn ridge fit: {fit_s:.1f} s")
        print(
            f"    time ratio fit / (C·R) Gram = {fit_s / gemm_s:.2f} (target ≤ 2; the floor: bench_floor.py)"
        )
        print(
            f"    peak memory beyond the data ({data_mib:.0f} MiB): fit {fit_mib:.0f} MiB, "
            f"(C·R) Gram {gemm_mib:.0f} MiB (target ≤ 1536 MiB)"
        )

    if 2 in args.cases:
        n = int(200_000 * args.scale)
        eta = np.sqrt(d)
        (ours_s, ours_mib, ours_acc), (peer_s, peer_mib, peer_acc) = _measure_pair(
            krein_classifier,
            sklearn_classifier,
            (n, d, m, eta),
            (n, d, m, eta),
            args.blas_threads,
            args.repeat,
        )
        print(f"[2] n={n}, d={d}, m={m}, Gaussian(eta={eta:.2f}) for both")
        print(
            f"    KreinRidgeClassifier: {ours_s:.1f} s, {ours_mib:.0f} MiB, train acc {ours_acc:.3f}; "
            f"sklearn Nystroem+RidgeClassifier: {peer_s:.1f} s, {peer_mib:.0f} MiB, train acc {peer_acc:.3f}"
        )
        print(
            f"    time ratio krein / sklearn = {ours_s / peer_s:.2f} (target ≤ 1); "
            f"memory ratio = {ours_mib / peer_mib:.2f}"
        )

    if 3 in args.cases:
        n = int(100_000 * args.scale)
        (one_s, one_mib, (one_top, one_orth)), (gs_s, gs_mib, (gs_top, gs_orth)) = _measure_pair(
            eigendecomposition,
            eigendecomposition,
            ("one-shot", n, d, m),
            ("gisbrecht-schleif", n, d, m),
            args.blas_threads,
            args.repeat,
        )
        print(
            f"[3] n={n}, m={m}, DELTA-GAUSS: one-shot {one_s:.2f} s ({one_mib:.0f} MiB), "
            f"Gisbrecht–Schleif {gs_s:.2f} s ({gs_mib:.0f} MiB)"
        )
        print(
            f"    time ratio Gisbrecht–Schleif / one-shot = {gs_s / one_s:.2f} (flop counts predict ~2); "
            f"top eigenvalue {one_top:.6g} vs {gs_top:.6g}; "
            f"max |ŨᵀŨ − I| (top 50) {one_orth:.1e} vs {gs_orth:.1e}"
        )

    if 4 in args.cases:
        landmark_block_comparison(int(1000 * min(args.scale, 1.0)), args.seeds, args.workers)

    if 5 in args.cases:
        n = int(100_000 * args.scale)
        (old_s, old_mib, _), (new_s, new_mib, error) = _measure_pair(
            todays_fit, default_fit, (n, d, m), (n, d, m), args.blas_threads, args.repeat
        )
        print(f"[5] n={n}, d={d}, m={m}, DELTA-GAUSS, sklearn working_memory: KreinRidge fit, CPU seconds")
        print(
            f"    before issue 17 (plain Eq. (3)): {old_s:.1f} s, {old_mib:.0f} MiB; default: {new_s:.1f} s, "
            f"{new_mib:.0f} MiB (estimated error {error:.2g})"
        )
        print(f"    time ratio default / before = {new_s / old_s:.2f} (target ≤ 1.2)")
        (plain_s, _, plain_rank), (cut_s, _, cut_rank) = _measure_pair(
            nystroem_fit, nystroem_fit, (n, d, m, False), (n, d, m, True), args.blas_threads, args.repeat
        )
        print(
            f"    IndefiniteNystroem fit: validated K_ZZ rank {plain_s:.1f} s (rank {plain_rank}); with the "
            f"error-controlled truncation {cut_s:.1f} s (rank {cut_rank}); ratio {cut_s / plain_s:.2f}"
        )

    if 6 in args.cases:
        default_against_plain(int(1000 * min(args.scale, 1.0)), args.seeds, args.workers)


if __name__ == "__main__":
    main()
