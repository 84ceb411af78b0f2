from . import dice
from . import rules
