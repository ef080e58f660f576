"""scipy.special and scipy.linalg in published objective functions,
differentiated as written (compiled: a numba fallback is an error, see
conftest.py, and as Python), against finite differences: a Gaussian
mixture's log-posterior with a Wishart prior as ADBench writes it
(multigammaln, logsumexp), and a Gaussian-process negative log-likelihood
(cho_factor / cho_solve). Also: a library function without a rule is
refused, never read as source; a sample of the systematic scipy grid
compiles."""
import math
import os

import numpy as np
import pytest
import scipy.linalg
import scipy.special
from scipy.linalg import cho_factor, cho_solve
from scipy.special import logsumexp, multigammaln

import s2sad
from gradcheck import FULL, check_grad, check_jvp, numerical_grad


# ---- a Gaussian mixture with a Wishart prior (ADBench's GMM objective) -------------

def gmm_log_posterior(alphas, means, icf, x, wishart_gamma, wishart_m):
    """ADBench's GMM objective: icf[j] holds the log of the diagonal of the
    j-th inverse Cholesky factor, then its strictly lower triangle packed
    column by column."""
    n, d = x.shape
    k = alphas.shape[0]
    sum_qs = np.sum(icf[:, :d], axis=1)
    inner = np.zeros((n, k))
    frobenius = 0.0
    for j in range(k):
        L = np.zeros((d, d))
        pos = d
        for col in range(d):
            L[col, col] = math.exp(icf[j, col])
            for row in range(col + 1, d):
                L[row, col] = icf[j, pos]
                pos += 1
        xc = x - means[j]
        lx = xc @ L.T
        inner[:, j] = alphas[j] + sum_qs[j] - 0.5 * np.sum(lx * lx, axis=1)
        frobenius += np.sum(L * L)
    lse = logsumexp(inner, axis=1)
    p = d
    dof = p + wishart_m + 1
    prior = 0.5 * wishart_gamma * wishart_gamma * frobenius - wishart_m * np.sum(sum_qs)
    c = dof * p * (math.log(wishart_gamma) - 0.5 * math.log(2.0)) - multigammaln(0.5 * dof, p)
    constant = -n * d * 0.5 * math.log(2.0 * math.pi)
    return constant + np.sum(lse) - n * logsumexp(alphas) + prior - k * c


def _gmm_args(seed=0, n=5, d=3, k=2):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=k), rng.normal(size=(k, d)),
            rng.normal(scale=0.5, size=(k, d + d * (d - 1) // 2)), rng.normal(size=(n, d)),
            1.3, 2)


# (`lx = xc @ L.T` in a loop: the transpose, its tape's copies and the placeholder before the
# loop are all F-ordered, so numba's `@` gets contiguous operands; any layout would warn)
@pytest.mark.filterwarnings("error::numba.core.errors.NumbaPerformanceWarning")
def test_gmm_log_posterior(jit):
    check_grad(gmm_log_posterior, _gmm_args(), wrt=(0, 1, 2), jit=jit)


def test_gmm_log_posterior_forward():
    check_jvp(gmm_log_posterior, _gmm_args(1), wrt=2, jit=False)


def wishart_log_normaliser(dof, scale_logdet):
    """log of the Wishart normalising constant of a 3 x 3 scale matrix, as a
    function of the degrees of freedom: multigammaln with a gradient."""
    p = 3
    return (0.5 * dof * p * math.log(2.0) + 0.5 * dof * scale_logdet
            + multigammaln(0.5 * dof, p))


def test_multigammaln_needs_a_gradient(jit):
    check_grad(wishart_log_normaliser, (4.7, 0.3), wrt=0, jit=jit)


def test_multigammaln_second_order():
    hess = s2sad.hessian(wishart_log_normaliser, jit=False)(4.7, 0.3)
    expected = 0.25 * sum(scipy.special.polygamma(1, 0.5 * 4.7 - 0.5 * j) for j in range(3))
    np.testing.assert_allclose(hess, expected, rtol=1e-8)


# ---- a Gaussian process's negative log-likelihood --------------------------------------

def gp_nll_loops(log_ell, log_sf, log_sn, X, y):
    """The kernel built in a loop; log det from the factor's diagonal."""
    n = X.shape[0]
    ell2 = math.exp(2.0 * log_ell)
    sf2 = math.exp(2.0 * log_sf)
    K = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            r2 = np.sum((X[i] - X[j]) ** 2)
            K[i, j] = sf2 * math.exp(-0.5 * r2 / ell2)
    K = K + math.exp(2.0 * log_sn) * np.eye(n)
    c, low = cho_factor(K, lower=True)
    alpha = cho_solve((c, low), y)
    logdet = 0.0
    for i in range(n):
        logdet += math.log(c[i, i])
    return 0.5 * np.dot(y, alpha) + logdet + 0.5 * n * math.log(2.0 * math.pi)


def gp_nll_vectorised(theta, X, y):
    """theta = (log length scale, log signal sd, log noise sd); the kernel
    vectorised, the factor upper (scipy's default)."""
    n = X.shape[0]
    diff = X[:, None, :] - X[None, :, :]
    r2 = np.sum(diff * diff, axis=2)
    K = np.exp(2.0 * theta[1]) * np.exp(-0.5 * r2 / np.exp(2.0 * theta[0]))
    K = K + np.exp(2.0 * theta[2]) * np.eye(n)
    factor = cho_factor(K)
    alpha = cho_solve(factor, y)
    return 0.5 * np.dot(y, alpha) + np.sum(np.log(np.diag(factor[0]))) \
        + 0.5 * n * np.log(2.0 * np.pi)


def _gp_data(seed=0, n=6):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2.0, 2.0, size=(n, 2))
    return X, np.sin(X[:, 0]) + 0.1 * rng.normal(size=n)


