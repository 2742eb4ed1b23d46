# The public names of cobe, each once: type checkers read this stub as the package, and
# cobe.core.lazy.attach reads it to import each name's module on first use.
from cobe.api import leaderboard as leaderboard
from cobe.api import report as report
from cobe.api import results as results
from cobe.api import run_eval as run_eval
from cobe.core.errors import CobeError as CobeError
from cobe.core.results import ResultRow as ResultRow
from cobe.core.version import __version__ as __version__
from cobe.dataset import dataset_stats as dataset_stats
from cobe.dataset import load_dataset as load_dataset
from cobe.dataset import sample_scenarios as sample_scenarios
from cobe.dataset import validate_paths as validate_paths
from cobe.dataset import write_dataset as write_dataset
from cobe.dataset.schema import CausalGraph as CausalGraph
from cobe.dataset.schema import FailureMode as FailureMode
from cobe.dataset.schema import GraphType as GraphType
from cobe.dataset.schema import Scenario as Scenario
from cobe.models import get_provider as get_provider
from cobe.run.config import EvalConfig as EvalConfig
from cobe.run.engine import evaluate as evaluate
from cobe.run.rejudge import judge_run as judge_run
from cobe.score.agreement import agreement_metrics as agreement_metrics
from cobe.score.compare import paired_comparison as paired_comparison
