"""A graph convolutional network in the shape of PyTorch's gcn example: node features and
a symmetrically normalised adjacency matrix with self-loops held as sparse COO tensors,
graph convolutions as sparse @ dense products (torch.sparse.mm, torch.spmm), Adam with
weight decay, and the loss on a mask of training nodes.

The graph is synthetic: nodes of four communities, linked mostly within their own.

    python gcn.py --steps 10
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class GraphConv(nn.Module):
    def __init__(self, input_dim, output_dim):
        super().__init__()
        self.kernel = nn.Parameter(torch.empty(size=(input_dim, output_dim)))
        nn.init.xavier_normal_(self.kernel)
        self.bias = nn.Parameter(torch.zeros(output_dim))

    def forward(self, input, adj):
        support = torch.mm(input, self.kernel)
        return torch.spmm(adj, support) + self.bias


class GCN(nn.Module):
    def __init__(self, input_dim, hidden_dim, output_dim, dropout_p=0.2):
        super().__init__()
        self.gc1 = GraphConv(input_dim, hidden_dim)
        self.gc2 = GraphConv(hidden_dim, output_dim)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, features, adj):
        x = self.dropout(F.relu(self.gc1(features, adj)))
        return F.log_softmax(self.gc2(x, adj), dim=1)


def synthetic_graph(nodes: int, classes: int, features: int, generator: torch.Generator):
    """(sparse features, sparse normalised adjacency, labels)."""
    labels = torch.randint(0, classes, (nodes,), generator=generator)
    prototypes = torch.rand(classes, features, generator=generator) < 0.2
    noise = torch.rand(nodes, features, generator=generator) < 0.05
    dense = (prototypes[labels] ^ noise).float()
    rows = torch.arange(nodes).repeat_interleave(3)
    same = [torch.nonzero(labels == labels[i]).flatten() for i in range(nodes)]
    cols = torch.stack([same[i][torch.randint(0, len(same[i]), (1,), generator=generator)]
                        .squeeze(0) for i in rows.tolist()])
    edges = torch.stack([torch.cat([rows, cols]), torch.cat([cols, rows])])
    adj = torch.sparse_coo_tensor(edges, torch.ones(edges.size(1)), (nodes, nodes))
    adj = torch.eye(nodes) + adj                              # self-loops; dense now
    adj = (adj > 0).float()
    degree = torch.diag(adj.sum(1).pow(-0.5)).to_sparse()
    adj = degree @ adj @ degree                               # D^-1/2 (A + I) D^-1/2
    row_sums = torch.diag(1 / dense.sum(1).clamp(min=1)).to_sparse()
    return torch.sparse.mm(row_sums, dense).to_sparse(), adj.to_sparse(), labels


def main():
    parser = argparse.ArgumentParser(description="GCN on a synthetic graph")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--nodes", type=int, default=120)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    features, adj, labels = synthetic_graph(args.nodes, 4, 24,
                                            torch.Generator().manual_seed(args.seed))
    assert features.is_sparse and adj.is_sparse and adj.layout == torch.sparse_coo
    train_mask = torch.arange(args.nodes) % 2 == 0

    model = GCN(features.shape[1], 16, int(labels.max()) + 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=5e-4)
    criterion = nn.NLLLoss()
    for step in range(args.steps):
        model.train()
        optimizer.zero_grad()
        loss = criterion(model(features, adj)[train_mask], labels[train_mask])
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}")

    model.eval()
    with torch.no_grad():
        output = model(features, adj)
    accuracy = (output.argmax(1) == labels)[~train_mask].float().mean().item()
    print(f"held-out accuracy {accuracy:.2f}")
    print(f"output shape {tuple(output.shape)}")


if __name__ == "__main__":
    main()
