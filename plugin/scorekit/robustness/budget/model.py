"""The item-response model behind budgeted robustness estimates (numpy and scipy only).

A budgeted run observes B of the V cells y_qv (1 = correct) of each question q. The model
(a Rasch model with a random variant effect, as PromptEval's, Maia Polo et al. 2024):

    P(y_qv = 1) = logistic(theta_q + beta_v)

- theta_q, the question's easiness, has a distribution pi on a grid of 41 points -10, -9.5,
  ..., 10 (logit), estimated by maximum likelihood (the NPMLE: any shape, such as the many
  always-right and always-wrong questions of real benchmarks);
- beta_v, the variant's effect, is drawn from a Student t (nu, 0, tau) -- a spread tau with
  tails nu in {1, 2, 4, 10, inf} -- or, with a share eps in {3, 6, 12, 25}% of the variants,
  sits at one point mu in {-18, -6, -5.5, ..., 0} instead: a cluster of prompts that break the
  answer format and score near 0 (or, at -18, the floor of the grid, never: a format the
  parser never reads), which no single bell shape fits. A broken prompt loses
  answers and never gains them, so the cluster sits at or below the centre of the others
  (their upper tail is the t's). (nu, tau, eps, mu) is not fitted but *integrated*: a prior on
  the grid (49 values of tau from 0 to 4; nu uniform; "no cluster" a quarter of the mass, the
  56 clusters the rest) and the posterior computed exactly on it, so the doubt about how
  spread the variants are is in every interval. With 20 answers per variant a t with heavy
  tails explains a cluster of 8% at -3 about as well as the cluster does (Bayes factors near
  1), so the prior decides; "no cluster" at half the mass and mu over -6..6 (most of the 100
  clusters far from the data) left the cluster a quarter to a half of the posterior, and the 5%
  quantile's interval covered 75% of the simulated broken families (docs/budget.md). Two
  priors on tau are kept: ``flat`` (uniform in tau) and ``spike`` (half its mass on tau = 0,
  no variant effect, half flat); :mod:`~scorekit.robustness.budget.estimate` says why.

**Fit** (alternating, at most ``OUTER_ITERATIONS`` rounds, until the predicted probabilities
move by less than 1e-4):

1. each question's posterior over the theta grid, given its observed cells and the variants'
   posterior predictive probabilities pbar(theta, v) = E[logistic(theta + beta_v)], and pi by
   EM (20 steps a round);
2. each variant's likelihood of beta on a grid (289 points, -18..18; cubic interpolation to
   1441), each observed cell integrated over its question's *cavity* posterior (the question's
   posterior without that cell, so a cell does not vouch for itself);
3. the posterior of (nu, tau, eps, mu), and each variant's posterior of beta on the fine grid.

The beta grid reaches far beyond the theta grid's reach so that a variant can be never (or
always) right on every question, the easiest too. On -6..6 a variant never right among its
asked cells was still drawn right on about 1% of its unasked ones (an easy question at theta
= 4 keeps logistic(-2) = 12% at beta = -6), and neither its interval nor the minimum's ever
held the full run's 0 (bench scenario ``zero``, docs/budget.md); the far cluster at the floor
lets such variants be exactly what their answers say.

**Draws** (:func:`draws`): D joint draws of the full run, each: (nu, tau, eps, mu) from its
posterior, every beta_v from its posterior given them (in the cluster or not, then where),
pi from its posterior (a Gibbs sampler), and every theta_q from its posterior *given the
draw's betas*: its asked cells' likelihood at those betas times pi. Then the unobserved cells
of variant v whose questions sit at grid place k are m_kv exchangeable Bernoulli cells of
chance p = logistic(theta_k + beta_v), and their count of right answers is one binomial draw
(K V draws, not N V). The full run's per-variant accuracy is the observed cells plus those
counts. Under question weights (a macro accuracy) the weight of the c_kv right ones is that of
a random c_kv-subset of the m_kv questions: drawn as a normal with its exact mean and variance
(c w1/m and c (m - c)/(m - 1) times the weights' population variance), clipped to the
possible. A draw costs O(N K + B N + K V) rather than O(N V).

Counts, not a normal sum: a variant that was never right among its asked cells has a small
expected count of right answers among the unasked ones (under one, for the nine never-right
answer positions of a weak model with a position bias), and its full run's accuracy is then
exactly 0 with a good chance. A normal sum with that mean and variance, clipped at 0, is 0
far less often, so several such variants were almost never 0 in the same draw, and the
interval of a quantile that the full run has at 0 did not hold it (the 75% quantile of that
family: covered in 0% of the designs; 89% with the binomial counts, docs/budget.md).

Drawing theta given the betas matters where the variants spread: with theta drawn once from
its posterior under the variants' posterior predictive (independent of the draw's betas), an
asked cell's luck counted twice, in its theta and in its beta, and the mean accuracy's
interval was a quarter too wide (it covered 99% in the strong-spread simulation).
The betas' own posterior integrates theta over each cell's cavity posterior (fit, step 2), so
(beta, theta) is drawn as p(beta | data) p(theta | beta, pi, data), the first approximated.
Coverage is measured, not assumed: bench/sim_budget.py, docs/budget.md.

What 20 answers per variant cannot tell: a tight group of broken prompts from a spread lower
tail (binomial noise scatters the group, and a t spread with a small far cluster explains that
as well; the likelihood itself, not only the prior, often prefers it). The group's prompts are
then pulled toward the others (the 5% quantile's interval misses high) and the ones that scored
0 or 1 by chance are drawn far below it (the minimum's interval misses low); docs/budget.md,
"Where it is weak", has the diagnosis and a prior tried against it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.interpolate import CubicSpline
from scipy.special import expit

__all__ = ["Fit", "fit", "draws", "THETA", "BETA"]

THETA = np.linspace(-10.0, 10.0, 41)
_BETA_COARSE = np.linspace(-18.0, 18.0, 289)
BETA = np.linspace(-18.0, 18.0, 1441)
_NU = (1.0, 2.0, 4.0, 10.0, np.inf)
_TAU = np.concatenate([[0.0], np.geomspace(0.02, 4.0, 48)])
_CLUSTER_SHARE = (0.03, 0.06, 0.12, 0.25)
_CLUSTER_AT = np.r_[BETA[0], np.linspace(-6.0, 0.0, 13)]  # below the centre only: a broken prompt loses answers
_CLUSTER_INDEX = np.rint((_CLUSTER_AT - BETA[0]) / (BETA[1] - BETA[0])).astype(int)  # on the fine grid
_N_CLUSTERS = 1 + len(_CLUSTER_SHARE) * len(_CLUSTER_AT)  # column 0: no cluster
_NO_CLUSTER = 0.25  # prior mass of "no cluster" (the model docstring says why not more)
_LOG_CLUSTER = np.log(np.r_[_NO_CLUSTER, np.full(_N_CLUSTERS - 1, (1 - _NO_CLUSTER) / (_N_CLUSTERS - 1))])
OUTER_ITERATIONS = 20
_TOLERANCE = 1e-3
_PI_STEPS = 20
_BURN = 20
_THIN = 2
_PI_DRAWS = 20


def _hyper_grid() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(prior table J x H: t(nu, 0, tau) on the fine beta grid, each column summing to 1;
    log prior weights of the (nu, tau) grid, flat and spike)."""
    cols, logw, taus = [], [], []
    spacing = np.gradient(_TAU)
    for nu in _NU:
        for tau, step in zip(_TAU, spacing):
            if tau == 0.0:
                col = (BETA == BETA[np.argmin(np.abs(BETA))]).astype(float)
            else:
                z = BETA / tau
                logd = -0.5 * z**2 if np.isinf(nu) else -0.5 * (nu + 1) * np.log1p(z**2 / nu)
                col = np.exp(logd - logd.max())
            cols.append(col / col.sum())
            logw.append(np.log(step))  # uniform density in tau
            taus.append(tau)
    tau_arr = np.array(taus)
    flat = np.exp(np.array(logw))
    flat /= flat.sum()
    spike = np.where(tau_arr == 0, 0.0, flat)
    spike = 0.5 * spike / spike.sum() + np.where(tau_arr == 0, 0.5 / len(_NU), 0.0)
    return np.array(cols).T, np.log(flat), np.log(spike)