def test_gp_nll_loops(jit):
    X, y = _gp_data()
    check_grad(gp_nll_loops, (0.2, -0.1, -1.0, X, y), wrt=(0, 1, 2), jit=jit)


def test_gp_nll_vectorised(jit):
    """Also the gradients into the inputs and targets (through the kernel and b)."""
    X, y = _gp_data(1)
    check_grad(gp_nll_vectorised, (np.array([0.1, 0.3, -1.2]), X, y), wrt=(0, 1, 2), jit=jit)


def test_gp_nll_vectorised_forward():
    X, y = _gp_data(2)
    check_jvp(gp_nll_vectorised, (np.array([0.1, 0.3, -1.2]), X, y), wrt=0, jit=False)


def test_cholesky_gradient_lands_in_the_read_triangle():
    """scipy reads one triangle: perturbing the other changes nothing, so
    its gradient is 0 (finite differences of scipy agree entry by entry)."""
    def f(a):
        return np.sum(scipy.linalg.cholesky(a, lower=True) ** 2)
    a = np.array([[4.0, 0.7, -0.2], [0.3, 3.0, 0.5], [0.1, -0.4, 2.5]])
    g = s2sad.grad(f, jit=False)(a)
    np.testing.assert_allclose(g, numerical_grad(f, (a,), 0), atol=1e-6)
    assert np.all(np.triu(g, 1) == 0.0)


# ---- library functions without a rule -----------------------------------------------------

def test_library_function_without_rule_is_refused():
    import scipy.optimize  # noqa: F401 (the function above reads it)

    def f(x):
        return scipy.optimize.rosen(x)
    with pytest.raises(LookupError, match=r"scipy\.optimize\._optimize\.rosen is a function of "
                                          r"an installed package.*register_gradient"):
        s2sad.grad(f, jit=False)(np.array([0.5, 1.5, 1.0]))


def test_library_function_with_a_registered_rule():
    import scipy.optimize

    def rosen_grad(g, ans, x):
        return g * scipy.optimize.rosen_der(x)

    def f(x):
        return 2.0 * scipy.optimize.rosen(x)
    s2sad.register_gradient(scipy.optimize.rosen, rosen_grad)
    x = np.array([0.5, 1.5, 1.0])
    np.testing.assert_allclose(s2sad.grad(f, jit=False)(x), 2.0 * scipy.optimize.rosen_der(x))


def test_user_helpers_are_still_read():
    def helper(x):
        return x * x

    def f(x):
        return np.sum(helper(x))
    np.testing.assert_allclose(s2sad.grad(f, jit=False)(np.array([1.0, 2.0])), [2.0, 4.0])


def test_logsumexp_refuses_return_sign():
    def f(x):
        return logsumexp(x, return_sign=True)[0]
    with pytest.raises(LookupError, match="return_sign"):
        s2sad.grad(f, jit=False)(np.array([0.5, 1.5]))


def test_solve_refuses_an_unknown_assume_a():
    def f(a, b):
        return np.sum(scipy.linalg.solve(a, b, assume_a="banded"))
    with pytest.raises(LookupError, match="assume_a"):
        s2sad.grad(f, jit=False)(np.eye(3) * 2.0, np.ones(3))


