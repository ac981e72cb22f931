"""A word-level language model in the shape of PyTorch's word_language_model example: an
LSTM over batchified token columns, truncated backpropagation through time with the
hidden state detached between batches, gradient clipping, AdamW, and the whole model saved with torch.save(model) and loaded back both ways
(weights_only=False, and weights_only under torch.serialization.safe_globals).

The corpus is synthetic: a random walk over a small vocabulary where most tokens have
one likely successor.

    python word_language_model.py --steps 10
"""
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class RNNModel(nn.Module):
    """Encoder (embedding), a recurrent layer stack, decoder (linear to the vocabulary)."""

    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.2, tie_weights=False):
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            self.decoder.weight = self.encoder.weight
        nn.init.uniform_(self.encoder.weight, -0.1, 0.1)
        nn.init.zeros_(self.decoder.bias)
        self.nhid = nhid
        self.nlayers = nlayers

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        decoded = self.decoder(self.drop(output)).view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid))


def synthetic_corpus(length: int, ntoken: int, generator: torch.Generator) -> torch.Tensor:
    successor = torch.randperm(ntoken, generator=generator)
    noise = torch.randint(0, ntoken, (length,), generator=generator)
    jump = torch.rand(length, generator=generator) < 0.1
    ids = [0]
    for i in range(1, length):
        ids.append(noise[i].item() if jump[i] else successor[ids[-1]].item())
    return torch.tensor(ids, dtype=torch.int64)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    return data.narrow(0, 0, nbatch * bsz).view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


def repackage_hidden(h):
    """Cut the hidden state from the graph of the batches before it."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def evaluate(model, data, bptt, batch_size, criterion):
    model.eval()
    total, hidden = 0.0, model.init_hidden(batch_size)
    with torch.no_grad():
        for i in range(0, data.size(0) - 1, bptt):
            inputs, targets = get_batch(data, i, bptt)
            output, hidden = model(inputs, hidden)
            hidden = repackage_hidden(hidden)
            total += len(inputs) * criterion(output, targets).item()
    return total / (len(data) - 1), output


def main():
    parser = argparse.ArgumentParser(description="LSTM language model on a synthetic corpus")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--ntokens", type=int, default=16)
    parser.add_argument("--emsize", type=int, default=24)
    parser.add_argument("--nhid", type=int, default=24)
    parser.add_argument("--nlayers", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--clip", type=float, default=1.0)
    parser.add_argument("--bptt", type=int, default=12)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--tied", action="store_true")
    parser.add_argument("--seed", type=int, default=1111)
    parser.add_argument("--save", default="model.pt")
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    generator = torch.Generator().manual_seed(args.seed)
    corpus = synthetic_corpus(2000, args.ntokens, generator)
    train_data = batchify(corpus[:1600], args.batch_size)
    val_data = batchify(corpus[1600:], 4)

    model = RNNModel(args.ntokens, args.emsize, args.nhid, args.nlayers, tie_weights=args.tied)
    criterion = nn.NLLLoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)

    step = 0
    while step < args.steps:
        model.train()
        hidden = model.init_hidden(args.batch_size)
        for i in range(0, train_data.size(0) - 1, args.bptt):
            inputs, targets = get_batch(train_data, i, args.bptt)
            hidden = repackage_hidden(hidden)
            optimizer.zero_grad()
            output, hidden = model(inputs, hidden)
            loss = criterion(output, targets)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            optimizer.step()
            print(f"step {step} loss {loss.item():.4f}")
            step += 1
            if step == args.steps:
                break

    val_loss, _ = evaluate(model, val_data, args.bptt, 4, criterion)
    print(f"valid loss {val_loss:.2f} ppl {math.exp(val_loss):.2f}")

    with open(args.save, "wb") as f:
        torch.save(model, f)
    with open(args.save, "rb") as f:
        trusted = torch.load(f, weights_only=False)
    allowed = [RNNModel, nn.Dropout, nn.Embedding, nn.LSTM, nn.Linear]
    with open(args.save, "rb") as f, torch.serialization.safe_globals(allowed):
        model = torch.load(f)
    model.rnn.flatten_parameters()
    test_loss, output = evaluate(model, val_data, args.bptt, 4, criterion)
    assert test_loss == evaluate(trusted, val_data, args.bptt, 4, criterion)[0] == val_loss
    print(f"output shape {tuple(output.shape)}")


if __name__ == "__main__":
    main()
