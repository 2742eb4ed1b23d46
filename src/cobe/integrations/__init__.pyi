# The public names of cobe.integrations, each once: type checkers read this stub as the package, and
# cobe.core.lazy.attach reads it to import each name's module on first use.
from cobe.integrations.eee import EeeExport as EeeExport
from cobe.integrations.eee import export_eee as export_eee
from cobe.integrations.hf import HfExport as HfExport
from cobe.integrations.hf import export_hf as export_hf
from cobe.integrations.imported_run import ImportedRun as ImportedRun
from cobe.integrations.inspect_log import export_inspect as export_inspect
from cobe.integrations.inspect_log import import_inspect as import_inspect
from cobe.integrations.lm_eval import import_lm_eval as import_lm_eval
from cobe.integrations.preference import PreferenceExport as PreferenceExport
from cobe.integrations.preference import export_preference as export_preference
from cobe.integrations.preference import preference_pairs as preference_pairs
from cobe.integrations.reward import CobeReward as CobeReward
from cobe.integrations.reward import grpo_rows as grpo_rows
from cobe.integrations.site_results import import_site_results as import_site_results
from cobe.integrations.verdict_files import ImportResult as ImportResult
from cobe.integrations.verdict_files import import_results as import_results
