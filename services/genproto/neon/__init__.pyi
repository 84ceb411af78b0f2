from . import dice
from . import matchmaking
from . import rules
from . import scoring
from . import tournament