# ---- a compiled sample of the systematic scipy grid -----------------------------------------
# (each case is a module numba compiles, about 10 s: a few by default, all of
# these with S2SAD_SCIPY_COMPILED=all or S2SAD_FULL=1; the whole grid is
# `python -m tests.systematic.run --jit --filter scipy`)

_ALL_COMPILED = ["scipy.special.gammaln:gammaln/2x3", "scipy.special.psi:psi/s",
            "scipy.special.polygamma:polygamma/1/2x3", "scipy.special.betaln:betaln/2x3_3",
            "scipy.special.erfinv:erfinv/3", "scipy.special.log_ndtr:log_ndtr/2x3",
            "scipy.special.xlogy:xlogy/2x1_1x3", "scipy.special.i1e:i1e/s",
            "scipy.special.multigammaln:multigammaln/3/3",
            "scipy.special.logsumexp:logsumexp/2x3x4, axis=(0, 2)/keepdims",
            "scipy.special.logsumexp:logsumexp/b=row", "scipy.special.softmax:softmax/2x3, axis=1",
            "scipy.special.log_softmax:log_softmax/3", "scipy.linalg.cholesky:cholesky",
            "scipy.linalg.cho_solve:cho_solve/3x2/lower=False",
            "scipy.linalg.solve_triangular:solve_triangular/3/trans='T'/lower=True",
            "scipy.linalg.solve:solve/3x2, assume_a='pos', lower=True",
            "scipy.linalg.inv:inv", "scipy.linalg.det:det", "scipy.linalg.expm:expm/scaled",
                 "scipy.linalg.eigh:eigh/vectors"]
_FEW = ["scipy.special.polygamma:polygamma/1/2x3", "scipy.special.xlogy:xlogy/2x1_1x3",
        "scipy.special.logsumexp:logsumexp/b=row", "scipy.special.softmax:softmax/2x3, axis=1",
        "scipy.linalg.solve_triangular:solve_triangular/3/trans='T'/lower=True",
        "scipy.linalg.solve:solve/3x2, assume_a='pos', lower=True",
        "scipy.linalg.expm:expm/scaled", "scipy.linalg.eigh:eigh/vectors"]
COMPILED = _ALL_COMPILED if FULL or os.environ.get("S2SAD_SCIPY_COMPILED") == "all" else _FEW


@pytest.fixture(scope="module")
def compiled_cases(tmp_path_factory):
    from systematic.check import write_module
    from systematic.grid import build_cases
    cases = {c.id: c for c in build_cases(("value",))}
    chosen = [cases[i] for i in COMPILED]
    functions = write_module(chosen, tmp_path_factory.mktemp("scipy"), "systematic_scipy")
    return {c.id: (c, functions[c.id]) for c in chosen}


@pytest.mark.parametrize("case_id", COMPILED)
def test_scipy_rule_compiles(case_id, compiled_cases):
    from systematic.check import run_case
    case, fn = compiled_cases[case_id]
    results = run_case(case, fn, jit=True, modes=("grad", "jvp"))
    bad = [f"{r.mode}: {r.status}: {r.detail} {r.fallback or ''}" for r in results
           if r.failed or r.fallback]
    assert not bad, "\n".join(bad)


def test_exported_derivative_runs_without_s2sad(tmp_path):
    """s2sad.export copies the scipy helpers into the exported module (run as
    Python here: NUMBA_DISABLE_JIT=1, compiling takes a minute)."""
    import subprocess
    import sys
    X, y = _gp_data(3, n=4)
    df = s2sad.grad(gp_nll_vectorised, jit=False)
    theta = np.array([0.1, 0.3, -1.2])
    expected = df(theta, X, y)
    path = tmp_path / "gp_grad.py"
    s2sad.export(df, str(path))
    code = (f"import sys, numpy as np; sys.path.insert(0, {str(tmp_path)!r}); "
            f"sys.modules['s2sad'] = None; import gp_grad; "
            f"X = np.array({X.tolist()}); y = np.array({y.tolist()}); "
            f"print(list(gp_grad.grad_gp_nll_vectorised(np.array({theta.tolist()}), X, y)[1]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=str(tmp_path), env={**{k: v for k, v in os.environ.items()
                                                    if k != "PYTHONPATH"},
                                                 "NUMBA_DISABLE_JIT": "1"})
    assert out.returncode == 0, out.stderr
    np.testing.assert_allclose(eval(out.stdout), expected, rtol=1e-10)


# ---- scipy.stats log-densities (through s2sad/definitions/scipy_stats.py) ----------------

import scipy.stats  # noqa: E402
from scipy.stats import multivariate_normal, norm  # noqa: E402


