"""torchvision.models.feature_extraction: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from .. import _unavailable

__all__ = ["LeafModuleAwareTracer", "NodePathTracer", "get_graph_node_names", "DualGraphModule",
           "create_feature_extractor"]
globals().update(_unavailable.stand_ins(__name__, __all__))
