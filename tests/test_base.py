"""Shared estimator machinery: one-vs-rest targets and the memory guard."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator

import krein._base as base
from krein._base import KernelEstimatorMixin, check_kernel_memory, decision_to_labels, one_vs_rest_targets


def test_one_vs_rest_targets():
    classes, Y = one_vs_rest_targets(np.array(["b", "a", "b"]))
    assert list(classes) == ["a", "b"] and Y.ravel().tolist() == [1, -1, 1]
    classes, Y = one_vs_rest_targets(np.array([2, 0, 1, 2]))
    np.testing.assert_array_equal(Y, [[-1, -1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]])
    assert list(decision_to_labels(Y * 2.0, classes)) == [2, 0, 1, 2]
    assert list(decision_to_labels(np.array([-1.0, 3.0]), np.array(["a", "b"]))) == ["a", "b"]
    with pytest.raises(ValueError, match="only one class"):
        one_vs_rest_targets(np.ones(4))


class _Dummy(KernelEstimatorMixin, BaseEstimator):
    def __init__(self, kernel="gaussian"):
        self.kernel = kernel


def test_memory_guard_names_the_low_rank_alternative(monkeypatch):
    monkeypatch.setattr(base, "available_memory", lambda: 10 * 2**20)
    with pytest.raises(MemoryError, match="n_components"):
        check_kernel_memory(2000, _Dummy())
    with pytest.raises(MemoryError, match="_Dummy would need"):
        _Dummy()._fit_kernel(np.random.default_rng(0).normal(size=(2000, 2)))
    check_kernel_memory(100, _Dummy())  # 240 kB fits


def test_zero_kernel_is_rejected():
    with pytest.raises(ValueError, match="all zero"):
        _Dummy(kernel="precomputed")._fit_kernel(np.zeros((4, 4)))


def test_training_kernels_beyond_double_precision_are_named():
    """A kernel object that overflows on the data is named with X (it was a NaN kernel); a training
    kernel whose every value is subnormal (below 2.2e-308: fewer than 53 bits) is an error naming X
    (the least squares and proxy SVMs predicted NaN, libsvm and the hypergradient search failed with
    messages of their own); kernels near 1e-300 are normal doubles and fit."""
    from krein.kernels import Linear, Sigmoid
    from krein.least_squares import KreinRidge

    X = np.random.default_rng(0).normal(size=(20, 3))
    with pytest.raises(ValueError, match="the training kernel contains NaN or infinity.*X holds values"):
        _Dummy(kernel=Linear())._fit_kernel(1e155 * X)
    for fit in (_Dummy(kernel=Linear())._fit_kernel, KreinRidge(Linear()).fit):
        with pytest.raises(ValueError, match="no value larger than .* below the smallest normal double.*X"):
            fit(1e-160 * X, np.ones(20))
    K = Sigmoid()(X)
    with pytest.raises(ValueError, match="X holds no value larger than"):
        KreinRidge("precomputed").fit(1e-310 * K, X[:, 0])
    model = KreinRidge("precomputed").fit(1e-300 * K, X[:, 0])
    np.testing.assert_allclose(
        model.predict(1e-300 * K), KreinRidge("precomputed").fit(K, X[:, 0]).predict(K), rtol=1e-10
    )


def test_test_points_unrelated_to_every_training_point_are_named():
    """A compact-support kernel (TL1, ρ = 0.5) gives far test points all-zero kernel rows: their
    predictions are a constant of the model, and the estimator says so; near points draw no warning."""
    import warnings

    from krein.kernels import TruncatedL1
    from krein.least_squares import KreinRidgeClassifier

    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = (X[:, 0] > 0).astype(int)
    model = KreinRidgeClassifier(TruncatedL1(rho=0.5)).fit(X, y)
    far = np.vstack([X[:3] + 100.0, X[3:5]])
    with pytest.warns(UserWarning, match="3 of 5 test points have an all-zero kernel row"):
        model.predict(far)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.predict(X[:5])  # each row holds the point's own training column at least


def test_memory_guard_reads_the_cgroup_limit(tmp_path):
    """Issue 31: the guard read only /proc/meminfo, so a container's cgroup limit went unseen. v2:
    ``memory.max − memory.current`` of the process's cgroup and its ancestors (the least); v1: the
    memory controller's ``limit_in_bytes − usage_in_bytes``; "max" and v1's 2⁶³ mean no limit."""
    proc = tmp_path / "cgroup"
    proc.write_text("0::/box/job\n")
    job = tmp_path / "box" / "job"
    job.mkdir(parents=True)
    (job / "memory.max").write_text("max\n")
    (tmp_path / "box" / "memory.max").write_text(f"{3 * 2**30}\n")
    (tmp_path / "box" / "memory.current").write_text(f"{2**30}\n")
    assert base.cgroup_available_memory(str(proc), str(tmp_path)) == 2 * 2**30
    (job / "memory.max").write_text(f"{2**29}\n")
    assert base.cgroup_available_memory(str(proc), str(tmp_path)) == 2**29
    proc.write_text("4:memory:/box\n3:cpu:/box\n")
    memory = tmp_path / "memory" / "box"
    memory.mkdir(parents=True)
    (memory / "memory.limit_in_bytes").write_text(f"{5 * 2**30}\n")
    (memory / "memory.usage_in_bytes").write_text(f"{2**30}\n")
    (tmp_path / "memory" / "memory.limit_in_bytes").write_text("9223372036854771712\n")
    assert base.cgroup_available_memory(str(proc), str(tmp_path)) == 4 * 2**30
    (memory / "memory.limit_in_bytes").write_text("9223372036854771712\n")
    assert base.cgroup_available_memory(str(proc), str(tmp_path)) is None
    assert base.cgroup_available_memory(str(tmp_path / "missing"), str(tmp_path)) is None


def test_memory_guard_reads_rlimit_as():
    """Issue 31: in a process limited to 1.2 GiB by ``RLIMIT_AS`` an exact fit at n = 9000 (1.8 GiB for
    the kernel and its factorization) passed the guard and died in numpy ("Unable to allocate"); it now
    fails before allocating, with the guard's message."""
    import subprocess
    import sys

    script = (
        "import resource, numpy as np\n"
        "resource.setrlimit(resource.RLIMIT_AS, (int(1.2 * 2**30), resource.getrlimit(resource.RLIMIT_AS)[1]))\n"
        "from krein.least_squares import KreinRidge\n"
        "X = np.random.default_rng(0).standard_normal((9000, 2))\n"
        "try:\n"
        "    KreinRidge().fit(X, X[:, 0])\n"
        "except MemoryError as error:\n"
        "    print('MemoryError:', error)\n"
    )
    environment = {**__import__("os").environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment)
    assert "KreinRidge would need" in result.stdout, result.stdout + result.stderr
    assert "n_components" in result.stdout


