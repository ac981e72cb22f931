"""torchvision.models.regnet (RegNet, Radosavovic et al., 2020): not implemented in ember; the
names import and raise NotImplementedError naming themselves when used."""
from .._unavailable import stand_ins
from ._api import UNAVAILABLE_MODELS

__all__ = ["RegNet", "RegNet_Y_400MF_Weights", "RegNet_Y_800MF_Weights", "RegNet_Y_1_6GF_Weights",
           "RegNet_Y_3_2GF_Weights", "RegNet_Y_8GF_Weights", "RegNet_Y_16GF_Weights",
           "RegNet_Y_32GF_Weights", "RegNet_Y_128GF_Weights", "RegNet_X_400MF_Weights",
           "RegNet_X_800MF_Weights", "RegNet_X_1_6GF_Weights", "RegNet_X_3_2GF_Weights",
           "RegNet_X_8GF_Weights", "RegNet_X_16GF_Weights", "RegNet_X_32GF_Weights",
           "regnet_y_400mf", "regnet_y_800mf", "regnet_y_1_6gf", "regnet_y_3_2gf", "regnet_y_8gf",
           "regnet_y_16gf", "regnet_y_32gf", "regnet_y_128gf", "regnet_x_400mf", "regnet_x_800mf",
           "regnet_x_1_6gf", "regnet_x_3_2gf", "regnet_x_8gf", "regnet_x_16gf", "regnet_x_32gf"]
_INTERNAL = ["AnyStage", "BlockParams", "BottleneckTransform", "ResBottleneckBlock", "SimpleStemIN"]
_BUILDERS = ["regnet_y_400mf", "regnet_y_800mf", "regnet_y_1_6gf", "regnet_y_3_2gf",
             "regnet_y_8gf", "regnet_y_16gf", "regnet_y_32gf", "regnet_y_128gf", "regnet_x_400mf",
             "regnet_x_800mf", "regnet_x_1_6gf", "regnet_x_3_2gf", "regnet_x_8gf", "regnet_x_16gf",
             "regnet_x_32gf"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS))
