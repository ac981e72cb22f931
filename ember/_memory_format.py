"""torch.memory_format objects. ember stores every tensor in NumPy's layout; clone and
contiguous honour contiguous_format/preserve_format, channels_last is not supported."""


class memory_format:
    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return "torch." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))


def _by_name(name: str) -> memory_format:
    return globals()[name]


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
