"""Make dispatcher dumps identical on every machine: install and build paths become placeholders."""

import re

# The local install (a venv, a conda env, /usr/lib/python3/dist-packages): everything up to site-packages/.
SITE_PACKAGES = re.compile(r"(?<![\w<>.])/\S*?/(?:site|dist)-packages/")
# Where the wheel was built (for example /__w/pytorch/pytorch/): everything before the source tree.
BUILD_ROOT = re.compile(r"(?<![\w<>.])/(?:[\w.+-]+/)*?(?=(?:build/)?(?:aten|c10|caffe2|torch/csrc)/)")


def normalise(text: str) -> str:
    """Replace the local site-packages path and the wheel's build root with placeholders."""
    return BUILD_ROOT.sub("<pytorch>/", SITE_PACKAGES.sub("<site-packages>/", text))
