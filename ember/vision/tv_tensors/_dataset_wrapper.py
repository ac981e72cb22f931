"""torchvision.tv_tensors._dataset_wrapper: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from .. import _unavailable

__all__ = ["wrap_dataset_for_transforms_v2", "WrapperFactories", "VisionDatasetTVTensorWrapper",
           "raise_not_supported", "identity", "identity_wrapper_factory", "pil_image_to_mask",
           "parse_target_keys", "list_of_dicts_to_dict_of_lists", "wrap_target_by_type",
           "classification_wrapper_factory", "segmentation_wrapper_factory",
           "video_classification_wrapper_factory", "caltech101_wrapper_factory",
           "coco_dectection_wrapper_factory", "voc_detection_wrapper_factory", "sbd_wrapper",
           "celeba_wrapper_factory", "kitti_wrapper_factory", "oxford_iiit_pet_wrapper_factor",
           "cityscapes_wrapper_factory", "widerface_wrapper"]
globals().update(_unavailable.stand_ins(__name__, __all__))
