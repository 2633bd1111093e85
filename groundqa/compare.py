"""Compare logged runs (metrics table, bar chart, JSON) and diff the prompts/demos of compiled programs.

Runs come from the MLflow store (see :mod:`groundqa.compile` and :mod:`groundqa.evaluation_cli`): a compile
run carries ``baseline/<metric>``, ``compiled/<metric>`` and ``delta/<metric>``; an evaluation run carries
``dev/<metric>``. Every metric name ends with a leaf from :data:`groundqa.metrics.aggregate.METRICS`, a
count, or a timing. User-facing problems raise :class:`groundqa.cli.CLIError` (one line, exit code 2).
"""

from __future__ import annotations

import contextlib
import difflib
import fnmatch
import json
import math
import os
import re
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from groundqa.metrics.aggregate import COUNTS, METRICS

PROGRAM_ARTIFACT = "compiled/program.json"
EXPERIMENT_PREFIX = "groundqa-"
PARENT_TAG = "mlflow.parentRunId"

SCOPES = ("dev", "baseline", "compiled", "delta")
"""Metric prefixes, in row order: evaluation runs, then a compile's baseline, compiled and delta."""

LOWER_IS_BETTER = frozenset({
    "over_abstention_rate", "error_rate",
    "mean_latency_s", "p95_latency_s", "latency_s", "total_s", "compile_seconds",
})
"""Metric leaves (last ``/`` part) where the minimum is best; every other scored metric: the maximum."""

NEUTRAL = frozenset({"answer_rate", "abstain_rate", *COUNTS})
"""Metric leaves with no better direction (they depend on the question mix): never marked best."""

HEADLINE = (
    ("score", "composite\n(score)"),
    ("abstain_f1", "abstention F1"),
    ("citation_recall", "citation recall"),
    ("citation_precision", "citation precision"),
    ("str_em", "STR-EM"),
    ("token_f1", "token F1"),
    ("faithfulness", "faithfulness"),
)
"""Chart candidates in order; the first :data:`MAX_CHART_METRICS` that some run has are drawn."""
MAX_CHART_METRICS = 5

_HEX_ID = re.compile(r"^[0-9a-f]{32}$")
_HEX_PREFIX = re.compile(r"^[0-9a-f]{4,31}$")


def _cli_error(message: str) -> Exception:
    from groundqa.cli import CLIError

    return CLIError(message)


# -- runs ------------------------------------------------------------------------------------------
@dataclass
class RunInfo:
    """One MLflow run as compared: identity, selected params and every (latest) metric value."""

    run_id: str
    name: str
    experiment: str
    start_time: int | None = None
    status: str = ""
    kind: str = "other"  # compile | evaluate | other
    params: dict[str, str] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)

    @property
    def short_id(self) -> str:
        return self.run_id[:8]

    def header(self, with_experiment: bool = False) -> str:
        """Column header: name, short id, then optimizer/program and LM when logged."""
        lines = [self.name, self.short_id]
        what = self.params.get("optimizer") or _short_program(self.params.get("program"))
        detail = " · ".join(v for v in (what, self.params.get("lm")) if v)
        if detail:
            lines.append(detail)
        if with_experiment:
            lines.append(self.experiment.removeprefix(EXPERIMENT_PREFIX))
        return "\n".join(lines)

    def label(self) -> str:
        """One-line label (chart legend)."""
        what = self.params.get("optimizer") or _short_program(self.params.get("program"))
        detail = ", ".join(v for v in (what, self.params.get("lm")) if v)
        return f"{self.name} ({self.short_id})" + (f" — {detail}" if detail else "")


def _short_program(program: str | None) -> str | None:
    if not program or program in ("baseline", "compiled"):
        return program
    return Path(program).name if Path(program).name != "program.json" else Path(program).parent.name


def _run_kind(params: dict[str, str], metrics: dict[str, float], name: str) -> str:
    if "optimizer" in params or any(k.startswith("compiled/") for k in metrics):
        return "compile"
    if name.startswith("evaluate") or any(k.startswith("dev/") for k in metrics):
        return "evaluate"
    return "other"


