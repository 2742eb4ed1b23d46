# The public names of cobe.score, each once: type checkers read this stub as the package, and
# cobe.core.lazy.attach reads it to import each name's module on first use.
from cobe.score.accuracy import accuracy as accuracy
from cobe.score.accuracy import breakdown as breakdown
from cobe.score.accuracy import by_phrasing as by_phrasing
from cobe.score.accuracy import check_failure_rates as check_failure_rates
from cobe.score.accuracy import mean_and_std as mean_and_std
from cobe.score.accuracy import pooled_accuracy as pooled_accuracy
from cobe.score.accuracy import rows_frame as rows_frame
from cobe.score.agreement import agreement_metrics as agreement_metrics
from cobe.score.agreement import binary_metrics as binary_metrics
from cobe.score.agreement import metrics_from_counts as metrics_from_counts
from cobe.score.bootstrap import bootstrap_accuracy as bootstrap_accuracy
from cobe.score.compare import Comparison as Comparison
from cobe.score.compare import mcnemar_exact as mcnemar_exact
from cobe.score.compare import paired_comparison as paired_comparison
from cobe.score.pairwise import AllPairs as AllPairs
from cobe.score.pairwise import all_pairs as all_pairs
from cobe.score.ranks import rank_ranges as rank_ranges
