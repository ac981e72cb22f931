"""A DCGAN in the shape of PyTorch's dcgan example: a ConvTranspose2d generator and a
Conv2d discriminator with BatchNorm, the DCGAN weight init chosen by class name, BCELoss
with filled label tensors, and two Adam optimizers stepped in turn.

The "real" images are synthetic 16x16 pictures: a bright bar at a random place.

    python dcgan.py --steps 10
"""
import argparse

import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        nn.init.normal_(m.weight, 0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.zeros_(m.bias)


class Generator(nn.Module):
    def __init__(self, nz, ngf):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False),     # (ngf*2) x 4 x 4
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),    # ngf x 8 x 8
            nn.BatchNorm2d(ngf),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf, 1, 4, 2, 1, bias=False),          # 1 x 16 x 16
            nn.Tanh(),
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self, ndf):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(1, ndf, 4, 2, 1, bias=False),                   # ndf x 8 x 8
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),             # (ndf*2) x 4 x 4
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False),               # 1 x 1 x 1
            nn.Sigmoid(),
        )

    def forward(self, input):
        return self.main(input).view(-1, 1).squeeze(1)


def synthetic_bars(count: int, generator: torch.Generator) -> TensorDataset:
    images = -torch.ones(count, 1, 16, 16)
    rows = torch.randint(2, 14, (count,), generator=generator)
    for i, row in enumerate(rows.tolist()):
        images[i, 0, row - 1:row + 1, 2:14] = 1.0
    return TensorDataset(images)


def main():
    parser = argparse.ArgumentParser(description="DCGAN on synthetic 16x16 bars")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--nz", type=int, default=16)
    parser.add_argument("--ngf", type=int, default=16)
    parser.add_argument("--ndf", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.0002)
    parser.add_argument("--beta1", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    device = torch.device("cpu")
    dataloader = DataLoader(synthetic_bars(256, torch.Generator().manual_seed(args.seed)),
                            batch_size=args.batch_size, shuffle=True)

    netG = Generator(args.nz, args.ngf).to(device)
    netG.apply(weights_init)
    netD = Discriminator(args.ndf).to(device)
    netD.apply(weights_init)
    criterion = nn.BCELoss()
    fixed_noise = torch.randn(8, args.nz, 1, 1, device=device)
    real_label, fake_label = 1, 0
    optimizerD = optim.Adam(netD.parameters(), lr=args.lr, betas=(args.beta1, 0.999))
    optimizerG = optim.Adam(netG.parameters(), lr=args.lr, betas=(args.beta1, 0.999))

    step = 0
    while step < args.steps:
        for (real,) in dataloader:
            # (1) update D: maximise log(D(x)) + log(1 - D(G(z)))
            netD.zero_grad()
            batch_size = real.size(0)
            label = torch.full((batch_size,), real_label, dtype=real.dtype, device=device)
            errD_real = criterion(netD(real), label)
            errD_real.backward()
            noise = torch.randn(batch_size, args.nz, 1, 1, device=device)
            fake = netG(noise)
            label.fill_(fake_label)
            errD_fake = criterion(netD(fake.detach()), label)
            errD_fake.backward()
            errD = errD_real + errD_fake
            optimizerD.step()

            # (2) update G: maximise log(D(G(z)))
            netG.zero_grad()
            label.fill_(real_label)
            errG = criterion(netD(fake), label)
            errG.backward()
            optimizerG.step()
            print(f"step {step} loss {errD.item():.4f} loss_G {errG.item():.4f}")
            step += 1
            if step == args.steps:
                break

    with torch.no_grad():
        samples = netG(fixed_noise)
    print(f"output shape {tuple(samples.shape)}")


if __name__ == "__main__":
    main()