def normal_loglik(x, mu, s):
    return np.sum(norm.logpdf(x, loc=mu, scale=s)) + np.sum(scipy.stats.norm.logpdf(x, mu, 2.0 * s))


def gaussian_loglik(X, m, C):
    S = C @ C.T + np.eye(2)
    return np.sum(multivariate_normal.logpdf(X, mean=m, cov=S)) + \
        multivariate_normal.logpdf(X[0], m, S)


def test_stats_logpdf_definitions_agree_with_scipy():
    import scipy.stats as st
    from s2sad.definitions import scipy_stats as d
    X = np.array([[0.3, -1.2], [0.8, 0.1], [1.5, -0.4]])
    S = np.array([[1.5, 0.2], [0.2, 0.9]])
    m = np.array([0.1, -0.2])
    np.testing.assert_allclose(d.multivariate_normal_logpdf(X, m, S),
                               st.multivariate_normal.logpdf(X, m, S))
    np.testing.assert_allclose(d.multivariate_normal_logpdf(X[1], m, S),
                               st.multivariate_normal.logpdf(X[1], m, S))
    np.testing.assert_allclose(d.norm_logpdf(X[:, 0], 0.2, 1.3), st.norm.logpdf(X[:, 0], 0.2, 1.3))


@pytest.mark.parametrize("wrt", [0, 1, 2])
def test_stats_logpdf_gradients(wrt, jit):
    x = np.array([0.3, -1.2, 0.8])
    X = np.array([[0.3, -1.2], [0.8, 0.1], [1.5, -0.4]])
    m, C = np.array([0.1, -0.2]), np.array([[1.0, 0.3], [-0.2, 0.7]])
    check_grad(normal_loglik, (x, 0.2, 1.3), wrt=wrt, jit=jit)
    check_jvp(normal_loglik, (x, 0.2, 1.3), wrt=wrt, jit=jit)
    check_grad(gaussian_loglik, (X, m, C), wrt=wrt, jit=jit)
    check_jvp(gaussian_loglik, (X, m, C), wrt=wrt, jit=jit)


# ---- a function s2sad defines in Python, called inside a helper ------------------------

def _log_density(mean, point):
    from scipy.stats import multivariate_normal
    return multivariate_normal.logpdf(point, mean, np.array([[2.0, 0.3], [0.3, 1.0]]))


def two_densities(mean):
    return _log_density(mean, np.array([0.3, -0.2])) + 0.5 * _log_density(mean * mean, mean)


def test_defined_function_inside_a_helper_compiles():
    """(the helper's forward copy kept the scipy call, which numba cannot
    type: the whole derivative ran as Python; the fallback warning is an
    error in the tests)"""
    mean = np.array([0.1, 0.4])
    for jit in (True, False):
        check_grad(two_densities, (mean,), jit=jit)


from scipy.stats import t as student_t  # noqa: E402


def tail_scores(x, loc, scale):
    # densities and probabilities of the normal and Student's t distributions
    return (np.sum(norm.pdf(x, loc, scale) * norm.cdf(x, loc=loc, scale=scale))
            + np.sum(norm.logcdf(x, loc, scale)) + np.sum(student_t.logpdf(x, 2.4, loc, scale))
            + np.sum(student_t.pdf(x, 3.5, loc=loc, scale=scale)))


def test_more_stats_definitions_agree_with_scipy():
    from s2sad.definitions import scipy_stats as d
    x = np.array([-3.0, -0.4, 0.2, 1.7])
    np.testing.assert_allclose(d.norm_pdf(x, 0.3, 1.4), norm.pdf(x, 0.3, 1.4))
    np.testing.assert_allclose(d.norm_cdf(x, 0.3, 1.4), norm.cdf(x, 0.3, 1.4))
    np.testing.assert_allclose(d.norm_logcdf(x, 0.3, 1.4), norm.logcdf(x, 0.3, 1.4))
    np.testing.assert_allclose(d.t_logpdf(x, 2.4, 0.3, 1.4), student_t.logpdf(x, 2.4, 0.3, 1.4))
    np.testing.assert_allclose(d.t_pdf(x, 2.4, 0.3, 1.4), student_t.pdf(x, 2.4, 0.3, 1.4))


@pytest.mark.parametrize("wrt", [0, 1, 2])
def test_more_stats_gradients(wrt, jit):
    check_grad(tail_scores, (np.array([-2.1, -0.4, 0.3, 1.6]), 0.2, 1.3), wrt=wrt, jit=jit)