_PRIOR, _LOG_FLAT, _LOG_SPIKE = _hyper_grid()


def _interpolation() -> np.ndarray:
    """Cubic-spline map (coarse x fine) of the beta grid: log-likelihoods on the coarse grid
    times this matrix = the natural cubic spline through them, on the fine grid."""
    return CubicSpline(_BETA_COARSE, np.eye(len(_BETA_COARSE)), axis=0, bc_type="natural")(BETA).T


_SPLINE = _interpolation()


@dataclass
class Fit:
    """A fitted model. ``w``: (N, K) question posteriors over :data:`THETA`;
    ``question_likelihood``: (N, K) each question's likelihood on the grid (scaled to max 1); ``likelihood``:
    (V, J) each variant's likelihood of beta on :data:`BETA` (scaled to max 1);
    ``hyper`` / ``hyper_spike``: (H, C) posterior weights of the (nu, tau) x cluster grid under
    the flat and the spike prior (cluster 0: none; c >= 1: share and place of :func:`_cluster`);
    ``pbar``: (K, V) posterior predictive P(correct | theta_k, v) (flat prior);
    ``pi``: the theta distribution."""

    w: np.ndarray
    question_likelihood: np.ndarray
    likelihood: np.ndarray
    hyper: np.ndarray
    hyper_spike: np.ndarray
    pbar: np.ndarray
    pi: np.ndarray


