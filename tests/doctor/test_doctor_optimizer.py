"""ember/doctor/_optimizer.py: missing-zero-grad, params-not-in-optimizer,
scheduler-before-optimizer. Each buggy script reports its check at the marked line; each
fixed twin, and each legitimate pattern next to the mistake, reports nothing."""
from __future__ import annotations

import pytest

MODEL = """
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
x, y = torch.randn(16, 4), torch.randint(0, 3, (16,))
"""


def test_missing_zero_grad(expect):
    found = expect(MODEL + """
for step in range(4):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()  # <- missing-zero-grad
""")
    assert found[0].count == 3       # steps 2, 3 and 4
    assert "call optimizer.zero_grad()" in found[0].message


@pytest.mark.parametrize("clear", [
    "opt.zero_grad()",
    "model.zero_grad()",
    "opt.zero_grad(set_to_none=False)",
    "for p in model.parameters(): p.grad = None",
    "for p in model.parameters(): p.grad.zero_() if p.grad is not None else None",
])
def test_missing_zero_grad_fixed(expect, clear):
    expect(MODEL + f"""
for step in range(4):
    {clear}
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
""")


def test_gradient_accumulation_is_silent(expect):
    expect(MODEL + """
for step in range(8):
    loss = F.cross_entropy(model(x), y) / 4
    loss.backward()
    if step % 4 == 3:
        opt.step()
        opt.zero_grad()
""")


def test_closure_optimizer_is_silent(expect):
    expect(MODEL + """
lbfgs = torch.optim.LBFGS(model.parameters(), max_iter=3)
def closure():
    lbfgs.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    return loss
for step in range(3):
    lbfgs.step(closure)
""")


GAN = """
G = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 4))
D = nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
real = torch.randn(8, 4)
ones, zeros = torch.ones(8, 1), torch.zeros(8, 1)
for step in range(4):
    D.zero_grad({set_to_none})
    fake = G(torch.randn(8, 2))
    err_real = F.binary_cross_entropy_with_logits(D(real), ones)
    err_real.backward()
    err_fake = F.binary_cross_entropy_with_logits(D(fake.detach()), zeros)
    err_fake.backward()
    err_d = err_real + err_fake
    opt_d.step()
    G.zero_grad({set_to_none})
    err_g = F.binary_cross_entropy_with_logits(D(fake), ones)   # also fills D's grads
    err_g.backward()
    opt_g.step()
"""


@pytest.mark.parametrize("set_to_none", ["", "set_to_none=False"])
def test_gan_is_silent(expect, set_to_none):
    """G's backward adds into D's gradients after D's step; D.zero_grad() clears them in the
    next iteration, before D's backward passes."""
    expect(GAN.format(set_to_none=set_to_none))


def test_params_not_in_optimizer(expect):
    expect(MODEL + """
model[2] = nn.Linear(8, 3)      # a new head, after the optimizer was built
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()  # <- params-not-in-optimizer
""")


def test_params_not_in_optimizer_fixed(expect):
    expect(MODEL + """
model[2] = nn.Linear(8, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
""")


@pytest.mark.parametrize("optimizers", [
    # training only the head while the body's gradients are computed but not used
    "opts = [torch.optim.SGD(model[2].parameters(), lr=0.1)]",
    # two optimizers sharing one model, stepped one after the other
    ("opts = [torch.optim.SGD(model[0].parameters(), lr=0.1), "
     "torch.optim.Adam(model[2].parameters(), lr=1e-3)]"),
])
def test_params_left_out_on_purpose_are_silent(expect, optimizers):
    expect(MODEL + optimizers + """
for step in range(3):
    model.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    for o in opts:
        o.step()
""")


SCHEDULED = MODEL + """
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
for epoch in range(3):
    {before}
    for step in range(2):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    {after}
"""


@pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step\\(\\)`")
def test_scheduler_before_optimizer(expect):
    expect(SCHEDULED.format(before="sched.step()  # <- scheduler-before-optimizer",
                            after="pass"))


def test_scheduler_after_optimizer_is_silent(expect):
    expect(SCHEDULED.format(before="pass", after="sched.step()"))


def test_cleared_gradients_are_not_kept_alive():
    """The doctor remembers a step's gradients weakly: zero_grad() frees them, as without it
    (their memory is reused by the next backward pass)."""
    import gc
    import weakref

    import ember
    import ember.doctor
    model = ember.nn.Linear(4, 3)
    opt = ember.optim.SGD(model.parameters(), lr=0.1)
    ember.doctor.enable()
    try:
        model(ember.randn(2, 4)).sum().backward()
        opt.step()
        grad = weakref.ref(model.weight.grad)
        opt.zero_grad()
        gc.collect()
        assert grad() is None
    finally:
        ember.doctor.disable()