def run_info(run: Any, experiment_name: str) -> RunInfo:
    """A :class:`RunInfo` from an ``mlflow.entities.Run``."""
    params = dict(run.data.params)
    metrics = {k: float(v) for k, v in run.data.metrics.items()}
    name = run.info.run_name or run.data.tags.get("mlflow.runName") or run.info.run_id[:8]
    return RunInfo(run_id=run.info.run_id, name=name, experiment=experiment_name,
                   start_time=run.info.start_time, status=run.info.status,
                   kind=_run_kind(params, metrics, name), params=params, metrics=metrics)


def _store_path(uri: str) -> Path | None:
    """The local file behind a sqlite/file store URI (``None`` for servers and in-memory stores)."""
    parsed = urlparse(uri)
    if parsed.scheme == "sqlite":
        raw = uri.removeprefix("sqlite:///")
        return None if raw in ("", ":memory:") or raw.startswith("file:") else Path(unquote(raw))
    if parsed.scheme == "file":
        return Path(unquote(parsed.path))
    if parsed.scheme == "" or (len(parsed.scheme) == 1 and uri[1:3] in (":\\", ":/")):  # a plain path
        return Path(uri)
    return None


def open_client(settings: Any) -> Any:
    """An ``MlflowClient`` on the configured store; CLIError when it is missing or unreachable."""
    from groundqa.tracking.setup import configure_tracking

    uri = settings.tracking_uri
    local = _store_path(uri)
    if local is not None and not local.exists():
        raise _cli_error(f"no MLflow store at {local}: run `groundqa compile` or `groundqa evaluate` first "
                         "(or point MLFLOW_TRACKING_URI at your store)")
    tracking = configure_tracking(settings)
    if not tracking.enabled:
        raise _cli_error(tracking.reason)
    from mlflow.tracking import MlflowClient

    return MlflowClient(tracking_uri=tracking.uri)