def test_sparse_kernels_are_refused_with_the_conversion_to_make():
    """A scipy sparse matrix is not "a 2-D precomputed kernel matrix" of shape (): the message says sparse
    input is unsupported and to pass a dense array (issue 42)."""
    import scipy.sparse

    from krein._validation import check_precomputed_test_kernel, check_square_kernel, check_test_kernel
    from krein.least_squares import KreinRidge
    from krein.spectral import eigendecompose, indefiniteness

    rng = np.random.default_rng(0)
    Z = rng.normal(size=(12, 3))
    K, y = Z @ Z.T, Z[:, 0]
    message = r"X is a scipy sparse csr_matrix: krein does not support sparse input .*X\.toarray\(\)"
    for sparse in (scipy.sparse.csr_matrix(K), scipy.sparse.csr_array(K)):
        with pytest.raises(TypeError, match=message.replace("csr_matrix", type(sparse).__name__)):
            KreinRidge(kernel="precomputed").fit(sparse, y)
        with pytest.raises(TypeError, match=r"sparse .*toarray"):
            KreinRidge(kernel="precomputed", n_components=4, random_state=0).fit(sparse, y)
        with pytest.raises(TypeError, match="K is a scipy sparse"):
            eigendecompose(sparse)
        with pytest.raises(TypeError, match="K_or_eigenvalues is a scipy sparse"):
            indefiniteness(sparse)
        with pytest.raises(TypeError, match=r"K is a scipy sparse .*K\.toarray\(\)"):
            check_square_kernel(sparse, "K")
        with pytest.raises(TypeError, match="X is a scipy sparse"):
            check_test_kernel(sparse[:4], 12)
    model = KreinRidge(kernel="precomputed").fit(K, y)
    with pytest.raises(TypeError, match=message):
        model.predict(scipy.sparse.csr_matrix(K[:4]))
    with pytest.raises(TypeError, match=message):
        check_precomputed_test_kernel(scipy.sparse.csr_matrix(K[:4]), model)
    # the dense array is accepted, and gives what the message promises
    assert np.array_equal(model.predict(scipy.sparse.csr_matrix(K[:4]).toarray()), model.predict(K[:4]))


@pytest.mark.parametrize("name", ["IndefiniteSVC", "KreinSVC", "ModifiedSVC", "DCASVC"])
def test_a_class_weight_below_or_at_zero_is_named_with_its_class(name):
    """class_weight={0: -1, 1: 1} is reported as krein's error naming class_weight and the class, not as
    a solver's bound message (issue 42)."""
    import krein.svm

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = np.where(X[:, 0] > 0, "b", "a")
    Estimator = getattr(krein.svm, name)
    for weights, bad in (({"a": -1, "b": 1}, "'a'] = -1"), ({"a": 1, "b": 0.0}, "'b'] = 0.0")):
        with pytest.raises(
            ValueError, match=rf"class_weight\[{bad}: class weights must be finite and strictly"
        ):
            Estimator(kernel="gaussian", class_weight=weights).fit(X, y)
    with pytest.raises(ValueError, match=r"class_weight\['b'\] = nan"):
        Estimator(kernel="gaussian", class_weight={"a": 1, "b": float("nan")}).fit(X, y)
    with pytest.raises(TypeError, match=r"class_weight\['a'\] must be a real number, got 'x'"):
        Estimator(kernel="gaussian", class_weight={"a": "x", "b": 1}).fit(X, y)
    # a valid dict still weights the classes: doubling both weights is doubling C
    doubled = Estimator(kernel="gaussian", C=1.0, class_weight={"a": 2, "b": 2}).fit(X, y)
    plain = Estimator(kernel="gaussian", C=2.0).fit(X, y)
    np.testing.assert_allclose(doubled.decision_function(X), plain.decision_function(X), rtol=1e-6, atol=1e-8)
