from . import v1