def _store_call(client: Any, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Call the store; turn any failure into one CLIError line."""
    try:
        return fn(*args, **kwargs)
    except Exception as exc:  # sqlalchemy, requests and MlflowException all mean: cannot read the store
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise _cli_error(f"cannot {what} in the MLflow store {client.tracking_uri}: "
                         f"{type(exc).__name__}{': ' + first[:200] if first else ''}") from exc


def find_experiments(client: Any, name: str | None = None) -> list[Any]:
    """The named experiment (``NAME`` or ``groundqa-NAME``), else every ``groundqa-*`` experiment."""
    if name:
        for candidate in (name, f"{EXPERIMENT_PREFIX}{name}"):
            experiment = _store_call(client, "read experiments", client.get_experiment_by_name, candidate)
            if experiment is not None:
                return [experiment]
        known = [e.name for e in _groundqa_experiments(client)]
        hint = f"; known: {', '.join(known)}" if known else ""
        raise _cli_error(f"unknown experiment {name!r}{hint}")
    experiments = _groundqa_experiments(client)
    if not experiments:
        raise _cli_error(f"no {EXPERIMENT_PREFIX}* experiments in {client.tracking_uri}: "
                         "run `groundqa compile` or `groundqa evaluate` first")
    return experiments


def _groundqa_experiments(client: Any) -> list[Any]:
    found = _store_call(client, "read experiments", client.search_experiments,
                        filter_string=f"name LIKE '{EXPERIMENT_PREFIX}%'")
    return sorted(found, key=lambda e: e.name)


def _iter_runs(client: Any, experiments: Sequence[Any]) -> Iterable[Any]:
    """Every active run of ``experiments``, newest first (paged)."""
    ids = [e.experiment_id for e in experiments]
    token = None
    while True:
        page = _store_call(client, "read runs", client.search_runs, ids, max_results=500,
                           order_by=["attributes.start_time DESC"], page_token=token)
        yield from page
        token = page.token
        if not token:
            return


def _is_top_level(run: Any) -> bool:
    return PARENT_TAG not in run.data.tags


def resolve_run(client: Any, experiments: Sequence[Any], token: str) -> Any:
    """The run with id ``token``, else the newest run named ``token``, else the one run whose id (or,
    among top-level runs, whose name) starts with ``token``."""
    token = token.strip()
    if _HEX_ID.match(token):
        try:
            return client.get_run(token)
        except Exception:  # not found (or unreadable): try it as a name below
            pass
    runs = list(_iter_runs(client, experiments))
    named = [r for r in runs if r.info.run_name == token]
    if named:
        top = [r for r in named if _is_top_level(r)] or named
        if len(top) > 1:
            import sys

            print(f"groundqa: {len(top)} runs are named {token!r}; using the newest ({top[0].info.run_id[:8]})",
                  file=sys.stderr)
        return top[0]
    if _HEX_PREFIX.match(token):
        matches = [r for r in runs if r.info.run_id.startswith(token)]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise _cli_error(f"run id prefix {token!r} is ambiguous ({len(matches)} runs); give more characters")
    prefixed = [r for r in runs if _is_top_level(r) and (r.info.run_name or "").startswith(token)]
    if len(prefixed) == 1:
        return prefixed[0]
    if len(prefixed) > 1:
        some = ", ".join(r.info.run_name for r in prefixed[:4]) + (", ..." if len(prefixed) > 4 else "")
        raise _cli_error(f"run name prefix {token!r} is ambiguous ({len(prefixed)} runs: {some}); "
                         "give the full name or the run id")
    where = ", ".join(e.name for e in experiments)
    raise _cli_error(f"unknown run {token!r}: no run id or run name matches in {where}")


def select_runs(client: Any, experiments: Sequence[Any], runs: Sequence[str] | None = None,
                last: int = 5) -> list[RunInfo]:
    """The runs named by ``runs`` (ids or names, in that order), else the ``last`` newest top-level runs."""
    names = {e.experiment_id: e.name for e in experiments}

    def experiment_of(run: Any) -> str:
        if run.info.experiment_id not in names:
            experiment = _store_call(client, "read experiments", client.get_experiment, run.info.experiment_id)
            names[run.info.experiment_id] = experiment.name
        return names[run.info.experiment_id]

    if runs:
        chosen = [resolve_run(client, experiments, token) for token in runs]
        unique = list({r.info.run_id: r for r in chosen}.values())
        return [run_info(r, experiment_of(r)) for r in unique]
    if last < 1:
        raise _cli_error("--last must be at least 1")
    picked: list[RunInfo] = []
    for run in _iter_runs(client, experiments):
        if _is_top_level(run):
            picked.append(run_info(run, experiment_of(run)))
            if len(picked) >= last:
                break
    if not picked:
        where = ", ".join(e.name for e in experiments)
        raise _cli_error(f"no runs to compare in {where} ({client.tracking_uri})")
    return picked


# -- metrics ---------------------------------------------------------------------------------------
@dataclass
class MetricRow:
    """One metric across runs: values by run id (``None`` = not logged) and the best run(s)."""

    name: str
    direction: str  # higher | lower | none
    values: dict[str, float | None]
    best: list[str] = field(default_factory=list)


@dataclass
class Comparison:
    """Runs (columns) x metrics (rows), with the best value of each row."""

    runs: list[RunInfo]
    rows: list[MetricRow]
    tracking_uri: str = ""

    def row(self, name: str) -> MetricRow:
        for row in self.rows:
            if row.name == name:
                return row
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``--json``)."""
        return {
            "tracking_uri": self.tracking_uri,
            "lower_is_better": sorted(LOWER_IS_BETTER),
            "runs": [{**asdict(r), "short_id": r.short_id} for r in self.runs],
            "metrics": [asdict(row) for row in self.rows],
        }


def split_metric(name: str) -> tuple[str, str, str]:
    """``(scope, group, leaf)``: ``compiled/single/citation_recall`` -> ``("compiled", "single", "citation_recall")``.

    ``scope`` is one of :data:`SCOPES` or ``""`` (run-level metrics such as ``compile_seconds``); ``group`` is
    ``""`` (overall), ``time``, ``count``, ``macro``, a question type, or for run-level metrics their prefix.
    """
    parts = name.split("/")
    scope = parts[0] if len(parts) > 1 and parts[0] in SCOPES else ""
    rest = parts[1:] if scope else parts
    return scope, "/".join(rest[:-1]), rest[-1]


def direction(name: str) -> str:
    """``"lower"``, ``"higher"`` or ``"none"`` (never marked) for a metric name."""
    _, group, leaf = split_metric(name)
    if leaf in NEUTRAL or group == "count" or group.endswith("/count"):
        return "none"
    return "lower" if leaf in LOWER_IS_BETTER else "higher"


def _is_default_row(name: str) -> bool:
    """Rows shown without ``--all``: overall metrics, timings, run-level metrics (not per type/macro/counts)."""
    scope, group, _ = split_metric(name)
    return not scope or group in ("", "time")


def sort_key(name: str) -> tuple[Any, ...]:
    """Composite score first, then the other metrics in :data:`METRICS` order; within a metric the scopes
    dev, baseline, compiled, delta; overall before timings, macro, per type and counts; run-level last."""
    scope, group, leaf = split_metric(name)
    if not scope:
        group_rank = 5
    elif group == "":
        group_rank = 0
    elif group == "time":
        group_rank = 1
    elif group == "macro":
        group_rank = 2
    elif group == "count" or group.endswith("/count"):
        group_rank = 4
    else:
        group_rank = 3
    order = {m: i for i, m in enumerate((*METRICS, *COUNTS))}
    group_base = group.removesuffix("/count") if group_rank == 4 else group
    return (group_rank, group_base, order.get(leaf, len(order)), leaf,
            SCOPES.index(scope) if scope else -1, name)


def best_runs(values: dict[str, float | None], how: str) -> list[str]:
    """Run ids holding the best value (ties: all of them); nothing when fewer than two runs have a value
    or when every run has the same value (no winner to show)."""
    present = {k: v for k, v in values.items() if v is not None and not math.isnan(v)}
    if how == "none" or len(present) < 2:
        return []
    target = min(present.values()) if how == "lower" else max(present.values())
    best = [k for k, v in present.items() if math.isclose(v, target, rel_tol=1e-9, abs_tol=1e-12)]
    return best if len(best) < len(present) else []


def build_comparison(runs: Sequence[RunInfo], all_metrics: bool = False, patterns: Sequence[str] | None = None,
                     tracking_uri: str = "") -> Comparison:
    """Rows for the union of the runs' metrics (filtered: default rows, or ``all_metrics``, or ``patterns``)."""
    names: set[str] = set()
    for run in runs:
        names.update(run.metrics)
    if patterns:
        names = {n for n in names if any(fnmatch.fnmatchcase(n, p) for p in patterns)}
    elif not all_metrics:
        names = {n for n in names if _is_default_row(n)}
    rows = []
    for name in sorted(names, key=sort_key):
        values = {r.run_id: r.metrics.get(name) for r in runs}
        how = direction(name)
        rows.append(MetricRow(name=name, direction=how, values=values, best=best_runs(values, how)))
    return Comparison(runs=list(runs), rows=rows, tracking_uri=tracking_uri)


def format_value(name: str, value: float | None) -> str:
    """Counts as integers, seconds with one decimal, deltas signed, other metrics with three decimals."""
    if value is None or math.isnan(value):
        return "—"
    scope, group, leaf = split_metric(name)
    if group == "count" or group.endswith("/count") or leaf in COUNTS:
        return f"{value:.0f}"
    if leaf.endswith("_s") or leaf.endswith("seconds"):
        return f"{value:+.1f}" if scope == "delta" else f"{value:.1f}"
    return f"{value:+.3f}" if scope == "delta" else f"{value:.3f}"


def render_table(comparison: Comparison) -> Any:
    """A ``rich.table.Table``: one row per metric, one column per run, best values bold with ``*``."""
    from rich.table import Table
    from rich.text import Text

    several = len({r.experiment for r in comparison.runs}) > 1
    experiments = ", ".join(sorted({r.experiment for r in comparison.runs}))
    table = Table(title=f"groundqa compare — {len(comparison.runs)} run(s) in {experiments}",
                  caption="* = best in row (bold; all equal: none); lower is better for over_abstention_rate, error_rate, "
                          "latency and time; counts and answer/abstain rates are not ranked")
    table.add_column("metric", style="bold", no_wrap=True)
    for run in comparison.runs:
        table.add_column(run.header(with_experiment=several), justify="right")
    previous_group: tuple[Any, ...] | None = None
    for row in comparison.rows:
        group = sort_key(row.name)[:2]
        if previous_group is not None and group != previous_group:
            table.add_section()
        previous_group = group
        cells = []
        for run in comparison.runs:
            text = format_value(row.name, row.values.get(run.run_id))
            # the star goes in front: right-justified numbers stay aligned (rich trims trailing spaces)
            cells.append(Text(f"* {text}", style="bold") if run.run_id in row.best else Text(text))
        name_style = "dim" if row.direction == "none" else None
        table.add_row(Text(row.name + (" ↓" if row.direction == "lower" else ""), style=name_style or ""), *cells)
    return table


def table_text(comparison: Comparison, width: int = 200) -> str:
    """The table rendered as plain text (tests, logs)."""
    from rich.console import Console

    console = Console(width=width, record=True, color_system=None, file=_NullIO())
    console.print(render_table(comparison))
    return console.export_text()


class _NullIO:
    def write(self, _: str) -> int:
        return 0

    def flush(self) -> None:
        pass


# -- chart -----------------------------------------------------------------------------------------
def headline_values(run: RunInfo, leaf: str) -> tuple[float | None, float | None]:
    """(value, baseline) drawn for a run: a compile's compiled/ and baseline/, an evaluation's dev/."""
    m = run.metrics
    if run.kind == "compile":
        return m.get(f"compiled/{leaf}"), m.get(f"baseline/{leaf}")
    return m.get(f"dev/{leaf}", m.get(leaf)), None


def plot_comparison(comparison: Comparison, path: str | Path, title: str | None = None) -> Path | None:
    """Grouped bars of the headline metrics per run, written as PNG; ``None`` when no run has any.

    A compile run's bar is its compiled value; a black tick marks its baseline value.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    runs = comparison.runs
    chosen = [(leaf, label) for leaf, label in HEADLINE
              if any(headline_values(r, leaf)[0] is not None for r in runs)][:MAX_CHART_METRICS]
    if not chosen or not runs:
        return None
    n_runs, n_metrics = len(runs), len(chosen)
    bar_w = 0.8 / n_runs
    legend_cols = 1 if n_runs > 3 else 2
    legend_rows = math.ceil((n_runs + 1) / legend_cols)
    width = min(14.0, max(8.0, 1.2 + n_metrics * (0.6 + 0.4 * n_runs)))
    fig = Figure(figsize=(width, 4.8 + 0.2 * legend_rows), dpi=120)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    palette = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C",
               "#CCB974", "#64B5CD"]
    rotate = n_runs > 3
    has_baseline = False
    for i, run in enumerate(runs):
        color = palette[i % len(palette)]
        for j, (leaf, _) in enumerate(chosen):
            value, baseline = headline_values(run, leaf)
            x = j - 0.4 + bar_w * (i + 0.5)
            if value is None:
                ax.text(x, 0.01, "n/a", ha="center", va="bottom", fontsize=7, color="#777777", rotation=90)
                continue
            ax.bar(x, value, width=bar_w * 0.92, color=color)
            top_of = max(value, baseline) if baseline is not None else value  # keep the label off the tick
            ax.annotate(f"{value:.2f}", (x, top_of), xytext=(0, 3), textcoords="offset points", ha="center",
                        va="bottom", fontsize=7 if rotate else 8, rotation=90 if rotate else 0)
            if baseline is not None:
                has_baseline = True
                ax.hlines(baseline, x - bar_w * 0.46, x + bar_w * 0.46, colors="black", linewidth=2)
    ax.set_xticks(range(n_metrics), [label for _, label in chosen], fontsize=10)
    top = max([1.0] + [v for r in runs for leaf, _ in chosen for v in headline_values(r, leaf) if v is not None])
    ax.set_ylim(0, top * (1.18 if rotate else 1.1))
    ax.set_ylabel("value (higher is better)")
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    experiments = ", ".join(sorted({r.experiment for r in runs}))
    ax.set_title(title or f"groundqa compare — {experiments}", fontsize=12)
    handles = [Patch(color=palette[i % len(palette)], label=run.label()) for i, run in enumerate(runs)]
    if has_baseline:
        handles.append(Line2D([], [], color="black", linewidth=2, label="baseline of a compile run (its bar: compiled)"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=legend_cols,
              fontsize=8, frameon=False)
    fig.tight_layout()
    path = Path(path)
    if path.parent != Path(""):
        path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png", bbox_inches="tight")
    return path


# -- program diff ----------------------------------------------------------------------------------
@dataclass
class ProgramSource:
    """A compiled program's state (``Module.save`` JSON) and where it came from."""

    label: str
    state: dict[str, Any]


def _read_program_file(path: Path, label: str) -> ProgramSource:
    if path.is_dir():
        path = path / "program.json"
        if not path.exists():
            raise _cli_error(f"no program.json in {path.parent}")
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _cli_error(f"{path} is not a readable program JSON: {exc}") from exc
    if not isinstance(state, dict) or not predictors(state):
        raise _cli_error(f"{path} is not a compiled program (no predictor with a signature or demos)")
    return ProgramSource(label=label, state=state)


def _looks_like_path(ref: str) -> bool:
    return ref.endswith(".json") or "/" in ref or "\\" in ref or ref.startswith(".")


def load_program_source(ref: str, client_factory: Any) -> ProgramSource:
    """``ref`` is a program.json, its folder, or a run id/name whose ``compiled/program.json`` is downloaded.

    ``client_factory()`` returns ``(client, experiments)``; it is called only when ``ref`` is not a local path.
    """
    path = Path(ref).expanduser()
    if path.exists():
        return _read_program_file(path, str(path))
    if _looks_like_path(ref):
        raise _cli_error(f"file not found: {ref}")
    client, experiments = client_factory()
    run = resolve_run(client, experiments, ref)
    name = f"run {run.info.run_name} ({run.info.run_id[:8]})"
    listed = _store_call(client, "list artifacts", client.list_artifacts, run.info.run_id, "compiled")
    if not any(a.path == PROGRAM_ARTIFACT for a in listed):
        raise _cli_error(f"{name} has no compiled program (artifact {PROGRAM_ARTIFACT}); "
                         "only compile runs have one")
    import mlflow.artifacts

    with tempfile.TemporaryDirectory() as tmp, _no_progress_bar():
        local = _store_call(client, "download artifacts", mlflow.artifacts.download_artifacts,
                            run_id=run.info.run_id, artifact_path=PROGRAM_ARTIFACT, dst_path=tmp,
                            tracking_uri=client.tracking_uri)
        return _read_program_file(Path(local), f"{name}: {PROGRAM_ARTIFACT}")


@contextlib.contextmanager
def _no_progress_bar() -> Iterator[None]:
    """MLflow's artifact progress bar off (one small file; keeps stderr to our own lines)."""
    key = "MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR"
    previous = os.environ.get(key)
    os.environ[key] = "false"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = previous


def predictors(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The predictor entries of a saved program (skips ``metadata``/``groundqa`` and other sections)."""
    return {name: value for name, value in state.items()
            if isinstance(value, dict) and ("signature" in value or "demos" in value)}


def demo_label(demo: Any, limit: int = 90) -> str:
    """A demo identified by its question, else its first input field, truncated."""
    if isinstance(demo, dict):
        key = "question" if "question" in demo else next((k for k in demo if k != "augmented"), None)
        text = f"{key}: {demo[key]}" if key is not None and key != "question" else str(demo.get("question", ""))
    else:
        text = str(demo)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _demo_key(demo: Any) -> str:
    if isinstance(demo, dict):
        demo = {k: v for k, v in demo.items() if k != "augmented"}
    return json.dumps(demo, sort_keys=True, default=str, ensure_ascii=False)


@dataclass
class PredictorDiff:
    """How one predictor differs between program A and program B."""

    name: str
    presence: str  # both | only_a | only_b
    instructions_same: bool
    instructions_diff: list[str]
    fields_diff: list[str]
    demos_a: int
    demos_b: int
    added: list[str]
    removed: list[str]


def _instructions(entry: dict[str, Any] | None) -> str:
    signature = (entry or {}).get("signature") or {}
    return str(signature.get("instructions") or "")


def _fields(entry: dict[str, Any] | None) -> list[str]:
    signature = (entry or {}).get("signature") or {}
    return [f"{f.get('prefix', '')} {f.get('description', '')}".strip() for f in signature.get("fields") or []
            if isinstance(f, dict)]


def _multiset_minus(a: list[Any], b: list[Any]) -> list[Any]:
    """Items of ``a`` not matched by an equal item of ``b`` (order of ``a`` kept)."""
    remaining = Counter(_demo_key(d) for d in b)
    out = []
    for demo in a:
        key = _demo_key(demo)
        if remaining[key]:
            remaining[key] -= 1
        else:
            out.append(demo)
    return out


def diff_programs(a: ProgramSource, b: ProgramSource) -> list[PredictorDiff]:
    """Per predictor (union, in A's order then B's): instruction and field diffs, demo counts, demos +/-."""
    pa, pb = predictors(a.state), predictors(b.state)
    out = []
    for name in [*pa, *(n for n in pb if n not in pa)]:
        ea, eb = pa.get(name), pb.get(name)
        ia, ib = _instructions(ea), _instructions(eb)
        idiff = list(difflib.unified_diff(ia.splitlines(), ib.splitlines(), fromfile=f"A {name}",
                                          tofile=f"B {name}", lineterm="", n=2))
        fa, fb = _fields(ea), _fields(eb)
        fdiff = [] if fa == fb else list(difflib.unified_diff(fa, fb, fromfile="A fields", tofile="B fields",
                                                              lineterm="", n=0))
        da, db = list((ea or {}).get("demos") or []), list((eb or {}).get("demos") or [])
        out.append(PredictorDiff(
            name=name, presence="both" if ea is not None and eb is not None else ("only_a" if eb is None else "only_b"),
            instructions_same=ia == ib, instructions_diff=idiff, fields_diff=fdiff,
            demos_a=len(da), demos_b=len(db),
            added=[demo_label(d) for d in _multiset_minus(db, da)],
            removed=[demo_label(d) for d in _multiset_minus(da, db)],
        ))
    return out


def format_diff(a: ProgramSource, b: ProgramSource, diffs: Sequence[PredictorDiff]) -> list[tuple[str, str]]:
    """``(line, style)`` pairs for the terminal (style is a rich style or ``""``)."""
    lines: list[tuple[str, str]] = [(f"A: {a.label}", "bold"), (f"B: {b.label}", "bold")]
    changed = sum(1 for d in diffs if not d.instructions_same or d.fields_diff or d.added or d.removed
                  or d.presence != "both")
    lines.append((f"{len(diffs)} predictor(s), {changed} changed", "dim"))
    for d in diffs:
        lines.append(("", ""))
        where = {"both": "", "only_a": "  (only in A)", "only_b": "  (only in B)"}[d.presence]
        lines.append((f"== {d.name}{where}", "bold cyan"))
        if d.instructions_same:
            lines.append(("instructions: same", ""))
        else:
            lines.append(("instructions:", ""))
            for line in d.instructions_diff:
                style = "bold" if line.startswith(("---", "+++")) else (
                    "green" if line.startswith("+") else "red" if line.startswith("-") else
                    "cyan" if line.startswith("@@") else "")
                lines.append(("  " + line, style))
        if d.fields_diff:
            lines.append(("fields:", ""))
            lines.extend(("  " + line, "green" if line.startswith("+") and not line.startswith("+++") else
                          "red" if line.startswith("-") and not line.startswith("---") else "dim")
                         for line in d.fields_diff if not line.startswith("@@"))
        lines.append((f"demos: {d.demos_a} -> {d.demos_b} (+{len(d.added)} added, -{len(d.removed)} removed)", ""))
        lines.extend((f"  + {label}", "green") for label in d.added)
        lines.extend((f"  - {label}", "red") for label in d.removed)
    return lines


def diff_to_dict(a: ProgramSource, b: ProgramSource, diffs: Sequence[PredictorDiff]) -> dict[str, Any]:
    """The diff as a JSON-ready dict (``--diff --json``)."""
    return {"a": a.label, "b": b.label, "predictors": [asdict(d) for d in diffs]}
