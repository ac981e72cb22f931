"""The main job for now: train a tiny two-layer network on a toy regression with
ember's autograd and watch the loss fall. (Later replaced by the MNIST example.)"""
import ember as torch

torch.manual_seed(0)
x = torch.linspace(-2, 2, 64).reshape(64, 1)
y = (x * 3).sin() * 0.5 + x * 0.25

w1 = (torch.randn(1, 32) * 0.5).requires_grad_()
b1 = torch.zeros(32, requires_grad=True)
w2 = (torch.randn(32, 1) * 0.2).requires_grad_()
b2 = torch.zeros(1, requires_grad=True)
params = [w1, b1, w2, b2]

for step in range(501):
    hidden = (x @ w1 + b1).tanh()
    loss = ((hidden @ w2 + b2 - y) ** 2).mean()
    for p in params:
        p.grad = None
    loss.backward()
    with torch.no_grad():
        for p in params:
            p -= 0.1 * p.grad
    if step % 50 == 0:
        print(f"step {step:4d}  loss {loss.item():.5f}")
