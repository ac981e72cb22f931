"""ember.nn.modules: one file per family of layers, as in torch.nn.modules."""
