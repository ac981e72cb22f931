"""A variational autoencoder in the shape of PyTorch's VAE example: fully connected
encoder to a mean and log-variance, the reparameterisation trick, binary cross-entropy
plus KL divergence summed over the batch, Adam.

The images are synthetic 8x8 pictures in [0, 1]: one of four fixed blobs, jittered.

    python vae.py --steps 10
"""
import argparse

import torch
from torch import nn, optim
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset


class VAE(nn.Module):
    def __init__(self, pixels=64, hidden=48, latent=4):
        super().__init__()
        self.fc1 = nn.Linear(pixels, hidden)
        self.fc21 = nn.Linear(hidden, latent)
        self.fc22 = nn.Linear(hidden, latent)
        self.fc3 = nn.Linear(latent, hidden)
        self.fc4 = nn.Linear(hidden, pixels)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 64))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    """Reconstruction + KL divergence, summed over all elements and the batch."""
    bce = F.binary_cross_entropy(recon_x, x.view(-1, 64), reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld


def synthetic_blobs(count: int, generator: torch.Generator) -> TensorDataset:
    grid = torch.arange(8.0)
    centres = torch.tensor([[2.0, 2.0], [2.0, 5.0], [5.0, 2.0], [5.0, 5.0]])
    kinds = torch.randint(0, 4, (count,), generator=generator)
    centre = centres[kinds] + 0.5 * torch.randn(count, 2, generator=generator)
    dy = (grid.view(1, 8, 1) - centre[:, 0].view(-1, 1, 1)) ** 2
    dx = (grid.view(1, 1, 8) - centre[:, 1].view(-1, 1, 1)) ** 2
    images = torch.exp(-(dx + dy) / 3.0).unsqueeze(1)
    return TensorDataset(images, kinds)


def main():
    parser = argparse.ArgumentParser(description="VAE on synthetic 8x8 blobs")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    data = torch.Generator().manual_seed(args.seed)
    train_loader = DataLoader(synthetic_blobs(512, data), batch_size=args.batch_size,
                              shuffle=True)
    model = VAE()
    optimizer = optim.Adam(model.parameters(), lr=1e-2)

    step = 0
    model.train()
    while step < args.steps:
        for data_batch, _ in train_loader:
            optimizer.zero_grad()
            recon_batch, mu, logvar = model(data_batch)
            loss = loss_function(recon_batch, data_batch, mu, logvar)
            loss.backward()
            optimizer.step()
            print(f"step {step} loss {loss.item() / len(data_batch):.4f}")
            step += 1
            if step == args.steps:
                break

    model.eval()
    with torch.no_grad():
        sample = model.decode(torch.randn(16, 4)).view(16, 1, 8, 8)
    print(f"output shape {tuple(sample.shape)}")


if __name__ == "__main__":
    main()
