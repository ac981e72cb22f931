"""The failure of a GPU query on a CPU-only build, shared by ember.cuda's modules."""

NO_CUDA = ("Torch not compiled with CUDA enabled. ember runs on the CPU only: guard GPU code "
           "with `if torch.cuda.is_available():`.")


def no_cuda(*args, **kwargs):
    raise AssertionError(NO_CUDA)