def _mixing_em(loglik: np.ndarray, weights: np.ndarray, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """EM for mixing weights on a grid given a fixed (rows x grid) log-likelihood table:
    (weights, rows' posteriors)."""
    lik = np.exp(loglik - loglik.max(axis=1, keepdims=True))
    for _ in range(steps):
        post = lik * weights
        post /= post.sum(axis=1, keepdims=True)
        weights = post.mean(axis=0)
    post = lik * weights
    post /= post.sum(axis=1, keepdims=True)
    return weights, post


def _cluster(c: int) -> tuple[float, int]:
    """(share eps, fine-grid index of mu) of cluster column c >= 1."""
    i, m = divmod(c - 1, len(_CLUSTER_AT))
    return _CLUSTER_SHARE[i], int(_CLUSTER_INDEX[m])


def _variant_posterior(loglik: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(hyper posterior (H, C) flat prior, the same spike prior, variants' posteriors (V, J) under
    the flat prior, likelihood scaled to max 1). A variant's marginal likelihood under (h, c) is
    (1 - eps) base[v, h] + eps lik[v, mu], base = its likelihood integrated over t(h)."""
    lik = np.exp(loglik - loglik.max(axis=1, keepdims=True))
    base = np.maximum(lik @ _PRIOR, 1e-300)  # V x H
    at = lik[:, _CLUSTER_INDEX]  # V x M
    m = len(_CLUSTER_AT)
    evidence = np.empty((base.shape[1], _N_CLUSTERS))
    evidence[:, 0] = np.log(base).sum(axis=0)
    for i, eps in enumerate(_CLUSTER_SHARE):
        evidence[:, 1 + i * m:1 + (i + 1) * m] = np.log((1 - eps) * base[:, :, None] + eps * at[:, None, :]).sum(axis=0)
    posts = []
    for log_tau in (_LOG_FLAT, _LOG_SPIKE):
        x = evidence + log_tau[:, None] + _LOG_CLUSTER[None, :]
        post = np.exp(x - x.max())
        posts.append(post / post.sum())
    flat = posts[0]
    # each variant's posterior under the flat prior: sum over (h, c) of P(h, c | data) times
    # its posterior given (h, c), a mixture of the t part and the cluster's point
    w_base = flat[:, 0][None, :] / base
    w_at = np.zeros_like(at)
    for i, eps in enumerate(_CLUSTER_SHARE):
        part = flat[:, 1 + i * m:1 + (i + 1) * m][None, :, :] / ((1 - eps) * base[:, :, None] + eps * at[:, None, :])
        w_base += (1 - eps) * part.sum(axis=2)
        w_at += eps * part.sum(axis=1)
    r = lik * (w_base @ _PRIOR.T)
    r[:, _CLUSTER_INDEX] += at * w_at
    r /= r.sum(axis=1, keepdims=True)
    return flat, posts[1], r, lik


def fit(correct: np.ndarray, observed: np.ndarray) -> Fit:
    """Fit the model to the observed cells of a (N, V) 0/1 matrix (``observed`` a bool mask).

    Every question needs an observed cell; the caller checks. Deterministic (no randomness)."""
    n, v = correct.shape
    y1 = np.where(observed, correct, 0.0)
    y0 = np.where(observed, 1.0 - correct, 0.0)
    qi, vi = np.nonzero(observed)
    right = correct[qi, vi] == 1
    by_variant = sparse.csr_matrix((np.ones(len(qi)), (vi, np.arange(len(qi)))), shape=(v, len(qi)))
    s_coarse = expit(THETA[:, None] + _BETA_COARSE[None, :])
    s_fine = expit(THETA[:, None] + BETA[None, :])
    r = np.zeros((v, len(BETA)))
    r[:, np.argmin(np.abs(BETA))] = 1.0
    pi = np.exp(-0.5 * (THETA / 3.0) ** 2)
    pi /= pi.sum()
    last = None
    hyper = spike = lik = w = qlik = None
    for _ in range(OUTER_ITERATIONS):
        pbar = np.clip(s_fine @ r.T, 1e-12, 1 - 1e-12)  # K x V
        loglik = y1 @ np.log(pbar).T + y0 @ np.log1p(-pbar).T  # N x K
        pi, w = _mixing_em(loglik, pi, _PI_STEPS)
        qlik = np.exp(loglik - loglik.max(axis=1, keepdims=True))
        cell = pbar[:, vi].T
        cell = np.where(right[:, None], cell, 1 - cell)
        cavity = w[qi] / cell
        cavity /= cavity.sum(axis=1, keepdims=True)
        p_cell = cavity @ s_coarse  # cells x coarse beta grid
        p_cell = np.where(right[:, None], p_cell, 1 - p_cell)
        variant_loglik = (by_variant @ np.log(np.maximum(p_cell, 1e-300))) @ _SPLINE
        hyper, spike, r, lik = _variant_posterior(variant_loglik)
        if last is not None and np.abs(pbar - last).max() < _TOLERANCE:
            break
        last = pbar
    pbar = np.clip(s_fine @ r.T, 1e-12, 1 - 1e-12)
    return Fit(w=w, question_likelihood=qlik, likelihood=lik, hyper=hyper, hyper_spike=spike, pbar=pbar, pi=pi)


@dataclass
class Draws:
    """D draws of the full run. ``accuracy``: (D, V) per-variant accuracies (weighted by the
    question weights); ``plain``: (D, V) unweighted; ``weights_flat``
    and ``weights_spike``: each draw's importance weight under the two priors (the draws'
    (nu, tau) come from the half-half mixture of the two posteriors; weights are at most 2)."""

    accuracy: np.ndarray
    plain: np.ndarray
    weights_flat: np.ndarray
    weights_spike: np.ndarray


def _inverse_cdf(cdf: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Row-wise inverse CDF: for rows of ``cdf`` (R, G), nondecreasing and ending at 1, and
    uniforms ``u`` (..., R), the first index with cdf >= u in each row. One searchsorted on the
    rows laid end to end (row r shifted by r), O(R log(R G)) instead of O(R G)."""
    rows, size = cdf.shape
    flat = (cdf + np.arange(rows)[:, None]).ravel()
    idx = np.searchsorted(flat, u + np.arange(rows), side="left") - np.arange(rows) * size
    return np.clip(idx, 0, size - 1)


def _categorical(cdf: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Row-wise inverse CDF for a small grid: (G, R) uniforms, (R, K) CDFs ending at 1 -> (G, R)
    indices (the first with cdf >= u), by comparison, in blocks to bound memory."""
    out = np.empty(u.shape, dtype=np.intp)
    block = max(1, 4_000_000 // cdf.size)
    for i in range(0, len(u), block):
        out[i:i + block] = (cdf[None, :, :] < u[i:i + block, :, None]).sum(axis=2)
    return np.minimum(out, cdf.shape[1] - 1)


def _beta_draws(model: Fit, hyper: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(D, V) draws of the variant effects, draw d given the grid cell hyper[d] of the flattened
    (H, C) posterior: each variant in the cluster with its posterior odds, else from its
    likelihood times t(nu, 0, tau)."""
    v = model.likelihood.shape[0]
    out = np.empty((len(hyper), v))
    h_of, c_of = np.divmod(hyper, _N_CLUSTERS)
    for h in np.unique(h_of):
        rows = np.nonzero(h_of == h)[0]
        weighted = model.likelihood * _PRIOR[:, h][None, :]
        cdf = np.cumsum(weighted, axis=1)
        base = cdf[:, -1].copy()
        cdf /= cdf[:, -1:]
        out[rows] = BETA[_inverse_cdf(cdf, rng.random((len(rows), v)))]
        rows = rows[c_of[rows] > 0]
        if len(rows):
            eps_j = np.array([_cluster(int(c)) for c in c_of[rows]])
            eps, j = eps_j[:, :1], eps_j[:, 1].astype(int)
            at = model.likelihood[:, j].T  # rows x V
            member = rng.random(at.shape) * ((1 - eps) * base[None, :] + eps * at) < eps * at
            out[rows] = np.where(member, BETA[j][:, None], out[rows])
    return out


def _pi_draws(model: Fit, rng: np.random.Generator) -> list[np.ndarray]:
    """Draws of the question distribution pi from its posterior, by a Gibbs sampler started at
    the fitted pi: given pi, each question's theta index from its posterior (its likelihood on
    the grid times pi); given those, pi ~ Dirichlet(counts + 1/K). ``_BURN`` steps, then every
    ``_THIN``-th of ``_PI_DRAWS`` draws."""
    k = len(THETA)
    n = model.question_likelihood.shape[0]
    pi, out = model.pi, []
    for step in range(_BURN + _PI_DRAWS * _THIN):
        cdf = np.cumsum(model.question_likelihood * pi, axis=1)
        cdf /= cdf[:, -1:]
        t = _categorical(cdf, rng.random((1, n)))[0]
        pi = rng.dirichlet(np.bincount(t, minlength=k) + 1.0 / k)
        if step >= _BURN and (step - _BURN) % _THIN == _THIN - 1:
            out.append(pi)
    return out


def subset_sum_moments(count: np.ndarray, size: np.ndarray, total: np.ndarray,
                       total_sq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of the sum of ``count`` weights drawn without replacement from ``size``
    weights whose sum is ``total`` and sum of squares ``total_sq`` (elementwise arrays):
    mean = c w1/m, variance = c (m - c)/(m - 1) (w2/m - (w1/m)^2). Both 0 where m is 0.

    Two of the weights 1, 2, 3, 4 (the six pairs sum to 3, 4, 5, 5, 6, 7):

    >>> mean, var = subset_sum_moments(np.array(2), np.array(4), np.array(10.0), np.array(30.0))
    >>> float(mean), round(float(var), 4)
    (5.0, 1.6667)
    """
    m = np.maximum(size, 1)
    mean_w = np.where(size > 0, total / m, 0.0)
    var_w = np.maximum(np.where(size > 0, total_sq / m, 0.0) - mean_w**2, 0.0)
    return count * mean_w, count * (size - count) / np.maximum(size - 1, 1) * var_w


def draws(model: Fit, correct: np.ndarray, observed: np.ndarray, weights: np.ndarray, n_draws: int,
          seed: int) -> Draws:
    """Joint draws of the full run's per-variant accuracies (module docstring).

    Draw d takes (nu, tau) from the mixture of the two posteriors, the betas given it, the
    question distribution pi as the (d mod ``_PI_DRAWS``)-th of :func:`_pi_draws` (so the doubt
    about pi is in the draws), each question's theta from its posterior given that pi and the
    draw's betas, and the unobserved cells' right answers as binomial counts by grid place."""
    rng = np.random.default_rng(seed)
    n, v = correct.shape
    k = len(THETA)
    qi, vi = np.nonzero(observed)
    y = np.where(observed, correct, 0.0)
    obs_w = (y * weights[:, None]).sum(axis=0)
    obs_plain = y.sum(axis=0)
    mixture = 0.5 * (model.hyper + model.hyper_spike).ravel()
    hyper = rng.choice(len(mixture), size=n_draws, p=mixture)
    betas = _beta_draws(model, hyper, rng)
    acc = np.empty((n_draws, v))
    plain = np.empty((n_draws, v))
    uniform = bool(np.all(weights == weights[0]))  # then acc = plain / n
    w2 = weights**2
    pis = _pi_draws(model, rng)
    # Each question's theta is drawn given the draw's betas, so that an asked cell's luck counts
    # once (in its theta or its beta), not in both. An asked cell's log-likelihood on the theta
    # grid is a row of ``cell_table`` (2 J, K): row j if wrong at beta = BETA[j], J + j if right.
    # A question's log-likelihood is the sum of its cells' rows: counts (N, 2 J) @ cell_table.
    s_all = np.clip(expit(BETA[:, None] + THETA[None, :]), 1e-12, 1 - 1e-12)
    cell_table = np.log(np.concatenate([1 - s_all, s_all]))
    beta_index = np.rint((betas - BETA[0]) / (BETA[1] - BETA[0])).astype(np.intp)  # betas lie on BETA
    right = len(BETA) * (correct[qi, vi] == 1)
    rows_start = np.searchsorted(qi, np.arange(n + 1))  # qi is sorted: np.nonzero is row-major
    ones = np.ones(len(qi))

    def unasked_total(t: np.ndarray, place: np.ndarray, wq: np.ndarray | None = None) -> np.ndarray:
        """(K, V): over the questions at theta place k (``t``) that were not asked variant v
        (``place`` of the asked cells), their count, or the sum of their ``wq``."""
        return (np.bincount(t, weights=wq, minlength=k)[:, None]
                - np.bincount(place, weights=None if wq is None else wq[qi], minlength=k * v).reshape(k, v))

    for j, pi in enumerate(pis):
        group = range(j, n_draws, len(pis))
        for d, u in zip(group, rng.random((len(group), n))):
            counts = sparse.csr_matrix((ones, beta_index[d][vi] + right, rows_start),
                                       shape=(n, cell_table.shape[0]))
            loglik = counts @ cell_table
            cdf = np.cumsum(np.exp(loglik - loglik.max(axis=1, keepdims=True)) * pi, axis=1)
            cdf /= cdf[:, -1:]
            t = _categorical(cdf, u[None, :])[0]  # each question's theta index
            place = t[qi] * v + vi  # each asked cell's (theta place, variant)
            # the unasked cells of variant v at theta place k: m[k, v] exchangeable Bernoulli
            # cells, their count of right answers one binomial draw
            unasked = unasked_total(t, place)
            p = expit(THETA[:, None] + betas[d][None, :])  # K x V
            c = rng.binomial(unasked, p)
            plain[d] = obs_plain + c.sum(axis=0)
            if uniform:
                continue
            w1 = unasked_total(t, place, weights)
            mean, var = subset_sum_moments(c, unasked, w1, unasked_total(t, place, w2))
            mean, var = mean.sum(axis=0), var.sum(axis=0)
            upper = np.maximum(w1, 0.0).sum(axis=0)
            acc[d] = obs_w + np.clip(mean + np.sqrt(var) * rng.standard_normal(v), 0.0, upper)
    plain /= n
    if uniform:
        acc = plain
    return Draws(accuracy=acc, plain=plain, weights_flat=model.hyper.ravel()[hyper] / mixture[hyper],
                 weights_spike=model.hyper_spike.ravel()[hyper] / mixture[hyper])
