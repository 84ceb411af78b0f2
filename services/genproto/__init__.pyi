from . import neon
