"""ember's compile beside the other compilers of a training step, in one process run:
torch.compile (inductor, which compiles C++ with the machine's gcc) and, for the MLP, JAX's
`jit` (when jax is installed: `pip install jax`). Not among the default suites, since
inductor takes a minute or more to compile each workload: `python -m bench peers`.

The torch column runs `torch.compile(step)`, the ember column `ember.compile(step)` (the
ember[numpy] column is left out: inductor's counterpart is ember with its compiled kernels).
Each row also prints both compilers' first two calls (tracing and compiling). The JAX row
puts torch's eager step in the torch column, so that JAX and ember are each measured
against the same reference.
"""
from __future__ import annotations

import time

import numpy as np

from bench import compiled, core, nn
from bench.runner import compare


def _both_compiled(workload):
    """workload's step compiled by each library's own compiler."""
    def setup(lib):
        step, units = workload(lib)
        start = time.perf_counter()
        fast = lib.compile(step)
        fast()
        fast()
        setup.first_calls[lib.__name__] = time.perf_counter() - start
        return fast, units
    setup.first_calls = {}
    return setup


def _jax_mlp(jax):
    """The bench MLP (784-256-256-10, ReLU, cross-entropy, Adam lr 1e-3, batch 128) as one
    jitted JAX train step with the Adam update written out."""
    import jax.numpy as jnp
    rng = np.random.default_rng(0)
    params = []
    for fan_in, fan_out in [(784, 256), (256, 256), (256, 10)]:
        bound = 1 / np.sqrt(fan_in)
        params.append([jnp.asarray(rng.uniform(-bound, bound, shape).astype(np.float32))
                       for shape in ((fan_in, fan_out), (fan_out,))])
    x = jnp.asarray(rng.standard_normal((128, 784), dtype=np.float32))
    y = jnp.asarray(rng.integers(0, 10, 128))

    def loss_of(params):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            h = jax.nn.relu(h) if i < len(params) - 1 else h
        return -jnp.mean(jax.nn.log_softmax(h)[jnp.arange(128), y])

    @jax.jit
    def train_step(params, m, v, t):
        loss, grads = jax.value_and_grad(loss_of)(params)
        t = t + 1
        tree = jax.tree_util.tree_map
        m = tree(lambda m, g: 0.9 * m + 0.1 * g, m, grads)
        v = tree(lambda v, g: 0.999 * v + 0.001 * g * g, v, grads)
        params = tree(lambda p, m, v: p - 1e-3 * (m / (1 - 0.9 ** t)) /
                      (jnp.sqrt(v / (1 - 0.999 ** t)) + 1e-8), params, m, v)
        return params, m, v, t, loss

    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    state = [params, zeros, zeros, jnp.float32(0)]

    def step():
        *state[:], loss = train_step(*state)
        loss.block_until_ready()
    return step


def _mlp_peers(lib):
    """torch: eager; ember: compiled; jax: jitted."""
    if lib.__name__ == "jax":
        start = time.perf_counter()
        step = _jax_mlp(lib)
        step()
        step()
        _mlp_peers.first_calls["jax"] = time.perf_counter() - start
        return step, 1
    if lib.__name__ == "ember":
        return compiled._compiled(nn.mlp)(lib)
    return nn.mlp(lib)


_mlp_peers.first_calls = {}


def run() -> None:
    for name, workload, seconds in [
            ("MLP 784-256-256-10 Adam step (batch 128)", nn.mlp, 0.8),
            ("MNIST CNN train step (batch 64)", nn.mnist_cnn, 0.8),
            ("LSTM LM step (seq 35, batch 20)", nn.lstm_lm, 0.8)]:
        setup = _both_compiled(workload)
        compare(f"{name}, both compiled", setup, unit="steps/s", min_seconds=seconds,
                rounds=5, higher_is_better=True, libs=("torch", "ember"))
        print("  first two calls: " + ", ".join(f"{lib} {seconds:.1f} s" for lib, seconds
                                                in setup.first_calls.items()))
    setup = _both_compiled(core.op_chain_backward)
    compare("op chain forward+backward, both compiled", setup, libs=("torch", "ember"))
    print("  first two calls: " + ", ".join(f"{lib} {seconds:.1f} s" for lib, seconds
                                            in setup.first_calls.items()))
    try:
        import jax  # noqa: F401
    except ImportError:
        print("MLP, JAX jit: skipped (jax is not installed: pip install jax)")
        return
    compare("MLP Adam step: torch eager, ember compiled, jax jit", _mlp_peers,
            unit="steps/s", min_seconds=0.8, rounds=5, higher_is_better=True,
            libs=("torch", "ember", "jax"))
    print(f"  JAX's first two calls: {_mlp_peers.first_calls['jax']:.1f} s")
