"""A small GPT trained the way nanoGPT trains one: backend flags set for GPUs, an
autocast context that is a nullcontext on the CPU, a GradScaler that is a no-op unless
training in float16, weight tying, AdamW with weight-decay parameter groups and the
fused flag chosen by inspecting AdamW's signature, warmup + cosine learning rate,
gradient accumulation, clipping, torch.compile behind a flag, a checkpoint saved and
resumed, and sampling with top-k.

The text is synthetic: token ids from np.memmap over a file this program writes.

    python gpt.py --steps 10
"""
import argparse
import inspect
import math
import os
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
from torch.nn import functional as F


class LayerNorm(nn.Module):
    """LayerNorm with an optional bias."""

    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, input):
        return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        self.dropout = config.dropout
        self.flash = (hasattr(torch.nn.functional, "scaled_dot_product_attention")
                      and torch.__version__ >= "2.0")
        if not self.flash:
            mask = torch.tril(torch.ones(config.block_size, config.block_size))
            self.register_buffer("bias", mask.view(1, 1, config.block_size, config.block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        if self.flash:
            y = F.scaled_dot_product_attention(
                q, k, v, attn_mask=None, dropout_p=self.dropout if self.training else 0,
                is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            att = self.attn_dropout(F.softmax(att, dim=-1))
            y = att @ v                                                   # (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = LayerNorm(config.n_embd, bias=config.bias)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = LayerNorm(config.n_embd, bias=config.bias)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


@dataclass
class GPTConfig:
    block_size: int = 32
    vocab_size: int = 32
    n_layer: int = 2
    n_head: int = 2
    n_embd: int = 32
    dropout: float = 0.0
    bias: bool = True


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),
            wpe=nn.Embedding(config.block_size, config.n_embd),
            drop=nn.Dropout(config.dropout),
            h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f=LayerNorm(config.n_embd, bias=config.bias),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        b, t = idx.size()
        assert t <= self.config.block_size
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        if targets is not None:
            logits = self.lm_head(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1),
                                   ignore_index=-1)
        else:
            logits = self.lm_head(x[:, [-1], :])  # only the last position
            loss = None
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas, device_type):
        params = {pn: p for pn, p in self.named_parameters() if p.requires_grad}
        decay = [p for p in params.values() if p.dim() >= 2]
        nodecay = [p for p in params.values() if p.dim() < 2]
        groups = [{"params": decay, "weight_decay": weight_decay},
                  {"params": nodecay, "weight_decay": 0.0}]
        fused_available = "fused" in inspect.signature(torch.optim.AdamW).parameters
        use_fused = fused_available and device_type == "cuda"
        extra_args = dict(fused=True) if use_fused else dict()
        return torch.optim.AdamW(groups, lr=learning_rate, betas=betas, **extra_args)

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= self.config.block_size else \
                idx[:, -self.config.block_size:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("Inf")
            idx_next = torch.multinomial(F.softmax(logits, dim=-1), num_samples=1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


def write_tokens(path: str, vocab_size: int, length: int, seed: int) -> None:
    """A token stream that mostly counts upwards (mod vocab_size), as uint16 ids."""
    rng = np.random.default_rng(seed)
    ids = (np.arange(length) + np.cumsum(rng.random(length) < 0.05)) % vocab_size
    ids.astype(np.uint16).tofile(path)


def main():
    parser = argparse.ArgumentParser(description="nanoGPT-style training on synthetic tokens")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--accumulation", type=int, default=2)
    parser.add_argument("--learning-rate", type=float, default=1e-2)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--compile", action="store_true")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--out-dir", default="out")
    args = parser.parse_args()

    torch.manual_seed(1337)
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    device_type = "cuda" if "cuda" in args.device else "cpu"
    dtype = "bfloat16" if torch.cuda.is_available() and torch.cuda.is_bf16_supported() \
        else "float32"
    ptdtype = {"float32": torch.float32, "bfloat16": torch.bfloat16,
               "float16": torch.float16}[dtype]
    ctx = nullcontext() if device_type == "cpu" else \
        torch.amp.autocast(device_type=device_type, dtype=ptdtype)

    config = GPTConfig()
    write_tokens("train.bin", config.vocab_size, 4096, seed=0)

    def get_batch():
        data = np.memmap("train.bin", dtype=np.uint16, mode="r")
        ix = torch.randint(len(data) - config.block_size, (args.batch_size,))
        x = torch.stack([torch.from_numpy(data[i:i + config.block_size].astype(np.int64))
                         for i in ix])
        y = torch.stack([torch.from_numpy(data[i + 1:i + 1 + config.block_size]
                                          .astype(np.int64)) for i in ix])
        return x.to(args.device), y.to(args.device)

    def get_lr(it):
        if it < args.warmup:
            return args.learning_rate * (it + 1) / (args.warmup + 1)
        decay_ratio = (it - args.warmup) / max(1, args.steps - args.warmup)
        coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
        return args.learning_rate / 10 + coeff * (args.learning_rate * 0.9)

    model = GPT(config).to(args.device)
    scaler = torch.amp.GradScaler(device_type, enabled=(dtype == "float16"))
    optimizer = model.configure_optimizers(0.1, args.learning_rate, (0.9, 0.95), device_type)
    if args.compile:
        model = torch.compile(model)

    X, Y = get_batch()
    for step in range(args.steps):
        for param_group in optimizer.param_groups:
            param_group["lr"] = get_lr(step)
        for _ in range(args.accumulation):
            with ctx:
                logits, loss = model(X, Y)
                loss = loss / args.accumulation
            X, Y = get_batch()
            scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        print(f"step {step} loss {loss.item() * args.accumulation:.4f}")

    os.makedirs(args.out_dir, exist_ok=True)
    checkpoint = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                  "model_args": vars(config), "iter_num": args.steps,
                  "best_val_loss": loss.detach() * args.accumulation}
    torch.save(checkpoint, os.path.join(args.out_dir, "ckpt.pt"))

    checkpoint = torch.load(os.path.join(args.out_dir, "ckpt.pt"), map_location=args.device)
    resumed = GPT(GPTConfig(**checkpoint["model_args"]))
    state_dict = checkpoint["model"]
    unwanted_prefix = "_orig_mod."
    for k in list(state_dict):
        if k.startswith(unwanted_prefix):
            state_dict[k[len(unwanted_prefix):]] = state_dict.pop(k)
    resumed.load_state_dict(state_dict)
    resumed.configure_optimizers(0.1, args.learning_rate, (0.9, 0.95), device_type) \
        .load_state_dict(checkpoint["optimizer"])
    resumed.eval()
    start = torch.zeros((1, 1), dtype=torch.long, device=args.device)
    with ctx:
        sample = resumed.generate(start, max_new_tokens=15, temperature=0.8, top_k=8)
    print(f"output shape {tuple(sample.shape)}")


if __name__ == "__main__":
    main()
