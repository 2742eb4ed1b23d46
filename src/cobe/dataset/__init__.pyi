# The public names of cobe.dataset, each once: type checkers read this stub as the package, and
# cobe.core.lazy.attach reads it to import each name's module on first use.
from cobe.dataset.graph import check_graph as check_graph
from cobe.dataset.graph import derive_graph_type as derive_graph_type
from cobe.dataset.loaders import Dataset as Dataset
from cobe.dataset.loaders import LoadResult as LoadResult
from cobe.dataset.loaders import iter_dataset as iter_dataset
from cobe.dataset.loaders import load_dataset as load_dataset
from cobe.dataset.loaders import read_file as read_file
from cobe.dataset.loaders import resolve_source as resolve_source
from cobe.dataset.loaders import spool_dataset as spool_dataset
from cobe.dataset.problems import Problem as Problem
from cobe.dataset.sample import sample_scenarios as sample_scenarios
from cobe.dataset.schema import CausalGraph as CausalGraph
from cobe.dataset.schema import Edge as Edge
from cobe.dataset.schema import Fact as Fact
from cobe.dataset.schema import FailureMode as FailureMode
from cobe.dataset.schema import GraphType as GraphType
from cobe.dataset.schema import Scenario as Scenario
from cobe.dataset.schema import make_id as make_id
from cobe.dataset.spool import ScenarioSpool as ScenarioSpool
from cobe.dataset.stats import dataset_stats as dataset_stats
from cobe.dataset.validate import ValidationReport as ValidationReport
from cobe.dataset.validate import validate as validate
from cobe.dataset.validate import validate_paths as validate_paths
from cobe.dataset.validate import validate_record as validate_record
from cobe.dataset.writers import SHAPES as SHAPES
from cobe.dataset.writers import write_dataset as write_dataset
